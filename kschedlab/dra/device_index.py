"""Every device of one slice list as numpy arrays, so that many nodes are screened at once.

The allocator's search looks at each node on its own: for each candidate device in pool /
slice / device order it asks whether the device is free, matches the selectors and passes the
other checks. For a claim set that asks for ``count`` devices of one request, the search's
first path is the greedy one (the first ``count`` free devices that fit, in that order), so
its outcome on a node follows from three facts per device: free or allocated, selectors
matched or not (known from earlier evaluations), and whether the device is *simple* (nothing
but its selectors can refuse it: no counters, no NoSchedule / NoExecute taint, not shared, no
capacity policy, no binding conditions, no per-device node selection, bound to the node).
A :class:`DeviceIndex` keeps those facts for every device of a slice list:

- ``allocated``: a bool per device position, followed from one allocated set to the next by
  the manager's delta or their difference (:meth:`DeviceIndex.set_allocated`), not rebuilt;
- the positions of the devices each node's search walks through (its complete, valid pools),
  kept per node dict as a *slot* and gathered for many nodes at once (:meth:`DeviceIndex.slots`,
  :meth:`DeviceIndex.gather`);
- per (CEL engine, class selectors, request selectors): -1 (not evaluated yet), 0 or 1 per
  device, read from the devices' kept selector results, again only for devices that got a
  result since (:meth:`DeviceIndex.matches`, :func:`selector_result_kept`);
- per screen (selector keys and device count) the answer last found for each slot and the
  search's calls it stands for (:meth:`DeviceIndex.kept_answers`): a node's answer follows from
  its own devices' allocated bits and match entries only, so it is kept until one of its
  devices is allocated or freed (:meth:`DeviceIndex.set_allocated`) or gets a selector result
  (the log), and the screen works out only the nodes whose answer was dropped.

:meth:`kschedlab.dra.allocator.Allocator.screen` uses it; ``tests/dra_bench`` checks it
against the search.

>>> from kschedlab.dra.devices import read_slice
>>> s = read_slice({"metadata": {"name": "s"}, "spec": {"driver": "d", "nodeName": "n1",
...     "pool": {"name": "n1", "generation": 1, "resourceSliceCount": 1},
...     "devices": [{"name": "a"}, {"name": "b"}]}})
>>> index = DeviceIndex([s])
>>> index.set_allocated({("d", "n1", "a")})
>>> index.allocated.tolist(), index.simple.tolist()
([True, False], [True, True])
>>> index.set_allocated({("d", "n1", "b")}); index.allocated.tolist()
[False, True]
"""

from __future__ import annotations

import itertools
from typing import Any, Callable

import numpy as np

from kschedlab.dra.devices import Device, DeviceID, Slice, as_dict
from kschedlab.dra.pools import Pool, searchable_slices

__all__ = ["DeviceIndex", "simple_device", "combined_match", "selector_result_kept", "node_dicts"]

#: the devices (by ``id``) that had a selector result kept, in order (any allocator), so that a
#: match array reads again only those; cleared past ``_LOG_LIMIT`` entries (the epoch moves on
#: and every index then reads all its unknown entries again)
_KEPT_LOG: list[int] = []
_LOG_LIMIT = 1 << 16
#: node slots kept by one index before they are dropped (node dicts handed in anew each time)
_SLOT_LIMIT = 1 << 16
#: node chunks whose slots one index keeps (:meth:`DeviceIndex.slots`)
_CHUNK_LIMIT = 1024
_EPOCH = [0]
#: up to this many slots, :meth:`DeviceIndex._forget` drops their answers one at a time
_FORGET_ONE_BY_ONE = 8


def node_dicts(nodes: list[Any]) -> list[dict]:
    """``nodes`` as dicts (node dicts, as a scheduler hands them, pass without a loop)."""
    if set(map(type, nodes)) - {dict}:
        return [n if type(n) is dict else as_dict(n) for n in nodes]
    return nodes


def selector_result_kept(device: Device) -> None:
    """Note that a selector result was kept on ``device`` (``Device.selector_matches``), so
    the match arrays' unknown entries for it are worth reading again."""
    if len(_KEPT_LOG) >= _LOG_LIMIT:
        _KEPT_LOG.clear()
        _EPOCH[0] += 1
    _KEPT_LOG.append(id(device))


def simple_device(s: Slice, d: Device) -> bool:
    """Only selectors (and being free) decide whether the search takes ``d`` of slice ``s``, and
    its allocation result cannot fail to build (the device pins the allocation to its node).

    >>> from kschedlab.dra.devices import read_slice
    >>> s = read_slice({"metadata": {"name": "s"}, "spec": {"driver": "d", "nodeName": "n1",
    ...     "pool": {"name": "n1", "resourceSliceCount": 1}, "devices": [{"name": "a"},
    ...     {"name": "b", "taints": [{"key": "k", "effect": "NoSchedule"}]}]}})
    >>> [simple_device(s, d) for d in s.devices]
    [True, False]
    """
    return (not d.consumes_counters and d.allow_multiple_allocations is not True and not d.capacity_policies
            and d.binding_conditions is None and not s.per_device_node_selection
            and bool(s.node_name or d.binds_to_node)
            and not any(t.get("effect") in ("NoSchedule", "NoExecute") for t in d.taints))


class DeviceIndex:
    """Arrays over the devices of ``slices``, in slice order (see the module docstring)."""

    #: the slot arrays as numpy, rebuilt when slots were added (set by ``_reset_slots``)
    _slot_arrays: tuple[np.ndarray, np.ndarray, np.ndarray] | None

    def __init__(self, slices: list[Slice]) -> None:
        self.devices: list[Device] = []
        #: id(slice) -> (slice, position of its first device)
        self._offsets: dict[int, tuple[Slice, int]] = {}
        simple = []
        #: position -> its slice
        self._slice_at: list[Slice] = []
        for s in slices:
            self._offsets[id(s)] = (s, len(self.devices))
            for d in s.devices:
                self.devices.append(d)
                self._slice_at.append(s)
                simple.append(simple_device(s, d))
        #: device id -> its positions (an id may repeat across slices)
        self.positions: dict[DeviceID, list[int]] = {}
        for i, d in enumerate(self.devices):
            self.positions.setdefault(d.id, []).append(i)
        self.simple = np.array(simple, dtype=bool)
        self.allocated = np.zeros(len(self.devices), dtype=bool)
        #: the devices ``allocated`` says are allocated, and the token of the state they came from
        self._ids: set[DeviceID] = set()
        self._token: Any = None
        #: id(pools) -> (pools, positions, some pool invalid)
        self._nodes: dict[int, tuple[list[Pool], np.ndarray, bool]] = {}
        #: (engine, class expressions, request expressions) -> int8 per device: -1 unknown, 0, 1
        self._matches: dict[tuple, np.ndarray] = {}
        self._reset_slots()
        #: id(device) -> position, for the devices named in the kept-results log
        self._by_id: dict[int, int] = {id(d): i for i, d in enumerate(self.devices)}
        #: how far the log was read (epoch, length), and the positions read again since, per key
        self._log_read = (_EPOCH[0], len(_KEPT_LOG))
        self._dirty: dict[tuple, set[int] | None] = {}
        #: id -> the lists of node dicts ``Allocator.screen`` took (known to hold dicts only: a
        #: list handed in is not changed afterwards, as the dicts in it are not; held, so that
        #: their ids stay their own), at most ``_CHUNK_LIMIT`` of them
        self.dict_lists: dict[int, list[dict]] = {}

    def dict_list(self, nodes: list) -> list[dict]:
        """``nodes`` as node dicts (:func:`node_dicts`), a list taken before as it is.

        >>> index = DeviceIndex([])
        >>> nodes = [{"metadata": {"name": "n1"}}]
        >>> index.dict_list(nodes) is nodes, index.dict_list(nodes) is nodes
        (True, True)
        """
        lists = self.dict_lists
        found = lists.get(id(nodes))
        if found is nodes:
            return found
        found = node_dicts(nodes)
        if len(lists) >= _CHUNK_LIMIT:
            del lists[next(iter(lists))]
        lists[id(found)] = found
        return found

    def set_allocated(self, ids: set[DeviceID] | frozenset, delta: tuple | None = None) -> None:
        """Make ``allocated`` say which devices are in ``ids``, changing the differences only.
        With a ``delta`` (``AllocatedState.delta``) whose base is the state set last, only its
        added and removed devices are looked at."""
        if delta is not None and delta[0] is not None and delta[0] is self._token:
            added, removed = delta[2], delta[3]
            self._ids -= removed
            self._ids |= added
        else:
            if ids == self._ids:
                self._token = delta[1] if delta is not None else None
                return
            current = set(ids)
            added, removed = current - self._ids, self._ids - current
            self._ids = current
        self._token = delta[1] if delta is not None else None
        positions = self.positions
        allocated = self.allocated
        changed: list[int] = []
        for dev in added:
            for i in positions.get(dev, ()):
                allocated[i] = True
                changed.append(i)
        for dev in removed:
            for i in positions.get(dev, ()):
                allocated[i] = False
                changed.append(i)
        self._forget(changed)

    def node_positions(self, pools: list[Pool]) -> tuple[np.ndarray, bool]:
        """The device positions the search walks for a node seeing ``pools`` (complete, valid
        pools, their slices and devices in order), and whether some pool is invalid. Kept per
        pool list (the pool lists of a node are kept by the caller). A slice that is not in
        this index makes it raise ``KeyError``."""
        hit = self._nodes.get(id(pools))
        if hit is not None and hit[0] is pools:
            return hit[1], hit[2]
        out: list[int] = []
        slices, invalid = searchable_slices(pools)
        for s in slices:
            found, start = self._offsets[id(s)]
            if found is not s:
                raise KeyError(s.name)
            out.extend(range(start, start + len(s.devices)))
        arr = np.array(out, dtype=np.int64)
        self._nodes[id(pools)] = (pools, arr, invalid)
        return arr, invalid

    def slots(self, nodes: list[dict], partitionable: bool, pools_for: Callable[[dict], list[Pool]]
              ) -> np.ndarray:
        """A slot per node dict (-1 where ``pools_for`` raised): its pools, device positions and
        invalid flag are kept per dict, recognised by identity (the dict is kept, so its ``id``
        is not reused; a node dict must not change once handed in: a changed node comes as a
        new dict), so that a scheduler handing the same dicts from one pod to the next finds
        them without gathering. The slots of a whole list of dicts are kept too: the same dicts
        in the same order (a scheduler's chunk of nodes again) get them without a lookup each
        (equal dicts in their place would do as well: a slot's pools follow from the node's
        name and labels).

        >>> from kschedlab.dra.devices import read_slice
        >>> s = read_slice({"metadata": {"name": "s"}, "spec": {"driver": "d", "nodeName": "n1",
        ...     "pool": {"name": "n1", "generation": 1, "resourceSliceCount": 1}, "devices": [{"name": "a"}]}})
        >>> index, n1, n2 = DeviceIndex([s]), {"metadata": {"name": "n1"}}, {"metadata": {"name": "n2"}}
        >>> index.slots([n1, n2], True, lambda node: []).tolist(), index.slots([n1, n2], True, lambda node: []).tolist()
        ([0, 1], [0, 1])
        >>> index.slots([n2, n1], True, lambda node: []).tolist()
        [1, 0]
        """
        if len(self._slot_pools) > _SLOT_LIMIT:  # many node dicts came and went: start again
            self._reset_slots()
        if not nodes:
            return np.zeros(0, dtype=np.int64)
        # a chunk of nodes handed in before (the same dicts in the same order, found by a list
        # comparison: identical dicts compare equal in C without looking inside): its slots again
        chunk_key = (partitionable, id(nodes[0]), len(nodes))
        chunk = self._chunks.get(chunk_key)
        if chunk is not None and chunk[0] == nodes:
            return chunk[1].copy()
        by_id = self._slot_by_id[partitionable]
        out = np.fromiter(map(by_id.get, map(id, nodes), itertools.repeat(-2)), dtype=np.int64, count=len(nodes))
        for k in np.flatnonzero(out == -2).tolist():
            node = nodes[k]
            try:
                pools = pools_for(node)
                positions, invalid = self.node_positions(pools)
            except Exception:  # the search raises it (or gathers elsewhere): not kept
                out[k] = -1
                continue
            slot = len(self._slot_pools)
            self._slot_pools.append(pools)
            self._slot_start.append(self._slot_start[-1] + self._slot_len[-1] if self._slot_start else 0)
            self._slot_len.append(len(positions))
            self._slot_invalid.append(invalid)
            self._slot_parts.append(positions)
            self._slot_nodes.append(node)  # kept: its id stays its own
            for p in positions.tolist():
                self._position_slots.setdefault(p, []).append(slot)
            self._slot_arrays = None
            by_id[id(node)] = slot
            out[k] = slot
        if not (out < 0).any():  # (a node whose pools raised is tried again next time)
            if len(self._chunks) >= _CHUNK_LIMIT:
                del self._chunks[next(iter(self._chunks))]
            self._chunks[chunk_key] = (list(nodes), out.copy())
        return out

    def _reset_slots(self) -> None:
        """Forget every node slot."""
        #: partitionable devices -> id(node dict) -> its slot (the dicts are kept in ``_slot_nodes``)
        self._slot_by_id: dict[bool, dict[int, int]] = {False: {}, True: {}}
        self._slot_nodes: list[dict] = []
        #: per slot (a node dict seen): its pools, and where its positions are in ``_slot_flat``
        self._slot_pools: list[list[Pool]] = []
        self._slot_start: list[int] = []
        self._slot_len: list[int] = []
        self._slot_invalid: list[bool] = []
        self._slot_parts: list[np.ndarray] = []
        self._slot_flat = np.zeros(0, dtype=np.int64)
        #: how many slots ``_slot_flat`` holds
        self._flat_count = 0
        self._slot_arrays = None
        #: slot -> its positions as a list and its invalid flag (``slot_walk``)
        self._slot_walks: dict[int, tuple[list[int], bool]] = {}
        #: device position -> the slots walking through it (whose kept answers it can change)
        self._position_slots: dict[int, list[int]] = {}
        #: (partitionable, id of the first node dict, node count) -> (the node dicts, their slots)
        #: of the chunks handed to :meth:`slots` (the dicts are held: their ids stay their own)
        self._chunks: dict[tuple[bool, int, int], tuple[list[dict], np.ndarray]] = {}
        #: screen key -> (kind, calls) per slot, one extra entry for slot -1 (kind -1: not kept)
        self._answers: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}

    def kept_answers(self, key: tuple) -> tuple[np.ndarray, np.ndarray]:
        """``(kind, calls)`` per slot (indexed by :meth:`slots`' values, -1 included) as
        :meth:`keep_answers` last kept them for the screen ``key``; kind -1 where nothing is kept
        (a new slot, or one of its devices was allocated, freed or got a selector result since;
        its calls are then the last ones kept, not to be read). Read after :meth:`set_allocated`
        for the state being screened.

        >>> from kschedlab.dra.devices import read_slice
        >>> s = read_slice({"metadata": {"name": "s"}, "spec": {"driver": "d", "nodeName": "n1",
        ...     "pool": {"name": "n1", "generation": 1, "resourceSliceCount": 1}, "devices": [{"name": "a"}]}})
        >>> index = DeviceIndex([s])
        >>> slots = index.slots([{"metadata": {"name": "n1"}}], True, lambda node: [])
        >>> index.keep_answers("k", slots, np.array([0], dtype=np.int8), np.array([1]))
        >>> index.kept_answers("k")[0][slots].tolist()
        [0]
        """
        self._read_log()
        size = len(self._slot_pools) + 1
        kept = self._answers.get(key)
        if kept is None or len(kept[0]) < size:
            kind = np.full(size, -1, dtype=np.int8)
            calls = np.zeros(size, dtype=np.int64)
            if kept is not None:  # (new slots since: the old sentinel becomes a slot not kept)
                kind[:len(kept[0]) - 1] = kept[0][:-1]
                calls[:len(kept[1]) - 1] = kept[1][:-1]
            kept = self._answers[key] = (kind, calls)
        return kept

    def keep_answers(self, key: tuple, slots: np.ndarray, kinds: np.ndarray, calls: np.ndarray) -> None:
        """Keep the screen ``key``'s answers ``kinds`` and ``calls`` (what the search spends
        there) for ``slots`` (-1 skipped), as found on the devices' current state:
        selector results kept while finding them are taken in first, so that they do not drop
        these answers."""
        kind_kept, calls_kept = self.kept_answers(key)
        ok = slots >= 0
        kind_kept[slots[ok]] = kinds[ok]
        calls_kept[slots[ok]] = calls[ok]

    def _forget(self, positions: list[int]) -> None:
        """Drop the kept answers of the slots walking through ``positions``."""
        if not self._answers or not positions:
            return
        where = self._position_slots
        slots = [slot for p in positions for slot in where.get(p, ())]
        if len(slots) > _FORGET_ONE_BY_ONE:
            at = np.unique(np.array(slots, dtype=np.int64))
            for kind, _calls in self._answers.values():
                kind[at[at < len(kind) - 1]] = -1
            return
        for kind, _calls in self._answers.values():  # (a pod's allocation: a slot or two, no array made)
            last = len(kind) - 1
            for slot in slots:
                if slot < last:
                    kind[slot] = -1

    def slot_walk(self, slot: int) -> tuple[list[int], bool]:
        """Slot ``slot``'s device positions as a list, and whether some pool is invalid."""
        walk = self._slot_walks.get(slot)
        if walk is None:
            walk = self._slot_walks[slot] = (self._slot_parts[slot].tolist(), self._slot_invalid[slot])
        return walk

    def slice_of(self, position: int) -> Slice:
        """The slice of the device at ``position``."""
        return self._slice_at[position]

    @property
    def slot_pools(self) -> list[list[Pool]]:
        """The pools of each slot from :meth:`slots` (a new list once the slots are dropped)."""
        return self._slot_pools

    def gather(self, slots: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(positions of every slot in turn, the count per slot, invalid per slot)`` for slots
        from :meth:`slots` (-1: nothing)."""
        if self._slot_arrays is None:
            self._slot_flat = np.concatenate([self._slot_flat, *self._slot_parts[self._flat_count:]])
            self._flat_count = len(self._slot_parts)
            self._slot_arrays = (np.array(self._slot_start + [0], dtype=np.int64),
                                 np.array(self._slot_len + [0], dtype=np.int64),
                                 np.array(self._slot_invalid + [False], dtype=bool))
        start, length, invalid = self._slot_arrays
        lengths = length[slots]  # slot -1 reads the extra zero-length entry
        total = int(lengths.sum())
        offsets = np.repeat(start[slots] - (np.cumsum(lengths) - lengths), lengths)
        return self._slot_flat[offsets + np.arange(total)], lengths, invalid[slots]

    def matches(self, key: tuple, combine: Callable[[Device], int], positions: np.ndarray) -> np.ndarray:
        """The match array for ``key`` (-1 unknown, 0, 1 per device). Its unknown entries are
        read through ``combine(device)`` (which must not evaluate anything, only read kept
        results: -1 while not evaluated) when first met in ``positions``, and again once a
        result was kept on the device (:func:`selector_result_kept`)."""
        self._read_log()
        arr = self._matches.get(key)
        if arr is None:
            arr = self._matches[key] = np.full(len(self.devices), -2, dtype=np.int8)  # -2: never read
            self._dirty[key] = set()
        dirty = self._dirty[key]
        devices = self.devices
        if dirty is None:  # the log was cleared: read every unknown entry again
            arr[arr == -1] = -2
            dirty = self._dirty[key] = set()
        for i in dirty:
            if arr[i] == -1:
                arr[i] = combine(devices[i])
        dirty.clear()
        if len(positions):
            for i in np.unique(positions[arr[positions] == -2]).tolist():
                arr[i] = combine(devices[i])
        return arr

    def _read_log(self) -> None:
        """Mark the devices of this index named in the kept-results log since the last read."""
        epoch, read = self._log_read
        if epoch != _EPOCH[0]:
            for key in self._dirty:
                self._dirty[key] = None
            self._answers.clear()
        elif read < len(_KEPT_LOG):
            by_id = self._by_id
            fresh = [by_id[d] for d in _KEPT_LOG[read:] if d in by_id]
            for dirty in self._dirty.values():
                if dirty is not None:
                    dirty.update(fresh)
            self._forget(fresh)
        self._log_read = (_EPOCH[0], len(_KEPT_LOG))


def combined_match(class_key: tuple | None, request_key: tuple | None) -> Callable[[Any], int]:
    """``combine`` for :meth:`DeviceIndex.matches`: the kept result of the class selectors, then
    (when they matched) of the request's; -1 while unknown. A key of None: no selectors (a match).

    >>> from types import SimpleNamespace
    >>> f = combined_match(("e", ("c",)), ("e", ("r",)))
    >>> f(SimpleNamespace(selector_matches={("e", ("c",)): True})), f(SimpleNamespace(selector_matches=None))
    (-1, -1)
    >>> f(SimpleNamespace(selector_matches={("e", ("c",)): False}))
    0
    """
    def combine(device) -> int:
        found = device.selector_matches or {}
        if class_key is not None:
            ok = found.get(class_key)
            if ok is None:
                return -1
            if not ok:
                return 0
        if request_key is None:
            return 1
        ok = found.get(request_key)
        return -1 if ok is None else int(ok)

    return combine
