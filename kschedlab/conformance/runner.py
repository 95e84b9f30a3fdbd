"""Runs conformance cases (the format of ``shared/CASES.md``): upstream unit-test
rows written as plain Kubernetes objects, checked against kschedlab.

Each stage family has its module with a ``STAGES`` table; this runner dispatches a case
to its stage and gathers the diffs.

>>> report = run_cases([{"id": "x", "stage": "helper:BuildBrokenLinearFunction",
...     "other": {"points": [[0, 0], [100, 10]]},
...     "expected": {"other": {"assertions": [{"p": 50, "expected": 5}]}}}])
>>> report.passed, report.failed
(1, 0)
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from kschedlab.conformance import plugins, podgroup, preemption, queue
from kschedlab.conformance.compare import Mismatch
from kschedlab.dra import cases as dra_cases


@dataclass
class CaseResult:
    """One case's outcome: its id, whether it passed, the diffs, the file it came from."""

    id: str
    ok: bool
    diffs: list[str] = field(default_factory=list)
    file: str = ""


@dataclass
class Report:
    """The outcome of a run over many cases."""

    results: list[CaseResult]

    @property
    def passed(self) -> int:
        return sum(r.ok for r in self.results)

    @property
    def failed(self) -> int:
        return len(self.results) - self.passed

    def summary(self) -> str:
        return f"{self.passed} passed, {self.failed} failed"

    def to_dict(self) -> dict:
        return {"passed": self.passed, "failed": self.failed,
                "failures": [{"id": r.id, "file": r.file, "diffs": r.diffs} for r in self.results if not r.ok]}


#: stage name -> stage function(case, diffs)
STAGES: dict[str, Callable] = {**plugins.STAGES, **queue.STAGES, **preemption.STAGES, **podgroup.STAGES,
                               **dra_cases.STAGES}


def run_case(case: dict) -> CaseResult:
    diffs: list[str] = []
    stage = STAGES.get(case.get("stage"))
    if stage is None:
        return CaseResult(case.get("id", "?"), False, [f"stage {case.get('stage')!r} is not supported by kschedlab"])
    try:
        stage(case, diffs)
    except Mismatch as err:
        diffs.append(str(err))
    except Exception as err:  # a crash is a failure of that case, reported with its cause
        diffs.append(f"{type(err).__name__}: {err}")
    return CaseResult(case.get("id", "?"), not diffs, diffs)


def run_cases(cases: list[dict], file: str = "") -> Report:
    results = []
    for case in cases:
        r = run_case(case)
        r.file = file
        results.append(r)
    return Report(results)


def case_files(paths) -> list[Path]:
    files: list[Path] = []
    for p in map(Path, paths):
        files.extend(sorted(p.rglob("*.json")) if p.is_dir() else [p])
    return files


def run_paths(paths) -> Report:
    results: list[CaseResult] = []
    for f in case_files(paths):
        results.extend(run_cases(json.loads(f.read_text()), str(f)).results)
    return Report(results)
