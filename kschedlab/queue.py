"""The scheduling queue: activeQ, backoffQ, the unschedulable pool and gated pods,
QueueingHints and an injected clock (see :mod:`kschedlab.queueing.scheduling_queue`).

>>> from kschedlab.framework.runtime import Framework
>>> fw = Framework({})
>>> hints = framework_hints(fw)
>>> [e.label for e, _ in hints["NodeName"]]
['NodeAdd']
>>> "PrioritySort" in hints, "ImageLocality" in hints    # they never reject a pod
(False, False)
"""

from __future__ import annotations

from typing import Any

from kschedlab.framework.events import UNROLLED_WILDCARD, ClusterEvent, QueueingHint
from kschedlab.queueing import (
    ACTIVE, BACKOFF, GATED, IN_FLIGHT, UNSCHEDULABLE, MODE_NOOP, MODE_OVERRIDE, NominatingInfo, QueueError,
    QueuedPodInfo, RecordedEvent, SchedulingQueue, Strategy)

__all__ = [
    "SchedulingQueue", "QueuedPodInfo", "QueueError", "RecordedEvent", "Strategy", "NominatingInfo",
    "MODE_NOOP", "MODE_OVERRIDE", "ACTIVE", "BACKOFF", "UNSCHEDULABLE", "GATED", "IN_FLIGHT",
    "ClusterEvent", "QueueingHint", "framework_hints", "plugin_hints",
]

#: extension points (method names) at which a plugin can reject a pod
_REJECTING_METHODS = ("pre_enqueue", "pre_filter", "filter", "filter_nodes", "reserve", "permit")


def plugin_hints(plugin) -> list[tuple[ClusterEvent, Any]] | None:
    """A plugin's ``events_to_register()``; for a plugin that can reject pods but registers
    nothing, every event with no hint (upstream ``defaultEnqueueExtension``); None otherwise."""
    register = getattr(plugin, "events_to_register", None)
    if register is not None:
        return list(register())
    if any(callable(getattr(plugin, m, None)) for m in _REJECTING_METHODS):
        return [(event, None) for event in UNROLLED_WILDCARD]
    return None


def framework_hints(framework) -> dict[str, list[tuple[ClusterEvent, Any]]]:
    """``{plugin: [(ClusterEvent, hint)]}`` for the plugins of one profile (a ``Framework``),
    ready for ``SchedulingQueue(hints=...)``; plugins registering no event are left out."""
    out: dict[str, list[tuple[ClusterEvent, Any]]] = {}
    for name, plugin in framework.plugins.items():
        regs = plugin_hints(plugin)
        if regs:
            out[name] = regs
    return out
