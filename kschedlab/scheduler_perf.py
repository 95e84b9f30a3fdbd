"""Throughput workloads shaped like upstream's scheduler_perf (test/integration/scheduler_perf).

Each workload is upstream's ``workloadTemplate`` replayed on a :class:`Cluster`:
``createNodes`` from ``templates/node-default.yaml`` (4 CPU, 32Gi, 110 pods; every node
gets ``kubernetes.io/hostname`` = its name, as upstream's node preparer sets it, and the
``labelNodePrepareStrategy`` values round robin), ``createNamespaces``, ``init_pods`` pods
from the init template scheduled untimed, then ``measure_pods`` pods from the measured
template scheduled with the default profile and timed. Pods are admitted once per template
(API-server defaults: priority, schedulerName, default tolerations), then copied.

==========================  ======  ====================================  =========  ==========  ==========
workload                    nodes   zone labels                           init pods  measured    upstream
                                                                                                 threshold
==========================  ======  ====================================  =========  ==========  ==========
SchedulingBasic             5,000   --                                    1,000      10,000      680 pods/s
SchedulingPodAntiAffinity   5,000   --                                    1,000      2,000       60 pods/s
SchedulingPodAffinity       5,000   zone1 (all nodes)                     5,000      5,000       35 pods/s
TopologySpreading           5,000   moon-1, moon-2, moon-3 (round robin)  5,000      5,000       460 pods/s
PreemptionBasic             5,000   --                                    20,000     5,000       --
==========================  ======  ====================================  =========  ==========  ==========

(the ``5000Nodes_10000Pods``, ``5000Nodes_2000Pods``, ``5000Nodes_5000Pods`` and
``5000Nodes_5000Pods`` cases of upstream's ``performance-config.yaml`` files; thresholds are
upstream's minimum pods/s on its CI machines, for orientation only).

PreemptionBasic is ``default_preemption/performance-config.yaml``'s workload with the params of
its ``5000Nodes`` case, which upstream keeps commented out ("always seems to fail",
kubernetes#108308); the case upstream runs is ``1000Nodes`` (``nodes=1000, init_pods=4000,
measure_pods=1000``).  The init pods (``templates/pod-low-priority.yaml``: 900m, priority 0) fill
every node with four pods (3.6 of 4 CPU); each measured pod
(``default_preemption/templates/pod-high-priority.yaml``: 3970m, ``priority: 9999999``) fits
nowhere and preempts the four pods of one node.  Both templates have
``terminationGracePeriodSeconds: 0``, so the victims are gone at once and the measured pod binds
to its nominated node on its next attempt, made right away (upstream: when the victims' deletion
moves it back to the active queue).  A measured pod counts once it is bound; the result also
has ``attempts``, ``preemptions`` and ``victims``.

Besides the overall rate, the result has the rate over the first and the last ``window``
measured pods, so a per-pod cost that grows with the number of placed pods shows.

>>> r = run_workload("SchedulingBasic", nodes=20, init_pods=10, measure_pods=30)
>>> r["pods"], r["scheduled"]
(30, 30)
>>> r = run_workload("SchedulingPodAntiAffinity", nodes=6, init_pods=2, measure_pods=5)
>>> r["scheduled"], r["unschedulable"]   # one pod per node: the sixth measured pod has no node left
(4, 1)
"""

from __future__ import annotations

import resource
import sys
import time
from dataclasses import dataclass, field

from kschedlab.api.admission import admit, admit_pod
from kschedlab.api.core import Namespace, Node, Pod
from kschedlab.cluster import Cluster
from kschedlab.scheduler import Scheduler

LABEL_HOSTNAME = "kubernetes.io/hostname"
LABEL_ZONE = "topology.kubernetes.io/zone"

# -- upstream templates (test/integration/scheduler_perf/templates/*.yaml) --------------------------------------
#: node-default.yaml (capacity; allocatable defaults to capacity on create)
NODE_DEFAULT = {
    "apiVersion": "v1", "kind": "Node",
    "metadata": {"name": "scheduler-perf-"},
    "status": {"capacity": {"pods": "110", "cpu": "4", "memory": "32Gi"},
               "allocatable": {"pods": "110", "cpu": "4", "memory": "32Gi"},
               "conditions": [{"status": "True", "type": "Ready"}], "phase": "Running"},
}


def _pause_container(image: str) -> dict:
    return {"image": image, "name": "pause", "ports": [{"containerPort": 80}],
            "resources": {"limits": {"cpu": "100m", "memory": "500Mi"},
                          "requests": {"cpu": "100m", "memory": "500Mi"}}}


#: pod-default.yaml
POD_DEFAULT = {
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "pod-", "namespace": "default"},
    "spec": {"schedulerName": "default-scheduler", "containers": [_pause_container("registry.k8s.io/pause:3.10")]},
}
#: pod-with-pod-anti-affinity.yaml
POD_WITH_POD_ANTI_AFFINITY = {
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "anti-affinity-pod-", "labels": {"color": "green"}},
    "spec": {
        "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
            "labelSelector": {"matchLabels": {"color": "green"}},
            "topologyKey": LABEL_HOSTNAME,
            "namespaces": ["sched-1", "sched-0"]}]}},
        "containers": [_pause_container("registry.k8s.io/pause:3.10.2")]},
}
#: pod-with-pod-affinity.yaml
POD_WITH_POD_AFFINITY = {
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "affinity-pod-", "labels": {"color": "blue"}},
    "spec": {
        "affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
            "labelSelector": {"matchLabels": {"color": "blue"}},
            "topologyKey": LABEL_ZONE,
            "namespaces": ["sched-1", "sched-0"]}]}},
        "containers": [_pause_container("registry.k8s.io/pause:3.10.1")]},
}
#: pod-with-topology-spreading.yaml
POD_WITH_TOPOLOGY_SPREADING = {
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "spreading-pod-", "labels": {"color": "blue"}},
    "spec": {
        "topologySpreadConstraints": [{
            "maxSkew": 5, "topologyKey": LABEL_ZONE, "whenUnsatisfiable": "DoNotSchedule",
            "labelSelector": {"matchLabels": {"color": "blue"}}}],
        "containers": [_pause_container("registry.k8s.io/pause:3.10")]},
}


#: templates/pod-low-priority.yaml
POD_LOW_PRIORITY = {
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "pod-"},
    "spec": {"terminationGracePeriodSeconds": 0,
             "containers": [{"image": "registry.k8s.io/pause:3.10", "name": "pause", "ports": [{"containerPort": 80}],
                             "resources": {"limits": {"cpu": "900m", "memory": "500Mi"},
                                           "requests": {"cpu": "900m", "memory": "500Mi"}}}]},
}
#: default_preemption/templates/pod-high-priority.yaml (``spec.priority`` set directly, no class)
POD_HIGH_PRIORITY = {
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "pod-high-priority-"},
    "spec": {"terminationGracePeriodSeconds": 0, "priority": 9999999,
             "containers": [{"image": "registry.k8s.io/pause:3.10.2", "name": "pause",
                             "resources": {"limits": {"cpu": "3970m", "memory": "500Mi"},
                                           "requests": {"cpu": "3970m", "memory": "500Mi"}}}]},
}


@dataclass(frozen=True)
class Workload:
    """One scheduler_perf test case: the ops of its ``workloadTemplate`` and its params."""

    nodes: int
    init_pods: int
    measure_pods: int
    init_template: dict = field(default_factory=lambda: POD_DEFAULT)
    measure_template: dict = field(default_factory=lambda: POD_DEFAULT)
    #: labelNodePrepareStrategy: (label key, values assigned round robin)
    node_labels: tuple[str, tuple[str, ...]] | None = None
    #: createNamespaces: names created before the pods
    namespaces: tuple[str, ...] = ()
    init_namespace: str = "default"
    measure_namespace: str = "default"
    #: upstream's minimum pods/s for this case (orientation, never asserted)
    threshold: int | None = None
    #: where the case is defined upstream
    upstream: str = ""

    def __getitem__(self, key: str):  # the dict access of earlier versions: WORKLOADS[name]["nodes"]
        return getattr(self, key)


WORKLOADS: dict[str, Workload] = {
    "SchedulingBasic": Workload(
        5000, 1000, 10000, threshold=680,
        upstream="misc/performance-config.yaml SchedulingBasic/5000Nodes_10000Pods"),
    "SchedulingPodAntiAffinity": Workload(
        5000, 1000, 2000, POD_WITH_POD_ANTI_AFFINITY, POD_WITH_POD_ANTI_AFFINITY,
        namespaces=("sched-0", "sched-1"), init_namespace="sched-0", measure_namespace="sched-1", threshold=60,
        upstream="affinity/performance-config.yaml SchedulingPodAntiAffinity/5000Nodes_2000Pods"),
    "SchedulingPodAffinity": Workload(
        5000, 5000, 5000, POD_WITH_POD_AFFINITY, POD_WITH_POD_AFFINITY, node_labels=(LABEL_ZONE, ("zone1",)),
        namespaces=("sched-0", "sched-1"), init_namespace="sched-0", measure_namespace="sched-1", threshold=35,
        upstream="affinity/performance-config.yaml SchedulingPodAffinity/5000Nodes_5000Pods"),
    "TopologySpreading": Workload(
        5000, 5000, 5000, POD_DEFAULT, POD_WITH_TOPOLOGY_SPREADING,
        node_labels=(LABEL_ZONE, ("moon-1", "moon-2", "moon-3")), threshold=460,
        upstream="topology_spreading/performance-config.yaml TopologySpreading/5000Nodes_5000Pods"),
    "PreemptionBasic": Workload(
        5000, 20000, 5000, POD_LOW_PRIORITY, POD_HIGH_PRIORITY,
        upstream="default_preemption/performance-config.yaml PreemptionBasic/5000Nodes (commented out upstream)"),
}


def make_nodes(count: int, labels: tuple[str, tuple[str, ...]] | None = None) -> list:
    """``createNodes``: nodes named ``scheduler-perf-NNNNN`` with their hostname label and,
    with ``labels`` = (key, values), the labelNodePrepareStrategy values round robin."""
    nodes = []
    for i in range(count):
        node = Node.model_validate(NODE_DEFAULT)
        name = f"scheduler-perf-{i:05d}"
        node.metadata.name = name
        node.metadata.labels = {LABEL_HOSTNAME: name}
        if labels is not None:
            key, values = labels
            node.metadata.labels[key] = values[i % len(values)]
        nodes.append(node)
    return nodes


def make_pods(count: int, prefix: str, template: dict | None = None, namespace: str | None = None) -> list:
    """``createPods``: ``count`` pods of ``template`` (default pod-default.yaml), admitted once
    (API-server defaults) and copied, named ``{prefix}-NNNNN`` in ``namespace``.

    A template that sets ``spec.priority`` itself (upstream's high-priority templates do, without a
    priorityClassName) keeps that value: the Priority admission plugin would refuse it, so its
    check is skipped for such templates, as upstream's test API server lets these pods through.
    """
    data = dict(template or POD_DEFAULT)
    data["metadata"] = {**data.get("metadata", {}), "name": f"{prefix}-", "namespace": namespace or "default"}
    spec = dict(data.get("spec", {}))
    priority = spec.pop("priority", None)
    data["spec"] = spec
    admitted = admit_pod(Pod.model_validate(data)).model_dump(mode="json", by_alias=True, exclude_unset=True)
    if priority is not None:
        admitted["spec"]["priority"] = priority
    pods = []
    for i in range(count):
        pod = Pod.model_validate(admitted)
        pod.metadata.name = f"{prefix}-{i:05d}"
        pods.append(pod)
    return pods


def peak_rss_mb() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return usage / (1024 * 1024) if sys.platform == "darwin" else usage / 1024


def _rate(count: int, seconds: float) -> float | None:
    return round(count / seconds, 1) if seconds > 0 else None


def run_workload(name: str = "SchedulingBasic", *, nodes: int | None = None, init_pods: int | None = None,
                 measure_pods: int | None = None, keep_traces: int | None = 1000, seed: int = 0,
                 window: int = 1000, progress: bool = False, gates=None) -> dict:
    """Build the workload, schedule the init pods, then time the measured pods.

    ``gates`` (FeatureGates or a dict) overrides the v1.37 feature gates.  Opportunistic
    batches age on the wall clock, as kube-scheduler's; ``batched`` counts the measured
    attempts served from a batch.

    ``nodes``, ``init_pods`` and ``measure_pods`` override the workload's counts. The
    result (JSON-ready) has ``pods_per_second`` over all measured pods and
    ``first_window_pods_per_second`` / ``last_window_pods_per_second`` over the first and
    the last ``window`` of them (fewer when fewer were measured).

    A measured pod whose attempt preempted (its ``status.nominatedNodeName`` is set and its
    victims are gone) is attempted again at once, as the queue would once the victims' deletion
    moved it back; the time of both attempts counts.  ``attempts``, ``preemptions`` (attempts
    that nominated a node) and ``victims`` (pods deleted by them) report this.
    ``cpu_seconds`` / ``pods_per_cpu_second`` use the process's CPU time over the measured pods:
    on a busy machine they move less than the wall-clock rate (``first_window_pods_per_cpu_second``
    and ``last_window_pods_per_cpu_second`` likewise for the two windows).

    >>> r = run_workload("PreemptionBasic", nodes=5, init_pods=20, measure_pods=5)
    >>> r["init_scheduled"], r["scheduled"], r["attempts"], r["preemptions"], r["victims"]
    (20, 5, 10, 5, 20)
    """
    if name not in WORKLOADS:
        raise ValueError(f"unknown workload {name!r}; known: {', '.join(WORKLOADS)}")
    w = WORKLOADS[name]
    n_nodes = w.nodes if nodes is None else nodes
    n_init = w.init_pods if init_pods is None else init_pods
    n_measure = w.measure_pods if measure_pods is None else measure_pods

    cluster = Cluster(make_nodes(n_nodes, w.node_labels))
    for ns in admit([Namespace.model_validate({"metadata": {"name": ns}}) for ns in w.namespaces]):
        cluster.add(ns)
    scheduler = Scheduler(cluster, seed=seed, keep_traces=keep_traces, gates=gates, clock=time.monotonic)
    for pod in make_pods(n_init, "init", w.init_template, w.init_namespace):
        cluster.add(pod)
    init_results = scheduler.run()
    measured = make_pods(n_measure, "pod", w.measure_template, w.measure_namespace)
    for pod in measured:
        cluster.add(pod)
    keys = [f"{w.measure_namespace}/{p.metadata.name}" for p in measured]
    queue = scheduler.queue(keys)
    if progress:
        from tqdm.auto import tqdm

        queue = tqdm(queue, desc=name, unit="pod")
    results = []
    stamps = []
    cpu_stamps = []
    attempts = preemptions = victims = batched = 0
    clock = time.perf_counter
    cpu_start = time.process_time()
    start = clock()
    for q in queue:
        key = q.pod_info.key
        before = len(cluster.pods)
        result = scheduler.schedule_one(key)
        attempts += 1
        batched += result.trace is not None and result.trace.batched
        status = cluster.pods[key].status
        if result.node is None and status is not None and status.nominated_node_name:
            preemptions += 1
            victims += before - len(cluster.pods)
            result = scheduler.schedule_one(key)
            attempts += 1
        results.append(result)
        stamps.append(clock())
        cpu_stamps.append(time.process_time())
    cpu = time.process_time() - cpu_start
    elapsed = (stamps[-1] - start) if stamps else 0.0
    k = min(window, len(stamps))
    first = (stamps[k - 1] - start) if k else 0.0
    last = (stamps[-1] - (stamps[-k - 1] if len(stamps) > k else start)) if k else 0.0
    cpu_first = (cpu_stamps[k - 1] - cpu_start) if k else 0.0
    cpu_last = (cpu_stamps[-1] - (cpu_stamps[-k - 1] if len(cpu_stamps) > k else cpu_start)) if k else 0.0
    return {
        "workload": name,
        "nodes": n_nodes,
        "init_pods": n_init,
        "init_scheduled": sum(r.node is not None for r in init_results),
        "pods": len(results),
        "scheduled": sum(r.node is not None for r in results),
        "unschedulable": sum(r.node is None for r in results),
        "seconds": round(elapsed, 3),
        "pods_per_second": _rate(len(results), elapsed),
        "window": k,
        "first_window_pods_per_second": _rate(k, first),
        "last_window_pods_per_second": _rate(k, last),
        "upstream_threshold": w.threshold,
        "peak_rss_mb": round(peak_rss_mb(), 1),
        "keep_traces": keep_traces,
        "attempts": attempts,
        "preemptions": preemptions,
        "victims": victims,
        "cpu_seconds": round(cpu, 3),
        "pods_per_cpu_second": _rate(len(results), cpu),
        "first_window_pods_per_cpu_second": _rate(k, cpu_first),
        "last_window_pods_per_cpu_second": _rate(k, cpu_last),
        "batched": batched,
    }
