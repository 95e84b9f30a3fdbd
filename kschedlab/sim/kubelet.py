"""The kubelet's node-pressure eviction on the simulation clock: one eviction manager per
node, a housekeeping round every 10 s of virtual time (upstream ``monitoringInterval``).

A round builds the node's summary-API stats from what its pods use (``spec.usage``) and
what the node uses outside pods (``spec.kubelet[].systemUsage``), as the kubelet's stats
provider reports them -- ``memory.available`` = capacity - working set, the ``pods``
cgroup (capacity - system and kube reserved) for ``allocatableMemory.available``, the
node filesystem (``ephemeral-storage`` capacity, ``inodes``) and ``pid.available`` =
``maxPID`` - processes -- and runs :func:`kschedlab.kubelet.synchronize` on it.  What
the round decides is applied by the engine: node conditions (MemoryPressure,
DiskPressure, PIDPressure, held for the pressure transition period), their NoSchedule
taints (the node lifecycle controller), and at most one eviction -- or, first and all at once
(``localStorageCapacityIsolation``, on unless the KubeletConfiguration turns it off), the pods
over their ``ephemeral-storage`` limits (a pod's usage counts as its first container's; emptyDir
volumes use nothing here), with a grace period of 1 s.

An evicted pod gets the ``DisruptionTarget`` condition (``TerminationByKubelet``) at
once; when its grace period is over it is ``Failed`` with reason ``Evicted`` and leaves
the node (the scheduler drops terminal pods), and its ReplicaSet creates a replacement.
The manager waits for the evicted pod to be gone (at most 30 s, polled every second)
before its next round, as upstream's ``waitForPodsCleanup`` does.  PodDisruptionBudgets
are not consulted: the kubelet does not.

For quiescence a node wants its next round only when the round could see something new:
its pods or their usage differ from the last round, a threshold met waits for its grace
period, or a condition is held by the transition period.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Iterable

from kschedlab.api.container_status import ContainerStatus
from kschedlab.api.core import normalize_image_name
from kschedlab.api.errors import ManifestError
from kschedlab.api.kubeletconfig import KubeletConfiguration
from kschedlab.api.quantity import Quantity, short_bytes
from kschedlab.api.usage import FS_LOGS, NodeKubelet, PodUsage
from kschedlab.kubelet.config import EvictionConfig, eviction_config
from kschedlab.kubelet.container_gc import DeadContainer
from kschedlab.kubelet.images import IMAGE_GC_PERIOD, Image, image_gc_policy
from kschedlab.kubelet.manager import Eviction, EvictionState, SyncResult, synchronize
from kschedlab.kubelet.oom import (
    OOM_CONTAINER,
    OOM_GLOBAL,
    OOM_KILLED_EXIT_CODE,
    OOM_KILLED_REASON,
    OOM_KUBEPODS,
    PAGE_SIZE,
    oom_processes,
    oom_ranking_table,
    select_bad_process,
)
from kschedlab.kubelet.ranking import LAYOUT_SPLIT, is_critical_pod
from kschedlab.kubelet.reclaim import DELETE_ALL_UNUSED_CONTAINERS, DELETE_UNUSED_IMAGES
from kschedlab.kubelet.signals import (
    NODE_DISK_PRESSURE,
    NODE_MEMORY_PRESSURE,
    NODE_PID_PRESSURE,
    SYSTEM_CONTAINER_PODS,
    node_memory_stats,
)
from kschedlab.kubelet.thresholds import get_threshold_quantity
from kschedlab.sim.node_runtime import BACKOFF_RESET_AFTER, ContainerState, NodeRuntime, first_crossing, restart_backoff

__all__ = ["HOUSEKEEPING_INTERVAL", "POD_CLEANUP_TIMEOUT", "CONDITION_REASONS", "REASON_TERMINATION_BY_KUBELET",
           "NodePressureEviction", "kubelet_for_node", "kubelet_configuration_for_node",            "signals_frame", "oom_frame", "reclaims_frame", "report", "report_text"]

#: seconds between two housekeeping rounds (upstream ``monitoringInterval``)
HOUSEKEEPING_INTERVAL = 10.0
#: how long the manager waits for an evicted pod to be cleaned up (upstream ``podCleanupTimeout``)
POD_CLEANUP_TIMEOUT = 30.0
#: the ``DisruptionTarget`` reason the kubelet writes (``v1.PodReasonTerminationByKubelet``)
REASON_TERMINATION_BY_KUBELET = "TerminationByKubelet"
#: condition -> (reason when True, reason when False), as the kubelet's node status setters write them
CONDITION_REASONS = {
    NODE_MEMORY_PRESSURE: ("KubeletHasInsufficientMemory", "KubeletHasSufficientMemory"),
    NODE_DISK_PRESSURE: ("KubeletHasDiskPressure", "KubeletHasNoDiskPressure"),
    NODE_PID_PRESSURE: ("KubeletHasInsufficientPID", "KubeletHasSufficientPID"),
}


def _pod_key(pod) -> str:
    return f"{pod.metadata.namespace or ''}/{pod.metadata.name}"


def kubelet_configuration_for_node(node, entries: list[NodeKubelet], default: KubeletConfiguration | None
                                   ) -> tuple[KubeletConfiguration, NodeKubelet] | None:
    """The KubeletConfiguration (defaults filled in) and node facts of ``node``'s kubelet
    (see :func:`kubelet_for_node`); None when the node has no simulated kubelet."""
    for i, entry in enumerate(entries):
        if entry.matches(node):
            if entry.config is None:
                base = default if default is not None else KubeletConfiguration()
                return base.with_defaults(), entry
            try:
                cfg = KubeletConfiguration.model_validate(
                    {"apiVersion": KubeletConfiguration.API_VERSION, "kind": KubeletConfiguration.KIND,
                     **entry.config}, by_alias=True, by_name=False)
            except ValueError as err:
                raise ManifestError(f"Simulation spec.kubelet[{i}].config: {err}") from None
            return cfg.with_defaults(), entry
    if default is None:
        return None
    return default.with_defaults(), NodeKubelet()


def kubelet_for_node(node, entries: list[NodeKubelet], default: KubeletConfiguration | None
                     ) -> tuple[EvictionConfig, NodeKubelet] | None:
    """The eviction config and node facts of ``node``'s kubelet: the first ``spec.kubelet``
    entry that matches it, else ``default`` (a KubeletConfiguration of the scenario) with
    no system usage; None when neither applies.

    >>> from kschedlab.api.core import Node
    >>> cfg, entry = kubelet_for_node(Node(metadata={"name": "n"}),
    ...     [NodeKubelet(node_names=["n"], config={"evictionHard": {"memory.available": "1Gi"}})], None)
    >>> [str(t) for t in cfg.thresholds if t.operator], entry.max_pid
    (['memory.available<1Gi', 'allocatableMemory.available<1Gi'], 4194304)
    """
    found = kubelet_configuration_for_node(node, entries, default)
    if found is None:
        return None
    cfg, entry = found
    try:
        return eviction_config(cfg).with_filesystems(entry.layout), entry
    except ManifestError as err:
        where = next((f"spec.kubelet[{i}].config" for i, e in enumerate(entries) if e is entry), "KubeletConfiguration")
        raise ManifestError(f"Simulation {where}: {err}") from None


@dataclass
class _NodeManager:
    """One node's eviction manager and what the driver remembers about it."""

    config: EvictionConfig
    facts: NodeKubelet
    state: EvictionState = field(default_factory=EvictionState)
    next_round: float = 0.0
    last_round: float | None = None
    last_inputs: Any = None
    conditions: set[str] = field(default_factory=set)
    runtime: NodeRuntime = field(default_factory=NodeRuntime)
    #: the kubelet's ``KubeletSeparateDiskGC`` gate (a split layout without it: no eviction at all)
    separate_disk_gc: bool = True


class NodePressureEviction:
    """The eviction managers of a simulation's nodes (see the module docstring).

    ``usage`` is ``spec.usage``; ``entries`` ``spec.kubelet``; ``default`` the scenario's
    KubeletConfiguration (or the defaults when usage is given without any).  The engine
    calls :meth:`next_wakeup`, :meth:`due` and :meth:`round`; the records are
    :attr:`signals` (one row per node, round and threshold), :attr:`conditions` (condition
    and taint changes) and :attr:`evictions` (each with its ranking table).
    """

    def __init__(self, usage: Iterable[PodUsage] = (), entries: Iterable[NodeKubelet] = (),
                 default: KubeletConfiguration | None = None):
        self.usage = list(usage)
        self.entries = list(entries)
        self.default = default
        self.managers: dict[str, _NodeManager | None] = {}
        self.started: dict[str, float] = {}
        #: pod key -> when its eviction grace period ends
        self.terminating: dict[str, float] = {}
        self.signals: list[dict] = []
        self.conditions: list[dict] = []
        self.evictions: list[dict] = []
        #: replacement pod key -> index of the eviction it replaces a pod of
        self.replacing: dict[str, int] = {}
        #: pod key -> its usage-bearing container's state (restarts after OOM kills)
        self.containers: dict[str, ContainerState] = {}
        #: the kernel's OOM kills, each with the table of the processes it weighed
        self.ooms: list[dict] = []
        #: node-level reclaim and periodic garbage collection that removed something
        self.reclaims: list[dict] = []
        #: normalized image name -> size in bytes, from every node's ``status.images``
        self.image_sizes: dict[str, int] = {}
        #: nodes whose images changed since the engine last wrote ``status.images``
        self.images_changed: set[str] = set()

    # -- bookkeeping the engine feeds ------------------------------------------------------
    def learn_images(self, nodes: Iterable) -> None:
        """Image sizes the nodes report (``status.images``): what a pull of that image takes."""
        for node in nodes:
            for img in node.status.images:
                for name in img.names:
                    self.image_sizes.setdefault(normalize_image_name(name), img.size_bytes or 0)

    def pod_started(self, key: str, now: float, node: str | None = None, pod=None) -> None:
        """Pod ``key`` started running on ``node`` at ``now`` (usage times count from here);
        the node pulls the images it lacks."""
        self.started[key] = now
        if pod is not None:
            first = pod.spec.containers[0] if pod.spec.containers else None
            if first is not None:
                self.containers[key] = ContainerState(first.name, first.image or "", now)
            mgr = self.managers.get(node) if node is not None else None
            if mgr is not None:
                for c in [*pod.spec.init_containers, *pod.spec.containers]:
                    if c.image and mgr.runtime.pull(c.image, self.image_sizes.get(normalize_image_name(c.image), 0)):
                        self.images_changed.add(node)
        index = self.replacing.pop(key, None)
        if index is not None:
            self.evictions[index]["replacementNode"] = node
            self.evictions[index]["replacementScheduled"] = now

    def manager(self, node) -> _NodeManager | None:
        """The eviction manager of ``node`` (None: the node has no simulated kubelet)."""
        name = node.metadata.name
        if name not in self.managers:
            found = kubelet_configuration_for_node(node, self.entries, self.default)
            if found is None:
                self.managers[name] = None
                return None
            cfg, entry = found
            config, entry = kubelet_for_node(node, self.entries, self.default)
            try:
                policy = image_gc_policy(cfg)
            except ValueError as err:
                raise ManifestError(f"Simulation: KubeletConfiguration of node {name}: {err}") from None
            self.learn_images([node])
            images = [Image(normalize_image_name(img.names[0]), img.size_bytes or 0)
                      for img in node.status.images if img.names]
            gates = getattr(cfg, "featureGates", None) or {}
            self.managers[name] = _NodeManager(config, entry, runtime=NodeRuntime(entry.layout, images, policy),
                                               separate_disk_gc=bool(gates.get("KubeletSeparateDiskGC", True)))
        return self.managers[name]

    # -- usage and stats -------------------------------------------------------------------
    def container_start(self, pod, now: float) -> float | None:
        """When ``pod``'s (usage-bearing) container last started, as of ``now``; None while it
        waits to restart."""
        key = _pod_key(pod)
        st = self.containers.get(key)
        if st is None:
            return self.started.get(key, 0.0)
        if st.waiting_until is not None:
            return st.waiting_until if now >= st.waiting_until else None
        return st.started

    def pod_usage(self, pod, now: float) -> dict[str, int]:
        """What ``pod`` uses at ``now`` (later entries win): ``memory``, ``pids``,
        ``ephemeral-storage`` / ``inodes`` of its writable layer, ``logs`` / ``logs-inodes``.
        Times count from the container's last start; nothing while it waits to restart."""
        start = self.container_start(pod, now)
        if start is None:
            return {}
        out: dict[str, int] = {}
        for u in self.usage:
            if u.matches(pod):
                out[_usage_key(u)] = u.shape.value_at(now - start)
        return out

    def _inputs(self, pods: list, now: float) -> tuple:
        return tuple((_pod_key(p), p.metadata.uid, tuple(sorted(self.pod_usage(p, now).items())),
                      _pod_key(p) in self.terminating) for p in pods)

    def summary(self, node, pods: list, now: float) -> dict:
        """The node's summary-API stats at ``now`` (``{"node": ..., "pods": [...]}``)."""
        mgr = self.manager(node)
        facts = mgr.facts if mgr is not None else NodeKubelet()
        capacity = node.status.capacity or node.status.allocatable or {}
        pod_stats, totals = [], {r: 0 for r in ("memory", "ephemeral-storage", "inodes", "pids", "logs",
                                                "logs-inodes")}
        for pod in pods:
            use = self.pod_usage(pod, now)
            for r, v in use.items():
                totals[r] += v
            container = pod.spec.containers[0].name if pod.spec.containers else ""
            mem = {"workingSetBytes": use.get("memory", 0), "time": now}
            pod_stats.append({
                "podRef": {"name": pod.metadata.name, "namespace": pod.metadata.namespace or "",
                           "uid": pod.metadata.uid or ""},
                "memory": mem,
                "containers": [{"name": container, "memory": dict(mem),
                                "rootfs": {"usedBytes": use.get("ephemeral-storage", 0),
                                           "inodesUsed": use.get("inodes", 0)},
                                "logs": {"usedBytes": use.get("logs", 0), "inodesUsed": use.get("logs-inodes", 0)}}],
                "process_stats": {"process_count": use.get("pids", 0)},
            })
        system = facts.system_usage
        node_stats: dict[str, Any] = {"nodeName": node.metadata.name}
        if "memory" in capacity:
            cap = Quantity(capacity["memory"]).value() if not isinstance(capacity["memory"], Quantity) \
                else capacity["memory"].value()
            node_stats["memory"] = node_memory_stats(cap, totals["memory"] + system.get("memory", 0), time=now)
            reserved = sum(q.value() for part in (mgr.config.system_reserved, mgr.config.kube_reserved)
                           for k, q in part.items() if k == "memory") if mgr is not None else 0
            node_stats["systemContainers"] = [{"name": SYSTEM_CONTAINER_PODS,
                                               "memory": node_memory_stats(max(cap - reserved, 0), totals["memory"],
                                                                           time=now)}]
        if "ephemeral-storage" in capacity:
            raw = capacity["ephemeral-storage"]
            cap = raw.value() if isinstance(raw, Quantity) else Quantity(raw).value()
            rt = mgr.runtime if mgr is not None else NodeRuntime()
            dead = rt.dead_usage()
            used = {"writable": totals["ephemeral-storage"] + dead["writable"], "logs": totals["logs"] + dead["logs"],
                    "system": system.get("ephemeral-storage", 0)}
            inodes = {"writable": totals["inodes"] + dead["inodes"], "logs": totals["logs-inodes"],
                      "system": system.get("inodes", 0)}
            image_fs = facts.image_fs
            by_fs = rt.filesystems(used, nodefs_capacity=cap, imagefs_capacity=image_fs.capacity if image_fs else None)
            # inodes: images count none (the runtime reports their bytes only)
            by_fs_inodes = rt.filesystems(inodes, nodefs_capacity=facts.inodes or 0,
                                          imagefs_capacity=image_fs.inodes if image_fs else None, images=0)
            stats = {}
            for fsname in ("nodefs", "imagefs", "containerfs"):
                f = by_fs[fsname]
                out = {"capacityBytes": f["capacity"], "time": now, "usedBytes": min(f["used"], f["capacity"]),
                       "availableBytes": max(f["capacity"] - f["used"], 0)}
                total_inodes = facts.inodes if by_fs_inodes[fsname] is by_fs_inodes["nodefs"] else \
                    (image_fs.inodes if image_fs else None)
                if total_inodes is not None:
                    out["inodes"] = total_inodes
                    out["inodesFree"] = max(total_inodes - by_fs_inodes[fsname]["used"], 0)
                stats[fsname] = out
            node_stats["fs"] = stats["nodefs"]
            node_stats["runtime"] = {"imageFs": stats["imagefs"], "containerFs": stats["containerfs"]}
        node_stats["rlimit"] = {"maxpid": facts.max_pid, "curproc": totals["pids"] + system.get("pids", 0),
                                "time": now}
        return {"node": node_stats, "pods": pod_stats}

    # -- timing ------------------------------------------------------------------------------
    def _align(self, mgr: _NodeManager, now: float) -> float:
        if mgr.next_round < now:
            steps = math.ceil((now - mgr.next_round) / HOUSEKEEPING_INTERVAL - 1e-9)
            mgr.next_round += steps * HOUSEKEEPING_INTERVAL
        return mgr.next_round

    def _wants_round(self, mgr: _NodeManager, pods: list, when: float) -> bool:
        if mgr.last_round is None:
            return True
        if self._inputs(pods, when) != mgr.last_inputs:
            return True
        st, last = mgr.state, mgr.last_round
        for pod in pods:  # a usage that changes after the last round
            since = self.container_start(pod, when)
            if since is not None and any(u.matches(pod) and since + u.shape.last_change() > last for u in self.usage):
                return True
        if self._gc_pending(mgr, pods, when):
            return True
        for t, first in st.thresholds_first_observed_at.items():
            if first + t.grace_period / 1e9 > last:
                return True
        met_now = set(_conditions_of(st.thresholds_first_observed_at))
        return any(cond not in met_now for cond in st.node_conditions)  # held by the transition period

    def _gc_pending(self, mgr: _NodeManager, pods: list, when: float) -> bool:
        """Whether a periodic garbage collection due by ``when`` would remove something."""
        rt = mgr.runtime
        if when >= rt.next_container_gc and rt.collectable_containers(when):
            return True
        if when >= rt.next_image_gc and rt.images:
            fs = self._image_fs(mgr, when)
            if fs is not None and fs[0] and 100 - fs[1] * 100 // fs[0] >= rt.image_gc.policy.high_threshold_percent:
                in_use = rt.images_in_use(_images_of(pods))
                return any(i not in in_use and not img.pinned for i, img in rt.images.items())
        return False

    def _image_fs(self, mgr: _NodeManager, now: float) -> tuple[int, int] | None:
        """(capacity, available) of the node's image filesystem as last observed."""
        obs = mgr.state.last_observations.get("imagefs.available")
        if obs is None or obs.capacity is None:
            return None
        return obs.capacity.value(), obs.available.value()

    def next_wakeup(self, cluster, now: float) -> float | None:
        """The next round, OOM kill or container restart that could change something, over all
        nodes (None: none could)."""
        out = None
        for name, node in cluster.nodes.items():
            mgr = self.manager(node)
            if mgr is None:
                continue
            pods = self.pods_on(cluster, name)
            when = self._align(mgr, now)
            times = [when] if self._wants_round(mgr, pods, when) else []
            for gc_at in (mgr.runtime.next_container_gc, mgr.runtime.next_image_gc):
                # the first round at or after a periodic collection that would remove something
                t = when if gc_at <= when else \
                    when + math.ceil((gc_at - when) / HOUSEKEEPING_INTERVAL - 1e-9) * HOUSEKEEPING_INTERVAL
                if t > when and self._gc_pending(mgr, pods, t):
                    times.append(t)
            oom = self.next_oom(cluster, name, now)
            if oom is not None:
                times.append(oom[0])
            times += [st.waiting_until for p in pods if (st := self.containers.get(_pod_key(p))) is not None
                      and st.waiting_until is not None and st.waiting_until >= now]
            for t in times:
                out = t if out is None else min(out, t)
        return out

    def due(self, cluster, now: float) -> list[str]:
        """The nodes whose round is due at ``now``."""
        out = []
        for name, node in cluster.nodes.items():
            mgr = self.manager(node)
            if mgr is not None and self._align(mgr, now) <= now and (mgr.last_round is None or mgr.last_round < now):
                out.append(name)
        return out

    @staticmethod
    def pods_on(cluster, node: str) -> list:
        """The pods bound to ``node`` (in name order)."""
        return sorted((p for p in cluster.pods.values() if p.spec.node_name == node), key=_pod_key)

    # -- one round -------------------------------------------------------------------------
    def round(self, cluster, name: str, now: float) -> SyncResult:
        """Node ``name``'s housekeeping round at ``now``: records what it saw and returns the
        result; the caller applies conditions, taints and the eviction."""
        node = cluster.nodes[name]
        mgr = self.manager(node)
        pods = self.pods_on(cluster, name)
        active = [p for p in pods if p.metadata.deletion_timestamp is None and _pod_key(p) not in self.terminating]
        self._periodic_gc(mgr, name, pods, now)
        summary = self.summary(node, pods, now)
        if mgr.runtime.layout == LAYOUT_SPLIT and not mgr.separate_disk_gc:
            # upstream's synchronize fails every round: no signals, no conditions, no eviction
            result = SyncResult({}, [], list(mgr.state.node_conditions), [])
            result.message = "KubeletSeparateDiskGC is turned off but we still have a split filesystem"
            mgr.last_round, mgr.last_inputs = now, self._inputs(pods, now)
            mgr.next_round = now + HOUSEKEEPING_INTERVAL
            return result
        reclaim: dict = {}

        def after_reclaim(steps: tuple[str, ...]) -> dict:
            reclaim.update(self._reclaim(mgr, pods, steps, now))
            return self.summary(node, pods, now)

        mgr.state, result = synchronize(mgr.config, mgr.state, summary, active, now, layout=mgr.runtime.layout,
                                        summary_after_reclaim=after_reclaim,
                                        local_storage_capacity_isolation=mgr.config.local_storage_capacity_isolation)
        if reclaim:
            self.reclaims.append({"time": now, "node": name, "kind": "eviction",
                                  "signal": result.threshold_to_reclaim.signal, "steps": list(result.node_reclaim),
                                  **reclaim, "sufficient": result.node_reclaim_sufficient})
        mgr.last_round = now
        mgr.last_inputs = self._inputs(pods, now)
        mgr.next_round = now + HOUSEKEEPING_INTERVAL
        met = set(result.thresholds_met)
        for t in mgr.config.thresholds:
            obs = result.observations.get(t.signal)
            if not t.operator or obs is None:
                continue
            self.signals.append({"time": now, "node": name, "signal": t.signal,
                                 "available": str(obs.available), "availableBytes": obs.available.value(),
                                 "threshold": str(get_threshold_quantity(t.value, obs.capacity)),
                                 "thresholdSpec": "" if t.value.quantity is not None else str(t.value),
                                 "thresholdValue": get_threshold_quantity(t.value, obs.capacity).value(),
                                 "kind": "hard" if t.hard else "soft", "met": t in met})
        return result

    def _reclaim(self, mgr: _NodeManager, pods: list, steps: tuple[str, ...], now: float) -> dict:
        """Node-level reclaim as the eviction manager runs it: every dead container of a
        terminated pod (and the extra ones of running pods), then every unused image."""
        out = {"containersRemoved": [], "imagesRemoved": [], "freedBytes": 0}
        for step in steps:
            if step == DELETE_ALL_UNUSED_CONTAINERS:
                gone = mgr.runtime.remove_containers(now, evict_non_deleted_pods=True)
                out["containersRemoved"] += [f"{c.pod}/{c.name}#{c.attempt}" for c in gone]
                out["freedBytes"] += sum(c.disk + c.logs for c in gone)
            elif step == DELETE_UNUSED_IMAGES:
                res = mgr.runtime.delete_unused_images(_images_of(pods), now)
                out["imagesRemoved"] += res.removed
                out["freedBytes"] += res.freed
                if res.removed:
                    self.images_changed.add(self._name_of(mgr))
        return out

    def _name_of(self, mgr: _NodeManager) -> str:
        return next(n for n, m in self.managers.items() if m is mgr)

    def _periodic_gc(self, mgr: _NodeManager, name: str, pods: list, now: float) -> None:
        """The kubelet's own collections, when due: dead containers every minute, image
        detection and image GC (down to the low threshold) every 5 minutes."""
        rt = mgr.runtime
        if now >= rt.next_container_gc:
            gone = rt.remove_containers(now, periodic=True)
            if gone:
                self.reclaims.append({"time": now, "node": name, "kind": "containerGC", "signal": None, "steps": [],
                                      "containersRemoved": [f"{c.pod}/{c.name}#{c.attempt}" for c in gone],
                                      "imagesRemoved": [], "freedBytes": sum(c.disk + c.logs for c in gone),
                                      "sufficient": None})
        if now >= rt.next_detect:
            rt.detect(_images_of(pods), now)
        if now >= rt.next_image_gc:
            fs = self._image_fs(mgr, now)
            if fs is None:
                rt.next_image_gc = now + IMAGE_GC_PERIOD
                return
            res = rt.garbage_collect_images(_images_of(pods), now, *fs)
            if res.removed or res.error:
                self.images_changed.add(name)
                self.reclaims.append({"time": now, "node": name, "kind": "imageGC", "signal": None, "steps": [],
                                      "containersRemoved": [], "imagesRemoved": res.removed,
                                      "freedBytes": res.freed, "sufficient": res.error is None,
                                      "error": res.error})

    # -- the kernel's OOM killer and container restarts ------------------------------------
    def _memory_limits(self, node, mgr: _NodeManager) -> tuple[int | None, int | None]:
        """(node memory capacity, the kubepods cgroup's limit or None when not enforced)."""
        capacity = node.status.capacity or node.status.allocatable or {}
        if "memory" not in capacity:
            return None, None
        raw = capacity["memory"]
        cap = raw.value() if isinstance(raw, Quantity) else Quantity(raw).value()
        if "pods" not in mgr.config.enforce_node_allocatable:
            return cap, None
        reserved = sum(q.value() for part in (mgr.config.system_reserved, mgr.config.kube_reserved)
                       for k, q in part.items() if k == "memory")
        return cap, max(cap - reserved, 0)

    def _memory_points(self, pods: list, now: float) -> list[float]:
        return [t for t in self._all_memory_points(pods, now) if math.isfinite(t)]

    def _all_memory_points(self, pods: list, now: float) -> list[float]:
        points = [now]
        for pod in pods:
            st = self.containers.get(_pod_key(pod))
            start = self.container_start(pod, now)
            if st is not None and st.waiting_until is not None:
                points.append(st.waiting_until)
                start = st.waiting_until
            if start is None:
                continue
            for u in self.usage:
                if u.resource == "memory" and u.matches(pod):
                    points += [start + b for b in _shape_points(u.shape)]
        return points

    def next_oom(self, cluster, name: str, now: float) -> tuple[float, str, str | None] | None:
        """The next moment memory runs out on node ``name`` at or after ``now``: (time, domain,
        pod key for a container limit); domains are tried container, kubepods, node."""
        node = cluster.nodes[name]
        mgr = self.manager(node)
        if mgr is None:
            return None
        cap, pods_limit = self._memory_limits(node, mgr)
        pods = [p for p in self.pods_on(cluster, name)]
        if cap is None or not pods or not any(u.resource == "memory" for u in self.usage):
            return None
        points = self._memory_points(pods, now)
        system = mgr.facts.system_usage.get("memory", 0)
        best = None
        for pod in pods:
            c = pod.spec.containers[0] if pod.spec.containers else None
            lim = c.resources.limits.get("memory") if c is not None and c.resources else None
            if lim is None:
                continue
            t = first_crossing(lambda t, pod=pod: self.pod_usage(pod, t).get("memory", 0), lim.value(), now, points)
            if t is not None and (best is None or t < best[0]):
                best = (t, OOM_CONTAINER, _pod_key(pod))

        def total(t: float) -> int:
            return sum(self.pod_usage(p, t).get("memory", 0) for p in pods)

        for domain, limit, extra in ((OOM_KUBEPODS, pods_limit, 0), (OOM_GLOBAL, cap, system)):
            if limit is None:
                continue
            t = first_crossing(lambda t, extra=extra: total(t) + extra, limit, now, points)
            if t is not None and (best is None or t < best[0]):
                best = (t, domain, None)
        return best

    def advance(self, cluster, now: float) -> list[tuple[str, str]]:
        """Restarts and OOM kills due at ``now``, in order. Returns ``(pod key, "Failed")`` for
        pods an OOM kill ended (``restartPolicy: Never``) and ``(pod key, "status")`` for pods
        whose container status changed; the engine applies them."""
        out: list[tuple[str, str]] = []
        for key, st in self.containers.items():
            if st.waiting_until is not None and st.waiting_until <= now:
                st.started, st.waiting_until = st.waiting_until, None
                st.restart_count += 1
                out.append((key, "status"))
        for name in sorted(cluster.nodes):
            for _ in range(1000):  # one kill per step; stop when memory suffices or nothing is left
                oom = self.next_oom(cluster, name, now)
                if oom is None or oom[0] > now:
                    break
                killed = self._oom_kill(cluster, name, now, *oom[1:])
                if killed is None:
                    break
                out.append(killed)
        return out

    def _oom_kill(self, cluster, name: str, now: float, domain: str, pod_key: str | None) -> tuple[str, str] | None:
        node = cluster.nodes[name]
        mgr = self.manager(node)
        cap, pods_limit = self._memory_limits(node, mgr)
        pods = [p for p in self.pods_on(cluster, name) if self.container_start(p, now) is not None]
        if domain == OOM_CONTAINER:
            pods = [p for p in pods if _pod_key(p) == pod_key]
            c = pods[0].spec.containers[0]
            limit = c.resources.limits["memory"].value()
        else:
            limit = pods_limit if domain == OOM_KUBEPODS else cap
        totalpages = limit // PAGE_SIZE
        stats = self.summary(node, pods, now)["pods"]
        procs = oom_processes(pods, stats, cap, totalpages)
        if domain == OOM_CONTAINER:
            procs = [p for p in procs if p.container == pods[0].spec.containers[0].name]
        victim = select_bad_process(procs)
        table = oom_ranking_table(pods, stats, cap, totalpages)
        if domain == OOM_CONTAINER:
            table = [r for r in table if r["pod"] == victim.pod and r["container"] == victim.container] \
                if victim is not None else []
        demand = sum(self.pod_usage(p, now).get("memory", 0) for p in pods) + \
            (mgr.facts.system_usage.get("memory", 0) if domain == OOM_GLOBAL else 0)
        record = {"time": now, "node": name, "domain": domain, "limit": limit, "demand": demand,
                  "totalpages": totalpages, "pod": None, "container": None, "rss": None, "action": None,
                  "ranking": [{k: _plain(v) for k, v in r.items()} for r in table]}
        self.ooms.append(record)
        if victim is None:
            record["action"] = "no process to kill"
            return None
        pod = next(p for p in pods if _pod_name_key(p) == victim.pod)
        key = _pod_key(pod)
        st = self._container(pod)
        use = self.pod_usage(pod, now)
        record.update(pod=key, container=victim.container, rss=victim.rss)
        if st is None or st.name != victim.container:
            # a container without usage of its own: its death frees nothing the model counts
            record["action"] = "killed (no usage modelled)"
            return None
        mgr.runtime.add_dead(DeadContainer(key, st.name, st.started, image=st.image,
                                           disk=use.get("ephemeral-storage", 0), logs=use.get("logs", 0),
                                           inodes=use.get("inodes", 0) + use.get("logs-inodes", 0),
                                           attempt=st.restart_count))
        st.last_terminated = {"exitCode": OOM_KILLED_EXIT_CODE, "reason": OOM_KILLED_REASON,
                              "startedAt": st.started, "finishedAt": now}
        policy = pod.spec.restart_policy or "Always"
        if policy in ("Always", "OnFailure"):
            if now - st.started >= BACKOFF_RESET_AFTER:
                st.backoff_level = 0
            st.waiting_until = now + restart_backoff(st.backoff_level)
            st.backoff_level += 1
            record["action"] = f"restart at {st.waiting_until:g} s (restartPolicy {policy})"
            return key, "status"
        st.waiting_until = float("inf")
        record["action"] = "pod Failed (restartPolicy Never)"
        return key, "Failed"

    def _container(self, pod) -> ContainerState | None:
        """The state of ``pod``'s usage-bearing container (made on first use for pods bound
        before the kubelet model existed)."""
        key = _pod_key(pod)
        if key not in self.containers and pod.spec.containers and pod.spec.node_name:
            first = pod.spec.containers[0]
            self.containers[key] = ContainerState(first.name, first.image or "", self.started.get(key, 0.0))
        return self.containers.get(key)

    def container_statuses(self, pod, now: float) -> list[ContainerStatus]:
        """``status.containerStatuses`` of ``pod`` as the kubelet would report them (times on the
        simulation's clock, seconds after the Unix epoch, as the pod's ``startTime``)."""
        st = self._container(pod)
        out = []
        for c in pod.spec.containers:
            if st is None or c.name != st.name:
                out.append({"name": c.name, "image": c.image, "ready": True, "restartCount": 0, "started": True,
                            "state": {"running": {}}})
                continue
            running = st.waiting_until is None
            term = st.last_terminated
            entry: dict[str, Any] = {"name": c.name, "image": c.image, "ready": running,
                                     "restartCount": st.restart_count, "started": running}
            if running:
                entry["state"] = {"running": {"startedAt": _clock_time(st.started)}}
            elif st.waiting_until == float("inf"):
                entry["state"] = {"terminated": _terminated(term)}
            else:
                entry["state"] = {"waiting": {"reason": "CrashLoopBackOff"}}
            if term is not None and not (st.waiting_until == float("inf")):
                entry["lastState"] = {"terminated": _terminated(term)}
            out.append(entry)
        return [ContainerStatus.model_validate(entry) for entry in out]

    def pod_gone(self, pod, node: str | None, now: float) -> None:
        """``pod`` left ``node`` (evicted, finished or deleted): its containers are dead and
        their content is collectable; its writable layer and logs stay until then."""
        key = _pod_key(pod)
        st = self._container(pod)
        self.containers.pop(key, None)
        mgr = self.managers.get(node) if node else None
        if mgr is None:
            return
        running = st is None or (st.waiting_until is None or now >= st.waiting_until)
        use = self.pod_usage(pod, now) if running else {}
        for c in pod.spec.containers:
            mine = st is not None and c.name == st.name
            mgr.runtime.add_dead(DeadContainer(
                key, c.name, st.started if mine else self.started.get(key, now), pod_removable=True,
                pod_terminated=True, image=c.image or "",
                disk=use.get("ephemeral-storage", 0) if mine else 0, logs=use.get("logs", 0) if mine else 0,
                inodes=(use.get("inodes", 0) + use.get("logs-inodes", 0)) if mine else 0,
                attempt=st.restart_count if mine else 0))

    def evicted(self, name: str, pod, result: SyncResult, now: float, *, local: Eviction | None = None) -> float:
        """Record the eviction of ``pod`` by node ``name``'s round (``local``: one of the round's
        local-storage evictions, else the pod the thresholds chose); returns when its grace
        period ends (the manager's next round comes after the cleanup)."""
        key = _pod_key(pod)
        grace = local.grace_period_seconds if local is not None else result.grace_period_seconds
        gone = now + grace
        self.terminating[key] = gone
        mgr = self.managers[name]
        mgr.next_round = now + min(grace, POD_CLEANUP_TIMEOUT) + HOUSEKEEPING_INTERVAL
        self.evictions.append({
            "time": now, "node": name, "pod": key,
            "signal": None if local is not None else result.threshold_to_reclaim.signal,
            "resource": "ephemeral-storage" if local is not None else result.resource_to_reclaim,
            "gracePeriodSeconds": grace, "terminated": gone,
            "message": local.message if local is not None else result.message,
            "nodeReclaim": [] if local is not None else list(result.node_reclaim),
            "ranking": [] if local is not None else [{k: _plain(v) for k, v in row.items()} for row in result.ranking],
            "replacement": None, "replacementNode": None, "replacementScheduled": None,
        })
        return gone

    def critical(self, pod) -> bool:
        """Whether the kubelet never evicts ``pod`` (static, mirror, system-critical)."""
        return is_critical_pod(pod)


def _usage_key(u: PodUsage) -> str:
    if u.target == FS_LOGS:
        return "logs" if u.resource == "ephemeral-storage" else "logs-inodes"
    return u.resource


def _shape_points(shape) -> list[float]:
    s = shape.spec
    if shape.kind == "constant":
        return [0.0]
    if shape.kind == "step":
        return [float(s.at)]
    if shape.kind == "table":
        return [float(r.at) for r in s]
    return [float(s.start), float(s.end)]


def _images_of(pods: Iterable) -> list[str]:
    return [c.image for p in pods for c in [*p.spec.init_containers, *p.spec.containers] if c.image]


def _pod_name_key(pod) -> str:
    ns = pod.metadata.namespace
    return f"{ns}/{pod.metadata.name}" if ns else pod.metadata.name


def _plain(v: Any) -> Any:
    if isinstance(v, (str, int, float, bool)) or v is None:
        return v
    return str(v)


def _conditions_of(thresholds) -> list[str]:
    from kschedlab.kubelet.thresholds import node_conditions

    return node_conditions(list(thresholds))


def signals_frame(kubelet: NodePressureEviction, *, compact: bool = True):
    """The signals against their thresholds, one row per node, round and threshold
    (``compact``: only the rows where ``available`` or ``met`` changed since that node's
    previous round, and the last round)."""
    import pandas as pd

    cols = ["time", "node", "signal", "kind", "available", "threshold", "met"]
    rows = kubelet.signals
    if compact:
        out, last, final = [], {}, {}
        for r in rows:
            final[(r["node"], r["signal"], r["kind"])] = r
        for r in rows:
            k = (r["node"], r["signal"], r["kind"])
            if last.get(k) != (r["availableBytes"], r["met"]) or final[k] is r:
                out.append(r)
            last[k] = (r["availableBytes"], r["met"])
        rows = out
    frame = pd.DataFrame(rows, columns=cols)
    if len(frame):
        in_bytes = ~frame["signal"].str.contains("inodes|pid", regex=True)
        frame.loc[in_bytes, "available"] = [short_bytes(r["availableBytes"])
                                            for r, b in zip(rows, in_bytes) if b]
        # a percentage threshold reads as the configured share and what it is of this capacity
        frame.loc[in_bytes, "threshold"] = [
            (f"{r['thresholdSpec']} = " if r.get("thresholdSpec") else "") + short_bytes(r["thresholdValue"])
            for r, b in zip(rows, in_bytes) if b]
    return frame


def report(kubelet: NodePressureEviction) -> dict:
    """What ``kschedlab simulate -o json`` shows under ``kubelet``: every signal row, the
    condition and taint changes, and the evictions with their ranking tables."""
    return {"signals": [dict(r) for r in kubelet.signals], "conditions": [dict(r) for r in kubelet.conditions],
            "evictions": [dict(r) for r in kubelet.evictions], "oomKills": [dict(r) for r in kubelet.ooms],
            "reclaims": [dict(r) for r in kubelet.reclaims]}


def oom_text(o: dict) -> list[str]:
    """Lines of the table output for one OOM kill."""
    import pandas as pd

    where = {"node": "the node's memory", "kubepods": "the kubepods cgroup (node allocatable)",
             "container": "the container's memory limit"}[o["domain"]]
    head = (f"\n{o['time']:g} s  {o['node']}: out of memory in {where} ({short_bytes(o['demand'])} wanted, "
            f"{short_bytes(o['limit'])} there) -- the kernel's OOM killer ")
    if o["pod"] is None:
        return [head + "found no process to kill"]
    lines = [head + f"kills {o['pod']} container {o['container']} (OOMKilled, exit code 137): {o['action']}"]
    if o["ranking"]:
        table = pd.DataFrame(o["ranking"])[["rank", "pod", "container", "qos", "memoryRequest", "rss", "oomScoreAdj",
                                             "badness", "oomScore", "killed"]]
        for col in ("memoryRequest", "rss"):
            table[col] = [short_bytes(v) for v in table[col]]
        lines.append("  " + table.to_string(index=False).replace("\n", "\n  "))
    return lines


def reclaim_text(r: dict) -> str:
    """One line of the table output for a garbage collection or node-level reclaim."""
    what = {"eviction": f"node-level reclaim for {r['signal']} ({', '.join(r['steps'])})",
            "containerGC": "container GC", "imageGC": "image GC"}[r["kind"]]
    parts = []
    if r["containersRemoved"]:
        parts.append(f"{len(r['containersRemoved'])} dead container(s)")
    if r["imagesRemoved"]:
        parts.append("images " + ", ".join(r["imagesRemoved"]))
    freed = f"freed {short_bytes(r['freedBytes'])}" if r["freedBytes"] else "freed nothing"
    tail = ""
    if r["kind"] == "eviction":
        tail = "; enough: no pod evicted" if r["sufficient"] else "; not enough"
    elif r.get("error"):
        tail = f"; {r['error']}"
    return f"  {r['time']:g} s  {r['node']}  {what}: {', '.join(parts) or 'nothing to remove'}, {freed}{tail}"


def report_text(kubelet: NodePressureEviction) -> str:
    """The kubelet part of ``kschedlab simulate``'s table output."""
    import pandas as pd

    parts = ["node-pressure eviction: signals against thresholds (rows where something changed)",
             signals_frame(kubelet).to_string(index=False)]
    if kubelet.reclaims:
        parts += ["\ngarbage collection and node-level reclaim:"] + [reclaim_text(r) for r in kubelet.reclaims]
    for o in kubelet.ooms:
        parts += oom_text(o)
    if kubelet.conditions:
        parts += ["\nnode conditions and taints:"]
        for c in kubelet.conditions:
            taints = "".join([f"  +{t}" for t in c["taintsAdded"]] + [f"  -{t}" for t in c["taintsRemoved"]])
            parts.append(f"  {c['time']:g} s  {c['node']}  {c['condition']}={c['status']}{taints}")
    for e in kubelet.evictions:
        cause = e["signal"] or "over its local-storage limit"
        parts += [f"\n{e['time']:g} s  {e['node']} evicts {e['pod']} ({cause}, grace period "
                  f"{e['gracePeriodSeconds']} s; Failed/Evicted at {e['terminated']:g} s)",
                  f"  message: {e['message'].strip()}"]
        if e["nodeReclaim"]:
            parts.append(f"  node-level reclaim first: {', '.join(e['nodeReclaim'])} (not enough)")
        if e["ranking"]:
            table = pd.DataFrame(e["ranking"])
            if e.get("ranking") and (e["ranking"][0].get("ranking") == "memory"
                                     or str(e["ranking"][0].get("ranking")).startswith("disk(ephemeral-storage")):
                for col in ("usage", "request", "aboveRequest"):
                    if col in table:
                        table[col] = [short_bytes(v) if v == v and v is not None else "-" for v in table[col]]
            parts.append("  " + table.to_string(index=False).replace("\n", "\n  "))
        if e["replacement"]:
            parts.append(f"  replaced by {e['replacement']}"
                         + (f" on {e['replacementNode']}" if e["replacementNode"] else " (not scheduled)"))
    return "\n".join(parts)


def oom_frame(kubelet: NodePressureEviction):
    """The OOM kills of a run, one row each: when, where the memory ran out, who died and what
    the kubelet does next (the ranking tables are in ``kubelet.ooms[i]["ranking"]``)."""
    import pandas as pd

    rows = [{"time": o["time"], "node": o["node"], "domain": o["domain"], "wanted": short_bytes(o["demand"]),
             "limit": short_bytes(o["limit"]), "killed": f"{o['pod']}/{o['container']}" if o["pod"] else None,
             "rss": short_bytes(o["rss"]) if o["rss"] is not None else None, "then": o["action"]}
            for o in kubelet.ooms]
    return pd.DataFrame(rows, columns=["time", "node", "domain", "wanted", "limit", "killed", "rss", "then"])


def reclaims_frame(kubelet: NodePressureEviction):
    """Garbage collection and node-level reclaim of a run that removed something or was not
    enough, one row each."""
    import pandas as pd

    rows = [{"time": r["time"], "node": r["node"], "kind": r["kind"], "signal": r["signal"],
             "steps": ", ".join(r["steps"]), "dead containers": len(r["containersRemoved"]),
             "images": ", ".join(r["imagesRemoved"]), "freed": short_bytes(r["freedBytes"]),
             "enough": r["sufficient"]}
            for r in kubelet.reclaims]
    return pd.DataFrame(rows, columns=["time", "node", "kind", "signal", "steps", "dead containers", "images",
                                       "freed", "enough"])


def _clock_time(seconds: float) -> datetime:
    """A time of the simulation's clock as a timestamp (seconds after the Unix epoch)."""
    return datetime.fromtimestamp(seconds, timezone.utc)


def _terminated(term: dict | None) -> dict:
    """A ``state.terminated`` block from a container's last termination (times as timestamps)."""
    out = dict(term or {})
    for key in ("startedAt", "finishedAt"):
        if key in out:
            out[key] = _clock_time(out[key])
    return out
