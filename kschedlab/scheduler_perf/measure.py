"""What a scheduler_perf run measures besides its clock: rates over windows of completion
stamps, latency percentiles and the peak resident memory.

>>> per_second(30, 0.5), percentile_ms([0.001, 0.002, 0.003], 0.5)
(60.0, 2.0)
"""

from __future__ import annotations

import resource
import sys


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


def percentile_ms(values: list[float], q: float) -> float | None:
    """The ``q`` quantile of ``values`` (seconds) in milliseconds, two decimals; None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    return round(1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2)
