"""The keyed heap behind activeQ/backoffQ (upstream pkg/scheduler/backend/heap + Go container/heap)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kschedlab.queue.heap import Heap


def _heap(items):
    h = Heap(lambda a, b: a[1] < b[1], key=lambda x: x[0])
    for it in items:
        h.add_or_update(it)
    return h


@given(st.dictionaries(st.integers(0, 50), st.integers(-5, 5)))
def test_pops_follow_less(prios):
    h = _heap(list(prios.items()))
    assert len(h) == len(prios)
    preview = [x for x in h.in_pop_order()]
    popped = [h.pop() for _ in range(len(h))]
    assert popped == preview  # in_pop_order is exact and leaves the heap intact until popped
    assert [p for _, p in popped] == sorted(prios.values())


@given(st.lists(st.tuples(st.integers(0, 20), st.integers(-5, 5))), st.sets(st.integers(0, 20)))
def test_update_and_delete_by_key(ops, deletions):
    h = _heap(ops)
    want = dict(ops)  # the last update of a key wins
    for k in deletions:
        got = h.delete(k)
        assert (got is not None) == (k in want)
        want.pop(k, None)
    assert sorted(x for x, _ in h) == sorted(want)
    assert [p for _, p in (h.pop() for _ in range(len(h)))] == sorted(want.values())


def test_ties_break_like_go_container_heap():
    """Equal keys pop in container/heap's order, not insertion order (here: d before c)."""
    h = _heap([("a", 3), ("b", 2), ("c", 1), ("d", 1), ("e", 0)])
    assert [k for k, _ in (h.pop() for _ in range(5))] == ["e", "d", "c", "b", "a"]
