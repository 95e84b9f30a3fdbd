"""Skipping a quiescent run's periodic retries (kschedlab.sim.fast_forward): the same report,
byte for byte, as making every retry; ``until: 1e18`` ends at the attempt bound at once."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from kschedlab.cli import main
from kschedlab.features import FeatureGates
from kschedlab.scheduler.schedule_one import Scheduler
from kschedlab.sim import Simulation
from kschedlab.sim.scenario import from_files

DATASETS = Path(__file__).resolve().parents[2] / "datasets"

NODE = """apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "1", memory: 1Gi, pods: "10"}}
"""


def pod(name: str, cpu: str, extra: str = "") -> str:
    return ("{apiVersion: v1, kind: Pod, metadata: {name: %s, namespace: default}, spec: {%scontainers: "
            "[{name: c, resources: {requests: {cpu: '%s'}}}]}}" % (name, extra, cpu))


#: two pods that never fit; pods arriving at other phases of the 30 s flush, one that runs
#: 1000 s and lets a later one in, a gated one
SCENARIOS = {
    "never-fits": NODE + "---\napiVersion: v1\nkind: Pod\nmetadata: {name: big, namespace: default}\n"
                         "spec: {containers: [{name: c, resources: {requests: {cpu: '2'}}}]}\n",
    "phases": NODE + f"""---
apiVersion: kschedlab.io/v1alpha1
kind: Simulation
metadata: {{name: phases}}
spec:
  events:
  - {{at: 0, create: {pod("a", "2")}}}
  - {{at: 100, create: {pod("b", "3")}}}
  - {{at: 217.5, duration: 1000, create: {pod("c", "500m")}}}
  - {{at: 250, create: {pod("g", "1", "schedulingGates: [{name: x}], ")}}}
  - {{at: 400, create: {pod("d", "700m")}}}
""",
}


def write(tmp_path: Path, name: str) -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(SCENARIOS[name])
    return path


def cli(monkeypatch, capsys, skip: bool, *argv: str) -> str:
    monkeypatch.setattr(Simulation, "skip_quiescent_retries", skip)
    main(["simulate", *argv])
    return capsys.readouterr().out


@pytest.mark.parametrize("until", ["3600", "40000.5", "100000"])
@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_the_cli_report_is_the_same_byte_for_byte(tmp_path, monkeypatch, capsys, name, until):
    path = str(write(tmp_path, name))
    for output in ("table", "json"):
        stepped = cli(monkeypatch, capsys, False, path, "--until", until, "-o", output)
        skipped = cli(monkeypatch, capsys, True, path, "--until", until, "-o", output)
        assert skipped == stepped
    assert json.loads(skipped)["stopReason"] == "until"


def run(path: Path, until: float, skip: bool, max_attempts: int = 1_000_000):
    gangs = path == DATASETS / "podgroup" / "two-training-jobs.yaml"  # a step attempts a whole group
    sim, _ = from_files(path, gates=FeatureGates({"GenericWorkload": True}) if gangs else None)
    sim.skip_quiescent_retries = skip
    calls = []
    schedule_one = sim.scheduler.schedule_one
    sim.scheduler.schedule_one = lambda key: (calls.append(key), schedule_one(key))[1]
    return sim, sim.run(until=until, max_attempts=max_attempts), len(calls)


@pytest.mark.parametrize("until, max_attempts", [(7777, 1_000_000), (40000.5, 1_000_000), (100000, 150)])
@pytest.mark.parametrize("path", [*sorted((DATASETS / "sim").glob("*.yaml")), DATASETS / "podgroup" / "two-training-jobs.yaml",
                                  "never-fits", "phases"],
                         ids=lambda p: Path(p).stem)
def test_every_record_is_the_same(tmp_path, path, until, max_attempts):
    """Timelines, queue sizes, utilisation, the queue's moves (the metrics' source), the
    pending pods and the scheduler's report, with the moves kept."""
    path = write(tmp_path, path) if path in SCENARIOS else path
    (sim_a, a, made_a), (sim_b, b, made_b) = run(path, until, False, max_attempts), run(path, until, True, max_attempts)
    for frame in ("pods", "queue", "utilization", "moves", "pending"):
        pd.testing.assert_frame_equal(getattr(a, frame), getattr(b, frame))
    assert (a.end_time, a.stop_reason, a.quiescent_at) == (b.end_time, b.stop_reason, b.quiescent_at)
    assert sim_a.report().to_dict() == sim_b.report().to_dict()
    assert made_b <= made_a


def test_far_until_skips_the_retries_and_stops_at_the_attempt_bound(tmp_path, monkeypatch, capsys):
    """``spec.until: 1e18`` with a pod that never fits: the run ends as the step-by-step run
    would, after a million attempts (max-attempts), having made only a few hundred."""
    path = write(tmp_path, "never-fits")
    path.write_text(path.read_text() + "---\napiVersion: kschedlab.io/v1alpha1\nkind: Simulation\n"
                                       "metadata: {name: far}\nspec: {until: 1e18}\n")
    made = []
    schedule_one = Scheduler.schedule_one
    monkeypatch.setattr(Scheduler, "schedule_one", lambda self, key: (made.append(key), schedule_one(self, key))[1])
    out = cli(monkeypatch, capsys, True, str(path))
    assert "default/big  queue=unschedulable  attempts=1000000" in out
    assert out.endswith("stopped at 3.3e+08 s after the maximum number of scheduling attempts (max-attempts)\n"
                        "simulated 3.3e+08 s\n")
    assert len(made) < 1000
    sim, until = from_files(path, keep_history=False)
    assert until == 1e18
    result = sim.run(until=until)
    assert (result.stop_reason, result.end_time) == ("max-attempts", 330.0 * 999_999)
    assert result.pods["attempts"].tolist() == [1_000_000]
    # one queue-size row per retry instant, every 330 s (the 5 min timeout, seen at the next 30 s flush)
    assert result.queue["time"].tolist() == [330.0 * k for k in range(1_000_000)]
    assert len(made) < 2000


def far(tmp_path: Path, until: str) -> Path:
    path = write(tmp_path, "never-fits")
    path.write_text(path.read_text() + "---\napiVersion: kschedlab.io/v1alpha1\nkind: Simulation\n"
                                       f"metadata: {{name: far}}\nspec: {{until: {until}}}\n")
    return path


def kept(sim) -> dict[str, int]:
    """The rows each record holds (what the run's memory grows with)."""
    return {"queue sizes": sim._queue_sizes.kept, "utilization": sim._util.kept, "moves": sim.queue.history.kept,
            "loop results": sim.loop.history.kept,
            "scheduler results": getattr(sim.scheduler.results, "kept", len(sim.scheduler.results))}


@pytest.mark.parametrize("keep_history", [True, False])
def test_the_records_kept_do_not_grow_with_the_retries_skipped(tmp_path, keep_history):
    """Ten thousand attempts or nearly a million: the same rows held (skipped cycles are counts),
    while the tables read from them have a row per retry, as the step-by-step run's."""
    held, rows = [], []
    for until in ("3300100", "3.2e8"):
        sim, limit = from_files(far(tmp_path, until), keep_history=keep_history)
        result = sim.run(until=limit)
        held.append(kept(sim))
        rows.append((len(result.queue), len(result.utilization), len(result.moves), int(result.pods["attempts"][0])))
    assert held[0] == held[1] and max(held[1].values()) < 100
    attempts = [10_001, 969_697]  # a retry every 330 s from 0 (the 5 min timeout, seen at the next 30 s flush)
    # a sample at each retry and one at ``until``
    assert rows == [(n + 1, n + 1, 3 * n if keep_history else 0, n) for n in attempts]  # 3 moves a retry
    if keep_history:
        assert len(sim.loop.history) == len(sim.scheduler.results) == 969_697


def test_a_result_keeps_the_records_of_its_own_end(tmp_path):
    """Frames are built when first read, from the records as they were when the run ended: a
    later run of the same simulation does not change an earlier result."""
    sim, _ = from_files(far(tmp_path, "1e18"))
    first = sim.run(until=33_000)
    second = sim.run(until=66_000)
    assert first.queue["time"].max() <= 33_000 < second.queue["time"].max()
    assert len(first.moves) < len(second.moves) and first.utilization["time"].max() <= 33_000
