"""``core/v1`` PersistentVolume and PersistentVolumeClaim.

A claim asks for storage (size, access modes, class, selector); a volume offers it (capacity,
access modes, class, node affinity, its source). The PV controller binds one to the other
(``claimRef`` / ``volumeName``); the scheduler's VolumeBinding plugin chooses the node first
when the class says ``WaitForFirstConsumer``.

>>> pvc = PersistentVolumeClaim.model_validate({
...     "metadata": {"name": "data", "namespace": "default"},
...     "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "10Gi"}},
...              "storageClassName": "fast"}})
>>> pvc.requested_storage(), pvc.storage_class(), pvc.is_bound()
(10737418240, 'fast', False)
>>> pv = PersistentVolume.model_validate({
...     "metadata": {"name": "pv1"},
...     "spec": {"capacity": {"storage": "20Gi"}, "accessModes": ["ReadWriteOnce"],
...              "csi": {"driver": "ebs.csi.aws.com", "volumeHandle": "vol-1"}}})
>>> pv.storage_capacity(), pv.source_name(), pv.claim_key()
(21474836480, 'csi', None)
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from ._base import K8sModel, Time
from .core import NodeSelector
from .meta import KubeObject
from .quantity import Quantity
from .volume import (
    AWSElasticBlockStoreVolumeSource,
    AzureDiskVolumeSource,
    CinderVolumeSource,
    CSIPersistentVolumeSource,
    FCVolumeSource,
    FlockerVolumeSource,
    GCEPersistentDiskVolumeSource,
    HostPathVolumeSource,
    ISCSIVolumeSource,
    LocalVolumeSource,
    NFSVolumeSource,
    ObjectReference,
    PersistentVolumeClaimSpec,
    PhotonPersistentDiskVolumeSource,
    PortworxVolumeSource,
    QuobyteVolumeSource,
    RBDVolumeSource,
    SecretReference,
    VsphereVirtualDiskVolumeSource,
)

__all__ = [
    "ACCESS_MODES",
    "RECLAIM_POLICIES",
    "VOLUME_MODES",
    "ANN_SELECTED_NODE",
    "ANN_BIND_COMPLETED",
    "ANN_BOUND_BY_CONTROLLER",
    "ANN_STORAGE_PROVISIONER",
    "ANN_BETA_STORAGE_PROVISIONER",
    "ANN_BETA_STORAGE_CLASS",
    "VolumeNodeAffinity",
    "PersistentVolumeSpec",
    "PersistentVolumeStatus",
    "PersistentVolume",
    "PersistentVolumeClaimStatus",
    "PersistentVolumeClaim",
    "PV_SOURCES",
]

ACCESS_MODES = ("ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod")
"""Supported access modes (sorted, as upstream's validation lists them)."""
RECLAIM_POLICIES = ("Delete", "Recycle", "Retain")
VOLUME_MODES = ("Block", "Filesystem")

ANN_SELECTED_NODE = "volume.kubernetes.io/selected-node"
"""Set on a claim by the scheduler (VolumeBinding PreBind) to ask for provisioning on that node."""
ANN_BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
ANN_BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller"
ANN_STORAGE_PROVISIONER = "volume.kubernetes.io/storage-provisioner"
ANN_BETA_STORAGE_PROVISIONER = "volume.beta.kubernetes.io/storage-provisioner"
ANN_BETA_STORAGE_CLASS = "volume.beta.kubernetes.io/storage-class"


class VolumeNodeAffinity(K8sModel):
    """A PV's ``nodeAffinity``: the nodes it can be reached from."""

    required: NodeSelector | None = None


class GlusterfsPersistentVolumeSource(K8sModel):
    """A PV's Glusterfs volume (its endpoints may be in another namespace)."""

    endpoints: str | None = None
    path: str | None = None
    read_only: bool | None = None
    endpoints_namespace: str | None = None


class CephFSPersistentVolumeSource(K8sModel):
    """A PV's CephFS mount (its secret may be in another namespace)."""

    monitors: list[str] = Field(default_factory=list)
    path: str | None = None
    user: str | None = None
    secret_file: str | None = None
    secret_ref: SecretReference | None = None
    read_only: bool | None = None


class FlexPersistentVolumeSource(K8sModel):
    """A PV's FlexVolume (its secret may be in another namespace)."""

    driver: str | None = None
    fs_type: str | None = None
    secret_ref: SecretReference | None = None
    read_only: bool | None = None
    options: dict[str, str] = Field(default_factory=dict)


class AzureFilePersistentVolumeSource(K8sModel):
    """A PV's Azure File share (``secretNamespace``: where its secret is)."""

    secret_name: str | None = None
    share_name: str | None = None
    read_only: bool | None = None
    secret_namespace: str | None = None


class ScaleIOPersistentVolumeSource(K8sModel):
    """A PV's ScaleIO volume (its secret may be in another namespace)."""

    gateway: str | None = None
    system: str | None = None
    secret_ref: SecretReference | None = None
    ssl_enabled: bool | None = None
    protection_domain: str | None = None
    storage_pool: str | None = None
    storage_mode: str | None = None
    volume_name: str | None = None
    fs_type: str | None = None
    read_only: bool | None = None


class StorageOSPersistentVolumeSource(K8sModel):
    """A PV's StorageOS volume (its secret an object reference)."""

    volume_name: str | None = None
    volume_namespace: str | None = None
    fs_type: str | None = None
    read_only: bool | None = None
    secret_ref: ObjectReference | None = None


class PersistentVolumeSpec(K8sModel):
    """v1.PersistentVolumeSpec, every source typed."""

    capacity: dict[str, Quantity] = Field(default_factory=dict)
    access_modes: list[str] = Field(default_factory=list)
    claim_ref: ObjectReference | None = None
    persistent_volume_reclaim_policy: str | None = None
    storage_class_name: str | None = None
    mount_options: list[str] = Field(default_factory=list)
    volume_mode: str | None = None
    node_affinity: VolumeNodeAffinity | None = None
    volume_attributes_class_name: str | None = None
    # sources
    csi: CSIPersistentVolumeSource | None = None
    gce_persistent_disk: GCEPersistentDiskVolumeSource | None = None
    aws_elastic_block_store: AWSElasticBlockStoreVolumeSource | None = None
    azure_disk: AzureDiskVolumeSource | None = None
    rbd: RBDVolumeSource | None = None
    iscsi: ISCSIVolumeSource | None = None
    cinder: CinderVolumeSource | None = None
    host_path: HostPathVolumeSource | None = None
    local: LocalVolumeSource | None = None
    glusterfs: GlusterfsPersistentVolumeSource | None = None
    nfs: NFSVolumeSource | None = None
    quobyte: QuobyteVolumeSource | None = None
    cephfs: CephFSPersistentVolumeSource | None = None
    fc: FCVolumeSource | None = None
    flocker: FlockerVolumeSource | None = None
    flex_volume: FlexPersistentVolumeSource | None = None
    azure_file: AzureFilePersistentVolumeSource | None = None
    vsphere_volume: VsphereVirtualDiskVolumeSource | None = None
    photon_persistent_disk: PhotonPersistentDiskVolumeSource | None = None
    portworx_volume: PortworxVolumeSource | None = None
    scale_io: ScaleIOPersistentVolumeSource | None = Field(default=None, alias="scaleIO")
    storageos: StorageOSPersistentVolumeSource | None = None


PV_SOURCES: tuple[tuple[str, str], ...] = (
    ("host_path", "hostPath"), ("gce_persistent_disk", "gcePersistentDisk"),
    ("aws_elastic_block_store", "awsElasticBlockStore"), ("glusterfs", "glusterfs"), ("flocker", "flocker"),
    ("nfs", "nfs"), ("rbd", "rbd"), ("quobyte", "quobyte"), ("cephfs", "cephFS"), ("iscsi", "iscsi"),
    ("cinder", "cinder"), ("fc", "fc"), ("flex_volume", "flexVolume"), ("azure_file", "azureFile"),
    ("vsphere_volume", "vsphereVolume"), ("photon_persistent_disk", "photonPersistentDisk"),
    ("portworx_volume", "portworxVolume"), ("azure_disk", "azureDisk"), ("scale_io", "scaleIO"),
    ("local", "local"), ("storageos", "storageos"), ("csi", "csi"),
)
"""A PV's sources in the order upstream's validation checks them: (field, name in its messages)."""


class PersistentVolumeStatus(K8sModel):
    """``status.phase``: Pending, Available, Bound, Released or Failed."""

    phase: str | None = None
    message: str | None = None
    reason: str | None = None
    last_phase_transition_time: Time | None = None


class PersistentVolume(KubeObject):
    """core/v1 PersistentVolume (cluster-scoped)."""

    API_VERSION: ClassVar[str] = "v1"
    KIND: ClassVar[str] = "PersistentVolume"
    NAMESPACED: ClassVar[bool] = False

    spec: PersistentVolumeSpec = Field(default_factory=PersistentVolumeSpec)
    status: PersistentVolumeStatus = Field(default_factory=PersistentVolumeStatus)

    def storage_capacity(self) -> int:
        """``spec.capacity.storage`` in bytes (0 when missing)."""
        q = self.spec.capacity.get("storage")
        return q.value() if q is not None else 0

    def storage_class(self) -> str:
        """``storage.GetPersistentVolumeClass``: the beta annotation first, then ``storageClassName``."""
        ann = self.metadata.annotations.get(ANN_BETA_STORAGE_CLASS)
        return ann if ann is not None else (self.spec.storage_class_name or "")

    def source_name(self) -> str | None:
        """The JSON name of the PV's source, or None."""
        for field, name in PV_SOURCES:
            if getattr(self.spec, field) is not None:
                return name
        return None

    def claim_key(self) -> str | None:
        """``namespace/name`` of the claim the PV is bound (or pre-bound) to, or None."""
        ref = self.spec.claim_ref
        if ref is None or not ref.name:
            return None
        return f"{ref.namespace or ''}/{ref.name}"


class PersistentVolumeClaimCondition(K8sModel):
    """A claim's condition (``Resizing``, ``FileSystemResizePending``, ``ModifyingVolume`` ...)."""

    type: str | None = None
    status: str | None = None
    last_probe_time: Time | None = None
    last_transition_time: Time | None = None
    reason: str | None = None
    message: str | None = None


class ModifyVolumeStatus(K8sModel):
    """A claim's pending change of VolumeAttributesClass."""

    target_volume_attributes_class_name: str | None = None
    status: str | None = None


class PersistentVolumeClaimStatus(K8sModel):
    """``status.phase`` (Pending, Bound, Lost), ``accessModes`` and ``capacity`` once bound."""

    phase: str | None = None
    access_modes: list[str] = Field(default_factory=list)
    capacity: dict[str, Quantity] = Field(default_factory=dict)
    conditions: list[PersistentVolumeClaimCondition] = Field(default_factory=list)
    allocated_resources: dict[str, Quantity] = Field(default_factory=dict)
    allocated_resource_statuses: dict[str, str] = Field(default_factory=dict)
    current_volume_attributes_class_name: str | None = None
    modify_volume_status: ModifyVolumeStatus | None = None


class PersistentVolumeClaim(KubeObject):
    """core/v1 PersistentVolumeClaim (namespaced)."""

    API_VERSION: ClassVar[str] = "v1"
    KIND: ClassVar[str] = "PersistentVolumeClaim"
    NAMESPACED: ClassVar[bool] = True

    spec: PersistentVolumeClaimSpec = Field(default_factory=PersistentVolumeClaimSpec)
    status: PersistentVolumeClaimStatus = Field(default_factory=PersistentVolumeClaimStatus)

    def requested_storage(self) -> int:
        """``spec.resources.requests.storage`` in bytes (0 when missing)."""
        q = self.spec.resources.requests.get("storage")
        return q.value() if q is not None else 0

    def storage_class(self) -> str:
        """``storagehelpers.GetPersistentVolumeClaimClass``: the beta annotation, then the field, else ""."""
        ann = self.metadata.annotations.get(ANN_BETA_STORAGE_CLASS)
        if ann is not None:
            return ann
        return self.spec.storage_class_name or ""

    def is_bound(self) -> bool:
        """Whether the claim names its volume (``spec.volumeName``), as the binder asks."""
        return bool(self.spec.volume_name)
