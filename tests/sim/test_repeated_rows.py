"""RepeatedRows (kschedlab.sim.records): rows kept as one cycle and a count read as the list
they stand for, against a plain list that holds every row."""

from __future__ import annotations

import random

import pytest

from kschedlab.sim.records import RepeatedRows
from tests.seeds import seeds


def check(rows: RepeatedRows, model: list) -> None:
    assert len(rows) == len(model) and list(rows) == model
    assert [rows[i] for i in range(-len(model), len(model))] == model + model
    assert rows[3:-2] == model[3:-2] and rows[::7] == model[::7]
    assert rows.last() == (model[-1] if model else None)
    assert rows.copy()[:] == model
    for bad in (len(model), -len(model) - 1):
        with pytest.raises(IndexError):
            rows[bad]


@pytest.mark.parametrize("seed", seeds(20))
@pytest.mark.parametrize("timed", [True, False])
def test_reads_as_the_list_it_stands_for(seed, timed):
    rng = random.Random(seed)
    rows, model = RepeatedRows(timed=timed), []
    floor = 0  # a repeat may not reach back past the last one
    clock = 0.0
    for _ in range(60):
        op = rng.choice(["append", "append", "repeat", "set_last"])
        if op == "append" or not model:
            clock += rng.choice([0.5, 1.0, 30.0])
            row = (clock, rng.choice("abc"), rng.randrange(3))
            rows.append(row)
            model.append(row)
        elif op == "repeat" and rows.kept > floor:
            start, times, period = rng.randrange(floor, rows.kept), rng.randrange(1, 5), rng.choice([330.0, 0.1])
            span = rows.kept_rows(start)
            rows.repeat(start, times, period)
            model.extend((t + i * period, *rest) if timed else (t, *rest)
                         for i in range(1, times + 1) for t, *rest in span)
            floor = rows.kept
            clock = model[-1][0]
        elif op == "set_last":
            row = (model[-1][0], "z", rng.randrange(3))
            rows.set_last(row)
            model[-1] = row
            floor = min(floor, rows.kept)  # the last copy is held again: a repeat may start there
        check(rows, model)
    assert rows.kept <= len(model)


def test_a_repeat_may_not_reach_back_past_the_last():
    rows = RepeatedRows([(0.0,), (1.0,)], timed=True)
    rows.repeat(1, 2, 1.0)
    rows.append((4.0,))
    with pytest.raises(ValueError, match="a repeat starts at held row 1, before the end of the last one"):
        rows.repeat(1, 1, 1.0)


def test_memory_is_the_rows_held():
    """A million copies of a cycle of three rows: three rows held, a million read."""
    rows = RepeatedRows([(0.0, "a"), (10.0, "b"), (20.0, "c")], timed=True)
    rows.repeat(0, 333_333, 30.0)
    assert rows.kept == 3 and len(rows) == 999_999 + 3
    assert rows[-1] == (20.0 + 333_333 * 30.0, "c") and rows[500_000] == (20.0 + 166_666 * 30.0, "c")  # row 2 of copy 166,666
