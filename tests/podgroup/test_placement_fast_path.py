"""Pods tried inside a placement take the fused fast path (scheduler.fast_path) as pods of the whole
cluster do: the PodGroup cycles decide the same, pod for pod, with ``Scheduler(fast_path=False)``.
Random racks of uneven nodes (some cordoned, some tainted, some already loaded), gangs of mixed sizes
and requests, with and without the limit on the placements checked."""

from __future__ import annotations

import random

import pytest

from kschedlab.api.core import Namespace, Node, Pod
from kschedlab.cluster import Cluster
from kschedlab.features import FeatureGates
from kschedlab.scheduler import Scheduler
from kschedlab.scheduler_perf.gang import LABEL_RACK, TAS_GANG_POD, TAS_GATES, make_gang_pods, make_pod_groups
from tests.seeds import seeds

NS = "tas-ns-0"
GATES = {"GenericWorkload": True, "TopologyAwareWorkloadScheduling": True}


def _cluster(seed: int) -> tuple[Cluster, list[tuple[str, list[str]]]]:
    rng = random.Random(seed)
    nodes = []
    for i in range(rng.randint(30, 60)):
        spec: dict = {}
        if rng.random() < 0.1:
            spec["unschedulable"] = True
        if rng.random() < 0.1:
            spec["taints"] = [{"key": "dedicated", "value": "x", "effect": rng.choice(["NoSchedule", "PreferNoSchedule"])}]
        nodes.append(Node.model_validate({
            "metadata": {"name": f"node-{i}", "labels": {LABEL_RACK: f"rack-{rng.randint(0, 7)}"}},
            "spec": spec,
            "status": {"allocatable": {"cpu": str(rng.choice([1, 2, 4])), "memory": f"{rng.choice([2, 4, 8])}Gi",
                                       "pods": str(rng.choice([3, 8, 110]))}}}))
    cluster = Cluster(nodes)
    cluster.add(Namespace.model_validate({"metadata": {"name": NS}}))
    for i in range(rng.randint(0, 20)):  # load already placed
        pod = Pod.model_validate({"metadata": {"name": f"busy-{i}", "namespace": NS},
                                  "spec": {"nodeName": f"node-{rng.randrange(len(nodes))}",
                                           "containers": [{"name": "c", "resources": {"requests": {
                                               "cpu": f"{rng.choice([100, 300, 700])}m", "memory": "256Mi"}}}]}})
        cluster.add(pod)
    sizes = [rng.randint(2, 9) for _ in range(8)]
    for group in make_pod_groups(sizes, NS, LABEL_RACK, GATES):
        cluster.add(group)
    template = {**TAS_GANG_POD, "spec": {**TAS_GANG_POD["spec"], "containers": [
        {"name": "pause", "image": "registry.k8s.io/pause:3.10.1",
         "resources": {"requests": {"cpu": f"{rng.choice([100, 250, 500])}m", "memory": "300Mi"}}}]}}
    groups: list[tuple[str, list[str]]] = []
    pods = make_gang_pods(sizes, template, NS, GATES)
    for pod in pods:
        cluster.add(pod)
    for g in range(len(sizes)):
        groups.append((f"podgroup/{NS}/gang-{g}", [f"{NS}/{p.metadata.name}" for p in pods
                                                   if p.spec.scheduling_group.pod_group_name == f"gang-{g}"]))
    return cluster, groups


def _decisions(seed: int, fast: bool, config: dict | None) -> list:
    cluster, groups = _cluster(seed)
    sched = Scheduler(cluster, config, gates=FeatureGates(TAS_GATES), seed=seed, fast_path=fast)
    out = []
    for key, pods in groups:
        result = sched.schedule_pod_group(key, pods)
        out.append((key, result.status.code.name, result.status.message(),
                    [(r.pod, r.node, r.status.code.name, r.message) for r in result.pod_results],
                    [(s["step"], s.get("placement"), s.get("node")) for s in result.log]))
    return out


@pytest.mark.parametrize("seed", seeds(8))
@pytest.mark.parametrize("config", [None, {"percentageOfPlacementsToScore": 30}])
def test_placement_cycles_decide_alike_on_both_paths(seed, config):
    fast = _decisions(seed, True, config)
    assert fast == _decisions(seed, False, config)
    assert any(code == "Success" for _, code, *_ in fast)  # the cases place something
