"""scheduler_perf-shaped workloads: small smoke runs of every workload (counts only, never time)."""

from __future__ import annotations

import json

import pytest

from kschedlab.cli import main
from kschedlab.scheduler_perf import (
    LABEL_HOSTNAME,
    LABEL_ZONE,
    POD_WITH_POD_AFFINITY,
    POD_WITH_POD_ANTI_AFFINITY,
    WORKLOADS,
    make_nodes,
    make_pods,
    run_workload,
)

#: the workloads of pods placed relative to other pods, with SchedulingBasic for reference
PLACEMENT = ("SchedulingBasic", "SchedulingPodAntiAffinity", "SchedulingPodAffinity", "TopologySpreading")
KEYS = {"workload", "nodes", "init_pods", "init_scheduled", "pods", "scheduled", "unschedulable", "seconds",
        "pods_per_second", "window", "first_window_pods_per_second", "last_window_pods_per_second",
        "upstream_threshold", "peak_rss_mb", "keep_traces"}


def test_workloads_have_upstreams_counts():
    shapes = {name: (w.nodes, w.init_pods, w.measure_pods, w.threshold) for name, w in WORKLOADS.items()
              if name in PLACEMENT}
    assert shapes == {
        "SchedulingBasic": (5000, 1000, 10000, 680),
        "SchedulingPodAntiAffinity": (5000, 1000, 2000, 60),
        "SchedulingPodAffinity": (5000, 5000, 5000, 35),
        "TopologySpreading": (5000, 5000, 5000, 460),
    }
    assert WORKLOADS["SchedulingBasic"]["nodes"] == 5000  # dict-style access still works


def test_nodes_get_hostname_and_round_robin_zone_labels():
    nodes = make_nodes(4, (LABEL_ZONE, ("moon-1", "moon-2", "moon-3")))
    assert [n.metadata.labels for n in nodes[:2]] == [
        {LABEL_HOSTNAME: "scheduler-perf-00000", LABEL_ZONE: "moon-1"},
        {LABEL_HOSTNAME: "scheduler-perf-00001", LABEL_ZONE: "moon-2"}]
    assert nodes[3].metadata.labels[LABEL_ZONE] == "moon-1"


def test_pods_are_admitted_copies_of_the_template():
    pods = make_pods(2, "pod", POD_WITH_POD_ANTI_AFFINITY, "sched-1")
    assert [p.metadata.name for p in pods] == ["pod-00000", "pod-00001"]
    p = pods[0]
    assert (p.metadata.namespace, p.spec.priority, p.spec.scheduler_name) == ("sched-1", 0, "default-scheduler")
    term = p.spec.affinity.pod_anti_affinity.required_during_scheduling_ignored_during_execution[0]
    assert term.topology_key == LABEL_HOSTNAME and term.namespaces == ["sched-1", "sched-0"]
    assert pods[0].spec is not pods[1].spec


@pytest.mark.parametrize("name", PLACEMENT)
def test_every_workload_runs_small(name):
    r = run_workload(name, nodes=16, init_pods=6, measure_pods=9, window=4)
    assert KEYS <= set(r)
    assert (r["workload"], r["nodes"], r["pods"], r["window"]) == (name, 16, 9, 4)
    assert r["init_scheduled"] == 6 and r["scheduled"] == 9 and r["unschedulable"] == 0


def test_anti_affinity_puts_one_pod_per_node():
    # init pods (sched-0) and measured pods (sched-1) repel each other: the term names both namespaces
    r = run_workload("SchedulingPodAntiAffinity", nodes=10, init_pods=4, measure_pods=8)
    assert (r["init_scheduled"], r["scheduled"], r["unschedulable"]) == (4, 6, 2)


def test_pod_affinity_first_pod_may_go_anywhere():
    # no color=blue pod exists at first, but the pod matches its own term: the series can start
    assert POD_WITH_POD_AFFINITY["metadata"]["labels"] == {"color": "blue"}
    r = run_workload("SchedulingPodAffinity", nodes=5, init_pods=1, measure_pods=4)
    assert r["init_scheduled"] == 1 and r["scheduled"] == 4


def test_windows_shrink_to_the_measured_pods():
    r = run_workload("TopologySpreading", nodes=6, init_pods=3, measure_pods=3, window=1000)
    assert r["window"] == 3 and r["first_window_pods_per_second"] == r["last_window_pods_per_second"]


def test_unknown_workload():
    with pytest.raises(ValueError, match="unknown workload 'Nope'"):
        run_workload("Nope")


def test_cli_bench_json(capsys):
    assert main(["bench", "TopologySpreading", "--nodes", "9", "--init-pods", "3", "--pods", "6", "-o", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {"pods_per_second", "peak_rss_mb", "nodes", "pods"} <= set(out)
    assert (out["nodes"], out["pods"], out["scheduled"]) == (9, 6, 6)


# -- PreemptionBasic (default_preemption/performance-config.yaml) ------------------------------------
PREEMPTION_KEYS = KEYS | {"attempts", "preemptions", "victims", "cpu_seconds", "pods_per_cpu_second"}


def test_preemption_basic_shape_is_upstreams():
    w = WORKLOADS["PreemptionBasic"]
    assert (w.nodes, w.init_pods, w.measure_pods) == (5000, 20000, 5000)
    assert w.init_template["spec"]["containers"][0]["resources"]["requests"]["cpu"] == "900m"
    assert w.measure_template["spec"]["containers"][0]["resources"]["requests"]["cpu"] == "3970m"


def test_high_priority_template_keeps_its_raw_priority():
    from kschedlab.scheduler_perf import POD_HIGH_PRIORITY

    (pod,) = make_pods(1, "pod", POD_HIGH_PRIORITY)
    assert pod.spec.priority == 9999999 and pod.spec.termination_grace_period_seconds == 0


@pytest.mark.parametrize("keep_traces", [1000, 0])
def test_preemption_basic_smoke(keep_traces):
    r = run_workload("PreemptionBasic", nodes=5, init_pods=20, measure_pods=5, keep_traces=keep_traces)
    assert PREEMPTION_KEYS <= set(r)
    json.dumps(r)
    # four 900m pods fill each 4-CPU node; every 3970m pod preempts all four pods of one node, then binds
    assert (r["init_scheduled"], r["pods"], r["scheduled"], r["unschedulable"]) == (20, 5, 5, 0)
    assert (r["attempts"], r["preemptions"], r["victims"]) == (10, 5, 20)


def test_preemption_basic_more_measured_pods_than_nodes():
    r = run_workload("PreemptionBasic", nodes=3, init_pods=12, measure_pods=5)
    # three nodes host three measured pods; the other two find only pods of their own priority
    assert (r["scheduled"], r["unschedulable"], r["preemptions"], r["victims"]) == (3, 2, 3, 12)
    assert r["attempts"] == 3 * 2 + 2


def test_workloads_without_preemption_attempt_each_pod_once():
    r = run_workload("SchedulingBasic", nodes=20, init_pods=10, measure_pods=30)
    assert (r["scheduled"], r["attempts"], r["preemptions"], r["victims"]) == (30, 30, 0, 0)
