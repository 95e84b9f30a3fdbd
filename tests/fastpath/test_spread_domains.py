"""PodTopologySpread's PreFilter reads kept structures instead of summing over every node per pod:
the eligible domains per constraint shape and node set (``PodTopologySpread._eligible_domains``),
the matching pods per domain kept by the snapshot as pods come, go and change
(``Snapshot.matching_pod_counts_by_domain``), and the bind that adds a pod's topology labels leaves
alone the count indexes whose selectors do not read them (``Snapshot.change_pod(labels=...)``).

Checked on random clusters with a mutation between attempts (node labels added and removed, so
domains become eligible or not; taints, read by ``nodeTaintsPolicy: Honor``; pods deleted, relabelled
and marked terminating; nodes added and removed; preemption and its nominations), with constraints
using ``minDomains``, ``matchLabelKeys``, both inclusion policies and selectors on the zone label the
Binding adds: (1) attempt by attempt against runs that rebuild every count index before each attempt
and compute the eligible domains per pod, on both paths; (2) the fast path against the
plugin-by-plugin path; (3) the kept sums against a count of the pods on each node."""

from __future__ import annotations

import random

import numpy as np
import pytest

from kschedlab.api.core import Node, Pod
from kschedlab.cluster import Cluster
from kschedlab.plugins.pod_topology_spread import NAME, PodTopologySpread
from kschedlab.scheduler import Scheduler
from tests.fastpath.test_fast_path import same_attempt
from tests.seeds import covered, seeds

ZONES = ("z1", "z2", "z3", "z4")
HOST = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
RACK = "rack"


def node(i: int, rng: random.Random) -> Node:
    labels = {HOST: f"n{i:03d}"}
    if rng.random() < 0.85:
        labels[ZONE] = rng.choice(ZONES)
    if rng.random() < 0.7:
        labels[RACK] = rng.choice(["r1", "r2"])
    if rng.random() < 0.4:
        labels["disk"] = "ssd"
    spec = {"taints": [{"key": "k", "value": "v", "effect": "NoSchedule"}]} if rng.random() < 0.2 else {}
    return Node.model_validate({"metadata": {"name": f"n{i:03d}", "labels": labels}, "spec": spec,
                                "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "6"}}})


def constraint(rng: random.Random) -> dict:
    when = rng.choice(["DoNotSchedule", "DoNotSchedule", "ScheduleAnyway"])
    selector: dict = {"matchLabels": {"app": rng.choice(["web", "db"])}}
    if rng.random() < 0.25:  # a selector on the label the Binding adds
        selector["matchExpressions"] = [{"key": ZONE, "operator": rng.choice(["Exists", "DoesNotExist"])}]
    c: dict = {"maxSkew": rng.choice([1, 2]), "topologyKey": rng.choice([ZONE, ZONE, HOST, RACK]),
               "whenUnsatisfiable": when, "labelSelector": selector}
    if when == "DoNotSchedule" and rng.random() < 0.3:
        c["minDomains"] = rng.choice([2, 4, 6])
    if rng.random() < 0.3:
        c["matchLabelKeys"] = ["tier"]
    if rng.random() < 0.4:
        c["nodeTaintsPolicy"] = rng.choice(["Honor", "Ignore"])
    if rng.random() < 0.3:
        c["nodeAffinityPolicy"] = rng.choice(["Honor", "Ignore"])
    return c


def pod(name: str, rng: random.Random) -> Pod:
    spec: dict = {"priority": rng.choice([0, 0, 0, 100]), "containers": [{"name": "c", "resources": {
        "requests": {"cpu": rng.choice(["200m", "500m", "1"]), "memory": "256Mi"}}}]}
    kind = rng.random()
    if kind < 0.8:
        spec["topologySpreadConstraints"] = [constraint(rng) for _ in range(rng.choice([1, 1, 2]))]
    if rng.random() < 0.3:
        spec["tolerations"] = [{"key": "k", "operator": "Equal", "value": "v", "effect": "NoSchedule"}]
    if rng.random() < 0.1:
        spec["nodeSelector"] = {"disk": "ssd"}
    elif rng.random() < 0.08:
        spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [{"key": RACK, "operator": "In", "values": ["r1"]}]}]}}}
    labels = {"app": rng.choice(["web", "db"]), "tier": rng.choice(["a", "b"])}
    return Pod.model_validate({"metadata": {"name": name, "namespace": "default", "labels": labels}, "spec": spec})


def mutate(cluster: Cluster, rng: random.Random, step: int) -> None:
    """One random change between attempts (the same draws for every run of a seed)."""
    bound = sorted(k for k, p in cluster.pods.items() if p.spec.node_name)
    names = sorted(cluster.nodes)
    choice = rng.random()
    if choice < 0.2 and bound:
        cluster.remove_pod(rng.choice(bound))
    elif choice < 0.4 and names:  # a topology label added, changed or removed: domains come and go
        n = cluster.nodes[rng.choice(names)].model_copy(deep=True)
        labels = dict(n.metadata.labels)
        key = rng.choice([ZONE, RACK, "disk"])
        if key in labels and rng.random() < 0.5:
            del labels[key]
        else:
            labels[key] = {"disk": "ssd", RACK: rng.choice(["r1", "r2", "r3"])}.get(key) or rng.choice(ZONES)
        n.metadata.labels = labels
        cluster.update_node(n)
    elif choice < 0.5 and names:
        data = cluster.nodes[rng.choice(names)].model_dump(by_alias=True, exclude_none=True)
        spec = data.setdefault("spec", {})
        spec["taints"] = [] if spec.get("taints") else [{"key": "k", "value": "v", "effect": "NoSchedule"}]
        cluster.update_node(Node.model_validate(data))
    elif choice < 0.62 and bound:  # a bound pod relabelled (the cache's UpdatePod)
        key = rng.choice(bound)
        meta = cluster.pods[key].metadata
        new = {**meta.labels, "app": rng.choice(["web", "db", "cache"]), "tier": rng.choice(["a", "b"])}
        cluster.snapshot.change_pod(key, lambda: setattr(meta, "labels", new))
    elif choice < 0.68 and bound:
        cluster.mark_terminating(rng.choice(bound), "2026-01-01T00:00:00Z", 30)
    elif choice < 0.74 and len(names) > 6:
        victim = rng.choice(names)
        for key in [k for k in bound if cluster.pods[k].spec.node_name == victim]:
            cluster.remove_pod(key)
        cluster.remove_node(victim)
    elif choice < 0.82:
        cluster.add(node(200 + step, rng))


def run(seed: int, fast: bool, rebuild: bool = False, check=None) -> list:
    """Every attempt of a seeded run; ``rebuild`` drops the snapshot's count indexes before each
    attempt (rebuilt by walking every placed pod, their domain sums summed afresh)."""
    rng = random.Random(seed)
    cluster = Cluster([node(i, rng) for i in range(20)])
    sched = Scheduler(cluster, seed=seed, fast_path=fast)
    results = []
    for step in range(70):
        key = f"default/p{step:03d}"
        cluster.add(pod(f"p{step:03d}", rng))
        for _ in range(2):  # (a second attempt after preemption, at the nominated node)
            if rebuild:
                cluster.snapshot._pod_counts.clear()
            results.append(sched.schedule_one(key))
            status = cluster.pods[key].status if key in cluster.pods else None
            if results[-1].node is not None or status is None or not status.nominated_node_name:
                break
        mutate(cluster, rng, step)
        if check is not None:
            check(cluster)
    return results


@pytest.mark.parametrize("seed", seeds(6))
def test_kept_domains_answer_as_sums_over_every_node(seed, monkeypatch):
    fast = seed % 3 != 2
    kept_hits = []
    eligible = PodTopologySpread._eligible_domains

    def counted(self, pod, snapshot, constraints):
        before = len(self.__dict__.get("_eligible_kept", {}))
        out = eligible(self, pod, snapshot, constraints)
        kept_hits.append(len(self.__dict__.get("_eligible_kept", {})) == before)
        return out

    monkeypatch.setattr(PodTopologySpread, "_eligible_domains", counted)
    kept = run(seed, fast)
    assert any(kept_hits) and not all(kept_hits)
    monkeypatch.setattr(PodTopologySpread, "_eligible_key", lambda self, pod, constraints: None)
    summed = run(seed, fast, rebuild=True)
    assert len(kept) == len(summed)
    for a, b in zip(kept, summed):
        same_attempt(a, b)
    spread_failures = [r for r in kept if r.diagnosis is not None and NAME in r.diagnosis.unschedulable_plugins]
    assert covered(spread_failures and sum(r.node is not None for r in kept) > len(kept) // 3)


@pytest.mark.parametrize("seed", seeds(6))
def test_fast_path_with_kept_domains_answers_as_the_plugins(seed):
    fast, slow = run(seed, True), run(seed, False)
    assert len(fast) == len(slow)
    for a, b in zip(fast, slow):
        same_attempt(a, b)
    assert covered(any(r.trace is not None and r.trace.preemption is not None for r in fast))


def _check_sums(cluster: Cluster) -> None:
    snap = cluster.snapshot
    for key, (predicate, per_row, sums, _) in snap._pod_counts.items():
        want = np.zeros(len(per_row), np.int64)
        for row, pods in enumerate(snap.pods):
            want[row] = sum(1 for p in pods if predicate(p))
        assert per_row.tolist() == want.tolist(), key
        for domains, total in sums.values():
            counted = domains >= 0
            assert total.tolist() == np.bincount(domains[counted], weights=want[:len(domains)][counted],
                                                 minlength=len(total)).astype(np.int64).tolist(), key


@pytest.mark.parametrize("seed", seeds(3))
def test_domain_sums_equal_the_pods_on_each_row(seed):
    sums_seen = []
    run(seed, True, check=lambda c: (_check_sums(c), sums_seen.append(
        sum(len(entry[2]) for entry in c.snapshot._pod_counts.values())))[0])
    assert max(sums_seen) > 0


def test_a_bound_pod_joins_the_indexes_that_read_its_new_zone_label():
    """The Binding adds the node's zone to the pod: an index whose selector reads the zone counts the
    pod from then on; one that does not read it is left as the pod was assumed."""
    cluster = Cluster([Node.model_validate({"metadata": {"name": "a", "labels": {ZONE: "z1"}},
                                            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "9"}}})])
    cluster.add(Pod.model_validate({"metadata": {"name": "p", "namespace": "default", "labels": {"app": "web"}},
                                    "spec": {"containers": [{"name": "c"}]}}))
    snap = cluster.snapshot
    web = snap.matching_pod_counts("web", lambda p: p.labels.get("app") == "web", frozenset({"app"}))
    zoned = snap.matching_pod_counts("zoned", lambda p: ZONE in p.labels, frozenset({ZONE}))
    Scheduler(cluster).schedule_one("default/p")
    assert cluster.pods["default/p"].metadata.labels[ZONE] == "z1"
    assert (int(web[0]), int(zoned[0])) == (1, 1)


@pytest.mark.parametrize("fast", [True, False])
def test_a_node_without_the_key_fails_when_every_domain_passes(fast):
    """No domain over maxSkew: the nodes with the key pass, the node without it is rejected as
    unresolvable (Filter answers every node at once only while every node carries the key)."""
    def zoned(name: str, zone: str | None) -> Node:
        labels = {ZONE: zone} if zone else {}
        return Node.model_validate({"metadata": {"name": name, "labels": labels},
                                    "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "9"}}})

    spread = {"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule",
              "labelSelector": {"matchLabels": {"app": "web"}}}
    cluster = Cluster([zoned("a", "z1"), zoned("b", "z2"), zoned("c", None)])
    sched = Scheduler(cluster, fast_path=fast)
    for name in ("p1", "p2"):
        cluster.add(Pod.model_validate({"metadata": {"name": name, "namespace": "default", "labels": {"app": "web"}},
                                        "spec": {"containers": [{"name": "c"}], "topologySpreadConstraints": [spread]}}))
    first = sched.schedule_one("default/p1")
    codes = {n: (s.code.name, s.plugin) for n, s in first.trace.filter_statuses().items()}
    assert codes == {"a": ("Success", None), "b": ("Success", None), "c": ("UnschedulableAndUnresolvable", NAME)}
    cluster.remove_node("c")
    second = sched.schedule_one("default/p2")
    assert {s.code.name for s in second.trace.filter_statuses().values()} == {"Success", "Unschedulable"}
    assert second.node != first.node
