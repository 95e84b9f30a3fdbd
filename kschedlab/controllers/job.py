"""What the Job controller does as a Job's pods finish (upstream ``pkg/controller/job``).

A load creates a Job's first pods (:func:`~kschedlab.controllers.workloads.expand_job`: ``parallelism``
of them, no more than its completions). In a simulation a pod given a run time ends in phase
``Succeeded``; :class:`JobController` is the controller's answer: it counts the pod in
``status.succeeded`` (an Indexed Job also its index in ``status.completedIndexes``), starts pods while
completions remain (so a Job of 6 completions and parallelism 2 runs in three waves), and once its
completions have succeeded adds the conditions ``SuccessCriteriaMet`` and ``Complete`` (reason
``CompletionsReached``), sets ``completionTime`` and records the ``Completed`` event. A Job without
``completions`` (a work queue) starts no pod after its first success and completes when its last pod
ends. Pods that fail (an OOM kill, an eviction) are not replaced here.

>>> from datetime import datetime, timezone
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
>>> [p.metadata.generate_name for p in jobs.pod_succeeded(first, datetime.now(timezone.utc))]
['pi-']
>>> job = cluster.get("Job", "default/pi")
>>> job.status.succeeded, job.status.active
(1, 2)
"""

from __future__ import annotations

import random
from datetime import datetime
from typing import Any

from ..api.batch import Job, JobCondition
from ..api.core import Pod
from ..api.meta import TypedObject
from ..apiserver.apply import ControllerEvent
from .created import admit_created
from .pod_templates import JOB_COMPLETION_INDEX
from .workloads import active_pods, expand_job, owned_pods, parse_indexes

__all__ = ["JobController", "format_indexes", "jobs_summary"]

#: the reason of both terminal conditions of a Job whose completions succeeded
COMPLETIONS_REACHED = "CompletionsReached"


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


class JobController:
    """The Job controller, told of each pod of a Job that succeeded. ``seed`` names the pods it
    creates; ``gates`` (FeatureGates or overrides) is what they are admitted with."""

    def __init__(self, cluster: Any, *, seed: int = 0, gates: Any = None):
        self.cluster, self.seed, self.gates = cluster, seed, gates
        #: names of pods the controller has seen, per namespace: a new pod never takes one
        self.taken: dict[str, set[str]] = {}

    def pod_succeeded(self, pod: Pod, now: datetime) -> list[TypedObject]:
        """``pod`` (no longer in the cluster) ended in phase ``Succeeded`` at ``now``: the pods its
        Job creates, admitted, in order; nothing when the pod has no Job or the Job is complete."""
        job = _owner(self.cluster, pod)
        if job is None or _finished(job):
            return []
        ns = job.metadata.namespace or "default"
        pods = [p for p in self.cluster.pods.values() if (p.metadata.namespace or "default") == ns]
        taken = self.taken.setdefault(ns, set())
        taken.update(p.metadata.name or "" for p in pods)
        taken.add(pod.metadata.name or "")
        status = job.status
        status.succeeded = (status.succeeded or 0) + 1
        index = pod.metadata.annotations.get(JOB_COMPLETION_INDEX)
        if job.spec.completion_mode == "Indexed" and index is not None and index.isdigit():
            status.completed_indexes = format_indexes(parse_indexes(status.completed_indexes) | {int(index)})
        made: list[TypedObject] = []
        active = active_pods(owned_pods(job, pods))
        if not _completions_reached(job, len(active)):
            # the names' suffixes: a source of their own for each success, fixed by the seed
            rng = random.Random(f"kschedlab/{self.seed}/Job/{job.key}/succeeded={status.succeeded}")
            for new in expand_job(job, pods, self.seed, taken=taken, rng=rng):
                admitted = admit_created(self.cluster, job, [new], self.gates)
                if admitted is None:  # the controller stops at a refused create
                    break
                made.extend(admitted)
        status.active = len(active) + sum(isinstance(o, Pod) for o in made)
        if _completions_reached(job, status.active):
            condition = {"status": "True", "reason": COMPLETIONS_REACHED,
                         "message": "Reached expected number of succeeded pods", "lastTransitionTime": now,
                         "lastProbeTime": now}
            status.conditions = [*status.conditions, JobCondition.model_validate({"type": "SuccessCriteriaMet",
                                                                                  **condition}),
                                 JobCondition.model_validate({"type": "Complete", **condition})]
            status.completion_time = now
            self.cluster.events.append(ControllerEvent(f"Job {job.key}", "Normal", "Completed", "Job completed",
                                                       "job-controller"))
        job.mark_set("status")
        return made


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
    """One row per Job, as ``kubectl get jobs`` reads it: ``COMPLETIONS`` (succeeded / completions),
    the active pods, the Job's state and, once complete, ``completionTime``."""
    rows = []
    for job in cluster.of_kind("Job"):
        spec, status = job.spec, job.status
        state = ("Complete" if _finished(job) else "Suspended" if spec.suspend else "Running")
        done = status.completion_time
        rows.append({"job": job.key, "completions": _completions_column(job),
                     "active": status.active if status.active is not None else
                     len(active_pods(owned_pods(job, list(cluster.pods.values())))),
                     "state": state, "completionTime": done.timestamp() if done is not None else None})
    return rows
