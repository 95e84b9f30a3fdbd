"""QueueingHints of PodTopologySpread and InterPodAffinity against upstream's test tables.

Sources (kubernetes/kubernetes, as stored in the reference store):

* podtopologyspread/plugin_test.go, fwk-era copy (stored copy id 1536554795):
  Test_isSchedulableAfterNodeChange (13 rows), Test_isSchedulableAfterPodChange (20 rows), all ported.
  The hints follow podtopologyspread/plugin.go stored copy id 216613741 (EventsToRegister with
  QueueingHints on, isSchedulableAfterPodChange, isSchedulableAfterNodeChange, getConstraints).
  ``fooSelector`` / ``barSelector`` are ``Exists("foo")`` / ``Exists("bar")``.
* interpodaffinity/plugin_test.go, fwk-era copy (stored copy id 3704628025; its rows equal those of the
  older copy id 680955742): Test_isSchedulableAfterPodChange (13 rows, all ported) and
  Test_isSchedulableAfterNodeChange (12 rows, all ported). The pod hint follows interpodaffinity/plugin.go
  ~v1.30 (stored copy id 59578219); the node hint follows what the newer table specifies (the hint of
  kubernetes/kubernetes#127470: topology-key value changes, a removed anti-affinity key, any added node
  for anti-affinity), its code not being readable in the store. The v1.35 fixes #135325 / #135394 /
  #135392 are not readable either and are not implemented.
"""

from __future__ import annotations

import pytest

from kschedlab.api.core import Node, Pod
from kschedlab.framework import events as ev
from kschedlab.framework.events import HintError, QueueingHint, evaluate_hint
from kschedlab.framework.runtime import Framework
from kschedlab.framework.types import PodInfo
from kschedlab.plugins.inter_pod_affinity import (
    InterPodAffinity,
    inter_pod_affinity_after_node_change,
    inter_pod_affinity_after_pod_change,
)
from kschedlab.plugins.pod_topology_spread import (
    PodTopologySpread,
    pod_topology_spread_after_node_change,
    pod_topology_spread_after_pod_change,
)
from kschedlab.queue import framework_hints

Q, S = QueueingHint.Queue, QueueingHint.QueueSkip
A = ev.ActionType


# -- st.MakePod() / st.MakeNode() stand-ins -------------------------------------------------------------------------
def pod(uid=None, name="", namespace="", node=None, labels=None, spread=(), affinity=None, tolerations=None) -> Pod:
    meta = {"name": name, "namespace": namespace, "labels": dict(labels or {})}
    if uid:
        meta["uid"] = uid
    spec = {"containers": [{"name": "c"}]}
    if node:
        spec["nodeName"] = node
    if spread:
        spec["topologySpreadConstraints"] = list(spread)
    if affinity:
        spec["affinity"] = affinity
    if tolerations:
        spec["tolerations"] = tolerations
    return Pod.model_validate({"metadata": meta, "spec": spec})


def node(labels=None, taints=None) -> Node:
    return Node.model_validate({"metadata": {"name": "node-a", "labels": dict(labels or {})},
                                "spec": {"taints": taints} if taints else {}})


def exists(key):
    return {"matchExpressions": [{"key": key, "operator": "Exists"}]}


FOO, BAR = exists("foo"), exists("bar")


def sc(key, selector, taints_policy=None):
    """``SpreadConstraint(1, key, DoNotSchedule, selector, nil, nil, taintsPolicy, nil)``."""
    c = {"maxSkew": 1, "topologyKey": key, "whenUnsatisfiable": "DoNotSchedule", "labelSelector": selector}
    if taints_policy:
        c["nodeTaintsPolicy"] = taints_policy
    return c


def taint(key):
    return [{"key": key, "value": "bbb", "effect": "NoSchedule"}]


def spread_plugin() -> PodTopologySpread:
    """``DefaultingType: ListDefaulting`` with no default constraints, as the upstream tests."""
    return PodTopologySpread(PodTopologySpread.parse_args({"defaultingType": "List"}))


# -- PodTopologySpread: Test_isSchedulableAfterNodeChange ------------------------------------------------------------
ZONE = [sc("zone", FOO)]
ZONE_NODE = [sc("zone", FOO), sc("node", FOO)]

SPREAD_NODE_ROWS = [
    ("node updates label which matches topologyKey", ZONE, node({"zone": "zone1"}), node({"zone": "zone2"}), Q),
    ("node that doesn't match topologySpreadConstraints updates non-related label", ZONE,
     node({"foo": "bar1"}), node({"foo": "bar2"}), S),
    ("node that match topologySpreadConstraints adds non-related label", ZONE_NODE,
     node({"zone": "zone1", "node": "node1", "foo": "bar"}), node({"zone": "zone1", "node": "node1"}), S),
    ("create node with non-related labels", ZONE, None, node({"foo": "bar"}), S),
    ("create node with related labels", ZONE, None, node({"zone": "zone1"}), Q),
    ("delete node with non-related labels", ZONE, node({"foo": "bar"}), None, S),
    ("delete node with related labels", ZONE, node({"zone": "zone1"}), None, Q),
    ("add node with related labels that only match one of topologySpreadConstraints", ZONE_NODE,
     None, node({"zone": "zone1"}), S),
    ("add node with related labels that match all topologySpreadConstraints", ZONE_NODE,
     None, node({"zone": "zone1", "node": "node1"}), Q),
    ("update node with related labels that only match one of topologySpreadConstraints", ZONE_NODE,
     node({"zone": "zone1"}), node({"zone": "zone1"}), S),
    ("update node with related labels that match all topologySpreadConstraints", ZONE_NODE,
     node({"zone": "zone1", "node": "node1"}), node({"zone": "zone1", "node": "node2"}), Q),
    ("update node with different taints that match all topologySpreadConstraints", ZONE_NODE,
     node({"zone": "zone1", "node": "node1"}, taint("aaa")), node({"zone": "zone1", "node": "node1"}, taint("ccc")), Q),
    ("update node with different taints that only match one of topologySpreadConstraints", ZONE_NODE,
     node({"node": "node1"}, taint("aaa")), node({"node": "node1"}, taint("ccc")), S),
]


@pytest.mark.parametrize("spread,old,new,want", [r[1:] for r in SPREAD_NODE_ROWS], ids=[r[0] for r in SPREAD_NODE_ROWS])
def test_spread_after_node_change(spread, old, new, want):
    hint = pod_topology_spread_after_node_change(spread_plugin())
    target = pod(name="p", spread=spread)
    assert hint(PodInfo.of(target), old, new) == want


# -- PodTopologySpread: Test_isSchedulableAfterPodChange -------------------------------------------------------------
P_FOO = dict(uid="p", name="p", labels={"foo": ""})
ZONE_NODE_BAR = [sc("zone", FOO), sc("node", BAR)]
HONOR = [sc("zone", FOO, "Honor"), sc("node", BAR)]
IGNORE = [sc("zone", FOO, "Ignore"), sc("node", BAR)]
UNSCHED_TOL = [{"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"}]


def p2(labels=None, node="fake-node", namespace=""):
    return pod(uid="p2", node=node, labels=labels, namespace=namespace)


SPREAD_POD_ROWS = [
    ("add pod with labels match topologySpreadConstraints selector", P_FOO, ZONE, None, p2({"foo": ""}), Q),
    ("add un-scheduled pod", P_FOO, ZONE, None, p2({"foo": ""}, node=None), S),
    ("update un-scheduled pod", P_FOO, ZONE, p2({"bar": ""}, node=None), p2({"foo": ""}, node=None), S),
    ("delete un-scheduled pod", P_FOO, ZONE, p2({"foo": ""}, node=None), None, S),
    ("add pod with different namespace", P_FOO, ZONE, None, p2({"foo": ""}, namespace="fake-namespace"), S),
    ("add pod with labels don't match topologySpreadConstraints selector", P_FOO, ZONE, None, p2({"bar": ""}), S),
    ("delete pod with labels that match topologySpreadConstraints selector", P_FOO, ZONE, p2({"foo": ""}), None, Q),
    ("delete pod with labels that don't match topologySpreadConstraints selector", P_FOO, ZONE,
     p2({"bar": ""}), None, S),
    ("update pod's non-related label", P_FOO, ZONE, p2({"foo": "", "bar": "bar1"}), p2({"foo": "", "bar": "bar2"}), S),
    ("add pod's label that matches topologySpreadConstraints selector", P_FOO, ZONE, p2(), p2({"foo": ""}), Q),
    ("delete pod label that matches topologySpreadConstraints selector", P_FOO, ZONE, p2({"foo": ""}), p2(), Q),
    ("change pod's label that matches topologySpreadConstraints selector", P_FOO, ZONE,
     p2({"foo": "foo1"}), p2({"foo": "foo2"}), S),
    ("change pod's label that doesn't match topologySpreadConstraints selector", P_FOO, ZONE,
     p2({"foo": "", "bar": "bar1"}), p2({"foo": "", "bar": "bar2"}), S),
    ("add pod's label that matches topologySpreadConstraints selector with multi topologySpreadConstraints", P_FOO,
     ZONE_NODE_BAR, p2({"foo": ""}), p2({"foo": "", "bar": "bar2"}), Q),
    ("change pod's label that doesn't match topologySpreadConstraints selector with multi topologySpreadConstraints",
     P_FOO, ZONE_NODE_BAR, p2({"foo": ""}), p2({"foo": "", "baz": ""}), S),
    ("change pod's label that match topologySpreadConstraints selector with multi topologySpreadConstraints", P_FOO,
     ZONE_NODE_BAR, p2({"foo": "", "bar": ""}), p2({"foo": "", "bar": "bar2"}), S),
    ("the unschedulable Pod has topologySpreadConstraint with NodeTaintsPolicy:Honor and has got a new toleration",
     P_FOO, HONOR, pod(uid="p", name="p", labels={"foo": ""}),
     pod(uid="p", name="p", labels={"foo": ""}, tolerations=UNSCHED_TOL), Q),
    ("the unschedulable Pod has topologySpreadConstraint without NodeTaintsPolicy:Honor and has got a new toleration",
     P_FOO, IGNORE, pod(uid="p", name="p", labels={"foo": ""}),
     pod(uid="p", name="p", labels={"foo": ""}, tolerations=UNSCHED_TOL), S),
    ("the unschedulable Pod has topologySpreadConstraint and has got a new label matching the selector of the "
     "constraint", P_FOO, IGNORE, pod(uid="p", name="p"), pod(uid="p", name="p", labels={"foo": ""}), Q),
    ("the unschedulable Pod has topologySpreadConstraint and has got a new unrelated label", P_FOO, IGNORE,
     pod(uid="p", name="p"), pod(uid="p", name="p", labels={"unrelated": ""}), S),
]


@pytest.mark.parametrize("target,spread,old,new,want", [r[1:] for r in SPREAD_POD_ROWS],
                         ids=[r[0] for r in SPREAD_POD_ROWS])
def test_spread_after_pod_change(target, spread, old, new, want):
    hint = pod_topology_spread_after_pod_change(spread_plugin())
    assert hint(PodInfo.of(pod(spread=spread, **target)), old, new) == want


def test_spread_hints_reject_wrong_objects():
    pl = spread_plugin()
    target = PodInfo.of(pod(name="p", spread=ZONE))
    for hint, obj in ((pod_topology_spread_after_pod_change(pl), node()),
                      (pod_topology_spread_after_node_change(pl), pod())):
        with pytest.raises(HintError):
            hint(target, None, obj)
        assert evaluate_hint(hint, target, None, obj)[0] == Q


# -- InterPodAffinity: Test_isSchedulableAfterPodChange --------------------------------------------------------------
def _term(key, selector):
    return {"labelSelector": selector, "topologyKey": key}


def _in(key, values):
    return {"matchExpressions": [{"key": key, "operator": "In", "values": list(values)}]}


def affinity_in(label, key, values):
    """``PodAffinityIn(label, key, values, PodAffinityWithRequiredReq)``."""
    return {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [_term(key, _in(label, values))]}}


def anti_affinity(key, selector):
    """``PodAntiAffinity(key, selector, PodAntiAffinityWithRequiredReq)``."""
    return {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [_term(key, selector)]}}


SCAN = ["securityscan", "value2"]
AFF = affinity_in("service", "region", SCAN)
ANTI = {"podAntiAffinity": affinity_in("service", "region", SCAN)["podAffinity"]}
AFF_MULTI = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
    _term("hostname", exists("aaa")), _term("hostname", exists("bbb"))]}}


def bound(labels, node="fake-node"):
    return pod(node=node, labels=labels)


AFFINITY_POD_ROWS = [
    ("add a pod which matches the pod affinity", AFF, None, bound({"service": "securityscan"}), Q),
    ("add an un-scheduled pod", AFF, None, bound({"service": "securityscan"}, node=None), S),
    ("add a pod which doesn't match the pod affinity", AFF, None, bound({"aaa": "a"}), S),
    ("update a pod from non-match to match pod affinity", AFF, bound({"aaa": "a"}), bound({"service": "securityscan"}), Q),
    ("the updating pod matches target pod's affinity both before and after label changes", AFF,
     bound({"service": "value2"}), bound({"service": "securityscan"}), S),
    ("update an un-scheduled pod", AFF, bound({"service": "securityscan"}, node=None),
     bound({"service": "securityscan"}, node=None), S),
    ("update a pod from match to non-match the pod affinity", AFF, bound({"service": "securityscan"}),
     bound({"aaa": "a"}), S),
    ("update a pod from match to non-match pod's affinity - multiple terms case", AFF_MULTI, bound({"aaa": "a"}),
     bound({"service": "securityscan"}), S),
    ("update a pod from non-match to match pod's affinity - multiple terms case", AFF_MULTI, bound({"aaa": "a"}),
     bound({"aaa": "", "bbb": ""}), Q),
    ("modify pod label to change it from satisfying pod anti-affinity to not satisfying anti-affinity", ANTI,
     bound({"service": "securityscan"}), bound({"service": "aaaa"}), Q),
    ("modify pod label to change it from not satisfying pod anti-affinity to satisfying anti-affinity", ANTI,
     bound({"service": "bbb"}), bound({"service": "securityscan"}), S),
    ("delete a pod which doesn't match pod's anti-affinity", ANTI, bound({"aaa": "a"}), None, S),
    ("delete a pod which matches pod's anti-affinity", ANTI, bound({"service": "securityscan"}), None, Q),
]


@pytest.mark.parametrize("affinity,old,new,want", [r[1:] for r in AFFINITY_POD_ROWS],
                         ids=[r[0] for r in AFFINITY_POD_ROWS])
def test_affinity_after_pod_change(affinity, old, new, want):
    target = PodInfo.of(pod(name="p", affinity=affinity))
    assert inter_pod_affinity_after_pod_change(target, old, new) == want


# -- InterPodAffinity: Test_isSchedulableAfterNodeChange -------------------------------------------------------------
AFF_ZONE = affinity_in("service", "zone", SCAN)
ANTI_ZONE = anti_affinity("zone", {"matchLabels": {"another": "label"}})
AFFINITY_NODE_ROWS = [
    ("add a new node with matched pod affinity topologyKey", AFF_ZONE, None, node({"zone": "zone1"}), Q),
    ("add a new node without matched topologyKey", AFF, None, node({"zone": "zone1"}), S),
    ("update node label but not topologyKey", AFF_ZONE, node({"aaa": "a"}), node({"aaa": "b"}), S),
    pytest.param(AFF_ZONE, node({"zone": "zone1"}), node({"zone": "zone1", "unrelated-label": "unrelated"}), S,
                 id="update node label that isn't related to the pod affinity"),
    ("update node with different affinity topologyKey value", AFF_ZONE, node({"zone": "zone1"}),
     node({"zone": "zone2"}), Q),
    ("update node to have the affinity topology label", AFF_ZONE, node({"aaa": "a"}), node({"zone": "zone1"}), Q),
    ("add a new node with matched pod anti-affinity topologyKey", ANTI_ZONE, None, node({"zone": "zone1"}), Q),
    pytest.param(ANTI_ZONE, None, node(), Q, id="add a new node without matched pod anti-affinity topologyKey"),
    pytest.param(ANTI_ZONE, node({"zone": "zone1"}), node({"zone": "zone1", "unrelated-label": "unrelated"}), S,
                 id="update node label that isn't related to the pod anti-affinity"),
    ("update node with different anti-affinity topologyKey value", ANTI_ZONE, node({"zone": "zone1"}),
     node({"zone": "zone2"}), Q),
    pytest.param(ANTI_ZONE, node({"aaa": "a"}), node({"zone": "zone1"}), S,
                 id="update node to have the anti-affinity topology label"),
    pytest.param(ANTI_ZONE, node({"zone": "zone1"}), node({"aaa": "a"}), Q,
                 id="update node label not to have anti-affinity topology label"),
]


@pytest.mark.parametrize("affinity,old,new,want", [
    pytest.param(*r[1:], id=r[0]) if type(r) is tuple else r for r in AFFINITY_NODE_ROWS])
def test_affinity_after_node_change(affinity, old, new, want):
    target = PodInfo.of(pod(name="p", affinity=affinity))
    assert inter_pod_affinity_after_node_change(target, old, new) == want


def test_affinity_hints_reject_wrong_objects():
    target = PodInfo.of(pod(name="p", affinity=AFF))
    for hint, obj in ((inter_pod_affinity_after_pod_change, node()), (inter_pod_affinity_after_node_change, pod())):
        with pytest.raises(HintError):
            hint(target, None, obj)
        assert evaluate_hint(hint, target, None, obj)[0] == Q


# -- EventsToRegister ------------------------------------------------------------------------------------------------
def test_events_to_register():
    got = [(e.resource, e.action_type) for e, _ in spread_plugin().events_to_register()]
    assert got == [(ev.POD, A.Add | A.UpdatePodLabel | A.UpdatePodToleration | A.Delete),
                   (ev.NODE, A.Add | A.Delete | A.UpdateNodeLabel | A.UpdateNodeTaint)]
    got = [(e.resource, e.action_type) for e, _ in InterPodAffinity().events_to_register()]
    assert got == [(ev.POD, A.Add | A.UpdatePodLabel | A.Delete),
                   (ev.NODE, A.Add | A.UpdateNodeLabel | A.UpdateNodeTaint)]


def test_default_profile_registers_precise_hints():
    """Neither plugin falls back to the wildcard (every event, no hint) any more."""
    hints = framework_hints(Framework({}))
    for name in ("PodTopologySpread", "InterPodAffinity"):
        assert all(fn is not None for _, fn in hints[name]), name
        assert len(hints[name]) == 2, name


def test_spread_hint_uses_default_constraints():
    """System defaulting: a pod without constraints gets none unless a Service/controller selects it
    (``buildDefaultConstraints`` yields nothing for an empty selector), so a matching add is skipped;
    the defaults are ScheduleAnyway anyway, which getConstraints (DoNotSchedule) filters out."""
    pl = PodTopologySpread(PodTopologySpread.parse_args({}))
    hint = pod_topology_spread_after_pod_change(pl)
    target = PodInfo.of(pod(uid="p", name="p", labels={"foo": ""}))
    assert hint(target, None, p2({"foo": ""})) == S
