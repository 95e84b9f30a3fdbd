"""The PodGroup scheduling cycle (upstream ``scheduleOnePodGroup``,
``schedule_one_podgroup.go``): one attempt for a whole group or CompositePodGroup hierarchy.

1. check the group against the cluster (the hierarchy did not change shape since it was
   queued) and validate it (one scheduler name, the root's priority and preemption policy)
   — a failure rejects every pod with a SchedulerError; then drop pods being deleted or
   already assumed;
2. run :class:`~kschedlab.scheduler.podgroup.algorithm.PodGroupAlgorithm` on the snapshot (it leaves
   the snapshot as it found it);
3. when the root is Unschedulable (and GenericWorkload is on), run PodGroupPostFilter
   (workload-aware preemption), which
   may nominate the pods and evict victims; the pods still go back to the queue;
4. submit atomically: on success the placed pods are assumed and go through Reserve,
   Permit and binding; pods not placed and every pod of a failed group are rejected with
   the pod's own reason (it did not fit) or the group's; each PodGroup's
   ``PodGroupInitiallyScheduled`` condition is updated (CompositePodGroups keep theirs
   empty, as v1.37 does).

>>> from kschedlab.cluster import Cluster
>>> from kschedlab.api.loader import load_text
>>> from kschedlab.scheduler.schedule_one import Scheduler
>>> cluster = Cluster(load_text('''
... apiVersion: v1
... kind: Node
... metadata: {name: n1}
... status: {allocatable: {cpu: "2", pods: "110"}}
... ---
... apiVersion: scheduling.k8s.io/v1beta1
... kind: PodGroup
... metadata: {name: train, namespace: ml}
... spec: {schedulingPolicy: {gang: {minCount: 3}}}
... ''' + "".join(f'''---
... apiVersion: v1
... kind: Pod
... metadata: {{name: w{i}, namespace: ml}}
... spec:
...   schedulingGroup: {{podGroupName: train}}
...   containers: [{{name: c, resources: {{requests: {{cpu: "1"}}}}}}]
... ''' for i in range(3))))
>>> out = Scheduler(cluster, gates={"GenericWorkload": True}).schedule_pod_group("podgroup/ml/train")
>>> print(out.status.message())
minCount (3) cannot be satisfied: 2 scheduled, 0 remaining, pod group preemption: No preemption victims found for incoming preemptor
>>> [r.node for r in out.pod_results], cluster.snapshot.pod_row
([None, None, None], {})
>>> c = cluster.objects["PodGroup"]["ml/train"].condition(); c.status, c.reason
('False', 'Unschedulable')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone

from kschedlab.framework import podgroups as pgstate
from kschedlab.framework.interface import CycleState
from kschedlab.framework.status import Code, Status
from kschedlab.scheduler.podgroup import conditions as cond
from kschedlab.scheduler.podgroup.algorithm import GroupResult, PodGroupAlgorithm, PodGroupInfo, PodResult
from kschedlab.scheduler.podgroup.cycle_validation import validate_hierarchy
from kschedlab.scheduler.result import ScheduleResult

__all__ = ["PodGroupCycleResult", "schedule_pod_group", "reconcile", "skip_pod_group_pods", "submit_pod_group_result"]

GATE_COMPOSITE = "CompositePodGroup"
GATE_GENERIC_WORKLOAD = "GenericWorkload"
GATE_PREEMPTION_POLICY = "PodGroupPreemptionPolicy"


@dataclass
class PodGroupCycleResult:
    """What one PodGroup cycle did: the root's ``status``, every group's result, one
    :class:`~kschedlab.scheduler.result.ScheduleResult` per queued pod (bound, waiting or
    rejected) and the algorithm's step ``log``."""

    root: PodGroupInfo
    status: Status
    groups: dict[str, GroupResult] = field(default_factory=dict)
    pod_results: list = field(default_factory=list)
    log: list[dict] = field(default_factory=list)
    waiting_on_preemption: bool = False
    post_filter: Status | None = None
    #: pod results the algorithm itself gave (it may stop early; the cycle fails the rest)
    algorithm_pod_results: int = 0

    @property
    def scheduled(self) -> bool:
        return self.status.is_success()

    def placements(self) -> dict[str, str | None]:
        """Pod key -> node it was bound to (None when it was not)."""
        return {r.pod: r.node for r in self.pod_results}


def reconcile(cluster, info: PodGroupInfo, composite: bool) -> str | None:
    """``reconcilePodGroupWithSnapshot``: the queued hierarchy must still have the cluster's
    shape (same parents, same number of children); returns the error or None."""
    kind, ns, name = pgstate.parse_key(info.key)
    if kind == "compositepodgroup":
        obj = pgstate.get_composite_pod_group(cluster, ns, name)
        if obj is None:
            return f'compositepodgroup.scheduling.k8s.io "{name}" not found'
        if info.obj is not None and obj.spec.parent_composite_pod_group_name != info.obj.spec.parent_composite_pod_group_name:
            return (f"different parent in composite pod group between snapshot "
                    f"({obj.spec.parent_composite_pod_group_name or '[unset]'}) and queued entity "
                    f"({info.obj.spec.parent_composite_pod_group_name or '[unset]'})")
        now = pgstate.children(cluster, info.key)
        if len(now) != len(info.children):
            return (f"different number of children in composite pod group between snapshot ({len(now)}) and "
                    f"queued entity ({len(info.children)})")
        for child in info.children:
            error = reconcile(cluster, child, composite)
            if error:
                return error
        info.obj = obj
        return None
    obj = pgstate.get_pod_group(cluster, ns, name)
    if obj is None:
        return f'podgroup.scheduling.k8s.io "{name}" not found'
    if composite and info.obj is not None and obj.spec.parent_composite_pod_group_name != \
            info.obj.spec.parent_composite_pod_group_name:
        return (f"different parent in pod group between snapshot ({obj.spec.parent_composite_pod_group_name or '[unset]'})"
                f" and queued entity ({info.obj.spec.parent_composite_pod_group_name or '[unset]'})")
    info.obj = obj
    return None


def _now(scheduler) -> datetime:
    return datetime.fromtimestamp(scheduler.clock(), timezone.utc)


def skip_pod_group_pods(cluster, info: PodGroupInfo) -> None:
    """``skipPodGroupPodSchedule``: pods being deleted or already assumed leave the cycle."""
    rows = cluster.snapshot.pod_row
    for leaf in info.leaves():
        leaf.pods = [pi for pi in leaf.pods if pi.key in cluster.pods and pi.key not in rows
                     and not cluster.pods[pi.key].spec.node_name
                     and cluster.pods[pi.key].metadata.deletion_timestamp is None]


def schedule_pod_group(scheduler, root: PodGroupInfo | str, pod_keys=None) -> PodGroupCycleResult:
    """One PodGroup scheduling cycle for ``root`` (a key — its hierarchy is read from the
    cluster — or a :class:`PodGroupInfo` built earlier, e.g. when the group was queued)."""
    cluster, gates = scheduler.cluster, scheduler.gates
    composite = gates.enabled(GATE_COMPOSITE)
    info = root if isinstance(root, PodGroupInfo) else PodGroupInfo.build(cluster, root, pod_keys, composite)
    scheduler.scheduling_cycle += 1
    error = reconcile(cluster, info, composite)
    states: dict[str, pgstate.PodGroupState] = {}
    if error is None:
        states = {leaf.key: pgstate.pod_group_state(cluster, leaf.namespace, leaf.name) for leaf in info.leaves()}
        error = validate_hierarchy(
            info, lambda leaf: [cluster.pods[k] for k in states[leaf.key].scheduled],
            scheduler.profiles, pod_group_preemption_policy=gates.enabled(GATE_PREEMPTION_POLICY))
    if error is not None:
        status = Status.error(error)
        out = PodGroupCycleResult(info, status)
        for pod_info in info.queued_pods():
            scheduler.set_condition(pod_info.pod, False, "SchedulerError", error)
            out.pod_results.append(scheduler.record(ScheduleResult(pod_info.key, None, status, error)))
        for leaf in info.leaves():
            if leaf.obj is not None:
                cond.update_pod_group_condition(leaf.obj, cond.scheduler_error(error), _now(scheduler))
        return out

    skip_pod_group_pods(cluster, info)
    if not info.queued_pods():
        return PodGroupCycleResult(info, Status())
    fw = scheduler.framework_for(info.queued_pods()[0].pod)
    algorithm = PodGroupAlgorithm(scheduler, fw, {key: st.scheduled_pods_count for key, st in states.items()})
    results = algorithm.run_root(info)
    evaluated = sum(len(r.pods) for r in results.values())
    _complete(info, results, GroupResult(info, results[info.key].status))
    root_result = results[info.key]
    out = PodGroupCycleResult(info, root_result.status, results, log=algorithm.log,
                              algorithm_pod_results=evaluated)

    if root_result.status.code == Code.Unschedulable and fw.points["podGroupPostFilter"] \
            and gates.enabled(GATE_GENERIC_WORKLOAD):
        out.post_filter = _post_filter(scheduler, fw, info, results)
    out.status = root_result.status
    out.waiting_on_preemption = root_result.waiting_on_preemption

    for leaf in info.leaves():
        submit_pod_group_result(scheduler, fw, leaf, results[leaf.key], out)
    return out


def _complete(info: PodGroupInfo, results: dict, parent: GroupResult) -> None:
    """Every group gets a result and every queued pod a status; a failed parent fails its
    children (``completeCompositePodGroupAlgorithmResult``)."""
    result = results.get(info.key)
    if result is None:
        result = results[info.key] = GroupResult(info, parent.status)
    elif not parent.status.is_success() and result.status.is_success():
        result.status = parent.status
    elif parent.status.code == Code.Error and result.status.code != Code.Error:
        result.status = parent.status
    for child in info.children:
        _complete(child, results, result)
    if info.kind == "PodGroup":
        _complete_pods(info, result)


def _complete_pods(info: PodGroupInfo, result: GroupResult) -> None:
    """A status for every queued pod the algorithm left out (the group's), results in queue
    order. The algorithm tries pods in that order, so its results are usually a prefix of
    the queue: then the rest is appended."""
    tried = len(result.pods)
    if all(pr.pod_info is pi for pr, pi in zip(result.pods, info.pods)) and tried <= len(info.pods):
        result.pods.extend(PodResult(pi, None, result.status) for pi in info.pods[tried:])
        return
    done = {pr.key for pr in result.pods}
    result.pods.extend(PodResult(pi, None, result.status) for pi in info.pods if pi.key not in done)
    order = {pi.key: i for i, pi in enumerate(info.pods)}
    result.pods.sort(key=lambda pr: order.get(pr.key, len(order)))


def _post_filter(scheduler, fw, info: PodGroupInfo, results: dict) -> Status:
    """PodGroupPostFilter; ``schedule()`` (upstream's ``podGroupSchedulingFunc``) runs the
    algorithm on the snapshot as the plugin left it and returns ``(assignments, root
    status)``: the :class:`PodResult` of every pod it placed (node and cycle state), in
    the order it placed them."""

    def schedule():
        again = PodGroupAlgorithm(scheduler, fw).run_root(info)
        placed = [pr for r in again.values() for pr in r.pods if pr.status.is_success() and pr.node]
        return placed, again[info.key].status

    result, status = fw.run_pod_group_post_filter(CycleState(), info, info.queued_pods(), schedule)
    if status.code == Code.Error:
        for r in results.values():
            r.status = status
        return status
    if status.is_success():
        nominations = dict(getattr(result, "nominations", None) or {})
        for r in results.values():
            r.waiting_on_preemption = True
            r.nominations = {k: v for k, v in nominations.items() if any(pr.key == k for pr in r.pods)}
    message = status.message()
    if message:
        for r in results.values():
            r.status = Status(r.status.code, (*r.status.reasons, message), r.status.plugin)
    return status


def submit_pod_group_result(scheduler, fw, leaf: PodGroupInfo, result: GroupResult, out: PodGroupCycleResult) -> None:
    """``submitPodGroupAlgorithmResult`` for one PodGroup: bind or reject each pod (a rejected
    pod with a nomination keeps it), then the group's condition."""
    group_status = result.status
    group_error, group_placed = group_status.code == Code.Error, group_status.is_success()
    nominations, pod_results = result.nominations, out.pod_results
    said: dict[int, tuple[str, str]] = {}
    for pr in result.pods:
        pod_info = pr.pod_info
        if group_error:
            status = pr.status if pr.status.code == Code.Error else group_status
            pod_results.append(_reject(scheduler, pod_info, status, pr, said))
            continue
        if pr.status.is_success() and pr.node:
            if group_placed:
                pod_results.append(scheduler.record(
                    scheduler.assume_and_bind(fw, pr.state or CycleState(), pod_info, pr.node, pr.trace)))
                continue
            pod_results.append(_reject(scheduler, pod_info, group_status, pr, said))
        else:
            pod_results.append(_reject(scheduler, pod_info, pr.status, pr, said))
        node = nominations.get(pod_info.key) if nominations else None
        if node:
            scheduler.cluster.nominate(pod_info.key, node)
    if leaf.obj is None:
        return
    message = group_status.message()
    if group_status.is_success():
        condition = cond.scheduled(message)
    elif group_status.is_rejected():
        condition = cond.unschedulable(message)
    else:
        condition = cond.scheduler_error(message)
    cond.update_pod_group_condition(leaf.obj, condition, _now(scheduler))


def _reject(scheduler, pod_info, status: Status, pr: PodResult, said: dict[int, tuple[str, str]]):
    """The failure handler for one pod of the cycle: PodScheduled=False and a recorded result.
    ``said`` keeps the (reason, message) of each status object of one submit (most members of
    a failed group share the group's status), worked out once."""
    words = said.get(id(status))
    if words is None:
        words = said[id(status)] = ("Unschedulable" if status.is_rejected() else "SchedulerError", status.message())
    reason, message = words
    scheduler.set_condition(pod_info.pod, False, reason, message)
    return scheduler.record(ScheduleResult(pod_info.key, None, status, message, pr.trace, pr.diagnosis))
