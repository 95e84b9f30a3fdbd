"""SchedulingGates: hold a pod before the queue while it has scheduling gates."""

from kschedlab.framework.interface import Plugin, register
from kschedlab.framework.status import Status

NAME = "SchedulingGates"


@register
class SchedulingGates(Plugin):
    name = NAME

    def pre_enqueue(self, pod_info) -> Status:
        gates = [g.name for g in pod_info.pod.spec.scheduling_gates]
        if not gates:
            return Status()
        return Status.unresolvable(f"waiting for scheduling gates: [{' '.join(gates)}]", plugin=NAME)
