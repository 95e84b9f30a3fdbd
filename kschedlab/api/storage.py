"""``storage.k8s.io/v1``: StorageClass, CSINode, CSIDriver, CSIStorageCapacity, VolumeAttachment.

What the storage plugins read besides claims and volumes: how a class binds
(``volumeBindingMode``) and where it can provision (``allowedTopologies``), the CSI drivers
a node runs with their volume limits, which drivers publish their free capacity, and that
capacity per topology segment.

>>> sc = StorageClass.model_validate({"metadata": {"name": "fast"}, "provisioner": "pd.csi.storage.gke.io",
...                                   "volumeBindingMode": "WaitForFirstConsumer"})
>>> sc.binding_mode(), sc.is_wait_for_first_consumer()
('WaitForFirstConsumer', True)
>>> node = CSINode.model_validate({"metadata": {"name": "n1"}, "spec": {"drivers": [
...     {"name": "ebs.csi.aws.com", "nodeID": "i-1", "allocatable": {"count": 25}}]}})
>>> node.driver("ebs.csi.aws.com").allocatable.count
25
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field

from ._base import K8sModel
from .meta import KubeObject, LabelSelector
from .quantity import Quantity

__all__ = [
    "API_VERSION",
    "VOLUME_BINDING_IMMEDIATE",
    "VOLUME_BINDING_WAIT",
    "VOLUME_BINDING_MODES",
    "STORAGE_CLASS_RECLAIM_POLICIES",
    "ANN_DEFAULT_STORAGE_CLASS",
    "ANN_BETA_DEFAULT_STORAGE_CLASS",
    "TopologySelectorLabelRequirement",
    "TopologySelectorTerm",
    "StorageClass",
    "VolumeNodeResources",
    "CSINodeDriver",
    "CSINodeSpec",
    "CSINode",
    "CSIDriverSpec",
    "CSIDriver",
    "CSIStorageCapacity",
    "VolumeAttachmentSource",
    "VolumeAttachmentSpec",
    "VolumeAttachmentStatus",
    "VolumeAttachment",
]

API_VERSION = "storage.k8s.io/v1"
VOLUME_BINDING_IMMEDIATE = "Immediate"
VOLUME_BINDING_WAIT = "WaitForFirstConsumer"
VOLUME_BINDING_MODES = (VOLUME_BINDING_IMMEDIATE, VOLUME_BINDING_WAIT)
STORAGE_CLASS_RECLAIM_POLICIES = ("Delete", "Retain")
ANN_DEFAULT_STORAGE_CLASS = "storageclass.kubernetes.io/is-default-class"
ANN_BETA_DEFAULT_STORAGE_CLASS = "storageclass.beta.kubernetes.io/is-default-class"


class TopologySelectorLabelRequirement(K8sModel):
    """``{key, values}``: the label ``key`` has one of ``values``."""

    key: str | None = None
    values: list[str] = Field(default_factory=list)


class TopologySelectorTerm(K8sModel):
    """ANDed label requirements of one allowed topology."""

    match_label_expressions: list[TopologySelectorLabelRequirement] = Field(default_factory=list)

    def matches(self, labels: dict[str, str]) -> bool:
        """Every requirement's key is a label of the node with one of its values.

        >>> TopologySelectorTerm.model_validate({"matchLabelExpressions": [
        ...     {"key": "zone", "values": ["a", "b"]}]}).matches({"zone": "b"})
        True
        """
        return all(r.key in labels and labels[r.key] in r.values for r in self.match_label_expressions)


class StorageClass(KubeObject):
    """storage.k8s.io/v1 StorageClass (cluster-scoped)."""

    API_VERSION: ClassVar[str] = API_VERSION
    KIND: ClassVar[str] = "StorageClass"
    NAMESPACED: ClassVar[bool] = False

    provisioner: str | None = None
    parameters: dict[str, str] = Field(default_factory=dict)
    reclaim_policy: str | None = None
    mount_options: list[str] = Field(default_factory=list)
    allow_volume_expansion: bool | None = None
    volume_binding_mode: str | None = None
    allowed_topologies: list[TopologySelectorTerm] = Field(default_factory=list)

    def binding_mode(self) -> str:
        """``volumeBindingMode`` with the API default (Immediate)."""
        return self.volume_binding_mode or VOLUME_BINDING_IMMEDIATE

    def is_wait_for_first_consumer(self) -> bool:
        """Whether claims of this class wait for the scheduler to pick a node."""
        return self.binding_mode() == VOLUME_BINDING_WAIT


class VolumeNodeResources(K8sModel):
    """``allocatable.count``: how many volumes of the driver the node can attach."""

    count: int | None = None


class CSINodeDriver(K8sModel):
    """A CSI driver installed on the node."""

    name: str | None = None
    node_id: str | None = Field(default=None, alias="nodeID")
    topology_keys: list[str] = Field(default_factory=list)
    allocatable: VolumeNodeResources | None = None


class CSINodeSpec(K8sModel):
    """``spec.drivers``."""

    drivers: list[CSINodeDriver] = Field(default_factory=list)


class CSINode(KubeObject):
    """storage.k8s.io/v1 CSINode: the CSI drivers of the node of the same name."""

    API_VERSION: ClassVar[str] = API_VERSION
    KIND: ClassVar[str] = "CSINode"
    NAMESPACED: ClassVar[bool] = False

    spec: CSINodeSpec = Field(default_factory=CSINodeSpec)

    def driver(self, name: str) -> CSINodeDriver | None:
        """The driver entry called ``name``, or None."""
        for d in self.spec.drivers:
            if d.name == name:
                return d
        return None


class CSIDriverSpec(K8sModel):
    """v1.CSIDriverSpec (``storageCapacity``: the driver publishes CSIStorageCapacity objects)."""

    attach_required: bool | None = None
    pod_info_on_mount: bool | None = None
    volume_lifecycle_modes: list[str] = Field(default_factory=list)
    storage_capacity: bool | None = None
    fs_group_policy: str | None = None
    token_requests: list[Any] = Field(default_factory=list)
    requires_republish: bool | None = None
    se_linux_mount: bool | None = Field(default=None, alias="seLinuxMount")
    node_allocatable_update_period_seconds: int | None = None
    service_account_token_in_secrets: bool | None = None
    #: VolumeLimitScaling: pods with the driver's volumes go only to nodes whose CSINode lists it
    prevent_pod_scheduling_if_missing: bool | None = None


class CSIDriver(KubeObject):
    """storage.k8s.io/v1 CSIDriver (cluster-scoped, named after the driver)."""

    API_VERSION: ClassVar[str] = API_VERSION
    KIND: ClassVar[str] = "CSIDriver"
    NAMESPACED: ClassVar[bool] = False

    spec: CSIDriverSpec = Field(default_factory=CSIDriverSpec)


class CSIStorageCapacity(KubeObject):
    """storage.k8s.io/v1 CSIStorageCapacity: free space of a class in a topology segment.

    >>> c = CSIStorageCapacity.model_validate({"metadata": {"name": "c", "namespace": "kube-system"},
    ...     "storageClassName": "fast", "capacity": "100Gi",
    ...     "nodeTopology": {"matchLabels": {"topology.kubernetes.io/zone": "a"}}})
    >>> c.node_topology.matches({"topology.kubernetes.io/zone": "a"}), c.capacity.value() >> 30
    (True, 100)
    """

    API_VERSION: ClassVar[str] = API_VERSION
    KIND: ClassVar[str] = "CSIStorageCapacity"
    NAMESPACED: ClassVar[bool] = True

    node_topology: LabelSelector | None = None
    storage_class_name: str | None = None
    capacity: Quantity | None = None
    maximum_volume_size: Quantity | None = None


class VolumeAttachmentSource(K8sModel):
    """``persistentVolumeName`` or an inline volume's spec."""

    persistent_volume_name: str | None = None
    inline_volume_spec: Any = None


class VolumeAttachmentSpec(K8sModel):
    """Which driver (``attacher``) attaches which volume to which node."""

    attacher: str | None = None
    source: VolumeAttachmentSource = Field(default_factory=VolumeAttachmentSource)
    node_name: str | None = None


class VolumeAttachmentStatus(K8sModel):
    """Whether the volume is attached."""

    attached: bool | None = None
    attachment_metadata: dict[str, str] = Field(default_factory=dict)
    attach_error: Any = None
    detach_error: Any = None


class VolumeAttachment(KubeObject):
    """storage.k8s.io/v1 VolumeAttachment (cluster-scoped)."""

    API_VERSION: ClassVar[str] = API_VERSION
    KIND: ClassVar[str] = "VolumeAttachment"
    NAMESPACED: ClassVar[bool] = False

    spec: VolumeAttachmentSpec = Field(default_factory=VolumeAttachmentSpec)
    status: VolumeAttachmentStatus = Field(default_factory=VolumeAttachmentStatus)

