"""RtcrWeightsExplorer and resource_score_bars (notebook 11)."""

from kschedlab.viz.binpacking import resource_score_bars
from kschedlab.viz.calc import CURRENT_SCALE, rtcr_worksheet
from kschedlab.widgets.binpacking import SHAPES, RtcrWeightsExplorer

POD = {"intel.com/foo": 2, "memory": "256Mi", "cpu": 2}
NODES = {"node 1": {"available": {"intel.com/foo": 4, "memory": "1Gi", "cpu": 8},
                    "used": {"intel.com/foo": 1, "memory": "256Mi", "cpu": 1}},
         "node 2": {"available": {"intel.com/foo": 8, "memory": "1Gi", "cpu": 8},
                    "used": {"intel.com/foo": 2, "memory": "512Mi", "cpu": 6}}}
WEIGHTS = {"intel.com/foo": 5, "memory": 1, "cpu": 3}


def test_docs_example_and_weights():
    ex = RtcrWeightsExplorer(POD, NODES, WEIGHTS)
    assert ex.scores == {"node 1": 60, "node 2": 69}
    assert "node 2</b> (69)" in ex.table.value
    ex.weights["intel.com/foo"].value = 10  # as a user moves the slider
    ex.weights["cpu"].value = 1
    assert ex.scores == {"node 1": 70, "node 2": 56}
    assert "node 1</b> (70)" in ex.table.value


def test_zero_scores_leave_the_mean():
    ex = RtcrWeightsExplorer(POD, NODES, {"intel.com/foo": 10, "memory": 1, "cpu": 1}, shape="spreading")
    assert ex.scores["node 2"] == round((50 * 10 + 25 * 1) / 11)  # cpu at 100 % scores 0 and drops out


def test_figure_has_units_and_one_trace_per_node():
    sheet = rtcr_worksheet(POD, NODES, WEIGHTS, SHAPES["bin packing"], score_scale=CURRENT_SCALE)
    fig = resource_score_bars(sheet)
    assert [t.name for t in fig.data] == ["node 1: 60", "node 2: 69"]
    assert fig.data[0].y == (75, 50, 37) and fig.data[1].y == (50, 75, 100)
    assert "points" in fig.layout.yaxis.title.text and fig.layout.legend.y < 0
    assert fig.data[0].marker.color != fig.data[1].marker.color
