"""Node-tree ordering (zones visited round robin) -> ``Snapshot.order``.

source: kubernetes/kubernetes@15b08666fae3c54f934d362f493ca9448aa62719
        pkg/scheduler/internal/cache/node_tree_test.go :: TestNodeTree_AddNode, TestNodeTree_RemoveNode,
        TestNodeTree_UpdateNode, TestNodeTree_List, TestNodeTreeMultiOperations

The zone tree is checked through ``Snapshot._zones`` (zone key -> rows), the iteration order through
``Snapshot.order``.  Differences kept on purpose: adding a node twice is refused with an error instead of
being logged and ignored (the tree is unchanged either way), and updating a node that does not exist is
refused (upstream adds it) -- that row is not ported.  TestNodeTree_List_Exhausted pokes internals.
"""

from __future__ import annotations

import pytest

from kschedlab.api.core import Node
from kschedlab.cluster import Snapshot

SRC = ("kubernetes/kubernetes@15b08666fae3c54f934d362f493ca9448aa62719 "
       "pkg/scheduler/internal/cache/node_tree_test.go")

REGION, ZONE = "topology.kubernetes.io/region", "topology.kubernetes.io/zone"
BETA_REGION, BETA_ZONE = "failure-domain.beta.kubernetes.io/region", "failure-domain.beta.kubernetes.io/zone"


def node(name, labels=None):
    return Node.model_validate({"metadata": {"name": name, "labels": labels or {}}})


ALL_NODES = [
    node("node-0"),                                            # no region-zone label
    node("node-1", {REGION: "region-1"}),                      # region only
    node("node-2", {ZONE: "zone-2"}),                          # zone only
    node("node-3", {REGION: "region-1", ZONE: "zone-2"}),
    node("node-4", {REGION: "region-1", ZONE: "zone-2"}),
    node("node-5", {REGION: "region-1", ZONE: "zone-3"}),
    node("node-6", {REGION: "region-2", ZONE: "zone-2"}),
    node("node-7", {REGION: "region-2", ZONE: "zone-2"}),
    node("node-8", {REGION: "region-2", ZONE: "zone-2"}),
    node("node-9", {REGION: "region-2", ZONE: "zone-2", BETA_REGION: "region-2", BETA_ZONE: "zone-2"}),
    node("node-10", {BETA_REGION: "region-2", BETA_ZONE: "zone-3"}),
]


def snapshot_of(nodes):
    snap = Snapshot()
    for n in nodes or []:
        snap.add_node(n)
    return snap


def tree(snap):
    return {zone: [snap.names[r] for r in rows] for zone, rows in snap._zones.items()}


def order(snap):
    return [snap.names[r] for r in snap.order]


def verify(snap, want):
    assert tree(snap) == want
    assert snap.num_nodes == sum(len(v) for v in want.values())
    assert sorted(order(snap)) == sorted(n for v in want.values() for n in v)


@pytest.mark.parametrize("to_add, want", [
    pytest.param(ALL_NODES[:1], {"": ["node-0"]}, id="single node no labels"),
    pytest.param(ALL_NODES[:4], {"": ["node-0"], "region-1:\x00:": ["node-1"], ":\x00:zone-2": ["node-2"],
                                 "region-1:\x00:zone-2": ["node-3"]},
                 id="mix of nodes with and without proper labels"),
    pytest.param(ALL_NODES[:7], {"": ["node-0"], "region-1:\x00:": ["node-1"], ":\x00:zone-2": ["node-2"],
                                 "region-1:\x00:zone-2": ["node-3", "node-4"], "region-1:\x00:zone-3": ["node-5"],
                                 "region-2:\x00:zone-2": ["node-6"]},
                 id="mix of nodes with and without proper labels and some zones with multiple nodes"),
    pytest.param(ALL_NODES[9:], {"region-2:\x00:zone-2": ["node-9"], "region-2:\x00:zone-3": ["node-10"]},
                 id="nodes also using deprecated zone/region label"),
])
def test_node_tree_add_node(to_add, want):
    # source: SRC :: TestNodeTree_AddNode
    verify(snapshot_of(to_add), want)


def test_node_tree_add_same_node_twice():
    # source: SRC :: TestNodeTree_AddNode "same node specified twice"
    snap = snapshot_of(ALL_NODES[:1])
    with pytest.raises(ValueError):
        snap.add_node(ALL_NODES[0])
    verify(snap, {"": ["node-0"]})


@pytest.mark.parametrize("existing, to_remove, want, expect_error", [
    pytest.param(ALL_NODES[:7], ALL_NODES[:1],
                 {"region-1:\x00:": ["node-1"], ":\x00:zone-2": ["node-2"],
                  "region-1:\x00:zone-2": ["node-3", "node-4"], "region-1:\x00:zone-3": ["node-5"],
                  "region-2:\x00:zone-2": ["node-6"]}, False,
                 id="remove a single node with no labels"),
    pytest.param(ALL_NODES[:7], ALL_NODES[1:4],
                 {"": ["node-0"], "region-1:\x00:zone-2": ["node-4"], "region-1:\x00:zone-3": ["node-5"],
                  "region-2:\x00:zone-2": ["node-6"]}, False,
                 id="remove a few nodes including one from a zone with multiple nodes"),
    pytest.param(ALL_NODES[:7], ALL_NODES[:7], {}, False, id="remove all nodes"),
    pytest.param(None, ALL_NODES[:5], {}, True, id="remove non-existing node"),
])
def test_node_tree_remove_node(existing, to_remove, want, expect_error):
    # source: SRC :: TestNodeTree_RemoveNode
    snap = snapshot_of(existing)
    for n in to_remove:
        if expect_error:
            with pytest.raises(KeyError):
                snap.remove_node(n.metadata.name)
        else:
            snap.remove_node(n.metadata.name)
    verify(snap, want)


@pytest.mark.parametrize("existing, want", [
    pytest.param(ALL_NODES[:7], {"region-1:\x00:": ["node-1"], ":\x00:zone-2": ["node-2"],
                                 "region-1:\x00:zone-2": ["node-3", "node-4", "node-0"],
                                 "region-1:\x00:zone-3": ["node-5"], "region-2:\x00:zone-2": ["node-6"]},
                 id="update a node without label"),
    pytest.param(ALL_NODES[:1], {"region-1:\x00:zone-2": ["node-0"]}, id="update the only existing node"),
])
def test_node_tree_update_node(existing, want):
    # source: SRC :: TestNodeTree_UpdateNode
    snap = snapshot_of(existing)
    snap.update_node(node("node-0", {REGION: "region-1", ZONE: "zone-2"}))
    verify(snap, want)


@pytest.mark.parametrize("to_add, want", [
    pytest.param(None, [], id="empty tree"),
    pytest.param(ALL_NODES[:1], ["node-0"], id="one node"),
    pytest.param(ALL_NODES[:4], ["node-0", "node-1", "node-2", "node-3"], id="four nodes"),
    pytest.param(ALL_NODES[:9], ["node-0", "node-1", "node-2", "node-3", "node-5", "node-6", "node-4", "node-7",
                                 "node-8"], id="all nodes"),
])
def test_node_tree_list(to_add, want):
    # source: SRC :: TestNodeTree_List
    assert order(snapshot_of(to_add)) == want


@pytest.mark.parametrize("to_add, to_remove, operations, want", [
    pytest.param(ALL_NODES[2:9], ALL_NODES[2:9], ["add", "add", "add", "remove", "remove", "remove"], [],
                 id="add and remove all nodes"),
    pytest.param(ALL_NODES[2:9], ALL_NODES[2:9], ["add", "add", "add", "remove"], ["node-3", "node-4"],
                 id="add and remove some nodes"),
    pytest.param(ALL_NODES[2:9], ALL_NODES[2:9], ["add", "add", "add", "remove", "remove", "remove", "add"],
                 ["node-5"], id="remove three nodes"),
    pytest.param([*ALL_NODES[4:9], ALL_NODES[3]], [], ["add"] * 6,
                 ["node-4", "node-5", "node-6", "node-3", "node-7", "node-8"],
                 id="add more nodes to an exhausted zone"),
    pytest.param([*ALL_NODES[3:5], *ALL_NODES[6:8]], ALL_NODES[3:5], ["add", "add", "remove", "add", "add", "remove"],
                 ["node-6", "node-7"], id="remove zone and add new"),
])
def test_node_tree_multi_operations(to_add, to_remove, operations, want):
    # source: SRC :: TestNodeTreeMultiOperations
    snap = Snapshot()
    adds, removes = iter(to_add), iter(to_remove)
    for op in operations:
        if op == "add":
            snap.add_node(next(adds))
        else:
            snap.remove_node(next(removes).metadata.name)
    assert order(snap) == want
