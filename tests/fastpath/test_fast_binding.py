"""The fused binding cycle (kschedlab.scheduler.fast_binding) and the kept score totals
(kschedlab.scheduler.kept_scores) against the plugin-by-plugin path.

Every observable effect must be the same: the pod objects (spec.nodeName, the topology labels
the binding admission copies, status, PodScheduled condition, nominatedNodeName), the snapshot's
accounting, the nominator, the per-attempt results and traces (steps, statuses, scores), the
scheduling loop's report and history (queue moves follow the same binds).
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from kschedlab.api.core import Node, Pod
from kschedlab.cluster import Cluster
from kschedlab.framework.interface import CycleState
from kschedlab.scheduler import Scheduler
from kschedlab.scheduler.fast_binding import FastBinding
from kschedlab.scheduler.kept_scores import KeptScoreOutcome, ScoreTotals
from tests.seeds import seeds

from .test_fast_path import FAST_KINDS, build, make_node, same_attempt


def pods_dump(cluster: Cluster) -> dict:
    """Every pod in full, and as stored (the fields set)."""
    return {key: (pod.model_dump(mode="json", by_alias=True), pod.model_dump(mode="json", by_alias=True,
                                                                            exclude_unset=True))
            for key, pod in cluster.pods.items()}


def snapshot_state(cluster: Cluster) -> dict:
    """The snapshot's accounting and where each pod is, and the nominations."""
    snap = cluster.snapshot
    return {"requested": snap.requested.tolist(), "free": snap.free.tolist(), "non_zero": snap.non_zero.tolist(),
            "pod_count": snap.pod_count.tolist(), "pod_row": dict(snap.pod_row),
            "pods": [[p.key for p in pods] for pods in snap.pods],
            "nominated": {node: [p.key for p in pods] for node, pods in cluster.nominator.nominated_pods_by_node().items()}}


def counting(monkeypatch) -> list:
    """The pods that took the fused binding cycle (recorded while still calling it)."""
    taken = []
    original = FastBinding.reserve_to_bind
    monkeypatch.setattr(FastBinding, "reserve_to_bind", lambda self, state, info, node, trace: (
        taken.append(info.key), original(self, state, info, node, trace))[1])
    return taken


@pytest.mark.parametrize("seed", seeds(6))
def test_schedule_one_binds_alike(seed, monkeypatch):
    """Pods of every kind, one attempt each: the same results, pods, snapshot and nominations
    (the huge pods preempt: the nominator and victims are compared too)."""
    taken = counting(monkeypatch)
    out = []
    for fast in (True, False):
        cluster, pending = build(seed, taints=seed % 2 == 0, images=seed % 3 == 0, service=seed % 2 == 1)
        sched = Scheduler(cluster, seed=seed, fast_path=fast)
        out.append(([sched.schedule_one(key) for key in pending], pods_dump(cluster), snapshot_state(cluster)))
    (results, pods, snap), (results_slow, pods_slow, snap_slow) = out
    for a, b in zip(results, results_slow):
        same_attempt(a, b)
    assert pods == pods_slow
    assert snap == snap_slow
    bound = [r.pod for r in results if r.node is not None]
    assert bound and set(taken) <= set(bound) and len(taken) == len(bound)  # every bind fused (no claims here)


@pytest.mark.parametrize("seed", seeds(3))
def test_run_loop_binds_alike(seed, monkeypatch):
    """The scheduling loop (queue, retries, preemption) reports and records the same."""
    taken = counting(monkeypatch)
    out = []
    for fast in (True, False):
        cluster, pending = build(200 + seed, nodes=30, placed=60)
        for i, key in enumerate(pending[::4]):
            cluster.pods[key].spec.priority = 500 + i
            cluster.pod_infos[key].priority = 500 + i
        run = Scheduler(cluster, seed=seed, fast_path=fast).run()
        out.append((run.to_dict(), [(r.pod, r.node, r.message, r.status) for r in run.history], pods_dump(cluster),
                    snapshot_state(cluster)))
    assert out[0] == out[1]
    assert taken


def test_nominated_pod_binds_alike():
    """A pod nominated elsewhere binds on another node: nominatedNodeName is cleared the same way."""
    out = []
    for fast in (True, False):
        cluster = Cluster([make_node(i, random.Random(i), taints=False, images=False, lacking=False)
                           for i in range(3)])
        cluster.add(Pod.model_validate({"metadata": {"name": "p", "namespace": "default"},
                                        "spec": {"containers": [{"name": "c"}]}}))
        cluster.nominate("default/p", "node-001")
        sched = Scheduler(cluster, fast_path=fast)
        result = sched.schedule_one("default/p")
        out.append((result.node, result.trace.steps, pods_dump(cluster), snapshot_state(cluster)))
    assert out[0] == out[1]
    full, _ = out[0][2]["default/p"]
    assert full["spec"]["nodeName"] == out[0][0]
    assert full["status"]["nominatedNodeName"] is None
    assert [c["type"] for c in full["status"]["conditions"]] == ["PodScheduled"]


def test_steps_are_the_plugins_steps():
    """The recorded steps equal, status for status, the framework's own Reserve..Bind answers."""
    cluster, pending = build(3, nodes=10, placed=0, kinds=("plain",))
    sched = Scheduler(cluster)
    fw = sched.profiles["default-scheduler"]
    fused = sched.fast_bindings["default-scheduler"]
    state, info = CycleState(), cluster.pod_infos[pending[0]]
    node = "node-000"
    cluster.snapshot.add_pod(info, node)
    fw.plugins["VolumeBinding"].pre_filter(state, info, cluster.snapshot)  # its Reserve reads PreFilter's state
    reserve = fw.run_reserve(state, info, node)
    permit, _ = fw.run_permit(state, info, node)
    pre_bind = fw.run_pre_bind(state, info, node)
    bind = fw.run_bind(state, info, node)
    assert list(fused.steps) == [("Reserve", reserve.plugin or "", reserve), ("Permit", permit.plugin or "", permit),
                                 ("PreBind", pre_bind.plugin or "", pre_bind), ("Bind", bind.plugin or "", bind)]


def test_profiles_and_pods_outside_the_fused_binding():
    """A Permit plugin (GangScheduling with GenericWorkload), another binder, DynamicResources state."""
    cluster, _ = build(0, nodes=4, placed=0)
    assert Scheduler(cluster, gates={"GenericWorkload": True}).fast_bindings["default-scheduler"] is None
    assert Scheduler(cluster, fast_path=False).fast_bindings["default-scheduler"] is None
    fused = Scheduler(cluster).fast_bindings["default-scheduler"]
    assert fused.applies(CycleState())
    from kschedlab.plugins.dynamic_resources import DRAState

    state = CycleState()
    state["DynamicResources"] = DRAState()
    assert fused.applies(state)  # gathered no claim
    state["DynamicResources"].claims = [{"metadata": {"name": "c"}}]
    assert not fused.applies(state)


def same_score_arrays(a, b) -> None:
    """Two ScoreOutcomes hold equal arrays (values, dtypes, shapes)."""
    for name in ("rows", "raw", "normalized", "weights", "weighted", "total"):
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and x.shape == y.shape and np.array_equal(x, y), name
    assert a.plugins == b.plugins


@pytest.mark.parametrize("lacking", [False, True])
def test_score_totals_same_on_both_paths(lacking):
    """No taint, no image anywhere: the cycle's totals are read from the kept ones and its
    matrices built when read; nodes resized, cordoned, added between pods (the totals grow);
    nodes without memory fall back."""
    results = []
    for fast in (True, False):
        cluster, pending = build(31, nodes=50, placed=40, taints=False, images=False, lacking=lacking,
                                 kinds=FAST_KINDS, uniform=True)
        sched = Scheduler(cluster, seed=7, fast_path=fast)
        rng = random.Random(9)
        out = []
        for i, key in enumerate(pending):
            if i % 9 == 4:
                name = rng.choice(sorted(cluster.nodes))
                data = cluster.nodes[name].model_dump(mode="json", by_alias=True, exclude_unset=True)
                if rng.random() < 0.5:
                    data["status"]["allocatable"] = {**data["status"]["allocatable"], "cpu": rng.choice(["1", "16"])}
                else:
                    data.setdefault("spec", {})["unschedulable"] = not data.get("spec", {}).get("unschedulable")
                cluster.update_node(Node.model_validate(data))
            if i % 13 == 6:
                cluster.add(make_node(200 + i, rng, taints=False, images=False, lacking=lacking))
            out.append(sched.schedule_one(key))
        results.append(out)
    kept = 0
    for a, b in zip(*results):
        same_attempt(a, b)
        if a.trace is not None and a.trace.score is not None:
            kept += isinstance(a.trace.score, KeptScoreOutcome)
            same_score_arrays(a.trace.score, b.trace.score)
    assert kept  # the totals served cycles


def test_bench_pods_bind_alike():
    """SchedulingBasic's shape, smaller: same placements, traces, pods and snapshot."""
    from kschedlab.scheduler_perf import make_nodes, make_pods

    out = []
    for fast in (True, False):
        cluster = Cluster(make_nodes(300))
        sched = Scheduler(cluster, seed=0, fast_path=fast)
        for pod in make_pods(200, "init"):
            cluster.add(pod)
        sched.run()
        for pod in make_pods(600, "pod"):
            cluster.add(pod)
        results = [sched.schedule_one(f"default/pod-{i:05d}") for i in range(600)]
        out.append((results, pods_dump(cluster), snapshot_state(cluster)))
    for a, b in zip(out[0][0], out[1][0]):
        same_attempt(a, b)
        if a.trace is not None:
            assert isinstance(a.trace.score, KeptScoreOutcome)
            same_score_arrays(a.trace.score, b.trace.score)
    assert out[0][1:] == out[1][1:]


def test_score_totals_out_of_range_turn_off():
    """A kept score outside the node score range marks the totals unusable (the plugins then
    report it as upstream does)."""
    t = ScoreTotals(np.zeros(2, np.int64), np.zeros(2, np.int64), 0, 1, np.ones(2, np.int64), 3)
    t.set(np.array([0, 1]), np.array([10, 20]), np.array([50, 60]))
    assert t.in_range and t.total.tolist() == [60, 80, 0]
    t.set(np.array([2]), np.array([-1]), np.array([0]))  # a node lacking cpu or memory: left out
    assert t.in_range and t.total.tolist() == [60, 80, 0]
    t.set_one(2, 101, 50)
    assert not t.in_range
