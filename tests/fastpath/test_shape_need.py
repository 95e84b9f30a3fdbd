"""The need per snapshot column kept on a pod shape (FastPath._need) against the need written
out afresh, while the snapshot gains columns (nodes with new extended resources), loses nodes and
is replaced; and the scheduler on both paths with pods of young shapes asking for resources that
appear only later, with node labels, taints, deletions and nominations between the pods."""

from __future__ import annotations

import random

import numpy as np

from kschedlab.api.core import Node, Pod
from kschedlab.cluster import Cluster, Snapshot
from kschedlab.scheduler import Scheduler
from kschedlab.scheduler.fast_path import FastPath, PodShape

from .test_fast_path import make_node, same_attempt

NEVER = np.iinfo(np.int64).min
EXTENDED = ("example.com/foo", "example.com/bar", "example.com/baz")


def need_afresh(checked, snap: Snapshot):
    """What NodeResourcesFit needs per column, written out here (None: a resource has no column)."""
    if any(name not in snap.res_index for name, _ in checked):
        return None
    need = [NEVER] * len(snap.resources)
    need[snap.res_index["pods"]] = 1
    for name, value in checked:
        need[snap.res_index[name]] = value
    return need


def node_with(i: int, resources: dict) -> Node:
    return Node.model_validate({"metadata": {"name": f"x-{i}"}, "status": {"allocatable": {
        "cpu": "8", "memory": "16Gi", "pods": "110", **resources}}})


def random_shape(rng: random.Random) -> PodShape:
    names = ["cpu", "memory", *rng.sample(EXTENDED, rng.randrange(3))]
    checked = tuple((name, rng.randrange(1, 5000)) for name in names if rng.random() < 0.8)
    return PodShape(checked, np.zeros(2, np.int64), np.zeros(2, np.int64), False)


def test_kept_need_matches_the_need_written_afresh():
    rng = random.Random(7)
    snaps = [Cluster([make_node(i, rng, taints=False, images=False, lacking=True) for i in range(6)]).snapshot
             for _ in range(2)]
    for snap, order in zip(snaps, (EXTENDED[:2], EXTENDED[1::-1])):  # the same columns in another order
        for i, name in enumerate(order):
            snap.add_node(node_with(100 + i, {name: "1"}))
    shapes = [random_shape(rng) for _ in range(12)]
    for step in range(80):
        snap = rng.choice(snaps)
        action = rng.random()
        if action < 0.15:  # a new column, maybe
            snap.add_node(node_with(step, {rng.choice(EXTENDED): "4"}))
        elif action < 0.25 and len(snap.index) > 2:
            snap.remove_node(rng.choice(sorted(snap.index)))
        for shape in rng.sample(shapes, 4):
            kept = FastPath._need(shape, snap)
            expected = need_afresh(shape.checked, snap)
            assert (kept is None) == (expected is None)
            if kept is not None:
                assert kept.tolist() == expected
                assert not kept.flags.writeable  # shared: nobody may write into it
    assert any(s.need is not None and s.need[2] is not None and len(s.checked) > 2 for s in shapes)


def extended_pod(name: str, rng: random.Random, nominated: str | None = None, tolerations: tuple = ()) -> Pod:
    requests = {"cpu": f"{rng.randrange(1, 40) * 50}m", "memory": f"{rng.randrange(1, 8) * 128}Mi"}
    if rng.random() < 0.5:
        requests[rng.choice(EXTENDED)] = "1"
    return Pod.model_validate({"metadata": {"name": name, "namespace": "default"}, "spec": {
        "priority": rng.randrange(3), "tolerations": list(tolerations),
        "containers": [{"name": "c", "resources": {"requests": requests}}]},
        "status": {"nominatedNodeName": nominated} if nominated else {}})


def mutate(cluster: Cluster, rng: random.Random, step: int) -> None:
    """One change to the nodes: a label, a taint, a deletion, a node with an extended resource."""
    names = sorted(cluster.nodes)
    change = rng.choice(["label", "taint", "delete", "extended"])
    if change == "extended" or len(names) < 4:
        cluster.add(node_with(step, {rng.choice(EXTENDED): "2"}))
        return
    name = rng.choice(names)
    if change == "delete":
        cluster.remove_node(name)
        return
    data = cluster.nodes[name].model_dump(mode="json", by_alias=True, exclude_unset=True)
    if change == "label":
        data["metadata"].setdefault("labels", {})["tier"] = f"t{step}"
    else:
        data.setdefault("spec", {})["taints"] = [{"key": f"k{step % 3}", "effect": "NoSchedule"}]
    cluster.update_node(Node.model_validate(data))


def test_young_shapes_and_new_columns_same_on_both_paths():
    results = []
    for fast in (True, False):
        rng = random.Random(11)
        cluster = Cluster([make_node(i, rng, taints=True, images=False, lacking=True) for i in range(12)])
        sched = Scheduler(cluster, seed=4, fast_path=fast)
        out = []
        for i in range(90):
            if i % 4 == 1:
                mutate(cluster, rng, i)
            nominated = rng.choice(sorted(cluster.nodes)) if rng.random() < 0.15 else None
            pod = extended_pod(f"p-{i:03d}", rng, nominated)
            cluster.add(pod)
            if nominated:
                cluster.nominate(f"default/{pod.metadata.name}", nominated)
            out.append(sched.schedule_one(f"default/{pod.metadata.name}"))
        results.append(out)
    for a, b in zip(*results):
        same_attempt(a, b)
    assert sum(r.node is not None and r.node.startswith("x-") for r in results[0]) > 3
    assert any(r.node is None for r in results[0])
