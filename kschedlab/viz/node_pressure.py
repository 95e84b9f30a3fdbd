"""A figure of the kubelet's node-pressure eviction in a simulation run
(:class:`kschedlab.sim.kubelet.NodePressureEviction`): one signal of one node against
its threshold over time, with the condition's span and a marker per eviction.

Read only, like the rest of :mod:`kschedlab.viz`; pod and node names are escaped.

>>> from types import SimpleNamespace as NS
>>> rows = [{"time": float(t), "node": "n1", "signal": "memory.available", "kind": "hard", "met": a < 500,
...          "availableBytes": a * 2**20, "thresholdValue": 500 * 2**20} for t, a in ((0, 900), (10, 400), (20, 600))]
>>> k = NS(signals=rows, evictions=[{"time": 10.0, "node": "n1", "pod": "default/p", "signal": "memory.available",
...        "gracePeriodSeconds": 1, "replacement": None, "replacementNode": None}],
...        conditions=[{"time": 10.0, "node": "n1", "condition": "MemoryPressure", "status": "True"}])
>>> fig = signal_figure(k, "n1", "memory.available")
>>> [t.name for t in fig.data]
['available', 'threshold (hard)', 'evictions']
>>> list(fig.data[0].y), fig.data[2].x
([900.0, 400.0, 600.0], (10.0,))
"""

from __future__ import annotations

import plotly.graph_objects as go

from kschedlab.viz.common import TEMPLATE, esc

__all__ = ["signal_figure"]

_UNITS = {"memory": (2**20, "MiB"), "fs": (2**20, "MiB"), "count": (1, "")}


def _unit(signal: str) -> tuple[int, str]:
    if signal.endswith("inodesFree") or signal.startswith("pid."):
        return _UNITS["count"]
    return _UNITS["memory"]


def signal_figure(kubelet, node: str, signal: str = "memory.available", *, title: str | None = None):
    """``signal`` of ``node`` at each housekeeping round (line), its thresholds (dashed;
    hard and soft), the span of the node condition it drives (shaded) and each eviction
    the node made for its resource (memory, ephemeral storage, inodes or PIDs: a marker at the available value of that round, the pod and
    its replacement in the hover text)."""
    scale, unit = _unit(signal)
    rows = [r for r in kubelet.signals if r["node"] == node and r["signal"] == signal]
    fig = go.Figure()
    by_time = {}
    for r in rows:
        by_time.setdefault(r["time"], r["availableBytes"] / scale)
    fig.add_scatter(name="available", x=list(by_time), y=list(by_time.values()), mode="lines+markers",
                    line_shape="hv", hovertemplate="t=%{x} s<br>available %{y:.0f} " + unit + "<extra></extra>")
    for kind in ("hard", "soft"):
        ts = [r for r in rows if r["kind"] == kind]
        if ts:
            fig.add_scatter(name=f"threshold ({kind})", x=[r["time"] for r in ts],
                            y=[r["thresholdValue"] / scale for r in ts], mode="lines",
                            line={"dash": "dash" if kind == "hard" else "dot", "color": "#D55E00"})
    from kschedlab.kubelet.signals import SIGNAL_TO_NODE_CONDITION, SIGNAL_TO_RESOURCE

    resource = SIGNAL_TO_RESOURCE.get(signal)
    evictions = [e for e in kubelet.evictions
                 if e["node"] == node and SIGNAL_TO_RESOURCE.get(e["signal"]) == resource]
    fig.add_scatter(name="evictions", x=[e["time"] for e in evictions],
                    y=[by_time.get(e["time"], 0.0) for e in evictions], mode="markers",
                    marker={"symbol": "x", "size": 12, "color": "#000000"},
                    text=[esc(f"{e['pod']} (grace {e['gracePeriodSeconds']} s)"
                              + (f" -> {e['replacement']} on {e['replacementNode']}" if e.get("replacement") else ""))
                          for e in evictions],
                    hovertemplate="t=%{x} s<br>evicted %{text}<extra></extra>")
    cond = SIGNAL_TO_NODE_CONDITION.get(signal)
    start = None
    end = max(by_time, default=0.0)
    for c in kubelet.conditions:
        if c["node"] != node or c["condition"] != cond:
            continue
        if c["status"] == "True":
            start = c["time"]
        elif start is not None:
            fig.add_vrect(x0=start, x1=c["time"], fillcolor="#fdae6b", opacity=0.25, line_width=0)
            start = None
    if start is not None:
        fig.add_vrect(x0=start, x1=end, fillcolor="#fdae6b", opacity=0.25, line_width=0)
    fig.update_layout(template=TEMPLATE, title=title or esc(f"{signal} on {node} ({cond} shaded)"),
                      xaxis_title="virtual time (s)", yaxis_title=f"{signal} ({unit})" if unit else signal)
    return fig
