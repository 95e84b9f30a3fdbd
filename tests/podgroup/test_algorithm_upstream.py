"""Ports of upstream's PodGroup scheduling algorithm tests, as data.

Each row names its upstream source; the rows run through ``PodGroupAlgorithm.run_root`` on
a ``Scheduler`` whose profile holds only the fake plugins of ``conftest.py`` (upstream's
``fakePodGroupPlugin`` / ``fakePlacementFeasiblePlugin`` / ``fakePlacementPlugin``), and assert
upstream's outcome: group statuses (code and message), which pods got which node and each
pod's status. Rows upstream states through test doubles we do not have (metrics, the
PlacementCycleState) are listed in ``SKIPPED-podgroup-cycle.md``.
"""

from __future__ import annotations

import pytest

ALGO = ("kubernetes/kubernetes pkg/scheduler/algorithm_podgroup_test.go "
        "@1ff291df4b4d64f299b1bc2003635763de8b3f0c (stored copy id 70228345290)")
CYCLE = "kubernetes pkg/scheduler/schedule_one_podgroup_test.go (stored copy id 55634420285)"

PG = "podgroup/default/pg"
CPG = "compositepodgroup/default/cpg"
PG1 = "podgroup/default/pg1"
PG2 = "podgroup/default/pg2"


def _ids(rows):
    return [r["name"] for r in rows]


# ---------------------------------------------------------------------------------------------
# TestPodGroupSchedulingAlgorithm: the default algorithm, one node, pods p1..p3 filtered by name,
# PlacementFeasible answers scripted; run with TopologyAwareWorkloadScheduling on (with and
# without CompositePodGroup) and off.
# ---------------------------------------------------------------------------------------------
_DEFAULT_ALGO = [
    dict(name="All pods feasible", filter={"p1": None, "p2": None, "p3": None}, feasible=[],
         group="Success", pods={"p1": "Success", "p2": "Success", "p3": "Success"}),
    dict(name="All pods feasible, podGroup already meeting quorum before any pod is evaluated",
         filter={"p1": None, "p2": None, "p3": None}, feasible=["Success"] * 4,
         group="Success", pods={"p1": "Success", "p2": "Success", "p3": "Success"}),
    dict(name="All pods feasible, podGroup schedulable with 3 schedulable pods",
         filter={"p1": None, "p2": None, "p3": None}, feasible=["Wait", "Wait", "Wait", "Success"],
         group="Success", pods={"p1": "Success", "p2": "Success", "p3": "Success"}),
    dict(name="All pods feasible, podGroup waiting", filter={"p1": None, "p2": None, "p3": None},
         feasible=["Wait"] * 4, group="Unschedulable", pods={"p1": "Success", "p2": "Success", "p3": "Success"}),
    dict(name="All pods feasible, podGroup unschedulable", filter={"p1": None, "p2": None, "p3": None},
         feasible=["Wait", "Unschedulable"], group="Unschedulable", pods={"p1": "Success"}),
    dict(name="All pods feasible, podGroup unschedulable with 2 pods", filter={"p1": None, "p2": None, "p3": None},
         feasible=["Wait", "Wait", "Unschedulable"], group="Unschedulable", pods={"p1": "Success", "p2": "Success"}),
    dict(name="PodGroup schedulable with 2 schedulable pods", filter={"p1": "Unschedulable", "p2": None, "p3": None},
         feasible=["Wait", "Wait", "Wait", "Success"], group="Success",
         pods={"p1": "Unschedulable", "p2": "Success", "p3": "Success"}),
    dict(name="All pods unschedulable",
         filter={"p1": "UnschedulableAndUnresolvable", "p2": "Unschedulable", "p3": "Unschedulable"},
         feasible=["Wait", "Success", "Success", "Success"], group="Unschedulable",
         pods={"p1": "Unschedulable", "p2": "Unschedulable", "p3": "Unschedulable"}),
    dict(name="Any filter returned Error", filter={"p1": None, "p2": "Error", "p3": None}, feasible=[],
         group="Error", pods={"p1": "Success", "p2": "Error"}),
    dict(name="Any placementFeasible returned Error", filter={"p1": None, "p2": None, "p3": None},
         feasible=["Wait", "Success", "Error"], group="Error", pods={"p1": "Success", "p2": "Success"}),
    dict(name="First placementFeasible call returned Unschedulable", filter={"p1": None, "p2": None, "p3": None},
         feasible=["Unschedulable"], group="Unschedulable", pods={}),
    dict(name="First placementFeasible call returned Error", filter={"p1": None, "p2": None, "p3": None},
         feasible=["Error"], group="Error", pods={}),
]
_GATE_COMBOS = [(True, False), (True, True), (False, False)]  # (TAS, CompositePodGroup), as upstream loops
DEFAULT_ALGO_ROWS = [
    dict(row, name=f"{row['name']} (TopologyAwareWorkloadScheduling={tas}, CompositePodGroup={cpg})",
         tas=tas, cpg=cpg, source=f"{ALGO} TestPodGroupSchedulingAlgorithm")
    for tas, cpg in _GATE_COMBOS for row in _DEFAULT_ALGO
]


@pytest.mark.parametrize("row", DEFAULT_ALGO_ROWS, ids=_ids(DEFAULT_ALGO_ROWS))
def test_pod_group_scheduling_algorithm(row, pgkit):
    c = pgkit.cluster([pgkit.node("node1"), pgkit.pod_group("pg"),
                       *(pgkit.pod(p, "pg") for p in ("p1", "p2", "p3"))])
    registry = {"FakePodGroupPlugin": pgkit.fake_pod_group_plugin(row["filter"]),
                "FakePlacementFeasible": pgkit.fake_placement_feasible([row["feasible"]])}
    gates = {"GenericWorkload": True, "TopologyAwareWorkloadScheduling": row["tas"],
             "CompositePodGroup": row["cpg"]}
    sched = pgkit.scheduler(c, pgkit.profile(filter=["FakePodGroupPlugin"],
                                             placementFeasible=["FakePlacementFeasible"]), registry, gates)
    results, _ = pgkit.run_algorithm(sched, PG)
    result = results[PG]
    assert result.status.code.name == row["group"]
    got = {pr.pod_info.name: pr for pr in result.pods}
    assert {n: pr.status.code.name for n, pr in got.items()} == row["pods"]
    for pr in got.values():
        assert pr.node == ("node1" if pr.status.is_success() else None)
    # the algorithm leaves the snapshot as it found it
    assert c.snapshot.pod_row == {}


# ---------------------------------------------------------------------------------------------
# Placements of the rows below: placement1={node1}, placement2={node2}. (TestPodGroupSchedulingPlacementAlgorithm
# itself is ported as tests/conformance/podgroup_cycle/placement_algorithm.json.)
# ---------------------------------------------------------------------------------------------
_GEN2 = {PG: {"placement1": ["node1"], "placement2": ["node2"]}}


def _xfail_param(row, ids_key="name"):
    marks = [pytest.mark.xfail(strict=True, reason=row["xfail"])] if row.get("xfail") else []
    return pytest.param(row, id=row[ids_key], marks=marks)


def _placement_sched(pgkit, c, plugin, feasible, gates, *, reserve=False, extra_registry=None, extra_points=None):
    registry = {"FakePlacementPlugin": pgkit.fake_placement_plugin(**plugin),
                "FakePlacementFeasible": pgkit.fake_placement_feasible(feasible)}
    registry.update(extra_registry or {})
    points = dict(filter=["FakePlacementPlugin"], placementGenerate=["FakePlacementPlugin"],
                  placementScore=[("FakePlacementPlugin", 1)], placementFeasible=["FakePlacementFeasible"])
    if reserve:
        points["reserve"] = ["FakePlacementPlugin"]
    points.update(extra_points or {})
    return pgkit.scheduler(c, pgkit.profile(**points), registry, gates)


def _pod_rows(result):
    return [(pr.pod_info.name, pr.node, pr.status.code.name, pr.status.message()) for pr in result.pods]


# ---------------------------------------------------------------------------------------------
# TestNominatedPlacement / TestNominatedPlacementOrderIndependent: which generated placement holds
# the pods' nominated nodes. Upstream calls nominatedPlacement() directly; here the placements
# come from the fake generator and the rows are observed through the algorithm: a placement
# found this way is tried first and kept without scoring, so each row runs once per candidate
# with the scorer preferring that candidate; the winner must be the nominated placement
# whatever the scores, or (no nominated placement) the preferred one.
# ---------------------------------------------------------------------------------------------
_RACKS = {"rack-1": ["node-1"], "rack-2": ["node-2"], "rack-12": ["node-1", "node-2"],
          "rack-23": ["node-2", "node-3"]}
NOMINATED_PLACEMENT_ROWS = [
    dict(name="no nominations returns nil", placements=["rack-1", "rack-2"], nominated=["", ""], want=None),
    dict(name="nominated node not in any placement returns nil", placements=["rack-1", "rack-2"],
         nominated=["node-3"], want=None),
    dict(name="single placement holds the nominated node", placements=["rack-1", "rack-2"],
         nominated=["node-2", ""], want="rack-2"),
    dict(name="single placement matching several nominated nodes wins", placements=["rack-1", "rack-23"],
         nominated=["node-2", "node-3"], want="rack-23"),
    dict(name="overlapping placements sharing a nominated node returns nil", placements=["rack-12", "rack-23"],
         nominated=["node-2"], want=None),
    dict(name="distinct placements each holding a nominated node returns nil", placements=["rack-1", "rack-2"],
         nominated=["node-1", "node-2"], want=None),
]
for _r in NOMINATED_PLACEMENT_ROWS:
    _r["source"] = f"{ALGO} TestNominatedPlacement"
NOMINATED_PLACEMENT_ROWS.append(dict(
    name="order independent: overlapping placements in either order return nil", placements=["rack-23", "rack-12"],
    nominated=["node-2"], want=None, source=f"{ALGO} TestNominatedPlacementOrderIndependent"))


@pytest.mark.parametrize("row", NOMINATED_PLACEMENT_ROWS, ids=_ids(NOMINATED_PLACEMENT_ROWS))
def test_nominated_placement(row, pgkit):
    names = [chr(ord("a") + i) for i in range(len(row["nominated"]))]
    for preferred in row["placements"]:
        c = pgkit.cluster([*(pgkit.node(n) for n in ("node-1", "node-2", "node-3")), pgkit.pod_group("pg"),
                           *(pgkit.pod(n, "pg", nominated=nnn or None) for n, nnn in zip(names, row["nominated"]))])
        generate = {PG: {p: _RACKS[p] for p in row["placements"]}}
        scores = {PG: {p: (2 if p == preferred else 1) for p in row["placements"]}}
        # generated in the row's order (the order-independence row reverses it)
        plugin = dict(generate=generate, scores=scores, ordered=False)
        sched = _placement_sched(pgkit, c, plugin, None, pgkit.GATES_TAS)
        results, _ = pgkit.run_algorithm(sched, PG)
        result = results[PG]
        assert result.status.is_success()
        assert result.placement.name == (row["want"] or preferred), f"scorer preferring {preferred}"


# ---------------------------------------------------------------------------------------------
# TestPodGroupSchedulingPlacementAlgorithm_NominatedNode
# ---------------------------------------------------------------------------------------------
NOMINATED_NODE_ROWS = [
    dict(name="nominated placement short-circuits scoring even with a lower score",
         plugin=dict(generate=_GEN2, scores={PG: {"placement1": 2, "placement2": 1}}), feasible=None,
         nominated="node2", expect_host="node2"),
    dict(name="infeasible nominated placement falls back to scoring",
         plugin=dict(generate=_GEN2, scores={PG: {"placement1": 1}}, filter_status={"node2": "Unschedulable"}),
         feasible=[["Unschedulable"], ["Success"]], nominated="node2", expect_host="node1"),
    dict(name="error on the nominated placement propagates",
         plugin=dict(generate=_GEN2, scores={PG: {"placement1": 1}},
                     filter_status={"node2": ("Error", "injected filter error")}),
         feasible=None, nominated="node2", expect_error=True),
    dict(name="CPG root skips the nominated fast path and scores every placement",
         plugin=dict(generate=dict(_GEN2, **{CPG: {"all": ["node1", "node2"]}}),
                     scores={PG: {"placement1": 2, "placement2": 1}}),
         feasible=None, nominated="node2", root_is_cpg=True, expect_host="node1"),
    dict(name="feasible nominated placement that schedules no new pod does not short-circuit",
         plugin=dict(generate=_GEN2, scores={PG: {"placement1": 1, "placement2": 2}},
                     filter_status={"node2": "Unschedulable"}),
         feasible=[["Success"], ["Success"]], nominated="node2", expect_host="node1"),
    dict(name="feasible nominated placement that schedules no new pod reports an actionable reason",
         plugin=dict(generate={PG: {"placement2": ["node2"]}}, filter_status={"node2": "Unschedulable"}),
         feasible=[["Success"]], nominated="node2",
         expect_status=("Unschedulable", "0/1 placements are available, first placement status: nominated "
                                         "placement is feasible but no pending pod was scheduled")),
]
for _r in NOMINATED_NODE_ROWS:
    _r["source"] = f"{ALGO} TestPodGroupSchedulingPlacementAlgorithm_NominatedNode"


@pytest.mark.parametrize("row", [_xfail_param(r) for r in NOMINATED_NODE_ROWS])
def test_placement_algorithm_nominated_node(row, pgkit):
    objs = [pgkit.node("node1"), pgkit.node("node2"),
            pgkit.pod("foo", "pg", nominated=row["nominated"])]
    gates = dict(pgkit.GATES_TAS)
    if row.get("root_is_cpg"):
        # the root is a CompositePodGroup "cpg" holding the PodGroup; its one placement holds both nodes
        objs += [pgkit.composite("cpg"), pgkit.pod_group("pg", parent="cpg")]
        gates["CompositePodGroup"] = True
        root = CPG
    else:
        objs.append(pgkit.pod_group("pg"))
        root = PG
    c = pgkit.cluster(objs)
    sched = _placement_sched(pgkit, c, row["plugin"], row["feasible"], gates)
    results, _ = pgkit.run_algorithm(sched, root)
    result = results[PG]
    if row.get("expect_error"):
        assert result.status.code.name == "Error"
        return
    if row.get("expect_status"):
        assert pgkit.status_of(result.status) == row["expect_status"]
        return
    assert result.status.is_success(), result.status
    assert result.pods[0].node == row["expect_host"]


# ---------------------------------------------------------------------------------------------
# TestPodGroupSchedulingPlacementAlgorithm_Scoring: two weighted PlacementScore plugins.
# ---------------------------------------------------------------------------------------------
_SCORING = [
    dict(name="respects higher score of placement1",
         plugins=[(1, {"placement1": 50, "placement2": 75}), (2, {"placement1": 25, "placement2": 10})],
         expect="node1"),
    dict(name="respects higher score of placement2",
         plugins=[(1, {"placement1": 75, "placement2": 50}), (2, {"placement1": 10, "placement2": 25})],
         expect="node2"),
]
SCORING_ROWS = [dict(row, name=f"{row['name']} (CompositePodGroup={cpg})", cpg=cpg,
                     source=f"{ALGO} TestPodGroupSchedulingPlacementAlgorithm_Scoring")
                for cpg in (False, True) for row in _SCORING]


@pytest.mark.parametrize("row", SCORING_ROWS, ids=_ids(SCORING_ROWS))
def test_placement_algorithm_scoring(row, pgkit):
    c = pgkit.cluster([pgkit.node("node1"), pgkit.node("node2"), pgkit.pod_group("pg"), pgkit.pod("foo", "pg")])
    registry = {"FakeGeneratorPlugin": pgkit.fake_placement_plugin(generate=_GEN2, name="FakeGeneratorPlugin",
                                                                   ordered=False)}
    score_points = []
    for i, (weight, scores) in enumerate(row["plugins"]):
        name = f"FakeScorePlugin[{i}]"
        registry[name] = pgkit.fake_score_plugin(name, {PG: scores})
        score_points.append((name, weight))
    prof = pgkit.profile(filter=["FakeGeneratorPlugin"], placementGenerate=["FakeGeneratorPlugin"],
                         placementScore=score_points)
    sched = pgkit.scheduler(c, prof, registry, dict(pgkit.GATES_TAS, CompositePodGroup=row["cpg"]))
    results, _ = pgkit.run_algorithm(sched, PG)
    assert results[PG].pods[0].node == row["expect"]


# ---------------------------------------------------------------------------------------------
# TestCPGSchedulingPlacementAlgorithm: CompositePodGroup "cpg" over pg1 (p1) and pg2 (p2), nodes
# node1..node4; the root generates placement1={node1,node2}, placement2={node3,node4}, each
# child one placement per node (restricted to the parent placement).
# ---------------------------------------------------------------------------------------------
_CPG_GEN = {
    CPG: {"placement1": ["node1", "node2"], "placement2": ["node3", "node4"]},
    PG1: {"placement1": ["node1"], "placement2": ["node2"], "placement3": ["node3"], "placement4": ["node4"]},
    PG2: {"placement1": ["node1"], "placement2": ["node2"], "placement3": ["node3"], "placement4": ["node4"]},
}
_NO_PODS = "no pods were schedulable"
_INFEASIBLE_2 = "0/2 placements are available, first placement status: injected placementFeasible status"
CPG_ALGO_ROWS = [
    dict(name="respects higher score of parent placement",
         plugin=dict(generate=_CPG_GEN, scores={
             CPG: {"placement1": 1, "placement2": 2},
             PG1: {"placement1": 5, "placement2": 5, "placement3": 1, "placement4": 2},
             PG2: {"placement1": 5, "placement2": 5, "placement3": 2, "placement4": 1}}),
         feasible=None,
         expected={CPG: ("Success", "", []),
                   PG1: ("Success", "", [("p1", "node4", "Success", "")]),
                   PG2: ("Success", "", [("p2", "node3", "Success", "")])}),
    dict(name="discards infeasible placements",
         plugin=dict(generate=_CPG_GEN, scores={
             CPG: {"placement1": 2, "placement2": 1},
             PG1: {"placement1": 5, "placement2": 5, "placement3": 1, "placement4": 2},
             PG2: {"placement1": 5, "placement2": 5, "placement3": 2, "placement4": 1}}),
         feasible=[["Unschedulable", "Unschedulable", "Unschedulable"]],
         expected={CPG: ("Success", "", []),
                   PG1: ("Success", "", [("p1", "node4", "Success", "")]),
                   PG2: ("Success", "", [("p2", "node3", "Success", "")])}),
    dict(name="returns unschedulable if no pods got scheduled",
         plugin=dict(generate=_CPG_GEN, scores={
             CPG: {"placement1": 2, "placement2": 1},
             PG1: {"placement1": 5, "placement2": 1, "placement3": 1, "placement4": 1},
             PG2: {"placement1": 5, "placement2": 1, "placement3": 1, "placement4": 1}},
             filter_status={f"node{i}": ("Unschedulable", f"node{i} rejected") for i in range(1, 5)}),
         feasible=None,
         expected={CPG: ("Unschedulable", _NO_PODS, []),
                   PG1: ("Success", "", [("p1", None, "Unschedulable", "0/1 nodes are available: 1 node1 rejected.")]),
                   PG2: ("Success", "", [("p2", None, "Unschedulable", "0/1 nodes are available: 1 node1 rejected.")])}),
    dict(name="returns unschedulable if no pods got scheduled and placement feasible rejected pods",
         plugin=dict(generate=_CPG_GEN, scores={
             CPG: {"placement1": 2, "placement2": 1},
             PG1: {"placement1": 5, "placement2": 1, "placement3": 1, "placement4": 1},
             PG2: {"placement1": 5, "placement2": 1, "placement3": 1, "placement4": 1}},
             filter_status={f"node{i}": ("Unschedulable", f"node{i} rejected") for i in range(1, 5)}),
         # cpg placement1, pg1 x2, pg2 x2, cpg placement2, pg1 x2, pg2 x2
         feasible=[["Wait", "Wait", "Unschedulable"], *[["Wait", "Unschedulable"]] * 4,
                   ["Wait", "Wait", "Unschedulable"], *[["Wait", "Unschedulable"]] * 4],
         expected={CPG: ("Unschedulable", _INFEASIBLE_2, []),
                   PG1: ("Unschedulable", _INFEASIBLE_2,
                         [("p1", None, "Unschedulable", "0/1 nodes are available: 1 node1 rejected.")]),
                   PG2: ("Unschedulable", _INFEASIBLE_2,
                         [("p2", None, "Unschedulable", "0/1 nodes are available: 1 node1 rejected.")])}),
    dict(name="respects pods already scheduled in sibling pod groups",
         plugin=dict(generate=_CPG_GEN, pod_per_node=True, scores={
             CPG: {"placement1": 1},
             PG1: {"placement1": 2, "placement2": 1},
             PG2: {"placement1": 2, "placement2": 1}}),
         feasible=None, reserve=True,
         expected={CPG: ("Success", "", []),
                   PG1: ("Success", "", [("p1", "node1", "Success", "")]),
                   PG2: ("Success", "", [("p2", None, "Unschedulable",
                                          "0/1 nodes are available: 1 node1 is already reserved.")])}),
    dict(name="when generate plugin fails at CPG, returns error",
         plugin=dict(generate=_CPG_GEN, generate_status={CPG: ("Error", "injected error")}), feasible=None,
         expected={CPG: ("Error", "injected error", [])}),
    dict(name="when generate plugin fails at PG, returns error",
         plugin=dict(generate=_CPG_GEN, generate_status={PG2: ("Error", "injected error")}, scores={
             CPG: {"placement1": 1}, PG1: {"placement1": 2, "placement2": 1}, PG2: {"placement1": 2, "placement2": 1}}),
         feasible=None,
         expected={CPG: ("Error", "composite pod group evaluation failed due to child error: injected error", []),
                   PG1: ("Success", "", [("p1", "node1", "Success", "")]),
                   PG2: ("Error", "injected error", [])}),
]
for _r in CPG_ALGO_ROWS:
    _r["source"] = f"{ALGO} TestCPGSchedulingPlacementAlgorithm"


def _cpg_cluster(pgkit, **kw):
    return pgkit.cluster([*(pgkit.node(f"node{i}") for i in range(1, 5)), pgkit.composite("cpg", **kw),
                          pgkit.pod_group("pg1", parent="cpg"), pgkit.pod_group("pg2", parent="cpg"),
                          pgkit.pod("p1", "pg1"), pgkit.pod("p2", "pg2")])


@pytest.mark.parametrize("row", CPG_ALGO_ROWS, ids=_ids(CPG_ALGO_ROWS))
def test_cpg_scheduling_placement_algorithm(row, pgkit):
    c = _cpg_cluster(pgkit)
    sched = _placement_sched(pgkit, c, row["plugin"], row["feasible"], pgkit.GATES_TAS_CPG,
                             reserve=row.get("reserve", False))
    results, _ = pgkit.run_algorithm(sched, CPG)
    got = {key: (*pgkit.status_of(r.status), _pod_rows(r)) for key, r in results.items()}
    assert got == row["expected"]
    assert c.snapshot.pod_row == {}


# ---------------------------------------------------------------------------------------------
# TestCPGSchedulingPlacementAlgorithm_Scoring: the real GangScheduling at PlacementFeasible and
# two weighted PlacementScore plugins scoring the root and the children.
# ---------------------------------------------------------------------------------------------
_CHILD_SCORES = {PG1: {"placement1": 10, "placement2": 5, "placement3": 10, "placement4": 5},
                 PG2: {"placement1": 5, "placement2": 10, "placement3": 5, "placement4": 10}}
CPG_SCORING_ROWS = [
    dict(name="respects higher score of root placement1",
         plugins=[(1, dict(_CHILD_SCORES, **{CPG: {"placement1": 50, "placement2": 75}})),
                  (2, dict(_CHILD_SCORES, **{CPG: {"placement1": 25, "placement2": 10}}))],
         expect={"p1": "node1", "p2": "node2"}),
    dict(name="respects higher score of root placement2",
         plugins=[(1, dict(_CHILD_SCORES, **{CPG: {"placement1": 75, "placement2": 50}})),
                  (2, dict(_CHILD_SCORES, **{CPG: {"placement1": 10, "placement2": 25}}))],
         expect={"p1": "node3", "p2": "node4"}),
]
for _r in CPG_SCORING_ROWS:
    _r["source"] = f"{ALGO} TestCPGSchedulingPlacementAlgorithm_Scoring"


@pytest.mark.parametrize("row", CPG_SCORING_ROWS, ids=_ids(CPG_SCORING_ROWS))
def test_cpg_scheduling_placement_algorithm_scoring(row, pgkit):
    c = _cpg_cluster(pgkit)
    registry = {"FakeGeneratorPlugin": pgkit.fake_placement_plugin(generate=_CPG_GEN, name="FakeGeneratorPlugin")}
    score_points = []
    for i, (weight, scores) in enumerate(row["plugins"]):
        name = f"FakeScorePlugin[{i}]"
        registry[name] = pgkit.fake_score_plugin(name, scores)
        score_points.append((name, weight))
    prof = pgkit.profile(filter=["FakeGeneratorPlugin"], placementGenerate=["FakeGeneratorPlugin"],
                         placementFeasible=["GangScheduling"], placementScore=score_points)
    sched = pgkit.scheduler(c, prof, registry, pgkit.GATES_TAS_CPG)
    results, _ = pgkit.run_algorithm(sched, CPG)
    hosts = {pr.pod_info.name: pr.node for r in results.values() for pr in r.pods}
    assert hosts == row["expect"]


# ---------------------------------------------------------------------------------------------
# schedule_one_podgroup_test.go TestCPGHierarchicalScheduling_ScheduleOnePodGroup: cpg-root
# (minGroupCount 2) over pg1..pg3, PlacementFeasible scripted so pg3 fails at once; every pod
# fits on node1.
# ---------------------------------------------------------------------------------------------
HIERARCHICAL_ROWS = [dict(
    name="cpg-root succeeds with pg1 and pg2, pg3 rejected by PlacementFeasible",
    feasible=[["Success"], ["Success", "Success"], ["Success", "Success", "Success"], ["Unschedulable"]],
    expect_root="Success", expect_scheduled={"p1", "p2"},
    source=f"{CYCLE} TestCPGHierarchicalScheduling_ScheduleOnePodGroup")]


@pytest.mark.parametrize("row", HIERARCHICAL_ROWS, ids=_ids(HIERARCHICAL_ROWS))
def test_cpg_hierarchical_schedule_one_pod_group(row, pgkit):
    c = pgkit.cluster([pgkit.node("node1"), pgkit.composite("cpg-root", min_group_count=2),
                       *(pgkit.pod_group(f"pg{i}", parent="cpg-root", min_count=1) for i in (1, 2, 3)),
                       *(pgkit.pod(f"p{i}", f"pg{i}") for i in (1, 2, 3))])
    registry = {"FakePodGroupPlugin": pgkit.fake_pod_group_plugin({"p1": None, "p2": None, "p3": None}),
                "FakePlacementFeasible": pgkit.fake_placement_feasible(row["feasible"])}
    prof = pgkit.profile(filter=["FakePodGroupPlugin"], placementFeasible=["FakePlacementFeasible"])
    sched = pgkit.scheduler(c, prof, registry, pgkit.GATES_TAS_CPG)
    results, _ = pgkit.run_algorithm(sched, "compositepodgroup/default/cpg-root")
    assert results["compositepodgroup/default/cpg-root"].status.code.name == row["expect_root"]
    scheduled = {pr.pod_info.name for key, r in results.items() if key.startswith("podgroup/")
                 for pr in r.pods if r.status.is_success() and pr.status.is_success()}
    assert scheduled == row["expect_scheduled"]
    for pr in results["podgroup/default/pg1"].pods + results["podgroup/default/pg2"].pods:
        assert pr.node == "node1"
