"""GateExplorer: remove a pod's scheduling gates one by one (or try to add one) and see what
the API server stores, what ``kubectl get pods`` shows and what the scheduler does.

>>> from pathlib import Path
>>> from kschedlab.apiserver.admission import admit
>>> from kschedlab.api.loader import load
>>> objects = admit(load(Path(__file__).resolve().parents[2] / "datasets" / "seed" / "04-pod-with-scheduling-gates.yaml"))
>>> ex = GateExplorer(next(o for o in objects if o.kind == "Pod"), [o for o in objects if o.kind == "Node"])
>>> ex
GateExplorer(pod='default/test-pod', gates=['example.com/foo', 'example.com/bar']) -> SchedulingGates
>>> ex.set(keep=[]).last.node
'node-2'
"""

from __future__ import annotations

from typing import Iterable

import ipywidgets as widgets

from kschedlab.api.core import Pod
from kschedlab.viz.common import esc
from kschedlab.viz.scheduling_gates import GatesOutcome, gates_outcome
from kschedlab.widgets._display import pre

__all__ = ["GateExplorer"]


class GateExplorer(widgets.VBox):
    """A checkbox per scheduling gate of ``pod`` (ticked: the gate stays; untick to remove it
    with an update) and one to try adding ``example.com/baz``; shows
    :func:`~kschedlab.viz.scheduling_gates.gates_outcome`. ``last`` is the latest outcome."""

    def __init__(self, pod: Pod, nodes: Iterable, *, extra_gate: str = "example.com/baz", seed: int = 0):
        self.pod = pod
        self.nodes = list(nodes)
        self.extra_gate = extra_gate
        self.seed = seed
        self.boxes = {g.name: widgets.Checkbox(value=True, description=f"keep gate {g.name}", indent=False,
                                               layout=widgets.Layout(width="auto"))
                      for g in pod.spec.scheduling_gates}
        self.add = widgets.Checkbox(value=False, description=f"try to add gate {extra_gate}", indent=False,
                                    layout=widgets.Layout(width="auto"))
        self.summary = widgets.HTML()
        self.last: GatesOutcome | None = None
        super().__init__(children=[widgets.HTML(f"<b>Scheduling gates of {esc(pod.key)}</b>"),
                                   *self.boxes.values(), self.add, self.summary])
        for box in (*self.boxes.values(), self.add):
            box.observe(self.update, names="value")
        self.update()

    def set(self, *, keep: Iterable[str] | None = None, add: bool | None = None) -> "GateExplorer":
        """Keep exactly the gates in ``keep`` and/or try adding the extra gate; redraw once."""
        boxes = [*self.boxes.values(), self.add]
        for b in boxes:
            b.unobserve(self.update, names="value")
        try:
            if keep is not None:
                wanted = set(keep)
                for name, box in self.boxes.items():
                    box.value = name in wanted
            if add is not None:
                self.add.value = add
        finally:
            for b in boxes:
                b.observe(self.update, names="value")
        self.update()
        return self

    def update(self, *_) -> None:
        """Apply the update and try to schedule the pod."""
        keep = [name for name, box in self.boxes.items() if box.value]
        out = gates_outcome(self.pod, self.nodes, keep=keep, add=[self.extra_gate] if self.add.value else [],
                            seed=self.seed)
        self.last = out
        self.summary.value = pre(out.text())

    def __repr__(self) -> str:
        out = self.last
        where = (out.node or out.plugin or "Filter") if out else None
        return f"GateExplorer(pod={self.pod.key!r}, gates={out.gates if out else []}) -> {where}"
