"""Floors for the benchmark shapes with a count per topology domain, for PreemptionBasic and for the gang
shapes: the least vectorized work that gives the scheduler's placements, run by ``kschedlab bench`` in the
same process as the shape.

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

PreemptionBasic (:func:`preemption_floor`): the init pods placed as SchedulingBasic's are; for each
measured pod, NodeResourcesFit's check over all nodes (no node fits: every one holds four 900m pods),
DefaultPreemption's random offset over the nodes that failed it (``Unschedulable``: the pod could fit
there), the dry run of those nodes from the offset until ``max(10%, 100)`` of them gave a candidate
(a node with pods of lower priority where the pod fits once they are gone: upstream's reprieve loop,
most important first, on the nodes' pod arrays), ``pickOneNodeForPreemption``'s criteria as one key
over the candidates, the victims removed and the pod placed on that node (its second attempt
filters the nominated node alone). No PDBs, nominations of other pods or start times in this shape.

What it leaves out, as the yardstick does: plugins, statuses, traces, API objects, the queue and
binding; the other default plugins give every node the same answer in these shapes (no taints, node
selectors, images, host ports or Services), so they are not run. It knows the shape: it is a floor
for these workloads, not a scheduler.

>>> r = shape_floor("SchedulingPodAntiAffinity", 20, 5, 10)
>>> len(r["placements"]), len(set(r["placements"])), r["placements"][:3]
(15, 15, [12, 14, 1])
>>> shape_floor("TopologySpreading", 30, 10, 30)["pods"]
30
>>> r = shape_floor("PreemptionBasic", 5, 20, 5)
>>> r["placements"][20:], r["victims"][0]
([3, 4, 0, 2, 1], [0, 6, 10, 19])
"""

from __future__ import annotations

import random
import time

import numpy as np

__all__ = ["FLOOR_SHAPES", "GANG_FLOOR_SHAPES", "gang_floor", "preemption_floor", "shape_floor"]

#: shape -> (domains of the nodes: "hostname", "zone1" or "moon"; the rule of the init pods; of the
#: measured pods). Rules: None (resources only), "anti", "affinity", "spread".
FLOOR_SHAPES: dict[str, tuple[str, str | None, str | None]] = {
    "SchedulingPodAntiAffinity": ("hostname", "anti", "anti"),
    "SchedulingPodAffinity": ("zone1", "affinity", "affinity"),
    "TopologySpreading": ("moon", None, "spread"),
    "PreemptionBasic": ("hostname", None, "preempt"),
}

#: TopologySpreading's maxSkew; InterPodAffinity's default score weight in the default profile
MAX_SKEW = 5
AFFINITY_WEIGHT = 2


#: node-default.yaml's allocatable cpu (millicores) and memory (bytes)
NODE_DEFAULT_CPU_MILLI, NODE_DEFAULT_MEMORY = 4000, 32 * 2**30


def default_nodes(nodes: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``nodes`` empty node-default.yaml nodes as the floors hold them: allocatable (int64
    ``[2, nodes]``: cpu, memory), the same as floats, what is used (zeros) and the pods per node.

    >>> alloc, alloc_f, used, count = default_nodes(2)
    >>> alloc[:, 0].tolist(), alloc_f.dtype.name, used.shape, count.tolist()
    ([4000, 34359738368], 'float64', (2, 2), [0, 0])
    """
    alloc = np.empty((2, nodes), np.int64)
    alloc[0], alloc[1] = NODE_DEFAULT_CPU_MILLI, NODE_DEFAULT_MEMORY
    return alloc, alloc.astype(np.float64), np.zeros((2, nodes), np.int64), np.zeros(nodes, np.int64)


def feasible_from(feasible: np.ndarray, start: int, to_find: int, nodes: int) -> tuple[np.ndarray, int]:
    """The first ``to_find`` of the ``feasible`` rows (sorted) from row ``start`` round the end, as
    the scheduler's rotating start visits them, and how many of the ``nodes`` rows that visit
    takes: up to the next feasible row, not counted (all of them when no more is found).

    >>> rows, visited = feasible_from(np.array([1, 4, 6, 8]), 5, 2, 10)
    >>> rows.tolist(), visited
    ([6, 8], 6)
    """
    k = int(np.searchsorted(feasible, start))
    order = np.concatenate([feasible[k:], feasible[:k]])
    return order[:to_find], (int(order[to_find]) - start) % nodes if len(order) > to_find else nodes


def pick_best(feasible: np.ndarray, total: np.ndarray, rng: random.Random) -> int:
    """The ``feasible`` row with the highest ``total``, ties drawn as the scheduler draws them (one
    ``randrange`` over the tied rows, none when one row leads).

    >>> pick_best(np.array([3, 5, 7]), np.array([10, 30, 20]), random.Random(0))
    5
    """
    ties = np.flatnonzero(total == total.max())
    return int(feasible[int(ties[rng.randrange(len(ties))]) if len(ties) > 1 else int(ties[0])])


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
    if measure_rule == "preempt":
        return preemption_floor(nodes, init_pods, measure_pods, seed=seed)
    dom = _domains(domain_kind, nodes)
    counts = np.zeros(int(dom.max()) + 1 if nodes else 1, np.int64)
    rng = random.Random(seed)
    alloc, alloc_f, used, count = default_nodes(nodes)
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
        feasible, processed = feasible_from(feasible, start, to_find, nodes)
        if not len(feasible):
            placements.append(-1)
            continue
        start = (start + processed) % nodes
        total = resource_totals(alloc, alloc_f, used, want, feasible)
        if rule == "affinity" and counts.any():
            raw = counts[dom[feasible]]
            lo, hi = int(raw.min()), int(raw.max())
            norm = ((100.0 * ((raw - lo) / float(hi - lo))).astype(np.int64) if hi > lo
                    else np.zeros(len(raw), np.int64))
            total = total + AFFINITY_WEIGHT * norm
        pick = pick_best(feasible, total, rng)
        used[:, pick] += want
        count[pick] += 1
        if rule is not None:
            counts[dom[pick]] += 1
        placements.append(pick)
    cpu = time.process_time() - cpu_start
    return {"pods": measure_pods, "cpu_seconds": round(cpu, 3),
            "pods_per_cpu_second": round(measure_pods / cpu, 1) if cpu > 0 and measure_pods else None,
            "placements": placements}


#: the gang shapes with a floor (:func:`gang_floor`)
GANG_FLOOR_SHAPES = ("GangScheduling", "TopologyAwareScheduling")


def _visit(rows: np.ndarray, fits: np.ndarray, start: int, to_find: int) -> tuple[np.ndarray, int]:
    """The first ``to_find`` rows of ``rows`` (visited from index ``start`` round the end) whose
    ``fits`` is set, and how many rows the visit took: up to the next such row, not counted."""
    n = len(rows)
    order = np.concatenate([np.arange(start, n), np.arange(start)])
    ok = np.flatnonzero(fits[rows[order]])
    if len(ok) > to_find:
        return rows[order[ok[:to_find]]], int(ok[to_find])
    return rows[order[ok]], n


def gang_floor(name: str, nodes: int, sizes: list[int], *, per_domain: int = 100, seed: int = 0,
               cpu_milli: int = 100, memory: int = 100 * 2**20) -> dict:
    """Place the gangs of ``sizes`` (GangScheduling or TopologyAwareScheduling, 100m / 100Mi pods)
    on ``nodes`` node-default.yaml nodes as the PodGroup cycle does; returns ``pods_per_cpu_second``
    and every pod's row (gang by gang, -1 where the gang did not fit).

    GangScheduling: each pod as :func:`~kschedlab.scheduler_perf.numpy_reference` places a pod
    (NodeResourcesFit's check, ``numFeasibleNodesToFind`` nodes from the rotating start,
    LeastAllocated + BalancedAllocation, ties drawn as the scheduler draws them), the gang's pods one
    after the other. TopologyAwareScheduling: the racks (``per_domain`` nodes each, in the label's
    sorted order) as TopologyPlacementGenerator lists them, shuffled with the scheduler's draws when
    ``numFeasiblePlacementsToFind`` (adaptive, 5 of 50 racks at 5,000 nodes) leaves some out; in
    each rack tried the gang's pods placed tentatively as above, then taken back; the feasible racks
    ranked by the default PlacementScore plugins (NodeResourcesFit's MostAllocated over the rack's
    summed requests and capacity; PodGroupPodsCount, equal for every rack holding the whole gang)
    with the scheduler's random tie-break; the gang placed in the best one.

    What it leaves out: plugins, statuses, traces, API objects, the queue, Reserve / Permit /
    binding; a gang is all or nothing with ``minCount`` = its size, so PlacementFeasible is "every
    pod placed"; the other default plugins give every node the same answer here (no taints,
    selectors, images, ports or Services), so they are not run. The rows visited to find the
    feasible nodes are counted one by one (the scheduler's chunks may visit a few more when a rack
    or the cluster is nearly full, which these shapes never are). It is a floor for these two
    workloads, not a scheduler.

    >>> r = gang_floor("TopologyAwareScheduling", 40, [3, 5, 2], per_domain=10)
    >>> len(r["placements"]), len({p // 10 for p in r["placements"][:3]})
    (10, 1)
    """
    from kschedlab.plugins.resource_allocation import most_allocated
    from kschedlab.scheduler import num_feasible_nodes_to_find
    from kschedlab.scheduler.podgroup.algorithm import num_feasible_placements_to_find

    rng = random.Random(seed)
    alloc, alloc_f, used, count = default_nodes(nodes)
    want = np.array([cpu_milli, memory], np.int64)
    weights = np.ones(2, np.int64)
    racks: list[np.ndarray] = []
    if name == "TopologyAwareScheduling":
        domain = np.arange(nodes) // per_domain
        racks = [np.flatnonzero(domain == d) for d in sorted(set(domain.tolist()), key=lambda d: f"rack-{d}")]
    start = 0

    def place(rows: np.ndarray, size: int) -> list[int] | None:
        """The gang's pods one by one inside ``rows`` (kept in ``used``); None when one does not fit."""
        nonlocal start
        n = len(rows)
        to_find = num_feasible_nodes_to_find(0, n)
        picks: list[int] = []
        for _ in range(size):
            fits = (used[0] + want[0] <= alloc[0]) & (used[1] + want[1] <= alloc[1]) & (count < 110)
            feasible, visited = _visit(rows, fits, start % n, to_find)
            start = (start + visited) % n
            if not len(feasible):
                take_back(picks)
                return None
            if len(feasible) == 1:
                pick = int(feasible[0])
            else:
                total = resource_totals(alloc, alloc_f, used, want, feasible)
                pick = pick_best(feasible, total, rng)
            used[:, pick] += want
            count[pick] += 1
            picks.append(pick)
        return picks

    def take_back(picks: list[int]) -> None:
        for pick in picks:
            used[:, pick] -= want
            count[pick] -= 1

    placements: list[int] = []
    cpu_start = time.process_time()
    for size in sizes:
        if not racks:
            picks = place(np.arange(nodes), size)
            if picks is None:
                placements.extend([-1] * size)  # (the cycle reverts a gang that does not fit)
                continue
            placements.extend(picks)
            continue
        to_find = num_feasible_placements_to_find(0, len(racks), sum(len(r) for r in racks))
        order = list(range(len(racks)))
        if to_find < len(racks):
            rng.shuffle(order)
        found: list[tuple[int, list[int]]] = []
        for r in order:
            picks = place(racks[r], size)
            if picks is not None:
                found.append((r, picks))
                take_back(picks)
            if len(found) >= to_find:
                break
        if not found:
            placements.extend([-1] * size)
            continue
        best = found[0]
        if len(found) > 1:
            best_key = None
            for r, picks in found:
                rows = racks[r]
                requested = used[:, rows].sum(axis=1) + want * size
                score = int(most_allocated(requested[:, None], None, alloc[:, rows].sum(axis=1)[:, None], weights)[0])
                key = (score + 100, rng.getrandbits(62))  # + PodGroupPodsCount: 100 for every rack
                if best_key is None or key > best_key:
                    best, best_key = (r, picks), key
        for pick in best[1]:
            used[:, pick] += want
            count[pick] += 1
        placements.extend(best[1])
    cpu = time.process_time() - cpu_start
    pods = sum(sizes)
    return {"pods": pods, "cpu_seconds": round(cpu, 3),
            "pods_per_cpu_second": round(pods / cpu, 1) if cpu > 0 and pods else None,
            "placements": placements}


def preemption_floor(nodes: int, init_pods: int, measure_pods: int, *, seed: int = 0) -> dict:
    """PreemptionBasic's placements and victims with numpy (see the module docstring): ``init_pods``
    pods of 900m / 500Mi at priority 0, then ``measure_pods`` of 3970m / 500Mi at priority 9999999
    on node-default.yaml nodes. Returns ``placements`` (the row of every pod, init pods first; -1
    where none fits), ``victims`` (per measured pod, the init pods it evicted, most important
    first) and ``pods_per_cpu_second`` over the measured pods."""
    from kschedlab.plugins.default_preemption import DefaultPreemption
    from kschedlab.scheduler import num_feasible_nodes_to_find

    rng, offsets = random.Random(seed), random.Random(seed)  # the scheduler's ties, DefaultPreemption's offsets
    num_candidates = DefaultPreemption().calculate_num_candidates
    alloc, alloc_f, used, count = default_nodes(nodes)
    max_pods = 110
    # each node's pods in the order they came: id (init index, or -1 - measured index), priority, cpu
    width = 8
    pod_id = np.full((nodes, width), -1, np.int64)
    pod_prio = np.zeros((nodes, width), np.int64)
    pod_cpu = np.zeros((nodes, width), np.int64)
    memory = 500 * 2**20
    to_find = num_feasible_nodes_to_find(0, nodes)
    start = 0
    placements: list[int] = []
    victims_of: list[list[int]] = []
    cpu_start = 0.0
    for i in range(init_pods + measure_pods):
        measured = i >= init_pods
        if i == init_pods:
            cpu_start = time.process_time()
        cpu, prio = (3970, 9999999) if measured else (900, 0)
        want = np.array([cpu, memory], np.int64)
        free = alloc - used
        short = (free[0] < cpu) | (free[1] < memory) | (count + 1 > max_pods)
        feasible = np.flatnonzero(~short)
        pick = -1
        if len(feasible):
            feasible, processed = feasible_from(feasible, start, to_find, nodes)
            start = (start + processed) % nodes
            total = resource_totals(alloc, alloc_f, used, want, feasible)
            pick = pick_best(feasible, total, rng)
        elif nodes:
            # every node failed NodeResourcesFit; Unschedulable where the pod fits the empty node
            potential = np.flatnonzero((alloc[0] >= cpu) & (alloc[1] >= memory))
            if len(potential):
                offset = offsets.randrange(len(potential))
                visit = np.concatenate([potential[offset:], potential[:offset]])
                pick, gone = _preempt_on(visit, num_candidates(len(potential)), prio, cpu, memory, alloc, used,
                                         count, max_pods, pod_id, pod_prio, pod_cpu)
                if measured:
                    victims_of.append(gone)
                for v in gone:
                    row_pods = pod_id[pick]
                    slot = int(np.flatnonzero(row_pods == v)[0])
                    used[0, pick] -= pod_cpu[pick, slot]
                    used[1, pick] -= memory
                    count[pick] -= 1
                    for arr in (pod_id, pod_prio, pod_cpu):
                        arr[pick, slot:-1] = arr[pick, slot + 1:].copy()
                        arr[pick, -1] = -1 if arr is pod_id else 0
        if pick >= 0:
            n = int(count[pick])
            if n >= width:
                width *= 2
                pod_id, pod_prio, pod_cpu = (np.concatenate([a, np.full_like(a, -1 if a is pod_id else 0)], axis=1)
                                             for a in (pod_id, pod_prio, pod_cpu))
            pod_id[pick, n], pod_prio[pick, n], pod_cpu[pick, n] = (i if not measured else -1 - i), prio, cpu
            used[:, pick] += want
            count[pick] += 1
        elif measured and len(victims_of) < i - init_pods + 1:
            victims_of.append([])
        placements.append(pick)
    cpu_time = time.process_time() - cpu_start
    return {"pods": measure_pods, "cpu_seconds": round(cpu_time, 3),
            "pods_per_cpu_second": round(measure_pods / cpu_time, 1) if cpu_time > 0 and measure_pods else None,
            "placements": placements, "victims": victims_of}


def _preempt_on(visit: np.ndarray, wanted: int, prio: int, cpu: int, memory: int, alloc, used, count, max_pods: int,
                pod_id, pod_prio, pod_cpu) -> tuple[int, list[int]]:
    """The dry run over ``visit`` (every victim counts as not started, no PDBs: the victims of a
    node are its lower-priority pods by priority, then in the node's order) and the candidate
    ``pickOneNodeForPreemption`` chooses: (row, its victims' ids), or (-1, [])."""
    slots = pod_id.shape[1]
    lower = (pod_id[visit] != -1) & (pod_prio[visit] < prio)
    low_cpu = np.where(lower, pod_cpu[visit], 0).sum(axis=1)
    low_n = lower.sum(axis=1)
    mem = alloc[1, visit] - (used[1, visit] - low_n * memory)
    room = alloc[0, visit] - (used[0, visit] - low_cpu)
    left = count[visit] - low_n
    ok = (low_n > 0) & (room >= cpu) & (mem >= memory) & (left + 1 <= max_pods)
    cand = np.flatnonzero(ok)[:wanted]
    if not len(cand):
        return -1, []
    rows = visit[cand]
    order = np.argsort(np.where(lower[cand], -pod_prio[rows], np.iinfo(np.int64).max), axis=1, kind="stable")
    is_low = np.take_along_axis(lower[cand], order, axis=1)
    req = np.take_along_axis(pod_cpu[rows], order, axis=1)
    room, mem, left = room[cand].copy(), mem[cand].copy(), left[cand].copy()
    victim = np.zeros((len(rows), slots), bool)
    for s in range(int(low_n[cand].max())):
        fits = is_low[:, s] & (left + 2 <= max_pods) & (room - req[:, s] >= cpu) & (mem - memory >= memory)
        room -= np.where(fits, req[:, s], 0)
        mem -= np.where(fits, memory, 0)
        left += fits
        victim[:, s] = is_low[:, s] & ~fits
    prios = np.take_along_axis(pod_prio[rows], order, axis=1)
    n_victims = victim.sum(axis=1)
    highest = np.where(victim, prios, np.iinfo(np.int64).min).max(axis=1)
    total = np.where(victim, prios + 2**31, 0).sum(axis=1)
    # fewest PDB violations (none here), lowest highest priority, smallest sum, fewest victims; then the first
    best = int(np.lexsort((np.arange(len(rows)), n_victims, total, highest))[0])
    ids = np.take_along_axis(pod_id[rows[best]][None, :], order[best][None, :], axis=1)[0]
    return int(rows[best]), ids[victim[best]].tolist()
