"""Opportunistic batching (``pkg/scheduler/framework/runtime/batch.go``, KEP-5598).

When consecutive pods have the same scheduling signature (see
:meth:`kschedlab.framework.runtime.Framework.sign_pod`), the scoring result of the
first one is reused for the next ones: after a full cycle has picked the best node,
the other feasible nodes are kept, best first; the next pod with the same signature
gets the head of that list as a *hint*, which is filtered alone (as a nominated node
is) and taken when it fits, skipping Filter over all nodes and Score.

The cached list is only valid under the "one pod per node" assumption: placing the
previous pod changed its node and nothing else, so the other nodes' filter and score
results still hold.  Before a hint is given the batch checks, in upstream's order:

========================  =====================================================================
reason (``flush``)         the cached list is not used because
========================  =====================================================================
``pod_skipped``            another pod (of any profile) was attempted in between: the
                           scheduling cycle is not the previous one + 1
``pod_failed``             the previous pod did not get a node
``pod_nominated``          the pod has a nominated node (preemption) and goes there instead
``pod_incompatible``       the signature differs, or the pod cannot be signed
``expired``                the list is older than 0.5 s (:data:`MAX_BATCH_AGE`)
``node_missing``           the node the previous pod got is gone
``node_not_full``          that node still passes Filter for this pod: it may get a second
                           pod, and its new score is unknown
========================  =====================================================================

After the cycle, a pod that took the hint leaves the rest of the list for the next
pod; any other pod that got a node stores its own result, or drops the batch
(``pod_not_batchable``: no signature; ``empty_list``: only one feasible node).
A dropped reason is only recorded; the stale list can no longer be used since it
fails the cycle check.

Nodes added, relabelled or re-tainted within the 0.5 s window are not seen by pods
served from the batch (upstream behaviour): only the hinted node itself is filtered
again, and a batch whose previous node was deleted is dropped.

>>> b = OpportunisticBatch(framework=None)
>>> b.store_schedule_results("sig", None, "n1", SortedScoredNodes.from_names(["n2", "n3"]), cycle=1, now=0.0)
>>> b.state.nodes.names()
['n2', 'n3']
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kschedlab.framework.status import FrameworkError

#: upstream ``maxBatchAge``: a cached list older than this (seconds) is not used
MAX_BATCH_AGE = 0.5

# attempt results (upstream metrics.BatchAttempt*)
NO_HINT = "no_hint"
HINT_USED = "hint_used"
HINT_NOT_USED = "hint_not_used"

# reasons the cached list is not usable (upstream metrics.BatchFlush*)
FLUSH_POD_FAILED = "pod_failed"
FLUSH_POD_SKIPPED = "pod_skipped"
FLUSH_POD_NOMINATED = "pod_nominated"
FLUSH_NODE_MISSING = "node_missing"
FLUSH_NODE_NOT_FULL = "node_not_full"
FLUSH_EMPTY_LIST = "empty_list"
FLUSH_EXPIRED = "expired"
FLUSH_POD_INCOMPATIBLE = "pod_incompatible"
FLUSH_POD_NOT_BATCHABLE = "pod_not_batchable"


class SortedScoredNodes:
    """A cycle's feasible nodes other than the chosen one, best total score first
    (``framework.SortedScoredNodes``).  Nodes with equal totals come in random order,
    as upstream's per-node random tie-break key orders them.

    Built from the cycle's :class:`~kschedlab.framework.runtime.ScoreOutcome` (``cols``:
    its columns left after the pick); sorted on first use.
    """

    def __init__(self, names: tuple | list, scores: Any = None, cols: np.ndarray | None = None,
                 rng: np.random.Generator | None = None):
        self._names = names  # snapshot row -> node name (for scores) or the node names in order
        self._scores = scores
        self._cols = np.arange(len(names)) if cols is None else np.asarray(cols, np.int64)
        self._rng = rng
        self._order: np.ndarray | None = None if scores is not None else self._cols
        self._pos = 0

    @classmethod
    def from_names(cls, names: list[str]) -> "SortedScoredNodes":
        """A list already in order (for tests)."""
        return cls(list(names))

    def _sorted(self) -> np.ndarray:
        if self._order is None:
            total = self._scores.total[self._cols]
            keys = self._rng.random(len(self._cols)) if self._rng is not None else np.zeros(len(self._cols))
            self._order = self._cols[np.lexsort((-keys, -total))]
        return self._order

    def __len__(self) -> int:
        return len(self._cols) - self._pos

    def _name(self, col: int) -> str:
        if self._scores is None:
            return self._names[col]
        return self._names[int(self._scores.rows[col])]

    def pop(self) -> tuple[str, int]:
        """The best remaining node: (name, column of its scores)."""
        col = int(self._sorted()[self._pos])
        self._pos += 1
        return self._name(col), col

    def names(self) -> list[str]:
        """The remaining nodes, best first."""
        return [self._name(int(c)) for c in self._sorted()[self._pos:]]

    def cached_scores(self, col: int) -> dict[str, Any] | None:
        """The scores a column had in the cycle that built the list, in the shape of
        :meth:`CycleTrace.scores` entries: ``{plugin: {raw, normalized, weighted}, "total": int}``."""
        sc = self._scores
        if sc is None:
            return None
        weighted = sc.weighted
        entry: dict[str, Any] = {name: {"raw": int(sc.raw[i, col]), "normalized": int(sc.normalized[i, col]),
                                        "weighted": int(weighted[i, col])} for i, name in enumerate(sc.plugins)}
        entry["total"] = int(sc.total[col])
        return entry


@dataclass
class BatchState:
    """The cached result of the last full cycle of a batchable pod."""

    signature: str
    nodes: SortedScoredNodes
    created: float


@dataclass
class LastCycle:
    """Upstream ``schedulingCycle``: the last cycle that found a node, and that node."""

    cycle: int = 0
    chosen: str = ""
    succeeded: bool = False


@dataclass
class BatchRecord:
    """What opportunistic batching did in one attempt (kept in ``CycleTrace.batch``)."""

    #: the pod's signature (canonical JSON), None when it cannot be signed
    signature: str | None = None
    #: the node the batch offered, None when it had none to offer
    hint: str | None = None
    #: ``no_hint``, ``hint_used`` or ``hint_not_used`` (set when the pod got a node)
    attempt: str = NO_HINT
    #: reasons the cached list was found unusable or dropped during this attempt
    flushed: list[str] = field(default_factory=list)
    #: nodes left in the batch after this attempt
    remaining: int = 0
    #: the hinted node's scores as cached by the cycle that built the list
    hint_scores: dict | None = None

    @property
    def served(self) -> bool:
        """The pod took the batch's hint: no Filter over all nodes, no Score."""
        return self.attempt == HINT_USED


class OpportunisticBatch:
    """One profile's batch cache (``runtime.OpportunisticBatch``)."""

    def __init__(self, framework: Any, max_age: float = MAX_BATCH_AGE):
        self.framework = framework
        self.max_age = max_age
        self.state: BatchState | None = None
        self.last = LastCycle()
        #: pods that took a hint (upstream ``batchedPods``)
        self.batched_pods = 0
        #: attempt results and flush reasons, as upstream's batch metrics count them
        self.attempts: Counter = Counter()
        self.flushes: Counter = Counter()

    # -- GetNodeHint -----------------------------------------------------------------
    def get_node_hint(self, pod_info, signature: str | None, state, snapshot, cycle: int, now: float,
                      record: BatchRecord | None = None) -> str | None:
        """The head of the cached list when it can be used for this pod (see the module
        docstring for the checks, run after PreFilter with its cycle state)."""
        record = record if record is not None else BatchRecord()
        if not self._compatible(pod_info, signature, state, snapshot, cycle, now, record):
            self.attempts[NO_HINT] += 1
            return None
        hint, col = self.state.nodes.pop()
        record.hint = hint
        record.hint_scores = self.state.nodes.cached_scores(col)
        return hint

    def _flush(self, reason: str, record: BatchRecord) -> None:
        self.flushes[reason] += 1
        record.flushed.append(reason)

    def _empty(self) -> bool:
        return self.state is None or len(self.state.nodes) == 0

    def _compatible(self, pod_info, signature, state, snapshot, cycle, now, record) -> bool:
        if self._empty():
            return False
        if cycle != self.last.cycle + 1:
            self._flush(FLUSH_POD_SKIPPED, record)
            return False
        if not self.last.succeeded:
            self._flush(FLUSH_POD_FAILED, record)
            return False
        pod = pod_info.pod
        if pod.status is not None and pod.status.nominated_node_name:
            self._flush(FLUSH_POD_NOMINATED, record)
            return False
        if signature is None or signature != self.state.signature:
            self._flush(FLUSH_POD_INCOMPATIBLE, record)
            return False
        if now > self.state.created + self.max_age:
            self._flush(FLUSH_EXPIRED, record)
            return False
        row = snapshot.index.get(self.last.chosen)
        if row is None:
            self._flush(FLUSH_NODE_MISSING, record)
            return False
        if not self._rejects(state, pod_info, snapshot, row):
            self._flush(FLUSH_NODE_NOT_FULL, record)
            return False
        return True

    def _rejects(self, state, pod_info, snapshot, row: int) -> bool:
        """``RunFilterPlugins`` on the previous pod's node (without nominated pods): does it
        reject this pod?  A filter error is not a rejection."""
        try:
            return self.framework.run_filter_node(state, pod_info, snapshot, row).is_rejected()
        except FrameworkError:
            return False

    # -- StoreScheduleResults ---------------------------------------------------------
    def store_schedule_results(self, signature: str | None, hinted: str | None, chosen: str,
                               others: SortedScoredNodes | None, cycle: int, now: float,
                               record: BatchRecord | None = None) -> None:
        """After a cycle found ``chosen``: remember the cycle, keep the list when the hint
        was taken, otherwise cache this cycle's other nodes (or drop the batch)."""
        record = record if record is not None else BatchRecord()
        self.last = LastCycle(cycle, chosen, True)
        if hinted is not None and hinted == chosen:
            self.attempts[HINT_USED] += 1
            self.batched_pods += 1
            record.attempt = HINT_USED
            record.remaining = len(self.state.nodes) if self.state is not None else 0
            return
        if hinted is not None:
            self.attempts[HINT_NOT_USED] += 1
            record.attempt = HINT_NOT_USED
        if signature is not None and others is not None and len(others) > 0:
            self.state = BatchState(signature, others, now)
            record.remaining = len(others)
            return
        self._flush(FLUSH_EMPTY_LIST if others is None or len(others) == 0 else FLUSH_POD_NOT_BATCHABLE, record)
        self.state = None
        record.remaining = 0
