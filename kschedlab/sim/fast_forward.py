"""Skipping a quiescent simulation's periodic retries, counted as if they had run.

Given an ``until``, a run makes every periodic retry kube-scheduler makes up to it
(:mod:`kschedlab.sim.quiescence`): with nothing left to happen (no event, no timer, the
cluster unchanged) a pod that never fits is retried every ``podMaxInUnschedulablePodsDuration``
flush, 5.5 minutes apart -- three million retries to ``until: 1e9``.  Those retries repeat: once
the queue's state, taken relative to the clock, comes back to what it was one cycle earlier,
and the last cycle recorded exactly what the cycle before it recorded (queue moves, attempt
results, queue sizes, utilisation; times shifted by the cycle's length), every further cycle
does the same.  :class:`RetryCycles` then moves the clock on by as many whole cycles as fit
before ``until`` (and below ``max_attempts``, leaving the last cycle to run), adds each
cycle's attempts to the pods' counts and the scheduling queue's, and repeats each cycle's
records with their times shifted: the result is the one the step-by-step run gives (the
traces of the skipped attempts aside: their results are the last cycle's).  The repeated
records are kept as counts (:class:`~kschedlab.sim.records.RepeatedRows`: one cycle's rows,
how many times and how far apart), so the memory a run holds does not grow with the cycles
it skips; the result tables, built from them, still have every row.

The engine calls :meth:`RetryCycles.at_idle` where it would move the clock to the queue's next
flush with no timer pending (``Simulation.skip_quiescent_retries``: False makes every retry).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kschedlab.sim.records import QueueSizeSamples, RepeatedRows, UtilizationSamples

__all__ = ["RetryCycles"]


@dataclass
class _Mark:
    """The run at an idle instant: the clock, the queue's relative state, how long each record
    was, and the counters that cycles add to."""

    now: float
    state: tuple
    lengths: tuple[int, int, int, int, int]
    #: the run's steps so far (an attempt of a pod or of a whole pod group: what ``max_attempts`` bounds)
    steps: int
    pod_attempts: dict[str, int]
    queue_counts: dict[str, tuple[int, int]]
    total_attempts: int
    cycle: int


class RetryCycles:
    """Marks a simulation's idle instants and skips whole retry cycles once they repeat."""

    #: idle instants remembered (a cycle of more instants than this is never skipped)
    window = 64

    def __init__(self) -> None:
        self._marks: list[_Mark] = []

    def reset(self) -> None:
        """Something other than a retry happened: earlier instants say nothing of what follows."""
        self._marks.clear()

    def at_idle(self, sim: Any, limit: float, steps: int, max_steps: int) -> int:
        """At an idle instant of ``sim`` (nothing poppable, no timer; ``steps`` scheduling steps
        made so far): mark it and, when the last cycle repeated the one before, skip the cycles
        that fit before ``limit`` and leave the run below ``max_steps``.  Returns the steps
        skipped (0: none)."""
        if not _plain_records(sim):
            return 0
        state = sim.queue.periodic_state(sim.now)
        if state is None or sim.loop.waiting:
            self.reset()
            return 0
        mark = _Mark(sim.now, state, _lengths(sim), steps, {k: r["attempts"] for k, r in sim._timeline.items()},
                     sim.queue.attempt_counts(), sim.loop.total_attempts, sim.queue.scheduling_cycle)
        marks = self._marks
        marks.append(mark)
        if len(marks) > 2 * self.window + 1:
            del marks[0]
        for size in range(1, (len(marks) - 1) // 2 + 1):
            first, middle = marks[-1 - 2 * size], marks[-1 - size]
            moving = _moving(first, middle, mark)
            if moving is not None and _same_cycles(sim, first, middle, mark):
                skipped = self._skip(sim, middle, mark, moving, limit, max_steps - steps)
                if skipped:
                    self.reset()
                return skipped
        return 0

    def _skip(self, sim: Any, start: _Mark, end: _Mark, moving: list[bool], limit: float, steps_left: int) -> int:
        period = end.now - start.now
        per_cycle = end.total_attempts - start.total_attempts
        steps = end.steps - start.steps
        if period <= 0 or per_cycle <= 0 or steps <= 0:
            return 0
        times = min(int((limit - end.now) // period) - 1, (steps_left - 1) // steps - 1)
        if times < 1:
            return 0
        shift = times * period
        q_len, u_len, h_len, r_len, s_len = start.lengths
        sim._queue_sizes.repeat(q_len, times, period)
        sim._util.repeat(u_len, times, period)
        sim.queue.history.repeat(h_len, times, period)
        for results, length in ((sim.loop.history, r_len), (sim.scheduler.results, s_len)):
            if isinstance(results, RepeatedRows):
                results.repeat(length, times)
        sim._compactor.skip(times * per_cycle)
        for key, row in sim._timeline.items():
            row["attempts"] += times * (end.pod_attempts.get(key, 0) - start.pod_attempts.get(key, 0))
        for key in end.pod_attempts:
            added = end.pod_attempts.get(key, 0) - start.pod_attempts.get(key, 0)
            if added:
                sim.loop.attempts[key] = sim.loop.attempts.get(key, 0) + times * added
        sim.loop.total_attempts += times * per_cycle
        counts = {key: (times * (attempts - start.queue_counts[key][0]),
                        times * (rejections - start.queue_counts[key][1]))
                  for key, (attempts, rejections) in end.queue_counts.items()}
        sim.queue.fast_forward(shift, moving, counts, times * (end.cycle - start.cycle))
        sim.loop.now += shift
        sim.now += shift
        return times * steps


def _moving(first: _Mark, middle: _Mark, last: _Mark) -> list[bool] | None:
    """Which of the queue's times move with the clock (each one cycle later at each mark) and
    which stay (a gated pod's timestamp); None when the three states are not one cycle apart."""
    (pods0, times0, phase0), (pods1, times1, phase1), (pods2, times2, phase2) = first.state, middle.state, last.state
    if not (pods0 == pods1 == pods2 and phase0 == phase1 == phase2):
        return None
    period = middle.now - first.now
    moving = []
    for a, b, c in zip(times0, times1, times2):
        if a == b == c:
            moving.append(False)
        elif a is not None and b is not None and c is not None and \
                round(b - a - period, 6) == 0 and round(c - b - period, 6) == 0:
            moving.append(True)
        else:
            return None
    return moving


def _plain_records(sim: Any) -> bool:
    """The run keeps its records in the recorders that can repeat a cycle, and its lists of
    moves and results in :class:`~kschedlab.sim.records.RepeatedRows` (or keeps none)."""
    return (type(sim._util) is UtilizationSamples and type(sim._queue_sizes) is QueueSizeSamples
            and isinstance(sim.queue.history, RepeatedRows)
            and all(isinstance(r, RepeatedRows) or getattr(r, "maxlen", None) == 0
                    for r in (sim.loop.history, sim.scheduler.results)))


def _kept(rows: Any) -> int:
    return rows.kept if isinstance(rows, RepeatedRows) else len(rows)


def _lengths(sim: Any) -> tuple[int, int, int, int, int]:
    """How many rows each record holds (held rows: the index a later repeat starts at)."""
    return (sim._queue_sizes.kept, sim._util.kept, sim.queue.history.kept, _kept(sim.loop.history),
            _kept(sim.scheduler.results))


def _same_cycles(sim: Any, first: _Mark, middle: _Mark, last: _Mark) -> bool:
    """The cycle from ``middle`` to ``last`` recorded what the one from ``first`` to ``middle``
    did, its times ``middle.now - first.now`` later, and added the same attempts."""
    period = middle.now - first.now
    if last.now - middle.now != period:
        return False
    for key, count in last.pod_attempts.items():
        if count - middle.pod_attempts.get(key, 0) != middle.pod_attempts.get(key, 0) - first.pod_attempts.get(key, 0):
            return False
    if last.total_attempts - middle.total_attempts != middle.total_attempts - first.total_attempts or \
            last.steps - middle.steps != middle.steps - first.steps:
        return False
    if last.cycle - middle.cycle != middle.cycle - first.cycle:
        return False
    if not first.queue_counts.keys() == middle.queue_counts.keys() == last.queue_counts.keys():
        return False
    for key, (attempts, rejections) in last.queue_counts.items():
        (attempts1, rejections1), (attempts0, rejections0) = middle.queue_counts[key], first.queue_counts[key]
        if attempts - attempts1 != attempts1 - attempts0 or rejections - rejections1 != rejections1 - rejections0:
            return False
    q0, s0, h0, r0, _ = first.lengths
    q1, s1, h1, r1, _ = middle.lengths
    q2, s2, h2, r2, _ = last.lengths
    rows = sim._queue_sizes._rows
    if not _shifted(rows.kept_rows(q0, q1), rows.kept_rows(q1, q2), period):
        return False
    samples = sim._util._samples
    if s1 - s0 != s2 - s1:
        return False
    for (t0, names0, block0), (t1, names1, block1) in zip(samples.kept_rows(s0, s1), samples.kept_rows(s1, s2)):
        if t1 - t0 != period or names0 != names1 or not (block0 == block1).all():
            return False
    history = sim.queue.history
    if not _shifted(history.kept_rows(h0, h1), history.kept_rows(h1, h2), period):
        return False
    results = sim.loop.history
    if r1 - r0 != r2 - r1:
        return False
    if not isinstance(results, RepeatedRows):  # the loop keeps no results
        return True
    return all((a.pod, a.node, a.message, a.status.code) == (b.pod, b.node, b.message, b.status.code)
               for a, b in zip(results.kept_rows(r0, r1), results.kept_rows(r1, r2)))


def _shifted(earlier: list, later: list, period: float) -> bool:
    """``later`` is ``earlier`` with each row's first field (its time) ``period`` more."""
    return len(earlier) == len(later) and all(
        b[0] - a[0] == period and a[1:] == b[1:] for a, b in zip(earlier, later))
