"""RtcrWeightsExplorer: change RequestedToCapacityRatio's resource weights (and flip the shape
between bin packing and spreading) on the docs' worked example and see each node's score.

The widget only wires its controls to :func:`kschedlab.viz.calc.rtcr_worksheet` and
:func:`kschedlab.viz.binpacking.resource_score_bars`.

>>> pod = {"intel.com/foo": 2, "memory": "256Mi", "cpu": 2}
>>> nodes = {"node 1": {"available": {"intel.com/foo": 4, "memory": "1Gi", "cpu": 8},
...                     "used": {"intel.com/foo": 1, "memory": "256Mi", "cpu": 1}},
...          "node 2": {"available": {"intel.com/foo": 8, "memory": "1Gi", "cpu": 8},
...                     "used": {"intel.com/foo": 2, "memory": "512Mi", "cpu": 6}}}
>>> ex = RtcrWeightsExplorer(pod, nodes, {"intel.com/foo": 5, "memory": 1, "cpu": 3})
>>> ex
RtcrWeightsExplorer(bin packing; weights intel.com/foo 5, memory 1, cpu 3): node 1 60, node 2 69
>>> ex.set(weights={"intel.com/foo": 10, "cpu": 1}).scores
{'node 1': 70, 'node 2': 56}
>>> ex.set(shape="spreading").scores
{'node 1': 30, 'node 2': 48}
"""

from __future__ import annotations

from typing import Any, Mapping

import ipywidgets as widgets

from kschedlab.viz.binpacking import resource_score_bars
from kschedlab.viz.calc import CURRENT_SCALE, rtcr_worksheet
from kschedlab.viz.common import esc
from kschedlab.widgets._display import set_figure, set_quietly, table_html

__all__ = ["RtcrWeightsExplorer", "SHAPES"]

#: the two shapes of the docs: score rises with utilization (bin packing) or falls (spreading)
SHAPES = {"bin packing": [(0, 0), (100, 10)], "spreading": [(0, 10), (100, 0)]}


class RtcrWeightsExplorer(widgets.VBox):
    """One weight slider (1-100, as the API allows) per resource of ``weights`` and a choice of
    shape; below, each node's score (the worksheet's ``library`` column: the scorer
    NodeResourcesFit uses) with its formula, and the per-resource scores.  ``scores`` is the
    latest ``{node: score}``, ``sheet`` the latest worksheet."""

    def __init__(self, pod: Mapping[str, Any], nodes: Mapping[str, Any], weights: Mapping[str, int], *,
                 shape: str = "bin packing", score_scale: int = CURRENT_SCALE, max_weight: int = 20):
        self.pod, self.nodes, self.score_scale = dict(pod), dict(nodes), score_scale
        style = {"description_width": "160px"}
        self.weights = {r: widgets.IntSlider(value=w, min=1, max=max(max_weight, w), description=f"weight {r}",
                                             continuous_update=False, style=style,
                                             layout=widgets.Layout(width="480px"))
                        for r, w in weights.items()}
        self.shape = widgets.ToggleButtons(options=list(SHAPES), value=shape, description="shape",
                                           style={"description_width": "160px", "button_width": "120px"})
        self.table = widgets.HTML()
        self.figure = widgets.Output()
        self.scores: dict[str, int] = {}
        self.sheet = None
        super().__init__(children=[*self.weights.values(), self.shape, self.table, self.figure])
        for control in (*self.weights.values(), self.shape):
            control.observe(self.update, names="value")
        self.update()

    def set(self, *, weights: Mapping[str, int] | None = None, shape: str | None = None) -> "RtcrWeightsExplorer":
        """Set some weights and / or the shape and recompute once (for scripts and tests)."""
        changes = [(self.weights[r], w) for r, w in (weights or {}).items()]
        if shape is not None:
            changes.append((self.shape, shape))
        for control, value in changes:
            set_quietly(control, value, self.update)
        self.update()
        return self

    def update(self, *_) -> None:
        """Recompute the worksheet with the controls' weights and shape."""
        weights = {r: s.value for r, s in self.weights.items()}
        self.sheet = rtcr_worksheet(self.pod, self.nodes, weights, SHAPES[self.shape.value],
                                    score_scale=self.score_scale)
        self.scores = {n: int(v) for n, v in self.sheet.nodes["library"].items()}
        best = max(self.scores.values())
        winners = [n for n, v in self.scores.items() if v == best]
        self.table.value = table_html(self.sheet.nodes, "node scores (NodeResourcesFit, 0-100)") + (
            f"<p>highest: <b>{esc(', '.join(winners))}</b> ({best})</p>")
        set_figure(self.figure, resource_score_bars(self.sheet, title=f"Per-resource scores, {self.shape.value} shape"))

    def __repr__(self) -> str:
        weights = ", ".join(f"{r} {s.value}" for r, s in self.weights.items())
        scores = ", ".join(f"{n} {v}" for n, v in self.scores.items())
        return f"RtcrWeightsExplorer({self.shape.value}; weights {weights}): {scores}"
