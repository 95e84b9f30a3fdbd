"""Worked calculations: the seed's RequestedToCapacityRatio example digit by digit,
and worksheets that agree with the plugins and the trace."""

from __future__ import annotations

import copy

import pytest

from kschedlab import Cluster, Scheduler
from kschedlab.api.loader import load_text
from kschedlab.apiserver.admission import admit
from kschedlab.scenarios import path
from kschedlab.viz.calc import (
    CURRENT_SCALE,
    LEGACY_SCALE,
    fit_config,
    parse_shape,
    rtcr_worksheet,
    score_worksheet,
    what_if,
)

# "Оцінка вузла для розподілу потужностей" (section 11 of the seed), with Mi/Gi for MB/GB.
POD = {"intel.com/foo": 2, "memory": "256Mi", "cpu": 2}
WEIGHTS = {"intel.com/foo": 5, "memory": 1, "cpu": 3}
NODES = {
    "node 1": {"available": {"intel.com/foo": 4, "memory": "1Gi", "cpu": 8},
               "used": {"intel.com/foo": 1, "memory": "256Mi", "cpu": 1}},
    "node 2": {"available": {"intel.com/foo": 8, "memory": "1Gi", "cpu": 8},
               "used": {"intel.com/foo": 2, "memory": "512Mi", "cpu": 6}},
}
SHAPE = [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}]

SEED_CLUSTER = """
apiVersion: v1
kind: Node
metadata: {name: node-1}
status: {allocatable: {intel.com/foo: "4", memory: 1Gi, cpu: "8", pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: node-2}
status: {allocatable: {intel.com/foo: "8", memory: 1Gi, cpu: "8", pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: used-1, namespace: default}
spec:
  nodeName: node-1
  containers: [{name: c, resources: {requests: {intel.com/foo: "1", memory: 256Mi, cpu: "1"},
                                     limits: {intel.com/foo: "1"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: used-2, namespace: default}
spec:
  nodeName: node-2
  containers: [{name: c, resources: {requests: {intel.com/foo: "2", memory: 512Mi, cpu: "6"},
                                     limits: {intel.com/foo: "2"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: new, namespace: default}
spec:
  containers: [{name: c, resources: {requests: {intel.com/foo: "2", memory: 256Mi, cpu: "2"},
                                     limits: {intel.com/foo: "2"}}}]
"""


def test_seed_example_on_the_legacy_scale():
    sheet = rtcr_worksheet(POD, NODES, WEIGHTS, SHAPE, score_scale=LEGACY_SCALE)
    per = sheet.resources.set_index(["node", "resource"])
    assert per.loc["node 1", "score"].tolist() == [7, 5, 3]
    assert per.loc["node 2", "score"].tolist() == [5, 7, 10]
    assert per.loc["node 1", "utilization"].tolist() == [75.0, 50.0, 37.5]
    assert per.loc["node 2", "utilization %"].tolist() == [50, 75, 100]
    assert sheet.nodes["by hand"].to_dict() == {"node 1": 5, "node 2": 7}
    assert sheet.nodes["library"].to_dict() == {"node 1": 5, "node 2": 7}
    assert sheet.nodes.loc["node 1", "formula"].startswith("((7 * 5) + (5 * 1) + (3 * 3)) / (5 + 1 + 3)")


def test_seed_example_as_kube_scheduler_scores_it_today():
    sheet = rtcr_worksheet(POD, NODES, WEIGHTS, SHAPE, score_scale=CURRENT_SCALE)
    assert sheet.nodes["library"].to_dict() == {"node 1": 60, "node 2": 69}  # 536/9 = 59.6, 625/9 = 69.4
    assert sheet.nodes["by hand"].to_dict() == {"node 1": 60, "node 2": 69}

    cluster = Cluster(admit(load_text(SEED_CLUSTER)))
    scheduler = Scheduler(cluster, fit_config("RequestedToCapacityRatio", WEIGHTS, SHAPE))
    plugin_sheet = score_worksheet(scheduler, "default/new")
    result = scheduler.schedule_one("default/new")
    raw = {n: s["NodeResourcesFit"]["raw"] for n, s in result.trace.scores().items()}
    assert raw == {"node-1": 60, "node-2": 69}
    assert plugin_sheet.nodes["plugin"].to_dict() == raw == plugin_sheet.nodes["by hand"].to_dict()
    assert result.node == "node-2"


@pytest.mark.parametrize("strategy", ["LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"])
@pytest.mark.parametrize("key", ["default/web-0", "default/cache-0", "default/batch-0", "default/big-0"])
def test_fit_worksheet_agrees_with_plugin_and_trace(strategy, key):
    cluster = Cluster.from_manifests(path("default"))
    scheduler = Scheduler(cluster, fit_config(strategy, {"cpu": 2, "memory": 1, "nvidia.com/gpu": 3},
                                              parse_shape("0:2, 40:9, 100:4")))
    # bind the earlier pods first so the nodes are not empty
    for earlier in ("default/web-0", "default/trainer-0"):
        if earlier != key:
            scheduler.schedule_one(earlier)
    sheet = score_worksheet(scheduler, key)
    assert (sheet.nodes["by hand"] == sheet.nodes["plugin"]).all()
    result = scheduler.schedule_one(key)
    for node, entry in result.trace.scores().items():
        assert entry["NodeResourcesFit"]["raw"] == sheet.nodes.loc[node, "plugin"]


@pytest.mark.parametrize("key", ["default/web-0", "default/cache-0", "default/batch-0"])
def test_balanced_worksheet_agrees_with_plugin_and_trace(key):
    cluster = Cluster.from_manifests(path("default"))
    scheduler = Scheduler(cluster)
    scheduler.schedule_one("default/trainer-0")
    sheet = score_worksheet(scheduler, key, "NodeResourcesBalancedAllocation")
    assert (sheet.nodes["by hand"] == sheet.nodes["plugin"]).all()
    result = scheduler.schedule_one(key)
    for node, entry in result.trace.scores().items():
        assert entry["NodeResourcesBalancedAllocation"]["raw"] == sheet.nodes.loc[node, "plugin"]


def test_what_if_never_changes_the_given_cluster():
    cluster = Cluster.from_manifests(path("default"))
    before = (copy.deepcopy(cluster.snapshot.requested), set(cluster.pods))
    pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: probe}\nspec: {containers: [{name: c}]}"
    w = what_if(cluster, pod, cpu=1000, memory=1024, strategy="MostAllocated")
    assert w.result.node is not None
    assert (cluster.snapshot.requested == before[0]).all() and set(cluster.pods) == before[1]
    again = what_if(cluster, pod, cpu=1000, memory=1024, strategy="MostAllocated")
    assert again.result.trace.scores() == w.result.trace.scores()
    assert list(w.worksheet.nodes.index) == list(w.result.trace.scores())


def test_what_if_zero_request_scores_with_the_non_zero_defaults():
    pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: probe}\nspec: {containers: [{name: c}]}"
    w = what_if(lambda: Cluster.from_manifests(path("default")), pod, cpu=0, memory=0)
    res = w.worksheet.resources
    assert set(res[res["resource"] == "cpu"]["pod"]) == {100}
    assert set(res[res["resource"] == "memory"]["pod"]) == {200 * 2**20}
