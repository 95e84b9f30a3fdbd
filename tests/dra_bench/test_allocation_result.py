"""PreBind's allocation built without validation, and selector results kept per device content,
against what they stand for: a full validation, and an evaluation of every device."""

import json
import random

import pytest
from pydantic import ValidationError

from kschedlab.api.resource import AllocationResult
from kschedlab.dra.allocation_result import allocation_result
from kschedlab.dra.allocator import Allocator, DRAFeatures
from kschedlab.dra.devices import read_claim, read_slice


def _maybe_odd(rng: random.Random, value):
    """``value``, or now and then something only validation judges (a null, a number, a list)."""
    roll = rng.random()
    if roll < 0.03:
        return None
    if roll < 0.05:
        return rng.choice([1, True, ["x"], {"a": "b"}])
    return value


def _random_allocation(rng: random.Random) -> dict:
    results = []
    for i in range(rng.randrange(0, 4)):
        entry = {"request": f"r{i}", "driver": "d.example.com", "pool": f"pool-{rng.randrange(3)}",
                 "device": f"dev-{rng.randrange(9)}"}
        for key in list(entry):
            if rng.random() < 0.1:
                del entry[key]
            else:
                entry[key] = _maybe_odd(rng, entry[key])
        if rng.random() < 0.05:
            entry[rng.choice(["adminAccess", "shareID", "bindingConditions", "tolerations", "bogus"])] = \
                rng.choice([True, "s", ["c"], []])
        results.append(dict(rng.sample(list(entry.items()), len(entry))))
    devices: dict = {}
    if rng.random() < 0.95:
        devices["results"] = _maybe_odd(rng, results)
    if rng.random() < 0.3:
        devices["config"] = rng.choice([[], [], [{"source": "FromClass", "requests": ["r0"]}], None])
    allocation: dict = {}
    if rng.random() < 0.95:
        allocation["devices"] = _maybe_odd(rng, dict(rng.sample(list(devices.items()), len(devices))))
    if rng.random() < 0.8:
        terms = []
        for _ in range(rng.randrange(0, 3)):
            term: dict = {}
            for key in ("matchExpressions", "matchFields"):
                if rng.random() < 0.6:
                    reqs = []
                    for _ in range(rng.randrange(0, 3)):
                        req = {"key": rng.choice(["metadata.name", "rack"]), "operator": rng.choice(["In", "Exists"]),
                               "values": [f"n{rng.randrange(5)}" for _ in range(rng.randrange(0, 3))]}
                        for k in list(req):
                            if rng.random() < 0.1:
                                del req[k]
                            else:
                                req[k] = _maybe_odd(rng, req[k])
                        reqs.append(dict(rng.sample(list(req.items()), len(req))))
                    term[key] = reqs
            terms.append(term)
        selector: dict = {"nodeSelectorTerms": _maybe_odd(rng, terms)} if rng.random() < 0.95 else {}
        allocation["nodeSelector"] = _maybe_odd(rng, selector)
    if rng.random() < 0.7:
        allocation["allocationTimestamp"] = _maybe_odd(rng, rng.choice(
            ["2026-12-07T01:00:00Z", "2026-12-07T01:00:00.25+02:00", "2026-12-07", "yesterday"]))
    if rng.random() < 0.03:
        allocation["extra"] = "x"
    return dict(rng.sample(list(allocation.items()), len(allocation)))


def _dump(model) -> str:
    return json.dumps(model.model_dump(by_alias=True, exclude_none=True, mode="json"))


@pytest.mark.parametrize("seed", range(8))
def test_allocation_result_is_the_validated_model_and_dump(seed):
    """On random allocations (plain ones, and ones with nulls, numbers, unknown keys, bad
    timestamps): where ``allocation_result`` answers, the model equals a validation's, with the
    same fields set on every nested model, and the dump is the validated model's, key order
    included; where validation fails, it does not answer."""
    rng = random.Random(seed)
    answered = refused = 0
    for _ in range(300):
        data = _random_allocation(rng)
        made = allocation_result(json.loads(json.dumps(data)))
        try:
            full = AllocationResult.model_validate(json.loads(json.dumps(data)))
        except ValidationError:
            assert made is None, data
            refused += 1
            continue
        if made is None:
            continue
        model, dump = made
        assert model == full
        assert model.model_dump(exclude_unset=True) == full.model_dump(exclude_unset=True)
        assert json.dumps(dump) == _dump(full) == _dump(model)
        answered += 1
    assert answered > 60 and refused > 10  # both kinds were met


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


@pytest.mark.parametrize("seed", range(6))
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
    assert kept_runs < all_runs
