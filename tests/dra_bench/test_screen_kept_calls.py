"""The search's calls kept with the screen's answers (``DeviceIndex.kept_answers``: a kind and
the ``allocate_one`` calls per node): pods of a few claim shapes on one device index, against the
search on devices of their own, with devices taken and freed between pods on nodes where many
devices only the search can judge (tainted), so that a node answered for one pod is left to the
search for the next one and answered again later. Answers (the allocations built from the
screen's picks, with the class's and the claim's config) and statistics are the search's."""

from __future__ import annotations

import json
import random

import pytest

from kschedlab.dra.allocator import UNDECIDED, AllocatedState, AllocationError, Allocator, DRAFeatures
from kschedlab.dra.allocator_cache import AllocatorCache
from kschedlab.dra.device_index import DeviceIndex
from kschedlab.dra.devices import read_claim, read_slice
from kschedlab.dra.trace import AllocationTrace
from tests.seeds import seeds

DRIVER = "gpu.example.com"
CLASSES = [
    {"metadata": {"name": "any"}, "spec": {}},
    {"metadata": {"name": "gpu"}, "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}},
    {"metadata": {"name": "configured"}, "spec": {"config": [
        {"opaque": {"driver": DRIVER, "parameters": {"mode": "shared"}}}]}},
]


def _slices(rng: random.Random, nodes: int) -> list[dict]:
    out = []
    for n in range(nodes):
        devices = []
        for j in range(rng.randrange(1, 6)):
            device: dict = {"name": f"d{j}"}
            if rng.random() < 0.35:  # not simple: only the search judges it
                device["taints"] = [{"key": "k", "effect": "NoSchedule"}]
            devices.append(device)
        out.append({"metadata": {"name": f"n{n}"}, "spec": {
            "driver": DRIVER, "nodeName": f"n{n}", "pool": {"name": f"n{n}", "generation": 1, "resourceSliceCount": 1},
            "devices": devices}})
    return out


def _claim(cls: str, count: int) -> dict:
    devices: dict = {"requests": [
        {"name": "r", "exactly": {"deviceClassName": cls, "allocationMode": "ExactCount", "count": count}}]}
    if cls == "configured":  # the allocation's config: the class's, then the claim's
        devices["config"] = [{"requests": ["r"], "opaque": {"driver": DRIVER, "parameters": {"n": 1}}}]
    return {"metadata": {"name": "c", "namespace": "ns", "uid": "u"}, "spec": {"devices": devices}}


def _outcome(call) -> tuple[str, str]:
    try:
        result = call()
        if callable(result):
            result = result()
    except AllocationError as err:
        return type(err).__name__, str(err)
    return "ok", json.dumps(result, sort_keys=True)


def _run(seed: int) -> tuple[int, int]:
    """The seeded run; returns (answers handed out from what was kept, nodes left to the search)."""
    rng = random.Random(seed)
    raw = _slices(rng, rng.randrange(3, 10))
    nodes = [{"metadata": {"name": s["metadata"]["name"]}} for s in raw]
    features = DRAFeatures.from_gates({"DRADeviceTaints": True})
    fast_slices, slow_slices = [read_slice(s) for s in raw], [read_slice(s) for s in raw]
    ids = [(DRIVER, s["spec"]["pool"]["name"], d["name"]) for s in raw for d in s["spec"]["devices"]]
    allocated = set(rng.sample(ids, len(ids) // 3))
    shapes = [read_claim(_claim(cls, count)) for cls in ("any", "gpu", "configured") for count in (1, 2)]
    cache = AllocatorCache()
    kept = undecided = 0
    for round_ in range(30):
        claims = [rng.choice(shapes)]
        fast = Allocator(features, AllocatedState(set(allocated)), CLASSES, fast_slices, cache=cache)
        slow = Allocator(features, AllocatedState(set(allocated)), CLASSES, slow_slices)
        index = cache.device_index(fast._cache_token) if cache.current(fast._cache_token) else None
        plan = fast._screen_plan(claims)
        if index is not None and plan is not None:
            index.set_allocated(fast.allocated.allocated_devices, fast.allocated.delta)
            kept += int((index.kept_answers((plan.key, plan.count))[0][:-1] >= 0).sum())
        found = fast.screen(nodes, claims)
        for k, node in enumerate(nodes):
            answer = found.answer(k)
            expected = _outcome(lambda: slow.allocate(node, claims, trace=AllocationTrace()))  # noqa: B023 (called at once)
            if answer is UNDECIDED:
                undecided += 1
                got = _outcome(lambda: fast.allocate_deferred(node, claims))  # noqa: B023 (called at once)
            elif isinstance(answer, Exception):
                got = type(answer).__name__, str(answer)
            else:
                got = _outcome(lambda: answer)  # noqa: B023 (called at once)
            assert got == expected, (seed, round_, node["metadata"]["name"])
        assert fast.stats == slow.stats, (seed, round_)
        for dev in rng.sample(ids, rng.randrange(0, 3)):  # devices taken and freed
            allocated.symmetric_difference_update({dev})
    return kept, undecided


@pytest.mark.parametrize("seed", seeds(20))
def test_kept_calls_equal_the_search(seed):
    kept, undecided = _run(seed)
    if seed == 0:
        assert kept > 0 and undecided > 0


def test_calls_kept_with_their_answers(monkeypatch):
    """Keeping a node's new answer without its calls (the calls of an earlier answer read with
    it) counts the search's calls wrong: the run above notices."""
    keep = DeviceIndex.keep_answers

    def keep_kinds_only(self, key, slots, kinds, calls):
        old = self.kept_answers(key)[1][slots[slots >= 0]].copy()
        keep(self, key, slots, kinds, calls)
        self.kept_answers(key)[1][slots[slots >= 0]] = old

    monkeypatch.setattr(DeviceIndex, "keep_answers", keep_kinds_only)
    with pytest.raises(AssertionError):
        for seed in range(20):
            _run(seed)
