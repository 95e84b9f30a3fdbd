"""QueueingHint functions of the in-tree plugins (upstream ``isSchedulableAfter*``).

Each plugin's ``events_to_register()`` (in its module under ``kschedlab/plugins``)
pairs the cluster events that might undo its rejection with one of these
functions. A hint is ``hint(pod_info, old_obj, new_obj) -> QueueingHint``;
objects it cannot interpret raise :class:`~kschedlab.framework.events.HintError`
(the queue then queues the pod, as upstream does on a hint error).

>>> from kschedlab.api.core import Node, Pod
>>> from kschedlab.framework.types import PodInfo
>>> pod = PodInfo.of(Pod.model_validate({"metadata": {"name": "p"}}))
>>> cordoned = Node.model_validate({"metadata": {"name": "n"}, "spec": {"unschedulable": True}})
>>> uncordoned = Node.model_validate({"metadata": {"name": "n"}})
>>> node_unschedulable_after_node_change(pod, cordoned, uncordoned).name
'Queue'
"""

from __future__ import annotations

from typing import Any

from kschedlab.framework.events import HintError, QueueingHint, as_objects, same_pod
from kschedlab.resourcehelpers import CPU, EPHEMERAL_STORAGE, MEMORY, PODS, pod_requests, resource_list

QUEUE = QueueingHint.Queue
SKIP = QueueingHint.QueueSkip

UNSCHEDULABLE_TAINT_KEY = "node.kubernetes.io/unschedulable"
IMPLICIT_EXTENDED_RESOURCE_PREFIX = "deviceclass.resource.kubernetes.io/"


def _pod(pod_info):
    return pod_info.pod if hasattr(pod_info, "pod") and not hasattr(pod_info, "metadata") else pod_info


# -- SchedulingGates ------------------------------------------------------------------------------------------
def scheduling_gates_after_gates_eliminated(pod_info, old_obj, new_obj) -> QueueingHint:
    """``isSchedulableAfterUpdateTargetPodSchedulingGatesEliminated``: the pod's last gate is gone."""
    return QUEUE


# -- NodeUnschedulable -----------------------------------------------------------------------------------------
def node_unschedulable_after_node_change(pod_info, old_obj, new_obj) -> QueueingHint:
    """Queue when a node was added schedulable, or went from unschedulable to schedulable."""
    original, modified = as_objects(old_obj, new_obj, "Node")
    if modified is None:
        raise HintError("expected a new *v1.Node")
    if (original is not None and original.spec.unschedulable and not modified.spec.unschedulable) or (
            original is None and not modified.spec.unschedulable):
        return QUEUE
    return SKIP


def node_unschedulable_after_pod_toleration_change(pod_info, old_obj, new_obj) -> QueueingHint:
    """Queue when the rejected pod itself got a toleration of ``node.kubernetes.io/unschedulable:NoSchedule``."""
    from kschedlab.api.core import Taint
    from kschedlab.corev1helpers import tolerations_tolerate_taint

    _, modified = as_objects(old_obj, new_obj, "Pod")
    if modified is None:
        raise HintError("expected a new *v1.Pod")
    if same_pod(_pod(pod_info), modified):
        taint = Taint(key=UNSCHEDULABLE_TAINT_KEY, effect="NoSchedule")
        if tolerations_tolerate_taint(modified.spec.tolerations, taint):
            return QUEUE
        return SKIP
    return SKIP


# -- TaintToleration -------------------------------------------------------------------------------------------
def taint_toleration_after_node_change(comparison_operators: bool = False):
    """The node hint of TaintToleration: Queue when the node's NoSchedule/NoExecute taints went from
    untolerated to tolerated (an added node counts as "was untolerated")."""
    from kschedlab.corev1helpers import find_matching_untolerated_taint

    effects = ("NoSchedule", "NoExecute")

    def untolerated(node, tolerations) -> bool:
        return find_matching_untolerated_taint(node.spec.taints, tolerations, effects,
                                               comparison_operators=comparison_operators) is not None

    def hint(pod_info, old_obj, new_obj) -> QueueingHint:
        original, modified = as_objects(old_obj, new_obj, "Node")
        if modified is None:
            raise HintError("expected a new *v1.Node")
        tolerations = _pod(pod_info).spec.tolerations
        was_untolerated = True
        if original is not None:
            was_untolerated = untolerated(original, tolerations)
        if was_untolerated and not untolerated(modified, tolerations):
            return QUEUE
        return SKIP

    hint.__name__ = "taint_toleration_after_node_change"
    return hint


def taint_toleration_after_pod_toleration_change(pod_info, old_obj, new_obj) -> QueueingHint:
    """``isSchedulableAfterPodTolerationChange``: Queue when the updated pod is the rejected pod."""
    _, modified = as_objects(old_obj, new_obj, "Pod")
    if modified is None:
        raise HintError("expected a new *v1.Pod")
    return QUEUE if same_pod(_pod(pod_info), modified) else SKIP


# -- NodeAffinity ------------------------------------------------------------------------------------------------
def _single_node_snapshot(node):
    from kschedlab.cluster import Snapshot

    snap = Snapshot(capacity=1)
    snap.add_node(node)
    return snap


def node_affinity_after_node_change(added_required=None):
    """The node hint of NodeAffinity: Queue when an added node matches the pod's required affinity
    (and the profile's ``addedAffinity``), or an update turned a non-matching node into a matching one.
    ``added_required`` is the plugin args' ``addedAffinity.requiredDuringScheduling...`` (NodeSelector)."""
    import numpy as np

    from kschedlab.nodeaffinity import RequiredNodeAffinity, match_terms

    rows = np.zeros(1, np.int64)

    def matches(required: RequiredNodeAffinity, node) -> bool:
        return bool(required.match(_single_node_snapshot(node), rows)[0])

    def hint(pod_info, old_obj, new_obj) -> QueueingHint:
        original, modified = as_objects(old_obj, new_obj, "Node")
        if modified is None:
            raise HintError("expected a new *v1.Node")
        if added_required is not None and not bool(
                match_terms(added_required.node_selector_terms, _single_node_snapshot(modified), rows)[0]):
            return SKIP
        required = RequiredNodeAffinity(_pod(pod_info))
        if not matches(required, modified):
            return SKIP
        if original is None:
            return QUEUE
        if matches(required, original):
            return SKIP
        return QUEUE

    hint.__name__ = "node_affinity_after_node_change"
    return hint


# -- NodePorts -------------------------------------------------------------------------------------------------------
def node_ports_after_pod_deleted(pod_info, old_obj, new_obj) -> QueueingHint:
    """``isSchedulableAfterPodDeleted``: Queue when a scheduled (or nominated) pod that held one of
    the rejected pod's host ports was deleted."""
    from kschedlab.framework.types import host_ports
    from kschedlab.plugins.node_ports import conflicts

    deleted, _ = as_objects(old_obj, None, "Pod")
    if deleted is None:
        raise HintError("expected a deleted *v1.Pod")
    if not deleted.spec.node_name and not (deleted.status.nominated_node_name if deleted.status else None):
        return SKIP
    ports = host_ports(deleted)
    if not ports:
        return SKIP
    used = set(ports)
    if not any(conflicts(used, *want) for want in host_ports(_pod(pod_info))):
        return SKIP
    return QUEUE


# -- NodeResourcesFit ---------------------------------------------------------------------------------------------------
def _fit_requests(pod) -> dict[str, int]:
    """The requests Fits compares (``computePodResourceRequest``): the pods count is not a request."""
    return {name: value for name, value in pod_requests(pod).items() if name != PODS}


def _allocatable(node) -> dict[str, int]:
    return resource_list(node.status.allocatable) if node.status else {}


def is_fit(pod, node) -> bool:
    """``isFit``: the pod fits an otherwise empty ``node`` (no ignored resources)."""
    if node is None:
        return False
    alloc = _allocatable(node)
    if 1 > alloc.get(PODS, 0):
        return False
    for name, want in _fit_requests(_pod(pod)).items():
        if want > 0 and want > alloc.get(name, 0):
            return False
    return True


def have_any_requested_resources_increased(pod, original_node, modified_node) -> bool:
    """``haveAnyRequestedResourcesIncreased``: more allowed pods, or more allocatable of a
    resource the pod requests."""
    old, new = _allocatable(original_node), _allocatable(modified_node)
    if new.get(PODS, 0) > old.get(PODS, 0):
        return True
    requests = _fit_requests(_pod(pod))
    if not any(requests.values()):
        return False
    for name, want in requests.items():
        if want and new.get(name, 0) > old.get(name, 0):
            return True
    return False


def fit_after_node_change(pod_info, old_obj, new_obj) -> QueueingHint:
    """The node hint of NodeResourcesFit: Queue for an added node the pod fits when empty, or an update
    that keeps it fitting and grows the allocatable of a requested resource (or the pod count)."""
    original, modified = as_objects(old_obj, new_obj, "Node")
    if modified is None:
        raise HintError("expected a new *v1.Node")
    pod = _pod(pod_info)
    if not is_fit(pod, modified):
        return SKIP
    if original is None:
        return QUEUE
    if not have_any_requested_resources_increased(pod, original, modified):
        return SKIP
    return QUEUE


def fit_after_assigned_pod_delete(pod_info, old_obj, new_obj) -> QueueingHint:
    """``isSchedulableAfterAssignedPodDelete``: Queue when the deleted pod was bound or nominated."""
    deleted, _ = as_objects(old_obj, new_obj, "Pod")
    if deleted is None:
        raise HintError("expected a deleted *v1.Pod")
    if not deleted.spec.node_name and not (deleted.status.nominated_node_name if deleted.status else None):
        return SKIP
    return QUEUE


def _scale_down_frees(target, original, modified) -> bool:
    """A scheduled pod's requests went down in a resource the target pod requests."""
    if not modified.spec.node_name:
        return False
    before, after = pod_requests(original), pod_requests(modified)
    for name, want in pod_requests(target).items():
        if not want or name == PODS:
            continue
        if name in (CPU, MEMORY, EPHEMERAL_STORAGE) or "/" in name or name.startswith("hugepages-"):
            if before.get(name, 0) > after.get(name, 0):
                return True
    return False


def fit_after_pod_event(pod_info, old_obj, new_obj) -> QueueingHint:
    """``isSchedulableAfterPodEvent`` (InPlacePodVerticalScaling on): a bound pod deleted, a bound
    pod scaled down in a resource the pod requests, or the pod itself scaled down."""
    original, modified = as_objects(old_obj, new_obj, "Pod")
    if original is None:
        raise HintError("expected an old *v1.Pod")
    target = _pod(pod_info)
    if modified is None:
        return fit_after_assigned_pod_delete(pod_info, original, None)
    if same_pod(modified, target) or _scale_down_frees(target, original, modified):
        return QUEUE
    return SKIP


def fit_after_assigned_pod_scale_down(pod_info, old_obj, new_obj) -> QueueingHint:
    """A bound pod's requests went down in a resource the rejected pod requests."""
    original, modified = as_objects(old_obj, new_obj, "Pod")
    if original is None or modified is None:
        raise HintError("expected old and new *v1.Pod")
    return QUEUE if _scale_down_frees(_pod(pod_info), original, modified) else SKIP


def fit_after_target_pod_scale_down(pod_info, old_obj, new_obj) -> QueueingHint:
    """The rejected pod itself asks for less."""
    _, modified = as_objects(old_obj, new_obj, "Pod")
    if modified is None:
        raise HintError("expected a new *v1.Pod")
    return QUEUE if same_pod(modified, _pod(pod_info)) else SKIP


def fit_after_device_class_event(pod_info, old_obj, new_obj) -> QueueingHint:
    """``isSchedulableAfterDeviceClassEvent``: a DeviceClass now maps an extended resource the pod
    requests (its explicit ``extendedResourceName``, or, for an added class, the implicit
    ``deviceclass.resource.kubernetes.io/<class>``)."""
    original, modified = as_objects(old_obj, new_obj, "DeviceClass")
    if modified is None:
        raise HintError("expected a new DeviceClass")
    new_name = _extended_resource_name(modified)
    if original is not None and _extended_resource_name(original) == new_name:
        return SKIP
    requested = {n for n, v in pod_requests(_pod(pod_info)).items() if v}
    if new_name is not None and new_name in requested:
        return QUEUE
    if original is None and IMPLICIT_EXTENDED_RESOURCE_PREFIX + (modified.metadata.name or "") in requested:
        return QUEUE
    return SKIP


def _extended_resource_name(device_class: Any) -> str | None:
    spec = getattr(device_class, "spec", None)
    return getattr(spec, "extended_resource_name", None) if spec is not None else None


# -- PodTopologySpread ------------------------------------------------------------------------------------------------------
def _spread_constraints(plugin, pod):
    """``getConstraints``: the pod's DoNotSchedule constraints, or the profile's defaults."""
    from kschedlab.plugins.pod_topology_spread_common import SelectorError

    try:
        return plugin.get_constraints(pod)
    except SelectorError as err:
        raise HintError(str(err)) from None


def _involved_in_topology_spreading(incoming, pod_with_spreading) -> bool:
    """``involvedInTopologySpreading``: the pod itself, or a bound pod of the same namespace."""
    return same_pod(incoming, pod_with_spreading) or (
        bool(incoming.spec.node_name)
        and (incoming.metadata.namespace or "") == (pod_with_spreading.metadata.namespace or ""))


def _pod_labels_match_spread_constraints(constraints, labels) -> bool:
    """``podLabelsMatchSpreadConstraints``: the labels match the selector of any constraint."""
    return any(c.selector.matches(labels) for c in constraints)


def pod_topology_spread_after_pod_change(plugin):
    """``PodTopologySpread.isSchedulableAfterPodChange`` (``plugin`` gives the default constraints):
    an involved pod (the rejected pod, or a bound pod of its namespace) was added or deleted with
    labels matching a constraint's selector, or updated so that it now matches a selector it did
    not (or the reverse); or the rejected pod got a new toleration while a constraint honours taints."""
    from kschedlab.plugins.pod_topology_spread_common import HONOR

    def hint(pod_info, old_obj, new_obj) -> QueueingHint:
        original, modified = as_objects(old_obj, new_obj, "Pod")
        if original is None and modified is None:
            raise HintError("expected a *v1.Pod")
        pod = _pod(pod_info)
        if (modified is not None and not _involved_in_topology_spreading(modified, pod)) or (
                original is not None and not _involved_in_topology_spreading(original, pod)):
            return SKIP
        constraints = _spread_constraints(plugin, pod)
        if modified is not None and original is not None:
            if (same_pod(pod, modified) and modified.spec.tolerations != original.spec.tolerations
                    and any(c.node_taints_policy == HONOR for c in constraints)):
                return QUEUE
            if modified.metadata.labels == original.metadata.labels:
                return SKIP
            for c in constraints:
                if c.selector.matches(original.metadata.labels) != c.selector.matches(modified.metadata.labels):
                    return QUEUE
            return SKIP
        if modified is not None:
            return QUEUE if _pod_labels_match_spread_constraints(constraints, modified.metadata.labels) else SKIP
        return QUEUE if _pod_labels_match_spread_constraints(constraints, original.metadata.labels) else SKIP

    hint.__name__ = "pod_topology_spread_after_pod_change"
    return hint


def pod_topology_spread_after_node_change(plugin):
    """``PodTopologySpread.isSchedulableAfterNodeChange``: a node added or deleted that has every
    topology key of the pod's constraints; an update that makes the node gain or lose one of them,
    or, for a node with all of them, changes a topology value or the taints."""
    from kschedlab.plugins.pod_topology_spread_common import node_labels_match

    def hint(pod_info, old_obj, new_obj) -> QueueingHint:
        original, modified = as_objects(old_obj, new_obj, "Node")
        if original is None and modified is None:
            raise HintError("expected a *v1.Node")
        constraints = _spread_constraints(plugin, _pod(pod_info))
        original_matching = original is not None and node_labels_match(original.metadata.labels, constraints)
        modified_matching = modified is not None and node_labels_match(modified.metadata.labels, constraints)
        if original is not None and modified is not None:
            if original_matching != modified_matching:
                return QUEUE
            if modified_matching and (
                    any(original.metadata.labels.get(c.topology_key) != modified.metadata.labels.get(c.topology_key)
                        for c in constraints)
                    or original.spec.taints != modified.spec.taints):
                return QUEUE
            return SKIP
        if modified is not None:
            return QUEUE if modified_matching else SKIP
        return QUEUE if original_matching else SKIP

    hint.__name__ = "pod_topology_spread_after_node_change"
    return hint


# -- InterPodAffinity -------------------------------------------------------------------------------------------------------
def _required_terms(pod):
    """The rejected pod's required affinity and anti-affinity terms (``GetAffinityTerms``; namespace
    selectors are not merged, as upstream's hints do not)."""
    from kschedlab.plugins.inter_pod_affinity_terms import parse_pod_terms

    terms = parse_pod_terms(pod)
    if terms.error is not None:
        raise HintError(terms.error)
    return terms.required_affinity, terms.required_anti


def inter_pod_affinity_after_pod_change(pod_info, old_obj, new_obj) -> QueueingHint:
    """``InterPodAffinity.isSchedulableAfterPodChange`` (v1.30): for bound pods only -- one added
    that matches all the rejected pod's affinity terms, one updated to match them all, or to stop
    matching all its anti-affinity terms, or one deleted that matched all its anti-affinity terms."""
    from kschedlab.plugins.inter_pod_affinity import pod_matches_all_terms

    original, modified = as_objects(old_obj, new_obj, "Pod")
    if original is None and modified is None:
        raise HintError("expected a *v1.Pod")
    if (modified is not None and not modified.spec.node_name) or (
            original is not None and not original.spec.node_name):
        return SKIP
    terms, anti_terms = _required_terms(_pod(pod_info))
    if modified is not None and original is not None:
        if not pod_matches_all_terms(terms, original) and pod_matches_all_terms(terms, modified):
            return QUEUE
        if pod_matches_all_terms(anti_terms, original) and not pod_matches_all_terms(anti_terms, modified):
            return QUEUE
        return SKIP
    if modified is not None:
        return QUEUE if pod_matches_all_terms(terms, modified) else SKIP
    return QUEUE if pod_matches_all_terms(anti_terms, original) else SKIP


def inter_pod_affinity_after_node_change(pod_info, old_obj, new_obj) -> QueueingHint:
    """``InterPodAffinity.isSchedulableAfterNodeChange`` as upstream's newer hint table
    (kubernetes/kubernetes#127470) specifies it: a new node helps when it has the topology key
    of a required affinity term, or when the pod has required anti-affinity at all (a node
    without the key cannot violate it); an updated node helps when an affinity term's key
    now has a value it did not have, or an anti-affinity term's key lost or changed its
    value. Unrelated label changes are skipped."""
    original, modified = as_objects(old_obj, new_obj, "Node")
    if modified is None:
        raise HintError("expected a new *v1.Node")
    terms, anti_terms = _required_terms(_pod(pod_info))
    new = modified.metadata.labels
    if original is None:
        return QUEUE if anti_terms or any(t.topology_key in new for t in terms) else SKIP
    old = original.metadata.labels
    if any(t.topology_key in new and old.get(t.topology_key) != new[t.topology_key] for t in terms):
        return QUEUE
    if any(t.topology_key in old and new.get(t.topology_key) != old[t.topology_key] for t in anti_terms):
        return QUEUE
    return SKIP
