"""``--plugins MODULE:REGISTRY`` on ``kschedlab sweep`` and ``kschedlab bench``: the FGD
experiment's registry and a module of the test's own, refused where the configuration enables a
plugin no registry has; a sweep's runs carry the registry's name, and each Dask worker imports
the module by that name."""

from __future__ import annotations

import json
import pickle
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest

from kschedlab.cli import main
from kschedlab.research.sweep import load_spec

pytest.importorskip("distributed")

ROOT = Path(__file__).resolve().parents[2]
GPU_SHARE = ROOT / "datasets" / "course" / "19-gpu-share.yaml"
FGD = "kschedlab.research.fgd.plugins:REGISTRY"

#: a module of the test's own: a Filter that turns every node down, and a Score that counts its calls
OWN_MODULE = '''
import numpy as np
from kschedlab.framework.interface import Plugin
from kschedlab.framework.status import Code, Status

CALLS = []


class NoNodeFits(Plugin):
    name = "NoNodeFits"

    def filter(self, state, pod_info, node_info):
        return Status(Code.Unschedulable, ("turned down by NoNodeFits",))


class CountingScore(Plugin):
    name = "CountingScore"

    def score_nodes(self, state, pod_info, snapshot, rows):
        CALLS.append(pod_info.key)
        return np.zeros(len(rows), np.int64)


REGISTRY = {"NoNodeFits": NoNodeFits, "CountingScore": CountingScore}
'''


@pytest.fixture
def own_module(tmp_path, monkeypatch):
    """The module written to a folder put on ``sys.path`` (a LocalCluster's workers get this
    process's path); its name is unique to the test."""
    name = f"own_plugins_{tmp_path.name.replace('-', '_')}"
    folder = tmp_path / "mods"
    folder.mkdir()
    (folder / f"{name}.py").write_text(OWN_MODULE)
    monkeypatch.syspath_prepend(str(folder))
    yield name
    sys.modules.pop(name, None)


def sweep_file(tmp_path, configs: str, workload: str) -> Path:
    path = tmp_path / "sweep.yaml"
    path.write_text("apiVersion: kschedlab.io/v1alpha1\nkind: Sweep\nmetadata: {name: s}\nspec:\n  output: out\n"
                    "  seeds: [0]\n  configs:\n" + textwrap.indent(textwrap.dedent(configs), "  ") +
                    f"  workloads:\n  - name: w\n    scenario: [{workload}]\n")
    return path


def test_sweep_with_the_fgd_registry(tmp_path, capsys):
    """19-gpu-share.yaml's profile enables OpenGpuShare and BestFitScore: the sweep is refused
    without the registry, and with it the run schedules the pod as ``simulate --plugins`` does."""
    path = sweep_file(tmp_path, f"- name: bestfit\n  file: {GPU_SHARE}\n", str(GPU_SHARE))
    assert main(["sweep", str(path), "--workers", "1", "--no-progress"]) == 2
    assert ("spec.configs[0]: with variant 'baseline': filter plugin 'OpenGpuShare' does not exist"
            in capsys.readouterr().err)
    assert main(["sweep", str(path), "--workers", "1", "--no-progress", "--plugins", FGD]) == 0
    assert "1 runs (1 run now)" in capsys.readouterr().out
    table = pd.read_parquet(tmp_path / "out" / "results.parquet")
    assert table["scheduled_fraction"].tolist() == [1.0]
    assert table["pods"].tolist() == [1]


def test_sweep_with_a_module_of_its_own(tmp_path, capsys, own_module):
    """The worker imports the module by name and runs its Filter: nothing is scheduled under the
    configuration that enables it, everything under the default one."""
    path = sweep_file(tmp_path, """\
        - name: default
        - name: no-node-fits
          config:
            profiles: [{plugins: {filter: {enabled: [{name: NoNodeFits}]}}}]
        """, str(ROOT / "datasets" / "sim" / "capacity-waits.yaml"))
    registry = f"{own_module}:REGISTRY"
    runs, _, _ = load_spec(path, [registry])
    assert {r.plugins for r in runs} == {(registry,)}
    assert b"CountingScore" not in pickle.dumps(runs[1])  # the run names the registry; it carries no class
    assert main(["sweep", str(path), "--workers", "1", "--no-progress", "--plugins", registry]) == 0
    capsys.readouterr()
    table = pd.read_parquet(tmp_path / "out" / "results.parquet").set_index("config")
    assert table.loc["no-node-fits", "scheduled_fraction"] == 0.0
    assert table.loc["default", "scheduled_fraction"] == 1.0
    # the registry's classes are part of the runs' ids: the same runs without it are other runs
    assert set(table["run_id"]).isdisjoint(r.run_id for r in load_spec(
        sweep_file(tmp_path, "- name: default\n", str(ROOT / "datasets" / "sim" / "capacity-waits.yaml")))[0])


def test_sweep_plugins_flag_is_checked_like_the_others(tmp_path, capsys):
    path = sweep_file(tmp_path, "- name: default\n", str(GPU_SHARE))
    with pytest.raises(SystemExit) as exit_:
        main(["sweep", str(path), "--plugins", "nosuch_module_x:REGISTRY"])
    assert exit_.value.code == 2
    assert ("argument --plugins: cannot import module 'nosuch_module_x': No module named 'nosuch_module_x'"
            in capsys.readouterr().err)


BENCH = ["bench", "SchedulingBasic", "--nodes", "20", "--init-pods", "10", "--pods", "20", "-o", "json"]


def config_file(tmp_path, point: str, name: str) -> str:
    path = tmp_path / f"{name}.yaml"
    path.write_text("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
                    f"- plugins: {{{point}: {{enabled: [{{name: {name}, weight: 3}}]}}}}\n")
    return str(path)


def test_bench_with_the_fgd_registry(tmp_path, capsys):
    config = config_file(tmp_path, "score", "BestFitScore")
    assert main([*BENCH, "--config", config]) == 2
    assert "error: score plugin 'BestFitScore' does not exist" in capsys.readouterr().err
    assert main([*BENCH, "--config", config, "--plugins", FGD]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["pods"], result["scheduled"]) == (20, 20)


def test_bench_measures_a_module_of_its_own(tmp_path, capsys, own_module):
    """Every measured pod (and init pod) goes through the module's Score plugin."""
    assert main([*BENCH, "--config", config_file(tmp_path, "score", "CountingScore"),
                 "--plugins", f"{own_module}:REGISTRY"]) == 0
    result = json.loads(capsys.readouterr().out)
    calls = sys.modules[own_module].CALLS
    assert result["scheduled"] == 20
    assert len(set(calls)) == 30 and sum(k.startswith("default/pod-") for k in set(calls)) == 20


def test_bench_plugins_need_one_pod_workload(capsys):
    assert main(["bench", "--plugins", FGD]) == 2
    assert "error: --plugins and --config are measured on one workload of SchedulingBasic," in capsys.readouterr().err
    assert main(["bench", "GangScheduling", "--plugins", FGD]) == 2
