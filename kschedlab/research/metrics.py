"""What a sweep compares, computed as a run goes so that memory stays bounded.

* :class:`ClusterUtilization` replaces the simulation's per-node utilisation samples by a few
  cluster-wide numbers at most once per ``interval`` of virtual time: requested / allocatable
  of CPU, memory and GPUs, and the fragmentation of free CPU and GPUs;
* :class:`GangWaits` notes when each PodGroup's pods are bound;
* :func:`summarize` turns a finished run into one row of numbers (:data:`SUMMARY_COLUMNS`)
  plus the series a figure needs.

Fragmentation of a resource is the share of its free capacity that lies on nodes already
partly in use: 0 when every free unit is on an empty node (a whole machine is still there for a
big job), towards 1 when the free units are scattered over busy nodes.

>>> import numpy as np
>>> from types import SimpleNamespace as NS
>>> snap = NS(index={"a": 0, "b": 1}, res_index={"cpu": 0, "memory": 1, "nvidia.com/gpu": 2},
...           allocatable=np.array([[4000, 4000], [8, 8], [8, 8]]),
...           requested=np.array([[2000, 0], [4, 0], [6, 0]]), pod_count=np.array([1, 0]))
>>> u = ClusterUtilization(interval=10)
>>> u.record(0.0, snap)
>>> snap.requested[0, 1] = 4000; snap.pod_count[1] = 1  # node b is filled at 5 s
>>> u.record(5.0, snap); u.record(12.0, snap)
>>> u.frame()[["time", "cpu_utilization", "gpu_utilization", "cpu_fragmentation", "running_pods"]]
   time  cpu_utilization  gpu_utilization  cpu_fragmentation  running_pods
0   0.0             0.50            0.375           0.666667           1.5
1  10.0             0.75            0.375           1.000000           2.0

From 0 to 5 s node a holds half its CPU and b is empty (utilisation 0.25; of the 6 free cores
2 are on the busy node a: fragmentation 1/3); from 5 s b is full (0.75; every free core is on a
busy node: 1).  The first interval's mean is (0.25 + 0.75) / 2.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["SERIES_COLUMNS", "SUMMARY_COLUMNS", "ClusterUtilization", "GangWaits", "summarize", "evictions"]

#: columns of :meth:`ClusterUtilization.frame`
SERIES_COLUMNS = ["time", "cpu_utilization", "memory_utilization", "gpu_utilization", "cpu_fragmentation",
                  "gpu_fragmentation", "running_pods"]
#: the numbers :func:`summarize` gives for a run (times in seconds of virtual time, except
#: ``wall_seconds`` and ``decisions_per_second``, which are measured on the wall clock)
SUMMARY_COLUMNS = ["pods", "scheduled", "scheduled_fraction", "pending_p50", "pending_p90", "pending_p99",
                   "pending_max", "cpu_utilization_mean", "gpu_utilization_mean", "cpu_fragmentation_mean",
                   "gpu_fragmentation_mean", "preemptions", "evictions", "gangs", "gang_wait_p50", "gang_wait_p90",
                   "gang_wait_max", "attempts", "end_time", "wall_seconds", "decisions_per_second"]
GPU = "nvidia.com/gpu"
#: up to this many changed rows, :meth:`ClusterUtilization.measure` updates its sums row by row
FEW_ROWS = 8


class ClusterUtilization:
    """A utilisation recorder for :class:`~kschedlab.sim.engine.Simulation` (its ``utilization``
    argument): the cluster as a whole, one row per ``interval`` seconds of virtual time holding
    the time-weighted mean over that interval (the last row: up to the end of the run).  The
    cluster is measured whenever the simulation samples it and the snapshot changed; memory grows
    with the run's virtual length over ``interval``, not with nodes or pods."""

    #: only the last sample of an instant counts (a time-weighted mean): the simulation may
    #: sample it once after an instant's events (``Simulation(utilization=...)``)
    last_of_instant = True

    def __init__(self, interval: float = 60.0):
        if interval <= 0:
            raise ValueError(f"interval: Invalid value: {interval}: must be greater than 0")
        self.interval = float(interval)
        self._rows: list[tuple[float, ...]] = []
        self._start: float | None = None  # the open interval's start
        self._time = 0.0  # the last time recorded
        self._value: np.ndarray | None = None  # the state since then
        self._area = np.zeros(len(SERIES_COLUMNS) - 1)
        self._generation: Any = None
        #: the snapshot and its (node, row) counts the live rows were read from; the snapshot is
        #: held, not named by ``id``, so that another snapshot at a freed one's address is read anew
        self._rows_snapshot: Any = None
        self._rows_key: tuple = ()
        self._live: np.ndarray | slice = np.zeros(0, np.int64)
        #: kept for :meth:`measure`: (columns, requested, allocatable, free, free on used nodes, pods)
        #: sums, the snapshot's change mark, and the live rows' values the sums were made of
        self._sums: tuple | None = None
        self._mark: int | None = None
        self._pods = np.zeros(0, np.int64)
        self._requested: list[np.ndarray] = []
        self._allocatable: list[np.ndarray] = []
        self._live_array = np.zeros(0, np.int64)
        self._position: dict[int, int] | None = None

    def __len__(self) -> int:
        return len(self._rows) + (self._start is not None)

    def live_rows(self, snapshot) -> np.ndarray | slice:
        """The snapshot's rows of current nodes (rows are appended, never reused: recomputed only
        when the node count or the row count changes); a slice when they are the first rows."""
        key = (len(snapshot.index), len(getattr(snapshot, "names", snapshot.index)))
        if snapshot is not self._rows_snapshot or key != self._rows_key:  # (the snapshot is held: see __init__)
            self._live = np.fromiter(snapshot.index.values(), dtype=np.int64, count=len(snapshot.index))
            if np.array_equal(np.sort(self._live), np.arange(len(self._live))):
                self._live = slice(0, len(self._live))  # rows 0..n-1: read the columns without copying them
            self._rows_snapshot, self._rows_key = snapshot, key
            self._sums = None
        return self._live

    def measure(self, snapshot) -> tuple[float, ...]:
        """(cpu, memory, gpu utilisation, cpu, gpu fragmentation, running pods) of ``snapshot``.

        The integer sums behind them are kept between calls and brought up to date from the rows
        the snapshot logged as changed (``Snapshot.changes_since``), so a call costs the rows that
        changed, not the nodes; any other snapshot is read whole."""
        rows = self.live_rows(snapshot)
        columns = tuple(snapshot.res_index.get(name) for name in ("cpu", "memory", GPU))
        changed, self._mark = (snapshot.changes_since(self._mark) if hasattr(snapshot, "changes_since")
                               else (None, None))
        if self._sums is None or changed is None or self._sums[0] != columns:
            self._read_all(snapshot, rows, columns)
        elif changed:
            self._read_rows(snapshot, changed)
        _, requested, allocatable, free, free_used, pods = self._sums
        out = [r / a if a else 0.0 for r, a in zip(requested, allocatable)]
        fragmentation = [u / f if f else 0.0 for u, f in zip(free_used, free)]
        return (*out, fragmentation[0], fragmentation[2], float(pods))

    def _read_all(self, snapshot, rows, columns: tuple) -> None:
        """Sums over every live row; the rows' values kept (in live-row order) for :meth:`_read_rows`."""
        def take(values) -> np.ndarray:
            return np.asarray(values)[rows].astype(np.int64)  # (a copy)

        zero = np.zeros(len(snapshot.index), np.int64)
        self._pods = take(snapshot.pod_count)
        self._requested = [zero if c is None else take(snapshot.requested[c]) for c in columns]
        self._allocatable = [zero if c is None else take(snapshot.allocatable[c]) for c in columns]
        self._live_array = np.arange(len(self._pods)) if isinstance(rows, slice) else rows
        self._position = None if isinstance(rows, slice) else {int(r): i for i, r in enumerate(rows)}
        used = self._pods > 0
        free = [np.maximum(a - r, 0) for a, r in zip(self._allocatable, self._requested)]
        self._sums = (columns, [int(r.sum()) for r in self._requested], [int(a.sum()) for a in self._allocatable],
                      [int(f.sum()) for f in free], [int(f[used].sum()) for f in free], int(self._pods.sum()))

    def _read_rows(self, snapshot, changed: list[int]) -> None:
        """Bring the kept sums up to date for the rows in ``changed`` (exact: integer sums)."""
        columns, requested, allocatable, free, free_used, pods = self._sums
        if self._position is None and len(changed) <= FEW_ROWS:  # a few rows: no numpy call
            n = len(self._pods)
            few = sorted({int(r) for r in changed if r < n})
            if few:
                self._read_few(snapshot, few)
            return
        if self._position is None:  # the live rows are 0..n-1
            at = np.unique(np.asarray(changed, np.int64))
            at = at[at < len(self._pods)]
        else:
            at = np.asarray(sorted({self._position[r] for r in changed if r in self._position}), np.int64)
        if not len(at):
            return
        if len(at) <= FEW_ROWS:
            self._read_few(snapshot, at.tolist())
            return
        rows = self._live_array[at]
        old_used = self._pods[at] > 0
        new_pods = np.asarray(snapshot.pod_count)[rows].astype(np.int64)
        new_used = new_pods > 0
        pods += int(new_pods.sum()) - int(self._pods[at].sum())
        self._pods[at] = new_pods
        for i, col in enumerate(columns):
            if col is None:
                continue
            old_free = np.maximum(self._allocatable[i][at] - self._requested[i][at], 0)
            new_req = np.asarray(snapshot.requested[col])[rows]
            new_alloc = np.asarray(snapshot.allocatable[col])[rows]
            new_free = np.maximum(new_alloc - new_req, 0)
            requested[i] += int(new_req.sum()) - int(self._requested[i][at].sum())
            allocatable[i] += int(new_alloc.sum()) - int(self._allocatable[i][at].sum())
            free[i] += int(new_free.sum()) - int(old_free.sum())
            free_used[i] += int(new_free[new_used].sum()) - int(old_free[old_used].sum())
            self._requested[i][at] = new_req
            self._allocatable[i][at] = new_alloc
        self._sums = (columns, requested, allocatable, free, free_used, pods)

    def _read_few(self, snapshot, at: list[int]) -> None:
        """:meth:`_read_rows` for a few rows (positions ``at`` among the live rows), one row at a
        time in Python integers: the same sums without numpy's cost per call."""
        columns, requested, allocatable, free, free_used, pods = self._sums
        live, pod_count = self._live_array, snapshot.pod_count
        for i in at:
            row = int(live[i])
            old_pods, new_pods = int(self._pods[i]), int(pod_count[row])
            pods += new_pods - old_pods
            self._pods[i] = new_pods
            for c, col in enumerate(columns):
                if col is None:
                    continue
                old_req, old_alloc = int(self._requested[c][i]), int(self._allocatable[c][i])
                new_req, new_alloc = int(snapshot.requested[col][row]), int(snapshot.allocatable[col][row])
                old_free, new_free = max(old_alloc - old_req, 0), max(new_alloc - new_req, 0)
                requested[c] += new_req - old_req
                allocatable[c] += new_alloc - old_alloc
                free[c] += new_free - old_free
                free_used[c] += (new_free if new_pods > 0 else 0) - (old_free if old_pods > 0 else 0)
                self._requested[c][i] = new_req
                self._allocatable[c][i] = new_alloc
        self._sums = (columns, requested, allocatable, free, free_used, pods)

    def _advance(self, time: float) -> None:
        """Integrate the held state up to ``time``, closing every interval that ends on the way."""
        while self._start is not None and time >= self._start + self.interval:
            end = self._start + self.interval
            self._area += self._value * (end - self._time)
            self._rows.append((self._start, *(self._area / self.interval)))
            self._area[:] = 0.0
            self._start, self._time = end, end
        if self._value is not None and time > self._time:
            self._area += self._value * (time - self._time)
            self._time = time

    def record(self, time: float, snapshot) -> None:
        """The cluster at ``time`` (a :class:`~kschedlab.cluster.Snapshot`): holds until the next call."""
        time = float(time)
        if self._start is None:
            self._start = self._time = time
        self._advance(time)
        generation = getattr(snapshot, "generation", None)
        if generation is None or generation != self._generation or self._value is None:
            self._value = np.array(self.measure(snapshot), float)
            self._generation = generation

    def frame(self) -> pd.DataFrame:
        """The rows (:data:`SERIES_COLUMNS`; ``time`` is each interval's start), the open interval
        last (its mean up to the last time recorded; the state then when it has no length)."""
        rows = list(self._rows)
        if self._start is not None:
            span = self._time - self._start
            rows.append((self._start, *(self._area / span if span > 0 else self._value)))
        return pd.DataFrame(rows, columns=SERIES_COLUMNS)


class GangWaits:
    """Bind times of the pods of PodGroups: append :meth:`on_bound` to ``Scheduler.on_bound``."""

    def __init__(self, cluster, clock):
        self.cluster = cluster
        self.clock = clock
        #: (namespace, group) -> [pods bound, last bind time]
        self.bound: dict[tuple[str, str], list] = {}
        #: pod -> its group
        self.member: dict[str, tuple[str, str]] = {}

    def on_bound(self, key: str, node: str) -> None:
        pod = self.cluster.pods.get(key)
        group = pod.spec.scheduling_group if pod is not None else None
        if group is None or not group.pod_group_name:
            return
        name = (pod.metadata.namespace or "", group.pod_group_name)
        self.member[key] = name
        entry = self.bound.setdefault(name, [0, 0.0])
        entry[0] += 1
        entry[1] = self.clock()

    def waits(self, pods: pd.DataFrame) -> np.ndarray:
        """Per PodGroup with a bound pod: from its first pod's creation to its last pod's binding."""
        if not self.bound:
            return np.array([], float)
        created = pods.set_index("pod")["created"]
        first: dict[tuple[str, str], float] = {}
        for key, group in self.member.items():
            t = float(created.get(key, math.nan))
            if not math.isnan(t):
                first[group] = min(first.get(group, t), t)
        return np.array([last - first[g] for g, (_, last) in sorted(self.bound.items()) if g in first], float)


def evictions(sim) -> int:
    """Pods evicted during the run: by the NoExecute taint manager, by ``kubectl drain`` and by
    the kubelet's node-pressure eviction (preemption victims are counted apart)."""
    count = sum(1 for e in sim.taint_manager.events if e.kind in ("fired", "evict-now"))
    count += sum(len(d.result.evicted) for d in sim.drains.values())
    if sim.kubelet is not None:
        count += len(sim.kubelet.evictions)
    return count


def _percentile(values: np.ndarray, q: float) -> float:
    return float(np.percentile(values, q)) if len(values) else math.nan


def summarize(sim, result, *, wall_seconds: float, gangs: GangWaits | None = None) -> dict[str, Any]:
    """One run's numbers (:data:`SUMMARY_COLUMNS`) and its series: ``pending_times`` (seconds
    from creation to scheduling of every scheduled pod, sorted), and the utilisation columns of
    :data:`SERIES_COLUMNS` as lists.  Pending percentiles are over the scheduled pods (the others
    count in ``scheduled_fraction``); ``attempts`` are scheduling decisions, and
    ``decisions_per_second`` divides them by ``wall_seconds``."""
    pods = result.pods
    scheduled = pods["scheduled"].notna()
    pending = np.sort((pods.loc[scheduled, "scheduled"] - pods.loc[scheduled, "created"]).to_numpy(float))
    series = result.utilization
    if not set(SERIES_COLUMNS) <= set(series.columns):  # the default per-node samples
        series = pd.DataFrame(columns=SERIES_COLUMNS)
    waits = gangs.waits(pods) if gangs is not None else np.array([], float)
    attempts = int(pods["attempts"].sum())
    row = {
        "pods": len(pods), "scheduled": int(scheduled.sum()),
        "scheduled_fraction": float(scheduled.mean()) if len(pods) else math.nan,
        "pending_p50": _percentile(pending, 50), "pending_p90": _percentile(pending, 90),
        "pending_p99": _percentile(pending, 99), "pending_max": float(pending.max()) if len(pending) else math.nan,
        "cpu_utilization_mean": _time_mean(series, "cpu_utilization"),
        "gpu_utilization_mean": _time_mean(series, "gpu_utilization"),
        "cpu_fragmentation_mean": _time_mean(series, "cpu_fragmentation"),
        "gpu_fragmentation_mean": _time_mean(series, "gpu_fragmentation"),
        "preemptions": int(pods["preempted"].notna().sum()), "evictions": evictions(sim),
        "gangs": len(waits), "gang_wait_p50": _percentile(waits, 50), "gang_wait_p90": _percentile(waits, 90),
        "gang_wait_max": float(waits.max()) if len(waits) else math.nan,
        "attempts": attempts, "end_time": float(result.end_time), "wall_seconds": float(wall_seconds),
        "decisions_per_second": attempts / wall_seconds if wall_seconds > 0 else math.nan,
    }
    row["pending_times"] = pending.tolist()
    for column in SERIES_COLUMNS:
        row[column] = series[column].astype(float).tolist()
    return row


def _time_mean(series: pd.DataFrame, column: str) -> float:
    """The time-weighted mean of a step series (each value holds until the next sample)."""
    if len(series) == 0:
        return math.nan
    t = series["time"].to_numpy(float)
    v = series[column].to_numpy(float)
    if len(t) == 1 or t[-1] == t[0]:
        return float(v[-1])
    return float(np.sum(v[:-1] * np.diff(t)) / (t[-1] - t[0]))
