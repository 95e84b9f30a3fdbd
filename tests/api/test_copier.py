"""``api.meta.copier`` (what to copy worked out once per object) against ``K8sModel.clone``'s rule
(``_clone``, the plain recursive copy): on seeded random pods and models with extra and private
values, sets and tuples, each copy equal to the clone in every value, type, key order and fields
set, sharing what the clone shares and nothing else, with copies changed between copies."""

from __future__ import annotations

import random
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, PrivateAttr

from kschedlab.api._base import _clone
from kschedlab.api.core import Pod
from kschedlab.api.meta import copier
from tests.seeds import seeds


class _Loose(BaseModel):
    """A model with the parts API models rarely have: extra values, a private dict, sets, tuples."""

    model_config = ConfigDict(extra="allow")
    tags: set[str] = set()
    pair: tuple[int, ...] = ()
    inner: list[Any] = []
    _notes: dict = PrivateAttr(default_factory=dict)


def random_pod(rng: random.Random) -> Pod:
    def some(make, most=3):
        return [make(i) for i in range(rng.randrange(most + 1))]

    def resources():
        return {kind: {r: rng.choice(["1", "250m", "2Gi", "3"]) for r in rng.sample(["cpu", "memory", "gpu"],
                                                                                     rng.randrange(3))}
                for kind in rng.sample(["requests", "limits"], rng.randrange(3))}

    manifest = {"metadata": {"name": f"p{rng.randrange(99)}", "namespace": rng.choice(["default", "ns"]),
                             "labels": {f"k{i}": f"v{rng.randrange(3)}" for i in range(rng.randrange(4))},
                             "annotations": {"a": "b"} if rng.random() < 0.3 else {}},
                "spec": {"containers": some(lambda i: {"name": f"c{i}", "image": "x", "resources": resources(),
                                                       "ports": some(lambda j: {"containerPort": 80 + j}, 2)}, 3),
                         "tolerations": some(lambda i: {"key": f"t{i}", "operator": "Exists"}, 2),
                         "priority": rng.choice([None, 0, 7])}}
    if rng.random() < 0.5:
        manifest["spec"]["nodeSelector"] = {"zone": rng.choice(["a", "b"])}
    if rng.random() < 0.3:
        manifest["spec"]["schedulingGroup"] = {"podGroupName": "g"}
    return Pod.model_validate(manifest)


def random_loose(rng: random.Random, depth: int = 0) -> _Loose:
    inner: list[Any] = [rng.choice(["s", 1, 2.5, None])]
    if depth < 2:
        inner += [random_loose(rng, depth + 1) for _ in range(rng.randrange(3))]
        inner.append({"m": random_loose(rng, depth + 1), "n": [1, {"x": "y"}]})
    model = _Loose(tags={f"t{i}" for i in range(rng.randrange(3))}, pair=tuple(range(rng.randrange(3))),
                   inner=inner, **({"more": {"deep": [rng.randrange(9)]}} if rng.random() < 0.5 else {}))
    model._notes.update({"seen": [depth]} if rng.random() < 0.5 else {})
    return model


def assert_same(copy, ref, path: str = "obj") -> None:
    """Equal in type, value, key order, fields set, extra and private values, at every level."""
    assert type(copy) is type(ref), path
    if isinstance(ref, BaseModel):
        assert list(copy.__dict__) == list(ref.__dict__), path
        assert copy.__pydantic_fields_set__ == ref.__pydantic_fields_set__, path
        for part in ("__dict__", "__pydantic_extra__", "__pydantic_private__"):
            assert_same(getattr(copy, part), getattr(ref, part), f"{path}.{part}")
    elif isinstance(ref, (list, tuple)):
        assert len(copy) == len(ref), path
        for i, (a, b) in enumerate(zip(copy, ref)):
            assert_same(a, b, f"{path}[{i}]")
    elif isinstance(ref, dict):
        assert list(copy) == list(ref), path
        for k, v in ref.items():
            assert_same(copy[k], v, f"{path}[{k}]")
    else:
        assert copy == ref, path


def parts(value, mutable: list, shared: list) -> None:
    """The containers reachable from ``value`` (``mutable``) and everything else (``shared``)."""
    if isinstance(value, BaseModel):
        mutable += [value, value.__pydantic_fields_set__]
        for part in (value.__dict__, value.__pydantic_extra__, value.__pydantic_private__):
            parts(part, mutable, shared)
    elif isinstance(value, (list, tuple, dict, set)):
        mutable.append(value)
        for v in (value.values() if isinstance(value, dict) else value):
            parts(v, mutable, shared)
    elif value is not None:
        shared.append(value)


def check_copy(copy, original) -> None:
    ref = _clone(original)
    assert_same(copy, ref)
    copy_mutable, copy_shared, ref_mutable, ref_shared, orig_mutable = [], [], [], [], []
    parts(copy, copy_mutable, copy_shared)
    parts(ref, ref_mutable, ref_shared)
    parts(original, orig_mutable, [])
    assert [id(x) for x in copy_shared] == [id(x) for x in ref_shared]  # shares what the clone shares
    owned = {id(x) for x in orig_mutable if not isinstance(x, tuple) or x}  # (an empty tuple is a singleton)
    assert not owned & {id(x) for x in copy_mutable if not isinstance(x, tuple) or x}


def mutate(rng: random.Random, value) -> None:
    """Change one container reachable from ``value`` in place."""
    mutable: list = []
    parts(value, mutable, [])
    target = rng.choice([m for m in mutable if not isinstance(m, tuple)])
    if isinstance(target, BaseModel):
        target.__dict__[next(iter(target.__dict__))] = "changed"
    elif isinstance(target, list):
        target.append("added")
    elif isinstance(target, dict):
        target["added"] = ["x"]
    else:
        target.add("added")


@pytest.mark.parametrize("seed", seeds(6))
@pytest.mark.parametrize("kind", [random_pod, random_loose])
def test_copies_equal_the_clone_and_own_their_containers(seed, kind):
    rng = random.Random(seed)
    for _ in range(40):
        original = kind(rng)
        make = copier(original)
        made = []
        for _ in range(4):
            copy = make()
            check_copy(copy, original)
            mutate(rng, copy)  # a copy changed leaves the next one (and the original) as they were
            made.append(copy)
        ids = [{id(x) for x in _mutable(m)} for m in made]
        assert all(not (a & b) for i, a in enumerate(ids) for b in ids[i + 1:])


def _mutable(value) -> list:
    out: list = []
    parts(value, out, [])
    return [x for x in out if not isinstance(x, tuple) or x]


def test_plain_values_and_bare_containers():
    for value in ("s", 3, None, [], {}, [[], {}], {"a": {}}, ({"x": 1},), {1, 2}):
        copy = copier(value)()
        assert copy == value and type(copy) is type(value)
        if isinstance(value, (list, dict, set)):
            assert copy is not value
