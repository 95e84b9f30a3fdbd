"""The unschedulable pool's pod of lowest rank (``UnschedulablePool.lowest``), which the queue
reads for the next leftover flush instead of walking the pool: after any sequence of stores,
re-stores and deletions it is the pod a walk finds, and the heap behind it stays bounded by the
pool's largest size (entries of pods gone are dropped when a store finds the heap twice too big)."""

from __future__ import annotations

import random
from types import SimpleNamespace as NS

import pytest

from kschedlab.queue.pool import UnschedulablePool
from tests.seeds import seeds


@pytest.mark.parametrize("ranks", [1000, 4])
@pytest.mark.parametrize("seed", seeds(3))
def test_lowest_is_what_a_walk_finds_and_the_heap_stays_bounded(seed, ranks):
    # with 4 ranks most re-stores keep the pod's rank (and so its entry): lowest() must still
    # give the walk's rank, and a re-store with another rank must replace the entry
    rng = random.Random(seed)
    pool = UnschedulablePool(lambda q: q.rejectors or None, rank=lambda q: q.since)
    checked = largest = 0
    for _ in range(5000):
        key = f"p{rng.randrange(60)}"
        if key in pool and rng.random() < 0.4:
            del pool[key]
        else:  # a new pod, or one stored again with a later reference (as the queue does)
            pool[key] = NS(key=key, since=float(rng.randrange(ranks)), rejectors={"NodeResourcesFit"})
        largest = max(largest, len(pool))
        walk = min(pool.values(), key=lambda q: q.since, default=None)
        lowest = pool.lowest()
        if walk is None:
            assert lowest is None
            continue
        assert lowest is not None and lowest[0] == walk.since and lowest[1].since == walk.since
        assert len(pool._ranked) <= 2 * largest + 65
        checked += 1
    assert checked > 4000


def test_a_pool_without_rank_has_no_lowest():
    pool = UnschedulablePool(lambda q: None)
    pool["a"] = NS(key="a")
    assert pool.lowest() is None


@pytest.mark.parametrize("seed", seeds(3))
def test_lowest_after_a_rerank_and_more_stores(seed):
    """Ranks shifted in place (a simulation's clock jumped) and ``rerank``: lowest() is the walk's
    again, and so after the stores, re-stores and deletions that follow."""
    rng = random.Random(seed)
    pool = UnschedulablePool(lambda q: q.rejectors or None, rank=lambda q: q.since)
    pods = {}
    for step in range(3000):
        key = f"p{rng.randrange(40)}"
        if key in pool and rng.random() < 0.3:
            del pool[key]
        elif key in pool and rng.random() < 0.5:
            pool[key] = pool[key]  # stored again with its rank
        else:
            pods[key] = NS(key=key, since=float(rng.randrange(8)), rejectors={"NodeResourcesFit"})
            pool[key] = pods[key]
        if step % 200 == 199:
            for qpi in pool.values():
                qpi.since += rng.choice([0.0, 5.0])
            pool.rerank()
        walk = min(pool.values(), key=lambda q: q.since, default=None)
        lowest = pool.lowest()
        assert (lowest is None) if walk is None else (lowest is not None and lowest[0] == walk.since)
