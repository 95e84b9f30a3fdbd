"""PreemptionExplorer: change pod priorities and PodDisruptionBudgets, and watch the node
preemption picks and its victims move.

Each change re-runs :func:`kschedlab.viz.preemption.preemption_what_if`: a fresh copy of
the cluster with the new priorities (written into ``spec.priority``) and budgets
(``spec.minAvailable``, status recomputed as the disruption controller would), one
scheduling attempt of the preemptor, then the candidate table and figure of
:mod:`kschedlab.viz.preemption`.  The widget only wires controls to that function.

>>> from pathlib import Path
>>> from kschedlab.apiserver.admission import admit
>>> from kschedlab.api.loader import load
>>> data = Path(__file__).resolve().parents[2] / "datasets" / "preemption" / "12-candidate-ordering.yaml"
>>> ex = PreemptionExplorer(admit(load(data)), "default/urgent-1")
>>> ex
PreemptionExplorer(pod='default/urgent-1') -> node-e, victims: e-job
>>> ex.set(min_available={"default/web-pdb": 1})
PreemptionExplorer(pod='default/urgent-1') -> node-a, victims: web-1
"""

from __future__ import annotations

import copy

import ipywidgets as widgets

from kschedlab.viz.common import esc
from kschedlab.viz.preemption import preemption_figure, preemption_what_if
from kschedlab.widgets._display import set_figure, table_html

__all__ = ["PreemptionExplorer"]

_MIN_PRIORITY = -(1 << 31)
_MAX_PRIORITY = 2_000_001_000


class PreemptionExplorer(widgets.VBox):
    """A priority box per pod (the preemptor first, then the bound pods by node) and a
    ``minAvailable`` slider per PodDisruptionBudget; below, the outcome, the candidate figure
    and the candidate table (nodes that could not be helped at the bottom).

    ``objects`` are admitted API objects (or a zero-argument function returning them); they are
    copied, never changed.  ``pod`` is the preemptor's "namespace/name".  ``last`` is the latest
    :class:`~kschedlab.viz.preemption.PreemptionWhatIf` (None after an error, shown in ``status``).
    """

    def __init__(self, objects, pod: str, *, seed: int = 0):
        source = objects() if callable(objects) else objects
        self.objects = [copy.deepcopy(o) for o in source]
        self.pod = pod
        self.seed = seed
        self.last = None
        pods = [o for o in self.objects if type(o).__name__ == "Pod"]
        pdbs = [o for o in self.objects if type(o).__name__ == "PodDisruptionBudget"]
        if pod not in {p.key for p in pods}:
            raise KeyError(f"no pod {pod}")
        style = {"description_width": "150px"}
        box = widgets.Layout(width="300px")
        ordered = sorted(pods, key=lambda p: (p.key != pod, p.spec.node_name or "", p.key))
        self.priority: dict[str, widgets.BoundedIntText] = {}
        for p in ordered:
            where = "preemptor" if p.key == pod else (p.spec.node_name or "pending")
            self.priority[p.key] = widgets.BoundedIntText(
                value=int(p.spec.priority or 0), min=_MIN_PRIORITY, max=_MAX_PRIORITY,
                description=f"{p.metadata.name} ({where})", style=style, layout=box)
        self.min_available: dict[str, widgets.IntSlider] = {}
        for b in pdbs:
            selected = [p for p in pods if b.spec.selector is not None and (p.namespace == b.namespace)
                        and b.spec.selector.matches(p.metadata.labels)]
            value = b.spec.min_available if isinstance(b.spec.min_available, int) else 0
            self.min_available[b.key] = widgets.IntSlider(
                value=value, min=0, max=max(len(selected), value), description=f"{b.metadata.name} minAvailable",
                continuous_update=False, style=style, layout=widgets.Layout(width="420px"))
        self.status = widgets.HTML()
        self.figure = widgets.Output()
        self.table = widgets.HTML()
        header = widgets.HTML(f"<b>PreemptionExplorer</b>: preemptor <code>{esc(pod)}</code>; "
                              "change priorities (written into spec.priority) and budgets")
        grid = widgets.GridBox(list(self.priority.values()),
                               layout=widgets.Layout(grid_template_columns="repeat(3, 310px)"))
        super().__init__(children=[header, grid, *self.min_available.values(), self.status, self.figure,
                                   self.table])
        for control in (*self.priority.values(), *self.min_available.values()):
            control.observe(self.update, names="value")
        self.update()

    def _controls(self):
        return [*self.priority.values(), *self.min_available.values()]

    def set(self, *, priorities: dict[str, int] | None = None,
            min_available: dict[str, int] | None = None) -> "PreemptionExplorer":
        """Set priorities ("namespace/name" -> value) and budgets ("namespace/name" -> minAvailable),
        then re-run once (for scripts and tests)."""
        for control in self._controls():
            control.unobserve(self.update, names="value")
        try:
            for key, value in (priorities or {}).items():
                self.priority[key].value = value
            for key, value in (min_available or {}).items():
                self.min_available[key].value = value
        finally:
            for control in self._controls():
                control.observe(self.update, names="value")
        self.update()
        return self

    def update(self, *_):
        """Re-run the attempt with the current controls and refresh the views."""
        try:
            w = preemption_what_if(self.objects, self.pod, seed=self.seed,
                                   priorities={k: c.value for k, c in self.priority.items()},
                                   min_available={k: c.value for k, c in self.min_available.items()})
        except (ValueError, KeyError) as err:
            self.last = None
            self.status.value = f"<span style='color:#D55E00'>{esc(err)}</span>"
            return
        self.last = w
        self.status.value = f"<b>{esc(w.summary)}</b>"
        if w.record is not None:
            set_figure(self.figure, preemption_figure(w.record))
            self.table.value = table_html(w.table, "candidates, best first (nodes that could not be helped last)")
        else:
            self.figure.outputs = ()
            self.table.value = ""

    def __repr__(self) -> str:
        if self.last is None:
            return f"PreemptionExplorer(pod={self.pod!r})"
        w = self.last
        if w.chosen:
            ns = self.pod.partition("/")[0]
            names = ", ".join(v.partition("/")[2] if v.partition("/")[0] == ns else v for v in w.victims)
            return f"PreemptionExplorer(pod={self.pod!r}) -> {w.chosen}, victims: {names}"
        return f"PreemptionExplorer(pod={self.pod!r}) -> {w.result.node or 'no preemption'}"
