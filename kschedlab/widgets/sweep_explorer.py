"""SweepExplorer: browse a sweep's results one metric at a time, arm against arm, seed by seed.

Pick the workload, the metric (pending-time percentiles, scheduled share, utilisation,
fragmentation, preemptions...), the arms (``config / variant``) to show and the one to compare
with; the summary says each arm's mean and in how many seeds it did better than the reference
(:func:`~kschedlab.research.compare.compare_arms`), the table lists the seeds and the box plot
(:func:`~kschedlab.viz.research.box_by_config`) shows the spread. ``last`` is the latest
:class:`~kschedlab.research.compare.ArmComparison`. Nothing is re-run: the widget reads the table.

>>> import pandas as pd
>>> runs = pd.DataFrame({"config": ["default"] * 4, "variant": ["baseline", "baseline", "packed", "packed"],
...                      "workload": ["w"] * 4, "seed": [0, 1, 0, 1], "pending_p90": [10.0, 4.0, 6.0, 4.0],
...                      "scheduled_fraction": [0.5, 0.75, 0.5, 1.0]})
>>> ex = SweepExplorer(runs)
>>> ex.last.means["default / packed"], ex.last.wins["default / packed"]
(5.0, (1, 1, 0))
>>> ex.set(metric="scheduled_fraction").last.differences
{'default / packed': 0.125}
>>> ex
SweepExplorer(workload='w', metric='scheduled_fraction', reference='default / baseline', arms=2 of 2)
"""

from __future__ import annotations

import math

import ipywidgets as widgets
import pandas as pd

from kschedlab.research.compare import ArmComparison, arm_name, arm_names, compare_arms, scalar_metrics
from kschedlab.viz.common import esc
from kschedlab.viz.research import METRIC_LABELS, box_by_config, metric_scale
from kschedlab.viz.table_style import format_number, styled
from kschedlab.widgets._display import set_figure, set_quietly

__all__ = ["SweepExplorer"]


def _unit(metric: str) -> str:
    """The unit in a metric's label: "s", "%", "count"... ("" when it has none)."""
    label = METRIC_LABELS.get(metric, "")
    if "(" not in label:
        return ""
    unit = label.rsplit("(", 1)[1].rstrip(")")
    return "%" if unit.startswith("%") else unit


def _amount(value: float, unit: str, difference: bool = False) -> str:
    """``value`` to two decimals with its unit (a difference of shares is in percentage points).

    >>> _amount(87.40336, "%"), _amount(-1.6281, "%", difference=True), _amount(0.2323, "s", difference=True)
    ('87.4%', '-1.63 percentage points', '+0.23 s')
    """
    if math.isnan(value):
        return "no value"
    text = format_number(round(float(value), 2))
    if difference and value > 0:
        text = "+" + text
    if unit == "%":
        return text + (" percentage points" if difference else "%")
    return text + (f" {unit}" if unit and unit != "count" else "")


class SweepExplorer(widgets.VBox):
    """Dropdowns for the workload, the metric and the reference arm, a multiple choice of the
    arms shown; see the module docstring. ``results`` is a sweep's table
    (:func:`~kschedlab.research.sweep.sweep`); it is not changed."""

    def __init__(self, results: pd.DataFrame, *, metric: str = "pending_p90", workload: str | None = None,
                 reference: str | None = None):
        self.results = results
        present = set(scalar_metrics(results))
        metrics = [m for m in METRIC_LABELS if m in present]
        if metric not in metrics:
            raise ValueError(f"metric: Not found: {metric!r} (the results have {', '.join(metrics)})")
        workloads = sorted(results["workload"].unique())
        workload = workloads[0] if workload is None else workload
        if workload not in workloads:
            raise ValueError(f"workload: Not found: {workload!r} (the results hold {', '.join(workloads)})")
        style = {"description_width": "120px"}
        wide = widgets.Layout(width="600px")
        self.workload = widgets.Dropdown(options=workloads, value=workload, description="workload", style=style,
                                         layout=wide)
        self.metric = widgets.Dropdown(options=[(METRIC_LABELS[m], m) for m in metrics], value=metric,
                                       description="metric", style=style, layout=wide)
        arms = self._arms_of(workload)
        if reference is not None and reference not in arms:
            raise ValueError(f"reference: Not found: {reference!r} (the arms are {', '.join(arms)})")
        self.reference = widgets.Dropdown(options=arms, description="compared with", style=style, layout=wide)
        self.reference.value = reference if reference is not None else (
            "default / baseline" if "default / baseline" in arms else arms[0])
        self.arms = widgets.SelectMultiple(options=arms, value=tuple(arms), description="arms shown",
                                           rows=min(len(arms), 5), style=style, layout=wide)
        self.summary = widgets.HTML()
        self.table = widgets.HTML()
        self.figure = widgets.Output()
        self.last: ArmComparison | None = None
        super().__init__(children=[self.workload, self.metric, self.reference, self.arms, self.summary, self.table,
                                   self.figure])
        self.add_class("kschedlab-SweepExplorer")  # a handle for the browser test
        self.workload.observe(self._on_workload, names="value")
        for control in (self.metric, self.reference, self.arms):
            control.observe(self.update, names="value")
        self.update()

    def _arms_of(self, workload: str) -> list[str]:
        return arm_names(self.results[self.results["workload"] == workload])

    def _on_workload(self, *_) -> None:
        """A workload's arms become the choices (all of them when all were shown, else the ones
        shown before that it has)."""
        arms = self._arms_of(self.workload.value)
        every = set(self.arms.value) == set(self.arms.options)
        kept = tuple(arms) if every else tuple(a for a in arms if a in self.arms.value) or tuple(arms)
        reference = self.reference.value if self.reference.value in arms else arms[0]
        set_quietly(self.arms, kept, self.update, options=arms)
        set_quietly(self.reference, reference, self.update, options=arms)
        self.update()

    def set(self, *, workload: str | None = None, metric: str | None = None, reference: str | None = None,
            arms: list[str] | tuple[str, ...] | None = None) -> "SweepExplorer":
        """Set controls and redraw once (for scripts and tests)."""
        if workload is not None and workload != self.workload.value:
            set_quietly(self.workload, workload, self._on_workload)
            self._on_workload()
        for control, value in ((self.metric, metric), (self.reference, reference),
                               (self.arms, tuple(arms) if arms is not None else None)):
            if value is not None:
                set_quietly(control, value, self.update)
        self.update()
        return self

    def update(self, *_) -> None:
        """Compare the chosen arms on the chosen metric and redraw."""
        metric, workload = self.metric.value, self.workload.value
        arms = list(self.arms.value)
        if not arms:
            self.last = None
            self.summary.value = "Choose at least one arm under <i>arms shown</i>."
            self.table.value = ""
            self.figure.outputs = ()
            return
        out = compare_arms(self.results, metric, workload, reference=self.reference.value, arms=arms)
        self.last = out
        scale, unit = metric_scale(metric), _unit(metric)
        label = METRIC_LABELS.get(metric, metric).split(" (")[0]
        seeds = out.values.shape[1]
        direction = "higher" if out.higher_is_better else "lower"
        lines = [f"<b>{esc(label)}</b> on {esc(workload)}, {seeds} seed{'s' if seeds != 1 else ''} "
                 f"({direction} is better); {esc(out.reference)}: mean <b>{_amount(out.means[out.reference] * scale, unit)}</b>"]
        for arm, (better, same, worse) in out.wins.items():
            lines.append(f"{esc(arm)}: mean <b>{_amount(out.means[arm] * scale, unit)}</b>, "
                         f"Δ {_amount(out.differences[arm] * scale, unit, difference=True)}; "
                         f"better in {better} of {better + same + worse} seeds, the same in {same}, worse in {worse}")
        self.summary.value = "<br>".join(lines)
        frame = out.frame(scale).round(2).rename_axis(None)
        self.table.value = styled(frame, uuid="sweep-explorer").format(format_number, na_rep="–").to_html()
        rows = self.results[self.results["workload"] == workload]
        chosen = [arm_name(c, v) in out.values.index for c, v in zip(rows["config"], rows["variant"])]
        set_figure(self.figure, box_by_config(rows[chosen], metric, workload))

    def __repr__(self) -> str:
        return (f"SweepExplorer(workload={self.workload.value!r}, metric={self.metric.value!r}, "
                f"reference={self.reference.value!r}, arms={len(self.arms.value)} of {len(self.arms.options)})")
