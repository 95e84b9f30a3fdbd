"""What the structured allocator keeps from one pod to the next (the scheduler's fast path).

Upstream builds a new allocator for each pod and gathers the pools of every node it filters
again (``GatherPools`` per ``Allocate`` call). Which pools a node sees depends only on the
ResourceSlices and the node's name and labels, so an :class:`AllocatorCache` keeps them while
the slices stay the same objects: the DRA manager reads a stored slice once and hands out the
same :class:`~kschedlab.dra.devices.Slice` until that slice is replaced, so a new slice list
with the same objects in the same order gathers the same pools. The CEL results per device
live on the devices themselves (``Device.selector_matches``), for the same reason, and here
per device content (``Allocator._cached_match``: a selector sees only the driver, attributes,
capacity and ``allowMultipleAllocations``, so a device alike to one evaluated before takes its
result). What the screen needs of a claim (``Allocator._shaped_plan``) is kept here too, per
claim shape. Neither depends on the slices: both are kept when they change.

>>> from kschedlab.dra.devices import read_slice
>>> s = read_slice({"metadata": {"name": "s"}, "spec": {"driver": "d", "nodeName": "n1",
...     "pool": {"name": "n1", "generation": 1, "resourceSliceCount": 1}, "devices": [{"name": "a"}]}})
>>> cache = AllocatorCache()
>>> token = cache.use([s])
>>> node = {"metadata": {"name": "n1"}}
>>> cache.pools_for(token, node, partitionable_devices=True) is cache.pools_for(
...     cache.use([s]), node, partitionable_devices=True)
True
>>> cache.stats
{'gathered': 1, 'reused': 1, 'reset': 1}
"""

from __future__ import annotations

from typing import Any

from kschedlab.dra.device_index import DeviceIndex
from kschedlab.dra.devices import Slice
from kschedlab.dra.pools import Pool, gather_pools, node_candidates

__all__ = ["AllocatorCache"]


class AllocatorCache:
    """The pools each node sees, for one list of slices at a time (see the module docstring)."""

    def __init__(self) -> None:
        self._slices: list[Slice] | None = None
        self._token = 0
        #: (node name, labels, partitionable devices) -> pools
        self._pools: dict[tuple, list[Pool]] = {}
        #: ``pools.node_candidates`` of the slices, built on first use
        self._by_node: tuple[dict[str, list[int]], list[int]] | None = None
        #: the devices of the slices as arrays (``DeviceIndex``), built on first use
        self._index: DeviceIndex | None = None
        #: ``Allocator._shaped_plan``'s screen plans by claim shape (they do not depend on the
        #: slices, so they are kept when the slices change)
        self.screen_plans: dict[tuple, tuple[Any, Any]] = {}
        #: ``Allocator._cached_match``'s results by (engine, expressions, device content)
        self.content_matches: dict[tuple, tuple[bool, int]] = {}
        #: pool lists gathered, handed out again, and times the slices changed
        self.stats = {"gathered": 0, "reused": 0, "reset": 0}

    def use(self, slices: list[Slice]) -> int:
        """Start working on ``slices``; returns the token to pass to :meth:`pools_for`. What was
        kept is dropped unless ``slices`` holds the same objects, in the same order, as before."""
        if not self.holds(slices):
            self._slices = list(slices)
            self._pools = {}
            self._by_node = None
            self._index = None
            self._token += 1
            self.stats["reset"] += 1
        return self._token

    def holds(self, slices: list) -> bool:
        """``slices`` are the kept slices: the same objects in the same order (``Slice`` objects
        compare by identity, so a list comparison tests that in C; any other element is unequal
        to a ``Slice``)."""
        return self._slices is not None and self._slices == slices

    def current(self, token: int) -> bool:
        """Whether ``token`` (from :meth:`use`) still names the kept slices."""
        return token == self._token

    def device_index(self, token: int) -> DeviceIndex:
        """The :class:`~kschedlab.dra.device_index.DeviceIndex` of the kept slices (``token`` as
        for :meth:`pools_for`), kept with the pools: its allocated devices are followed from one
        pod to the next."""
        if token != self._token or self._slices is None:
            raise ValueError("AllocatorCache: the slices changed since this token was handed out")
        if self._index is None:
            self._index = DeviceIndex(self._slices)
        return self._index

    def pools_for(self, token: int, node: dict[str, Any], *, partitionable_devices: bool) -> list[Pool]:
        """``gather_pools`` for ``node`` over the kept slices (``token`` from :meth:`use` must be
        :meth:`current`), kept per node name, labels and the partitionable-devices switch. Raises
        :class:`~kschedlab.dra.pools.GatherError` as ``gather_pools`` does (nothing is kept)."""
        if token != self._token or self._slices is None:
            raise ValueError("AllocatorCache: the slices changed since this token was handed out")
        meta = node.get("metadata") or {}
        name = meta.get("name", "")
        labels = meta.get("labels") or {}
        key = (name, tuple(sorted(labels.items())) if labels else (), partitionable_devices)
        pools = self._pools.get(key)
        if pools is not None:
            self.stats["reused"] += 1
            return pools
        slices = self._slices
        if self._by_node is None:
            self._by_node = node_candidates(slices)
        own, others = self._by_node
        mine = own.get(name, [])
        candidates = [slices[i] for i in (sorted(mine + others) if mine and others else mine or others)]
        pools = gather_pools(slices, node, partitionable_devices=partitionable_devices, candidates=candidates)
        self.stats["gathered"] += 1
        self._pools[key] = pools
        return pools
