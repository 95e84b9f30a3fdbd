"""Conformance stages for the PodGroup scheduling cycle (``shared/CASES.md``, "Pod group cycle
stages"), called by :mod:`kschedlab.conformance.runner`. Each drives kschedlab's own cycle
(:mod:`kschedlab.scheduler.podgroup`), the scheduler's view of groups
(:mod:`kschedlab.framework.podgroups`, :mod:`kschedlab.framework.hierarchy_tracker`) or the
TopologyPlacementGenerator plugin, with upstream's test doubles
(:mod:`.podgroup_doubles`) built from ``fakePlugins`` / ``realPlugins`` / ``profile``.

Conventions (as CASES.md states them): the queued group is ``target`` (a group key or
``{kind, namespace, name, children?}``; kschedlab evaluates children by group key, so listed
``children`` must be in that order), else ``podGroups[0]``; ``pendingPods`` are queued in the order listed; statuses are ``{code,
message?, plugin?}`` compared as upstream's ``statusCmpOpt`` (Success equals nil, Error by
message, other codes by code, plugin and message — an expected status without ``plugin``
does not assert it, one without ``message`` asserts its code only). Feature gates: the case's ``featureGates`` over GenericWorkload on.

Stages and their extra input keys (beyond CASES.md):

``podgroup-algorithm`` / ``podgroup-placement-algorithm``
    ``RunRootSchedulingAlgorithm`` on the snapshot; a pod result lists ``pod``,
    ``suggestedHost``, ``status`` and, when asserted, ``evaluatedNodes`` / ``feasibleNodes``
    (the keys an expected pod result lists are compared); ``metrics`` counts the placements
    generated and the evaluations by result (an evaluation ending in Error counts in neither).
``placement-select``
    ``scorePlugins [{name, weight, scores}]`` are PlacementScore fakes; the generator is a
    ``FakePlacementPlugin`` of ``placements`` (ordered by name).
``cpg-proposed-assignments``
    ``findBestCompositePodGroupPlacement``'s assignments: :func:`~kschedlab.scheduler.podgroup.algorithm.proposed_assignments`
    over :func:`~kschedlab.scheduler.podgroup.algorithm.successful_leaves` of each placement's results.
``podgroup-submit``
    :func:`~kschedlab.scheduler.podgroup.cycle.submit_pod_group_result` of the given algorithm
    result; ``podsInActiveQueue`` are the pods rejected while their group succeeded (the
    failure handler sends them straight back to activeQ); ``nominatingInfo
    {nominatedNodeName, mode}`` with a node makes the pod preempting.
``podgroup-cycle`` / ``podgroup-schedule-one``
    :meth:`Scheduler.schedule_pod_group <kschedlab.scheduler.schedule_one.Scheduler.schedule_pod_group>`;
    ``incompletePodGroupPods`` (queue bookkeeping) is not modelled.
``podgroup-skip``
    ``skipPodGroupPodSchedule``; ``assumedPods`` (names of pending pods) are assumed on the first node.
``helper:GetPodGroupStates``
    ``faultyKeys``: group keys whose state lookup fails (upstream's ``fakeSharedLister``).
``hierarchy-tracker`` / ``hierarchy-root-readiness``
    ``compositePodGroupEnabled`` (default true); the root-readiness stage reads ``pods`` and
    ``lookupKey``.
``topology-scheduled-domain``
    the placed ``existingPods`` in order; ``topologyKey``.
``scheduler:numFeasiblePlacementsToFind``
    :func:`~kschedlab.scheduler.podgroup.algorithm.num_feasible_placements_to_find` of
    ``percentageOfPlacementsToScore`` (0: adaptive), ``numPlacements`` and ``numNodes`` (the
    nodes summed over the generated placements); ``expected.other.numPlacementsToFind``.

>>> case = {"id": "x", "stage": "helper:MatchingSchedulingGroup", "plugin": "helper",
...         "pod": {"metadata": {"name": "a", "namespace": "t"}, "spec": {"schedulingGroup": {"podGroupName": "g"}}},
...         "pod2": {"metadata": {"name": "b", "namespace": "t"}, "spec": {"schedulingGroup": {"podGroupName": "g"}}},
...         "expected": {"other": {"result": True}}}
>>> diffs = []; STAGES[case["stage"]](case, diffs); diffs
[]
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from kschedlab.conformance.compare import Mismatch, check, equal
from kschedlab.conformance.podgroup import group_objects
from kschedlab.conformance.podgroup_doubles import case_status, registry_and_profile
from kschedlab.framework.status import Code, Status

__all__ = ["STAGES"]

TEST_SCHEDULER = "test-scheduler"


# -- shared ------------------------------------------------------------------------------------
def _other(case: dict) -> dict:
    return (case.get("expected") or {}).get("other") or {}


def _gates(case: dict) -> dict:
    return {"GenericWorkload": True, **(case.get("featureGates") or {})}


def _pod(data: dict):
    from kschedlab.api.core import Pod

    return Pod.model_validate(data)


def _cluster(case: dict, pods_key: str = "pendingPods"):
    from kschedlab.api.core import Node
    from kschedlab.cluster import Cluster

    cluster = Cluster()
    for node in case.get("nodes") or []:
        cluster.add(Node.model_validate(node))
    for group in group_objects(case):
        cluster.add(group)
    for data in [*(case.get("existingPods") or []), *(case.get(pods_key) or [])]:
        cluster.add(_pod(data))
    return cluster


def _key_of(pod) -> str:
    from kschedlab.framework.types import pod_key

    return pod_key(pod)


def _target(case: dict) -> str:
    """The queued group's key: ``target`` (a key or ``{kind, namespace, name}``), else
    ``podGroups[0]``, else the group of the first pending pod."""
    from kschedlab.api.podgroup import composite_pod_group_key, pod_group_key

    target = case.get("target")
    if isinstance(target, str):
        return target
    if isinstance(target, dict):
        make = composite_pod_group_key if target.get("kind") == "CompositePodGroup" else pod_group_key
        return make(target.get("namespace") or "", target["name"])
    groups = group_objects(case)
    if groups:
        return groups[0].group_key
    pod = _pod((case.get("pendingPods") or [])[0])
    return pod_group_key(pod.metadata.namespace or "", pod.spec.scheduling_group.pod_group_name)


def _check_children(case: dict, info) -> None:
    """A ``target`` listing its ``children`` (names, or ``{child: [grandchildren]}``) must list
    them in the order kschedlab evaluates them (by group key): the order is not an input here."""
    target = case.get("target")
    if not isinstance(target, dict) or "children" not in target:
        return

    def check_level(spec, group, path):
        got = [c.name for c in group.children]
        if got != list(spec):
            raise Mismatch(f"target.children{path}: kschedlab evaluates {got} (by group key), the case lists "
                           f"{list(spec)}")
        if isinstance(spec, dict):
            for child in group.children:
                check_level(spec[child.name] or [], child, f"{path}.{child.name}")

    check_level(target["children"], info, "")


def _scheduler(case: dict, cluster, registry: dict, profile: dict):
    from kschedlab.scheduler import Scheduler

    return Scheduler(cluster, {"profiles": [profile]}, registry=registry, gates=_gates(case), seed=0)


def _status_out(status: Status | None) -> dict:
    status = status or Status()
    out = {"code": status.code.name}
    if status.message():
        out["message"] = status.message()
    if status.plugin and not status.is_success():
        out["plugin"] = status.plugin
    return out


def _status_equal(got: Status | None, want: dict | None) -> bool:
    """``statusCmpOpt``: Success equals nil, Error by message, other codes by code, plugin
    (when the expected status names one) and message; an expected status without a
    ``message`` key asserts its code (and plugin) only, as upstream rows comparing codes do."""
    got = got or Status()
    want_status = case_status(want)
    if got.code != want_status.code:
        return False
    if got.is_success():
        return True
    if got.code != Code.Error and (want or {}).get("plugin") and got.plugin != want["plugin"]:
        return False
    return "message" not in (want or {}) or got.message() == want_status.message()


def _check_status(diffs: list[str], what: str, got: Status | None, want: dict | None) -> None:
    if not _status_equal(got, want):
        diffs.append(f"{what}: got {_status_out(got)}, want {want}")


def _algorithm(case: dict):
    """Cluster, the algorithm's metrics and the results of ``RunRootSchedulingAlgorithm`` for
    the target."""
    from kschedlab.framework.podgroups import PodGroupInfo
    from kschedlab.scheduler.podgroup.algorithm import PodGroupAlgorithm

    cluster = _cluster(case)
    registry, profile = registry_and_profile(case, TEST_SCHEDULER)
    sched = _scheduler(case, cluster, registry, profile)
    pending = [_key_of(_pod(p)) for p in case.get("pendingPods") or []]
    info = PodGroupInfo.build(cluster, _target(case), pending, composite=sched.gates.enabled("CompositePodGroup"))
    _check_children(case, info)
    algorithm = PodGroupAlgorithm(sched, sched.profiles[TEST_SCHEDULER])
    results = algorithm.run_root(info)
    if cluster.snapshot.pod_row:
        raise Mismatch(f"the algorithm left pods in the snapshot: {sorted(cluster.snapshot.pod_row)}")
    return cluster, algorithm.metrics, results


def _pod_result(pr) -> dict:
    """One pod's ``algorithmResult`` as upstream's ScheduleResult holds it: the node counts only
    with a host (a pod that fits nowhere gets an empty ScheduleResult and a FitError)."""
    out = {"pod": pr.pod_info.name, "suggestedHost": pr.node or "", "status": _status_out(pr.status),
           "evaluatedNodes": 0, "feasibleNodes": 0}
    if pr.trace is not None and pr.node:
        out["evaluatedNodes"], out["feasibleNodes"] = pr.trace.evaluated_nodes, pr.trace.feasible_nodes
    return out


def _check_pod_results(diffs: list[str], what: str, got_results, want: list) -> None:
    got = [_pod_result(pr) for pr in got_results]
    if len(got) != len(want):
        diffs.append(f"{what}: got {len(got)} pod results {[g['pod'] for g in got]}, want {len(want)}")
        return
    for i, (g, w) in enumerate(zip(got, want)):
        for key, value in w.items():
            if key == "status":
                _check_status(diffs, f"{what}[{i}].status", next(pr for pr in got_results
                                                                 if pr.pod_info.name == g["pod"]).status, value)
            elif not equal(g.get(key), value):
                diffs.append(f"{what}[{i}].{key}: got {g.get(key)!r}, want {value!r}")


# -- the algorithm --------------------------------------------------------------------------------
def stage_podgroup_algorithm(case: dict, diffs: list[str]) -> None:
    """``podgroup-algorithm``: the root's code and each evaluated pod's code and host."""
    _, _, results = _algorithm(case)
    root = results[_target(case)]
    want = _other(case)
    check(diffs, "groupCode", root.status.code.name, want.get("groupCode") or "Success")
    got = {pr.pod_info.name: {"code": pr.status.code.name, "suggestedHost": pr.node or ""} for pr in root.pods}
    check(diffs, "podResults", got, want.get("podResults") or {})


def stage_podgroup_placement_algorithm(case: dict, diffs: list[str]) -> None:
    """``podgroup-placement-algorithm``: every listed group's status and pod results."""
    want = _other(case)
    _, metrics, results = _algorithm(case)
    if "metrics" in want:
        check(diffs, "metrics", metrics, want["metrics"])
    expected = want.get("results") or {}
    if want.get("resultKeysExact"):
        check(diffs, "results keys", sorted(results), sorted(expected))
    for key, w in expected.items():
        result = results.get(key)
        if result is None:
            diffs.append(f"results[{key}]: no result")
            continue
        _check_status(diffs, f"results[{key}].status", result.status, w.get("status"))
        if "podResults" in w:
            _check_pod_results(diffs, f"results[{key}].podResults", result.pods, w["podResults"])


def stage_placement_select(case: dict, diffs: list[str]) -> None:
    """``placement-select``: the host of every pod once the best placement is chosen."""
    from kschedlab.conformance.podgroup_doubles import fake_placement_plugin, fake_score_plugin
    from kschedlab.framework.podgroups import PodGroupInfo
    from kschedlab.scheduler.podgroup.algorithm import PodGroupAlgorithm

    target = _target(case)
    placements = case.get("placements") or {}
    if placements and all(isinstance(v, list) for v in placements.values()):
        placements = {target: placements}
    registry, profile = registry_and_profile(dict(case, fakePlugins=[]), TEST_SCHEDULER)
    registry["FakeGeneratorPlugin"] = fake_placement_plugin(generate=placements, name="FakeGeneratorPlugin")
    plugins = profile["plugins"]
    plugins["placementGenerate"] = {"enabled": [{"name": "FakeGeneratorPlugin"}]}
    scorers = []
    for i, spec in enumerate(case.get("scorePlugins") or []):
        name = spec.get("name") or f"FakeScorePlugin[{i}]"
        scores = spec.get("scores") or {}
        if scores and all(isinstance(v, int) for v in scores.values()):
            scores = {target: scores}
        registry[name] = fake_score_plugin(name, scores)
        scorers.append({"name": name, "weight": int(spec.get("weight") or 1)})
    plugins["placementScore"] = {"enabled": scorers}
    cluster = _cluster(case)
    sched = _scheduler(case, cluster, registry, profile)
    pending = [_key_of(_pod(p)) for p in case.get("pendingPods") or []]
    info = PodGroupInfo.build(cluster, target, pending, composite=sched.gates.enabled("CompositePodGroup"))
    results = PodGroupAlgorithm(sched, sched.profiles[TEST_SCHEDULER]).run_root(info)
    hosts = {pr.pod_info.name: pr.node or "" for r in results.values() for pr in r.pods}
    want = _other(case)
    check(diffs, "suggestedHosts", hosts, want.get("suggestedHosts") or {})
    if "selectedPlacement" in want:
        root = results[target]
        check(diffs, "selectedPlacement", root.placement.name if root.placement is not None else "",
              want["selectedPlacement"])


def stage_cpg_proposed_assignments(case: dict, diffs: list[str]) -> None:
    """``cpg-proposed-assignments``: what PlacementScore is shown for each placement."""
    from kschedlab.framework.placement import Placement
    from kschedlab.framework.podgroups import PodGroupInfo
    from kschedlab.framework.types import PodInfo
    from kschedlab.scheduler.podgroup.algorithm import GroupResult, PodResult, proposed_assignments, successful_leaves

    def tree(node: dict, ns: str = "default") -> PodGroupInfo:
        kids = node.get("children") or []
        kind = "compositepodgroup" if kids or node.get("kind") == "CompositePodGroup" else "podgroup"
        return PodGroupInfo(f"{kind}/{ns}/{node['name']}", None, children=[tree(k, ns) for k in kids])

    root = tree(case["tree"])
    by_name = {g.name: g for g in root.all_groups()}
    got = {}
    for placement, groups in (case.get("placementResults") or {}).items():
        results = {}
        for name, r in groups.items():
            info = by_name[name]
            pods = [PodResult(PodInfo.of(_pod({"metadata": {"name": p["pod"], "namespace": info.namespace}})),
                              p.get("node") or None, case_status(p.get("status"))) for p in r.get("podResults") or []]
            results[info.key] = GroupResult(info, case_status(r.get("status")), pods)
        assignments = proposed_assignments(Placement(placement, np.zeros(0, np.int64)),
                                           list(successful_leaves(root, results)))
        got[placement] = {pi.name: node for pi, node in assignments.proposed}
    want = _other(case).get("assignmentsByPlacement") or {}
    if got != want:
        diffs.append(f"assignmentsByPlacement: got {got}, want {want}")


# -- the cycle ------------------------------------------------------------------------------------
def stage_podgroup_submit(case: dict, diffs: list[str]) -> None:
    """``podgroup-submit``: bound, failed, preempting pods and the condition."""
    from kschedlab.framework.interface import CycleState
    from kschedlab.framework.podgroups import PodGroupInfo
    from kschedlab.framework.trace import CycleTrace
    from kschedlab.scheduler.podgroup.algorithm import GroupResult, PodResult
    from kschedlab.scheduler.podgroup.cycle import PodGroupCycleResult, submit_pod_group_result

    cluster = _cluster(case)
    registry, profile = registry_and_profile(case, TEST_SCHEDULER)
    sched = _scheduler(case, cluster, registry, profile)
    pending = [_key_of(_pod(p)) for p in case.get("pendingPods") or []]
    key = _target(case)
    info = PodGroupInfo.build(cluster, key, pending, composite=False)
    algo = case["algorithmResult"]
    by_name = algo.get("podResults") or {}
    missing = [pi.name for pi in info.pods if pi.name not in by_name]
    if missing:
        raise Mismatch(f"algorithmResult.podResults: no entry for {missing}; kschedlab's cycle completes every "
                       f"pod's result before submitting, so a short result is not modelled")
    result = GroupResult(info, case_status(algo.get("status")),
                         waiting_on_preemption=bool(algo.get("waitingOnPreemption")))
    for pi in info.pods:
        r = by_name[pi.name]
        trace = CycleTrace(pi.key, TEST_SCHEDULER, cluster.snapshot.node_names())
        result.pods.append(PodResult(pi, r.get("suggestedHost") or None, case_status(r.get("status")), CycleState(),
                                     trace))
        nominated = (r.get("nominatingInfo") or {}).get("nominatedNodeName")
        if nominated and result.waiting_on_preemption:
            result.nominations[pi.key] = nominated
    fw = sched.profiles[TEST_SCHEDULER]
    out = PodGroupCycleResult(info, result.status)
    submit_pod_group_result(sched, fw, info, result, out)
    bound = sorted(pi.name for pi in info.pods if cluster.pods[pi.key].spec.node_name)
    rejected = [pi for pi in info.pods if not cluster.pods[pi.key].spec.node_name]
    preempting = {pi.name: result.nominations[pi.key] for pi in rejected if pi.key in result.nominations}
    failed = sorted(pi.name for pi in rejected if pi.name not in preempting)
    active = sorted(pi.name for pi in rejected if result.status.is_success())
    want = _other(case)
    check(diffs, "bound", bound, sorted(want.get("bound") or []))
    check(diffs, "failed", failed, sorted(want.get("failed") or []))
    check(diffs, "preempting", preempting, want.get("preempting") or {})
    check(diffs, "podsInActiveQueue", active, sorted(want.get("podsInActiveQueue") or []))
    _check_condition(diffs, info.obj, want.get("podGroupCondition"))


def _check_condition(diffs: list[str], pg, want: dict | None) -> None:
    cond = pg.condition() if pg is not None else None
    got = None if cond is None else {k: v for k, v in cond.model_dump(by_alias=True, exclude_none=True,
                                                                     mode="json").items()
                                     if k not in ("lastTransitionTime", "observedGeneration")}
    check(diffs, "podGroupCondition", got, {k: v for k, v in (want or {}).items()
                                            if k not in ("lastTransitionTime", "observedGeneration")} or None)


def stage_podgroup_cycle(case: dict, diffs: list[str]) -> None:
    """``podgroup-cycle``: which pods reach the failure handler (and with which message),
    which are bound, how many results the algorithm gave, whether PodGroupPostFilter ran."""
    cluster = _cluster(case)
    registry, profile = registry_and_profile(case, TEST_SCHEDULER)
    sched = _scheduler(case, cluster, registry, profile)
    pending = [_key_of(_pod(p)) for p in case.get("pendingPods") or []]
    out = sched.schedule_pod_group(_target(case), pending or None)
    name = {pk: pk.rsplit("/", 1)[-1] for pk in pending}
    failed = {name.get(r.pod, r.pod): r.message for r in out.pod_results if r.node is None}
    bound = sorted(name.get(r.pod, r.pod) for r in out.pod_results if r.node is not None)
    want = _other(case)
    if isinstance(want.get("failed"), dict):
        check(diffs, "failed", failed, want["failed"])
    elif "failed" in want:
        check(diffs, "failed", sorted(failed), sorted(want["failed"]))
    for pod in want.get("notFailed") or []:
        if pod in failed:
            diffs.append(f"notFailed: {pod} reached the failure handler ({failed[pod]!r})")
    if "bound" in want:
        check(diffs, "bound", bound, sorted(want["bound"]))
    if "algorithmPodResultsCount" in want:
        check(diffs, "algorithmPodResultsCount", out.algorithm_pod_results, want["algorithmPodResultsCount"])
    if "podGroupPostFilterCalled" in want:
        called = any(getattr(cls, "calls", None) for cls in registry.values())
        check(diffs, "podGroupPostFilterCalled", called, want["podGroupPostFilterCalled"])


def stage_podgroup_schedule_one(case: dict, diffs: list[str]) -> None:
    """``podgroup-schedule-one``: the PodGroup's condition after one cycle."""
    from kschedlab.scheduler import Scheduler

    want = _other(case)
    if want.get("incompletePodGroupPods"):
        raise Mismatch("incompletePodGroupPods: the queue's incomplete PodGroup pods are not modelled")
    cluster = _cluster(case)
    profiles = [{"schedulerName": n} for n in case.get("profiles") or [TEST_SCHEDULER]]
    sched = Scheduler(cluster, {"profiles": profiles}, gates=_gates(case))
    key = _target(case)
    sched.schedule_pod_group(key, [_key_of(_pod(p)) for p in case.get("pendingPods") or []] or None)
    from kschedlab.framework.podgroups import get_pod_group, parse_key

    _, ns, name = parse_key(key)
    _check_condition(diffs, get_pod_group(cluster, ns, name), want.get("podGroupCondition"))


def stage_podgroup_skip(case: dict, diffs: list[str]) -> None:
    """``podgroup-skip``: the pods left in the cycle after the deleted and assumed ones leave."""
    from kschedlab.framework.podgroups import PodGroupInfo
    from kschedlab.scheduler.podgroup.cycle import skip_pod_group_pods

    cluster = _cluster(case)
    pending = [_key_of(_pod(p)) for p in case.get("pendingPods") or []]
    info = PodGroupInfo.build(cluster, _target(case), pending, composite=False)
    info.pods = [cluster.pod_infos[k] for k in pending]  # queued as popped, whatever their state
    node = cluster.snapshot.names[0]
    by_name = {pi.name: pi for pi in info.pods}
    for name in case.get("assumedPods") or []:
        cluster.snapshot.add_pod(by_name[name], node)
    skip_pod_group_pods(cluster, info)
    check(diffs, "remainingPods", [pi.name for pi in info.pods], _other(case).get("remainingPods") or [])


# -- helpers and the hierarchy tracker --------------------------------------------------------------
def stage_matching_scheduling_group(case: dict, diffs: list[str]) -> None:
    from kschedlab.framework.podgroups import matching_scheduling_group

    check(diffs, "result", matching_scheduling_group(_pod(case["pod"]), _pod(case["pod2"])),
          _other(case).get("result", False))


class _FaultyLookups(dict):
    """A kind's objects whose lookups by key fail for some keys (upstream's ``fakeSharedLister``),
    listing them still."""

    def __init__(self, objects: dict, faulty: set):
        super().__init__(objects)
        self.faulty = faulty

    def get(self, key, default=None):
        return default if key in self.faulty else super().get(key, default)


def stage_get_pod_group_states(case: dict, diffs: list[str]) -> None:
    from kschedlab.framework.podgroups import get_pod_group_states, parse_key

    cluster = _cluster(case)
    faulty: dict[str, set] = {"PodGroup": set(), "CompositePodGroup": set()}
    for key in case.get("faultyKeys") or []:
        kind, ns, name = parse_key(key)
        faulty["CompositePodGroup" if kind == "compositepodgroup" else "PodGroup"].add(f"{ns}/{name}" if ns else name)
    for kind, keys in faulty.items():
        if keys:
            cluster.objects[kind] = _FaultyLookups(cluster.objects.get(kind) or {}, keys)
    got, errors = set(), 0
    for state, error in get_pod_group_states(cluster, case["rootKey"]):
        if error is not None:
            errors += 1
        else:
            got.add(state.all[0].rsplit("/", 1)[-1])  # each PodGroup holds one pod named after it
    want = _other(case)
    check(diffs, "podGroups", sorted(got), sorted(want.get("podGroups") or []))
    check(diffs, "errorCount", errors, want.get("errorCount", 0))


def _tracked(data: dict):
    """A step's object by its kind."""
    from kschedlab.conformance.compare import pod_group_model

    if (data.get("kind") or "Pod") == "Pod":
        return _pod(data)
    return pod_group_model(data, "steps[].obj").model_validate(data)


def stage_hierarchy_tracker(case: dict, diffs: list[str]) -> None:
    """``hierarchy-tracker``: ReadyChildrenCount of the listed keys after each step."""
    from kschedlab.framework.hierarchy_tracker import HierarchyTracker

    tracker = HierarchyTracker(bool(case.get("compositePodGroupEnabled", True)))
    want_steps = _other(case).get("readyCountsAfterStep") or []
    for i, step in enumerate(case.get("steps") or []):
        op = step["op"]
        obj = _tracked(step["obj"]) if step.get("obj") is not None else None
        if op == "addPod":
            tracker.add_pod(obj)
        elif op == "updatePod":
            tracker.update_pod(_tracked(step["oldObj"]) if step.get("oldObj") else None, obj)
        elif op == "deletePod":
            tracker.delete_pod(obj)
        elif op in ("addPG", "addCPG", "updatePG", "updateCPG"):
            tracker.add_group(obj)
        elif op in ("deletePG", "deleteCPG"):
            tracker.delete_group(obj)
        else:
            raise Mismatch(f"steps[{i}].op: unknown op {op!r}")
        for key, count in (want_steps[i] if i < len(want_steps) else {}).items():
            got = tracker.ready_children_count(key)
            if got != count:
                diffs.append(f"step {i} ({op}): ReadyChildrenCount({key}) = {got}, want {count}")


def stage_hierarchy_root_readiness(case: dict, diffs: list[str]) -> None:
    """``hierarchy-root-readiness``: FindRootGroupReadiness after adding the groups, then the pods."""
    from kschedlab.framework.hierarchy_tracker import HierarchyDepthError, HierarchyTracker

    tracker = HierarchyTracker(bool(case.get("compositePodGroupEnabled", True)))
    for group in group_objects(case):
        tracker.add_group(group)
    for pod in case.get("pods") or []:
        tracker.add_pod(_pod(pod))
    want = _other(case)
    try:
        readiness = tracker.find_root_group_readiness(case["lookupKey"])
    except HierarchyDepthError as err:
        check(diffs, "error", str(err), want.get("error", ""))
        return
    if want.get("error"):
        diffs.append(f"error: got none, want {want['error']!r}")
        return
    if want.get("nilRoot"):
        if readiness is not None:
            diffs.append(f"nilRoot: got root {readiness.root_group.metadata.name!r}")
        return
    if readiness is None:
        diffs.append("rootName: got no root")
        return
    check(diffs, "rootName", readiness.root_group.metadata.name, want.get("rootName"))
    check(diffs, "readyChildren", readiness.ready_children, want.get("readyChildren", 0))


def stage_topology_scheduled_domain(case: dict, diffs: list[str]) -> None:
    """``topology-scheduled-domain``: the one domain of the placed pods, or an error."""
    from kschedlab.plugins.topology_placement import scheduled_pods_topology_domain

    cluster = _cluster(case)
    keys = [_key_of(_pod(p)) for p in case.get("existingPods") or []]
    domain, error = scheduled_pods_topology_domain(cluster, keys, case["topologyKey"])
    want = _other(case)
    if want.get("error"):
        if error is None:
            diffs.append(f"error: got none (domain {domain!r}), want an error")
        return
    if error is not None:
        diffs.append(f"error: got {error!r}, want domain {want.get('domain')!r}")
        return
    check(diffs, "domain", domain, want.get("domain"))


def stage_num_feasible_placements_to_find(case: dict, diffs: list[str]) -> None:
    from kschedlab.scheduler.podgroup.algorithm import num_feasible_placements_to_find

    got = num_feasible_placements_to_find(int(case.get("percentageOfPlacementsToScore") or 0),
                                          int(case["numPlacements"]), int(case.get("numNodes") or 0))
    check(diffs, "numPlacementsToFind", got, _other(case).get("numPlacementsToFind"))


STAGES: dict[str, Callable] = {
    "podgroup-algorithm": stage_podgroup_algorithm,
    "podgroup-placement-algorithm": stage_podgroup_placement_algorithm,
    "placement-select": stage_placement_select,
    "cpg-proposed-assignments": stage_cpg_proposed_assignments,
    "podgroup-submit": stage_podgroup_submit,
    "podgroup-cycle": stage_podgroup_cycle,
    "podgroup-schedule-one": stage_podgroup_schedule_one,
    "podgroup-skip": stage_podgroup_skip,
    "helper:MatchingSchedulingGroup": stage_matching_scheduling_group,
    "helper:GetPodGroupStates": stage_get_pod_group_states,
    "hierarchy-tracker": stage_hierarchy_tracker,
    "hierarchy-root-readiness": stage_hierarchy_root_readiness,
    "topology-scheduled-domain": stage_topology_scheduled_domain,
    "scheduler:numFeasiblePlacementsToFind": stage_num_feasible_placements_to_find,
}
