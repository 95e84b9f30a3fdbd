"""The fast Filter pass over a chunk of nodes (FastPath.run_filter; with only fused plugins, the
plugins' verdicts read over every node of the chunk at once) against the framework's pass, on
seeded clusters where pods of repeated and new shapes (young and kept answers) meet cordoned
and tainted nodes, with labels, taints, deletions, new nodes and nominations between the pods."""

from __future__ import annotations

import random

import numpy as np
import pytest

from kschedlab.cluster import Cluster
from kschedlab.framework.interface import CycleState
from kschedlab.scheduler import Scheduler
from tests.seeds import seeds

from .test_fast_path import make_node
from .test_shape_need import extended_pod, mutate

TOLERATIONS = ((), (), ({"operator": "Exists"},),
               ({"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"},))


def chunk(rng: random.Random, rows: np.ndarray) -> np.ndarray:
    """Rows as a pass visits them: from some start round the end, all of them or a part."""
    start = rng.randrange(len(rows))
    turned = np.concatenate([rows[start:], rows[:start]])
    return turned if rng.random() < 0.5 else turned[:rng.randrange(1, len(rows) + 1)]


@pytest.mark.parametrize("seed", seeds(4))
def test_filter_pass_like_the_framework(seed):
    rng = random.Random(seed)
    cluster = Cluster([make_node(i, rng, taints=True, images=False, lacking=True) for i in range(40)])
    sched = Scheduler(cluster, seed=seed)
    fw, fast = sched.profiles["default-scheduler"], sched.fast_paths["default-scheduler"]
    snapshot = cluster.snapshot
    templates = [random.Random(seed * 100 + i) for i in range(3)]
    compared = fused = 0
    for i in range(70):
        if i % 3 == 2:
            mutate(cluster, rng, i)
        if rng.random() < 0.2 and snapshot.index:  # a pod nominated to a node, waiting
            waiting = extended_pod(f"w-{i:03d}", rng, rng.choice(sorted(snapshot.index)))
            cluster.add(waiting)
            cluster.nominate(f"default/{waiting.metadata.name}", waiting.status.nominated_node_name)
        source = random.Random(rng.choice(templates).random()) if rng.random() < 0.6 else rng  # shapes repeat
        pod = extended_pod(f"p-{i:03d}", source, tolerations=rng.choice(TOLERATIONS))
        cluster.add(pod)
        key = f"default/{pod.metadata.name}"
        info = cluster.pod_infos[key]
        plan = fast.plan(info, snapshot)
        assert plan is not None
        fused += fast._fused_only(plan)
        slow_state, fast_state = CycleState(), CycleState()
        fw.run_pre_filter(slow_state, info, snapshot)
        fast.run_pre_filter(plan, fast_state, info)
        for _ in range(3):
            rows = chunk(rng, snapshot.order)
            want = fw.run_filter_with_nominated_pods(slow_state, info, snapshot, rows)
            got = fast.run_filter(plan, fast_state, info, snapshot, rows)
            assert np.array_equal(want.rows, got.rows) and want.plugins == got.plugins
            assert [want.status(j) for j in range(len(rows))] == [got.status(j) for j in range(len(rows))]
            assert np.array_equal(want.fail_plugin, got.fail_plugin) and np.array_equal(want.fail_code, got.fail_code)
            assert np.array_equal(want.fail_reason < 0, got.fail_reason < 0)  # (no reason where a node passed)
            compared += 1
        if rng.random() < 0.7:
            sched.schedule_one(key)  # the cluster moves on (kept verdicts go stale)
    assert compared == 210 and fused > 30
