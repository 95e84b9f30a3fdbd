"""The ``taint-eviction`` and ``api-eviction`` stages find what differs, and read their inputs as
their module docstrings say (the shipped rows are under tests/conformance/tainteviction and
tests/conformance/apieviction)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from kschedlab.conformance import run_case

ROOT = Path(__file__).parents[1] / "conformance"


def _shipped(path: str, case_id: str) -> dict:
    return copy.deepcopy(next(c for c in json.loads((ROOT / path).read_text()) if c["id"] == case_id))


def test_a_deletion_at_the_wrong_time_is_reported():
    # pod2 tolerates the taint for 1 s: at 0.5 s only pod1 is gone
    case = _shipped("tainteviction/controller.json", "tainteviction/controller/update-node-with-multiple-pods/"
                    "pods-with-different-toleration-times-are-evicted-appropriately")
    assert run_case(case).ok
    case["expected"]["steps"][0]["deleted"] = ["pod1", "pod2"]
    assert run_case(case).diffs == ["step 0: deleted ['pod1'], want ['pod1', 'pod2']"]


def test_actions_are_cleared_after_each_check():
    case = _shipped("tainteviction/controller.json", "tainteviction/controller/update-node-with-multiple-pods/"
                    "pods-with-different-toleration-times-are-evicted-appropriately")
    case["expected"]["steps"][1]["deleted"] = ["pod1", "pod2"]
    assert run_case(case).diffs == ["step 1: deleted ['pod2'], want ['pod1', 'pod2']"]


def test_a_pod_missing_from_the_api_is_neither_patched_nor_deleted():
    case = {"id": "t/missing", "stage": "taint-eviction", "taintedNodes": {"n1": [{"key": "k", "effect": "NoExecute"}]},
            "steps": [{"op": "podUpdated", "oldPod": None,
                       "newPod": {"metadata": {"name": "p", "namespace": "default"}, "spec": {"nodeName": "n1"}}}],
            "expected": {"steps": [{"deleted": [], "patched": [], "queued": [], "taintedNodes": ["n1"]}]}}
    assert run_case(case).ok


def test_queued_deletions_are_compared():
    case = _shipped("tainteviction/controller.json", "tainteviction/controller/update-node-with-multiple-taints")
    case["expected"]["steps"][2]["queued"] = []
    assert run_case(case).diffs == ["step 2: queued ['default/pod1'], want []"]


@pytest.mark.parametrize("bad, diff", [
    ({"helper": "noSuchHelper"}, "helper 'noSuchHelper' is not supported by the taint-eviction stage"),
    ({"steps": [{"op": "nodeRemoved"}]}, "ValueError: unknown op 'nodeRemoved'"),
])
def test_unknown_helpers_and_ops_fail(bad, diff):
    assert run_case({"id": "t/bad", "stage": "taint-eviction", **bad}).diffs == [diff]


def test_min_toleration_time_is_in_nanoseconds():
    case = _shipped("tainteviction/controller.json", "tainteviction/helpers/get-min-toleration-time/2")
    case["expected"]["other"]["minTolerationTime"] = 1
    assert run_case(case).diffs == ["minTolerationTime 1000000000, want 1"]


def test_the_budget_violation_is_reported_with_its_message():
    case = _shipped("apieviction/eviction.json",
                    "apieviction/eviction/matching-pdbs-with-no-disruptions-allowed-pod-running-with-nil-policy")
    assert run_case(case).ok
    case["expected"]["other"] = {"error": "", "podDeleted": True}
    assert run_case(case).diffs == [
        "error: \"Cannot evict pod as it would violate the pod's disruption budget.: TooManyRequests: "
        "The disruption budget foo needs 0 healthy pods and has 0 currently\", want ''",
        "podDeleted: False, want True"]


def test_the_budget_status_after_the_eviction_is_compared():
    case = _shipped("apieviction/eviction.json", "apieviction/pdb-status/pdb-status-is-updated-after-eviction")
    case["expected"]["other"]["pdbs"]["foo"]["conditionReason"] = "SufficientPods"
    assert run_case(case).diffs == ["pdb foo: {'disruptionsAllowed': 0, 'conditionReason': 'InsufficientPods'}, "
                                    "want {'disruptionsAllowed': 0, 'conditionReason': 'SufficientPods'}"]


def test_a_dry_run_deletes_nothing():
    case = _shipped("apieviction/eviction.json", "apieviction/dry-run/with-pdbs")
    case["expected"]["other"].update(deleteCount=0, podDeleted=False, podTerminating=False,
                                     pdbs={"foo": {"disruptionsAllowed": 1, "conditionReason": ""}})
    assert run_case(case).ok


def test_an_unknown_expected_key_fails():
    case = _shipped("apieviction/eviction.json", "apieviction/dry-run/with-pdbs")
    case["expected"]["other"]["evicted"] = True
    assert run_case(case).diffs == ["expected key 'evicted' is not known to the api-eviction stage"]
