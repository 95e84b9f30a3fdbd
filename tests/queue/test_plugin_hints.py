"""The in-tree plugins' QueueingHints and EventsToRegister against upstream's test tables.

Sources (kubernetes/kubernetes test files as stored in the reference store; commits not reported):

* nodeunschedulable/node_unschedulable_test.go (stored copy id 799784840):
  TestIsSchedulableAfterNodeChange, TestIsSchedulableAfterPodTolerationChange
* tainttoleration/taint_toleration_test.go (stored copy id 145891250): TestIsSchedulableAfterNodeChange,
  Test_isSchedulableAfterPodChange (the newest hint only compares UIDs -- taint_toleration.go stored copy id
  132917037 -- so the older "skip-updates-not-toleration" row is left out: the UpdatePodToleration
  registration is what keeps other updates away)
* nodeaffinity/node_affinity_test.go (stored copy id 48600269): Test_isSchedulableAfterNodeChange
* nodeports/node_ports_test.go (stored copy id 2222511315): Test_isSchedulableAfterPodDeleted
* noderesources/fit_test.go (stored copy id 789199930): Test_isSchedulableAfterPodChange (rows with
  InPlacePodVerticalScaling on), Test_isSchedulableAfterNodeChange, Test_isSchedulableAfterDeviceClassChange,
  TestIsFit, TestHaveAnyRequestedResourcesIncreased (rows without DRA extended resources: kschedlab has
  no DeviceClass objects, so nothing is ever delegated to DRA)

Error rows ("backoff-wrong-*-object") expect an exception; the queue turns it into Queue
(checked through ``evaluate_hint``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from kschedlab_queue_fakes import info, make_node, make_pod

from kschedlab.api.core import NodeSelector
from kschedlab.framework import events as ev
from kschedlab.framework.events import HintError, QueueingHint, evaluate_hint
from kschedlab.framework.runtime import Framework
from kschedlab.plugins.node_affinity import NodeAffinity, node_affinity_after_node_change
from kschedlab.plugins.node_name import NodeName
from kschedlab.plugins.node_ports import NodePorts, node_ports_after_pod_deleted
from kschedlab.plugins.node_resources_fit import (
    NodeResourcesFit,
    fit_after_assigned_pod_delete,
    fit_after_assigned_pod_scale_down,
    fit_after_device_class_event,
    fit_after_node_change,
    fit_after_pod_event,
    fit_after_target_pod_scale_down,
    have_any_requested_resources_increased,
    is_fit,
)
from kschedlab.plugins.node_unschedulable import (
    NodeUnschedulable,
    node_unschedulable_after_node_change,
    node_unschedulable_after_pod_toleration_change,
)
from kschedlab.plugins.scheduling_gates import SchedulingGates, scheduling_gates_after_gates_eliminated
from kschedlab.plugins.taint_toleration import (
    TaintToleration,
    taint_toleration_after_node_change,
    taint_toleration_after_pod_toleration_change,
)
from kschedlab.queue import framework_hints

Q, S = QueueingHint.Queue, QueueingHint.QueueSkip
ERR = "error"
EXT_A, EXT_B = "example.com/aaa", "example.com/bbb"
HUGE_A = "hugepages-2Mi"


def check(hint, pod, old, new, want):
    if want == ERR:
        with pytest.raises(HintError):
            hint(info(pod), old, new)
        assert evaluate_hint(hint, info(pod), old, new)[0] == Q
        return
    assert hint(info(pod), old, new) == want


def tol(key, effect="NoSchedule", operator="Exists", value=None):
    t = {"key": key, "operator": operator, "effect": effect}
    if value is not None:
        t["value"] = value
    return t


EMPTY = make_pod("")


# -- NodeUnschedulable -------------------------------------------------------------------------------------------
NOT_READY = [{"key": "node.kubernetes.io/not-ready", "effect": "NoExecute"}]


@pytest.mark.parametrize("old,new,want", [
    (None, "not-a-node", ERR),
    ("not-a-node", make_node(unschedulable=True), ERR),
    (None, make_node(unschedulable=True), S),
    (None, make_node(unschedulable=False), Q),
    (make_node(unschedulable=True), make_node(unschedulable=True, taints=NOT_READY), S),
    (make_node(unschedulable=False), make_node(unschedulable=False, taints=NOT_READY), S),
    (make_node(unschedulable=True), make_node(unschedulable=False), Q),
], ids=["error-wrong-new-object", "error-wrong-old-object", "skip-queue-on-unschedulable-node-added",
        "queue-on-schedulable-node-added", "skip-unrelated-change-unschedulable-true",
        "skip-unrelated-change-unschedulable-false", "queue-on-unschedulable-field-change"])
def test_node_unschedulable_after_node_change(old, new, want):
    check(node_unschedulable_after_node_change, EMPTY, old, new, want)


@pytest.mark.parametrize("pod,old,new,want", [
    (EMPTY, None, "not-a-pod", ERR),
    (EMPTY, "not-a-pod", EMPTY, ERR),
    (make_pod("", uid="uid"), make_pod("", uid="different-uid"),
     make_pod("", uid="different-uid", tolerations=[tol("node.kubernetes.io/unschedulable")]), S),
    (make_pod("", uid="uid"), make_pod("", uid="uid"),
     make_pod("", uid="uid", tolerations=[tol("node.kubernetes.io/unschedulable")]), Q),
    (make_pod("", uid="uid"), make_pod("", uid="uid"), make_pod("", uid="uid", tolerations=[tol("unrelated-key")]), S),
], ids=["error-wrong-new-object", "error-wrong-old-object", "skip-different-pod-update",
        "queue-when-the-unsched-pod-gets-toleration", "skip-when-the-unsched-pod-gets-unrelated-toleration"])
def test_node_unschedulable_after_pod_toleration_change(pod, old, new, want):
    check(node_unschedulable_after_pod_toleration_change, pod, old, new, want)


# -- TaintToleration -----------------------------------------------------------------------------------------------
def tainted(*values):
    return make_node("nodeA", taints=[{"key": "dedicated", "value": v, "effect": "NoSchedule"} for v in values])


USER2 = make_pod("pod1", tolerations=[tol("dedicated", operator="Equal", value="user2")])


@pytest.mark.parametrize("pod,old,new,want", [
    (EMPTY, None, "not-a-node", ERR),
    (EMPTY, "not-a-node", tainted("user1"), ERR),
    (USER2, None, tainted("user1"), S),
    (USER2, None, tainted("user2"), Q),
    (USER2, tainted("user1"), tainted("user1", "user3"), S),
    (USER2, tainted("user1"), tainted("user2"), Q),
], ids=["backoff-wrong-new-object", "backoff-wrong-old-object", "skip-queue-on-untoleratedtaint-node-added",
        "queue-on-toleratedtaint-node-added", "skip-unrelated-change", "queue-on-taint-change"])
def test_taint_toleration_after_node_change(pod, old, new, want):
    check(taint_toleration_after_node_change(), pod, old, new, want)


@pytest.mark.parametrize("pod,old,new,want", [
    (EMPTY, None, "not-a-pod", ERR),
    (EMPTY, "not-a-pod", EMPTY, ERR),
    (make_pod("pod-1", "ns-1", "uid0"), make_pod("pod-2", "ns-1", "uid1"),
     make_pod("pod-2", "ns-1", "uid1", tolerations=[{"key": "foo", "effect": "NoSchedule"}]), S),
    (make_pod("pod-1", "ns-1"), make_pod("pod-1", "ns-1"),
     make_pod("pod-1", "ns-1", tolerations=[{"key": "foo", "effect": "NoSchedule"}]), Q),
], ids=["backoff-wrong-new-object", "backoff-wrong-old-object", "skip-updates-other-pod", "queue-on-toleration-added"])
def test_taint_toleration_after_pod_change(pod, old, new, want):
    check(taint_toleration_after_pod_toleration_change, pod, old, new, want)


# -- NodeAffinity --------------------------------------------------------------------------------------------------------
def _affinity_pod():
    return make_pod("", affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "foo", "operator": "In", "values": ["bar"]}]}]}}})


ADDED = NodeSelector.model_validate(
    {"nodeSelectorTerms": [{"matchExpressions": [{"key": "foo", "operator": "In", "values": ["bar"]}]}]})


@pytest.mark.parametrize("added,old,new,want", [
    (None, None, "not-a-node", ERR),
    (None, "not-a-node", make_node(), ERR),
    (None, None, make_node(), S),
    (None, None, make_node(labels={"foo": "bar"}), Q),
    (None, make_node(), make_node(capacity={}), S),
    (None, make_node(), make_node(labels={"k": "v"}), S),
    (None, make_node(labels={"foo": "bar"}), make_node(labels={"k": "v"}), S),
    (None, make_node(), make_node(labels={"foo": "bar"}), Q),
    (ADDED, None, make_node(), S),
    (ADDED, None, make_node(labels={"foo": "bar"}), Q),
], ids=["backoff-wrong-new-object", "backoff-wrong-old-object", "skip-queue-on-add", "queue-on-add",
        "skip-unrelated-changes", "skip-unrelated-changes-on-labels",
        "skip-labels-changes-on-node-from-suitable-to-unsuitable", "queue-on-labels-change-makes-pod-schedulable",
        "skip-queue-on-add-scheduler-enforced-node-affinity", "queue-on-add-scheduler-enforced-node-affinity"])
def test_node_affinity_after_node_change(added, old, new, want):
    check(node_affinity_after_node_change(added), _affinity_pod(), old, new, want)


def test_node_affinity_plugin_passes_added_affinity():
    """The plugin's registration uses its own ``addedAffinity``."""
    plugin = NodeAffinity.build({"addedAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "foo", "operator": "In", "values": ["bar"]}]}]}}})
    (event, hint), = plugin.events_to_register()
    assert event == ev.ClusterEvent(ev.NODE, ev.ActionType.Add | ev.ActionType.UpdateNodeLabel)
    assert hint(info(make_pod("")), None, make_node()) == S
    assert hint(info(make_pod("")), None, make_node(labels={"foo": "bar"})) == Q


# -- NodePorts ------------------------------------------------------------------------------------------------------------
HOST_PORT_POD = make_pod("", host_ports=[8080])


@pytest.mark.parametrize("old,want", [
    ("not-a-pod", ERR),
    (make_pod(""), S),
    (make_pod("", node="fake-node"), S),
    (make_pod("", node="fake-node", host_ports=[8081]), S),
    (make_pod("", node="fake-node", host_ports=[8080]), Q),
], ids=["backoff-wrong-old-object", "skip-queue-on-unscheduled", "skip-queue-on-non-hostport",
        "skip-queue-on-unrelated-hostport", "queue-on-released-hostport"])
def test_node_ports_after_pod_deleted(old, want):
    check(node_ports_after_pod_deleted, HOST_PORT_POD, old, None, want)


# -- NodeResourcesFit --------------------------------------------------------------------------------------------------------
def req(name="", uid=None, node=None, pod_level=False, **requests):
    reqs = {k.replace("_", "-"): v for k, v in requests.items()}
    if pod_level:
        return make_pod(name, uid=uid, node=node, resources={"requests": reqs})
    return make_pod(name, uid=uid, node=node, requests=reqs)


@pytest.mark.parametrize("pod,old,new,want", [
    (EMPTY, "not-a-pod", None, ERR),
    (EMPTY, None, "not-a-pod", ERR),
    (req("pod1", cpu="1"), req("pod2", node="fake", cpu="1"), None, Q),
    (EMPTY, EMPTY, None, S),
    (req("pod1", uid="uid0", cpu="1"), req("pod2", uid="uid1", cpu="2"), req("pod2", uid="uid1", cpu="1"), S),
    (req("pod1", uid="pod1", cpu="1"), req("pod2", uid="pod2", node="fake", memory="2"),
     req("pod2", uid="pod2", node="fake", memory="1"), S),
    (req("pod1", uid="pod1", pod_level=True, cpu="1"), req("pod2", uid="pod2", node="fake", pod_level=True, memory="2"),
     req("pod2", uid="pod2", node="fake", pod_level=True, memory="1"), S),
    (req("pod1", uid="pod1", cpu="1"), req("pod2", uid="pod2", node="fake", cpu="2"),
     req("pod2", uid="pod2", node="fake", cpu="1"), Q),
    (req("pod1", uid="pod1", pod_level=True, cpu="1"), req("pod2", uid="pod2", node="fake", pod_level=True, cpu="2"),
     req("pod2", uid="pod2", node="fake", pod_level=True, cpu="1"), Q),
    (req("pod1", uid="pod1", cpu="1"), req("pod1", uid="pod1", cpu="2"), req("pod1", uid="pod1", cpu="1"), Q),
    (req("pod1", uid="pod1", pod_level=True, cpu="1"), req("pod1", uid="pod1", pod_level=True, cpu="2"),
     req("pod1", uid="pod1", pod_level=True, cpu="1"), Q),
], ids=["backoff-wrong-old-object", "backoff-wrong-new-object", "queue-on-other-pod-deleted",
        "skip-queue-on-unscheduled-pod-deleted", "skip-queue-on-other-unscheduled-pod",
        "skip-queue-on-other-pod-unrelated-resource-scaled-down",
        "skip-queue-on-other-pod-unrelated-pod-level-resource-scaled-down",
        "queue-on-other-pod-some-resource-scale-down", "queue-on-other-pod-some-pod-level-resource-scale-down",
        "queue-on-target-pod-some-resource-scale-down", "queue-on-target-pod-some-pod-level-resource-scale-down"])
def test_fit_after_pod_event(pod, old, new, want):
    check(fit_after_pod_event, pod, old, new, want)


def test_fit_split_pod_hints_agree_with_pod_event():
    """The newest upstream splits isSchedulableAfterPodEvent into AssignedPodDelete / AssignedPod scale
    down / TargetPod scale down hints (fit.go@301946d1); they answer the same on their own events."""
    target = req("pod1", uid="pod1", cpu="1")
    assert fit_after_assigned_pod_delete(info(target), req("pod2", node="fake", cpu="1"), None) == Q
    assert fit_after_assigned_pod_delete(info(target), EMPTY, None) == S
    assert fit_after_assigned_pod_delete(info(target), make_pod("nom", nominated="n1"), None) == Q
    assert fit_after_assigned_pod_scale_down(
        info(target), req("pod2", uid="pod2", node="fake", cpu="2"), req("pod2", uid="pod2", node="fake", cpu="1")) == Q
    assert fit_after_assigned_pod_scale_down(
        info(target), req("pod2", uid="pod2", node="fake", memory="2"),
        req("pod2", uid="pod2", node="fake", memory="1")) == S
    assert fit_after_target_pod_scale_down(
        info(target), req("pod1", uid="pod1", cpu="2"), req("pod1", uid="pod1", cpu="1")) == Q


MEM2_A1 = req(memory="2", **{EXT_A: "1"})


@pytest.mark.parametrize("pod,old,new,want", [
    (EMPTY, None, "not-a-node", ERR),
    (EMPTY, "not-a-node", make_node(), ERR),
    (req(memory="2"), None, make_node(capacity={"memory": "1"}), S),
    (req(**{EXT_A: "1"}), None, make_node(capacity={EXT_B: "1"}), S),
    (MEM2_A1, None, make_node(capacity={"memory": "4", EXT_A: "2"}), Q),
    (MEM2_A1, make_node(capacity={"memory": "2", EXT_A: "2"}), make_node(capacity={"memory": "2", EXT_A: "1",
                                                                                   EXT_B: "2"}), S),
    (MEM2_A1, make_node(capacity={"memory": "2", EXT_A: "1"}), make_node(capacity={"memory": "2", EXT_A: "2"}), Q),
    (MEM2_A1, make_node(capacity={"memory": "4", EXT_A: "2"}), make_node(capacity={"memory": "1", EXT_A: "2"}), S),
    (MEM2_A1, make_node(capacity={"memory": "1", EXT_A: "2"}), make_node(capacity={"memory": "4", EXT_A: "2"}), Q),
], ids=["backoff-wrong-new-object", "backoff-wrong-old-object", "skip-queue-on-node-add-without-sufficient-resources",
        "skip-queue-on-node-add-without-required-resource-type", "queue-on-node-add-with-sufficient-resources",
        "skip-queue-on-node-unrelated-changes", "queue-on-pod-requested-resources-increase",
        "skip-queue-on-node-changes-from-suitable-to-unsuitable", "queue-on-node-changes-from-unsuitable-to-suitable"])
def test_fit_after_node_change(pod, old, new, want):
    check(fit_after_node_change, pod, old, new, want)


@dataclass
class _Meta:
    name: str = ""


@dataclass
class _DeviceClassSpec:
    extended_resource_name: str | None = None


@dataclass
class DeviceClass:
    """A stand-in for resource.k8s.io/v1 DeviceClass (kschedlab has no DRA objects)."""

    metadata: _Meta = field(default_factory=_Meta)
    spec: _DeviceClassSpec = field(default_factory=_DeviceClassSpec)


def dc(name="", ern=None):
    return DeviceClass(_Meta(name), _DeviceClassSpec(ern))


GPU = "example.com/gpu"
IMPLICIT = "deviceclass.resource.kubernetes.io/gpuclass"


@pytest.mark.parametrize("pod,old,new,want", [
    (EMPTY, None, "not-a-class", ERR),
    (EMPTY, "not-a-class", dc(), ERR),
    (req(memory="2"), dc(), dc(), S),
    (req(memory="2"), dc(ern=GPU), dc(ern=GPU), S),
    (req(memory="2"), dc(ern="example.com/gpu"), dc(ern="example.com/gpu"), S),
    (req(**{IMPLICIT: "1"}), None, dc("gpuclass", GPU), Q),
    (req(**{IMPLICIT: "1"}), None, dc("myclass", GPU), S),
    (req(**{"example.com/othergpu": "1"}), None, dc("myclass", GPU), S),
    (req(**{IMPLICIT: "1"}), dc("gpuclass"), dc("gpuclass", GPU), S),
    (req(**{GPU: "1"}), None, dc(ern=GPU), Q),
    (req(**{GPU: "1"}), dc(ern="example.com/gpu1"), dc(ern=GPU), Q),
], ids=["backoff-wrong-new-object", "backoff-wrong-old-object", "skip-queue-on-class-nil-extended-resource-name-pointer",
        "skip-queue-on-class-same-extended-resource-name-pointer", "skip-queue-on-class-same-extended-resource-name",
        "queue-on-class-add-with-implicit-extended-resource-name",
        "skip-on-class-add-with-implicit-extended-resource-name-not-matching",
        "skip-on-class-add-with-explicit-extended-resource-name-not-matching",
        "skip-on-class-update-with-implicit-extended-resource-name", "queue-on-class-add-with-extended-resource-name",
        "queue-on-class-update-with-extended-resource-name"])
def test_fit_after_device_class_event(pod, old, new, want):
    check(fit_after_device_class_event, pod, old, new, want)


@pytest.mark.parametrize("pod,node,want", [
    (EMPTY, None, False),
    (req(cpu="2"), make_node(capacity={"cpu": "1"}), False),
    (req(cpu="1"), make_node(capacity={"cpu": "2"}), True),
    (req(pod_level=True, cpu="2"), make_node(capacity={"cpu": "1"}), False),
    (req(pod_level=True, cpu="2"), make_node(capacity={"cpu": "2"}), True),
    (req(pod_level=True, **{HUGE_A: "2Mi"}), make_node(capacity={HUGE_A: "2Mi"}), True),
    (req(pod_level=True, **{HUGE_A: "4Mi"}), make_node(capacity={HUGE_A: "2Mi"}), False),
], ids=["nil node", "insufficient resource", "sufficient resource", "insufficient pod-level resource",
        "sufficient pod-level resource", "sufficient pod-level resource hugepages",
        "insufficient pod-level resource hugepages"])
def test_is_fit(pod, node, want):
    assert is_fit(pod, node) == want


def _node(**cap):
    return make_node(capacity={k.replace("_", "-"): v for k, v in cap.items()})


FULL = dict(cpu="2m", memory="2", ephemeral_storage="2", **{EXT_A: "2"})


@pytest.mark.parametrize("pod,old,new,want", [
    (EMPTY, _node(pods="1", cpu="1", memory="1", ephemeral_storage="1", **{EXT_A: "1"}),
     _node(pods="1", cpu="2", memory="2", ephemeral_storage="2", **{EXT_A: "2"}), False),
    (EMPTY, _node(pods="1", cpu="1", memory="1", ephemeral_storage="1", **{EXT_A: "1"}),
     _node(pods="2", cpu="1", memory="1", ephemeral_storage="1", **{EXT_A: "1"}), True),
    (req(**FULL), _node(cpu="1", memory="2", ephemeral_storage="3"), _node(cpu="1", memory="2", ephemeral_storage="1"),
     False),
    (req(**FULL), _node(cpu="1", memory="2", ephemeral_storage="3", **{EXT_A: "4"}),
     _node(cpu="1", memory="2", ephemeral_storage="1", **{EXT_A: "1"}), False),
    (req(**FULL), _node(cpu="1", memory="2", ephemeral_storage="3", **{EXT_A: "4"}),
     _node(cpu="3", memory="4", ephemeral_storage="3", **{EXT_A: "4"}), True),
    (req(cpu="2m", memory="2"), _node(cpu="1", memory="2", ephemeral_storage="3", **{EXT_A: "4"}),
     _node(cpu="1", memory="2", ephemeral_storage="1", **{EXT_A: "1"}), False),
    (req(cpu="2m", memory="2"), _node(cpu="1", memory="2", ephemeral_storage="3", **{EXT_A: "4"}),
     _node(cpu="1", memory="2", ephemeral_storage="5", **{EXT_A: "6"}), False),
], ids=["no-requested-resources", "no-requested-resources-pods-increased", "scalar-resources-not-in-node",
        "requested-resources-decreased", "requested-resources-increased", "non-requested-resources-decreased",
        "non-requested-resources-increased"])
def test_have_any_requested_resources_increased(pod, old, new, want):
    assert have_any_requested_resources_increased(pod, old, new) == want


# -- SchedulingGates --------------------------------------------------------------------------------------------------------
def test_scheduling_gates_hint():
    assert scheduling_gates_after_gates_eliminated(info(EMPTY), make_pod("", gates=["g"]), EMPTY) == Q


# -- EventsToRegister ------------------------------------------------------------------------------------------------------
A = ev.ActionType


@pytest.mark.parametrize("plugin,want", [
    (SchedulingGates(), [(ev.TARGET_POD, A.UpdatePodSchedulingGatesEliminated)]),
    (NodeUnschedulable(), [(ev.NODE, A.Add | A.UpdateNodeTaint), (ev.TARGET_POD, A.UpdatePodToleration)]),
    (TaintToleration(), [(ev.NODE, A.Add | A.UpdateNodeTaint), (ev.TARGET_POD, A.UpdatePodToleration)]),
    (NodeAffinity(), [(ev.NODE, A.Add | A.UpdateNodeLabel)]),
    (NodeName(), [(ev.NODE, A.Add)]),
    (NodePorts(), [(ev.POD, A.Delete), (ev.NODE, A.Add)]),
], ids=["SchedulingGates", "NodeUnschedulable", "TaintToleration", "NodeAffinity", "NodeName", "NodePorts"])
def test_events_to_register(plugin, want):
    got = [(e.resource, e.action_type) for e, _ in plugin.events_to_register()]
    assert got == want


def test_node_resources_fit_events_to_register():
    """v1.37 defaults: DRAExtendedResource and InPlacePodVerticalScaling are on."""
    got = [(e.resource, e.action_type) for e, _ in NodeResourcesFit().events_to_register()]
    assert got == [(ev.ASSIGNED_POD, A.Delete), (ev.NODE, A.Add | A.UpdateNodeAllocatable),
                   (ev.DEVICE_CLASS, A.Add | A.Update), (ev.ASSIGNED_POD, A.UpdatePodScaleDown),
                   (ev.TARGET_POD, A.UpdatePodScaleDown)]


def test_framework_hints_of_default_profile():
    """Every rejecting plugin of the default profile contributes; score-only plugins do not."""
    hints = framework_hints(Framework({}))
    for name in ("SchedulingGates", "NodeUnschedulable", "TaintToleration", "NodeAffinity", "NodeName", "NodePorts",
                 "NodeResourcesFit"):
        assert name in hints, name
    for name in ("PrioritySort", "ImageLocality", "NodeResourcesBalancedAllocation", "DefaultBinder"):
        assert name not in hints, name


