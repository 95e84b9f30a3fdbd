"""The keyed heap's ``up`` / ``down`` move each item once per level instead of swapping pairs:
its slots must be, after every operation, those of container/heap's swap-by-swap algorithm
(kept here as the reference), ties included, since the pop order of tied pods depends on them."""

from __future__ import annotations

import random

import pytest

from kschedlab.queue.heap import Heap
from tests.seeds import seeds


class _SwapHeap:
    """container/heap as Go writes it: ``up`` and ``down`` swap two slots at each step."""

    def __init__(self, less):
        self.less = less
        self.items: list = []
        self.index: dict = {}

    def _swap(self, i, j):
        items = self.items
        items[i], items[j] = items[j], items[i]
        self.index[items[i][0]], self.index[items[j][0]] = i, j

    def _up(self, j):
        while True:
            i = (j - 1) // 2 if j > 0 else 0
            if i == j or not self.less(self.items[j], self.items[i]):
                break
            self._swap(i, j)
            j = i

    def _down(self, i0, n):
        i = i0
        while True:
            j = 2 * i + 1
            if j >= n:
                break
            if j + 1 < n and self.less(self.items[j + 1], self.items[j]):
                j += 1
            if not self.less(self.items[j], self.items[i]):
                break
            self._swap(i, j)
            i = j
        return i > i0

    def add_or_update(self, item):
        i = self.index.get(item[0])
        if i is not None:
            self.items[i] = item
            if not self._down(i, len(self.items)):
                self._up(i)
            return
        self.items.append(item)
        self.index[item[0]] = len(self.items) - 1
        self._up(len(self.items) - 1)

    def delete(self, key):
        i = self.index.get(key)
        if i is None:
            return None
        n = len(self.items) - 1
        if n != i:
            self._swap(i, n)
            if not self._down(i, n):
                self._up(i)
        item = self.items.pop()
        del self.index[item[0]]
        return item


@pytest.mark.parametrize("seed", seeds(8))
def test_slots_are_those_of_swapping_step_by_step(seed):
    rng = random.Random(seed)
    less = lambda a, b: a[1] < b[1]  # noqa: E731 -- few distinct priorities: ties everywhere
    heap, ref = Heap(less, key=lambda x: x[0]), _SwapHeap(less)
    for _ in range(3000):
        op = rng.random()
        key = f"p{rng.randrange(40)}"
        if op < 0.55:
            item = (key, rng.randrange(4), rng.random())
            heap.add_or_update(item)
            ref.add_or_update(item)
        elif op < 0.75:
            assert heap.delete(key) == ref.delete(key)
        elif op < 0.9 and ref.items:
            assert heap.pop() == ref.delete(ref.items[0][0])
        elif ref.items:
            key = rng.choice(ref.items)[0]
            changed = (key, rng.randrange(4), rng.random())
            heap._items[heap._index[key]] = changed  # changed in place, then fixed
            heap.fix(key)
            ref.add_or_update(changed)
        assert heap._items == ref.items
        assert heap._index == ref.index
