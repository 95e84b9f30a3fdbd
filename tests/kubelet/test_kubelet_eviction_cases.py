"""Every ported upstream eviction case (tests/conformance/eviction/*.json) through
kschedlab.conformance.kubelet.run_case, and the runner's own ability to fail."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from kschedlab.conformance.kubelet import STAGES, run_case

ROOT = Path(__file__).parent.parent / "conformance" / "eviction"


def _cases():
    for path in sorted(ROOT.glob("*.json")):
        for case in json.loads(path.read_text()):
            yield pytest.param(case, id=case["id"])


@pytest.mark.parametrize("case", list(_cases()))
def test_case(case):
    assert run_case(case) == []


def test_every_case_has_source_and_a_known_stage():
    cases = [c.values[0] for c in _cases()]
    assert len(cases) >= 80
    assert len({c["id"] for c in cases}) == len(cases)
    for c in cases:
        assert c["source"].startswith(("kubernetes/kubernetes pkg/kubelet/eviction/helpers_test.go@",
                                       "kubernetes/kubernetes pkg/kubelet/eviction/eviction_manager_test.go@"))
        assert c["stage"] in STAGES


def _first(file: str, case_id: str) -> dict:
    return copy.deepcopy(next(c for c in json.loads((ROOT / file).read_text()) if c["id"] == case_id))


def test_a_wrong_order_fails():
    case = _first("rank.json", "eviction/rank/testorderedbymemory")
    case["expected"]["other"]["order"].reverse()
    assert run_case(case) and "order: got" in run_case(case)[0]


def test_a_wrong_min_reclaim_fails():
    case = _first("threshold_parse.json", "eviction/threshold_parse/testparsethresholdconfig-all-memory-eviction-values")
    case["expected"]["other"]["thresholds"][0]["minReclaim"] = {"quantity": "1"}
    assert run_case(case)


def test_a_missing_error_fails():
    case = _first("threshold_parse.json", "eviction/threshold_parse/testparsethresholdconfig-invalid-signal")
    case["expected"]["other"]["error"] = False
    assert run_case(case) == ["error: got 'unsupported eviction signal mem.available', want none"]


def test_unknown_stage_and_helper_are_reported():
    assert run_case({"stage": "eviction-nope"}) == ["stage 'eviction-nope' is not an eviction stage"]
    diffs = run_case({"stage": "eviction-threshold-met", "helper": "nope", "expected": {"other": {}}})
    assert diffs == ["unknown helper 'nope' for stage eviction-threshold-met"]


def test_project_conformance_runner_knows_the_eviction_stages():
    from kschedlab.conformance import run_case as project_run_case

    case = _first("threshold_order.json", "eviction/threshold_order/testsortbyevictionpriority-memory-first")
    assert project_run_case(case).ok
    case["expected"]["other"]["order"] = ["pid.available"]
    assert not project_run_case(case).ok
