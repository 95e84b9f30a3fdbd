"""Compact records of a simulation run, so that a long run's memory stays small.

* :class:`UtilizationSamples` keeps node utilisation as one integer block per instant
  (a later sample at the same instant replaces the earlier one, as the result table
  keeps only the last);
* :class:`QueueSizeSamples` keeps the queue sizes, one row per instant;
* :class:`ResultCompactor` lets only the most recent attempts keep their full trace and
  diagnosis; older :class:`~kschedlab.scheduler.ScheduleResult` objects keep their pod,
  node, status and message, the last two shared between attempts that ended alike;
* :class:`RepeatedRows` is a list whose skipped retry cycles (:mod:`kschedlab.sim.fast_forward`)
  are kept as counts, a run-length form: the rows of one cycle and how many times, how far
  apart, they repeat. The recorders above and the queue's moves, the loop's and the
  scheduler's results keep their rows in one, so a run's memory does not grow with the
  attempts it skips, while reading them gives every row.

>>> import numpy as np
>>> from types import SimpleNamespace as NS
>>> snap = NS(index={"n1": 0, "n2": 1}, res_index={"cpu": 0, "memory": 1},
...           requested=np.array([[500, 0], [2**30, 0]]), allocatable=np.array([[1000, 2000], [2**32, 2**32]]),
...           pod_count=np.array([1, 0]))
>>> samples = UtilizationSamples()
>>> samples.record(0.0, snap); samples.record(0.0, snap); samples.record(5.0, snap)
>>> samples.frame()[["time", "node", "cpu_requested", "cpu_allocatable", "pods"]]
   time node  cpu_requested  cpu_allocatable  pods
0   0.0   n1            500             1000     1
1   0.0   n2              0             2000     0
2   5.0   n1            500             1000     1
3   5.0   n2              0             2000     0
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["UTILIZATION_COLUMNS", "QUEUE_COLUMNS", "RepeatedRows", "UtilizationSamples", "QueueSizeSamples",
           "ResultCompactor"]

#: columns of ``SimulationResult.utilization``
UTILIZATION_COLUMNS = ["time", "node", "cpu_requested", "cpu_allocatable", "memory_requested", "memory_allocatable",
                       "pods"]
#: columns of ``SimulationResult.queue``
QUEUE_COLUMNS = ["time", "active", "backoff", "unschedulable", "gated"]


class RepeatedRows:
    """A list of rows, some kept as repeats: :meth:`repeat` says the rows from a kept index to
    the end come again ``times`` times, each copy ``period`` seconds later (``timed``: a row is
    a tuple whose first field is its time; otherwise the copies are the same objects).

    ``len``, iteration and indexing see every row; :attr:`kept` is the rows held, which is
    what memory grows with, and :meth:`kept_rows` reads them by their held index.

    >>> rows = RepeatedRows([(0.0, "a"), (5.0, "b")], timed=True)
    >>> rows.repeat(1, times=3, period=5.0)
    >>> rows.append((30.0, "c"))
    >>> len(rows), rows.kept, rows[-2], list(rows)[1:5]
    (6, 3, (20.0, 'b'), [(5.0, 'b'), (10.0, 'b'), (15.0, 'b'), (20.0, 'b')])
    >>> rows.set_last((30.0, "d")); rows.pop_repeat_tail() is None
    True
    >>> rows[-1], rows[1:3]
    ((30.0, 'd'), [(5.0, 'b'), (10.0, 'b')])
    """

    def __init__(self, rows: Iterable = (), *, timed: bool = False) -> None:
        self._rows: list = list(rows)
        #: (held index the copies follow, first held row of the repeated span, times, period)
        self._repeats: list[tuple[int, int, int, float]] = []
        self.timed = timed

    @property
    def kept(self) -> int:
        """The rows held (the repeats count none)."""
        return len(self._rows)

    def kept_rows(self, start: int, stop: int | None = None) -> list:
        """The held rows ``start:stop``, by held index."""
        return self._rows[start:stop]

    def copy(self) -> RepeatedRows:
        """The rows as they are now (rows appended or replaced later are not seen)."""
        out = RepeatedRows(self._rows, timed=self.timed)
        out._repeats = list(self._repeats)
        return out

    def append(self, row) -> None:
        self._rows.append(row)

    def extend(self, rows: Iterable) -> None:
        self._rows.extend(rows)

    def repeat(self, start: int, times: int, period: float = 0.0) -> None:
        """The held rows from ``start`` to the end come again ``times`` more times, copy ``i``
        ``i * period`` seconds later (``start`` may not reach back past an earlier repeat)."""
        if self._repeats and start < self._repeats[-1][0]:
            raise ValueError(f"a repeat starts at held row {start}, before the end of the last one")
        if times > 0 and start < len(self._rows):
            self._repeats.append((len(self._rows), start, times, period))

    def pop_repeat_tail(self) -> None:
        """When the last rows are copies, hold the last copy as rows (so it can be replaced)."""
        if self._repeats and self._repeats[-1][0] == len(self._rows):
            at, start, times, period = self._repeats.pop()
            if times > 1:
                self._repeats.append((at, start, times - 1, period))
            self._rows.extend(self._copy(self._rows[start:at], times, period))

    def last(self):
        """The last row (None when there is none)."""
        if not self._rows:
            return None
        if self._repeats and self._repeats[-1][0] == len(self._rows):
            at, start, times, period = self._repeats[-1]
            return self._shift(self._rows[at - 1], times * period)
        return self._rows[-1]

    def set_last(self, row) -> None:
        """Replace the last row."""
        self.pop_repeat_tail()
        self._rows[-1] = row

    def pieces(self) -> Iterator[tuple[list, int, float]]:
        """The rows in order as ``(held rows, times, period)``: ``times`` 0 for rows as held,
        else that many copies of them, copy ``i`` ``i * period`` seconds later."""
        done = 0
        for at, start, times, period in self._repeats:
            if at > done:
                yield self._rows[done:at], 0, 0.0
            yield self._rows[start:at], times, period
            done = at
        if done < len(self._rows):
            yield self._rows[done:], 0, 0.0

    def _shift(self, row, delta: float):
        return (row[0] + delta, *row[1:]) if self.timed and delta else row

    def _copy(self, rows: list, i: int, period: float) -> list:
        return [(r[0] + i * period, *r[1:]) for r in rows] if self.timed else list(rows)

    def __len__(self) -> int:
        return len(self._rows) + sum((at - start) * times for at, start, times, _ in self._repeats)

    def __iter__(self) -> Iterator:
        for rows, times, period in self.pieces():
            if not times:
                yield from rows
            else:
                for i in range(1, times + 1):
                    yield from self._copy(rows, i, period)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return list(itertools.islice(self, *index.indices(len(self))))
        size = len(self)
        if index < 0:
            index += size
        if not 0 <= index < size:
            raise IndexError("RepeatedRows index out of range")
        for rows, times, period in self.pieces():
            span = len(rows) * max(times, 1)
            if index < span:
                if not times:
                    return rows[index]
                i, j = divmod(index, len(rows))
                return self._shift(rows[j], (i + 1) * period)
            index -= span
        raise IndexError("RepeatedRows index out of range")

    def __bool__(self) -> bool:
        return bool(self._rows)

    def __repr__(self) -> str:
        return f"RepeatedRows({len(self)} rows, {self.kept} kept)"


class UtilizationSamples:
    """Node utilisation over time: per instant the node names (shared while the node set does
    not change) and a ``(5, nodes)`` int64 block, in a :class:`RepeatedRows`."""

    def __init__(self) -> None:
        self._samples = RepeatedRows(timed=True)

    def __len__(self) -> int:
        return len(self._samples)

    @property
    def kept(self) -> int:
        """The samples held (repeated cycles count none)."""
        return self._samples.kept

    def record(self, time: float, snapshot) -> None:
        """Sample ``snapshot`` (a :class:`~kschedlab.cluster.Snapshot`) at ``time``."""
        names = tuple(snapshot.index)
        rows = np.fromiter(snapshot.index.values(), dtype=np.int64, count=len(names))
        cpu, mem = snapshot.res_index["cpu"], snapshot.res_index["memory"]
        block = np.stack([np.asarray(snapshot.requested[cpu])[rows], np.asarray(snapshot.allocatable[cpu])[rows],
                          np.asarray(snapshot.requested[mem])[rows], np.asarray(snapshot.allocatable[mem])[rows],
                          np.asarray(snapshot.pod_count)[rows]]).astype(np.int64).reshape(5, len(names))
        last = self._samples.last()
        if last is not None and last[1] == names:
            names = last[1]  # one tuple for every sample of the same nodes
        if last is not None and last[0] == time:
            if last[1] != names:  # the node set changed within the instant: nodes gone keep their last row
                merged = {n: last[2][:, i] for i, n in enumerate(last[1])}
                merged.update({n: block[:, i] for i, n in enumerate(names)})
                names = tuple(merged)
                block = np.stack(list(merged.values()), axis=1) if merged else block
            self._samples.set_last((time, names, block))
        else:
            self._samples.append((time, names, block))

    def copy(self) -> UtilizationSamples:
        """The samples as they are now (the blocks are shared: none is changed once recorded)."""
        out = UtilizationSamples()
        out._samples = self._samples.copy()
        return out

    def repeat(self, start: int, times: int, period: float) -> None:
        """The samples from held index ``start`` on, ``times`` more times, each ``period`` seconds
        later than the one before (:mod:`kschedlab.sim.fast_forward`), kept as a count."""
        self._samples.repeat(start, times, period)

    def frame(self) -> pd.DataFrame:
        """One row per (instant, node), in time order."""
        if not len(self._samples):
            return pd.DataFrame(columns=UTILIZATION_COLUMNS)
        times, nodes, blocks = [], [], []
        for samples, copies, period in self._samples.pieces():
            counts = [len(names) for _, names, _ in samples]
            at = np.repeat(np.array([t for t, _, _ in samples], dtype=float), counts)
            names = [n for _, names, _ in samples for n in names]
            block = np.concatenate([b for _, _, b in samples], axis=1)
            if copies:  # copy i of the span, i * period later: (t + i * period), as the run's clock adds
                at = (at[None, :] + (np.arange(1, copies + 1, dtype=float) * period)[:, None]).ravel()
                names = names * copies
                block = np.tile(block, copies)
            times.append(at)
            nodes.extend(names)
            blocks.append(block)
        data: dict[str, Any] = {"time": np.concatenate(times), "node": nodes}
        values = np.concatenate(blocks, axis=1)
        for i, column in enumerate(UTILIZATION_COLUMNS[2:]):
            data[column] = values[i]
        return pd.DataFrame(data, columns=UTILIZATION_COLUMNS)


class QueueSizeSamples:
    """Queue sizes over time, the last sample of each instant, in a :class:`RepeatedRows`."""

    def __init__(self) -> None:
        self._rows = RepeatedRows(timed=True)

    def record(self, time: float, counts: dict[str, int]) -> None:
        """``counts``: queue -> size (``SchedulingQueue.pending_counts``)."""
        row = (time, *(int(counts[q]) for q in QUEUE_COLUMNS[1:]))
        last = self._rows.last()
        if last is not None and last[0] == time:
            self._rows.set_last(row)
        else:
            self._rows.append(row)

    def __len__(self) -> int:
        return len(self._rows)

    @property
    def kept(self) -> int:
        """The rows held (repeated cycles count none)."""
        return self._rows.kept

    def copy(self) -> QueueSizeSamples:
        """The rows as they are now."""
        out = QueueSizeSamples()
        out._rows = self._rows.copy()
        return out

    def repeat(self, start: int, times: int, period: float) -> None:
        """The rows from held index ``start`` on, ``times`` more times, each ``period`` seconds
        later, kept as a count."""
        self._rows.repeat(start, times, period)

    def frame(self) -> pd.DataFrame:
        """``time`` and one column per queue."""
        times, sizes = [], []
        for rows, copies, period in self._rows.pieces():
            at = np.array([r[0] for r in rows], dtype=float)
            block = np.array([r[1:] for r in rows], dtype=np.int64).reshape(len(rows), len(QUEUE_COLUMNS) - 1)
            if copies:
                at = (at[None, :] + (np.arange(1, copies + 1, dtype=float) * period)[:, None]).ravel()
                block = np.tile(block, (copies, 1))
            times.append(at)
            sizes.append(block)
        if not times:
            return pd.DataFrame(columns=QUEUE_COLUMNS)
        block = np.concatenate(sizes)
        return pd.DataFrame({"time": np.concatenate(times),
                             **{q: block[:, i] for i, q in enumerate(QUEUE_COLUMNS[1:])}}, columns=QUEUE_COLUMNS)


class ResultCompactor:
    """Keeps the ``keep`` most recent attempt results whole (None: all); an older one loses its
    trace and diagnosis, and its status and message become shared objects.

    Call :meth:`add` for every recorded result and :meth:`compact` when no attempt is in
    progress (the results of the current attempt are still read after they are recorded).
    """

    def __init__(self, keep: int | None) -> None:
        self.keep = keep
        self._recent: deque = deque()
        self._shared: dict[Any, Any] = {}

    def add(self, result) -> None:
        if self.keep is not None:
            self._recent.append(result)

    def skip(self, count: int) -> None:
        """``count`` results came after those held, counted but not kept (retries skipped by
        :mod:`kschedlab.sim.fast_forward`): the held ones they push past ``keep`` are stripped."""
        if self.keep is None:
            return
        for _ in range(min(len(self._recent), len(self._recent) + count - self.keep)):
            self._strip(self._recent.popleft())

    def compact(self) -> None:
        """Strip the results beyond the ``keep`` most recent."""
        while self.keep is not None and len(self._recent) > self.keep:
            self._strip(self._recent.popleft())

    def _strip(self, result) -> None:
        result.trace = None
        result.diagnosis = None
        result.status = self._shared.setdefault(result.status, result.status)
        result.message = self._shared.setdefault(result.message, result.message)
