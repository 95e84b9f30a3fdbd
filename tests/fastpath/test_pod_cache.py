"""What the fast path keeps of a pod between cycles never outlives the pod's spec or the path that
computed it: a pod edited in place (a notebook appending a toleration) gets the plugin path's
answer on the fast path too, and a fast path built where an old one lived (CPython reuses freed
addresses, so ``id()`` of a collected object comes back) never reads the old one's answers."""

from __future__ import annotations

import gc

from kschedlab.api.core import Node, Pod
from kschedlab.cluster import Cluster
from kschedlab.framework.types import PodInfo
from kschedlab.scheduler import Scheduler
from kschedlab.scheduler.fast_path import FastPath


def _node(name: str, cpu: str, tainted: bool) -> Node:
    spec = {"taints": [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]} if tainted else {}
    return Node.model_validate({"metadata": {"name": name}, "spec": spec,
                                "status": {"allocatable": {"cpu": cpu, "memory": "8Gi", "pods": "10"}}})


def _cluster() -> Cluster:
    pod = Pod.model_validate({"metadata": {"name": "train", "namespace": "default"},
                              "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "8"}}}],
                                       "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "gpu",
                                                        "effect": "NoSchedule"}]}})
    return Cluster([_node("gpu-1", "4", tainted=True), _node("plain-1", "4", tainted=False), pod])


def _attempts(fast: bool) -> list[tuple]:
    """The pod fits nowhere; then its toleration is removed in place (as a notebook cell would) and
    the tainted node grows: the taint, no longer tolerated, must keep it off that node."""
    cluster = _cluster()
    sched = Scheduler(cluster, seed=0, fast_path=fast)
    first = sched.schedule_one("default/train")
    cluster.pods["default/train"].spec.tolerations.clear()
    cluster.update_node(_node("gpu-1", "16", tainted=True))
    second = sched.schedule_one("default/train")
    return [(r.node, r.status.code, r.message) for r in (first, second)]


def test_a_toleration_removed_in_place_counts_on_both_paths():
    slow = _attempts(fast=False)
    assert slow[0][0] is None and slow[1][0] is None
    assert "untolerated taint" in slow[1][2]
    assert _attempts(fast=True) == slow


def test_a_new_fast_path_never_reads_a_collected_ones_answers():
    """Fast paths come and go (a Scheduler per notebook cell); one for a profile whose shapes differ
    must compute its own, wherever in memory it lands."""
    cluster = _cluster()
    info: PodInfo = cluster.pod_infos["default/train"]
    heavy = {"profiles": [{"pluginConfig": [{"name": "NodeResourcesFit", "args": {"scoringStrategy": {
        "type": "LeastAllocated", "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]}}}]}]}
    light = {"profiles": [{"pluginConfig": [{"name": "NodeResourcesFit", "args": {"scoringStrategy": {
        "type": "LeastAllocated", "resources": [{"name": "cpu", "weight": 1}]}}}]}]}
    for _ in range(20):
        for config in (heavy, light):
            sched = Scheduler(cluster, config, seed=0)
            fast: FastPath = sched.fast_paths["default-scheduler"]
            plan = fast.plan(info, cluster.snapshot)
            assert plan is not None and any(plan.shape is s for s in fast._shapes.values())
            del sched, fast, plan
            gc.collect()
