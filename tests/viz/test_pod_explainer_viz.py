"""Notebook 00's explainer: a table that fits, a legend without text-only entries (issue #27)."""

from kschedlab import Cluster, Scheduler
from kschedlab.scenarios import path
from kschedlab.viz.figures import score_breakdown
from kschedlab.widgets.pod_explainer import PodExplainer


def _explainer():
    return PodExplainer(Scheduler(Cluster.from_manifests(path("default")), seed=0).run(), "default/cache-0")


def test_score_breakdown_legend_lists_only_marked_traces():
    fig = score_breakdown(_explainer().last)
    shown = [t for t in fig.data if t.showlegend is not False]
    assert all(t.mode != "text" for t in shown if t.type == "scatter")
    assert "total" not in [t.name for t in shown] and "chosen" in [t.name for t in shown]


def test_explainer_table_names_plugins_and_scrolls_instead_of_overflowing():
    html = _explainer().table.value
    assert "overflow-x:auto" in html and " weighted</th>" not in html and ">TaintToleration</th>" in html
    assert ">yes<" in html and "True" not in html


def test_explainer_text_is_narrow_enough_for_an_output_area():
    text = _explainer().text()
    assert max(len(line) for line in text.splitlines()[1:]) <= 80
    assert text.splitlines()[-1].split() == ["chosen", "no", "yes"]
