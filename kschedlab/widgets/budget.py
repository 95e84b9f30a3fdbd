"""BudgetExplorer: change a PodDisruptionBudget's ``minAvailable`` or ``maxUnavailable`` and see
which evictions the API server allows (200) and which it refuses (429).

The widget only wires its controls to :func:`kschedlab.viz.budget.budget_what_if`.

>>> from pathlib import Path
>>> from kschedlab.api.loader import load
>>> objs = load(Path(__file__).resolve().parents[2] / "datasets" / "eviction" / "14-pdb-replicaset.yaml")
>>> ex = BudgetExplorer(objs, "default/web", [f"default/web-{i}" for i in range(4)])
>>> ex
BudgetExplorer(minAvailable=2): web-0 200, web-1 200, web-2 429, web-3 429
>>> ex.set("maxUnavailable", "1").last["code"].tolist()
[200, 429, 429, 429]
"""

from __future__ import annotations

from typing import Iterable, Sequence

import ipywidgets as widgets

from kschedlab.viz.budget import budget_what_if
from kschedlab.widgets._display import set_quietly, table_html

__all__ = ["BudgetExplorer"]

_FIELDS = {"minAvailable": "min_available", "maxUnavailable": "max_unavailable"}


class BudgetExplorer(widgets.VBox):
    """For the PodDisruptionBudget ``budget`` ("namespace/name") among ``objects``: a choice of
    field (``minAvailable`` / ``maxUnavailable``) and of its value (a count up to the number of
    ``pods``, or a percentage); below, the answers to evicting ``pods`` back to back.  Starts
    from the budget as written.  ``last`` is the latest :func:`~kschedlab.viz.budget.budget_what_if`
    table.  The objects passed in are not changed."""

    def __init__(self, objects: Iterable, budget: str, pods: Sequence[str],
                 percentages: Sequence[str] = ("25%", "30%", "50%", "75%", "100%")):
        self.objects, self.budget, self.pods = list(objects), budget, list(pods)
        spec = next(o for o in self.objects if o.kind == "PodDisruptionBudget" and o.key == budget).spec
        field = "maxUnavailable" if spec.max_unavailable is not None else "minAvailable"
        value = str(spec.max_unavailable if field == "maxUnavailable" else spec.min_available)
        options = [str(n) for n in range(len(self.pods) + 1)] + list(percentages)
        if value not in options:
            options.append(value)
        self.field = widgets.ToggleButtons(options=list(_FIELDS), value=field, description="field",
                                           style={"button_width": "130px"})
        self.value = widgets.SelectionSlider(options=options, value=value, description="value",
                                             continuous_update=False, layout=widgets.Layout(width="520px"))
        self.table = widgets.HTML()
        self.last = None
        super().__init__(children=[self.field, self.value, self.table])
        for control in (self.field, self.value):
            control.observe(self.update, names="value")
        self.update()

    def set(self, field: str, value: str) -> "BudgetExplorer":
        """Choose the field and its value and re-run once (for scripts and tests)."""
        for control, v in ((self.field, field), (self.value, value)):
            set_quietly(control, v, self.update)
        self.update()
        return self

    def update(self, *_) -> None:
        """Re-run the evictions with the chosen budget."""
        self.last = budget_what_if(self.objects, self.budget, self.pods, **{_FIELDS[self.field.value]: self.value.value})
        allowed = int((self.last["code"] == 200).sum())
        caption = (f"{self.field.value}: {self.value.value} → {allowed} of {len(self.pods)} evictions allowed")
        self.table.value = table_html(self.last.drop(columns=["message"]).set_index("pod"), caption)

    def __repr__(self) -> str:
        answers = ", ".join(f"{p.split('/', 1)[-1]} {c}" for p, c in zip(self.last["pod"], self.last["code"]))
        return f"BudgetExplorer({self.field.value}={self.value.value}): {answers}"
