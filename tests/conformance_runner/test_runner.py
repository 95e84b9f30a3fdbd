"""The conformance runner as a user meets it: ``kschedlab conformance`` over directories and
files, expected failures, unknown stages and plugins, broken files and cases."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from kschedlab.api.errors import ManifestError
from kschedlab.cli import main
from kschedlab.conformance import STAGES, expected_failures, run_case, run_paths

ROOT = Path(__file__).parents[1] / "conformance"
SUMMARY = re.compile(r"^(\d+) passed, (\d+) failed, (\d+) expected failures$")

PASSING = {"id": "t/pass", "stage": "helper:BuildBrokenLinearFunction",
           "other": {"points": [[0, 0], [100, 10]]}, "expected": {"other": {"assertions": [{"p": 50, "expected": 5}]}}}
FAILING = {"id": "t/fail", "stage": "helper:BuildBrokenLinearFunction",
           "other": {"points": [[0, 0], [100, 10]]}, "expected": {"other": {"assertions": [{"p": 50, "expected": 6}]}}}


def _write(tmp_path: Path, cases, listed: dict | None = None) -> Path:
    d = tmp_path / "cases"
    d.mkdir(exist_ok=True)
    (d / "c.json").write_text(json.dumps(cases))
    if listed is not None:
        (d / expected_failures.FILE_NAME).write_text(
            "".join(f"- id: {k}\n  reason: {v}\n" for k, v in listed.items()))
    return d


def _last_line(capsys) -> str:
    return capsys.readouterr().out.splitlines()[-1]


def test_the_shipped_cases_pass_with_their_expected_failures(capsys):
    assert main(["conformance", str(ROOT)]) == 0
    m = SUMMARY.match(_last_line(capsys))
    listed = expected_failures.load(ROOT / expected_failures.FILE_NAME)
    assert m and int(m[2]) == 0 and int(m[3]) == len(listed) and int(m[1]) > 700


def test_every_stage_of_cases_md_is_known_or_pending():
    # every stage of shared/CASES.md
    documented = {"prefilter", "filter", "prescore", "score", "args-validation", "helper:BuildBrokenLinearFunction",
                  "postfilter", "preemption-dryrun", "preemption-select", "preemption-eligible",
                  "preemption-preempt", "queue-sort", "queue-backoff", "gang-preenqueue", "gang-queueing-hint",
                  "placement-feasible", "placement-generate", "placement-score", "placement-normalize",
                  "podgroup-validate", "podgroup-condition-update", "dra-allocate", "eviction-rank",
                  "eviction-threshold-parse", "eviction-threshold-order", "eviction-threshold-met"}
    assert documented <= set(STAGES)


def test_a_single_file_finds_the_expected_failures_above_it(capsys):
    assert main(["conformance", str(ROOT / "noderesources" / "fit_filter.json")]) == 0
    assert _last_line(capsys).endswith(" 0 failed, 1 expected failures")


def test_an_unlisted_failure_fails_the_run(tmp_path, capsys):
    d = _write(tmp_path, [PASSING, FAILING])
    assert main(["conformance", str(d)]) == 1
    out = capsys.readouterr().out
    assert "FAIL t/fail" in out and "f(50): got 5, want 6" in out
    assert out.splitlines()[-1] == "1 passed, 1 failed, 0 expected failures"


def test_a_listed_failure_is_expected(tmp_path, capsys):
    d = _write(tmp_path, [PASSING, FAILING], {"t/fail": "not built yet"})
    assert main(["conformance", str(d)]) == 0
    out = capsys.readouterr().out
    assert "xfail t/fail: not built yet" in out
    assert out.splitlines()[-1] == "1 passed, 0 failed, 1 expected failures"


def test_a_listed_case_that_passes_fails_the_run(tmp_path, capsys):
    d = _write(tmp_path, [PASSING], {"t/pass": "was broken"})
    assert main(["conformance", str(d)]) == 1
    out = capsys.readouterr().out
    assert "XPASS t/pass" in out and "unexpectedly passed: remove it from the list" in out
    assert out.splitlines()[-1] == "0 passed, 1 failed, 0 expected failures"


def test_json_output(tmp_path, capsys):
    d = _write(tmp_path, [PASSING, FAILING, dict(PASSING, id="t/xpass")], {"t/fail": "gap", "t/xpass": "gap"})
    assert main(["conformance", str(d), "-o", "json"]) == 1
    out = capsys.readouterr().out
    data = json.loads(out[:out.rindex("}") + 1])
    assert (data["passed"], data["failed"], data["expectedFailures"]) == (1, 1, 1)
    assert data["failures"] == [{"id": "t/xpass", "file": str(d / "c.json"), "reason": "gap",
                                 "diffs": ["unexpectedly passed: remove it from the list"], "unexpectedlyPassed": True}]
    assert [c["id"] for c in data["expectedFailureCases"]] == ["t/fail"]
    assert out.splitlines()[-1] == "1 passed, 1 failed, 1 expected failures"


def test_an_explicit_expected_failures_file(tmp_path, capsys):
    d = _write(tmp_path, [FAILING])
    other = tmp_path / "gaps.yaml"
    other.write_text("- id: t/fail\n  reason: elsewhere\n")
    assert main(["conformance", str(d), "--expected-failures", str(other)]) == 0
    assert _last_line(capsys) == "0 passed, 0 failed, 1 expected failures"


@pytest.mark.parametrize("text, message", [
    ("- id: a\n", "entry 0: reason: required: a non-empty string"),
    ("- id: a\n  reason: x\n  why: y\n", 'entry 0: why: unknown field "why"'),
    ("- id: a\n  reason: x\n- id: a\n  reason: y\n", "entry 1: id: duplicate id 'a'"),
    ("id: a\n", "must be a list of {id, reason}"),
    ("- [unclosed\n", "invalid YAML"),
])
def test_a_malformed_expected_failures_file_is_refused(tmp_path, capsys, text, message):
    d = _write(tmp_path, [PASSING])
    (d / expected_failures.FILE_NAME).write_text(text)
    with pytest.raises(ManifestError) as err:
        expected_failures.load(d / expected_failures.FILE_NAME)
    assert message in str(err.value) and expected_failures.FILE_NAME in str(err.value)
    assert main(["conformance", str(d)]) == 2
    assert message in capsys.readouterr().err


def test_unknown_stage_and_plugin_count_as_failed(tmp_path, capsys):
    d = _write(tmp_path, [dict(PASSING, id="t/stage", stage="volume-binding"),
                          {"id": "t/plugin", "stage": "filter", "plugin": "NoSuchPlugin", "expected": {}}])
    assert main(["conformance", str(d)]) == 1
    out = capsys.readouterr().out
    assert "stage 'volume-binding' is not supported by kschedlab" in out
    assert "plugin 'NoSuchPlugin' is not known to kschedlab" in out
    assert out.splitlines()[-1] == "0 passed, 2 failed, 0 expected failures"


def test_a_broken_file_counts_as_a_failed_case(tmp_path, capsys):
    d = _write(tmp_path, [PASSING])
    (d / "broken.json").write_text('[{"id": "x",, }]')
    (d / "object.json").write_text('{"id": "x"}')
    assert main(["conformance", str(d)]) == 1
    out = capsys.readouterr().out
    assert f"FAIL {d / 'broken.json'}" in out and "invalid JSON: line 1 column 13" in out
    assert "a case file must be a JSON list of cases, got dict" in out
    assert out.splitlines()[-1] == "1 passed, 2 failed, 0 expected failures"


def test_a_broken_case_fails_with_its_cause():
    no_expected = {"id": "b/1", "stage": "placement-feasible", "plugin": "GangScheduling",
                   "target": "podgroup/ns/pg", "steps": []}
    assert run_case(no_expected).diffs == ["KeyError: 'codes' (a key the stage reads is missing from the case)"]
    bad_target = dict(no_expected, target="pg", expected={"other": {"codes": []}})
    assert "target: 'pg' is not a group key" in run_case(bad_target).diffs[0]
    bad_pod = {"id": "b/2", "stage": "filter", "plugin": "NodeName", "pod": {"spec": {"nodeName": 3}},
               "expected": {}}
    assert run_case(bad_pod).diffs == ["invalid object: Pod: spec.nodeName: invalid type: expected string, got integer 3"]
    assert run_case(["not", "a", "case"]).diffs == ["a case must be a JSON object, got list"]
    assert run_case({"stage": "helper:BuildBrokenLinearFunction"}).ok is False


def test_duplicate_ids_fail(tmp_path):
    d = _write(tmp_path, [PASSING, PASSING])
    report = run_paths([d])
    assert (report.passed, report.failed) == (1, 1)
    assert report.results[1].diffs == [f"duplicate id: also in {d / 'c.json'}"]


def test_cases_found_beside_the_shipped_list_only(tmp_path, capsys):
    # a copy of a shipped file outside tests/conformance runs without the project's list
    shutil.copy(ROOT / "noderesources" / "fit_filter.json", tmp_path / "fit_filter.json")
    assert main(["conformance", str(tmp_path / "fit_filter.json")]) == 1
    assert _last_line(capsys).endswith(" 1 failed, 0 expected failures")
