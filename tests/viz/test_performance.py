"""Figures of seed section 10: the adaptive default and a percentage sweep."""

from __future__ import annotations

from kschedlab.scheduler import num_feasible_nodes_to_find
from kschedlab.sim.tuning import percentage_sweep, sweep_summary, synthetic_cluster
from kschedlab.viz.performance import adaptive_default_figure, percentage_tradeoff


def test_adaptive_default_figure_matches_the_formula_and_the_seed():
    fig = adaptive_default_figure(10_000, step=50)
    pct, found = fig.data
    points = dict(zip(pct.x, pct.y))
    assert points[100] == 50 and points[5000] == 10 and points[10_000] == 5  # the seed's three numbers
    assert points[50] == 100  # under 100 nodes every node is searched
    assert list(found.y) == [num_feasible_nodes_to_find(0, n) for n in found.x]
    assert min(found.y[1:]) == 100


def test_tradeoff_plots_the_summary():
    objects = synthetic_cluster(nodes=200, pending=6, seed=11)
    summary = sweep_summary(percentage_sweep(lambda: objects, [0, 60, 100], seed=11))
    fig = percentage_tradeoff(summary)
    share, regret = fig.data
    order = summary.sort_values("evaluated")
    assert list(share.x) == list(order["evaluated"])
    assert list(share.text) == [("0 (default)" if p == 0 else f"{p}%") for p in order.index]
    assert share.y[-1] == 100.0 and regret.y[-1] == 0.0
