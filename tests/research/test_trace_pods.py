"""The trace's pods and PodGroups made fast (``_TraceObjects``: a validated object per shape,
copied) against the reference: ``model_validate`` of each object's manifest; field by field, the
sets of fields set, and no model, list, dict nor fields-set shared between two objects."""

from __future__ import annotations

import random

import pytest
from pydantic import BaseModel

from kschedlab.api.core import Pod
from kschedlab.api.podgroup import PodGroup
from kschedlab.api.quantity import Quantity
from kschedlab.research.trace import _group_manifest, _manifest, _templates, _TraceObjects, arrivals, generate_trace


def assert_same(fast, ref, path: str = "pod") -> None:
    """``fast`` and ``ref`` equal in every value, type, key order, fields set and private value
    (quantities: in their exact value, format and text)."""
    assert type(fast) is type(ref), path
    if isinstance(ref, BaseModel):
        assert list(fast.__dict__) == list(ref.__dict__), path
        assert fast.__pydantic_fields_set__ == ref.__pydantic_fields_set__, path
        assert fast.__pydantic_extra__ == ref.__pydantic_extra__, path
        assert fast.__pydantic_private__ == ref.__pydantic_private__, path
        for k, v in ref.__dict__.items():
            assert_same(fast.__dict__[k], v, f"{path}.{k}")
    elif isinstance(ref, list):
        assert len(fast) == len(ref), path
        for i, (a, b) in enumerate(zip(fast, ref)):
            assert_same(a, b, f"{path}[{i}]")
    elif isinstance(ref, dict):
        assert list(fast) == list(ref), path
        for k, v in ref.items():
            assert_same(fast[k], v, f"{path}[{k}]")
    elif isinstance(ref, Quantity):
        assert (fast._nanos, fast._format, fast._text, fast._source) == (ref._nanos, ref._format, ref._text,
                                                                         ref._source), path
    else:
        assert fast == ref, path


def mutable_parts(value, out: list) -> list:
    """Every model, list, dict and fields-set reachable from ``value``."""
    if isinstance(value, BaseModel):
        out += [value, value.__pydantic_fields_set__]
        for v in (value.__dict__, value.__pydantic_extra__, value.__pydantic_private__):
            if v is not None:
                out.append(v)
                mutable_parts(v, out)
        for v in value.__dict__.values():
            mutable_parts(v, out)
    elif isinstance(value, (list, dict)):
        out.append(value)
        for v in (value.values() if isinstance(value, dict) else value):
            mutable_parts(v, out)
    else:
        assert isinstance(value, (type(None), str, int, float, Quantity)), type(value)
    return out


def rows(seed: int, count: int):
    """Random rows: the generator's shapes plus edge values (zero requests, negative priority)."""
    rng = random.Random(seed)
    for i in range(count):
        yield (f"job-{i}-{rng.randrange(4)}", rng.choice([0, 100, 500, rng.randrange(64001)]),
               rng.choice([0, 64, rng.randrange(1 << 20)]), rng.choice([0, 0, 1, 2, 8, rng.randrange(100)]),
               rng.choice([0, 100, 1000, -5, 2**31 - 1]), rng.choice([None, None, f"job-{i}"]))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fast_trace_pods_equal_validated_manifests_and_share_nothing(seed):
    template, group_template = _templates()
    make = _TraceObjects(template, group_template)
    made, seen = [], {}
    for row in rows(seed, 300):
        fast, ref = make.pod(*row), Pod.model_validate(_manifest(template, *row))
        assert_same(fast, ref)
        assert fast.model_dump(mode="json", by_alias=True) == ref.model_dump(mode="json", by_alias=True)
        assert fast.model_dump(exclude_unset=True) == ref.model_dump(exclude_unset=True)
        made.append(fast)  # (held: no id is reused)
        for part in mutable_parts(fast, []):
            assert seen.setdefault(id(part), row) is row, f"{type(part).__name__} shared with {seen[id(part)]}"
    # a written pod leaves the next one as validated
    made[0].spec.node_name = "n1"
    made[0].spec.containers[0].resources.requests["cpu"] = Quantity.parse("1")
    row = next(rows(seed, 1))
    assert_same(make.pod(*row), Pod.model_validate(_manifest(template, *row)))


def test_fast_pod_groups_equal_validated_manifests_and_share_nothing():
    template = _templates()[1]
    make = _TraceObjects(_templates()[0], template)
    rng = random.Random(7)
    made, seen = [], {}
    for i in range(200):
        row = (f"job-{i}", rng.choice([2, 4, 16, rng.randrange(2, 1000)]), rng.choice([0, 100, 1000, -1]))
        fast, ref = make.group(*row), PodGroup.model_validate(_group_manifest(template, *row))
        assert_same(fast, ref)
        fast.metadata.uid = ref.metadata.uid = f"uid-{i}"  # as arrivals() gives it
        assert_same(fast, ref)
        assert fast.model_dump(mode="json", by_alias=True) == ref.model_dump(mode="json", by_alias=True)
        assert fast.model_dump(exclude_unset=True) == ref.model_dump(exclude_unset=True)
        made.append(fast)
        for part in mutable_parts(fast, []):
            assert seen.setdefault(id(part), row) is row, f"{type(part).__name__} shared with {seen[id(part)]}"


def test_streamed_trace_pods_equal_validated_manifests():
    trace = generate_trace(pods=400, seed=4)
    template = _templates()[0]
    groups = {str(j) for j, g in zip(trace["job"], trace["gang"]) if g > 1}
    by_name = {f"{j}-{i}": (int(c), int(m), int(g), int(p), str(j) if str(j) in groups else None)
               for j, c, m, g, p, n in zip(*(trace[k] for k in ("job", "cpu", "memory", "gpu", "priority", "gang")))
               for i in range(int(n))}
    objects = [obj for _, obj, _ in arrivals(trace)]
    pods = [obj for obj in objects if isinstance(obj, Pod)]
    assert len(pods) == 400 and len(objects) == 400 + len(groups)
    for pod in pods:
        assert_same(pod, Pod.model_validate(_manifest(template, pod.metadata.name, *by_name[pod.metadata.name])))
    gangs = dict(zip(trace["job"].astype(str), zip(trace["gang"], trace["priority"])))
    for group in objects:
        if isinstance(group, PodGroup):
            ref = PodGroup.model_validate(_group_manifest(_templates()[1], group.metadata.name,
                                                          *map(int, gangs[group.metadata.name])))
            ref.metadata.uid = group.metadata.uid
            assert_same(group, ref)
