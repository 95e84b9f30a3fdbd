"""Topology spread tables and figures (kschedlab.viz.spread), the SpreadExplorer and ClusterView
widgets and cluster_picture's colouring: the numbers are the plugin's and the documented ones,
the figures escape user strings, and nothing changes the caller's cluster."""

from __future__ import annotations

import json
from pathlib import Path

import plotly.io as pio
import pytest

from kschedlab import Cluster, Scheduler
from kschedlab.api.loader import load_text
from kschedlab.apiserver.admission import admit
from kschedlab.viz import (
    cluster_picture,
    compare_spread,
    label_colors,
    place_replicas,
    spread_constraints,
    spread_table,
    spread_variants,
    topology_skew,
    yaml_documents,
)
from kschedlab.viz.spread import probe, with_constraint
from kschedlab.widgets import ClusterView, SpreadExplorer

ROOT = Path(__file__).resolve().parents[2]
SPREAD = ROOT / "datasets" / "topology-spread"
AFFINITY = ROOT / "datasets" / "inter-pod-affinity"


def load(name: str) -> Cluster:
    return Cluster.from_manifests(SPREAD / name)


def bars(fig) -> list:
    return [t for t in fig.data if t.name == "matching pods"]


# -- spread_table: the documented examples -------------------------------------------------------------
def test_one_constraint_only_zone_b_fits():
    t = spread_table(load("01-one-constraint.yaml"), "default/mypod")
    assert t["matching pods"].to_dict() == {"zoneA": 2, "zoneB": 1}
    assert t["skew if placed"].tolist() == [2, 1]
    assert t["fits"].to_dict() == {"zoneA": False, "zoneB": True}
    assert t.attrs["global minimum"] == 1 and t.attrs["eligible domains"] == 2
    assert t.loc["zoneB", "nodes"] == "node3, node4"


def test_two_constraints_intersect_at_node4():
    cluster = load("02-two-constraints.yaml")
    assert [c.topology_key for c in spread_constraints(cluster, "default/mypod")] == ["zone", "node"]
    node = spread_table(cluster, "default/mypod", 1)
    assert node["fits"].to_dict() == {"node1": False, "node2": False, "node3": False, "node4": True}
    assert node.attrs["global minimum"] == 0


def test_conflicting_constraints_have_disjoint_fits():
    cluster = load("03-conflicting-constraints.yaml")
    zone = spread_table(cluster, "default/mypod", 0)
    node = spread_table(cluster, "default/mypod", 1)
    assert zone["fits"].to_dict() == {"zoneA": False, "zoneB": True}
    assert node["fits"].to_dict() == {"node1": False, "node2": True, "node3": False}
    zone_b_nodes = set(zone.loc["zoneB", "nodes"].split(", "))
    assert zone_b_nodes.isdisjoint(node.index[node["fits"]])
    # and the scheduler agrees: Pending, every node rejected by PodTopologySpread
    result = Scheduler(cluster, seed=0).schedule_one("default/mypod")
    assert result.message.startswith("0/3 nodes are available: 3 node(s) didn't match pod topology spread "
                                     "constraints.")


def test_nodes_without_the_key_are_listed_apart_and_not_counted():
    t = spread_table(load("04-node-without-zone-label.yaml"), "default/mypod", 0)
    assert t.loc["(no zone label)", "nodes"] == "node1"
    assert not t.loc["(no zone label)", "eligible"]
    assert t.loc[t["eligible"], "matching pods"].to_dict() == {"zoneA": 1, "zoneB": 2}


def test_node_affinity_policy_honor_leaves_zone_c_out():
    t = spread_table(load("05-one-constraint-with-nodeaffinity.yaml"), "default/mypod")
    assert t["eligible"].to_dict() == {"zoneA": True, "zoneB": True, "zoneC": False}
    assert t.attrs["global minimum"] == 1 and t.attrs["nodeAffinityPolicy"] == "Honor"


def test_a_constraint_dict_can_be_tried_on_the_pod():
    cluster = load("05-one-constraint-with-nodeaffinity.yaml")
    t = spread_table(cluster, "default/mypod", {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable":
                                                "DoNotSchedule", "labelSelector": {"matchLabels": {"foo": "bar"}},
                                                "nodeAffinityPolicy": "Ignore"})
    assert t["eligible"].all() and t.attrs["global minimum"] == 0


def test_default_constraints_come_from_the_profile_and_the_service():
    cluster = load("07-cluster-default-constraints.yaml")
    [c] = spread_constraints(cluster, "default/web-3")
    assert (c.topology_key, c.max_skew, str(c.selector)) == ("topology.kubernetes.io/zone", 1, "app=web")
    t = spread_table(cluster, "default/web-3")
    assert t.attrs["whenUnsatisfiable"] == "ScheduleAnyway"
    assert t["matching pods"].to_dict() == {"zoneA": 2, "zoneB": 0}
    assert spread_constraints(cluster, "default/loner") == []
    with pytest.raises(ValueError, match="no topology spread constraints"):
        spread_table(cluster, "default/loner")


def test_built_in_defaults_hostname_then_zone():
    cluster = load("08-built-in-default-constraints.yaml")
    assert [(c.topology_key, c.max_skew) for c in spread_constraints(cluster, "default/web-3")] == [
        ("kubernetes.io/hostname", 3), ("topology.kubernetes.io/zone", 5)]


# -- variants side by side -------------------------------------------------------------------------------
def test_min_domains_variants():
    cluster = load("06-min-domains.yaml")
    before = json.dumps(spread_table(cluster, "default/mypod").to_dict())
    out = spread_variants(cluster, "default/mypod", {"unset": {}, "3": {"minDomains": 3}, "4": {"minDomains": 4}})
    assert out["node"].to_dict() == {"unset": "node5", "3": "node5", "4": ""}
    assert out["global minimum"].to_dict() == {"unset": 1, "3": 1, "4": 0}
    assert out.loc["4", "message"].startswith("0/5 nodes are available: 5 node(s) didn't match pod topology spread")
    # the caller's cluster is untouched
    assert json.dumps(spread_table(cluster, "default/mypod").to_dict()) == before
    assert not cluster.pods["default/mypod"].spec.node_name


def test_node_taints_policy_variants():
    tainted = """
apiVersion: v1
kind: Node
metadata:
  name: node5
  labels: {node: node5, zone: zoneC}
spec:
  taints: [{key: maintenance, value: "true", effect: NoSchedule}]
status:
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
"""
    cluster = Cluster(admit(load_text((SPREAD / "01-one-constraint.yaml").read_text() + "\n---\n" + tainted)))
    out = spread_variants(cluster, "default/mypod", {"Ignore": {}, "Honor": {"nodeTaintsPolicy": "Honor"}})
    assert out.loc["Ignore", "node"] == "" and out.loc["Ignore", "eligible domains"] == 3
    assert out.loc["Honor", "node"] in {"node3", "node4"} and out.loc["Honor", "eligible domains"] == 2


def test_compare_spread_titles_each_panel_with_the_outcome():
    cluster = load("05-one-constraint-with-nodeaffinity.yaml")
    fig = compare_spread(cluster, "default/mypod", {"Honor": {}, "Ignore": {"nodeAffinityPolicy": "Ignore"}})
    titles = [a.text for a in fig.layout.annotations][:2]
    assert titles[0] in ("Honor → node3", "Honor → node4") and titles[1] == "Ignore → Pending"
    assert len(bars(fig)) == 2


def test_with_constraint_copies_and_removes_fields():
    pod = load("06-min-domains.yaml").pods["default/mypod"]
    changed = with_constraint(pod, {"minDomains": 2, "maxSkew": None})
    c = changed.spec.topology_spread_constraints[0]
    assert c.min_domains == 2 and c.max_skew is None
    assert pod.spec.topology_spread_constraints[0].max_skew == 1


def test_place_replicas_keeps_the_skew_within_max_skew():
    t = place_replicas(load("01-one-constraint.yaml"), "default/mypod", 5)
    for after in t["after"]:
        counts = [int(part.split("=")[1]) for part in after.split()]
        assert max(counts) - min(counts) <= 1


def test_probe_needs_a_pending_pod():
    cluster = load("01-one-constraint.yaml")
    assert probe(cluster, "default/mypod").node in {"node3", "node4"}
    assert not cluster.pods["default/mypod"].spec.node_name
    Scheduler(cluster).schedule_one("default/mypod")
    with pytest.raises(ValueError, match="already bound"):
        probe(cluster, "default/mypod")


# -- the figure ----------------------------------------------------------------------------------------------
def test_topology_skew_colours_and_lines():
    fig = topology_skew(load("01-one-constraint.yaml"), "default/mypod")
    [bar] = bars(fig)
    assert bar.x == ("zoneA", "zoneB") and bar.y == (2, 1)
    assert bar.marker.color[0] != bar.marker.color[1]
    lines = {t.name: t.y[0] for t in fig.data if t.type == "scatter"}
    assert lines == {"global minimum": 1, "most a domain may hold to fit": 1}
    pio.to_json(fig, validate=True)


def test_topology_skew_marks_min_domains_below_the_count():
    cluster = load("06-min-domains.yaml")
    fig = compare_spread(cluster, "default/mypod", {"4": {"minDomains": 4}})
    names = [t.name for t in fig.data if t.type == "scatter"]
    assert "global minimum (0: 3 eligible &lt; minDomains 4)" in names


def test_topology_skew_escapes_user_strings():
    # kschedlab's admission does not (yet) refuse invalid label values, so markup can reach a figure
    text = (SPREAD / "01-one-constraint.yaml").read_text().replace("zoneB", "<b>zb</b>")
    cluster = Cluster(admit(load_text(text)))
    fig = topology_skew(cluster, "default/mypod", title="<script>x</script>")
    [bar] = bars(fig)
    assert bar.x == ("zoneA", "&lt;b&gt;zb&lt;/b&gt;")
    assert all("<b>zb" not in c[0] for c in bar.customdata)
    assert "<script>" not in fig.layout.title.text and "&lt;script&gt;" in fig.layout.title.text
    cluster.pods["default/pod1"].metadata.labels["foo"] = "bar"
    picture = cluster_picture(cluster, zone_key="zone", color_by="foo")
    assert "zone/&lt;b&gt;zb&lt;/b&gt;" in picture.data[0].ids


def test_topology_skew_without_constraints_says_so():
    fig = topology_skew(load("07-cluster-default-constraints.yaml"), "default/loner")
    assert "no topology spread constraints" in fig.layout.annotations[0].text


# -- cluster_picture colouring ---------------------------------------------------------------------------
def test_cluster_picture_colours_pods_by_label_and_groups_by_key():
    cluster = Cluster.from_manifests(AFFINITY / "pod-with-pod-affinity.yaml")
    colors = label_colors(cluster, "security")
    assert list(colors) == ["S1", "S2"]
    fig = cluster_picture(cluster, color_by="security")
    by_id = dict(zip(fig.data[0].ids, fig.data[0].marker.colors))
    assert by_id["pod/default/s1-in-v"] == colors["S1"] and by_id["pod/default/s2-in-r"] == colors["S2"]
    assert by_id["pod/default/with-pod-affinity"] != colors["S1"]  # no security label
    hover = dict(zip(fig.data[0].ids, fig.data[0].customdata))
    assert "labels: security=S1" in hover["pod/default/s1-in-v"]
    assert "S1" in fig.layout.annotations[0].text
    zones = load("01-one-constraint.yaml")
    fig = cluster_picture(zones, zone_key="zone")
    assert {"zone/zoneA", "zone/zoneB"} <= set(fig.data[0].ids)


def test_cluster_picture_escapes_label_values_in_the_legend():
    cluster = Cluster.from_manifests(AFFINITY / "pod-with-pod-affinity.yaml")
    fig = cluster_picture(cluster, color_by="security", title="<i>t</i>")
    assert "<i>t</i>" not in fig.layout.title.text


def test_cluster_picture_without_color_by_is_unchanged():
    cluster = Cluster.from_manifests(AFFINITY / "pod-with-pod-affinity.yaml")
    fig = cluster_picture(cluster)
    hover = dict(zip(fig.data[0].ids, fig.data[0].customdata))
    assert "labels" not in hover["pod/default/s1-in-v"]
    assert not fig.layout.annotations


# -- widgets -----------------------------------------------------------------------------------------------------
def test_spread_explorer_follows_added_pods_and_never_touches_the_source():
    source = load("01-one-constraint.yaml")
    ex = SpreadExplorer(source, "default/mypod")
    assert ex.counts() == {"zoneA": 2, "zoneB": 1} and ex.last.node in {"node3", "node4"}
    ex.add_pod("node3").add_pod("node4")
    assert ex.counts() == {"zoneA": 2, "zoneB": 3}
    assert ex.last.node in {"node1", "node2"}
    fig = ex.figure.outputs[0]["data"]["application/vnd.plotly.v1+json"]
    assert [t["y"] for t in fig["data"] if t.get("name") == "matching pods"] == [[2, 3]]
    result = ex.schedule()
    assert result.node in {"node1", "node2"} and ex.counts() == {"zoneA": 3, "zoneB": 3}
    assert "scheduled" in ex.history.value
    assert len(source.pods) == 4 and not source.pods["default/mypod"].spec.node_name
    ex.reset()
    assert ex.counts() == {"zoneA": 2, "zoneB": 1}


def test_spread_explorer_sliders_change_the_constraint():
    ex = SpreadExplorer(load("06-min-domains.yaml"), "default/mypod")
    assert ex.last.node == "node5"
    ex.set(min_domains=4)
    assert ex.last.node is None and "Pending" in ex.status.value
    ex.set(min_domains=0, max_skew=2)
    assert ex.last.node is not None
    assert "maxSkew 2" in ex.table.value


def test_spread_explorer_escapes_and_reports_a_pending_replica():
    ex = SpreadExplorer(load("03-conflicting-constraints.yaml"), "default/mypod")
    result = ex.schedule()
    assert result.node is None and "stays Pending" in ex.history.value
    assert len(ex.cluster.pods) == 6  # the unschedulable replica is not kept
    assert "<script" not in ex.status.value


def test_cluster_view_redraws_with_the_chosen_label():
    cluster = Cluster.from_manifests(AFFINITY / "redis-cache-web-store.yaml")
    Scheduler(cluster, seed=0).run()
    view = ClusterView(cluster, color_by="app")
    fig = view.figure.outputs[0]["data"]["application/vnd.plotly.v1+json"]
    assert "coloured by app" in fig["layout"]["title"]["text"]
    view.set(color_by="(none)", size_by="memory")
    assert view.figure_title() == "Cluster: zones, nodes and their pods (sized by memory)"
    assert "app" in view.color_by.options and "nodes=3" in repr(view)


def test_yaml_documents_returns_the_manifest_as_written():
    text = yaml_documents(SPREAD / "07-cluster-default-constraints.yaml", kind="KubeSchedulerConfiguration")
    assert text.startswith("apiVersion: kubescheduler.config.k8s.io/v1") and "defaultingType: List" in text
    with pytest.raises(ValueError, match="no document"):
        yaml_documents(SPREAD / "01-one-constraint.yaml", kind="Service")


def test_cluster_picture_marks_a_pod_naming_a_missing_node():
    cluster = Cluster.from_manifests(ROOT / "datasets" / "seed" / "02-node-name.yaml")
    fig = cluster_picture(cluster)
    hover = dict(zip(fig.data[0].ids, fig.data[0].customdata))
    parents = dict(zip(fig.data[0].ids, fig.data[0].parents))
    assert parents["pod/default/nginx"] == "node/kube-01"
    assert parents["pod/default/nginx-nowhere"] == "pending"
    assert "nodeName kube-03: no such node" in hover["pod/default/nginx-nowhere"]
