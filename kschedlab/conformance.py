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
    _owner_objects(case, cluster)
    pod_info = None
    if case.get("pod") is not None:
        from kschedlab.framework.types import PodInfo

        pod_info = PodInfo.of(Pod.model_validate(case["pod"]))
    return cluster, pod_info


#: extra input keys holding objects the plugins look up in the cluster (default spreading)
OWNER_KINDS = {"services": ("kschedlab.api.core", "Service"), "replicaSets": ("kschedlab.api.apps", "ReplicaSet"),
               "statefulSets": ("kschedlab.api.apps", "StatefulSet")}


def _owner_objects(case: dict, cluster) -> None:
    import importlib

    for key, (module, kind) in OWNER_KINDS.items():
        model = getattr(importlib.import_module(module), kind)
        for obj in case.get(key) or []:
            cluster.add(model.model_validate(obj))


def _check_state(diffs: list[str], plugin, state, expected_other: dict, key: str, method: str) -> None:
    """Compare a plugin's cycle state (as plain data from ``plugin.<method>(state)``) with
    ``expected.other[key]``, for the keys the case gives."""
    if key not in expected_other:
        return
    dump = getattr(plugin, method, None)
    if dump is None:
        raise _Mismatch(f"plugin {plugin.name} does not expose its {key}")
    got = dump(state)
    want = expected_other[key]
    if want is None or got is None:
        _check(diffs, key, got, want)
        return
    for field_name, value in want.items():
        _check(diffs, f"{key}.{field_name}", (got or {}).get(field_name), value)


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
def _check_prefilter(plugin, state, pod_info, cluster, expected: dict, diffs):
    """Run the plugin's PreFilter and compare what the case expects of it; returns the status."""
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
    _check_state(diffs, plugin, state, other, "preFilterState", "pre_filter_state")
    return status


def _stage_prefilter(case, diffs):
    cluster, pod_info = _fixtures(case)
    plugin = _plugin(case, cluster)
    _check_prefilter(plugin, CycleState(), pod_info, cluster, case["expected"], diffs)


def _norm_status(s: dict) -> dict:
    return {"code": s.get("code", "Success"), "reasons": list(s.get("reasons") or [])}


def _stage_filter(case, diffs):
    cluster, pod_info = _fixtures(case)
    plugin = _plugin(case, cluster)
    expected = case["expected"]
    other_in = case.get("other") or {}
    state = CycleState()
    if hasattr(plugin, "pre_filter") and other_in.get("runPreFilter", True) is not False:
        status = _check_prefilter(plugin, state, pod_info, cluster, expected, diffs)
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
    other = case["expected"].get("other") or {}
    names = other.get("filteredNodes") or [n["metadata"]["name"] for n in case.get("nodes") or []]
    state = CycleState()
    status = plugin.pre_score(state, pod_info, cluster.snapshot, _rows(cluster, names))
    want = other.get("prescore") or case["expected"].get("prescore")
    _check(diffs, "prescore.code", status.code.name, want["code"])
    _check_state(diffs, plugin, state, other, "preScoreState", "pre_score_state")


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
        _check_state(diffs, plugin, state, other, "preScoreState", "pre_score_state")
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
    if case.get("queueOps") is not None:  # operations on a SchedulingQueue (kschedlab.queueing.conformance)
        from kschedlab.queueing.conformance import stage_queue_sort_ops

        return stage_queue_sort_ops(case, plugin, diffs, _check)
    queued = [QueuedPodInfo(PodInfo.of(Pod.model_validate(q["pod"])), _timestamp(q["timestamp"]))
              for q in case.get("queuedPods") or []]
    want = case["expected"]["other"]
    if "less" in want:
        _check(diffs, "less", plugin.less(queued[0], queued[1]), want["less"])
    if "popOrder" in want:
        from functools import cmp_to_key

        order = sorted(queued, key=cmp_to_key(lambda a, b: -1 if plugin.less(a, b) else 1 if plugin.less(b, a) else 0))
        _check(diffs, "popOrder", [q.pod_info.name for q in order], want["popOrder"])


def _stage_queue_backoff(case, diffs):
    from kschedlab.queueing.conformance import stage_queue_backoff

    stage_queue_backoff(case, diffs, _check)


# -- preemption stages ----------------------------------------------------------------------
# Upstream's preemption tests build a framework of a few Filter / PreFilter plugins,
# some of them test doubles of ``pkg/scheduler/testing/framework``; these are the doubles.
ERR_REASON_FAKE = "Nodes failed the fake plugin"


class _FalseFilter:
    name = "FalseFilter"

    def __init__(self, args=None, handle=None):
        pass

    @classmethod
    def build(cls, raw=None, handle=None):
        return cls()

    def filter(self, state, pod_info, node_info):
        from kschedlab.framework.status import Status

        return Status.unschedulable(ERR_REASON_FAKE)


class _TrueFilter(_FalseFilter):
    name = "TrueFilter"

    def filter(self, state, pod_info, node_info):
        from kschedlab.framework.status import Status

        return Status()


class _MatchFilter(_FalseFilter):
    name = "MatchFilter"

    def filter(self, state, pod_info, node_info):
        from kschedlab.framework.status import Status

        return Status() if pod_info.name == node_info.name else Status.unschedulable(ERR_REASON_FAKE)


class _FakeFilter:
    """``tf.FakeFilterPlugin``: counts its calls; nodes named in ``failedNodeReturnCodeMap``
    get that code with "injecting failure for pod <name>"."""

    name = "FakeFilter"

    def __init__(self, codes: dict | None = None):
        self.codes = dict(codes or {})
        self.num_filter_called = 0

    @classmethod
    def build(cls, raw=None, handle=None):
        return cls((raw or {}).get("failedNodeReturnCodeMap"))

    def filter(self, state, pod_info, node_info):
        from kschedlab.framework.status import Code, Status

        self.num_filter_called += 1
        code = self.codes.get(node_info.name)
        if code is None:
            return Status()
        return Status(Code[code], (f"injecting failure for pod {pod_info.name}",))


class _ErrorOnLabelPlugin:
    """The ``TestPlugin`` of default_preemption_test.go ("test-plugin"): a PreFilter plugin
    whose AddPod / RemovePod fail on nodes labelled ``error: "true"``."""

    name = "test-plugin"

    @classmethod
    def build(cls, raw=None, handle=None):
        return cls()

    def pre_filter(self, state, pod_info, snapshot):
        from kschedlab.framework.status import Status

        return None, Status()

    def add_pod(self, state, pod_info, pod_info_to_add, node_info):
        from kschedlab.framework.status import Status

        if node_info.node.metadata.labels.get("error") == "true":
            return Status.error(f"failed to add pod: {pod_info.name}")
        return Status()

    def remove_pod(self, state, pod_info, pod_info_to_remove, node_info):
        from kschedlab.framework.status import Status

        if node_info.node.metadata.labels.get("error") == "true":
            return Status.error(f"failed to remove pod: {pod_info.name}")
        return Status()

    def filter(self, state, pod_info, node_info):
        from kschedlab.framework.status import Status

        return Status()


TEST_DOUBLES = {cls.name: cls for cls in (_FalseFilter, _TrueFilter, _MatchFilter, _FakeFilter, _ErrorOnLabelPlugin)}


def _preemption_fixtures(case: dict):
    """Cluster (with ``pdbs``), the incoming pod, a framework of ``filterPlugins`` plus
    DefaultPreemption, and a cycle state after PreFilter."""
    from kschedlab.api.policy import PodDisruptionBudget
    from kschedlab.framework.profile import implements
    from kschedlab.framework.runtime import Framework
    from kschedlab.plugins import in_tree_registry

    cluster, pod_info = _fixtures(case)
    for pdb in case.get("pdbs") or []:
        cluster.add(PodDisruptionBudget.model_validate(pdb))
    registry = {**in_tree_registry(), **TEST_DOUBLES}
    plugin = case.get("plugin") or "DefaultPreemption"
    if plugin not in registry:
        raise _Mismatch(f"unknown plugin {plugin!r}")
    pre_filter, filters, config = [], [], [{"name": plugin, "args": case.get("args") or {}}]
    for entry in case.get("filterPlugins") or []:
        entry = {"name": entry} if isinstance(entry, str) else dict(entry)
        name = entry["name"]
        if name not in registry:
            raise _Mismatch(f"unknown plugin {name!r}")
        cls = registry[name]
        if implements(cls, "preFilter"):
            pre_filter.append({"name": name})
        if implements(cls, "filter"):
            filters.append({"name": name})
        if entry.get("args"):
            config.append({"name": name, "args": entry["args"]})
    profile = {
        "plugins": {
            "multiPoint": {"disabled": [{"name": "*"}]},
            "queueSort": {"enabled": [{"name": "PrioritySort"}]},
            "bind": {"enabled": [{"name": "DefaultBinder"}]},
            "preFilter": {"enabled": pre_filter},
            "filter": {"enabled": filters},
            "postFilter": {"enabled": [{"name": plugin}]},
        },
        "pluginConfig": config,
    }
    gates = FeatureGates(case.get("featureGates") or {}, emulate_older=True)
    fw = Framework(profile, gates=gates, registry=registry, cluster=cluster)
    state = CycleState()
    if pod_info is not None:
        fw.run_pre_filter(state, pod_info, cluster.snapshot)
    return cluster, pod_info, fw, fw.plugins[plugin], state


def _node_to_status(spec: dict | None, cluster):
    from kschedlab.framework.status import Code, Status
    from kschedlab.preemption import NodeToStatus

    def status(v) -> Status:
        if isinstance(v, dict):
            return Status(Code[v.get("code", "Success")], tuple(v.get("reasons") or ()))
        return Status(Code[v])

    if spec is None:  # TestPreempt: every node Unschedulable
        return NodeToStatus({n: Status(Code.Unschedulable) for n in cluster.nodes})
    absent = spec.get("absent")
    return NodeToStatus({n: status(v) for n, v in (spec.get("byNode") or {}).items()},
                        status(absent) if absent is not None else None)


def _dry_run(case, cluster, pod_info, plugin, state):
    rows = [cluster.snapshot.index[n["metadata"]["name"]] for n in case.get("nodes") or []]
    dry = case.get("dryRun") or {}
    offset = int(dry.get("offset", 0))
    num = dry.get("numCandidates")
    num = plugin.calculate_num_candidates(len(rows)) if num is None else int(num)
    candidates, _, _ = plugin.evaluator.dry_run_preemption(state, pod_info, rows, plugin.evaluator.pdbs(), offset, num)
    return candidates


def _check_filter_calls(case, fw, diffs):
    want = (case["expected"].get("other") or {}).get("numFilterCalled")
    if want is not None:
        fake = fw.plugins.get("FakeFilter")
        _check(diffs, "numFilterCalled", fake.num_filter_called if fake else 0, want)


def _stage_preemption_dryrun(case, diffs):
    cluster, pod_info, fw, plugin, state = _preemption_fixtures(case)
    candidates = _dry_run(case, cluster, pod_info, plugin, state)
    other = case["expected"].get("other") or {}
    got = {c.name: sorted(p.name for p in c.victims.pods) for c in candidates}
    want = {k: sorted(v) for k, v in (other.get("victims") or {}).items()}
    _check(diffs, "victims", got, want)
    if "numPDBViolations" in other:
        _check(diffs, "numPDBViolations", {c.name: c.victims.num_pdb_violations for c in candidates},
               other["numPDBViolations"])
    _check_filter_calls(case, fw, diffs)


def _stage_preemption_select(case, diffs):
    cluster, pod_info, fw, plugin, state = _preemption_fixtures(case)
    candidates = _dry_run(case, cluster, pod_info, plugin, state)
    best = plugin.evaluator.select_candidate(candidates)
    want = case["expected"]["other"]["selectedNodeOneOf"]
    if best is None or best.name not in want:
        diffs.append(f"selected node: got {best.name if best else None!r}, want one of {want}")


def _stage_preemption_eligible(case, diffs):
    from kschedlab.framework.status import Code, Status

    cluster, pod_info, fw, plugin, state = _preemption_fixtures(case)
    spec = case.get("nominatedNodeStatus")
    status = None if spec is None else Status(Code[spec.get("code", "Success")], tuple(spec.get("reasons") or ()))
    ok, _ = plugin.pod_eligible_to_preempt_others(pod_info, status)
    _check(diffs, "eligibleToPreemptOthers", ok, case["expected"]["other"]["eligibleToPreemptOthers"])


def _post_filter_checks(diffs, other, result, status):
    if "postFilterResult" in other:
        _check(diffs, "postFilterResult", None if result is None else result.to_dict(), other["postFilterResult"])
    if "status" in other:
        _check(diffs, "status", _status_dict(status), _norm_status(other["status"]))


def _stage_postfilter(case, diffs):
    cluster, pod_info, fw, plugin, state = _preemption_fixtures(case)
    m = _node_to_status(case.get("filteredNodesStatuses") or {}, cluster)
    result, status = plugin.post_filter(state, pod_info, m)
    _post_filter_checks(diffs, case["expected"].get("other") or {}, result, status)


def _stage_preemption_preempt(case, diffs):
    cluster, pod_info, fw, plugin, state = _preemption_fixtures(case)
    deleted: list = []
    fw.handle.extra["delete_pod"] = lambda key, info: deleted.append(info)  # the fake client's delete reactor
    m = _node_to_status(case.get("filteredNodesStatuses"), cluster)
    result, status = plugin.evaluator.preempt(state, pod_info, m)
    other = case["expected"].get("other") or {}
    _post_filter_checks(diffs, other, result, status)
    if "victims" in other:
        want = other["victims"]
        got_names = sorted(p.name for p in deleted)
        if isinstance(want, dict):
            node = result.nominated_node_name if result else None
            _check(diffs, "victims", {node: got_names} if deleted else {}, {k: sorted(v) for k, v in want.items()})
        else:
            _check(diffs, "victims", got_names, sorted(want))
    if "victimCondition" in other:
        want = other["victimCondition"]
        for info in deleted:
            cond = next((c for c in info.pod.status.conditions if c.type == want.get("type")), None)
            got = None if cond is None else {k: getattr(cond, k) for k in ("type", "status", "reason", "message")}
            _check(diffs, f"victimCondition[{info.name}]", got,
                   {k: want.get(k) for k in ("type", "status", "reason", "message")})


STAGES: dict[str, Callable] = {
    "prefilter": _stage_prefilter,
    "filter": _stage_filter,
    "prescore": _stage_prescore,
    "score": _stage_score,
    "args-validation": _stage_args,
    "helper:BuildBrokenLinearFunction": _stage_broken_linear,
    "queue-sort": _stage_queue_sort,
    "queue-backoff": lambda case, diffs: _stage_queue_backoff(case, diffs),
    "postfilter": _stage_postfilter,
    "preemption-dryrun": _stage_preemption_dryrun,
    "preemption-select": _stage_preemption_select,
    "preemption-eligible": _stage_preemption_eligible,
    "preemption-preempt": _stage_preemption_preempt,
}


def _pod_group_stages() -> dict[str, Callable]:
    """gang-preenqueue, gang-queueing-hint, podgroup-validate, podgroup-condition-update."""
    from kschedlab.podgroup.conformance import STAGES as POD_GROUP_STAGES

    return POD_GROUP_STAGES


STAGES.update(_pod_group_stages())


def _dra_stages() -> dict[str, Callable]:
    """dra-allocate."""
    from kschedlab.dra.cases import STAGES as DRA_STAGES

    return DRA_STAGES


STAGES.update(_dra_stages())


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
