"""SchedulingGates: hold a pod before the queue while it has scheduling gates."""

from kschedlab.framework.interface import Plugin, register
from kschedlab.framework.status import Status

NAME = "SchedulingGates"


@register
class SchedulingGates(Plugin):
    name = NAME

    def events_to_register(self):
        """``EventsToRegister``: the pod's own update that removes its last scheduling gate."""
        from kschedlab.framework.events import TARGET_POD, ActionType, ClusterEvent
        from kschedlab.queueing.plugin_hints import scheduling_gates_after_gates_eliminated

        return [(ClusterEvent(TARGET_POD, ActionType.UpdatePodSchedulingGatesEliminated),
                 scheduling_gates_after_gates_eliminated)]

    def pre_enqueue(self, pod_info) -> Status:
        gates = [g.name for g in pod_info.pod.spec.scheduling_gates]
        if not gates:
            return Status()
        return Status.unresolvable(f"waiting for scheduling gates: [{' '.join(gates)}]", plugin=NAME)
