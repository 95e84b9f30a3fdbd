"""Writes the placement conformance files of this directory from upstream's tables:

* ``generate.json``  — TopologyPlacementGenerator ``TestGeneratePlacements`` (PlacementGenerate);
* ``score.json``     — PodGroupPodsCount ``TestScorePlacement`` (PlacementScore);
* ``normalize.json`` — PodGroupPodsCount ``TestNormalizePlacementScore``;
* ``feasible.json``  — GangScheduling ``TestPlacementFeasible`` (PlacementFeasible).

The rows are transcribed as plain data below; small builders mirror ``st.MakeNode()``,
``st.MakePod()``, ``st.MakePodGroup()`` and ``st.MakeCompositePodGroup()`` and only assemble
objects, every expected value is upstream's. Run
``python tests/conformance/placement/_generate_placement.py`` to regenerate.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = "kubernetes/kubernetes"
PLUGINS = "pkg/scheduler/framework/plugins"
TOPO = f"{REPO} {PLUGINS}/topologyaware/topology_placement_test.go@16913111deb1a4c4ff76f4ba7ffd9ebef397a303"
# the stored copies of these two files carry the CompositePodGroup rows; their commit is not
# recorded with the copy, hence "master"
PODS_COUNT = f"{REPO} {PLUGINS}/podgrouppodscount/podgroup_pods_count_test.go@master"
GANG = f"{REPO} {PLUGINS}/gangscheduling/gangscheduling_test.go@master"
NS = "default"


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def node(name: str, **labels) -> dict:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels} if labels
            else {"name": name}}


def pod(name: str, group: str, node_name: str | None = None) -> dict:
    spec: dict = {"schedulingGroup": {"podGroupName": group}}
    if node_name:
        spec["nodeName"] = node_name
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": NS, "uid": name}, "spec": spec}


def pod_group(name: str, parent: str | None = None, topology: str | None = None, policy: dict | None = None) -> dict:
    spec: dict = {}
    if policy is not None:
        spec["schedulingPolicy"] = policy
    if parent:
        spec["parentCompositePodGroupName"] = parent
    if topology:
        spec["schedulingConstraints"] = {"topology": [{"key": topology}]}
    return {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
            "metadata": {"name": name, "namespace": NS}, "spec": spec}


def composite(name: str, parent: str | None = None, topology: str | None = None, policy: dict | None = None) -> dict:
    obj = pod_group(name, parent, topology, policy)
    obj["apiVersion"], obj["kind"] = "scheduling.k8s.io/v1alpha3", "CompositePodGroup"
    return obj


def hierarchy(root_kind: str, topology: str | None, scheduled: list[tuple[str, list[str], str]]):
    """Upstream's construction: the root "root", each scheduled pod's path to it (leaf
    PodGroup first, then CompositePodGroups; empty = a pod of the root PodGroup), the pods."""
    groups = [pod_group("root", topology=topology) if root_kind == "pg" else composite("root", topology=topology)]
    pods, added = [], set()
    for pod_name, path, node_name in scheduled:
        parent = "root"
        for j in reversed(range(len(path))):
            if path[j] not in added:
                groups.append(pod_group(path[j], parent=parent) if j == 0 else composite(path[j], parent=parent))
                added.add(path[j])
            parent = path[j]
        pods.append(pod(pod_name, parent, node_name))
    return groups, pods


def key(root_kind: str, name: str = "root") -> str:
    return f"{'podgroup' if root_kind == 'pg' else 'compositepodgroup'}/{NS}/{name}"


def gates(cpg: bool) -> dict:
    return {"GenericWorkload": True, "TopologyAwareWorkloadScheduling": True, "CompositePodGroup": cpg}


# -- TopologyPlacementGenerator TestGeneratePlacements ----------------------------------------------------
_D1_SPLIT = [("node0", {"topology2": "d1"}), ("node1", {"topology2": "d4"}), ("node2", {"topology1": "d1"}),
             ("node3", {"topology1": "d2"}), ("node4", {"topology1": "d1"}), ("node5", {"topology1": "d3"})]
_T = {"topology": "d1"}
_P1, _P2 = ["pg1", "cpg1"], ["pg2", "cpg2"]
#: (name, root kind, topology key, scheduled [(path, node)], placement nodes, other nodes, want, code)
GENERATE = [
    ("without constraint returns placement matching all nodes", "pg", None, [],
     [("node1", {}), ("node2", {"foo": "bar"})], [("node3", {})], {"test-placement": ["node1", "node2"]}, "Success"),
    ("with topology key constraint, returns placement for each topology domain", "pg", "topology1", [], _D1_SPLIT, [],
     {"d1": ["node2", "node4"], "d2": ["node3"], "d3": ["node5"]}, "Success"),
    ("without matching topology label, returns empty", "pg", "topology3", [], _D1_SPLIT, [], {}, "Success"),
    ("with pods already scheduled in a single domain, returns that domain", "pg", "topology",
     [([], "node2"), ([], "node3")], [("node0", {"topology": "d2"}), ("node1", _T)],
     [("node2", _T), ("node3", _T)], {"d1": ["node1"]}, "Success"),
    ("with pods already scheduled in a single domain not present in current placement, returns empty", "pg",
     "topology", [([], "node2"), ([], "node3")], [("node0", {"topology": "d2"})], [("node2", _T), ("node3", _T)],
     {}, "Success"),
    ("with pods already scheduled in conflicting domains, returns error", "pg", "topology",
     [([], "node2"), ([], "node3")], [("node0", {"topology": "d2"}), ("node1", _T)],
     [("node2", {"topology": "d0"}), ("node3", _T)], None, "Error"),
    ("with pods already scheduled in the empty string domain, returns that domain", "pg", "topology",
     [([], "node2"), ([], "node3")], [("node0", _T), ("node1", {"topology": ""})],
     [("node2", {"topology": ""}), ("node3", {"topology": ""})], {"": ["node1"]}, "Success"),
    ("with already scheduled pod on node outside of snapshot, returns error", "pg", "topology",
     [([], "node2"), ([], "node4")], [("node0", {"topology": "d2"}), ("node1", _T)],
     [("node2", _T), ("node3", _T)], None, "Error"),
    ("with already scheduled pod on node without topology label, returns error", "pg", "topology",
     [([], "node2")], [("node1", {"topology": "d2"})], [("node2", {"foo": "bar"})], None, "Error"),
    ("for cpg without constraint returns placement matching all nodes", "cpg", None, [],
     [("node1", {}), ("node2", {"foo": "bar"})], [("node3", {})], {"test-placement": ["node1", "node2"]}, "Success"),
    ("for cpg with topology key constraint, returns placement for each topology domain", "cpg", "topology1", [],
     _D1_SPLIT, [], {"d1": ["node2", "node4"], "d2": ["node3"], "d3": ["node5"]}, "Success"),
    ("for cpg without matching topology label, returns empty", "cpg", "topology3", [], _D1_SPLIT, [], {}, "Success"),
    ("for cpg with pods already scheduled in a single domain, returns that domain", "cpg", "topology",
     [(_P1, "node2"), (_P2, "node3")], [("node0", {"topology": "d2"}), ("node1", _T)],
     [("node2", _T), ("node3", _T)], {"d1": ["node1"]}, "Success"),
    ("for cpg with pods already scheduled in a single domain not present in current placement, returns empty", "cpg",
     "topology", [(_P1, "node2"), (_P2, "node3")], [("node0", {"topology": "d2"})], [("node2", _T), ("node3", _T)],
     {}, "Success"),
    ("for cpg with pods already scheduled in conflicting domains across separate pod groups, returns error", "cpg",
     "topology", [(_P1, "node2"), (_P2, "node3")], [("node0", {"topology": "d2"}), ("node1", _T)],
     [("node2", {"topology": "d0"}), ("node3", _T)], None, "Error"),
    ("for cpg with pods already scheduled in conflicting domains in a single pod group, returns error", "cpg",
     "topology", [(_P1, "node2"), (_P1, "node3")], [("node0", {"topology": "d2"}), ("node1", _T)],
     [("node2", {"topology": "d0"}), ("node3", _T)], None, "Error"),
    ("for cpg with already scheduled pod on node outside of snapshot, returns error", "cpg", "topology",
     [(_P1, "node2"), (_P1, "node4")], [("node0", {"topology": "d2"}), ("node1", _T)],
     [("node2", _T), ("node3", _T)], None, "Error"),
    ("for cpg with already scheduled pod on node without topology label, returns error", "cpg", "topology",
     [(_P1, "node2")], [("node1", {"topology": "d2"})], [("node2", {"foo": "bar"})], None, "Error"),
]


def generate_cases() -> list[dict]:
    cases = []
    for cpg in (False, True):
        for name, root, topology, scheduled, placement_nodes, other_nodes, want, code in GENERATE:
            if root == "cpg" and not cpg:
                continue  # upstream runs CompositePodGroup rows with the gate on only
            groups, pods = hierarchy(root, topology, [(f"pod{i}", path, n) for i, (path, n) in enumerate(scheduled)])
            expected = {"code": code}
            if want is not None:
                expected["placements"] = want
            notes = ("The group under test is named root in namespace default" +
                     (" (upstream's row builds it unnamed; the name does not enter the result)."
                      if topology is None else " as upstream names it.") +
                     " Placement nodes first, then the other nodes of the snapshot.")
            cases.append({
                "id": f"placement/generate/{slug(name)}-cpg-{str(cpg).lower()}",
                "source": f"{TOPO} :: TestGeneratePlacements :: {name} (cpg={str(cpg).lower()})",
                "plugin": "TopologyPlacementGenerator", "stage": "placement-generate", "args": {},
                "featureGates": gates(cpg),
                "target": key(root),
                "podGroups": groups,
                "nodes": [node(n, **lb) for n, lb in placement_nodes + other_nodes],
                "existingPods": pods,
                "parentPlacement": {"name": "test-placement", "nodes": [n for n, _ in placement_nodes]},
                "expected": {"other": expected},
                "notes": notes,
            })
    return cases


# -- PodGroupPodsCount TestScorePlacement ----------------------------------------------------------
#: (name, root kind, assigned [(path, node)], assumed [(path, node)], want)
SCORE = [
    ("existing assigned and assumed pods", "pg", [([], "node2"), ([], "node3")], [([], "node1")], 5),
    ("no assumed pods", "pg", [([], "node1")], [], 3),
    ("no assigned pods", "pg", [], [([], "node1")], 3),
    ("no assigned pods, no assumed pods", "pg", [], [], 2),
    ("for cpg existing assigned and assumed pods across multi-level hierarchies", "cpg",
     [(_P1, "node2"), (_P2, "node3")], [(_P1, "node1")], 5),
    ("for cpg with no assumed pods", "cpg", [(_P1, "node1")], [], 3),
    ("for cpg with no assigned pods", "cpg", [], [(_P1, "node1")], 3),
    ("for cpg with no assigned pods, no assumed pods", "cpg", [], [], 2),
]


def score_cases() -> list[dict]:
    cases = []
    for cpg in (False, True):
        for name, root, assigned, assumed, want in SCORE:
            if root == "cpg" and not cpg:
                continue
            scheduled = ([(f"assigned-pod{i}", p, n) for i, (p, n) in enumerate(assigned)]
                         + [(f"assumed-pod{i}", p, n) for i, (p, n) in enumerate(assumed)])
            groups, pods = hierarchy(root, None, scheduled)
            cases.append({
                "id": f"placement/score/{slug(name)}-cpg-{str(cpg).lower()}",
                "source": f"{PODS_COUNT} :: TestScorePlacement :: {name} (cpg={str(cpg).lower()})",
                "plugin": "PodGroupPodsCount", "stage": "placement-score", "args": {},
                "featureGates": gates(cpg),
                "target": key(root),
                "podGroups": groups,
                "nodes": [],
                "existingPods": pods,
                "proposedAssignments": [{"pod": pod("proposed-pod-1", "root"), "node": "node1"},
                                        {"pod": pod("proposed-pod-2", "root"), "node": "node2"}],
                "expected": {"other": {"score": want, "code": "Success"}},
                "notes": ("Upstream builds assigned and assumed pods alike (a pod with spec.nodeName in the "
                          "snapshot); both are existingPods here. The snapshot has no nodes, as upstream's."),
            })
    return cases


# -- PodGroupPodsCount TestNormalizePlacementScore ---------------------------------------------------
NORMALIZE = [
    ("distinct scores", [10, 50, 110], [9, 45, 100], None),
    ("equal scores", [50, 50], [100, 100], None),
    ("single score", [50], [100], None),
    ("some minimal score that is far from a group of scores located closely", [11, 100, 101, 102],
     [10, 98, 99, 100], None),
    ("zero scores", [0, 0], None, "no pods from pod group are assigned to any of the candidate placements"),
]


def normalize_cases() -> list[dict]:
    cases = []
    for name, scores, want, error in NORMALIZE:
        expected = ({"code": "Success", "normalizedScores": want} if error is None
                    else {"code": "non-Success", "message": error})
        cases.append({
            "id": f"placement/normalize/{slug(name)}",
            "source": f"{PODS_COUNT} :: TestNormalizePlacementScore :: {name}",
            "plugin": "PodGroupPodsCount", "stage": "placement-normalize", "args": {},
            "target": "podgroup//pg1",
            "placementScores": scores,
            "expected": {"other": expected},
            "notes": "Upstream's PodGroupInfo is only a name (pg1, no namespace, no object).",
        })
    return cases


# -- GangScheduling TestPlacementFeasible ------------------------------------------------------------
#: (name, minCount (0 = basic), childrenCount, pod statuses, expected statuses, initial scheduled, variants)
_V3 = [(False, False), (False, True), (True, True)]  # (isCPG, cpgFeatureGate) in upstream's row order
_V4 = [(False, False), (True, False), (False, True), (True, True)]
S, U, W = "Success", "Unschedulable", "Wait"
FEASIBLE = [
    ("All pods succeed, minCount met at end", 2, 2, [S, S], [W, S], 0, _V3),
    ("First pod fails, minCount not satisfiable", 3, 3, [U], [U], 0, _V3),
    ("Second pod fails, minCount not satisfiable", 2, 2, [S, U], [W, U], 0, _V3),
    ("Non-gang pod group with 0 scheduled pods fails", 0, 1, [U], [U], 0, _V4),
    ("Non-gang pod group with succeeds once 1 pod is scheduled", 0, 1, [S], [S], 0, _V4),
    ("Non-gang pod group with 1 initially scheduled pod succeeds", 0, 1, [U], [S], 1, _V4),
    ("More than minCount pods, all succeed", 2, 3, [S, S, S], [W, S, S], 0, _V3),
    ("More than minCount pods, first fails", 2, 3, [U, S, S], [W, W, S], 0, _V3),
    ("More than minCount pods, minCount not satisfiable", 2, 3, [U, U], [W, U], 0, _V3),
    ("1 pod scheduled, 2 unscheduled pods succeed, minCount 3 met", 3, 2, [S, S], [W, S], 1, _V3),
    ("minCount already met by scheduled pods", 2, 1, [U], [S], 2, _V3),
    ("1 pod scheduled, minCount 3, first unscheduled fails, not enough remaining", 3, 2, [U], [U], 1, _V3),
    ("1 pod scheduled, minCount 4, first unscheduled succeeds, not enough remaining", 4, 2, [S], [U], 1, _V3),
]


def feasible_cases() -> list[dict]:
    cases = []
    for name, min_count, children, statuses, want, initial, variants in FEASIBLE:
        for is_cpg, gate in variants:
            row = f"{name} (isCPG={str(is_cpg).lower()}, cpgFeatureGate={str(gate).lower()})"
            policy = ({"gang": {"minGroupCount" if is_cpg else "minCount": min_count}} if min_count
                      else {"basic": {}})
            group = (composite("test-pg", policy=policy) if is_cpg
                     else pod_group("test-pg", parent="cpg-root", policy=policy))
            steps, scheduled = [], initial
            for i, code in enumerate(statuses):
                scheduled += code == S
                steps.append({"scheduled": scheduled, "remaining": children - (i + 1)})
            feature_gates = {"GenericWorkload": True, "CompositePodGroup": gate}
            if gate:
                feature_gates["TopologyAwareWorkloadScheduling"] = True
            cases.append({
                "id": f"placement/feasible/{slug(row)}",
                "source": f"{GANG} :: TestPlacementFeasible :: {row}",
                "plugin": "GangScheduling", "stage": "placement-feasible", "args": {},
                "featureGates": feature_gates,
                "target": key("cpg" if is_cpg else "pg", "test-pg"),
                "podGroups": [group],
                "steps": steps,
                "expected": {"other": {"codes": want}},
                "notes": (f"Upstream's step i reports {statuses} for the evaluated pods; a step's scheduled count "
                          f"is the {initial} initially scheduled plus the successes so far, remaining is "
                          f"childrenCount ({children}) minus the steps taken."),
            })
    return cases


def main() -> None:
    for file, cases in (("generate.json", generate_cases()), ("score.json", score_cases()),
                        ("normalize.json", normalize_cases()), ("feasible.json", feasible_cases())):
        (HERE / file).write_text(json.dumps(cases, indent=1) + "\n")
        print(f"{file}: {len(cases)} cases")


if __name__ == "__main__":
    main()
