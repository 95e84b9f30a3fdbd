"""Conformance stages that run one plugin at an extension point (``shared/CASES.md``, "Stages"):
``prefilter``, ``filter``, ``prescore``, ``score``, ``args-validation``,
``helper:BuildBrokenLinearFunction`` and ``helper:VolumeBindingScorer`` (``other.points``: the
FunctionShape as given; ``expected.other.assertions``: ``[{classResources: {class: {requested,
capacity}}, expected}]``); and the fixtures other stage families build on.

Input keys beside CASES.md's: the objects plugins look up in the cluster (:data:`OWNER_KINDS`):
``services``, ``replicaSets``, ``statefulSets``; DRA's ``resourceClaims``, ``deviceClasses``,
``resourceSlices``, ``deviceTaintRules``; storage's ``persistentVolumes``,
``persistentVolumeClaims``, ``storageClasses``, ``csiNodes``, ``csiDrivers``,
``csiStorageCapacities``, ``volumeAttachments`` (all used as written: no defaulting, as upstream's tests build them).
With ``other.filterFirst``, an empty ``other.filteredNodes`` says that no node passes Filter
(PreScore and Score then see no node).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from kschedlab.conformance.compare import Mismatch, check, check_status, code_matches
from kschedlab.features import FeatureGates
from kschedlab.framework.interface import ArgsError, CycleState
from kschedlab.framework.runtime import Handle


# -- fixtures ----------------------------------------------------------------------------
def fixtures(case: dict):
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
               "statefulSets": ("kschedlab.api.apps", "StatefulSet"),
               # DRA objects (DynamicResources, and NodeResourcesFit for DRA-backed extended resources)
               "resourceClaims": ("kschedlab.api.resource", "ResourceClaim"),
               "deviceClasses": ("kschedlab.api.resource", "DeviceClass"),
               "resourceSlices": ("kschedlab.api.resource", "ResourceSlice"),
               "deviceTaintRules": ("kschedlab.api.resource", "DeviceTaintRule"),
               # storage objects (VolumeBinding, VolumeZone, VolumeRestrictions, NodeVolumeLimits)
               "persistentVolumes": ("kschedlab.api.persistentvolume", "PersistentVolume"),
               "persistentVolumeClaims": ("kschedlab.api.persistentvolume", "PersistentVolumeClaim"),
               "storageClasses": ("kschedlab.api.storage", "StorageClass"),
               "csiNodes": ("kschedlab.api.storage", "CSINode"),
               "csiDrivers": ("kschedlab.api.storage", "CSIDriver"),
               "csiStorageCapacities": ("kschedlab.api.storage", "CSIStorageCapacity"),
               "volumeAttachments": ("kschedlab.api.storage", "VolumeAttachment")}


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
        raise Mismatch(f"plugin {plugin.name} does not expose its {key}")
    got = dump(state)
    want = expected_other[key]
    if want is None or got is None:
        check(diffs, key, got, want)
        return
    for field_name, value in want.items():
        check(diffs, f"{key}.{field_name}", (got or {}).get(field_name), value)


def plugin_for(case: dict, cluster):
    from kschedlab.plugins import in_tree_registry

    registry = in_tree_registry()
    name = case.get("plugin")
    if name not in registry:
        raise Mismatch(f"unknown plugin {name!r}")
    gates = FeatureGates(case.get("featureGates") or {}, emulate_older=True)
    handle = Handle(gates, None, cluster)
    plugin = registry[name].build(case.get("args") or {}, handle)
    if "declaredFeatureRegistry" in case or "componentVersion" in case:
        from kschedlab.conformance.ndf_fixtures import apply_fixtures

        apply_fixtures(plugin, case)
    return plugin


def run_filter(plugin, state, pod_info, snapshot, rows: np.ndarray):
    """One plugin's Filter over ``rows``: its vectorized ``filter_nodes``, else ``filter`` node by node."""
    from kschedlab.framework.interface import Verdicts

    vectorized = getattr(plugin, "filter_nodes", None)
    if vectorized is not None:
        return vectorized(state, pod_info, snapshot, rows)
    return Verdicts.from_statuses(plugin.filter(state, pod_info, snapshot.node_info(int(r))) for r in rows)


def _rows(cluster, names: list[str]) -> np.ndarray:
    return np.asarray([cluster.snapshot.index[n] for n in names], np.int64)


# -- stages --------------------------------------------------------------------------------
def _check_prefilter(plugin, state, pod_info, cluster, expected: dict, diffs):
    """Run the plugin's PreFilter and compare what the case expects of it; returns the status."""
    from kschedlab.framework.status import Status

    result, status = plugin.pre_filter(state, pod_info, cluster.snapshot)
    status = status or Status()
    if "prefilter" in expected:
        check_status(diffs, "prefilter", status, expected["prefilter"])
    other = expected.get("other") or {}
    if "preFilterResultNodeNames" in other:
        got = None if result is None or result.all_nodes() else sorted(result.node_names)
        want = other["preFilterResultNodeNames"]
        want = None if want is None else sorted(want)
        if got != want:  # null (every node) and [] (no node) differ here, as upstream's nil and empty set
            diffs.append(f"preFilterResultNodeNames: got {got}, want {want}")
    _check_state(diffs, plugin, state, other, "preFilterState", "pre_filter_state")
    return status


def _stage_prefilter(case, diffs):
    cluster, pod_info = fixtures(case)
    plugin = plugin_for(case, cluster)
    _check_prefilter(plugin, CycleState(), pod_info, cluster, case["expected"], diffs)


def _stage_preenqueue(case, diffs):
    """PreEnqueue of the plugin: ``expected.preenqueue: {code, reasons}``."""
    cluster, pod_info = fixtures(case)
    plugin = plugin_for(case, cluster)
    status = plugin.pre_enqueue(pod_info)
    check_status(diffs, "preenqueue", status, case["expected"]["preenqueue"])


def _stage_filter(case, diffs):
    cluster, pod_info = fixtures(case)
    plugin = plugin_for(case, cluster)
    expected = case["expected"]
    other_in = case.get("other") or {}
    if "runPreFilter" in (expected.get("other") or {}):
        raise Mismatch("expected.other.runPreFilter: an input, read from the case's top-level 'other'")
    state = CycleState()
    if "preFilterState" in other_in:
        from kschedlab.conformance.ndf_fixtures import seed_state

        seed_state(plugin, state, other_in)
    if hasattr(plugin, "pre_filter") and other_in.get("runPreFilter", True) is not False:
        status = _check_prefilter(plugin, state, pod_info, cluster, expected, diffs)
        if status.is_skip() and not expected.get("filter"):
            return
    names = list((expected.get("filter") or {}).keys()) or [n["metadata"]["name"] for n in case.get("nodes") or []]
    rows = _rows(cluster, names)
    verdicts = run_filter(plugin, state, pod_info, cluster.snapshot, rows)
    for i, name in enumerate(names):
        if name in (expected.get("filter") or {}):
            check_status(diffs, f"filter[{name}]", verdicts.status(i), expected["filter"][name])
    want_ir = (expected.get("other") or {}).get("insufficientResources")
    if want_ir is not None:
        got_ir = _insufficient_resources(plugin, pod_info, cluster, rows)
        check(diffs, "insufficientResources", got_ir, want_ir)


def _insufficient_resources(plugin, pod_info, cluster, rows) -> Any:
    if not hasattr(plugin, "insufficient_resources"):
        raise Mismatch(f"plugin {plugin.name} does not report insufficient resources")
    return plugin.insufficient_resources(pod_info, cluster.snapshot, int(rows[0]))


def _stage_prescore(case, diffs):
    cluster, pod_info = fixtures(case)
    plugin = plugin_for(case, cluster)
    other = case["expected"].get("other") or {}
    names = other.get("filteredNodes") or [n["metadata"]["name"] for n in case.get("nodes") or []]
    state = CycleState()
    status = plugin.pre_score(state, pod_info, cluster.snapshot, _rows(cluster, names))
    want = other.get("prescore") or case["expected"].get("prescore")
    check_status(diffs, "prescore", status, {"code": want.get("code")})
    _check_state(diffs, plugin, state, other, "preScoreState", "pre_score_state")


def _stage_score(case, diffs):
    from kschedlab.framework.runtime import FrameworkError, score_plugin

    cluster, pod_info = fixtures(case)
    plugin = plugin_for(case, cluster)
    expected = case["expected"]
    other = expected.get("other") or {}
    names = other.get("filteredNodes") or [n["metadata"]["name"] for n in case.get("nodes") or []]
    if other.get("filterFirst") and "filteredNodes" in other:
        names = other["filteredNodes"]  # [] here: no node passes Filter
    rows = _rows(cluster, names)
    state = CycleState()
    if other.get("filterFirst"):
        # plugins that score from what their Filter found (DynamicResources): PreFilter, then Filter
        # on every node; ``filteredNodes`` names the nodes expected to pass
        plugin.pre_filter(state, pod_info, cluster.snapshot)
        everyone = _rows(cluster, [n["metadata"]["name"] for n in case.get("nodes") or []])
        verdicts = run_filter(plugin, state, pod_info, cluster.snapshot, everyone)
        passed = [cluster.snapshot.names[int(r)] for i, r in enumerate(everyone) if verdicts.codes[i] == 0]
        check(diffs, "nodes passing Filter", sorted(passed), sorted(names))
    if hasattr(plugin, "pre_score") and other.get("runPreScore", True) is not False:
        try:
            status = plugin.pre_score(state, pod_info, cluster.snapshot, rows)
        except (ValueError, FrameworkError) as err:
            from kschedlab.framework.status import Status

            status = Status.error(str(err))
        if "preScore" in other:
            want = other["preScore"]
            check_status(diffs, "preScore", status, {"code": want.get("code")})
            if want.get("messageContains") and want["messageContains"] not in status.message():
                diffs.append(f"preScore message {status.message()!r} lacks {want['messageContains']!r}")
            if not status.is_success():
                return
        _check_state(diffs, plugin, state, other, "preScoreState", "pre_score_state")
        if status.is_skip() and "scores" not in expected:
            return
    want_status = other.get("scoreStatus")
    try:
        scores = score_plugin(plugin, state, pod_info, cluster.snapshot, rows)
    except (ValueError, FrameworkError) as err:
        if want_status is None:
            raise
        check_status(diffs, "scoreStatus", {"code": "Error", "reasons": [str(err)]}, {"code": want_status.get("code")})
        if want_status.get("messageContains", "") not in str(err):
            diffs.append(f"score error {str(err)!r} lacks {want_status['messageContains']!r}")
        scores = np.zeros(len(rows), np.int64)
    else:
        if want_status is not None and not code_matches("Success", want_status.get("code")):
            diffs.append(f"score: expected status {want_status['code']}, got Success")
    if expected.get("scoreStage") == "normalized" and hasattr(plugin, "normalize_score"):
        plugin.normalize_score(state, pod_info, scores)
    got = {name: int(scores[i]) for i, name in enumerate(names)}
    want = expected.get("scores") or {}
    check(diffs, "scores", {k: got.get(k) for k in want}, want)


def _stage_args(case, diffs):
    from kschedlab.plugins import in_tree_registry

    cls = in_tree_registry().get(case.get("plugin"))
    if cls is None:
        raise Mismatch(f"unknown plugin {case.get('plugin')!r}")
    try:
        gates = FeatureGates(case.get("featureGates") or {}, emulate_older=True)
        cls.parse_args(case.get("args") or {}, Handle(gates, None, None))
        got: list = []
    except ArgsError as err:
        got = [{"type": e.type, "field": e.field} for e in err.errors]
    want = case["expected"]["other"]["argsError"]
    key = lambda e: (e["field"], e["type"])  # noqa: E731
    check(diffs, "argsError", sorted(got, key=key), sorted(want, key=key))


def _stage_broken_linear(case, diffs):
    from kschedlab.plugins.helper import FunctionShapePoint, build_broken_linear_function

    points = case.get("other", {}).get("points") or case["expected"].get("other", {}).get("points")
    fn = build_broken_linear_function([FunctionShapePoint(int(u), int(s)) for u, s in
                                       (p if isinstance(p, (list, tuple)) else (p["utilization"], p["score"])
                                        for p in points)])
    for a in case["expected"]["other"]["assertions"]:
        check(diffs, f"f({a['p']})", int(fn(a["p"])), a["expected"])


def _stage_volume_binding_scorer(case, diffs):
    """VolumeBinding's ``buildScorerFunction`` over ``other.points`` (a FunctionShape, scores as
    given), evaluated on each ``assertions[i].classResources`` (class -> {requested, capacity})."""
    from kschedlab.plugins.helper import FunctionShapePoint
    from kschedlab.plugins.volume_binding import build_scorer

    points = case.get("other", {}).get("points") or []
    scorer = build_scorer([FunctionShapePoint(int(p["utilization"]), int(p["score"])) for p in points])
    for i, a in enumerate(case["expected"]["other"]["assertions"]):
        classes = {k: (int(v.get("requested", 0)), int(v.get("capacity", 0))) for k, v in a["classResources"].items()}
        check(diffs, f"score[{i}]", scorer(classes), a["expected"])


STAGES: dict[str, Callable] = {
    "preenqueue": _stage_preenqueue,
    "prefilter": _stage_prefilter,
    "filter": _stage_filter,
    "prescore": _stage_prescore,
    "score": _stage_score,
    "args-validation": _stage_args,
    "helper:BuildBrokenLinearFunction": _stage_broken_linear,
    "helper:VolumeBindingScorer": _stage_volume_binding_scorer,
}
