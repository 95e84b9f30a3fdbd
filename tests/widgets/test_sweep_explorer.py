"""SweepExplorer (notebook 18) driven as a student would, through its controls, and checked
against the library: the means of ``summary_table``, the paired differences of ``compare_arms``."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from kschedlab.framework.interface import MAX_NODE_SCORE, Plugin
from kschedlab.research import Variant, Workload, execute
from kschedlab.research.compare import compare_arms, higher_is_better, scalar_metrics
from kschedlab.research.sweep import plan, summary_table
from kschedlab.viz.research import box_by_config
from kschedlab.viz.table_style import format_number
from kschedlab.widgets import SweepExplorer

GPU = "nvidia.com/gpu"


class GPUPacking(Plugin):
    """The share of a node's GPUs already requested, 0..100."""

    name = "GPUPacking"

    def score_nodes(self, state, pod_info, snapshot, rows):
        col = snapshot.res_index.get(GPU)
        if col is None:
            return np.zeros(len(rows), np.int64)
        allocatable, requested = snapshot.allocatable[col, rows], snapshot.requested[col, rows]
        return np.where(allocatable > 0, requested * MAX_NODE_SCORE // np.maximum(allocatable, 1), 0).astype(np.int64)


@pytest.fixture(scope="module")
def results():
    """A real (small) sweep, run in-process: 2 variants x 1 workload x 3 seeds."""
    variants = [Variant("baseline"), Variant("gpu-pack", plugins={"GPUPacking": GPUPacking},
                                             enable=({"name": "GPUPacking", "weight": 5},))]
    workload = Workload("tiny", generate={"jobs": 16, "arrival_rate": 0.1}, nodes={"count": 2}, until=600)
    rows = [execute(run) for run in plan({"default": None}, variants, [workload], [0, 1, 2])]
    return pd.DataFrame(rows).sort_values(["config", "variant", "workload", "seed"]).reset_index(drop=True)


def synthetic() -> pd.DataFrame:
    rows = []
    for workload, arms in (("a", ("baseline", "packed")), ("b", ("baseline", "packed", "spread"))):
        for k, variant in enumerate(arms):
            for seed in (0, 1, 2):
                rows.append({"config": "default", "variant": variant, "workload": workload, "seed": seed,
                             "pending_p90": [10.0, 20.0, 30.0][seed] - 5 * k * (seed != 1),
                             "scheduled_fraction": [0.5, 0.8, 1.0][seed] + (0.1 * k if seed == 0 else 0),
                             "gang_wait_p90": math.nan})
    return pd.DataFrame(rows)


def test_the_means_are_the_sweep_summary_table(results):
    explorer = SweepExplorer(results)
    table = summary_table(results)
    for metric in ("pending_p90", "scheduled_fraction", "gpu_fragmentation_mean", "gpu_utilization_mean"):
        explorer.metric.value = metric  # as the dropdown does
        assert explorer.last.metric == metric
        for arm, mean in explorer.last.means.items():
            config, variant = arm.split(" / ")
            assert mean == pytest.approx(table.loc[(config, variant, "tiny"), metric])


def test_paired_differences_and_wins_seed_by_seed(results):
    explorer = SweepExplorer(results, metric="gpu_fragmentation_mean")
    base = results[results["variant"] == "baseline"].set_index("seed")["gpu_fragmentation_mean"]
    pack = results[results["variant"] == "gpu-pack"].set_index("seed")["gpu_fragmentation_mean"]
    diff = pack - base
    assert explorer.last.reference == "default / baseline"
    assert explorer.last.differences["default / gpu-pack"] == pytest.approx(diff.mean())
    better, same, worse = explorer.last.wins["default / gpu-pack"]
    assert (better, same, worse) == (int((diff < 0).sum()), int((diff == 0).sum()), int((diff > 0).sum()))
    # the other way round: the reference swaps and so does the sign
    explorer.reference.value = "default / gpu-pack"
    assert explorer.last.differences["default / baseline"] == pytest.approx(-diff.mean())
    assert explorer.last.wins["default / baseline"] == (worse, same, better)


def test_the_summary_and_table_show_the_numbers(results):
    explorer = SweepExplorer(results, metric="scheduled_fraction")
    mean = explorer.last.means["default / gpu-pack"] * 100  # a share, shown in %
    assert f"mean <b>{format_number(round(mean, 2))}%</b>" in explorer.summary.value
    diff = explorer.last.differences["default / gpu-pack"] * 100
    assert f"Δ {'+' if diff > 0 else ''}{format_number(round(diff, 2))} percentage points" in explorer.summary.value
    assert "higher is better" in explorer.summary.value
    frame = explorer.last.frame(100)
    assert list(frame.columns) == ["seed 0", "seed 1", "seed 2", "mean", "Δ mean", "better/same/worse"]
    assert format_number(round(float(frame.loc["default / gpu-pack", "seed 0"]), 2)) in explorer.table.value
    explorer.metric.value = "pending_p90"
    assert "lower is better" in explorer.summary.value and " s</b>" in explorer.summary.value


def test_the_figure_is_the_box_plot_of_the_chosen_arms(results):
    explorer = SweepExplorer(results)
    shown = explorer.figure.outputs[0]["data"]["application/vnd.plotly.v1+json"]
    assert [t["name"] for t in shown["data"]] == [t.name for t in box_by_config(results, "pending_p90").data]
    explorer.arms.value = ("default / gpu-pack",)  # the reference stays in the comparison
    assert list(explorer.last.values.index) == ["default / baseline", "default / gpu-pack"]
    explorer.reference.value = "default / gpu-pack"
    assert list(explorer.last.values.index) == ["default / gpu-pack"] and explorer.last.wins == {}
    explorer.arms.value = ()
    assert explorer.last is None and "at least one arm" in explorer.summary.value
    assert explorer.figure.outputs == ()


def test_a_workload_brings_its_own_arms():
    explorer = SweepExplorer(synthetic(), reference="default / packed")
    assert explorer.arms.options == ("default / baseline", "default / packed")
    # seed 0 and 2: packed is 5 s lower; seed 1 the same
    assert explorer.last.wins["default / baseline"] == (0, 1, 2)
    explorer.workload.value = "b"
    assert explorer.arms.options == ("default / baseline", "default / packed", "default / spread")
    assert explorer.arms.value == explorer.arms.options and explorer.reference.value == "default / packed"
    assert explorer.last.wins["default / spread"] == (2, 1, 0)
    assert explorer.last.differences["default / spread"] == pytest.approx(-10 / 3)
    explorer.arms.value = ("default / spread",)
    explorer.set(workload="a", metric="scheduled_fraction")  # spread is not there: every arm of a is shown
    assert explorer.arms.options == explorer.arms.value == ("default / baseline", "default / packed")
    assert explorer.last.wins["default / baseline"] == (0, 2, 1)


def test_bad_choices_are_named():
    with pytest.raises(ValueError, match="metric: Not found: 'gang_wait_p90'"):
        SweepExplorer(synthetic(), metric="gang_wait_p90")  # no value in any run
    with pytest.raises(ValueError, match="workload: Not found: 'c'"):
        SweepExplorer(synthetic(), workload="c")
    with pytest.raises(ValueError, match="reference: Not found: 'default / spread'"):
        SweepExplorer(synthetic(), reference="default / spread")  # workload a has no spread arm


def test_compare_arms_checks_its_arguments():
    data = synthetic()
    with pytest.raises(ValueError, match="workload: Required value"):
        compare_arms(data, "pending_p90")
    with pytest.raises(ValueError, match=r"arms\[1\]: Not found: 'x / y'"):
        compare_arms(data, "pending_p90", "a", arms=["default / packed", "x / y"])
    with pytest.raises(ValueError, match="metric: Not found"):
        compare_arms(data, "p91", "a")


def test_missing_values_are_left_out_of_the_pairs():
    data = synthetic()
    data.loc[(data["workload"] == "a") & (data["variant"] == "packed") & (data["seed"] == 0), "pending_p90"] = math.nan
    out = compare_arms(data, "pending_p90", "a")
    assert out.wins["default / packed"] == (1, 1, 0)  # seed 0 has no pair
    assert out.differences["default / packed"] == pytest.approx((0 - 5) / 2)
    assert math.isnan(out.values.loc["default / packed", 0])
    assert scalar_metrics(data) == ["pending_p90", "scheduled_fraction"]
    assert higher_is_better("gpu_utilization_mean") and not higher_is_better("gpu_fragmentation_mean")


def test_the_results_are_not_changed(results):
    before = results.copy()
    SweepExplorer(results).set(metric="scheduled_fraction", reference="default / gpu-pack", arms=["default / baseline"])
    pd.testing.assert_frame_equal(results, before)
