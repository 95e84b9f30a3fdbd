"""Ports of upstream's scheduling-queue tests.

Source: kubernetes/kubernetes pkg/scheduler/backend/queue/scheduling_queue_test.go
(stored copy id 54576707891; commit not reported by the store) unless a test says otherwise; pod-group
(GenericWorkload) rows and metric assertions are not ported (kschedlab models
neither). Test names keep the upstream function name.
"""

from __future__ import annotations

import pytest
from kschedlab_queue_fakes import (
    CSI_NODE_UPDATE,
    HIGH,
    HPP,
    HPP_NOMINATED,
    MID,
    MPP,
    NODE_ADD,
    PV_ADD,
    PV_UPDATE,
    PVC_ADD,
    UP,
    FakeClock,
    PreEnqueuePlugins,
    by_event,
    info,
    lookup,
    make_node,
    make_pod,
    names,
    new_qpi,
    new_queue,
    pop_pod,
    put_active,
    put_backoff,
    put_unschedulable,
    queue_hint,
    requeue,
    set_gated,
    skip_hint,
)

from kschedlab.api.core import Pod
from kschedlab.features import FeatureGates
from kschedlab.framework import events as ev
from kschedlab.framework.events import QueueingHint
from kschedlab.framework.nominator import MODE_NOOP, MODE_OVERRIDE, NominatingInfo
from kschedlab.plugins.scheduling_gates import SchedulingGates
from kschedlab.queue import QueuedPodInfo, QueueError, RecordedEvent, Strategy
from kschedlab.queue.scheduling_queue import DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION

GATE_OFF = FeatureGates({"SchedulerPopFromBackoffQ": False})
MAX_BACKOFF = 10.0
INITIAL_BACKOFF = 1.0


def gates(pop_from_backoff_q: bool) -> FeatureGates:
    return FeatureGates() if pop_from_backoff_q else GATE_OFF


def clone(pod: Pod, name: str) -> Pod:
    """``clonePod``: a copy with another name and UID."""
    p = pod.model_copy(deep=True)
    p.metadata.name = name
    p.metadata.uid = name + (pod.metadata.namespace or "")
    return p


def with_labels(pod: Pod, labels: dict) -> Pod:
    p = pod.model_copy(deep=True)
    p.metadata.labels = dict(labels)
    return p


def with_annotation(pod: Pod, key: str, value: str) -> Pod:
    p = pod.model_copy(deep=True)
    p.metadata.annotations = {**(p.metadata.annotations or {}), key: value}
    return p


def in_flight_names(q) -> list[str]:
    return sorted(names(q.in_flight()))


def in_flight_log(q) -> list:
    """``listInFlightEvents``: pod names for pods, the ClusterEvent for events."""
    out = []
    for item in q.in_flight_events():
        out.append(item.event if isinstance(item, RecordedEvent) else item.pod.metadata.name)
    return out


def step(q) -> None:
    q._clock.step(1.0)


# ---------------------------------------------------------------------------------------------------------------------
# TestPriorityQueue_AddNominatedGatedPod
def test_add_nominated_gated_pod():
    gated = make_pod("pod-gated", "ns1", "pod-gated", nominated="node1")
    q = new_queue(pre_enqueue=PreEnqueuePlugins(("preEnqueuePlugin", "allow", ["allow"])))
    q.add(info(gated))
    assert q.get("ns1/pod-gated").gated
    assert q.pending()["gated"] == ["ns1/pod-gated"]
    assert [pi.key for pi in q.nominator.nominated_pods_for_node("node1")] == ["ns1/pod-gated"]
    assert q.nominator.nominated_node("ns1/pod-gated") == "node1"


# ---------------------------------------------------------------------------------------------------------------------
# Test_InFlightPods (the rows without pod groups)
POD1 = make_pod("targetpod", uid="pod1")
POD2 = make_pod("targetpod2", uid="pod2")
POD3 = make_pod("targetpod3", uid="pod3")
ALL_FOO1 = {PV_ADD: [("fooPlugin1", queue_hint)], NODE_ADD: [("fooPlugin1", queue_hint)],
            PVC_ADD: [("fooPlugin1", queue_hint)], CSI_NODE_UPDATE: [("fooPlugin1", queue_hint)]}


def _popped(store, key):
    return lambda q: store.__setitem__(key, pop_pod(q, {"1": POD1, "2": POD2}[key]))


def _enqueue_stored(store, key, unsched=(), pending=()):
    def run(q):
        qpi = store[key]
        qpi.unschedulable_plugins, qpi.pending_plugins = set(unsched), set(pending)
        requeue(q, qpi)
    return run


def _pending_preserved(store):
    def run(q):
        store["1"] = qpi = pop_pod(q, POD1)
        assert qpi.unschedulable_plugins == {"fooPlugin2"}
        assert qpi.pending_plugins == {"fooPlugin1"}
    return run


def _bug_duplicate_in_active(q):
    # simulate a bug: the in-flight pod1 is put into activeQ again
    q._active.add_or_update(lookup(POD1))


def _active_empty(q):
    assert len(q._active) == 0


_S: dict = {}

IN_FLIGHT_CASES = [
    dict(id="Pod and interested events are registered in inFlightPods/inFlightEvents",
         initial=[POD1], hints={PV_ADD: [("fooPlugin1", queue_hint)]},
         actions=[("event", PVC_ADD), ("pop", POD1), ("event", PV_ADD), ("event", PV_UPDATE)],
         in_flight=["targetpod"], events=["targetpod", PV_ADD]),
    dict(id="Pod, registered in inFlightPods, is enqueued back to backoffQ",
         initial=[POD1, POD2], hints={k: v for k, v in ALL_FOO1.items() if k != CSI_NODE_UPDATE},
         actions=[("event", PVC_ADD), ("pop", POD1), ("event", PV_ADD), ("pop", POD2), ("event", NODE_ADD),
                  ("enqueue", lookup(POD1))],
         backoff=["targetpod"], in_flight=["targetpod2"], events=["targetpod2", NODE_ADD]),
    dict(id="All Pods registered in inFlightPods are enqueued back to activeQ",
         initial=[POD1, POD2], hints=ALL_FOO1,
         actions=[("event", PVC_ADD), ("pop", POD1), ("event", PV_ADD), ("pop", POD2), ("event", NODE_ADD),
                  ("enqueue", lookup(POD1)), ("event", CSI_NODE_UPDATE), ("enqueue", lookup(POD2))],
         backoff=["targetpod", "targetpod2"], in_flight=[], events=[]),
    dict(id="One intermediate Pod registered in inFlightPods is enqueued back to activeQ",
         initial=[POD1, POD2, POD3],
         hints={PV_ADD: [("fooPlugin1", queue_hint)], NODE_ADD: [("fooPlugin1", queue_hint)],
                ev.EVENT_ASSIGNED_POD_ADD: [("fooPlugin1", queue_hint)]},
         actions=[("event", PVC_ADD), ("pop", POD1), ("event", PV_ADD), ("pop", POD2), ("event", NODE_ADD),
                  ("pop", POD3), ("event", ev.EVENT_ASSIGNED_POD_ADD), ("enqueue", lookup(POD2))],
         backoff=["targetpod2"], in_flight=["targetpod", "targetpod3"],
         events=["targetpod", PV_ADD, NODE_ADD, "targetpod3", ev.EVENT_ASSIGNED_POD_ADD]),
    dict(id="events before popping Pod are ignored when Pod is enqueued back to queue",
         initial=[POD1], hints={ev.EVENT_ASSIGNED_POD_ADD: [("fooPlugin1", skip_hint)]},
         actions=[("event", ev.EVENT_UNSCHEDULABLE_TIMEOUT), ("pop", POD1), ("event", ev.EVENT_ASSIGNED_POD_ADD),
                  ("enqueue", lookup(POD1, "fooPlugin1"))],
         unschedulable=["targetpod"], in_flight=[], events=[]),
    dict(id="pod is enqueued to backoff if no failed plugin",
         initial=[POD1], hints={ev.EVENT_ASSIGNED_POD_ADD: [("fooPlugin1", queue_hint)]},
         actions=[("pop", POD1), ("event", ev.EVENT_ASSIGNED_POD_ADD), ("enqueue", lookup(POD1))],
         backoff=["targetpod"], in_flight=[], events=[]),
    dict(id="pod is enqueued to unschedulable pod pool if no events that can make the pod schedulable",
         initial=[POD1], hints={ev.EVENT_ASSIGNED_POD_ADD: [("fooPlugin1", queue_hint)]},
         actions=[("pop", POD1), ("event", NODE_ADD), ("enqueue", lookup(POD1, "fooPlugin1"))],
         unschedulable=["targetpod"], in_flight=[], events=[]),
    dict(id="pod is enqueued to unschedulable pod pool because the failed plugin has a hint fn but it returns Skip",
         initial=[POD1], hints={ev.EVENT_ASSIGNED_POD_ADD: [("fooPlugin1", skip_hint)]},
         actions=[("pop", POD1), ("event", ev.EVENT_ASSIGNED_POD_ADD), ("enqueue", lookup(POD1, "fooPlugin1"))],
         unschedulable=["targetpod"], in_flight=[], events=[]),
    dict(id="pod is enqueued to activeQ because the Pending plugins has a hint fn and it returns Queue",
         initial=[POD1],
         hints={ev.EVENT_ASSIGNED_POD_ADD: [("fooPlugin3", skip_hint), ("fooPlugin2", queue_hint),
                                            ("fooPlugin1", queue_hint)]},
         actions=[("pop", POD1), ("event", ev.EVENT_ASSIGNED_POD_ADD),
                  ("enqueue", QueuedPodInfo(info(POD1), 0.0, unschedulable_plugins={"fooPlugin2", "fooPlugin3"},
                                            pending_plugins={"fooPlugin1"}))],
         active=["targetpod"], in_flight=[], events=[]),
    dict(id="pod is enqueued to backoffQ because the failed plugin has a hint fn and it returns Queue",
         initial=[POD1],
         hints={ev.EVENT_ASSIGNED_POD_ADD: [("fooPlugin2", skip_hint), ("fooPlugin1", queue_hint)]},
         actions=[("pop", POD1), ("event", ev.EVENT_ASSIGNED_POD_ADD),
                  ("enqueue", lookup(POD1, "fooPlugin1", "fooPlugin2"))],
         backoff=["targetpod"], in_flight=[], events=[]),
    dict(id="pod is enqueued to activeQ because the pending plugin has a hint fn and it returns Queue for a "
            "concurrent event that was received while some other pod was in flight",
         initial=[POD1, POD2],
         hints={ev.EVENT_ASSIGNED_POD_ADD: [("fooPlugin3", skip_hint), ("fooPlugin2", queue_hint),
                                            ("fooPlugin1", queue_hint)]},
         actions=[("callback", _popped(_S, "1")), ("event", NODE_ADD), ("callback", _popped(_S, "2")),
                  ("event", ev.EVENT_ASSIGNED_POD_ADD), ("callback", _enqueue_stored(_S, "1")),
                  ("callback", _enqueue_stored(_S, "2", {"fooPlugin2", "fooPlugin3"}, {"fooPlugin1"}))],
         active=["targetpod2"], backoff=["targetpod"], in_flight=[], events=[]),
    dict(id="popped pod preserves UnschedulablePlugins and PendingPlugins",
         initial=[POD1], hints={PV_ADD: [("fooPlugin1", queue_hint)]},
         actions=[("callback", _popped(_S, "1")),
                  ("callback", _enqueue_stored(_S, "1", {"fooPlugin2"}, {"fooPlugin1"})),
                  ("event", PV_ADD),  # active again
                  ("callback", _pending_preserved(_S)),
                  ("callback", lambda q: requeue(q, _S["1"]))],
         in_flight=[], events=[]),
    dict(id="Pop is made twice for the same Pod, but the cleanup still happen correctly",
         initial=[POD1, POD2], hints=ALL_FOO1,
         actions=[("event", PVC_ADD), ("pop", POD1), ("event", PV_ADD), ("pop", POD2),
                  ("callback", _bug_duplicate_in_active), ("created", POD3),
                  ("pop", POD3),  # the duplicate pod1 is discarded by Pop
                  ("callback", _active_empty), ("event", NODE_ADD), ("enqueue", lookup(POD1)),
                  ("event", CSI_NODE_UPDATE), ("enqueue", lookup(POD2)), ("enqueue", lookup(POD3))],
         backoff=["targetpod", "targetpod2", "targetpod3"], in_flight=[]),
]


@pytest.mark.parametrize("case", IN_FLIGHT_CASES, ids=[c["id"] for c in IN_FLIGHT_CASES])
def test_in_flight_pods(case):
    _S.clear()
    clock = FakeClock()
    q = new_queue(clock, hints=by_event(case["hints"]))
    for p in case["initial"]:
        q.add(info(p))
        clock.step(1.0)
    for kind, arg in case["actions"]:
        if kind == "created":
            q.add(info(arg))
        elif kind == "pop":
            pop_pod(q, arg)
        elif kind == "event":
            q.move_all_to_active_or_backoff(arg)
        elif kind == "enqueue":
            requeue(q, arg)
        else:
            arg(q)
    assert in_flight_names(q) == sorted(case["in_flight"])
    if "events" in case:
        assert in_flight_log(q) == case["events"]
    p = q.pending()
    if "active" in case:
        assert sorted(names(p["active"])) == sorted(case["active"])
    if "backoff" in case:
        assert sorted(names(p["backoff"])) == sorted(case["backoff"])
    for name in case.get("unschedulable", []):
        assert name in names(p["unschedulable"])


# ---------------------------------------------------------------------------------------------------------------------
def test_pop_preserves_pending_plugins():
    """TestPop."""
    q = new_queue(hints=by_event({PV_ADD: [("fooPlugin1", queue_hint)]}))
    q.add(info(POD1))
    qpi = pop_pod(q, POD1)
    q.add_unschedulable_if_not_present(qpi, set(), {"fooPlugin1"})
    q.move_all_to_active_or_backoff(PV_ADD)
    qpi = pop_pod(q, POD1)
    assert qpi.pending_plugins == {"fooPlugin1"}


def test_add_unschedulable_pod_if_not_present_backoff():
    """TestPriorityQueue_AddUnschedulablePodIfNotPresent_Backoff: pods tried while a move request arrived
    go to backoffQ."""
    q = new_queue()
    pods = [make_pod(f"pod{i}", f"ns{i}", f"upns{i}", priority=i) for i in range(10)]
    for p in pods:
        q.add(info(p))
    for i in range(9, 0, -1):
        pop_pod(q, pods[i])
    q.move_all_to_active_or_backoff(ev.EVENT_UNSCHEDULABLE_TIMEOUT)
    pop_pod(q, pods[0])
    for i in range(1, 10):
        q.add_unschedulable_if_not_present(lookup(pods[i], "plugin"), {"plugin"})
    for i in range(1, 10):
        assert q.where(f"ns{i}/pod{i}") == "backoff"


def test_add_unschedulable_twice_is_refused():
    """A pod already queued cannot be added back (upstream returns "already present")."""
    q = new_queue()
    q.add(info(HPP))
    with pytest.raises(QueueError):
        q.add_unschedulable_if_not_present(lookup(HPP, "plugin"), {"plugin"})
    assert q.pending()["active"] == ["ns1/hpp"]


@pytest.mark.parametrize("place", ["active", "backoff", "unschedulable", "gated"])
def test_add_unschedulable_of_a_pod_queued_anywhere_is_refused(place):
    """Wherever the queue holds the pod (its heaps, its pool), a failed attempt of it is refused
    and the pod stays there; a pod in flight comes back."""
    q = new_queue()
    qpi = new_qpi(q, HPP, "plugin")
    if place == "active":
        put_active(q, qpi)
    elif place == "backoff":
        put_backoff(q, qpi)
    else:
        put_unschedulable(q, set_gated(qpi, "plugin", []) if place == "gated" else qpi)
    with pytest.raises(QueueError, match=f"in the {place} queue"):
        q.add_unschedulable_if_not_present(lookup(HPP, "plugin"), {"plugin"})
    assert q.where("ns1/hpp") == place
    other = new_queue()
    other.add(info(HPP))
    other.add_unschedulable_if_not_present(pop_pod(other, HPP), {"plugin"})
    assert other.where("ns1/hpp") == "unschedulable"


HPP2 = make_pod("hpp2", "ns1", "hpp2ns1", HIGH)


@pytest.mark.parametrize("pop_from_backoff_q,want", [(True, ["mpp", "hpp"]), (False, ["mpp"])])
def test_priority_queue_pop(pop_from_backoff_q, want):
    """TestPriorityQueue_Pop (individual pods): with SchedulerPopFromBackoffQ the backoffQ head is popped
    when activeQ is empty -- but never from errorBackoffQ nor the unschedulable pool."""
    q = new_queue(gates=gates(pop_from_backoff_q))
    put_active(q, new_qpi(q, MPP))
    put_backoff(q, new_qpi(q, HPP, "plugin"))
    put_backoff(q, new_qpi(q, HPP2))  # no plugin: errorBackoffQ
    put_unschedulable(q, new_qpi(q, UP, "plugin"))
    got = []
    for _ in range(len(want) + 1):
        qpi = q.pop()
        if qpi is None:
            break
        got.append(qpi.pod_info.name)
    assert got == want


# ---------------------------------------------------------------------------------------------------------------------
# TestPriorityQueue_Update
UPDATE_HINTS = by_event({ev.EVENT_TARGET_POD_UPDATE: [("queuePlugin", queue_hint), ("skipPlugin", skip_hint)]})


def _deny(p: Pod) -> Pod:
    return with_labels(p, {"deny": "true"})


def _prep_in_pool(plugin, step_seconds=0.0, count=1, annotation="test"):
    def prep(q, clock):
        qpi = new_qpi(q, MPP, plugin)
        qpi.unschedulable_count += count
        put_unschedulable(q, qpi)
        clock.step(step_seconds)
        return MPP, with_annotation(MPP, "foo", annotation)
    return prep


def _prep_in_flight(q, clock):
    q.add(info(MPP))
    pop_pod(q, MPP)
    return MPP, with_annotation(MPP, "foo", "bar")


def _prep_in_backoff(q, clock):
    qpi = new_qpi(q, MPP)
    put_backoff(q, qpi)
    return MPP, MPP


def _prep_in_active(q, clock):
    q.add(info(HPP))
    return HPP, HPP


UPDATE_CASES = [
    ("Update pod that didn't exist in the queue", "active", False,
     lambda q, c: (MPP, with_annotation(MPP, "foo", "test"))),
    ("Update gated pod that didn't exist in the queue", "gated", False,
     lambda q, c: (_deny(MPP), with_annotation(_deny(MPP), "foo", "test"))),
    ("Update non-existent highPriorityPodInfo and add a nominatedNodeName to it", "active", True,
     lambda q, c: (HPP, HPP_NOMINATED)),
    ("Update non-existent gated highPriorityPodInfo and add a nominatedNodeName to it", "gated", True,
     lambda q, c: (_deny(HPP), _deny(HPP_NOMINATED))),
    ("When updating a pod that is already in activeQ, the pod should remain in activeQ after Update()", "active",
     False, _prep_in_active),
    ("When updating a pod that is in backoff queue and is still backing off, it will be updated in backoff queue",
     "backoff", False, _prep_in_backoff),
    ("when updating a pod in unschedulableEntities, if its backoff timer has not yet expired, it moves to backoffQ",
     "backoff", False, _prep_in_pool("queuePlugin")),
    ("when updating a pod in unschedulableEntities, if its backoff timer has expired, it moves to activeQ",
     "active", False, _prep_in_pool("queuePlugin", MAX_BACKOFF, annotation="test1")),
    ("when updating a pod in unschedulableEntities, if the scheduling hint returns QueueSkip, it remains in "
     "unschedulableEntities", "unschedulable", False, _prep_in_pool("skipPlugin", count=0, annotation="test1")),
    ("when updating a pod which is in flightPods, the pod will not be added to any queue", "in-flight", False,
     _prep_in_flight),
]


@pytest.mark.parametrize("name,want_q,want_nominated,prepare", UPDATE_CASES, ids=[c[0] for c in UPDATE_CASES])
def test_priority_queue_update(name, want_q, want_nominated, prepare):
    clock = FakeClock()
    q = new_queue(clock, hints=UPDATE_HINTS, pre_enqueue=PreEnqueuePlugins(("denyingPreEnqueuePlugin", "deny",
                                                                             ["deny"])))
    old, new = prepare(q, clock)
    q.update(info(old), info(new))
    key = f"{new.metadata.namespace}/{new.metadata.name}"
    assert q.where(key) == want_q
    if want_q == "in-flight":
        return
    assert q.get(key).pod is new
    if want_nominated:
        assert len(q.nominator.nominated_pods) == 1


def test_priority_queue_update_when_in_flight():
    """TestPriorityQueue_UpdateWhenInflight: an update received while the pod is being scheduled may make it
    schedulable, so the rejected pod goes to backoffQ (in its updated version)."""
    q = new_queue(hints=by_event({ev.EVENT_TARGET_POD_UPDATE: [("fakePlugin", queue_hint)]}))
    pod = make_pod("test-pod", "test-ns", "test-uid")
    q.add(info(pod))
    pop_pod(q, pod)
    updated = make_pod("test-pod", "test-ns", "test-uid", tolerations=[{"key": "foo", "effect": "NoSchedule"}])
    q.update(info(pod), info(updated))
    q.add_unschedulable_if_not_present(lookup(updated, "fakePlugin"), {"fakePlugin"})
    assert q.where("test-ns/test-pod") == "backoff"
    assert q.get("test-ns/test-pod").pod is updated


# ---------------------------------------------------------------------------------------------------------------------
# TestPriorityQueue_Delete (metric columns not ported)
DEL_POD1 = make_pod("pod1", "ns1", "pod1")
DEL_POD2 = make_pod("pod2", "ns1", "pod2")


def _op_add(q, pod, unsched=(), pending=()):
    q.add(info(pod))


def _op_requeue_unschedulable(q, pod, unsched=(), pending=()):
    q.add(info(pod))
    qpi = pop_pod(q, pod)
    q.add_unschedulable_if_not_present(qpi, set(unsched), set(pending))


def _op_requeue_backoff(q, pod, unsched=(), pending=()):
    q.add(info(pod))
    qpi = pop_pod(q, pod)
    qpi.unschedulable_count += 1
    q.add_unschedulable_if_not_present(qpi, set(), set())


P1_PLUGINS = ({"fakePlugin"}, {"fakePendingPlugin"})
P2_PLUGINS = ({"fakePlugin2"}, ())

DELETE_CASES = [
    ("Delete pod from activeQ", [(_op_add, DEL_POD1, P1_PLUGINS), (_op_add, DEL_POD2, P2_PLUGINS)], DEL_POD1,
     [DEL_POD1], [DEL_POD2]),
    ("Delete pod from backoffQ", [(_op_requeue_backoff, DEL_POD1, P1_PLUGINS), (_op_add, DEL_POD2, P2_PLUGINS)],
     DEL_POD1, [DEL_POD1], [DEL_POD2]),
    ("Delete pod from unschedulablePods", [(_op_requeue_unschedulable, DEL_POD1, P1_PLUGINS),
                                           (_op_requeue_unschedulable, DEL_POD2, P2_PLUGINS)],
     DEL_POD1, [DEL_POD1], [DEL_POD2]),
    ("Delete nominated pod from activeQ", [(_op_add, HPP_NOMINATED, ((), ()))], HPP_NOMINATED, [HPP_NOMINATED], []),
    ("Delete non-existing pod", [(_op_requeue_unschedulable, DEL_POD1, P1_PLUGINS)], DEL_POD2, [DEL_POD2],
     [DEL_POD1]),
]


@pytest.mark.parametrize("name,ops,to_delete,absent,present", DELETE_CASES, ids=[c[0] for c in DELETE_CASES])
def test_priority_queue_delete(name, ops, to_delete, absent, present):
    q = new_queue()
    for op, pod, (unsched, pending) in ops:
        op(q, pod, unsched, pending)
    q.delete(f"{to_delete.metadata.namespace}/{to_delete.metadata.name}")
    for p in absent:
        assert q.where(f"{p.metadata.namespace}/{p.metadata.name}") is None
    for p in present:
        assert q.where(f"{p.metadata.namespace}/{p.metadata.name}") in ("active", "backoff", "unschedulable")
    assert not q.nominator.nominated_pods and not q.nominator.nominated_pod_to_node


def test_delete_in_flight_pod_is_dropped_when_its_attempt_ends():
    """kschedlab: a pod deleted while in flight does not come back when its attempt fails."""
    q = new_queue()
    q.add(info(DEL_POD1))
    qpi = pop_pod(q, DEL_POD1)
    q.delete("ns1/pod1")
    q.add_unschedulable_if_not_present(qpi, {"plugin"})
    assert q.where("ns1/pod1") is None and len(q) == 0 and q.in_flight() == []


# ---------------------------------------------------------------------------------------------------------------------
# TestPriorityQueue_Activate
ACTIVATE_CASES = [
    ("pod already in activeQ", "active", None, 1),
    ("pod not in unschedulableEntities/backoffQ", None, None, 0),
    ("pod not in unschedulableEntities/backoffQ but in-flight", None, HPP_NOMINATED, 0),
    ("pod not in unschedulableEntities/backoffQ and not in-flight", None, MPP, 0),
    ("pod in unschedulableEntities", "unschedulable", None, 1),
    ("pod in backoffQ", "backoff", None, 1),
]


@pytest.mark.parametrize("name,where,in_flight,want_active", ACTIVATE_CASES, ids=[c[0] for c in ACTIVATE_CASES])
def test_priority_queue_activate(name, where, in_flight, want_active):
    q = new_queue()
    if in_flight is not None:
        q.add(info(in_flight))
        pop_pod(q, in_flight)
        assert len(q.in_flight_events()) == 1
    if where == "active":
        q.add(info(HPP_NOMINATED))
    elif where == "unschedulable":
        put_unschedulable(q, QueuedPodInfo(info(HPP_NOMINATED), 0.0))
    elif where == "backoff":
        put_backoff(q, QueuedPodInfo(info(HPP_NOMINATED), 0.0))
    q.activate(["ns1/hpp"])
    assert len(q._active) == want_active
    if want_active:
        assert q.where("ns1/hpp") == "active"
    if in_flight is HPP_NOMINATED:
        log = q.in_flight_events()
        assert len(log) == 2
        rec = log[1]
        assert rec.event == ev.EVENT_FORCE_ACTIVATE and rec.old_obj is None and rec.new_obj is HPP_NOMINATED
    elif in_flight is not None:
        assert len(q.in_flight_events()) == 1


def test_activated_in_flight_pod_comes_back_after_its_attempt():
    """kschedlab: the recorded ForceActivate (a wildcard for that pod) requeues it after a failure."""
    q = new_queue(hints={"plugin": [(NODE_ADD, queue_hint)]})
    q.add(info(HPP))
    qpi = pop_pod(q, HPP)
    q.activate(["ns1/hpp"])
    q.add_unschedulable_if_not_present(qpi, {"plugin"})
    assert q.where("ns1/hpp") == "backoff"


# ---------------------------------------------------------------------------------------------------------------------
# TestPriorityQueue_moveToActiveQ / moveToBackoffQ (two plugins of the same name: the map keeps the last one)
def _pre_enqueue(*allowlists):
    plugins = PreEnqueuePlugins()
    for allow in allowlists:
        plugins.set("preEnqueuePlugin", "allow", list(allow))
    return plugins


MOVE_TO_ACTIVE_CASES = [
    ("no plugins registered", (), "p", ev.EVENT_UNSCHEDULED_POD_ADD.label, False, (True, False), 0, True),
    ("preEnqueue plugin registered, pod name not in allowlists", ([], []), "p", ev.EVENT_UNSCHEDULED_POD_ADD.label,
     False, (True, False), 1, False),
    ("preEnqueue plugin registered, pod failed one preEnqueue plugin", (["foo", "bar"], ["foo"]), "bar",
     ev.EVENT_UNSCHEDULED_POD_ADD.label, False, (True, False), 1, False),
    ("preEnqueue plugin registered, preEnqueue rejects the pod, even if it is after backoff",
     (["foo", "bar"], ["foo"]), "bar", ev.BACKOFF_COMPLETE, False, (False,), 1, False),
    ("preEnqueue plugin registered, pod would fail one preEnqueue plugin, but it is moved from backoffQ after "
     "completing backoff, so preEnqueue is not executed", (["foo", "bar"], ["foo"]), "bar", ev.BACKOFF_COMPLETE,
     True, (True,), 0, True),
    ("preEnqueue plugin registered, pod failed one preEnqueue plugin when activated from unschedulableEntities",
     (["foo", "bar"], ["foo"]), "bar", ev.FORCE_ACTIVATE, False, (True,), 1, False),
    ("preEnqueue plugin registered, pod would fail one preEnqueue plugin, but was activated from backoffQ, so "
     "preEnqueue is not executed", (["foo", "bar"], ["foo"]), "bar", ev.FORCE_ACTIVATE, True, (True,), 0, True),
    ("preEnqueue plugin registered, pod passed all preEnqueue plugins", (["foo", "bar"], ["bar"]), "bar",
     ev.EVENT_UNSCHEDULED_POD_ADD.label, False, (True, False), 0, True),
]


def _per_gate(cases, gate_index):
    """Each row once per SchedulerPopFromBackoffQ value it runs with upstream."""
    return [pytest.param(*c, g, id=f"{c[0]} popFromBackoffQEnabled({str(g).lower()})")
            for c in cases for g in c[gate_index]]


@pytest.mark.parametrize(
    "name,allowlists,label,event,from_backoff,gate_values,want_unsched,want_success,gate",
    _per_gate(MOVE_TO_ACTIVE_CASES, 5))
def test_move_to_active_q(name, allowlists, label, event, from_backoff, gate_values, want_unsched, want_success,
                          gate):
    pod = make_pod(label, labels={label: ""})
    q = new_queue(pre_enqueue=_pre_enqueue(*allowlists) if allowlists else None, gates=gates(gate),
                  pod_initial_backoff=30.0, pod_max_backoff=60.0)
    got = q._move_to_active(new_qpi(q, pod), event, from_backoff)
    assert got == want_success
    assert len(q._unschedulable) == want_unsched
    q.update(info(pod), info(with_annotation(pod, "foo", "")))
    assert len(q._unschedulable) == want_unsched


MOVE_TO_BACKOFF_CASES = [
    ("no plugins registered", (), "p", (True, False), True),
    ("preEnqueue plugin registered, pod name would not be in allowlists", ([], []), "p", (False,), True),
    ("preEnqueue plugin registered, pod name not in allowlists", ([], []), "p", (True,), False),
    ("preEnqueue plugin registered, preEnqueue plugin would reject the pod, but isn't run",
     (["foo", "bar"], ["foo"]), "bar", (False,), True),
    ("preEnqueue plugin registered, pod failed one preEnqueue plugin", (["foo", "bar"], ["foo"]), "bar", (True,),
     False),
    ("preEnqueue plugin registered, pod passed all preEnqueue plugins", (["foo", "bar"], ["bar"]), "bar",
     (True, False), True),
]


@pytest.mark.parametrize("name,allowlists,label,gate_values,want_success,gate",
                         _per_gate(MOVE_TO_BACKOFF_CASES, 3))
def test_move_to_backoff_q(name, allowlists, label, gate_values, want_success, gate):
    pod = make_pod(label, labels={label: ""})
    q = new_queue(pre_enqueue=_pre_enqueue(*allowlists) if allowlists else None, gates=gates(gate),
                  pod_initial_backoff=30.0, pod_max_backoff=60.0)
    qpi = new_qpi(q, pod)
    assert q._move_to_backoff(qpi, ev.EVENT_UNSCHEDULED_POD_ADD.label) == want_success
    assert (q.where(qpi.key) == "backoff") == want_success
    assert (qpi.key in q._unschedulable) == (not want_success)


# ---------------------------------------------------------------------------------------------------------------------
# TestPriorityQueue_MoveAllToActiveOrBackoffQueueWithQueueingHint
QH_POD = make_pod("pod1", "ns1", "1", labels={"foo": "bar"})
QH_GATED_POD = make_pod("pod1", "ns1", "1")
_CALLS = []


def _must_not_be_called(pod_info, old, new):
    _CALLS.append(pod_info)
    return QueueingHint.Queue


QH_CASES = [
    ("Queue queues pod to activeQ", QueuedPodInfo(info(QH_POD), 0.0, pending_plugins={"foo"}), queue_hint, 0.0, None,
     "active"),
    ("Queue queues pod to backoffQ if Pod is backing off",
     QueuedPodInfo(info(QH_POD), 0.0, unschedulable_plugins={"foo"}), queue_hint, 0.0, None, "backoff"),
    ("Queue queues pod to activeQ if Pod is not backing off",
     QueuedPodInfo(info(QH_POD), 0.0, unschedulable_plugins={"foo"}), queue_hint, INITIAL_BACKOFF + 1.0, None,
     "active"),
    ("Skip queues pod to unschedulableEntities", QueuedPodInfo(info(QH_POD), 0.0, unschedulable_plugins={"foo"}),
     skip_hint, 0.0, None, "unschedulable"),
    ("Queue queues pod to backoffQ if Pod is not gated and the event is wildcard",
     QueuedPodInfo(info(QH_POD), 0.0, unschedulable_plugins={"foo"}), _must_not_be_called, 0.0,
     ev.EVENT_UNSCHEDULABLE_TIMEOUT, "backoff"),
    ("Queue queues pod to backoffQ when Pod is no longer gated and the event is wildcard",
     set_gated(QueuedPodInfo(info(QH_POD), 0.0), "foo", [ev.EVENT_UNSCHEDULED_POD_UPDATE]), _must_not_be_called, 0.0,
     ev.EVENT_UNSCHEDULABLE_TIMEOUT, "backoff"),
    ("Queue queues pod to unschedulableQ when Pod is gated and the event is wildcard",
     set_gated(QueuedPodInfo(info(QH_GATED_POD), 0.0), "foo", [ev.EVENT_UNSCHEDULED_POD_UPDATE]),
     _must_not_be_called, 0.0, ev.EVENT_UNSCHEDULABLE_TIMEOUT, "gated"),
    ("QueueHintFunction is not called when Pod is gated by the plugin that isn't interested in the event",
     set_gated(QueuedPodInfo(info(QH_POD), 0.0), "SchedulingGates", [ev.EVENT_UNSCHEDULED_POD_UPDATE]),
     _must_not_be_called, 0.0, None, "gated"),
    ("QueueHintFunction is called when Pod is gated by the plugin that is interested in the event",
     set_gated(QueuedPodInfo(info(QH_POD), 0.0), "foo", [NODE_ADD]), queue_hint, 0.0, None, "backoff"),
]


@pytest.mark.parametrize("name,qpi,hint,duration,event,want", [pytest.param(*c, id=c[0]) for c in QH_CASES])
def test_move_all_with_queueing_hint(name, qpi, hint, duration, event, want):
    import copy

    qpi = copy.copy(qpi)
    qpi.unschedulable_plugins, qpi.pending_plugins = set(qpi.unschedulable_plugins), set(qpi.pending_plugins)
    _CALLS.clear()
    clock = FakeClock(1_735_689_600.0)  # 2025-01-01T00:00:00Z
    gates_plugin = SchedulingGates()
    foo = PreEnqueuePlugins(("foo", "allow", ["foo"]))

    def pre_enqueue(pod_info):
        status = gates_plugin.pre_enqueue(pod_info)
        return status if not status.is_success() else foo(pod_info)

    q = new_queue(clock, hints=by_event({NODE_ADD: [("foo", hint)],
                                         ev.EVENT_UNSCHEDULED_POD_UPDATE: [("SchedulingGates", queue_hint)]}),
                  pre_enqueue=pre_enqueue)
    q.add(info(qpi.pod))
    if len(q._active):
        pop_pod(q, qpi.pod)
        requeue(q, qpi)
    else:  # gated at Add: replace it with the row's QueuedPodInfo
        put_unschedulable(q, qpi)
    clock.step(duration)
    q.move_all_to_active_or_backoff(event or NODE_ADD)
    assert q.where(qpi.key) == want
    if hint is _must_not_be_called:
        assert _CALLS == []


# ---------------------------------------------------------------------------------------------------------------------
def test_move_all_to_active_or_backoff_queue():
    """TestPriorityQueue_MoveAllToActiveOrBackoffQueue.

    Deviation: upstream then calls ``q.Add(medPriorityPod)`` while that pod is still in flight,
    which puts a second copy into activeQ (Pop would discard it). kschedlab treats an Add of a
    pod it already holds as an Update, so that pod stays in flight only and activeQ holds one
    pod fewer than upstream's counts (0 instead of 1, then 3 instead of 4).
    """
    clock = FakeClock()
    q = new_queue(clock, hints=by_event({NODE_ADD: [("fooPlugin", queue_hint)]}))
    q.add(info(UP))
    pop_pod(q, UP)
    assert in_flight_names(q) == ["up"]
    q.add(info(HPP))
    pop_pod(q, HPP)
    assert in_flight_names(q) == ["hpp", "up"]
    q.add_unschedulable_if_not_present(new_qpi(q, UP, "fooPlugin"), {"fooPlugin"})
    q.add_unschedulable_if_not_present(new_qpi(q, HPP, "fooPlugin"), {"fooPlugin"})
    assert in_flight_names(q) == []
    hpp1 = clone(HPP, "hpp1")
    q.add(info(hpp1))
    pop_pod(q, hpp1)
    assert in_flight_names(q) == ["hpp1"]
    hpp1_qpi = new_qpi(q, hpp1)
    hpp1_qpi.unschedulable_count += 1
    q.add_unschedulable_if_not_present(hpp1_qpi)  # no plugin: backoffQ
    assert in_flight_names(q) == []
    hpp2 = clone(HPP, "hpp2")
    q.add(info(hpp2))
    pop_pod(q, hpp2)
    q.add_unschedulable_if_not_present(new_qpi(q, hpp2, "barPlugin"), {"barPlugin"})
    assert in_flight_names(q) == []
    q.move_all_to_active_or_backoff(NODE_ADD)  # up and hpp to backoffQ (fooPlugin's hint)
    q.add(info(MPP))
    assert len(q._active) == 1
    pop_pod(q, MPP)
    assert in_flight_names(q) == ["mpp"]
    assert len(q.pending()["backoff"]) == 3  # hpp2 is not moved
    # popAllBackoffCompleted drops them from the queue without making them in flight
    clock.step(MAX_BACKOFF)
    for key in q.pending()["backoff"]:
        assert not q.is_backing_off(q.get(key))
        q.delete(key)
    assert in_flight_names(q) == ["mpp"]
    for p in (UP, HPP, hpp1):
        q.add(info(p))
        pop_pod(q, p)
    assert in_flight_names(q) == ["hpp", "hpp1", "mpp", "up"]
    q.add_unschedulable_if_not_present(new_qpi(q, UP, "fooPlugin"), {"fooPlugin"})
    assert in_flight_names(q) == ["hpp", "hpp1", "mpp"]
    q.add_unschedulable_if_not_present(new_qpi(q, HPP, "fooPlugin"), {"fooPlugin"})
    assert in_flight_names(q) == ["hpp1", "mpp"]
    q.add_unschedulable_if_not_present(new_qpi(q, hpp1))
    assert in_flight_names(q) == ["mpp"]
    for key in ("ns1/up", "ns1/hpp", "ns1/hpp2"):
        assert q.where(key) == "unschedulable"
    assert q.where("ns1/hpp1") == "backoff"
    assert len(q._active) == 0  # upstream: 1 (the duplicate of the in-flight mpp)
    clock.step(MAX_BACKOFF)
    q.flush_backoff_completed()
    q.move_all_to_active_or_backoff(NODE_ADD)
    assert len(q._active) == 3  # upstream: 4
    assert q.pending()["backoff"] == []
    assert in_flight_names(q) == ["mpp"]
    assert q.pending()["unschedulable"] == ["ns1/hpp2"]


# ---------------------------------------------------------------------------------------------------------------------
# nominator
def test_nominated_pods_for_node():
    """TestPriorityQueue_NominatedPodsForNode."""
    q = new_queue()
    for p in (MPP, UP, HPP):
        q.add(info(p))
    pop_pod(q, HPP)
    assert [pi.key for pi in q.nominated_pods_for_node("node1")] == ["ns2/mpp", "ns1/up"]
    assert q.nominated_pods_for_node("node2") == []


@pytest.mark.parametrize("pod,deleted,want", [
    (MPP, False, 1), (HPP_NOMINATED, True, 0), (HPP, False, 0)],
    ids=["alive pod gets added into PodNominator", "deleted pod shouldn't be added into PodNominator",
         "pod without .status.nominatedPodName specified shouldn't be added into PodNominator"])
def test_nominated_pod_deleted(pod, deleted, want):
    """TestPriorityQueue_NominatedPodDeleted: the nominator checks the pod lister."""
    store = {} if deleted else {f"{pod.metadata.namespace}/{pod.metadata.name}": pod}
    q = new_queue(pod_lister=store.get)
    q.add_nominated_pod(info(pod))
    assert len(q.nominated_pods_for_node(pod.status.nominated_node_name or "")) == want


@pytest.mark.parametrize("initial,pod_nnn,mode,nnn,want", [
    ("", "", MODE_OVERRIDE, "", ""),
    ("node1", "", MODE_OVERRIDE, "", ""),
    ("", "", MODE_NOOP, "", ""),
    ("node1", "", MODE_NOOP, "", ""),
    ("", "", MODE_NOOP, "node1", ""),
    ("", "node2", MODE_NOOP, "node1", "node2"),
    ("", "node2", MODE_NOOP, "", "node2"),
], ids=["ModeOverride empty without prior nomination", "nominated then cleared with ModeOverride empty",
        "ModeNoop empty without prior nomination", "nominated then cleared with ModeNoop empty",
        "ModeNoop with non-empty nominatingInfo NNN ignored when pod NNN empty",
        "ModeNoop with non-empty nominatingInfo NNN uses pod NNN",
        "ModeNoop empty nominatingInfo NNN with non-empty pod NNN"])
def test_nominated_node_name_empty_node_key(initial, pod_nnn, mode, nnn, want):
    """TestPriorityQueue_NominatedNodeNameEmptyNodeKey (#138267)."""
    pod = make_pod("hpp", "ns1", "hppns1", HIGH, nominated=pod_nnn or None)
    q = new_queue(pod_lister={"ns1/hpp": pod}.get)
    if initial:
        q.add_nominated_pod(info(pod), NominatingInfo(MODE_OVERRIDE, initial))
        assert len(q.nominator.nominated_pods[initial]) == 1
    q.add_nominated_pod(info(pod), NominatingInfo(mode, nnn))
    assert "" not in q.nominator.nominated_pods
    if not want:
        assert q.nominator.nominated_pods == {} and q.nominator.nominated_pod_to_node == {}
    else:
        assert len(q.nominator.nominated_pods[want]) == 1
        assert q.nominator.nominated_pod_to_node["ns1/hpp"] == want


def test_update_nominated_pod_for_node():
    """TestPriorityQueue_UpdateNominatedPodForNode (also a conformance case)."""
    scheduled = make_pod("sp", "ns1", "spns1", node="foo")
    lister = {f"{p.metadata.namespace}/{p.metadata.name}": p for p in (MPP, UP, HPP, scheduled)}
    q = new_queue(pod_lister=lister.get)
    q.add(info(MPP))
    q.add_nominated_pod(info(UP), NominatingInfo(MODE_OVERRIDE, "node5"))
    q.add_nominated_pod(info(HPP), NominatingInfo(MODE_OVERRIDE, "node2"))
    want = {"ns2/mpp": "node1", "ns1/hpp": "node2", "ns1/up": "node5"}
    assert q.nominator.nominated_pod_to_node == want
    pop_pod(q, MPP)
    assert q.nominator.nominated_pod_to_node == want
    q.add_nominated_pod(info(HPP), NominatingInfo(MODE_OVERRIDE, "node4"))
    want = {"ns2/mpp": "node1", "ns1/hpp": "node4", "ns1/up": "node5"}
    assert q.nominator.nominated_pod_to_node == want
    q.add_nominated_pod(info(make_pod("ne", "ns1", "nens1")), NominatingInfo(MODE_OVERRIDE, "node1"))
    assert q.nominator.nominated_pod_to_node == want
    q.add_nominated_pod(info(scheduled), NominatingInfo(MODE_OVERRIDE, "node1"))
    assert q.nominator.nominated_pod_to_node == want
    q.delete_nominated_pod_if_exists("ns1/hpp")
    assert q.nominator.nominated_pod_to_node == {"ns2/mpp": "node1", "ns1/up": "node5"}
    assert {n: [pi.key for pi in pis] for n, pis in q.nominator.nominated_pods.items()} == {
        "node1": ["ns2/mpp"], "node5": ["ns1/up"]}


# ---------------------------------------------------------------------------------------------------------------------
def test_pending_pods():
    """TestPriorityQueue_PendingPods."""
    q = new_queue()
    q.add(info(UP))
    pop_pod(q, UP)
    q.add(info(HPP))
    pop_pod(q, HPP)
    q.add(info(MPP))
    q.add_unschedulable_if_not_present(new_qpi(q, UP, "plugin"), {"plugin"})
    q.add_unschedulable_if_not_present(new_qpi(q, HPP, "plugin"), {"plugin"})
    want = {"ns2/mpp", "ns1/up", "ns1/hpp"}
    p = q.pending()
    assert set(p["active"] + p["backoff"] + p["unschedulable"] + p["gated"]) == want
    assert q.pending_summary() == "activeQ:1; backoffQ:0; unschedulableEntities:2"
    q.move_all_to_active_or_backoff(ev.EVENT_UNSCHEDULABLE_TIMEOUT)
    p = q.pending()
    assert set(p["active"] + p["backoff"] + p["unschedulable"] + p["gated"]) == want
    assert q.pending_summary() == "activeQ:1; backoffQ:2; unschedulableEntities:0"


def test_new_with_options():
    """TestPriorityQueue_NewWithOptions."""
    q = new_queue(pod_initial_backoff=2.0, pod_max_backoff=20.0)
    assert (q.pod_initial_backoff, q.pod_max_backoff) == (2.0, 20.0)
    assert [q.calculate_backoff_duration(n) for n in range(1, 6)] == [2.0, 4.0, 8.0, 16.0, 20.0]


def test_recently_tried_pods_go_back():
    """TestRecentlyTriedPodsGoBack: a pod tried and moved back goes behind pods of the same priority."""
    clock = FakeClock()
    q = new_queue(clock)
    for i in range(5):
        q.add(info(make_pod(f"test-pod-{i}", "ns1", f"tp00{i}", HIGH, nominated="node1", node="node1")))
    clock.step(1e-6)
    p1 = q.pop()
    q.add_unschedulable_if_not_present(p1, {"plugin"})
    clock.step(MAX_BACKOFF)
    q.move_all_to_active_or_backoff(ev.EVENT_UNSCHEDULABLE_TIMEOUT)
    popped = [q.pop() for _ in range(5)]
    assert popped[4] is p1 and all(p is not p1 for p in popped[:4])


def test_pod_failed_scheduling_multiple_times_does_not_block_newer_pod():
    """TestPodFailedSchedulingMultipleTimesDoesNotBlockNewerPod (also a conformance case)."""
    clock = FakeClock()
    q = new_queue(clock)
    unsched = make_pod("test-pod-unscheduled", "ns1", "tp001", HIGH, nominated="node1",
                       unschedulable_condition=True)
    q.add(info(unsched))
    pop_pod(q, unsched)
    q.add_unschedulable_if_not_present(lookup(unsched, "plugin"), {"plugin"})
    clock.step(INITIAL_BACKOFF + 1.0)
    q.move_all_to_active_or_backoff(ev.EVENT_UNSCHEDULABLE_TIMEOUT)
    pop_pod(q, unsched)
    newer = make_pod("test-newer-pod", "ns1", "tp002", HIGH, nominated="node1")
    q.add(info(newer))
    q.add_unschedulable_if_not_present(lookup(unsched, "plugin"), {"plugin"})
    clock.step(INITIAL_BACKOFF + 1.0)
    q.move_all_to_active_or_backoff(ev.EVENT_UNSCHEDULABLE_TIMEOUT)
    pop_pod(q, newer)


def test_high_priority_backoff():
    """TestHighPriorityBackoff: an unschedulable high-priority pod does not block others."""
    q = new_queue()
    mid = make_pod("test-midpod", "ns1", "tp-mid", MID, nominated="node1")
    high = make_pod("test-highpod", "ns1", "tp-high", HIGH, nominated="node1")
    q.add(info(mid))
    q.add(info(high))
    pop_pod(q, high)
    q.add_unschedulable_if_not_present(lookup(high, "fooPlugin"), {"fooPlugin"})
    q.move_all_to_active_or_backoff(ev.EVENT_UNSCHEDULABLE_TIMEOUT)
    pop_pod(q, mid)


def test_high_priority_flush_unschedulable_entities_leftover():
    """TestHighPriorityFlushUnschedulableEntitiesLeftover."""
    clock = FakeClock()
    q = new_queue(clock, hints=by_event({NODE_ADD: [("fakePlugin", queue_hint)]}))
    mid = make_pod("test-midpod", "ns1", "tp-mid", MID, nominated="node1", unschedulable_condition=True)
    high = make_pod("test-highpod", "ns1", "tp-high", HIGH, nominated="node1", unschedulable_condition=True)
    q.add(info(high))
    pop_pod(q, high)
    q.add(info(mid))
    pop_pod(q, mid)
    q.add_unschedulable_if_not_present(new_qpi(q, high, "fakePlugin"), {"fakePlugin"})
    q.add_unschedulable_if_not_present(new_qpi(q, mid, "fakePlugin"), {"fakePlugin"})
    clock.step(DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION + 1.0)
    q.flush_unschedulable_leftover()
    pop_pod(q, high)
    pop_pod(q, mid)


def test_flush_unschedulable_entities_leftover_sets_flag():
    """TestFlushUnschedulableEntitiesLeftoverSetsFlag."""
    clock = FakeClock()
    q = new_queue(clock, hints={})
    pod = make_pod("test-pod", "ns1", "tp-1", MID, nominated="node1")
    q.add(info(pod))
    qpi = pop_pod(q, pod)
    assert not qpi.was_flushed_from_unschedulable
    q.add_unschedulable_if_not_present(new_qpi(q, pod, "fakePlugin"), {"fakePlugin"})
    clock.step(DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION + 1.0)
    q.flush_unschedulable_leftover()
    qpi = pop_pod(q, pod)
    assert qpi.was_flushed_from_unschedulable
    q.add_unschedulable_if_not_present(new_qpi(q, pod, "fakePlugin"), {"fakePlugin"})
    assert q.where("ns1/test-pod") == "unschedulable"
    assert not q.get("ns1/test-pod").was_flushed_from_unschedulable


@pytest.mark.parametrize("gated_before,gated_after,backing_off,want_flag,want_q", [
    (False, False, False, True, "active"),
    (True, False, False, True, "active"),
    (False, True, False, False, "gated"),
    (True, True, False, False, "gated"),
    (False, False, True, True, "backoff"),
    (True, False, True, True, "backoff"),
    (False, True, True, False, "gated"),
    (True, True, True, False, "gated"),
], ids=["flag is set when pod is not gated", "flag is set when pod is no longer gated",
        "flag is unset when pod is newly gated", "flag is unset when pod is still gated",
        "flag is set when pod is not gated and backoff is not complete",
        "flag is set when pod is no longer gated and backoff is not complete",
        "flag is unset when pod is newly gated and backoff is not complete",
        "flag is unset when pod is still gated and backoff is not complete"])
def test_flush_unschedulable_pods_leftover_sets_flag_gated_pod(gated_before, gated_after, backing_off, want_flag,
                                                                want_q):
    """TestFlushUnschedulablePodsLeftoverSetsFlag_GatedPod."""
    backoff = DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION + 60.0 if backing_off else 0.0
    clock = FakeClock()
    q = new_queue(clock, hints={}, pre_enqueue=PreEnqueuePlugins(("preEnqueuePlugin", "allow", ["allow"])),
                  pod_initial_backoff=backoff, pod_max_backoff=backoff)
    pod = make_pod("pod1", "ns1", "1", labels={"allow": ""})
    qpi = QueuedPodInfo(info(pod), 0.0, unschedulable_plugins={"foo"})
    if gated_before:
        set_gated(qpi, "preEnqueuePlugin", [])
    q.add(info(pod))
    q.pop()
    if gated_after:
        pod.metadata.labels.pop("allow")  # upstream mutates the pod object the queue holds
    requeue(q, qpi)
    clock.step(DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION + 1.0)
    q.flush_unschedulable_leftover()
    assert q.where("ns1/pod1") == want_q
    assert q.get("ns1/pod1").was_flushed_from_unschedulable == want_flag


def test_gated_pod_flush_frequency():
    """TestGatedPodFlushFrequency (queued pod row): a pod kept gated is re-flushed only every
    podMaxInUnschedulablePodsDuration after its last flush."""
    clock = FakeClock()
    q = new_queue(clock, hints={}, pre_enqueue=PreEnqueuePlugins(("preEnqueuePlugin", "allow", [])),
                  pod_max_in_unschedulable_pods_duration=300.0)
    qpi = QueuedPodInfo(info(make_pod("pod1", "ns1", "1")), 0.0, unschedulable_plugins={"foo"})
    put_unschedulable(q, qpi)
    clock.step(301.0)
    q.flush_unschedulable_leftover()
    first = q.get("ns1/pod1").flush_timestamp
    assert first is not None
    clock.step(240.0)
    q.flush_unschedulable_leftover()
    assert q.get("ns1/pod1").flush_timestamp == first
    clock.step(61.0)
    q.flush_unschedulable_leftover()
    assert q.get("ns1/pod1").flush_timestamp > first


@pytest.mark.parametrize("duration", [None, 30.0], ids=["default", "user-defined 30s"])
def test_init_pod_max_in_unschedulable_pods_duration(duration):
    """TestPriorityQueue_initPodMaxInUnschedulablePodsDuration: the leftover flush moves both pods,
    ordered by their timestamps."""
    clock = FakeClock()
    kwargs = {} if duration is None else {"pod_max_in_unschedulable_pods_duration": duration}
    q = new_queue(clock, **kwargs)
    p1 = QueuedPodInfo(info(make_pod("test-pod-1", "ns1", "tp-1", nominated="node1")), clock() - 1.0)
    p2 = QueuedPodInfo(info(make_pod("test-pod-2", "ns2", "tp-2", nominated="node2")), clock() - 2.0)
    for p in (p1, p2):  # addPodUnschedulablePods
        p.unschedulable_count += 1
        put_unschedulable(q, p)
    clock.step(q.pod_max_in_unschedulable_pods_duration)
    q.flush_unschedulable_leftover()
    assert [q._active.pop() for _ in range(len(q._active))] == [p2, p1]


# ---------------------------------------------------------------------------------------------------------------------
# TestPodTimestamp
def _timestamped():
    t = 1_000.0
    return (QueuedPodInfo(info(make_pod("test-pod-1", "ns1", "tp-1", nominated="node1")), t),
            QueuedPodInfo(info(make_pod("test-pod-2", "ns2", "tp-2", nominated="node2")), t + 1.0))


def test_pod_timestamp_active_q():
    q = new_queue(FakeClock(1_000.0))
    p1, p2 = _timestamped()
    put_active(q, p2)
    put_active(q, p1)
    assert [q._active.pop() for _ in range(2)] == [p1, p2]


def test_pod_timestamp_unschedulable_then_moved():
    clock = FakeClock(1_000.0)
    q = new_queue(clock)
    p1, p2 = _timestamped()
    for p in (p2, p1):
        p.unschedulable_count += 1
        put_unschedulable(q, p)
    clock.step(3.0)
    q.move_all_to_active_or_backoff(ev.EVENT_UNSCHEDULABLE_TIMEOUT)
    assert [q._active.pop() for _ in range(len(q._active))] == [p1, p2]


def test_pod_timestamp_backoff_then_flushed():
    clock = FakeClock(1_000.0)
    q = new_queue(clock)
    p1, p2 = _timestamped()
    put_active(q, p2)
    put_backoff(q, p1)
    clock.step(3.0)
    q.flush_backoff_completed()
    q.move_all_to_active_or_backoff(ev.EVENT_UNSCHEDULABLE_TIMEOUT)
    assert [q._active.pop() for _ in range(len(q._active))] == [p1, p2]


# ---------------------------------------------------------------------------------------------------------------------
# TestSchedulerPodsMetric (the scheduler_pending_pods rows, counted through pending())
def _metric_pods():
    t = 1_000.0
    x = [QueuedPodInfo(info(make_pod(f"x-{i}", f"ns{i}", f"tp-{i}", labels={"queueable": ""})), t)
         for i in range(1, 51)]
    y = [set_gated(QueuedPodInfo(info(make_pod(f"y-{i}", f"ns{i}", f"tp-{i}", labels={"failme": ""})), t),
                   "preEnqueuePlugin", [ev.EVENT_UNSCHEDULED_POD_UPDATE]) for i in range(1, 11)]
    z = [QueuedPodInfo(info(make_pod(f"z-{i}", f"ns{i}", f"tp-{i}", labels={"queueable": ""})), t + 2.0)
         for i in range(1, 21)]
    return x + y, z


def _m_add(q, pre, p):
    q.add(info(p.pod))


def _m_backoff(q, pre, p):
    put_backoff(q, p)


def _m_unsched(q, pre, p):
    if not p.gated:
        p.unschedulable_count += 1
    put_unschedulable(q, p)


def _m_delete(q, pre, p):
    q.delete(p.key)


def _m_update_queueable(q, pre, p):
    current = q.get(p.key)
    old = current.pod if current is not None else p.pod
    q.update(info(old), info(with_labels(old, {"queueable": ""})))


def _m_move_all(q, pre, p):
    q.move_all_to_active_or_backoff(ev.EVENT_UNSCHEDULABLE_TIMEOUT)


def _m_flush_backoff(q, pre, p):
    q._clock.step(3.0)
    q.flush_backoff_completed()


def _m_clock(q, pre, p):
    q._clock.step(3.0)


def _m_gate_all(q, pre, p):
    pre.set("preEnqueuePlugin", "allow", [""])


def _m_ungate_all(q, pre, p):
    pre.set("preEnqueuePlugin", "allow", ["queueable"])


def _ops(*pairs):
    return list(pairs)


ONE = ("slice", 0, 1)
NIL = ("nil",)
METRIC_CASES = [
    ("add pods to activeQ and unschedulableEntities",
     _ops((_m_add, ("slice", 0, 30)), (_m_unsched, ("slice", 30, 60))), True, (30, 0, 20, 10)),
    ("add pods to all kinds of queues",
     _ops((_m_add, ("slice", 0, 15)), (_m_backoff, ("slice", 15, 40)), (_m_unsched, ("slice", 40, 60))), True,
     (15, 25, 10, 10)),
    ("add pods to unschedulableEntities and then move all to activeQ",
     _ops((_m_unsched, ("slice", 0, 60)), (_m_clock, NIL), (_m_move_all, NIL)), True, (50, 0, 0, 10)),
    ("make some pods subject to backoff, add pods to unschedulableEntities, and then move all to activeQ",
     _ops((_m_unsched, ("slice", 20, 60)), (_m_clock, NIL), (_m_unsched, ("delayed", 0, 20)), (_m_move_all, NIL)),
     True, (30, 20, 0, 10)),
    ("make some pods subject to backoff, add pods to unschedulableEntities/activeQ, move all to activeQ, and "
     "finally flush backoffQ",
     _ops((_m_unsched, ("slice", 0, 40)), (_m_add, ("slice", 40, 50)), (_m_move_all, NIL), (_m_flush_backoff, NIL)),
     True, (50, 0, 0, 0)),
    ("add pods to activeQ/unschedulableEntities and then delete some Pods",
     _ops((_m_add, ("slice", 0, 30)), (_m_unsched, ("slice", 30, 60)), (_m_delete, ("slice", 0, 2)),
          (_m_delete, ("slice", 30, 33)), (_m_delete, ("slice", 50, 54))), True, (28, 0, 17, 6)),
    ("add pods to activeQ/unschedulableEntities and then update some Pods as queueable",
     _ops((_m_add, ("slice", 0, 30)), (_m_unsched, ("slice", 30, 60)), (_m_update_queueable, ("slice", 50, 55))),
     True, (35, 0, 20, 5)),
    ("Gated metric should be 1 when Ungated to Gated transition into moveToActiveQ",
     _ops((_m_unsched, ONE), (_m_clock, NIL), (_m_gate_all, NIL), (_m_update_queueable, ONE)), True, (0, 0, 0, 1)),
    ("Gated metric should be 1 when Ungated to Gated transition into moveToBackoffQ",
     _ops((_m_unsched, ONE), (_m_gate_all, NIL), (_m_update_queueable, ONE)), True, (0, 0, 0, 1)),
    ("Gated metric should be 1 when Ungated to Gated transition when popFromBackoffQ is disabled",
     _ops((_m_unsched, ONE), (_m_clock, NIL), (_m_gate_all, NIL), (_m_update_queueable, ONE)), False, (0, 0, 0, 1)),
    ("Gated metric should be 0 when Ungated -> Gated -> Ungated (ActiveQ) transition",
     _ops((_m_unsched, ONE), (_m_clock, NIL), (_m_gate_all, NIL), (_m_update_queueable, ONE), (_m_ungate_all, NIL),
          (_m_update_queueable, ONE)), True, (1, 0, 0, 0)),
    ("Gated metric should be 0 when Ungated -> Gated -> Ungated (BackoffQ) transition",
     _ops((_m_unsched, ONE), (_m_gate_all, NIL), (_m_update_queueable, ONE), (_m_ungate_all, NIL),
          (_m_update_queueable, ONE)), True, (0, 1, 0, 0)),
    ("Gated metric should be 0 when Ungated -> Gated -> Ungated transition, when popFromBackoffQ is disabled",
     _ops((_m_unsched, ONE), (_m_clock, NIL), (_m_gate_all, NIL), (_m_update_queueable, ONE), (_m_ungate_all, NIL),
          (_m_update_queueable, ONE)), False, (1, 0, 0, 0)),
]


@pytest.mark.parametrize("name,ops,pop_from_backoff_q,want", METRIC_CASES, ids=[c[0] for c in METRIC_CASES])
def test_scheduler_pods_metric(name, ops, pop_from_backoff_q, want):
    pods, delayed = _metric_pods()
    pre = PreEnqueuePlugins(("preEnqueuePlugin", "allow", ["queueable"]))
    q = new_queue(FakeClock(1_000.0), hints=by_event({ev.EVENT_TARGET_POD_UPDATE: [("preEnqueuePlugin", queue_hint)]}),
                  pre_enqueue=pre, gates=gates(pop_from_backoff_q))
    for op, operand in ops:
        if operand[0] == "nil":
            op(q, pre, None)
            continue
        src = pods if operand[0] == "slice" else delayed
        for p in src[operand[1]:operand[2]]:
            op(q, pre, p)
    p = q.pending()
    assert (len(p["active"]), len(p["backoff"]), len(p["unschedulable"]), len(p["gated"])) == want


# ---------------------------------------------------------------------------------------------------------------------
# TestPerPodSchedulingMetrics
def _per_pod_scenario(kind):
    def run(clock, q, pod):
        if kind == "gated":
            q._pre_enqueue = PreEnqueuePlugins(("preEnqueuePlugin", "allow", ["foo"]))
        q.add(info(pod))
        if kind == "gated":
            assert q.where("test-ns/test-pod") == "gated"
            clock.step(60.0)
            q.update(info(pod), info(with_labels(pod, {"foo": ""})))
            return
        if kind == "once":
            return
        qpi = q.pop()
        q.add_unschedulable_if_not_present(qpi, {"plugin"})
        clock.t = 1_000.0 + DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION + 1e-6
        q.flush_unschedulable_leftover()
        if kind == "twice+update":
            q.update(info(pod), info(with_annotation(pod, "generation", "1")))
    return run


@pytest.mark.parametrize("kind,want_attempts,want_initial", [
    ("once", 1, 1_000.0), ("twice", 2, 1_000.0), ("twice+update", 2, 1_000.0), ("gated", 1, 1_060.0)],
    ids=["pod is created and scheduled after 1 attempt", "pod is created and scheduled after 2 attempts",
         "pod is created and scheduled after 2 attempts but before the second pop, call update",
         "A gated pod is created and scheduled after lifting gate"])
def test_per_pod_scheduling_metrics(kind, want_attempts, want_initial):
    clock = FakeClock(1_000.0)
    q = new_queue(clock)
    pod = make_pod("test-pod", "test-ns", "test-uid")
    _per_pod_scenario(kind)(clock, q, pod)
    qpi = q.pop()
    assert qpi.attempts == want_attempts
    assert qpi.initial_attempt_timestamp == want_initial


# ---------------------------------------------------------------------------------------------------------------------
# TestMoveAllToActiveOrBackoffQueue_PreEnqueueChecks
_PRECHECK_CALLED = []


def _panicking_check(pod):
    _PRECHECK_CALLED.append(pod)
    return True


@pytest.mark.parametrize("check,event,want", [
    (None, ev.EVENT_UNSCHEDULABLE_TIMEOUT, {"p0", "p1", "p2", "p3", "p4"}),
    (lambda p: p.spec.priority >= 2, ev.EVENT_UNSCHEDULABLE_TIMEOUT, {"p2", "p3", "p4"}),
    (lambda p: p.spec.priority % 2 == 0 and p.spec.priority >= 2, ev.EVENT_UNSCHEDULABLE_TIMEOUT, {"p2", "p4"}),
    (lambda p: p.spec.priority % 2 == 0 and p.spec.priority < 0, ev.EVENT_UNSCHEDULABLE_TIMEOUT, set()),
    (_panicking_check, PV_ADD, set()),
], ids=["nil PreEnqueueCheck", "move Pods with priority greater than 2",
        "move Pods with even priority and greater than 2", "move Pods with even and negative priority",
        "preCheck isn't called if the event is not interested by any plugins"])
def test_move_all_pre_enqueue_checks(check, event, want):
    _PRECHECK_CALLED.clear()
    clock = FakeClock(1_000.0)
    q = new_queue(clock)
    for i in range(5):
        pod = make_pod(f"p{i}", priority=i)
        q.add(info(pod))
        qpi = pop_pod(q, pod)
        q.add_unschedulable_if_not_present(qpi, {"plugin"})
    q.move_all_to_active_or_backoff(event, pre_check=check)
    clock.step(2 * MAX_BACKOFF)
    got = {k for k in q.pending()["backoff"] if not q.is_backing_off(q.get(k))}
    assert set(names(got)) == want
    assert _PRECHECK_CALLED == []


# ---------------------------------------------------------------------------------------------------------------------
# Test_isPodWorthRequeuing
_COUNT = [0]


def _q(pod_info, old, new):
    _COUNT[0] += 1
    return QueueingHint.Queue


def _skip(pod_info, old, new):
    _COUNT[0] += 1
    return QueueingHint.QueueSkip


def _err(pod_info, old, new):
    _COUNT[0] += 1
    raise ValueError("unexpected error")


def _qpi(unsched, pending=()):
    return QueuedPodInfo(info(make_pod("pod1", "ns1", "1")), 0.0, unschedulable_plugins=set(unsched),
                         pending_plugins=set(pending))


NODE_UPDATE_LABEL = ev.ClusterEvent(ev.NODE, ev.ActionType.UpdateNodeLabel)
WORTH_CASES = [
    ("return Queue when no queueing hint function is registered for the event", _qpi({"fooPlugin1"}), NODE_ADD, None,
     make_node(), Strategy.SKIP, 0, {ev.EVENT_ASSIGNED_POD_ADD: [("fooPlugin1", _q)]}),
    ("Treat the event as Queue when QueueHintFn returns error", _qpi({"fooPlugin1"}), NODE_ADD, None, make_node(),
     Strategy.AFTER_BACKOFF, 1, {NODE_ADD: [("fooPlugin1", _err)]}),
    ("return Queue when the event is wildcard", _qpi({"fooPlugin1"}), ev.EVENT_UNSCHEDULABLE_TIMEOUT, None, None,
     Strategy.AFTER_BACKOFF, 0, None),
    ("return Queue when the event is wildcard and the wildcard targets the pod to be requeued right now",
     _qpi({"fooPlugin1"}), ev.EVENT_FORCE_ACTIVATE, None, make_pod("pod1", "ns1", "1"), Strategy.AFTER_BACKOFF, 0,
     None),
    ("return Skip when the event is wildcard, but the wildcard targets a different pod", _qpi({"fooPlugin1"}),
     ev.EVENT_FORCE_ACTIVATE, None, make_pod("pod-different", "ns2", "2"), Strategy.SKIP, 0, None),
    ("interprets Queue from the Pending plugin as queueImmediately", _qpi({"fooPlugin1", "fooPlugin3"}, {"fooPlugin2"}),
     NODE_ADD, None, make_node(), Strategy.IMMEDIATELY, 2,
     {NODE_ADD: [("fooPlugin1", _q), ("fooPlugin2", _q), ("fooPlugin3", _q), ("fooPlugin4", _err)]}),
    ("interprets Queue from the Unschedulable plugin as queueAfterBackoff", _qpi({"fooPlugin1", "fooPlugin2"}),
     NODE_ADD, None, make_node(), Strategy.AFTER_BACKOFF, 2,
     {NODE_ADD: [("fooPlugin1", _skip), ("fooPlugin2", _q)]}),
    ("Queueing hint function that isn't from the plugin in UnschedulablePlugins/PendingPlugins is ignored",
     _qpi({"fooPlugin1", "fooPlugin2"}), NODE_ADD, None, make_node(), Strategy.SKIP, 2,
     {NODE_ADD: [("fooPlugin1", _skip), ("fooPlugin2", _skip), ("fooPlugin3", _q)]}),
    ("If event is specific Node update event, queueing hint function for NodeUpdate/UpdateNodeLabel is also executed",
     _qpi({"fooPlugin1", "fooPlugin2"}), NODE_UPDATE_LABEL, None, make_node(), Strategy.AFTER_BACKOFF, 1,
     {NODE_UPDATE_LABEL: [("fooPlugin1", _q), ("fooPlugin2", _q)],
      ev.ClusterEvent(ev.NODE, ev.ActionType.Update): [("fooPlugin1", _q)], NODE_ADD: [("fooPlugin1", _q)]}),
    ("If event with '*' Resource, queueing hint function for specified Resource is also executed",
     _qpi({"fooPlugin1"}), NODE_ADD, None, make_node(), Strategy.AFTER_BACKOFF, 1,
     {ev.ClusterEvent(ev.WILDCARD, ev.ActionType.Add): [("fooPlugin1", _q)]}),
    ("If event is a wildcard one, queueing hint function for all kinds of events is executed", _qpi({"fooPlugin1"}),
     ev.ClusterEvent(ev.NODE, ev.ActionType.UpdateNodeLabel | ev.ActionType.UpdateNodeTaint), None, make_node(),
     Strategy.AFTER_BACKOFF, 1, {ev.ClusterEvent(ev.WILDCARD, ev.ActionType.All): [("fooPlugin1", _q)]}),
]


@pytest.mark.parametrize("name,qpi,event,old,new,want,want_count,hint_map", WORTH_CASES,
                         ids=[c[0] for c in WORTH_CASES])
def testis_pod_worth_requeuing(name, qpi, event, old, new, want, want_count, hint_map):
    _COUNT[0] = 0
    q = new_queue(hints=by_event(hint_map) if hint_map is not None else None)
    assert q.is_pod_worth_requeuing(qpi, event, old, new) == want
    assert _COUNT[0] == want_count


def test_gated_set_upon_creation_and_unset_upon_update():
    """Test_queuedPodInfo_gatedSetUponCreationAndUnsetUponUpdate (SchedulingGates' own hint)."""
    gates_plugin = SchedulingGates()
    q = new_queue(hints={"SchedulingGates": list(gates_plugin.events_to_register())},
                  pre_enqueue=gates_plugin.pre_enqueue)
    gated = make_pod("p", gates=["hello world"])
    q.add(info(gated))
    assert q.get(info(gated).key).gated
    ungated = gated.model_copy(deep=True)
    ungated.spec.scheduling_gates = []
    q.update(info(gated), info(ungated))
    qpi = q.pop()
    assert qpi is not None and not qpi.gated


@pytest.mark.parametrize("name,want", [("pod1", "active"), ("pod2", "backoff"), ("pod3", "unschedulable"),
                                       ("pod4", None)])
def test_get_pod(name, want):
    """TestPriorityQueue_GetPod."""
    q = new_queue()
    put_active(q, lookup(make_pod("pod1", "default")))
    put_backoff(q, lookup(make_pod("pod2", "default")))
    put_unschedulable(q, lookup(make_pod("pod3", "default")))
    got = q.get(f"default/{name}")
    if want is None:
        assert got is None
    else:
        assert got.pod.metadata.name == name and q.where(f"default/{name}") == want


# ---------------------------------------------------------------------------------------------------------------------
# backoff_queue_test.go (stored copy id 225659256; commit not reported by the store); the backoff count is UnschedulableCount /
# ConsecutiveErrorsCount in the newest upstream (Attempts in that copy).
def _backoff_pods(t):
    return {
        "pod0": QueuedPodInfo(info(make_pod("pod0")), t - 2.0, 1, unschedulable_plugins={"plugin"},
                              unschedulable_count=1),
        "pod1": QueuedPodInfo(info(make_pod("pod1")), t + 1.0, 1, unschedulable_plugins={"plugin"},
                              unschedulable_count=1),
        "pod2": QueuedPodInfo(info(make_pod("pod2")), t - 2.0, 1, consecutive_errors_count=1),
        "pod3": QueuedPodInfo(info(make_pod("pod3")), t + 1.0, 1, consecutive_errors_count=1),
    }


@pytest.mark.parametrize("pods,want", [
    ([], []), (["pod0", "pod1"], ["pod0"]), (["pod2", "pod3"], ["pod2"]),
    (["pod0", "pod1", "pod2", "pod3"], ["pod0", "pod2"]), (["pod0", "pod2"], ["pod0", "pod2"]),
    (["pod1", "pod3"], [])],
    ids=["Both queues empty, no pods moved to activeQ", "Pods only in backoffQ, some pods moved to activeQ",
         "Pods only in errorBackoffQ, some pods moved to activeQ", "Pods in both queues, some pods moved to activeQ",
         "Pods in both queues, all pods moved to activeQ", "Pods in both queues, no pods moved to activeQ"])
@pytest.mark.parametrize("gate", [True, False], ids=["popFromBackoffQ", "noPopFromBackoffQ"])
def test_backoff_queue_pop_all_backoff_completed(pods, want, gate):
    clock = FakeClock(1_000.25)
    q = new_queue(clock, gates=gates(gate))
    table = _backoff_pods(clock())
    for name in pods:
        put_backoff(q, table[name])
    start = len(q.history)
    q.flush_backoff_completed()
    moved = [h[1] for h in q.history[start:] if h[3] == "active"]
    assert names(moved) == want
    assert len(q.pending()["backoff"]) == len(pods) - len(want)


# With the gate off the stored test copy expects [pod5, pod3, pod4, pod2]: it predates the newest
# backoff_queue.go (stored copy id 54719576723), whose alignToWindow is the identity when SchedulerPopFromBackoffQ
# is off. Unaligned, pod3 and pod4 tie (same expiry) and container/heap pops pod4 first.
@pytest.mark.parametrize("gate,want", [(True, ["pod5", "pod4", "pod2", "pod3"]),
                                       (False, ["pod5", "pod4", "pod3", "pod2"])],
                         ids=["Pods with the same window are ordered by priority if PopFromBackoffQ is enabled",
                              "Pods priority doesn't matter if PopFromBackoffQ is disabled"])
def test_backoff_queue_ordering(gate, want):
    clock = FakeClock(1_000.0)  # aligned with the ordering window
    t = clock()
    q = new_queue(clock, gates=gates(gate))
    spec = [("pod0", 1, t), ("pod1", 1, t - 1.0), ("pod2", 2, t - 2.0 + 0.001), ("pod3", 1, t - 2.0),
            ("pod4", 2, t - 2.0), ("pod5", 1, t - 3.0)]
    for name, prio, ts in spec:
        put_backoff(q, QueuedPodInfo(info(make_pod(name, priority=prio)), ts, 1, unschedulable_plugins={"plugin"},
                                     unschedulable_count=1))
    start = len(q.history)
    q.flush_backoff_completed()
    assert names([h[1] for h in q.history[start:] if h[3] == "active"]) == want


# ---------------------------------------------------------------------------------------------------------------------
# Event-handler conveniences: pkg/scheduler/eventhandlers.go (stored copy id 510693257; commit not reported by the
# store), the SchedulerQueueingHints-on paths.
def _pool_with(q, *pods, plugin="plugin"):
    for p in pods:
        q.add(info(p))
        qpi = pop_pod(q, p)
        q.add_unschedulable_if_not_present(qpi, {plugin})


def test_assigned_pod_add_is_offered_to_every_pod():
    """addAssignedPodToCache: MoveAllToActiveOrBackoffQueue(AssignedPodAdd, nil, pod) -- no pre-filter."""
    clock = FakeClock()
    q = new_queue(clock, hints=by_event({ev.EVENT_ASSIGNED_POD_ADD: [("plugin", queue_hint)]}))
    lone = make_pod("lone", "ns1", "lone")  # no affinity, no spread: the old pre-filter would skip it
    _pool_with(q, lone)
    clock.step(MAX_BACKOFF)
    q.assigned_pod_added(info(make_pod("bound", "ns1", "bound", node="n1")))
    assert q.where("ns1/lone") == "active"


def test_assigned_pod_update_events():
    """updateAssignedPodInCache: one MoveAll per event of PodSchedulingPropertiesChange (AssignedPod resource)."""
    seen = []

    def record(pod_info, old, new):
        seen.append(new.metadata.labels)
        return QueueingHint.QueueSkip

    q = new_queue(hints={"plugin": [(ev.ClusterEvent(ev.POD, ev.ActionType.UpdatePodLabel), record)]})
    _pool_with(q, make_pod("waiting", "ns1", "w"))
    old = make_pod("bound", "ns1", "b", node="n1", labels={"a": "1"})
    q.assigned_pod_updated(info(old), info(with_labels(old, {"a": "2"})))
    assert seen == [{"a": "2"}]


@pytest.mark.parametrize("was_assumed,want", [(False, {"ns1/low": "backoff", "ns1/high": "unschedulable"}),
                                              (True, {"ns1/low": "backoff", "ns1/high": "backoff"})],
                         ids=["nominated pod deleted: lower or equal priority pods", "assumed pod deleted: all pods"])
def test_unscheduled_pod_deleted(was_assumed, want):
    """deletePodFromSchedulingQueue: AssignedPodDelete, with getLEPriorityPreCheck for a nominated pod."""
    q = new_queue(hints=by_event({ev.EVENT_ASSIGNED_POD_DELETE: [("plugin", queue_hint)]}))
    _pool_with(q, make_pod("low", "ns1", "low", MID), make_pod("high", "ns1", "high", HIGH))
    gone = make_pod("gone", "ns1", "gone", MID, nominated="n1")
    q.add(info(gone))
    q.unscheduled_pod_deleted(info(gone), was_assumed=was_assumed)
    assert q.where("ns1/gone") is None
    assert {k: q.where(k) for k in want} == want


def test_unscheduled_pod_update_moving_its_nomination():
    """updatePodInSchedulingQueue: a nominated node that changed frees the old node for lower/equal priority pods."""
    q = new_queue(hints=by_event({ev.EVENT_ASSIGNED_POD_DELETE: [("plugin", queue_hint)]}))
    _pool_with(q, make_pod("low", "ns1", "low", MID), make_pod("high", "ns1", "high", HIGH))
    pod = make_pod("p", "ns1", "p", MID, nominated="n1")
    q.add(info(pod))
    q.unscheduled_pod_updated(info(pod), info(make_pod("p", "ns1", "p", MID, nominated="n2")))
    assert q.where("ns1/low") == "backoff" and q.where("ns1/high") == "unschedulable"
    assert q.nominator.nominated_node("ns1/p") == "n2"
