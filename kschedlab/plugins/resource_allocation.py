"""Scoring shared by NodeResourcesFit and NodeResourcesBalancedAllocation
(``noderesources/resource_allocation.go`` and the strategy scorers).

All scorers take (requested, allocated, allocatable) matrices of shape
(resources, nodes) -- requested with the pod, allocated without it -- and the
resource weights, and return int64 scores per node with upstream's integer
arithmetic.
"""

from __future__ import annotations

import numpy as np

from kschedlab.api.resources import CPU, DEFAULT_NON_ZERO, EPHEMERAL_STORAGE, MEMORY, pod_requests
from kschedlab.features import FeatureGates
from kschedlab.framework.interface import MAX_NODE_SCORE, FieldError, SignFragment
from kschedlab.framework.signers import RESOURCES_SIGNER_NAME, resources_signer
from kschedlab.framework.status import Status
from kschedlab.plugins.helper import FunctionShapePoint, build_broken_linear_function

MAX_UTILIZATION = 100
#: unsignable-pod reason of NodeResourcesFit and NodeResourcesBalancedAllocation
ERR_SIGN_DRA_EXTENDED_RESOURCE = "signature disabled when dra extended resources enabled"


_UNSIGNABLE_DRA = Status.unschedulable(ERR_SIGN_DRA_EXTENDED_RESOURCE)


def sign_resources(handle, pod_info):
    """``SignPod`` of both resource plugins: the pod's effective requests, or unsignable while
    the DRAExtendedResource gate is on (extended resources may then be DRA-backed)."""
    gates = getattr(handle, "gates", None) or FeatureGates()
    if gates.enabled("DRAExtendedResource"):
        return None, _UNSIGNABLE_DRA
    return [SignFragment(RESOURCES_SIGNER_NAME, resources_signer(pod_info))], None


def default_resource_specs(resources: list | None) -> list[dict]:
    """v1 defaulting of a ``resources`` list: cpu and memory when empty, weight 0 becomes 1."""
    specs = [dict(r) for r in resources or [{"name": CPU}, {"name": MEMORY}]]
    for r in specs:
        r["weight"] = r.get("weight") or 1
    return specs


def validate_resources(resources, path: str, *, max_weight: int) -> list[FieldError]:
    return [FieldError("FieldValueInvalid", f"{path}[{i}].weight",
                       f"resource weight of {name} not in valid range (0, {max_weight}]")
            for i, (name, weight) in enumerate(resources) if weight <= 0 or weight > max_weight]


def _weighted_mean(per_resource: np.ndarray, weights: np.ndarray, active: np.ndarray) -> np.ndarray:
    if active.all():  # every node has every resource: one weight sum for all
        weight_sum = int(weights.sum())
        if weight_sum <= 0:
            return np.zeros(per_resource.shape[1], np.int64)
        return (per_resource * weights[:, None]).sum(axis=0) // weight_sum
    w = weights[:, None] * active
    weight_sum = w.sum(axis=0)
    total = (per_resource * w).sum(axis=0)
    return np.where(weight_sum > 0, total // np.maximum(weight_sum, 1), 0)


def least_allocated(requested, allocated, allocatable, weights) -> np.ndarray:
    """((capacity - requested) * 100 / capacity), 0 when over; weighted integer mean."""
    cap = np.maximum(allocatable, 1)
    score = np.where(requested > allocatable, 0, (allocatable - requested) * MAX_NODE_SCORE // cap)
    return _weighted_mean(score, weights, allocatable != 0)


def most_allocated(requested, allocated, allocatable, weights) -> np.ndarray:
    """(min(requested, capacity) * 100 / capacity); weighted integer mean."""
    cap = np.maximum(allocatable, 1)
    score = np.minimum(requested, allocatable) * MAX_NODE_SCORE // cap
    return _weighted_mean(score, weights, allocatable != 0)


def requested_to_capacity_ratio(shape: list[tuple[int, int]]):
    """Scorer following a broken-linear shape of (utilization, score 0..100) points.

    Resources scoring 0 are left out of the mean, which rounds half away from zero.
    """
    fn = build_broken_linear_function([FunctionShapePoint(u, s) for u, s in shape])

    def scorer(requested, allocated, allocatable, weights) -> np.ndarray:
        cap = np.maximum(allocatable, 1)
        util = np.where((allocatable == 0) | (requested > allocatable), MAX_UTILIZATION,
                        requested * MAX_UTILIZATION // cap)
        score = fn(util)
        active = (allocatable != 0) & (score > 0)
        w = weights[:, None] * active
        weight_sum = w.sum(axis=0)
        total = (score * w).sum(axis=0)
        mean = np.floor(total / np.maximum(weight_sum, 1) + 0.5).astype(np.int64)
        return np.where(weight_sum > 0, mean, 0)

    return scorer


def balanced_allocation(requested, allocated, allocatable, weights) -> np.ndarray:
    """50 + (50 + balance(with pod) - balance(without pod)) / 2, Go integer division.

    Rewards how much placing the pod improves the node's balance.

    >>> alloc = np.array([[4000], [10 << 30]])
    >>> with_pod, without = np.array([[3000], [5 << 30]]), np.array([[1000], [5 << 30]])
    >>> balanced_allocation(with_pod, without, alloc, None).tolist()   # 87 before and after
    [75]
    >>> balanced_allocation(np.array([[2000], [5 << 30]]), without, alloc, None).tolist()  # 100 after
    [81]
    """
    half = MAX_NODE_SCORE // 2
    diff = half + balance(requested, allocatable) - balance(allocated, allocatable)
    return half + np.sign(diff) * (np.abs(diff) // 2)


def balance(requested: np.ndarray, allocatable: np.ndarray) -> np.ndarray:
    """int64((1 - std(fractions)) * 100) over the resources each node has (fractions capped at 1).

    With two resources the std is |f1 - f2| / 2, with more the population std, as upstream.

    >>> balance(np.array([[3000], [5 << 30]]), np.array([[4000], [10 << 30]])).tolist()
    [87]
    """
    if allocatable.all():  # the usual case: every node has every scored resource
        frac = np.minimum(requested / allocatable, 1.0)
        if len(frac) == 2:
            std = np.abs((frac[0] - frac[1]) / 2)
        elif len(frac) > 2:
            dev = frac - frac.sum(axis=0) / len(frac)
            std = np.sqrt((dev * dev).sum(axis=0) / len(frac))
        else:
            std = np.zeros(frac.shape[1])
        return np.trunc((1 - std) * float(MAX_NODE_SCORE)).astype(np.int64)
    active = allocatable != 0
    frac = np.minimum(requested / np.where(active, allocatable, 1), 1.0)
    frac = np.where(active, frac, 0.0)
    k = active.sum(axis=0)
    std = np.zeros(requested.shape[1])
    pair = k == 2
    if pair.any():
        order = np.argsort(~active[:, pair], axis=0, kind="stable")[:2]
        f = np.take_along_axis(frac[:, pair], order, axis=0)
        std[pair] = np.abs((f[0] - f[1]) / 2)
    many = k > 2
    if many.any():
        fm, am, km = frac[:, many], active[:, many], k[many]
        mean = fm.sum(axis=0) / km
        dev = np.where(am, fm - mean, 0.0)
        std[many] = np.sqrt((dev * dev).sum(axis=0) / km)
    return np.trunc((1 - std) * float(MAX_NODE_SCORE)).astype(np.int64)


def is_scalar_resource(name: str) -> bool:
    return name not in (CPU, MEMORY, EPHEMERAL_STORAGE)


class ResourceAllocationScorer:
    """``resourceAllocationScorer``: builds the (requested + pod, allocatable) matrices and scores.

    ``use_requested`` False counts containers without requests at the non-zero
    defaults (100m CPU, 200Mi memory) for cpu and memory, as LeastAllocated and
    friends do; BalancedAllocation uses the real requests.
    """

    def __init__(self, resources: list[tuple[str, int]], scorer, *, use_requested: bool):
        self.names = [name for name, _ in resources]
        self._names_key = ("resource_allocation", tuple(self.names))
        self.weights = np.asarray([w for _, w in resources], np.int64)
        self.scorer = scorer
        self.use_requested = use_requested

    def pod_requests(self, pod) -> list[int]:
        reqs = pod_requests(pod, non_missing=None if self.use_requested else DEFAULT_NON_ZERO)
        return [reqs.get(name, 0) for name in self.names]

    def requests_of(self, pod_info) -> list[int]:
        """:meth:`pod_requests`, computed once per pod and kept in its ``cache``."""
        key = (self.use_requested, self._names_key)
        found = pod_info.cache.get(key)
        if found is None:
            if getattr(pod_info, "pod_level_resources", False) and getattr(pod_info, "non_zero_requests", None) is not None:
                # the PodInfo computed both forms when it was made
                reqs = pod_info.requests if self.use_requested else pod_info.non_zero_requests
                found = [reqs.get(name, 0) for name in self.names]
            else:
                found = self.pod_requests(pod_info.pod)
            pod_info.cache[key] = found
        return found

    def _columns(self, snapshot):
        """Where each scored resource lives in ``snapshot``: ((matrix, row) per resource, or None
        when a resource has no column yet), kept until the snapshot gains a resource column."""
        cached = getattr(self, "_column_plan", None)
        if cached is not None and cached[0] is snapshot and cached[1] == len(snapshot.resources):
            return cached[2]
        plan = []
        for name in self.names:
            col = snapshot.res_index.get(name)
            if col is None:
                plan = None
                break
            if not self.use_requested and name in (CPU, MEMORY):
                plan.append((col, "non_zero", 0 if name == CPU else 1))
            else:
                plan.append((col, "requested", col))
        self._column_plan = (snapshot, len(snapshot.resources), plan)
        return plan

    @staticmethod
    def _gather(matrix: np.ndarray, picks: list[int], rows: np.ndarray) -> np.ndarray:
        """``matrix[picks][:, rows]`` (a slice when ``picks`` are consecutive)."""
        first = picks[0]
        if picks == list(range(first, first + len(picks))):
            return matrix[first:first + len(picks)].take(rows, axis=1)
        return matrix.take(rows, axis=1)[picks]

    def _fast_matrices(self, pod_requests: list[int], snapshot, rows: np.ndarray):
        """:meth:`matrices` without DRA when every scored resource has a snapshot column and
        every node has every scored resource the pod asks for; None otherwise."""
        plan = self._columns(snapshot)
        if plan is None or not plan:
            return None
        allocatable = self._gather(snapshot.allocatable, [c for c, _, _ in plan], rows)
        sources = {src for _, src, _ in plan}
        if len(sources) == 1:
            src = sources.pop()
            used = self._gather(snapshot.non_zero if src == "non_zero" else snapshot.requested,
                                [r for _, _, r in plan], rows)
        else:
            used = np.stack([(snapshot.non_zero if src == "non_zero" else snapshot.requested)[r].take(rows)
                             for _, src, r in plan])
        skipped = [i for i, (name, want) in enumerate(zip(self.names, pod_requests))
                   if want == 0 and is_scalar_resource(name)]
        if skipped:
            allocatable[skipped] = 0
            used[skipped] = 0
            live = np.ones(len(plan), bool)
            live[skipped] = False
            if np.count_nonzero(allocatable[live]) != live.sum() * len(rows):
                return None
        elif np.count_nonzero(allocatable) != allocatable.size:
            return None
        want = np.asarray(pod_requests, np.int64)
        requested = used + want[:, None]
        if skipped:
            requested[skipped] = 0
        return requested, used, allocatable

    def matrices(self, pod_requests: list[int], snapshot, rows: np.ndarray, dra=None):
        """(requested with the pod, allocated without it, allocatable), each (resources, nodes).

        ``dra`` (see :func:`dra_extended_totals`) gives, for an extended resource a node does not
        advertise, the devices of the DeviceClass serving it and how many are in use."""
        if dra is None and len(rows):
            fast = self._fast_matrices(pod_requests, snapshot, rows)
            if fast is not None:
                return fast
        n = len(rows)
        requested = np.zeros((len(self.names), n), np.int64)
        allocated = np.zeros((len(self.names), n), np.int64)
        allocatable = np.zeros((len(self.names), n), np.int64)
        for i, (name, want) in enumerate(zip(self.names, pod_requests)):
            col = snapshot.res_index.get(name)
            if want == 0 and is_scalar_resource(name):
                continue
            if dra is not None and is_scalar_resource(name):
                alloc = snapshot.allocatable[col][rows] if col is not None else np.zeros(n, np.int64)
                found = dra(name, rows, alloc == 0)
                if found is not None:
                    total, used = found
                    by_dra = (alloc == 0) & (total > 0)
                    if by_dra.any():
                        plugin_used = snapshot.requested[col][rows] if col is not None else np.zeros(n, np.int64)
                        allocatable[i] = np.where(by_dra, total, alloc)
                        allocated[i] = np.where(by_dra, used, np.where(alloc != 0, plugin_used, 0))
                        requested[i] = np.where(by_dra | (alloc != 0), allocated[i] + want, 0)
                        continue
            if col is None:
                continue
            alloc = snapshot.allocatable[col][rows]
            if not self.use_requested and name in (CPU, MEMORY):
                used = snapshot.non_zero[0 if name == CPU else 1][rows]
            else:
                used = snapshot.requested[col][rows]
            allocatable[i] = alloc
            if np.count_nonzero(alloc) == len(alloc):
                requested[i] = used + want
                allocated[i] = used
            else:
                has = alloc != 0
                requested[i] = np.where(has, used + want, 0)
                allocated[i] = np.where(has, used, 0)
        return requested, allocated, allocatable

    def score(self, pod_requests: list[int], snapshot, rows: np.ndarray, dra=None) -> np.ndarray:
        return self.scorer(*self.matrices(pod_requests, snapshot, rows, dra), self.weights)


def dra_extended_totals(handle, resources: list[str]):
    """With DRAExtendedResource on and some of ``resources`` served by a DeviceClass, a function
    ``(resource, rows, wanted_mask) -> (devices, allocated)`` per node row (upstream's
    ``draPreScoreState`` and ``calculateDRAExtendedResourceAllocatableRequest``); else None."""
    if not any(is_scalar_resource(name) for name in resources):  # only DeviceClasses serve extended ones
        return None
    gates = getattr(handle, "gates", None)
    cluster = getattr(handle, "cluster", None)
    if gates is None or cluster is None or not gates.enabled("DRAExtendedResource"):
        return None
    from kschedlab.dra.devices import as_dict, read_slice
    from kschedlab.dra.extended import class_device_totals
    from kschedlab.dra.manager import dra_manager

    manager = dra_manager(cluster)
    classes = {name: manager.device_class_for(name) for name in resources if is_scalar_resource(name)}
    classes = {name: cls for name, cls in classes.items() if cls is not None}
    if not classes:
        return None
    allocated = manager.allocated_state().allocated_devices
    slices = [read_slice(s) for s in manager.resource_slices()]
    list_types = gates.enabled("DRAListTypeAttributes")
    snapshot = cluster.snapshot
    nodes: dict[int, dict] = {}

    def totals(name: str, rows: np.ndarray, wanted: np.ndarray):
        cls = classes.get(name)
        if cls is None:
            return None
        total = np.zeros(len(rows), np.int64)
        used = np.zeros(len(rows), np.int64)
        for k in np.flatnonzero(wanted):
            row = int(rows[k])
            node = nodes.get(row)
            if node is None:
                node = nodes[row] = as_dict(snapshot.nodes[row])
            total[k], used[k] = class_device_totals(slices, node, cls, allocated, list_types=list_types)
        return total, used

    return totals
