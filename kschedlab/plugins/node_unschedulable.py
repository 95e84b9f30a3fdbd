"""NodeUnschedulable: cordoned nodes (``spec.unschedulable``) reject pods that
do not tolerate the ``node.kubernetes.io/unschedulable:NoSchedule`` taint."""

import numpy as np

from kschedlab.api.core import Taint
from kschedlab.corev1helpers import tolerations_tolerate_taint
from kschedlab.framework.interface import Plugin, SignFragment, Verdicts, register
from kschedlab.framework.signers import TOLERATIONS_SIGNER_NAME, tolerations_signer
from kschedlab.framework.status import Code

NAME = "NodeUnschedulable"
ERR_REASON_UNSCHEDULABLE = "node(s) were unschedulable"
UNSCHEDULABLE_TAINT = Taint(key="node.kubernetes.io/unschedulable", effect="NoSchedule")


@register
class NodeUnschedulable(Plugin):
    name = NAME

    def events_to_register(self):
        """``EventsToRegister``: a node added or updated (cordon lifted), or a toleration added to the pod."""
        from kschedlab.framework.events import NODE, TARGET_POD, ActionType, ClusterEvent
        from kschedlab.queueing import plugin_hints as h

        return [(ClusterEvent(NODE, ActionType.Add | ActionType.UpdateNodeTaint), h.node_unschedulable_after_node_change),
                (ClusterEvent(TARGET_POD, ActionType.UpdatePodToleration),
                 h.node_unschedulable_after_pod_toleration_change)]

    def sign_pod(self, pod_info):
        """Signature: the tolerations (the unschedulable taint may be tolerated)."""
        return [SignFragment(TOLERATIONS_SIGNER_NAME, tolerations_signer(pod_info.pod))], None

    def filter_nodes(self, state, pod_info, snapshot, rows: np.ndarray) -> Verdicts:
        cordoned = snapshot.unschedulable[rows]
        if cordoned.any() and tolerations_tolerate_taint(pod_info.pod.spec.tolerations, UNSCHEDULABLE_TAINT):
            cordoned = np.zeros(len(rows), bool)
        return Verdicts.from_mask(cordoned, Code.UnschedulableAndUnresolvable, (ERR_REASON_UNSCHEDULABLE,))
