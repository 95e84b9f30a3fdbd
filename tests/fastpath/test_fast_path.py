"""The fused fast path (kschedlab.scheduler.fast_path) against the plugin-by-plugin path.

Seeded random clusters (nodes of varied sizes, cordoned and tainted nodes, nodes reporting images,
nodes without memory, pods already placed) and pending pods of many kinds, some of the fast shape
(with and without tolerations or requests), some that must not take the fast path (node selector,
affinity, host ports, pods too big for any node, so that PostFilter runs; extended resources
take the fast path while no DeviceClass serves them)
and pods the fast path serves with InterPodAffinity, PodTopologySpread or DynamicResources run by
themselves (pod anti-affinity, spread constraints, a Service or a controller selecting them, claims). Every attempt must give
the same node, statuses, filter verdicts, scores, ties and trace on both paths.
"""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest

from kschedlab.api.apps import ReplicaSet
from kschedlab.api.core import Node, Pod, Service
from kschedlab.cluster import Cluster
from kschedlab.features import FeatureGates
from kschedlab.framework.interface import CycleState
from kschedlab.scheduler import Scheduler
from tests.seeds import seeds

ZONES = ("z1", "z2", "z3")
IMAGES = ("nginx:1.25", "redis:7", "busybox:1.36")


def make_node(i: int, rng: random.Random, *, taints: bool, images: bool, lacking: bool) -> Node:
    alloc = {"cpu": rng.choice(["2", "4", "8", "1500m"]), "memory": rng.choice(["4Gi", "8Gi", "16Gi", "3Gi"]),
             "pods": rng.choice(["110", "4", "8"]), "ephemeral-storage": "20Gi"}
    if lacking and rng.random() < 0.1:
        del alloc["memory"]  # a node without memory: the resource plugins leave memory out there
    spec: dict = {}
    if rng.random() < 0.1:
        spec["unschedulable"] = True
    if taints and rng.random() < 0.3:
        spec["taints"] = [rng.choice([
            {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"},
            {"key": "spot", "effect": "PreferNoSchedule"},
            {"key": "maint", "value": "yes", "effect": "NoExecute"},
            {"key": "spot", "value": "b", "effect": "PreferNoSchedule"}])]
    status: dict = {"allocatable": alloc, "capacity": dict(alloc)}
    if images and rng.random() < 0.4:
        status["images"] = [{"names": [rng.choice(IMAGES)], "sizeBytes": rng.choice([50, 300, 900]) * 2**20}]
    name = f"node-{i:03d}"
    return Node.model_validate({"metadata": {"name": name, "labels": {
        "kubernetes.io/hostname": name, "topology.kubernetes.io/zone": ZONES[i % len(ZONES)]}},
        "spec": spec, "status": status})


def pod_dict(name: str, rng: random.Random, kind: str) -> dict:
    requests = {"cpu": rng.choice(["100m", "250m", "500m", "1"]), "memory": rng.choice(["64Mi", "500Mi", "1Gi"])}
    container: dict = {"name": "c", "image": rng.choice(IMAGES), "resources": {"requests": requests}}
    spec: dict = {"containers": [container]}
    meta: dict = {"name": name, "namespace": "default", "labels": {"app": rng.choice(["web", "db"])}}
    if kind == "no-requests":
        del container["resources"]
    elif kind == "cpu-only":
        container["resources"] = {"requests": {"cpu": "200m"}}
    elif kind == "storage":
        requests["ephemeral-storage"] = "1Gi"
    elif kind == "tolerations":
        spec["tolerations"] = [rng.choice([
            {"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"},
            {"key": "spot", "operator": "Exists"},
            {"operator": "Exists"},
            {"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"}])]
    elif kind == "huge":
        requests["cpu"] = "64"
    elif kind == "node-selector":
        spec["nodeSelector"] = {"topology.kubernetes.io/zone": rng.choice(ZONES)}
    elif kind == "node-affinity":
        spec["affinity"] = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 5, "preference": {"matchExpressions": [
                {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["z2"]}]}}]}}
    elif kind == "pod-anti-affinity":
        spec["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "kubernetes.io/hostname"}]}}
    elif kind == "ports":
        container["ports"] = [{"containerPort": 80, "hostPort": 8080}]
    elif kind == "spread":
        spec["topologySpreadConstraints"] = [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                                              "whenUnsatisfiable": "ScheduleAnyway",
                                              "labelSelector": {"matchLabels": {"app": "web"}}}]
    elif kind == "owned":
        meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "u1",
                                    "controller": True}]
    elif kind == "extended":
        requests["example.com/widget"] = "1"
    return {"metadata": meta, "spec": spec}


FAST_KINDS = ("plain", "no-requests", "cpu-only", "storage", "tolerations", "huge")
#: pods the fast path serves with InterPodAffinity / PodTopologySpread run by themselves beside it
LIVE_KINDS = ("pod-anti-affinity", "spread", "owned")
#: pods that take the plugin-by-plugin path
PLUGIN_KINDS = ("node-selector", "node-affinity", "ports")
SLOW_KINDS = ("node-selector", "node-affinity", "pod-anti-affinity", "ports", "spread", "owned", "extended")


def build(seed: int, *, nodes: int = 60, placed: int = 40, taints: bool = True, images: bool = True,
          lacking: bool = True, service: bool = False, kinds=FAST_KINDS + SLOW_KINDS,
          uniform: bool = False) -> tuple[Cluster, list[str]]:
    """A cluster (placed pods bound directly) and the names of the pending pods, from ``seed``
    (``uniform``: the pending pods of one kind all alike, as copies of one template)."""
    rng = random.Random(seed)
    cluster = Cluster([make_node(i, rng, taints=taints, images=images, lacking=lacking) for i in range(nodes)])
    cluster.add(ReplicaSet.model_validate({"metadata": {"name": "rs", "namespace": "default"},
                                           "spec": {"selector": {"matchLabels": {"app": "web"}},
                                                    "template": {"metadata": {"labels": {"app": "web"}}}}}))
    if service:
        cluster.add(Service.model_validate({"metadata": {"name": "svc", "namespace": "default"},
                                            "spec": {"selector": {"app": "db"}}}))
    names = list(cluster.snapshot.names)
    for i in range(placed):
        data = pod_dict(f"placed-{i:03d}", rng, "plain")
        data["spec"]["nodeName"] = rng.choice(names)
        cluster.add(Pod.model_validate(data))
    pending = []
    chosen = [rng.choice(kinds) for _ in range(nodes * 2)]
    # once a pod with inter-pod affinity is placed, every later pod takes the plugin path: those last
    chosen.sort(key=lambda kind: kind == "pod-anti-affinity")
    for i, kind in enumerate(chosen):
        cluster.add(Pod.model_validate(pod_dict(f"p-{i:03d}-{kind}", random.Random(seed) if uniform else rng, kind)))
        pending.append(f"default/p-{i:03d}-{kind}")
    return cluster, pending


def statuses(log) -> list:
    return [(name, s.code, s.reasons, s.plugin) for name, s in log]


def same_attempt(a, b) -> None:
    """Two ScheduleResults agree on everything a reader can see."""
    assert (a.pod, a.node, a.message, a.status) == (b.pod, b.node, b.message, b.status)
    ta, tb = a.trace, b.trace
    assert (ta is None) == (tb is None)
    if ta is None:
        return
    assert statuses(ta.prefilter) == statuses(tb.prefilter)
    assert statuses(ta.prescore) == statuses(tb.prescore)
    assert ta.filter_statuses() == tb.filter_statuses()
    if ta.filter is not None:
        assert ta.filter.plugins == tb.filter.plugins
        assert np.array_equal(ta.filter.rows, tb.filter.rows)
    assert ta.scores() == tb.scores()
    assert (ta.selected, ta.ties, ta.start_index, ta.num_to_find, ta.evaluated_nodes, ta.feasible_nodes) == \
        (tb.selected, tb.ties, tb.start_index, tb.num_to_find, tb.evaluated_nodes, tb.feasible_nodes)
    assert ta.steps == tb.steps
    assert (ta.absent_status, ta.prefilter_nodes) == (tb.absent_status, tb.prefilter_nodes)
    if ta.preemption is not None or tb.preemption is not None:  # (the dry run's clock aside)
        ra, rb = (repr(dataclasses.replace(t.preemption, now_ns=None)) for t in (ta, tb))
        assert ra == rb
    if a.diagnosis is not None or b.diagnosis is not None:
        assert a.diagnosis.message() == b.diagnosis.message()
        assert a.diagnosis.unschedulable_plugins == b.diagnosis.unschedulable_plugins


@pytest.mark.parametrize("seed", seeds(8))
def test_schedule_one_same_on_both_paths(seed, fused_pre_filter_calls):
    taken = fused_pre_filter_calls.keys
    results = []
    for fast in (True, False):
        cluster, pending = build(seed, service=seed % 2 == 1)
        sched = Scheduler(cluster, seed=seed, fast_path=fast)
        results.append([sched.schedule_one(key) for key in pending])
        if fast:
            assert sched.fast_paths["default-scheduler"] is not None
    for i, (a, b) in enumerate(zip(*results)):
        same_attempt(a, b)
        if i % 10 == 0 and a.trace is not None:  # the "explain why" table too
            assert a.trace.explain().equals(b.trace.explain())
    assert 0 < len(taken) < len(results[0])  # pods of both kinds
    assert not any(kind in key for key in taken for kind in PLUGIN_KINDS)
    assert any(kind in key for key in taken for kind in LIVE_KINDS)
    assert sum(r.node is not None for r in results[0]) > len(results[0]) // 3
    assert any(r.node is None for r in results[0])  # the huge pods went through PostFilter


@pytest.mark.parametrize("seed", seeds(3))
def test_run_loop_same_on_both_paths(seed):
    """The whole loop (queue, retries, preemption of lower-priority pods) places the same pods."""
    out = []
    for fast in (True, False):
        cluster, pending = build(100 + seed, nodes=30, placed=60)
        for i, key in enumerate(pending[::5]):
            cluster.pods[key].spec.priority = 1000 + i
            cluster.pod_infos[key].priority = 1000 + i
        result = Scheduler(cluster, seed=seed, fast_path=fast).run()
        out.append([(r.pod, r.node, r.message) for r in result])
        out.append({k: p.spec.node_name for k, p in cluster.pods.items()})
    assert out[0] == out[2] and out[1] == out[3]


def test_fast_plan_answers_like_the_plugins():
    """For every pod with a plan: the fast Filter over every node and the fast Score over the
    nodes that pass equal the framework's plugin-by-plugin answers, pod after pod."""
    cluster, pending = build(7, nodes=80, placed=120, kinds=FAST_KINDS)
    sched = Scheduler(cluster, seed=1)
    fw = sched.profiles["default-scheduler"]
    fast = sched.fast_paths["default-scheduler"]
    snapshot = cluster.snapshot
    planned = 0
    for key in pending:
        info = cluster.pod_infos[key]
        plan = fast.plan(info, snapshot)
        assert plan is not None, key
        planned += 1
        slow_state, fast_state = CycleState(), CycleState()
        _, status, log, _ = fw.run_pre_filter(slow_state, info, snapshot)
        assert status.is_success()
        _, _, fast_log, _ = fast.run_pre_filter(plan, fast_state, info)
        assert statuses(fast_log) == statuses(log)
        assert fast_state.skip_filter == slow_state.skip_filter
        rows = snapshot.order
        want, got = fw.run_filter(slow_state, info, snapshot, rows), fast.run_filter(plan, fast_state, info, snapshot,
                                                                                        rows)
        assert [want.status(i) for i in range(len(rows))] == [got.status(i) for i in range(len(rows))]
        passed = rows[want.passed]
        if len(passed) > 1:
            assert statuses(fast.run_pre_score(plan, fast_state)) == statuses(
                fw.run_pre_score(slow_state, info, snapshot, passed))
            s_want = fw.run_score(slow_state, info, snapshot, passed)
            s_got = fast.run_score(plan, fast_state, info, snapshot, passed)
            assert s_want.plugins == s_got.plugins
            assert np.array_equal(s_want.raw, s_got.raw) and np.array_equal(s_want.normalized, s_got.normalized)
            assert np.array_equal(s_want.total, s_got.total)
        sched.schedule_one(key)  # the cluster moves on (nodes change, kept scores go stale)
    assert planned == len(pending)


@pytest.mark.parametrize("kind", SLOW_KINDS)
def test_pods_outside_the_shape_take_the_plugin_path(kind):
    """... or, for pod affinity, spread constraints and default spreading, the fast path with
    those plugins run by themselves."""
    cluster = Cluster([make_node(i, random.Random(i), taints=False, images=False, lacking=False) for i in range(4)])
    cluster.add(ReplicaSet.model_validate({"metadata": {"name": "rs", "namespace": "default"},
                                           "spec": {"selector": {"matchLabels": {"app": "web"}},
                                                    "template": {"metadata": {"labels": {"app": "web"}}}}}))
    rng = random.Random(0)
    data = pod_dict("p", rng, kind)
    if kind == "owned":
        data["metadata"]["labels"] = {"app": "web"}
    cluster.add(Pod.model_validate(data))
    fast = Scheduler(cluster).fast_paths["default-scheduler"]
    plan = fast.plan(cluster.pod_infos["default/p"], cluster.snapshot)
    if kind in LIVE_KINDS:
        want = {"pod-anti-affinity": {"InterPodAffinity"}, "spread": {"PodTopologySpread"},
                "owned": {"PodTopologySpread"}}[kind]
        assert plan is not None and plan.live == want
    elif kind == "extended":  # no DeviceClass serves it (tests/fastpath/test_fast_path_extended.py)
        assert plan is not None and not plan.live
    else:
        assert plan is None


def test_cluster_facts_turn_the_fast_path_off():
    """A Service selecting the pod, a placed pod with inter-pod affinity make a plugin run by
    itself beside it; a nomination names the node the plan filters twice."""
    rng = random.Random(3)

    def fresh():
        cluster = Cluster([make_node(i, rng, taints=False, images=False, lacking=False) for i in range(4)])
        cluster.add(Pod.model_validate(pod_dict("p", random.Random(0), "plain")))
        cluster.pods["default/p"].metadata.labels = {"app": "db"}
        return cluster, Scheduler(cluster).fast_paths["default-scheduler"]

    cluster, fast = fresh()
    assert fast.plan(cluster.pod_infos["default/p"], cluster.snapshot) is not None
    assert not fast.plan(cluster.pod_infos["default/p"], cluster.snapshot).live
    cluster.add(Service.model_validate({"metadata": {"name": "svc", "namespace": "default"},
                                        "spec": {"selector": {"app": "db"}}}))
    assert fast.plan(cluster.pod_infos["default/p"], cluster.snapshot).live == {"PodTopologySpread"}

    cluster, fast = fresh()
    data = pod_dict("aff", random.Random(1), "pod-anti-affinity")
    data["spec"]["nodeName"] = "node-000"
    cluster.add(Pod.model_validate(data))
    assert fast.plan(cluster.pod_infos["default/p"], cluster.snapshot).live == {"InterPodAffinity"}

    cluster, fast = fresh()
    cluster.add(Pod.model_validate(pod_dict("other", random.Random(2), "plain")))
    cluster.nominate("default/other", "node-001")
    plan = fast.plan(cluster.pod_infos["default/p"], cluster.snapshot)  # the node checked twice
    assert plan.nominated == {cluster.snapshot.index["node-001"]: [cluster.pod_infos["default/other"]]}


def test_profiles_outside_the_path_have_none():
    cluster, _ = build(0, nodes=4, placed=0)
    most = {"profiles": [{"pluginConfig": [{"name": "NodeResourcesFit", "args": {
        "scoringStrategy": {"type": "MostAllocated"}}}]}]}
    added = {"profiles": [{"pluginConfig": [{"name": "NodeAffinity", "args": {"addedAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": [
            {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["z1"]}]}]}}}}]}]}
    assert Scheduler(cluster, most).fast_paths["default-scheduler"] is not None  # scored by its own scorer
    assert Scheduler(cluster, added).fast_paths["default-scheduler"] is None
    assert Scheduler(cluster, fast_path=False).fast_paths["default-scheduler"] is None


@pytest.mark.parametrize("config", [
    {"profiles": [{"pluginConfig": [{"name": "NodeResourcesFit", "args": {
        "scoringStrategy": {"type": "MostAllocated", "resources": [{"name": "cpu", "weight": 3},
                                                                   {"name": "memory", "weight": 1}]}}}]}]},
    {"profiles": [{"pluginConfig": [{"name": "NodeResourcesFit", "args": {
        "scoringStrategy": {"type": "LeastAllocated", "resources": [{"name": "cpu", "weight": 2},
                                                                    {"name": "memory", "weight": 5}]}}}]}]},
    {"profiles": [{"plugins": {"score": {"disabled": [{"name": "NodeResourcesBalancedAllocation"}]}}}]},
    {"percentageOfNodesToScore": 30},
])
def test_configured_profiles_same_on_both_paths(config):
    results = []
    for fast in (True, False):
        cluster, pending = build(11, kinds=FAST_KINDS)
        sched = Scheduler(cluster, config, seed=2, fast_path=fast)
        results.append([sched.schedule_one(key) for key in pending])
    for a, b in zip(*results):
        same_attempt(a, b)


@pytest.mark.parametrize("gates", [{"OpportunisticBatching": False},
                                   {"DRAExtendedResource": False}])  # (a locked gate: emulating an older version)
def test_gates_same_on_both_paths(gates):
    """Without opportunistic batching, and with batching signing pods (hints served from the batch)."""
    results = []
    for fast in (True, False):
        cluster, pending = build(5, taints=False, kinds=("plain",) * 6 + FAST_KINDS, uniform=True)
        # signed pods need spreading without system defaults (List with no constraint)
        config = {"profiles": [{"pluginConfig": [{"name": "PodTopologySpread", "args": {"defaultingType": "List"}}]}]}
        sched = Scheduler(cluster, config, seed=4, gates=FeatureGates(gates, emulate_older=True), fast_path=fast)
        results.append([sched.schedule_one(key) for key in pending])
    for a, b in zip(*results):
        same_attempt(a, b)
        assert (a.trace.batch is None) == (b.trace.batch is None)
        if a.trace.batch is not None:
            assert (a.trace.batch.attempt, a.trace.batch.flushed, a.trace.batch.remaining) == \
                (b.trace.batch.attempt, b.trace.batch.flushed, b.trace.batch.remaining)
    if gates == {"DRAExtendedResource": False}:
        assert any(r.trace.batched for r in results[0])


def test_node_changes_between_pods_same_on_both_paths():
    """Nodes cordoned, tainted, resized, removed and added between attempts: the kept answers
    (free capacity, taint verdicts, resource scores) follow the snapshot."""
    results = []
    for fast in (True, False):
        cluster, pending = build(21, nodes=40, placed=30, kinds=FAST_KINDS, uniform=True)
        sched = Scheduler(cluster, seed=3, fast_path=fast)
        rng = random.Random(5)
        out = []
        for i, key in enumerate(pending):
            if i % 7 == 3:
                name = rng.choice(sorted(cluster.nodes))
                data = cluster.nodes[name].model_dump(mode="json", by_alias=True, exclude_unset=True)
                spec, status = data.setdefault("spec", {}), data["status"]
                change = rng.choice(["cordon", "taint", "resize", "uncordon"])
                if change == "cordon":
                    spec["unschedulable"] = True
                elif change == "uncordon":
                    spec["unschedulable"] = False
                    spec["taints"] = []
                elif change == "taint":
                    spec["taints"] = [*spec.get("taints", []), {"key": f"k{i}", "effect": "NoSchedule"}]
                else:
                    status["allocatable"] = {**status["allocatable"], "cpu": rng.choice(["1", "16"])}
                node = Node.model_validate(data)
                cluster.update_node(node)
            if i % 11 == 5:
                cluster.add(make_node(100 + i, rng, taints=True, images=True, lacking=False))
            out.append(sched.schedule_one(key))
        results.append(out)
    for a, b in zip(*results):
        same_attempt(a, b)
