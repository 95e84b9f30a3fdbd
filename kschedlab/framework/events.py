"""Cluster events and queueing hints (``fwk.ClusterEvent``, ``fwk.ActionType``,
``fwk.EventResource``, ``fwk.QueueingHint`` and ``pkg/scheduler/framework/events.go``).

A plugin that can reject a pod says which cluster changes might make that pod
schedulable again (``events_to_register``): a list of ``(ClusterEvent, hint)``
pairs. The hint is ``hint(pod_info, old_obj, new_obj) -> QueueingHint``; ``None``
stands for "always Queue". The scheduling queue calls the hints of the plugins
that rejected a pod whenever a matching event arrives.

Objects handed to hints are API objects (``Pod``, ``Node``, ...); ``old_obj`` is
None for an Add, ``new_obj`` None for a Delete. A hint that cannot interpret
its objects raises (``HintError``); the queue then treats the event as
``Queue`` so that no pod gets stuck, as upstream does with a hint error.

>>> ev = ClusterEvent(NODE, ActionType.Add | ActionType.UpdateNodeLabel)
>>> match_cluster_events(ev, ClusterEvent(NODE, ActionType.UpdateNodeLabel))
True
>>> match_cluster_events(ev, ClusterEvent(NODE, ActionType.Update))   # Update is broader than registered
False
>>> EVENT_ASSIGNED_POD_DELETE.label, EVENT_UNSCHEDULABLE_TIMEOUT.label
('AssignedPodDelete', 'UnschedulableTimeout')
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum, IntFlag
from typing import Any, Callable, Iterable, Sequence

__all__ = [
    "ActionType", "QueueingHint", "ClusterEvent", "HintError",
    "POD", "ASSIGNED_POD", "UNSCHEDULED_POD", "TARGET_POD", "NODE", "PERSISTENT_VOLUME",
    "PERSISTENT_VOLUME_CLAIM", "CSI_NODE", "CSI_DRIVER", "VOLUME_ATTACHMENT", "CSI_STORAGE_CAPACITY",
    "STORAGE_CLASS", "RESOURCE_CLAIM", "RESOURCE_SLICE", "DEVICE_CLASS", "WORKLOAD", "POD_GROUP",
    "COMPOSITE_POD_GROUP", "WILDCARD",
    "SCHEDULE_ATTEMPT_FAILURE", "BACKOFF_COMPLETE", "POP_FROM_BACKOFF_Q", "FORCE_ACTIVATE",
    "UNSCHEDULABLE_TIMEOUT",
    "cluster_event_is_wildcard", "match_cluster_events", "match_any_cluster_event",
    "pod_scheduling_properties_change", "node_scheduling_properties_change",
    "node_added", "node_updated", "node_deleted", "as_objects", "evaluate_hint", "same_pod", "KeyedHint",
    "NOT_NARROWED",
]


class ActionType(IntFlag):
    """One kind of change of a resource; values and bit order as upstream (``fwk.ActionType``)."""

    NONE = 0
    Add = 1 << 0
    Delete = 1 << 1
    UpdateNodeAllocatable = 1 << 2
    UpdateNodeLabel = 1 << 3
    #: an update of the node's taints or of ``spec.unschedulable``
    UpdateNodeTaint = 1 << 4
    UpdateNodeCondition = 1 << 5
    UpdateNodeAnnotation = 1 << 6
    UpdateNodeDeclaredFeature = 1 << 7
    UpdatePodLabel = 1 << 8
    #: any resource request of the pod got smaller
    UpdatePodScaleDown = 1 << 9
    #: a toleration was added (tolerations can only be added)
    UpdatePodToleration = 1 << 10
    #: the last scheduling gate was removed
    UpdatePodSchedulingGatesEliminated = 1 << 11
    UpdatePodGeneratedResourceClaim = 1 << 12
    All = (1 << 13) - 1
    Update = All & ~(Add | Delete)


_ACTION_NAMES = {int(a): name for name, a in ActionType.__members__.items() if name != "NONE"}


def action_string(action: int) -> str:
    """``ActionType.String()``: the name of a single action, ``All`` or ``Update``; "" for other combinations.

    >>> action_string(ActionType.Add), action_string(ActionType.Update), action_string(ActionType.Add | ActionType.Delete)
    ('Add', 'Update', '')
    """
    return _ACTION_NAMES.get(int(action), "")


# -- resources (fwk.EventResource) -------------------------------------------------------------------
POD = "Pod"  #: registration only: matches AssignedPod, UnscheduledPod and TargetPod events
ASSIGNED_POD = "AssignedPod"  #: a pod bound to a node
UNSCHEDULED_POD = "UnscheduledPod"  #: another pod that is not bound yet
TARGET_POD = "TargetPod"  #: the queued pod itself (its own update)
NODE = "Node"
PERSISTENT_VOLUME = "PersistentVolume"
PERSISTENT_VOLUME_CLAIM = "PersistentVolumeClaim"
CSI_NODE = "storage.k8s.io/CSINode"
CSI_DRIVER = "storage.k8s.io/CSIDriver"
VOLUME_ATTACHMENT = "storage.k8s.io/VolumeAttachment"
CSI_STORAGE_CAPACITY = "storage.k8s.io/CSIStorageCapacity"
STORAGE_CLASS = "storage.k8s.io/StorageClass"
RESOURCE_CLAIM = "resource.k8s.io/ResourceClaim"
RESOURCE_SLICE = "resource.k8s.io/ResourceSlice"
DEVICE_CLASS = "resource.k8s.io/DeviceClass"
WORKLOAD = "scheduling.k8s.io/Workload"
POD_GROUP = "scheduling.k8s.io/PodGroup"
COMPOSITE_POD_GROUP = "scheduling.k8s.io/CompositePodGroup"
WILDCARD = "*"

_POD_SUBTYPES = frozenset({ASSIGNED_POD, UNSCHEDULED_POD, TARGET_POD})

# -- special event labels ----------------------------------------------------------------------------
SCHEDULE_ATTEMPT_FAILURE = "ScheduleAttemptFailure"
BACKOFF_COMPLETE = "BackoffComplete"
POP_FROM_BACKOFF_Q = "PopFromBackoffQ"
FORCE_ACTIVATE = "ForceActivate"
UNSCHEDULABLE_TIMEOUT = "UnschedulableTimeout"


class QueueingHint(IntEnum):
    """What a hint says about an event: the pod may now be schedulable (``Queue``) or not (``QueueSkip``)."""

    QueueSkip = 0
    Queue = 1


@dataclass(frozen=True)
class ClusterEvent:
    """A resource and the kind of change (``fwk.ClusterEvent``); hashable, used as a dict key."""

    resource: str
    action_type: ActionType
    custom_label: str = ""

    def __post_init__(self):
        object.__setattr__(self, "action_type", ActionType(int(self.action_type)))

    @property
    def label(self) -> str:
        """``Label()``: the custom label, else resource + action (``NodeAdd``, ``AssignedPodDelete``)."""
        if self.custom_label:
            return self.custom_label
        return f"{self.resource}{action_string(self.action_type)}"

    def __repr__(self) -> str:
        return f"ClusterEvent({self.label})" if self.custom_label or action_string(self.action_type) else (
            f"ClusterEvent({self.resource}, {int(self.action_type)})")


class HintError(TypeError):
    """A hint got objects it cannot interpret (``util.As`` failed)."""


# -- predefined events (pkg/scheduler/framework/events.go) ---------------------------------------------------
EVENT_ASSIGNED_POD_ADD = ClusterEvent(ASSIGNED_POD, ActionType.Add)
EVENT_ASSIGNED_POD_UPDATE = ClusterEvent(ASSIGNED_POD, ActionType.Update)
EVENT_ASSIGNED_POD_DELETE = ClusterEvent(ASSIGNED_POD, ActionType.Delete)
EVENT_UNSCHEDULED_POD_ADD = ClusterEvent(UNSCHEDULED_POD, ActionType.Add)
EVENT_UNSCHEDULED_POD_UPDATE = ClusterEvent(UNSCHEDULED_POD, ActionType.Update)
EVENT_UNSCHEDULED_POD_DELETE = ClusterEvent(UNSCHEDULED_POD, ActionType.Delete)
EVENT_TARGET_POD_UPDATE = ClusterEvent(TARGET_POD, ActionType.Update)
EVENT_NODE_ADD = ClusterEvent(NODE, ActionType.Add)
EVENT_NODE_DELETE = ClusterEvent(NODE, ActionType.Delete)
EVENT_UNSCHEDULABLE_TIMEOUT = ClusterEvent(WILDCARD, ActionType.All, UNSCHEDULABLE_TIMEOUT)
EVENT_FORCE_ACTIVATE = ClusterEvent(WILDCARD, ActionType.All, FORCE_ACTIVATE)
#: what a plugin without ``events_to_register`` is registered for (upstream ``UnrollWildCardResource``)
UNROLLED_WILDCARD: tuple[ClusterEvent, ...] = tuple(ClusterEvent(r, ActionType.All) for r in (
    POD, NODE, PERSISTENT_VOLUME, PERSISTENT_VOLUME_CLAIM, CSI_NODE, CSI_DRIVER, CSI_STORAGE_CAPACITY,
    STORAGE_CLASS, RESOURCE_CLAIM, DEVICE_CLASS))


# -- matching ------------------------------------------------------------------------------------------------
def cluster_event_is_wildcard(event: ClusterEvent) -> bool:
    """``ClusterEventIsWildCard``: resource ``*`` and every action (the forcing events)."""
    return event.resource == WILDCARD and event.action_type == ActionType.All


def _match_event_resources(registered: str, incoming: str) -> bool:
    return registered == WILDCARD or registered == incoming or (registered == POD and incoming in _POD_SUBTYPES)


def match_cluster_events(registered: ClusterEvent, incoming: ClusterEvent) -> bool:
    """``MatchClusterEvents``: ``incoming`` is the same as, or more specific than, ``registered``.

    >>> match_cluster_events(ClusterEvent(POD, ActionType.UpdatePodLabel), ClusterEvent(ASSIGNED_POD, ActionType.UpdatePodLabel))
    True
    >>> match_cluster_events(ClusterEvent(ASSIGNED_POD, ActionType.Add), ClusterEvent(UNSCHEDULED_POD, ActionType.Add))
    False
    """
    if cluster_event_is_wildcard(registered):
        return True
    r, i = int(registered.action_type), int(incoming.action_type)
    return _match_event_resources(registered.resource, incoming.resource) and (r & i) != 0 and i <= r


def match_any_cluster_event(event: ClusterEvent, registered: Iterable[ClusterEvent]) -> bool:
    """``MatchAnyClusterEvent``: some of ``registered`` matches ``event``."""
    return any(match_cluster_events(r, event) for r in registered)


# -- object helpers for hints ----------------------------------------------------------------------------------
def _unwrap(obj):
    """A PodInfo (anything with ``.pod``) stands for its pod."""
    if obj is not None and not hasattr(obj, "metadata") and hasattr(obj, "pod"):
        return obj.pod
    return obj


def as_objects(old_obj, new_obj, kind: str, hint: str | None = None) -> tuple[Any, Any]:
    """``util.As[*T](oldObj, newObj)``: both objects (either may be None) must be of ``kind``.

    Raises :class:`HintError` naming what was found otherwise; with ``hint`` (the QueueingHint's
    upstream name) the error is wrapped as the volume plugins wrap it.

    >>> try:
    ...     as_objects(None, "a string", "Pod", "isSchedulableAfterPodDeleted")
    ... except HintError as err:
    ...     print(err)
    unexpected objects in isSchedulableAfterPodDeleted: expected *v1.Pod, but got str
    """
    old_obj, new_obj = _unwrap(old_obj), _unwrap(new_obj)
    for obj in (new_obj, old_obj):
        if obj is not None and type(obj).__name__ != kind:
            found = f"expected *v1.{kind}, but got {type(obj).__name__}"
            raise HintError(found if hint is None else f"unexpected objects in {hint}: {found}")
    return old_obj, new_obj


def same_pod(a, b) -> bool:
    """Whether two pods are the same object: by UID when both have one, else by namespace/name."""
    a, b = _unwrap(a), _unwrap(b)
    ua, ub = a.metadata.uid, b.metadata.uid
    if ua and ub:
        return ua == ub
    if ua or ub:
        return False
    return ((a.metadata.namespace or ""), a.metadata.name) == ((b.metadata.namespace or ""), b.metadata.name)


HintFn = Callable[[Any, Any, Any], QueueingHint]


def event_only(fn: HintFn) -> HintFn:
    """Mark a hint whose answer is a function of the event's objects alone (it never reads the
    pod it is asked about): the queue asks it once per event and plugin however many pods that
    plugin rejected (``SchedulingQueue`` keeps the answer over one move).  Returns ``fn``.

    >>> hint = event_only(lambda pod_info, old, new: QueueingHint.Queue)
    >>> is_event_only(hint), is_event_only(lambda pod_info, old, new: QueueingHint.Queue)
    (True, False)
    """
    vars(fn)["event_only"] = True
    return fn


def is_event_only(fn: HintFn | None) -> bool:
    """The hint was marked with :func:`event_only`."""
    return bool(getattr(fn, "event_only", False))


class KeyedHint:
    """A hint that answers Skip for every pod whose ``key(pod)`` differs from the key of the
    event's new object, and for every pod whose key is None (GangScheduling's hint on a pod added:
    only pods of the added pod's PodGroup).  It is called as the hint it wraps; the queue may
    leave the pods of other keys out of the event without asking (the decision is the same).

    ``object_kind``: the kind of object the hint interprets; for another kind the hint raises
    (Queue for every pod) and :meth:`event_key` says the event cannot be narrowed.
    ``by_key``: the answer is a function of the event's objects and the pod's key alone (the hint
    reads nothing else of the pod), so the queue asks it once per key within a move.

    >>> hint = KeyedHint(lambda pi, old, new: QueueingHint.Queue, key=lambda pod: pod.group, object_kind="Pod")
    >>> from types import SimpleNamespace as NS
    >>> Pod = type("Pod", (NS,), {})
    >>> hint.event_key(None, Pod(group="g")), hint.event_key(None, NS(group="g")) is NOT_NARROWED
    ('g', True)
    """

    __slots__ = ("fn", "key", "object_kind", "by_key")

    def __init__(self, fn: HintFn, *, key: Callable[[Any], Any], object_kind: str, by_key: bool = False):
        self.fn = fn
        self.key = key
        self.object_kind = object_kind
        self.by_key = by_key

    def __call__(self, pod_info, old_obj, new_obj) -> QueueingHint:
        return self.fn(pod_info, old_obj, new_obj)

    def event_key(self, old_obj, new_obj) -> Any:
        """The key of the event's new object; :data:`NOT_NARROWED` when there is none or the
        hint would not interpret it."""
        try:
            _, new = as_objects(old_obj, new_obj, self.object_kind)
        except HintError:
            return NOT_NARROWED
        return NOT_NARROWED if new is None else self.key(new)


#: :meth:`KeyedHint.event_key` of an event the hint cannot narrow
NOT_NARROWED = object()


def evaluate_hint(fn: HintFn | None, pod_info, old_obj, new_obj) -> tuple[QueueingHint, Exception | None]:
    """Run a hint as the queue does: ``None`` means Queue, an exception means Queue (plus the error)."""
    if fn is None:
        return QueueingHint.Queue, None
    try:
        return QueueingHint(int(fn(pod_info, old_obj, new_obj))), None
    except Exception as err:  # noqa: BLE001 -- upstream treats any hint error as Queue
        return QueueingHint.Queue, err


# -- interpreting updates (PodSchedulingPropertiesChange / NodeSchedulingPropertiesChange) --------------------------
def _pod_scale_down(new, old) -> bool:
    from kschedlab.api.resources import pod_requests

    old_req, new_req = pod_requests(old), pod_requests(new)
    for name, value in old_req.items():
        if name not in new_req or _milli(name, value) > _milli(name, new_req[name]):
            return True
    return False


def _milli(name: str, value: int) -> int:
    # pod_requests gives millicores for cpu and Value() otherwise; compare MilliValue()s
    return value if name == "cpu" else value * 1000


def _claim_status_changed(new, old) -> bool:
    return (list(new.status.resource_claim_statuses) != list(old.status.resource_claim_statuses)
            or new.status.extended_resource_claim_status != old.status.extended_resource_claim_status)


def pod_scheduling_properties_change(new_pod, old_pod, *, is_self: bool, dra: bool = True) -> list[ClusterEvent]:
    """The events an update of a pod stands for (upstream ``PodSchedulingPropertiesChange``).

    The resource is ``TargetPod`` for the queued pod's own update (``is_self``), else
    ``AssignedPod`` or ``UnscheduledPod`` by ``spec.nodeName``; each specific change
    (labels, scale down, gates eliminated, tolerations, generated claims) gives one
    event, and an update with none of them gives the general ``Update``.

    >>> from kschedlab.api.core import Pod
    >>> old = Pod.model_validate({"metadata": {"name": "p"}, "spec": {"schedulingGates": [{"name": "g"}]}})
    >>> new = Pod.model_validate({"metadata": {"name": "p", "labels": {"a": "b"}}})
    >>> [e.label for e in pod_scheduling_properties_change(new, old, is_self=True)]
    ['TargetPodUpdatePodLabel', 'TargetPodUpdatePodSchedulingGatesEliminated']
    """
    new_pod, old_pod = _unwrap(new_pod), _unwrap(old_pod)
    if is_self:
        resource = TARGET_POD
    elif new_pod.spec.node_name:
        resource = ASSIGNED_POD
    else:
        resource = UNSCHEDULED_POD
    actions = []
    if dict(new_pod.metadata.labels or {}) != dict(old_pod.metadata.labels or {}):
        actions.append(ActionType.UpdatePodLabel)
    if _pod_scale_down(new_pod, old_pod):
        actions.append(ActionType.UpdatePodScaleDown)
    if not new_pod.spec.scheduling_gates and old_pod.spec.scheduling_gates:
        actions.append(ActionType.UpdatePodSchedulingGatesEliminated)
    if len(new_pod.spec.tolerations) != len(old_pod.spec.tolerations):
        actions.append(ActionType.UpdatePodToleration)
    if dra and _claim_status_changed(new_pod, old_pod):
        actions.append(ActionType.UpdatePodGeneratedResourceClaim)
    if not actions:
        actions.append(ActionType.Update)
    return [ClusterEvent(resource, a) for a in actions]


def _allocatable(node) -> dict[str, int]:
    from kschedlab.api.resources import resource_list

    return resource_list(node.status.allocatable)


def _conditions(node) -> dict[str, str | None]:
    return {c.type: c.status for c in node.status.conditions}


def node_scheduling_properties_change(new_node, old_node) -> list[ClusterEvent]:
    """The events an update of a node stands for (upstream ``NodeSchedulingPropertiesChange``).

    ``spec.unschedulable`` turning false counts as ``UpdateNodeTaint``; an update that
    changes nothing the scheduler looks at gives no event at all.

    >>> from kschedlab.api.core import Node
    >>> old = Node.model_validate({"metadata": {"name": "n"}, "spec": {"unschedulable": True}})
    >>> new = Node.model_validate({"metadata": {"name": "n", "labels": {"zone": "a"}}})
    >>> [e.label for e in node_scheduling_properties_change(new, old)]
    ['NodeUpdateNodeTaint', 'NodeUpdateNodeLabel']
    """
    actions = []
    if bool(new_node.spec.unschedulable) != bool(old_node.spec.unschedulable) and not new_node.spec.unschedulable:
        actions.append(ActionType.UpdateNodeTaint)
    if _allocatable(old_node) != _allocatable(new_node):
        actions.append(ActionType.UpdateNodeAllocatable)
    if dict(new_node.metadata.labels or {}) != dict(old_node.metadata.labels or {}):
        actions.append(ActionType.UpdateNodeLabel)
    if list(new_node.spec.taints) != list(old_node.spec.taints):
        actions.append(ActionType.UpdateNodeTaint)
    if _conditions(old_node) != _conditions(new_node):
        actions.append(ActionType.UpdateNodeCondition)
    if dict(old_node.metadata.annotations or {}) != dict(new_node.metadata.annotations or {}):
        actions.append(ActionType.UpdateNodeAnnotation)
    if sorted(old_node.status.declared_features) != sorted(new_node.status.declared_features):
        actions.append(ActionType.UpdateNodeDeclaredFeature)
    return [ClusterEvent(NODE, a) for a in actions]


def node_added(node=None) -> ClusterEvent:
    """The event of a node being added (``NodeAdd``)."""
    return EVENT_NODE_ADD


def node_updated(old_node, new_node) -> list[ClusterEvent]:
    """The events of a node update (see :func:`node_scheduling_properties_change`); may be empty."""
    return node_scheduling_properties_change(new_node, old_node)


def node_deleted(node=None) -> ClusterEvent:
    """The event of a node being deleted (``NodeDelete``)."""
    return EVENT_NODE_DELETE


def events_of(event: ClusterEvent | Sequence[ClusterEvent]) -> list[ClusterEvent]:
    """One event or a list of them, as a list."""
    if isinstance(event, ClusterEvent):
        return [event]
    return list(event)


#: the two answers of a QueueingHint, as hint functions return them
QUEUE = QueueingHint.Queue
SKIP = QueueingHint.QueueSkip


def pod_of(pod_info):
    """The v1.Pod of a PodInfo (or the pod itself), as hint functions receive either."""
    return pod_info.pod if hasattr(pod_info, "pod") and not hasattr(pod_info, "metadata") else pod_info
