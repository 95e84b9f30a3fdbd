"""``kschedlab bench``'s table of every shape, the numpy yardstick and the churn workloads (tiny sizes)."""

import json

import pytest

from kschedlab.cli import main
from kschedlab.cluster import Cluster
from kschedlab.scheduler import Scheduler
from kschedlab.scheduler_perf import (
    BENCH_SHAPES,
    WORKLOADS,
    make_nodes,
    make_pods,
    numpy_reference,
    run_bench,
    run_shape,
    run_workload,
    scaling_runs,
)


def test_bench_runs_every_shape_and_prints_one_table(capsys):
    assert main(["bench", "--scale", "0.004"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split()[:3] == ["shape", "nodes", "pods"]
    assert [line.split()[0] for line in out[2:]] == list(BENCH_SHAPES)
    basic = out[2].split()
    assert basic[-1].endswith("x") and basic[-2] == "680"  # numpy-loop ratio beside upstream's threshold


def test_bench_shapes_subset_as_json(capsys):
    assert main(["bench", "--shapes", "Unschedulable,SchedulingWithMixedChurn", "--scale", "0.004", "-o", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["shape"], r["nodes"], r["pods"], r["scheduled"], r["upstream_threshold"]) for r in rows] == [
        ("Unschedulable", 20, 40, 40, 590), ("SchedulingWithMixedChurn", 20, 40, 40, 710)]
    assert all(r["peak_rss_mb"] > 0 for r in rows)


@pytest.mark.parametrize("argv, message", [
    (["bench", "--shapes", "Nope"], "--shapes: Unsupported value: Nope"),
    (["bench", "--scale", "0"], "--scale: Invalid value: 0.0: must be greater than 0"),
    (["bench", "SchedulingBasic", "--shapes", "SchedulingBasic"], "give a workload or --shapes, not both"),
])
def test_bench_rejects_bad_options(capsys, argv, message):
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_run_bench_rejects_unknown_shapes():
    with pytest.raises(ValueError, match="unknown shape"):
        run_bench(["SchedulingBasic", "Nope"], 0.01, isolate=False)


@pytest.mark.parametrize("nodes, init_pods, pods", [(30, 10, 80), (150, 40, 300)])
def test_numpy_reference_places_every_pod_where_the_scheduler_does(nodes, init_pods, pods):
    cluster = Cluster(make_nodes(nodes))
    scheduler = Scheduler(cluster, keep_traces=0)
    for pod in make_pods(init_pods, "init"):
        cluster.add(pod)
    placed = [cluster.snapshot.index[r.node] for r in scheduler.run()]
    measured = make_pods(pods, "pod")
    for pod in measured:
        cluster.add(pod)
    for q in scheduler.queue([f"default/{p.metadata.name}" for p in measured]):
        placed.append(cluster.snapshot.index[scheduler.schedule_one(q.pod_info.key).node])
    assert numpy_reference(nodes, init_pods, pods)["placements"] == placed


def test_reference_ratio_is_reported_beside_the_rate():
    r = run_workload("SchedulingBasic", nodes=20, init_pods=5, measure_pods=30, reference=True)
    assert r["reference_pods_per_cpu_second"] > 0
    assert r["reference_ratio"] == pytest.approx(r["reference_pods_per_cpu_second"] / r["pods_per_cpu_second"],
                                                 rel=0.01)


def test_unschedulable_churn_creates_one_high_priority_pod_per_tick():
    assert WORKLOADS["Unschedulable"].churn.interval_ms == 200
    r = run_workload("Unschedulable", nodes=10, init_pods=2, measure_pods=40, churn_interval_ms=1)
    assert r["scheduled"] == 40 and r["churn_ticks"] == r["churn_pods"] > 0
    assert [step for _, step in r["churn_steps"]] == ["pod"] * r["churn_pods"]


def test_mixed_churn_recreates_node_pod_and_service():
    r = run_workload("SchedulingWithMixedChurn", nodes=10, init_pods=0, measure_pods=40, churn_interval_ms=1)
    assert r["scheduled"] == 40
    assert r["churn_pods"] == (r["churn_ticks"] + 1) // 2  # created on odd ticks, deleted on even ones
    steps = [step for _, step in r["churn_steps"]]
    assert steps == (["node", "pod", "drop"] * r["churn_ticks"])[:len(steps)]
    assert [i for i, _ in r["churn_steps"]] == sorted(i for i, _ in r["churn_steps"])


@pytest.mark.parametrize("name", ["Unschedulable", "SchedulingWithMixedChurn"])
@pytest.mark.parametrize("nodes, init_pods, pods", [(30, 10, 120), (120, 0, 300)])
def test_churn_floor_places_every_pod_where_the_scheduler_does(name, nodes, init_pods, pods):
    """The churn workloads' floor: the numpy loop with the churn steps the measured phase met (a tick
    every millisecond, so many steps fall between the measured pods)."""
    r = run_workload(name, nodes=nodes, init_pods=init_pods, measure_pods=pods, churn_interval_ms=1,
                     placements=True)
    floor = numpy_reference(nodes, init_pods, pods, churn=r["churn_steps"])
    assert r["churn_pods"] > 0
    assert floor["placements"] == r["placements"] and floor["churn_pending"] == r["churn_pods"]


def test_churn_floor_counts_only_the_churn_pods_no_node_can_hold():
    # the node is added after the pod: on node-default.yaml nodes the 9-CPU pod fits none either way
    assert numpy_reference(5, 0, 3, churn=[(1, "pod"), (1, "node"), (2, "pod")])["churn_pending"] == 2
    assert numpy_reference(5, 0, 3, churn=[(0, "node"), (1, "drop")])["churn_pending"] == 0


@pytest.mark.parametrize("name", ["Unschedulable", "SchedulingWithMixedChurn"])
def test_bench_row_of_a_churn_workload_has_the_floor_ratio(name):
    assert run_shape(name, 0.004)["reference_ratio"] is not None


def test_scaling_runs_report_cost_per_pod_and_node():
    df = scaling_runs((20, 60), init_pods=5, measure_pods=30, isolate=False)
    assert df["nodes"].tolist() == [20, 60] and df["scheduled"].tolist() == [30, 30]
    assert (df["cpu_ns_per_pod_per_node"] > 0).all()
