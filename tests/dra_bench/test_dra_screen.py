"""Allocator.screen (many nodes answered at once from DeviceIndex arrays) gives what the search
gives on each node: the same devices in the same order, shareIDs, errors and messages, search
statistics and CEL evaluations, over seeded random slices, claims and allocated devices; and a
scheduling run with it places every pod and device as one without it."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from kschedlab.dra.allocator import UNDECIDED, AllocatedState, AllocationError, Allocator, DRAFeatures, Screened
from kschedlab.dra.allocator_cache import AllocatorCache
from kschedlab.dra.device_index import DeviceIndex
from kschedlab.dra.devices import read_claim, read_slice
from kschedlab.dra.trace import AllocationTrace
from tests.seeds import seeds

DRIVER = "gpu.example.com"
CLASSES = [
    {"metadata": {"name": "gpu"}, "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}},
    {"metadata": {"name": "model-a"}, "spec": {"selectors": [
        {"cel": {"expression": f'device.attributes["{DRIVER}"].model == "a"'}}]}},
    {"metadata": {"name": "any"}, "spec": {}},
    # a runtime error on devices without a numa attribute
    {"metadata": {"name": "numa"}, "spec": {"selectors": [
        {"cel": {"expression": f'device.attributes["{DRIVER}"].numa >= 1'}}]}},
]
REQUEST_SELECTORS = [
    None,
    [{"cel": {"expression": f'device.attributes["{DRIVER}"].model != "c"'}}],
    [{"cel": {"expression": 'device.driver.startsWith("gpu")'}}],
]


def _device(rng: random.Random, i: int) -> dict:
    d: dict = {"name": f"dev-{i}", "attributes": {"model": {"string": rng.choice("abc")}}}
    if rng.random() < 0.9:
        d["attributes"]["numa"] = {"int": rng.randrange(2)}
    roll = rng.random()
    if roll < 0.05:
        d["taints"] = [{"key": "broken", "effect": rng.choice(["NoSchedule", "NoExecute"])}]
    elif roll < 0.08:
        d["taints"] = [{"key": "soft", "effect": "PreferNoSchedule"}]
    elif roll < 0.11:
        d["allowMultipleAllocations"] = True
        d["capacity"] = {"mem": {"value": "4Gi"}}
    elif roll < 0.14:
        d["bindingConditions"] = ["attached"]
        d["bindingFailureConditions"] = ["failed"]
    elif roll < 0.16:
        d["consumesCounters"] = [{"counterSet": "missing", "counters": {"c": {"value": "1"}}}]  # invalid pool
    elif roll < 0.19:
        d["capacity"] = {"mem": {"value": "4Gi", "requestPolicy": {"default": "1Gi"}}}
    return d


def _slices(rng: random.Random, nodes: int) -> list[dict]:
    out = []
    k = 0
    for n in range(nodes):
        name = f"n{n}"
        shape = rng.random()
        count = 2 if shape < 0.15 else 1
        published = 1 if shape < 0.05 else count  # some pools still incomplete
        for j in range(published):
            devices = []
            for _ in range(rng.randrange(0, 5)):
                devices.append(_device(rng, k))
                k += 1
            if shape > 0.97 and devices:
                devices.append(dict(devices[0]))  # a duplicate name: invalid pool
            out.append({"metadata": {"name": f"{name}-{j}"}, "spec": {
                "driver": DRIVER, "nodeName": name,
                "pool": {"name": name, "generation": 1, "resourceSliceCount": count}, "devices": devices}})
    if rng.random() < 0.4:  # a pool every node sees (its devices are not simple: not bound to one node)
        out.append({"metadata": {"name": "shared"}, "spec": {
            "driver": DRIVER, "allNodes": True, "pool": {"name": "shared", "generation": 1, "resourceSliceCount": 1},
            "devices": [_device(rng, 1000 + i) for i in range(3)]}})
    if rng.random() < 0.05:  # a node selector that cannot be evaluated: gathering the pools fails
        out.append({"metadata": {"name": "bad"}, "spec": {
            "driver": DRIVER, "nodeSelector": {"nodeSelectorTerms": [{"matchExpressions": [
                {"key": "zone", "operator": "Sideways", "values": ["z"]}]}]},
            "pool": {"name": "bad", "generation": 1, "resourceSliceCount": 1}, "devices": [_device(rng, 3000)]}})
    if rng.random() < 0.3:  # per-device node selection
        out.append({"metadata": {"name": "per-device"}, "spec": {
            "driver": DRIVER, "perDeviceNodeSelection": True,
            "pool": {"name": "per-device", "generation": 1, "resourceSliceCount": 1},
            "devices": [{**_device(rng, 2000 + i), "nodeName": f"n{i}"} for i in range(2)]}})
    return out


def _claim(rng: random.Random, i: int) -> dict:
    def request(name: str) -> dict:
        exact: dict = {"deviceClassName": rng.choice(CLASSES)["metadata"]["name"], "allocationMode": "ExactCount",
                       "count": rng.choice([1, 1, 1, 2, 3])}
        sels = rng.choice(REQUEST_SELECTORS)
        if sels:
            exact["selectors"] = sels
        if rng.random() < 0.05:
            exact["adminAccess"] = True
        if rng.random() < 0.05:
            exact["capacity"] = {"requests": {"mem": "1Gi"}}
        return {"name": name, "exactly": exact}

    requests = [request("r0")]
    spec: dict = {"devices": {"requests": requests}}
    roll = rng.random()
    if roll < 0.1:
        requests.append(request("r1"))
    elif roll < 0.15:
        spec["devices"]["constraints"] = [{"matchAttribute": f"{DRIVER}/model"}]
    elif roll < 0.2:
        requests[0] = {"name": "r0", "exactly": {**requests[0]["exactly"], "allocationMode": "All"}}
    return {"metadata": {"name": f"c{i}", "namespace": "ns", "uid": f"u{i}"}, "spec": spec}


def _outcome(call):
    try:
        result = call()
    except AllocationError as err:
        return type(err).__name__, str(err)
    if callable(result):
        try:
            result = result()
        except AllocationError as err:
            return "build " + type(err).__name__, str(err)
    return "ok", json.dumps(result, sort_keys=True)


@pytest.mark.parametrize("seed", seeds(60))
def test_screen_equals_the_search(seed):
    rng = random.Random(seed)
    raw_slices = _slices(rng, rng.randrange(3, 12))
    nodes = [{"metadata": {"name": f"n{n}", "labels": {"zone": "z"}}} for n in range(12)]
    features = DRAFeatures.from_gates({"DRADeviceTaints": rng.random() < 0.8})
    fast_slices = [read_slice(s) for s in raw_slices]
    slow_slices = [read_slice(s) for s in raw_slices]  # own devices: CEL results are kept apart
    ids = [(DRIVER, (s["spec"]["pool"]["name"]), d["name"]) for s in raw_slices for d in s["spec"]["devices"]]
    allocated: set = set(rng.sample(ids, len(ids) // 3)) if ids else set()
    cache = AllocatorCache()
    answered = 0
    for round_ in range(6):  # one allocator per pod, as the scheduler does
        claims = [read_claim(_claim(rng, round_))]
        fast = Allocator(features, AllocatedState(set(allocated)), CLASSES, fast_slices, cache=cache)
        slow = Allocator(features, AllocatedState(set(allocated)), CLASSES, slow_slices)
        for attempt in range(2):  # the second time, the claims are prepared and results kept
            found = fast.screen(nodes, claims)
            assert len(found.kinds) == len(nodes)
            for k, node in enumerate(nodes):
                answer = found.answer(k)
                expected = _outcome(lambda: slow.allocate(node, claims, trace=AllocationTrace()))  # noqa: B023 (_outcome calls it at once)
                if answer is UNDECIDED:
                    got = _outcome(lambda: fast.allocate_deferred(node, claims))  # noqa: B023 (_outcome calls it at once)
                else:
                    answered += 1
                    got = _outcome(lambda: (_ for _ in ()).throw(answer) if isinstance(answer, Exception)  # noqa: B023 (_outcome calls it at once)
                                   else answer)  # noqa: B023 (_outcome calls it at once)
                assert got == expected, (seed, round_, attempt, node["metadata"]["name"])
            assert fast.stats == slow.stats, (seed, round_, attempt)
        # the pod lands on the first node that fits: its devices are allocated for the next pod
        for node in nodes:
            try:
                result = slow.allocate(node, claims)
            except AllocationError:
                continue
            if result:
                for r in result[0]["devices"]["results"]:
                    if not r.get("adminAccess") and "shareID" not in r:
                        allocated.add((r["driver"], r["pool"], r["device"]))
                break
        if rng.random() < 0.3 and allocated:  # a claim freed
            allocated.discard(sorted(allocated)[rng.randrange(len(allocated))])
    if seed == 0:
        assert answered > 0


def test_screen_answers_without_the_search():
    def slices():  # each allocator its own devices: CEL results are kept apart
        return [read_slice({"metadata": {"name": f"n{i}"}, "spec": {
            "driver": DRIVER, "nodeName": f"n{i}", "pool": {"name": f"n{i}", "generation": 1, "resourceSliceCount": 1},
            "devices": [{"name": f"d{j}"} for j in range(3)]}}) for i in range(3)]

    nodes = [{"metadata": {"name": f"n{i}"}} for i in range(3)]
    claim = read_claim({"metadata": {"name": "c"}, "spec": {"devices": {"requests": [
        {"name": "r", "exactly": {"deviceClassName": "gpu", "allocationMode": "ExactCount", "count": 2}}]}}})
    full = {(DRIVER, "n0", f"d{j}") for j in range(3)} | {(DRIVER, "n1", "d0"), (DRIVER, "n1", "d1")}
    a = Allocator(None, AllocatedState(full), CLASSES, slices())
    search = Allocator(None, AllocatedState(full), CLASSES, slices())
    first = a.screen(nodes, [claim])
    # the class selector is evaluated on the free devices the search would evaluate (n1: d2; n2: d0,
    # d1), once each: n0 has nothing free, n1 one device of two, n2 its first two devices
    assert first.kinds.tolist() == [Screened.NO_FIT, Screened.NO_FIT, Screened.FIT]
    for node in nodes:
        search.allocate(node, [claim], trace=AllocationTrace())
    # n0: nothing free (1 call); n1: one device of two (every subset: 2 calls); n2: 2 taken + 3
    assert a.stats == search.stats == {"allocate_one": 1 + 2 + 5, "cel_evaluations": 3}
    second = a.screen(nodes, [claim])
    assert second.kinds.tolist() == [Screened.NO_FIT, Screened.NO_FIT, Screened.FIT]
    assert a.stats == {"allocate_one": 2 * 8, "cel_evaluations": 3}  # nothing evaluated again
    assert [r["device"] for r in second.builder(2)()[0]["devices"]["results"]] == ["d0", "d1"]
    assert a.stats["allocate_one"] == 16  # building is not counted again


def test_screen_leaves_a_node_whose_evaluation_raises_to_the_search():
    def slices():
        return [read_slice({"metadata": {"name": "n0"}, "spec": {
            "driver": DRIVER, "nodeName": "n0", "pool": {"name": "n0", "generation": 1, "resourceSliceCount": 1},
            "devices": [{"name": "d0"}, {"name": "d1", "attributes": {"numa": {"int": 1}}}]}})]

    node = {"metadata": {"name": "n0"}}
    claim = read_claim({"metadata": {"name": "c"}, "spec": {"devices": {"requests": [
        {"name": "r", "exactly": {"deviceClassName": "numa", "allocationMode": "ExactCount", "count": 1}}]}}})
    a = Allocator(None, AllocatedState(), CLASSES, slices())
    search = Allocator(None, AllocatedState(), CLASSES, slices())
    assert a.screen([node], [claim]).kinds.tolist() == [Screened.UNDECIDED]  # d0 has no numa attribute
    assert a.stats == {"allocate_one": 0, "cel_evaluations": 0}
    assert _outcome(lambda: a.allocate_deferred(node, [claim])) == _outcome(
        lambda: search.allocate(node, [claim], trace=AllocationTrace()))
    assert a.stats == search.stats


def test_device_index_follows_the_allocated_devices():
    s = read_slice({"metadata": {"name": "s"}, "spec": {"driver": DRIVER, "nodeName": "n",
                                                      "pool": {"name": "n", "generation": 1, "resourceSliceCount": 1},
                                                      "devices": [{"name": f"d{j}"} for j in range(4)]}})
    index = DeviceIndex([s])
    rng = random.Random(7)
    for _ in range(50):
        ids = {(DRIVER, "n", f"d{j}") for j in range(4) if rng.random() < 0.5}
        index.set_allocated(ids)
        assert index.allocated.tolist() == [(DRIVER, "n", f"d{j}") in ids for j in range(4)]
    assert np.array_equal(index.node_positions([])[0], np.zeros(0, dtype=np.int64))


def _placements(monkeypatch, name: str, screen: bool) -> tuple[dict, dict, dict]:
    import kschedlab.scheduler_perf.dra as sp
    from kschedlab.dra.devices import as_dict

    captured = {}

    class Kept(sp.Cluster):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            captured["cluster"] = self

    with monkeypatch.context() as m:
        m.setattr(sp, "Cluster", Kept)
        if not screen:
            from kschedlab.plugins.dynamic_resources import DynamicResources

            m.setattr(DynamicResources, "_allocated_only", lambda self, s, snapshot, rows: None)
            m.setattr(Allocator, "screen", lambda self, nodes, claims: Screened(
                self, nodes, claims, np.full(len(nodes), Screened.UNDECIDED, dtype=np.int8), lambda k: None))
        result = sp.run_dra_workload(name, nodes=12, init_pods=40, measure_pods=40, max_claims_per_node=6,
                                     keep_traces=0)
    cluster = captured["cluster"]
    claims = {}
    for key, obj in cluster.objects.get("ResourceClaim", {}).items():
        status = as_dict(obj).get("status") or {}
        (status.get("allocation") or {}).pop("allocationTimestamp", None)
        claims[key] = status
    return {k: p.spec.node_name for k, p in cluster.pods.items()}, claims, result


@pytest.mark.parametrize("name", ["SchedulingWithResourceClaimTemplate", "SchedulingWithResourceClaim"])
def test_scheduling_with_and_without_screen_places_the_same(monkeypatch, name):
    pods, claims, result = _placements(monkeypatch, name, True)
    pods_plain, claims_plain, result_plain = _placements(monkeypatch, name, False)
    assert pods == pods_plain and claims == claims_plain
    assert result["scheduled"] == result_plain["scheduled"] and result["unschedulable"] == result_plain["unschedulable"]
    if name == "SchedulingWithResourceClaimTemplate":  # 80 pods, 72 devices: the last pods find none
        assert result["unschedulable"] == 8


@pytest.mark.parametrize("seed", seeds(5))
def test_screen_equals_the_search_when_the_kept_results_log_is_cleared(monkeypatch, seed):
    """Past its limit the log of kept selector results is cleared: indexes read every unknown
    entry again, with the same answers."""
    import kschedlab.dra.device_index as device_index

    monkeypatch.setattr(device_index, "_LOG_LIMIT", 3)
    test_screen_equals_the_search(seed)


@pytest.mark.parametrize("seed", seeds(5))
def test_screen_equals_the_search_when_node_slots_are_dropped(monkeypatch, seed):
    import kschedlab.dra.device_index as device_index

    monkeypatch.setattr(device_index, "_SLOT_LIMIT", 2)
    test_screen_equals_the_search(seed)


def test_node_dicts_follow_node_changes():
    """DynamicResources hands the allocator the same node dict from one cycle to the next, and a
    new one once the node's labels changed (a new object or the same one changed in place)."""
    from kschedlab.api.core import Node
    from kschedlab.cluster import Cluster
    from kschedlab.plugins.dynamic_resources import DynamicResources

    cluster = Cluster([Node.model_validate({"metadata": {"name": f"n{i}", "labels": {"zone": "a"}}})
                       for i in range(3)])
    plugin = DynamicResources()
    snapshot = cluster.snapshot
    first = plugin._node_dicts_for(snapshot, [0, 1, 2])
    again = plugin._node_dicts_for(snapshot, [2, 0])
    assert again[0] is first[2] and again[1] is first[0]
    replaced = Node.model_validate({"metadata": {"name": "n1", "labels": {"zone": "b"}}})
    snapshot.update_node(replaced)
    node = snapshot.nodes[0]
    node.metadata.labels["zone"] = "c"
    snapshot.update_node(node)
    after = plugin._node_dicts_for(snapshot, [0, 1, 2])
    assert [d["metadata"]["labels"]["zone"] for d in after] == ["c", "b", "a"]
    assert after[2] is first[2] and after[0] is not first[0] and first[0]["metadata"]["labels"]["zone"] == "a"


@pytest.mark.parametrize("seed", seeds(20))
def test_selector_mask_equals_selector_matches(seed):
    """The node selector over label columns says what ``selector_matches`` says node by node, or
    gives up (None) where a requirement could raise or compares numbers."""
    from kschedlab.api.core import Node
    from kschedlab.cluster import Cluster
    from kschedlab.dra.nodeselector import NodeSelectorError, selector_mask, selector_matches

    rng = random.Random(seed)
    nodes = []
    for i in range(8):
        labels = {k: rng.choice(["a", "b", "1", "7"]) for k in ("zone", "rack", "gen") if rng.random() < 0.7}
        nodes.append(Node.model_validate({"metadata": {"name": f"n{i}", "labels": labels}}))
    snapshot = Cluster(nodes).snapshot
    rows = np.arange(8)

    def requirement(field: bool) -> dict:
        if field:
            return {"key": rng.choice(["metadata.name", "metadata.name", "spec.x"]),
                    "operator": rng.choice(["In", "NotIn", "Exists"]),
                    "values": rng.sample([f"n{i}" for i in range(10)], rng.choice([1, 1, 2]))}
        return {"key": rng.choice(["zone", "rack", "gen", "none"]),
                "operator": rng.choice(["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Bogus"]),
                "values": rng.sample(["a", "b", "1", "7", "x"], rng.randrange(0, 3))}

    answered = 0
    for _ in range(40):
        terms = [{"matchExpressions": [requirement(False) for _ in range(rng.randrange(0, 3))],
                  "matchFields": [requirement(True) for _ in range(rng.randrange(0, 2))]}
                 for _ in range(rng.randrange(0, 3))]
        selector = {"nodeSelectorTerms": terms}
        mask = selector_mask(selector, rows, snapshot.label_codes, snapshot.index.get)
        if mask is None:
            continue
        answered += 1
        for row in range(8):
            node = {"metadata": {"name": f"n{row}", "labels": dict(nodes[row].metadata.labels or {})}}
            try:
                expected = selector_matches(selector, node)
            except NodeSelectorError:  # never for a selector the mask answers
                raise AssertionError(selector) from None
            assert bool(mask[row]) == expected, (selector, row)
    assert answered > 5


def _kept_answers_run(seed: int) -> tuple[int, int]:
    """Many pods of a few claim shapes on one device index, against the search on devices of
    their own, with devices taken and freed between pods and selector results arriving outside
    the screen (a search on one node for another shape); returns (answers handed out from
    what was kept, nodes answered)."""
    rng = random.Random(seed)
    raw_slices = _slices(rng, rng.randrange(4, 12))
    nodes = [{"metadata": {"name": f"n{n}", "labels": {"zone": "z"}}} for n in range(12)]
    features = DRAFeatures.from_gates({"DRADeviceTaints": True})
    fast_slices = [read_slice(s) for s in raw_slices]
    slow_slices = [read_slice(s) for s in raw_slices]
    ids = [(DRIVER, (s["spec"]["pool"]["name"]), d["name"]) for s in raw_slices for d in s["spec"]["devices"]]
    allocated: set = set(rng.sample(ids, len(ids) // 4)) if ids else set()
    shapes = [_claim(rng, i) for i in range(3)]
    cache = AllocatorCache()
    kept_hits = answered = 0
    for round_ in range(25):
        claims = [read_claim(rng.choice(shapes))]
        fast = Allocator(features, AllocatedState(set(allocated)), CLASSES, fast_slices, cache=cache)
        slow = Allocator(features, AllocatedState(set(allocated)), CLASSES, slow_slices)
        index = cache.device_index(fast._cache_token) if cache.current(fast._cache_token) else None
        before = None
        if index is not None and fast._screen_plan(claims) is not None:
            plan = fast._screen_plan(claims)
            index.set_allocated(fast.allocated.allocated_devices, fast.allocated.delta)
            before = index.kept_answers((plan.key, plan.count))[0].copy()
        found = fast.screen(nodes, claims)
        if before is not None:
            kept_hits += int((before[:-1] >= 0).sum())
        for k, node in enumerate(nodes):
            answer = found.answer(k)
            expected = _outcome(lambda: slow.allocate(node, claims, trace=AllocationTrace()))  # noqa: B023 (_outcome calls it at once)
            if answer is UNDECIDED:
                got = _outcome(lambda: fast.allocate_deferred(node, claims))  # noqa: B023 (_outcome calls it at once)
            else:
                answered += 1
                got = _outcome(lambda: (_ for _ in ()).throw(answer) if isinstance(answer, Exception)  # noqa: B023 (_outcome calls it at once)
                               else answer)  # noqa: B023 (_outcome calls it at once)
            assert got == expected, (seed, round_, node["metadata"]["name"])
        assert fast.stats == slow.stats, (seed, round_)
        order = list(nodes)
        rng.shuffle(order)
        for node in order:  # the pod lands on some node that fits: its devices are taken
            try:
                result = slow.allocate(node, claims)
            except AllocationError:
                continue
            if result:
                for r in result[0]["devices"]["results"]:
                    if not r.get("adminAccess") and "shareID" not in r:
                        allocated.add((r["driver"], r["pool"], r["device"]))
                break
        if rng.random() < 0.4 and allocated:  # a claim freed
            allocated.discard(sorted(allocated)[rng.randrange(len(allocated))])
        if rng.random() < 0.3:  # selector results kept outside the screen, on both sides
            other = [read_claim(_claim(rng, 100 + round_))]
            node = rng.choice(nodes)
            for a in (Allocator(features, AllocatedState(set(allocated)), CLASSES, fast_slices, cache=cache),
                      Allocator(features, AllocatedState(set(allocated)), CLASSES, slow_slices)):
                _outcome(lambda: a.allocate(node, other))  # noqa: B023 (_outcome calls it at once)
    return kept_hits, answered


@pytest.mark.parametrize("seed", seeds(30))
def test_kept_screen_answers_equal_the_search(seed):
    """Nodes answered from the answers kept per slot give what the search gives, pod after pod,
    as devices are taken and freed and selector results arrive late."""
    kept_hits, answered = _kept_answers_run(seed)
    if seed == 0:
        assert kept_hits > 0 and answered > 0


def test_kept_screen_answers_are_dropped_when_a_device_changes(monkeypatch):
    """Without dropping a node's kept answer when its devices change, the screen answers wrong:
    the run above notices."""
    monkeypatch.setattr(DeviceIndex, "_forget", lambda self, positions: None)
    with pytest.raises(AssertionError):
        for seed in range(30):
            _kept_answers_run(seed)


@pytest.mark.parametrize("walk", [0, 1000])
@pytest.mark.parametrize("seed", seeds(12))
def test_screen_walk_and_arrays_equal_the_search(monkeypatch, seed, walk):
    """Nodes screened afresh give the search's answers whether walked one by one or taken
    through the arrays at once (``SCREEN_WALK_NODES``)."""
    import kschedlab.dra.allocator as allocator

    monkeypatch.setattr(allocator, "SCREEN_WALK_NODES", walk)
    test_screen_equals_the_search(seed)
    _kept_answers_run(seed)


def test_screened_allocation_is_built_from_the_picked_devices(monkeypatch):
    """A FIT node's allocation is built from the devices the screen's greedy path takes, without
    running the search there; what it builds is what the search gives (seeded runs above)."""
    import kschedlab.dra.allocator as allocator

    slices = [read_slice({"metadata": {"name": "n0"}, "spec": {
        "driver": DRIVER, "nodeName": "n0", "pool": {"name": "n0", "generation": 1, "resourceSliceCount": 1},
        "devices": [{"name": f"d{j}"} for j in range(4)]}})]
    claim = read_claim({"metadata": {"name": "c"}, "spec": {"devices": {"requests": [
        {"name": "r", "exactly": {"deviceClassName": "gpu", "allocationMode": "ExactCount", "count": 2}}]}}})
    a = Allocator(None, AllocatedState({(DRIVER, "n0", "d1")}), CLASSES, slices)
    found = a.screen([{"metadata": {"name": "n0"}}], [claim])

    def no_search(self, pools=None, deferred=False):
        raise AssertionError("the search ran")

    monkeypatch.setattr(allocator._Run, "run", no_search)
    results = found.builder(0)()[0]["devices"]["results"]
    assert [(r["request"], r["device"]) for r in results] == [("r", "d0"), ("r", "d2")]


@pytest.mark.parametrize("seed", seeds(3))
def test_wrong_picks_are_noticed(monkeypatch, seed):
    """Building from other devices than the search's greedy path fails the seeded comparison."""
    original = Allocator._picked

    def shifted(self, plan, index, slot):
        picked = original(self, plan, index, slot)
        return None if picked is None else [p + 1 for p in picked]

    monkeypatch.setattr(Allocator, "_picked", shifted)
    with pytest.raises((AssertionError, IndexError)):
        for s in range(10):
            test_screen_equals_the_search(seed * 10 + s)
