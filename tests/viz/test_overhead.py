"""Notebook 03's library side: the overhead outcome, the figure and OverheadExplorer read the
manifests without changing them, and give the seed's numbers."""

from __future__ import annotations

from pathlib import Path

from kschedlab.api.loader import load
from kschedlab.viz.overhead import copies_admitted, overhead_bars, overhead_outcome
from kschedlab.widgets import OverheadExplorer

DATA = Path(__file__).resolve().parents[2] / "datasets" / "seed"


def _seed():
    return load(DATA / "03-pod-overhead.yaml")


def test_outcome_has_the_seed_numbers_and_leaves_inputs_alone():
    objs = _seed()
    before = [o.model_dump(by_alias=True, exclude_unset=True) for o in objs]
    out = overhead_outcome(objs, "default/test-pod")
    assert out.requests == {"cpu": 2250, "memory": 320 * 2**20}
    assert out.node == "node-big"
    assert out.reasons == {"node-big": [], "node-cpu-short": ["Insufficient cpu"],
                           "node-mem-short": ["Insufficient memory"]}
    assert out.describe_node("node-big") == {"cpu": "2250m (56%)", "memory": "320Mi (1%)"}
    assert out.cgroup.memory == 335544320
    assert "} 0.25" in out.metrics
    assert [o.model_dump(by_alias=True, exclude_unset=True) for o in objs] == before


def test_admission_error_is_reported_not_raised():
    objs = [*_seed(), *load(DATA / "03-pod-overhead-quota.yaml")]
    out = overhead_outcome(objs, "default/test-pod", cpu_overhead="2500m")
    assert out.pod is None and "exceeded quota: compute-quota" in out.error


def test_figure_stacks_containers_and_overhead_as_percent_of_allocatable():
    fig = overhead_bars(overhead_outcome(_seed(), "default/test-pod"))
    cpu = {t.name: list(t.y) for t in fig.data if t.xaxis == "x"}
    assert list(cpu) == ["other pods", "busybox-ctr", "nginx-ctr", "overhead"]
    assert cpu["overhead"] == [6.25, 12.5, 6.25]  # 250m of 4, 2 and 4 CPUs
    assert sum(v[1] for v in cpu.values()) == 112.5  # node-cpu-short: above the 100 % line


def test_copies_admitted_by_the_quota():
    objs = [*_seed(), *load(DATA / "03-pod-overhead-quota.yaml")]
    assert copies_admitted(objs, "default/test-pod") == 1
    assert copies_admitted(objs, "default/test-pod", cpu_overhead=0) == 2


def test_explorer_follows_the_sliders():
    ex = OverheadExplorer(_seed(), "default/test-pod")
    assert (ex.cpu.value, ex.memory.value) == (250, 120)
    ex.set(cpu=0, memory=0)
    assert ex.last.node_fit == {"node-big": True, "node-cpu-short": True, "node-mem-short": True}
    assert "cpu.cfs_quota_us = 200000" in ex.cgroup.value
    ex.set(memory=200)
    assert ex.last.node_fit["node-mem-short"] is False
    assert "400Mi" in ex.summary.value
    fig = ex.figure.outputs[0]["data"]["application/vnd.plotly.v1+json"]
    assert [t["name"] for t in fig["data"]][:4] == ["other pods", "busybox-ctr", "nginx-ctr", "overhead"]


def test_explorer_shows_a_quota_refusal():
    ex = OverheadExplorer([*_seed(), *load(DATA / "03-pod-overhead-quota.yaml")], "default/test-pod")
    ex.set(cpu=2500)
    assert "Refused at admission" in ex.summary.value and "exceeded quota" in ex.summary.value
