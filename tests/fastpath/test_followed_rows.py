"""Per-node values kept current from the snapshot's change log (kschedlab.scheduler.kept_scores):
NodeFits and NodeScores against a direct computation after every change, with the log trimmed
often, and the whole scheduler against the plugin-by-plugin path with a tiny log."""

from __future__ import annotations

import random

import numpy as np
import pytest

from kschedlab.api.core import Node, Pod
from kschedlab.cluster import Cluster, Snapshot
from kschedlab.framework.types import PodInfo
from kschedlab.scheduler import Scheduler
from kschedlab.scheduler.kept_scores import NodeFits, NodeScores

from .test_fast_path import FAST_KINDS, build, make_node, same_attempt

NEVER = np.iinfo(np.int64).min


def direct_scores(snap: Snapshot, rows: np.ndarray, want: np.ndarray) -> np.ndarray:
    """The two scores from the plugins' own arithmetic (every node has cpu and memory here)."""
    from kschedlab.plugins.resource_allocation import balanced_allocation, least_allocated

    alloc = snap.allocatable[:2].take(rows, axis=1)
    used = snap.non_zero.take(rows, axis=1)
    least = least_allocated(used + want[:, None], used, alloc, np.ones(2, np.int64))
    balanced = balanced_allocation(snap.requested[:2].take(rows, axis=1) + want[:, None],
                                   snap.requested[:2].take(rows, axis=1), alloc, np.ones(2, np.int64))
    return np.stack((least, balanced))


@pytest.mark.parametrize("log", [1, 3, 4096])
def test_followed_rows_match_a_direct_computation(log, monkeypatch):
    monkeypatch.setattr(Snapshot, "CHANGE_LOG", log)
    rng = random.Random(log)
    cluster = Cluster([make_node(i, rng, taints=False, images=False, lacking=False) for i in range(30)])
    snap = cluster.snapshot
    need = np.full(len(snap.resources), NEVER, np.int64)
    need[snap.res_index["cpu"]], need[snap.res_index["pods"]] = 1500, 1
    fits = NodeFits(snap, need)
    want = np.array([250, 256 << 20], np.int64)
    scores = NodeScores(snap, want, want, np.ones(2, np.int64))
    placed = []
    for step in range(120):
        action = rng.random()
        if action < 0.5 or not placed:
            pod = Pod.model_validate({"metadata": {"name": f"p{step}", "namespace": "default"}, "spec": {
                "containers": [{"name": "c", "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}}}]}})
            info = PodInfo.of(pod)
            snap.add_pod(info, rng.choice(snap.names))
            placed.append(info.key)
        elif action < 0.8:
            snap.remove_pod(placed.pop(rng.randrange(len(placed))))
        else:
            name = rng.choice(snap.names)
            data = snap.nodes[snap.index[name]].model_dump(mode="json", by_alias=True, exclude_unset=True)
            data["status"]["allocatable"] = {**data["status"]["allocatable"], "cpu": rng.choice(["1", "2", "8"])}
            snap.update_node(Node.model_validate(data))
        if step % 3 == 0:
            continue  # several changes between two reads
        rows = snap.order
        expected = (snap.free.take(rows, axis=1) >= need[:, None]).all(axis=0)
        assert fits.fit(rows).tolist() == expected.tolist()
        assert fits.every_node_fits() == bool(expected.all())
        assert scores.take(rows).tolist() == direct_scores(snap, rows, want).tolist()
        # spare rows past the nodes (the snapshot's arrays grow by doubling) never count
        assert len(snap.row_version) > len(snap.nodes)
        assert not scores.lacking and fits.unfit <= set(range(len(snap.nodes)))
        # exactly the nodes short of room (a row that fits again leaves the set)
        assert fits.unfit == set(np.flatnonzero(~fits.fit(np.arange(len(snap.nodes)))).tolist())


@pytest.mark.parametrize("log", [2, 4096])
def test_scheduler_with_a_tiny_change_log_same_on_both_paths(log, monkeypatch):
    """Nodes shrink and grow between pods (some pods no longer fit anywhere but on a few nodes)."""
    monkeypatch.setattr(Snapshot, "CHANGE_LOG", log)
    results = []
    for fast in (True, False):
        cluster, pending = build(41, nodes=40, placed=30, taints=False, images=False, kinds=FAST_KINDS,
                                 uniform=True)
        sched = Scheduler(cluster, seed=5, fast_path=fast)
        rng = random.Random(8)
        out = []
        for i, key in enumerate(pending):
            if i % 5 == 2:
                name = rng.choice(sorted(cluster.nodes))
                data = cluster.nodes[name].model_dump(mode="json", by_alias=True, exclude_unset=True)
                data["status"]["allocatable"] = {**data["status"]["allocatable"],
                                                 "cpu": rng.choice(["100m", "1", "16"])}
                cluster.update_node(Node.model_validate(data))
            out.append(sched.schedule_one(key))
        results.append(out)
    for a, b in zip(*results):
        same_attempt(a, b)
    assert any(r.node is None for r in results[0]) and any(r.node for r in results[0])


def test_kept_answers_stay_bounded_however_many_pod_shapes():
    """Each distinct request is a shape with its own node-sized answers; the pods keep their shape
    (bound or pending), yet no more than KEPT_ANSWERS NodeFits and NodeScores stay alive."""
    import gc

    from kschedlab.scheduler.fast_path import KEEP_FROM, KEPT_ANSWERS

    rng = random.Random(3)
    cluster = Cluster([make_node(i, rng, taints=False, images=False, lacking=False) for i in range(20)])
    sched = Scheduler(cluster, seed=0)
    shapes = 3 * KEPT_ANSWERS
    for i in range(shapes):
        for j in range(KEEP_FROM):  # (answers are kept from a shape's KEEP_FROM-th cycle on)
            cluster.add(Pod.model_validate({"metadata": {"name": f"p{i}-{j}", "namespace": "default"}, "spec": {
                "containers": [{"name": "c", "resources": {"requests": {"cpu": f"{10 + i}m", "memory": "1Mi"}}}]}}))
            assert sched.schedule_one(f"default/p{i}-{j}").node is not None
    gc.collect()
    alive = [o for o in gc.get_objects() if isinstance(o, (NodeFits, NodeScores))]
    assert 0 < sum(isinstance(o, NodeScores) for o in alive) <= KEPT_ANSWERS
    assert 0 < sum(isinstance(o, NodeFits) for o in alive) <= KEPT_ANSWERS
