"""The PodGroup scheduling cycle, looked at: its step log as a table, the candidate
placements scored side by side, the pod attempts inside each candidate, the group hierarchy
coloured by outcome and the recursive search drawn as a tree.

Everything here reads a :class:`~kschedlab.scheduler.podgroup.cycle.PodGroupCycleResult` (what
``Scheduler.schedule_pod_group`` returns) and, for the hierarchy, the cluster's PodGroups,
CompositePodGroups and pods. Its ``log`` is a flat list of steps written by
:class:`~kschedlab.scheduler.podgroup.algorithm.PodGroupAlgorithm`:

``placement``
    a candidate placement is tried for a group (``depth`` = nesting level, 1 for the
    root's candidates);
``pod``
    one pod filtered and scored inside the current placement (``node`` None: it fit nowhere);
``feasible``
    a PlacementFeasible verdict (``Wait`` / ``Success`` / ``Unschedulable``) before the
    first pod (child group) and after each one;
``revert``
    tentative pods rolled back (every candidate is rolled back after its simulation; a
    failed group is rolled back at once);
``score`` / ``commit``
    the feasible candidates of one group scored (PlacementScore), the winner chosen and its
    pods assumed again; logged one level up (``depth`` of the enclosing candidate, 0 for
    the root).

:func:`search_tree` rebuilds the nesting from that list: a ``placement`` step opens a
candidate under the innermost open candidate of a lower depth, and ``score`` / ``commit``
at depth *d* refer to the children of the open candidate at depth *d*. A candidate is on the
**committed path** when it was chosen in its context and every ancestor was too (and the
cycle succeeded).

User strings (names, messages) reach figures through :func:`html.escape`; DataFrames
are left as data (pandas escapes them when it renders HTML).

>>> result = _example("tas")
>>> result.status.is_success(), sorted(set(result.placements().values()))
(True, ['b1', 'b2'])
>>> for c in parse_search(result).candidates():
...     print(c.label(), c.verdict, c.placed, c.chosen)
train @ rack-a Success 3 False
train @ rack-b Success 3 True
train @ rack-c Unschedulable 1 False
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

import networkx as nx
import pandas as pd
import plotly.graph_objects as go

from kschedlab.framework import podgroups as pgstate
from kschedlab.viz.common import NOT_RUN_COLOR, TEMPLATE, esc

# Okabe-Ito colours (told apart with any colour-vision deficiency)
PASSED_COLOR, REJECTED_COLOR, CHOSEN_COLOR, WAIT_COLOR = "#0072B2", "#D55E00", "#E69F00", "#56B4E9"

__all__ = [
    "STEP_KINDS",
    "OUTCOME_COLORS",
    "VERDICT_COLORS",
    "Candidate",
    "SearchTree",
    "parse_search",
    "cycle_steps",
    "placement_scores",
    "pod_outcomes",
    "domain_capacity",
    "pod_attempts",
    "hierarchy_tree",
    "search_tree",
]

#: the kinds of step in ``PodGroupCycleResult.log``
STEP_KINDS = ("placement", "pod", "feasible", "revert", "score", "commit")

#: the colour of each final outcome in :func:`hierarchy_tree`
OUTCOME_COLORS = {
    "scheduled": PASSED_COLOR,
    "unschedulable": REJECTED_COLOR,
    "not evaluated": NOT_RUN_COLOR,
}

#: the colour of each PlacementFeasible verdict in :func:`pod_attempts`
VERDICT_COLORS = {
    "Wait": WAIT_COLOR,
    "Success": PASSED_COLOR,
    "Unschedulable": REJECTED_COLOR,
    "not attempted": NOT_RUN_COLOR,
}

_EDGE_COLOR = "#bdbdbd"


# -- names -------------------------------------------------------------------------------------------
def _group_name(key: str, namespace: str | None = None) -> str:
    """``podgroup/ml/train`` -> ``train`` (``ns/name`` when outside ``namespace``)."""
    _, ns, name = pgstate.parse_key(key)
    return name if namespace is None or ns == namespace else f"{ns}/{name}"


def _pod_name(key: str, namespace: str | None = None) -> str:
    ns, _, name = key.partition("/")
    return name if name and ns == namespace else key


def _root_namespace(result) -> str:
    return pgstate.parse_key(result.root.key)[1]


# -- the search, rebuilt from the log ----------------------------------------------------------------
@dataclass(eq=False)
class Candidate:
    """One node of the search: a group tried in one placement (the root is the group itself,
    in the placement holding every node)."""

    id: int
    key: str
    name: str
    placement: str
    depth: int
    nodes: int | None = None
    parent: "Candidate | None" = None
    children: list["Candidate"] = field(default_factory=list)
    #: the PlacementFeasible steps, in order
    verdicts: list[dict] = field(default_factory=list)
    #: the pod steps, in order (leaf PodGroups)
    pods: list[dict] = field(default_factory=list)
    #: pods rolled back after this candidate (0: nothing to roll back)
    reverted: int = 0
    #: weighted PlacementScore per plugin and their total (None: not scored)
    scores: dict[str, int] | None = None
    total: int | None = None
    #: committed within its context (the enclosing candidate)
    chosen: bool = False
    #: on the committed path of a successful cycle
    final: bool = False

    @property
    def kind(self) -> str:
        return "CompositePodGroup" if self.key.startswith("compositepodgroup/") else "PodGroup"

    @property
    def verdict(self) -> str:
        """The last PlacementFeasible code ('' when none ran); ``Wait`` as the last word is a failure."""
        return self.verdicts[-1]["code"] if self.verdicts else ""

    @property
    def feasible(self) -> bool:
        return self.verdict == "Success"

    @property
    def message(self) -> str:
        return self.verdicts[-1]["message"] if self.verdicts else ""

    @property
    def placed(self) -> int:
        """Pods this candidate held before its roll-back: its own placed pods (a PodGroup), or
        those of the child candidates committed inside it (a CompositePodGroup)."""
        if self.pods:
            return sum(1 for p in self.pods if p.get("node"))
        return sum(c.placed for c in self.children if c.chosen)

    def path(self) -> list["Candidate"]:
        """Ancestors from the root down to this candidate."""
        out, node = [], self
        while node is not None:
            out.append(node)
            node = node.parent
        return out[::-1]

    def label(self) -> str:
        """``name @ placement``, prefixed by the enclosing placements (``z0 › rep0 @ z0-r0``)."""
        outer = [c.placement for c in self.path()[1:-1]]
        return " › ".join([*outer, f"{self.name} @ {self.placement}"])


@dataclass
class SearchTree:
    """The search of one cycle: ``root`` and every candidate under it, in log order."""

    root: Candidate
    nodes: list[Candidate]

    def candidates(self) -> list[Candidate]:
        """Every candidate placement tried (the root excluded)."""
        return [c for c in self.nodes if c.parent is not None]

    def graph(self) -> nx.DiGraph:
        """The tree as a networkx DiGraph (node ids; the Candidate in attribute ``c``)."""
        g = nx.DiGraph()
        for c in self.nodes:
            g.add_node(c.id, c=c)
            if c.parent is not None:
                g.add_edge(c.parent.id, c.id)
        return g


def parse_search(result) -> SearchTree:
    """The candidates of ``result.log`` nested as the algorithm tried them.

    >>> tree = parse_search(_example("gang"))
    >>> tree.root.name, tree.root.verdict, tree.root.placed, tree.candidates()
    ('train', 'Success', 3, [])
    """
    from kschedlab.framework.placement import ROOT

    ns = _root_namespace(result)
    root = Candidate(0, result.root.key, _group_name(result.root.key, ns), ROOT, 0)
    nodes = [root]
    stack = [root]

    def find(step):
        for c in reversed(stack):
            if c.key == step["key"] and c.depth == step["depth"]:
                return c
        return None

    def context(depth):
        return next((c for c in reversed(stack) if c.depth == depth), None)

    for step in result.log:
        kind = step["step"]
        if kind == "placement":
            while stack[-1].depth >= step["depth"] and len(stack) > 1:
                stack.pop()
            parent = stack[-1]
            c = Candidate(len(nodes), step["key"], _group_name(step["key"], ns), step["placement"], step["depth"],
                          step.get("nodes"), parent)
            parent.children.append(c)
            nodes.append(c)
            stack.append(c)
        elif kind in ("feasible", "pod", "revert"):
            c = find(step)
            if c is None:
                continue
            if kind == "feasible":
                c.verdicts.append(step)
            elif kind == "pod":
                c.pods.append(step)
            else:
                c.reverted += int(step.get("pods") or 0)
        elif kind in ("score", "commit"):
            ctx = context(step["depth"])
            if ctx is None:
                continue
            mine = [c for c in ctx.children if c.key == step["key"]]
            if kind == "score":
                for row in step["rows"]:
                    for c in mine:
                        if c.placement == row["placement"]:
                            c.total = int(row["total"])
                            c.scores = {k: int(v) for k, v in row.items() if k not in ("placement", "total")}
            else:
                for c in reversed(mine):
                    if c.placement == step["placement"]:
                        c.chosen = True
                        break
    root.chosen = True
    _mark_final(root, result.status.is_success())
    return SearchTree(root, nodes)


def _mark_final(c: Candidate, final: bool) -> None:
    c.final = final and c.chosen
    for child in c.children:
        _mark_final(child, c.final)


# -- tables ------------------------------------------------------------------------------------------
def cycle_steps(result, steps: Iterable[str] | None = None) -> pd.DataFrame:
    """``result.log`` as a table, one row per step (``steps``: only these kinds).

    Columns: ``step``, ``depth``, ``group``, ``placement`` (the candidate the step happened
    in; for ``commit`` the one chosen), ``pod``, ``node``, ``verdict`` (PlacementFeasible),
    ``scheduled`` / ``remaining`` (what the verdict was given) and ``detail`` (the verdict's
    or the pod's message, the number of nodes, pods rolled back or the scores).

    >>> table = cycle_steps(_example("gang"))
    >>> print(table[["step", "pod", "node", "verdict", "scheduled", "remaining"]].to_string())
           step       pod node  verdict  scheduled  remaining
    #
    0  feasible                    Wait          0          3
    1       pod  worker-0   n2                <NA>       <NA>
    2  feasible                    Wait          1          2
    3       pod  worker-1   n2                <NA>       <NA>
    4  feasible                    Wait          2          1
    5       pod  worker-2   n1                <NA>       <NA>
    6  feasible                 Success          3          0
    """
    ns = _root_namespace(result)
    keep = None if steps is None else set(steps)
    rows = []
    for i, s in enumerate(result.log):
        kind = s["step"]
        if keep is not None and kind not in keep:
            continue
        row = {"#": i, "step": kind, "depth": s.get("depth"), "group": _group_name(s["key"], ns),
               "placement": s.get("placement") or "", "pod": "", "node": "", "verdict": "",
               "scheduled": pd.NA, "remaining": pd.NA, "detail": ""}
        if kind == "placement":
            row["detail"] = "1 node" if s.get("nodes") == 1 else f"{s.get('nodes')} nodes"
        elif kind == "pod":
            row["pod"] = _pod_name(s["pod"], ns)
            row["node"] = s.get("node") or ""
            row["detail"] = s.get("message") or ""
        elif kind == "feasible":
            row.update(verdict=s["code"], scheduled=s["scheduled"], remaining=s["remaining"],
                       detail=s.get("message") or "")
        elif kind == "revert":
            row["detail"] = f"rolled back {s['pods']} pods"
        elif kind == "score":
            row["placement"] = ""
            row["detail"] = ", ".join(f"{r['placement']} {r['total']}" for r in s["rows"])
        elif kind == "commit":
            row["detail"] = "chosen"
        rows.append(row)
    columns = ["#", "step", "depth", "group", "placement", "pod", "node", "verdict", "scheduled", "remaining",
               "detail"]
    table = pd.DataFrame(rows, columns=columns)
    for col in ("depth", "scheduled", "remaining"):
        table[col] = table[col].astype("Int64")
    return table.set_index("#")


def placement_scores(result, group: str | None = None) -> pd.DataFrame:
    """Every candidate placement next to the others of the same group and context: the
    PlacementFeasible verdict, the pods it held, each PlacementScore plugin's weighted
    score and the total (NaN when not scored: infeasible, or the only feasible one, which is
    taken without scoring), and whether it was ``chosen`` (committed within its context)
    and ``final`` (on the committed path). ``group``: only this group (name or key).

    >>> table = placement_scores(_example("tas"))
    >>> print(table[["placement", "verdict", "pods", "NodeResourcesFit", "PodGroupPodsCount", "total",
    ...              "chosen"]].to_string(index=False))
    placement       verdict  pods  NodeResourcesFit  PodGroupPodsCount  total  chosen
       rack-a       Success     3                19                100    119   False
       rack-b       Success     3                50                100    150    True
       rack-c Unschedulable     1              <NA>               <NA>   <NA>   False
    """
    tree = parse_search(result)
    plugins: list[str] = []
    for c in tree.candidates():
        for name in c.scores or {}:
            if name not in plugins:
                plugins.append(name)
    rows = []
    for c in tree.candidates():
        if group is not None and group not in (c.name, c.key):
            continue
        within = " › ".join(p.placement for p in c.path()[1:-1])
        row = {"group": c.name, "within": within, "placement": c.placement, "nodes": c.nodes,
               "verdict": c.verdict, "pods": c.placed}
        for name in plugins:
            row[name] = (c.scores or {}).get(name, pd.NA)
        row.update(total=c.total if c.total is not None else pd.NA, chosen=c.chosen, final=c.final,
                   message=c.message)
        rows.append(row)
    columns = ["group", "within", "placement", "nodes", "verdict", "pods", *plugins, "total", "chosen", "final",
               "message"]
    table = pd.DataFrame(rows, columns=columns)
    for col in ("nodes", "pods", *plugins, "total"):
        table[col] = table[col].astype("Int64")
    return table


def pod_outcomes(result) -> pd.DataFrame:
    """One row per pod of the cycle: its group, the node it was bound to ('' when none),
    ``outcome`` (bound, or the reason it went back to the queue) and the message it was
    rejected with (the pod's own reason when it fit nowhere, else its group's).

    >>> print(pod_outcomes(_example("gang"))[["group", "node", "outcome"]].to_string())
              group node outcome
    pod
    worker-0  train   n2   bound
    worker-1  train   n2   bound
    worker-2  train   n1   bound
    """
    ns = _root_namespace(result)
    group_of = {pr.key: key for key, g in result.groups.items() for pr in g.pods}
    rows = []
    for r in result.pod_results:
        if r.node:
            outcome = "bound"
        elif r.status.code.name == "Error":
            outcome = "SchedulerError"
        else:
            outcome = "Unschedulable"
        group = _group_name(group_of[r.pod], ns) if r.pod in group_of else ""
        rows.append({"pod": _pod_name(r.pod, ns), "group": group, "node": r.node or "", "outcome": outcome,
                     "message": r.message or ""})
    return pd.DataFrame(rows, columns=["pod", "group", "node", "outcome", "message"]).set_index("pod")


def domain_capacity(cluster, key: str, resource: str = "cpu") -> pd.DataFrame:
    """Per value of node label ``key`` (a topology domain: rack, zone, ...): its nodes and the
    summed allocatable, requested (bound and assumed pods) and free ``resource``, in cores
    for cpu, GiB for memory and plain counts otherwise. Nodes without the label are left out.

    >>> cluster, _ = _example("tas", with_cluster=True)
    >>> print(domain_capacity(cluster, "rack").to_string())
             nodes  allocatable  requested  free
    rack
    rack-a  a1, a2          8.0        0.0   8.0
    rack-b  b1, b2          3.0        3.0   0.0
    rack-c      c1          1.0        0.0   1.0
    """
    from kschedlab.viz.common import live_rows, unit_of

    snap = cluster.snapshot
    divisor, _ = unit_of(resource)
    col = snap.res_index.get(resource)
    domains: dict[str, dict] = {}
    for row in live_rows(snap):
        value = (snap.nodes[row].metadata.labels or {}).get(key)
        if value is None:
            continue
        d = domains.setdefault(value, {"nodes": [], "allocatable": 0, "requested": 0})
        d["nodes"].append(snap.names[row])
        if col is not None:
            d["allocatable"] += int(snap.allocatable[col, row])
            d["requested"] += int(snap.requested[col, row])
    rows = [{key: value, "nodes": ", ".join(d["nodes"]), "allocatable": d["allocatable"] / divisor,
             "requested": d["requested"] / divisor, "free": (d["allocatable"] - d["requested"]) / divisor}
            for value, d in sorted(domains.items())]
    return pd.DataFrame(rows, columns=[key, "nodes", "allocatable", "requested", "free"]).set_index(key)


# -- figures -----------------------------------------------------------------------------------------
def pod_attempts(result, group: str | None = None, title: str | None = None) -> go.Figure:
    """The pod attempts inside each candidate: one row per (PodGroup, placement) tried, one
    cell per pod in cycle order (the first column: before any pod). A cell shows the node
    the pod went to (✗: it fit nowhere) and is coloured by the PlacementFeasible verdict
    after it; grey cells were never attempted (the group stopped or had already failed).
    ``group``: only this PodGroup (name or key).

    >>> fig = pod_attempts(_example("tas"))
    >>> list(fig.data[0].y), list(fig.data[0].x)
    (['train @ rack-a', 'train @ rack-b (chosen)', 'train @ rack-c'], ['before', 'worker-0', 'worker-1', 'worker-2'])
    >>> fig.data[0].text[2]
    ['', 'c1', '✗', '✗']
    """
    tree = parse_search(result)
    ns = _root_namespace(result)
    rows = [c for c in tree.nodes if c.kind == "PodGroup" and (c.pods or c.verdicts)
            and (group is None or group in (c.name, c.key))]
    codes = list(VERDICT_COLORS)
    width = max((len(c.pods) for c in rows), default=0)
    for c in rows:  # groups stopped early: the queued pods they never reached
        info = next((g for g in result.root.all_groups() if g.key == c.key), None)
        if info is not None:
            width = max(width, len(info.pods))
    same_group = len({c.key for c in rows}) <= 1
    if same_group and rows:
        info = next((g for g in result.root.all_groups() if g.key == rows[0].key), None)
        pods = [_pod_name(pi.key, ns) for pi in info.pods] if info is not None else []
        pods += [f"pod {i + 1}" for i in range(len(pods), width)]
        x = ["before", *pods[:width]]
    else:
        x = ["before", *[f"pod {i + 1}" for i in range(width)]]

    labels, z, text, hover = [], [], [], []
    seen: dict[str, int] = {}
    for c in rows:
        label = c.label() if c.parent is not None else c.name
        label += " (chosen)" if c.chosen and c.parent is not None else ""
        seen[label] = seen.get(label, 0) + 1
        if seen[label] > 1:
            label = f"{label} #{seen[label]}"
        labels.append(esc(label))
        zr, tr, hr = [], [], []
        verdicts = list(c.verdicts)
        first = verdicts.pop(0) if verdicts else None
        zr.append(codes.index(first["code"]) if first and first["code"] in codes else codes.index("not attempted"))
        tr.append("")
        hr.append(_verdict_hover(first) if first else "no PlacementFeasible verdict")
        for i in range(width):
            if i < len(c.pods):
                p = c.pods[i]
                v = verdicts[i] if i < len(verdicts) else None
                zr.append(codes.index(v["code"]) if v and v["code"] in codes else codes.index("not attempted"))
                tr.append(esc(p["node"]) if p.get("node") else "✗")
                where = f"→ {esc(p['node'])}" if p.get("node") else f"fit nowhere: {esc(p.get('message') or '')}"
                hr.append(f"<b>{esc(_pod_name(p['pod'], ns))}</b> {where}<br>"
                          + (_verdict_hover(v) if v else "no verdict"))
            else:
                zr.append(codes.index("not attempted"))
                tr.append("")
                hr.append("not attempted")
        z.append(zr)
        text.append(tr)
        hover.append(hr)

    n = len(codes)
    scale = []
    for i, name in enumerate(codes):
        scale += [[i / n, VERDICT_COLORS[name]], [(i + 1) / n, VERDICT_COLORS[name]]]
    fig = go.Figure(go.Heatmap(
        z=z, x=x, y=labels, text=text, texttemplate="%{text}", hovertext=hover, hoverinfo="text",
        colorscale=scale, zmin=-0.5, zmax=n - 0.5, showscale=False, xgap=3, ygap=3))
    for name in codes:  # a legend for the discrete colours
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=name,
                                 marker=dict(symbol="square", size=12, color=VERDICT_COLORS[name])))
    fig.update_layout(
        template=TEMPLATE,
        title=dict(text=title or "Pod attempts per candidate placement", yref="container", y=0.98, yanchor="top",
                   subtitle=dict(text="colour: PlacementFeasible after the pod")),
        height=max(280, 150 + 38 * len(rows)),
        xaxis=dict(side="top", title=dict(text="pod, in the order tried", standoff=8), automargin=True),
        yaxis=dict(autorange="reversed", title="group @ candidate placement", automargin=True),
        legend=dict(orientation="h", y=-0.05, x=0, title="PlacementFeasible"),
        margin=dict(l=20, r=20, t=150, b=40))
    return fig


def _verdict_hover(step: dict) -> str:
    msg = step.get("message") or ""
    return (f"PlacementFeasible: <b>{esc(step['code'])}</b> ({step['scheduled']} scheduled, "
            f"{step['remaining']} remaining)" + (f"<br>{esc(msg)}" if msg else ""))


def _tidy_layout(g: nx.DiGraph, root) -> dict:
    """(x, y) per node: leaves one unit apart in DFS order, a parent centred over its children,
    y = -depth."""
    pos: dict = {}
    counter = [0]

    def walk(node, depth):
        kids = list(g.successors(node))
        if not kids:
            pos[node] = (float(counter[0]), -float(depth))
            counter[0] += 1
            return
        for kid in kids:
            walk(kid, depth + 1)
        xs = [pos[k][0] for k in kids]
        pos[node] = ((min(xs) + max(xs)) / 2, -float(depth))

    walk(root, 0)
    return pos


def _edges_trace(g: nx.DiGraph, pos: dict, edges=None, color: str = _EDGE_COLOR, width: float = 1.5,
                 name: str = "edges", horizontal: bool = False) -> go.Scatter:
    xs, ys = [], []
    for a, b in (edges if edges is not None else g.edges()):
        (x0, y0), (x1, y1) = pos[a], pos[b]
        if horizontal:  # elbow: out of the parent to the right, then down to the child
            xm = x0 + 0.85 * (x1 - x0)  # late, so the parent's label above the line stays clear
            xs += [x0, xm, xm, x1, None]
            ys += [y0, y0, y1, y1, None]
        else:
            xs += [x0, x1, None]
            ys += [y0, y1, None]
    return go.Scatter(x=xs, y=ys, mode="lines", line=dict(color=color, width=width), hoverinfo="skip",
                      showlegend=False, name=name)


def _policy(obj) -> str:
    if obj is None:
        return "(missing)"
    if type(obj).__name__ == "CompositePodGroup":
        gang = obj.spec.scheduling_policy.gang if obj.spec.scheduling_policy else None
        policy = f"minGroupCount {obj.min_group_count}" if gang is not None else "basic"
    else:
        policy = f"minCount {obj.min_count}" if obj.min_count is not None else "basic"
    from kschedlab.plugins.topology_placement import topology_key

    key = topology_key(obj)
    return policy + (f" · topology {key}" if key else "")


def hierarchy_tree(cluster, root_key: str, result=None, title: str | None = None) -> go.Figure:
    """The group hierarchy under ``root_key`` as a tree: CompositePodGroups (diamonds) ->
    PodGroups (squares) -> their pods (circles), each coloured by its outcome in ``result``:
    **scheduled** (bound by this cycle, or earlier), **unschedulable** (tried, not bound) or
    **not evaluated** (the algorithm never reached it; everything unbound when ``result`` is
    None). Groups show their policy and the placement they got.

    >>> cluster, result = _example("composite", with_cluster=True)
    >>> fig = hierarchy_tree(cluster, "compositepodgroup/ml/job", result)
    >>> [(t.name, len(t.x)) for t in fig.data if t.mode == "markers+text"]
    [('scheduled', 9)]
    """
    from kschedlab.framework.placement import ROOT

    ns = pgstate.parse_key(root_key)[1]
    evaluated_groups = {s["key"] for s in result.log} if result is not None else set()
    evaluated_pods = {s["pod"] for s in result.log if s["step"] == "pod"} if result is not None else set()
    bound_now = {k: v for k, v in result.placements().items() if v} if result is not None else {}
    in_cycle = set(result.placements()) if result is not None else set()

    g = nx.DiGraph()

    def add_group(key: str):
        kind, gns, name = pgstate.parse_key(key)
        composite = kind == "compositepodgroup"
        obj = (pgstate.get_composite_pod_group if composite else pgstate.get_pod_group)(cluster, gns, name)
        gr = result.groups.get(key) if result is not None else None
        if gr is not None and gr.status.is_success():
            outcome = "scheduled"
        elif key in evaluated_groups:
            outcome = "unschedulable"
        else:
            outcome = "not evaluated"
        where = gr.placement.name if gr is not None and gr.placement is not None and outcome == "scheduled" else ""
        where = "" if where == ROOT else where
        label = f"<b>{esc(_group_name(key, ns))}</b>" + (f"<br>→ {esc(where)}" if where else "")
        status = gr.status.message() if gr is not None and not gr.status.is_success() else ""
        hover = (f"<b>{esc(type(obj).__name__ if obj is not None else kind)} {esc(_group_name(key, ns))}</b><br>"
                 f"{esc(_policy(obj))}<br>outcome: {outcome}" + (f"<br>placement: {esc(where)}" if where else "")
                 + (f"<br>{esc(status)}" if status else ""))
        g.add_node(key, kind="composite" if composite else "group", outcome=outcome, label=label, hover=hover)
        if composite:
            for child in sorted(pgstate.children(cluster, key)):
                add_group(child)
                g.add_edge(key, child)
            return
        for pod in pgstate.members(cluster, gns, name):
            pkey = f"{pod.metadata.namespace}/{pod.metadata.name}"
            node = bound_now.get(pkey) or pod.spec.node_name
            if node:
                outcome = "scheduled"
                note = "bound in this cycle" if pkey in bound_now else "bound before this cycle"
            elif pkey in evaluated_pods:
                outcome, note = "unschedulable", "tried, not bound"
            else:
                outcome = "not evaluated"
                note = "never tried in this cycle" if pkey in in_cycle else "not in this cycle"
            tried = [s for s in (result.log if result is not None else ()) if s["step"] == "pod" and s["pod"] == pkey]
            lines = [f"{esc(s['placement'])}: " + (f"→ {esc(s['node'])}" if s.get("node") else "✗")
                     for s in tried]
            hover = (f"<b>pod {esc(_pod_name(pkey, ns))}</b><br>{outcome}: {note}"
                     + (f"<br>node: {esc(node)}" if node else "")
                     + (("<br>attempts:<br>" + "<br>".join(lines)) if lines else ""))
            label = esc(_pod_name(pkey, ns)) + (f"<br>{esc(node)}" if node else "")
            g.add_node(pkey, kind="pod", outcome=outcome, label=label, hover=hover)
            g.add_edge(key, pkey)

    add_group(root_key)
    pos = _tidy_layout(g, root_key)
    fig = go.Figure(_edges_trace(g, pos))
    symbols = {"composite": "diamond", "group": "square", "pod": "circle"}
    sizes = {"composite": 26, "group": 22, "pod": 16}
    for outcome, color in OUTCOME_COLORS.items():
        members = [n for n, d in g.nodes(data=True) if d["outcome"] == outcome]
        if not members:
            continue
        fig.add_trace(go.Scatter(
            x=[pos[n][0] for n in members], y=[pos[n][1] for n in members], mode="markers+text", name=outcome,
            marker=dict(color=color, size=[sizes[g.nodes[n]["kind"]] for n in members],
                        symbol=[symbols[g.nodes[n]["kind"]] for n in members], line=dict(color="#525252", width=1)),
            text=[g.nodes[n]["label"] for n in members],
            textposition=["middle right" if g.nodes[n]["kind"] != "pod" else "bottom center" for n in members],
            hovertext=[g.nodes[n]["hover"] for n in members], hoverinfo="text", textfont=dict(size=11)))
    leaves = sum(1 for n in g if g.out_degree(n) == 0)
    fig.update_layout(
        template=TEMPLATE, title=title or f"{esc(_group_name(root_key))}: groups and pods by outcome",
        xaxis=dict(visible=False, range=[-0.8, max(leaves, 1) - 0.2]),
        yaxis=dict(visible=False, range=[min(y for _, y in pos.values()) - 0.6, 0.4]),
        height=420, legend=dict(orientation="h", y=-0.02, x=0), margin=dict(l=10, r=10, t=60, b=30))
    return fig


def search_tree(result, title: str | None = None) -> go.Figure:
    """The recursive search of one cycle as a tree, read left to right: the group scheduled,
    then every candidate placement tried for it and, inside each, for its child groups. A
    node is coloured by its verdict (green feasible, red not) and gold when on the committed
    path; its label gives the verdict, the pods it held, the pods rolled back after it (↺),
    its PlacementScore total and *chosen* when it was committed inside a candidate that was
    later abandoned. Gold edges mark the committed path.

    >>> fig = search_tree(_example("composite"))
    >>> [t.name for t in fig.data]
    ['edges', 'committed path', 'committed', 'feasible', 'infeasible']
    >>> fig.data[2].text[:2]
    ('<b>job</b> · Success · 6 pods', '<b>job @ z1</b> · Success · 6 pods ↺6')
    """
    tree = parse_search(result)
    g = tree.graph()
    pos = _tidy_layout(g, tree.root.id)
    pos = {n: (-y, -x) for n, (x, y) in pos.items()}  # left to right, first candidate on top

    def bucket(c: Candidate) -> str:
        if c.final:
            return "committed"
        if c.parent is None:
            return "committed" if result.status.is_success() else "infeasible"
        return "feasible" if c.feasible else "infeasible"

    colors = {"committed": CHOSEN_COLOR, "feasible": PASSED_COLOR, "infeasible": REJECTED_COLOR}
    final_edges = [(c.parent.id, c.id) for c in tree.nodes if c.parent is not None and c.final]
    other_edges = [(c.parent.id, c.id) for c in tree.nodes if c.parent is not None and not c.final]
    fig = go.Figure([_edges_trace(g, pos, other_edges, horizontal=True),
                     _edges_trace(g, pos, final_edges, CHOSEN_COLOR, 4, "committed path", horizontal=True)])
    for name in ("committed", "feasible", "infeasible"):
        members = [c for c in tree.nodes if bucket(c) == name]
        if not members:
            continue
        fig.add_trace(go.Scatter(
            x=[pos[c.id][0] for c in members], y=[pos[c.id][1] for c in members], mode="markers+text", name=name,
            marker=dict(color=colors[name], size=18, line=dict(color="#525252", width=1),
                        symbol=["diamond" if c.kind == "CompositePodGroup" else "square" for c in members]),
            text=[_search_label(c, result) for c in members],
            textposition=["top right" if c.children else "middle right" for c in members],
            hovertext=[_search_hover(c, result) for c in members], hoverinfo="text", textfont=dict(size=11)))
    depth = max((c.depth for c in tree.nodes), default=0)
    leaves = sum(1 for n in g if g.out_degree(n) == 0)
    fig.update_layout(
        template=TEMPLATE, title=title or f"Search for {esc(tree.root.name)}: candidates, verdicts, roll-backs",
        xaxis=dict(visible=False, range=[-0.1, depth + 1.3]), yaxis=dict(visible=False),
        height=max(260, 120 + 34 * leaves), legend=dict(orientation="h", y=-0.02, x=0),
        margin=dict(l=10, r=10, t=60, b=30))
    return fig


def _search_label(c: Candidate, result) -> str:
    head = f"<b>{esc(c.name)}</b>" if c.parent is None else f"<b>{esc(c.name)} @ {esc(c.placement)}</b>"
    parts = [head]
    verdict = result.status.code.name if c.parent is None else c.verdict
    if verdict:
        parts.append(esc(verdict))
    parts.append(_pods(c.placed) + (f" ↺{c.reverted}" if c.reverted else ""))
    if c.total is not None:
        parts.append(f"score {c.total}")
    if c.chosen and not c.final and c.parent is not None:  # gold already says so on the committed path
        parts.append("chosen")
    return " · ".join(parts)


def _pods(n: int) -> str:
    return f"{n} pod" if n == 1 else f"{n} pods"


def _search_hover(c: Candidate, result) -> str:
    lines = [f"<b>{esc(c.kind)} {esc(c.name)}</b> in {esc(c.placement)}"
             + (f" ({c.nodes} nodes)" if c.nodes is not None else "")]
    if c.verdicts:
        v = c.verdicts[-1]
        lines.append(f"last PlacementFeasible: {esc(v['code'])} "
                     f"({v['scheduled']} scheduled, {v['remaining']} remaining)")
        if v.get("message"):
            lines.append(esc(v["message"]))
    lines.append(f"pods held: {c.placed}; rolled back afterwards: {c.reverted}")
    if c.scores:
        lines.append("PlacementScore: " + ", ".join(f"{esc(k)} {v}" for k, v in c.scores.items())
                     + f" = {c.total}")
    if c.parent is not None:
        lines.append("chosen in its context" if c.chosen else "not chosen")
    if c.parent is None and not result.status.is_success():
        lines.append(esc(result.status.message()))
    return "<br>".join(lines)


# -- examples for the doctests -------------------------------------------------------------------------
def _example(kind: str = "gang", with_cluster: bool = False):
    """A tiny cycle: ``gang`` (3 pods, minCount 3, two nodes), ``tas`` (rack topology, three
    racks) or ``composite`` (a zone-level CompositePodGroup over two rack-level replicas)."""
    from kschedlab.api.loader import load_objects
    from kschedlab.cluster import Cluster
    from kschedlab.scheduler import Scheduler

    def node(name, cpu, **labels):
        return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels},
                "status": {"allocatable": {"cpu": str(cpu), "memory": "16Gi", "pods": "110"}}}

    def pod(name, group, cpu="1"):
        return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "ml"},
                "spec": {"schedulingGroup": {"podGroupName": group},
                         "containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]}}

    def group(name, min_count, topology=None, parent=None):
        spec = {"schedulingPolicy": {"gang": {"minCount": min_count}}}
        if topology:
            spec["schedulingConstraints"] = {"topology": [{"key": topology}]}
        if parent:
            spec["parentCompositePodGroupName"] = parent
        return {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
                "metadata": {"name": name, "namespace": "ml"}, "spec": spec}

    gates = {"GenericWorkload": True}
    if kind == "gang":
        objs = [node("n1", 1), node("n2", 2), group("train", 3), *[pod(f"worker-{i}", "train") for i in range(3)]]
        root = "podgroup/ml/train"
    elif kind == "tas":
        gates["TopologyAwareWorkloadScheduling"] = True
        objs = [node("a1", 4, rack="rack-a"), node("a2", 4, rack="rack-a"), node("b1", 2, rack="rack-b"),
                node("b2", 1, rack="rack-b"), node("c1", 1, rack="rack-c"),
                group("train", 2, "rack"), *[pod(f"worker-{i}", "train") for i in range(3)]]
        root = "podgroup/ml/train"
    elif kind == "composite":
        gates.update(TopologyAwareWorkloadScheduling=True, CompositePodGroup=True)
        caps = {"z0": {"r0": 2, "r1": 1}, "z1": {"r0": 4, "r1": 3}}
        objs = [node(f"{z}-{r}", cpu, zone=z, rack=f"{z}-{r}") for z, racks in caps.items() for r, cpu in racks.items()]
        objs.append({"apiVersion": "scheduling.k8s.io/v1alpha3", "kind": "CompositePodGroup",
                     "metadata": {"name": "job", "namespace": "ml"},
                     "spec": {"schedulingPolicy": {"gang": {"minGroupCount": 2}},
                              "schedulingConstraints": {"topology": [{"key": "zone"}]}}})
        objs += [group("rep0", 2, "rack", "job"), *[pod(f"rep0-w{i}", "rep0") for i in range(2)]]
        objs += [group("rep1", 3, "rack", "job"), *[pod(f"rep1-w{i}", "rep1") for i in range(4)]]
        root = "compositepodgroup/ml/job"
    else:
        raise ValueError(f"unknown example {kind!r}")
    cluster = Cluster(load_objects(objs))
    result = Scheduler(cluster, gates=gates, seed=0).schedule_pod_group(root)
    return (cluster, result) if with_cluster else result
