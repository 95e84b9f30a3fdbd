"""GangScheduling: PreEnqueue, queueing hints, the default profile, the Permit ("alpha")
path of seed section 9 with its 5-minute timeout, and the deadlock it leaves when two
gangs are scheduled pod by pod; the PodGroupInitiallyScheduled condition helper.
"""

from __future__ import annotations

import textwrap
from datetime import datetime, timezone

import pytest

from kschedlab.api import admit, expand, load_text
from kschedlab.api.podgroup import PodGroup
from kschedlab.cluster import Cluster
from kschedlab.features import FeatureGates
from kschedlab.framework.podgroups import pod_group_state
from kschedlab.framework.runtime import Framework
from kschedlab.framework.status import Code
from kschedlab.plugins.gang_scheduling import (
    MSG_PERMIT_WAIT,
    MSG_WAITING_FOR_MIN_COUNT,
    NAME,
    PERMIT_TIMEOUT_SECONDS,
    GangScheduling,
    permit_timeout_message,
    placement_feasible,
)
from kschedlab.scheduler import Scheduler
from kschedlab.scheduler.podgroup import conditions

GW = {"GenericWorkload": True}


def y(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def nodes(n: int, cpu: str = "2") -> str:
    return "".join(
        f"---\napiVersion: v1\nkind: Node\nmetadata: {{name: node-{i}}}\n"
        f"status: {{allocatable: {{cpu: '{cpu}', memory: 8Gi, pods: '110'}}}}\n" for i in range(n))


def training_job(name: str, size: int) -> str:
    """A Job named by a Workload with one gang template of ``size`` (the seed's shape)."""
    return y(f"""
        ---
        apiVersion: batch/v1
        kind: Job
        metadata: {{name: {name}, namespace: ml}}
        spec:
          parallelism: {size}
          completions: {size}
          completionMode: Indexed
          template:
            spec:
              restartPolicy: Never
              containers: [{{name: worker, image: training:v1, resources: {{requests: {{cpu: "1"}}}}}}]
        ---
        apiVersion: scheduling.k8s.io/v1beta1
        kind: Workload
        metadata: {{name: {name}-policy, namespace: ml}}
        spec:
          controllerRef: {{apiGroup: batch, kind: Job, name: {name}}}
          podGroupTemplates:
          - name: worker
            schedulingPolicy: {{gang: {{minCount: {size}}}}}
        """)


def build(*docs: str, gates=GW, seed: int = 7):
    objs = admit(expand(load_text("".join(docs)), seed=seed), feature_gates=gates)
    cluster = Cluster(objs)
    sched = Scheduler(cluster, gates=gates, pod_group_cycle=False)  # the pod-by-pod Permit path
    return cluster, sched


def job_pods(cluster, job: str) -> list[str]:
    return sorted(k for k, p in cluster.pods.items() if p.metadata.labels.get("batch.kubernetes.io/job-name") == job)


def group_of(cluster, job: str) -> PodGroup:
    return next(pg for pg in cluster.of_kind("PodGroup") if pg.metadata.owner_references[0].name == job)


# -- the default profile ---------------------------------------------------------------------------------
def test_gang_scheduling_in_default_profile_only_with_generic_workload():
    assert "GangScheduling" not in Framework({}).plugins
    fw = Framework({}, gates=FeatureGates(GW))
    assert fw.profile.points["preEnqueue"][-1] == "GangScheduling"
    assert fw.profile.points["permit"] == ["GangScheduling"]
    # appended after the last default (NodeDeclaredFeatures) as applyFeatureGates does
    from kschedlab.framework.profile import default_multipoint

    names = [n for n, _ in default_multipoint(FeatureGates(GW))]
    assert names[-2:] == ["NodeDeclaredFeatures", "GangScheduling"]


def test_events_to_register():
    labels = lambda p: [e.label for e, _ in p.events_to_register()]  # noqa: E731
    plugin = GangScheduling.for_cluster(Cluster(), GW)
    assert labels(plugin) == ["UnscheduledPodAdd", "AssignedPodAdd", "scheduling.k8s.io/PodGroupAdd",
                              "scheduling.k8s.io/PodGroupUpdate"]
    plugin = GangScheduling.for_cluster(Cluster(), {**GW, "CompositePodGroup": True})
    assert labels(plugin)[-1] == "scheduling.k8s.io/CompositePodGroupAdd"


# -- PreEnqueue ------------------------------------------------------------------------------------------
def test_pre_enqueue_waits_for_pod_group_and_min_count():
    pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: %s, namespace: ml}\n" \
          "spec: {schedulingGroup: {podGroupName: pg}, containers: [{name: c}]}\n"
    cluster = Cluster(admit(load_text(pod % "p1"), feature_gates=GW))
    plugin = GangScheduling.for_cluster(cluster, GW)
    status = plugin.pre_enqueue(cluster.pod_infos["ml/p1"])
    assert (status.code, status.reasons, status.plugin) == (
        Code.UnschedulableAndUnresolvable, ('waiting for pod\'s pod group "pg" to appear in scheduling queue',),
        NAME)
    cluster.add(PodGroup.model_validate({"metadata": {"name": "pg", "namespace": "ml"},
                                         "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}}}))
    assert plugin.pre_enqueue(cluster.pod_infos["ml/p1"]).reasons == (MSG_WAITING_FOR_MIN_COUNT,)
    for obj in admit(load_text(pod % "p2"), feature_gates=GW):
        cluster.add(obj)
    assert plugin.pre_enqueue(cluster.pod_infos["ml/p1"]).is_success()


def test_pre_enqueue_blocks_schedule_one():
    cluster, sched = build(nodes(2), training_job("train", 3))
    first = job_pods(cluster, "train")[0]
    cluster.remove_pod(job_pods(cluster, "train")[2])  # only 2 of 3 pods exist
    result = sched.schedule_one(first)
    assert result.node is None and result.status.reasons == (MSG_WAITING_FOR_MIN_COUNT,)


# -- queueing hints ----------------------------------------------------------------------------------------
def test_min_count_decrease_requeues():
    cluster, _ = build(nodes(1), training_job("train", 3))
    plugin = GangScheduling.for_cluster(cluster, GW)
    pod = cluster.pod_infos[job_pods(cluster, "train")[0]]
    old = group_of(cluster, "train")
    new = old.clone()
    new.spec.scheduling_policy.gang.min_count = 2
    assert plugin.after_pod_group_updated(pod, old, new).name == "Queue"
    assert plugin.after_pod_group_updated(pod, new, old).name == "QueueSkip"


# -- the Permit path -----------------------------------------------------------------------------------------
def test_gang_waits_at_permit_until_min_count_then_binds_together():
    cluster, sched = build(nodes(2), training_job("train", 3))
    keys = job_pods(cluster, "train")
    r1, r2 = sched.schedule_one(keys[0]), sched.schedule_one(keys[1])
    assert (r1.status.code, r1.status.reasons) == (Code.Wait, ("one or more plugins asked to wait and no plugin "
                                                               "rejected pod",))
    assert r2.status.code == Code.Wait and set(sched.waiting) == set(keys[:2])
    _, _, _, _, _, waits = sched.waiting[keys[0]]
    assert waits == {NAME: PERMIT_TIMEOUT_SECONDS}
    st = pod_group_state(cluster, "ml", group_of(cluster, "train").name)
    assert (st.scheduled_pods_count, sorted(st.assumed), st.assigned) == (2, keys[:2], [])
    # nothing is bound while the gang waits
    assert all(not cluster.pods[k].spec.node_name for k in keys)
    r3 = sched.schedule_one(keys[2])
    assert r3.scheduled and not sched.waiting
    assert all(cluster.pods[k].spec.node_name for k in keys)


def test_permit_direct_status():
    cluster, _ = build(nodes(2), training_job("train", 2))
    plugin = GangScheduling.for_cluster(cluster, GW)
    key = job_pods(cluster, "train")[0]
    cluster.snapshot.add_pod(cluster.pod_infos[key], "node-0")  # assumed
    status, timeout = plugin.permit(None, cluster.pod_infos[key], "node-0")
    assert (status.code, status.reasons, timeout) == (Code.Wait, (MSG_PERMIT_WAIT,), 300)
    plugin.handle.extra["pod_group_cycle"] = True  # the v1.37 PodGroup cycle replaces the wait
    assert plugin.permit(None, cluster.pod_infos[key], "node-0")[0].is_success()


def test_activate_hook_gets_unscheduled_members():
    cluster, sched = build(nodes(2), training_job("train", 3))
    activated: list = []
    for fw in sched.profiles.values():
        fw.handle.extra["activate"] = activated.append
    keys = job_pods(cluster, "train")
    sched.schedule_one(keys[0])
    assert activated == [keys[1:]]


def test_deadlock_of_two_gangs_pod_by_pod():
    """Seed section 9 and the PodGroup cycle page: two training jobs submitted together on a
    cluster that fits only one. Scheduled pod by pod, each gang gets half the cluster, every
    placed pod waits at Permit, nobody runs — until the 5-minute Permit timeout returns them."""
    cluster, sched = build(nodes(2, cpu="2"), training_job("job-a", 4), training_job("job-b", 4))
    a, b = job_pods(cluster, "job-a"), job_pods(cluster, "job-b")
    order = [k for pair in zip(a, b) for k in pair]  # submitted together: the queue interleaves them
    results = {k: sched.schedule_one(k) for k in order}

    waiting = set(sched.waiting)
    assert waiting == {a[0], a[1], b[0], b[1]}  # 2 cpu x 2 nodes: four pods fit, two of each gang
    assert all(results[k].status.code == Code.Wait for k in waiting)
    for k in set(order) - waiting:
        assert results[k].status.code == Code.Unschedulable
        assert "Insufficient cpu" in results[k].message
    assert all(not p.spec.node_name for p in cluster.pods.values())  # neither job runs
    assert int(cluster.snapshot.requested[cluster.snapshot.res_index["cpu"]].sum()) == 4000  # all cpu held
    for job in ("job-a", "job-b"):
        st = pod_group_state(cluster, "ml", group_of(cluster, job).name)
        assert (st.scheduled_pods_count, st.all_pods_count) == (2, 4)

    # five minutes later the framework's timer rejects every waiting pod
    reason = permit_timeout_message()
    assert reason == "rejected due to timeout after waiting 5m0s at plugin GangScheduling"
    timed_out = [sched.reject(k, NAME, reason) for k in sorted(sched.waiting)]
    assert not sched.waiting
    for r in timed_out:
        assert r.status.code == Code.Unschedulable
        assert r.message == "0/1 nodes are available: 1 rejected due to timeout after waiting 5m0s at plugin " \
                            "GangScheduling."
        cond = next(c for c in cluster.pods[r.pod].status.conditions if c.type == "PodScheduled")
        assert (cond.status, cond.reason) == ("False", "Unschedulable")
    assert int(cluster.snapshot.requested[cluster.snapshot.res_index["cpu"]].sum()) == 0  # resources released

    # with the cluster free again, one gang scheduled on its own gets through
    for k in a:
        sched.schedule_one(k)
    assert all(cluster.pods[k].spec.node_name for k in a) and not sched.waiting
    assert all(not cluster.pods[k].spec.node_name for k in b)


# -- PlacementFeasible ---------------------------------------------------------------------------------------
def test_placement_feasible_messages():
    assert placement_feasible(3, 1, 1).reasons == ("minCount (3) cannot be satisfied: 1 scheduled, 1 remaining",)
    assert placement_feasible(3, 1, 2).reasons == ("minCount (3) is not yet satisfied: 1 scheduled, 2 remaining",)
    assert placement_feasible(3, 3, 0).is_success()


# -- the PodGroupInitiallyScheduled condition -----------------------------------------------------------------
def test_condition_true_is_terminal_and_keeps_transition_time():
    group = PodGroup.model_validate({"metadata": {"name": "pg", "namespace": "ml", "generation": 3}})
    t = [datetime(2026, 1, 1, h, tzinfo=timezone.utc) for h in range(4)]
    assert conditions.update_pod_group_condition(group, conditions.unschedulable("0/2 nodes are available"), t[0])
    assert conditions.update_pod_group_condition(group, conditions.scheduler_error("boom"), t[1])
    c = group.condition()
    assert (c.status, c.reason, c.last_transition_time, c.observed_generation) == ("False", "SchedulerError", t[0], 3)
    assert conditions.update_pod_group_condition(group, conditions.scheduled(), t[2])
    assert group.condition().last_transition_time == t[2]
    assert not conditions.update_pod_group_condition(group, conditions.unschedulable("extra pods"), t[3])
    assert group.condition().status == "True"
    dumped = group.model_dump(by_alias=True, exclude_unset=True, mode="json")["status"]["conditions"]
    assert dumped == [{"type": "PodGroupInitiallyScheduled", "status": "True", "observedGeneration": 3,
                       "lastTransitionTime": "2026-01-01T02:00:00Z", "reason": "Scheduled"}]


def test_conformance_files_run():
    # every pod group conformance case passes (also run by tests/test_conformance.py)
    from pathlib import Path

    from kschedlab.conformance import run_paths

    root = Path(__file__).parent / "conformance"
    report = run_paths([root / "gangscheduling", root / "podgroup"])
    assert report.failed == 0 and report.passed == 86


@pytest.mark.parametrize("module", ["kschedlab.plugins.gang_scheduling", "kschedlab.framework.podgroups",
                                    "kschedlab.scheduler.podgroup.conditions", "kschedlab.scheduler.podgroup.cycle_validation",
                                    "kschedlab.framework.profile"])
def test_doctests(module):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_job_named_by_a_workload_goes_through_one_podgroup_cycle():
    """The Job controller path end to end with the PodGroup cycle (the v1.37 default with
    GenericWorkload): the Job's PodGroup and pods are created, and the whole gang is bound in
    one cycle — or, when it does not fit, none of it."""
    cluster = Cluster(admit(expand(load_text(nodes(2) + training_job("fits", 4) + training_job("big", 5)),
                                   seed=7), feature_gates=GW))
    results = Scheduler(cluster, gates=GW).run()
    fits = sorted(r.node for r in results if r.pod.startswith("ml/fits-"))
    assert fits == ["node-0", "node-0", "node-1", "node-1"]
    big = [r for r in results if r.pod.startswith("ml/big-")]
    assert len(big) == 5 and all(r.node is None for r in big)
    groups = {k: (pg.condition().status, pg.condition().reason, pg.condition().message)
              for k, pg in cluster.objects["PodGroup"].items()}
    assert groups == {
        "ml/fits-policy-worker-68c4986976": ("True", "Scheduled", None),
        "ml/big-policy-worker-65c8f7f796": (
            "False", "Unschedulable", "minCount (5) cannot be satisfied: 0 scheduled, 4 remaining, "
            "pod group preemption: No preemption victims found for incoming preemptor")}
