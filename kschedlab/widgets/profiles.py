"""ProfileExplorer: switch a profile's Score plugins on and off, change their weights, and see
the totals and the chosen node move.

>>> from kschedlab import Cluster
>>> from kschedlab.scenarios import path
>>> ex = ProfileExplorer(lambda: Cluster.from_manifests(path("default")), "default/web-0")
>>> ex.last.node, sorted(ex.weights())[:2]
('node-a1', ['DynamicResources', 'ImageLocality'])
>>> ex.set(weights={"NodeResourcesFit": 0}).last.explain().filter(like="NodeResourcesFit").shape[1]
0
>>> ex.set(weights={"TaintToleration": 0, "NodeAffinity": 0, "PodTopologySpread": 0, "InterPodAffinity": 0,
...                 "DynamicResources": 0, "ImageLocality": 0, "VolumeBinding": 0})
ProfileExplorer(pod='default/web-0', weights={'NodeResourcesBalancedAllocation': 1}) -> node-b2
"""

from __future__ import annotations

from typing import Callable, Mapping

import ipywidgets as widgets

from kschedlab.cluster import Cluster
from kschedlab.framework.profile import resolve_profile
from kschedlab.viz.calc import to_yaml
from kschedlab.viz.common import esc
from kschedlab.viz.figures import score_breakdown
from kschedlab.viz.profiles import schedule_with_profile, score_profile
from kschedlab.widgets._display import pre, set_figure, set_quietly, table_html

__all__ = ["ProfileExplorer"]


class ProfileExplorer(widgets.VBox):
    """A weight slider per Score plugin (0 disables it) for a one-profile configuration built by
    :func:`~kschedlab.viz.profiles.score_profile`; each change schedules ``pod`` on a fresh cluster
    from ``cluster_factory`` and shows the chosen node, the weighted scores, the score breakdown
    and the configuration YAML. ``plugins`` maps extra (out-of-tree) Score plugins to their
    starting weight; ``registry`` makes them known. ``last`` is the latest ScheduleResult.
    """

    def __init__(self, cluster_factory: Callable[[], Cluster] | Cluster, pod: str, *,
                 plugins: Mapping[str, int] | None = None, registry: Mapping[str, type] | None = None,
                 plugin_config: list | None = None, max_weight: int = 10, seed: int = 0):
        self.cluster_factory = cluster_factory
        self.pod = pod
        self.registry = registry
        self.plugin_config = plugin_config
        self.seed = seed
        start = {name: int(w) for name, w in resolve_profile({}).weights.items()}
        start.update(plugins or {})
        style = {"description_width": "300px"}  # "NodeResourcesBalancedAllocation weight" in full
        self.sliders = {name: widgets.IntSlider(value=w, min=0, max=max(max_weight, w), step=1,
                                                description=f"{name} weight", continuous_update=False,
                                                style=style, layout=widgets.Layout(width="720px"))
                        for name, w in start.items()}
        self.summary = widgets.HTML()
        self.table = widgets.HTML()
        self.figure = widgets.Output()
        self.config = widgets.HTML()
        self.last = None
        super().__init__(children=[widgets.HTML("<b>Score plugins and weights (0 = disabled)</b>"),
                                   *self.sliders.values(), self.summary, self.table, self.figure, self.config])
        for s in self.sliders.values():
            s.observe(self.update, names="value")
        self.update()

    def weights(self) -> dict[str, int]:
        """The enabled Score plugins and their weights."""
        return {name: s.value for name, s in self.sliders.items() if s.value > 0}

    def set(self, *, weights: Mapping[str, int]) -> "ProfileExplorer":
        """Set some weights (0 disables a plugin) and redraw once (for scripts and tests)."""
        unknown = set(weights) - set(self.sliders)
        if unknown:
            raise KeyError(f"unknown Score plugin(s) {sorted(unknown)}; known: {list(self.sliders)}")
        for name, w in weights.items():
            s = self.sliders[name]
            set_quietly(s, w, self.update)
        self.update()
        return self

    def configuration(self) -> dict:
        """The KubeSchedulerConfiguration the sliders describe."""
        return score_profile(self.weights(), plugin_config=self.plugin_config)

    def update(self, *_) -> None:
        """Schedule the pod again with the profile the sliders describe and redraw."""
        config = self.configuration()
        result = schedule_with_profile(self.cluster_factory, self.pod, config, registry=self.registry, seed=self.seed)
        self.last = result
        verdict = (f"<b>{esc(self.pod)}</b> goes to <b>{esc(result.node)}</b>" if result.node
                   else f"<b>{esc(self.pod)}</b> stays pending: <code>{esc(result.message)}</code>")
        self.summary.value = f"<p>{verdict}</p>"
        table = result.explain() if result.trace is not None and result.node else None
        weighted = [c for c in table.columns if c.endswith(" weighted")] if table is not None else []
        if weighted:
            cols = weighted + [c for c in ("total", "rank") if c in table.columns]
            self.table.value = table_html(table[cols], "weighted scores per node")
            set_figure(self.figure, score_breakdown(result))
        elif table is not None:
            self.table.value = "<p>No Score plugin enabled: every feasible node scores 0 and the tie-break picks one.</p>"
            self.figure.outputs = ()
        else:
            self.table.value = ""
            self.figure.outputs = ()
        self.config.value = "<b>configuration</b>" + pre(to_yaml(config))

    def __repr__(self) -> str:
        node = self.last.node if self.last is not None else None
        return f"ProfileExplorer(pod={self.pod!r}, weights={self.weights()}) -> {node}"
