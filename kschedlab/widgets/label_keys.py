"""LabelKeysExplorer: change one label of an incoming pod and switch its terms' ``matchLabelKeys`` /
``mismatchLabelKeys`` on or off; see the selectors the API server merges and the nodes that pass.

>>> from pathlib import Path
>>> from kschedlab.api.loader import load
>>> raw = load(Path(__file__).resolve().parents[2] / "datasets" / "inter-pod-affinity"
...            / "tenant-match-mismatch-label-keys.yaml")
>>> ex = LabelKeysExplorer(raw, "default/tenant-a-web", "tenant", ["tenant-a", "tenant-b", "tenant-z"])
>>> ex.last.feasible
['node-1a', 'node-1b']
>>> ex.set(value="tenant-b").last.feasible
['node-2a', 'node-2b']
>>> ex
LabelKeysExplorer(pod='default/tenant-a-web', tenant='tenant-b', feasible=2)
"""

from __future__ import annotations

from typing import Iterable, Sequence

import ipywidgets as widgets

from kschedlab.viz.affinity_keys import LabelKeysOutcome, label_keys_outcome
from kschedlab.viz.common import esc
from kschedlab.widgets._display import pre, set_quietly

__all__ = ["LabelKeysExplorer"]


class LabelKeysExplorer(widgets.VBox):
    """A dropdown for the value of label ``key`` on ``pod`` and two checkboxes keeping its terms'
    ``matchLabelKeys`` and ``mismatchLabelKeys``. ``raw_objects`` are the manifests as loaded (before
    admission, which merges the keys into the selectors); they are not changed. ``last`` is the
    latest :class:`~kschedlab.viz.affinity_keys.LabelKeysOutcome`."""

    def __init__(self, raw_objects: Iterable, pod: str, key: str, values: Sequence[str]):
        self.objects = list(raw_objects)
        self.pod = pod
        self.key = key
        style = {"description_width": "150px"}
        self.value = widgets.Dropdown(options=list(values), value=values[0], description=f"label {key}",
                                      style=style, layout=widgets.Layout(width="360px"))
        self.match = widgets.Checkbox(value=True, description="keep matchLabelKeys", style=style,
                                      layout=widgets.Layout(width="360px"))
        self.mismatch = widgets.Checkbox(value=True, description="keep mismatchLabelKeys", style=style,
                                         layout=widgets.Layout(width="360px"))
        self.summary = widgets.HTML()
        self.last: LabelKeysOutcome | None = None
        super().__init__(children=[self.value, self.match, self.mismatch, self.summary])
        for control in (self.value, self.match, self.mismatch):
            control.observe(self.update, names="value")
        self.update()

    def set(self, *, value: str | None = None, match: bool | None = None,
            mismatch: bool | None = None) -> "LabelKeysExplorer":
        """Set the controls and redraw once (for scripts and tests)."""
        for control, v in ((self.value, value), (self.match, match), (self.mismatch, mismatch)):
            if v is not None:
                set_quietly(control, v, self.update)
        self.update()
        return self

    def update(self, *_) -> None:
        """Re-admit the pod with the chosen label and keys, schedule it and redraw."""
        out = label_keys_outcome(self.objects, self.pod, labels={self.key: self.value.value},
                                 match_label_keys=self.match.value, mismatch_label_keys=self.mismatch.value)
        self.last = out
        verdict = (f"scheduled on <b>{esc(out.node)}</b>" if out.node
                   else f"unschedulable: <code>{esc(out.message)}</code>")
        self.summary.value = ("<b>selectors after admission</b>" + pre("\n".join(out.selectors))
                              + f"nodes passing Filter: <b>{len(out.feasible)}</b> "
                              f"({esc(', '.join(out.feasible)) or 'none'}) → {verdict}")

    def __repr__(self) -> str:
        n = len(self.last.feasible) if self.last else 0
        return f"LabelKeysExplorer(pod={self.pod!r}, {self.key}={self.value.value!r}, feasible={n})"
