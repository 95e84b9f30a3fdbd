"""NodeUnschedulable: cordoned nodes (``spec.unschedulable``) reject pods that
do not tolerate the ``node.kubernetes.io/unschedulable:NoSchedule`` taint."""

import numpy as np

from kschedlab.api.core import Taint
from kschedlab.api.tolerations import tolerations_tolerate_taint
from kschedlab.framework.events import QUEUE, SKIP, HintError, QueueingHint, as_objects, pod_of, same_pod
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

        return [(ClusterEvent(NODE, ActionType.Add | ActionType.UpdateNodeTaint), node_unschedulable_after_node_change),
                (ClusterEvent(TARGET_POD, ActionType.UpdatePodToleration),
                 node_unschedulable_after_pod_toleration_change)]

    def sign_pod(self, pod_info):
        """Signature: the tolerations (the unschedulable taint may be tolerated)."""
        return [SignFragment(TOLERATIONS_SIGNER_NAME, tolerations_signer(pod_info.pod))], None

    def filter_nodes(self, state, pod_info, snapshot, rows: np.ndarray) -> Verdicts:
        cordoned = snapshot.unschedulable[rows]
        if cordoned.any() and tolerations_tolerate_taint(pod_info.pod.spec.tolerations, UNSCHEDULABLE_TAINT):
            cordoned = np.zeros(len(rows), bool)
        return Verdicts.from_mask(cordoned, Code.UnschedulableAndUnresolvable, (ERR_REASON_UNSCHEDULABLE,))


# -- QueueingHints: events that may make a pod this plugin rejected schedulable -------------------
UNSCHEDULABLE_TAINT_KEY = "node.kubernetes.io/unschedulable"


def node_unschedulable_after_node_change(pod_info, old_obj, new_obj) -> QueueingHint:
    """Queue when a node was added schedulable, or went from unschedulable to schedulable."""
    original, modified = as_objects(old_obj, new_obj, "Node")
    if modified is None:
        raise HintError("expected a new *v1.Node")
    if (original is not None and original.spec.unschedulable and not modified.spec.unschedulable) or (
            original is None and not modified.spec.unschedulable):
        return QUEUE
    return SKIP


def node_unschedulable_after_pod_toleration_change(pod_info, old_obj, new_obj) -> QueueingHint:
    """Queue when the rejected pod itself got a toleration of ``node.kubernetes.io/unschedulable:NoSchedule``."""
    from kschedlab.api.core import Taint
    from kschedlab.api.tolerations import tolerations_tolerate_taint

    _, modified = as_objects(old_obj, new_obj, "Pod")
    if modified is None:
        raise HintError("expected a new *v1.Pod")
    if same_pod(pod_of(pod_info), modified):
        taint = Taint(key=UNSCHEDULABLE_TAINT_KEY, effect="NoSchedule")
        if tolerations_tolerate_taint(modified.spec.tolerations, taint):
            return QUEUE
        return SKIP
    return SKIP
