"""The seeds of the randomized tests that compare two paths (fused and plugin by plugin, kept and
recomputed, bulk and one by one) on random clusters.

By default a test runs its own ``n`` seeds from 0. ``KSCHEDLAB_SEEDS=START:FACTOR`` runs ``FACTOR * n``
seeds from ``START`` instead: a soak, for a change to a fast path, e.g.
``KSCHEDLAB_SEEDS=1000:8 .venv/bin/python -m pytest tests/fastpath tests/dra_bench``. The comparisons
hold for any seed. A check that a run met some case at all (a pod preempted, a kept answer used, more
than ten attempts on the fused path) holds for the default seeds, which were chosen to meet them; under
a soak such a check is passed over (:func:`covered`).

>>> list(seeds(3)) if not SOAK else None
[0, 1, 2]
>>> covered(False) == SOAK
True
"""

from __future__ import annotations

import os


def _start_and_factor(text: str) -> tuple[int, int]:
    """``START:FACTOR`` (FACTOR >= 1, START >= 0) from the environment variable's ``text``.

    >>> _start_and_factor(""), _start_and_factor("1000:8")
    ((0, 1), (1000, 8))
    >>> _start_and_factor("8")
    Traceback (most recent call last):
    ...
    ValueError: KSCHEDLAB_SEEDS='8': expected START:FACTOR, e.g. 1000:8
    """
    if not text:
        return 0, 1
    start, sep, factor = text.partition(":")
    if not sep or not start.isdigit() or not factor.isdigit() or int(factor) < 1:
        raise ValueError(f"KSCHEDLAB_SEEDS={text!r}: expected START:FACTOR, e.g. 1000:8")
    return int(start), int(factor)


START, FACTOR = _start_and_factor(os.environ.get("KSCHEDLAB_SEEDS", ""))
#: the seeds are not the tests' own
SOAK = (START, FACTOR) != (0, 1)


def seeds(n: int) -> range:
    """The seeds of a test written for ``n`` seeds."""
    return range(START, START + FACTOR * n)


def covered(condition: bool) -> bool:
    """``condition``, a check that the run met some case; always true under a soak."""
    return bool(condition) or SOAK
