"""Cluster state and the columnar Snapshot the plugins read.

The :class:`Cluster` holds the API objects by kind.  Its :class:`Snapshot`
keeps, per node row, numpy arrays of allocatable and requested resources
(resource-major: ``allocatable[resource_column, row]``, so one resource of many
nodes is a contiguous slice),
pod counts, taints (grouped into distinct taint sets) and lazily built label
columns, so a plugin can answer for every node with a handful of array
operations.  Rows are kept in insertion order; ``Snapshot.order`` gives the
node-tree order kube-scheduler iterates (round robin across zones).

>>> from kschedlab.api.core import Node
>>> snap = Snapshot()
>>> for name, zone in [("n1", "a"), ("n2", "a"), ("n3", "b")]:
...     _ = snap.add_node(Node.model_validate({"metadata": {"name": name,
...         "labels": {"topology.kubernetes.io/zone": zone}},
...         "status": {"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "110"}}}))
>>> [snap.names[r] for r in snap.order]
['n1', 'n3', 'n2']
>>> int(snap.allocatable[snap.res_index["cpu"], 0])
2000
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from dataclasses import dataclass
from typing import Callable, Collection, Hashable, Iterable

import numpy as np

from kschedlab.api.binding import bind_pod
from kschedlab.api.core import normalize_image_name
from kschedlab.api.resources import CPU, EPHEMERAL_STORAGE, MEMORY, PODS, resource_list
from kschedlab.apiserver.apply import Applied
from kschedlab.framework.nominator import Nominator
from kschedlab.framework.types import NodeInfo, PodInfo, cache_owner, pod_key

#: the kinds of the scheduler's group objects (their priority prices preemption victims)
GROUP_KINDS = ("PodGroup", "CompositePodGroup")

ZONE_LABELS = ("topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone")
REGION_LABELS = ("topology.kubernetes.io/region", "failure-domain.beta.kubernetes.io/region")
BASE_RESOURCES = (CPU, MEMORY, EPHEMERAL_STORAGE, PODS)


def zone_key(node) -> str:
    """``utilnode.GetZoneKey``: region and zone joined, "" when neither is set."""
    labels = node.metadata.labels
    zone = next((labels[k] for k in ZONE_LABELS if k in labels), None)
    region = next((labels[k] for k in REGION_LABELS if k in labels), None)
    if zone is None and region is None:
        return ""
    return f"{region or ''}:\x00:{zone or ''}"


@dataclass(eq=False)
class PodGroupCounts:
    """One group of :meth:`Snapshot.pod_groups`: a member (``info``, the first one placed), the
    members per row (``counts``) and their number (``pods``)."""

    info: PodInfo
    counts: np.ndarray
    pods: int = 0


class Snapshot:
    """Columnar per-node state; see the module docstring."""

    def __init__(self, capacity: int = 16):
        self.resources: list[str] = list(BASE_RESOURCES)
        self.res_index = {name: i for i, name in enumerate(self.resources)}
        self._cap = capacity
        r = len(self.resources)
        self.allocatable = np.zeros((r, capacity), np.int64)
        self._owner = cache_owner()  # (names this snapshot's entries in a PodInfo's cache)
        self._restack(np.zeros((2 * r + 3, capacity), np.int64))
        #: per row, a counter bumped whenever the node or its pods change (for caches of per-node values)
        self.row_version = np.zeros(capacity, np.int64)
        #: the rows changed, in order, from position ``_change_base`` on (see :meth:`changes_since`)
        self._change_log: list[int] = []
        self._change_base = 0
        self.unschedulable = np.zeros(capacity, bool)
        self.taint_group = np.zeros(capacity, np.int32)
        self.taint_sets: list[tuple] = [()]
        self._taint_ids: dict[tuple, int] = {(): 0}
        self.nodes: list = []
        self.names: list[str] = []
        self.index: dict[str, int] = {}
        self.pods: list[list[PodInfo]] = []
        self.pod_row: dict[str, int] = {}
        self._placed: dict[str, PodInfo] = {}  # key -> the PodInfo accounted (an entry of ``pods``)
        self.images: list[dict[str, int]] = []
        self.image_nodes: Counter = Counter()
        self.port_rows: dict[int, Counter] = {}
        self._label_cols: dict[str, np.ndarray] = {}
        self._label_unique: dict[str, np.ndarray | None] = {}
        #: pod indexes kept current as pods come and go: key -> [predicate, counts per row | pod list]
        self._pod_counts: OrderedDict[Hashable, list] = OrderedDict()
        self._pod_lists: OrderedDict[Hashable, list] = OrderedDict()
        #: grouped pod indexes: key -> [group_of, {group: PodGroupCounts}, {pod key: group}]
        self._pod_groups: OrderedDict[Hashable, list] = OrderedDict()
        self._zones: dict[str, list[int]] = {}
        self._order: np.ndarray | None = None
        self._names_view: tuple | None = None
        self._live: np.ndarray | None = None
        self._cordoned: bool | None = None
        self._node_infos: list[NodeInfo] = []  # one per row (node_infos_at)
        self.generation = 0

    # -- sizes -------------------------------------------------------------
    @property
    def num_nodes(self) -> int:
        return len(self.index)

    def __len__(self) -> int:
        return len(self.index)

    def _grow(self, rows: int) -> None:
        if rows <= self._cap:
            return
        cap = max(rows, self._cap * 2)
        for attr in ("allocatable", "_stacked", "row_version", "unschedulable", "taint_group"):
            old = getattr(self, attr)
            new = np.zeros((*old.shape[:-1], cap), old.dtype)
            new[..., : self._cap] = old
            setattr(self, attr, new)
        self._restack(self._stacked)
        for entry in self._pod_counts.values():
            entry[1] = np.concatenate([entry[1], np.zeros(cap - self._cap, np.int64)])
        for entry in self._pod_groups.values():
            for group in entry[1].values():
                group.counts = np.concatenate([group.counts, np.zeros(cap - self._cap, np.int64)])
        self._cap = cap

    def resource_column(self, name: str) -> int:
        """Column of resource ``name``, adding one for a new extended resource."""
        idx = self.res_index.get(name)
        if idx is None:
            idx = len(self.resources)
            self.resources.append(name)
            self.res_index[name] = idx
            pad = np.zeros((1, self._cap), np.int64)
            self.allocatable = np.vstack([self.allocatable, pad])
            self._restack(np.vstack([self.requested, pad, self.free, pad, self._stacked[2 * idx:]]))
        return idx

    #: the counters that are views of ``_stacked`` (rebuilt, not copied, with the snapshot)
    _VIEWS = ("requested", "free", "non_zero", "pod_count")

    def __getstate__(self) -> dict:
        # a deep copy or a pickle copies arrays one by one, which would part the views from the
        # stacked array the accounting writes: they are left out and made again from the copy
        return {k: v for k, v in self.__dict__.items() if k not in self._VIEWS and k != "_node_infos"}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._node_infos = []
        self._owner = cache_owner()  # (the copy's resource columns may part from ours)
        self._restack(self._stacked)

    def _restack(self, stacked: np.ndarray) -> None:
        """Take ``stacked`` as the counters a pod's accounting moves, one array whose row blocks
        are ``requested``, ``free`` (a row per resource each), ``non_zero`` (2 rows) and
        ``pod_count``, so :meth:`_account` adds one vector to one column of it."""
        r = len(self.resources)
        self._stacked = stacked
        self.requested = stacked[:r]
        #: free capacity per resource column (allocatable - requested; the pods column counts pods),
        #: kept current as pods and nodes come and go, for NodeResourcesFit's check of many nodes
        self.free = stacked[r:2 * r]
        self.non_zero = stacked[2 * r:2 * r + 2]  # cpu, memory with the scoring defaults
        self.pod_count = stacked[2 * r + 2]
        #: a pod's accounting vector (:meth:`_account_vector`) is kept in its cache under this key,
        #: which names the snapshot and its number of resource columns (columns are only appended)
        self._vector_key = ("account", self._owner, r)

    # -- changes -------------------------------------------------------------
    #: the most changes the log keeps; older ones are dropped half at a time
    CHANGE_LOG = 4096

    def _changed(self, row: int) -> None:
        """The node of ``row`` or its pods changed: bump the row's version and log the row."""
        self.row_version[row] += 1
        log = self._change_log
        log.append(row)
        if len(log) > self.CHANGE_LOG:
            drop = len(log) // 2
            del log[:drop]
            self._change_base += drop

    def changes_since(self, mark: int | None) -> tuple[list[int] | None, int]:
        """The rows changed since ``mark`` (in order, repeats kept) and the mark to pass next
        time; ``mark`` None (the first call), or older than the log reaches back, gives None
        instead of the rows: compare ``row_version`` then.

        >>> snap = Snapshot()
        >>> rows, mark = snap.changes_since(None)
        >>> from kschedlab.api.core import Node
        >>> snap.add_node(Node.model_validate({"metadata": {"name": "n"}}))
        0
        >>> snap.changes_since(mark)
        ([0], 1)
        """
        end = self._change_base + len(self._change_log)
        if mark is None or mark < self._change_base:
            return None, end
        return self._change_log[mark - self._change_base:], end

    # -- nodes -------------------------------------------------------------
    def add_node(self, node) -> int:
        name = node.metadata.name
        if name in self.index:
            raise ValueError(f"node {name!r} already exists")
        row = len(self.nodes)
        self._grow(row + 1)
        self.nodes.append(None)
        self.names.append(name)
        self.pods.append([])
        self.images.append({})
        self.index[name] = row
        self._set_node(row, node)
        self._zones.setdefault(zone_key(node), []).append(row)
        self._order = None
        self._live = None
        self._names_view = None
        self.generation += 1
        return row

    def update_node(self, node) -> None:
        row = self.index[node.metadata.name]
        old_zone = zone_key(self.nodes[row])
        self._set_node(row, node)
        if zone_key(node) != old_zone:
            self._zones[old_zone].remove(row)
            if not self._zones[old_zone]:
                del self._zones[old_zone]
            self._zones.setdefault(zone_key(node), []).append(row)
            self._order = None
        self.generation += 1

    def remove_node(self, name: str) -> None:
        """Drop a node from the ordering; its row stays allocated but unused."""
        row = self.index.pop(name)
        zone = zone_key(self.nodes[row])
        self._zones[zone].remove(row)
        if not self._zones[zone]:
            del self._zones[zone]
        for image in self.images[row]:
            self.image_nodes[image] -= 1
        self.images[row] = {}
        self._order = None
        self._live = None
        self._names_view = None
        self._label_unique.clear()
        self.generation += 1

    def _set_node(self, row: int, node) -> None:
        self.nodes[row] = node
        if row < len(self._node_infos):  # (the kept NodeInfo of the row holds the node too)
            self._node_infos[row].node = node
        alloc = resource_list(node.status.allocatable) if node.status else {}
        self.allocatable[:, row] = 0
        for name, value in alloc.items():
            col = self.resource_column(name)
            self.allocatable[col, row] = value
        self.free[:, row] = self.allocatable[:, row] - self.requested[:, row]
        pods = self.res_index[PODS]
        self.free[pods, row] = self.allocatable[pods, row] - self.pod_count[row]
        self._changed(row)
        self.unschedulable[row] = bool(node.spec.unschedulable) if node.spec else False
        self._cordoned = None
        taints = tuple(node.spec.taints) if node.spec else ()
        key = tuple((t.key, t.value or "", t.effect) for t in taints)
        gid = self._taint_ids.get(key)
        if gid is None:
            gid = self._taint_ids[key] = len(self.taint_sets)
            self.taint_sets.append(taints)
        self.taint_group[row] = gid
        for image in self.images[row]:
            self.image_nodes[image] -= 1
        images: dict[str, int] = {}
        for img in (node.status.images if node.status else []):
            for image_name in img.names:
                images[normalize_image_name(image_name)] = img.size_bytes or 0
        self.images[row] = images
        self.image_nodes.update(images.keys())
        self._label_cols.clear()
        self._label_unique.clear()

    @property
    def order(self) -> np.ndarray:
        """Rows in node-tree order: round robin across zones in first-seen order."""
        if self._order is None:
            zones = list(self._zones.values())
            out: list[int] = []
            depth = max((len(z) for z in zones), default=0)
            for i in range(depth):
                out.extend(z[i] for z in zones if i < len(z))
            self._order = np.asarray(out, np.int64)
        return self._order

    @property
    def cordoned(self) -> bool:
        """Some node is marked unschedulable (``spec.unschedulable``; kept until a node changes)."""
        if self._cordoned is None:
            self._cordoned = bool(self.unschedulable.any())
        return self._cordoned

    def live_mask(self) -> np.ndarray:
        """Boolean per row: the node exists (rows of removed nodes stay allocated). Do not modify."""
        if self._live is None or len(self._live) != self._cap:
            self._live = np.zeros(self._cap, bool)
            self._live[self.order] = True
        return self._live

    def node_names(self) -> tuple[str, ...]:
        """Row -> node name as an immutable tuple (None for removed nodes), rebuilt only
        when nodes come or go, so a trace can keep the view of its own cycle."""
        if self._names_view is None:
            present = set(self.index)
            self._names_view = tuple(n if n in present else None for n in self.names)
        return self._names_view

    def node_info(self, row_or_name) -> NodeInfo:
        row = self.index[row_or_name] if isinstance(row_or_name, str) else row_or_name
        return self.node_infos_at([row])[0]

    def node_infos_at(self, rows: list[int]) -> list[NodeInfo]:
        """The :class:`NodeInfo` of each row, as per-node plugins see them. A NodeInfo reads its
        row when asked (its ``node`` is set anew when the node is replaced), so one per row is kept
        and handed out again.

        >>> from kschedlab.api.core import Node
        >>> s = Snapshot(); _ = s.add_node(Node.model_validate({"metadata": {"name": "n1"}}))
        >>> a, = s.node_infos_at([0]); b, = s.node_infos_at([0])
        >>> a is b, a.name
        (True, 'n1')
        """
        views = self._node_infos
        if len(views) < len(self.nodes):
            views.extend(NodeInfo(self, row) for row in range(len(views), len(self.nodes)))
        return [views[row] for row in rows]

    def node_infos(self) -> list[NodeInfo]:
        return self.node_infos_at(self.order.tolist())

    # -- labels --------------------------------------------------------------
    def label_codes(self, key: str) -> tuple[np.ndarray, dict[str, int]]:
        """Label ``key`` per row as integer codes (-1 where absent) and the code of each value.

        Built once per key and kept until a node changes, so selectors compare
        small integer arrays instead of strings.
        """
        cached = self._label_cols.get(key)
        if cached is None:
            vocab: dict[str, int] = {}
            codes = np.full(self._cap, -1, np.int32)
            for row, node in enumerate(self.nodes):
                value = node.metadata.labels.get(key)
                if value is not None:
                    codes[row] = vocab.setdefault(value, len(vocab))
            cached = self._label_cols[key] = (codes, vocab)
        return cached

    def unique_label_rows(self, key: str) -> np.ndarray | None:
        """When no two nodes share a value of label ``key`` (a hostname, say): the rows of the
        nodes that carry it, as a boolean mask over rows (do not modify); None otherwise. Kept
        until a node changes or goes.

        >>> from kschedlab.api.core import Node
        >>> s = Cluster([Node.model_validate({"metadata": {"name": n, "labels": {"zone": "a", "host": n}}})
        ...              for n in ("n1", "n2")]).snapshot
        >>> s.unique_label_rows("zone") is None, s.unique_label_rows("host")[:3].tolist()
        (True, [True, True, False])
        """
        if key in self._label_unique:
            return self._label_unique[key]
        codes, _ = self.label_codes(key)
        live = self.live_mask()
        n = min(len(codes), len(live))
        mask = np.zeros(len(codes), bool)
        mask[:n] = live[:n] & (codes[:n] >= 0)
        present = codes[mask]
        unique = len(present) == 0 or int(np.bincount(present).max()) <= 1
        self._label_unique[key] = out = mask if unique else None
        return out

    def name_codes(self) -> tuple[np.ndarray, dict[str, int]]:
        """Node names in the same code form (a name's code is its row)."""
        return np.arange(self._cap, dtype=np.int32), self.index

    # -- pods ----------------------------------------------------------------
    def add_pod(self, info: PodInfo, node_name: str) -> None:
        """Account ``info`` on ``node_name`` (binding or assuming it)."""
        row = self.index[node_name]
        if info.key in self.pod_row:
            raise ValueError(f"pod {info.key} is already on a node")
        self._account(info, row, +1)
        self.pods[row].append(info)
        self.pod_row[info.key] = row
        self._placed[info.key] = info

    def remove_pod(self, key: str) -> PodInfo:
        row = self.pod_row.pop(key)
        info = self._placed.pop(key)
        self.pods[row].remove(info)  # by identity (PodInfo has no __eq__)
        self._account(info, row, -1)
        return info

    def change_pod(self, key: str, change: Callable[[], None], labels: Collection[str] | None = None) -> None:
        """Apply ``change`` to a bound pod in place (its deletion timestamp, say) and keep the
        pod indexes true: the pod leaves every index as it was and joins them as it is, as
        the scheduler cache's UpdatePod removes the old pod and adds the new one. ``labels``: the
        change alters only the values of these label keys and the node name (a Binding's
        topology labels), so a count index whose predicate reads neither (it named the labels it
        reads, :meth:`matching_pod_counts`) keeps the pod as it is."""
        row = self.pod_row[key]
        info = self._placed[key]
        self._update_indexes(info, row, -1, labels)
        change()
        self._update_indexes(info, row, +1, labels)
        self._changed(row)  # the row's pod indexes may have moved (readers of changes_since)
        self.generation += 1

    # -- pod indexes ---------------------------------------------------------------
    MAX_POD_INDEXES = 256

    def matching_pod_counts(self, key: Hashable, predicate: Callable[[PodInfo], bool],
                            label_keys: frozenset[str] | None = None) -> np.ndarray:
        """Per-row count of the pods on each node for which ``predicate`` holds.

        Built once by scanning the pods, then kept current on every pod
        add/remove, so plugins such as PodTopologySpread pay per cycle for the
        nodes, not for the pods already placed.  ``key`` must identify the
        predicate (e.g. namespace + selector); the least recently used of more
        than ``MAX_POD_INDEXES`` indexes is dropped.  Do not modify the result.
        ``label_keys``, when given, are the only labels the predicate reads, and it reads
        neither the node name nor anything :meth:`change_pod` may be told changed with labels.
        """
        entry = self._pod_counts.get(key)
        if entry is None:
            counts = np.zeros(self._cap, np.int64)
            for row, pods in enumerate(self.pods):
                counts[row] = sum(1 for p in pods if predicate(p))
            entry = self._pod_counts[key] = [predicate, counts, {}, label_keys]
            if len(self._pod_counts) > self.MAX_POD_INDEXES:
                self._pod_counts.popitem(last=False)
        else:
            self._pod_counts.move_to_end(key)
        return entry[1]

    #: the most domain sums :meth:`matching_pod_counts_by_domain` keeps per pod index
    MAX_DOMAIN_SUMS = 8

    def matching_pod_counts_by_domain(self, key: Hashable, predicate: Callable[[PodInfo], bool],
                                      domains: np.ndarray, size: int,
                                      label_keys: frozenset[str] | None = None) -> np.ndarray:
        """The pods of :meth:`matching_pod_counts` summed per domain: ``domains`` gives each
        row's domain code (-1: the row is not counted), ``size`` the number of codes. Summed once
        and then kept current as pods come, go or change, as the per-row counts are (a
        PodTopologySpread domain's matching pods without a sum over the nodes per cycle;
        ``label_keys`` as there). The
        caller must not modify ``domains`` while it asks with it (the sums are kept per
        ``domains`` object, a few per index), nor the result.

        >>> from kschedlab.api.core import Node, Pod
        >>> c = Cluster([Node.model_validate({"metadata": {"name": n}}) for n in ("a", "b", "c")])
        >>> web = lambda p: p.pod.metadata.labels.get("app") == "web"
        >>> zones = np.array([0, 1, 1] + [-1] * 13, np.int32)  # a: zone 0, b and c: zone 1
        >>> for name, node in [("p1", "a"), ("p2", "b"), ("p3", "c")]:
        ...     c.add(Pod.model_validate({"metadata": {"name": name, "namespace": "default",
        ...                                            "labels": {"app": "web"}}, "spec": {"nodeName": node}}))
        >>> c.snapshot.matching_pod_counts_by_domain("web", web, zones, 2).tolist()
        [1, 2]
        >>> c.remove_pod("default/p2")
        >>> c.snapshot.matching_pod_counts_by_domain("web", web, zones, 2).tolist()
        [1, 1]
        """
        per_row = self.matching_pod_counts(key, predicate, label_keys)
        sums = self._pod_counts[key][2]
        found = sums.get(id(domains))
        if found is None or found[0] is not domains:
            n = min(len(domains), len(per_row))
            counted = domains[:n] >= 0
            total = np.bincount(domains[:n][counted], weights=per_row[:n][counted], minlength=size).astype(np.int64)
            if len(sums) >= self.MAX_DOMAIN_SUMS:
                del sums[next(iter(sums))]
            found = sums[id(domains)] = (domains, total)
        return found[1]

    def matching_pods(self, key: Hashable, predicate: Callable[[PodInfo], bool]) -> dict[str, tuple[int, PodInfo]]:
        """Pods (key -> (row, PodInfo)) for which ``predicate`` holds, kept current like
        :meth:`matching_pod_counts` (e.g. the pods with required anti-affinity)."""
        entry = self._pod_lists.get(key)
        if entry is None:
            found = {p.key: (row, p) for row, pods in enumerate(self.pods) for p in pods if predicate(p)}
            entry = self._pod_lists[key] = [predicate, found]
            if len(self._pod_lists) > self.MAX_POD_INDEXES:
                self._pod_lists.popitem(last=False)
        else:
            self._pod_lists.move_to_end(key)
        return entry[1]

    def pod_groups(self, key: Hashable, group_of: Callable[[PodInfo], Hashable | None]) -> dict:
        """The pods for which ``group_of`` gives a value (not None), grouped by it: group value ->
        :class:`PodGroupCounts` (a member's PodInfo and the members' count per row), kept current
        like :meth:`matching_pod_counts`, so a plugin pays per cycle for the distinct groups (pods
        with equal affinity terms, say), not for the pods. A group leaves when its last pod does.
        Do not modify the result.

        >>> from kschedlab.api.core import Node, Pod
        >>> c = Cluster([Node.model_validate({"metadata": {"name": n}}) for n in ("a", "b")])
        >>> for name, node, app in [("p1", "a", "web"), ("p2", "b", "web"), ("p3", "b", "db")]:
        ...     c.add(Pod.model_validate({"metadata": {"name": name, "namespace": "default", "labels": {"app": app}},
        ...                               "spec": {"nodeName": node}}))
        >>> groups = c.snapshot.pod_groups("by-app", lambda p: p.pod.metadata.labels.get("app"))
        >>> {g: v.counts[:2].tolist() for g, v in groups.items()}
        {'web': [1, 1], 'db': [0, 1]}
        >>> c.remove_pod("default/p3")
        >>> list(c.snapshot.pod_groups("by-app", None))
        ['web']
        """
        entry = self._pod_groups.get(key)
        if entry is None:
            entry = self._pod_groups[key] = [group_of, {}, {}]
            for row, pods in enumerate(self.pods):
                for p in pods:
                    self._group_pod(entry, p, row, +1)
            if len(self._pod_groups) > self.MAX_POD_INDEXES:
                self._pod_groups.popitem(last=False)
        else:
            self._pod_groups.move_to_end(key)
        return entry[1]

    def _group_pod(self, entry: list, info: PodInfo, row: int, sign: int) -> None:
        group_of, groups, members = entry
        if sign > 0:
            value = group_of(info)
            if value is None:
                return
            group = groups.get(value)
            if group is None:
                group = groups[value] = PodGroupCounts(info, np.zeros(self._cap, np.int64))
            members[info.key] = value
        else:
            value = members.pop(info.key, None)
            if value is None:
                return
            group = groups[value]
        group.counts[row] += sign
        group.pods += sign
        if not group.pods:
            del groups[value]

    def _update_indexes(self, info: PodInfo, row: int, sign: int, labels: Collection[str] | None = None) -> None:
        for entry in self._pod_groups.values():
            self._group_pod(entry, info, row, sign)
        for predicate, counts, sums, reads in self._pod_counts.values():
            if labels is not None and reads is not None and reads.isdisjoint(labels):
                continue  # (the change_pod of a pod whose labels this predicate does not read)
            if predicate(info):
                counts[row] += sign
                for domains, total in sums.values():
                    if row < len(domains) and domains[row] >= 0:
                        total[domains[row]] += sign
        for predicate, found in self._pod_lists.values():
            if sign < 0:
                found.pop(info.key, None)  # (listed when it came, as a group's member is)
            elif predicate(info):
                found[info.key] = (row, info)

    def _account_vector(self, info: PodInfo) -> np.ndarray:
        """What placing ``info`` adds to a column of the stacked counters (:meth:`_restack`):
        its requests, less free capacity (one pod less in the pods row), its non-zero cpu and
        memory, one pod. Made once per pod and kept in its cache while the resources stay."""
        vec = info.cache.get(self._vector_key)
        if vec is None:
            cols = [(self.resource_column(name), value) for name, value in info.requests.items()]
            r, pods = len(self.resources), self.res_index[PODS]
            values = [0] * (2 * r) + [*info.non_zero, 1]
            for col, value in cols:
                values[col] = value
                values[r + col] = -value
            values[r + pods] = -1  # (free pods count pods, whatever a pod asks of "pods")
            vec = info.cache[self._vector_key] = np.array(values, np.int64)
        return vec

    def _account(self, info: PodInfo, row: int, sign: int) -> None:
        vec = self._account_vector(info)  # (first: it may add a resource column)
        column = self._stacked[:, row]
        (np.add if sign > 0 else np.subtract)(column, vec, out=column)
        self._changed(row)
        if info.ports:
            used = self.port_rows.setdefault(row, Counter())
            for port in info.ports:
                used[port] += sign
                if used[port] <= 0:
                    del used[port]
            if not used:
                del self.port_rows[row]
        if self._pod_counts or self._pod_lists or self._pod_groups:
            self._update_indexes(info, row, sign)
        self.generation += 1

    def used_ports(self, row: int) -> set[tuple[str, str, int]]:
        return set(self.port_rows.get(row, ()))

    def request_vector(self, requests: dict[str, int]) -> np.ndarray:
        cols = [(self.resource_column(name), value) for name, value in requests.items()]
        vec = np.zeros(len(self.resources), np.int64)
        for col, value in cols:
            vec[col] = value
        return vec


class Cluster:
    """API objects by kind plus the live :class:`Snapshot` of nodes and bound pods.

    >>> from kschedlab.api.core import Node, Pod
    >>> c = Cluster()
    >>> c.add(Node.model_validate({"metadata": {"name": "n1"},
    ...     "status": {"allocatable": {"cpu": "1", "pods": "10"}}}))
    >>> c.add(Pod.model_validate({"metadata": {"name": "p", "namespace": "default"},
    ...     "spec": {"containers": [{"name": "c"}]}}))
    >>> [p.metadata.name for p in c.pending_pods()]
    ['p']
    """

    def __init__(self, objects: Iterable = (), *, pod_level_resources: bool = True):
        self.pod_level_resources = pod_level_resources
        self.snapshot = Snapshot()
        self.nodes: dict[str, object] = {}
        self.pods: dict[str, object] = {}
        self.pod_infos: dict[str, PodInfo] = {}
        self.objects: dict[str, dict[str, object]] = {}
        #: the scheduler cache's nominations (``status.nominatedNodeName``; preemption sets them)
        self.nominator = Nominator()
        #: (namespace, podGroupName) -> keys of the pods naming that PodGroup, in creation order
        self.group_pods: dict[tuple[str, str], dict[str, None]] = {}
        #: how many PodGroup and CompositePodGroup objects have each priority (preemption asks
        #: whether any group is priced below a preemptor without walking every group)
        self.group_priorities: Counter[int] = Counter()
        #: objects the API server refused when ``objects`` were applied, and the controllers'
        #: events about them (:class:`~kschedlab.apiserver.apply.Applied`, from ``load_manifests``)
        self.refused: list = list(objects.refused) if isinstance(objects, Applied) else []
        self.events: list = list(objects.events) if isinstance(objects, Applied) else []
        for obj in objects:
            self.add(obj)

    # -- loading -------------------------------------------------------------
    @classmethod
    def from_manifests(cls, *paths, seed: int = 0, feature_gates=None, strict: bool = False) -> "Cluster":
        """Load, expand workloads and admit objects from files or directories
        (:func:`kschedlab.controllers.manifests.load_manifests`; kinds the scheduler does not
        use are skipped with one warning unless ``strict``)."""
        import warnings

        from kschedlab.api.kinds import SkippedKindsWarning
        from kschedlab.controllers.manifests import load_manifests

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", SkippedKindsWarning)
            objects = load_manifests(*paths, seed=seed, feature_gates=feature_gates, strict=strict)
        for w in caught:  # reported at the caller's line
            warnings.warn(w.message, w.category, stacklevel=2)
        return cls(objects)

    def add(self, obj) -> None:
        kind = type(obj).__name__
        if kind == "Node":
            self.nodes[obj.metadata.name] = obj
            self.snapshot.add_node(obj)
        elif kind == "Pod":
            key = pod_key(obj)
            if key in self.pods:
                raise ValueError(f"pod {key} already exists")
            self.pods[key] = obj
            info = self.pod_infos[key] = PodInfo.of(obj, pod_level_resources=self.pod_level_resources)
            group = obj.spec.scheduling_group
            if group is not None and group.pod_group_name:
                self.group_pods.setdefault((obj.metadata.namespace or "", group.pod_group_name), {})[key] = None
            if obj.spec.node_name:
                if obj.spec.node_name in self.nodes:
                    self.snapshot.add_pod(info, obj.spec.node_name)
            elif obj.status is not None and obj.status.nominated_node_name:
                self.nominator.nominate(info, obj.status.nominated_node_name)
        else:
            name = obj.metadata.name if getattr(obj, "metadata", None) else kind
            ns = getattr(obj.metadata, "namespace", None) if getattr(obj, "metadata", None) else None
            store, key = self.objects.setdefault(kind, {}), f"{ns}/{name}" if ns else name
            if kind in GROUP_KINDS:
                if key in store:
                    self._count_group_priority(store[key], -1)
                self._count_group_priority(obj, 1)
            store[key] = obj

    def of_kind(self, kind: str) -> list:
        return list(self.objects.get(kind, {}).values())

    def get(self, kind: str, key: str):
        """The stored object of ``kind`` by its key ("namespace/name", or "name" for
        cluster-scoped kinds), or None: a claim by ``ns/name``, a PersistentVolume, a
        StorageClass or a CSINode (named after its node) by name.

        >>> from kschedlab.api.storage import StorageClass
        >>> c = Cluster([StorageClass(metadata={"name": "fast"}, provisioner="p")])
        >>> c.get("StorageClass", "fast").provisioner, c.get("StorageClass", "slow")
        ('p', None)
        """
        return self.objects.get(kind, {}).get(key)

    def remove(self, kind: str, key: str):
        """Delete a stored object of ``kind`` by its key ("namespace/name", or "name" for
        cluster-scoped kinds) and return it; for nodes and pods use :meth:`remove_node` /
        :meth:`remove_pod`.  Nothing derived from the object changes: pods admitted with a
        PriorityClass keep their ``spec.priority`` after the class is deleted.

        >>> from kschedlab.api.scheduling import PriorityClass
        >>> c = Cluster([PriorityClass(metadata={"name": "gold"}, value=10)])
        >>> c.remove("PriorityClass", "gold").value, c.of_kind("PriorityClass")
        (10, [])
        """
        if kind in ("Node", "Pod"):
            raise ValueError(f"use remove_{kind.lower()} to delete a {kind}")
        objs = self.objects.get(kind, {})
        if key not in objs:
            raise KeyError(f"no {kind} {key}")
        if kind in GROUP_KINDS:
            self._count_group_priority(objs[key], -1)
        return objs.pop(key)

    def _count_group_priority(self, group, sign: int) -> None:
        priority = group.priority_value()
        self.group_priorities[priority] += sign
        if not self.group_priorities[priority]:
            del self.group_priorities[priority]

    def update_node(self, node) -> None:
        self.nodes[node.metadata.name] = node
        self.snapshot.update_node(node)

    def remove_node(self, name: str) -> None:
        del self.nodes[name]
        self.snapshot.remove_node(name)

    def remove_pod(self, key: str) -> None:
        pod = self.pods.pop(key)
        self.pod_infos.pop(key)
        group = pod.spec.scheduling_group
        if group is not None and group.pod_group_name:
            self.group_pods.get((pod.metadata.namespace or "", group.pod_group_name), {}).pop(key, None)
        self.nominator.delete_nominated_pod_if_exists(key)
        if key in self.snapshot.pod_row:
            self.snapshot.remove_pod(key)

    def mark_terminating(self, key: str, timestamp, grace_period_seconds: int | None = None) -> None:
        """Set a pod's ``deletionTimestamp`` (and ``deletionGracePeriodSeconds``), as a graceful
        delete does, keeping the snapshot's pod indexes true for a bound pod: plugins that skip
        terminating pods (PodTopologySpread's ``countPodsMatchSelector``) stop counting it.

        >>> from datetime import datetime, timezone
        >>> from kschedlab.api.core import Node, Pod
        >>> c = Cluster([Node.model_validate({"metadata": {"name": "n1"}, "status": {"allocatable": {"pods": "9"}}}),
        ...              Pod.model_validate({"metadata": {"name": "p", "namespace": "default"},
        ...                                  "spec": {"nodeName": "n1", "containers": [{"name": "c"}]}})])
        >>> alive = lambda info: info.pod.metadata.deletion_timestamp is None
        >>> int(c.snapshot.matching_pod_counts("alive", alive)[0])
        1
        >>> c.mark_terminating("default/p", datetime(2026, 1, 1, tzinfo=timezone.utc), 30)
        >>> int(c.snapshot.matching_pod_counts("alive", alive)[0])
        0
        """
        meta = self.pods[key].metadata

        def change():
            meta.deletion_timestamp = timestamp
            if grace_period_seconds is not None:
                meta.deletion_grace_period_seconds = grace_period_seconds

        if key in self.snapshot.pod_row:
            self.snapshot.change_pod(key, change)
        else:
            change()

    def start_pod(self, key: str, when) -> None:
        """The kubelet started the pod at ``when`` (a datetime): ``status.phase`` Running and
        ``status.startTime`` set in place. A placed pod's node row changes (its version moves), so
        what is kept of the node's pods reads the start time again (DefaultPreemption's victim
        table orders victims by it). Every writer of a pod's start time goes through here.

        >>> from datetime import datetime, timezone
        >>> from kschedlab.api.core import Node, Pod
        >>> c = Cluster([Node.model_validate({"metadata": {"name": "n1"}}),
        ...              Pod.model_validate({"metadata": {"name": "p", "namespace": "default"},
        ...                                  "spec": {"nodeName": "n1", "containers": [{"name": "c"}]}})])
        >>> before = int(c.snapshot.row_version[0])
        >>> c.start_pod("default/p", datetime(2026, 1, 1, tzinfo=timezone.utc))
        >>> c.pods["default/p"].status.phase, int(c.snapshot.row_version[0]) - before
        ('Running', 1)
        """
        status = self.pods[key].status
        status.phase = "Running"
        status.start_time = when
        row = self.snapshot.pod_row.get(key)
        if row is not None:
            self.snapshot._changed(row)

    def bind(self, key: str, node_name: str, *, labels: dict | None = None, gates=None) -> None:
        """Set ``spec.nodeName`` (as the Binding subresource does) and account the pod.

        ``labels`` are the Binding's labels (the topology labels admission copied from the node);
        with ``PodTopologyLabelsAdmission`` they land on the pod, and an assumed pod's entries in the
        pod indexes are updated in place (the cache sees the bound pod as the API server stored it)."""
        pod = self.pods[key]
        snapshot = self.snapshot
        old = pod.metadata.labels or {}
        changed = [k for k, v in (labels or {}).items() if old.get(k) != v]
        if key in snapshot.pod_row and changed:
            # assumed with other labels: it leaves the label indexes as assumed, joins them as bound
            snapshot.change_pod(key, lambda: bind_pod(pod, node_name, labels=labels, gates=gates), changed)
        else:
            bind_pod(pod, node_name, labels=labels, gates=gates)
        self.nominator.delete_nominated_pod_if_exists(key)
        if key not in snapshot.pod_row:
            snapshot.add_pod(self.pod_infos[key], node_name)

    def nominate(self, key: str, node: str | None) -> None:
        """Set (or clear, with None) a pending pod's ``status.nominatedNodeName``."""
        pod = self.pods[key]
        pod.status.nominated_node_name = node or None
        self.nominator.nominate(self.pod_infos[key], node)

    def pending_pods(self) -> list:
        return [p for p in self.pods.values() if not p.spec.node_name]
