"""Which pod the kubelet evicts first: the ranking functions of upstream
``pkg/kubelet/eviction/helpers.go`` (``rankMemoryPressure``, ``rankPIDPressure``,
``rankDiskPressureFunc``) and the per-filesystem choice of what to measure
(``buildSignalToRankFunc``).

Memory: pods whose working set exceeds their memory request first, then lower
priority first, then the largest ``usage - request`` first. Disk and inodes: the same
three keys on the filesystem under pressure. PIDs: priority, then most processes.
A pod without stats goes before every pod with stats.

Pod stats are the summary API's ``PodStats`` (``podRef``, ``memory.workingSetBytes``,
``containers[].rootfs|logs.usedBytes|inodesUsed``, ``volume[]``,
``process_stats.process_count``), matched to pods by UID (or ``namespace/name`` when
the pod or the stats have no UID).

>>> from kschedlab.api.core import Pod
>>> def pod(name, req=None, prio=0):
...     res = {"requests": {"memory": req}} if req else {}
...     return Pod.model_validate({"metadata": {"name": name, "uid": name},
...         "spec": {"priority": prio, "containers": [{"name": "c", "resources": res}]}})
>>> pods = [pod("guaranteed-ish", "1Gi"), pod("best-effort"), pod("burstable", "100Mi")]
>>> stats = [{"podRef": {"name": n, "uid": n}, "memory": {"workingSetBytes": w}}
...          for n, w in (("guaranteed-ish", 512 * 2**20), ("best-effort", 300 * 2**20), ("burstable", 800 * 2**20))]
>>> [p.metadata.name for p in rank_pods(pods, stats, "memory.available")]
['burstable', 'best-effort', 'guaranteed-ish']
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

from kschedlab.api.resources import pod_requests

from .signals import (
    RESOURCE_EPHEMERAL_STORAGE,
    RESOURCE_INODES,
    RESOURCE_MEMORY,
    SIGNAL_ALLOCATABLE_MEMORY_AVAILABLE,
    SIGNAL_CONTAINERFS_AVAILABLE,
    SIGNAL_CONTAINERFS_INODES_FREE,
    SIGNAL_IMAGEFS_AVAILABLE,
    SIGNAL_IMAGEFS_INODES_FREE,
    SIGNAL_MEMORY_AVAILABLE,
    SIGNAL_NODEFS_AVAILABLE,
    SIGNAL_NODEFS_INODES_FREE,
    SIGNAL_PID_AVAILABLE,
)

__all__ = [
    "FS_STATS_ROOT", "FS_STATS_LOGS", "FS_STATS_LOCAL_VOLUME_SOURCE", "FS_STATS_IMAGES",
    "LAYOUT_SINGLE", "LAYOUT_IMAGEFS", "LAYOUT_SPLIT", "LAYOUTS", "RankSpec", "PodStatsIndex", "layout_flags",
    "build_signal_to_rank_func", "rank_spec", "rank_pods", "ranking_table", "ranking_frame",
    "memory_usage", "process_usage", "pod_disk_usage", "local_volume_names", "request_quantity",
    "pod_priority", "is_critical_pod", "COMPARATORS", "order_by",
]

FS_STATS_ROOT = "root"
FS_STATS_LOGS = "logs"
FS_STATS_LOCAL_VOLUME_SOURCE = "localVolumeSource"
#: what the images of a pod take (upstream counts nothing for it per pod)
FS_STATS_IMAGES = "images"

#: everything on one filesystem (nodefs; no imagefs)
LAYOUT_SINGLE = "single"
#: a dedicated imagefs holds images and writable layers ("split disk")
LAYOUT_IMAGEFS = "imagefs"
#: writable layers (containerfs) on nodefs, images alone on imagefs ("split image")
LAYOUT_SPLIT = "split"
LAYOUTS = (LAYOUT_SINGLE, LAYOUT_IMAGEFS, LAYOUT_SPLIT)

SYSTEM_CRITICAL_PRIORITY = 2 * 1_000_000_000
_CONFIG_SOURCE = "kubernetes.io/config.source"
_CONFIG_MIRROR = "kubernetes.io/config.mirror"


@dataclass(frozen=True)
class RankSpec:
    """How pods are ranked for one signal: ``kind`` is ``memory``, ``pid`` or ``disk``;
    a disk ranking measures ``fs_stats`` of ``resource`` (``ephemeral-storage`` or ``inodes``)."""

    kind: str
    fs_stats: tuple[str, ...] = ()
    resource: str = ""

    def describe(self) -> str:
        """One line for tables: ``disk(ephemeral-storage: logs+localVolumeSource)``."""
        if self.kind != "disk":
            return self.kind
        return f"disk({self.resource}: {'+'.join(self.fs_stats)})"


_MEMORY = RankSpec("memory")
_PID = RankSpec("pid")


def _disk(fs: tuple[str, ...], resource: str) -> RankSpec:
    return RankSpec("disk", fs, resource)


def build_signal_to_rank_func(with_image_fs: bool, image_container_split_fs: bool) -> dict[str, RankSpec]:
    """The ranking of each signal for a filesystem layout (upstream ``buildSignalToRankFunc``).

    =========================  =====================================  ===============================
    layout                     nodefs signals measure                 imagefs signals measure
    =========================  =====================================  ===============================
    single filesystem          images, root, logs, local volumes      (same as nodefs)
    imagefs (split disk)       logs, local volumes                    root (writable layers), images
    imagefs + containerfs      logs, local volumes, root              images
    =========================  =====================================  ===============================

    containerfs signals rank as nodefs, except with a plain imagefs, where they rank as imagefs.

    >>> build_signal_to_rank_func(True, False)["nodefs.available"].describe()
    'disk(ephemeral-storage: logs+localVolumeSource)'
    """
    out = {SIGNAL_MEMORY_AVAILABLE: _MEMORY, SIGNAL_ALLOCATABLE_MEMORY_AVAILABLE: _MEMORY, SIGNAL_PID_AVAILABLE: _PID}
    if with_image_fs and not image_container_split_fs:
        nodefs = (FS_STATS_LOGS, FS_STATS_LOCAL_VOLUME_SOURCE)
        imagefs = (FS_STATS_ROOT, FS_STATS_IMAGES)
        out[SIGNAL_NODEFS_AVAILABLE] = _disk(nodefs, RESOURCE_EPHEMERAL_STORAGE)
        out[SIGNAL_NODEFS_INODES_FREE] = _disk(nodefs, RESOURCE_INODES)
        out[SIGNAL_IMAGEFS_AVAILABLE] = _disk(imagefs, RESOURCE_EPHEMERAL_STORAGE)
        out[SIGNAL_IMAGEFS_INODES_FREE] = _disk(imagefs, RESOURCE_INODES)
        out[SIGNAL_CONTAINERFS_AVAILABLE] = out[SIGNAL_IMAGEFS_AVAILABLE]
        out[SIGNAL_CONTAINERFS_INODES_FREE] = out[SIGNAL_IMAGEFS_INODES_FREE]
    elif with_image_fs and image_container_split_fs:
        nodefs = (FS_STATS_LOGS, FS_STATS_LOCAL_VOLUME_SOURCE, FS_STATS_ROOT)
        out[SIGNAL_NODEFS_AVAILABLE] = _disk(nodefs, RESOURCE_EPHEMERAL_STORAGE)
        out[SIGNAL_NODEFS_INODES_FREE] = _disk(nodefs, RESOURCE_INODES)
        out[SIGNAL_CONTAINERFS_AVAILABLE] = out[SIGNAL_NODEFS_AVAILABLE]
        out[SIGNAL_CONTAINERFS_INODES_FREE] = out[SIGNAL_NODEFS_INODES_FREE]
        out[SIGNAL_IMAGEFS_AVAILABLE] = _disk((FS_STATS_IMAGES,), RESOURCE_EPHEMERAL_STORAGE)
        out[SIGNAL_IMAGEFS_INODES_FREE] = _disk((FS_STATS_IMAGES,), RESOURCE_INODES)
    else:
        every = (FS_STATS_IMAGES, FS_STATS_ROOT, FS_STATS_LOGS, FS_STATS_LOCAL_VOLUME_SOURCE)
        for s in (SIGNAL_NODEFS_AVAILABLE, SIGNAL_IMAGEFS_AVAILABLE):
            out[s] = _disk(every, RESOURCE_EPHEMERAL_STORAGE)
        for s in (SIGNAL_NODEFS_INODES_FREE, SIGNAL_IMAGEFS_INODES_FREE):
            out[s] = _disk(every, RESOURCE_INODES)
        out[SIGNAL_CONTAINERFS_AVAILABLE] = out[SIGNAL_NODEFS_AVAILABLE]
        out[SIGNAL_CONTAINERFS_INODES_FREE] = out[SIGNAL_NODEFS_INODES_FREE]
    return out


def layout_flags(layout: str) -> tuple[bool, bool]:
    """``(with_image_fs, image_container_split_fs)`` of a layout name.

    >>> layout_flags("split")
    (True, True)
    """
    if layout not in LAYOUTS:
        raise ValueError(f"unknown filesystem layout {layout!r} (one of {', '.join(LAYOUTS)})")
    return layout != LAYOUT_SINGLE, layout == LAYOUT_SPLIT


def rank_spec(signal: str, layout: str = LAYOUT_SINGLE) -> RankSpec:
    """The ranking used for ``signal`` on a node with that filesystem layout.

    >>> rank_spec("imagefs.available", "split").describe()
    'disk(ephemeral-storage: images)'
    """
    spec = build_signal_to_rank_func(*layout_flags(layout)).get(signal)
    if spec is None:
        raise ValueError(f"no ranking function for signal {signal}")
    return spec


# ----------------------------------------------------------------- pod facts


def _pod_key(pod) -> str:
    uid = pod.metadata.uid
    return uid if uid else f"{pod.metadata.namespace or ''}/{pod.metadata.name}"


def _stats_key(stats: Mapping) -> str:
    ref = stats.get("podRef") or {}
    return ref["uid"] if ref.get("uid") else f"{ref.get('namespace') or ''}/{ref.get('name')}"


class PodStatsIndex:
    """Pod stats by pod (upstream ``cachedStatsFunc``): ``index.get(pod)`` -> stats or None."""

    def __init__(self, pod_stats: Iterable[Mapping[str, Any]]) -> None:
        self._by_key = {_stats_key(s): s for s in pod_stats}

    def get(self, pod) -> Mapping | None:
        """The stats of ``pod``, or None when there are none."""
        return self._by_key.get(_pod_key(pod))


def _used(fs: Mapping | None, key: str) -> int:
    if not isinstance(fs, Mapping) or fs.get(key) is None:
        return 0
    return int(fs[key])


def memory_usage(stats: Mapping) -> int:
    """The pod's working set in bytes (0 when unknown)."""
    return _used(stats.get("memory"), "workingSetBytes")


def process_usage(stats: Mapping) -> int:
    """The pod's process count (0 when unknown)."""
    return _used(stats.get("process_stats"), "process_count")


def local_volume_names(pod) -> list[str]:
    """Volumes that use the node's disk: hostPath, disk-backed emptyDir, configMap, gitRepo."""
    out = []
    for v in pod.spec.volumes:
        empty_dir = v.empty_dir
        local = (v.host_path is not None or v.git_repo is not None or v.config_map is not None
                 or (empty_dir is not None and not empty_dir.medium))
        if local:
            out.append(v.name)
    return out


def pod_disk_usage(stats: Mapping, pod, fs_stats: Sequence[str]) -> dict[str, int]:
    """Bytes and inodes the pod uses on the measured filesystems (upstream ``podDiskUsage``):
    containers' ``rootfs`` and/or ``logs``, plus local volumes when measured."""
    disk = inodes = 0
    for c in stats.get("containers") or []:
        if FS_STATS_ROOT in fs_stats:
            disk += _used(c.get("rootfs"), "usedBytes")
            inodes += _used(c.get("rootfs"), "inodesUsed")
        if FS_STATS_LOGS in fs_stats:
            disk += _used(c.get("logs"), "usedBytes")
            inodes += _used(c.get("logs"), "inodesUsed")
    if FS_STATS_LOCAL_VOLUME_SOURCE in fs_stats:
        volumes = stats.get("volume") or []
        for name in local_volume_names(pod):
            for vs in volumes:
                if vs.get("name") == name:
                    disk += _used(vs, "usedBytes")
                    inodes += _used(vs, "inodesUsed")
                    break
    return {RESOURCE_EPHEMERAL_STORAGE: disk, RESOURCE_INODES: inodes}


def request_quantity(pod, resource: str) -> int:
    """The pod's request of ``resource`` (upstream ``GetResourceRequestQuantity``): containers
    (sidecars included) against init containers, pod-level requests when set, plus the
    overhead when the request is not zero. 0 for resources a pod cannot request (inodes)."""
    reqs = pod_requests(pod, exclude_overhead=True)
    value = reqs.get(resource, 0)
    overhead = pod.spec.overhead.get(resource) if pod.spec.overhead else None
    if overhead is not None and value != 0:
        value += overhead.value()
    return value


def pod_priority(pod) -> int:
    """``spec.priority``, 0 when unset (upstream ``corev1helpers.PodPriority``)."""
    return pod.spec.priority if pod.spec.priority is not None else 0


def is_critical_pod(pod) -> bool:
    """Static, mirror or system-critical (priority >= 2000000000) pods: the eviction
    manager never evicts them (upstream ``kubelettypes.IsCriticalPod``)."""
    ann = pod.metadata.annotations or {}
    static = _CONFIG_SOURCE in ann and ann[_CONFIG_SOURCE] != "api"
    return static or _CONFIG_MIRROR in ann or pod_priority(pod) >= SYSTEM_CRITICAL_PRIORITY


# ---------------------------------------------------------------- comparators

Cmp = Callable[[Any, Any], int]


def _cmp_bool(a: bool, b: bool) -> int:
    # true first
    if a == b:
        return 0
    return -1 if a else 1


def _sign(v: int) -> int:
    return (v > 0) - (v < 0)


def priority(p1, p2) -> int:
    """Lower priority first."""
    return _sign(pod_priority(p1) - pod_priority(p2))


def exceed_memory_requests(index: PodStatsIndex) -> Cmp:
    """Pods without stats first, then pods whose working set exceeds their memory request."""
    def cmp(p1, p2) -> int:
        s1, s2 = index.get(p1), index.get(p2)
        if s1 is None or s2 is None:
            return _cmp_bool(s1 is None, s2 is None)
        return _cmp_bool(memory_usage(s1) > request_quantity(p1, RESOURCE_MEMORY),
                         memory_usage(s2) > request_quantity(p2, RESOURCE_MEMORY))
    return cmp


def memory(index: PodStatsIndex) -> Cmp:
    """The largest working set above the memory request first."""
    def cmp(p1, p2) -> int:
        s1, s2 = index.get(p1), index.get(p2)
        if s1 is None or s2 is None:
            return _cmp_bool(s1 is None, s2 is None)
        d1 = memory_usage(s1) - request_quantity(p1, RESOURCE_MEMORY)
        d2 = memory_usage(s2) - request_quantity(p2, RESOURCE_MEMORY)
        return _sign(d2 - d1)
    return cmp


def process(index: PodStatsIndex) -> Cmp:
    """The most processes first."""
    def cmp(p1, p2) -> int:
        s1, s2 = index.get(p1), index.get(p2)
        if s1 is None or s2 is None:
            return _cmp_bool(s1 is None, s2 is None)
        return _sign(process_usage(s2) - process_usage(s1))
    return cmp


def exceed_disk_requests(index: PodStatsIndex, fs_stats: Sequence[str], resource: str) -> Cmp:
    """Pods without stats first, then pods whose usage of ``resource`` exceeds their request of it."""
    def cmp(p1, p2) -> int:
        s1, s2 = index.get(p1), index.get(p2)
        if s1 is None or s2 is None:
            return _cmp_bool(s1 is None, s2 is None)
        u1 = pod_disk_usage(s1, p1, fs_stats)[resource]
        u2 = pod_disk_usage(s2, p2, fs_stats)[resource]
        return _cmp_bool(u1 > request_quantity(p1, resource), u2 > request_quantity(p2, resource))
    return cmp


def disk(index: PodStatsIndex, fs_stats: Sequence[str], resource: str) -> Cmp:
    """The largest usage of ``resource`` above the ephemeral-storage request first (upstream
    subtracts the ephemeral-storage request for inodes too)."""
    def cmp(p1, p2) -> int:
        s1, s2 = index.get(p1), index.get(p2)
        if s1 is None or s2 is None:
            return _cmp_bool(s1 is None, s2 is None)
        d1 = pod_disk_usage(s1, p1, fs_stats)[resource] - request_quantity(p1, RESOURCE_EPHEMERAL_STORAGE)
        d2 = pod_disk_usage(s2, p2, fs_stats)[resource] - request_quantity(p2, RESOURCE_EPHEMERAL_STORAGE)
        return _sign(d2 - d1)
    return cmp


#: comparator names as upstream's functions, for case files and custom orders
COMPARATORS = {
    "priority": lambda index, fs, res: priority,
    "exceedMemoryRequests": lambda index, fs, res: exceed_memory_requests(index),
    "memory": lambda index, fs, res: memory(index),
    "process": lambda index, fs, res: process(index),
    "exceedDiskRequests": lambda index, fs, res: exceed_disk_requests(index, fs, res),
    "disk": lambda index, fs, res: disk(index, fs, res),
}


def _comparator_names(spec: RankSpec) -> list[str]:
    if spec.kind == "memory":
        return ["exceedMemoryRequests", "priority", "memory"]
    if spec.kind == "pid":
        return ["priority", "process"]
    return ["exceedDiskRequests", "priority", "disk"]


def order_by(pods: Sequence, cmps: Sequence[Cmp]) -> list:
    """Sort ``pods`` by the comparators in turn (upstream ``orderedBy(...).Sort``). The
    sort is stable; Go's is too for up to 12 pods, and beyond that differs only in how
    equal pods are ordered."""
    def key(p1, p2) -> int:
        for c in cmps:
            r = c(p1, p2)
            if r:
                return r
        return 0
    return sorted(pods, key=functools.cmp_to_key(key))


def rank_pods(pods: Sequence, pod_stats: Iterable[Mapping] | PodStatsIndex, signal: str,
              layout: str = LAYOUT_SINGLE) -> list:
    """The pods in the order the kubelet would evict them for pressure on ``signal``."""
    index = pod_stats if isinstance(pod_stats, PodStatsIndex) else PodStatsIndex(pod_stats)
    spec = rank_spec(signal, layout)
    return order_by(pods, [COMPARATORS[n](index, spec.fs_stats, spec.resource) for n in _comparator_names(spec)])


def _fmt_bytes(n: int) -> str:
    from kschedlab.api.quantity import BINARY_SI, Quantity

    return str(Quantity.from_int(n, BINARY_SI))


def ranking_table(pods: Sequence, pod_stats: Iterable[Mapping] | PodStatsIndex, signal: str,
                  layout: str = LAYOUT_SINGLE) -> list[dict]:
    """:func:`rank_pods` as rows (one per pod, in eviction order) with the facts each
    position rests on and a ``reason`` in words; feed it to ``pandas.DataFrame``.

    >>> from kschedlab.api.core import Pod
    >>> p = Pod.model_validate({"metadata": {"name": "a", "uid": "a"}, "spec": {"containers": [{"name": "c"}]}})
    >>> row = ranking_table([p], [{"podRef": {"uid": "a"}, "memory": {"workingSetBytes": 2**30}}],
    ...                     "memory.available")[0]
    >>> row["rank"], row["qos"], row["exceedsRequest"], row["reason"]
    (1, 'BestEffort', True, 'usage 1Gi exceeds request 0; priority 0; 1Gi above request')
    """
    index = pod_stats if isinstance(pod_stats, PodStatsIndex) else PodStatsIndex(pod_stats)
    spec = rank_spec(signal, layout)
    ordered = rank_pods(pods, index, signal, layout)
    rows = []
    for i, pod in enumerate(ordered, 1):
        stats = index.get(pod)
        prio = pod_priority(pod)
        row: dict[str, Any] = {
            "rank": i, "pod": f"{pod.metadata.namespace}/{pod.metadata.name}" if pod.metadata.namespace
            else pod.metadata.name,
            "qos": pod.qos_class(), "priority": prio, "signal": signal, "ranking": spec.describe(),
            "statsFound": stats is not None, "critical": is_critical_pod(pod),
        }
        if stats is None:
            row.update(usage=None, request=None, exceedsRequest=None, aboveRequest=None,
                       reason="no stats: ranked before every pod with stats")
        elif spec.kind == "pid":
            n = process_usage(stats)
            row.update(usage=n, request=None, exceedsRequest=None, aboveRequest=None,
                       reason=f"priority {prio}; {n} processes")
        else:
            if spec.kind == "memory":
                usage, req = memory_usage(stats), request_quantity(pod, RESOURCE_MEMORY)
                above = usage - req
                exceeds = usage > req
                fmt = _fmt_bytes
            else:
                usage = pod_disk_usage(stats, pod, spec.fs_stats)[spec.resource]
                req = request_quantity(pod, spec.resource)
                exceeds = usage > req
                above = usage - request_quantity(pod, RESOURCE_EPHEMERAL_STORAGE)
                fmt = _fmt_bytes if spec.resource == RESOURCE_EPHEMERAL_STORAGE else str
            verb = "exceeds" if exceeds else "within"
            word = "above" if above >= 0 else "below"
            row.update(usage=usage, request=req, exceedsRequest=exceeds, aboveRequest=above,
                       reason=f"usage {fmt(usage)} {verb} request {fmt(req)}; priority {prio}; "
                              f"{fmt(abs(above))} {word} request")
        if row["critical"]:
            row["reason"] += "; critical pod: never evicted"
        rows.append(row)
    return rows


def ranking_frame(pods: Sequence, pod_stats: Iterable[Mapping] | PodStatsIndex, signal: str,
                  layout: str = LAYOUT_SINGLE):
    """:func:`ranking_table` as a ``pandas.DataFrame`` indexed by rank."""
    import pandas as pd

    return pd.DataFrame(ranking_table(pods, pod_stats, signal, layout)).set_index("rank")
