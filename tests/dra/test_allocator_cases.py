"""Every row of tests/conformance/dra/allocator.json (upstream's allocator table) as one test.

A row kschedlab cannot pass would be listed in KNOWN_GAPS with the reason and run as a strict
xfail; today there is none.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kschedlab.conformance.dra import run_allocate_case

CASES_FILE = Path(__file__).resolve().parents[1] / "conformance" / "dra" / "allocator.json"
CASES = json.loads(CASES_FILE.read_text())

#: case id -> why it cannot pass (strict xfail)
KNOWN_GAPS: dict[str, str] = {}


def _params():
    for case in CASES:
        marks = []
        if case["id"] in KNOWN_GAPS:
            marks.append(pytest.mark.xfail(reason=KNOWN_GAPS[case["id"]], strict=True))
        yield pytest.param(case, id=case["id"].removeprefix("dra/allocator/"), marks=marks)


def test_cases_cite_upstream_rows():
    assert len(CASES) == 213
    assert len({c["id"] for c in CASES}) == len(CASES)
    for c in CASES:
        assert c["stage"] == "dra-allocate"
        assert c["source"].startswith("kubernetes/kubernetes staging/src/k8s.io/dynamic-resource-allocation/")
        assert c["source"].endswith(":: " + c["id"].removeprefix("dra/allocator/"))


@pytest.mark.parametrize("case", list(_params()))
def test_allocator_case(case):
    assert run_allocate_case(case) == []


def test_builder_reproduces_the_json(tmp_path, monkeypatch):
    """allocator.json is exactly what build_allocator_cases.py writes."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("build_allocator_cases", CASES_FILE.with_name("build_allocator_cases.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    for rows in (mod.rows_basic, mod.rows_all_devices, mod.rows_network_and_constraints, mod.rows_prioritized_list,
                 mod.rows_partitionable, mod.rows_taints, mod.rows_binding, mod.rows_consumable_capacity,
                 mod.rows_distinct, mod.rows_list_attributes, mod.rows_pools, mod.rows_combinations):
        rows()
    assert mod.CASES == CASES


@pytest.mark.parametrize("mutate", ["device", "error", "null"])
def test_runner_reports_wrong_expectations(mutate):
    """The stage finds a wrong device, a missing error and a missing allocation."""
    import copy

    case = copy.deepcopy(next(c for c in CASES if c["id"] == "dra/allocator/simple"))
    if mutate == "device":
        case["expected"]["allocation"][0]["results"][0]["device"] = "device-2"
    elif mutate == "error":
        case["expected"]["error"] = "boom"
    else:
        case["expected"]["allocation"] = None
    assert run_allocate_case(case)
