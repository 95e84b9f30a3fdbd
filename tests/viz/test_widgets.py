"""The widgets wire controls to library functions; they never change the caller's cluster."""

from __future__ import annotations

from kschedlab import Cluster
from kschedlab.scenarios import path
from kschedlab.viz.calc import what_if
from kschedlab.widgets import ScoreExplorer, ShapeEditor

POD = """
apiVersion: v1
kind: Pod
metadata: {name: probe, namespace: default}
spec: {containers: [{name: c, resources: {requests: {cpu: 500m, memory: 512Mi}}}]}
"""


def test_score_explorer_shows_what_if_numbers():
    factory = lambda: Cluster.from_manifests(path("default"))  # noqa: E731
    ex = ScoreExplorer(factory, POD)
    assert (ex.cpu.value, ex.memory.value, ex.strategy.value) == (500, 512, "LeastAllocated")
    for strategy in ("MostAllocated", "RequestedToCapacityRatio"):
        ex.set(strategy=strategy, cpu=1500)
        expected = what_if(factory, POD, cpu=1500, memory=512, strategy=strategy, shape=[(0, 0), (100, 10)])
        assert ex.last.result.trace.scores() == expected.result.trace.scores()
        assert ex.last.result.node == expected.result.node
        fig = ex.figure.outputs[0]["data"]["application/vnd.plotly.v1+json"]
        assert [t["name"] for t in fig["data"]][-2:] == ["total", "chosen"]
    assert "RequestedToCapacityRatio" in ex.config.value


def test_score_explorer_reports_bad_input_and_recovers():
    ex = ScoreExplorer(Cluster.from_manifests(path("default")), POD)
    ex.set(strategy="RequestedToCapacityRatio", shape="0:0, 100:11")
    assert ex.last is None and "not in valid range [0, 10]" in ex.status.value
    ex.set(shape="0:10, 100:0")
    assert ex.last is not None and ex.last.result.node


def test_score_explorer_escapes_the_pod_name():
    ex = ScoreExplorer(Cluster.from_manifests(path("default")), POD.replace("probe", "<i>x</i>"))
    html = ex.children[0].value + ex.status.value + ex.worksheet.value + ex.explain.value
    assert "<i>x</i>" not in html and "&lt;i&gt;x&lt;/i&gt;" in html


def test_shape_editor_keeps_the_last_valid_shape():
    ed = ShapeEditor()
    ed.set(text="0:0, 50:8, 100:10", utilization=75)
    assert ed.points == [(0, 0), (50, 8), (100, 10)] and ed.score_at() == 90 and ed.error == ""
    ed.set(text="50:1, 10:2")
    assert ed.points == [(0, 0), (50, 8), (100, 10)] and "sorted in increasing order" in ed.error
    ed.set(text="0:0, 100:10", score_scale=1)
    assert ed.score_at(75) == 7
    ed.preset.value = "spreading (0,10) → (100,0)"
    assert ed.points == [(0, 10), (100, 0)]
    assert "utilization: 100" in ed.yaml.value
