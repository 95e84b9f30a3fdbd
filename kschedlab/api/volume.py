"""Volume sources of ``core/v1``: what a pod's ``spec.volumes[]`` and a PersistentVolume name.

Every source of a pod's ``VolumeSource`` (v1.36 API) is typed, down to the projections of a
``projected`` volume (with v1.35's ``podCertificate``): a misspelt key at any depth, or a key that
is no volume source, is refused with its path, as the API server's strict decoding refuses it.
That a volume names at most one source is validation's (:mod:`kschedlab.apiserver.pod_validation`).

>>> v = Volume.model_validate({"name": "data", "persistentVolumeClaim": {"claimName": "data-db-0"}})
>>> v.persistent_volume_claim.claim_name, v.source_name()
('data-db-0', 'persistentVolumeClaim')
>>> Volume.model_validate({"name": "cfg", "configMap": {"name": "app", "items": [{"key": "a", "path": "a.conf"}]}}).source_name()
'configMap'
>>> from pydantic import ValidationError
>>> try:
...     Volume.model_validate({"name": "x", "floppy": {}})
... except ValidationError as e:
...     print(e.errors()[0]["loc"], e.errors()[0]["type"])
('floppy',) extra_forbidden
>>> try:
...     Volume.model_validate({"name": "x", "emptyDir": {"sizelimit": "1Gi"}})
... except ValidationError as e:
...     print(e.errors()[0]["loc"], e.errors()[0]["type"])
('emptyDir', 'sizelimit') extra_forbidden
"""

from __future__ import annotations

from pydantic import Field

from ._base import K8sModel
from .env import ObjectFieldSelector, ResourceFieldSelector
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
    "EmptyDirVolumeSource",
    "GitRepoVolumeSource",
    "KeyToPath",
    "SecretVolumeSource",
    "NFSVolumeSource",
    "GlusterfsVolumeSource",
    "FlexVolumeSource",
    "CephFSVolumeSource",
    "FlockerVolumeSource",
    "DownwardAPIVolumeFile",
    "DownwardAPIVolumeSource",
    "FCVolumeSource",
    "AzureFileVolumeSource",
    "ConfigMapVolumeSource",
    "VsphereVirtualDiskVolumeSource",
    "QuobyteVolumeSource",
    "PhotonPersistentDiskVolumeSource",
    "SecretProjection",
    "ConfigMapProjection",
    "DownwardAPIProjection",
    "ServiceAccountTokenProjection",
    "ClusterTrustBundleProjection",
    "PodCertificateProjection",
    "VolumeProjection",
    "ProjectedVolumeSource",
    "PortworxVolumeSource",
    "ScaleIOVolumeSource",
    "StorageOSVolumeSource",
    "ImageVolumeSource",
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


class EmptyDirVolumeSource(K8sModel):
    """A scratch directory living as long as the pod (``medium: Memory`` for tmpfs)."""

    medium: str | None = None
    size_limit: Quantity | None = None


class GitRepoVolumeSource(K8sModel):
    """A git repository cloned at a revision (deprecated)."""

    repository: str | None = None
    revision: str | None = None
    directory: str | None = None


class KeyToPath(K8sModel):
    """``items[]``: one key of a ConfigMap or Secret projected to ``path``."""

    key: str | None = None
    path: str | None = None
    mode: int | None = None


class SecretVolumeSource(K8sModel):
    """A Secret's keys as files."""

    secret_name: str | None = None
    items: list[KeyToPath] = Field(default_factory=list)
    default_mode: int | None = None
    optional: bool | None = None


class NFSVolumeSource(K8sModel):
    """An NFS export (``server``, ``path``)."""

    server: str | None = None
    path: str | None = None
    read_only: bool | None = None


class GlusterfsVolumeSource(K8sModel):
    """A Glusterfs volume (``endpoints``, ``path``)."""

    endpoints: str | None = None
    path: str | None = None
    read_only: bool | None = None


class FlexVolumeSource(K8sModel):
    """A volume an exec-based FlexVolume ``driver`` attaches."""

    driver: str | None = None
    fs_type: str | None = None
    secret_ref: LocalObjectReference | None = None
    read_only: bool | None = None
    options: dict[str, str] = Field(default_factory=dict)


class CephFSVolumeSource(K8sModel):
    """A CephFS mount (``monitors``)."""

    monitors: list[str] = Field(default_factory=list)
    path: str | None = None
    user: str | None = None
    secret_file: str | None = None
    secret_ref: LocalObjectReference | None = None
    read_only: bool | None = None


class FlockerVolumeSource(K8sModel):
    """A Flocker dataset (by name or UUID)."""

    dataset_name: str | None = None
    dataset_uuid: str | None = Field(default=None, alias="datasetUUID")


class DownwardAPIVolumeFile(K8sModel):
    """One file of a downward API volume: a pod field or a container resource."""

    path: str | None = None
    field_ref: ObjectFieldSelector | None = None
    resource_field_ref: ResourceFieldSelector | None = None
    mode: int | None = None


class DownwardAPIVolumeSource(K8sModel):
    """Pod fields and container resources as files."""

    items: list[DownwardAPIVolumeFile] = Field(default_factory=list)
    default_mode: int | None = None


class FCVolumeSource(K8sModel):
    """A Fibre Channel disk (``targetWWNs`` and ``lun``, or ``wwids``)."""

    target_wwns: list[str] = Field(default_factory=list, alias="targetWWNs")
    lun: int | None = None
    fs_type: str | None = None
    read_only: bool | None = None
    wwids: list[str] = Field(default_factory=list)


class AzureFileVolumeSource(K8sModel):
    """An Azure File share."""

    secret_name: str | None = None
    share_name: str | None = None
    read_only: bool | None = None


class ConfigMapVolumeSource(K8sModel):
    """A ConfigMap's keys as files."""

    name: str | None = None
    items: list[KeyToPath] = Field(default_factory=list)
    default_mode: int | None = None
    optional: bool | None = None


class VsphereVirtualDiskVolumeSource(K8sModel):
    """A vSphere virtual disk (``volumePath``)."""

    volume_path: str | None = None
    fs_type: str | None = None
    storage_policy_name: str | None = None
    storage_policy_id: str | None = Field(default=None, alias="storagePolicyID")


class QuobyteVolumeSource(K8sModel):
    """A Quobyte volume (``registry``, ``volume``)."""

    registry: str | None = None
    volume: str | None = None
    read_only: bool | None = None
    user: str | None = None
    group: str | None = None
    tenant: str | None = None


class PhotonPersistentDiskVolumeSource(K8sModel):
    """A Photon Controller persistent disk (``pdID``)."""

    pd_id: str | None = Field(default=None, alias="pdID")
    fs_type: str | None = None


class SecretProjection(K8sModel):
    """A projected Secret."""

    name: str | None = None
    items: list[KeyToPath] = Field(default_factory=list)
    optional: bool | None = None


class ConfigMapProjection(K8sModel):
    """A projected ConfigMap."""

    name: str | None = None
    items: list[KeyToPath] = Field(default_factory=list)
    optional: bool | None = None


class DownwardAPIProjection(K8sModel):
    """Projected downward API files."""

    items: list[DownwardAPIVolumeFile] = Field(default_factory=list)


class ServiceAccountTokenProjection(K8sModel):
    """A bound service account token written to ``path``."""

    audience: str | None = None
    expiration_seconds: int | None = None
    path: str | None = None


class ClusterTrustBundleProjection(K8sModel):
    """ClusterTrustBundles (by name, or by signer and labels) written to ``path``."""

    name: str | None = None
    signer_name: str | None = None
    label_selector: LabelSelector | None = None
    optional: bool | None = None
    path: str | None = None


class PodCertificateProjection(K8sModel):
    """A key pair and a certificate chain a signer issues to the pod (PodCertificateRequest)."""

    signer_name: str | None = None
    key_type: str | None = None
    max_expiration_seconds: int | None = None
    credential_bundle_path: str | None = None
    key_path: str | None = None
    certificate_chain_path: str | None = None
    user_annotations: dict[str, str] = Field(default_factory=dict)


class VolumeProjection(K8sModel):
    """One source of a projected volume."""

    secret: SecretProjection | None = None
    downward_api: DownwardAPIProjection | None = Field(default=None, alias="downwardAPI")
    config_map: ConfigMapProjection | None = None
    service_account_token: ServiceAccountTokenProjection | None = None
    cluster_trust_bundle: ClusterTrustBundleProjection | None = None
    pod_certificate: PodCertificateProjection | None = None


class ProjectedVolumeSource(K8sModel):
    """Several sources in one directory."""

    sources: list[VolumeProjection] = Field(default_factory=list)
    default_mode: int | None = None


class PortworxVolumeSource(K8sModel):
    """A Portworx volume (``volumeID``)."""

    volume_id: str | None = Field(default=None, alias="volumeID")
    fs_type: str | None = None
    read_only: bool | None = None


class ScaleIOVolumeSource(K8sModel):
    """A ScaleIO volume (``gateway``, ``system``, ``secretRef``)."""

    gateway: str | None = None
    system: str | None = None
    secret_ref: LocalObjectReference | None = None
    ssl_enabled: bool | None = None
    protection_domain: str | None = None
    storage_pool: str | None = None
    storage_mode: str | None = None
    volume_name: str | None = None
    fs_type: str | None = None
    read_only: bool | None = None


class StorageOSVolumeSource(K8sModel):
    """A StorageOS volume."""

    volume_name: str | None = None
    volume_namespace: str | None = None
    fs_type: str | None = None
    read_only: bool | None = None
    secret_ref: LocalObjectReference | None = None


class ImageVolumeSource(K8sModel):
    """An OCI image or artifact mounted read-only (``reference``, ``pullPolicy``)."""

    reference: str | None = None
    pull_policy: str | None = None


class Volume(K8sModel):
    """v1.Volume: a name and one volume source."""

    name: str | None = None
    host_path: HostPathVolumeSource | None = None
    empty_dir: EmptyDirVolumeSource | None = None
    gce_persistent_disk: GCEPersistentDiskVolumeSource | None = None
    aws_elastic_block_store: AWSElasticBlockStoreVolumeSource | None = None
    git_repo: GitRepoVolumeSource | None = None
    secret: SecretVolumeSource | None = None
    nfs: NFSVolumeSource | None = None
    iscsi: ISCSIVolumeSource | None = None
    glusterfs: GlusterfsVolumeSource | None = None
    persistent_volume_claim: PersistentVolumeClaimVolumeSource | None = None
    rbd: RBDVolumeSource | None = None
    flex_volume: FlexVolumeSource | None = None
    cinder: CinderVolumeSource | None = None
    cephfs: CephFSVolumeSource | None = None
    flocker: FlockerVolumeSource | None = None
    downward_api: DownwardAPIVolumeSource | None = Field(default=None, alias="downwardAPI")
    fc: FCVolumeSource | None = None
    azure_file: AzureFileVolumeSource | None = None
    config_map: ConfigMapVolumeSource | None = None
    vsphere_volume: VsphereVirtualDiskVolumeSource | None = None
    quobyte: QuobyteVolumeSource | None = None
    azure_disk: AzureDiskVolumeSource | None = None
    photon_persistent_disk: PhotonPersistentDiskVolumeSource | None = None
    projected: ProjectedVolumeSource | None = None
    portworx_volume: PortworxVolumeSource | None = None
    scale_io: ScaleIOVolumeSource | None = Field(default=None, alias="scaleIO")
    storageos: StorageOSVolumeSource | None = None
    csi: CSIVolumeSource | None = None
    ephemeral: EphemeralVolumeSource | None = None
    image: ImageVolumeSource | None = None

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
