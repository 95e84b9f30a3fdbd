"""DefaultPreemption and the preemption machinery.

* The stories of seed section 12 ("Пріоритет та Випередження Podʼів") on the
  scenarios of ``datasets/preemption/``, through the scheduler plus a small
  harness doing what upstream's ``handleSchedulingFailure`` does with the
  PostFilter result (set / clear ``status.nominatedNodeName``).
* Upstream tables that CASES.md cannot express (custom IsEligiblePod /
  MoreImportantPod hooks, args defaulting).
* Unit tests of the evaluator, executor, nominated-pods filtering and PDB helpers.
* Hypothesis properties: victims are strictly lower priority; after any
  preemption the preemptor fits on the nominated node once the victims are
  gone; every victim is needed; the dry run leaves the snapshot as it was.
"""

from __future__ import annotations

import copy
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from kschedlab.api.core import Node, Pod
from kschedlab.api.loader import load
from kschedlab.api.policy import PodDisruptionBudget
from kschedlab.apiserver.admission import admit
from kschedlab.cluster import Cluster
from kschedlab.conformance.preemption import preemption_fixtures
from kschedlab.controllers.workloads import expand
from kschedlab.eviction import disruption as pdbmod
from kschedlab.framework.interface import ArgsError, CycleState
from kschedlab.framework.preemption import (
    Candidate,
    NodeToStatus,
    PostFilterResult,
    Victims,
    _CandidateList,
    node_scratch,
    pick_one_node_for_preemption,
)
from kschedlab.framework.runtime import Framework
from kschedlab.framework.status import Code, Status
from kschedlab.framework.types import PodInfo
from kschedlab.plugins.default_preemption import (
    DefaultPreemption,
    default_args,
    filter_pods_with_pdb_violation,
    validate_args,
)
from kschedlab.scheduler import Scheduler

DATA = Path(__file__).resolve().parent.parent / "datasets" / "preemption"
SRC_DP = ("kubernetes/kubernetes@008b3652959ca58af8be3fb5b6ecfe9ae7638282 "
          "pkg/scheduler/framework/plugins/defaultpreemption/default_preemption_test.go")


# ------------------------------------------------------------------------------- harness
def scenario(name: str, edit=None):
    """(cluster, scheduler) of a dataset; ``edit(objects)`` may change the objects
    before admission.  PDB statuses are refreshed as the disruption controller would."""
    objects = load(DATA / name)
    if edit is not None:
        edit(objects)
    cluster = Cluster(admit(expand(objects)))
    pdbmod.refresh(cluster)
    return cluster, Scheduler(cluster)


def plugin_of(sched, key) -> DefaultPreemption:
    return sched.framework_for(sched.cluster.pods[key]).plugins["DefaultPreemption"]


def attempt(sched, key):
    """One scheduling attempt, then what upstream's handleSchedulingFailure does
    with the PostFilter result: Override sets (or, with "", clears) the pod's
    status.nominatedNodeName.  Returns (ScheduleResult, PreemptionRecord | None)."""
    plugin = plugin_of(sched, key)
    plugin.last_record = None
    result = sched.schedule_one(key)
    record = plugin.last_record
    if not result.scheduled and record is not None and record.result is not None \
            and record.result.nominating_mode == "Override":
        sched.cluster.pods[key].status.nominated_node_name = record.result.nominated_node_name or None
    return result, record


def victim_names(record) -> list[str]:
    return [k.split("/", 1)[1] for k in record.victims]


# ------------------------------------------------------------------- seed section 12 stories
def test_s12_preemption_nominates_the_node_and_the_next_attempt_binds_there():
    cluster, sched = scenario("12-preemption-basic.yaml")
    result, record = attempt(sched, "default/nginx")
    # this attempt still fails (the victims have to go first), with the Filter verdict only:
    # a successful PostFilter adds no message
    assert not result.scheduled
    assert result.message == "0/2 nodes are available: 2 Insufficient cpu."
    assert record.result == PostFilterResult("kube-01", "Override")
    assert sorted(c.name for c in record.candidates) == ["kube-01", "kube-02"]
    # kube-01's highest victim priority (1000) beats kube-02's (5000); on kube-01 the pod that
    # started later (low-2) is the one that has to go
    assert victim_names(record) == ["low-2"]
    assert "default/low-2" not in cluster.pods and "default/low-1" in cluster.pods
    victim = record.selected.victims.pods[0].pod
    cond = next(c for c in victim.status.conditions if c.type == "DisruptionTarget")
    assert (cond.status, cond.reason, cond.message) == (
        "True", "PreemptionByScheduler", "default-scheduler: preempting to accommodate a higher priority pod")
    # the seed: "поле nominatedNodeName статусу Podʼа P встановлюється на імʼя вузла N"
    assert cluster.pods["default/nginx"].status.nominated_node_name == "kube-01"
    result, _ = attempt(sched, "default/nginx")
    assert result.node == "kube-01"


def test_a_failed_attempt_keeps_no_per_node_statuses_after_postfilter():
    # PostFilter reads the per-node statuses; the kept result must not hold them for the run
    # (PreemptionBasic kept ~75 KB a failed attempt this way)
    cluster, sched = scenario("12-preemption-basic.yaml")
    result, record = attempt(sched, "default/nginx")
    assert record.result is not None and not result.scheduled
    assert getattr(result.diagnosis, "node_to_status", None) is None
    assert result.diagnosis.message() == "0/2 nodes are available: 2 Insufficient cpu."


def test_s12_victims_are_always_strictly_lower_priority():
    cluster, sched = scenario("12-preemption-basic.yaml")
    before = {k: info.priority for k, info in cluster.pod_infos.items()}
    _, record = attempt(sched, "default/nginx")
    assert record.victims and all(before[v] < before["default/nginx"] for v in record.victims)


def test_s12_non_preempting_priority_class_never_preempts():
    cluster, sched = scenario("12-non-preempting-priority-class.yaml")
    assert cluster.pods["default/data-science-job"].spec.preemption_policy == "Never"
    pods_before = set(cluster.pods)
    result, record = attempt(sched, "default/data-science-job")
    assert result.message == ("0/1 nodes are available: 1 Insufficient cpu. "
                              "preemption: not eligible due to preemptionPolicy=Never.")
    assert record.result is None and not record.victims
    assert set(cluster.pods) == pods_before
    assert cluster.pods["default/data-science-job"].status.nominated_node_name is None


def test_s12_pdb_respected_when_a_pdb_free_choice_exists():
    cluster, sched = scenario("12-pdb-respected.yaml")
    web_pdb = cluster.of_kind("PodDisruptionBudget")[0]
    assert (web_pdb.status.current_healthy, web_pdb.status.desired_healthy,
            web_pdb.status.disruptions_allowed) == (2, 2, 0)
    result, record = attempt(sched, "default/critical")
    violations = {c.name: c.victims.num_pdb_violations for c in record.candidates}
    assert violations == {"node-a": 2, "node-b": 0}
    # node-a's victims have the lower priority (100 < 200), but would break the budget
    assert record.result.nominated_node_name == "node-b"
    assert sorted(victim_names(record)) == ["batch-1", "batch-2"]
    assert {"default/web-1", "default/web-2"} <= set(cluster.pods)
    assert attempt(sched, "default/critical")[0].node == "node-b"


def test_s12_pdb_violated_when_no_pdb_free_choice_exists():
    cluster, sched = scenario("12-pdb-violated.yaml")
    _, record = attempt(sched, "default/critical")
    assert record.result.nominated_node_name == "node-a"
    assert victim_names(record) == ["web-2"]
    assert record.selected.victims.num_pdb_violations == 1
    pdbmod.refresh(cluster)  # the disruption controller notices the missing pod
    assert cluster.of_kind("PodDisruptionBudget")[0].status.current_healthy == 1


def test_s12_lowest_priority_pods_go_first():
    cluster, sched = scenario("12-lowest-priority-first.yaml")
    _, record = attempt(sched, "default/needs-2")
    assert victim_names(record) == ["p20", "p10"]  # most important first
    assert {"default/p30", "default/keeper"} <= set(cluster.pods)


def test_s12_lowest_priority_pod_alone_when_it_is_enough():
    def one_cpu(objects):
        pod = next(o for o in objects if o.metadata.name == "needs-2")
        from kschedlab.api.quantity import Quantity

        pod.spec.containers[0].resources.requests["cpu"] = Quantity("1")

    _, sched = scenario("12-lowest-priority-first.yaml", one_cpu)
    _, record = attempt(sched, "default/needs-2")
    assert victim_names(record) == ["p10"]


def test_s12_no_preemption_when_affinity_needs_the_lower_priority_pods():
    cluster, sched = scenario("12-affinity-to-lower-priority.yaml")
    result, record = attempt(sched, "default/frontend")
    assert result.message == ("0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: "
                              "1 node(s) didn't match pod affinity rules.")
    assert record.result == PostFilterResult("", "Override") and not record.victims
    assert {"default/cache", "default/filler"} <= set(cluster.pods)


def test_s12_affinity_to_equal_priority_pods_lets_preemption_work():
    def cache_critical(objects):
        next(o for o in objects if o.metadata.name == "cache").spec.priority_class_name = "critical-tier"

    cluster, sched = scenario("12-affinity-to-lower-priority.yaml", cache_critical)
    _, record = attempt(sched, "default/frontend")
    assert victim_names(record) == ["filler"]
    assert attempt(sched, "default/frontend")[0].node == "node-1"


def test_s12_no_cross_node_preemption():
    cluster, sched = scenario("12-no-cross-node-preemption.yaml")
    result, record = attempt(sched, "default/p")
    assert result.message == (
        "0/2 nodes are available: 1 node(s) didn't match pod anti-affinity rules, 1 node(s) had untolerated "
        "taint(s). preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, "
        "1 Preemption is not helpful for scheduling.")
    assert "default/q" in cluster.pods and not record.victims


def test_terminating_victims_block_second_preemption():
    """Graceful termination ("Відповідне завершення роботи жертв випередження"): while
    the victims terminate the preemptor waits on its nominated node instead of
    preempting more (upstream TestPreempt's second Preempt call)."""
    cluster, sched = scenario("12-preemption-basic.yaml")
    fw = sched.profiles["default-scheduler"]
    terminating = []

    def graceful_delete(key, info):  # the API server sets deletionTimestamp; kubelet has not finished
        info.pod.metadata.deletion_timestamp = datetime(2024, 1, 3, tzinfo=timezone.utc)
        terminating.append(key)

    fw.handle.extra["delete_pod"] = graceful_delete
    _, record = attempt(sched, "default/nginx")
    assert terminating == ["default/low-2"] and "default/low-2" in cluster.pods
    result, record = attempt(sched, "default/nginx")
    assert not result.scheduled
    assert result.message == ("0/2 nodes are available: 2 Insufficient cpu. "
                              "preemption: not eligible due to a terminating pod on the nominated node.")
    assert not record.victims and terminating == ["default/low-2"]
    assert cluster.pods["default/nginx"].status.nominated_node_name == "kube-01"  # Noop: kept
    cluster.remove_pod("default/low-2")  # the grace period is over
    assert attempt(sched, "default/nginx")[0].node == "kube-01"


def test_nominated_pods_keep_their_room_from_lower_priority_pods():
    """After nginx is nominated to kube-01, a lower-priority pod must not take the room
    preemption made (RunFilterPluginsWithNominatedPods); a higher-priority one may."""
    cluster, sched = scenario("12-preemption-basic.yaml")
    attempt(sched, "default/nginx")
    fw = sched.profiles["default-scheduler"]
    snap = cluster.snapshot
    row = snap.index["kube-01"]

    def one_cpu_pod(name, prio):
        pod = Pod.model_validate({"metadata": {"name": name, "namespace": "default"},
                                  "spec": {"priority": prio, "containers": [{"resources": {"requests": {"cpu": "1"}}}]}})
        info = PodInfo.of(pod)
        state = CycleState()
        fw.run_pre_filter(state, info, snap)
        return info, state

    low, state = one_cpu_pod("late-low", 10)
    assert fw.run_filter_node(state, low, snap, row).is_success()  # the room is there
    status = fw.run_filter_with_nominated_pods_node(state, low, snap, row)
    assert (status.code, status.reasons, status.plugin) == (Code.Unschedulable, ("Insufficient cpu",),
                                                            "NodeResourcesFit")
    outcome = fw.run_filter_with_nominated_pods(state, low, snap, snap.order)
    assert outcome.status(list(outcome.rows).index(row)) == status
    high, state = one_cpu_pod("late-high", 2_000_000)
    assert fw.run_filter_with_nominated_pods_node(state, high, snap, row).is_success()


def test_higher_priority_preemptor_clears_lower_nominations_on_its_node():
    cluster, sched = scenario("12-preemption-basic.yaml")
    attempt(sched, "default/nginx")  # nominated to kube-01, low-2 gone: kube-01 has 1 CPU free
    # a bigger, even more important pod needs all of kube-01
    pod = Pod.model_validate({"metadata": {"name": "vip", "namespace": "default"},
                              "spec": {"priority": 2_000_000, "containers": [{"resources": {"requests": {"cpu": "2"}}}]}})
    cluster.add(pod)
    _, record = attempt(sched, "default/vip")
    assert record.result.nominated_node_name == "kube-01"
    assert record.cleared_nominations == ["default/nginx"]
    assert cluster.pods["default/nginx"].status.nominated_node_name is None


def test_lower_priority_nominations_are_cleared_first_with_async_preemption():
    # SchedulerAsyncPreemption (on at v1.37) clears nominations before deleting victims;
    # with it off, after. The outcome is the same.
    for gates in ({}, {"SchedulerAsyncPreemption": False}):
        cluster, _ = scenario("12-preemption-basic.yaml")
        sched = Scheduler(cluster, gates=gates)
        attempt(sched, "default/nginx")
        cluster.add(Pod.model_validate({"metadata": {"name": "vip", "namespace": "default"}, "spec": {
            "priority": 2_000_000, "containers": [{"resources": {"requests": {"cpu": "2"}}}]}}))
        _, record = attempt(sched, "default/vip")
        assert record.cleared_nominations == ["default/nginx"]
        assert sorted(victim_names(record)) == ["low-1"]


# ------------------------------------------------------- upstream tables CASES.md cannot express
def _vlarge_node(name):
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
            "status": {"capacity": {"cpu": "500m", "memory": "500", "pods": "32"},
                       "allocatable": {"cpu": "500m", "memory": "500", "pods": "32"}}}


def _pod(name, *, node=None, prio=None, req=None, labels=None, start=None, uid=None):
    spec = {}
    if req:
        spec["containers"] = [{"name": "con0", "resources": {"requests": req}}]
    if node:
        spec["nodeName"] = node
    if prio is not None:
        spec["priority"] = prio
    out = {"metadata": {"name": name, "uid": uid or name, **({"labels": labels} if labels else {})}, "spec": spec}
    if start is not None:
        out["status"] = {"startTime": start}
    return out


LOW, MID, HIGH = 0, 100, 1000
SMALL = {"cpu": "100m", "memory": "100"}
MEDIUM = {"cpu": "200m", "memory": "200"}
LARGE = {"cpu": "300m", "memory": "300"}
EPOCH = "1970-01-01T00:00:00Z"


def _custom_fixture(node_names, pod, pods):
    case = {"nodes": [_vlarge_node(n) for n in node_names], "existingPods": pods, "pod": pod,
            "filterPlugins": ["NodeResourcesFit"]}
    return preemption_fixtures(case)


def _label_is(key, val):
    return lambda node_info, victim, preemptor: victim.labels.get(key) == val


def _node_is(name):
    return lambda node_info, victim, preemptor: node_info.name == name


def _preemptor_at_least(p):
    return lambda node_info, victim, preemptor: (preemptor.spec.priority or 0) >= p


def _victim_at_most(p):
    return lambda node_info, victim, preemptor: victim.priority <= p


def _four_labelled(pod_name, prio):
    return (["node1", "node2", "node3", "node4"], _pod(pod_name, prio=prio, req=LARGE), [
        _pod("v1", labels={"preemptible": "no"}, node="node1", prio=MID, req=LARGE, start=EPOCH),
        _pod("v2", labels={"preemptible": "yes"}, node="node2", prio=MID, req=LARGE, start=EPOCH),
        _pod("v3", labels={"preemptible": "yes"}, node="node3", prio=LOW, req=LARGE, start=EPOCH),
        _pod("v4", node="node4", prio=LOW, req=LARGE, start=EPOCH)])


def _victim_node(pod_name, prio, v1_req):
    return (["node1", "node2", "node3"], _pod(pod_name, prio=prio, req=LARGE), [
        _pod("v1", node="node1", prio=HIGH, req=v1_req, start=EPOCH),
        _pod("v2", node="node1", prio=MID, req=SMALL, start=EPOCH),
        _pod("v3", node="node1", prio=LOW, req=SMALL, start=EPOCH),
        _pod("v4", node="node2", prio=MID, req=LARGE, start=EPOCH),
        _pod("v5", node="node3", prio=LOW, req=LARGE, start=EPOCH)])


def _three_prios(pod_name, prio):
    return (["node1", "node2", "node3"], _pod(pod_name, prio=prio, req=LARGE), [
        _pod("v1", node="node1", prio=HIGH, req=LARGE, start=EPOCH),
        _pod("v2", node="node2", prio=MID, req=LARGE, start=EPOCH),
        _pod("v3", node="node3", prio=LOW, req=LARGE, start=EPOCH)])


CUSTOM_SELECTION = [
    pytest.param(_label_is("preemptible", "yes"), *_four_labelled("p1", HIGH), {"node2": ["v2"], "node3": ["v3"]},
                 id="filter for matching pod label: high priority"),
    pytest.param(_label_is("preemptible", "yes"), *_four_labelled("p2", MID), {"node3": ["v3"]},
                 id="filter for matching pod label: mid priority"),
    pytest.param(_label_is("preemptible", "yes"), *_four_labelled("p3", LOW), {},
                 id="filter for matching pod label: low priority"),
    pytest.param(_node_is("node1"), *_victim_node("p3", HIGH, MEDIUM), {"node1": ["v2", "v3"]},
                 id="filter for matching victim node: high priority"),
    pytest.param(_node_is("node1"), *_victim_node("p3", MID, SMALL), {"node1": ["v3"]},
                 id="filter for matching victim node: mid priority"),
    pytest.param(_node_is("node1"), *_victim_node("p3", LOW, SMALL), {},
                 id="filter for matching victim node: low priority"),
    pytest.param(_preemptor_at_least(HIGH), *_three_prios("p1", HIGH), {"node2": ["v2"], "node3": ["v3"]},
                 id="only pods at or above specified priority can preempted: high priority"),
    pytest.param(_preemptor_at_least(HIGH), *_three_prios("p2", MID), {},
                 id="only pods at or above specified priority can preempted: mid priority"),
    pytest.param(_victim_at_most(MID), *_three_prios("p1", HIGH), {"node2": ["v2"], "node3": ["v3"]},
                 id="only pods at or below specified priority can be preempted: high priority"),
]


@pytest.mark.parametrize("eligible, node_names, pod, pods, expected", CUSTOM_SELECTION)
def test_custom_selection(eligible, node_names, pod, pods, expected):
    # source: SRC_DP :: TestCustomSelection (the row is the test id)
    cluster, pod_info, fw, plugin, state = _custom_fixture(node_names, pod, pods)
    plugin.is_eligible_pod = eligible
    rows = [int(r) for r in cluster.snapshot.order]
    candidates, _, _ = plugin.evaluator.dry_run_preemption(state, pod_info, rows, [], 0, len(rows))
    assert len(candidates) == len(expected)
    while candidates:  # upstream selects repeatedly, checking each selected node's victims in order
        best = plugin.evaluator.select_candidate(candidates)
        assert [p.name for p in best.victims.pods] == expected[best.name]
        candidates = [c for c in candidates if c.name != best.name]


def _start_order(a, b):
    return a.pod.status.start_time < b.pod.status.start_time


@pytest.mark.parametrize("less, pods, expected", [
    pytest.param(_start_order, [
        _pod("v1", node="node1", prio=LOW, req=MEDIUM, start="1970-01-01T00:00:02Z"),
        _pod("v2", node="node1", prio=LOW, req=MEDIUM, start=EPOCH),
        _pod("v3", node="node1", prio=MID, req=MEDIUM, start="1970-01-01T00:00:01Z")], ["v3", "v1"],
        id="select newest pods"),
    pytest.param(lambda a, b: a.name < b.name, [
        _pod("foo", uid="v1", node="node1", prio=LOW, req=MEDIUM, start=EPOCH),
        _pod("bar", uid="v2", node="node1", prio=LOW, req=MEDIUM, start=EPOCH),
        _pod("baz", uid="v3", node="node1", prio=MID, req=MEDIUM, start=EPOCH)], ["baz", "foo"],
        id="select alphabetically-last pods"),
])
def test_custom_ordering(less, pods, expected):
    # source: SRC_DP :: TestCustomOrdering (start times epochTimeN written N seconds apart)
    cluster, pod_info, fw, plugin, state = _custom_fixture(["node1"], _pod("p2", prio=HIGH, req=LARGE), pods)
    plugin.more_important_pod = less
    rows = [int(r) for r in cluster.snapshot.order]
    candidates, _, _ = plugin.evaluator.dry_run_preemption(state, pod_info, rows, [], 0, len(rows))
    assert len(candidates) == 1
    assert [p.name for p in candidates[0].victims.pods] == expected


@pytest.mark.parametrize("given_args, want", [
    pytest.param({}, {"minCandidateNodesPercentage": 10, "minCandidateNodesAbsolute": 100},
                 id="DefaultPreemptionArgs empty"),
    pytest.param({"minCandidateNodesPercentage": 50},
                 {"minCandidateNodesPercentage": 50, "minCandidateNodesAbsolute": 100},
                 id="DefaultPreemptionArgs with value"),
])
def test_args_defaults(given_args, want):
    # source: kubernetes/kubernetes pkg/scheduler/apis/config/v1/defaults_test.go :: TestPluginArgsDefaults
    assert default_args(given_args) == want


def test_args_errors_name_the_field():
    with pytest.raises(ArgsError) as err:
        Framework({"pluginConfig": [{"name": "DefaultPreemption", "args": {"minCandidateNodesPercentage": 101}}]})
    assert [(e.type, e.field) for e in err.value.errors] == [("FieldValueInvalid", "minCandidateNodesPercentage")]
    assert validate_args({"minCandidateNodesAbsolute": "3"})[1][0].field == "minCandidateNodesAbsolute"


@pytest.mark.parametrize("num_nodes, pct, absolute, want", [
    (5000, 10, 100, 500), (500, 10, 100, 100), (50, 10, 100, 50), (5, 40, 1, 2), (5, 40, 2, 2), (3, 0, 1, 1)])
def test_calculate_num_candidates(num_nodes, pct, absolute, want):
    plugin = DefaultPreemption.build({"minCandidateNodesPercentage": pct, "minCandidateNodesAbsolute": absolute})
    assert plugin.calculate_num_candidates(num_nodes) == want


# -------------------------------------------------------------------------- evaluator units
def _pi(name, prio, start=None, ns="default", labels=None):
    pod = Pod.model_validate({"metadata": {"name": name, "namespace": ns, **({"labels": labels} if labels else {})},
                              "spec": {"priority": prio}, **({"status": {"startTime": start}} if start else {})})
    return PodInfo.of(pod)


def test_pick_one_node_criteria_in_order():
    vm = {
        "pdb": Victims([_pi("a", 0)], 1),
        "high": Victims([_pi("b", 50)], 0),
        "sum": Victims([_pi("c", 10), _pi("d", 10)], 0),
        "best": Victims([_pi("e", 10)], 0),
    }
    assert pick_one_node_for_preemption(vm, now_ns=0) == "best"
    # a node whose pods have negative priorities is not cheaper for having more of them
    vm = {"many": Victims([_pi("a", -100), _pi("b", -100)], 0), "one": Victims([_pi("c", -100)], 0)}
    assert pick_one_node_for_preemption(vm, now_ns=0) == "one"
    # latest start time of the highest-priority victims wins the last tie
    vm = {"old": Victims([_pi("a", 5, "2024-01-01T00:00:00Z")], 0),
          "new": Victims([_pi("b", 5, "2024-02-01T00:00:00Z")], 0)}
    assert pick_one_node_for_preemption(vm, now_ns=0) == "new"


def test_pick_one_node_with_custom_score_funcs():
    # source: kubernetes/kubernetes pkg/scheduler/framework/preemption/preemption_test.go :: TestSelectCandidate ::
    # "pod has different number of containers on each node" (OrderedScoreFuncs: fewest containers wins)
    def containers(n):
        return PodInfo.of(Pod.model_validate({"metadata": {"name": f"c{n}"}, "spec": {
            "containers": [{"name": f"container{i}"} for i in range(n)]}}))

    vm = {"node1": Victims([containers(2)], 1), "node2": Victims([containers(1)], 1),
          "node3": Victims([containers(3)], 1)}
    fewest = lambda node: -sum(len(p.pod.spec.containers) for p in vm[node].pods)  # noqa: E731
    assert pick_one_node_for_preemption(vm, [fewest]) == "node2"


def test_candidate_list_keeps_at_most_its_size():
    cl = _CandidateList(2)
    for i in range(3):
        cl.add(Candidate(f"n{i}", Victims([])))
    assert [c.name for c in cl.parts] == ["n0", "n1"] and cl.added == 3


def test_nodes_for_status_code():
    cluster = Cluster([Node.model_validate({"metadata": {"name": n}}) for n in ("n1", "n2", "n3")])
    snap = cluster.snapshot
    m = NodeToStatus({"n2": Status.unresolvable("x")}, absent=Status(Code.Unschedulable))
    assert [snap.names[r] for r in m.nodes_for_status_code(snap, Code.Unschedulable)] == ["n1", "n3"]
    m = NodeToStatus({"n3": Status.unschedulable(), "n1": Status.unresolvable()})
    assert [snap.names[r] for r in m.nodes_for_status_code(snap, Code.Unschedulable)] == ["n3"]
    assert m.fit_error_message(3) == "0/3 nodes are available:"  # no reasons at all
    m.absent = Status(Code.UnschedulableAndUnresolvable, ("Preemption is not helpful for scheduling",))
    assert m.fit_error_message(3) == "0/3 nodes are available: 1 Preemption is not helpful for scheduling."


def test_fallback_statuses_match_the_filter_outcome():
    """Without statuses attached to the diagnosis, PostFilter rebuilds them; they are the ones the
    scheduler's FilterOutcome holds."""
    cluster, sched = scenario("12-preemption-basic.yaml")
    result = sched.schedule_one("default/nginx")  # preempts; compare on a fresh copy
    cluster, sched = scenario("12-preemption-basic.yaml")
    fw = sched.profiles["default-scheduler"]
    info = cluster.pod_infos["default/nginx"]
    state = CycleState()
    fw.run_pre_filter(state, info, cluster.snapshot)
    outcome = fw.run_filter(state, info, cluster.snapshot, cluster.snapshot.order)
    explicit = NodeToStatus.from_filter_outcome(outcome, cluster.snapshot.names)

    class Diag:
        prefilter_msg, absent_status = "", None

    rebuilt = fw.plugins["DefaultPreemption"].node_to_status(state, info, Diag())
    assert rebuilt.statuses == explicit.statuses and result.trace is not None


def test_dry_run_leaves_the_snapshot_as_it_was():
    cluster, sched = scenario("12-lowest-priority-first.yaml")
    fw = sched.profiles["default-scheduler"]
    plugin = fw.plugins["DefaultPreemption"]
    snap = cluster.snapshot
    before = (snap.requested.copy(), snap.pod_count.copy(), [list(p) for p in snap.pods], dict(snap.pod_row))
    info = cluster.pod_infos["default/needs-2"]
    state = CycleState()
    fw.run_pre_filter(state, info, snap)
    cands, _, _ = plugin.evaluator.dry_run_preemption(state, info, [int(r) for r in snap.order], [], 0, 1)
    assert [p.name for p in cands[0].victims.pods] == ["p20", "p10"]
    assert np.array_equal(before[0], snap.requested) and np.array_equal(before[1], snap.pod_count)
    assert before[2] == [list(p) for p in snap.pods] and before[3] == snap.pod_row


def test_node_scratch_restores_pod_order():
    cluster, _ = scenario("12-lowest-priority-first.yaml")
    snap = cluster.snapshot
    row = snap.index["node-1"]
    order = [p.key for p in snap.pods[row]]
    with node_scratch(snap, row):
        snap.remove_pod("default/p10")
        snap.remove_pod("default/p30")
        snap.add_pod(cluster.pod_infos["default/p10"], "node-1")
    assert [p.key for p in snap.pods[row]] == order


def test_victims_already_terminating_are_not_deleted_again():
    cluster, sched = scenario("12-lowest-priority-first.yaml")
    fw = sched.profiles["default-scheduler"]
    plugin = fw.plugins["DefaultPreemption"]
    p10 = cluster.pods["default/p10"]
    p10.metadata.deletion_timestamp = datetime(2024, 1, 1, tzinfo=timezone.utc)
    cand = Candidate("node-1", Victims([cluster.pod_infos["default/p20"], cluster.pod_infos["default/p10"]]))
    from kschedlab.framework.preemption import PreemptionRecord

    for async_preemption in (True, False):
        rec = PreemptionRecord("x")
        plugin.executor.actuate(copy.copy(cand), cluster.pod_infos["default/needs-2"], "DefaultPreemption", rec,
                                async_preemption=async_preemption)
        assert rec.victims == ["default/p20"]  # (the second time p20 is already gone: NotFound is fine)
    assert "default/p10" in cluster.pods and "default/p20" not in cluster.pods


def test_waiting_pod_victims_are_rejected_not_deleted():
    cluster, sched = scenario("12-preemption-basic.yaml")
    fw = sched.profiles["default-scheduler"]
    rejected = []
    fw.handle.extra["preempt_waiting_pod"] = lambda key, plugin, msg: (rejected.append((key, plugin, msg)) or True)
    _, record = attempt(sched, "default/nginx")
    assert rejected == [("default/low-2", "DefaultPreemption", "preempted")]
    assert "default/low-2" in cluster.pods  # the scheduler's waiting map owns it
    uid = cluster.pods["default/nginx"].metadata.uid
    assert record.events == [f"default/low-2: Preempted: Preempted by pod {uid} on node kube-01 "
                             "(in kube-scheduler memory)."]


# ------------------------------------------------------------------------------- PDB helpers
def _pdb(spec, status=None, ns="default"):
    return PodDisruptionBudget.model_validate({"metadata": {"name": "b", "namespace": ns}, "spec": spec,
                                               **({"status": status} if status else {})})


def test_filter_pods_with_pdb_violation_consumes_budgets_in_order():
    pods = [_pi(f"w{i}", 0, labels={"app": "web"}) for i in range(3)] + [_pi("x", 0)]
    budget = _pdb({"selector": {"matchLabels": {"app": "web"}}}, {"disruptionsAllowed": 1, "disruptedPods": {
        "w1": "2024-01-01T00:00:00Z"}})
    violating, ok = filter_pods_with_pdb_violation(pods, [budget])
    # w0 uses the one allowed disruption, w1 is already accounted (disruptedPods), w2 violates
    assert [p.name for p in violating] == ["w2"] and [p.name for p in ok] == ["w0", "w1", "x"]
    # an empty selector, another namespace or an invalid selector protects nothing
    for spec, ns in [({"selector": {}}, "default"), ({"selector": {"matchLabels": {"app": "web"}}}, "other"),
                     ({"selector": {"matchExpressions": [{"key": "app", "operator": "In"}]}}, "default")]:
        assert filter_pods_with_pdb_violation(pods, [_pdb(spec, {"disruptionsAllowed": 0}, ns)])[0] == []


def test_pdb_status_percentages_use_the_controllers_scale():
    objects = load(DATA / "12-pdb-respected.yaml")
    cluster = Cluster(admit(expand(objects)))
    web = [p for p in cluster.pods.values() if p.metadata.labels.get("app") == "web"]
    budget = _pdb({"maxUnavailable": "50%", "selector": {"matchLabels": {"app": "web"}}})
    # no controller: the disruption controller fails safe
    assert pdbmod.compute_status(budget, web).disruptions_allowed == 0
    st_ = pdbmod.compute_status(budget, web, scale_of=lambda pod: 4)  # one controller of scale 4
    assert (st_.expected_pods, st_.desired_healthy, st_.current_healthy, st_.disruptions_allowed) == (4, 2, 2, 0)
    budget = _pdb({"minAvailable": "25%", "selector": {"matchLabels": {"app": "web"}}})
    st_ = pdbmod.compute_status(budget, web, scale_of=lambda pod: 4)
    assert (st_.desired_healthy, st_.disruptions_allowed) == (1, 1)


def test_pdb_refresh_uses_deployment_scale():
    from kschedlab.api.loader import load_text

    objs = load_text("""
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: nginx}]}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, namespace: default}
spec: {maxUnavailable: 1, selector: {matchLabels: {app: web}}}
""")
    cluster = Cluster(admit(expand(objs)))
    for i, key in enumerate(sorted(k for k in cluster.pods)):
        cluster.pods[key].spec.node_name = "n1" if i < 2 else None  # two of three running
    budget = pdbmod.refresh(cluster)[0]
    assert (budget.status.expected_pods, budget.status.desired_healthy, budget.status.current_healthy,
            budget.status.disruptions_allowed) == (3, 2, 2, 0)


# ------------------------------------------------------------------------------- properties
@st.composite
def clusters(draw):
    n_nodes = draw(st.integers(1, 3))
    nodes = [{"metadata": {"name": f"n{i}", "labels": {"kubernetes.io/hostname": f"n{i}"}},
              "status": {"allocatable": {"cpu": f"{draw(st.integers(1, 3))}", "memory": "8Gi",
                                         "pods": str(draw(st.integers(1, 4)))}}} for i in range(n_nodes)]
    pods = []
    for j in range(draw(st.integers(0, 10))):
        pods.append({"metadata": {"name": f"e{j}", "namespace": "default",
                                  "labels": {"app": draw(st.sampled_from(["a", "b"]))}},
                     "spec": {"nodeName": f"n{draw(st.integers(0, n_nodes - 1))}",
                              "priority": draw(st.integers(-2, 4)) * 10,
                              "containers": [{"name": "c", "resources": {"requests": {
                                  "cpu": f"{draw(st.sampled_from([0, 250, 500, 1000]))}m"}},
                                  **({"ports": [{"containerPort": 80, "hostPort": 8080}]}
                                     if draw(st.booleans()) and j % 3 == 0 else {})}]},
                     **({"status": {"startTime": f"2024-01-0{draw(st.integers(1, 9))}T00:00:00Z"}}
                        if draw(st.booleans()) else {})})
    pdbs = [{"metadata": {"name": f"pdb-{app}", "namespace": "default"},
             "spec": {"selector": {"matchLabels": {"app": app}}},
             "status": {"disruptionsAllowed": draw(st.integers(0, 1))}} for app in ("a", "b") if draw(st.booleans())]
    preemptor = {"metadata": {"name": "preemptor", "namespace": "default"},
                 "spec": {"priority": draw(st.integers(-1, 5)) * 10,
                          "containers": [{"name": "c", "resources": {"requests": {
                              "cpu": f"{draw(st.sampled_from([500, 1000, 1500, 2000]))}m"}},
                              **({"ports": [{"containerPort": 80, "hostPort": 8080}]} if draw(st.booleans()) else {})}]}}
    return nodes, pods, pdbs, preemptor


def _build(nodes, pods, pdbs, preemptor):
    cluster = Cluster()
    for n in nodes:
        cluster.add(Node.model_validate(n))
    for p in pods:
        cluster.add(Pod.model_validate(p))
    for b in pdbs:
        cluster.add(PodDisruptionBudget.model_validate(b))
    cluster.add(Pod.model_validate(preemptor))
    return cluster


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(clusters())
def test_property_preemption_makes_room_on_the_nominated_node(spec):
    nodes, pods, pdbs, preemptor = spec
    cluster = _build(nodes, pods, pdbs, preemptor)
    sched = Scheduler(cluster)
    key = "default/preemptor"
    prio = cluster.pod_infos[key].priority
    before = {k: (info.priority, cluster.snapshot.pod_row.get(k)) for k, info in cluster.pod_infos.items()}
    snap = cluster.snapshot
    result, record = attempt(sched, key)
    if result.scheduled:
        event("fits without preemption")
        return
    fw = sched.profiles["default-scheduler"]
    if record is None or record.result is None or not record.result.nominated_node_name:
        event("preemption does not help")
        assert set(cluster.pods) == set(before)
        return
    event(f"preempted ({'PDB violated' if record.selected.victims.num_pdb_violations else 'PDBs kept'})")
    node = record.result.nominated_node_name
    victims = record.selected.victims.pods
    assert victims, "a candidate always has victims"
    # victims: strictly lower priority, all on the nominated node, all gone
    for v in victims:
        assert before[v.key][0] < prio
        assert snap.names[before[v.key][1]] == node
        assert v.key not in cluster.pods
    # every other pod is untouched
    assert set(cluster.pods) == set(before) - {v.key for v in victims}
    # the PDB-violation count is the fewest among the candidates found
    assert record.selected.victims.num_pdb_violations == min(c.victims.num_pdb_violations
                                                             for c in record.candidates)
    # the preemptor fits on the nominated node now
    info = cluster.pod_infos[key]
    state = CycleState()
    fw.run_pre_filter(state, info, snap)
    assert fw.run_filter_with_nominated_pods_node(state, info, snap, snap.index[node]).is_success()
    # and every victim was needed: putting any one back makes it not fit (resources and ports are monotone)
    for v in victims:
        snap.add_pod(v, node)
        state = CycleState()
        fw.run_pre_filter(state, info, snap)
        assert not fw.run_filter_node(state, info, snap, snap.index[node]).is_success()
        snap.remove_pod(v.key)
    # the next attempt binds the preemptor to its nominated node
    assert cluster.pods[key].status.nominated_node_name == node
    assert attempt(sched, key)[0].node == node


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(clusters(), st.data())
def test_property_filter_with_nominated_pods_vectorized_equals_per_node(spec, data):
    nodes, pods, pdbs, preemptor = spec
    cluster = _build(nodes, pods, pdbs, preemptor)
    # nominate a few more pending pods of random priority to random nodes
    for j in range(data.draw(st.integers(0, 3))):
        cluster.add(Pod.model_validate({
            "metadata": {"name": f"nom{j}", "namespace": "default"},
            "spec": {"priority": data.draw(st.integers(-1, 5)) * 10, "containers": [
                {"name": "c", "resources": {"requests": {"cpu": f"{data.draw(st.sampled_from([250, 1000]))}m"}}}]},
            "status": {"nominatedNodeName": f"n{data.draw(st.integers(0, len(nodes) - 1))}"}}))
    fw = Framework({}, cluster=cluster)
    snap = cluster.snapshot
    info = cluster.pod_infos["default/preemptor"]
    state = CycleState()
    fw.run_pre_filter(state, info, snap)
    outcome = fw.run_filter_with_nominated_pods(state, info, snap, snap.order)
    for i, row in enumerate(outcome.rows.tolist()):
        assert outcome.status(i) == fw.run_filter_with_nominated_pods_node(state, info, snap, row)


def test_preemption_record_is_plain_data():
    import json

    _, sched = scenario("12-pdb-respected.yaml")
    _, record = attempt(sched, "default/critical")
    data = json.loads(json.dumps(record.to_dict()))
    assert data["selected"] == {"node": "node-b", "victims": ["default/batch-1", "default/batch-2"],
                                "numPDBViolations": 0}
    assert data["result"] == {"nominatedNodeName": "node-b", "nominatingMode": "Override"}
    assert data["potentialNodes"] == ["node-a", "node-b"] and data["numCandidates"] == 2
