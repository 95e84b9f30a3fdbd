"""PercentageExplorer: move ``percentageOfNodesToScore`` and the cluster size and see how many
feasible nodes kube-scheduler looks for before it scores (seed section 10).

The widget only wires two sliders to :func:`kschedlab.viz.performance.feasible_nodes_steps`
and :func:`~kschedlab.viz.performance.feasible_nodes_figure`.

>>> ex = PercentageExplorer(nodes=1000, percentage=0)
>>> ex
PercentageExplorer(nodes=1000, percentageOfNodesToScore=0): look for 420 feasible nodes
>>> ex.set(percentage=5).found, ex.set(nodes=5000).found
(100, 250)
"""

from __future__ import annotations

import ipywidgets as widgets

from kschedlab.viz.common import esc
from kschedlab.viz.performance import feasible_nodes_figure, feasible_nodes_steps
from kschedlab.widgets._display import set_figure, set_quietly

__all__ = ["PercentageExplorer"]


class PercentageExplorer(widgets.VBox):
    """Two sliders, the cluster size (nodes) and ``percentageOfNodesToScore`` (0 = adaptive);
    below, the computation step by step and the figure.  ``found`` is the latest
    ``numFeasibleNodesToFind``."""

    def __init__(self, nodes: int = 1000, percentage: int = 0, *, max_nodes: int = 10_000):
        style = {"description_width": "210px"}
        wide = widgets.Layout(width="620px")
        self.max_nodes = max_nodes
        self.nodes = widgets.IntSlider(value=nodes, min=10, max=max_nodes, step=10, description="nodes in the cluster",
                                       continuous_update=False, style=style, layout=wide)
        self.percentage = widgets.IntSlider(value=percentage, min=0, max=100, description="percentageOfNodesToScore",
                                            continuous_update=False, style=style, layout=wide)
        self.steps = widgets.HTML()
        self.figure = widgets.Output()
        self.found = 0
        super().__init__(children=[self.nodes, self.percentage, self.steps, self.figure])
        for control in (self.nodes, self.percentage):
            control.observe(self.update, names="value")
        self.update()

    def set(self, *, nodes: int | None = None, percentage: int | None = None) -> "PercentageExplorer":
        """Set the sliders and redraw once (for scripts and tests)."""
        for control, value in ((self.nodes, nodes), (self.percentage, percentage)):
            if value is not None:
                set_quietly(control, value, self.update)
        self.update()
        return self

    def update(self, *_) -> None:
        """Recompute ``numFeasibleNodesToFind`` and redraw."""
        steps = feasible_nodes_steps(self.percentage.value, self.nodes.value)
        self.found = steps[-1][1]
        rows = "".join(f"<tr><td>{esc(what)}</td><td style='text-align:right'><b>{value}</b></td></tr>"
                       for what, value in steps)
        self.steps.value = (f"<table>{rows}</table><p>numFeasibleNodesToFind = <b>{self.found}</b>: Filter stops "
                            f"after {self.found} feasible nodes, and only those are scored.</p>")
        set_figure(self.figure, feasible_nodes_figure(self.percentage.value, self.nodes.value,
                                                      max_nodes=self.max_nodes))

    def __repr__(self) -> str:
        return (f"PercentageExplorer(nodes={self.nodes.value}, percentageOfNodesToScore={self.percentage.value}): "
                f"look for {self.found} feasible nodes")
