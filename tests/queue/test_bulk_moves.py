"""Answers the queue keeps over one move must decide as asking pod by pod does.

Within one ``move_all_to_active_or_backoff`` the cluster does not change, so

* an :func:`~kschedlab.framework.events.event_only` hint (NodeResourcesFit's on a bound pod
  deleted) is asked once per event and plugin, not once per rejected pod;
* a PreEnqueue plugin with ``pre_enqueue_key`` (GangScheduling: the pod's PodGroup) is asked once
  per key through ``Framework.run_pre_enqueue(memo=...)``;
* a ``by_key`` keyed hint (GangScheduling's on a pod added) is asked once per key of the pods;
* a moved pod goes last in the pool filed as it was (``UnschedulablePool.move_to_end``), and a
  pod stored again with the same filing is not filed again.

Two queues are driven in lockstep through random operations (pods of a few gangs and single pods
added, popped and failed by random plugins, bound pods deleted, unbound ones deleted, PodGroups
created, members removed from the cluster so that quorum is lost again, clock steps and flushes):
one keeps the answers, the other asks every pod (an unmarked copy of the hint, no memo, the keyed
hint without ``by_key``, a pool that deletes a moved pod and stores it again).  Their moves (time,
pod, from, to, event), their pending pods in order and their gating plugins must be the same after
every operation, and the keeping queue's pool index must be the one its pods filed afresh give.
The keeping queue runs with and without the narrowing to a PodGroup's pods (without it, pods of
every group are asked the keyed hint in one move).  The trace replays compare whole simulations
the same way.
"""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest
from kschedlab_queue_fakes import NODE_ADD, FakeClock, info, new_queue, queue_hint

from kschedlab.api.core import Pod
from kschedlab.api.loader import load_objects
from kschedlab.cluster import Cluster
from kschedlab.features import FeatureGates
from kschedlab.framework import events as ev
from kschedlab.framework.runtime import Framework
from kschedlab.plugins.gang_scheduling import GangScheduling
from kschedlab.plugins.node_resources_fit import fit_after_assigned_pod_delete
from kschedlab.plugins.scheduling_gates import SchedulingGates
from kschedlab.queue.pool import UnschedulablePool
from kschedlab.queue.scheduling_queue import SchedulingQueue
from kschedlab.research.trace import TRACE_GATES, arrivals, generate_trace, make_nodes
from kschedlab.sim import Simulation
from tests.seeds import covered, seeds

GROUPS = ["g0", "g1", "g2", "g3"]
REJECTORS = ["NodeResourcesFit", "GangScheduling", "X"]


def _pod_group(name: str, min_count: int):
    return load_objects([{"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
                          "metadata": {"name": name, "namespace": "ns"},
                          "spec": {"schedulingPolicy": {"gang": {"minCount": min_count}}}}])[0]


def _pod(i: int, group: str | None, priority: int, gated: bool, node: str | None = None) -> Pod:
    spec: dict = {"containers": [{"name": "c"}], "priority": priority}
    if group is not None:
        spec["schedulingGroup"] = {"podGroupName": group}
    if gated:
        spec["schedulingGates"] = [{"name": "g"}]
    if node is not None:
        spec["nodeName"] = node
    return Pod.model_validate({"metadata": {"name": f"p{i}", "namespace": "ns", "uid": f"u{i}"}, "spec": spec})


class _PlainPool(UnschedulablePool):
    """The pool as it was: a moved pod is deleted (unfiled) and then stored again."""

    def move_to_end(self, key: str) -> None:
        qpi = self[key]
        del self[key]
        self[key] = qpi


def _index(pool: UnschedulablePool) -> tuple:
    order = pool._order
    return (pool._filed, pool._pod_key, pool._by_plugin, pool._by_plugin_key, pool._always,
            sorted(order, key=order.__getitem__), list(pool))


def _refiled(pool: UnschedulablePool) -> UnschedulablePool:
    fresh = UnschedulablePool(pool._tags, keys=pool._keys)
    for key, qpi in pool.items():
        fresh[key] = qpi
    return fresh


def _plain_hint(fn):
    """A keyed hint without ``by_key`` (asked pod by pod); other hints as they are."""
    return ev.KeyedHint(fn.fn, key=fn.key, object_kind=fn.object_kind) if isinstance(fn, ev.KeyedHint) else fn


class _Pair:
    """The queue keeping answers (``kept``) and the one asking pod by pod (``each``)."""

    def __init__(self, seed: int, pop_from_backoff_q: bool, narrowed: bool = True):
        self.rng = random.Random(seed)
        self.cluster = Cluster(load_objects([]))
        gang = GangScheduling.for_cluster(self.cluster)
        chain = SimpleNamespace(points={"preEnqueue": [SchedulingGates(), gang]})
        self.clock = FakeClock()
        gates = FeatureGates({"SchedulerPopFromBackoffQ": pop_from_backoff_q})

        def run(pod_info, memo=None):
            return Framework.run_pre_enqueue(chain, pod_info, memo)  # type: ignore[arg-type]

        def hints(delete_hint, gang_events):
            return {"NodeResourcesFit": [(ev.EVENT_ASSIGNED_POD_DELETE, delete_hint)],
                    "GangScheduling": gang_events,
                    "X": [(NODE_ADD, queue_hint)],
                    "SchedulingGates": list(SchedulingGates().events_to_register())}

        def asked_each_time(pod_info, old, new):  # the same hint, not marked event_only
            return fit_after_assigned_pod_delete(pod_info, old, new)

        gang_events = list(gang.events_to_register())
        assert any(isinstance(fn, ev.KeyedHint) and fn.by_key for _, fn in gang_events)
        self.kept = new_queue(self.clock, hints=hints(fit_after_assigned_pod_delete, gang_events), pre_enqueue=run,
                              gates=gates, pre_enqueue_memo=True)
        if not narrowed:
            self.kept._narrowed = lambda event, old, new: None  # type: ignore[method-assign]
        self.each = new_queue(self.clock, hints=hints(asked_each_time, [(e, _plain_hint(fn)) for e, fn in gang_events]),
                              pre_enqueue=run, gates=gates)
        pool = self.each._unschedulable
        self.each._unschedulable = _PlainPool(pool._tags, keys=pool._keys, rank=pool._rank)
        self.queues = (self.kept, self.each)
        self.next_pod = 0
        self.bound: list[Pod] = []
        self.in_flight: list[str] = []

    # -- operations ---------------------------------------------------------------------------------
    def add_pod(self):
        rng = self.rng
        group = rng.choice(GROUPS + [None])
        pod = _pod(self.next_pod, group, rng.choice([0, 0, 5, 10]), rng.random() < 0.1)
        self.next_pod += 1
        self.cluster.add(pod)
        for q in self.queues:
            q.add(info(pod))
            q.move_all_to_active_or_backoff(ev.EVENT_UNSCHEDULED_POD_ADD, None, pod)

    def add_pod_group(self):
        name = self.rng.choice(GROUPS)
        if ("ns", name) in {(g.metadata.namespace, g.metadata.name) for g in self.cluster.of_kind("PodGroup")}:
            return
        group = _pod_group(name, self.rng.choice([1, 2, 3, 4]))
        self.cluster.add(group)
        for q in self.queues:
            q.move_all_to_active_or_backoff(ev.ClusterEvent(ev.POD_GROUP, ev.ActionType.Add), None, group)

    def pop_and_fail(self):
        popped = [q.pop() for q in self.queues]
        if popped[0] is None:
            assert popped[1] is None
            return
        assert popped[0].key == popped[1].key
        plugins = set(self.rng.sample(REJECTORS, self.rng.choice([1, 1, 2])))
        pending = {"X"} if self.rng.random() < 0.1 else set()
        for q, qpi in zip(self.queues, popped):
            q.add_unschedulable_if_not_present(qpi, plugins, pending)

    def pop_and_bind(self):
        popped = [q.pop() for q in self.queues]
        if popped[0] is None:
            return
        key = popped[0].key
        assert key == popped[1].key
        for q in self.queues:
            q.done(key)
        pod = self.cluster.pods[key].model_copy(deep=True)
        pod.spec.node_name = "n1"
        self.bound.append(pod)
        self.cluster.remove_pod(key)
        for q in self.queues:
            q.assigned_pod_added(info(pod))

    def delete_bound(self):
        if not self.bound:
            return
        pod = self.bound.pop(self.rng.randrange(len(self.bound)))
        for q in self.queues:
            q.assigned_pod_deleted(info(pod))

    def delete_pending(self):
        """A pending member leaves the cluster (its gang may lose quorum) and the queue."""
        keys = [k for k in self.cluster.pods if self.kept.where(k) not in (None, "in-flight")]
        if not keys:
            return
        key = self.rng.choice(sorted(keys))
        pod = self.cluster.pods[key]
        self.cluster.remove_pod(key)
        for q in self.queues:
            q.unscheduled_pod_deleted(info(pod))

    def unbound_deleted(self):
        """An unbound pod, nominated or not, deleted: NodeResourcesFit's hint says Queue only
        for a nominated one."""
        pod = _pod(10_000 + self.next_pod, None, 0, False)
        self.next_pod += 1
        if self.rng.random() < 0.5:
            pod.status.nominated_node_name = "n1"
        for q in self.queues:
            q.move_all_to_active_or_backoff(ev.EVENT_ASSIGNED_POD_DELETE, pod, None)

    def node_added(self):
        for q in self.queues:
            q.move_all_to_active_or_backoff(NODE_ADD, None, None)

    def tick(self):
        self.clock.step(self.rng.choice([0.2, 1.0, 3.0, 12.0, 45.0, 301.0]))
        for q in self.queues:
            q.flush()

    def step(self):
        op = self.rng.choices(
            [self.add_pod, self.add_pod_group, self.pop_and_fail, self.pop_and_bind, self.delete_bound,
             self.delete_pending, self.unbound_deleted, self.node_added, self.tick],
            weights=[6, 1, 8, 2, 4, 3, 1, 1, 3])[0]
        op()

    def assert_same(self):
        kept, each = self.kept, self.each
        assert kept.history == each.history
        assert kept.pending() == each.pending()
        assert {k: q.gating_plugin for k, q in kept._unschedulable.items()} == \
            {k: q.gating_plugin for k, q in each._unschedulable.items()}
        assert _index(kept._unschedulable) == _index(_refiled(kept._unschedulable))


@pytest.mark.parametrize("narrowed", [True, False])
@pytest.mark.parametrize("pop_from_backoff_q", [True, False])
@pytest.mark.parametrize("seed", seeds(6))
def test_kept_answers_move_pods_as_asking_each_pod(seed, pop_from_backoff_q, narrowed):
    pair = _Pair(seed, pop_from_backoff_q, narrowed)
    for _ in range(400):
        pair.step()
        pair.assert_same()
    moves = pair.kept.history
    assert covered(sum(1 for m in moves if m[4] == "AssignedPodDelete") > 10)  # deletions moved pods
    assert covered(sum(1 for m in moves if m[2] == "gated" and m[3] is not None) > 5)  # gangs left PreEnqueue
    assert covered(sum(1 for m in moves if m[3] == "gated" and m[2] in ("unschedulable", "backoff")) > 0)  # quorum lost again


def _replay(seed: int, kept: bool) -> Simulation:
    trace = generate_trace(seed=seed, pods=80, arrival_rate=0.5)
    sim = Simulation(make_nodes(2), gates=TRACE_GATES, seed=seed, keep_traces=0)
    if not kept:
        sim.queue._event_only = set()
        sim.queue._pre_enqueue_memo = False
    sim.stream(arrivals(trace))
    sim.run()
    return sim


@pytest.mark.parametrize("seed", seeds(2))
def test_replay_with_kept_answers_is_the_replay_asking_each_pod(seed):
    kept, each = _replay(seed, True), _replay(seed, False)
    assert kept.queue._event_only and kept.queue._pre_enqueue_memo
    moves = kept.result().moves
    assert covered(len(moves) > 200 and (moves["event"] == "AssignedPodDelete").sum() > 20)
    assert moves.equals(each.result().moves)
    assert kept.result().pods.equals(each.result().pods)


def test_queue_without_memo_calls_pre_enqueue_with_the_pod_alone():
    calls = []
    q = new_queue(FakeClock(), pre_enqueue=lambda pod_info: calls.append(pod_info.key))
    q.add(info(_pod(1, None, 0, False)))
    assert calls == ["ns/p1"] and not SchedulingQueue.__init__.__kwdefaults__["pre_enqueue_memo"]
