"""GangScheduling: "all-or-nothing" for pods of a PodGroup with a ``gang`` policy.

In the default profile only with the GenericWorkload gate (see
:mod:`kschedlab.framework.profile`). Extension points:

* **PreEnqueue** — a pod of a group waits outside the queue until its PodGroup exists
  and, for a gang, at least ``minCount`` of the group's pods exist (scheduled or not).
  With the CompositePodGroup gate a pod below a CompositePodGroup waits until the whole
  tree of its root meets quorum (``minGroupCount`` ready children at every level).
* **EnqueueExtensions** — a new pod of the same group (hierarchy), a new PodGroup, a
  PodGroup whose ``minCount`` went down, and (CompositePodGroup gate) a new
  CompositePodGroup of the same hierarchy may make a waiting pod schedulable.
* **Permit** — the pod-by-pod ("alpha") path the seed describes: a gang pod that has
  been assumed on a node waits at Permit until ``minCount`` pods of its group are
  scheduled (assumed or bound); the pod that completes the quorum lets every waiting
  pod of the group go to binding. The wait times out after a fixed 5 minutes and the
  waiting pods go back to the queue. (Upstream v1.37 schedules a gang in one PodGroup
  scheduling cycle instead: with ``handle.extra["pod_group_cycle"]`` True — the Scheduler's
  default with GenericWorkload — Permit lets every pod through.)
* **PlacementFeasible** — in the PodGroup cycle: can ``minCount`` (``minGroupCount``) still be met.

Scheduler hooks the Permit path uses (``handle.extra``, all optional):

``waiting_pods``
    a mapping (or container) of the pod keys held at Permit — ``Scheduler.waiting``;
``allow``
    ``allow(pod_key, plugin_name)`` lets a waiting pod's plugin go — ``Scheduler.allow``;
``activate``
    ``activate([pod_key, ...])`` moves pods to the active queue (upstream
    ``handle.Activate``), called with the group's unscheduled pods while one waits.

>>> from kschedlab.cluster import Cluster
>>> from kschedlab.api.loader import load_objects
>>> from kschedlab.framework.types import PodInfo
>>> plugin = GangScheduling.for_cluster(Cluster(load_objects([
...     {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
...      "metadata": {"name": "pg", "namespace": "ns"}, "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}}},
...     {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p1", "namespace": "ns"},
...      "spec": {"schedulingGroup": {"podGroupName": "pg"}}}])))
>>> pod = plugin.handle.cluster.pod_infos["ns/p1"]
>>> print(plugin.pre_enqueue(pod))
UnschedulableAndUnresolvable: waiting for minCount pods from a gang to appear in scheduling queue
"""

from __future__ import annotations

from typing import Any

from kschedlab.api.podgroup import composite_pod_group_key, pod_group_key
from kschedlab.framework import podgroups as pgstate
from kschedlab.framework.events import (
    ASSIGNED_POD,
    COMPOSITE_POD_GROUP,
    POD_GROUP,
    UNSCHEDULED_POD,
    ActionType,
    ClusterEvent,
    HintError,
    KeyedHint,
    QueueingHint,
    as_objects,
)
from kschedlab.framework.interface import Plugin, register
from kschedlab.framework.status import SUCCESS, Code, Status

NAME = "GangScheduling"
GATE_COMPOSITE = "CompositePodGroup"

#: the fixed time a gang pod waits at Permit for its quorum (upstream permitTimeoutDuration)
PERMIT_TIMEOUT_SECONDS = 5 * 60

MSG_WAITING_FOR_POD_GROUP = 'waiting for pod\'s pod group "{name}" to appear in scheduling queue'
MSG_WAITING_FOR_MIN_COUNT = "waiting for minCount pods from a gang to appear in scheduling queue"
MSG_WAITING_FOR_TREE = 'waiting for composite pod group "{name}" tree to meet quorum'
MSG_PERMIT_WAIT = "waiting for minCount pods from a gang to be scheduled"
MSG_PERMIT_GET_FAILED = 'failed to get podGroup {namespace}/{name}: podgroup.scheduling.k8s.io "{name}" not found'
MSG_CANNOT_BE_SATISFIED = "minCount ({min}) cannot be satisfied: {scheduled} scheduled, {remaining} remaining"
MSG_NOT_YET_SATISFIED = "minCount ({min}) is not yet satisfied: {scheduled} scheduled, {remaining} remaining"

QUEUE = QueueingHint.Queue
SKIP = QueueingHint.QueueSkip


def go_duration(seconds: float) -> str:
    """Go's ``time.Duration.String()`` for whole seconds and minutes (``5m0s``, ``90s`` -> ``1m30s``).

    >>> go_duration(300), go_duration(90), go_duration(45)
    ('5m0s', '1m30s', '45s')
    """
    total = int(seconds)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes}m{secs}s"
    if minutes:
        return f"{minutes}m{secs}s"
    return f"{secs}s"


def permit_timeout_message(seconds: float = PERMIT_TIMEOUT_SECONDS, plugin: str = NAME) -> str:
    """The reason a pod is rejected with when its Permit wait times out (the framework's
    waiting-pod timer): ``rejected due to timeout after waiting 5m0s at plugin GangScheduling``."""
    return f"rejected due to timeout after waiting {go_duration(seconds)} at plugin {plugin}"


def _pod(pod_info):
    return pod_info.pod if hasattr(pod_info, "pod") and not hasattr(pod_info, "metadata") else pod_info


def scheduling_group_key(pod) -> tuple[str, str] | None:
    """The namespace and PodGroup name of a pod in a group (None outside any group): two pods
    match (``MatchingSchedulingGroup``) when their keys are equal and not None.

    >>> from kschedlab.api.core import Pod
    >>> scheduling_group_key(Pod.model_validate({"metadata": {"name": "a", "namespace": "t"},
    ...     "spec": {"schedulingGroup": {"podGroupName": "g"}}}))
    ('t', 'g')
    """
    group = pod.spec.scheduling_group
    return None if group is None else (pod.metadata.namespace or "", group.pod_group_name)


def placement_feasible(min_count: int, scheduled: int, remaining: int, plugin: str | None = None) -> Status:
    """``PlacementFeasible``: Unschedulable when ``minCount`` can no longer be met, Wait while it
    may still be, Success once met (each status of ``plugin``).

    >>> [placement_feasible(2, s, r).code.name for s, r in ((1, 1), (2, 0), (0, 1))]
    ['Wait', 'Success', 'Unschedulable']
    """
    if remaining + scheduled < min_count:
        message = MSG_CANNOT_BE_SATISFIED.format(min=min_count, scheduled=scheduled, remaining=remaining)
        return Status(Code.Unschedulable, (message,), plugin)
    if scheduled < min_count:
        message = MSG_NOT_YET_SATISFIED.format(min=min_count, scheduled=scheduled, remaining=remaining)
        return Status(Code.Wait, (message,), plugin)
    return SUCCESS if plugin is None else SUCCESS.with_plugin(plugin)


@register
class GangScheduling(Plugin):
    name = NAME

    @classmethod
    def for_cluster(cls, cluster, gates=None) -> "GangScheduling":
        """A plugin over ``cluster`` outside a framework (notebooks, tests)."""
        from kschedlab.features import FeatureGates
        from kschedlab.framework.runtime import Handle

        if isinstance(gates, dict):
            gates = FeatureGates(gates)
        return cls(None, Handle(gates or FeatureGates({"GenericWorkload": True}), None, cluster))

    # -- helpers ---------------------------------------------------------------------
    @property
    def cluster(self):
        return self.handle.cluster if self.handle is not None else None

    @property
    def composite_enabled(self) -> bool:
        gates = self.handle.gates if self.handle is not None else None
        return bool(gates is not None and gates.enabled(GATE_COMPOSITE))

    def _extra(self) -> dict:
        return self.handle.extra if self.handle is not None else {}

    # -- EnqueueExtensions -----------------------------------------------------------
    def events_to_register(self):
        """``EventsToRegister``: pod Add (unscheduled or pre-bound; group membership is immutable,
        so no pod Update), PodGroup Add / Update, and CompositePodGroup Add with that gate."""
        # without hierarchies the hint on a pod added is Skip outside the added pod's PodGroup
        # and Queue inside it: the queue offers the event to that group's pods only, and asks once
        on_add = self.after_pod_added if self.composite_enabled else KeyedHint(
            self.after_pod_added, key=scheduling_group_key, object_kind="Pod", by_key=True)
        events = [
            (ClusterEvent(UNSCHEDULED_POD, ActionType.Add), on_add),
            (ClusterEvent(ASSIGNED_POD, ActionType.Add), on_add),
            (ClusterEvent(POD_GROUP, ActionType.Add), self.after_pod_group_added),
            (ClusterEvent(POD_GROUP, ActionType.Update), self.after_pod_group_updated),
        ]
        if self.composite_enabled:
            events.append((ClusterEvent(COMPOSITE_POD_GROUP, ActionType.Add), self.after_composite_pod_group_added))
        return events

    def _same_hierarchy(self, pod, target_key: str) -> bool:
        return pgstate.same_hierarchy(self.cluster, pod.metadata.namespace or "", pgstate.pod_group_name(pod),
                                      target_key, self.composite_enabled)

    def after_pod_added(self, pod_info, old_obj, new_obj) -> QueueingHint:
        """``isSchedulableAfterPodAdded``: the added pod is in the pod's group (hierarchy)."""
        _, added = as_objects(old_obj, new_obj, "Pod")
        if added is None:
            raise HintError("expected a new *v1.Pod")
        pod = _pod(pod_info)
        if pod.spec.scheduling_group is None or added.spec.scheduling_group is None:
            return SKIP
        if not self.composite_enabled:
            return QUEUE if pgstate.matching_scheduling_group(pod, added) else SKIP
        key = pod_group_key(added.metadata.namespace, pgstate.pod_group_name(added))
        return QUEUE if self._same_hierarchy(pod, key) else SKIP

    def after_pod_group_added(self, pod_info, old_obj, new_obj) -> QueueingHint:
        """``isSchedulableAfterPodGroupAdded``: the added PodGroup is the pod's (or in its hierarchy)."""
        _, added = as_objects(old_obj, new_obj, "PodGroup")
        if added is None:
            raise HintError("expected a new *v1beta1.PodGroup")
        pod = _pod(pod_info)
        if pod.spec.scheduling_group is None:
            return SKIP
        return QUEUE if self._same_hierarchy(pod, added.group_key) else SKIP

    def after_pod_group_updated(self, pod_info, old_obj, new_obj) -> QueueingHint:
        """``isSchedulableAfterPodGroupUpdated``: the pod's gang's ``minCount`` went down."""
        old, new = as_objects(old_obj, new_obj, "PodGroup")
        if old is None or new is None:
            raise HintError("expected an old and a new *v1beta1.PodGroup")
        pod = _pod(pod_info)
        if pod.spec.scheduling_group is None or not self._same_hierarchy(pod, new.group_key):
            return SKIP
        old_gang, new_gang = old.spec.scheduling_policy.gang, new.spec.scheduling_policy.gang
        if old_gang is None or new_gang is None:
            return SKIP
        if (new_gang.min_count or 0) >= (old_gang.min_count or 0):
            return SKIP
        return QUEUE

    def after_composite_pod_group_added(self, pod_info, old_obj, new_obj) -> QueueingHint:
        """``isSchedulableAfterCompositePodGroupAdded``: the added CompositePodGroup is in the
        pod's hierarchy."""
        _, added = as_objects(old_obj, new_obj, "CompositePodGroup")
        if added is None:
            raise HintError("expected a new *v1alpha3.CompositePodGroup")
        pod = _pod(pod_info)
        if pod.spec.scheduling_group is None:
            return SKIP
        return QUEUE if self._same_hierarchy(pod, added.group_key) else SKIP

    # -- PreEnqueue --------------------------------------------------------------------
    def pre_enqueue_key(self, pod_info) -> tuple[str, str] | None:
        """What :meth:`pre_enqueue` reads of the pod: its namespace and PodGroup name (the rest is
        the cluster's), so the pods of one group get one answer in one cluster
        (``Framework.run_pre_enqueue(memo=...)``); None outside any group.

        >>> from kschedlab.api.core import Pod
        >>> GangScheduling().pre_enqueue_key(Pod.model_validate({"metadata": {"name": "a", "namespace": "t"},
        ...     "spec": {"schedulingGroup": {"podGroupName": "g"}}}))
        ('t', 'g')
        """
        return scheduling_group_key(_pod(pod_info))

    def pre_enqueue(self, pod_info) -> Status:
        pod = _pod(pod_info)
        if pod.spec.scheduling_group is None:
            return SUCCESS
        ns = pod.metadata.namespace or ""
        name = pgstate.pod_group_name(pod)
        pg = pgstate.get_pod_group(self.cluster, ns, name)
        if pg is None:
            return Status.unresolvable(MSG_WAITING_FOR_POD_GROUP.format(name=name), plugin=NAME)
        if not self.composite_enabled:
            # preEnqueueHierarchiesDisabled
            if pg.spec.scheduling_policy.gang is None:
                return SUCCESS
            if len(pgstate.members(self.cluster, ns, name)) < (pg.min_count or 0):
                return Status.unresolvable(MSG_WAITING_FOR_MIN_COUNT, plugin=NAME)
            return SUCCESS
        # preEnqueueWithHierarchies
        if not pg.spec.parent_composite_pod_group_name:
            if pg.spec.scheduling_policy.basic is not None:
                return SUCCESS
            need = 1 if pg.min_count is None else pg.min_count
            if len(pgstate.members(self.cluster, ns, name)) >= need:
                return SUCCESS
            return Status.unresolvable(MSG_WAITING_FOR_MIN_COUNT, plugin=NAME)
        return self._tree_ready(ns, pg.spec.parent_composite_pod_group_name)

    def _tree_ready(self, namespace: str, cpg_name: str) -> Status:
        """``checkCPGHierarchyReadiness``: the root CompositePodGroup has ``minGroupCount`` ready children."""
        root = pgstate.root_key(self.cluster, composite_pod_group_key(namespace, cpg_name), True)
        _, root_ns, root_name = pgstate.parse_key(root)
        if pgstate.get_composite_pod_group(self.cluster, root_ns, root_name) is None:
            return Status.unresolvable(MSG_WAITING_FOR_TREE.format(name=root_name), plugin=NAME)
        if not pgstate.group_ready(self.cluster, root):
            return Status.unresolvable(MSG_WAITING_FOR_TREE.format(name=root_name), plugin=NAME)
        return SUCCESS

    # -- Permit (the pod-by-pod path) -----------------------------------------------------
    def permit(self, state, pod_info, node_name: str) -> tuple[Status, float]:
        """Wait until ``minCount`` pods of the gang are scheduled; the pod completing the
        quorum allows every waiting pod of its group (or hierarchy)."""
        pod = _pod(pod_info)
        if pod.spec.scheduling_group is None or self._extra().get("pod_group_cycle"):
            return Status(), 0
        ns = pod.metadata.namespace or ""
        name = pgstate.pod_group_name(pod)
        pg = pgstate.get_pod_group(self.cluster, ns, name)
        if pg is None:
            return Status.error(MSG_PERMIT_GET_FAILED.format(namespace=ns, name=name), plugin=NAME), 0
        if self.composite_enabled and pg.spec.parent_composite_pod_group_name:
            return self._permit_hierarchy(ns, pg.spec.parent_composite_pod_group_name)
        if pg.spec.scheduling_policy.gang is None:
            return Status(), 0
        st = pgstate.pod_group_state(self.cluster, ns, name)
        if st.scheduled_pods_count < (pg.min_count or 0):
            self._activate(st.unscheduled)
            return Status.wait(MSG_PERMIT_WAIT, plugin=NAME), PERMIT_TIMEOUT_SECONDS
        self._allow(st.assumed)
        return Status(), 0

    def _permit_hierarchy(self, namespace: str, cpg_name: str) -> tuple[Status, float]:
        root = pgstate.root_key(self.cluster, composite_pod_group_key(namespace, cpg_name), True)
        _, root_ns, root_name = pgstate.parse_key(root)
        leaves = self._leaf_groups(root)
        if not self._scheduled_ready(root):
            for ns, name in leaves:
                self._activate(pgstate.pod_group_state(self.cluster, ns, name).unscheduled)
            return Status.wait(MSG_WAITING_FOR_TREE.format(name=root_name), plugin=NAME), PERMIT_TIMEOUT_SECONDS
        for ns, name in leaves:
            self._allow(pgstate.pod_group_state(self.cluster, ns, name).assumed)
        return Status(), 0

    def _leaf_groups(self, key: str, _seen: frozenset = frozenset()) -> list[tuple[str, str]]:
        kind, ns, name = pgstate.parse_key(key)
        if kind == "podgroup":
            return [(ns, name)]
        out = []
        for child in pgstate.children(self.cluster, key):
            if child not in _seen:
                out.extend(self._leaf_groups(child, _seen | {key}))
        return out

    def _scheduled_ready(self, key: str, _seen: frozenset = frozenset()) -> bool:
        """``isCPGTreeReady`` counting scheduled (assumed or bound) pods."""
        kind, ns, name = pgstate.parse_key(key)
        if kind == "podgroup":
            pg = pgstate.get_pod_group(self.cluster, ns, name)
            if pg is None:
                return False
            need = 1 if pg.min_count is None else pg.min_count
            return pgstate.pod_group_state(self.cluster, ns, name).scheduled_pods_count >= need
        cpg = pgstate.get_composite_pod_group(self.cluster, ns, name)
        if cpg is None:
            return False
        ready = sum(1 for child in pgstate.children(self.cluster, key)
                    if child not in _seen and self._scheduled_ready(child, _seen | {key}))
        return ready >= cpg.min_group_count

    def _activate(self, keys: list[str]) -> None:
        activate = self._extra().get("activate")
        if activate is not None and keys:
            activate(list(keys))

    def _allow(self, keys: list[str]) -> None:
        extra = self._extra()
        allow, waiting = extra.get("allow"), extra.get("waiting_pods")
        if allow is None:
            return
        for key in list(keys):
            if waiting is None or key in waiting:
                allow(key, NAME)

    # -- PlacementFeasible (PodGroup cycle) ------------------------------------------------
    def placement_feasible(self, state, group: Any, scheduled: int, remaining: int) -> Status:
        """``PlacementFeasible`` for a PodGroup (``minCount``, 1 for basic) or a CompositePodGroup
        (``minGroupCount``, 1 for basic); ``group`` is a PodGroupInfo (or the object itself)."""
        obj = getattr(group, "obj", group)
        if type(obj).__name__ == "CompositePodGroup":
            min_count = obj.min_group_count
        else:
            min_count = 1 if obj.min_count is None else obj.min_count
        return placement_feasible(min_count, scheduled, remaining, NAME)
