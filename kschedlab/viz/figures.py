"""Plotly figures of cluster state and of one scheduling attempt.

Every function here only reads: a :class:`~kschedlab.cluster.Cluster`, a
:class:`~kschedlab.scheduler.schedule_one.ScheduleResult` and its trace.  Node, pod,
zone and plugin names come from user YAML, so each one is passed through
:func:`html.escape` before it is put into a figure (plotly renders labels as a
small HTML dialect, and the report embeds the figures in a page).  Every figure
sets its template explicitly, so the JSON does not depend on global plotly
settings.

>>> from kschedlab import Cluster, Scheduler
>>> from kschedlab.scenarios import path
>>> cluster = Cluster.from_manifests(path("default"))
>>> results = {r.pod: r for r in Scheduler(cluster).run()}
>>> fig = score_breakdown(results["default/cache-0"])
>>> [t.name for t in fig.data][-2:]
['total', 'chosen']
>>> fig.data[-1].x, fig.data[-1].customdata, fig.data[-2].y
(('node-b2',), (452,), (445, 452))
>>> [t.name for t in filter_outcome(results["default/big-0"]).data]
['filter']
"""

from __future__ import annotations

from typing import Iterable, Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from kschedlab.api.resources import CPU, MEMORY, PODS
from kschedlab.cluster import REGION_LABELS, ZONE_LABELS
from kschedlab.framework.interface import MAX_NODE_SCORE
from kschedlab.framework.status import Code
from kschedlab.viz.common import (
    CHOSEN_COLOR,
    NOT_RUN_COLOR,
    PASSED_COLOR,
    REJECTED_COLOR,
    TEMPLATE,
    as_int_list,
    esc,
    human,
    live_rows,
    plugin_color,
    unit_of,
)

__all__ = ["node_utilization", "score_breakdown", "filter_outcome", "shape_function", "cluster_picture",
           "filter_grid", "utilization_table"]


def message_figure(title: str, message: str, height: int = 260) -> go.Figure:
    """An empty figure titled ``title`` that says ``message`` (nothing to draw)."""
    fig = go.Figure()
    fig.add_annotation(text=message, x=0.5, y=0.5, xref="paper", yref="paper", showarrow=False,
                       font={"size": 14})
    fig.update_layout(template=TEMPLATE, title=title, height=height,
                      xaxis={"visible": False}, yaxis={"visible": False})
    return fig


# -- node utilization ------------------------------------------------------------------------
def _default_resources(snapshot, rows: list[int], include_pods: bool) -> list[str]:
    out = [CPU, MEMORY]
    for name in snapshot.resources:
        if name in (CPU, MEMORY) or (name == PODS and not include_pods):
            continue
        col = snapshot.res_index[name]
        if name == PODS or snapshot.allocatable[col, rows].any() or snapshot.requested[col, rows].any():
            out.append(name)
    return out


def utilization_table(cluster, resources: Sequence[str] | None = None, *, include_pods: bool = False):
    """Requested and allocatable per node and resource (scheduler units), as a DataFrame.

    ``pods`` counts bound pods.  This is the table :func:`node_utilization` draws.

    >>> from kschedlab import Cluster
    >>> from kschedlab.scenarios import path
    >>> t = utilization_table(Cluster.from_manifests(path("default")))
    >>> t.loc[("gpu-b3", "nvidia.com/gpu")].tolist()
    [0, 4]
    """
    import pandas as pd

    snap = cluster.snapshot
    rows = live_rows(snap)
    names = resources or _default_resources(snap, rows, include_pods)
    records = []
    for row in rows:
        for name in names:
            col = snap.res_index.get(name)
            alloc = int(snap.allocatable[col, row]) if col is not None else 0
            if name == PODS:
                req = int(snap.pod_count[row])
            else:
                req = int(snap.requested[col, row]) if col is not None else 0
            records.append({"node": snap.names[row], "resource": name, "requested": req, "allocatable": alloc})
    return pd.DataFrame.from_records(records, columns=["node", "resource", "requested", "allocatable"]).set_index(
        ["node", "resource"])


def node_utilization(cluster, resources: Sequence[str] | None = None, *, include_pods: bool = False,
                     title: str = "Requested vs allocatable per node") -> go.Figure:
    """Requested vs allocatable per node, one panel per resource.

    cpu and memory always, then every extended resource some node has
    (``pods`` too with ``include_pods``).  Bars are in cores, GiB or counts;
    the text on each requested bar is the percentage of allocatable.

    Each requested bar trace has ``meta`` = the (escaped) resource name.

    >>> from kschedlab import Cluster
    >>> from kschedlab.scenarios import path
    >>> fig = node_utilization(Cluster.from_manifests(path("default")))
    >>> [t.meta for t in fig.data if t.name == "requested"]
    ['cpu', 'memory', 'nvidia.com/gpu']
    """
    table = utilization_table(cluster, resources, include_pods=include_pods)
    snap = cluster.snapshot
    nodes = [snap.names[r] for r in live_rows(snap)]
    names = list(dict.fromkeys(table.index.get_level_values("resource")))
    if not nodes or not names:
        return message_figure(esc(title), "no nodes")
    x = [esc(n) for n in nodes]
    fig = make_subplots(rows=len(names), cols=1, shared_xaxes=True, vertical_spacing=0.35 / max(len(names), 1),
                        subplot_titles=[f"{esc(n)} ({unit_of(n)[1]})" for n in names])
    for i, name in enumerate(names, start=1):
        div, _ = unit_of(name)
        req = [int(table.loc[(n, name), "requested"]) for n in nodes]
        alloc = [int(table.loc[(n, name), "allocatable"]) for n in nodes]
        pct_text = [f"{100.0 * r / a:.0f}%" if a else ("over" if r else "") for r, a in zip(req, alloc)]
        custom = [[human(r, name), human(a, name), t] for r, a, t in zip(req, alloc, pct_text)]
        hover = ("%{x}<br>requested %{customdata[0]} of %{customdata[1]} allocatable"
                 " (%{customdata[2]})<extra></extra>")
        fig.add_trace(go.Bar(x=x, y=[a / div for a in alloc], name="allocatable", legendgroup="allocatable",
                             showlegend=i == 1, marker_color=NOT_RUN_COLOR, width=0.8, meta=esc(name),
                             customdata=custom, hovertemplate=hover), row=i, col=1)
        fig.add_trace(go.Bar(x=x, y=[r / div for r in req], name="requested", legendgroup="requested",
                             showlegend=i == 1, marker_color="#3182bd", width=0.45, meta=esc(name),
                             text=pct_text, textposition="outside", customdata=custom, hovertemplate=hover),
                      row=i, col=1)
    fig.update_layout(template=TEMPLATE, barmode="overlay", title=esc(title),
                      height=140 + 200 * len(names), legend={"orientation": "h", "y": 1.02, "x": 1,
                                                              "xanchor": "right", "yanchor": "bottom"})
    return fig


# -- one scheduling attempt -------------------------------------------------------------------
def no_trace(result) -> str:
    """Why an attempt's result has no trace to show."""
    if result.message == "SchedulingGated":
        return "the pod has scheduling gates: it did not enter a scheduling cycle"
    return "no trace was kept for this attempt (see Scheduler keep_traces)"


def _result_title(result, what: str) -> str:
    where = f"→ {result.node}" if result.node else "→ unschedulable"
    return esc(f"{what}: {result.pod} {where}")


def score_breakdown(result, *, title: str | None = None) -> go.Figure:
    """Stacked weighted score per Score plugin for each scored node.

    One bar trace per plugin (``y`` = normalized score × weight, hover shows
    raw, normalized and weight), then a ``total`` marker trace with the sum
    written above each stack, and a ``chosen`` star above the selected
    node's stack (its ``customdata`` is the total), whose column is shaded and
    whose axis label is bold.  Values are exactly those of
    ``result.trace.scores()``.  Nodes keep the order the scheduler scored them in.

    >>> from kschedlab import Cluster, Scheduler
    >>> from kschedlab.scenarios import path
    >>> r = Scheduler(Cluster.from_manifests(path("default"))).schedule_one("default/web-0")
    >>> fig = score_breakdown(r)
    >>> fig.data[0].name, fig.data[0].x, fig.data[0].y   # TaintToleration: 100 × weight 3
    ('TaintToleration', ('node-a1', 'node-a2', 'node-b2'), (300, 300, 300))
    """
    title = title or _result_title(result, "Score breakdown")
    trace = result.trace
    if trace is None:
        return message_figure(title, no_trace(result))
    scores = trace.scores()
    if not scores:
        if trace.selected:
            msg = f"only one feasible node ({esc(trace.selected)}): scoring is skipped"
        else:
            msg = "no feasible node: nothing was scored"
        return message_figure(title, msg)
    nodes = list(scores)
    x = [esc(n) for n in nodes]
    sc = trace.score
    fig = go.Figure()
    for i, plugin in enumerate(sc.plugins):
        weight = int(sc.weights[i])
        custom = [[scores[n][plugin]["raw"], scores[n][plugin]["normalized"], weight] for n in nodes]
        fig.add_trace(go.Bar(
            x=x, y=[scores[n][plugin]["weighted"] for n in nodes], name=esc(plugin),
            marker_color=plugin_color(plugin, i), customdata=custom,
            hovertemplate=("%{x}<br>%{fullData.name}: raw %{customdata[0]}, normalized %{customdata[1]}"
                           " × weight %{customdata[2]} = %{y}<extra></extra>")))
    totals = [scores[n]["total"] for n in nodes]
    fig.add_trace(go.Scatter(x=x, y=totals, name="total", mode="text", text=[f"<b>{t}</b>" for t in totals],
                             textposition="top center", showlegend=False, hovertemplate="%{x}<br>total %{y}<extra></extra>"))
    chosen = [n for n in nodes if n == trace.selected]
    if chosen:
        top = scores[chosen[0]]["total"]
        k = nodes.index(chosen[0])
        fig.add_shape(type="rect", xref="x", yref="paper", x0=k - 0.5, x1=k + 0.5, y0=0, y1=1,
                      fillcolor=CHOSEN_COLOR, opacity=0.15, line={"width": 0}, layer="below")
        fig.add_trace(go.Scatter(x=[esc(chosen[0])], y=[top + max(totals) * 0.2 + 2], name="chosen",
                                 mode="markers", customdata=[top],
                                 marker={"symbol": "star", "size": 16, "color": CHOSEN_COLOR,
                                         "line": {"color": "black", "width": 1}},
                                 hovertemplate="%{x}<br>chosen (total %{customdata})<extra></extra>"))
    ticktext = [f"<b>{e}</b> ★" if n == trace.selected else e for n, e in zip(nodes, x)]
    note = f"{trace.ties} nodes tied for the top score; one was picked at random" if trace.ties > 1 else ""
    fig.update_layout(template=TEMPLATE, barmode="stack", title=title, height=440,
                      xaxis={"title": "node", "tickvals": x, "ticktext": ticktext},
                      yaxis={"title": "normalized score × weight", "range": [0, max(totals) * 1.32 + 4]},
                      legend={"traceorder": "normal"})
    if note:
        fig.add_annotation(text=note, x=0, y=1.06, xref="paper", yref="paper", showarrow=False, xanchor="left")
    return fig


#: cell states of :func:`filter_grid`
PASSED, REJECTED, NOT_RUN = 2, 0, 1


def filter_grid(result) -> dict:
    """The table :func:`filter_outcome` draws, from ``result.trace`` (plain data).

    ``{"nodes": [...], "columns": [...], "cells": [[state, ...], ...], "verdicts": [...]}``:
    one row per node (visited nodes in visiting order, then the others),
    columns are ``PreFilter`` (only when some nodes were excluded there) and
    the Filter plugins in order; a cell is ``PASSED`` (2), ``REJECTED`` (0) or
    ``NOT_RUN`` (1: a node stops at its first failing plugin, or was never
    evaluated).  ``verdicts[i]`` is ``(plugin or "", code name, reasons)``.

    >>> from kschedlab import Cluster, Scheduler
    >>> from kschedlab.scenarios import path
    >>> c = Cluster.from_manifests(path("default"))
    >>> g = filter_grid(Scheduler(c).schedule_one("default/big-0"))
    >>> g["nodes"][0], g["verdicts"][0]
    ('node-a1', ('NodeResourcesFit', 'UnschedulableAndUnresolvable', ('Insufficient cpu',)))
    """
    trace = result.trace
    if trace is None:
        return {"nodes": [], "columns": [], "cells": [], "verdicts": []}
    statuses = trace.filter_statuses()
    plugins = list(trace.filter.plugins) if trace.filter is not None else []
    absent = trace.absent_status
    columns = (["PreFilter"] if absent is not None else []) + plugins
    nodes = list(statuses) + [n for n in dict.fromkeys(trace.node_names) if n is not None and n not in statuses]
    cells, verdicts = [], []
    for node in nodes:
        row = []
        st = statuses.get(node)
        if absent is not None:
            row.append(PASSED if st is not None else REJECTED)
        if st is None:
            row.extend([NOT_RUN] * len(plugins))
            if absent is not None:
                verdicts.append(("PreFilter", absent.code.name, tuple(absent.reasons)))
            else:
                verdicts.append(("", "NotEvaluated", ("not evaluated: the scheduler stopped once it had found "
                                                      "enough feasible nodes (or tried the nominated node)",)))
        elif st.is_success():
            row.extend([PASSED] * len(plugins))
            verdicts.append(("", Code.Success.name, ()))
        else:
            k = plugins.index(st.plugin)
            row.extend([PASSED] * k + [REJECTED] + [NOT_RUN] * (len(plugins) - k - 1))
            verdicts.append((st.plugin, st.code.name, tuple(st.reasons)))
        cells.append(row)
    return {"nodes": nodes, "columns": columns, "cells": cells, "verdicts": verdicts}


def _wrap_names(head: str, names: Sequence[str], width: int = 90) -> list[str]:
    """``head`` and the comma-separated ``names`` in lines of at most ``width`` characters (a name
    longer than that has a line of its own), so a note under a figure stays within a notebook's
    output area.

    >>> _wrap_names("skipped:", ["NodeAffinity", "NodePorts", "VolumeBinding"], width=30)
    ['skipped: NodeAffinity,', 'NodePorts, VolumeBinding']
    """
    lines, line = [], head
    for i, name in enumerate(names):
        word = name + ("," if i < len(names) - 1 else "")
        if len(line) + 1 + len(word) > width and line:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return lines + [line]


def filter_outcome(result, *, title: str | None = None) -> go.Figure:
    """Which Filter plugin rejected which node, and why.

    A grid (nodes × PreFilter/Filter plugins): green passed, red rejected,
    grey not run.  The verdict of each node (plugin: reasons) is written to
    the right of its row and in the hover of the rejecting cell.  The heatmap
    trace's ``z`` is :func:`filter_grid`'s cells and its ``customdata`` holds
    the code and reasons per cell.

    >>> from kschedlab import Cluster, Scheduler
    >>> from kschedlab.scenarios import path
    >>> r = Scheduler(Cluster.from_manifests(path("default"))).schedule_one("default/big-0")
    >>> heat = filter_outcome(r).data[0]
    >>> heat.x[0], heat.y[1], heat.z[1][:2], heat.customdata[1][0]
    ('NodeUnschedulable', 'node-b1', [0, 1], ['UnschedulableAndUnresolvable', 'node(s) were unschedulable'])
    """
    title = title or _result_title(result, "Filter outcome")
    grid = filter_grid(result)
    if result.trace is None:
        return message_figure(title, no_trace(result))
    if not grid["nodes"] or not grid["columns"]:
        return message_figure(title, "no Filter plugin ran")
    nodes = [esc(n) for n in grid["nodes"]]
    cols = [esc(c) for c in grid["columns"]]
    symbols = {PASSED: "✓", REJECTED: "✗", NOT_RUN: ""}
    text = [[symbols[c] for c in row] for row in grid["cells"]]
    custom = []
    for row, (_plugin, code, reasons) in zip(grid["cells"], grid["verdicts"]):
        line = []
        for c in row:
            if c == REJECTED:
                line.append([code, esc("; ".join(reasons))])
            elif c == PASSED:
                line.append(["passed", ""])
            else:
                line.append(["not run", ""])
        custom.append(line)
    colorscale = [[0.0, REJECTED_COLOR], [0.33, REJECTED_COLOR], [0.34, NOT_RUN_COLOR], [0.66, NOT_RUN_COLOR],
                  [0.67, PASSED_COLOR], [1.0, PASSED_COLOR]]
    fig = go.Figure(go.Heatmap(
        z=grid["cells"], x=cols, y=nodes, text=text, texttemplate="%{text}", customdata=custom, zmin=0, zmax=2,
        colorscale=colorscale, showscale=False, xgap=2, ygap=2, name="filter",
        hovertemplate="%{y} × %{x}: %{customdata[0]}<br>%{customdata[1]}<extra></extra>"))
    for node, (plugin, code, reasons) in zip(nodes, grid["verdicts"]):
        if code == Code.Success.name:
            label = "<b>feasible</b>"
        elif code == "NotEvaluated":
            label = esc(reasons[0])
        else:
            label = f"<b>{esc(plugin)}</b>: {esc('; '.join(reasons))}"
        fig.add_annotation(text=label, x=1.01, y=node, xref="paper", yref="y", xanchor="left", showarrow=False,
                           align="left", font={"size": 11})
    trace = result.trace
    skipped = [name for name, st in trace.prefilter if st.is_skip()]
    lines = _wrap_names("skipped at Filter (PreFilter returned Skip):", skipped) if skipped else []
    if lines:
        fig.add_annotation(text="<br>".join(esc(line) for line in lines),
                           x=0, y=0, xref="paper", yref="paper", yshift=-12, xanchor="left", yanchor="top",
                           align="left", showarrow=False, font={"size": 11, "color": "#666"})
    fig.update_layout(template=TEMPLATE, title={"text": title, "y": 0.98, "yanchor": "top"},
                      height=200 + 36 * len(nodes) + 14 * max(len(lines) - 1, 0),
                      margin={"r": 420, "l": 120, "t": 150, "b": 40 + 14 * max(len(lines) - 1, 0)},
                      xaxis={"side": "top", "tickangle": -30}, yaxis={"autorange": "reversed"})
    return fig


# -- RequestedToCapacityRatio shape -------------------------------------------------------------
def shape_function(shape_points, marks: Mapping[str, float] | Iterable[tuple[str, float]] | None = None, *,
                   score_scale: int = MAX_NODE_SCORE // 10, title: str | None = None) -> go.Figure:
    """The RequestedToCapacityRatio broken-linear shape as the plugin evaluates it.

    ``shape_points`` are in configuration units (``utilization`` 0-100,
    ``score`` 0-10), as dicts, tuples or ``FunctionShapePoint``.  The curve is
    the plugin's function evaluated at every integer utilization (the
    scheduler only ever computes integer utilizations), with each score
    multiplied by ``score_scale``: 10 (default) is what kube-scheduler does
    today (0-100), 1 is the documented legacy 0-10 scale.  ``marks`` puts
    labelled points on the curve, e.g. ``{"node 1 cpu": 37}``.  An invalid
    shape raises ``ValueError`` with upstream's validation messages.

    >>> fig = shape_function([{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}],
    ...                      marks={"cpu": 37})
    >>> [t.name for t in fig.data]
    ['score', 'shape points', 'marks']
    >>> fig.data[0].y[37], fig.data[2].y
    (37, (37,))
    """
    from kschedlab.plugins.helper import FunctionShapePoint, build_broken_linear_function
    from kschedlab.viz.calc import normalize_shape, shape_errors

    points = normalize_shape(shape_points)
    errors = shape_errors(points)
    if errors:
        raise ValueError("invalid shape: " + "; ".join(errors))
    scaled = [FunctionShapePoint(u, s * score_scale) for u, s in points]
    fn = build_broken_linear_function(scaled)
    util = list(range(0, 101))
    ys = as_int_list(fn(np.asarray(util)))
    top = 10 * score_scale
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=util, y=ys, name="score", mode="lines", line={"shape": "hv", "color": "#0072B2"},
                             hovertemplate="utilization %{x}% → score %{y}<extra></extra>"))
    fig.add_trace(go.Scatter(x=[u for u, _ in scaled], y=[s for _, s in scaled], name="shape points",
                             mode="markers", marker={"size": 10, "color": "#0072B2", "symbol": "circle-open",
                                                     "line": {"width": 2}},
                             customdata=[[s] for _, s in points],
                             hovertemplate="shape point (%{x}, %{customdata[0]}) → %{y}<extra></extra>"))
    if marks:
        items = list(marks.items()) if isinstance(marks, Mapping) else list(marks)
        mu = [int(np.floor(u)) for _, u in items]
        my = as_int_list(fn(np.asarray(mu)))
        fig.add_trace(go.Scatter(x=mu, y=my, name="marks", mode="markers+text",
                                 text=[esc(label) for label, _ in items], textposition="top left",
                                 marker={"size": 11, "color": CHOSEN_COLOR, "line": {"color": "black", "width": 1}},
                                 hovertemplate="%{text}: utilization %{x}% → score %{y}<extra></extra>"))
    scale_name = "0-100, what the plugin returns" if score_scale == MAX_NODE_SCORE // 10 else (
        "0-10, legacy scale" if score_scale == 1 else f"shape score × {score_scale}")
    fig.update_layout(template=TEMPLATE, height=380,
                      title=esc(title or "RequestedToCapacityRatio shape"),
                      xaxis={"title": "utilization % = (used + requested) * 100 // allocatable", "range": [-2, 102]},
                      yaxis={"title": f"score ({scale_name})", "range": [-0.05 * top, 1.1 * top]},
                      legend={"orientation": "h", "y": 1.0, "x": 1, "xanchor": "right", "yanchor": "bottom"})
    return fig


# -- the cluster at a glance --------------------------------------------------------------------
def zone_label(node, zone_key: str | None = None) -> str:
    """The node's ``zone_key`` label, else ``region/zone`` from the well-known labels (for grouping)."""
    labels = node.metadata.labels
    if zone_key is not None:
        return labels.get(zone_key, f"(no {zone_key})")
    zone = next((labels[k] for k in ZONE_LABELS if k in labels), None)
    region = next((labels[k] for k in REGION_LABELS if k in labels), None)
    if zone is None and region is None:
        return "(no zone)"
    return f"{region}/{zone}" if region and zone else (zone or region or "")


#: pod colours of :func:`cluster_picture` with ``color_by`` (one per label value, in sorted order)
LABEL_PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#882255", "#332288", "#56B4E9",
                 "#999933", "#999999", "#77AADD", "#EE8866", "#44BB99", "#FFAABB", "#99DDFF", "#BBCC33")
POD_COLOR = "#3182bd"
UNLABELLED_COLOR = "#d9d9d9"


def label_colors(cluster, key: str) -> dict[str, str]:
    """The colour of each value of pod label ``key`` in :func:`cluster_picture` (values sorted,
    colours from :data:`LABEL_PALETTE`, repeating after 16 values).

    >>> from kschedlab import Cluster
    >>> from kschedlab.api.core import Pod
    >>> c = Cluster([Pod.model_validate({"metadata": {"name": n, "labels": {"app": a}}}) for n, a in
    ...              [("w1", "web"), ("w2", "web"), ("db", "store")]])
    >>> label_colors(c, "app")
    {'store': '#0072B2', 'web': '#E69F00'}
    """
    values = sorted({p.metadata.labels[key] for p in cluster.pods.values() if key in p.metadata.labels})
    return {v: LABEL_PALETTE[i % len(LABEL_PALETTE)] for i, v in enumerate(values)}


def pod_label_keys(cluster) -> list[str]:
    """Every label key some pod of the cluster has, sorted (the choices for ``color_by``)."""
    return sorted({k for p in cluster.pods.values() for k in p.metadata.labels})


#: ``cluster_picture(size_by=COUNT)``: every pod the same size
COUNT = "count"


def cluster_picture(cluster, *, size_by: str = CPU, color_by: str | None = None, zone_key: str | None = None,
                    title: str = "Cluster: zones, nodes and their pods") -> go.Figure:
    """Nodes grouped by zone with their pods, as a treemap sized by ``size_by``.

    ``size_by="count"`` gives every pod the same size (an empty node one empty cell): the
    picture for a lesson that counts pods, as topology spread does.

    A node's box is its allocatable ``size_by`` (or the sum of its pods' if
    larger), split into its pods and the free remainder; pending pods sit in
    their own box.  Pods are sized by their scoring request (containers
    without a cpu/memory request count as 100m / 200Mi, as kube-scheduler's
    scoring does), so a pod that requests nothing is still visible.
    Cordoned nodes are grey, tainted nodes orange.

    ``color_by`` colours each pod by the value of that pod label (:func:`label_colors`;
    pods without it light grey) and lists the colours under the title; the hover of
    every pod shows its labels. ``zone_key`` groups nodes by that node label instead of
    the well-known ``topology.kubernetes.io/zone`` (and region) labels. Click a zone or a
    node to zoom in.

    >>> from kschedlab import Cluster
    >>> from kschedlab.scenarios import path
    >>> fig = cluster_picture(Cluster.from_manifests(path("default")))
    >>> sorted(set(fig.data[0].parents))[:3]
    ['', 'cluster', 'node/gpu-b3']
    >>> fig = cluster_picture(Cluster.from_manifests(path("default")), color_by="app")
    >>> colors = dict(zip(fig.data[0].ids, fig.data[0].marker.colors))
    >>> colors["pod/default/web-0"] == label_colors(Cluster.from_manifests(path("default")), "app")["web"]
    True
    >>> fig = cluster_picture(Cluster.from_manifests(path("default")), size_by="count")
    >>> sizes = dict(zip(fig.data[0].ids, fig.data[0].values))
    >>> sizes["pod/default/web-0"], fig.layout.title.text
    (1, 'Cluster: zones, nodes and their pods (sized by pod count)')
    """
    from kschedlab.api.resources import DEFAULT_NON_ZERO, pod_requests

    snap = cluster.snapshot
    ids, labels, parents, values, colors, hover = [], [], [], [], [], []
    palette = label_colors(cluster, color_by) if color_by else {}
    by_count = size_by == COUNT

    def add(id_, label, parent, value, color, text):
        ids.append(esc(id_))
        labels.append(esc(label))
        parents.append(esc(parent))
        values.append(int(value))
        colors.append(color)
        hover.append(text)

    def pod_size(pod) -> int:
        if by_count:
            return 1
        reqs = pod_requests(pod, non_missing=DEFAULT_NON_ZERO if size_by in (CPU, MEMORY) else None)
        return int(reqs.get(size_by, 0))

    def pod_color(info, default: str) -> str:
        if not color_by:
            return default
        value = info.pod.metadata.labels.get(color_by)
        return palette[value] if value is not None else UNLABELLED_COLOR

    def pod_hover(info, size: int, state: str = "") -> str:
        text = esc(f"{info.key}{state}" if by_count else f"{info.key}{state}: requests {human(size, size_by)} {size_by}")
        if color_by:  # without color_by the hover stays as it always was
            shown = ", ".join(f"{k}={v}" for k, v in sorted(info.pod.metadata.labels.items())) or "none"
            text += "<br>labels: " + esc(shown)
        return text

    zones: dict[str, list[int]] = {}
    for row in live_rows(snap):
        zones.setdefault(zone_label(snap.nodes[row], zone_key), []).append(row)
    col = snap.res_index.get(size_by)
    entries = []  # (zone, node rows...) built first so parents get their totals
    zone_totals: dict[str, int] = {}
    for zone, rows in zones.items():
        for row in rows:
            pods = [(info, pod_size(info.pod)) for info in snap.pods[row]]
            used = sum(s for _, s in pods)
            alloc = int(snap.allocatable[col, row]) if col is not None and not by_count else 0
            total = max(alloc, used, 1 if by_count else 0)  # by count, an empty node keeps one empty cell
            entries.append((zone, row, pods, used, alloc, total))
            zone_totals[zone] = zone_totals.get(zone, 0) + total
    pending = [(info, pod_size(info.pod)) for key, info in cluster.pod_infos.items()
               if key not in snap.pod_row]
    pending_total = sum(s for _, s in pending)
    grand = sum(zone_totals.values()) + pending_total
    add("cluster", "cluster", "", grand, "#ffffff", esc(f"{len(snap.index)} nodes, {len(cluster.pods)} pods"))
    for zone in zones:
        where = f"{zone_key}={zone}" if zone_key is not None and not zone.startswith("(no ") else f"zone {zone}"
        add(f"zone/{zone}", zone, "cluster", zone_totals[zone], "#deebf7", esc(where))
    for zone, row, pods, used, alloc, total in entries:
        name = snap.names[row]
        cordoned = bool(snap.unschedulable[row])
        tainted = bool(snap.taint_sets[int(snap.taint_group[row])])
        color = "#bdbdbd" if cordoned else ("#fdd0a2" if tainted else "#9ecae1")
        notes = (" (cordoned)" if cordoned else "") + (" (tainted)" if tainted else "")
        add(f"node/{name}", name + notes, f"zone/{zone}", total, color,
            esc(f"{name}: {used} pod{'s' if used != 1 else ''}{notes}" if by_count else
                f"{name}: {human(used, size_by)} of {human(alloc, size_by)} {size_by} requested{notes}"))
        for info, size in pods:
            add(f"pod/{info.key}", info.name, f"node/{name}", size, pod_color(info, POD_COLOR),
                pod_hover(info, size))
        if total > used:
            add(f"free/{name}", "no pods" if by_count else "free", f"node/{name}", total - used, "#f7f7f7",
                esc(f"{name}: no pods" if by_count else f"{name}: {human(total - used, size_by)} {size_by} free"))
    if pending:
        add("pending", "pending pods", "cluster", pending_total, "#fee6ce", "pods not bound to any node")
        for info, size in pending:
            named = info.pod.spec.node_name  # spec.nodeName of a node that does not exist
            state = f" (nodeName {named}: no such node)" if named else " (pending)"
            add(f"pod/{info.key}", info.name, "pending", size, pod_color(info, "#e6550d"),
                pod_hover(info, size, state))
    fig = go.Figure(go.Treemap(ids=ids, labels=labels, parents=parents, values=values, branchvalues="total",
                               sort=False, marker={"colors": colors}, customdata=hover, maxdepth=4,
                               hovertemplate="%{customdata}<extra></extra>", textinfo="label"))
    heading = f"{title} (sized by {'pod count' if by_count else size_by}" + (f", pods coloured by {color_by})" if color_by else ")")
    fig.update_layout(template=TEMPLATE, title=esc(heading), height=520,
                      margin={"t": 90 if color_by else 60, "l": 10, "r": 10, "b": 10})
    if color_by:
        keys = [f"<span style='color:{c}'>■</span> {esc(v)}" for v, c in palette.items()]
        keys.append(f"<span style='color:{UNLABELLED_COLOR}'>■</span> no {esc(color_by)} label")
        fig.add_annotation(text=" &nbsp; ".join(keys), x=0, y=1.0, xref="paper", yref="paper", yshift=8,
                           xanchor="left", yanchor="bottom", showarrow=False, font={"size": 12})
    return fig
