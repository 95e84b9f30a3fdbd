"""What the scheduler knows of pod groups, read from a :class:`~kschedlab.cluster.Cluster`
(upstream keeps it in the scheduler cache: ``PodGroupManager``, ``PodGroupState``,
the gang plugin's hierarchy tracker).

* a pod's group: ``spec.schedulingGroup.podGroupName`` in the pod's namespace;
* a group's members: every pod of the group the scheduler's pod informer sees — all
  pods except those that terminated (``Succeeded``/``Failed``), scheduled or not;
* **assigned** members have ``spec.nodeName``; **assumed** members sit in the snapshot
  (the scheduler assumed them on a node: waiting at Permit or being bound) without a
  ``nodeName`` yet; the rest are **unscheduled**; assumed + assigned = **scheduled**;
* a group's root: follow ``parentCompositePodGroupName`` (only with the CompositePodGroup
  gate) while the parent exists; a missing group is its own root, as upstream's test
  double of ``GetRootKeyForGroup`` resolves it.

>>> from kschedlab.cluster import Cluster
>>> from kschedlab.api.core import Pod
>>> from kschedlab.api.podgroup import PodGroup
>>> c = Cluster([PodGroup.model_validate({"metadata": {"name": "pg", "namespace": "ns"},
...     "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}}})])
>>> for name in ("p1", "p2"):
...     c.add(Pod.model_validate({"metadata": {"name": name, "namespace": "ns"},
...         "spec": {"schedulingGroup": {"podGroupName": "pg"}}}))
>>> st = pod_group_state(c, "ns", "pg")
>>> st.all_pods_count, st.scheduled_pods_count, sorted(st.unscheduled)
(2, 0, ['ns/p1', 'ns/p2'])
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kschedlab.api.podgroup import composite_pod_group_key, pod_group_key
from kschedlab.framework.hierarchy_tracker import TERMINAL_PHASES, HierarchyTracker

__all__ = [
    "PodGroupState",
    "pod_group_name",
    "matching_scheduling_group",
    "pod_group_state",
    "get_pod_group",
    "get_composite_pod_group",
    "members",
    "parse_key",
    "root_key",
    "same_hierarchy",
    "group_ready",
    "ready_children_count",
    "get_pod_group_states",
    "describe_pod_groups",
    "children",
    "TERMINAL_PHASES",
]

DEFAULT_SCHEDULER_NAME = "default-scheduler"


def pod_group_name(pod) -> str | None:
    """``spec.schedulingGroup.podGroupName`` (None for a pod outside any group)."""
    group = pod.spec.scheduling_group
    return None if group is None else group.pod_group_name


def matching_scheduling_group(pod1, pod2) -> bool:
    """``helper.MatchingSchedulingGroup``: both pods name the same PodGroup, in one namespace.

    >>> from kschedlab.api.core import Pod
    >>> a, b = (Pod.model_validate({"metadata": {"name": n, "namespace": "t"},
    ...     "spec": {"schedulingGroup": {"podGroupName": "g"}}}) for n in ("a", "b"))
    >>> matching_scheduling_group(a, b), matching_scheduling_group(a, Pod.model_validate({"metadata": {"name": "c"}}))
    (True, False)
    """
    return ((pod1.metadata.namespace or "") == (pod2.metadata.namespace or "")
            and pod1.spec.scheduling_group is not None and pod2.spec.scheduling_group is not None
            and pod1.spec.scheduling_group.pod_group_name == pod2.spec.scheduling_group.pod_group_name)


def _obj_key(namespace: str | None, name: str | None) -> str:
    return f"{namespace}/{name}" if namespace else (name or "")


def get_pod_group(cluster, namespace: str | None, name: str | None):
    """The PodGroup object ``namespace/name`` the cluster holds, or None."""
    return (cluster.objects.get("PodGroup") or {}).get(_obj_key(namespace, name))


def get_composite_pod_group(cluster, namespace: str | None, name: str | None):
    """The CompositePodGroup object ``namespace/name`` the cluster holds, or None."""
    return (cluster.objects.get("CompositePodGroup") or {}).get(_obj_key(namespace, name))


def _live_members(cluster, namespace: str | None, name: str | None) -> list[tuple[str, Any]]:
    """(key, pod) of each member of group ``namespace/name`` that has not terminated, in
    cluster order (the cluster indexes members by their pod key)."""
    pods = cluster.pods
    out = []
    for key in cluster.group_pods.get((namespace or "", name), ()):
        pod = pods[key]
        if pod.status is None or pod.status.phase not in TERMINAL_PHASES:
            out.append((key, pod))
    return out


def members(cluster, namespace: str | None, name: str | None) -> list:
    """Pods of group ``namespace/name`` the scheduler sees (not terminated), in cluster order."""
    return [pod for _, pod in _live_members(cluster, namespace, name)]


@dataclass
class PodGroupState:
    """Member pods of one group by state (pod keys ``ns/name``)."""

    all: list[str] = field(default_factory=list)
    unscheduled: list[str] = field(default_factory=list)
    assumed: list[str] = field(default_factory=list)
    assigned: list[str] = field(default_factory=list)

    @property
    def all_pods_count(self) -> int:
        return len(self.all)

    @property
    def scheduled(self) -> list[str]:
        """Assumed or assigned pods."""
        return [*self.assigned, *self.assumed]

    @property
    def scheduled_pods_count(self) -> int:
        return len(self.assumed) + len(self.assigned)


def pod_group_state(cluster, namespace: str | None, name: str | None) -> PodGroupState:
    """The member pods of group ``namespace/name`` split by state (see the module docstring)."""
    st = PodGroupState()
    rows = cluster.snapshot.pod_row
    for key, pod in _live_members(cluster, namespace, name):
        st.all.append(key)
        if pod.spec.node_name:
            st.assigned.append(key)
        elif key in rows:
            st.assumed.append(key)
        else:
            st.unscheduled.append(key)
    return st


# -- hierarchy -----------------------------------------------------------------------------------
def parse_key(key: str) -> tuple[str, str, str]:
    """``(type, namespace, name)`` of a group key.

    >>> parse_key("compositepodgroup/ns/root")
    ('compositepodgroup', 'ns', 'root')
    """
    kind, ns, name = key.split("/", 2)
    return kind, ns, name


def _parent_key(cluster, key: str, cpg_enabled: bool) -> str | None:
    kind, ns, name = parse_key(key)
    obj = get_pod_group(cluster, ns, name) if kind == "podgroup" else get_composite_pod_group(cluster, ns, name)
    if obj is None or not cpg_enabled or not obj.spec.parent_composite_pod_group_name:
        return None
    return composite_pod_group_key(ns, obj.spec.parent_composite_pod_group_name)


def root_key(cluster, key: str, cpg_enabled: bool) -> str:
    """The root of ``key``'s hierarchy (``GetRootKeyForGroup``); cycles stop at a repeat.

    >>> from kschedlab.cluster import Cluster
    >>> root_key(Cluster(), "podgroup/ns/missing", True)
    'podgroup/ns/missing'
    """
    seen = {key}
    while True:
        parent = _parent_key(cluster, key, cpg_enabled)
        if parent is None or parent in seen:
            return key
        seen.add(parent)
        key = parent


def same_hierarchy(cluster, namespace: str, pod_group: str, target_key: str, cpg_enabled: bool) -> bool:
    """``areSameHierarchy``: the pod's group and ``target_key`` share a root (just equal keys
    without the CompositePodGroup gate)."""
    key = pod_group_key(namespace, pod_group)
    if not cpg_enabled:
        return key == target_key
    return root_key(cluster, key, True) == root_key(cluster, target_key, True)


def children(cluster, cpg_key: str) -> list[str]:
    """Keys of the PodGroups and CompositePodGroups whose parent is ``cpg_key``."""
    _, ns, name = parse_key(cpg_key)
    out = []
    for kind, make in (("CompositePodGroup", composite_pod_group_key), ("PodGroup", pod_group_key)):
        for obj in (cluster.objects.get(kind) or {}).values():
            if (obj.metadata.namespace or "") == ns and obj.spec.parent_composite_pod_group_name == name:
                out.append(make(ns, obj.metadata.name))
    return out


def group_ready(cluster, key: str) -> bool:
    """Readiness as the gang plugin's hierarchy tracker keeps it
    (:class:`~kschedlab.framework.hierarchy_tracker.HierarchyTracker`, fed with the cluster's
    groups and pods of the key's namespace): a PodGroup is ready with at least ``minCount``
    member pods (1 for a basic policy); a CompositePodGroup with at least ``minGroupCount``
    ready children (1 for basic)."""
    return _tracker(cluster, key).is_ready(key)


def ready_children_count(cluster, key: str) -> int:
    """``HierarchyTracker.ReadyChildrenCount`` (the active pods of a PodGroup)."""
    return _tracker(cluster, key).ready_children_count(key)


def _tracker(cluster, key: str) -> HierarchyTracker:
    return HierarchyTracker.for_cluster(cluster, composite_enabled=True, namespace=parse_key(key)[1])


def get_pod_group_states(cluster, root_key: str):
    """``helper.GetPodGroupStates``: ``(PodGroupState, None)`` for every PodGroup under
    ``root_key`` (children in the cluster's order), or ``(None, error)`` for a group the
    cluster does not hold or one deeper than ``WorkloadMaxTreeDepth``.

    >>> from kschedlab.cluster import Cluster
    >>> [err for _, err in get_pod_group_states(Cluster(), "podgroup/ns/none")]
    ['podgroup "ns/none" not found']
    """
    from kschedlab.api.workloadapi import WORKLOAD_MAX_TREE_DEPTH

    def walk(key: str, depth: int):
        if depth >= WORKLOAD_MAX_TREE_DEPTH:
            yield None, f"exceeded maximum hierarchy depth at {key}"
            return
        kind, ns, name = parse_key(key)
        if kind == "compositepodgroup":
            if get_composite_pod_group(cluster, ns, name) is None:
                yield None, f'compositepodgroup "{ns}/{name}" not found'
                return
            for child in children(cluster, key):
                yield from walk(child, depth + 1)
            return
        if get_pod_group(cluster, ns, name) is None:
            yield None, f'podgroup "{ns}/{name}" not found'
            return
        yield pod_group_state(cluster, ns, name), None

    return walk(root_key, 0)


@dataclass
class PodGroupInfo:
    """A group taken into a cycle: ``key`` is ``podgroup/<ns>/<name>`` or
    ``compositepodgroup/<ns>/<name>``; a PodGroup holds its queued ``pods`` (PodInfos, in
    cycle order), a CompositePodGroup its ``children``."""

    key: str
    obj: Any
    pods: list = field(default_factory=list)
    children: list["PodGroupInfo"] = field(default_factory=list)

    @property
    def kind(self) -> str:
        return "CompositePodGroup" if self.key.startswith("compositepodgroup/") else "PodGroup"

    @property
    def namespace(self) -> str:
        return parse_key(self.key)[1]

    @property
    def name(self) -> str:
        return parse_key(self.key)[2]

    def leaves(self) -> list["PodGroupInfo"]:
        """The PodGroups of this subtree, in child order."""
        if self.kind == "PodGroup":
            return [self]
        return [leaf for child in self.children for leaf in child.leaves()]

    def all_groups(self) -> list["PodGroupInfo"]:
        return [self, *(g for child in self.children for g in child.all_groups())]

    def queued_pods(self) -> list:
        return [p for leaf in self.leaves() for p in leaf.pods]

    def scheduled_pod_keys(self, cluster) -> list[str]:
        """Assumed or bound pods of every PodGroup of this subtree."""
        out = []
        for leaf in self.leaves():
            out.extend(pod_group_state(cluster, leaf.namespace, leaf.name).scheduled)
        return out

    @classmethod
    def build(cls, cluster, key: str, pod_keys=None, composite: bool = True) -> "PodGroupInfo":
        """The hierarchy under ``key`` as the cluster holds it now. A PodGroup's pods are its
        unscheduled members in the order the scheduler first saw them (the cluster's) — or
        those of ``pod_keys``, in that order — sorted by priority (highest first, stable)."""
        kind, ns, name = parse_key(key)
        if kind == "compositepodgroup":
            obj = get_composite_pod_group(cluster, ns, name)
            child_keys = sorted(children(cluster, key)) if composite else []
            return cls(key, obj, children=[cls.build(cluster, c, pod_keys, composite) for c in child_keys])
        obj = get_pod_group(cluster, ns, name)
        unscheduled = pod_group_state(cluster, ns, name).unscheduled
        if pod_keys is None:
            keys = unscheduled
        else:
            pending = set(unscheduled)
            keys = [k for k in pod_keys if k in pending]
        infos = [cluster.pod_infos[k] for k in keys]
        infos.sort(key=lambda pi: -(pi.pod.spec.priority or 0))  # stable: first seen first within a priority
        return cls(key, obj, pods=infos)


def _pruned(value):
    """``value`` without empty lists, maps and nulls (as the API server serializes ``omitempty``)."""
    if isinstance(value, dict):
        out = {k: _pruned(v) for k, v in value.items()}
        return {k: v for k, v in out.items() if v not in (None, [], {})}
    if isinstance(value, list):
        return [_pruned(v) for v in value]
    return value


def describe_pod_groups(cluster) -> list[dict]:
    """Every PodGroup and CompositePodGroup as ``kubectl get podgroup -o yaml`` shows it:
    apiVersion, kind, metadata, spec and status with its conditions
    (``PodGroupInitiallyScheduled`` ...), CompositePodGroups first, each kind by namespace/name.

    >>> from kschedlab.cluster import Cluster
    >>> from kschedlab.api.podgroup import PodGroup
    >>> c = Cluster([PodGroup.model_validate({"metadata": {"name": "pg", "namespace": "ns"},
    ...     "spec": {"schedulingPolicy": {"basic": {}}}, "status": {"conditions": [{"type": "PodGroupInitiallyScheduled",
    ...     "status": "True", "reason": "Scheduled", "lastTransitionTime": "2026-01-01T00:00:00Z"}]}})])
    >>> describe_pod_groups(c)[0]["status"]
    {'conditions': [{'type': 'PodGroupInitiallyScheduled', 'status': 'True', 'lastTransitionTime': '2026-01-01T00:00:00Z', 'reason': 'Scheduled'}]}
    """
    out = []
    for kind in ("CompositePodGroup", "PodGroup"):
        objects = cluster.objects.get(kind) or {}
        for key in sorted(objects):
            out.append(_pruned(objects[key].model_dump(by_alias=True, exclude_none=True, mode="json")))
    return out


def pod_priority(pod) -> int:
    """``corev1helpers.PodPriority``: ``spec.priority`` or 0."""
    return pod.spec.priority or 0


def pod_preemption_policy(pod) -> str:
    """``util.PodPreemptionPolicy``: ``spec.preemptionPolicy`` or PreemptLowerPriority."""
    return pod.spec.preemption_policy or "PreemptLowerPriority"
