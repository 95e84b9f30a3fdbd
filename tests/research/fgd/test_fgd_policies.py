"""The six policies' integer scores on hand-worked nodes (the arithmetic of each simulator file)."""

from __future__ import annotations

import pytest

from kschedlab.research.fgd.model import NodeRes, PodRes, TypicalPod
from kschedlab.research.fgd.policies import (
    FGD,
    POLICIES,
    BestFit,
    DotProduct,
    GpuClustering,
    GpuPacking,
    Random,
    make_policy,
)

SHARE = PodRes(4000, 500, 1)
WHOLE2 = PodRes(16000, 1000, 2)


def test_dot_product():
    # free (64000/128000, 2000/8000) = (0.5, 0.25); pod (16000/128000, 2000/8000) = (0.125, 0.25)
    # dot = 0.0625 + 0.0625 = 0.125, halved 0.0625; score int(100 * 0.9375) = 93
    assert DotProduct().score(NodeRes(64000, (1000, 1000)), WHOLE2) == 93
    assert DotProduct().score(NodeRes(8000, (1000, 1000)), WHOLE2) == 0        # CPU short: MinNodeScore


@pytest.mark.parametrize("affinity, left, expected", [
    ((("share-gpu", 2),), (1000, 500), 75 + 25 * 6500 // 8000),              # only its kind: (75, 100]
    ((("share-gpu", 1), ("1-gpu", 1)), (0, 500), 50 + 25 * 7500 // 8000),  # its kind among others
    ((), (1000, 1000), 25 + 25 * 6000 // 8000),                             # an idle node
    ((("2-gpu", 1),), (0, 0, 1000, 1000), 25 * 6000 // 8000),               # other kinds only
])
def test_gpu_clustering(affinity, left, expected):
    assert GpuClustering().score(NodeRes(32000, left, affinity=affinity), SHARE) == expected


def test_gpu_clustering_cpu_pod_scores_zero():
    assert GpuClustering().score(NodeRes(32000, (1000,)), PodRes(1000)) == 0


@pytest.mark.parametrize("left, pod, expected", [
    ((1000,) * 8, SHARE, 33 - 8),             # all free: 100/3 - 8 free GPUs
    ((1000, 1000), SHARE, 33 - 2),
    ((1000, 600), SHARE, 100 - 60 // 10),     # a shared GPU: 600 * 100 // 1000 = 60 -> 94
    ((1000, 400), SHARE, 50 - 1),             # 400 too small: a free GPU of a used node
    ((1000, 1000, 1000, 0), WHOLE2, 50 - 2),
    ((0,) * 7 + (1000,), PodRes(1000, 1000, 1), 50 - 1),   # seven GPUs used: the free one of a used node
])
def test_gpu_packing(left, pod, expected):
    assert GpuPacking().score(NodeRes(64000, left), pod) == expected


def test_gpu_packing_cpu_pod_scores_zero():
    assert GpuPacking().score(NodeRes(64000, (1000,)), PodRes(1000)) == 0


def test_best_fit_and_its_normalisation():
    # left after: cpu (64000-16000)/128000*0.5 = 0.1875, gpu (2000-2000)/8000*0.5 = 0 -> (1-0.1875)*100 = 81
    assert BestFit().score(NodeRes(64000, (1000, 1000)), WHOLE2) == 81
    # (96000-16000)/128000*0.5 = 0.3125, (8000-2000)/8000*0.5 = 0.375 -> 31.25 -> 31
    assert BestFit().score(NodeRes(96000, (1000,) * 8), WHOLE2) == 31
    assert BestFit().normalize([81, 31, 56]) == [100, 0, 50]
    assert BestFit().normalize([7, 7]) == [0, 0]
    with pytest.raises(ValueError):
        BestFit().score(NodeRes(8000, (1000,)), WHOLE2)


def test_fgd_by_hand():
    typical = [TypicalPod(PodRes(4000, 500, 1), 0.5), TypicalPod(PodRes(8000, 1000, 1), 0.5)]
    fgd = FGD(typical)
    # fragment now: the whole-GPU pod sees the 500 left on GPU 1 as fragment: 0.5 * 500 = 250
    node = NodeRes(32000, (1000, 500), "T4")
    # on GPU 0: (500, 500): whole pod sees 1000 fragment (500), share pod none -> 250 - 500 = -250
    # on GPU 1: (1000, 0): no fragment -> 250 - 0 = +250; sigmoid(0.25) * 100 = 56.2 -> 56, GPU 1
    assert fgd.score_and_gpus(node, SHARE) == (56, (1,))
    # a whole GPU on GPU 0: (0, 500) keeps 250 of fragment, nothing changes: sigmoid(0) = 50
    assert fgd.score_and_gpus(node, PodRes(8000, 1000, 1)) == (50, (0,))


def test_random_draws_gpus_and_has_no_node_score():
    with pytest.raises(TypeError):
        Random().score(NodeRes(1, (1000,)), SHARE)
    assert Random.random and not BestFit.random


def test_every_policy_by_name_cites_its_simulator_file():
    for name in POLICIES:
        policy = make_policy(name, [TypicalPod(SHARE, 1.0)])
        assert policy.name == name and policy.source.startswith("hkust-adsl/kubernetes-scheduler-simulator pkg/")
    with pytest.raises(ValueError, match="FGD needs the typical pods"):
        make_policy("FGD")
    with pytest.raises(ValueError, match="unknown policy"):
        make_policy("Tetris")


def _rows(name):
    import json
    from pathlib import Path

    return json.loads((Path(__file__).parent / name).read_text())


@pytest.mark.parametrize("row", _rows("gpu_packing_score.json"), ids=lambda r: r["source"].rsplit(" :: ", 1)[1])
def test_gpu_packing_upstream_table(row):
    """The simulator's own test table (ported as data), including its unchanged GPU list after scoring."""
    n, p = row["node"], row["pod"]
    node = NodeRes(n["milliCpuLeft"], tuple(n["milliGpuLeftList"]), n["gpuType"], n["milliCpuCapacity"])
    assert GpuPacking().score(node, PodRes(p["milliCpu"], p["milliGpu"], p["gpuNumber"], p["gpuType"])) == row["score"]
    assert node.gpu_left == tuple(n["milliGpuLeftList"])
