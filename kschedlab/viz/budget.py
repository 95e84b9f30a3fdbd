"""What a PodDisruptionBudget lets through: evict a list of pods back to back under a budget
whose ``minAvailable`` / ``maxUnavailable`` is changed, and tabulate the answers (seed
section 14, "Виселення, ініційоване API").

A percentage, and ``maxUnavailable`` in any form, need the scale of the pods' controller (the
disruption controller's ``getExpectedScale``): without it the controller cannot compute the
status and the budget allows nothing, as upstream.

Between two evictions the disruption controller recomputes the budget's status
(:func:`kschedlab.eviction.disruption.refresh`), as it would in a live cluster; an evicted pod
is terminating (its grace period has not run out), so it no longer counts as healthy, and it is
listed in ``status.disruptedPods`` meanwhile.

>>> from pathlib import Path
>>> from kschedlab.api.loader import load
>>> objs = load(Path(__file__).resolve().parents[2] / "datasets" / "eviction" / "14-pdb-min-available.yaml")
>>> pods = ["default/web-0", "default/web-1", "default/web-2"]
>>> budget_what_if(objs, "default/web", pods, min_available=1)["code"].tolist()
[200, 200, 429]
>>> budget_what_if(objs, "default/web", pods, max_unavailable=1)["code"].tolist()   # no controller scale
[429, 429, 429]
"""

from __future__ import annotations

import copy
from typing import Iterable, Sequence

import pandas as pd

from kschedlab.cluster import Cluster
from kschedlab.eviction import disruption as pdbmod
from kschedlab.eviction.api_initiated import evict

__all__ = ["budget_what_if", "allowed_evictions"]


def _intstr(value):
    if value is None:
        return None
    if isinstance(value, str) and not value.endswith("%"):
        return int(value)
    return value


def budget_what_if(objects: Iterable, budget: str, pods: Sequence[str], *, min_available=None,
                   max_unavailable=None, now: float = 100.0) -> pd.DataFrame:
    """Evict ``pods`` ("namespace/name") one after the other, one second apart from ``now``, in a
    copy of ``objects`` whose PodDisruptionBudget ``budget`` ("namespace/name") has
    ``min_available`` or ``max_unavailable`` instead (an int or a percentage such as ``"50%"``;
    give at most one; neither: the budget as written).  One row per eviction: the answer's
    code and reason and the budget's status the API server saw, then after the answer.
    The objects passed in are not changed.

    >>> budget_what_if([], "default/web", [])
    Traceback (most recent call last):
    ...
    ValueError: no PodDisruptionBudget default/web among the objects
    """
    if min_available is not None and max_unavailable is not None:
        raise ValueError("give minAvailable or maxUnavailable, not both (the API server refuses a budget with both)")
    cluster = Cluster(copy.deepcopy(list(objects)))
    found = [b for b in cluster.of_kind("PodDisruptionBudget") if b.key == budget]
    if not found:
        raise ValueError(f"no PodDisruptionBudget {budget} among the objects")
    pdb = found[0]
    if min_available is not None or max_unavailable is not None:
        pdb.spec.min_available = _intstr(min_available)
        pdb.spec.max_unavailable = _intstr(max_unavailable)
    rows = []
    for i, pod in enumerate(pods):
        t = now + i
        pdbmod.refresh(cluster, now=t)
        before, healthy = pdb.status.disruptions_allowed, pdb.status.current_healthy
        answer = evict(cluster, pod, now=t)
        rows.append({"pod": pod, "code": answer.code, "reason": answer.reason or "evicted",
                     "healthy before": healthy, "desiredHealthy": pdb.status.desired_healthy,
                     "disruptionsAllowed before": before, "disruptionsAllowed after": pdb.status.disruptions_allowed,
                     "message": answer.message})
    return pd.DataFrame(rows, columns=["pod", "code", "reason", "healthy before", "desiredHealthy",
                                       "disruptionsAllowed before", "disruptionsAllowed after", "message"])


def allowed_evictions(objects: Iterable, budget: str, pods: Sequence[str], **change) -> int:
    """How many of ``pods`` :func:`budget_what_if` evicts (answer 200) with ``change``.

    >>> from pathlib import Path
    >>> from kschedlab.api.loader import load
    >>> objs = load(Path(__file__).resolve().parents[2] / "datasets" / "eviction" / "14-pdb-min-available.yaml")
    >>> [allowed_evictions(objs, "default/web", ["default/web-0", "default/web-1", "default/web-2"],
    ...                    min_available=m) for m in (0, 1, 2, 3)]
    [3, 2, 1, 0]
    """
    return int((budget_what_if(objects, budget, pods, **change)["code"] == 200).sum())
