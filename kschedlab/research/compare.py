"""Comparing the arms of a sweep on one metric, seed by seed.

An *arm* is what a sweep compares: a configuration with a plugin variant (``config / variant``).
Runs of two arms with the same workload and seed saw the same jobs (a generated trace is drawn
from the seed), so the fair comparison is paired: per seed, the arm's number minus the
reference arm's. :func:`compare_arms` gives the per-seed numbers, their means, the mean paired
difference and in how many seeds each arm did better, as well or worse than the reference
(better means lower for times, fragmentation and lost pods, higher for what is scheduled and
used: :func:`higher_is_better`).

>>> import pandas as pd
>>> runs = pd.DataFrame({"config": ["default"] * 4, "variant": ["baseline", "baseline", "packed", "packed"],
...                      "workload": ["w"] * 4, "seed": [0, 1, 0, 1], "pending_p90": [10.0, 4.0, 6.0, 4.0]})
>>> c = compare_arms(runs, "pending_p90")
>>> c.reference, c.means, c.differences
('default / baseline', {'default / baseline': 7.0, 'default / packed': 5.0}, {'default / packed': -2.0})
>>> c.wins["default / packed"]  # lower in seed 0, the same in seed 1
(1, 1, 0)
>>> c.frame()
                    seed 0  seed 1  mean  Δ mean  better/same/worse
arm
default / baseline    10.0     4.0   7.0     0.0         reference
default / packed       6.0     4.0   5.0    -2.0             1/1/0
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import pandas as pd

__all__ = ["HIGHER_IS_BETTER", "ArmComparison", "arm_name", "arm_names", "compare_arms", "higher_is_better",
           "scalar_metrics"]

#: the numbers of a run where more is better (for every other metric less is better)
HIGHER_IS_BETTER = frozenset({"scheduled", "scheduled_fraction", "cpu_utilization_mean", "gpu_utilization_mean",
                              "decisions_per_second"})
#: per-run numbers that are not measurements of the scheduling (labels and bookkeeping)
_NOT_METRICS = frozenset({"seed", "pods", "attempts", "end_time"})


def higher_is_better(metric: str) -> bool:
    """Whether a larger ``metric`` is the better outcome.

    >>> higher_is_better("scheduled_fraction"), higher_is_better("pending_p90")
    (True, False)
    """
    return metric in HIGHER_IS_BETTER


def arm_name(config: str, variant: str) -> str:
    """An arm's name, ``config / variant`` (as the comparison figures label it).

    >>> arm_name("default", "gpu-binpack")
    'default / gpu-binpack'
    """
    return f"{config} / {variant}"


def arm_names(results: pd.DataFrame) -> list[str]:
    """The arms of a results table, sorted."""
    return sorted({arm_name(c, v) for c, v in zip(results["config"], results["variant"])})


def scalar_metrics(results: pd.DataFrame) -> list[str]:
    """The numeric per-run columns of ``results`` with at least one value (in the table's order).

    >>> scalar_metrics(pd.DataFrame({"seed": [0], "pods": [3], "pending_p90": [1.5], "gang_wait_p90": [None],
    ...                              "pending_times": [[0.0, 1.5]]}))
    ['pending_p90']
    """
    return [c for c in results.columns
            if c not in _NOT_METRICS and pd.api.types.is_numeric_dtype(results[c])
            and results[c].dtype != bool and results[c].notna().any()]


@dataclass
class ArmComparison:
    """One metric of one workload, arm by arm: ``values`` (arms x seeds, NaN where a run is
    missing or has no value), ``means`` over seeds, ``differences``: the mean over seeds of
    (arm - ``reference``), the seeds where either has no value left out, and ``wins``: per arm,
    (better, the same, worse) than the reference in that many seeds."""

    metric: str
    workload: str
    reference: str
    values: pd.DataFrame
    means: dict[str, float] = field(default_factory=dict)
    differences: dict[str, float] = field(default_factory=dict)
    wins: dict[str, tuple[int, int, int]] = field(default_factory=dict)

    @property
    def higher_is_better(self) -> bool:
        return higher_is_better(self.metric)

    def frame(self, scale: float = 1) -> pd.DataFrame:
        """The comparison as a table, one row per arm (numbers multiplied by ``scale``, e.g. 100
        for a share shown in %): the seeds, the mean, the mean paired difference and the
        better/same/worse counts against the reference (the reference's row: 0 and "reference")."""
        out = self.values.mul(scale)
        out.columns = [f"seed {s}" for s in self.values.columns]
        out["mean"] = [self.means[a] * scale for a in out.index]
        out["Δ mean"] = [0.0 if a == self.reference else self.differences[a] * scale for a in out.index]
        out["better/same/worse"] = ["reference" if a == self.reference else "/".join(map(str, self.wins[a]))
                                    for a in out.index]
        out.index.name = "arm"
        return out


def compare_arms(results: pd.DataFrame, metric: str, workload: str | None = None, reference: str | None = None,
                 arms: list[str] | None = None) -> ArmComparison:
    """Compare the ``arms`` (default: all, sorted) of ``results`` (a sweep's table) on ``metric``
    for ``workload`` (required when the table holds several), against ``reference`` (default:
    ``default / baseline`` when it is there, else the first arm). Unknown names raise ValueError
    naming the argument."""
    if metric not in results.columns:
        raise ValueError(f"metric: Not found: {metric!r}")
    names = sorted(results["workload"].unique())
    if workload is None:
        if len(names) != 1:
            raise ValueError(f"workload: Required value: the results hold {len(names)} workloads ({', '.join(names)})")
        workload = names[0]
    elif workload not in names:
        raise ValueError(f"workload: Not found: {workload!r} (the results hold {', '.join(names)})")
    rows = results[results["workload"] == workload]
    every = arm_names(rows)
    arms = list(every if arms is None else arms)
    for i, arm in enumerate(arms):
        if arm not in every:
            raise ValueError(f"arms[{i}]: Not found: {arm!r} (the arms are {', '.join(every)})")
    if reference is None:
        reference = "default / baseline" if "default / baseline" in every else (arms or every)[0]
    elif reference not in every:
        raise ValueError(f"reference: Not found: {reference!r} (the arms are {', '.join(every)})")
    shown = arms if reference in arms else [reference, *arms]
    table = pd.DataFrame({"arm": [arm_name(c, v) for c, v in zip(rows["config"], rows["variant"])],
                          "seed": rows["seed"].to_numpy(), "value": rows[metric].astype(float).to_numpy()})
    values = (table.pivot_table(index="arm", columns="seed", values="value", aggfunc="first", dropna=False)
              .reindex(index=shown))
    values.columns.name = None
    base = values.loc[reference]
    out = ArmComparison(metric, workload, reference, values)
    sign = 1 if higher_is_better(metric) else -1
    for arm in shown:
        row = values.loc[arm]
        out.means[arm] = float(row.mean())
        if arm == reference:
            continue
        paired = (row - base).dropna()
        out.differences[arm] = float(paired.mean()) if len(paired) else math.nan
        same = sum(math.isclose(d, 0.0, abs_tol=1e-12) for d in paired)
        better = sum(d * sign > 0 and not math.isclose(d, 0.0, abs_tol=1e-12) for d in paired)
        out.wins[arm] = (better, same, len(paired) - better - same)
    return out
