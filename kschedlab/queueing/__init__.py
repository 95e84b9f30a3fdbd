"""The scheduling queue and its parts; the public entry is :mod:`kschedlab.queue`."""

from kschedlab.queueing.heap import Heap
from kschedlab.queueing.nominator import MODE_NOOP, MODE_OVERRIDE, NominatingInfo, Nominator
from kschedlab.queueing.scheduling_queue import (
    ACTIVE, BACKOFF, BACKOFF_ORDERING_WINDOW, DEFAULT_POD_INITIAL_BACKOFF, DEFAULT_POD_MAX_BACKOFF,
    DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION, GATED, IN_FLIGHT, LEFTOVER_FLUSH_INTERVAL, UNSCHEDULABLE,
    QueueError, RecordedEvent, SchedulingQueue, Strategy, build_hint_map)
from kschedlab.queueing.types import QueuedPodInfo

__all__ = [
    "Heap", "Nominator", "NominatingInfo", "MODE_NOOP", "MODE_OVERRIDE", "SchedulingQueue", "QueuedPodInfo",
    "QueueError", "RecordedEvent", "Strategy", "build_hint_map", "ACTIVE", "BACKOFF", "UNSCHEDULABLE", "GATED",
    "IN_FLIGHT", "BACKOFF_ORDERING_WINDOW", "LEFTOVER_FLUSH_INTERVAL", "DEFAULT_POD_INITIAL_BACKOFF",
    "DEFAULT_POD_MAX_BACKOFF", "DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION",
]
