"""The cluster events each plugin registers, with its QueueingHint functions
(upstream ``EventsToRegister``), gathered per profile for the queue.

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

from kschedlab.framework.events import UNROLLED_WILDCARD, ClusterEvent

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
