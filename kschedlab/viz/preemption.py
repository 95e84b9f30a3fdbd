"""Preemption, looked at: candidate nodes and their victims, how one node wins, and how
pods move through pending / nominated / running / terminating over time.

Everything here reads a :class:`~kschedlab.framework.preemption.PreemptionRecord` (what one
DefaultPreemption attempt did; ``ScheduleResult.trace.preemption``) or the pod
states recorded by :func:`kschedlab.sim.observe.watch`.  The candidate ranking is
recomputed with the library's own criteria
(:func:`kschedlab.framework.preemption.default_score_funcs`) and the clock of the dry run, so
the table's winner is the node the scheduler chose.

The criteria, in order (``pickOneNodeForPreemption``); each keeps only the nodes
with the best value and the next one breaks the remaining tie:

1. fewest PodDisruptionBudget violations;
2. lowest priority of the most important victim;
3. smallest sum of victim priorities (upstream adds 2^31 to each priority first, so
   a candidate with more victims never looks cheaper);
4. fewest victims (it decides only when criterion 3 ties between different numbers of
   victims, which needs victims of priority -2147483648: they count 0 there);
5. latest start time of the highest-priority victims (the earliest start among them);

and if nodes are still tied, the first candidate found.

>>> from kschedlab import Cluster, Scheduler
>>> from kschedlab.apiserver.admission import admit
>>> from kschedlab.api.loader import load
>>> from pathlib import Path
>>> data = Path(__file__).resolve().parents[2] / "datasets" / "preemption" / "12-preemption-basic.yaml"
>>> cluster = Cluster(admit(load(data)))
>>> result = Scheduler(cluster).schedule_one("default/nginx")
>>> table = preemption_candidates(result.trace.preemption)
>>> for node, row in table.iterrows():
...     print(node, row["victims"], row["highest priority"], row["rank"], row["chosen"], row["decided by"])
kube-01 low-2 (1000) 1000 1 True 2. lowest highest-victim priority
kube-02 medium-1 (5000) 5000 2 False 2. lowest highest-victim priority
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Callable, Iterable, Mapping

import pandas as pd
import plotly.graph_objects as go

from kschedlab.framework.preemption import (
    PreemptionRecord,
    Victims,
    default_score_funcs,
    earliest_start_of_highest_priority,
)
from kschedlab.viz.common import CHOSEN_COLOR, TEMPLATE, esc

__all__ = ["RULES", "preemption_candidates", "preemption_figure", "preemption_timeline", "PreemptionWhatIf",
           "preemption_what_if"]

#: the criteria of pickOneNodeForPreemption, in order
RULES = (
    "1. fewest PDB violations",
    "2. lowest highest-victim priority",
    "3. smallest priority sum",
    "4. fewest victims",
    "5. latest start time",
)
TIE = "tie: first candidate"
ONLY = "only candidate"

#: the colour of each pod state in :func:`preemption_timeline` (Okabe-Ito: told apart with any
#: colour-vision deficiency)
STATE_COLORS = {
    "pending": "#bdbdbd",
    "nominated": "#E69F00",
    "running": "#0072B2",
    "terminating": "#CC79A7",
}

# a sequential palette for victim priorities (low = light)
_PRIORITY_PALETTE = ("#c6dbef", "#9ecae1", "#6baed6", "#4292c6", "#2171b5", "#08519c", "#08306b")


def _short(key: str, namespace: str) -> str:
    ns, _, name = key.partition("/")
    return name if name and ns == namespace else key


def _start_text(ns: int | None, now_ns: int | None) -> str:
    if ns is None:
        return ""
    if now_ns is not None and ns == now_ns:
        return "not started (now)"
    return datetime.fromtimestamp(ns / 1e9, timezone.utc).strftime("%Y-%m-%d %H:%M:%S")


def _ranking(victims_map: Mapping[str, Victims], now_ns: int) -> tuple[list[str], dict[str, str]]:
    """(nodes best first, node -> deciding rule) with the library's criteria."""
    nodes = list(victims_map)
    funcs = default_score_funcs(dict(victims_map), now_ns)
    keys = {n: tuple(f(n) for f in funcs) for n in nodes}
    order = sorted(nodes, key=lambda n: tuple(-k for k in keys[n]))  # stable: ties keep candidate order
    decided: dict[str, str] = {}
    if len(nodes) == 1:
        return order, {nodes[0]: ONLY}
    alive = list(nodes)
    for rule, f_index in zip(RULES, range(len(funcs))):
        best = max(keys[n][f_index] for n in alive)
        for n in alive:
            if keys[n][f_index] < best:
                decided[n] = rule
        alive = [n for n in alive if keys[n][f_index] == best]
        if len(alive) == 1:
            decided[alive[0]] = rule
            break
    else:
        decided[alive[0]] = TIE
        for n in alive[1:]:
            decided[n] = TIE
    # the winner is the first of the lexicographic order (same as the elimination)
    return order, decided


def preemption_candidates(record: PreemptionRecord, *, include_rejected: bool = False) -> pd.DataFrame:
    """One row per candidate node of ``record``, best first, with the five criteria.

    Columns: ``victims`` (name (priority), most important first), ``PDB violations``,
    ``highest priority``, ``priority sum`` (plain sum; see the module docstring),
    ``victims count``, ``start of highest-priority victims`` (the earliest start among the
    victims of the highest priority: the 5th criterion prefers the latest), ``rank``
    (1 = best), ``chosen`` (the node the scheduler picked) and ``decided by`` (for the best
    node the criterion that left it alone; for the others the criterion that ruled them out).

    With ``include_rejected`` the nodes the dry run tried but could not use follow, with their
    status in ``not a candidate`` (e.g. "No preemption victims found for incoming pod").
    """
    columns = ["node", "victims", "PDB violations", "highest priority", "priority sum", "victims count",
               "start of highest-priority victims", "rank", "chosen", "decided by", "not a candidate"]
    ns = record.pod.partition("/")[0]
    now_ns = record.now_ns if record.now_ns is not None else 0
    victims_map = {c.name: c.victims for c in record.candidates}
    order, decided = _ranking(victims_map, now_ns) if victims_map else ([], {})
    chosen = record.selected.name if record.selected is not None else None
    rows: list[dict[str, Any]] = []
    for rank, node in enumerate(order, start=1):
        v = victims_map[node]
        earliest = earliest_start_of_highest_priority(v, now_ns)
        rows.append({
            "node": node,
            "victims": ", ".join(f"{_short(p.key, ns)} ({p.priority})" for p in v.pods),
            "PDB violations": v.num_pdb_violations,
            "highest priority": v.pods[0].priority if v.pods else None,
            "priority sum": sum(p.priority for p in v.pods),
            "victims count": len(v.pods),
            "start of highest-priority victims": _start_text(earliest, record.now_ns),
            "rank": rank,
            "chosen": node == chosen,
            "decided by": decided.get(node, ""),
            "not a candidate": "",
        })
    if include_rejected and record.node_statuses is not None:
        for node, status in record.node_statuses.items():
            rows.append({"node": node, "victims": "", "PDB violations": None, "highest priority": None,
                         "priority sum": None, "victims count": 0, "start of highest-priority victims": "",
                         "rank": None, "chosen": False, "decided by": "",
                         "not a candidate": "; ".join(status.reasons) or status.code.name})
    table = pd.DataFrame.from_records(rows, columns=columns).set_index("node")
    if not include_rejected:
        table = table.drop(columns=["not a candidate"])
    for col in ("PDB violations", "highest priority", "priority sum", "rank"):
        if col in table:  # integers; the rows of nodes that could not be helped have none (<NA>)
            table[col] = table[col].astype("int64" if not table[col].isna().any() else "Int64")
    return table


def _priority_colors(priorities: Iterable[int]) -> dict[int, str]:
    values = sorted(set(priorities))
    if len(values) <= 1:
        return {v: _PRIORITY_PALETTE[3] for v in values}
    step = (len(_PRIORITY_PALETTE) - 1) / (len(values) - 1)
    return {v: _PRIORITY_PALETTE[round(i * step)] for i, v in enumerate(values)}


def preemption_figure(record: PreemptionRecord, *, title: str | None = None) -> go.Figure:
    """The candidate nodes (best first) as stacks of their victims, one block per victim,
    coloured by the victim's priority; the chosen node is marked, with the criterion that
    decided.  Hovering a block shows the victim and its node's five criteria.

    Each victim block is a bar trace whose ``meta`` is the (escaped) victim name.
    """
    pod = esc(_short(record.pod, ""))
    title = esc(title) if title is not None else f"Preemption for {esc(record.pod)}: candidate nodes and victims"
    table = preemption_candidates(record)
    fig = go.Figure()
    if table.empty:
        msg = record.status.message() if record.status is not None else "no candidate"
        fig.add_annotation(text=esc(msg) or "no candidate", x=0.5, y=0.5, xref="paper", yref="paper",
                           showarrow=False)
        fig.update_layout(template=TEMPLATE, title=title, height=260, xaxis={"visible": False},
                          yaxis={"visible": False})
        return fig
    ns = record.pod.partition("/")[0]
    victims_map = {c.name: c.victims for c in record.candidates}
    colors = _priority_colors(p.priority for v in victims_map.values() for p in v.pods)
    labels = {}
    for node, row in table.iterrows():
        labels[node] = f"{esc(node)}<br>PDB viol. {row['PDB violations']}"
    shown: set[int] = set()
    for node, row in table.iterrows():
        hover = (f"<b>{esc(node)}</b> (rank {row['rank']})<br>PDB violations: {row['PDB violations']}"
                 f"<br>highest priority: {row['highest priority']}<br>priority sum: {row['priority sum']}"
                 f"<br>victims: {row['victims count']}<br>start of highest-priority victims: "
                 f"{esc(row['start of highest-priority victims'])}<br>{esc(row['decided by'])}")
        for p in victims_map[node].pods:
            name = esc(_short(p.key, ns))
            fig.add_trace(go.Bar(
                x=[labels[node]], y=[1], name=f"priority {p.priority}", legendgroup=str(p.priority),
                showlegend=p.priority not in shown, marker={"color": colors[p.priority], "line": {"color": "white",
                                                                                                   "width": 2}},
                text=[f"{name} ({p.priority})"], textposition="inside", insidetextanchor="middle",
                hovertemplate=f"victim {name}, priority {p.priority}<br>{hover}<extra></extra>", meta=name))
            shown.add(p.priority)
    best = table.index[0]
    chosen = table.index[table["chosen"]].tolist()
    mark = chosen[0] if chosen else best
    height = int(table["victims count"].max())
    fig.add_trace(go.Scatter(
        x=[labels[mark]], y=[height + 0.35], mode="markers+text", name="chosen",
        marker={"symbol": "star", "size": 18, "color": CHOSEN_COLOR, "line": {"color": "black", "width": 1}},
        text=[f"chosen: {esc(table.loc[mark, 'decided by'])}"], textposition="top center",
        hovertemplate=f"{esc(mark)} is chosen<extra></extra>", meta="chosen"))
    fig.update_layout(
        template=TEMPLATE, barmode="stack", title=title, height=360 + 20 * height,
        xaxis={"title": "candidate nodes, best first", "categoryorder": "array",
               "categoryarray": [labels[n] for n in table.index]},
        yaxis={"title": f"victims evicted for {pod}", "dtick": 1, "range": [0, height + 1.2]},
        legend={"title": {"text": "victim priority"}, "traceorder": "normal"})
    return fig


def preemption_timeline(states: pd.DataFrame, *, title: str = "Pods over time",
                        pods: Iterable[str] | None = None) -> go.Figure:
    """A Gantt chart of the states recorded by :func:`kschedlab.sim.observe.watch`: one row per
    pod, a segment per (state, node) run, labelled with the node (bound or nominated).

    ``pods`` picks and orders the rows (default: the order pods first appear).
    One bar trace per state; its ``meta`` is the state.
    """
    from kschedlab.sim.observe import transitions

    fig = go.Figure()
    if states.empty:
        fig.update_layout(template=TEMPLATE, title=esc(title))
        return fig
    end = float(states["time"].max())
    steps = sorted(set(states["time"].tolist()))
    step = (steps[1] - steps[0]) if len(steps) > 1 else 1.0
    order = list(pods) if pods is not None else list(dict.fromkeys(states["pod"]))
    changes = transitions(states[states["pod"].isin(order)])
    segments: dict[str, list[tuple[str, float, float, str]]] = {s: [] for s in STATE_COLORS}
    for pod, rows in changes.groupby("pod", sort=False):
        recs = rows.to_dict("records")
        for i, r in enumerate(recs):
            stop = recs[i + 1]["time"] if i + 1 < len(recs) else end + step
            if r["state"] in segments:
                segments[r["state"]].append((pod, float(r["time"]), float(stop), r["node"]))
    for state, segs in segments.items():
        if not segs:
            continue
        fig.add_trace(go.Bar(
            y=[esc(s[0]) for s in segs], x=[s[2] - s[1] for s in segs], base=[s[1] for s in segs],
            orientation="h", name=state, meta=state, marker={"color": STATE_COLORS[state]},
            text=[esc(s[3]) for s in segs], textposition="inside", insidetextanchor="middle",
            customdata=[[s[1], s[2], esc(s[3])] for s in segs],
            hovertemplate="%{y}: " + state + " %{customdata[2]} from %{customdata[0]} s to %{customdata[1]} s"
                          "<extra></extra>"))
    fig.update_layout(
        template=TEMPLATE, barmode="overlay", title=esc(title), height=140 + 40 * len(order),
        xaxis={"title": "virtual time (s)", "range": [float(states["time"].min()), end + step]},
        yaxis={"title": "pod", "categoryorder": "array", "categoryarray": [esc(p) for p in reversed(order)]},
        legend={"title": {"text": "state"}})
    return fig


# -- what if: change priorities and budgets, re-run one attempt -------------------------------------
@dataclass
class PreemptionWhatIf:
    """One attempt of ``pod`` on a fresh copy of the cluster, with the overrides applied."""

    pod: str
    result: Any
    record: PreemptionRecord | None
    table: pd.DataFrame
    priorities: dict[str, int]
    min_available: dict[str, int]

    @property
    def chosen(self) -> str | None:
        """The node preemption nominated (None when it found none)."""
        return self.record.selected.name if self.record is not None and self.record.selected else None

    @property
    def victims(self) -> list[str]:
        return list(self.record.victims) if self.record is not None else []

    @property
    def summary(self) -> str:
        if self.result.node:
            return f"{self.pod} fits on {self.result.node} without preemption"
        if self.chosen:
            names = ", ".join(_short(v, self.pod.partition("/")[0]) for v in self.victims)
            return f"{self.pod} preempts {names} on {self.chosen}"
        return f"{self.pod}: {self.result.message}"


def preemption_what_if(objects: Callable[[], Iterable] | Iterable, pod: str, *,
                       priorities: Mapping[str, int] | None = None,
                       min_available: Mapping[str, int] | None = None, seed: int = 0) -> PreemptionWhatIf:
    """Schedule ``pod`` (a "namespace/name" key) once on a fresh cluster built from ``objects``
    (admitted API objects, or a zero-argument function returning them; never changed) after
    setting ``spec.priority`` of the pods in ``priorities`` (key -> value; the preemptor too)
    and ``spec.minAvailable`` of the PodDisruptionBudgets in ``min_available``
    ("namespace/name" -> int).  Budgets' status is then computed as the disruption controller
    would (:func:`kschedlab.eviction.disruption.refresh`).

    Priorities are written straight into the pods, as if their classes had those values.
    """
    import copy

    from kschedlab.cluster import Cluster
    from kschedlab.eviction.disruption import refresh
    from kschedlab.scheduler import Scheduler

    source = objects() if callable(objects) else objects
    fresh = [copy.deepcopy(o) for o in source]
    priorities = dict(priorities or {})
    min_available = dict(min_available or {})
    for obj in fresh:
        kind = type(obj).__name__
        if kind == "Pod" and obj.key in priorities:
            obj.spec.priority = int(priorities[obj.key])
        elif kind == "PodDisruptionBudget" and obj.key in min_available:
            obj.spec.min_available = int(min_available[obj.key])
    cluster = Cluster(fresh)
    if cluster.of_kind("PodDisruptionBudget"):
        refresh(cluster)
    if pod not in cluster.pods:
        raise KeyError(f"no pod {pod}")
    if cluster.pods[pod].spec.node_name:
        raise ValueError(f"{pod} is already bound to {cluster.pods[pod].spec.node_name}: "
                         "pass the objects as they were before it was scheduled")
    result = Scheduler(cluster, seed=seed).schedule_one(pod)
    record = result.trace.preemption if result.trace is not None else None
    table = preemption_candidates(record, include_rejected=True) if record is not None else pd.DataFrame()
    return PreemptionWhatIf(pod, result, record, table, priorities, min_available)
