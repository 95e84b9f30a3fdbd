"""NodeAffinity: ``spec.nodeSelector`` and required node affinity filter nodes,
preferred terms score them; ``addedAffinity`` (plugin args) applies to every pod
of the profile."""

import numpy as np

from kschedlab.api.node_selector import NAME_FIELD, RequiredNodeAffinity, match_terms, preferred_score, validate_terms
from kschedlab.framework.events import QUEUE, SKIP, HintError, QueueingHint, as_objects, pod_of
from kschedlab.framework.interface import (
    MAX_NODE_SCORE,
    ArgsError,
    FieldError,
    Plugin,
    PreFilterResult,
    SignFragment,
    Verdicts,
    register,
)
from kschedlab.framework.signers import NODE_AFFINITY_SIGNER_NAME, NODE_SELECTOR_SIGNER_NAME, node_affinity_signer
from kschedlab.framework.status import Code, Status
from kschedlab.plugins.helper import default_normalize_score

NAME = "NodeAffinity"
ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector"
ERR_REASON_ENFORCED = "node(s) didn't match scheduler-enforced node affinity"
ERR_REASON_CONFLICT = "pod affinity terms conflict"

_REQUIRED = "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[{i}]"
_PREFERRED = "addedAffinity.preferredDuringSchedulingIgnoredDuringExecution[{i}]"


def _node_affinity(pod):
    return pod.spec.affinity.node_affinity if pod.spec.affinity else None


@register
class NodeAffinity(Plugin):
    name = NAME

    @classmethod
    def parse_args(cls, raw, handle=None):
        from kschedlab.api.core import NodeAffinity as NodeAffinityModel

        raw = raw or {}
        unknown = set(raw) - {"addedAffinity", "apiVersion", "kind"}
        if unknown:
            raise ArgsError(NAME, [FieldError("FieldValueInvalid", k, "unknown field") for k in sorted(unknown)])
        added = raw.get("addedAffinity")
        if added is None:
            return None
        try:
            affinity = NodeAffinityModel.model_validate(added)
        except ValueError as err:
            raise ArgsError(NAME, [FieldError("FieldValueInvalid", "addedAffinity", str(err))]) from None
        errors = []
        required = affinity.required_during_scheduling_ignored_during_execution
        if required is not None:
            errors += validate_terms(required.node_selector_terms, _REQUIRED)
        preferred = affinity.preferred_during_scheduling_ignored_during_execution
        errors += validate_terms([t.preference for t in preferred], _PREFERRED)
        if errors:
            raise ArgsError(NAME, [FieldError("FieldValueInvalid", path, msg) for path, msg in errors])
        return affinity

    @property
    def added_required(self):
        a = self.args
        return a.required_during_scheduling_ignored_during_execution if a is not None else None

    @property
    def added_preferred(self):
        return self.args.preferred_during_scheduling_ignored_during_execution if self.args is not None else []

    def events_to_register(self):
        """``EventsToRegister``: a node added or its labels changed (hint: it now matches)."""
        from kschedlab.framework.events import NODE, ActionType, ClusterEvent

        return [(ClusterEvent(NODE, ActionType.Add | ActionType.UpdateNodeLabel),
                 node_affinity_after_node_change(self.added_required))]

    def sign_pod(self, pod_info):
        """Signature: the pod's node affinity and node selector (``addedAffinity`` is the
        same for every pod of the profile)."""
        pod = pod_info.pod
        return [SignFragment(NODE_AFFINITY_SIGNER_NAME, node_affinity_signer(pod)),
                SignFragment(NODE_SELECTOR_SIGNER_NAME, dict(sorted(pod.spec.node_selector.items())))], None

    # -- filtering ---------------------------------------------------------------
    def pre_filter(self, state, pod_info, snapshot):
        na = _node_affinity(pod_info.pod)
        required = na.required_during_scheduling_ignored_during_execution if na else None
        if required is None and self.added_required is None and not pod_info.pod.spec.node_selector:
            return None, Status.skip()
        state[NAME] = RequiredNodeAffinity(pod_info.pod)
        if required is None or not required.node_selector_terms:
            return None, Status()
        node_names: set[str] | None = None
        for term in required.node_selector_terms:
            term_names: set[str] | None = None
            for req in term.match_fields:
                if req.key == NAME_FIELD and req.operator == "In":
                    values = set(req.values)
                    term_names = values if term_names is None else term_names & values
            if term_names is None:
                return None, Status()
            node_names = term_names if node_names is None else node_names | term_names
        if node_names is not None and not node_names:
            return None, Status.unresolvable(ERR_REASON_CONFLICT)
        return PreFilterResult(frozenset(node_names)), Status()

    def filter_nodes(self, state, pod_info, snapshot, rows: np.ndarray) -> Verdicts:
        codes = np.zeros(len(rows), np.int8)
        reason_idx = np.full(len(rows), -1, np.int32)
        if self.added_required is not None:
            enforced = ~match_terms(self.added_required.node_selector_terms, snapshot, rows)
            codes[enforced] = Code.UnschedulableAndUnresolvable
            reason_idx[enforced] = 0
        required = state.get(NAME) or RequiredNodeAffinity(pod_info.pod)
        mismatch = ~required.match(snapshot, rows) & (codes == 0)
        codes[mismatch] = Code.UnschedulableAndUnresolvable
        reason_idx[mismatch] = 1
        return Verdicts(codes, reason_idx, [(ERR_REASON_ENFORCED,), (ERR_REASON_POD,)])

    # -- scoring -------------------------------------------------------------------
    def pre_score(self, state, pod_info, snapshot, rows) -> Status:
        na = _node_affinity(pod_info.pod)
        preferred = na.preferred_during_scheduling_ignored_during_execution if na else []
        if not preferred and not self.added_preferred:
            return Status.skip()
        problems = validate_terms([t.preference for t in preferred], "[{i}]", values=True)
        if problems:
            return Status.error(", ".join(f"{path}: {msg}" for path, msg in problems))
        state[NAME + "/preferred"] = preferred
        return Status()

    def score_nodes(self, state, pod_info, snapshot, rows: np.ndarray) -> np.ndarray:
        preferred = state.get(NAME + "/preferred")
        if preferred is None:
            na = _node_affinity(pod_info.pod)
            preferred = na.preferred_during_scheduling_ignored_during_execution if na else []
        return preferred_score([*self.added_preferred, *preferred], snapshot, rows)

    def normalize_score(self, state, pod_info, scores: np.ndarray) -> Status:
        default_normalize_score(MAX_NODE_SCORE, False, scores)
        return Status()


# -- QueueingHints: events that may make a pod this plugin rejected schedulable -------------------
def _single_node_snapshot(node):
    from kschedlab.cluster import Snapshot

    snap = Snapshot(capacity=1)
    snap.add_node(node)
    return snap


def node_affinity_after_node_change(added_required=None):
    """The node hint of NodeAffinity: Queue when an added node matches the pod's required affinity
    (and the profile's ``addedAffinity``), or an update turned a non-matching node into a matching one.
    ``added_required`` is the plugin args' ``addedAffinity.requiredDuringScheduling...`` (NodeSelector)."""
    import numpy as np

    from kschedlab.api.node_selector import RequiredNodeAffinity, match_terms

    rows = np.zeros(1, np.int64)

    def matches(required: RequiredNodeAffinity, node) -> bool:
        return bool(required.match(_single_node_snapshot(node), rows)[0])

    def hint(pod_info, old_obj, new_obj) -> QueueingHint:
        original, modified = as_objects(old_obj, new_obj, "Node")
        if modified is None:
            raise HintError("expected a new *v1.Node")
        if added_required is not None and not bool(
                match_terms(added_required.node_selector_terms, _single_node_snapshot(modified), rows)[0]):
            return SKIP
        required = RequiredNodeAffinity(pod_of(pod_info))
        if not matches(required, modified):
            return SKIP
        if original is None:
            return QUEUE
        if matches(required, original):
            return SKIP
        return QUEUE

    hint.__name__ = "node_affinity_after_node_change"
    return hint
