"""DRA workloads (:data:`DRA_WORKLOADS`, :func:`run_dra_workload`; ``run_workload`` and ``kschedlab
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
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from kschedlab.api.core import Namespace, Node
from kschedlab.apiserver.admission import admit
from kschedlab.cluster import Cluster
from kschedlab.framework.types import pod_key
from kschedlab.scheduler import Scheduler
from kschedlab.scheduler_perf.measure import MeasuredPhase, peak_rss_mb, per_second
from kschedlab.scheduler_perf.templates import LABEL_HOSTNAME, make_nodes, make_pods

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
                     profile=None, reference: bool = False) -> dict:
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
    ``cProfile.Profile``) is enabled around the measured pods only. ``reference`` also runs
    :func:`dra_floor` with the same counts in the same process: ``reference_pods_per_cpu_second``,
    ``reference_ratio`` (its rate over this one, both per CPU second), ``placements`` (per pod,
    init pods first, ``(node row, device index)`` of its claim's device, or None) and
    ``reference_placements`` (the floor's).

    >>> r = run_dra_workload("SchedulingWithResourceClaimTemplate", nodes=3, init_pods=4, measure_pods=5,
    ...                      max_claims_per_node=3)
    >>> r["init_scheduled"], r["scheduled"], r["unschedulable"], r["claims_allocated"]
    (4, 5, 0, 9)
    >>> r = run_dra_workload("SchedulingWithResourceClaim", nodes=3, init_pods=10, measure_pods=10,
    ...                      max_claims_per_node=2, reference=True)
    >>> r["placements"] == r["reference_placements"], r["placements"][:6]
    (True, [(1, 0), (1, 0), (1, 0), (1, 0), (1, 0), (2, 0)])
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
    results = []
    with evaluation_timer(cel_timing) as cel, MeasuredPhase(profile) as run:
        for q in queue:
            results.append(scheduler.schedule_one(q.pod_info.key))
            run.stamp()
    cpu = run.cpu
    claims = cluster.objects.get("ResourceClaim", {}).values()
    extra: dict = {}
    if reference:
        floor = dra_floor(name, n_dra, n_init, n_measure, per_node, seed=seed)
        rate = per_second(len(results), cpu)
        extra = {"reference_pods_per_cpu_second": floor["pods_per_cpu_second"],
                 "reference_ratio": round(floor["pods_per_cpu_second"] / rate, 2) if rate else None,
                 "placements": _placements(cluster, node_objs, [*init_results, *results]),
                 "reference_placements": floor["placements"]}
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
        "upstream_threshold": w.threshold,
        **run.rates(len(results), window),
        "controller_seconds": round(controller_seconds, 3),
        "cel_timing": cel_timing,
        "cel_evaluations": cel.evaluations if cel_timing else None,
        "cel_seconds": round(cel.seconds, 3) if cel_timing else None,
        "cel_share": round(cel.seconds / cpu, 3) if cel_timing and cpu > 0 else None,
        "peak_rss_mb": round(peak_rss_mb(), 1),
        "keep_traces": keep_traces,
        **extra,
    }


def _placements(cluster: Cluster, nodes: list, results: list) -> list[tuple[int, int] | None]:
    """Per result, ``(node row, device index)`` of the device its pod's (only) claim holds."""
    rows = {n.metadata.name: i for i, n in enumerate(nodes)}
    claims = cluster.objects.get("ResourceClaim", {})
    out: list[tuple[int, int] | None] = []
    for r in results:
        if r.node is None:
            out.append(None)
            continue
        pod = cluster.pods[r.pod]
        statuses = {s.name: s.resource_claim_name for s in pod.status.resource_claim_statuses}
        ref = pod.spec.resource_claims[0]
        claim = claims[f"{pod.metadata.namespace}/{ref.resource_claim_name or statuses[ref.name]}"]
        device = claim.status.allocation.devices.results[0].device
        out.append((rows[r.node], int(device.removeprefix("instance-"))))
    return out


def dra_floor(name: str = "SchedulingWithResourceClaimTemplate", nodes: int = 500, init_pods: int = 2500,
              measure_pods: int = 2500, max_claims_per_node: int | None = None, *, seed: int = 0) -> dict:
    """The floor of a DRA workload: the least vectorized work giving the scheduler's placements
    and device choices, in numpy alone. The devices are one boolean array (``allocated``) beside
    the class selector's verdict per device (``device.driver == ...``, computed once, as the
    allocator keeps CEL results per device); per pod whose claim is still to be allocated, a
    node passes when it has a free matching device and room for a pod, the first
    ``numFeasibleNodesToFind`` such nodes from the rotating start are scored with
    LeastAllocated + BalancedAllocation on the pod's non-zero default requests
    (:func:`kschedlab.perf_floors.resource_totals`; DynamicResources scores 0 without
    ``firstAvailable``), ties are drawn as the scheduler draws them, and the node's first free
    device is taken. A pod whose claim another pod allocated (the shared claims: 4 of 5 pods) is
    charged what upstream must do for it: the claim read (its status, one dict), Filter on every
    node (NodeResourcesFit's fit mask over the 500 columns, and the allocation's node selector,
    ``metadata.name In [node]``, as a mask over the node names), the one feasible node taken (no
    score: a single feasible node is not scored), and the claim's status written anew (a copy
    with the pod appended to ``reservedFor``). The pod that allocates a shared claim writes its
    status with the allocation and itself as first consumer.

    What it leaves out: plugins, statuses, traces, the queue, the API objects beyond a shared
    claim's status (the template's claims are not created, written or read: the ResourceClaim
    controller, Reserve and PreBind are not modelled for them),
    the structured allocator's generality (one ``ExactCount`` request of one device, no
    constraints, capacity, taints or admin access) and the other default plugins, which give
    every node the same answer here. Returns ``pods_per_cpu_second`` over the measured pods and
    ``placements``: per pod, init pods first, ``(node row, device index)`` or None.

    >>> r = dra_floor("SchedulingWithResourceClaimTemplate", 3, 4, 5, 3)
    >>> r["pods"], r["placements"][:3]
    (5, [(1, 0), (2, 0), (0, 0)])
    >>> dra_floor("SchedulingWithResourceClaim", 2, 4, 4, 2)["placements"][:6]
    [(1, 0), (1, 0), (1, 0), (1, 0), (0, 0), (0, 0)]
    """
    import random

    import numpy as np

    from kschedlab.api.resources import DEFAULT_MEMORY_REQUEST, DEFAULT_MILLI_CPU_REQUEST
    from kschedlab.perf_floors import default_nodes, feasible_from, pick_best, resource_totals
    from kschedlab.scheduler import num_feasible_nodes_to_find

    w = DRA_WORKLOADS[name]
    per_node = w.max_claims_per_node if max_claims_per_node is None else max_claims_per_node
    rng = random.Random(seed)
    drivers = np.array([DRA_DRIVER] * (nodes * per_node))
    matches = (drivers == DRA_DRIVER).reshape(nodes, per_node)
    allocated = np.zeros((nodes, per_node), dtype=bool)
    alloc, alloc_f, used, count = default_nodes(nodes)
    want = np.array([DEFAULT_MILLI_CPU_REQUEST, DEFAULT_MEMORY_REQUEST], np.int64)
    to_find = num_feasible_nodes_to_find(0, nodes)
    names = np.array([f"scheduler-perf-dra-{i}" for i in range(nodes)])
    start = 0
    placements: list[tuple[int, int] | None] = []
    claims: dict[tuple[int, int], tuple[int, int]] = {}
    #: a shared claim's status: the node its allocation selects and its consumers
    statuses: dict[tuple[int, int], dict] = {}
    cpu_start = 0.0
    for i in range(init_pods + measure_pods):
        if i == init_pods:
            cpu_start = time.process_time()
        measured = i >= init_pods
        j = i - init_pods if measured else i
        claim = (measured, j // w.pods_per_claim) if w.pods_per_claim else None
        held = claims.get(claim) if claim is not None else None
        if held is not None:
            # the claim is allocated: Filter on every node, where only its allocation's node passes
            # (the scheduler scores no single node); PreBind writes the status with the pod added
            status = statuses[claim]
            fits = (count < 110) & (used + want[:, None] <= alloc).all(axis=0)
            feasible = np.flatnonzero(fits & (names == status["allocation"]["nodeName"]))
            if not len(feasible):
                placements.append(None)
                continue
            consumer = {"resource": "pods", "name": f"test-dra-{j:05d}", "uid": str(i)}
            statuses[claim] = {**status, "reservedFor": [*status["reservedFor"], consumer]}
            processed = nodes
        else:
            free = matches & ~allocated
            fits = free.any(axis=1) & (count < 110)
            feasible = np.flatnonzero(fits)
            feasible, processed = feasible_from(feasible, start, to_find, nodes)
        if not len(feasible):
            placements.append(None)
            continue
        start = (start + processed) % nodes
        if len(feasible) > 1:
            total = resource_totals(alloc, alloc_f, used, want, feasible)
            pick = pick_best(feasible, total, rng)
        else:
            pick = int(feasible[0])
        if held is None:
            device = int(np.argmax(matches[pick] & ~allocated[pick]))
            allocated[pick, device] = True
            held = (pick, device)
            if claim is not None:
                claims[claim] = held
                statuses[claim] = {"allocation": {"nodeName": str(names[pick]), "device": f"instance-{device}"},
                                   "reservedFor": [{"resource": "pods", "name": f"test-dra-{j:05d}", "uid": str(i)}]}
        used[:, pick] += want
        count[pick] += 1
        placements.append(held)
    cpu = time.process_time() - cpu_start
    return {"pods": measure_pods, "cpu_seconds": round(cpu, 3),
            "pods_per_cpu_second": per_second(measure_pods, cpu), "placements": placements}
