"""The comparison rules of shared/CASES.md ("How expected objects compare"), one test each."""

from __future__ import annotations

import pytest

from kschedlab.conformance import run_case
from kschedlab.conformance.compare import Mismatch, check, check_status, equal, pod_group_model, status_matches
from kschedlab.framework.status import Code, Status


# -- a field's zero value equals its absence ---------------------------------------------------------
@pytest.mark.parametrize("got, want", [
    ({"requested": 2, "unresolvable": False}, {"requested": 2}),
    ({"requested": 2}, {"requested": 2, "unresolvable": False}),
    ({"type": "PodGroupScheduled"}, {"type": "PodGroupScheduled", "observedGeneration": 0}),
    ({"a": {"b": [], "c": {}, "d": None, "e": ""}}, {"a": {}}),
    ([{"x": 1, "y": 0}], [{"x": 1}]),
    (None, []),
])
def test_zero_value_equals_absence(got, want):
    assert equal(got, want)
    diffs = []
    check(diffs, "obj", got, want)
    assert diffs == []


@pytest.mark.parametrize("got, want", [
    ({"requested": 2, "unresolvable": True}, {"requested": 2}),
    ({"requested": 2}, {"requested": 3}),
    ({"observedGeneration": 1}, {"observedGeneration": 0}),
    (True, 1),
    ([1, 2], [2, 1]),
    ([1], [1, 0]),
])
def test_non_zero_differences_still_count(got, want):
    assert not equal(got, want)
    diffs = []
    check(diffs, "obj", got, want)
    assert len(diffs) == 1 and diffs[0].startswith("obj: got ")


# -- a status without reasons asserts its code only ---------------------------------------------------
def test_status_without_reasons_asserts_code_only():
    got = Status(Code.Unschedulable, ("node(s) had untolerated taint {a: b}",))
    diffs = []
    check_status(diffs, "filter[n1]", got, {"code": "Unschedulable"})
    assert diffs == []
    check_status(diffs, "filter[n1]", got, {"code": "UnschedulableAndUnresolvable"})
    assert len(diffs) == 1


def test_empty_reasons_assert_none():
    diffs = []
    check_status(diffs, "s", Status(Code.Unschedulable, ("why",)), {"code": "Unschedulable", "reasons": []})
    assert len(diffs) == 1
    clean: list[str] = []
    check_status(clean, "s", Status(Code.Unschedulable), {"code": "Unschedulable", "reasons": []})
    assert clean == []


def test_reasons_compare_exactly_and_in_order():
    got = {"code": "Unschedulable", "reasons": ["a", "b"]}
    assert status_matches(got, {"code": "Unschedulable", "reasons": ["a", "b"]})
    assert not status_matches(got, {"code": "Unschedulable", "reasons": ["b", "a"]})
    assert not status_matches(got, {"code": "Unschedulable", "reasons": ["a"]})


def test_absent_code_is_success():
    assert status_matches({"code": "Success", "reasons": []}, {})
    assert not status_matches({"code": "Error", "reasons": []}, {})


# -- non-Success -----------------------------------------------------------------------------------
@pytest.mark.parametrize("code", ["Error", "Unschedulable", "UnschedulableAndUnresolvable", "Wait", "Skip"])
def test_non_success_matches_every_other_code(code):
    assert status_matches({"code": code, "reasons": []}, {"code": "non-Success"})


def test_non_success_does_not_match_success():
    assert not status_matches({"code": "Success", "reasons": []}, {"code": "non-Success"})


def test_non_success_in_a_filter_case():
    case = {"id": "t", "stage": "filter", "plugin": "NodeUnschedulable",
            "nodes": [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
                       "spec": {"unschedulable": True}}],
            "pod": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {}},
            "expected": {"filter": {"n1": {"code": "non-Success"}}}}
    assert run_case(case).ok
    case["expected"]["filter"]["n1"] = {"code": "Success"}
    assert not run_case(case).ok


# -- podGroups hold PodGroups and CompositePodGroups side by side -------------------------------------
PG = {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup", "metadata": {"name": "pg", "namespace": "ns"},
      "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}, "parentCompositePodGroupName": "root"}}
CPG = {"apiVersion": "scheduling.k8s.io/v1alpha3", "kind": "CompositePodGroup",
       "metadata": {"name": "root", "namespace": "ns"}, "spec": {"schedulingPolicy": {"gang": {"minGroupCount": 1}}}}


def test_pod_group_model_by_kind():
    assert pod_group_model(PG).__name__ == "PodGroup"
    assert pod_group_model(CPG).__name__ == "CompositePodGroup"
    with pytest.raises(Mismatch, match=r"podGroups\[1\]: kind 'Pod'"):
        pod_group_model({"apiVersion": "v1", "kind": "Pod"}, "podGroups[1]")


def test_mixed_pod_groups_in_a_case():
    case = {"id": "t", "stage": "placement-feasible", "plugin": "GangScheduling",
            "featureGates": {"GenericWorkload": True, "TopologyAwareWorkloadScheduling": True,
                             "CompositePodGroup": True},
            "target": "compositepodgroup/ns/root", "podGroups": [PG, CPG],
            "steps": [{"scheduled": 0, "remaining": 1}, {"scheduled": 1, "remaining": 0}],
            "expected": {"other": {"codes": ["Wait", "Success"]}}}
    assert run_case(case).diffs == []
    case["target"] = "podgroup/ns/pg"  # minCount 2: one placed pod with one to go is not enough
    assert run_case(case).diffs == [
        "codes[0] (step {'scheduled': 0, 'remaining': 1}): got Unschedulable, want Wait",
        "codes[1] (step {'scheduled': 1, 'remaining': 0}): got Unschedulable, want Success"]


def test_a_non_group_in_pod_groups_fails_the_case():
    case = {"id": "t", "stage": "placement-feasible", "plugin": "GangScheduling", "target": "podgroup/ns/pg",
            "podGroups": [PG, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}],
            "steps": [], "expected": {"other": {"codes": []}}}
    diffs = run_case(case).diffs
    assert diffs == ["podGroups[1]: kind 'ConfigMap' (apiVersion 'v1') is neither a PodGroup nor a CompositePodGroup"]
