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


CASES_MD = Path(__file__).parents[2] / ".." / "shared" / "CASES.md"


def documented_stages(text: str) -> set[str]:
    """The stage names of CASES.md's tables: the backquoted names of each row's first cell
    (a row may name several, before a ``with ...`` qualifier)."""
    stages = set()
    for line in text.splitlines():
        cells = line.split("|")
        if len(cells) > 2 and line.startswith("| `"):
            stages.update(re.findall(r"`([^`]+)`", cells[1].split(" with ")[0]))
    return stages


def test_cases_md_stages_are_read_from_its_tables():
    text = "| stage | what |\n|---|---|\n| `filter` | x |\n| `preenqueue` / `score` with `plugin: X` | y |\n"
    assert documented_stages(text) == {"filter", "preenqueue", "score"}


def test_every_stage_of_cases_md_is_implemented():
    documented = documented_stages(CASES_MD.read_text())
    assert len(documented) > 40 and "podgroup-cycle" in documented
    assert sorted(documented - set(STAGES)) == []


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
    captured = capsys.readouterr()
    data = json.loads(captured.out)  # stdout is the JSON document alone
    assert (data["passed"], data["failed"], data["expectedFailures"]) == (1, 1, 1)
    assert data["failures"] == [{"id": "t/xpass", "file": str(d / "c.json"), "reason": "gap",
                                 "diffs": ["unexpectedly passed: remove it from the list"], "unexpectedlyPassed": True}]
    assert [c["id"] for c in data["expectedFailureCases"]] == ["t/fail"]
    assert data["summary"] == captured.err.splitlines()[-1] == "1 passed, 1 failed, 1 expected failures"


def test_run_pre_filter_false_is_read_from_the_input_other_only(monkeypatch):
    """``runPreFilter: false`` is an input (the case's ``other``): the NodeAffinity rows named
    "... even if PreFilter is not called" run Filter alone, and the key under ``expected.other``
    is refused instead of silently running PreFilter."""
    from kschedlab.plugins.node_affinity import NodeAffinity

    cases = {c["id"]: c for c in json.loads((ROOT / "nodeaffinity" / "node_affinity.json").read_text())}
    rows = [cases["nodeaffinity/node_affinity/nodeselector-without-prefilter"],
            cases["nodeaffinity/node_affinity/affinity-without-prefilter"]]

    def no_pre_filter(*args, **kwargs):
        raise AssertionError("PreFilter called")

    monkeypatch.setattr(NodeAffinity, "pre_filter", no_pre_filter)
    for case in rows:
        assert case["other"] == {"runPreFilter": False}
        assert run_case(case).ok, run_case(case).diffs
        misplaced = dict(case, other={}, expected=dict(case["expected"], other={"runPreFilter": False}))
        assert run_case(misplaced).diffs == [
            "expected.other.runPreFilter: an input, read from the case's top-level 'other'"]


def test_an_explicit_expected_failures_file(tmp_path, capsys):
    d = _write(tmp_path, [FAILING])
    other = tmp_path / "gaps.yaml"
    other.write_text("- id: t/fail\n  reason: elsewhere\n")
    assert main(["conformance", str(d), "--expected-failures", str(other)]) == 0
    assert _last_line(capsys) == "0 passed, 0 failed, 1 expected failures"


@pytest.mark.parametrize("text, message", [
    ("- id: a\n", "entry 0: reason: required: a non-empty string"),
    ("- id: a\n  reason: x\n  why: y\n", 'entry 0: why: unknown field "why"'),
    ("- id: a\n  reason: x\n- id: a\n  reason: z\n", "entry 1: id: duplicate id 'a'"),
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


@pytest.mark.parametrize("plugin", ["scheduler", "helper"])
def test_scheduler_and_helper_rows_reach_their_stage(plugin):
    pods = {"pod": {"metadata": {"name": "a", "namespace": "t"}, "spec": {"schedulingGroup": {"podGroupName": "g"}}},
            "pod2": {"metadata": {"name": "b", "namespace": "t"}, "spec": {"schedulingGroup": {"podGroupName": "g"}}}}
    case = {"id": "t/x", "stage": "helper:MatchingSchedulingGroup", "plugin": plugin, **pods}
    assert run_case(dict(case, expected={"other": {"result": True}})).ok
    assert run_case(dict(case, expected={"other": {"result": False}})).diffs == ["result: got true, want false"]
