"""Which model class handles which ``(apiVersion, kind)``.

>>> from kschedlab.api.core import Pod
>>> model_for("v1", "Pod") is Pod
True
>>> model_for("v1", "Foo") is None
True

New kinds (e.g. PodGroup) are added with :func:`register`.
"""

from __future__ import annotations

from .apps import DaemonSet, Deployment, ReplicaSet, StatefulSet
from .batch import Job
from .config import KubeSchedulerConfiguration
from .core import Namespace, Node, Pod, Service
from .kubeletconfig import KubeletConfiguration
from .limitrange import LimitRange
from .meta import TypedObject
from .node import RuntimeClass
from .nodestats import NodeStatsSummary
from .persistentvolume import PersistentVolume, PersistentVolumeClaim
from .podgroup import CompositePodGroup, PodGroup
from .policy import PodDisruptionBudget
from .resource import (
    DeviceClass,
    DeviceTaintRule,
    DeviceTaintRuleV1beta2,
    ResourceClaim,
    ResourceClaimTemplate,
    ResourceSlice,
)
from .resourcequota import ResourceQuota
from .scheduling import PriorityClass
from .simulation import Simulation
from .storage import CSIDriver, CSINode, CSIStorageCapacity, StorageClass, VolumeAttachment
from .workloadapi import Workload

__all__ = ["register", "unregister", "model_for", "registered_kinds"]

_REGISTRY: dict[tuple[str, str], type[TypedObject]] = {}


def register(model: type[TypedObject]) -> type[TypedObject]:
    """Register a model class under its ``API_VERSION`` and ``KIND`` (usable as a decorator).

    >>> from typing import ClassVar
    >>> from kschedlab.api.meta import KubeObject
    >>> @register
    ... class Widget(KubeObject):
    ...     API_VERSION: ClassVar[str] = "example.com/v1"
    ...     KIND: ClassVar[str] = "Widget"
    >>> model_for("example.com/v1", "Widget") is Widget
    True
    >>> unregister(Widget)
    """
    if not model.API_VERSION or not model.KIND:
        raise ValueError(f"{model.__name__} has no API_VERSION/KIND")
    _REGISTRY[(model.API_VERSION, model.KIND)] = model
    return model


def unregister(model: type[TypedObject]) -> None:
    """Remove a registered model class (mainly for tests).

    >>> from kschedlab.api.core import Pod
    >>> unregister(Pod); model_for("v1", "Pod") is None
    True
    >>> _ = register(Pod)
    """
    _REGISTRY.pop((model.API_VERSION, model.KIND), None)


def model_for(api_version: str, kind: str) -> type[TypedObject] | None:
    """The model class for ``(apiVersion, kind)``, or None.

    >>> model_for("apps/v1", "Deployment").__name__
    'Deployment'
    """
    return _REGISTRY.get((api_version, kind))


def registered_kinds() -> list[tuple[str, str]]:
    """All registered ``(apiVersion, kind)`` pairs, sorted.

    >>> ("apps/v1", "Deployment") in registered_kinds()
    True
    """
    return sorted(_REGISTRY)


for _m in (
    Pod,
    Node,
    Namespace,
    Service,
    PriorityClass,
    RuntimeClass,
    ResourceQuota,
    LimitRange,
    PodDisruptionBudget,
    Deployment,
    ReplicaSet,
    StatefulSet,
    DaemonSet,
    Job,
    KubeSchedulerConfiguration,
    KubeletConfiguration,
    NodeStatsSummary,
    Simulation,
    Workload,
    PodGroup,
    CompositePodGroup,
    DeviceClass,
    ResourceClaim,
    ResourceClaimTemplate,
    ResourceSlice,
    DeviceTaintRule,
    DeviceTaintRuleV1beta2,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
    CSINode,
    CSIDriver,
    CSIStorageCapacity,
    VolumeAttachment,
):
    register(_m)
