"""The scheduling loop run to quiescence (upstream ``Scheduler.Run``: ``scheduleOne`` over the
scheduling queue until nothing is left to try).

The pending pods enter a :class:`~kschedlab.queue.SchedulingQueue` (PreEnqueue first: pods with
scheduling gates, or in a gang below its ``minCount``, wait there gated), and the loop pops one
pod at a time, as kube-scheduler does:

* a pod that fails goes back with the plugins that rejected it; cluster events — a pod bound,
  a victim of preemption deleted, a pod the binding cycle forgets (its Permit wait rejected or
  timed out, PreBind or Bind failed) leaving its node — move it on when a rejecting plugin's QueueingHint says
  Queue, so a preemptor is retried after its victims are gone and binds on its nominated node;
* a pod of a PodGroup (PodGroup cycle on) takes the group's other queued pods along;
* when nothing can be popped, time passes on a virtual clock to what happens next by itself
  (:meth:`SchedulingLoop.next_queue_move`: a backoff completing at the queue's 1 s flush, the
  30 s leftover flush of pods more than 5 minutes in the unschedulable pool; or a Permit wait
  timing out, :meth:`SchedulingLoop.next_permit_timeout`), as upstream's queue runs its timers —
  and the simulation runs the same ones; the run ends when every pending pod has been tried
  since the cluster last changed (:class:`ChangeTracker`: another try could only fail the same
  way), so no pod is left that the queue's timers could help;
* victims of preemption are deleted at once (their grace period treated as over);
* a pod the loop binds counts as Running and Ready: the StatefulSet controller creates the next pod
  of an ``OrderedReady`` set then (:mod:`kschedlab.controllers.statefulset`), and it joins the run;
* each pod gets at most ``max_attempts`` attempts (:data:`DEFAULT_MAX_ATTEMPTS`); a pod that
  reaches the bound stays where it is and the run lists it in ``RunResult.stopped``.

``once=True`` gives every queued pod exactly one attempt, in queue order, and stops.

The loop is the core of both commands: ``kschedlab schedule`` runs it to quiescence
(:meth:`SchedulingLoop.run`), and :class:`kschedlab.sim.engine.Simulation` wraps it in its clock
and cluster events (``clock=`` the simulation's time, victims deleted gracefully through
``delete_victim=``, no per-pod bound, ``statefulsets=False``: its kubelet starts pods, and it
asks the StatefulSet controller itself), calling :meth:`SchedulingLoop.add` for each arriving pod
and :meth:`SchedulingLoop.step` for each attempt; it reads the outcome with
:meth:`SchedulingLoop.report`.  Every queue insertion and every attempt takes one tick
(:data:`TICK`) of the loop's own time, which follows the given clock: pods created at the same
instant keep their creation order as the tie-breaker in both.

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

from kschedlab.apiserver.pod_update import pod_phase_display
from kschedlab.controllers.statefulset import StatefulSetController
from kschedlab.framework.events import EVENT_ASSIGNED_POD_DELETE, EVENT_UNSCHEDULED_POD_ADD
from kschedlab.framework.podgroups import PodGroupInfo
from kschedlab.framework.status import Code
from kschedlab.framework.types import pod_key
from kschedlab.plugins.gang_scheduling import permit_timeout_message
from kschedlab.queue import SchedulingQueue, framework_hints
from kschedlab.scheduler.result import PodReport, RunResult, ScheduleResult, Victim
from kschedlab.storage.pv_controller import PersistentVolumeController

# codes compared as plain ints: reading an enum member off its class costs more
_WAIT, _ERROR = int(Code.Wait), int(Code.Error)

#: the most scheduling attempts one pod gets in a run of the loop (``--max-attempts``)
DEFAULT_MAX_ATTEMPTS = 20

#: virtual time one queue insertion or one attempt takes, so that pods keep their insertion
#: order as tie-breaker (upstream's timestamps are taken from the wall clock)
TICK = 1e-6


class ChangeTracker:
    """Counts the changes to the cluster and remembers, per pending pod, the count at which the
    scheduler last looked at it (a scheduling attempt, or the PreEnqueue plugins of a gated pod).

    A pod is *settled* when nothing changed since then: trying it again can only fail again.

    >>> tracker = ChangeTracker()
    >>> tracker.evaluated("default/web")
    >>> tracker.is_settled("default/web"), tracker.is_settled("default/db")
    (True, False)
    >>> tracker.changed()
    >>> tracker.is_settled("default/web")
    False
    """

    __slots__ = ("changes", "_seen", "_errors")

    def __init__(self) -> None:
        #: how many changes the cluster has seen (events, bindings, evictions, expired waits, ...)
        self.changes = 0
        self._seen: dict[str, int] = {}
        self._errors: dict[str, tuple[int, str]] = {}

    def changed(self) -> None:
        """The cluster changed: every pending pod deserves another look."""
        self.changes += 1

    def evaluated(self, key: str) -> None:
        """The scheduler looked at pod ``key`` against the current cluster."""
        self._seen[key] = self.changes

    def errored(self, key: str, message: str) -> None:
        """The attempt of pod ``key`` (just marked :meth:`evaluated`) ended in an error: the pod
        is not settled, unless its previous attempt, against the same cluster, ended in the same
        error.

        >>> tracker = ChangeTracker()
        >>> tracker.evaluated("default/p"); tracker.errored("default/p", "boom")
        >>> tracker.is_settled("default/p")
        False
        >>> tracker.evaluated("default/p"); tracker.errored("default/p", "boom")
        >>> tracker.is_settled("default/p")
        True
        """
        if self._errors.get(key) == (self.changes, message):
            return
        self._errors[key] = (self.changes, message)
        self._seen.pop(key, None)

    def forget(self, key: str) -> None:
        """Pod ``key`` left the queue for good (bound or deleted)."""
        self._seen.pop(key, None)
        self._errors.pop(key, None)

    def is_settled(self, key: str) -> bool:
        """Whether pod ``key`` was looked at since the last change."""
        return self._seen.get(key) == self.changes

    def all_settled(self, queue) -> bool:
        """Whether every pod of ``queue`` (a :class:`~kschedlab.queue.SchedulingQueue`) is settled:
        none in activeQ, none in flight, and every one in backoffQ or the pool was looked at
        since the last change."""
        seen, changes = self._seen, self.changes
        for key, where in queue.placements().items():
            if where in ("active", "in-flight") or seen.get(key) != changes:
                return False
        return True


class SchedulingLoop:
    """One run of the scheduling loop over ``scheduler``'s cluster (see the module docstring).

    ``clock`` is the time outside the loop (a simulation's; None: the loop keeps its own);
    ``delete_victim(key, pod_info)`` deletes a victim of preemption (None: at once);
    ``keep_history=False`` keeps no list of every attempt's result (a long simulation);
    ``statefulsets=False``: no StatefulSet pod is created when a pod binds."""

    def __init__(self, scheduler, *, once: bool = False, max_attempts: int | None = DEFAULT_MAX_ATTEMPTS,
                 clock=None, delete_victim=None, keep_history: bool = True, statefulsets: bool = True):
        if max_attempts is not None and max_attempts < 1:
            raise ValueError(f"max_attempts must be at least 1, got {max_attempts}")
        self.scheduler = scheduler
        self.cluster = scheduler.cluster
        self.once = once
        self.max_attempts = max_attempts
        self._clock = clock
        #: the loop's time: the outside clock's, plus a tick for each insertion or attempt of its instant
        self.now = 0.0 if clock is None else clock() - TICK
        #: without an outside clock, the instant the loop's time last moved to (what ticks within)
        self._instant = 0.0
        self._evict = delete_victim
        self.keep_history = keep_history
        first = next(iter(scheduler.profiles.values()))
        hints = {name: framework_hints(fw) for name, fw in scheduler.profiles.items()}
        self.queue = SchedulingQueue(first.less, pre_enqueue=self.pre_enqueue, hints=hints,
                                     clock=self.time, gates=scheduler.gates, history_clock=clock,
                                     pre_enqueue_memo=True)
        self.attempts: dict[str, int] = {}
        self.total_attempts = 0
        #: cluster changes and, per pending pod, the change it was last tried at; whoever changes
        #: the cluster outside the loop (a simulation's events) tells it too
        self.tracker = ChangeTracker()
        self.last: dict[str, ScheduleResult] = {}
        self.last_failure: dict[str, str] = {}
        self.victims: dict[str, Victim] = {}
        self._victim_pods: dict = {}
        self.preemptions: dict[str, list[Victim]] = {}
        self.stopped: list[str] = []
        self._preemptor: str | None = None
        #: pods waiting at Permit (or for their binding conditions): their QueuedPodInfo by key,
        #: and when each wait began (on the outside clock, if any)
        self.waiting: dict = {}
        self.wait_started: dict[str, float] = {}
        #: assumed pods the binding cycle forgot after a rejection, whose AssignedPodDelete waits
        #: until the pod itself is back in the queue
        self._forgotten: list = []
        #: pods in the order of their first recorded result, and every result in order
        self._seen: list[str] = []
        self.history: list[ScheduleResult] = []
        #: called with a pod's key as each of its attempts begins, when it starts to wait at
        #: Permit, and when its PreEnqueue plugins hold it back
        self.on_attempt: list = []
        self.on_wait: list = []
        self.on_gated: list = []
        #: the StatefulSet controller (when the cluster has StatefulSets) and the pods it created
        self.statefulsets = (StatefulSetController(self.cluster, seed=scheduler.seed, gates=scheduler.gates)
                             if statefulsets and self.cluster.objects.get("StatefulSet") else None)
        self.created: list[str] = []

    def time(self) -> float:
        """The scheduling queue's clock: the loop's time, never behind the outside clock."""
        return self.now if self._clock is None else max(self.now, self._clock())

    def tick(self) -> None:
        """One queue insertion or attempt: the first of an instant of the outside clock takes
        that instant, each other one :data:`TICK` more than the one before."""
        outside = self.time()
        self.now = outside if outside > self.now else self.now + TICK

    def attach(self) -> None:
        """Listen to the scheduler (binds, results) and answer its framework handles' victim
        deletions and pod activations."""
        sched = self.scheduler
        self._saved = {}
        for name, fw in sched.profiles.items():
            self._saved[name] = {k: fw.handle.extra.get(k) for k in ("delete_pod", "activate")}
            fw.handle.extra["delete_pod"] = self.delete_victim
            fw.handle.extra["activate"] = self.queue.activate
        sched.on_bound.append(self.bound)
        sched.on_result.append(self.result)
        sched.on_forget.append(self.forgotten)

    def detach(self) -> None:
        """Undo :meth:`attach`."""
        sched = self.scheduler
        sched.on_bound.remove(self.bound)
        sched.on_result.remove(self.result)
        sched.on_forget.remove(self.forgotten)
        for name, fw in sched.profiles.items():
            for k, v in self._saved[name].items():
                if v is None:
                    fw.handle.extra.pop(k, None)
                else:
                    fw.handle.extra[k] = v

    def add(self, pod_info) -> None:
        """A pending pod enters the scheduling queue (PreEnqueue first)."""
        self.tick()
        self.queue.add(pod_info)

    def step(self) -> bool:
        """Flush what has backed off, pop one pod and attempt it; False when nothing could be popped."""
        self.queue.flush()
        qpi = self.queue.pop()
        if qpi is None:
            return False
        self.tick()
        self.attempt(qpi)
        return True

    # -- hooks into the scheduler -------------------------------------------------------------
    def pre_enqueue(self, pod_info, memo: dict | None = None):
        """The PreEnqueue plugins of the pod's profile (``on_gated`` hears of a pod they hold back;
        ``memo``: the queue's for one move, see ``Framework.run_pre_enqueue``)."""
        status = self.scheduler.framework_for(pod_info.pod).run_pre_enqueue(pod_info, memo)
        if not status.is_success():
            self.tracker.evaluated(pod_info.key)  # settled once PreEnqueue has seen this cluster
            for callback in self.on_gated:
                callback(pod_info.key)
        return status

    def bound(self, key: str, node: str) -> None:
        """The pod is bound (by an attempt, at the end of a wait, or created bound)."""
        self.tracker.changed()
        self.tracker.forget(key)
        self.wait_started.pop(key, None)
        qpi = self.waiting.pop(key, None)
        if qpi is not None:  # a Permit wait ended with the pod allowed
            self.queue.done(key)
        self.queue.assigned_pod_added(self.cluster.pod_infos[key])
        if self.statefulsets is not None:
            self.create(self.statefulsets.became_ready(key))

    def create(self, objects: list) -> None:
        """Objects a controller created while the loop runs: claims are stored (the PV controller
        binds what it can), a pod joins the queue as an arriving pod does."""
        claims = [o for o in objects if o.kind == "PersistentVolumeClaim"]
        for claim in claims:
            self.cluster.add(claim)
        if claims:
            PersistentVolumeController(self.cluster).sync()
        for pod in (o for o in objects if o.kind == "Pod"):
            self.cluster.add(pod)
            self.tracker.changed()
            self.created.append(pod.key)
            self.add(self.cluster.pod_infos[pod.key])
            if self.scheduler.gates.enabled("GenericWorkload"):  # a gang's waiting pods may now be complete
                self.queue.move_all_to_active_or_backoff(EVENT_UNSCHEDULED_POD_ADD, None, pod)

    def result(self, result: ScheduleResult) -> None:
        """Every recorded attempt outcome; a pod rejected while waiting goes back to the queue."""
        key = result.pod
        if self.keep_history:
            self.history.append(result)
        if key not in self.last:
            self._seen.append(key)
        self.last[key] = result
        code = result.status.code
        failed = result.node is None and code != _WAIT
        if failed and not result.gated:
            self.last_failure[key] = result.message
        if code == _ERROR:  # an error, unlike a rejection, may not happen again
            self.tracker.errored(key, result.message)
        if failed and key in self.waiting:
            self.wait_started.pop(key, None)
            self.failed(self.waiting.pop(key), result)  # rejected while waiting at Permit
            self._move_forgotten()

    def forgotten(self, assumed, status) -> None:
        """The binding cycle forgot an assumed pod (upstream's ``handleBindingCycleError``): its
        node has room again, an ``AssignedPodDelete`` with the assumed pod (``nodeName`` set, so
        the hints of NodeResourcesFit, NodePorts and NodeVolumeLimits see a pod leave a node).
        After an error the event goes to every pod at once; after a rejection it waits until the
        pod is back in the queue and leaves it out (upstream's deferred move: as an in-flight
        event it would send the pod to backoffQ, though it would only be rejected again)."""
        self.tracker.changed()
        if status.is_rejected():
            self._forgotten.append(assumed)
        else:
            self.queue.move_all_to_active_or_backoff(EVENT_ASSIGNED_POD_DELETE, assumed, None)

    def _move_forgotten(self) -> None:
        """The deferred ``AssignedPodDelete`` of each pod forgotten after a rejection, for every
        other pod."""
        while self._forgotten:
            assumed = self._forgotten.pop(0)
            key = pod_key(assumed)
            self.queue.move_all_to_active_or_backoff(EVENT_ASSIGNED_POD_DELETE, assumed, None,
                                                     lambda p, key=key: pod_key(p) != key)

    def delete_victim(self, key: str, victim_info) -> None:
        """A victim of preemption: recorded, then deleted gracefully by ``delete_victim`` or now
        (its grace period treated as over)."""
        pod = self.cluster.pods.get(key)
        if pod is None or (self._evict is not None and pod.metadata.deletion_timestamp is not None):
            return
        node = pod.spec.node_name
        victim = Victim(key, node, self._preemptor or "")
        self.victims[key] = victim
        self._victim_pods[key] = pod
        self.preemptions.setdefault(victim.preempted_by, []).append(victim)
        if self._evict is not None:
            self._evict(key, victim_info)
            return
        clock = self.scheduler.clock
        self.cluster.mark_terminating(key, datetime.fromtimestamp(clock(), timezone.utc))
        info = self.cluster.pod_infos[key]
        self.cluster.remove_pod(key)
        self.tracker.changed()
        if node:
            self.queue.assigned_pod_deleted(info)
        else:
            self.queue.unscheduled_pod_deleted(info)

    # -- the loop ---------------------------------------------------------------------------------------
    def run(self, keys=None) -> RunResult:
        """Queue the pending pods (all, or ``keys``), schedule until quiescence, report."""
        order = [q.pod_info.key for q in self.scheduler.queue(keys)]
        self.attach()
        try:
            for key in order:
                self.add(self.cluster.pod_infos[key])
            while self.step() or self._advance():
                pass
            return self.report(order + self.created)
        finally:
            self.detach()

    def _advance(self) -> bool:
        """Nothing can be popped: time passes to what happens next by itself, unless every pending
        pod was tried against this cluster already; False = quiescent."""
        if self.once:
            return False
        permit, move = self.next_permit_timeout(), self.next_queue_move()
        if permit is None and (move is None or self.tracker.all_settled(self.queue)):
            return False
        self._instant = min(t for t in (permit, move) if t is not None)
        self.now = max(self.now, self._instant)
        self.expire_permits()
        return True

    # -- what happens next by itself --------------------------------------------------------------
    def next_queue_move(self) -> float | None:
        """When the scheduling queue next moves a pod by itself: the first 1 s
        ``flushBackoffQCompleted`` tick after a backoff completes, or the first 30 s
        ``flushUnschedulablePodsLeftover`` tick after a pod has been in the unschedulable pool
        for ``podMaxInUnschedulablePodsDuration`` (5 min); None: no such move is coming. The
        queue runs the flushes of the ticks that came at the loop's next :meth:`step`."""
        wakeup = self.queue.next_wakeup()
        return wakeup if wakeup is not None and wakeup > self._outside() else None

    def permit_deadlines(self) -> dict[str, tuple[float, str]]:
        """Pod waiting at Permit -> (when its wait times out, the plugin with the shortest timeout)."""
        out = {}
        for key, entry in self.scheduler.waiting.items():
            waits = entry[-1]
            plugin = min(waits, key=waits.get)
            out[key] = (self.wait_started.get(key, self._outside()) + waits[plugin], plugin)
        return out

    def next_permit_timeout(self) -> float | None:
        """When the first Permit wait times out (None: no pod waits)."""
        return min((t for t, _ in self.permit_deadlines().values()), default=None)

    def expire_permits(self) -> bool:
        """Reject the pods whose Permit wait has timed out by now (upstream's waitingPod timer);
        whether there were any."""
        now = self._outside()
        due = [key for key, (deadline, _plugin) in self.permit_deadlines().items() if now >= deadline]
        for key in due:
            self.expire_permit(key)  # back to the queue; its node has room again
        return bool(due)

    def _outside(self) -> float:
        """The instant of the outside clock (without one, the instant the loop's time moved to:
        pods that start to wait within one instant time out together)."""
        return self._instant if self._clock is None else self._clock()

    def expire_permit(self, key: str) -> None:
        """The pod's wait at Permit times out (the plugin with the shortest timeout rejects it)."""
        waits = self.scheduler.waiting[key][-1]
        plugin = min(waits, key=waits.get)
        self.wait_started.pop(key, None)
        self.scheduler.reject(key, plugin, permit_timeout_message(waits[plugin], plugin))

    def _count(self, keys) -> None:
        """An attempt for each pod of ``keys`` (a collection: one pod, or a PodGroup cycle's)."""
        attempts, evaluated, callbacks = self.attempts, self.tracker.evaluated, self.on_attempt
        self.total_attempts += len(keys)
        for key in keys:
            attempts[key] = attempts.get(key, 0) + 1
            evaluated(key)
            for callback in callbacks:
                callback(key)

    def _wait(self, key: str, qpi) -> None:
        """In flight until the Permit wait ends."""
        self.waiting[key] = qpi
        self.wait_started[key] = self._outside()
        for callback in self.on_wait:
            callback(key)

    def attempt(self, qpi) -> None:
        """One scheduling attempt of the popped pod (with its group's queued pods, if any)."""
        key = qpi.pod_info.key
        group = self.scheduler.pod_group_of(key)
        if group is not None:
            self._attempt_group(qpi, group)
            return
        self._preemptor = key
        self._count((key,))
        result = self.scheduler.schedule_one(key)
        self._preemptor = None
        if result.node is not None:
            self.queue.done(key)
        elif result.status.code == Code.Wait:
            self._wait(key, qpi)
        elif result.skipped:  # being deleted: upstream marks it done without putting it back
            self.queue.done(key)
        else:
            self.failed(qpi, result)
        self._move_forgotten()

    def _attempt_group(self, qpi, group: str) -> None:
        """A PodGroup cycle: the popped pod takes the group's other queued (not gated) pods
        along; a scheduled group's left-out pods go straight back to activeQ, every pod of a
        failed group goes back remembering what rejected any of them."""
        info, popped = pop_group_members(self.scheduler, self.queue, qpi, group)
        self._count(popped)
        self._preemptor = group
        out = self.scheduler.schedule_pod_group(info)
        self._preemptor = None
        plugins = rejecting_plugins(out.pod_results)
        back_to_active = out.status.is_success() and not self.once
        for result in out.pod_results:
            q = popped.pop(result.pod)
            if result.node is not None:
                self.queue.done(result.pod)
            elif result.status.code == _WAIT:
                self._wait(result.pod, q)
            elif back_to_active:
                self.queue.return_to_active(q)
            else:
                self.failed(q, result, plugins)
        for key in popped:  # left out of the cycle (being deleted or already assumed)
            self.queue.done(key)
        self._move_forgotten()

    def failed(self, qpi, result: ScheduleResult, plugins: set[str] | None = None) -> None:
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
            status = self.pre_enqueue(self.cluster.pod_infos[key])
            if status.is_success():
                continue
            self.scheduler.record(ScheduleResult(key, None, status, "SchedulingGated"))
            gated.add(key)
        return gated

    def report(self, order: list[str]) -> RunResult:
        """The outcome for the pods of ``order`` (their queue order) and the victims (attached:
        a pod still gated gets its result recorded now)."""
        gated = self._record_gated(order)
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


def pop_group_members(scheduler, queue, qpi, group: str) -> tuple[PodGroupInfo, dict]:
    """Take a PodGroup's other queued members out of ``queue`` along with the popped ``qpi``:
    the hierarchy for the PodGroup cycle (built once, each PodGroup holding only the pods
    popped, in the group's member order), and every popped QueuedPodInfo by key (``qpi``
    first)."""
    composite = scheduler.gates.enabled("CompositePodGroup")
    info = PodGroupInfo.build(scheduler.cluster, group, composite=composite)
    key = qpi.pod_info.key
    others = queue.pop_members(pi.key for pi in info.queued_pods() if pi.key != key)
    popped = {key: qpi, **{q.key: q for q in others}}
    for leaf in info.leaves():
        leaf.pods = [pi for pi in leaf.pods if pi.key in popped]
    return info, popped


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
