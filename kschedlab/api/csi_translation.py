"""In-tree volume plugins seen as the CSI drivers they migrated to (upstream ``k8s.io/csi-translation-lib``).

kube-scheduler counts a volume of an in-tree plugin (``awsElasticBlockStore``, ``gcePersistentDisk``,
``azureDisk``, ``cinder``, ``portworxVolume``, ...) against the attach limit of the CSI driver that
replaced it, under the CSI volume handle the translation gives. Only what the scheduler reads of a
translated volume is modelled: the driver name and the volume handle.

>>> from kschedlab.api.volume import Volume
>>> vol = Volume.model_validate({"name": "d", "awsElasticBlockStore": {"volumeID": "aws://us-east-1a/vol-0abc"}})
>>> is_inline_migratable(vol), in_tree_plugin_name(None, vol)
(True, 'kubernetes.io/aws-ebs')
>>> translate_inline(vol)
CSISource(driver='ebs.csi.aws.com', volume_handle='vol-0abc')
>>> translate_inline(Volume.model_validate({"name": "p", "gcePersistentDisk": {"pdName": "data"}})).volume_handle
'projects/UNSPECIFIED/zones/UNSPECIFIED/disks/data'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlparse

__all__ = ["AWS_EBS_IN_TREE", "GCE_PD_IN_TREE", "AZURE_DISK_IN_TREE", "AZURE_FILE_IN_TREE", "CINDER_IN_TREE",
           "VSPHERE_IN_TREE", "PORTWORX_IN_TREE", "CSI_DRIVER_OF", "CSISource", "TranslationError",
           "is_pv_migratable", "is_inline_migratable", "is_migratable_in_tree_plugin", "in_tree_plugin_name",
           "csi_driver_name", "translate_pv", "translate_inline"]

AWS_EBS_IN_TREE = "kubernetes.io/aws-ebs"
GCE_PD_IN_TREE = "kubernetes.io/gce-pd"
AZURE_DISK_IN_TREE = "kubernetes.io/azure-disk"
AZURE_FILE_IN_TREE = "kubernetes.io/azure-file"
CINDER_IN_TREE = "kubernetes.io/cinder"
VSPHERE_IN_TREE = "kubernetes.io/vsphere-volume"
PORTWORX_IN_TREE = "kubernetes.io/portworx-volume"

#: in-tree plugin name -> the CSI driver it migrated to
CSI_DRIVER_OF: dict[str, str] = {
    AWS_EBS_IN_TREE: "ebs.csi.aws.com",
    GCE_PD_IN_TREE: "pd.csi.storage.gke.io",
    AZURE_DISK_IN_TREE: "disk.csi.azure.com",
    AZURE_FILE_IN_TREE: "file.csi.azure.com",
    CINDER_IN_TREE: "cinder.csi.openstack.org",
    VSPHERE_IN_TREE: "csi.vsphere.vmware.com",
    PORTWORX_IN_TREE: "pxd.portworx.com",
}

#: (source field of a pod volume or PV spec, in-tree plugin), in the translation library's order
_SOURCES = (
    ("gce_persistent_disk", GCE_PD_IN_TREE),
    ("aws_elastic_block_store", AWS_EBS_IN_TREE),
    ("cinder", CINDER_IN_TREE),
    ("azure_disk", AZURE_DISK_IN_TREE),
    ("azure_file", AZURE_FILE_IN_TREE),
    ("vsphere_volume", VSPHERE_IN_TREE),
    ("portworx_volume", PORTWORX_IN_TREE),
)
_FIELD_OF = {plugin: field for field, plugin in _SOURCES}

UNSPECIFIED = "UNSPECIFIED"
_GCE_ZONAL = "projects/{}/zones/{}/disks/{}"
_GCE_REGIONAL = "projects/{}/regions/{}/disks/{}"
_MULTI_ZONE_DELIMITER = "__"
_ZONE_LABELS = ("failure-domain.beta.kubernetes.io/zone", "topology.kubernetes.io/zone")
_EBS_VOLUME = re.compile(r"^vol-[^/]*$")


class TranslationError(ValueError):
    """A volume the translation library cannot turn into a CSI volume."""


@dataclass(frozen=True)
class CSISource:
    """What the scheduler reads of a translated volume: its CSI driver and volume handle
    (``volume_handle`` None: the translation of this plugin's volumes is not modelled)."""

    driver: str
    volume_handle: str | None


def _get(source, key: str):
    """A field of a (typed) volume source."""
    return getattr(source, key, None)


def _plugin_of(spec) -> str | None:
    for field, plugin in _SOURCES:
        if getattr(spec, field, None) is not None:
            return plugin
    return None


def is_pv_migratable(pv) -> bool:
    """``IsPVMigratable``: the PV's source is one of a migrated in-tree plugin."""
    return _plugin_of(pv.spec) is not None


def is_inline_migratable(volume) -> bool:
    """``IsInlineMigratable``: the pod volume's source is one of a migrated in-tree plugin."""
    return _plugin_of(volume) is not None


def is_migratable_in_tree_plugin(name: str) -> bool:
    """``IsMigratableIntreePluginByName`` (a StorageClass provisioner, for example).

    >>> is_migratable_in_tree_plugin("kubernetes.io/cinder"), is_migratable_in_tree_plugin("kubernetes.io/hostpath")
    (True, False)
    """
    return name in CSI_DRIVER_OF


def in_tree_plugin_name(pv, volume) -> str:
    """``GetInTreePluginNameFromSpec``: the in-tree plugin of ``pv`` (when given) or of ``volume``."""
    if pv is not None:
        plugin = _plugin_of(pv.spec)
        if plugin is None:
            raise TranslationError(f"could not find in-tree plugin name from persistent volume {pv.metadata.name}")
        return plugin
    if volume is not None:
        plugin = _plugin_of(volume)
        if plugin is None:
            raise TranslationError(f"could not find in-tree plugin name from volume {volume.name}")
        return plugin
    raise TranslationError("both persistent volume and volume are nil")


def csi_driver_name(plugin: str) -> str:
    """``GetCSINameFromInTreeName``."""
    if plugin not in CSI_DRIVER_OF:
        raise TranslationError(f"could not find CSI Driver name for plugin {plugin}")
    return CSI_DRIVER_OF[plugin]


def _ebs_volume_id(kubernetes_id: str) -> str:
    """``KubernetesVolumeIDToEBSVolumeID``: ``aws://<zone>/vol-...`` or a bare ``vol-...`` id."""
    if not kubernetes_id.startswith("aws://"):
        return kubernetes_id
    url = urlparse(kubernetes_id)
    aws_id = url.path.strip("/")
    if not _EBS_VOLUME.match(aws_id):
        raise TranslationError(f"Invalid format for AWS volume ({kubernetes_id})")
    return aws_id


def _gce_region(zones: list[str]) -> str:
    regions = {z.rsplit("-", 1)[0] for z in zones}
    if len(regions) != 1:
        raise TranslationError(f"multiple or no regions gotten from zones, got: {sorted(regions)}")
    return regions.pop()


def _handle(plugin: str, source, labels: dict[str, str] | None) -> str | None:
    if plugin == AWS_EBS_IN_TREE:
        return _ebs_volume_id(_get(source, "volume_id") or "")
    if plugin == GCE_PD_IN_TREE:
        pd = _get(source, "pd_name") or ""
        if labels is None:  # an inline volume has no zone
            return _GCE_ZONAL.format(UNSPECIFIED, UNSPECIFIED, pd)
        zones = next((labels[k] for k in _ZONE_LABELS if labels.get(k)), "").split(_MULTI_ZONE_DELIMITER)
        if len(zones) > 1:
            return _GCE_REGIONAL.format(UNSPECIFIED, _gce_region(zones), pd)
        return _GCE_ZONAL.format(UNSPECIFIED, zones[0] or UNSPECIFIED, pd)
    if plugin == AZURE_DISK_IN_TREE:
        return _get(source, "disk_uri") or ""
    if plugin == CINDER_IN_TREE:
        return _get(source, "volume_id") or ""
    if plugin == PORTWORX_IN_TREE:
        return _get(source, "volume_id") or ""
    return None  # azureFile and vsphereVolume: the scheduler never counts them (no migration check passes)


def translate_pv(pv) -> CSISource:
    """``TranslateInTreePVToCSI``: the CSI driver and volume handle of an in-tree PV (a GCE PD's
    zone labels name its zone or, ``a__b``, its region).

    >>> from kschedlab.api.persistentvolume import PersistentVolume
    >>> pv = PersistentVolume.model_validate({"metadata": {"name": "pd", "labels": {
    ...     "topology.kubernetes.io/zone": "europe-west1-b__europe-west1-c"}}, "spec": {"gcePersistentDisk": {"pdName": "d"}}})
    >>> translate_pv(pv).volume_handle
    'projects/UNSPECIFIED/regions/europe-west1/disks/d'
    """
    plugin = in_tree_plugin_name(pv, None)
    return CSISource(CSI_DRIVER_OF[plugin], _handle(plugin, getattr(pv.spec, _FIELD_OF[plugin]), pv.metadata.labels or {}))


def translate_inline(volume) -> CSISource:
    """``TranslateInTreeInlineVolumeToCSI``: the CSI driver and volume handle of a pod's inline
    in-tree volume."""
    plugin = in_tree_plugin_name(None, volume)
    return CSISource(CSI_DRIVER_OF[plugin], _handle(plugin, getattr(volume, _FIELD_OF[plugin]), None))
