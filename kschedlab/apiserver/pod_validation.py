"""Validation of the pod spec blocks a user writes beyond scheduling: ``volumes``, containers'
``env``, ``securityContext`` (pod and container), a container's own ``restartPolicy`` and
``ephemeralContainers`` (upstream ``pkg/apis/core/validation``: ``ValidateVolumes``,
``validateVolumeSource``, ``ValidateEnv``, ``validateEnvVarValueFrom``, the key and field
selectors, ``validateSeccompProfileField``, ``ValidateAppArmorProfileField``, the pod security
context's enums and IDs). Messages and paths are upstream's ``field.ErrorList``.

- A volume names one source; each further one is ``Forbidden: may not specify more than 1 volume
  type`` at its own path (upstream's order of sources). None at all is not refused: defaulting
  makes it an ``emptyDir``. Then its name: ``Required value``, a DNS label, ``Duplicate value``.
  A container's ``volumeMounts`` name a volume that passed (``Not found: "cache"``), each with a
  ``mountPath`` of its own (``must be unique``).
- An ``env`` name is required and, with relaxed validation (GA in v1.34), printable ASCII other
  than ``=``. ``valueFrom`` is refused without a source, beside a ``value`` and with two sources; ``fieldRef`` and
  ``resourceFieldRef`` are checked against the paths and resources an env var may read,
  ``configMapKeyRef`` / ``secretKeyRef`` against names and keys.
- ``seccompProfile`` / ``appArmorProfile`` type and ``localhostProfile``, ``procMount``, the pod's
  ``fsGroupChangePolicy``, ``supplementalGroupsPolicy``, ``seLinuxChangePolicy``, user and group IDs
  in ``[0, 2147483647]``; sysctl names required, of the sysctl syntax (dots or slashes) and unique, none
  of the network (IPC) namespace in a pod with ``hostNetwork`` (``hostIPC``); ``shareProcessNamespace``
  not beside ``hostPID``.
- A container's own ``restartPolicy`` is ``Always``, ``OnFailure`` or ``Never`` (ContainerRestartRules,
  on by default since v1.35); ``ephemeralContainers`` cannot be set when a pod is created nor in a
  template (a dump's stored pod keeps them).
- ``fieldRef`` paths convert as the API server converts them (``error converting fieldPath: ...`` for a
  path it does not know), then must be one the env var (or volume file) may read.

Sources: the required name of a Secret, ConfigMap, claim, NFS export (absolute) and image volume;
hostPath's path (required, no ``..``) and ``type``; an image volume's ``pullPolicy``; ``emptyDir``'s
``sizeLimit`` not negative; file modes in ``[0, 0777]``; Secret, ConfigMap and projected items (key, a
relative path without ``..``); downward API files; a projected volume's sources (one kind each, no file
path twice, a service account token's lifetime and path, a ClusterTrustBundle's name or signer, not
both, with their syntax, and its label selector). Not checked: a ``podCertificate`` projection's fields.

>>> from kschedlab.api.core import PodSpec
>>> spec = PodSpec.model_validate({"volumes": [{"name": "data", "emptyDir": {}, "hostPath": {"path": "/d"}}],
...     "containers": [{"name": "app", "restartPolicy": "Sometimes", "env": [{"name": "A=B", "value": "1"},
...         {"name": "NODE", "value": "x", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}],
...         "securityContext": {"seccompProfile": {"type": "Default"}}}]})
>>> for path, message in pod_spec_field_errors(spec, ["spec"]):
...     print(f"{path}: {message}")
spec.volumes[0].hostPath: Forbidden: may not specify more than 1 volume type
spec.containers[0].restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"
spec.containers[0].env[0].name: Invalid value: "A=B": a valid environment variable name must consist only of printable ASCII characters other than '='
spec.containers[0].env[1].valueFrom: Invalid value: "": may not be specified when `value` is not empty
spec.containers[0].securityContext.seccompProfile.type: Unsupported value: "Default": supported values: "Localhost", "RuntimeDefault", "Unconfined"
"""

from __future__ import annotations

import re
from typing import Any, Iterable

from ..api.core import Container, PodSpec, VolumeMount
from ..api.env import EnvVar, ObjectFieldSelector, ResourceFieldSelector
from ..api.errors import format_path
from ..api.quantity import Quantity
from ..api.security_context import AppArmorProfile, SeccompProfile, SecurityContext, Sysctl
from ..api.validation import dns1123_label_errors, dns1123_subdomain_errors, qualified_name_errors, regex_error
from ..api.volume import ClusterTrustBundleProjection, DownwardAPIVolumeFile, KeyToPath, ProjectedVolumeSource, Volume
from .certificates_validation import cluster_trust_bundle_name_errors, signer_name_errors
from .field import bad_value, duplicate, forbidden, go_pointer, invalid, not_supported, required
from .selector_validation import go_label_selector, label_selector_errors

__all__ = ["HOST_PATH_TYPES", "pod_spec_field_errors", "volumes_errors", "volume_mounts_errors", "env_errors", "security_context_errors",
           "pod_security_context_errors", "ephemeral_containers_errors", "VOLUME_SOURCE_ORDER",
           "CONTAINER_RESTART_POLICIES", "ENV_FIELD_PATHS", "ENV_RESOURCES"]

Errors = list[tuple[str, str]]
Path = list[Any]

#: the sources in the order ``validateVolumeSource`` counts them (the first one set is kept)
VOLUME_SOURCE_ORDER = (
    ("empty_dir", "emptyDir"), ("host_path", "hostPath"), ("git_repo", "gitRepo"),
    ("gce_persistent_disk", "gcePersistentDisk"), ("aws_elastic_block_store", "awsElasticBlockStore"),
    ("secret", "secret"), ("nfs", "nfs"), ("iscsi", "iscsi"), ("glusterfs", "glusterfs"), ("flocker", "flocker"),
    ("persistent_volume_claim", "persistentVolumeClaim"), ("rbd", "rbd"), ("cinder", "cinder"),
    ("cephfs", "cephfs"), ("quobyte", "quobyte"), ("downward_api", "downwardAPI"), ("fc", "fc"),
    ("flex_volume", "flexVolume"), ("config_map", "configMap"), ("azure_file", "azureFile"),
    ("vsphere_volume", "vsphereVolume"), ("photon_persistent_disk", "photonPersistentDisk"),
    ("portworx_volume", "portworxVolume"), ("azure_disk", "azureDisk"), ("storageos", "storageos"),
    ("projected", "projected"), ("scale_io", "scaleIO"), ("csi", "csi"), ("ephemeral", "ephemeral"),
    ("image", "image"),
)
CONTAINER_RESTART_POLICIES = ("Always", "OnFailure", "Never")
#: ``hostPath.type`` values (sorted, the empty one first, as ``sets.List`` gives them)
HOST_PATH_TYPES = ("", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket")
_PULL_POLICIES = ("Always", "IfNotPresent", "Never")
#: what ``fieldRef`` of an env var may read without a subscript (sorted, as ``sets.List`` gives them)
ENV_FIELD_PATHS = ("metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName",
                   "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs")
#: what ``resourceFieldRef.resource`` of an env var may name (sorted), besides ``*.hugepages-<size>``
ENV_RESOURCES = ("limits.cpu", "limits.ephemeral-storage", "limits.memory", "requests.cpu",
                 "requests.ephemeral-storage", "requests.memory")
_HUGEPAGES_PREFIXES = ("limits.hugepages-", "requests.hugepages-")
#: what ``fieldRef`` of a downward API volume file may read without a subscript (sorted)
VOLUME_FIELD_PATHS = ("metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid")
#: the pod fields a v1 ``fieldRef`` converts (``ConvertDownwardAPIFieldLabel``); any other is a conversion error
_FIELD_LABELS = frozenset(("metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace",
                           "metadata.uid", "spec.nodeName", "spec.restartPolicy", "spec.serviceAccountName",
                           "spec.schedulerName", "status.phase", "status.hostIP", "status.hostIPs", "status.podIP",
                           "status.podIPs"))
_FILE_MODE = "must be a number between 0 and 0777 (octal), both inclusive"
#: a sysctl name, segments joined by dots or slashes (printed in the message as Go prints the regexp)
_SYSCTL_FMT = r"^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$"
_SYSCTL_RE = re.compile(_SYSCTL_FMT[:-1] + r"\Z")
_SYSCTL_MAX = 253
#: sysctls of the IPC namespace by name, and the prefixes of the namespaced ones (``utilsysctl``)
_IPC_SYSCTLS = frozenset(("kernel.sem", "kernel.shmall", "kernel.shmmax", "kernel.shmmni", "kernel.shm_rmid_forced",
                          "kernel.shm", "kernel.msgmax", "kernel.msgmnb", "kernel.msgmni", "kernel.msg"))
_CPU_DIVISORS = ("1m", "1")
_BYTE_DIVISORS = ("1", "1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei")
_BYTE_DIVISORS_TEXT = "only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the"
_CONFIG_KEY_FMT = "[-._a-zA-Z0-9]+"
_CONFIG_KEY_RE = re.compile(_CONFIG_KEY_FMT + r"\Z")
_PROFILE_TYPES = ("Localhost", "RuntimeDefault", "Unconfined")
_PROC_MOUNTS = ("Default", "Unmasked")
_FS_GROUP_CHANGE_POLICIES = ("Always", "OnRootMismatch")
_SUPPLEMENTAL_GROUPS_POLICIES = ("Merge", "Strict")
_SELINUX_CHANGE_POLICIES = ("MountOption", "Recursive")
_MAX_ID = 2147483647
_ID_RANGE = f"must be between 0 and {_MAX_ID}, inclusive"


def _p(path: Path, *more: Any) -> str:
    return format_path([*path, *more])


# ------------------------------------------------------------------- volumes


def _source_errors(vol: Volume, path: Path) -> Errors:
    errs: Errors = []
    count = 0
    for attr, alias in VOLUME_SOURCE_ORDER:
        source = getattr(vol, attr)
        if source is None:
            continue
        if count:
            errs.append(forbidden(_p(path, alias), "may not specify more than 1 volume type"))
            continue
        count += 1
        sp = [*path, alias]
        if attr == "empty_dir" and source.size_limit is not None and source.size_limit.sign() < 0:
            errs.append(forbidden(_p(sp, "sizeLimit"), "SizeLimit field must be a valid resource quantity"))
        elif attr == "secret":
            if not source.secret_name:
                errs.append(required(_p(sp, "secretName")))
            errs += _file_mode_errors(source.default_mode, [*sp, "defaultMode"])
            errs += _items_errors(source.items, [*sp, "items"])
        elif attr == "config_map":
            if not source.name:
                errs.append(required(_p(sp, "name")))
            errs += _file_mode_errors(source.default_mode, [*sp, "defaultMode"])
            errs += _items_errors(source.items, [*sp, "items"])
        elif attr == "downward_api":
            errs += _file_mode_errors(source.default_mode, [*sp, "defaultMode"])
            for item in source.items:
                errs += _downward_api_file_errors(item, sp)
        elif attr == "projected":
            errs += _file_mode_errors(source.default_mode, [*sp, "defaultMode"])
            errs += _projection_errors(source, sp)
        elif attr == "host_path":
            if not source.path:
                errs.append(required(_p(sp, "path")))
            elif ".." in source.path.split("/"):
                errs.append(invalid(_p(sp, "path"), source.path, "must not contain '..'"))
            if source.type is not None and source.type not in HOST_PATH_TYPES:
                errs.append(not_supported(_p(sp, "type"), source.type, HOST_PATH_TYPES))
        elif attr == "image":
            if not source.reference:
                errs.append(required(_p(sp, "reference")))
            if source.pull_policy and source.pull_policy not in _PULL_POLICIES:
                errs.append(not_supported(_p(sp, "pullPolicy"), source.pull_policy, _PULL_POLICIES))
        elif attr == "persistent_volume_claim" and not source.claim_name:
            errs.append(required(_p(sp, "claimName")))
        elif attr == "nfs":
            if not source.server:
                errs.append(required(_p(sp, "server")))
            if not source.path:
                errs.append(required(_p(sp, "path")))
            elif not source.path.startswith("/"):
                errs.append(invalid(_p(sp, "path"), source.path, "must be an absolute path"))
    return errs


def _local_non_reserved_path_errors(target: str, path: Path) -> Errors:
    # ValidateLocalNonReservedPath: a relative path without ".." elements, not starting with ".."
    errs = _local_descending_path_errors(target, path)
    if target.startswith("..") and not target.startswith("../"):
        errs.append(invalid(_p(path), target, "must not start with '..'"))
    return errs


def _file_mode_errors(mode: int | None, path: Path) -> Errors:
    return [invalid(_p(path), mode, _FILE_MODE)] if mode is not None and not 0 <= mode <= 0o777 else []


def _key_to_path_errors(item: KeyToPath, path: Path) -> Errors:
    # validateKeyToPath
    errs: Errors = []
    if not item.key:
        errs.append(required(_p(path, "key")))
    if not item.path:
        errs.append(required(_p(path, "path")))
    errs += _local_non_reserved_path_errors(item.path or "", [*path, "path"])
    return errs + _file_mode_errors(item.mode, [*path, "mode"])


def _items_errors(items: list[KeyToPath], path: Path) -> Errors:
    return [e for i, item in enumerate(items) for e in _key_to_path_errors(item, [*path, i])]


def _downward_api_file_errors(item: DownwardAPIVolumeFile, path: Path) -> Errors:
    # validateDownwardAPIVolumeFile, at the source's path (upstream does not index the item)
    errs: Errors = []
    if not item.path:
        errs.append(required(_p(path, "path")))
    errs += _local_non_reserved_path_errors(item.path or "", [*path, "path"])
    if item.field_ref is not None:
        errs += _object_field_selector_errors(item.field_ref, VOLUME_FIELD_PATHS, [*path, "fieldRef"])
        if item.resource_field_ref is not None:
            errs.append(invalid(_p(path), "resource", "fieldRef and resourceFieldRef can not be specified simultaneously"))
    elif item.resource_field_ref is not None:
        errs += _resource_field_selector_errors(item.resource_field_ref, [*path, "resourceFieldRef"], volume=True)
    else:
        errs.append(required(_p(path), "one of fieldRef and resourceFieldRef is required"))
    return errs + _file_mode_errors(item.mode, [*path, "mode"])


def _projection_errors(projected: ProjectedVolumeSource, path: Path) -> Errors:
    """``validateProjectionSources``: each source's fields, one kind per source, no file path twice
    (reported at the volume's path, with the Secret's or ConfigMap's name as the value)."""
    errs: Errors = []
    paths: set[str] = set()

    def claim(file_path: str, value: str | None) -> None:
        if file_path in paths:
            errs.append(invalid(_p(path), value or "", "conflicting duplicate paths"))
        paths.add(file_path)

    for i, source in enumerate(projected.sources):
        sp = [*path, "sources", i]
        kinds = 0
        for attr, alias in (("secret", "secret"), ("config_map", "configMap")):
            ref = getattr(source, attr)
            if ref is None:
                continue
            kinds += 1
            if not ref.name:
                errs.append(required(_p(sp, alias, "name")))
            for j, item in enumerate(ref.items):
                errs += _key_to_path_errors(item, [*sp, alias, "items", j])
                if item.path:
                    claim(item.path, ref.name)
        if source.downward_api is not None:
            kinds += 1
            for item in source.downward_api.items:
                errs += _downward_api_file_errors(item, [*sp, "downwardAPI"])
                if item.path:
                    claim(item.path, item.path)
        token = source.service_account_token
        if token is not None:
            kinds += 1
            seconds = 3600 if token.expiration_seconds is None else token.expiration_seconds  # (the v1 default)
            tp = [*sp, "serviceAccountToken", "expirationSeconds"]
            if seconds < 600:
                errs.append(invalid(_p(tp), seconds, "may not specify a duration less than 10 minutes"))
            if seconds > 1 << 32:
                errs.append(invalid(_p(tp), seconds, "may not specify a duration larger than 2^32 seconds"))
            if not token.path:  # (upstream reports the token's path at the volume's path)
                errs.append(required(_p(path, "path")))
            else:
                errs += _local_non_reserved_path_errors(token.path, [*path, "path"])
        bundle = source.cluster_trust_bundle
        if bundle is not None:
            kinds += 1
            bp = [*sp, "clusterTrustBundlePEM"]
            errs += _trust_bundle_errors(bundle, bp)
            if not bundle.path:
                errs.append(required(_p(bp, "path")))
            errs += _local_non_reserved_path_errors(bundle.path or "", [*bp, "path"])
            claim(bundle.path or "", bundle.path)
        if source.pod_certificate is not None:
            kinds += 1
        if kinds > 1:
            errs.append(forbidden(_p(sp), "may not specify more than 1 volume type"))
    return errs


def _go_trust_bundle(bundle: ClusterTrustBundleProjection) -> str:
    # %#v of the internal ClusterTrustBundleProjection: four pointers, then the path
    fields = (("Name", "string", bundle.name), ("SignerName", "string", bundle.signer_name),
              ("LabelSelector", "v1.LabelSelector", bundle.label_selector), ("Optional", "bool", bundle.optional))
    shown = [f"{name}:{go_pointer(t, v is not None, i)}" for i, (name, t, v) in enumerate(fields)]
    return "core.ClusterTrustBundleProjection{" + ", ".join([*shown, f"Path:{bad_value(bundle.path or '')}"]) + "}"


def _trust_bundle_errors(bundle: ClusterTrustBundleProjection, path: Path) -> Errors:
    """A ``clusterTrustBundle`` projection's source: a name (the bundle's name syntax, no label
    selector beside it) or a signer (its syntax, a valid label selector), not both."""
    name, signer = bundle.name, bundle.signer_name
    if name is not None and signer is not None:
        return [(_p(path), f"Invalid value: {_go_trust_bundle(bundle)}: only one of name and signerName may be used")]
    errs: Errors = []
    if name is not None:
        if not name:
            errs.append(required(_p(path, "name"), "must be a valid object name"))
        errs += [invalid(_p(path, "name"), name, f"not a valid clustertrustbundlename: {msg}")
                 for msg in cluster_trust_bundle_name_errors(name)]
        if bundle.label_selector is not None:
            errs.append((_p(path, "labelSelector"), f"Invalid value: {go_label_selector(bundle.label_selector)}: "
                                                    "labelSelector must be unset if name is specified"))
    elif signer is not None:
        if not signer:
            errs.append(required(_p(path, "signerName"), "must be a valid signer name"))
        errs += signer_name_errors(signer, _p(path, "signerName"))
        errs += label_selector_errors(bundle.label_selector, _p(path, "labelSelector"))
    else:
        errs.append(required(_p(path), "either name or signerName must be specified"))
    return errs


def volumes_errors(volumes: list[Volume], path: Path, names: set[str] | None = None) -> Errors:
    """``ValidateVolumes``: each volume's source, then its name (required, a DNS label, unique);
    ``names`` (when given) gets the names of the volumes that passed, the ones a mount may name."""
    errs: Errors = []
    names = set() if names is None else names
    for i, vol in enumerate(volumes):
        name_path = _p(path, i, "name")
        el = _source_errors(vol, [*path, i])
        if not vol.name:
            el.append(required(name_path))
        else:
            el += [invalid(name_path, vol.name, m) for m in dns1123_label_errors(vol.name)]
        if (vol.name or "") in names:
            el.append(duplicate(name_path, vol.name or ""))
        if el:
            errs += el
        else:
            names.add(vol.name or "")
    return errs


def volume_mounts_errors(mounts: list[VolumeMount], volumes: set[str], path: Path) -> Errors:
    """``ValidateVolumeMounts``: a name naming a (valid) volume of the pod, a mount path, unique."""
    errs: Errors = []
    paths: set[str] = set()
    for i, m in enumerate(mounts):
        if not m.name:
            errs.append(required(_p(path, i, "name")))
        if (m.name or "") not in volumes:
            errs.append((_p(path, i, "name"), f"Not found: {bad_value(m.name or '')}"))
        if not m.mount_path:
            errs.append(required(_p(path, i, "mountPath")))
        if (m.mount_path or "") in paths:
            errs.append(invalid(_p(path, i, "mountPath"), m.mount_path or "", "must be unique"))
        paths.add(m.mount_path or "")
    return errs


# ----------------------------------------------------------------------- env


def _relaxed_env_name_errors(name: str) -> list[str]:
    if any(ord(ch) > 0x7E or ord(ch) < 0x20 or ch == "=" for ch in name):
        return ["a valid environment variable name must consist only of printable ASCII characters other than '='"]
    return []


def _config_key_errors(key: str) -> list[str]:
    # IsConfigMapKey
    errs = []
    if len(key) > 253:
        errs.append("must be no more than 253 characters")
    if not _CONFIG_KEY_RE.match(key):
        errs.append(regex_error("a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
                                _CONFIG_KEY_FMT, "key.name", "KEY_NAME", "key-name"))
    if key == ".":
        errs.append("must not be '.'")
    elif key == "..":
        errs.append("must not be '..'")
    elif key.startswith(".."):
        errs.append("must not start with '..'")
    return errs


def _key_selector_errors(name: str | None, key: str | None, path: Path) -> Errors:
    errs = [invalid(_p(path, "name"), name or "", m) for m in dns1123_subdomain_errors(name or "")]
    if not key:
        errs.append(required(_p(path, "key")))
    else:
        errs += [invalid(_p(path, "key"), key, m) for m in _config_key_errors(key)]
    return errs


def _split_subscript(field_path: str) -> tuple[str, str] | None:
    # fieldpath.SplitMaybeSubscriptedPath: "metadata.labels['app']" -> ("metadata.labels", "app")
    if not field_path.endswith("']"):
        return None
    head, sep, subscript = field_path[:-2].partition("['")
    return (head, subscript) if sep and head else None


def _converted_field_path(api_version: str, field_path: str) -> tuple[str | None, str]:
    # ConvertDownwardAPIFieldLabel: the internal path, or None and the conversion error
    if api_version != "v1":
        return None, f"unsupported pod version: {api_version}"
    split = _split_subscript(field_path)
    if split is not None:
        if split[0] in ("metadata.annotations", "metadata.labels"):
            return field_path, ""
        return None, f"field label does not support subscript: {field_path}"
    if field_path == "spec.host":  # (what old v1 clients send)
        return "spec.nodeName", ""
    if field_path in _FIELD_LABELS:
        return field_path, ""
    return None, f"field label not supported: {field_path}"


def _object_field_selector_errors(ref: ObjectFieldSelector, allowed: tuple[str, ...], path: Path) -> Errors:
    # validateObjectFieldSelector (apiVersion is defaulted to v1 before validation)
    if not ref.field_path:
        return [required(_p(path, "fieldPath"))]
    internal, error = _converted_field_path(ref.api_version or "v1", ref.field_path)
    if internal is None:
        return [invalid(_p(path, "fieldPath"), ref.field_path, f"error converting fieldPath: {error}")]
    split = _split_subscript(internal)
    if split is not None:
        head, subscript = split
        if head == "metadata.annotations":
            subscript = subscript.lower()
        return [invalid(_p(path), subscript, msg) for msg in qualified_name_errors(subscript)]
    if internal not in allowed:
        return [not_supported(_p(path, "fieldPath"), internal, allowed)]
    return []


def _resource_field_selector_errors(ref: ResourceFieldSelector, path: Path, *, volume: bool = False) -> Errors:
    # validateContainerResourceFieldSelector: a volume's file names its container
    errs: Errors = []
    if volume and not ref.container_name:
        errs.append(required(_p(path, "containerName")))
    elif not ref.resource:
        errs.append(required(_p(path, "resource")))
    elif ref.resource not in ENV_RESOURCES and not ref.resource.startswith(_HUGEPAGES_PREFIXES):
        errs.append(not_supported(_p(path, "resource"), ref.resource, ENV_RESOURCES))
    return errs + _divisor_errors(ref.resource or "", ref.divisor, path)


def _divisor_errors(resource: str, divisor: Quantity | None, path: Path) -> Errors:
    if divisor is None or divisor.is_zero():
        return []
    text = str(divisor)
    if resource in ("limits.cpu", "requests.cpu"):
        if text not in _CPU_DIVISORS:
            return [invalid(_p(path, "divisor"), resource,
                            "only divisor's values 1m and 1 are supported with the cpu resource")]
    elif resource in ("limits.memory", "requests.memory"):
        if text not in _BYTE_DIVISORS:
            return [invalid(_p(path, "divisor"), resource, f"{_BYTE_DIVISORS_TEXT} memory resource")]
    elif resource in ("limits.ephemeral-storage", "requests.ephemeral-storage"):
        if text not in _BYTE_DIVISORS:
            return [invalid(_p(path, "divisor"), resource, f"{_BYTE_DIVISORS_TEXT} local ephemeral storage resource")]
    if resource.startswith(_HUGEPAGES_PREFIXES) and text not in _BYTE_DIVISORS:
        return [invalid(_p(path, "divisor"), resource, f"{_BYTE_DIVISORS_TEXT} hugepages resource")]
    return []


def _value_from_errors(env: EnvVar, path: Path) -> Errors:
    source = env.value_from
    if source is None:
        return []
    errs: Errors = []
    count = 0
    if source.field_ref is not None:
        count += 1
        errs += _object_field_selector_errors(source.field_ref, ENV_FIELD_PATHS, [*path, "fieldRef"])
    if source.resource_field_ref is not None:
        count += 1
        errs += _resource_field_selector_errors(source.resource_field_ref, [*path, "resourceFieldRef"])
    if source.config_map_key_ref is not None:
        count += 1
        cm = source.config_map_key_ref
        errs += _key_selector_errors(cm.name, cm.key, [*path, "configMapKeyRef"])
    if source.secret_key_ref is not None:
        count += 1
        sk = source.secret_key_ref
        errs += _key_selector_errors(sk.name, sk.key, [*path, "secretKeyRef"])
    if source.file_key_ref is not None:
        count += 1
    if not count:  # (v1.34 counts fileKeyRef as a source and kept the message)
        errs.append(invalid(_p(path), "", "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or "
                            "`secretKeyRef`"))
    elif env.value:
        errs.append(invalid(_p(path), "", "may not be specified when `value` is not empty"))
    elif count > 1:
        errs.append(invalid(_p(path), "", "may not have more than one field specified at a time"))
    return errs


def env_errors(env: list[EnvVar], path: Path) -> Errors:
    """``ValidateEnv``: names (required, relaxed) and each ``valueFrom``."""
    errs: Errors = []
    for i, e in enumerate(env):
        if not e.name:
            errs.append(required(_p(path, i, "name")))
        else:
            errs += [invalid(_p(path, i, "name"), e.name, m) for m in _relaxed_env_name_errors(e.name)]
        errs += _value_from_errors(e, [*path, i, "valueFrom"])
    return errs


# ---------------------------------------------------------- security context


def _seccomp_errors(sp: SeccompProfile | None, path: Path) -> Errors:
    if sp is None:
        return []
    errs: Errors = []
    if not sp.type:
        errs.append(required(_p(path, "type"), "type is required when seccompProfile is set"))
    elif sp.type not in _PROFILE_TYPES:
        errs.append(not_supported(_p(path, "type"), sp.type, _PROFILE_TYPES))
    if sp.type == "Localhost":
        if sp.localhost_profile is None:
            errs.append(required(_p(path, "localhostProfile"), "must be set when seccomp type is Localhost"))
        else:
            errs += _local_descending_path_errors(sp.localhost_profile, [*path, "localhostProfile"])
    return errs


def _local_descending_path_errors(target: str, path: Path) -> Errors:
    # validateLocalDescendingPath: relative, and no ".." element
    errs: Errors = []
    if target.startswith("/"):
        errs.append(invalid(_p(path), target, "must be a relative path"))
    if ".." in target.split("/"):
        errs.append(invalid(_p(path), target, "must not contain '..'"))
    return errs


def _apparmor_errors(ap: AppArmorProfile | None, path: Path) -> Errors:
    if ap is None:
        return []
    if ap.type == "Localhost":
        if ap.localhost_profile is None:
            return [required(_p(path, "localhostProfile"), "must be set when AppArmor type is Localhost")]
        return []
    if ap.type in ("RuntimeDefault", "Unconfined"):
        if ap.localhost_profile is not None:
            return [invalid(_p(path, "localhostProfile"), ap.localhost_profile,
                            "can only be set when AppArmor type is Localhost")]
        return []
    if not ap.type:
        return [required(_p(path, "type"), "type is required when appArmorProfile is set")]
    return [not_supported(_p(path, "type"), ap.type, _PROFILE_TYPES)]


def _id_errors(value: int | None, path: Path) -> Errors:
    if value is not None and not 0 <= value <= _MAX_ID:
        return [invalid(_p(path), value, _ID_RANGE)]
    return []


def security_context_errors(sc: SecurityContext | None, path: Path) -> Errors:
    """A container's ``securityContext``: IDs, ``procMount``, seccomp and AppArmor profiles."""
    if sc is None:
        return []
    errs = _id_errors(sc.run_as_user, [*path, "runAsUser"]) + _id_errors(sc.run_as_group, [*path, "runAsGroup"])
    if sc.proc_mount is not None and sc.proc_mount not in _PROC_MOUNTS:
        errs.append(not_supported(_p(path, "procMount"), sc.proc_mount, _PROC_MOUNTS))
    errs += _seccomp_errors(sc.seccomp_profile, [*path, "seccompProfile"])
    errs += _apparmor_errors(sc.app_armor_profile, [*path, "appArmorProfile"])
    return errs


def _sysctl_namespace(name: str) -> str | None:
    # utilsysctl.GetNamespace: "IPC", "Net" or None, of the name with dots first and up to any "*"
    sep = next((i for i, ch in enumerate(name) if ch in "./"), -1)
    if sep >= 0 and name[sep] == "/":
        name = name.translate(str.maketrans("./", "/."))
    name = name.split("*", 1)[0]
    if name in _IPC_SYSCTLS or name.startswith("fs.mqueue."):
        return "IPC"
    return "Net" if name.startswith("net.") else None


def _sysctls_errors(spec: PodSpec, sysctls: list[Sysctl], path: Path) -> Errors:
    # validateSysctls: a name (required, the sysctl syntax, unique), none of a namespace the pod shares with the host
    errs: Errors = []
    seen: set[str] = set()
    for i, s in enumerate(sysctls):
        name = s.name or ""
        np = _p(path, i, "name")
        if not name:
            errs.append(required(np))
        elif len(name) > _SYSCTL_MAX or not _SYSCTL_RE.match(name):
            errs.append(invalid(np, name, f"must have at most {_SYSCTL_MAX} characters and match regex {_SYSCTL_FMT}"))
        elif name in seen:
            errs.append(duplicate(np, name))
        namespace = _sysctl_namespace(name)
        if spec.host_network and namespace == "Net":
            errs.append(invalid(np, name, "may not be specified when 'hostNetwork' is true"))
        elif spec.host_ipc and namespace == "IPC":
            errs.append(invalid(np, name, "may not be specified when 'hostIPC' is true"))
        seen.add(name)
    return errs


def pod_security_context_errors(spec: PodSpec, path: Path) -> Errors:
    """``validatePodSpecSecurityContext`` of ``spec.securityContext`` (where the API server's internal
    pod keeps ``hostNetwork``, ``hostIPC``, ``hostPID`` and ``shareProcessNamespace`` too): IDs, the
    enumerated policies, sysctls, seccomp and AppArmor profiles."""
    sc = spec.security_context
    errs: Errors = []
    if sc is not None:
        errs += _id_errors(sc.fs_group, [*path, "fsGroup"])
        errs += _id_errors(sc.run_as_user, [*path, "runAsUser"]) + _id_errors(sc.run_as_group, [*path, "runAsGroup"])
        for i, g in enumerate(sc.supplemental_groups):
            errs += _id_errors(g, [*path, "supplementalGroups", i])
    if spec.share_process_namespace and spec.host_pid:
        errs.append(invalid(_p(path, "shareProcessNamespace"), True,
                            "ShareProcessNamespace and HostPID cannot both be enabled"))
    if sc is None:
        return errs
    errs += _sysctls_errors(spec, sc.sysctls, [*path, "sysctls"])
    if sc.fs_group_change_policy is not None and sc.fs_group_change_policy not in _FS_GROUP_CHANGE_POLICIES:
        errs.append(not_supported(_p(path, "fsGroupChangePolicy"), sc.fs_group_change_policy, _FS_GROUP_CHANGE_POLICIES))
    errs += _seccomp_errors(sc.seccomp_profile, [*path, "seccompProfile"])
    errs += _apparmor_errors(sc.app_armor_profile, [*path, "appArmorProfile"])
    for value, name, allowed in ((sc.supplemental_groups_policy, "supplementalGroupsPolicy",
                                  _SUPPLEMENTAL_GROUPS_POLICIES),
                                 (sc.se_linux_change_policy, "seLinuxChangePolicy", _SELINUX_CHANGE_POLICIES)):
        if value is not None and value not in allowed:
            errs.append(not_supported(_p(path, name), value, allowed))
    return errs


# ---------------------------------------------------------------- containers


def _container_errors(c: Container, volumes: set[str], path: Path) -> Errors:
    errs: Errors = []
    if c.restart_policy is not None and c.restart_policy not in CONTAINER_RESTART_POLICIES:
        errs.append(not_supported(_p(path, "restartPolicy"), c.restart_policy, CONTAINER_RESTART_POLICIES))
    errs += env_errors(c.env, [*path, "env"])
    errs += volume_mounts_errors(c.volume_mounts, volumes, [*path, "volumeMounts"])
    errs += security_context_errors(c.security_context, [*path, "securityContext"])
    return errs


def ephemeral_containers_errors(spec: PodSpec, path: Path, *, template: bool) -> Errors:
    """``ephemeralContainers`` on create (``ValidatePodCreate``) or in a pod template."""
    if not spec.ephemeral_containers:
        return []
    return [forbidden(_p(path, "ephemeralContainers"),
                      "ephemeral containers not allowed in pod template" if template else "cannot be set on create")]


def pod_spec_field_errors(spec: PodSpec, path: Path, claim_volumes: Iterable[str] = ()) -> Errors:
    """``(path, message)`` of every problem of the spec's volumes, containers' restart policy,
    env, mounts and security context, and the pod's security context. ``claim_volumes``: the
    volumes a StatefulSet's ``volumeClaimTemplates`` add to its pods, which its template's mounts
    may name."""
    volumes: set[str] = set(claim_volumes)
    errs = volumes_errors(spec.volumes, [*path, "volumes"], volumes)
    for group, containers in (("containers", spec.containers), ("initContainers", spec.init_containers)):
        for i, c in enumerate(containers):
            errs += _container_errors(c, volumes, [*path, group, i])
    errs += pod_security_context_errors(spec, [*path, "securityContext"])
    return errs
