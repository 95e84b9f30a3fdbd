"""InterPodAffinity: place a pod by the labels of the pods already running in a
topology domain (node, zone, ...), as kube-scheduler's plugin of that name does.

Filter (required terms), in upstream's order:

1. the incoming pod's ``podAffinity`` — every term's topology key must be on the
   node and, per term, some existing pod that matches *all* terms must run in the
   node's domain of that key. The first pod of a series may go anywhere the keys
   exist when no pod in the cluster matches all its terms and it matches them
   itself. Failure: ``UnschedulableAndUnresolvable``, ``node(s) didn't match pod
   affinity rules``;
2. the incoming pod's ``podAntiAffinity`` — no pod matching any term in the
   node's domain: ``Unschedulable``, ``node(s) didn't match pod anti-affinity rules``;
3. the required anti-affinity of the pods already placed (symmetry): ``Unschedulable``,
   ``node(s) didn't satisfy existing pods anti-affinity rules``.

Score (preferred terms): per topology domain, the sum of the weights of the
incoming pod's preferred (anti-)affinity terms that existing pods match (anti
subtracts), of existing pods' preferred (anti-)affinity terms the incoming pod
matches (unless ``ignorePreferredTermsOfExistingPods``) and of existing pods'
*required* affinity terms it matches, each worth ``hardPodAffinityWeight``
(default 1, 0..100). A node scores the sum over its domains; NormalizeScore maps
the [min, max] of the scored nodes onto [0, 100] in float arithmetic.

PreFilter returns Skip when the pod has no required terms and no existing pod's
required anti-affinity matches it; PreScore returns Skip when nothing would
contribute a score.

Counting is vectorized: the pods matching a set of terms are counted per node by
the snapshot's pod indexes (kept current on bind/remove), summed per topology
value with the node label columns; only the pods that carry affinity terms are
visited one by one, so a cycle costs about O(nodes + pods with affinity). The sums
per value of the indexes' own count arrays are kept across cycles and brought up to
date from the rows the snapshot logged as changed (``_KeptSums``), so a cycle pays
for the pods placed since the last one, not for every node.

>>> from kschedlab.api.core import Node, Pod
>>> from kschedlab.cluster import Cluster
>>> from kschedlab.framework.interface import CycleState
>>> from kschedlab.framework.types import PodInfo
>>> cluster = Cluster([Node.model_validate({"metadata": {"name": n, "labels": {"zone": z}}})
...                    for n, z in [("n1", "a"), ("n2", "a"), ("n3", "b")]]
...                   + [Pod.model_validate({"metadata": {"name": "db", "labels": {"app": "db"}},
...                                          "spec": {"nodeName": "n1"}})])
>>> web = PodInfo.of(Pod.model_validate({"metadata": {"name": "web"}, "spec": {"affinity": {"podAffinity": {
...     "requiredDuringSchedulingIgnoredDuringExecution": [
...         {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "zone"}]}}}}))
>>> plugin, state = InterPodAffinity.build({}), CycleState()
>>> plugin.pre_filter(state, web, cluster.snapshot)[1].code.name
'Success'
>>> rows = cluster.snapshot.order
>>> verdicts = plugin.filter_nodes(state, web, cluster.snapshot, rows)
>>> {cluster.snapshot.names[r]: verdicts.status(i).code.name for i, r in enumerate(rows)}
{'n1': 'Success', 'n2': 'Success', 'n3': 'UnschedulableAndUnresolvable'}
"""

from __future__ import annotations

import sys
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kschedlab.framework.events import QUEUE, SKIP, HintError, QueueingHint, as_objects, pod_of
from kschedlab.framework.interface import (
    MAX_NODE_SCORE,
    ArgsError,
    FieldError,
    Plugin,
    SignFragment,
    Verdicts,
    register,
)
from kschedlab.framework.signers import LABELS_SIGNER_NAME
from kschedlab.framework.status import Code, Status
from kschedlab.plugins.inter_pod_affinity_terms import AffinityTerm, merge_namespace_selector, pod_terms

NAME = "InterPodAffinity"
ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't satisfy existing pods anti-affinity rules"
ERR_REASON_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod affinity rules"
ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod anti-affinity rules"
#: unsignable-pod reason (kschedlab wording; upstream only logs it)
ERR_SIGN_AFFINITY = "pods with pod affinity or anti-affinity are not signable"

PRE_FILTER_STATE_KEY = "PreFilter" + NAME
PRE_SCORE_STATE_KEY = "PreScore" + NAME

DEFAULT_HARD_POD_AFFINITY_WEIGHT = 1
MIN_HARD_POD_AFFINITY_WEIGHT = 0
MAX_HARD_POD_AFFINITY_WEIGHT = 100

LABEL_HOSTNAME = "kubernetes.io/hostname"
GATE_HOSTNAME_FAST_PATH = "InterPodAffinityHostnameFastPath"
GATE_DEFERRED_RESIZE = "InPlacePodVerticalScalingSchedulerPreemption"

_REASONS = [(ERR_REASON_AFFINITY_RULES_NOT_MATCH,), (ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,),
            (ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,)]

# keys of the snapshot pod indexes this plugin keeps
_IDX_REQUIRED_ANTI = (NAME, "required-anti-affinity")
_IDX_WITH_AFFINITY = (NAME, "with-affinity")


@dataclass(frozen=True)
class InterPodAffinityArgs:
    """``InterPodAffinityArgs`` after v1 defaulting."""

    hard_pod_affinity_weight: int = DEFAULT_HARD_POD_AFFINITY_WEIGHT
    ignore_preferred_terms_of_existing_pods: bool = False


# -- pod predicates (spec based, as NodeInfo's PodsWithAffinity / PodsWithRequiredAntiAffinity) ---------------
def _has_affinity(pod_info) -> bool:
    a = pod_info.pod.spec.affinity
    return a is not None and (a.pod_affinity is not None or a.pod_anti_affinity is not None)


def _has_required_anti_affinity(pod_info) -> bool:
    a = pod_info.pod.spec.affinity
    return (a is not None and a.pod_anti_affinity is not None
            and len(a.pod_anti_affinity.required_during_scheduling_ignored_during_execution) > 0)


def placed_pods_with_affinity(snapshot, *, required_anti: bool = False) -> dict:
    """The placed pods with pod affinity or anti-affinity (only those with required anti-affinity
    when ``required_anti``), from the snapshot index this plugin keeps: key -> (row, PodInfo)."""
    if required_anti:
        return snapshot.matching_pods(_IDX_REQUIRED_ANTI, _has_required_anti_affinity)
    return snapshot.matching_pods(_IDX_WITH_AFFINITY, _has_affinity)


def _resize_deferred(pod) -> bool:
    """``resource.IsPodResizeDeferred``."""
    return any(c.type == "PodResizePending" and c.status == "True" and c.reason == "Deferred"
               for c in (pod.status.conditions if pod.status else []))


def pod_matches_all_terms(terms: list[AffinityTerm], pod) -> bool:
    """``podMatchesAllAffinityTerms``: False for no terms (the incoming pod's terms have their
    namespace selector merged into names, so no namespace labels are needed)."""
    return bool(terms) and all(t.matches(pod, None) for t in terms)


def _group_of_anti(pod_info):
    return pod_terms(pod_info).anti_signature if _has_required_anti_affinity(pod_info) else None


def _group_of_affinity(pod_info):
    return pod_terms(pod_info).score_signature if _has_affinity(pod_info) else None


#: the snapshot's grouped pod indexes (``Snapshot.pod_groups``) this plugin keeps: pods with equal
#: required anti-affinity terms, and pods with equal scoring terms
_GROUPS = {"anti_signature": ((NAME, "groups", "anti"), _group_of_anti),
           "score_signature": ((NAME, "groups", "score"), _group_of_affinity)}


def _no_node_removed(snapshot) -> bool:
    """No node has left the snapshot (its rows are never reused), so every row holding pods is live."""
    return snapshot.num_nodes == len(snapshot.nodes)


def _groups(snapshot, signature: str, live: np.ndarray):
    """The placed pods with affinity, grouped by equal terms (``signature``: ``anti_signature``,
    the required anti-affinity terms, or ``score_signature``): ``[(PodTerms, pods per row, own),
    ...]`` from the snapshot's grouped index, live nodes only, groups with no pod there left out
    (while no node has been removed, the index's own count arrays, ``own`` True: read them, never
    write)."""
    key, group_of = _GROUPS[signature]
    out = []
    groups = snapshot.pod_groups(key, group_of).values()
    if _no_node_removed(snapshot) and all(len(g.counts) == len(live) for g in groups):
        return [(pod_terms(group.info), group.counts, True) for group in groups]
    for group in groups:
        n = min(len(group.counts), len(live))
        counts = np.zeros(len(live), np.int64)
        counts[:n] = np.where(live[:n], group.counts[:n], 0)
        if counts.any():
            out.append((pod_terms(group.info), counts, False))
    return out


def _group_terms(snapshot, signature: str):
    """The terms of each group of :func:`_groups` (every group of the index, live pods or not)."""
    key, group_of = _GROUPS[signature]
    return (pod_terms(group.info) for group in snapshot.pod_groups(key, group_of).values())


# -- topology columns ----------------------------------------------------------------------------------------
class _Topology:
    """Node label columns of the topology keys one cycle uses, and the live rows.

    Counts for a key are kept per value of the key (indexed by its label code, plus a trailing
    always-zero slot), except when no two live nodes share a value (a hostname): then they are
    kept per row (plus the same trailing slot), which saves summing over the nodes. ``slots``
    gives the index into those counts of a node, -1 (the zero slot) when it lacks the key.
    """

    def __init__(self, snapshot):
        self.snapshot = snapshot
        self.cols: dict[str, tuple[np.ndarray, dict[str, int]]] = {}
        self.unique: dict[str, np.ndarray | None] = {}
        self.live = snapshot.live_mask()

    def col(self, key: str) -> tuple[np.ndarray, dict[str, int]]:
        col = self.cols.get(key)
        if col is None:
            col = self.cols[key] = self.snapshot.label_codes(key)
        return col

    def rows_of(self, key: str) -> np.ndarray | None:
        """The live rows carrying ``key`` (a mask) when its values are unique among them, else None."""
        if key not in self.unique:
            self.unique[key] = self.snapshot.unique_label_rows(key)
        return self.unique[key]

    def zeros(self, key: str) -> np.ndarray:
        """A count array for ``key`` with a trailing always-zero slot, so slot -1 reads 0."""
        size = len(self.col(key)[0]) if self.rows_of(key) is not None else len(self.col(key)[1])
        return np.zeros(size + 1, np.int64)

    def per_value(self, key: str, per_row: np.ndarray, *, kept: bool = False) -> np.ndarray:
        """The counts of ``per_row`` (indexed by row) over the live nodes, by their value of label
        ``key`` (a new array, the caller's to change). ``kept``: ``per_row`` is one of the snapshot's
        own count arrays, changed in place as pods come and go; its sums are kept across cycles and
        brought up to date from the rows that changed since the last read (:class:`_KeptSums`), and
        the answer is a read-only view of them, which never changes (copy it to change it)."""
        if kept:
            return self._kept_sums(key, per_row)
        codes, _ = self.col(key)
        out = self.zeros(key)
        n = min(len(codes), len(per_row), len(self.live))
        rows = self.rows_of(key)
        if rows is not None:  # one value a node: the node's own count
            out[:n] = np.where(rows[:n], per_row[:n], 0)
            return out
        at, values = self.valid_rows(key)
        k = int(np.searchsorted(at, len(per_row)))  # the rows ``per_row`` reaches
        if k:  # (sums of pod counts times weights: exact in float64)
            out += np.bincount(values[:k], weights=per_row.take(at[:k]), minlength=len(out)).astype(np.int64)
        return out

    def _kept_sums(self, key: str, per_row: np.ndarray) -> np.ndarray:
        codes, _ = self.col(key)
        at = (id(per_row), key)
        kept = _KEPT_SUMS.get(at)
        if (kept is None or kept.per_row is not per_row or kept.codes is not codes or kept.live is not self.live
                or len(kept.seen) != len(per_row)):
            _, mark = self.snapshot.changes_since(None)
            kept = _KEPT_SUMS[at] = _KeptSums(per_row, codes, self.live, per_row.copy(), self.per_value(key, per_row),
                                              mark)
            if len(_KEPT_SUMS) > _MAX_KEPT_SUMS:
                _KEPT_SUMS.popitem(last=False)
            return kept.lend()
        _KEPT_SUMS.move_to_end(at)
        logged, kept.mark = self.snapshot.changes_since(kept.mark)
        if logged is not None and len(logged) <= 64:  # a few rows (a pod assumed and bound): one by one
            seen, live, per_row_unique = kept.seen, self.live, self.rows_of(key) is not None
            for row in set(logged):
                delta = per_row.item(row) - seen.item(row) if row < len(per_row) else 0
                if delta:
                    seen[row] += delta
                    code = codes.item(row) if row < len(codes) and row < len(live) and live.item(row) else -1
                    if code >= 0:
                        kept.own()[row if per_row_unique else code] += delta
            return kept.lend()
        if logged is None:  # the log no longer reaches back: compare every row
            changed = np.flatnonzero(per_row != kept.seen)
        else:
            rows = np.unique(np.asarray(logged, np.int64))
            rows = rows[rows < len(per_row)]
            changed = rows[per_row[rows] != kept.seen[rows]]
        if len(changed):
            n = min(len(codes), len(self.live))
            changed_rows = changed[changed < n]
            slots = self.slots(key, changed_rows)
            valid = (slots >= 0) & self.live[changed_rows]
            delta = per_row[changed_rows] - kept.seen[changed_rows]
            np.add.at(kept.own(), slots[valid], delta[valid])
            kept.seen[changed] = per_row[changed]
        return kept.lend()

    #: per topology key: (label column, live mask, live rows carrying the key, their codes)
    _VALID: dict[str, tuple] = {}

    def valid_rows(self, key: str) -> tuple[np.ndarray, np.ndarray]:
        """The live rows that carry label ``key`` (ascending) and their value codes, kept while the
        snapshot's label column and live mask stay the same objects (a node added, changed or
        removed replaces one of them)."""
        codes, _ = self.col(key)
        kept = self._VALID.get(key)
        if kept is None or kept[0] is not codes or kept[1] is not self.live:
            n = min(len(codes), len(self.live))
            at = np.flatnonzero(self.live[:n] & (codes[:n] >= 0))
            kept = self._VALID[key] = (codes, self.live, at, codes.take(at))
        return kept[2], kept[3]

    #: per topology key: (label column, unique-rows mask or None, every row's slot)
    _SLOTS: dict[str, tuple] = {}

    def slots(self, key: str, rows: np.ndarray) -> np.ndarray:
        """Each of ``rows``' slot in the count arrays of ``key`` (-1 where the node lacks it), read
        off every row's slot, kept while the snapshot's label column and unique-rows mask stay the
        same objects (a node added, changed or removed replaces them)."""
        codes = self.col(key)[0]
        unique = self.rows_of(key)
        kept = self._SLOTS.get(key)
        if kept is None or kept[0] is not codes or kept[1] is not unique:
            table = codes if unique is None else np.where(codes >= 0, np.arange(len(codes)), -1)
            kept = self._SLOTS[key] = (codes, unique, table)
        return kept[2].take(rows)

    def slot_of(self, key: str, row: int) -> int:
        codes, _ = self.col(key)
        code = int(codes[row]) if row < len(codes) else -1
        return code if code < 0 or self.rows_of(key) is None else row


@dataclass
class _KeptSums:
    """The per-value sums (``_Topology.per_value``) of one of the snapshot's count arrays for one
    topology key, valid while the label column and the live mask are the objects they were built
    from (a node added, changed or removed replaces one of them); ``seen`` is the count array as
    last summed, so a read adds only the rows that changed since (pods assumed, bound, changed or
    gone): those the snapshot logged as changed since ``mark`` (``Snapshot.changes_since``), or
    every row when the log no longer reaches back.

    The sums are lent as a read-only view (:meth:`lend`, one kept per array), copied on write: a
    change first makes them a new array (:meth:`own`) while the view, or another view of them, is
    held outside (a cycle state kept beyond its cycle), so a lent answer never changes.

    >>> k = _KeptSums(*(np.zeros(2, np.int64),) * 4, np.array([1, 2, 0]), 0)
    >>> lent = k.lend()
    >>> k.own()[0] += 5
    >>> lent.tolist(), k.lend().tolist(), lent.flags.writeable
    ([1, 2, 0], [6, 2, 0], False)
    >>> del lent
    >>> before = id(k.sums)
    >>> id(k.own()) == before, k.sums.tolist()   # no view held outside: changed in place
    (True, [6, 2, 0])
    """

    per_row: np.ndarray
    codes: np.ndarray
    live: np.ndarray
    seen: np.ndarray
    sums: np.ndarray
    mark: int
    #: the read-only view of ``sums`` lent out (None: none made since ``sums`` was last replaced)
    view: np.ndarray | None = None

    def lend(self) -> np.ndarray:
        """The sums as a read-only view."""
        view = self.view
        if view is None:
            view = self.view = self.sums.view()
            view.setflags(write=False)
        return view

    def own(self) -> np.ndarray:
        """The sums, to change in place: a new copy while a view of them is held outside this
        object (counted by references: the attributes, the kept view's base and the call's argument
        are the only ones otherwise)."""
        if self.view is not None:
            if sys.getrefcount(self.view) > 2 or sys.getrefcount(self.sums) > 3:
                self.sums, self.view = self.sums.copy(), None
        elif sys.getrefcount(self.sums) > 2:
            self.sums = self.sums.copy()
        return self.sums


#: (id of the count array, topology key) -> its kept sums, least recently read first
_KEPT_SUMS: OrderedDict[tuple[int, str], _KeptSums] = OrderedDict()
_MAX_KEPT_SUMS = 128


def _add_to(counts: dict[str, np.ndarray], key: str, sums: np.ndarray) -> None:
    """Add ``sums`` (never changed: it may be a read-only view of kept sums) to ``counts[key]``:
    it becomes the entry when there is none, else the entry is a new array."""
    counts[key] = counts[key] + sums if key in counts else sums


def _verdicts(n: int, fail_aff: np.ndarray | None, fail_anti: np.ndarray | None,
              fail_existing: np.ndarray | None) -> Verdicts:
    """Filter's verdicts from the nodes failing each check (None: no node fails it): the first
    check a node fails gives its reason, ``UnschedulableAndUnresolvable`` for the incoming pod's
    affinity, ``Unschedulable`` for the two anti-affinity checks. Integer arithmetic on the masks
    (no branch per node): a failing node's reason index moves to the check's, the earlier checks
    last, so the first one stays.

    >>> v = _verdicts(4, np.array([0, 0, 0, 1], bool), np.array([0, 1, 0, 1], bool), np.array([0, 1, 1, 0], bool))
    >>> v.codes.tolist(), v.reason_idx.tolist()
    ([0, 2, 2, 3], [-1, 1, 2, 0])
    """
    checks = [(reason, failing) for reason, failing in ((2, fail_existing), (1, fail_anti), (0, fail_aff))
              if failing is not None and failing.any()]
    if not checks:  # every node passes (the shared arrays of Verdicts.passing, this plugin's reasons)
        passing = Verdicts.passing(n)
        return Verdicts(passing.codes, passing.reason_idx, list(_REASONS))
    if len(checks) == 1:  # one check fails nodes: its reason there, its code
        reason, failing = checks[0]
        mask = failing.view(np.int8)
        idx = mask * np.int32(reason + 1) - np.int32(1)
        code = Code.UnschedulableAndUnresolvable if reason == 0 else Code.Unschedulable
        return Verdicts(mask * np.int8(code), idx, list(_REASONS))
    idx = np.full(n, -1, np.int32)
    for reason, failing in checks:
        idx += failing.view(np.int8) * (np.int32(reason) - idx)
    codes = (idx >= 0).view(np.int8) * np.int8(Code.Unschedulable)
    if fail_aff is not None:
        codes += fail_aff.view(np.int8) * np.int8(Code.UnschedulableAndUnresolvable - Code.Unschedulable)
    return Verdicts(codes, idx, list(_REASONS))


# -- cycle state -----------------------------------------------------------------------------------------------
@dataclass
class PreFilterState:
    """What PreFilter computes for Filter (upstream ``preFilterState``).

    Count maps are ``{topology key: counts per label value code}`` (the code order of
    ``Snapshot.label_codes``, plus a trailing zero slot); an entry may be a read-only view of kept
    sums (``_Topology.per_value``), copied before its first change.
    """

    pod_info: Any
    ns_labels: dict
    topo: _Topology
    affinity_terms: list[AffinityTerm]  # namespaceSelector merged
    anti_affinity_terms: list[AffinityTerm]
    cluster_affinity_terms: list[AffinityTerm]
    cluster_anti_affinity_terms: list[AffinityTerm]
    host_affinity_terms: list[AffinityTerm] = field(default_factory=list)
    host_anti_affinity_terms: list[AffinityTerm] = field(default_factory=list)
    affinity_counts: dict[str, np.ndarray] = field(default_factory=dict)
    anti_affinity_counts: dict[str, np.ndarray] = field(default_factory=dict)
    existing_anti_affinity_counts: dict[str, np.ndarray] = field(default_factory=dict)
    fast_path: bool = False
    # fast path: per-row counts for the node-local checks, and the global count for self-affinity
    host_affinity_rows: np.ndarray | None = None
    host_anti_affinity_rows: np.ndarray | None = None
    host_existing_anti_rows: np.ndarray | None = None
    matching_host_affinity_pods: int = 0

    def clone(self) -> "PreFilterState":
        copy = PreFilterState(**{f: getattr(self, f) for f in self.__dataclass_fields__})
        for name in ("affinity_counts", "anti_affinity_counts", "existing_anti_affinity_counts"):
            setattr(copy, name, {k: v.copy() for k, v in getattr(self, name).items()})
        for name in ("host_affinity_rows", "host_anti_affinity_rows", "host_existing_anti_rows"):
            arr = getattr(self, name)
            setattr(copy, name, None if arr is None else arr.copy())
        return copy

    @staticmethod
    def _nonempty(counts: dict[str, np.ndarray]) -> bool:
        return any(bool(a.any()) for a in counts.values())

    def _bump(self, counts: dict[str, np.ndarray], key: str, row: int, value: int) -> None:
        slot = self.topo.slot_of(key, row)
        if slot < 0:
            return
        arr = counts.get(key)
        if arr is None:
            arr = counts[key] = self.topo.zeros(key)
        elif not arr.flags.writeable:  # a view of kept sums (see _add_to): copied on the first change
            arr = counts[key] = arr.copy()
        arr[slot] += value

    def update_with_pod(self, pod_info, row: int, multiplier: int) -> None:
        """``preFilterState.updateWithPod``: account ``pod_info`` placed on (or removed from) ``row``."""
        pod = self.pod_info.pod
        for t in pod_terms(pod_info).required_anti:
            if self.fast_path and t.topology_key == LABEL_HOSTNAME:
                if t.matches(pod, self.ns_labels) and self.host_existing_anti_rows is not None:
                    self.host_existing_anti_rows[row] += multiplier
            elif t.matches(pod, self.ns_labels):
                self._bump(self.existing_anti_affinity_counts, t.topology_key, row, multiplier)
        if pod_matches_all_terms(self.cluster_affinity_terms, pod_info.pod):
            for t in self.cluster_affinity_terms:
                self._bump(self.affinity_counts, t.topology_key, row, multiplier)
        for t in self.cluster_anti_affinity_terms:
            if t.matches(pod_info.pod, None):
                self._bump(self.anti_affinity_counts, t.topology_key, row, multiplier)
        if self.host_affinity_terms and pod_matches_all_terms(self.host_affinity_terms, pod_info.pod):
            self.matching_host_affinity_pods += multiplier
            self.host_affinity_rows[row] += multiplier
        if self.host_anti_affinity_terms:
            n = sum(1 for t in self.host_anti_affinity_terms if t.matches(pod_info.pod, None))
            self.host_anti_affinity_rows[row] += multiplier * n


@dataclass
class PreScoreState:
    """Topology scores (``{key: score per label value code}``) computed by PreScore."""

    topo: _Topology
    topology_score: dict[str, np.ndarray]
    pod_info: Any = None


@register
class InterPodAffinity(Plugin):
    name = NAME

    @classmethod
    def parse_args(cls, raw, handle=None) -> InterPodAffinityArgs:
        raw = dict(raw or {})
        errors = []
        unknown = set(raw) - {"hardPodAffinityWeight", "ignorePreferredTermsOfExistingPods", "apiVersion", "kind"}
        errors += [FieldError("FieldValueInvalid", k, "unknown field") for k in sorted(unknown)]
        weight = raw.get("hardPodAffinityWeight")
        if weight is None:
            weight = DEFAULT_HARD_POD_AFFINITY_WEIGHT
        if isinstance(weight, bool) or not isinstance(weight, int):
            errors.append(FieldError("FieldValueInvalid", "hardPodAffinityWeight", "must be an integer"))
        elif not MIN_HARD_POD_AFFINITY_WEIGHT <= weight <= MAX_HARD_POD_AFFINITY_WEIGHT:
            errors.append(FieldError("FieldValueInvalid", "hardPodAffinityWeight",
                                     f"not in valid range [{MIN_HARD_POD_AFFINITY_WEIGHT}-"
                                     f"{MAX_HARD_POD_AFFINITY_WEIGHT}]"))
        ignore = raw.get("ignorePreferredTermsOfExistingPods")
        if ignore is None:
            ignore = False
        if not isinstance(ignore, bool):
            errors.append(FieldError("FieldValueInvalid", "ignorePreferredTermsOfExistingPods", "must be a boolean"))
        if errors:
            raise ArgsError(NAME, errors)
        return InterPodAffinityArgs(weight, ignore)

    def __init__(self, args: Any = None, handle: Any = None):
        super().__init__(args if args is not None else InterPodAffinityArgs(), handle)

    # -- helpers ---------------------------------------------------------------------------------------
    def _gate(self, name: str) -> bool:
        gates = getattr(self.handle, "gates", None)
        return bool(gates is not None and gates.enabled(name))

    def _namespaces(self) -> list[tuple[str, dict]]:
        cluster = getattr(self.handle, "cluster", None)
        if cluster is None:
            return []
        return [(ns.metadata.name or "", ns.metadata.labels) for ns in cluster.of_kind("Namespace")]

    @staticmethod
    def _namespace_labels(namespaces: list[tuple[str, dict]], name: str) -> dict:
        """``GetNamespaceLabelsSnapshot``: the labels of namespace ``name`` ({} when it does not exist)."""
        return next((dict(labels) for n, labels in namespaces if n == name), {})

    def events_to_register(self):
        """``EventsToRegister`` (upstream v1.30): a pod added, relabelled or deleted; a node added,
        relabelled or re-tainted."""
        from kschedlab.framework.events import NODE, POD, ActionType, ClusterEvent

        A = ActionType
        return [(ClusterEvent(POD, A.Add | A.UpdatePodLabel | A.Delete), inter_pod_affinity_after_pod_change),
                (ClusterEvent(NODE, A.Add | A.UpdateNodeLabel | A.UpdateNodeTaint), inter_pod_affinity_after_node_change)]

    def sign_pod(self, pod_info):
        """Signature: a pod with pod (anti-)affinity of its own cannot be signed (its result
        depends on the pods placed).  Otherwise its labels, which existing pods' terms match,
        unless ``ignorePreferredTermsOfExistingPods`` is set."""
        if _has_affinity(pod_info):
            return None, Status.unschedulable(ERR_SIGN_AFFINITY)
        if self.args.ignore_preferred_terms_of_existing_pods:
            return None, None
        return [SignFragment(LABELS_SIGNER_NAME, dict(sorted(pod_info.pod.metadata.labels.items())))], None

    # -- PreFilter / Filter -----------------------------------------------------------------------------
    def pre_filter(self, state, pod_info, snapshot):
        pod = pod_info.pod
        if self._gate(GATE_DEFERRED_RESIZE) and _resize_deferred(pod):
            return None, Status.skip()
        terms = pod_terms(pod_info)
        if terms.error is not None:
            return None, Status.unresolvable(f"parsing pod: {terms.error}")
        if (not terms.required_affinity and not terms.required_anti
                and not snapshot.matching_pods(_IDX_REQUIRED_ANTI, _has_required_anti_affinity)):
            return None, Status.skip()  # nothing to check (the Skip the full pass below would reach)
        namespaces = self._namespaces()
        affinity = [merge_namespace_selector(t, namespaces) for t in terms.required_affinity]
        anti = [merge_namespace_selector(t, namespaces) for t in terms.required_anti]
        ns_labels = self._namespace_labels(namespaces, pod_info.namespace)
        topo = _Topology(snapshot)
        fast = self._gate(GATE_HOSTNAME_FAST_PATH)
        if fast:
            all_host = all(t.topology_key == LABEL_HOSTNAME for t in affinity)
            host_aff, cluster_aff = (affinity, []) if all_host else ([], affinity)
            host_anti = [t for t in anti if t.topology_key == LABEL_HOSTNAME]
            cluster_anti = [t for t in anti if t.topology_key != LABEL_HOSTNAME]
        else:
            host_aff, cluster_aff, host_anti, cluster_anti = [], affinity, [], anti
        s = PreFilterState(pod_info, ns_labels, topo, affinity, anti, cluster_aff, cluster_anti,
                           host_aff, host_anti, fast_path=fast)

        # existing pods' required anti-affinity against the incoming pod: pods with the same
        # terms are grouped, so each distinct term is matched once per cycle
        must_evaluate_host_existing = False
        if fast:
            s.host_existing_anti_rows = np.zeros(len(topo.live), np.int64)
        existing = s.existing_anti_affinity_counts
        for terms_of_group, counts_of_group, own in _groups(snapshot, "anti_signature", topo.live):
            for t in terms_of_group.required_anti:
                if fast and t.topology_key == LABEL_HOSTNAME:
                    must_evaluate_host_existing = True
                    if t.matches(pod, ns_labels):
                        s.host_existing_anti_rows += counts_of_group
                elif t.matches(pod, ns_labels):
                    _add_to(existing, t.topology_key, topo.per_value(t.topology_key, counts_of_group, kept=own))

        # existing pods against the incoming pod's own required terms
        if cluster_aff:
            per_row = snapshot.matching_pod_counts(
                (NAME, "all", tuple(t.match_key for t in cluster_aff)),
                lambda p, ts=tuple(cluster_aff): pod_matches_all_terms(list(ts), p))
            for t in cluster_aff:
                _add_to(s.affinity_counts, t.topology_key, topo.per_value(t.topology_key, per_row, kept=True))
        for t in cluster_anti:
            per_row = snapshot.matching_pod_counts((NAME, "any", t.match_key), lambda p, t=t: t.matches(p, None))
            _add_to(s.anti_affinity_counts, t.topology_key, topo.per_value(t.topology_key, per_row, kept=True))
        if host_aff:
            per_row = snapshot.matching_pod_counts(
                (NAME, "all", tuple(t.match_key for t in host_aff)),
                lambda p, ts=tuple(host_aff): pod_matches_all_terms(list(ts), p))
            n = min(len(per_row), len(topo.live))
            s.host_affinity_rows = np.zeros(len(topo.live), np.int64)
            s.host_affinity_rows[:n] = np.where(topo.live[:n], per_row[:n], 0)
            s.matching_host_affinity_pods = int(s.host_affinity_rows.sum())
        if host_anti:
            s.host_anti_affinity_rows = np.zeros(len(topo.live), np.int64)
            for t in host_anti:
                per_row = snapshot.matching_pod_counts((NAME, "any", t.match_key),
                                                       lambda p, t=t: t.matches(p, None))
                n = min(len(per_row), len(topo.live))
                s.host_anti_affinity_rows[:n] += per_row[:n]

        has_no_terms = not terms.required_affinity and not terms.required_anti
        if (has_no_terms and not must_evaluate_host_existing
                and not s._nonempty(s.existing_anti_affinity_counts)):
            return None, Status.skip()
        state[PRE_FILTER_STATE_KEY] = s
        return None, Status()

    def add_pod(self, state, pod_info_to_schedule, pod_info_to_add, node_info) -> Status:
        """PreFilterExtensions.AddPod: ``pod_info_to_add`` now runs on ``node_info``."""
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return Status.error(f'error reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')
        s.update_with_pod(pod_info_to_add, node_info.row, 1)
        return Status()

    def remove_pod(self, state, pod_info_to_schedule, pod_info_to_remove, node_info) -> Status:
        """PreFilterExtensions.RemovePod: ``pod_info_to_remove`` no longer runs on ``node_info``."""
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return Status.error(f'error reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')
        s.update_with_pod(pod_info_to_remove, node_info.row, -1)
        return Status()

    def filter_nodes(self, state, pod_info, snapshot, rows: np.ndarray) -> Verdicts:
        n = len(rows)
        if self._gate(GATE_DEFERRED_RESIZE) and _resize_deferred(pod_info.pod):
            return Verdicts.passing(n)
        s: PreFilterState | None = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            msg = f'error reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found'
            return Verdicts(np.full(n, np.int8(Code.Error)), np.zeros(n, np.int32), [(msg,)])
        rows = np.asarray(rows, np.int64)
        topo = s.topo

        def codes(key):
            return topo.col(key)[0].take(rows)

        slots_of: dict[str, np.ndarray] = {}  # each key's slots of ``rows``, once a call

        def slots(key):
            out = slots_of.get(key)
            if out is None:
                out = slots_of[key] = topo.slots(key, rows)
            return out

        # 1. the incoming pod's affinity (None: no node fails it, and so for the others)
        fail_aff = None
        if s.host_affinity_terms:  # fast path, every term hostname-scoped: a node-local check
            has_host = codes(LABEL_HOSTNAME) >= 0
            self_ok = (s.matching_host_affinity_pods <= 0
                       and pod_matches_all_terms(s.affinity_terms, pod_info.pod))
            fail_aff = ~has_host | ((s.host_affinity_rows[rows] <= 0) & (not self_ok))
        elif s.cluster_affinity_terms:
            # a node fails when it lacks a term's key, or, unless the pod may match its own terms
            # (no matching pod anywhere), when a term's domain holds no matching pod (a node
            # lacking the key reads the zero slot: it fails that too)
            self_ok = (not s._nonempty(s.affinity_counts)
                       and (not s.fast_path or s.matching_host_affinity_pods <= 0)
                       and pod_matches_all_terms(s.affinity_terms, pod_info.pod))
            for t in s.cluster_affinity_terms:
                if self_ok:
                    failing = slots(t.topology_key) < 0
                else:
                    counts = s.affinity_counts.get(t.topology_key)
                    failing = np.ones(n, bool) if counts is None else counts.take(slots(t.topology_key)) <= 0
                fail_aff = failing if fail_aff is None else fail_aff | failing

        # 2. the incoming pod's anti-affinity
        fail_anti = None
        for t in s.cluster_anti_affinity_terms:
            counts = s.anti_affinity_counts.get(t.topology_key)
            if counts is not None:
                failing = counts.take(slots(t.topology_key)) > 0
                fail_anti = failing if fail_anti is None else fail_anti | failing
        if s.host_anti_affinity_terms:
            failing = (codes(LABEL_HOSTNAME) >= 0) & (s.host_anti_affinity_rows[rows] > 0)
            fail_anti = failing if fail_anti is None else fail_anti | failing

        # 3. the existing pods' anti-affinity
        fail_existing = None
        for key, counts in s.existing_anti_affinity_counts.items():
            failing = counts.take(slots(key)) > 0
            fail_existing = failing if fail_existing is None else fail_existing | failing
        if s.host_existing_anti_rows is not None:
            failing = (codes(LABEL_HOSTNAME) >= 0) & (s.host_existing_anti_rows[rows] > 0)
            fail_existing = failing if fail_existing is None else fail_existing | failing

        return _verdicts(n, fail_aff, fail_anti, fail_existing)

    # -- PreScore / Score / NormalizeScore ------------------------------------------------------------
    def pre_score(self, state, pod_info, snapshot, rows) -> Status:
        pod = pod_info.pod
        aff = pod.spec.affinity
        has_pref_affinity = (aff is not None and aff.pod_affinity is not None
                             and len(aff.pod_affinity.preferred_during_scheduling_ignored_during_execution) > 0)
        has_pref_anti = (aff is not None and aff.pod_anti_affinity is not None
                         and len(aff.pod_anti_affinity.preferred_during_scheduling_ignored_during_execution) > 0)
        has_constraints = has_pref_affinity or has_pref_anti
        if self.args.ignore_preferred_terms_of_existing_pods and not has_constraints:
            return Status.skip()
        terms = pod_terms(pod_info)
        if terms.error is not None:
            return Status.error(f"failed to parse pod: {terms.error}")
        # the terms of the existing pods that have affinity which may score the incoming pod, by
        # group (pods with the same terms): with none, and no preferred term of its own, nothing
        # contributes (Skip, without listing the namespaces, and first without reading the groups'
        # counts when no group has such a term at all)
        hard_weight = self.args.hard_pod_affinity_weight
        if not has_constraints and not any(
                (hard_weight > 0 and et.required_affinity) or et.preferred_affinity or et.preferred_anti
                for et in _group_terms(snapshot, "score_signature")):
            return Status.skip()
        topo = _Topology(snapshot)
        groups = []
        for et, counts_of_group, own in _groups(snapshot, "score_signature", topo.live):
            contributions = []
            if hard_weight > 0:
                contributions += [(t, hard_weight, 1) for t in et.required_affinity]
            contributions += [(w.term, w.weight, 1) for w in et.preferred_affinity]
            contributions += [(w.term, w.weight, -1) for w in et.preferred_anti]
            if contributions:
                groups.append((contributions, counts_of_group, own))
        if not has_constraints and not groups:
            return Status.skip()
        namespaces = self._namespaces()
        ns_labels = self._namespace_labels(namespaces, pod_info.namespace)
        scores: dict[str, np.ndarray] = {}
        contributed = False

        if has_constraints:  # the incoming pod's preferred terms against every existing pod
            weighted = [(w, 1) for w in terms.preferred_affinity] + [(w, -1) for w in terms.preferred_anti]
            for w, mult in weighted:
                t = merge_namespace_selector(w.term, namespaces)
                per_row = snapshot.matching_pod_counts((NAME, "any", t.match_key), lambda p, t=t: t.matches(p, None))
                sums = topo.per_value(t.topology_key, per_row, kept=True)
                if sums.any():  # a matching pod on a live node with the key (counts are never negative)
                    contributed = True
                    if t.topology_key not in scores:
                        scores[t.topology_key] = topo.zeros(t.topology_key)
                    scores[t.topology_key] += int(w.weight * mult) * sums

        # those terms against the incoming pod (each distinct term matched once, its pods summed per value)
        for contributions, counts_of_group, own in groups:
            for t, weight, mult in contributions:
                if not t.matches(pod, ns_labels):
                    continue
                sums = topo.per_value(t.topology_key, counts_of_group, kept=own)
                if not sums.any():
                    continue
                contributed = True
                if t.topology_key not in scores:
                    scores[t.topology_key] = topo.zeros(t.topology_key)
                scores[t.topology_key] += int(weight * mult) * sums

        if not contributed:
            return Status.skip()
        state[PRE_SCORE_STATE_KEY] = PreScoreState(topo, scores, pod_info)
        return Status()

    def score_nodes(self, state, pod_info, snapshot, rows: np.ndarray) -> np.ndarray:
        s: PreScoreState | None = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            raise ValueError(f'running Score plugins: plugin "{NAME}" failed with: '
                             f'failed to read "{PRE_SCORE_STATE_KEY}" from cycleState: not found')
        rows = np.asarray(rows, np.int64)
        out = np.zeros(len(rows), np.int64)
        for key, values in s.topology_score.items():
            out += values[s.topo.slots(key, rows)]
        return out

    def normalize_score(self, state, pod_info, scores: np.ndarray) -> Status:
        s: PreScoreState | None = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            return Status.error(f'failed to read "{PRE_SCORE_STATE_KEY}" from cycleState: not found')
        if not s.topology_score or len(scores) == 0:
            return Status()
        lo, hi = int(scores.min()), int(scores.max())
        diff = hi - lo
        if diff > 0:
            scores[:] = (float(MAX_NODE_SCORE) * ((scores - lo).astype(np.float64) / float(diff))).astype(np.int64)
        else:
            scores[:] = 0
        return Status()


# -- QueueingHints: events that may make a pod this plugin rejected schedulable -------------------
def _required_terms(pod):
    """The rejected pod's required affinity and anti-affinity terms (``GetAffinityTerms``; namespace
    selectors are not merged, as upstream's hints do not)."""
    from kschedlab.plugins.inter_pod_affinity_terms import parse_pod_terms

    terms = parse_pod_terms(pod)
    if terms.error is not None:
        raise HintError(terms.error)
    return terms.required_affinity, terms.required_anti


def inter_pod_affinity_after_pod_change(pod_info, old_obj, new_obj) -> QueueingHint:
    """``InterPodAffinity.isSchedulableAfterPodChange`` (v1.30): for bound pods only -- one added
    that matches all the rejected pod's affinity terms, one updated to match them all, or to stop
    matching all its anti-affinity terms, or one deleted that matched all its anti-affinity terms."""

    original, modified = as_objects(old_obj, new_obj, "Pod")
    if original is None and modified is None:
        raise HintError("expected a *v1.Pod")
    if (modified is not None and not modified.spec.node_name) or (
            original is not None and not original.spec.node_name):
        return SKIP
    terms, anti_terms = _required_terms(pod_of(pod_info))
    if modified is not None and original is not None:
        if not pod_matches_all_terms(terms, original) and pod_matches_all_terms(terms, modified):
            return QUEUE
        if pod_matches_all_terms(anti_terms, original) and not pod_matches_all_terms(anti_terms, modified):
            return QUEUE
        return SKIP
    if modified is not None:
        return QUEUE if pod_matches_all_terms(terms, modified) else SKIP
    return QUEUE if pod_matches_all_terms(anti_terms, original) else SKIP


def inter_pod_affinity_after_node_change(pod_info, old_obj, new_obj) -> QueueingHint:
    """``InterPodAffinity.isSchedulableAfterNodeChange`` as upstream's newer hint table
    (kubernetes/kubernetes#127470) specifies it: a new node helps when it has the topology key
    of a required affinity term, or when the pod has required anti-affinity at all (a node
    without the key cannot violate it); an updated node helps when an affinity term's key
    now has a value it did not have, or an anti-affinity term's key lost or changed its
    value. Unrelated label changes are skipped."""
    original, modified = as_objects(old_obj, new_obj, "Node")
    if modified is None:
        raise HintError("expected a new *v1.Node")
    terms, anti_terms = _required_terms(pod_of(pod_info))
    new = modified.metadata.labels
    if original is None:
        return QUEUE if anti_terms or any(t.topology_key in new for t in terms) else SKIP
    old = original.metadata.labels
    if any(t.topology_key in new and old.get(t.topology_key) != new[t.topology_key] for t in terms):
        return QUEUE
    if any(t.topology_key in old and new.get(t.topology_key) != old[t.topology_key] for t in anti_terms):
        return QUEUE
    return SKIP
