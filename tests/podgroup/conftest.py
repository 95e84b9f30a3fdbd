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

import pytest

from kschedlab.api.loader import load_objects
from kschedlab.cluster import Cluster
from kschedlab.conformance import podgroup_doubles as doubles
from kschedlab.framework.status import Code, Status
from kschedlab.scheduler import Scheduler
from kschedlab.scheduler.podgroup.algorithm import PodGroupAlgorithm, PodGroupInfo

NS = "default"
TEST_SCHEDULER = "test-scheduler"

DEFAULT_FAKE_FILTER_FAILURE = doubles.DEFAULT_FAKE_FILTER_FAILURE
DEFAULT_FAKE_PG_POST_FILTER_FAILURE = doubles.DEFAULT_FAKE_PG_POST_FILTER_FAILURE
INJECTED_FEASIBLE = doubles.INJECTED_FEASIBLE

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


# -- fake plugins (kschedlab.conformance.podgroup_doubles, statuses given as shorthand) ----------------
def fake_pod_group_plugin(filter_status: dict | None = None, *, post_filter_status=None,
                          nominations: dict | None = None, name: str = "FakePodGroupPlugin"):
    """``fakePodGroupPlugin`` (:func:`~kschedlab.conformance.podgroup_doubles.fake_pod_group_plugin`)."""
    return doubles.fake_pod_group_plugin({k: status(v) for k, v in (filter_status or {}).items()},
                                         post_filter_status=status(post_filter_status), nominations=nominations,
                                         name=name)


def fake_placement_feasible(statuses: list[list] | None = None, name: str = "FakePlacementFeasible"):
    """``fakePlacementFeasiblePlugin``: a code name answers with "injected placementFeasible
    status"; a tuple ``(code, *reasons)`` answers exactly that status (our extension, to
    script the group status the submit rows start from)."""
    return doubles.fake_placement_feasible(
        [[e if isinstance(e, str) else status(e) for e in seq] for seq in (statuses or [])], name=name)


def fake_placement_plugin(*, filter_status: dict | None = None, generate: dict | None = None,
                          generate_status: dict | None = None, scores: dict | None = None,
                          score_status: dict | None = None, pod_per_node: bool = False,
                          name: str = "FakePlacementPlugin", ordered: bool = True):
    """``fakePlacementPlugin`` (:func:`~kschedlab.conformance.podgroup_doubles.fake_placement_plugin`)."""
    return doubles.fake_placement_plugin(
        filter_status={k: status(v) for k, v in (filter_status or {}).items()}, generate=generate,
        generate_status={k: status(v) for k, v in (generate_status or {}).items()}, scores=scores,
        score_status={k: {p: status(s) for p, s in v.items()} for k, v in (score_status or {}).items()},
        pod_per_node=pod_per_node, name=name, ordered=ordered)


def fake_score_plugin(name: str, scores: dict, score_status: dict | None = None):
    return doubles.fake_score_plugin(
        name, scores, {k: {p: status(s) for p, s in v.items()} for k, v in (score_status or {}).items()})

