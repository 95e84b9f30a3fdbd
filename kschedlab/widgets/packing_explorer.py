"""PackingExplorer: the FGD paper's reproduction, one trace and a choice of policies at a time.

Reads a packing sweep's table (:mod:`kschedlab.research.fgd.runs`; nothing is re-run): pick the trace
and the policies; the figure is unallocated GPU % against the arrived workload (median and range
over seeds, :func:`~kschedlab.viz.research.unallocated_vs_arrived`), the table the median at 100 %
arrived beside the paper's number and FGD's reduction against each policy. ``last`` is the table.

>>> import pandas as pd
>>> rows = pd.DataFrame({"trace": ["t"] * 4, "family": ["default"] * 4, "policy": ["FGD", "FGD", "BestFit", "BestFit"],
...     "seed": [0, 1, 0, 1], "gpus": [6212] * 4, "wall_seconds": [1.0] * 4, "unallocated_100": [5.0, 4.0, 7.0, 7.5],
...     "arrived_pct": [[100]] * 4, "unallocated": [[5.0], [4.0], [7.0], [7.5]]})
>>> ex = PackingExplorer(rows)
>>> ex.last[["policy", "median", "paper", "FGD reduction %"]].values.tolist()
[['BestFit', 7.25, 7.09, 37.9], ['FGD', 4.5, 4.77, 0.0]]
>>> ex.set(policies=["FGD"]).last["policy"].tolist()
['FGD']
"""

from __future__ import annotations

import ipywidgets as widgets
import pandas as pd

from kschedlab.research.fgd.runs import summary
from kschedlab.viz.research import POLICY_ORDER, unallocated_vs_arrived
from kschedlab.viz.table_style import format_number, styled
from kschedlab.widgets._display import set_figure, set_quietly

__all__ = ["PackingExplorer"]


class PackingExplorer(widgets.VBox):
    """A dropdown for the trace and a multiple choice of the policies; see the module docstring."""

    def __init__(self, results: pd.DataFrame, *, trace: str | None = None, policies=None):
        self.results = results
        traces = sorted(results["trace"].unique(), key=lambda t: (t != "default", t))
        trace = traces[0] if trace is None else trace
        if trace not in traces:
            raise ValueError(f"trace: Not found: {trace!r} (the results hold {', '.join(traces)})")
        present = [p for p in POLICY_ORDER if p in set(results["policy"])]
        style = {"description_width": "120px"}
        wide = widgets.Layout(width="600px")
        self.trace = widgets.Dropdown(options=traces, value=trace, description="trace", style=style, layout=wide)
        self.policies = widgets.SelectMultiple(options=present, value=tuple(policies or present),
                                               description="policies", rows=len(present), style=style, layout=wide)
        self.table = widgets.HTML()
        self.figure = widgets.Output()
        self.last: pd.DataFrame | None = None
        super().__init__(children=[self.trace, self.policies, self.table, self.figure])
        self.add_class("kschedlab-PackingExplorer")
        for control in (self.trace, self.policies):
            control.observe(self.update, names="value")
        self.update()

    def set(self, *, trace: str | None = None, policies=None) -> "PackingExplorer":
        """Set controls and redraw once (for scripts and tests)."""
        if trace is not None:
            set_quietly(self.trace, trace, self.update)
        if policies is not None:
            set_quietly(self.policies, tuple(policies), self.update)
        self.update()
        return self

    def update(self, *_) -> None:
        """Summarise and draw the chosen trace and policies."""
        chosen = list(self.policies.value)
        rows = self.results[(self.results["trace"] == self.trace.value) & self.results["policy"].isin(chosen)]
        if rows.empty:
            self.last = None
            self.table.value = "Choose at least one policy."
            self.figure.outputs = ()
            return
        table = summary(rows)
        fgd = table.loc[table["policy"] == "FGD", "median"]
        if len(fgd):
            table["FGD reduction %"] = ((1 - float(fgd.iloc[0]) / table["median"]) * 100).round(1)
        self.last = table
        shown = table.drop(columns=["trace", "seconds"]).set_index("policy").rename_axis(None)
        self.table.value = styled(shown, uuid="packing-explorer").format(format_number, na_rep="–").to_html()
        set_figure(self.figure, unallocated_vs_arrived(rows, self.trace.value, policies=chosen, low=60))

    def __repr__(self) -> str:
        return f"PackingExplorer(trace={self.trace.value!r}, policies={list(self.policies.value)})"
