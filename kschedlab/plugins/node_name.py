"""NodeName: a pod that names a node (``spec.nodeName``) fits only that node."""

import numpy as np

from kschedlab.framework.interface import Plugin, PreFilterResult, SignFragment, Verdicts, register
from kschedlab.framework.signers import NODE_NAME_SIGNER_NAME
from kschedlab.framework.status import Code, Status

NAME = "NodeName"
GATE = "InPlacePodVerticalScalingSchedulerPreemption"
ERR_REASON = "node(s) didn't match the requested node name"


def fits(pod, node_name: str) -> bool:
    return not pod.spec.node_name or pod.spec.node_name == node_name


@register
class NodeName(Plugin):
    name = NAME

    def events_to_register(self):
        """``EventsToRegister``: only a new node can be the requested one (no hint: always Queue)."""
        from kschedlab.framework.events import NODE, ActionType, ClusterEvent

        return [(ClusterEvent(NODE, ActionType.Add), None)]

    def sign_pod(self, pod_info):
        """Signature: the requested node name."""
        return [SignFragment(NODE_NAME_SIGNER_NAME, pod_info.pod.spec.node_name or "")], None

    def pre_filter(self, state, pod_info, snapshot):
        """With the alpha gate on, a bound pod whose in-place resize is Deferred
        is restricted to its own node (so preemption can make room there)."""
        pod = pod_info.pod
        if self.handle.gates.enabled(GATE) and pod.spec.node_name and _resize_deferred(pod):
            return PreFilterResult(frozenset({pod.spec.node_name})), Status()
        return None, Status()

    def filter_nodes(self, state, pod_info, snapshot, rows: np.ndarray) -> Verdicts:
        wanted = pod_info.pod.spec.node_name
        if not wanted:
            return Verdicts.passing(len(rows))
        names = np.asarray(snapshot.names, object)[rows]
        return Verdicts.from_mask(names != wanted, Code.UnschedulableAndUnresolvable, (ERR_REASON,))


def _resize_deferred(pod) -> bool:
    return any(c.type == "PodResizePending" and c.status == "True" and c.reason == "Deferred"
               for c in (pod.status.conditions if pod.status else []))
