"""Test doubles for the scheduling-queue tests (upstream ``scheduling_queue_test.go`` helpers:
``st.MakePod()``, ``preEnqueuePlugin``, ``queueHintReturnQueue``/``Skip``, the fake clock)."""

from __future__ import annotations

from kschedlab.api.core import Node, Pod
from kschedlab.framework import events as ev
from kschedlab.framework.status import Status
from kschedlab.framework.types import PodInfo
from kschedlab.plugins.queuesort import PrioritySort
from kschedlab.queue import QueuedPodInfo, SchedulingQueue

LESS = PrioritySort().less
NODE_ADD = ev.ClusterEvent(ev.NODE, ev.ActionType.Add)
PV_ADD = ev.ClusterEvent(ev.PERSISTENT_VOLUME, ev.ActionType.Add)
PV_UPDATE = ev.ClusterEvent(ev.PERSISTENT_VOLUME, ev.ActionType.Update)
PVC_ADD = ev.ClusterEvent(ev.PERSISTENT_VOLUME_CLAIM, ev.ActionType.Add)
CSI_NODE_UPDATE = ev.ClusterEvent(ev.CSI_NODE, ev.ActionType.Update)


def queue_hint(pod_info, old, new):
    return ev.QueueingHint.Queue


def skip_hint(pod_info, old, new):
    return ev.QueueingHint.QueueSkip


class FakeClock:
    """``testingclock.FakeClock``: seconds, moved by ``step``."""

    def __init__(self, t: float = 1_000.0):
        self.t = float(t)

    def __call__(self) -> float:
        return self.t

    def step(self, seconds: float) -> None:
        self.t += seconds


def make_pod(name: str, namespace: str = "", uid: str | None = None, priority: int | None = None,
             nominated: str | None = None, labels: dict | None = None, gates: list[str] | None = None,
             node: str | None = None, host_ports: list[int] | None = None, requests: dict | None = None,
             tolerations: list[dict] | None = None, unschedulable_condition: bool = False, **spec) -> Pod:
    meta = {"name": name, "namespace": namespace}
    if uid:
        meta["uid"] = uid
    if labels is not None:
        meta["labels"] = labels
    body = dict(spec)
    containers = [{"name": "c"}]
    if requests:
        containers[0]["resources"] = {"requests": requests}
    if host_ports:
        containers[0]["ports"] = [{"containerPort": p, "hostPort": p} for p in host_ports]
    body["containers"] = containers
    if priority is not None:
        body["priority"] = priority
    if gates:
        body["schedulingGates"] = [{"name": g} for g in gates]
    if node:
        body["nodeName"] = node
    if tolerations:
        body["tolerations"] = tolerations
    status = {}
    if nominated:
        status["nominatedNodeName"] = nominated
    if unschedulable_condition:
        status["conditions"] = [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}]
    return Pod.model_validate({"metadata": meta, "spec": body, "status": status})


def info(pod: Pod) -> PodInfo:
    return PodInfo.of(pod)


def make_node(name: str = "", labels: dict | None = None, capacity: dict | None = None, taints=None,
              unschedulable: bool | None = None) -> Node:
    """``st.MakeNode()``: capacity and allocatable are set together, pods default to 32."""
    alloc = {"pods": "32", **(capacity or {})}
    spec = {}
    if taints is not None:
        spec["taints"] = taints
    if unschedulable is not None:
        spec["unschedulable"] = unschedulable
    return Node.model_validate({"metadata": {"name": name, **({"labels": labels} if labels else {})},
                                "spec": spec, "status": {"capacity": alloc, "allocatable": alloc}})


class PreEnqueuePlugins:
    """A PreEnqueue chain of upstream's test plugins: ``preEnqueuePlugin`` (allowlist of label keys)
    and ``denyingPreEnqueuePlugin`` (denylist). Mutable, as the tests change the lists on the fly."""

    def __init__(self, *plugins: tuple[str, str, list[str]]):
        self.plugins = [list(p) for p in plugins]  # (name, "allow"|"deny", labels)

    def set(self, name: str, kind: str, labels: list[str]) -> None:
        for p in self.plugins:
            if p[0] == name:
                p[1], p[2] = kind, labels
                return
        self.plugins.append([name, kind, labels])

    def __call__(self, pod_info) -> Status:
        keys = set(pod_info.pod.metadata.labels or {})
        for name, kind, labels in self.plugins:
            if kind == "allow" and not (keys & set(labels)):
                return Status.unresolvable("pod label not in allowlists", plugin=name)
            if kind == "deny" and keys & set(labels):
                return Status.unresolvable("pod label in denylists", plugin=name)
        return Status()


#: upstream's ``NewTestQueue`` without ``WithQueueingHintMapPerProfile``: no profile has a hint map, so
#: ``isPodWorthRequeuing`` queues after backoff and no specific event is "of interest"
NO_PROFILE = {"<no profile>": {}}


def new_queue(clock=None, hints=None, pre_enqueue=None, **kwargs) -> SchedulingQueue:
    return SchedulingQueue(LESS, pre_enqueue=pre_enqueue, hints=NO_PROFILE if hints is None else hints,
                           clock=clock or FakeClock(), **kwargs)


def by_event(hint_map: dict) -> dict:
    """Upstream's ``QueueingHintMap`` (``{event: [(plugin, fn)]}``) as kschedlab's ``{plugin: [(event, fn)]}``."""
    out: dict = {}
    for event, fns in hint_map.items():
        for plugin, fn in fns:
            out.setdefault(plugin, []).append((event, fn))
    return out


def new_qpi(q: SchedulingQueue, pod: Pod, *plugins: str) -> QueuedPodInfo:
    """``q.newQueuedPodInfo(pod, plugins...)``: timestamped now."""
    return QueuedPodInfo(info(pod), q._now(), unschedulable_plugins=set(plugins))


def put_active(q: SchedulingQueue, qpi: QueuedPodInfo) -> None:
    """``q.activeQ.add`` (no PreEnqueue)."""
    q._active.add_or_update(qpi)
    q._move(qpi, "active", "test")


def put_backoff(q: SchedulingQueue, qpi: QueuedPodInfo) -> None:
    """``q.backoffQ.add`` (errorBackoffQ when the pod has no rejecting plugin)."""
    q._backoff_add(qpi, "test")


def put_unschedulable(q: SchedulingQueue, qpi: QueuedPodInfo) -> None:
    """``q.unschedulableEntities.addOrUpdate``."""
    q._unsched_add(qpi, "test")


def names(keys) -> list[str]:
    return [k.split("/")[-1] for k in keys]


def set_gated(qpi: QueuedPodInfo, plugin: str, events: list) -> QueuedPodInfo:
    """``setQueuedPodInfoGated``: the gating plugin is also an unschedulable plugin."""
    qpi.gating_plugin = plugin
    qpi.unschedulable_plugins = {plugin}
    qpi.gating_plugin_events = list(events)
    return qpi


def lookup(pod: Pod, *plugins: str, timestamp: float = 0.0) -> QueuedPodInfo:
    """``newQueuedPodInfoForLookup``: a bare QueuedPodInfo with unschedulable plugins."""
    return QueuedPodInfo(info(pod), timestamp, unschedulable_plugins=set(plugins))


def pop_pod(q: SchedulingQueue, pod: Pod) -> QueuedPodInfo:
    qpi = q.pop()
    assert qpi is not None, "nothing to pop"
    assert qpi.pod_info.name == pod.metadata.name, f"popped {qpi.pod_info.name}, want {pod.metadata.name}"
    return qpi


def requeue(q: SchedulingQueue, qpi: QueuedPodInfo) -> None:
    """``AddUnschedulablePodIfNotPresent`` with the plugins already set on ``qpi``."""
    q.add_unschedulable_if_not_present(qpi, set(qpi.unschedulable_plugins), set(qpi.pending_plugins))


# the package-level pods of scheduling_queue_test.go
LOW, MID, HIGH = 0, 100, 1000
MEDIUM = (LOW + HIGH) // 2
HPP = make_pod("hpp", "ns1", "hppns1", HIGH)
HPP_NOMINATED = make_pod("hpp", "ns1", "hppns1", HIGH, nominated="node1")
MPP = make_pod("mpp", "ns2", "mppns2", MEDIUM, nominated="node1")
UP = make_pod("up", "ns1", "upns1", LOW, nominated="node1", unschedulable_condition=True)
