"""Writes the PodGroup-cycle conformance files of this directory (``shared/CASES.md``, "Pod group
cycle stages") from upstream's tables:

* ``hierarchy_tracker.json`` / ``root_readiness.json`` — gangscheduling ``TestHierarchyTracker``,
  ``TestHierarchyTracker_FindRootGroupReadiness``;
* ``helper.json`` — helper ``TestMatchingSchedulingGroup``, ``TestGetPodGroupStates``;
* ``topology_domain.json`` — topologyaware ``TestGetScheduledPodsTopologyDomainEmptyValue``;
* ``proposed_assignments.json`` — ``TestScorePlacementPodGroupAssignments``;
* ``submit.json``, ``skip.json``, ``cycle.json``, ``schedule_one.json`` — ``schedule_one_podgroup_test.go``;
* ``algorithm.json``, ``placement_algorithm.json``, ``placement_select.json`` — the algorithm
  tables, read from the transcriptions in ``tests/podgroup/test_algorithm_upstream.py`` and
  ``tests/podgroup/test_cycle_upstream.py`` (one copy of each upstream table).

Builders mirror ``st.MakePod()`` and friends and only assemble objects; every expected value is
upstream's. Run ``python tests/conformance/podgroup_cycle/_generate_podgroup_cycle.py``.
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
TESTS = HERE.parents[1]
REPO = "kubernetes/kubernetes"
PLUGINS = "pkg/scheduler/framework/plugins"
TRACKER = f"{REPO} {PLUGINS}/gangscheduling/hierarchy_tracker_test.go@191ef254a428919fdb6d3ba03519d3c7fb787521"
HELPER = f"{REPO} {PLUGINS}/helper/podgroup_test.go@(stored copy id 55773665231)"
TOPO = f"{REPO} {PLUGINS}/topologyaware/topology_placement_test.go@0c6b883a36a4f61b47231cbd98c932c6280028b5"
ALGO_COPY = f"{REPO} pkg/scheduler/algorithm_podgroup_test.go@(stored copy id 61833729451)"
CYCLE_COPY = f"{REPO} pkg/scheduler/schedule_one_podgroup_test.go@(stored copy id 55634420285)"
NS = "default"
PG_KEY = "podgroup/default/pg"


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


kit = _load("pg_conftest", TESTS / "podgroup" / "conftest.py")
ALGO = _load("pg_algorithm_rows", TESTS / "podgroup" / "test_algorithm_upstream.py")
CYCLE = _load("pg_cycle_rows", TESTS / "podgroup" / "test_cycle_upstream.py")


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def st(spec) -> dict | None:
    """A shorthand status of the transcriptions as a case status."""
    if spec is None:
        return None
    if isinstance(spec, str):
        return {"code": spec}
    code, *reasons = spec
    return {"code": code, "message": reasons[0]} if reasons else {"code": code}


def pod(name: str, group: str | None = None, ns: str = "ns1", uid: str | None = None, **kw) -> dict:
    spec: dict = {}
    if group:
        spec["schedulingGroup"] = {"podGroupName": group}
    spec.update(kw)
    meta = {"name": name, "namespace": ns}
    if uid:
        meta["uid"] = uid
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}


def pg(name: str, ns: str = "ns1", parent: str | None = None, min_count: int | None = None,
       basic: bool = False) -> dict:
    spec: dict = {}
    if min_count is not None:
        spec["schedulingPolicy"] = {"gang": {"minCount": min_count}}
    elif basic:
        spec["schedulingPolicy"] = {"basic": {}}
    if parent:
        spec["parentCompositePodGroupName"] = parent
    return {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
            "metadata": {"name": name, "namespace": ns}, "spec": spec}


def cpg(name: str, ns: str = "ns1", parent: str | None = None, min_groups: int | None = None,
        basic: bool = False) -> dict:
    spec: dict = {}
    if min_groups is not None:
        spec["schedulingPolicy"] = {"gang": {"minGroupCount": min_groups}}
    elif basic:
        spec["schedulingPolicy"] = {"basic": {}}
    if parent:
        spec["parentCompositePodGroupName"] = parent
    return {"apiVersion": "scheduling.k8s.io/v1alpha3", "kind": "CompositePodGroup",
            "metadata": {"name": name, "namespace": ns}, "spec": spec}


def case(family: str, name: str, source: str, stage: str, plugin: str | None = None, **body) -> dict:
    out = {"id": f"podgroup_cycle/{family}/{slug(name)}", "source": f"{source} :: {name}", "stage": stage}
    if plugin:
        out["plugin"] = plugin
    out.update(body)
    return out


# -- hierarchy tracker ------------------------------------------------------------------------------
def hierarchy_tracker() -> list[dict]:
    root_k, mid_k = "compositepodgroup/ns1/root-cpg", "compositepodgroup/ns1/mid-cpg"
    cpg1_k, cpg2_k = "compositepodgroup/ns1/cpg1", "compositepodgroup/ns1/cpg2"
    pg1_k, pg2_k = "podgroup/ns1/pg1", "podgroup/ns1/pg2"
    root, mid = cpg("root-cpg", min_groups=1), cpg("mid-cpg", parent="root-cpg", min_groups=2)
    pg1, pg2 = pg("pg1", parent="mid-cpg", min_count=2), pg("pg2", parent="mid-cpg", min_count=1)
    p1a, p1b = pod("pod-1a", "pg1", uid="uid-1a"), pod("pod-1b", "pg1", uid="uid-1b")
    p2a = pod("pod-2a", "pg2", uid="uid-2a")
    p1a_again = pod("pod-1a", "pg2", uid="uid-1a-recreated")
    c1, c2 = cpg("cpg1", min_groups=1), cpg("cpg2", min_groups=1)
    rep, rep2 = pg("pg-reparent", parent="cpg1", min_count=1), pg("pg-reparent", parent="cpg2", min_count=1)
    rep_pod = pod("pod-reparent", "pg-reparent", uid="uid-reparent")
    basic_k = "compositepodgroup/ns1/root-basic"
    basic_pod = pod("pod-basic-1", "child-basic", uid="uid-basic-1")
    deep = [cpg("deep-cpg1", min_groups=1), cpg("deep-cpg2", parent="deep-cpg1", min_groups=1),
            cpg("deep-cpg3", parent="deep-cpg2", min_groups=1), cpg("deep-cpg4", parent="deep-cpg3", min_groups=1)]

    def s(op, obj, counts=None, old=None):
        out = {"op": op, "obj": obj}
        if old is not None:
            out["oldObj"] = old
        return out, counts or {}

    rows = {
        "3-level hierarchy propagation (Root CPG -> Mid CPG -> PG1, PG2)": [
            s("addCPG", root, {root_k: 0}), s("addCPG", mid, {root_k: 0, mid_k: 0}),
            s("addPG", pg1, {root_k: 0, mid_k: 0}), s("addPG", pg2, {root_k: 0, mid_k: 0}),
            s("addPod", p1a, {root_k: 0, mid_k: 0}), s("addPod", p1b, {root_k: 0, mid_k: 1}),
            s("addPod", p2a, {root_k: 1, mid_k: 2}), s("deletePod", p1b, {root_k: 0, mid_k: 1})],
        "Out of order arrival (Pod arrives before PG, PG arrives before CPG)": [
            s("addPod", p1a, {root_k: 0}), s("addPod", p1b, {root_k: 0}),
            s("addPG", pg("pg1", parent="root-cpg", min_count=2), {root_k: 1}), s("addCPG", root, {root_k: 1})],
        "Re-parenting PodGroup moves readiness count across CPGs": [
            s("addCPG", c1, {cpg1_k: 0, cpg2_k: 0}), s("addCPG", c2, {cpg1_k: 0, cpg2_k: 0}),
            s("addPG", rep, {cpg1_k: 0, cpg2_k: 0}), s("addPod", rep_pod, {cpg1_k: 1, cpg2_k: 0}),
            s("updatePG", rep2, {cpg1_k: 0, cpg2_k: 1}), s("deletePG", rep2, {cpg1_k: 0, cpg2_k: 0})],
        "Basic scheduling policy evaluates readiness on first pod": [
            s("addCPG", cpg("root-basic", basic=True), {basic_k: 0}),
            s("addPG", pg("child-basic", parent="root-basic", basic=True), {basic_k: 0}),
            s("addPod", basic_pod, {basic_k: 1}), s("deletePod", basic_pod, {basic_k: 0})],
        "Preserve active pods when PodGroup is deleted and re-created": [
            s("addCPG", root, {root_k: 0}), s("addPG", pg1, {root_k: 0, pg1_k: 0}),
            s("addPod", p1a, {root_k: 0, pg1_k: 1}), s("addPod", p1b, {root_k: 0, pg1_k: 2}),
            s("deletePG", pg1, {root_k: 0, pg1_k: 2}), s("addPG", pg1, {pg1_k: 2})],
        "Prune deleted PodGroup when all pods are removed": [
            s("addPG", pg1, {pg1_k: 0}), s("addPod", p1a, {pg1_k: 1}), s("deletePG", pg1, {pg1_k: 1}),
            s("deletePod", p1a, {pg1_k: 0})],
        "Collapsed pod delete and recreate moves the pod between groups": [
            s("addPG", pg1, {pg1_k: 0}), s("addPG", pg2, {pg2_k: 0}), s("addPod", p1a, {pg1_k: 1, pg2_k: 0}),
            s("updatePod", p1a_again, {pg1_k: 0, pg2_k: 1}, old=p1a),
            s("updatePod", p1a_again, {pg1_k: 0, pg2_k: 1}, old=p1a_again)],
        "Parent cycle terminates readiness propagation": [
            s("addCPG", cpg("cpg-cycle-a", parent="cpg-cycle-b", min_groups=1)),
            s("addCPG", cpg("cpg-cycle-b", parent="cpg-cycle-a", min_groups=1)),
            s("addPG", pg("pg-cycle", parent="cpg-cycle-a", min_count=1)),
            s("addPod", pod("pod-cycle", "pg-cycle", uid="uid-cycle"),
              {"podgroup/ns1/pg-cycle": 1, "compositepodgroup/ns1/cpg-cycle-a": 2,
               "compositepodgroup/ns1/cpg-cycle-b": 1})],
        "Hierarchy deeper than WorkloadMaxTreeDepth stops propagating": [
            *(s("addCPG", c) for c in deep), s("addPG", pg("deep-pg", parent="deep-cpg4", min_count=1)),
            s("addPod", pod("pod-deep", "deep-pg", uid="uid-deep"),
              {"podgroup/ns1/deep-pg": 1, "compositepodgroup/ns1/deep-cpg4": 1, "compositepodgroup/ns1/deep-cpg3": 1,
               "compositepodgroup/ns1/deep-cpg2": 1, "compositepodgroup/ns1/deep-cpg1": 0})],
    }
    return [case("hierarchy-tracker", name, f"{TRACKER} :: TestHierarchyTracker", "hierarchy-tracker",
                 compositePodGroupEnabled=True, steps=[step for step, _ in steps],
                 expected={"other": {"readyCountsAfterStep": [counts for _, counts in steps]}})
            for name, steps in rows.items()]


def root_readiness() -> list[dict]:
    root, mid = cpg("root-cpg", min_groups=2), cpg("mid-cpg", parent="root-cpg", min_groups=2)
    pg1, pg2 = pg("pg1", parent="mid-cpg", min_count=2), pg("pg2", parent="mid-cpg", min_count=2)
    tree = [root, mid, pg1, pg2]
    four = [pod("p1", "pg1", uid="p1"), pod("p2", "pg1", uid="p2"), pod("p3", "pg2", uid="p3"),
            pod("p4", "pg2", uid="p4")]
    dangling = pg("dangling-pg", parent="non-existent-cpg", min_count=2)
    deep = [cpg("cpg1"), cpg("cpg2", parent="cpg1"), cpg("cpg3", parent="cpg2"), cpg("cpg4", parent="cpg3"),
            pg("deep-pg", parent="cpg4")]
    rows = [
        ("Standalone PodGroup returns itself when CPG enabled", True, [pg("standalone-pg", min_count=2)],
         [pod("p1", "standalone-pg", uid="p1"), pod("p2", "standalone-pg", uid="p2")],
         "podgroup/ns1/standalone-pg", {"rootName": "standalone-pg", "readyChildren": 2}),
        ("Leaf PodGroup returns root CompositePodGroup when CPG enabled", True, tree, four, "podgroup/ns1/pg1",
         {"rootName": "root-cpg", "readyChildren": 1}),
        ("Mid CompositePodGroup returns root CompositePodGroup when CPG enabled", True, tree, four,
         "compositepodgroup/ns1/mid-cpg", {"rootName": "root-cpg", "readyChildren": 1}),
        ("Root CompositePodGroup returns itself when CPG enabled", True, tree, four,
         "compositepodgroup/ns1/root-cpg", {"rootName": "root-cpg", "readyChildren": 1}),
        ("PodGroup with dangling parent returns nil without error when CPG enabled", True, [dangling], [],
         "podgroup/ns1/dangling-pg", {"nilRoot": True}),
        ("Non-existent key returns nil without error when CPG enabled", True, [], [], "podgroup/ns1/missing",
         {"nilRoot": True}),
        ("Leaf PodGroup returns itself when CPG disabled", False, [pg1],
         [pod("p1", "pg1", uid="p1"), pod("p2", "pg1", uid="p2")], "podgroup/ns1/pg1",
         {"rootName": "pg1", "readyChildren": 2}),
        ("Dangling PodGroup returns itself when CPG disabled", False, [dangling],
         [pod("p1", "dangling-pg", uid="p1"), pod("p2", "dangling-pg", uid="p2")], "podgroup/ns1/dangling-pg",
         {"rootName": "dangling-pg", "readyChildren": 2}),
        ("Hierarchy cycle exceeding max tree depth returns error", True,
         [cpg("cycle1", parent="cycle2"), cpg("cycle2", parent="cycle1")], [], "compositepodgroup/ns1/cycle1",
         {"error": "hierarchy exceeded maximum tree depth at compositepodgroup/ns1/cycle1, possibly caused by "
                   "cycle or deep hierarchy"}),
        ("Hierarchy exceeding max tree depth returns error", True, deep, [], "podgroup/ns1/deep-pg",
         {"error": "hierarchy exceeded maximum tree depth at compositepodgroup/ns1/cpg1, possibly caused by "
                   "cycle or deep hierarchy"}),
    ]
    return [case("hierarchy-root-readiness", name, f"{TRACKER} :: TestHierarchyTracker_FindRootGroupReadiness",
                 "hierarchy-root-readiness", compositePodGroupEnabled=enabled, podGroups=groups, pods=pods,
                 lookupKey=key, expected={"other": want})
            for name, enabled, groups, pods, key, want in rows]


# -- helpers and the topology domain ------------------------------------------------------------------
def helper() -> list[dict]:
    def p(name, ns, group=None):
        return pod(name, group, ns=ns)

    matching = [
        ("same pod with schedulingGroup", p("pod1", "test", "name"), p("pod1", "test", "name"), True),
        ("different pods, same schedulingGroup", p("pod1", "test", "name"), p("pod2", "test", "name"), True),
        ("same pod but no schedulingGroup", p("pod1", "test"), p("pod1", "test"), False),
        ("different pods, only one with schedulingGroup", p("pod1", "test", "name"), p("pod2", "test"), False),
        ("same schedulingGroup but different namespaces", p("pod1", "test1", "name"), p("pod2", "test2", "name"),
         False),
        ("same namespace but different pod group", p("pod1", "test", "name1"), p("pod2", "test", "name2"), False),
    ]
    out = [case("helper", name, f"{HELPER} :: TestMatchingSchedulingGroup", "helper:MatchingSchedulingGroup",
                "helper", pod=a, pod2=b, expected={"other": {"result": want}}) for name, a, b, want in matching]
    deep_cpgs = [cpg("cpg-root", "test"), cpg("cpg1", "test", "cpg-root"), cpg("cpg2.1", "test", "cpg1"),
                 cpg("cpg3", "test", "cpg2.1"), cpg("cpg4", "test", "cpg3"), cpg("cpg2.2", "test", "cpg1")]
    deep_pgs = [pg("pg-root", "test", "cpg-root"), pg("pg1", "test", "cpg1"), pg("pg2.1", "test", "cpg2.1"),
                pg("pg2.2", "test", "cpg2.2")]
    mids = [cpg("cpg-root", "test"), cpg("cpg-mid1", "test", "cpg-root"), cpg("cpg-mid2", "test", "cpg-root")]
    states = [
        ("root is PodGroup", [pg("pg1", "test")], [], "podgroup/test/pg1", [], 0),
        ("root is CompositePodGroup", [pg("pg1", "test", "cpg-root"), pg("pg2", "test", "cpg-root")],
         [cpg("cpg-root", "test")], "compositepodgroup/test/cpg-root", [], 0),
        ("root is CompositePodGroup and has no leaves", [], [cpg("cpg-root", "test")],
         "compositepodgroup/test/cpg-root", [], 0),
        ("root is CompositePodGroup and one entity key is missing", [pg("pg-leaf", "test", "cpg-mid2")], mids,
         "compositepodgroup/test/cpg-root", ["compositepodgroup/test/cpg-mid1"], 1),
        ("root is CompositePodGroup and multiple entity keys are missing", [], mids,
         "compositepodgroup/test/cpg-root",
         ["compositepodgroup/test/cpg-mid1", "compositepodgroup/test/cpg-mid2"], 2),
        ("there's no root matching the entity key", [], [], "podgroup/test/non-existent", [], 1),
        ("cpg tree exceeds the max depth", deep_pgs, deep_cpgs, "compositepodgroup/test/cpg-root", [], 1),
    ]
    for name, pgs, cpgs, root_key, faulty, errors in states:
        pods = [pod(g["metadata"]["name"], g["metadata"]["name"], ns="test", uid=g["metadata"]["name"]) for g in pgs]
        body = dict(featureGates={"GenericWorkload": True, "TopologyAwareWorkloadScheduling": True,
                                  "CompositePodGroup": True},
                    podGroups=[*pgs, *cpgs], pendingPods=pods, rootKey=root_key,
                    expected={"other": {"podGroups": [g["metadata"]["name"] for g in pgs], "errorCount": errors}},
                    notes="each PodGroup holds one pod named after it, as upstream builds them")
        if faulty:
            body["faultyKeys"] = faulty
        out.append(case("helper", name, f"{HELPER} :: TestGetPodGroupStates", "helper:GetPodGroupStates",
                        "helper", **body))
    return out


def topology_domain() -> list[dict]:
    nodes = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "empty-domain-node", "labels": {"topology": ""}}},
             {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "non-empty-domain-node",
                                                              "labels": {"topology": "d1"}}}]

    def placed(name, node):
        return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "uid": name}, "spec": {"nodeName": node}}

    rows = [
        ("single empty domain is valid", [placed("pod1", "empty-domain-node")], {"domain": ""}),
        ("empty domain followed by non-empty domain conflicts",
         [placed("pod1", "empty-domain-node"), placed("pod2", "non-empty-domain-node")], {"error": True}),
        ("non-empty domain followed by empty domain conflicts",
         [placed("pod1", "non-empty-domain-node"), placed("pod2", "empty-domain-node")], {"error": True}),
    ]
    return [case("topology-domain", name, f"{TOPO} :: TestGetScheduledPodsTopologyDomainEmptyValue",
                 "topology-scheduled-domain", "TopologyPlacementGenerator", nodes=nodes, existingPods=pods,
                 topologyKey="topology", expected={"other": want},
                 notes="the pods have no namespace (the empty one), as upstream builds them")
            for name, pods, want in rows]


def proposed_assignments() -> list[dict]:
    ok = {"code": "Success"}

    def res(*pods, status=ok):
        return {"status": status, "podResults": [{"pod": p, "node": n, "status": s or ok} for p, n, s in pods]}

    flat = {"name": "rootcpg", "children": [{"name": "pg1"}, {"name": "pg2"}]}
    multi = {"name": "rootcpg", "children": [{"name": "midcpg1", "children": [{"name": "pg1"}]},
                                             {"name": "midcpg2", "children": [{"name": "pg2"}]}]}
    rows = [
        ("flat composite pod group with all successful leaves", flat, {
            "placement1": {"rootcpg": {"status": ok}, "pg1": res(("p1", "node1", None)),
                           "pg2": res(("p2", "node2", None))},
            "placement2": {"rootcpg": {"status": ok}, "pg1": res(("p1", "node3", None)),
                           "pg2": res(("p2", "node4", None))}},
         {"placement1": {"p1": "node1", "p2": "node2"}, "placement2": {"p1": "node3", "p2": "node4"}}),
        ("multi-level tree where an intermediate subtree fails", multi, {
            "placement1": {"rootcpg": {"status": ok}, "midcpg1": {"status": ok}, "pg1": res(("p1", "node1", None)),
                           "midcpg2": {"status": {"code": "Unschedulable", "message": "minGroupCount not met"}},
                           "pg2": res(("p2", "node2", None))},
            "placement2": {"rootcpg": {"status": ok}, "midcpg1": {"status": ok}, "pg1": res(("p1", "node3", None)),
                           "midcpg2": {"status": ok}, "pg2": res(("p2", "node4", None))}},
         {"placement1": {"p1": "node1"}, "placement2": {"p1": "node3", "p2": "node4"}}),
        ("missing subtree result due to short-circuiting in PlacementFeasible", multi, {
            "placement1": {"rootcpg": {"status": ok}, "midcpg1": {"status": ok}, "pg1": res(("p1", "node1", None))},
            "placement2": {"rootcpg": {"status": ok}, "midcpg2": {"status": ok}, "pg2": res(("p2", "node2", None))}},
         {"placement1": {"p1": "node1"}, "placement2": {"p2": "node2"}}),
        ("leaf pod group with some failed or unassigned pods",
         {"name": "rootcpg", "children": [{"name": "pg1"}, {"name": "pg3"}]}, {
             "placement1": {"rootcpg": {"status": ok}, "pg1": res(("p1", "node1", None)),
                            "pg3": res(("p3", "node3", None), ("p4", "", {"code": "Unschedulable"}))},
             "placement2": {"rootcpg": {"status": ok}, "pg1": res(("p1", "node2", None)),
                            "pg3": res(("p3", "", None), ("p4", "node4", None))}},
         {"placement1": {"p1": "node1", "p3": "node3"}, "placement2": {"p1": "node2", "p4": "node4"}}),
    ]
    gates = {"GenericWorkload": True, "TopologyAwareWorkloadScheduling": True, "CompositePodGroup": True}
    return [case("proposed-assignments", name, f"{ALGO_COPY} :: TestScorePlacementPodGroupAssignments",
                 "cpg-proposed-assignments", "scheduler", featureGates=gates, tree=tree, placementResults=results,
                 expected={"other": {"assignmentsByPlacement": want}},
                 notes="inner nodes of the tree are CompositePodGroups, leaves PodGroups (namespace default)")
            for name, tree, results, want in rows]


# -- the cycle ----------------------------------------------------------------------------------------
_CLEAR = {"nominatedNodeName": "", "mode": "Override"}


def submit() -> list[dict]:
    node1 = kit.node("node1")
    pods = [kit.pod(n, "pg") for n in ("p1", "p2", "p3")]
    fine = {"suggestedHost": "node1"}

    def no(status):
        return {"suggestedHost": "", "nominatingInfo": _CLEAR, "status": status}

    unsched = {"code": "Unschedulable"}
    scheduled_true = [{"type": "PodGroupInitiallyScheduled", "status": "True", "reason": "Scheduled",
                       "message": "All pods scheduled", "lastTransitionTime": "2026-01-01T00:00:00Z"}]
    cond_sched = {"type": "PodGroupInitiallyScheduled", "status": "True", "reason": "Scheduled"}
    kept = dict(cond_sched, message="All pods scheduled")

    def unsched_cond(msg):
        return {"type": "PodGroupInitiallyScheduled", "status": "False", "reason": "Unschedulable", "message": msg}

    rows = [
        ("All pods feasible", None, None, False, {"p1": fine, "p2": fine, "p3": fine},
         {"bound": ["p1", "p2", "p3"], "podGroupCondition": cond_sched}),
        ("All pods feasible, but podGroup unschedulable", None,
         {"code": "Unschedulable", "message": "not enough capacity for the gang"}, False,
         {"p1": fine, "p2": fine, "p3": fine},
         {"failed": ["p1", "p2", "p3"], "podGroupCondition": unsched_cond("not enough capacity for the gang")}),
        ("One unschedulable", None, None, False, {"p1": fine, "p2": no(unsched), "p3": fine},
         {"bound": ["p1", "p3"], "failed": ["p2"], "podGroupCondition": cond_sched, "podsInActiveQueue": ["p2"]}),
        ("All pods unschedulable", None, {"code": "Unschedulable", "message": "0/3 nodes are available: insufficient cpu"},
         False, {"p1": no(unsched), "p2": no(unsched), "p3": no(unsched)},
         {"failed": ["p1", "p2", "p3"], "podGroupCondition": unsched_cond("0/3 nodes are available: insufficient cpu")}),
        ("All pods unschedulable with nil nominatingInfo", None,
         {"code": "Unschedulable", "message": "0/3 nodes are available: insufficient cpu"}, False,
         {p: {"suggestedHost": "", "status": unsched} for p in ("p1", "p2", "p3")},
         {"failed": ["p1", "p2", "p3"], "podGroupCondition": unsched_cond("0/3 nodes are available: insufficient cpu")}),
        ("Unschedulable for the entire pod group", None, {"code": "Unschedulable", "message": "node affinity mismatch"},
         False, {"p1": no(unsched), "p2": no(unsched), "p3": no(unsched)},
         {"failed": ["p1", "p2", "p3"], "podGroupCondition": unsched_cond("node affinity mismatch")}),
        ("Error for one pod", None, {"code": "Error", "message": "plugin returned error"}, False,
         {"p1": fine, "p2": no({"code": "Error", "message": "plugin returned error"}),
          "p3": no({"code": "Error", "message": "plugin returned error"})},
         {"failed": ["p1", "p2", "p3"], "podGroupCondition": {"type": "PodGroupInitiallyScheduled", "status": "False",
                                                              "reason": "SchedulerError",
                                                              "message": "plugin returned error"}}),
        ("Already Scheduled, successful cycle keeps condition", scheduled_true, None, False,
         {"p1": fine, "p2": fine, "p3": fine}, {"bound": ["p1", "p2", "p3"], "podGroupCondition": cond_sched}),
        ("Already Scheduled, rejected cycle does not regress condition", scheduled_true,
         {"code": "Unschedulable", "message": "extra pods could not be placed"}, False,
         {"p1": no(unsched), "p2": no(unsched), "p3": no(unsched)},
         {"failed": ["p1", "p2", "p3"], "podGroupCondition": kept}),
        ("Already Scheduled, error cycle does not regress condition", scheduled_true, {"code": "Error"}, False,
         {"p1": fine, "p2": no({"code": "Error"}), "p3": no({"code": "Error"})},
         {"failed": ["p1", "p2", "p3"], "podGroupCondition": kept}),
        ("PodGroup waiting on preemption uses nominating info instead of suggested host for successfully evaluated "
         "pods", None, {"code": "Unschedulable", "message": "waiting on preemption"}, True,
         {"p1": {"suggestedHost": "node1", "nominatingInfo": {"nominatedNodeName": "node2", "mode": "Override"}},
          "p2": no(unsched), "p3": no(unsched)},
         {"preempting": {"p1": "node2"}, "failed": ["p2", "p3"],
          "podGroupCondition": unsched_cond("waiting on preemption")}),
    ]
    out = []
    for name, conditions, status, waiting, results, want in rows:
        group = kit.pod_group("pg", conditions=conditions)
        result = {"status": status, "waitingOnPreemption": waiting, "podResults": results}
        out.append(case("submit", name, f"{CYCLE_COPY} :: TestSubmitPodGroupAlgorithmResult", "podgroup-submit",
                        "scheduler", nodes=[node1, kit.node("node2")], podGroups=[group], pendingPods=pods,
                        algorithmResult=result, expected={"other": want},
                        notes="node2 is in the cluster so that the nomination of the preemption row names a node"))
    return out


def skip() -> list[dict]:
    row = CYCLE.SKIP_ROWS[0]
    pods = [kit.pod(n, "pg", scheduler=None, **kw) for n, kw in row["pods"].items()]
    return [case("skip", "TestSkipPodGroupPodSchedule", CYCLE_COPY, "podgroup-skip", "scheduler",
                 nodes=[kit.node("node1")], podGroups=[kit.pod_group("pg")], pendingPods=pods,
                 assumedPods=row["assumed"], expected={"other": {"remainingPods": row["expect_attempted"]}},
                 notes="p2 is being deleted, p3 is assumed (on node1)")]


def cycle() -> list[dict]:
    out = []
    row = CYCLE.FEWER_ROWS[0]
    filters = {k: st(v) for k, v in row["filter"].items()}
    out.append(case("cycle", row["name"], f"{CYCLE_COPY} :: TestPodGroupCycle_FillsPodResultsOnFewerResults",
                    "podgroup-cycle", "scheduler", nodes=[kit.node("node1")], podGroups=[kit.pod_group("pg")],
                    pendingPods=[kit.pod(n, "pg") for n in ("p1", "p2", "p3")],
                    fakePlugins=[{"name": "FakePodGroupPlugin", "extensionPoints": ["filter", "postFilter"],
                                  "filterStatusByPod": filters}],
                    expected={"other": {"failed": row["expect"], "algorithmPodResultsCount": row["algorithm_pods"]}}))
    fail_both = {"p1": {"code": "Unschedulable", "message": "always fail p1"},
                 "p2": {"code": "Unschedulable", "message": "always fail p2"}}
    for row in CYCLE.POST_FILTER_ROWS:
        name = row["post_filter_plugin"]
        fakes = [{"name": "FakePodGroupPlugin", "extensionPoints": ["filter"] + (["postFilter"] if name != "DefaultPreemption" else []),
                  "filterStatusByPod": fail_both}]
        if name == "DefaultPreemption":  # upstream registers the same fake as DefaultPreemption
            fakes.append({"name": "DefaultPreemption", "double": "FakePodGroupPlugin",
                          "extensionPoints": ["postFilter", "podGroupPostFilter"], "filterStatusByPod": fail_both})
        out.append(case("cycle", row["name"], f"{CYCLE_COPY} :: TestPodGroupCycle_PodGroupPostFilter",
                        "podgroup-cycle", "scheduler", featureGates={"GenericWorkload": row["generic_workload"]},
                        nodes=[kit.node("node1")], podGroups=[kit.pod_group("pg")],
                        pendingPods=[kit.pod(n, "pg") for n in ("p1", "p2")], fakePlugins=fakes,
                        expected={"other": {"podGroupPostFilterCalled": row["expect_called"]}}))
    for row in CYCLE.CPG_CYCLE_ROWS:
        objs, filters, pods = [], {}, []
        for gname, (min_groups, parent) in row["cpgs"].items():
            objs.append(kit.composite(gname, parent=parent, min_group_count=min_groups or None, basic=not min_groups))
        for gname, (min_count, parent) in row["pgs"].items():
            objs.append(kit.pod_group(gname, parent=parent, min_count=min_count or None, basic=not min_count))
            for i in range(3):
                pname = f"{gname}-pod-{i}"
                cpu = "100" if (row.get("big_pod") == gname and i == 0) else ("1" if "big_pod" in row else None)
                pods.append(kit.pod(pname, gname, cpu=cpu))
                failing = {"code": "Unschedulable"} if row["name"].endswith("Scheduling_Internal") else \
                    {"code": "Unschedulable", "message": "insufficient cpu"}  # as each upstream test writes it
                filters[pname] = failing if gname in row["failing"] else None
        node = kit.node("node1", cpu="100" if row["name"].endswith("Scheduling_Internal") else "20")
        not_failed = [f"{g}-pod-{i}" for g in sorted(row["success"]) for i in range(3)]
        failed = [f"{g}-pod-{i}" for g in sorted(row["fail"]) for i in range(3)]
        out.append(case("cycle", row["name"], CYCLE_COPY, "podgroup-cycle", "scheduler",
                        featureGates={"GenericWorkload": True, "TopologyAwareWorkloadScheduling": True,
                                      "CompositePodGroup": True},
                        nodes=[node], podGroups=objs, pendingPods=pods, target="compositepodgroup/default/cpg-root",
                        fakePlugins=[{"name": "FakePodGroupPlugin", "extensionPoints": ["filter"],
                                      "filterStatusByPod": filters}],
                        realPlugins=["GangScheduling"],
                        profile={"filter": ["FakePodGroupPlugin"], "placementFeasible": ["GangScheduling"],
                                 "permit": ["GangScheduling"]},
                        expected={"other": {"failed": failed, "notFailed": not_failed}},
                        notes="upstream gives the pods priority 100 and calls podGroupCycle past validation; the "
                              "groups have none, so the pods carry none either (validatePodGroup would refuse them)"))
    return out


def schedule_one() -> list[dict]:
    row = CYCLE.MISMATCH_ROWS[0]
    pods = [kit.pod("p1", "pg", scheduler="sched1"), kit.pod("p2", "pg", scheduler="sched2")]
    return [case("schedule-one", row["name"], f"{CYCLE_COPY} :: TestScheduleOnePodGroup_SchedulerNameMismatchUpdatesStatus",
                 "podgroup-schedule-one", "scheduler", nodes=[kit.node("node1")], podGroups=[kit.pod_group("pg")],
                 existingPods=[kit.pod("p", "pg", scheduler="sched1", node_name="node1")], pendingPods=pods,
                 profiles=["sched1", "sched2"],
                 expected={"other": {"podGroupCondition": {"type": "PodGroupInitiallyScheduled", "status": "False",
                                                           "reason": "SchedulerError", "message": row["message"]}}},
                 notes="message in the hierarchy wording of the current validatePodGroup; the stored test copy "
                       f"still has the older one: {row['upstream_message']!r}")]


# -- the algorithm --------------------------------------------------------------------------------------
ORDERED = "FakePlacementPlugin_Ordered"  # upstream's orderedPlacementPlugin name
_ALGO_SRC = ALGO.ALGO.replace(" @", "@").replace(" (stored copy id 70228345290)", "")


def _gates(tas=True, cpg=False):
    return {"GenericWorkload": True, "TopologyAwareWorkloadScheduling": tas, "CompositePodGroup": cpg}


def algorithm() -> list[dict]:
    out = []
    for row in ALGO.DEFAULT_ALGO_ROWS:
        fakes = [{"name": "FakePodGroupPlugin", "extensionPoints": ["filter"],
                  "filterStatusByPod": {k: st(v) for k, v in row["filter"].items()}},
                 {"name": "GangScheduling", "extensionPoints": ["placementFeasible"],
                  "placementFeasibleSequences": [row["feasible"]]}]
        results = {p: {"code": c, "suggestedHost": "node1" if c == "Success" else ""} for p, c in row["pods"].items()}
        out.append(case("algorithm", row["name"], f"{_ALGO_SRC} :: TestPodGroupSchedulingAlgorithm",
                        "podgroup-algorithm", "scheduler", featureGates=_gates(row["tas"], row["cpg"]),
                        nodes=[kit.node("node1")], podGroups=[kit.pod_group("pg")],
                        pendingPods=[kit.pod(n, "pg") for n in ("p1", "p2", "p3")], fakePlugins=fakes,
                        expected={"other": {"groupCode": row["group"], "podResults": results}}))
    return out


def _placement_fakes(plugin: dict, feasible, reserve: bool = False, wrapper: str | None = ORDERED) -> list[dict]:
    spec = {"name": "FakePlacementPlugin",
            "extensionPoints": ["filter", "placementGenerate", "placementScore"] + (["reserve"] if reserve else [])}
    if plugin.get("generate"):
        spec["generatePlacements"] = plugin["generate"]
    if plugin.get("generate_status"):
        spec["generateStatus"] = {k: st(v) for k, v in plugin["generate_status"].items()}
    if plugin.get("scores"):
        spec["scorePlacements"] = plugin["scores"]
    if plugin.get("score_status"):
        spec["scoreStatus"] = {k: {p: st(s) for p, s in v.items()} for k, v in plugin["score_status"].items()}
    if plugin.get("filter_status"):
        spec["filterStatusByNode"] = {k: st(v) for k, v in plugin["filter_status"].items()}
    if plugin.get("pod_per_node"):
        spec["podPerNode"] = True
    if wrapper and plugin.get("ordered", True):
        spec["orderedGenerateWrapperName"] = wrapper
    return [spec, {"name": "GangScheduling", "extensionPoints": ["placementFeasible"],
                   "placementFeasibleSequences": feasible or []}]


def _status(code_msg, plugin=None) -> dict:
    code, msg = code_msg
    out = {"code": code, "message": msg}
    if plugin:
        out["plugin"] = plugin
    return out


def _pods(rows) -> list[dict]:
    """Pod results of the transcriptions, with the node counts upstream's ScheduleResult holds
    (1 and 1 for a pod placed on its one-node placement, none for a pod that did not fit)."""
    return [{"pod": p, "suggestedHost": n or "", "status": {"code": c, "message": m},
             "evaluatedNodes": 1 if n else 0, "feasibleNodes": 1 if n else 0} for p, n, c, m in rows]


def _upstream_placement_rows() -> list[tuple]:
    """TestPodGroupSchedulingPlacementAlgorithm as upstream writes it (algorithm_podgroup_test.go@1ff291df,
    the same rows as schedule_one_podgroup_test.go's older copy 55634420285): (name, plugin, feasible,
    status, pod results, metrics)."""
    gen2 = {PG_KEY: {"placement1": ["node1"], "placement2": ["node2"]}}
    infeasible = {"code": "Unschedulable",
                  "message": "0/2 placements are available, first placement status: injected placementFeasible status"}
    ok_on = lambda node: {"pod": "foo", "suggestedHost": node, "evaluatedNodes": 1, "feasibleNodes": 1,  # noqa: E731
                          "status": {"code": "Success"}}
    err = {"code": "Error", "message": "error for test"}
    return [
        ("respects higher score of placement1", dict(generate=gen2, scores={PG_KEY: {"placement1": 2, "placement2": 1}}),
         None, {"code": "Success"}, [ok_on("node1")], (2, 2, 0)),
        ("respects higher score of placement2", dict(generate=gen2, scores={PG_KEY: {"placement1": 1, "placement2": 2}}),
         None, {"code": "Success"}, [ok_on("node2")], (2, 2, 0)),
        ("when no placements are generated, returns unschedulable", dict(generate={}), None,
         {"code": "Unschedulable", "message": "no feasible placements found", "plugin": ORDERED}, [], (0, 0, 0)),
        ("when all placements are infeasible, returns unschedulable",
         dict(generate=gen2, scores={PG_KEY: {"placement1": 1, "placement2": 2}},
              filter_status={"node1": "Unschedulable", "node2": "Unschedulable"}),
         [["Wait", "Unschedulable"], ["Wait", "Unschedulable"]], infeasible,
         [{"pod": "foo", "suggestedHost": "", "evaluatedNodes": 0, "feasibleNodes": 0,
           "status": {"code": "Unschedulable", "message": "0/1 nodes are available:"}}], (2, 0, 2)),
        ("when all placements are infeasible, but pods are feasible, returns unschedulable",
         dict(generate=gen2, scores={PG_KEY: {"placement1": 1, "placement2": 2}},
              filter_status={"node1": None, "node2": None}),
         [["Wait", "Unschedulable"], ["Wait", "Unschedulable"]], infeasible, [ok_on("node1")], (2, 0, 2)),
        ("filters out infeasible placements",
         dict(generate=gen2, scores={PG_KEY: {"placement1": 1}}, filter_status={"node2": "Unschedulable"}),
         [["Wait", "Success"], ["Wait", "Unschedulable"]], {"code": "Success"}, [ok_on("node1")], (2, 1, 1)),
        ("filters out infeasible placements with feasible pods",
         dict(generate=gen2, scores={PG_KEY: {"placement1": 1, "placement2": 2}}, filter_status={"node2": None}),
         [["Wait", "Success"], ["Wait", "Unschedulable"]], {"code": "Success"}, [ok_on("node1")], (2, 1, 1)),
        ("when generate plugin fails, returns error", dict(generate_status={PG_KEY: ("Error", "error for test")}),
         None, dict(err, plugin="FakePlacementPlugin"), [], (0, 0, 0)),
        ("when score plugin fails, returns error",
         dict(generate=gen2, scores={PG_KEY: {"placement1": 1}},
              score_status={PG_KEY: {"placement2": ("Error", "error for test")}}), None,
         {"code": "Error", "plugin": "FakePlacementPlugin",
          "message": 'running PlacementScore plugins: plugin "FakePlacementPlugin" failed with: error for test'},
         [], (2, 2, 0)),
        ("when a placement evaluation errors, returns error",
         dict(generate={PG_KEY: {"placement1": ["node1"]}}, scores={PG_KEY: {"placement1": 1}},
              filter_status={"node1": ("Error", "error for test")}), None,
         {"code": "Error", "message": 'failed to schedule other pod from a pod group: running "FakePlacementPlugin" '
                                      "filter plugin: error for test"},
         [{"pod": "foo", "suggestedHost": "",
           "status": {"code": "Error", "message": 'running "FakePlacementPlugin" filter plugin: error for test'}}],
         (1, 0, 0)),
    ]


def placement_algorithm() -> list[dict]:
    out = []
    for cpg_enabled in (False, True):
        for name, plugin, feasible, status, pods, (generated, feasible_n, infeasible_n) in _upstream_placement_rows():
            want = {PG_KEY: {"status": status, "podResults": pods}}
            metrics = {"generatedPlacements": generated, "feasibleEvaluations": feasible_n,
                       "infeasibleEvaluations": infeasible_n}
            out.append(case("placement-algorithm", f"{name} (CompositePodGroup={str(cpg_enabled).lower()})",
                            f"{_ALGO_SRC} :: TestPodGroupSchedulingPlacementAlgorithm", "podgroup-placement-algorithm",
                            "scheduler", featureGates=_gates(True, cpg_enabled),
                            nodes=[kit.node("node1"), kit.node("node2")], podGroups=[kit.pod_group("pg")],
                            pendingPods=[kit.pod("foo", "pg")], target=PG_KEY,
                            fakePlugins=_placement_fakes(plugin, feasible),
                            expected={"other": {"results": want, "metrics": metrics}},
                            notes="the placement evaluation duration histogram upstream also samples is not "
                                  "modelled; its sample counts equal the evaluation counters"))
    for row in ALGO.CPG_ALGO_ROWS:
        want = {k: {"status": {"code": c, "message": m}, "podResults": _pods(p)} for k, (c, m, p) in row["expected"].items()}
        objs = [kit.composite("cpg"), kit.pod_group("pg1", parent="cpg"), kit.pod_group("pg2", parent="cpg")]
        out.append(case("placement-algorithm", row["name"], f"{ALGO_COPY} :: TestCPGSchedulingPlacementAlgorithm",
                        "podgroup-placement-algorithm", "scheduler", featureGates=_gates(True, True),
                        nodes=[kit.node(f"node{i}") for i in range(1, 5)], podGroups=objs,
                        pendingPods=[kit.pod("p1", "pg1"), kit.pod("p2", "pg2")], target=ALGO.CPG,
                        fakePlugins=_placement_fakes(row["plugin"], row["feasible"], row.get("reserve", False)),
                        expected={"other": {"results": want, "resultKeysExact": True}}))
    for row in ALGO.NOMINATED_NODE_ROWS:
        if row.get("root_is_cpg"):
            continue  # SKIPPED-podgroup_cycle.md: upstream calls the PodGroup's algorithm under a CPG root directly
        objs = [kit.pod_group("pg")]
        target, gates = ALGO.PG, _gates(True, False)
        if row.get("root_is_cpg"):
            objs = [kit.composite("cpg"), kit.pod_group("pg", parent="cpg")]
            target, gates = ALGO.CPG, _gates(True, True)
        if row.get("expect_error"):
            want = {"status": {"code": "Error"}}
        elif row.get("expect_status"):
            want = {"status": _status(row["expect_status"])}
        else:
            want = {"status": {"code": "Success"}, "podResults": [{"pod": "foo", "suggestedHost": row["expect_host"]}]}
        out.append(case("placement-algorithm", row["name"],
                        f"{_ALGO_SRC} :: TestPodGroupSchedulingPlacementAlgorithm_NominatedNode",
                        "podgroup-placement-algorithm", "scheduler", featureGates=gates,
                        nodes=[kit.node("node1"), kit.node("node2")], podGroups=objs,
                        pendingPods=[kit.pod("foo", "pg", nominated=row["nominated"])], target=target,
                        fakePlugins=_placement_fakes(row["plugin"], row["feasible"]),
                        expected={"other": {"results": {ALGO.PG: want}}}))
    return out


def placement_select() -> list[dict]:
    out = []
    for row in ALGO.SCORING_ROWS:
        out.append(case("placement-select", row["name"],
                        f"{_ALGO_SRC} :: TestPodGroupSchedulingPlacementAlgorithm_Scoring", "placement-select",
                        "scheduler", featureGates=_gates(True, row["cpg"]),
                        nodes=[kit.node("node1"), kit.node("node2")], podGroups=[kit.pod_group("pg")],
                        pendingPods=[kit.pod("foo", "pg")], target=ALGO.PG,
                        placements=ALGO._GEN2[ALGO.PG],
                        scorePlugins=[{"name": f"FakeScorePlugin[{i}]", "weight": w, "scores": s}
                                      for i, (w, s) in enumerate(row["plugins"])],
                        expected={"other": {"suggestedHosts": {"foo": row["expect"]}}}))
    for row in ALGO.CPG_SCORING_ROWS:
        objs = [kit.composite("cpg"), kit.pod_group("pg1", parent="cpg"), kit.pod_group("pg2", parent="cpg")]
        out.append(case("placement-select", row["name"],
                        f"{ALGO_COPY} :: TestCPGSchedulingPlacementAlgorithm_Scoring", "placement-select",
                        "scheduler", featureGates=_gates(True, True),
                        nodes=[kit.node(f"node{i}") for i in range(1, 5)], podGroups=objs,
                        pendingPods=[kit.pod("p1", "pg1"), kit.pod("p2", "pg2")], target=ALGO.CPG,
                        placements=ALGO._CPG_GEN, realPlugins=["GangScheduling"], profile={"preEnqueue": ["GangScheduling"]},
                        notes="upstream hands the algorithm the tree (its PodGroups name no parent); here the "
                              "parent links build it",
                        scorePlugins=[{"name": f"FakeScorePlugin[{i}]", "weight": w, "scores": s}
                                      for i, (w, s) in enumerate(row["plugins"])],
                        expected={"other": {"suggestedHosts": row["expect"]}}))
    return out


FILES = {
    "hierarchy_tracker.json": hierarchy_tracker, "root_readiness.json": root_readiness, "helper.json": helper,
    "topology_domain.json": topology_domain, "proposed_assignments.json": proposed_assignments,
    "submit.json": submit, "skip.json": skip, "cycle.json": cycle, "schedule_one.json": schedule_one,
    "algorithm.json": algorithm, "placement_algorithm.json": placement_algorithm,
    "placement_select.json": placement_select,
}


def main() -> None:
    for name, build in FILES.items():
        cases = build()
        (HERE / name).write_text(json.dumps(cases, indent=1) + "\n")
        print(f"{name}: {len(cases)} cases")


if __name__ == "__main__":
    main()
