"""Ports of upstream's unit tests of the placement plugins, as data: TopologyPlacementGenerator
(PlacementGenerate), PodGroupPodsCount (PlacementScore) and GangScheduling
(PlacementFeasible). The plugins are the instances a ``Scheduler`` builds for its default
profile (gates GenericWorkload, TopologyAwareWorkloadScheduling and, per row,
CompositePodGroup); groups are ``PodGroupInfo``\\ s built from the row's cluster.
"""

from __future__ import annotations

import numpy as np
import pytest

TOPO = ("kubernetes/kubernetes pkg/scheduler/framework/plugins/topologyaware/topology_placement_test.go "
        "@0c6b883a36a4f61b47231cbd98c932c6280028b5 (stored copy id 66345299627)")
PODS_COUNT = ("kubernetes pkg/scheduler/framework/plugins/podgrouppodscount/podgroup_pods_count_test.go "
              "(stored copy id 55929703728)")
GANG = "kubernetes pkg/scheduler/framework/plugins/gangscheduling/gangscheduling_test.go (stored copy id 55632076588)"

ROOT_PG = "podgroup/default/root"
ROOT_CPG = "compositepodgroup/default/root"


def _ids(rows):
    return [r["name"] for r in rows]


def _default_scheduler(pgkit, c, cpg: bool):
    from kschedlab.scheduler import Scheduler
    gates = {"GenericWorkload": True, "TopologyAwareWorkloadScheduling": True, "CompositePodGroup": cpg}
    return Scheduler(c, gates=gates)


def _plugin(pgkit, c, name: str, cpg: bool):
    sched = _default_scheduler(pgkit, c, cpg)
    return sched, sched.profiles["default-scheduler"].plugins[name]


def _hierarchy(pgkit, root_kind: str, topology: str | None, pods: list[tuple[str, list[str], str | None]]):
    """The root group "root", the groups on each pod's path to it (``[leaf pg, ..., top cpg]``,
    empty: the pod is in the root PodGroup) and the pods ``(name, path, node or None)``."""
    objs = [pgkit.pod_group("root", topology=topology) if root_kind == "pg" else pgkit.composite("root", topology=topology)]
    added = set()
    for pod_name, path, node_name in pods:
        parent = "root"
        for j, name in reversed(list(enumerate(path))):
            if name not in added:
                objs.append(pgkit.pod_group(name, parent=parent) if j == 0 else pgkit.composite(name, parent=parent))
                added.add(name)
            parent = name
        objs.append(pgkit.pod(pod_name, parent, scheduler=None, node_name=node_name))
    return objs


# ---------------------------------------------------------------------------------------------
# TestGeneratePlacements: placement nodes (the parent placement) and other nodes (in the
# snapshot, outside the placement); scheduled pods given as (path to root, node).
# ---------------------------------------------------------------------------------------------
def _n(name, **labels):
    return (name, labels)


_D1_SPLIT = [_n("node0", topology2="d1"), _n("node1", topology2="d4"), _n("node2", topology1="d1"),
             _n("node3", topology1="d2"), _n("node4", topology1="d1"), _n("node5", topology1="d3")]
_PG_ROWS = [
    dict(name="without constraint returns placement matching all nodes", topology=None, scheduled=[],
         placement_nodes=[_n("node1"), _n("node2", foo="bar")], other_nodes=[_n("node3")],
         want={"test-placement": ["node1", "node2"]}, code="Success"),
    dict(name="with topology key constraint, returns placement for each topology domain", topology="topology1",
         scheduled=[], placement_nodes=_D1_SPLIT, other_nodes=[],
         want={"d1": ["node2", "node4"], "d2": ["node3"], "d3": ["node5"]}, code="Success"),
    dict(name="without matching topology label, returns empty", topology="topology3", scheduled=[],
         placement_nodes=_D1_SPLIT, other_nodes=[], want={}, code="Success"),
    dict(name="with pods already scheduled in a single domain, returns that domain", topology="topology",
         scheduled=[([], "node2"), ([], "node3")],
         placement_nodes=[_n("node0", topology="d2"), _n("node1", topology="d1")],
         other_nodes=[_n("node2", topology="d1"), _n("node3", topology="d1")], want={"d1": ["node1"]}, code="Success"),
    dict(name="with pods already scheduled in a single domain not present in current placement, returns empty",
         topology="topology", scheduled=[([], "node2"), ([], "node3")],
         placement_nodes=[_n("node0", topology="d2")],
         other_nodes=[_n("node2", topology="d1"), _n("node3", topology="d1")], want={}, code="Success"),
    dict(name="with pods already scheduled in conflicting domains, returns error", topology="topology",
         scheduled=[([], "node2"), ([], "node3")],
         placement_nodes=[_n("node0", topology="d2"), _n("node1", topology="d1")],
         other_nodes=[_n("node2", topology="d0"), _n("node3", topology="d1")], want=None, code="Error"),
    dict(name="with pods already scheduled in the empty string domain, returns that domain", topology="topology",
         scheduled=[([], "node2"), ([], "node3")],
         placement_nodes=[_n("node0", topology="d1"), _n("node1", topology="")],
         other_nodes=[_n("node2", topology=""), _n("node3", topology="")], want={"": ["node1"]}, code="Success"),
    dict(name="with already scheduled pod on node outside of snapshot, returns error", topology="topology",
         scheduled=[([], "node2"), ([], "node4")],
         placement_nodes=[_n("node0", topology="d2"), _n("node1", topology="d1")],
         other_nodes=[_n("node2", topology="d1"), _n("node3", topology="d1")], want=None, code="Error"),
    dict(name="with already scheduled pod on node without topology label, returns error", topology="topology",
         scheduled=[([], "node2")], placement_nodes=[_n("node1", topology="d2")],
         other_nodes=[_n("node2", foo="bar")], want=None, code="Error"),
]
_P1, _P2 = ["pg1", "cpg1"], ["pg2", "cpg2"]
_CPG_ROWS = [
    dict(name="for cpg without constraint returns placement matching all nodes", topology=None, scheduled=[],
         placement_nodes=[_n("node1"), _n("node2", foo="bar")], other_nodes=[_n("node3")],
         want={"test-placement": ["node1", "node2"]}, code="Success"),
    dict(name="for cpg with topology key constraint, returns placement for each topology domain",
         topology="topology1", scheduled=[], placement_nodes=_D1_SPLIT, other_nodes=[],
         want={"d1": ["node2", "node4"], "d2": ["node3"], "d3": ["node5"]}, code="Success"),
    dict(name="for cpg without matching topology label, returns empty", topology="topology3", scheduled=[],
         placement_nodes=_D1_SPLIT, other_nodes=[], want={}, code="Success"),
    dict(name="for cpg with pods already scheduled in a single domain, returns that domain", topology="topology",
         scheduled=[(_P1, "node2"), (_P2, "node3")],
         placement_nodes=[_n("node0", topology="d2"), _n("node1", topology="d1")],
         other_nodes=[_n("node2", topology="d1"), _n("node3", topology="d1")], want={"d1": ["node1"]}, code="Success"),
    dict(name="for cpg with pods already scheduled in a single domain not present in current placement, "
              "returns empty", topology="topology", scheduled=[(_P1, "node2"), (_P2, "node3")],
         placement_nodes=[_n("node0", topology="d2")],
         other_nodes=[_n("node2", topology="d1"), _n("node3", topology="d1")], want={}, code="Success"),
    dict(name="for cpg with pods already scheduled in conflicting domains across separate pod groups, returns error",
         topology="topology", scheduled=[(_P1, "node2"), (_P2, "node3")],
         placement_nodes=[_n("node0", topology="d2"), _n("node1", topology="d1")],
         other_nodes=[_n("node2", topology="d0"), _n("node3", topology="d1")], want=None, code="Error"),
    dict(name="for cpg with pods already scheduled in conflicting domains in a single pod group, returns error",
         topology="topology", scheduled=[(_P1, "node2"), (_P1, "node3")],
         placement_nodes=[_n("node0", topology="d2"), _n("node1", topology="d1")],
         other_nodes=[_n("node2", topology="d0"), _n("node3", topology="d1")], want=None, code="Error"),
    dict(name="for cpg with already scheduled pod on node outside of snapshot, returns error", topology="topology",
         scheduled=[(_P1, "node2"), (_P1, "node4")],
         placement_nodes=[_n("node0", topology="d2"), _n("node1", topology="d1")],
         other_nodes=[_n("node2", topology="d1"), _n("node3", topology="d1")], want=None, code="Error"),
    dict(name="for cpg with already scheduled pod on node without topology label, returns error",
         topology="topology", scheduled=[(_P1, "node2")], placement_nodes=[_n("node1", topology="d2")],
         other_nodes=[_n("node2", foo="bar")], want=None, code="Error"),
]
GENERATE_ROWS = (
    [dict(r, name=f"{r['name']} (cpg={cpg})", root="pg", cpg=cpg, source=f"{TOPO} TestGeneratePlacements")
     for cpg in (False, True) for r in _PG_ROWS]
    + [dict(r, name=f"{r['name']} (cpg=True)", root="cpg", cpg=True, source=f"{TOPO} TestGeneratePlacements")
       for r in _CPG_ROWS])


@pytest.mark.parametrize("row", GENERATE_ROWS, ids=_ids(GENERATE_ROWS))
def test_generate_placements(row, pgkit):
    from kschedlab.framework.placement import Placement
    from kschedlab.scheduler.podgroup.algorithm import PodGroupInfo

    nodes = [pgkit.node(n, labels) for n, labels in row["placement_nodes"] + row["other_nodes"]]
    pods = [(f"pod{i}", path, node) for i, (path, node) in enumerate(row["scheduled"])]
    c = pgkit.cluster(nodes + _hierarchy(pgkit, row["root"], row["topology"], pods))
    sched, plugin = _plugin(pgkit, c, "TopologyPlacementGenerator", row["cpg"])
    snap = c.snapshot
    parent = Placement("test-placement", np.asarray([snap.index[n] for n, _ in row["placement_nodes"]], np.int64))
    info = PodGroupInfo.build(c, ROOT_PG if row["root"] == "pg" else ROOT_CPG, composite=row["cpg"])
    placements, status = plugin.generate_placements({}, info, parent)
    assert status.code.name == row["code"]
    if status.is_success():
        assert {p.name: p.node_names(snap) for p in placements} == row["want"]


# ---------------------------------------------------------------------------------------------
# TestGetScheduledPodsTopologyDomainEmptyValue: the domain of already scheduled pods, observed
# through GeneratePlacements (upstream calls the helper directly).
# ---------------------------------------------------------------------------------------------
EMPTY_DOMAIN_ROWS = [
    dict(name="single empty domain is valid", pods=["empty-domain-node"], want={"": ["empty-domain-node"]}),
    dict(name="empty domain followed by non-empty domain conflicts", pods=["empty-domain-node", "non-empty-domain-node"],
         want=None),
    dict(name="non-empty domain followed by empty domain conflicts", pods=["non-empty-domain-node", "empty-domain-node"],
         want=None),
]
for _r in EMPTY_DOMAIN_ROWS:
    _r["source"] = f"{TOPO} TestGetScheduledPodsTopologyDomainEmptyValue"


@pytest.mark.parametrize("row", EMPTY_DOMAIN_ROWS, ids=_ids(EMPTY_DOMAIN_ROWS))
def test_scheduled_pods_topology_domain_empty_value(row, pgkit):
    from kschedlab.framework.placement import Placement
    from kschedlab.scheduler.podgroup.algorithm import PodGroupInfo

    c = pgkit.cluster([pgkit.node("empty-domain-node", {"topology": ""}),
                       pgkit.node("non-empty-domain-node", {"topology": "d1"}),
                       *_hierarchy(pgkit, "pg", "topology", [(f"pod{i}", [], n) for i, n in enumerate(row["pods"])])])
    _, plugin = _plugin(pgkit, c, "TopologyPlacementGenerator", False)
    placements, status = plugin.generate_placements({}, PodGroupInfo.build(c, ROOT_PG),
                                                    Placement.all_nodes(c.snapshot))
    if row["want"] is None:
        assert status.code.name == "Error"
    else:
        assert status.is_success()
        assert {p.name: p.node_names(c.snapshot) for p in placements} == row["want"]


# ---------------------------------------------------------------------------------------------
# PodGroupPodsCount TestScorePlacement: scheduled pods of the group (assigned and assumed, over
# every leaf of a CompositePodGroup) plus the proposed assignments.
# ---------------------------------------------------------------------------------------------
_PC_PG = [
    dict(name="existing assigned and assumed pods", assigned=[([], "node2"), ([], "node3")], assumed=[([], "node1")],
         want=5),
    dict(name="no assumed pods", assigned=[([], "node1")], assumed=[], want=3),
    dict(name="no assigned pods", assigned=[], assumed=[([], "node1")], want=3),
    dict(name="no assigned pods, no assumed pods", assigned=[], assumed=[], want=2),
]
_PC_CPG = [
    dict(name="for cpg existing assigned and assumed pods across multi-level hierarchies",
         assigned=[(_P1, "node2"), (_P2, "node3")], assumed=[(_P1, "node1")], want=5),
    dict(name="for cpg with no assumed pods", assigned=[(_P1, "node1")], assumed=[], want=3),
    dict(name="for cpg with no assigned pods", assigned=[], assumed=[(_P1, "node1")], want=3),
    dict(name="for cpg with no assigned pods, no assumed pods", assigned=[], assumed=[], want=2),
]
PODS_COUNT_ROWS = (
    [dict(r, name=f"{r['name']} (cpg={cpg})", root="pg", cpg=cpg, source=f"{PODS_COUNT} TestScorePlacement")
     for cpg in (False, True) for r in _PC_PG]
    + [dict(r, name=f"{r['name']} (cpg=True)", root="cpg", cpg=True, source=f"{PODS_COUNT} TestScorePlacement")
       for r in _PC_CPG])


@pytest.mark.parametrize("row", PODS_COUNT_ROWS, ids=_ids(PODS_COUNT_ROWS))
def test_pods_count_score_placement(row, pgkit):
    from kschedlab.framework.placement import Placement, PodGroupAssignments
    from kschedlab.scheduler.podgroup.algorithm import PodGroupInfo

    pods = [(f"assigned-pod{i}", path, node) for i, (path, node) in enumerate(row["assigned"])]
    # assumed pods: members without a nodeName, put into the snapshot on their node below
    pods += [(f"assumed-pod{i}", path, None) for i, (path, _) in enumerate(row["assumed"])]
    pods += [(f"proposed-pod-{i}", [], None) for i in (1, 2)]
    c = pgkit.cluster([pgkit.node(f"node{i}") for i in (1, 2, 3)] + _hierarchy(pgkit, row["root"], None, pods))
    for i, (_, node_name) in enumerate(row["assumed"]):
        pgkit.assume(c, f"assumed-pod{i}", node_name)
    _, plugin = _plugin(pgkit, c, "PodGroupPodsCount", row["cpg"])
    info = PodGroupInfo.build(c, ROOT_PG if row["root"] == "pg" else ROOT_CPG, composite=row["cpg"])
    proposed = [(c.pod_infos["default/proposed-pod-1"], "node1"), (c.pod_infos["default/proposed-pod-2"], "node2")]
    score, status = plugin.score_placement({}, info, PodGroupAssignments(Placement.all_nodes(c.snapshot), proposed))
    assert status.is_success()
    assert score == row["want"]


# ---------------------------------------------------------------------------------------------
# PodGroupPodsCount TestNormalizePlacementScore
# ---------------------------------------------------------------------------------------------
NORMALIZE_ROWS = [
    dict(name="distinct scores", scores=[10, 50, 110], want=[9, 45, 100]),
    dict(name="equal scores", scores=[50, 50], want=[100, 100]),
    dict(name="single score", scores=[50], want=[100]),
    dict(name="some minimal score that is far from a group of scores located closely", scores=[11, 100, 101, 102],
         want=[10, 98, 99, 100]),
    dict(name="zero scores", scores=[0, 0],
         error="no pods from pod group are assigned to any of the candidate placements"),
]
for _r in NORMALIZE_ROWS:
    _r["source"] = f"{PODS_COUNT} TestNormalizePlacementScore"


@pytest.mark.parametrize("row", NORMALIZE_ROWS, ids=_ids(NORMALIZE_ROWS))
def test_pods_count_normalize_placement_score(row, pgkit):
    c = pgkit.cluster([pgkit.pod_group("pg1")])
    _, plugin = _plugin(pgkit, c, "PodGroupPodsCount", False)
    scores = list(row["scores"])
    status = plugin.normalize_placement_score({}, None, scores)
    if row.get("error"):
        assert status is not None and not status.is_success()
        assert status.message() == row["error"]
        return
    assert status is None or status.is_success()
    assert scores == row["want"]


# ---------------------------------------------------------------------------------------------
# GangScheduling TestPlacementFeasible: PlacementFeasible after each evaluated pod (child for a
# CompositePodGroup); ``min_count`` 0 means a basic policy.
# ---------------------------------------------------------------------------------------------
_GANG = [
    dict(name="All pods succeed, minCount met at end", min_count=2, children=2, pods=["Success", "Success"],
         want=["Wait", "Success"], initial=0),
    dict(name="First pod fails, minCount not satisfiable", min_count=3, children=3, pods=["Unschedulable"],
         want=["Unschedulable"], initial=0),
    dict(name="Second pod fails, minCount not satisfiable", min_count=2, children=2, pods=["Success", "Unschedulable"],
         want=["Wait", "Unschedulable"], initial=0),
    dict(name="Non-gang pod group with 0 scheduled pods fails", min_count=0, children=1, pods=["Unschedulable"],
         want=["Unschedulable"], initial=0, all_variants=True),
    dict(name="Non-gang pod group with succeeds once 1 pod is scheduled", min_count=0, children=1, pods=["Success"],
         want=["Success"], initial=0, all_variants=True),
    dict(name="Non-gang pod group with 1 initially scheduled pod succeeds", min_count=0, children=1,
         pods=["Unschedulable"], want=["Success"], initial=1, all_variants=True),
    dict(name="More than minCount pods, all succeed", min_count=2, children=3, pods=["Success"] * 3,
         want=["Wait", "Success", "Success"], initial=0),
    dict(name="More than minCount pods, first fails", min_count=2, children=3,
         pods=["Unschedulable", "Success", "Success"], want=["Wait", "Wait", "Success"], initial=0),
    dict(name="More than minCount pods, minCount not satisfiable", min_count=2, children=3,
         pods=["Unschedulable", "Unschedulable"], want=["Wait", "Unschedulable"], initial=0),
    dict(name="1 pod scheduled, 2 unscheduled pods succeed, minCount 3 met", min_count=3, children=2,
         pods=["Success", "Success"], want=["Wait", "Success"], initial=1),
    dict(name="minCount already met by scheduled pods", min_count=2, children=1, pods=["Unschedulable"],
         want=["Success"], initial=2),
    dict(name="1 pod scheduled, minCount 3, first unscheduled fails, not enough remaining", min_count=3, children=2,
         pods=["Unschedulable"], want=["Unschedulable"], initial=1),
    dict(name="1 pod scheduled, minCount 4, first unscheduled succeeds, not enough remaining", min_count=4,
         children=2, pods=["Success"], want=["Unschedulable"], initial=1),
]
_VARIANTS = [(False, False), (False, True), (True, True)]  # (isCPG, cpgFeatureGate)
_ALL_VARIANTS = [(False, False), (True, False), (False, True), (True, True)]
GANG_ROWS = [
    dict(r, name=f"{r['name']} (isCPG={is_cpg}, cpgFeatureGate={gate})", is_cpg=is_cpg, cpg_gate=gate,
         source=f"{GANG} TestPlacementFeasible")
    for r in _GANG for is_cpg, gate in (_ALL_VARIANTS if r.get("all_variants") else _VARIANTS)
]


@pytest.mark.parametrize("row", GANG_ROWS, ids=_ids(GANG_ROWS))
def test_gang_placement_feasible(row, pgkit):
    from kschedlab.framework.interface import CycleState
    from kschedlab.scheduler.podgroup.algorithm import PodGroupInfo

    mc = row["min_count"] or None
    if row["is_cpg"]:
        obj, key = pgkit.composite("test-pg", min_group_count=mc, basic=mc is None), "compositepodgroup/default/test-pg"
    else:
        obj, key = pgkit.pod_group("test-pg", min_count=mc, basic=mc is None, parent="cpg-root"), "podgroup/default/test-pg"
    c = pgkit.cluster([obj])
    _, plugin = _plugin(pgkit, c, "GangScheduling", row["cpg_gate"])
    info = PodGroupInfo.build(c, key, composite=row["cpg_gate"])
    state = CycleState()
    scheduled = row["initial"]
    got = []
    for i, code in enumerate(row["pods"]):
        if code == "Success":
            scheduled += 1
        got.append(plugin.placement_feasible(state, info, scheduled, row["children"] - (i + 1)).code.name)
    assert got == row["want"]
