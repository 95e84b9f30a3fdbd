"""The scheduling queue (upstream ``pkg/scheduler/backend/queue``): activeQ, backoffQ, the
unschedulable pool and gated pods, QueueingHints and an injected clock.

* :mod:`.scheduling_queue` — the PriorityQueue and its moves between sub-queues;
* :mod:`.heap` — the keyed heap behind activeQ and backoffQ;
* :mod:`.types` — ``QueuedPodInfo``, a pod plus its queueing state;
* :mod:`.hints` — the events each profile's plugins register (their hint functions live
  beside the plugins, in :mod:`kschedlab.plugins`).

Nominations (``nominatedNodeName``) are kept by :class:`kschedlab.framework.nominator.Nominator`,
which the queue and the cluster share.
"""

from kschedlab.framework.events import ClusterEvent, QueueingHint
from kschedlab.framework.nominator import MODE_NOOP, MODE_OVERRIDE, NominatingInfo, Nominator
from kschedlab.queue.heap import Heap
from kschedlab.queue.hints import framework_hints, plugin_hints
from kschedlab.queue.scheduling_queue import (
    ACTIVE,
    BACKOFF,
    BACKOFF_ORDERING_WINDOW,
    DEFAULT_POD_INITIAL_BACKOFF,
    DEFAULT_POD_MAX_BACKOFF,
    DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION,
    GATED,
    IN_FLIGHT,
    LEFTOVER_FLUSH_INTERVAL,
    UNSCHEDULABLE,
    QueueError,
    RecordedEvent,
    SchedulingQueue,
    Strategy,
    build_hint_map,
)
from kschedlab.queue.types import QueuedPodInfo

__all__ = [
    "Heap", "Nominator", "NominatingInfo", "MODE_NOOP", "MODE_OVERRIDE", "SchedulingQueue", "QueuedPodInfo",
    "QueueError", "RecordedEvent", "Strategy", "build_hint_map", "ACTIVE", "BACKOFF", "UNSCHEDULABLE", "GATED",
    "IN_FLIGHT", "BACKOFF_ORDERING_WINDOW", "LEFTOVER_FLUSH_INTERVAL", "DEFAULT_POD_INITIAL_BACKOFF",
    "DEFAULT_POD_MAX_BACKOFF", "DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION",
    "ClusterEvent", "QueueingHint", "framework_hints", "plugin_hints",
]
