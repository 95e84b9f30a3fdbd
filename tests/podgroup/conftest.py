"""Shared builders and fake plugins for the ports of upstream PodGroup-cycle tests.

The fakes follow the test doubles of upstream's ``algorithm_podgroup_test.go`` /
``schedule_one_podgroup_test.go`` in behaviour and strings (``fakePodGroupPlugin``,
``fakePlacementFeasiblePlugin``, ``fakePlacementPlugin``); the code is ours.

Test modules get this module through the ``pgkit`` fixture (no import of a conftest by
name, which would clash with the other ``conftest`` modules of the test tree).
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
import pytest

from kschedlab.api.loader import load_objects
from kschedlab.cluster import Cluster
from kschedlab.framework.interface import Plugin
from kschedlab.framework.status import Code, Status
from kschedlab.scheduler.podgroup.algorithm import PodGroupAlgorithm, PodGroupInfo
from kschedlab.framework.placement import Placement
from kschedlab.scheduler import Scheduler

NS = "default"
TEST_SCHEDULER = "test-scheduler"

#: fakePodGroupPlugin: Filter answer for a pod it has no entry for
DEFAULT_FAKE_FILTER_FAILURE = "default fake filter failure"
DEFAULT_FAKE_PG_POST_FILTER_FAILURE = "default fake podgroup postfilter failure"
#: fakePlacementFeasiblePlugin: the message of every injected non-success status
INJECTED_FEASIBLE = "injected placementFeasible status"

GATES_GW = {"GenericWorkload": True}
GATES_TAS = {"GenericWorkload": True, "TopologyAwareWorkloadScheduling": True}
GATES_TAS_CPG = {"GenericWorkload": True, "TopologyAwareWorkloadScheduling": True, "CompositePodGroup": True}


@pytest.fixture
def pgkit():
    """This module: builders (``node``, ``pod``, ``pod_group``, ...) and fake plugins."""
    return sys.modules[__name__]


# -- statuses as data ------------------------------------------------------------------------
def status(spec) -> Status | None:
    """``None`` -> None; ``"Unschedulable"`` -> that code without a reason;
    ``("Error", "msg")`` -> that code with the reason."""
    if spec is None or isinstance(spec, Status):
        return spec
    if isinstance(spec, str):
        return Status(Code[spec])
    code, *reasons = spec
    return Status(Code[code], tuple(reasons))


# -- API objects -----------------------------------------------------------------------------
def node(name: str, labels: dict | None = None, cpu: str = "100", pods: str = "110") -> dict:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": dict(labels or {})},
            "status": {"allocatable": {"cpu": cpu, "memory": "100Gi", "pods": pods}}}


def pod(name: str, group: str | None = None, *, ns: str = NS, scheduler: str | None = TEST_SCHEDULER,
        priority: int | None = None, node_name: str | None = None, nominated: str | None = None,
        cpu: str | None = None, terminating: bool = False, preemption_policy: str | None = None) -> dict:
    spec: dict[str, Any] = {"containers": [{"name": "c"}]}
    if cpu:
        spec["containers"][0]["resources"] = {"requests": {"cpu": cpu}}
    if group:
        spec["schedulingGroup"] = {"podGroupName": group}
    if scheduler:
        spec["schedulerName"] = scheduler
    if priority is not None:
        spec["priority"] = priority
    if preemption_policy:
        spec["preemptionPolicy"] = preemption_policy
    if node_name:
        spec["nodeName"] = node_name
    meta: dict[str, Any] = {"name": name, "namespace": ns}
    if terminating:
        meta["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    body: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}
    if node_name:
        body["status"] = {"phase": "Running"}
    if nominated:
        body["status"] = {"nominatedNodeName": nominated}
    return body


def _policy(min_count, basic, key):
    if min_count is not None:
        return {"gang": {key: min_count}}
    if basic:
        return {"basic": {}}
    return None


def pod_group(name: str, *, ns: str = NS, min_count: int | None = None, basic: bool = False,
              parent: str | None = None, priority: int | None = None, preemption_policy: str | None = None,
              topology: str | None = None, conditions: list | None = None, generation: int | None = None) -> dict:
    spec: dict[str, Any] = {}
    policy = _policy(min_count, basic, "minCount")
    if policy:
        spec["schedulingPolicy"] = policy
    if parent:
        spec["parentCompositePodGroupName"] = parent
    if priority is not None:
        spec["priority"] = priority
    if preemption_policy:
        spec["preemptionPolicy"] = preemption_policy
    if topology:
        spec["schedulingConstraints"] = {"topology": [{"key": topology}]}
    meta: dict[str, Any] = {"name": name, "namespace": ns}
    if generation is not None:
        meta["generation"] = generation
    body: dict[str, Any] = {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup", "metadata": meta,
                            "spec": spec}
    if conditions:
        body["status"] = {"conditions": conditions}
    return body


def composite(name: str, *, ns: str = NS, min_group_count: int | None = None, basic: bool = False,
              parent: str | None = None, topology: str | None = None) -> dict:
    spec: dict[str, Any] = {}
    policy = _policy(min_group_count, basic, "minGroupCount")
    if policy:
        spec["schedulingPolicy"] = policy
    if parent:
        spec["parentCompositePodGroupName"] = parent
    if topology:
        spec["schedulingConstraints"] = {"topology": [{"key": topology}]}
    return {"apiVersion": "scheduling.k8s.io/v1alpha3", "kind": "CompositePodGroup",
            "metadata": {"name": name, "namespace": ns}, "spec": spec}


def cluster(objs) -> Cluster:
    return Cluster(load_objects(list(objs)))


def assume(c: Cluster, pod_name: str, node_name: str, ns: str = NS) -> None:
    """Put a pod into the snapshot without a nodeName (the scheduler assumed it)."""
    c.snapshot.add_pod(c.pod_infos[f"{ns}/{pod_name}"], node_name)


def pg_key(name: str, ns: str = NS) -> str:
    return f"podgroup/{ns}/{name}"


def cpg_key(name: str, ns: str = NS) -> str:
    return f"compositepodgroup/{ns}/{name}"


# -- profiles and schedulers -------------------------------------------------------------------
def profile(name: str = TEST_SCHEDULER, **points) -> dict:
    """Only the given plugins (``tf.NewFramework``): queue sort and binder added; ``points`` maps an
    extension point to names or ``(name, weight)`` pairs."""
    plugins: dict = {"multiPoint": {"disabled": [{"name": "*"}]},
                     "queueSort": {"enabled": [{"name": "PrioritySort"}]},
                     "bind": {"enabled": [{"name": "DefaultBinder"}]}}
    for point, entries in points.items():
        plugins[point] = {"enabled": [{"name": e[0], "weight": e[1]} if isinstance(e, tuple) else {"name": e}
                                      for e in entries]}
    return {"schedulerName": name, "plugins": plugins}


def scheduler(c: Cluster, profiles: list[dict] | dict, registry: dict | None = None, gates: dict | None = None,
              seed: int = 0) -> Scheduler:
    if isinstance(profiles, dict):
        profiles = [profiles]
    return Scheduler(c, {"profiles": profiles}, registry=registry or {}, gates=dict(gates or GATES_GW), seed=seed)


def run_algorithm(sched: Scheduler, root_key: str, profile_name: str = TEST_SCHEDULER):
    """``RunRootSchedulingAlgorithm`` for ``root_key``: (results by group key, the algorithm)."""
    info = PodGroupInfo.build(sched.cluster, root_key, composite=sched.gates.enabled("CompositePodGroup"))
    algo = PodGroupAlgorithm(sched, sched.profiles[profile_name])
    return algo.run_root(info), algo


def status_of(st: Status) -> tuple:
    """(code name, message) of a status."""
    return st.code.name, st.message()


# -- fake plugins --------------------------------------------------------------------------------
def fake_pod_group_plugin(filter_status: dict | None = None, *, post_filter_status=None,
                          nominations: dict | None = None, name: str = "FakePodGroupPlugin"):
    """``fakePodGroupPlugin``: Filter answers per pod name (a pod without an entry fails with
    "default fake filter failure"); PostFilter always fails; PodGroupPostFilter returns
    ``post_filter_status`` (default: Unschedulable "default fake podgroup postfilter failure")
    with ``nominations`` (pod name -> node) for the group's queued pods. ``calls`` records
    PodGroupPostFilter calls."""
    filters = {k: status(v) for k, v in (filter_status or {}).items()}
    pg_status = status(post_filter_status)
    noms = dict(nominations or {})

    class _Result:
        def __init__(self, nominations):
            self.nominations = nominations

    def filter_(self, state, pod_info, node_info):
        if pod_info.name in filters:
            return filters[pod_info.name] or Status()
        return Status.unschedulable(DEFAULT_FAKE_FILTER_FAILURE)

    def post_filter(self, state, pod_info, diagnosis):
        return None, Status.unschedulable("default fake postfilter failure")

    def pod_group_post_filter(self, state, group, pods, schedule):
        type(self).calls.append(group.key)
        if pg_status is None:
            return None, Status.unschedulable(DEFAULT_FAKE_PG_POST_FILTER_FAILURE)
        if not noms:
            return None, pg_status
        return _Result({pi.key: noms[pi.name] for pi in pods if noms.get(pi.name)}), pg_status

    return type("FakePodGroupPlugin", (Plugin,), {"name": name, "filter": filter_, "post_filter": post_filter,
                                                  "pod_group_post_filter": pod_group_post_filter, "calls": []})


def fake_placement_feasible(statuses: list[list[str]] | None = None, name: str = "FakePlacementFeasible"):
    """``fakePlacementFeasiblePlugin``: ``statuses[i][k]`` is the code answered for the i-th placement
    evaluated (counted over every group, a new one each time a group starts with nothing
    evaluated) after k of its pods (children for a CompositePodGroup) were evaluated; no entry
    means Success. A code name answers with "injected placementFeasible status" (upstream's
    fake); a tuple ``(code, *reasons)`` answers exactly that status (our extension, to script
    the group status the submit rows start from)."""
    table = [list(s) for s in (statuses or [])]
    key = "fakePlacementFeasible/placementIndex"

    def placement_feasible(self, state, group, scheduled, remaining):
        if not table:
            return Status()
        total = len(group.children) if group.kind == "CompositePodGroup" else len(group.pods)
        evaluated = total - remaining
        if evaluated == 0:
            type(self).placement_count += 1
        if key not in state:
            state[key] = type(self).placement_count - 1
        index = state[key]
        if index < len(table):
            if not table[index]:
                return Status()
            if evaluated < len(table[index]):
                entry = table[index][evaluated]
                if not isinstance(entry, str):  # (code, *reasons): exactly that status
                    return status(entry)
                code = Code[entry]
                return Status() if code == Code.Success else Status(code, (INJECTED_FEASIBLE,))
        return Status()

    return type("FakePlacementFeasible", (Plugin,), {"name": name, "placement_feasible": placement_feasible,
                                                     "placement_count": 0})


def fake_placement_plugin(*, filter_status: dict | None = None, generate: dict | None = None,
                          generate_status: dict | None = None, scores: dict | None = None,
                          score_status: dict | None = None, pod_per_node: bool = False,
                          name: str = "FakePlacementPlugin", ordered: bool = True):
    """``fakePlacementPlugin`` (with upstream's ``orderedPlacementPlugin`` wrapper when ``ordered``):
    Filter answers per node name (a reserved node fails with "<node> is already reserved" when
    ``pod_per_node``); PlacementGenerate returns, per group key, the placements ``{name: [nodes]}``
    restricted to the parent placement (empty ones dropped), sorted by name; PlacementScore returns
    ``scores[group key][placement name]`` (0 when absent) and ``score_status`` likewise."""
    filters = {k: status(v) for k, v in (filter_status or {}).items()}
    gen = {k: dict(v) for k, v in (generate or {}).items()}
    gen_status = {k: status(v) for k, v in (generate_status or {}).items()}
    score_map = {k: dict(v) for k, v in (scores or {}).items()}
    score_st = {k: {p: status(s) for p, s in v.items()} for k, v in (score_status or {}).items()}

    def filter_(self, state, pod_info, node_info):
        st = filters.get(node_info.name)
        if st is not None:
            return st
        if node_info.name in type(self).reserved:
            return Status.unschedulable(f"{node_info.name} is already reserved")
        return Status()

    def reserve(self, state, pod_info, node_name):
        if pod_per_node:
            type(self).reserved.add(node_name)
        return Status()

    def unreserve(self, state, pod_info, node_name):
        if pod_per_node:
            type(self).reserved.discard(node_name)

    def generate_placements(self, state, group, parent):
        snapshot = self.handle.cluster.snapshot
        parent_rows = set(int(r) for r in parent.rows)
        out = []
        for pname, nodes in gen.get(group.key, {}).items():
            rows = [snapshot.index[n] for n in nodes if n in snapshot.index and snapshot.index[n] in parent_rows]
            if rows:
                out.append(Placement(pname, np.asarray(rows, np.int64)))
        if ordered:
            out.sort(key=lambda p: p.name)
        return out, gen_status.get(group.key) or Status()

    def score_placement(self, state, group, assignments):
        value = score_map.get(group.key, {}).get(assignments.name, 0)
        return value, score_st.get(group.key, {}).get(assignments.name) or Status()

    return type("FakePlacementPlugin", (Plugin,), {
        "name": name, "filter": filter_, "reserve": reserve, "unreserve": unreserve,
        "generate_placements": generate_placements, "score_placement": score_placement, "reserved": set()})


def fake_score_plugin(name: str, scores: dict, score_status: dict | None = None):
    """A PlacementScore-only ``fakePlacementPlugin`` (``FakeScorePlugin[i]``)."""
    score_map = {k: dict(v) for k, v in scores.items()}
    score_st = {k: {p: status(s) for p, s in v.items()} for k, v in (score_status or {}).items()}

    def score_placement(self, state, group, assignments):
        return (score_map.get(group.key, {}).get(assignments.name, 0),
                score_st.get(group.key, {}).get(assignments.name) or Status())

    return type("FakeScorePlugin", (Plugin,), {"name": name, "score_placement": score_placement})


def assignment_recorder(name: str = "fake-assignment-recorder"):
    """``fakeAssignmentRecordingPlugin``: records ``{group key: {placement: {pod name: node}}}``
    of every PlacementScore call and scores 1."""
    def score_placement(self, state, group, assignments):
        type(self).seen.setdefault(group.key, {})[assignments.name] = {
            pi.name: node for pi, node in assignments.proposed}
        return 1, Status()

    return type("AssignmentRecorder", (Plugin,), {"name": name, "score_placement": score_placement, "seen": {}})
