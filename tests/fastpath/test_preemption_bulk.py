"""DefaultPreemption's victim search over many nodes at once against the node-by-node dry run.

Seeded random clusters (nodes of varied sizes, some cordoned, tainted, labelled; pods of several
priorities, some started, some with host ports; PodDisruptionBudgets with budgets of 0 to 2;
pending pods nominated to nodes) and preemptors of several priorities and sizes (some with a node
selector, a toleration or a host port). The same attempts run on two copies of the cluster: one
with the plugin as it is, one whose plugin visits every node through ``select_victims_on_node``
(its arithmetic shortcuts taken away). Every attempt must give the same node, nomination and
preemption record (candidates with their victims and PDB violations, node statuses, the chosen
candidate, victims, cleared nominations, events, the verdict), with placements, deletions and
start times set or changed (``Cluster.start_pod``, as the simulator's kubelet does) between attempts.
The failed Filter pass's kept NodeResourcesFit verdicts are checked against the framework's Filter
on the same clusters, cycle after cycle with pods placed and deleted between.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone

import pytest

from kschedlab.api.core import Node, Pod
from kschedlab.api.policy import PodDisruptionBudget
from kschedlab.cluster import Cluster
from kschedlab.scheduler import Scheduler
from tests.seeds import seeds

APPS = ("web", "db", "cache")


def cluster_objects(seed: int, nodes: int) -> tuple[list, list[dict]]:
    rng = random.Random(seed)
    objects: list = []
    for i in range(nodes):
        name = f"node-{i:03d}"
        spec: dict = {}
        if rng.random() < 0.05:
            spec["unschedulable"] = True
        if rng.random() < 0.1:
            spec["taints"] = [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]
        alloc = {"cpu": rng.choice(["2", "4", "4", "8"]), "memory": rng.choice(["4Gi", "8Gi", "16Gi"]),
                 "pods": rng.choice(["110", "5", "8"])}
        objects.append(Node.model_validate({"metadata": {"name": name, "labels": {
            "kubernetes.io/hostname": name, "tier": rng.choice(["a", "b"])}}, "spec": spec,
            "status": {"allocatable": alloc, "capacity": dict(alloc)}}))
    for j in range(nodes * 7):
        container: dict = {"name": "c", "resources": {"requests": {
            "cpu": rng.choice(["250m", "500m", "900m", "1"]), "memory": rng.choice(["256Mi", "1Gi", "2Gi"])}}}
        if rng.random() < 0.03:
            container["ports"] = [{"containerPort": 80, "hostPort": 8080}]
        pod: dict = {"metadata": {"name": f"p{j:04d}", "namespace": "default",
                                  "labels": {"app": rng.choice(APPS)}},
                     "spec": {"nodeName": f"node-{rng.randrange(nodes):03d}", "priority": rng.choice([0, 0, 5, 10, 100]),
                              "containers": [container]}}
        if rng.random() < 0.4:
            pod["status"] = {"startTime": f"2024-01-{rng.randint(1, 9):02d}T00:00:0{rng.randint(0, 3)}Z"}
        objects.append(Pod.model_validate(pod))
    for app in APPS:
        if rng.random() < 0.6:
            objects.append(PodDisruptionBudget.model_validate({
                "metadata": {"name": f"pdb-{app}", "namespace": "default"},
                "spec": {"selector": {"matchLabels": {"app": app}}},
                "status": {"disruptionsAllowed": rng.randint(0, 2), "currentHealthy": 0, "desiredHealthy": 0,
                           "expectedPods": 0}}))
    for j in range(rng.randint(0, 6)):  # pending pods nominated to a node
        objects.append(Pod.model_validate({
            "metadata": {"name": f"nom{j}", "namespace": "default"},
            "spec": {"priority": rng.choice([0, 10, 50, 1000]), "schedulingGates": [{"name": "hold"}],
                     "containers": [{"name": "c", "resources": {"requests": {"cpu": rng.choice(["500m", "2"])}}}]},
            "status": {"nominatedNodeName": f"node-{rng.randrange(nodes):03d}"}}))
    preemptors = []
    for j in range(12):
        container = {"name": "c", "resources": {"requests": {
            "cpu": rng.choice(["1", "2", "3", "3500m", "7"]), "memory": rng.choice(["1Gi", "3Gi"])}}}
        spec: dict = {"priority": rng.choice([5, 50, 1000, 1000]), "containers": [container]}
        kind = rng.random()
        if kind < 0.15:
            spec["nodeSelector"] = {"tier": "a"}
        elif kind < 0.25:
            spec["tolerations"] = [{"key": "dedicated", "operator": "Exists"}]
        elif kind < 0.3:
            container["ports"] = [{"containerPort": 80, "hostPort": 8080}]
        preemptors.append({"metadata": {"name": f"hi{j:02d}", "namespace": "default"}, "spec": spec})
    return objects, preemptors


def node_by_node(sched: Scheduler, key: str) -> None:
    """Take the plugin's shortcuts away: every dry-run node goes through select_victims_on_node."""
    plugin = sched.framework_for(sched.cluster.pods[key]).plugins["DefaultPreemption"]
    plugin.victims_for_rows = None
    plugin.select_victims_without_changes = None


def comparable(record) -> dict | None:
    if record is None:
        return None
    out = record.to_dict()
    out["selectedSummary"] = None
    return out


@pytest.mark.parametrize("seed, nodes, args", [
    (1, 40, None), (2, 60, None), (3, 150, None), (4, 120, {"minCandidateNodesAbsolute": 7}),
    (5, 90, {"minCandidateNodesAbsolute": 40, "minCandidateNodesPercentage": 0}), (6, 200, None),
    (7, 70, {"minCandidateNodesAbsolute": 1}), (8, 110, None),
])
def test_victims_for_many_nodes_equal_the_node_by_node_dry_run(seed, nodes, args):
    objects, preemptors = cluster_objects(seed, nodes)
    fast, slow = (attempts(objects, preemptors, seed, shortcuts, args) for shortcuts in (True, False))
    assert len(fast) == len(slow)
    for a, b in zip(fast, slow):
        assert a == b
    preempted = sum(1 for entry in fast[:-1] if entry[2] is not None and entry[2]["victims"])
    assert preempted > 0


def attempts(objects: list, preemptors: list[dict], seed: int, shortcuts: bool, args: dict | None = None,
             config: dict | None = None) -> list:
    """Each preemptor's attempts (node, nomination, preemption record), start times set between them,
    and the placements at the end; ``shortcuts`` False: every dry-run node visited one by one."""
    cluster = Cluster([o.model_copy(deep=True) for o in objects])
    sched = Scheduler(cluster, config, seed=seed, keep_traces=0)
    if args is not None:
        for fw in sched.profiles.values():
            plugin = fw.plugins["DefaultPreemption"]
            plugin.args = type(plugin.args)(**{"min_candidate_nodes_percentage": args.get(
                "minCandidateNodesPercentage", 10), "min_candidate_nodes_absolute": args.get(
                "minCandidateNodesAbsolute", 100)})
    seen = []
    starts = random.Random(seed)  # the same start times in both runs
    for p in preemptors:
        placed = sorted(k for k, pod in cluster.pods.items() if pod.spec.node_name)
        for k in starts.sample(placed, min(len(placed), 8)):  # started now, or restarted at another time
            cluster.start_pod(k, datetime(2024, 1, 1, tzinfo=timezone.utc)
                              + timedelta(days=starts.randint(0, 9), seconds=starts.randint(0, 3)))
        cluster.add(Pod.model_validate(p))
        key = f"default/{p['metadata']['name']}"
        if not shortcuts:
            node_by_node(sched, key)
        for _ in range(2):  # preempt, then bind to the nominated node
            plugin = sched.framework_for(cluster.pods[key]).plugins["DefaultPreemption"]
            plugin.last_record = None
            result = sched.schedule_one(key)
            pod = cluster.pods.get(key)
            seen.append((result.node, pod.status.nominated_node_name if pod is not None else None,
                         comparable(plugin.last_record)))
            if result.node is not None:
                break
    seen.append(sorted((k, p.spec.node_name) for k, p in cluster.pods.items()))
    return seen


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_filters_reordered_the_pod_independent_ones_after_the_fit_still_checked(seed):
    """With NodeResourcesFit ordered before the pod-independent Filter plugins, a full node that is
    tainted or cordoned fails the fit first: the failed cycle's statuses do not show it passing
    them (:meth:`NodeToStatus.rows_passing`), so the dry run filters it and finds it no candidate,
    as the node-by-node dry run does. The preemptors tolerate nothing and select no label here."""
    order = ["NodeResourcesFit", "NodeUnschedulable", "NodeName", "TaintToleration", "NodeAffinity"]
    config = {"profiles": [{"plugins": {"filter": {"disabled": [{"name": "*"}],
                                                   "enabled": [{"name": n} for n in order]}}}]}
    objects, preemptors = cluster_objects(seed, 80)
    for p in preemptors:
        p["spec"].pop("nodeSelector", None)
        p["spec"].pop("tolerations", None)
    fast, slow = (attempts(objects, preemptors, seed, shortcuts, config=config) for shortcuts in (True, False))
    assert fast == slow
    nodes = {o.metadata.name: o for o in objects if isinstance(o, Node)}
    barred = {name for name, n in nodes.items() if n.spec.taints or n.spec.unschedulable}
    statuses = [entry[2]["nodeStatuses"] for entry in fast[:-1] if entry[2] is not None]
    assert sum(1 for st in statuses for name in st if name in barred) > 0  # barred nodes reached the dry run
    assert not {entry[1] for entry in fast[:-1]} & barred


def test_a_start_time_set_after_the_victim_table_read_the_node_changes_the_victim_order():
    """n1 holds a and b (priority 1, not started, a first); a preemption read n1 and left it as it
    was; then b starts before a. Of two pods of equal priority the one started earlier is the more
    important (``MoreImportantPod``), so the next preemption reprieves b and evicts a (with the
    start times read before, it would be the other way round)."""
    def pod(name, node=None, priority=1):
        spec = {"priority": priority, "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}
        return Pod.model_validate({"metadata": {"name": name, "namespace": "default"},
                                   "spec": {**spec, **({"nodeName": node} if node else {})}})

    def node(name, cpu):
        alloc = {"cpu": cpu, "memory": "4Gi", "pods": "110"}
        return Node.model_validate({"metadata": {"name": name}, "status": {"allocatable": alloc, "capacity": alloc}})

    cluster = Cluster([node("n1", "3"), node("n2", "1"), pod("a", "n1"), pod("b", "n1"), pod("hi0", "n1", 10),
                       pod("d", "n2", 0)])
    sched = Scheduler(cluster, seed=0, keep_traces=0)
    plugin = sched.profiles["default-scheduler"].plugins["DefaultPreemption"]

    def preempt(name):
        cluster.add(pod(name, priority=10))
        for _ in range(2):
            if sched.schedule_one(f"default/{name}").node is not None:
                return plugin.last_record

    first = preempt("hi1")  # n1 (victim a or b, priority 1) loses to n2 (victim d, priority 0)
    assert first.selected.name == "n2" and first.victims == ["default/d"]
    assert {c.name for c in first.candidates} == {"n1", "n2"}
    t0 = datetime(2024, 1, 1, tzinfo=timezone.utc)
    cluster.start_pod("default/a", t0 + timedelta(seconds=5))
    cluster.start_pod("default/b", t0)
    second = preempt("hi2")
    assert second.selected.name == "n1" and second.victims == ["default/a"]


@pytest.mark.parametrize("seed", seeds(6))
def test_the_failed_pass_reads_the_kept_verdicts_as_the_framework_filters(seed):
    """The nodes the fused check rejects (cordoned, tainted, short of room) get from the kept
    NodeResourcesFit verdicts the outcome the framework's Filter gives them, after placements and
    deletions move the nodes' rows between cycles."""
    from kschedlab.framework.interface import CycleState
    from kschedlab.scheduler.fast_path import KEEP_FROM

    rng = random.Random(seed)
    objects, _ = cluster_objects(seed, 80)
    cluster = Cluster([o for o in objects if not (isinstance(o, Pod) and o.status and o.status.nominated_node_name)])
    sched = Scheduler(cluster, seed=seed)
    fw = sched.profiles["default-scheduler"]
    fast = sched.fast_paths["default-scheduler"]
    cluster.add(Pod.model_validate({"metadata": {"name": "big", "namespace": "default"}, "spec": {
        "priority": 1000, "containers": [{"name": "c", "resources": {"requests": {"cpu": "3500m", "memory": "3Gi"}}}]}}))
    pod_info = cluster.pod_infos["default/big"]
    used = 0
    for cycle in range(KEEP_FROM + 4):
        snapshot = cluster.snapshot
        plan = fast.plan(pod_info, snapshot)
        assert plan is not None
        state = CycleState()
        fast.run_pre_filter(plan, state, pod_info)
        rows = snapshot.order
        ok = fast.passing(plan, pod_info, snapshot, rows)
        doubtful = rows if ok is None else rows[~ok]
        got = fast._rejected(plan, state, pod_info, snapshot, doubtful)
        want = fw.run_filter(state, pod_info, snapshot, doubtful)
        assert [got.status(i) for i in range(len(doubtful))] == [want.status(i) for i in range(len(doubtful))]
        used += cycle >= KEEP_FROM and fast._fit_verdicts.get(plan.shape.checked) is not None
        placed = sorted(k for k, p in cluster.pods.items() if p.spec.node_name)
        for key in rng.sample(placed, 3):  # rows move between cycles
            cluster.remove_pod(key)
        node = rng.choice(sorted(cluster.nodes))
        cluster.add(Pod.model_validate({"metadata": {"name": f"extra{cycle}", "namespace": "default"}, "spec": {
            "nodeName": node, "containers": [{"name": "c", "resources": {"requests": {"cpu": "2"}}}]}}))
    assert used  # the kept verdicts answered


@pytest.mark.parametrize("seed", seeds(3))
def test_a_row_computed_alone_gets_the_kept_verdict_all_rows_get(seed):
    """NodeFitVerdicts computes a few changed rows one by one (in scalars) and many with arrays:
    both give every node the same failed checks and code, for requests that fit, fall short, exceed
    the allocatable or ask for a resource no node has."""
    from kschedlab.framework.status import Code
    from kschedlab.scheduler.kept_scores import NodeFitVerdicts

    objects, _ = cluster_objects(seed, 60)
    snapshot = Cluster([o for o in objects if not (isinstance(o, Pod) and o.status
                                                   and o.status.nominated_node_name)]).snapshot
    rows = snapshot.order
    codes: set[int] = set()
    for checked in ((("cpu", 3500), ("memory", 3 << 30)), (("cpu", 7000),), (("memory", 20 << 30),),
                    (("cpu", 4000),), (("cpu", 2000), ("memory", 4 << 30)),
                    (("cpu", 1000), ("example.com/gpu", 1)), (("cpu", 0),)):
        kept = NodeFitVerdicts(snapshot, checked)
        kept.refresh()
        alone = NodeFitVerdicts(snapshot, checked)
        alone.refresh()
        alone.sig[:], alone.code[:] = -1, -1
        for row in rows.tolist():
            alone._update_one(row)
        assert alone.sig[rows].tolist() == kept.sig[rows].tolist()
        assert alone.code[rows].tolist() == kept.code[rows].tolist()
        codes.update(kept.code[rows].tolist())
    assert codes == {0, Code.Unschedulable, Code.UnschedulableAndUnresolvable}


def test_victims_on_nodes_already_in_victim_order_equal_the_node_by_node_dry_run():
    """Nodes whose pods are already in the victims' order (higher priority first, none started) and
    no PodDisruptionBudget: the victim search keeps each node's own order (no sort) and must still
    name the same victims as the node-by-node dry run."""
    def pod(name, node, priority, cpu):
        return Pod.model_validate({"metadata": {"name": name, "namespace": "default"}, "spec": {
            "nodeName": node, "priority": priority,
            "containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]}})

    alloc = {"cpu": "4", "memory": "8Gi", "pods": "110"}
    nodes = [Node.model_validate({"metadata": {"name": f"n{i}"}, "status": {"allocatable": alloc, "capacity": alloc}})
             for i in range(4)]
    pods = [pod(f"p{i}{j}", f"n{i}", prio, cpu) for i in range(4)
            for j, (prio, cpu) in enumerate(((9, "1"), (5 - i % 2, "1500m"), (3, "500m"), (1, "1")))]
    records = []
    for shortcuts in (True, False):
        cluster = Cluster([n.model_copy(deep=True) for n in nodes] + [p.model_copy(deep=True) for p in pods])
        sched = Scheduler(cluster, seed=0, keep_traces=0)
        cluster.add(Pod.model_validate({"metadata": {"name": "hi", "namespace": "default"}, "spec": {
            "priority": 100, "containers": [{"name": "c", "resources": {"requests": {"cpu": "2500m"}}}]}}))
        if not shortcuts:
            node_by_node(sched, "default/hi")
        assert sched.schedule_one("default/hi").node is None
        records.append(comparable(sched.framework_for(cluster.pods["default/hi"]).plugins["DefaultPreemption"]
                                  .last_record))
    assert records[0] == records[1]
    assert records[0]["victims"]


@pytest.mark.parametrize("seed", seeds(3))
def test_the_pod_independent_filters_asked_span_by_span_answer_as_over_all_nodes(seed):
    """The dry run asks whether the pod-independent Filter plugins pass a node span by span (each
    node filtered when first asked): the answers equal those of the plugins over all nodes at once,
    for preemptors with a node selector or a toleration among cordoned and tainted nodes."""
    import numpy as np

    from kschedlab.framework.interface import CycleState
    from kschedlab.framework.runtime import filter_verdicts
    from kschedlab.plugins.default_preemption import POD_INDEPENDENT_FILTERS, _IndependentPass

    objects, preemptors = cluster_objects(seed, 90)
    cluster = Cluster([o for o in objects if not (isinstance(o, Pod) and o.status and o.status.nominated_node_name)])
    sched = Scheduler(cluster, seed=seed, keep_traces=0)
    fw = sched.profiles["default-scheduler"]
    snapshot = cluster.snapshot
    rows = snapshot.order
    at = np.zeros(int(rows.max()) + 1, np.int64)
    at[rows] = np.arange(len(rows))  # a row's position in the node order
    rejected = 0
    for p in preemptors:
        cluster.add(Pod.model_validate(p))
        pod_info = cluster.pod_infos[f"default/{p['metadata']['name']}"]
        state = CycleState()
        fw.run_pre_filter(state, pod_info, snapshot)
        plugins = [q for q in fw.filter_plugins(state) if q.name in POD_INDEPENDENT_FILTERS]
        want = np.ones(len(rows), bool)
        for q in plugins:
            want &= filter_verdicts(q, state, pod_info, snapshot, rows).codes == 0
        asked = _IndependentPass(plugins, state, pod_info, snapshot)
        third = len(rows) // 3
        for span in (rows[third:2 * third], rows[:2 * third], rows):  # spans overlapping the nodes asked before
            assert asked.take(span).tolist() == want[at[span]].tolist()
        rejected += int((~want).sum())
    assert rejected
