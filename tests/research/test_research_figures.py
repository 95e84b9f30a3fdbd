"""Comparison figures: one colour per configuration / variant from the Okabe-Ito palette, units
on the axes, a clear error when the table holds several workloads."""

from __future__ import annotations

import pandas as pd
import pytest

from kschedlab.viz.research import OKABE_ITO, box_by_config, pending_cdf, utilization_over_time


def results():
    rows = []
    for config in ("default", "packed"):
        for seed in (0, 1):
            for workload in ("a", "b"):
                rows.append({"config": config, "variant": "baseline", "workload": workload, "seed": seed,
                             "pending_times": [0.0, 10.0 * (seed + 1), 30.0], "time": [0.0, 60.0, 120.0],
                             "gpu_utilization": [0.1, 0.5, 0.25], "running_pods": [0, 3, 2],
                             "pending_p90": 26.0 + seed})
    return pd.DataFrame(rows)


def test_cdf_pools_seeds_per_arm_in_palette_colours():
    fig = pending_cdf(results(), workload="a")
    assert [t.name for t in fig.data] == ["default / baseline", "packed / baseline"]
    assert [t.line.color for t in fig.data] == list(OKABE_ITO[:2])
    first = fig.data[0]
    assert list(first.x) == [0.0, 0.0, 10.0, 20.0, 30.0, 30.0] and first.y[-1] == 100.0
    assert fig.layout.xaxis.title.text == "pending time (s)"
    assert "(% of scheduled)" in fig.layout.yaxis.title.text


def test_series_in_percent_and_minutes_one_dash_per_seed():
    fig = utilization_over_time(results(), "gpu_utilization", workload="b")
    assert len(fig.data) == 4
    assert list(fig.data[0].x) == [0.0, 1.0, 2.0] and list(fig.data[0].y) == [10.0, 50.0, 25.0]
    assert {t.line.dash for t in fig.data} == {"solid", "dash"}
    assert fig.layout.xaxis.title.text == "virtual time (min)"
    counts = utilization_over_time(results(), "running_pods", workload="b")
    assert list(counts.data[0].y) == [0, 3, 2] and counts.layout.yaxis.title.text == "running pods (count)"


def test_box_per_arm_and_workload_choice():
    fig = box_by_config(results(), "pending_p90", workload="a")
    assert [list(t.y) for t in fig.data] == [[26.0, 27.0], [26.0, 27.0]]
    assert fig.layout.yaxis.title.text == "90th percentile pending time (s)"
    with pytest.raises(ValueError, match="the results hold 2 workloads"):
        pending_cdf(results())
    with pytest.raises(ValueError, match="workload: Not found: 'c'"):
        box_by_config(results(), workload="c")
