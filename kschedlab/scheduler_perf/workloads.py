"""The pod workloads of upstream's scheduler_perf (``misc``, ``affinity``, ``topology_spreading``,
``default_preemption``; their churn ops), run by :func:`run_workload`.

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

import time
from dataclasses import dataclass, field
from typing import Iterable

import numpy as np

from kschedlab.api.core import Namespace, Node
from kschedlab.api.quantity import Quantity
from kschedlab.apiserver.admission import admit
from kschedlab.cluster import Cluster
from kschedlab.framework.status import Code
from kschedlab.framework.types import pod_key
from kschedlab.perf_floors import FLOOR_SHAPES, default_nodes, feasible_from, pick_best, resource_totals, shape_floor
from kschedlab.scheduler import Scheduler
from kschedlab.scheduler_perf.dra import DRA_WORKLOADS, run_dra_workload
from kschedlab.scheduler_perf.gang import GANG_WORKLOADS, run_gang_workload
from kschedlab.scheduler_perf.measure import MeasuredPhase, peak_rss_mb, per_second
from kschedlab.scheduler_perf.templates import (
    LABEL_ZONE,
    NODE_CHURN,
    POD_DEFAULT,
    POD_HIGH_PRIORITY,
    POD_HIGH_PRIORITY_LARGE_CPU,
    POD_LOW_PRIORITY,
    POD_WITH_POD_AFFINITY,
    POD_WITH_POD_ANTI_AFFINITY,
    POD_WITH_TOPOLOGY_SPREADING,
    SERVICE_CHURN,
    make_nodes,
    make_pods,
)


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


def numpy_reference(nodes: int = 5000, init_pods: int = 1000, measure_pods: int = 10000, *, seed: int = 0,
                    cpu_milli: int = 100, memory: int = 500 * 2**20, churn: Iterable[tuple[int, str]] = ()) -> dict:
    """The minimal numpy loop doing SchedulingBasic's work for every pod: NodeResourcesFit's
    check (cpu, memory, pod count) over the nodes, the first ``numFeasibleNodesToFind`` feasible
    nodes from a rotating start, LeastAllocated + BalancedAllocation scores (cpu and memory,
    weight 1, upstream's integer arithmetic) and the best node (ties drawn as the scheduler
    draws them), then the pod's requests added to that node. No plugins, no traces, no API
    objects: the yardstick ``kschedlab bench`` compares SchedulingBasic with, in the same run.

    ``churn`` makes it the floor of the churn workloads (Unschedulable, SchedulingWithMixedChurn):
    their ``churn`` op's steps, ``(measured pod, step)``, as the measured phase met them
    (``run_workload``'s ``churn_steps``): ``"pod"``, a pod-high-priority-large-cpu.yaml pod
    attempted (NodeResourcesFit's check over every node finds none, and no node could hold it
    even emptied, so PostFilter has no node to try: neither the rotating start nor the random
    draws move); ``"node"``, the churn node added after the others (room for no pod: one more
    node the Filter visits and the rotating start counts); ``"drop"``, that node removed. The
    churn Service changes nothing here (no pod matches its selector).

    Returns ``pods_per_cpu_second`` over the measured pods, the node of every pod, init pods
    first (the same nodes as the scheduler chooses for pod-default.yaml pods on node-default.yaml
    nodes: the other default plugins give every node the same score there), and ``churn_pending``,
    the churn pods left pending.

    >>> r = numpy_reference(20, 10, 30)
    >>> len(r["placements"]), r["placements"][:3]
    (40, [12, 14, 1])
    >>> r = numpy_reference(20, 10, 30, churn=[(0, "node"), (0, "pod"), (5, "drop")])
    >>> r["placements"][10:13], r["churn_pending"]
    ([18, 4, 3], 1)
    """
    import random

    from kschedlab.scheduler import num_feasible_nodes_to_find

    steps = sorted(churn, key=lambda s: s[0])  # stable: a tick's steps keep their order
    extra = int(any(step == "node" for _, step in steps))  # a column for the churn node, empty
    rng = random.Random(seed)
    alloc, alloc_f, used, count = default_nodes(nodes + extra)
    max_pods = np.full(nodes + extra, 110, np.int64)
    alloc[:, nodes:] = 0
    max_pods[nodes:] = 0
    want = np.array([cpu_milli, memory], np.int64)
    requests = POD_HIGH_PRIORITY_LARGE_CPU["spec"]["containers"][0]["resources"]["requests"]
    large = np.array([[Quantity.parse(requests["cpu"]).milli_value()], [Quantity.parse(requests["memory"]).value()]])
    live = nodes
    to_find = num_feasible_nodes_to_find(0, live)
    start = 0
    placements: list[int] = []
    next_step = churn_pending = 0
    cpu_start = 0.0
    for i in range(init_pods + measure_pods):
        if i == init_pods:
            cpu_start = time.process_time()
        while next_step < len(steps) and steps[next_step][0] <= i - init_pods:
            step = steps[next_step][1]
            next_step += 1
            if step == "pod":  # pending when it fits no node and no node could hold it emptied
                free = alloc[:, :live] - used[:, :live]
                fits = (free >= large).all(axis=0) & (count[:live] < max_pods[:live])
                never = (large > alloc[:, :live]).any(axis=0) | (max_pods[:live] == 0)
                churn_pending += not fits.any() and bool(never.all())
            else:
                live = nodes + (step == "node")
                to_find = num_feasible_nodes_to_find(0, live)
        free = alloc[:, :live] - used[:, :live]
        feasible = np.flatnonzero((free[0] >= want[0]) & (free[1] >= want[1]) & (count[:live] + 1 <= max_pods[:live]))
        feasible, processed = feasible_from(feasible, start % live, to_find, live)
        if not len(feasible):
            placements.append(-1)
            start = start % live
            continue
        start = (start % live + processed) % live
        total = resource_totals(alloc, alloc_f, used, want, feasible)
        pick = pick_best(feasible, total, rng)
        used[:, pick] += want
        count[pick] += 1
        placements.append(pick)
    cpu = time.process_time() - cpu_start
    return {"pods": measure_pods, "cpu_seconds": round(cpu, 3), "pods_per_cpu_second": per_second(measure_pods, cpu),
            "placements": placements, "churn_pending": churn_pending}


def run_workload(name: str = "SchedulingBasic", *, nodes: int | None = None, init_pods: int | None = None,
                 measure_pods: int | None = None, keep_traces: int | None = 1000, seed: int = 0,
                 window: int | None = None, progress: bool = False, gates=None, reference: bool = False,
                 profile=None, churn_interval_ms: int | None = None, config=None, registry: dict | None = None,
                 fast_path: bool = True, placements: bool = False) -> dict:
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
    :func:`kschedlab.perf_floors.shape_floor`) with the same counts in the same process and reports
    its ``reference_pods_per_cpu_second`` and
    ``reference_ratio`` (its rate over this one, both per CPU second: steady on a busy machine).
    ``config`` (a KubeSchedulerConfiguration), ``registry`` (plugins of one's own) and ``fast_path``
    are handed to the :class:`~kschedlab.scheduler.Scheduler`.
    ``profile`` (a ``cProfile.Profile``) is enabled around the measured pods only. The objects
    built before the measured pods are frozen out of the cyclic garbage collector meanwhile
    (``gc.freeze``; walking them on every full collection slowed the last measured pods) and the
    collector runs less often (:data:`MEASURED_GC_THRESHOLDS`). A workload
    with a ``churn`` op (Unschedulable, SchedulingWithMixedChurn) runs it on the measured phase's
    wall clock (``churn_interval_ms`` overrides the interval); ``churn_ticks`` and
    ``churn_pods`` report it, ``churn_steps`` what each tick did and before which measured pod
    (the steps :func:`numpy_reference` takes as the floor of these workloads). ``placements`` adds
    the node row of every pod, init pods first (-1: none).

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
                                 reference=reference, **({} if window is None else {"window": window}))
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
    scheduler = Scheduler(cluster, config, seed=seed, keep_traces=keep_traces, gates=gates, clock=time.monotonic,
                          registry=registry, fast_path=fast_path)
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
    attempts = preemptions = victims = batched = 0
    churn = None
    if w.churn is not None:
        interval = (w.churn.interval_ms if churn_interval_ms is None else churn_interval_ms) / 1000
        churn = _ChurnRunner(w.churn, cluster, scheduler, interval, seed)
    with MeasuredPhase(profile) as run:
        if churn is not None:
            churn.start(run.start)
        for index, q in enumerate(queue):
            if churn is not None:
                churn.run_due(time.perf_counter(), index)
            key = q.pod_info.key
            before = len(cluster.pods)
            result = scheduler.schedule_one(key)
            attempts += 1
            batched += result.trace is not None and result.trace.batched
            status = cluster.pods[key].status
            # (a pod held at Permit also shows its node, NominatedNodeNameForExpectation: no preemption)
            if (result.node is None and result.status.code != Code.Wait and status is not None
                    and status.nominated_node_name):
                preemptions += 1
                victims += before - len(cluster.pods)
                result = scheduler.schedule_one(key)
                attempts += 1
            results.append(result)
            run.stamp()
    extra: dict = {}
    if churn is not None:
        extra = {"churn_ticks": churn.ticks, "churn_pods": churn.pods, "churn_steps": churn.steps}
    if placements:
        index = cluster.snapshot.index
        extra["placements"] = [-1 if r.node is None else index[r.node] for r in [*init_results, *results]]
    if reference:
        ref = (shape_floor(name, n_nodes, n_init, n_measure, seed=seed) if name in FLOOR_SHAPES
               else numpy_reference(n_nodes, n_init, n_measure, seed=seed,
                                    churn=churn.steps if churn is not None else ()))
        rate = per_second(len(results), run.cpu)
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
        "upstream_threshold": w.threshold,
        "peak_rss_mb": round(peak_rss_mb(), 1),
        "keep_traces": keep_traces,
        "attempts": attempts,
        "preemptions": preemptions,
        "victims": victims,
        **run.rates(len(results), window),
        "batched": batched,
        **extra,
    }


class _ChurnRunner:
    """Runs a workload's :class:`Churn` op on the measured phase's wall clock (upstream's ticker)."""

    def __init__(self, churn: Churn, cluster, scheduler, interval: float, seed: int):
        self.churn, self.cluster, self.scheduler, self.interval = churn, cluster, scheduler, interval
        self.ticks = self.pods = 0
        self.live: list[tuple[str, str]] = []  # recreate: what the last tick created
        #: (measured pod, step) for each step that touched the scheduler: "pod", "node", "drop"
        self.steps: list[tuple[int, str]] = []
        self.next_at = 0.0
        self._pod = None

    def start(self, now: float) -> None:
        self.next_at = now + self.interval

    def run_due(self, now: float, index: int) -> None:
        """The tick due by ``now``, if any, before measured pod ``index``; like Go's ``time.Ticker``,
        ticks missed while the scheduler was busy are dropped, not caught up."""
        if self.interval > 0 and now >= self.next_at:
            self.tick(index)
            self.next_at += self.interval
            if self.next_at <= now:
                self.next_at = now + self.interval

    def tick(self, index: int) -> None:
        n = self.ticks
        self.ticks += 1
        if self.churn.mode == "recreate" and self.live:
            for kind, key in self.live:
                if kind == "node":
                    self.cluster.remove_node(key)
                    self.steps.append((index, "drop"))
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
                self.steps.append((index, "node"))
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
                self.steps.append((index, "pod"))
                self.live.append(("pod", key))
