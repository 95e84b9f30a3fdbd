"""``scheduling.k8s.io``: PodGroup (v1beta1) and CompositePodGroup (v1alpha3), with the
value types they share with the Workload API (:mod:`kschedlab.api.workloadapi`).

A PodGroup is the runtime instance of a group of pods that are scheduled together
(``spec.schedulingPolicy``: ``basic: {}`` or ``gang: {minCount}``). Pods join it with
``spec.schedulingGroup.podGroupName``. A PodGroup may hang below a CompositePodGroup
(``spec.parentCompositePodGroupName``, CompositePodGroup gate), and CompositePodGroups
chain up to a root. Both are served only while the GenericWorkload feature gate is on
(CompositePodGroup needs its own gate as well); see
:mod:`kschedlab.apiserver.podgroup_validation` for what the API server checks.

Group keys are written as the scheduler writes ``fwk.EntityKey``:
``podgroup/<namespace>/<name>`` and ``compositepodgroup/<namespace>/<name>``.

>>> pg = PodGroup.model_validate({"metadata": {"name": "training-worker-0", "namespace": "default"},
...     "spec": {"schedulingPolicy": {"gang": {"minCount": 4}}}})
>>> pg.min_count, pg.is_gang, pg.group_key
(4, True, 'podgroup/default/training-worker-0')
>>> cpg = CompositePodGroup.model_validate({"metadata": {"name": "root", "namespace": "default"},
...     "spec": {"schedulingPolicy": {"gang": {"minGroupCount": 2}}}})
>>> cpg.min_group_count, cpg.group_key
(2, 'compositepodgroup/default/root')
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from ._base import K8sModel
from .meta import Condition, KubeObject

__all__ = [
    "PodGroup",
    "PodGroupSpec",
    "PodGroupStatus",
    "CompositePodGroup",
    "CompositePodGroupSpec",
    "CompositePodGroupStatus",
    "PodGroupSchedulingPolicy",
    "BasicSchedulingPolicy",
    "GangSchedulingPolicy",
    "CompositePodGroupSchedulingPolicy",
    "CompositeGangSchedulingPolicy",
    "CompositeBasicSchedulingPolicy",
    "DisruptionMode",
    "WorkloadReference",
    "PodGroupTemplateReference",
    "WorkloadPodGroupTemplateReference",
    "PodGroupSchedulingConstraints",
    "TopologyConstraint",
    "PodGroupResourceClaim",
    "PodGroupResourceClaimStatus",
    "Condition",
    "pod_group_key",
    "composite_pod_group_key",
    "PODGROUP_API_VERSION",
    "COMPOSITE_PODGROUP_API_VERSION",
    "POD_GROUP_INITIALLY_SCHEDULED",
    "DISRUPTION_TARGET",
    "REASON_SCHEDULED",
    "REASON_UNSCHEDULABLE",
    "REASON_SCHEDULER_ERROR",
    "REASON_PREEMPTION_BY_SCHEDULER",
    "PREEMPTION_POLICIES",
]

PODGROUP_API_VERSION = "scheduling.k8s.io/v1beta1"
COMPOSITE_PODGROUP_API_VERSION = "scheduling.k8s.io/v1alpha3"

#: condition types and reasons (``schedulingapi.PodGroup*``)
POD_GROUP_INITIALLY_SCHEDULED = "PodGroupInitiallyScheduled"
DISRUPTION_TARGET = "DisruptionTarget"
REASON_SCHEDULED = "Scheduled"
REASON_UNSCHEDULABLE = "Unschedulable"
REASON_SCHEDULER_ERROR = "SchedulerError"
REASON_PREEMPTION_BY_SCHEDULER = "PreemptionByScheduler"

PREEMPTION_POLICIES = ("PreemptLowerPriority", "Never")

POD_GROUP_KEY_TYPE = "podgroup"
COMPOSITE_POD_GROUP_KEY_TYPE = "compositepodgroup"


def pod_group_key(namespace: str | None, name: str | None) -> str:
    """``fwk.PodGroupKey``: ``podgroup/<ns>/<name>``.

    >>> pod_group_key("ns1", "pg")
    'podgroup/ns1/pg'
    """
    return f"{POD_GROUP_KEY_TYPE}/{namespace or ''}/{name or ''}"


def composite_pod_group_key(namespace: str | None, name: str | None) -> str:
    """``fwk.CompositePodGroupKey``: ``compositepodgroup/<ns>/<name>``.

    >>> composite_pod_group_key("ns1", "root")
    'compositepodgroup/ns1/root'
    """
    return f"{COMPOSITE_POD_GROUP_KEY_TYPE}/{namespace or ''}/{name or ''}"


# ------------------------------------------------------------------ shared values


class BasicSchedulingPolicy(K8sModel):
    """``basic: {}``: standard pod-by-pod scheduling (intentionally empty)."""


class GangSchedulingPolicy(K8sModel):
    """``gang``: all-or-nothing; ``minCount`` pods must fit at the same time (>= 1, mutable)."""

    min_count: int | None = None


class PodGroupSchedulingPolicy(K8sModel):
    """A union: exactly one of ``basic`` and ``gang`` (checked by API validation)."""

    basic: BasicSchedulingPolicy | None = None
    gang: GangSchedulingPolicy | None = None


class CompositeBasicSchedulingPolicy(K8sModel):
    """``basic: {}`` of a CompositePodGroup: child groups are scheduled independently."""


class CompositeGangSchedulingPolicy(K8sModel):
    """``gang`` of a CompositePodGroup: ``minGroupCount`` child groups must fit together."""

    min_group_count: int | None = None


class CompositePodGroupSchedulingPolicy(K8sModel):
    """A union: exactly one of ``basic`` and ``gang``."""

    basic: CompositeBasicSchedulingPolicy | None = None
    gang: CompositeGangSchedulingPolicy | None = None


class EmptyMode(K8sModel):
    """``single: {}`` / ``all: {}`` (intentionally empty)."""


class DisruptionMode(K8sModel):
    """A union: ``single: {}`` (members disrupted independently, the default) or ``all: {}``."""

    single: EmptyMode | None = None
    all: EmptyMode | None = None


class WorkloadReference(K8sModel):
    """``spec.workloadRef``: the Workload and the template a group was created from."""

    workload_name: str | None = None
    template_name: str | None = None


class WorkloadPodGroupTemplateReference(K8sModel):
    """``podGroupTemplateRef.workload`` (the v1.36 wire format; v1.37 has ``workloadRef``)."""

    workload_name: str | None = None
    pod_group_template_name: str | None = None


class PodGroupTemplateReference(K8sModel):
    """``spec.podGroupTemplateRef`` as the seed's examples write it (v1.36 wire format).

    Upstream v1.37 replaced it with ``spec.workloadRef``; kschedlab keeps it as
    data so the documented manifests load, and it takes no part in validation.
    """

    workload: WorkloadPodGroupTemplateReference | None = None


class TopologyConstraint(K8sModel):
    """``{key}``: all pods of the group must be in one domain of this node label."""

    key: str | None = None


class PodGroupSchedulingConstraints(K8sModel):
    """``schedulingConstraints`` (TopologyAwareWorkloadScheduling): at most one topology entry."""

    topology: list[TopologyConstraint] = Field(default_factory=list)


class PodGroupResourceClaim(K8sModel):
    """A ResourceClaim shared by the group's pods (DRAWorkloadResourceClaims); kept as data."""

    name: str | None = None
    resource_claim_name: str | None = None
    resource_claim_template_name: str | None = None


class PodGroupResourceClaimStatus(K8sModel):
    """The generated claim name for a template-backed group claim."""

    name: str | None = None
    resource_claim_name: str | None = None


class GroupObject:
    """What PodGroup and CompositePodGroup share: policy, parent, priority, conditions."""

    @property
    def is_gang(self) -> bool:
        return self.spec.scheduling_policy.gang is not None

    @property
    def parent_name(self) -> str | None:
        return self.spec.parent_composite_pod_group_name

    def priority_value(self) -> int:
        """``GetPriority``: ``spec.priority`` or 0."""
        return self.spec.priority or 0

    def effective_preemption_policy(self) -> str:
        """``spec.preemptionPolicy`` with the API default (PreemptLowerPriority)."""
        return self.spec.preemption_policy or "PreemptLowerPriority"

    def condition(self, type_: str = POD_GROUP_INITIALLY_SCHEDULED) -> Condition | None:
        """The status condition of ``type_`` (``apimeta.FindStatusCondition``)."""
        return next((c for c in self.status.conditions if c.type == type_), None)


# ------------------------------------------------------------------------ PodGroup


class PodGroupSpec(K8sModel):
    """v1beta1 PodGroupSpec."""

    parent_composite_pod_group_name: str | None = None
    workload_ref: WorkloadReference | None = None
    pod_group_template_ref: PodGroupTemplateReference | None = None
    scheduling_policy: PodGroupSchedulingPolicy = Field(default_factory=PodGroupSchedulingPolicy)
    scheduling_constraints: PodGroupSchedulingConstraints | None = None
    resource_claims: list[PodGroupResourceClaim] = Field(default_factory=list)
    disruption_mode: DisruptionMode | None = None
    priority_class_name: str | None = None
    priority: int | None = None
    preemption_policy: str | None = None


class PodGroupStatus(K8sModel):
    """v1beta1 PodGroupStatus."""

    conditions: list[Condition] = Field(default_factory=list)
    resource_claim_statuses: list[PodGroupResourceClaimStatus] = Field(default_factory=list)


class PodGroup(GroupObject, KubeObject):
    """scheduling.k8s.io/v1beta1 PodGroup (GenericWorkload)."""

    API_VERSION: ClassVar[str] = PODGROUP_API_VERSION
    KIND: ClassVar[str] = "PodGroup"
    NAMESPACED: ClassVar[bool] = True

    spec: PodGroupSpec = Field(default_factory=PodGroupSpec)
    status: PodGroupStatus = Field(default_factory=PodGroupStatus)

    @property
    def group_key(self) -> str:
        """``podgroup/<ns>/<name>``."""
        return pod_group_key(self.metadata.namespace, self.metadata.name)

    @property
    def min_count(self) -> int | None:
        """``gang.minCount``, or None for a basic (or empty) policy.

        >>> PodGroup.model_validate({"spec": {"schedulingPolicy": {"basic": {}}}}).min_count is None
        True
        """
        gang = self.spec.scheduling_policy.gang
        return None if gang is None else (gang.min_count or 0)


# --------------------------------------------------------------- CompositePodGroup


class CompositePodGroupSpec(K8sModel):
    """v1alpha3 CompositePodGroupSpec."""

    parent_composite_pod_group_name: str | None = None
    workload_ref: WorkloadReference | None = None
    scheduling_policy: CompositePodGroupSchedulingPolicy = Field(default_factory=CompositePodGroupSchedulingPolicy)
    scheduling_constraints: PodGroupSchedulingConstraints | None = None
    disruption_mode: DisruptionMode | None = None
    priority_class_name: str | None = None
    priority: int | None = None
    preemption_policy: str | None = None


class CompositePodGroupStatus(K8sModel):
    """v1alpha3 CompositePodGroupStatus (the scheduler does not fill it in v1.37)."""

    conditions: list[Condition] = Field(default_factory=list)


class CompositePodGroup(GroupObject, KubeObject):
    """scheduling.k8s.io/v1alpha3 CompositePodGroup (GenericWorkload + CompositePodGroup gates)."""

    API_VERSION: ClassVar[str] = COMPOSITE_PODGROUP_API_VERSION
    KIND: ClassVar[str] = "CompositePodGroup"
    NAMESPACED: ClassVar[bool] = True

    spec: CompositePodGroupSpec = Field(default_factory=CompositePodGroupSpec)
    status: CompositePodGroupStatus = Field(default_factory=CompositePodGroupStatus)

    @property
    def group_key(self) -> str:
        """``compositepodgroup/<ns>/<name>``."""
        return composite_pod_group_key(self.metadata.namespace, self.metadata.name)

    @property
    def min_group_count(self) -> int:
        """``gang.minGroupCount``; 1 for a basic policy (as the scheduler counts it)."""
        gang = self.spec.scheduling_policy.gang
        return 1 if gang is None else (gang.min_group_count or 0)
