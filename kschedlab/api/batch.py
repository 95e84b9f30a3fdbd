"""``batch/v1``: Job.

>>> j = Job.model_validate({"metadata": {"name": "pi"}, "spec": {"completions": 4, "parallelism": 2,
...     "template": {"spec": {"containers": [{"name": "pi"}], "restartPolicy": "Never"}}}})
>>> j.spec.completions, j.spec.parallelism
(4, 2)
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from ._base import K8sModel, Time
from .core import PodTemplateSpec
from .meta import KubeObject, LabelSelector

__all__ = ["Job", "JobSpec", "JobStatus", "JobCondition", "PodFailurePolicy", "PodFailurePolicyRule",
           "PodFailurePolicyOnExitCodesRequirement", "PodFailurePolicyOnPodConditionsPattern", "SuccessPolicy",
           "SuccessPolicyRule", "UncountedTerminatedPods"]


class PodFailurePolicyOnExitCodesRequirement(K8sModel):
    """batch/v1: a rule's match on a container's exit code (``In`` / ``NotIn`` ``values``)."""

    container_name: str | None = None
    operator: str | None = None
    values: list[int] = Field(default_factory=list)


class PodFailurePolicyOnPodConditionsPattern(K8sModel):
    """batch/v1: a rule's match on a pod condition (``type``, ``status``)."""

    type: str | None = None
    status: str | None = None


class PodFailurePolicyRule(K8sModel):
    """batch/v1: an ``action`` (``FailJob``, ``FailIndex``, ``Ignore``, ``Count``) for the failed pods a rule matches."""

    action: str | None = None
    on_exit_codes: PodFailurePolicyOnExitCodesRequirement | None = None
    on_pod_conditions: list[PodFailurePolicyOnPodConditionsPattern] = Field(default_factory=list)


class PodFailurePolicy(K8sModel):
    """batch/v1 PodFailurePolicy: the rules read in order for each failed pod."""

    rules: list[PodFailurePolicyRule] = Field(default_factory=list)


class SuccessPolicyRule(K8sModel):
    """batch/v1: the indexes (``succeededIndexes``) or their count (``succeededCount``) that make an
    Indexed Job succeed."""

    succeeded_indexes: str | None = None
    succeeded_count: int | None = None


class SuccessPolicy(K8sModel):
    """batch/v1 SuccessPolicy."""

    rules: list[SuccessPolicyRule] = Field(default_factory=list)


class UncountedTerminatedPods(K8sModel):
    """batch/v1: the UIDs of finished pods not yet counted in the status."""

    succeeded: list[str] = Field(default_factory=list)
    failed: list[str] = Field(default_factory=list)


class JobCondition(K8sModel):
    """batch/v1 JobCondition (``Suspended``, ``Complete``, ``Failed``, ...)."""

    type: str | None = None
    status: str | None = None
    last_probe_time: Time | None = None
    last_transition_time: Time | None = None
    reason: str | None = None
    message: str | None = None


class JobSpec(K8sModel):
    """batch/v1 JobSpec."""

    parallelism: int | None = None
    completions: int | None = None
    active_deadline_seconds: int | None = None
    pod_failure_policy: PodFailurePolicy | None = None
    success_policy: SuccessPolicy | None = None
    backoff_limit: int | None = None
    backoff_limit_per_index: int | None = None
    max_failed_indexes: int | None = None
    selector: LabelSelector | None = None
    manual_selector: bool | None = None
    template: PodTemplateSpec = Field(default_factory=PodTemplateSpec)
    ttl_seconds_after_finished: int | None = None
    completion_mode: str | None = None
    suspend: bool | None = None
    pod_replacement_policy: str | None = None
    managed_by: str | None = None


class JobStatus(K8sModel):
    """batch/v1 JobStatus."""

    conditions: list[JobCondition] = Field(default_factory=list)
    start_time: Time | None = None
    completion_time: Time | None = None
    active: int | None = None
    succeeded: int | None = None
    failed: int | None = None
    terminating: int | None = None
    completed_indexes: str | None = None
    failed_indexes: str | None = None
    uncounted_terminated_pods: UncountedTerminatedPods | None = None
    ready: int | None = None


class Job(KubeObject):
    """batch/v1 Job."""

    API_VERSION: ClassVar[str] = "batch/v1"
    KIND: ClassVar[str] = "Job"
    NAMESPACED: ClassVar[bool] = True

    spec: JobSpec = Field(default_factory=JobSpec)
    status: JobStatus = Field(default_factory=JobStatus)
