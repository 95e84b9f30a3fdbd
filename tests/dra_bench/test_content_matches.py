"""Selector results kept per device content (``Allocator._cached_match``) against an evaluation
of every device."""

import random

import pytest

from kschedlab.dra.allocator import Allocator, DRAFeatures
from kschedlab.dra.devices import read_claim, read_slice
from tests.seeds import covered, seeds

_CLASS = {"metadata": {"name": "gpu"}, "spec": {"selectors": [
    {"cel": {"expression": 'device.attributes["d.example.com"].model == "A100"'}},
    {"cel": {"expression": 'device.capacity["d.example.com"].memory.compareTo(quantity("40Gi")) >= 0'}}]}}


def _random_slices(rng: random.Random, nodes: int) -> list[dict]:
    slices = []
    for n in range(nodes):
        devices = []
        for i in range(rng.randrange(1, 5)):
            device: dict = {"name": f"dev-{i}"}
            if rng.random() < 0.9:
                device["attributes"] = {"model": {"string": rng.choice(["A100", "H100"])}}
                if rng.random() < 0.3:
                    device["attributes"]["cores"] = {"int": rng.choice([8, 16])}
            if rng.random() < 0.8:
                device["capacity"] = {"memory": {"value": rng.choice(["40Gi", "80Gi", "42949672960", "20Gi"])}}
            if rng.random() < 0.2:
                device["allowMultipleAllocations"] = rng.random() < 0.5
            devices.append(device)
        slices.append({"metadata": {"name": f"s{n}"}, "spec": {
            "driver": "d.example.com", "nodeName": f"n{n}",
            "pool": {"name": f"n{n}", "generation": 1, "resourceSliceCount": 1}, "devices": devices}})
    return slices


@pytest.mark.parametrize("seed", seeds(6))
def test_devices_alike_take_the_results_of_the_first_one(seed, monkeypatch):
    """Selector results kept per device content: on random devices (alike and not: models,
    capacities written differently, a device with no capacity, whose selector raises), every
    node allocates as with every device evaluated alone, with the same statistics, and fewer
    evaluations run."""
    import kschedlab.dra.allocator as allocator_module
    from kschedlab.dra.allocator import AllocationError

    rng = random.Random(seed)
    slices = _random_slices(rng, 12)
    claim = read_claim({"metadata": {"name": "c", "namespace": "ns"}, "spec": {"devices": {"requests": [
        {"name": "r", "exactly": {"deviceClassName": "gpu", "allocationMode": "ExactCount", "count": 1}}]}}})
    runs = []
    for kept in (True, False):
        if not kept:  # every device evaluated: no device's content is like another's
            monkeypatch.setattr(allocator_module, "_device_content", lambda d: (id(d),))
        a = Allocator(DRAFeatures(), None, [_CLASS], [read_slice(s) for s in slices])
        evaluated = []
        matches = a._selectors_match

        def counted(selectors, device, where, matches=matches, evaluated=evaluated):
            evaluated.append(device.id)
            return matches(selectors, device, where)

        monkeypatch.setattr(a, "_selectors_match", counted)
        answers = []
        for n in range(12):
            try:
                answers.append(a.allocate({"metadata": {"name": f"n{n}"}}, [claim]))
            except AllocationError as err:
                answers.append(str(err))
        runs.append((answers, dict(a.stats), len(evaluated)))
    (kept_answers, kept_stats, kept_runs), (all_answers, all_stats, all_runs) = runs
    assert kept_answers == all_answers and kept_stats == all_stats
    assert covered(kept_runs < all_runs)
