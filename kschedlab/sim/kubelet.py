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
taints (the node lifecycle controller), and at most one eviction.

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
from typing import Any, Iterable

from kschedlab.api.errors import ManifestError
from kschedlab.api.kubeletconfig import KubeletConfiguration
from kschedlab.api.quantity import Quantity, short_bytes
from kschedlab.api.usage import NodeKubelet, PodUsage
from kschedlab.kubelet.config import EvictionConfig, eviction_config
from kschedlab.kubelet.manager import EvictionState, SyncResult, synchronize
from kschedlab.kubelet.ranking import LAYOUT_SINGLE, is_critical_pod
from kschedlab.kubelet.signals import (NODE_DISK_PRESSURE, NODE_MEMORY_PRESSURE, NODE_PID_PRESSURE,
                                       SYSTEM_CONTAINER_PODS, node_memory_stats)
from kschedlab.kubelet.thresholds import get_threshold_quantity

__all__ = ["HOUSEKEEPING_INTERVAL", "POD_CLEANUP_TIMEOUT", "CONDITION_REASONS", "REASON_TERMINATION_BY_KUBELET",
           "NodePressureEviction", "kubelet_for_node", "replicaset_replacements"]

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
    for i, entry in enumerate(entries):
        if entry.matches(node):
            if entry.config is None:
                base = default if default is not None else KubeletConfiguration()
                return eviction_config(base.with_defaults()).with_filesystems(LAYOUT_SINGLE), entry
            try:
                cfg = KubeletConfiguration.model_validate(
                    {"apiVersion": KubeletConfiguration.API_VERSION, "kind": KubeletConfiguration.KIND,
                     **entry.config}, by_alias=True, by_name=False)
                return eviction_config(cfg.with_defaults()).with_filesystems(LAYOUT_SINGLE), entry
            except ManifestError as err:
                raise ManifestError(f"Simulation spec.kubelet[{i}].config: {err}") from None
            except ValueError as err:
                raise ManifestError(f"Simulation spec.kubelet[{i}].config: {err}") from None
    if default is None:
        return None
    return eviction_config(default.with_defaults()).with_filesystems(LAYOUT_SINGLE), NodeKubelet()


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

    # -- bookkeeping the engine feeds ------------------------------------------------------
    def pod_started(self, key: str, now: float, node: str | None = None) -> None:
        """Pod ``key`` started running on ``node`` at ``now`` (usage times count from here)."""
        self.started[key] = now
        index = self.replacing.pop(key, None)
        if index is not None:
            self.evictions[index]["replacementNode"] = node
            self.evictions[index]["replacementScheduled"] = now

    def manager(self, node) -> _NodeManager | None:
        """The eviction manager of ``node`` (None: the node has no simulated kubelet)."""
        name = node.metadata.name
        if name not in self.managers:
            found = kubelet_for_node(node, self.entries, self.default)
            self.managers[name] = None if found is None else _NodeManager(*found)
        return self.managers[name]

    # -- usage and stats -------------------------------------------------------------------
    def pod_usage(self, pod, now: float) -> dict[str, int]:
        """What ``pod`` uses at ``now`` (resource -> integer; later entries win)."""
        key = _pod_key(pod)
        since = now - self.started.get(key, 0.0)
        out: dict[str, int] = {}
        for u in self.usage:
            if u.matches(pod):
                out[u.resource] = u.shape.value_at(since)
        return out

    def _inputs(self, pods: list, now: float) -> tuple:
        return tuple((_pod_key(p), p.metadata.uid, tuple(sorted(self.pod_usage(p, now).items())),
                      _pod_key(p) in self.terminating) for p in pods)

    def summary(self, node, pods: list, now: float) -> dict:
        """The node's summary-API stats at ``now`` (``{"node": ..., "pods": [...]}``)."""
        mgr = self.manager(node)
        facts = mgr.facts if mgr is not None else NodeKubelet()
        capacity = node.status.capacity or node.status.allocatable or {}
        pod_stats, totals = [], {r: 0 for r in ("memory", "ephemeral-storage", "inodes", "pids")}
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
                                "logs": {"usedBytes": 0, "inodesUsed": 0}}],
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
            fs = {"capacityBytes": cap, "time": now,
                  "availableBytes": max(cap - totals["ephemeral-storage"] - system.get("ephemeral-storage", 0), 0)}
            if facts.inodes is not None:
                fs["inodes"] = facts.inodes
                fs["inodesFree"] = max(facts.inodes - totals["inodes"] - system.get("inodes", 0), 0)
            node_stats["fs"] = fs
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
            since = self.started.get(_pod_key(pod), 0.0)
            if any(u.matches(pod) and since + u.shape.last_change() > last for u in self.usage):
                return True
        for t, first in st.thresholds_first_observed_at.items():
            if first + t.grace_period / 1e9 > last:
                return True
        met_now = set(_conditions_of(st.thresholds_first_observed_at))
        return any(cond not in met_now for cond in st.node_conditions)  # held by the transition period

    def next_wakeup(self, cluster, now: float) -> float | None:
        """The next round that could change something, over all nodes (None: none could)."""
        out = None
        for name, node in cluster.nodes.items():
            mgr = self.manager(node)
            if mgr is None:
                continue
            when = self._align(mgr, now)
            if self._wants_round(mgr, self.pods_on(cluster, name), when):
                out = when if out is None else min(out, when)
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
        summary = self.summary(node, pods, now)
        mgr.state, result = synchronize(mgr.config, mgr.state, summary, active, now)
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
                                 "thresholdValue": get_threshold_quantity(t.value, obs.capacity).value(),
                                 "kind": "hard" if t.hard else "soft", "met": t in met})
        return result

    def evicted(self, name: str, pod, result: SyncResult, now: float) -> float:
        """Record the eviction of ``pod`` by node ``name``'s round; returns when its grace
        period ends (the manager's next round comes after the cleanup)."""
        key = _pod_key(pod)
        gone = now + result.grace_period_seconds
        self.terminating[key] = gone
        mgr = self.managers[name]
        mgr.next_round = now + min(result.grace_period_seconds, POD_CLEANUP_TIMEOUT) + HOUSEKEEPING_INTERVAL
        self.evictions.append({
            "time": now, "node": name, "pod": key, "signal": result.threshold_to_reclaim.signal,
            "resource": result.resource_to_reclaim, "gracePeriodSeconds": result.grace_period_seconds,
            "terminated": gone, "message": result.message, "nodeReclaim": list(result.node_reclaim),
            "ranking": [{k: _plain(v) for k, v in row.items()} for row in result.ranking],
            "replacement": None, "replacementNode": None, "replacementScheduled": None,
        })
        return gone

    def critical(self, pod) -> bool:
        """Whether the kubelet never evicts ``pod`` (static, mirror, system-critical)."""
        return is_critical_pod(pod)


def replicaset_replacements(cluster, pod, *, seed: int = 0, gates=None) -> list:
    """The pods ``pod``'s ReplicaSet creates once ``pod`` is gone (admitted as the API server
    would); none when it has no ReplicaSet in ``cluster``.  A replacement never reuses the
    name of the pod it replaces."""
    from kschedlab.api.admission import admit
    from kschedlab.api.workloads import expand_replicaset

    ref = pod.metadata.controller_ref()
    if ref is None or ref.kind != "ReplicaSet":
        return []
    ns = pod.metadata.namespace or "default"
    rs = next((r for r in cluster.of_kind("ReplicaSet")
               if r.metadata.name == ref.name and (r.metadata.namespace or "default") == ns), None)
    if rs is None:
        return []
    pods = [p for p in cluster.pods.values() if (p.metadata.namespace or "default") == ns]
    taken = {p.metadata.name for p in pods} | {pod.metadata.name}
    new = expand_replicaset(rs, pods, seed=seed, taken=taken)
    classes = [*cluster.of_kind("PriorityClass"), *cluster.of_kind("RuntimeClass")]
    served = dict(gates.overrides) if gates is not None else None
    return admit([*classes, *new], feature_gates=served)[len(classes):]


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
    return frame


def report(kubelet: NodePressureEviction) -> dict:
    """What ``kschedlab simulate -o json`` shows under ``kubelet``: every signal row, the
    condition and taint changes, and the evictions with their ranking tables."""
    return {"signals": [dict(r) for r in kubelet.signals], "conditions": [dict(r) for r in kubelet.conditions],
            "evictions": [dict(r) for r in kubelet.evictions]}


def report_text(kubelet: NodePressureEviction) -> str:
    """The kubelet part of ``kschedlab simulate``'s table output."""
    import pandas as pd

    parts = ["node-pressure eviction: signals against thresholds (rows where something changed)",
             signals_frame(kubelet).to_string(index=False)]
    if kubelet.conditions:
        parts += ["\nnode conditions and taints:"]
        for c in kubelet.conditions:
            taints = "".join([f"  +{t}" for t in c["taintsAdded"]] + [f"  -{t}" for t in c["taintsRemoved"]])
            parts.append(f"  {c['time']:g} s  {c['node']}  {c['condition']}={c['status']}{taints}")
    for e in kubelet.evictions:
        parts += [f"\n{e['time']:g} s  {e['node']} evicts {e['pod']} ({e['signal']}, grace period "
                  f"{e['gracePeriodSeconds']} s; Failed/Evicted at {e['terminated']:g} s)",
                  f"  message: {e['message'].strip()}"]
        if e["nodeReclaim"]:
            parts.append(f"  node-level reclaim first: {', '.join(e['nodeReclaim'])} (not enough)")
        if e["ranking"]:
            table = pd.DataFrame(e["ranking"])
            if e.get("ranking") and e["ranking"][0].get("ranking") in ("memory", "ephemeral-storage"):
                for col in ("usage", "request", "aboveRequest"):
                    if col in table:
                        table[col] = [short_bytes(v) if v == v and v is not None else "-" for v in table[col]]
            parts.append("  " + table.to_string(index=False).replace("\n", "\n  "))
        if e["replacement"]:
            parts.append(f"  replaced by {e['replacement']}"
                         + (f" on {e['replacementNode']}" if e["replacementNode"] else " (not scheduled)"))
    return "\n".join(parts)
