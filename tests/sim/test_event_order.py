"""The engine's due events leave its heap in (time, seq) order, whatever their kinds and payloads."""

import heapq
import random

import pytest

from kschedlab.sim.engine import _Event
from tests.seeds import seeds


@pytest.mark.parametrize("seed", seeds(6))
def test_events_pop_by_time_then_arrival(seed):
    rng = random.Random(seed)
    heap: list[_Event] = []
    pushed: list[tuple[float, int, str, object]] = []
    popped: list[_Event] = []
    seq = 0
    for _ in range(3000):
        if heap and rng.random() < 0.4:  # mutations between steps: pops interleaved with pushes
            popped.append(heapq.heappop(heap))
            continue
        time = float(rng.randrange(40))  # few distinct times: ties everywhere
        kind = rng.choice(["create_pod", "finish_pod", "stream", "a", "z"])
        payload = rng.choice([None, (1, 2), {"x": 1}, object()])  # some not comparable at all
        pushed.append((time, seq, kind, payload))
        heapq.heappush(heap, _Event(time=time, seq=seq, kind=kind, payload=payload))
        seq += 1
    popped += [heapq.heappop(heap) for _ in range(len(heap))]
    # the plain answer: replay the same pushes and pops with (time, seq) keys only
    plain: list[tuple[float, int]] = []
    order: list[tuple[float, int]] = []
    it = iter(pushed)
    rng = random.Random(seed)
    for _ in range(3000):
        if plain and rng.random() < 0.4:
            order.append(heapq.heappop(plain))
            continue
        rng.randrange(40), rng.choice("abcde"), rng.choice("abcd")
        time, s, _, _ = next(it)
        heapq.heappush(plain, (time, s))
    order += [heapq.heappop(plain) for _ in range(len(plain))]
    assert [(e.time, e.seq) for e in popped] == order
    assert all(e.kind == pushed[e.seq][2] and e.payload is pushed[e.seq][3] for e in popped)
