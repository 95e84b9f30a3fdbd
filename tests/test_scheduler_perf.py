"""scheduler_perf-shaped workloads at tiny sizes: they build, place and report (never timed)."""

from __future__ import annotations

import json

import pytest

from kschedlab.scheduler_perf import POD_HIGH_PRIORITY, WORKLOADS, make_pods, run_workload

KEYS = {"workload", "nodes", "init_pods", "init_scheduled", "pods", "scheduled", "unschedulable", "seconds",
        "pods_per_second", "window", "first_window_pods_per_second", "last_window_pods_per_second",
        "upstream_threshold", "peak_rss_mb", "keep_traces", "attempts", "preemptions", "victims"}


def test_preemption_basic_shape_is_upstreams():
    w = WORKLOADS["PreemptionBasic"]
    assert (w.nodes, w.init_pods, w.measure_pods) == (5000, 20000, 5000)
    assert w.init_template["spec"]["containers"][0]["resources"]["requests"]["cpu"] == "900m"
    assert w.measure_template["spec"]["containers"][0]["resources"]["requests"]["cpu"] == "3970m"


def test_high_priority_template_keeps_its_raw_priority():
    (pod,) = make_pods(1, "pod", POD_HIGH_PRIORITY)
    assert pod.spec.priority == 9999999 and pod.spec.termination_grace_period_seconds == 0


@pytest.mark.parametrize("keep_traces", [1000, 0])
def test_preemption_basic_smoke(keep_traces):
    r = run_workload("PreemptionBasic", nodes=5, init_pods=20, measure_pods=5, keep_traces=keep_traces)
    assert set(r) == KEYS
    json.dumps(r)
    # four 900m pods fill each 4-CPU node; every 3970m pod preempts all four pods of one node
    assert (r["init_scheduled"], r["pods"], r["scheduled"], r["unschedulable"]) == (20, 5, 5, 0)
    assert (r["attempts"], r["preemptions"], r["victims"]) == (10, 5, 20)


def test_preemption_basic_more_pods_than_nodes():
    r = run_workload("PreemptionBasic", nodes=3, init_pods=12, measure_pods=5)
    # three nodes can host three measured pods; the other two find only higher-or-equal priority pods
    assert (r["scheduled"], r["unschedulable"], r["preemptions"], r["victims"]) == (3, 2, 3, 12)
    assert r["attempts"] == 3 * 2 + 2


def test_existing_workloads_keep_their_counts():
    r = run_workload("SchedulingBasic", nodes=20, init_pods=10, measure_pods=30)
    assert set(r) == KEYS
    assert (r["scheduled"], r["attempts"], r["preemptions"], r["victims"]) == (30, 30, 0, 0)
