"""``UnschedulablePool.affected`` (the index's sets, none copied when one suffices) against a walk of
the pool in its order, on seeded random stores, re-stores, deletions and moves to the end."""

from __future__ import annotations

import random
from types import SimpleNamespace as NS

import pytest

from kschedlab.queue.pool import UnschedulablePool
from tests.seeds import seeds

PLUGINS = ["NodeResourcesFit", "GangScheduling", "NodePorts", "InterPodAffinity"]
GROUPS = [None, "g1", "g2", "g3"]


def walked(pool: UnschedulablePool, plugins, narrowed) -> list:
    """The pods ``affected`` should give, by asking each pod of the pool in turn."""
    out = []
    for qpi in pool.values():
        if qpi.rejectors is None:
            out.append(qpi)
            continue
        for plugin in plugins:
            if plugin not in qpi.rejectors:
                continue
            if narrowed is None or plugin not in narrowed or (qpi.group is not None and qpi.group == narrowed[plugin]):
                out.append(qpi)
                break
    return out


def random_pod(rng: random.Random, key: str):
    rejectors = None if rng.random() < 0.15 else set(rng.sample(PLUGINS, rng.randrange(1, 3)))
    return NS(key=key, rejectors=rejectors, group=rng.choice(GROUPS))


@pytest.mark.parametrize("seed", seeds(8))
def test_affected_equals_a_walk_of_the_pool(seed):
    rng = random.Random(seed)
    pool = UnschedulablePool(lambda q: q.rejectors, keys=lambda q: q.group)
    for _ in range(1500):
        op = rng.random()
        key = f"p{rng.randrange(40)}"
        if op < 0.45:
            pool[key] = random_pod(rng, key)
        elif op < 0.6 and key in pool:
            del pool[key]
        elif op < 0.7 and key in pool:
            pool.move_to_end(key)
        plugins = rng.sample(PLUGINS, rng.randrange(len(PLUGINS) + 1))
        narrowed = rng.choice([None, {}, {rng.choice(PLUGINS): rng.choice(GROUPS)},
                               {p: rng.choice(GROUPS) for p in PLUGINS}])
        assert pool.affected(plugins, narrowed) == walked(pool, plugins, narrowed)
