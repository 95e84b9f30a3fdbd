"""What a scheduler_perf run measures: the measured phase (:class:`MeasuredPhase`: the collector
held back, the profiler on, each pod's completion stamped), rates over windows of completion
stamps, latency percentiles and the peak resident memory.

>>> per_second(30, 0.5), percentile_ms([0.001, 0.002, 0.003], 0.5)
(60.0, 2.0)
"""

from __future__ import annotations

import gc
import resource
import sys
import time
from typing import Any


def peak_rss_mb() -> float:
    """The process's peak resident memory so far, in MiB."""
    usage = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return usage / (1024 * 1024) if sys.platform == "darwin" else usage / 1024


def window_times(stamps: list[float], start: float, window: int) -> tuple[float, int, float, float]:
    """(total time, window size k, time of the first k, time of the last k) of completion stamps.

    >>> window_times([1.0, 2.0, 4.0], 0.0, 2)
    (4.0, 2, 2.0, 3.0)
    """
    elapsed = (stamps[-1] - start) if stamps else 0.0
    k = min(window, len(stamps))
    first = (stamps[k - 1] - start) if k else 0.0
    last = (stamps[-1] - (stamps[-k - 1] if len(stamps) > k else start)) if k else 0.0
    return elapsed, k, first, last


def per_second(count: int, seconds: float) -> float | None:
    """``count`` per second, one decimal; None when no time passed."""
    return round(count / seconds, 1) if seconds > 0 else None


#: the cyclic garbage collector's thresholds while measured pods run (Python's default: 700, 10, 10):
#: a scheduling cycle allocates thousands of short-lived containers, almost none in reference cycles
MEASURED_GC_THRESHOLDS = (50_000, 20, 20)


class MeasuredPhase:
    """The measured pods' run: on entry the objects built so far are frozen out of the cyclic
    garbage collector (they stay for the whole run; walking them again and again slowed the last
    pods) and its thresholds raised to :data:`MEASURED_GC_THRESHOLDS`, then ``profile`` (a
    ``cProfile.Profile``, optional) enabled; :meth:`stamp` records a pod's completion on the wall
    clock and in CPU seconds; on exit all is put back and ``cpu`` holds the CPU seconds spent.

    >>> with MeasuredPhase() as run:
    ...     run.stamp()
    >>> sorted(run.rates(1, 100)) == sorted(RATE_KEYS), run.rates(1, 100)["window"]
    (True, 1)
    """

    def __init__(self, profile: Any = None):
        self.profile = profile
        self.stamps: list[float] = []
        self.cpu_stamps: list[float] = []
        self.start = self.cpu_start = self.cpu = 0.0
        self._thresholds: tuple[int, ...] = ()

    def __enter__(self) -> MeasuredPhase:
        gc.collect()
        gc.freeze()
        self._thresholds = gc.get_threshold()
        gc.set_threshold(*MEASURED_GC_THRESHOLDS)
        if self.profile is not None:
            self.profile.enable()
        self.cpu_start = time.process_time()
        self.start = time.perf_counter()
        return self

    def stamp(self) -> None:
        """One pod done."""
        self.stamps.append(time.perf_counter())
        self.cpu_stamps.append(time.process_time())

    def __exit__(self, *exc: object) -> None:
        self.cpu = time.process_time() - self.cpu_start
        if self.profile is not None:
            self.profile.disable()
        gc.set_threshold(*self._thresholds)
        gc.unfreeze()

    def rates(self, pods: int, window: int) -> dict[str, Any]:
        """The run's :data:`RATE_KEYS`: time and pods per second, wall clock and CPU, overall and
        over the first and the last ``window`` stamps."""
        elapsed, k, first, last = window_times(self.stamps, self.start, window)
        _, _, cpu_first, cpu_last = window_times(self.cpu_stamps, self.cpu_start, window)
        return {
            "seconds": round(elapsed, 3),
            "pods_per_second": per_second(pods, elapsed),
            "window": k,
            "first_window_pods_per_second": per_second(k, first),
            "last_window_pods_per_second": per_second(k, last),
            "cpu_seconds": round(self.cpu, 3),
            "pods_per_cpu_second": per_second(pods, self.cpu),
            "first_window_pods_per_cpu_second": per_second(k, cpu_first),
            "last_window_pods_per_cpu_second": per_second(k, cpu_last),
        }


#: what :meth:`MeasuredPhase.rates` reports
RATE_KEYS = ("seconds", "pods_per_second", "window", "first_window_pods_per_second", "last_window_pods_per_second",
             "cpu_seconds", "pods_per_cpu_second", "first_window_pods_per_cpu_second",
             "last_window_pods_per_cpu_second")


def percentile_ms(values: list[float], q: float) -> float | None:
    """The ``q`` quantile of ``values`` (seconds) in milliseconds, two decimals; None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    return round(1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2)
