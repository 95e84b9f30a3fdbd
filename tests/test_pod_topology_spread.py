"""PodTopologySpread: the documented examples of seed section 5 (datasets/topology-spread/),
upstream's AddPod/RemovePod tables, a property test of the vectorized plugin against a
literal per-node transcription of upstream, and args/profile wiring.

The upstream Filter/Score/PreFilter/PreScore tables run as conformance cases
(tests/conformance/podtopologyspread/).
"""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kschedlab.api.config import KubeSchedulerConfiguration
from kschedlab.api.core import Node, Pod
from kschedlab.api.loader import load
from kschedlab.api.node_selector import RequiredNodeAffinity
from kschedlab.api.tolerations import find_matching_untolerated_taint
from kschedlab.apiserver.admission import admit
from kschedlab.cluster import Cluster
from kschedlab.features import FeatureGates
from kschedlab.framework.interface import ArgsError, CycleState
from kschedlab.framework.runtime import Handle
from kschedlab.framework.types import PodInfo
from kschedlab.plugins import in_tree_registry
from kschedlab.plugins.pod_topology_spread import (
    ERR_REASON_CONSTRAINTS_NOT_MATCH,
    ERR_REASON_NODE_LABEL_NOT_MATCH,
    NAME,
    PodTopologySpread,
)
from kschedlab.plugins.pod_topology_spread_common import (
    HONOR,
    LABEL_HOSTNAME,
    MAX_INT32,
    CriticalPaths,
    count_pods_match_selector,
    go_log,
    go_round,
    topology_normalizing_weight,
)
from kschedlab.scheduler import Scheduler

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "datasets" / "topology-spread"
NOT_MATCH = (ERR_REASON_CONSTRAINTS_NOT_MATCH,)
MISSING = (ERR_REASON_NODE_LABEL_NOT_MATCH,)


def scenario(name: str, *, keep_pending: tuple[str, ...] | None = None, edit=None, config=None):
    """(cluster, scheduler) of a dataset: load, admit, Cluster, Scheduler with its config.
    ``keep_pending`` drops the other pending pods; ``edit(pod_dict)`` changes pending pods
    before admission (to try the variants the seed describes)."""
    objects = load(DATA / name)
    configs = [o for o in objects if isinstance(o, KubeSchedulerConfiguration)]
    rest = []
    for o in objects:
        if isinstance(o, KubeSchedulerConfiguration):
            continue
        if isinstance(o, Pod) and not o.spec.node_name:
            if keep_pending is not None and o.metadata.name not in keep_pending:
                continue
            if edit is not None:
                data = o.model_dump(by_alias=True, exclude_unset=True)
                edit(data)
                o = Pod.model_validate(data)
        rest.append(o)
    cluster = Cluster(admit(rest))
    return cluster, Scheduler(cluster, config if config is not None else (configs[0] if configs else None))


def verdicts(result) -> dict[str, tuple[str, str | None, tuple[str, ...]]]:
    return {n: (s.code.name, s.plugin, s.reasons) for n, s in result.trace.filter_statuses().items()}


def pts_scores(result) -> dict[str, int]:
    return {n: e[NAME]["normalized"] for n, e in result.trace.scores().items() if NAME in e}


PASS = ("Success", None, ())
REJECT = ("Unschedulable", NAME, NOT_MATCH)


def constraint(data: dict, i: int = 0) -> dict:
    return data["spec"]["topologySpreadConstraints"][i]


# ---------------------------------------------------------------------------------------------------
# Seed section 5: the documented examples
# ---------------------------------------------------------------------------------------------------

def test_one_constraint_places_the_pod_in_zone_b():
    _, sched = scenario("01-one-constraint.yaml")
    result = sched.schedule_one("default/mypod")
    assert verdicts(result) == {"node1": REJECT, "node2": REJECT, "node3": PASS, "node4": PASS}
    assert result.node in ("node3", "node4")  # "only onto a node in zone B" (both diagrams)


def test_one_constraint_max_skew_2_also_allows_zone_a():
    """"Change maxSkew to a bigger value - such as 2 - so that the incoming Pod can be placed into zone A"."""
    _, sched = scenario("01-one-constraint.yaml", edit=lambda d: constraint(d).update(maxSkew=2))
    result = sched.schedule_one("default/mypod")
    assert set(verdicts(result).values()) == {PASS}


def test_one_constraint_on_key_node_allows_only_node4():
    """"Change topologyKey to node ... if maxSkew remains 1, the incoming Pod can only be placed onto node4"."""
    _, sched = scenario("01-one-constraint.yaml", edit=lambda d: constraint(d).update(topologyKey="node"))
    result = sched.schedule_one("default/mypod")
    assert verdicts(result) == {"node1": REJECT, "node2": REJECT, "node3": REJECT, "node4": PASS}
    assert result.node == "node4"


def test_one_constraint_schedule_anyway_prefers_zone_b():
    """ScheduleAnyway: always schedulable, the zone with fewer matching pods preferred.
    Zones [2, 1], weight ln(2 + 2): zone A round(2 * 1.386) = 3, zone B round(1.386) = 1;
    normalized (max 3, min 1): zone A 100 * (3 + 1 - 3) / 3 = 33, zone B 100 * 3 / 3 = 100."""
    _, sched = scenario("01-one-constraint.yaml",
                        edit=lambda d: constraint(d).update(whenUnsatisfiable="ScheduleAnyway"))
    result = sched.schedule_one("default/mypod")
    assert set(verdicts(result).values()) == {PASS}
    assert pts_scores(result) == {"node1": 33, "node2": 33, "node3": 100, "node4": 100}
    assert result.node in ("node3", "node4")


def test_two_constraints_leave_only_node4():
    _, sched = scenario("02-two-constraints.yaml")
    result = sched.schedule_one("default/mypod")
    assert verdicts(result) == {"node1": REJECT, "node2": REJECT, "node3": REJECT, "node4": PASS}
    assert result.node == "node4"


def test_conflicting_constraints_keep_the_pod_pending():
    _, sched = scenario("03-conflicting-constraints.yaml")
    result = sched.schedule_one("default/mypod")
    assert result.node is None
    assert verdicts(result) == {"node1": REJECT, "node2": REJECT, "node3": REJECT}
    fit_error = "0/3 nodes are available: 3 node(s) didn't match pod topology spread constraints."
    if "DefaultPreemption" in in_tree_registry():
        # FitError.Error() appends DefaultPreemption's verdict as " %v": no pod has a lower
        # priority, so no node has victims
        assert result.message == (fit_error + " preemption: 0/3 nodes are available: "
                                              "3 No preemption victims found for incoming pod.")
    else:
        assert result.message == fit_error
    condition = [c for c in sched.cluster.pods["default/mypod"].status.conditions if c.type == "PodScheduled"]
    assert (condition[0].status, condition[0].reason) == ("False", "Unschedulable")


def test_conflicting_constraints_per_constraint_state():
    """Zone A holds 3 matching pods, zone B 2; node1 2, node2 1, node3 2 (the seed's reasoning)."""
    cluster, sched = scenario("03-conflicting-constraints.yaml")
    plugin = sched.profiles["default-scheduler"].plugins[NAME]
    state = CycleState()
    _, status = plugin.pre_filter(state, cluster.pod_infos["default/mypod"], cluster.snapshot)
    assert status.is_success()
    data = plugin.pre_filter_state(state)
    assert data["tpValueToMatchNum"] == [{"zoneA": 3, "zoneB": 2}, {"node1": 2, "node2": 1, "node3": 2}]
    assert [p[0] for p in data["criticalPaths"]] == [["zoneB", 2], ["node2", 1]]


def test_node_without_zone_label_is_bypassed():
    """node1 without "zone": its 2 pods are disregarded, the pod goes to zone A (node2)."""
    _, sched = scenario("04-node-without-zone-label.yaml")
    result = sched.schedule_one("default/mypod")
    assert verdicts(result) == {"node1": ("UnschedulableAndUnresolvable", NAME, MISSING), "node2": PASS,
                                "node3": REJECT}
    assert result.node == "node2"


def test_node_affinity_excludes_zone_c_and_places_into_zone_b():
    _, sched = scenario("05-one-constraint-with-nodeaffinity.yaml")
    result = sched.schedule_one("default/mypod")
    affinity = ("UnschedulableAndUnresolvable", "NodeAffinity", ("node(s) didn't match Pod's node affinity/selector",))
    assert verdicts(result) == {"node1": REJECT, "node2": REJECT, "node3": PASS, "node4": PASS, "node5": affinity}
    assert result.node in ("node3", "node4")


def test_without_node_affinity_zone_c_is_the_minimum():
    _, sched = scenario("05-one-constraint-with-nodeaffinity.yaml", edit=lambda d: d["spec"].pop("affinity"))
    result = sched.schedule_one("default/mypod")
    assert result.node == "node5"
    assert verdicts(result)["node3"] == REJECT


def test_node_affinity_policy_ignore_counts_zone_c():
    """nodeAffinityPolicy Ignore: zone C joins the calculation, minimum 0, zone B (1 + 1 - 0 = 2) fails."""
    _, sched = scenario("05-one-constraint-with-nodeaffinity.yaml",
                        edit=lambda d: constraint(d).update(nodeAffinityPolicy="Ignore"))
    result = sched.schedule_one("default/mypod")
    assert result.node is None
    assert verdicts(result)["node4"] == REJECT


@pytest.mark.parametrize(("min_domains", "node"), [(None, "node5"), (3, "node5"), (4, None)])
def test_min_domains(min_domains, node):
    """3 zones with 2, 2, 1 matching pods: global minimum 1 unless fewer eligible domains
    than minDomains (then 0): minDomains 4 leaves no node."""
    def edit(d):
        if min_domains is not None:
            constraint(d)["minDomains"] = min_domains
    _, sched = scenario("06-min-domains.yaml", edit=edit)
    result = sched.schedule_one("default/mypod")
    assert result.node == node
    if node is None:
        assert set(verdicts(result).values()) == {REJECT}
        assert result.message.startswith(
            "0/5 nodes are available: 5 node(s) didn't match pod topology spread constraints.")


def test_cluster_level_default_constraints():
    cluster, sched = scenario("07-cluster-default-constraints.yaml")
    plugin = sched.profiles["default-scheduler"].plugins[NAME]
    assert not plugin.system_defaulted
    assert [(c.topology_key, c.max_skew, c.when_unsatisfiable) for c in plugin.default_constraints] == [
        ("topology.kubernetes.io/zone", 1, "ScheduleAnyway")]
    web = sched.schedule_one("default/web-3")
    entry = web.trace.scores()
    assert {n: e[NAME]["raw"] for n, e in entry.items()} == {"node1": 3, "node2": 3, "node3": 0, "node4": 0}
    assert {n: e[NAME]["weighted"] for n, e in entry.items()} == {"node1": 0, "node2": 0, "node3": 200,
                                                                  "node4": 200}
    assert web.node in ("node3", "node4")
    loner = sched.schedule_one("default/loner")
    assert (NAME, "Skip") in [(p, s.code.name) for p, s in loner.trace.prescore]
    assert pts_scores(loner) == {}


def test_built_in_default_constraints():
    _, sched = scenario("08-built-in-default-constraints.yaml")
    plugin = sched.profiles["default-scheduler"].plugins[NAME]
    assert plugin.system_defaulted
    assert [(c.topology_key, c.max_skew) for c in plugin.default_constraints] == [
        ("kubernetes.io/hostname", 3), ("topology.kubernetes.io/zone", 5)]
    web = sched.schedule_one("default/web-3")
    raw = {n: e[NAME]["raw"] for n, e in web.trace.scores().items()}
    assert raw == {"node1": 11, "node2": 11, "node3": 6, "node4": 6}
    assert pts_scores(web) == {"node1": 54, "node2": 54, "node3": 100, "node4": 100}


def test_built_in_defaults_disabled():
    _, sched = scenario("08-built-in-default-constraints-disabled.yaml")
    web = sched.schedule_one("default/web-3")
    assert (NAME, "Skip") in [(p, s.code.name) for p, s in web.trace.prescore]
    assert pts_scores(web) == {}


def test_match_label_keys_count_only_the_pods_own_revision():
    cluster, sched = scenario("09-match-label-keys.yaml")
    selector = cluster.pods["default/foo-rev2"].spec.topology_spread_constraints[0].label_selector
    assert [(r.key, r.operator, r.values) for r in selector.match_expressions] == [
        ("pod-template-hash", "In", ["rev2"])]  # merged by the API server at creation
    result = sched.schedule_one("default/foo-rev2")
    assert set(verdicts(result).values()) == {PASS}


def test_without_match_label_keys_the_old_revision_counts():
    _, sched = scenario("09-match-label-keys.yaml", edit=lambda d: constraint(d).pop("matchLabelKeys"))
    result = sched.schedule_one("default/foo-rev2")
    assert verdicts(result) == {"node1": REJECT, "node2": REJECT, "node3": PASS}


def test_spreading_a_workload_keeps_zones_balanced():
    """Pods scheduled one after another: the incremental pod index keeps the counts current."""
    nodes = [Node.model_validate({"metadata": {"name": f"n{i}", "labels": {"zone": f"z{i % 3}"}},
                                  "status": {"allocatable": {"cpu": "8", "memory": "8Gi", "pods": "110"}}})
             for i in range(6)]
    pods = [Pod.model_validate({
        "metadata": {"name": f"web-{i}", "namespace": "default", "labels": {"app": "web"}},
        "spec": {"containers": [{"name": "c"}], "topologySpreadConstraints": [
            {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
             "labelSelector": {"matchLabels": {"app": "web"}}}]}}) for i in range(9)]
    cluster = Cluster(admit([*nodes, *pods]))
    results = Scheduler(cluster, seed=3).run()
    zones = [cluster.nodes[r.node].metadata.labels["zone"] for r in results]
    assert all(r.node for r in results)
    for i in range(1, len(zones) + 1):  # after every bind the skew is at most 1
        counts = [zones[:i].count(z) for z in ("z0", "z1", "z2")]
        assert max(counts) - min(counts) <= 1


# ---------------------------------------------------------------------------------------------------
# upstream TestPreFilterStateAddPod / TestPreFilterStateRemovePod (PreFilterExtensions)
# ---------------------------------------------------------------------------------------------------

_spec = importlib.util.spec_from_file_location(
    "pts_generate", ROOT / "tests" / "conformance" / "podtopologyspread" / "_generate.py")
gen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen)

FOO, BAR, DNS = gen.FOO, gen.BAR, gen.DNS
zn, ep, sc, pod = gen.zn, gen.ep, gen.sc, gen.pod
ZONE_C = gen.cons(1, "zone", FOO)
NODE_C = gen.cons(1, "node", FOO)


def _plugin(cluster, nip: bool):
    gates = FeatureGates({"NodeInclusionPolicyInPodTopologySpread": nip,
                          "MatchLabelKeysInPodTopologySpread": False}, emulate_older=True)
    return PodTopologySpread.build({"defaultingType": "List"}, Handle(gates, None, cluster))


def _run_extension(preemptor, nodes, existing, node_idx, changed, delta, nip):
    cluster = Cluster([Node.model_validate(n) for n in nodes] + [Pod.model_validate(p) for p in existing])
    plugin = _plugin(cluster, nip)
    state = CycleState()
    info = PodInfo.of(Pod.model_validate(preemptor))
    _, status = plugin.pre_filter(state, info, cluster.snapshot)
    assert status.is_success()
    node_info = cluster.snapshot.node_info(nodes[node_idx]["metadata"]["name"])
    update = plugin.add_pod if delta > 0 else plugin.remove_pod
    assert update(state, info, PodInfo.of(Pod.model_validate(changed)), node_info).is_success()
    return plugin.pre_filter_state(state)


P_NODE = pod("p", {"foo": ""}, constraints=[sc(1, "node", DNS, FOO)])
P_ZONE = pod("p", {"foo": ""}, constraints=[sc(1, "zone", DNS, FOO)])
P_BOTH = pod("p", {"foo": ""}, constraints=[sc(1, "zone", DNS, FOO), sc(1, "node", DNS, FOO)])
P_DIFF = pod("p", {"foo": "", "bar": ""}, constraints=[sc(1, "zone", DNS, FOO), sc(1, "node", DNS, BAR)])
P_AFF = pod("p", {"foo": ""}, constraints=[sc(1, "zone", DNS, FOO)], affinity=("foo", "NotIn", ["bar"]))
P_TOL = pod("p", {"foo": ""}, constraints=[sc(1, "zone", DNS, FOO)], tolerate=True)
AB = [zn("node-a", "zone1"), zn("node-b", "zone1")]
AX = [zn("node-a", "zone1"), zn("node-x", "zone2")]
ABX = [zn("node-a", "zone1"), zn("node-b", "zone1"), zn("node-x", "zone2")]
AFF_NODES = [zn("node-a", "zone1", foo="bar"), zn("node-b", "zone2", foo="")]
TAINT_NODES = [zn("node-a", "zone1", taints=True), zn("node-b", "zone2")]
AFF_EXISTING = [ep("p-a2", "node-a", "foo", zone="zone1"), ep("p-b1", "node-b", "foo", zone="zone2")]
MATCHED_EXISTING = [ep("p-a1", "node-a", "foo", zone="zone1"), ep("p-b2", "node-b", "foo", zone="zone2")]
NONE_MAX = ["", MAX_INT32]
BAR_NODE_C = gen.cons(1, "node", BAR)

ADD_POD_ROWS = [
    # name, preemptor, added, existing, node_idx, nodes, nip, (constraints, paths, tp)
    ("node a and b both impact current min match", P_NODE, ep("p-a1", "node-a", "foo"), [], 0, AB, False,
     ([NODE_C], [[["node-b", 0], ["node-a", 1]]], [{"node-a": 1, "node-b": 0}])),
    ("only node a impacts current min match", P_NODE, ep("p-a1", "node-a", "foo"), [ep("p-b1", "node-b", "foo")],
     0, AB, False, ([NODE_C], [[["node-a", 1], ["node-b", 1]]], [{"node-a": 1, "node-b": 1}])),
    ("add a pod in a different namespace doesn't change topologyKeyToMinPodsMap", P_NODE,
     ep("p-a1", "node-a", "foo", ns="ns1"), [ep("p-b1", "node-b", "foo")], 0, AB, False,
     ([NODE_C], [[["node-a", 0], ["node-b", 1]]], [{"node-a": 0, "node-b": 1}])),
    ("add pod on non-critical node won't trigger re-calculation", P_NODE, ep("p-b2", "node-b", "foo"),
     [ep("p-b1", "node-b", "foo")], 1, AB, False,
     ([NODE_C], [[["node-a", 0], ["node-b", 2]]], [{"node-a": 0, "node-b": 2}])),
    ("node a and x both impact topologyKeyToMinPodsMap on zone and node", P_BOTH, ep("p-a1", "node-a", "foo"), [],
     0, AX, False, ([ZONE_C, NODE_C], [[["zone2", 0], ["zone1", 1]], [["node-x", 0], ["node-a", 1]]],
                    [{"zone1": 1, "zone2": 0}, {"node-a": 1, "node-x": 0}])),
    ("only node a impacts topologyKeyToMinPodsMap on zone and node", P_BOTH, ep("p-a1", "node-a", "foo"),
     [ep("p-x1", "node-x", "foo")], 0, AX, False,
     ([ZONE_C, NODE_C], [[["zone1", 1], ["zone2", 1]], [["node-a", 1], ["node-x", 1]]],
      [{"zone1": 1, "zone2": 1}, {"node-a": 1, "node-x": 1}])),
    ("node a impacts topologyKeyToMinPodsMap on node, node x impacts topologyKeyToMinPodsMap on zone", P_BOTH,
     ep("p-a1", "node-a", "foo"), [ep("p-b1", "node-b", "foo"), ep("p-b2", "node-b", "foo"),
                                   ep("p-x1", "node-x", "foo")], 0, ABX, False,
     ([ZONE_C, NODE_C], [[["zone2", 1], ["zone1", 3]], [["node-a", 1], ["node-x", 1]]],
      [{"zone1": 3, "zone2": 1}, {"node-a": 1, "node-b": 2, "node-x": 1}])),
    ("Constraints hold different labelSelectors, node a impacts topologyKeyToMinPodsMap on zone", P_DIFF,
     ep("p-a1", "node-a", "foo"), [ep("p-b1", "node-b", "foo", "bar"), ep("p-x1", "node-x", "foo", "bar"),
                                   ep("p-x2", "node-x", "bar")], 0, ABX, False,
     ([ZONE_C, BAR_NODE_C], [[["zone2", 1], ["zone1", 2]], [["node-a", 0], ["node-b", 1]]],
      [{"zone1": 2, "zone2": 1}, {"node-a": 0, "node-b": 1, "node-x": 2}])),
    ("Constraints hold different labelSelectors, node a impacts topologyKeyToMinPodsMap on both zone and node",
     P_DIFF, ep("p-a1", "node-a", "foo", "bar"), [ep("p-b1", "node-b", "bar"), ep("p-x1", "node-x", "foo", "bar"),
                                                  ep("p-x2", "node-x", "bar")], 0, ABX, False,
     ([ZONE_C, BAR_NODE_C], [[["zone1", 1], ["zone2", 1]], [["node-a", 1], ["node-b", 1]]],
      [{"zone1": 1, "zone2": 1}, {"node-a": 1, "node-b": 1, "node-x": 2}])),
    ("add a pod when scheduling node affinity unmatched pod with NodeInclusionPolicy disabled", P_AFF,
     ep("p-a1", "node-a", "foo", zone="zone1"), AFF_EXISTING, 0, AFF_NODES, False,
     ([ZONE_C], [[["zone2", 1], NONE_MAX]], [{"zone2": 1}])),
    ("add a pod when scheduling node affinity unmatched pod with NodeInclusionPolicy enabled", P_AFF,
     ep("p-a1", "node-a", "foo", zone="zone1"), AFF_EXISTING, 0, AFF_NODES, True,
     ([ZONE_C], [[["zone2", 1], NONE_MAX]], [{"zone2": 1}])),
    ("add a pod when scheduling node affinity matched pod with NodeInclusionPolicy disabled", P_ZONE,
     ep("p-b1", "node-b", "foo", zone="zone2"), MATCHED_EXISTING, 1, AFF_NODES, False,
     ([ZONE_C], [[["zone1", 1], ["zone2", 2]]], [{"zone1": 1, "zone2": 2}])),
    ("add a pod when scheduling node affinity matched pod with NodeInclusionPolicy enabled", P_ZONE,
     ep("p-b1", "node-b", "foo", zone="zone2"), MATCHED_EXISTING, 1, AFF_NODES, True,
     ([ZONE_C], [[["zone1", 1], ["zone2", 2]]], [{"zone1": 1, "zone2": 2}])),
    ("add a label selector not matched pod when with NodeInclusionPolicy enabled", P_ZONE,
     ep("p-b1", "node-b", zone="zone2"), MATCHED_EXISTING, 1, AFF_NODES, True,
     ([ZONE_C], [[["zone1", 1], ["zone2", 1]]], [{"zone1": 1, "zone2": 1}])),
    ("add a pod when scheduling taint untolerated pod with NodeInclusionPolicy disabled", P_ZONE,
     ep("p-b1", "node-b", "foo", zone="zone2"), MATCHED_EXISTING, 1, TAINT_NODES, False,
     ([ZONE_C], [[["zone1", 1], ["zone2", 2]]], [{"zone1": 1, "zone2": 2}])),
    ("add a pod when scheduling taint tolerated pod with NodeInclusionPolicy enabled", P_TOL,
     ep("p-b1", "node-b", "foo", zone="zone2"), MATCHED_EXISTING, 1, TAINT_NODES, True,
     ([ZONE_C], [[["zone1", 1], ["zone2", 2]]], [{"zone1": 1, "zone2": 2}])),
]


@pytest.mark.parametrize(("name", "preemptor", "added", "existing", "node_idx", "nodes", "nip", "want"),
                         ADD_POD_ROWS, ids=[gen.slug(r[0]) for r in ADD_POD_ROWS])
def test_add_pod_upstream(name, preemptor, added, existing, node_idx, nodes, nip, want):
    """filtering_test.go@01c2588b :: TestPreFilterStateAddPod (all 16 rows)."""
    got = _run_extension(preemptor, nodes, existing, node_idx, added, +1, nip)
    constraints, paths, tp = want
    assert got["constraints"] == constraints
    assert got["criticalPaths"] == [gen.paths(*p) for p in paths]
    assert got["tpValueToMatchNum"] == tp


R4 = [zn("node-a", "zone1"), zn("node-b", "zone1"), zn("node-x", "zone2"), zn("node-y", "zone2")]
REMOVE_POD_ROWS = [
    # name, preemptor, nodes, existing, deleted_idx, deleted, node_idx, nip, (constraints, paths, tp)
    ("one spreadConstraint on zone, topologyKeyToMinPodsMap unchanged", P_ZONE, ABX,
     gen.foo_pods(("p-a1", "node-a"), ("p-b1", "node-b"), ("p-x1", "node-x")), 0, None, 0, False,
     ([ZONE_C], [[["zone1", 1], ["zone2", 1]]], [{"zone1": 1, "zone2": 1}])),
    ("one spreadConstraint on node, topologyKeyToMinPodsMap changed", P_ZONE, R4,
     gen.foo_pods(("p-a1", "node-a"), ("p-b1", "node-b"), ("p-x1", "node-x"), ("p-y1", "node-y")), 0, None, 0,
     False, ([ZONE_C], [[["zone1", 1], ["zone2", 2]]], [{"zone1": 1, "zone2": 2}])),
    ("delete an irrelevant pod won't help", P_ZONE, R4,
     [ep("p-a0", "node-a", "bar")] + gen.foo_pods(("p-a1", "node-a"), ("p-b1", "node-b"), ("p-x1", "node-x"),
                                                  ("p-y1", "node-y")), 0, None, 0, False,
     ([ZONE_C], [[["zone1", 2], ["zone2", 2]]], [{"zone1": 2, "zone2": 2}])),
    ("delete a non-existing pod won't help", P_ZONE, R4,
     gen.foo_pods(("p-a1", "node-a"), ("p-b1", "node-b"), ("p-x1", "node-x"), ("p-y1", "node-y")), -1,
     ep("p-a0", "node-a", "bar"), 0, False, ([ZONE_C], [[["zone1", 2], ["zone2", 2]]], [{"zone1": 2, "zone2": 2}])),
    ("two spreadConstraints", P_BOTH, ABX,
     gen.foo_pods(("p-a1", "node-a"), ("p-a2", "node-a"), ("p-b1", "node-b"), ("p-x1", "node-x"),
                  ("p-x2", "node-x")), 3, None, 2, False,
     ([ZONE_C, NODE_C], [[["zone2", 1], ["zone1", 3]], [["node-b", 1], ["node-x", 1]]],
      [{"zone1": 3, "zone2": 1}, {"node-a": 2, "node-b": 1, "node-x": 1}])),
    ("remove a pod when scheduling node affinity unmatched pod with NodeInclusionPolicy disabled", P_AFF,
     AFF_NODES, AFF_EXISTING, 0, ep("p-a1", "node-a", "foo", zone="zone1"), 0, False,
     ([ZONE_C], [[["zone2", 1], NONE_MAX]], [{"zone2": 1}])),
    ("remove a pod when scheduling node affinity unmatched pod with NodeInclusionPolicy enabled", P_AFF,
     AFF_NODES, AFF_EXISTING, 0, ep("p-a1", "node-a", "foo", zone="zone1"), 0, True,
     ([ZONE_C], [[["zone2", 1], NONE_MAX]], [{"zone2": 1}])),
    ("remove a pod when scheduling node affinity matched pod with NodeInclusionPolicy disabled", P_ZONE,
     AFF_NODES, MATCHED_EXISTING, 0, ep("p-b1", "node-b", "foo", zone="zone2"), 1, False,
     ([ZONE_C], [[["zone2", 0], ["zone1", 1]]], [{"zone2": 0, "zone1": 1}])),
    ("remove a pod when scheduling node affinity matched pod with NodeInclusionPolicy enabled", P_ZONE,
     AFF_NODES, MATCHED_EXISTING, 0, ep("p-b1", "node-b", "foo", zone="zone2"), 1, True,
     ([ZONE_C], [[["zone2", 0], ["zone1", 1]]], [{"zone2": 0, "zone1": 1}])),
]


@pytest.mark.parametrize(("name", "preemptor", "nodes", "existing", "deleted_idx", "deleted", "node_idx", "nip",
                          "want"), REMOVE_POD_ROWS, ids=[gen.slug(r[0]) for r in REMOVE_POD_ROWS])
def test_remove_pod_upstream(name, preemptor, nodes, existing, deleted_idx, deleted, node_idx, nip, want):
    """filtering_test.go@01c2588b :: TestPreFilterStateRemovePod (all 9 rows). As upstream, the removed
    pod is existingPods[deletedPodIdx] whenever that index is in range (deletedPodIdx defaults to 0)."""
    if 0 <= deleted_idx < len(existing):
        deleted = existing[deleted_idx]
    got = _run_extension(preemptor, nodes, existing, node_idx, deleted, -1, nip)
    constraints, paths, tp = want
    assert got["constraints"] == constraints
    assert got["criticalPaths"] == [gen.paths(*p) for p in paths]
    assert got["tpValueToMatchNum"] == tp


def test_critical_paths_update_rule():
    cp = CriticalPaths()
    for value, num in [("a", 3), ("b", 1), ("c", 2)]:
        cp.update(value, num)
    assert cp.paths == [["b", 1], ["c", 2]]
    cp.update("b", 4)  # an existing path grows: swapped, but "a" (3) is not tracked -- upstream's caveat
    assert cp.paths == [["c", 2], ["b", 4]]


def test_state_clone_is_independent():
    cluster = Cluster([Node.model_validate(n) for n in AB])
    plugin = _plugin(cluster, True)
    state = CycleState()
    info = PodInfo.of(Pod.model_validate(P_NODE))
    plugin.pre_filter(state, info, cluster.snapshot)
    copy = state["PreFilterPodTopologySpread"].clone()
    plugin.add_pod(state, info, PodInfo.of(Pod.model_validate(ep("x", "node-a", "foo"))),
                   cluster.snapshot.node_info("node-a"))
    assert copy.as_data()["tpValueToMatchNum"] == [{"node-a": 0, "node-b": 0}]
    assert plugin.pre_filter_state(state)["tpValueToMatchNum"] == [{"node-a": 1, "node-b": 0}]


# ---------------------------------------------------------------------------------------------------
# vectorized plugin == literal per-node transcription of upstream
# ---------------------------------------------------------------------------------------------------

def _ref_inclusion(c, pod_obj, snapshot, row, gates) -> bool:
    if c.node_affinity_policy == HONOR and not RequiredNodeAffinity(pod_obj).match(snapshot, np.asarray([row]))[0]:
        return False
    if c.node_taints_policy == HONOR:
        taints = snapshot.nodes[row].spec.taints if snapshot.nodes[row].spec else []
        if find_matching_untolerated_taint(taints, pod_obj.spec.tolerations, ("NoSchedule", "NoExecute")):
            return False
    return True


def reference_filter(plugin, info, snapshot, gates) -> dict[str, str]:
    """filtering.go's calPreFilterState + Filter, node by node and pod by pod."""
    pod_obj = info.pod
    constraints = plugin.get_constraints(pod_obj)
    nip = gates.enabled("NodeInclusionPolicyInPodTopologySpread")
    tp = [dict() for _ in constraints]
    for row in snapshot.order.tolist():
        labels = snapshot.nodes[row].metadata.labels
        if not nip and not RequiredNodeAffinity(pod_obj).match(snapshot, np.asarray([row]))[0]:
            continue
        if not all(c.topology_key in labels for c in constraints):
            continue
        for i, c in enumerate(constraints):
            if nip and not _ref_inclusion(c, pod_obj, snapshot, row, gates):
                continue
            v = labels[c.topology_key]
            tp[i][v] = tp[i].get(v, 0) + count_pods_match_selector(snapshot.pods[row], c.selector, info.namespace)
    out = {}
    for row in snapshot.order.tolist():
        labels = snapshot.nodes[row].metadata.labels
        code = "Success"
        for i, c in enumerate(constraints):
            if c.topology_key not in labels:
                code = "UnschedulableAndUnresolvable"
                break
            cp = CriticalPaths()
            for v, n in tp[i].items():
                cp.update(v, n)
            minimum = 0 if len(tp[i]) < c.min_domains else cp.paths[0][1]
            skew = tp[i].get(labels[c.topology_key], 0) + c.selector.matches(info.labels) - minimum
            if skew > c.max_skew:
                code = "Unschedulable"
                break
        out[snapshot.names[row]] = code
    return out


def reference_score(plugin, info, snapshot, filtered: list[int], gates) -> dict[str, int] | None:
    """scoring.go's PreScore + Score + NormalizeScore with Python floats, node by node."""
    pod_obj = info.pod
    constraints = plugin.get_constraints(pod_obj, "ScheduleAnyway")
    if not constraints:
        return None
    require_all = bool(pod_obj.spec.topology_spread_constraints) or not plugin.system_defaulted
    nip = gates.enabled("NodeInclusionPolicyInPodTopologySpread")
    ignored, counts, size = set(), [dict() for _ in constraints], [0] * len(constraints)
    for row in filtered:
        labels = snapshot.nodes[row].metadata.labels
        if require_all and not all(c.topology_key in labels for c in constraints):
            ignored.add(row)
            continue
        for i, c in enumerate(constraints):
            if c.topology_key == LABEL_HOSTNAME:
                continue
            v = labels.get(c.topology_key, "")
            if v not in counts[i]:
                counts[i][v] = 0
                size[i] += 1
    weights = [topology_normalizing_weight(len(filtered) - len(ignored) if c.topology_key == LABEL_HOSTNAME
                                           else size[i]) for i, c in enumerate(constraints)]
    for row in snapshot.order.tolist():
        labels = snapshot.nodes[row].metadata.labels
        if not nip and not RequiredNodeAffinity(pod_obj).match(snapshot, np.asarray([row]))[0]:
            continue
        if require_all and not all(c.topology_key in labels for c in constraints):
            continue
        for i, c in enumerate(constraints):
            if nip and not _ref_inclusion(c, pod_obj, snapshot, row, gates):
                continue
            v = labels.get(c.topology_key, "")
            if v in counts[i]:
                counts[i][v] += count_pods_match_selector(snapshot.pods[row], c.selector, info.namespace)
    raw = {}
    for row in filtered:
        if row in ignored:
            raw[row] = 0
            continue
        labels, score = snapshot.nodes[row].metadata.labels, 0.0
        for i, c in enumerate(constraints):
            if c.topology_key in labels:
                if c.topology_key == LABEL_HOSTNAME:
                    cnt = count_pods_match_selector(snapshot.pods[row], c.selector, info.namespace)
                else:
                    cnt = counts[i][labels[c.topology_key]]
                score += float(cnt) * weights[i] + float(c.max_skew - 1)
        raw[row] = go_round(score)
    valid = [s for r, s in raw.items() if r not in ignored]
    lo, hi = (min(valid), max(0, max(valid))) if valid else (0, 0)
    out = {}
    for row, s in raw.items():
        if row in ignored:
            out[snapshot.names[row]] = 0
        elif hi == 0:
            out[snapshot.names[row]] = 100
        else:
            out[snapshot.names[row]] = 100 * (hi + lo - s) // hi
    return out


ZONES = st.sampled_from(["z1", "z2", "z3", "z1", "z2", None])
SELECTORS = st.sampled_from([{"matchLabels": {"app": "a"}},
                             {"matchExpressions": [{"key": "tier", "operator": "Exists"}]},
                             None, {}, {"matchLabels": {"app": "b"}}])
CONSTRAINT = st.fixed_dictionaries({
    "maxSkew": st.sampled_from([1, 1, 2, 3]), "topologyKey": st.sampled_from(["zone", "rack", LABEL_HOSTNAME]),
    "whenUnsatisfiable": st.sampled_from(["DoNotSchedule", "ScheduleAnyway"]), "labelSelector": SELECTORS,
    "minDomains": st.sampled_from([None, 2, 5]),
    "nodeAffinityPolicy": st.sampled_from([None, "Honor", "Ignore"]),
    "nodeTaintsPolicy": st.sampled_from([None, "Honor", "Ignore"]),
    "matchLabelKeys": st.sampled_from([[], ["tier"]])})


@st.composite
def clusters(draw):
    n = draw(st.integers(1, 7))
    nodes = []
    for i in range(n):
        labels = {LABEL_HOSTNAME: f"n{i}"} if draw(st.integers(0, 3)) or i == 0 else {}
        zone = draw(ZONES)
        if zone:
            labels["zone"] = zone
        if draw(st.integers(0, 3)):
            labels["rack"] = draw(st.sampled_from(["r1", "r2"]))
        if draw(st.booleans()):
            labels["disk"] = "ssd"
        spec = {"taints": [{"key": "t", "effect": "NoSchedule"}]} if draw(st.integers(0, 3)) == 0 else {}
        nodes.append({"metadata": {"name": f"n{i}", "labels": labels}, "spec": spec})
    pods = []
    for j in range(draw(st.integers(0, 20))):
        labels = dict(draw(st.sampled_from([{"app": "a"}, {"app": "a", "tier": ""}, {"tier": "b"}, {"app": "b"}, {}])))
        meta = {"name": f"e{j}", "namespace": draw(st.sampled_from(["default", "default", "other"])),
                "labels": labels}
        if draw(st.integers(0, 5)) == 0:
            meta["deletionTimestamp"] = "2025-01-01T00:00:00Z"
        pods.append({"metadata": meta, "spec": {"nodeName": f"n{draw(st.integers(0, n - 1))}",
                                                "containers": [{"name": "c"}]}})
    constraints = draw(st.lists(CONSTRAINT, max_size=3))
    incoming = {"metadata": {"name": "p", "namespace": "default",
                             "labels": draw(st.dictionaries(st.sampled_from(["app", "tier"]),
                                                            st.sampled_from(["a", "b", ""]), max_size=2))},
                "spec": {"containers": [{"name": "c"}],
                         "topologySpreadConstraints": [{k: v for k, v in c.items() if v is not None}
                                                       for c in constraints]}}
    if draw(st.booleans()):
        incoming["spec"]["nodeSelector"] = {"disk": "ssd"}
    if draw(st.booleans()):
        incoming["spec"]["tolerations"] = [{"key": "t", "operator": "Exists"}]
    services = [{"metadata": {"name": "s", "namespace": "default"}, "spec": {"selector": {"app": "a"}}}] \
        if draw(st.booleans()) else []
    gates = {"NodeInclusionPolicyInPodTopologySpread": draw(st.booleans()),
             "MatchLabelKeysInPodTopologySpread": draw(st.booleans())}
    system = draw(st.booleans())
    filtered = sorted(set(draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n))))
    return nodes, pods, incoming, services, gates, system, filtered


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(clusters())
def test_vectorized_equals_reference(data):
    from kschedlab.api.core import Service

    nodes, pods, incoming, services, gate_values, system, filtered = data
    cluster = Cluster([Node.model_validate(n) for n in nodes] + [Pod.model_validate(p) for p in pods]
                      + [Service.model_validate(s) for s in services])
    gates = FeatureGates(gate_values, emulate_older=True)
    args = {"defaultingType": "System"} if system else {
        "defaultingType": "List", "defaultConstraints": [
            {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway"},
            {"maxSkew": 2, "topologyKey": "rack", "whenUnsatisfiable": "DoNotSchedule"}]}
    plugin = PodTopologySpread.build(args, Handle(gates, None, cluster))
    info = PodInfo.of(Pod.model_validate(incoming))
    snapshot = cluster.snapshot
    state = CycleState()
    _, status = plugin.pre_filter(state, info, snapshot)
    want = reference_filter(plugin, info, snapshot, gates)
    if status.is_skip():
        assert set(want.values()) <= {"Success"}
    else:
        rows = snapshot.order
        verdicts = plugin.filter_nodes(state, info, snapshot, rows)
        got = {snapshot.names[r]: verdicts.status(i).code.name for i, r in enumerate(rows.tolist())}
        assert got == want
    rows = np.asarray(filtered, np.int64)
    status = plugin.pre_score(state, info, snapshot, rows)
    want_scores = reference_score(plugin, info, snapshot, filtered, gates)
    if want_scores is None:
        assert status.is_skip()
        return
    scores = plugin.score_nodes(state, info, snapshot, rows)
    plugin.normalize_score(state, info, scores)
    assert {snapshot.names[r]: int(s) for r, s in zip(filtered, scores)} == want_scores


# ---------------------------------------------------------------------------------------------------
# args, profile, arithmetic
# ---------------------------------------------------------------------------------------------------

def test_default_profile_scores_with_weight_2():
    sched = Scheduler(Cluster())
    fw = sched.profiles["default-scheduler"]
    assert fw.weights[NAME] == 2
    for point in ("preFilter", "filter", "preScore", "score"):
        assert NAME in [p.name for p in fw.points[point]]
    assert fw.plugins[NAME].system_defaulted


@pytest.mark.parametrize(("args", "errors"), [
    ({"defaultConstraints": [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway",
                              "labelSelector": {"matchLabels": {"a": "b"}}}], "defaultingType": "List"},
     [("FieldValueForbidden", "defaultConstraints[0].labelSelector")]),
    ({"defaultConstraints": [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway"}]},
     [("FieldValueInvalid", "defaultingType")]),  # v1 defaulting: an unset defaultingType is System
    ({"defaultConstraints": [{"maxSkew": 0, "topologyKey": "a/b/c", "whenUnsatisfiable": "ScheduleAnyway"}],
      "defaultingType": "List"},
     [("FieldValueInvalid", "defaultConstraints[0].maxSkew"),
      ("FieldValueInvalid", "defaultConstraints[0].topologyKey")]),
    ({"defaultingtype": "List"}, [("FieldValueInvalid", "defaultingtype")]),
])
def test_invalid_args_are_refused(args, errors):
    with pytest.raises(ArgsError) as err:
        PodTopologySpread.parse_args(args)
    assert [(e.type, e.field) for e in err.value.errors] == errors
    config = {"profiles": [{"pluginConfig": [{"name": NAME, "args": args}]}]}
    with pytest.raises(ArgsError):
        Scheduler(Cluster(), config)


def test_go_log_is_gos_not_glibcs():
    # Go's math.Log(3) is one ulp below the correctly rounded ln 3 that Python's math.log returns
    assert go_log(3.0) == float.fromhex("0x1.193ea7aad030ap+0")
    assert math.log(3.0) == float.fromhex("0x1.193ea7aad030bp+0")
    assert topology_normalizing_weight(1) == go_log(3.0)
    assert [go_round(x) for x in (0.5, 1.5, 2.5, -0.5, 2.4999999999999996)] == [1, 2, 3, -1, 2]


def test_default_selector_merges_services_and_controller():
    """helper.DefaultSelector: Services of the pod's namespace whose selector matches merged,
    plus the selector of the controlling ReplicaSet/StatefulSet/ReplicationController."""
    from typing import ClassVar

    from pydantic import BaseModel

    from kschedlab.api.apps import StatefulSet
    from kschedlab.api.core import Service
    from kschedlab.api.meta import KubeObject
    from kschedlab.plugins.pod_topology_spread_common import default_selector

    class _RCSpec(BaseModel):
        selector: dict[str, str] = {}

    class ReplicationController(KubeObject):  # no API model yet: any object of this kind works
        API_VERSION: ClassVar[str] = "v1"
        KIND: ClassVar[str] = "ReplicationController"
        spec: _RCSpec = _RCSpec()

    def make_pod(kind, api_version):
        return Pod.model_validate({"metadata": {
            "name": "p", "namespace": "ns", "labels": {"app": "web", "tier": "fe"},
            "ownerReferences": [{"apiVersion": api_version, "kind": kind, "name": "owner", "controller": True}]}})

    cluster = Cluster([
        Service.model_validate({"metadata": {"name": "s1", "namespace": "ns"}, "spec": {"selector": {"app": "web"}}}),
        Service.model_validate({"metadata": {"name": "s2", "namespace": "other"},
                                "spec": {"selector": {"tier": "fe"}}}),
        Service.model_validate({"metadata": {"name": "s3", "namespace": "ns"}, "spec": {"selector": {"app": "db"}}}),
        Service.model_validate({"metadata": {"name": "s4", "namespace": "ns"}}),  # nil selector: matches nothing
        StatefulSet.model_validate({"metadata": {"name": "owner", "namespace": "ns"},
                                    "spec": {"selector": {"matchExpressions": [
                                        {"key": "tier", "operator": "Exists"}]}}}),
        ReplicationController(metadata={"name": "owner", "namespace": "ns"}, spec=_RCSpec(selector={"tier": "fe"})),
    ])
    assert str(default_selector(make_pod("StatefulSet", "apps/v1"), cluster)) == "app=web,tier"
    assert str(default_selector(make_pod("ReplicationController", "v1"), cluster)) == "app=web,tier=fe"
    assert str(default_selector(make_pod("ReplicaSet", "apps/v1"), cluster)) == "app=web"  # no such ReplicaSet
    assert str(default_selector(make_pod("StatefulSet", "apps/v1beta1"), cluster)) == "app=web"  # other version


def test_own_constraints_are_parsed_once_a_pod(monkeypatch):
    """PreFilter and PreScore read the pod's own constraints parsed once per PodInfo (a pod with
    a DoNotSchedule and a ScheduleAnyway constraint); a relabelled pod with matchLabelKeys is parsed
    again and follows its new labels."""
    import kschedlab.plugins.pod_topology_spread as pts

    parsed = []
    real = pts.filter_constraints
    monkeypatch.setattr(pts, "filter_constraints", lambda *a, **k: (parsed.append(a[2]), real(*a, **k))[1])
    cluster = Cluster([Node.model_validate({"metadata": {"name": f"n{i}", "labels": {"zone": f"z{i % 2}"}}})
                       for i in range(4)])
    plugin = PodTopologySpread.build({}, Handle(FeatureGates(), None, cluster))
    info = PodInfo.of(Pod.model_validate({"metadata": {"name": "p", "labels": {"app": "a", "v": "1"}}, "spec": {
        "topologySpreadConstraints": [
            {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
             "labelSelector": {"matchLabels": {"app": "a"}}, "matchLabelKeys": ["v"]},
            {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway",
             "labelSelector": {"matchLabels": {"app": "a"}}}]}}))
    snapshot, rows = cluster.snapshot, cluster.snapshot.order
    for _ in range(2):  # two cycles of the same pod
        state = CycleState()
        assert plugin.pre_filter(state, info, snapshot)[1].is_success()
        assert plugin.pre_score(state, info, snapshot, rows).is_success()
    assert parsed == ["DoNotSchedule", "ScheduleAnyway"]
    info.pod.metadata.labels = {"app": "a", "v": "2"}
    first = plugin.constraints_of(info, "DoNotSchedule")[0]
    assert parsed[-1] == "DoNotSchedule" and len(parsed) == 3
    assert first.selector.matches({"app": "a", "v": "2"}) and not first.selector.matches({"app": "a", "v": "1"})
