"""Figures and tables for eviction: what the taint manager did to the pods over time
(:func:`taint_timeline`), the Eviction API calls of a drain (:func:`drain_attempts`),
budget statuses (:func:`pdb_table`) and eviction answers (:func:`responses_table`).

Read-only, like the rest of :mod:`kschedlab.viz`; pod and node names are escaped.

>>> import pandas as pd
>>> frame = pd.DataFrame([{"time": 0.0, "pod": "default/a", "node": "n1", "event": "evicted", "detail": ""},
...                       {"time": 30.0, "pod": "default/a", "node": "", "event": "gone", "detail": ""}])
>>> fig = taint_timeline(frame, until=60)
>>> [t.name for t in fig.data]
['running', 'terminating']
>>> fig.data[1].base, fig.data[1].x
((0.0,), (30.0,))
"""

from __future__ import annotations

from typing import Iterable

import plotly.graph_objects as go

from kschedlab.viz.common import TEMPLATE, esc

__all__ = ["taint_timeline", "drain_attempts", "pdb_table", "responses_table", "CODE_COLORS"]

#: colour of an Eviction API answer by code (Okabe-Ito: told apart with any colour-vision deficiency)
CODE_COLORS = {200: "#0072B2", 429: "#E69F00", 500: "#D55E00", 403: "#CC79A7", 404: "#999999"}
_STATE_COLORS = {"running": "#56B4E9", "terminating": "#fdae6b"}
_MARKERS = {"eviction scheduled": ("triangle-right", "#3182bd"), "eviction cancelled": ("x", "#636363"),
            "untolerated taint": ("diamond", "#D55E00"), "tolerated": ("circle-open", "#0072B2")}


def taint_timeline(frame, *, pods: Iterable[str] | None = None, start: float = 0.0, until: float,
                   title: str = "Pods on tainted nodes over time"):
    """A Gantt chart of a :func:`kschedlab.eviction.taint_manager.replay` frame: for each pod a
    green bar while it runs, an orange one while it terminates (from ``evicted``
    to ``gone``, or to ``until`` for a pod stuck terminating), and a marker for
    each decision of the taint manager.  ``pods`` fixes the rows (default: the
    pods of the frame, in order of appearance)."""
    rows = list(dict.fromkeys(pods if pods is not None else frame["pod"]))
    evicted = {r.pod: float(r.time) for r in frame.itertuples() if r.event == "evicted"}
    gone = {r.pod: float(r.time) for r in frame.itertuples() if r.event == "gone"}
    fig = go.Figure()
    for state in ("running", "terminating"):
        base, width, names = [], [], []
        for pod in rows:
            if state == "running":
                lo, hi = start, evicted.get(pod, gone.get(pod, until))
            else:
                if pod not in evicted:
                    continue
                lo, hi = evicted[pod], gone.get(pod, until)
            base.append(lo)
            width.append(max(hi - lo, 0.0))
            names.append(esc(pod))
        fig.add_bar(name=state, y=names, x=width, base=base, orientation="h",
                    marker_color=_STATE_COLORS[state],
                    hovertemplate="%{y}<br>" + state + " from t=%{base} s for %{x} s<extra></extra>")
    for event, (symbol, color) in _MARKERS.items():
        sel = [r for r in frame.itertuples() if r.event == event and r.pod in rows]
        if not sel:
            continue
        fig.add_scatter(name=event, mode="markers", x=[float(r.time) for r in sel], y=[esc(r.pod) for r in sel],
                        marker={"symbol": symbol, "size": 11, "color": color},
                        text=[esc(r.detail) for r in sel], hovertemplate="%{y}: " + event + " at t=%{x}"
                        "<br>%{text}<extra></extra>")
    # the legend sits between the title and the plot, clear of the time axis and its ticks
    fig.update_layout(template=TEMPLATE, title=title, barmode="overlay", height=170 + 40 * len(rows),
                      margin={"t": 110}, xaxis={"title": "time (s)", "range": [start, until]},
                      yaxis={"title": "pod", "autorange": "reversed", "type": "category"},
                      legend={"orientation": "h", "yanchor": "bottom", "y": 1.02, "xanchor": "left", "x": 0})
    return fig


def drain_attempts(result, *, title: str | None = None):
    """The Eviction API calls of a :class:`~kschedlab.eviction.drain.DrainResult`: one marker per
    attempt, coloured by its answer (200, 429, 500, ...), and a cross when the pod
    is gone."""
    attempts = result.attempts()
    pods = list(dict.fromkeys(e.pod for e in result.timeline if e.pod))
    fig = go.Figure()
    for code in sorted({e.code for e in attempts}):
        sel = [e for e in attempts if e.code == code]
        fig.add_scatter(name=str(code), mode="markers", x=[e.time for e in sel], y=[esc(e.pod) for e in sel],
                        marker={"size": 10, "color": CODE_COLORS.get(code, "#bdbdbd")},
                        text=[esc(e.message or "evicted") for e in sel],
                        hovertemplate="%{y} at t=%{x}: " + str(code) + "<br>%{text}<extra></extra>")
    gone = [e for e in result.timeline if e.action == "gone"]
    if gone:
        fig.add_scatter(name="gone", mode="markers", x=[e.time for e in gone], y=[esc(e.pod) for e in gone],
                        marker={"symbol": "x", "size": 11, "color": "#252525"},
                        hovertemplate="%{y} gone at t=%{x}<extra></extra>")
    end = result.end_time if result.end_time is not None else max((e.time for e in result.timeline), default=0)
    status = "drained" if result.ok else ("failed" if result.finished else "still draining")
    fig.update_layout(template=TEMPLATE, title=title or f"kubectl drain {esc(result.node)}: {status} at t={end:g} s",
                      height=max(320, 140 + 40 * len(pods)), xaxis={"title": "time (s)"},
                      yaxis={"title": "pod", "autorange": "reversed", "type": "category", "categoryorder": "array",
                             "categoryarray": [esc(p) for p in pods]},
                      legend={"title": "answer", "x": 1.02, "y": 1, "yanchor": "top"})  # beside the plot, off the ticks
    return fig


def pdb_table(cluster):
    """The PodDisruptionBudgets of ``cluster`` and their status, as a DataFrame."""
    import pandas as pd

    from kschedlab.eviction.disruption import find_condition

    rows = []
    for pdb in cluster.of_kind("PodDisruptionBudget"):
        st = pdb.status
        cond = find_condition(st.conditions, "DisruptionAllowed")
        rows.append({"budget": pdb.key, "minAvailable": pdb.spec.min_available,
                     "maxUnavailable": pdb.spec.max_unavailable,
                     "unhealthyPodEvictionPolicy": pdb.spec.unhealthy_pod_eviction_policy or "IfHealthyBudget",
                     "currentHealthy": st.current_healthy, "desiredHealthy": st.desired_healthy,
                     "expectedPods": st.expected_pods, "disruptionsAllowed": st.disruptions_allowed,
                     "disruptedPods": ", ".join(sorted(st.disrupted_pods)),
                     "condition": f"{cond.status} ({cond.reason})" if cond else ""})
    return pd.DataFrame(rows, columns=["budget", "minAvailable", "maxUnavailable", "unhealthyPodEvictionPolicy",
                                       "currentHealthy", "desiredHealthy", "expectedPods", "disruptionsAllowed",
                                       "disruptedPods", "condition"])


def responses_table(responses: Iterable):
    """Eviction answers (:class:`~kschedlab.eviction.api_initiated.EvictionResponse`) as a DataFrame."""
    import pandas as pd

    rows = [{"pod": r.pod, "code": r.code, "http": r.http_status, "reason": r.reason, "message": r.message,
             "cause": "; ".join(c.message for c in r.causes), "budget": r.pdb or "", "path": r.path}
            for r in responses]
    return pd.DataFrame(rows, columns=["pod", "code", "http", "reason", "message", "cause", "budget", "path"])
