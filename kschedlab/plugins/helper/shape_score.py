"""``BuildBrokenLinearFunction``: a piecewise-linear function through shape points,
with Go's integer division (truncating toward zero)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class FunctionShapePoint(NamedTuple):
    utilization: int
    score: int


def _div_trunc(a: np.ndarray, b: int) -> np.ndarray:
    q = np.abs(a) // abs(b)
    return np.where((a < 0) != (b < 0), -q, q)


def build_broken_linear_function(shape: list[FunctionShapePoint]):
    """Return f(p) for an int or int array, flat before the first and after the last point.

    >>> f = build_broken_linear_function([FunctionShapePoint(10, 1), FunctionShapePoint(90, 9)])
    >>> [int(f(p)) for p in (0, 10, 15, 50, 90, 100)]
    [1, 1, 1, 5, 9, 9]
    """
    utils = [p.utilization for p in shape]
    scores = [p.score for p in shape]

    def f(p):
        arr = np.asarray(p, np.int64)
        out = np.full(arr.shape, scores[-1], np.int64)
        done = np.zeros(arr.shape, bool)
        for i in range(len(shape)):
            hit = ~done & (arr <= utils[i])
            if i == 0:
                out[hit] = scores[0]
            else:
                slope_num = (scores[i] - scores[i - 1]) * (arr[hit] - utils[i - 1])
                out[hit] = scores[i - 1] + _div_trunc(slope_num, utils[i] - utils[i - 1])
            done |= hit
        return out if arr.ndim else out[()]

    return f
