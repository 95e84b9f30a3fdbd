"""The ``eviction-manager`` and ``kubelet-oom-score-adj`` stages find what differs, and read
their inputs as :mod:`kschedlab.conformance.kubelet_manager` says (the shipped rows are
tests/conformance/eviction/manager.json and tests/conformance/kubelet/oom_score_adj.json)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from kschedlab.conformance import run_case

ROOT = Path(__file__).parents[1] / "conformance"


def _shipped(path: str, case_id: str) -> dict:
    return copy.deepcopy(next(c for c in json.loads((ROOT / path).read_text()) if c["id"] == case_id))


def _memory() -> dict:
    return _shipped("eviction/manager.json", "eviction/manager/testmemorypressure")


def test_the_wrong_victim_and_grace_period_are_reported():
    case = _memory()
    assert run_case(case).ok
    case["expected"]["steps"][2].update(evicted="best-effort-high-priority-high-usage", gracePeriodSeconds=1)
    assert run_case(case).diffs == [
        "step 2 evicted: got best-effort-low-priority-low-usage, want best-effort-high-priority-high-usage",
        "step 2 gracePeriodSeconds: got 5, want 1"]


def test_the_clock_decides_the_soft_eviction():
    # without the 3 minutes the soft threshold's 2 minute grace period has not passed
    case = _memory()
    case["steps"][2]["advance"] = "30s"
    diffs = run_case(case).diffs
    assert "step 2 evicted: got None, want best-effort-low-priority-low-usage" in diffs


def test_admission_verdicts_are_compared_in_order():
    case = _memory()
    case["expected"]["steps"][4]["admit"] = [True, True]
    assert run_case(case).diffs == ["step 4 admit ['best-admit', 'burst-admit']: got [False, True], want [True, True]"]


def test_the_summary_is_kept_until_a_step_replaces_it():
    case = _shipped("eviction/manager.json", "eviction/manager/testpidpressure-eviction-due-to-pid-pressure")
    assert "summary" not in case["steps"][2]
    assert run_case(case).ok
    case["steps"][2]["summary"] = case["steps"][0]["summary"]  # no pressure: nobody goes (the condition stays)
    assert run_case(case).diffs == ["step 2 evicted: got None, want low-priority-high-usage",
                                    "step 2 gracePeriodSeconds: got None, want 5"]


def test_gc_calls_and_the_summary_after_gc_are_used():
    case = _shipped("eviction/manager.json",
                    "eviction/manager/testnodereclaimfuncs-eviction-due-to-disk-pressure-no-image-fs")
    assert run_case(case).ok
    del case["steps"][1]["summaryAfterGC"]  # the GC frees nothing: a pod goes
    assert run_case(case).diffs == ["step 1 evicted: got low-priority-high-usage, want None"]
    case["expected"]["steps"][1].update(evicted=True, imageGC=False)
    assert run_case(case).diffs == ["step 1 imageGC: got True, want False"]


def test_the_evicted_status_message_is_compared():
    case = _shipped("eviction/manager.json", "eviction/manager/testmemorypressure-verifypodstatus")
    case["expected"]["steps"][0]["status"]["message"] = "x"
    [diff] = run_case(case).diffs
    assert diff.startswith("step 0 status: got {'phase': 'Failed', 'reason': 'Evicted', 'message': "
                           "'The node was low on resource: memory. Threshold quantity: 2Gi, available: 1500Mi. '")


def test_a_critical_victim_is_reported():
    case = _shipped("eviction/manager.json", "eviction/manager/teststaticcriticalpodsarenotevicted")
    for p in (case["pods"][0], case["steps"][3]["pods"][0]):
        del p["metadata"]["annotations"]
    case["pods"][0]["spec"]["priority"] = 0
    assert "step 1 evicted critical, which must not be evicted" in run_case(case).diffs


def test_oom_score_adj_bounds_and_container_names():
    case = _shipped("kubelet/oom_score_adj.json", "kubelet/oom-score-adj/burstable-mixed-unique-main-container-pod")
    assert run_case(case).ok
    case["expected"]["other"]["oomScoreAdj"]["main-1"] = [900, 999]
    case["expected"]["other"]["oomScoreAdj"]["ghost"] = [0, 0]
    assert run_case(case).diffs == ["containers: got ['init-container', 'main-1'], "
                                    "want ['ghost', 'init-container', 'main-1']",
                                    "oom_score_adj main-1: got 875, want between 900 and 999"]


def test_pod_level_requests_count_only_with_the_gate():
    case = _shipped("kubelet/oom_score_adj.json", "kubelet/oom-score-adj/burstable-pod-resources-no-container-resources")
    case["podLevelResources"] = False
    assert run_case(case).diffs == ["oom_score_adj no-request-limit-1: got 999, want between 750 and 750",
                                    "oom_score_adj no-request-limit-2: got 999, want between 750 and 750"]


def test_local_storage_evictions_are_all_listed_without_a_disruption_condition():
    case = _shipped("eviction/manager.json",
                    "eviction/manager/teststoragelimitevictions-eviction-due-to-local-volume-above-limit")
    assert case["localStorageCapacityIsolation"] and run_case(case).ok
    message = 'Usage of EmptyDir volume "emptyDirVolume" exceeds the limit "1Gi". '
    case["expected"]["steps"][0].update(evictedPods=["localvolume-above-limits"],
                                        status={"phase": "Failed", "reason": "Evicted", "message": message})
    assert run_case(case).ok
    case["localStorageCapacityIsolation"] = False  # the nodefs threshold evicts it instead, with its condition
    [diff] = run_case(case).diffs
    assert diff.startswith("step 0 status: got {'phase': 'Failed', 'reason': 'Evicted', 'message': "
                           "'The node was low on resource: ephemeral-storage.")
