"""The scheduling queue's indexed unschedulable pool moves exactly the pods a walk of the
whole pool would move, in the same order.

Seeded random sequences of queue operations (pods added -- some gated --, popped, failed by
random plugins or with an error, bound, updated, deleted, activated, cluster events, clock
steps and flushes, with SchedulerPopFromBackoffQ on and off) drive two queues: the queue as
it is, and one whose events are offered to every pod of the pool.  After every step both
hold the same pods in the same places, and have recorded the same moves; the per-place counts
(``pending_counts``) match a recount.
"""

from __future__ import annotations

import random

import pytest

from kschedlab.api.core import Pod
from kschedlab.features import FeatureGates
from kschedlab.framework import events as ev
from kschedlab.framework.types import PodInfo
from kschedlab.plugins.queuesort import PrioritySort
from kschedlab.plugins.scheduling_gates import SchedulingGates
from kschedlab.queue import SchedulingQueue
from tests.seeds import seeds

NODE_ADD = ev.ClusterEvent(ev.NODE, ev.ActionType.Add)
PV_ADD = ev.ClusterEvent(ev.PERSISTENT_VOLUME, ev.ActionType.Add)
EVENTS = [NODE_ADD, PV_ADD, ev.EVENT_ASSIGNED_POD_DELETE, ev.EVENT_UNSCHEDULABLE_TIMEOUT, ev.EVENT_ASSIGNED_POD_ADD,
          ev.ClusterEvent(ev.NODE, ev.ActionType.UpdateNodeLabel)]
PLUGINS = ["A", "B", "C", "D"]


def queue_hint(pod_info, old, new):
    return ev.QueueingHint.Queue


def skip_hint(pod_info, old, new):
    return ev.QueueingHint.QueueSkip


def odd_hint(pod_info, old, new):
    """Queue for pods of odd priority only: the hint depends on the pod."""
    return ev.QueueingHint.Queue if (pod_info.pod.spec.priority or 0) % 2 else ev.QueueingHint.QueueSkip


class WholePoolQueue(SchedulingQueue):
    """The queue offering every event to every pod of the pool (the reference)."""

    def _plugins_for_event(self, event):
        return frozenset(PLUGINS) | {"SchedulingGates", "PreEnqueue"} | super()._plugins_for_event(event)

    def move_all_to_active_or_backoff(self, event, old_obj=None, new_obj=None, pre_check=None):
        for one in ev.events_of(event):
            if not self._is_event_of_interest(one):
                continue
            candidates = [q for q in list(self._unschedulable.values()) if pre_check is None or pre_check(q.pod)]
            self._move_pods(candidates, one, old_obj, new_obj)


def make_queue(cls, clock, pop_from_backoff_q: bool):
    gates = SchedulingGates()
    hints = {"A": [(NODE_ADD, queue_hint)],
             "B": [(NODE_ADD, skip_hint), (PV_ADD, queue_hint)],
             "C": [(ev.ClusterEvent(ev.ASSIGNED_POD, ev.ActionType.Delete), odd_hint)],
             "D": [(ev.ClusterEvent(ev.ASSIGNED_POD, ev.ActionType.Add | ev.ActionType.Delete), None)],
             "SchedulingGates": list(gates.events_to_register())}
    return cls(PrioritySort().less, pre_enqueue=gates.pre_enqueue, hints=hints, clock=clock,
               gates=FeatureGates({"SchedulerPopFromBackoffQ": pop_from_backoff_q}))


def pod(i: int, priority: int, gated: bool, version: int = 0) -> Pod:
    body = {"metadata": {"name": f"p{i}", "namespace": "ns", "uid": f"uid{i}", "annotations": {"v": str(version)}},
            "spec": {"priority": priority, "containers": [{"name": "c"}]}}
    if gated:
        body["spec"]["schedulingGates"] = [{"name": "g"}]
    return Pod.model_validate(body)


def state(q) -> tuple:
    return q.pending(), dict(q.placements()), list(q.history), q.in_flight()


@pytest.mark.parametrize("seed", seeds(40))
def test_indexed_pool_moves_as_a_walk_of_the_whole_pool(seed):
    rng = random.Random(seed)
    now = [1000.0]
    clock = lambda: now[0]  # noqa: E731
    pop_from_backoff_q = bool(seed % 2)
    queues = [make_queue(SchedulingQueue, clock, pop_from_backoff_q), make_queue(WholePoolQueue, clock,
                                                                                 pop_from_backoff_q)]
    alive: dict[str, Pod] = {}
    in_flight: dict[str, list] = {}
    for step in range(300):
        op = rng.choice(["add", "add", "pop_fail", "pop_fail", "pop_fail", "fail", "bind", "update", "delete",
                         "activate", "event", "event", "event", "tick"])
        i = rng.randrange(12)
        key = f"ns/p{i}"
        if op == "add" and key not in alive and key not in in_flight:
            p = pod(i, rng.randrange(4), rng.random() < 0.3)
            alive[key] = p
            for q in queues:
                q.add(PodInfo.of(p))
        elif op in ("pop_fail", "fail"):
            if op == "pop_fail":
                popped = [q.pop() for q in queues]
                assert [x.key if x else None for x in popped] == [popped[0].key if popped[0] else None] * 2
                if popped[0] is None:
                    continue
                in_flight[popped[0].key] = popped
            if not in_flight:
                continue
            k = rng.choice(sorted(in_flight))
            plugins = set(rng.sample(PLUGINS, rng.randrange(0, 3)))
            pending = set(rng.sample(PLUGINS, rng.randrange(0, 2))) if rng.random() < 0.2 else set()
            error = rng.random() < 0.1
            for q, qpi in zip(queues, in_flight.pop(k)):
                q.add_unschedulable_if_not_present(qpi, plugins, pending, error=error)
        elif op == "bind" and in_flight:
            k = rng.choice(sorted(in_flight))
            in_flight.pop(k)
            p = alive.pop(k, None)
            for q in queues:
                q.done(k)
                if p is not None:
                    q.assigned_pod_added(PodInfo.of(p))
        elif op == "update" and key in alive:
            old = alive[key]
            new = pod(i, old.spec.priority, bool(old.spec.scheduling_gates) and rng.random() < 0.5,
                      int(old.metadata.annotations["v"]) + 1)
            alive[key] = new
            for q in queues:
                q.update(PodInfo.of(old), PodInfo.of(new))
        elif op == "delete" and key in alive:
            p = alive.pop(key)
            was_bound = rng.random() < 0.5
            for q in queues:
                q.delete(key)
                if was_bound:
                    q.assigned_pod_deleted(PodInfo.of(p.model_copy(update={"spec": p.spec.model_copy(
                        update={"node_name": "n1"})})))
        elif op == "activate":
            for q in queues:
                q.activate([key])
        elif op == "event":
            event = rng.choice(EVENTS)
            target = pod(99, rng.randrange(4), False).model_copy()
            target.spec.node_name = "n1"
            pre_check = (lambda p: (p.spec.priority or 0) <= 1) if rng.random() < 0.3 else None
            for q in queues:
                if event == ev.EVENT_ASSIGNED_POD_DELETE:
                    q.move_all_to_active_or_backoff(event, target, None, pre_check=pre_check)
                else:
                    q.move_all_to_active_or_backoff(event, None, target if event != NODE_ADD else None)
        elif op == "tick":
            now[0] += rng.choice([0.1, 0.5, 1.0, 2.5, 10.0, 31.0, 301.0])
            for q in queues:
                q.flush()
        a, b = state(queues[0]), state(queues[1])
        assert a == b, f"step {step} ({op}) differs"
        counts = queues[0].pending_counts()
        pending = queues[0].pending()
        assert counts == {place: len(keys) for place, keys in pending.items()}
