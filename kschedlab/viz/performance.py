"""Figures for scheduler performance tuning (seed section 10): the adaptive default of
``percentageOfNodesToScore`` and the speed / placement-quality trade-off of a sweep
(:mod:`kschedlab.sim.tuning`)."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from kschedlab.scheduler import (
    MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND,
    MIN_FEASIBLE_NODES_TO_FIND,
    num_feasible_nodes_to_find,
)
from kschedlab.viz.common import TEMPLATE
from kschedlab.viz.palette import BLUE, ORANGE, VERMILLION

__all__ = ["adaptive_default_figure", "percentage_tradeoff", "feasible_nodes_steps", "feasible_nodes_figure",
           "scaling_figure"]


def adaptive_default_figure(max_nodes: int = 10_000, step: int = 50) -> go.Figure:
    """How many nodes the scheduler looks for with the default (``percentageOfNodesToScore: 0``),
    by cluster size: the percentage (``50 - nodes/125``, at least 5) and the resulting number of
    feasible nodes to find (at least 100; every node below 100 nodes).

    >>> fig = adaptive_default_figure(5000, step=2500)
    >>> fig.data[0].x, fig.data[0].y, fig.data[1].y
    ((2500, 5000), (30, 10), (750, 500))
    """
    sizes = list(range(step, max_nodes + 1, step))
    pct = [100 if n < MIN_FEASIBLE_NODES_TO_FIND else max(50 - n // 125, MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND)
           for n in sizes]
    found = [num_feasible_nodes_to_find(0, n) for n in sizes]
    fig = make_subplots(specs=[[{"secondary_y": True}]])
    fig.add_trace(go.Scatter(x=sizes, y=pct, name="percentage of nodes", mode="lines",
                             line={"color": ORANGE, "width": 3},
                             hovertemplate="%{x} nodes: %{y}%<extra></extra>"), secondary_y=False)
    fig.add_trace(go.Scatter(x=sizes, y=found, name="feasible nodes to find", mode="lines",
                             line={"color": BLUE, "width": 3, "dash": "dash"},
                             hovertemplate="%{x} nodes: look for %{y}<extra></extra>"), secondary_y=True)
    fig.update_layout(template=TEMPLATE, height=380, title="percentageOfNodesToScore: 0 (the adaptive default)",
                      xaxis={"title": "nodes in the cluster (nodes)"}, legend={"orientation": "h", "y": -0.3},
                      margin={"b": 100})
    fig.update_yaxes(title_text="percentage of nodes (%)", range=[0, 105], secondary_y=False)
    fig.update_yaxes(title_text="feasible nodes to find (nodes)", rangemode="tozero", secondary_y=True)
    return fig


def feasible_nodes_steps(percentage: int, num_all_nodes: int) -> list[tuple[str, int]]:
    """How kube-scheduler turns ``percentageOfNodesToScore`` into ``numFeasibleNodesToFind``,
    step by step: ``[(what, value), ...]``, the last value being the result of
    :func:`kschedlab.scheduler.num_feasible_nodes_to_find`.

    >>> feasible_nodes_steps(0, 1000)
    [('cluster size (nodes)', 1000), ('adaptive percentage: max(50 - 1000 // 125, 5)', 42), ('1000 × 42 // 100', 420), ('at least 100', 420)]
    >>> feasible_nodes_steps(30, 60)[-1]
    ('fewer than 100 nodes: every node', 60)
    """
    steps = [("cluster size (nodes)", num_all_nodes)]
    if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND:
        steps.append((f"fewer than {MIN_FEASIBLE_NODES_TO_FIND} nodes: every node", num_all_nodes))
    else:
        pct = percentage
        if percentage == 0:
            pct = max(50 - num_all_nodes // 125, MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND)
            steps.append((f"adaptive percentage: max(50 - {num_all_nodes} // 125, "
                          f"{MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND})", pct))
        share = num_all_nodes * pct // 100
        steps.append((f"{num_all_nodes} × {pct} // 100", share))
        steps.append((f"at least {MIN_FEASIBLE_NODES_TO_FIND}", max(share, MIN_FEASIBLE_NODES_TO_FIND)))
    assert steps[-1][1] == num_feasible_nodes_to_find(percentage, num_all_nodes)
    return steps


def feasible_nodes_figure(percentage: int, num_all_nodes: int, max_nodes: int = 10_000, step: int = 100
                          ) -> go.Figure:
    """``numFeasibleNodesToFind`` by cluster size for ``percentage`` and for the default (0), with
    the cluster of ``num_all_nodes`` marked.

    >>> fig = feasible_nodes_figure(20, 1000, max_nodes=2000, step=1000)
    >>> fig.data[0].y, fig.data[2].y
    ((200, 400), (200,))
    >>> len(feasible_nodes_figure(0, 1000).data)   # the default is drawn once
    2
    """
    sizes = list(range(step, max_nodes + 1, step))
    found = num_feasible_nodes_to_find(percentage, num_all_nodes)
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=sizes, y=[num_feasible_nodes_to_find(percentage, n) for n in sizes], mode="lines",
                             name=f"percentageOfNodesToScore: {percentage}" + (" (default)" if percentage == 0 else ""),
                             line={"color": BLUE, "width": 3},
                             hovertemplate="%{x} nodes: look for %{y}<extra></extra>"))
    if percentage != 0:  # (at 0 the default is the line above)
        fig.add_trace(go.Scatter(x=sizes, y=[num_feasible_nodes_to_find(0, n) for n in sizes], mode="lines",
                                 name="0 (the adaptive default)",
                                 line={"color": ORANGE, "width": 2, "dash": "dash"},
                                 hovertemplate="%{x} nodes: default looks for %{y}<extra></extra>"))
    fig.add_trace(go.Scatter(x=[num_all_nodes], y=[found], mode="markers", name=f"{num_all_nodes} nodes",
                             marker={"color": VERMILLION, "size": 12, "symbol": "diamond"},
                             hovertemplate="%{x} nodes: look for %{y}<extra></extra>"))
    fig.update_layout(template=TEMPLATE, height=380, margin={"t": 60, "b": 90},
                      title=f"{num_all_nodes} nodes, percentageOfNodesToScore {percentage}: look for {found} nodes",
                      xaxis={"title": "nodes in the cluster (nodes)", "rangemode": "tozero"},
                      yaxis={"title": "feasible nodes to find (nodes)", "rangemode": "tozero"},
                      legend={"orientation": "h", "y": -0.3})
    return fig


def percentage_tradeoff(summary: pd.DataFrame, *, title: str = "percentageOfNodesToScore: work vs placement"
                        ) -> go.Figure:
    """One point per percentage of a :func:`kschedlab.sim.tuning.sweep_summary`: x = mean
    nodes evaluated per pod (the work), left = share of pods placed on a best node, right =
    mean regret (best total score - chosen total).  0 is labelled "0 (default)".

    >>> import pandas as pd
    >>> s = pd.DataFrame({"evaluated": [110.0, 1000.0], "best_node_share": [0.5, 1.0],
    ...                   "mean_regret": [3.0, 0.0]}, index=pd.Index([10, 100], name="percentage"))
    >>> fig = percentage_tradeoff(s)
    >>> fig.data[0].x, fig.data[0].y, fig.data[0].text
    ((110.0, 1000.0), (50.0, 100.0), ('10%', '100%'))
    >>> s2 = pd.DataFrame({"evaluated": [110.0, 110.0], "best_node_share": [0.5, 0.5], "mean_regret": [3.0, 3.0]},
    ...                   index=pd.Index([5, 10], name="percentage"))
    >>> percentage_tradeoff(s2).data[0].text
    ('5% = 10%', '')
    """
    summary = summary.sort_values("evaluated")
    labels = [("0 (default)" if p == 0 else f"{p}%") for p in summary.index]
    x = [float(v) for v in summary["evaluated"]]
    share = [round(100 * float(v), 1) for v in summary["best_node_share"]]
    # settings that give the same point (e.g. 5 % and 10 %, both at the floor of 100 nodes) share one label
    seen: dict[tuple, int] = {}
    text = []
    for i, point in enumerate(zip(x, share)):
        if point in seen:
            first = seen[point]
            text[first] = f"{text[first]} = {labels[i]}"
            text.append("")
        else:
            seen[point] = i
            text.append(labels[i])
    fig = make_subplots(specs=[[{"secondary_y": True}]])
    fig.add_trace(go.Scatter(x=x, y=share, text=text, customdata=labels, mode="lines+markers+text",
                             textposition="top center", cliponaxis=False,
                             name="pods on a best node (%)", line={"color": BLUE, "width": 2},
                             hovertemplate="%{customdata}: %{x:.0f} nodes evaluated, %{y}% on a best node"
                                           "<extra></extra>"), secondary_y=False)
    fig.add_trace(go.Scatter(x=x, y=[round(float(v), 2) for v in summary["mean_regret"]], customdata=labels,
                             mode="lines+markers", name="mean regret (score points)",
                             marker={"symbol": "diamond"},
                             line={"color": VERMILLION, "width": 2, "dash": "dot"},
                             hovertemplate="%{customdata}: mean regret %{y}<extra></extra>"), secondary_y=True)
    fig.update_layout(template=TEMPLATE, height=440, title=title, margin={"t": 70, "b": 110},
                      xaxis={"title": "nodes evaluated per pod (mean, nodes)", "rangemode": "tozero"},
                      legend={"orientation": "h", "y": -0.3})
    fig.update_yaxes(title_text="pods placed on a best node (%)", range=[0, 115], secondary_y=False)
    fig.update_yaxes(title_text="mean regret (score points)", rangemode="tozero", secondary_y=True)
    return fig


def scaling_figure(runs: pd.DataFrame, *, title: str = "SchedulingBasic: CPU time per pod by cluster size"
                   ) -> go.Figure:
    """CPU microseconds per scheduled pod against the number of nodes, from
    :func:`kschedlab.scheduler_perf.scaling_runs`, beside the line a cost linear in the nodes would
    follow from the smallest size (dashed) and the nodes the scheduler looks for
    (``numFeasibleNodesToFind``, right axis): a measured line under the dashed one means the cost
    per pod grows less than linearly.

    >>> import pandas as pd
    >>> df = pd.DataFrame({"nodes": [1000, 5000], "cpu_us_per_pod": [400.0, 600.0], "nodes_to_find": [420, 500]})
    >>> fig = scaling_figure(df)
    >>> fig.data[0].y, fig.data[1].y, fig.data[2].y
    ((400.0, 600.0), (400.0, 2000.0), (420, 500))
    """
    runs = runs.sort_values("nodes")
    nodes = [int(n) for n in runs["nodes"]]
    cost = [float(v) for v in runs["cpu_us_per_pod"]]
    linear = [cost[0] * n / nodes[0] for n in nodes] if nodes else []
    fig = make_subplots(specs=[[{"secondary_y": True}]])
    fig.add_trace(go.Scatter(x=nodes, y=cost, name="measured (CPU µs per pod)", mode="lines+markers",
                             line={"color": BLUE, "width": 3},
                             hovertemplate="%{x} nodes: %{y:.0f} µs per pod<extra></extra>"), secondary_y=False)
    fig.add_trace(go.Scatter(x=nodes, y=linear, name="linear in nodes (from the smallest)", mode="lines",
                             line={"color": VERMILLION, "dash": "dash"},
                             hovertemplate="%{x} nodes: %{y:.0f} µs if linear<extra></extra>"), secondary_y=False)
    if "nodes_to_find" in runs:
        fig.add_trace(go.Scatter(x=nodes, y=[int(v) for v in runs["nodes_to_find"]], name="feasible nodes to find",
                                 mode="lines+markers", line={"color": ORANGE, "dash": "dot"},
                                 hovertemplate="%{x} nodes: look for %{y}<extra></extra>"), secondary_y=True)
    fig.update_layout(template=TEMPLATE, height=380, title=title, xaxis={"title": "nodes in the cluster"},
                      legend={"orientation": "h", "y": -0.25})
    fig.update_yaxes(title_text="CPU µs per pod", rangemode="tozero", secondary_y=False)
    fig.update_yaxes(title_text="feasible nodes to find", rangemode="tozero", secondary_y=True)
    return fig
