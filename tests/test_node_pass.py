"""The scheduler's pass over the nodes (``Scheduler._find_nodes_that_pass_filters``: in chunks, some
of them vectorized) against upstream's ``findNodesThatPassFilters`` run with one worker, written here
node by node: visit the nodes from ``nextStartNodeIndex`` round the end, keep the first
``numNodesToFind`` feasible ones, record every failure, and stop at the next feasible node, which is
neither kept nor counted. ``nextStartNodeIndex`` moves by the nodes kept plus the failures recorded.

Seeded clusters of 150-260 nodes (so fewer nodes are sought than exist) fill up as pods arrive, with
labels, taints, deletions and new nodes between the pods; both paths, several percentages."""

from __future__ import annotations

import random

import numpy as np
import pytest

from kschedlab.cluster import Cluster
from kschedlab.framework.interface import CycleState
from kschedlab.scheduler import Scheduler
from tests.fastpath.test_fast_path import make_node
from tests.fastpath.test_shape_need import extended_pod, mutate
from tests.seeds import covered, seeds


def one_worker_pass(sched: Scheduler, key: str) -> tuple[list[int], int]:
    """(the rows kept, the nodes processed) of upstream's pass with one worker, node by node."""
    fw = sched.profiles["default-scheduler"]
    snapshot = sched.cluster.snapshot
    info = sched.cluster.pod_infos[key]
    state = CycleState()
    fw.run_pre_filter(state, info, snapshot)
    order = snapshot.order
    n = len(order)
    to_find = sched.num_feasible_nodes_to_find(None, n)
    start = sched.next_start_node_index % n
    kept: list[int] = []
    failures = 0
    for i in range(n):
        row = order[(start + i) % n]
        if fw.run_filter_with_nominated_pods(state, info, snapshot, np.array([row])).passed[0]:
            if len(kept) == to_find:
                break  # the (to_find + 1)-th feasible node cancels the search
            kept.append(int(row))
        else:
            failures += 1
    return kept, len(kept) + failures


@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize("seed", seeds(3))
def test_the_pass_answers_as_upstream_with_one_worker(seed, fast):
    rng = random.Random(seed)
    cluster = Cluster([make_node(i, rng, taints=True, images=False, lacking=False)
                       for i in range(rng.randrange(150, 260))])
    sched = Scheduler(cluster, {"percentageOfNodesToScore": rng.choice([0, 10, 40])}, seed=seed, fast_path=fast)
    past_kept = 0  # passes where failures after the last node kept were counted
    for i in range(120):
        if i % 10 == 9:
            mutate(cluster, rng, i)
        pod = extended_pod(f"p-{i:03d}", rng)
        cluster.add(pod)
        key = f"default/{pod.metadata.name}"
        kept, processed = one_worker_pass(sched, key)
        start = sched.next_start_node_index % len(cluster.snapshot.order)
        result = sched.schedule_one(key)
        trace = result.trace
        assert trace.evaluated_nodes == processed, i
        assert trace.feasible_nodes == len(kept), i
        if trace.filter is not None:
            assert sorted(trace.filter.rows[trace.filter.passed].tolist()) == sorted(kept), i
        assert sched.next_start_node_index == (start + processed) % len(cluster.snapshot.order), i
        if kept and processed < len(cluster.snapshot.order):
            order = cluster.snapshot.order
            last = (int(np.flatnonzero(order == kept[-1])[0]) - start) % len(order)
            past_kept += processed > last + 1
    assert covered(past_kept > 5)
