"""PlacementExplorer and CompositeExplorer: change a training job's ``minCount`` /
``minGroupCount``, its workers' CPU request or its topology constraint, and see which placement
the PodGroup cycle chooses (notebooks 16 and 17).

The widgets only wire their controls to :func:`kschedlab.viz.placement.placement_what_if` /
:func:`~kschedlab.viz.placement.composite_what_if` and the figures of :mod:`kschedlab.viz.podgroup`.

>>> racks = [("a1", "rack-a", 4), ("b1", "rack-b", 2)]
>>> ex = PlacementExplorer(racks, min_count=2, workers=3)
>>> ex
PlacementExplorer(minCount=2, cpu=1, topology=rack): Success: 3 pods bound in rack-a
>>> ex.set(cpu=3).last.code
'Unschedulable'
>>> CompositeExplorer({"z0": {"r0": 4, "r1": 2}, "z1": {"r0": 4, "r1": 4}})
CompositeExplorer(minGroupCount=2, cpu=2): Success: 8 pods bound in z1
"""

from __future__ import annotations

from typing import Sequence

import ipywidgets as widgets

from kschedlab.viz import podgroup as pgviz
from kschedlab.viz.common import esc
from kschedlab.viz.placement import PlacementOutcome, composite_what_if, placement_what_if
from kschedlab.widgets._display import set_figure, set_quietly, table_html

__all__ = ["PlacementExplorer", "CompositeExplorer"]

_COLUMNS = ["within", "placement", "verdict", "pods", "NodeResourcesFit", "PodGroupPodsCount", "total", "chosen"]
_STYLE = {"description_width": "170px"}
_WIDE = widgets.Layout(width="520px")


class _Explorer(widgets.VBox):
    """Shared layout: controls, the verdict, the candidates' table and the pod-attempts figure;
    a subclass defines ``_run()``, the cycle with its controls' values."""

    def __init__(self, controls: list):
        self.controls = controls
        self.verdict = widgets.HTML()
        self.table = widgets.HTML()
        self.figure = widgets.Output()
        self.last: PlacementOutcome | None = None
        super().__init__(children=[*controls, self.verdict, self.table, self.figure])
        for control in controls:
            control.observe(self.update, names="value")
        self.update()

    def set(self, **values) -> "_Explorer":
        """Set controls by name (``min_count``, ``cpu``, ...) and re-run once (for scripts and tests)."""
        for name, value in values.items():
            control = getattr(self, name)
            set_quietly(control, value, self.update)
        self.update()
        return self

    def update(self, *_) -> None:
        """Run the cycle with the controls' values and redraw."""
        out = self.last = self._run()
        colour = "#0072B2" if out.code == "Success" else "#D55E00"
        self.verdict.value = f"<b style='color:{colour}'>{esc(out.summary())}</b>"
        scores = out.scores[[c for c in _COLUMNS if c in out.scores.columns]]
        if scores.empty:
            self.table.value = "<p>No candidate placements: the whole cluster is one placement.</p>"
        else:
            self.table.value = table_html(scores.set_index("placement"), "candidate placements")
        set_figure(self.figure, pgviz.pod_attempts(out.result))


class PlacementExplorer(_Explorer):
    """Notebook 16's gang ``ml/training`` on ``nodes`` ((name, rack, CPUs) triples): sliders for
    ``minCount`` and the CPU each worker requests, and the topology constraint (``rack`` or
    none).  ``last`` is the latest :class:`~kschedlab.viz.placement.PlacementOutcome`."""

    def __init__(self, nodes: Sequence[tuple[str, str, int]], *, min_count: int = 4, workers: int = 6, cpu: int = 1,
                 topology: str = "rack", max_cpu: int = 4):
        self.nodes, self.workers = list(nodes), workers
        self.min_count = widgets.IntSlider(value=min_count, min=1, max=workers, description="minCount",
                                           continuous_update=False, style=_STYLE, layout=_WIDE)
        self.cpu = widgets.IntSlider(value=cpu, min=1, max=max_cpu, description="CPU per worker (cores)",
                                     continuous_update=False, style=_STYLE, layout=_WIDE)
        self.topology = widgets.ToggleButtons(options=[("one rack", "rack"), ("no constraint", "")],
                                              value=topology or "", description="placement constraint",
                                              style={**_STYLE, "button_width": "130px"})
        super().__init__([self.min_count, self.cpu, self.topology])

    def _run(self) -> PlacementOutcome:
        return placement_what_if(self.nodes, min_count=self.min_count.value, workers=self.workers,
                                 cpu=self.cpu.value, topology=self.topology.value or None)

    def __repr__(self) -> str:
        return (f"PlacementExplorer(minCount={self.min_count.value}, cpu={self.cpu.value}, "
                f"topology={self.topology.value or 'none'}): {self.last.summary()}")


class CompositeExplorer(_Explorer):
    """Notebook 17's job on ``racks`` (``{zone: {rack: CPUs per node}}``, two nodes per rack):
    sliders for the CompositePodGroup's ``minGroupCount`` and the CPU each worker requests."""

    def __init__(self, racks: dict, *, min_group_count: int = 2, cpu: int = 2, replicas: int = 2, workers: int = 4,
                 max_cpu: int = 6):
        self.racks, self.replicas, self.workers = racks, replicas, workers
        self.min_group_count = widgets.IntSlider(value=min_group_count, min=1, max=replicas,
                                                 description="minGroupCount", continuous_update=False,
                                                 style=_STYLE, layout=_WIDE)
        self.cpu = widgets.IntSlider(value=cpu, min=1, max=max_cpu, description="CPU per worker (cores)",
                                     continuous_update=False, style=_STYLE, layout=_WIDE)
        super().__init__([self.min_group_count, self.cpu])

    def _run(self) -> PlacementOutcome:
        return composite_what_if(self.racks, min_group_count=self.min_group_count.value, cpu=self.cpu.value,
                                 replicas=self.replicas, workers=self.workers)

    def __repr__(self) -> str:
        return (f"CompositeExplorer(minGroupCount={self.min_group_count.value}, cpu={self.cpu.value}): "
                f"{self.last.summary()}")
