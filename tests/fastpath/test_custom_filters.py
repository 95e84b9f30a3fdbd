"""PreFilter, Filter and PreScore plugins of one's own on the fused fast path: the path keeps
answering the in-tree plugins and calls the custom ones in every cycle as the framework does (their
PreFilter in the profile's order, their Filter on the nodes the framework would hand them, their
PreScore and Score), so every attempt reads as on the plugin-by-plugin path. Checked attempt by
attempt on the random clusters of ``test_affinity_groups`` (node labels, taints, node and pod
deletions, pods marked terminating, preemption and nominations), with pod (anti-)affinity and
spread constraints running live beside them."""

from __future__ import annotations

import random

import numpy as np
import pytest

from kschedlab.api.core import Pod, Service
from kschedlab.cluster import Cluster
from kschedlab.framework.interface import Plugin, PreFilterResult, Verdicts
from kschedlab.framework.runtime import FrameworkError
from kschedlab.framework.status import Code, Status
from kschedlab.scheduler import Scheduler
from tests.fastpath.test_affinity_groups import ZONE, ZONES, mutate, node, pod
from tests.fastpath.test_fast_path import same_attempt
from tests.seeds import covered, seeds

_STATE = "ZoneGate/state"


class ZoneGate(Plugin):
    """PreFilter + Filter, per node: a web pod refuses the zone its PreFilter picked (from the
    pod's name); a cache pod makes the PreFilter answer Skip (so its Filter is skipped); a pod whose
    name ends in 7 is refused at PreFilter; one ending in 3 is limited to two nodes by name."""

    name = "ZoneGate"

    def pre_filter(self, state, pod_info, snapshot):
        labels = pod_info.pod.metadata.labels
        name = pod_info.pod.metadata.name
        if labels.get("app") == "cache":
            return None, Status.skip()
        if name.endswith("7"):
            return None, Status.unschedulable("the gate is closed")
        state[_STATE] = ZONES[int(name[-2:]) % 3] if labels.get("app") == "web" else None
        if name.endswith("3"):
            return PreFilterResult(frozenset({"n01", "n05"})), Status()
        return None, Status()

    def filter(self, state, pod_info, node_info):
        refused = state.get(_STATE)
        if refused is not None and node_info.node.metadata.labels.get(ZONE) == refused:
            return Status.unschedulable(f"node(s) in zone {refused} refuse web pods")
        return Status()


class RoomyNodes(Plugin):
    """Filter only, all nodes at once: a node with four pods or more is full for this plugin."""

    name = "RoomyNodes"

    def filter_nodes(self, state, pod_info, snapshot, rows):
        return Verdicts.from_mask(snapshot.pod_count.take(rows) >= 4, Code.Unschedulable,
                                  ("node(s) had four pods or more",))


class Quiet(Plugin):
    """PreScore + Score: skips db pods; otherwise prefers nodes whose name sorts late."""

    name = "Quiet"

    def pre_score(self, state, pod_info, snapshot, rows):
        if pod_info.pod.metadata.labels.get("app") == "db":
            return Status.skip()
        state["Quiet/base"] = 40
        return Status()

    def score_nodes(self, state, pod_info, snapshot, rows):
        return state["Quiet/base"] + np.asarray(rows, np.int64) % 7 * 5


REGISTRY = {cls.name: cls for cls in (ZoneGate, RoomyNodes, Quiet)}


def config(*names: str) -> dict:
    return {"profiles": [{"plugins": {"multiPoint": {"enabled": [{"name": n, "weight": 2} for n in names]}}}]}


def run(seed: int, names: tuple[str, ...], fast: bool) -> list:
    rng = random.Random(seed)
    cluster = Cluster([node(i, ZONES[i % 3] if i % 7 else None, taint=i % 5 == 0) for i in range(24)])
    if seed % 2:
        cluster.add(Service.model_validate({"metadata": {"name": "svc", "namespace": "default"},
                                            "spec": {"selector": {"app": "db"}}}))
    sched = Scheduler(cluster, config(*names), seed=seed, registry=REGISTRY, fast_path=fast)
    assert (sched.fast_paths["default-scheduler"] is not None) == fast
    results = []
    for step in range(70):
        key = f"default/p{step:03d}"
        cluster.add(pod(f"p{step:03d}", rng, priority=rng.choice([0, 0, 0, 100])))
        results.append(sched.schedule_one(key))
        status = cluster.pods[key].status if key in cluster.pods else None
        if results[-1].node is None and status is not None and status.nominated_node_name:
            results.append(sched.schedule_one(key))
        mutate(cluster, rng, step)
    return results


@pytest.mark.parametrize("seed", seeds(5))
@pytest.mark.parametrize("names", [("ZoneGate",), ("RoomyNodes",), ("ZoneGate", "RoomyNodes", "Quiet")])
def test_custom_filters_same_on_both_paths(seed, names, monkeypatch):
    from kschedlab.scheduler.fast_path import FastPath

    planned = []
    plan = FastPath.plan
    monkeypatch.setattr(FastPath, "plan", lambda self, info, snap: (
        planned.append(p := plan(self, info, snap)), p)[1])
    fast, slow = run(seed, names, True), run(seed, names, False)
    assert len(fast) == len(slow)
    for a, b in zip(fast, slow):
        same_attempt(a, b)
    # (a pod nominated by preemption and then refused stays nominated: every pod takes the
    # plugin-by-plugin path while it does)
    assert sum(p is not None for p in planned) > len(fast) // 5
    refused = {reason for r in fast if r.trace is not None and r.trace.filter is not None
               for s in r.trace.filter_statuses().values() for reason in s.reasons}
    if "RoomyNodes" in names:
        assert covered("node(s) had four pods or more" in refused)
    if "ZoneGate" in names:
        assert any(reason.endswith("refuse web pods") for reason in refused)
        assert any(r.trace is not None and r.trace.prefilter_nodes for r in fast)


class BrokenFilter(RoomyNodes):
    name = "BrokenFilter"

    def filter_nodes(self, state, pod_info, snapshot, rows):
        codes = np.where(np.asarray(rows) % 4 == 1, np.int8(Code.Error), np.int8(0))
        return Verdicts(codes.astype(np.int8), np.where(codes != 0, 0, -1).astype(np.int32), [("boom",)])


def test_a_custom_filter_error_is_raised_as_by_the_framework():
    errors = []
    for fast in (True, False):
        cluster = Cluster([node(i, ZONES[i % 3]) for i in range(8)])
        cluster.add(pod("p", random.Random(3)))
        sched = Scheduler(cluster, config("BrokenFilter"), registry={"BrokenFilter": BrokenFilter},
                          fast_path=fast)
        try:
            errors.append(sched.schedule_one("default/p").message)
        except FrameworkError as err:
            errors.append(str(err))
    assert errors[0] == errors[1] and "boom" in errors[0]


def test_a_custom_plugin_under_an_in_tree_name_keeps_the_plugin_by_plugin_path():
    from kschedlab.plugins.node_resources_fit import NodeResourcesFit

    class MyFit(NodeResourcesFit):
        pass

    cluster = Cluster([node(i, ZONES[i % 3]) for i in range(4)])
    assert Scheduler(cluster, registry={"NodeResourcesFit": MyFit}).fast_paths["default-scheduler"] is None
    assert Scheduler(cluster, config("ZoneGate"), registry=REGISTRY).fast_paths["default-scheduler"] is not None


@pytest.mark.parametrize("seed", seeds(3))
def test_each_prefilter_is_called_once_a_cycle(seed, monkeypatch):
    """Upstream calls PreFilter once a scheduling cycle: the fast path too, also when the cycle finds
    no node (PostFilter then reads the live plugins' data from that one call) or when a live plugin's
    answer sends the cycle to the framework's PreFilter. Counted per pod on both paths."""
    from collections import Counter

    from kschedlab.plugins.inter_pod_affinity import InterPodAffinity

    calls: dict[bool, Counter] = {}
    for fast in (True, False):
        counted = calls[fast] = Counter()
        for cls in (ZoneGate, InterPodAffinity):
            monkeypatch.setattr(cls, "pre_filter", lambda self, state, info, snap, _f=cls.pre_filter, _c=counted: (
                _c.update([(self.name, info.key)]), _f(self, state, info, snap))[1])
        results = run(seed, ("ZoneGate", "RoomyNodes"), fast)
        monkeypatch.undo()
        if fast:
            failed = [r for r in results if r.node is None and r.trace is not None and r.trace.filter is not None]
            assert failed
    # the custom plugin is called in every cycle; an in-tree one whose answer is fused may not be
    assert Counter({k: n for k, n in calls[True].items() if k[0] == "ZoneGate"}) == \
        Counter({k: n for k, n in calls[False].items() if k[0] == "ZoneGate"})
    assert all(n <= calls[False][k] for k, n in calls[True].items())
    assert any(k[0] == "InterPodAffinity" for k in calls[True])


class Counting(Plugin):
    """Filter per node, counting the nodes it is asked about; it refuses none."""

    name = "Counting"
    asked = 0

    def filter(self, state, pod_info, node_info):
        Counting.asked += 1
        return Status()


@pytest.mark.parametrize("fast_path", [True, False])
def test_a_per_node_filter_is_asked_about_the_nodes_upstream_asks_about(fast_path):
    """Where every node is feasible, upstream's search with one worker asks each Filter plugin about
    the ``numFeasibleNodesToFind`` nodes it keeps and the one after, which stops it; on both paths
    a plugin written per node is asked about the same nodes, no more (the chunk is sized to them).
    300 nodes: 144 sought (48 %), 145 asked, for each of three pods."""
    cluster = Cluster([node(i, ZONES[i % 3]) for i in range(300)])
    sched = Scheduler(cluster, config("Counting"), seed=0, registry={"Counting": Counting}, fast_path=fast_path)
    for step in range(3):
        cluster.add(Pod.model_validate({"metadata": {"name": f"p{step:03d}", "namespace": "default"}, "spec": {
            "containers": [{"name": "c", "resources": {"requests": {"cpu": "100m"}}}]}}))
        Counting.asked = 0
        trace = sched.schedule_one(f"default/p{step:03d}").trace
        assert (trace.num_to_find, trace.evaluated_nodes, Counting.asked) == (144, 144, 145)
