"""What the volume plugins share: the scheduler's listers of storage objects (with the informer
listers' not-found errors), a claim's class, the claim of a generic ephemeral volume, and the
volumes part of a pod's signature.

>>> from kschedlab.cluster import Cluster
>>> try:
...     get_storage_class(Cluster(), "fast")
... except NotFound as err:
...     print(err)
storageclass.storage.k8s.io "fast" not found
"""

from __future__ import annotations

import json

from kschedlab.framework.interface import SignFragment
from kschedlab.framework.signers import VOLUMES_SIGNER_NAME

__all__ = ["NotFound", "get_pvc", "get_pv", "get_storage_class", "get_csi_driver",
           "claim_class", "ephemeral_claim_name", "volume_is_for_pod", "volumes_signer", "sign_volumes"]

ANN_BETA_STORAGE_CLASS = "volume.beta.kubernetes.io/storage-class"


class NotFound(LookupError):
    """``apierrors.NewNotFound`` as the scheduler's informer listers raise it."""

    def __init__(self, resource: str, name: str):
        self.resource, self.name = resource, name
        super().__init__(f'{resource} "{name}" not found')

    def __str__(self) -> str:
        return self.args[0]


def _lookup(cluster, kind: str, resource: str, name: str, namespace: str | None = None):
    obj = cluster.get(kind, f"{namespace}/{name}" if namespace else name)
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


def claim_class(pvc) -> str:
    """``storagehelpers.GetPersistentVolumeClaimClass``: the beta annotation, else
    ``spec.storageClassName``, else ""."""
    ann = (pvc.metadata.annotations or {}).get(ANN_BETA_STORAGE_CLASS)
    if ann is not None:
        return ann
    return pvc.spec.storage_class_name or ""


def ephemeral_claim_name(pod, volume) -> str:
    """``ephemeral.VolumeClaimName``: the claim of a generic ephemeral volume is ``<pod>-<volume>``."""
    return f"{pod.metadata.name}-{volume.name}"


def volume_is_for_pod(pod, pvc) -> str | None:
    """``ephemeral.VolumeIsForPod``: None when the claim is in the pod's namespace and its
    controller (``metav1.IsControlledBy``) is the pod, else the error."""
    ns, claim_ns = pod.metadata.namespace or "", pvc.metadata.namespace or ""
    controller = next((r for r in pvc.metadata.owner_references or [] if r.controller), None)
    if ns == claim_ns and controller is not None and controller.uid == pod.metadata.uid:
        return None
    return f"PVC {claim_ns}/{pvc.metadata.name} was not created for pod {ns}/{pod.metadata.name} (pod is not owner)"


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
