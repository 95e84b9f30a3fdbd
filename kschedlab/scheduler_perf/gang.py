"""Gang workloads (:data:`GANG_WORKLOADS`, :func:`run_gang_workload`; ``run_workload`` and
``kschedlab bench`` reach them by name) replay ``podgroup/gangscheduling`` and ``podgroup/tas``
(feature gate GenericWorkload; TopologyAwareWorkloadScheduling for the second):
``createNodes``, ``createNamespaces``, ``createPodGroups`` (``gang-<i>``, gang policy,
``minCount`` = the group's size), ``createPods`` (``podGroupName: gang-<index / size>``,
100m / 100Mi), every group scheduled whole through one PodGroup cycle and timed.

========================  ======  ==========================  ========  ===========  ====================
workload                  nodes   node labels                 measured  group size   topology constraint
========================  ======  ==========================  ========  ===========  ====================
GangScheduling            5,000   --                          1,000     8-64 seeded  --
TopologyAwareScheduling   5,000   zone-/rack-{i/100} (50)     750       8-64 seeded  topology.kubernetes.io/rack
========================  ======  ==========================  ========  ===========  ====================

Upstream's cases have fixed sizes (``5000Nodes_1000Gangs_3000Pods``: 3 pods a gang;
``5000Nodes_750Gangs_3000Pods``: 4) and no threshold; the sizes here are 8 to 64 pods drawn from
the seed (``min_size == max_size`` replays a fixed size). TopologyAwareScheduling measures
upstream's 750 groups: with the adaptive ``percentageOfPlacementsToScore`` (50 racks of 100 nodes:
10%) a group is tried in racks until 5 are found feasible, not in all 50.
With ``--pods`` a gang workload takes the fewest seeded groups holding that many pods.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from kschedlab.api.core import Namespace, Pod
from kschedlab.apiserver.admission import admit, admit_pod
from kschedlab.cluster import Cluster
from kschedlab.scheduler import Scheduler
from kschedlab.scheduler_perf.measure import peak_rss_mb, per_second, percentile_ms, window_times
from kschedlab.scheduler_perf.templates import LABEL_ZONE, make_nodes, make_pods

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
        5000, 750, topology_key=LABEL_RACK, nodes_per_domain=100, namespace="tas-ns-0",
        pod_template=TAS_GANG_POD, gates=dict(TAS_GATES),
        upstream="podgroup/tas/performance-config.yaml TopologyAwareScheduling/5000Nodes_750Gangs_3000Pods "
                 "(750 gangs as upstream; 8-64 pods each instead of 4)"),
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


def run_gang_workload(name: str = "GangScheduling", *, nodes: int | None = None, groups: int | None = None,
                      measure_pods: int | None = None, min_size: int | None = None, max_size: int | None = None,
                      init_pods: int | None = None, topology_key: str | None = None,
                      nodes_per_domain: int | None = None, keep_traces: int | None = 1000, seed: int = 0,
                      window: int = 100, progress: bool = False, gates=None, profile=None,
                      reference: bool = False) -> dict:
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
    ``reference`` (without init pods) also runs the workload's floor,
    :func:`kschedlab.perf_floors.gang_floor`, on the same sizes in the same process and reports its
    ``reference_pods_per_cpu_second`` and ``reference_ratio`` (its rate over this one, both per CPU
    second).

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
    elapsed, k, first, last = window_times(stamps, start, window)
    floor: dict = {}
    if reference and not n_init:
        from kschedlab.perf_floors import gang_floor

        kind = "TopologyAwareScheduling" if topology is not None and per_domain and fg.enabled(
            "TopologyAwareWorkloadScheduling") else "GangScheduling"
        floor = gang_floor(kind, n_nodes, sizes, per_domain=per_domain, seed=seed)
    floor_rate = floor.get("pods_per_cpu_second")
    rate = per_second(pods_total, cpu)
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
        "groups_per_second": per_second(len(stamps), elapsed),
        "pods_per_second": per_second(pods_total, elapsed),
        "window": k,
        "first_window_groups_per_second": per_second(k, first),
        "last_window_groups_per_second": per_second(k, last),
        "group_latency_ms": {"p50": percentile_ms(latencies, 0.5), "p90": percentile_ms(latencies, 0.9),
                             "p99": percentile_ms(latencies, 0.99)},
        "upstream_threshold": w.threshold,
        "peak_rss_mb": round(peak_rss_mb(), 1),
        "keep_traces": keep_traces,
        "cpu_seconds": round(cpu, 3),
        "groups_per_cpu_second": per_second(len(stamps), cpu),
        "pods_per_cpu_second": rate,
        "reference_pods_per_cpu_second": floor_rate,
        "reference_ratio": round(floor_rate / rate, 2) if floor_rate and rate else None,
        "gates": {g: v for g, v in fg.as_dict().items()
                  if g in ("GenericWorkload", "TopologyAwareWorkloadScheduling", "CompositePodGroup")},
    }
