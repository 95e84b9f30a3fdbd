"""The taint manager's timers (upstream ``pkg/controller/tainteviction/timed_workers.go``) on a
virtual clock: at most one pending work item per key, each due at its ``fire_at``.

Work created already due (``fire_at <= created_at``) starts at once upstream, in a goroutine,
leaving a nil entry in the worker map: here it waits in the queue until the next :meth:`due`, and
still runs if cancelled meanwhile (cancelling only drops the entry, :meth:`cancel_work` answers
None, as ``CancelWork`` answers false).  A timer cancelled before it fires never runs.  Adding work
for a key that has an entry does nothing.

>>> q = TimedWorkerQueue()
>>> [q.add_work(ScheduledEviction(key, "n1", created_at=0.0, fire_at=10.0)) for key in "abcab"]
[True, True, True, False, False]
>>> q.cancel_work("b") is not None, q.cancel_work("b")
(True, None)
>>> q.next_deadline(), [w.pod for w in q.due(11.0)]
(10.0, ['a', 'c'])

Work created due starts at once: cancelling it does not stop it.

>>> q.add_work(ScheduledEviction("d", "n1", created_at=11.0, fire_at=11.0)), q.get_worker("d"), q.cancel_work("d")
(True, None, None)
>>> [w.pod for w in q.due(11.0)]
['d']
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ScheduledEviction", "TimedWorkerQueue"]


@dataclass(frozen=True)
class ScheduledEviction:
    """A pending deletion (upstream ``TimedWorker``): created when the manager
    first saw the taints, fires at ``fire_at``."""

    pod: str
    node: str
    created_at: float
    fire_at: float


class TimedWorkerQueue:
    """``TimedWorkerQueue``: pending work by key; the caller runs what :meth:`due` hands back."""

    def __init__(self) -> None:
        self._timers: dict[str, ScheduledEviction] = {}
        self._started: list[ScheduledEviction] = []  # created already due: running upstream
        self._nil_entries: set[str] = set()  # the keys of started work still in upstream's map

    def add_work(self, work: ScheduledEviction) -> bool:
        """``AddWork``: queue ``work`` unless its key has an entry; whether it was added."""
        if work.pod in self._timers or work.pod in self._nil_entries:
            return False
        if work.fire_at - work.created_at <= 0:
            self._started.append(work)
            self._nil_entries.add(work.pod)
        else:
            self._timers[work.pod] = work
        return True

    def cancel_work(self, key: str) -> ScheduledEviction | None:
        """``CancelWork``: drop the key's entry; the timer stopped (None, upstream's false, when
        there was none or the work had already started)."""
        self._nil_entries.discard(key)
        return self._timers.pop(key, None)

    def get_worker(self, key: str) -> ScheduledEviction | None:
        """``GetWorkerUnsafe``: the key's timer (None for started work, a nil entry upstream)."""
        return self._timers.get(key)

    def started(self, key: str) -> bool:
        """Whether the key's entry is started work (upstream's nil entry)."""
        return key in self._nil_entries

    def pending(self) -> dict[str, ScheduledEviction]:
        """Every work item not run yet, started or timed, by key."""
        return {**{w.pod: w for w in self._started}, **self._timers}

    def next_deadline(self) -> float | None:
        """The earliest ``fire_at`` of the work not run yet, or None."""
        times = [w.fire_at for w in (*self._timers.values(), *self._started)]
        return min(times) if times else None

    def due(self, now: float) -> list[ScheduledEviction]:
        """Take the work due at ``now`` out of the queue, by time then key (a key may come twice:
        started work cancelled and added again)."""
        ready = sorted((w for w in (*self._started, *self._timers.values()) if w.fire_at <= now),
                       key=lambda w: (w.fire_at, w.pod))
        self._started = [w for w in self._started if w.fire_at > now]
        for w in ready:
            if self._timers.get(w.pod) is w:
                del self._timers[w.pod]
            else:
                self._nil_entries.discard(w.pod)
        return ready
