"""Pods with ResourceClaims on the fused fast path (DynamicResources run by itself beside the fused
answers) against the plugin-by-plugin path, attempt by attempt, on seeded random clusters with
mutations between pods: devices taken by claims written directly, claims deleted, DeviceClasses
added or changed, node slices replaced (more, fewer or tainted devices), nodes cordoned.

Pods of many kinds: a claim from a template (one device of a class, one or two devices, with a
request selector), named claims shared by several pods, a ``firstAvailable`` claim (DynamicResources
scores), a claim of a class that does not exist, pods without claims; nodes with and without a
slice, a network-attached slice, devices with NoSchedule taints (left to the search). Every attempt
must give the same node, statuses, filter verdicts, scores, ties and trace on both paths, and the
claims the same allocations in the end.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from kschedlab.api.core import Node, Pod
from kschedlab.api.resource import DeviceClass, ResourceClaim, ResourceClaimTemplate, ResourceSlice
from kschedlab.apiserver.admission import admit
from kschedlab.cluster import Cluster
from kschedlab.dra.devices import as_dict
from kschedlab.dra.manager import dra_manager
from kschedlab.dra.resourceclaim_controller import ResourceClaimController
from kschedlab.scheduler import Scheduler
from kschedlab.scheduler.fast_path import FastPath
from tests.seeds import seeds

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fastpath"))
from test_fast_path import same_attempt  # noqa: E402

DRIVER = "gpu.example.com"
MODELS = ("a", "b")


def _device(name: str, rng: random.Random, taints: bool) -> dict:
    device: dict = {"name": name, "attributes": {"model": {"string": rng.choice(MODELS)},
                                                 "index": {"int": rng.randrange(4)}}}
    if taints and rng.random() < 0.15:
        device["taints"] = [{"key": "broken", "value": "yes", "effect": "NoSchedule"}]
    return device


def _slice(node: str, rng: random.Random, generation: int = 1, taints: bool = True) -> dict:
    return {"metadata": {"name": f"{node}-gpus"}, "spec": {
        "driver": DRIVER, "nodeName": node, "pool": {"name": node, "generation": generation, "resourceSliceCount": 1},
        "devices": [_device(f"gpu-{i}", rng, taints) for i in range(rng.randint(1, 4))]}}


def _class(name: str, expression: str) -> dict:
    return {"metadata": {"name": name}, "spec": {"selectors": [{"cel": {"expression": expression}}]}}


CLASSES = [
    _class("gpu", f'device.driver == "{DRIVER}"'),
    _class("gpu-a", f'device.driver == "{DRIVER}" && device.attributes["{DRIVER}"].model == "a"'),
]


def _request(kind: str) -> dict:
    if kind == "two":
        return {"name": "r", "exactly": {"deviceClassName": "gpu", "allocationMode": "ExactCount", "count": 2}}
    if kind == "selector":
        return {"name": "r", "exactly": {"deviceClassName": "gpu", "selectors": [{"cel": {
            "expression": f'device.attributes["{DRIVER}"].index < 2'}}]}}
    if kind == "model-a":
        return {"name": "r", "exactly": {"deviceClassName": "gpu-a"}}
    if kind == "first-available":
        return {"name": "r", "firstAvailable": [{"name": "a", "deviceClassName": "gpu-a"},
                                                {"name": "any", "deviceClassName": "gpu"}]}
    if kind == "missing-class":
        return {"name": "r", "exactly": {"deviceClassName": "no-such-class"}}
    return {"name": "r", "exactly": {"deviceClassName": "gpu"}}


TEMPLATE_KINDS = ("one", "one", "one", "two", "selector", "model-a", "first-available", "missing-class")


def _pod(name: str, rng: random.Random, kind: str, shared: int) -> dict:
    container: dict = {"name": "c", "resources": {"requests": {"cpu": rng.choice(["100m", "500m"]),
                                                               "memory": "128Mi"}}}
    spec: dict = {"containers": [container]}
    if kind == "shared":
        spec["resourceClaims"] = [{"name": "dev", "resourceClaimName": f"shared-{rng.randrange(shared)}"}]
    elif kind != "plain":
        spec["resourceClaims"] = [{"name": "dev", "resourceClaimTemplateName": f"t-{kind}"}]
    if "resourceClaims" in spec:
        container["resources"]["claims"] = [{"name": "dev"}]
    return {"metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}"}, "spec": spec}


def build(seed: int, nodes: int = 24, pods: int = 70):
    rng = random.Random(seed)
    node_objs, slices = [], []
    for i in range(nodes):
        name = f"node-{i:02d}"
        spec: dict = {}
        if rng.random() < 0.1:
            spec["unschedulable"] = True
        node_objs.append(Node.model_validate({"metadata": {"name": name, "labels": {
            "kubernetes.io/hostname": name, "rack": f"r{i % 3}"}}, "spec": spec,
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "20"}}}))
        if rng.random() < 0.8:
            slices.append(_slice(name, rng))
    # devices any node of rack r1 can use (not bound to one node: left to the search)
    slices.append({"metadata": {"name": "rack-r1"}, "spec": {
        "driver": DRIVER, "nodeSelector": {"nodeSelectorTerms": [{"matchExpressions": [
            {"key": "rack", "operator": "In", "values": ["r1"]}]}]},
        "pool": {"name": "rack-r1", "generation": 1, "resourceSliceCount": 1},
        "devices": [_device(f"net-{i}", rng, False) for i in range(2)]}})
    objs: list = [ResourceSlice.model_validate(s) for s in slices]
    objs += [DeviceClass.model_validate(c) for c in CLASSES]
    for kind in set(TEMPLATE_KINDS):
        objs.append(ResourceClaimTemplate.model_validate({"metadata": {"name": f"t-{kind}", "namespace": "default"},
                                                          "spec": {"spec": {"devices": {"requests": [_request(kind)]}}}}))
    shared = 4
    for i in range(shared):
        objs.append(ResourceClaim.model_validate({"metadata": {"name": f"shared-{i}", "namespace": "default"},
                                                  "spec": {"devices": {"requests": [_request("one")]}}}))
    cluster = Cluster([*node_objs, *admit(objs)])
    controller = ResourceClaimController(cluster, seed=seed)
    keys = []
    kinds = [*TEMPLATE_KINDS, "shared", "shared", "plain"]
    for i in range(pods):
        pod = Pod.model_validate(_pod(f"p-{i:03d}", rng, rng.choice(kinds), shared))
        cluster.add(pod)
        assert not controller.sync_pod(pod)
        keys.append(f"default/{pod.metadata.name}")
    return cluster, keys


def mutate(cluster: Cluster, rng: random.Random, step: int) -> None:
    """One change between two attempts, drawn from ``rng`` (the same on both paths)."""
    manager = dra_manager(cluster)
    change = rng.choice(["take", "delete-claim", "class", "slice", "cordon", "none", "none"])
    if change == "take":  # a claim of no pod allocated a free device (another scheduler, say)
        slices = sorted(cluster.objects["ResourceSlice"])
        found = as_dict(cluster.objects["ResourceSlice"][rng.choice(slices)])
        spec = found["spec"]
        device = rng.choice(spec["devices"])["name"]
        held = manager.allocated_state_full().allocated_devices
        if (DRIVER, spec["pool"]["name"], device) in held:
            return
        claim = {"metadata": {"name": f"taken-{step}", "namespace": "default", "uid": f"taken-{step}"},
                 "spec": {"devices": {"requests": [_request("one")]}},
                 "status": {"allocation": {"devices": {"results": [
                     {"request": "r", "driver": DRIVER, "pool": spec["pool"]["name"], "device": device}]}}}}
        manager.update_claim(claim)
    elif change == "delete-claim":  # a standalone claim taken earlier, or a pending pod's claim
        claims = sorted(cluster.objects.get("ResourceClaim", {}))
        if claims:
            cluster.remove("ResourceClaim", rng.choice(claims))
    elif change == "class":
        expression = rng.choice([f'device.driver == "{DRIVER}"',
                                 f'device.driver == "{DRIVER}" && device.attributes["{DRIVER}"].model == "b"',
                                 f'device.attributes["{DRIVER}"].index >= 1'])
        name = rng.choice(["gpu", "gpu-a", "no-such-class"])  # changed, or added
        cluster.add(admit([DeviceClass.model_validate(_class(name, expression))])[0])
    elif change == "slice":
        names = sorted(n for n in cluster.objects["ResourceSlice"] if n.startswith("node-"))
        name = rng.choice(names)
        old = as_dict(cluster.objects["ResourceSlice"][name])
        new = _slice(old["spec"]["nodeName"], rng, generation=old["spec"]["pool"]["generation"] + 1)
        cluster.add(admit([ResourceSlice.model_validate(new)])[0])
    elif change == "cordon":
        name = rng.choice(sorted(cluster.nodes))
        data = cluster.nodes[name].model_dump(mode="json", by_alias=True, exclude_unset=True)
        data.setdefault("spec", {})["unschedulable"] = not data["spec"].get("unschedulable", False)
        cluster.update_node(Node.model_validate(data))


def _allocations(cluster: Cluster) -> dict:
    out = {}
    for key, obj in cluster.objects.get("ResourceClaim", {}).items():
        status = as_dict(obj).get("status") or {}
        allocation = status.get("allocation") or {}
        out[key] = ([(r["pool"], r["device"], r["request"]) for r in (allocation.get("devices") or {}).get("results")
                     or []], [r["name"] for r in status.get("reservedFor") or []])
    return out


@pytest.mark.parametrize("seed", seeds(6))
def test_dra_pods_same_on_both_paths_with_mutations(seed, monkeypatch):
    fused = []
    run_pre_filter = FastPath.run_pre_filter

    def noting(self, plan, state, info):
        if "DynamicResources" in plan.live:
            fused.append(info.key)
        return run_pre_filter(self, plan, state, info)

    monkeypatch.setattr(FastPath, "run_pre_filter", noting)
    results, claims = [], []
    for fast in (True, False):
        cluster, keys = build(seed)
        sched = Scheduler(cluster, seed=seed, fast_path=fast)
        rng = random.Random(1000 + seed)
        out = []
        for step, key in enumerate(keys):
            mutate(cluster, rng, step)
            out.append(sched.schedule_one(key))
        results.append(out)
        claims.append(_allocations(cluster))
    for a, b in zip(*results):
        same_attempt(a, b)
    assert claims[0] == claims[1]
    placed = [r for r in results[0] if r.node is not None]
    assert len(placed) > len(results[0]) // 3 and any(r.node is None for r in results[0])
    assert len(fused) > len(results[0]) // 2  # most pods have claims, and took the fused path


def test_first_available_scores_on_the_fused_path(monkeypatch):
    """DynamicResources' Score runs beside the fused scores only for a claim with
    ``firstAvailable`` (it may then answer other than 0: 8 for the first subrequest, 7 for the
    second); for a claim without, the fused scoring answers its 0 and the plugin is not called."""
    live_scores = []
    run_pre_score = FastPath.run_pre_score

    def noting(self, plan, state, pod_info=None, rows=None):
        log = run_pre_score(self, plan, state, pod_info, rows)
        live_scores.append(plan.live_score)
        return log

    monkeypatch.setattr(FastPath, "run_pre_score", noting)
    cluster, _ = build(3, nodes=6, pods=0)
    sched = Scheduler(cluster, seed=0)
    raw = {}
    for kind in ("first-available", "one"):
        pod = Pod.model_validate(_pod(f"p-{kind}", random.Random(0), kind, 1))
        cluster.add(pod)
        assert not ResourceClaimController(cluster).sync_pod(pod)
        result = sched.schedule_one(f"default/p-{kind}")
        assert result.node is not None and result.trace.score is not None
        raw[kind] = set(result.trace.score.raw[result.trace.score.plugins.index("DynamicResources")].tolist())
    assert live_scores == [("DynamicResources",), ()]
    assert raw["first-available"] <= {7, 8} and 8 in raw["first-available"] and raw["one"] == {0}
