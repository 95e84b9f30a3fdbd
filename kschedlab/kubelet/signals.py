"""Eviction signals: their names, the resource each one measures, the node condition it
drives, and how the kubelet observes them from summary-API stats (upstream
``pkg/kubelet/eviction/api/types.go`` and ``helpers.go`` ``makeSignalObservations``).

The seed's lost table of signals, restored:

===============================  ==================================================  =================
signal                           what the kubelet reads (summary API)                node condition
===============================  ==================================================  =================
``memory.available``             ``node.memory.availableBytes`` (= capacity -        MemoryPressure
                                 workingSet); capacity = available + workingSet
``allocatableMemory.available``  the ``pods`` system container's memory, as above    MemoryPressure
``nodefs.available``             ``node.fs.availableBytes`` of ``capacityBytes``     DiskPressure
``nodefs.inodesFree``            ``node.fs.inodesFree`` of ``inodes``                DiskPressure
``imagefs.available``            ``node.runtime.imageFs.availableBytes``             DiskPressure
``imagefs.inodesFree``           ``node.runtime.imageFs.inodesFree``                 DiskPressure
``containerfs.available``        ``node.runtime.containerFs.availableBytes``         DiskPressure
``containerfs.inodesFree``       ``node.runtime.containerFs.inodesFree``             DiskPressure
``pid.available``                ``node.rlimit.maxpid - node.rlimit.curproc``        PIDPressure
===============================  ==================================================  =================

Every signal's operator is ``LessThan``: a threshold is met when the observed
``available`` falls below it.

>>> obs = make_signal_observations({"node": {"memory": {"availableBytes": 512, "workingSetBytes": 1536}}})
>>> obs["memory.available"].available.value(), obs["memory.available"].capacity.value()
(512, 2048)
>>> SIGNAL_TO_NODE_CONDITION["pid.available"], SIGNAL_TO_RESOURCE["nodefs.inodesFree"]
('PIDPressure', 'inodes')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from kschedlab.api.quantity import BINARY_SI, DECIMAL_SI, Quantity

__all__ = [
    "SIGNAL_MEMORY_AVAILABLE", "SIGNAL_ALLOCATABLE_MEMORY_AVAILABLE", "SIGNAL_NODEFS_AVAILABLE",
    "SIGNAL_NODEFS_INODES_FREE", "SIGNAL_IMAGEFS_AVAILABLE", "SIGNAL_IMAGEFS_INODES_FREE",
    "SIGNAL_CONTAINERFS_AVAILABLE", "SIGNAL_CONTAINERFS_INODES_FREE", "SIGNAL_PID_AVAILABLE",
    "SIGNALS", "OP_LESS_THAN", "OP_FOR_SIGNAL", "SIGNAL_TO_RESOURCE", "SIGNAL_TO_NODE_CONDITION",
    "RESOURCE_MEMORY", "RESOURCE_EPHEMERAL_STORAGE", "RESOURCE_INODES", "RESOURCE_PIDS",
    "NODE_MEMORY_PRESSURE", "NODE_DISK_PRESSURE", "NODE_PID_PRESSURE", "SYSTEM_CONTAINER_PODS",
    "SignalObservation", "valid_signal", "make_signal_observations", "node_memory_stats",
]

SIGNAL_MEMORY_AVAILABLE = "memory.available"
SIGNAL_ALLOCATABLE_MEMORY_AVAILABLE = "allocatableMemory.available"
SIGNAL_NODEFS_AVAILABLE = "nodefs.available"
SIGNAL_NODEFS_INODES_FREE = "nodefs.inodesFree"
SIGNAL_IMAGEFS_AVAILABLE = "imagefs.available"
SIGNAL_IMAGEFS_INODES_FREE = "imagefs.inodesFree"
SIGNAL_CONTAINERFS_AVAILABLE = "containerfs.available"
SIGNAL_CONTAINERFS_INODES_FREE = "containerfs.inodesFree"
SIGNAL_PID_AVAILABLE = "pid.available"

#: the signals the kubelet evicts on (``swap.available`` is declared upstream but has no
#: resource, so the kubelet refuses it as a threshold).
SIGNALS = (
    SIGNAL_MEMORY_AVAILABLE, SIGNAL_ALLOCATABLE_MEMORY_AVAILABLE, SIGNAL_NODEFS_AVAILABLE,
    SIGNAL_NODEFS_INODES_FREE, SIGNAL_IMAGEFS_AVAILABLE, SIGNAL_IMAGEFS_INODES_FREE,
    SIGNAL_CONTAINERFS_AVAILABLE, SIGNAL_CONTAINERFS_INODES_FREE, SIGNAL_PID_AVAILABLE,
)

OP_LESS_THAN = "LessThan"
OP_FOR_SIGNAL = {s: OP_LESS_THAN for s in SIGNALS}

RESOURCE_MEMORY = "memory"
RESOURCE_EPHEMERAL_STORAGE = "ephemeral-storage"
#: resources internal to the eviction manager (not in any ResourceList of a pod)
RESOURCE_INODES = "inodes"
RESOURCE_PIDS = "pids"

SIGNAL_TO_RESOURCE = {
    SIGNAL_MEMORY_AVAILABLE: RESOURCE_MEMORY,
    SIGNAL_ALLOCATABLE_MEMORY_AVAILABLE: RESOURCE_MEMORY,
    SIGNAL_IMAGEFS_AVAILABLE: RESOURCE_EPHEMERAL_STORAGE,
    SIGNAL_IMAGEFS_INODES_FREE: RESOURCE_INODES,
    SIGNAL_CONTAINERFS_AVAILABLE: RESOURCE_EPHEMERAL_STORAGE,
    SIGNAL_CONTAINERFS_INODES_FREE: RESOURCE_INODES,
    SIGNAL_NODEFS_AVAILABLE: RESOURCE_EPHEMERAL_STORAGE,
    SIGNAL_NODEFS_INODES_FREE: RESOURCE_INODES,
    SIGNAL_PID_AVAILABLE: RESOURCE_PIDS,
}

NODE_MEMORY_PRESSURE = "MemoryPressure"
NODE_DISK_PRESSURE = "DiskPressure"
NODE_PID_PRESSURE = "PIDPressure"

#: The seed's lost table of node conditions, restored (upstream ``signalToNodeCondition``).
SIGNAL_TO_NODE_CONDITION = {
    SIGNAL_MEMORY_AVAILABLE: NODE_MEMORY_PRESSURE,
    SIGNAL_ALLOCATABLE_MEMORY_AVAILABLE: NODE_MEMORY_PRESSURE,
    SIGNAL_IMAGEFS_AVAILABLE: NODE_DISK_PRESSURE,
    SIGNAL_CONTAINERFS_AVAILABLE: NODE_DISK_PRESSURE,
    SIGNAL_NODEFS_AVAILABLE: NODE_DISK_PRESSURE,
    SIGNAL_IMAGEFS_INODES_FREE: NODE_DISK_PRESSURE,
    SIGNAL_NODEFS_INODES_FREE: NODE_DISK_PRESSURE,
    SIGNAL_CONTAINERFS_INODES_FREE: NODE_DISK_PRESSURE,
    SIGNAL_PID_AVAILABLE: NODE_PID_PRESSURE,
}

#: the summary API's name of the cgroup that holds every pod (node allocatable)
SYSTEM_CONTAINER_PODS = "pods"


def valid_signal(signal: str) -> bool:
    """Whether the kubelet accepts ``signal`` in a threshold (upstream ``validSignal``).

    >>> valid_signal("memory.available"), valid_signal("mem.available"), valid_signal("swap.available")
    (True, False, False)
    """
    return signal in SIGNAL_TO_RESOURCE


@dataclass(frozen=True)
class SignalObservation:
    """One observed signal: what is ``available`` out of ``capacity`` at ``time``.

    ``capacity`` is None where upstream's tests leave it out (literal thresholds need none);
    ``time`` is seconds on the caller's clock, or None when the stats carry no time.
    """

    available: Quantity
    capacity: Quantity | None = None
    time: float | None = None


def _num(d: Mapping[str, Any] | None, key: str) -> int | None:
    if not isinstance(d, Mapping):
        return None
    v = d.get(key)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int):
        raise ValueError(f"{key}: expected an integer, got {v!r}")
    return v


def _fs_observations(out: dict, fs: Mapping | None, available_signal: str, inodes_signal: str) -> None:
    if not isinstance(fs, Mapping):
        return
    t = fs.get("time")
    avail, cap = _num(fs, "availableBytes"), _num(fs, "capacityBytes")
    if avail is not None and cap is not None:
        out[available_signal] = SignalObservation(Quantity.from_int(avail, BINARY_SI),
                                                  Quantity.from_int(cap, BINARY_SI), t)
    free, inodes = _num(fs, "inodesFree"), _num(fs, "inodes")
    if free is not None and inodes is not None:
        out[inodes_signal] = SignalObservation(Quantity.from_int(free, DECIMAL_SI),
                                               Quantity.from_int(inodes, DECIMAL_SI), t)


def _memory_observation(mem: Mapping | None) -> SignalObservation | None:
    avail, ws = _num(mem, "availableBytes"), _num(mem, "workingSetBytes")
    if avail is None or ws is None:
        return None
    return SignalObservation(Quantity.from_int(avail, BINARY_SI), Quantity.from_int(avail + ws, BINARY_SI),
                             mem.get("time") if isinstance(mem, Mapping) else None)


def make_signal_observations(summary: Mapping[str, Any]) -> dict[str, SignalObservation]:
    """Observations of every signal the summary has the stats for (upstream
    ``makeSignalObservations`` on Linux, without swap).

    ``summary`` is the summary API's JSON (``/stats/summary``): ``node.memory``,
    ``node.systemContainers[name=pods].memory``, ``node.fs``, ``node.runtime.imageFs`` /
    ``containerFs``, ``node.rlimit`` (``maxpid``, ``curproc``). A signal whose stats are
    missing is not observed (its thresholds are then skipped).

    >>> obs = make_signal_observations({"node": {"fs": {"availableBytes": 1024, "capacityBytes": 2048,
    ...                                                  "inodesFree": 10, "inodes": 100},
    ...                                           "rlimit": {"maxpid": 255816, "curproc": 1000}}})
    >>> sorted(obs), obs["pid.available"].available.value()
    (['nodefs.available', 'nodefs.inodesFree', 'pid.available'], 254816)
    """
    node = summary.get("node") or {}
    out: dict[str, SignalObservation] = {}
    mem = _memory_observation(node.get("memory"))
    if mem is not None:
        out[SIGNAL_MEMORY_AVAILABLE] = mem
    for sc in node.get("systemContainers") or []:
        if isinstance(sc, Mapping) and sc.get("name") == SYSTEM_CONTAINER_PODS:
            alloc = _memory_observation(sc.get("memory"))
            if alloc is not None:
                out[SIGNAL_ALLOCATABLE_MEMORY_AVAILABLE] = alloc
            break
    _fs_observations(out, node.get("fs"), SIGNAL_NODEFS_AVAILABLE, SIGNAL_NODEFS_INODES_FREE)
    runtime = node.get("runtime") or {}
    _fs_observations(out, runtime.get("imageFs"), SIGNAL_IMAGEFS_AVAILABLE, SIGNAL_IMAGEFS_INODES_FREE)
    _fs_observations(out, runtime.get("containerFs"), SIGNAL_CONTAINERFS_AVAILABLE, SIGNAL_CONTAINERFS_INODES_FREE)
    rlimit = node.get("rlimit") or {}
    maxpid, curproc = _num(rlimit, "maxpid"), _num(rlimit, "curproc")
    if maxpid is not None and curproc is not None:
        out[SIGNAL_PID_AVAILABLE] = SignalObservation(Quantity.from_int(maxpid - curproc, DECIMAL_SI),
                                                      Quantity.from_int(maxpid, DECIMAL_SI), rlimit.get("time"))
    return out


def node_memory_stats(capacity_bytes: int, working_set_bytes: int, *, time: float | None = None) -> dict:
    """The summary API's memory stats of a cgroup whose limit is ``capacity_bytes``:
    ``availableBytes = capacity - workingSet`` (never below 0), as the kubelet's stats
    provider reports them -- the reason ``memory.available`` is "capacity - workingSet".

    >>> node_memory_stats(10 * 2**30, 9 * 2**30)
    {'availableBytes': 1073741824, 'workingSetBytes': 9663676416}
    """
    out = {"availableBytes": max(capacity_bytes - working_set_bytes, 0), "workingSetBytes": working_set_bytes}
    if time is not None:
        out["time"] = time
    return out
