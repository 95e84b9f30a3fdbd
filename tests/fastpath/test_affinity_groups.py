"""InterPodAffinity reads the placed pods with affinity from a grouped snapshot index kept current
(``Snapshot.pod_groups``) instead of walking them every cycle. Checked attempt by attempt against a
scheduler whose index is dropped before every attempt (rebuilt by walking every placed pod, as each
cycle did before), on random clusters with mutations between pods: node labels, taints, node and
pod deletions, pods marked terminating, preemption and nominations. The same runs compare the fast
path with InterPodAffinity and PodTopologySpread run beside it against the plugin-by-plugin path."""

from __future__ import annotations

import random

import pytest

from kschedlab.api.core import Node, Pod, Service
from kschedlab.cluster import Cluster
from kschedlab.plugins.inter_pod_affinity import _GROUPS
from kschedlab.scheduler import Scheduler
from tests.fastpath.test_fast_path import same_attempt
from tests.seeds import covered, seeds

ZONES = ("z1", "z2", "z3")
HOST = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"


def node(i: int, zone: str | None, taint: bool = False) -> Node:
    labels = {HOST: f"n{i:02d}"}
    if zone is not None:
        labels[ZONE] = zone
    spec = {"taints": [{"key": "k", "value": "v", "effect": "NoSchedule"}]} if taint else {}
    return Node.model_validate({"metadata": {"name": f"n{i:02d}", "labels": labels}, "spec": spec,
                                "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "12"}}})


def term(rng: random.Random, key: str | None = None) -> dict:
    return {"labelSelector": {"matchLabels": {"app": rng.choice(["web", "db", "cache"])}},
            "topologyKey": key or rng.choice([HOST, ZONE])}


def pod(name: str, rng: random.Random, priority: int = 0) -> Pod:
    affinity: dict = {}
    kind = rng.choice(["anti", "anti", "affinity", "preferred", "both", "plain", "spread", "spread"])
    if kind in ("anti", "both"):
        affinity["podAntiAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": [term(rng)]}
    if kind in ("affinity", "both"):
        affinity["podAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": [term(rng, ZONE)]}
    if kind == "preferred":
        affinity["podAffinity"] = {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": rng.choice([1, 5, 50]), "podAffinityTerm": term(rng)}]}
        affinity["podAntiAffinity"] = {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": rng.choice([3, 20]), "podAffinityTerm": term(rng)}]}
    spec: dict = {"priority": priority, "containers": [{"name": "c", "resources": {"requests": {
        "cpu": rng.choice(["200m", "500m", "1"]), "memory": "256Mi"}}}]}
    if affinity:
        spec["affinity"] = affinity
    if kind == "spread":
        spec["topologySpreadConstraints"] = [{
            "maxSkew": rng.choice([1, 2]), "topologyKey": rng.choice([ZONE, HOST]),
            "whenUnsatisfiable": rng.choice(["DoNotSchedule", "ScheduleAnyway"]),
            "labelSelector": {"matchLabels": {"app": rng.choice(["web", "db"])}}}]
    return Pod.model_validate({"metadata": {"name": name, "namespace": "default",
                                            "labels": {"app": rng.choice(["web", "db", "cache"])}}, "spec": spec})


def mutate(cluster: Cluster, rng: random.Random, step: int, orphans: bool = False) -> None:
    """One random change between attempts (the same draws for both clusters); with ``orphans`` a
    node goes with its pods still bound to it (their rows stay in the snapshot's indexes)."""
    bound = sorted(k for k, p in cluster.pods.items() if p.spec.node_name)
    names = sorted(cluster.nodes)
    choice = rng.random()
    if choice < 0.25 and bound:
        cluster.remove_pod(rng.choice(bound))
    elif choice < 0.4 and names:
        n = cluster.nodes[rng.choice(names)].model_copy(deep=True)
        labels = dict(n.metadata.labels)
        if rng.random() < 0.3:
            labels.pop(ZONE, None)
        else:
            labels[ZONE] = rng.choice(ZONES)
        n.metadata.labels = labels
        cluster.update_node(n)
    elif choice < 0.5 and names:
        data = cluster.nodes[rng.choice(names)].model_dump(by_alias=True, exclude_none=True)
        spec = data.setdefault("spec", {})
        spec["taints"] = [] if spec.get("taints") else [{"key": "k", "value": "v", "effect": "NoSchedule"}]
        cluster.update_node(Node.model_validate(data))
    elif choice < 0.55 and len(names) > 4:
        victim = rng.choice(names)
        for key in [k for k in bound if cluster.pods[k].spec.node_name == victim and not orphans]:
            cluster.remove_pod(key)
        cluster.remove_node(victim)
    elif choice < 0.65 and bound:
        cluster.mark_terminating(rng.choice(bound), "2026-01-01T00:00:00Z", 30)
    elif choice < 0.7:
        cluster.add(node(100 + step, rng.choice(ZONES)))


def run(seed: int, drop_index: bool, fast: bool = True, shared_host: bool = False, orphans: bool = False) -> list:
    rng = random.Random(seed)
    cluster = Cluster([node(i, ZONES[i % 3] if i % 7 else None, taint=i % 5 == 0) for i in range(24)])
    if shared_host:  # a second node labelled with n01's hostname
        twin = node(24, "z1")
        twin.metadata.labels = {**twin.metadata.labels, HOST: "n01"}
        cluster.add(twin)
    if seed % 2:  # default spreading selects the pods labelled app: db
        cluster.add(Service.model_validate({"metadata": {"name": "svc", "namespace": "default"},
                                            "spec": {"selector": {"app": "db"}}}))
    sched = Scheduler(cluster, seed=seed, fast_path=fast)
    results = []
    for step in range(70):
        key = f"default/p{step:03d}"
        cluster.add(pod(f"p{step:03d}", rng, priority=rng.choice([0, 0, 0, 100])))
        if drop_index:
            cluster.snapshot._pod_groups.clear()
        results.append(sched.schedule_one(key))
        status = cluster.pods[key].status if key in cluster.pods else None
        if results[-1].node is None and status is not None and status.nominated_node_name:
            if drop_index:
                cluster.snapshot._pod_groups.clear()
            results.append(sched.schedule_one(key))  # after preemption, at the nominated node
        mutate(cluster, rng, step, orphans)
    return results


@pytest.mark.parametrize("seed", seeds(6))
def test_grouped_index_answers_as_a_walk_of_the_pods(seed):
    kept, walked = run(seed, False), run(seed, True)
    assert len(kept) == len(walked)
    for a, b in zip(kept, walked):
        same_attempt(a, b)
    assert sum(r.node is not None for r in kept) > len(kept) // 3
    assert any(r.node is None for r in kept)
    assert any(r.trace is not None and r.trace.preemption is not None for r in kept)


@pytest.mark.parametrize("seed", seeds(6))
def test_fast_path_with_live_topology_plugins_answers_as_the_plugins(seed, fused_pre_filter_calls):
    """Pods with pod (anti-)affinity and spread constraints, and plain pods among placed pods with
    affinity, take the fused path with InterPodAffinity / PodTopologySpread run beside it: every
    attempt as on the plugin-by-plugin path."""
    live = fused_pre_filter_calls.live
    fast, slow = run(seed, False, True), run(seed, False, False)
    assert len(fast) == len(slow)
    for a, b in zip(fast, slow):
        same_attempt(a, b)
    assert sum(live) > len(fast) // 2


@pytest.mark.parametrize("seed", seeds(6))
def test_counts_per_row_of_a_unique_key_answer_as_sums_per_value(seed, monkeypatch):
    """InterPodAffinity keeps the counts of a topology key whose values are unique among the nodes
    (the hostname) per row instead of summing them per value: every attempt as with the sums."""
    from kschedlab.cluster import Snapshot

    unique = Snapshot.unique_label_rows
    seen: list[bool] = []  # hostname unique at a look-up
    monkeypatch.setattr(Snapshot, "unique_label_rows", lambda self, key: (
        lambda rows: (key != HOST or seen.append(rows is not None), rows)[1])(unique(self, key)))
    per_row = run(seed, False, fast=seed % 2 == 0, shared_host=seed >= 4)
    assert covered(all(seen) if seed < 4 else not seen[0])  # (until n01 or its twin goes)
    assert seen
    monkeypatch.setattr(Snapshot, "unique_label_rows", lambda self, key: None)
    summed = run(seed, False, fast=seed % 2 == 0, shared_host=seed >= 4)
    assert len(per_row) == len(summed)
    for a, b in zip(per_row, summed):
        same_attempt(a, b)


@pytest.mark.parametrize("seed", seeds(3))
def test_group_counts_equal_the_pods_on_each_row(seed):
    rng = random.Random(seed)
    cluster = Cluster([node(i, ZONES[i % 3]) for i in range(12)])
    snap = cluster.snapshot
    for key, group_of in _GROUPS.values():
        snap.pod_groups(key, group_of)
    sched = Scheduler(cluster, seed=seed)
    for step in range(60):
        cluster.add(pod(f"p{step:03d}", rng))
        sched.schedule_one(f"default/p{step:03d}")
        mutate(cluster, rng, step)
        for key, group_of in _GROUPS.values():
            groups = snap.pod_groups(key, group_of)
            want: dict = {}
            for row, pods in enumerate(snap.pods):
                for p in pods:
                    value = group_of(p)
                    if value is not None:
                        want.setdefault(value, [0] * len(snap.pods))[row] += 1
            assert {g: v.counts[:len(snap.pods)].tolist() for g, v in groups.items()} == want
            assert all(v.pods == sum(v.counts) for v in groups.values())


@pytest.mark.parametrize("bad", ["affinity", "spread"])
def test_a_live_pre_filter_failure_is_answered_by_the_framework(bad):
    """A live plugin's PreFilter that rejects the pod (a selector that does not parse) makes the
    framework answer the whole PreFilter, as on the plugin-by-plugin path."""
    results = []
    for fast in (True, False):
        cluster = Cluster([node(i, ZONES[i % 3]) for i in range(6)])
        data = pod("p", random.Random(0)).model_dump(by_alias=True, exclude_none=True)
        selector = {"matchExpressions": [{"key": "app", "operator": "In", "values": ["{bad}"]}]}
        if bad == "affinity":
            data["spec"]["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": selector, "topologyKey": HOST}]}}
        else:
            data["spec"].pop("affinity", None)
            data["spec"]["topologySpreadConstraints"] = [{"maxSkew": 1, "topologyKey": ZONE,
                                                          "whenUnsatisfiable": "DoNotSchedule",
                                                          "labelSelector": selector}]
        cluster.add(Pod.model_validate(data))
        sched = Scheduler(cluster, fast_path=fast)
        if fast:
            plan = sched.fast_paths["default-scheduler"].plan(cluster.pod_infos["default/p"], cluster.snapshot)
            assert plan is not None and plan.live
        results.append(sched.schedule_one("default/p"))
    same_attempt(*results)
    assert results[0].node is None


@pytest.mark.parametrize("seed", seeds(4))
def test_group_counts_read_as_they_are_while_no_node_was_removed(seed, monkeypatch):
    """While no node has been removed, InterPodAffinity reads the grouped index's counts as they
    are (no live mask): every attempt as with the counts masked by the live rows, nodes going
    with their pods still bound on odd seeds."""
    from kschedlab.plugins import inter_pod_affinity

    taken: list[bool] = []
    no_node_removed = inter_pod_affinity._no_node_removed
    monkeypatch.setattr(inter_pod_affinity, "_no_node_removed",
                        lambda snapshot: (lambda r: (taken.append(r), r)[1])(no_node_removed(snapshot)))
    read = run(seed, False, fast=seed % 2 == 0, orphans=seed % 2 == 1)
    assert covered(any(taken) and not all(taken))  # until the first node deletion
    monkeypatch.setattr(inter_pod_affinity, "_no_node_removed", lambda snapshot: False)
    masked = run(seed, False, fast=seed % 2 == 0, orphans=seed % 2 == 1)
    assert len(read) == len(masked)
    for a, b in zip(read, masked):
        same_attempt(a, b)


@pytest.mark.parametrize("fast", [True, False])
def test_pods_left_on_a_removed_node_do_not_score(fast):
    """A node removed with its pod still bound: the pod's preferred term no longer scores (its
    node is not in the snapshot upstream builds), so InterPodAffinity's PreScore skips."""
    cluster = Cluster([node(i, "z1") for i in range(3)])
    cluster.add(Pod.model_validate({"metadata": {"name": "old", "namespace": "default"}, "spec": {
        "nodeName": "n00", "affinity": {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 10, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": "web"}},
                                               "topologyKey": HOST}}]}}}}))
    cluster.add(Pod.model_validate({"metadata": {"name": "new", "namespace": "default",
                                                 "labels": {"app": "web"}}, "spec": {}}))
    sched = Scheduler(cluster, fast_path=fast)
    cluster.remove_node("n00")
    result = sched.schedule_one("default/new")
    assert dict(result.trace.prescore)["InterPodAffinity"].is_skip()


@pytest.mark.parametrize("seed", seeds(4))
def test_valid_rows_kept_across_cycles_answer_as_built_each_time(seed, monkeypatch):
    """The live rows carrying a topology key (and their codes), kept while the snapshot's label
    column and live mask stay: every attempt as when they are built at every call, with nodes
    relabelled, added and removed between pods."""
    from kschedlab.plugins.inter_pod_affinity import _Topology

    hits: list[bool] = []
    valid_rows = _Topology.valid_rows

    def counted(self, key):
        kept = _Topology._VALID.get(key)
        hits.append(kept is not None and kept[0] is self.col(key)[0] and kept[1] is self.live)
        return valid_rows(self, key)

    monkeypatch.setattr(_Topology, "valid_rows", counted)
    kept = run(seed, False, fast=seed % 2 == 0, orphans=seed % 2 == 1)
    assert any(hits) and not all(hits)
    monkeypatch.setattr(_Topology, "valid_rows", lambda self, key: (_Topology._VALID.clear(), valid_rows(self, key))[1])
    built = run(seed, False, fast=seed % 2 == 0, orphans=seed % 2 == 1)
    assert len(kept) == len(built)
    for a, b in zip(kept, built):
        same_attempt(a, b)


@pytest.mark.parametrize("fast", [True, False])
def test_pods_left_on_a_removed_node_do_not_satisfy_affinity(fast):
    """After a cycle has read the zone column, the node holding the only ``app: db`` pod goes with
    the pod still bound: a pod that needs ``app: db`` in its zone (and does not match itself)
    finds no node, as upstream, whose snapshot has no such node."""
    cluster = Cluster([node(i, "z1" if i < 2 else "z2") for i in range(4)])
    cluster.add(Pod.model_validate({"metadata": {"name": "db", "namespace": "default", "labels": {"app": "db"}},
                                    "spec": {"nodeName": "n00"}}))

    def web(name: str) -> Pod:
        return Pod.model_validate({"metadata": {"name": name, "namespace": "default", "labels": {"app": "web"}},
                                   "spec": {"affinity": {"podAffinity": {
                                       "requiredDuringSchedulingIgnoredDuringExecution": [
                                           {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": ZONE}]}}}})

    sched = Scheduler(cluster, fast_path=fast)
    cluster.add(web("first"))
    assert sched.schedule_one("default/first").node in ("n00", "n01")
    cluster.remove_node("n00")
    cluster.add(web("second"))
    result = sched.schedule_one("default/second")
    assert result.node is None
    assert "node(s) didn't match pod affinity rules" in result.message
