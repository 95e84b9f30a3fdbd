"""What the Job controller does as a Job's pods finish (upstream ``pkg/controller/job``).

A load creates a Job's first pods (:func:`~kschedlab.controllers.workloads.expand_job`: ``parallelism``
of them, no more than its completions). In a simulation a pod given a run time ends in phase
``Succeeded``, and one can be preempted, evicted or OOM-killed; :class:`JobController` is the
controller's answer. A pod that succeeds is counted in ``status.succeeded`` (an Indexed Job's index
also in ``status.completedIndexes``) and pods start while completions remain (so a Job of 6
completions and parallelism 2 runs in three waves); once its completions have succeeded the Job gets
the conditions ``SuccessCriteriaMet`` and ``Complete`` (reason ``CompletionsReached``), its
``completionTime`` and the ``Completed`` event. A Job without ``completions`` (a work queue) starts no
pod after its first success and completes when its last pod ends. A pod that fails is matched against
the ``podFailurePolicy`` rules, counted in ``status.failed`` and replaced after the pod failure
backoff; past ``backoffLimit`` failures the Job fails (``FailureTarget``, ``Failed``) and its running
pods are deleted, as they are when it outlives its ``activeDeadlineSeconds`` (``DeadlineExceeded``).
Not modelled: ``backoffLimitPerIndex``, ``successPolicy`` and the ``FailIndex`` action.

>>> from kschedlab.api.loader import load_text
>>> from kschedlab.cluster import Cluster
>>> from kschedlab.controllers.manifests import create
>>> cluster = Cluster(create(load_text('''
... apiVersion: batch/v1
... kind: Job
... metadata: {name: pi, namespace: default}
... spec:
...   completions: 3
...   parallelism: 2
...   template: {spec: {restartPolicy: Never, containers: [{name: pi, image: perl}]}}
... ''')))
>>> jobs = JobController(cluster)
>>> first = cluster.pods[sorted(cluster.pods)[0]]
>>> cluster.remove_pod(first.key)
>>> [p.metadata.generate_name for p in jobs.pod_succeeded(first, now=60.0).created]
['pi-']
>>> job = cluster.get("Job", "default/pi")
>>> job.status.succeeded, job.status.active
(1, 2)
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from ..api.batch import Job, JobCondition, PodFailurePolicyRule
from ..api.core import Pod
from ..api.meta import TypedObject
from ..apiserver.apply import ControllerEvent
from .created import admit_created
from .pod_templates import JOB_COMPLETION_INDEX
from .workloads import (
    active_pods,
    expand_job,
    job_pod_group,
    namespace_pods,
    owned_pods,
    parse_indexes,
    pods_lacking,
    terminating_pods,
)

__all__ = ["JobController", "JobSync", "format_indexes", "jobs_summary", "replacement_policy"]

#: the reason of both terminal conditions of a Job whose completions succeeded
COMPLETIONS_REACHED = "CompletionsReached"
#: the reasons of a failed Job's conditions: too many failed pods, a ``FailJob`` rule
REASON_BACKOFF_LIMIT_EXCEEDED = "BackoffLimitExceeded"
REASON_POD_FAILURE_POLICY = "PodFailurePolicy"
REASON_DEADLINE_EXCEEDED = "DeadlineExceeded"
#: the pod failure backoff (seconds): the first delay, doubled for each failure since the last success, and its cap
DEFAULT_POD_FAILURE_BACKOFF = 10.0
MAX_POD_FAILURE_BACKOFF = 360.0


def format_indexes(indexes: set[int]) -> str:
    """``status.completedIndexes`` as the Job controller writes it: ascending intervals, a run of
    three or more as ``first-last``, a run of two as ``first,last``.

    >>> format_indexes({0, 1, 2, 4, 6, 7})
    '0-2,4,6,7'
    """
    parts: list[str] = []
    ordered = sorted(indexes)
    start = 0
    while start < len(ordered):
        end = start
        while end + 1 < len(ordered) and ordered[end + 1] == ordered[end] + 1:
            end += 1
        first, last = ordered[start], ordered[end]
        parts.append(str(first) if first == last else f"{first}{',' if last == first + 1 else '-'}{last}")
        start = end + 1
    return ",".join(parts)


@dataclass
class JobSync:
    """What one sync of a Job's controller does: the pods it ``created`` (admitted, in order), the
    pods it ``deletes`` (a failed Job's active pods, by key) and the time (``retry_at``, seconds) it
    syncs again: when the pod failure backoff ends, or at the Job's deadline."""

    created: list[TypedObject] = field(default_factory=list)
    deletes: list[str] = field(default_factory=list)
    retry_at: float | None = None
    #: the Job's key (``namespace/name``)
    job: str = ""


class JobController:
    """The Job controller, told of each Job created and of each pod of a Job that succeeded,
    started terminating or failed (times in seconds, as the simulation's clock). ``seed`` names the
    pods it creates; ``gates`` (FeatureGates or overrides) is what they are admitted with."""

    def __init__(self, cluster: Any, *, seed: int = 0, gates: Any = None):
        self.cluster, self.seed, self.gates = cluster, seed, gates
        #: names of pods the controller has seen, per namespace: a new pod never takes one
        self.taken: dict[str, set[str]] = {}
        #: per Job: the failures since its last success and the time of the last one (the backoff record)
        self.backoff: dict[str, tuple[int, float]] = {}

    def created(self, job: Job, now: float) -> JobSync:
        """``job`` is in the cluster at ``now``: its ``startTime`` (unless suspended or already set)
        and, with ``activeDeadlineSeconds``, a sync at the deadline, which fails the Job if it is
        still running then (``DeadlineExceeded``)."""
        status = job.status
        if status.start_time is None and not job.spec.suspend:
            status.start_time = datetime.fromtimestamp(now, timezone.utc)
            job.mark_set("status")
        deadline = self._deadline(job)
        return JobSync(job=job.key, retry_at=max(deadline, now) if deadline is not None and not _finished(job)
                       else None)

    def pod_succeeded(self, pod: Pod, now: float) -> JobSync:
        """``pod`` (no longer in the cluster) ended in phase ``Succeeded``: counted, and the next
        pods of its Job created; nothing when the pod has no Job or the Job is finished."""
        job = _owner(self.cluster, pod)
        if job is None or _finished(job):
            return JobSync()
        self._remember(pod)
        status = job.status
        status.succeeded = (status.succeeded or 0) + 1
        index = pod.metadata.annotations.get(JOB_COMPLETION_INDEX)
        if job.spec.completion_mode == "Indexed" and index is not None and index.isdigit():
            status.completed_indexes = format_indexes(parse_indexes(status.completed_indexes) | {int(index)})
        self.backoff.pop(job.key, None)  # a success starts the failure count again
        return self.sync(job, now)

    def pod_terminating(self, pod: Pod, now: float) -> JobSync:
        """``pod`` was deleted and is terminating (a preemption victim, an evicted pod): with
        ``podReplacementPolicy: TerminatingOrFailed`` (the default without a ``podFailurePolicy``)
        the Job replaces it at once; with ``Failed``, once it has failed (:meth:`pod_failed`)."""
        job = _owner(self.cluster, pod)
        if job is None or _finished(job) or replacement_policy(job) == "Failed":
            return JobSync()
        return self.sync(job, now)

    def pod_failed(self, pod: Pod, now: float) -> JobSync:
        """``pod`` (no longer in the cluster) ended in phase ``Failed``: the first rule of the Job's
        ``podFailurePolicy`` it matches decides (``Ignore``: not counted; ``FailJob``: the Job
        fails), else it is counted in ``status.failed``, and past ``backoffLimit`` (6) failures
        the Job fails (``BackoffLimitExceeded``). Otherwise the Job replaces it, once the pod
        failure backoff (10 s, doubled for each failure since the last success, at most 6 min)
        has passed since the failure."""
        job = _owner(self.cluster, pod)
        if job is None or _finished(job):
            return JobSync()
        self._remember(pod)
        rule = _matching_rule(job, pod)
        action = rule[1].action if rule is not None else "Count"
        if action != "Ignore":
            job.status.failed = (job.status.failed or 0) + 1
            failures, _ = self.backoff.get(job.key, (0, now))
            self.backoff[job.key] = (failures + 1, now)
        if action == "FailJob" and rule is not None:
            return self._fail(job, now, REASON_POD_FAILURE_POLICY, _rule_message(pod, *rule))
        limit = 6 if job.spec.backoff_limit is None else job.spec.backoff_limit
        if (job.status.failed or 0) > limit:
            return self._fail(job, now, REASON_BACKOFF_LIMIT_EXCEEDED, "Job has reached the specified backoff limit")
        return self.sync(job, now)

    def sync(self, job: Job, now: float) -> JobSync:
        """The Job's pods as its controller keeps them at ``now``: pods started while completions
        remain (unless the pod failure backoff holds them back), the Job completed once they have."""
        out = JobSync(job=job.key)
        if _finished(job):
            return out
        deadline = self._deadline(job)
        if deadline is not None and now >= deadline:
            return self._fail(job, now, REASON_DEADLINE_EXCEEDED, "Job was active longer than specified deadline")
        ns = job.metadata.namespace or "default"
        pods = namespace_pods(self.cluster, ns)
        taken = self.taken.setdefault(ns, set())
        taken.update(p.metadata.name or "" for p in pods)
        status = job.status
        owned = owned_pods(job, pods)
        active = active_pods(owned)
        running = len(active) + (len(terminating_pods(owned)) if replacement_policy(job) == "Failed" else 0)
        if not _completions_reached(job, len(active)) and pods_lacking(job, running) > 0:
            wait = self._backoff_left(job.key, now)
            if wait > 0:  # (a sync then: upstream requeues the Job for the time left)
                out.retry_at = now + wait
            else:
                # the names' suffixes: a source of their own for each sync, fixed by the seed
                rng = random.Random(f"kschedlab/{self.seed}/Job/{job.key}/{status.succeeded}/{status.failed}")
                # a Job in workload-aware scheduling puts its new pods in the PodGroup it manages
                scheduling = [*self.cluster.of_kind("Workload"), *self.cluster.of_kind("PodGroup")]
                group, made_now = job_pod_group(job, [job, *scheduling], self.seed, owned)
                group = None if made_now else group  # only a Job that never started gets a new one
                for new in expand_job(job, pods, self.seed, taken=taken, rng=rng,
                                      pod_group=group.name if group is not None else None,
                                      count_terminating=replacement_policy(job) == "Failed"):
                    admitted = admit_created(self.cluster, job, [new], self.gates)
                    if admitted is None:  # the controller stops at a refused create
                        break
                    out.created.extend(admitted)
        status.active = len(active) + sum(isinstance(o, Pod) for o in out.created)
        if _completions_reached(job, status.active):
            when = datetime.fromtimestamp(now, timezone.utc)
            status.conditions = [*status.conditions, *_conditions(("SuccessCriteriaMet", "Complete"), when,
                                                                   COMPLETIONS_REACHED,
                                                                   "Reached expected number of succeeded pods")]
            status.completion_time = when
            self.cluster.events.append(ControllerEvent(f"Job {job.key}", "Normal", "Completed", "Job completed",
                                                       "job-controller"))
        job.mark_set("status")
        return out

    @staticmethod
    def _deadline(job: Job) -> float | None:
        start, seconds = job.status.start_time, job.spec.active_deadline_seconds
        return None if start is None or seconds is None else start.timestamp() + seconds

    def _backoff_left(self, key: str, now: float) -> float:
        failures, last = self.backoff.get(key, (0, now))
        if failures == 0:
            return 0.0
        delay = min(DEFAULT_POD_FAILURE_BACKOFF * float(2 ** (failures - 1)), MAX_POD_FAILURE_BACKOFF)
        return max(0.0, last + delay - now)

    def _fail(self, job: Job, now: float, reason: str, message: str) -> JobSync:
        # FailureTarget, then Failed once the active pods it deletes are gone (here: at once)
        when = datetime.fromtimestamp(now, timezone.utc)
        job.status.conditions = [*job.status.conditions, *_conditions(("FailureTarget", "Failed"), when, reason,
                                                                       message)]
        ns = job.metadata.namespace or "default"
        pods = namespace_pods(self.cluster, ns)
        deletes = [p.key for p in active_pods(owned_pods(job, pods))]
        job.status.active = 0
        job.mark_set("status")
        self.cluster.events.append(ControllerEvent(f"Job {job.key}", "Warning", reason, message, "job-controller"))
        return JobSync(deletes=deletes, job=job.key)

    def _remember(self, pod: Pod) -> None:
        self.taken.setdefault(pod.metadata.namespace or "default", set()).add(pod.metadata.name or "")


def replacement_policy(job: Job) -> str:
    """``spec.podReplacementPolicy``, defaulted as the API server does: ``Failed`` with a
    ``podFailurePolicy``, else ``TerminatingOrFailed``."""
    if job.spec.pod_replacement_policy:
        return job.spec.pod_replacement_policy
    return "Failed" if job.spec.pod_failure_policy is not None else "TerminatingOrFailed"


def _conditions(types: tuple[str, ...], when: datetime, reason: str, message: str) -> list[JobCondition]:
    return [JobCondition(type=t, status="True", reason=reason, message=message, last_probe_time=when,
                         last_transition_time=when) for t in types]


def _matching_rule(job: Job, pod: Pod) -> tuple[int, PodFailurePolicyRule] | None:
    """The first rule of the Job's ``podFailurePolicy`` the failed pod matches, with its index: a
    container's exit code (``onExitCodes``, containers that exited 0 never match) or one of the
    pod's conditions (``onPodConditions``, ``status`` ``True`` unless given)."""
    policy = job.spec.pod_failure_policy
    if policy is None:
        return None
    conditions = {(c.type, c.status) for c in pod.status.conditions}
    for i, rule in enumerate(policy.rules):
        codes = rule.on_exit_codes
        if codes is not None and _exit_code_match(pod, codes) is not None:
            return i, rule
        if any((pattern.type, pattern.status or "True") in conditions for pattern in rule.on_pod_conditions):
            return i, rule
    return None


def _exit_code_match(pod: Pod, codes: Any) -> tuple[str, int] | None:
    for status in [*pod.status.init_container_statuses, *pod.status.container_statuses]:
        terminated = status.state.terminated if status.state is not None else None
        if terminated is None or not terminated.exit_code:
            continue
        if codes.container_name and codes.container_name != status.name:
            continue
        inside = terminated.exit_code in codes.values
        if inside == (codes.operator == "In"):
            return status.name or "", terminated.exit_code
    return None


def _rule_message(pod: Pod, index: int, rule: PodFailurePolicyRule) -> str:
    """The message of a Job a ``FailJob`` rule failed, worded as the controller words it."""
    match = _exit_code_match(pod, rule.on_exit_codes) if rule.on_exit_codes is not None else None
    if match is not None:
        return (f"Container {match[0]} for pod {pod.key} failed with exit code {match[1]} matching {rule.action} "
                f"rule at index {index}")
    conditions = {(c.type, c.status) for c in pod.status.conditions}
    kind = next(p.type for p in rule.on_pod_conditions if (p.type, p.status or "True") in conditions)
    return f"Pod {pod.key} has condition {kind} matching {rule.action} rule at index {index}"


def _owner(cluster: Any, pod: Pod) -> Job | None:
    ref = pod.metadata.controller_ref()
    if ref is None or ref.kind != "Job":
        return None
    job = cluster.get("Job", f"{pod.metadata.namespace or 'default'}/{ref.name}")
    return job if job is not None and (not ref.uid or ref.uid == job.metadata.uid) else None


def _finished(job: Job) -> bool:
    return any(c.type in ("Complete", "Failed") and c.status == "True" for c in job.status.conditions)


def _completions_reached(job: Job, active: int) -> bool:
    """Whether ``job`` is complete with ``active`` pods still running: its completions succeeded
    (Indexed: every index), or, without completions, a pod succeeded and none runs."""
    succeeded = job.status.succeeded or 0
    if job.spec.completions is None:
        return succeeded > 0 and active == 0
    if job.spec.completion_mode == "Indexed":
        return len(parse_indexes(job.status.completed_indexes)) >= job.spec.completions
    return succeeded >= job.spec.completions


def _completions_column(job: Job) -> str:
    # kubectl's COMPLETIONS: "2/6"; a work queue's "0/1 of 3" (its parallelism)
    succeeded, spec = job.status.succeeded or 0, job.spec
    if spec.completions is not None:
        return f"{succeeded}/{spec.completions}"
    return f"{succeeded}/1 of {spec.parallelism}" if (spec.parallelism or 0) > 1 else f"{succeeded}/1"


def jobs_summary(cluster: Any) -> list[dict[str, Any]]:
    """One row per Job, as ``kubectl get jobs`` and ``describe`` read it: ``COMPLETIONS`` (succeeded /
    completions), the active and failed pods, the Job's state and, once it ended, ``completionTime``."""
    rows = []
    for job in cluster.of_kind("Job"):
        spec, status = job.spec, job.status
        ended = [c.type for c in status.conditions if c.type in ("Complete", "Failed") and c.status == "True"]
        state = ended[0] if ended else "Suspended" if spec.suspend else "Running"
        done = status.completion_time
        rows.append({"job": job.key, "completions": _completions_column(job),
                     "active": status.active if status.active is not None else
                     len(active_pods(owned_pods(job, list(cluster.pods.values())))),
                     "failed": status.failed or 0, "state": state,
                     "completionTime": done.timestamp() if done is not None else None})
    return rows
