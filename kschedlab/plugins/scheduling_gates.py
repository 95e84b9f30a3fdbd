"""SchedulingGates: hold a pod before the queue while it has scheduling gates."""

from kschedlab.framework.events import QUEUE, QueueingHint
from kschedlab.framework.interface import Plugin, register
from kschedlab.framework.status import SUCCESS, Status

NAME = "SchedulingGates"


@register
class SchedulingGates(Plugin):
    name = NAME

    def events_to_register(self):
        """``EventsToRegister``: the pod's own update that removes its last scheduling gate."""
        from kschedlab.framework.events import TARGET_POD, ActionType, ClusterEvent

        return [(ClusterEvent(TARGET_POD, ActionType.UpdatePodSchedulingGatesEliminated),
                 scheduling_gates_after_gates_eliminated)]

    def pre_enqueue(self, pod_info) -> Status:
        scheduling_gates = pod_info.pod.spec.scheduling_gates
        if not scheduling_gates:
            return SUCCESS
        gates = [g.name for g in scheduling_gates]
        return Status.unresolvable(f"waiting for scheduling gates: [{' '.join(gates)}]", plugin=NAME)


# -- QueueingHints: events that may make a pod this plugin rejected schedulable -------------------
def scheduling_gates_after_gates_eliminated(pod_info, old_obj, new_obj) -> QueueingHint:
    """``isSchedulableAfterUpdateTargetPodSchedulingGatesEliminated``: the pod's last gate is gone."""
    return QUEUE
