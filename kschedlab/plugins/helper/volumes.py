"""What the volume plugins share: the claims a pod's volumes use (upstream every volume plugin
switches on ``persistentVolumeClaim`` / ``ephemeral``, with ``component-helpers/storage/ephemeral``
for the generic ephemeral claim's name and owner), the scheduler's listers of storage objects (with
the informer listers' not-found errors), and the volumes part of a pod's signature.

>>> from kschedlab.api.core import Pod
>>> from kschedlab.cluster import Cluster
>>> pod = Pod.model_validate({"metadata": {"name": "web", "namespace": "default"}, "spec": {"volumes": [
...     {"name": "data", "persistentVolumeClaim": {"claimName": "db"}},
...     {"name": "scratch", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}},
...     {"name": "conf", "configMap": {"name": "c"}}]}})
>>> [claim_name_of(pod, v) for v in pod.spec.volumes]
[('db', False), ('web-scratch', True), (None, False)]
>>> pod_claim_names(pod), persistent_volume_claim_names(pod)
(['db', 'web-scratch'], ['db'])
>>> try:
...     get_pvc(Cluster(), "default", "db")
... except NotFound as err:
...     print(err)
persistentvolumeclaim "db" not found
"""

from __future__ import annotations

import json

from kschedlab.controllers.volume_claims import ephemeral_claim_name
from kschedlab.framework.interface import SignFragment
from kschedlab.framework.signers import VOLUMES_SIGNER_NAME

__all__ = ["NotFound", "claim_key", "claim_name_of", "pod_claim_names", "persistent_volume_claim_names",
           "volume_is_for_pod", "get_pvc", "get_pv", "get_storage_class", "get_csi_driver", "volumes_signer",
           "sign_volumes", "ERR_BINDING_MODE_NOT_SET"]

#: a StorageClass read without ``volumeBindingMode`` (the API server defaults it; a bare object lacks it)
ERR_BINDING_MODE_NOT_SET = 'VolumeBindingMode not set for StorageClass "{}"'


def claim_name_of(pod, volume) -> tuple[str | None, bool]:
    """The claim a pod volume uses and whether it is a generic ephemeral volume's: a
    ``persistentVolumeClaim``'s ``claimName`` ("" when unset), or ``ephemeral.VolumeClaimName``
    (``<pod>-<volume>``) for an ``ephemeral`` volume; (None, False) for any other volume."""
    if volume.persistent_volume_claim is not None:
        return volume.persistent_volume_claim.claim_name or "", False
    if volume.ephemeral is not None:
        return ephemeral_claim_name(pod, volume.name or ""), True
    return None, False


def pod_claim_names(pod) -> list[str]:
    """The claims of the pod's ``persistentVolumeClaim`` and generic ``ephemeral`` volumes, in order."""
    return [name for name, _ in (claim_name_of(pod, v) for v in pod.spec.volumes) if name is not None]


def persistent_volume_claim_names(pod) -> list[str]:
    """The claims of the pod's ``persistentVolumeClaim`` volumes only, in order (VolumeZone's
    ``getPersistentVolumeClaimNameFromPod``; VolumeRestrictions reads the same)."""
    return [v.persistent_volume_claim.claim_name or "" for v in pod.spec.volumes
            if v.persistent_volume_claim is not None]


def volume_is_for_pod(pod, pvc) -> str | None:
    """``ephemeral.VolumeIsForPod``: None when the claim is in the pod's namespace and its
    controller (``metav1.IsControlledBy``, UIDs compared as strings) is the pod, else the error."""
    controller = next((r for r in pvc.metadata.owner_references if r.controller), None)
    if pod.namespace == pvc.namespace and controller is not None and (controller.uid or "") == (pod.metadata.uid or ""):
        return None
    return f"PVC {pvc.namespace}/{pvc.name} was not created for pod {pod.namespace}/{pod.name} (pod is not owner)"


class NotFound(LookupError):
    """``apierrors.NewNotFound`` as the scheduler's informer listers raise it."""

    def __init__(self, resource: str, name: str):
        self.resource, self.name = resource, name
        super().__init__(f'{resource} "{name}" not found')

    def __str__(self) -> str:
        return self.args[0]


def claim_key(namespace: str, name: str) -> str:
    """The Cluster's key of a namespaced object: ``namespace/name``, the name alone without a namespace."""
    return f"{namespace}/{name}" if namespace else name


def _lookup(cluster, kind: str, resource: str, name: str, namespace: str | None = None):
    obj = cluster.get(kind, claim_key(namespace or "", name))
    if obj is None:
        raise NotFound(resource, name)
    return obj


def get_pvc(cluster, namespace: str | None, name: str):
    """The PersistentVolumeClaim ``namespace/name`` (``persistentvolumeclaim "x" not found``)."""
    return _lookup(cluster, "PersistentVolumeClaim", "persistentvolumeclaim", name, namespace)


def get_pv(cluster, name: str):
    """The PersistentVolume ``name``."""
    return _lookup(cluster, "PersistentVolume", "persistentvolume", name)


def get_storage_class(cluster, name: str):
    """The StorageClass ``name``."""
    return _lookup(cluster, "StorageClass", "storageclass.storage.k8s.io", name)


def get_csi_driver(cluster, name: str):
    """The CSIDriver ``name``."""
    return _lookup(cluster, "CSIDriver", "csidriver.storage.k8s.io", name)


def volumes_signer(pod) -> list[str]:
    """``fwk.VolumesSigner``: the pod's volume sources but configMap and secret ones (they are
    specific to each pod and never matter to scheduling), as sorted JSON strings.

    >>> from kschedlab.api.core import Pod
    >>> volumes_signer(Pod.model_validate({"spec": {"volumes": [{"name": "c", "configMap": {"name": "x"}},
    ...     {"name": "d", "persistentVolumeClaim": {"claimName": "data"}}]}}))
    ['{"persistentVolumeClaim": {"claimName": "data"}}']
    """
    out = []
    for vol in pod.spec.volumes:
        if vol.config_map is not None or vol.secret is not None:
            continue
        source = vol.model_dump(mode="json", by_alias=True, exclude_none=True)
        source.pop("name", None)
        out.append(json.dumps(source, sort_keys=True))
    return sorted(out)


def sign_volumes(pod_info):
    """``SignPod`` of the volume plugins: the volumes fragment."""
    return [SignFragment(VOLUMES_SIGNER_NAME, volumes_signer(pod_info.pod))], None
