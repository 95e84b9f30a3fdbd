"""Volume sources of ``core/v1``: what a pod's ``spec.volumes[]`` and a PersistentVolume name.

The sources the storage plugins read are typed (``persistentVolumeClaim``, ``ephemeral``,
``csi``, ``gcePersistentDisk``, ``awsElasticBlockStore``, ``azureDisk``, ``rbd``, ``iscsi``,
``cinder``, ``hostPath``, ``local``); every other source of the v1 API loads as its plain JSON
(``configMap``, ``secret``, ``projected``, ``nfs``, ...), and a key that is no volume source
is refused, as the API server's strict decoding refuses it.

>>> v = Volume.model_validate({"name": "data", "persistentVolumeClaim": {"claimName": "data-db-0"}})
>>> v.persistent_volume_claim.claim_name, v.source_name()
('data-db-0', 'persistentVolumeClaim')
>>> Volume.model_validate({"name": "cfg", "configMap": {"name": "app"}}).source_name()
'configMap'
>>> from pydantic import ValidationError
>>> try:
...     Volume.model_validate({"name": "x", "floppy": {}})
... except ValidationError as e:
...     print(e.errors()[0]["loc"], e.errors()[0]["type"])
('floppy',) extra_forbidden
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from ._base import K8sModel
from .meta import LabelSelector, ObjectMeta
from .quantity import Quantity

__all__ = [
    "LocalObjectReference",
    "SecretReference",
    "TypedLocalObjectReference",
    "TypedObjectReference",
    "ObjectReference",
    "GCEPersistentDiskVolumeSource",
    "AWSElasticBlockStoreVolumeSource",
    "AzureDiskVolumeSource",
    "RBDVolumeSource",
    "ISCSIVolumeSource",
    "CinderVolumeSource",
    "HostPathVolumeSource",
    "LocalVolumeSource",
    "CSIVolumeSource",
    "CSIPersistentVolumeSource",
    "PersistentVolumeClaimVolumeSource",
    "VolumeResourceRequirements",
    "PersistentVolumeClaimSpec",
    "PersistentVolumeClaimTemplate",
    "EphemeralVolumeSource",
    "Volume",
    "VOLUME_SOURCES",
]


class LocalObjectReference(K8sModel):
    """``{name}`` of an object in the same namespace (a secret, mostly)."""

    name: str | None = None


class SecretReference(K8sModel):
    """``{name, namespace}`` of a secret."""

    name: str | None = None
    namespace: str | None = None


class TypedLocalObjectReference(K8sModel):
    """``{apiGroup, kind, name}``: a PVC's ``dataSource``."""

    api_group: str | None = None
    kind: str | None = None
    name: str | None = None


class TypedObjectReference(K8sModel):
    """``{apiGroup, kind, name, namespace}``: a PVC's ``dataSourceRef``."""

    api_group: str | None = None
    kind: str | None = None
    name: str | None = None
    namespace: str | None = None


class ObjectReference(K8sModel):
    """v1.ObjectReference: a PV's ``claimRef``."""

    kind: str | None = None
    namespace: str | None = None
    name: str | None = None
    uid: str | None = None
    api_version: str | None = None
    resource_version: str | None = None
    field_path: str | None = None


class GCEPersistentDiskVolumeSource(K8sModel):
    """A GCE persistent disk (``pdName``)."""

    pd_name: str | None = None
    fs_type: str | None = None
    partition: int | None = None
    read_only: bool | None = None


class AWSElasticBlockStoreVolumeSource(K8sModel):
    """An AWS EBS volume (``volumeID``)."""

    volume_id: str | None = Field(default=None, alias="volumeID")
    fs_type: str | None = None
    partition: int | None = None
    read_only: bool | None = None


class AzureDiskVolumeSource(K8sModel):
    """An Azure data disk (``diskName``, ``diskURI``)."""

    disk_name: str | None = None
    disk_uri: str | None = Field(default=None, alias="diskURI")
    caching_mode: str | None = None
    fs_type: str | None = None
    read_only: bool | None = None
    kind: str | None = None


class RBDVolumeSource(K8sModel):
    """A Ceph RBD image (``monitors``, ``pool``, ``image``); the PV form's secretRef has a namespace."""

    monitors: list[str] = Field(default_factory=list)
    image: str | None = None
    fs_type: str | None = None
    pool: str | None = None
    user: str | None = None
    keyring: str | None = None
    secret_ref: SecretReference | None = None
    read_only: bool | None = None


class ISCSIVolumeSource(K8sModel):
    """An iSCSI disk (``targetPortal``, ``iqn``, ``lun``)."""

    target_portal: str | None = None
    iqn: str | None = None
    lun: int | None = None
    iscsi_interface: str | None = None
    fs_type: str | None = None
    read_only: bool | None = None
    portals: list[str] = Field(default_factory=list)
    chap_auth_discovery: bool | None = None
    chap_auth_session: bool | None = None
    secret_ref: SecretReference | None = None
    initiator_name: str | None = None


class CinderVolumeSource(K8sModel):
    """An OpenStack Cinder volume (``volumeID``)."""

    volume_id: str | None = Field(default=None, alias="volumeID")
    fs_type: str | None = None
    read_only: bool | None = None
    secret_ref: SecretReference | None = None


class HostPathVolumeSource(K8sModel):
    """A path on the node (``type``: DirectoryOrCreate, Directory, File, Socket, ...)."""

    path: str | None = None
    type: str | None = None


class LocalVolumeSource(K8sModel):
    """A PV's ``local`` disk on one node (its nodeAffinity says which)."""

    path: str | None = None
    fs_type: str | None = None


class CSIVolumeSource(K8sModel):
    """A pod's inline CSI volume (``spec.volumes[].csi``)."""

    driver: str | None = None
    read_only: bool | None = None
    fs_type: str | None = None
    volume_attributes: dict[str, str] = Field(default_factory=dict)
    node_publish_secret_ref: LocalObjectReference | None = None


class CSIPersistentVolumeSource(K8sModel):
    """A PV's CSI volume (``driver``, ``volumeHandle``)."""

    driver: str | None = None
    volume_handle: str | None = None
    read_only: bool | None = None
    fs_type: str | None = None
    volume_attributes: dict[str, str] = Field(default_factory=dict)
    controller_publish_secret_ref: SecretReference | None = None
    node_stage_secret_ref: SecretReference | None = None
    node_publish_secret_ref: SecretReference | None = None
    controller_expand_secret_ref: SecretReference | None = None
    node_expand_secret_ref: SecretReference | None = None


class PersistentVolumeClaimVolumeSource(K8sModel):
    """``spec.volumes[].persistentVolumeClaim``: a claim of the pod's namespace by name."""

    claim_name: str | None = None
    read_only: bool | None = None


class VolumeResourceRequirements(K8sModel):
    """A claim's ``resources``: ``requests.storage`` (and ``limits``)."""

    limits: dict[str, Quantity] = Field(default_factory=dict)
    requests: dict[str, Quantity] = Field(default_factory=dict)


class PersistentVolumeClaimSpec(K8sModel):
    """v1.PersistentVolumeClaimSpec."""

    access_modes: list[str] = Field(default_factory=list)
    selector: LabelSelector | None = None
    resources: VolumeResourceRequirements = Field(default_factory=VolumeResourceRequirements)
    volume_name: str | None = None
    storage_class_name: str | None = None
    volume_mode: str | None = None
    data_source: TypedLocalObjectReference | None = None
    data_source_ref: TypedObjectReference | None = None
    volume_attributes_class_name: str | None = None


class PersistentVolumeClaimTemplate(K8sModel):
    """A generic ephemeral volume's claim: ``metadata`` (labels, annotations) and ``spec``."""

    metadata: ObjectMeta = Field(default_factory=ObjectMeta)
    spec: PersistentVolumeClaimSpec = Field(default_factory=PersistentVolumeClaimSpec)


class EphemeralVolumeSource(K8sModel):
    """``spec.volumes[].ephemeral``: a claim the ephemeral volume controller creates for the pod."""

    volume_claim_template: PersistentVolumeClaimTemplate | None = None


class Volume(K8sModel):
    """v1.Volume: a name and one volume source."""

    name: str | None = None
    # typed: the sources the storage plugins read
    persistent_volume_claim: PersistentVolumeClaimVolumeSource | None = None
    ephemeral: EphemeralVolumeSource | None = None
    csi: CSIVolumeSource | None = None
    gce_persistent_disk: GCEPersistentDiskVolumeSource | None = None
    aws_elastic_block_store: AWSElasticBlockStoreVolumeSource | None = None
    azure_disk: AzureDiskVolumeSource | None = None
    rbd: RBDVolumeSource | None = None
    iscsi: ISCSIVolumeSource | None = None
    cinder: CinderVolumeSource | None = None
    host_path: HostPathVolumeSource | None = None
    # kept as their JSON
    empty_dir: Any = None
    git_repo: Any = None
    secret: Any = None
    nfs: Any = None
    glusterfs: Any = None
    flex_volume: Any = None
    cephfs: Any = None
    flocker: Any = None
    downward_api: Any = Field(default=None, alias="downwardAPI")
    fc: Any = None
    azure_file: Any = None
    config_map: Any = None
    vsphere_volume: Any = None
    quobyte: Any = None
    photon_persistent_disk: Any = None
    projected: Any = None
    portworx_volume: Any = None
    scale_io: Any = Field(default=None, alias="scaleIO")
    storageos: Any = None
    image: Any = None

    def source_name(self) -> str | None:
        """The JSON name of the volume's source (the first set), or None.

        >>> Volume.model_validate({"name": "t", "emptyDir": {}}).source_name()
        'emptyDir'
        """
        for name, info in VOLUME_SOURCES.items():
            if getattr(self, name) is not None:
                return info
        return None


VOLUME_SOURCES: dict[str, str] = {
    name: (f.alias or name) for name, f in Volume.model_fields.items() if name != "name"
}
"""Field name -> JSON name of every volume source of :class:`Volume`."""
