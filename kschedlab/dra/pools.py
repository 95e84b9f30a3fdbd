"""Resource pools visible from one node: complete, incomplete or invalid (upstream ``GatherPools``).

A pool is all slices of one ``(driver, pool)`` with the newest generation. Only
slices that can reach the node are used for devices; slices with shared counters
are always included (their counters are needed whatever the node). A pool whose
slices are not all published yet is *incomplete*; one with duplicate device
names, duplicate counter-set names or counters that do not exist is *invalid*.
Pools with devices that have binding conditions come last so that simpler
devices are preferred.

>>> from kschedlab.dra.devices import read_slice
>>> s = read_slice({"metadata": {"name": "s"}, "spec": {"driver": "d", "nodeName": "n1",
...     "pool": {"name": "p", "generation": 1, "resourceSliceCount": 2},
...     "devices": [{"name": "a"}]}})
>>> [(p.id_str, p.incomplete) for p in gather_pools([s], {"metadata": {"name": "n1"}},
...                                                 partitionable_devices=True)]
[('d/p', True)]
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kschedlab.dra.devices import Slice
from kschedlab.dra.nodeselector import NodeSelectorError, node_matches

__all__ = ["Pool", "gather_pools", "GatherError", "node_candidates"]


class GatherError(ValueError):
    """Node selection of a slice or device could not be evaluated."""


@dataclass(eq=False)
class Pool:
    """One pool as seen from a node."""

    driver: str
    pool: str
    incomplete: bool = False
    invalid: bool = False
    invalid_reason: str = ""
    slices: list[Slice] = field(default_factory=list)
    slices_not_targeting_node: list[Slice] = field(default_factory=list)
    #: counter set name -> counter name -> nanos
    counter_sets: dict[str, dict[str, int]] = field(default_factory=dict)

    @property
    def id_str(self) -> str:
        """``driver/pool``, upstream ``PoolID.String()``."""
        return f"{self.driver}/{self.pool}"


def _matches(node: dict, node_name: str, all_nodes: bool, selector, what: str) -> bool:
    try:
        return node_matches(node, node_name, all_nodes, selector)
    except NodeSelectorError as err:
        raise GatherError(f"failed to perform node selection for {what}: {err}") from None


def _has_binding_conditions(s: Slice) -> bool:
    return any(d.binding_conditions is not None for d in s.devices)


def _add(pools: dict[tuple[str, str], list[Slice]], s: Slice) -> None:
    current = pools.get(s.pool_id)
    if current is None or s.generation > current[0].generation:
        pools[s.pool_id] = [s]
    elif s.generation == current[0].generation:
        current.append(s)


def _invalid(driver: str, pool: str, reason: str) -> Pool:
    return Pool(driver, pool, invalid=True, invalid_reason=reason)


def _validate_consumption(counter_sets: dict[str, dict[str, int]], slices: list[Slice]) -> str:
    for s in slices:
        for d in s.devices:
            for set_name, counters in d.consumes_counters:
                cs = counter_sets.get(set_name)
                if cs is None:
                    return f"counter set {set_name} not found"
                for name in counters:
                    if name not in cs:
                        return f"counter {name} not found in counter set {set_name}"
    return ""


def _build(driver: str, pool: str, slices: list[Slice], partitionable: bool,
           all_slices: list[Slice] | None) -> Pool:
    if partitionable:
        counter_slices = [s for s in slices if s.shared_counters]
        device_slices = [s for s in slices if not s.shared_counters]
    else:
        counter_slices, device_slices = [], slices
    seen: set[str] = set()
    for s in device_slices:
        for d in s.devices:
            if d.name in seen:
                return _invalid(driver, pool, f"duplicate device name {d.name}")
            seen.add(d.name)
    if not partitionable:
        return Pool(driver, pool, slices=device_slices)
    counter_sets: dict[str, dict[str, int]] = {}
    for s in counter_slices:
        for name, counters in s.shared_counters:
            if name in counter_sets:
                return _invalid(driver, pool, f"duplicate counter set name {name}")
            counter_sets[name] = counters
    reason = _validate_consumption(counter_sets, slices)
    if reason:
        return _invalid(driver, pool, reason)
    if all_slices is None or len(slices) == len(all_slices):
        return Pool(driver, pool, slices=device_slices, counter_sets=counter_sets)
    targeting = {s.name for s in slices}
    others = [s for s in all_slices if s.name not in targeting]
    reason = _validate_consumption(counter_sets, others)
    if reason:
        return _invalid(driver, pool, reason)
    return Pool(driver, pool, slices=device_slices, slices_not_targeting_node=others, counter_sets=counter_sets)


def _check_slices_in_pool(slices: list[Slice], pool_id: tuple[str, str], generation: int):
    found = []
    for s in slices:
        if s.pool_id != pool_id:
            continue
        if s.generation == generation:
            found.append(s)
        elif s.generation > generation:
            return True, []
    return False, found


def gather_pools(slices: list[Slice], node: dict, *, partitionable_devices: bool,
                 candidates: list[Slice] | None = None) -> list[Pool]:
    """All pools with devices reachable from ``node``, in first-seen order; pools whose devices
    have binding conditions last. Raises :class:`GatherError` for unparsable node selectors.

    ``candidates`` (default: ``slices``) are the slices looked at for the node, in the order of
    ``slices``: leaving out slices for another ``nodeName`` (see :func:`node_candidates`) gives the
    same pools faster; ``slices`` stays the whole list (an incomplete pool is checked against it)."""
    pools: dict[tuple[str, str], list[Slice]] = {}
    late: list[Slice] = []
    for s in (slices if candidates is None else candidates):
        if not partitionable_devices and (s.per_device_node_selection is not None or s.shared_counters):
            continue
        if s.shared_counters:
            _add(pools, s)
        elif s.node_name or s.all_nodes or s.node_selector is not None:
            if _matches(node, s.node_name, s.all_nodes, s.node_selector, f"slice {s.name}"):
                if _has_binding_conditions(s):
                    late.append(s)
                else:
                    _add(pools, s)
        elif s.per_device_node_selection:
            for d in s.devices:
                if _matches(node, d.node_name, d.all_nodes, d.node_selector,
                            f"device {d.name} in slice {s.name}"):
                    (late.append(s) if _has_binding_conditions(s) else _add(pools, s))
                    break
    for s in late:
        _add(pools, s)

    result: list[Pool] = []
    with_conditions: list[Pool] = []
    for (driver, pool), pool_slices in pools.items():
        first = pool_slices[0]
        if len(pool_slices) == first.slice_count:
            built = _build(driver, pool, pool_slices, partitionable_devices, None)
        else:
            obsolete, all_slices = _check_slices_in_pool(slices, (driver, pool), first.generation)
            if obsolete:
                continue
            if len(all_slices) != first.slice_count:
                result.append(Pool(driver, pool, incomplete=True))
                continue
            built = _build(driver, pool, pool_slices, partitionable_devices, all_slices)
        if any(d.binding_conditions is not None for s in built.slices for d in s.devices):
            with_conditions.append(built)
        else:
            result.append(built)
    return result + with_conditions


def node_candidates(slices: list[Slice]) -> tuple[dict[str, list[int]], list[int]]:
    """Index of ``slices`` for :func:`gather_pools`'s ``candidates``: the positions of slices
    that name one node (``spec.nodeName``, no shared counters) by that name, and the positions
    of all others. A node's candidates are its own positions merged with the others, in order.

    >>> from kschedlab.dra.devices import read_slice
    >>> ss = [read_slice({"metadata": {"name": n}, "spec": {"driver": "d", "nodeName": n,
    ...     "pool": {"name": n, "resourceSliceCount": 1}}}) for n in ("a", "b")]
    >>> ss.append(read_slice({"metadata": {"name": "all"}, "spec": {"driver": "d", "allNodes": True,
    ...     "pool": {"name": "all", "resourceSliceCount": 1}}}))
    >>> node_candidates(ss)
    ({'a': [0], 'b': [1]}, [2])
    """
    by_node: dict[str, list[int]] = {}
    others: list[int] = []
    for i, s in enumerate(slices):
        if s.node_name and not s.shared_counters:
            by_node.setdefault(s.node_name, []).append(i)
        else:
            others.append(i)
    return by_node, others


def searchable_slices(pools: list[Pool]) -> tuple[list[Slice], bool]:
    """The slices the allocator's search walks for a node seeing ``pools`` (those of its complete,
    valid pools, in order), and whether some pool is invalid (the search's failure then names it).

    >>> searchable_slices([Pool("d", "a", slices=["s1"]), Pool("d", "b", incomplete=True, slices=["s2"]),
    ...                    Pool("d", "c", invalid=True, slices=["s3"])])
    (['s1'], True)
    """
    slices: list[Slice] = []
    invalid = False
    for pool in pools:
        if pool.incomplete:
            continue
        if pool.invalid:
            invalid = True
            continue
        slices.extend(pool.slices)
    return slices, invalid
