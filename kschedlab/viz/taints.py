"""What taints and tolerations do to one pod, node by node: the TaintToleration Filter verdict,
its PreferNoSchedule Score before and after NormalizeScore, and what the NoExecute taint
manager would do to the pod if it ran there.

>>> from kschedlab.api import load_manifests
>>> objects = load_manifests(text='''
... apiVersion: v1
... kind: Node
... metadata: {name: clean}
... status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
... ---
... apiVersion: v1
... kind: Node
... metadata: {name: spot}
... spec: {taints: [{key: spot, value: "true", effect: PreferNoSchedule}]}
... status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
... ---
... apiVersion: v1
... kind: Pod
... metadata: {name: web}
... spec: {containers: [{name: c}]}
... ''')
>>> out = toleration_outcome(objects, "default/web")
>>> out.node, out.table["normalized"].to_dict()
('clean', {'clean': 100, 'spot': 0})
>>> toleration_outcome(objects, "default/web", extra=[{"key": "spot", "operator": "Exists"}]).table["raw"].tolist()
[0, 0]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from kschedlab.api.core import Pod, Toleration
from kschedlab.cluster import Cluster
from kschedlab.eviction.taint_manager import get_matching_tolerations, min_toleration_seconds, no_execute_taints
from kschedlab.framework.interface import MAX_NODE_SCORE
from kschedlab.plugins.helper import default_normalize_score
from kschedlab.scheduler import Scheduler
from kschedlab.viz.common import TEMPLATE
from kschedlab.viz.palette import BLUE, ORANGE

__all__ = ["TolerationOutcome", "no_execute_verdict", "normalize_prefer_no_schedule",
           "taint_label", "toleration_outcome", "taint_score_bars"]

#: Okabe-Ito: a palette that colour-blind readers can tell apart

TAINT_TOLERATION = "TaintToleration"


def taint_label(taint) -> str:
    """``key=value:Effect`` as ``kubectl taint`` writes it (``key:Effect`` without a value).

    >>> from kschedlab.api.core import Taint
    >>> taint_label(Taint(key="spot", value="true", effect="PreferNoSchedule")), taint_label(Taint(key="k", effect="NoExecute"))
    ('spot=true:PreferNoSchedule', 'k:NoExecute')
    """
    return f"{taint.key}{'=' + taint.value if taint.value else ''}:{taint.effect}"


def normalize_prefer_no_schedule(counts: Sequence[int]) -> list[int]:
    """TaintToleration's NormalizeScore: ``100 - 100 * count // max(count)`` (integer division),
    all 100 when no node has an untolerated PreferNoSchedule taint.

    >>> normalize_prefer_no_schedule([0, 1, 2, 3])
    [100, 67, 34, 0]
    >>> normalize_prefer_no_schedule([0, 0])
    [100, 100]
    """
    scores = np.asarray(list(counts), np.int64)
    default_normalize_score(MAX_NODE_SCORE, True, scores)
    return scores.tolist()


def no_execute_verdict(tolerations: Iterable, taints: Iterable, *, comparison_operators: bool = False) -> str:
    """What the NoExecute taint manager does to a pod with ``tolerations`` running on a node
    that gets ``taints``: "not affected", "evicted at once", "stays for good" or
    "evicted after N s".

    >>> from kschedlab.api.core import Taint
    >>> t = [Taint(key="k", effect="NoExecute")]
    >>> no_execute_verdict([], t), no_execute_verdict([Toleration(key="k", operator="Exists")], t)
    ('evicted at once', 'stays for good')
    >>> no_execute_verdict([Toleration(key="k", operator="Exists", effect="NoExecute", toleration_seconds=60)], t)
    'evicted after 60 s'
    """
    taints = no_execute_taints(taints)
    if not taints:
        return "not affected"
    ok, used = get_matching_tolerations(taints, list(tolerations), comparison_operators=comparison_operators)
    if not ok:
        return "evicted at once"
    seconds = min_toleration_seconds(used)
    if seconds < 0:
        return "stays for good"
    return "evicted at once" if seconds == 0 else f"evicted after {int(seconds)} s"


@dataclass
class TolerationOutcome:
    """One scheduling attempt of the pod with the given tolerations: ``table`` has a row per
    node (its taints, the Filter verdict, TaintToleration's raw count of untolerated
    PreferNoSchedule taints, the normalized and weighted score, the total, the chosen node,
    and the NoExecute verdict)."""

    pod: Pod
    node: str | None
    message: str
    table: pd.DataFrame
    result: Any = field(repr=False, default=None)

    def text(self) -> str:
        """The table and the verdict as plain text (what a headless run prints)."""
        verdict = f"scheduled on {self.node}" if self.node else f"unschedulable: {self.message}"
        return self.table.to_string() + "\n" + verdict


def _with_tolerations(pod: Pod, extra: Iterable) -> Pod:
    out = pod.clone()
    added = [t if isinstance(t, Toleration) else Toleration.model_validate(t) for t in extra]
    out.spec.tolerations = [*out.spec.tolerations, *added]
    return out


def _filter_text(row) -> str:
    if row is None:
        return "not run"
    if row["filter"] == "passed":
        return "passed"
    reasons = row["reasons"]
    reasons = "; ".join(reasons) if isinstance(reasons, (list, tuple)) else str(reasons or "")
    return f"{row['filter']}: {reasons}" if reasons else str(row["filter"])


def toleration_outcome(objects: Iterable, pod_key: str, *, extra: Iterable = (), gates: Mapping[str, bool] | None = None,
                       seed: int = 0) -> TolerationOutcome:
    """Schedule ``pod_key`` of ``objects`` (admitted API objects, not changed) once, with the
    tolerations in ``extra`` (Toleration objects or dicts) added to its own."""
    objects = list(objects)
    pods = [o for o in objects if isinstance(o, Pod) and o.key == pod_key]
    if not pods:
        raise KeyError(f"no pod {pod_key} among the objects")
    pod = _with_tolerations(pods[0], extra)
    cluster = Cluster([pod if o is pods[0] else o.clone() for o in objects])
    scheduler = Scheduler(cluster, gates=gates, seed=seed)
    comparison = bool(scheduler.gates.enabled("TaintTolerationComparisonOperators"))
    result = scheduler.schedule_one(pod_key)
    explained = result.explain() if result.trace is not None else pd.DataFrame()
    rows = []
    for node in cluster.nodes.values():
        name = node.metadata.name
        row = explained.loc[name] if name in explained.index else None
        scored = row is not None and f"{TAINT_TOLERATION} raw" in explained.columns and not pd.isna(
            row[f"{TAINT_TOLERATION} raw"])
        rows.append({
            "node": name,
            "taints": ", ".join(taint_label(t) for t in node.spec.taints) or "—",
            "filter": _filter_text(row),
            "raw": int(row[f"{TAINT_TOLERATION} raw"]) if scored else None,
            "normalized": int(row[f"{TAINT_TOLERATION} normalized"]) if scored else None,
            "weighted": int(row[f"{TAINT_TOLERATION} weighted"]) if scored else None,
            "total": int(row["total"]) if scored else None,
            "chosen": name == result.node,
            "NoExecute": no_execute_verdict(pod.spec.tolerations, node.spec.taints, comparison_operators=comparison),
        })
    table = pd.DataFrame(rows).set_index("node")
    for col in ("raw", "normalized", "weighted", "total"):
        table[col] = table[col].astype("Int64")
    return TolerationOutcome(pod=pod, node=result.node, message=result.message or "", table=table, result=result)


def taint_score_bars(outcome: TolerationOutcome, *, title: str | None = None) -> go.Figure:
    """TaintToleration's normalized score per feasible node (bars, 0-100), the raw count of
    untolerated PreferNoSchedule taints written beside each bar, the chosen node outlined."""
    table = outcome.table.dropna(subset=["normalized"])
    names = list(table.index)
    colors = [ORANGE if chosen else BLUE for chosen in table["chosen"]]
    fig = go.Figure(go.Bar(
        y=names, x=[int(v) for v in table["normalized"]], orientation="h", marker_color=colors,
        text=[f"{int(n)} (raw {int(r)})" for n, r in zip(table["normalized"], table["raw"])],
        textposition="outside", cliponaxis=False,
        hovertemplate="%{y}: normalized %{x}<extra></extra>"))
    fig.update_layout(
        template=TEMPLATE, height=120 + 40 * max(len(names), 1), margin=dict(l=10, r=90, t=60, b=50),
        title=title or f"TaintToleration score of {outcome.pod.key} (orange: chosen node)",
        xaxis=dict(title="normalized score (0-100, higher is better)", range=[0, 100], dtick=25),
        yaxis=dict(title="node", autorange="reversed"), showlegend=False)
    return fig
