"""The simulation loop: determinism, queue moves driven by cluster events, Permit timeouts."""

from __future__ import annotations

import pandas as pd

from kschedlab.api.core import Node, Pod
from kschedlab.framework.interface import Plugin
from kschedlab.framework.status import Status
from kschedlab.sim import Simulation


def node(name, cpu="1"):
    return Node.model_validate({"metadata": {"name": name},
                                "status": {"allocatable": {"cpu": cpu, "memory": "4Gi", "pods": "10"}}})


def pod(name, cpu="600m", gates=()):
    return Pod.model_validate({"metadata": {"name": name, "namespace": "default"}, "spec": {
        "schedulingGates": [{"name": g} for g in gates],
        "containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]}})


def run(seed=0):
    sim = Simulation([node("n1"), node("n2")], seed=seed)
    for i in range(6):
        sim.create_pod(pod(f"p{i}"), at=i * 0.5, duration=7.0)
    return sim.run(until=120)


def test_same_seed_same_run():
    a, b = run(3), run(3)
    assert a.pods.equals(b.pods) and a.queue.equals(b.queue) and a.moves.equals(b.moves)


def test_pods_wait_for_capacity_and_are_woken_by_deletions():
    result = run()
    rows = result.pods.set_index("pod")
    assert rows.loc["default/p0", "scheduled"] == 0.0 and rows.loc["default/p1", "scheduled"] == 0.5
    # p2.. find both nodes full; each bound pod's completion (an AssignedPodDelete event) wakes them
    assert rows.loc["default/p2", "scheduled"] == 7.0
    assert rows["finished"].notna().all()
    assert (rows["attempts"] >= 1).all()
    moved = result.moves[result.moves["pod"] == "default/p2"]
    assert list(moved["to"])[:2] == ["active", "unschedulable"] or "unschedulable" in set(moved["to"])


def test_a_node_added_later_takes_the_waiting_pod():
    sim = Simulation([node("n1", cpu="500m")])
    sim.create_pod(pod("big", cpu="2"), at=0)
    sim.add_node(node("n2", cpu="4"), at=30)
    result = sim.run(until=100)
    row = result.pods.set_index("pod").loc["default/big"]
    assert (row["node"], row["scheduled"]) == ("n2", 30.0)


def test_gated_pod_waits_until_its_gates_are_removed():
    sim = Simulation([node("n1")])
    sim.create_pod(pod("gated", gates=["example.com/foo", "example.com/bar"]), at=0)
    sim.remove_scheduling_gates("default/gated", at=15, names=["example.com/foo"])
    sim.remove_scheduling_gates("default/gated", at=20)
    result = sim.run(until=60)
    row = result.pods.set_index("pod").loc["default/gated"]
    assert (row["first_attempt"], row["scheduled"], row["attempts"]) == (20.0, 20.0, 1)
    sizes = result.queue.set_index("time")
    assert sizes.loc[0.0, "gated"] == 1 and sizes.loc[20.0, "gated"] == 0


class AlwaysWait(Plugin):
    name = "AlwaysWait"

    def permit(self, state, pod_info, node_name):
        return Status.wait(plugin=self.name), 10.0


def test_permit_wait_times_out_and_the_pod_is_retried():
    config = {"profiles": [{"plugins": {"permit": {"enabled": [{"name": "AlwaysWait"}]}}}]}
    sim = Simulation([node("n1")], config, registry={"AlwaysWait": AlwaysWait})
    sim.create_pod(pod("p"), at=0)
    result = sim.run(until=400)
    row = result.pods.set_index("pod").loc["default/p"]
    assert row["scheduled"] is None  # never bound
    # rejected at t=10 into the unschedulable pool; no event can help (AlwaysWait registers none),
    # so only the podMaxInUnschedulablePodsDuration flush (300 s, checked every 30 s) retries it
    assert row["attempts"] == 2
    retry = result.moves[(result.moves["to"] == "active") & (result.moves["time"] > 0)]
    assert retry["time"].iloc[0] == 330.0
    timeouts = sim.scheduler.results[1].message  # results[0] is the Wait itself
    assert timeouts == ("0/1 nodes are available: 1 rejected due to timeout after waiting 10s at plugin "
                        "AlwaysWait.")
    assert not sim.cluster.snapshot.pods[0]  # the assumed pod was forgotten each time


def prio_pod(name, cpu, priority, grace=None):
    spec = {"priority": priority, "containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]}
    if grace is not None:
        spec["terminationGracePeriodSeconds"] = grace
    return Pod.model_validate({"metadata": {"name": name, "namespace": "default"}, "spec": spec})


def test_victims_keep_their_node_for_their_grace_period():
    """Seed section 12: the preemptor is nominated, waits while the victim terminates, then binds."""
    sim = Simulation([node("n1")])
    sim.create_pod(prio_pod("low", "800m", 10, grace=20), at=0)
    sim.create_pod(prio_pod("high", "800m", 1000), at=5)
    result = sim.run(until=100)
    rows = result.pods.set_index("pod")
    assert rows.loc["default/low", "preempted"] == 5.0
    assert sim.cluster.pods.get("default/low") is None  # deleted at 25
    assert (rows.loc["default/high", "node"], rows.loc["default/high", "scheduled"]) == ("n1", 25.0)
    # PostFilter succeeded (a victim was found), so the message carries no preemption verdict
    assert sim.scheduler.results[1].message == "0/1 nodes are available: 1 Insufficient cpu."
    assert sim.scheduler.results[1].trace.preemption.victims == ["default/low"]


def test_a_higher_priority_pod_arriving_meanwhile_takes_the_node():
    """Seed section 12: while victims terminate, a pod of even higher priority takes the freed node;
    the first preemptor does not get it."""
    sim = Simulation([node("n1")])
    sim.create_pod(prio_pod("low", "800m", 10, grace=30), at=0)
    sim.create_pod(prio_pod("mid", "800m", 100), at=5)
    sim.create_pod(prio_pod("top", "800m", 1000), at=10)
    result = sim.run(until=200)
    rows = result.pods.set_index("pod")
    assert rows.loc["default/top", "node"] == "n1"
    assert pd.isna(rows.loc["default/mid", "node"]) and pd.isna(rows.loc["default/mid", "scheduled"])


def test_drain_evicts_through_the_budget_and_gets_stuck_without_replacements():
    """Seed section 14: kubectl drain evicts via the Eviction API; with a budget of minAvailable 1
    and nothing to replace the evicted pod, the second eviction keeps answering 429."""
    from kschedlab.api.policy import PodDisruptionBudget

    web = [Pod.model_validate({"metadata": {"name": f"web-{i}", "namespace": "default", "labels": {"app": "web"}},
                               "spec": {"nodeName": "n1", "terminationGracePeriodSeconds": 5, "containers": [
                                   {"name": "c", "resources": {"requests": {"cpu": "100m"}}}]}})
           for i in range(2)]
    pdb = PodDisruptionBudget.model_validate({
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}}})
    sim = Simulation([node("n1"), node("n2"), *web, pdb])
    sim.drain("n1", at=10, ignore_daemonsets=True, force=True, timeout=60)  # the pods have no controller
    sim.run(until=200)
    result = sim.drains["n1"].result
    codes = [(e.pod, e.code) for e in result.attempts()]
    assert codes[0] == ("default/web-0", 200)
    assert {c for p, c in codes if p == "default/web-1"} == {429}
    assert "default/web-0" not in sim.cluster.pods and "default/web-1" in sim.cluster.pods
    assert not result.ok and result.end_time == 70.0
    assert result.stderr[-1] == 'error: error when evicting pods/"web-1" -n "default": global timeout reached: 1m0s'
    assert sim.cluster.nodes["n1"].spec.unschedulable


def test_utilisation_counts_a_pod_from_the_instant_it_is_bound():
    """A pod bound at t is in the utilisation sample of t, not only in the next instant's."""
    sim = Simulation([node("n1")])
    sim.create_pod(pod("p", cpu="600m"), at=10, duration=50)
    util = sim.run(until=100).utilization
    cpu = util[util["node"] == "n1"].set_index("time")["cpu_requested"]
    assert cpu.loc[0.0] == 0 and cpu.loc[10.0] == 600 and cpu.loc[60.0] == 0


def test_utilisation_with_attempt_duration_counts_from_the_attempt():
    sim = Simulation([node("n1")], attempt_duration=2.0)
    sim.create_pod(pod("p", cpu="600m"), at=10, duration=50)
    util = sim.run(until=100).utilization
    cpu = util[util["node"] == "n1"].set_index("time")["cpu_requested"]
    assert cpu.loc[10.0] == 600


def test_on_clock_sees_every_instant_the_clock_moves_to_and_changes_nothing():
    seen = []
    sim = Simulation([node("n1"), node("n2")], seed=3)
    sim.on_clock = seen.append
    for i in range(6):
        sim.create_pod(pod(f"p{i}"), at=i * 0.5, duration=7.0)
    watched = sim.run(until=120)
    plain = run(3)
    assert watched.pods.equals(plain.pods) and watched.queue.equals(plain.queue)
    assert seen == sorted(seen) and len(set(seen)) == len(seen)
    assert {0.5, 1.0, 7.0} <= set(seen) and seen[-1] <= 120


RS_AND_URGENT_POD = """\
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "2", memory: 8Gi, pods: "110"}}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: app, image: nginx, resources: {requests: {cpu: 1500m}}}]}
"""


def test_a_replicaset_replaces_its_preempted_pod_at_once_and_the_replacement_waits():
    # the ReplicaSet controller counts a terminating pod out: the replacement is created when the
    # victim is deleted (10 s), waits while the victim's grace period (30 s) and the preemptor hold
    # the node, and is bound when the preemptor finishes (40 s + 60 s)
    from kschedlab.controllers.manifests import load_manifests

    sim = Simulation(load_manifests(text=RS_AND_URGENT_POD))
    urgent = Pod.model_validate({"metadata": {"name": "urgent", "namespace": "default"}, "spec": {
        "priorityClassName": "high", "priority": 1000,
        "containers": [{"name": "c", "resources": {"requests": {"cpu": "1500m"}}}]}})
    sim.create_pod(urgent, at=10, duration=60)
    rows = sim.run(until=200).pods.set_index("pod")
    (victim,) = [k for k in rows.index if k.startswith("default/web-") and rows.loc[k, "preempted"] == 10]
    (replacement,) = [k for k in rows.index if k.startswith("default/web-") and k != victim]
    assert rows.loc["default/urgent", ["bound", "finished"]].tolist() == [40, 100]
    assert rows.loc[replacement, ["created", "bound"]].tolist() == [10, 100]
    assert replacement in sim.cluster.pods and victim not in sim.cluster.pods


def test_a_replicaset_replaces_a_pod_the_taint_manager_evicts():
    from kschedlab.controllers.manifests import load_manifests

    sim = Simulation(load_manifests(text=RS_AND_URGENT_POD + "---\n" + RS_AND_URGENT_POD.split("---\n")[0]
                                    .replace("name: n1", "name: n2")))
    sim.run(until=1)
    (first,) = [p for p in sim.cluster.pods.values()]
    sim.set_taints(first.spec.node_name, [{"key": "maintenance", "effect": "NoExecute"}], at=5)
    rows = sim.run(until=100).pods.set_index("pod")
    (replacement,) = [k for k in rows.index if k != first.key]
    assert rows.loc[replacement, "created"] == 5 and rows.loc[replacement, "node"] != first.spec.node_name
    assert list(sim.cluster.pods) == [replacement]
