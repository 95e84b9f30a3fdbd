"""TolerationExplorer: give a pod tolerations for the taints of a cluster, set their
``tolerationSeconds``, and watch TaintToleration's Filter verdicts, its PreferNoSchedule score
before and after normalisation, the chosen node and what the NoExecute taint manager would do.

>>> from pathlib import Path
>>> from kschedlab.apiserver.admission import admit
>>> from kschedlab.api.loader import load
>>> objects = admit(load(Path(__file__).resolve().parents[2] / "datasets" / "taints" / "06-prefer-no-schedule.yaml"))
>>> ex = TolerationExplorer(objects, "default/web")
>>> ex
TolerationExplorer(pod='default/web', tolerated=[], tolerationSeconds=unset) -> clean
>>> ex.set(tolerate=["spot=true:PreferNoSchedule"]).last.table["normalized"].dropna().tolist()
[100, 100, 50, 0]
>>> ex.set(tolerate=["maintenance=true:NoExecute"], seconds=600).last.table.loc["draining", "NoExecute"]
'evicted after 600 s'
"""

from __future__ import annotations

from typing import Iterable, Mapping

import ipywidgets as widgets

from kschedlab.api.core import Node, Toleration
from kschedlab.viz.common import esc
from kschedlab.viz.taints import TolerationOutcome, taint_label, taint_score_bars, toleration_outcome
from kschedlab.widgets._display import set_figure, table_html

__all__ = ["TolerationExplorer"]


class TolerationExplorer(widgets.VBox):
    """A checkbox per distinct taint of the cluster's nodes ("tolerate it": an ``Equal``
    toleration for that key, value and effect is added to the pod) and a ``tolerationSeconds``
    slider for the added NoExecute tolerations (-1: not set, i.e. tolerate for good). Shows
    :func:`~kschedlab.viz.taints.toleration_outcome` as a table and
    :func:`~kschedlab.viz.taints.taint_score_bars`. ``last`` is the latest outcome; the objects
    passed in are not changed.
    """

    def __init__(self, objects: Iterable, pod: str, *, gates: Mapping[str, bool] | None = None, seed: int = 0,
                 max_seconds: int = 7200):
        self.objects = list(objects)
        self.pod = pod
        self.gates = gates
        self.seed = seed
        self.taints = {}
        for node in (o for o in self.objects if isinstance(o, Node)):
            for taint in node.spec.taints:
                self.taints.setdefault(taint_label(taint), taint)
        self.boxes = {label: widgets.Checkbox(value=False, description=f"tolerate {label}", indent=False,
                                              layout=widgets.Layout(width="auto"))
                      for label in self.taints}
        self.seconds = widgets.IntSlider(value=-1, min=-1, max=max_seconds, step=60,
                                         description="tolerationSeconds (s)", continuous_update=False,
                                         style={"description_width": "160px"}, layout=widgets.Layout(width="560px"))
        self.summary = widgets.HTML()
        self.table = widgets.HTML()
        self.figure = widgets.Output()
        self.last: TolerationOutcome | None = None
        super().__init__(children=[widgets.HTML(f"<b>Tolerations added to {esc(pod)}</b>"), *self.boxes.values(),
                                   self.seconds, self.summary, self.table, self.figure])
        for control in (*self.boxes.values(), self.seconds):
            control.observe(self.update, names="value")
        self.update()

    def tolerations(self) -> list[Toleration]:
        """The tolerations the checked boxes and the slider add."""
        out = []
        for label, box in self.boxes.items():
            if box.value:
                t = self.taints[label]
                seconds = self.seconds.value if t.effect == "NoExecute" and self.seconds.value >= 0 else None
                out.append(Toleration(key=t.key, operator="Equal", value=t.value or "", effect=t.effect,
                                      toleration_seconds=seconds))
        return out

    def set(self, *, tolerate: Iterable[str] | None = None, seconds: int | None = None) -> "TolerationExplorer":
        """Check exactly the taints in ``tolerate`` (labels like ``spot=true:PreferNoSchedule``) and/or
        set ``tolerationSeconds``; redraw once (for scripts and tests)."""
        controls = [*self.boxes.values(), self.seconds]
        for c in controls:
            c.unobserve(self.update, names="value")
        try:
            if tolerate is not None:
                wanted = set(tolerate)
                unknown = wanted - set(self.boxes)
                if unknown:
                    raise KeyError(f"no node has taint(s) {sorted(unknown)}; known: {list(self.boxes)}")
                for label, box in self.boxes.items():
                    box.value = label in wanted
            if seconds is not None:
                self.seconds.value = seconds
        finally:
            for c in controls:
                c.observe(self.update, names="value")
        self.update()
        return self

    def update(self, *_) -> None:
        """Schedule the pod again with the chosen tolerations and redraw."""
        out = toleration_outcome(self.objects, self.pod, extra=self.tolerations(), gates=self.gates, seed=self.seed)
        self.last = out
        verdict = (f"scheduled on <b>{esc(out.node)}</b>" if out.node
                   else f"unschedulable: <code>{esc(out.message)}</code>")
        self.summary.value = f"<p>{verdict}</p>"
        self.table.value = table_html(out.table.astype(object).where(out.table.notna(), "—"),
                                      "TaintToleration per node (raw = untolerated PreferNoSchedule taints)")
        set_figure(self.figure, taint_score_bars(out))

    def __repr__(self) -> str:
        seconds = "unset" if self.seconds.value < 0 else f"{self.seconds.value}s"
        tolerated = [label for label, box in self.boxes.items() if box.value]
        node = self.last.node if self.last else None
        return f"TolerationExplorer(pod={self.pod!r}, tolerated={tolerated}, tolerationSeconds={seconds}) -> {node}"
