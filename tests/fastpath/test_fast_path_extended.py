"""Pods asking for an extended resource (``nvidia.com/gpu``, as the trace replay's pods do) on the fused
fast path against the plugin-by-plugin path: while no DeviceClass serves the resource it is one more
column of the snapshot (NodeResourcesFit checks it, DynamicResources skips the pod), so the fast path
takes the pod; once a DeviceClass names it in ``extendedResourceName`` (DRAExtendedResource), the pod
is DynamicResources' work and takes the plugin-by-plugin path.
"""

from __future__ import annotations

import random

import pytest

from kschedlab.api.core import Node, Pod
from kschedlab.api.loader import load_text
from kschedlab.cluster import Cluster
from kschedlab.scheduler import Scheduler
from tests.fastpath.test_fast_path import same_attempt
from tests.seeds import seeds

GPU = "nvidia.com/gpu"


def gpu_cluster(seed: int, *, unique: bool = False) -> tuple[Cluster, list[str]]:
    """Nodes with 0, 4 or 8 GPUs (some without the resource at all), some GPUs in use, and pending
    pods asking for 0 to 8 GPUs (a few more than any node holds: PostFilter runs); ``unique``:
    every pending pod asks for its own cpu (as a job trace's pods do: no shape is seen twice)."""
    rng = random.Random(seed)
    nodes = []
    for i in range(40):
        alloc = {"cpu": rng.choice(["8", "16", "32"]), "memory": rng.choice(["16Gi", "64Gi"]), "pods": "110"}
        gpus = rng.choice([None, "0", "4", "8"])
        if gpus is not None:
            alloc[GPU] = gpus
        nodes.append(Node.model_validate({"metadata": {"name": f"node-{i:02d}"},
                                          "status": {"allocatable": alloc, "capacity": dict(alloc)}}))
    cluster = Cluster(nodes)
    with_gpus = [n.metadata.name for n in nodes if str(n.status.allocatable.get(GPU, "0")) != "0"]
    for i in range(30):
        cluster.add(gpu_pod(f"placed-{i:02d}", rng, node=rng.choice(with_gpus)))
    pending = []
    for i in range(80):
        pod = gpu_pod(f"p-{i:02d}", rng, gpus=rng.choice([0, 1, 1, 2, 4, 8, 9]), cpu=f"{1000 + i}m" if unique else None)
        cluster.add(pod)
        pending.append(f"default/{pod.metadata.name}")
    return cluster, pending


def gpu_pod(name: str, rng: random.Random, *, gpus: int = 1, node: str | None = None, cpu: str | None = None) -> Pod:
    requests = {"cpu": rng.choice(["500m", "2", "4"]), "memory": rng.choice(["1Gi", "8Gi"])}
    if cpu is not None:
        requests["cpu"] = cpu
    resources: dict = {"requests": requests}
    if gpus:
        requests[GPU] = str(gpus)
        resources["limits"] = {GPU: str(gpus)}
    spec: dict = {"containers": [{"name": "c", "resources": resources}], "priority": rng.choice([0, 100])}
    if node is not None:
        spec["nodeName"] = node
    return Pod.model_validate({"metadata": {"name": name, "namespace": "default"}, "spec": spec})


@pytest.mark.parametrize("seed", seeds(4))
def test_gpu_pods_take_the_fast_path_with_the_same_outcome(seed, fused_pre_filter_calls):
    taken = fused_pre_filter_calls.keys
    results = []
    for fast in (True, False):
        cluster, pending = gpu_cluster(seed)
        gpus = {key: cluster.pod_infos[key].requests.get(GPU, 0) for key in pending}
        sched = Scheduler(cluster, seed=seed, fast_path=fast)
        results.append([sched.schedule_one(key) for key in pending])
    for a, b in zip(*results):
        same_attempt(a, b)
    # (until a preemption nominates a pod: then every pod takes the plugin-by-plugin path)
    assert sum(bool(gpus[key]) for key in taken) >= 3
    assert any(r.node is None for r in results[0]) and any(r.node is not None for r in results[0])


@pytest.mark.parametrize("unique", [False, True])
def test_run_loop_with_gpu_pods_same_on_both_paths(unique):
    """The whole loop (retries, preemption of priority-0 GPU pods) places the same pods; with a
    request per pod the fast path reads the nodes it visits alone (no answers kept)."""
    out = []
    for fast in (True, False):
        cluster, _ = gpu_cluster(7, unique=unique)
        result = Scheduler(cluster, seed=7, fast_path=fast).run()
        out.append([(r.pod, r.node, r.message) for r in result])
        out.append({k: p.spec.node_name for k, p in cluster.pods.items()})
    assert out[0] == out[2] and out[1] == out[3]
    assert any("Insufficient nvidia.com/gpu" in (message or "") for _, _, message in out[0])


DEVICE_CLASS = """
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec: {extendedResourceName: nvidia.com/gpu}
"""


def test_a_device_class_serving_the_resource_sends_the_pod_to_the_plugins():
    cluster, pending = gpu_cluster(1)
    sched = Scheduler(cluster, seed=1)
    fast = sched.fast_paths["default-scheduler"]
    gpu_pod_key = next(k for k in pending if int(cluster.pod_infos[k].requests.get(GPU, 0)))
    cpu_pod_key = next(k for k in pending if not cluster.pod_infos[k].requests.get(GPU, 0))
    assert fast.plan(cluster.pod_infos[gpu_pod_key], cluster.snapshot) is not None
    cluster.add(load_text(DEVICE_CLASS)[0])
    assert fast.plan(cluster.pod_infos[gpu_pod_key], cluster.snapshot) is None
    assert fast.plan(cluster.pod_infos[cpu_pod_key], cluster.snapshot) is not None
    results = [[sched.schedule_one(key) for key in pending]]
    cluster, pending = gpu_cluster(1)
    cluster.add(load_text(DEVICE_CLASS)[0])
    slow = Scheduler(cluster, seed=1, fast_path=False)
    results.append([slow.schedule_one(key) for key in pending])
    for a, b in zip(*results):
        same_attempt(a, b)
