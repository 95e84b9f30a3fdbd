"""The FGD paper's GPU-sharing model on hand-worked nodes: fragment classes, the expected fragment,
typical pods, Sub and the GPU chosen at Reserve."""

from __future__ import annotations

import random

import numpy as np
import pytest

from kschedlab.research.fgd.model import (
    NO_ACCESS,
    Q1_LACK_BOTH,
    Q2_LACK_GPU,
    Q3_SATISFIED,
    Q4_LACK_CPU,
    XL_SATISFIED,
    XR_LACK_CPU,
    NodeRes,
    PodRes,
    TypicalPod,
    access_rows,
    accessible,
    best_fit_gpu,
    exclusive_gpus,
    frag_amount,
    frag_score,
    frag_scores,
    frag_type,
    gpu_matrix,
    random_fit_gpu,
    sub,
    typical_pods,
)

NODE = NodeRes(cpu_left=10000, gpu_left=(1000, 700, 200, 0), gpu_type="T4")


@pytest.mark.parametrize("pod, kind", [
    (PodRes(4000), XL_SATISFIED),                        # CPU pod, CPU enough
    (PodRes(12000), XR_LACK_CPU),                        # CPU pod, CPU short
    (PodRes(4000, 500, 1, "V100M16"), NO_ACCESS),        # other model only
    (PodRes(4000, 500, 1, "V100M16|T4"), Q3_SATISFIED),  # a GPU with 500 left (0 and 1) and CPU
    (PodRes(12000, 500, 1), Q4_LACK_CPU),                # GPU fits, CPU short
    (PodRes(4000, 1000, 2), Q2_LACK_GPU),                # only one whole GPU
    (PodRes(12000, 1000, 2), Q1_LACK_BOTH),
])
def test_fragment_class(pod, kind):
    assert frag_type(NODE, pod) == kind


def test_expected_fragment_by_hand():
    typical = [TypicalPod(PodRes(4000, 500, 1), 0.5),    # Q3: GPUs under 500 are fragment: 200 + 0
               TypicalPod(PodRes(4000, 1000, 2), 0.25),  # Q2: all 1900 free is fragment
               TypicalPod(PodRes(2000), 0.25)]           # XL: counted as fragment too (all but Q3 count)
    data = frag_amount(NODE, typical)
    assert data[Q2_LACK_GPU] == 0.5 * 200 + 0.25 * 1900
    assert data[Q3_SATISFIED] == 0.5 * 1700
    assert data[XL_SATISFIED] == 0.25 * 1900
    assert frag_score(NODE, typical) == 100 + 475 + 475


def test_vectorized_fragment_equals_the_reference_bit_for_bit():
    rng = random.Random(7)
    models = ["T4", "G2", "P100", ""]
    typical = [TypicalPod(PodRes(rng.choice([1000, 4000, 8000, 16000]), m, n, rng.choice(["", "T4", "G2|P100"])),
                          rng.random())
               for m, n in [(0, 0), (250, 1), (500, 1), (1000, 1), (1000, 2), (1000, 4), (1000, 8), (100, 1)]]
    nodes = []
    for _ in range(300):
        count = rng.choice([1, 2, 4, 8])
        nodes.append(NodeRes(rng.randrange(0, 96001, 500), tuple(rng.choice([0, 100, 300, 500, 760, 1000])
                                                                 for _ in range(count)), rng.choice(models)))
    fast = frag_scores(np.array([n.cpu_left for n in nodes]), gpu_matrix([n.gpu_left for n in nodes]),
                       access_rows([n.gpu_type for n in nodes], typical), typical)
    for node, value in zip(nodes, fast.tolist()):
        data = frag_amount(node, typical)
        reference = 0.0
        for i in range(7):
            if i != Q3_SATISFIED:
                reference += data[i]
        assert value == reference


def test_typical_pods_cover_the_threshold_and_renormalise():
    pods = [PodRes(1000, 500, 1)] * 50 + [PodRes(2000, 1000, 1)] * 30 + [PodRes(4000)] * 15 + [PodRes(8000)] * 5
    typ = typical_pods(pods, threshold=90)
    # 50 + 30 = 80 % < 90 %, + 15 = 95 % >= 90 %: three shapes, frequencies over 95 pods
    assert [t.res for t in typ] == [PodRes(1000, 500, 1), PodRes(2000, 1000, 1), PodRes(4000)]
    assert [round(t.freq, 6) for t in typ] == [round(50 / 95, 6), round(30 / 95, 6), round(15 / 95, 6)]


def test_typical_pods_equal_counts_put_the_larger_shape_first():
    typ = typical_pods([PodRes(1000)] * 2 + [PodRes(3000)] * 2, threshold=100)
    assert [t.res.milli_cpu for t in typ] == [3000, 1000]
    assert [t.freq for t in typ] == [0.5, 0.5]   # every shape kept: the counts over all pods


def test_sub_packs_the_least_free_gpu_and_whole_gpus_in_index_order():
    node = NodeRes(16000, (1000, 600, 1000, 300))
    assert sub(node, PodRes(1000, 250, 1)).gpu_left == (1000, 600, 1000, 50)
    assert sub(node, PodRes(1000, 1000, 2)).gpu_left == (0, 600, 0, 300)
    assert sub(node, PodRes(20000)).gpu_left == node.gpu_left and sub(node, PodRes(20000)).cpu_left == 16000


def test_gpu_choice_at_reserve():
    node = NodeRes(16000, (1000, 600, 1000, 600))
    assert best_fit_gpu(node, PodRes(1000, 500, 1)) == (1,)          # least free that fits, first of equals
    assert best_fit_gpu(node, PodRes(1000, 700, 1)) == (0,)
    assert exclusive_gpus(node, PodRes(1000, 1000, 2)) == (0, 2)
    with pytest.raises(ValueError):
        exclusive_gpus(node, PodRes(1000, 1000, 3))
    draws = {random_fit_gpu(node, PodRes(1000, 500, 1), random.Random(s))[0] for s in range(40)}
    assert draws == {0, 1, 2, 3}                                      # every GPU that fits can be drawn


def test_model_access():
    assert accessible("A10", "") and accessible("A10", "|A10|") and not accessible("A10", "T4|G2")
    assert not accessible("", "T4")                                   # a CPU node for a model-bound pod


def _frag_rows():
    import json
    from pathlib import Path

    data = json.loads((Path(__file__).parent / "frag.json").read_text())
    return [(row, data["typicalPods"][row["typical"]]) for row in data["rows"]]


@pytest.mark.parametrize("row, typical", _frag_rows(), ids=lambda x: x["source"].rsplit(" :: ", 1)[1]
                         if isinstance(x, dict) else "")
def test_fragment_upstream_table(row, typical):
    """The simulator's own fragment tests (ported as data; percentages / 100 as its Go code writes them)."""
    typ = [TypicalPod(PodRes(t["milliCpu"], t["milliGpu"], t["gpuNumber"], t["gpuType"]), t["percent"] / 100)
           for t in typical]
    n = row["node"]
    node = NodeRes(n["milliCpuLeft"], tuple(n["milliGpuLeftList"]), n["gpuType"])
    assert frag_score(node, typ) == pytest.approx(row["fragment"], abs=row["delta"])
    if "class" in row:
        assert frag_type(node, typ[0].res) == Q4_LACK_CPU and node.total_gpu_left == row["gpuMilliLeftTotal"]
