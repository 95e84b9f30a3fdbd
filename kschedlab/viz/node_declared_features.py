"""Node declared features as tables and a figure: what each pod needs, what each node declares,
which pod fits which node, and what-if answers for other declared lists.

>>> from pathlib import Path
>>> from kschedlab.controllers.manifests import load_manifests
>>> objs = load_manifests(Path(__file__).resolve().parents[2] / "datasets" / "node-declared-features"
...                       / "mixed-kubelets.yaml")
>>> out = features_outcome(objs, "default/db")
>>> out.required, out.feasible, out.node
(['ContainerUlimits'], ['node-new-2'], 'node-new-2')
>>> features_outcome(objs, "default/db", declared={"node-new-1": ["ContainerUlimits"]}).feasible
['node-new-1', 'node-new-2']
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Mapping

import pandas as pd
import plotly.graph_objects as go

from kschedlab.api.node_declared_features import COMPONENT_VERSION, DEFAULT_FRAMEWORK, FEATURES
from kschedlab.viz.common import TEMPLATE

__all__ = ["FeaturesOutcome", "declared_table", "feature_fit_figure", "feature_fit_matrix", "features_outcome",
           "registry_table", "requirements_table"]

#: colour-blind-safe pair (blue / orange) for fits / does not fit
FIT_COLOR = "#0072B2"
MISSING_COLOR = "#E69F00"


def _nodes(objects) -> list:
    return [o for o in objects if type(o).__name__ == "Node"]


def _pods(objects) -> list:
    return [o for o in objects if type(o).__name__ == "Pod"]


def _key(pod) -> str:
    return f"{pod.metadata.namespace or ''}/{pod.metadata.name}"


def required_names(pod) -> list[str]:
    """The names of the features ``pod`` needs (registry order)."""
    return DEFAULT_FRAMEWORK.unmap(DEFAULT_FRAMEWORK.infer_for_pod_scheduling(pod.spec, COMPONENT_VERSION))


def registry_table() -> pd.DataFrame:
    """The modelled registry: each feature, the pod fields it is inferred from, the kubelet gate."""
    return pd.DataFrame([{"feature": f.name, "a pod needs it when it sets": f.pod_fields,
                          "kubelet gate": ", ".join(f.kubelet_gates)} for f in FEATURES]).set_index("feature")


def requirements_table(objects: Iterable) -> pd.DataFrame:
    """One row per pod: the features it needs (empty when none)."""
    return pd.DataFrame([{"pod": _key(p), "required features": ", ".join(required_names(p)) or "—"}
                         for p in _pods(objects)]).set_index("pod")


def declared_table(objects: Iterable) -> pd.DataFrame:
    """One row per node: its ``status.declaredFeatures``."""
    return pd.DataFrame([{"node": n.metadata.name,
                          "status.declaredFeatures": ", ".join(n.status.declared_features) or "— (none)"}
                         for n in _nodes(objects)]).set_index("node")


def feature_fit_matrix(objects: Iterable) -> pd.DataFrame:
    """Pods × nodes: ``""`` where the node declares all the pod needs, else the missing features."""
    nodes = _nodes(objects)
    rows = {}
    for pod in _pods(objects):
        reqs = DEFAULT_FRAMEWORK.infer_for_pod_scheduling(pod.spec, COMPONENT_VERSION)
        rows[_key(pod)] = {n.metadata.name: ", ".join(DEFAULT_FRAMEWORK.unsatisfied(reqs, n.status.declared_features))
                           for n in nodes}
    return pd.DataFrame.from_dict(rows, orient="index")


def feature_fit_figure(matrix: pd.DataFrame, title: str = "Which node declares what each pod needs") -> go.Figure:
    """A pods × nodes grid: blue where NodeDeclaredFeatures passes the node, orange (with the
    missing features written in the cell) where it rejects it."""
    z = [[0 if not cell else 1 for cell in row] for row in matrix.values]
    text = [["fits" if not cell else "missing: " + cell.replace(", ", "<br>") for cell in row] for row in matrix.values]
    fig = go.Figure(go.Heatmap(
        z=z, x=list(matrix.columns), y=list(matrix.index), text=text, texttemplate="%{text}",
        colorscale=[[0, FIT_COLOR], [0.5, FIT_COLOR], [0.5, MISSING_COLOR], [1, MISSING_COLOR]], zmin=0, zmax=1,
        showscale=False, xgap=3, ygap=3, hovertemplate="pod %{y}<br>node %{x}<br>%{text}<extra></extra>"))
    fig.update_traces(textfont={"size": 11})
    fig.update_layout(template=TEMPLATE, title=title, height=140 + 70 * len(matrix.index),
                      width=220 + 260 * len(matrix.columns),
                      margin={"l": 140, "r": 30, "t": 60, "b": 60},
                      xaxis={"title": "node", "side": "bottom"}, yaxis={"title": "pod", "autorange": "reversed"})
    return fig


@dataclass
class FeaturesOutcome:
    """One pod scheduled once against nodes with the given declared lists."""

    pod: str
    required: list[str]
    declared: dict[str, list[str]]
    #: node -> features it lacks (empty when it passes NodeDeclaredFeatures)
    missing: dict[str, list[str]] = field(default_factory=dict)
    feasible: list[str] = field(default_factory=list)
    node: str | None = None
    message: str = ""


def features_outcome(objects: Iterable, pod: str, declared: Mapping[str, list[str]] | None = None,
                     *, seed: int = 0) -> FeaturesOutcome:
    """Schedule ``pod`` ("namespace/name") alone, after replacing the declared lists of the nodes
    named in ``declared`` (each sorted as a kubelet writes it). ``feasible`` lists the nodes passing
    every Filter plugin; ``node`` is where the scheduler binds the pod (None: unschedulable, with
    ``message``). The objects passed in are not changed."""
    from kschedlab.cluster import Cluster
    from kschedlab.scheduler import Scheduler

    objects = [o.clone() for o in objects]
    for o in _nodes(objects):
        if declared and o.metadata.name in declared:
            o.status.declared_features = sorted(declared[o.metadata.name])
    cluster = Cluster([o for o in objects if type(o).__name__ != "Pod" or _key(o) == pod or o.spec.node_name])
    target = cluster.pods[pod]
    reqs = DEFAULT_FRAMEWORK.infer_for_pod_scheduling(target.spec, COMPONENT_VERSION)
    missing = {n: DEFAULT_FRAMEWORK.unsatisfied(reqs, node.status.declared_features) for n, node in cluster.nodes.items()}
    result = Scheduler(cluster, seed=seed).schedule_one(pod)
    statuses = result.trace.filter_statuses() if result.trace is not None else {}
    feasible = sorted(n for n, status in statuses.items() if status.is_success())
    return FeaturesOutcome(pod, DEFAULT_FRAMEWORK.unmap(reqs),
                           {n: list(node.status.declared_features) for n, node in cluster.nodes.items()},
                           missing, feasible, result.node, result.message)
