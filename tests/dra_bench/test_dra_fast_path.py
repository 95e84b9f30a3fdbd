"""The DRA fast path gives what the plain path gives: pools kept across pods (AllocatorCache),
selector results kept on devices, the no-free-device answer without the search, and the
manager's allocated devices followed claim by claim."""

from __future__ import annotations

import copy
import json
import random
import re
from pathlib import Path

import pytest

from kschedlab.api.loader import load_text
from kschedlab.apiserver.admission import admit
from kschedlab.cluster import Cluster
from kschedlab.dra.allocator import AllocatedState, AllocationError, Allocator, DRAFeatures
from kschedlab.dra.allocator_cache import AllocatorCache
from kschedlab.dra.device_index import DeviceIndex
from kschedlab.dra.devices import read_claim, read_slice
from kschedlab.dra.manager import dra_manager
from kschedlab.dra.pools import gather_pools
from kschedlab.dra.trace import AllocationTrace
from tests.seeds import covered, seeds

CASES = json.loads((Path(__file__).resolve().parents[1] / "conformance" / "dra" / "allocator.json").read_text())
GPU_CLASS = {"metadata": {"name": "gpu"},
             "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]}}


def _node_slice(name: str, devices: int = 4, **pool) -> dict:
    return {"metadata": {"name": name}, "spec": {
        "driver": "gpu.example.com", "nodeName": name,
        "pool": {"name": name, "generation": 1, "resourceSliceCount": 1, **pool},
        "devices": [{"name": f"gpu-{i}"} for i in range(devices)]}}


def _claim(name: str = "c", count: int = 1, **extra) -> dict:
    return {"metadata": {"name": name, "namespace": "ns"}, "spec": {"devices": {"requests": [
        {"name": "g", "exactly": {"deviceClassName": "gpu", "allocationMode": "ExactCount", "count": count,
                                  **extra}}]}}}


def _outcome(allocator: Allocator, node, claims, trace=None):
    try:
        result = allocator.allocate(node, claims, trace=trace)
    except AllocationError as err:
        return type(err).__name__, str(err)
    return "ok", re.sub(r'"shareID": "[0-9a-f-]+"', '"shareID": "U"', json.dumps(result, sort_keys=True))


def test_cache_keeps_pools_while_the_slices_are_the_same_objects():
    slices = [read_slice(_node_slice(f"n{i}")) for i in range(3)]
    cache = AllocatorCache()
    node = {"metadata": {"name": "n1", "labels": {"zone": "a"}}}
    first = cache.pools_for(cache.use(slices), node, partitionable_devices=True)
    assert cache.pools_for(cache.use(list(slices)), node, partitionable_devices=True) is first
    assert [p.id_str for p in first] == [p.id_str for p in gather_pools(slices, node, partitionable_devices=True)]
    # another label set, another partitionable switch: gathered anew
    assert cache.pools_for(cache.use(slices), {"metadata": {"name": "n1"}}, partitionable_devices=True) is not first
    assert cache.pools_for(cache.use(slices), node, partitionable_devices=False) is not first
    # a replaced slice (a new object): everything is dropped
    token = cache.use([slices[0], read_slice(_node_slice("n1", devices=2)), slices[2]])
    again = cache.pools_for(token, node, partitionable_devices=True)
    assert again is not first and [d.name for d in again[0].slices[0].devices] == ["gpu-0", "gpu-1"]
    assert cache.stats["reset"] == 2
    with pytest.raises(ValueError):
        cache.pools_for(token - 1, node, partitionable_devices=True)


def test_an_allocator_whose_slices_are_no_longer_kept_gathers_its_own_pools():
    cache = AllocatorCache()
    old = [read_slice(_node_slice("n1"))]
    a = Allocator(DRAFeatures(), None, [GPU_CLASS], old, cache=cache)
    Allocator(DRAFeatures(), None, [GPU_CLASS], [read_slice(_node_slice("n1", devices=1))], cache=cache)
    result = a.allocate({"metadata": {"name": "n1"}}, [_claim(count=3)])
    assert [r["device"] for r in result[0]["devices"]["results"]] == ["gpu-0", "gpu-1", "gpu-2"]


def test_selector_results_are_kept_on_the_devices_across_allocators():
    slices = [read_slice(_node_slice(f"n{i}")) for i in range(2)]
    claim = _claim(selectors=[{"cel": {"expression": 'device.attributes["gpu.example.com"].missing == 1'}}])
    claim_ok = _claim(selectors=[{"cel": {"expression": 'device.driver.startsWith("gpu")'}}])
    node = {"metadata": {"name": "n0"}}
    first = Allocator(DRAFeatures(), None, [GPU_CLASS], slices)
    result = first.allocate(node, [claim_ok])
    assert first.stats["cel_evaluations"] == 2
    second = Allocator(DRAFeatures(), None, [GPU_CLASS], slices)
    assert second.allocate(node, [claim_ok]) == result and second.stats["cel_evaluations"] == 0
    # runtime errors are not kept: every allocator evaluates (and fails) again
    for a in (first, second):
        with pytest.raises(AllocationError, match="CEL runtime error"):
            a.allocate(node, [claim])
    assert second.stats["cel_evaluations"] == 1
    # another engine is another key
    calls = []

    class Always:
        def matches(self, view):
            calls.append(view)
            return True

    third = Allocator(DRAFeatures(), None, [GPU_CLASS], slices, compile_selector=lambda e: Always())
    third.allocate(node, [claim_ok])
    assert len(calls) == 2


def _all_ids(case) -> list[tuple[str, str, str]]:
    out = []
    for s in case.get("resourceSlices") or []:
        spec = s.get("spec") or {}
        for d in spec.get("devices") or []:
            out.append((spec.get("driver", ""), (spec.get("pool") or {}).get("name", ""), d.get("name", "")))
    return out


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["id"].removeprefix("dra/allocator/"))
def test_no_free_device_answer_equals_the_search(case):
    """Every upstream allocator row with every device (and every device but one) allocated:
    repeated calls with the same claims (fast path) equal traced calls (always the search),
    results, errors and search statistics alike."""
    try:
        features = DRAFeatures.from_gates(case.get("featureGates") or {})
        slices = [read_slice(s) for s in case.get("resourceSlices") or []]
        claims = [read_claim(c) for c in case.get("resourceClaims") or []]
    except Exception:  # rows about unreadable input have nothing to compare here
        return
    ids = _all_ids(case)
    nodes = [case.get("node") or {}, {"metadata": {"name": "elsewhere"}}]
    for allocated in (set(ids), set(ids[1:])):
        fast = Allocator(features, AllocatedState(set(allocated)), case.get("deviceClasses") or [], slices)
        slow = Allocator(features, AllocatedState(set(allocated)), case.get("deviceClasses") or [], slices)
        for _ in range(3):
            for node in nodes:
                assert _outcome(fast, node, claims) == _outcome(slow, node, claims, AllocationTrace())
                assert fast.stats["allocate_one"] == slow.stats["allocate_one"]


def test_no_free_device_answer_is_taken():
    slices = [read_slice(_node_slice("n1")), read_slice(_node_slice("n2"))]
    full = {("gpu.example.com", "n1", f"gpu-{i}") for i in range(4)}
    a = Allocator(DRAFeatures(), AllocatedState(full), [GPU_CLASS], slices)
    claims = [read_claim(_claim())]
    assert a.allocate({"metadata": {"name": "n2"}}, claims) is not None  # prepares the claims
    evaluated = a.stats["cel_evaluations"]
    assert a.allocate({"metadata": {"name": "n1"}}, claims) is None
    assert a.stats["allocate_one"] == 4 + 1 and a.stats["cel_evaluations"] == evaluated
    assert list(a._plans.values()) == [1]
    # admin access may take allocated devices: never answered without the search
    admin = [read_claim(_claim(adminAccess=True))]
    assert a.allocate({"metadata": {"name": "n1"}}, admin) is not None
    assert a.allocate({"metadata": {"name": "n1"}}, admin) is not None


CLAIMS = """
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c%d, uid: u%d}
spec: {devices: {requests: [{name: g, exactly: {deviceClassName: gpu}}]}}
"""


def _allocation(devices, shared=False):
    results = []
    for d in devices:
        r = {"request": "g", "driver": "x.example.com", "pool": "p", "device": d}
        if shared:
            r.update({"shareID": "s-" + d, "consumedCapacity": {"mem": "1Gi"}})
        results.append(r)
    return {"devices": {"results": results}}


@pytest.mark.parametrize("seed", seeds(6))
def test_allocated_state_followed_claim_by_claim_equals_the_full_reading(seed):
    rng = random.Random(seed)
    c = Cluster(admit(load_text("---".join(CLAIMS % (i, i) for i in range(6)))))
    m = dra_manager(c)
    names = [f"c{i}" for i in range(6)]
    extra = 6
    pool = read_slice({"metadata": {"name": "p"}, "spec": {"driver": "x.example.com", "nodeName": "n",
                                                         "pool": {"name": "p", "generation": 1, "resourceSliceCount": 1},
                                                         "devices": [{"name": d} for d in "abcdefgh"]}})
    index = DeviceIndex([pool])
    last = None
    deltas = 0
    for step in range(60):
        action = rng.choice(["allocate", "allocate", "deallocate", "in-flight", "land", "add", "delete", "shared"])
        name = rng.choice(names)
        claim = m.get_claim("default", name)
        if action in ("allocate", "shared") and claim is not None:
            claim = copy.deepcopy(claim)
            devices = rng.sample("abcdefgh", rng.randint(1, 3))
            claim.setdefault("status", {})["allocation"] = _allocation(devices, shared=action == "shared"
                                                                        and rng.random() < 0.5)
            m.update_claim(claim)
        elif action == "deallocate" and claim is not None:
            claim = copy.deepcopy(claim)
            claim.setdefault("status", {})["allocation"] = None
            m.update_claim(claim)
        elif action == "in-flight" and claim is not None:
            claim = copy.deepcopy(claim)
            claim.setdefault("status", {})["allocation"] = _allocation(rng.sample("abcdefgh", 2))
            m.signal_pending_allocation(claim)
        elif action == "land" and m.in_flight:
            identity = rng.choice(sorted(m.in_flight))
            claim = m.in_flight[identity]
            m.remove_pending_allocation(claim)
            if rng.random() < 0.7 and m.get_claim("default", claim["metadata"]["name"]) is not None:
                m.update_claim(claim)
        elif action == "add":
            c.add(admit(load_text(CLAIMS % (extra, extra)))[0])
            names.append(f"c{extra}")
            extra += 1
        elif action == "delete" and claim is not None:
            m.delete_claim(claim)
        before = m._exclusive
        fast, full = m.allocated_state(), m.allocated_state_full()
        if before is not None and action in ("allocate", "deallocate", "in-flight", "add") \
                and m._exclusive is not None:
            assert m._exclusive is before, (step, action)  # followed, not read again from scratch
        assert fast.allocated_devices == full.allocated_devices, (step, action)
        assert fast.aggregated_capacity == full.aggregated_capacity, (step, action)
        if fast.delta is not None and fast.delta[0] is not None:  # the state before, plus added, minus removed
            base, _, added, removed = fast.delta
            assert last is not None and last.delta is not None and base is last.delta[1]
            assert (last.allocated_devices - removed) | added == fast.allocated_devices, (step, action)
            deltas += 1
        # device arrays following the states (through their deltas) say what the full reading says
        index.set_allocated(fast.allocated_devices, fast.delta)
        assert index.allocated.tolist() == [("x.example.com", "p", d) in full.allocated_devices for d in "abcdefgh"]
        last = fast
    assert covered(deltas > 10)


def test_parsed_slices_reuse_needs_the_same_objects():
    text = "---".join(f"""
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {{name: s{i}}}
spec: {{driver: gpu.example.com, nodeName: n{i}, pool: {{name: n{i}, generation: 1, resourceSliceCount: 1}},
        devices: [{{name: gpu-0}}]}}
""" for i in range(3))
    c = Cluster(admit(load_text(text)))
    m = dra_manager(c)
    first = m.parsed_slices()
    second = m.parsed_slices()
    assert second is not first and all(a is b for a, b in zip(first, second))
    replaced = copy.deepcopy(c.objects["ResourceSlice"]["s1"])
    c.objects["ResourceSlice"]["s1"] = replaced
    third = m.parsed_slices()
    assert third[0] is first[0] and third[1] is not first[1] and third[2] is first[2]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["id"].removeprefix("dra/allocator/"))
def test_deferred_results_equal_the_results(case):
    """``allocate_deferred`` builds what ``allocate`` returns, and fails where it fails."""
    try:
        features = DRAFeatures.from_gates(case.get("featureGates") or {})
        slices = [read_slice(s) for s in case.get("resourceSlices") or []]
        claims = [read_claim(c) for c in case.get("resourceClaims") or []]
    except Exception:
        return
    allocated = {(d["driver"], d["pool"], d["device"]) for d in case.get("allocatedDevices") or []}
    for node in (case.get("node") or {}, {"metadata": {"name": "elsewhere"}}):
        plain = Allocator(features, AllocatedState(set(allocated)), case.get("deviceClasses") or [], slices)
        deferred = Allocator(features, AllocatedState(set(allocated)), case.get("deviceClasses") or [], slices)
        want = _outcome(plain, node, claims)
        try:
            build = deferred.allocate_deferred(node, claims)
        except AllocationError as err:
            got = (type(err).__name__, str(err))
        else:
            got = ("ok", re.sub(r'"shareID": "[0-9a-f-]+"', '"shareID": "U"',
                                json.dumps(build() if build is not None else None, sort_keys=True)))
        assert got == want
