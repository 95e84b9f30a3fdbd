"""``batch/v1``: Job.

>>> j = Job.model_validate({"metadata": {"name": "pi"}, "spec": {"completions": 4, "parallelism": 2,
...     "template": {"spec": {"containers": [{"name": "pi"}], "restartPolicy": "Never"}}}})
>>> j.spec.completions, j.spec.parallelism
(4, 2)
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field

from ._base import K8sModel, Time
from .core import PodTemplateSpec
from .meta import KubeObject, LabelSelector

__all__ = ["Job", "JobSpec", "JobStatus"]


class JobSpec(K8sModel):
    """batch/v1 JobSpec."""

    parallelism: int | None = None
    completions: int | None = None
    active_deadline_seconds: int | None = None
    pod_failure_policy: Any = None
    success_policy: Any = None
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

    conditions: list[Any] = Field(default_factory=list)
    start_time: Time | None = None
    completion_time: Time | None = None
    active: int | None = None
    succeeded: int | None = None
    failed: int | None = None
    terminating: int | None = None
    completed_indexes: str | None = None
    failed_indexes: str | None = None
    uncounted_terminated_pods: Any = None
    ready: int | None = None


class Job(KubeObject):
    """batch/v1 Job."""

    API_VERSION: ClassVar[str] = "batch/v1"
    KIND: ClassVar[str] = "Job"
    NAMESPACED: ClassVar[bool] = True

    spec: JobSpec = Field(default_factory=JobSpec)
    status: JobStatus = Field(default_factory=JobStatus)
