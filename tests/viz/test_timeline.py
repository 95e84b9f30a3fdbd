"""Queue timeline and extension-point timeline: exactly what the queue history and the trace say."""

from __future__ import annotations

import json

import pytest
from vizcases import EVIL_POD, node, pod

from kschedlab import Cluster, Scheduler
from kschedlab.framework.interface import Plugin
from kschedlab.framework.status import Status
from kschedlab.scenarios import path
from kschedlab.sim import Simulation
from kschedlab.viz.common import esc
from kschedlab.viz.timeline import (
    EXTENSION_POINTS,
    QUEUE_COLORS,
    STATUS_COLORS,
    extension_point_steps,
    extension_point_timeline,
    queue_segments,
    queue_timeline,
)


def gated_sim():
    sim = Simulation([node("n1", cpu="1")])
    sim.create_pod(pod("first", cpu="600m"), at=0, duration=10)
    sim.create_pod(pod("gated", cpu="600m", schedulingGates=[{"name": "a"}]), at=1, duration=5)
    sim.remove_scheduling_gates("default/gated", at=6)
    return sim, sim.run(until=100)


def rows(df, pod_key):
    part = df[df["pod"] == pod_key]
    return list(zip(part["where"], part["start"], part["end"], part["entered_by"]))


# -- queue ----------------------------------------------------------------------------------------------
def test_segments_follow_the_queue_history():
    _, result = gated_sim()
    seg = queue_segments(result)
    assert rows(seg, "default/gated") == [
        ("gated", 1.0, 6.0, "UnscheduledPodAdd"),
        ("active", 6.0, 6.0, "TargetPodUpdatePodSchedulingGatesEliminated"),
        ("in-flight", 6.0, 6.0, "Pop"),
        ("unschedulable", 6.0, 10.0, "ScheduleAttemptFailure"),
        ("active", 10.0, 10.0, "AssignedPodDelete"),
        ("in-flight", 10.0, 10.0, "Pop"),
        ("running", 10.0, 15.0, "Bound"),
    ]
    assert "running" not in set(queue_segments(result, show_running=False)["where"])
    only = queue_segments(result, pods=["default/first"])
    assert set(only["pod"]) == {"default/first"}


def test_queue_timeline_bars_and_attempt_markers():
    _, result = gated_sim()
    fig = queue_timeline(result)
    bars = {t.name: t for t in fig.data if t.type == "bar"}
    assert list(bars) == ["gated", "active", "in-flight", "unschedulable", "running"]
    assert bars["gated"].base == (1.0,) and bars["gated"].x == (5.0,)
    assert bars["unschedulable"].marker.color == QUEUE_COLORS["unschedulable"]
    attempts = fig.data[-1]
    assert attempts.name == "scheduling attempt"
    assert list(zip(attempts.y, attempts.x, attempts.customdata)) == [
        ("default/first", 0.0, "bound"), ("default/gated", 6.0, "unschedulable"), ("default/gated", 10.0, "bound")]
    assert list(fig.layout.yaxis.categoryarray) == ["default/first", "default/gated"]


def test_queue_timeline_escapes_pod_names():
    sim = Simulation([node("n1")])
    sim.create_pod(pod(EVIL_POD, cpu="100m"), at=0, duration=1)
    text = json.dumps(json.loads(queue_timeline(sim.run(until=10)).to_json()))
    assert EVIL_POD not in text and json.dumps(esc(f"default/{EVIL_POD}"))[1:-1] in text


# -- extension points ----------------------------------------------------------------------------------------
@pytest.fixture
def demo():
    scheduler = Scheduler(Cluster.from_manifests(path("default")))
    return scheduler


def by_point(steps, point):
    part = steps[steps["point"] == point]
    return list(zip(part["plugin"], part["status"]))


def test_scheduled_pod_goes_through_every_point(demo):
    result = demo.schedule_one("default/web-0")
    steps = extension_point_steps(result, demo)
    assert list(dict.fromkeys(steps["point"])) == list(EXTENSION_POINTS)
    # DefaultPreemption has a PreEnqueue too (it holds pods whose preemption is still in progress)
    assert by_point(steps, "PreEnqueue") == [("SchedulingGates", "Success"), ("DynamicResources", "Success"),
                                             ("DefaultPreemption", "Success")]
    assert by_point(steps, "QueueSort") == [("PrioritySort", "Success")]
    assert by_point(steps, "PostFilter") == [("DynamicResources", "NotRun"), ("DefaultPreemption", "NotRun")]
    assert by_point(steps, "Bind") == [("DefaultBinder", "Success")]
    # every Score plugin that ran shows its raw range; the trace's plugins are exactly those
    ran = [p for p, s in by_point(steps, "Score") if s == "Success"]
    assert ran == list(result.trace.score.plugins)
    normalized = [p for p, s in by_point(steps, "NormalizeScore") if s == "Success"]
    assert set(normalized) <= set(ran)
    # nothing to reserve for this pod
    assert by_point(steps, "Reserve") == [("VolumeBinding", "Success"), ("DynamicResources", "Success")]
    filters = dict(by_point(steps, "Filter"))
    assert filters["NodeUnschedulable"] == "UnschedulableAndUnresolvable"  # the cordoned node


def test_unschedulable_pod_runs_postfilter_and_no_scoring(demo):
    result = demo.schedule_one("default/big-0")
    steps = extension_point_steps(result, demo)
    assert by_point(steps, "PostFilter") == [("DynamicResources", "Unschedulable"),
                                             ("DefaultPreemption", "Unschedulable")]
    detail = steps.loc[(steps["point"] == "PostFilter") & (steps["plugin"] == "DefaultPreemption"), "detail"].item()
    assert detail.startswith("preemption: 0/5 nodes are available")
    assert {s for _, s in by_point(steps, "Score")} == {"NotRun"}
    assert {s for _, s in by_point(steps, "Bind")} == {"NotRun"}


def test_gated_pod_stops_at_preenqueue():
    cluster = Cluster([node("n1"), pod("held", schedulingGates=[{"name": "example.com/foo"}])])
    scheduler = Scheduler(cluster)
    result = scheduler.schedule_one("default/held")
    steps = extension_point_steps(result, scheduler)
    first = steps.iloc[0]
    assert (first["point"], first["plugin"], first["status"]) == ("PreEnqueue", "SchedulingGates",
                                                                  "UnschedulableAndUnresolvable")
    assert first["detail"] == "waiting for scheduling gates: [example.com/foo]"
    assert set(steps.iloc[1:]["status"]) <= {"NotRun", "NoPlugins"}


class WaitHere(Plugin):
    name = "WaitHere"

    def permit(self, state, pod_info, node_name):
        return Status.wait(plugin=self.name), 30.0


class RefuseReserve(Plugin):
    name = "RefuseReserve"

    def reserve(self, state, pod_info, node_name):
        return Status.unschedulable("no room in the ledger", plugin=self.name)

    def unreserve(self, state, pod_info, node_name):
        pass


def test_permit_wait_and_reserve_rejection():
    config = {"profiles": [{"plugins": {"permit": {"enabled": [{"name": "WaitHere"}]}}}]}
    scheduler = Scheduler(Cluster([node("n1"), pod("p")]), config, registry={"WaitHere": WaitHere})
    steps = extension_point_steps(scheduler.schedule_one("default/p"), scheduler)
    assert by_point(steps, "Permit") == [("WaitHere", "Wait")]
    assert by_point(steps, "Bind") == [("DefaultBinder", "NotRun")]

    config = {"profiles": [{"plugins": {"reserve": {"enabled": [{"name": "RefuseReserve"}]}}}]}
    scheduler = Scheduler(Cluster([node("n1"), pod("p")]), config, registry={"RefuseReserve": RefuseReserve})
    result = scheduler.schedule_one("default/p")
    steps = extension_point_steps(result, scheduler)
    assert by_point(steps, "Reserve") == [("VolumeBinding", "Success"), ("DynamicResources", "Success"),
                                          ("RefuseReserve", "Unschedulable")]
    assert by_point(steps, "Permit") == [("", "NoPlugins")]
    assert by_point(steps, "PreBind") == [("VolumeBinding", "NotRun"), ("DynamicResources", "NotRun")]


def test_one_feasible_node_skips_scoring():
    scheduler = Scheduler(Cluster([node("n1"), pod("p")]))
    steps = extension_point_steps(scheduler.schedule_one("default/p"), scheduler)
    pre = steps[steps["point"] == "PreScore"]
    assert set(pre["status"]) == {"NotRun"} and set(pre["detail"]) == {"one feasible node: scoring is skipped"}


def test_no_trace_is_an_error():
    scheduler = Scheduler(Cluster([node("n1"), pod("p")]), keep_traces=0)
    result = scheduler.schedule_one("default/p")
    with pytest.raises(ValueError, match="no trace was kept"):
        extension_point_steps(result, scheduler)


def test_timeline_figure_has_one_bar_per_step(demo):
    result = demo.schedule_one("default/web-0")
    steps = extension_point_steps(result, demo)
    fig = extension_point_timeline(result, demo)
    assert sum(len(t.y) for t in fig.data) == len(steps)
    assert {t.name for t in fig.data} == set(steps["status"])
    for t in fig.data:
        assert t.marker.color == STATUS_COLORS[t.name]
    assert list(fig.layout.yaxis.categoryarray)[0] == "PreEnqueue · SchedulingGates"
    assert [a.text for a in fig.layout.annotations] == ["<b>queue</b>", "<b>scheduling cycle</b>",
                                                        "<b>binding cycle</b>"]


# -- metric series ---------------------------------------------------------------------------------------------
def test_metric_steps_draws_the_metric_frames():
    from kschedlab.sim.metrics import pending_pods, schedule_attempts_total
    from kschedlab.viz.timeline import metric_steps

    sim, result = gated_sim()
    pending = pending_pods(result)
    fig = metric_steps(pending, title="scheduler_pending_pods")
    assert [t.name for t in fig.data] == ["active", "backoff", "unschedulable", "gated"]
    gated = fig.data[3]
    assert list(zip(gated.x, gated.y)) == list(zip(pending.index, pending["gated"]))
    assert gated.line.color == QUEUE_COLORS["gated"] and gated.line.shape == "hv"
    totals = metric_steps(schedule_attempts_total(result, sim))
    assert [t.name for t in totals.data] == ["scheduled", "unschedulable", "error"]


class TooBright(Plugin):
    name = "TooBright"

    def score(self, state, pod_info, node_info):
        return 150, Status()


def test_a_framework_error_is_pinned_on_its_plugin():
    config = {"profiles": [{"plugins": {"score": {"enabled": [{"name": "TooBright"}]}}}]}
    scheduler = Scheduler(Cluster([node("n1"), node("n2"), pod("p")]), config, registry={"TooBright": TooBright})
    result = scheduler.schedule_one("default/p")
    steps = extension_point_steps(result, scheduler)
    score = dict(by_point(steps, "Score"))
    assert score["TooBright"] == "Error" and score["NodeResourcesFit"] == "Success"
    detail = steps[(steps["point"] == "Score") & (steps["plugin"] == "TooBright")]["detail"].item()
    assert detail == ('applying score defaultWeights on Score plugins: plugin "TooBright" returns an invalid '
                      'score 150, it should in the range of [0, 100] after normalizing')
    assert {s for _, s in by_point(steps, "Bind")} == {"NotRun"}
    assert dict(by_point(steps, "NormalizeScore"))["TaintToleration"] == "Success"
