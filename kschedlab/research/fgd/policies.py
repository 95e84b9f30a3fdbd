"""The six placement policies of the FGD paper, each as its simulator scores a node for a pod.

A policy gives a node an integer score in [0, 100] (:meth:`Policy.score`), may rescale the
scores of the feasible nodes (:meth:`Policy.normalize`, BestFit only), and chooses the GPU
device(s) the pod gets on the chosen node at Reserve (:meth:`Policy.select_gpus`). The policies
follow ``hkust-adsl/kubernetes-scheduler-simulator``, ``pkg/simulator/plugin/``: one file each, named
in the class's ``source``; the GPU selection is the one the paper's run scripts configure
(``experiments/run_scripts/generate_run_scripts.py``, ``scripts/generate_config_and_run.py``):
Random draws a GPU, FGD chooses by its own score, the others take the best-fit GPU.

>>> from kschedlab.research.fgd.model import NodeRes, PodRes, TypicalPod
>>> empty, used = NodeRes(96000, (1000,) * 8, "T4"), NodeRes(90000, (1000,) * 7 + (500,), "T4")
>>> pod = PodRes(4000, 500, 1)
>>> GpuPacking().score(empty, pod), GpuPacking().score(used, pod)      # the half-used GPU wins
(25, 95)
>>> typ = [TypicalPod(PodRes(4000, 500, 1), 0.5), TypicalPod(PodRes(8000, 1000, 1), 0.5)]
>>> fgd = FGD(typ)
>>> fgd.score(empty, pod), fgd.score(used, pod), fgd.select_gpus(used, pod, None)
(43, 56, (7,))
"""

from __future__ import annotations

import numpy as np

from kschedlab.research.fgd.model import (
    MAX_SPEC_CPU,
    MAX_SPEC_GPU,
    MILLI,
    NodeRes,
    PodRes,
    TypicalPod,
    access_rows,
    affinity_tag,
    ascending,
    best_fit_gpu,
    frag_scores,
    gpu_matrix,
    random_fit_gpu,
    sigmoid,
)

__all__ = ["Policy", "Random", "DotProduct", "GpuClustering", "GpuPacking", "BestFit", "FGD", "POLICIES",
           "make_policy", "MAX_NODE_SCORE", "MIN_NODE_SCORE"]

MAX_NODE_SCORE = 100
MIN_NODE_SCORE = 0

SIMULATOR = "hkust-adsl/kubernetes-scheduler-simulator"


class Policy:
    """A placement policy: integer node scores, optional normalisation, GPU choice at Reserve."""

    name = ""
    #: the simulator file the arithmetic follows
    source = ""
    #: the score is one random feasible node at 100 (drawn per pod), not a function of the node
    random = False

    def score(self, node: NodeRes, pod: PodRes) -> int:
        raise NotImplementedError

    def normalize(self, scores: list[int]) -> list[int]:
        """Scores of the feasible nodes after NormalizeScore (unchanged unless overridden)."""
        return scores

    def select_gpus(self, node: NodeRes, pod: PodRes, rng) -> tuple[int, ...]:
        """The GPU indexes the pod takes on the chosen node (empty for a CPU pod)."""
        if pod.gpu_number == 0:
            return ()
        return best_fit_gpu(node, pod)


class Random(Policy):
    """``random_score.go``: PreScore draws one of the feasible nodes, which alone scores 100; the
    GPU is drawn among those that fit (``-gpusel random``)."""

    name = "Random"
    source = f"{SIMULATOR} pkg/simulator/plugin/random_score.go"
    random = True

    def score(self, node: NodeRes, pod: PodRes) -> int:
        raise TypeError("Random scores by a draw over the feasible nodes, not per node")

    def select_gpus(self, node, pod, rng):
        if pod.gpu_number == 0:
            return ()
        return random_fit_gpu(node, pod, rng)


class DotProduct(Policy):
    """``dot_product_score.go`` with ``-dimext merge -norm max`` (Tetris): the dot product of the
    node's free (CPU, all GPUs) and the pod's request, each over the largest node's size, halved;
    the smaller the product, the higher the score.

    >>> DotProduct().score(NodeRes(64000, (1000, 1000)), PodRes(8000, 1000, 1))
    96
    """

    name = "DotProduct"
    source = f"{SIMULATOR} pkg/simulator/plugin/dot_product_score.go"

    def score(self, node, pod):
        if node.cpu_left < pod.milli_cpu:
            return MIN_NODE_SCORE
        free = (float(node.cpu_left) / MAX_SPEC_CPU, float(node.total_gpu_left) / MAX_SPEC_GPU)
        want = (float(pod.milli_cpu) / MAX_SPEC_CPU, float(pod.total_milli_gpu) / MAX_SPEC_GPU)
        dot = 0.0
        for a, b in zip(free, want):
            dot += a * b
        dot /= 2.0
        return int(float(MAX_NODE_SCORE) * (1 - dot))


class GpuClustering(Policy):
    """``gpu_clustering_score.go``: GPU pods go where pods of the same kind (sharing, 1-GPU,
    2-GPU ...) already are, and among those to the fuller node; CPU pods score 0 everywhere.

    >>> GpuClustering().score(NodeRes(64000, (1000, 500), affinity=(("share-gpu", 1),)), PodRes(4000, 200, 1))
    95
    """

    name = "GpuClustering"
    source = f"{SIMULATOR} pkg/simulator/plugin/gpu_clustering_score.go"

    def score(self, node, pod):
        tag = affinity_tag(pod)
        if tag is None:
            return MIN_NODE_SCORE
        aff = dict(node.affinity)
        fill = MAX_NODE_SCORE // 4 * (MAX_SPEC_GPU - node.total_gpu_left) // MAX_SPEC_GPU
        if aff.get(tag, 0) > 0:
            return fill + (MAX_NODE_SCORE * 3 // 4 if len(aff) == 1 else MAX_NODE_SCORE * 2 // 4)
        return fill + (MAX_NODE_SCORE // 4 if not aff else 0)


class GpuPacking(Policy):
    """``gpu_packing_score.go``: first GPUs already shared (the less free the better), then free
    GPUs of a used node, last a node with every GPU free; CPU pods score 0 everywhere."""

    name = "GpuPacking"
    source = f"{SIMULATOR} pkg/simulator/plugin/gpu_packing_score.go"

    def score(self, node, pod):
        if pod.milli_gpu <= 0:
            return MIN_NODE_SCORE
        free = node.fully_free
        if free == node.gpu_number:
            return max(MAX_NODE_SCORE // 3 - free, free)
        need, free_used, used = pod.gpu_number, 0, []
        for i in ascending(node.gpu_left):
            if need == 0:
                break
            left = node.gpu_left[i]
            if pod.milli_gpu <= left:
                need -= 1
                used.append(i)
                if left == MILLI:
                    free_used += 1
        if need != 0:
            raise ValueError(f"failed to allocate gpu resource to pod {pod} on node {node}")
        if free_used > 0:
            return max(MAX_NODE_SCORE // 2 - free_used, MAX_NODE_SCORE // 3)
        ratio = sum(node.gpu_left[i] * 100 // MILLI for i in used)
        return max(MAX_NODE_SCORE - ratio // 10, MAX_NODE_SCORE // 2)


class BestFit(Policy):
    """``best_fit_score.go``: half the CPU and half the GPUs the node would have left, each over
    the largest node's size; less left, higher score; then min-max normalised over the feasible
    nodes (``plugin_utils.go`` ``NormalizeScore``).

    >>> BestFit().normalize([10, 20, 30, 31])
    [0, 47, 95, 100]
    """

    name = "BestFit"
    source = f"{SIMULATOR} pkg/simulator/plugin/best_fit_score.go"

    def score(self, node, pod):
        free = (float(node.cpu_left), float(node.total_gpu_left))
        want = (float(pod.milli_cpu), float(pod.total_milli_gpu))
        spec = (float(MAX_SPEC_CPU), float(MAX_SPEC_GPU))
        left = 0.0
        for f, r, m in zip(free, want, spec):
            if f < r:
                raise ValueError(f"free resource not enough: node {node}, pod {pod}")
            left += (f - r) / m * 0.5
        return int((1.0 - left) * float(MAX_NODE_SCORE))

    def normalize(self, scores):
        if not scores:
            return scores
        high, low = max(scores), min(scores)
        span = high - low
        if span == 0:
            return [MIN_NODE_SCORE] * len(scores)
        return [(s - low) * (MAX_NODE_SCORE - MIN_NODE_SCORE) // span + MIN_NODE_SCORE for s in scores]


class FGD(Policy):
    """``fgd_score.go``: the decrease of the node's expected GPU fragment (over the typical pods)
    the placement causes, through a sigmoid; a sharing pod tries every GPU that fits and keeps the
    best (first index among equals), which is also the GPU it gets at Reserve."""

    name = "FGD"
    source = f"{SIMULATOR} pkg/simulator/plugin/fgd_score.go"

    def __init__(self, typical: list[TypicalPod]):
        self.typical = typical

    def score_states(self, cpu_left: np.ndarray, gpu_left: np.ndarray, access: np.ndarray, before: np.ndarray,
                     pod: PodRes) -> tuple[np.ndarray, list[tuple[int, ...]]]:
        """Scores and GPU choices for K node states at once (arrays as in
        :func:`~kschedlab.research.fgd.model.frag_scores`; ``before``: their fragment now)."""
        k = len(cpu_left)
        if pod.is_share:
            fits = gpu_left >= pod.milli_gpu
            kk, gg = np.nonzero(fits)
            after_left = gpu_left[kk].copy()
            after_left[np.arange(len(kk)), gg] -= pod.milli_gpu
            after = frag_scores(cpu_left[kk] - pod.milli_cpu, after_left, access[kk], self.typical)
            values = np.full(fits.shape, -1, np.int64)
            values[kk, gg] = (sigmoid((before[kk] - after) / 1000) * float(MAX_NODE_SCORE)).astype(np.int64)
            best = values.max(axis=1) if fits.shape[1] else np.full(k, -1, np.int64)
            gpu = values.argmax(axis=1) if fits.shape[1] else np.zeros(k, np.int64)
            gpus = [(int(g),) if b >= 0 else () for b, g in zip(best.tolist(), gpu.tolist())]
            return np.maximum(best, MIN_NODE_SCORE), gpus
        after_left = gpu_left.copy()
        take = np.zeros(gpu_left.shape, bool)
        if pod.gpu_number:
            free = gpu_left >= pod.milli_gpu
            take = free & (np.cumsum(free, axis=1) <= pod.gpu_number)
            after_left[take] -= pod.milli_gpu
        after = frag_scores(cpu_left - pod.milli_cpu, after_left, access, self.typical)
        scores = (sigmoid((before - after) / 1000) * float(MAX_NODE_SCORE)).astype(np.int64)
        return scores, [tuple(np.flatnonzero(row).tolist()) for row in take]

    def score_and_gpus(self, node: NodeRes, pod: PodRes) -> tuple[int, tuple[int, ...]]:
        cpu = np.array([node.cpu_left])
        left = gpu_matrix([node.gpu_left], max(1, node.gpu_number))
        access = access_rows([node.gpu_type], self.typical)
        before = frag_scores(cpu, left, access, self.typical)
        scores, gpus = self.score_states(cpu, left, access, before, pod)
        return int(scores[0]), gpus[0]

    def score(self, node, pod):
        return self.score_and_gpus(node, pod)[0]

    def select_gpus(self, node, pod, rng):
        return self.score_and_gpus(node, pod)[1]


#: the policies in the paper's order
POLICIES = ("Random", "DotProduct", "GpuClustering", "GpuPacking", "BestFit", "FGD")


def make_policy(name: str, typical: list[TypicalPod] | None = None) -> Policy:
    """A policy by its name (``FGD`` needs the typical pods).

    >>> make_policy("BestFit").source.endswith("best_fit_score.go")
    True
    """
    classes = {c.name: c for c in (Random, DotProduct, GpuClustering, GpuPacking, BestFit)}
    if name == "FGD":
        if typical is None:
            raise ValueError("FGD needs the typical pods")
        return FGD(typical)
    if name not in classes:
        raise ValueError(f"unknown policy {name!r}; one of {', '.join(POLICIES)}")
    return classes[name]()
