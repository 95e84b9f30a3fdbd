"""``apps/v1``: Deployment, ReplicaSet, StatefulSet, DaemonSet.

>>> d = Deployment.model_validate({"metadata": {"name": "web"}, "spec": {"replicas": 3,
...     "selector": {"matchLabels": {"app": "web"}},
...     "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c"}]}}}})
>>> d.spec.replicas, d.spec.template.metadata.labels
(3, {'app': 'web'})
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from ._base import IntOrString, K8sModel, Time
from .core import PodTemplateSpec
from .meta import KubeObject, LabelSelector
from .persistentvolume import PersistentVolumeClaim

__all__ = [
    "Deployment",
    "DeploymentSpec",
    "DeploymentStatus",
    "DeploymentStrategy",
    "DeploymentCondition",
    "RollingUpdateDeployment",
    "ReplicaSet",
    "ReplicaSetSpec",
    "ReplicaSetStatus",
    "ReplicaSetCondition",
    "StatefulSet",
    "StatefulSetSpec",
    "StatefulSetStatus",
    "StatefulSetOrdinals",
    "StatefulSetCondition",
    "StatefulSetUpdateStrategy",
    "RollingUpdateStatefulSetStrategy",
    "StatefulSetPersistentVolumeClaimRetentionPolicy",
    "DaemonSet",
    "DaemonSetSpec",
    "DaemonSetStatus",
    "DaemonSetCondition",
    "DaemonSetUpdateStrategy",
    "RollingUpdateDaemonSet",
]


class RollingUpdateDeployment(K8sModel):
    """apps/v1 RollingUpdateDeployment."""

    max_unavailable: IntOrString | None = None
    max_surge: IntOrString | None = None


class DeploymentStrategy(K8sModel):
    """apps/v1 DeploymentStrategy."""

    type: str | None = None
    rolling_update: RollingUpdateDeployment | None = None


class DeploymentSpec(K8sModel):
    """apps/v1 DeploymentSpec."""

    replicas: int | None = None
    selector: LabelSelector | None = None
    template: PodTemplateSpec = Field(default_factory=PodTemplateSpec)
    strategy: DeploymentStrategy | None = None
    min_ready_seconds: int | None = None
    revision_history_limit: int | None = None
    paused: bool | None = None
    progress_deadline_seconds: int | None = None


class ReplicaSetCondition(K8sModel):
    """apps/v1 ReplicaSetCondition (``ReplicaFailure``); StatefulSet and DaemonSet conditions have its fields."""

    type: str | None = None
    status: str | None = None
    last_transition_time: Time | None = None
    reason: str | None = None
    message: str | None = None


class StatefulSetCondition(ReplicaSetCondition):
    """apps/v1 StatefulSetCondition."""


class DaemonSetCondition(ReplicaSetCondition):
    """apps/v1 DaemonSetCondition."""


class DeploymentCondition(ReplicaSetCondition):
    """apps/v1 DeploymentCondition (``Available``, ``Progressing``, ``ReplicaFailure``)."""

    last_update_time: Time | None = None


class DeploymentStatus(K8sModel):
    """apps/v1 DeploymentStatus."""

    observed_generation: int | None = None
    replicas: int | None = None
    updated_replicas: int | None = None
    ready_replicas: int | None = None
    available_replicas: int | None = None
    unavailable_replicas: int | None = None
    terminating_replicas: int | None = None
    conditions: list[DeploymentCondition] = Field(default_factory=list)
    collision_count: int | None = None


class Deployment(KubeObject):
    """apps/v1 Deployment."""

    API_VERSION: ClassVar[str] = "apps/v1"
    KIND: ClassVar[str] = "Deployment"
    NAMESPACED: ClassVar[bool] = True

    spec: DeploymentSpec = Field(default_factory=DeploymentSpec)
    status: DeploymentStatus = Field(default_factory=DeploymentStatus)


class ReplicaSetSpec(K8sModel):
    """apps/v1 ReplicaSetSpec."""

    replicas: int | None = None
    min_ready_seconds: int | None = None
    selector: LabelSelector | None = None
    template: PodTemplateSpec = Field(default_factory=PodTemplateSpec)


class ReplicaSetStatus(K8sModel):
    """apps/v1 ReplicaSetStatus."""

    replicas: int | None = None
    fully_labeled_replicas: int | None = None
    ready_replicas: int | None = None
    available_replicas: int | None = None
    terminating_replicas: int | None = None
    observed_generation: int | None = None
    conditions: list[ReplicaSetCondition] = Field(default_factory=list)


class ReplicaSet(KubeObject):
    """apps/v1 ReplicaSet."""

    API_VERSION: ClassVar[str] = "apps/v1"
    KIND: ClassVar[str] = "ReplicaSet"
    NAMESPACED: ClassVar[bool] = True

    spec: ReplicaSetSpec = Field(default_factory=ReplicaSetSpec)
    status: ReplicaSetStatus = Field(default_factory=ReplicaSetStatus)


class StatefulSetOrdinals(K8sModel):
    """apps/v1 StatefulSetOrdinals: the first ordinal used for pod names."""

    start: int | None = None


class RollingUpdateStatefulSetStrategy(K8sModel):
    """apps/v1 RollingUpdateStatefulSetStrategy: the ordinal from which pods are updated, and how many
    may be unavailable during the update."""

    partition: int | None = None
    max_unavailable: IntOrString | None = None


class StatefulSetUpdateStrategy(K8sModel):
    """apps/v1 StatefulSetUpdateStrategy (``RollingUpdate`` or ``OnDelete``)."""

    type: str | None = None
    rolling_update: RollingUpdateStatefulSetStrategy | None = None


class StatefulSetPersistentVolumeClaimRetentionPolicy(K8sModel):
    """apps/v1: what happens to the PVCs of ``volumeClaimTemplates`` when the set is deleted or scaled down."""

    when_deleted: str | None = None
    when_scaled: str | None = None


class StatefulSetSpec(K8sModel):
    """apps/v1 StatefulSetSpec."""

    replicas: int | None = None
    selector: LabelSelector | None = None
    template: PodTemplateSpec = Field(default_factory=PodTemplateSpec)
    volume_claim_templates: list[PersistentVolumeClaim] = Field(default_factory=list)
    service_name: str | None = None
    pod_management_policy: str | None = None
    update_strategy: StatefulSetUpdateStrategy | None = None
    revision_history_limit: int | None = None
    min_ready_seconds: int | None = None
    persistent_volume_claim_retention_policy: StatefulSetPersistentVolumeClaimRetentionPolicy | None = None
    ordinals: StatefulSetOrdinals | None = None


class StatefulSetStatus(K8sModel):
    """apps/v1 StatefulSetStatus."""

    observed_generation: int | None = None
    replicas: int | None = None
    ready_replicas: int | None = None
    current_replicas: int | None = None
    updated_replicas: int | None = None
    current_revision: str | None = None
    update_revision: str | None = None
    collision_count: int | None = None
    conditions: list[StatefulSetCondition] = Field(default_factory=list)
    available_replicas: int | None = None


class StatefulSet(KubeObject):
    """apps/v1 StatefulSet."""

    API_VERSION: ClassVar[str] = "apps/v1"
    KIND: ClassVar[str] = "StatefulSet"
    NAMESPACED: ClassVar[bool] = True

    spec: StatefulSetSpec = Field(default_factory=StatefulSetSpec)
    status: StatefulSetStatus = Field(default_factory=StatefulSetStatus)


class RollingUpdateDaemonSet(K8sModel):
    """apps/v1 RollingUpdateDaemonSet."""

    max_unavailable: IntOrString | None = None
    max_surge: IntOrString | None = None


class DaemonSetUpdateStrategy(K8sModel):
    """apps/v1 DaemonSetUpdateStrategy."""

    type: str | None = None
    rolling_update: RollingUpdateDaemonSet | None = None


class DaemonSetSpec(K8sModel):
    """apps/v1 DaemonSetSpec."""

    selector: LabelSelector | None = None
    template: PodTemplateSpec = Field(default_factory=PodTemplateSpec)
    update_strategy: DaemonSetUpdateStrategy | None = None
    min_ready_seconds: int | None = None
    revision_history_limit: int | None = None


class DaemonSetStatus(K8sModel):
    """apps/v1 DaemonSetStatus."""

    current_number_scheduled: int | None = None
    number_misscheduled: int | None = None
    desired_number_scheduled: int | None = None
    number_ready: int | None = None
    observed_generation: int | None = None
    updated_number_scheduled: int | None = None
    number_available: int | None = None
    number_unavailable: int | None = None
    collision_count: int | None = None
    conditions: list[DaemonSetCondition] = Field(default_factory=list)


class DaemonSet(KubeObject):
    """apps/v1 DaemonSet: one pod per eligible node (see :mod:`kschedlab.controllers.daemonset`).

    >>> ds = DaemonSet.model_validate({"metadata": {"name": "agent", "namespace": "kube-system"},
    ...     "spec": {"selector": {"matchLabels": {"app": "agent"}},
    ...              "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1}}}})
    >>> ds.spec.update_strategy.rolling_update.max_unavailable
    1
    """

    API_VERSION: ClassVar[str] = "apps/v1"
    KIND: ClassVar[str] = "DaemonSet"
    NAMESPACED: ClassVar[bool] = True

    spec: DaemonSetSpec = Field(default_factory=DaemonSetSpec)
    status: DaemonSetStatus = Field(default_factory=DaemonSetStatus)
