"""Seed section 13 (node-pressure eviction) worked examples, with exact numbers, from the
datasets under datasets/kubelet/ as a user would load them."""

from __future__ import annotations

from pathlib import Path

import pytest

from kschedlab.api.core import Node, Pod
from kschedlab.api.loader import load
from kschedlab.api.nodestats import NodeStatsSummary
from kschedlab.api.quantity import Quantity
from kschedlab.kubelet.config import eviction_config, kubelet_config_from_flags, load_kubelet_config, node_allocatable
from kschedlab.kubelet.manager import EvictionState, synchronize
from kschedlab.kubelet.ranking import rank_pods, ranking_frame
from kschedlab.kubelet.signals import make_signal_observations
from kschedlab.kubelet.thresholds import reclaim_target, thresholds_met

DATA = Path(__file__).parent.parent.parent / "datasets" / "kubelet"
Mi, Gi = 2**20, 2**30


def _objects(name):
    return load(DATA / name)


def _one(objs, kind):
    (obj,) = [o for o in objs if isinstance(o, kind)]
    return obj


def _thresholds(ec):
    return [str(t) for t in ec.thresholds]


# ------------------------------------------------------------ 10 GiB node


def test_10gi_node_allocatable_is_capacity_minus_system_reserved_minus_eviction():
    cfg, ec = load_kubelet_config(DATA / "13-reserve-10gi-node.yaml")
    node = _one(_objects("13-reserve-10gi-node.yaml"), Node)
    alloc = node_allocatable(node.status.capacity, ec)
    assert alloc["memory"].value() == 10 * Gi - 1536 * Mi - 500 * Mi == 8204 * Mi
    assert str(alloc["memory"]) == "8204Mi"
    assert alloc["cpu"] == Quantity("4") and alloc["pods"] == Quantity("110")
    assert _thresholds(ec) == ["memory.available<500Mi", "allocatableMemory.available<500Mi"]


def test_10gi_node_the_same_from_the_seed_flags():
    ec = eviction_config(kubelet_config_from_flags(["--eviction-hard=memory.available<500Mi",
                                                    "--system-reserved=memory=1.5Gi"]))
    assert node_allocatable({"memory": "10Gi"}, ec)["memory"].value() == 8204 * Mi


def test_10gi_node_evicts_when_available_memory_drops_below_500mi():
    _, ec = load_kubelet_config(DATA / "13-reserve-10gi-node.yaml")
    summary = _one(_objects("13-reserve-10gi-node.yaml"), NodeStatsSummary).summary()
    obs = make_signal_observations(summary)
    assert obs["memory.available"].available.value() == 499 * Mi
    assert obs["memory.available"].capacity.value() == 10 * Gi
    assert obs["allocatableMemory.available"].capacity.value() == 8704 * Mi   # the pods cgroup: 10Gi - 1.5Gi
    assert [str(t) for t in thresholds_met(ec.thresholds, obs, False)] == ["memory.available<500Mi"]
    state, result = synchronize(ec, EvictionState(), summary, [], now=0.0)
    assert result.node_conditions == ["MemoryPressure"] and result.evicted is None   # no pods to evict


@pytest.mark.parametrize("system_ws, pods_ws, met", [
    (1536 * Mi, 8204 * Mi, []),                                         # exactly 500Mi left: not below
    (1537 * Mi, 8204 * Mi, ["memory.available"]),                       # the system takes 1Mi more
    (1024 * Mi, 8205 * Mi, ["allocatableMemory.available"]),  # pods 1Mi over allocatable (8704Mi cgroup - 500Mi)
    (1024 * Mi, 8204 * Mi, []),
])
def test_10gi_node_who_crosses_the_threshold(system_ws, pods_ws, met):
    _, ec = load_kubelet_config(DATA / "13-reserve-10gi-node.yaml")
    node_ws = system_ws + pods_ws
    summary = {"node": {"memory": {"availableBytes": max(10 * Gi - node_ws, 0), "workingSetBytes": node_ws},
                        "systemContainers": [{"name": "pods", "memory": {
                            "availableBytes": max(8704 * Mi - pods_ws, 0), "workingSetBytes": pods_ws}}]}}
    got = sorted(t.signal for t in thresholds_met(ec.thresholds, make_signal_observations(summary), False))
    assert got == sorted(met)


# --------------------------------------------------------- minimum reclaim


def test_minimum_reclaim_targets():
    _, ec = load_kubelet_config(DATA / "13-minimum-reclaim.yaml")
    by_signal = {t.signal: t for t in ec.thresholds}
    assert reclaim_target(by_signal["nodefs.available"]).value() == 1 * Gi + 500 * Mi == 1524 * Mi
    assert reclaim_target(by_signal["imagefs.available"]).value() == 102 * Gi
    assert reclaim_target(by_signal["memory.available"]).value() == 500 * Mi
    assert str(by_signal["allocatableMemory.available"].min_reclaim) == "0"   # copied with memory's


def test_minimum_reclaim_keeps_reclaiming_until_threshold_plus_reclaim():
    cfg, ec = load_kubelet_config(DATA / "13-minimum-reclaim.yaml")
    summary = _one(_objects("13-minimum-reclaim.yaml"), NodeStatsSummary).summary()
    obs = make_signal_observations(summary)
    assert [t.signal for t in thresholds_met(ec.thresholds, obs, False)] == ["nodefs.available"]
    assert sorted(t.signal for t in thresholds_met(ec.thresholds, obs, True)) == ["imagefs.available",
                                                                                   "nodefs.available"]
    # the kubelet frees dead containers and unused images; 1.4Gi free is not yet 1524Mi
    ec = ec.with_filesystems("single")
    after = {"node": {**summary["node"], "fs": {**summary["node"]["fs"], "availableBytes": 1433 * Mi}}}
    state, r = synchronize(ec, EvictionState(), summary, [], now=0.0, summary_after_reclaim=lambda steps: after)
    assert r.node_reclaim == ("DeleteAllUnusedContainers", "DeleteUnusedImages")
    assert not r.node_reclaim_sufficient
    assert r.node_conditions == ["DiskPressure"]
    after["node"]["fs"]["availableBytes"] = 1524 * Mi
    after["node"]["runtime"] = {"imageFs": {**summary["node"]["runtime"]["imageFs"], "availableBytes": 102 * Gi}}
    _, r = synchronize(ec, EvictionState(), summary, [], now=0.0, summary_after_reclaim=lambda steps: after)
    assert r.node_reclaim_sufficient


def test_a_met_threshold_stays_until_its_minimum_reclaim_is_satisfied():
    _, ec = load_kubelet_config(DATA / "13-minimum-reclaim.yaml")
    ec = ec.with_filesystems("single")

    def at(free_mi):
        return {"node": {"fs": {"availableBytes": free_mi * Mi, "capacityBytes": 100 * Gi,
                                "inodesFree": 10, "inodes": 10}}}
    state, r = synchronize(ec, EvictionState(), at(1000), [], now=0.0)
    assert [t.signal for t in r.thresholds_met] == ["nodefs.available"]
    state, r = synchronize(ec, state, at(1100), [], now=10.0)   # above 1Gi, below 1524Mi
    assert [t.signal for t in r.thresholds_met] == ["nodefs.available"]
    state, r = synchronize(ec, state, at(1524), [], now=20.0)
    assert r.thresholds_met == [] and r.node_conditions == ["DiskPressure"]   # transition period (5m)
    state, r = synchronize(ec, state, at(1524), [], now=10.0 + 300.0)
    assert r.node_conditions == []


# ------------------------------------------------------ default thresholds


def test_default_hard_thresholds():
    _, ec = load_kubelet_config(DATA / "13-default-hard-thresholds.yaml")
    assert _thresholds(ec) == ["memory.available<100Mi", "nodefs.available<10%", "nodefs.inodesFree<5%",
                               "imagefs.available<15%", "imagefs.inodesFree<5%", "allocatableMemory.available<100Mi"]
    assert ec.pressure_transition_period == 300 * 10**9 and ec.max_pod_grace_period_seconds == 0


@pytest.mark.parametrize("layout, nodefs_like", [("single", True), ("imagefs", False), ("split", True)])
def test_default_containerfs_thresholds_follow_nodefs_or_imagefs(layout, nodefs_like):
    _, ec = load_kubelet_config(DATA / "13-default-hard-thresholds.yaml")
    ec = ec.with_filesystems(layout)
    hard = {t.signal: str(t.value) for t in ec.thresholds if t.hard and t.operator}
    assert hard["containerfs.available"] == ("10%" if nodefs_like else "15%")
    assert hard["containerfs.inodesFree"] == "5%"
    assert ec.warnings == []


def test_user_containerfs_thresholds_are_ignored_with_a_warning():
    cfg = kubelet_config_from_flags(["--eviction-hard=nodefs.available<1Gi,containerfs.available<5Gi"])
    ec = eviction_config(cfg).with_filesystems("single")
    assert [str(t) for t in ec.thresholds if t.signal == "containerfs.available" and t.operator] == \
        ["containerfs.available<1Gi"]
    assert ec.warnings == ["found containerfs.available for hard eviction. ignoring"]


def test_setting_one_hard_threshold_drops_the_other_defaults():
    _, ec = load_kubelet_config(DATA / "13-eviction-hard-override.yaml")
    assert _thresholds(ec) == ["memory.available<200Mi", "allocatableMemory.available<200Mi"]


def test_merge_default_eviction_settings_keeps_the_other_defaults():
    _, ec = load_kubelet_config(DATA / "13-eviction-hard-merge.yaml")
    assert _thresholds(ec) == ["memory.available<200Mi", "nodefs.available<10%", "nodefs.inodesFree<5%",
                               "imagefs.available<15%", "imagefs.inodesFree<5%", "allocatableMemory.available<200Mi"]


# --------------------------------------------------------- who goes first


def _ranking_objects():
    objs = _objects("13-memory-pressure-ranking.yaml")
    return [o for o in objs if isinstance(o, Pod)], _one(objs, NodeStatsSummary).summary()


ORDER = ["batch-burstable-over", "web-besteffort", "monitoring-besteffort", "cache-guaranteed-low",
         "db-guaranteed", "api-burstable-under"]


def test_memory_pressure_ranking_order():
    pods, summary = _ranking_objects()
    assert [p.metadata.name for p in rank_pods(pods, summary["pods"], "memory.available")] == ORDER


def test_memory_pressure_ranking_table():
    pods, summary = _ranking_objects()
    df = ranking_frame(pods, summary["pods"], "memory.available")
    assert list(df["pod"]) == [f"default/{n}" for n in ORDER]
    assert list(df["qos"]) == ["Burstable", "BestEffort", "BestEffort", "Guaranteed", "Guaranteed", "Burstable"]
    assert list(df["exceedsRequest"]) == [True, True, True, False, False, False]
    assert list(df["aboveRequest"] // Mi) == [700, 300, 50, -12, -124, -424]
    assert df.loc[1, "reason"] == "usage 800Mi exceeds request 100Mi; priority 0; 700Mi above request"
    assert df.loc[6, "reason"] == "usage 600Mi within request 1Gi; priority 1000; 424Mi below request"


def test_memory_pressure_evicts_the_first_ranked_pod_at_once():
    pods, summary = _ranking_objects()
    _, ec = load_kubelet_config(DATA / "13-default-hard-thresholds.yaml")
    state, r = synchronize(ec.with_filesystems("single"), EvictionState(), summary, pods, now=0.0)
    assert r.evicted == "batch-burstable-over" and r.grace_period_seconds == 1
    assert r.message == ("The node was low on resource: memory. Threshold quantity: 100Mi, available: 80Mi. "
                         "Container batch was using 800Mi, request is 100Mi, has larger consumption of memory. ")
    assert [row["pod"] for row in r.ranking] == [f"default/{n}" for n in ORDER]


def test_soft_threshold_waits_for_its_grace_period_and_uses_the_lesser_grace():
    pods, summary = _ranking_objects()
    cfg = kubelet_config_from_flags("--eviction-hard=memory.available<50Mi --eviction-soft=memory.available<100Mi "
                                    "--eviction-soft-grace-period=memory.available=1m30s "
                                    "--eviction-max-pod-grace-period=60")
    ec = eviction_config(cfg).with_filesystems("single")
    state, r = synchronize(ec, EvictionState(), summary, pods, now=0.0)
    assert r.node_conditions == ["MemoryPressure"] and r.evicted is None
    summary_later = {**summary, "node": {**summary["node"], "memory": {**summary["node"]["memory"], "time": 90.0}}}
    state, r = synchronize(ec, state, summary_later, pods, now=90.0)
    assert r.evicted == "batch-burstable-over"
    assert r.grace_period_seconds == 30     # min(evictionMaxPodGracePeriod 60, the pod's default 30)


def test_critical_pods_are_skipped():
    pods, summary = _ranking_objects()
    first = next(p for p in pods if p.metadata.name == "batch-burstable-over")
    first.metadata.annotations["kubernetes.io/config.source"] = "file"   # a static pod
    _, ec = load_kubelet_config(DATA / "13-default-hard-thresholds.yaml")
    _, r = synchronize(ec, EvictionState(), summary, pods, now=0.0)
    assert r.evicted == "web-besteffort"
    assert r.ranking[0]["critical"] is True


# ------------------------------------------- "memory.available<10% or <1Gi"


def test_ten_percent_of_10gi_is_1gi_up_to_float32():
    """The seed: on a 10GiB node, memory.available<10% and memory.available<1Gi say the same.
    The kubelet keeps percentages as float32, so 10% of 10Gi is 1073741840 bytes, 16 more."""
    from kschedlab.kubelet.signals import SignalObservation

    pct = eviction_config(kubelet_config_from_flags("--eviction-hard=memory.available<10%")).thresholds[:1]
    lit = eviction_config(kubelet_config_from_flags("--eviction-hard=memory.available<1Gi")).thresholds[:1]
    for available, pct_met, lit_met in ((Gi - 1, True, True), (Gi, True, False), (Gi + 15, True, False),
                                        (Gi + 16, False, False)):
        obs = {"memory.available": SignalObservation(Quantity.from_int(available), Quantity("10Gi"))}
        assert (len(thresholds_met(pct, obs, False)) == 1, len(thresholds_met(lit, obs, False)) == 1) == \
            (pct_met, lit_met), available
