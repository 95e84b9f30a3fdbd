"""Gang workloads of scheduler_perf (upstream podgroup/gangscheduling and podgroup/tas): tiny runs,
exact counts only, never time."""

from __future__ import annotations

import json

import pytest

from kschedlab.cli import main
from kschedlab.scheduler_perf import (
    GANG_WORKLOADS,
    LABEL_RACK,
    LABEL_ZONE,
    WORKLOADS,
    group_sizes,
    groups_for_pods,
    make_domain_nodes,
    make_gang_pods,
    make_pod_groups,
    run_gang_workload,
    run_workload,
)

GANG_KEYS = {"workload", "nodes", "groups", "groups_scheduled", "groups_unschedulable", "pods", "scheduled",
             "unschedulable", "seconds", "groups_per_second", "pods_per_second", "window",
             "first_window_groups_per_second", "last_window_groups_per_second", "group_latency_ms",
             "peak_rss_mb", "keep_traces", "cpu_seconds", "domains_per_group"}


def test_gang_workloads_shape():
    shapes = {name: (w.nodes, w.min_size, w.max_size, w.topology_key, w.nodes_per_domain, w.gates)
              for name, w in GANG_WORKLOADS.items()}
    assert shapes == {
        "GangScheduling": (5000, 8, 64, None, 0, {"GenericWorkload": True}),
        "TopologyAwareScheduling": (5000, 8, 64, LABEL_RACK, 100,
                                    {"GenericWorkload": True, "TopologyAwareWorkloadScheduling": True}),
    }
    assert GANG_WORKLOADS["GangScheduling"].measure_groups == 1000
    assert GANG_WORKLOADS["TopologyAwareScheduling"].measure_groups == 750  # upstream's 5000Nodes_750Gangs
    assert not set(GANG_WORKLOADS) & set(WORKLOADS)


def test_sizes_are_seeded_and_prefix_stable():
    sizes = group_sizes(50)
    assert sizes == group_sizes(50) and sizes[:5] == group_sizes(5)
    assert min(sizes) >= 8 and max(sizes) <= 64 and len(set(sizes)) > 1
    assert group_sizes(5, seed=1) != group_sizes(5)
    assert groups_for_pods(sum(group_sizes(4))) == 4 and groups_for_pods(sum(group_sizes(4)) + 1) == 5


def test_objects_follow_upstream_templates():
    nodes = make_domain_nodes(250, (LABEL_ZONE, LABEL_RACK), 100)
    assert nodes[199].metadata.labels[LABEL_RACK] == "rack-1" and nodes[200].metadata.labels[LABEL_ZONE] == "zone-2"
    gates = {"GenericWorkload": True, "TopologyAwareWorkloadScheduling": True}
    groups = make_pod_groups([3, 2], "tas-ns-0", LABEL_RACK, gates)
    assert [(g.metadata.name, g.min_count, g.spec.scheduling_constraints.topology[0].key) for g in groups] == [
        ("gang-0", 3, LABEL_RACK), ("gang-1", 2, LABEL_RACK)]
    pods = make_gang_pods([3, 2], GANG_WORKLOADS["TopologyAwareScheduling"].pod_template, "tas-ns-0", gates)
    assert [(p.metadata.name, p.spec.scheduling_group.pod_group_name) for p in pods] == [
        ("test-tas-scheduling-0", "gang-0"), ("test-tas-scheduling-1", "gang-0"), ("test-tas-scheduling-2", "gang-0"),
        ("test-tas-scheduling-3", "gang-1"), ("test-tas-scheduling-4", "gang-1")]
    assert pods[0].spec is not pods[1].spec


def test_gang_scheduling_tiny_every_group_whole():
    r = run_gang_workload("GangScheduling", nodes=50, groups=5, keep_traces=10)
    assert GANG_KEYS <= set(r)
    json.dumps(r)
    total = sum(group_sizes(5))
    assert (r["groups"], r["groups_scheduled"], r["groups_unschedulable"]) == (5, 5, 0)
    assert (r["pods"], r["scheduled"], r["unschedulable"]) == (total, total, 0)
    assert r["domains_per_group"] is None


def test_topology_aware_tiny_every_group_whole_in_one_rack():
    r = run_gang_workload("TopologyAwareScheduling", nodes=50, groups=5, nodes_per_domain=10, keep_traces=0)
    total = sum(group_sizes(5))
    assert (r["groups"], r["groups_scheduled"], r["pods"], r["scheduled"]) == (5, 5, total, total)
    assert (r["topology_key"], r["domains"], r["domains_per_group"]) == (LABEL_RACK, 5, 1)


def test_a_gang_that_does_not_fit_places_no_pod():
    # 2 nodes hold 80 pods of 100m: gangs of 42 and 37 fit, the 52 of the third do not, and none of them is bound
    assert group_sizes(3) == [42, 37, 52]
    r = run_gang_workload("GangScheduling", nodes=2, groups=3)
    assert (r["groups_scheduled"], r["groups_unschedulable"], r["scheduled"], r["unschedulable"]) == (2, 1, 79, 52)


def test_the_rack_constraint_rejects_a_gang_the_cluster_could_hold():
    # racks of 2 nodes (80 pods each); gangs of 50: one per rack, the third fits the cluster (60 free) but no rack
    common = dict(nodes=4, groups=3, min_size=50, max_size=50, nodes_per_domain=2)
    free = run_gang_workload("GangScheduling", **common)
    assert (free["groups_scheduled"], free["scheduled"]) == (3, 150)
    tas = run_gang_workload("TopologyAwareScheduling", **common)
    assert (tas["groups_scheduled"], tas["groups_unschedulable"], tas["scheduled"]) == (2, 1, 100)
    assert tas["domains_per_group"] == 1


def test_run_workload_and_cli_reach_the_gang_workloads(capsys):
    r = run_workload("GangScheduling", nodes=20, measure_pods=50, window=1)
    assert (r["groups"], r["pods"], r["scheduled"], r["window"]) == (2, 79, 79, 1)
    assert main(["bench", "TopologyAwareScheduling", "--nodes", "20", "--pods", "40", "-o", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["workload"], out["groups_scheduled"], out["scheduled"]) == ("TopologyAwareScheduling", 1, 42)


def test_unknown_gang_workload_and_both_counts():
    with pytest.raises(ValueError, match="unknown gang workload"):
        run_gang_workload("SchedulingBasic")
    with pytest.raises(ValueError, match="not both"):
        run_gang_workload("GangScheduling", nodes=5, groups=2, measure_pods=10)


def test_gang_workload_reports_its_floor_ratio():
    r = run_gang_workload("TopologyAwareScheduling", nodes=40, groups=4, min_size=2, max_size=5,
                          nodes_per_domain=10, reference=True)
    assert r["reference_pods_per_cpu_second"] > 0 and r["reference_ratio"] > 0
    assert run_gang_workload("GangScheduling", nodes=20, groups=2, min_size=2, max_size=3)["reference_ratio"] is None
