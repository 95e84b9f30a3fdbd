"""Seed section 8 through the scheduler: adminAccess with allocationMode All, and eth1's 10G of
consumable bandwidth shared by 1G claims with shareIDs (exact numbers)."""

from __future__ import annotations

from pathlib import Path

from kschedlab import Scheduler
from kschedlab.api.quantity import Quantity
from kschedlab.dra.manager import dra_manager
from kschedlab.viz.dra import dra_cluster

DATA = Path(__file__).resolve().parents[2] / "datasets"
ADMIN = [DATA / "dra" / "08-admin-access.yaml", DATA / "dra-scheduling" / "admin-access-cluster.yaml"]
CAPACITY = [DATA / "dra" / "08-consumable-capacity.yaml", DATA / "dra-scheduling" / "consumable-capacity-cluster.yaml"]


def results(cluster, ns: str, pod: str) -> list[dict]:
    p = cluster.pods[f"{ns}/{pod}"]
    name = p.status.resource_claim_statuses[0].resource_claim_name
    return dra_manager(cluster).get_claim(ns, name)["status"]["allocation"]["devices"]["results"]


def test_admin_access_gets_every_device_even_in_use():
    cluster, errors = dra_cluster(*ADMIN)
    assert errors == []
    run = Scheduler(cluster, seed=0).run()
    assert {r.pod: r.node for r in run.history} == {"default/trainer": "node-1", "dra-admin/monitor": "node-1",
                                                    "default/inference": "node-1"}
    assert [r["device"] for r in results(cluster, "default", "trainer")] == ["cat-0"]
    monitor = results(cluster, "dra-admin", "monitor")
    assert [(r["device"], r.get("adminAccess")) for r in monitor] == [("cat-0", True), ("cat-1", True)]
    assert [r["device"] for r in results(cluster, "default", "inference")] == ["cat-1"]


def test_consumable_capacity_nine_of_ten_fit():
    cluster, errors = dra_cluster(*CAPACITY)
    assert errors == []
    run = Scheduler(cluster, seed=0).run()
    placed = {r.pod: r.node for r in run.history if r.node}
    assert sorted(placed) == [f"default/net-{i}" for i in range(9)]
    final = {r.pod: r for r in run.history}
    assert final["default/net-9"].node is None
    assert final["default/net-9"].message.startswith("0/1 nodes are available: 1 cannot allocate all claims.")
    shares = set()
    for i in range(9):
        (r,) = results(cluster, "default", f"net-{i}")
        assert r["device"] == "eth1" and Quantity.parse(str(r["consumedCapacity"]["bandwidth"])) == Quantity.parse("1G")
        shares.add(r["shareID"])
    assert len(shares) == 9 and "a671734a-e8e5-11e4-8fde-42010af09327" not in shares


def test_share_ids_repeat_from_run_to_run():
    def share_ids():
        cluster, _ = dra_cluster(*CAPACITY)
        Scheduler(cluster, seed=0).run()
        return [results(cluster, "default", f"net-{i}")[0]["shareID"] for i in range(9)]

    assert share_ids() == share_ids()
