"""GPU sharing and the six FGD-paper policies as kschedlab plugins, written through the public
plugin API only (:class:`~kschedlab.framework.interface.Plugin`, per-node ``filter`` / ``score``,
``reserve`` / ``unreserve``, ``events_to_register``), the way a researcher outside the project would.

The GPU accounting follows the paper's fork (``pkg/simulator/plugin/open_gpu_share.go``, the
``alibabacloud.com/*`` names of ``pkg/type/open-gpu-share/utils/const.go``):

- a node has ``alibabacloud.com/gpu-count`` GPUs in its allocatable and its model in the
  ``alibabacloud.com/gpu-card-model`` label;
- a pod asks with annotations: ``alibabacloud.com/gpu-milli`` (thousandths of each GPU),
  ``alibabacloud.com/gpu-count`` and optionally ``alibabacloud.com/gpu-card-model`` (``|``-joined);
- Reserve writes the GPU devices the pod got to ``alibabacloud.com/gpu-index`` (``"0-3"``) and
  Unreserve removes it; a node's free share is what its pods' indexes leave, so a pod that leaves
  the node frees its GPUs.

:data:`REGISTRY` is the out-of-tree registry to hand to :class:`~kschedlab.scheduler.Scheduler`;
:func:`profile` writes the experiment's profile (only the policy scores).

>>> sorted(REGISTRY)[:3], profile("FGD")["plugins"]["score"]["enabled"]
(['BestFitScore', 'DotProductScore', 'FGDScore'], [{'name': 'FGDScore', 'weight': 1000}])
"""

from __future__ import annotations

import random
from collections import Counter

import numpy as np

from kschedlab.framework.events import ASSIGNED_POD, NODE, QUEUE, SKIP, ActionType, ClusterEvent, HintError, as_objects
from kschedlab.framework.interface import ArgsError, FieldError, Plugin
from kschedlab.framework.status import Code, Status
from kschedlab.research.fgd.model import MILLI, NodeRes, PodRes, TypicalPod, accessible, affinity_tag, can_host
from kschedlab.research.fgd.policies import FGD, BestFit, DotProduct, GpuClustering, GpuPacking, Policy, Random

__all__ = ["GPU_MILLI", "GPU_COUNT", "GPU_MODEL", "GPU_INDEX", "OpenGpuShare", "PolicyScore", "RandomScore",
           "DotProductScore", "GpuClusteringScore", "GpuPackingScore", "BestFitScore", "FGDScore", "REGISTRY",
           "SCORE_PLUGIN", "profile", "pod_request", "node_state", "typical_args"]

GPU_MILLI = "alibabacloud.com/gpu-milli"
GPU_COUNT = "alibabacloud.com/gpu-count"
GPU_MODEL = "alibabacloud.com/gpu-card-model"
GPU_INDEX = "alibabacloud.com/gpu-index"


def pod_request(pod, cpu_milli: int) -> PodRes:
    """The pod's request as the simulator reads it (``GetPodResource``) from its annotations."""
    ann = pod.metadata.annotations or {}
    number = int(ann.get(GPU_COUNT, 0) or 0)
    return PodRes(cpu_milli, int(ann.get(GPU_MILLI, 0) or 0) if number else 0, number, ann.get(GPU_MODEL, ""))


def _cpu(pod_info) -> int:
    return int(pod_info.requests.get("cpu", 0)) or 100


def node_state(node_info, skip: str | None = None) -> NodeRes:
    """A node's free CPU, GPU shares and affinity counts from its pods (``skip``: a pod key left out,
    the pod being reserved, which the fork's cycle snapshot does not hold yet)."""
    node = node_info.node
    count = int(str((node.status.allocatable or {}).get(GPU_COUNT, 0)))
    left = [MILLI] * count
    cpu = int(node_info.allocatable.get("cpu", 0))
    affinity: Counter[str] = Counter()
    for info in node_info.pods:
        if info.key == skip:
            continue
        cpu -= int(info.requests.get("cpu", 0))
        pod = info.pod
        ann = pod.metadata.annotations or {}
        index = ann.get(GPU_INDEX)
        if index:
            milli = int(ann.get(GPU_MILLI, 0))
            for dev in index.split("-"):
                left[int(dev)] -= milli
        tag = affinity_tag(pod_request(pod, 0))
        if tag is not None:
            affinity[tag] += 1
    return NodeRes(cpu, tuple(left), (node.metadata.labels or {}).get(GPU_MODEL, ""),
                   int(node_info.allocatable.get("cpu", 0)), tuple(sorted(affinity.items())))


def typical_args(typical: list[TypicalPod]) -> list[dict]:
    """The typical pods as plugin args (``typicalPods``)."""
    return [{"milliCpu": t.res.milli_cpu, "milliGpu": t.res.milli_gpu, "gpuNumber": t.res.gpu_number,
             "gpuType": t.res.gpu_type, "freq": t.freq} for t in typical]


def _typical(raw: list | None, plugin: str) -> list[TypicalPod]:
    out = []
    for i, item in enumerate(raw or []):
        try:
            out.append(TypicalPod(PodRes(int(item["milliCpu"]), int(item["milliGpu"]), int(item["gpuNumber"]),
                                         str(item.get("gpuType", ""))), float(item["freq"])))
        except (KeyError, TypeError, ValueError) as err:
            raise ArgsError(plugin, [FieldError("FieldValueInvalid", f"typicalPods[{i}]", str(err))]) from None
    return out


class OpenGpuShare(Plugin):
    """Filter: the node has the GPU model and the free shares the pod asks for. Reserve: picks the
    GPU(s) (args ``gpuSelMethod``: ``best``, ``random`` or ``FGD`` with ``typicalPods``) and records them
    on the pod; Unreserve forgets them."""

    name = "OpenGpuShare"

    def __init__(self, args=None, handle=None):
        super().__init__(args, handle)
        self.rng = random.Random(0)   # the Scheduler reseeds it
        method, typical = args or ("best", [])
        self.method = method
        self.fgd = FGD(typical) if method == "FGD" else None

    @classmethod
    def parse_args(cls, raw, handle=None):
        raw = dict(raw or {})
        method = raw.pop("gpuSelMethod", "best")
        typical = _typical(raw.pop("typicalPods", None), cls.name)
        if raw:
            raise ArgsError(cls.name, [FieldError("FieldValueInvalid", f"args.{k}", "unknown field") for k in raw])
        if method not in ("best", "random", "FGD"):
            raise ArgsError(cls.name, [FieldError("FieldValueNotSupported", "args.gpuSelMethod",
                                                  f'Unsupported value: "{method}": supported values: '
                                                  f'"best", "random", "FGD"')])
        if method == "FGD" and not typical:
            raise ArgsError(cls.name, [FieldError("FieldValueRequired", "args.typicalPods", "Required value")])
        return method, typical

    def filter(self, state, pod_info, node_info):
        pod = pod_request(pod_info.pod, _cpu(pod_info))
        if pod.milli_gpu <= 0:
            return Status()
        unschedulable = Status(Code.Unschedulable, (f"Node:{node_info.name}",))
        node = node_state(node_info)
        if node.gpu_number == 0 or not accessible(node.gpu_type, pod.gpu_type) or not can_host(node, pod):
            return unschedulable
        return Status()

    def gpus(self, node: NodeRes, pod: PodRes) -> tuple[int, ...]:
        """The GPU devices the pod gets on the node (``allocateGpuId``)."""
        if self.fgd is not None:
            return self.fgd.select_gpus(node, pod, None)
        if self.method == "random":
            return Random().select_gpus(node, pod, self.rng) if pod.gpu_number else ()
        return Policy().select_gpus(node, pod, None)

    def reserve(self, state, pod_info, node_name):
        pod = pod_request(pod_info.pod, _cpu(pod_info))
        if pod.milli_gpu <= 0:
            return Status()
        snapshot = self.handle.cluster.snapshot
        node = node_state(snapshot.node_info(node_name), skip=pod_info.key)
        got = self.gpus(node, pod)
        if len(got) != pod.gpu_number:
            return Status(Code.Error, (f"failed to allocate gpu to pod({pod_info.key}) to node({node_name})",))
        pod_info.pod.metadata.annotations[GPU_INDEX] = "-".join(str(g) for g in got)
        return Status()

    def unreserve(self, state, pod_info, node_name):
        (pod_info.pod.metadata.annotations or {}).pop(GPU_INDEX, None)

    def events_to_register(self):
        """A bound pod with GPUs deleted frees shares; a node added or its GPUs / model changed."""
        return [(ClusterEvent(ASSIGNED_POD, ActionType.Delete), gpus_freed),
                (ClusterEvent(NODE, ActionType.Add | ActionType.UpdateNodeAllocatable | ActionType.UpdateNodeLabel),
                 None)]


def gpus_freed(pod_info, old_obj, new_obj):
    """Queue when the deleted pod held GPU shares (its ``gpu-index`` annotation) and the waiting pod
    asks for GPUs."""
    deleted, _ = as_objects(old_obj, new_obj, "Pod")
    if deleted is None:
        raise HintError("expected a deleted *v1.Pod")
    if not (deleted.metadata.annotations or {}).get(GPU_INDEX):
        return SKIP
    return QUEUE if pod_request(pod_info.pod, 0).milli_gpu > 0 else SKIP


class PolicyScore(Plugin):
    """A Score plugin of one of the paper's policies, per node."""

    policy_class: type = Policy

    def __init__(self, args=None, handle=None):
        super().__init__(args, handle)
        self.policy = self.policy_class(args) if self.policy_class is FGD else self.policy_class()

    def score(self, state, pod_info, node_info):
        pod = pod_request(pod_info.pod, _cpu(pod_info))
        return self.policy.score(node_state(node_info), pod), Status()


class RandomScore(PolicyScore):
    """``random_score.go``: PreScore draws one of the feasible nodes; it alone scores 100."""

    name = "RandomScore"
    policy_class = Random

    def __init__(self, args=None, handle=None):
        super().__init__(args, handle)
        self.rng = random.Random(0)   # the Scheduler reseeds it

    def pre_score(self, state, pod_info, snapshot, rows):
        state[self.name] = snapshot.names[int(rows[self.rng.randrange(len(rows))])]
        return Status()

    def score_nodes(self, state, pod_info, snapshot, rows):
        chosen = state[self.name]
        return np.array([100 if snapshot.names[int(r)] == chosen else 0 for r in rows], np.int64)


class DotProductScore(PolicyScore):
    name = "DotProductScore"
    policy_class = DotProduct


class GpuClusteringScore(PolicyScore):
    name = "GpuClusteringScore"
    policy_class = GpuClustering


class GpuPackingScore(PolicyScore):
    name = "GpuPackingScore"
    policy_class = GpuPacking


class BestFitScore(PolicyScore):
    name = "BestFitScore"
    policy_class = BestFit

    def normalize_score(self, state, pod_info, scores):
        scores[:] = self.policy.normalize(scores.tolist())
        return Status()


class FGDScore(PolicyScore):
    """``fgd_score.go``; args ``typicalPods``."""

    name = "FGDScore"
    policy_class = FGD

    @classmethod
    def parse_args(cls, raw, handle=None):
        raw = dict(raw or {})
        typical = _typical(raw.pop("typicalPods", None), cls.name)
        if raw or not typical:
            raise ArgsError(cls.name, [FieldError("FieldValueRequired", "args.typicalPods", "Required value")])
        return typical


REGISTRY = {cls.name: cls for cls in (OpenGpuShare, RandomScore, DotProductScore, GpuClusteringScore,
                                      GpuPackingScore, BestFitScore, FGDScore)}
#: policy name -> its Score plugin
SCORE_PLUGIN = {"Random": "RandomScore", "DotProduct": "DotProductScore", "GpuClustering": "GpuClusteringScore",
                "GpuPacking": "GpuPackingScore", "BestFit": "BestFitScore", "FGD": "FGDScore"}
#: the Score plugins kschedlab enables by default, all off in the experiment
IN_TREE_SCORES = ("TaintToleration", "NodeAffinity", "NodeResourcesFit", "NodeResourcesBalancedAllocation",
                  "ImageLocality", "InterPodAffinity", "PodTopologySpread", "DynamicResources")


def profile(policy: str, typical: list[TypicalPod] | None = None) -> dict:
    """The experiment's profile: OpenGpuShare at Filter and Reserve, the policy's Score plugin alone
    (weight 1000, as the paper's run scripts), the in-tree scores off; the GPU choice as the run
    scripts configure it (Random draws, FGD by its score, the others best fit)."""
    name = SCORE_PLUGIN[policy]
    method = {"Random": "random", "FGD": "FGD"}.get(policy, "best")
    config = []
    share_args: dict = {"gpuSelMethod": method}
    if policy == "FGD":
        share_args["typicalPods"] = typical_args(typical or [])
        config.append({"name": name, "args": {"typicalPods": typical_args(typical or [])}})
    config.append({"name": OpenGpuShare.name, "args": share_args})
    points = {"filter": {"enabled": [{"name": OpenGpuShare.name}]},
              "reserve": {"enabled": [{"name": OpenGpuShare.name}]},
              "score": {"disabled": [{"name": n} for n in IN_TREE_SCORES], "enabled": [{"name": name, "weight": 1000}]}}
    if policy == "Random":
        points["preScore"] = {"enabled": [{"name": name}]}
    return {"schedulerName": "default-scheduler", "plugins": points, "pluginConfig": config}
