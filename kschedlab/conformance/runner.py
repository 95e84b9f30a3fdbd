"""Runs conformance cases (the format of ``shared/CASES.md``): upstream unit-test
rows written as plain Kubernetes objects, checked against kschedlab.

Each stage family has its module with a ``STAGES`` table of ``stage(case, diffs)``
functions (the input keys of a family's stages are listed in its module's docstring; e.g.
:mod:`.admission` for the LimitRanger admission plugin). This runner dispatches a case to its stage, gathers the diffs and sets them
against the expected failures (:mod:`.expected_failures`).

Stages beyond ``shared/CASES.md`` (inputs in their modules' docstrings):

* ``taint-eviction`` (:mod:`.taint_eviction`): the NoExecute taint manager fed pod and node
  events (``existingPods``, ``taintedNodes``, ``steps [{op: podUpdated|nodeUpdated|handleNodeUpdate,
  advance}]``) on a clock; ``expected.steps[i]``: ``deleted``, ``patched``, ``queued``,
  ``taintedNodes``; or one ``helper`` (``getMinTolerationTime``, ``getNoExecuteTaints``,
  ``emitPodDeletionEvent``, ``emitCancelPodDeletionEvent``, ``TimedWorkerQueue``);
* ``api-eviction`` (:mod:`.api_eviction`): one Eviction request (``existingPods``, ``pdbs``,
  ``eviction``, ``urlName``, ``requestDryRun``); ``expected.other``: ``error`` (upstream's
  ``errToString``), ``deleteCount``, ``podDeleted``, ``podTerminating``, ``pdbs``;
* ``eviction-manager`` and ``kubelet-oom-score-adj`` (:mod:`.kubelet_manager`, through
  :mod:`.kubelet`): the kubelet eviction manager's step scripts and the ``oom_score_adj`` table.

A case fails when a diff is found, when its stage or plugin is unknown, when the stage
crashes (the cause is the diff) or when it is listed as an expected failure but passes.

>>> report = run_cases([{"id": "x", "stage": "helper:BuildBrokenLinearFunction",
...     "other": {"points": [[0, 0], [100, 10]]},
...     "expected": {"other": {"assertions": [{"p": 50, "expected": 5}]}}}])
>>> report.passed, report.failed
(1, 0)
>>> run_case({"id": "y", "stage": "filter", "plugin": "NoSuchPlugin"}).diffs
["plugin 'NoSuchPlugin' is not known to kschedlab"]

``plugin: scheduler`` and ``plugin: helper`` mark rows of a scheduler function or a helper:
they go to their stage. The scheduler's own stages, beyond ``shared/CASES.md``, are in
:mod:`.schedule_one` (``schedule-pod``, ``schedule-one``, ``prioritize-nodes``,
``num-feasible-nodes``, ``nodes-for-status-code``, ``fit-error``; inputs in its docstring); :mod:`.queue` adds ``queue-sort`` ops
and inputs (``queueingHints``, ``queuePreEnqueue``, ``isPodWorthRequeuing``, ``observe``, ``activate``).

>>> run_case({"id": "z", "stage": "helper:MatchingSchedulingGroup", "plugin": "helper",
...     "pod": {"metadata": {"name": "a"}}, "pod2": {"metadata": {"name": "b"}},
...     "expected": {"other": {"result": False}}}).ok
True
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from pydantic import ValidationError

from kschedlab.api.errors import errors_from_validation
from kschedlab.conformance import (
    admission,
    api_eviction,
    device_taint_eviction,
    dra,
    kubelet,
    node_declared_features,
    placement,
    plugins,
    pod_resources,
    podgroup,
    podgroup_cycle,
    preemption,
    queue,
    taint_eviction,
)
from kschedlab.conformance import expected_failures as xf
from kschedlab.conformance import schedule_one as scheduler_stages
from kschedlab.conformance.compare import Mismatch

__all__ = ["STAGES", "CaseResult", "Report", "case_files", "run_case", "run_cases", "run_paths"]

UNEXPECTED_PASS = "unexpectedly passed: remove it from the list"
#: ``plugin`` values naming no plugin: the row tests a scheduler function or a helper
NOT_PLUGINS = ("scheduler", "helper")


@dataclass
class CaseResult:
    """One case's outcome: its id, whether it ran clean, the diffs, the file it came from and,
    when the case is listed as an expected failure, the listed reason."""

    id: str
    ok: bool
    diffs: list[str] = field(default_factory=list)
    file: str = ""
    expected_failure: str | None = None

    @property
    def outcome(self) -> str:
        """``passed``, ``failed``, ``expected failure`` or ``unexpectedly passed``."""
        if self.expected_failure is None:
            return "passed" if self.ok else "failed"
        return "unexpectedly passed" if self.ok else "expected failure"

    @property
    def counts_as_failed(self) -> bool:
        return self.outcome in ("failed", "unexpectedly passed")


@dataclass
class Report:
    """The outcome of a run over many cases.

    >>> r = Report([CaseResult("a", True), CaseResult("b", False, ["x"], expected_failure="why"),
    ...             CaseResult("c", True, expected_failure="why")])
    >>> r.summary()
    '1 passed, 1 failed, 1 expected failures'
    """

    results: list[CaseResult]

    @property
    def passed(self) -> int:
        return sum(r.outcome == "passed" for r in self.results)

    @property
    def failed(self) -> int:
        return sum(r.counts_as_failed for r in self.results)

    @property
    def expected_failures(self) -> int:
        return sum(r.outcome == "expected failure" for r in self.results)

    def summary(self) -> str:
        """The closing line: ``N passed, N failed, K expected failures`` (the first two fields
        keep the ``N passed, N failed`` form CI reads)."""
        return f"{self.passed} passed, {self.failed} failed, {self.expected_failures} expected failures"

    def to_dict(self) -> dict:
        def entry(r: CaseResult) -> dict:
            out = {"id": r.id, "file": r.file, "diffs": r.diffs}
            if r.expected_failure is not None:
                out["reason"] = r.expected_failure
            return out

        return {"summary": self.summary(),
                "passed": self.passed, "failed": self.failed, "expectedFailures": self.expected_failures,
                "failures": [dict(entry(r), unexpectedlyPassed=r.outcome == "unexpectedly passed")
                             for r in self.results if r.counts_as_failed],
                "expectedFailureCases": [entry(r) for r in self.results if r.outcome == "expected failure"]}


#: stage name -> stage function(case, diffs)
STAGES: dict[str, Callable] = {**admission.STAGES, **plugins.STAGES, **queue.STAGES, **preemption.STAGES, **podgroup.STAGES,
                               **placement.STAGES, **kubelet.STAGES, **dra.STAGES, **pod_resources.STAGES, **scheduler_stages.STAGES,
                               **node_declared_features.STAGES,
                               **device_taint_eviction.STAGES, **podgroup_cycle.STAGES,
                               **taint_eviction.STAGES, **api_eviction.STAGES}


def _known_plugins() -> set[str]:
    from kschedlab.plugins import in_tree_registry

    return set(in_tree_registry())


def run_case(case: dict) -> CaseResult:
    """Run one case; a crash is a failure of that case, reported with its cause."""
    if not isinstance(case, dict):
        return CaseResult("?", False, [f"a case must be a JSON object, got {type(case).__name__}"])
    cid = case.get("id") or "?"
    diffs: list[str] = []
    if not case.get("id"):
        diffs.append("case has no 'id'")
    name = case.get("stage")
    stage = STAGES.get(name)
    if stage is None:
        return CaseResult(cid, False, diffs + [f"stage {name!r} is not supported by kschedlab"])
    if "plugin" in case and case["plugin"] not in NOT_PLUGINS and case["plugin"] not in _known_plugins():
        return CaseResult(cid, False, diffs + [f"plugin {case['plugin']!r} is not known to kschedlab"])
    try:
        stage(case, diffs)
    except Mismatch as err:
        diffs.append(str(err))
    except KeyError as err:
        diffs.append(f"KeyError: {err} (a key the stage reads is missing from the case)")
    except ValidationError as err:  # an object of the case does not fit its API type
        diffs.extend(f"invalid object: {e}" for e in errors_from_validation(err, file=None, obj=err.title))
    except Exception as err:  # a crash is a failure of that case, reported with its cause
        diffs.append(f"{type(err).__name__}: {err}")
    return CaseResult(cid, not diffs, diffs)


def run_cases(cases: list[dict], file: str = "", expected: dict[str, str] | None = None) -> Report:
    """Run ``cases`` (from ``file``), marking those of ``expected`` (``{id: reason}``)."""
    results = []
    for case in cases:
        r = run_case(case)
        r.file = file
        if expected and r.id in expected:
            r.expected_failure = expected[r.id]
            if r.ok:
                r.diffs.append(UNEXPECTED_PASS)
        results.append(r)
    return Report(results)


def case_files(paths) -> list[Path]:
    """The ``*.json`` case files of ``paths`` (directories searched recursively, sorted)."""
    files: list[Path] = []
    for p in map(Path, paths):
        files.extend(sorted(p.rglob("*.json")) if p.is_dir() else [p])
    return files


def _read(f: Path) -> tuple[list | None, str | None]:
    """The cases of one file, or why it cannot be read."""
    try:
        data = json.loads(f.read_text())
    except OSError as err:
        return None, f"cannot read: {err.strerror or err}"
    except json.JSONDecodeError as err:
        return None, f"invalid JSON: line {err.lineno} column {err.colno}: {err.msg}"
    if not isinstance(data, list):
        return None, f"a case file must be a JSON list of cases, got {type(data).__name__}"
    return data, None


def run_paths(paths, expected: dict[str, str] | None = None) -> Report:
    """Run every case file under ``paths``. ``expected`` (``{id: reason}``) defaults to the
    ``EXPECTED-FAILURES.yaml`` nearest each path (in its directory or above).

    A file that cannot be read counts as one failed case named after the file; a case id
    seen twice fails the second time.
    """
    if expected is None:
        expected = xf.load_all(xf.find(paths))
    results: list[CaseResult] = []
    seen: dict[str, str] = {}
    for f in case_files(paths):
        cases, error = _read(f)
        if error:
            results.append(CaseResult(str(f), False, [error], str(f)))
            continue
        for r in run_cases(cases, str(f), expected).results:
            if r.id != "?" and r.id in seen:
                r.ok, r.expected_failure = False, None
                r.diffs.append(f"duplicate id: also in {seen[r.id]}")
            seen.setdefault(r.id, str(f))
            results.append(r)
    return Report(results)
