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

Gang workloads (:data:`GANG_WORKLOADS`, :func:`run_gang_workload`; ``run_workload`` and
``kschedlab bench`` reach them by name) replay ``podgroup/gangscheduling`` and ``podgroup/tas``
(feature gate GenericWorkload; TopologyAwareWorkloadScheduling for the second):
``createNodes``, ``createNamespaces``, ``createPodGroups`` (``gang-<i>``, gang policy,
``minCount`` = the group's size), ``createPods`` (``podGroupName: gang-<index / size>``,
100m / 100Mi), every group scheduled whole through one PodGroup cycle and timed.

========================  ======  ==========================  ========  ===========  ====================
workload                  nodes   node labels                 measured  group size   topology constraint
========================  ======  ==========================  ========  ===========  ====================
GangScheduling            5,000   --                          1,000     8-64 seeded  --
TopologyAwareScheduling   5,000   zone-/rack-{i/100} (50)     150       8-64 seeded  topology.kubernetes.io/rack
========================  ======  ==========================  ========  ===========  ====================

Upstream's cases have fixed sizes (``5000Nodes_1000Gangs_3000Pods``: 3 pods a gang;
``5000Nodes_750Gangs_3000Pods``: 4) and no threshold; the sizes here are 8 to 64 pods drawn from
the seed (``min_size == max_size`` replays a fixed size). TopologyAwareScheduling measures 150
groups instead of 750: every group is tried in each of the 50 racks (upstream's adaptive
``percentageOfPlacementsToScore`` is not modelled), so one group costs about a second.
With ``--pods`` a gang workload takes the fewest seeded groups holding that many pods.

DRA workloads (:data:`DRA_WORKLOADS`, :func:`run_dra_workload`; ``run_workload`` and ``kschedlab
bench`` reach them by name) replay ``dra/performance-config.yaml``: ``createNodes``
(node-with-dra-test-driver.yaml, ``scheduler-perf-dra-<i>``), ``createResourceDriver`` (one
ResourceSlice per node, ``maxClaimsPerNode`` devices of ``test-driver.cdi.k8s.io``), the
DeviceClass ``test-class``, then per namespace (``init`` untimed, ``test`` measured) a
ResourceClaimTemplate and pods with a claim from it, or named claims shared by five pods each.
The ResourceClaim controller creates each pod's claim when the pod is created.

===================================  ===========  ================  =========  ========  ==========
workload                             DRA nodes    devices per node  init pods  measured  upstream
                                                                                         threshold
===================================  ===========  ================  =========  ========  ==========
SchedulingWithResourceClaimTemplate  500          10                2,500      2,500     56 pods/s
SchedulingWithResourceClaim          500          2                 2,500      2,500     --
===================================  ===========  ================  =========  ========  ==========

(``5000pods_500nodes_QueueingHintsEnabled``, threshold 56, and ``5000pods_500nodes``; both
fill the cluster's devices completely.)

>>> r = run_workload("SchedulingBasic", nodes=20, init_pods=10, measure_pods=30)
>>> r["pods"], r["scheduled"]
(30, 30)
>>> r = run_workload("SchedulingPodAntiAffinity", nodes=6, init_pods=2, measure_pods=5)
>>> r["scheduled"], r["unschedulable"]   # one pod per node: the sixth measured pod has no node left
(4, 1)
"""

from __future__ import annotations

import gc
import resource
import sys
import time
from dataclasses import dataclass, field

import numpy as np

from kschedlab.api.admission import admit, admit_pod
from kschedlab.api.core import Namespace, Node, Pod
from kschedlab.cluster import Cluster
from kschedlab.framework.types import pod_key
from kschedlab.perf_floors import FLOOR_SHAPES, shape_floor
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


#: templates/pod-high-priority-large-cpu.yaml (9 CPU: fits no node-default.yaml node)
POD_HIGH_PRIORITY_LARGE_CPU = {
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "pod-h-"},
    "spec": {"priority": 10,
             "containers": [{"image": "registry.k8s.io/pause:3.10.1", "name": "pause", "ports": [{"containerPort": 80}],
                             "resources": {"requests": {"cpu": "9", "memory": "500Mi"}}}]},
}
#: templates/churn/node-default.yaml (no allocatable resources: room for no pod)
NODE_CHURN = {
    "apiVersion": "v1", "kind": "Node",
    "metadata": {"name": "node-churn-"},
    "status": {"capacity": {"pods": "0"}, "conditions": [{"status": "True", "type": "Ready"}], "phase": "Running"},
}
#: templates/churn/service-default.yaml
SERVICE_CHURN = {
    "apiVersion": "v1", "kind": "Service",
    "metadata": {"name": "service-churn-"},
    "spec": {"selector": {"app": "foo"}, "ports": [{"protocol": "TCP", "port": 8080, "targetPort": 8080}]},
}


@dataclass(frozen=True)
class Churn:
    """A ``churn`` op: every ``interval_ms`` of the measured phase's wall clock, ``create`` makes one
    object from each template; ``recreate`` (``number`` 1) creates them on one tick and deletes
    them on the next. A created pod is attempted once when it is created: its priority puts it
    ahead of the measured pods, and no event of these workloads requeues it (it fits no node)."""

    mode: str
    templates: tuple[str, ...]
    interval_ms: int


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
    #: the ``churn`` op running beside the measured pods, if any
    churn: Churn | None = None

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
    "Unschedulable": Workload(
        5000, 100, 10000, threshold=590, churn=Churn("create", ("pod",), 200),
        upstream="misc/performance-config.yaml Unschedulable/5kNodes/100Init/10kPods (churn: create "
                 "pod-high-priority-large-cpu.yaml every 200 ms)"),
    "SchedulingWithMixedChurn": Workload(
        5000, 0, 10000, threshold=710, churn=Churn("recreate", ("node", "pod", "service"), 1000),
        upstream="misc/performance-config.yaml SchedulingWithMixedChurn/5000Nodes_10000Pods (churn: recreate "
                 "churn/node-default.yaml, pod-high-priority-large-cpu.yaml, churn/service-default.yaml "
                 "every 1000 ms)"),
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


def _windows(stamps: list[float], start: float, window: int) -> tuple[float, int, float, float]:
    """(total time, window size k, time of the first k, time of the last k) of completion stamps.

    >>> _windows([1.0, 2.0, 4.0], 0.0, 2)
    (4.0, 2, 2.0, 3.0)
    """
    elapsed = (stamps[-1] - start) if stamps else 0.0
    k = min(window, len(stamps))
    first = (stamps[k - 1] - start) if k else 0.0
    last = (stamps[-1] - (stamps[-k - 1] if len(stamps) > k else start)) if k else 0.0
    return elapsed, k, first, last


def _rate(count: int, seconds: float) -> float | None:
    return round(count / seconds, 1) if seconds > 0 else None


#: the cyclic garbage collector's thresholds while measured pods run (Python's default: 700, 10, 10):
#: a scheduling cycle allocates thousands of short-lived containers, almost none in reference cycles
MEASURED_GC_THRESHOLDS = (50_000, 20, 20)


def numpy_reference(nodes: int = 5000, init_pods: int = 1000, measure_pods: int = 10000, *, seed: int = 0,
                    cpu_milli: int = 100, memory: int = 500 * 2**20) -> dict:
    """The minimal numpy loop doing SchedulingBasic's work for every pod: NodeResourcesFit's
    check (cpu, memory, pod count) over the nodes, the first ``numFeasibleNodesToFind`` feasible
    nodes from a rotating start, LeastAllocated + BalancedAllocation scores (cpu and memory,
    weight 1, upstream's integer arithmetic) and the best node (ties drawn as the scheduler
    draws them), then the pod's requests added to that node. No plugins, no traces, no API
    objects: the yardstick ``kschedlab bench`` compares SchedulingBasic with, in the same run.

    Returns ``pods_per_cpu_second`` over the measured pods and the node of every pod, init pods
    first (the same nodes as the scheduler chooses for pod-default.yaml pods on node-default.yaml
    nodes: the other default plugins give every node the same score there).

    >>> r = numpy_reference(20, 10, 30)
    >>> len(r["placements"]), r["placements"][:3]
    (40, [12, 14, 1])
    """
    import random

    from kschedlab.scheduler import num_feasible_nodes_to_find

    rng = random.Random(seed)
    alloc = np.empty((2, nodes), np.int64)
    alloc[0], alloc[1] = 4000, 32 * 2**30
    max_pods = np.full(nodes, 110, np.int64)
    used = np.zeros((2, nodes), np.int64)
    count = np.zeros(nodes, np.int64)
    want = np.array([cpu_milli, memory], np.int64)
    to_find = num_feasible_nodes_to_find(0, nodes)
    start = 0
    placements: list[int] = []

    def balance(requested: np.ndarray) -> np.ndarray:
        frac = np.minimum(requested / alloc_f, 1.0)
        return np.trunc((1 - np.abs(frac[0] - frac[1]) / 2) * 100.0).astype(np.int64)

    alloc_f = alloc.astype(np.float64)
    cpu_start = 0.0
    for i in range(init_pods + measure_pods):
        if i == init_pods:
            cpu_start = time.process_time()
        free = alloc - used
        feasible = np.flatnonzero((free[0] >= want[0]) & (free[1] >= want[1]) & (count + 1 <= max_pods))
        k = int(np.searchsorted(feasible, start))
        feasible = np.concatenate([feasible[k:], feasible[:k]])[:to_find]
        if not len(feasible):
            placements.append(-1)
            start = start % nodes
            continue
        processed = (int(feasible[-1]) - start) % nodes + 1 if len(feasible) == to_find else nodes
        start = (start + processed) % nodes
        a, u = alloc[:, feasible], used[:, feasible]
        r = u + want[:, None]
        least = np.where(r > a, 0, (a - r) * 100 // a).sum(axis=0) // 2
        af = alloc_f[:, feasible]
        bal_with = np.trunc((1 - np.abs(np.minimum(r[0] / af[0], 1.0) - np.minimum(r[1] / af[1], 1.0)) / 2) * 100.0)
        bal_without = np.trunc((1 - np.abs(np.minimum(u[0] / af[0], 1.0) - np.minimum(u[1] / af[1], 1.0)) / 2) * 100.0)
        diff = 50 + bal_with.astype(np.int64) - bal_without.astype(np.int64)
        total = least + 50 + np.sign(diff) * (np.abs(diff) // 2)
        ties = np.flatnonzero(total == total.max())
        pick = int(feasible[int(ties[rng.randrange(len(ties))]) if len(ties) > 1 else int(ties[0])])
        used[:, pick] += want
        count[pick] += 1
        placements.append(pick)
    cpu = time.process_time() - cpu_start
    return {"pods": measure_pods, "cpu_seconds": round(cpu, 3), "pods_per_cpu_second": _rate(measure_pods, cpu),
            "placements": placements}


def run_workload(name: str = "SchedulingBasic", *, nodes: int | None = None, init_pods: int | None = None,
                 measure_pods: int | None = None, keep_traces: int | None = 1000, seed: int = 0,
                 window: int | None = None, progress: bool = False, gates=None, reference: bool = False,
                 profile=None, churn_interval_ms: int | None = None) -> dict:
    """Build the workload, schedule the init pods, then time the measured pods.

    ``gates`` (FeatureGates or a dict) overrides the v1.37 feature gates.  Opportunistic
    batches age on the wall clock, as kube-scheduler's; ``batched`` counts the measured
    attempts served from a batch.

    ``nodes``, ``init_pods`` and ``measure_pods`` override the workload's counts. The
    result (JSON-ready) has ``pods_per_second`` over all measured pods and
    ``first_window_pods_per_second`` / ``last_window_pods_per_second`` over the first and
    the last ``window`` of them (fewer when fewer were measured).

    ``reference`` (pod-default.yaml workloads, and the shapes of
    :data:`kschedlab.perf_floors.FLOOR_SHAPES`) also runs :func:`numpy_reference` (or the shape's
    :func:`kschedlab.perf_floors.shape_floor`) with the same counts in the same process and reports its ``reference_pods_per_cpu_second`` and
    ``reference_ratio`` (its rate over this one, both per CPU second: steady on a busy machine).
    ``profile`` (a ``cProfile.Profile``) is enabled around the measured pods only. The objects
    built before the measured pods are frozen out of the cyclic garbage collector meanwhile
    (``gc.freeze``; walking them on every full collection slowed the last measured pods) and the
    collector runs less often (:data:`MEASURED_GC_THRESHOLDS`). A workload
    with a ``churn`` op (Unschedulable, SchedulingWithMixedChurn) runs it on the measured phase's
    wall clock (``churn_interval_ms`` overrides the interval); ``churn_ticks`` and
    ``churn_pods`` report it.

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
    if name in GANG_WORKLOADS:  # gang workloads: ``measure_pods`` is a pod budget, ``window`` counts groups
        return run_gang_workload(name, nodes=nodes, init_pods=init_pods, measure_pods=measure_pods,
                                 keep_traces=keep_traces, seed=seed, progress=progress, gates=gates,
                                 **({} if window is None else {"window": window}))
    if name in DRA_WORKLOADS:  # DRA workloads: ``nodes`` counts the nodes with a ResourceSlice
        return run_dra_workload(name, nodes=nodes, init_pods=init_pods, measure_pods=measure_pods,
                                keep_traces=keep_traces, seed=seed, progress=progress, gates=gates,
                                **({} if window is None else {"window": window}))
    if name not in WORKLOADS:
        raise ValueError(f"unknown workload {name!r}; known: "
                         f"{', '.join([*WORKLOADS, *GANG_WORKLOADS, *DRA_WORKLOADS])}")
    window = 1000 if window is None else window
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
    churn = None
    if w.churn is not None:
        interval = (w.churn.interval_ms if churn_interval_ms is None else churn_interval_ms) / 1000
        churn = _ChurnRunner(w.churn, cluster, scheduler, interval, seed)
    # the objects built so far (nodes, pods, init placements) stay for the whole run: keep the
    # cyclic garbage collector from walking them again and again while the measured pods run
    gc.collect()
    gc.freeze()
    thresholds = gc.get_threshold()
    gc.set_threshold(*MEASURED_GC_THRESHOLDS)
    if profile is not None:
        profile.enable()
    cpu_start = time.process_time()
    start = clock()
    if churn is not None:
        churn.start(start)
    for q in queue:
        if churn is not None:
            churn.run_due(clock())
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
    if profile is not None:
        profile.disable()
    gc.set_threshold(*thresholds)
    gc.unfreeze()
    elapsed, k, first, last = _windows(stamps, start, window)
    _, _, cpu_first, cpu_last = _windows(cpu_stamps, cpu_start, window)
    extra: dict = {}
    if churn is not None:
        extra = {"churn_ticks": churn.ticks, "churn_pods": churn.pods}
    if reference:
        ref = (shape_floor(name, n_nodes, n_init, n_measure, seed=seed) if name in FLOOR_SHAPES
               else numpy_reference(n_nodes, n_init, n_measure, seed=seed))
        rate = _rate(len(results), cpu)
        extra["reference_pods_per_cpu_second"] = ref["pods_per_cpu_second"]
        extra["reference_ratio"] = (round(ref["pods_per_cpu_second"] / rate, 2)
                                    if rate and ref["pods_per_cpu_second"] else None)
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
        **extra,
    }


class _ChurnRunner:
    """Runs a workload's :class:`Churn` op on the measured phase's wall clock (upstream's ticker)."""

    def __init__(self, churn: Churn, cluster, scheduler, interval: float, seed: int):
        self.churn, self.cluster, self.scheduler, self.interval = churn, cluster, scheduler, interval
        self.ticks = self.pods = 0
        self.live: list[tuple[str, str]] = []  # recreate: what the last tick created
        self.next_at = 0.0
        self._pod = None

    def start(self, now: float) -> None:
        self.next_at = now + self.interval

    def run_due(self, now: float) -> None:
        """The tick due by ``now``, if any; like Go's ``time.Ticker``, ticks missed while the
        scheduler was busy are dropped, not caught up."""
        if self.interval > 0 and now >= self.next_at:
            self.tick()
            self.next_at += self.interval
            if self.next_at <= now:
                self.next_at = now + self.interval

    def tick(self) -> None:
        n = self.ticks
        self.ticks += 1
        if self.churn.mode == "recreate" and self.live:
            for kind, key in self.live:
                if kind == "node":
                    self.cluster.remove_node(key)
                elif kind == "pod":
                    self.cluster.remove_pod(key)
                else:
                    self.cluster.remove("Service", key)
            self.live = []
            return
        for template in self.churn.templates:
            if template == "node":
                (node,) = admit([Node.model_validate({**NODE_CHURN, "metadata": {"name": f"node-churn-{n:05d}"}})])
                self.cluster.add(node)
                self.live.append(("node", node.metadata.name))
            elif template == "service":
                from kschedlab.api.core import Service

                data = {**SERVICE_CHURN, "metadata": {"name": f"service-churn-{n:05d}", "namespace": "default"}}
                (service,) = admit([Service.model_validate(data)])
                self.cluster.add(service)
                self.live.append(("service", f"default/{service.metadata.name}"))
            else:
                if self._pod is None:
                    (self._pod,) = make_pods(1, "pod-h", POD_HIGH_PRIORITY_LARGE_CPU)
                pod = self._pod.clone()
                pod.metadata.name = f"pod-h-{n:05d}"
                self.cluster.add(pod)
                key = pod_key(pod)
                self.scheduler.schedule_one(key)  # fits nowhere; nothing in this workload requeues it
                self.pods += 1
                self.live.append(("pod", key))


# -- gang workloads: upstream's podgroup/gangscheduling and podgroup/tas ---------------------------------------
LABEL_RACK = "topology.kubernetes.io/rack"
GANG_GATES = {"GenericWorkload": True}
TAS_GATES = {"GenericWorkload": True, "TopologyAwareWorkloadScheduling": True}


def _gang_pod_template(prefix: str) -> dict:
    """podgroup/{gangscheduling,tas}/templates/gang-pod.yaml (``schedulingGroup.podGroupName``
    is set per pod)."""
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"{prefix}-"},
            "spec": {"schedulingGroup": {"podGroupName": "gang-0"},
                     "containers": [{"image": "registry.k8s.io/pause:3.10.1", "name": "pause",
                                     "resources": {"requests": {"cpu": "100m", "memory": "100Mi"}}}]}}


#: podgroup/gangscheduling/templates/gang-pod.yaml
GANG_POD = _gang_pod_template("test-gang-scheduling")
#: podgroup/tas/templates/gang-pod.yaml
TAS_GANG_POD = _gang_pod_template("test-tas-scheduling")


@dataclass(frozen=True)
class GangWorkload:
    """A PodGroup test case: ``createNodes``, ``createNamespaces``, ``createPodGroups``
    (``gang-0`` .. ``gang-<n-1>``, gang policy, ``minCount`` = the group's size, with
    ``schedulingConstraints.topology: [{key: topology_key}]`` when set), then ``createPods``
    (``measure_groups`` groups of ``min_size`` .. ``max_size`` pods, sizes drawn from the seed)
    measured, every group through one PodGroup scheduling cycle."""

    nodes: int
    measure_groups: int
    min_size: int = 8
    max_size: int = 64
    #: the PodGroups' topology constraint (None: no constraint)
    topology_key: str | None = None
    #: podgroup/tas/templates/node.yaml: ``zone-{i / 100}`` and ``rack-{i / 100}`` (0 = no such labels)
    nodes_per_domain: int = 0
    namespace: str = "gang-ns-0"
    pod_template: dict = field(default_factory=lambda: GANG_POD)
    gates: dict = field(default_factory=lambda: dict(GANG_GATES))
    #: pod-default.yaml pods scheduled (untimed) before the groups; upstream's gang cases have none
    init_pods: int = 0
    threshold: int | None = None
    upstream: str = ""

    def __getitem__(self, key: str):
        return getattr(self, key)


GANG_WORKLOADS: dict[str, GangWorkload] = {
    "GangScheduling": GangWorkload(
        5000, 1000,
        upstream="podgroup/gangscheduling/performance-config.yaml GangScheduling/5000Nodes_1000Gangs_3000Pods "
                 "(1,000 gangs as upstream; 8-64 pods each instead of 3)"),
    "TopologyAwareScheduling": GangWorkload(
        5000, 150, topology_key=LABEL_RACK, nodes_per_domain=100, namespace="tas-ns-0",
        pod_template=TAS_GANG_POD, gates=dict(TAS_GATES),
        upstream="podgroup/tas/performance-config.yaml TopologyAwareScheduling/5000Nodes_750Gangs_3000Pods "
                 "(150 gangs of 8-64 pods instead of 750 of 4: every rack is tried per gang)"),
}


def group_sizes(count: int, min_size: int = 8, max_size: int = 64, seed: int = 0) -> list[int]:
    """Seeded gang sizes; a longer list starts with the shorter one.

    >>> group_sizes(5)
    [42, 37, 52, 22, 62]
    >>> group_sizes(3, 4, 4)
    [4, 4, 4]
    """
    import random

    rng = random.Random(f"kschedlab/gang-sizes/{seed}")
    return [rng.randint(min_size, max_size) for _ in range(count)]


def groups_for_pods(pods: int, min_size: int = 8, max_size: int = 64, seed: int = 0) -> int:
    """The fewest seeded groups holding at least ``pods`` pods (``--pods`` of a gang workload).

    >>> groups_for_pods(100)   # 42 + 37 + 52
    3
    """
    total = count = 0
    while total < pods:
        count += 1
        total = sum(group_sizes(count, min_size, max_size, seed))
    return count


def make_domain_nodes(count: int, keys: tuple[str, ...], per_domain: int) -> list:
    """``createNodes`` from podgroup/tas/templates/node.yaml: node ``i`` gets value
    ``{prefix}-{i // per_domain}`` for each key (``topology.kubernetes.io/zone`` -> ``zone-``)."""
    nodes = make_nodes(count)
    if per_domain > 0:
        for i, node in enumerate(nodes):
            for key in keys:
                node.metadata.labels[key] = f"{key.rsplit('/', 1)[-1]}-{i // per_domain}"
    return nodes


def make_pod_groups(sizes: list[int], namespace: str, topology_key: str | None = None, gates=None) -> list:
    """``createPodGroups`` (templates/podgroup.yaml): ``gang-<i>`` with ``minCount`` = ``sizes[i]``."""
    from kschedlab.api.podgroup import PodGroup

    groups = []
    for i, size in enumerate(sizes):
        spec: dict = {"schedulingPolicy": {"gang": {"minCount": size}}}
        if topology_key is not None:
            spec["schedulingConstraints"] = {"topology": [{"key": topology_key}]}
        groups.append(PodGroup.model_validate({"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
                                               "metadata": {"name": f"gang-{i}", "namespace": namespace},
                                               "spec": spec}))
    return admit(groups, feature_gates=gates)


def make_gang_pods(sizes: list[int], template: dict, namespace: str, gates=None) -> list:
    """``createPods`` with ``podGroupName: gang-{index / podsPerGroup}``: the template admitted
    once (GenericWorkload on, so ``schedulingGroup`` is kept), then copied, named
    ``{prefix}-{index}`` as upstream's template names them."""
    data = dict(template)
    prefix = data["metadata"]["name"].rstrip("-")
    data["metadata"] = {**data["metadata"], "name": f"{prefix}-", "namespace": namespace}
    admitted = admit_pod(Pod.model_validate(data), feature_gates=gates).model_dump(
        mode="json", by_alias=True, exclude_unset=True)
    pods = []
    for g, size in enumerate(sizes):
        for _ in range(size):
            pod = Pod.model_validate(admitted)
            pod.metadata.name = f"{prefix}-{len(pods)}"
            pod.spec.scheduling_group.pod_group_name = f"gang-{g}"
            pods.append(pod)
    return pods


def _percentile_ms(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2)


def run_gang_workload(name: str = "GangScheduling", *, nodes: int | None = None, groups: int | None = None,
                      measure_pods: int | None = None, min_size: int | None = None, max_size: int | None = None,
                      init_pods: int | None = None, topology_key: str | None = None,
                      nodes_per_domain: int | None = None, keep_traces: int | None = 1000, seed: int = 0,
                      window: int = 100, progress: bool = False, gates=None, profile=None) -> dict:
    """Build a gang workload, then time its groups, one PodGroup cycle each.

    ``groups`` overrides the number of measured groups; ``measure_pods`` (``kschedlab bench
    --pods``) instead takes the fewest seeded groups holding that many pods; ``min_size`` /
    ``max_size`` the sizes' range (equal: upstream's fixed ``podsPerGroup``); ``topology_key``
    the PodGroups' constraint (e.g. ``topology.kubernetes.io/zone``) and ``nodes_per_domain``
    the nodes per zone and rack (upstream: 100; a small cluster needs fewer to have several
    racks). ``gates`` (dict or
    FeatureGates) override the workload's gates (GenericWorkload, and
    TopologyAwareWorkloadScheduling for TopologyAwareScheduling). The groups are cycled in the
    order their first pod leaves the queue (as :meth:`Scheduler.run` routes them), each with its
    own queued pods. A group counts as scheduled when its cycle succeeded and every one of its
    pods is bound (``groups_scheduled``); ``groups_per_second`` / ``pods_per_second`` are over
    all measured groups / pods, the ``window`` rates over the first and the last ``window``
    groups, and ``group_latency_ms`` has the p50/p90/p99 of one cycle. ``domains_per_group``
    is the most distinct topology values (``topology_key``, else none) any one group's pods use.
    ``profile`` (a ``cProfile.Profile``) is enabled around the measured cycles only.

    >>> r = run_gang_workload("TopologyAwareScheduling", nodes=20, groups=3, min_size=2, max_size=4,
    ...                       nodes_per_domain=5)
    >>> r["groups_scheduled"], r["pods"] == r["scheduled"], r["domains"], r["domains_per_group"]
    (3, True, 4, 1)
    """
    from kschedlab.features import FeatureGates

    if name not in GANG_WORKLOADS:
        raise ValueError(f"unknown gang workload {name!r}; known: {', '.join(GANG_WORKLOADS)}")
    if groups is not None and measure_pods is not None:
        raise ValueError("give groups or measure_pods, not both")
    w = GANG_WORKLOADS[name]
    n_nodes = w.nodes if nodes is None else nodes
    lo = w.min_size if min_size is None else min_size
    hi = w.max_size if max_size is None else max_size
    if measure_pods is not None:
        groups = groups_for_pods(measure_pods, lo, hi, seed)
    n_groups = w.measure_groups if groups is None else groups
    n_init = w.init_pods if init_pods is None else init_pods
    overrides = gates.overrides if isinstance(gates, FeatureGates) else dict(gates or {})
    fg = FeatureGates(w.gates).with_overrides(overrides)
    admission_gates = {g: fg.enabled(g) for g in ("GenericWorkload", "TopologyAwareWorkloadScheduling")}

    per_domain = w.nodes_per_domain if nodes_per_domain is None else nodes_per_domain
    topology = w.topology_key if topology_key is None else topology_key
    domain_keys = (LABEL_ZONE, LABEL_RACK) if per_domain else ()
    cluster = Cluster(make_domain_nodes(n_nodes, domain_keys, per_domain))
    for ns in admit([Namespace.model_validate({"metadata": {"name": w.namespace}})]):
        cluster.add(ns)
    scheduler = Scheduler(cluster, seed=seed, keep_traces=keep_traces, gates=fg, clock=time.monotonic)
    init_results = []
    if n_init:
        for pod in make_pods(n_init, "init"):
            cluster.add(pod)
        init_results = scheduler.run()
    sizes = group_sizes(n_groups, lo, hi, seed)
    for group in make_pod_groups(sizes, w.namespace, topology, admission_gates):
        cluster.add(group)
    measured = make_gang_pods(sizes, w.pod_template, w.namespace, admission_gates)
    for pod in measured:
        cluster.add(pod)
    # the queue's order, one entry per group: its first pod takes the whole group (Scheduler.run)
    order: dict[str, list[str]] = {}
    for q in scheduler.queue([f"{w.namespace}/{p.metadata.name}" for p in measured]):
        key = q.pod_info.key
        group = scheduler.pod_group_of(key)
        if group is None:
            raise RuntimeError(f"pod {key} is not scheduled through a PodGroup cycle (GenericWorkload off?)")
        order.setdefault(group, []).append(key)
    entries = list(order.items())
    if progress:
        from tqdm.auto import tqdm

        entries = tqdm(entries, desc=name, unit="group")

    stamps, cpu_stamps, latencies = [], [], []
    groups_scheduled = pods_scheduled = pods_total = 0
    domains = 0
    clock = time.perf_counter
    if profile is not None:
        profile.enable()
    cpu_start = time.process_time()
    start = clock()
    for group, keys in entries:
        began = clock()
        out = scheduler.schedule_pod_group(group, keys)
        stamps.append(clock())
        cpu_stamps.append(time.process_time())
        latencies.append(stamps[-1] - began)
        bound = [r.node for r in out.pod_results if r.node is not None]
        pods_total += len(out.pod_results)
        pods_scheduled += len(bound)
        if out.scheduled and len(bound) == len(keys) == len(out.pod_results):
            groups_scheduled += 1
        if topology is not None and bound:
            domains = max(domains, len({cluster.nodes[n].metadata.labels.get(topology) for n in bound}))
    cpu = time.process_time() - cpu_start
    if profile is not None:
        profile.disable()
    elapsed, k, first, last = _windows(stamps, start, window)
    return {
        "workload": name,
        "nodes": n_nodes,
        "init_pods": n_init,
        "init_scheduled": sum(r.node is not None for r in init_results),
        "groups": len(stamps),
        "groups_scheduled": groups_scheduled,
        "groups_unschedulable": len(stamps) - groups_scheduled,
        "group_sizes": [lo, hi],
        "pods": pods_total,
        "scheduled": pods_scheduled,
        "unschedulable": pods_total - pods_scheduled,
        "topology_key": topology,
        "domains": len({n.metadata.labels[topology] for n in cluster.nodes.values() if topology in n.metadata.labels})
        if topology is not None else None,
        "domains_per_group": domains if topology is not None else None,
        "seconds": round(elapsed, 3),
        "groups_per_second": _rate(len(stamps), elapsed),
        "pods_per_second": _rate(pods_total, elapsed),
        "window": k,
        "first_window_groups_per_second": _rate(k, first),
        "last_window_groups_per_second": _rate(k, last),
        "group_latency_ms": {"p50": _percentile_ms(latencies, 0.5), "p90": _percentile_ms(latencies, 0.9),
                             "p99": _percentile_ms(latencies, 0.99)},
        "upstream_threshold": w.threshold,
        "peak_rss_mb": round(peak_rss_mb(), 1),
        "keep_traces": keep_traces,
        "cpu_seconds": round(cpu, 3),
        "groups_per_cpu_second": _rate(len(stamps), cpu),
        "pods_per_cpu_second": _rate(pods_total, cpu),
        "gates": {g: v for g, v in fg.as_dict().items()
                  if g in ("GenericWorkload", "TopologyAwareWorkloadScheduling", "CompositePodGroup")},
    }


# -- DRA workloads: upstream's dra/performance-config.yaml -------------------------------------------------------
DRA_DRIVER = "test-driver.cdi.k8s.io"
#: dra/templates/deviceclass.yaml
DEVICE_CLASS = {
    "apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
    "metadata": {"name": "test-class"},
    "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRA_DRIVER}"'}}]},
}
#: dra/templates/resourceclaimtemplate.yaml (one request, no selectors, no constraints)
RESOURCE_CLAIM_TEMPLATE = {
    "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
    "metadata": {"name": "test-claim-template"},
    "spec": {"spec": {"devices": {"requests": [{"name": "req-0", "exactly": {"deviceClassName": "test-class"}}]}}},
}
#: dra/templates/resourceclaim.yaml (named ``test-claim-<index>``)
RESOURCE_CLAIM = {
    "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
    "metadata": {"name": "test-claim-"},
    "spec": {"devices": {"requests": [{"name": "req-0", "exactly": {"deviceClassName": "test-class"}}]}},
}
#: dra/templates/pod-with-claim-template.yaml
POD_WITH_CLAIM_TEMPLATE = {
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "test-dra-"},
    "spec": {"containers": [{"image": "registry.k8s.io/pause:3.10.1", "name": "pause",
                             "resources": {"claims": [{"name": "resource"}]}}],
             "resourceClaims": [{"name": "resource", "resourceClaimTemplateName": "test-claim-template"}]},
}
#: dra/templates/pod-with-claim-ref.yaml (``resourceClaimName: test-claim-{index / 5}``, set per pod)
POD_WITH_CLAIM_REF = {
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "test-dra-"},
    "spec": {"containers": [{"image": "registry.k8s.io/pause:3.9", "name": "pause",
                             "resources": {"claims": [{"name": "resource"}]}}],
             "resourceClaims": [{"name": "resource", "resourceClaimName": "test-claim-0"}]},
}
#: dra/templates/node-with-dra-test-driver.yaml (capacity only: allocatable defaults to it)
NODE_WITH_DRA = {
    "apiVersion": "v1", "kind": "Node",
    "metadata": {"name": "scheduler-perf-dra-"},
    "status": {"capacity": {"pods": "110", "cpu": "4", "memory": "32Gi"},
               "allocatable": {"pods": "110", "cpu": "4", "memory": "32Gi"},
               "conditions": [{"status": "True", "type": "Ready"}], "phase": "Running"},
}


@dataclass(frozen=True)
class DRAWorkload:
    """A DRA test case of ``dra/performance-config.yaml``: ``createNodes`` (``nodes_without_dra``
    from node-default.yaml, then ``nodes_with_dra`` named ``scheduler-perf-dra-<i>``),
    ``createResourceDriver`` (one ResourceSlice per DRA node with ``max_claims_per_node`` devices),
    ``createAny`` DeviceClass ``test-class``, then for namespace ``init`` (scheduled untimed) and
    ``test`` (measured) either a ResourceClaimTemplate and pods with a claim from it
    (``pods_per_claim`` 0) or ``pods / pods_per_claim`` claims ``test-claim-<i>`` shared by
    ``pods_per_claim`` pods each (``resourceClaimName: test-claim-{index / pods_per_claim}``)."""

    nodes_with_dra: int
    nodes_without_dra: int
    init_pods: int
    measure_pods: int
    max_claims_per_node: int
    #: 0: a claim per pod from the ResourceClaimTemplate; n: n pods share one named ResourceClaim
    pods_per_claim: int = 0
    threshold: int | None = None
    upstream: str = ""

    def __getitem__(self, key: str):
        return getattr(self, key)


DRA_WORKLOADS: dict[str, DRAWorkload] = {
    "SchedulingWithResourceClaimTemplate": DRAWorkload(
        500, 0, 2500, 2500, 10, threshold=56,
        upstream="dra/performance-config.yaml SchedulingWithResourceClaimTemplate/"
                 "5000pods_500nodes_QueueingHintsEnabled (threshold 56, 'typically above 70'; "
                 "40 for the case with SchedulerQueueingHints off)"),
    "SchedulingWithResourceClaim": DRAWorkload(
        500, 0, 2500, 2500, 2, pods_per_claim=5,
        upstream="dra/performance-config.yaml SchedulingWithResourceClaim/5000pods_500nodes "
                 "(500 + 500 claims, 5 pods per claim; no threshold)"),
}


def dra_resource_slice(driver: str, node_name: str, capacity: int) -> dict:
    """``createResourceDriver``'s slice for one node (upstream ``resourceSlice`` in
    scheduler_perf's dra.go): named and pooled after the node, ``capacity`` devices
    ``instance-<i>`` with attributes model ``A100``, family ``GPU``, driverVersion ``1.2.3``,
    ``dra.example.com/numa`` = i and 1Gi of memory. The binding-condition fields upstream adds
    for its DRABindingConditions cases are left out: these workloads do not wait for devices.

    >>> s = dra_resource_slice(DRA_DRIVER, "n1", 2)
    >>> s["spec"]["pool"], [d["name"] for d in s["spec"]["devices"]]
    ({'name': 'n1', 'generation': 1, 'resourceSliceCount': 1}, ['instance-0', 'instance-1'])
    """
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
            "metadata": {"name": node_name},
            "spec": {"driver": driver, "nodeName": node_name,
                     "pool": {"name": node_name, "generation": 1, "resourceSliceCount": 1},
                     "devices": [{"name": f"instance-{i}",
                                  "attributes": {"model": {"string": "A100"}, "family": {"string": "GPU"},
                                                 "driverVersion": {"version": "1.2.3"},
                                                 "dra.example.com/numa": {"int": i}},
                                  "capacity": {"memory": {"value": "1Gi"}}} for i in range(capacity)]}}


def make_dra_nodes(with_dra: int, without_dra: int) -> list:
    """``createNodes`` twice: node-default.yaml nodes, then node-with-dra-test-driver.yaml
    nodes ``scheduler-perf-dra-<i>``; every node gets its hostname label."""
    nodes = make_nodes(without_dra)
    for i in range(with_dra):
        node = Node.model_validate(NODE_WITH_DRA)
        name = f"scheduler-perf-dra-{i}"
        node.metadata.name = name
        node.metadata.labels = {LABEL_HOSTNAME: name}
        nodes.append(node)
    return nodes


def make_dra_pods(count: int, namespace: str, pods_per_claim: int = 0) -> list:
    """``createPods`` of pod-with-claim-template.yaml (``pods_per_claim`` 0) or
    pod-with-claim-ref.yaml: admitted once, copied, named ``test-dra-NNNNN``, each with its own
    UID (the claims the controller generates are owned by it)."""
    import uuid

    template = POD_WITH_CLAIM_REF if pods_per_claim else POD_WITH_CLAIM_TEMPLATE
    pods = make_pods(count, "test-dra", template, namespace)
    for i, pod in enumerate(pods):
        pod.metadata.uid = str(uuid.uuid5(uuid.NAMESPACE_URL, f"kschedlab/scheduler_perf/{namespace}/{i}"))
        if pods_per_claim:
            pod.spec.resource_claims[0].resource_claim_name = f"test-claim-{i // pods_per_claim}"
    return pods


def make_dra_objects(w: DRAWorkload, nodes: list, init_pods: int, measure_pods: int) -> list:
    """The API objects besides nodes and pods: namespaces ``init`` and ``test``, a ResourceSlice
    per ``scheduler-perf-dra-*`` node, the DeviceClass, and per namespace the
    ResourceClaimTemplate or the shared claims (``pods / pods_per_claim`` of them), admitted."""
    from kschedlab.api.resource import DeviceClass, ResourceClaim, ResourceClaimTemplate, ResourceSlice

    objs: list = [Namespace.model_validate({"metadata": {"name": ns}}) for ns in ("init", "test")]
    objs += [ResourceSlice.model_validate(dra_resource_slice(DRA_DRIVER, n.metadata.name, w.max_claims_per_node))
             for n in nodes if n.metadata.name.startswith("scheduler-perf-dra-")]
    objs.append(DeviceClass.model_validate(DEVICE_CLASS))
    for ns, pods in (("init", init_pods), ("test", measure_pods)):
        if w.pods_per_claim:
            for i in range(-(-pods // w.pods_per_claim)):
                data = {**RESOURCE_CLAIM, "metadata": {"name": f"test-claim-{i}", "namespace": ns}}
                objs.append(ResourceClaim.model_validate(data))
        else:
            objs.append(ResourceClaimTemplate.model_validate(
                {**RESOURCE_CLAIM_TEMPLATE, "metadata": {**RESOURCE_CLAIM_TEMPLATE["metadata"], "namespace": ns}}))
    return admit(objs)


def run_dra_workload(name: str = "SchedulingWithResourceClaimTemplate", *, nodes: int | None = None,
                     init_pods: int | None = None, measure_pods: int | None = None,
                     max_claims_per_node: int | None = None, keep_traces: int | None = 1000, seed: int = 0,
                     window: int = 500, progress: bool = False, gates=None, cel_timing: bool = False,
                     profile=None) -> dict:
    """Build a DRA workload, schedule the init pods, then time the measured pods.

    ``nodes`` overrides the number of DRA nodes, ``max_claims_per_node`` the devices in each
    node's slice. Every pod goes through the ResourceClaim controller (claims from the template
    created, ``status.resourceClaimStatuses`` set) when it is created, before the scheduler sees
    it: upstream's controller runs beside the scheduler, so its time is reported apart
    (``controller_seconds``) and not in the rate. The measured pods are scheduled one attempt
    each in queue order, with the DynamicResources plugin allocating a device at PreFilter /
    Filter / Reserve and writing the claim at PreBind. ``cel_timing`` times every selector
    evaluation (:func:`kschedlab.api.dracel.evaluation_timer`): ``cel_evaluations``,
    ``cel_seconds`` and ``cel_share`` (of the measured CPU time). ``profile`` (a
    ``cProfile.Profile``) is enabled around the measured pods only.

    >>> r = run_dra_workload("SchedulingWithResourceClaimTemplate", nodes=3, init_pods=4, measure_pods=5,
    ...                      max_claims_per_node=3)
    >>> r["init_scheduled"], r["scheduled"], r["unschedulable"], r["claims_allocated"]
    (4, 5, 0, 9)
    """
    from kschedlab.api.dracel import evaluation_timer
    from kschedlab.dra.resourceclaim_controller import ResourceClaimController

    if name not in DRA_WORKLOADS:
        raise ValueError(f"unknown DRA workload {name!r}; known: {', '.join(DRA_WORKLOADS)}")
    w = DRA_WORKLOADS[name]
    n_dra = w.nodes_with_dra if nodes is None else nodes
    n_init = w.init_pods if init_pods is None else init_pods
    n_measure = w.measure_pods if measure_pods is None else measure_pods
    per_node = w.max_claims_per_node if max_claims_per_node is None else max_claims_per_node
    w_eff = DRAWorkload(n_dra, w.nodes_without_dra, n_init, n_measure, per_node, w.pods_per_claim)

    node_objs = make_dra_nodes(n_dra, w.nodes_without_dra)
    cluster = Cluster(node_objs)
    for obj in make_dra_objects(w_eff, node_objs, n_init, n_measure):
        cluster.add(obj)
    scheduler = Scheduler(cluster, seed=seed, keep_traces=keep_traces, gates=gates, clock=time.monotonic)
    controller = ResourceClaimController(cluster, seed=seed)
    controller_seconds = 0.0

    def create(pods: list) -> list[str]:
        nonlocal controller_seconds
        keys = []
        for pod in pods:
            cluster.add(pod)
            began = time.perf_counter()
            errors = controller.sync_pod(pod)
            controller_seconds += time.perf_counter() - began
            if errors:
                raise RuntimeError(f"ResourceClaim controller: {errors[0]}")
            keys.append(pod_key(pod))
        return keys

    init_results = scheduler.run(create(make_dra_pods(n_init, "init", w.pods_per_claim))) if n_init else []
    keys = create(make_dra_pods(n_measure, "test", w.pods_per_claim))
    queue = scheduler.queue(keys)
    if progress:
        from tqdm.auto import tqdm

        queue = tqdm(queue, desc=name, unit="pod")
    results, stamps, cpu_stamps = [], [], []
    clock = time.perf_counter
    with evaluation_timer(cel_timing) as cel:
        if profile is not None:
            profile.enable()
        cpu_start = time.process_time()
        start = clock()
        for q in queue:
            results.append(scheduler.schedule_one(q.pod_info.key))
            stamps.append(clock())
            cpu_stamps.append(time.process_time())
        cpu = time.process_time() - cpu_start
        if profile is not None:
            profile.disable()
    elapsed, k, first, last = _windows(stamps, start, window)
    _, _, cpu_first, cpu_last = _windows(cpu_stamps, cpu_start, window)
    claims = cluster.objects.get("ResourceClaim", {}).values()
    return {
        "workload": name,
        "nodes": n_dra + w.nodes_without_dra,
        "nodes_with_dra": n_dra,
        "devices_per_node": per_node,
        "pods_per_claim": w.pods_per_claim or 1,
        "init_pods": n_init,
        "init_scheduled": sum(r.node is not None for r in init_results),
        "pods": len(results),
        "scheduled": sum(r.node is not None for r in results),
        "unschedulable": sum(r.node is None for r in results),
        "claims": len(claims),
        "claims_allocated": sum(c.status is not None and c.status.allocation is not None for c in claims),
        "seconds": round(elapsed, 3),
        "pods_per_second": _rate(len(results), elapsed),
        "upstream_threshold": w.threshold,
        "window": k,
        "first_window_pods_per_second": _rate(k, first),
        "last_window_pods_per_second": _rate(k, last),
        "cpu_seconds": round(cpu, 3),
        "pods_per_cpu_second": _rate(len(results), cpu),
        "first_window_pods_per_cpu_second": _rate(k, cpu_first),
        "last_window_pods_per_cpu_second": _rate(k, cpu_last),
        "controller_seconds": round(controller_seconds, 3),
        "cel_timing": cel_timing,
        "cel_evaluations": cel.evaluations if cel_timing else None,
        "cel_seconds": round(cel.seconds, 3) if cel_timing else None,
        "cel_share": round(cel.seconds / cpu, 3) if cel_timing and cpu > 0 else None,
        "peak_rss_mb": round(peak_rss_mb(), 1),
        "keep_traces": keep_traces,
    }



# -- every shape at once: ``kschedlab bench`` -----------------------------------------------------------------------
#: the shapes ``kschedlab bench`` runs, in its table's order
BENCH_SHAPES = ("SchedulingBasic", "SchedulingPodAntiAffinity", "SchedulingPodAffinity", "TopologySpreading",
                "PreemptionBasic", "Unschedulable", "SchedulingWithMixedChurn", "GangScheduling",
                "TopologyAwareScheduling", "SchedulingWithResourceClaimTemplate", "SchedulingWithResourceClaim")


def _scaled(value: int, scale: float, least: int = 1) -> int:
    return max(least, int(round(value * scale))) if value else 0


def run_shape(name: str, scale: float = 1.0, *, keep_traces: int | None = 1000, seed: int = 0,
              gates=None) -> dict:
    """One shape of :data:`BENCH_SHAPES` at ``scale`` times upstream's sizes (nodes, init pods and
    measured pods; gangs: nodes, groups and nodes per rack; DRA: nodes with devices and pods), as
    one row of :func:`bench_table`: ``shape``, ``nodes``, ``pods``, ``scheduled``,
    ``pods_per_second``, ``pods_per_cpu_second``, ``peak_rss_mb``, ``upstream_threshold`` and, for
    SchedulingBasic and the shapes with a floor, ``reference_ratio`` (:func:`numpy_reference` or
    :func:`kschedlab.perf_floors.shape_floor`, same run). ``gates`` (FeatureGates
    or a dict) override the shape's feature gates.

    >>> row = run_shape("SchedulingBasic", 0.004)
    >>> row["nodes"], row["pods"], row["scheduled"], row["reference_ratio"] is not None
    (20, 40, 40, True)
    """
    if name in WORKLOADS:
        w = WORKLOADS[name]
        r = run_workload(name, nodes=_scaled(w.nodes, scale), init_pods=_scaled(w.init_pods, scale),
                         measure_pods=_scaled(w.measure_pods, scale), keep_traces=keep_traces, seed=seed,
                         reference=name == "SchedulingBasic" or name in FLOOR_SHAPES, gates=gates)
        nodes = r["nodes"]
    elif name in GANG_WORKLOADS:
        g = GANG_WORKLOADS[name]
        r = run_gang_workload(name, nodes=_scaled(g.nodes, scale), groups=_scaled(g.measure_groups, scale),
                              nodes_per_domain=_scaled(g.nodes_per_domain, scale, least=5), keep_traces=keep_traces,
                              seed=seed, gates=gates)
        nodes = r["nodes"]
    elif name in DRA_WORKLOADS:
        d = DRA_WORKLOADS[name]
        r = run_dra_workload(name, nodes=_scaled(d.nodes_with_dra, scale), init_pods=_scaled(d.init_pods, scale),
                             measure_pods=_scaled(d.measure_pods, scale), keep_traces=keep_traces, seed=seed,
                             gates=gates)
        nodes = r["nodes"]
    else:
        raise ValueError(f"unknown shape {name!r}; known: {', '.join(BENCH_SHAPES)}")
    return {"shape": name, "nodes": nodes, "pods": r["pods"], "scheduled": r["scheduled"],
            "pods_per_second": r["pods_per_second"], "pods_per_cpu_second": r["pods_per_cpu_second"],
            "peak_rss_mb": r["peak_rss_mb"], "upstream_threshold": r["upstream_threshold"],
            "reference_ratio": r.get("reference_ratio"), "seconds": r["seconds"]}


def _shape_in_child(conn, name: str, scale: float, keep_traces, seed: int, gates) -> None:
    try:
        conn.send(("ok", run_shape(name, scale, keep_traces=keep_traces, seed=seed, gates=gates)))
    except BaseException as err:  # reported by the parent, with the shape's name
        conn.send(("error", f"{type(err).__name__}: {err}"))
    finally:
        conn.close()


def run_bench(shapes=None, scale: float = 1.0, *, keep_traces: int | None = 1000, seed: int = 0,
              isolate: bool = True, on_row=None, gates=None) -> list[dict]:
    """Run ``shapes`` (default :data:`BENCH_SHAPES`) one after the other with :func:`run_shape`.
    ``isolate`` runs each in a forked process of its own, so ``peak_rss_mb`` is that shape's peak
    (the parent's memory at the fork included) and one shape's leftovers do not slow the next.
    ``on_row(row)`` is called as each row is ready; ``gates`` as in :func:`run_shape`.

    >>> rows = run_bench(["SchedulingBasic", "Unschedulable"], 0.004, isolate=False)
    >>> [(r["shape"], r["nodes"], r["pods"]) for r in rows]
    [('SchedulingBasic', 20, 40), ('Unschedulable', 20, 40)]
    """
    import multiprocessing

    names = list(BENCH_SHAPES if not shapes else shapes)
    unknown = [n for n in names if n not in BENCH_SHAPES]
    if unknown:
        raise ValueError(f"unknown shape(s) {', '.join(unknown)}; known: {', '.join(BENCH_SHAPES)}")
    if not scale > 0:
        raise ValueError(f"scale must be greater than 0, got {scale}")
    rows = []
    for name in names:
        if isolate:
            ctx = multiprocessing.get_context("fork")
            parent, child = ctx.Pipe(duplex=False)
            proc = ctx.Process(target=_shape_in_child, args=(child, name, scale, keep_traces, seed, gates))
            proc.start()
            child.close()
            try:
                kind, payload = parent.recv()
            except EOFError:
                kind, payload = "error", f"the process running it ended with exit code {proc.exitcode}"
            proc.join()
            if kind == "error":
                raise RuntimeError(f"bench shape {name}: {payload}")
            row = payload
        else:
            row = run_shape(name, scale, keep_traces=keep_traces, seed=seed, gates=gates)
        rows.append(row)
        if on_row is not None:
            on_row(row)
    return rows


def bench_table(rows: list[dict]) -> str:
    """The rows of :func:`run_bench` as one text table (``-`` where a value is missing).

    >>> print(bench_table([{"shape": "SchedulingBasic", "nodes": 20, "pods": 40, "scheduled": 40,
    ...     "pods_per_second": 1500.0, "pods_per_cpu_second": 1600.0, "peak_rss_mb": 120.0,
    ...     "upstream_threshold": 680, "reference_ratio": 2.5}]))
    shape            nodes  pods  scheduled  pods/s  pods/CPU-s  peak memory  upstream threshold  numpy loop / this
    ---------------  -----  ----  ---------  ------  ----------  -----------  ------------------  -----------------
    SchedulingBasic     20    40         40  1500.0      1600.0       120 MB                 680               2.5x
    """
    header = ("shape", "nodes", "pods", "scheduled", "pods/s", "pods/CPU-s", "peak memory", "upstream threshold",
              "numpy loop / this")

    def cell(value, fmt="{}"):
        return "-" if value is None else fmt.format(value)

    body = [(r["shape"], cell(r["nodes"], "{:,}"), cell(r["pods"], "{:,}"), cell(r["scheduled"], "{:,}"),
             cell(r["pods_per_second"]), cell(r["pods_per_cpu_second"]), cell(r["peak_rss_mb"], "{:.0f} MB"),
             cell(r["upstream_threshold"]), cell(r.get("reference_ratio"), "{}x")) for r in rows]
    widths = [max(len(header[i]), *(len(b[i]) for b in body)) for i in range(len(header))]
    lines = ["  ".join(h.ljust(w) if i == 0 else h.rjust(w) for i, (h, w) in enumerate(zip(header, widths))).rstrip()]
    lines[0] = "  ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip()
    lines.append("  ".join("-" * w for w in widths))
    for b in body:
        lines.append("  ".join(v.ljust(w) if i == 0 else v.rjust(w) for i, (v, w) in enumerate(zip(b, widths))))
    return "\n".join(lines)


def scaling_runs(node_counts=(1000, 5000, 15000), *, init_pods: int = 1000, measure_pods: int = 3000,
                 keep_traces: int | None = 1000, seed: int = 0, isolate: bool = True):
    """SchedulingBasic at several cluster sizes (pod-default.yaml pods, ``init_pods`` placed first,
    ``measure_pods`` measured): a pandas DataFrame with one row per size: ``nodes``,
    ``nodes_to_find`` (upstream's adaptive ``numFeasibleNodesToFind``), ``pods_per_cpu_second``,
    ``cpu_us_per_pod``, ``cpu_ns_per_pod_per_node`` (flat or falling: the cost per pod grows at
    most linearly with the nodes) and ``peak_rss_mb``; ``isolate`` runs each size in a forked
    process.

    >>> df = scaling_runs((20, 40), init_pods=10, measure_pods=20, isolate=False)
    >>> df["nodes"].tolist(), df["nodes_to_find"].tolist()
    ([20, 40], [20, 40])
    """
    import multiprocessing

    import pandas as pd

    from kschedlab.scheduler import num_feasible_nodes_to_find

    def one(n: int) -> dict:
        return run_workload("SchedulingBasic", nodes=n, init_pods=init_pods, measure_pods=measure_pods,
                            keep_traces=keep_traces, seed=seed)

    rows = []
    for n in node_counts:
        if isolate:
            ctx = multiprocessing.get_context("fork")
            with ctx.Pool(1, maxtasksperchild=1) as pool:
                r = pool.apply(run_workload, ("SchedulingBasic",),
                               {"nodes": n, "init_pods": init_pods, "measure_pods": measure_pods,
                                "keep_traces": keep_traces, "seed": seed})
        else:
            r = one(n)
        us = 1e6 * r["cpu_seconds"] / r["pods"] if r["pods"] else None
        rows.append({"nodes": n, "nodes_to_find": num_feasible_nodes_to_find(0, n), "pods": r["pods"],
                     "scheduled": r["scheduled"], "pods_per_second": r["pods_per_second"],
                     "pods_per_cpu_second": r["pods_per_cpu_second"],
                     "cpu_us_per_pod": None if us is None else round(us, 1),
                     "cpu_ns_per_pod_per_node": None if us is None else round(1000 * us / n, 2),
                     "peak_rss_mb": r["peak_rss_mb"]})
    return pd.DataFrame(rows)
