"""Opportunistic batching on and off, on a workload it applies to.

SchedulingBasic itself is never batched: at v1.37 NodeResourcesFit and
NodeResourcesBalancedAllocation cannot sign pods while DRAExtendedResource is on (GA, locked),
the default profile's System spread constraints make every pod unsignable, and its 100m pods
can share a node (the batch ends whenever the previous pod's node still fits the next pod).
This benchmark meets the documented preconditions instead: DRAExtendedResource off (emulating
an older version), no default spread constraints, and pods of 3 CPU on 4-CPU nodes (one pod per
node).  Shape otherwise as SchedulingBasic: 5,000 node-default nodes, 1,000 pod-default pods placed
first, then the measured pods.  Batches age on the wall clock (0.5 s), as kube-scheduler's.

Run: ``.venv/bin/python benchmarks/opportunistic_batching.py [measured pods]``.  Prints one JSON
line per gate value.  Numbers are for reading, never asserted.
"""

import copy
import json
import sys
import time

from kschedlab.cluster import Cluster
from kschedlab.features import FeatureGates
from kschedlab.scheduler import Scheduler
from kschedlab.scheduler_perf import POD_DEFAULT, make_nodes, make_pods, peak_rss_mb

ONE_POD_PER_NODE = copy.deepcopy(POD_DEFAULT)
ONE_POD_PER_NODE["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "3", "memory": "500Mi"},
                                                          "limits": {"cpu": "3", "memory": "500Mi"}}
CONFIG = {"profiles": [{"pluginConfig": [{"name": "PodTopologySpread", "args": {"defaultingType": "List"}}]}]}


def run(batching: bool, nodes: int = 5000, init_pods: int = 1000, measure_pods: int = 4000) -> dict:
    gates = FeatureGates({"DRAExtendedResource": False, "OpportunisticBatching": batching}, emulate_older=True)
    cluster = Cluster(make_nodes(nodes))
    scheduler = Scheduler(cluster, CONFIG, gates=gates, keep_traces=1000, clock=time.monotonic)
    for pod in make_pods(init_pods, "init"):
        cluster.add(pod)
    scheduler.run()
    measured = make_pods(measure_pods, "pod", ONE_POD_PER_NODE)
    for pod in measured:
        cluster.add(pod)
    queue = scheduler.queue([f"default/{p.metadata.name}" for p in measured])
    results, batched = [], 0
    start, cpu_start = time.perf_counter(), time.process_time()
    for q in queue:
        results.append(scheduler.schedule_one(q.pod_info.key))
        batched += results[-1].trace.batched  # counted now: only the last 1,000 traces are kept
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    return {"OpportunisticBatching": batching, "nodes": nodes, "pods": len(results),
            "scheduled": sum(r.node is not None for r in results), "batched": batched,
            "seconds": round(elapsed, 3), "pods_per_second": round(len(results) / elapsed, 1),
            "pods_per_cpu_second": round(len(results) / cpu, 1), "peak_rss_mb": round(peak_rss_mb(), 1)}


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 4000
    for batching in (True, False):
        print(json.dumps(run(batching, measure_pods=n)), flush=True)
