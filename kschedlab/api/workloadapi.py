"""``scheduling.k8s.io/v1beta1`` Workload: the long-lived scheduling policy of a workload.

A Workload holds ``podGroupTemplates`` (at most 8) — or, with the CompositePodGroup
gate, ``compositePodGroupTemplates`` — from which workload controllers create the
runtime PodGroups (:mod:`kschedlab.api.podgroup`). ``spec.controllerRef`` points back
at the controlling object (e.g. a Job). Served only with the GenericWorkload gate.

>>> wl = Workload.model_validate({"metadata": {"name": "training-policy", "namespace": "default"},
...     "spec": {"podGroupTemplates": [{"name": "worker", "schedulingPolicy": {"gang": {"minCount": 4}}}]}})
>>> wl.template("worker").scheduling_policy.gang.min_count
4
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from ._base import K8sModel
from .meta import KubeObject
from .podgroup import (
    CompositePodGroupSchedulingPolicy,
    DisruptionMode,
    PodGroupResourceClaim,
    PodGroupSchedulingConstraints,
    PodGroupSchedulingPolicy,
)

__all__ = [
    "Workload",
    "WorkloadSpec",
    "PodGroupTemplate",
    "CompositePodGroupTemplate",
    "TypedLocalObjectReference",
    "WORKLOAD_API_VERSION",
    "WORKLOAD_MAX_POD_GROUP_TEMPLATES",
    "WORKLOAD_MAX_TREE_DEPTH",
]

WORKLOAD_API_VERSION = "scheduling.k8s.io/v1beta1"
WORKLOAD_MAX_POD_GROUP_TEMPLATES = 8
WORKLOAD_MAX_TREE_DEPTH = 4


class TypedLocalObjectReference(K8sModel):
    """``spec.controllerRef``: ``{apiGroup, kind, name}`` in the Workload's namespace."""

    api_group: str | None = None
    kind: str | None = None
    name: str | None = None


class PodGroupTemplate(K8sModel):
    """A template for PodGroups (name, policy, and the fields copied into each PodGroup)."""

    name: str | None = None
    scheduling_policy: PodGroupSchedulingPolicy = Field(default_factory=PodGroupSchedulingPolicy)
    scheduling_constraints: PodGroupSchedulingConstraints | None = None
    resource_claims: list[PodGroupResourceClaim] = Field(default_factory=list)
    disruption_mode: DisruptionMode | None = None
    priority_class_name: str | None = None
    priority: int | None = None
    preemption_policy: str | None = None


class CompositePodGroupTemplate(K8sModel):
    """A template for CompositePodGroups, with child templates (CompositePodGroup gate)."""

    name: str | None = None
    scheduling_policy: CompositePodGroupSchedulingPolicy = Field(default_factory=CompositePodGroupSchedulingPolicy)
    scheduling_constraints: PodGroupSchedulingConstraints | None = None
    disruption_mode: DisruptionMode | None = None
    priority_class_name: str | None = None
    priority: int | None = None
    preemption_policy: str | None = None
    pod_group_templates: list[PodGroupTemplate] = Field(default_factory=list)
    composite_pod_group_templates: list[CompositePodGroupTemplate] = Field(default_factory=list)


class WorkloadSpec(K8sModel):
    """v1beta1 WorkloadSpec."""

    controller_ref: TypedLocalObjectReference | None = None
    pod_group_templates: list[PodGroupTemplate] = Field(default_factory=list)
    composite_pod_group_templates: list[CompositePodGroupTemplate] = Field(default_factory=list)


class Workload(KubeObject):
    """scheduling.k8s.io/v1beta1 Workload (GenericWorkload)."""

    API_VERSION: ClassVar[str] = WORKLOAD_API_VERSION
    KIND: ClassVar[str] = "Workload"
    NAMESPACED: ClassVar[bool] = True

    spec: WorkloadSpec = Field(default_factory=WorkloadSpec)

    def template(self, name: str) -> PodGroupTemplate | None:
        """The top-level PodGroupTemplate called ``name``, if any."""
        return next((t for t in self.spec.pod_group_templates if t.name == name), None)

    def controlled_by(self, kind: str, name: str, api_group: str = "") -> bool:
        """Whether ``spec.controllerRef`` names this object.

        >>> Workload.model_validate({"spec": {"controllerRef": {"apiGroup": "batch", "kind": "Job",
        ...     "name": "train"}}}).controlled_by("Job", "train", "batch")
        True
        """
        ref = self.spec.controller_ref
        return ref is not None and (ref.api_group or "") == api_group and ref.kind == kind and ref.name == name
