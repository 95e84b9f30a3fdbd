"""OverheadExplorer: change a RuntimeClass's overhead and see what the scheduler looks for,
where the pod fits, what the quota says and the pod cgroup the kubelet would create.

>>> from pathlib import Path
>>> from kschedlab.api.loader import load
>>> seed = load(Path(__file__).resolve().parents[2] / "datasets" / "seed" / "03-pod-overhead.yaml")
>>> ex = OverheadExplorer(seed, "default/test-pod")
>>> ex.last.requests, ex.last.node
({'cpu': 2250, 'memory': 335544320}, 'node-big')
>>> ex.set(cpu=2500).last.node_fit
{'node-big': False, 'node-cpu-short': False, 'node-mem-short': False}
>>> ex
OverheadExplorer(pod='default/test-pod', cpu=2500m, memory=120Mi)
"""

from __future__ import annotations

from typing import Iterable

import ipywidgets as widgets

from kschedlab.api.node import RuntimeClass
from kschedlab.api.quantity import Quantity
from kschedlab.viz.common import esc
from kschedlab.viz.overhead import OverheadOutcome, overhead_bars, overhead_outcome
from kschedlab.widgets._display import pre, set_figure, set_quietly

__all__ = ["OverheadExplorer"]

_MI = 2**20


class OverheadExplorer(widgets.VBox):
    """Two sliders for the RuntimeClass overhead (CPU in millicores, memory in MiB) over the
    manifests ``objects``; for ``pod`` ("namespace/name") it shows what the scheduler looks
    for, each node's fit with the Filter's reasons, the quota verdict, the pod cgroup files
    and the figure of :func:`~kschedlab.viz.overhead.overhead_bars`. ``last`` is the latest
    :class:`~kschedlab.viz.overhead.OverheadOutcome`. The objects passed in are not changed.
    """

    def __init__(self, objects: Iterable, pod: str, *, cpu_max: int = 3000, memory_max: int = 512):
        self.objects = list(objects)
        self.pod = pod
        fixed = {}
        for o in self.objects:
            if isinstance(o, RuntimeClass) and o.overhead is not None:
                fixed = o.overhead.pod_fixed
                break
        style = {"description_width": "150px"}
        wide = widgets.Layout(width="560px")
        self.cpu = widgets.IntSlider(value=Quantity(fixed.get("cpu", 0)).milli_value(), min=0, max=cpu_max, step=50,
                                     description="overhead cpu (m)", continuous_update=False, style=style,
                                     layout=wide)
        self.memory = widgets.IntSlider(value=-(-Quantity(fixed.get("memory", 0)).value() // _MI), min=0,
                                        max=memory_max, step=8, description="overhead memory (Mi)",
                                        continuous_update=False, style=style, layout=wide)
        self.summary = widgets.HTML()
        self.figure = widgets.Output()
        self.cgroup = widgets.HTML()
        self.last: OverheadOutcome | None = None
        super().__init__(children=[self.cpu, self.memory, self.summary, self.figure, self.cgroup])
        self.add_class("kschedlab-OverheadExplorer")  # a handle for the browser test
        for control in (self.cpu, self.memory):
            control.observe(self.update, names="value")
        self.update()

    def set(self, *, cpu: int | None = None, memory: int | None = None) -> "OverheadExplorer":
        """Set the sliders (millicores, MiB) and redraw once (for scripts and tests)."""
        for control, value in ((self.cpu, cpu), (self.memory, memory)):
            if value is not None:
                set_quietly(control, value, self.update)
        self.update()
        return self

    def update(self, *_) -> None:
        """Recompute with the sliders' overhead and redraw."""
        out = overhead_outcome(self.objects, self.pod, cpu_overhead=f"{self.cpu.value}m",
                               memory_overhead=f"{self.memory.value}Mi")
        self.last = out
        if out.pod is None:
            self.summary.value = f"<b>Refused at admission:</b> <code>{esc(out.error)}</code>"
            self.figure.outputs = ()
            self.cgroup.value = ""
            return
        req = out.requests
        fits = ", ".join(f"{esc(n)}: {'fits' if ok else esc('; '.join(out.reasons.get(n, [])))}"
                         for n, ok in out.node_fit.items())
        verdict = (f"scheduled on <b>{esc(out.node)}</b>" if out.node
                   else f"unschedulable: <code>{esc(out.message)}</code>")
        quota = "".join(f"<br>quota {esc(q.name)}: " + ", ".join(
            f"{esc(k)} {esc(str(q.status.used.get(k, 0)))}/{esc(str(v))}" for k, v in sorted(q.status.hard.items()))
            for q in out.quotas)
        self.summary.value = (f"the scheduler looks for <b>{esc(str(Quantity.from_milli(req['cpu'])))}</b> CPU and "
                              f"<b>{req['memory'] // _MI}Mi</b> memory → {verdict}<br>{fits}{quota}")
        set_figure(self.figure, overhead_bars(out))
        files = "\n".join(f"{k} = {v}" for k, v in out.cgroup.files().items())
        self.cgroup.value = "<b>pod cgroup</b>" + pre(files)

    def __repr__(self) -> str:
        return f"OverheadExplorer(pod={self.pod!r}, cpu={self.cpu.value}m, memory={self.memory.value}Mi)"
