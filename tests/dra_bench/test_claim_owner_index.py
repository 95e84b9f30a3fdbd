"""DRAManager.claims_controlled_by (the ResourceClaim controller's lookup of a pod's claims by
owner) follows the stored claims as they are added, replaced and removed."""

from __future__ import annotations

import random

from kschedlab.cluster import Cluster
from kschedlab.dra.manager import controller_uids, dra_manager


def _claim(name: str, owner: str | None, controller: bool = True) -> dict:
    meta: dict = {"name": name, "namespace": "ns"}
    if owner is not None:
        meta["ownerReferences"] = [{"apiVersion": "v1", "kind": "Pod", "name": owner, "uid": owner,
                                    "controller": controller}]
    return {"metadata": meta, "spec": {}}


def _expected(cluster: Cluster, uid: str) -> list:
    return [o for o in cluster.objects.get("ResourceClaim", {}).values() if uid in controller_uids(o)]


def test_claims_controlled_by_follows_the_stored_claims():
    rng = random.Random(3)
    cluster = Cluster()
    m = dra_manager(cluster)
    owners = ["p0", "p1", "p2", None]
    for step in range(300):
        store = cluster.objects.setdefault("ResourceClaim", {})
        name = f"c{rng.randrange(12)}"
        roll = rng.random()
        if roll < 0.5:  # create or replace (dict or model)
            raw = _claim(name, rng.choice(owners), controller=rng.random() < 0.9)
            if rng.random() < 0.5:
                m.update_claim(raw)
            else:
                store[f"ns/{name}"] = raw
        elif roll < 0.7:
            store.pop(f"ns/{name}", None)
        for uid in ("p0", "p1", "p2", ""):
            assert m.claims_controlled_by(uid) == _expected(cluster, uid), step
