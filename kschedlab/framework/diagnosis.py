"""Why a pod fits nowhere: the per-node statuses of a failed cycle and the
aggregated message kube-scheduler prints (``FitError.Error()``).

>>> d = Diagnosis(num_all_nodes=5)
>>> d.add_counts({"Insufficient cpu": 2, "node(s) didn't match Pod's node affinity/selector": 3}, explicit=5)
>>> d.message()
"0/5 nodes are available: 2 Insufficient cpu, 3 node(s) didn't match Pod's node affinity/selector."

A Filter pass's failures are handed over as its outcome (:meth:`Diagnosis.add_outcome`) and
counted when first read: a cycle that finds a node does not read them on the scheduler's path.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kschedlab.framework.status import Status

NO_NODE_AVAILABLE = "0/{} nodes are available"


@dataclass
class Diagnosis:
    num_all_nodes: int
    #: status of the nodes that were not evaluated (PreFilter rejection or PreFilterResult)
    absent_status: Status | None = None
    prefilter_msg: str = ""
    postfilter_msg: str = ""
    pending_plugins: set[str] = field(default_factory=set)
    _reason_counts: Counter[str] = field(default_factory=Counter, repr=False)
    _explicit: int = field(default=0, repr=False)
    _unschedulable_plugins: set[str] = field(default_factory=set, repr=False)
    #: Filter outcomes handed over and not counted yet: (outcome, number of failed nodes)
    _outcomes: list[tuple[Any, int]] = field(default_factory=list, repr=False, compare=False)

    @property
    def reason_counts(self) -> Counter[str]:
        """reason -> number of explicitly evaluated nodes that failed with it."""
        self._settle()
        return self._reason_counts

    @property
    def explicit(self) -> int:
        """How many nodes carry an explicit status."""
        self._settle()
        return self._explicit

    @property
    def unschedulable_plugins(self) -> set[str]:
        """The plugins that rejected a node (or restricted the nodes at PreFilter)."""
        self._settle()
        return self._unschedulable_plugins

    @unschedulable_plugins.setter
    def unschedulable_plugins(self, plugins: set[str]) -> None:
        self._settle()
        self._unschedulable_plugins = plugins

    def add_counts(self, counts: dict[str, int], explicit: int) -> None:
        self._reason_counts.update(counts)
        self._explicit += explicit

    def add_outcome(self, outcome: Any, failed: int) -> None:
        """Count the ``failed`` nodes of a Filter ``outcome`` (a
        :class:`~kschedlab.framework.runtime.FilterOutcome`, not written afterwards): per reason,
        and the plugins that rejected them, when first read.

        >>> from kschedlab.framework.runtime import FilterOutcome
        >>> outcome = FilterOutcome(np.array([5, 6, 7]), np.array([-1, 0, 1], np.int16), np.array([0, 2, 3], np.int8),
        ...                         np.array([-1, 0, 1], np.int32), [("Too many pods",), ("taint",)], ["A", "B"])
        >>> diagnosis = Diagnosis(3)
        >>> diagnosis.add_outcome(outcome, 2)
        >>> sorted(diagnosis.unschedulable_plugins), diagnosis.explicit, diagnosis.message()
        (['A', 'B'], 2, '0/3 nodes are available: 1 Too many pods, 1 taint.')
        """
        self._outcomes.append((outcome, failed))

    def _settle(self) -> None:
        """Count the outcomes handed over (a node that passed has no reason and plugin -1: both
        fall in slot 0 of the counts, which is left out, so no mask of the failed nodes is needed)."""
        if not self._outcomes:
            return
        outcomes, self._outcomes = self._outcomes, []
        for outcome, failed in outcomes:
            per_reason = np.bincount(outcome.fail_reason + 1)  # (slot 0: no reason)
            idx = per_reason[1:].nonzero()[0]
            counts: dict[str, int] = {}
            for r, c in zip(idx.tolist(), per_reason[idx + 1].tolist()):
                for reason in outcome.reasons[r]:
                    counts[reason] = counts.get(reason, 0) + c
            self.add_counts(counts, failed)
            plugins = np.bincount(outcome.fail_plugin + 1)[1:].nonzero()[0]
            self._unschedulable_plugins.update(outcome.plugins[p] for p in plugins.tolist())

    def message(self) -> str:
        msg = NO_NODE_AVAILABLE.format(self.num_all_nodes) + ":"
        if self.prefilter_msg:
            msg += f" {self.prefilter_msg}."
        else:
            counts = Counter(self.reason_counts)
            if self.explicit < self.num_all_nodes and self.absent_status is not None:
                for reason in self.absent_status.reasons:
                    counts[reason] += self.num_all_nodes - self.explicit
            parts = sorted(f"{n} {reason}" for reason, n in counts.items())
            if parts:
                msg += f" {', '.join(parts)}."
        if self.postfilter_msg:
            # Upstream appends the PostFilter message as is (no separator period):
            # "0/3 nodes are available: 3 Insufficient cpu. preemption: ..."
            msg += f" {self.postfilter_msg}"
        return msg
