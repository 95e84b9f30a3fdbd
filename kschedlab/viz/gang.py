"""Gang scheduling on a virtual clock: two training jobs, one cluster that fits one of them.

The story of the PodGroup docs (seed ``podgroup-scheduling-cycle``): jobs are submitted
together, each as a PodGroup with a ``gang`` policy and worker pods that name it in
``spec.schedulingGroup.podGroupName``; the cluster has room for one job.  Three ways of
scheduling them (:data:`MODES`):

``plain``
    GenericWorkload off: pod-by-pod scheduling that knows nothing about groups;
``permit``
    GenericWorkload on, pod by pod, GangScheduling holding each assumed pod at Permit until
    ``minCount`` pods of its group are scheduled (the alpha path, seed section 9: a fixed
    5-minute timeout, then back to the queue);
``cycle``
    the PodGroup scheduling cycle: a whole group at once, atomically.

:func:`run_gang_story` runs one of them and records what the scheduler did over time:
when a pod was held at Permit and on which node (each recorded
:class:`~kschedlab.scheduler.schedule_one.ScheduleResult` is stamped with the virtual time), when it was
bound, and the PodGroups' ``status.conditions``.  A training job is modelled as such
jobs behave: its workers synchronise, so a bound worker idles until ``minCount`` workers of its
job are running; from then on each worker works ``work`` seconds and exits.

:func:`gang_timeline` animates the node slots over time, :func:`gang_counts` counts what
each job has at an instant, :func:`pod_group_conditions` lists the conditions and
:func:`min_count_sweep` re-runs the story for several ``minCount`` values.  Runs build
their own Simulation from :func:`story_manifests`; figures only read a run.

>>> run = run_gang_story("cycle", until=300)
>>> gang_counts(run, at=0)[["held", "waiting for peers", "working", "pending"]].to_dict("index")
{'job-a': {'held': 0, 'waiting for peers': 0, 'working': 4, 'pending': 0}, 'job-b': {'held': 0, 'waiting for peers': 0, 'working': 0, 'pending': 4}}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

import pandas as pd
import plotly.graph_objects as go

from kschedlab.viz.common import TEMPLATE, esc

__all__ = [
    "JOBS", "MODES", "STATES", "GangRun", "story_manifests", "story_yaml", "run_gang_story", "gang_counts",
    "gang_timeline", "pod_group_conditions", "min_count_sweep", "runs_summary", "sweep_figure",
]

#: the two jobs of the story (PodGroup names)
JOBS = ("job-a", "job-b")
#: the scheduling modes :func:`run_gang_story` knows, with a short label
MODES = {
    "plain": "pod by pod, no gang (GenericWorkload off)",
    "permit": "GangScheduling at Permit (alpha path)",
    "cycle": "PodGroup scheduling cycle",
}
#: what a pod can be doing on a node slot, in drawing order
STATES = ("held at Permit", "waiting for peers", "working")
_JOB_COLORS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#882255", "#332288")
_NAMESPACE = "ml"


def _job_color(index: int) -> str:
    return _JOB_COLORS[index % len(_JOB_COLORS)]


def _lighter(color: str, amount: float) -> str:
    """``color`` (#rrggbb) mixed with white: 0 = unchanged, 1 = white."""
    r, g, b = (int(color[i:i + 2], 16) for i in (1, 3, 5))
    mix = [round(c + (255 - c) * amount) for c in (r, g, b)]
    return "#" + "".join(f"{c:02x}" for c in mix)


# -- the objects ------------------------------------------------------------------------------------
def story_manifests(min_count: int = 4, *, jobs: Iterable[str] = JOBS, workers: int = 4, nodes: int = 4,
                    node_cpu: str = "2", worker_cpu: str = "2", namespace: str = _NAMESPACE) -> list[dict]:
    """The story's objects as manifests: ``nodes`` Nodes with ``node_cpu`` CPU, one PodGroup per
    job with ``schedulingPolicy.gang.minCount: min_count``, and ``workers`` worker Pods per job
    requesting ``worker_cpu`` CPU, listed interleaved (``job-a-0``, ``job-b-0``, ``job-a-1``, ...)
    as two jobs submitted at the same moment reach the API server.

    >>> docs = story_manifests(3)
    >>> [d["kind"] for d in docs].count("Pod"), docs[4]["spec"]["schedulingPolicy"]
    (8, {'gang': {'minCount': 3}})
    >>> [d["metadata"]["name"] for d in docs if d["kind"] == "Pod"][:3]
    ['job-a-0', 'job-b-0', 'job-a-1']
    """
    jobs = list(jobs)
    out: list[dict] = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"node-{i}"},
                        "status": {"allocatable": {"cpu": node_cpu, "memory": "16Gi", "pods": "110"}}}
                       for i in range(nodes)]
    out += [{"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
             "metadata": {"name": job, "namespace": namespace},
             "spec": {"schedulingPolicy": {"gang": {"minCount": int(min_count)}}}} for job in jobs]
    for i in range(workers):
        for job in jobs:
            out.append({"apiVersion": "v1", "kind": "Pod",
                        "metadata": {"name": f"{job}-{i}", "namespace": namespace, "labels": {"job": job}},
                        "spec": {"schedulingGroup": {"podGroupName": job},
                                 "containers": [{"name": "ml-worker", "image": "training:v1",
                                                 "resources": {"requests": {"cpu": worker_cpu}}}]}})
    return out


def story_yaml(min_count: int = 4, *, job: str = "job-a", worker: int = 0, **story) -> str:
    """The YAML a user applies for one job: its PodGroup and one of its worker Pods
    (the others differ only in their name).

    >>> print(story_yaml(4).split("---")[0].strip())
    apiVersion: scheduling.k8s.io/v1beta1
    kind: PodGroup
    metadata:
      name: job-a
      namespace: ml
    spec:
      schedulingPolicy:
        gang:
          minCount: 4
    """
    from kschedlab.viz.calc import to_yaml

    docs = story_manifests(min_count, **story)
    group = next(d for d in docs if d["kind"] == "PodGroup" and d["metadata"]["name"] == job)
    pod = next(d for d in docs if d["kind"] == "Pod" and d["metadata"]["name"] == f"{job}-{worker}")
    return to_yaml(group) + "---\n" + to_yaml(pod)


# -- recording a run ------------------------------------------------------------------------------------
class _TimedResults:
    """A ``Scheduler.on_result`` listener noting the virtual time of each result, the node of a
    pod held at Permit (its trace's selected node) and each PodGroup condition seen."""

    def __init__(self, sim, groups: list):
        self.sim = sim
        self.groups = groups
        self.log: list[dict] = []
        self.conditions: dict[tuple, dict] = {}

    def __call__(self, result) -> None:
        self.observe_conditions()
        code = result.status.code.name
        node = result.node or (result.trace.selected if result.trace is not None else None)
        self.log.append({"time": float(self.sim.now), "pod": result.pod, "status": code,
                         "plugin": result.status.plugin or "", "node": node, "message": result.message})

    def observe_conditions(self) -> None:
        for pg in self.groups:
            for c in pg.status.conditions:
                since = c.last_transition_time.timestamp() if c.last_transition_time is not None else None
                key = (pg.metadata.name, c.type, c.status, c.reason, c.message or "", since)
                self.conditions.setdefault(key, {
                    "podgroup": pg.metadata.name, "type": c.type, "status": c.status, "reason": c.reason,
                    "message": c.message or "", "since": since})


class _Jobs:
    """The training jobs: a bound worker idles until ``need`` workers of its job are bound,
    then every worker works ``work`` seconds and its pod is deleted."""

    def __init__(self, sim, job_of: dict[str, str], need: dict[str, int], work: float):
        self.sim, self.job_of, self.need, self.work = sim, job_of, need, work
        self.bound: dict[str, tuple[float, str]] = {}
        self.started: dict[str, float] = {}
        self.finished: dict[str, float] = {}

    def __call__(self, key: str, node: str) -> None:
        job = self.job_of.get(key)
        if job is None:
            return
        now = float(self.sim.now)
        self.bound[key] = (now, node)
        if job not in self.started:
            members = [k for k, j in self.job_of.items() if j == job and k in self.bound]
            if len(members) < self.need[job]:
                return
            self.started[job] = now
            for k in members:
                self._finish(k, now + self.work)
        else:
            self._finish(key, now + self.work)

    def _finish(self, key: str, at: float) -> None:
        self.finished[key] = at
        self.sim.delete_pod(key, at=at)


@dataclass
class GangRun:
    """One run of the story.

    ``pods``: one row per worker (``pod``, ``job``, ``node``, ``bound``, ``started``: when it
    began working, ``finished``, ``attempts``); ``intervals``: what occupied each node slot
    (``pod``, ``job``, ``node``, ``slot``, ``state`` one of :data:`STATES`, ``start``, ``end``);
    ``attempts``: every recorded scheduling result with its virtual ``time``;
    ``conditions``: every PodGroup condition state seen, ``since`` its lastTransitionTime in
    virtual seconds; ``job_started``: job -> when ``minCount`` of its workers were running.
    """

    mode: str
    min_count: int
    until: float
    work: float
    sim: Any
    result: Any
    pods: pd.DataFrame
    intervals: pd.DataFrame
    attempts: pd.DataFrame
    conditions: pd.DataFrame
    job_started: dict[str, float] = field(default_factory=dict)
    jobs: tuple[str, ...] = JOBS

    @property
    def label(self) -> str:
        return MODES.get(self.mode, self.mode)

    def __repr__(self) -> str:
        counts = gang_counts(self, at=0)
        parts = ", ".join(f"{job} {int(r['waiting for peers'] + r['working'])} bound / {int(r['held'])} held"
                          for job, r in counts.iterrows())
        return f"GangRun({self.mode!r}, minCount={self.min_count}) at t=0: {parts}"


def _key(namespace: str, name: str) -> str:
    return f"{namespace}/{name}"


def run_gang_story(mode: str = "permit", min_count: int = 4, *, until: float = 700.0, work: float = 100.0,
                   seed: int = 0, **story) -> GangRun:
    """Run the story in ``mode`` (a key of :data:`MODES`) up to ``until`` virtual seconds.

    Every worker is created at t=0, in the interleaved order of :func:`story_manifests`
    (``story`` passes its other arguments); a job starts once ``min_count`` of its workers
    are bound, and each worker then works ``work`` seconds.

    >>> run = run_gang_story("permit", until=400)
    >>> run
    GangRun('permit', minCount=4) at t=0: job-a 0 bound / 2 held, job-b 0 bound / 2 held
    >>> held = run.intervals[run.intervals["state"] == "held at Permit"]
    >>> sorted(set(held["end"] - held["start"]))
    [100.0, 300.0]
    """
    from kschedlab.api.loader import load_objects
    from kschedlab.sim.engine import Simulation

    if mode not in MODES:
        raise ValueError(f"mode must be one of {sorted(MODES)}, not {mode!r}")
    docs = story_manifests(min_count, **story)
    objects = load_objects([d for d in docs if d["kind"] != "Pod"])
    pods = load_objects([d for d in docs if d["kind"] == "Pod"])
    sim = Simulation(objects, gates={"GenericWorkload": mode != "plain"}, pod_group_cycle=mode == "cycle",
                     seed=seed)
    groups = [o for o in objects if o.kind == "PodGroup"]
    jobs = tuple(g.metadata.name for g in groups)
    job_of = {_key(p.metadata.namespace, p.metadata.name): p.spec.scheduling_group.pod_group_name for p in pods}
    need = {g.metadata.name: int(g.spec.scheduling_policy.gang.min_count) for g in groups}
    recorder = _TimedResults(sim, groups)
    sim.scheduler.on_result.append(recorder)
    tracker = _Jobs(sim, job_of, need, float(work))
    sim.scheduler.on_bound.append(tracker)
    for p in pods:
        sim.create_pod(p, at=0.0, duration=None)
    result = sim.run(until=until)
    recorder.observe_conditions()
    end = float(result.end_time)

    attempts = pd.DataFrame(recorder.log, columns=["time", "pod", "status", "plugin", "node", "message"])
    table = result.pods.set_index("pod")
    rows = []
    for key, job in job_of.items():
        bound = tracker.bound.get(key)
        started = None
        if bound is not None and job in tracker.started:
            started = max(bound[0], tracker.started[job])
        finished = tracker.finished.get(key)
        if finished is not None and finished > end:  # still working when the run stopped
            finished = None
        rows.append({"pod": key, "job": job, "node": bound[1] if bound else None,
                     "bound": bound[0] if bound else None, "started": started, "finished": finished,
                     "attempts": int(table.loc[key, "attempts"]) if key in table.index else 0})
    pods_df = pd.DataFrame(rows, columns=["pod", "job", "node", "bound", "started", "finished", "attempts"])
    intervals = _intervals(attempts, pods_df, job_of, end)
    conditions = pd.DataFrame(list(recorder.conditions.values()),
                              columns=["podgroup", "type", "status", "reason", "message", "since"])
    conditions = conditions.sort_values(["podgroup", "since"], kind="stable").reset_index(drop=True)
    return GangRun(mode, int(min_count), float(until), float(work), sim, result, pods_df, intervals, attempts,
                   conditions, dict(tracker.started), jobs)


def _intervals(attempts: pd.DataFrame, pods: pd.DataFrame, job_of: dict[str, str], end: float) -> pd.DataFrame:
    """Node-slot occupation: Permit holds from the stamped results, then bound time split into
    waiting for peers and working; each node's intervals get the lowest free slot."""
    rows: list[dict] = []
    open_: dict[str, dict] = {}
    for rec in attempts.to_dict("records"):
        current = open_.pop(rec["pod"], None)
        if current is not None:
            current["end"] = rec["time"]
            rows.append(current)
        if rec["status"] == "Wait" and rec["node"]:
            open_[rec["pod"]] = {"pod": rec["pod"], "job": job_of.get(rec["pod"], ""), "node": rec["node"],
                                 "state": STATES[0], "start": rec["time"], "end": end}
    rows.extend(open_.values())
    for rec in pods.to_dict("records"):
        if rec["bound"] is None or pd.isna(rec["bound"]):
            continue
        stop = end if rec["finished"] is None or pd.isna(rec["finished"]) else rec["finished"]
        started = rec["started"] if rec["started"] is not None and not pd.isna(rec["started"]) else stop
        base = {"pod": rec["pod"], "job": rec["job"], "node": rec["node"]}
        if started > rec["bound"]:
            rows.append({**base, "state": STATES[1], "start": rec["bound"], "end": started})
        if started < stop:
            rows.append({**base, "state": STATES[2], "start": started, "end": stop})
    df = pd.DataFrame(rows, columns=["pod", "job", "node", "state", "start", "end"])
    df = df.sort_values(["node", "start", "end", "pod"], kind="stable").reset_index(drop=True)
    slots: list[int] = []
    free_at: dict[str, list[float]] = {}
    for node, start, stop in zip(df["node"], df["start"], df["end"]):
        ends = free_at.setdefault(node, [])
        slot = next((i for i, e in enumerate(ends) if e <= start), len(ends))
        if stop > start:  # a zero-length stay (held and let go at once) takes no slot
            if slot == len(ends):
                ends.append(stop)
            else:
                ends[slot] = stop
        slots.append(slot)
    df.insert(3, "slot", slots)
    df[["start", "end"]] = df[["start", "end"]].astype(float)
    return df.sort_values(["start", "node", "slot"], kind="stable").reset_index(drop=True)


# -- reading a run -------------------------------------------------------------------------------------
def gang_counts(run: GangRun, at: float = 0.0) -> pd.DataFrame:
    """Per job, its workers at virtual time ``at`` (after everything that happened at ``at``):
    ``held`` at Permit, bound and ``waiting for peers``, ``working``, ``done``, ``pending``
    (none of these), and whether the job had ``started``.

    >>> gang_counts(run_gang_story("plain", until=300), at=0).to_dict("index")["job-a"]
    {'held': 0, 'waiting for peers': 2, 'working': 0, 'done': 0, 'pending': 2, 'started': False}
    """
    at = float(at)
    iv = run.intervals
    still_open = iv["end"] >= float(run.result.end_time)  # still going when the run stopped
    now = iv[(iv["start"] <= at) & ((iv["end"] > at) | still_open)]
    rows = {}
    for job in run.jobs:
        mine = run.pods[run.pods["job"] == job]
        here = now[now["job"] == job]
        done = int(sum(1 for f in mine["finished"] if f is not None and not pd.isna(f) and f <= at))
        counts = {state: int((here["state"] == state).sum()) for state in STATES}
        row = {"held": counts[STATES[0]], "waiting for peers": counts[STATES[1]], "working": counts[STATES[2]],
               "done": done}
        row["pending"] = len(mine) - sum(row.values())
        started = run.job_started.get(job)
        row["started"] = started is not None and started <= at
        rows[job] = row
    return pd.DataFrame.from_dict(rows, orient="index")


def pod_group_conditions(run: GangRun) -> pd.DataFrame:
    """Every state the PodGroups' ``PodGroupInitiallyScheduled`` condition went through, with
    ``since`` (its lastTransitionTime, in virtual seconds).  Only the PodGroup cycle writes the
    condition: the other modes give an empty table.

    >>> pod_group_conditions(run_gang_story("cycle", until=300))[["podgroup", "status", "reason", "since"]]
      podgroup status         reason  since
    0    job-a   True      Scheduled    0.0
    1    job-b  False  Unschedulable    0.0
    2    job-b   True      Scheduled  100.0
    """
    return run.conditions.copy()


# -- figures -------------------------------------------------------------------------------------------
def _rows(runs: list[GangRun]) -> list[tuple[str, int]]:
    """(node, slot) rows shared by every panel: all nodes, as many slots as any run used."""
    nodes = sorted(n.name for n in runs[0].sim.cluster.nodes.values())
    slots = {n: 1 for n in nodes}
    for run in runs:
        for node, slot in zip(run.intervals["node"], run.intervals["slot"]):
            slots[node] = max(slots.get(node, 1), int(slot) + 1)
    return [(n, s) for n in sorted(slots) for s in range(slots[n])]


def _row_label(node: str, slot: int, slots: int) -> str:
    return node if slots == 1 else f"{node} #{slot + 1}"


def _status_line(run: GangRun, at: float) -> str:
    counts = gang_counts(run, at)
    parts = []
    for job, r in counts.iterrows():
        bits = [f"{int(r[k])} {k}" for k in ("working", "waiting for peers", "held", "done") if r[k]]
        parts.append(f"{job}: " + (", ".join(bits) or "nothing"))
    return " · ".join(parts)


def gang_timeline(runs, *, step: float = 10.0, until: float | None = None,
                  title: str = "Node slots over virtual time") -> go.Figure:
    """An animated timeline of the node slots, one panel per run side by side: a bar per
    interval of :attr:`GangRun.intervals`, coloured by job; hatched and pale while held at
    Permit, pale while bound but waiting for peers, solid while working.  Each frame (every
    ``step`` seconds up to ``until``, by default the longest run) shows the intervals up to its
    time, a cursor line and, in each panel's title, what each job has at that time.  The
    figure opens on the last frame; Play replays it from t=0.

    ``runs``: one :class:`GangRun`, a list of them or a mapping of panel title -> run.

    >>> fig = gang_timeline(run_gang_story("cycle", until=300), step=100)
    >>> [f.name for f in fig.frames], fig.layout.annotations[0].text
    (['0', '100', '200', '300'], 'PodGroup scheduling cycle<br><sub>t=300 s · job-a: 4 done · job-b: 4 done</sub>')
    """
    from plotly.subplots import make_subplots

    if isinstance(runs, GangRun):
        runs = {runs.label: runs}
    elif not isinstance(runs, Mapping):
        runs = {r.label: r for r in runs}
    titles, runs = list(runs), list(runs.values())
    until = float(until if until is not None else max(r.until for r in runs))
    times = []
    t = 0.0
    while t < until - 1e-9:
        times.append(round(t, 6))
        t += step
    times.append(until)

    rows = _rows(runs)
    count = {}
    for node, _ in rows:
        count[node] = count.get(node, 0) + 1
    ypos = {row: i for i, row in enumerate(rows)}
    ticktext = [esc(_row_label(n, s, count[n])) for n, s in rows]
    jobs = list(dict.fromkeys(j for r in runs for j in r.jobs))

    fig = make_subplots(rows=1, cols=len(runs), shared_yaxes=True, horizontal_spacing=0.04,
                        subplot_titles=[esc(t) for t in titles])
    styles = {}
    for j, job in enumerate(jobs):
        color = _job_color(j)
        styles[(job, STATES[0])] = {"color": _lighter(color, 0.7),
                                    "pattern": {"shape": "/", "fgcolor": color, "solidity": 0.35},
                                    "line": {"color": color, "width": 1}}
        styles[(job, STATES[1])] = {"color": _lighter(color, 0.6), "line": {"color": color, "width": 1}}
        styles[(job, STATES[2])] = {"color": color, "line": {"color": color, "width": 1}}

    parts = []  # (panel, job, state, intervals): only what some panel has
    for c, run in enumerate(runs, start=1):
        for job in jobs:
            for state in STATES:
                iv = run.intervals
                part = iv[(iv["job"] == job) & (iv["state"] == state) & (iv["end"] > iv["start"])]
                if not part.empty:
                    parts.append((c, job, state, part))

    def widths(part, at: float) -> list[float]:
        return [min(e, at) - s if s <= at else None for s, e in zip(part["start"].tolist(), part["end"].tolist())]

    seen = set()
    for c, job, state, part in parts:
        fig.add_trace(go.Bar(
            orientation="h", base=part["start"].tolist(), x=widths(part, until),
            y=[ypos[(n, int(s))] for n, s in zip(part["node"], part["slot"])],
            customdata=[[esc(p), float(s), float(e)] for p, s, e in zip(part["pod"], part["start"], part["end"])],
            hovertemplate=("%{customdata[0]}<br>" + esc(state) +
                           " from %{customdata[1]:g} s to %{customdata[2]:g} s<extra></extra>"),
            name=f"{esc(job)}: {esc(state)}", legendgroup=f"{job}/{state}", showlegend=(job, state) not in seen,
            width=0.8, marker=styles[(job, state)]), row=1, col=c)
        seen.add((job, state))
    for c in range(1, len(runs) + 1):
        fig.add_trace(go.Scatter(x=[until, until], y=[-0.5, len(rows) - 0.5], mode="lines", showlegend=False,
                                 name="now", line={"color": "#444", "width": 1, "dash": "dot"}, hoverinfo="skip"),
                      row=1, col=c)

    def frame_data(at: float) -> list:
        """Only what changes: the bars' widths and the cursors."""
        return ([go.Bar(x=widths(part, at)) for _, _, _, part in parts]
                + [go.Scatter(x=[at, at]) for _ in runs])

    def titles_at(at: float) -> list[dict]:
        return [{**ann.to_plotly_json(), "text": f"{esc(title_)}<br><sub>t={at:g} s · "
                                                  f"{esc(_status_line(run, at))}</sub>"}
                for ann, title_, run in zip(fig.layout.annotations[:len(runs)], titles, runs)]

    fig.update_layout(annotations=titles_at(until))
    fig.frames = [go.Frame(name=f"{t:g}", data=frame_data(t), layout={"annotations": titles_at(t)})
                  for t in times]
    play = {"frame": {"duration": 150, "redraw": True}, "transition": {"duration": 0}, "fromcurrent": False,
            "mode": "immediate"}
    fig.update_layout(
        template=TEMPLATE, title=esc(title), barmode="overlay", height=330 + 40 * len(rows),
        margin={"t": 150, "b": 150}, legend={"orientation": "h", "x": 0, "y": 0, "yanchor": "bottom",
                                             "yref": "container"},
        yaxis={"tickvals": list(range(len(rows))), "ticktext": ticktext, "autorange": "reversed",
               "title": "node"},
        updatemenus=[{"type": "buttons", "direction": "left", "showactive": False, "x": 0, "xanchor": "left",
                      "y": -0.28, "yanchor": "top", "pad": {"t": 0, "r": 10},
                      "buttons": [{"label": "Play", "method": "animate", "args": [None, play]},
                                  {"label": "Pause", "method": "animate",
                                   "args": [[None], {"frame": {"duration": 0, "redraw": False},
                                                     "mode": "immediate"}]}]}],
        sliders=[{"active": len(times) - 1, "x": 0.16, "xanchor": "left", "y": -0.22, "yanchor": "top",
                  "len": 0.84, "pad": {"t": 0},
                  "currentvalue": {"prefix": "t = ", "suffix": " s", "xanchor": "right"},
                  "steps": [{"label": f"{t:g}", "method": "animate",
                             "args": [[f"{t:g}"], {"frame": {"duration": 0, "redraw": True}, "mode": "immediate",
                                                   "transition": {"duration": 0}}]} for t in times]}])
    for c in range(1, len(runs) + 1):
        fig.update_xaxes(range=[0, until], title_text="virtual time (s)", row=1, col=c)
    return fig


# -- minCount -------------------------------------------------------------------------------------------
def min_count_sweep(min_counts: Iterable[int] = (1, 2, 3, 4), modes: Iterable[str] = ("plain", "permit", "cycle"),
                    *, at: float = 0.0, until: float = 700.0, **kw) -> pd.DataFrame:
    """Re-run the story for each ``minCount`` and mode: per job, the workers bound (``running``)
    and ``held`` at Permit at time ``at``, when the job started (NaN: not by ``until``), and
    when the last worker finished.

    >>> sweep = min_count_sweep((2, 4), ("permit", "cycle"), until=400)
    >>> print(sweep[["mode", "minCount", "job-a running", "job-b running"]].to_string(index=False))
      mode  minCount  job-a running  job-b running
    permit         2              2              2
     cycle         2              4              0
    permit         4              0              0
     cycle         4              4              0
    """
    return runs_summary([run_gang_story(mode, m, until=until, **kw) for m in min_counts for mode in modes], at=at)


def runs_summary(runs: Iterable[GangRun], *, at: float = 0.0) -> pd.DataFrame:
    """One row per run (the columns of :func:`min_count_sweep`).

    >>> runs_summary([run_gang_story("plain", 2, until=300)])[["job-a running", "job-a started", "all done at"]]
       job-a running  job-a started  all done at
    0              2            0.0        200.0
    """
    rows = []
    for run in runs:
        counts = gang_counts(run, at)
        row: dict[str, Any] = {"mode": run.mode, "minCount": run.min_count}
        for job, r in counts.iterrows():
            row[f"{job} running"] = int(r["waiting for peers"] + r["working"])
            row[f"{job} held"] = int(r["held"])
        for job in run.jobs:
            row[f"{job} started"] = run.job_started.get(job, float("nan"))
        finished = run.pods["finished"]
        row["all done at"] = float(finished.max()) if finished.notna().all() else float("nan")
        rows.append(row)
    return pd.DataFrame(rows)


def sweep_figure(sweep: pd.DataFrame, *, title: str = "Workers of each job bound at t=0, by minCount") -> go.Figure:
    """Grouped bars from :func:`min_count_sweep`: one panel per mode, x = minCount, a bar per
    job (workers bound), hatched bars on top for workers held at Permit.

    >>> fig = sweep_figure(min_count_sweep((4,), ("cycle",), until=300))
    >>> [(t.name, t.y) for t in fig.data]
    [('job-a bound', (4,)), ('job-a held at Permit', (0,)), ('job-b bound', (0,)), ('job-b held at Permit', (0,))]
    """
    from plotly.subplots import make_subplots

    modes = list(dict.fromkeys(sweep["mode"]))
    jobs = [c[:-len(" running")] for c in sweep.columns if c.endswith(" running")]
    # the long mode names are broken at their parenthesis so that the panel titles do not run into each other
    fig = make_subplots(rows=1, cols=len(modes), shared_yaxes=True, horizontal_spacing=0.05,
                        subplot_titles=[esc(MODES.get(m, m)).replace(" (", "<br>(") for m in modes])
    for c, mode in enumerate(modes, start=1):
        part = sweep[sweep["mode"] == mode]
        x = [str(int(v)) for v in part["minCount"]]
        for j, job in enumerate(jobs):
            color = _job_color(j)
            fig.add_trace(go.Bar(x=x, y=[int(v) for v in part[f"{job} running"]], name=f"{esc(job)} bound",
                                 legendgroup=f"{job}/bound", showlegend=c == 1, marker_color=color,
                                 offsetgroup=job, hovertemplate=f"{esc(job)}: %{{y}} bound<extra></extra>"),
                          row=1, col=c)
            fig.add_trace(go.Bar(x=x, y=[int(v) for v in part[f"{job} held"]], name=f"{esc(job)} held at Permit",
                                 legendgroup=f"{job}/held", showlegend=c == 1, offsetgroup=job,
                                 base=[int(v) for v in part[f"{job} running"]],
                                 marker={"color": _lighter(color, 0.7), "line": {"color": color, "width": 1},
                                         "pattern": {"shape": "/", "fgcolor": color, "solidity": 0.35}},
                                 hovertemplate=f"{esc(job)}: %{{y}} held at Permit<extra></extra>"),
                          row=1, col=c)
        fig.update_xaxes(title_text="minCount (pods)", type="category", row=1, col=c)
    fig.update_layout(template=TEMPLATE, title=esc(title), barmode="group", height=420, margin={"t": 110, "b": 110},
                      yaxis={"title": "workers at t=0 (pods)", "dtick": 1}, legend={"orientation": "h", "y": -0.3})
    return fig
