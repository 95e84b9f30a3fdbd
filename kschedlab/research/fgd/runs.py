"""The FGD experiment as runs of a kschedlab sweep: policies × trace files × seeds, one run per
cell, one parquet row per run (``kschedlab sweep`` with a ``spec.packing`` section, see
:mod:`kschedlab.research.sweep`).

A run's row holds the sweep's key columns (``config`` is ``packing``, ``variant`` the policy,
``workload`` the trace's name), ``policy``, ``trace``, ``family``, ``tie_break``, ``inflate``, ``pods``,
``gpus``, ``failed``, ``wall_seconds``, ``unallocated_100`` (the paper's number) and, as list columns,
``arrived_pct`` / ``unallocated`` (the bucketed curve) and ``frag_pct`` / ``fragmentation``.

>>> import pathlib
>>> sample = pathlib.Path(__file__).parents[3] / "datasets" / "openb-sample"
>>> trace = PackingTrace("sample", str(sample / "openb_node_list_gpu_node.csv"),
...                      str(sample / "openb_pod_list_default.csv"))
>>> row = PackingRun("BestFit", trace, seed=42).execute()
>>> row["config"], row["variant"], row["workload"], row["family"], 0 <= row["unallocated_100"] <= 100
('packing', 'BestFit', 'sample', 'default', True)
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from kschedlab.research.fgd.experiment import DEFAULT_INFLATE, PAPER_TABLE, run
from kschedlab.research.fgd.openb import OPENB_GPUS, family, read_nodes, read_pods
from kschedlab.research.fgd.policies import POLICIES

__all__ = ["PackingTrace", "PackingRun", "packing_runs", "summary", "CONFIG"]

#: the ``config`` column of every packing run
CONFIG = "packing"


def _digest(path: str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


@dataclass(frozen=True)
class PackingTrace:
    """A trace: a node list and a pod list (paths)."""

    name: str
    nodes: str
    pods: str


@dataclass(frozen=True)
class _Named:
    name: str


@dataclass(frozen=True)
class PackingRun:
    """One cell: a policy on a trace with a seed (``tie_break``, ``inflate`` as the experiment's)."""

    policy: str
    trace: PackingTrace
    seed: int
    tie_break: str = "name"
    inflate: float = DEFAULT_INFLATE
    #: the sweep's names for this cell
    config_name: str = field(default=CONFIG, init=False)

    @property
    def variant(self) -> _Named:
        return _Named(self.policy)

    @property
    def workload(self) -> _Named:
        return _Named(self.trace.name)

    @property
    def run_id(self) -> str:
        """A digest of everything that decides the outcome (the trace files by content)."""
        ident = {"kind": CONFIG, "policy": self.policy, "nodes": _digest(self.trace.nodes),
                 "pods": _digest(self.trace.pods), "seed": self.seed, "tie_break": self.tie_break,
                 "inflate": self.inflate}
        return hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:16]

    def execute(self) -> dict:
        """Run the cell and return its row."""
        result = run(read_nodes(self.trace.nodes), read_pods(self.trace.pods), self.policy, self.seed,
                     tie_break=self.tie_break, ratio=self.inflate)
        unallocated = result.unallocated()
        return {"run_id": self.run_id, "config": CONFIG, "variant": self.policy, "workload": self.trace.name,
                "seed": self.seed, "policy": self.policy, "trace": self.trace.name, "family": family(self.trace.pods),
                "tie_break": self.tie_break, "inflate": self.inflate, "pods": result.pods, "gpus": result.gpus,
                "failed": result.failed, "wall_seconds": result.seconds,
                "unallocated_100": unallocated.get(100, float("nan")),
                "arrived_pct": list(unallocated), "unallocated": list(unallocated.values()),
                "frag_pct": list(result.fragmentation), "fragmentation": list(result.fragmentation.values())}


def packing_runs(policies, traces: list[PackingTrace], seeds, *, tie_break: str = "name",
                 inflate: float = DEFAULT_INFLATE) -> list[PackingRun]:
    """The grid: every policy × trace × seed.

    >>> t = PackingTrace("t", "n.csv", "p.csv")
    >>> [(r.policy, r.seed) for r in packing_runs(["FGD", "Random"], [t], [1, 2])]
    [('FGD', 1), ('FGD', 2), ('Random', 1), ('Random', 2)]
    """
    for p in policies:
        if p not in POLICIES:
            raise ValueError(f"unknown policy {p!r}; one of {', '.join(POLICIES)}")
    return [PackingRun(p, t, s, tie_break, inflate) for p in policies for t in traces for s in seeds]


def summary(results: pd.DataFrame) -> pd.DataFrame:
    """Per trace and policy (paper's order): seeds, median / min / max unallocated GPU % at 100 %
    arrived, the paper's number (default trace on the openb cluster), mean wall seconds."""
    rows = []
    for (trace, policy), g in results.groupby(["trace", "policy"], sort=False):
        values = g["unallocated_100"]
        rows.append({"trace": trace, "policy": policy, "seeds": len(g), "median": round(float(values.median()), 2),
                     "min": float(values.min()), "max": float(values.max()),
                     "paper": PAPER_TABLE.get(str(policy)) if (g["family"].iloc[0] == "default"
                                                           and g["gpus"].iloc[0] == OPENB_GPUS) else None,
                     "seconds": round(float(g["wall_seconds"].mean()), 2)})
    out = pd.DataFrame(rows)
    if out.empty:
        return out
    out["order"] = out["policy"].map({p: i for i, p in enumerate(POLICIES)})
    return out.sort_values(["trace", "order"]).drop(columns="order").reset_index(drop=True)
