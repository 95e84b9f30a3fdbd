"""Pod topology spread, worked out: matching pods per topology domain, the global minimum
and the skew the pod would cause in each domain, as tables and figures.

Every number comes from the PodTopologySpread plugin of a :class:`~kschedlab.scheduler.schedule_one.Scheduler`
built on the cluster (its KubeSchedulerConfiguration and feature gates): the constraints are
the ones the plugin derives for the pod (its own, or the cluster defaults when it has none),
and the counts are the plugin's PreFilter state (``calPreFilterState``): only *eligible*
nodes count -- nodes that carry every topology key of the pod's hard constraints and pass the
node inclusion policies (``nodeAffinityPolicy``, ``nodeTaintsPolicy``). Nothing here changes
the cluster: what-if runs use a deep copy.

Filter rule per domain of a ``DoNotSchedule`` constraint (seed section 5)::

    skew if placed = matching pods in the domain + (1 if the pod matches the selector) - global minimum
    the pod may go there   <=>   skew if placed <= maxSkew

and the global minimum is the fewest matching pods of an eligible domain, or 0 when there are
fewer eligible domains than ``minDomains``.

>>> from kschedlab import Cluster
>>> from kschedlab.api.loader import load_text
>>> nodes = "".join(f'''
... ---
... apiVersion: v1
... kind: Node
... metadata: {{name: {n}, labels: {{zone: {z}}}}}
... status: {{allocatable: {{cpu: "4", memory: 8Gi, pods: "110"}}}}''' for n, z in [("n1", "a"), ("n2", "b")])
>>> cluster = Cluster(load_text(nodes + '''
... ---
... apiVersion: v1
... kind: Pod
... metadata: {name: old, namespace: default, labels: {app: web}}
... spec: {nodeName: n1, containers: [{name: c}]}
... ---
... apiVersion: v1
... kind: Pod
... metadata: {name: new, namespace: default, labels: {app: web}}
... spec:
...   containers: [{name: c}]
...   topologySpreadConstraints:
...   - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: web}}}
... '''))
>>> t = spread_table(cluster, "default/new")
>>> t[["nodes", "matching pods", "skew if placed", "fits"]].to_dict("index")  # doctest: +NORMALIZE_WHITESPACE
{'a': {'nodes': 'n1', 'matching pods': 1, 'skew if placed': 2, 'fits': False},
 'b': {'nodes': 'n2', 'matching pods': 0, 'skew if placed': 1, 'fits': True}}
>>> t.attrs["global minimum"], t.attrs["maxSkew"]
(0, 1)
"""

from __future__ import annotations

import copy
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from kschedlab.plugins.pod_topology_spread_common import (
    DO_NOT_SCHEDULE,
    MAX_INT32,
    SCHEDULE_ANYWAY,
    SpreadConstraint,
    filter_constraints,
)
from kschedlab.viz.common import NOT_RUN_COLOR, TEMPLATE, esc

#: Okabe-Ito blue and vermillion: "may go there" and "full" stay apart for colour-blind readers
FITS_COLOR, FULL_COLOR = "#0072B2", "#D55E00"

__all__ = ["spread_constraints", "spread_table", "topology_skew", "with_constraint", "spread_variants",
           "compare_spread", "add_matching_pod", "add_replica", "probe", "place_replicas"]

PLUGIN = "PodTopologySpread"
SOFT_COLOR = "#6baed6"
#: the "domain" of the nodes that lack the topology key (never counted; the pod cannot go there)
NO_LABEL = "(no {key} label)"

_TABLE_COLUMNS = ["nodes", "eligible", "matching pods", "self match", "global minimum", "skew if placed",
                  "maxSkew", "fits"]


# -- resolving the pod, the scheduler and the constraints ---------------------------------------------------
def _scheduler(cluster, scheduler):
    if scheduler is not None:
        return scheduler
    from kschedlab.scheduler import Scheduler

    return Scheduler(cluster)


def _pod_info(cluster, pod):
    """A PodInfo for ``pod``: a key of the cluster, a Pod or a PodInfo."""
    from kschedlab.framework.types import PodInfo

    if isinstance(pod, str):
        if pod not in cluster.pod_infos:
            raise KeyError(f"no pod {pod!r} in the cluster")
        return cluster.pod_infos[pod]
    if isinstance(pod, PodInfo):
        return pod
    return PodInfo.of(pod, pod_level_resources=cluster.pod_level_resources)


def _plugin(scheduler, pod):
    fw = scheduler.framework_for(pod)
    if fw is None:
        raise ValueError(f"no profile for schedulerName {pod.spec.scheduler_name!r}")
    plugin = fw.plugins.get(PLUGIN)
    if plugin is None:
        raise ValueError(f"{PLUGIN} is not enabled in profile {fw.profile.scheduler_name!r}")
    return plugin


def spread_constraints(cluster, pod, *, scheduler=None) -> list[SpreadConstraint]:
    """The constraints PodTopologySpread applies to ``pod``: the hard (``DoNotSchedule``) ones
    first, then the soft (``ScheduleAnyway``) ones -- the pod's own, or the profile's default
    constraints (with the selector deduced from its Services / controller) when it has none.

    >>> from kschedlab import Cluster
    >>> from kschedlab.api.core import Pod
    >>> pod = Pod.model_validate({"metadata": {"name": "p", "namespace": "default"}, "spec": {"containers": [
    ...     {"name": "c"}], "topologySpreadConstraints": [{"maxSkew": 2, "topologyKey": "zone",
    ...     "whenUnsatisfiable": "ScheduleAnyway", "labelSelector": {"matchLabels": {"app": "x"}}}]}})
    >>> [(c.topology_key, c.max_skew, str(c.selector)) for c in spread_constraints(Cluster(), pod)]
    [('zone', 2, 'app=x')]
    """
    info = _pod_info(cluster, pod)
    plugin = _plugin(_scheduler(cluster, scheduler), info.pod)
    return (plugin.get_constraints(info.pod, DO_NOT_SCHEDULE)
            + plugin.get_constraints(info.pod, SCHEDULE_ANYWAY))


def _when(constraints_hard: int, index: int) -> str:
    return DO_NOT_SCHEDULE if index < constraints_hard else SCHEDULE_ANYWAY


def _resolve(cluster, info, plugin, constraint) -> tuple[SpreadConstraint, str, list[SpreadConstraint], int]:
    """(constraint, whenUnsatisfiable, the group it is counted with, its index in the group)."""
    hard = plugin.get_constraints(info.pod, DO_NOT_SCHEDULE)
    soft = plugin.get_constraints(info.pod, SCHEDULE_ANYWAY)
    if isinstance(constraint, (int, np.integer)):
        allc = hard + soft
        if not allc:
            raise ValueError(f"pod {info.key} has no topology spread constraints (and no default applies)")
        if not -len(allc) <= constraint < len(allc):
            raise IndexError(f"pod {info.key} has {len(allc)} topology spread constraint(s), not {constraint + 1}")
        i = int(constraint) % len(allc)
        if i < len(hard):
            return hard[i], DO_NOT_SCHEDULE, hard, i
        return soft[i - len(hard)], SCHEDULE_ANYWAY, soft, i - len(hard)
    if isinstance(constraint, SpreadConstraint):
        return constraint, DO_NOT_SCHEDULE, [constraint], 0
    from kschedlab.api.core import TopologySpreadConstraint

    model = (constraint if isinstance(constraint, TopologySpreadConstraint)
             else TopologySpreadConstraint.model_validate(dict(constraint)))
    when = model.when_unsatisfiable or DO_NOT_SCHEDULE
    gates = plugin.handle.gates if plugin.handle is not None else None
    parsed = filter_constraints([model], info.labels, when,
                                match_label_keys=bool(gates and gates.enabled("MatchLabelKeysInPodTopologySpread")),
                                node_inclusion_policy=bool(gates and gates.enabled(
                                    "NodeInclusionPolicyInPodTopologySpread")))
    return parsed[0], when, parsed, 0


# -- the table -------------------------------------------------------------------------------------------
def spread_table(cluster, pod, constraint: int | Mapping | Any = 0, *, scheduler=None) -> pd.DataFrame:
    """Per topology domain of one constraint: its nodes, whether it is eligible, the matching
    pods PodTopologySpread counts there, and the skew placing ``pod`` there would give.

    ``pod`` is a key of the cluster (usually the pending pod), a Pod or a PodInfo.
    ``constraint`` is an index into :func:`spread_constraints` (default: the first), or a
    ``topologySpreadConstraint`` (dict in camelCase or model) to try on the pod.
    Columns: ``nodes`` (comma-separated), ``eligible`` (the domain has a node that counts),
    ``matching pods``, ``self match`` (1 when the pod matches the selector itself),
    ``global minimum``, ``skew if placed`` (None where the pod cannot go: not eligible),
    ``maxSkew`` and ``fits`` (skew if placed <= maxSkew). A last row collects the nodes without
    the topology key, if any. ``attrs`` holds the constraint: ``topologyKey``, ``maxSkew``,
    ``minDomains``, ``whenUnsatisfiable``, ``selector``, ``eligible domains``,
    ``global minimum``, ``nodeAffinityPolicy``, ``nodeTaintsPolicy``.

    For a ``ScheduleAnyway`` constraint nothing is filtered: the counts are what the score
    prefers to keep low (Score uses ``count × ln(domains + 2) + maxSkew - 1``), ``fits`` is
    still shown to compare with the hard rule.
    """
    sched = _scheduler(cluster, scheduler)
    info = _pod_info(cluster, pod)
    plugin = _plugin(sched, info.pod)
    c, when, group, idx = _resolve(cluster, info, plugin, constraint)
    snapshot = cluster.snapshot
    state = plugin.calculate_pre_filter_state(info, snapshot, group)
    d = state.domains[idx]
    self_match = 1 if c.selector.matches(info.labels) else 0
    minimum = d.min_match_num()
    eligible_domains = d.domains()
    if minimum == MAX_INT32:
        minimum = None
    values = list(d.vocab)
    rows = snapshot.order
    codes = d.codes[rows]
    records = {}
    for code, value in enumerate(values):
        names = [snapshot.names[int(r)] for r in rows[codes == code]]
        if not names:
            continue
        eligible = bool(code < len(d.present) and d.present[code])
        count = int(d.counts[code]) if eligible else 0
        skew = count + self_match - minimum if eligible and minimum is not None else None
        records[value] = {"nodes": ", ".join(names), "eligible": eligible, "matching pods": count,
                          "self match": self_match, "global minimum": minimum, "skew if placed": skew,
                          "maxSkew": c.max_skew, "fits": bool(skew is not None and skew <= c.max_skew)}
    missing = [snapshot.names[int(r)] for r in rows[codes < 0]]
    if missing:
        records[NO_LABEL.format(key=c.topology_key)] = {
            "nodes": ", ".join(missing), "eligible": False, "matching pods": 0, "self match": self_match,
            "global minimum": minimum, "skew if placed": None, "maxSkew": c.max_skew, "fits": False}
    df = pd.DataFrame.from_dict(records, orient="index", columns=_TABLE_COLUMNS)
    df.index.name = c.topology_key
    df = df.astype({"skew if placed": "Int64", "global minimum": "Int64"})
    df.attrs.update({"pod": info.key, "topologyKey": c.topology_key, "maxSkew": c.max_skew,
                     "minDomains": c.min_domains, "whenUnsatisfiable": when, "selector": str(c.selector),
                     "eligible domains": eligible_domains, "global minimum": minimum,
                     "nodeAffinityPolicy": c.node_affinity_policy, "nodeTaintsPolicy": c.node_taints_policy})
    return df


# -- the figure ------------------------------------------------------------------------------------------
def _panel_title(attrs: Mapping) -> str:
    extra = f", minDomains {attrs['minDomains']}" if attrs["minDomains"] != 1 else ""
    return esc(f"{attrs['topologyKey']}: maxSkew {attrs['maxSkew']}{extra}, {attrs['whenUnsatisfiable']}")


def _add_panel(fig, table: pd.DataFrame, col: int, *, show_legend: bool) -> None:
    a = table.attrs
    hard = a["whenUnsatisfiable"] == DO_NOT_SCHEDULE
    x = [esc(v) for v in table.index]
    y = [int(v) for v in table["matching pods"]]
    colors, labels, custom = [], [], []
    for _value, row in table.iterrows():
        skew = row["skew if placed"]
        if not row["eligible"]:
            colors.append(NOT_RUN_COLOR)
            labels.append("not eligible")
        elif not hard:
            colors.append(SOFT_COLOR)
            labels.append(f"skew {skew}")
        elif row["fits"]:
            colors.append(FITS_COLOR)
            labels.append(f"skew {skew} ≤ {row['maxSkew']} ✓")
        else:
            colors.append(FULL_COLOR)
            labels.append(f"skew {skew} > {row['maxSkew']} ✗")
        custom.append([esc(row["nodes"]), "-" if pd.isna(skew) else int(skew), labels[-1]])
    fig.add_trace(go.Bar(
        x=x, y=y, marker_color=colors, text=labels, textposition="outside", name="matching pods",
        showlegend=False, customdata=custom, cliponaxis=False,
        hovertemplate=("%{x}: %{y} matching pod(s)<br>nodes: %{customdata[0]}<br>"
                       "skew if placed here: %{customdata[1]} (%{customdata[2]})<extra></extra>")), row=1, col=col)
    minimum = a["global minimum"]
    top = max(y + [0])
    if minimum is not None:
        below = a["eligible domains"] < a["minDomains"]
        name = "global minimum" + (f" (0: {a['eligible domains']} eligible < minDomains {a['minDomains']})"
                                   if below else "")
        fig.add_trace(go.Scatter(x=x, y=[minimum] * len(x), mode="lines", name=esc(name), legendgroup="min",
                                 showlegend=show_legend, line={"dash": "dash", "color": "#444"},
                                 hovertemplate=f"{esc(name)}: {minimum}<extra></extra>"), row=1, col=col)
        limit = minimum + a["maxSkew"] - int(table["self match"].iloc[0]) if len(table) else minimum
        if hard:
            fig.add_trace(go.Scatter(x=x, y=[limit] * len(x), mode="lines", name="most a domain may hold to fit",
                                     legendgroup="limit", showlegend=show_legend,
                                     line={"dash": "dot", "color": FULL_COLOR},
                                     hovertemplate=(f"a domain with more than {limit} matching pods is full "
                                                    f"(minimum {minimum} + maxSkew {a['maxSkew']} - self match "
                                                    f"{int(table['self match'].iloc[0])})<extra></extra>")),
                          row=1, col=col)
            top = max(top, limit)
    fig.update_yaxes(range=[0, top * 1.35 + 1.5], row=1, col=col)


def topology_skew(cluster, pod, constraint: int | Mapping | Any | None = None, *, scheduler=None,
                  title: str | None = None) -> go.Figure:
    """Matching pods per domain of the pod's spread constraint(s), one panel per constraint.

    Bars are :func:`spread_table`'s ``matching pods``: green where the pod may go (skew if
    placed ≤ maxSkew), red where it may not, grey for domains that are not eligible, light blue
    for ``ScheduleAnyway`` constraints (scored, not filtered). The dashed line is the global
    minimum, the dotted one the most matching pods a domain may hold for the pod to fit. Each
    bar's text is the skew placing the pod there would give. ``constraint=None`` draws every
    constraint of :func:`spread_constraints`; an index or a constraint dict draws one.

    >>> from kschedlab import Cluster
    >>> from pathlib import Path
    >>> data = Path(__file__).resolve().parents[2] / "datasets" / "topology-spread"
    >>> fig = topology_skew(Cluster.from_manifests(data / "02-two-constraints.yaml"), "default/mypod")
    >>> [(t.x, t.text) for t in fig.data if t.name == "matching pods"]   # doctest: +NORMALIZE_WHITESPACE
    [(('zoneA', 'zoneB'), ('skew 2 > 1 ✗', 'skew 1 ≤ 1 ✓')),
     (('node1', 'node2', 'node3', 'node4'), ('skew 2 > 1 ✗', 'skew 2 > 1 ✗', 'skew 2 > 1 ✗', 'skew 1 ≤ 1 ✓'))]
    """
    sched = _scheduler(cluster, scheduler)
    info = _pod_info(cluster, pod)
    if constraint is None:
        n = len(spread_constraints(cluster, info, scheduler=sched))
        if n == 0:
            from kschedlab.viz.figures import message_figure

            return message_figure(esc(title or f"Topology spread: {info.key}"),
                                   "the pod has no topology spread constraints (and no default applies)")
        tables = [spread_table(cluster, info, i, scheduler=sched) for i in range(n)]
    else:
        tables = [spread_table(cluster, info, constraint, scheduler=sched)]
    return _skew_figure(tables, [_panel_title(t.attrs) for t in tables],
                        title or f"Topology spread of {info.key}: matching pods per domain")


def _skew_figure(tables: Sequence[pd.DataFrame], subtitles: Sequence[str], title: str,
                 notes: Sequence[str] | None = None) -> go.Figure:
    fig = make_subplots(rows=1, cols=len(tables), subplot_titles=list(subtitles), horizontal_spacing=0.08)
    for i, table in enumerate(tables, start=1):
        _add_panel(fig, table, i, show_legend=i == 1)
        fig.update_xaxes(title_text=esc(table.attrs["topologyKey"]), row=1, col=i)
    fig.update_yaxes(title_text="matching pods", row=1, col=1)
    if notes:
        for i, note in enumerate(notes, start=1):
            # below the panel's tick labels and axis title (70 px), never over them
            fig.add_annotation(text=note, xref=f"x{'' if i == 1 else i} domain", yref="paper", x=0.5, y=0,
                               yanchor="top", yshift=-70, showarrow=False, font={"size": 11}, align="center")
    fig.update_layout(template=TEMPLATE, title=esc(title), height=430 + (90 if notes else 0),
                      margin={"b": 160 if notes else 60, "t": 100},
                      legend={"orientation": "h", "y": 1.13, "x": 1, "xanchor": "right", "yanchor": "bottom"})
    return fig


# -- what if: variants of the pod's constraint, side by side -----------------------------------------------
def with_constraint(pod, overrides: Mapping[str, Any], constraint: int = 0):
    """A copy of ``pod`` (a Pod) whose ``spec.topologySpreadConstraints[constraint]`` has the
    camelCase fields of ``overrides`` set (``None`` removes a field).

    >>> from kschedlab.api.core import Pod
    >>> pod = Pod.model_validate({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c"}],
    ...     "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone",
    ...                                    "whenUnsatisfiable": "DoNotSchedule"}]}})
    >>> c = with_constraint(pod, {"minDomains": 3}).spec.topology_spread_constraints[0]
    >>> c.min_domains, pod.spec.topology_spread_constraints[0].min_domains
    (3, None)
    """
    from kschedlab.api.core import Pod

    data = pod.model_dump(mode="json", by_alias=True, exclude_unset=True)
    constraints = data.get("spec", {}).get("topologySpreadConstraints") or []
    if not constraints:
        raise ValueError(f"pod {pod.metadata.name} has no topologySpreadConstraints to change")
    target = constraints[constraint]
    for key, value in overrides.items():
        if value is None:
            target.pop(key, None)
        else:
            target[key] = value
    return Pod.model_validate(data)


def _variant_cluster(cluster, key: str, overrides: Mapping[str, Any], constraint: int):
    fresh = copy.deepcopy(cluster)
    pod = with_constraint(fresh.pods[key], overrides, constraint) if overrides else fresh.pods[key]
    fresh.remove_pod(key)
    fresh.add(pod)
    return fresh


def spread_variants(cluster, pod: str, variants: Mapping[str, Mapping[str, Any]], *, constraint: int = 0,
                    seed: int = 0) -> pd.DataFrame:
    """Schedule the pending pod ``pod`` (a key) once per variant of its constraint, each on a
    fresh copy of the cluster. ``variants`` maps a label to the fields to set (see
    :func:`with_constraint`; ``{}`` = the pod as it is). One row per variant: the node (empty
    when unschedulable), the message, the global minimum and the eligible domains.

    >>> from kschedlab import Cluster
    >>> from pathlib import Path
    >>> data = Path(__file__).resolve().parents[2] / "datasets" / "topology-spread"
    >>> t = spread_variants(Cluster.from_manifests(data / "06-min-domains.yaml"), "default/mypod",
    ...                     {"unset": {}, "minDomains 4": {"minDomains": 4}})
    >>> t[["node", "global minimum"]].to_dict("index")
    {'unset': {'node': 'node5', 'global minimum': 1}, 'minDomains 4': {'node': '', 'global minimum': 0}}
    """
    require_pending(cluster, pod)
    records = []
    for label, overrides in variants.items():
        fresh = _variant_cluster(cluster, pod, overrides, constraint)
        from kschedlab.scheduler import Scheduler

        sched = Scheduler(fresh, seed=seed)
        table = spread_table(fresh, pod, constraint, scheduler=sched)
        result = sched.schedule_one(pod)
        records.append({"variant": label, "node": result.node or "", "message": result.message,
                        "global minimum": table.attrs["global minimum"],
                        "eligible domains": table.attrs["eligible domains"]})
    return pd.DataFrame.from_records(records, columns=["variant", "node", "message", "global minimum",
                                                       "eligible domains"]).set_index("variant")


def _wrap(text: str, width: int = 48) -> str:
    words, lines, line = text.split(" "), [], ""
    for w in words:
        if line and len(line) + 1 + len(w) > width:
            lines.append(line)
            line = w
        else:
            line = f"{line} {w}" if line else w
    if line:
        lines.append(line)
    return "<br>".join(esc(x) for x in lines)


def compare_spread(cluster, pod: str, variants: Mapping[str, Mapping[str, Any]], *, constraint: int = 0,
                   seed: int = 0, title: str | None = None) -> go.Figure:
    """:func:`topology_skew` of each variant of the pod's constraint side by side, each panel
    titled with the variant and where the scheduler then puts the pod (under the panel: the
    message when it stays Pending). Same variants as :func:`spread_variants`.

    >>> from kschedlab import Cluster
    >>> from pathlib import Path
    >>> data = Path(__file__).resolve().parents[2] / "datasets" / "topology-spread"
    >>> fig = compare_spread(Cluster.from_manifests(data / "06-min-domains.yaml"), "default/mypod",
    ...                      {"unset": {}, "minDomains: 4": {"minDomains": 4}})
    >>> [a.text for a in fig.layout.annotations][:2]
    ['unset → node5', 'minDomains: 4 → Pending']
    """
    from kschedlab.scheduler import Scheduler

    require_pending(cluster, pod)
    tables, subtitles, notes = [], [], []
    for label, overrides in variants.items():
        fresh = _variant_cluster(cluster, pod, overrides, constraint)
        sched = Scheduler(fresh, seed=seed)
        tables.append(spread_table(fresh, pod, constraint, scheduler=sched))
        result = sched.schedule_one(pod)
        subtitles.append(esc(f"{label} → {result.node or 'Pending'}"))
        notes.append(_wrap(result.message) if result.message else "")
    return _skew_figure(tables, subtitles, title or f"{pod}: variants of its constraint side by side",
                        notes if any(notes) else None)


# -- building scenarios step by step (the SpreadExplorer's verbs) -------------------------------------------
def add_matching_pod(cluster, pod, node: str, name: str):
    """Bind a new pod to ``node`` carrying the labels and namespace of ``pod`` (a key or a
    Pod) and nothing else, as an existing replica would; returns its key.

    >>> from kschedlab import Cluster
    >>> from pathlib import Path
    >>> data = Path(__file__).resolve().parents[2] / "datasets" / "topology-spread"
    >>> cluster = Cluster.from_manifests(data / "01-one-constraint.yaml")
    >>> add_matching_pod(cluster, "default/mypod", "node4", "extra")
    'default/extra'
    >>> spread_table(cluster, "default/mypod")["matching pods"].to_dict()
    {'zoneA': 2, 'zoneB': 2}
    """
    from kschedlab.api.core import Pod

    source = cluster.pods[pod] if isinstance(pod, str) else pod
    if node not in cluster.nodes:
        raise KeyError(f"no node {node!r} in the cluster")
    new = Pod.model_validate({"metadata": {"name": name, "namespace": source.metadata.namespace or "default",
                                           "labels": dict(source.metadata.labels)},
                              "spec": {"nodeName": node, "containers": [{"name": "c"}]}})
    cluster.add(new)
    return f"{new.metadata.namespace}/{name}"


def add_replica(cluster, pod, name: str):
    """Add a pending copy of ``pod`` (a key or a Pod) named ``name``; returns its key."""
    source = cluster.pods[pod] if isinstance(pod, str) else pod
    new = source.clone()
    new.metadata.name = name
    new.spec.node_name = None
    if new.status is not None:
        new.status.nominated_node_name = None
    cluster.add(new)
    return f"{new.metadata.namespace or ''}/{name}"


def probe(cluster, pod: str, *, seed: int = 0):
    """Where the scheduler would put the pending pod ``pod`` now: its ScheduleResult on a
    deep copy of the cluster (the cluster itself does not change).

    >>> from kschedlab import Cluster
    >>> from pathlib import Path
    >>> data = Path(__file__).resolve().parents[2] / "datasets" / "topology-spread"
    >>> cluster = Cluster.from_manifests(data / "02-two-constraints.yaml")
    >>> probe(cluster, "default/mypod").node, cluster.pods["default/mypod"].spec.node_name
    ('node4', None)
    """
    from kschedlab.scheduler import Scheduler

    require_pending(cluster, pod)
    fresh = copy.deepcopy(cluster)
    return Scheduler(fresh, seed=seed).schedule_one(pod)


def require_pending(cluster, pod: str) -> None:
    if pod not in cluster.pods:
        raise KeyError(f"no pod {pod!r} in the cluster")
    node = cluster.pods[pod].spec.node_name
    if node:
        raise ValueError(f"pod {pod} is already bound to {node}: use a pending pod (or a copy of the cluster "
                         "from before it was scheduled)")


def place_replicas(cluster, pod: str, count: int, *, constraint: int = 0, seed: int = 0) -> pd.DataFrame:
    """Schedule ``count`` copies of the pending pod ``pod`` one after the other on a copy of the
    cluster (each bound where the scheduler puts it, or left out when it stays Pending). One
    row per replica: the node, its domain for constraint ``constraint`` and the matching pods
    per domain after it.

    >>> from kschedlab import Cluster
    >>> from pathlib import Path
    >>> data = Path(__file__).resolve().parents[2] / "datasets" / "topology-spread"
    >>> t = place_replicas(Cluster.from_manifests(data / "01-one-constraint.yaml"), "default/mypod", 3)
    >>> t["after"].tolist()
    ['zoneA=2 zoneB=2', 'zoneA=2 zoneB=3', 'zoneA=3 zoneB=3']
    """
    from kschedlab.scheduler import Scheduler

    require_pending(cluster, pod)
    fresh = copy.deepcopy(cluster)
    key_of = spread_table(fresh, pod, constraint).attrs["topologyKey"]
    name = fresh.pods[pod].metadata.name
    records = []
    for i in range(1, count + 1):
        key = add_replica(fresh, pod, f"{name}-{i}")
        result = Scheduler(fresh, seed=seed).schedule_one(key)
        if not result.node:
            fresh.remove_pod(key)
        t = spread_table(fresh, pod, constraint)
        after = " ".join(f"{k}={int(v)}" for k, v in t.loc[t["eligible"], "matching pods"].items())
        domain = fresh.nodes[result.node].metadata.labels.get(key_of, "") if result.node else ""
        records.append({"replica": key, "node": result.node or "", key_of: domain, "after": after,
                        "message": result.message})
    return pd.DataFrame.from_records(records, columns=["replica", "node", key_of, "after", "message"]).set_index(
        "replica")
