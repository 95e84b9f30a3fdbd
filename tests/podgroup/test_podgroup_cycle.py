"""The PodGroup scheduling cycle, proven on exact outcomes (seed "PodGroup scheduling",
Kubernetes v1.37 docs):

1. the deadlock two gangs run into pod by pod (with and without the Permit wait) and how
   the PodGroup cycle avoids it;
2. homogeneous groups: the cycle finds a placement iff one exists (property test against
   brute force);
3. heterogeneous groups / inter-pod dependencies: the documented order-dependence;
4. placement by topology domain (TopologyAwareWorkloadScheduling);
5. a two-level CompositePodGroup job, with the rollback of a zone that cannot host it;
6. a cycle (or the algorithm alone) leaves the snapshot exactly as it found it;
7. PodGroupInitiallyScheduled (True once, never back to False; SchedulerError;
   CompositePodGroup conditions stay empty);
8. new pods of an already scheduled group are evaluated with the placed ones counted.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from kschedlab.api.core import Pod
from kschedlab.api.loader import load_objects
from kschedlab.cluster import Cluster
from kschedlab.framework.status import Code
from kschedlab.plugins.gang_scheduling import permit_timeout_message
from kschedlab.scheduler import Scheduler
from kschedlab.scheduler.podgroup.algorithm import PodGroupAlgorithm, PodGroupInfo

GW = {"GenericWorkload": True}
TAS = {**GW, "TopologyAwareWorkloadScheduling": True}
CPG = {**TAS, "CompositePodGroup": True}

WAIT_MSG = "one or more plugins asked to wait and no plugin rejected pod"
NO_FIT_4 = "0/4 nodes are available: 4 Insufficient cpu."
NO_FIT_4_PREEMPT = (NO_FIT_4 + " preemption: 0/4 nodes are available: 4 No preemption victims found for "
                    "incoming pod.")
#: what PodGroupPostFilter (DefaultPreemption) appends to a failed group's status
NO_VICTIMS = ", pod group preemption: No preemption victims found for incoming preemptor"
NOT_WITH_TOPOLOGY = ", pod group preemption: not supported with topology constraints"


# -- manifests ---------------------------------------------------------------------------------------------
def node(name: str, cpu: str = "2", **labels) -> dict:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels},
            "status": {"allocatable": {"cpu": cpu, "memory": "16Gi", "pods": "110"}}}


def pod(name: str, group: str | None = None, cpu: str = "1", *, node_name: str | None = None,
        scheduler: str | None = None, labels: dict | None = None, **spec) -> dict:
    body = {"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}], **spec}
    if group:
        body["schedulingGroup"] = {"podGroupName": group}
    if node_name:
        body["nodeName"] = node_name
    if scheduler:
        body["schedulerName"] = scheduler
    meta = {"name": name, "namespace": "ml", **({"labels": labels} if labels else {})}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": body}


def pod_group(name: str, min_count: int, topology: str | None = None, parent: str | None = None) -> dict:
    spec: dict = {"schedulingPolicy": {"gang": {"minCount": min_count}}}
    if topology:
        spec["schedulingConstraints"] = {"topology": [{"key": topology}]}
    if parent:
        spec["parentCompositePodGroupName"] = parent
    return {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
            "metadata": {"name": name, "namespace": "ml"}, "spec": spec}


def composite(name: str, min_group_count: int, topology: str) -> dict:
    return {"apiVersion": "scheduling.k8s.io/v1alpha3", "kind": "CompositePodGroup",
            "metadata": {"name": name, "namespace": "ml"},
            "spec": {"schedulingPolicy": {"gang": {"minGroupCount": min_group_count}},
                     "schedulingConstraints": {"topology": [{"key": topology}]}}}


def cluster_of(objs: list[dict]) -> Cluster:
    return Cluster(load_objects(objs))


def add_pod(cluster: Cluster, manifest: dict) -> None:
    cluster.add(Pod.model_validate(manifest))


def condition(cluster: Cluster, kind: str, name: str):
    return cluster.objects[kind][f"ml/{name}"].condition()


def cond_tuple(cluster: Cluster, name: str):
    c = condition(cluster, "PodGroup", name)
    return None if c is None else (c.type, c.status, c.reason, c.message)


def cpu_requested(cluster: Cluster) -> int:
    snap = cluster.snapshot
    return int(snap.requested[snap.res_index["cpu"], snap.order].sum())


def snapshot_state(cluster: Cluster):
    snap = cluster.snapshot
    return (dict(snap.pod_row), snap.requested.copy(), snap.pod_count.copy(),
            [sorted(pi.key for pi in pods) for pods in snap.pods])


def assert_snapshot_unchanged(cluster: Cluster, before) -> None:
    pod_row, requested, pod_count, pods = snapshot_state(cluster)
    assert pod_row == before[0]
    assert np.array_equal(requested, before[1])
    assert np.array_equal(pod_count, before[2])
    assert pods == before[3]


def results(rs) -> list[tuple]:
    return [(r.pod, r.node, r.status.code, r.message) for r in rs]


def max_placeable(free: list[int], request: int, pods: int) -> int:
    """Brute force: the most of ``pods`` identical pods (``request`` each) any assignment to
    nodes with ``free`` capacity places (a pod may stay unplaced)."""
    best = 0
    for assignment in itertools.product(range(-1, len(free)), repeat=pods):
        used = [0] * len(free)
        for n in assignment:
            if n >= 0:
                used[n] += request
        if all(u <= f for u, f in zip(used, free)):
            best = max(best, sum(1 for n in assignment if n >= 0))
    return best


def fits(free: dict[str, int], requests: list[int]) -> dict | None:
    """Brute force: one assignment of every pod (by index) to a node, or None."""
    names = list(free)
    for assignment in itertools.product(names, repeat=len(requests)):
        used = dict.fromkeys(names, 0)
        for n, r in zip(assignment, requests):
            used[n] += r
        if all(used[n] <= free[n] for n in names):
            return dict(enumerate(assignment))
    return None


# -- 1. the deadlock ----------------------------------------------------------------------------------------
def two_training_jobs() -> list[dict]:
    """4 nodes x 2 CPU; two gangs of 4 workers x 2 CPU (minCount 4), pods interleaved."""
    objs = [node(f"node-{i}") for i in range(4)] + [pod_group("job-a", 4), pod_group("job-b", 4)]
    for i in range(4):
        objs += [pod(f"a-{i}", "job-a", "2"), pod(f"b-{i}", "job-b", "2")]
    return objs


A_PODS = [f"ml/a-{i}" for i in range(4)]
B_PODS = [f"ml/b-{i}" for i in range(4)]
INTERLEAVED = [k for pair in zip(A_PODS, B_PODS) for k in pair]


def test_deadlock_pod_by_pod_without_gangs_both_jobs_partially_placed():
    cluster = cluster_of(two_training_jobs())
    sched = Scheduler(cluster)  # GenericWorkload off: no gang, no PodGroup cycle
    rs = sched.run()
    assert [r.pod for r in rs] == INTERLEAVED
    placed = {r.pod: r.node for r in rs if r.node}
    assert sorted(placed) == ["ml/a-0", "ml/a-1", "ml/b-0", "ml/b-1"]
    assert sorted(placed.values()) == ["node-0", "node-1", "node-2", "node-3"]
    assert [(r.pod, r.status.code, r.message) for r in rs if not r.node] == [
        (k, Code.Unschedulable, NO_FIT_4_PREEMPT) for k in ("ml/a-2", "ml/b-2", "ml/a-3", "ml/b-3")]
    # 2 of 4 bound per job: neither job can start, and the cluster is full
    assert sum(1 for k in A_PODS if cluster.pods[k].spec.node_name) == 2
    assert sum(1 for k in B_PODS if cluster.pods[k].spec.node_name) == 2
    assert cpu_requested(cluster) == 8000


def test_deadlock_pod_by_pod_with_permit_both_gangs_hold_resources_until_timeout():
    cluster = cluster_of(two_training_jobs())
    sched = Scheduler(cluster, gates=GW, pod_group_cycle=False)  # GangScheduling waits at Permit
    rs = sched.run(once=True)  # one pass: the moment the Permit waits begin
    assert [(r.pod, r.node, r.status.code, r.message) for r in rs[:4]] == [
        (k, None, Code.Wait, WAIT_MSG) for k in ("ml/a-0", "ml/b-0", "ml/a-1", "ml/b-1")]
    assert [(r.pod, r.node, r.status.code, r.message) for r in rs[4:]] == [
        (k, None, Code.Unschedulable, NO_FIT_4_PREEMPT) for k in ("ml/a-2", "ml/b-2", "ml/a-3", "ml/b-3")]
    # both gangs hold 2 nodes each at Permit, nothing is bound
    assert sorted(sched.waiting) == ["ml/a-0", "ml/a-1", "ml/b-0", "ml/b-1"]
    assert sum(1 for k in sched.waiting if k in A_PODS) == 2
    assert sum(1 for k in sched.waiting if k in B_PODS) == 2
    assert not any(p.spec.node_name for p in cluster.pods.values())
    assert sorted(cluster.snapshot.pod_row) == ["ml/a-0", "ml/a-1", "ml/b-0", "ml/b-1"]
    assert cpu_requested(cluster) == 8000
    # the Permit wait times out (5m): every waiting pod is rejected and its node released
    message = permit_timeout_message()
    assert message == "rejected due to timeout after waiting 5m0s at plugin GangScheduling"
    timed_out = [sched.reject(k, "GangScheduling", message) for k in list(sched.waiting)]
    assert [(r.pod, r.node, r.status.code, r.message) for r in timed_out] == [
        (k, None, Code.Unschedulable, f"0/1 nodes are available: 1 {message}.")
        for k in ("ml/a-0", "ml/b-0", "ml/a-1", "ml/b-1")]
    assert sched.waiting == {}
    assert cluster.snapshot.pod_row == {}
    assert cpu_requested(cluster) == 0
    assert not any(p.spec.node_name for p in cluster.pods.values())


def test_deadlock_avoided_by_pod_group_cycle_one_whole_gang_bound():
    cluster = cluster_of(two_training_jobs())
    sched = Scheduler(cluster, gates=GW)
    assert sched.pod_group_cycle is True
    rs = sched.run()
    group_msg = "minCount (4) cannot be satisfied: 0 scheduled, 3 remaining"
    assert [r.pod for r in rs] == A_PODS + B_PODS  # one PodGroup cycle per group, in queue order
    assert all(r.status.code == Code.Success and r.message == "" for r in rs[:4])
    assert sorted(r.node for r in rs[:4]) == ["node-0", "node-1", "node-2", "node-3"]
    # b-0 was tried and did not fit (its own reason); the gang stopped there: b-1..b-3 are
    # rejected for the group (their message: see test_unevaluated_pods_share_the_group_message)
    assert [(r.pod, r.node, r.status.code) for r in rs[4:]] == [
        (k, None, Code.Unschedulable) for k in B_PODS]
    assert rs[4].message == NO_FIT_4
    assert all(cluster.pods[k].spec.node_name for k in A_PODS)
    assert not any(cluster.pods[k].spec.node_name for k in B_PODS)
    # job-b holds nothing: no row in the snapshot, all requested cpu is job-a's
    assert sorted(cluster.snapshot.pod_row) == A_PODS
    assert cpu_requested(cluster) == 4 * 2000
    assert sched.waiting == {}
    assert cond_tuple(cluster, "job-a") == ("PodGroupInitiallyScheduled", "True", "Scheduled", None)
    assert cond_tuple(cluster, "job-b") == ("PodGroupInitiallyScheduled", "False", "Unschedulable",
                                            group_msg + NO_VICTIMS)


# -- 2. homogeneous groups: found iff it exists -----------------------------------------------------------------
@settings(max_examples=40, deadline=None, derandomize=True, database=None)
@given(
    capacities=st.lists(st.integers(1, 6), min_size=2, max_size=4),
    request=st.integers(1, 3),
    size=st.integers(1, 5),
    min_count=st.integers(1, 6),
    data=st.data(),
    gates=st.sampled_from([GW, TAS]),
)
def test_homogeneous_group_found_iff_brute_force_placement_exists(capacities, request, size, min_count, data,
                                                                   gates):
    names = [f"n{i}" for i in range(len(capacities))]
    # pre-bound pods outside the group take part of each node
    used = [data.draw(st.integers(0, cap), label=f"used-{n}") for n, cap in zip(names, capacities)]
    # pre-bound members of the group (count towards minCount), 1 CPU each, only where they fit
    members_bound = data.draw(st.integers(0, 2), label="members_bound")
    objs = [node(n, str(cap)) for n, cap in zip(names, capacities)]
    objs += [pod(f"filler-{n}", cpu=str(u), node_name=n) for n, u in zip(names, used) if u]
    objs.append(pod_group("gang", min_count))
    free = [cap - u for cap, u in zip(capacities, used)]
    bound_members = 0
    for i in range(members_bound):
        target = next((j for j, f in enumerate(free) if f >= 1), None)
        if target is None:
            break
        free[target] -= 1
        objs.append(pod(f"bound-{i}", "gang", "1", node_name=names[target]))
        bound_members += 1
    objs += [pod(f"w{i}", "gang", str(request)) for i in range(size)]
    cluster = cluster_of(objs)
    before = snapshot_state(cluster)

    out = Scheduler(cluster, gates=gates).schedule_pod_group("podgroup/ml/gang")

    best = max_placeable(free, request, size)
    assert best == min(size, sum(f // request for f in free))  # brute force agrees with the formula
    expected = best >= 1 and bound_members + best >= min_count
    event(f"feasible={expected}")
    event(f"bound members={bound_members}")
    assert out.status.is_success() is expected, out.status.message()
    bound = [r for r in out.pod_results if r.node]
    pending = [f"ml/w{i}" for i in range(size)]
    assert [r.pod for r in out.pod_results] == pending
    if expected:
        assert len(bound) == best
        assert all(cluster.pods[r.pod].spec.node_name == r.node for r in bound)
        assert cond_tuple(cluster, "gang")[1:3] == ("True", "Scheduled")
    else:
        assert bound == []
        assert_snapshot_unchanged(cluster, before)
        assert cond_tuple(cluster, "gang")[1:3] == ("False", "Unschedulable")
        if bound_members + size < min_count:
            msg = f"minCount ({min_count}) cannot be satisfied: {bound_members} scheduled, {size} remaining"
            if gates.get("TopologyAwareWorkloadScheduling"):  # one candidate: the whole cluster
                msg = f"0/1 placements are available, first placement status: {msg}"
            assert out.status.message() == msg + NO_VICTIMS


# -- 3. heterogeneous groups / inter-pod dependencies: order-dependence ---------------------------------------
def test_heterogeneous_group_big_pod_after_fragmenting_small_ones_is_missed():
    objs = [node("n1", "4"), node("n2", "4"), pod_group("mix", 3),
            pod("small-0", "mix", "2"), pod("small-1", "mix", "2"), pod("big", "mix", "4")]
    cluster = cluster_of(objs)
    # a placement exists: both small pods on one node, the big one on the other
    assert fits({"n1": 4, "n2": 4}, [2, 2, 4]) == {0: "n1", 1: "n1", 2: "n2"}
    out = Scheduler(cluster, gates=GW).schedule_pod_group("podgroup/ml/mix")
    msg = "minCount (3) cannot be satisfied: 2 scheduled, 0 remaining" + NO_VICTIMS
    assert (out.status.code, out.status.message()) == (Code.Unschedulable, msg)
    assert results(out.pod_results) == [
        ("ml/small-0", None, Code.Unschedulable, msg),
        ("ml/small-1", None, Code.Unschedulable, msg),
        ("ml/big", None, Code.Unschedulable, "0/2 nodes are available: 2 Insufficient cpu.")]
    # the small pods were spread (one per node) and left no room for the big one
    pods_steps = [s for s in out.log if s["step"] == "pod"]
    assert [s["pod"] for s in pods_steps] == ["ml/small-0", "ml/small-1", "ml/big"]
    assert sorted(s["node"] for s in pods_steps[:2]) == ["n1", "n2"]
    assert pods_steps[2]["node"] is None
    assert cluster.snapshot.pod_row == {}
    assert cond_tuple(cluster, "mix") == ("PodGroupInitiallyScheduled", "False", "Unschedulable", msg)
    # the same pods in another order (big first) are placed
    again = Scheduler(cluster, gates=GW).schedule_pod_group("podgroup/ml/mix",
                                                            ["ml/big", "ml/small-0", "ml/small-1"])
    assert again.status.is_success()
    placed = again.placements()
    assert placed["ml/small-0"] == placed["ml/small-1"] != placed["ml/big"]


def test_inter_pod_dependency_affinity_to_a_later_pod_is_missed():
    affinity = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"role": "ps"}}, "topologyKey": "kubernetes.io/hostname"}]}}
    objs = [node("n1", "4", **{"kubernetes.io/hostname": "n1"}),
            node("n2", "4", **{"kubernetes.io/hostname": "n2"}),
            pod_group("dep", 2),
            pod("worker", "dep", "1", labels={"role": "worker"}, affinity=affinity),
            pod("ps", "dep", "1", labels={"role": "ps"})]
    cluster = cluster_of(objs)
    out = Scheduler(cluster, gates=GW).schedule_pod_group("podgroup/ml/dep")
    msg = "minCount (2) cannot be satisfied: 0 scheduled, 1 remaining" + NO_VICTIMS
    assert (out.status.code, out.status.message()) == (Code.Unschedulable, msg)
    assert results(out.pod_results)[0] == (
        "ml/worker", None, Code.Unschedulable, "0/2 nodes are available: 2 node(s) didn't match pod affinity rules.")
    # ps was never tried: minCount could not be met once worker failed
    assert [s["pod"] for s in out.log if s["step"] == "pod"] == ["ml/worker"]
    assert results(out.pod_results)[1][:3] == ("ml/ps", None, Code.Unschedulable)
    assert cond_tuple(cluster, "dep") == ("PodGroupInitiallyScheduled", "False", "Unschedulable", msg)
    assert cluster.snapshot.pod_row == {}
    # a placement exists (brute force over both nodes for both pods: ps anywhere, worker next to it) ...
    placements = [(w, p) for w, p in itertools.product(["n1", "n2"], repeat=2) if w == p]
    assert placements == [("n1", "n1"), ("n2", "n2")]
    # ... and is found when ps is evaluated first
    again = Scheduler(cluster, gates=GW).schedule_pod_group("podgroup/ml/dep", ["ml/ps", "ml/worker"])
    assert again.status.is_success()
    assert again.placements()["ml/worker"] == again.placements()["ml/ps"]


# -- 4. placement by topology domain ---------------------------------------------------------------------------
def racks(cpu: str = "4") -> list[dict]:
    return [node(f"{r}-n{i}", cpu, rack=r) for r in ("rack-a", "rack-b") for i in range(2)]


def test_gang_with_rack_topology_lands_in_one_rack():
    cluster = cluster_of(racks() + [pod_group("train", 4, "rack")] + [pod(f"w{i}", "train", "2") for i in range(4)])
    rs = Scheduler(cluster, gates=TAS).run()
    assert [r.pod for r in rs] == [f"ml/w{i}" for i in range(4)]
    assert all(r.status.is_success() for r in rs)
    rack = {cluster.nodes[r.node].metadata.labels["rack"] for r in rs}
    assert len(rack) == 1
    (rack,) = rack
    assert sorted(r.node for r in rs) == [f"{rack}-n0", f"{rack}-n0", f"{rack}-n1", f"{rack}-n1"]


def test_gang_no_rack_fits_placement_fit_error():
    cluster = cluster_of(racks() + [pod_group("big", 5, "rack")] + [pod(f"w{i}", "big", "2") for i in range(5)])
    before = snapshot_state(cluster)
    rs = Scheduler(cluster, gates=TAS).run()
    msg = ("0/2 placements are available, first placement status: "
           "minCount (5) cannot be satisfied: 4 scheduled, 0 remaining" + NOT_WITH_TOPOLOGY)
    assert msg.startswith("0/2 placements are available, first placement status: ")
    assert results(rs) == [*((f"ml/w{i}", None, Code.Unschedulable, msg) for i in range(4)),
                           ("ml/w4", None, Code.Unschedulable, "0/2 nodes are available: 2 Insufficient cpu.")]
    assert cond_tuple(cluster, "big") == ("PodGroupInitiallyScheduled", "False", "Unschedulable", msg)
    assert_snapshot_unchanged(cluster, before)


def test_scheduled_pods_pin_new_pods_to_their_rack():
    # 6-CPU nodes: the gang (4 x 2 CPU) leaves 2 CPU per node of its rack; the other rack is empty
    cluster = cluster_of(racks("6") + [pod_group("train", 4, "rack")] + [pod(f"w{i}", "train", "2") for i in range(4)])
    sched = Scheduler(cluster, gates=TAS)
    first = sched.run()
    (rack,) = {cluster.nodes[r.node].metadata.labels["rack"] for r in first}
    other = "rack-b" if rack == "rack-a" else "rack-a"
    # one more pod: LeastAllocated would prefer the empty rack, the scheduled pods pin it to theirs
    add_pod(cluster, pod("w4", "train", "1"))
    out = sched.schedule_pod_group("podgroup/ml/train")
    assert out.status.is_success()
    (r,) = out.pod_results
    assert (r.pod, r.status.code) == ("ml/w4", Code.Success)
    assert cluster.nodes[r.node].metadata.labels["rack"] == rack
    assert [s["placement"] for s in out.log if s["step"] == "placement"] == [rack]
    # a pod too big for what is left in the rack is not moved to the other one
    add_pod(cluster, pod("w5", "train", "3"))
    rs = sched.run()
    assert results(rs) == [("ml/w5", None, Code.Unschedulable, "0/2 nodes are available: 2 Insufficient cpu.")]
    assert not any(k == "ml/w5" for k in cluster.snapshot.pod_row)
    assert all(cluster.nodes[n].metadata.labels["rack"] != other
               for n in (cluster.pods[k].spec.node_name for k in cluster.pods) if n)


# -- 5. CompositePodGroup: a two-level job ------------------------------------------------------------------------
def two_level_job(z0_r1_cpu: str = "4") -> list[dict]:
    """2 zones x 2 racks x 2 nodes (4 CPU; z0-r1's nodes ``z0_r1_cpu``); CompositePodGroup job
    (zone, minGroupCount 2) with replicas rep0, rep1 (rack, minCount 4) of 4 workers x 2 CPU."""
    objs = [node(f"z{z}-r{r}-n{i}", z0_r1_cpu if (z, r) == (0, 1) else "4", zone=f"z{z}", rack=f"z{z}-r{r}")
            for z in range(2) for r in range(2) for i in range(2)]
    objs.append(composite("job", 2, "zone"))
    for rep in range(2):
        objs.append(pod_group(f"rep{rep}", 4, "rack", parent="job"))
        objs += [pod(f"rep{rep}-w{i}", f"rep{rep}", "2") for i in range(4)]
    return objs


REP_PODS = {rep: [f"ml/rep{rep}-w{i}" for i in range(4)] for rep in range(2)}


def labels_of(cluster, node_name: str) -> dict:
    return cluster.nodes[node_name].metadata.labels


def test_composite_job_each_replica_in_one_rack_whole_job_in_one_zone():
    cluster = cluster_of(two_level_job())
    rs = Scheduler(cluster, gates=CPG).run()
    assert [r.pod for r in rs] == REP_PODS[0] + REP_PODS[1]
    assert all(r.status.is_success() and r.node for r in rs)
    placed = {r.pod: r.node for r in rs}
    rep_racks = [{labels_of(cluster, placed[k])["rack"] for k in REP_PODS[rep]} for rep in range(2)]
    assert [len(s) for s in rep_racks] == [1, 1]
    assert rep_racks[0] != rep_racks[1]
    zones = {labels_of(cluster, n)["zone"] for n in placed.values()}
    assert len(zones) == 1
    for rep in range(2):
        assert cond_tuple(cluster, f"rep{rep}") == ("PodGroupInitiallyScheduled", "True", "Scheduled", None)
    assert cluster.objects["CompositePodGroup"]["ml/job"].status.conditions == []


def test_composite_rolls_back_zone_that_cannot_host_both_replicas():
    cluster = cluster_of(two_level_job(z0_r1_cpu="1"))  # z0 has one rack that fits a replica
    out = Scheduler(cluster, gates=CPG).schedule_pod_group("compositepodgroup/ml/job")
    assert out.status.is_success()
    root = "compositepodgroup/ml/job"
    top = [s for s in out.log if s["key"] == root]
    assert [(s["step"], s["placement"], s.get("code")) for s in top if s["step"] != "score"] == [
        ("placement", "z0", None),
        ("feasible", "z0", "Wait"),
        ("feasible", "z0", "Wait"),  # rep0 fits in z0-r0
        ("feasible", "z0", "Unschedulable"),  # rep1 fits nowhere in z0
        ("revert", "z0", None),
        ("placement", "z1", None),
        ("feasible", "z1", "Wait"),
        ("feasible", "z1", "Wait"),
        ("feasible", "z1", "Success"),
        ("revert", "z1", None),  # the simulation is undone before committing
        ("commit", "z1", None)]
    z0_revert = next(s for s in top if s["step"] == "revert" and s["placement"] == "z0")
    assert z0_revert["pods"] == 4  # rep0's tentative pods in z0-r0
    assert [s["message"] for s in top if s["step"] == "feasible" and s["placement"] == "z0"][-1] == \
        "minCount (2) cannot be satisfied: 1 scheduled, 0 remaining"
    placed = out.placements()
    assert sorted(placed) == REP_PODS[0] + REP_PODS[1]
    assert {labels_of(cluster, n)["zone"] for n in placed.values()} == {"z1"}
    rep_racks = [{labels_of(cluster, placed[k])["rack"] for k in REP_PODS[rep]} for rep in range(2)]
    assert sorted(r for s in rep_racks for r in s) == ["z1-r0", "z1-r1"]
    assert all(cluster.pods[k].spec.node_name == n for k, n in placed.items())
    assert cluster.objects["CompositePodGroup"]["ml/job"].status.conditions == []


# -- 6. rollback leaves no trace --------------------------------------------------------------------------------
def failing_scenarios():
    prebound = [pod("other", cpu="1", node_name="n1")]
    yield "default", GW, "podgroup/ml/mix", cluster_of(
        [node("n1", "4"), node("n2", "4"), pod_group("mix", 3), *prebound,
         pod("small-0", "mix", "2"), pod("small-1", "mix", "2"), pod("big", "mix", "4")])
    yield "placement", TAS, "podgroup/ml/big", cluster_of(
        racks() + [pod("other", cpu="1", node_name="rack-a-n0"), pod("other-b", cpu="1", node_name="rack-b-n1"),
                   pod_group("big", 4, "rack")]
        + [pod(f"w{i}", "big", "2") for i in range(4)])
    # z0 hosts one replica (z0-r1's nodes have 1 CPU), z1 has only its rack z1-r0
    job = [o for o in two_level_job(z0_r1_cpu="1")
           if o["kind"] != "Node" or not o["metadata"]["name"].startswith("z1-r1")]
    yield "composite", CPG, "compositepodgroup/ml/job", cluster_of(
        job + [pod("other", cpu="1", node_name="z1-r0-n0")])


@pytest.mark.parametrize("name", ["default", "placement", "composite"])
def test_failed_cycle_leaves_snapshot_unchanged(name):
    _, gates, key, cluster = next(s for s in failing_scenarios() if s[0] == name)
    before = snapshot_state(cluster)
    assert before[0] != {}  # a pre-bound pod is accounted
    sched = Scheduler(cluster, gates=gates)
    out = sched.schedule_pod_group(key)
    assert out.status.code == Code.Unschedulable
    assert not any(r.node for r in out.pod_results)
    assert_snapshot_unchanged(cluster, before)
    # and through run(), with PodGroupPostFilter (preemption finds no victims)
    rs = sched.run()
    assert not any(r.node for r in rs)
    assert_snapshot_unchanged(cluster, before)


@pytest.mark.parametrize("name", ["default", "placement", "composite"])
def test_algorithm_alone_leaves_snapshot_unchanged_on_failure(name):
    _, gates, key, cluster = next(s for s in failing_scenarios() if s[0] == name)
    before = snapshot_state(cluster)
    sched = Scheduler(cluster, gates=gates)
    info = PodGroupInfo.build(cluster, key)
    algo = PodGroupAlgorithm(sched, sched.profiles["default-scheduler"])
    out = algo.run_root(info)
    assert out[key].status.code == Code.Unschedulable
    assert any(s["step"] == "revert" for s in algo.log)
    assert_snapshot_unchanged(cluster, before)


def test_algorithm_alone_leaves_snapshot_unchanged_on_success():
    cluster = cluster_of(two_level_job() + [pod("other", cpu="1", node_name="z1-r1-n1")])
    before = snapshot_state(cluster)
    sched = Scheduler(cluster, gates=CPG)
    info = PodGroupInfo.build(cluster, "compositepodgroup/ml/job")
    algo = PodGroupAlgorithm(sched, sched.profiles["default-scheduler"])
    out = algo.run_root(info)
    assert out["compositepodgroup/ml/job"].status.is_success()
    proposed = {pr.key: pr.node for key in ("podgroup/ml/rep0", "podgroup/ml/rep1") for pr in out[key].pods}
    assert sorted(proposed) == REP_PODS[0] + REP_PODS[1] and all(proposed.values())
    assert_snapshot_unchanged(cluster, before)
    assert not any(p.spec.node_name for k, p in cluster.pods.items() if k != "ml/other")


# -- 7. conditions ----------------------------------------------------------------------------------------------
def test_condition_true_once_never_back_to_false():
    cluster = cluster_of([node("n1", "4"), node("n2", "4"), pod_group("train", 4)]
                         + [pod(f"w{i}", "train", "2") for i in range(4)])
    now = [1000.0]
    sched = Scheduler(cluster, gates=GW, clock=lambda: now[0])
    assert sched.schedule_pod_group("podgroup/ml/train").status.is_success()
    first = condition(cluster, "PodGroup", "train")
    assert (first.type, first.status, first.reason, first.message) == (
        "PodGroupInitiallyScheduled", "True", "Scheduled", None)
    stamp = first.last_transition_time
    assert stamp.timestamp() == 1000.0
    now[0] = 5000.0
    # an extra pod that does not fit: the later cycle fails, the condition stays True/Scheduled
    add_pod(cluster, pod("w4", "train", "2"))
    out = sched.schedule_pod_group("podgroup/ml/train")
    assert (out.status.code, out.status.message()) == (Code.Unschedulable, "no pods were schedulable" + NO_VICTIMS)
    assert results(out.pod_results) == [
        ("ml/w4", None, Code.Unschedulable, "0/2 nodes are available: 2 Insufficient cpu.")]
    after = condition(cluster, "PodGroup", "train")
    assert (after.status, after.reason, after.message, after.last_transition_time) == (
        "True", "Scheduled", None, stamp)
    assert len(cluster.objects["PodGroup"]["ml/train"].status.conditions) == 1


def test_condition_scheduler_error_for_mixed_scheduler_names():
    cluster = cluster_of([node("n1", "4"), pod_group("mixed", 2),
                          pod("w0", "mixed", "1"), pod("w1", "mixed", "1", scheduler="other-scheduler")])
    out = Scheduler(cluster, gates=GW).schedule_pod_group("podgroup/ml/mixed")
    msg = ('all pods in a pod group hierarchy should have the same .spec.schedulerName set, got: '
           '"other-scheduler" ("w1") and "default-scheduler" ("w0")')
    assert (out.status.code, out.status.message()) == (Code.Error, msg)
    assert results(out.pod_results) == [("ml/w0", None, Code.Error, msg), ("ml/w1", None, Code.Error, msg)]
    assert out.log == []
    assert cluster.snapshot.pod_row == {}
    assert cond_tuple(cluster, "mixed") == ("PodGroupInitiallyScheduled", "False", "SchedulerError", msg)
    pod_cond = [c for c in cluster.pods["ml/w0"].status.conditions if c.type == "PodScheduled"][0]
    assert (pod_cond.status, pod_cond.reason, pod_cond.message) == ("False", "SchedulerError", msg)


def test_composite_pod_group_conditions_stay_empty_on_failure():
    _, gates, key, cluster = next(s for s in failing_scenarios() if s[0] == "composite")
    out = Scheduler(cluster, gates=gates).schedule_pod_group(key)
    assert out.status.code == Code.Unschedulable
    assert cluster.objects["CompositePodGroup"]["ml/job"].status.conditions == []
    msg = out.status.message()
    assert msg.startswith("0/2 placements are available, first placement status: ")
    for rep in range(2):
        assert cond_tuple(cluster, f"rep{rep}")[1:3] == ("False", "Unschedulable")


# -- 8. new pods join a scheduled group -----------------------------------------------------------------------------
def test_new_pod_of_scheduled_group_is_evaluated_with_placed_ones_counted():
    cluster = cluster_of([node(f"n{i}", "4") for i in range(3)] + [pod_group("train", 4)]
                         + [pod(f"w{i}", "train", "2") for i in range(4)])
    sched = Scheduler(cluster, gates=GW)
    rs = sched.run()
    assert [r.pod for r in rs if r.node] == [f"ml/w{i}" for i in range(4)]
    add_pod(cluster, pod("w4", "train", "2"))
    out = sched.schedule_pod_group("podgroup/ml/train")
    # 4 scheduled + 1 remaining >= minCount 4: feasible from the start, the pod goes alone
    feasible = [(s["code"], s["message"], s["scheduled"], s["remaining"]) for s in out.log if s["step"] == "feasible"]
    assert feasible == [("Success", "", 4, 1), ("Success", "", 5, 0)]
    assert out.status.is_success()
    (r,) = out.pod_results
    assert (r.pod, r.status.code, r.message) == ("ml/w4", Code.Success, "")
    assert cluster.pods["ml/w4"].spec.node_name == r.node
    assert sum(1 for p in cluster.pods.values() if p.spec.node_name) == 5
    assert cond_tuple(cluster, "train") == ("PodGroupInitiallyScheduled", "True", "Scheduled", None)


# -- a failed group's message: pods the algorithm never tried keep the pre-PostFilter status ----------------
# Upstream (schedule_one_podgroup.go, podGroupCycle): completePodGroupAlgorithmResult clones the group's
# status into the untried pods' results *before* PodGroupPostFilter runs; applyPodGroupPostFilterResult
# then appends its message to the group statuses only. Placed-then-rejected pods are failed with the group
# status (suffix included), untried pods with their clone (no suffix).
def test_untried_pods_keep_the_status_from_before_post_filter():
    cluster = cluster_of(two_training_jobs())
    rs = Scheduler(cluster, gates=GW).run()
    before = "minCount (4) cannot be satisfied: 0 scheduled, 3 remaining"
    assert cond_tuple(cluster, "job-b")[3] == before + NO_VICTIMS
    assert [(r.pod, r.message) for r in rs[5:]] == [(k, before) for k in B_PODS[1:]]
    pod_cond = [c for c in cluster.pods["ml/b-1"].status.conditions if c.type == "PodScheduled"][0]
    assert (pod_cond.status, pod_cond.reason, pod_cond.message) == ("False", "Unschedulable", before)
