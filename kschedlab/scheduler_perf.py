"""Throughput workloads shaped like upstream's scheduler_perf (test/integration/scheduler_perf).

``SchedulingBasic``: nodes from ``node-default.yaml`` (4 CPU, 32Gi, 110 pods),
``init_pods`` pods placed first, then ``measure_pods`` pods from
``pod-default.yaml`` (100m CPU, 500Mi) scheduled with the default profile and
timed.

>>> r = run_workload("SchedulingBasic", nodes=20, init_pods=10, measure_pods=30)
>>> r["pods"], r["scheduled"]
(30, 30)
"""

from __future__ import annotations

import resource
import sys
import time

from kschedlab.api.core import Node, Pod
from kschedlab.cluster import Cluster
from kschedlab.scheduler import Scheduler

NODE_DEFAULT = {
    "apiVersion": "v1", "kind": "Node",
    "metadata": {"name": "scheduler-perf-"},
    "status": {"capacity": {"pods": "110", "cpu": "4", "memory": "32Gi"},
               "allocatable": {"pods": "110", "cpu": "4", "memory": "32Gi"},
               "conditions": [{"status": "True", "type": "Ready"}], "phase": "Running"},
}
POD_DEFAULT = {
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "pod-", "namespace": "default"},
    "spec": {"schedulerName": "default-scheduler", "containers": [{
        "image": "registry.k8s.io/pause:3.10", "name": "pause", "ports": [{"containerPort": 80}],
        "resources": {"limits": {"cpu": "100m", "memory": "500Mi"},
                      "requests": {"cpu": "100m", "memory": "500Mi"}}}]},
}

WORKLOADS = {"SchedulingBasic": {"nodes": 5000, "init_pods": 1000, "measure_pods": 10000}}


def _named(template: dict, model, name: str, namespace: str | None = None):
    obj = model.model_validate(template)
    obj.metadata.name = name
    return obj


def make_nodes(count: int) -> list:
    return [_named(NODE_DEFAULT, Node, f"scheduler-perf-{i:05d}") for i in range(count)]


def make_pods(count: int, prefix: str) -> list:
    return [_named(POD_DEFAULT, Pod, f"{prefix}-{i:05d}") for i in range(count)]


def peak_rss_mb() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return usage / (1024 * 1024) if sys.platform == "darwin" else usage / 1024


def run_workload(name: str = "SchedulingBasic", *, nodes: int | None = None, init_pods: int | None = None,
                 measure_pods: int | None = None, keep_traces: int | None = 1000, seed: int = 0,
                 progress: bool = False) -> dict:
    """Build the workload, schedule the init pods, then time the measured pods."""
    if name not in WORKLOADS:
        raise ValueError(f"unknown workload {name!r}; known: {', '.join(WORKLOADS)}")
    params = dict(WORKLOADS[name])
    for key, value in (("nodes", nodes), ("init_pods", init_pods), ("measure_pods", measure_pods)):
        if value is not None:
            params[key] = value
    cluster = Cluster(make_nodes(params["nodes"]))
    scheduler = Scheduler(cluster, seed=seed, keep_traces=keep_traces)
    for pod in make_pods(params["init_pods"], "init"):
        cluster.add(pod)
    scheduler.run()
    measured = make_pods(params["measure_pods"], "pod")
    for pod in measured:
        cluster.add(pod)
    keys = [f"default/{p.metadata.name}" for p in measured]
    queue = scheduler.queue(keys)
    if progress:
        from tqdm.auto import tqdm

        queue = tqdm(queue, desc=name, unit="pod")
    start = time.perf_counter()
    results = [scheduler.schedule_one(q.pod_info.key) for q in queue]
    elapsed = time.perf_counter() - start
    return {
        "workload": name,
        "nodes": params["nodes"],
        "init_pods": params["init_pods"],
        "pods": len(results),
        "scheduled": sum(r.node is not None for r in results),
        "seconds": round(elapsed, 3),
        "pods_per_second": round(len(results) / elapsed, 1) if elapsed else None,
        "peak_rss_mb": round(peak_rss_mb(), 1),
        "keep_traces": keep_traces,
    }
