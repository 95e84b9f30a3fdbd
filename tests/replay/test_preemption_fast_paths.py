"""The preemption shortcuts a long trace replay relies on give what the general path gives.

On seeded random clusters (GPU nodes, pods of several priorities, nominated pods, tainted and
cordoned nodes, host ports, PDBs) one scheduling attempt of a preemptor runs twice: with
DefaultPreemption as it is (nodes settled at once by ``victims_for_rows``, victims by
arithmetic in ``select_victims_without_changes``) and with both shortcuts switched off, so every
node of the dry run goes through ``select_victims_on_node`` on a scratch copy of the node.  The
attempt's message, the preemption record (potential nodes, candidates, every node status in
order, the selected node, victims and events) and the cluster afterwards must be the same.
"""

from __future__ import annotations

import numpy as np
import pytest

from kschedlab.api.core import Node, Pod
from kschedlab.api.policy import PodDisruptionBudget
from kschedlab.cluster import Cluster
from kschedlab.framework.interface import CycleState
from kschedlab.framework.preemption import NodeToStatus
from kschedlab.framework.runtime import Framework
from kschedlab.framework.status import Code, Status
from kschedlab.scheduler import Scheduler
from tests.seeds import seeds

GPU = "nvidia.com/gpu"
PRIORITIES = [-10, 0, 0, 0, 100, 100, 1000]


def random_cluster(seed: int) -> tuple[list, str]:
    """Objects of a random cluster and the key of its preemptor (pending, not yet tried)."""
    rng = np.random.default_rng(seed)
    n_nodes = int(rng.integers(3, 40))
    objects: list = []
    for i in range(n_nodes):
        alloc = {"cpu": str(int(rng.choice([4, 8, 16]))), "memory": f"{int(rng.choice([16, 32, 64]))}Gi",
                 "pods": str(int(rng.integers(2, 8)))}
        if rng.random() < 0.8:
            alloc[GPU] = str(int(rng.choice([2, 4, 8])))
        spec: dict = {}
        if rng.random() < 0.1:
            spec["unschedulable"] = True
        if rng.random() < 0.1:
            spec["taints"] = [{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]
        objects.append(Node.model_validate({"metadata": {"name": f"n{i:02d}", "labels": {"zone": f"z{i % 3}"}},
                                            "spec": spec, "status": {"allocatable": alloc, "capacity": alloc}}))
    ports = rng.random() < 0.2  # some pods hold a host port: then the arithmetic shortcut does not apply

    def pod(name: str, node: str | None, nominated: str | None = None) -> Pod:
        requests = {"cpu": f"{int(rng.choice([500, 1000, 2000, 4000]))}m",
                    "memory": f"{int(rng.choice([1, 2, 4, 8]))}Gi"}
        container: dict = {"name": "c", "resources": {"requests": requests}}
        gpus = int(rng.choice([0, 0, 1, 1, 2, 4]))
        if gpus:
            requests[GPU] = str(gpus)
            container["resources"]["limits"] = {GPU: str(gpus)}
        if ports and rng.random() < 0.3:
            container["ports"] = [{"containerPort": 80, "hostPort": 8080}]
        body: dict = {"metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}",
                                   "labels": {"app": str(rng.choice(["a", "b"]))}},
                      "spec": {"priority": int(rng.choice(PRIORITIES)), "containers": [container]}}
        if node:
            body["spec"]["nodeName"] = node
            body["status"] = {"startTime": f"2024-01-0{int(rng.integers(1, 10))}T00:00:00Z", "phase": "Running"}
        if nominated:
            body["status"] = {"nominatedNodeName": nominated}
        return Pod.model_validate(body)

    for j in range(int(rng.integers(0, 5 * n_nodes))):
        objects.append(pod(f"e{j:03d}", f"n{int(rng.integers(0, n_nodes)):02d}"))
    for j in range(int(rng.integers(0, 4))):
        objects.append(pod(f"nom{j}", None, f"n{int(rng.integers(0, n_nodes)):02d}"))
    if rng.random() < 0.3:
        objects.append(PodDisruptionBudget.model_validate({
            "metadata": {"name": "pdb-a", "namespace": "default"},
            "spec": {"selector": {"matchLabels": {"app": "a"}}},
            "status": {"disruptionsAllowed": int(rng.integers(0, 2))}}))
    preemptor = pod("preemptor", None)
    preemptor.spec.priority = int(rng.choice([0, 100, 1000, 1000]))
    objects.append(preemptor)
    return objects, "default/preemptor"


def general_path(plugin) -> None:
    """Switch DefaultPreemption's shortcuts off on this instance."""
    plugin.victims_for_rows = None
    plugin.select_victims_without_changes = None
    plugin._victims_by_resources = lambda *args, **kwargs: None


def one_attempt(seed: int, *, shortcuts: bool):
    objects, key = random_cluster(seed)
    cluster = Cluster(objects)
    for name in list(cluster.pods):  # nominated pods as the scheduler's nominator knows them
        nominated = cluster.pods[name].status.nominated_node_name if cluster.pods[name].status else None
        if nominated:
            cluster.nominate(name, nominated)
    sched = Scheduler(cluster, seed=seed)
    plugin = sched.profiles["default-scheduler"].plugins["DefaultPreemption"]
    if not shortcuts:
        general_path(plugin)
    plugin.last_record = None
    result = sched.schedule_one(key)
    record = plugin.last_record
    after = {k: (p.spec.node_name, p.metadata.deletion_timestamp is not None,
                 p.status.nominated_node_name if p.status else None) for k, p in cluster.pods.items()}
    return result, record, after


@pytest.mark.parametrize("seed", seeds(120))
def test_the_shortcuts_choose_and_report_as_the_general_path(seed):
    fast, fast_record, fast_after = one_attempt(seed, shortcuts=True)
    slow, slow_record, slow_after = one_attempt(seed, shortcuts=False)
    assert (fast.node, fast.message, fast.status) == (slow.node, slow.message, slow.status)
    assert (fast_record is None) == (slow_record is None)
    if fast_record is not None:
        a, b = fast_record.to_dict(), slow_record.to_dict()
        assert a == b
        assert list(a["nodeStatuses"]) == list(b["nodeStatuses"])  # the same nodes, in the same order
    assert fast_after == slow_after


def test_the_random_clusters_reach_every_branch(monkeypatch):
    """The seeds above cover nodes settled at once (no lower-priority pod, and no room even with
    them gone), candidates, preemptions and pods that fit without preemption."""
    from kschedlab.plugins.default_preemption import DefaultPreemption

    seen = set()
    settle = DefaultPreemption.victims_for_rows

    def watched(self, *args):
        out = settle(self, *args)
        if out is not None:
            seen.update({0: "settled: no victims"}.get(i, "settled: no room") for i in set(out[0].tolist()) - {-1})
        return out

    monkeypatch.setattr(DefaultPreemption, "victims_for_rows", watched)
    for seed in range(120):
        result, record, _ = one_attempt(seed, shortcuts=True)
        if result.node is not None:
            seen.add("fits")
            continue
        if record is None:
            continue
        reasons = {r for st in record.to_dict()["nodeStatuses"].values() for r in st["reasons"]}
        if "No preemption victims found for incoming pod" in reasons:
            seen.add("no victims")
        if any(r.startswith("Insufficient") or r == "Too many pods" for r in reasons):
            seen.add("no room")
        if record.selected is not None:
            seen.add("preempted")
    assert seen == {"fits", "no victims", "no room", "preempted", "settled: no victims", "settled: no room"}


# ------------------------------------------------------------------------------ NodeToStatus
def test_node_to_status_kept_as_arrays_answers_as_the_dict():
    rng = np.random.default_rng(3)
    cluster = Cluster([Node.model_validate({"metadata": {"name": f"n{i}"}, "status": {
        "allocatable": {"cpu": "1", "memory": "1Gi", "pods": "10"}}}) for i in range(50)])
    snap = cluster.snapshot
    shared = [Status.unschedulable("Insufficient cpu", plugin="NodeResourcesFit"),
              Status.unresolvable("node(s) had untolerated taint", plugin="TaintToleration"),
              Status(Code.Unschedulable, ("Insufficient cpu", "Insufficient memory"), "NodeResourcesFit")]
    rows = rng.permutation(50)[:30]
    index = rng.integers(0, len(shared), 30)
    for absent in (None, Status.unschedulable("x")):
        lazy = NodeToStatus.from_rows(snap.names, rows, index, shared, absent)
        plain = NodeToStatus({snap.names[r]: shared[i] for r, i in zip(rows.tolist(), index.tolist())}, absent)
        for code in (Code.Unschedulable, Code.UnschedulableAndUnresolvable):
            assert lazy.nodes_for_status_code(snap, code) == plain.nodes_for_status_code(snap, code)
        assert lazy.fit_error_message(50) == plain.fit_error_message(50)
        assert len(lazy) == len(plain) == 30
        assert [lazy.get(n) for n in snap.names + ["none"]] == [plain.get(n) for n in snap.names + ["none"]]
        assert list(lazy.items()) == list(plain.items())
        lazy.set("n0", Status.unschedulable("y"))
        assert lazy.get("n0").reasons == ("y",)


def test_from_filter_outcome_shares_one_status_per_way_of_failing():
    cluster = Cluster([Node.model_validate({"metadata": {"name": f"n{i}"}, "status": {
        "allocatable": {"cpu": str(1 + i % 3), "memory": "1Gi", "pods": "10"}}}) for i in range(30)])
    cluster.add(Pod.model_validate({"metadata": {"name": "p", "namespace": "default"}, "spec": {
        "containers": [{"name": "c", "resources": {"requests": {"cpu": "2500m"}}}]}}))
    fw = Framework({}, cluster=cluster)
    info = cluster.pod_infos["default/p"]
    state = CycleState()
    fw.run_pre_filter(state, info, cluster.snapshot)
    outcome = fw.run_filter(state, info, cluster.snapshot, cluster.snapshot.order)
    m = NodeToStatus.from_filter_outcome(outcome, cluster.snapshot.node_names())
    expected = {cluster.snapshot.names[int(outcome.rows[i])]: outcome.status(i)
                for i in range(len(outcome.rows)) if outcome.fail_plugin[i] >= 0}
    assert m.statuses == expected
    assert len({id(s) for s in m.statuses.values()}) == len(set(expected.values()))


# ------------------------------------------------------------------ PodGroup preemption victims
def group_cluster(seed: int):
    """Objects of a random cluster with pods in PodGroups (disruption mode all, single or
    unset; some groups missing) and pods outside any group, all bound."""
    rng = np.random.default_rng(seed)
    objects: list[dict] = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{i}"},
                            "status": {"allocatable": {"cpu": "64", "memory": "64Gi", "pods": "110"}}}
                           for i in range(int(rng.integers(2, 8)))]
    groups = []
    for g in range(int(rng.integers(0, 6))):
        spec: dict = {"priority": int(rng.choice([0, 100, 1000])), "schedulingPolicy": {"gang": {"minCount": 1}}}
        mode = rng.choice(["all", "single", ""])
        if mode:
            spec["disruptionMode"] = {str(mode): {}}
        groups.append(f"g{g}")
        if rng.random() < 0.85:  # the rest: pods naming a group that does not exist
            objects.append({"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
                            "metadata": {"name": f"g{g}", "namespace": "default", "uid": f"g{g}"}, "spec": spec})
    for j in range(int(rng.integers(0, 40))):
        spec = {"priority": int(rng.choice([-5, 0, 100, 1000])), "nodeName": f"n{int(rng.integers(0, 2))}",
                "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}
        if groups and rng.random() < 0.6:
            spec["schedulingGroup"] = {"podGroupName": str(rng.choice(groups))}
        objects.append({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{j}", "namespace": "default",
                                                                        "uid": f"u{j}"}, "spec": spec})
    return objects


def reference_group_victims(plugin):
    """The victim units as DefaultPreemption built them before it skipped nodes: a walk of
    every pod of the snapshot."""
    from kschedlab.framework.podgroups import PodGroupInfo
    from kschedlab.plugins.default_preemption import GroupVictim

    cluster = plugin.handle.cluster
    in_snapshot = {pi.key: pi for pods in cluster.snapshot.pods for pi in pods}
    seen, out = set(), []
    for pi in in_snapshot.values():
        if pi.key in seen:
            continue
        chain = plugin._group_chain(pi.pod)
        priority = chain[-1].priority_value() if chain else pi.priority
        whole = [g for g in chain if g.spec.disruption_mode is not None and g.spec.disruption_mode.all]
        if not whole:
            seen.add(pi.key)
            out.append(GroupVictim("PodGroup" if pi.pod.spec.scheduling_group else "Pod", [pi], priority))
            continue
        keys = PodGroupInfo.build(cluster, whole[-1].group_key).scheduled_pod_keys(cluster)
        members = [pi, *(in_snapshot[k] for k in keys if k in in_snapshot and k not in seen and k != pi.key)]
        seen.update(m.key for m in members)
        out.append(GroupVictim(type(whole[-1]).__name__, members, priority))
    return out


@pytest.mark.parametrize("seed", seeds(60))
def test_group_victims_below_a_priority_are_those_of_all_units_below_it(seed):
    check_group_victims(seed)


def check_group_victims(seed: int) -> set[str]:
    """The units of one random cluster agree with the reference; the kinds of its units of
    several pods."""
    from kschedlab.api.loader import load_objects

    cluster = Cluster(load_objects(group_cluster(seed)))
    sched = Scheduler(cluster, gates={"GenericWorkload": True})
    plugin = sched.profiles["default-scheduler"].plugins["DefaultPreemption"]

    def units(victims):
        return [(v.kind, [p.key for p in v.pods], v.priority) for v in victims]

    every = reference_group_victims(plugin)
    assert sum(len(v.pods) for v in every) == len(cluster.pods)
    assert units(plugin._group_victims()) == units(every)
    for below in (-5, 0, 1, 100, 1000, 1001):
        assert units(plugin._group_victims(below=below)) == units(v for v in every if v.priority < below)
    return {v.kind for v in every if len(v.pods) > 1}


def test_the_random_group_clusters_hold_whole_group_units():
    kinds = set()
    for seed in range(60):
        kinds |= check_group_victims(seed)
    assert "PodGroup" in kinds
