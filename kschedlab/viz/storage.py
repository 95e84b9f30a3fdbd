"""Storage capacity scoring worked out: what VolumeBinding's Score gives each topology segment
for a claim to provision, from the CSIStorageCapacity it would use there.

Per storage class, utilization is ``requested × 100 // capacity`` (integer, as the plugin computes
it; a claim larger than the capacity counts as 100 %), the shape function turns it into a score
(the default shape: 0 % → 100, 100 % → 0, so the emptier segment wins), and a node's score is the
rounded mean over the pod's classes.

>>> capacity_score_table(20 << 30, {"zone-a": 100 << 30, "zone-b": 40 << 30})
        capacity (Gi)  requested (Gi)  utilization %  score
zone-a            100              20             20     80
zone-b             40              20             50     50
"""

from __future__ import annotations

from typing import Mapping

import pandas as pd

from kschedlab.plugins.volume_binding import DEFAULT_SHAPE, MAX_UTILIZATION, build_scorer, scaled_shape

__all__ = ["capacity_score_table"]

GI = 1 << 30


def capacity_score_table(requested: int, capacities: Mapping[str, int],
                         shape=DEFAULT_SHAPE) -> pd.DataFrame:
    """One row per segment (``capacities``: name -> bytes of the CSIStorageCapacity there): the
    capacity, the claim's request, the utilization and VolumeBinding's score for one class, with
    the args' ``shape`` (0-10 scores, the default when not given)."""
    scorer = build_scorer(scaled_shape([tuple(p) for p in shape]))
    rows = {}
    for name, capacity in capacities.items():
        util = MAX_UTILIZATION if capacity == 0 or requested > capacity else requested * MAX_UTILIZATION // capacity
        rows[name] = {"capacity (Gi)": capacity / GI if capacity % GI else capacity // GI,
                      "requested (Gi)": requested / GI if requested % GI else requested // GI,
                      "utilization %": util, "score": scorer({"class": (requested, capacity)})}
    return pd.DataFrame.from_dict(rows, orient="index")
