"""AllocatableExplorer: move a node's system-reserved memory and its hard ``memory.available``
threshold and see the node allocatable the kubelet reports (:func:`kschedlab.kubelet.node_allocatable`)
and whether the node's measured memory meets the threshold
(:func:`kschedlab.kubelet.thresholds_met`): the docs' worked example of a 10 GiB node.

>>> from pathlib import Path
>>> from kschedlab.api.loader import load
>>> from kschedlab.api.nodestats import NodeStatsSummary
>>> objs = load(Path(__file__).resolve().parents[2] / "datasets" / "kubelet" / "13-reserve-10gi-node.yaml")
>>> node = next(o for o in objs if o.kind == "Node")
>>> stats = next(o for o in objs if isinstance(o, NodeStatsSummary)).summary()
>>> ex = AllocatableExplorer(node.status.capacity, stats)
>>> str(ex.allocatable), ex.met
('8204Mi', True)
>>> ex.set(hard_mib=400).met     # 499Mi available is no longer below the threshold
False
>>> ex
AllocatableExplorer(system-reserved=1536Mi, hard=400Mi, allocatable=8304Mi, met=False)
"""

from __future__ import annotations

from typing import Any, Mapping

import ipywidgets as widgets

from kschedlab.api.quantity import Quantity
from kschedlab.kubelet import eviction_config, kubelet_config_from_flags, make_signal_observations, node_allocatable
from kschedlab.kubelet.thresholds import get_threshold_quantity, thresholds_met
from kschedlab.viz.common import esc
from kschedlab.widgets._display import set_quietly

__all__ = ["AllocatableExplorer"]

_MI = 2**20


class AllocatableExplorer(widgets.VBox):
    """Two sliders (MiB): ``--system-reserved=memory`` and ``--eviction-hard=memory.available``
    for a node of ``capacity`` whose summary-API stats are ``stats``. It shows the node
    allocatable (``allocatable``) and the ``memory.available`` signal against the threshold
    (``met``: the threshold is met, the node reports MemoryPressure)."""

    def __init__(self, capacity: Mapping[str, Any], stats: Mapping[str, Any], *, system_reserved_mib: int = 1536,
                 hard_mib: int = 500, max_mib: int = 4096):
        self.capacity = dict(capacity)
        self.observation = make_signal_observations(stats)["memory.available"]
        style = {"description_width": "300px"}
        layout = widgets.Layout(width="700px")
        self.reserved = widgets.IntSlider(value=system_reserved_mib, min=0, max=max_mib, step=1, style=style,
                                          description="--system-reserved memory (Mi)", continuous_update=False,
                                          layout=layout)
        self.hard = widgets.IntSlider(value=hard_mib, min=0, max=max_mib, step=1, style=style,
                                      description="--eviction-hard memory.available (Mi)", continuous_update=False,
                                      layout=layout)
        self.summary = widgets.HTML()
        self.allocatable: Quantity | None = None
        self.met: bool | None = None
        super().__init__(children=[self.reserved, self.hard, self.summary])
        self.add_class("kschedlab-AllocatableExplorer")
        for control in (self.reserved, self.hard):
            control.observe(self.update, names="value")
        self.update()

    def set(self, *, reserved_mib: int | None = None, hard_mib: int | None = None) -> "AllocatableExplorer":
        """Set the sliders (MiB) and redraw once (for scripts and tests)."""
        for control, value in ((self.reserved, reserved_mib), (self.hard, hard_mib)):
            if value is not None:
                set_quietly(control, value, self.update)
        self.update()
        return self

    def update(self, *_) -> None:
        """Recompute the kubelet's configuration, the allocatable and the threshold, and redraw."""
        config = eviction_config(kubelet_config_from_flags(
            f"--system-reserved=memory={self.reserved.value}Mi "
            f"--eviction-hard=memory.available<{self.hard.value}Mi"))
        self.allocatable = node_allocatable(self.capacity, config)["memory"]
        hard = next(t for t in config.thresholds if t.signal == "memory.available")
        self.met = bool(thresholds_met([hard], {"memory.available": self.observation}, False))
        available = self.observation.available
        threshold = get_threshold_quantity(hard.value, self.observation.capacity)
        verdict = ("<b>met</b>: the node reports MemoryPressure and the kubelet evicts" if self.met
                   else "<b>not met</b>: no pressure")
        self.summary.value = (
            f"node allocatable: {esc(self.capacity['memory'])} − {self.reserved.value}Mi − {self.hard.value}Mi = "
            f"<b>{esc(self.allocatable)}</b><br>"
            f"memory.available {esc(available)} &lt; {esc(threshold)}? {verdict}")

    def __repr__(self) -> str:
        return (f"AllocatableExplorer(system-reserved={self.reserved.value}Mi, hard={self.hard.value}Mi, "
                f"allocatable={self.allocatable}, met={self.met})")
