"""Kubernetes objects as kschedlab reads them.

One module per API group (``core``, ``scheduling``, ``node``, ``policy``,
``apps``, ``batch``, ``config``, ``storage``; ``persistentvolume`` and ``volume`` for core/v1
storage), exact quantities (``quantity``), loading of
manifests (``loader``). Nothing here schedules, admits or creates: what the API server
does on create is in :mod:`kschedlab.apiserver`, what the controllers make in
:mod:`kschedlab.controllers`; their main names (``admit``, ``expand``, ``load_manifests``, ...)
are re-exported here and resolved on first use.

Typical use (load, expand workloads, admit; see :mod:`kschedlab.controllers.manifests`)::

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

import importlib

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


#: names re-exported for users' ``from kschedlab.api import X`` that live in the packages above
#: ``api`` (what the API server does, what the controllers make), with the modules themselves:
#: resolved on first use, since importing them here would import upwards. kschedlab's own modules
#: import them from where they live.
_FROM_ELSEWHERE = {
    "Applied": "kschedlab.apiserver.apply",
    "Refusal": "kschedlab.apiserver.apply",
    "RefusedObjectsWarning": "kschedlab.apiserver.apply",
    "admit": "kschedlab.apiserver.admission",
    "admit_pod": "kschedlab.apiserver.admission",
    "default_pod": "kschedlab.apiserver.admission",
    "expand": "kschedlab.controllers.workloads",
    "load_manifests": "kschedlab.controllers.manifests",
    "merge_tolerations": "kschedlab.apiserver.admission",
    "validate_pod": "kschedlab.apiserver.admission",
    "admission": "kschedlab.apiserver.admission",
    "apply": "kschedlab.apiserver.apply",
    "controller_ref": "kschedlab.controllers.controller_ref",
    "daemonset": "kschedlab.controllers.daemonset",
    "manifests": "kschedlab.controllers.manifests",
    "object_validation": "kschedlab.apiserver.object_validation",
    "pod_templates": "kschedlab.controllers.pod_templates",
    "pod_update": "kschedlab.apiserver.pod_update",
    "podgroup_validation": "kschedlab.apiserver.podgroup_validation",
    "priorityclass": "kschedlab.apiserver.priorityclass",
    "resource_validation": "kschedlab.apiserver.resource_validation",
    "storage_validation": "kschedlab.apiserver.storage_validation",
    "volume_claims": "kschedlab.controllers.volume_claims",
    "workloads": "kschedlab.controllers.workloads",
}


def __getattr__(name: str) -> object:
    module = _FROM_ELSEWHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    imported = importlib.import_module(module)
    value = imported if module.rpartition(".")[2] == name else getattr(imported, name)
    globals()[name] = value
    return value
