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
:class:`ScoreMatrices` keeps them per node (raw and normalized score of every plugin, weighted
total), kept current together with the two scores, so a cycle reads its nodes' columns instead
of assembling, normalizing and summing them again.
"""

from __future__ import annotations

import math

import numpy as np

from kschedlab.framework.interface import MAX_NODE_SCORE, MIN_NODE_SCORE


class ScoreMatrices:
    """Per node, the raw and normalized scores of every Score plugin of one plan and the weighted
    total, for plans whose plugins other than the two resource scorers answer constants.

    ``raw_constant`` / ``normalized_constant`` give every plugin's constant answer (ignored on the
    rows ``least_row`` and ``balanced_row``, the LeastAllocated and BalancedAllocation plugins,
    None when the plan has no such plugin); ``weights`` are the plugins' weights.

    >>> m = ScoreMatrices(np.array([0, 0, 0]), np.array([100, 0, 0]), 1, 2, np.array([3, 1, 1]), 2)
    >>> m.set(np.array([0, 1]), np.array([80, 40]), np.array([90, 50]))
    >>> m.set_one(1, 40, 50)
    >>> m.raw.tolist(), m.normalized.tolist(), m.total.tolist()
    ([[0, 0], [80, 40], [90, 50]], [[100, 100], [80, 40], [90, 50]], [470, 390])
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
        self.raw = np.zeros((len(weights), 0), np.int64)
        self.normalized = self.raw.copy()
        self.total = np.zeros(0, np.int64)
        self.grow(size)

    def grow(self, count: int) -> None:
        """Room for ``count`` more nodes (their resource scores are set before they are read)."""
        self.raw = np.concatenate([self.raw, np.repeat(self.raw_constant[:, None], count, axis=1)], axis=1)
        self.normalized = np.concatenate(
            [self.normalized, np.repeat(self.normalized_constant[:, None], count, axis=1)], axis=1)
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
                self.raw[row, rows] = values
                self.normalized[row, rows] = values
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
                self.raw[i, row] = self.normalized[i, row] = value
                total += self.weight_of[i] * value
                if not MIN_NODE_SCORE <= value <= MAX_NODE_SCORE:
                    self.in_range = False
        self.total[row] = total

    def take(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(raw, normalized, total) of ``rows``, in that order."""
        return self.raw.take(rows, axis=1), self.normalized.take(rows, axis=1), self.total.take(rows)


class NodeScores:
    """Per node, the LeastAllocated (cpu and memory, the plugin's weights) and BalancedAllocation
    raw scores of one pod request, kept until the node changes (``Snapshot.row_version``), and the
    :class:`ScoreMatrices` built on them.

    A changed node is scored again with the same integer and float arithmetic as the plugins
    (IEEE doubles either way). LeastAllocated is -1 where the node has no cpu or no memory
    allocatable (the plugins then leave the resource out: not kept here; ``lacking`` holds such
    nodes as last scored).

    >>> from kschedlab.cluster import Snapshot
    >>> from kschedlab.api.core import Node
    >>> snap = Snapshot()
    >>> _ = snap.add_node(Node.model_validate({"metadata": {"name": "n"},
    ...     "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}))
    >>> want = np.array([1000, 2 << 30])
    >>> NodeScores(snap, want, want, np.array([1, 1])).take(np.array([0])).tolist()
    [[75], [75]]
    """

    #: more changed nodes than this are scored with array operations, fewer one by one
    VECTOR_FROM = 8

    def __init__(self, snapshot, score_requests: np.ndarray, balance_requests: np.ndarray, weights: np.ndarray):
        self.snapshot = snapshot
        self.score_requests = score_requests
        self.balance_requests = balance_requests
        self.weights = weights
        self.weight_list = [int(w) for w in weights]
        self.scores = np.zeros((2, 0), np.int64)
        self.version = np.zeros(0, np.int64)
        #: rows whose LeastAllocated was -1 when last scored
        self.lacking: set[int] = set()
        #: the score matrices kept on these scores, by the plan's Score plugin names
        self.matrices: dict[tuple[str, ...], ScoreMatrices] = {}

    def take(self, rows: np.ndarray) -> np.ndarray:
        """The two scores of ``rows`` (2 x rows), scoring again the nodes changed since last read."""
        self.refresh(rows)
        return self.scores.take(rows, axis=1)

    def any_lacking(self, rows: np.ndarray) -> bool:
        """Some node of ``rows`` (read since its last change) lacks cpu or memory allocatable."""
        return bool(self.lacking) and bool(self.scores[0].take(rows).min() < 0)

    def add_matrices(self, names: tuple[str, ...], matrices: ScoreMatrices) -> ScoreMatrices:
        """Keep ``matrices`` (built for ``names``) current from now on, set from the kept scores."""
        self.matrices[names] = matrices
        matrices.set(np.arange(self.scores.shape[1]), self.scores[0], self.scores[1])
        return matrices

    def refresh(self, rows: np.ndarray) -> None:
        """Score again the nodes of ``rows`` changed since they were last read."""
        snap = self.snapshot
        if len(self.version) != len(snap.row_version):
            grown = len(snap.row_version) - len(self.version)
            self.version = np.concatenate([self.version, np.full(grown, -1, np.int64)])
            self.scores = np.concatenate([self.scores, np.zeros((2, grown), np.int64)], axis=1)
            for matrices in self.matrices.values():
                matrices.grow(grown)
        current = snap.row_version.take(rows)
        stale = np.flatnonzero(self.version.take(rows) != current)
        if not len(stale):
            return
        changed = rows[stale]
        if len(changed) >= self.VECTOR_FROM:
            least, balanced = self._score_many(changed)
            self.scores[0, changed], self.scores[1, changed] = least, balanced
            self.lacking.difference_update(changed.tolist())
            self.lacking.update(changed[least < 0].tolist())
            for matrices in self.matrices.values():
                matrices.set(changed, least, balanced)
        else:
            for row in changed.tolist():
                least, balanced = self._score_one(row)
                self.scores[0, row], self.scores[1, row] = least, balanced
                if least < 0:
                    self.lacking.add(row)
                else:
                    self.lacking.discard(row)
                for matrices in self.matrices.values():
                    matrices.set_one(row, least, balanced)
        self.version[changed] = current[stale]

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
        a0, a1 = int(snap.allocatable[0, row]), int(snap.allocatable[1, row])
        if a0 == 0 or a1 == 0:
            return -1, 0
        r0 = int(snap.non_zero[0, row]) + int(self.score_requests[0])
        r1 = int(snap.non_zero[1, row]) + int(self.score_requests[1])
        s0 = 0 if r0 > a0 else (a0 - r0) * MAX_NODE_SCORE // a0
        s1 = 0 if r1 > a1 else (a1 - r1) * MAX_NODE_SCORE // a1
        w0, w1 = self.weight_list
        least = (s0 * w0 + s1 * w1) // (w0 + w1) if w0 + w1 > 0 else 0
        u0, u1 = int(snap.requested[0, row]), int(snap.requested[1, row])
        b0, b1 = int(self.balance_requests[0]), int(self.balance_requests[1])
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
