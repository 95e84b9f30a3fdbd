"""The DRA path's caches change nothing: pools gathered from a node's candidate slices equal
pools gathered from all slices; the manager's allocated state and parsed slices follow replaced
claims and slices; the plugin's light node dict selects as the full node does."""

from __future__ import annotations

import copy

import pytest

from kschedlab.api.loader import load_text
from kschedlab.api.quantity import Quantity
from kschedlab.apiserver.admission import admit
from kschedlab.cluster import Cluster
from kschedlab.dra.devices import read_slice
from kschedlab.dra.manager import FINALIZER, claim_identity, dra_manager
from kschedlab.dra.pools import gather_pools, node_candidates
from kschedlab.scheduler import Scheduler
from tests.seeds import seeds


def _slice(name, pool, *, node=None, all_nodes=False, selector=None, count=1, generation=1, devices=("d0",),
           counters=None, per_device=None):
    spec = {"driver": "x.example.com", "pool": {"name": pool, "generation": generation, "resourceSliceCount": count},
            "devices": [dict(d) if isinstance(d, dict) else {"name": d} for d in devices]}
    if node:
        spec["nodeName"] = node
    if all_nodes:
        spec["allNodes"] = True
    if selector:
        spec["nodeSelector"] = selector
    if counters:
        spec["sharedCounters"] = counters
    if per_device:
        spec["perDeviceNodeSelection"] = True
    return read_slice({"metadata": {"name": name}, "spec": spec})


ZONE_A = {"nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]}
SLICES = [
    _slice("n1-0", "n1", node="n1"),
    _slice("all", "shared", all_nodes=True, devices=("s0", "s1")),
    _slice("n2-0", "n2", node="n2"),
    _slice("zone-a", "za", selector=ZONE_A),
    # a pool of two slices on two nodes: incomplete from either node alone
    _slice("split-1", "split", node="n1", count=2, devices=("p0",)),
    _slice("split-2", "split", node="n2", count=2, devices=("p1",)),
    # an obsolete generation next to the current one
    _slice("gen-old", "gen", node="n1", generation=1),
    _slice("gen-new", "gen", node="n1", generation=2, devices=("g1",)),
    _slice("counters", "part", node="n1", counters=[{"name": "cs", "counters": {"mem": {"value": "4"}}}], devices=()),
    _slice("part-dev", "part", node="n1", devices=(
        {"name": "pd", "consumesCounters": [{"counterSet": "cs", "counters": {"mem": {"value": "1"}}}]},)),
    _slice("per-dev", "pd", per_device=True, devices=({"name": "x", "nodeName": "n2"},)),
    _slice("dup", "dup", node="n2", devices=("a", "a")),
]
NODES = [{"metadata": {"name": n, "labels": labels}} for n, labels in
         (("n1", {"zone": "a"}), ("n2", {"zone": "b"}), ("n3", {}))]


def _shape(pools):
    return [(p.id_str, p.incomplete, p.invalid, p.invalid_reason, [s.name for s in p.slices],
             [s.name for s in p.slices_not_targeting_node], p.counter_sets) for p in pools]


@pytest.mark.parametrize("partitionable", [False, True])
@pytest.mark.parametrize("node", NODES, ids=lambda n: n["metadata"]["name"])
def test_candidate_slices_gather_the_same_pools(node, partitionable):
    own, others = node_candidates(SLICES)
    candidates = [SLICES[i] for i in sorted(own.get(node["metadata"]["name"], []) + others)]
    assert len(candidates) < len(SLICES)
    assert _shape(gather_pools(SLICES, node, partitionable_devices=partitionable, candidates=candidates)) == \
        _shape(gather_pools(SLICES, node, partitionable_devices=partitionable))


def _reference_state(manager):
    """The allocated state computed from scratch (the manager's uncached reading)."""
    seen = {claim_identity(c): c for c in manager.list_claims()}
    seen.update(manager.in_flight)
    devices, capacity = set(), {}
    for claim in seen.values():
        allocation = (claim.get("status") or {}).get("allocation") or {}
        for r in (allocation.get("devices") or {}).get("results") or []:
            if r.get("adminAccess"):
                continue
            dev = (r["driver"], r["pool"], r["device"])
            if r.get("shareID"):
                used = capacity.setdefault(dev, {})
                for name, q in (r.get("consumedCapacity") or {}).items():
                    used[name] = used.get(name, Quantity.parse("0")) + Quantity.parse(str(q))
            else:
                devices.add(dev)
    return devices, capacity


CLAIMS = """
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c1}
spec: {devices: {requests: [{name: g, exactly: {deviceClassName: gpu}}]}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c2}
spec: {devices: {requests: [{name: g, exactly: {deviceClassName: gpu}}]}}
"""


def _allocated(claim, results):
    claim = copy.deepcopy(claim)
    claim["status"] = {"allocation": {"devices": {"results": [
        {"request": "g", "driver": "x.example.com", "pool": "n1", **r} for r in results]}}}
    return claim


def test_allocated_state_follows_replaced_claims_and_in_flight_ones():
    c = Cluster(admit(load_text(CLAIMS)))
    m = dra_manager(c)

    def check():
        state = m.allocated_state()
        assert (state.allocated_devices, state.aggregated_capacity) == _reference_state(m)
        return state

    assert check().allocated_devices == set()
    c1, c2 = m.get_claim("default", "c1"), m.get_claim("default", "c2")
    m.update_claim(_allocated(c1, [{"device": "a"}, {"device": "b", "adminAccess": True}]))
    assert check().allocated_devices == {("x.example.com", "n1", "a")}
    m.update_claim(_allocated(c1, [{"device": "z"}]))  # replaced: the old reading must not linger
    m.update_claim(_allocated(c2, [{"device": "s", "shareID": "u1", "consumedCapacity": {"mem": "1Gi"}}]))
    m.signal_pending_allocation(_allocated(c2, [{"device": "s", "shareID": "u2", "consumedCapacity": {"mem": "2Gi"}}]))
    state = check()
    assert state.allocated_devices == {("x.example.com", "n1", "z")}
    assert state.aggregated_capacity == {("x.example.com", "n1", "s"): {"mem": Quantity("2Gi")}}  # in flight wins
    m.delete_claim(m.get_claim("default", "c1"))
    assert check().allocated_devices == set()



def test_allocated_state_follows_the_change_feed_of_every_write():
    """Claims written to the cluster's store by any way (the manager, ``Cluster.add``, the
    store's own dict methods, ``Cluster.remove``) are noted by the ClaimStore; the manager reads
    the noted claims only (the kept state is the same object after a replacement or an
    addition) and gives the full reading's state every time."""
    from kschedlab.api.resource import ResourceClaim
    from kschedlab.dra.manager import ClaimStore

    c = Cluster(admit(load_text(CLAIMS)))
    m = dra_manager(c)

    def check():
        state = m.allocated_state()
        assert (state.allocated_devices, state.aggregated_capacity) == _reference_state(m)
        return state.allocated_devices

    assert check() == set()
    store = c.objects["ResourceClaim"]
    assert isinstance(store, ClaimStore) and set(store) == {"default/c1", "default/c2"}
    kept = m._exclusive
    m.update_claim(_allocated(m.get_claim("default", "c1"), [{"device": "a"}]))
    assert check() == {("x.example.com", "n1", "a")} and m._exclusive is kept
    c.add(ResourceClaim.model_validate(_allocated(m.get_claim("default", "c2"), [{"device": "b"}])))  # replaced
    assert check() == {("x.example.com", "n1", "a"), ("x.example.com", "n1", "b")} and m._exclusive is kept
    third = _allocated({**m.get_claim("default", "c2"), "metadata": {"name": "c3", "namespace": "default"}}, [{"device": "c"}])
    store.update({"default/c3": ResourceClaim.model_validate(third)})  # added through dict.update
    store["default/c1"] = ResourceClaim.model_validate(_allocated(m.get_claim("default", "c1"), [{"device": "d"}]))
    assert check() == {("x.example.com", "n1", d) for d in "bcd"} and m._exclusive is kept
    c.remove("ResourceClaim", "default/c2")  # a removal: read again from scratch
    assert check() == {("x.example.com", "n1", d) for d in "cd"} and m._exclusive is not kept
    store.setdefault("default/c4", ResourceClaim.model_validate(_allocated({**third, "metadata": {"name": "c4", "namespace": "default"}},
                                                                   [{"device": "e"}])))
    assert check() == {("x.example.com", "n1", d) for d in "cde"}
    store.pop("default/c3")
    store.clear()
    assert check() == set()


def test_held_devices_refuse_changes_and_are_valid_until_the_next_call():
    """Without in-flight allocations the manager hands out its kept set: it refuses changes, and
    the next call changes it in place (a reader wanting it longer copies it)."""
    c = Cluster(admit(load_text(CLAIMS)))
    m = dra_manager(c)
    m.update_claim(_allocated(m.get_claim("default", "c1"), [{"device": "a"}]))
    held = m.allocated_state().allocated_devices
    mine = set(held)
    for change in (lambda: held.add(("x", "y", "z")), lambda: held.discard(("x.example.com", "n1", "a")),
                   held.clear, lambda: held.update({("x", "y", "z")})):
        with pytest.raises(TypeError, match="read-only"):
            change()
    assert held == {("x.example.com", "n1", "a")}
    held_or = held | {("x", "y", "z")}  # a new, plain set
    assert type(held_or) is set
    m.update_claim(_allocated(m.get_claim("default", "c2"), [{"device": "b"}]))
    later = m.allocated_state().allocated_devices
    assert later is held and held == {("x.example.com", "n1", "a"), ("x.example.com", "n1", "b")}
    assert mine == {("x.example.com", "n1", "a")}
    m.signal_pending_allocation(_allocated(m.get_claim("default", "c2"), [{"device": "c"}]))
    flying = m.allocated_state().allocated_devices  # with in-flight allocations: a set of the caller's own
    assert flying is not held and flying == {("x.example.com", "n1", "a"), ("x.example.com", "n1", "c")}


SLICE_YAML = """
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {{name: {name}}}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {{name: {name}, generation: {generation}, resourceSliceCount: 1}}
  devices: [{{name: gpu-0}}]
"""


def test_parsed_slices_are_read_once_and_again_when_replaced():
    c = Cluster(admit(load_text(SLICE_YAML.format(name="s1", generation=1) + "---" +
                                SLICE_YAML.format(name="s2", generation=1))))
    m = dra_manager(c)
    first = m.parsed_slices()
    assert [s.name for s in first] == ["s1", "s2"]
    again = m.parsed_slices()
    assert again[0] is first[0] and again[1] is first[1]
    (replaced,) = admit(load_text(SLICE_YAML.format(name="s2", generation=2)))
    c.add(replaced)
    now = m.parsed_slices()
    assert now[0] is first[0] and now[1] is not first[1] and now[1].generation == 2
    c.remove("ResourceSlice", "s1")
    assert [s.name for s in m.parsed_slices()] == ["s2"]


def test_parsed_slices_carry_device_taint_rules():
    rule = """
---
apiVersion: resource.k8s.io/v1alpha3
kind: DeviceTaintRule
metadata: {name: maintenance}
spec:
  deviceSelector: {driver: gpu.example.com}
  taint: {key: example.com/maintenance, value: "true", effect: NoSchedule}
"""
    c = Cluster(admit(load_text(SLICE_YAML.format(name="s1", generation=1) + rule),
                      feature_gates={"DRADeviceTaintRules": True}))
    (s,) = dra_manager(c).parsed_slices()
    assert s.devices[0].taints == [{"key": "example.com/maintenance", "value": "true", "effect": "NoSchedule"}]


def test_devices_by_node_selector_still_reach_labelled_nodes_only():
    text = """
apiVersion: v1
kind: Node
metadata: {name: a1, labels: {zone: a}}
status: {allocatable: {cpu: "8", memory: 16Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: b1, labels: {zone: b}}
status: {allocatable: {cpu: "8", memory: 16Gi, pods: "110"}}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec: {selectors: [{cel: {expression: device.driver == "gpu.example.com"}}]}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: zone-a}
spec:
  driver: gpu.example.com
  nodeSelector: {nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: In, values: [a]}]}]}
  pool: {name: zone-a, generation: 1, resourceSliceCount: 1}
  devices: [{name: gpu-0}, {name: gpu-1}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c1}
spec: {devices: {requests: [{name: g, exactly: {deviceClassName: gpu}}]}}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  resourceClaims: [{name: dev, resourceClaimName: c1}]
  containers: [{name: c, image: nginx, resources: {claims: [{name: dev}]}}]
"""
    c = Cluster(admit(load_text(text)))
    assert Scheduler(c).schedule_one("default/p").node == "a1"
    allocation = dra_manager(c).get_claim("default", "c1")["status"]["allocation"]
    assert allocation["devices"]["results"][0]["device"] == "gpu-0"
    assert allocation["nodeSelector"]["nodeSelectorTerms"][0]["matchExpressions"][0]["values"] == ["a"]


@pytest.mark.parametrize("workload", ["SchedulingWithResourceClaimTemplate", "SchedulingWithResourceClaim"])
def test_claim_writes_from_the_stored_object_equal_a_full_validation(workload, monkeypatch):
    """PreBind writes a claim as the stored object's copy with its finalizers and status (the
    written fields validated alone): the same model and dump as validating the whole dict."""
    from kschedlab.api.resource import ResourceClaim
    from kschedlab.dra.manager import DRAManager
    from kschedlab.scheduler_perf import run_dra_workload

    update = DRAManager.update_claim
    written, reused = [], []

    def checked(self, claim, *, base=None):
        update(self, claim, base=base)
        if base is not None:
            stored = self.claim_object(claim["metadata"].get("namespace") or "", claim["metadata"]["name"])
            full = ResourceClaim.model_validate(copy.deepcopy(claim))
            assert stored == full and stored.spec is base.spec
            assert stored.model_dump(by_alias=True, exclude_none=True, mode="json") == \
                full.model_dump(by_alias=True, exclude_none=True, mode="json")
            # what was not written is the stored object's own (not validated again), with its fields set
            assert stored.model_dump(exclude_unset=True)["spec"] == base.model_dump(exclude_unset=True)["spec"]
            if base.status.allocation is not None:  # a consumer more: the allocation is the stored one
                assert stored.status.allocation is base.status.allocation
                reused.append(claim["metadata"]["name"])
            written.append(claim["metadata"]["name"])

    monkeypatch.setattr(DRAManager, "update_claim", checked)
    r = run_dra_workload(workload, nodes=4, init_pods=6, measure_pods=10, max_claims_per_node=4)
    assert r["scheduled"] + r["init_scheduled"] == 16
    assert len(written) == 16  # every pod's claim written once (a shared claim: a consumer more)
    assert len(reused) == (0 if workload == "SchedulingWithResourceClaimTemplate" else 16 - 4)


def test_device_class_dumps_and_extended_mapping_follow_replaced_classes():
    """The kept class dumps and extended-resource mapping are those of the stored classes after a
    class model is replaced, one is added, or a class stored as a dict is changed in place."""
    from kschedlab.api.resource import DeviceClass

    def model(name, ext=None):
        spec = {"extendedResourceName": ext} if ext else {}
        return DeviceClass.model_validate({"metadata": {"name": name}, "spec": spec})

    cluster = Cluster()
    cluster.objects["DeviceClass"] = {"a": model("a", "example.com/gpu")}
    m = dra_manager(cluster)
    assert m.extended_resource_mapping()["example.com/gpu"] == "a"
    cluster.objects["DeviceClass"]["a"] = model("a", "example.com/fpga")
    assert "example.com/gpu" not in m.extended_resource_mapping()
    assert m.get_device_class("a")["spec"]["extendedResourceName"] == "example.com/fpga"
    cluster.objects["DeviceClass"]["b"] = {"metadata": {"name": "b"}, "spec": {}}
    assert m.extended_resource_mapping()["deviceclass.resource.kubernetes.io/b"] == "b"
    cluster.objects["DeviceClass"]["b"]["spec"]["extendedResourceName"] = "example.com/tpu"
    assert m.extended_resource_mapping()["example.com/tpu"] == "b"
    assert [c["metadata"]["name"] for c in m.device_classes()] == ["a", "b"]


def _random_claim(rng) -> dict:
    """A claim as the API could hold it: optional labels, finalizers, allocation, consumers, device status."""
    meta: dict = {"name": f"c{rng.randrange(1000)}", "namespace": rng.choice(["ns", "test"]), "uid": f"u{rng.randrange(99)}"}
    if rng.random() < 0.5:
        meta["labels"] = {"app": rng.choice(["a", "b"])}
    if rng.random() < 0.5:
        meta["finalizers"] = rng.sample(["x.io/f", "y.io/g"], rng.randint(0, 2))
    spec = {"devices": {"requests": [{"name": f"r{i}", "exactly": {"deviceClassName": "gpu", "count": rng.randint(1, 3)}}
                                     for i in range(rng.randint(1, 3))]}}
    status: dict = {}
    if rng.random() < 0.3:
        status["allocation"] = _random_allocation(rng)
    if rng.random() < 0.5:
        status["reservedFor"] = [{"resource": "pods", "name": f"p{i}", "uid": f"pu{i}"} for i in range(rng.randint(0, 2))]
    if rng.random() < 0.3:
        status["devices"] = [{"driver": "d", "pool": "p", "device": "dev0",
                              "conditions": [{"type": "Ready", "status": "True", "reason": "R", "message": "",
                                              "lastTransitionTime": "2026-01-01T00:00:00Z"}]}]
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": meta, "spec": spec,
            **({"status": status} if status or rng.random() < 0.5 else {})}


def _random_allocation(rng) -> dict:
    """An allocation as the allocator builds one: results with optional fields, config, node selector."""
    results = []
    for i in range(rng.randint(1, 4)):
        result: dict = {"request": f"r{i}", "driver": "test-driver.cdi.k8s.io", "pool": f"node-{rng.randrange(9)}",
                        "device": f"gpu-{rng.randrange(9)}"}
        if rng.random() < 0.3:
            result["adminAccess"] = rng.random() < 0.5
        if rng.random() < 0.3:
            result["bindingConditions"] = ["Ready"]
            result["bindingFailureConditions"] = ["Failed"]
        if rng.random() < 0.3:
            result["consumedCapacity"] = {"memory": rng.choice(["1Gi", "512Mi", "2"])}
        if rng.random() < 0.2:
            result["shareID"] = "0123"
        results.append(dict(rng.sample(list(result.items()), len(result))))  # any key order
    allocation: dict = {"devices": {"results": results}}
    if rng.random() < 0.3:
        allocation["devices"]["config"] = [{"source": "FromClass", "requests": ["r0"],
                                            "opaque": {"driver": "d", "parameters": {"k": rng.randrange(5)}}}]
    if rng.random() < 0.7:
        allocation["nodeSelector"] = {"nodeSelectorTerms": [{"matchFields": [
            {"key": "metadata.name", "operator": "In", "values": [f"node-{rng.randrange(9)}"]}]}]}
    if rng.random() < 0.3:
        allocation["allocationTimestamp"] = "2026-12-06T16:00:00Z"
    return dict(rng.sample(list(allocation.items()), len(allocation)))


@pytest.mark.parametrize("seed", seeds(12))
def test_claim_written_on_its_base_reads_back_as_a_full_write(seed):
    """PreBind's write (finalizer, allocation, a consumer on the stored claim's kept dump, written
    with ``base``) on random claims and allocations: the claim read back is, key order included,
    the dump of the whole claim validated afresh, and the stored model equals that validation."""
    import json
    import random

    from kschedlab.api.resource import ResourceClaim

    rng = random.Random(seed)
    for _ in range(25):
        m = dra_manager(Cluster())
        claim = _random_claim(rng)
        m.update_claim(copy.deepcopy(claim))
        ns, name = claim["metadata"]["namespace"], claim["metadata"]["name"]
        base, found = m.claim_object(ns, name), m.claim_dict(ns, name)
        current = {**found, "metadata": dict(found["metadata"]), "status": dict(found["status"])}
        status = current["status"]
        if rng.random() < 0.7:
            current["metadata"]["finalizers"] = [*current["metadata"]["finalizers"], FINALIZER]
        if "allocation" not in status or rng.random() < 0.2:
            status["allocation"] = _random_allocation(rng)
        if rng.random() < 0.8:
            status["reservedFor"] = [*status.get("reservedFor", []), {"resource": "pods", "name": "p", "uid": "pu"}]
        m.update_claim(current, base=base)
        stored = m.claim_object(ns, name)
        kept = m.claim_dict(ns, name)
        full = ResourceClaim.model_validate(copy.deepcopy(current))
        assert stored == full
        dump = stored.model_dump(by_alias=True, exclude_none=True, mode="json")
        assert json.dumps(kept) == json.dumps(dump) == json.dumps(full.model_dump(by_alias=True, exclude_none=True,
                                                                                  mode="json"))
        assert m.get_claim(ns, name) == kept


def test_screen_plans_are_shared_by_claims_of_one_shape_and_follow_the_class():
    """Allocators sharing a cache share the screen plan of claims alike but for their names (the
    name in a plan's error messages stays the claim's own); a class replaced by another object,
    another count or another selector gets a plan of its own."""
    from kschedlab.dra.allocator import Allocator
    from kschedlab.dra.allocator_cache import AllocatorCache
    from kschedlab.dra.devices import read_claim

    def claim(name, count=1, selector=None):
        exactly = {"deviceClassName": "gpu", "allocationMode": "ExactCount", "count": count}
        if selector:
            exactly["selectors"] = [{"cel": {"expression": selector}}]
        return read_claim({"metadata": {"name": name, "namespace": "ns"},
                           "spec": {"devices": {"requests": [{"name": "r", "exactly": exactly}]}}})

    gpu = {"metadata": {"name": "gpu"}, "spec": {"selectors": [{"cel": {"expression": "true"}}]}}
    cache = AllocatorCache()
    first = Allocator(None, None, [gpu], SLICES, cache=cache)._screen_plan([claim("a")])
    second = Allocator(None, None, [gpu], SLICES, cache=cache)._screen_plan([claim("b")])
    assert (first.claim, second.claim) == ("ns/a", "ns/b")
    assert second.combine is first.combine and second.key == first.key
    assert len(cache.screen_plans) == 1
    again = Allocator(None, None, [copy.deepcopy(gpu)], SLICES, cache=cache)._screen_plan([claim("c")])
    assert again.combine is not first.combine and again.claim == "ns/c"
    two = Allocator(None, None, [gpu], SLICES, cache=cache)._screen_plan([claim("d", count=2)])
    assert two.count == 2
    chosen = Allocator(None, None, [gpu], SLICES, cache=cache)._screen_plan([claim("e", selector="false")])
    assert chosen.key != first.key and chosen.request_selectors[0]["cel"]["expression"] == "false"
    missing = Allocator(None, None, [], SLICES, cache=cache)._screen_plan([claim("f")])
    assert missing is None


@pytest.mark.parametrize("seed", seeds(8))
def test_parsed_slices_follow_every_write_to_the_slice_store(seed):
    """The slices' store notes every write (``cluster.add`` / ``remove``, the dict's own methods,
    a whole new dict put in its place): after each, ``parsed_slices`` reads what a manager that
    never read them reads; between writes, the same readings (the same objects) come back."""
    import random

    from kschedlab.dra.manager import DRAManager

    rng = random.Random(seed)

    def raw(name, generation):
        return {"metadata": {"name": name}, "spec": {"driver": "gpu.example.com", "nodeName": "n1", "pool": {
            "name": name, "generation": generation, "resourceSliceCount": 1}, "devices": [{"name": f"gpu-{generation}"}]}}

    c = Cluster(admit(load_text(SLICE_YAML.format(name="s0", generation=1))))
    m = dra_manager(c)
    for step in range(40):
        store = c.objects["ResourceSlice"]
        names = sorted(store)
        write = rng.choice(["add", "replace-model", "dict-set", "pop", "del", "update", "setdefault", "new-dict",
                            "remove", "none", "none"])
        name = rng.choice(names) if names and rng.random() < 0.6 else f"s{step + 1}"
        if write == "add" or (write == "replace-model" and names):
            (obj,) = admit(load_text(SLICE_YAML.format(name=name, generation=step + 2)))
            c.add(obj)
        elif write == "dict-set":
            store[name] = raw(name, step + 2)
        elif write in ("pop", "del", "remove") and names:
            if write == "pop":
                store.pop(name, None)
            elif write == "remove" and name in store:
                c.remove("ResourceSlice", name)
            elif name in store:
                del store[name]
        elif write == "update":
            store.update({name: raw(name, step + 2)})
        elif write == "setdefault":
            store.setdefault(name, raw(name, step + 2))
        elif write == "new-dict":
            c.objects["ResourceSlice"] = {**store, name: raw(name, step + 2)}
        got = m.parsed_slices()
        fresh = DRAManager(c).parsed_slices()
        assert [(s.name, s.generation, [d.name for d in s.devices]) for s in got] == \
            [(s.name, s.generation, [d.name for d in s.devices]) for s in fresh], (step, write)
        again = m.parsed_slices()
        assert len(again) == len(got) and all(a is b for a, b in zip(again, got))


def test_claims_kept_after_pre_bind_read_as_the_stored_ones(monkeypatch):
    """PreBind keeps each claim it wrote as written, not dumped again from the stored object:
    what the cycle reads of it afterwards (its identity, its results' binding conditions, the
    devices and consumers) is the stored claim's."""
    from kschedlab.plugins.dynamic_resources import DynamicResources, has_binding_conditions
    from kschedlab.scheduler_perf import run_dra_workload

    pre_bind = DynamicResources.pre_bind
    seen = []

    def checked(self, state, pod_info, node_name):
        status = pre_bind(self, state, pod_info, node_name)
        for claim in state["DynamicResources"].claims:
            meta = claim["metadata"]
            stored = self.manager.claim_dict(meta.get("namespace") or "", meta["name"])
            assert claim["metadata"] == stored["metadata"]
            assert has_binding_conditions([claim]) == has_binding_conditions([stored])
            # (the stored dump adds the defaults validation gives, such as an empty ``config``)
            assert [(r["request"], r["driver"], r["pool"], r["device"])
                    for r in claim["status"]["allocation"]["devices"]["results"]] == \
                [(r["request"], r["driver"], r["pool"], r["device"])
                 for r in stored["status"]["allocation"]["devices"]["results"]]
            assert claim["status"]["reservedFor"] == stored["status"]["reservedFor"]
            seen.append(meta["name"])
        return status

    monkeypatch.setattr(DynamicResources, "pre_bind", checked)
    r = run_dra_workload("SchedulingWithResourceClaimTemplate", nodes=4, init_pods=6, measure_pods=10,
                         max_claims_per_node=4)
    assert r["scheduled"] + r["init_scheduled"] == 16 and len(seen) == 16


def test_seconds_stamp_is_strftimes():
    import random
    from datetime import datetime, timedelta, timezone

    from kschedlab.plugins.dynamic_resources import _seconds_stamp

    rng = random.Random(7)
    for _ in range(2000):
        dt = datetime(1, 1, 1, tzinfo=timezone.utc) + timedelta(seconds=rng.randrange(315537897599),
                                                                 microseconds=rng.randrange(10 ** 6))
        assert _seconds_stamp(dt) == dt.strftime("%Y-%m-%dT%H:%M:%SZ")


RELABEL_YAML = """
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {rack: r1}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "10"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2, labels: {rack: r2}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "10"}}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: rack-r1}
spec:
  driver: gpu.example.com
  nodeSelector: {nodeSelectorTerms: [{matchExpressions: [{key: rack, operator: In, values: [r1]}]}]}
  pool: {name: rack-r1, generation: 1, resourceSliceCount: 1}
  devices: [{name: gpu-0}, {name: gpu-1}, {name: gpu-2}]
"""


@pytest.mark.parametrize("fast_path", [True, False])
def test_screened_chunks_follow_relabelled_nodes(fast_path):
    """The node dicts of a screened chunk are kept per rows only while no node is set: devices
    reachable by a label move with the label to the other node of the same chunk."""
    from kschedlab.api.core import Node

    objs = load_text(RELABEL_YAML)
    for i in range(3):
        objs += load_text(f"""
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {{name: c{i}, namespace: default}}
spec: {{devices: {{requests: [{{name: r, exactly: {{deviceClassName: gpu}}}}]}}}}
---
apiVersion: v1
kind: Pod
metadata: {{name: p{i}, namespace: default, uid: p{i}}}
spec:
  containers: [{{name: c, resources: {{requests: {{cpu: 100m}}}}}}]
  resourceClaims: [{{name: gpu, resourceClaimName: c{i}}}]
""")
    c = Cluster(admit(objs))
    sched = Scheduler(c, seed=0, fast_path=fast_path)
    assert sched.schedule_one("default/p0").node == "n1"
    for name, rack in (("n1", "r2"), ("n2", "r1")):
        data = c.nodes[name].model_dump(mode="json", by_alias=True, exclude_unset=True)
        data["metadata"]["labels"] = {"rack": rack}
        c.update_node(Node.model_validate(data))
    assert sched.schedule_one("default/p1").node == "n2"
    assert sched.schedule_one("default/p2").node == "n2"


def test_claim_from_a_template_is_dumped_once_and_read_as_stored(monkeypatch):
    """The ResourceClaim controller hands the scheduler the new claim's kept dump: PreEnqueue and
    PreFilter read it without dumping the stored claim again, and it is the stored claim's dump."""
    import json

    from kschedlab.api.resource import ResourceClaim
    from kschedlab.dra.manager import DRAManager
    from kschedlab.scheduler_perf import run_dra_workload

    dumped: list[str] = []
    model_dump = ResourceClaim.model_dump
    claim_dict = DRAManager.claim_dict

    def counted_dump(self, *args, **kwargs):
        if self.status.allocation is None:  # (the claim as the controller created it)
            dumped.append(self.metadata.name)
        return model_dump(self, *args, **kwargs)

    def checked(self, namespace, name):
        found = claim_dict(self, namespace, name)
        obj = self.claim_object(namespace, name)
        if found is not None and not isinstance(obj, dict):
            assert json.dumps(found) == json.dumps(model_dump(obj, by_alias=True, exclude_none=True, mode="json"))
        return found

    monkeypatch.setattr(ResourceClaim, "model_dump", counted_dump)
    monkeypatch.setattr(DRAManager, "claim_dict", checked)
    r = run_dra_workload("SchedulingWithResourceClaimTemplate", nodes=4, init_pods=6, measure_pods=10,
                         max_claims_per_node=4)
    assert r["scheduled"] + r["init_scheduled"] == 16
    assert len(dumped) == 16 and len(set(dumped)) == 16  # each new claim dumped once
