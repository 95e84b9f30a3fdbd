"""Resource scores kept per node between pods of the same request (used by the fused fast path).

LeastAllocated (NodeResourcesFit's default scoring strategy, cpu and memory) and
NodeResourcesBalancedAllocation give a node a score that depends only on the node's allocatable
and requested resources and on the pod's request. Between two pods of one template few nodes
change (the one the last pod went to), so :class:`NodeScores` keeps both raw scores per node and
scores again only the nodes changed since they were read (``Snapshot.row_version``), with the
same integer and IEEE-double arithmetic as the plugins.

When every other Score plugin of a cycle answers a constant on every node (DynamicResources for
a pod without claims, TaintToleration when no node has a taint, ImageLocality when no node
reports an image), the cycle's whole score matrices follow from the two kept scores:
:class:`ScoreTotals` keeps every node's weighted total current together with the two scores, so
a cycle reads its nodes' totals instead of assembling, normalizing and summing the matrices; its
:class:`KeptScoreOutcome` builds the raw and normalized matrices only when a reader asks for them.

Both follow the snapshot through :class:`FollowedRows`: each read first computes again the rows
changed since the last one (``Snapshot.changes_since``). :class:`NodeFits` keeps NodeResourcesFit's
free-capacity check the same way, so a cycle in which every node has room for the pod needs no
array operation at all to know it. :class:`NodeFitVerdicts` keeps the plugin's whole verdict (the
checks a node fails and the code), which a failed cycle (a preemptor's) reads for every node;
:class:`FitVerdictsNow` gives the same verdicts for a shape not kept yet, computed on the rows read.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod

import numpy as np

from kschedlab.framework.interface import MAX_NODE_SCORE, MIN_NODE_SCORE, Verdicts
from kschedlab.framework.runtime import ScoreOutcome
from kschedlab.framework.status import Code

#: more changed rows than this are computed again with array operations, fewer one by one
VECTOR_FROM = 8


class FollowedRows(ABC):
    """Values per snapshot row kept current: :meth:`refresh` computes again (``_update_one``, or
    ``_update_many`` for many rows) the rows changed since the last refresh, from the snapshot's
    change log, or, when the log does not reach back that far (and at first), every row whose
    ``row_version`` moved."""

    def __init__(self, snapshot):
        self.snapshot = snapshot
        #: each row's ``row_version`` when last computed (-1: never)
        self.version = np.zeros(0, np.int64)
        self._mark: int | None = None

    def refresh(self) -> None:
        """Compute again the rows changed since the last call."""
        snap = self.snapshot
        grown = len(snap.row_version) - len(self.version)
        if grown:
            self.version = np.concatenate([self.version, np.full(grown, -1, np.int64)])
            self._grow(grown)
        logged, self._mark = snap.changes_since(self._mark)
        if logged is None:
            self._update_rows(np.flatnonzero(self.version != snap.row_version))
        elif logged:
            rows = sorted(set(logged))
            if len(rows) >= VECTOR_FROM:
                self._update_rows(np.asarray(rows, np.int64))
            else:
                for row in rows:
                    self._update_one(row)
                    self.version[row] = snap.row_version.item(row)

    def _update_rows(self, rows: np.ndarray) -> None:
        if len(rows):
            self._update_many(rows)
            self.version[rows] = self.snapshot.row_version.take(rows)

    @abstractmethod
    def _grow(self, count: int) -> None:
        """Room for ``count`` more rows (computed before they are read)."""

    @abstractmethod
    def _update_many(self, rows: np.ndarray) -> None:
        """Compute the values of ``rows`` again (many rows: with array operations)."""

    @abstractmethod
    def _update_one(self, row: int) -> None:
        """Compute the values of one row again."""


class NodeFits(FollowedRows):
    """Per node, whether its free capacity covers what the pod needs (NodeResourcesFit's check on
    ``Snapshot.free``; ``need`` per snapshot column, ``numpy.iinfo(np.int64).min`` where nothing is
    needed), kept current, with the nodes that do not fit.

    >>> from kschedlab.cluster import Snapshot
    >>> from kschedlab.api.core import Node
    >>> snap = Snapshot()
    >>> for name, cpu in (("a", "1"), ("b", "4")):
    ...     _ = snap.add_node(Node.model_validate({"metadata": {"name": name},
    ...         "status": {"allocatable": {"cpu": cpu, "pods": "110"}}}))
    >>> need = np.full(len(snap.resources), np.iinfo(np.int64).min)
    >>> need[snap.res_index["cpu"]] = 2000
    >>> fits = NodeFits(snap, need)
    >>> fits.every_node_fits(), fits.fit(np.array([0, 1])).tolist()
    (False, [False, True])
    """

    def __init__(self, snapshot, need: np.ndarray):
        super().__init__(snapshot)
        self.need = need
        self.columns = [int(c) for c in np.flatnonzero(need != np.iinfo(np.int64).min)]
        self.fits = np.zeros(0, bool)
        #: the nodes (rows of existing or removed nodes) whose free capacity is short, as last computed
        self.unfit: set[int] = set()

    def every_node_fits(self) -> bool:
        """Every node has room for the pod (rows of removed nodes count too: a cautious answer)."""
        self.refresh()
        return not self.unfit

    def fit(self, rows: np.ndarray) -> np.ndarray:
        """Whether each of ``rows`` has room for the pod."""
        self.refresh()
        return self.fits.take(rows)

    def _grow(self, count: int) -> None:
        self.fits = np.concatenate([self.fits, np.zeros(count, bool)])

    def _update_many(self, rows: np.ndarray) -> None:
        used = len(self.snapshot.nodes)  # rows past the nodes are spare capacity, never read
        ok = (self.snapshot.free.take(rows, axis=1) >= self.need[:, None]).all(axis=0)
        self.fits[rows] = ok
        if self.unfit:  # (empty at the first fill of every row)
            self.unfit.difference_update(rows.tolist())
        short = rows[~ok]
        self.unfit.update(short[short < used].tolist())

    def _update_one(self, row: int) -> None:
        free, need = self.snapshot.free, self.need
        fits = all(free.item(c, row) >= need.item(c) for c in self.columns)
        self.fits[row] = fits
        if fits or row >= len(self.snapshot.nodes):
            self.unfit.discard(row)
        else:
            self.unfit.add(row)


class NodeFitVerdicts(FollowedRows):
    """Per node, NodeResourcesFit's Filter verdict for a pod needing ``checked`` ((resource,
    request) in the order the plugin checks them): the set of checks it fails (a bit per check,
    "Too many pods" first, 0 when it fits) and the code (UnschedulableAndUnresolvable when a
    request exceeds the node's allocatable), kept current; :meth:`verdicts` answers as the
    plugin's ``filter_nodes`` does.

    >>> from kschedlab.cluster import Snapshot
    >>> from kschedlab.api.core import Node
    >>> snap = Snapshot()
    >>> for name, cpu in (("a", "1"), ("b", "4"), ("c", "3")):
    ...     _ = snap.add_node(Node.model_validate({"metadata": {"name": name},
    ...         "status": {"allocatable": {"cpu": cpu, "pods": "110"}}}))
    >>> v = NodeFitVerdicts(snap, (("cpu", 3500),)).verdicts(np.array([2, 1, 0]))
    >>> v.codes.tolist(), v.reason_idx.tolist(), v.reasons
    ([3, 0, 3], [0, -1, 0], [('Insufficient cpu',)])
    """

    def __init__(self, snapshot, checked: tuple[tuple[str, int], ...]):
        super().__init__(snapshot)
        from kschedlab.plugins.node_resources_fit import TOO_MANY_PODS

        self.checked = checked
        self.names = [TOO_MANY_PODS, *(f"Insufficient {name}" for name, _ in checked)]
        self.sig = np.zeros(0, np.int64)
        self.code = np.zeros(0, np.int8)
        self._reasons: dict[int, tuple[str, ...]] = {}

    def verdicts(self, rows: np.ndarray) -> Verdicts:
        """The plugin's verdicts on ``rows`` (reasons in the order of the checks failed)."""
        sig, code = self._read(rows)
        if not sig.any():
            return Verdicts.passing(len(rows))
        lookup, present = _reason_lookup(sig)
        return Verdicts(code, lookup.take(sig), [self._reason(s) for s in present.tolist()])

    def failures(self, rows: np.ndarray, plugin: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, list]:
        """The Filter outcome's columns over ``rows`` when the plugin, at index ``plugin`` of the
        Filter order, is the only one to reject any of them: ``(fail_plugin, fail_code,
        fail_reason, reasons)`` as :class:`~kschedlab.framework.runtime.FilterFailures` records
        :meth:`verdicts` of ``rows`` (the reasons of the signatures present, smallest first),
        with one lookup per column instead of masked writes.

        >>> from kschedlab.cluster import Snapshot
        >>> from kschedlab.api.core import Node
        >>> snap = Snapshot()
        >>> for name, cpu in (("a", "1"), ("b", "4"), ("c", "3")):
        ...     _ = snap.add_node(Node.model_validate({"metadata": {"name": name},
        ...         "status": {"allocatable": {"cpu": cpu, "pods": "110"}}}))
        >>> plugin, code, reason, reasons = NodeFitVerdicts(snap, (("cpu", 3500),)).failures(np.array([2, 1, 0]), 4)
        >>> plugin.tolist(), code.tolist(), reason.tolist(), reasons
        ([4, -1, 4], [3, 0, 3], [0, -1, 0], [('Insufficient cpu',)])
        """
        sig, code = self._read(rows)
        lookup, present = _reason_lookup(sig)
        failing = (sig != 0).view(np.int8)
        fail_plugin = failing * np.int16(plugin + 1) - np.int16(1)
        return fail_plugin, code, lookup.take(sig), [self._reason(s) for s in present.tolist()]

    def _read(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The signatures and codes of ``rows``, current."""
        self.refresh()
        return self.sig.take(rows), self.code.take(rows)

    def _reason(self, sig: int) -> tuple[str, ...]:
        found = self._reasons.get(sig)
        if found is None:
            found = self._reasons[sig] = tuple(n for i, n in enumerate(self.names) if sig >> i & 1)
        return found

    def _grow(self, count: int) -> None:
        self.sig = np.concatenate([self.sig, np.zeros(count, np.int64)])
        self.code = np.concatenate([self.code, np.zeros(count, np.int8)])

    def _update_many(self, rows: np.ndarray) -> None:
        self.sig[rows], self.code[rows] = fit_signatures(self.snapshot, self.checked, rows)

    def _update_one(self, row: int) -> None:
        from kschedlab.api.resources import PODS

        snap = self.snapshot
        index = snap.res_index
        sig = int(snap.pod_count.item(row) + 1 > snap.allocatable.item(index[PODS], row))
        hopeless = False
        for bit, (name, want) in enumerate(self.checked, 1):
            col = index.get(name)
            alloc = 0 if col is None else snap.allocatable.item(col, row)
            if want > alloc - (0 if col is None else snap.requested.item(col, row)):
                sig |= 1 << bit
                hopeless = hopeless or want > alloc
        self.sig[row] = sig
        self.code[row] = 0 if not sig else Code.UnschedulableAndUnresolvable if hopeless else Code.Unschedulable


class FitVerdictsNow(NodeFitVerdicts):
    """:class:`NodeFitVerdicts` of a young shape (one seen in a cycle or two: most pods of a job
    trace ask for requests of their own): each read computes the rows it asks about and keeps
    nothing, so a cycle's rejected nodes cost no node-sized fill.

    >>> from kschedlab.cluster import Snapshot
    >>> from kschedlab.api.core import Node
    >>> snap = Snapshot()
    >>> for name, cpu in (("a", "1"), ("b", "4"), ("c", "3")):
    ...     _ = snap.add_node(Node.model_validate({"metadata": {"name": name},
    ...         "status": {"allocatable": {"cpu": cpu, "pods": "110"}}}))
    >>> v = FitVerdictsNow(snap, (("cpu", 3500),)).verdicts(np.array([2, 0]))
    >>> v.codes.tolist(), v.reason_idx.tolist(), v.reasons
    ([3, 3], [0, 0], [('Insufficient cpu',)])
    """

    def _read(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return fit_signatures(self.snapshot, self.checked, rows)


def fit_signatures(snap, checked: tuple[tuple[str, int], ...], rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """NodeResourcesFit's verdict on ``rows`` for a pod needing ``checked``: the checks each node
    fails (a bit per check, "Too many pods" first) and the code, as :class:`NodeFitVerdicts` keeps them."""
    from kschedlab.api.resources import PODS

    index, free = snap.res_index, snap.free  # (allocatable less requested; in the pods row, less the pods)
    sig = (free[index[PODS]].take(rows) < 1).astype(np.int64)
    hopeless = np.zeros(len(rows), bool)
    for bit, (name, want) in enumerate(checked, 1):
        col = index.get(name)
        if col is None:  # no node has or uses this resource
            alloc = np.zeros(len(rows), np.int64)
            lacking = want > alloc
        else:
            alloc = snap.allocatable[col].take(rows)
            lacking = want > free[col].take(rows)
        sig |= np.left_shift(lacking, bit, dtype=np.int64)
        hopeless |= lacking & (want > alloc)
    # a hopeless row fails a check too: Unschedulable where a check fails, one more where hopeless
    code = (sig != 0).view(np.int8) * _UNSCHEDULABLE + hopeless.view(np.int8) * _UNRESOLVABLE_MORE
    return sig, code


#: the Filter codes as int8 steps: Unschedulable, and what UnschedulableAndUnresolvable adds to it
_UNSCHEDULABLE = np.int8(Code.Unschedulable)
_UNRESOLVABLE_MORE = np.int8(Code.UnschedulableAndUnresolvable - Code.Unschedulable)


def _reason_lookup(sig: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A lookup from a signature to its position among the failing signatures present in ``sig``
    (-1 for 0, a node that fits; signatures absent from ``sig`` are never looked up), and those
    signatures (nonzero, smallest first).

    >>> lookup, present = _reason_lookup(np.array([0, 6, 2, 6]))
    >>> present.tolist(), lookup.take(np.array([0, 6, 2, 6])).tolist()
    ([2, 6], [-1, 1, 0, 1])
    """
    seen = np.zeros(int(sig.max()) + 1 if len(sig) else 1, bool)
    seen[sig] = True
    seen[0] = False
    # the count of present signatures up to each one, less one: its position (0 gets -1)
    return seen.cumsum(dtype=np.int32) - np.int32(1), np.flatnonzero(seen)


class ScoreTotals:
    """Per node, the weighted total score of one plan whose Score plugins other than the two
    resource scorers answer constants, kept on the two kept scores; and the plan's layout, to
    build its raw and normalized matrices (:class:`KeptScoreOutcome`).

    ``raw_constant`` / ``normalized_constant`` give every plugin's constant answer (ignored on the
    rows ``least_row`` and ``balanced_row``, the LeastAllocated and BalancedAllocation plugins,
    None when the plan has no such plugin); ``weights`` are the plugins' weights.

    >>> t = ScoreTotals(np.array([0, 0, 0]), np.array([100, 0, 0]), 1, 2, np.array([3, 1, 1]), 2)
    >>> t.set(np.array([0, 1]), np.array([80, 40]), np.array([90, 50]))
    >>> t.set_one(1, 40, 50)
    >>> t.total.tolist(), t.matrix(t.normalized_constant, np.array([[80, 40], [90, 50]])).tolist()
    ([470, 390], [[100, 100], [80, 40], [90, 50]])
    """

    def __init__(self, raw_constant: np.ndarray, normalized_constant: np.ndarray, least_row: int | None,
                 balanced_row: int | None, weights: np.ndarray, size: int):
        self.raw_constant = raw_constant
        self.normalized_constant = normalized_constant
        self.least_row = least_row
        self.balanced_row = balanced_row
        self.weights = weights
        self.weight_of = {row: int(weights[row]) for row in (least_row, balanced_row) if row is not None}
        constant = [i for i in range(len(weights)) if i not in self.weight_of]
        #: the weighted sum of the constant answers (every node's total starts there)
        self.base = int(sum(int(weights[i]) * int(normalized_constant[i]) for i in constant))
        #: False once some kept score fell outside the node score range (the plugins must report it)
        self.in_range = True
        self.total = np.full(size, self.base, np.int64)

    def grow(self, count: int) -> None:
        """Room for ``count`` more nodes (their resource scores are set before they are read)."""
        self.total = np.concatenate([self.total, np.full(count, self.base, np.int64)])

    def set(self, rows: np.ndarray, least: np.ndarray, balanced: np.ndarray) -> None:
        """The nodes ``rows`` now have these LeastAllocated and BalancedAllocation scores (nodes
        lacking cpu or memory, LeastAllocated < 0, are left out: they are never read here)."""
        usable = least >= 0
        if not usable.all():
            rows, least, balanced = rows[usable], least[usable], balanced[usable]
        total = self.base
        for row, values in ((self.least_row, least), (self.balanced_row, balanced)):
            if row is not None:
                total = total + self.weight_of[row] * values
                if len(values) and (values.max() > MAX_NODE_SCORE or values.min() < MIN_NODE_SCORE):
                    self.in_range = False
        self.total[rows] = total

    def set_one(self, row: int, least: int, balanced: int) -> None:
        """:meth:`set` for one node."""
        if least < 0:
            return
        total = self.base
        for i, value in ((self.least_row, least), (self.balanced_row, balanced)):
            if i is not None:
                total += self.weight_of[i] * value
                if not MIN_NODE_SCORE <= value <= MAX_NODE_SCORE:
                    self.in_range = False
        self.total[row] = total

    def matrix(self, constant: np.ndarray, kept: np.ndarray) -> np.ndarray:
        """The plan's score matrix (plugins x nodes): the ``constant`` answers, and the ``kept``
        LeastAllocated and BalancedAllocation scores (2 x nodes) on their rows."""
        out = np.repeat(constant[:, None], kept.shape[1], axis=1)
        for row, values in ((self.least_row, kept[0]), (self.balanced_row, kept[1])):
            if row is not None:
                out[row] = values
        return out


class KeptScoreOutcome(ScoreOutcome):
    """The :class:`~kschedlab.framework.runtime.ScoreOutcome` of a cycle scored from kept scores: it
    holds the cycle's two resource scores per node (``kept``) and the totals, and builds the raw and
    normalized matrices the first time they are read (traces are kept by the thousand, read seldom).
    """

    def __init__(self, rows: np.ndarray, plugins: list[str], weights: np.ndarray, kept: np.ndarray,
                 totals: ScoreTotals, total: np.ndarray):
        self.rows, self.plugins, self.weights = rows, plugins, weights
        self._kept, self._totals = kept, totals
        self._raw = self._normalized = None
        self._total = total

    @property
    def raw(self) -> np.ndarray:
        if self._raw is None:
            self._raw = self._totals.matrix(self._totals.raw_constant, self._kept)
        return self._raw

    @raw.setter
    def raw(self, value: np.ndarray) -> None:
        self._raw = value

    @property
    def normalized(self) -> np.ndarray:
        if self._normalized is None:
            self._normalized = self._totals.matrix(self._totals.normalized_constant, self._kept)
        return self._normalized

    @normalized.setter
    def normalized(self, value: np.ndarray) -> None:
        self._normalized = value


class NodeScores(FollowedRows):
    """Per node, the LeastAllocated (cpu and memory, the plugin's weights) and BalancedAllocation
    raw scores of one pod request, kept current, and the :class:`ScoreTotals` built on them.

    A changed node is scored again with the same integer and float arithmetic as the plugins
    (IEEE doubles either way). LeastAllocated is -1 where the node has no cpu or no memory
    allocatable (the plugins then leave the resource out: not kept here; ``lacking`` holds such
    nodes as last scored, spare rows past the snapshot's nodes left out).

    >>> from kschedlab.cluster import Snapshot
    >>> from kschedlab.api.core import Node
    >>> snap = Snapshot()
    >>> _ = snap.add_node(Node.model_validate({"metadata": {"name": "n"},
    ...     "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}))
    >>> want = np.array([1000, 2 << 30])
    >>> NodeScores(snap, want, want, np.array([1, 1])).take(np.array([0])).tolist()
    [[75], [75]]
    """

    def __init__(self, snapshot, score_requests: np.ndarray, balance_requests: np.ndarray, weights: np.ndarray):
        super().__init__(snapshot)
        self.score_requests = score_requests
        self.balance_requests = balance_requests
        self.request_list = [int(v) for v in score_requests] + [int(v) for v in balance_requests]
        self.weights = weights
        self.weight_list = [int(w) for w in weights]
        self.scores = np.zeros((2, 0), np.int64)
        #: rows whose LeastAllocated was -1 when last scored
        self.lacking: set[int] = set()
        #: the totals kept on these scores, by the plan's Score plugin names
        self.totals: dict[tuple[str, ...], ScoreTotals] = {}

    def take(self, rows: np.ndarray) -> np.ndarray:
        """The two scores of ``rows`` (2 x rows), current."""
        self.refresh()
        return self.scores.take(rows, axis=1)

    def score(self, rows: np.ndarray) -> np.ndarray:
        """The two scores of ``rows`` (2 x rows) computed now, neither read from nor kept in this
        object (LeastAllocated -1 where the node lacks cpu or memory).

        >>> from kschedlab.cluster import Snapshot
        >>> from kschedlab.api.core import Node
        >>> snap = Snapshot()
        >>> _ = snap.add_node(Node.model_validate({"metadata": {"name": "n"},
        ...     "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}))
        >>> want = np.array([1000, 2 << 30])
        >>> NodeScores(snap, want, want, np.array([1, 1])).score(np.array([0])).tolist()
        [[75], [75]]
        """
        return np.stack(self._score_many(rows))

    def any_lacking(self, rows: np.ndarray) -> bool:
        """Some node of ``rows`` lacks cpu or memory allocatable (as of the last refresh)."""
        return bool(self.lacking) and bool(self.scores[0].take(rows).min() < 0)

    def add_totals(self, names: tuple[str, ...], totals: ScoreTotals) -> ScoreTotals:
        """Keep ``totals`` (built for ``names``) current from now on, set from the kept scores."""
        self.totals[names] = totals
        totals.set(np.arange(self.scores.shape[1]), self.scores[0], self.scores[1])
        return totals

    def _grow(self, count: int) -> None:
        self.scores = np.concatenate([self.scores, np.zeros((2, count), np.int64)], axis=1)
        for totals in self.totals.values():
            totals.grow(count)

    def _update_many(self, rows: np.ndarray) -> None:
        least, balanced = self._score_many(rows)
        self.scores[0, rows], self.scores[1, rows] = least, balanced
        used = len(self.snapshot.nodes)  # rows past the nodes are spare capacity, never read
        if self.lacking:
            self.lacking.difference_update(rows.tolist())
        short = rows[least < 0]
        self.lacking.update(short[short < used].tolist())
        for totals in self.totals.values():
            totals.set(rows, least, balanced)

    def _update_one(self, row: int) -> None:
        least, balanced = self._score_one(row)
        self.scores[0, row], self.scores[1, row] = least, balanced
        if least < 0 and row < len(self.snapshot.nodes):
            self.lacking.add(row)
        else:
            self.lacking.discard(row)
        for totals in self.totals.values():
            totals.set_one(row, least, balanced)

    def _score_many(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        snap = self.snapshot
        alloc = snap.allocatable[:2].take(rows, axis=1)
        lacking = (alloc == 0).any(axis=0)
        alloc = np.where(alloc == 0, 1, alloc)
        least = _least_allocated(snap.non_zero.take(rows, axis=1) + self.score_requests[:, None], alloc,
                                 self.weights)
        balanced = balanced_allocation(snap.requested[:2].take(rows, axis=1), self.balance_requests, alloc)
        least[lacking] = -1
        balanced[lacking] = 0
        return least, balanced

    def _score_one(self, row: int) -> tuple[int, int]:
        snap = self.snapshot
        alloc, non_zero, requested = snap.allocatable, snap.non_zero, snap.requested
        a0, a1 = alloc.item(0, row), alloc.item(1, row)
        if a0 == 0 or a1 == 0:
            return -1, 0
        s0_req, s1_req, b0, b1 = self.request_list
        r0, r1 = non_zero.item(0, row) + s0_req, non_zero.item(1, row) + s1_req
        s0 = 0 if r0 > a0 else (a0 - r0) * MAX_NODE_SCORE // a0
        s1 = 0 if r1 > a1 else (a1 - r1) * MAX_NODE_SCORE // a1
        w0, w1 = self.weight_list
        least = (s0 * w0 + s1 * w1) // (w0 + w1) if w0 + w1 > 0 else 0
        u0, u1 = requested.item(0, row), requested.item(1, row)
        diff = MAX_NODE_SCORE // 2 + _balance(u0 + b0, u1 + b1, a0, a1) - _balance(u0, u1, a0, a1)
        half = abs(diff) // 2
        return least, MAX_NODE_SCORE // 2 + (half if diff >= 0 else -half)


def _balance(r0: int, r1: int, a0: int, a1: int) -> int:
    """:func:`~kschedlab.plugins.resource_allocation.balance` of one node with two resources."""
    f0 = min(float(r0) / float(a0), 1.0)
    f1 = min(float(r1) / float(a1), 1.0)
    return math.trunc((1 - abs((f0 - f1) / 2)) * float(MAX_NODE_SCORE))


def balanced_allocation(used: np.ndarray, want: np.ndarray, allocatable: np.ndarray) -> np.ndarray:
    """:func:`~kschedlab.plugins.resource_allocation.balanced_allocation` for cpu and memory when
    every node has both (the fractions with and without the pod computed together)."""
    both = np.stack((used + want[:, None], used))
    frac = np.minimum(both / allocatable, 1.0)
    std = np.abs((frac[:, 0] - frac[:, 1]) / 2)
    balance = np.trunc((1 - std) * float(MAX_NODE_SCORE)).astype(np.int64)
    half = MAX_NODE_SCORE // 2
    diff = half + balance[0] - balance[1]
    return half + np.sign(diff) * (np.abs(diff) // 2)



def _least_allocated(requested: np.ndarray, allocatable: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """:func:`~kschedlab.plugins.resource_allocation.least_allocated` when every node has every
    resource (no capacity is 0)."""
    score = (allocatable - requested) * MAX_NODE_SCORE // allocatable
    score[requested > allocatable] = 0
    weight_sum = int(weights.sum())
    if weight_sum <= 0:
        return np.zeros(requested.shape[1], np.int64)
    return (weights @ score) // weight_sum
