"""Nominated pods on the fused fast path against the plugin-by-plugin path, attempt by attempt.

Upstream's ``RunFilterPluginsWithNominatedPods`` checks a node where pods of the pod's priority or
higher are nominated twice: with those pods added (their resources, ports, labels for the
affinity and spreading counts), then without. The fast path runs the pass without them fused and,
on those nodes only, the pass with them: plugin by plugin when a live plugin reads the pods a node
holds, else fused (of the fused plugins only NodeResourcesFit reads them: it is asked once, on the columns
of all those nodes with the nominated pods' requests added).

Seeded random clusters with pending pods of random priorities; between attempts pending pods are
nominated (to a node, again to another node, cleared), nominated pods are deleted. Pods of the
fast shape, with pod anti-affinity, spread constraints, a controller (default spreading), host
ports (the plugin-by-plugin path) and, on a second cluster, ResourceClaims. Every attempt must
give the same node, statuses, filter verdicts, scores, ties and trace on both paths.
"""

from __future__ import annotations

import random

import pytest

from kschedlab.cluster import Cluster
from kschedlab.scheduler import Scheduler, fast_path
from kschedlab.scheduler.fast_path import FastPath
from tests.dra_bench import test_dra_fused as dra
from tests.fastpath.test_fast_path import FAST_KINDS, LIVE_KINDS, build, same_attempt
from tests.seeds import covered, seeds

PRIORITIES = (0, 100, 100, 1000)


def set_priorities(cluster: Cluster, keys: list[str], rng: random.Random) -> None:
    for key in keys:
        cluster.pods[key].spec.priority = cluster.pod_infos[key].priority = rng.choice(PRIORITIES)


def nominations(cluster: Cluster, rng: random.Random, later: list[str]) -> None:
    """One change to the nominations (the same draws on both paths): a pending pod of those not yet
    attempted nominated, nominated again elsewhere, cleared, or deleted."""
    pending = [k for k in later if k in cluster.pods and not cluster.pods[k].spec.node_name]
    if not pending:
        return
    nominated = sorted(k for k in pending if cluster.pods[k].status.nominated_node_name)
    nodes = sorted(cluster.nodes)
    change = rng.random()
    if change < 0.45 or not nominated:  # most of the nominations land on few nodes, so they pile up
        cluster.nominate(rng.choice(pending), rng.choice(nodes[:6] if rng.random() < 0.6 else nodes))
    elif change < 0.65:
        cluster.nominate(rng.choice(nominated), rng.choice(nodes))  # the nominated node changed
    elif change < 0.8:
        cluster.nominate(rng.choice(nominated), None)
    else:
        cluster.remove_pod(rng.choice(nominated))  # a nominated pod deleted


def attempts(cluster: Cluster, keys: list[str], fast: bool, seed: int, mutate=None) -> list:
    sched = Scheduler(cluster, seed=seed, fast_path=fast)
    rng = random.Random(500 + seed)
    out = []
    for step, key in enumerate(keys):
        for _ in range(2):
            nominations(cluster, rng, keys[step + 1:])
        if mutate is not None:
            mutate(cluster, rng, step)
        if key in cluster.pods and not cluster.pods[key].spec.node_name:
            out.append(sched.schedule_one(key))
    return out


@pytest.fixture
def noted(monkeypatch) -> dict:
    """The fast path's cycles with nominations, and its fused first passes: those that left the
    plain verdicts and those where NodeResourcesFit, the nominated pods added, refused a node;
    and those that asked NodeResourcesFit about several nodes in its one call."""
    seen: dict = {"plans": 0, "live": 0, "kept": 0, "replaced": 0, "wide": 0}
    plan, first_pass = FastPath.plan, FastPath._fused_first_pass
    nodes_of = fast_path._NodesWithNominated.of.__func__

    def noting_nodes_of(cls, snapshot, rows, nominated):
        nodes = nodes_of(cls, snapshot, rows, nominated)
        if nodes is not None:
            seen["wide"] += len(nodes.positions) > 1
        return nodes

    def noting_plan(self, info, snapshot):
        found = plan(self, info, snapshot)
        if found is not None and found.nominated:
            seen["plans"] += 1
            seen["live"] += bool(found.live)
        return found

    def noting_first_pass(self, plan, state, info, snapshot, outcome, hits):
        out = first_pass(self, plan, state, info, snapshot, outcome, hits)
        seen["kept" if out is outcome else "replaced"] += 1
        return out

    monkeypatch.setattr(FastPath, "plan", noting_plan)
    monkeypatch.setattr(FastPath, "_fused_first_pass", noting_first_pass)
    monkeypatch.setattr(fast_path._NodesWithNominated, "of", classmethod(noting_nodes_of))
    return seen


@pytest.mark.parametrize("seed", seeds(6))
def test_nominations_same_on_both_paths(seed, noted):
    kinds = FAST_KINDS + LIVE_KINDS + ("ports", "plain", "plain")
    results = []
    for fast in (True, False):
        cluster, pending = build(300 + seed, nodes=24, placed=30, service=seed % 2 == 1, kinds=kinds)
        set_priorities(cluster, pending, random.Random(seed))
        results.append(attempts(cluster, pending, fast, seed))
    assert len(results[0]) == len(results[1])
    for a, b in zip(*results):
        same_attempt(a, b)
    assert noted["plans"] > 10 and noted["live"] > 0
    assert noted["kept"] > 0 and noted["replaced"] > 0 and noted["wide"] > 0
    assert covered(any(r.node is None for r in results[0]) and any(r.node is not None for r in results[0]))


@pytest.mark.parametrize("seed", seeds(3))
def test_nominations_with_resource_claims_same_on_both_paths(seed, noted):
    results = []
    for fast in (True, False):
        cluster, keys = dra.build(seed, pods=50)
        set_priorities(cluster, keys, random.Random(seed))
        results.append(attempts(cluster, keys, fast, seed, mutate=dra.mutate))
    assert len(results[0]) == len(results[1])
    for a, b in zip(*results):
        same_attempt(a, b)
    assert noted["plans"] > 10 and noted["live"] > 0


def own_nominations(cluster: Cluster, rng: random.Random, step: int) -> None:
    """Between attempts: a pending pod nominated onto a node (the first six mostly, where others'
    nominations pile up), or, every fifth step, the node some pending pod is nominated to deleted
    (the nomination stays, naming a node the snapshot no longer has)."""
    pending = sorted(k for k, p in cluster.pods.items() if not p.spec.node_name)
    nominated = [k for k in pending if cluster.pods[k].status.nominated_node_name in cluster.nodes]
    if step % 5 == 4 and nominated:
        cluster.remove_node(cluster.pods[rng.choice(nominated)].status.nominated_node_name)
    elif pending and cluster.nodes:
        nodes = sorted(cluster.nodes)
        cluster.nominate(rng.choice(pending), rng.choice(nodes[:6] if rng.random() < 0.7 else nodes))


@pytest.mark.parametrize("seed", seeds(4))
def test_own_nomination_same_on_both_paths(seed, monkeypatch):
    """A pod carrying a nominatedNodeName on the fused path: upstream filters that node alone first
    and takes it when it passes, else filters every node. Counted on the fast path: the nominated
    node passing, failing, gone from the snapshot, and holding other pods' nominations."""
    seen = {"passing": 0, "failing": 0, "deleted": 0, "shared": 0}
    plan = FastPath.plan

    def noting_plan(self, info, snapshot):
        found = plan(self, info, snapshot)
        target = info.pod.status.nominated_node_name if info.pod.status else None
        if found is not None and target:
            row = snapshot.index.get(target)
            seen["deleted"] += row is None
            seen["shared"] += row is not None and bool(found.nominated) and row in found.nominated
        return found

    monkeypatch.setattr(FastPath, "plan", noting_plan)
    kinds = FAST_KINDS + ("plain", "plain", "huge")
    results = []
    for fast in (True, False):
        cluster, pending = build(700 + seed, nodes=24, placed=40, kinds=kinds)
        set_priorities(cluster, pending, random.Random(seed))
        targets = []
        sched = Scheduler(cluster, seed=seed, fast_path=fast)
        rng = random.Random(900 + seed)
        out = []
        for step, key in enumerate(pending):
            own_nominations(cluster, rng, step)
            if key in cluster.pods and not cluster.pods[key].spec.node_name:
                targets.append(cluster.pods[key].status.nominated_node_name)
                out.append(sched.schedule_one(key))
        results.append(out)
        if fast:
            for target, r in zip(targets, out):
                if target and target in cluster.nodes:
                    seen["passing" if r.node == target and r.trace.evaluated_nodes == 1 else "failing"] += 1
    assert len(results[0]) == len(results[1])
    for a, b in zip(*results):
        same_attempt(a, b)
    assert covered(all(seen.values())), seen
