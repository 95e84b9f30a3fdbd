"""The scheduling loop run to quiescence (upstream ``Scheduler.Run``: ``scheduleOne`` over the
scheduling queue until nothing is left to try).

The pending pods enter a :class:`~kschedlab.queue.SchedulingQueue` (PreEnqueue first: pods with
scheduling gates, or in a gang below its ``minCount``, wait there gated), and the loop pops one
pod at a time, as kube-scheduler does:

* a pod that fails goes back with the plugins that rejected it; cluster events — a pod bound,
  a victim of preemption deleted — move it on when a rejecting plugin's QueueingHint says
  Queue, so a preemptor is retried after its victims are gone and binds on its nominated node;
* a pod of a PodGroup (PodGroup cycle on) takes the group's other queued pods along;
* backoff runs on a virtual clock that jumps ahead when only backing-off pods are left; a pod
  still in the unschedulable pool is retried once more — as the 5-minute leftover flush would
  — only when the cluster changed since its last attempt (otherwise it would fail the same way),
  and the same holds for a pod backing off after an error (e.g. no nodes at all);
  pods waiting at Permit time out as the 5-minute wait would;
* victims of preemption are deleted at once (their grace period treated as over);
* each pod gets at most ``max_attempts`` attempts (:data:`DEFAULT_MAX_ATTEMPTS`); a pod that
  reaches the bound stays where it is and the run lists it in ``RunResult.stopped``.

``once=True`` gives every queued pod exactly one attempt, in queue order, and stops.

>>> from kschedlab.cluster import Cluster
>>> from kschedlab.api.loader import load_text
>>> from kschedlab.scheduler.schedule_one import Scheduler
>>> cluster = Cluster(load_text('''
... apiVersion: v1
... kind: Node
... metadata: {name: n1}
... status: {allocatable: {cpu: "2", pods: "110"}}
... ---
... apiVersion: v1
... kind: Pod
... metadata: {name: low, namespace: default}
... spec: {nodeName: n1, containers: [{name: c, resources: {requests: {cpu: "2"}}}]}
... ---
... apiVersion: v1
... kind: Pod
... metadata: {name: high, namespace: default}
... spec: {priority: 1000, containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
... '''))
>>> run = Scheduler(cluster).run()
>>> [(p.name, p.pod_status, p.node, p.attempts, p.preempted_by) for p in run.pods]
[('default/high', 'Running', 'n1', 2, None), ('default/low', 'Terminating', 'n1', 0, 'default/high')]
>>> run.pods[0].last_failure
'0/1 nodes are available: 1 Insufficient cpu.'
"""

from __future__ import annotations

from datetime import datetime, timezone

from kschedlab.api.pod_update import pod_phase_display
from kschedlab.framework.events import EVENT_ASSIGNED_POD_DELETE, EVENT_UNSCHEDULABLE_TIMEOUT
from kschedlab.framework.status import Code
from kschedlab.framework.types import pod_key
from kschedlab.plugins.gang_scheduling import permit_timeout_message
from kschedlab.queue import BACKOFF, SchedulingQueue, framework_hints
from kschedlab.scheduler.result import PodReport, RunResult, ScheduleResult, Victim

#: the most scheduling attempts one pod gets in a run of the loop (``--max-attempts``)
DEFAULT_MAX_ATTEMPTS = 20

#: virtual time one queue insertion or one attempt takes, so that pods keep their insertion
#: order as tie-breaker (upstream's timestamps are taken from the wall clock)
_TICK = 1e-6


class SchedulingLoop:
    """One run of the scheduling loop over ``scheduler``'s cluster (see the module docstring)."""

    def __init__(self, scheduler, *, once: bool = False, max_attempts: int | None = DEFAULT_MAX_ATTEMPTS):
        if max_attempts is not None and max_attempts < 1:
            raise ValueError(f"max_attempts must be at least 1, got {max_attempts}")
        self.scheduler = scheduler
        self.cluster = scheduler.cluster
        self.once = once
        self.max_attempts = max_attempts
        self.now = 0.0
        first = next(iter(scheduler.profiles.values()))
        hints = {name: framework_hints(fw) for name, fw in scheduler.profiles.items()}
        self.queue = SchedulingQueue(first.less, pre_enqueue=self._pre_enqueue, hints=hints,
                                     clock=lambda: self.now, gates=scheduler.gates)
        self.attempts: dict[str, int] = {}
        self.total_attempts = 0
        #: cluster changes (binds, deletions) so far, and the count when each pod's last attempt began
        self.changes = 0
        self._attempt_mark: dict[str, int] = {}
        self.last: dict[str, ScheduleResult] = {}
        self.last_failure: dict[str, str] = {}
        self.victims: dict[str, Victim] = {}
        self._victim_pods: dict = {}
        self.preemptions: dict[str, list[Victim]] = {}
        self.stopped: list[str] = []
        self._preemptor: str | None = None
        self._waiting_qpi: dict = {}
        #: pods in the order of their first recorded result, and every result in order
        self._seen: list[str] = []
        self.history: list[ScheduleResult] = []

    # -- hooks into the scheduler -------------------------------------------------------------
    def _pre_enqueue(self, pod_info):
        return self.scheduler.framework_for(pod_info.pod).run_pre_enqueue(pod_info)

    def _on_bound(self, key: str, node: str) -> None:
        self.changes += 1
        qpi = self._waiting_qpi.pop(key, None)
        if qpi is not None:  # a Permit wait ended with the pod allowed
            self.queue.done(key)
        self.queue.assigned_pod_added(self.cluster.pod_infos[key])

    def _on_result(self, result: ScheduleResult) -> None:
        key = result.pod
        self.history.append(result)
        if key not in self.last:
            self._seen.append(key)
        self.last[key] = result
        if result.node is None and result.status.code != Code.Wait and not result.gated:
            self.last_failure[key] = result.message
        if result.node is None and result.status.code != Code.Wait and key in self._waiting_qpi:
            self._failed(self._waiting_qpi.pop(key), result)  # rejected while waiting at Permit

    def _delete_victim(self, key: str, victim_info) -> None:
        """A victim of preemption: deleted now (its grace period treated as over)."""
        pod = self.cluster.pods.get(key)
        if pod is None:
            return
        node = pod.spec.node_name
        clock = self.scheduler.clock
        self.cluster.mark_terminating(key, datetime.fromtimestamp(clock(), timezone.utc))
        info = self.cluster.pod_infos[key]
        self.cluster.remove_pod(key)
        self.changes += 1
        victim = Victim(key, node, self._preemptor or "")
        self.victims[key] = victim
        self._victim_pods[key] = pod
        self.preemptions.setdefault(victim.preempted_by, []).append(victim)
        if node:
            self.queue.assigned_pod_deleted(info)
        else:
            self.queue.unscheduled_pod_deleted(info)

    # -- the loop ---------------------------------------------------------------------------------------
    def run(self, keys=None) -> RunResult:
        """Queue the pending pods (all, or ``keys``), schedule until quiescence, report."""
        sched = self.scheduler
        order = [q.pod_info.key for q in sched.queue(keys)]
        saved = {}
        for name, fw in sched.profiles.items():
            saved[name] = {k: fw.handle.extra.get(k) for k in ("delete_pod", "activate")}
            fw.handle.extra["delete_pod"] = self._delete_victim
            fw.handle.extra["activate"] = self.queue.activate
        sched.on_bound.append(self._on_bound)
        sched.on_result.append(self._on_result)
        try:
            for key in order:
                self.now += _TICK
                self.queue.add(self.cluster.pod_infos[key])
            while True:
                self.queue.flush()
                qpi = self.queue.pop()
                if qpi is not None:
                    self.now += _TICK
                    self._attempt(qpi)
                elif not self._advance():
                    break
            gated = self._record_gated(order)
        finally:
            sched.on_bound.remove(self._on_bound)
            sched.on_result.remove(self._on_result)
            for name, fw in sched.profiles.items():
                for k, v in saved[name].items():
                    if v is None:
                        fw.handle.extra.pop(k, None)
                    else:
                        fw.handle.extra[k] = v
        return self._report(order, gated)

    def _advance(self) -> bool:
        """Nothing can be popped: let time pass if that changes something; False = quiescent."""
        if self.once:
            return False
        backoff = self.queue.pending()[BACKOFF]
        if any(self._stale(k) for k in backoff):  # let the backoff pass (pods that saw this cluster stay)
            wakeup = self.queue.next_wakeup()
            if wakeup is not None and wakeup > self.now:
                self.now = wakeup
            self.queue.flush_backoff_completed()
            return True
        if self._waiting_qpi:
            self._expire_permits()
            return True
        stale = {k for k in self.queue.pending()["unschedulable"] if self._stale(k)}
        if stale:
            self.queue.move_all_to_active_or_backoff(EVENT_UNSCHEDULABLE_TIMEOUT, None, None,
                                                     lambda pod: pod_key(pod) in stale)
            for k in stale:
                self._attempt_mark[k] = self.changes
            return True
        return False

    def _stale(self, key: str) -> bool:
        """The cluster changed since the pod's last attempt began (another attempt may end otherwise)."""
        return self._attempt_mark.get(key, -1) < self.changes and key not in self.stopped

    def _expire_permits(self) -> None:
        """The pods waiting at Permit time out (their 5-minute wait passes)."""
        for key in list(self._waiting_qpi):
            waits = self.scheduler.waiting[key][-1]
            plugin = min(waits, key=waits.get)
            pod = self.cluster.pods[key]
            self.scheduler.reject(key, plugin, permit_timeout_message(waits[plugin], plugin))
            self.changes += 1  # the assumed pod is forgotten: its node has room again
            # forgetting the assumed pod frees its node: an AssignedPodDelete for the others
            self.queue.move_all_to_active_or_backoff(EVENT_ASSIGNED_POD_DELETE, pod, None,
                                                     lambda p, key=key: pod_key(p) != key)

    def _count(self, key: str) -> None:
        self.attempts[key] = self.attempts.get(key, 0) + 1
        self.total_attempts += 1
        self._attempt_mark[key] = self.changes

    def _attempt(self, qpi) -> None:
        key = qpi.pod_info.key
        group = self.scheduler.pod_group_of(key)
        if group is not None:
            self._attempt_group(qpi, group)
            return
        self._preemptor = key
        self._count(key)
        result = self.scheduler.schedule_one(key)
        self._preemptor = None
        if result.node is not None:
            self.queue.done(key)
        elif result.status.code == Code.Wait:  # in flight until the Permit wait ends
            self._waiting_qpi[key] = qpi
        else:
            self._failed(qpi, result)

    def _attempt_group(self, qpi, group: str) -> None:
        """A PodGroup cycle: the popped pod takes the group's other queued (not gated) pods
        along; a scheduled group's left-out pods go straight back to activeQ, every pod of a
        failed group goes back remembering what rejected any of them."""
        order, popped = pop_group_members(self.scheduler, self.queue, qpi, group)
        for key in popped:
            self._count(key)
        self._preemptor = group
        out = self.scheduler.schedule_pod_group(group, order)
        self._preemptor = None
        plugins = rejecting_plugins(out.pod_results)
        for result in out.pod_results:
            q = popped.pop(result.pod)
            if result.node is not None:
                self.queue.done(result.pod)
            elif result.status.code == Code.Wait:
                self._waiting_qpi[result.pod] = q
            elif out.status.is_success() and not self.once:
                self.queue.return_to_active(q)
            else:
                self._failed(q, result, plugins)
        for key in popped:  # left out of the cycle (being deleted or already assumed)
            self.queue.done(key)

    def _failed(self, qpi, result: ScheduleResult, plugins: set[str] | None = None) -> None:
        """Back to the queue after a failed attempt, unless this is a single pass or the pod
        reached the attempt bound."""
        key = qpi.key
        if self.once:
            self.queue.done(key)
            return
        if self.max_attempts is not None and self.attempts.get(key, 0) >= self.max_attempts:
            if key not in self.stopped:
                self.stopped.append(key)
            self.queue.done(key)
            return
        if plugins is None:
            plugins = set(result.diagnosis.unschedulable_plugins) if result.diagnosis else set()
            if not plugins and result.status.plugin:
                plugins = {result.status.plugin}
        self.queue.add_unschedulable_if_not_present(qpi, plugins, error=result.status.code == Code.Error)

    # -- the outcome --------------------------------------------------------------------------------------
    def _record_gated(self, order: list[str]) -> set[str]:
        """A result for every pod still held back by PreEnqueue (it never had an attempt)."""
        gated = set()
        for key in order:
            qpi = self.queue.get(key)
            if qpi is None or not qpi.gated or key not in self.cluster.pods:
                continue
            status = self._pre_enqueue(self.cluster.pod_infos[key])
            if status.is_success():
                continue
            self.scheduler.record(ScheduleResult(key, None, status, "SchedulingGated"))
            gated.add(key)
        return gated

    def _report(self, order: list[str], gated: set[str]) -> RunResult:
        # the order results came in (a PodGroup cycle reports its pods together), with pods
        # that never had an attempt (gated) at their place in the queue
        keys: list[str] = []
        done: set[str] = set()
        seen = iter(self._seen)
        for key in order:
            if key in gated:
                keys.append(key)
                done.add(key)
                continue
            if key in done:
                continue
            for k in seen:
                if k not in done and k not in gated:
                    keys.append(k)
                    done.add(k)
                if k == key:
                    break
        keys.extend(k for k in self._seen if k not in done and k not in gated)
        results, pods = [], []
        for key in keys:
            result = self.last.get(key)
            if result is None or key not in order:
                continue
            results.append(result)
            pods.append(self._pod_report(key, result))
        for key in self.victims:
            if key not in self.last:
                pods.append(self._pod_report(key, None))
        return RunResult(results, pods=pods, attempts=self.total_attempts, max_attempts=self.max_attempts,
                         stopped=self.stopped, once=self.once, history=self.history)

    def _pod_report(self, key: str, result: ScheduleResult | None) -> PodReport:
        victim = self.victims.get(key)
        pod = self._victim_pods[key] if victim is not None else self.cluster.pods[key]
        node = victim.node if victim is not None else pod.spec.node_name
        if victim is not None:
            shown = pod_phase_display(pod)
            message = next((c.message or "" for c in pod.status.conditions if c.type == "DisruptionTarget"), "")
        else:
            shown = pod_phase_display(pod)
            if shown in ("", "Pending") or (node and shown == "SchedulingGated"):
                shown = "Running" if node else "Pending"
            if result is not None and result.gated:
                message = result.status.message()
            else:
                message = result.message if result is not None else ""
        return PodReport(key, node, shown, pod.status.nominated_node_name if pod.status else None,
                         self.attempts.get(key, 0), message, self.last_failure.get(key, ""),
                         list(self.preemptions.get(key, [])) + self._group_victims(key),
                         victim.preempted_by if victim is not None else None, key in self.stopped, result)

    def _group_victims(self, key: str) -> list[Victim]:
        """Victims of workload-aware preemption by the pod's group (root key)."""
        if not any(k.startswith(("podgroup/", "compositepodgroup/")) for k in self.preemptions):
            return []
        group = self.scheduler.pod_group_of(key) if key in self.cluster.pods else None
        return list(self.preemptions.get(group, [])) if group else []


def pop_group_members(scheduler, queue, qpi, group: str) -> tuple[list[str], dict]:
    """Take a PodGroup's other queued members out of ``queue`` along with the popped ``qpi``:
    the keys for the PodGroup cycle, in the group's member order, and every popped
    QueuedPodInfo by key (``qpi`` first)."""
    from kschedlab.framework.podgroups import PodGroupInfo

    composite = scheduler.gates.enabled("CompositePodGroup")
    members = [pi.key for pi in PodGroupInfo.build(scheduler.cluster, group, composite=composite).queued_pods()]
    popped = {qpi.pod_info.key: qpi, **{q.key: q for q in queue.pop_members(
        k for k in members if k != qpi.pod_info.key)}}
    return [k for k in members if k in popped], popped


def rejecting_plugins(results) -> set[str]:
    """The plugins that rejected any pod of a PodGroup cycle (each member goes back to the
    queue remembering all of them, as upstream requeues a whole group)."""
    plugins: set[str] = set()
    for result in results:
        if result.diagnosis is not None:
            plugins.update(result.diagnosis.unschedulable_plugins)
        elif result.status.plugin:
            plugins.add(result.status.plugin)
    return plugins
