"""Timelines: pods moving through the scheduling queue, and one attempt through every
extension point.

:func:`queue_timeline` reads a :class:`~kschedlab.sim.engine.SimulationResult`
(its ``moves``: the queue's history) and draws, per pod, where it was over
virtual time: gated, active, backoff, unschedulable, in flight, then running.

:func:`extension_point_steps` turns one :class:`~kschedlab.scheduler.schedule_one.ScheduleResult`
and its trace into a table with one row per (extension point, plugin) of the
profile, in the order the framework runs them, and what each did;
:func:`extension_point_timeline` draws it.

Like the other figures, these only read, escape every user string and set
their template explicitly.

>>> from kschedlab import Cluster, Scheduler
>>> from kschedlab.scenarios import path
>>> scheduler = Scheduler(Cluster.from_manifests(path("default")))
>>> result = scheduler.schedule_one("default/web-0")
>>> steps = extension_point_steps(result, scheduler)
>>> list(steps["point"].unique()) == list(EXTENSION_POINTS)
True
>>> steps[steps["point"] == "Bind"][["plugin", "status"]].values.tolist()
[['DefaultBinder', 'Success']]
"""

from __future__ import annotations

import re
from typing import Iterable

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from kschedlab.framework.status import Code, Status
from kschedlab.viz.common import NOT_RUN_COLOR, PASSED_COLOR, REJECTED_COLOR, TEMPLATE, esc

__all__ = ["queue_timeline", "queue_segments", "extension_point_steps", "extension_point_timeline",
           "metric_steps", "EXTENSION_POINTS", "QUEUE_COLORS", "STATUS_COLORS"]

# -- the queue -----------------------------------------------------------------------------------------
#: a fixed colour per place a pod can be
QUEUE_COLORS = {
    "gated": "#CC79A7",
    "active": "#0072B2",
    "in-flight": "#F0E442",
    "backoff": "#E69F00",
    "unschedulable": "#D55E00",
    "running": "#56B4E9",
}
_QUEUE_ORDER = ("gated", "active", "in-flight", "backoff", "unschedulable", "running")


def _none(v):
    try:
        return None if v is None or pd.isna(v) else v
    except (TypeError, ValueError):
        return v


def queue_segments(result, pods: Iterable[str] | None = None, *, show_running: bool = True) -> pd.DataFrame:
    """The intervals :func:`queue_timeline` draws: ``pod``, ``where``, ``start``, ``end``,
    ``entered_by`` (the event or reason of the move), one row per stay, zero-length stays included.

    ``running`` rows (when ``show_running``) go from ``bound`` to ``finished`` (or the end
    of the run) of the per-pod timeline.
    """
    moves = result.moves
    wanted = None if pods is None else set(pods)
    end = float(result.end_time)
    rows: list[dict] = []
    open_: dict[str, dict] = {}
    for t, pod, _, to, event in zip(moves["time"], moves["pod"], moves["from"], moves["to"], moves["event"]):
        if wanted is not None and pod not in wanted:
            continue
        t = float(t)
        current = open_.pop(pod, None)
        if current is not None:
            current["end"] = t
            rows.append(current)
        to = _none(to)
        if to is not None:
            open_[pod] = {"pod": pod, "where": to, "start": t, "end": end, "entered_by": event}
    rows.extend(open_.values())
    if show_running:
        for rec in result.pods.to_dict("records"):
            if wanted is not None and rec["pod"] not in wanted:
                continue
            bound = _none(rec.get("bound"))
            if bound is None:
                continue
            finished = _none(rec.get("finished"))
            rows.append({"pod": rec["pod"], "where": "running", "start": float(bound),
                         "end": float(finished) if finished is not None else end, "entered_by": "Bound"})
    df = pd.DataFrame(rows, columns=["pod", "where", "start", "end", "entered_by"])
    return df.sort_values(["start", "end"], kind="stable").reset_index(drop=True)


def queue_timeline(result, pods: Iterable[str] | None = None, *, show_running: bool = True,
                   title: str = "Scheduling queue over virtual time") -> go.Figure:
    """Each pod's stays in gated / active / in flight / backoff / unschedulable (and running) over time.

    One horizontal bar trace per place (``base`` = start, ``x`` = duration, ``y`` = pod),
    plus a ``scheduling attempt`` marker trace at every pop (an attempt takes no virtual
    time unless the simulation's ``attempt_duration`` says so), whose colour says how it
    ended: green bound, red back to the queue.  Pods are listed top to bottom in the order
    they were created.

    >>> from kschedlab.api.core import Node, Pod
    >>> from kschedlab.sim import Simulation
    >>> sim = Simulation([Node.model_validate({"metadata": {"name": "n1"},
    ...     "status": {"allocatable": {"cpu": "1", "memory": "1Gi", "pods": "10"}}})])
    >>> sim.create_pod(Pod.model_validate({"metadata": {"name": "p", "namespace": "default"},
    ...     "spec": {"schedulingGates": [{"name": "g"}], "containers": [{"name": "c"}]}}), at=0, duration=5)
    >>> sim.remove_scheduling_gates("default/p", at=3)
    >>> fig = queue_timeline(sim.run(until=20))
    >>> [(t.name, t.base, t.x) for t in fig.data if t.type == "bar"]
    [('gated', (0.0,), (3.0,)), ('active', (3.0,), (0.0,)), ('in-flight', (3.0,), (0.0,)), ('running', (3.0,), (5.0,))]
    """
    segments = queue_segments(result, pods, show_running=show_running)
    order = [p for p in result.pods["pod"] if pods is None or p in set(pods)]
    order += [p for p in dict.fromkeys(segments["pod"]) if p not in order]
    fig = go.Figure()
    for where in _QUEUE_ORDER:
        part = segments[segments["where"] == where]
        if part.empty:
            continue
        durations = (part["end"] - part["start"]).astype(float).tolist()
        fig.add_trace(go.Bar(
            orientation="h", y=[esc(p) for p in part["pod"]], base=part["start"].astype(float).tolist(),
            x=durations, name=where, marker_color=QUEUE_COLORS[where], marker_line_width=0,
            customdata=[[esc(e), float(s), float(t)] for e, s, t in zip(part["entered_by"], part["start"],
                                                                          part["end"])],
            hovertemplate=("%{y}<br>" + where + " from %{customdata[1]:g} s to %{customdata[2]:g} s"
                           "<br>entered by: %{customdata[0]}<extra></extra>")))
    pops = segments[segments["where"] == "in-flight"]
    if not pops.empty:
        after = _attempt_outcomes(result, pods)
        colors, labels = [], []
        for pod, start in zip(pops["pod"], pops["start"]):
            outcome = after.get((pod, float(start)), "")
            colors.append(PASSED_COLOR if outcome == "bound" else (REJECTED_COLOR if outcome else NOT_RUN_COLOR))
            labels.append(outcome or "in flight")
        fig.add_trace(go.Scatter(
            x=pops["start"].astype(float).tolist(), y=[esc(p) for p in pops["pod"]], mode="markers",
            name="scheduling attempt", customdata=labels,
            marker={"symbol": "diamond", "size": 11, "color": colors, "line": {"color": "black", "width": 1}},
            hovertemplate="%{y}<br>attempt at %{x:g} s: %{customdata}<extra></extra>"))
    fig.update_layout(
        template=TEMPLATE, title=esc(title), barmode="overlay", height=200 + 34 * max(len(order), 1),
        margin={"t": 110}, xaxis={"title": "virtual time (s)", "rangemode": "tozero"},
        yaxis={"title": "pod", "categoryorder": "array", "categoryarray": [esc(p) for p in order],
               "autorange": "reversed"},
        # between the title and the plot: clear of the time axis, its ticks and its title
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.02, "xanchor": "left", "x": 0})
    return fig


def _attempt_outcomes(result, pods) -> dict[tuple[str, float], str]:
    """(pod, pop time) -> where the attempt sent the pod ("bound", "unschedulable", ...)."""
    moves = result.moves
    out: dict[tuple[str, float], str] = {}
    popped: dict[str, float] = {}
    for t, pod, src, to, event in zip(moves["time"], moves["pod"], moves["from"], moves["to"], moves["event"]):
        to, src = _none(to), _none(src)
        if to == "in-flight":
            popped[pod] = float(t)
        elif src == "in-flight" and pod in popped:
            start = popped.pop(pod)
            out[(pod, start)] = "bound" if (to is None and event == "Done") else (to or "deleted")
    return out


# -- one attempt, every extension point -------------------------------------------------------------------
#: extension points in the order the framework reaches them (NormalizeScore is the Score
#: plugins' second method; PreEnqueue and QueueSort act before the scheduling cycle)
EXTENSION_POINTS = {
    "PreEnqueue": ("queue", "preEnqueue"),
    "QueueSort": ("queue", "queueSort"),
    "PreFilter": ("scheduling cycle", "preFilter"),
    "Filter": ("scheduling cycle", "filter"),
    "PostFilter": ("scheduling cycle", "postFilter"),
    "PreScore": ("scheduling cycle", "preScore"),
    "Score": ("scheduling cycle", "score"),
    "NormalizeScore": ("scheduling cycle", "score"),
    "Reserve": ("scheduling cycle", "reserve"),
    "Permit": ("scheduling cycle", "permit"),
    "PreBind": ("binding cycle", "preBind"),
    "Bind": ("binding cycle", "bind"),
    "PostBind": ("binding cycle", "postBind"),
}
NOT_RUN = "NotRun"
NO_PLUGINS = "NoPlugins"
#: a fixed colour per step status
STATUS_COLORS = {
    "Success": PASSED_COLOR,
    "Unschedulable": REJECTED_COLOR,
    "UnschedulableAndUnresolvable": "#a50f15",
    "Pending": "#fb6a4a",
    "Error": "#67000d",
    "Wait": "#fdae6b",
    "Skip": "#9ecae1",
    NOT_RUN: NOT_RUN_COLOR,
    NO_PLUGINS: "#f7f7f7",
}


def _framework(result, scheduler):
    profile = result.trace.profile if result.trace is not None else None
    if profile is not None and profile in scheduler.profiles:
        return scheduler.profiles[profile]
    pod = scheduler.cluster.pods.get(result.pod)
    fw = scheduler.framework_for(pod) if pod is not None else None
    return fw or next(iter(scheduler.profiles.values()))


def _chain(plugins: list[str], status: Status | None, detail_ok: str) -> list[tuple[str, str, str]]:
    """Plugins run in order until one fails: those before it passed, it failed, the rest did not run."""
    if status is None:
        return [(p, NOT_RUN, "") for p in plugins]
    if not status.is_success() and not status.plugin:
        # a combined status with no plugin named (Permit's Wait): every plugin of the point shares it
        return [(p, status.code.name, status.message()) for p in plugins]
    out = []
    failed = status.plugin if not status.is_success() else None
    hit = False
    for p in plugins:
        if hit:
            out.append((p, NOT_RUN, "an earlier plugin stopped the point"))
        elif failed is not None and (p == failed or failed not in plugins):
            out.append((p, status.code.name, status.message()))
            hit = True
        else:
            out.append((p, Code.Success.name, detail_ok))
    return out


def extension_point_steps(result, scheduler) -> pd.DataFrame:
    """One row per (extension point, plugin) of the pod's profile, in running order:
    ``cycle`` (queue, scheduling cycle, binding cycle), ``point``, ``plugin``, ``status``
    (a status code name, ``NotRun``, or ``NoPlugins`` for a point the profile leaves empty)
    and ``detail``, all read from ``result.trace`` (``scheduler`` gives the profile's plugin lists).

    PreEnqueue and QueueSort act when the pod enters and leaves the queue, before the
    attempt: a pod that was popped passed every PreEnqueue plugin.  A pod whose attempt
    was refused at PreEnqueue (scheduling gates) has no trace; its PreEnqueue row carries
    the rejecting status and everything after it did not run.
    """
    fw = _framework(result, scheduler)
    trace = result.trace
    gated = trace is None and result.message == "SchedulingGated"
    if trace is None and not gated:
        raise ValueError(f"no trace was kept for {result.pod} (see Scheduler keep_traces)")
    names = {point: [p.name for p in fw.points[key]] for point, (_, key) in EXTENSION_POINTS.items()}
    names["NormalizeScore"] = [p.name for p in fw.points["score"] if callable(getattr(p, "normalize_score", None))]
    steps: dict[str, list[tuple[str, str, str]]] = {}

    if gated:
        steps["PreEnqueue"] = _chain(names["PreEnqueue"], result.status, "")
        for point in list(EXTENSION_POINTS)[1:]:
            steps[point] = [(p, NOT_RUN, "the pod never left the queue") for p in names[point]]
        return _steps_frame(steps, names)

    steps["PreEnqueue"] = [(p, "Success", "let the pod into activeQ") for p in names["PreEnqueue"]]
    steps["QueueSort"] = [(p, "Success", "ordered activeQ; the pod was popped") for p in names["QueueSort"]]

    ran = dict(trace.prefilter)
    steps["PreFilter"] = [(p, ran[p].code.name, ran[p].message()) if p in ran else (p, NOT_RUN, "")
                          for p in names["PreFilter"]]
    skipped_filter = {p for p, st in trace.prefilter if st.is_skip()}
    outcome = trace.filter
    filter_rows = []
    for p in names["Filter"]:
        if p in skipped_filter:
            filter_rows.append((p, "Skip", "PreFilter returned Skip: Filter is not called"))
        elif outcome is None or p not in outcome.plugins:
            why = "no node reached Filter" if outcome is None else ""
            filter_rows.append((p, NOT_RUN, why))
        else:
            i = outcome.plugins.index(p)
            fail = outcome.fail_plugin
            reached = int(((fail < 0) | (fail >= i)).sum())
            rejected = fail == i
            if rejected.any():
                codes = outcome.fail_code[rejected]
                code = Code(int(np.bincount(codes.astype(np.int64)).argmax())).name
                filter_rows.append((p, code, f"rejected {int(rejected.sum())} of {reached} node(s)"))
            else:
                filter_rows.append((p, "Success", f"passed {reached} node(s)"))
    steps["Filter"] = filter_rows

    post = [st for point, _, st in trace.steps if point == "PostFilter"]
    if post:
        steps["PostFilter"] = [(p, post[-1].code.name, post[-1].message()) for p in names["PostFilter"]]
    else:
        steps["PostFilter"] = [(p, NOT_RUN, "runs only when no node is feasible") for p in names["PostFilter"]]

    pre = dict(trace.prescore)
    single = trace.score is None and trace.selected is not None
    why_not = "one feasible node: scoring is skipped" if single else ""
    steps["PreScore"] = [(p, pre[p].code.name, pre[p].message()) if p in pre else (p, NOT_RUN, why_not)
                         for p in names["PreScore"]]
    sc = trace.score
    score_rows, norm_rows = [], []
    for p in names["Score"]:
        if sc is not None and p in sc.plugins:
            i = sc.plugins.index(p)
            raw, norm = sc.raw[i], sc.normalized[i]
            score_rows.append((p, "Success", f"raw {int(raw.min())}..{int(raw.max())} on {len(raw)} node(s), "
                                              f"weight {int(sc.weights[i])}"))
            if p in names["NormalizeScore"]:
                norm_rows.append((p, "Success", f"raw {int(raw.min())}..{int(raw.max())} -> "
                                                f"{int(norm.min())}..{int(norm.max())}"))
        elif p in pre and pre[p].is_skip():
            score_rows.append((p, "Skip", "PreScore returned Skip"))
            if p in names["NormalizeScore"]:
                norm_rows.append((p, "Skip", "PreScore returned Skip"))
        else:
            score_rows.append((p, NOT_RUN, why_not))
            if p in names["NormalizeScore"]:
                norm_rows.append((p, NOT_RUN, why_not))
    steps["Score"], steps["NormalizeScore"] = score_rows, norm_rows

    failure = _error_point(result)
    if failure is not None:  # the framework stopped the cycle with an error at this (point, plugin)
        point, plugin = failure
        rows_ = steps.get(point, [])
        if any(p == plugin for p, _, _ in rows_):
            marked, hit = [], False
            for p, status, detail in rows_:
                if p == plugin:
                    marked.append((p, "Error", result.status.message()))
                    hit = True
                elif not hit and status == NOT_RUN:
                    marked.append((p, "Success", "ran before the error"))
                else:
                    marked.append((p, status, detail))
            steps[point] = marked
            if point == "Score":  # each Score plugin's NormalizeScore runs right after its Score
                before = {p for p, st, _ in marked if st == "Success"}
                steps["NormalizeScore"] = [(p, "Success", "ran before the error") if p in before and st == NOT_RUN
                                           else (p, st, d) for p, st, d in steps["NormalizeScore"]]
    by_point = {point: st for point, _, st in trace.steps}
    selected = f"on {trace.selected}" if trace.selected else ""
    for point in ("Reserve", "Permit", "PreBind"):
        steps[point] = _chain(names[point], by_point.get(point), selected)
    bind = by_point.get("Bind")
    if bind is not None and bind.is_success():
        # the first plugin that does not Skip binds the pod; the others are not called
        steps["Bind"] = [(p, "Success", f"bound to {result.node}") if i == 0 else (p, NOT_RUN, "")
                         for i, p in enumerate(names["Bind"])]
    else:
        steps["Bind"] = _chain(names["Bind"], bind, "")
    steps["PostBind"] = [(p, "Success" if result.node else NOT_RUN, "informational") for p in names["PostBind"]]
    return _steps_frame(steps, names)


_ERROR_PATTERNS = (
    (re.compile(r'running "([^"]+)" filter plugin'), "Filter"),
    (re.compile(r'running PreScore plugin "([^"]+)"'), "PreScore"),
    (re.compile(r'running Score plugins: plugin "([^"]+)"'), "Score"),
    (re.compile(r'running Normalize on Score plugins: plugin "([^"]+)"'), "NormalizeScore"),
    (re.compile(r'applying score defaultWeights on Score plugins: plugin "([^"]+)"'), "Score"),
)


def _error_point(result) -> tuple[str, str] | None:
    """(extension point, plugin) named by a framework error of the scheduling cycle, if any."""
    if result.status.code != Code.Error:
        return None
    message = result.status.message()
    for pattern, point in _ERROR_PATTERNS:
        m = pattern.search(message)
        if m:
            return point, m.group(1)
    return None


def _steps_frame(steps: dict[str, list[tuple[str, str, str]]], names) -> pd.DataFrame:
    rows = []
    for point, (cycle, _) in EXTENSION_POINTS.items():
        entries = steps.get(point) or []
        if not entries:
            rows.append({"cycle": cycle, "point": point, "plugin": "", "status": NO_PLUGINS,
                         "detail": "no plugin of this profile extends this point"})
        for plugin, status, detail in entries:
            rows.append({"cycle": cycle, "point": point, "plugin": plugin, "status": status, "detail": detail})
    return pd.DataFrame(rows, columns=["cycle", "point", "plugin", "status", "detail"])


def extension_point_timeline(result, scheduler, *, title: str | None = None) -> go.Figure:
    """Every extension point of one attempt on one timeline.

    One row per (point, plugin) of :func:`extension_point_steps`, top to bottom in
    running order; each step is a bar one slot wide, coloured by its status
    (one bar trace per status, so the legend explains the colours), with the queue,
    the scheduling cycle and the binding cycle shaded behind.

    >>> from kschedlab import Cluster, Scheduler
    >>> from kschedlab.scenarios import path
    >>> scheduler = Scheduler(Cluster.from_manifests(path("default")))
    >>> fig = extension_point_timeline(scheduler.schedule_one("default/big-0"), scheduler)
    >>> [t.name for t in fig.data]
    ['Success', 'Unschedulable', 'UnschedulableAndUnresolvable', 'Skip', 'NotRun', 'NoPlugins']
    """
    steps = extension_point_steps(result, scheduler)
    where = f"→ {result.node}" if result.node else "→ not scheduled"
    title = title or esc(f"Extension points of one attempt: {result.pod} {where}")
    labels = [esc(f"{pt} · {pl}" if pl else f"{pt} · (none)") for pt, pl in zip(steps["point"], steps["plugin"])]
    steps = steps.assign(label=labels, slot=np.arange(len(steps)))
    fig = go.Figure()
    seen = list(dict.fromkeys(steps["status"]))
    order = [s for s in STATUS_COLORS if s in seen] + [s for s in seen if s not in STATUS_COLORS]
    for status in order:
        part = steps[steps["status"] == status]
        fig.add_trace(go.Bar(
            orientation="h", y=part["label"].tolist(), base=part["slot"].astype(int).tolist(),
            x=[1] * len(part), name=esc(status), marker_color=STATUS_COLORS.get(status, "#636363"),
            marker_line={"color": "white", "width": 1},
            customdata=[[esc(c), esc(d)] for c, d in zip(part["cycle"], part["detail"])],
            hovertemplate="%{y}<br>" + esc(status) + "<br>%{customdata[1]}<extra>%{customdata[0]}</extra>"))
    for cycle, color in (("queue", "#f0f0f0"), ("scheduling cycle", "#deebf7"), ("binding cycle", "#fee6ce")):
        slots = steps.loc[steps["cycle"] == cycle, "slot"]
        if slots.empty:
            continue
        x0, x1 = int(slots.min()), int(slots.max()) + 1
        fig.add_shape(type="rect", xref="x", yref="paper", x0=x0, x1=x1, y0=0, y1=1, fillcolor=color,
                      line={"width": 0}, layer="below")
        fig.add_annotation(text=f"<b>{cycle}</b>", x=(x0 + x1) / 2, y=1.0, xref="x", yref="paper",
                           yanchor="bottom", showarrow=False, font={"size": 12})
    fig.update_layout(
        template=TEMPLATE, title={"text": title, "y": 0.99, "yanchor": "top"}, barmode="overlay",
        height=180 + 22 * len(steps), margin={"l": 330, "t": 110},
        xaxis={"title": "order in which the framework calls the plugins", "showticklabels": False,
               "range": [0, len(steps)]},
        yaxis={"categoryorder": "array", "categoryarray": labels, "autorange": "reversed", "title": ""},
        legend={"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 1, "xanchor": "right"})
    return fig


# -- metric series --------------------------------------------------------------------------------------------
def metric_steps(frame: pd.DataFrame, *, title: str = "", yaxis_title: str = "pods",
                 colors: dict | None = None) -> go.Figure:
    """A step plot of a metric frame indexed by time (one line per column), e.g.
    :func:`kschedlab.sim.metrics.pending_pods` or ``schedule_attempts_total``: each value
    holds until the next row (``line_shape="hv"``).

    >>> import pandas as pd
    >>> df = pd.DataFrame({"gated": [1, 0]}, index=pd.Index([0.0, 20.0], name="time"))
    >>> fig = metric_steps(df, title="scheduler_pending_pods")
    >>> fig.data[0].name, fig.data[0].x, fig.data[0].y, fig.data[0].line.shape
    ('gated', (0.0, 20.0), (1, 0), 'hv')
    """
    colors = {**QUEUE_COLORS, "scheduled": PASSED_COLOR, "error": "#67000d", **(colors or {})}
    if "unschedulable" in frame.columns and "scheduled" in frame.columns:
        colors["unschedulable"] = REJECTED_COLOR
    fig = go.Figure()
    for column in frame.columns:
        fig.add_trace(go.Scatter(
            x=[float(t) for t in frame.index], y=[int(v) for v in frame[column]], name=esc(column),
            mode="lines", line={"shape": "hv", "color": colors.get(column), "width": 2},
            hovertemplate="%{x:g} s: %{y}<extra>" + esc(column) + "</extra>"))
    top = int(frame.to_numpy().max()) if frame.size else 0
    yaxis = {"title": esc(yaxis_title), "rangemode": "tozero", **({"dtick": 1} if top <= 10 else {})}
    fig.update_layout(template=TEMPLATE, title=esc(title), height=320,
                      xaxis={"title": "virtual time (s)", "rangemode": "tozero"}, yaxis=yaxis)
    return fig
