"""The GPU-sharing model of the FGD paper's simulator, as plain data and integer arithmetic.

A node is a :class:`NodeRes`: CPU left (millicores), the GPUs' free share in thousandths (one
entry per GPU device, index = device index), the GPU model and the *affinity* counts of the
GPU pods on it. A pod is a :class:`PodRes`: CPU, the share of each GPU it asks for
(``milli_gpu``: < 1000 for a pod sharing ONE GPU, 1000 for whole GPUs), how many GPUs
(``gpu_number``) and the GPU models it allows (``gpu_type``, ``|``-joined, empty = any).

Follows ``hkust-adsl/kubernetes-scheduler-simulator``: ``pkg/type/resource.go`` (``PodResource``,
``NodeResource``, ``Sub``, ``AllocateExclusiveGpuId``), ``pkg/utils/utils.go``
(``IsNodeAccessibleToPodByType``, ``GetPodResource``), ``pkg/utils/frag.go`` (the fragment classes,
``NodeGpuShareFragAmount``, ``GetTypicalPods``) and ``pkg/simulator/plugin/open_gpu_share.go``
(the GPU chosen at Reserve: best fit, random fit).

>>> node = NodeRes(cpu_left=32000, gpu_left=(1000, 600), gpu_type="T4")
>>> share = PodRes(milli_cpu=4000, milli_gpu=500, gpu_number=1)
>>> can_host(node, share), sub(node, share).gpu_left          # the tightest GPU that fits
(True, (1000, 100))
>>> best_fit_gpu(node, share), exclusive_gpus(node, PodRes(8000, 1000, 1))
((1,), (0,))
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Iterable, Sequence

import numpy as np

__all__ = ["MILLI", "MAX_SPEC_CPU", "MAX_SPEC_GPU", "DEFAULT_MILLI_CPU", "PodRes", "NodeRes", "TypicalPod",
           "accessible", "can_host", "sub", "place", "exclusive_gpus", "best_fit_gpu", "random_fit_gpu",
           "affinity_tag", "frag_type", "frag_amount", "frag_score", "frag_scores", "access_rows", "typical_pods",
           "sigmoid", "gpu_matrix", "ascending",
           "Q1_LACK_BOTH", "Q2_LACK_GPU", "Q3_SATISFIED", "Q4_LACK_CPU", "XL_SATISFIED", "XR_LACK_CPU",
           "NO_ACCESS"]

#: one whole GPU in thousandths (``gpushareutils.MILLI``)
MILLI = 1000
#: the largest node the simulator normalises by (``MaxSpecCpu``, ``MaxSpecGpu``)
MAX_SPEC_CPU = 128000
MAX_SPEC_GPU = 8000
#: a container without a CPU request counts 100m (``schedulerutil.GetNonzeroRequests``)
DEFAULT_MILLI_CPU = 100

Q1_LACK_BOTH, Q2_LACK_GPU, Q3_SATISFIED, Q4_LACK_CPU, XL_SATISFIED, XR_LACK_CPU, NO_ACCESS = range(7)


@dataclass(frozen=True, order=True)
class PodRes:
    """A pod's request: CPU millicores, thousandths of each GPU, number of GPUs, allowed models."""

    milli_cpu: int
    milli_gpu: int = 0
    gpu_number: int = 0
    gpu_type: str = ""

    @property
    def total_milli_gpu(self) -> int:
        return self.milli_gpu * self.gpu_number

    @property
    def is_share(self) -> bool:
        return self.gpu_number == 1 and self.milli_gpu < MILLI


@dataclass(frozen=True)
class NodeRes:
    """A node's free resources as the simulator's plugins see them."""

    cpu_left: int
    gpu_left: tuple[int, ...] = ()
    gpu_type: str = ""
    cpu_capacity: int = 0
    #: affinity tag -> number of GPU pods on the node with it (``NodeResource.GpuAffinity``)
    affinity: tuple[tuple[str, int], ...] = field(default=())

    @property
    def gpu_number(self) -> int:
        return len(self.gpu_left)

    @property
    def total_gpu_left(self) -> int:
        return sum(self.gpu_left)

    @property
    def fully_free(self) -> int:
        return sum(1 for g in self.gpu_left if g == MILLI)


def accessible(node_type: str, pod_type: str) -> bool:
    """``IsNodeAccessibleToPodByType``: the pod allows any model, or the node's is one of its list.

    >>> accessible("T4", ""), accessible("T4", "V100M16|T4"), accessible("", "T4"), accessible("P100", "T4")
    (True, True, False, False)
    """
    if not pod_type:
        return True
    if not node_type:
        return False
    wanted = [t for t in pod_type.split("|") if t]
    return not wanted or node_type in wanted


def can_host(node: NodeRes, pod: PodRes) -> bool:
    """``CanNodeHostPodOnGpuMemory``: ``gpu_number`` GPUs each with ``milli_gpu`` free."""
    need = pod.gpu_number
    for left in node.gpu_left:
        if left >= pod.milli_gpu:
            need -= 1
            if need <= 0:
                return True
    return False


def ascending(gpu_left: Sequence[int]) -> list[int]:
    """GPU indexes, least free first, index order among equals (``SortedMilliGpuLeftIndexList(true)``)."""
    return sorted(range(len(gpu_left)), key=lambda i: gpu_left[i])


def sub(node: NodeRes, pod: PodRes) -> NodeRes:
    """``NodeResource.Sub``: the node after the pod, each GPU taken from the least free one that
    fits (the node unchanged when it cannot hold the pod, as the simulator ignores that error)."""
    if node.cpu_left < pod.milli_cpu or node.gpu_number < pod.gpu_number:
        return node
    if pod.gpu_number == 0:
        return replace(node, cpu_left=node.cpu_left - pod.milli_cpu)
    left = list(node.gpu_left)
    need = pod.gpu_number
    for i in ascending(node.gpu_left):
        if pod.milli_gpu <= left[i]:
            need -= 1
            left[i] -= pod.milli_gpu
            if need <= 0:
                break
    return replace(node, cpu_left=node.cpu_left - pod.milli_cpu, gpu_left=tuple(left))


def place(node: NodeRes, pod: PodRes, gpus: Iterable[int]) -> NodeRes:
    """The node after the pod took ``milli_gpu`` on each of ``gpus`` (the GPUs chosen at Reserve)."""
    left = list(node.gpu_left)
    for i in gpus:
        left[i] -= pod.milli_gpu
    aff = Counter(dict(node.affinity))
    tag = affinity_tag(pod)
    if tag is not None:
        aff[tag] += 1
    return replace(node, cpu_left=node.cpu_left - pod.milli_cpu, gpu_left=tuple(left),
                   affinity=tuple(sorted(aff.items())))


def exclusive_gpus(node: NodeRes, pod: PodRes) -> tuple[int, ...]:
    """``AllocateExclusiveGpuId``: the first wholly free GPUs by index, as many as the pod asks."""
    out = []
    need = pod.total_milli_gpu
    for i, left in enumerate(node.gpu_left):
        if need <= 0:
            break
        if left == MILLI:
            out.append(i)
            need -= MILLI
    if need > 0:
        raise ValueError("there is no enough exclusive gpu to serve pod")
    return tuple(out)


def best_fit_gpu(node: NodeRes, pod: PodRes) -> tuple[int, ...]:
    """``allocateGpuIdBasedOnBestFit``: a sharing pod takes the least free GPU that fits (first
    index among equals); other GPU pods take wholly free GPUs."""
    if pod.milli_gpu < MILLI:
        best = -1
        for i, left in enumerate(node.gpu_left):
            if left >= pod.milli_gpu and (best == -1 or left < node.gpu_left[best]):
                best = i
        return (best,) if best >= 0 else ()
    return exclusive_gpus(node, pod)


def random_fit_gpu(node: NodeRes, pod: PodRes, rng) -> tuple[int, ...]:
    """``allocateGpuIdBasedOnRandomFit``: a sharing pod takes a uniformly drawn GPU among those
    that fit (reservoir sampling, one draw per fitting GPU); other GPU pods take wholly free GPUs."""
    if pod.milli_gpu < MILLI:
        chosen, seen = -1, 0
        for i, left in enumerate(node.gpu_left):
            if left >= pod.milli_gpu:
                seen += 1
                if rng.randrange(seen) == 0:
                    chosen = i
        return (chosen,) if chosen >= 0 else ()
    return exclusive_gpus(node, pod)


def affinity_tag(pod: PodRes) -> str | None:
    """``GetGpuAffinityFromPodAnnotation``: ``share-gpu``, ``<k>-gpu`` or None for a CPU pod."""
    if pod.gpu_number == 0:
        return None
    if pod.gpu_number == 1 and pod.milli_gpu < MILLI:
        return "share-gpu"
    return f"{pod.gpu_number}-gpu"


# -- fragmentation (pkg/utils/frag.go) -------------------------------------------------------

@dataclass(frozen=True)
class TypicalPod:
    """One of the pod shapes that make up the workload, with its share of the pods."""

    res: PodRes
    freq: float


def frag_type(node: NodeRes, pod: PodRes) -> int:
    """``GetNodePodFrag``: which fragment class the node's free GPUs fall in for this pod."""
    cpu_ok = node.cpu_left >= pod.milli_cpu
    if pod.milli_gpu == 0:
        return XL_SATISFIED if cpu_ok else XR_LACK_CPU
    if not accessible(node.gpu_type, pod.gpu_type):
        return NO_ACCESS
    if can_host(node, pod):
        return Q3_SATISFIED if cpu_ok else Q4_LACK_CPU
    return Q2_LACK_GPU if cpu_ok else Q1_LACK_BOTH


def frag_amount(node: NodeRes, typical: Sequence[TypicalPod]) -> list[float]:
    """``NodeGpuShareFragAmount``: the node's free GPU thousandths per fragment class, each
    typical pod weighing by its frequency; for a pod the node can hold, the GPUs too small for
    it still count as lacking GPU."""
    data = [0.0] * 7
    total = node.total_gpu_left
    for t in typical:
        kind = frag_type(node, t.res)
        if kind == Q3_SATISFIED:
            small = sum(left for left in node.gpu_left if left < t.res.milli_gpu)
            data[Q2_LACK_GPU] += t.freq * float(small)
            data[Q3_SATISFIED] += t.freq * float(total - small)
        else:
            data[kind] += t.freq * float(total)
    return data


def frag_score(node: NodeRes, typical: Sequence[TypicalPod]) -> float:
    """``NodeGpuShareFragAmountScore``: the expected fragment — every class but Q3 summed
    (one node through :func:`frag_scores`).

    >>> typ = [TypicalPod(PodRes(1000, 500, 1), 1.0)]
    >>> frag_score(NodeRes(8000, (1000, 300)), typ)    # the 300 left on GPU 1 is too small for 500
    300.0
    """
    left = gpu_matrix([node.gpu_left], max(1, node.gpu_number))
    return float(frag_scores(np.array([node.cpu_left]), left, access_rows([node.gpu_type], typical), typical)[0])


def gpu_matrix(gpu_lefts: Sequence[Sequence[int]], width: int = 8) -> np.ndarray:
    """Free GPU shares as a (nodes, width) int64 matrix, -1 where a node has no such GPU."""
    out = np.full((len(gpu_lefts), width), -1, np.int64)
    for i, left in enumerate(gpu_lefts):
        out[i, :len(left)] = left
    return out


def access_rows(models: Sequence[str], typical: Sequence[TypicalPod]) -> np.ndarray:
    """(nodes, typical pods) booleans: may the typical pod use the node's GPU model."""
    cache: dict[str, list[bool]] = {}
    rows = [cache.setdefault(m, [accessible(m, t.res.gpu_type) for t in typical]) for m in models]
    return np.array(rows, bool).reshape(len(models), len(typical))


def frag_scores(cpu_left: np.ndarray, gpu_left: np.ndarray, access: np.ndarray,
                typical: Sequence[TypicalPod]) -> np.ndarray:
    """:func:`frag_score` of many node states at once: ``cpu_left`` (K,), ``gpu_left`` (K, G) with -1
    for absent GPUs, ``access`` (K, T) from :func:`access_rows`. The float sums run in the
    simulator's order (per class over the typical pods in order, then the classes but Q3), so the
    values are the simulator's to the last bit.

    >>> typ = [TypicalPod(PodRes(1000, 500, 1), 0.5), TypicalPod(PodRes(1000, 0, 0), 0.5)]
    >>> frag_scores(np.array([8000, 500]), gpu_matrix([(1000, 300), (1000, 300)]),
    ...             access_rows(["T4", "T4"], typ), typ).tolist()
    [800.0, 1300.0]
    """
    milli = np.array([t.res.milli_gpu for t in typical], np.int64)
    number = np.array([max(t.res.gpu_number, 1) for t in typical], np.int64)
    cpu = np.array([t.res.milli_cpu for t in typical], np.int64)
    freq = np.array([t.freq for t in typical], np.float64)
    valid = gpu_left >= 0
    free = np.where(valid, gpu_left, 0)
    total = free.sum(axis=1).astype(np.float64)[:, None]                        # (K, 1)
    cpu_ok = cpu_left[:, None] >= cpu[None, :]                                   # (K, T)
    fits = gpu_left[:, :, None] >= milli[None, None, :]                          # (K, G, T)
    host = fits.sum(axis=1) >= number[None, :]
    small = np.where(valid[:, :, None] & ~fits, free[:, :, None], 0).sum(axis=1).astype(np.float64)
    kind = np.where(~access, NO_ACCESS, np.where(host, np.where(cpu_ok, Q3_SATISFIED, Q4_LACK_CPU),
                                                 np.where(cpu_ok, Q2_LACK_GPU, Q1_LACK_BOTH)))
    kind = np.where(milli[None, :] == 0, np.where(cpu_ok, XL_SATISFIED, XR_LACK_CPU), kind)
    satisfied = kind == Q3_SATISFIED
    amount = np.where(satisfied, freq[None, :] * small, freq[None, :] * total)
    slot = np.where(satisfied, Q2_LACK_GPU, kind)
    # per class, the typical pods' amounts added in order (cumsum is sequential), then the classes
    out = np.zeros(len(cpu_left), np.float64)
    for i in range(7):
        if i != Q3_SATISFIED:
            part = np.where(slot == i, amount, 0.0)
            out = out + (np.cumsum(part, axis=1)[:, -1] if part.shape[1] else 0.0)
    return out


def sigmoid(x):
    """The logistic function (numpy, so that every path computes it alike)."""
    return 1.0 / (1.0 + np.exp(-np.asarray(x, np.float64)))


def typical_pods(pods: Iterable[PodRes], threshold: int = 95, step: int = 1) -> list[TypicalPod]:
    """``GetTypicalPods`` with the paper's settings (CPU pods included, popularity threshold 95 %,
    increase step 1, no GPU weight): the most frequent pod shapes until they cover ``threshold``
    percent of the pods, frequencies renormalised over the kept shapes. Equal counts order by the
    larger shape first (CPU, GPU share, GPU number, model), as the simulator's sort does.

    >>> typ = typical_pods([PodRes(1000, 500, 1)] * 3 + [PodRes(2000, 1000, 1)] * 1, threshold=60)
    >>> [(t.res.milli_gpu, t.freq) for t in typ]
    [(500, 1.0)]
    """
    counts = Counter(pods)
    total = float(sum(counts.values()))
    ordered = sorted(counts.items(), key=lambda kv: (float(kv[1]), kv[0].milli_cpu, kv[0].milli_gpu,
                                                     kv[0].gpu_number, kv[0].gpu_type), reverse=True)
    expected = float(threshold) * total / 100.0
    cum, i, wanted = 0.0, 0, 0
    freqs: list[float] = []
    while cum < expected:
        wanted += step
        while i < wanted and i < len(ordered):
            count = float(ordered[i][1])
            cum += count
            freqs.append(count / total)
            i += 1
    if i >= len(ordered):
        return [TypicalPod(res, f) for (res, _), f in zip(ordered, freqs)]
    return [TypicalPod(ordered[j][0], freqs[j] / (cum / total)) for j in range(i)]
