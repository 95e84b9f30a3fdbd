"""The unschedulable pool (upstream ``unschedulableEntities``): queued pods by key, in the
order they entered, indexed by the plugins that rejected them.

A cluster event can only move a pod whose rejecting plugins registered for it (or a pod that no
plugin rejected, or one whose profile registered nothing); :meth:`UnschedulablePool.affected`
finds those in time proportional to their number, so that a deletion does not walk a pool of
pods that only wait for something else.

>>> from types import SimpleNamespace as NS
>>> pool = UnschedulablePool(lambda q: q.rejectors or None)
>>> for key, rejectors in [("a", {"NodeResourcesFit"}), ("b", {"NodePorts"}), ("c", set())]:
...     pool[key] = NS(key=key, rejectors=rejectors)
>>> [q.key for q in pool.affected({"NodeResourcesFit"})]    # c was rejected by no plugin: always
['a', 'c']
>>> del pool["a"]; pool["a"] = NS(key="a", rejectors={"NodeResourcesFit"})
>>> [q.key for q in pool.affected({"NodeResourcesFit", "NodePorts"})]   # the pool's order
['b', 'c', 'a']

With ``keys(qpi)`` the pods filed under a plugin are also indexed by a key of the pod (its
PodGroup, say): ``narrowed`` then takes from that plugin only the pods of one key.  With
``rank(qpi)`` the pool finds its pod of lowest rank without walking it (:meth:`lowest`).

>>> pool = UnschedulablePool(lambda q: q.rejectors or None, keys=lambda q: q.group)
>>> for key, group in [("a", "g1"), ("b", "g2"), ("c", None)]:
...     pool[key] = NS(key=key, rejectors={"GangScheduling"}, group=group)
>>> [q.key for q in pool.affected({"GangScheduling"}, {"GangScheduling": "g2"})]
['b']
>>> pool = UnschedulablePool(lambda q: None, rank=lambda q: q.since)
>>> for key, since in [("a", 5.0), ("b", 2.0), ("c", 9.0)]:
...     pool[key] = NS(key=key, since=since)
>>> del pool["b"]; rank, qpi = pool.lowest(); rank, qpi.key
(5.0, 'a')
"""

from __future__ import annotations

import heapq
import itertools
from typing import Any, Callable, Hashable, Iterable, Mapping

__all__ = ["UnschedulablePool"]


class UnschedulablePool(dict):
    """A dict of queued pods (key -> QueuedPodInfo) that keeps, for each plugin, the keys of the
    pods it rejected.  ``tags(qpi)`` names the plugins a pod is filed under, or None for a pod
    that any event may move; it is read when the pod is stored (store it again after its
    rejecting plugins change).  Only ``pool[key] = qpi``, ``del pool[key]``, ``pool.pop`` and ``move_to_end``
    may change it."""

    def __init__(self, tags: Callable[[Any], Iterable[str] | None], keys: Callable[[Any], Hashable] | None = None,
                 rank: Callable[[Any], float] | None = None):
        super().__init__()
        self._tags = tags
        self._keys = keys
        self._rank = rank
        self._ranked: list[tuple[float, int, str]] = []  # heap of (rank when stored, stamp, key)
        self._entry: dict[str, tuple[float, int, str]] = {}  # key -> its live entry of that heap
        self._stamps = itertools.count()
        self._seq = itertools.count()
        self._order: dict[str, int] = {}  # key -> when it entered (the dict's own order)
        self._filed: dict[str, tuple[str, ...] | None] = {}
        self._by_plugin: dict[str, set[str]] = {}
        self._pod_key: dict[str, Hashable] = {}  # pod -> its ``keys`` value, when not None
        self._by_plugin_key: dict[tuple[str, Hashable], set[str]] = {}
        self._always: set[str] = set()

    def _unfile(self, key: str) -> None:
        filed = self._filed.pop(key, ())
        pod_key = self._pod_key.pop(key, None)
        if filed is None:
            self._always.discard(key)
            return
        by_plugin = self._by_plugin
        for plugin in filed:
            _discard(by_plugin, plugin, key)
        if pod_key is not None:
            by_plugin_key = self._by_plugin_key
            for plugin in filed:
                _discard(by_plugin_key, (plugin, pod_key), key)

    def __setitem__(self, key: str, qpi) -> None:
        stored = key in self
        if not stored:
            self._order[key] = next(self._seq)
        dict.__setitem__(self, key, qpi)  # a pod stored again stays where it was in the order, as a dict keeps it
        if self._rank is not None:
            self._rank_pod(key, qpi)
        tags = self._tags(qpi)
        filed = None if tags is None else tuple(tags)
        pod_key = None if filed is None or self._keys is None else self._keys(qpi)
        if stored:
            if self._filed[key] == filed and self._pod_key.get(key) == pod_key:
                return  # filed as it was
            self._unfile(key)
        if filed is None:
            self._filed[key] = None
            self._always.add(key)
            return
        self._filed[key] = filed
        _file(self._by_plugin, filed, key)
        if pod_key is not None:
            self._pod_key[key] = pod_key
            _file(self._by_plugin_key, [(plugin, pod_key) for plugin in filed], key)

    def _rank_pod(self, key: str, qpi) -> None:
        # a pod stored again with the rank it has keeps its entry (lowest() reads only the rank)
        rank = self._rank(qpi)  # type: ignore[misc]
        entry = self._entry.get(key)
        if entry is not None and entry[0] == rank:
            return
        entry = self._entry[key] = (rank, next(self._stamps), key)
        ranked = self._ranked
        heapq.heappush(ranked, entry)
        if len(ranked) > 2 * len(self) + 64:  # drop the entries of pods gone or stored again
            self._ranked = [e for e in ranked if self._entry.get(e[2]) is e]
            heapq.heapify(self._ranked)

    def move_to_end(self, key: str) -> None:
        """Put a stored pod last in the pool's order, filed as it is (as if it were deleted and
        stored again, which the queue then does)."""
        qpi = dict.pop(self, key)
        dict.__setitem__(self, key, qpi)
        self._order[key] = next(self._seq)

    def __delitem__(self, key: str) -> None:
        super().__delitem__(key)
        self._unfile(key)
        del self._order[key]
        self._entry.pop(key, None)

    def rerank(self) -> None:
        """Rank every stored pod again (its rank changed in place: a simulation's clock jumped)."""
        rank = self._rank
        self._entry = {key: (rank(self[key]), stamp, key) for key, (_, stamp, _) in self._entry.items()
                       if key in self} if rank is not None else {}
        self._ranked = list(self._entry.values())
        heapq.heapify(self._ranked)

    def lowest(self) -> tuple[float, Any] | None:
        """The pod of lowest ``rank`` (as it was when the pod was stored) and that rank; None
        for an empty pool or a pool without ``rank``."""
        ranked = self._ranked
        while ranked and self._entry.get(ranked[0][2]) is not ranked[0]:
            heapq.heappop(ranked)
        if not ranked or self._rank is None:
            return None
        rank, _, key = ranked[0]
        return rank, self[key]

    def pop(self, key: str, *default):
        if key not in self:
            if default:
                return default[0]
            raise KeyError(key)
        qpi = self[key]
        del self[key]
        return qpi

    def affected(self, plugins: Iterable[str], narrowed: Mapping[str, Hashable] | None = None) -> list:
        """The pods filed under any of ``plugins`` or under none, in the pool's order;
        ``narrowed`` (plugin -> key): from such a plugin only the pods whose ``keys`` value is
        that key (none for a None key)."""
        found = [self._always] if self._always else []
        for plugin in plugins:
            if narrowed is not None and plugin in narrowed:
                keys = self._by_plugin_key.get((plugin, narrowed[plugin]))
            else:
                keys = self._by_plugin.get(plugin)
            if keys:
                found.append(keys)
        if not found:
            return []
        keys = found[0] if len(found) == 1 else set().union(*found)
        return [self[k] for k in sorted(keys, key=self._order.__getitem__)]

    def clear(self) -> None:
        """Empty the pool (and its index)."""
        for key in list(self):
            del self[key]

    def popitem(self):
        """Not supported: the index would not see it."""
        raise TypeError("UnschedulablePool.popitem is not supported")

    def setdefault(self, key, default=None):
        """Not supported: the index would not see it."""
        raise TypeError("UnschedulablePool.setdefault is not supported")

    def update(self, *args, **kwargs):
        """Not supported: the index would not see it."""
        raise TypeError("UnschedulablePool.update is not supported")


def _file(index: dict, slots: Iterable[Hashable], key: str) -> None:
    for slot in slots:
        keys = index.get(slot)
        if keys is None:
            index[slot] = {key}
        else:
            keys.add(key)


def _discard(index: dict, slot: Hashable, key: str) -> None:
    keys = index.get(slot)
    if keys is not None:
        keys.discard(key)
        if not keys:
            del index[slot]
