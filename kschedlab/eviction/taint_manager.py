"""Taint-based eviction (seed section 6, "Заплямованість та Толерантність"): the
NoExecute taint manager (upstream ``pkg/controller/tainteviction``), the taints
the node lifecycle controller derives from node conditions
(``pkg/controller/nodelifecycle``, TaintNodesByCondition) and the tolerations
pods get automatically.

**NoExecute.** For a pod bound to a node with NoExecute taints
(:class:`NoExecuteTaintManager`):

* a taint no toleration matches -> the pod is deleted at once;
* all tolerated, none with ``tolerationSeconds`` -> the pod stays for good;
* otherwise the pod is deleted ``min(tolerationSeconds)`` after the manager
  saw the taints (for each taint the *first* matching toleration counts, as in
  ``GetMatchingTolerations``; a value <= 0 means at once), unless the taints
  go away first.  A deletion already scheduled keeps its time when the
  taints or tolerations change later (upstream ``processPodOnNode``).

The manager is clock-driven and keeps no goroutines: tell it what changed
(``on_node_update`` / ``on_pod_update`` / ``on_pod_delete``), ask
:meth:`~NoExecuteTaintManager.next_deadline` when to come back and
:meth:`~NoExecuteTaintManager.due` which pods to delete now; delete them with
:func:`delete_pod_by_taint_manager` (``DisruptionTarget`` reason
``DeletionByTaintManager``, then a graceful DELETE).

**Conditions to taints** (:func:`taints_for_conditions`,
:func:`reconcile_condition_taints`):

============================  ===============  =====================================
condition                     status           taint
============================  ===============  =====================================
Ready                         False            node.kubernetes.io/not-ready: NoSchedule + NoExecute
Ready                         Unknown          node.kubernetes.io/unreachable: NoSchedule + NoExecute
MemoryPressure                True             node.kubernetes.io/memory-pressure: NoSchedule
DiskPressure                  True             node.kubernetes.io/disk-pressure: NoSchedule
PIDPressure                   True             node.kubernetes.io/pid-pressure: NoSchedule
NetworkUnavailable            True             node.kubernetes.io/network-unavailable: NoSchedule
spec.unschedulable            true             node.kubernetes.io/unschedulable: NoSchedule
============================  ===============  =====================================

``node.cloudprovider.kubernetes.io/uninitialized`` (NoSchedule) comes from the
kubelet of a node with an external cloud provider, not from a condition
(:func:`kubelet_registration_taints`); the ``TaintNodesByCondition`` admission
plugin gives every new Node ``node.kubernetes.io/not-ready:NoSchedule``
(:func:`admit_new_node`).

**Automatic tolerations.** DefaultTolerationSeconds admission (300 s for
not-ready / unreachable) is :func:`kschedlab.apiserver.admission.default_tolerations`;
DaemonSet pods get :func:`daemonset_tolerations`; the memory-pressure toleration
of non-BestEffort pods the seed mentions comes from the ``PodTolerationRestriction``
admission plugin (:func:`pod_toleration_restriction`), which kube-apiserver does
not enable by default -- without it the kubelet still admits non-BestEffort pods
on a node under memory pressure, but the scheduler keeps them off it.

>>> from kschedlab.api.core import Node, Pod, Taint, Toleration
>>> tm = NoExecuteTaintManager()
>>> pod = Pod(metadata={"name": "p", "namespace": "default"}, spec={"nodeName": "n1", "tolerations": [
...     {"key": "key1", "operator": "Equal", "value": "value1", "effect": "NoExecute", "tolerationSeconds": 3600}]})
>>> tm.on_node_update(Node(metadata={"name": "n1"}, spec={"taints": [
...     {"key": "key1", "value": "value1", "effect": "NoExecute"}]}), now=100, pods=[pod])
>>> tm.next_deadline(), tm.due(3699.0), tm.due(3700.0)
(3700.0, [], [('default/p', 3700.0)])
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Iterable

from kschedlab.api.core import Taint, Toleration
from kschedlab.api.tolerations import TaintValueError, tolerates
from kschedlab.eviction.disruption import to_datetime
from kschedlab.eviction.timed_workers import ScheduledEviction, TimedWorkerQueue

__all__ = [
    "NoExecuteTaintManager", "ScheduledEviction", "TaintManagerEvent", "delete_pod_by_taint_manager",
    "taints_for_conditions", "reconcile_condition_taints", "set_node_condition", "admit_new_node",
    "kubelet_registration_taints", "daemonset_tolerations", "is_daemonset_pod", "pod_toleration_restriction",
    "get_matching_tolerations", "min_toleration_seconds", "no_execute_taints", "pod_deletion_event", "replay",
    "TAINT_NODE_NOT_READY", "TAINT_NODE_UNREACHABLE", "TAINT_NODE_UNSCHEDULABLE", "TAINT_NODE_MEMORY_PRESSURE",
    "TAINT_NODE_DISK_PRESSURE", "TAINT_NODE_PID_PRESSURE", "TAINT_NODE_NETWORK_UNAVAILABLE",
    "TAINT_EXTERNAL_CLOUD_PROVIDER", "NODE_CONDITION_TO_TAINT", "REASON_DELETION_BY_TAINT_MANAGER",
    "MESSAGE_DELETION_BY_TAINT_MANAGER", "DISRUPTION_TARGET", "EVENT_REASON",
]

TAINT_NODE_NOT_READY = "node.kubernetes.io/not-ready"
TAINT_NODE_UNREACHABLE = "node.kubernetes.io/unreachable"
TAINT_NODE_UNSCHEDULABLE = "node.kubernetes.io/unschedulable"
TAINT_NODE_MEMORY_PRESSURE = "node.kubernetes.io/memory-pressure"
TAINT_NODE_DISK_PRESSURE = "node.kubernetes.io/disk-pressure"
TAINT_NODE_PID_PRESSURE = "node.kubernetes.io/pid-pressure"
TAINT_NODE_NETWORK_UNAVAILABLE = "node.kubernetes.io/network-unavailable"
TAINT_EXTERNAL_CLOUD_PROVIDER = "node.cloudprovider.kubernetes.io/uninitialized"

#: ``nodeConditionToTaintKeyStatusMap``: condition type -> {status: taint key}
NODE_CONDITION_TO_TAINT: dict[str, dict[str, str]] = {
    "Ready": {"False": TAINT_NODE_NOT_READY, "Unknown": TAINT_NODE_UNREACHABLE},
    "MemoryPressure": {"True": TAINT_NODE_MEMORY_PRESSURE},
    "DiskPressure": {"True": TAINT_NODE_DISK_PRESSURE},
    "NetworkUnavailable": {"True": TAINT_NODE_NETWORK_UNAVAILABLE},
    "PIDPressure": {"True": TAINT_NODE_PID_PRESSURE},
}
_CONDITION_TAINT_KEYS = {key for m in NODE_CONDITION_TO_TAINT.values() for key in m.values()}

DISRUPTION_TARGET = "DisruptionTarget"
REASON_DELETION_BY_TAINT_MANAGER = "DeletionByTaintManager"
MESSAGE_DELETION_BY_TAINT_MANAGER = "Taint manager: deleting due to NoExecute taint"
EVENT_REASON = "TaintManagerEviction"


# ---------------------------------------------------------------------- tolerations
def no_execute_taints(taints: Iterable) -> list:
    """``getNoExecuteTaints``: the NoExecute taints, in order."""
    return [t for t in taints if t.effect == "NoExecute"]


def _tolerates(toleration, taint, comparison_operators: bool) -> bool:
    try:
        return tolerates(toleration, taint, comparison_operators=comparison_operators)
    except TaintValueError:
        return False  # ToleratesTaint logs the parse error and does not match


def get_matching_tolerations(taints: list, tolerations: list, *, comparison_operators: bool = False
                             ) -> tuple[bool, list]:
    """``v1helper.GetMatchingTolerations``: (all taints tolerated, the first matching
    toleration of each taint).

    >>> taint = Taint(key="k", effect="NoExecute")
    >>> ok, used = get_matching_tolerations([taint], [Toleration(key="k", operator="Exists"),
    ...     Toleration(key="k", operator="Exists", toleration_seconds=5)])
    >>> ok, [t.toleration_seconds for t in used]
    (True, [None])
    """
    if not taints:
        return True, []
    if not tolerations:
        return False, []
    used = []
    for taint in taints:
        match = next((t for t in tolerations if _tolerates(t, taint, comparison_operators)), None)
        if match is None:
            return False, []
        used.append(match)
    return True, used


def min_toleration_seconds(tolerations: list) -> float:
    """``getMinTolerationTime`` in seconds: 0 for no tolerations or any
    ``tolerationSeconds <= 0``, ``-1`` when none has ``tolerationSeconds`` (forever),
    else the smallest.

    >>> min_toleration_seconds([Toleration(toleration_seconds=3600), Toleration(toleration_seconds=6000)])
    3600
    >>> min_toleration_seconds([Toleration()]), min_toleration_seconds([])
    (-1, 0)
    """
    if not tolerations:
        return 0
    best = math.inf
    for t in tolerations:
        if t.toleration_seconds is not None:
            if t.toleration_seconds <= 0:
                return 0
            best = min(best, t.toleration_seconds)
    return -1 if best == math.inf else best


def is_daemonset_pod(pod) -> bool:
    """Whether the pod's controller is a DaemonSet."""
    ref = pod.metadata.controller_ref()
    return ref is not None and ref.kind == "DaemonSet"


def daemonset_tolerations(pod) -> list[Toleration]:
    """The tolerations the DaemonSet controller gives its pods
    (``AddOrUpdateDaemonPodTolerations``), added to ``pod``'s own.

    not-ready and unreachable ``NoExecute`` with no ``tolerationSeconds`` (a
    DaemonSet pod is never evicted for them; a matching toleration with
    seconds, such as the 300 s DefaultTolerationSeconds adds, is replaced);
    disk-pressure, memory-pressure, pid-pressure and unschedulable
    ``NoSchedule``; network-unavailable ``NoSchedule`` for host-network pods.
    The pod is not changed.

    >>> from kschedlab.api.core import Pod
    >>> [(t.key.split("/")[1], t.effect) for t in daemonset_tolerations(Pod())]  # doctest: +NORMALIZE_WHITESPACE
    [('not-ready', 'NoExecute'), ('unreachable', 'NoExecute'), ('disk-pressure', 'NoSchedule'),
     ('memory-pressure', 'NoSchedule'), ('pid-pressure', 'NoSchedule'), ('unschedulable', 'NoSchedule')]
    """
    from kschedlab.controllers.daemonset import daemon_pod_tolerations  # the DaemonSet expansion uses the same

    return daemon_pod_tolerations(pod.spec)


def pod_toleration_restriction(pod, default_tolerations: Iterable[Toleration] = ()) -> list[Toleration]:
    """The tolerations the ``PodTolerationRestriction`` admission plugin leaves a
    new pod with: the namespace's (or cluster's) default tolerations, and for a
    pod whose QoS class is not BestEffort ``node.kubernetes.io/memory-pressure``
    (Exists, NoSchedule), merged into the pod's own (``MergeTolerations``).
    The plugin is not among kube-apiserver's default plugins.

    >>> from kschedlab.api.core import Pod
    >>> burstable = Pod(spec={"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]})
    >>> [t.key for t in pod_toleration_restriction(burstable)], pod_toleration_restriction(Pod())
    (['node.kubernetes.io/memory-pressure'], [])
    """
    from kschedlab.apiserver.admission import merge_tolerations

    extra = [t.clone() for t in default_tolerations]
    if pod.compute_qos_class() != "BestEffort":
        extra.append(Toleration(key=TAINT_NODE_MEMORY_PRESSURE, operator="Exists", effect="NoSchedule"))
    if not extra:
        return [t.clone() for t in pod.spec.tolerations]
    return merge_tolerations([t.clone() for t in pod.spec.tolerations], extra)


# ------------------------------------------------------------- conditions -> taints
def _same(a, b) -> bool:
    """``Taint.MatchTaint``: same key and effect."""
    return (a.key or "") == (b.key or "") and a.effect == b.effect


def taints_for_conditions(node, *, now=None) -> list[Taint]:
    """The taints the node lifecycle controller wants on ``node`` for its
    conditions and ``spec.unschedulable``: first the NoSchedule taints
    (``doNoScheduleTaintingPass``: conditions in order, then unschedulable),
    then the NoExecute taint for a ``Ready`` condition that is False or Unknown
    (``doNoExecuteTaintingPass``), stamped ``timeAdded`` = ``now`` when given.

    >>> from kschedlab.api.core import Node
    >>> node = Node(spec={"unschedulable": True}, status={"conditions": [{"type": "Ready", "status": "Unknown"},
    ...     {"type": "MemoryPressure", "status": "True"}, {"type": "DiskPressure", "status": "False"}]})
    >>> [str(t) for t in taints_for_conditions(node)]  # doctest: +NORMALIZE_WHITESPACE
    ['node.kubernetes.io/unreachable:NoSchedule', 'node.kubernetes.io/memory-pressure:NoSchedule',
     'node.kubernetes.io/unschedulable:NoSchedule', 'node.kubernetes.io/unreachable:NoExecute']
    """
    out: list[Taint] = []
    for cond in node.status.conditions:
        key = NODE_CONDITION_TO_TAINT.get(cond.type or "", {}).get(cond.status or "")
        if key is not None:
            out.append(Taint(key=key, effect="NoSchedule"))
    if node.spec.unschedulable:
        out.append(Taint(key=TAINT_NODE_UNSCHEDULABLE, effect="NoSchedule"))
    ready = next((c for c in node.status.conditions if c.type == "Ready"), None)
    if ready is not None and ready.status in ("False", "Unknown"):
        key = TAINT_NODE_NOT_READY if ready.status == "False" else TAINT_NODE_UNREACHABLE
        out.append(Taint(key=key, effect="NoExecute", time_added=None if now is None else to_datetime(now)))
    return out


def reconcile_condition_taints(node, *, now=None):
    """A copy of ``node`` with the controller-owned taints brought in line with
    :func:`taints_for_conditions`, as the two tainting passes do: taints the
    controller owns (NoSchedule with a condition key or unschedulable; the
    not-ready / unreachable NoExecute taints) are removed when no longer wanted,
    missing ones are appended (``timeAdded`` = ``now``), taints already there
    keep their place and ``timeAdded``, other taints are left alone.  A node
    without a ``Ready`` condition keeps its NoExecute taints (the controller has
    not decided about it).  Rate limiting of the NoExecute pass per zone
    (``--node-eviction-rate``) is not modelled.
    """
    wanted = taints_for_conditions(node, now=now)
    has_ready = any(c.type == "Ready" for c in node.status.conditions)

    def owned(t) -> bool:
        if t.effect == "NoSchedule":
            return t.key == TAINT_NODE_UNSCHEDULABLE or t.key in _CONDITION_TAINT_KEYS
        if t.effect == "NoExecute":
            return has_ready and t.key in (TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE)
        return False

    stamp = None if now is None else to_datetime(now)
    kept = [t for t in node.spec.taints if not owned(t) or any(_same(t, w) for w in wanted)]
    for w in wanted:
        if not any(_same(w, t) for t in kept):
            w.time_added = stamp
            kept.append(w)
    new = node.clone()
    new.spec.taints = [t.clone() for t in kept]
    new.mark_set("spec")
    return new


def set_node_condition(node, ctype: str, status: str, *, now=None, reason: str | None = None):
    """A copy of ``node`` with condition ``ctype`` set to ``status`` (added when
    missing), as a kubelet heartbeat or the node lifecycle controller (Ready
    -> Unknown) would write it; then pass it to :func:`reconcile_condition_taints`."""
    from kschedlab.api.core import NodeCondition

    new = node.clone()
    stamp = None if now is None else to_datetime(now)
    for cond in new.status.conditions:
        if cond.type == ctype:
            if cond.status != status:
                cond.last_transition_time = stamp
            cond.status = status
            cond.reason = reason if reason is not None else cond.reason
            break
    else:
        new.status.conditions.append(NodeCondition(type=ctype, status=status, reason=reason,
                                                   last_transition_time=stamp))
    new.mark_set("status")
    return new


def admit_new_node(node):
    """The ``TaintNodesByCondition`` admission plugin: a Node being created gets
    ``node.kubernetes.io/not-ready:NoSchedule`` (unless it has that key and
    effect already), so nothing lands on it before the controller has seen it
    ready.  Returns a copy."""
    new = node.clone()
    taint = Taint(key=TAINT_NODE_NOT_READY, effect="NoSchedule")
    if not any(_same(taint, t) for t in new.spec.taints):
        new.spec.taints = [*new.spec.taints, taint]
        new.mark_set("spec")
    return new


def kubelet_registration_taints(*, register_with_taints: Iterable[Taint] = (), unschedulable: bool = False,
                                external_cloud_provider: bool = False) -> list[Taint]:
    """The taints a kubelet registers its Node with: ``--register-with-taints``,
    ``node.kubernetes.io/unschedulable:NoSchedule`` when it registers the node
    unschedulable, and ``node.cloudprovider.kubernetes.io/uninitialized=true:NoSchedule``
    with an external cloud provider (the cloud-controller-manager removes it).

    >>> [str(t) for t in kubelet_registration_taints(external_cloud_provider=True)]
    ['node.cloudprovider.kubernetes.io/uninitialized=true:NoSchedule']
    """
    out = [t.clone() for t in register_with_taints]
    unsched = Taint(key=TAINT_NODE_UNSCHEDULABLE, effect="NoSchedule")
    if unschedulable and not any(_same(unsched, t) and (t.value or "") == "" for t in out):
        out.append(unsched)
    if external_cloud_provider:
        out.append(Taint(key=TAINT_EXTERNAL_CLOUD_PROVIDER, value="true", effect="NoSchedule"))
    return out


# --------------------------------------------------------------------- the manager
@dataclass(frozen=True)
class TaintManagerEvent:
    """A decision of the manager, for tables and figures.

    ``kind``: ``evict-now`` (an untolerated taint), ``scheduled`` (deletion at
    ``fire_at``), ``kept`` (an earlier scheduled deletion stays), ``forever``
    (all taints tolerated without ``tolerationSeconds``), ``cancelled``,
    ``fired`` (the deletion is due).  ``message`` is the Kubernetes Event the
    manager records, when it records one (``TaintManagerEviction``)."""

    time: float
    pod: str
    node: str
    kind: str
    fire_at: float | None = None
    message: str = ""


class NoExecuteTaintManager:
    """The NoExecute taint manager (``tainteviction.Controller``) on a virtual clock.

    ``cluster`` (optional) supplies the pods bound to a node for
    :meth:`on_node_update`; pass ``pods=`` otherwise.  ``comparison_operators``
    is the ``TaintTolerationComparisonOperators`` gate (off at v1.37), or pass
    ``gates`` (a :class:`~kschedlab.features.FeatureGates`).
    """

    def __init__(self, cluster=None, *, gates=None, comparison_operators: bool | None = None):
        self.cluster = cluster
        if comparison_operators is None:
            comparison_operators = bool(gates.enabled("TaintTolerationComparisonOperators")) if gates else False
        self.comparison_operators = comparison_operators
        self._tainted: dict[str, list] = {}
        self._queue = TimedWorkerQueue()
        self.events: list[TaintManagerEvent] = []

    # -- inspection -------------------------------------------------------------------
    def tainted_nodes(self) -> dict[str, list]:
        """Node -> the NoExecute taints the manager knows (nodes without any are absent)."""
        return {k: list(v) for k, v in self._tainted.items()}

    def scheduled(self) -> dict[str, ScheduledEviction]:
        """Pending deletions (timers and deletions due now), by pod key."""
        return self._queue.pending()

    def next_deadline(self) -> float | None:
        """The earliest ``fire_at`` of the pending deletions, or None."""
        return self._queue.next_deadline()

    def due(self, now) -> list[tuple[str, float]]:
        """Pop the deletions due at ``now``: ``[(pod key, fire time)]`` by time then key.
        The caller deletes them (:func:`delete_pod_by_taint_manager`)."""
        out = []
        seen = set()
        for w in self._queue.due(float(now)):
            if w.pod in seen:
                continue
            seen.add(w.pod)
            self.events.append(TaintManagerEvent(w.fire_at, w.pod, w.node, "fired", w.fire_at,
                                                 pod_deletion_event(w.pod)["message"]))
            out.append((w.pod, w.fire_at))
        return out

    # -- events ------------------------------------------------------------------------
    def on_node_update(self, node, now, *, pods: Iterable | None = None) -> None:
        """A node was added or changed (``handleNodeUpdate``)."""
        t = float(now)
        name = node.metadata.name
        taints = no_execute_taints(node.spec.taints)
        if taints:
            self._tainted[name] = taints
        else:
            self._tainted.pop(name, None)
        pods = self._pods_on(name) if pods is None else [p for p in pods if p.spec.node_name == name]
        if not pods:
            return
        if not taints:
            for pod in pods:
                self._cancel(_key(pod), name, t)
            return
        for pod in pods:
            self._process(_key(pod), name, pod.spec.tolerations, taints, t)

    def on_node_delete(self, name: str, now=None) -> None:
        """A node was deleted: its taints are forgotten (scheduled deletions stay)."""
        self._tainted.pop(name, None)

    def on_pod_update(self, pod, now, *, old=None) -> None:
        """A pod was added or changed (``PodUpdated`` + ``handlePodUpdate``); with
        ``old``, nothing happens unless the tolerations or the node changed."""
        if old is not None and old.spec.node_name == pod.spec.node_name and \
                [t.model_dump() for t in old.spec.tolerations] == [t.model_dump() for t in pod.spec.tolerations]:
            return
        node = pod.spec.node_name
        if not node:
            return
        taints = self._tainted.get(node)
        if taints is None:
            return
        self._process(_key(pod), node, pod.spec.tolerations, taints, float(now))

    def on_pod_delete(self, pod_key: str, now) -> None:
        """A pod is gone: its scheduled deletion is cancelled."""
        work = self._queue.get_worker(pod_key)
        self._cancel(pod_key, work.node if work is not None else "", float(now))

    def sync(self, cluster, now) -> None:
        """Tell the manager about every node of ``cluster`` (a start-up resync)."""
        for node in cluster.nodes.values():
            self.on_node_update(node, now, pods=[p for p in cluster.pods.values()
                                                 if p.spec.node_name == node.metadata.name])

    # -- upstream processPodOnNode ---------------------------------------------------------------
    def _pods_on(self, node: str) -> list:
        if self.cluster is None:
            return []
        return sorted((p for p in self.cluster.pods.values() if p.spec.node_name == node), key=_key)

    def _cancel(self, key: str, node: str, t: float) -> None:
        work = self._queue.cancel_work(key)  # a deletion already running is only dropped from the map
        if work is not None:
            self.events.append(TaintManagerEvent(t, key, node or work.node, "cancelled", work.fire_at,
                                                 pod_deletion_event(key, cancelled=True)["message"]))

    def _add(self, key: str, node: str, created: float, fire: float) -> None:
        self._queue.add_work(ScheduledEviction(key, node, created, fire))

    def _process(self, key: str, node: str, tolerations: list, taints: list, t: float) -> None:
        if not taints:
            self._cancel(key, node, t)
            return
        all_tolerated, used = get_matching_tolerations(taints, tolerations,
                                                       comparison_operators=self.comparison_operators)
        if not all_tolerated:
            self._cancel(key, node, t)
            self._add(key, node, t, t)
            self.events.append(TaintManagerEvent(t, key, node, "evict-now", t))
            return
        seconds = min_toleration_seconds(used)
        if seconds < 0:
            self._cancel(key, node, t)
            self.events.append(TaintManagerEvent(t, key, node, "forever"))
            return
        start, trigger = t, t + seconds
        existing = self._queue.get_worker(key)
        if existing is not None:
            start = existing.created_at
            if start + seconds < trigger:
                self.events.append(TaintManagerEvent(t, key, node, "kept", existing.fire_at))
                return
            self._cancel(key, node, t)
        if self._queue.started(key):
            return
        self._add(key, node, start, trigger)
        self.events.append(TaintManagerEvent(t, key, node, "evict-now" if trigger <= start else "scheduled",
                                             trigger))

    def events_frame(self):
        """The decisions as a pandas DataFrame (time, pod, node, kind, fire_at, message)."""
        import pandas as pd

        return pd.DataFrame([e.__dict__ for e in self.events],
                            columns=["time", "pod", "node", "kind", "fire_at", "message"])


def pod_deletion_event(pod_key: str, *, cancelled: bool = False) -> dict:
    """The Event the manager records for a pod when its deletion fires
    (``emitPodDeletionEvent``) or a pending one is cancelled
    (``emitCancelPodDeletionEvent``): reason ``TaintManagerEviction``, type Normal.

    >>> pod_deletion_event("test/test", cancelled=True)["message"]
    'Cancelling deletion of Pod test/test'
    """
    ns, _, name = pod_key.rpartition("/")
    verb = "Cancelling deletion of" if cancelled else "Marking for deletion"
    return {"namespace": ns, "involvedObject": {"kind": "Pod", "apiVersion": "v1", "namespace": ns, "name": name},
            "reason": EVENT_REASON, "type": "Normal", "count": 1, "message": f"{verb} Pod {pod_key}"}


def _key(pod) -> str:
    return f"{pod.metadata.namespace or ''}/{pod.metadata.name}"


def delete_pod_by_taint_manager(cluster, pod_key: str, *, now, remove: Callable[[str], None] | None = None):
    """What a fired deletion does (``addConditionAndDeletePod``): the pod gets
    ``DisruptionTarget`` (reason ``DeletionByTaintManager``) and is deleted with
    default options, i.e. gracefully with its own grace period.  Returns the
    :class:`~kschedlab.eviction.api_initiated.DeletionOutcome` (None when the pod is gone)."""
    from kschedlab.eviction.api_initiated import graceful_delete, update_pod_condition

    pod = cluster.pods.get(pod_key)
    if pod is None:
        return None
    update_pod_condition(pod, DISRUPTION_TARGET, "True", REASON_DELETION_BY_TAINT_MANAGER,
                         MESSAGE_DELETION_BY_TAINT_MANAGER, now)
    return graceful_delete(cluster, pod_key, now=now, remove=remove)


# ------------------------------------------------------------------------- replay
def replay(cluster, events: Iterable, *, until: float, manager: NoExecuteTaintManager | None = None,
           start: float = 0.0):
    """Run the taint manager over a list of timed changes and return what happened
    to the pods, as a DataFrame (``time``, ``pod``, ``node``, ``event``, ``detail``).

    ``events`` are ``(time, change)`` with ``change`` one of

    * a ``Node`` -- the node as it now is (added or updated);
    * a ``Pod`` -- a pod created or changed (bound pods count);
    * ``("condition", node_name, type, status)`` -- a node condition changes and
      the node lifecycle controller reconciles its taints
      (:func:`set_node_condition`, :func:`reconcile_condition_taints`);
    * ``("delete", pod_key)`` -- a pod is deleted by someone else.

    Fired deletions are carried out with :func:`delete_pod_by_taint_manager`
    and terminating pods disappear when their grace period ends
    (:func:`kschedlab.eviction.api_initiated.finish_terminations`).  The cluster is changed
    in place.
    """
    import pandas as pd

    from kschedlab.eviction.api_initiated import finish_terminations

    tm = manager or NoExecuteTaintManager(cluster)
    if tm.cluster is None:
        tm.cluster = cluster
    rows: list[dict] = []
    queue = sorted(((float(t), i, change) for i, (t, change) in enumerate(events)), key=lambda e: (e[0], e[1]))
    tm.sync(cluster, start)
    seen = len(tm.events)

    def log_manager() -> None:
        nonlocal seen
        for e in tm.events[seen:]:
            if e.kind == "scheduled":
                rows.append({"time": e.time, "pod": e.pod, "node": e.node, "event": "eviction scheduled",
                             "detail": f"at t={e.fire_at:g}"})
            elif e.kind == "evict-now":
                rows.append({"time": e.time, "pod": e.pod, "node": e.node, "event": "untolerated taint",
                             "detail": "evict at once"})
            elif e.kind == "forever":
                rows.append({"time": e.time, "pod": e.pod, "node": e.node, "event": "tolerated",
                             "detail": "no tolerationSeconds: stays"})
            elif e.kind == "cancelled":
                rows.append({"time": e.time, "pod": e.pod, "node": e.node, "event": "eviction cancelled",
                             "detail": e.message})
        seen = len(tm.events)

    log_manager()

    def fire(t: float) -> None:
        for key, when in tm.due(t):
            pod = cluster.pods.get(key)
            node = pod.spec.node_name if pod is not None else ""
            out = delete_pod_by_taint_manager(cluster, key, now=when)
            if out is not None:
                detail = "deleted at once" if out.deleted else \
                    f"terminating, grace {out.grace_period_seconds}s"
                rows.append({"time": when, "pod": key, "node": node, "event": "evicted", "detail": detail})
                if out.deleted:
                    tm.on_pod_delete(key, when)
        for key in finish_terminations(cluster, t):
            rows.append({"time": t, "pod": key, "node": "", "event": "gone", "detail": "grace period over"})
            tm.on_pod_delete(key, t)
        log_manager()

    now, first = start, True
    while True:
        candidates = [x for x in (queue[0][0] if queue else None, tm.next_deadline(), _next_termination(cluster))
                      if x is not None and (x > now or first)]
        first = False
        if not candidates:
            break
        t = max(now, min(candidates))
        if t > until:
            break
        now = t
        fire(t)
        while queue and queue[0][0] <= t:
            _, _, change = queue.pop(0)
            _apply(cluster, tm, change, t)
            log_manager()
        fire(t)
    log_manager()
    frame = pd.DataFrame(rows, columns=["time", "pod", "node", "event", "detail"])
    return frame


def _next_termination(cluster) -> float | None:
    from kschedlab.eviction.disruption import to_seconds

    times = []
    for pod in cluster.pods.values():
        ts = pod.metadata.deletion_timestamp
        if ts is None or pod.metadata.finalizers:
            continue
        node = cluster.nodes.get(pod.spec.node_name) if pod.spec.node_name else None
        if node is not None and any(c.type == "Ready" and c.status == "Unknown" for c in node.status.conditions):
            continue
        times.append(to_seconds(ts))
    return min(times) if times else None


def _apply(cluster, tm: NoExecuteTaintManager, change, t: float) -> None:
    kind = type(change).__name__
    if kind == "Node":
        if change.metadata.name in cluster.nodes:
            cluster.update_node(change)
        else:
            cluster.add(change)
        tm.on_node_update(change, t)
    elif kind == "Pod":
        key = _key(change)
        old = cluster.pods.get(key)
        if old is not None:
            cluster.remove_pod(key)
        cluster.add(change)
        tm.on_pod_update(change, t, old=old)
    elif isinstance(change, tuple) and change[0] == "condition":
        _, name, ctype, status = change
        node = reconcile_condition_taints(set_node_condition(cluster.nodes[name], ctype, status, now=t), now=t)
        cluster.update_node(node)
        tm.on_node_update(node, t)
    elif isinstance(change, tuple) and change[0] == "delete":
        key = change[1]
        if key in cluster.pods:
            cluster.remove_pod(key)
        tm.on_pod_delete(key, t)
    else:
        raise ValueError(f"unknown change {change!r}")
