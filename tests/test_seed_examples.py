"""Worked examples of the specification (seed: scheduling-preemption-eviction.uk.txt).

One test (or a few) per example, on the scenario files of ``datasets/seed/``,
with the exact numbers the seed gives or, where it gives none, the numbers
kube-scheduler v1.37 computes (derived by hand in the comments and in the
header of each dataset). Covered: section 1 (kube-scheduler), 2 (node
placement: nodeSelector, node affinity and its operators, addedAffinity per
profile, nodeName, nominatedNodeName), 3 (Pod overhead), 4 (scheduling gates),
6 (taints and tolerations), 10 (percentageOfNodesToScore, node iteration
order) and 11 (bin packing: MostAllocated, RequestedToCapacityRatio).

Messages: kube-scheduler's default profile ends an unschedulable pod's message
with DefaultPreemption's PostFilter verdict (" preemption: 0/N nodes are
available: ..."); the newest FitError.Error() appends it with " %v", so the
message ends in a single ".".
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kschedlab.api.config import KubeSchedulerConfiguration
from kschedlab.api.core import Node, Pod
from kschedlab.api.errors import ManifestError
from kschedlab.api.loader import load, load_text
from kschedlab.api.resources import pod_requests, resource_list
from kschedlab.api.tolerations import find_matching_untolerated_taint
from kschedlab.apiserver.admission import MSG_OVERHEAD_MISMATCH, admit
from kschedlab.cluster import Cluster
from kschedlab.controllers.workloads import expand
from kschedlab.framework.interface import ArgsError
from kschedlab.plugins.node_resources_fit import default_fit_args
from kschedlab.scheduler import ConfigError, Scheduler, num_feasible_nodes_to_find

NOT_HELPFUL = " preemption: 0/{n} nodes are available: {n} Preemption is not helpful for scheduling."
SEED = Path(__file__).resolve().parent.parent / "datasets" / "seed"
Mi = 1 << 20

POD_AFFINITY = "node(s) didn't match Pod's node affinity/selector"
ENFORCED_AFFINITY = "node(s) didn't match scheduler-enforced node affinity"
UNTOLERATED = "node(s) had untolerated taint(s)"


def scenario(name: str, *, gates: dict | None = None, seed: int = 0):
    """(cluster, scheduler) of a dataset file: load, expand, admit; its
    KubeSchedulerConfiguration (if any) configures the scheduler."""
    objects = load(SEED / name)
    configs = [o for o in objects if isinstance(o, KubeSchedulerConfiguration)]
    assert len(configs) <= 1
    rest = [o for o in objects if not isinstance(o, KubeSchedulerConfiguration)]
    cluster = Cluster(admit(expand(rest), feature_gates=gates))
    return cluster, Scheduler(cluster, configs[0] if configs else None, gates=gates, seed=seed)


def filter_verdicts(result) -> dict[str, tuple[str, str | None, tuple[str, ...]]]:
    """{node: (code, plugin, reasons)} of every node the Filter phase visited."""
    return {node: (st.code.name, st.plugin, st.reasons) for node, st in result.trace.filter_statuses().items()}


def score(result, node: str, plugin: str) -> tuple[int, int, int]:
    entry = result.trace.scores()[node][plugin]
    return entry["raw"], entry["normalized"], entry["weighted"]


def totals(result) -> dict[str, int]:
    return {node: entry["total"] for node, entry in result.trace.scores().items()}


PASS = ("Success", None, ())


# ---------------------------------------------------------------------------------------------------
# 1 - kube-scheduler: filtering, then scoring, highest total wins, ties at random
# ---------------------------------------------------------------------------------------------------

def test_s1_filter_then_score_picks_the_highest_total():
    cluster, sched = scenario("01-kube-scheduler-filter-score.yaml")
    result = sched.schedule_one("default/web")
    assert filter_verdicts(result) == {
        "node-a": PASS, "node-b": PASS,
        "node-c": ("UnschedulableAndUnresolvable", "NodeResourcesFit", ("Insufficient cpu",)),
    }
    # only the feasible nodes are scored (derivation in the dataset header)
    assert set(result.trace.scores()) == {"node-a", "node-b"}
    assert score(result, "node-a", "NodeResourcesFit") == (50, 50, 50)
    assert score(result, "node-b", "NodeResourcesFit") == (74, 74, 74)
    assert score(result, "node-a", "NodeResourcesBalancedAllocation") == (62, 62, 62)
    assert score(result, "node-b", "NodeResourcesBalancedAllocation") == (68, 68, 68)
    for node in ("node-a", "node-b"):
        assert score(result, node, "TaintToleration") == (0, 100, 300)
        assert score(result, node, "ImageLocality") == (0, 0, 0)
        assert "NodeAffinity" not in result.trace.scores()[node]  # PreScore Skip: no preferred terms
    assert totals(result) == {"node-a": 412, "node-b": 442}
    assert result.node == "node-b" and result.trace.ties == 1
    assert cluster.pods["default/web"].spec.node_name == "node-b"  # bound


def test_s1_no_feasible_node_leaves_the_pod_pending():
    cluster, sched = scenario("01-kube-scheduler-filter-score.yaml")
    big = Pod.model_validate({"metadata": {"name": "huge", "namespace": "default"},
                              "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "5"}}}]}})
    cluster.add(admit([big])[0])
    result = sched.schedule_one("default/huge")
    assert result.node is None
    # 5 CPU is more than any node's allocatable: UnschedulableAndUnresolvable everywhere
    assert {v[0] for v in filter_verdicts(result).values()} == {"UnschedulableAndUnresolvable"}
    assert result.message == "0/3 nodes are available: 3 Insufficient cpu." + NOT_HELPFUL.format(n=3)
    assert cluster.pods["default/huge"].spec.node_name is None
    cond = cluster.pods["default/huge"].status.conditions[-1]
    assert (cond.type, cond.status, cond.reason) == ("PodScheduled", "False", "Unschedulable")


def test_s1_equal_scores_are_broken_at_random():
    def pick(seed: int) -> str:
        nodes = [Node.model_validate({"metadata": {"name": n}, "status": {
            "allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}) for n in ("tie-1", "tie-2")]
        pod = Pod.model_validate({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c"}]}})
        result = Scheduler(Cluster(admit([*nodes, pod])), seed=seed).schedule_one("default/p")
        assert result.trace.ties == 2 and len(set(totals(result).values())) == 1
        return result.node

    assert {pick(seed) for seed in range(20)} == {"tie-1", "tie-2"}


# ---------------------------------------------------------------------------------------------------
# 2 - assigning pods to nodes (node parts)
# ---------------------------------------------------------------------------------------------------

def test_s2_node_selector_needs_every_label():
    _, sched = scenario("02-nodeselector-node-restriction.yaml")
    result = sched.schedule_one("default/regulated")
    assert filter_verdicts(result) == {
        "node-fips": ("UnschedulableAndUnresolvable", "NodeAffinity", (POD_AFFINITY,)),
        "node-fips-pci": PASS,
        "node-plain": ("UnschedulableAndUnresolvable", "NodeAffinity", (POD_AFFINITY,)),
    }
    # a single feasible node is taken without scoring
    assert result.node == "node-fips-pci" and result.trace.score is None


def test_s2_pod_with_node_affinity_required_and_preferred():
    cluster, sched = scenario("02-pod-with-node-affinity.yaml")
    pod = cluster.pods["default/with-node-affinity"]
    assert pod.spec.affinity.node_affinity.preferred_during_scheduling_ignored_during_execution[0].weight == 1
    result = sched.schedule_one("default/with-node-affinity")
    assert filter_verdicts(result) == {
        "node-east": PASS, "node-west": PASS,
        "node-south": ("UnschedulableAndUnresolvable", "NodeAffinity", (POD_AFFINITY,)),
    }
    # preferred term: raw = the weight (1) on the node that has the label; normalized
    # to the highest raw score (100 * 1 / 1), NodeAffinity weight 2 in the default profile
    assert score(result, "node-east", "NodeAffinity") == (1, 100, 200)
    assert score(result, "node-west", "NodeAffinity") == (0, 0, 0)
    # the pod requests nothing: NodeResourcesFit counts 100m / 200Mi
    # (4000-100)*100/4000 = 97, (8Gi-200Mi)*100/8Gi = 97 -> 97; BalancedAllocation skips best-effort pods
    assert score(result, "node-east", "NodeResourcesFit") == (97, 97, 97)
    assert "NodeResourcesBalancedAllocation" not in result.trace.scores()["node-east"]
    assert totals(result) == {"node-east": 300 + 200 + 97, "node-west": 300 + 0 + 97}
    assert result.node == "node-east"


def test_s2_preferred_weights_1_and_50():
    _, sched = scenario("02-pod-with-affinity-preferred-weight.yaml")
    result = sched.schedule_one("default/with-affinity-preferred-weight")
    assert filter_verdicts(result) == {
        "node-1": PASS, "node-2": PASS,
        "node-3": ("UnschedulableAndUnresolvable", "NodeAffinity", (POD_AFFINITY,)),
    }
    # raw: the sum of the weights of the matching preferred terms; normalized 100 * raw / max raw
    assert score(result, "node-1", "NodeAffinity") == (1, 2, 4)
    assert score(result, "node-2", "NodeAffinity") == (50, 100, 200)
    assert totals(result) == {"node-1": 300 + 4 + 97, "node-2": 300 + 200 + 97}
    assert result.node == "node-2"


def test_s2_added_affinity_applies_to_the_profile_only():
    cluster, sched = scenario("02-added-affinity-per-profile.yaml")
    assert list(sched.profiles) == ["default-scheduler", "foo-scheduler"]

    foo = sched.schedule_one("default/pod-foo")
    assert filter_verdicts(foo) == {
        "node-foo": PASS,
        "node-plain": ("UnschedulableAndUnresolvable", "NodeAffinity", (ENFORCED_AFFINITY,)),
    }
    assert foo.node == "node-foo" and foo.trace.profile == "foo-scheduler"

    default = sched.schedule_one("default/pod-default")
    assert filter_verdicts(default) == {"node-foo": PASS, "node-plain": PASS}
    assert default.trace.profile == "default-scheduler"

    # addedAffinity AND the pod's own selector: each node fails one of them
    both = sched.schedule_one("default/pod-foo-ssd")
    assert filter_verdicts(both) == {
        "node-foo": ("UnschedulableAndUnresolvable", "NodeAffinity", (POD_AFFINITY,)),
        "node-plain": ("UnschedulableAndUnresolvable", "NodeAffinity", (ENFORCED_AFFINITY,)),
    }
    assert both.node is None
    assert both.message == (f"0/2 nodes are available: 1 {POD_AFFINITY}, 1 {ENFORCED_AFFINITY}."
                            + NOT_HELPFUL.format(n=2))


@pytest.mark.parametrize(("pod", "feasible"), [
    ("op-in", {"n-small"}),
    ("op-notin", {"n-large", "n-bare"}),  # NotIn matches a node without the label
    ("op-exists", {"n-small", "n-large"}),
    ("op-doesnotexist", {"n-bare"}),
    ("op-gt", {"n-large"}),  # 8 > 4; no label -> no match
    ("op-lt", {"n-small"}),  # 2 < 4
    ("op-gt-not-an-integer", set()),  # "four" does not parse: the term matches no node
])
def test_s2_node_affinity_operators(pod, feasible):
    _, sched = scenario("02-node-affinity-operators.yaml")
    result = sched.schedule_one(f"default/{pod}")
    verdicts = filter_verdicts(result)
    assert {n for n, v in verdicts.items() if v == PASS} == feasible
    assert all(v == ("UnschedulableAndUnresolvable", "NodeAffinity", (POD_AFFINITY,))
               for n, v in verdicts.items() if n not in feasible)
    if not feasible:
        assert result.message == f"0/3 nodes are available: 3 {POD_AFFINITY}." + NOT_HELPFUL.format(n=3)


def test_s2_node_name_bypasses_the_scheduler():
    cluster, sched = scenario("02-node-name.yaml")
    assert cluster.pods["default/nginx"].spec.node_name == "kube-01"
    # neither pod is pending: the scheduler ignores pods with spec.nodeName
    assert cluster.pending_pods() == [] and sched.run() == []
    snap = cluster.snapshot
    assert [p.key for p in snap.pods[snap.index["kube-01"]]] == ["default/nginx"]
    assert snap.pods[snap.index["kube-02"]] == []
    # kube-03 does not exist: the pod is on no node
    assert "default/nginx-nowhere" not in snap.pod_row


def test_s2_nominated_node_is_tried_first():
    cluster, sched = scenario("02-nominated-node-name.yaml")
    assert cluster.pods["default/nginx"].status.nominated_node_name == "kube-01"
    # nginx-too-big is nominated to kube-01 too, with the same priority: upstream's
    # RunFilterPluginsWithNominatedPods would count it there, so it leaves this story
    cluster.remove_pod("default/nginx-too-big")
    result = sched.schedule_one("default/nginx")
    # the nominated node passes every Filter: bound there without looking at kube-02
    assert result.node == "kube-01"
    assert filter_verdicts(result) == {"kube-01": PASS}
    assert result.trace.score is None


def test_s2_nominated_node_without_the_nomination_would_be_kube_02():
    cluster, sched = scenario("02-nominated-node-name.yaml")
    cluster.nominate("default/nginx", None)
    cluster.remove_pod("default/nginx-too-big")
    result = sched.schedule_one("default/nginx")
    # LeastAllocated: kube-01 (1500*100/2000 = 75 + 3840Mi*100/4Gi = 93) / 2 = 84,
    # kube-02 (7500*100/8000 = 93 + 16128Mi*100/16Gi = 98) / 2 = 95
    assert score(result, "kube-01", "NodeResourcesFit")[0] == 84
    assert score(result, "kube-02", "NodeResourcesFit")[0] == 95
    assert result.node == "kube-02"


def test_s2_nomination_is_ignored_when_the_pod_does_not_fit_there():
    _, sched = scenario("02-nominated-node-name.yaml")
    result = sched.schedule_one("default/nginx-too-big")
    assert filter_verdicts(result) == {
        "kube-01": ("UnschedulableAndUnresolvable", "NodeResourcesFit", ("Insufficient cpu",)),
        "kube-02": PASS,
    }
    assert result.node == "kube-02"


# ---------------------------------------------------------------------------------------------------
# 3 - Pod overhead
# ---------------------------------------------------------------------------------------------------

def test_s3_runtime_class_overhead_is_added_at_admission():
    cluster, _ = scenario("03-pod-overhead.yaml")
    pod = cluster.pods["default/test-pod"]
    # kubectl get pod test-pod -o jsonpath='{.spec.overhead}' -> map[cpu:250m memory:120Mi]
    assert {k: str(v) for k, v in pod.spec.overhead.items()} == {"cpu": "250m", "memory": "120Mi"}
    # kubectl get pod test-pod -o jsonpath='{.spec.containers[*].resources.limits}'
    # -> map[cpu: 500m memory:100Mi] map[cpu:1500m memory:100Mi]; requests default from them
    assert [{k: str(v) for k, v in c.resources.limits.items()} for c in pod.spec.containers] == [
        {"cpu": "500m", "memory": "100Mi"}, {"cpu": "1500m", "memory": "100Mi"}]
    assert [{k: str(v) for k, v in c.resources.requests.items()} for c in pod.spec.containers] == [
        {"cpu": "500m", "memory": "100Mi"}, {"cpu": "1500m", "memory": "100Mi"}]
    # containers: 2000m CPU and 200Mi; with the overhead the scheduler looks for 2.25 CPU and 320 MiB
    assert pod_requests(pod, exclude_overhead=True) == {"cpu": 2000, "memory": 200 * Mi}
    assert cluster.pod_infos["default/test-pod"].requests == {"cpu": 2250, "memory": 320 * Mi}
    assert pod.status.qos_class == "Guaranteed"


def test_s3_scheduler_counts_requests_plus_overhead():
    cluster, sched = scenario("03-pod-overhead.yaml")
    result = sched.schedule_one("default/test-pod")
    # both short nodes would take the containers alone (2000m / 200Mi), not with the overhead;
    # the request exceeds their allocatable, so the status is UnschedulableAndUnresolvable
    assert filter_verdicts(result) == {
        "node-big": PASS,
        "node-cpu-short": ("UnschedulableAndUnresolvable", "NodeResourcesFit", ("Insufficient cpu",)),
        "node-mem-short": ("UnschedulableAndUnresolvable", "NodeResourcesFit", ("Insufficient memory",)),
    }
    assert result.node == "node-big"
    # kubectl describe node: "2250m (56%)  2250m (56%)  320Mi (1%)  320Mi (1%)"
    snap = cluster.snapshot
    row = snap.index["node-big"]
    cpu_req = int(snap.requested[snap.res_index["cpu"], row])
    mem_req = int(snap.requested[snap.res_index["memory"], row])
    assert (cpu_req, mem_req) == (2250, 320 * Mi)
    assert int(cpu_req / int(snap.allocatable[snap.res_index["cpu"], row]) * 100) == 56
    assert int(mem_req / int(snap.allocatable[snap.res_index["memory"], row]) * 100) == 1
    # limits plus overhead: 2250m CPU, 320Mi = memory.limit_in_bytes 335544320
    pod = cluster.pods["default/test-pod"]
    limits: dict[str, int] = {}
    for c in pod.spec.containers:
        for name, value in resource_list(c.resources.limits).items():
            limits[name] = limits.get(name, 0) + value
    for name, value in resource_list(pod.spec.overhead).items():
        limits[name] += value
    assert limits == {"cpu": 2250, "memory": 335544320}


def test_s3_a_pod_with_a_different_overhead_is_rejected():
    # "Якщо PodSpec вже має це поле визначеним, Pod буде відхилено": upstream rejects it
    # only when it differs from the RuntimeClass's overhead
    objects = load(SEED / "03-pod-overhead.yaml")
    runtime_class = objects[0]
    raw = next(o for o in objects if isinstance(o, Pod)).model_dump(mode="json", by_alias=True, exclude_unset=True)

    def with_overhead(overhead: dict) -> Pod:
        return Pod.model_validate({**raw, "spec": {**raw["spec"], "overhead": overhead}})

    same = admit([runtime_class, with_overhead({"cpu": "250m", "memory": "120Mi"})])[1]
    assert {k: str(v) for k, v in same.spec.overhead.items()} == {"cpu": "250m", "memory": "120Mi"}
    with pytest.raises(ManifestError) as err:
        admit([runtime_class, with_overhead({"cpu": "100m", "memory": "120Mi"})])
    assert MSG_OVERHEAD_MISMATCH in str(err.value) and "spec.overhead" in str(err.value)


# ---------------------------------------------------------------------------------------------------
# 4 - scheduling gates
# ---------------------------------------------------------------------------------------------------

def test_s4_gated_pod_is_not_scheduled():
    cluster, sched = scenario("04-pod-with-scheduling-gates.yaml")
    pod = cluster.pods["default/test-pod"]
    # kubectl get pod test-pod -o jsonpath='{.spec.schedulingGates}'
    assert [g.model_dump(by_alias=True, exclude_unset=True) for g in pod.spec.scheduling_gates] == [
        {"name": "example.com/foo"}, {"name": "example.com/bar"}]
    # STATUS SchedulingGated
    cond = pod.status.conditions[-1]
    assert (cond.type, cond.status, cond.reason) == ("PodScheduled", "False", "SchedulingGated")
    result = sched.schedule_one("default/test-pod")
    assert result.node is None and result.message == "SchedulingGated"
    assert result.status.code.name == "UnschedulableAndUnresolvable"
    assert result.status.plugin == "SchedulingGates"
    assert result.status.reasons == ("waiting for scheduling gates: [example.com/foo example.com/bar]",)
    assert result.trace is None  # never reached the scheduling cycle
    assert pod.spec.node_name is None


def test_s4_removing_the_gates_lets_it_run_on_node_2():
    cluster, sched = scenario("04-pod-with-scheduling-gates.yaml")
    assert sched.schedule_one("default/test-pod").node is None
    (ungated,) = admit(load(SEED / "04-pod-without-scheduling-gates.yaml"))
    assert ungated.spec.scheduling_gates == []  # jsonpath '{.spec.schedulingGates}' is empty
    cluster.remove_pod("default/test-pod")
    cluster.add(ungated)
    result = sched.schedule_one("default/test-pod")
    assert filter_verdicts(result) == {
        "node-1": ("UnschedulableAndUnresolvable", "NodeUnschedulable", ("node(s) were unschedulable",)),
        "node-2": PASS,
    }
    assert result.node == "node-2"  # NODE node-2
    cond = cluster.pods["default/test-pod"].status.conditions[-1]
    assert (cond.type, cond.status) == ("PodScheduled", "True")


# ---------------------------------------------------------------------------------------------------
# 6 - taints and tolerations
# ---------------------------------------------------------------------------------------------------

def test_s6_both_seed_tolerations_match_key1_value1_noschedule():
    cluster, sched = scenario("06-taint-kubectl-examples.yaml")
    taint = cluster.nodes["node1"].spec.taints[0]
    assert (taint.key, taint.value, taint.effect) == ("key1", "value1", "NoSchedule")
    assert sched.schedule_one("default/tolerates-equal").node == "node1"
    assert sched.schedule_one("default/tolerates-exists").node == "node1"
    result = sched.schedule_one("default/no-toleration")
    assert filter_verdicts(result) == {"node1": ("UnschedulableAndUnresolvable", "TaintToleration", (UNTOLERATED,))}
    assert result.message == f"0/1 nodes are available: 1 {UNTOLERATED}." + NOT_HELPFUL.format(n=1)


def test_s6_removing_the_taint_admits_the_pod():
    # kubectl taint nodes node1 key1=value1:NoSchedule-
    cluster, sched = scenario("06-taint-kubectl-examples.yaml")
    assert sched.schedule_one("default/no-toleration").node is None
    node = cluster.nodes["node1"].model_copy(deep=True)
    node.spec.taints = [t for t in node.spec.taints
                        if (t.key, t.value, t.effect) != ("key1", "value1", "NoSchedule")]
    cluster.update_node(node)
    assert sched.schedule_one("default/no-toleration").node == "node1"


def test_s6_three_taints_two_tolerations():
    cluster, sched = scenario("06-three-taints-two-tolerations.yaml")
    result = sched.schedule_one("default/two-tolerations")
    # the third taint (key2=value2:NoSchedule) is not tolerated
    assert filter_verdicts(result) == {"node1": ("UnschedulableAndUnresolvable", "TaintToleration", (UNTOLERATED,))}
    assert result.node is None
    taints = cluster.nodes["node1"].spec.taints
    tolerations = cluster.pods["default/two-tolerations"].spec.tolerations
    untolerated = find_matching_untolerated_taint(taints, tolerations, ("NoSchedule", "NoExecute"))
    assert (untolerated.key, untolerated.value, untolerated.effect) == ("key2", "value2", "NoSchedule")
    # ... but no NoExecute taint is untolerated: a pod already running on node1 keeps running
    assert find_matching_untolerated_taint(taints, tolerations, ("NoExecute",)) is None


def test_s6_toleration_seconds_and_default_toleration_seconds():
    cluster, _ = scenario("06-three-taints-two-tolerations.yaml")
    tolerations = cluster.pods["default/toleration-seconds"].spec.tolerations
    # the pod's own 3600 s and 6000 s stay; DefaultTolerationSeconds adds only the missing
    # not-ready toleration (300 s): unreachable is already tolerated
    assert [(t.key, t.operator, t.effect, t.toleration_seconds) for t in tolerations] == [
        ("key1", "Equal", "NoExecute", 3600),
        ("node.kubernetes.io/unreachable", "Exists", "NoExecute", 6000),
        ("node.kubernetes.io/not-ready", "Exists", "NoExecute", 300),
    ]
    # the two seed tolerations without tolerationSeconds get both defaults
    defaults = cluster.pods["default/two-tolerations"].spec.tolerations[2:]
    assert [(t.key, t.toleration_seconds) for t in defaults] == [
        ("node.kubernetes.io/not-ready", 300), ("node.kubernetes.io/unreachable", 300)]


def test_s6_pod_with_toleration_allows_but_does_not_guarantee():
    _, sched = scenario("06-pod-with-toleration.yaml")
    result = sched.schedule_one("default/nginx")
    assert filter_verdicts(result) == {
        "node-dedicated": PASS, "node-prefer": PASS, "node-plain": PASS,
        "node-noexec": ("UnschedulableAndUnresolvable", "TaintToleration", (UNTOLERATED,)),
    }
    # TaintToleration score: untolerated PreferNoSchedule taints, normalized in reverse
    # (100 - 100 * count / max count), weight 3
    assert score(result, "node-dedicated", "TaintToleration") == (0, 100, 300)
    assert score(result, "node-prefer", "TaintToleration") == (1, 0, 0)
    assert score(result, "node-plain", "TaintToleration") == (0, 100, 300)
    assert totals(result) == {"node-dedicated": 397, "node-prefer": 97, "node-plain": 397}
    # the tolerated dedicated node and the untainted node tie; either may be chosen
    assert result.trace.ties == 2 and result.node in {"node-dedicated", "node-plain"}


GATE_ON = {"TaintTolerationComparisonOperators": True}


def test_s6_numeric_toleration_gt_900_tolerates_sla_950():
    _, sched = scenario("06-numeric-toleration.yaml", gates=GATE_ON)
    result = sched.schedule_one("default/nginx-numeric-toleration")
    verdicts = filter_verdicts(result)
    assert verdicts["node1"] == PASS  # 950 > 900
    assert verdicts["node2"] == ("UnschedulableAndUnresolvable", "TaintToleration", (UNTOLERATED,))  # 850
    # "gold" is not an integer: the toleration does not match
    assert verdicts["node3"][:2] == ("UnschedulableAndUnresolvable", "TaintToleration")
    assert result.node == "node1"


def test_s6_numeric_toleration_lt_1000():
    _, sched = scenario("06-numeric-toleration.yaml", gates=GATE_ON)
    result = sched.schedule_one("default/nginx-numeric-toleration-lt")
    verdicts = filter_verdicts(result)
    assert verdicts["node1"] == PASS and verdicts["node2"] == PASS  # 950 < 1000, 850 < 1000
    assert verdicts["node3"][:2] == ("UnschedulableAndUnresolvable", "TaintToleration")
    assert result.node in {"node1", "node2"} and result.trace.ties == 2


def test_s6_a_failed_numeric_comparison_does_not_hide_another_toleration():
    # upstream TolerationsTolerateTaint: any toleration that tolerates wins; a comparison
    # error counts only when no toleration matches
    _, sched = scenario("06-numeric-toleration.yaml", gates=GATE_ON)
    result = sched.schedule_one("default/nginx-numeric-or-exists")
    assert filter_verdicts(result)["node3"] == PASS
    assert result.node == "node3"


def test_s6_numeric_operators_need_the_feature_gate_in_the_api_server():
    # TaintTolerationComparisonOperators is alpha, off: ValidateTolerations knows only Equal and Exists
    with pytest.raises(ManifestError) as err:
        scenario("06-numeric-toleration.yaml")
    assert ('Pod default/nginx-numeric-toleration: spec.tolerations[0].operator: Unsupported value: "Gt": '
            'supported values: "Equal", "Exists"') in str(err.value)


@pytest.mark.parametrize("pod", ["nginx-numeric-toleration", "nginx-numeric-toleration-lt"])
def test_s6_numeric_operators_need_the_feature_gate_in_the_scheduler(pod):
    # pods created while the gate was on, scheduled by a kube-scheduler running with it off
    cluster, _ = scenario("06-numeric-toleration.yaml", gates=GATE_ON)
    result = Scheduler(cluster, seed=0).schedule_one(f"default/{pod}")
    assert result.node is None
    assert result.message == f"0/3 nodes are available: 3 {UNTOLERATED}." + NOT_HELPFUL.format(n=3)


# ---------------------------------------------------------------------------------------------------
# 10 - scheduler performance tuning
# ---------------------------------------------------------------------------------------------------

V1ALPHA1_EXAMPLE = """\
apiVersion: kubescheduler.config.k8s.io/v1alpha1
kind: KubeSchedulerConfiguration
algorithmSource:
  provider: DefaultProvider

...

percentageOfNodesToScore: 50
"""


def test_s10_the_seed_v1alpha1_config_is_refused():
    # as printed, "..." ends the YAML document and the last line starts a new one without "---"
    with pytest.raises(ManifestError, match="invalid YAML"):
        load_text(V1ALPHA1_EXAMPLE, source="v1alpha1.yaml")
    # and the API version itself is not served any more
    with pytest.raises(ManifestError, match=r'unknown kind "KubeSchedulerConfiguration" '
                                            r"\(apiVersion kubescheduler.config.k8s.io/v1alpha1\)"):
        load_text(V1ALPHA1_EXAMPLE.split("\n...\n")[0], source="v1alpha1.yaml")


def test_s10_default_threshold_formula():
    # adaptive percentage 50 - nodes/125, at least 5%, and never fewer than 100 nodes
    assert num_feasible_nodes_to_find(0, 99) == 99  # small clusters: every node
    assert num_feasible_nodes_to_find(0, 100) == 100  # 50% of 100 = 50, raised to the 100-node floor
    assert num_feasible_nodes_to_find(0, 5000) == 500  # 10% of 5000
    assert num_feasible_nodes_to_find(0, 10000) == 500  # 50 - 80 < 5: the 5% floor
    assert num_feasible_nodes_to_find(50, 400) == 200
    assert num_feasible_nodes_to_find(100, 400) == 400  # score everything
    assert num_feasible_nodes_to_find(1, 5000) == 100  # explicit 1% = 50 nodes, raised to 100


def test_s10_more_than_100_percent_is_refused():
    # The seed: "Якщо ви встановлюєте percentageOfNodesToScore більше 100, kube-scheduler діє так,
    # ніби ви встановили значення 100". kube-scheduler's config validation refuses it instead
    # (ValidateKubeSchedulerConfiguration: field.Invalid, "not in valid range [0-100]").
    with pytest.raises(ConfigError) as err:
        Scheduler(Cluster(), {"percentageOfNodesToScore": 150})
    assert str(err.value) == "percentageOfNodesToScore: Invalid value: 150: not in valid range [0-100]"


def _two_zone_nodes(n: int) -> list:
    return [Node.model_validate({"metadata": {"name": f"n{i:03d}", "labels": {
        "topology.kubernetes.io/zone": "zone-1" if i < n // 2 else "zone-2"}},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}) for i in range(n)]


def test_s10_percentage_of_nodes_to_score_50():
    (config,) = load(SEED / "10-percentage-of-nodes-to-score.yaml")
    assert config.percentage_of_nodes_to_score == 50
    pods = [Pod.model_validate({"metadata": {"name": f"p{i}"}, "spec": {"containers": [{"name": "c"}]}})
            for i in range(2)]
    cluster = Cluster(admit([*_two_zone_nodes(400), *pods]))
    sched = Scheduler(cluster, config)
    first = sched.schedule_one("default/p0")
    # 50% of 400 feasible nodes are found, then scoring starts: 200 nodes scored, 200 never looked at
    assert first.trace.num_to_find == 200
    assert len(first.trace.filter_statuses()) == 200 and len(first.trace.scores()) == 200
    # round robin across the zones: n000 (zone-1), n200 (zone-2), n001, n201, ...
    visited = list(first.trace.filter_statuses())
    assert visited[:4] == ["n000", "n200", "n001", "n201"] and visited[-1] == "n299"
    assert sched.next_start_node_index == 200
    second = sched.schedule_one("default/p1")
    # the next pod continues where the previous one stopped, and the walk wraps to the start
    assert second.trace.start_index == 200
    assert list(second.trace.filter_statuses())[:2] == ["n100", "n300"]
    assert sched.next_start_node_index == 0


def test_s10_six_nodes_two_zones_iteration_order():
    cluster, sched = scenario("10-node-iteration-order.yaml")
    snap = cluster.snapshot
    assert [snap.names[r] for r in snap.order] == ["node-1", "node-5", "node-2", "node-6", "node-3", "node-4"]
    first = sched.schedule_one("default/pod-1")
    assert list(first.trace.filter_statuses()) == ["node-1", "node-5", "node-2", "node-6", "node-3", "node-4"]
    # after all nodes the scheduler starts again at Node 1
    assert sched.next_start_node_index == 0
    second = sched.schedule_one("default/pod-2")
    assert second.trace.start_index == 0
    assert list(second.trace.filter_statuses())[0] == "node-1"


# ---------------------------------------------------------------------------------------------------
# 11 - resource bin packing
# ---------------------------------------------------------------------------------------------------

def test_s11_most_allocated_with_resource_weights():
    _, sched = scenario("11-most-allocated.yaml")
    result = sched.schedule_one("default/incoming")
    # derivation in the dataset header; intel.com/bar (weight 3) is not requested: left out
    assert score(result, "packed", "NodeResourcesFit") == (72, 72, 72)
    assert score(result, "empty", "NodeResourcesFit") == (22, 22, 22)
    # BalancedAllocation (cpu, memory): packed 0.75/0.625 -> 93, before 0.5/0.5 -> 100:
    # 50 + (50 + 93 - 100)/2 = 71; empty 0.25/0.125 -> 93, before 100 -> 71
    assert score(result, "packed", "NodeResourcesBalancedAllocation")[0] == 71
    assert score(result, "empty", "NodeResourcesBalancedAllocation")[0] == 71
    assert totals(result) == {"packed": 300 + 72 + 71, "empty": 300 + 22 + 71}
    assert result.node == "packed"


def test_s11_requested_to_capacity_ratio_config():
    _, sched = scenario("11-requested-to-capacity-ratio.yaml")
    result = sched.schedule_one("default/packer")
    assert filter_verdicts(result)["node-c"] == (
        "UnschedulableAndUnresolvable", "NodeResourcesFit", ("Insufficient intel.com/bar",))
    # derivation in the dataset header: 62.5 rounds half away from zero to 63; node-d's
    # foo utilization 0 scores 0 and is left out of the mean (50, not 25)
    assert score(result, "node-a", "NodeResourcesFit") == (63, 63, 63)
    assert score(result, "node-b", "NodeResourcesFit") == (12, 12, 12)
    assert score(result, "node-d", "NodeResourcesFit") == (50, 50, 50)
    assert result.node == "node-a"


def test_s11_requested_to_capacity_ratio_worked_example_today():
    """The seed's worked calculation, scored as kube-scheduler v1.37 does.

    Seed (legacy 0-10 scale, floor(utilization / 10) per resource):
      Node 1: foo 7, memory 5, cpu 3 -> (7*5 + 5*1 + 3*3) / 9 = 49/9 -> 5
      Node 2: foo 5, memory 7, cpu 10 -> (5*5 + 7*1 + 10*3) / 9 = 62/9 -> 7
    v1.37 (shape scaled x10 to (0,0),(100,100); integer utilization; resources
    scoring > 0 averaged, rounded half away from zero):
      Node 1: foo 3*100/4 = 75, memory 512*100/1024 = 50, cpu 3*100/8 = 37
              round((75*5 + 50*1 + 37*3) / 9) = round(536/9 = 59.56) = 60
      Node 2: foo 4*100/8 = 50, memory 768*100/1024 = 75, cpu 8*100/8 = 100
              round((50*5 + 75*1 + 100*3) / 9) = round(625/9 = 69.44) = 69
    """
    _, sched = scenario("11-requested-to-capacity-ratio-worked.yaml")
    result = sched.schedule_one("default/requester")
    assert filter_verdicts(result) == {"node-1": PASS, "node-2": PASS}
    assert score(result, "node-1", "NodeResourcesFit") == (60, 60, 60)
    assert score(result, "node-2", "NodeResourcesFit") == (69, 69, 69)
    # BalancedAllocation: node-1 cpu 3/8 mem 0.5 -> 93, before 1/8, 0.25 -> 93: 75;
    # node-2 cpu 1.0 mem 0.75 -> 87, before 0.75, 0.5 -> 87: 75
    assert score(result, "node-1", "NodeResourcesBalancedAllocation")[0] == 75
    assert score(result, "node-2", "NodeResourcesBalancedAllocation")[0] == 75
    assert totals(result) == {"node-1": 300 + 60 + 75, "node-2": 300 + 69 + 75}
    assert result.node == "node-2"  # as in the seed: Node 2 scores higher


def test_s11_inverted_shape_prefers_least_requested():
    """The seed's "least requested" shape {0: 10}, {100: 0} on the worked example's nodes.

    Node 1: foo 75 -> 25, memory 50 -> 50, cpu 37 -> 100 - 37 = 63
            round((25*5 + 50*1 + 63*3) / 9) = round(364/9 = 40.44) = 40
    Node 2: foo 50 -> 50, memory 75 -> 25, cpu 100 -> 0, left out of the mean (score 0)
            round((50*5 + 25*1) / (5+1)) = round(275/6 = 45.83) = 46
    The full CPU of node 2 scores 0 and drops out, so node 2 still comes first.
    """
    objects = load(SEED / "11-requested-to-capacity-ratio-worked.yaml")
    config = next(o for o in objects if isinstance(o, KubeSchedulerConfiguration))
    shape = config.profiles[0].plugin_config[0].args["scoringStrategy"]["requestedToCapacityRatio"]["shape"]
    shape[:] = [{"utilization": 0, "score": 10}, {"utilization": 100, "score": 0}]
    rest = [o for o in objects if not isinstance(o, KubeSchedulerConfiguration)]
    result = Scheduler(Cluster(admit(rest)), config).schedule_one("default/requester")
    assert score(result, "node-1", "NodeResourcesFit")[0] == 40
    assert score(result, "node-2", "NodeResourcesFit")[0] == 46


def test_s11_resources_default_to_cpu_and_memory_weight_1():
    args = default_fit_args({"scoringStrategy": {"type": "RequestedToCapacityRatio", "requestedToCapacityRatio": {
        "shape": [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}]}}})
    assert args["scoringStrategy"]["resources"] == [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]
    # "Параметр weight є необовʼязковим та встановлений у 1, якщо він не вказаний"
    args = default_fit_args({"scoringStrategy": {"type": "MostAllocated", "resources": [
        {"name": "intel.com/foo"}, {"name": "cpu", "weight": 3}, {"name": "memory"}]}})
    assert [(r["name"], r["weight"]) for r in args["scoringStrategy"]["resources"]] == [
        ("intel.com/foo", 1), ("cpu", 3), ("memory", 1)]


def test_s11_negative_weight_is_refused():
    # The seed says weight "може бути встановлений у відʼємне значення"; kube-scheduler's
    # validation (validateResources) refuses weights outside (0, 100].
    config = {"profiles": [{"pluginConfig": [{"name": "NodeResourcesFit", "args": {"scoringStrategy": {
        "type": "MostAllocated", "resources": [{"name": "cpu", "weight": -1}]}}}]}]}
    with pytest.raises(ArgsError) as err:
        Scheduler(Cluster(), config)
    # upstream: field.Invalid(scoringStrategy.resources[0].weight, -1, msg)
    assert [(e.type, e.field, e.detail) for e in err.value.errors] == [
        ("FieldValueInvalid", "scoringStrategy.resources[0].weight",
         "resource weight of cpu not in valid range (0, 100]")]


# ---------------------------------------------------------------------------------------------------
# Messages as kube-scheduler prints them, with DefaultPreemption's PostFilter verdict
# ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("dataset", "pod", "expected"), [
    ("06-taint-kubectl-examples.yaml", "no-toleration",
     f"0/1 nodes are available: 1 {UNTOLERATED}. "
     "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."),
    ("02-added-affinity-per-profile.yaml", "pod-foo-ssd",
     f"0/2 nodes are available: 1 {POD_AFFINITY}, 1 {ENFORCED_AFFINITY}. "
     "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."),
])
def test_unschedulable_messages_carry_the_preemption_verdict(dataset, pod, expected):
    _, sched = scenario(dataset)
    assert sched.schedule_one(f"default/{pod}").message == expected


def test_overhead_alone_makes_the_pod_unschedulable_message():
    objects = [o for o in load(SEED / "03-pod-overhead.yaml") if getattr(o.metadata, "name", "") != "node-big"]
    cluster = Cluster(admit(objects))
    result = Scheduler(cluster).schedule_one("default/test-pod")
    # the requests exceed the allocatable of both nodes (UnschedulableAndUnresolvable), so
    # DefaultPreemption does not even look for victims
    assert result.message == ("0/2 nodes are available: 1 Insufficient cpu, 1 Insufficient memory. "
                              "preemption: 0/2 nodes are available: 2 Preemption is not helpful for "
                              "scheduling.")
