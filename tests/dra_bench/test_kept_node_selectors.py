"""The NodeSelector kept per node for allocations pinned to it (``DRAManager._kept_node_selector``)
changes no stored claim: on one manager, claims written again and again (allocated, given
consumers, deallocated, deleted and created anew, on a few nodes) are each time the model a
validation of the whole dict gives (equal, the same dump, the same fields set at every level), a
selector that is not the one-node form (or is invalid) goes through validation as before, and
claims allocated on one node share one selector model."""

from __future__ import annotations

import copy
import json
import random

import pydantic
import pytest

from kschedlab.api.resource import ResourceClaim
from kschedlab.cluster import Cluster
from kschedlab.dra import manager as manager_module
from kschedlab.dra.manager import FINALIZER, dra_manager
from kschedlab.dra.nodeselector import local_node_selector

NODES = [f"node-{i}" for i in range(5)]


def _near_local(rng, node: str) -> dict:
    """A selector one step from the one-node form: each is validated, some are refused."""
    selector = local_node_selector(node)
    req = selector["nodeSelectorTerms"][0]["matchFields"][0]
    change = rng.randrange(9)
    if change == 0:
        req["operator"] = "NotIn"
    elif change == 1:
        req["values"].append(rng.choice(NODES))
    elif change == 2:
        req["key"] = "metadata.namespace"
    elif change == 3:
        selector["nodeSelectorTerms"][0]["matchExpressions"] = [{"key": "zone", "operator": "In", "values": ["a"]}]
    elif change == 4:
        selector["nodeSelectorTerms"].append({"matchFields": [dict(req)]})
    elif change == 5:
        req["values"] = [7]  # (refused by validation)
    elif change == 6:
        req["operator"] = None
    elif change == 7:
        selector["nodeSelectorTerms"][0]["matchFields"] = []
    else:
        req["extra"] = "x"  # (refused: an unknown field)
    return selector


def _allocation(rng) -> dict:
    node = rng.choice(NODES)
    results = [{"request": f"r{i}", "driver": "d", "pool": node, "device": f"dev-{rng.randrange(4)}"}
               for i in range(rng.randint(1, 2))]
    if rng.random() < 0.3:
        results[0]["consumedCapacity"] = {"memory": "1Gi"}
        results[0]["shareID"] = "0123"
    allocation: dict = {"devices": {"results": results}}
    kind = rng.random()
    if kind < 0.6:
        allocation["nodeSelector"] = local_node_selector(node)
    elif kind < 0.85:
        allocation["nodeSelector"] = _near_local(rng, node)
    if rng.random() < 0.5:
        allocation["allocationTimestamp"] = "2026-12-07T07:00:00Z"
    return allocation


def _claim(name: str, rng) -> dict:
    status = {"reservedFor": []} if rng.random() < 0.5 else {}
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": name, "namespace": "ns", "uid": f"u-{name}-{rng.randrange(99)}"},
            "spec": {"devices": {"requests": [{"name": "r0", "exactly": {"deviceClassName": "gpu"}}]}},
            "status": status}


def _write(m, name: str, rng) -> dict:
    """One write of claim ``name`` on its stored object, as PreBind (or a deallocation) does it."""
    found = m.claim_dict("ns", name)
    current = {**found, "metadata": dict(found["metadata"]), "status": dict(found["status"])}
    status = current["status"]
    step = rng.random()
    if status.get("allocation") and step < 0.3:  # deallocated
        del status["allocation"]
        status["reservedFor"] = []
    elif not status.get("allocation") or step < 0.5:  # allocated (again)
        current["metadata"]["finalizers"] = [FINALIZER]
        status["allocation"] = _allocation(rng)
    status["reservedFor"] = [*status.get("reservedFor", []),
                             {"resource": "pods", "name": f"p{rng.randrange(99)}", "uid": f"pu{rng.randrange(99)}"}]
    return current


def _fields_set(model) -> object:
    """``model_fields_set`` at every level of a model (lists and dicts gone through)."""
    if isinstance(model, pydantic.BaseModel):
        return (sorted(model.model_fields_set), {k: _fields_set(v) for k, v in model.__dict__.items()})
    if isinstance(model, list):
        return [_fields_set(v) for v in model]
    if isinstance(model, dict):
        return {k: _fields_set(v) for k, v in model.items()}
    return None


def _same(stored, current: dict, plain) -> None:
    """``stored`` is the model a validation of ``current`` gives (equal, the same dump) and the
    one ``plain`` (the manager without kept selectors) stored, fields set included."""
    full = ResourceClaim.model_validate(copy.deepcopy(current))
    assert stored == full == plain
    dump = json.dumps(stored.model_dump(by_alias=True, exclude_none=True, mode="json"))
    assert dump == json.dumps(full.model_dump(by_alias=True, exclude_none=True, mode="json"))
    assert dump == json.dumps(plain.model_dump(by_alias=True, exclude_none=True, mode="json"))
    assert _fields_set(stored) == _fields_set(plain)


@pytest.mark.parametrize("seed", range(16))
def test_claims_written_with_kept_selectors_equal_plain_writes(seed, monkeypatch):
    """Two managers get the same writes: one keeps selectors (their limit at 3, so they are
    forgotten now and then), the other validates every selector."""
    rng = random.Random(seed)
    monkeypatch.setattr(manager_module, "_KEPT_NODE_SELECTORS", 3)
    m, p = dra_manager(Cluster()), dra_manager(Cluster())
    p._kept_node_selector = lambda status: status
    names = [f"c{i}" for i in range(6)]
    for name in names:
        claim = _claim(name, rng)
        m.update_claim(copy.deepcopy(claim))
        p.update_claim(claim)
    kinds = {"kept": 0, "validated": 0, "refused": 0}
    for _ in range(60):
        name = rng.choice(names)
        if rng.random() < 0.1:  # deleted and created anew
            claim = _claim(name, rng)
            for manager in (m, p):
                manager.delete_claim({"metadata": {"name": name, "namespace": "ns"}})
                manager.update_claim(copy.deepcopy(claim))
            continue
        step = rng.randrange(1 << 30)
        current, plain = _write(m, name, random.Random(step)), _write(p, name, random.Random(step))
        assert current == plain
        try:
            ResourceClaim.model_validate(copy.deepcopy(current))
        except pydantic.ValidationError:
            for manager, claim in ((m, current), (p, plain)):
                with pytest.raises(pydantic.ValidationError):
                    manager.update_claim(claim, base=manager.claim_object("ns", name))
            kinds["refused"] += 1
            continue
        m.update_claim(current, base=m.claim_object("ns", name))
        p.update_claim(plain, base=p.claim_object("ns", name))
        _same(m.claim_object("ns", name), current, p.claim_object("ns", name))
        assert m.claim_dict("ns", name) == p.claim_dict("ns", name)
        selector = (current["status"].get("allocation") or {}).get("nodeSelector")
        if selector is not None:
            kinds["kept" if selector in map(local_node_selector, NODES) else "validated"] += 1
    assert kinds["kept"] and kinds["validated"], kinds  # (and "refused" in most seeds)


@pytest.mark.parametrize("values", [[7], ["n1", 7], [None]])
def test_an_invalid_one_node_selector_is_refused_as_before(values):
    m = dra_manager(Cluster())
    m.update_claim(_claim("a", random.Random(0)))
    current = _write(m, "a", random.Random(0))
    selector = local_node_selector("n1")
    selector["nodeSelectorTerms"][0]["matchFields"][0]["values"] = values
    current["status"]["allocation"] = {"devices": {"results": []}, "nodeSelector": selector}
    with pytest.raises(pydantic.ValidationError):
        m.update_claim(current, base=m.claim_object("ns", "a"))
    assert not m._node_selectors


def test_claims_allocated_on_one_node_share_one_selector_model():
    rng = random.Random(1)
    m = dra_manager(Cluster())
    stored = []
    for name, node in (("a", "n1"), ("b", "n1"), ("c", "n2")):
        m.update_claim(_claim(name, rng))
        current = _write(m, name, random.Random(0))
        current["status"]["allocation"] = {"devices": {"results": []}, "nodeSelector": local_node_selector(node)}
        m.update_claim(current, base=m.claim_object("ns", name))
        stored.append(m.claim_object("ns", name).status.allocation.node_selector)
    assert stored[0] is stored[1] and stored[0] is not stored[2]
    assert stored[0].node_selector_terms[0].match_fields[0].values == ["n1"]
