"""Taint-based eviction (kschedlab.eviction.taint_manager).

* Seed section 6 ("Заплямованість та Толерантність"): the three-taints / two-tolerations
  example over time, tolerationSeconds 3600 and 6000, the built-in taints for node
  conditions, the tolerations DaemonSet pods get, the 300 s of DefaultTolerationSeconds.
* Upstream tables ported: pkg/controller/tainteviction/taint_eviction_test.go.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kschedlab.api.core import Node, Pod, Taint, Toleration
from kschedlab.api.loader import load
from kschedlab.apiserver.admission import admit, default_tolerations
from kschedlab.cluster import Cluster
from kschedlab.eviction.disruption import to_seconds
from kschedlab.eviction.taint_manager import (
    NoExecuteTaintManager,
    admit_new_node,
    daemonset_tolerations,
    delete_pod_by_taint_manager,
    get_matching_tolerations,
    kubelet_registration_taints,
    min_toleration_seconds,
    no_execute_taints,
    pod_toleration_restriction,
    reconcile_condition_taints,
    replay,
    set_node_condition,
    taints_for_conditions,
)
from kschedlab.features import FeatureGates

SEED = Path(__file__).resolve().parent.parent / "datasets" / "seed"
DATA = Path(__file__).resolve().parent.parent / "datasets" / "eviction"
SRC = "kubernetes/kubernetes pkg/controller/tainteviction/taint_eviction_test.go"


def events(frame, kind=None):
    """[(time, pod name, event)] of a replay frame."""
    rows = frame if kind is None else frame[frame.event == kind]
    return [(float(r.time), r.pod.split("/")[1], r.event) for r in rows.itertuples()]


# --------------------------------------------------------------------------- seed section 6
def three_taints_cluster():
    """datasets/seed/06-three-taints-two-tolerations.yaml with the pods running on node1
    before the taints, plus a pod without tolerations."""
    objs = admit(load(SEED / "06-three-taints-two-tolerations.yaml"))
    node = next(o for o in objs if o.kind == "Node")
    bare = node.clone()
    bare.spec.taints = []
    cluster = Cluster([bare])
    for pod in (o for o in objs if o.kind == "Pod"):
        pod.spec.node_name = "node1"
        cluster.add(pod)
    cluster.add(admit([Pod(metadata={"name": "no-tolerations"}, spec={"nodeName": "node1",
                                                                      "containers": [{"name": "c"}]})])[0])
    return cluster, node


def test_seed_three_taints_over_time():
    # kubectl taint nodes node1 key1=value1:NoSchedule / key1=value1:NoExecute / key2=value2:NoSchedule at t=10
    cluster, tainted = three_taints_cluster()
    frame = replay(cluster, [(10, tainted)], until=10_000)
    assert events(frame) == [
        (10.0, "no-tolerations", "untolerated taint"),       # key1:NoExecute not tolerated: at once
        (10.0, "toleration-seconds", "eviction scheduled"),  # tolerationSeconds 3600
        (10.0, "two-tolerations", "tolerated"),              # the only untolerated taint is NoSchedule
        (10.0, "no-tolerations", "evicted"),
        (40.0, "no-tolerations", "gone"),                    # terminationGracePeriodSeconds 30
        (3610.0, "toleration-seconds", "evicted"),
        (3640.0, "toleration-seconds", "gone"),
    ]
    assert list(frame[frame.event == "eviction scheduled"].detail) == ["at t=3610"]
    # the seed's pod keeps running although it could not be scheduled onto node1 now
    assert list(cluster.pods) == ["default/two-tolerations"]
    pod = cluster.pods["default/two-tolerations"]
    assert pod.metadata.deletion_timestamp is None


def test_seed_3600_cancelled_when_the_taint_goes_first():
    cluster, tainted = three_taints_cluster()
    untainted = tainted.clone()
    untainted.spec.taints = [t for t in tainted.spec.taints if t.effect != "NoExecute"]
    frame = replay(cluster, [(10, tainted), (1000, untainted)], until=10_000)
    assert events(frame, "eviction cancelled") == [(1000.0, "toleration-seconds", "eviction cancelled")]
    assert "default/toleration-seconds" in cluster.pods
    assert list(frame[frame.event == "eviction cancelled"].detail) == [
        "Cancelling deletion of Pod default/toleration-seconds"]


def taint_eviction_cluster():
    objs = admit(load(DATA / "06-taint-based-eviction.yaml"))
    for o in objs:
        if o.kind == "Pod" and o.metadata.name.startswith("node-agent"):
            o.spec.tolerations = daemonset_tolerations(o)
    return Cluster(objs)


def test_seed_6000_seconds_on_an_unreachable_node():
    cluster = taint_eviction_cluster()
    frame = replay(cluster, [(100, ("condition", "node-1", "Ready", "Unknown"))], until=20_000)
    node = cluster.nodes["node-1"]
    assert [str(t) for t in node.spec.taints] == ["node.kubernetes.io/unreachable:NoSchedule",
                                                  "node.kubernetes.io/unreachable:NoExecute"]
    assert to_seconds(node.spec.taints[1].time_added) == 100.0
    assert events(frame, "evicted") == [(400.0, "key1-3600", "evicted"), (400.0, "plain", "evicted"),
                                        (400.0, "two-tolerations", "evicted"), (6100.0, "long-lived", "evicted")]
    assert events(frame, "tolerated") == [(100.0, "node-agent-q2w", "tolerated")]
    # nobody answers from an unreachable node: the evicted pods stay Terminating
    assert events(frame, "gone") == []
    assert sorted(k for k, p in cluster.pods.items() if p.metadata.deletion_timestamp is not None) == [
        "default/key1-3600", "default/long-lived", "default/plain", "default/two-tolerations"]
    cond = next(c for c in cluster.pods["default/plain"].status.conditions if c.type == "DisruptionTarget")
    assert (cond.reason, cond.message) == ("DeletionByTaintManager", "Taint manager: deleting due to NoExecute taint")


def test_seed_node_recovers_before_the_300_seconds():
    cluster = taint_eviction_cluster()
    frame = replay(cluster, [(100, ("condition", "node-1", "Ready", "Unknown")),
                             (250, ("condition", "node-1", "Ready", "True"))], until=20_000)
    assert events(frame, "evicted") == []
    assert sorted(p for _, p, _ in events(frame, "eviction cancelled")) == [
        "key1-3600", "long-lived", "plain", "two-tolerations"]
    assert cluster.nodes["node-1"].spec.taints == []


def test_seed_key1_no_execute_on_the_dataset():
    cluster = taint_eviction_cluster()
    node = cluster.nodes["node-1"].clone()
    node.spec.taints = [Taint(key="key1", value="value1", effect="NoExecute")]
    frame = replay(cluster, [(0, node)], until=10_000)
    assert events(frame, "evicted") == [(0.0, "long-lived", "evicted"), (0.0, "plain", "evicted"),
                                        (0.0, "node-agent-q2w", "evicted"), (3600.0, "key1-3600", "evicted")]
    assert "default/two-tolerations" in cluster.pods


def test_default_toleration_seconds_are_reused():
    pod = admit([Pod(metadata={"name": "p"}, spec={"containers": [{"name": "c"}]})])[0]
    assert [(t.key, t.effect, t.toleration_seconds) for t in pod.spec.tolerations] == [
        ("node.kubernetes.io/not-ready", "NoExecute", 300), ("node.kubernetes.io/unreachable", "NoExecute", 300)]
    assert pod.spec.tolerations == default_tolerations([])


# ------------------------------------------------------------------- conditions -> taints
EXPECTED_CONDITION_TAINTS = {
    "ready": [],
    "not-ready": ["node.kubernetes.io/not-ready:NoSchedule", "node.kubernetes.io/not-ready:NoExecute"],
    "unreachable": ["node.kubernetes.io/unreachable:NoSchedule", "node.kubernetes.io/unreachable:NoExecute"],
    "memory": ["node.kubernetes.io/memory-pressure:NoSchedule"],
    "disk": ["node.kubernetes.io/disk-pressure:NoSchedule"],
    "pid": ["node.kubernetes.io/pid-pressure:NoSchedule"],
    "network": ["node.kubernetes.io/network-unavailable:NoSchedule"],
    "cordoned": ["node.kubernetes.io/unschedulable:NoSchedule"],
}


@pytest.mark.parametrize("node", list(EXPECTED_CONDITION_TAINTS))
def test_taints_for_conditions(node):
    nodes = {n.metadata.name: n for n in load(DATA / "06-node-conditions.yaml")}
    assert [str(t) for t in taints_for_conditions(nodes[node])] == EXPECTED_CONDITION_TAINTS[node]


def test_reconcile_keeps_user_taints_and_time_added():
    node = Node(metadata={"name": "n"}, spec={"taints": [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]},
                status={"conditions": [{"type": "Ready", "status": "True"}]})
    down = reconcile_condition_taints(set_node_condition(node, "Ready", "False", now=10), now=10)
    assert [str(t) for t in down.spec.taints] == ["dedicated=gpu:NoSchedule", "node.kubernetes.io/not-ready:NoSchedule",
                                                  "node.kubernetes.io/not-ready:NoExecute"]
    pressure = reconcile_condition_taints(set_node_condition(down, "MemoryPressure", "True", now=20), now=20)
    assert [to_seconds(t.time_added) for t in pressure.spec.taints[1:]] == [10.0, 10.0, 20.0]
    # not-ready -> unreachable: the NoExecute taint is swapped, not added
    unknown = reconcile_condition_taints(set_node_condition(pressure, "Ready", "Unknown", now=30), now=30)
    assert [str(t) for t in unknown.spec.taints] == [
        "dedicated=gpu:NoSchedule", "node.kubernetes.io/memory-pressure:NoSchedule",
        "node.kubernetes.io/unreachable:NoSchedule", "node.kubernetes.io/unreachable:NoExecute"]
    back = reconcile_condition_taints(set_node_condition(set_node_condition(unknown, "Ready", "True"),
                                                         "MemoryPressure", "False"), now=40)
    assert [str(t) for t in back.spec.taints] == ["dedicated=gpu:NoSchedule"]
    # a node the controller has no Ready condition for keeps NoExecute taints someone else set
    fresh = Node(metadata={"name": "m"}, spec={"taints": [{"key": "node.kubernetes.io/not-ready",
                                                             "effect": "NoExecute"}]})
    assert len(reconcile_condition_taints(fresh).spec.taints) == 1


def test_admission_and_kubelet_taints():
    node = admit_new_node(Node(metadata={"name": "n"}))
    assert [str(t) for t in node.spec.taints] == ["node.kubernetes.io/not-ready:NoSchedule"]
    assert len(admit_new_node(node).spec.taints) == 1
    assert [str(t) for t in kubelet_registration_taints(
        register_with_taints=[Taint(key="a", value="b", effect="NoExecute")], unschedulable=True,
        external_cloud_provider=True)] == [
        "a=b:NoExecute", "node.kubernetes.io/unschedulable:NoSchedule",
        "node.cloudprovider.kubernetes.io/uninitialized=true:NoSchedule"]


# ------------------------------------------------------------------- automatic tolerations
def test_daemonset_tolerations_replace_the_300_seconds():
    pod = admit([Pod(metadata={"name": "ds"}, spec={"containers": [{"name": "c"}], "hostNetwork": True})])[0]
    tols = daemonset_tolerations(pod)
    assert [(t.key, t.effect, t.toleration_seconds) for t in tols] == [
        ("node.kubernetes.io/not-ready", "NoExecute", None), ("node.kubernetes.io/unreachable", "NoExecute", None),
        ("node.kubernetes.io/disk-pressure", "NoSchedule", None),
        ("node.kubernetes.io/memory-pressure", "NoSchedule", None),
        ("node.kubernetes.io/pid-pressure", "NoSchedule", None),
        ("node.kubernetes.io/unschedulable", "NoSchedule", None),
        ("node.kubernetes.io/network-unavailable", "NoSchedule", None)]
    assert [t.toleration_seconds for t in pod.spec.tolerations] == [300, 300]  # the pod is not changed


def test_memory_pressure_toleration_for_non_best_effort():
    burstable = Pod(spec={"containers": [{"name": "c", "resources": {"requests": {"memory": "1Gi"}}}]})
    assert [(t.key, t.operator, t.effect) for t in pod_toleration_restriction(burstable)] == [
        ("node.kubernetes.io/memory-pressure", "Exists", "NoSchedule")]
    assert pod_toleration_restriction(Pod(spec={"containers": [{"name": "c"}]})) == []
    # an existing broader toleration covers it (MergeTolerations)
    broad = Pod(spec={"containers": [{"name": "c", "resources": {"limits": {"cpu": "1"}}}],
                      "tolerations": [{"operator": "Exists"}]})
    assert len(pod_toleration_restriction(broad)) == 1


# ------------------------------------------------------------------ tolerations helpers
def _tol(index, seconds=None):
    """addToleration: key testTaint<i>, value test<i>, NoExecute (operator empty: Equal)."""
    return Toleration(key=f"testTaint{index}", value=f"test{index}", effect="NoExecute", toleration_seconds=seconds)


def _taint(index):
    """createNoExecuteTaint."""
    return Taint(key=f"testTaint{index}", value=f"test{index}", effect="NoExecute")


def test_upstream_filter_no_execute_taints():
    # source: taint_eviction_test.go TestFilterNoExecuteTaints
    taints = [Taint(key="one", value="one", effect="NoExecute"), Taint(key="two", value="two", effect="NoSchedule")]
    assert [t.key for t in no_execute_taints(taints)] == ["one"]


@pytest.mark.parametrize("seconds,expected", [
    ([], 0), ([None], -1), ([1, 2], 1), ([1, None], 1), ([None, 1], 1),  # TestGetMinTolerationTime
    ([0, 5], 0), ([-3], 0)])
def test_upstream_min_toleration_time(seconds, expected):
    # source: taint_eviction_test.go TestGetMinTolerationTime (+ the <= 0 branch)
    assert min_toleration_seconds([Toleration(toleration_seconds=s) for s in seconds]) == expected


def test_matching_tolerations_take_the_first_per_taint():
    ok, used = get_matching_tolerations([_taint(1)], [_tol(1), _tol(1, 5)])
    assert ok and [t.toleration_seconds for t in used] == [None]
    assert get_matching_tolerations([_taint(1), _taint(2)], [_tol(1)]) == (False, [])


def test_comparison_operators_follow_the_gate():
    taint = Taint(key="sla", value="950", effect="NoExecute")
    gt = Toleration(key="sla", operator="Gt", value="900", effect="NoExecute")
    assert not get_matching_tolerations([taint], [gt])[0]
    tm = NoExecuteTaintManager(gates=FeatureGates({"TaintTolerationComparisonOperators": True}))
    assert tm.comparison_operators
    assert get_matching_tolerations([taint], [gt], comparison_operators=True)[0]
    # a non-integer taint value does not match (and does not raise)
    assert not get_matching_tolerations([Taint(key="sla", value="gold", effect="NoExecute")], [gt],
                                        comparison_operators=True)[0]


# ----------------------------------------------------------------- the manager, upstream rows
def _pod(name, node="node1", tolerations=()):
    """testutil.NewPod (namespace default)."""
    return Pod(metadata={"name": name, "namespace": "default"}, spec={"nodeName": node or None,
                                                                      "tolerations": list(tolerations)})


def _node(*indices):
    return Node(metadata={"name": "node1"}, spec={"taints": [_taint(i) for i in indices]})


def _deleted(tm, now):
    return [k.split("/")[1] for k, _ in tm.due(now)]


@pytest.mark.parametrize("description,pod,tainted,deleted", [
    ("not scheduled - ignore", _pod("pod1", ""), False, False),
    ("scheduled on untainted Node", _pod("pod1"), False, False),
    ("schedule on tainted Node", _pod("pod1"), True, True),
    ("schedule on tainted Node with finite toleration", _pod("pod1", tolerations=[_tol(1, 100)]), True, False),
    ("schedule on tainted Node with infinite toleration", _pod("pod1", tolerations=[_tol(1)]), True, False),
    ("schedule on tainted Node with infinite invalid toleration", _pod("pod1", tolerations=[_tol(2)]), True, True),
])
def test_upstream_create_pod(description, pod, tainted, deleted):
    # source: taint_eviction_test.go TestCreatePod (checked right away: within the test's 5 s poll)
    tm = NoExecuteTaintManager()
    if tainted:
        tm.on_node_update(_node(1), 0, pods=[])
    tm.on_pod_update(pod, 0)
    assert bool(_deleted(tm, 0)) == deleted


def test_upstream_delete_pod():
    # source: taint_eviction_test.go TestDeletePod: nothing breaks
    tm = NoExecuteTaintManager()
    tm.on_node_update(_node(1), 0, pods=[])
    tm.on_pod_delete("default/pod1", 0)
    assert tm.due(10) == []


@pytest.mark.parametrize("description,prev,new,deleted_at", [
    ("scheduling onto tainted Node", _pod("pod1", ""), _pod("pod1"), 0),
    ("scheduling onto tainted Node with toleration", _pod("pod1", "", [_tol(1)]), _pod("pod1", "node1", [_tol(1)]),
     None),
    ("removing toleration", _pod("pod1", tolerations=[_tol(1, 100)]), _pod("pod1"), 0),
    ("lengthening toleration shouldn't work", _pod("pod1", tolerations=[_tol(1, 1)]),
     _pod("pod1", tolerations=[_tol(1, 100)]), 1),
])
def test_upstream_update_pod(description, prev, new, deleted_at):
    # source: taint_eviction_test.go TestUpdatePod
    tm = NoExecuteTaintManager()
    tm.on_node_update(_node(1), 0, pods=[])
    tm.on_pod_update(prev, 0)
    tm.on_pod_update(new, 0.5 if deleted_at != 0 else 0, old=prev)
    fired = tm.due(10_000)
    assert [t for _, t in fired] == ([] if deleted_at is None else [deleted_at])


@pytest.mark.parametrize("description,pods,taints,deleted", [
    ("Creating Node matching already assigned Pod", [_pod("pod1")], (), []),
    ("Creating tainted Node matching already assigned Pod", [_pod("pod1")], (1,), ["pod1"]),
    ("Creating tainted Node matching already assigned tolerating Pod", [_pod("pod1", tolerations=[_tol(1)])], (1,),
     []),
])
def test_upstream_create_node(description, pods, taints, deleted):
    # source: taint_eviction_test.go TestCreateNode
    tm = NoExecuteTaintManager()
    tm.on_node_update(_node(*taints), 0, pods=pods)
    assert _deleted(tm, 5) == deleted


def test_upstream_delete_node():
    # source: taint_eviction_test.go TestDeleteNode
    tm = NoExecuteTaintManager()
    tm.on_node_update(_node(1), 0, pods=[])
    assert "node1" in tm.tainted_nodes()
    tm.on_node_delete("node1", 1)
    assert tm.tainted_nodes() == {}


@pytest.mark.parametrize("description,pods,old,new,deleted_by", [
    ("Added taint, expect node patched and deleted", [_pod("pod1")], (), (1,), {"pod1": 0}),
    ("Added tolerated taint", [_pod("pod1", tolerations=[_tol(1, 100)])], (), (1,), {}),
    ("Only one added taint tolerated", [_pod("pod1", tolerations=[_tol(1, 100)])], (), (1, 2), {"pod1": 0}),
    ("Taint removed", [_pod("pod1", tolerations=[_tol(1, 1)])], (1,), (), {}),
    ("Pod with multiple tolerations are evicted when first one runs out",
     [_pod("pod1", tolerations=[_tol(1, 1), _tol(2, 100)])], (), (1, 2), {"pod1": 1}),
])
def test_upstream_update_node(description, pods, old, new, deleted_by):
    # source: taint_eviction_test.go TestUpdateNode (checked by 5 s, after the 1.5 s sleep of "Taint removed")
    tm = NoExecuteTaintManager()
    tm.on_node_update(_node(*old), 0, pods=pods)
    tm.on_node_update(_node(*new), 0, pods=pods)
    assert {k.split("/")[1]: t for k, t in tm.due(5)} == deleted_by


def test_upstream_update_node_with_multiple_taints():
    # source: taint_eviction_test.go TestUpdateNodeWithMultipleTaints
    pod = _pod("pod1", tolerations=[Toleration(key="testTaint1", operator="Exists", effect="NoExecute"),
                                    Toleration(key="testTaint2", operator="Exists", effect="NoExecute",
                                               toleration_seconds=60)])
    tm = NoExecuteTaintManager()
    tm.on_node_update(_node(), 0, pods=[pod])
    assert "default/pod1" not in tm.scheduled()  # no taint
    tm.on_node_update(_node(1), 1, pods=[pod])
    assert "default/pod1" not in tm.scheduled()  # permanently tolerated
    tm.on_node_update(_node(1, 2), 2, pods=[pod])
    assert tm.scheduled()["default/pod1"].fire_at == 62  # temporarily tolerated taint
    tm.on_node_update(_node(1), 3, pods=[pod])
    assert "default/pod1" not in tm.scheduled()
    assert tm.due(1000) == []
    assert [e.message for e in tm.events if e.kind == "cancelled"] == ["Cancelling deletion of Pod default/pod1"]


@pytest.mark.parametrize("taints,expected", [
    ((1,), [("pod1", 0.0), ("pod2", 1.0)]),                       # different toleration times
    ((1, 2), [("pod1", 0.0), ("pod2", 0.0), ("pod3", 0.0)]),      # not matching all taints: at once
])
def test_upstream_update_node_with_multiple_pods(taints, expected):
    # source: taint_eviction_test.go TestUpdateNodeWithMultiplePods
    pods = [_pod("pod1"), _pod("pod2", tolerations=[_tol(1, 1)]), _pod("pod3", tolerations=[_tol(1)])]
    tm = NoExecuteTaintManager()
    tm.on_node_update(_node(*taints), 0, pods=pods)
    assert [(k.split("/")[1], t) for k, t in tm.due(100)] == expected


@pytest.mark.parametrize("prev,new", [
    (_pod("pod2", ""), _pod("pod2")),
    (_pod("pod2", "", [_tol(1, 100)]), _pod("pod2", "node1", [_tol(1, 100)])),
    (None, _pod("pod2")),
    (None, _pod("pod2", tolerations=[_tol(1, 100)])),
])
def test_upstream_eventual_consistency(prev, new):
    # source: taint_eviction_test.go TestEventualConsistency: pod1 is deleted by the node update;
    # the delayed update of pod2 is handled too
    tm = NoExecuteTaintManager()
    if prev is not None:
        tm.on_pod_update(prev, 0)
    tm.on_node_update(_node(1), 0, pods=[_pod("pod1")])
    assert _deleted(tm, 0) == ["pod1"]
    tm.on_pod_update(new, 0, old=prev)
    expected = 100 if new.spec.tolerations else 0
    assert tm.next_deadline() == expected


def test_upstream_pod_deletion_events():
    # source: taint_eviction_test.go TestPodDeletionEvent (messages)
    tm = NoExecuteTaintManager()
    pod = Pod(metadata={"name": "test", "namespace": "test"}, spec={"nodeName": "node1",
                                                                    "tolerations": [_tol(1, 10)]})
    tm.on_node_update(_node(1), 0, pods=[pod])
    tm.on_pod_delete("test/test", 1)
    tm.on_pod_update(pod, 2)
    tm.due(12)
    assert [e.message for e in tm.events if e.message] == ["Cancelling deletion of Pod test/test",
                                                           "Marking for deletion Pod test/test"]


def test_immediate_eviction_cannot_be_cancelled():
    # a deletion due at once is already running upstream (no timer): cancelling only drops its map entry,
    # without a "Cancelling deletion" event, and the pod is deleted all the same
    tm = NoExecuteTaintManager()
    tm.on_node_update(_node(1), 0, pods=[_pod("pod1")])
    tm.on_node_update(_node(), 0, pods=[_pod("pod1")])
    assert [e.kind for e in tm.events] == ["evict-now"]
    assert tm.due(0) == [("default/pod1", 0.0)]
    assert tm.due(10) == [] and tm.next_deadline() is None


def test_delete_pod_by_taint_manager_uses_the_pods_grace_period():
    c = Cluster([Node(metadata={"name": "node1"}),
                 Pod(metadata={"name": "p", "namespace": "default"},
                     spec={"nodeName": "node1", "terminationGracePeriodSeconds": 45})])
    out = delete_pod_by_taint_manager(c, "default/p", now=100)
    assert (out.grace_period_seconds, to_seconds(out.deletion_timestamp)) == (45, 145.0)
    assert delete_pod_by_taint_manager(c, "default/gone", now=100) is None


def test_manager_reads_pods_from_the_cluster_and_frames_events():
    cluster, tainted = three_taints_cluster()
    tm = NoExecuteTaintManager(cluster)
    cluster.update_node(tainted)
    tm.on_node_update(tainted, 10)
    frame = tm.events_frame()
    assert list(frame.kind) == ["evict-now", "scheduled", "forever"]
    assert list(frame.pod) == ["default/no-tolerations", "default/toleration-seconds", "default/two-tolerations"]
