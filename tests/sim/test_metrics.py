"""Scheduler metrics computed from a simulation: pending pods per queue, attempts by result,
per-pod latencies and the kubectl STATUS over time."""

from __future__ import annotations

import math

import pandas as pd

from kschedlab.api.core import Node, Pod
from kschedlab.framework.interface import Plugin
from kschedlab.framework.status import Status
from kschedlab.sim import Simulation
from kschedlab.sim.metrics import (
    QUEUES,
    RESULTS,
    exposition,
    pending_pods,
    pod_status_timeline,
    schedule_attempts,
    schedule_attempts_total,
    scheduling_latency,
)


def node(name, cpu="1"):
    return Node.model_validate({"metadata": {"name": name},
                                "status": {"allocatable": {"cpu": cpu, "memory": "4Gi", "pods": "10"}}})


def pod(name, cpu="600m", gates=()):
    return Pod.model_validate({"metadata": {"name": name, "namespace": "default"}, "spec": {
        "schedulingGates": [{"name": g} for g in gates],
        "containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]}})


def gated_run():
    sim = Simulation([node("n1")])
    sim.create_pod(pod("first"), at=0, duration=10)
    sim.create_pod(pod("gated", gates=["a", "b"]), at=1, duration=5)
    sim.remove_scheduling_gates("default/gated", at=4, names=["a"])
    sim.remove_scheduling_gates("default/gated", at=6)
    return sim, sim.run(until=100)


def test_pending_pods_is_a_step_function_of_the_queue_history():
    sim, result = gated_run()
    pending = pending_pods(result)
    assert list(pending.columns) == list(QUEUES)
    assert pending.index[0] == 0.0 and pending.index[-1] == result.end_time
    assert pending.loc[1.0, "gated"] == 1
    assert 4.0 not in pending.index  # removing one of two gates moves nothing: the pod stays gated
    assert pending.loc[6.0].to_dict() == {"active": 0, "backoff": 0, "unschedulable": 1, "gated": 0}
    assert pending.loc[10.0].sum() == 0
    # the gauge agrees with the queue at the end of the run
    assert {q: len(k) for q, k in sim.queue.pending().items()} == pending.iloc[-1].to_dict()


def test_pending_pods_matches_the_queue_sizes_the_simulation_sampled_when_nothing_happens_at_once():
    # with attempts taking time, pods stay in activeQ for a while and the engine's own samples see them
    sim = Simulation([node("n1", cpu="2")], attempt_duration=0.5)
    for i in range(3):
        sim.create_pod(pod(f"p{i}"), at=0, duration=3)
    result = sim.run(until=20)
    pending = pending_pods(result)
    assert pending["active"].max() >= 1
    for row in result.queue.itertuples():
        expected = pending[pending.index <= row.time].iloc[-1]
        assert expected["gated"] == row.gated and expected["unschedulable"] == row.unschedulable


def test_attempts_pair_pops_with_outcomes():
    sim, result = gated_run()
    attempts = schedule_attempts(result, sim)
    gated = attempts[attempts["pod"] == "default/gated"]
    assert list(gated["popped"]) == [6.0, 10.0] and list(gated["result"]) == ["unschedulable", "scheduled"]
    total = schedule_attempts_total(result, sim)
    assert list(total.columns) == list(RESULTS)
    assert total.iloc[-1].to_dict() == {"scheduled": 2, "unschedulable": 1, "error": 0}
    assert total.loc[6.0, "unschedulable"] == 1 and total.loc[10.0, "scheduled"] == 2
    # counters only grow
    assert (total.diff().fillna(0) >= 0).all().all()


class FailsOnce(Plugin):
    """A PreFilter plugin whose first call is an internal error."""

    name = "FailsOnce"

    def __init__(self, args=None, handle=None):
        super().__init__(args, handle)
        self.calls = 0

    def pre_filter(self, state, pod_info, snapshot):
        self.calls += 1
        if self.calls == 1:
            return None, Status.error("the API server did not answer")
        return None, Status()

    def events_to_register(self):
        return []


def test_errors_are_told_apart_with_the_scheduler():
    config = {"profiles": [{"plugins": {"preFilter": {"enabled": [{"name": "FailsOnce"}]}}}]}
    sim = Simulation([node("n1")], config, registry={"FailsOnce": FailsOnce})
    sim.create_pod(pod("p"), at=0)
    result = sim.run(until=60)
    with_scheduler = schedule_attempts(result, sim)
    assert list(with_scheduler["result"]) == ["error", "scheduled"]
    # an error sends the pod to the error backoff queue, which is never popped early: its 1 s backoff
    # ends at 1.0 and the next backoff flush (whole seconds) after that moves it, at 2.0
    assert list(with_scheduler["popped"]) == [0.0, 2.0]
    assert schedule_attempts_total(result, sim.scheduler).iloc[-1]["error"] == 1
    # from the queue history alone an error looks like any failed attempt
    assert list(schedule_attempts(result)["result"]) == ["unschedulable", "scheduled"]


class AlwaysWait(Plugin):
    name = "AlwaysWait"

    def permit(self, state, pod_info, node_name):
        return Status.wait(plugin=self.name), 10.0


def test_a_permit_wait_is_one_attempt_that_ends_when_the_wait_does():
    config = {"profiles": [{"plugins": {"permit": {"enabled": [{"name": "AlwaysWait"}]}}}]}
    sim = Simulation([node("n1")], config, registry={"AlwaysWait": AlwaysWait})
    sim.create_pod(pod("p"), at=0)
    result = sim.run(until=25)
    attempts = schedule_attempts(result, sim)
    first = attempts.iloc[0]
    assert (first["popped"], first["finished"], first["result"]) == (0.0, 10.0, "unschedulable")
    assert math.isnan(attempts.iloc[-1]["finished"]) or attempts.iloc[-1]["result"] is not None


def test_latencies_exclude_gated_time_from_the_sli():
    _, result = gated_run()
    latency = scheduling_latency(result).set_index("pod")
    gated = latency.loc["default/gated"]
    assert (gated["created"], gated["enqueued"], gated["first_attempt"], gated["scheduled"]) == (1.0, 6.0, 6.0, 10.0)
    assert (gated["gated_for"], gated["sli"], gated["attempt_to_scheduled"], gated["created_to_bound"]) == \
        (5.0, 4.0, 4.0, 9.0)
    assert gated["attempts"] == 2
    assert latency.loc["default/first", "sli"] == 0.0


def test_a_pod_never_scheduled_has_nan_latencies():
    sim = Simulation([node("n1", cpu="500m")])
    sim.create_pod(pod("big", cpu="2"), at=0)
    sim.create_pod(pod("held", gates=["x"]), at=0)
    result = sim.run(until=50)
    latency = scheduling_latency(result).set_index("pod")
    assert math.isnan(latency.loc["default/big", "sli"]) and latency.loc["default/big", "enqueued"] == 0.0
    assert math.isnan(latency.loc["default/held", "enqueued"]) and latency.loc["default/held", "attempts"] == 0


def test_status_timeline_follows_kubectl():
    _, result = gated_run()
    timeline = pod_status_timeline(result)
    gated = timeline[timeline["pod"] == "default/gated"]
    assert list(zip(gated["time"], gated["status"])) == [
        (1.0, "SchedulingGated"), (6.0, "Pending"), (10.0, "Running"), (15.0, "Completed")]
    first = timeline[timeline["pod"] == "default/first"]
    assert list(zip(first["time"], first["status"])) == [(0.0, "Running"), (10.0, "Completed")]


def test_exposition_at_an_instant():
    sim, result = gated_run()
    text = exposition(result, sim, at=6.0)
    assert 'scheduler_pending_pods{queue="unschedulable"} 1' in text.splitlines()
    assert 'scheduler_pending_pods{queue="gated"} 0' in text.splitlines()
    assert 'scheduler_schedule_attempts_total{profile="default-scheduler",result="scheduled"} 1' in text.splitlines()
    before = exposition(result, sim, at=2.0)
    assert 'scheduler_pending_pods{queue="gated"} 1' in before.splitlines()


def test_same_seed_same_metrics():
    a, b = gated_run()[1], gated_run()[1]
    pd.testing.assert_frame_equal(pending_pods(a), pending_pods(b))
    pd.testing.assert_frame_equal(scheduling_latency(a), scheduling_latency(b))
