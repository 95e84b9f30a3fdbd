"""The ported image GC and container GC cases (tests/conformance/kubelet_gc/*.json), through
the stages of kschedlab.conformance.kubelet_gc and the project runner."""

import copy
import json
from pathlib import Path

import pytest

from kschedlab.conformance.kubelet_gc import run_case

ROOT = Path(__file__).parent.parent / "conformance" / "kubelet_gc"
CASES = [c for f in sorted(ROOT.glob("*.json")) for c in json.loads(f.read_text())]


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_case(case):
    assert run_case(case) == []


def test_every_case_names_its_upstream_row():
    assert len(CASES) == 24
    assert all(c["source"].startswith("kubernetes/kubernetes pkg/kubelet/") and " :: " in c["source"] for c in CASES)


def test_a_wrong_expectation_fails():
    case = copy.deepcopy(next(c for c in CASES if c["id"].endswith("delete-unused-images-removes-all")))
    case["expected"]["other"]["steps"][0]["freed"] = 1024
    assert run_case(case) == ["step 0: freed: got 3072, want 1024"]
    case = copy.deepcopy(next(c for c in CASES if c["stage"] == "kubelet-container-gc"))
    case["expected"]["other"]["remain"] = [0]
    assert run_case(case) == ["remain: got [], want [0]"]


def test_project_runner_knows_the_stages():
    from kschedlab.conformance import run_case as project_run_case

    assert all(project_run_case(c).outcome == "passed" for c in CASES)
