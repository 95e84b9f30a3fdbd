"""A keyed binary heap that breaks ties exactly as Go's ``container/heap`` does.

kube-scheduler keeps activeQ and backoffQ in ``backend/heap.Heap``: a map from
key to slot plus ``container/heap``'s ``up``/``down``. When ``less`` cannot
order two items (same priority, same timestamp) the pop order depends on that
algorithm, so it is reproduced here step for step.

>>> h = Heap(lambda a, b: a < b, key=str)
>>> for x in (5, 1, 4, 1.0, 3):
...     h.add_or_update(x)
>>> [h.pop() for _ in range(len(h))]
[1, 1.0, 3, 4, 5]
"""

from __future__ import annotations

from typing import Callable, Generic, Hashable, Iterator, TypeVar

T = TypeVar("T")


class Heap(Generic[T]):
    """Min-heap by ``less`` with O(log n) update and delete by ``key(item)``."""

    def __init__(self, less: Callable[[T, T], bool], key: Callable[[T], Hashable]):
        self._less = less
        self._key = key
        self._items: list[T] = []
        self._index: dict[Hashable, int] = {}

    # -- container/heap primitives ------------------------------------------------------------
    def _swap(self, i: int, j: int) -> None:
        items = self._items
        items[i], items[j] = items[j], items[i]
        self._index[self._key(items[i])] = i
        self._index[self._key(items[j])] = j

    def _up(self, j: int) -> None:
        # container/heap's up, with the swaps' index updates done once per moved item
        items, index, key, less = self._items, self._index, self._key, self._less
        item = items[j]
        while j > 0:
            i = (j - 1) // 2  # Go's (j-1)/2 truncates toward zero; j == 0 stops
            parent = items[i]
            if not less(item, parent):
                break
            items[j] = parent
            index[key(parent)] = j
            j = i
        items[j] = item
        index[key(item)] = j

    def _down(self, i0: int, n: int) -> bool:
        # container/heap's down: the item at i0 sinks while a child is less than it
        items, index, key, less = self._items, self._index, self._key, self._less
        item = items[i0]
        i = i0
        while True:
            j = 2 * i + 1
            if j >= n:
                break
            j2 = j + 1
            if j2 < n and less(items[j2], items[j]):
                j = j2
            child = items[j]
            if not less(child, item):
                break
            items[i] = child
            index[key(child)] = i
            i = j
        items[i] = item
        index[key(item)] = i
        return i > i0

    def _fix(self, i: int) -> None:
        if not self._down(i, len(self._items)):
            self._up(i)

    def _remove_at(self, i: int) -> T:
        n = len(self._items) - 1
        if n != i:
            self._swap(i, n)
            if not self._down(i, n):
                self._up(i)
        item = self._items.pop()
        del self._index[self._key(item)]
        return item

    # -- the scheduler heap's API -----------------------------------------------------------------
    def add_or_update(self, item: T) -> None:
        """Insert ``item``, or replace the item with the same key and restore the order."""
        k = self._key(item)
        i = self._index.get(k)
        if i is not None:
            self._items[i] = item
            self._fix(i)
            return
        self._items.append(item)
        self._index[k] = len(self._items) - 1
        self._up(len(self._items) - 1)

    def delete(self, key: Hashable) -> T | None:
        i = self._index.get(key)
        return None if i is None else self._remove_at(i)

    def pop(self) -> T:
        if not self._items:
            raise IndexError("pop from an empty heap")
        return self._remove_at(0)

    def peek(self) -> T | None:
        return self._items[0] if self._items else None

    def get(self, key: Hashable) -> T | None:
        i = self._index.get(key)
        return None if i is None else self._items[i]

    def fix(self, key: Hashable) -> None:
        """Restore the order after the item with ``key`` changed in place."""
        i = self._index.get(key)
        if i is not None:
            self._fix(i)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._index

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[T]:
        return iter(list(self._items))

    def in_pop_order(self) -> list[T]:
        """The items in the order ``pop`` would return them (the heap is left unchanged)."""
        clone = Heap(self._less, self._key)
        clone._items = list(self._items)
        clone._index = dict(self._index)
        return [clone.pop() for _ in range(len(clone))]
