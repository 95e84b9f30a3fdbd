"""Every run ends and says how (issue 23): non-finite times refused, Ctrl-C is one line and
exit 130, an interrupted write leaves no half file."""

from __future__ import annotations

from pathlib import Path

import pytest

from kschedlab.cli import main

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "datasets" / "sim" / "capacity-waits.yaml"
MANIFEST = ROOT / "datasets" / "preemption" / "12-preemption-basic.yaml"


@pytest.mark.parametrize("until", ["inf", "nan", "-1", "-inf"])
def test_simulate_refuses_a_time_that_never_comes(until, capsys):
    with pytest.raises(SystemExit) as ei:
        main(["simulate", str(SCENARIO), f"--until={until}"])
    assert ei.value.code == 2
    err = capsys.readouterr().err.splitlines()[-1]
    assert err.startswith("kschedlab simulate: error: argument --until: Invalid value: ")
    assert err.endswith(": must be a finite number of seconds, greater than or equal to 0")


def test_a_scenario_until_of_inf_is_refused_with_its_path(tmp_path, capsys):
    f = tmp_path / "sim.yaml"
    f.write_text("apiVersion: kschedlab.io/v1alpha1\nkind: Simulation\nmetadata: {name: s}\nspec: {until: .inf}\n")
    assert main(["simulate", str(f)]) == 2
    assert capsys.readouterr().err.strip() == (
        f"error: {f}: Simulation s: spec.until: Invalid value: inf: must be a finite number of seconds, "
        "greater than or equal to 0")


def _interrupt(*args, **kwargs):
    raise KeyboardInterrupt


@pytest.mark.parametrize("command, target", [
    (["schedule", str(MANIFEST)], "kschedlab.scheduler.Scheduler.run"),
    (["simulate", str(SCENARIO)], "kschedlab.sim.engine.Simulation.run"),
    (["sweep", str(ROOT / "datasets" / "sweeps" / "most-allocated.yaml")], "kschedlab.research.sweep.sweep"),
])
def test_ctrl_c_prints_one_line_and_exits_130(command, target, monkeypatch, capsys):
    monkeypatch.setattr(target, _interrupt)
    assert main(command) == 130
    captured = capsys.readouterr()
    assert captured.err == f"kschedlab {command[0]}: interrupted\n"


def test_an_interrupted_report_leaves_no_file(tmp_path, monkeypatch, capsys):
    import kschedlab.viz.report as report

    target = tmp_path / "report.html"
    target.write_text("the report of an earlier run")
    monkeypatch.setattr(report.os, "replace", _interrupt)
    assert main(["schedule", str(MANIFEST), "--report", str(target)]) == 130
    assert target.read_text() == "the report of an earlier run"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html"]

