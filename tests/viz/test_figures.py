"""Figures show exactly the numbers of the trace and the cluster, and escape user strings."""

from __future__ import annotations

import json

import numpy as np
import pytest
from vizcases import EVIL_NODE, EVIL_POD, evil_cluster, node, pod

from kschedlab import Cluster, Scheduler
from kschedlab.framework.status import Code
from kschedlab.plugins.helper import FunctionShapePoint, build_broken_linear_function
from kschedlab.scenarios import path
from kschedlab.viz import (
    cluster_picture,
    filter_grid,
    filter_outcome,
    node_utilization,
    score_breakdown,
    shape_function,
)
from kschedlab.viz.common import esc
from kschedlab.viz.figures import NOT_RUN, PASSED, REJECTED


@pytest.fixture
def demo():
    cluster = Cluster.from_manifests(path("default"))
    results = {r.pod: r for r in Scheduler(cluster).run()}
    return cluster, results


def strings(obj):
    """Every string inside a figure's JSON-able dict."""
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from strings(k)
            yield from strings(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            yield from strings(v)


def figure_strings(fig):
    return list(strings(json.loads(fig.to_json())))


# -- escaping ---------------------------------------------------------------------------------------
def test_every_figure_escapes_user_names():
    cluster = evil_cluster()
    result = Scheduler(cluster).schedule_one(f"default/{EVIL_POD}")
    assert result.node == EVIL_NODE
    for fig in (node_utilization(cluster), cluster_picture(cluster), score_breakdown(result),
                filter_outcome(result), shape_function([(0, 0), (100, 10)], {EVIL_POD: 40})):
        text = figure_strings(fig)
        joined = "\n".join(text)
        for raw in (EVIL_POD, EVIL_NODE, "<b>zone</b>", "bound&co"):
            assert raw not in joined
        assert any(esc(EVIL_NODE) in s or esc(EVIL_POD) in s for s in text)


def test_escaped_names_are_the_axis_categories(demo):
    cluster = evil_cluster()
    result = Scheduler(cluster).schedule_one(f"default/{EVIL_POD}")
    fig = score_breakdown(result)
    assert esc(EVIL_NODE) in fig.data[0].x
    assert fig.layout.title.text == esc(f"Score breakdown: default/{EVIL_POD} → {EVIL_NODE}")


# -- score breakdown ---------------------------------------------------------------------------------
@pytest.mark.parametrize("key", ["default/web-0", "default/cache-0", "default/batch-0"])
def test_score_breakdown_matches_trace(demo, key):
    _, results = demo
    result = results[key]
    scores = result.trace.scores()
    fig = score_breakdown(result)
    nodes = list(scores)
    plugins = list(result.trace.score.plugins)
    bars = [t for t in fig.data if t.type == "bar"]
    assert [t.name for t in bars] == plugins
    for bar, plugin in zip(bars, plugins):
        assert list(bar.x) == nodes
        assert list(bar.y) == [scores[n][plugin]["weighted"] for n in nodes]
        assert [tuple(c[:2]) for c in bar.customdata] == [
            (scores[n][plugin]["raw"], scores[n][plugin]["normalized"]) for n in nodes]
    total = next(t for t in fig.data if t.name == "total")
    assert list(total.y) == [scores[n]["total"] for n in nodes]
    assert list(total.y) == [sum(scores[n][p]["weighted"] for p in plugins) for n in nodes]
    chosen = next(t for t in fig.data if t.name == "chosen")
    assert chosen.x == (result.node,) and chosen.customdata == (scores[result.node]["total"],)
    assert scores[result.node]["total"] == max(total.y)


def test_score_breakdown_without_scoring(demo):
    _, results = demo
    single = score_breakdown(results["default/trainer-0"])  # one feasible node: no Score phase
    assert not single.data and "only one feasible node (gpu-b3)" in single.layout.annotations[0].text
    none = score_breakdown(results["default/big-0"])
    assert not none.data and "no feasible node" in none.layout.annotations[0].text


# -- filter outcome ----------------------------------------------------------------------------------
@pytest.mark.parametrize("key", ["default/web-0", "default/cache-0", "default/trainer-0", "default/big-0"])
def test_filter_outcome_matches_trace(demo, key):
    _, results = demo
    result = results[key]
    statuses = result.trace.filter_statuses()
    plugins = list(result.trace.filter.plugins)
    fig = filter_outcome(result)
    heat = fig.data[0]
    assert list(heat.x) == plugins and list(heat.y) == list(statuses)
    notes = [a.text for a in fig.layout.annotations if a.yref == "y"]
    for row, st, note in zip(heat.z, statuses.values(), notes):
        if st.is_success():
            assert list(row) == [PASSED] * len(plugins) and note == "<b>feasible</b>"
        else:
            k = plugins.index(st.plugin)
            assert list(row) == [PASSED] * k + [REJECTED] + [NOT_RUN] * (len(plugins) - k - 1)
            assert note == f"<b>{st.plugin}</b>: {esc('; '.join(st.reasons))}"


def test_filter_grid_marks_prefilter_rejections():
    cluster = Cluster([node("a"), node("b"), pod("p", cpu="1", nodeName=None,
                                                  affinity={"nodeAffinity": {
                                                      "requiredDuringSchedulingIgnoredDuringExecution": {
                                                          "nodeSelectorTerms": [{"matchFields": [{
                                                              "key": "metadata.name", "operator": "In",
                                                              "values": ["b"]}]}]}}})])
    result = Scheduler(cluster).schedule_one("default/p")
    grid = filter_grid(result)
    assert result.node == "b"
    assert grid["columns"][0] == "PreFilter"
    a = grid["nodes"].index("a")
    assert grid["cells"][a][0] == REJECTED and grid["verdicts"][a][0] == "PreFilter"
    assert grid["verdicts"][a][1] == Code.UnschedulableAndUnresolvable.name


# -- utilization and cluster picture -----------------------------------------------------------------
def test_node_utilization_matches_snapshot(demo):
    cluster, _ = demo
    snap = cluster.snapshot
    fig = node_utilization(cluster)
    divisors = {"cpu": 1000, "memory": 2**30, "nvidia.com/gpu": 1}
    for t in fig.data:
        col = snap.res_index[t.meta]
        rows = [snap.index[n] for n in t.x]
        source = snap.requested if t.name == "requested" else snap.allocatable
        assert list(t.y) == pytest.approx([source[col, r] / divisors[t.meta] for r in rows])
    requested_cpu = next(t for t in fig.data if t.name == "requested" and t.meta == "cpu")
    assert requested_cpu.text[list(requested_cpu.x).index("gpu-b3")] == "25%"  # 4 of 16 cores


def test_cluster_picture_places_pods_under_their_nodes(demo):
    cluster, _ = demo
    tm = cluster_picture(cluster).data[0]
    parent = dict(zip(tm.ids, tm.parents))
    value = dict(zip(tm.ids, tm.values))
    for key, p in cluster.pods.items():
        expected = f"node/{p.spec.node_name}" if p.spec.node_name else "pending"
        assert parent[f"pod/{key}"] == expected
    assert parent["node/node-a1"] == "zone/zone-a" and parent["node/gpu-b3"] == "zone/zone-b"
    # branchvalues="total": every parent is exactly the sum of its children
    children: dict[str, int] = {}
    for i, p in zip(tm.ids, tm.parents):
        if p:
            children[p] = children.get(p, 0) + value[i]
    assert all(value[p] == s for p, s in children.items())
    assert value["pod/default/trainer-0"] == 4000 and value["node/gpu-b3"] == 16000


# -- shape ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [[(0, 0), (100, 10)], [(0, 10), (100, 0)], [(10, 2), (50, 9), (90, 3)]])
def test_shape_function_is_the_plugin_function(shape):
    fig = shape_function([{"utilization": u, "score": s} for u, s in shape], marks=[("m", 33.9)])
    fn = build_broken_linear_function([FunctionShapePoint(u, 10 * s) for u, s in shape])
    curve, points, marks = fig.data
    assert list(curve.x) == list(range(101))
    assert list(curve.y) == fn(np.arange(101)).tolist()
    assert list(points.y) == [10 * s for _, s in shape]
    assert marks.x == (33,) and marks.y == (int(fn(33)),)


def test_shape_function_legacy_scale_and_validation():
    fig = shape_function([(0, 0), (100, 10)], score_scale=1)
    assert fig.data[0].y[75] == 7 and fig.data[0].y[37] == 3
    with pytest.raises(ValueError, match=r"shape\[1\]\.utilization: FieldValueInvalid: utilization values must "
                                         r"be sorted"):
        shape_function([(50, 1), (10, 2)])


def test_figures_do_not_touch_the_cluster(demo):
    cluster, results = demo
    snap = cluster.snapshot
    before = (snap.requested.copy(), snap.allocatable.copy(), snap.generation, dict(snap.pod_row))
    for r in results.values():
        score_breakdown(r), filter_outcome(r)
    node_utilization(cluster), cluster_picture(cluster)
    assert np.array_equal(before[0], snap.requested) and np.array_equal(before[1], snap.allocatable)
    assert before[2:] == (snap.generation, dict(snap.pod_row))


def test_attempts_without_a_filter_phase_explain_themselves():
    cluster = Cluster([node("a"), node("b"),
                       pod("nowhere", cpu="1", affinity={"nodeAffinity": {
                           "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{
                               "matchFields": [{"key": "metadata.name", "operator": "In",
                                                "values": ["missing"]}]}]}}}),
                       pod("gated", cpu="1", schedulingGates=[{"name": "example.com/wait"}])])
    scheduler = Scheduler(cluster)
    nowhere = scheduler.schedule_one("default/nowhere")
    grid = filter_grid(nowhere)
    assert grid["columns"] == ["PreFilter"] and grid["cells"] == [[REJECTED], [REJECTED]]
    assert {v[2] for v in grid["verdicts"]} == {tuple(nowhere.trace.absent_status.reasons)}
    gated = scheduler.schedule_one("default/gated")
    assert gated.trace is None
    for fig in (filter_outcome(gated), score_breakdown(gated)):
        assert not fig.data and "scheduling gates" in fig.layout.annotations[0].text
