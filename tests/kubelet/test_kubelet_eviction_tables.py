"""kschedlab.viz.kubelet_eviction and the EvictionRankingExplorer on the seed's ranking example."""

from __future__ import annotations

from pathlib import Path

import pytest

from kschedlab.api.core import Pod
from kschedlab.api.loader import load
from kschedlab.api.nodestats import NodeStatsSummary
from kschedlab.viz.kubelet_eviction import (
    disk_layouts_table,
    oom_score_table,
    ranking_with_usage,
    signals_table,
    with_memory_usage,
)
from kschedlab.widgets.node_pressure import EvictionRankingExplorer

DATA = Path(__file__).parent.parent.parent / "datasets" / "kubelet" / "13-memory-pressure-ranking.yaml"
Mi, Gi = 2**20, 2**30


@pytest.fixture()
def example():
    objs = load(DATA)
    return [o for o in objs if isinstance(o, Pod)], next(o for o in objs if isinstance(o, NodeStatsSummary)).summary()


def test_signals_table_covers_every_signal_with_its_condition_and_taint():
    t = signals_table()
    assert len(t) == 9
    assert set(t["node condition"]) == {"MemoryPressure", "DiskPressure", "PIDPressure"}
    assert t.loc["nodefs.inodesFree", "taint"] == "node.kubernetes.io/disk-pressure:NoSchedule"


def test_oom_score_table_by_qos(example):
    pods, _ = example
    t = oom_score_table(pods, 8 * Gi).set_index("pod")["oom_score_adj"].to_dict()
    assert t == {"web-besteffort": 1000, "monitoring-besteffort": 1000, "batch-burstable-over": 988,
                 "api-burstable-under": 875, "cache-guaranteed-low": -997, "db-guaranteed": -997}


def test_with_memory_usage_does_not_change_the_input(example):
    _, summary = example
    before = [dict(s) for s in summary["pods"]]
    out = with_memory_usage(summary["pods"], {"web-besteffort": 2 * Gi})
    assert summary["pods"] == before
    web = next(s for s in out if s["podRef"]["name"] == "web-besteffort")
    assert web["memory"]["workingSetBytes"] == web["containers"][0]["memory"]["workingSetBytes"] == 2 * Gi


def test_raising_one_pods_usage_reranks(example):
    pods, summary = example
    base = ranking_with_usage(pods, summary["pods"])
    assert base["pod"].iloc[0] == "default/batch-burstable-over"
    assert list(base["aboveRequest"]) == ["700Mi", "300Mi", "50Mi", "-12Mi", "-124Mi", "-424Mi"]
    more = ranking_with_usage(pods, summary["pods"], {"web-besteffort": 701 * Mi})
    assert list(more["pod"][:2]) == ["default/web-besteffort", "default/batch-burstable-over"]


@pytest.mark.parametrize("mib, position", [(600, 6), (1024, 5), (1025, 4), (1074, 4), (1075, 3), (2048, 3)])
def test_explorer_position_of_the_burstable_pod(example, mib, position):
    pods, summary = example
    ex = EvictionRankingExplorer(pods, summary["pods"], "api-burstable-under")
    assert ex.set(mib).position == position


def test_explorer_unknown_pod(example):
    pods, summary = example
    with pytest.raises(KeyError):
        EvictionRankingExplorer(pods, summary["pods"], "nope")


def test_disk_layouts_table_matches_the_docs_per_layout():
    t = disk_layouts_table()
    single, imagefs, split = ("one filesystem (nodefs)", "separate imagefs (split disk)",
                              "imagefs + containerfs (split image)")
    assert t.loc["nodefs.available", (single, "reclaim")] == "DeleteAllUnusedContainers, DeleteUnusedImages"
    assert t.loc["nodefs.available", (single, "ranks by")] == "ephemeral-storage: images+root+logs+localVolumeSource"
    assert t.loc["nodefs.available", (imagefs, "ranks by")] == "ephemeral-storage: logs+localVolumeSource"
    assert t.loc["imagefs.available", (imagefs, "ranks by")] == "ephemeral-storage: root+images"
    assert t.loc["containerfs.available", (split, "reclaim")] == "DeleteAllUnusedContainers"
    assert t.loc["imagefs.available", (split, "ranks by")] == "ephemeral-storage: images"
    assert "memory.available" not in t.index


def test_explorer_escapes_pod_names(example):
    pods, summary = example
    pods[0].metadata.name = "<b>x</b>"
    for s in summary["pods"]:
        if s["podRef"]["name"] == "web-besteffort":
            s["podRef"]["name"] = "<b>x</b>"
    ex = EvictionRankingExplorer(pods, summary["pods"], "<b>x</b>").set(2000)
    assert "<b>x</b>" not in ex.summary.value + ex.ranking.value
    assert "&lt;b&gt;x&lt;/b&gt;" in ex.summary.value
