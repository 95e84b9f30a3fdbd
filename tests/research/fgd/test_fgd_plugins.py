"""GPU sharing as kschedlab plugins: the Filter, the GPUs recorded at Reserve and freed by
Unreserve or by the pod leaving, the QueueingHints, the args."""

from __future__ import annotations

import pytest

from kschedlab.cluster import Cluster
from kschedlab.framework.events import QUEUE, SKIP
from kschedlab.framework.interface import ArgsError, CycleState
from kschedlab.research.fgd.engine import EngineNode
from kschedlab.research.fgd.faithful import api_node, api_pod
from kschedlab.research.fgd.model import PodRes, TypicalPod
from kschedlab.research.fgd.plugins import GPU_INDEX, REGISTRY, OpenGpuShare, gpus_freed, node_state, profile
from kschedlab.scheduler import Scheduler


def cluster(*nodes):
    return Cluster([api_node(EngineNode(name, 32000, 65536, 110, (1000,) * gpus, model))
                    for name, gpus, model in nodes])


def schedule(c, sched, name, res):
    pod = api_pod(name, res, 1024)
    c.add(pod)
    return sched.schedule_one(f"openb/{name}"), pod


def test_sharing_accounting_through_the_scheduler():
    c = cluster(("n1", 2, "T4"))
    sched = Scheduler(c, {"percentageOfNodesToScore": 100, "profiles": [profile("BestFit")]}, registry=REGISTRY)
    r1, p1 = schedule(c, sched, "a", PodRes(1000, 600, 1))
    r2, p2 = schedule(c, sched, "b", PodRes(1000, 300, 1))
    assert r1.node == r2.node == "n1"
    assert p1.metadata.annotations[GPU_INDEX] == "0" and p2.metadata.annotations[GPU_INDEX] == "0"  # best fit
    assert node_state(c.snapshot.node_info("n1")).gpu_left == (100, 1000)
    r3, p3 = schedule(c, sched, "c", PodRes(1000, 1000, 2))     # one whole GPU left: rejected
    assert r3.node is None and "Node:n1" in r3.message and GPU_INDEX not in p3.metadata.annotations
    c.remove_pod("openb/c")
    c.remove_pod("openb/a")                                       # the pod leaves: its share is free
    assert node_state(c.snapshot.node_info("n1")).gpu_left == (700, 1000)
    r4, p4 = schedule(c, sched, "d", PodRes(1000, 1000, 1))
    assert r4.node == "n1" and p4.metadata.annotations[GPU_INDEX] == "1"


def test_model_and_gpu_count_filter():
    c = cluster(("t4", 2, "T4"), ("cpu", 0, ""), ("g2", 8, "G2"))
    sched = Scheduler(c, {"percentageOfNodesToScore": 100, "profiles": [profile("GpuPacking")]}, registry=REGISTRY)
    result, pod = schedule(c, sched, "x", PodRes(1000, 1000, 4, "T4|V100M16"))
    assert result.node is None                                    # T4 node has 2 GPUs, G2 not allowed
    result, pod = schedule(c, sched, "y", PodRes(1000, 1000, 4, "G2"))
    assert result.node == "g2" and pod.metadata.annotations[GPU_INDEX] == "0-1-2-3"
    result, _ = schedule(c, sched, "z", PodRes(1000))             # CPU pods pass the GPU filter anywhere
    assert result.node is not None


def test_unreserve_forgets_the_gpus():
    c = cluster(("n1", 2, "T4"))
    sched = Scheduler(c, {"profiles": [profile("FGD", [TypicalPod(PodRes(1000, 500, 1), 1.0)])]}, registry=REGISTRY)
    plugin = sched.profiles["default-scheduler"].plugins["OpenGpuShare"]
    pod = api_pod("p", PodRes(1000, 500, 1), 1024)
    c.add(pod)
    info = c.pod_infos["openb/p"]
    assert plugin.reserve(CycleState(), info, "n1").is_success()
    assert pod.metadata.annotations[GPU_INDEX] in ("0", "1")
    plugin.unreserve(CycleState(), info, "n1")
    assert GPU_INDEX not in pod.metadata.annotations


def test_hint_queues_only_for_a_freed_gpu():
    gpu_pod = api_pod("w", PodRes(1000, 500, 1), 1024)
    waiting = Cluster([gpu_pod]).pod_infos["openb/w"]
    holder = api_pod("h", PodRes(1000, 500, 1), 1024)
    holder.metadata.annotations[GPU_INDEX] = "0"
    cpu_only = api_pod("c", PodRes(1000), 1024)
    assert gpus_freed(waiting, holder, None) == QUEUE
    assert gpus_freed(waiting, cpu_only, None) == SKIP
    events = [e for e, _ in REGISTRY["OpenGpuShare"].build({}, None).events_to_register()]
    assert [e.resource for e in events] == ["AssignedPod", "Node"]


def test_args_are_checked():
    with pytest.raises(ArgsError, match="gpuSelMethod"):
        OpenGpuShare.build({"gpuSelMethod": "worst"})
    with pytest.raises(ArgsError, match="typicalPods"):
        OpenGpuShare.build({"gpuSelMethod": "FGD"})
    with pytest.raises(ArgsError, match="typicalPods"):
        REGISTRY["FGDScore"].build({})
    with pytest.raises(ArgsError, match=r"typicalPods\[0\]"):
        REGISTRY["FGDScore"].build({"typicalPods": [{"milliCpu": 1}]})
