"""Floors for the benchmark shapes with a count per topology domain: the least vectorized work that
gives the scheduler's placements, run by ``kschedlab bench`` in the same process as the shape.

:func:`shape_floor` runs SchedulingPodAntiAffinity, SchedulingPodAffinity and TopologySpreading as
:func:`kschedlab.scheduler_perf.numpy_reference` runs SchedulingBasic: NodeResourcesFit's check over
the nodes, the first ``numFeasibleNodesToFind`` feasible nodes from the rotating start, LeastAllocated
+ BalancedAllocation (upstream's integer arithmetic) and the best node, ties drawn as the scheduler
draws them. Beside that, one count of matching pods per topology domain, kept as pods are placed:

* SchedulingPodAntiAffinity (required anti-affinity to ``color: green`` per hostname, in both
  namespaces, which every pod of the shape matches): a node passes when its hostname holds no
  such pod (the incoming pod's terms and the placed pods' terms ask the same here);
* SchedulingPodAffinity (required affinity to ``color: blue`` per zone): a node passes when its
  zone holds such a pod, or, while none is placed anywhere, every node with the key (the first pod
  matches its own terms); its Score is the placed pods' required affinity terms the pod matches
  (hardPodAffinityWeight 1, the plugin's weight 2), counted per zone and normalized over the
  scored nodes;
* TopologySpreading (``maxSkew`` 5 over zones, ``DoNotSchedule``, ``color: blue``): a node passes
  when its zone's count + 1 - the smallest zone count is at most 5 (no score: hard constraints only).

What it leaves out, as the yardstick does: plugins, statuses, traces, API objects, the queue and
binding; the other default plugins give every node the same answer in these shapes (no taints, node
selectors, images, host ports or Services), so they are not run. It knows the shape: it is a floor
for these workloads, not a scheduler.

>>> r = shape_floor("SchedulingPodAntiAffinity", 20, 5, 10)
>>> len(r["placements"]), len(set(r["placements"])), r["placements"][:3]
(15, 15, [12, 14, 1])
>>> shape_floor("TopologySpreading", 30, 10, 30)["pods"]
30
"""

from __future__ import annotations

import random
import time

import numpy as np

__all__ = ["FLOOR_SHAPES", "shape_floor"]

#: shape -> (domains of the nodes: "hostname", "zone1" or "moon"; the rule of the init pods; of the
#: measured pods). Rules: None (resources only), "anti", "affinity", "spread".
FLOOR_SHAPES: dict[str, tuple[str, str | None, str | None]] = {
    "SchedulingPodAntiAffinity": ("hostname", "anti", "anti"),
    "SchedulingPodAffinity": ("zone1", "affinity", "affinity"),
    "TopologySpreading": ("moon", None, "spread"),
}

#: TopologySpreading's maxSkew; InterPodAffinity's default score weight in the default profile
MAX_SKEW = 5
AFFINITY_WEIGHT = 2


def resource_totals(alloc: np.ndarray, alloc_f: np.ndarray, used: np.ndarray, want: np.ndarray,
                    feasible: np.ndarray) -> np.ndarray:
    """The summed scores of the default profile's resource plugins for one pod on the ``feasible``
    columns: LeastAllocated (cpu, memory, weight 1, ``// 2`` of the sum) plus BalancedAllocation
    (weight 1) after the other Score plugins' constant 50s, as the scheduler adds them. ``alloc`` /
    ``used`` are int64 ``[2, nodes]`` (cpu, memory), ``alloc_f`` the same as floats, ``want`` the pod's
    requests.

    >>> alloc = np.array([[4000, 4000], [8, 8]]); used = np.array([[0, 2000], [0, 4]])
    >>> resource_totals(alloc, alloc.astype(float), used, np.array([1000, 2]), np.array([0, 1])).tolist()
    [150, 100]
    """
    a, u = alloc[:, feasible], used[:, feasible]
    r = u + want[:, None]
    least = np.where(r > a, 0, (a - r) * 100 // a).sum(axis=0) // 2
    af = alloc_f[:, feasible]
    bal_with = np.trunc((1 - np.abs(np.minimum(r[0] / af[0], 1.0) - np.minimum(r[1] / af[1], 1.0)) / 2) * 100.0)
    bal_without = np.trunc((1 - np.abs(np.minimum(u[0] / af[0], 1.0) - np.minimum(u[1] / af[1], 1.0)) / 2) * 100.0)
    diff = 50 + bal_with.astype(np.int64) - bal_without.astype(np.int64)
    return least + 50 + np.sign(diff) * (np.abs(diff) // 2)


def _domains(kind: str, nodes: int) -> np.ndarray:
    if kind == "hostname":
        return np.arange(nodes)
    if kind == "zone1":
        return np.zeros(nodes, np.int64)
    return np.arange(nodes) % 3


def shape_floor(name: str, nodes: int, init_pods: int, measure_pods: int, *, seed: int = 0,
                cpu_milli: int = 100, memory: int = 500 * 2**20) -> dict:
    """Place ``init_pods`` then ``measure_pods`` of shape ``name`` (:data:`FLOOR_SHAPES`) on ``nodes``
    node-default.yaml nodes; returns ``pods_per_cpu_second`` over the measured pods and the row of
    every pod, init pods first (-1 where none fits)."""
    from kschedlab.scheduler import num_feasible_nodes_to_find

    domain_kind, init_rule, measure_rule = FLOOR_SHAPES[name]
    dom = _domains(domain_kind, nodes)
    counts = np.zeros(int(dom.max()) + 1 if nodes else 1, np.int64)
    rng = random.Random(seed)
    alloc = np.empty((2, nodes), np.int64)
    alloc[0], alloc[1] = 4000, 32 * 2**30
    alloc_f = alloc.astype(np.float64)
    used = np.zeros((2, nodes), np.int64)
    count = np.zeros(nodes, np.int64)
    want = np.array([cpu_milli, memory], np.int64)
    to_find = num_feasible_nodes_to_find(0, nodes)
    start = 0
    placements: list[int] = []
    cpu_start = 0.0
    for i in range(init_pods + measure_pods):
        if i == init_pods:
            cpu_start = time.process_time()
        rule = init_rule if i < init_pods else measure_rule
        free = alloc - used
        fits = (free[0] >= want[0]) & (free[1] >= want[1]) & (count < 110)
        if rule == "anti":
            fits &= counts[dom] == 0
        elif rule == "affinity" and counts.any():
            fits &= counts[dom] > 0
        elif rule == "spread":
            fits &= counts[dom] + 1 - counts.min() <= MAX_SKEW
        feasible = np.flatnonzero(fits)
        k = int(np.searchsorted(feasible, start))
        feasible = np.concatenate([feasible[k:], feasible[:k]])[:to_find]
        if not len(feasible):
            placements.append(-1)
            continue
        processed = (int(feasible[-1]) - start) % nodes + 1 if len(feasible) == to_find else nodes
        start = (start + processed) % nodes
        total = resource_totals(alloc, alloc_f, used, want, feasible)
        if rule == "affinity" and counts.any():
            raw = counts[dom[feasible]]
            lo, hi = int(raw.min()), int(raw.max())
            norm = ((100.0 * ((raw - lo) / float(hi - lo))).astype(np.int64) if hi > lo
                    else np.zeros(len(raw), np.int64))
            total = total + AFFINITY_WEIGHT * norm
        ties = np.flatnonzero(total == total.max())
        pick = int(feasible[int(ties[rng.randrange(len(ties))]) if len(ties) > 1 else int(ties[0])])
        used[:, pick] += want
        count[pick] += 1
        if rule is not None:
            counts[dom[pick]] += 1
        placements.append(pick)
    cpu = time.process_time() - cpu_start
    return {"pods": measure_pods, "cpu_seconds": round(cpu, 3),
            "pods_per_cpu_second": round(measure_pods / cpu, 1) if cpu > 0 and measure_pods else None,
            "placements": placements}
