"""percentageOfNodesToScore: node sampling, its round-robin start and what it costs in placement quality
(seed section 10)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from kschedlab import Cluster, Scheduler
from kschedlab.api.loader import load
from kschedlab.apiserver.admission import admit
from kschedlab.sim.tuning import (
    adaptive_percentage,
    all_feasible_scores,
    num_feasible_nodes_to_find,
    percentage_sweep,
    sweep_summary,
    synthetic_cluster,
)

SEED = Path(__file__).resolve().parents[2] / "datasets" / "seed"


def test_adaptive_default_matches_the_seed():
    # "50% for a 100-node cluster, 10% for 5000 nodes, never below 5%"
    assert adaptive_percentage(100) == 50 and adaptive_percentage(5000) == 10 and adaptive_percentage(10_000) == 5
    # ... and never fewer than 100 nodes (minFeasibleNodesToFind); small clusters are searched whole
    assert num_feasible_nodes_to_find(0, 100) == 100 and num_feasible_nodes_to_find(0, 99) == 99
    assert num_feasible_nodes_to_find(0, 5000) == 500 and num_feasible_nodes_to_find(5, 1000) == 100


def test_dry_run_changes_nothing():
    cluster = Cluster(synthetic_cluster(nodes=150, pending=2, seed=4))
    scheduler = Scheduler(cluster, {"percentageOfNodesToScore": 100})
    key = "default/web-000"
    full = all_feasible_scores(scheduler, key)
    assert scheduler.next_start_node_index == 0 and not cluster.pods[key].spec.node_name
    assert 0 < len(full) <= len(cluster.nodes) and list(full.index) == sorted(full.index, key=list(
        cluster.snapshot.names[r] for r in cluster.snapshot.order).index)
    result = scheduler.schedule_one(key)
    # scoring every node, the scheduler's own totals are the dry run's
    assert result.trace.scores()[result.node]["total"] == full[result.node] == full.max()


def test_round_robin_start_continues_where_the_last_pod_stopped():
    cluster = Cluster(synthetic_cluster(nodes=200, zones=2, pending=3, seed=5))
    scheduler = Scheduler(cluster, {"percentageOfNodesToScore": 50})
    starts = []
    for key in ("default/web-000", "default/web-001", "default/web-002"):
        r = scheduler.schedule_one(key)
        starts.append((r.trace.start_index, r.trace.evaluated_nodes))
    assert starts[0][0] == 0
    assert starts[1][0] == starts[0][1] and starts[2][0] == (starts[1][0] + starts[1][1]) % 200


def test_seed_six_nodes_in_two_zones_are_visited_round_robin():
    objs = admit(load(SEED / "10-node-iteration-order.yaml"))
    cluster = Cluster(objs)
    snap = cluster.snapshot
    assert [snap.names[r] for r in snap.order] == ["node-1", "node-5", "node-2", "node-6", "node-3", "node-4"]
    r = Scheduler(cluster).schedule_one("default/pod-1")
    assert [snap.names[r] for r in r.trace.filter.rows] == ["node-1", "node-5", "node-2", "node-6", "node-3",
                                                             "node-4"]


def test_sweep_quality_and_work():
    objects = synthetic_cluster(nodes=300, pending=12, seed=7)
    sweep = percentage_sweep(lambda: objects, [10, 50, 100], seed=7)
    assert set(sweep["percentage"]) == {10, 50, 100}
    assert (sweep["rank"] >= 1).all() and (sweep["regret"] >= 0).all()
    full = sweep[sweep["percentage"] == 100]
    assert (full["rank"] == 1).all() and (full["evaluated"] == 300).all()
    summary = sweep_summary(sweep)
    assert summary.loc[10, "to_find"] == 100 and summary.loc[50, "to_find"] == 150
    assert summary.loc[10, "evaluated"] < summary.loc[50, "evaluated"] < summary.loc[100, "evaluated"]
    assert summary.loc[100, "best_node_share"] == 1.0
    assert summary.loc[10, "mean_regret"] >= summary.loc[100, "mean_regret"]


def test_sweep_is_deterministic():
    objects = synthetic_cluster(nodes=120, pending=5, seed=9)
    a = percentage_sweep(lambda: objects, [0, 30], seed=9)
    b = percentage_sweep(lambda: objects, [0, 30], seed=9)
    pd.testing.assert_frame_equal(a, b)
