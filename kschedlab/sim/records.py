"""Compact records of a simulation run, so that a long run's memory stays small.

* :class:`UtilizationSamples` keeps node utilisation as one integer block per instant
  (a later sample at the same instant replaces the earlier one, as the result table
  keeps only the last);
* :class:`QueueSizeSamples` keeps the queue sizes, one row per instant;
* :class:`ResultCompactor` lets only the most recent attempts keep their full trace and
  diagnosis; older :class:`~kschedlab.scheduler.ScheduleResult` objects keep their pod,
  node, status and message, the last two shared between attempts that ended alike.

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

from collections import deque
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["UTILIZATION_COLUMNS", "QUEUE_COLUMNS", "UtilizationSamples", "QueueSizeSamples", "ResultCompactor"]

#: columns of ``SimulationResult.utilization``
UTILIZATION_COLUMNS = ["time", "node", "cpu_requested", "cpu_allocatable", "memory_requested", "memory_allocatable",
                       "pods"]
#: columns of ``SimulationResult.queue``
QUEUE_COLUMNS = ["time", "active", "backoff", "unschedulable", "gated"]


class UtilizationSamples:
    """Node utilisation over time: per instant the node names (shared while the node set does
    not change) and a ``(5, nodes)`` int64 block."""

    def __init__(self) -> None:
        self._samples: list[tuple[float, tuple[str, ...], np.ndarray]] = []

    def __len__(self) -> int:
        return len(self._samples)

    def record(self, time: float, snapshot) -> None:
        """Sample ``snapshot`` (a :class:`~kschedlab.cluster.Snapshot`) at ``time``."""
        names = tuple(snapshot.index)
        rows = np.fromiter(snapshot.index.values(), dtype=np.int64, count=len(names))
        cpu, mem = snapshot.res_index["cpu"], snapshot.res_index["memory"]
        block = np.stack([np.asarray(snapshot.requested[cpu])[rows], np.asarray(snapshot.allocatable[cpu])[rows],
                          np.asarray(snapshot.requested[mem])[rows], np.asarray(snapshot.allocatable[mem])[rows],
                          np.asarray(snapshot.pod_count)[rows]]).astype(np.int64).reshape(5, len(names))
        last = self._samples[-1] if self._samples else None
        if last is not None and last[1] == names:
            names = last[1]  # one tuple for every sample of the same nodes
        if last is not None and last[0] == time:
            if last[1] != names:  # the node set changed within the instant: nodes gone keep their last row
                merged = {n: last[2][:, i] for i, n in enumerate(last[1])}
                merged.update({n: block[:, i] for i, n in enumerate(names)})
                names = tuple(merged)
                block = np.stack(list(merged.values()), axis=1) if merged else block
            self._samples[-1] = (time, names, block)
        else:
            self._samples.append((time, names, block))

    def repeat(self, start: int, times: int, period: float) -> None:
        """The samples from index ``start`` on, ``times`` more times, each ``period`` seconds
        later than the one before (:mod:`kschedlab.sim.fast_forward`); the blocks are shared."""
        segment = self._samples[start:]
        self._samples.extend((t + i * period, names, block) for i in range(1, times + 1) for t, names, block in segment)

    def frame(self) -> pd.DataFrame:
        """One row per (instant, node), in time order."""
        if not self._samples:
            return pd.DataFrame(columns=UTILIZATION_COLUMNS)
        counts = [len(names) for _, names, _ in self._samples]
        data: dict[str, Any] = {
            "time": np.repeat(np.array([t for t, _, _ in self._samples], dtype=float), counts),
            "node": [n for _, names, _ in self._samples for n in names]}
        blocks = np.concatenate([b for _, _, b in self._samples], axis=1)
        for i, column in enumerate(UTILIZATION_COLUMNS[2:]):
            data[column] = blocks[i]
        return pd.DataFrame(data, columns=UTILIZATION_COLUMNS)


class QueueSizeSamples:
    """Queue sizes over time, the last sample of each instant."""

    def __init__(self) -> None:
        self._rows: list[tuple[float, int, int, int, int]] = []

    def record(self, time: float, counts: dict[str, int]) -> None:
        """``counts``: queue -> size (``SchedulingQueue.pending_counts``)."""
        row = (time, *(int(counts[q]) for q in QUEUE_COLUMNS[1:]))
        if self._rows and self._rows[-1][0] == time:
            self._rows[-1] = row
        else:
            self._rows.append(row)

    def __len__(self) -> int:
        return len(self._rows)

    def repeat(self, start: int, times: int, period: float) -> None:
        """The rows from index ``start`` on, ``times`` more times, each ``period`` seconds later."""
        segment = self._rows[start:]
        self._rows.extend((t + i * period, *sizes) for i in range(1, times + 1) for t, *sizes in segment)

    def frame(self) -> pd.DataFrame:
        """``time`` and one column per queue."""
        return pd.DataFrame(self._rows, columns=QUEUE_COLUMNS)


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
