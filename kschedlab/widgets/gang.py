"""GangExplorer: move the PodGroups' ``minCount`` and watch what each scheduling mode does
with two training jobs on a cluster that fits one.

Each change re-runs :func:`kschedlab.viz.gang.run_gang_story` in every mode (pod by pod
without gangs, GangScheduling at Permit, the PodGroup cycle) with the new ``minCount`` and
shows :func:`~kschedlab.viz.gang.runs_summary` (workers bound and held at t=0, when each
job started) and :func:`~kschedlab.viz.gang.gang_timeline` side by side.  The widget only
wires the slider to those functions.

>>> ex = GangExplorer(until=400)
>>> ex
GangExplorer(minCount=4), bound at t=0: plain 2+2, permit 0+0 (held 2+2), cycle 4+0
>>> ex.set(2).last[["mode", "job-a running", "job-b running"]].values.tolist()
[['plain', 2, 2], ['permit', 2, 2], ['cycle', 4, 0]]
"""

from __future__ import annotations

import ipywidgets as widgets

from kschedlab.viz.common import esc
from kschedlab.viz.gang import MODES, gang_timeline, run_gang_story, runs_summary
from kschedlab.widgets._display import set_figure, set_quietly, table_html

__all__ = ["GangExplorer"]


class GangExplorer(widgets.VBox):
    """A ``minCount`` slider (1 .. workers per job); below, the summary table of every mode
    at t=0 and the animated node-slot timeline of every mode.  ``last`` is the latest
    summary (a DataFrame, one row per mode), ``runs`` the latest runs by mode."""

    def __init__(self, min_count: int = 4, *, modes=tuple(MODES), until: float = 700.0, step: float = 20.0,
                 workers: int = 4, **story):
        self.modes = tuple(modes)
        self.until, self.step, self.story = float(until), float(step), {"workers": workers, **story}
        self.last = None
        self.runs: dict = {}
        self.slider = widgets.IntSlider(value=min_count, min=1, max=workers, description="minCount",
                                        continuous_update=False, layout=widgets.Layout(width="360px"))
        self.table = widgets.HTML()
        self.figure = widgets.Output()
        header = widgets.HTML("<b>GangExplorer</b>: two jobs of "
                              f"{esc(workers)} workers each, submitted together; both PodGroups get this "
                              "<code>minCount</code>")
        super().__init__(children=[header, self.slider, self.table, self.figure])
        self.slider.observe(self.update, names="value")
        self.update()

    def set(self, min_count: int) -> "GangExplorer":
        """Set ``minCount`` and re-run once (for scripts and tests)."""
        set_quietly(self.slider, min_count, self.update)
        self.update()
        return self

    def update(self, *_):
        """Re-run every mode with the slider's ``minCount`` and refresh the views."""
        m = int(self.slider.value)
        self.runs = {mode: run_gang_story(mode, m, until=self.until, **self.story) for mode in self.modes}
        self.last = runs_summary(self.runs.values())
        self.table.value = table_html(self.last.set_index("mode"), f"minCount {m}: workers at t=0, job start times")
        set_figure(self.figure, gang_timeline({MODES[k]: r for k, r in self.runs.items()}, step=self.step,
                                              title=f"Node slots over virtual time, minCount {m}"))

    def __repr__(self) -> str:
        if self.last is None:
            return f"GangExplorer(minCount={self.slider.value})"
        jobs = [c[:-len(" running")] for c in self.last.columns if c.endswith(" running")]
        parts = []
        for row in self.last.to_dict("records"):
            text = f"{row['mode']} " + "+".join(str(row[f"{j} running"]) for j in jobs)
            if any(row[f"{j} held"] for j in jobs):
                text += " (held " + "+".join(str(row[f"{j} held"]) for j in jobs) + ")"
            parts.append(text)
        return f"GangExplorer(minCount={self.slider.value}), bound at t=0: " + ", ".join(parts)
