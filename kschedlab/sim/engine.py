"""The simulation loop (SimPy-style: a virtual clock, events processed in time order).

The scheduling itself is the one loop of ``kschedlab schedule``
(:class:`kschedlab.scheduler.scheduling_loop.SchedulingLoop`: PreEnqueue, pop, attempt, group
members, failure handling, Permit waits, victims); the simulation wraps it in time and cluster
events.  Each step handles the events due now, lets the scheduling queue flush what has backed
off, and gives the loop one attempt; when nothing is poppable the clock jumps to the next event
or queue wake-up.  Victims of preemption are deleted gracefully (they hold their node for their
grace period), and there is no per-pod bound on attempts.  With nothing timed, both commands
make the same decisions (:meth:`Simulation.report` gives the outcome as ``schedule`` does).

>>> from kschedlab.api.core import Node, Pod
>>> sim = Simulation([Node.model_validate({"metadata": {"name": "n1"},
...     "status": {"allocatable": {"cpu": "1", "memory": "1Gi", "pods": "10"}}})])
>>> for i, t in enumerate([0.0, 1.0, 2.0]):
...     sim.create_pod(Pod.model_validate({"metadata": {"name": f"p{i}", "namespace": "default"},
...         "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "600m"}}}]}}),
...         at=t, duration=5.0)
>>> result = sim.run(until=60)
>>> print(result.pods[["pod", "created", "scheduled", "finished", "attempts"]].to_string(index=False))
       pod  created  scheduled  finished  attempts
default/p0      0.0        0.0       5.0         1
default/p1      1.0        5.0      10.0         2
default/p2      2.0       10.0      15.0         3

Each pod waits in the unschedulable pool until the pod before it finishes;
the deletion of a bound pod is an event NodeResourcesFit's queueing hint
answers with Queue.
"""

from __future__ import annotations

import gc
import heapq
import itertools
from collections import deque
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Any, Callable, Iterable, Iterator, NamedTuple

import pandas as pd

from kschedlab.api.simulation import finite_seconds
from kschedlab.cluster import Cluster
from kschedlab.controllers.job import JobController
from kschedlab.controllers.replicaset import replicaset_replacements
from kschedlab.controllers.statefulset import StatefulSetController
from kschedlab.eviction.taint_manager import NoExecuteTaintManager
from kschedlab.framework.status import Code
from kschedlab.scheduler import Scheduler
from kschedlab.scheduler.result import RunResult
from kschedlab.scheduler.scheduling_loop import SchedulingLoop
from kschedlab.sim.fast_forward import RetryCycles
from kschedlab.sim.quiescence import (
    DEFAULT_HORIZON,
    PENDING_COLUMNS,
    STOP_HORIZON,
    STOP_MAX_ATTEMPTS,
    STOP_QUIESCENT,
    STOP_UNTIL,
    pending_report,
)
from kschedlab.sim.records import QueueSizeSamples, RepeatedRows, ResultCompactor, UtilizationSamples

#: the cyclic garbage collector's thresholds while a simulation runs (Python's defaults: 700, 10,
#: 10).  A run allocates millions of containers and keeps many for a while (pods, their PodInfos,
#: queue entries); with the defaults the collector walked the whole heap 28 times in the first
#: 20,000 s of the 100,000-pod replay, a fifth of its CPU time.  Almost nothing it allocates is in
#: a reference cycle (reference counts free it), so the collector runs far less often here.
RUN_GC_THRESHOLDS = (50_000, 10, 10)


@contextmanager
def gc_thresholds(thresholds: tuple[int, int, int]) -> Iterator[None]:
    """The collector's thresholds set to ``thresholds`` inside the block, put back after.

    >>> before = gc.get_threshold()
    >>> with gc_thresholds((1000, 5, 5)):
    ...     gc.get_threshold()
    (1000, 5, 5)
    >>> gc.get_threshold() == before
    True
    """
    before = gc.get_threshold()
    gc.set_threshold(*thresholds)
    try:
        yield
    finally:
        gc.set_threshold(*before)


class _Event(NamedTuple):
    """A due event; the heap orders events by (time, seq), and seq is unique, so a tuple's own
    comparison never reaches ``kind`` or ``payload`` (and runs in C, unlike a dataclass's)."""

    time: float
    seq: int
    kind: str
    payload: Any = None


class SimulationResult:
    """DataFrames built from the run: per-pod timeline, node utilisation and queue sizes over time;
    why the run stopped (:mod:`kschedlab.sim.quiescence`) and the pods it left ``pending``
    (``pod``, ``queue``, ``attempts``, ``message``).

    ``utilization``, ``queue`` and ``moves`` may be given as a function that builds the frame:
    it is built when first read (a run of a million retries has a million queue rows, which
    ``kschedlab simulate``'s table never shows), from the records as they were at the end of
    the run.
    """

    def __init__(self, pods: pd.DataFrame, utilization: pd.DataFrame | Callable[[], pd.DataFrame],
                 queue: pd.DataFrame | Callable[[], pd.DataFrame], moves: pd.DataFrame | Callable[[], pd.DataFrame],
                 end_time: float, stop_reason: str = "", horizon: float | None = None,
                 quiescent_at: float | None = None, pending: pd.DataFrame | None = None):
        self.pods = pods
        self._frames: dict[str, pd.DataFrame | Callable[[], pd.DataFrame]] = {
            "utilization": utilization, "queue": queue, "moves": moves}
        self.end_time = end_time
        #: quiescent, until, horizon or max-attempts ("" before the first run)
        self.stop_reason = stop_reason
        #: the horizon in force (None when the run was given ``until`` or no horizon)
        self.horizon = horizon
        #: from when nothing could change any more (None when something still could at the end)
        self.quiescent_at = quiescent_at
        self.pending = pending if pending is not None else pd.DataFrame(columns=PENDING_COLUMNS)

    def _frame(self, name: str) -> pd.DataFrame:
        frame = self._frames[name]
        if callable(frame):
            frame = self._frames[name] = frame()
        return frame

    @property
    def utilization(self) -> pd.DataFrame:
        return self._frame("utilization")

    @property
    def queue(self) -> pd.DataFrame:
        return self._frame("queue")

    @property
    def moves(self) -> pd.DataFrame:
        return self._frame("moves")

    def __repr__(self) -> str:
        return (f"SimulationResult(pods={len(self.pods)}, end_time={self.end_time!r}, "
                f"stop_reason={self.stop_reason!r}, pending={len(self.pending)})")


class Simulation:
    """A cluster, a scheduler and a scheduling queue driven by a virtual clock.

    ``keep_traces`` is how many of the most recent attempts keep their full trace (per-node
    filter and score tables; None = all); older attempts keep only their outcome and message,
    so a long run's memory grows by a few hundred bytes per attempt.

    ``utilization`` records node utilisation as the clock moves: anything with
    ``record(time, snapshot)`` and ``frame()`` (default :class:`~kschedlab.sim.records.UtilizationSamples`,
    every node at every instant; a long run on many nodes passes a coarser recorder).  A recorder
    whose ``last_of_instant`` is true is sampled once after the events of an instant rather than
    after each (its outcome depends only on the last sample of an instant).

    ``keep_history=False`` keeps neither the queue's moves (``result.moves`` is then empty) nor
    the scheduler's list of attempt results: a replay of many attempts then needs memory for
    its pods, not for its attempts.
    """

    #: skip the periodic retries of a quiescent run given ``until``, counted as if they had run
    #: (:mod:`kschedlab.sim.fast_forward`); False makes each of them
    skip_quiescent_retries = True

    def __init__(self, objects: Iterable = (), config=None, *, gates=None, seed: int = 0,
                 registry: dict | None = None, keep_traces: int | None = 200, attempt_duration: float = 0.0,
                 binding_delay: float = 0.0, pod_group_cycle: bool | None = None, utilization=None,
                 keep_history: bool = True, provisioners: dict | None = None):
        self.now = 0.0
        self.seed = seed
        self.cluster = objects if isinstance(objects, Cluster) else Cluster(objects)
        if self.cluster.objects.get("PersistentVolumeClaim") or self.cluster.objects.get("PersistentVolume"):
            from kschedlab.storage.pv_controller import PersistentVolumeController

            PersistentVolumeController(self.cluster).sync()  # new volumes Available, the claims that bind before any pod
        self.scheduler = Scheduler(self.cluster, config, gates=gates, seed=seed, registry=registry,
                                   keep_traces=keep_traces, clock=lambda: self.now, pod_group_cycle=pod_group_cycle)
        #: the scheduling loop this simulation wraps, and its scheduling queue
        self.loop = SchedulingLoop(self.scheduler, max_attempts=None, clock=lambda: self.now,
                                   delete_victim=self._graceful_delete, keep_history=keep_history,
                                   statefulsets=False)
        #: the StatefulSet controller: an OrderedReady set's next pod once the kubelet started the one before
        self.statefulsets = (StatefulSetController(self.cluster, seed=seed, gates=self.scheduler.gates)
                             if self.cluster.objects.get("StatefulSet") else None)
        #: the Job controller: a Job's next pods once one of its pods succeeded
        self.jobs = JobController(self.cluster, seed=seed, gates=self.scheduler.gates)
        self.queue = self.loop.queue
        self.loop.attach()
        self.scheduler.on_bound.append(self._on_bound)
        for framework in self.scheduler.profiles.values():
            framework.handle.extra["clock"] = lambda: self.now
        # lists that keep skipped retry cycles as counts (kschedlab.sim.fast_forward)
        self.queue.history = RepeatedRows(timed=True)
        self.loop.history = RepeatedRows()
        self.scheduler.results = RepeatedRows()
        if not keep_history:
            self.queue.keep_history = False
            self.scheduler.results = deque(maxlen=0)  # every attempt is still told to on_result listeners
        self.attempt_duration = attempt_duration
        self.binding_delay = binding_delay
        self._events: list[_Event] = []
        self._seq = itertools.count()
        self._timeline: dict[str, dict[str, Any]] = {}
        self._durations: dict[str, float | None] = {}
        self._util = UtilizationSamples() if utilization is None else utilization
        #: the recorder keeps only the last sample of an instant (see :meth:`_process_due_events`)
        self._last_of_instant = bool(getattr(self._util, "last_of_instant", False))
        self._queue_sizes = QueueSizeSamples()
        self._compactor = ResultCompactor(keep_traces)
        #: cluster changes and, per pending pod, the change it was last tried at (quiescence):
        #: the loop's, told of the simulation's events too
        self.changes = self.loop.tracker
        self._last_message: dict[str, str] = {}
        self.scheduler.on_result.append(self._on_result)
        self.loop.on_attempt.append(self._count_attempt)
        self._stop: tuple[str, float | None, float | None] = ("", None, None)
        self._retry_cycles = RetryCycles()
        for job in self.cluster.of_kind("Job"):  # the Jobs loaded: their start, their deadline
            self._job_sync(self.jobs.created(job, self.now), "")
        #: called with the new time each time the clock moves on (a profiler's window, a probe); None: nothing
        self.on_clock: Callable[[float], None] | None = None
        #: running or finished ``kubectl drain`` runs by node
        self.drains: dict[str, Any] = {}
        #: the NoExecute taint manager, driven by this clock (node taint changes, bound pods)
        self.taint_manager = NoExecuteTaintManager(self.cluster, gates=self.scheduler.gates)
        self.taint_manager.sync(self.cluster, self.now)
        #: node-pressure eviction (:class:`kschedlab.sim.kubelet.NodePressureEviction`), None: not simulated
        self.kubelet = None
        #: the device taint eviction controller and PreBind waits for binding conditions (kschedlab.sim.dra)
        from kschedlab.sim.dra import SimDRA

        self.dra = SimDRA(self)
        #: provisioners on the clock and VolumeBinding's PreBind waits (kschedlab.sim.storage)
        from kschedlab.sim.storage import SimStorage

        self.storage = SimStorage(self, provisioners)
        self._refresh_budgets()
        for qpi in self.scheduler.queue():  # the pending pods, in the order ``schedule`` queues them
            self._track(qpi.pod_info.key)
            self.loop.add(qpi.pod_info)

    # -- what the user schedules -----------------------------------------------------
    def _at(self, time: float | None, kind: str, payload=None) -> None:
        heapq.heappush(self._events, _Event(self.now if time is None else float(time), next(self._seq), kind, payload))

    def create_pod(self, pod, *, at: float | None = None, duration: float | None = None) -> None:
        """Create ``pod`` at time ``at``; once bound it runs ``duration`` seconds (forever when None)."""
        self._at(at, "create_pod", (pod, duration))

    def create_object(self, obj, *, at: float | None = None) -> None:
        """Create (or replace, as ``kubectl apply``) a stored object such as a DeviceTaintRule,
        ResourceSlice or ResourceClaim at ``at`` (:meth:`kschedlab.sim.dra.SimDRA.apply`), or a
        storage object (:func:`kschedlab.sim.storage.apply_storage`)."""
        self._at(at, "create_object", obj)

    def set_device_conditions(self, conditions: list, *, claim: str | None = None, pod: str | None = None,
                              pod_claim: str | None = None, device: str | None = None,
                              at: float | None = None) -> None:
        """A DRA driver writes ``conditions`` for the allocated devices (``device``: only that one)
        of claim ``namespace/name`` -- or of the claims of ``pod`` (``pod_claim``: only that
        ``spec.resourceClaims`` entry) -- into ``status.devices`` at ``at``
        (:meth:`kschedlab.sim.dra.SimDRA.set_device_conditions`)."""
        self._at(at, "set_device_conditions", (list(conditions), claim, pod, pod_claim, device))

    def stream(self, arrivals: Iterable, *, batch: int = 256) -> None:
        """Create what ``arrivals`` yields, reading it only as the clock gets there, so a long
        trace never sits in memory whole: ``(time, obj, duration)`` tuples in time order, ``obj``
        a Pod (run ``duration`` seconds once bound, forever when None) or another admitted object
        (a PodGroup, say: added to the cluster at ``time``).  ``batch`` items are read at a time."""
        self._at(None, "stream", (iter(arrivals), batch))

    def delete_pod(self, key: str, *, at: float | None = None) -> None:
        self._at(at, "delete_pod", key)

    def add_node(self, node, *, at: float | None = None) -> None:
        self._at(at, "add_node", node)

    def remove_node(self, name: str, *, at: float | None = None) -> None:
        self._at(at, "remove_node", name)

    def cordon(self, name: str, *, at: float | None = None, unschedulable: bool = True) -> None:
        self._at(at, "cordon", (name, unschedulable))

    def drain(self, node: str, *, at: float | None = None, **flags) -> None:
        """``kubectl drain node`` at ``at`` (flags as :class:`kschedlab.eviction.drain.DrainOptions`); its
        timeline is in ``self.drains[node].result``, evictions go through the Eviction API."""
        self._at(at, "drain", (node, flags))

    def set_taints(self, node: str, taints: list, *, at: float | None = None) -> None:
        """Replace ``node``'s ``spec.taints`` at ``at`` (Taint models or dicts): the scheduler
        sees the node change and the NoExecute taint manager evicts pods that do not tolerate
        a NoExecute taint (at once, or after their ``tolerationSeconds``)."""
        self._at(at, "set_taints", (node, list(taints)))

    def update_node(self, node, *, at: float | None = None) -> None:
        """Replace the node of the same name at ``at`` with ``node`` (a kubelet restarting with a new
        ``status.declaredFeatures``, new labels, ...); the scheduler sees the node update."""
        self._at(at, "update_node", node)

    def remove_scheduling_gates(self, key: str, *, at: float | None = None, names: list[str] | None = None) -> None:
        """Remove the named gates (all when None), as a controller would by updating the pod."""
        self._at(at, "remove_gates", (key, names))

    # -- the loop -----------------------------------------------------------------------
    def run(self, until: float | None = None, *, progress: bool = False, max_attempts: int = 1_000_000,
            horizon: float | None = DEFAULT_HORIZON) -> SimulationResult:
        """Run the clock to ``until``; given no ``until``, until nothing can change any more
        (``quiescent``) or to ``horizon`` (24 h of virtual time by default; None: no limit).
        ``max_attempts`` bounds the scheduling attempts of this call.

        Up to an ``until`` the queue's periodic retries of pods that cannot fit are all made, as
        kube-scheduler makes them (they count in ``attempts``); the result's ``quiescent_at``
        still says from when nothing could change.  See :mod:`kschedlab.sim.quiescence`.  Once
        they repeat cycle after cycle, the cycles that fit before ``until`` are counted rather
        than run, with the same result (:mod:`kschedlab.sim.fast_forward`).  The garbage
        collector runs with :data:`RUN_GC_THRESHOLDS` meanwhile."""
        with gc_thresholds(RUN_GC_THRESHOLDS):
            return self._run(until, progress, max_attempts, horizon)

    def _run(self, until: float | None, progress: bool, max_attempts: int, horizon: float | None) -> SimulationResult:
        limit = finite_seconds(float(until)) if until is not None else (None if horizon is None else float(horizon))
        limit_reason = STOP_UNTIL if until is not None else STOP_HORIZON
        bar = None
        if progress:
            from tqdm.auto import tqdm

            bar = tqdm(total=limit, unit="s", desc="simulated")
        attempts = 0
        reason, quiescent_at = STOP_MAX_ATTEMPTS, None
        self._sample()
        while attempts < max_attempts:
            self._process_due_events()
            self._kubelet_housekeeping()
            self.dra.step()
            self.storage.step()
            self.queue.flush()
            if limit is not None and self.now > limit:  # attempts that take time ran past the limit
                reason = limit_reason
                break
            self._compactor.compact()  # the results of earlier attempts have been read
            if self.loop.step():
                attempts += 1
                if self.attempt_duration:
                    self._sample()  # what the attempt bound counts from its own instant
                    self.now += self.attempt_duration
                continue
            timers = [t for t in (self._events[0].time if self._events else None, self.loop.next_permit_timeout(),
                                  self.taint_manager.next_deadline(), *self._drain_wakeups(),
                                  self._kubelet_wakeup(), *self.dra.wakeups(), *self.storage.wakeups())
                      if t is not None and t > self.now]
            wakeup = self.loop.next_queue_move()  # what the queue does next, as under ``schedule``
            upcoming = timers + ([wakeup] if wakeup is not None else [])
            if quiescent_at is None and (not upcoming or not timers and self.changes.all_settled(self.queue)):
                quiescent_at = self.now
            if not upcoming or (quiescent_at is not None and until is None):
                reason = STOP_QUIESCENT if until is None else STOP_UNTIL
                if until is not None:
                    self._sample()
                    self.now = max(self.now, float(until))
                break
            if self.skip_quiescent_retries and until is not None and quiescent_at is not None and not timers:
                skipped = self._retry_cycles.at_idle(self, limit, attempts, max_attempts)
                if skipped:  # whole retry cycles counted as run (kschedlab.sim.fast_forward)
                    attempts += skipped
                    if bar is not None:
                        bar.update(self.now - bar.n)
                    continue
            else:
                self._retry_cycles.reset()
            nxt = min(upcoming)
            if limit is not None and nxt > limit:
                reason = limit_reason
                self._sample()
                self.now = max(self.now, limit)
                break
            if bar is not None:
                bar.update(nxt - self.now)
            self._sample()  # the instant ends: what its attempts bound counts from it, not from the next
            self.now = nxt
            if self.on_clock is not None:
                self.on_clock(nxt)
            generation = self._generation()
            self.loop.expire_permits()  # Permit waits that timed out (the loop tells the tracker)
            self._advance_drains()
            self._fire_taint_evictions()
            if self._generation() != generation:
                self.changes.changed()
            if not self._sampled_by_due_events():
                self._sample()
        if bar is not None:
            bar.close()
        self._stop = (reason, None if until is not None else limit, quiescent_at)
        self._sample()
        return self.result()

    def _generation(self) -> tuple[int, int, int]:
        """What timers may change behind the engine's back (drain evictions, ended grace periods)."""
        return self.cluster.snapshot.generation, len(self.cluster.pods), len(self.cluster.nodes)

    def _sampled_by_due_events(self) -> bool:
        """Events are due now and the recorder keeps only an instant's last sample
        (``last_of_instant``): the sample :meth:`_process_due_events` takes after them is the one
        kept, so one taken before them would be replaced unread."""
        return self._last_of_instant and bool(self._events) and self._events[0].time <= self.now

    def _process_due_events(self) -> None:
        """Handle the events due now, sampling after each (once after the last when the
        utilisation recorder keeps only the last sample of an instant, ``last_of_instant``)."""
        every = not self._last_of_instant
        handled = False
        while self._events and self._events[0].time <= self.now:
            ev = heapq.heappop(self._events)
            getattr(self, f"_on_{ev.kind}")(ev.payload)
            self.changes.changed()
            handled = True
            if every:
                self._sample()
        if handled and not every:
            self._sample()

    # -- event handlers --------------------------------------------------------------------
    def _track(self, key: str) -> None:
        self._timeline.setdefault(key, {"pod": key, "created": self.now, "first_attempt": None, "scheduled": None,
                                        "bound": None, "node": None, "finished": None, "preempted": None,
                                        "attempts": 0})

    def _on_create_pod(self, payload) -> None:
        pod, duration = payload
        self.cluster.add(pod)
        if pod.spec.resource_claims:  # the resourceclaim controller creates its template claims
            from kschedlab.dra.resourceclaim_controller import ResourceClaimController

            ResourceClaimController(self.cluster).sync_pod(pod)
        key = f"{pod.metadata.namespace or ''}/{pod.metadata.name}"
        self._durations[key] = duration
        if pod.spec.node_name:
            self.loop.bound(key, pod.spec.node_name)
            self._on_bound(key, pod.spec.node_name)
            return
        if self.scheduler.framework_for(pod) is None:
            return
        self._track(key)
        self.loop.add(self.cluster.pod_infos[key])
        if self.scheduler.gates.enabled("GenericWorkload"):  # a gang's waiting pods may now be complete
            from kschedlab.framework.events import EVENT_UNSCHEDULED_POD_ADD

            self.queue.move_all_to_active_or_backoff(EVENT_UNSCHEDULED_POD_ADD, None, pod)

    def _on_stream(self, payload) -> None:
        arrivals, batch = payload
        last = None
        for _, (time, obj, duration) in zip(range(batch), arrivals):
            last = max(float(time), self.now)
            if type(obj).__name__ == "Pod":
                self._at(last, "create_pod", (obj, duration))
            else:
                self._at(last, "create_object", obj)
        if last is not None:  # after the items of its own instant: the order of the stream is kept
            self._at(last, "stream", payload)

    def _on_delete_pod(self, key: str) -> None:
        if key not in self.cluster.pods:
            return
        info = self.cluster.pod_infos[key]
        bound = self.cluster.pods[key].spec.node_name
        pod = self.cluster.pods[key]
        if self.kubelet is not None and bound:
            self.kubelet.pod_gone(pod, bound, self.now)
        self.cluster.remove_pod(key)
        self.changes.changed()
        self.changes.forget(key)
        self._last_message.pop(key, None)
        if self.cluster.objects.get("ResourceClaim"):
            self._release_claims(pod)
        self.taint_manager.on_pod_delete(key, self.now)
        if bound:
            self.queue.assigned_pod_deleted(info)
        else:
            self.queue.unscheduled_pod_deleted(info, was_assumed=key in self.scheduler.waiting)
        self._refresh_budgets()

    def _release_claims(self, pod) -> None:
        """The resourceclaim controller frees the deleted pod's claims; each claim it deallocates or
        deletes is a ResourceClaim update for the queue (its devices are free again)."""
        from kschedlab.dra.resourceclaim_controller import ResourceClaimController
        from kschedlab.framework.events import RESOURCE_CLAIM, ActionType, ClusterEvent

        before = dict(self.cluster.objects.get("ResourceClaim", {}))
        ResourceClaimController(self.cluster).pod_deleted(pod)
        after = self.cluster.objects.get("ResourceClaim", {})
        event = ClusterEvent(RESOURCE_CLAIM, ActionType.Update)
        for k, old in before.items():
            new = after.get(k)
            if new is old:
                continue
            if new is None:  # deleted with its pod: to the queue, its allocation is gone
                new = old.model_copy(update={"status": old.status.model_copy(update={"allocation": None})})
            self.queue.move_all_to_active_or_backoff(event, old, new)

    def _refresh_budgets(self) -> None:
        """The disruption controller's view: PodDisruptionBudget status after pods change."""
        if self.cluster.of_kind("PodDisruptionBudget"):
            from kschedlab.eviction.disruption import refresh

            refresh(self.cluster, now=self.now)

    def _graceful_delete(self, key: str, pod_info, preempted: bool = True) -> None:
        """A victim of preemption (or of the taint manager, ``preempted=False``): deleted
        gracefully, holding its node for its ``terminationGracePeriodSeconds`` (30 by
        default); ``deletionTimestamp`` is set to the end of that period, as the API server
        does. A ReplicaSet counts a terminating pod out at once: its replacement is created now,
        while the victim still holds its node."""
        pod = self.cluster.pods.get(key)
        if pod is None or pod.metadata.deletion_timestamp is not None:
            return
        grace = pod.spec.termination_grace_period_seconds
        gone = self.now + (30 if grace is None else grace)
        self.cluster.mark_terminating(key, datetime.fromtimestamp(gone, timezone.utc), 30 if grace is None else grace)
        self.changes.changed()
        self._at(gone, "victim_gone", key)
        row = self._timeline.get(key)
        if row is not None and preempted:
            row["preempted"] = self.now
        self._replace(pod, key, failed=False)

    def _replace(self, pod, key: str, *, failed: bool) -> None:
        """``pod``'s controller replaces it: its ReplicaSet at once, its Job as its rules say
        (``failed``: the pod has failed; else it is terminating). Replacements run as long as it was to."""
        for new in replicaset_replacements(self.cluster, pod, seed=self.seed, gates=self.scheduler.gates,
                                           seen=self._timeline):
            self._on_create_pod((new, self._durations.get(key)))
        self._job_sync(self.jobs.pod_failed(pod, self.now) if failed else self.jobs.pod_terminating(pod, self.now),
                       key)

    def _on_victim_gone(self, key: str) -> None:
        """A pod deleted gracefully is gone at the end of its grace period: killed, so ``Failed``
        for its Job's controller."""
        pod = self.cluster.pods.get(key)
        self._on_delete_pod(key)
        if pod is not None:
            self._job_sync(self.jobs.pod_failed(pod, self.now), key)

    def _fire_taint_evictions(self) -> None:
        """Deletions the taint manager has due now: ``DisruptionTarget`` (DeletionByTaintManager),
        then a graceful delete."""
        from kschedlab.eviction.api_initiated import update_pod_condition
        from kschedlab.eviction.taint_manager import (
            DISRUPTION_TARGET,
            MESSAGE_DELETION_BY_TAINT_MANAGER,
            REASON_DELETION_BY_TAINT_MANAGER,
        )

        for key, _when in self.taint_manager.due(self.now):
            pod = self.cluster.pods.get(key)
            if pod is None:
                continue
            update_pod_condition(pod, DISRUPTION_TARGET, "True", REASON_DELETION_BY_TAINT_MANAGER,
                                 MESSAGE_DELETION_BY_TAINT_MANAGER, datetime.fromtimestamp(self.now, timezone.utc))
            self._graceful_delete(key, self.cluster.pod_infos[key], preempted=False)

    def pre_bind_failed(self, key: str) -> None:
        """A PreBind wait on the clock ended in an error: the placement did not hold (the loop
        heard the failure, requeued the pod and told the queue its node has room again)."""
        row = self._timeline.get(key)
        if row is not None:
            row["scheduled"] = None

    def _on_create_object(self, obj) -> None:
        from kschedlab.sim.storage import STORAGE_RESOURCES, apply_storage

        if type(obj).__name__ in STORAGE_RESOURCES:
            apply_storage(self, obj)
        elif type(obj).__name__ == "Job":  # its pods follow it, created by the same event
            self.cluster.add(obj)
            self._job_sync(self.jobs.created(obj, self.now), "")
        else:
            self.dra.apply(obj)

    def _on_set_device_conditions(self, payload) -> None:
        conditions, claim, pod, pod_claim, device = payload
        for name in [claim] if claim is not None else self.dra.claims_of_pod(pod, pod_claim):
            self.dra.set_device_conditions(name, conditions, device=device)

    def _on_set_taints(self, payload) -> None:
        from kschedlab.api.core import Taint

        name, taints = payload
        new = self.cluster.nodes[name].clone()
        new.spec.taints = [t if isinstance(t, Taint) else Taint.model_validate(t) for t in taints]
        self._update_node(new)
        self._fire_taint_evictions()

    # -- node-pressure eviction (kschedlab.sim.kubelet) -----------------------------------------
    def _kubelet_wakeup(self) -> float | None:
        return None if self.kubelet is None else self.kubelet.next_wakeup(self.cluster, self.now)

    def _kubelet_housekeeping(self) -> None:
        """The housekeeping rounds due now: conditions and their taints, at most one eviction per node."""
        if self.kubelet is None:
            return
        from kschedlab.eviction.taint_manager import reconcile_condition_taints, set_node_condition
        from kschedlab.sim.kubelet import CONDITION_REASONS

        self._kubelet_containers()

        for name in self.kubelet.due(self.cluster, self.now):
            result = self.kubelet.round(self.cluster, name, self.now)
            node = self.cluster.nodes[name]
            have = {c.type for c in node.status.conditions if c.status == "True" and c.type in CONDITION_REASONS}
            want = set(result.node_conditions) & set(CONDITION_REASONS)
            if have != want:
                new = node
                for cond in sorted(have ^ want):
                    status = "True" if cond in want else "False"
                    new = set_node_condition(new, cond, status, now=self.now,
                                             reason=CONDITION_REASONS[cond][0 if status == "True" else 1])
                old_taints = {str(t) for t in node.spec.taints}
                new = reconcile_condition_taints(new, now=self.now)
                new_taints = {str(t) for t in new.spec.taints}
                for cond in sorted(have ^ want):
                    self.kubelet.conditions.append({
                        "time": self.now, "node": name, "condition": cond,
                        "status": "True" if cond in want else "False",
                        "taintsAdded": sorted(new_taints - old_taints), "taintsRemoved": sorted(old_taints - new_taints)})
                    old_taints = new_taints
                self._update_node(new)
            for local in result.local_storage:
                self._kubelet_evict(name, local.pod, result, local)
            if result.evicted_pod is not None:
                self._kubelet_evict(name, result.evicted_pod, result)
        self._kubelet_node_images()

    def _kubelet_containers(self) -> None:
        """Container restarts and the kernel's OOM kills due now (``kschedlab.sim.kubelet``)."""
        for key, what in self.kubelet.advance(self.cluster, self.now):
            pod = self.cluster.pods.get(key)
            if pod is None:
                continue
            pod.status.container_statuses = self.kubelet.container_statuses(pod, self.now)
            self.changes.changed()
            if what != "Failed":
                continue
            pod.status.phase = "Failed"
            row = self._timeline.get(key)
            if row is not None:
                row["finished"] = self.now
            self._on_delete_pod(key)  # a terminal pod leaves the scheduler's cache
            self._replace(pod, key, failed=True)

    def _kubelet_node_images(self) -> None:
        """Nodes whose images were pulled or collected report them in ``status.images``."""
        from kschedlab.api.core import ContainerImage, normalize_image_name

        for name in sorted(self.kubelet.images_changed):
            mgr = self.kubelet.managers.get(name)
            if mgr is None or name not in self.cluster.nodes:
                continue
            node = self.cluster.nodes[name]
            images = []
            for key, img in mgr.runtime.images.items():
                old = next((o for o in node.status.images if any(normalize_image_name(n) == key for n in o.names)),
                           None)
                images.append(old if old is not None else ContainerImage(names=[key], size_bytes=img.size))
            if [i.names for i in images] != [i.names for i in node.status.images]:
                new = node.clone()
                new.status.images = images
                self._update_node(new)
        self.kubelet.images_changed.clear()

    def _kubelet_evict(self, node: str, pod, result, local=None) -> None:
        """The kubelet kills ``pod`` (``local``: for its local-storage use): ``DisruptionTarget`` now,
        ``Failed`` / ``Evicted`` at the end of its grace period."""
        from kschedlab.eviction.api_initiated import update_pod_condition
        from kschedlab.eviction.taint_manager import DISRUPTION_TARGET
        from kschedlab.sim.kubelet import REASON_TERMINATION_BY_KUBELET

        key = f"{pod.metadata.namespace or ''}/{pod.metadata.name}"
        message = local.message if local is not None else result.message
        update_pod_condition(pod, DISRUPTION_TARGET, "True", REASON_TERMINATION_BY_KUBELET, message,
                             datetime.fromtimestamp(self.now, timezone.utc))
        gone = self.kubelet.evicted(node, pod, result, self.now, local=local)
        self.changes.changed()
        self._at(gone, "kubelet_evicted", (key, message, len(self.kubelet.evictions) - 1))

    def _on_kubelet_evicted(self, payload) -> None:
        from kschedlab.kubelet.manager import REASON_EVICTED

        key, message, index = payload
        pod = self.cluster.pods.get(key)
        self.kubelet.terminating.pop(key, None)
        if pod is None:
            return
        pod.status.phase, pod.status.reason, pod.status.message = "Failed", REASON_EVICTED, message
        record = self.kubelet.evictions[index]
        record["status"] = {"phase": "Failed", "reason": REASON_EVICTED, "message": message, "conditions": [
            {"type": c.type, "status": c.status, "reason": c.reason, "message": c.message}
            for c in pod.status.conditions if c.type == "DisruptionTarget"]}
        row = self._timeline.get(key)
        if row is not None:
            row["finished"] = self.now
        duration = self._durations.get(key)
        self._on_delete_pod(key)  # a terminal pod leaves the scheduler's cache
        for new in replicaset_replacements(self.cluster, pod, seed=self.seed, gates=self.scheduler.gates,
                                           seen=self._timeline):
            nkey = f"{new.metadata.namespace or ''}/{new.metadata.name}"
            record["replacement"] = nkey
            self.kubelet.replacing[nkey] = index
            self._on_create_pod((new, duration))
        self._job_sync(self.jobs.pod_failed(pod, self.now), key)

    def _on_drain(self, payload) -> None:
        from kschedlab.eviction.drain import Drainer, DrainOptions

        node, flags = payload
        drainer = Drainer(self.cluster, node, DrainOptions(**flags), remove=self._on_delete_pod,
                          update_node=self._update_node)
        self.drains[node] = drainer
        drainer.start(self.now)

    def _drain_wakeups(self) -> list[float | None]:
        """Next drain step of each running drain, and the end of each terminating pod's grace period."""
        times: list[float | None] = [d.next_wakeup() for d in self.drains.values() if not d.done]
        if self.drains:
            times += [p.metadata.deletion_timestamp.timestamp() for p in self.cluster.pods.values()
                      if p.metadata.deletion_timestamp is not None]
        return times

    def _advance_drains(self) -> None:
        if not self.drains:
            return
        from kschedlab.eviction.api_initiated import finish_terminations

        finish_terminations(self.cluster, self.now, remove=self._on_delete_pod)
        for drainer in self.drains.values():
            drainer.step(self.now)

    def _update_node(self, new) -> None:
        old = self.cluster.nodes[new.metadata.name]
        self.cluster.update_node(new)
        self.changes.changed()
        self.queue.node_updated(old, new)
        self.taint_manager.on_node_update(new, self.now)

    def _on_finish_pod(self, key: str) -> None:
        pod = self.cluster.pods.get(key)
        if pod is None:
            return
        self._timeline.get(key, {})["finished"] = self.now
        self._on_delete_pod(key)
        self._job_sync(self.jobs.pod_succeeded(pod, self.now), key)

    def _job_sync(self, sync, key: str) -> None:
        """Apply what the Job controller did about pod ``key``: its new pods run as long as that
        one was to; the active pods of a Job that failed are deleted (gracefully when bound); a
        sync it asked for (the end of the pod failure backoff, the Job's deadline) comes at its time."""
        for new in sync.created:
            self._on_create_pod((new, self._durations.get(key)))
        for victim in sync.deletes:
            if victim not in self.cluster.pods:
                continue
            if self.cluster.pods[victim].spec.node_name:
                self._graceful_delete(victim, self.cluster.pod_infos[victim], preempted=False)
            else:  # the API server deletes a pod no node holds at once
                self._on_delete_pod(victim)
        if sync.retry_at is not None:
            self._at(sync.retry_at, "job_sync", (sync.job, key))

    def _on_job_sync(self, payload) -> None:
        job_key, key = payload
        job = self.cluster.get("Job", job_key)
        if job is not None:
            self._job_sync(self.jobs.sync(job, self.now), key)

    def _on_add_node(self, node) -> None:
        self.cluster.add(node)
        self.queue.node_added(node)

    def _on_remove_node(self, name: str) -> None:
        for key in [p.key for p in self.cluster.snapshot.pods[self.cluster.snapshot.index[name]]]:
            self._on_delete_pod(key)
        node = self.cluster.nodes[name]
        self.cluster.remove_node(name)
        self.queue.node_deleted(node)

    def _on_update_node(self, node) -> None:
        self._update_node(node)

    def _on_cordon(self, payload) -> None:
        name, unschedulable = payload
        old = self.cluster.nodes[name]
        new = old.clone()
        new.spec.unschedulable = unschedulable
        self.cluster.update_node(new)
        self.queue.node_updated(old, new)

    def _on_remove_gates(self, payload) -> None:
        from kschedlab.framework.types import PodInfo

        key, names = payload
        old_info = self.cluster.pod_infos[key]
        pod = old_info.pod.clone()
        pod.spec.scheduling_gates = [g for g in pod.spec.scheduling_gates if names is not None and g.name not in names]
        new_info = PodInfo.of(pod)
        self.cluster.pods[key] = pod
        self.cluster.pod_infos[key] = new_info
        self.queue.unscheduled_pod_updated(old_info, new_info)

    # -- attempts, binding, Permit waits -----------------------------------------------------
    def _count_attempt(self, key: str) -> None:
        row = self._timeline.get(key)
        if row is not None:
            row["attempts"] += 1
            if row["first_attempt"] is None:
                row["first_attempt"] = self.now

    def _on_result(self, result) -> None:
        """Every recorded attempt outcome: remember a pod's last failure message."""
        if result.node is None and result.status.code != Code.Wait and result.message != "SchedulingGated":
            self._last_message[result.pod] = result.message
        self._compactor.add(result)

    def _on_bound(self, key: str, node: str) -> None:
        self._last_message.pop(key, None)
        row = self._timeline.get(key)
        if row is not None:
            row["scheduled"] = row["scheduled"] if row["scheduled"] is not None else self.now
            row["bound"] = self.now + self.binding_delay
            row["node"] = node
        self.taint_manager.on_pod_update(self.cluster.pods[key], self.now)
        pod = self.cluster.pods[key]
        if pod.status.phase in (None, "Pending"):  # the kubelet starts it
            self.cluster.start_pod(key, datetime.fromtimestamp(self.now, timezone.utc))
        if self.kubelet is not None:
            self.kubelet.pod_started(key, self.now, node, pod)
            pod.status.container_statuses = self.kubelet.container_statuses(pod, self.now)
        duration = self._durations.get(key)
        if duration is not None:
            self._at(self.now + self.binding_delay + duration, "finish_pod", key)
        if self.statefulsets is not None:
            for obj in self.statefulsets.became_ready(key):
                if obj.kind == "Pod":
                    self._on_create_pod((obj, None))
                else:
                    self._on_create_object(obj)

    # -- results -------------------------------------------------------------------------------
    def report(self) -> RunResult:
        """The outcome as ``kschedlab schedule`` reports it (node, status, attempts and message of
        every pod that went through the scheduler and is still in the cluster, and the victims of
        preemption); a pod still gated gets its ``SchedulingGated`` result recorded now."""
        keys = [k for k in self._timeline if k in self.cluster.pods or k in self.loop.victims]
        return self.loop.report(keys)

    def _sample(self) -> None:
        self._util.record(self.now, self.cluster.snapshot)
        self._queue_sizes.record(self.now, self.queue.pending_counts())

    def result(self) -> SimulationResult:
        pods = pd.DataFrame(list(self._timeline.values()),
                            columns=["pod", "created", "first_attempt", "scheduled", "bound", "node", "finished",
                                     "preempted", "attempts"])
        # the records as they are now, read when a frame is first asked for
        util_records = self._util.copy() if type(self._util) is UtilizationSamples else None
        util = (lambda: util_records.frame()) if util_records is not None else self._util.frame().reset_index(drop=True)
        queue_records = self._queue_sizes.copy()
        history = self.queue.history.copy()
        reason, horizon, quiescent_at = self._stop
        return SimulationResult(pods, util, lambda: queue_records.frame(),
                                lambda: pd.DataFrame(list(history), columns=["time", "pod", "from", "to", "event"]),
                                self.now,
                                stop_reason=reason, horizon=horizon, quiescent_at=quiescent_at,
                                pending=pending_report(self, self._timeline, self._last_message,
                                                       self.loop.permit_deadlines()))
