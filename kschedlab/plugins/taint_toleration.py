"""TaintToleration: NoSchedule / NoExecute taints a pod does not tolerate
reject the node; untolerated PreferNoSchedule taints lower its score.

Work is done once per distinct taint set (``Snapshot.taint_sets``) and
broadcast to the nodes sharing it.
"""

import numpy as np

from kschedlab.api.tolerations import TaintValueError, find_matching_untolerated_taint, tolerates
from kschedlab.framework.events import QUEUE, SKIP, HintError, QueueingHint, as_objects, pod_of, same_pod
from kschedlab.framework.interface import MAX_NODE_SCORE, Plugin, SignFragment, Verdicts, register
from kschedlab.framework.signers import TOLERATIONS_SIGNER_NAME, tolerations_signer
from kschedlab.framework.status import Status
from kschedlab.plugins.helper import default_normalize_score

NAME = "TaintToleration"
ERR_REASON_NOT_MATCH = "node(s) had untolerated taint(s)"
GATE = "TaintTolerationComparisonOperators"
DO_NOT_SCHEDULE = ("NoSchedule", "NoExecute")


@register
class TaintToleration(Plugin):
    name = NAME

    @property
    def comparison_operators(self) -> bool:
        return self.handle.gates.enabled(GATE)

    def events_to_register(self):
        """``EventsToRegister``: a node added or its taints changed; a toleration added to the pod."""
        from kschedlab.framework.events import NODE, TARGET_POD, ActionType, ClusterEvent

        comparison_operators = self.comparison_operators if self.handle is not None else False
        return [(ClusterEvent(NODE, ActionType.Add | ActionType.UpdateNodeTaint),
                 taint_toleration_after_node_change(comparison_operators)),
                (ClusterEvent(TARGET_POD, ActionType.UpdatePodToleration), taint_toleration_after_pod_toleration_change)]

    def sign_pod(self, pod_info):
        """Signature: the tolerations."""
        return [SignFragment(TOLERATIONS_SIGNER_NAME, tolerations_signer(pod_info.pod))], None

    def _group_status(self, taints, tolerations) -> Status:
        try:
            taint = find_matching_untolerated_taint(taints, tolerations, DO_NOT_SCHEDULE,
                                                    comparison_operators=self.comparison_operators)
        except TaintValueError as err:
            return Status.unresolvable(str(err), plugin=NAME)
        if taint is None:
            return Status()
        return Status.unresolvable(ERR_REASON_NOT_MATCH, plugin=NAME)

    def filter_nodes(self, state, pod_info, snapshot, rows: np.ndarray) -> Verdicts:
        tolerations = pod_info.pod.spec.tolerations
        if len(snapshot.taint_sets) == 1:  # no node has taints
            return Verdicts.passing(len(rows))
        groups = snapshot.taint_group[rows]
        unique = np.unique(groups)
        statuses = [self._group_status(snapshot.taint_sets[g], tolerations) for g in unique.tolist()]
        per_group = Verdicts.from_statuses(statuses)
        pos = np.searchsorted(unique, groups)
        return Verdicts(per_group.codes[pos], per_group.reason_idx[pos], per_group.reasons)

    def pre_score(self, state, pod_info, snapshot, rows) -> Status:
        state[NAME] = [t for t in pod_info.pod.spec.tolerations if t.effect in (None, "", "PreferNoSchedule")]
        return Status()

    def _count_intolerable(self, taints, tolerations) -> int:
        count = 0
        for taint in taints:
            if taint.effect != "PreferNoSchedule":
                continue
            tolerated = False
            for tol in tolerations:
                try:
                    if tolerates(tol, taint, comparison_operators=self.comparison_operators):
                        tolerated = True
                        break
                except TaintValueError:
                    continue
            count += not tolerated
        return count

    def score_nodes(self, state, pod_info, snapshot, rows: np.ndarray) -> np.ndarray:
        tolerations = state.get(NAME)
        if tolerations is None:
            tolerations = [t for t in pod_info.pod.spec.tolerations if t.effect in (None, "", "PreferNoSchedule")]
        if len(snapshot.taint_sets) == 1:
            return np.zeros(len(rows), np.int64)
        groups = snapshot.taint_group[rows]
        unique = np.unique(groups)
        counts = np.asarray([self._count_intolerable(snapshot.taint_sets[g], tolerations)
                             for g in unique.tolist()], np.int64)
        return counts[np.searchsorted(unique, groups)]

    def normalize_score(self, state, pod_info, scores: np.ndarray) -> Status:
        default_normalize_score(MAX_NODE_SCORE, True, scores)
        return Status()


# -- QueueingHints: events that may make a pod this plugin rejected schedulable -------------------
def taint_toleration_after_node_change(comparison_operators: bool = False):
    """The node hint of TaintToleration: Queue when the node's NoSchedule/NoExecute taints went from
    untolerated to tolerated (an added node counts as "was untolerated")."""
    from kschedlab.api.tolerations import find_matching_untolerated_taint

    effects = ("NoSchedule", "NoExecute")

    def untolerated(node, tolerations) -> bool:
        return find_matching_untolerated_taint(node.spec.taints, tolerations, effects,
                                               comparison_operators=comparison_operators) is not None

    def hint(pod_info, old_obj, new_obj) -> QueueingHint:
        original, modified = as_objects(old_obj, new_obj, "Node")
        if modified is None:
            raise HintError("expected a new *v1.Node")
        tolerations = pod_of(pod_info).spec.tolerations
        was_untolerated = True
        if original is not None:
            was_untolerated = untolerated(original, tolerations)
        if was_untolerated and not untolerated(modified, tolerations):
            return QUEUE
        return SKIP

    hint.__name__ = "taint_toleration_after_node_change"
    return hint


def taint_toleration_after_pod_toleration_change(pod_info, old_obj, new_obj) -> QueueingHint:
    """``isSchedulableAfterPodTolerationChange``: Queue when the updated pod is the rejected pod."""
    _, modified = as_objects(old_obj, new_obj, "Pod")
    if modified is None:
        raise HintError("expected a new *v1.Pod")
    return QUEUE if same_pod(pod_of(pod_info), modified) else SKIP
