"""Conformance stages of the scheduler's own cycle (upstream ``pkg/scheduler/schedule_one.go``
and ``pkg/scheduler/framework/types.go``), ``plugin: scheduler``:

======================  ==========================================================================
``num-feasible-nodes``  ``Scheduler.numFeasibleNodesToFind``: ``other {globalPercentage,
                        profilePercentage (absent or null: the profile sets none), numAllNodes}``;
                        ``expected.other.numNodes``
``schedule-pod``        ``Scheduler.schedulePod`` (``findNodesThatFitPod`` with it) over ``nodes``,
                        ``existingPods`` and the storage objects of :mod:`.plugins`, with the plugins
                        of ``registerPlugins`` (:mod:`.schedule_one_doubles`; PrioritySort and
                        DefaultBinder are always there), the configuration's
                        ``percentageOfNodesToScore`` at its default (0, adaptive). Run with and
                        without the fast path; both must match. ``expected.other``:
                        ``suggestedHostOneOf: [node]``, ``evaluatedNodes``, ``error`` (exact; a
                        non-FitError), ``fitError {numAllNodes, nodeToStatus {byNode {node: status},
                        absent: status}, unschedulablePlugins (set), preFilterMsg, message}`` where
                        a status is ``{code, reasons, plugin}`` (a missing ``plugin`` is none)
``prioritize-nodes``    ``prioritizeNodes``: PreScore and Score of ``registerPlugins`` over every node of
                        ``nodes`` (no filtering); ``expected.other.nodeScores: [{name, scores: [{name,
                        score}] (by plugin name; weighted), totalScore}]`` in node order
``schedule-one``        ``Scheduler.ScheduleOne`` for ``pod`` through the scheduling loop (one pop,
                        one attempt; ``other.allow``: then a plugin allows the pod waiting at
                        Permit; ``other.reject {plugin, message}``: then a plugin rejects it there,
                        upstream's ``waitingPod.Reject``), with the plugins of ``registerPlugins``
                        (Reserve, Permit, PreBind doubles; ``DefaultBinder`` may be given a double);
                        ``expected.other``: ``boundTo`` (node or null), ``error`` (the failure
                        message, null when none: bound, or skipped as a pod being deleted),
                        ``queuedIn`` (where the queue holds the pod after: ``backoff``,
                        ``unschedulable``, null), ``eventReason`` (``Scheduled`` or
                        ``FailedScheduling``), ``nominatedNodeName`` (the node the binding cycle
                        wrote to ``status.nominatedNodeName``, null when none; compared, as upstream
                        does, only when ``error`` is null), ``failureNominatingInfo`` (the
                        nominating info the failure handler got, ``{mode, nominatedNodeName}``, null
                        when none), ``statusNominatedNodeName`` (the pod's
                        ``status.nominatedNodeName`` after the failure handler, null when empty) and
                        ``nominatorNode`` (the node the nominator holds the pod on, null when none).
                        Gates from ``featureGates``
``nodes-for-status-code``  ``NodeToStatus.NodesForStatusCode`` over ``nodes``: ``other {nodeToStatus
                        {byNode {node: code}, absent: code (absent: the default,
                        UnschedulableAndUnresolvable)}, code}``; ``expected.other.nodes`` (a set)
``fit-error``           ``FitError.Error()``: ``other {numAllNodes, diagnosis {preFilterMsg,
                        postFilterMsg, nodeToStatus {byNode {node: {code, reasons}}, absent}}}``;
                        ``expected.other.message``
======================  ==========================================================================

More ``schedule-pod`` inputs: ``other.percentageOfNodesToScore`` (the configuration's),
``other.repeat`` (cycles of the same pod on one scheduler; ``expected.other.steps: [{feasibleNodes,
nextStartNodeIndex}]`` one per cycle), ``nominatedPods: [{pod, node}]`` (pods the nominator holds,
as upstream's ``AddNominatedPod``); ``expected.other.numFilterCalled`` counts the calls of the
``FakeFilter`` double.

A ``fitError`` given with ``byNode`` asserts exactly those explicit statuses; without it only
the fields given are compared. ``fitError`` and ``error`` both absent assert that the pod found a
node (a FitError or an error then fails the case).

>>> from kschedlab.conformance.runner import run_case
>>> run_case({"id": "n", "stage": "num-feasible-nodes", "plugin": "scheduler",
...     "other": {"numAllNodes": 1000}, "expected": {"other": {"numNodes": 420}}}).ok
True
"""

from __future__ import annotations

from typing import Any, Callable

from kschedlab.conformance.compare import Mismatch, check
from kschedlab.features import FeatureGates

__all__ = ["STAGES"]


def _stage_num_feasible_nodes(case: dict, diffs: list[str]) -> None:
    from kschedlab.cluster import Cluster
    from kschedlab.scheduler import Scheduler

    other = case.get("other") or {}
    profile: dict[str, Any] = {}
    if other.get("profilePercentage") is not None:
        profile["percentageOfNodesToScore"] = int(other["profilePercentage"])
    config = {"percentageOfNodesToScore": int(other.get("globalPercentage") or 0), "profiles": [profile]}
    sched = Scheduler(Cluster(), config)
    fw = sched.profiles["default-scheduler"]
    got = sched.num_feasible_nodes_to_find(fw.profile.percentage_of_nodes_to_score, int(other["numAllNodes"]))
    check(diffs, "numNodes", got, int(case["expected"]["other"]["numNodes"]))


# -- schedule-pod ----------------------------------------------------------------------------
_POINTS = ("preFilter", "filter", "preScore", "score", "reserve", "permit", "preBind")


def _profile_and_registry(case: dict) -> tuple[dict, dict]:
    """The profile of ``registerPlugins`` and the registry holding its test plugins."""
    from kschedlab.conformance.schedule_one_doubles import DOUBLES, double_class
    from kschedlab.framework.profile import implements
    from kschedlab.plugins import in_tree_registry

    in_tree = in_tree_registry()
    registry: dict[str, type] = {}
    enabled: dict[str, list[dict]] = {p: [] for p in _POINTS}
    config = []
    for entry in case.get("registerPlugins") or []:
        name = entry["name"]
        if name == "DefaultBinder":  # the binder is always there; a double may stand in for it
            registry[name] = double_class(name, entry["double"], entry.get("args"))
            continue
        double = entry.get("double", name if name in DOUBLES else None)
        if double is not None:
            if double not in DOUBLES:
                raise Mismatch(f"unknown test plugin {double!r}")
            cls = registry[name] = double_class(name, double, entry.get("args"))
        elif name in in_tree:
            cls = in_tree[name]
            if entry.get("args"):
                config.append({"name": name, "args": entry["args"]})
        else:
            raise Mismatch(f"unknown plugin {name!r}")
        points = entry.get("extensionPoints")
        for point in _POINTS:
            wanted = point[0].upper() + point[1:] in points if points is not None else implements(cls, point)
            if not wanted:
                continue
            if points is not None and not implements(cls, point):
                raise Mismatch(f"plugin {name!r} has no {point} extension point")
            item: dict[str, Any] = {"name": name}
            if point == "score":
                item["weight"] = int(entry.get("weight", 1))
            enabled[point].append(item)
    profile = {
        "schedulerName": ((case.get("pod") or {}).get("spec") or {}).get("schedulerName") or "default-scheduler",
        "plugins": {"multiPoint": {"disabled": [{"name": "*"}]},
                    "queueSort": {"enabled": [{"name": "PrioritySort"}]},
                    "bind": {"enabled": [{"name": "DefaultBinder"}]},
                    **{p: {"enabled": items} for p, items in enabled.items()}},
        "pluginConfig": config,
    }
    return profile, registry


def _status_dict(status) -> dict:
    return {"code": status.code.name, "reasons": list(status.reasons), "plugin": status.plugin or ""}


def _scheduler(case: dict, fast_path: bool):
    """The case's cluster, incoming pod and a Scheduler of one profile of ``registerPlugins``."""
    from kschedlab.api.core import Pod
    from kschedlab.conformance.plugins import fixtures
    from kschedlab.framework.types import PodInfo
    from kschedlab.scheduler import Scheduler

    cluster, pod_info = fixtures(case)
    profile, registry = _profile_and_registry(case)
    gates = FeatureGates(case.get("featureGates") or {}, emulate_older=True)
    config = {"percentageOfNodesToScore": int((case.get("other") or {}).get("percentageOfNodesToScore") or 0),
              "profiles": [profile]}
    sched = Scheduler(cluster, config, gates=gates, registry=registry, fast_path=fast_path)
    for entry in case.get("nominatedPods") or []:
        cluster.nominator.nominate(PodInfo.of(Pod.model_validate(entry["pod"])), entry["node"])
    return cluster, pod_info, sched


def _schedule_pod(case: dict, fast_path: bool) -> dict:
    """One run of the stage: what upstream's test reads of ``schedulePod``'s answer (and, with
    ``other.repeat``, of each cycle)."""
    from kschedlab.framework.interface import CycleState
    from kschedlab.framework.trace import CycleTrace

    cluster, pod_info, sched = _scheduler(case, fast_path)
    fw = next(iter(sched.profiles.values()))
    snapshot = cluster.snapshot
    steps = []
    for _ in range(int((case.get("other") or {}).get("repeat", 1))):
        trace = CycleTrace(pod_info.key, fw.profile.scheduler_name, snapshot.node_names())
        got = _one_cycle(sched, fw, CycleState(), pod_info, snapshot, trace)
        steps.append({"feasibleNodes": trace.feasible_nodes, "nextStartNodeIndex": sched.next_start_node_index})
    got["steps"] = steps
    fake = fw.plugins.get("FakeFilter")
    if fake is not None and hasattr(fake, "num_filter_called"):
        got["numFilterCalled"] = fake.num_filter_called
    return got


def _one_cycle(sched, fw, state, pod_info, snapshot, trace) -> dict:
    from kschedlab.framework.status import FrameworkError, Status

    try:
        node, diagnosis = sched.find_node(fw, state, pod_info, snapshot, trace)
    except FrameworkError as err:
        return {"error": str(err)}
    by_node = {}
    if trace.filter is not None:
        for i, row in enumerate(trace.filter.rows.tolist()):
            status = trace.filter.status(i)
            if not status.is_success():
                by_node[snapshot.names[row]] = _status_dict(status)
    absent = diagnosis.absent_status or Status.unresolvable()
    fit = {"numAllNodes": diagnosis.num_all_nodes, "nodeToStatus": {"byNode": by_node, "absent": _status_dict(absent)},
           "unschedulablePlugins": sorted(diagnosis.unschedulable_plugins), "preFilterMsg": diagnosis.prefilter_msg,
           "message": diagnosis.message()}
    return {"node": node, "evaluatedNodes": trace.evaluated_nodes, "fitError": fit}


def _compare_status(diffs: list[str], what: str, got: dict, want: dict) -> None:
    full = {"code": want.get("code", "Success"), "reasons": list(want.get("reasons") or []),
            "plugin": want.get("plugin") or ""}
    if got != full:
        diffs.append(f"{what}: got {got}, want {full}")


def _check_schedule_pod(diffs: list[str], got: dict, want: dict, label: str) -> None:
    if "error" in want or "error" in got:
        check(diffs, f"{label}error", got.get("error"), want.get("error"))
        return
    if "numFilterCalled" in want:
        check(diffs, f"{label}numFilterCalled", got.get("numFilterCalled"), want["numFilterCalled"])
    fit = got["fitError"]
    if "fitError" not in want:
        if got["node"] is None:
            diffs.append(f"{label}unexpected FitError: {fit['message']}")
            return
    else:
        if got["node"] is not None:
            diffs.append(f"{label}found node {got['node']!r}, want a FitError")
            return
        wfit = want["fitError"]
        for key in ("numAllNodes", "preFilterMsg", "message"):
            if key in wfit:
                check(diffs, f"{label}fitError.{key}", fit[key], wfit[key])
        if "unschedulablePlugins" in wfit:
            check(diffs, f"{label}fitError.unschedulablePlugins", fit["unschedulablePlugins"],
                  sorted(wfit["unschedulablePlugins"]))
    wstatuses = (want.get("fitError") or want).get("nodeToStatus")
    if wstatuses is not None:
        gstatuses = fit["nodeToStatus"]
        if "byNode" in wstatuses:
            check(diffs, f"{label}nodeToStatus nodes", sorted(gstatuses["byNode"]), sorted(wstatuses["byNode"]))
            for name, status in wstatuses["byNode"].items():
                if name in gstatuses["byNode"]:
                    _compare_status(diffs, f"{label}nodeToStatus[{name}]", gstatuses["byNode"][name], status)
        if "absent" in wstatuses:
            _compare_status(diffs, f"{label}nodeToStatus.absent", gstatuses["absent"], wstatuses["absent"])
    if "unschedulablePlugins" in want:  # the diagnosis of a cycle that found a node (findNodesThatFitPod)
        check(diffs, f"{label}unschedulablePlugins", fit["unschedulablePlugins"], sorted(want["unschedulablePlugins"]))
    if "suggestedHostOneOf" in want and got["node"] not in want["suggestedHostOneOf"]:
        diffs.append(f"{label}suggestedHost: got {got['node']!r}, want one of {want['suggestedHostOneOf']}")
    if "evaluatedNodes" in want:
        check(diffs, f"{label}evaluatedNodes", got["evaluatedNodes"], int(want["evaluatedNodes"]))
    if "steps" in want:
        check(diffs, f"{label}steps", got["steps"], want["steps"])


def _stage_schedule_pod(case: dict, diffs: list[str]) -> None:
    want = case["expected"]["other"]
    for fast_path in (True, False):
        _check_schedule_pod(diffs, _schedule_pod(case, fast_path), want, "" if fast_path else "(fast path off) ")


# -- schedule-one ----------------------------------------------------------------------------
def _stage_schedule_one(case: dict, diffs: list[str]) -> None:
    from kschedlab.scheduler.scheduling_loop import SchedulingLoop

    want = case["expected"]["other"]
    for fast_path in (True, False):
        label = "" if fast_path else "(fast path off) "
        cluster, pod_info, sched = _scheduler(case, fast_path)
        cluster.add(pod_info.pod)
        key = pod_info.key
        loop = SchedulingLoop(sched)
        loop.attach()
        try:
            loop.add(cluster.pod_infos[key])
            loop.step()
            allow = (case.get("other") or {}).get("allow")
            if allow:
                sched.allow(key, allow)
            reject = (case.get("other") or {}).get("reject")
            if reject:
                sched.reject(key, reject["plugin"], reject["message"])
            result = loop.last.get(key)
            bound = cluster.pods[key].spec.node_name or None
            error = None
            if result is not None and result.node is None and not result.skipped:  # the failure handler's error
                error = result.message or None
            trace = result.trace if result is not None else None
            got = {"boundTo": bound, "error": error,
                   "queuedIn": loop.queue.where(key),
                   "eventReason": "Scheduled" if bound else "FailedScheduling" if result is not None else None,
                   "nominatedNodeName": trace.nominated_node_name if trace is not None else None,
                   "failureNominatingInfo": _nominating_info(result),
                   "statusNominatedNodeName": cluster.pods[key].status.nominated_node_name or None,
                   "nominatorNode": cluster.nominator.nominated_node(key)}
        finally:
            loop.detach()
        for name in ("boundTo", "error", "queuedIn", "eventReason", "nominatedNodeName", "failureNominatingInfo",
                     "statusNominatedNodeName", "nominatorNode"):
            if name in want and (name != "nominatedNodeName" or want.get("error") is None):
                check(diffs, f"{label}{name}", got[name], want[name])


def _nominating_info(result) -> dict | None:
    info = result.nominating_info if result is not None else None
    return None if info is None else {"mode": info.mode, "nominatedNodeName": info.nominated_node_name}


# -- prioritize-nodes -------------------------------------------------------------------------
def _stage_prioritize_nodes(case: dict, diffs: list[str]) -> None:
    from kschedlab.framework.interface import CycleState

    cluster, pod_info, sched = _scheduler(case, fast_path=False)
    fw = next(iter(sched.profiles.values()))
    snapshot = cluster.snapshot
    rows = snapshot.order
    state = CycleState()
    fw.run_pre_score(state, pod_info, snapshot, rows)
    outcome = fw.run_score(state, pod_info, snapshot, rows)
    weighted, total = outcome.weighted, outcome.total
    got = []
    for j, row in enumerate(rows.tolist()):
        scores = sorted(({"name": name, "score": int(weighted[i, j])} for i, name in enumerate(outcome.plugins)),
                        key=lambda s: s["name"])
        got.append({"name": snapshot.names[row], "scores": scores, "totalScore": int(total[j])})
    check(diffs, "nodeScores", got, case["expected"]["other"]["nodeScores"])


# -- nodes-for-status-code -------------------------------------------------------------------
def _stage_nodes_for_status_code(case: dict, diffs: list[str]) -> None:
    from kschedlab.conformance.plugins import fixtures
    from kschedlab.framework.preemption import NodeToStatus
    from kschedlab.framework.status import Code, Status

    cluster, _ = fixtures({**case, "pod": None})
    spec = case["other"]["nodeToStatus"]
    absent = spec.get("absent")
    statuses = NodeToStatus({n: Status(Code[c]) for n, c in (spec.get("byNode") or {}).items()},
                            None if absent is None else Status(Code[absent]))
    snapshot = cluster.snapshot
    got = sorted(snapshot.names[r] for r in statuses.nodes_for_status_code(snapshot, Code[case["other"]["code"]]))
    check(diffs, "nodes", got, sorted(case["expected"]["other"]["nodes"]))


# -- fit-error -------------------------------------------------------------------------------
def _stage_fit_error(case: dict, diffs: list[str]) -> None:
    from kschedlab.conformance.schedule_one_doubles import status_of
    from kschedlab.framework.diagnosis import Diagnosis
    from kschedlab.framework.status import Status

    other = case["other"]
    spec = other.get("diagnosis") or {}
    statuses = spec.get("nodeToStatus") or {}
    by_node = statuses.get("byNode") or {}
    diagnosis = Diagnosis(int(other["numAllNodes"]))
    counts: dict[str, int] = {}
    for status in by_node.values():
        for reason in status.get("reasons") or ():
            counts[reason] = counts.get(reason, 0) + 1
    diagnosis.add_counts(counts, len(by_node))
    absent = statuses.get("absent")
    diagnosis.absent_status = status_of(absent) if absent is not None else Status.unresolvable()
    diagnosis.prefilter_msg = spec.get("preFilterMsg") or ""
    diagnosis.postfilter_msg = spec.get("postFilterMsg") or ""
    check(diffs, "message", diagnosis.message(), case["expected"]["other"]["message"])


STAGES: dict[str, Callable] = {
    "num-feasible-nodes": _stage_num_feasible_nodes,
    "schedule-pod": _stage_schedule_pod,
    "prioritize-nodes": _stage_prioritize_nodes,
    "schedule-one": _stage_schedule_one,
    "nodes-for-status-code": _stage_nodes_for_status_code,
    "fit-error": _stage_fit_error,
}
