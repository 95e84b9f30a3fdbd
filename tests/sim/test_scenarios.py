"""The scenarios of datasets/sim/, run as `kschedlab simulate FILE` would run them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kschedlab.cli import main
from kschedlab.sim.metrics import pending_pods, schedule_attempts
from kschedlab.sim.scenario import from_files

SIM = Path(__file__).resolve().parents[2] / "datasets" / "sim"


def simulate(capsys, name: str, *extra: str) -> dict:
    assert main(["simulate", str(SIM / name), "-o", "json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def by_pod(out: dict) -> dict:
    return {p["pod"]: p for p in out["pods"]}


def test_gated_pod(capsys):
    out = simulate(capsys, "gated-pod.yaml")
    pods = by_pod(out)
    test_pod = pods["default/test-pod"]
    assert (test_pod["created"], test_pod["first_attempt"], test_pod["scheduled"], test_pod["node"],
            test_pod["attempts"]) == (0.0, 20.0, 20.0, "node-2", 1)
    web = pods["default/web-0"]
    assert (web["scheduled"], web["node"], web["finished"]) == (5.0, "node-2", 65.0)
    # the engine samples the queue after each event (the initial cluster is not sampled at 0 s)
    gated = {q["time"]: q["gated"] for q in out["queue"]}
    assert gated[5.0] == 1 and gated[10.0] == 1 and gated[20.0] == 0


def test_gated_pod_queue_history():
    sim, until = from_files(SIM / "gated-pod.yaml")
    result = sim.run(until=until)
    pending = pending_pods(result)
    assert pending.loc[0.0, "gated"] == 1 and pending.loc[20.0, "gated"] == 0
    moves = result.moves[result.moves["pod"] == "default/test-pod"]
    assert list(zip(moves["time"], moves["to"].fillna("-"), moves["event"])) == [
        (0.0, "gated", "UnscheduledPodAdd"),
        (20.0, "active", "TargetPodUpdatePodSchedulingGatesEliminated"),
        (20.0, "in-flight", "Pop"),
        (20.0, "-", "Done"),
    ]


def test_capacity_waits(capsys):
    out = simulate(capsys, "capacity-waits.yaml")
    pods = by_pod(out)
    got = {k.split("/")[1]: (p["scheduled"], p["node"], p["attempts"]) for k, p in pods.items()}
    assert got["batch-2"] == (20.0, got["batch-0"][1], 2)  # the node batch-0 freed at 20 s
    assert got["batch-3"] == (21.0, got["batch-1"][1], 3)
    assert got["batch-4"] == (30.0, "node-3", 4)
    assert {got["batch-0"][1], got["batch-1"][1]} == {"node-1", "node-2"}
    assert out["endTime"] == 120.0  # the scenario's spec.until (the last pod finished at 50 s)


def test_capacity_waits_every_failed_attempt_is_unschedulable():
    sim, until = from_files(SIM / "capacity-waits.yaml")
    result = sim.run(until=until)
    attempts = schedule_attempts(result, sim)
    assert attempts["result"].value_counts().to_dict() == {"unschedulable": 6, "scheduled": 5}
    woken = result.moves[(result.moves["from"] == "unschedulable")]
    assert set(woken["event"]) == {"AssignedPodDelete", "NodeAdd"}


def test_table_output(capsys):
    assert main(["simulate", str(SIM / "capacity-waits.yaml")]) == 0
    text = capsys.readouterr().out
    assert "default/batch-4" in text and text.rstrip().endswith("simulated 120 s")


@pytest.mark.parametrize("name", sorted(p.name for p in SIM.glob("*.yaml")))
def test_every_scenario_runs(capsys, name):
    out = simulate(capsys, name)
    assert out["pods"] and all(p["attempts"] >= 0 for p in out["pods"])


def test_gang_deadlock_podgroup_cycle(capsys):
    out = simulate(capsys, "gang-deadlock.yaml")
    got = {k.split("/")[1]: (p["scheduled"], p["attempts"]) for k, p in by_pod(out).items()}
    assert got == {**{f"train-a-{i}": (0.0, 1) for i in range(4)}, **{f"train-b-{i}": (100.0, 2) for i in range(4)}}
    assert len({p["node"] for p in out["pods"] if p["pod"].startswith("ml/train-b")}) == 4


def test_gang_deadlock_podgroup_condition_after_first_cycle():
    sim, _ = from_files(SIM / "gang-deadlock.yaml")
    sim.run(until=50)
    a = sim.cluster.objects["PodGroup"]["ml/train-a"].condition()
    b = sim.cluster.objects["PodGroup"]["ml/train-b"].condition()
    assert (a.status, a.reason) == ("True", "Scheduled")
    assert (b.status, b.reason, b.message) == (
        "False", "Unschedulable", "minCount (4) cannot be satisfied: 0 scheduled, 3 remaining, "
        "pod group preemption: No preemption victims found for incoming preemptor")
    assert not any(k.startswith("ml/train-b") for k in sim.cluster.snapshot.pod_row)  # holds nothing


def test_gang_deadlock_pod_by_pod_never_runs(tmp_path):
    text = (SIM / "gang-deadlock.yaml").read_text().replace("  until: 600\n", "  until: 600\n  podGroupCycle: false\n")
    path = tmp_path / "pod-by-pod.yaml"
    path.write_text(text)
    sim, until = from_files(path)
    result = sim.run(until=until)
    assert result.pods["scheduled"].isna().all()  # two workers of each job held at Permit, time out, again
    # the nodes the timed-out pods held are an AssignedPodDelete of the assumed pods (upstream's
    # handleBindingCycleError): the workers kept out by Insufficient cpu are retried at the timeout
    # itself, so a round every 300 s (0, 300, 600); each round's waiting pods activate the other
    # workers of their group (ForceActivate), as in `schedule`
    assert set(result.pods["attempts"]) == {3}
    moves = result.moves
    assert sorted(set(moves.loc[moves["event"] == "AssignedPodDelete", "time"])) == [300.0, 600.0]
    assert set(moves.loc[moves["event"] == "ForceActivate", "pod"]) == set(result.pods["pod"])


def test_noexecute_taint(capsys):
    out = simulate(capsys, "noexecute-taint.yaml")
    assert {p["pod"]: p["node"] for p in out["pods"]} == {
        "default/web-plain": "node-1", "default/web-60s": "node-1", "default/web-always": "node-1"}
    events = [(e["time"], e["pod"].split("/")[1], e["kind"], e["fire_at"]) for e in out["taintManager"]]
    assert events == [(10.0, "web-60s", "scheduled", 70.0), (10.0, "web-always", "forever", None),
                      (10.0, "web-plain", "evict-now", 10.0), (10.0, "web-plain", "fired", 10.0),
                      (70.0, "web-60s", "fired", 70.0)]


def test_noexecute_taint_pods_leave_after_their_grace_period():
    sim, _ = from_files(SIM / "noexecute-taint.yaml")
    for until, left in ((14.9, {"web-plain", "web-60s", "web-always"}), (15.0, {"web-60s", "web-always"}),
                        (74.9, {"web-60s", "web-always"}), (75.0, {"web-always"})):
        sim.run(until=until)
        assert {k.split("/")[1] for k in sim.cluster.pods} == left, until
        if until == 74.9:  # terminating since 70 s
            cond = [c for c in sim.cluster.pods["default/web-60s"].status.conditions if c.type == "DisruptionTarget"]
            assert [(c.status, c.reason, c.message) for c in cond] == [
                ("True", "DeletionByTaintManager", "Taint manager: deleting due to NoExecute taint")]


def test_set_taints_on_an_unknown_node_is_refused(tmp_path):
    from kschedlab.api.errors import ManifestError

    text = (SIM / "noexecute-taint.yaml").read_text().replace("node: node-1\n", "node: node-9\n")
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ManifestError, match=r"spec.events\[3\].setTaints.node: Not found: 'node-9'"):
        from_files(path)
