"""DeclaredFeaturesExplorer: pick a pod and change what each node's kubelet declares; see the
features the pod needs, which nodes NodeDeclaredFeatures lets through, and where it lands.

>>> from pathlib import Path
>>> from kschedlab.controllers.manifests import load_manifests
>>> objs = load_manifests(Path(__file__).resolve().parents[2] / "datasets" / "node-declared-features"
...                       / "mixed-kubelets.yaml")
>>> ex = DeclaredFeaturesExplorer(objs, "default/netprobe")
>>> len(ex.last.feasible), ex.last.node
(0, None)
>>> ex.set(node="node-old", declared=["UserNamespacesHostNetworkSupport"]).last.feasible
['node-old']
>>> ex
DeclaredFeaturesExplorer(pod='default/netprobe', feasible=1)
"""

from __future__ import annotations

from typing import Iterable

import ipywidgets as widgets

from kschedlab.api.node_declared_features import DEFAULT_FRAMEWORK
from kschedlab.viz.common import esc
from kschedlab.viz.node_declared_features import FeaturesOutcome, features_outcome
from kschedlab.widgets._display import set_quietly

__all__ = ["DeclaredFeaturesExplorer"]


class DeclaredFeaturesExplorer(widgets.VBox):
    """A pod picker and, per node, a multi-select of the registry's features the node declares.
    ``last`` is the latest :class:`~kschedlab.viz.node_declared_features.FeaturesOutcome`; the
    objects passed in are not changed."""

    def __init__(self, objects: Iterable, pod: str):
        self.objects = list(objects)
        pods = [f"{o.metadata.namespace or ''}/{o.metadata.name}" for o in self.objects
                if type(o).__name__ == "Pod" and not o.spec.node_name]
        nodes = [o for o in self.objects if type(o).__name__ == "Node"]
        style = {"description_width": "110px"}
        self.pod = widgets.Dropdown(options=pods, value=pod, description="pod", style=style,
                                    layout=widgets.Layout(width="420px"))
        self.nodes: dict[str, widgets.SelectMultiple] = {}
        for node in nodes:
            declared = [f for f in node.status.declared_features if f in DEFAULT_FRAMEWORK.names]
            self.nodes[node.metadata.name] = widgets.SelectMultiple(
                options=DEFAULT_FRAMEWORK.names, value=tuple(declared), rows=6,
                description=node.metadata.name, style=style, layout=widgets.Layout(width="470px"))
        self.summary = widgets.HTML()
        self.last: FeaturesOutcome | None = None
        grid = widgets.GridBox(list(self.nodes.values()),
                               layout=widgets.Layout(grid_template_columns="repeat(2, 480px)"))
        super().__init__(children=[self.pod, widgets.HTML("<b>status.declaredFeatures</b> per node "
                                                           "(ctrl/cmd-click to change)"), grid, self.summary])
        for control in (self.pod, *self.nodes.values()):
            control.observe(self.update, names="value")
        self.update()

    def set(self, *, pod: str | None = None, node: str | None = None,
            declared: Iterable[str] | None = None) -> "DeclaredFeaturesExplorer":
        """Choose the pod and/or replace one node's declared list, then redraw once (scripts, tests)."""
        changes = []
        if pod is not None:
            changes.append((self.pod, pod))
        if node is not None:
            changes.append((self.nodes[node], tuple(sorted(declared or ()))))
        for control, value in changes:
            set_quietly(control, value, self.update)
        self.update()
        return self

    def update(self, *_) -> None:
        """Schedule the chosen pod against the declared lists now selected and redraw."""
        declared = {name: list(control.value) for name, control in self.nodes.items()}
        out = features_outcome(self.objects, self.pod.value, declared)
        self.last = out
        needs = ", ".join(out.required) or "nothing (PreFilter skips the plugin)"
        rows = "".join(
            f"<tr><td>{esc(n)}</td><td>{'passes' if not miss else 'rejected: lacks ' + esc(', '.join(miss))}</td></tr>"
            for n, miss in out.missing.items())
        verdict = (f"scheduled on <b>{esc(out.node)}</b>" if out.node
                   else f"unschedulable: <code>{esc(out.message)}</code>")
        self.summary.value = (f"the pod needs <b>{esc(needs)}</b><br>"
                              f"<table>{rows}</table>"
                              f"nodes passing every Filter: <b>{len(out.feasible)}</b> → {verdict}")

    def __repr__(self) -> str:
        n = len(self.last.feasible) if self.last else 0
        return f"DeclaredFeaturesExplorer(pod={self.pod.value!r}, feasible={n})"
