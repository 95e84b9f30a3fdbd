"""``DefaultNormalizeScore``: scale scores to [0, max] by the highest one, optionally reversed."""

import numpy as np


def default_normalize_score(max_priority: int, reverse: bool, scores: np.ndarray) -> None:
    """Normalize ``scores`` in place with integer division, as upstream.

    >>> s = np.array([0, 2, 5]); default_normalize_score(100, False, s); s.tolist()
    [0, 40, 100]
    >>> s = np.array([0, 2, 5]); default_normalize_score(100, True, s); s.tolist()
    [100, 60, 0]
    >>> s = np.array([0, 0]); default_normalize_score(100, True, s); s.tolist()
    [100, 100]
    """
    max_count = int(scores.max()) if len(scores) else 0
    if max_count <= 0:
        if reverse:
            scores[:] = max_priority
        return
    scaled = max_priority * scores // max_count
    scores[:] = max_priority - scaled if reverse else scaled
