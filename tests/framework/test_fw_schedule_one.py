"""Ports of ``pkg/scheduler/schedule_one_test.go`` tables (the rows our plugin set can express).

source: kubernetes/kubernetes@008b3652959ca58af8be3fb5b6ecfe9ae7638282 pkg/scheduler/schedule_one_test.go
        (behaviour they exercise: pkg/scheduler/algorithm.go @0c29b313f7b4cd26be3c4456b3a3a1ff2551271d)

Rows left out (plugins or machinery kschedlab does not model): the VolumeBinding rows
("existing PVC", "unknown PVC", "deleted PVC", "hostname and nodename of the node do not
match"), the two PodTopologySpread rows, the extender row, and in TestSchedulerScheduleOne
the injected-SchedulePod-error, deleting-pod, PreBindPreFlight and nominatedNodeName-patch rows.

Expected FitError messages are the upstream expected ``Diagnosis`` of each row rendered with
upstream ``FitError.Error()`` (see test_fw_fit_error.py).
"""

from __future__ import annotations

import pytest
from kschedlab_fw_fakes import (
    ERR_PRIORITIZE,
    ERR_REASON_FAKE,
    equal_prioritizer,
    fake_filter,
    fake_permit,
    fake_pre_bind,
    fake_pre_filter,
    fake_pre_score_and_score,
    fake_reserve,
    false_filter,
    false_map,
    make_node,
    make_pod,
    match_filter,
    no_pods_filter,
    numeric_map,
    plugin,
    profile,
    reverse_numeric_map,
    scheduler,
    true_filter,
    true_map,
)

from kschedlab.framework.interface import PreFilterResult
from kschedlab.framework.status import Code, Status
from kschedlab.scheduler import num_feasible_nodes_to_find

COMMIT = "kubernetes/kubernetes@008b3652959ca58af8be3fb5b6ecfe9ae7638282"
SRC = f"{COMMIT} pkg/scheduler/schedule_one_test.go"

U, UU, E = Code.Unschedulable, Code.UnschedulableAndUnresolvable, Code.Error


def names(*ns):
    return [make_node(n) for n in ns]


def reg(*classes):
    return {c.name: c for c in classes}


# Each case: registry plugins, profile points, node names, pod name, existing pods, and the expectation:
#   want_nodes / want_evaluated for a success, or fit=(message, unschedulable plugins, explicit statuses,
#   absent status) for a FitError, or error=message for an internal error.
SCHEDULE_POD_CASES = [
    dict(id="test 1", plugins=[false_filter()], points=dict(filter=["FalseFilter"]),
         nodes=["node1", "node2"], pod="2",
         fit=("0/2 nodes are available: 2 Nodes failed the fake plugin.", {"FalseFilter"},
              {"node1": (U, ERR_REASON_FAKE, "FalseFilter"), "node2": (U, ERR_REASON_FAKE, "FalseFilter")}, None)),
    dict(id="test 2", plugins=[true_filter(), equal_prioritizer()],
         points=dict(filter=["TrueFilter"], score=[("EqualPrioritizerPlugin", 1)]),
         nodes=["node1", "node2"], pod="ignore", want_nodes={"node1", "node2"}),
    dict(id="test 3", plugins=[match_filter()], points=dict(filter=["MatchFilter"]),
         nodes=["node1", "node2"], pod="node2", want_nodes={"node2"}),
    dict(id="test 4", plugins=[true_filter(), numeric_map()],
         points=dict(filter=["TrueFilter"], score=[("NumericMap", 1)]),
         nodes=["3", "2", "1"], pod="ignore", want_nodes={"3"}),
    dict(id="test 5", plugins=[match_filter(), numeric_map()],
         points=dict(filter=["MatchFilter"], score=[("NumericMap", 1)]),
         nodes=["3", "2", "1"], pod="2", want_nodes={"2"}),
    dict(id="test 6", plugins=[true_filter(), numeric_map(), reverse_numeric_map()],
         points=dict(filter=["TrueFilter"], score=[("NumericMap", 1), ("ReverseNumericMap", 2)]),
         nodes=["3", "2", "1"], pod="2", want_nodes={"1"}),
    dict(id="test 7", plugins=[true_filter(), false_filter(), numeric_map()],
         points=dict(filter=["TrueFilter", "FalseFilter"], score=[("NumericMap", 1)]),
         nodes=["3", "2", "1"], pod="2",
         fit=("0/3 nodes are available: 3 Nodes failed the fake plugin.", {"FalseFilter"},
              {n: (U, ERR_REASON_FAKE, "FalseFilter") for n in ("3", "2", "1")}, None)),
    # upstream's already-running pod is also named "2"; here it lives in another namespace (pod keys are ns/name)
    dict(id="test 8", plugins=[no_pods_filter(), match_filter(), numeric_map()],
         points=dict(filter=["NoPodsFilter", "MatchFilter"], score=[("NumericMap", 1)]),
         nodes=["1", "2"], pod="2", pods=[("2", "running", "2")],
         fit=("0/2 nodes are available: 2 Nodes failed the fake plugin.", {"MatchFilter", "NoPodsFilter"},
              {"1": (U, ERR_REASON_FAKE, "MatchFilter"), "2": (U, ERR_REASON_FAKE, "NoPodsFilter")}, None)),
    dict(id="test error with priority map", plugins=[true_filter(), false_map(), true_map()],
         points=dict(filter=["TrueFilter"], score=[("FalseMap", 1), ("TrueMap", 2)]),
         nodes=["2", "1"], pod="2",
         error=f'running Score plugins: plugin "FalseMap" failed with: {ERR_PRIORITIZE}'),
    dict(id="test with filter plugin returning Unschedulable status",
         plugins=[fake_filter({"3": U}), numeric_map()],
         points=dict(filter=["FakeFilter"], score=[("NumericMap", 1)]), nodes=["3"], pod="test-filter",
         fit=("0/1 nodes are available: 1 injecting failure for pod test-filter.", {"FakeFilter"},
              {"3": (U, "injecting failure for pod test-filter", "FakeFilter")}, None)),
    dict(id="test with filter plugin returning UnschedulableAndUnresolvable status",
         plugins=[fake_filter({"3": UU}), numeric_map()],
         points=dict(filter=["FakeFilter"], score=[("NumericMap", 1)]), nodes=["3"], pod="test-filter",
         fit=("0/1 nodes are available: 1 injecting failure for pod test-filter.", {"FakeFilter"},
              {"3": (UU, "injecting failure for pod test-filter", "FakeFilter")}, None)),
    dict(id="test with partial failed filter plugin", plugins=[fake_filter({"1": U}), numeric_map()],
         points=dict(filter=["FakeFilter"], score=[("NumericMap", 1)]), nodes=["1", "2"], pod="test-filter",
         want_nodes=None),
    dict(id="test prefilter plugin returning Unschedulable status",
         plugins=[fake_pre_filter("FakePreFilter", None, Status(UU, ("injected unschedulable status",)))],
         points=dict(preFilter=["FakePreFilter"]), nodes=["1", "2"], pod="test-prefilter",
         fit=("0/2 nodes are available: injected unschedulable status.", {"FakePreFilter"}, {},
              (UU, "injected unschedulable status", "FakePreFilter"))),
    dict(id="test prefilter plugin returning error status",
         plugins=[fake_pre_filter("FakePreFilter", None, Status(E, ("injected error status",)))],
         points=dict(preFilter=["FakePreFilter"]), nodes=["1", "2"], pod="test-prefilter",
         error='running PreFilter plugin "FakePreFilter": injected error status'),
    dict(id="test prefilter plugin returning node",
         plugins=[fake_pre_filter("FakePreFilter1"),
                  fake_pre_filter("FakePreFilter2", PreFilterResult(frozenset({"node2"}))),
                  fake_pre_filter("FakePreFilter3", PreFilterResult(frozenset({"node1", "node2"})))],
         points=dict(preFilter=["FakePreFilter1", "FakePreFilter2", "FakePreFilter3"]),
         nodes=["node1", "node2", "node3"], pod="test-prefilter", want_nodes={"node2"},
         # since this case has no score plugin, only one node is looked for in Filter
         want_evaluated=1),
    dict(id="test prefilter plugin returning non-intersecting nodes",
         plugins=[fake_pre_filter("FakePreFilter1"),
                  fake_pre_filter("FakePreFilter2", PreFilterResult(frozenset({"node2"}))),
                  fake_pre_filter("FakePreFilter3", PreFilterResult(frozenset({"node1"})))],
         points=dict(preFilter=["FakePreFilter1", "FakePreFilter2", "FakePreFilter3"]),
         nodes=["node1", "node2", "node3"], pod="test-prefilter",
         fit=("0/3 nodes are available: node(s) didn't satisfy plugin(s) [FakePreFilter2 FakePreFilter3] "
              "simultaneously.", {"FakePreFilter2", "FakePreFilter3"}, {},
              (UU, "node(s) didn't satisfy plugin(s) [FakePreFilter2 FakePreFilter3] simultaneously", None))),
    dict(id="test prefilter plugin returning empty node set",
         plugins=[fake_pre_filter("FakePreFilter1"),
                  fake_pre_filter("FakePreFilter2", PreFilterResult(frozenset()))],
         points=dict(preFilter=["FakePreFilter1", "FakePreFilter2"]), nodes=["node1"], pod="test-prefilter",
         fit=("0/1 nodes are available: node(s) didn't satisfy plugin FakePreFilter2.", {"FakePreFilter2"}, {},
              (UU, "node(s) didn't satisfy plugin FakePreFilter2", None))),
    dict(id="test some nodes are filtered out by prefilter plugin and other are filtered out by filter plugin",
         plugins=[fake_pre_filter("FakePreFilter", PreFilterResult(frozenset({"node2"}))),
                  fake_filter({"node2": U})],
         points=dict(preFilter=["FakePreFilter"], filter=["FakeFilter"]), nodes=["node1", "node2"],
         pod="test-prefilter",
         fit=("0/2 nodes are available: 1 injecting failure for pod test-prefilter, "
              "1 node(s) didn't satisfy plugin(s) [FakePreFilter].", {"FakePreFilter", "FakeFilter"},
              {"node2": (U, "injecting failure for pod test-prefilter", "FakeFilter")},
              (UU, "node(s) didn't satisfy plugin(s) [FakePreFilter]", None))),
    # upstream registers "FakePreFilter1" with a plugin whose Name() is "FakeFilter1" and "FakeFilter1"
    # with a FakeFilterPlugin (Name() "FakeFilter"); names do not change the outcome.
    dict(id="test prefilter plugin returning skip",
         plugins=[fake_pre_filter("FakePreFilter1"), fake_filter({"node1": U}, name="FakeFilter1"),
                  plugin("FakeFilter2", pre_filter=lambda self, st, pod, snap: (None, Status.skip()),
                         filter=lambda self, st, pod, node: Status(E, ("injecting failure",))),
                  equal_prioritizer()],
         points=dict(preFilter=["FakePreFilter1", "FakeFilter2"], filter=["FakeFilter1", "FakeFilter2"],
                     score=[("EqualPrioritizerPlugin", 1)]),
         nodes=["node1", "node2", "node3"], pod="test-prefilter", want_nodes={"node2", "node3"},
         want_evaluated=3),
    dict(id="test all prescore plugins return skip",
         plugins=[true_filter(), fake_pre_score_and_score(
             "FakePreScoreAndScorePlugin", 0, Status.skip(),
             Status.error("this score function shouldn't be executed because this plugin returned Skip in the "
                          "PreScore"))],
         points=dict(filter=["TrueFilter"], preScore=["FakePreScoreAndScorePlugin"],
                     score=[("FakePreScoreAndScorePlugin", 1)]),
         nodes=["node1", "node2"], pod="ignore", want_nodes={"node1", "node2"}),
    dict(id="test without score plugin no extra nodes are evaluated", plugins=[true_filter()],
         points=dict(filter=["TrueFilter"]), nodes=["node1", "node2", "node3"], pod="pod1",
         want_nodes={"node1", "node2", "node3"}, want_evaluated=1),
    dict(id="test no score plugin, prefilter plugin returning 2 nodes",
         plugins=[fake_pre_filter("FakePreFilter", PreFilterResult(frozenset({"node1", "node2"})))],
         points=dict(preFilter=["FakePreFilter"]), nodes=["node1", "node2", "node3"], pod="test-prefilter",
         want_nodes={"node1", "node2"}, want_evaluated=1),
    dict(id="test prefilter plugin returned an invalid node",
         plugins=[fake_pre_filter("FakePreFilter", PreFilterResult(frozenset({"invalid-node"}))), true_filter()],
         points=dict(preFilter=["FakePreFilter"], filter=["TrueFilter"]), nodes=["1", "2"], pod="test-prefilter",
         fit=("0/2 nodes are available: 2 node(s) didn't satisfy plugin(s) [FakePreFilter].", {"FakePreFilter"},
              {}, (UU, "node(s) didn't satisfy plugin(s) [FakePreFilter]", None))),
]


@pytest.mark.parametrize("case", [pytest.param(c, id=c["id"]) for c in SCHEDULE_POD_CASES])
def test_scheduler_schedule_pod(case):
    # source: SRC :: TestSchedulerSchedulePod
    pods = [make_pod(n, namespace=ns, node=node) for n, ns, node in case.get("pods", [])]
    sched = scheduler(names(*case["nodes"]), [make_pod(case["pod"]), *pods], registry=reg(*case["plugins"]),
                      profile_dict=profile(**case["points"]))
    result = sched.schedule_one(f"default/{case['pod']}")
    if "error" in case:
        assert result.node is None
        assert result.status.code == Code.Error
        assert result.message == case["error"]
        return
    if "fit" in case:
        message, plugins, explicit, absent = case["fit"]
        assert result.node is None
        assert result.status.code == Code.Unschedulable
        assert result.message == message
        assert result.diagnosis.unschedulable_plugins == plugins
        got = {n: (st.code, st.message(), st.plugin)
               for n, st in result.trace.filter_statuses().items() if not st.is_success()}
        assert got == explicit
        got_absent = result.diagnosis.absent_status
        if absent is None:  # upstream: NewStatus(UnschedulableAndUnresolvable) with no reasons
            assert got_absent is None or not got_absent.reasons
        else:
            assert (got_absent.code, got_absent.message(), got_absent.plugin) == absent
        return
    assert result.status.is_success(), result.message
    if case.get("want_nodes") is not None:
        assert result.node in case["want_nodes"]
    assert result.trace.evaluated_nodes == case.get("want_evaluated", len(case["nodes"]))


def test_find_fit_all_error():
    # source: SRC :: TestFindFitAllError
    sched = scheduler(names("3", "2", "1"), [make_pod("")], registry=reg(true_filter(), match_filter()),
                      profile_dict=profile(filter=["TrueFilter", "MatchFilter"]))
    result = sched.schedule_one("default/")
    assert result.diagnosis.unschedulable_plugins == {"MatchFilter"}
    assert {n: (st.code, st.reasons, st.plugin) for n, st in result.trace.filter_statuses().items()} == {
        n: (U, (ERR_REASON_FAKE,), "MatchFilter") for n in ("1", "2", "3")}


def test_find_fit_some_error():
    # source: SRC :: TestFindFitSomeError
    sched = scheduler(names("3", "2", "1"), [make_pod("1")], registry=reg(true_filter(), match_filter()),
                      profile_dict=profile(filter=["TrueFilter", "MatchFilter"]))
    result = sched.schedule_one("default/1")
    failed = {n: st for n, st in result.trace.filter_statuses().items() if not st.is_success()}
    assert len(failed) == 3 - 1
    for n, st in failed.items():
        assert n != "1" and st.reasons == (ERR_REASON_FAKE,) and st.plugin == "MatchFilter"


# -- TestNumFeasibleNodesToFind -----------------------------------------------------------------
NUM_FEASIBLE_CASES = [
    # name, global percentage, profile percentage, numAllNodes, want
    ("not set percentageOfNodesToScore and nodes number not more than 50", 0, None, 10, 10),
    ("set profile percentageOfNodesToScore and nodes number not more than 50", 0, 40, 10, 10),
    ("not set percentageOfNodesToScore and nodes number more than 50", 0, None, 1000, 420),
    ("set profile percentageOfNodesToScore and nodes number more than 50", 0, 40, 1000, 400),
    ("set global and profile percentageOfNodesToScore and nodes number more than 50", 100, 40, 1000, 400),
    ("set global percentageOfNodesToScore and nodes number more than 50", 40, None, 1000, 400),
    ("not set profile percentageOfNodesToScore and nodes number more than 50*125", 0, None, 6000, 300),
    ("set profile percentageOfNodesToScore and nodes number more than 50*125", 0, 40, 6000, 2400),
]

_NODE_LISTS: dict[int, list] = {}


def _plain_nodes(n):
    if n not in _NODE_LISTS:
        _NODE_LISTS[n] = [make_node(f"n{i}", labels={}) for i in range(n)]
    return _NODE_LISTS[n]


@pytest.mark.parametrize("name, global_pct, profile_pct, num_all, want", NUM_FEASIBLE_CASES,
                         ids=[c[0] for c in NUM_FEASIBLE_CASES])
def test_num_feasible_nodes_to_find(name, global_pct, profile_pct, num_all, want):
    # source: SRC :: TestNumFeasibleNodesToFind
    # the profile percentage, when set, takes precedence over the global one
    assert num_feasible_nodes_to_find(global_pct if profile_pct is None else profile_pct, num_all) == want
    # ... and the scheduler resolves them that way (a score plugin keeps numNodesToFind from being 1)
    sched = scheduler(_plain_nodes(num_all), [make_pod("p")], registry=reg(true_filter(), equal_prioritizer()),
                      config={"percentageOfNodesToScore": global_pct},
                      profile_dict=profile(percentage=profile_pct, filter=["TrueFilter"],
                                           score=[("EqualPrioritizerPlugin", 1)]))
    result = sched.schedule_one("default/p")
    assert result.trace.num_to_find == want
    assert result.trace.feasible_nodes == want


def test_fair_evaluation_for_nodes():
    # source: SRC :: TestFairEvaluationForNodes
    num_all = 500
    nodes = [make_node(str(i), labels={}) for i in range(num_all)]
    pods = [make_pod(f"p{i}") for i in range(2 * (num_all // 150 + 1))]
    sched = scheduler(nodes, pods, registry=reg(true_filter(), equal_prioritizer()),
                      config={"percentageOfNodesToScore": 30},  # to make numAllNodes % nodesToFind != 0
                      profile_dict=profile(filter=["TrueFilter"], score=[("EqualPrioritizerPlugin", 1)]))
    nodes_to_find = num_feasible_nodes_to_find(30, num_all)
    assert nodes_to_find == 150
    # iterating over all nodes more than twice
    for i in range(2 * (num_all // nodes_to_find + 1)):
        result = sched.schedule_one(f"default/p{i}")
        assert result.trace.feasible_nodes == nodes_to_find
        assert sched.next_start_node_index == (i + 1) * nodes_to_find % num_all


@pytest.mark.parametrize("nominated, codes, want_calls", [
    pytest.param("node1", None, 1, id="pod has the nominated node set, filter is called only once"),
    pytest.param(None, None, 3, id="pod without the nominated pod, filter is called for each node"),
    pytest.param("node1", {"node1": Code.Unschedulable}, 4,
                 id="nominated pod cannot pass the filter, filter is called for each node"),
])
def test_prefer_nominated_node_filter_call_counts(nominated, codes, want_calls):
    # source: SRC :: TestPreferNominatedNodeFilterCallCounts
    fake = fake_filter(codes)
    sched = scheduler([make_node(n, labels={}) for n in ("node1", "node2", "node3")],
                      [make_pod("p", nominated=nominated)], registry=reg(fake, equal_prioritizer()),
                      profile_dict=profile(filter=["FakeFilter"], score=[("EqualPrioritizerPlugin", 1)]))
    result = sched.schedule_one("default/p")
    assert result.status.is_success()
    assert fake.calls == want_calls
    if nominated and not codes:
        assert result.node == nominated


# -- Test_SelectHost: the highest total wins; ties are broken at random ----------------------------
def scores_plugin(scores: dict[str, int]):
    return plugin("Scores", score=lambda self, state, pod, node: (scores[node.name], None))


@pytest.mark.parametrize("scores, want", [
    pytest.param({"node1": 1, "node2": 2}, {"node2"}, id="unique properly ordered scores"),
    pytest.param({"node2.2": 2, "node2.1": 2, "node2.3": 2}, {"node2.1", "node2.2", "node2.3"}, id="equal scores"),
    pytest.param({"node3.1": 3, "node2.1": 2, "node1.1": 1, "node3.2": 3}, {"node3.1", "node3.2"},
                 id="out of order scores"),
])
def test_select_host(scores, want):
    # source: SRC :: Test_SelectHost (upstream pops the best of a heap keyed on (TotalScore, Randomizer));
    # every top-scoring node must be reachable with some seed, and nothing else ever is.
    chosen = set()
    for seed in range(64):
        sched = scheduler([make_node(n, labels={}) for n in scores], [make_pod("p")],
                          registry=reg(true_filter(), scores_plugin(scores)),
                          profile_dict=profile(filter=["TrueFilter"], score=[("Scores", 1)]), seed=seed)
        result = sched.schedule_one("default/p")
        assert result.trace.ties == len(want)
        chosen.add(result.node)
    assert chosen == want


# -- TestSchedulerScheduleOne: failures after a node was chosen ------------------------------------
def failing_binder(message):
    return plugin("DefaultBinder", bind=lambda self, state, pod, node: Status.error(message))


SCHEDULE_ONE_CASES = [
    dict(id="reserve failed with status code error",
         plugins=[fake_reserve(Status.error("reserve error"))], points=dict(reserve=["FakeReserve"]),
         code=E, message='running Reserve plugin "FakeReserve": reserve error'),
    dict(id="reserve failed with status code rejected",
         plugins=[fake_reserve(Status(UU, ("rejected on reserve",)))], points=dict(reserve=["FakeReserve"]),
         code=UU, message="0/1 nodes are available: 1 rejected on reserve."),
    dict(id="permit failed with status code error",
         plugins=[fake_permit(Status.error("permit error"), 60)], points=dict(permit=["FakePermit"]),
         code=E, message='running Permit plugin "FakePermit": permit error'),
    dict(id="permit failed with status code rejected",
         plugins=[fake_permit(Status(U, ("rejected on permit",)), 60)], points=dict(permit=["FakePermit"]),
         code=U, message="0/1 nodes are available: 1 rejected on permit."),
    dict(id="prebind failed with status code error",
         plugins=[fake_pre_bind(Status.error("on PreBind"))], points=dict(preBind=["FakePreBind"]),
         code=E, message='running PreBind plugin "FakePreBind": on PreBind'),
    dict(id="binding failed", plugins=[failing_binder("binder")], points={},
         code=E, message='running Bind plugin "DefaultBinder": binder'),
    dict(id="bind assumed pod scheduled", plugins=[], points={}, code=Code.Success, message=""),
]


@pytest.mark.parametrize("case", [pytest.param(c, id=c["id"]) for c in SCHEDULE_ONE_CASES])
def test_scheduler_schedule_one(case):
    # source: SRC :: TestSchedulerScheduleOne
    sched = scheduler([make_node("node1")], [make_pod("foo")], registry=reg(*case["plugins"]),
                      profile_dict=profile(**case["points"]))
    result = sched.schedule_one("default/foo")
    assert result.status.code == case["code"]
    assert result.message == case["message"]
    pod = sched.cluster.pods["default/foo"]
    if case["code"] == Code.Success:
        assert result.node == "node1" and pod.spec.node_name == "node1"
    else:  # the assumed pod was forgotten and not bound
        assert result.node is None and not pod.spec.node_name
        assert "default/foo" not in sched.cluster.snapshot.pod_row


@pytest.mark.parametrize("allow", [pytest.param(False, id="Reject Waiting Pod"),
                                   pytest.param(True, id="Allow Waiting Pod")])
def test_wait_on_permit(allow):
    # source: framework_test.go :: TestWaitOnPermit (newest stored copy, see test_fw_runtime.py) for the
    # waiting-pod outcome; SRC :: TestSchedulerScheduleOne / schedule_one.go bindingCycle for the one-node
    # FitError a rejected waiting pod gets.
    permit_plugin = "permit-plugin"
    sched = scheduler([make_node("node1")], [make_pod("pod")],
                      registry=reg(fake_permit(Status.wait(), 10, name=permit_plugin)),
                      profile_dict=profile(permit=[permit_plugin]))
    first = sched.schedule_one("default/pod")
    assert first.status.code == Code.Wait
    if allow:
        result = sched.allow("default/pod", permit_plugin)
        assert result.node == "node1" and result.status.is_success()
    else:
        result = sched.reject("default/pod", permit_plugin, "reject message")
        assert (result.status.code, result.status.plugin) == (Code.Unschedulable, permit_plugin)
        assert result.message == "0/1 nodes are available: 1 reject message."
        assert "default/pod" not in sched.cluster.snapshot.pod_row
