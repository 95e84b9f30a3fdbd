"""The structured-parameters allocator for one node (upstream ``structured.Allocator``).

Claims are allocated one after the other, each claim's requests in order, and
for each requested device the candidates in pool / slice / device order. A
candidate must be free (or the request has admin access), match the class and
request CEL selectors, reach the node, fit the consumable capacity and shared
counters, have its taints tolerated and keep the claim's constraints. The search
is exhaustive with backtracking: when a later request cannot be satisfied the
last choice is undone and the next candidate tried; a ``firstAvailable`` request
moves on to its next subrequest. The first complete solution wins (no scoring).
``allocationMode: All`` takes every matching device of the pools the node sees,
and fails while one of them is incomplete or invalid. A claim holds at most
``ALLOCATION_RESULTS_MAX_SIZE`` devices.

Behaviour follows upstream's newest ("experimental") implementation, selected
by the features that are on; the feature gates are passed in explicitly
(:class:`DRAFeatures`), by default at their v1.37 values.

Upstream quirks kept on purpose (each noted where it happens): counters taken by
a candidate that is then refused for a taint, a constraint or capacity are not
returned, nor are its constraint entries and in-use mark when the second capacity
check refuses it; shared devices (``allowMultipleAllocations``) never give counters
back on rollback; the per-pool counter cache is keyed by pool name only.
Device taints come from the slices as given: applying DeviceTaintRules is the
caller's business (the scheduler plugin does it upstream).

>>> classes = [{"metadata": {"name": "gpu"}, "spec": {}}]
>>> slices = [{"metadata": {"name": "s"}, "spec": {"driver": "gpu.example.com", "nodeName": "n1",
...     "pool": {"name": "n1", "generation": 1, "resourceSliceCount": 1},
...     "devices": [{"name": "gpu-0"}, {"name": "gpu-1"}]}}]
>>> claim = {"metadata": {"name": "c"}, "spec": {"devices": {"requests": [{"name": "g",
...     "exactly": {"deviceClassName": "gpu", "allocationMode": "ExactCount", "count": 1}}]}}}
>>> alloc = Allocator(DRAFeatures(), AllocatedState(allocated_devices={("gpu.example.com", "n1", "gpu-0")}),
...                   classes, slices)
>>> [r["device"] for r in alloc.allocate({"metadata": {"name": "n1"}}, [claim])[0]["devices"]["results"]]
['gpu-1']
"""

from __future__ import annotations

import hashlib
import itertools
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping

import numpy as np

from kschedlab.dra.allocator_cache import AllocatorCache
from kschedlab.dra.constraints import UnsupportedAttribute, make_constraint
from kschedlab.dra.consumable_capacity import CapacityUndefined, consumed_from_request, request_fits
from kschedlab.dra.device_index import DeviceIndex, combined_match, selector_result_kept
from kschedlab.dra.device_index import node_dicts as _node_dicts
from kschedlab.dra.devices import (
    Claim,
    Device,
    DeviceID,
    Request,
    Slice,
    as_dict,
    device_id_str,
    read_claim,
    read_slice,
    tolerates,
)
from kschedlab.dra.nodeselector import NodeSelectorError, allocation_node_selector, node_matches
from kschedlab.dra.pools import GatherError, Pool, gather_pools, node_candidates, searchable_slices
from kschedlab.dra.trace import AllocationTrace

__all__ = ["ALLOCATION_RESULTS_MAX_SIZE", "DRAFeatures", "AllocatedState", "Allocator", "AllocationError",
           "FailedAllocationOnNode", "allocate", "ALLOCATOR_GATES", "UNDECIDED", "Screened"]

#: :meth:`Screened.answer` for a node only the search can answer
UNDECIDED = object()
#: the message of :class:`FailedAllocationOnNode`
INVALID_POOLS = "invalid resource pools were encountered"

#: ``resourceapi.AllocationResultsMaxSize``: devices in one claim's allocation
ALLOCATION_RESULTS_MAX_SIZE = 32

#: at most this many nodes to screen afresh are walked device by device in Python (numpy's cost
#: per operation is more than the walk of a few nodes); more go through the arrays at once
SCREEN_WALK_NODES = 16

#: the feature gates the allocator looks at
ALLOCATOR_GATES = ("DRAAdminAccess", "DRAPrioritizedList", "DRAPartitionableDevices", "DRADeviceTaints",
                   "DRADeviceBindingConditions", "DRAResourceClaimDeviceStatus", "DRAConsumableCapacity",
                   "DRAListTypeAttributes")


class AllocationError(Exception):
    """Allocation cannot be attempted (bad claim, class, selector or slice); upstream's error return."""


class FailedAllocationOnNode(AllocationError):
    """Nothing fit on this node and some pool was invalid (upstream ``ErrFailedAllocationOnNode``):
    the error only concerns this node."""


def _gate_defaults() -> dict[str, bool]:
    from kschedlab.features import DEFAULTS_V1_37

    return {g: DEFAULTS_V1_37[g][0] for g in ALLOCATOR_GATES}


@dataclass(frozen=True)
class DRAFeatures:
    """The allocator's feature switches (upstream ``structured.Features``), v1.37 defaults.

    >>> DRAFeatures.from_gates({"DRADeviceTaints": False}).device_taints
    False
    >>> DRAFeatures().consumable_capacity, DRAFeatures().list_type_attributes
    (True, False)
    """

    admin_access: bool = True
    prioritized_list: bool = True
    partitionable_devices: bool = True
    device_taints: bool = True
    device_binding_and_status: bool = True
    consumable_capacity: bool = True
    #: ``DRAListTypeAttributes`` (alpha): list-typed attributes in selectors and constraints
    list_type_attributes: bool = False

    @classmethod
    def from_gates(cls, gates: Mapping[str, bool] | Any = None) -> "DRAFeatures":
        """From gate names (a mapping, or a ``FeatureGates``); missing gates take v1.37 defaults.
        Device binding needs both ``DRADeviceBindingConditions`` and ``DRAResourceClaimDeviceStatus``,
        as in the scheduler plugin."""
        values = _gate_defaults()
        if gates is not None:
            if hasattr(gates, "enabled"):
                values = {g: gates.enabled(g) for g in ALLOCATOR_GATES}
            else:
                unknown = set(gates) - set(values) - _other_gates()
                if unknown:
                    raise ValueError(f"unknown feature gate(s): {', '.join(sorted(unknown))}")
                values.update({k: bool(v) for k, v in gates.items() if k in values})
        return cls(
            admin_access=values["DRAAdminAccess"],
            prioritized_list=values["DRAPrioritizedList"],
            partitionable_devices=values["DRAPartitionableDevices"],
            device_taints=values["DRADeviceTaints"],
            device_binding_and_status=values["DRADeviceBindingConditions"] and values["DRAResourceClaimDeviceStatus"],
            consumable_capacity=values["DRAConsumableCapacity"],
            list_type_attributes=values["DRAListTypeAttributes"],
        )


def _other_gates() -> set[str]:
    from kschedlab.features import DEFAULTS_V1_37

    return set(DEFAULTS_V1_37)


@dataclass
class AllocatedState:
    """Devices already allocated to other claims (upstream ``AllocatedState``).

    ``allocated_devices``: ids of devices held exclusively; ``aggregated_capacity``: for shared
    (multi-allocatable) devices, the capacity already consumed per capacity name (quantities).
    ``delta`` (optional, from the DRA manager): ``(base, token, added, removed)``: ``token``
    names this state, and unless ``base`` is None, ``allocated_devices`` are those of the state
    named ``base`` plus ``added`` minus ``removed``, so that device arrays follow it without
    comparing whole sets. Do not change ``allocated_devices`` of a state with a delta.
    """

    allocated_devices: set[DeviceID] = field(default_factory=set)
    aggregated_capacity: dict[DeviceID, dict[str, Any]] = field(default_factory=dict)
    delta: tuple | None = None

    def capacity_nanos(self) -> dict[DeviceID, dict[str, int]]:
        """``aggregated_capacity`` in nano-units."""
        if not self.aggregated_capacity:  # (no shared allocation: every pod's allocator asks)
            return {}
        from kschedlab.api.quantity import Quantity

        return {dev: {n: Quantity(q).nanos for n, q in caps.items()}
                for dev, caps in self.aggregated_capacity.items()}


class _MaxSizeExceeded(Exception):
    """Internal: the claim would exceed ``ALLOCATION_RESULTS_MAX_SIZE`` (aggressive backtracking)."""


@dataclass(eq=False)
class _RequestData:
    request: Request
    is_sub: bool
    cls: dict | None = None
    num_devices: int = 0
    all_devices: list[tuple[Device, Slice, Pool]] | None = None
    selected_sub: int = 0


@dataclass(eq=False)
class _Result:
    request: Request
    device: Device
    slice: Slice
    share_id: str | None = None
    consumed: dict | None = None


def _default_view(d: Device, list_types: bool = False):
    from kschedlab.dra import cel

    return cel.DeviceView(d.id[0], d.attributes, {name: c.value for name, c in d.capacity.items()},
                          d.allow_multiple_allocations, list_types=list_types)


def _list_view(d: Device):
    return _default_view(d, list_types=True)


#: the views whose selector results depend on :func:`_device_content` only
_DEFAULT_VIEWS = (_default_view, _list_view)
#: selector results kept per device content (``Allocator._cached_match``), at most this many
_CONTENT_MATCHES_LIMIT = 1 << 14


def _device_content(d: Device) -> tuple:
    """What the default device view shows a selector of ``d``: its driver, attributes, capacity
    values and ``allowMultipleAllocations`` (as text: equal text is equal values of the same types).

    >>> from kschedlab.dra.devices import read_slice
    >>> s = read_slice({"metadata": {"name": "s"}, "spec": {"driver": "d", "nodeName": "n1",
    ...     "pool": {"name": "n1", "resourceSliceCount": 1}, "devices": [
    ...     {"name": "a", "attributes": {"m": {"int": 1}}}, {"name": "b", "attributes": {"m": {"int": 1}}},
    ...     {"name": "c", "attributes": {"m": {"bool": True}}}]}})
    >>> a, b, c = (_device_content(d) for d in s.devices)
    >>> a == b, a == c
    (True, False)
    """
    return (d.id[0], d.allow_multiple_allocations, repr(d.attributes),
            repr([(name, c.value) for name, c in d.capacity.items()]))


def _default_cel(list_types: bool = False):
    """The CEL engine's compile function and device view for the ``DRAListTypeAttributes`` gate
    (the same function objects every time: devices keep their selector results by engine)."""
    from kschedlab.dra import cel  # provided by the CEL module of this package

    if list_types:
        return _compile_with_lists, _list_view
    return cel.compile_selector, _default_view


def _compile_with_lists(expression: str):
    from kschedlab.dra import cel

    return cel.compile_selector(expression, list_types=True)


def _taint_prevents(device: Device, request: Request) -> dict | None:
    for taint in device.taints:
        if taint.get("effect") in ("NoSchedule", "NoExecute"):
            if not any(tolerates(t, taint) for t in request.tolerations or ()):
                return taint
    return None


def share_id_for(claim: str, request: str, device: str, index: int) -> str:
    """The ``shareID`` of one share of a device: a UUID as upstream's, but derived from the
    claim, request, device and the result's position instead of drawn at random, so the same
    run gives the same IDs.

    >>> share_id_for("default/c", "nic", "net/pool/eth1", 0) == share_id_for("default/c", "nic", "net/pool/eth1", 0)
    True
    >>> len(share_id_for("default/c", "nic", "net/pool/eth1", 1))
    36
    """
    digest = hashlib.sha256(f"{claim}\0{request}\0{device}\0{index}".encode()).digest()
    return str(uuid.UUID(bytes=digest[:16], version=4))


def _search_calls_without_devices(claims: list[Claim]) -> int:
    """How many ``_allocate_one`` calls the search makes when no device is free, or 0 when that
    is not known without searching. Known when every request (and subrequest) asks for an
    ``ExactCount`` (preparing such claims does not depend on the node: an ``All`` request looks
    at the node's devices) and every alternative of the first request asks for at least one
    device without admin access (each then finds every device in use, or exceeds the result
    limit, and fails at once): one call, plus one per alternative of a ``firstAvailable``."""
    if not claims or not claims[0].requests:
        return 0
    for claim in claims:
        for _name, _is_list, alternatives in claim.requests:
            if any(r.mode != "ExactCount" for r in alternatives):
                return 0
    _name, is_list, first = claims[0].requests[0]
    if any(r.count < 1 or r.admin_access for r in first):
        return 0
    return 1 + (len(first) if is_list else 0)


def _expressions(selectors: list[dict]) -> tuple[str, ...]:
    return tuple(((x.get("cel") or {}).get("expression") or "") for x in selectors)


class Allocator:
    """Allocates claims on one node at a time; reusable across nodes (caches survive calls).

    ``classes``: DeviceClasses (dicts or models), ``slices``: ResourceSlices. ``compile_selector``
    / ``make_view`` replace the CEL engine (default: :mod:`kschedlab.dra.cel`). ``cache`` (an
    :class:`~kschedlab.dra.allocator_cache.AllocatorCache`) keeps the pools of each node for the
    next allocator over the same slice objects. Selector results are kept on the devices, per
    CEL engine and selector list, so parsed slices reused by later allocators are not evaluated
    again.
    """

    def __init__(self, features: DRAFeatures | None, allocated: AllocatedState | None,
                 classes: Iterable[Any], slices: Iterable[Any], *,
                 compile_selector: Callable[[str], Any] | None = None,
                 make_view: Callable[[Device], Any] | None = None,
                 cache: AllocatorCache | None = None) -> None:
        self.features = features or DRAFeatures()
        self.allocated = allocated or AllocatedState()
        self._allocated_nanos = self.allocated.capacity_nanos()
        self.classes: dict[str, dict] = {}
        for c in classes:
            c = as_dict(c)
            self.classes.setdefault((c.get("metadata") or {}).get("name", ""), c)
        slices = list(slices)
        # (read slices, as the DRA manager hands them out, are checked without a Python-level loop;
        # the cache's own slices at once: ``Slice`` compares by identity, so ``==`` is an identity
        # test of every element in C)
        self.slices: list[Slice] = slices if (cache is not None and cache.holds(slices)) or all(
            map(isinstance, slices, itertools.repeat(Slice))) else [
            s if isinstance(s, Slice) else read_slice(s) for s in slices]
        # the CEL engine is looked up on first use, so allocations without selectors need none
        self._compile_fn = compile_selector
        self._make_view = make_view
        self._compiled: dict[str, Any] = {}
        #: class name -> its selector expressions (the key of the per-device CEL results)
        self._class_exprs: dict[str, tuple[str, ...]] = {}
        #: pool name -> available counters (upstream keys this by pool name only)
        self._available_counters: dict[str, dict[str, dict[str, int]]] = {}
        #: (node name, labels) -> pools seen from that node (slices do not change for an Allocator)
        self._pools: dict[tuple, list[Pool]] = {}
        #: slices by the node they name, and the rest (``pools.node_candidates``), built on first use
        self._by_node: tuple[dict[str, list[int]], list[int]] | None = None
        self._cache = cache
        self._cache_token = cache.use(self.slices) if cache is not None else 0
        #: claims (by the ids of the :class:`Claim` objects, kept in ``_plan_claims``) that prepared
        #: without error -> ``_allocate_one`` calls of a search finding no free device, 0 when not
        #: known without searching (see :meth:`allocate`)
        self._plans: dict[tuple[int, ...], int] = {}
        self._plan_claims: list[list[Claim]] = []
        #: claims (by the ids of the Claim objects, kept in ``_screen_claims``) -> what
        #: :meth:`screen` needs of them (``_ScreenPlan``), None when it cannot answer for them
        self._screens: dict[tuple[int, ...], _ScreenPlan | None] = {}
        self._screen_claims: list[list[Claim]] = []
        #: the plans by claim shape when there is no cache (see :meth:`_shaped_plan`)
        self._shape_plans: dict[tuple, tuple[dict | None, _ScreenPlan | None]] = {}
        #: the device arrays when there is no cache (built on first use)
        self._index: DeviceIndex | None = None
        #: selector results by device content (see :meth:`_cached_match`)
        self._content_matches: dict[tuple, tuple[bool, int]] = \
            cache.content_matches if cache is not None else {}
        #: statistics: ``allocate_one`` invocations, CEL evaluations
        self.stats = {"allocate_one": 0, "cel_evaluations": 0}

    def pools_for(self, node: dict) -> list[Pool]:
        """The pools ``node`` sees (upstream ``GatherPools``), cached per node name and labels."""
        cache = self._cache
        if cache is not None and cache.current(self._cache_token):
            try:
                return cache.pools_for(self._cache_token, node,
                                       partitionable_devices=self.features.partitionable_devices)
            except GatherError as err:
                raise AllocationError(f"gather pool information: {err}") from None
        meta = node.get("metadata") or {}
        key = (meta.get("name", ""), tuple(sorted((meta.get("labels") or {}).items())))
        pools = self._pools.get(key)
        if pools is None:
            if self._by_node is None:
                self._by_node = node_candidates(self.slices)
            own, others = self._by_node
            mine = own.get(meta.get("name", ""), [])
            candidates = [self.slices[i] for i in (sorted(mine + others) if mine and others else mine or others)]
            try:
                pools = gather_pools(self.slices, node, partitionable_devices=self.features.partitionable_devices,
                                     candidates=candidates)
            except GatherError as err:
                raise AllocationError(f"gather pool information: {err}") from None
            self._pools[key] = pools
        return pools

    # ------------------------------------------------------------------ CEL
    def _engine(self) -> None:
        if self._compile_fn is None or self._make_view is None:
            default_compile, default_view = _default_cel(self.features.list_type_attributes)
            self._compile_fn = self._compile_fn or default_compile
            self._make_view = self._make_view or default_view

    def _compile(self, expression: str):
        hit = self._compiled.get(expression)
        if hit is None:
            self._engine()
            try:
                hit = (self._compile_fn(expression), None)  # type: ignore[misc]
            except Exception as err:  # the CEL engine's compile error, reported as upstream does
                hit = (None, err)
            self._compiled[expression] = hit
        return hit

    def _view(self, device: Device):
        view = device.view
        if view is None or getattr(view, "list_types", False) is not self.features.list_type_attributes:
            self._engine()
            view = device.view = self._make_view(device)  # type: ignore[misc]
        return view

    def _cached_match(self, exprs: tuple[str, ...], selectors: list[dict], device: Device, where: str) -> bool:
        """Whether ``selectors`` (with expressions ``exprs``) all match ``device``: evaluated once
        per device, engine and expressions, the result kept on the device (errors are not kept)."""
        if self._compile_fn is None:
            self._engine()
        key = (self._compile_fn, exprs)
        found = device.selector_matches
        if found is None:
            found = device.selector_matches = {}
        else:
            ok = found.get(key)
            if ok is not None:
                return ok
        content = _device_content(device) if self._make_view in _DEFAULT_VIEWS else None
        if content is None:
            ok = self._selectors_match(selectors, device, where)
        else:
            # a device alike to one evaluated before (same driver, attributes, capacity values and
            # allowMultipleAllocations: all the default view shows a selector) takes its result; the
            # statistics count the evaluations it took there, as evaluating this device would
            hit = self._content_matches.get((key, content))
            if hit is not None:
                ok, evaluations = hit
                self.stats["cel_evaluations"] += evaluations
            else:
                before = self.stats["cel_evaluations"]
                ok = self._selectors_match(selectors, device, where)
                if len(self._content_matches) >= _CONTENT_MATCHES_LIMIT:
                    self._content_matches.clear()
                self._content_matches[(key, content)] = (ok, self.stats["cel_evaluations"] - before)
        found[key] = ok
        selector_result_kept(device)
        return ok

    def _selectors_match(self, selectors: list[dict], device: Device, where: str) -> bool:
        for i, sel in enumerate(selectors):
            expr = ((sel.get("cel") or {}).get("expression")) or ""
            compiled, err = self._compile(expr)
            if err is not None:
                raise AllocationError(f"{where}: selector #{i}: CEL compile error: {err}")
            self.stats["cel_evaluations"] += 1
            try:
                ok = compiled.matches(self._view(device))
            except Exception as err:  # runtime errors of the CEL engine
                raise AllocationError(f"{where}: selector #{i}: CEL runtime error: {err}") from None
            if not ok:
                return False
        return True

    # ------------------------------------------------------------- allocate
    def allocate(self, node: Any, claims: Iterable[Any], *, trace: AllocationTrace | None = None
                 ) -> list[dict] | None:
        """Allocate all ``claims`` for ``node``: one ``AllocationResult`` dict per claim, or ``None``
        when they do not fit. Raises :class:`AllocationError` for problems with the input.

        Without a trace, a node none of whose devices is free is answered without the search
        when these claims were prepared before (see :meth:`_nothing_free`)."""
        node = as_dict(node)
        claims = [c if isinstance(c, Claim) else read_claim(c) for c in claims]
        return self._allocate(node, claims, trace)

    def _allocate(self, node: dict, claims: list[Claim], trace: AllocationTrace | None, deferred: bool = False):
        pools = None
        if trace is None and self._plans:
            calls = self._plans.get(tuple(map(id, claims)))
            if calls:
                pools = self.pools_for(node)
                nothing_free, invalid = self._nothing_free(pools)
                if nothing_free:
                    self.stats["allocate_one"] += calls
                    if invalid:
                        raise FailedAllocationOnNode(INVALID_POOLS)
                    return None
        run = _Run(self, node, claims, trace)
        result = run.run(pools, deferred)
        if trace is None and run.prepared:
            key = tuple(map(id, claims))
            if key not in self._plans:  # 0: these claims always need the search
                self._plans[key] = _search_calls_without_devices(claims)
                self._plan_claims.append(claims)
        return result

    def allocate_deferred(self, node: Any, claims: Iterable[Any]) -> Callable[[], list[dict]] | None:
        """As :meth:`allocate` (no trace), but the ``AllocationResult`` dicts are built when the
        returned function is called: a scheduler filtering many nodes keeps one of them. They are
        built at once when building may fail (a device not bound to the node, whose selector is
        merged), so errors surface here as in :meth:`allocate`.

        >>> slices = [{"metadata": {"name": "s"}, "spec": {"driver": "d", "nodeName": "n1",
        ...     "pool": {"name": "n1", "generation": 1, "resourceSliceCount": 1}, "devices": [{"name": "a"}]}}]
        >>> claim = {"metadata": {"name": "c"}, "spec": {"devices": {"requests": [{"name": "r",
        ...     "exactly": {"deviceClassName": "x", "allocationMode": "ExactCount", "count": 1}}]}}}
        >>> a = Allocator(None, None, [{"metadata": {"name": "x"}}], slices)
        >>> build = a.allocate_deferred({"metadata": {"name": "n1"}}, [claim])
        >>> build() == a.allocate({"metadata": {"name": "n1"}}, [claim])
        True
        """
        node = as_dict(node)
        claims = [c if isinstance(c, Claim) else read_claim(c) for c in claims]
        return self._allocate(node, claims, None, deferred=True)

    def screen(self, nodes: list[Any], claims: list[Any]) -> "Screened":
        """Answer :meth:`allocate_deferred` for many nodes at once where that needs no search
        (:class:`Screened`: per node a kind, FIT with a function building the allocation,
        NO_FIT, INVALID (:class:`FailedAllocationOnNode`) or UNDECIDED: the caller runs
        :meth:`allocate_deferred` there). The ``allocate_one`` statistics count what the search
        would have made on the nodes answered.

        Answered only for one claim with one ``ExactCount`` request (no admin access, capacity
        or constraints) that prepares without error, and no shared allocations: the search then
        walks the node's devices in order and takes the first ``count`` free devices its
        selectors match, without backtracking unless fewer are there. A node is answered when
        every free device before the last one taken (or, when too few fit, every free device)
        is *simple* (:func:`~kschedlab.dra.device_index.simple_device`) with its selector
        results already known; the building function runs the search on that node. Node dicts
        are recognised by identity (with the same name and labels) from one call to the next (and
        so is the list of them: one handed in again must hold what it held),
        and a node's answer is kept for the next call with the same selectors and count until
        one of its devices is allocated, freed or gets a selector result
        (:meth:`DeviceIndex.kept_answers`).

        >>> slices = [{"metadata": {"name": n}, "spec": {"driver": "d", "nodeName": n,
        ...     "pool": {"name": n, "generation": 1, "resourceSliceCount": 1}, "devices": [{"name": "a"}]}}
        ...     for n in ("n1", "n2")]
        >>> claim = read_claim({"metadata": {"name": "c"}, "spec": {"devices": {"requests": [{"name": "r",
        ...     "exactly": {"deviceClassName": "x", "allocationMode": "ExactCount", "count": 1}}]}}})
        >>> a = Allocator(None, AllocatedState({("d", "n2", "a")}), [{"metadata": {"name": "x"}}], slices)
        >>> found = a.screen([{"metadata": {"name": "n1"}}, {"metadata": {"name": "n2"}}], [claim])
        >>> found.kinds.tolist(), found.builder(0)()[0]["devices"]["results"][0]["device"], a.stats["allocate_one"]
        ([0, 1], 'a', 5)
        """
        claims = [c if isinstance(c, Claim) else read_claim(c) for c in claims]
        n = len(nodes)
        plan = self._screen_plan(claims)
        if plan is None or not n or self.allocated.aggregated_capacity:
            return Screened(self, _node_dicts(nodes), claims, np.full(n, Screened.UNDECIDED, dtype=np.int8),
                            lambda k: None)
        index = self._device_index()
        nodes = index.dict_list(nodes)  # (a list screened before holds dicts: not looked at again)
        index.set_allocated(self.allocated.allocated_devices, self.allocated.delta)
        slots = index.slots(nodes, self.features.partitionable_devices, self.pools_for)
        # a node's answer is kept per screen until one of its devices changes (DeviceIndex)
        key = (plan.key, plan.count)
        kept_kinds, kept_calls = index.kept_answers(key)
        kinds = kept_kinds[slots]
        calls = kept_calls[slots]
        todo = np.flatnonzero(kinds < 0)
        if len(todo):
            fresh = slots[todo]
            if len(fresh) <= SCREEN_WALK_NODES:
                found_kinds, found_calls = self._walk_slots(plan, index, fresh.tolist())
            else:
                found_kinds, found_taken = self._screen_slots(plan, index, fresh)
                found_calls = _search_calls(plan.count, found_kinds, found_taken)
            kinds[todo] = found_kinds
            calls[todo] = found_calls
            answered = found_kinds != Screened.UNDECIDED
            index.keep_answers(key, fresh[answered], found_kinds[answered], found_calls[answered])
        self.stats["allocate_one"] += int(calls.sum())
        pools = index.slot_pools
        return Screened(self, nodes, claims, kinds, lambda k: pools[int(slots[k])],
                        picks=lambda k: self._picked(plan, index, int(slots[k])))

    def _walk_slots(self, plan: "_ScreenPlan", index: DeviceIndex, slots: list[int]
                    ) -> tuple[np.ndarray, np.ndarray]:
        """What :meth:`_screen_slots` finds for ``slots``, walking each node's devices in turn:
        the same rounds of evaluations (every node's first stop that is due, in the order of
        the nodes), the same kinds; with the search's calls per node (:func:`_search_calls`)."""
        n = len(slots)
        kinds = np.full(n, Screened.UNDECIDED, dtype=np.int8)
        calls = np.zeros(n, dtype=np.int64)
        allocated, simple, devices = index.allocated, index.simple, index.devices
        combine = plan.combine
        walks = [index.slot_walk(slot) if slot >= 0 else None for slot in slots]
        stuck: set[int] = set()  # positions where an evaluation raised: left to the search
        todo = [k for k in range(n) if walks[k] is not None]
        while todo:
            match = index.matches(plan.key, combine, _NO_POSITIONS)
            due: list[tuple[int, int]] = []
            for k in todo:
                positions, invalid = walks[k]  # type: ignore[misc]
                picked, stop = 0, -1
                for p in positions:
                    if allocated[p]:
                        continue
                    if not simple[p]:
                        stop = p
                        break
                    m = match[p]
                    if m == -2:  # never read: read it from the device's kept results
                        m = match[p] = combine(devices[p])
                    if m == 1:
                        picked += 1
                    elif m < 0:
                        stop = p
                        break
                if picked >= plan.count:
                    kinds[k] = Screened.FIT
                    calls[k] = plan.count + 3
                elif stop < 0:
                    kinds[k] = Screened.INVALID if invalid else Screened.NO_FIT
                    calls[k] = 1 << picked
                elif simple[stop] and stop not in stuck:
                    due.append((k, stop))
            todo = []
            for k, p in due:
                if self._evaluate_screened(plan, devices[p]):
                    todo.append(k)
                else:
                    stuck.add(p)
        return kinds, calls

    def _screen_slots(self, plan: "_ScreenPlan", index: DeviceIndex, slots: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray]:
        """The screen's kind per slot (FIT, NO_FIT, INVALID, UNDECIDED) and the devices the
        search's greedy path takes there, from the index's arrays; a node's first stop that the
        search would evaluate next is evaluated here (see :meth:`screen`)."""
        n = len(slots)
        flat, lengths, invalid = index.gather(slots)
        gathered = slots >= 0
        free = ~index.allocated[flat]
        free_simple = free & index.simple[flat]
        free_other = free & ~free_simple  # a free device only the search can judge
        # per node: the devices taken before the first device only the search can judge
        segment = np.repeat(np.arange(n), lengths)
        starts = np.cumsum(lengths) - lengths
        has = lengths > 0
        stuck: set[int] = set()  # positions where an evaluation raised: left to the search
        free_at = flat[free]
        while True:
            match = index.matches(plan.key, plan.combine, free_at)[flat]
            pick = free_simple & (match == 1)
            stop = free_other | (free_simple & (match < 0))  # (a free device's match is -1, 0 or 1)
            stops_before = np.cumsum(stop) - stop
            first = np.zeros(n, dtype=np.int64)
            first[has] = stops_before[starts[has]]
            clean = stops_before == first[segment]
            taken = np.bincount(segment[pick & clean], minlength=n)
            # a node's first stop that is a simple device not evaluated yet, on a node that still
            # needs devices there: the search evaluates its selectors next, so they are evaluated
            # here (once per device, kept on it as the search keeps them) and the node looked at again
            firsts = np.flatnonzero(stop & clean)  # (at most one per node)
            at = segment[firsts]
            due = firsts[free_simple[firsts] & (taken[at] < plan.count) & gathered[at]].tolist()
            if stuck:
                due = [p for p in due if p not in stuck]
            if not due:
                break
            for p in due:
                if not self._evaluate_screened(plan, index.devices[int(flat[p])]):
                    stuck.add(p)
        stops = np.bincount(segment[stop], minlength=n)
        fit = gathered & (taken >= plan.count)
        no_fit = gathered & ~fit & (stops == 0)
        kinds = np.full(n, Screened.UNDECIDED, dtype=np.int8)
        kinds[fit] = Screened.FIT
        kinds[no_fit & ~invalid] = Screened.NO_FIT
        kinds[no_fit & invalid] = Screened.INVALID
        return kinds, taken.astype(np.int64)

    def _picked(self, plan: "_ScreenPlan", index: DeviceIndex, slot: int) -> list[int] | None:
        """The positions of the devices the search takes on a FIT node (its greedy path: the
        first ``count`` free devices matching the selectors, all simple), free as this
        allocator's allocated devices say; None when that is not known there any more (the
        slices or the kept results changed: the search is run)."""
        if slot < 0 or self._device_index() is not index:
            return None
        allocated = self.allocated.allocated_devices
        simple, devices = index.simple, index.devices
        match = index.matches(plan.key, plan.combine, _NO_POSITIONS)
        picked: list[int] = []
        taken: set[DeviceID] = set()
        for p in index.slot_walk(slot)[0]:
            device = devices[p]
            if device.id in allocated:
                continue
            if not simple[p] or device.id in taken:
                return None
            m = match[p]
            if m == -2:
                m = match[p] = plan.combine(device)
            if m == 1:
                picked.append(p)
                taken.add(device.id)
                if len(picked) == plan.count:
                    return picked
            elif m < 0:
                return None
        return None

    def _picked_results(self, node: dict, claims: list[Claim], index: DeviceIndex, picked: list[int]
                        ) -> list[dict]:
        """The allocation the search builds when it took the devices at ``picked`` for the one
        request of ``claims`` (prepared without error by the screen's plan)."""
        run = _Run(self, node, claims, None)
        # (the request data ``_prepare_claim`` gives the one ExactCount request the plan prepared)
        request = claims[0].requests[0][2][0]
        run.request_data[(0, 0, 0)] = _RequestData(request=request, is_sub=False,
                                                    cls=self.classes.get(request.class_name), num_devices=request.count)
        run.results[0] = [_Result(request=request, device=index.devices[p], slice=index.slice_of(p)) for p in picked]
        return run._build_results()

    def _evaluate_screened(self, plan: "_ScreenPlan", device: Device) -> bool:
        """Evaluate the class selectors, then (when they match) the request's, on ``device`` as
        the search does (``_Run._unselectable``), keeping the results on it. False when an
        evaluation raised: the search raises it again on that node (the statistics are put back,
        so that they count its evaluations once)."""
        stats = dict(self.stats)
        try:
            if self._cached_match(plan.class_exprs, plan.class_selectors, device, f"class {plan.class_name}") \
                    and plan.request_selectors:
                self._cached_match(_expressions(plan.request_selectors), plan.request_selectors, device,
                                   f"claim {plan.claim}")
        except AllocationError:
            self.stats.update(stats)
            return False
        return True

    def _device_index(self) -> DeviceIndex:
        cache = self._cache
        if cache is not None and cache.current(self._cache_token):
            return cache.device_index(self._cache_token)
        if self._index is None:
            self._index = DeviceIndex(self.slices)
        return self._index

    def _screen_plan(self, claims: list[Claim]) -> "_ScreenPlan | None":
        """What :meth:`screen` needs of ``claims`` (None when it cannot answer for them), worked
        out once per claim list."""
        key = tuple(map(id, claims))
        if key in self._screens:
            return self._screens[key]
        plan = None
        if len(claims) == 1 and len(claims[0].requests) == 1 and not claims[0].constraints:
            _name, is_list, alternatives = claims[0].requests[0]
            req = alternatives[0]
            if (not is_list and req.mode == "ExactCount" and 1 <= req.count <= ALLOCATION_RESULTS_MAX_SIZE
                    and not req.admin_access and not req.has_capacity):
                plan = self._shaped_plan(claims, req)
        self._screens[key] = plan
        self._screen_claims.append(claims)
        return plan

    def _shaped_plan(self, claims: list[Claim], req: Request) -> "_ScreenPlan | None":
        """:meth:`_screen_plan` for a claim whose one request ``req`` the screen may answer: the
        plan depends on the claim only through the request's fields below, the class it names
        (held, compared by identity), the features and the CEL engine, so it is kept per such
        shape (in the allocator cache: across allocators) and only the claim's name is its own."""
        self._engine()
        cls = self.classes.get(req.class_name)
        shape = (self.features, self._compile_fn, self._make_view, req.name, req.class_name, req.count,
                 req.has_admin_access, _expressions(req.selectors), tuple(bool(x.get("cel")) for x in req.selectors))
        store = self._cache.screen_plans if self._cache is not None else self._shape_plans
        hit = store.get(shape)
        if hit is not None and hit[0] is cls:
            return None if hit[1] is None else hit[1].for_claim(claims[0].kobj)
        plan = self._new_screen_plan(claims, req)
        if len(store) >= _SHAPE_PLANS_LIMIT:
            del store[next(iter(store))]
        store[shape] = (cls, plan)
        return plan

    def _new_screen_plan(self, claims: list[Claim], req: Request) -> "_ScreenPlan | None":
        run = _Run(self, {}, claims, None)
        try:
            run._prepare_claim(0, claims[0])
        except AllocationError:  # the search raises it on every node
            return None
        cls = run.request_data[(0, 0, 0)].cls or {}
        class_sels = (cls.get("spec") or {}).get("selectors") or []
        class_key = (self._compile_fn, _expressions(class_sels)) if class_sels else None
        request_key = (self._compile_fn, _expressions(req.selectors)) if req.selectors else None
        cname = (cls.get("metadata") or {}).get("name", "")
        class_exprs = self._class_exprs.get(cname)
        if class_exprs is None:
            class_exprs = self._class_exprs[cname] = _expressions(class_sels)
        return _ScreenPlan(count=req.count, key=(class_key, request_key),
                           combine=combined_match(class_key, request_key), class_name=cname,
                           class_exprs=class_exprs, class_selectors=class_sels,
                           request_selectors=req.selectors or [], claim=claims[0].kobj)

    def _nothing_free(self, pools: list[Pool]) -> tuple[bool, bool]:
        """(No device of the node's complete, valid pools is free, some pool is invalid). With
        nothing free the search would try each device of the first request, find it in use and
        fail, without evaluating anything or raising (see :func:`_search_calls_without_devices`);
        its failure then names invalid pools."""
        allocated = self.allocated.allocated_devices
        slices, invalid = searchable_slices(pools)
        nothing_free = all(d.id in allocated for sl in slices for d in sl.devices)
        return nothing_free, invalid


_NO_POSITIONS = np.zeros(0, dtype=np.int64)
#: screen plans kept per claim shape (:meth:`Allocator._shaped_plan`)
_SHAPE_PLANS_LIMIT = 256


def _search_calls(count: int, kinds: np.ndarray, taken: np.ndarray) -> np.ndarray:
    """The ``allocate_one`` calls the search makes on each screened node (``kinds``, with the
    devices its greedy path took): ``count + 3`` on a fit, every subset of the ``taken`` devices
    where too few fit (NO_FIT, INVALID), none counted where the search itself runs (UNDECIDED).

    >>> _search_calls(2, np.array([0, 1, 2, 3], dtype=np.int8), np.array([2, 1, 0, 5])).tolist()
    [5, 2, 1, 0]
    """
    no_fit = (kinds == Screened.NO_FIT) | (kinds == Screened.INVALID)
    return np.where(kinds == Screened.FIT, count + 3, np.where(no_fit, np.left_shift(np.int64(1), taken), 0))


class Screened:
    """:meth:`Allocator.screen`'s answers: ``kinds`` per node (FIT, NO_FIT, INVALID, UNDECIDED).

    :meth:`builder` gives a FIT node's function building its allocation, :meth:`answer` what
    :meth:`Allocator.allocate_deferred` would give (a builder, None, a
    :class:`FailedAllocationOnNode` to raise) or :data:`UNDECIDED`."""

    FIT, NO_FIT, INVALID, UNDECIDED = 0, 1, 2, 3

    def __init__(self, allocator: Allocator, nodes: list[dict], claims: list[Claim], kinds: np.ndarray,
                 pools: Callable[[int], list[Pool] | None],
                 picks: Callable[[int], list[int] | None] | None = None) -> None:
        self.allocator = allocator
        self.nodes = nodes
        self.claims = claims
        self.kinds = kinds
        self._pools = pools
        self._picks = picks

    def builder(self, k: int) -> Callable[[], list[dict]]:
        """The function building the allocation on FIT node ``k``: from the devices the
        search's greedy path takes there (read again when it runs), or the search on that node
        when they are not known (its calls were counted by the screen)."""
        if self.kinds[k] != Screened.FIT:
            raise ValueError(f"node #{k} is not a fit")
        a, node, claims, pools = self.allocator, self.nodes[k], self.claims, self._pools(k)
        picks = self._picks

        def build() -> list[dict]:
            picked = picks(k) if picks is not None else None
            if picked is not None:
                return a._picked_results(node, claims, a._device_index(), picked)
            calls = a.stats["allocate_one"]
            try:
                results = _Run(a, node, claims, None).run(pools)
            finally:
                a.stats["allocate_one"] = calls
            if results is None:  # the allocated state was changed in place since screening
                raise AllocationError("the allocated devices changed since the node was screened")
            return results

        return build

    def answer(self, k: int) -> Any:
        """Node ``k``'s answer as :meth:`Allocator.allocate_deferred` gives it, or UNDECIDED."""
        kind = self.kinds[k]
        if kind == Screened.FIT:
            return self.builder(k)
        if kind == Screened.NO_FIT:
            return None
        if kind == Screened.INVALID:
            return FailedAllocationOnNode(INVALID_POOLS)
        return UNDECIDED


@dataclass(frozen=True)
class _ScreenPlan:
    """:meth:`Allocator.screen`'s view of a claim list: devices to take, the key of the match
    array (class and request selector keys) and how to read a device's kept results."""

    count: int
    key: tuple
    combine: Callable[[Device], int]
    #: what the search evaluates on a device (``_Run._unselectable``), and the names in its errors
    class_name: str
    class_exprs: tuple[str, ...]
    class_selectors: list[dict]
    request_selectors: list[dict]
    claim: str

    def for_claim(self, claim: str) -> "_ScreenPlan":
        """This plan for the claim named ``claim`` (``dataclasses.replace`` without its field
        loop: every other field is this plan's own)."""
        plan = object.__new__(_ScreenPlan)
        plan.__dict__.update(self.__dict__, claim=claim)
        return plan


class _Run:
    """One ``Allocate`` call (upstream's internal ``allocator``)."""

    def __init__(self, owner: Allocator, node: dict, claims: list[Claim], trace: AllocationTrace | None):
        self.a = owner
        self.f = owner.features
        self.node = node
        self.node_name = (node.get("metadata") or {}).get("name", "")
        self.claims = claims
        self.trace = trace
        self.request_data: dict[tuple[int, int, int], _RequestData] = {}
        self.constraints: list[list[Any]] = []
        self.results: list[list[_Result]] = [[] for _ in claims]
        self.allocating: dict[DeviceID, set[int]] = {}
        self.allocating_capacity: dict[DeviceID, dict[str, int]] = {}
        self.consumed_counters: dict[str, dict[str, dict[str, int]]] = {}
        self.match_cache: dict[tuple[DeviceID, int, int, int], str | None] = {}
        self.pools: list[Pool] = []
        self.depth = 0
        #: every claim was prepared without error
        self.prepared = False

    # -------------------------------------------------------------- tracing
    def _t(self, action: str, ci: int = -1, rd: _RequestData | None = None, device: DeviceID | None = None,
           reason: str = "", detail: str = "") -> None:
        assert self.trace is not None
        self.trace.add(action, claim=self.claims[ci].kobj if ci >= 0 else "",
                       request=rd.request.full_name if rd else "",
                       device=device_id_str(device) if device else "", reason=reason, detail=detail,
                       depth=self.depth)

    # ---------------------------------------------------------------- setup
    def run(self, pools: list[Pool] | None = None, deferred: bool = False):
        """The allocation (``pools``: the node's, when already gathered); ``deferred``: a function
        building it (see :meth:`Allocator.allocate_deferred`)."""
        self.pools = self.a.pools_for(self.node) if pools is None else pools
        if self.trace is not None:
            for p in self.pools:
                state = "incomplete" if p.incomplete else ("invalid: " + p.invalid_reason if p.invalid else "complete")
                self.trace.add("pool", device=p.id_str, detail=state)
        for ci, claim in enumerate(self.claims):
            self._prepare_claim(ci, claim)
        self.prepared = True
        try:
            done = self._allocate_one(0, 0, 0, 0, False)
        except _MaxSizeExceeded:  # cannot escape the claim boundary; kept for safety
            done = False
        if not done:
            if self.trace is not None:
                self.trace.add("result", detail="no solution")
            if any(p.invalid for p in self.pools):
                raise FailedAllocationOnNode(INVALID_POOLS)
            return None
        if self.trace is not None:
            self.trace.add("result", detail="allocated")
        if deferred and all(not results or self._node_local(results[0]) for results in self.results):
            return self._build_results
        results = self._build_results()
        return (lambda: results) if deferred else results

    def _build_results(self) -> list[dict]:
        return [self._allocation_result(ci, claim) for ci, claim in enumerate(self.claims)]

    @staticmethod
    def _node_local(r: _Result) -> bool:
        """The device pins the allocation to the node (its placement, as ``_allocation_result``
        hands it to ``allocation_node_selector``, which then cannot fail)."""
        if r.slice.per_device_node_selection:
            return bool(r.device.node_name or r.device.binds_to_node)
        return bool(r.slice.node_name or r.device.binds_to_node)

    def _prepare_claim(self, ci: int, claim: Claim) -> None:
        f = self.f
        min_devices = 0
        for ri, (name, is_list, alternatives) in enumerate(claim.requests):
            if not f.prioritized_list and is_list:
                raise AllocationError(
                    f"claim {claim.kobj}, request {name}: has subrequests, but the DRAPrioritizedList feature is disabled")
            if not f.consumable_capacity:
                if not is_list and alternatives[0].has_capacity:
                    raise AllocationError(f"claim {claim.kobj}, request {name}: has capacity requests, "
                                          "but the DRAConsumableCapacity feature is disabled")
                for sub in alternatives if is_list else ():
                    if sub.has_capacity:
                        raise AllocationError(f"claim {claim.kobj}, subrequest {sub.name}: has capacity requests, "
                                              "but the DRAConsumableCapacity feature is disabled")
            lowest = None
            for si, req in enumerate(alternatives):
                rd = self._validate_request(ci, ri, si, req, is_list)
                self.request_data[(ci, ri, si)] = rd
                lowest = rd.num_devices if lowest is None else min(lowest, rd.num_devices)
            min_devices += lowest or 0
        if min_devices > ALLOCATION_RESULTS_MAX_SIZE:
            raise AllocationError(f"claim {claim.kobj}: number of requested devices {min_devices} "
                                  f"exceeds the claim limit of {ALLOCATION_RESULTS_MAX_SIZE}")
        constraints = []
        for i, c in enumerate(claim.constraints):
            if c.match_attribute:
                constraints.append(make_constraint("matchAttribute", c.requests, c.match_attribute,
                                                   f.list_type_attributes))
            elif c.distinct_attribute:
                constraints.append(make_constraint("distinctAttribute", c.requests, c.distinct_attribute,
                                                   f.list_type_attributes))
            else:
                raise AllocationError(f"claim {claim.kobj}, constraint #{i}: empty constraint (unsupported constraint type?)")
        self.constraints.append(constraints)

    def _validate_request(self, ci: int, ri: int, si: int, req: Request, is_sub: bool) -> _RequestData:
        claim = self.claims[ci]
        rd = _RequestData(request=req, is_sub=is_sub)
        for i, sel in enumerate(req.selectors):
            if not (sel.get("cel") or None):
                raise AllocationError(f"claim {claim.kobj}, request {req.name}, selector #{i}: "
                                      "CEL expression empty (unsupported selector type?)")
        if not self.f.admin_access and req.has_admin_access:
            raise AllocationError(f"claim {claim.kobj}, request {req.name}: admin access is requested, "
                                  "but the feature is disabled")
        if not req.class_name:
            raise AllocationError(f"claim {claim.kobj}, request {req.name}: missing device class name "
                                  "(unsupported request type?)")
        cls = self.a.classes.get(req.class_name)
        if cls is None:
            raise AllocationError(f"claim {claim.kobj}, request {req.name}: could not retrieve device class "
                                  f"{req.class_name}: deviceclass.resource.k8s.io \"{req.class_name}\" not found")
        rd.cls = cls
        if req.mode == "ExactCount":
            rd.num_devices = req.count
        elif req.mode == "All":
            rd.all_devices = []
            for pool in self.pools:
                if pool.incomplete:
                    raise AllocationError(f"claim {claim.kobj}, request {req.name}: asks for all devices, "
                                          f"but resource pool {pool.id_str} is currently being updated")
                if pool.invalid:
                    raise AllocationError(f"claim {claim.kobj}, request {req.name}: asks for all devices, "
                                          f"but resource pool {pool.id_str} is currently invalid")
                for s in pool.slices:
                    for d in s.devices:
                        reason = self._unselectable(ci, ri, si, rd, s, d)
                        if reason is None and self.f.consumable_capacity:
                            reason = self._capacity_reason(rd.request, d)
                        if reason is not None:
                            if self.trace is not None:
                                self._t("reject", ci, rd, d.id, reason, "allocationMode All")
                            continue
                        rd.all_devices.append((d, s, pool))
            rd.num_devices = len(rd.all_devices)
        else:
            raise AllocationError(f"claim {claim.kobj}, request {req.name}: unsupported count mode {req.mode}")
        return rd

    # ----------------------------------------------------------- selection
    def _unselectable(self, ci: int, ri: int, si: int, rd: _RequestData, s: Slice, d: Device) -> str | None:
        """``None`` when the device matches class and request selectors and reaches the node,
        else the reason. Cached per device and (sub)request; CEL results also across calls."""
        if not self.f.device_binding_and_status and d.binding_conditions:
            return "binding conditions disabled"
        key = (d.id, ci, ri, si)
        if key in self.match_cache:
            return self.match_cache[key]
        reason = None
        cls = rd.cls or {}
        cname = (cls.get("metadata") or {}).get("name", "")
        a = self.a
        class_sels = (cls.get("spec") or {}).get("selectors") or []
        exprs = a._class_exprs.get(cname)
        if exprs is None:
            exprs = a._class_exprs[cname] = _expressions(class_sels)
        if not a._cached_match(exprs, class_sels, d, f"class {cname}"):
            reason = "class selector false"
        else:
            sels = rd.request.selectors
            if sels:
                if not a._cached_match(_expressions(sels), sels, d, f"claim {self.claims[ci].kobj}"):
                    reason = "selector false"
            if reason is None and s.per_device_node_selection:
                try:
                    if not node_matches(self.node, d.node_name, d.all_nodes, d.node_selector):
                        reason = "node selection"
                except NodeSelectorError as err:
                    raise AllocationError(f"failed to parse node selector: {err}") from None
        self.match_cache[key] = reason
        return reason

    def _capacity_reason(self, req: Request, d: Device) -> str | None:
        if not req.capacity_requests and not d.capacity_policies and d.id not in self.allocating_capacity \
                and d.id not in self.a._allocated_nanos:
            return None  # every capacity is taken whole and nothing else uses the device: it fits
        try:
            fits = request_fits(self._allocated_capacity(d.id), req.capacity_requests, d.capacity,
                                self.allocating_capacity.get(d.id, {}))
        except CapacityUndefined:
            return "capacity undefined"
        return None if fits else "capacity"

    def _allocated_capacity(self, dev: DeviceID) -> dict[str, int]:
        return self.a._allocated_nanos.get(dev, {})

    def _in_use(self, dev: DeviceID) -> bool:
        return dev in self.a.allocated.allocated_devices or bool(self.allocating.get(dev))

    def _capacity_in_use(self, dev: DeviceID) -> bool:
        return dev in self.a._allocated_nanos or dev in self.allocating_capacity

    # -------------------------------------------------------------- search
    def _allocate_one(self, ci: int, ri: int, si: int, di: int, allocate_sub: bool,
                      start: tuple[int, int, int] = (0, 0, 0)) -> bool:
        """Find a device for device ``di`` of (sub)request ``si`` of request ``ri`` of claim ``ci``,
        then recurse. ``start`` is the (pool, slice, device) position where candidates begin: the
        devices of one request are chosen as combinations, in increasing position, so that the
        same set is not tried in every order (a shared device may be picked again)."""
        self.a.stats["allocate_one"] += 1
        if ci >= len(self.claims):
            return True
        claim = self.claims[ci]
        if ri >= len(claim.requests):
            try:
                return self._allocate_one(ci + 1, 0, 0, 0, False)
            except _MaxSizeExceeded:
                return False
        rd = self.request_data[(ci, ri, si)]
        tr = self.trace
        if not allocate_sub and rd.is_sub:
            all_exceeded = True
            sub = 0
            while (ci, ri, sub) in self.request_data:
                if tr is not None:
                    self._t("subrequest", ci, self.request_data[(ci, ri, sub)],
                            detail=f"firstAvailable alternative #{sub}")
                try:
                    ok = self._allocate_one(ci, ri, sub, di, True)
                except _MaxSizeExceeded:
                    if tr is not None:
                        self._t("backtrack", ci, self.request_data[(ci, ri, sub)], reason="max size exceeded")
                    sub += 1
                    continue
                all_exceeded = False
                if ok:
                    rd.selected_sub = sub
                    return True
                if tr is not None:
                    self._t("backtrack", ci, self.request_data[(ci, ri, sub)], detail="next alternative")
                sub += 1
            if all_exceeded:
                raise _MaxSizeExceeded()
            return False

        req = rd.request
        do_all = req.mode == "All"
        if do_all and not rd.all_devices:
            if tr is not None:
                self._t("backtrack", ci, rd, detail="allocationMode All: no devices")
            return False
        if di >= rd.num_devices:
            return self._allocate_one(ci, ri + 1, 0, 0, False)
        if len(self.results[ci]) + rd.num_devices - di > ALLOCATION_RESULTS_MAX_SIZE:
            raise _MaxSizeExceeded()

        if do_all:
            d, s, pool = rd.all_devices[di]  # type: ignore[index]
            ok, undo = self._allocate_device(ci, ri, si, rd, d, s, pool, must=True)
            if not ok:
                return False
            self.depth += 1
            try:
                done = self._allocate_one(ci, ri, si, di + 1, allocate_sub)
            except BaseException:
                self.depth -= 1
                undo()
                raise
            self.depth -= 1
            if not done:
                undo()
            return done

        f = self.f
        admin = req.admin_access
        pools = self.pools
        allocated = self.a.allocated.allocated_devices
        allocating = self.allocating
        p0, s0, d0 = start
        for pi in range(p0, len(pools)):
            pool = pools[pi]
            if pool.incomplete or pool.invalid:
                continue
            slices = pool.slices
            for sj in range(s0 if pi == p0 else 0, len(slices)):
                s = slices[sj]
                devices = s.devices
                for dk in range(d0 if (pi == p0 and sj == s0) else 0, len(devices)):
                    d = devices[dk]
                    dev = d.id
                    if tr is not None:
                        self._t("try", ci, rd, dev)
                    if admin:
                        if ci in self.allocating.get(dev, ()):
                            if tr is not None:
                                self._t("reject", ci, rd, dev, "in use in same claim")
                            continue
                    elif dev in allocated or allocating.get(dev):  # _in_use, inlined
                        if tr is not None:
                            self._t("reject", ci, rd, dev, "already allocated")
                        continue
                    reason = self._unselectable(ci, ri, si, rd, s, d)
                    if reason is None and f.consumable_capacity:
                        reason = self._capacity_reason(req, d)
                    if reason is not None:
                        if tr is not None:
                            self._t("reject", ci, rd, dev, reason)
                        continue
                    ok, undo = self._allocate_device(ci, ri, si, rd, d, s, pool, must=False)
                    if not ok:
                        continue
                    again = f.consumable_capacity and d.allow_multiple_allocations is True
                    self.depth += 1
                    try:
                        done = self._allocate_one(ci, ri, si, di + 1, allocate_sub,
                                                  (pi, sj, dk if again else dk + 1))
                    except BaseException:
                        self.depth -= 1
                        undo()
                        raise
                    self.depth -= 1
                    if done:
                        return True
                    undo()
        if tr is not None:
            self._t("backtrack", ci, rd, detail=f"no device left for device #{di} of the request")
        return False

    def _allocate_device(self, ci: int, ri: int, si: int, rd: _RequestData, d: Device, s: Slice, pool: Pool,
                         must: bool):
        f = self.f
        tr = self.trace
        req = rd.request
        dev = d.id
        shared = f.consumable_capacity and d.allow_multiple_allocations is True
        if not shared and req.admin_access and ci in self.allocating.get(dev, ()):
            if tr is not None:
                self._t("reject", ci, rd, dev, "in use in same claim")
            return False, None
        if not req.admin_access and self._in_use(dev):
            if tr is not None:
                self._t("reject", ci, rd, dev, "already allocated")
            return False, None
        if not f.partitionable_devices and d.consumes_counters:
            if tr is not None:
                self._t("reject", ci, rd, dev, "partitionable devices disabled")
            return False, None
        skip_counters = shared and self._capacity_in_use(dev)
        if not skip_counters and d.consumes_counters:
            if not self._take_counters(d, pool):
                if tr is not None:
                    self._t("reject", ci, rd, dev, "counters")
                return False, None
        parent = req.parent
        base, sub = (parent, req.name) if parent else (req.name, "")
        if f.device_taints:
            taint = _taint_prevents(d, req)
            if taint is not None:
                # upstream leaves counters taken above in place here
                if tr is not None:
                    self._t("reject", ci, rd, dev, "taint", f"{taint.get('key')}={taint.get('value', '')}:"
                                                           f"{taint.get('effect')}")
                return False, None
        constraints = self.constraints[ci]
        for i, c in enumerate(constraints):
            try:
                added = c.add(base, sub, d.attributes, dev)
            except UnsupportedAttribute as err:
                raise AllocationError(f"claim {self.claims[ci].kobj}, request {req.name}: {err}") from None
            if not added:
                if must:
                    raise AllocationError(f"claim {self.claims[ci].kobj}, request {req.name}: cannot add device "
                                          f"{device_id_str(dev)} because a claim constraint would not be satisfied")
                for e in range(i):
                    constraints[e].remove(base, sub)
                if tr is not None:
                    self._t("reject", ci, rd, dev, "constraint", c.describe())
                return False, None
        users = self.allocating.setdefault(dev, set())
        if not shared:
            users.add(ci)
        consumed: dict | None = None
        share_id = None
        if f.consumable_capacity:
            reason = self._capacity_reason(req, d)
            if reason is not None:
                # upstream returns here without undoing the constraints and the in-use mark
                if tr is not None:
                    self._t("reject", ci, rd, dev, reason)
                return False, None
            if shared:
                consumed = consumed_from_request(req.capacity_requests, d.capacity)
                share_id = share_id_for(self.claims[ci].kobj, req.name, device_id_str(dev), len(self.results[ci]))
                acc = self.allocating_capacity.setdefault(dev, {})
                for n, q in consumed.items():
                    acc[n] = acc.get(n, 0) + q.nanos
        result = _Result(request=req, device=d, slice=s, share_id=share_id, consumed=consumed or None)
        results = self.results[ci]
        results.append(result)
        n_before = len(results) - 1
        if tr is not None:
            self._t("allocate", ci, rd, dev)

        def undo() -> None:
            for c in constraints:
                c.remove(base, sub)
            self.allocating[dev].discard(ci)
            if shared:
                if result.consumed:
                    acc = self.allocating_capacity[dev]
                    for n, q in result.consumed.items():
                        acc[n] -= q.nanos
            elif f.partitionable_devices and d.consumes_counters:
                self._return_counters(d, pool)
            del results[n_before:]
            if tr is not None:
                self._t("deallocate", ci, rd, dev, detail="backtrack")

        return True, undo

    # ------------------------------------------------------------- counters
    def _available(self, pool: Pool) -> dict[str, dict[str, int]]:
        avail = self.a._available_counters.get(pool.pool)
        if avail is None:
            avail = {name: dict(counters) for name, counters in pool.counter_sets.items()}
            allocated = self.a.allocated.allocated_devices
            for s in pool.slices + pool.slices_not_targeting_node:
                for d in s.devices:
                    if d.id not in allocated:
                        continue
                    for set_name, counters in d.consumes_counters:
                        cs = avail.get(set_name)
                        if cs is None:
                            continue
                        for n, v in counters.items():
                            if n in cs:
                                cs[n] -= v
            self.a._available_counters[pool.pool] = avail
        return avail

    def _take_counters(self, d: Device, pool: Pool) -> bool:
        avail = self._available(pool)
        used = self.consumed_counters.setdefault(pool.pool, {})
        for set_name, counters in d.consumes_counters:
            cs = used.setdefault(set_name, {})
            for n, v in counters.items():
                cs[n] = cs.get(n, 0) + v
        for set_name, counters in avail.items():
            cs = used.get(set_name, {})
            for n, v in counters.items():
                if v < cs.get(n, 0):
                    self._return_counters(d, pool)
                    return False
        return True

    def _return_counters(self, d: Device, pool: Pool) -> None:
        used = self.consumed_counters.get(pool.pool, {})
        for set_name, counters in d.consumes_counters:
            cs = used.setdefault(set_name, {})
            for n, v in counters.items():
                cs[n] = cs.get(n, 0) - v

    # --------------------------------------------------------------- result
    def _allocation_result(self, ci: int, claim: Claim) -> dict:
        results = []
        for r in self.results[ci]:
            item: dict[str, Any] = {"request": r.request.full_name, "driver": r.device.id[0],
                                    "pool": r.device.id[1], "device": r.device.id[2]}
            if r.request.admin_access:
                item["adminAccess"] = True
            if r.request.tolerations:
                item["tolerations"] = list(r.request.tolerations)
            if self.f.device_binding_and_status:
                if r.device.binding_conditions is not None:
                    item["bindingConditions"] = list(r.device.binding_conditions)
                if r.device.binding_failure_conditions is not None:
                    item["bindingFailureConditions"] = list(r.device.binding_failure_conditions)
            if r.share_id is not None:
                item["shareID"] = r.share_id
            if r.consumed:
                item["consumedCapacity"] = {n: str(q) for n, q in r.consumed.items()}
            results.append(item)
        devices: dict[str, Any] = {"results": results}
        config = self._configs(ci, claim)
        if config:
            devices["config"] = config
        placements = []
        for r in self.results[ci]:
            if r.slice.per_device_node_selection:
                placements.append((r.device.node_name, r.device.binds_to_node, r.device.node_selector))
            else:
                placements.append((r.slice.node_name, r.device.binds_to_node, r.slice.node_selector))
        try:
            selector = allocation_node_selector(placements, self.node_name)
        except NodeSelectorError as err:
            raise AllocationError(f"create NodeSelector for claim {claim.name}: {err}") from None
        out: dict[str, Any] = {"devices": devices}
        if selector is not None:
            out["nodeSelector"] = selector
        return out

    def _configs(self, ci: int, claim: Claim) -> list[dict]:
        config: list[dict] = []
        class_ranges: dict[str, tuple[int, int]] = {}
        for ri, (_name, is_list, _alts) in enumerate(claim.requests):
            rd = self.request_data[(ci, ri, 0)]
            if is_list:
                rd = self.request_data[(ci, ri, rd.selected_sub)]
            cls = rd.cls
            if cls is None:
                continue
            cname = (cls.get("metadata") or {}).get("name", "")
            rng = class_ranges.get(cname)
            if rng is not None:
                for i in range(*rng):
                    config[i]["requests"].append(rd.request.full_name)
                continue
            start = len(config)
            for c in (cls.get("spec") or {}).get("config") or []:
                entry = {"source": "FromClass", "requests": [rd.request.full_name]}
                entry.update({k: v for k, v in c.items() if k not in ("source", "requests")})
                config.append(entry)
            class_ranges[cname] = (start, len(config))
        for c in claim.config:
            wanted = c.get("requests") or []
            body = {k: v for k, v in c.items() if k != "requests"}
            if not wanted:
                config.append({"source": "FromClaim", **body})
                continue
            for ri, (name, is_list, alts) in enumerate(claim.requests):
                if name in wanted:
                    config.append({"source": "FromClaim", "requests": list(wanted), **body})
                    continue
                if not is_list:
                    continue
                sub = alts[self.request_data[(ci, ri, 0)].selected_sub]
                if f"{name}/{sub.name}" in wanted:
                    config.append({"source": "FromClaim", "requests": list(wanted), **body})
        return config


def allocate(node: Any, claims: Iterable[Any], classes: Iterable[Any], slices: Iterable[Any], *,
             features: DRAFeatures | None = None, allocated: AllocatedState | None = None,
             trace: AllocationTrace | None = None) -> list[dict] | None:
    """One-shot helper: build an :class:`Allocator` and allocate ``claims`` on ``node``."""
    return Allocator(features, allocated, classes, slices).allocate(node, claims, trace=trace)
