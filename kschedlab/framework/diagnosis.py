"""Why a pod fits nowhere: the per-node statuses of a failed cycle and the
aggregated message kube-scheduler prints (``FitError.Error()``).

>>> d = Diagnosis(num_all_nodes=5)
>>> d.add_counts({"Insufficient cpu": 2, "node(s) didn't match Pod's node affinity/selector": 3}, explicit=5)
>>> d.message()
"0/5 nodes are available: 2 Insufficient cpu, 3 node(s) didn't match Pod's node affinity/selector."
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from kschedlab.framework.status import Status

NO_NODE_AVAILABLE = "0/{} nodes are available"


@dataclass
class Diagnosis:
    num_all_nodes: int
    #: reason -> number of explicitly evaluated nodes that failed with it
    reason_counts: Counter[str] = field(default_factory=Counter)
    #: how many nodes carry an explicit status
    explicit: int = 0
    #: status of the nodes that were not evaluated (PreFilter rejection or PreFilterResult)
    absent_status: Status | None = None
    prefilter_msg: str = ""
    postfilter_msg: str = ""
    unschedulable_plugins: set[str] = field(default_factory=set)
    pending_plugins: set[str] = field(default_factory=set)

    def add_counts(self, counts: dict[str, int], explicit: int) -> None:
        self.reason_counts.update(counts)
        self.explicit += explicit

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
