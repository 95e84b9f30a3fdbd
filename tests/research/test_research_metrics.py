"""What a run is measured by: interval means of utilisation equal the per-node samples integrated,
and a run's row counts what happened."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from kschedlab.research import Run, Variant, Workload, execute
from kschedlab.research.metrics import SUMMARY_COLUMNS, ClusterUtilization
from kschedlab.research.trace import arrivals, generate_trace, make_nodes
from kschedlab.sim import Simulation


def simulation(utilization=None):
    sim = Simulation(make_nodes(3, gpu=4), gates={"GenericWorkload": True}, keep_traces=0, utilization=utilization)
    sim.stream(arrivals(generate_trace(30, seed=11, arrival_rate=0.05)))
    return sim


def test_interval_means_match_the_per_node_samples_integrated():
    recorder = ClusterUtilization(interval=100)
    coarse = simulation(recorder).run(until=1000)
    fine = simulation().run(until=1000)
    per_node = fine.utilization.groupby("time")[["cpu_requested", "cpu_allocatable"]].sum()
    share = (per_node["cpu_requested"] / per_node["cpu_allocatable"]).to_numpy()
    times = per_node.index.to_numpy()
    expected = []
    for start in np.arange(0, 1000, 100):
        edges = np.clip(np.append(times, 1000.0), start, start + 100)
        expected.append(float(np.sum(share * np.diff(edges)) / 100))
    assert coarse.utilization["time"].tolist() == [float(t) for t in range(0, 1000, 100)] + [1000.0]
    assert coarse.utilization["cpu_utilization"].iloc[:-1].to_numpy() == pytest.approx(expected)
    assert len(recorder) == 11  # bounded by the run's length over the interval


@pytest.mark.parametrize("read_share", [0.5, 0.03])
def test_measure_kept_up_to_date_equals_a_full_reading(read_share):
    """The recorder keeps its sums from the snapshot's changed rows: after every change they are
    the sums a fresh recorder reads over all nodes (pods bound and deleted, a node added); read
    often, a few rows changed at a time (row by row), read seldom, many (numpy)."""
    import random

    from kschedlab.api.core import Pod
    from kschedlab.cluster import Cluster
    from kschedlab.research import metrics

    rng = random.Random(0)
    cluster = Cluster(make_nodes(30))
    recorder = ClusterUtilization(interval=10)
    placed: list[str] = []
    paths: set[bool] = set()
    for step in range(300):
        if placed and rng.random() < 0.4:
            cluster.remove_pod(placed.pop(rng.randrange(len(placed))))
        else:
            requests = {"cpu": f"{rng.randint(1, 8000)}m", "memory": f"{rng.randint(1, 9000)}Mi"}
            if rng.random() < 0.5:
                requests["nvidia.com/gpu"] = str(rng.randint(1, 8))
            cluster.add(Pod.model_validate({"metadata": {"name": f"p{step}", "namespace": "d"}, "spec": {
                "nodeName": rng.choice(cluster.snapshot.names),
                "containers": [{"name": "c", "resources": {"requests": requests}}]}}))
            placed.append(f"d/p{step}")
        if step == 150:
            cluster.add(make_nodes(1, prefix="late")[0])
        if rng.random() < read_share:
            changed = len(set(cluster.snapshot.changes_since(recorder._mark)[0] or ()))
            paths.add(changed <= metrics.FEW_ROWS)
            assert recorder.measure(cluster.snapshot) == ClusterUtilization(interval=10).measure(cluster.snapshot)
    assert recorder.measure(cluster.snapshot)[5] == len(placed)
    assert paths == ({True, False} if read_share < 0.1 else {True})


def test_run_row_counts_gangs_preemptions_and_pending_times():
    run = Run("default", None, Variant("baseline"),
              Workload("w", generate={"jobs": 40, "arrival_rate": 0.2}, nodes={"count": 2}, until=3000, interval=50))
    row = execute(run)
    assert set(SUMMARY_COLUMNS) <= set(row)
    assert row["scheduled"] == len(row["pending_times"]) and row["pods"] >= 40
    assert row["scheduled_fraction"] == row["scheduled"] / row["pods"]
    times = np.asarray(row["pending_times"])
    assert row["pending_p90"] == pytest.approx(np.percentile(times, 90))
    assert row["gangs"] > 0 and row["gang_wait_max"] >= row["gang_wait_p50"] >= 0
    assert row["preemptions"] > 0  # two nodes are too few: priorities 100 and 1000 preempt
    assert 0 < row["gpu_utilization_mean"] <= 1 and 0 <= row["gpu_fragmentation_mean"] <= 1
    assert row["attempts"] >= row["scheduled"] and row["decisions_per_second"] > 0
    assert row["time"][0] == 0.0 and len(row["time"]) == len(row["gpu_utilization"]) == 61
    again = execute(run)
    for key in SUMMARY_COLUMNS:
        if key not in ("wall_seconds", "decisions_per_second"):
            assert again[key] == row[key] or (math.isnan(again[key]) and math.isnan(row[key]))


def test_scenario_workload_with_the_sweeps_configuration():
    config = {"profiles": [{"pluginConfig": [{"name": "NodeResourcesFit", "args": {
        "scoringStrategy": {"type": "MostAllocated"}}}]}]}
    row = execute(Run("packed", config, Variant("baseline"),
                      Workload("cap", scenario=("datasets/sim/capacity-waits.yaml",), interval=10)))
    assert (row["pods"], row["scheduled"], row["stop_reason"]) == (5, 5, "until")
    assert row["pending_times"] == [0.0, 0.0, 18.0, 18.0, 26.0]
    assert pd.Series(row["cpu_utilization"]).between(0, 1).all()


def test_another_snapshot_at_a_freed_ones_address_is_read_anew(monkeypatch):
    """The recorder keeps its sums per snapshot. A second cluster's snapshot with as many nodes
    and rows, at the address of a freed first one (as CPython may place it; ``id`` made constant
    in the module plays that), is still another snapshot: read whole, not from the first one's
    change log."""
    from kschedlab.api.core import Pod
    from kschedlab.cluster import Cluster
    from kschedlab.research import metrics

    monkeypatch.setattr(metrics, "id", lambda obj: 0, raising=False)
    recorder = ClusterUtilization(interval=10)
    first, second = Cluster(make_nodes(4)), Cluster(make_nodes(4, cpu="8"))
    for cluster in (first, second):
        cluster.add(Pod.model_validate({"metadata": {"name": "p", "namespace": "d"}, "spec": {
            "nodeName": cluster.snapshot.names[0],
            "containers": [{"name": "c", "resources": {"requests": {"cpu": "2"}}}]}}))
    assert recorder.measure(first.snapshot) == ClusterUtilization(interval=10).measure(first.snapshot)
    assert recorder.measure(second.snapshot) == ClusterUtilization(interval=10).measure(second.snapshot)
