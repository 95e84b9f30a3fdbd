"""One housekeeping round of the kubelet's eviction manager (upstream
``managerImpl.synchronize``), as a pure function: the state it keeps between rounds
goes in and comes out, so a loop calling it every ``housekeeping-interval`` (10 s) on a
virtual clock is the whole manager.

A round: observe the signals; find the thresholds met (grace periods aside), plus those
met before whose minimum reclaim is not yet satisfied; remember since when each is met;
derive the node conditions and keep each true for the pressure transition period; keep
the thresholds whose grace period has passed and whose stats are new; take the first by
eviction priority (memory first); try node-level reclaim (dead containers, unused images)
and stop if that satisfied every threshold with its minimum reclaim; else rank the
active pods for that signal and evict the first one that is not critical -- at most one
pod per round. With ``local_storage_capacity_isolation``, pods over their local-storage
limits (an emptyDir's ``sizeLimit``, the pod's or a container's ``ephemeral-storage`` limit) are
evicted first, all of them, and the round stops there (:func:`local_storage_evictions`). (The
memcg notifier and swap are not modelled.)

Between rounds the manager also admits or rejects new pods by the node conditions it
reports (:func:`admit`, upstream ``managerImpl.Admit``).

>>> from kschedlab.api.core import Pod
>>> from kschedlab.kubelet.config import eviction_config, kubelet_config_from_flags
>>> cfg = eviction_config(kubelet_config_from_flags("--eviction-hard=memory.available<500Mi"))
>>> pods = [Pod.model_validate({"metadata": {"name": n, "uid": n}, "spec": {"containers": [{"name": "c"}]}})
...         for n in ("a", "b")]
>>> summary = {"node": {"memory": {"availableBytes": 400 * 2**20, "workingSetBytes": 9 * 2**30}},
...            "pods": [{"podRef": {"uid": "a"}, "memory": {"workingSetBytes": 2**30}},
...                     {"podRef": {"uid": "b"}, "memory": {"workingSetBytes": 2**31}}]}
>>> state, result = synchronize(cfg, EvictionState(), summary, pods, now=0.0)
>>> result.evicted, result.node_conditions, result.grace_period_seconds
('b', ['MemoryPressure'], 1)
>>> result.message
'The node was low on resource: memory. Threshold quantity: 500Mi, available: 400Mi. '
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from kschedlab.api.core import Taint
from kschedlab.api.quantity import BINARY_SI, Quantity
from kschedlab.api.resources import aggregate_containers
from kschedlab.api.tolerations import tolerations_tolerate_taint

from .config import IMMEDIATE_EVICTION_GRACE_PERIOD_SECONDS, EvictionConfig, eviction_grace_period
from .ranking import (
    LAYOUT_SINGLE,
    PodStatsIndex,
    is_critical_pod,
    layout_flags,
    rank_pods,
    ranking_table,
)
from .reclaim import build_signal_to_node_reclaim_funcs, node_reclaim_sufficient
from .signals import (
    NODE_MEMORY_PRESSURE,
    RESOURCE_EPHEMERAL_STORAGE,
    RESOURCE_MEMORY,
    SIGNAL_TO_RESOURCE,
    SignalObservation,
    make_signal_observations,
)
from .thresholds import (
    Threshold,
    get_reclaimable_threshold,
    get_threshold_quantity,
    merge_thresholds,
    node_conditions,
    node_conditions_last_observed_at,
    node_conditions_observed_since,
    sort_by_eviction_priority,
    thresholds_first_observed_at,
    thresholds_met,
    thresholds_met_grace_period,
    thresholds_updated_stats,
)

__all__ = ["EvictionState", "SyncResult", "synchronize", "eviction_message", "REASON_EVICTED", "AdmitResult",
           "admit", "Eviction", "local_storage_evictions"]

#: ``status.reason`` of an evicted pod
REASON_EVICTED = "Evicted"
#: the taint a BestEffort pod must tolerate to be admitted under memory pressure alone
TAINT_NODE_MEMORY_PRESSURE = "node.kubernetes.io/memory-pressure"


@dataclass
class EvictionState:
    """What the eviction manager remembers between rounds (times in seconds)."""

    thresholds_first_observed_at: dict[Threshold, float] = field(default_factory=dict)
    node_conditions_last_observed_at: dict[str, float] = field(default_factory=dict)
    thresholds_met: list[Threshold] = field(default_factory=list)
    last_observations: dict[str, SignalObservation] = field(default_factory=dict)
    node_conditions: list[str] = field(default_factory=list)


@dataclass
class SyncResult:
    """What one round saw and did; ``evicted`` is the pod name (None when nobody was)."""

    observations: dict[str, SignalObservation]
    thresholds_met: list[Threshold]
    node_conditions: list[str]
    thresholds_acted_on: list[Threshold]
    threshold_to_reclaim: Threshold | None = None
    resource_to_reclaim: str | None = None
    node_reclaim: tuple[str, ...] = ()
    node_reclaim_sufficient: bool = False
    ranking: list[dict] = field(default_factory=list)
    evicted: str | None = None
    grace_period_seconds: int | None = None
    message: str | None = None
    #: the evicted pod object (``evicted`` is its name)
    evicted_pod: Any = None
    #: the pods evicted for going over their local-storage limits (then nobody else is)
    local_storage: list[Eviction] = field(default_factory=list)


@dataclass(frozen=True)
class Eviction:
    """One pod evicted for its local-storage use, with the ``status.message`` it gets."""

    pod: Any
    message: str
    grace_period_seconds: int = IMMEDIATE_EVICTION_GRACE_PERIOD_SECONDS


def _fmt(q: Quantity) -> str:
    return str(q)


def eviction_message(resource: str, pod, stats: Mapping | None, thresholds: Sequence[Threshold],
                     observations: Mapping[str, SignalObservation]) -> str:
    """The evicted pod's ``status.message`` (upstream ``evictionMessage``, without the
    pod-level-resources line): the starved resource, the threshold and what was available,
    then every container using more than it requests."""
    msg = f"The node was low on resource: {resource}. "
    for t in thresholds:
        if SIGNAL_TO_RESOURCE.get(t.signal) == resource and t.signal in observations:
            obs = observations[t.signal]
            msg += f"Threshold quantity: {_fmt(get_threshold_quantity(t.value, obs.capacity))}, " \
                   f"available: {_fmt(obs.available)}. "
            break
    if stats is None:
        return msg
    containers = {c.name: c for c in [*pod.spec.containers, *pod.spec.init_containers]}
    for cs in stats.get("containers") or []:
        c = containers.get(cs.get("name"))
        if c is None:
            continue
        req = c.resources.requests.get(resource) if c.resources else None
        req_q = req if req is not None else Quantity.from_int(0, BINARY_SI)
        usage = None
        if resource == RESOURCE_EPHEMERAL_STORAGE:
            root, logs = cs.get("rootfs") or {}, cs.get("logs") or {}
            if root.get("usedBytes") is not None and logs.get("usedBytes") is not None:
                usage = Quantity.from_int(root["usedBytes"] + logs["usedBytes"], BINARY_SI)
        elif resource == RESOURCE_MEMORY:
            mem = cs.get("memory") or {}
            if mem.get("workingSetBytes") is not None:
                usage = Quantity.from_int(mem["workingSetBytes"], BINARY_SI)
        if usage is not None and usage > req_q:
            msg += f"Container {c.name} was using {usage}, request is {req_q}, has larger consumption of {resource}. "
    return msg


def _used_bytes(fs: Mapping | None) -> int:
    return int((fs or {}).get("usedBytes") or 0)


def _empty_dir_limit_message(pod, stats: Mapping) -> str | None:
    used = {v.get("name"): _used_bytes(v) for v in stats.get("volume") or [] if v.get("usedBytes") is not None}
    for volume in pod.spec.volumes:
        if volume.empty_dir is None:
            continue
        size = volume.empty_dir.size_limit
        if volume.name in used and size is not None and size.sign() == 1 \
                and Quantity.from_int(used[volume.name], BINARY_SI) > size:
            return f'Usage of EmptyDir volume "{volume.name}" exceeds the limit "{size}". '
    return None


def _pod_ephemeral_storage_limit_message(pod, stats: Mapping) -> str | None:
    limits = aggregate_containers(pod.spec, lambda c: {k: v for k, v in (c.resources.limits or {}).items()}
                                  if c.resources else {})
    limit = limits.get(RESOURCE_EPHEMERAL_STORAGE)
    if limit is None:
        return None
    overhead = (pod.spec.overhead or {}).get(RESOURCE_EPHEMERAL_STORAGE)
    if overhead is not None:
        limit = limit + Quantity(str(overhead))
    usage = _used_bytes(stats.get("ephemeral-storage"))
    if Quantity.from_int(usage, BINARY_SI) > limit:
        return f"Pod ephemeral local storage usage exceeds the total limit of containers {limit}. "
    return None


def _container_ephemeral_storage_limit_message(pod, stats: Mapping, dedicated_image_fs: bool) -> str | None:
    limits = {}
    for c in pod.spec.containers:
        q = c.resources.limits.get(RESOURCE_EPHEMERAL_STORAGE) if c.resources else None
        if q is not None and q.value() != 0:
            limits[c.name] = q
    for cs in stats.get("containers") or []:
        used = _used_bytes(cs.get("logs")) + (0 if dedicated_image_fs else _used_bytes(cs.get("rootfs")))
        limit = limits.get(cs.get("name"))
        if limit is not None and limit < Quantity.from_int(used, BINARY_SI):
            return f'Container {cs.get("name")} exceeded its local ephemeral storage limit "{limit}". '
    return None


def local_storage_evictions(pods: Sequence, index: PodStatsIndex, dedicated_image_fs: bool) -> list[Eviction]:
    """The pods over a local-storage limit (upstream ``localStorageEviction``), each checked for,
    in order, an emptyDir over its ``sizeLimit``, the pod's ``ephemeral-storage`` use (the
    summary's ``ephemeral-storage.usedBytes``) over the sum of its containers' limits, a container's
    logs (and, without a dedicated imagefs, rootfs) over its own limit. Critical pods are kept.

    >>> from kschedlab.api.core import Pod
    >>> pod = Pod.model_validate({"metadata": {"name": "p", "uid": "p"}, "spec": {"containers": [{"name": "c",
    ...     "resources": {"limits": {"ephemeral-storage": "1Gi"}}}]}})
    >>> stats = PodStatsIndex([{"podRef": {"uid": "p"}, "containers": [{"name": "c",
    ...     "rootfs": {"usedBytes": 2**31}, "logs": {"usedBytes": 0}}]}])
    >>> [e.message for e in local_storage_evictions([pod], stats, dedicated_image_fs=False)]
    ['Container c exceeded its local ephemeral storage limit "1Gi". ']
    >>> local_storage_evictions([pod], stats, dedicated_image_fs=True)
    []
    """
    out = []
    for pod in pods:
        stats = index.get(pod)
        if stats is None:
            continue
        message = (_empty_dir_limit_message(pod, stats) or _pod_ephemeral_storage_limit_message(pod, stats)
                   or _container_ephemeral_storage_limit_message(pod, stats, dedicated_image_fs))
        if message is not None and not is_critical_pod(pod):
            out.append(Eviction(pod, message))
    return out


def synchronize(config: EvictionConfig, state: EvictionState, summary: Mapping[str, Any], pods: Sequence,
                now: float, *, layout: str = LAYOUT_SINGLE,
                summary_after_reclaim: Callable[[tuple[str, ...]], Mapping[str, Any]] | None = None,
                local_storage_capacity_isolation: bool = False,
                ) -> tuple[EvictionState, SyncResult]:
    """One round (see the module docstring). ``config`` should already know the node's
    filesystems (``config.with_filesystems(layout)``); ``pods`` are the node's active pods;
    ``summary_after_reclaim(steps)`` gives the stats after node-level reclaim (omitted: the
    reclaim freed nothing); ``local_storage_capacity_isolation`` is the KubeletConfiguration field
    (true by default in the kubelet; off here unless asked). Returns the new state and what
    happened."""
    observations = make_signal_observations(summary)
    index = PodStatsIndex(summary.get("pods") or [])
    met = thresholds_met(config.thresholds, observations, enforce_min_reclaim=False)
    if state.thresholds_met:
        met = merge_thresholds(met, thresholds_met(state.thresholds_met, observations, enforce_min_reclaim=True))
    first_at = thresholds_first_observed_at(met, state.thresholds_first_observed_at, now)
    conditions_at = node_conditions_last_observed_at(node_conditions(met), state.node_conditions_last_observed_at, now)
    conditions = node_conditions_observed_since(conditions_at, config.pressure_transition_period, now)
    acted = thresholds_met_grace_period(first_at, now)
    new_state = EvictionState(first_at, conditions_at, acted, observations, conditions)
    acted = thresholds_updated_stats(acted, observations, state.last_observations)
    result = SyncResult(observations, met, conditions, acted)
    if local_storage_capacity_isolation:
        result.local_storage = local_storage_evictions(pods, index, layout != LAYOUT_SINGLE)
        if result.local_storage:
            return new_state, result
    if not acted:
        return new_state, result
    found = get_reclaimable_threshold(sort_by_eviction_priority(acted))
    if found is None:
        return new_state, result
    threshold, resource = found
    result.threshold_to_reclaim, result.resource_to_reclaim = threshold, resource
    steps = build_signal_to_node_reclaim_funcs(*layout_flags(layout)).get(threshold.signal, ())
    result.node_reclaim = steps
    if steps:
        after = summary_after_reclaim(steps) if summary_after_reclaim is not None else summary
        if node_reclaim_sufficient(config.thresholds, make_signal_observations(after)):
            result.node_reclaim_sufficient = True
            return new_state, result
    if not pods:
        return new_state, result
    result.ranking = ranking_table(pods, index, threshold.signal, layout)
    for pod in rank_pods(pods, index, threshold.signal, layout):
        if is_critical_pod(pod):
            continue
        result.evicted, result.evicted_pod = pod.metadata.name, pod
        result.grace_period_seconds = eviction_grace_period(threshold, pod, config.max_pod_grace_period_seconds)
        result.message = eviction_message(resource, pod, index.get(pod), acted, observations)
        break
    return new_state, result


@dataclass(frozen=True)
class AdmitResult:
    """The verdict on a new pod (upstream ``lifecycle.PodAdmitResult``)."""

    admit: bool
    reason: str = ""
    message: str = ""


def admit(node_conditions: Sequence[str], pod) -> AdmitResult:
    """Whether the kubelet admits ``pod`` while it reports ``node_conditions`` (upstream
    ``managerImpl.Admit``): every pod without pressure, critical pods always; under memory
    pressure alone, every pod but a BestEffort one that does not tolerate the
    ``node.kubernetes.io/memory-pressure:NoSchedule`` taint; under any other condition, none.

    >>> from kschedlab.api.core import Pod
    >>> best_effort = Pod.model_validate({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c"}]}})
    >>> admit([], best_effort).admit
    True
    >>> admit(["MemoryPressure"], best_effort)
    AdmitResult(admit=False, reason='Evicted', message='The node had condition: [MemoryPressure]. ')
    """
    if not node_conditions or is_critical_pod(pod):
        return AdmitResult(True)
    if list(node_conditions) == [NODE_MEMORY_PRESSURE]:
        if pod.qos_class() != "BestEffort":
            return AdmitResult(True)
        taint = Taint(key=TAINT_NODE_MEMORY_PRESSURE, effect="NoSchedule")
        if tolerations_tolerate_taint(pod.spec.tolerations or [], taint):
            return AdmitResult(True)
    return AdmitResult(False, REASON_EVICTED, f"The node had condition: [{' '.join(node_conditions)}]. ")
