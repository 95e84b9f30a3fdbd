"""Pods sharing allocated ResourceClaims (the SchedulingWithResourceClaim shape): the fused path with
DynamicResources' kept answers for allocated claims (``_selector_verdicts``: an allocation's node
selector judged on every row once, kept across the pods that share the claim) and PreBind's
consumer write on the stored claim (``DRAManager.update_claim`` with ``base``), against the
plugin-by-plugin path that filters every node alone (``selector_matches`` per node) and writes
every claim through a validation of the whole claim, attempt by attempt.

Seeded random clusters: claims shared by many pods, some of a class only the devices of a
network-attached slice (a rack's nodes, by label) serve, so their allocation selects nodes by a
label; between attempts a claim is deallocated (its status written empty), a node's rack label
changes, a placed pod is deleted, a node is added or removed. Every attempt must give the same
node, statuses, filter verdicts, scores and trace on both paths, and the claims the same status
(allocation, ``reservedFor`` in order) and dump, key order included.
"""

from __future__ import annotations

import json
import random
import re

import pytest

from kschedlab.api.core import Node, Pod
from kschedlab.api.resource import DeviceClass, ResourceClaim, ResourceSlice
from kschedlab.apiserver.admission import admit
from kschedlab.cluster import Cluster
from kschedlab.dra.manager import DRAManager, dra_manager
from kschedlab.dra.resourceclaim_controller import ResourceClaimController
from kschedlab.plugins.dynamic_resources import DynamicResources
from kschedlab.scheduler import Scheduler
from tests.fastpath.test_fast_path import same_attempt
from tests.seeds import covered, seeds

DRIVER = "gpu.example.com"
RACKS = ("r0", "r1", "r2")


def _devices(prefix: str, kind: str, count: int) -> list[dict]:
    return [{"name": f"{prefix}-{i}", "attributes": {"kind": {"string": kind}}} for i in range(count)]


def _node(name: str, rack: str) -> Node:
    return Node.model_validate({"metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, "rack": rack}},
                                "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "5"}}})


def _claim(name: str, cls: str) -> dict:
    return {"metadata": {"name": name, "namespace": "default"},
            "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": cls}}]}}}


def build(seed: int, nodes: int = 16, claims: int = 6, pods: int = 60):
    rng = random.Random(seed)
    objs: list = [_node(f"node-{i:02d}", rng.choice(RACKS)) for i in range(nodes)]
    slices = [{"metadata": {"name": f"node-{i:02d}"}, "spec": {
        "driver": DRIVER, "nodeName": f"node-{i:02d}", "pool": {"name": f"node-{i:02d}", "generation": 1,
                                                                  "resourceSliceCount": 1},
        "devices": _devices("gpu", "local", rng.randint(1, 2))}} for i in range(nodes) if rng.random() < 0.8]
    # devices any node of rack r1 can use: a claim of class "net" is allocated with a label selector
    slices.append({"metadata": {"name": "rack-r1"}, "spec": {
        "driver": DRIVER, "nodeSelector": {"nodeSelectorTerms": [{"matchExpressions": [
            {"key": "rack", "operator": "In", "values": ["r1"]}]}]},
        "pool": {"name": "rack-r1", "generation": 1, "resourceSliceCount": 1}, "devices": _devices("net", "net", 3)}})
    objs += admit([ResourceSlice.model_validate(s) for s in slices])
    objs += admit([DeviceClass.model_validate({"metadata": {"name": cls}, "spec": {"selectors": [{"cel": {
        "expression": f'device.driver == "{DRIVER}" && device.attributes["{DRIVER}"].kind == "{cls}"'}}]}})
        for cls in ("local", "net")])
    objs += admit([ResourceClaim.model_validate(_claim(f"shared-{i}", "net" if i % 3 == 0 else "local"))
                   for i in range(claims)])
    cluster = Cluster(objs)
    controller = ResourceClaimController(cluster, seed=seed)
    keys = []
    for i in range(pods):
        pod = Pod.model_validate({"metadata": {"name": f"p-{i:03d}", "namespace": "default", "uid": f"uid-{i}"},
                                  "spec": {"containers": [{"name": "c", "resources": {
                                      "requests": {"cpu": rng.choice(["100m", "300m"])}, "claims": [{"name": "dev"}]}}],
                                      "resourceClaims": [{"name": "dev",
                                                          "resourceClaimName": f"shared-{rng.randrange(claims)}"}]}})
        cluster.add(pod)
        assert not controller.sync_pod(pod)
        keys.append(f"default/{pod.metadata.name}")
    return cluster, keys


def mutate(cluster: Cluster, rng: random.Random, step: int, seen: dict) -> None:
    """One change between two attempts, drawn from ``rng`` (the same on both paths)."""
    change = rng.choice(["deallocate", "labels", "delete-pod", "node", "none", "none", "none"])
    manager = dra_manager(cluster)
    if change == "deallocate":  # the claim's status written empty (every consumer gone, say)
        allocated = sorted(k for k, o in cluster.objects["ResourceClaim"].items() if o.status.allocation is not None)
        if allocated:
            key = rng.choice(allocated)
            claim = manager.get_claim_copy(*key.split("/"))
            claim.pop("status", None)
            manager.update_claim(claim)
            seen["deallocated"] += 1
    elif change == "labels":  # a node moves to another rack (in or out of the network slice's reach)
        name = rng.choice(sorted(cluster.nodes))
        data = cluster.nodes[name].model_dump(mode="json", by_alias=True, exclude_unset=True)
        data["metadata"]["labels"]["rack"] = rng.choice(RACKS)
        cluster.update_node(Node.model_validate(data))
        seen["labels"] += 1
    elif change == "delete-pod":
        placed = sorted(k for k, p in cluster.pods.items() if p.spec.node_name)
        if placed:
            cluster.remove_pod(rng.choice(placed))
            seen["deleted"] += 1
    elif change == "node":  # a node added (without devices) or an empty one removed
        empty = sorted(n for n in cluster.nodes if not any(p.spec.node_name == n for p in cluster.pods.values()))
        if rng.random() < 0.5 or not empty:
            cluster.add(_node(f"extra-{step:03d}", rng.choice(RACKS)))
        else:
            cluster.remove_node(rng.choice(empty))
        seen["nodes"] += 1


def _no_clock(text: str) -> str:
    """``text`` without the allocations' timestamps (the wall clock's, at PreBind)."""
    return re.sub(r'"allocationTimestamp": "[^"]*"', '"allocationTimestamp": ""', text)


def _claims(cluster: Cluster) -> str:
    """Every claim's dump as the scheduler reads it back, key order included."""
    manager = dra_manager(cluster)
    return _no_clock(json.dumps({k: manager.claim_dict(*k.split("/")) for k in sorted(cluster.objects["ResourceClaim"])}))


def run(seed: int, fast: bool, seen: dict) -> tuple[list, str, str]:
    cluster, keys = build(seed)
    sched = Scheduler(cluster, seed=seed, fast_path=fast)
    rng = random.Random(2000 + seed)
    out = []
    for step, key in enumerate(keys):
        mutate(cluster, rng, step, seen)
        if key in cluster.pods:
            out.append(sched.schedule_one(key))
    full = _no_clock(json.dumps({k: o.model_dump(by_alias=True, exclude_none=True, mode="json")
                                 for k, o in sorted(cluster.objects["ResourceClaim"].items())}))
    return out, _claims(cluster), full


@pytest.mark.parametrize("seed", seeds(5))
def test_shared_claims_same_as_node_by_node_with_full_writes(seed, monkeypatch):
    seen = {"deallocated": 0, "labels": 0, "deleted": 0, "nodes": 0, "kept": 0, "asked": 0, "appended": 0}
    selector_verdicts, update = DynamicResources._selector_verdicts, DRAManager.update_claim

    def noting(self, selector, snapshot):
        hit = self._selectors.get(id(selector))
        found = selector_verdicts(self, selector, snapshot)
        seen["asked"] += 1
        seen["kept"] += hit is not None and self._selectors[id(selector)] is hit
        return found

    def noting_update(self, claim, *, base=None):
        old = base is not None and base.status.allocation is not None
        update(self, claim, base=base)
        seen["appended"] += old
    monkeypatch.setattr(DynamicResources, "_selector_verdicts", noting)
    monkeypatch.setattr(DRAManager, "update_claim", noting_update)
    fast, fast_claims, fast_full = run(seed, True, seen)
    # the reference: every node filtered alone, every claim validated whole at PreBind
    monkeypatch.setattr(DynamicResources, "_allocated_only", lambda self, s, snapshot, rows: None)
    monkeypatch.setattr(DRAManager, "update_claim", lambda self, claim, *, base=None: update(self, claim))
    slow, slow_claims, slow_full = run(seed, False, dict(seen))
    assert len(fast) == len(slow)
    for a, b in zip(fast, slow):
        same_attempt(a, b)
    assert fast_claims == slow_claims and fast_full == slow_full and fast_claims == fast_full
    placed = [r for r in fast if r.node is not None]
    assert len(placed) > len(fast) // 3 and any(r.node is None for r in fast)
    # the kept answers were used, and the mutations happened
    assert covered(seen["kept"] > 10 and seen["asked"] > seen["kept"] and seen["appended"] > 10)
    assert min(seen["deallocated"], seen["labels"], seen["deleted"], seen["nodes"]) > 0
