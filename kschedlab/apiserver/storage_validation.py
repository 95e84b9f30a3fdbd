"""The API server's defaults and validation of the storage kinds, with upstream's field paths.

* PersistentVolume (``ValidatePersistentVolume``): access modes required and supported
  (``ReadWriteOncePod`` alone), ``capacity`` with ``storage`` only and positive, one volume
  source exactly, ``local`` needing node affinity, reclaim policy and volume mode supported,
  the class name a DNS subdomain. Defaults: ``persistentVolumeReclaimPolicy: Retain``,
  ``volumeMode: Filesystem``, ``status.phase: Pending``.
* PersistentVolumeClaim (``ValidatePersistentVolumeClaimSpec``): at least one access mode,
  ``resources.requests.storage`` present and positive, the selector's operators, the data
  source. Defaults: ``volumeMode: Filesystem``, ``status.phase: Pending``.
* StorageClass: provisioner a qualified name, reclaim policy Delete or Retain, binding mode
  Immediate or WaitForFirstConsumer (defaults: Delete, Immediate), allowed topologies.
* CSINode, CSIDriver, CSIStorageCapacity and VolumeAttachment: names, counts and sizes.

>>> from kschedlab.api.persistentvolume import PersistentVolumeClaim
>>> pvc = PersistentVolumeClaim.model_validate({"metadata": {"name": "c", "namespace": "default"},
...     "spec": {"accessModes": ["ReadWriteOnce", "ReadWriteOncePod"], "resources": {"requests": {"storage": "0"}}}})
>>> for path, msg in storage_object_errors(pvc):
...     print(path, "|", msg)
spec.accessModes | Forbidden: may not use ReadWriteOncePod with other access modes
spec.resources[storage] | Invalid value: "0": must be greater than zero
"""

from __future__ import annotations

import posixpath
from typing import Any, Callable, Iterable

from ..api.errors import ManifestError
from ..api.persistentvolume import (
    ACCESS_MODES,
    PV_SOURCES,
    RECLAIM_POLICIES,
    VOLUME_MODES,
    PersistentVolume,
    PersistentVolumeClaim,
)
from ..api.quantity import Quantity
from ..api.storage import (
    STORAGE_CLASS_RECLAIM_POLICIES,
    VOLUME_BINDING_MODES,
    CSIDriver,
    CSINode,
    CSIStorageCapacity,
    StorageClass,
    VolumeAttachment,
)
from ..api.validation import dns1123_subdomain_errors, qualified_name_errors
from .field import duplicate as _duplicate
from .field import forbidden as _forbidden
from .field import invalid as _invalid
from .field import not_supported as _not_supported
from .field import required as _required
from .selector_validation import label_selector_errors

__all__ = ["set_storage_defaults", "storage_object_errors", "admit_storage_objects", "default_storage_class",
           "STORAGE_KINDS"]

STORAGE_KINDS = (PersistentVolume, PersistentVolumeClaim, StorageClass, CSINode, CSIDriver,
                 CSIStorageCapacity, VolumeAttachment)

Errs = list[tuple[str | None, str]]

_FS_GROUP_POLICIES = ("File", "None", "ReadWriteOnceWithFSType")
_LIFECYCLE_MODES = ("Ephemeral", "Persistent")
_CSI_DRIVER_NAME_MAX = 63


def _name(errs: Errs, obj: Any) -> None:
    """``ValidateObjectMeta`` with ``NameIsDNSSubdomain``."""
    name = obj.metadata.name or ""
    if not name:
        errs.append(_required("metadata.name", "name or generateName is required"))
        return
    for msg in dns1123_subdomain_errors(name):
        errs.append(_invalid("metadata.name", name, msg))


def _class_name(errs: Errs, path: str, value: str | None) -> None:
    if value:
        for msg in dns1123_subdomain_errors(value):
            errs.append(_invalid(path, value, msg))


def _access_modes(errs: Errs, path: str, modes: list[str], required_detail: str) -> None:
    if not modes:
        errs.append(_required(path, required_detail))
    rwop = other = False
    for mode in modes:
        if mode not in ACCESS_MODES:
            errs.append(_not_supported(path, mode, ACCESS_MODES))
        if mode == "ReadWriteOncePod":
            rwop = True
        elif mode in ACCESS_MODES:
            other = True
    if rwop and other:
        errs.append(_forbidden(path, "may not use ReadWriteOncePod with other access modes"))


def _positive(errs: Errs, path: str, q: Quantity) -> bool:
    if q.sign() <= 0:
        errs.append(_invalid(path, str(q), "must be greater than zero"))
        return False
    return True


def _non_negative(errs: Errs, path: str, q: Quantity | None) -> None:
    if q is not None and q.sign() < 0:
        errs.append(_invalid(path, str(q), "must be greater than or equal to 0"))


def _node_selector_terms(errs: Errs, path: str, pv: PersistentVolume) -> bool:
    """``validateVolumeNodeAffinity``: whether node affinity is given, its errors added."""
    na = pv.spec.node_affinity
    if na is None:
        return False
    if na.required is None:
        errs.append(_required(f"{path}.required", "must specify required node constraints"))
        return False
    if not na.required.node_selector_terms:
        errs.append(_required(f"{path}.required.nodeSelectorTerms", "must have at least one node selector term"))
    return True


def persistent_volume_errors(pv: PersistentVolume) -> Errs:
    """``ValidatePersistentVolume`` (not inline) as (field path, message) pairs. A ``capacity``
    with another resource than ``storage`` shows its bad value as ``map[name:quantity ...]``
    (upstream prints Go's raw ``%#v`` of the ResourceList there).

    >>> pv = PersistentVolume.model_validate({"metadata": {"name": "pv"}, "spec": {
    ...     "capacity": {"storage": "1Gi", "cpu": "1"}, "accessModes": ["ReadWriteOnce"], "local": {"path": "/d"}}})
    >>> for path, msg in persistent_volume_errors(pv):
    ...     print(path, "|", msg)
    spec.capacity | Unsupported value: map[cpu:1 storage:1Gi]: supported values: "storage"
    spec.nodeAffinity | Required value: Local volume requires node affinity
    """
    errs: Errs = []
    _name(errs, pv)
    spec = pv.spec
    _access_modes(errs, "spec.accessModes", spec.access_modes, "")
    if not spec.capacity:
        errs.append(_required("spec.capacity"))
    if "storage" not in spec.capacity or len(spec.capacity) > 1:
        shown = "map[" + " ".join(f"{k}:{v}" for k, v in sorted(spec.capacity.items())) + "]"
        errs.append(("spec.capacity", f"Unsupported value: {shown}: supported values: \"storage\""))
    for r, q in spec.capacity.items():
        _positive(errs, f"spec.capacity[{r}]", q)
    policy = spec.persistent_volume_reclaim_policy
    if policy and policy not in RECLAIM_POLICIES:
        errs.append(_not_supported("spec.persistentVolumeReclaimPolicy", policy, RECLAIM_POLICIES))
    affinity = _node_selector_terms(errs, "spec.nodeAffinity", pv)
    sources = 0
    for field, name in PV_SOURCES:
        if getattr(spec, field) is None:
            continue
        if sources and field != "flex_volume":
            errs.append(_forbidden(f"spec.{name}", "may not specify more than 1 volume type"))
            continue
        sources += 1
        if field == "local" and not affinity:
            errs.append(_required("spec.nodeAffinity", "Local volume requires node affinity"))
        if field == "csi":
            if not spec.csi.driver:
                errs.append(_required("spec.csi.driver"))
            if not spec.csi.volume_handle:
                errs.append(_required("spec.csi.volumeHandle"))
    if not sources:
        errs.append(_required("spec", "must specify a volume type"))
    if (spec.host_path is not None and posixpath.normpath(spec.host_path.path or ".") == "/"
            and policy == "Recycle"):
        errs.append(_forbidden("spec.persistentVolumeReclaimPolicy", "may not be 'recycle' for a hostPath mount of '/'"))
    _class_name(errs, "spec.storageClassName", spec.storage_class_name)
    if spec.volume_mode is not None and spec.volume_mode not in VOLUME_MODES:
        errs.append(_not_supported("spec.volumeMode", spec.volume_mode, VOLUME_MODES))
    return errs


def persistent_volume_claim_errors(pvc: PersistentVolumeClaim) -> Errs:
    """``ValidatePersistentVolumeClaim`` as (field path, message) pairs.

    >>> pvc = PersistentVolumeClaim.model_validate({"metadata": {"name": "c", "namespace": "d"}, "spec": {}})
    >>> persistent_volume_claim_errors(pvc)
    [('spec.accessModes', 'Required value: at least 1 access mode is required'), ('spec.resources[storage]', 'Required value')]
    """
    errs: Errs = []
    _name(errs, pvc)
    spec = pvc.spec
    _access_modes(errs, "spec.accessModes", spec.access_modes, "at least 1 access mode is required")
    errs += label_selector_errors(spec.selector, "spec.selector")
    storage = spec.resources.requests.get("storage")
    if storage is None:
        errs.append(_required("spec.resources[storage]"))
    else:
        _positive(errs, "spec.resources[storage]", storage)
    _class_name(errs, "spec.storageClassName", spec.storage_class_name)
    if spec.volume_mode is not None and spec.volume_mode not in VOLUME_MODES:
        errs.append(_not_supported("spec.volumeMode", spec.volume_mode, VOLUME_MODES))
    for field, ref in (("dataSource", spec.data_source), ("dataSourceRef", spec.data_source_ref)):
        if ref is None:
            continue
        if not ref.name:
            errs.append(_required(f"spec.{field}.name"))
        if not ref.kind:
            errs.append(_required(f"spec.{field}.kind"))
        if not ref.api_group and ref.kind != "PersistentVolumeClaim":
            errs.append(_invalid(f"spec.{field}", ref.kind or "",
                                 "must be 'PersistentVolumeClaim' when referencing the default apiGroup"))
        elif ref.api_group:
            for msg in dns1123_subdomain_errors(ref.api_group):
                errs.append(_invalid(f"spec.{field}.apiGroup", ref.api_group, msg))
    return errs


def storage_class_errors(sc: StorageClass) -> Errs:
    """``ValidateStorageClass`` as (field path, message) pairs (read after defaulting).

    >>> sc = StorageClass.model_validate({"metadata": {"name": "x"}, "provisioner": "p",
    ...                                   "volumeBindingMode": "Later"})
    >>> storage_class_errors(sc)
    [('volumeBindingMode', 'Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"')]
    """
    errs: Errs = []
    _name(errs, sc)
    if not sc.provisioner:
        errs.append(_required("provisioner"))
    else:
        for msg in qualified_name_errors(sc.provisioner.lower()):
            errs.append(_invalid("provisioner", sc.provisioner, msg))
    if len(sc.parameters) > 512:
        errs.append(("parameters", "Too long: may not be more than 512 bytes"))
    elif sum(len(k) + len(v) for k, v in sc.parameters.items()) > 256 * 1024:
        errs.append(("parameters", f"Too long: may not be more than {256 * 1024} bytes"))
    if sc.reclaim_policy and sc.reclaim_policy not in STORAGE_CLASS_RECLAIM_POLICIES:
        errs.append(_not_supported("reclaimPolicy", sc.reclaim_policy, STORAGE_CLASS_RECLAIM_POLICIES))
    if sc.volume_binding_mode is None:
        errs.append(_required("volumeBindingMode"))
    elif sc.volume_binding_mode not in VOLUME_BINDING_MODES:
        errs.append(_not_supported("volumeBindingMode", sc.volume_binding_mode, VOLUME_BINDING_MODES))
    seen: list[Any] = []
    for i, term in enumerate(sc.allowed_topologies):
        p = f"allowedTopologies[{i}]"
        if not term.match_label_expressions:
            errs.append(_required(p, "must have at least one label expression"))
        keys: set[str] = set()
        for j, r in enumerate(term.match_label_expressions):
            ep = f"{p}.matchLabelExpressions[{j}]"
            for msg in qualified_name_errors(r.key or ""):
                errs.append(_invalid(f"{ep}.key", r.key or "", msg))
            if not r.values:
                errs.append(_required(f"{ep}.values", "must specify as least one value"))
            if r.key in keys:
                errs.append(_duplicate(f"{ep}.key", r.key))
            keys.add(r.key or "")
        if term in seen:
            errs.append((p, "Duplicate value: " + str(term.model_dump())))
        seen.append(term)
    return errs


def _csi_driver_name(errs: Errs, path: str, name: str | None) -> None:
    """``ValidateCSIDriverName``."""
    name = name or ""
    if not name:
        errs.append(_required(path))
        return
    if len(name) > _CSI_DRIVER_NAME_MAX:
        errs.append((path, f"Too long: may not be more than {_CSI_DRIVER_NAME_MAX} bytes"))
    for msg in dns1123_subdomain_errors(name.lower()):
        errs.append(_invalid(path, name, msg))


def csi_node_errors(node: CSINode) -> Errs:
    """``ValidateCSINode``: driver names, node IDs, non-negative counts, unique drivers."""
    errs: Errs = []
    _name(errs, node)
    names: set[str] = set()
    for i, d in enumerate(node.spec.drivers):
        p = f"spec.drivers[{i}]"
        _csi_driver_name(errs, f"{p}.name", d.name)
        if not d.node_id:
            errs.append(_required(f"{p}.nodeID"))
        elif len(d.node_id) > 192:
            errs.append((f"{p}.nodeID", "Too long: may not be more than 192 bytes"))
        if d.allocatable is not None and d.allocatable.count is not None and d.allocatable.count < 0:
            errs.append(_invalid(f"{p}.allocatable.count", d.allocatable.count, "must be greater than or equal to 0"))
        for j, key in enumerate(d.topology_keys):
            for msg in qualified_name_errors(key):
                errs.append(_invalid(f"{p}.topologyKeys[{j}]", key, msg))
        if d.name in names:
            errs.append(_duplicate(f"{p}.name", d.name))
        names.add(d.name or "")
    return errs


def csi_driver_errors(driver: CSIDriver) -> Errs:
    """``ValidateCSIDriver`` (read after defaulting): name, the required booleans, enums."""
    errs: Errs = []
    _csi_driver_name(errs, "metadata.name", driver.metadata.name)
    spec = driver.spec
    for field, value in (("attachRequired", spec.attach_required), ("podInfoOnMount", spec.pod_info_on_mount),
                         ("storageCapacity", spec.storage_capacity),
                         ("requiresRepublish", spec.requires_republish), ("seLinuxMount", spec.se_linux_mount)):
        if value is None:
            errs.append(_required(f"spec.{field}"))
    if spec.fs_group_policy is not None and spec.fs_group_policy not in _FS_GROUP_POLICIES:
        errs.append(_not_supported("spec.fsGroupPolicy", spec.fs_group_policy, _FS_GROUP_POLICIES))
    for mode in spec.volume_lifecycle_modes:
        if mode not in _LIFECYCLE_MODES:
            errs.append(_not_supported("spec.volumeLifecycleModes", mode, _LIFECYCLE_MODES))
    return errs


def csi_storage_capacity_errors(cap: CSIStorageCapacity) -> Errs:
    """``ValidateCSIStorageCapacity``: class name, topology selector, non-negative sizes."""
    errs: Errs = []
    _name(errs, cap)
    errs += label_selector_errors(cap.node_topology, "nodeTopology")
    if not cap.storage_class_name:
        errs.append(_required("storageClassName"))
    else:
        _class_name(errs, "storageClassName", cap.storage_class_name)
    _non_negative(errs, "capacity", cap.capacity)
    _non_negative(errs, "maximumVolumeSize", cap.maximum_volume_size)
    return errs


def volume_attachment_errors(va: VolumeAttachment) -> Errs:
    """``ValidateVolumeAttachment``: attacher, exactly one source, node name."""
    errs: Errs = []
    _name(errs, va)
    _csi_driver_name(errs, "spec.attacher", va.spec.attacher)
    src = va.spec.source
    if (src.persistent_volume_name is None) == (src.inline_volume_spec is None):
        errs.append(_required("spec.source", "must specify exactly one of inlineVolumeSpec and persistentVolumeName"))
    elif src.persistent_volume_name is not None:
        for msg in dns1123_subdomain_errors(src.persistent_volume_name):
            errs.append(_invalid("spec.source.persistentVolumeName", src.persistent_volume_name, msg))
    if not va.spec.node_name:
        errs.append(_required("spec.nodeName"))
    else:
        for msg in dns1123_subdomain_errors(va.spec.node_name):
            errs.append(_invalid("spec.nodeName", va.spec.node_name, msg))
    return errs


def set_storage_defaults(obj: Any) -> Any:
    """API defaulting of a storage object, in place (``SetDefaults_*`` of core/v1 and storage/v1).

    >>> pv = set_storage_defaults(PersistentVolume.model_validate({"metadata": {"name": "pv"}}))
    >>> pv.spec.persistent_volume_reclaim_policy, pv.spec.volume_mode, pv.status.phase
    ('Retain', 'Filesystem', 'Pending')
    """
    if isinstance(obj, PersistentVolume):
        obj.spec.persistent_volume_reclaim_policy = obj.spec.persistent_volume_reclaim_policy or "Retain"
        obj.spec.volume_mode = obj.spec.volume_mode or "Filesystem"
        obj.status.phase = obj.status.phase or "Pending"
        obj.mark_set("spec", "status")
    elif isinstance(obj, PersistentVolumeClaim):
        obj.spec.volume_mode = obj.spec.volume_mode or "Filesystem"
        obj.status.phase = obj.status.phase or "Pending"
        obj.mark_set("spec", "status")
    elif isinstance(obj, StorageClass):
        obj.reclaim_policy = obj.reclaim_policy or "Delete"
        obj.volume_binding_mode = obj.volume_binding_mode or "Immediate"
        obj.mark_set("reclaim_policy", "volume_binding_mode")
    elif isinstance(obj, CSIDriver):
        spec = obj.spec
        for field, default in (("attach_required", True), ("pod_info_on_mount", False), ("storage_capacity", False),
                               ("requires_republish", False), ("se_linux_mount", False)):
            if getattr(spec, field) is None:
                setattr(spec, field, default)
        spec.fs_group_policy = spec.fs_group_policy or "ReadWriteOnceWithFSType"
        spec.volume_lifecycle_modes = spec.volume_lifecycle_modes or ["Persistent"]
        obj.mark_set("spec")
    return obj


_VALIDATORS: dict[type, Callable[[Any], Errs]] = {
    PersistentVolume: persistent_volume_errors,
    PersistentVolumeClaim: persistent_volume_claim_errors,
    StorageClass: storage_class_errors,
    CSINode: csi_node_errors,
    CSIDriver: csi_driver_errors,
    CSIStorageCapacity: csi_storage_capacity_errors,
    VolumeAttachment: volume_attachment_errors,
}


def storage_object_errors(obj: Any) -> Errs:
    """The validation errors of one storage object (as it is: call :func:`set_storage_defaults` first
    to read it as the API server stores it)."""
    check = _VALIDATORS.get(type(obj))
    return check(obj) if check is not None else []


def default_storage_class(classes: Iterable[StorageClass]) -> StorageClass | None:
    """The DefaultStorageClass admission plugin's ``GetDefaultClass``: among the classes annotated
    ``storageclass.kubernetes.io/is-default-class: "true"`` (or the beta annotation), the newest
    (by ``creationTimestamp``; without one, the later in the input), ties broken by name.

    >>> a = StorageClass.model_validate({"metadata": {"name": "a", "annotations": {
    ...     "storageclass.kubernetes.io/is-default-class": "true"}}, "provisioner": "p"})
    >>> default_storage_class([a, StorageClass.model_validate({"metadata": {"name": "b"}, "provisioner": "p"})]).name
    'a'
    """
    from ..api.storage import ANN_BETA_DEFAULT_STORAGE_CLASS, ANN_DEFAULT_STORAGE_CLASS

    best, best_key = None, None
    for i, sc in enumerate(classes):
        ann = sc.metadata.annotations
        if ann.get(ANN_DEFAULT_STORAGE_CLASS) != "true" and ann.get(ANN_BETA_DEFAULT_STORAGE_CLASS) != "true":
            continue
        created = sc.metadata.creation_timestamp
        key = (created.timestamp() if created is not None else float("-inf"), i)
        if best_key is None or key > best_key or (key[0] == best_key[0] and created is not None
                                                   and sc.name < best.name):
            best, best_key = sc, key
    return best


def admit_storage_objects(objs: list) -> list[ManifestError]:
    """Default and validate the storage objects among ``objs`` in place; the errors name file,
    object and field path. Cluster-scoped kinds lose a namespace given to them, as the API
    server clears it. A claim without ``storageClassName`` (and without the beta class
    annotation) gets the default StorageClass of ``objs``, as the DefaultStorageClass admission
    plugin (on by default) sets it."""
    errors: list[ManifestError] = []
    default = default_storage_class(o for o in objs if isinstance(o, StorageClass))
    for o in objs:
        if (default is not None and isinstance(o, PersistentVolumeClaim) and o.spec.storage_class_name is None
                and "volume.beta.kubernetes.io/storage-class" not in o.metadata.annotations):
            o.spec.storage_class_name = default.name
            o.mark_set("spec")
    for o in objs:
        if type(o) not in _VALIDATORS:
            continue
        if not type(o).NAMESPACED and o.metadata.namespace:
            o.metadata.namespace = None
        set_storage_defaults(o)
        errors.extend(ManifestError(msg, file=o.source_file, obj=o.describe(), path=path)
                      for path, msg in storage_object_errors(o))
    return errors
