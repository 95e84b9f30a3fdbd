"""ScoreExplorer: change a pod's requests and NodeResourcesFit's scoring
strategy, and watch every score move.

Each change re-runs :func:`kschedlab.viz.calc.what_if`: a fresh cluster from
the factory, the pod with the new requests, a new Scheduler with the chosen
strategy.  The widget only wires controls to that function and to the
figures of :mod:`kschedlab.viz`; use ``what_if`` directly for the same numbers
without widgets.

>>> from kschedlab import Cluster
>>> from kschedlab.scenarios import path
>>> pod = '''
... apiVersion: v1
... kind: Pod
... metadata: {name: probe, namespace: default}
... spec: {containers: [{name: c, resources: {requests: {cpu: 500m, memory: 512Mi}}}]}
... '''
>>> ex = ScoreExplorer(lambda: Cluster.from_manifests(path("default")), pod)
>>> ex
ScoreExplorer(pod='default/probe', cpu=500m, memory=512Mi, strategy='LeastAllocated') -> node-b2
>>> ex.set(strategy="MostAllocated").last.result.node
'node-a2'
>>> ex.set(cpu=3000).last.result.trace.ties   # node-a1 and node-b2 are identical
2
"""

from __future__ import annotations

import ipywidgets as widgets

from kschedlab.api.resources import CPU, MEMORY, resource_list
from kschedlab.plugins.node_resources_fit import LEAST_ALLOCATED, REQUESTED_TO_CAPACITY_RATIO, STRATEGIES
from kschedlab.viz.calc import parse_shape, parse_weights, pod_with_requests, to_yaml, what_if
from kschedlab.viz.common import esc
from kschedlab.viz.figures import score_breakdown
from kschedlab.widgets._display import pre, set_figure, set_quietly, table_html

__all__ = ["ScoreExplorer"]

_MIB = 2**20


def _fmt_shape(points) -> str:
    return ", ".join(f"{u}:{s}" for u, s in points)


class ScoreExplorer(widgets.VBox):
    """Sliders for the pod's cpu (millicores) and memory (MiB) requests, a
    choice of scoring strategy, resource weights and (for
    RequestedToCapacityRatio) the shape; below, the score breakdown figure,
    NodeResourcesFit's worksheet, ``explain()`` and the configuration YAML.

    ``cluster_factory`` returns a new Cluster each call (or pass a Cluster:
    it is deep-copied, never changed).  ``pod_yaml`` holds one Pod; its first
    container's requests are the starting values.  ``last`` is the latest
    :class:`~kschedlab.viz.calc.WhatIf` (or None after an error, shown in
    ``status``).
    """

    def __init__(self, cluster_factory, pod_yaml: str, *, strategy: str = LEAST_ALLOCATED,
                 weights: str = "cpu=1, memory=1", shape=((0, 0), (100, 10)), max_cpu: int = 16000,
                 max_memory: int = 32768, seed: int = 0):
        self.cluster_factory = cluster_factory
        self.pod_yaml = pod_yaml
        self.seed = seed
        self.last = None
        pod = pod_with_requests(pod_yaml)
        self.pod_key = f"{pod.metadata.namespace or 'default'}/{pod.metadata.name}"
        first = resource_list(pod.spec.containers[0].resources.requests) if pod.spec.containers[0].resources else {}
        cpu0, mem0 = int(first.get(CPU, 0)), int(first.get(MEMORY, 0)) // _MIB
        style = {"description_width": "110px"}
        wide = widgets.Layout(width="520px")
        self.cpu = widgets.IntSlider(value=cpu0, min=0, max=max(max_cpu, cpu0), step=50, description="cpu (m)",
                                     continuous_update=False, style=style, layout=wide)
        self.memory = widgets.IntSlider(value=mem0, min=0, max=max(max_memory, mem0), step=64,
                                        description="memory (Mi)", continuous_update=False, style=style,
                                        layout=wide)
        self.strategy = widgets.ToggleButtons(options=list(STRATEGIES), value=strategy, description="strategy",
                                              style={**style, "button_width": "auto"})
        self.weights = widgets.Text(value=weights, description="weights", continuous_update=False, style=style,
                                    layout=wide)
        self.shape = widgets.Text(value=_fmt_shape(shape), description="shape u:s", continuous_update=False,
                                  style=style, layout=wide)
        self.status = widgets.HTML()
        self.figure = widgets.Output()
        self.worksheet = widgets.HTML()
        self.explain = widgets.HTML()
        self.config = widgets.HTML()
        tabs = widgets.Tab(children=[self.worksheet, self.explain, self.config])
        for i, name in enumerate(["Fit worksheet", "explain()", "config YAML"]):
            tabs.set_title(i, name)
        header = widgets.HTML(f"<b>ScoreExplorer</b>: pod <code>{esc(self.pod_key)}</code> "
                              "(requests 0 = not set: scoring counts 100m / 200Mi)")
        super().__init__(children=[header, self.cpu, self.memory, self.strategy, self.weights, self.shape,
                                   self.status, self.figure, tabs])
        for control in (self.cpu, self.memory, self.strategy, self.weights, self.shape):
            control.observe(self.update, names="value")
        self.update()

    def set(self, **values) -> "ScoreExplorer":
        """Set controls by name (``cpu``, ``memory``, ``strategy``, ``weights``, ``shape``) and re-run once."""
        with self.hold_trait_notifications():
            for name, value in values.items():
                control = getattr(self, name)
                if name == "shape" and not isinstance(value, str):
                    value = _fmt_shape(value)
                set_quietly(control, value, self.update)
        self.update()
        return self

    def update(self, *_):
        """Re-run the scheduler with the current controls and refresh every view."""
        rtcr = self.strategy.value == REQUESTED_TO_CAPACITY_RATIO
        self.shape.layout.display = None if rtcr else "none"
        try:
            w = what_if(self.cluster_factory, self.pod_yaml, cpu=self.cpu.value, memory=self.memory.value,
                        strategy=self.strategy.value, resources=parse_weights(self.weights.value),
                        shape=parse_shape(self.shape.value) if rtcr else None, seed=self.seed)
        except ValueError as err:
            self.last = None
            self.status.value = f"<span style='color:#D55E00'>{esc(err)}</span>"
            return
        self.last = w
        r = w.result
        if r.node:
            self.status.value = f"<b>{esc(r.pod)}</b> → <b>{esc(r.node)}</b>"
        else:
            self.status.value = f"<b>{esc(r.pod)}</b>: <span style='color:#D55E00'>{esc(r.message)}</span>"
        set_figure(self.figure, score_breakdown(r))
        sheet = w.worksheet
        if len(sheet.nodes):
            cols = ["node", "resource", "weight", "allocatable", "on node", "pod", "requested", "score", "formula"]
            self.worksheet.value = (table_html(sheet.resources[cols], f"{sheet.strategy}: per resource")
                                    + table_html(sheet.nodes, "per node (plugin = what NodeResourcesFit returned)"))
        else:
            self.worksheet.value = "<p>no node was scored</p>"
        self.explain.value = table_html(r.explain()) if r.trace is not None else ""
        self.config.value = pre(to_yaml(w.config))

    def __repr__(self) -> str:
        where = f" -> {self.last.result.node or 'unschedulable'}" if self.last is not None else ""
        return (f"ScoreExplorer(pod={self.pod_key!r}, cpu={self.cpu.value}m, memory={self.memory.value}Mi, "
                f"strategy={self.strategy.value!r}){where}")
