"""The experiment around the policies: shuffle and node prefixes by seed, inflation, the tie-break
option, the paper's bucketing, the CLI's JSON, the sweep file, and one short reproduction on the
real trace."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from kschedlab.cli import main
from kschedlab.research.fgd.engine import Engine, EngineNode
from kschedlab.research.fgd.experiment import PAPER_TABLE, bucket, inflate, prepare, run
from kschedlab.research.fgd.model import PodRes
from kschedlab.research.fgd.openb import (
    DEFAULT_NODES,
    DEFAULT_PODS,
    generate_sample,
    read_nodes,
    read_pods,
    sample_frames,
)
from kschedlab.research.fgd.policies import make_policy
from kschedlab.research.sweep import load_spec

ROOT = Path(__file__).parents[3]
SAMPLE = ROOT / "datasets" / "openb-sample"
OPENB = ROOT / ".." / "shared" / "traces" / "openb"


def test_shipped_sample_is_the_generators(tmp_path):
    nodes, pods = generate_sample(tmp_path, seed=0)
    assert nodes.read_bytes() == (SAMPLE / DEFAULT_NODES).read_bytes()
    assert pods.read_bytes() == (SAMPLE / DEFAULT_PODS).read_bytes()
    assert len(read_nodes(nodes)) == 64 and len(read_pods(pods)) == 300


def test_bad_pod_rows_are_named(tmp_path):
    bad = tmp_path / "p.csv"
    bad.write_text("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\np0,1000,10,2,500,\n")
    with pytest.raises(ValueError, match="row 2: num_gpu 2 with gpu_milli 500"):
        read_pods(bad)
    bad.write_text("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\np0,-1,10,0,0,\n")
    with pytest.raises(ValueError, match="row 2, column cpu_milli"):
        read_pods(bad)


def test_prepare_shuffles_inflates_and_prefixes_by_seed():
    nodes, pods = sample_frames(seed=0)
    a, b, c = prepare(nodes, pods, 1), prepare(nodes, pods, 1), prepare(nodes, pods, 2)
    assert [p[0] for p in a.pods] == [p[0] for p in b.pods] != [p[0] for p in c.pods]
    assert sorted(n.name[:4] for n in a.nodes) == [f"{i:04d}" for i in range(len(nodes))]
    capacity = int(nodes.gpu.sum()) * 1000
    asked = sum(p.total_milli_gpu for _, p, _ in a.pods)
    originals = [p for p in a.pods if "-tuned-" not in p[0]]
    assert len(originals) == len(pods) and len(a.pods) > len(pods)
    # stopped at the first copy whose per-GPU share would pass 130 % (its total may have passed it)
    assert asked - max(p.total_milli_gpu for _, p, _ in a.pods) <= 1.3 * capacity


def test_inflation_drops_pods_above_the_target_and_keeps_below_zero_ratio():
    pods = [(f"p{i}", PodRes(1000, 1000, 2), 0) for i in range(10)]      # 20 GPUs asked
    down = inflate(pods, pods, 10000, 1.0, np.random.default_rng(0))
    assert sum(p.total_milli_gpu for _, p, _ in down) == 10000 and len(down) == 5
    assert inflate(pods, pods, 10000, 0, np.random.default_rng(0)) == pods


def test_tie_break_option():
    nodes = [EngineNode(f"{i:04d}-n", 8000, 8192, 110, (1000,), "T4") for i in range(5)]
    pod = PodRes(1000, 1000, 1)
    by_name = Engine(nodes, make_policy("GpuPacking"), tie_break="name")
    assert [by_name.place(pod, 1)[0] for _ in range(3)] == [0, 1, 2]    # equal scores: smallest name
    drawn = {Engine(nodes, make_policy("GpuPacking"), tie_break="random", seed=s).place(pod, 1)[0]
             for s in range(20)}
    assert len(drawn) > 2                                                # upstream's uniform draw
    with pytest.raises(ValueError, match="tie_break"):
        Engine(nodes, make_policy("FGD", []), tie_break="first")


def test_bucketing_as_the_paper():
    gpus = 10                                                            # 10,000 thousandths
    arrived = np.array([1000, 2000, 2040, 4000])                          # 10 %, 20 %, 20.4 %, 40 %
    used = np.array([1000, 2000, 1500, 3001])
    out = bucket(arrived, used, gpus, top=40)
    assert out[10] == 10.0 and out[20] == 17.5                            # mean of the pods rounding to 20
    assert out[21] == 17.5 and 22 not in out                              # a gap takes the pods within one point
    assert out[40] == 30.01 and out[39] == 30.01


def test_cli_json_shape(capsys):
    code = main(["packing", "--nodes", str(SAMPLE / DEFAULT_NODES), "--pods", str(SAMPLE / DEFAULT_PODS),
                 "--policy", "GpuPacking", "--seed", "7", "-o", "json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0
    assert {"policy", "seed", "pods", "gpus", "seconds", "unallocated"} <= set(doc)
    assert doc["policy"] == "GpuPacking" and doc["seed"] == 7 and doc["gpus"] == 354 and doc["tieBreak"] == "name"
    keys = [int(k) for k in doc["unallocated"]]
    assert keys == list(range(0, max(keys) + 1)) and max(keys) >= 100
    assert all(0 <= v <= 100 for v in doc["unallocated"].values())


def test_cli_table_marks_a_fragment_never_measured(capsys):
    """The arrivals stop short of 130 %: the unallocated share is read from the pods within one point,
    the fragment was never measured there, and the table says "-" (it printed "nan")."""
    assert main(["packing", "--nodes", str(SAMPLE / DEFAULT_NODES), "--pods", str(SAMPLE / DEFAULT_PODS),
                 "--policy", "GpuPacking", "--seed", "7"]) == 0
    out = capsys.readouterr().out
    assert "nan" not in out
    assert out.splitlines()[-1].split() == ["130", "0.60", "-"]


def test_sweep_files_load():
    runs, output, _ = load_spec(ROOT / "datasets" / "sweeps" / "fgd-sample.yaml")
    assert len(runs) == 18 and output.name == "fgd-sample"
    assert {r.policy for r in runs} == set(PAPER_TABLE) and {r.seed for r in runs} == {42, 43, 44}
    assert len({r.run_id for r in runs}) == 18


def test_a_packing_sweep_rejects_bad_fields(tmp_path):
    from kschedlab.api.errors import ManifestError

    spec = tmp_path / "s.yaml"
    spec.write_text("apiVersion: kschedlab.io/v1alpha1\nkind: Sweep\nmetadata: {name: s}\nspec:\n"
                    "  packing:\n    policies: [Tetris]\n    traces:\n"
                    f"    - {{name: t, nodes: {SAMPLE / DEFAULT_NODES}, pods: {SAMPLE / DEFAULT_PODS}}}\n")
    with pytest.raises(ManifestError, match="spec.packing.policies: Unsupported value"):
        load_spec(spec)
    spec.write_text(spec.read_text().replace("[Tetris]", "[FGD]").replace("pods: /", "pods: /nowhere/"))
    with pytest.raises(ManifestError, match=r"spec.packing.traces\[0\].pods: Not found"):
        load_spec(spec)


@pytest.mark.skipif(not OPENB.is_dir(), reason="the openb trace is not at ../shared/traces/openb")
def test_short_reproduction_on_the_real_trace():
    """One seed of the paper's default experiment: FGD and DotProduct within a point of the
    paper's medians, FGD leaving about half of DotProduct's unallocated GPUs."""
    nodes = read_nodes(OPENB / "openb_node_list_gpu_node.csv")
    pods = read_pods(OPENB / "openb_pod_list_default.csv")
    fgd = run(nodes, pods, "FGD", 42).unallocated_at(100)
    dot = run(nodes, pods, "DotProduct", 42).unallocated_at(100)
    assert abs(fgd - PAPER_TABLE["FGD"]) < 1.0 and abs(dot - PAPER_TABLE["DotProduct"]) < 1.0
    assert 0.35 < 1 - fgd / dot < 0.65


def test_a_workload_without_gpu_requests_or_a_cluster_without_gpus_is_refused_not_inflated_forever(tmp_path,
                                                                                                   capsys):
    # the simulator's TunePodsByNodeTotalResource panics on podTotalMilliGpuReq <= 0 and
    # nodeTotalMilliGpu <= 0; inflating such a workload would never reach its target
    cpu_only = [("a", PodRes(1000, 0, 0), 0)]
    with pytest.raises(ValueError, match=r"^no pod requests a GPU: the workload cannot be inflated to 1.3 × "
                                         r"the cluster's 4 GPUs \(--inflate 0 keeps the pods as they are\)$"):
        inflate(cpu_only, cpu_only, 4000, 1.3, np.random.default_rng(0))
    gpu = [("b", PodRes(1000, 500, 1), 0)]
    with pytest.raises(ValueError, match=r"^the cluster has no GPU: the workload cannot be inflated to 1.3 × "):
        inflate(gpu, gpu, 0, 1.3, np.random.default_rng(0))
    assert inflate(cpu_only, cpu_only, 4000, 0, np.random.default_rng(0)) == cpu_only
    nodes, pods = tmp_path / "n.csv", tmp_path / "p.csv"
    nodes.write_text("sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,2,P100\n")
    pods.write_text("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\np0,1000,10,0,0,\n")
    assert main(["packing", "--nodes", str(nodes), "--pods", str(pods), "--policy", "FGD"]) == 2
    assert capsys.readouterr().err == ("error: no pod requests a GPU: the workload cannot be inflated to 1.3 × the "
                                       "cluster's 2 GPUs (--inflate 0 keeps the pods as they are)\n")
