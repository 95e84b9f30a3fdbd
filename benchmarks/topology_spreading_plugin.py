"""PodTopologySpread's PreFilter and Filter alone, in CPU microseconds a pod, at TopologySpreading's
state (the init pods and half the measured pods placed).

Run: ``.venv/bin/python benchmarks/topology_spreading_plugin.py [SCALE]`` (default 0.2: 1,000 nodes).
PreFilter runs on 300 fresh PodInfos of the measured template, Filter over the first tenth of the
nodes (at least 100) with each one's cycle state; best of 5 rounds. Numbers are for reading, never
asserted.
"""

import sys
import time

from kschedlab.cluster import Cluster
from kschedlab.framework.interface import CycleState
from kschedlab.scheduler import Scheduler
from kschedlab.scheduler_perf.templates import make_nodes, make_pods
from kschedlab.scheduler_perf.workloads import WORKLOADS


def main(scale: float) -> str:
    w = WORKLOADS["TopologySpreading"]
    n = round(w.nodes * scale)
    cluster = Cluster(make_nodes(n, w.node_labels))
    sched = Scheduler(cluster, keep_traces=0)
    for pod in make_pods(round(w.init_pods * scale), "init", w.init_template, w.init_namespace):
        cluster.add(pod)
    sched.run()
    placed = make_pods(round(w.measure_pods * scale) // 2, "pod", w.measure_template, w.measure_namespace)
    for pod in placed:
        cluster.add(pod)
    sched.run()
    pts = sched.framework_for(placed[0]).plugins["PodTopologySpread"]
    snap = cluster.snapshot
    infos = []
    for pod in make_pods(300, "probe", w.measure_template, w.measure_namespace):
        cluster.add(pod)
        infos.append(cluster.pod_infos[f"{w.measure_namespace}/{pod.metadata.name}"])
    rows = snap.order[: max(100, n // 10)]
    best_pre_filter = best_filter = float("inf")
    for _ in range(5):
        start = time.process_time()
        states = []
        for info in infos:
            state = CycleState()
            pts.pre_filter(state, info, snap)
            states.append(state)
        pre_filter = (time.process_time() - start) / len(infos)
        start = time.process_time()
        for state, info in zip(states, infos):
            pts.filter_nodes(state, info, snap, rows)
        best_filter = min(best_filter, (time.process_time() - start) / len(infos))
        best_pre_filter = min(best_pre_filter, pre_filter)
        for info in infos:
            info.cache.clear()
    return (f"nodes {n}: PreFilter {best_pre_filter * 1e6:.1f} us, Filter over {len(rows)} nodes "
            f"{best_filter * 1e6:.1f} us (best of 5)")


if __name__ == "__main__":
    print(main(float(sys.argv[1]) if len(sys.argv) > 1 else 0.2))
