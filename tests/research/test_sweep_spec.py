"""Sweep files: a bad spec names its file, the Sweep and the field path; a good one plans runs
whose ids change with what decides the outcome; ``kschedlab sweep`` end to end."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pandas as pd
import pytest

from kschedlab.api.errors import ManifestError
from kschedlab.cli import main
from kschedlab.research import Variant, Workload
from kschedlab.research.run import Run
from kschedlab.research.sweep import load_spec, plan, read_results

ROOT = Path(__file__).resolve().parents[2]
HEAD = "apiVersion: kschedlab.io/v1alpha1\nkind: Sweep\nmetadata: {name: s}\n"


def spec(tmp_path, body: str) -> Path:
    path = tmp_path / "sweep.yaml"
    path.write_text(HEAD + textwrap.dedent(body))
    return path


@pytest.mark.parametrize("body, message", [
    ("spec:\n  seed: [1]\n  workloads: [{name: w, generate: {jobs: 3}}]\n",
     'spec.seed: unknown field "seed"'),
    ("spec:\n  seeds: ['1']\n  workloads: [{name: w, generate: {jobs: 3}}]\n",
     'spec.seeds[0]: invalid type: expected integer, got string "1"'),
    ("spec:\n  seeds: [0]\n",
     "spec.workloads: Required value"),
    ("spec:\n  workloads: [{name: w}]\n",
     "spec.workloads[0]: Invalid value: give exactly one of scenario, trace, generate"),
    ("spec:\n  workloads: [{name: w, trace: nowhere.csv}]\n",
     "spec.workloads[0].trace: Not found: 'nowhere.csv'"),
    ("spec:\n  workloads: [{name: w, generate: {jobs: 3}}, {name: w, generate: {jobs: 4}}]\n",
     "spec.workloads[1].name: Duplicate value: 'w'"),
    ("spec:\n  workloads: [{name: w, generate: {jobs: 3}}]\n  runs: [{config: fast, variant: baseline, "
     "workload: w, seed: 0}]\n",
     "spec.runs[0].config: Not found: 'fast'"),
    ("spec:\n  workloads: [{name: w, generate: {jobs: 3}}]\n  variants:\n  - name: v\n    plugins:\n"
     "    - {name: X, class: 'no.such.module:X'}\n",
     "spec.variants[0].plugins[0].class: Invalid value: 'no.such.module:X': cannot import"),
    ("spec:\n  workloads: [{name: w, generate: {jobs: 3}}]\n  configs:\n  - name: c\n    config:\n"
     "      profiles: [{schedulerNam: x}]\n",
     'spec.configs[0].config.profiles[0].schedulerNam: unknown field "schedulerNam"'),
    ("spec:\n  workloads: [{name: w, generate: {jobs: 3}}]\n  configs:\n  - name: c\n    config:\n"
     "      profiles: [{plugins: {score: {enabled: [{name: NoSuchPlugin}]}}}]\n",
     "spec.configs[0]: with variant 'baseline': "),
    ("spec:\n  workloads: [{name: w, scenario: [x.yaml], nodes: {count: 3}}]\n",
     "spec.workloads[0].scenario[0]: Not found: 'x.yaml'"),
])
def test_a_bad_spec_names_file_object_and_field(tmp_path, body, message):
    path = spec(tmp_path, body)
    with pytest.raises(ManifestError) as err:
        load_spec(path)
    assert str(err.value).startswith(f"{path}: Sweep s: {message}")


def test_wrong_kind_and_bad_trace_file(tmp_path):
    path = tmp_path / "x.yaml"
    path.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n")
    with pytest.raises(ManifestError, match=r"x.yaml: Sweep p: apiVersion: Unsupported value"):
        load_spec(path)
    (tmp_path / "t.csv").write_text("arrival,cpu,memory,gpu,gang,priority\n0,1,1,1,x,0\n")
    path = spec(tmp_path, "spec:\n  workloads: [{name: w, trace: t.csv}]\n")
    with pytest.raises(ManifestError, match=r"t.csv: row 0: gang: invalid value 'x'"):
        load_spec(path)


def test_grid_and_list_plans_and_relative_paths(tmp_path):
    (tmp_path / "most.yaml").write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
        "- pluginConfig:\n  - name: NodeResourcesFit\n    args: {scoringStrategy: {type: MostAllocated}}\n")
    path = spec(tmp_path, """\
        spec:
          output: out
          seeds: [0, 1]
          configs: [{name: default}, {name: most, file: most.yaml}]
          workloads:
          - {name: w, generate: {jobs: 3, arrivalRate: 0.5}, nodes: {count: 2}}
        """)
    runs, output, retries = load_spec(path)
    assert output == tmp_path / "out" and retries == 2
    assert [(r.config_name, r.seed) for r in runs] == [("default", 0), ("default", 1), ("most", 0), ("most", 1)]
    assert runs[2].config["profiles"][0]["pluginConfig"][0]["args"]["scoringStrategy"]["type"] == "MostAllocated"
    assert runs[0].workload.generate == {"jobs": 3, "arrival_rate": 0.5}
    assert len({r.run_id for r in runs}) == 4


class Scorer:  # a stand-in plugin class for ids
    name = "Scorer"


def test_run_ids_follow_what_decides_the_outcome():
    w = Workload("w", generate={"jobs": 3})
    base = Run("c", None, Variant("v"), w, 0)
    assert base.run_id == Run("c", None, Variant("v"), w, 0).run_id
    assert base.run_id != Run("c", None, Variant("v"), w, 1).run_id
    assert base.run_id != Run("c", {"profiles": [{}]}, Variant("v"), w, 0).run_id
    assert base.run_id != Run("c", None, Variant("v"), Workload("w", generate={"jobs": 4}), 0).run_id
    with_plugin = Run("c", None, Variant("v", {"Scorer": Scorer}, ({"name": "Scorer"},)), w, 0)
    assert with_plugin.run_id != base.run_id
    assert plan({"c": None}, [Variant("v")], [w], [0])[0].run_id == base.run_id


def test_kschedlab_sweep_end_to_end(tmp_path, capsys):
    path = spec(tmp_path, f"""\
        spec:
          output: out
          seeds: [0, 1]
          configs:
          - name: default
          - name: most-allocated
            config:
              profiles:
              - pluginConfig:
                - name: NodeResourcesFit
                  args: {{scoringStrategy: {{type: MostAllocated}}}}
          workloads:
          - name: capacity-waits
            scenario: [{ROOT / 'datasets/sim/capacity-waits.yaml'}]
            interval: 10
        """)
    assert main(["sweep", str(path), "--workers", "1", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "4 runs (4 run now)" in out and "most-allocated" in out
    table = pd.read_parquet(tmp_path / "out" / "results.parquet")
    assert len(table) == 4 and table["scheduled_fraction"].tolist() == [1.0] * 4
    assert main(["sweep", str(path), "--workers", "1", "--no-progress"]) == 0
    assert "4 runs (0 run now)" in capsys.readouterr().out
    assert len(read_results(tmp_path / "out")) == 4
    bad = spec(tmp_path, "spec:\n  seeds: oops\n  workloads: []\n")
    assert main(["sweep", str(bad)]) == 2
    assert "spec.seeds: invalid type: expected array" in capsys.readouterr().err
