"""The CPU of one pod whose requests no pod before it had (a young shape, as most pods of a job trace
are): 5,000 nodes of 96 cores, 40-95 of them taken on each, and pods asking 30-32 cores each a little
more than the last, so NodeResourcesFit rejects about half of the nodes a pass visits and the fast
path keeps nothing for the shape (its first cycle). ``schedule_one`` per pod (it binds the pod).

Run: ``.venv/bin/python benchmarks/young_shapes.py [PODS]`` (default 300; the first 20 warm up).
Prints the CPU milliseconds a pod (``time.process_time``) and a digest of the placements and
messages (the same on any code that decides the same). Numbers are for reading, never asserted.
"""

import hashlib
import random
import sys
import time

from kschedlab.api.core import Node, Pod
from kschedlab.cluster import Cluster
from kschedlab.scheduler import Scheduler


def pod(name: str, cpu_m: int, node: str | None = None) -> Pod:
    spec: dict = {"containers": [{"name": "c", "resources": {"requests": {"cpu": f"{cpu_m}m", "memory": "1Gi"}}}],
                  "schedulerName": "default-scheduler"}
    if node is not None:
        spec["nodeName"] = node
    return Pod.model_validate({"metadata": {"name": name, "namespace": "default"}, "spec": spec})


def main(argv=None) -> int:
    count = int((argv or sys.argv[1:] or ["300"])[0])
    rng = random.Random(0)
    cluster = Cluster([Node.model_validate({"metadata": {"name": f"n{i:04d}"}, "status": {"allocatable": {
        "cpu": "96", "memory": "512Gi", "pods": "110"}}}) for i in range(5000)])
    for i in range(5000):
        cluster.add(pod(f"busy-{i}", rng.randint(40, 95) * 1000, node=f"n{i:04d}"))
    keys = []
    for i in range(count):
        cluster.add(pod(f"p-{i}", 30000 + 7 * i))
        keys.append(f"default/p-{i}")
    sched = Scheduler(cluster, seed=0)
    for key in keys[:20]:
        sched.schedule_one(key)
    start = time.process_time()
    out = [sched.schedule_one(key) for key in keys[20:]]
    spent = time.process_time() - start
    digest = hashlib.sha1(repr([(r.pod, r.node, r.message) for r in out]).encode()).hexdigest()[:12]
    print(f"{spent / len(out) * 1000:.3f} ms CPU a pod ({len(out)} pods); {digest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
