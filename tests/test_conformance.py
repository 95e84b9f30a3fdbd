"""Every conformance case under tests/conformance/ runs as one test.

The cases kschedlab knows it does not pass yet are listed, with the reason, in
tests/conformance/EXPECTED-FAILURES.yaml — the same file ``kschedlab conformance`` reads.
They run as strict xfails, so the day a feature lands and they pass, the list must shrink.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kschedlab.conformance import case_files, expected_failures, run_case

ROOT = Path(__file__).parent / "conformance"
EXPECTED = expected_failures.load(ROOT / expected_failures.FILE_NAME)


def _cases():
    for path in case_files([ROOT]):
        for case in json.loads(path.read_text()):
            marks = []
            if case["id"] in EXPECTED:
                marks.append(pytest.mark.xfail(reason=EXPECTED[case["id"]], strict=True))
            yield pytest.param(case, id=case["id"], marks=marks)


@pytest.mark.parametrize("case", list(_cases()))
def test_case(case):
    result = run_case(case)
    assert result.ok, "\n".join(result.diffs)


def test_expected_failures_name_existing_cases():
    ids = {c["id"] for p in case_files([ROOT]) for c in json.loads(p.read_text())}
    assert set(EXPECTED) <= ids, sorted(set(EXPECTED) - ids)


def test_case_ids_are_unique():
    ids = [c["id"] for p in case_files([ROOT]) for c in json.loads(p.read_text())]
    assert len(ids) == len(set(ids))
