"""The GangScheduling plugin's hierarchy tracker (upstream ``gangscheduling/hierarchy_tracker``):
readiness counts kept incrementally across PodGroup / CompositePodGroup hierarchies.

A PodGroup counts its active pods (a pod is known by its UID, ``namespace/name`` without one)
and is ready with at least ``minCount`` of them (1 for a basic policy); a CompositePodGroup
counts its ready children and is ready with at least ``minGroupCount`` (1 for basic). A group
crossing its quorum passes +1 / -1 to its parent, and so on upward, but never above
``WorkloadMaxTreeDepth`` levels counted from the group that changed (a parent cycle or a
too-deep tree stops there). Groups may arrive in any order: a group known only as a
parent, or through a pod, is tracked with a quorum of 1 until its object arrives. Deleting
a PodGroup retracts its readiness from its parent but keeps its pods, until the last one
goes. Without the CompositePodGroup gate parents are ignored.

>>> from kschedlab.api.core import Pod
>>> from kschedlab.api.podgroup import PodGroup
>>> t = HierarchyTracker(composite_enabled=True)
>>> t.add_group(PodGroup.model_validate({"metadata": {"name": "pg", "namespace": "ns"},
...     "spec": {"schedulingPolicy": {"gang": {"minCount": 1}}, "parentCompositePodGroupName": "root"}}))
>>> t.add_pod(Pod.model_validate({"metadata": {"name": "p", "namespace": "ns"},
...     "spec": {"schedulingGroup": {"podGroupName": "pg"}}}))
>>> t.ready_children_count("podgroup/ns/pg"), t.ready_children_count("compositepodgroup/ns/root")
(1, 1)
>>> t.find_root_group_readiness("podgroup/ns/pg") is None   # the root's object never arrived
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kschedlab.api.podgroup import composite_pod_group_key, pod_group_key
from kschedlab.api.workloadapi import WORKLOAD_MAX_TREE_DEPTH

__all__ = ["HierarchyTracker", "RootGroupReadiness", "HierarchyDepthError"]

TERMINAL_PHASES = ("Succeeded", "Failed")


class HierarchyDepthError(Exception):
    """A hierarchy deeper than ``WorkloadMaxTreeDepth`` (or a parent cycle)."""


@dataclass
class RootGroupReadiness:
    """The root group object of a hierarchy and its ready children (its active pods for a
    standalone PodGroup)."""

    root_group: Any
    ready_children: int


@dataclass
class _Group:
    key: str
    parent: str | None = None
    min_count: int = 1
    pods: set[str] = field(default_factory=set)
    ready_children: int = 0
    obj: Any = None

    @property
    def is_pod_group(self) -> bool:
        return self.key.startswith("podgroup/")

    @property
    def ready(self) -> bool:
        return (len(self.pods) if self.is_pod_group else self.ready_children) >= self.min_count


def _pod_id(pod) -> str:
    return pod.metadata.uid or f"{pod.metadata.namespace or ''}/{pod.metadata.name}"


def _pod_group_key(pod) -> str | None:
    group = pod.spec.scheduling_group
    if group is None or group.pod_group_name is None:
        return None
    return pod_group_key(pod.metadata.namespace or "", group.pod_group_name)


class HierarchyTracker:
    """``NewHierarchyTracker(compositePodGroupEnabled)``; the ``*_pod`` / ``*_group`` methods
    are its informer handlers, a group being a PodGroup or a CompositePodGroup object."""

    def __init__(self, composite_enabled: bool):
        self.composite_enabled = composite_enabled
        self._groups: dict[str, _Group] = {}

    @classmethod
    def for_cluster(cls, cluster, composite_enabled: bool, namespace: str | None = None) -> "HierarchyTracker":
        """A tracker fed with the cluster's groups and member pods (of ``namespace`` only, when
        given): the state the informers would have built, the pods known by their cluster key
        (a tracker built this way is read, not fed further events)."""
        tracker = cls(composite_enabled)
        for kind in ("CompositePodGroup", "PodGroup"):
            for obj in (cluster.objects.get(kind) or {}).values():
                if namespace is None or (obj.metadata.namespace or "") == namespace:
                    tracker.add_group(obj)
        pods = cluster.pods
        for (ns, name), keys in cluster.group_pods.items():
            if namespace is not None and ns != namespace:
                continue
            # the informer's pods (not terminated), known by their cluster key: one pod per key
            active = {k for k in keys if (status := pods[k].status) is None or status.phase not in TERMINAL_PHASES}
            if active:  # the group's pods added at once: as many adds, one readiness transition at most
                group = tracker._group(pod_group_key(ns, name))
                was = group.ready
                group.pods |= active
                tracker._changed(group, was)
        return tracker

    # -- reads ----------------------------------------------------------------------------------
    def ready_children_count(self, key: str) -> int:
        """``ReadyChildrenCount``: ready children of a CompositePodGroup, active pods of a
        PodGroup, 0 for a group not tracked."""
        group = self._groups.get(key)
        if group is None:
            return 0
        return len(group.pods) if group.is_pod_group else group.ready_children

    def is_ready(self, key: str) -> bool:
        group = self._groups.get(key)
        return group is not None and group.ready

    def find_root_group_readiness(self, key: str) -> RootGroupReadiness | None:
        """``FindRootGroupReadiness``: the root above ``key`` (``key`` itself without the
        CompositePodGroup gate) with its ready count; None when a group on the way is not
        known by its object; :class:`HierarchyDepthError` past ``WorkloadMaxTreeDepth`` levels."""
        current, level = key, 1
        while True:
            if level > WORKLOAD_MAX_TREE_DEPTH:
                raise HierarchyDepthError(f"hierarchy exceeded maximum tree depth at {current}, "
                                          f"possibly caused by cycle or deep hierarchy")
            group = self._groups.get(current)
            if group is None or group.obj is None:
                return None
            if group.parent is None or not self.composite_enabled:
                return RootGroupReadiness(group.obj, self.ready_children_count(current))
            current, level = group.parent, level + 1

    # -- pods -----------------------------------------------------------------------------------
    def add_pod(self, pod) -> None:
        key = _pod_group_key(pod)
        if key is None:
            return
        group = self._group(key)
        pod_id = _pod_id(pod)
        if pod_id in group.pods:
            return
        was = group.ready
        group.pods.add(pod_id)
        self._changed(group, was)

    def delete_pod(self, pod) -> None:
        key = _pod_group_key(pod)
        group = self._groups.get(key) if key else None
        pod_id = _pod_id(pod)
        if group is None or pod_id not in group.pods:
            return
        was = group.ready
        group.pods.discard(pod_id)
        self._changed(group, was)
        if group.obj is None and not group.pods and group.is_pod_group:
            del self._groups[key]  # a deleted PodGroup whose last pod went

    def update_pod(self, old, new) -> None:
        """A pod replaced by another of the same name (deleted and re-created between two
        informer syncs): the old one leaves its group, the new one joins its own."""
        if old is not None and new is not None and _pod_id(old) == _pod_id(new) \
                and _pod_group_key(old) == _pod_group_key(new):
            return
        if old is not None:
            self.delete_pod(old)
        if new is not None:
            self.add_pod(new)

    # -- groups ---------------------------------------------------------------------------------
    def add_group(self, obj) -> None:
        """Add or update a PodGroup / CompositePodGroup: its quorum and its parent link."""
        ns = obj.metadata.namespace or ""
        if obj.kind == "CompositePodGroup":
            key, quorum = composite_pod_group_key(ns, obj.metadata.name), obj.min_group_count
        else:
            key, quorum = pod_group_key(ns, obj.metadata.name), obj.min_count
        parent_name = obj.spec.parent_composite_pod_group_name if self.composite_enabled else None
        parent = composite_pod_group_key(ns, parent_name) if parent_name else None
        group = self._group(key)
        old_parent, was = group.parent, group.ready
        group.obj, group.parent = obj, parent
        group.min_count = 1 if quorum is None else quorum
        now = group.ready
        if old_parent != parent:
            if was:
                self._propagate(old_parent, -1, 1)
            if now:
                self._propagate(parent, 1, 1)
        elif was != now:
            self._propagate(parent, 1 if now else -1, 1)

    update_group = add_group

    def delete_group(self, obj) -> None:
        """Remove a group: its readiness leaves its parent; a PodGroup's pods stay tracked."""
        ns = obj.metadata.namespace or ""
        key = (composite_pod_group_key if obj.kind == "CompositePodGroup" else pod_group_key)(ns, obj.metadata.name)
        group = self._groups.get(key)
        if group is None:
            return
        if group.ready:
            self._propagate(group.parent, -1, 1)
        if group.is_pod_group and group.pods:
            group.obj, group.parent, group.min_count = None, None, 1
        else:
            del self._groups[key]

    # -- propagation ------------------------------------------------------------------------------
    def _group(self, key: str) -> _Group:
        group = self._groups.get(key)
        if group is None:
            group = self._groups[key] = _Group(key)
        return group

    def _changed(self, group: _Group, was: bool) -> None:
        now = group.ready
        if was != now:
            self._propagate(group.parent, 1 if now else -1, 1)

    def _propagate(self, parent_key: str | None, delta: int, level: int) -> None:
        """Pass ``delta`` to the parent of a group at ``level`` (1 = the group that changed),
        on upward while a parent crosses its quorum and the tree depth allows."""
        if parent_key is None or level + 1 > WORKLOAD_MAX_TREE_DEPTH:
            return
        parent = self._group(parent_key)
        was = parent.ready
        parent.ready_children += delta
        if parent.ready != was:
            self._propagate(parent.parent, 1 if parent.ready else -1, level + 1)
