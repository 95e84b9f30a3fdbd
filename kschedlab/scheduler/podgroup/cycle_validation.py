"""Checks the scheduler runs on a PodGroup before its scheduling cycle (upstream
``Scheduler.validatePodGroup``); a failure rejects every pod of the group with a
SchedulerError before any node is looked at.

Every member pod — the unscheduled ones of this cycle and those already scheduled —
must have the ``.spec.schedulerName`` of the first unscheduled pod and the group's
priority (``spec.priority``, 0 when unset); all pods must share one preemption policy
(with the PodGroupPreemptionPolicy gate: the group's own ``spec.preemptionPolicy``);
and a profile must exist for that scheduler name.

>>> from kschedlab.api.core import Pod
>>> from kschedlab.api.podgroup import PodGroup
>>> pg = PodGroup.model_validate({"metadata": {"name": "pg", "namespace": "ns"}, "spec": {"priority": 10}})
>>> pods = [Pod.model_validate({"metadata": {"name": n, "namespace": "ns"},
...     "spec": {"priority": p, "schedulerName": "s"}}) for n, p in (("p1", 10), ("p2", 9))]
>>> validate_pod_group(pg, pods, [], ["s"])
'all pods in a pod group hierarchy should have the same priority as the root pod group\\'s priority, got 9 ("p2") and 10 ("podgroup/ns/pg")'
>>> validate_pod_group(pg, pods[:1], [], ["other"])
'profile not found for scheduler name "s"'
"""

from __future__ import annotations

from typing import Iterable

from kschedlab.framework.podgroups import DEFAULT_SCHEDULER_NAME, pod_preemption_policy, pod_priority

__all__ = ["validate_pod_group", "validate_hierarchy", "pod_priority", "pod_preemption_policy"]


def _gq(value) -> str:
    """Go's ``%q``."""
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'


def validate_pod_group(pod_group, unscheduled: Iterable, scheduled: Iterable, profiles: Iterable[str], *,
                       pod_group_preemption_policy: bool = False) -> str | None:
    """The error message upstream's ``validatePodGroup`` returns for a single PodGroup, or None.

    ``unscheduled`` are the pods taken into this cycle (in queue order), ``scheduled``
    the group's assumed and assigned pods, ``profiles`` the scheduler names with a profile.
    """
    unscheduled = list(unscheduled)
    root_key = pod_group.group_key
    root_priority = pod_group.priority_value()
    root_policy = pod_group.effective_preemption_policy() if pod_group_preemption_policy else ""
    scheduler_name, first_pod = "", ""
    if unscheduled:
        first = unscheduled[0]
        scheduler_name = first.spec.scheduler_name or ""
        first_pod = first.metadata.name or ""
        if not pod_group_preemption_policy:
            root_policy = pod_preemption_policy(first)

    for pod in [*unscheduled, *scheduled]:
        error = _check_pod(pod, scheduler_name, first_pod, root_priority, root_policy, root_key,
                           pod_group_preemption_policy)
        if error:
            return error
    if scheduler_name not in set(profiles):
        return f"profile not found for scheduler name {_gq(scheduler_name)}"
    return None


def validate_hierarchy(root, scheduled_pods, profiles: Iterable[str], *,
                       pod_group_preemption_policy: bool = False) -> str | None:
    """``validatePodGroup`` over a whole hierarchy: ``root`` is a
    :class:`~kschedlab.scheduler.podgroup.algorithm.PodGroupInfo`; ``scheduled_pods(leaf)`` gives a
    leaf PodGroup's assumed and assigned pods. Every group must have the root's priority
    (and, with PodGroupPreemptionPolicy, its preemption policy); every pod is checked as in
    :func:`validate_pod_group`, against the first queued pod of the hierarchy (a pod without
    ``schedulerName`` has the API default, ``default-scheduler``)."""
    queued = root.queued_pods()
    root_priority = root.obj.priority_value()
    root_policy = root.obj.effective_preemption_policy() if pod_group_preemption_policy else ""
    scheduler_name, first_pod = "", ""
    if queued:
        scheduler_name = queued[0].pod.spec.scheduler_name or DEFAULT_SCHEDULER_NAME
        first_pod = queued[0].pod.metadata.name or ""
        if not pod_group_preemption_policy:
            root_policy = pod_preemption_policy(queued[0].pod)
    for group in root.all_groups():
        priority = group.obj.priority_value()
        if priority != root_priority:
            return (f"all pod groups in a hierarchy should have the same priority as the root pod group's priority, "
                    f"got {priority} ({_gq(group.key)}) and {root_priority} ({_gq(root.key)})")
        if pod_group_preemption_policy and group.obj.effective_preemption_policy() != root_policy:
            return (f"all pod groups in a hierarchy should have the same preemption policy as the root pod group's "
                    f"preemption policy, got {group.obj.effective_preemption_policy()} ({_gq(group.key)}) and "
                    f"{root_policy} ({_gq(root.key)})")
        if group.kind != "PodGroup":
            continue
        for pod in [*(pi.pod for pi in group.pods), *scheduled_pods(group)]:
            error = _check_pod(pod, scheduler_name, first_pod, root_priority, root_policy, root.key,
                               pod_group_preemption_policy, DEFAULT_SCHEDULER_NAME)
            if error:
                return error
    if scheduler_name not in set(profiles):
        return f"profile not found for scheduler name {_gq(scheduler_name)}"
    return None


def _check_pod(pod, scheduler_name, first_pod, root_priority, root_policy, root_key, ppp: bool,
               default_name: str = "") -> str | None:
    name = pod.metadata.name or ""
    pod_scheduler = pod.spec.scheduler_name or default_name
    if pod_scheduler != scheduler_name:
        return (f"all pods in a pod group hierarchy should have the same .spec.schedulerName set, got: "
                f"{_gq(pod_scheduler)} ({_gq(name)}) and {_gq(scheduler_name)} ({_gq(first_pod)})")
    if pod_priority(pod) != root_priority:
        return (f"all pods in a pod group hierarchy should have the same priority as the root pod group's "
                f"priority, got {pod_priority(pod)} ({_gq(name)}) and {root_priority} ({_gq(root_key)})")
    policy = pod_preemption_policy(pod)
    if policy != root_policy:
        if ppp:
            return (f"all pods in a pod group hierarchy should have the same preemption policy as the root "
                    f"pod group's preemption policy, got {policy} ({_gq(name)}) and {root_policy} ({_gq(root_key)})")
        return (f"all pods in a pod group hierarchy should have the same preemption policy, got {policy} "
                f"({_gq(name)}) and {root_policy} ({_gq(first_pod)})")
    return None
