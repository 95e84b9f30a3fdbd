"""Runs conformance cases (the format of ``shared/CASES.md``): upstream unit-test
rows written as plain Kubernetes objects, checked against kschedlab.

>>> report = run_cases([{"id": "x", "stage": "helper:BuildBrokenLinearFunction",
...     "other": {"points": [[0, 0], [100, 10]]},
...     "expected": {"other": {"assertions": [{"p": 50, "expected": 5}]}}}])
>>> report.passed, report.failed
(1, 0)
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Callable

import numpy as np

from kschedlab.features import FeatureGates
from kschedlab.framework.interface import ArgsError, CycleState
from kschedlab.framework.runtime import Handle


@dataclass
class CaseResult:
    id: str
    ok: bool
    diffs: list[str] = field(default_factory=list)
    file: str = ""


@dataclass
class Report:
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


class _Mismatch(Exception):
    pass


def _check(diffs: list[str], what: str, got: Any, want: Any) -> None:
    if got != want:
        diffs.append(f"{what}: got {json.dumps(got, default=str)}, want {json.dumps(want, default=str)}")


def _status_dict(status) -> dict:
    return {"code": status.code.name, "reasons": list(status.reasons)}


# -- fixtures ----------------------------------------------------------------------------
def _fixtures(case: dict):
    from kschedlab.api.core import Namespace, Node, Pod
    from kschedlab.cluster import Cluster

    cluster = Cluster()
    for node in case.get("nodes") or []:
        cluster.add(Node.model_validate(node))
    for pod in case.get("existingPods") or []:
        cluster.add(Pod.model_validate(pod))
    for ns in case.get("namespaces") or []:
        cluster.add(Namespace.model_validate(ns))
    pod_info = None
    if case.get("pod") is not None:
        from kschedlab.framework.types import PodInfo

        pod_info = PodInfo.of(Pod.model_validate(case["pod"]))
    return cluster, pod_info


def _plugin(case: dict, cluster):
    from kschedlab.plugins import in_tree_registry

    registry = in_tree_registry()
    name = case.get("plugin")
    if name not in registry:
        raise _Mismatch(f"unknown plugin {name!r}")
    gates = FeatureGates(case.get("featureGates") or {}, emulate_older=True)
    handle = Handle(gates, None, cluster)
    return registry[name].build(case.get("args") or {}, handle)


def _rows(cluster, names: list[str]) -> np.ndarray:
    return np.asarray([cluster.snapshot.index[n] for n in names], np.int64)


# -- stages --------------------------------------------------------------------------------
def _stage_prefilter(case, diffs):
    cluster, pod_info = _fixtures(case)
    plugin = _plugin(case, cluster)
    expected = case["expected"]
    result, status = plugin.pre_filter(CycleState(), pod_info, cluster.snapshot)
    from kschedlab.framework.status import Status

    status = status or Status()
    if "prefilter" in expected:
        _check(diffs, "prefilter", _status_dict(status), _norm_status(expected["prefilter"]))
    other = expected.get("other") or {}
    if "preFilterResultNodeNames" in other:
        got = None if result is None or result.all_nodes() else sorted(result.node_names)
        want = other["preFilterResultNodeNames"]
        _check(diffs, "preFilterResultNodeNames", got, None if want is None else sorted(want))
    return cluster, pod_info, plugin


def _norm_status(s: dict) -> dict:
    return {"code": s.get("code", "Success"), "reasons": list(s.get("reasons") or [])}


def _stage_filter(case, diffs):
    cluster, pod_info = _fixtures(case)
    plugin = _plugin(case, cluster)
    expected = case["expected"]
    other_in = case.get("other") or {}
    state = CycleState()
    if hasattr(plugin, "pre_filter") and other_in.get("runPreFilter", True) is not False:
        from kschedlab.framework.status import Status

        result, status = plugin.pre_filter(state, pod_info, cluster.snapshot)
        status = status or Status()
        if "prefilter" in expected:
            _check(diffs, "prefilter", _status_dict(status), _norm_status(expected["prefilter"]))
        other = expected.get("other") or {}
        if "preFilterResultNodeNames" in other:
            got = None if result is None or result.all_nodes() else sorted(result.node_names)
            want = other["preFilterResultNodeNames"]
            _check(diffs, "preFilterResultNodeNames", got, None if want is None else sorted(want))
        if status.is_skip() and not expected.get("filter"):
            return
    from kschedlab.framework.runtime import _filter

    names = list((expected.get("filter") or {}).keys()) or [n["metadata"]["name"] for n in case.get("nodes") or []]
    rows = _rows(cluster, names)
    verdicts = _filter(plugin, state, pod_info, cluster.snapshot, rows)
    for i, name in enumerate(names):
        if name in (expected.get("filter") or {}):
            _check(diffs, f"filter[{name}]", _status_dict(verdicts.status(i)),
                   _norm_status(expected["filter"][name]))
    want_ir = (expected.get("other") or {}).get("insufficientResources")
    if want_ir is not None:
        got_ir = _insufficient_resources(plugin, pod_info, cluster, rows)
        _check(diffs, "insufficientResources", got_ir, want_ir)


def _insufficient_resources(plugin, pod_info, cluster, rows) -> Any:
    if not hasattr(plugin, "insufficient_resources"):
        raise _Mismatch(f"plugin {plugin.name} does not report insufficient resources")
    return plugin.insufficient_resources(pod_info, cluster.snapshot, int(rows[0]))


def _stage_prescore(case, diffs):
    cluster, pod_info = _fixtures(case)
    plugin = _plugin(case, cluster)
    names = [n["metadata"]["name"] for n in case.get("nodes") or []]
    status = plugin.pre_score(CycleState(), pod_info, cluster.snapshot, _rows(cluster, names))
    want = (case["expected"].get("other") or {}).get("prescore") or case["expected"].get("prescore")
    _check(diffs, "prescore.code", status.code.name, want["code"])


def _stage_score(case, diffs):
    from kschedlab.framework.runtime import FrameworkError, _score

    cluster, pod_info = _fixtures(case)
    plugin = _plugin(case, cluster)
    expected = case["expected"]
    other = expected.get("other") or {}
    names = other.get("filteredNodes") or [n["metadata"]["name"] for n in case.get("nodes") or []]
    rows = _rows(cluster, names)
    state = CycleState()
    if hasattr(plugin, "pre_score") and other.get("runPreScore", True) is not False:
        try:
            status = plugin.pre_score(state, pod_info, cluster.snapshot, rows)
        except (ValueError, FrameworkError) as err:
            from kschedlab.framework.status import Status

            status = Status.error(str(err))
        if "preScore" in other:
            want = other["preScore"]
            _check(diffs, "preScore.code", status.code.name, want["code"])
            if want.get("messageContains") and want["messageContains"] not in status.message():
                diffs.append(f"preScore message {status.message()!r} lacks {want['messageContains']!r}")
            if not status.is_success():
                return
        if status.is_skip() and "scores" not in expected:
            return
    want_status = other.get("scoreStatus")
    try:
        scores = _score(plugin, state, pod_info, cluster.snapshot, rows)
    except (ValueError, FrameworkError) as err:
        if want_status is None:
            raise
        _check(diffs, "scoreStatus.code", "Error", want_status["code"])
        if want_status.get("messageContains", "") not in str(err):
            diffs.append(f"score error {str(err)!r} lacks {want_status['messageContains']!r}")
        scores = np.zeros(len(rows), np.int64)
    else:
        if want_status is not None and want_status.get("code", "Success") != "Success":
            diffs.append(f"score: expected status {want_status['code']}, got Success")
    if expected.get("scoreStage") == "normalized" and hasattr(plugin, "normalize_score"):
        plugin.normalize_score(state, pod_info, scores)
    got = {name: int(scores[i]) for i, name in enumerate(names)}
    want = expected.get("scores") or {}
    _check(diffs, "scores", {k: got.get(k) for k in want}, want)


def _stage_args(case, diffs):
    from kschedlab.plugins import in_tree_registry

    cls = in_tree_registry().get(case.get("plugin"))
    if cls is None:
        raise _Mismatch(f"unknown plugin {case.get('plugin')!r}")
    try:
        cls.parse_args(case.get("args") or {})
        got: list = []
    except ArgsError as err:
        got = [{"type": e.type, "field": e.field} for e in err.errors]
    want = case["expected"]["other"]["argsError"]
    key = lambda e: (e["field"], e["type"])  # noqa: E731
    _check(diffs, "argsError", sorted(got, key=key), sorted(want, key=key))


def _stage_broken_linear(case, diffs):
    from kschedlab.plugins.helper import FunctionShapePoint, build_broken_linear_function

    points = case.get("other", {}).get("points") or case["expected"].get("other", {}).get("points")
    fn = build_broken_linear_function([FunctionShapePoint(int(u), int(s)) for u, s in
                                       (p if isinstance(p, (list, tuple)) else (p["utilization"], p["score"])
                                        for p in points)])
    for a in case["expected"]["other"]["assertions"]:
        _check(diffs, f"f({a['p']})", int(fn(a["p"])), a["expected"])


def _timestamp(value) -> float:
    if isinstance(value, (int, float)):
        return float(value)
    text = str(value).replace("Z", "+00:00")
    return datetime.fromisoformat(text).timestamp() if not text.startswith("0001-") else float("-inf")


def _stage_queue_sort(case, diffs):
    from kschedlab.api.core import Pod
    from kschedlab.framework.types import PodInfo
    from kschedlab.scheduler import QueuedPodInfo

    cluster, _ = _fixtures({**case, "pod": None})
    plugin = _plugin(case, cluster)
    queued = [QueuedPodInfo(PodInfo.of(Pod.model_validate(q["pod"])), _timestamp(q["timestamp"]))
              for q in case.get("queuedPods") or []]
    want = case["expected"]["other"]
    if "less" in want:
        _check(diffs, "less", plugin.less(queued[0], queued[1]), want["less"])
    if "popOrder" in want:
        from functools import cmp_to_key

        order = sorted(queued, key=cmp_to_key(lambda a, b: -1 if plugin.less(a, b) else 1 if plugin.less(b, a) else 0))
        _check(diffs, "popOrder", [q.pod_info.name for q in order], want["popOrder"])


STAGES: dict[str, Callable] = {
    "prefilter": _stage_prefilter,
    "filter": _stage_filter,
    "prescore": _stage_prescore,
    "score": _stage_score,
    "args-validation": _stage_args,
    "helper:BuildBrokenLinearFunction": _stage_broken_linear,
    "queue-sort": _stage_queue_sort,
}


def run_case(case: dict) -> CaseResult:
    diffs: list[str] = []
    stage = STAGES.get(case.get("stage"))
    if stage is None:
        return CaseResult(case.get("id", "?"), False, [f"stage {case.get('stage')!r} is not supported by kschedlab"])
    try:
        stage(case, diffs)
    except _Mismatch as err:
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
