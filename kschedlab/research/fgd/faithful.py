"""The FGD experiment through kschedlab's own :class:`~kschedlab.scheduler.Scheduler`: API Nodes
and Pods, the plugins of :mod:`kschedlab.research.fgd.plugins` in a profile where only the policy
scores, ``percentageOfNodesToScore: 100``, one scheduling cycle per arriving pod. It is the
reference the vectorized :class:`~kschedlab.research.fgd.engine.Engine` is checked against (same
placements, same GPUs); it takes about a millisecond per pod and node, so it serves small traces.

Tie-break ``"name"``: with every node scored, the feasible nodes come in the snapshot's order,
which is the order the nodes were added — name order here — so the experiment gives the Scheduler
a draw that always takes the first of the tied nodes (:class:`FirstOfTies`). ``"random"`` keeps the
Scheduler's own ``random.Random(seed)`` draw.

>>> from kschedlab.research.fgd.openb import sample_frames
>>> nodes, pods = sample_frames(seed=2, nodes=4, pods=10)
>>> result = run_scheduler(nodes, pods, "BestFit", seed=42)
>>> result.pods == len(result.arrived), result.gpus == int(nodes.gpu.sum())
(True, True)
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from kschedlab.research.fgd.experiment import DEFAULT_INFLATE, Result, prepare, record_fragmentation
from kschedlab.research.fgd.model import access_rows, frag_scores, gpu_matrix
from kschedlab.research.fgd.plugins import GPU_COUNT, GPU_INDEX, GPU_MILLI, GPU_MODEL, REGISTRY, node_state, profile

__all__ = ["FirstOfTies", "run_scheduler", "api_node", "api_pod"]

NAMESPACE = "openb"


class FirstOfTies:
    """A stand-in for the Scheduler's tie draw that always takes the first tied node."""

    def randrange(self, n: int) -> int:
        return 0


def api_node(node):
    """An :class:`~kschedlab.research.fgd.engine.EngineNode` as an API Node."""
    from kschedlab.api.core import Node

    allocatable = {"cpu": f"{node.cpu}m", "memory": f"{node.memory}Mi", "pods": str(node.pods),
                   GPU_COUNT: str(len(node.gpus))}
    labels = {"kubernetes.io/hostname": node.name}
    if node.model:
        labels[GPU_MODEL] = node.model
    return Node.model_validate({
        "apiVersion": "v1", "kind": "Node", "metadata": {"name": node.name, "labels": labels},
        "status": {"capacity": dict(allocatable), "allocatable": dict(allocatable),
                   "conditions": [{"type": "Ready", "status": "True"}], "phase": "Running"}})


def api_pod(name: str, res, memory: int):
    """A pod of the trace as an admitted API Pod with the GPU-sharing annotations."""
    from kschedlab.api.core import Pod
    from kschedlab.apiserver.admission import admit_pod

    annotations = {}
    if res.gpu_number:
        annotations = {GPU_MILLI: str(res.milli_gpu), GPU_COUNT: str(res.gpu_number)}
        if res.gpu_type:
            annotations[GPU_MODEL] = res.gpu_type
    return admit_pod(Pod.model_validate({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": NAMESPACE, "annotations": annotations},
        "spec": {"containers": [{"name": "task", "image": "registry.k8s.io/pause:3.10",
                                 "resources": {"requests": {"cpu": f"{res.milli_cpu}m",
                                                            "memory": f"{memory}Mi"}}}]}}))


def run_scheduler(nodes: pd.DataFrame, pods: pd.DataFrame, policy: str, seed: int, *, tie_break: str = "name",
                  ratio: float = DEFAULT_INFLATE) -> Result:
    """One run of the experiment on kschedlab's Scheduler (placements kept in the result)."""
    from kschedlab.cluster import Cluster
    from kschedlab.scheduler import Scheduler

    if tie_break not in ("name", "random"):
        raise ValueError(f"tie_break: {tie_break!r} is not one of random, name")
    start = time.perf_counter()
    work = prepare(nodes, pods, seed, ratio)
    cluster = Cluster([api_node(n) for n in sorted(work.nodes, key=lambda n: n.name)])
    config = {"percentageOfNodesToScore": 100, "profiles": [profile(policy, work.typical)]}
    sched = Scheduler(cluster, config, seed=seed, registry=REGISTRY)
    if tie_break == "name":
        sched.rng = FirstOfTies()
    gpus = sum(len(n.gpus) for n in work.nodes)
    arrived = np.zeros(len(work.pods), np.int64)
    used = np.zeros(len(work.pods), np.int64)
    total = allocated = failed = 0
    reached = -1
    frag: dict[int, float] = {}

    def measure() -> float:
        states = [node_state(info) for info in cluster.snapshot.node_infos()]
        return float(frag_scores(np.array([s.cpu_left for s in states]), gpu_matrix([s.gpu_left for s in states]),
                                 access_rows([s.gpu_type for s in states], work.typical), work.typical).sum())

    placements: dict[str, tuple[str, tuple[int, ...]]] = {}
    for i, (name, res, memory) in enumerate(work.pods):
        pod = api_pod(name, res, memory)
        cluster.add(pod)
        total += res.total_milli_gpu
        result = sched.schedule_one(f"{NAMESPACE}/{name}")
        if result.node is None:
            failed += 1
            cluster.remove_pod(f"{NAMESPACE}/{name}")
        else:
            index = (pod.metadata.annotations or {}).get(GPU_INDEX, "")
            got = tuple(int(g) for g in index.split("-")) if index else ()
            allocated += res.milli_gpu * len(got)
            placements[name] = (result.node, got)
        arrived[i], used[i] = total, allocated
        reached = record_fragmentation(frag, reached, total, gpus, measure)
    return Result(policy, seed, tie_break, gpus, arrived, used, failed, time.perf_counter() - start, frag,
                  placements)
