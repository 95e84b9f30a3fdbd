"""Scheduler.run(): the scheduling loop to quiescence, its single pass (``once``) and its bound."""

from __future__ import annotations

from pathlib import Path

import pytest

from kschedlab.api.loader import load_text
from kschedlab.apiserver.admission import admit
from kschedlab.cluster import Cluster
from kschedlab.framework.interface import Plugin
from kschedlab.framework.status import Code, Status
from kschedlab.scheduler import Scheduler
from kschedlab.scheduler.result import RunResult
from kschedlab.scheduler.scheduling_loop import DEFAULT_MAX_ATTEMPTS, SchedulingLoop

DATASETS = Path(__file__).resolve().parents[2] / "datasets"
GW = {"GenericWorkload": True}


def preemption_basic() -> Cluster:
    return Cluster.from_manifests(DATASETS / "preemption" / "12-preemption-basic.yaml")


def served(text: str, gates=None) -> Cluster:
    return Cluster(admit(load_text(text), feature_gates=gates))


def gang(min_count: int, pods: int, cpu: str = "1", node_cpu: str = "8") -> str:
    return f"""\
apiVersion: v1
kind: Node
metadata: {{name: n1}}
status: {{allocatable: {{cpu: "{node_cpu}", memory: 8Gi, pods: "110"}}}}
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {{name: job, namespace: ml}}
spec: {{schedulingPolicy: {{gang: {{minCount: {min_count}}}}}}}
""" + "".join(f"""---
apiVersion: v1
kind: Pod
metadata: {{name: w{i}, namespace: ml}}
spec:
  schedulingGroup: {{podGroupName: job}}
  containers: [{{name: c, resources: {{requests: {{cpu: "{cpu}"}}}}}}]
""" for i in range(pods))


def test_the_preemptor_is_retried_and_binds_on_its_nominated_node():
    cluster = preemption_basic()
    sched = Scheduler(cluster)
    run = sched.run()
    assert isinstance(run, RunResult) and isinstance(run, list)
    assert [(r.pod, r.node, r.status.code) for r in run] == [("default/nginx", "kube-01", Code.Success)]
    assert cluster.pods["default/nginx"].spec.node_name == "kube-01"
    assert "default/low-2" not in cluster.pods
    # two attempts: the failed one that preempted, then the one on the nominated node
    attempts = [r for r in sched.results if r.pod == "default/nginx"]
    assert [(r.node, r.message) for r in attempts] == [
        (None, "0/2 nodes are available: 2 Insufficient cpu."), ("kube-01", "")]
    assert attempts[0].trace.preemption.victims == ["default/low-2"]
    assert attempts[1].trace.evaluated_nodes == 1  # the nominated node is filtered alone first
    nginx, low2 = run.pods
    assert (nginx.name, nginx.pod_status, nginx.attempts, [(v.pod, v.node) for v in nginx.victims]) == (
        "default/nginx", "Running", 2, [("default/low-2", "kube-01")])
    assert (low2.name, low2.pod_status, low2.node, low2.preempted_by, low2.result) == (
        "default/low-2", "Terminating", "kube-01", "default/nginx", None)
    assert run.attempts == 2 and run.stopped == [] and run.max_attempts == DEFAULT_MAX_ATTEMPTS


def test_once_gives_each_pod_one_attempt():
    cluster = preemption_basic()
    sched = Scheduler(cluster)
    run = sched.run(once=True)
    assert [(r.pod, r.node, r.message) for r in run] == [
        ("default/nginx", None, "0/2 nodes are available: 2 Insufficient cpu.")]
    assert len(sched.results) == 1 and run.once
    assert cluster.pods["default/nginx"].status.nominated_node_name == "kube-01"
    assert [(p.name, p.pod_status, p.nominated_node) for p in run.pods] == [
        ("default/nginx", "Pending", "kube-01"), ("default/low-2", "Terminating", None)]
    # the next run picks up where the cluster is: the nominated pod binds there
    assert [(r.pod, r.node) for r in sched.run()] == [("default/nginx", "kube-01")]


def test_the_attempt_bound_stops_a_pod_and_says_so():
    run = Scheduler(preemption_basic()).run(max_attempts=1)
    assert run.stopped == ["default/nginx"] and run.max_attempts == 1
    assert run.pods[0].stopped and run.pods[0].attempts == 1 and run.pods[0].node is None
    with pytest.raises(ValueError, match="max_attempts must be at least 1"):
        Scheduler(preemption_basic()).run(max_attempts=0)


def test_a_pod_being_deleted_is_popped_once_and_not_scheduled():
    # upstream skipPodSchedule: a FailedScheduling event, no attempt, not put back in the queue
    cluster = served("""\
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: leaving, namespace: default, deletionTimestamp: "2026-01-01T00:00:00Z"}
spec: {containers: [{name: c}]}
---
apiVersion: v1
kind: Pod
metadata: {name: staying, namespace: default}
spec: {containers: [{name: c}]}
""")
    sched = Scheduler(cluster)
    run = sched.run()
    assert [(r.pod, r.node, r.message, r.skipped) for r in run] == [
        ("default/leaving", None, "skip schedule deleting pod: default/leaving", True),
        ("default/staying", "n1", "", False)]
    assert len(sched.results) == 2 and not cluster.pods["default/leaving"].spec.node_name
    assert cluster.pods["default/leaving"].status.conditions == []  # no PodScheduled condition is written


def test_a_gang_below_quorum_stays_gated_by_pre_enqueue():
    cluster = served(gang(min_count=3, pods=2), GW)
    sched = Scheduler(cluster, gates=GW)
    for run in (sched.run(once=True), sched.run()):
        assert [(r.pod, r.node, r.message, r.status.code, r.status.plugin) for r in run] == [
            (k, None, "SchedulingGated", Code.UnschedulableAndUnresolvable, "GangScheduling")
            for k in ("ml/w0", "ml/w1")]
        assert [(p.pod_status, p.attempts, p.message) for p in run.pods] == [
            ("Pending", 0, "waiting for minCount pods from a gang to appear in scheduling queue")] * 2
    assert not any(p.spec.node_name for p in cluster.pods.values())


def test_a_gang_at_quorum_goes_through_one_pod_group_cycle():
    cluster = served(gang(min_count=3, pods=3), GW)
    run = Scheduler(cluster, gates=GW).run()
    assert [(r.pod, r.node) for r in run] == [(f"ml/w{i}", "n1") for i in range(3)]
    assert [p.attempts for p in run.pods] == [1, 1, 1]


def test_a_gang_that_cannot_fit_is_tried_once_and_left_pending():
    cluster = served(gang(min_count=3, pods=3, cpu="3"), GW)
    run = Scheduler(cluster, gates=GW).run()
    assert [r.node for r in run] == [None] * 3
    assert [p.attempts for p in run.pods] == [1, 1, 1]  # nothing changed: no pointless retries
    assert run.attempts == 3


def test_gated_pods_keep_their_place_and_their_gate_message():
    cluster = served("""\
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: a, namespace: default}
spec: {containers: [{name: c}]}
---
apiVersion: v1
kind: Pod
metadata: {name: gated, namespace: default}
spec: {schedulingGates: [{name: x/y}], containers: [{name: c}]}
---
apiVersion: v1
kind: Pod
metadata: {name: b, namespace: default}
spec: {containers: [{name: c}]}
""")
    run = Scheduler(cluster).run()
    assert [(r.pod, r.node) for r in run] == [("default/a", "n1"), ("default/gated", None), ("default/b", "n1")]
    gated = run.pods[1]
    assert (gated.pod_status, gated.attempts, gated.message) == (
        "SchedulingGated", 0, "waiting for scheduling gates: [x/y]")


def test_the_scheduler_hooks_are_put_back_after_a_run():
    sched = Scheduler(preemption_basic())
    before = [dict(fw.handle.extra) for fw in sched.profiles.values()]
    sched.run()
    assert [dict(fw.handle.extra) for fw in sched.profiles.values()] == before
    assert sched.on_bound == [] and sched.on_result == [] and sched.on_forget == []


def test_keys_limit_the_run():
    cluster = served("""\
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: a, namespace: default}
spec: {containers: [{name: c}]}
---
apiVersion: v1
kind: Pod
metadata: {name: b, namespace: default}
spec: {containers: [{name: c}]}
""")
    run = Scheduler(cluster).run(["default/b"])
    assert [r.pod for r in run] == ["default/b"] and not cluster.pods["default/a"].spec.node_name


def test_permit_waits_time_out_and_the_run_ends():
    """Pod-by-pod gang path (no PodGroup cycle): two gangs that each half fit wait at Permit.
    Upstream's ``handleBindingCycleError`` treats each timed-out pod it forgets as an
    ``AssignedPodDelete`` of the assumed pod (``nodeName`` set): NodeResourcesFit's hint queues
    the pods it rejected at that very instant (300 s), not at the 330 s leftover flush. They are
    retried in their queue order, which interleaves the two gangs again: each gang holds half
    the nodes, its waits time out 300 s later, and so on -- a livelock in which no gang ever
    binds; the run ends when every pod has had its ``max_attempts``."""
    from tests.podgroup.test_podgroup_cycle import cluster_of, two_training_jobs

    cluster = cluster_of(two_training_jobs())
    sched = Scheduler(cluster, gates=GW, pod_group_cycle=False)
    loop = SchedulingLoop(sched)
    run = loop.run()
    assert sched.waiting == {}
    assert not any(p.spec.node_name for p in cluster.pods.values())
    timeout = "0/1 nodes are available: 1 rejected due to timeout after waiting 5m0s at plugin GangScheduling."
    assert {p.last_failure for p in run.pods if p.name in ("ml/a-2", "ml/b-2", "ml/a-3", "ml/b-3")} == {timeout}
    assert [p.attempts for p in run.pods] == [20] * 8 and len(run.stopped) == 8
    history = loop.queue.history
    timeouts = sorted({t for t, _pod, frm, to, _why in history if (frm, to) == ("in-flight", "unschedulable")
                       and t > 1 and t == int(t)})
    assert timeouts[:3] == [300.0, 600.0, 900.0]  # every round's Permit waits time out together
    woken = [(t, pod) for t, pod, _frm, _to, why in history if why == "AssignedPodDelete"]
    assert woken[:4] == [(300.0, k) for k in ("ml/a-2", "ml/b-2", "ml/a-3", "ml/b-3")]
    assert not any(why == "UnschedulableTimeout" for *_, why in history)  # no pod waits for the flush


def gang_and_solo(worker_cpu: str) -> str:
    """One 2-CPU node; a gang of two workers (minCount 2) and a 2-CPU pod between them."""
    worker = """---
apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: ml}}
spec:
  schedulingGroup: {{podGroupName: job}}
  containers: [{{name: c, resources: {{requests: {{cpu: "{cpu}"}}}}}}]
"""
    return """\
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "2", memory: 8Gi, pods: "110"}}
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: job, namespace: ml}
spec: {schedulingPolicy: {gang: {minCount: 2}}}
""" + worker.format(name="w0", cpu=worker_cpu) + """---
apiVersion: v1
kind: Pod
metadata: {name: solo, namespace: ml}
spec: {containers: [{name: c, resources: {requests: {cpu: "2"}}}]}
""" + worker.format(name="w1", cpu=worker_cpu)


def test_a_permit_timeout_frees_the_node_for_the_pod_waiting_for_it():
    """w0 holds n1 at Permit; solo and w1 are rejected by NodeResourcesFit. When w0's wait times
    out (300 s) the forgotten assumed pod is an AssignedPodDelete on n1: solo and w1 are queued
    at once, solo (first in the queue) binds, w0 itself is left in the pool."""
    cluster = served(gang_and_solo("2"), GW)
    sched = Scheduler(cluster, gates=GW, pod_group_cycle=False)
    forgotten = []
    sched.on_forget.append(lambda pod, status: forgotten.append((pod.metadata.name, pod.spec.node_name,
                                                                  status.code)))
    loop = SchedulingLoop(sched)
    run = loop.run()
    assert forgotten[0] == ("w0", "n1", Code.Unschedulable)
    assert not cluster.pods["ml/w0"].spec.node_name  # the cluster's pod is not the assumed copy
    at_timeout = [(pod, frm, to, why) for t, pod, frm, to, why in loop.queue.history if t == 300.0]
    assert at_timeout == [
        ("ml/w0", "in-flight", "unschedulable", "ScheduleAttemptFailure"),
        ("ml/solo", "unschedulable", "active", "AssignedPodDelete"),
        ("ml/w1", "unschedulable", "active", "AssignedPodDelete"),
        ("ml/solo", "active", "in-flight", "Pop")]
    assert [(p.name, p.node, p.attempts) for p in run.pods if p.name == "ml/solo"] == [("ml/solo", "n1", 2)]
    assert cluster.pods["ml/solo"].spec.node_name == "n1"


class FailingPreBind(Plugin):
    """PreBind fails with an error for the pod named w0."""

    name = "FailingPreBind"

    def pre_bind(self, state, pod_info, node_name):
        if pod_info.pod.metadata.name == "w0":
            return Status(Code.Error, ("volume attach failed",))
        return Status()


def test_a_binding_error_frees_the_node_at_once_and_backs_the_pod_off():
    """1-CPU gang workers on a 2-CPU node: w0 waits at Permit, solo (2 CPU) is rejected, w1
    completes the gang and w0 goes on to PreBind, which fails with an error. Upstream's
    ``handleBindingCycleError`` moves the pods at once for an error (no deferral, no pod left
    out): solo is queued by the AssignedPodDelete of w0 on n1 before w0 itself is requeued, and
    w0, having seen that event while in flight, goes to backoffQ."""
    cluster = served(gang_and_solo("1"), GW)
    config = {"profiles": [{"plugins": {"preBind": {"enabled": [{"name": "FailingPreBind"}]}}}]}
    sched = Scheduler(cluster, config, gates=GW, pod_group_cycle=False, registry={"FailingPreBind": FailingPreBind})
    loop = SchedulingLoop(sched, max_attempts=2)
    run = loop.run()
    moves = [(pod, frm, to, why) for _t, pod, frm, to, why in loop.queue.history]
    fails = moves.index(("ml/w0", "in-flight", "backoff", "ScheduleAttemptFailure"))
    assert moves[fails - 1] == ("ml/solo", "unschedulable", "backoff", "AssignedPodDelete")
    assert [(p.name, p.node) for p in run.pods] == [("ml/w0", None), ("ml/solo", None), ("ml/w1", "n1")]
    assert run.pods[0].last_failure == 'running PreBind plugin "FailingPreBind": volume attach failed'


def test_a_pod_with_no_node_at_all_is_tried_once():
    """With no node at all the pod is rejected as UnschedulableAndUnresolvable (upstream
    ErrNoNodesAvailable), not failed with an error; with nothing changed the loop does not retry it."""
    cluster = served("apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\n"
                     "spec: {containers: [{name: c}]}\n")
    run = Scheduler(cluster).run()
    assert [(p.name, p.attempts, p.message) for p in run.pods] == [
        ("default/p", 1, "no nodes available to schedule pods")]
    assert run.stopped == []
    cluster = served("apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\n"
                     "spec: {containers: [{name: c}]}\n")
    result = Scheduler(cluster).schedule_one("default/p")
    assert result.status.code.name == "UnschedulableAndUnresolvable"
    condition = cluster.pods["default/p"].status.conditions[-1]
    assert (condition.type, condition.reason) == ("PodScheduled", "Unschedulable")
