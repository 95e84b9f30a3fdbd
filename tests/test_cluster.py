"""Snapshot bookkeeping: resources, pod indexes, node order."""

import copy

from kschedlab.api.core import Node, Pod
from kschedlab.cluster import Cluster


def _node(name, zone="a"):
    return Node.model_validate({"metadata": {"name": name, "labels": {"topology.kubernetes.io/zone": zone}},
                                "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "10"}}})


def _pod(name, app, node=None):
    spec = {"containers": [{"name": "c", "resources": {"requests": {"cpu": "100m", "example.com/dongle": "1"}}}]}
    if node:
        spec["nodeName"] = node
    return Pod.model_validate({"metadata": {"name": name, "namespace": "default", "labels": {"app": app}},
                               "spec": spec})


def test_pod_indexes_follow_binds_and_removals():
    cluster = Cluster([_node("n1"), _node("n2", "b"), _pod("a1", "web", "n1")])
    snap = cluster.snapshot
    counts = snap.matching_pod_counts(("app", "web"), lambda p: p.labels.get("app") == "web")
    lst = snap.matching_pods(("app", "web"), lambda p: p.labels.get("app") == "web")
    assert counts[:2].tolist() == [1, 0] and set(lst) == {"default/a1"}
    cluster.add(_pod("a2", "web"))
    cluster.add(_pod("b1", "db"))
    cluster.bind("default/a2", "n2")
    cluster.bind("default/b1", "n2")
    assert snap.matching_pod_counts(("app", "web"), None)[:2].tolist() == [1, 1]
    cluster.remove_pod("default/a1")
    assert snap.matching_pod_counts(("app", "web"), None)[:2].tolist() == [0, 1]
    assert set(snap.matching_pods(("app", "web"), None)) == {"default/a2"}


def test_extended_resources_get_their_own_column():
    cluster = Cluster([_node("n1"), _pod("a1", "web", "n1")])
    snap = cluster.snapshot
    col = snap.res_index["example.com/dongle"]
    assert snap.requested[col, 0] == 1 and snap.allocatable[col, 0] == 0
    assert cluster.snapshot.node_info("n1").requested == {"cpu": 100, "example.com/dongle": 1}


def test_indexes_survive_growth_of_the_snapshot():
    cluster = Cluster([_node("n0")])
    snap = cluster.snapshot
    snap.matching_pod_counts("web", lambda p: p.labels.get("app") == "web")
    for i in range(1, 40):
        cluster.add(_node(f"n{i}"))
    cluster.add(_pod("w", "web", "n39"))
    assert snap.matching_pod_counts("web", None)[snap.index["n39"]] == 1


def test_group_priorities_follow_group_objects_added_replaced_and_removed():
    from kschedlab.api.podgroup import CompositePodGroup, PodGroup

    def group(cls, name, priority):
        return cls.model_validate({"metadata": {"name": name, "namespace": "ml"},
                                   "spec": {"priority": priority, "schedulingPolicy": {"basic": {}}}})

    cluster = Cluster([group(PodGroup, "a", 5), group(PodGroup, "b", 5), group(CompositePodGroup, "top", 9)])
    assert cluster.group_priorities == {5: 2, 9: 1}
    cluster.add(group(PodGroup, "a", 7))  # the same object again, now with priority 7
    assert cluster.group_priorities == {5: 1, 7: 1, 9: 1}
    cluster.remove("PodGroup", "ml/b")
    cluster.remove("CompositePodGroup", "ml/top")
    assert cluster.group_priorities == {7: 1}


def test_pod_indexes_follow_a_pod_marked_terminating():
    """An index whose predicate reads the deletion timestamp (PodTopologySpread's) stops counting a
    pod marked terminating in place, and its removal afterwards leaves the count at zero, not -1
    or a stale 1 (the count the over-preempting PodTopologySpread preemptor saw)."""
    from datetime import datetime, timezone

    cluster = Cluster([_node("n1"), _pod("a1", "web", "n1"), _pod("a2", "web", "n1")])
    snap = cluster.snapshot
    alive = lambda p: p.labels.get("app") == "web" and p.pod.metadata.deletion_timestamp is None  # noqa: E731
    assert snap.matching_pod_counts("alive-web", alive)[0] == 2
    cluster.mark_terminating("default/a1", datetime(2026, 1, 1, tzinfo=timezone.utc), 30)
    assert snap.matching_pod_counts("alive-web", alive)[0] == 1
    assert cluster.pods["default/a1"].metadata.deletion_grace_period_seconds == 30
    cluster.remove_pod("default/a1")
    assert snap.matching_pod_counts("alive-web", alive)[0] == 1
    cluster.remove_pod("default/a2")
    assert snap.matching_pod_counts("alive-web", alive)[0] == 0


def test_pod_indexes_follow_labels_a_binding_adds_to_an_assumed_pod():
    """An assumed pod whose Binding brings topology labels (PodTopologyLabelsAdmission) leaves every
    index as it was assumed and joins it as it is bound: an index on the new label counts it once,
    an index on a label the binding overwrote no longer counts or lists it."""
    zone = "topology.kubernetes.io/zone"
    cluster = Cluster([_node("n1"), _pod("a1", "web")])
    snap = cluster.snapshot
    pod = cluster.pods["default/a1"]
    pod.metadata.labels = {"app": "web", zone: "stale"}
    in_a = lambda p: p.labels.get(zone) == "a"  # noqa: E731
    stale = lambda p: p.labels.get(zone) == "stale"  # noqa: E731
    snap.matching_pod_counts("in-a", in_a)
    snap.matching_pods("stale", stale)
    snap.add_pod(cluster.pod_infos["default/a1"], "n1")  # assumed
    assert snap.matching_pod_counts("stale", stale)[0] == 1 and set(snap.matching_pods("stale", None))
    cluster.bind("default/a1", "n1", labels={zone: "a"})
    assert pod.metadata.labels[zone] == "a"
    assert snap.matching_pod_counts("in-a", None)[0] == 1
    assert snap.matching_pod_counts("stale", None)[0] == 0
    assert snap.matching_pods("stale", None) == {}
    assert snap.pod_row["default/a1"] == 0 and snap.pod_count[0] == 1


def test_a_kept_node_info_holds_the_node_as_it_is_now():
    """``Snapshot.node_infos_at`` hands out one NodeInfo per row, kept; its ``node`` is set anew when
    the node is replaced, in the snapshot and in a deep copy of it alike."""
    cluster = Cluster([_node("n1"), _node("n2")])
    snap = cluster.snapshot
    info, = snap.node_infos_at([snap.index["n1"]])
    relabelled = _node("n1", zone="b")
    cluster.update_node(relabelled)
    assert snap.node_infos_at([snap.index["n1"]])[0] is info and snap.node_info("n1") is info
    assert info.node is relabelled and info.node.metadata.labels["topology.kubernetes.io/zone"] == "b"
    copied = copy.deepcopy(snap)
    twin, = copied.node_infos_at([copied.index["n1"]])
    assert twin is not info and twin.node is copied.nodes[copied.index["n1"]]
    assert twin.node.metadata.labels["topology.kubernetes.io/zone"] == "b"
    moved = _node("n1", zone="c")
    copied.update_node(moved)
    assert twin.node is moved and info.node is relabelled  # (the original is not touched)
