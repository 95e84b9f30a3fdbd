"""Cluster events: matching and the events an update stands for.

Sources: kubernetes/kubernetes pkg/scheduler/framework/types_test.go (stored copy id 60702751550; commit not reported by the store)
TestClusterEventMatching; pkg/scheduler/framework/events_test.go (stored copy id 869146959; commit not reported by the store)
TestNode*Change, TestNodeSchedulingPropertiesChange, Test_podSchedulingPropertiesChange (whose
``unschedulablePod``/``assignedPod`` resources are named UnscheduledPod/AssignedPod in the newest
fwk; ``updatePodOther`` is the general Update action).
"""

from __future__ import annotations

import pytest
from kschedlab_queue_fakes import make_node, make_pod

from kschedlab.api.core import Node, Pod
from kschedlab.framework import events as ev
from kschedlab.framework.events import ActionType as A
from kschedlab.framework.events import ClusterEvent as E

POD, ASSIGNED, UNSCHEDULED, TARGET, WILD, NODE = (ev.POD, ev.ASSIGNED_POD, ev.UNSCHEDULED_POD, ev.TARGET_POD,
                                                  ev.WILDCARD, ev.NODE)

MATCHING = [
    ("wildcard event matches with all kinds of coming events", E(WILD, A.All), E(POD, A.UpdateNodeLabel), True),
    ("event with resource = 'Pod' matching with coming events carries matching actionType",
     E(POD, A.UpdateNodeLabel | A.UpdateNodeTaint), E(POD, A.UpdateNodeLabel), True),
    ("event with resource = 'Pod' also matches event with 'UnscheduledPod' resource and matching actionType",
     E(POD, A.UpdateNodeLabel | A.UpdateNodeTaint), E(UNSCHEDULED, A.UpdateNodeLabel), True),
    ("event with resource = '*' matching with coming events carries same actionType", E(WILD, A.UpdateNodeLabel),
     E(POD, A.UpdateNodeLabel), True),
    ("event with resource = '*' matching with coming events carries different actionType",
     E(WILD, A.UpdateNodeLabel), E(POD, A.UpdateNodeAllocatable), False),
    ("event matching with coming events carries '*' resources", E(POD, A.UpdateNodeLabel), E(WILD, A.UpdateNodeLabel),
     False),
    ("event with resource = '*' matching with coming events carrying a too broad actionType",
     E(WILD, A.UpdateNodeLabel), E(POD, A.Update), False),
    ("event with resource = '*' matching with coming events carrying a more specific actionType", E(WILD, A.Update),
     E(POD, A.UpdateNodeLabel), True),
    ("event with resource = 'Pod' also matches event with AssignedPod resource and same actionType",
     E(POD, A.UpdateNodeLabel), E(ASSIGNED, A.UpdateNodeLabel), True),
    ("event with resource = 'Pod' also matches event with 'TargetPod' resource and same actionType",
     E(POD, A.UpdateNodeTaint), E(TARGET, A.UpdateNodeTaint), True),
    ("event with resource 'AssignedPod' does not match event with 'UnscheduledPod' resource and same actionType",
     E(ASSIGNED, A.Add), E(UNSCHEDULED, A.Add), False),
    ("event with resource 'AssignedPod' does not match event with 'TargetPod' resource and same actionType",
     E(ASSIGNED, A.Update), E(TARGET, A.Update), False),
    ("event with resource 'TargetPod' does not match event with 'AssignedPod' resource and same actionType",
     E(TARGET, A.Update), E(ASSIGNED, A.Update), False),
    ("event with resource 'AssignedPod' does not match with broad 'Pod' resource and same actionType",
     E(ASSIGNED, A.Add), E(POD, A.Add), False),
    ("event with resource 'AssignedPod' does not match with 'WildCard' resource and same actionType",
     E(ASSIGNED, A.Add), E(WILD, A.Add), False),
    ("event with resource 'UnscheduledPod' does not match with broad 'Pod' resource and same actionType",
     E(UNSCHEDULED, A.Add), E(POD, A.Add), False),
    ("event with resource 'UnscheduledPod' does not match with 'WildCard' resource and same actionType",
     E(UNSCHEDULED, A.Add), E(WILD, A.Add), False),
    ("WildCard matches with a pod sub-type resource 'TargetPod' and any actionType", E(WILD, A.All),
     E(TARGET, A.Update), True),
]


@pytest.mark.parametrize("name,registered,coming,want", MATCHING, ids=[m[0] for m in MATCHING])
def test_cluster_event_matching(name, registered, coming, want):
    assert ev.match_cluster_events(registered, coming) == want


def test_labels_and_wildcards():
    assert ev.EVENT_UNSCHEDULABLE_TIMEOUT.label == "UnschedulableTimeout"
    assert ev.EVENT_FORCE_ACTIVATE.label == "ForceActivate"
    assert ev.EVENT_ASSIGNED_POD_ADD.label == "AssignedPodAdd"
    assert ev.EVENT_UNSCHEDULED_POD_ADD.label == "UnscheduledPodAdd"
    assert ev.EVENT_NODE_ADD.label == "NodeAdd"
    assert E(NODE, A.UpdateNodeTaint).label == "NodeUpdateNodeTaint"
    assert ev.cluster_event_is_wildcard(ev.EVENT_UNSCHEDULABLE_TIMEOUT)
    assert not ev.cluster_event_is_wildcard(E(WILD, A.Add))
    assert A.Update == A.All & ~(A.Add | A.Delete)


# -- node updates ---------------------------------------------------------------------------------------------------
def _node(**status_spec_meta) -> Node:
    return Node.model_validate(status_spec_meta)


@pytest.mark.parametrize("old,new,changed", [
    ({"memory": "1Ki"}, {"memory": "1Ki"}, False),
    ({"memory": "1Ki"}, {"memory": "1Ki", "storage": "1Ki"}, True),
], ids=["no allocatable resources changed", "new node has more allocatable resources"])
def test_node_allocatable_change(old, new, changed):
    events = ev.node_scheduling_properties_change(_node(status={"allocatable": new}), _node(status={"allocatable": old}))
    assert (E(NODE, A.UpdateNodeAllocatable) in events) == changed


@pytest.mark.parametrize("old,new,changed", [({"foo": "bar"}, {"foo": "bar"}, False),
                                             ({"foo": "bar"}, {"foo": "bar", "test": "value"}, True)],
                         ids=["no labels changed", "new object has more labels"])
def test_node_labels_change(old, new, changed):
    events = ev.node_scheduling_properties_change(_node(metadata={"labels": new}), _node(metadata={"labels": old}))
    assert (E(NODE, A.UpdateNodeLabel) in events) == changed


@pytest.mark.parametrize("old,new,changed", [("value", "value", False), ("value1", "value2", True)],
                         ids=["no taint changed", "taint value changed"])
def test_node_taints_change(old, new, changed):
    events = ev.node_scheduling_properties_change(_node(spec={"taints": [{"key": "key", "value": new}]}),
                                                  _node(spec={"taints": [{"key": "key", "value": old}]}))
    assert (E(NODE, A.UpdateNodeTaint) in events) == changed


@pytest.mark.parametrize("old,new,changed", [
    ([{"type": "DiskPressure", "status": "True"}], [{"type": "DiskPressure", "status": "True"}], False),
    ([{"type": "DiskPressure", "status": "True", "lastHeartbeatTime": "1970-01-01T00:00:01Z"}],
     [{"type": "DiskPressure", "status": "True", "lastHeartbeatTime": "1970-01-01T00:00:02Z"}], False),
    ([], [{"type": "Ready", "status": "True"}], True),
    ([{"type": "DiskPressure", "status": "True"}], [], True),
    ([{"type": "Ready", "status": "False"}], [{"type": "Ready", "status": "True"}], True),
], ids=["no condition changed", "only LastHeartbeatTime changed", "new node has more healthy conditions",
        "new node has less unhealthy conditions", "condition status changed"])
def test_node_conditions_change(old, new, changed):
    events = ev.node_scheduling_properties_change(_node(status={"conditions": new}), _node(status={"conditions": old}))
    assert (E(NODE, A.UpdateNodeCondition) in events) == changed


def _taint(value):
    return [{"key": "node.kubernetes.io/unschedulable", "value": value, "effect": "NoSchedule"}]


def _with(node: Node, **meta) -> Node:
    n = node.model_copy(deep=True)
    for k, v in meta.items():
        setattr(n.metadata, k, v)
    return n


NODE_CASES = [
    ("no specific changed applied", make_node(unschedulable=False), make_node(unschedulable=False), []),
    ("only node spec unavailable changed", make_node(unschedulable=False), make_node(unschedulable=True),
     [E(NODE, A.UpdateNodeTaint)]),
    ("only node allocatable changed", make_node(capacity={"cpu": "1000m", "memory": "100m", "example.com/foo": "1"}),
     make_node(capacity={"cpu": "1000m", "memory": "100m", "example.com/foo": "2"}),
     [E(NODE, A.UpdateNodeAllocatable)]),
    ("only node label changed", make_node(labels={"foo": "bar"}), make_node(labels={"foo": "fuz"}),
     [E(NODE, A.UpdateNodeLabel)]),
    ("only node taint changed", make_node(taints=_taint("")), make_node(taints=_taint("foo")),
     [E(NODE, A.UpdateNodeTaint)]),
    ("only node annotation changed", _with(make_node(), annotations={"foo": "bar"}),
     _with(make_node(), annotations={"foo": "fuz"}), [E(NODE, A.UpdateNodeAnnotation)]),
    ("only node condition changed", make_node(),
     Node.model_validate({**make_node().model_dump(by_alias=True, exclude_none=True),
                          "status": {**make_node().model_dump(by_alias=True, exclude_none=True)["status"],
                                     "conditions": [{"type": "Ready", "status": "True", "reason": "Ready",
                                                     "message": "Ready"}]}}),
     [E(NODE, A.UpdateNodeCondition)]),
    ("both node label and node taint changed", make_node(labels={"foo": "bar"}, taints=_taint("")),
     make_node(taints=_taint("foo")), [E(NODE, A.UpdateNodeLabel), E(NODE, A.UpdateNodeTaint)]),
]


@pytest.mark.parametrize("name,new,old,want", NODE_CASES, ids=[c[0] for c in NODE_CASES])
def test_node_scheduling_properties_change(name, new, old, want):
    assert ev.node_scheduling_properties_change(new, old) == want


# -- pod updates ------------------------------------------------------------------------------------------------------
def _sized(cpu: str, labels: dict | None = None) -> Pod:
    return Pod.model_validate({
        "metadata": {"name": "", **({"labels": labels} if labels else {})},
        "spec": {"containers": [{"name": "app", "resources": {"requests": {"cpu": cpu}}}]},
        "status": {"containerStatuses": [{"name": "app", "allocatedResources": {"cpu": cpu}}]}})


BIG, SMALL, SMALL_LABEL = _sized("101m"), _sized("100m"), _sized("100m", {"foo": "bar"})


def _claims(*names) -> Pod:
    return Pod.model_validate({"metadata": {"name": ""}, "status": {"resourceClaimStatuses": [
        {"name": n, "resourceClaimName": c} for n, c in names]}})


CLAIM_A, CLAIM_B = ("my-claim", "claim"), ("my-claim-2", "claim-2")

POD_CASES = [
    ("assigned pod is updated", make_pod("", labels={"foo": "bar"}, node="node"),
     make_pod("", labels={"foo": "bar2"}, node="node"), True, [E(ASSIGNED, A.UpdatePodLabel)]),
    ("only label is updated", make_pod("", labels={"foo": "bar"}), make_pod("", labels={"foo": "bar2"}), True,
     [E(UNSCHEDULED, A.UpdatePodLabel)]),
    ("pod's resource request is scaled down", SMALL, BIG, True, [E(UNSCHEDULED, A.UpdatePodScaleDown)]),
    ("pod's resource request is scaled up", BIG, SMALL, True, [E(UNSCHEDULED, A.Update)]),
    ("both pod's resource request and label are updated", SMALL_LABEL, BIG, True,
     [E(UNSCHEDULED, A.UpdatePodLabel), E(UNSCHEDULED, A.UpdatePodScaleDown)]),
    ("untracked properties of pod is updated", Pod.model_validate({"metadata": {"name": "", "annotations": {"foo": "bar"}}}),
     Pod.model_validate({"metadata": {"name": "", "annotations": {"foo": "bar2"}}}), True, [E(UNSCHEDULED, A.Update)]),
    ("scheduling gate is eliminated", make_pod(""), make_pod("", gates=["foo"]), True,
     [E(UNSCHEDULED, A.UpdatePodSchedulingGatesEliminated)]),
    ("scheduling gate is removed, but not completely eliminated", make_pod("", gates=["foo"]),
     make_pod("", gates=["foo", "bar"]), True, [E(UNSCHEDULED, A.Update)]),
    ("pod's tolerations are updated",
     make_pod("", tolerations=[{"key": "key", "operator": "Exists", "effect": "NoSchedule"},
                               {"key": "key2", "operator": "Exists", "effect": "NoSchedule"}]),
     make_pod("", tolerations=[{"key": "key", "operator": "Exists", "effect": "NoSchedule"}]), True,
     [E(UNSCHEDULED, A.UpdatePodToleration)]),
    ("pod claim statuses change, feature disabled", _claims(CLAIM_A), _claims(), False, [E(UNSCHEDULED, A.Update)]),
    ("pod claim statuses change, feature enabled", _claims(CLAIM_A), _claims(), True,
     [E(UNSCHEDULED, A.UpdatePodGeneratedResourceClaim)]),
    ("pod claim statuses swapped", _claims(CLAIM_A, CLAIM_B), _claims(CLAIM_B, CLAIM_A), True,
     [E(UNSCHEDULED, A.UpdatePodGeneratedResourceClaim)]),
    ("pod claim statuses extended", _claims(CLAIM_A, CLAIM_B), _claims(CLAIM_A), True,
     [E(UNSCHEDULED, A.UpdatePodGeneratedResourceClaim)]),
]


@pytest.mark.parametrize("name,new,old,dra,want", POD_CASES, ids=[c[0] for c in POD_CASES])
def test_pod_scheduling_properties_change(name, new, old, dra, want):
    assert ev.pod_scheduling_properties_change(new, old, is_self=False, dra=dra) == want


def test_pod_own_update_is_a_target_pod_event():
    """The queued pod's own update is reported on the TargetPod resource."""
    got = ev.pod_scheduling_properties_change(make_pod("", labels={"a": "b"}), make_pod(""), is_self=True)
    assert got == [E(TARGET, A.UpdatePodLabel)]
