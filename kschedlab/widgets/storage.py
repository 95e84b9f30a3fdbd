"""StorageCapacityExplorer: change a claim's size (and the shape's direction) and see which
topology segment VolumeBinding's storage capacity scoring prefers, and by how much.

The widget only wires its controls to :func:`kschedlab.viz.storage.capacity_score_table` and
:func:`kschedlab.viz.figures.shape_function`.

>>> ex = StorageCapacityExplorer({"zone-a": 100, "zone-b": 40}, request_gi=20)
>>> ex
StorageCapacityExplorer(20Gi, free space preferred): zone-a 80, zone-b 50
>>> ex.set(request_gi=40).scores
{'zone-a': 60, 'zone-b': 0}
>>> ex.set(shape="fullest first").scores
{'zone-a': 40, 'zone-b': 100}
"""

from __future__ import annotations

from typing import Mapping

import ipywidgets as widgets

from kschedlab.viz.common import esc
from kschedlab.viz.figures import shape_function
from kschedlab.viz.storage import GI, capacity_score_table
from kschedlab.widgets._display import set_figure, set_quietly, table_html

__all__ = ["StorageCapacityExplorer", "STORAGE_SHAPES"]

#: the default shape of StorageCapacityScoring (emptiest segment first) and its reverse
STORAGE_SHAPES = {"free space preferred": [(0, 10), (100, 0)], "fullest first": [(0, 0), (100, 10)]}


class StorageCapacityExplorer(widgets.VBox):
    """A slider for the claim's size in Gi and a choice of shape; below, each segment's
    utilization and score and the shape with the segments marked. ``capacities`` maps a segment
    (a zone, a node) to the Gi its CSIStorageCapacity reports. ``scores`` is the latest
    ``{segment: score}``."""

    def __init__(self, capacities: Mapping[str, int], *, request_gi: int = 10, shape: str = "free space preferred"):
        self.capacities = {k: int(v) * GI for k, v in capacities.items()}
        top = max(capacities.values()) if capacities else 1
        self.request = widgets.IntSlider(value=request_gi, min=1, max=max(top, request_gi), description="claim (Gi)",
                                         continuous_update=False, style={"description_width": "120px"},
                                         layout=widgets.Layout(width="480px"))
        self.shape = widgets.ToggleButtons(options=list(STORAGE_SHAPES), value=shape, description="shape",
                                           style={"description_width": "120px", "button_width": "160px"})
        self.table = widgets.HTML()
        self.figure = widgets.Output()
        self.scores: dict[str, int] = {}
        super().__init__(children=[self.request, self.shape, self.table, self.figure])
        for control in (self.request, self.shape):
            control.observe(self.update, names="value")
        self.update()

    def set(self, *, request_gi: int | None = None, shape: str | None = None) -> "StorageCapacityExplorer":
        """Set the claim's size and / or the shape and recompute once (for scripts and tests)."""
        if request_gi is not None:
            set_quietly(self.request, request_gi, self.update)
        if shape is not None:
            set_quietly(self.shape, shape, self.update)
        self.update()
        return self

    def update(self, *_) -> None:
        """Recompute the table and the figure from the controls."""
        points = STORAGE_SHAPES[self.shape.value]
        table = capacity_score_table(self.request.value * GI, self.capacities, points)
        self.scores = {k: int(v) for k, v in table["score"].items()}
        best = max(self.scores.values()) if self.scores else 0
        winners = [k for k, v in self.scores.items() if v == best]
        self.table.value = table_html(table, "VolumeBinding score per segment (0-100)") + (
            f"<p>preferred: <b>{esc(', '.join(winners))}</b> ({best})</p>")
        marks = {k: int(u) for k, u in table["utilization %"].items()}
        set_figure(self.figure, shape_function([{"utilization": u, "score": s} for u, s in points], marks,
                                               title=f"Storage capacity scoring, {self.shape.value}"))

    def __repr__(self) -> str:
        scores = ", ".join(f"{k} {v}" for k, v in self.scores.items())
        return f"StorageCapacityExplorer({self.request.value}Gi, {self.shape.value}): {scores}"
