"""Kubernetes objects as kschedlab reads them.

One module per API group (``core``, ``scheduling``, ``node``, ``policy``,
``apps``, ``batch``, ``config``, ``storage``; ``persistentvolume`` and ``volume`` for core/v1
storage), exact quantities (``quantity``), loading of
manifests (``loader``), what the API server does on create (``admission``) and
what workload controllers create (``workloads``). Nothing here schedules.

Typical use (load, expand workloads, admit; see :mod:`kschedlab.api.manifests`)::

    from kschedlab.api import load_manifests
    objects = load_manifests("datasets/dumps/shop-cluster.yaml")

Model conventions: attribute names are the snake_case of the JSON names
(``pod.spec.node_selector``); dumps use the JSON names
(``obj.model_dump(by_alias=True, exclude_unset=True)`` gives back what was
loaded); collections default to empty and optional scalars to None.

>>> from kschedlab.api import Quantity, Pod
>>> Quantity("1Gi").value()
1073741824
>>> Pod(metadata={"name": "p", "namespace": "ns"}).key
'ns/p'
"""

from .admission import admit, admit_pod, default_pod, merge_tolerations, validate_pod
from .apply import Applied, Refusal, RefusedObjectsWarning
from .apps import DaemonSet, Deployment, ReplicaSet, StatefulSet
from .batch import Job
from .config import (
    KubeSchedulerConfiguration,
    KubeSchedulerProfile,
    Plugin,
    PluginConfig,
    Plugins,
    PluginSet,
)
from .core import (
    Affinity,
    Container,
    ContainerImage,
    ContainerPort,
    LabelSelector,
    LabelSelectorRequirement,
    Namespace,
    Node,
    NodeAffinity,
    NodeCondition,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    NodeSpec,
    NodeStatus,
    ObjectMeta,
    OwnerReference,
    Pod,
    PodAffinity,
    PodAffinityTerm,
    PodAntiAffinity,
    PodCondition,
    PodSchedulingGate,
    PodSchedulingGroup,
    PodSpec,
    PodStatus,
    PodTemplateSpec,
    PreferredSchedulingTerm,
    ResourceRequirements,
    Service,
    Taint,
    Toleration,
    TopologySpreadConstraint,
    WeightedPodAffinityTerm,
    compute_pod_qos,
    label_selector_matches,
)
from .errors import ManifestError
from .kinds import SkippedKindsWarning
from .limitrange import LimitRange
from .loader import dump, load, load_objects, load_text
from .manifests import load_manifests
from .meta import KubeObject, TypedObject
from .node import RuntimeClass
from .persistentvolume import PersistentVolume, PersistentVolumeClaim
from .podgroup import CompositePodGroup, PodGroup
from .policy import PodDisruptionBudget
from .quantity import Quantity
from .registry import model_for, register, registered_kinds
from .resourcequota import ResourceQuota
from .scheduling import PriorityClass
from .storage import CSIDriver, CSINode, CSIStorageCapacity, StorageClass, VolumeAttachment
from .volume import Volume
from .workloadapi import Workload
from .workloads import expand

__all__ = [
    "Affinity",
    "Applied",
    "CSIDriver",
    "CSINode",
    "CSIStorageCapacity",
    "Container",
    "ContainerImage",
    "CompositePodGroup",
    "ContainerPort",
    "DaemonSet",
    "Deployment",
    "Job",
    "KubeObject",
    "KubeSchedulerConfiguration",
    "KubeSchedulerProfile",
    "LabelSelector",
    "LabelSelectorRequirement",
    "LimitRange",
    "ManifestError",
    "Namespace",
    "Node",
    "NodeAffinity",
    "NodeCondition",
    "NodeSelector",
    "NodeSelectorRequirement",
    "NodeSelectorTerm",
    "NodeSpec",
    "NodeStatus",
    "ObjectMeta",
    "OwnerReference",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "Plugin",
    "PluginConfig",
    "PluginSet",
    "Plugins",
    "Pod",
    "PodAffinity",
    "PodAffinityTerm",
    "PodAntiAffinity",
    "PodCondition",
    "PodDisruptionBudget",
    "PodGroup",
    "PodSchedulingGate",
    "PodSchedulingGroup",
    "PodSpec",
    "PodStatus",
    "PodTemplateSpec",
    "PreferredSchedulingTerm",
    "PriorityClass",
    "Quantity",
    "Refusal",
    "RefusedObjectsWarning",
    "ReplicaSet",
    "ResourceQuota",
    "ResourceRequirements",
    "RuntimeClass",
    "Service",
    "SkippedKindsWarning",
    "StatefulSet",
    "StorageClass",
    "Taint",
    "Toleration",
    "TopologySpreadConstraint",
    "TypedObject",
    "Volume",
    "VolumeAttachment",
    "WeightedPodAffinityTerm",
    "Workload",
    "admit",
    "admit_pod",
    "compute_pod_qos",
    "default_pod",
    "dump",
    "expand",
    "label_selector_matches",
    "load",
    "load_manifests",
    "load_objects",
    "load_text",
    "merge_tolerations",
    "model_for",
    "register",
    "registered_kinds",
    "validate_pod",
]
