"""PodTopologySpread: spread matching pods evenly over topology domains.

``DoNotSchedule`` constraints filter (PreFilter counts the matching pods per domain,
Filter rejects a node whose domain would exceed ``maxSkew`` over the global
minimum); ``ScheduleAnyway`` constraints score (PreScore counts, Score sums
``count * ln(domains + 2) + maxSkew - 1`` per constraint, NormalizeScore turns the
fewest matching pods into 100). A pod without constraints of its own gets the
plugin's default constraints when it belongs to a Service, ReplicationController,
ReplicaSet or StatefulSet (built-in ``System`` defaults: hostname maxSkew 3, zone
maxSkew 5, both ``ScheduleAnyway``).

Counting is incremental: the pods matching a constraint's selector per node come
from the snapshot's pod index (``Snapshot.matching_pod_counts``); PreFilter reads them
summed per eligible domain, kept current by the snapshot as pods come and go
(``Snapshot.matching_pod_counts_by_domain``), with the eligible domains kept per
constraint shape and node set, so a PreFilter between node changes costs neither O(pods) nor O(nodes);
PreScore sums per domain with ``np.bincount`` over the node label codes (O(nodes)).

>>> from kschedlab.api.loader import load_text
>>> from kschedlab.cluster import Cluster
>>> from kschedlab.scheduler.schedule_one import Scheduler
>>> nodes = "".join(f'''
... ---
... apiVersion: v1
... kind: Node
... metadata: {{name: {n}, labels: {{zone: {z}}}}}
... status: {{allocatable: {{cpu: "4", memory: 8Gi, pods: "110"}}}}''' for n, z in [("a", "z1"), ("b", "z2")])
>>> cluster = Cluster(load_text(nodes + '''
... ---
... apiVersion: v1
... kind: Pod
... metadata: {name: old, namespace: default, labels: {app: web}}
... spec: {nodeName: a, containers: [{name: c}]}
... ---
... apiVersion: v1
... kind: Pod
... metadata: {name: new, namespace: default, labels: {app: web}}
... spec:
...   containers: [{name: c}]
...   topologySpreadConstraints:
...   - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: web}}}
... '''))
>>> Scheduler(cluster).schedule_one("default/new").node
'b'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kschedlab.api.core import TopologySpreadConstraint
from kschedlab.api.labels import is_qualified_name
from kschedlab.api.node_selector import RequiredNodeAffinity
from kschedlab.features import FeatureGates
from kschedlab.framework.events import QUEUE, SKIP, HintError, QueueingHint, as_objects, pod_of, same_pod
from kschedlab.framework.interface import MAX_NODE_SCORE, ArgsError, FieldError, Plugin, Verdicts, register
from kschedlab.framework.status import Code, Status
from kschedlab.plugins.pod_topology_spread_common import (
    DO_NOT_SCHEDULE,
    HONOR,
    LABEL_HOSTNAME,
    LABEL_TOPOLOGY_ZONE,
    MAX_INT32,
    SCHEDULE_ANYWAY,
    CriticalPaths,
    Selector,
    SelectorError,
    SpreadConstraint,
    counts_towards,
    default_selector,
    filter_constraints,
    go_round_array,
    node_labels_match,
    topology_normalizing_weight,
    untolerated_mask,
)

NAME = "PodTopologySpread"
#: Filter reason when a node's domain would exceed maxSkew (Unschedulable)
ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"
#: Filter reason when a node lacks a constraint's topology key (UnschedulableAndUnresolvable)
ERR_REASON_NODE_LABEL_NOT_MATCH = ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"
#: unsignable-pod reasons (opportunistic batching)
ERR_SIGN_CONSTRAINTS = "pods with topology constraints are not signable"
ERR_SIGN_DEFAULT_CONSTRAINTS = "pods with default topology constraints are not signable"

PREFILTER_STATE_KEY = "PreFilter" + NAME
PRESCORE_STATE_KEY = "PreScore" + NAME
_CONSTRAINTS_CACHE = NAME + "/constraints"  # PodInfo.cache key of the pod's parsed constraints

INVALID_SCORE = -1
MAX_INT64 = (1 << 63) - 1

GATE_NODE_INCLUSION_POLICY = "NodeInclusionPolicyInPodTopologySpread"
GATE_MATCH_LABEL_KEYS = "MatchLabelKeysInPodTopologySpread"
GATE_COMPARISON_OPERATORS = "TaintTolerationComparisonOperators"

SYSTEM_DEFAULTING = "System"
LIST_DEFAULTING = "List"

#: the built-in default constraints (``systemDefaultConstraints``)
SYSTEM_DEFAULT_CONSTRAINTS = (
    TopologySpreadConstraint(topology_key=LABEL_HOSTNAME, when_unsatisfiable=SCHEDULE_ANYWAY, max_skew=3),
    TopologySpreadConstraint(topology_key=LABEL_TOPOLOGY_ZONE, when_unsatisfiable=SCHEDULE_ANYWAY, max_skew=5),
)

_ARGS_FIELDS = {"defaultConstraints", "defaultingType", "apiVersion", "kind"}
_CONSTRAINT_FIELDS = {"maxSkew", "topologyKey", "whenUnsatisfiable", "labelSelector", "minDomains",
                      "nodeAffinityPolicy", "nodeTaintsPolicy", "matchLabelKeys"}


@dataclass
class PodTopologySpreadArgs:
    """``PodTopologySpreadArgs`` after v1 defaulting (an empty ``defaultingType`` is ``System``)."""

    default_constraints: list[TopologySpreadConstraint] = field(default_factory=list)
    defaulting_type: str = SYSTEM_DEFAULTING


def validate_args(raw: dict) -> list[FieldError]:
    """``ValidatePodTopologySpreadArgs`` on raw (camelCase) args, errors in upstream's order."""
    errors: list[FieldError] = []
    defaulting = raw.get("defaultingType") or SYSTEM_DEFAULTING
    constraints = raw.get("defaultConstraints") or []
    if defaulting not in (SYSTEM_DEFAULTING, LIST_DEFAULTING):
        errors.append(FieldError("FieldValueNotSupported", "defaultingType",
                                 f'Unsupported value: "{defaulting}": supported values: "System", "List"'))
    elif defaulting == SYSTEM_DEFAULTING and constraints:
        errors.append(FieldError("FieldValueInvalid", "defaultingType",
                                 f'Invalid value: "{defaulting}": when .defaultConstraints are not empty'))
    seen: dict[tuple[str, str], int] = {}
    for i, c in enumerate(constraints):
        p = f"defaultConstraints[{i}]"
        if not isinstance(c, dict):
            errors.append(FieldError("FieldValueInvalid", p, "must be an object"))
            continue
        unknown = sorted(set(c) - _CONSTRAINT_FIELDS)
        errors.extend(FieldError("FieldValueInvalid", f"{p}.{k}", "unknown field") for k in unknown)
        skew = c.get("maxSkew") or 0
        if not isinstance(skew, int) or skew <= 0:
            errors.append(FieldError("FieldValueInvalid", f"{p}.maxSkew", f"Invalid value: {skew}: not in valid "
                                                                          "range (0, inf)"))
        key = c.get("topologyKey") or ""
        if not key:
            errors.append(FieldError("FieldValueRequired", f"{p}.topologyKey", "Required value: can not be empty"))
        elif not is_qualified_name(key):
            errors.append(FieldError("FieldValueInvalid", f"{p}.topologyKey",
                                     f'Invalid value: "{key}": name part must consist of alphanumeric '
                                     "characters, '-', '_' or '.', and must start and end with an alphanumeric "
                                     "character"))
        when = c.get("whenUnsatisfiable") or ""
        if not when:
            errors.append(FieldError("FieldValueRequired", f"{p}.whenUnsatisfiable",
                                     "Required value: can not be empty"))
        elif when not in (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY):
            errors.append(FieldError("FieldValueNotSupported", f"{p}.whenUnsatisfiable",
                                     f'Unsupported value: "{when}": supported values: "DoNotSchedule", '
                                     '"ScheduleAnyway"'))
        if c.get("labelSelector") is not None:
            errors.append(FieldError("FieldValueForbidden", f"{p}.labelSelector",
                                     "Forbidden: constraint must not define a selector, as they deduced for "
                                     "each pod"))
        pair = (key, when)
        if pair in seen:
            errors.append(FieldError("FieldValueDuplicate", p, f'Duplicate value: "{{{key}, {when}}}"'))
        else:
            seen[pair] = i
    return errors


# -- cycle state ---------------------------------------------------------------------------------
@dataclass
class DomainCounts:
    """One hard constraint's matching pods per domain (``TpValueToMatchNum[i]`` and
    ``CriticalPaths[i]``), indexed by the snapshot's label code of the topology value."""

    constraint: SpreadConstraint
    codes: np.ndarray  # per snapshot row: the node's domain code, -1 without the label
    vocab: dict[str, int]  # topology value -> code
    counts: np.ndarray  # per domain code: matching pods
    present: np.ndarray  # per domain code: the domain is eligible (a key of TpValueToMatchNum)
    paths: CriticalPaths | None = None  # built on first AddPod/RemovePod
    table: np.ndarray | None = None  # Filter's verdict per domain code (see :meth:`verdicts`)
    labelled: bool = False  # every node has the topology key
    passes: bool = False  # (with ``table``) every node passes: all labelled, no domain over maxSkew

    def verdicts(self, pod_labels) -> np.ndarray:
        """Filter's verdict per domain code, plus a last slot for nodes without the topology key
        (read by code -1): 0 passes, 1 would exceed maxSkew, 2 lacks the key. Built once per
        cycle; AddPod / RemovePod drop it."""
        if self.table is None:
            self_match = 1 if self.constraint.selector.matches(pod_labels) else 0
            table = np.empty(len(self.counts) + 1, np.int8)
            np.greater(self.counts, self.constraint.max_skew + self.min_match_num() - self_match, out=table[:-1])
            table[-1] = 2
            self.table = table
            self.passes = self.labelled and not table[:-1].any()
        return self.table

    def passes_everywhere(self, pod_labels) -> bool:
        """Every node has the topology key and no domain would exceed maxSkew (built with
        :meth:`verdicts`)."""
        self.verdicts(pod_labels)
        return self.passes

    def critical_paths(self) -> CriticalPaths:
        if self.paths is None:
            cp = CriticalPaths()
            values = list(self.vocab)
            for code in np.flatnonzero(self.present).tolist():
                cp.update(values[code], int(self.counts[code]))
            self.paths = cp
        return self.paths

    def domains(self) -> int:
        return int(self.present.sum())

    def min_match_num(self) -> int:
        """``minMatchNum``: the global minimum, 0 when fewer eligible domains than minDomains."""
        if self.paths is not None:
            return 0 if self.domains() < self.constraint.min_domains else int(self.paths.paths[0][1])
        eligible = self.counts[self.present]
        if len(eligible) < self.constraint.min_domains:
            return 0
        return int(eligible.min()) if len(eligible) else MAX_INT32

    def match_num(self) -> dict:
        """``TpValueToMatchNum[i]``: topology value -> matching pods, eligible domains only."""
        return {v: int(self.counts[c]) for v, c in self.vocab.items() if c < len(self.present) and self.present[c]}

    def copy(self) -> "DomainCounts":
        return DomainCounts(self.constraint, self.codes, self.vocab, self.counts.copy(), self.present.copy(),
                            self.paths.copy() if self.paths is not None else None, labelled=self.labelled)


@dataclass
class PreFilterState:
    """``preFilterState``: the hard constraints and their per-domain counts."""

    constraints: list[SpreadConstraint]
    domains: list[DomainCounts]

    def clone(self) -> "PreFilterState":
        return PreFilterState(self.constraints, [d.copy() for d in self.domains])

    def as_data(self) -> dict:
        """Plain data for inspection and conformance checks."""
        return {
            "constraints": [c.as_data() for c in self.constraints],
            "tpValueToMatchNum": [d.match_num() for d in self.domains],
            "criticalPaths": [d.critical_paths().as_data() for d in self.domains],
        }


@dataclass
class PreScoreState:
    """``preScoreState``: the soft constraints, the nodes not scored, per-domain counts and
    the per-constraint ``topologyNormalizingWeight``."""

    constraints: list[SpreadConstraint]
    ignored: np.ndarray  # bool per snapshot row
    ignored_names: list[str]
    weights: list[float]
    codes: list[np.ndarray]  # per constraint: label code per row (-1 = no label)
    slots: list[np.ndarray | None]  # per non-hostname constraint: domain slot per row ("" for no label)
    slot_values: list[list[str] | None]
    counts: list[np.ndarray]  # per constraint: per slot (zone-like) or per row (hostname)
    seeded: list[np.ndarray | None]
    scored_rows: np.ndarray | None = None

    def as_data(self) -> dict:
        counts = []
        for i in range(len(self.constraints)):
            if self.slots[i] is None:
                counts.append({})
                continue
            values = self.slot_values[i]
            counts.append({values[s]: int(self.counts[i][s]) for s in np.flatnonzero(self.seeded[i]).tolist()})
        return {
            "constraints": [c.as_data() for c in self.constraints],
            "ignoredNodes": sorted(self.ignored_names),
            "topologyValueToPodCounts": counts,
            "topologyNormalizingWeight": list(self.weights),
        }


# -- parses shared by pods alike -----------------------------------------------------------------------
#: Filter's outcome per node (see :meth:`DomainCounts.verdicts`) -> code and reason index
_OUTCOME_CODE = np.array([Code.Success, Code.Unschedulable, Code.UnschedulableAndUnresolvable], np.int8)
_OUTCOME_REASON = np.array([-1, 1, 0], np.int32)


def _constraint_key(c) -> tuple:
    """Every field of a v1.TopologySpreadConstraint the parse (``filter_constraints``) reads."""
    sel = c.label_selector
    selector = None if sel is None else (
        tuple(sel.match_labels.items()), tuple((e.key, e.operator, tuple(e.values)) for e in sel.match_expressions))
    return (c.max_skew, c.topology_key, c.when_unsatisfiable, selector, c.min_domains, c.node_affinity_policy,
            c.node_taints_policy, tuple(c.match_label_keys))


def _read_labels(selector: Selector) -> frozenset[str]:
    """The labels :func:`counts_towards` reads with ``selector`` (it reads the namespace and the
    deletion stamp besides, never the node name)."""
    return frozenset(key for key, _, _ in selector.requirements or ())


# -- the plugin ----------------------------------------------------------------------------------------
@register
class PodTopologySpread(Plugin):
    name = NAME

    def __init__(self, args: PodTopologySpreadArgs | None = None, handle: Any = None):
        super().__init__(args or PodTopologySpreadArgs(), handle)
        self.system_defaulted = self.args.defaulting_type == SYSTEM_DEFAULTING
        self.default_constraints = (list(SYSTEM_DEFAULT_CONSTRAINTS) if self.system_defaulted
                                    else list(self.args.default_constraints))
        #: (gates object, {content key: parsed constraints}) of :meth:`_parsed`
        self._parsed_by_content: tuple[Any, dict[tuple, dict[str, list[SpreadConstraint]]]] | None = None

    # -- args -------------------------------------------------------------------------------------
    @classmethod
    def parse_args(cls, raw: dict | None, handle: Any = None) -> PodTopologySpreadArgs:
        raw = dict(raw or {})
        unknown = sorted(set(raw) - _ARGS_FIELDS)
        if unknown:
            raise ArgsError(NAME, [FieldError("FieldValueInvalid", k, "unknown field") for k in unknown])
        if raw.get("kind") not in (None, "PodTopologySpreadArgs"):
            raise ArgsError(NAME, [FieldError("FieldValueInvalid", "kind", f"want PodTopologySpreadArgs, got "
                                                                          f"{raw['kind']}")])
        if not isinstance(raw.get("defaultConstraints") or [], list):
            raise ArgsError(NAME, [FieldError("FieldValueInvalid", "defaultConstraints", "must be a list")])
        errors = validate_args(raw)
        if errors:
            raise ArgsError(NAME, errors)
        constraints = []
        for i, c in enumerate(raw.get("defaultConstraints") or []):
            try:
                constraints.append(TopologySpreadConstraint.model_validate(c))
            except ValueError as err:
                raise ArgsError(NAME, [FieldError("FieldValueInvalid", f"defaultConstraints[{i}]",
                                                  str(err))]) from None
        return PodTopologySpreadArgs(constraints, raw.get("defaultingType") or SYSTEM_DEFAULTING)

    # -- queueing hints ----------------------------------------------------------------------------
    def events_to_register(self):
        """``EventsToRegister`` (QueueingHints on, as at v1.37): a pod added, deleted, relabelled or
        given a toleration; a node added, deleted, relabelled or re-tainted."""
        from kschedlab.framework.events import NODE, POD, ActionType, ClusterEvent

        A = ActionType
        return [(ClusterEvent(POD, A.Add | A.UpdatePodLabel | A.UpdatePodToleration | A.Delete),
                 pod_topology_spread_after_pod_change(self)),
                (ClusterEvent(NODE, A.Add | A.Delete | A.UpdateNodeLabel | A.UpdateNodeTaint),
                 pod_topology_spread_after_node_change(self))]

    # -- signature ---------------------------------------------------------------------------------
    def sign_pod(self, pod_info):
        """Spreading depends on where matching pods run, not only on the pod and the node:
        a pod with constraints cannot be signed, nor any pod while the profile has default
        constraints (``System`` defaulting, or a non-empty ``List``).  Otherwise no fragment."""
        if pod_info.pod.spec.topology_spread_constraints:
            return None, Status.unschedulable(ERR_SIGN_CONSTRAINTS)
        if self.default_constraints:
            return None, Status.unschedulable(ERR_SIGN_DEFAULT_CONSTRAINTS)
        return None, None

    # -- helpers -----------------------------------------------------------------------------------
    def _gate(self, name: str) -> bool:
        gates = getattr(self.handle, "gates", None) or FeatureGates()
        return gates.enabled(name)

    @property
    def _cluster(self):
        return getattr(self.handle, "cluster", None)

    def _filter(self, constraints, labels, action: str) -> list[SpreadConstraint]:
        return filter_constraints(constraints, labels, action,
                                  match_label_keys=self._gate(GATE_MATCH_LABEL_KEYS),
                                  node_inclusion_policy=self._gate(GATE_NODE_INCLUSION_POLICY))

    def build_default_constraints(self, pod, action: str) -> list[SpreadConstraint]:
        """``buildDefaultConstraints``: the default constraints for ``action`` with the selector
        deduced from the pod's Services and controller; none when that selector is empty."""
        if any(c.match_label_keys for c in self.default_constraints):
            constraints = self._filter(self.default_constraints, pod.metadata.labels, action)
        else:  # without matchLabelKeys the pod's labels do not matter: parse once per action and gates
            key = (id(self.default_constraints), len(self.default_constraints), action,
                   self._gate(GATE_MATCH_LABEL_KEYS), self._gate(GATE_NODE_INCLUSION_POLICY))
            cache = self.__dict__.setdefault("_default_constraints_by_action", {})
            constraints = cache.get(key)
            if constraints is None:
                constraints = cache[key] = self._filter(self.default_constraints, pod.metadata.labels, action)
        if not constraints:
            return []
        selector = default_selector(pod, self._cluster)
        if selector.empty():
            return []
        return [SpreadConstraint(c.max_skew, c.topology_key, selector, c.min_domains, c.node_affinity_policy,
                                 c.node_taints_policy) for c in constraints]

    def get_constraints(self, pod, action: str = DO_NOT_SCHEDULE) -> list[SpreadConstraint]:
        """The pod's constraints for ``action`` (its own, or the defaults when it has none).
        Raises :class:`SelectorError` with upstream's wrapping when a selector is invalid."""
        kind = "hard" if action == DO_NOT_SCHEDULE else "soft"
        if pod.spec.topology_spread_constraints:
            try:
                return self._filter(pod.spec.topology_spread_constraints, pod.metadata.labels, action)
            except SelectorError as err:
                raise SelectorError(f"obtaining pod's {kind} topology spread constraints: {err}") from None
        try:
            return self.build_default_constraints(pod, action)
        except SelectorError as err:
            raise SelectorError(f"setting default {kind} topology spread constraints: {err}") from None

    def constraints_of(self, pod_info, action: str) -> list[SpreadConstraint]:
        """``get_constraints`` for a PodInfo: the pod's own constraints are parsed once per PodInfo
        and action (kept in its cache for PreFilter's and PreScore's reads while the pod object,
        its labels and the gates stay; pods that read alike share one parse, :meth:`_parsed`); the
        defaults, whose selector follows the Services, are not."""
        pod = pod_info.pod
        own = pod.spec.topology_spread_constraints
        if not own:
            return self.get_constraints(pod, action)
        gates = getattr(self.handle, "gates", None)
        labels = tuple(pod.metadata.labels.items())
        cached = pod_info.cache.get(_CONSTRAINTS_CACHE)
        if cached is None or not (cached[0] is gates and cached[1] is pod and cached[2] is own
                                  and cached[3] == labels):
            cached = pod_info.cache[_CONSTRAINTS_CACHE] = (gates, pod, own, labels, self._parsed(gates, pod, own))
        by_action = cached[4]
        constraints = by_action.get(action)
        if constraints is None:
            constraints = by_action[action] = (self.get_constraints(pod, action)
                                               if any(c.when_unsatisfiable == action for c in own) else [])
        return list(constraints)

    #: the most parses :meth:`_parsed` keeps
    PARSED_MAX = 1024

    def _parsed(self, gates, pod, own) -> dict[str, list[SpreadConstraint]]:
        """The parses of the pod's own constraints (action -> constraints, filled as actions are
        asked for), shared by pods whose constraints read alike (:func:`_constraint_key`: every
        field the parse reads) and who carry the same values of the labels their
        ``matchLabelKeys`` name, under the same gates object, so the replicas of a template are
        parsed once, and PreFilter and PreScore read one key."""
        kept = self._parsed_by_content
        if kept is None or kept[0] is not gates or len(kept[1]) >= self.PARSED_MAX:
            kept = self._parsed_by_content = (gates, {})
        labels = pod.metadata.labels
        key = (tuple(_constraint_key(c) for c in own), tuple(labels.get(k) for c in own for k in c.match_label_keys))
        found = kept[1].get(key)
        if found is None:
            found = kept[1][key] = {}
        return found

    @staticmethod
    def _pod_counts(snapshot, selector: Selector, namespace: str) -> np.ndarray | None:
        """Matching pods per snapshot row (None: nothing can match), from the incremental index."""
        if selector.is_nothing or selector.empty():
            return None
        return snapshot.matching_pod_counts(
            (NAME, namespace, selector.key), lambda p: counts_towards(p, selector, namespace), _read_labels(selector))

    def _inclusion(self, constraints, pod, snapshot, rows: np.ndarray) -> list[np.ndarray | None]:
        """Per constraint, the rows its node inclusion policies admit (None: all)."""
        out: list[np.ndarray | None] = []
        affinity = untolerated = None
        for c in constraints:
            mask = None
            if c.node_affinity_policy == HONOR:
                if affinity is None:
                    affinity = RequiredNodeAffinity(pod).match(snapshot, rows)
                mask = affinity
            if c.node_taints_policy == HONOR:
                if untolerated is None:
                    untolerated = untolerated_mask(snapshot, rows, pod.spec.tolerations,
                                                   self._gate(GATE_COMPARISON_OPERATORS))
                mask = ~untolerated if mask is None else mask & ~untolerated
            out.append(mask)
        return out

    # -- PreFilter / Filter -------------------------------------------------------------------------------
    def pre_filter(self, state, pod_info, snapshot):
        try:
            constraints = self.constraints_of(pod_info, DO_NOT_SCHEDULE)
        except SelectorError as err:
            return None, Status.error(f"get constraints from pod: {err}")
        if not constraints:
            return None, Status.skip()
        state[PREFILTER_STATE_KEY] = self.calculate_pre_filter_state(pod_info, snapshot, constraints)
        return None, Status()

    def calculate_pre_filter_state(self, pod_info, snapshot, constraints) -> PreFilterState:
        """``calPreFilterState``: matching pods per domain over every node that has all the
        topology keys (and, per constraint, passes its node inclusion policies). The eligible
        domains are kept per constraint shape and node set (:meth:`_eligible_domains`), the
        counts per domain by the snapshot as pods come and go
        (``Snapshot.matching_pod_counts_by_domain``)."""
        eligible = self._eligible_domains(pod_info.pod, snapshot, constraints)
        namespace = pod_info.namespace
        domains = []
        for c, (codes, vocab, row_dom, present, labelled) in zip(constraints, eligible):
            if c.selector.is_nothing or c.selector.empty():
                counts = np.zeros(len(vocab), np.int64)
            else:
                counts = snapshot.matching_pod_counts_by_domain(
                    (NAME, namespace, c.selector.key), lambda p, sel=c.selector: counts_towards(p, sel, namespace),
                    row_dom, len(vocab), _read_labels(c.selector)).copy()
            domains.append(DomainCounts(c, codes, vocab, counts, present.copy(), labelled=labelled))
        return PreFilterState(constraints, domains)

    #: the most eligible-domain sets :meth:`_eligible_domains` keeps
    ELIGIBLE_MAX = 64

    def _eligible_domains(self, pod, snapshot, constraints) -> list[tuple]:
        """Per constraint: the label codes of its topology key per row and their vocabulary, the
        domain code of each row whose node counts (it has every topology key and passes the
        constraint's node inclusion policies; -1 otherwise), the eligible domains and whether
        every node has the key. Kept per
        constraint shape, the pod's node selector and tolerations where a policy reads them, and
        the node set (the snapshot's label columns, replaced when a node is set, and its node
        order, replaced when one comes or goes); a pod with required node affinity terms is
        computed alone."""
        columns = [snapshot.label_codes(c.topology_key) for c in constraints]
        key = self._eligible_key(pod, constraints)
        token = (snapshot, snapshot.order, *columns)
        kept = self.__dict__.setdefault("_eligible_kept", {})
        found = kept.get(key) if key is not None else None
        if found is not None and len(found[0]) == len(token) and all(a is b for a, b in zip(found[0], token)):
            return found[1]
        rows = snapshot.order
        base = np.ones(len(rows), bool)
        inclusion_policy = self._gate(GATE_NODE_INCLUSION_POLICY)
        if not inclusion_policy:  # spreading only over the nodes the pod's node affinity admits
            base &= RequiredNodeAffinity(pod).match(snapshot, rows)
        for codes, _ in columns:
            base &= codes[rows] >= 0
        policies = self._inclusion(constraints, pod, snapshot, rows) if inclusion_policy else [None] * len(constraints)
        out = []
        for (codes, vocab), policy in zip(columns, policies):
            eligible = base if policy is None else base & policy
            row_dom = np.full(len(codes), -1, np.int32)
            row_dom[rows[eligible]] = codes[rows[eligible]]
            present = np.bincount(row_dom[row_dom >= 0], minlength=len(vocab)) > 0
            out.append((codes, vocab, row_dom, present, bool((codes[rows] >= 0).all())))
        if key is not None:
            if len(kept) >= self.ELIGIBLE_MAX:
                del kept[next(iter(kept))]
            kept[key] = (token, out)
        return out

    def _eligible_key(self, pod, constraints) -> tuple | None:
        """What, besides the node set, decides which nodes count for ``constraints``; None when
        the pod has required node affinity terms that a policy (or the gate being off) reads."""
        inclusion_policy = self._gate(GATE_NODE_INCLUSION_POLICY)
        reads_affinity = not inclusion_policy or any(c.node_affinity_policy == HONOR for c in constraints)
        reads_taints = inclusion_policy and any(c.node_taints_policy == HONOR for c in constraints)
        selector = None
        if reads_affinity:
            spec = pod.spec
            na = spec.affinity.node_affinity if spec.affinity else None
            if na is not None and na.required_during_scheduling_ignored_during_execution is not None:
                return None
            selector = tuple(sorted((spec.node_selector or {}).items()))
        tolerations = None
        if reads_taints:
            tolerations = (tuple((t.key, t.operator, t.value, t.effect) for t in pod.spec.tolerations),
                           self._gate(GATE_COMPARISON_OPERATORS))
        return (tuple((c.topology_key, c.node_affinity_policy, c.node_taints_policy) for c in constraints),
                inclusion_policy, selector, tolerations)

    def filter_nodes(self, state, pod_info, snapshot, rows: np.ndarray) -> Verdicts:
        s = state.get(PREFILTER_STATE_KEY)
        if s is None:
            return Verdicts.from_mask(np.ones(len(rows), bool), Code.Error,
                                      (f'reading "{PREFILTER_STATE_KEY}" from cycleState: not found',))
        labels = pod_info.labels
        if all(d.passes_everywhere(labels) for d in s.domains):
            return Verdicts.passing(len(rows))
        outcome = None  # per node: 0 passes, 1 over maxSkew, 2 lacks a topology key (the first constraint's)
        for d in s.domains:
            verdict = d.verdicts(labels)[d.codes[rows]]  # (code -1 reads the last slot: 2)
            outcome = verdict if outcome is None else np.where(outcome == 0, verdict, outcome)
        if outcome is None:
            outcome = np.zeros(len(rows), np.int8)
        return Verdicts(_OUTCOME_CODE[outcome], _OUTCOME_REASON[outcome],
                        [(ERR_REASON_NODE_LABEL_NOT_MATCH,), (ERR_REASON_CONSTRAINTS_NOT_MATCH,)])

    # -- PreFilterExtensions (preemption) ---------------------------------------------------------------------
    def add_pod(self, state, pod_info, pod_info_to_add, node_info) -> Status:
        """``AddPod``: count ``pod_info_to_add`` on ``node_info`` in the PreFilter state."""
        return self._update_with_pod(state, pod_info_to_add, pod_info, node_info, +1)

    def remove_pod(self, state, pod_info, pod_info_to_remove, node_info) -> Status:
        """``RemovePod``: stop counting ``pod_info_to_remove`` on ``node_info``."""
        return self._update_with_pod(state, pod_info_to_remove, pod_info, node_info, -1)

    def _update_with_pod(self, state, updated, preemptor, node_info, delta: int) -> Status:
        s = state.get(PREFILTER_STATE_KEY)
        if s is None:
            return Status.error(f'reading "{PREFILTER_STATE_KEY}" from cycleState: not found')
        if updated.namespace != preemptor.namespace or node_info is None:
            return Status()
        node = node_info.node
        labels = node.metadata.labels
        if not node_labels_match(labels, s.constraints):
            return Status()
        snapshot, rows = node_info.snapshot, np.asarray([node_info.row])
        inclusion_policy = self._gate(GATE_NODE_INCLUSION_POLICY)
        if not inclusion_policy and not RequiredNodeAffinity(preemptor.pod).match(snapshot, rows)[0]:
            return Status()
        policies = (self._inclusion(s.constraints, preemptor.pod, snapshot, rows) if inclusion_policy
                    else [None] * len(s.constraints))
        for d, policy in zip(s.domains, policies):
            if not d.constraint.selector.matches(updated.labels):
                continue
            if policy is not None and not policy[0]:
                continue
            value = labels[d.constraint.topology_key]
            code = d.vocab[value]
            paths = d.critical_paths()
            d.table = None
            d.counts[code] += delta
            d.present[code] = True
            paths.update(value, int(d.counts[code]))
        return Status()

    # -- PreScore / Score / NormalizeScore ---------------------------------------------------------------------
    def pre_score(self, state, pod_info, snapshot, rows) -> Status:
        all_rows = snapshot.order
        if len(all_rows) == 0:
            return Status.skip()
        pod = pod_info.pod
        # only non-system-default spreading requires nodes to carry every topology key, so
        # that nodes without a zone label still get hostname spreading
        require_all = bool(pod.spec.topology_spread_constraints) or not self.system_defaulted
        try:
            constraints = self.constraints_of(pod_info, SCHEDULE_ANYWAY)
        except SelectorError as err:
            return Status.error(f"calculating preScoreState: {err}")
        if not constraints:
            return Status.skip()
        state[PRESCORE_STATE_KEY] = self.calculate_pre_score_state(pod_info, snapshot, np.asarray(rows, np.int64),
                                                                   constraints, require_all)
        return Status()

    def calculate_pre_score_state(self, pod_info, snapshot, rows: np.ndarray, constraints,
                                  require_all: bool) -> PreScoreState:
        """``initPreScoreState`` over the filtered ``rows`` plus PreScore's count over every node."""
        pod = pod_info.pod
        columns = [snapshot.label_codes(c.topology_key) for c in constraints]
        ignored = np.zeros(len(columns[0][0]), bool)
        if require_all:
            has_all = np.ones(len(rows), bool)
            for codes, _ in columns:
                has_all &= codes[rows] >= 0
            ignored[rows[~has_all]] = True
        kept = rows[~ignored[rows]]
        all_rows = snapshot.order
        base = np.ones(len(all_rows), bool)
        inclusion_policy = self._gate(GATE_NODE_INCLUSION_POLICY)
        if not inclusion_policy:
            base &= RequiredNodeAffinity(pod).match(snapshot, all_rows)
        if require_all:
            for codes, _ in columns:
                base &= codes[all_rows] >= 0
        policies = (self._inclusion(constraints, pod, snapshot, all_rows) if inclusion_policy
                    else [None] * len(constraints))
        weights, slots, slot_values, counts, seeded_all = [], [], [], [], []
        for c, (codes, vocab), policy in zip(constraints, columns, policies):
            per_row = self._pod_counts(snapshot, c.selector, pod_info.namespace)
            if c.topology_key == LABEL_HOSTNAME:  # per-node counts, read in Score
                weights.append(topology_normalizing_weight(len(rows) - int(ignored[rows].sum())))
                slots.append(None)
                slot_values.append(None)
                seeded_all.append(None)
                counts.append(per_row if per_row is not None else np.zeros(len(codes), np.int64))
                continue
            # a node without the key is in the "" domain (only possible with system defaults)
            empty = vocab.get("", len(vocab))
            values = [*vocab, ""] if empty == len(vocab) else list(vocab)
            slot = np.where(codes >= 0, codes, empty)
            seeded = np.zeros(len(values), bool)
            seeded[slot[kept]] = True
            weights.append(topology_normalizing_weight(int(seeded.sum())))
            eligible = base if policy is None else base & policy
            elig_rows = all_rows[eligible]
            if per_row is None:
                per_slot = np.zeros(len(values), np.int64)
            else:
                per_slot = np.bincount(slot[elig_rows], weights=per_row[elig_rows],
                                       minlength=len(values)).astype(np.int64)
            per_slot[~seeded] = 0
            slots.append(slot)
            slot_values.append(values)
            seeded_all.append(seeded)
            counts.append(per_slot)
        ignored_names = [snapshot.names[r] for r in np.flatnonzero(ignored).tolist()]
        return PreScoreState(constraints, ignored, ignored_names, weights, [codes for codes, _ in columns], slots,
                             slot_values, counts, seeded_all)

    def score_nodes(self, state, pod_info, snapshot, rows: np.ndarray) -> np.ndarray:
        s: PreScoreState | None = state.get(PRESCORE_STATE_KEY)
        if s is None:
            raise ValueError(f'error reading "{PRESCORE_STATE_KEY}" from cycleState: not found')
        rows = np.asarray(rows, np.int64)
        s.scored_rows = rows
        score = np.zeros(len(rows), np.float64)
        for i, c in enumerate(s.constraints):
            has = s.codes[i][rows] >= 0
            if s.slots[i] is None:
                cnt = s.counts[i][rows]
            else:
                cnt = s.counts[i][s.slots[i][rows]]
            term = cnt.astype(np.float64) * s.weights[i] + float(c.max_skew - 1)
            score = score + np.where(has, term, 0.0)
        out = go_round_array(score)
        out[s.ignored[rows]] = 0
        return out

    def normalize_score(self, state, pod_info, scores: np.ndarray) -> Status:
        s: PreScoreState | None = state.get(PRESCORE_STATE_KEY)
        if s is None:
            return Status.error(f'error reading "{PRESCORE_STATE_KEY}" from cycleState: not found')
        rows = s.scored_rows
        ignored = (s.ignored[rows] if rows is not None and len(rows) == len(scores)
                   else np.zeros(len(scores), bool))
        valid = scores[~ignored]
        min_score = int(valid.min()) if len(valid) else MAX_INT64
        max_score = max(0, int(valid.max())) if len(valid) else 0
        work = np.where(ignored, INVALID_SCORE, scores).astype(np.int64)
        if max_score == 0:
            out = np.full(len(scores), MAX_NODE_SCORE, np.int64)
        else:
            num = MAX_NODE_SCORE * (max_score + min_score - work)
            out = num // max_score
            out += ((num % max_score) != 0) & (num < 0)  # Go truncates toward zero
        scores[:] = np.where(work == INVALID_SCORE, 0, out)
        return Status()

    # -- inspection -------------------------------------------------------------------------------------------
    @staticmethod
    def pre_filter_state(state) -> dict | None:
        """The PreFilter state as plain data (None when PreFilter did not write one)."""
        s = state.get(PREFILTER_STATE_KEY)
        return None if s is None else s.as_data()

    @staticmethod
    def pre_score_state(state) -> dict | None:
        """The PreScore state as plain data (None when PreScore did not write one)."""
        s = state.get(PRESCORE_STATE_KEY)
        return None if s is None else s.as_data()


# -- QueueingHints: events that may make a pod this plugin rejected schedulable -------------------
def _spread_constraints(plugin, pod):
    """``getConstraints``: the pod's DoNotSchedule constraints, or the profile's defaults."""
    from kschedlab.plugins.pod_topology_spread_common import SelectorError

    try:
        return plugin.get_constraints(pod)
    except SelectorError as err:
        raise HintError(str(err)) from None


def _involved_in_topology_spreading(incoming, pod_with_spreading) -> bool:
    """``involvedInTopologySpreading``: the pod itself, or a bound pod of the same namespace."""
    return same_pod(incoming, pod_with_spreading) or (
        bool(incoming.spec.node_name)
        and (incoming.metadata.namespace or "") == (pod_with_spreading.metadata.namespace or ""))


def _pod_labels_match_spread_constraints(constraints, labels) -> bool:
    """``podLabelsMatchSpreadConstraints``: the labels match the selector of any constraint."""
    return any(c.selector.matches(labels) for c in constraints)


def pod_topology_spread_after_pod_change(plugin):
    """``PodTopologySpread.isSchedulableAfterPodChange`` (``plugin`` gives the default constraints):
    an involved pod (the rejected pod, or a bound pod of its namespace) was added or deleted with
    labels matching a constraint's selector, or updated so that it now matches a selector it did
    not (or the reverse); or the rejected pod got a new toleration while a constraint honours taints."""
    from kschedlab.plugins.pod_topology_spread_common import HONOR

    def hint(pod_info, old_obj, new_obj) -> QueueingHint:
        original, modified = as_objects(old_obj, new_obj, "Pod")
        if original is None and modified is None:
            raise HintError("expected a *v1.Pod")
        pod = pod_of(pod_info)
        if (modified is not None and not _involved_in_topology_spreading(modified, pod)) or (
                original is not None and not _involved_in_topology_spreading(original, pod)):
            return SKIP
        constraints = _spread_constraints(plugin, pod)
        if modified is not None and original is not None:
            if (same_pod(pod, modified) and modified.spec.tolerations != original.spec.tolerations
                    and any(c.node_taints_policy == HONOR for c in constraints)):
                return QUEUE
            if modified.metadata.labels == original.metadata.labels:
                return SKIP
            for c in constraints:
                if c.selector.matches(original.metadata.labels) != c.selector.matches(modified.metadata.labels):
                    return QUEUE
            return SKIP
        if modified is not None:
            return QUEUE if _pod_labels_match_spread_constraints(constraints, modified.metadata.labels) else SKIP
        return QUEUE if _pod_labels_match_spread_constraints(constraints, original.metadata.labels) else SKIP

    hint.__name__ = "pod_topology_spread_after_pod_change"
    return hint


def pod_topology_spread_after_node_change(plugin):
    """``PodTopologySpread.isSchedulableAfterNodeChange``: a node added or deleted that has every
    topology key of the pod's constraints; an update that makes the node gain or lose one of them,
    or, for a node with all of them, changes a topology value or the taints."""
    from kschedlab.plugins.pod_topology_spread_common import node_labels_match

    def hint(pod_info, old_obj, new_obj) -> QueueingHint:
        original, modified = as_objects(old_obj, new_obj, "Node")
        if original is None and modified is None:
            raise HintError("expected a *v1.Node")
        constraints = _spread_constraints(plugin, pod_of(pod_info))
        original_matching = original is not None and node_labels_match(original.metadata.labels, constraints)
        modified_matching = modified is not None and node_labels_match(modified.metadata.labels, constraints)
        if original is not None and modified is not None:
            if original_matching != modified_matching:
                return QUEUE
            if modified_matching and (
                    any(original.metadata.labels.get(c.topology_key) != modified.metadata.labels.get(c.topology_key)
                        for c in constraints)
                    or original.spec.taints != modified.spec.taints):
                return QUEUE
            return SKIP
        if modified is not None:
            return QUEUE if modified_matching else SKIP
        return QUEUE if original_matching else SKIP

    hint.__name__ = "pod_topology_spread_after_node_change"
    return hint
