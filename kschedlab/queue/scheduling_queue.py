"""The scheduling queue (upstream ``backend/queue``: ``PriorityQueue`` with activeQ,
backoffQ and the unschedulable pool), driven by an injected clock.

Where a pod can be:

* **active** -- ready to be tried, ordered by the profile's QueueSort ``less``;
* **backoff** -- rejected recently and waiting out its backoff (1 s doubling per
  counted failure up to 10 s); with ``SchedulerPopFromBackoffQ`` a pod here is
  popped when activeQ is empty;
* **unschedulable** -- rejected, waiting for a cluster event whose QueueingHint,
  from a plugin that rejected it, returns Queue; or for the 5-minute leftover flush;
* **gated** -- held by a PreEnqueue plugin (upstream keeps these in the
  unschedulable pool too, flagged gated); never popped;
* **in flight** -- popped, its attempt not finished yet; events that arrive meanwhile
  are recorded and replayed when the pod comes back (``add_unschedulable_if_not_present``).

A pod is in exactly one of these places at any time.

>>> from kschedlab.api.core import Pod
>>> from kschedlab.framework.types import PodInfo
>>> from kschedlab.framework.status import Status
>>> from kschedlab.plugins.queuesort import PrioritySort
>>> now = [0.0]
>>> q = SchedulingQueue(PrioritySort().less, pre_enqueue=lambda pi: Status(), hints={}, clock=lambda: now[0])
>>> info = PodInfo.of(Pod.model_validate({"metadata": {"name": "web", "namespace": "default"}}))
>>> q.add(info)
>>> qpi = q.pop()
>>> q.add_unschedulable_if_not_present(qpi, {"NodeResourcesFit"})
>>> q.pending()["unschedulable"]
['default/web']
>>> q.backoff_duration(qpi)
1.0
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import IntEnum
from functools import cmp_to_key
from typing import Any, Callable, Iterable, Mapping, Sequence

from kschedlab.features import FeatureGates
from kschedlab.framework import events as ev
from kschedlab.framework.events import ClusterEvent, QueueingHint
from kschedlab.framework.nominator import NominatingInfo, Nominator
from kschedlab.queue.heap import Heap
from kschedlab.queue.pool import UnschedulablePool
from kschedlab.queue.types import NANOS, QueuedPodInfo, to_nanos

ACTIVE = "active"
BACKOFF = "backoff"
UNSCHEDULABLE = "unschedulable"
GATED = "gated"
IN_FLIGHT = "in-flight"

DEFAULT_POD_INITIAL_BACKOFF = 1.0
DEFAULT_POD_MAX_BACKOFF = 10.0
DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION = 300.0
#: the backoffQ ordering window and the period of the backoff flush (1 s)
BACKOFF_ORDERING_WINDOW = 1.0
#: the period of the leftover flush of the unschedulable pool (30 s)
LEFTOVER_FLUSH_INTERVAL = 30.0
DEFAULT_SCHEDULER_NAME = "default-scheduler"
PREENQUEUE_UNNAMED = "PreEnqueue"


class QueueError(ValueError):
    """An operation that would duplicate a pod in the queue."""


class Strategy(IntEnum):
    """``queueingStrategy``: how a pod leaves the unschedulable pool."""

    SKIP = 0  #: stay where it is
    AFTER_BACKOFF = 1  #: backoffQ if still backing off, else activeQ
    IMMEDIATELY = 2  #: activeQ, skipping backoff (a Pending plugin said Queue)


@dataclass(frozen=True)
class RecordedEvent:
    """A cluster event recorded while pods were in flight."""

    event: ClusterEvent
    old_obj: Any = None
    new_obj: Any = None


class _InFlightMarker:
    __slots__ = ("key", "pod")

    def __init__(self, key: str, pod: Any):
        self.key = key
        self.pod = pod

    def __repr__(self) -> str:
        return f"<in flight {self.key}>"


HintFn = Callable[[Any, Any, Any], QueueingHint]
HintList = Sequence[tuple[ClusterEvent, HintFn | None]]


def build_hint_map(hints: Mapping[str, HintList]) -> dict[ClusterEvent, list[tuple[str, HintFn | None]]]:
    """``{plugin: [(event, hint)]}`` -> ``{event: [(plugin, hint)]}`` in registration order."""
    out: dict[ClusterEvent, list[tuple[str, HintFn | None]]] = {}
    for plugin, registrations in hints.items():
        for event, fn in registrations:
            out.setdefault(event, []).append((plugin, fn))
    return out


class SchedulingQueue:
    """kube-scheduler's scheduling queue; see the module docstring.

    ``less(a, b)`` orders :class:`QueuedPodInfo` (the QueueSort plugin);
    ``pre_enqueue(pod_info) -> Status`` runs the PreEnqueue plugins (a rejected
    status's ``plugin`` becomes the gating plugin); ``hints`` is
    ``{plugin: [(ClusterEvent, hint | None)]}`` for every profile, or
    ``{schedulerName: {plugin: [...]}}`` per profile; ``clock() -> seconds``.

    Extra keyword arguments: ``pod_lister(key) -> Pod | None`` for the nominator,
    ``namespace_labels(ns) -> dict`` for inter-pod affinity terms of AssignedPodAdd,
    ``history_clock() -> seconds`` for the times of ``history`` (default ``clock``: a loop
    that ticks its clock within an instant records the instant), ``pre_enqueue_memo=True``:
    ``pre_enqueue`` is called as ``pre_enqueue(pod_info, memo)`` while the pods of one move are
    requeued, with one dict for the move (no cluster change happens within it), so that it may
    keep answers that depend on what pods share (``Framework.run_pre_enqueue``).
    """

    def __init__(self, less: Callable[[Any, Any], bool], *, pre_enqueue: Callable[..., Any],
                 hints: Mapping[str, Any], clock: Callable[[], float],
                 pod_initial_backoff: float = DEFAULT_POD_INITIAL_BACKOFF,
                 pod_max_backoff: float = DEFAULT_POD_MAX_BACKOFF,
                 pod_max_in_unschedulable_pods_duration: float = DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION,
                 gates: FeatureGates | None = None,
                 pod_lister: Callable[[str], Any] | None = None,
                 namespace_labels: Callable[[str], Mapping[str, str]] | None = None,
                 history_clock: Callable[[], float] | None = None,
                 pre_enqueue_memo: bool = False):
        self.less = less
        self._pre_enqueue = pre_enqueue
        self._pre_enqueue_memo = pre_enqueue_memo
        self._clock = clock
        self._history_clock = clock if history_clock is None else history_clock
        self.gates = gates or FeatureGates()
        self.pop_from_backoff_q = self.gates.enabled("SchedulerPopFromBackoffQ")
        self.pod_initial_backoff = float(pod_initial_backoff)
        self.pod_max_backoff = float(pod_max_backoff)
        self.pod_max_in_unschedulable_pods_duration = float(pod_max_in_unschedulable_pods_duration)
        self._initial_ns = to_nanos(pod_initial_backoff)
        self._max_ns = to_nanos(pod_max_backoff)
        self._namespace_labels = namespace_labels
        self._set_hints(hints)

        key = _qpi_key
        self._active: Heap[QueuedPodInfo] = Heap(less, key)
        self._backoff: Heap[QueuedPodInfo] = Heap(
            self._less_backoff_with_priority if self.pop_from_backoff_q else self._less_backoff, key)
        self._error_backoff: Heap[QueuedPodInfo] = Heap(self._less_backoff, key)
        self._unschedulable: UnschedulablePool = UnschedulablePool(
            self._pool_tags, keys=None if self._pod_key is None else self._pool_key, rank=self._leftover_reference)
        self._in_flight: dict[str, _InFlightMarker] = {}
        self._in_flight_log: list[Any] = []  # _InFlightMarker | RecordedEvent, in arrival order
        self._recorded = 0  # how many of them are RecordedEvent
        self._in_flight_latest: dict[str, Any] = {}  # key -> newest PodInfo seen while in flight
        self._deleted_in_flight: set[str] = set()
        self._where: dict[str, str] = {}
        self._counts: dict[str, int] = {}  # place -> how many pods are there
        self.nominator = Nominator(pod_lister)
        self.scheduling_cycle = 0
        #: (time, pod key, from queue, to queue, event or reason); None = outside the queue
        self.history: list[tuple[float, str, str | None, str | None, str]] = []
        #: False: moves are not added to ``history`` (a long replay's memory then does not grow with attempts)
        self.keep_history = True
        start = self._clock()
        self._run_start = start
        self._last_backoff_tick = self._backoff_tick_at_or_before(start)
        self._last_leftover_tick = start - LEFTOVER_FLUSH_INTERVAL  # wait.Until runs once right away

    # -- hints ------------------------------------------------------------------------------------------------
    def _set_hints(self, hints: Mapping[str, Any]) -> None:
        per_profile = bool(hints) and all(isinstance(v, Mapping) for v in hints.values())
        profiles = dict(hints) if per_profile else {None: dict(hints)}
        self._hint_maps = {name: build_hint_map(p) for name, p in profiles.items()}
        self._plugin_events: dict[Any, dict[str, list[ClusterEvent]]] = {}
        for name, p in profiles.items():
            per_plugin: dict[str, list[ClusterEvent]] = {}
            for plugin, regs in p.items():
                per_plugin[plugin] = [event for event, _ in regs]
            self._plugin_events[name] = per_plugin
        self._hints_for: dict[tuple[Any, ClusterEvent], list[tuple[str, HintFn | None]]] = {}
        #: hints answered once per event and plugin within a move (:func:`events.event_only`)
        self._event_only = {fn for hint_map in self._hint_maps.values() for fns in hint_map.values()
                            for _, fn in fns if ev.is_event_only(fn)}
        #: keyed hints answered once per key of the pod within a move (``KeyedHint.by_key``)
        self._by_key = {fn for hint_map in self._hint_maps.values() for fns in hint_map.values()
                        for _, fn in fns if isinstance(fn, ev.KeyedHint) and fn.by_key}
        self._interest: dict[ClusterEvent, bool] = {}
        self._event_plugins: dict[ClusterEvent, frozenset[str]] = {}
        # the pool indexes its pods by the key of the keyed hints (:class:`events.KeyedHint`),
        # when they all share one
        keys = {fn.key for hint_map in self._hint_maps.values() for fns in hint_map.values()
                for _, fn in fns if isinstance(fn, ev.KeyedHint)}
        self._pod_key: Callable[[Any], Any] | None = keys.pop() if len(keys) == 1 else None
        self._keyed: dict[ClusterEvent, dict[str, ev.KeyedHint]] = {}

    def _pool_tags(self, qpi: QueuedPodInfo) -> set[str] | None:
        """The plugins a pod in the pool is filed under: those that rejected it; None (any event
        may move it) when none did or its profile registered no hints."""
        pending = qpi.pending_plugins
        rejectors = qpi.unschedulable_plugins | pending if pending else qpi.unschedulable_plugins
        if not rejectors or self._profile(qpi) not in self._hint_maps:
            return None
        return rejectors

    def _pool_key(self, qpi: QueuedPodInfo) -> Any:
        assert self._pod_key is not None
        return self._pod_key(qpi.pod)

    def _keyed_hints(self, event: ClusterEvent) -> dict[str, ev.KeyedHint]:
        """Plugins whose every hint for an event ``event`` matches (in every profile) is keyed by
        the pool's key: one of those hints for each."""
        found = self._keyed.get(event)
        if found is None:
            found = {}
            if self._pod_key is not None:
                per_plugin: dict[str, list] = {}
                for profile in self._hint_maps:
                    for plugin, fn in self._hints_for_event(profile, event) or ():
                        per_plugin.setdefault(plugin, []).append(fn)
                for plugin, fns in per_plugin.items():
                    if all(isinstance(fn, ev.KeyedHint) and fn.key is self._pod_key
                           and fn.object_kind == fns[0].object_kind for fn in fns):
                        found[plugin] = fns[0]
            self._keyed[event] = found
        return found

    def _narrowed(self, event: ClusterEvent, old_obj, new_obj) -> dict[str, Any] | None:
        """Plugin -> the pool key of the only pods its keyed hint can Queue on this event."""
        keyed = self._keyed_hints(event)
        if not keyed:
            return None
        out = {}
        for plugin, hint in keyed.items():
            key = hint.event_key(old_obj, new_obj)
            if key is not ev.NOT_NARROWED:
                out[plugin] = key
        return out

    def _plugins_for_event(self, event: ClusterEvent) -> frozenset[str]:
        """Plugins of any profile with a hint for an event ``event`` matches: only pods they
        rejected (and pods filed under none) can move on it."""
        found = self._event_plugins.get(event)
        if found is None:
            found = self._event_plugins[event] = frozenset(
                plugin for profile in self._hint_maps for plugin, _ in self._hints_for_event(profile, event) or ())
        return found

    def _hints_for_event(self, profile, event: ClusterEvent) -> list[tuple[str, HintFn | None]] | None:
        """The (plugin, hint) pairs of ``profile`` registered for an event ``event`` matches, in
        registration order (worked out once per event); None for an unknown profile."""
        found = self._hints_for.get((profile, event))
        if found is None:
            hint_map = self._hint_maps.get(profile)
            if hint_map is None:
                return None
            found = [(plugin, fn) for registered, fns in hint_map.items()
                     if ev.match_cluster_events(registered, event) for plugin, fn in fns]
            self._hints_for[(profile, event)] = found
        return found

    def _profile(self, qpi: QueuedPodInfo):
        if None in self._hint_maps:
            return None
        return qpi.pod.spec.scheduler_name or DEFAULT_SCHEDULER_NAME

    def _is_event_of_interest(self, event: ClusterEvent) -> bool:
        found = self._interest.get(event)
        if found is None:
            found = self._interest[event] = ev.cluster_event_is_wildcard(event) or any(
                ev.match_cluster_events(registered, event)
                for hint_map in self._hint_maps.values() for registered in hint_map)
        return found

    # -- bookkeeping ----------------------------------------------------------------------------------------------
    def _now(self) -> float:
        return float(self._clock())

    def _move(self, qpi: QueuedPodInfo, to: str | None, why: str) -> None:
        self._set_where(qpi.key, to, why)

    def _set_where(self, key: str, to: str | None, why: str, before: Any = False) -> None:
        """Put ``key`` in place ``to`` (None: out of the queue), keep the per-place counts and,
        when the place changes and ``keep_history`` is on, note the move (``before`` given:
        the place to record as the one it came from)."""
        was = self._where.get(key)
        if to is None:
            self._where.pop(key, None)
        else:
            self._where[key] = to
        if was != to:
            if was is not None:
                self._counts[was] -= 1
            if to is not None:
                self._counts[to] = self._counts.get(to, 0) + 1
        if before is False:
            before = was
        if before != to and self.keep_history:
            self.history.append((self._history_clock(), key, before, to, why))

    def where(self, key: str) -> str | None:
        """Where the pod is: active, backoff, unschedulable, gated, in-flight, or None."""
        return self._where.get(key)

    def _unsched_add(self, qpi: QueuedPodInfo, why: str) -> None:
        self._unschedulable[qpi.key] = qpi
        self._move(qpi, GATED if qpi.gated else UNSCHEDULABLE, why)

    # -- backoff ----------------------------------------------------------------------------------------------------
    def _align_ns(self, t_ns: int) -> int:
        if not self.pop_from_backoff_q:
            return t_ns
        window = to_nanos(BACKOFF_ORDERING_WINDOW)
        return (t_ns // window) * window

    def calculate_backoff_duration(self, count: int, size: int = 1) -> float:
        """``calculateBackoffDuration``: initial << (count-1), capped at max (times sqrt(size) for groups).

        >>> q = SchedulingQueue(lambda a, b: False, pre_enqueue=None, hints={}, clock=lambda: 0.0)
        >>> [q.calculate_backoff_duration(n) for n in range(7)]
        [0.0, 1.0, 2.0, 4.0, 8.0, 10.0, 10.0]
        """
        return self._backoff_ns(count, size) / NANOS

    def _backoff_ns(self, count: int, size: int = 1) -> int:
        if count == 0:
            return 0
        max_b = self._max_ns
        if size > 1:
            max_b = int(float(max_b) * math.sqrt(size))
        shift = count - 1
        if self._initial_ns > (max_b >> shift):
            return max_b
        return self._initial_ns << shift

    @staticmethod
    def _backoff_count(qpi: QueuedPodInfo) -> int:
        return qpi.consecutive_errors_count if qpi.consecutive_errors_count > 0 else qpi.unschedulable_count

    def backoff_duration(self, qpi: QueuedPodInfo) -> float:
        """The backoff this pod is due, in seconds, from its failure counts (unaligned).

        The error count drives it while the last attempts ended in errors, else the
        unschedulable count; 0 when backoff is disabled (max backoff 0) or no attempt failed.
        """
        if self._max_ns == 0:
            return 0.0
        return self._backoff_ns(self._backoff_count(qpi)) / NANOS

    def _backoff_time_ns(self, qpi: QueuedPodInfo) -> int | None:
        """``getBackoffTime``: the (window-aligned) expiry, cached on the pod; None = no backoff.
        (A cached expiry is only ever set with a failure counted and backoff on, and is cleared
        whenever the counts change: it is returned as it is.)"""
        cached = qpi.backoff_expiration_ns
        if cached is not None:
            return cached
        if self._max_ns == 0:
            return None
        count = self._backoff_count(qpi)
        if count == 0:
            return None
        if qpi.backoff_expiration_ns is None:
            qpi.backoff_expiration_ns = self._align_ns(to_nanos(qpi.timestamp) + self._backoff_ns(count))
        return qpi.backoff_expiration_ns

    def backoff_expiration(self, qpi: QueuedPodInfo) -> float | None:
        """When the pod's backoff ends (aligned to the 1 s window with SchedulerPopFromBackoffQ); None = none."""
        t = self._backoff_time_ns(qpi)
        return None if t is None else t / NANOS

    def is_backing_off(self, qpi: QueuedPodInfo, now: float | None = None) -> bool:
        """``isEntityBackingoff``: the expiry is not before the (aligned) current time."""
        t = self._backoff_time_ns(qpi)
        if t is None:
            return False
        return not t < self._align_ns(to_nanos(self._now() if now is None else now))

    def _less_backoff(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        ta, tb = self._backoff_time_ns(a), self._backoff_time_ns(b)
        return _before(ta, tb)

    def _less_backoff_with_priority(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        ta = a.backoff_expiration_ns
        if ta is None:
            ta = self._backoff_time_ns(a)
        tb = b.backoff_expiration_ns
        if tb is None:
            tb = self._backoff_time_ns(b)
        if ta != tb:
            return _before(ta, tb)
        return self.less(a, b)

    def _backoff_add(self, qpi: QueuedPodInfo, why: str) -> None:
        if not qpi.unschedulable_plugins and not qpi.pending_plugins:
            self._error_backoff.add_or_update(qpi)
            self._backoff.delete(qpi.key)
        else:
            self._backoff.add_or_update(qpi)
            self._error_backoff.delete(qpi.key)
        self._move(qpi, BACKOFF, why)

    def _backoff_get(self, key: str) -> QueuedPodInfo | None:
        return self._backoff.get(key) or self._error_backoff.get(key)

    def _backoff_delete(self, key: str) -> QueuedPodInfo | None:
        return self._backoff.delete(key) or self._error_backoff.delete(key)

    # -- PreEnqueue ----------------------------------------------------------------------------------------------------
    def _run_pre_enqueue(self, qpi: QueuedPodInfo, memo: dict | None = None) -> None:
        if self._pre_enqueue is None:
            status = None
        elif memo is None:
            status = self._pre_enqueue(qpi.pod_info)
        else:
            status = self._pre_enqueue(qpi.pod_info, memo)
        if status is None or status.is_success():
            qpi.gating_plugin = ""
            return
        plugin = status.plugin or PREENQUEUE_UNNAMED
        qpi.unschedulable_plugins.add(plugin)
        qpi.gating_plugin = plugin
        qpi.gating_plugin_events = list(self._plugin_events.get(self._profile(qpi), {}).get(plugin, []))

    def _move_to_active(self, qpi: QueuedPodInfo, why: str, moves_from_backoff: bool = False,
                        memo: dict | None = None) -> bool:
        """``moveToActiveQ``: PreEnqueue (skipped for pods leaving backoffQ under PopFromBackoffQ),
        then activeQ, or the pool as gated."""
        if not (self.pop_from_backoff_q and moves_from_backoff):
            self._run_pre_enqueue(qpi, memo)
        if qpi.gated:
            qpi.was_flushed_from_unschedulable = False
            self._unsched_add(qpi, why)
            return False
        if qpi.initial_attempt_timestamp is None:
            qpi.initial_attempt_timestamp = self._now()
        self._unschedulable.pop(qpi.key, None)
        self._active.add_or_update(qpi)
        self._move(qpi, ACTIVE, why)
        return True

    def _move_to_backoff(self, qpi: QueuedPodInfo, why: str, memo: dict | None = None) -> bool:
        """``moveToBackoffQ``: under PopFromBackoffQ PreEnqueue runs here (a gated pod stays in the pool)."""
        if self.pop_from_backoff_q:
            self._run_pre_enqueue(qpi, memo)
            if qpi.gated:
                qpi.was_flushed_from_unschedulable = False
                self._unsched_add(qpi, why)
                return False
        self._unschedulable.pop(qpi.key, None)
        self._backoff_add(qpi, why)
        return True

    def _requeue(self, qpi: QueuedPodInfo, strategy: Strategy, why: str, memo: dict | None = None) -> str:
        """``requeueEntityWithQueueingStrategy``; returns where the pod went (``memo``: the
        move's, for PreEnqueue)."""
        if strategy == Strategy.SKIP:
            self._unsched_add(qpi, why)
            return self._where[qpi.key]
        if strategy == Strategy.AFTER_BACKOFF and self.is_backing_off(qpi):
            self._move_to_backoff(qpi, why, memo)
            return self._where[qpi.key]
        self._move_to_active(qpi, why, memo=memo)
        return self._where[qpi.key]

    # -- adding, updating, deleting --------------------------------------------------------------------------------------
    def _new_qpi(self, pod_info) -> QueuedPodInfo:
        return QueuedPodInfo(pod_info, self._now())

    def add(self, pod_info) -> None:
        """A new pending pod: PreEnqueue, then activeQ (or gated).

        A pod the queue already holds is treated as an update of it, so it is never duplicated.
        """
        if pod_info.key in self._where:
            old = self._current_pod_info(pod_info.key)
            self.update(old if old is not None else pod_info, pod_info)
            return
        qpi = self._new_qpi(pod_info)
        self.nominator.add_nominated_pod(pod_info, None)
        self._move_to_active(qpi, ev.EVENT_UNSCHEDULED_POD_ADD.label)

    def _current_pod_info(self, key: str):
        qpi = self._get(key)
        if qpi is not None:
            return qpi.pod_info
        marker = self._in_flight.get(key)
        if marker is not None:
            return self._in_flight_latest.get(key)
        return None

    def _get(self, key: str) -> QueuedPodInfo | None:
        return self._active.get(key) or self._backoff_get(key) or self._unschedulable.get(key)

    def get(self, key: str) -> QueuedPodInfo | None:
        """The queued pod with ``key`` (active, backoff, unschedulable or gated), else None."""
        return self._get(key)

    def update(self, old_pod_info, new_pod_info) -> None:
        """The pod was updated (``Update``): in flight -> the events are recorded for its return;
        in activeQ/backoffQ -> replaced in place; in the pool -> the hints of its rejectors for the
        pod's own update (``TargetPod`` events) decide whether it moves; else it is added."""
        key = new_pod_info.key
        old_pod = old_pod_info.pod
        new_pod = new_pod_info.pod
        events = ev.pod_scheduling_properties_change(new_pod, old_pod, is_self=True,
                                                     dra=self.gates.enabled("DynamicResourceAllocation"))
        if key in self._in_flight:
            for event in events:
                self._in_flight_log.append(RecordedEvent(event, old_pod, new_pod))
                self._recorded += 1
            self._in_flight_latest[key] = new_pod_info
            return
        qpi = self._active.get(key)
        if qpi is not None:
            qpi.pod_info = new_pod_info
            self._active.fix(key)
            self.nominator.update_nominated_pod(old_pod, new_pod_info)
            return
        for heap in (self._backoff, self._error_backoff):
            qpi = heap.get(key)
            if qpi is not None:
                qpi.pod_info = new_pod_info
                heap.fix(key)
                self.nominator.update_nominated_pod(old_pod, new_pod_info)
                return
        qpi = self._unschedulable.get(key)
        if qpi is not None:
            qpi.pod_info = new_pod_info
            self.nominator.update_nominated_pod(old_pod, new_pod_info)
            for event in events:
                strategy = self.is_pod_worth_requeuing(qpi, event, old_pod, new_pod)
                to = self._requeue(qpi, strategy, event.label)
                if to == ACTIVE or (self.pop_from_backoff_q and to == BACKOFF):
                    break
            return
        self.add(new_pod_info)

    def delete(self, key: str) -> None:
        """The pod was deleted: it leaves the queue (an in-flight pod is dropped when its attempt ends)."""
        self.nominator.delete_nominated_pod_if_exists(key)
        qpi = self._active.delete(key) or self._backoff_delete(key) or self._unschedulable.pop(key, None)
        if qpi is not None:
            self._move(qpi, None, "Delete")
            return
        if key in self._in_flight:
            self._deleted_in_flight.add(key)

    # -- popping and finishing attempts ---------------------------------------------------------------------------------------
    def pop(self) -> QueuedPodInfo | None:
        """The next pod to try: activeQ's head, or (SchedulerPopFromBackoffQ) backoffQ's head when
        activeQ is empty; None when nothing can be popped now. ``attempts`` grows by one."""
        while True:
            if len(self._active):
                qpi = self._active.pop()
                why = "Pop"
            elif self.pop_from_backoff_q and len(self._backoff):
                qpi = self._backoff.pop()
                why = ev.POP_FROM_BACKOFF_Q
            else:
                return None
            qpi.attempts += 1
            key = qpi.key
            if key in self._in_flight:  # tracked twice: discard this copy (upstream does the same)
                continue
            marker = _InFlightMarker(key, qpi.pod)
            self._in_flight[key] = marker
            self._in_flight_log.append(marker)
            self._in_flight_latest[key] = qpi.pod_info
            self.scheduling_cycle += 1
            self._move(qpi, IN_FLIGHT, why)
            return qpi

    def pop_members(self, keys: Iterable[str]) -> list[QueuedPodInfo]:
        """Take the other pending pods of a group out of activeQ, backoffQ or the pool along with
        a popped one (a PodGroup cycle attempts them together); gated pods stay. Each is in
        flight afterwards, as after :meth:`pop`."""
        out = []
        for key in keys:
            where = self._where.get(key)
            if where == ACTIVE:
                qpi = self._active.delete(key)
            elif where == BACKOFF:
                qpi = self._backoff_delete(key)
            elif where == UNSCHEDULABLE:  # (a gated pod stays)
                qpi = self._unschedulable.pop(key)
            else:
                continue
            assert qpi is not None, f"{key} is not where the queue has it ({where})"
            qpi.attempts += 1
            marker = _InFlightMarker(key, qpi.pod)
            self._in_flight[key] = marker
            self._in_flight_log.append(marker)
            self._in_flight_latest[key] = qpi.pod_info
            self._move(qpi, IN_FLIGHT, "Pop")
            out.append(qpi)
        return out

    def return_to_active(self, qpi: QueuedPodInfo) -> None:
        """A pod of a group that was scheduled without it goes straight back to activeQ,
        keeping its timestamp (no backoff), and its attempt is done."""
        key = qpi.key
        try:
            if key in self._deleted_in_flight:
                self._set_where(key, None, "Delete", before=None)
                return
            latest = self._in_flight_latest.get(key)
            if latest is not None:
                qpi.pod_info = latest
            self._move_to_active(qpi, ev.SCHEDULE_ATTEMPT_FAILURE)
        finally:
            self.done(key)

    def done(self, key: str) -> None:
        """The attempt of a popped pod finished (``Done``); a pod still in flight leaves the queue."""
        marker = self._in_flight.pop(key, None)
        if marker is None:
            return
        self._in_flight_log.remove(marker)
        while self._in_flight_log and isinstance(self._in_flight_log[0], RecordedEvent):
            self._in_flight_log.pop(0)
            self._recorded -= 1
        self._in_flight_latest.pop(key, None)
        self._deleted_in_flight.discard(key)
        if self._where.get(key) == IN_FLIGHT:
            self._set_where(key, None, "Done")

    def in_flight(self) -> list[str]:
        """Keys of the pods popped and not done yet."""
        return list(self._in_flight)

    def in_flight_events(self) -> list[Any]:
        """The in-flight log: pod markers and :class:`RecordedEvent` in arrival order."""
        return list(self._in_flight_log)

    def _events_since_pop(self, key: str) -> list[RecordedEvent] | None:
        marker = self._in_flight.get(key)
        if marker is None:
            return None
        if not self._recorded:  # no event was recorded since any pod in flight was popped
            return []
        idx = next(i for i, e in enumerate(self._in_flight_log) if e is marker)
        return [e for e in self._in_flight_log[idx + 1:] if isinstance(e, RecordedEvent)]

    def _hint_for_in_flight(self, qpi: QueuedPodInfo) -> Strategy:
        """``determineSchedulingHintForInFlightPod``."""
        if not qpi.unschedulable_plugins and not qpi.pending_plugins:
            return Strategy.AFTER_BACKOFF
        events = self._events_since_pop(qpi.key)
        if events is None:  # not popped through this queue
            return Strategy.AFTER_BACKOFF
        strategy = Strategy.SKIP
        for rec in events:
            s = self.is_pod_worth_requeuing(qpi, rec.event, rec.old_obj, rec.new_obj)
            if s == Strategy.SKIP:
                continue
            if s == Strategy.IMMEDIATELY:
                return s
            strategy = Strategy.AFTER_BACKOFF
            if not qpi.pending_plugins:
                return strategy
        return strategy

    def add_unschedulable_if_not_present(self, qpi: QueuedPodInfo, unschedulable_plugins: Iterable[str] = (),
                                         pending_plugins: Iterable[str] = frozenset(), error: bool = False) -> None:
        """A popped pod's attempt failed (``AddUnschedulablePodIfNotPresent``).

        ``unschedulable_plugins``/``pending_plugins`` are the plugins that rejected it
        (``error=True``: the attempt ended in an error, no plugin is recorded and the error
        count drives the backoff). The events seen while it was in flight decide whether it
        goes to the pool or straight to backoffQ/activeQ. Marks the attempt done.
        """
        if not isinstance(qpi, QueuedPodInfo):
            qpi = self._adopt(qpi)
        key = qpi.key
        try:
            where = self._where.get(key)  # (where the queue holds it: its heaps' and pool's answer)
            if where is not None and where != IN_FLIGHT:
                raise QueueError(f"Pod {key} is already present in the {where} queue")
            if key in self._deleted_in_flight:
                self._set_where(key, None, "Delete", before=IN_FLIGHT)
                return
            latest = self._in_flight_latest.get(key)
            if latest is not None:
                qpi.pod_info = latest
            if error:
                qpi.unschedulable_plugins, qpi.pending_plugins = set(), set()
            else:
                qpi.unschedulable_plugins = set(unschedulable_plugins)
                qpi.pending_plugins = set(pending_plugins)
            if not qpi.unschedulable_plugins and not qpi.pending_plugins:
                qpi.consecutive_errors_count += 1
            else:
                qpi.unschedulable_count += 1
                qpi.consecutive_errors_count = 0
            qpi.timestamp = self._now()
            qpi.backoff_expiration_ns = None
            qpi.was_flushed_from_unschedulable = False
            strategy = self._hint_for_in_flight(qpi)
            self._requeue(qpi, strategy, ev.SCHEDULE_ATTEMPT_FAILURE)
        finally:
            self.done(key)

    def _adopt(self, other) -> QueuedPodInfo:
        """A queued-pod object of another class (e.g. the scheduler's) as ours."""
        qpi = QueuedPodInfo(other.pod_info, getattr(other, "timestamp", self._now()),
                            getattr(other, "attempts", 0), getattr(other, "initial_attempt_timestamp", None))
        for name in ("unschedulable_plugins", "pending_plugins"):
            if hasattr(other, name):
                setattr(qpi, name, set(getattr(other, name)))
        for name in ("unschedulable_count", "consecutive_errors_count"):
            if hasattr(other, name):
                setattr(qpi, name, int(getattr(other, name)))
        return qpi

    def activate(self, keys: Iterable[str]) -> None:
        """``Activate``: move pods from the pool or backoffQ to activeQ; an in-flight pod gets a
        ForceActivate event so it comes back to activeQ/backoffQ after its attempt."""
        for key in keys:
            qpi = self._unschedulable.get(key)
            from_backoff = False
            if qpi is None:
                qpi = self._backoff_delete(key)
                from_backoff = qpi is not None
            if qpi is not None:
                self._move_to_active(qpi, ev.FORCE_ACTIVATE, from_backoff)
                continue
            marker = self._in_flight.get(key)
            if marker is not None:
                self._in_flight_log.append(RecordedEvent(ev.EVENT_FORCE_ACTIVATE, None, marker.pod))
                self._recorded += 1

    # -- cluster events ------------------------------------------------------------------------------------------------------
    def is_pod_worth_requeuing(self, qpi: QueuedPodInfo, event: ClusterEvent, old_obj, new_obj,
                               answers: dict | None = None) -> Strategy:
        """``isPodWorthRequeuing``: ask the hints of the plugins that rejected the pod.

        ``answers`` (one dict per event): the answers of :func:`events.event_only` hints are
        kept there and reused for the next pods; such a hint does not read the pod, so its
        answer (an error included: Queue) is the one it would give each of them.  So are the
        answers of ``by_key`` keyed hints, per key of the pod (they read only that of it)."""
        pending = qpi.pending_plugins
        rejectors = qpi.unschedulable_plugins | pending if pending else qpi.unschedulable_plugins
        if not rejectors:
            return Strategy.AFTER_BACKOFF
        if ev.cluster_event_is_wildcard(event):
            if new_obj is not None:
                target = ev._unwrap(new_obj)
                if type(target).__name__ != "Pod" or not ev.same_pod(target, qpi.pod):
                    return Strategy.SKIP
            return Strategy.AFTER_BACKOFF
        hints = self._hints_for_event(self._profile(qpi), event)
        if hints is None:
            return Strategy.AFTER_BACKOFF
        strategy = Strategy.SKIP
        for plugin, fn in hints:
            if plugin not in rejectors:
                continue
            if answers is not None and (fn in self._event_only or fn in self._by_key):
                slot = fn if fn in self._event_only else (fn, fn.key(qpi.pod))  # type: ignore[union-attr]
                hint = answers.get(slot)
                if hint is None:
                    hint = answers[slot] = ev.evaluate_hint(fn, qpi.pod_info, old_obj, new_obj)[0]
            else:
                hint, _ = ev.evaluate_hint(fn, qpi.pod_info, old_obj, new_obj)
            if hint == QueueingHint.QueueSkip:
                continue
            if plugin in pending:
                return Strategy.IMMEDIATELY
            if not pending:
                return Strategy.AFTER_BACKOFF
            strategy = Strategy.AFTER_BACKOFF
        return strategy

    def move_all_to_active_or_backoff(self, event: ClusterEvent | Sequence[ClusterEvent], old_obj=None, new_obj=None,
                                      pre_check: Callable[[Any], bool] | None = None) -> None:
        """A cluster event happened (``MoveAllToActiveOrBackoffQueue``): every pod in the pool whose
        rejecting plugins' hints say Queue moves to backoffQ/activeQ; the event is recorded for
        in-flight pods. ``event`` may be a list (each is processed in turn); ``pre_check(pod)``
        limits the candidates.  Only the pods a plugin with a hint for the event rejected are
        looked at (:meth:`UnschedulablePool.affected`), and of a plugin with a keyed hint
        (:class:`~kschedlab.framework.events.KeyedHint`) only the pods of the event's key: the
        others would stay anyway.  Answers that do not depend on the pod are kept for the move
        (:meth:`_move_pods`: event-only hints, PreEnqueue answers per ``pre_enqueue_key``)."""
        for one in ev.events_of(event):
            if not self._is_event_of_interest(one):
                continue
            pool = self._unschedulable
            within = list(pool.values()) if ev.cluster_event_is_wildcard(one) else \
                pool.affected(self._plugins_for_event(one), self._narrowed(one, old_obj, new_obj))
            candidates = [q for q in within if pre_check is None or pre_check(q.pod)]
            self._move_pods(candidates, one, old_obj, new_obj)

    def _move_pods(self, candidates: list[QueuedPodInfo], event: ClusterEvent, old_obj, new_obj) -> None:
        """``moveEntitiesToActiveOrBackoffQueue``, step for step for each pod.  The cluster does not
        change within it, so an event-only hint is asked once per plugin (``answers``) and the
        PreEnqueue plugins get one ``memo`` for the move (with ``pre_enqueue_memo``)."""
        if not self._is_event_of_interest(event):
            return
        if candidates:
            self._move_candidates(candidates, event, old_obj, new_obj)
        if self._in_flight:
            self._in_flight_log.append(RecordedEvent(event, old_obj, new_obj))
            self._recorded += 1

    def _move_candidates(self, candidates: list[QueuedPodInfo], event: ClusterEvent, old_obj, new_obj) -> None:
        # the pods of a move, each asked and requeued in turn (the move's answers and memo made
        # only for a move that has pods to ask)
        wildcard = ev.cluster_event_is_wildcard(event)
        answers: dict = {}
        memo: dict | None = {} if self._pre_enqueue_memo else None
        why = event.label
        for qpi in candidates:
            if self._unschedulable.get(qpi.key) is not qpi:
                continue
            if qpi.gated and not wildcard and not ev.match_any_cluster_event(event, qpi.gating_plugin_events):
                continue
            strategy = self.is_pod_worth_requeuing(qpi, event, old_obj, new_obj, answers)
            if strategy == Strategy.SKIP:
                continue
            self._unschedulable.move_to_end(qpi.key)  # out of the pool, or stored again last
            self._requeue(qpi, strategy, why, memo)

    def _cross_topology_candidates(self, pod) -> list[QueuedPodInfo]:
        """``getUnschedulablePodsWithCrossTopologyTerm``: pods rejected by PodTopologySpread in the
        same namespace, or whose required pod-affinity terms match ``pod``."""
        ns = pod.metadata.namespace or ""
        ns_labels = self._namespace_labels(ns) if self._namespace_labels is not None else None
        out = []
        for qpi in self._unschedulable.values():
            if "PodTopologySpread" in qpi.unschedulable_plugins and ns == (qpi.pod.metadata.namespace or ""):
                out.append(qpi)
                continue
            if any(term.matches(pod, ns_labels) for term in _required_affinity_terms(qpi.pod_info)):
                out.append(qpi)
        return out

    # -- event-handler conveniences (upstream eventhandlers.go with QueueingHints on) ------------------------------------
    def assigned_pod_added(self, pod_info) -> None:
        """A pod got bound (``addAssignedPodToCache``): ``AssignedPodAdd`` is offered to every pod in the pool.

        (The cross-topology pre-filter, :meth:`assigned_pod_added_prefiltered`, is upstream's path
        with SchedulerQueueingHints off; QueueingHints are GA.)"""
        self.move_all_to_active_or_backoff(ev.EVENT_ASSIGNED_POD_ADD, None, _pod_of(pod_info))

    def assigned_pod_updated(self, old_pod_info, new_pod_info) -> None:
        """A bound pod changed (``updateAssignedPodInCache``): each event of the update
        (``AssignedPod`` + UpdatePodLabel / UpdatePodScaleDown / ... or Update) is offered to every pod."""
        old, new = _pod_of(old_pod_info), _pod_of(new_pod_info)
        for event in ev.pod_scheduling_properties_change(new, old, is_self=False,
                                                         dra=self.gates.enabled("DynamicResourceAllocation")):
            self.move_all_to_active_or_backoff(event, old, new)

    def assigned_pod_deleted(self, pod_info) -> None:
        """A bound pod was deleted (``deleteAssignedPodFromCache``): ``AssignedPodDelete`` for every pod in the pool."""
        self.move_all_to_active_or_backoff(ev.EVENT_ASSIGNED_POD_DELETE, _pod_of(pod_info), None)

    def unscheduled_pod_updated(self, old_pod_info, new_pod_info) -> None:
        """An unbound pod changed (``updatePodInSchedulingQueue``): :meth:`update`, and when its nominated
        node changed away from a node, ``AssignedPodDelete`` for the pods of lower or equal priority
        (they had counted it as if it were on that node)."""
        self.update(old_pod_info, new_pod_info)
        old, new = _pod_of(old_pod_info), _pod_of(new_pod_info)
        old_nnn = _nominated_node(old)
        if old_nnn and old_nnn != _nominated_node(new):
            self.move_all_to_active_or_backoff(ev.EVENT_ASSIGNED_POD_DELETE, old, None,
                                               pre_check=_le_priority(_priority(old)))

    def unscheduled_pod_deleted(self, pod_info, *, was_assumed: bool = False) -> None:
        """An unbound pod was deleted (``deletePodFromSchedulingQueue``): :meth:`delete`; a pod that was
        assumed (waiting at Permit or binding) frees its node -- ``AssignedPodDelete`` for every pod --,
        a nominated one frees its nomination -- ``AssignedPodDelete`` for lower or equal priority pods."""
        pod = _pod_of(pod_info)
        self.delete(pod_info.key if hasattr(pod_info, "key") else _key_of(pod))
        if was_assumed:
            self.move_all_to_active_or_backoff(ev.EVENT_ASSIGNED_POD_DELETE, pod, None)
        elif _nominated_node(pod):
            self.move_all_to_active_or_backoff(ev.EVENT_ASSIGNED_POD_DELETE, pod, None,
                                               pre_check=_le_priority(_priority(pod)))

    def assigned_pod_added_prefiltered(self, pod_info) -> None:
        """``AssignedPodAdded`` (SchedulerQueueingHints off): only pods the new pod might help through
        inter-pod affinity or topology spreading are considered."""
        pod = _pod_of(pod_info)
        self._move_pods(self._cross_topology_candidates(pod), ev.EVENT_ASSIGNED_POD_ADD, None, pod)

    def node_added(self, node) -> None:
        self.move_all_to_active_or_backoff(ev.EVENT_NODE_ADD, None, node)

    def node_updated(self, old_node, new_node) -> None:
        self.move_all_to_active_or_backoff(ev.node_updated(old_node, new_node), old_node, new_node)

    def node_deleted(self, node) -> None:
        self.move_all_to_active_or_backoff(ev.EVENT_NODE_DELETE, node, None)

    # -- flushes and time --------------------------------------------------------------------------------------------------------
    def flush_backoff_completed(self) -> None:
        """``flushBackoffQCompleted``: every pod whose backoff is over moves to activeQ."""
        done: list[QueuedPodInfo] = []
        for heap in (self._backoff, self._error_backoff):
            while len(heap):
                head = heap.peek()
                if head is None or self.is_backing_off(head):
                    break
                done.append(heap.pop())
        for qpi in done:
            self._move_to_active(qpi, ev.BACKOFF_COMPLETE, True)

    def _leftover_reference(self, qpi: QueuedPodInfo) -> float:
        ref = qpi.timestamp
        if qpi.flush_timestamp is not None and qpi.flush_timestamp > ref:
            ref = qpi.flush_timestamp
        return ref

    def flush_unschedulable_leftover(self) -> None:
        """``flushUnschedulableEntitiesLeftover``: pods that stayed in the pool longer than
        ``pod_max_in_unschedulable_pods_duration`` get the UnschedulableTimeout event (a wildcard:
        they move to backoffQ/activeQ unless still gated)."""
        now = self._now()
        to_move = []
        for qpi in self._unschedulable.values():
            if now - self._leftover_reference(qpi) > self.pod_max_in_unschedulable_pods_duration:
                qpi.was_flushed_from_unschedulable = True
                qpi.flush_timestamp = now
                to_move.append(qpi)
        if to_move:
            self._move_pods(to_move, ev.EVENT_UNSCHEDULABLE_TIMEOUT, None, None)

    def _backoff_tick_at_or_before(self, t: float) -> float:
        if self.pop_from_backoff_q:
            return math.floor(t / BACKOFF_ORDERING_WINDOW) * BACKOFF_ORDERING_WINDOW
        return self._run_start + math.floor((t - self._run_start) / BACKOFF_ORDERING_WINDOW) * BACKOFF_ORDERING_WINDOW

    def _leftover_tick_at_or_before(self, t: float) -> float:
        return self._run_start + math.floor((t - self._run_start) / LEFTOVER_FLUSH_INTERVAL) * LEFTOVER_FLUSH_INTERVAL

    def flush(self) -> None:
        """Run the queue's periodic flushes whose tick has come since they last ran (at ``clock()``):
        the backoff flush every second (on whole seconds with SchedulerPopFromBackoffQ), the
        leftover flush every 30 s from the queue's creation."""
        now = self._now()
        tick = self._backoff_tick_at_or_before(now)
        if tick > self._last_backoff_tick:
            self._last_backoff_tick = tick
            self.flush_backoff_completed()
        tick = self._leftover_tick_at_or_before(now)
        if tick > self._last_leftover_tick:
            self._last_leftover_tick = tick
            self.flush_unschedulable_leftover()

    def next_wakeup(self) -> float | None:
        """The earliest tick at which a periodic flush will move a pod (backoff over, or the
        leftover timeout), or None when nothing will change by itself."""
        best: float | None = None
        # backoff: the head of either heap has the earliest expiry
        for heap in (self._backoff, self._error_backoff):
            head = heap.peek()
            if head is None:
                continue
            t = self._backoff_time_ns(head)
            if t is None:
                cand = self._last_backoff_tick + BACKOFF_ORDERING_WINDOW
            else:
                exp = t / NANOS
                # first tick where exp < align(tick): the window after the expiry
                cand = self._backoff_tick_at_or_before(exp) + BACKOFF_ORDERING_WINDOW
                cand = max(cand, self._last_backoff_tick + BACKOFF_ORDERING_WINDOW)
            best = cand if best is None else min(best, cand)
        # the leftover flush: the tick is the same function, never decreasing, of each pod's
        # reference time, so the pod of the earliest one decides (the pool keeps it at hand)
        lowest = self._unschedulable.lowest()
        if lowest is not None:
            ref, qpi = lowest
            if ref != self._leftover_reference(qpi):  # pragma: no cover - references do not change in the pool
                raise AssertionError(f"the leftover reference of {qpi.key} changed in the pool")
            due = ref + self.pod_max_in_unschedulable_pods_duration
            tick = self._leftover_tick_at_or_before(due) + LEFTOVER_FLUSH_INTERVAL  # first tick with now - ref > D
            tick = max(tick, self._last_leftover_tick + LEFTOVER_FLUSH_INTERVAL)
            best = tick if best is None else min(best, tick)
        return best

    # -- a simulation's quiescent retries (kschedlab.sim.fast_forward) --------------------------------------------------------
    def periodic_state(self, now: float) -> tuple | None:
        """What the queue's next moves depend on: ``(pods, times, phase)``, per pod of the
        unschedulable pool (in its order) ``(key, where, due backoff, rejecting plugins,
        gating plugin)``, then the times it keeps (each pod's timestamp, flush timestamp and
        backoff expiry, the last backoff and leftover flush ticks) and the phase of ``now``
        against both flush ticks.  None when a pod is active, backing off, in flight or
        counting errors (only a pool of rejected or gated pods repeats its retries)."""
        if len(self._active) or len(self._backoff) or len(self._error_backoff) or self._in_flight:
            return None
        pods, times = [], []
        for key, qpi in self._unschedulable.items():
            if qpi.consecutive_errors_count:
                return None
            pods.append((key, self._where.get(key), self.backoff_duration(qpi), qpi.was_flushed_from_unschedulable,
                         tuple(sorted(qpi.unschedulable_plugins)), tuple(sorted(qpi.pending_plugins)),
                         qpi.gating_plugin))
            expiry = qpi.backoff_expiration_ns
            times += [qpi.timestamp, qpi.flush_timestamp, None if expiry is None else expiry / NANOS]
        times += [self._last_backoff_tick, self._last_leftover_tick]
        phase = (round((now - self._run_start) % LEFTOVER_FLUSH_INTERVAL, 6),
                 round((now - self._run_start) % BACKOFF_ORDERING_WINDOW, 6), round(now % BACKOFF_ORDERING_WINDOW, 6))
        return tuple(pods), tuple(times), phase

    def attempt_counts(self) -> dict[str, tuple[int, int]]:
        """Pod in the unschedulable pool -> (attempts, unschedulable count)."""
        return {key: (qpi.attempts, qpi.unschedulable_count) for key, qpi in self._unschedulable.items()}

    def fast_forward(self, delta: float, moving: Sequence[bool], counts: Mapping[str, tuple[int, int]],
                     cycles: int) -> None:
        """Move the queue on as if its retries had gone on: each time of :meth:`periodic_state`
        whose ``moving`` flag is set moves ``delta`` seconds (the others stay), each pod of
        ``counts`` adds (attempts, unschedulable count) and the scheduling cycle ``cycles``."""
        flags = iter(moving)
        shift_ns = to_nanos(delta)
        for key, qpi in self._unschedulable.items():
            if next(flags):
                qpi.timestamp += delta
            if next(flags) and qpi.flush_timestamp is not None:
                qpi.flush_timestamp += delta
            if next(flags) and qpi.backoff_expiration_ns is not None:
                qpi.backoff_expiration_ns += shift_ns
            attempts, unschedulable = counts.get(key, (0, 0))
            qpi.attempts += attempts
            qpi.unschedulable_count += unschedulable
        self._unschedulable.rerank()
        if next(flags):
            self._last_backoff_tick += delta
        if next(flags):
            self._last_leftover_tick += delta
        self.scheduling_cycle += cycles

    # -- reading the queue -------------------------------------------------------------------------------------------------------
    def pending(self) -> dict[str, list[str]]:
        """Keys per queue (``scheduler_pending_pods{queue=...}``); active and backoff in pop order,
        the pool in insertion order. In-flight pods are not pending."""
        unsched = [k for k, q in self._unschedulable.items() if not q.gated]
        gated = [k for k, q in self._unschedulable.items() if q.gated]
        backoff = sorted([*self._backoff, *self._error_backoff], key=cmp_to_key(self._cmp_backoff))
        return {ACTIVE: [q.key for q in self._active.in_pop_order()],
                BACKOFF: [q.key for q in backoff],
                UNSCHEDULABLE: unsched,
                GATED: gated}

    def pending_counts(self) -> dict[str, int]:
        """How many pods each queue holds (the sizes of :meth:`pending`, without ordering them)."""
        gated = self._counts.get(GATED, 0)
        return {ACTIVE: len(self._active), BACKOFF: len(self._backoff) + len(self._error_backoff),
                UNSCHEDULABLE: len(self._unschedulable) - gated, GATED: gated}

    def placements(self) -> dict[str, str]:
        """Every pod the queue holds -> where it is (active, backoff, unschedulable, gated, in-flight)."""
        return dict(self._where)

    def _cmp_backoff(self, a: QueuedPodInfo, b: QueuedPodInfo) -> int:
        less = self._less_backoff_with_priority if self.pop_from_backoff_q else self._less_backoff
        return -1 if less(a, b) else (1 if less(b, a) else 0)

    def pending_summary(self) -> str:
        """``PendingPods``' summary string: ``activeQ:1; backoffQ:0; unschedulableEntities:2``."""
        p = self.pending()
        return (f"activeQ:{len(p[ACTIVE])}; backoffQ:{len(p[BACKOFF])}; "
                f"unschedulableEntities:{len(p[UNSCHEDULABLE]) + len(p[GATED])}")

    def __len__(self) -> int:
        return len(self._active) + len(self._backoff) + len(self._error_backoff) + len(self._unschedulable)

    def __contains__(self, key: str) -> bool:
        return key in self._where

    # -- nominator -------------------------------------------------------------------------------------------------------------------
    def add_nominated_pod(self, pod_info, nominating_info: NominatingInfo | None = None) -> None:
        self.nominator.add_nominated_pod(pod_info, nominating_info)

    def delete_nominated_pod_if_exists(self, key: str) -> None:
        self.nominator.delete_nominated_pod_if_exists(key)

    def nominated_pods_for_node(self, node: str) -> list[Any]:
        """PodInfos nominated to ``node``, in their current queued version when queued."""
        out = []
        for pi in self.nominator.nominated_pods_for_node(node):
            current = self._current_pod_info(pi.key)
            out.append(current if current is not None else pi)
        return out


def _qpi_key(qpi: QueuedPodInfo) -> str:
    return qpi.key


def _before(a: int | None, b: int | None) -> bool:
    """``a.Before(b)`` where None is Go's zero time (before everything)."""
    if a is None:
        return b is not None
    if b is None:
        return False
    return a < b


def _pod_of(obj):
    return obj.pod if hasattr(obj, "pod") and not hasattr(obj, "metadata") else obj


def _nominated_node(pod) -> str:
    return (pod.status.nominated_node_name or "") if pod.status else ""


def _priority(pod) -> int:
    """``corev1helpers.PodPriority``: spec.priority, 0 when unset."""
    return pod.spec.priority if pod.spec.priority is not None else 0


def _le_priority(priority: int) -> Callable[[Any], bool]:
    """``getLEPriorityPreCheck``: only pods of lower or equal priority."""
    return lambda pod: _priority(pod) <= priority


def _key_of(pod) -> str:
    return f"{pod.metadata.namespace or ''}/{pod.metadata.name}"


def _required_affinity_terms(pod_info) -> list:
    aff = pod_info.pod.spec.affinity
    if aff is None or aff.pod_affinity is None or not aff.pod_affinity.required_during_scheduling_ignored_during_execution:
        return []
    try:
        from kschedlab.plugins.inter_pod_affinity_terms import pod_terms
    except ImportError:  # pragma: no cover - the InterPodAffinity module is optional
        return []
    return list(pod_terms(pod_info).required_affinity)
