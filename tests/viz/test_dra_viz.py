"""kschedlab.viz.dra and the ClaimEditor on the seed-section-8 DRA examples."""

from pathlib import Path

import pytest

from kschedlab import Scheduler
from kschedlab.dra.manager import dra_manager
from kschedlab.viz.dra import (
    allocate_on,
    claim_of,
    counter_table,
    device_map,
    device_table,
    dra_cluster,
    search_tree,
    search_tree_figure,
    selector_table,
    try_claim,
)
from kschedlab.widgets.dra import ClaimEditor

DATA = Path(__file__).resolve().parents[2] / "datasets"
PRIORITIZED = (DATA / "dra" / "08-prioritized-list.yaml", DATA / "dra-scheduling" / "prioritized-list-cluster.yaml")
PARTITIONABLE = (DATA / "dra" / "08-partitionable-counters.yaml",
                 DATA / "dra-scheduling" / "partitionable-cluster.yaml")


def test_counters_fill_up_and_second_device_is_refused_for_counters():
    cluster, errors = dra_cluster(*PARTITIONABLE)
    assert errors == []
    assert counter_table(cluster)[["capacity", "consumed", "left"]].values.tolist() == [["8Gi", "0", "8Gi"]]
    sched = Scheduler(cluster, seed=0)
    assert sched.schedule_one("default/part-a").node == "worker-1"
    assert counter_table(cluster)[["consumed", "left"]].values.tolist() == [["6Gi", "2Gi"]]
    assert device_table(cluster).claim.astype(bool).tolist() == [True, False]
    second = sched.schedule_one("default/part-b")
    assert second.node is None and "cannot allocate all claims" in second.message
    result, trace = allocate_on(cluster, "worker-1", [claim_of(cluster, "default/part-b")])
    assert result is None
    assert trace.rejections() == {"already allocated": 1, "counters": 1}


def test_selector_table_marks_each_device():
    cluster, _ = dra_cluster(*PRIORITIZED)
    table = selector_table(cluster, claim_of(cluster, "default/first"))
    request_rows = table[(table.selector == "request #0")]
    matches = {(r, d) for r, d, ok in zip(request_rows.request, request_rows.device, request_rows.result) if ok}
    assert matches == {("req-0/large-black", "large-black"), ("req-0/small-white", "small-white-0"),
                       ("req-0/small-white", "small-white-1")}
    assert table[table.selector.str.startswith("class")].result.all()


def test_backtracking_tree_rolls_back_both_choices():
    cluster, _ = dra_cluster(*PRIORITIZED, DATA / "dra-scheduling" / "backtracking-claim.yaml")
    claim = dra_manager(cluster).get_claim("default", "three-devices")
    result, trace = allocate_on(cluster, "node-white", [claim])
    assert result is None
    tree = search_tree(trace)
    top = tree[tree.parent == 0]
    assert top.label.tolist() == ["small-white-0", "small-white-1", "backtrack", "no solution"]
    assert top.status.tolist()[:2] == ["rolled back", "rolled back"]
    fig = search_tree_figure(trace)
    assert {t.name for t in fig.data if t.name} == {"claims", "rolled back", "rejected", "backtrack", "result"}
    shapes = {t.name: (t.marker.symbol, t.marker.color) for t in fig.data if t.name}
    assert len(set(shapes.values())) == len(shapes)  # no two meanings share a marker


def test_device_map_has_one_square_per_device():
    cluster, _ = dra_cluster(*PRIORITIZED)
    fig = device_map(cluster)
    assert sum(len(t.x) for t in fig.data) == 3
    assert list(fig.data[0].y) == ["node-black", "node-white", "node-white"]


def test_try_claim_reports_runtime_cel_error_and_editor_switches_node():
    cluster, _ = dra_cluster(*PRIORITIZED)
    bad = try_claim(cluster, "node-black", "resource.example.com", 1, 'device.attributes["resource-driver.example.com"].cat')
    assert bad.devices == [] and bad.message.startswith("error: ") and "CEL runtime error" in bad.message
    editor = ClaimEditor(cluster, "node-white", "resource.example.com")
    assert editor.set(node="node-black").last.devices == ["large-black"]
    assert editor.set(count=2).last.devices == []


@pytest.mark.parametrize("count, expected", [(1, ["small-white-0"]), (2, ["small-white-0", "small-white-1"])])
def test_try_claim_counts(count, expected):
    cluster, _ = dra_cluster(*PRIORITIZED)
    assert try_claim(cluster, "node-white", "resource.example.com", count).devices == expected


def test_notebook_exercise_1_twelve_gi_counter_fits_both_pods():
    """Exercise 1 of notebook 08: with a 12Gi counter set both partitions can be allocated."""
    from kschedlab.api.loader import load, load_text
    from kschedlab.apiserver.admission import admit
    from kschedlab.cluster import Cluster
    from kschedlab.dra.resourceclaim_controller import ResourceClaimController

    text = PARTITIONABLE[0].read_text().replace("value: 8Gi", "value: 12Gi")
    cluster = Cluster(admit(load_text(text, source="12gi.yaml") + load(PARTITIONABLE[1])))
    assert ResourceClaimController(cluster).sync() == []
    assert [r.node for r in Scheduler(cluster, seed=0).run()] == ["worker-1", "worker-1"]
    assert counter_table(cluster)[["consumed", "left"]].values.tolist() == [["12Gi", "0"]]


def _figure_title(editor) -> str:
    (output,) = editor.figure.outputs
    return output["data"]["application/vnd.plotly.v1+json"]["layout"]["title"]["text"]


def test_editor_figure_follows_the_dropdown_as_a_user_drives_it():
    """Issue #27: after picking node-black the figure must name node-black (not the node it was built on)."""
    cluster, _ = dra_cluster(*PRIORITIZED)
    editor = ClaimEditor(cluster, "node-white", "resource.example.com", count=2)
    assert _figure_title(editor) == "search on node-white" and editor.last.devices == ["small-white-0", "small-white-1"]
    editor.node.value = "node-black"  # what the browser does: the control's value, no set()
    assert _figure_title(editor) == "search on node-black" and editor.last.devices == []
    assert editor.last.message == "cannot allocate: 2 device(s) asked, the search found no solution"
    editor.count.value = 1
    assert _figure_title(editor) == "search on node-black" and editor.last.devices == ["large-black"]
    editor.node.value = "node-white"
    assert _figure_title(editor) == "search on node-white" and editor.last.devices == ["small-white-0"]
