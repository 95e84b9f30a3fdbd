"""Upstream's TestCEL rows (dynamic-resource-allocation/cel/compile_test.go) on kschedlab's CEL
environment: compile errors, match errors (substrings, as upstream checks them) and results.
Rows left out are listed with the reason in SKIPPED-cel_compile.md."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kschedlab.dra.cel import CELError, DeviceView, compile_selector

CASES = json.loads((Path(__file__).parent / "cel_compile.json").read_text())


def test_rows_are_well_formed():
    assert len(CASES) == 36
    assert len({c["id"] for c in CASES}) == len(CASES)
    for c in CASES:
        assert c["stage"] == "dra-cel" and c["source"].startswith("kubernetes/kubernetes ")
        assert len(c["expected"]) == 1 and set(c["expected"]) <= {"match", "compileError", "matchError"}


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_upstream_row(case):
    expected = case["expected"]
    if "compileError" in expected:
        with pytest.raises(CELError) as e:
            compile_selector(case["expression"])
        assert expected["compileError"] in str(e.value)
        return
    selector = compile_selector(case["expression"])
    device = DeviceView(case["driver"], case["attributes"], case["capacity"], case.get("allowMultipleAllocations"))
    if "matchError" in expected:
        with pytest.raises(CELError) as e:
            selector.matches(device)
        assert expected["matchError"] in str(e.value)
    else:
        assert selector.matches(device) is expected["match"]
