"""The CPU of one PodGroup cycle of a gang that fails, as the trace replay's congested stretch meets it:
5,000 nodes of 8 GPUs (96 cores, 512 GiB), every GPU taken but three (by pods of priority 100, so no
victim is below the gang), and a PodGroup of 8 one-GPU pods, all or nothing (``minCount`` 8, priority
100). Each cycle places three members, finds no node for the fourth, reverts them, and runs PodGroup
PostFilter (no victims): the members' Filter over every node, their Score, the Diagnosis and the
submit of 8 rejected pods.

Run: ``.venv/bin/python benchmarks/gang_cycle_failing.py [CYCLES]`` (default 60, after 3 that warm
the shape's kept answers). Prints the CPU milliseconds a cycle (``time.process_time``) and the
cycle's message. Numbers are for reading, never asserted.
"""

import sys
import time

from kschedlab.api.core import Node, Pod
from kschedlab.api.podgroup import PodGroup
from kschedlab.cluster import Cluster
from kschedlab.scheduler import Scheduler

GPU = "nvidia.com/gpu"


def pod(name: str, *, node: str | None = None, gpus: int = 1, group: str | None = None) -> Pod:
    resources = {"requests": {"cpu": "4", "memory": "8Gi", GPU: str(gpus)}, "limits": {GPU: str(gpus)}}
    spec: dict = {"containers": [{"name": "c", "resources": resources}], "priority": 100,
                  "schedulerName": "default-scheduler"}
    if node is not None:
        spec["nodeName"] = node
    if group is not None:
        spec["schedulingGroup"] = {"podGroupName": group}
    return Pod.model_validate({"metadata": {"name": name, "namespace": "default"}, "spec": spec})


def main(argv=None) -> int:
    cycles = int((argv or sys.argv[1:] or ["60"])[0])
    cluster = Cluster([Node.model_validate({"metadata": {"name": f"n{i:04d}"}, "status": {"allocatable": {
        "cpu": "96", "memory": "512Gi", "pods": "110", GPU: "8"}}}) for i in range(5000)])
    for i in range(5000):
        cluster.add(pod(f"busy-{i}", node=f"n{i:04d}", gpus=7 if i < 3 else 8))
    cluster.add(PodGroup.model_validate({"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
                                         "metadata": {"name": "g", "namespace": "default"},
                                         "spec": {"priority": 100, "schedulingPolicy": {"gang": {"minCount": 8}}}}))
    for m in range(8):
        cluster.add(pod(f"g-{m}", group="g"))
    sched = Scheduler(cluster, seed=0, gates={"GenericWorkload": True})
    for _ in range(3):
        sched.schedule_pod_group("podgroup/default/g")
    start = time.process_time()
    for _ in range(cycles):
        out = sched.schedule_pod_group("podgroup/default/g")
    spent = time.process_time() - start
    print(f"{spent / cycles * 1000:.2f} ms CPU a cycle ({cycles} cycles); {out.status.message()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
