"""The FGD paper's experiment: pods arrive and never leave, in a seeded shuffle of the trace,
inflated with sampled copies until they ask for 130 % of the cluster's GPUs; only the policy
scores; the allocated GPU share is read against the arrived workload.

Follows ``hkust-adsl/kubernetes-scheduler-simulator`` ``pkg/simulator/core.go`` (``Simulate``),
``pkg/simulator/simulator.go`` (``SortClusterPods`` with ``shufflePod``, ``TunePodsByNodeTotalResource``,
the ``%04d-`` node-name prefix drawn by ``rand.Perm``) and ``experiments/analysis/merge_alloc_discrete_0920.py``
(the bucketing of arrived workload). The simulator draws all of these from Go's one global
``math/rand`` stream; here the workload's draws come from ``numpy.random.default_rng(seed)`` in
the same order (shuffle, copies, node prefixes), so a seed gives a run of the same kind, not the
simulator's very run.

Tie-break (``tie_break``): ``"name"`` (the default of this experiment, as the paper's fork) takes the
smallest node name among equal best scores — the names carry the seeded random prefix, so this is
a seeded random order fixed for the run; ``"random"`` is upstream's uniform draw per pod.

>>> from kschedlab.research.fgd.openb import sample_frames
>>> nodes, pods = sample_frames(seed=1, nodes=12, pods=80)
>>> result = run(nodes, pods, "FGD", seed=42)
>>> result.policy, result.pods > 80, 0 <= result.unallocated_at(100) <= 100
('FGD', True, True)
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from kschedlab.research.fgd.engine import Engine, EngineNode
from kschedlab.research.fgd.model import MILLI, PodRes, typical_pods
from kschedlab.research.fgd.openb import pod_res
from kschedlab.research.fgd.policies import make_policy

__all__ = ["Workload", "prepare", "inflate", "run", "Result", "bucket", "DEFAULT_INFLATE", "POD_SLOTS",
           "DEFAULT_SEEDS", "PAPER_TABLE", "record_fragmentation"]

#: the paper's workload: 130 % of the cluster's GPUs
DEFAULT_INFLATE = 1.3
#: pods a node may hold (the kubelet's default ``maxPods``)
POD_SLOTS = 110
#: the paper's run scripts: ten seeds from 42
DEFAULT_SEEDS = tuple(range(42, 52))
#: the paper's table (default trace, median unallocated GPU % at 100 % arrived, 10 seeds)
PAPER_TABLE = {"Random": 13.75, "DotProduct": 9.45, "GpuClustering": 8.42, "GpuPacking": 8.20,
               "BestFit": 7.09, "FGD": 4.77}


@dataclass
class Workload:
    """A prepared run: nodes (named with their seeded prefix) and pods in arrival order."""

    nodes: list[EngineNode]
    #: (name, request, memory MiB) in arrival order
    pods: list[tuple[str, PodRes, int]]
    #: the typical pods of the original trace (FGD's view of the workload)
    typical: list


def inflate(pods: list[tuple[str, PodRes, int]], workload: list[tuple[str, PodRes, int]], gpu_milli: int,
            ratio: float, rng: np.random.Generator) -> list[tuple[str, PodRes, int]]:
    """``TunePodsByNodeTotalResource``: add copies of pods drawn from the original workload until
    the next one would take the GPU requests past ``ratio`` × the cluster's GPUs (the simulator
    compares the copy's per-GPU share, not its total — so the last copy may overshoot — and stops
    at the first that does not fit);
    above the target, drop drawn pods instead. ``ratio <= 0`` keeps the pods as they are. A
    workload without GPU requests, or a cluster without GPUs, is refused (``ValueError``) as the
    simulator refuses it (it panics on ``podTotalMilliGpuReq <= 0`` / ``nodeTotalMilliGpu <= 0``):
    no number of copies would reach the target.

    >>> pods = [("a", PodRes(1000, 500, 1), 0), ("b", PodRes(1000, 1000, 2), 0)]
    >>> out = inflate(pods, pods, 4000, 1.0, np.random.default_rng(0))
    >>> [name for name, _, _ in out], sum(p.total_milli_gpu for _, p, _ in out)
    (['a', 'b', 'b-tuned-0'], 4500)
    """
    if ratio <= 0:
        return pods
    target = ratio * float(gpu_milli)
    total = sum(p.total_milli_gpu for _, p, _ in pods)
    why = ("the cluster has no GPU" if gpu_milli <= 0
           else "no pod requests a GPU" if total <= 0 or not any(p.total_milli_gpu for _, p, _ in workload) else None)
    if why is not None:
        raise ValueError(f"{why}: the workload cannot be inflated to {ratio:g} × the cluster's "
                         f"{gpu_milli // MILLI} GPUs (--inflate 0 keeps the pods as they are)")
    out = list(pods)
    if float(total) > target:
        while float(total) > target:
            idx = int(rng.integers(len(out)))
            total -= out.pop(idx)[1].total_milli_gpu
        return out
    i = 0
    while True:
        name, res, memory = workload[int(rng.integers(len(workload)))]
        if float(total + res.milli_gpu) > target:
            return out
        total += res.total_milli_gpu
        out.append((f"{name}-tuned-{i}", res, memory))
        i += 1


def prepare(nodes: pd.DataFrame, pods: pd.DataFrame, seed: int, ratio: float = DEFAULT_INFLATE) -> Workload:
    """Shuffle the pods (sorted by name first), inflate them, and give the nodes their seeded
    ``NNNN-`` name prefix, as the simulator does before it schedules."""
    rng = np.random.default_rng(seed)
    ordered = pods.sort_values("name", kind="stable")
    workload = [(str(r.name), pod_res(r), int(r.memory_mib)) for r in ordered.itertuples(index=False)]
    shuffled = [workload[i] for i in rng.permutation(len(workload))]
    gpu_milli = int(nodes.gpu.sum()) * MILLI
    arriving = inflate(shuffled, workload, gpu_milli, ratio, rng)
    sorted_nodes = nodes.sort_values("sn", kind="stable")
    perm = rng.permutation(len(sorted_nodes))
    engine_nodes = [EngineNode(f"{int(p):04d}-{r.sn}", int(r.cpu_milli), int(r.memory_mib), POD_SLOTS,
                               (MILLI,) * int(r.gpu), str(r.model or ""))
                    for p, r in zip(perm.tolist(), sorted_nodes.itertuples(index=False))]
    return Workload(engine_nodes, arriving, typical_pods(res for _, res, _ in workload))


@dataclass
class Result:
    """One run: per pod, the arrived and the allocated GPU thousandths; the failed pods."""

    policy: str
    seed: int
    tie_break: str
    gpus: int
    arrived: np.ndarray
    used: np.ndarray
    failed: int
    seconds: float
    #: arrived % (integer) -> the cluster's expected GPU fragment, % of capacity, when first reached
    fragmentation: dict[int, float] = field(default_factory=dict)
    #: pod name -> (node name, GPU indexes) for the placed pods
    placements: dict[str, tuple[str, tuple[int, ...]]] = field(default_factory=dict)

    @property
    def pods(self) -> int:
        return len(self.arrived)

    def allocated(self) -> dict[int, float]:
        """Arrived % -> allocated GPU % of capacity, bucketed as the paper's analysis does."""
        return bucket(self.arrived, self.used, self.gpus)

    def unallocated(self) -> dict[int, float]:
        return {k: round(100.0 - v, 2) for k, v in self.allocated().items()}

    def unallocated_at(self, arrived: int) -> float:
        return self.unallocated()[arrived]

    def as_json(self) -> dict:
        """The ``kschedlab packing -o json`` document."""
        return {"policy": self.policy, "seed": self.seed, "tieBreak": self.tie_break, "pods": self.pods,
                "gpus": self.gpus, "failed": self.failed, "seconds": round(self.seconds, 3),
                "unallocated": {str(k): v for k, v in self.unallocated().items()},
                "fragmentation": {str(k): v for k, v in self.fragmentation.items()}}


def bucket(arrived: np.ndarray, used: np.ndarray, gpus: int, top: int = 130) -> dict[int, float]:
    """``merge_alloc_discrete_0920.py``: each pod's arrived % rounded to an integer, allocated %
    to two decimals; per integer arrived % up to ``top``, the mean allocated % of its pods (of
    the pods within one point when none rounds to it), rounded to two decimals.

    >>> bucket(np.array([10, 20, 30, 50]), np.array([10, 20, 20, 20]), 1, top=5)
    {0: 1.0, 1: 1.0, 2: 2.0, 3: 2.0, 4: 2.0, 5: 2.0}
    """
    arrive = np.array([round(x) for x in (arrived / gpus / 10).tolist()], np.int64)
    alloc = np.array([round(x, 2) for x in (used / gpus / 10).tolist()], np.float64)
    out: dict[int, float] = {}
    for pct in range(0, top + 1):
        pick = arrive == pct
        if not pick.any():
            pick = (arrive >= pct - 1) & (arrive <= pct + 1)
            if not pick.any():
                continue
        out[pct] = round(float(alloc[pick].mean()), 2)
    return out


def record_fragmentation(frag: dict[int, float], reached: int, arrived_milli: int, gpus: int, measure) -> int:
    """At each integer arrived % first reached (every one a pod jumps over included), the cluster's
    expected GPU fragment as % of capacity (``measure()``: in thousandths). Returns the % reached."""
    pct = int(arrived_milli * 100 // (gpus * MILLI)) if gpus else 0
    if pct > reached:
        value = round(measure() / (gpus * 10), 2)
        for p in range(reached + 1, pct + 1):
            frag[p] = value
        return pct
    return reached


def run(nodes: pd.DataFrame, pods: pd.DataFrame, policy, seed: int, *, tie_break: str = "name",
        ratio: float = DEFAULT_INFLATE, keep_placements: bool = False) -> Result:
    """One run of the experiment on the vectorized :class:`~kschedlab.research.fgd.engine.Engine`.
    ``policy``: a name of :data:`~kschedlab.research.fgd.policies.POLICIES`, or a policy of one's own
    as a callable taking the typical pods and returning a :class:`~kschedlab.research.fgd.policies.Policy`."""
    start = time.perf_counter()
    work = prepare(nodes, pods, seed, ratio)
    chosen = make_policy(policy, work.typical) if isinstance(policy, str) else policy(work.typical)
    policy = chosen.name
    engine = Engine(work.nodes, chosen, tie_break=tie_break, seed=seed)
    gpus = engine.gpu_capacity_milli // MILLI
    arrived = np.zeros(len(work.pods), np.int64)
    used = np.zeros(len(work.pods), np.int64)
    total, failed, reached = 0, 0, -1
    frag: dict[int, float] = {}
    placements: dict[str, tuple[str, tuple[int, ...]]] = {}
    for i, (name, res, memory) in enumerate(work.pods):
        total += res.total_milli_gpu
        row, got = engine.place(res, memory)
        if row < 0:
            failed += 1
        elif keep_placements:
            placements[name] = (engine.names[row], got)
        arrived[i], used[i] = total, engine.used_milli
        reached = record_fragmentation(frag, reached, total, gpus, lambda: engine.cluster_frag(work.typical))
    return Result(policy, seed, tie_break, gpus, arrived, used, failed, time.perf_counter() - start, frag,
                  placements)
