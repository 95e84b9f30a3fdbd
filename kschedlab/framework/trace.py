"""What one scheduling attempt did, kept as arrays and turned into tables on demand.

A :class:`CycleTrace` holds the PreFilter log, the Filter outcome for every
visited node (first failing plugin, code, reasons), the score matrices (raw,
normalized, weighted per plugin) for the feasible nodes, and the choice.
``explain()`` builds the per-node pandas DataFrame.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kschedlab.framework.status import Status


@dataclass
class CycleTrace:
    pod: str
    profile: str
    node_names: tuple  # snapshot row -> node name (None for removed nodes), as of this cycle
    prefilter: list[tuple[str, Status]] = field(default_factory=list)
    prefilter_nodes: frozenset[str] | None = None
    absent_status: Status | None = None
    filter: Any = None  # FilterOutcome
    prescore: list[tuple[str, Status]] = field(default_factory=list)
    score: Any = None  # ScoreOutcome
    selected: str | None = None
    ties: int = 0
    steps: list[tuple[str, str, Status]] = field(default_factory=list)  # (point, plugin, status)
    start_index: int = 0
    num_to_find: int = 0
    #: what PostFilter preemption did (kschedlab.framework.preemption.PreemptionRecord), if it ran
    preemption: Any = None
    #: upstream ScheduleResult.EvaluatedNodes / FeasibleNodes of this attempt
    evaluated_nodes: int = 0
    feasible_nodes: int = 0
    #: what opportunistic batching did (kschedlab.framework.batch.BatchRecord); None when the gate is off
    #: (or when there were no nodes)
    batch: Any = None
    #: the node the binding cycle wrote to the pod's ``status.nominatedNodeName`` (gate
    #: NominatedNodeNameForExpectation: the pod waited at Permit or a PreBind plugin had work); None: no write
    nominated_node_name: str | None = None

    @property
    def batched(self) -> bool:
        """Served from the batch: the node is the previous cycle's next best, only it was
        filtered and nothing was scored (``batch.hint_scores`` has its cached scores)."""
        return self.batch is not None and self.batch.served

    # -- per-node views ---------------------------------------------------------
    def filter_statuses(self) -> dict[str, Status]:
        """Filter status of every evaluated node (Success for the ones that passed)."""
        out: dict[str, Status] = {}
        if self.filter is not None:
            for i, row in enumerate(self.filter.rows):
                out[self.node_names[row]] = self.filter.status(i)
        return out

    def scores(self) -> dict[str, dict[str, Any]]:
        """``{node: {plugin: {raw, normalized, weighted}, "total": int}}`` for scored nodes."""
        out: dict[str, dict[str, Any]] = {}
        sc = self.score
        if sc is None:
            return out
        weighted = sc.weighted
        total = sc.total
        for j, row in enumerate(sc.rows):
            entry: dict[str, Any] = {
                name: {"raw": int(sc.raw[i, j]), "normalized": int(sc.normalized[i, j]),
                       "weighted": int(weighted[i, j])}
                for i, name in enumerate(sc.plugins)}
            entry["total"] = int(total[j])
            out[self.node_names[row]] = entry
        return out

    def explain(self):
        """One row per evaluated node: filter verdict, scores, total, rank, chosen — an
        :class:`~kschedlab.framework.explanation.Explanation`, a DataFrame printed whole."""
        import pandas as pd

        from kschedlab.framework.explanation import Explanation

        records: dict[str, dict[str, Any]] = {}
        for node, status in self.filter_statuses().items():
            records[node] = {"filter": "passed" if status.is_success() else status.plugin,
                             "code": status.code.name, "reasons": "; ".join(status.reasons)}
        if self.absent_status is not None:
            for node in self.node_names:
                if node not in records and node is not None:
                    records[node] = {"filter": "PreFilter", "code": self.absent_status.code.name,
                                     "reasons": "; ".join(self.absent_status.reasons)}
        scores = self.scores()
        plugins = list(self.score.plugins) if self.score is not None else []
        for node, entry in scores.items():
            rec = records.setdefault(node, {"filter": "passed", "code": "Success", "reasons": ""})
            for p in plugins:
                rec[f"{p} raw"] = entry[p]["raw"]
                rec[f"{p} normalized"] = entry[p]["normalized"]
                rec[f"{p} weighted"] = entry[p]["weighted"]
            rec["total"] = entry["total"]
        df = pd.DataFrame.from_dict(records, orient="index")
        df.index.name = "node"
        for col in df.columns:
            if col.endswith((" raw", " normalized", " weighted")) or col == "total":
                df[col] = df[col].astype("Int64")
        if "total" in df:
            df["rank"] = df["total"].rank(ascending=False, method="min").astype("Int64")
        df["chosen"] = df.index == self.selected
        return Explanation(df)
