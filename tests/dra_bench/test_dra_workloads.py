"""The DRA scheduler_perf workloads (upstream dra/performance-config.yaml shapes), small: every
pod scheduled, every claim allocated once. Counts only, never time."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from kschedlab.api.dracel import DeviceView, compile_selector, evaluation_timer
from kschedlab.cli import main
from kschedlab.scheduler_perf import (
    DRA_WORKLOADS,
    dra_resource_slice,
    make_dra_nodes,
    make_dra_pods,
    run_dra_workload,
    run_workload,
)


def test_shapes_are_upstreams():
    shapes = {n: (w.nodes_with_dra, w.nodes_without_dra, w.init_pods, w.measure_pods, w.max_claims_per_node,
                  w.pods_per_claim, w.threshold) for n, w in DRA_WORKLOADS.items()}
    assert shapes == {
        "SchedulingWithResourceClaimTemplate": (500, 0, 2500, 2500, 10, 0, 56),
        "SchedulingWithResourceClaim": (500, 0, 2500, 2500, 2, 5, None),
    }


def test_slice_nodes_and_pods_follow_the_templates():
    s = dra_resource_slice("test-driver.cdi.k8s.io", "scheduler-perf-dra-3", 10)
    assert s["metadata"]["name"] == s["spec"]["nodeName"] == s["spec"]["pool"]["name"] == "scheduler-perf-dra-3"
    dev = s["spec"]["devices"][7]
    assert dev["attributes"]["dra.example.com/numa"] == {"int": 7} and dev["capacity"] == {"memory": {"value": "1Gi"}}
    assert [n.metadata.name for n in make_dra_nodes(2, 1)] == [
        "scheduler-perf-00000", "scheduler-perf-dra-0", "scheduler-perf-dra-1"]
    pods = make_dra_pods(7, "test", pods_per_claim=5)
    assert [p.spec.resource_claims[0].resource_claim_name for p in pods] == ["test-claim-0"] * 5 + ["test-claim-1"] * 2
    assert len({p.metadata.uid for p in pods}) == 7
    (tpl,) = make_dra_pods(1, "init")[0].spec.resource_claims
    assert tpl.resource_claim_template_name == "test-claim-template"


def test_claim_template_workload_schedules_every_pod_on_its_own_device():
    r = run_dra_workload("SchedulingWithResourceClaimTemplate", nodes=4, init_pods=6, measure_pods=10,
                         max_claims_per_node=4, window=5)
    assert (r["init_scheduled"], r["scheduled"], r["unschedulable"]) == (6, 10, 0)
    assert (r["claims"], r["claims_allocated"], r["window"], r["upstream_threshold"]) == (16, 16, 5, 56)
    assert r["cel_evaluations"] is None and r["cel_share"] is None


def test_cluster_is_filled_up_completely_then_pods_stay_pending():
    # 3 nodes x 2 devices: the seventh pod finds no device
    r = run_dra_workload("SchedulingWithResourceClaimTemplate", nodes=3, init_pods=2, measure_pods=5,
                         max_claims_per_node=2)
    assert (r["scheduled"], r["unschedulable"], r["claims_allocated"]) == (4, 1, 6)


def test_shared_claims_put_their_pods_together():
    r = run_dra_workload("SchedulingWithResourceClaim", nodes=3, init_pods=10, measure_pods=12,
                         max_claims_per_node=2)
    # 2 + 3 claims for 10 + 12 pods; every pod of a claim runs where its device is
    assert (r["init_scheduled"], r["scheduled"], r["claims"], r["claims_allocated"]) == (10, 12, 5, 5)
    assert r["pods_per_claim"] == 5


def test_pods_of_one_shared_claim_share_its_node():
    import kschedlab.scheduler_perf.dra as sp

    seen = {}
    original = sp.Scheduler

    class Spy(original):
        def __init__(self, cluster, *a, **kw):
            seen["cluster"] = cluster
            super().__init__(cluster, *a, **kw)

    sp.Scheduler = Spy
    try:
        run_dra_workload("SchedulingWithResourceClaim", nodes=3, init_pods=0, measure_pods=15, max_claims_per_node=1)
    finally:
        sp.Scheduler = original
    cluster = seen["cluster"]
    nodes_of_claim: dict[str, set] = {}
    for pod in cluster.pods.values():
        nodes_of_claim.setdefault(pod.spec.resource_claims[0].resource_claim_name, set()).add(pod.spec.node_name)
    assert all(len(v) == 1 and None not in v for v in nodes_of_claim.values()) and len(nodes_of_claim) == 3
    devices = Counter((c.status.allocation.devices.results[0].pool, c.status.allocation.devices.results[0].device)
                      for c in cluster.objects["ResourceClaim"].values())
    assert max(devices.values()) == 1


def test_cel_timing_counts_evaluations():
    r = run_dra_workload("SchedulingWithResourceClaimTemplate", nodes=2, init_pods=0, measure_pods=3,
                         max_claims_per_node=2, cel_timing=True)
    # cel_seconds is wall-clock time, the share is of CPU time: on a loaded machine a run of three
    # pods may show more than 1, and both are rounded (to 0 on a fast one)
    assert r["scheduled"] == 3 and r["cel_evaluations"] > 0 and r["cel_share"] >= 0 and r["cel_seconds"] >= 0


def test_evaluation_timer_is_off_outside_its_block():
    sel = compile_selector('device.driver == "d"')
    with evaluation_timer(False) as off:
        sel.matches(DeviceView("d"))
    with evaluation_timer() as on:
        sel.matches(DeviceView("d"))
        sel.matches(DeviceView("x"))
    sel.matches(DeviceView("d"))
    assert (off.evaluations, on.evaluations) == (0, 2)


def test_run_workload_and_bench_reach_the_dra_workloads(capsys):
    r = run_workload("SchedulingWithResourceClaim", nodes=2, init_pods=0, measure_pods=5)
    assert r["scheduled"] == 5 and r["claims_allocated"] == 1
    assert main(["bench", "SchedulingWithResourceClaimTemplate", "--nodes", "2", "--init-pods", "3",
                 "--pods", "4", "-o", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["workload"], out["scheduled"], out["unschedulable"], out["upstream_threshold"]) == (
        "SchedulingWithResourceClaimTemplate", 4, 0, 56)


def test_unknown_dra_workload_is_refused():
    with pytest.raises(ValueError, match="unknown DRA workload"):
        run_dra_workload("Nope")
