"""A figure for resource bin packing (seed section 11): the per-resource scores of a
RequestedToCapacityRatio worksheet (:func:`kschedlab.viz.calc.rtcr_worksheet`), node by node."""

from __future__ import annotations

import plotly.graph_objects as go

from kschedlab.viz.common import TEMPLATE, esc

__all__ = ["resource_score_bars"]

#: Okabe-Ito colours, one per node (told apart with any colour-vision deficiency)
_NODE_COLORS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00")


def resource_score_bars(sheet, *, title: str = "Per-resource scores") -> go.Figure:
    """Grouped bars: for each resource (x) one bar per node, its shape score (y, on the
    worksheet's scale); the bar's text is the weighted score, the legend names each node with its
    total.

    >>> from kschedlab.viz.calc import rtcr_worksheet
    >>> sheet = rtcr_worksheet({"cpu": 2}, {"n": {"available": {"cpu": 8}, "used": {"cpu": 1}}},
    ...                        {"cpu": 1}, [(0, 0), (100, 10)])
    >>> fig = resource_score_bars(sheet)
    >>> fig.data[0].name, fig.data[0].y
    ('n: 37', (37,))
    """
    res = sheet.resources
    fig = go.Figure()
    for i, (node, rows) in enumerate(res.groupby("node", sort=False)):
        total = int(sheet.nodes.loc[node, "library"])
        fig.add_bar(x=[esc(r) for r in rows["resource"]], y=[int(s) for s in rows["score"]],
                    name=f"{esc(node)}: {total}", marker_color=_NODE_COLORS[i % len(_NODE_COLORS)],
                    text=[f"×{w} = {v}" for w, v in zip(rows["weight"], rows["weighted"])],
                    textposition="inside", insidetextanchor="end",
                    hovertemplate="%{x}: score %{y} (%{text})<extra>" + esc(node) + "</extra>")
    top = max(100, int(res["score"].max()) if len(res) else 100)
    fig.update_layout(template=TEMPLATE, title=title, barmode="group", height=380, margin={"t": 60, "b": 100},
                      xaxis={"title": "resource"}, yaxis={"title": "shape score (0-100 points)", "range": [0, top * 1.05]},
                      legend={"orientation": "h", "y": -0.3, "title": "node: total score"})
    return fig
