"""`kschedlab simulate` always ends and says why: quiescence, --until, the default horizon;
the pods left pending with their last message; memory kept compact on long runs."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from kschedlab.api.core import Node, Pod
from kschedlab.cli import main
from kschedlab.framework.interface import Plugin
from kschedlab.framework.status import Status
from kschedlab.sim import Simulation
from kschedlab.sim.metrics import schedule_attempts
from kschedlab.sim.quiescence import DEFAULT_HORIZON

SIM = Path(__file__).resolve().parents[2] / "datasets" / "sim"

NODES = """\
apiVersion: v1
kind: Node
metadata: {name: node-1, labels: {kubernetes.io/hostname: node-1}}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: node-2, labels: {kubernetes.io/hostname: node-2}}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}}
"""


def pod_doc(name: str, cpu: str, gates: tuple[str, ...] = ()) -> str:
    gated = f"  schedulingGates: [{', '.join('{name: ' + g + '}' for g in gates)}]\n" if gates else ""
    return ("apiVersion: v1\nkind: Pod\n"
            f"metadata: {{name: {name}, namespace: default}}\n"
            f"spec:\n{gated}"
            f"  containers: [{{name: c, image: nginx, resources: {{requests: {{cpu: \"{cpu}\"}}}}}}]\n")


#: a plain manifest: Nodes and Pods, no Simulation object; "huge" can never fit
PLAIN = "---\n".join([NODES, pod_doc("web", "1"), pod_doc("huge", "8")])
HUGE_MESSAGE = ("0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: "
                "2 Preemption is not helpful for scheduling.")


def write(tmp_path: Path, text: str, name: str = "scenario.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def simulate_json(capsys, *args: str) -> dict:
    assert main(["simulate", *args, "-o", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def node(name, cpu="1"):
    return Node.model_validate({"metadata": {"name": name},
                                "status": {"allocatable": {"cpu": cpu, "memory": "4Gi", "pods": "10"}}})


def pod(name, cpu="600m"):
    return Pod.model_validate({"metadata": {"name": name, "namespace": "default"}, "spec": {
        "containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]}})


# -- the command, as a user runs it ----------------------------------------------------------------------
def test_plain_manifest_with_an_impossible_pod_ends_quickly_as_quiescent(tmp_path):
    path = write(tmp_path, PLAIN)
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "kschedlab.cli", "simulate", str(path)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert time.monotonic() - started < 120
    out = done.stdout
    assert "pending pods (1):" in out
    assert "default/huge  queue=unschedulable  attempts=1" in out and HUGE_MESSAGE in out
    assert "stopped at 0 s: nothing can change any more (quiescent)" in out
    assert out.rstrip().endswith("simulated 0 s")


def test_json_shape(tmp_path, capsys):
    out = simulate_json(capsys, str(write(tmp_path, PLAIN)))
    assert list(out) == ["endTime", "pods", "queue", "stopReason", "horizon", "quiescentAt", "pending"]
    assert (out["stopReason"], out["endTime"], out["horizon"], out["quiescentAt"]) == ("quiescent", 0.0,
                                                                                        DEFAULT_HORIZON, 0.0)
    assert out["pending"] == [{"pod": "default/huge", "queue": "unschedulable", "attempts": 1,
                               "message": HUGE_MESSAGE}]
    # the existing keys keep their shape
    assert {p["pod"]: p["node"] for p in out["pods"]} == {"default/web": "node-2", "default/huge": None}
    assert set(out["pods"][0]) == {"pod", "created", "first_attempt", "scheduled", "bound", "node", "finished",
                                   "preempted", "attempts"}
    assert set(out["queue"][0]) == {"time", "active", "backoff", "unschedulable", "gated"}


def test_a_gated_pod_is_reported_with_its_gate(tmp_path, capsys):
    text = "---\n".join([NODES, pod_doc("held", "1", gates=("example.com/quota",))])
    out = simulate_json(capsys, str(write(tmp_path, text)))
    assert out["stopReason"] == "quiescent"
    [held] = out["pending"]
    assert (held["pod"], held["queue"], held["attempts"]) == ("default/held", "gated", 0)
    assert held["message"].startswith("gated by SchedulingGates")


def test_until_stops_the_clock_and_makes_every_periodic_retry(tmp_path, capsys):
    path = str(write(tmp_path, PLAIN))
    out = simulate_json(capsys, path, "--until", "100")
    assert (out["stopReason"], out["endTime"], out["horizon"], out["quiescentAt"]) == ("until", 100.0, None, 0.0)
    assert out["pending"][0]["attempts"] == 1
    # up to an until the 5-minute flush retries the pod (at 330 s and 660 s), as kube-scheduler does
    out = simulate_json(capsys, path, "--until", "700")
    assert out["endTime"] == 700.0 and out["pending"][0]["attempts"] == 3
    assert main(["simulate", path, "--until", "700"]) == 0
    assert "stopped at 700 s (until); nothing could change after 0 s" in capsys.readouterr().out


def simulation_doc(events: str, until: str = "") -> str:
    return textwrap.dedent("""\
        apiVersion: kschedlab.io/v1alpha1
        kind: Simulation
        metadata: {name: gap}
        spec:
        """) + until + events


ARRIVAL = """\
  - at: {at}
    create:
      apiVersion: v1
      kind: Pod
      metadata: {{name: {name}}}
      spec:
        containers: [{{name: c, image: nginx, resources: {{requests: {{cpu: "1"}}}}}}]
    duration: 60
"""


def test_arrivals_after_a_long_gap_are_still_processed(tmp_path, capsys):
    events = "  events:\n" + ARRIVAL.format(at=40000, name="late") + ARRIVAL.format(at=80000, name="later")
    text = "---\n".join([NODES, pod_doc("huge", "8"), simulation_doc(events)])
    out = simulate_json(capsys, str(write(tmp_path, text)))
    pods = {p["pod"]: p for p in out["pods"]}
    assert pods["default/late"]["scheduled"] == 40000.0 and pods["default/later"]["scheduled"] == 80000.0
    assert (out["stopReason"], out["endTime"]) == ("quiescent", 80060.0)
    assert [p["pod"] for p in out["pending"]] == ["default/huge"]


def test_the_default_horizon_is_named(tmp_path, capsys):
    events = "  events:\n" + ARRIVAL.format(at=90000, name="too-late")
    path = str(write(tmp_path, "---\n".join([NODES, simulation_doc(events)])))
    out = simulate_json(capsys, path)
    assert (out["stopReason"], out["endTime"], out["horizon"]) == ("horizon", DEFAULT_HORIZON, DEFAULT_HORIZON)
    assert out["pods"] == []
    assert main(["simulate", path]) == 0
    assert "stopped at the default horizon of 86400 s; pass --until to change it" in capsys.readouterr().out
    out = simulate_json(capsys, path, "--until", "100000")
    assert out["stopReason"] == "until" and out["pods"][0]["scheduled"] == 90000.0


@pytest.mark.parametrize("name", sorted(p.name for p in SIM.glob("*.yaml")))
def test_every_dataset_scenario_ends_and_says_why(name, capsys):
    out = simulate_json(capsys, str(SIM / name))
    assert out["stopReason"] == "until" and out["quiescentAt"] is not None
    assert out["quiescentAt"] <= out["endTime"]
    assert main(["simulate", str(SIM / name)]) == 0
    assert "(until); nothing could change after" in capsys.readouterr().out


def test_keep_traces_option(tmp_path):
    from kschedlab.sim.scenario import from_files

    sim, _ = from_files(write(tmp_path, PLAIN), keep_traces=0)
    assert sim.scheduler.keep_traces == 0
    sim.run()
    assert all(r.trace is None for r in sim.scheduler.results)


# -- the engine ---------------------------------------------------------------------------------------------
def test_a_pod_tried_before_a_change_gets_its_retry_before_quiescence():
    """``big`` fails at 0 s; ``small`` then binds (a change whose AssignedPodAdd does not wake
    ``big``): the run waits for the pool's 5-minute flush to retry ``big`` (at 330 s), and only
    then is quiescent."""
    sim = Simulation([node("n1")])
    sim.create_pod(pod("big", cpu="2"), at=0)
    sim.create_pod(pod("small", cpu="500m"), at=0)
    result = sim.run()
    rows = result.pods.set_index("pod")
    assert rows.loc["default/small", "scheduled"] == 0.0
    assert rows.loc["default/big", "attempts"] == 2
    assert (result.stop_reason, result.quiescent_at, result.end_time) == ("quiescent", 330.0, 330.0)
    assert result.pending.to_dict("records") == [{
        "pod": "default/big", "queue": "unschedulable", "attempts": 2,
        "message": "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: "
                   "1 Preemption is not helpful for scheduling."}]


def test_nothing_pending_ends_at_the_last_event():
    sim = Simulation([node("n1")])
    sim.create_pod(pod("p"), at=5, duration=10)
    result = sim.run()
    assert (result.stop_reason, result.end_time, result.quiescent_at) == ("quiescent", 15.0, 15.0)
    assert result.pending.empty and list(result.pending.columns) == ["pod", "queue", "attempts", "message"]


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


class AlwaysFails(FailsOnce):
    name = "AlwaysFails"

    def pre_filter(self, state, pod_info, snapshot):
        return None, Status.error("the API server did not answer")


def with_plugin(plugin) -> Simulation:
    config = {"profiles": [{"plugins": {"preFilter": {"enabled": [{"name": plugin.name}]}}}]}
    return Simulation([node("n1")], config, registry={plugin.name: plugin})


def test_a_pod_that_ended_in_an_error_is_retried_without_any_change():
    sim = with_plugin(FailsOnce)
    sim.create_pod(pod("p"), at=0)
    result = sim.run()
    row = result.pods.set_index("pod").loc["default/p"]
    # the 1 s backoff ends at 1 s; the backoff flush runs each second and moves it when over
    assert (row["attempts"], row["node"], row["scheduled"]) == (2, "n1", 2.0)
    assert result.stop_reason == "quiescent" and result.pending.empty


def test_the_same_error_twice_against_the_same_cluster_settles_the_pod():
    sim = with_plugin(AlwaysFails)
    sim.create_pod(pod("p"), at=0)
    sim.add_node(node("n2"), at=100)  # a change: the pod is unsettled until it fails twice again
    result = sim.run()
    tried = [r for r in schedule_attempts(result, sim).itertuples() if r.popped >= 100]
    assert [r.result for r in tried] == ["error", "error"]
    assert (result.stop_reason, result.quiescent_at) == ("quiescent", tried[-1].finished)
    [pending] = result.pending.to_dict("records")
    assert (pending["queue"], pending["message"]) == (
        "backoff", 'running PreFilter plugin "AlwaysFails": the API server did not answer')


def test_a_run_with_events_beyond_the_horizon_stops_there():
    sim = Simulation([node("n1")])
    sim.create_pod(pod("p"), at=0, duration=10)
    sim.create_pod(pod("late"), at=200)
    result = sim.run(horizon=120)
    assert (result.stop_reason, result.end_time, result.horizon, result.quiescent_at) == ("horizon", 120.0, 120.0,
                                                                                           None)
    assert list(result.pods["pod"]) == ["default/p"]
    result = sim.run()  # and on from there
    assert (result.stop_reason, result.end_time) == ("quiescent", 200.0)


def test_max_attempts_is_a_stop_reason():
    sim = Simulation([node("n1")])
    for i in range(3):
        sim.create_pod(pod(f"p{i}", cpu="2"), at=0)
    result = sim.run(max_attempts=2)
    assert result.stop_reason == "max-attempts" and result.end_time == 0.0


def test_until_advances_the_clock_of_a_quiescent_run():
    sim = Simulation([node("n1")])
    sim.create_pod(pod("p"), at=0, duration=10)
    result = sim.run(until=60)
    assert (result.stop_reason, result.end_time, result.quiescent_at, result.horizon) == ("until", 60.0, 10.0, None)


def test_old_attempts_are_kept_compactly():
    sim = Simulation([node("n1")], keep_traces=2)
    for i in range(6):
        sim.create_pod(pod(f"p{i}", cpu="2"), at=0)
    sim.run(until=700)
    results = sim.scheduler.results
    assert len(results) == 18  # 6 pods tried at 0, 330 and 660 s
    old, recent = results[:-3], results[-2:]
    assert all(r.trace is None and r.diagnosis is None for r in old)
    assert all(r.trace is not None and r.diagnosis is not None for r in recent)
    assert len({id(r.status) for r in old}) == 1 and len({id(r.message) for r in old}) == 1


def test_pods_of_another_scheduler_and_pods_held_at_permit_are_reported(tmp_path, capsys):
    text = PLAIN.replace("metadata: {name: web, namespace: default}\nspec:\n",
                         "metadata: {name: web, namespace: default}\nspec:\n  schedulerName: my-schedluer\n")
    out = simulate_json(capsys, str(write(tmp_path, text)))
    other = [p for p in out["pending"] if p["pod"] == "default/web"]
    assert other == [{"pod": "default/web", "queue": "other-scheduler", "attempts": 0,
                      "message": "schedulerName 'my-schedluer' is not a profile of this scheduler"}]
    # pod by pod with GangScheduling at Permit: the two gangs hold each other's nodes and never settle
    permit = write(tmp_path, (SIM / "gang-deadlock.yaml").read_text().replace("  until: 600\n",
                                                                              "  podGroupCycle: false\n"))
    out = simulate_json(capsys, str(permit), "--until", "250")
    held = [p for p in out["pending"] if p["queue"] == "in-flight"]
    assert len(held) == 4 and {p["message"] for p in held} == {"waiting at Permit (GangScheduling) until 300 s"}
    out = simulate_json(capsys, str(permit))
    assert (out["stopReason"], out["endTime"], out["quiescentAt"]) == ("horizon", 86400.0, None)
    assert len(out["pending"]) == 8


def test_keep_traces_must_not_be_negative(tmp_path, capsys):
    assert main(["simulate", str(write(tmp_path, PLAIN)), "--keep-traces", "-1"]) == 2
    assert "--keep-traces: Invalid value: -1" in capsys.readouterr().err
