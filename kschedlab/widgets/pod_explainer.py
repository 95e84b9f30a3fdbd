"""PodExplainer: pick a pod from a scheduling run and see why it went where it went (or why it
stayed pending): the verdict, each node's Filter result and weighted scores, and a figure.

>>> from kschedlab import Cluster, Scheduler
>>> from kschedlab.scenarios import path
>>> results = Scheduler(Cluster.from_manifests(path("default")), seed=0).run()
>>> ex = PodExplainer(results)
>>> ex.set("default/big-0").pod, ex.last.node
('default/big-0', None)
>>> print(ex.text().splitlines()[0])
default/big-0: pending. 0/5 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) had untolerated taint(s), 1 node(s) were unschedulable, 2 Insufficient cpu. preemption: 0/5 nodes are available: 5 Preemption is not helpful for scheduling.
"""

from __future__ import annotations

from typing import Iterable

import ipywidgets as widgets
import pandas as pd

from kschedlab.viz.common import esc
from kschedlab.viz.figures import filter_outcome, score_breakdown
from kschedlab.viz.table_style import format_cell
from kschedlab.widgets._display import set_figure, table_html

__all__ = ["PodExplainer", "explain_columns"]


def explain_columns(result) -> pd.DataFrame:
    """The compact view of ``result.explain()``: Filter verdict and reasons, each Score plugin's
    weighted score, the total, the rank and the chosen node."""
    table = result.explain()
    cols = ["filter", "reasons"] + [c for c in table.columns if c.endswith(" weighted")] + ["total", "rank", "chosen"]
    return table[[c for c in cols if c in table.columns]]


def _short_names(table: pd.DataFrame) -> pd.DataFrame:
    """:func:`explain_columns` with each Score column named after its plugin alone (a narrower table)."""
    return table.rename(columns={c: c.removesuffix(" weighted") for c in table.columns if c.endswith(" weighted")})


class PodExplainer(widgets.VBox):
    """A pod picker over ``results`` (ScheduleResults of one run, e.g. ``Scheduler.run()``); for
    the chosen pod it shows the verdict, :func:`explain_columns` and the score breakdown (a
    scheduled pod) or the filter outcome (a pending one). ``last`` is the shown result."""

    def __init__(self, results: Iterable, pod: str | None = None):
        self.results = {r.pod: r for r in results if r.trace is not None}
        if not self.results:
            raise ValueError("no result with a scheduling trace to explain")
        self.picker = widgets.Dropdown(options=list(self.results), value=pod or next(iter(self.results)),
                                       description="pod", layout=widgets.Layout(width="420px"))
        self.summary = widgets.HTML()
        self.table = widgets.HTML()
        self.figure = widgets.Output()
        self.last = None
        super().__init__(children=[self.picker, self.summary, self.table, self.figure])
        self.picker.observe(self.update, names="value")
        self.update()

    @property
    def pod(self) -> str:
        """The pod shown."""
        return self.picker.value

    def set(self, pod: str) -> "PodExplainer":
        """Show ``pod`` (for scripts and tests)."""
        if pod not in self.results:
            raise KeyError(f"no result for {pod}; known: {list(self.results)}")
        self.picker.value = pod
        return self

    def verdict(self) -> str:
        """One line: where the pod went and why, or the scheduler's message."""
        r = self.last
        if r.node:
            table = r.explain()
            return (f"{r.pod}: scheduled on {r.node} (total {int(table.loc[r.node, 'total'])}, "
                    f"{int((table['filter'] == 'passed').sum())} of {len(table)} nodes feasible)")
        return f"{r.pod}: pending. {r.message}"

    def text(self) -> str:
        """The verdict, each node's Filter result and, one column per feasible node, the weighted
        scores, as plain text narrow enough for a notebook's output (what a headless run prints).

        >>> from kschedlab import Cluster, Scheduler
        >>> from kschedlab.scenarios import path
        >>> ex = PodExplainer(Scheduler(Cluster.from_manifests(path("default")), seed=0).run(), "default/cache-0")
        >>> print("\\n".join(ex.text().splitlines()[-4:]))
        ImageLocality                         0       0
        total                               445     452
        rank                                  2       1
        chosen                               no     yes
        """
        table = _short_names(explain_columns(self.last))
        filters = table[["filter", "reasons"]].astype(object)
        lines = [self.verdict(), "Filter:", filters.where(filters.notna(), "–").to_string()]
        feasible = table[table["filter"] == "passed"].drop(columns=["filter", "reasons"])
        if not feasible.empty:
            scores = feasible.astype(object).T
            scores.loc["chosen"] = [format_cell(bool(v)) for v in feasible["chosen"]]
            scores.columns.name = None
            lines += ["Score (weighted) of the feasible nodes:", scores.to_string()]
        return "\n".join(lines)

    def update(self, *_) -> None:
        """Show the picked pod."""
        self.last = self.results[self.picker.value]
        self.summary.value = f"<p>{esc(self.verdict())}</p>"
        self.table.value = table_html(_short_names(explain_columns(self.last)),
                                      "per node (a Score plugin's column: its weighted score)")
        set_figure(self.figure, score_breakdown(self.last) if self.last.node else filter_outcome(self.last))

    def __repr__(self) -> str:
        return f"PodExplainer(pod={self.pod!r}) -> {self.last.node if self.last else None}"
