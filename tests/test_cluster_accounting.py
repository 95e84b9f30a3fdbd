"""The snapshot's accounting (one vector per pod added to a column of stacked counters) against a
plain per-resource book kept beside it, on random pods and nodes with mutations between steps.

The pods mix extended resources (some named only by a DeviceClass, as a DRA-served extended
resource is: no node lists it), pod-level resources, overhead, plain and sidecar init containers and
host ports; new resources appear mid-run (new columns), the node table grows past its capacity, a
removed pod comes back on another node, and one PodInfo is accounted in two snapshots whose
resource columns are in different orders.
"""

import functools
import random
from collections import Counter

import pytest

from kschedlab.api.core import Node, Pod
from kschedlab.api.resources import PODS, resource_list
from kschedlab.cluster import Cluster, Snapshot
from kschedlab.framework.types import PodInfo
from tests.seeds import seeds

EXTENDED = ["example.com/fpga", "nvidia.com/gpu", "example.com/dra-gpu", "hugepages-2Mi", "example.com/late"]


def _resources(rng: random.Random, names: list[str]) -> dict[str, str]:
    out = {}
    if rng.random() < 0.7:
        out["cpu"] = f"{rng.randrange(0, 4000)}m"
    if rng.random() < 0.7:
        out["memory"] = f"{rng.randrange(0, 8192)}Mi"
    if rng.random() < 0.2:
        out["ephemeral-storage"] = f"{rng.randrange(1, 10)}Gi"
    for name in names:
        if rng.random() < 0.3:
            out[name] = str(rng.randrange(0, 4))
    if names and rng.random() < 0.05:  # (a container asking for "pods": counted as requested, not as free)
        out[PODS] = "1"
    return out


def _container(rng: random.Random, names: list[str], i: int, **extra) -> dict:
    c = {"name": f"c{i}", "resources": {"requests": _resources(rng, names)}, **extra}
    if rng.random() < 0.1:
        c["ports"] = [{"containerPort": 80, "hostPort": rng.choice([80, 8080])}]
    return c


def _pod(rng: random.Random, name: str, names: list[str]) -> Pod:
    spec: dict = {"containers": [_container(rng, names, i) for i in range(rng.randrange(1, 3))]}
    if rng.random() < 0.3:
        spec["initContainers"] = [_container(rng, names, 10 + i, **({"restartPolicy": "Always"} if rng.random() < 0.5
                                                                   else {}))
                                  for i in range(rng.randrange(1, 3))]
    if rng.random() < 0.25:
        spec["resources"] = {"requests": {k: v for k, v in _resources(rng, []).items() if k in ("cpu", "memory")}}
    if rng.random() < 0.2:
        spec["overhead"] = {"cpu": "100m", "memory": "64Mi"}
    return Pod.model_validate({"metadata": {"name": name, "namespace": "default",
                                            "labels": {"app": rng.choice("abc")}}, "spec": spec})


def _node(rng: random.Random, name: str, names: list[str]) -> Node:
    alloc = {"cpu": str(rng.randrange(4, 64)), "memory": f"{rng.randrange(8, 256)}Gi", "pods": str(rng.randrange(5, 110))}
    for extra in names:
        if extra != "example.com/dra-gpu" and rng.random() < 0.5:  # DRA-served: no node lists it
            alloc[extra] = str(rng.randrange(1, 9))
    return Node.model_validate({"metadata": {"name": name}, "status": {"allocatable": alloc}})


def _is_c(info: PodInfo) -> bool:
    return info.labels.get("app") == "c"


def _app(info: PodInfo) -> str | None:
    return info.labels.get("app") if info.labels.get("app") != "b" else None


class Book:
    """The plain answer: per node, its pods in order and their requests summed resource by resource."""

    def __init__(self):
        self.pods: dict[str, list[PodInfo]] = {}
        self.alloc: dict[str, dict[str, int]] = {}
        self.bumps: Counter = Counter()

    def node(self, node: Node) -> None:
        self.pods.setdefault(node.metadata.name, [])
        self.alloc[node.metadata.name] = resource_list(node.status.allocatable)

    def check(self, snap: Snapshot) -> None:
        for name, infos in self.pods.items():
            row = snap.index[name]
            assert [p.key for p in snap.pods[row]] == [p.key for p in infos]
            requested: Counter = Counter()
            for info in infos:
                requested.update(info.requests)
            for col, res in enumerate(snap.resources):
                assert snap.requested[col, row] == requested.get(res, 0), (name, res)
                alloc = self.alloc[name].get(res, 0)
                free = alloc - len(infos) if res == PODS else alloc - requested.get(res, 0)
                assert snap.free[col, row] == free, (name, res)
            assert snap.non_zero[:, row].tolist() == [sum(p.non_zero[i] for p in infos) for i in (0, 1)]
            assert snap.pod_count[row] == len(infos)
            ports = Counter(port for p in infos for port in p.ports)
            assert Counter(dict(snap.port_rows.get(row, {}))) == +ports
        assert snap.pod_row == {p.key: snap.index[n] for n, infos in self.pods.items() for p in infos}

    def check_indexes(self, snap: Snapshot) -> None:
        """The list and grouped indexes against ones built from the book's pods."""
        placed = [(snap.index[n], p) for n, infos in self.pods.items() for p in infos]
        listed = snap.matching_pods("c-pods", None)
        assert {k: (row, id(p)) for k, (row, p) in listed.items()} == \
            {p.key: (row, id(p)) for row, p in placed if _is_c(p)}
        groups = snap.pod_groups("by-app", None)
        expected: dict[str, Counter] = {}
        for row, p in placed:
            if _app(p) is not None:
                expected.setdefault(_app(p), Counter())[row] += 1
        assert set(groups) == set(expected)
        for value, counts in expected.items():
            assert groups[value].pods == sum(counts.values())
            assert {r: int(c) for r, c in enumerate(groups[value].counts) if c} == dict(counts)


@pytest.mark.parametrize("seed", seeds(6))
def test_vector_accounting_matches_the_per_resource_book(seed):
    rng = random.Random(seed)
    known = list(EXTENDED[:2])  # more resources become known as the run goes on
    cluster = Cluster(pod_level_resources=seed % 2 == 0)
    snap, book = cluster.snapshot, Book()
    web = snap.matching_pod_counts("web", lambda p: p.labels.get("app") == "a")
    snap.matching_pods("c-pods", _is_c)  # a list and a grouped index, kept as pods come, go and change
    snap.pod_groups("by-app", _app)
    infos: dict[str, PodInfo] = {}
    placed: dict[str, str] = {}
    for step in range(400):
        before = snap.row_version.copy()
        op = rng.random()
        if not book.pods or op < 0.08:
            node = _node(rng, f"n{len(book.pods)}", known)
            cluster.add(node)
            book.node(node)
        elif op < 0.12:
            node = _node(rng, rng.choice(list(book.pods)), known)
            cluster.update_node(node)
            book.node(node)
        elif op < 0.15 and len(known) < len(EXTENDED):
            known.append(EXTENDED[len(known)])
        elif op < 0.6 or not placed:
            unplaced = [k for k in infos if k not in placed]
            if unplaced and rng.random() < 0.4:  # a removed pod placed again: its kept vector reused
                key = rng.choice(unplaced)
            else:
                key = f"default/p{step}"
                infos[key] = PodInfo.of(_pod(rng, f"p{step}", known), pod_level_resources=cluster.pod_level_resources)
            node_name = rng.choice(list(book.pods))
            snap.add_pod(infos[key], node_name)
            book.pods[node_name].append(infos[key])
            placed[key] = node_name
            assert snap.row_version[snap.index[node_name]] == before[snap.index[node_name]] + 1
        elif op < 0.9:
            key = rng.choice(list(placed))
            node_name = placed.pop(key)
            assert snap.remove_pod(key) is infos[key]
            book.pods[node_name].remove(infos[key])
        else:
            key = rng.choice(list(placed))
            labels = infos[key].pod.metadata.labels
            snap.change_pod(key, functools.partial(labels.update, app=rng.choice("abc")), ["app"])
        book.check(snap)
        web = snap.matching_pod_counts("web", None)
        for name, pods in book.pods.items():
            assert web[snap.index[name]] == sum(p.labels.get("app") == "a" for p in pods)
        book.check_indexes(snap)
    assert len(book.pods) > 16  # the table grew past its first capacity


def test_one_pod_in_two_snapshots_with_columns_in_other_orders():
    """A PodInfo accounted in two snapshots keeps a vector for each: the same number of resource
    columns, but the extended resources in opposite orders."""
    first = Snapshot()
    second = Snapshot()
    first.resource_column("example.com/a")
    first.resource_column("example.com/b")
    second.resource_column("example.com/b")
    second.resource_column("example.com/a")
    node = Node.model_validate({"metadata": {"name": "n"}, "status": {"allocatable": {"pods": "9"}}})
    first.add_node(node)
    second.add_node(node)
    pod = Pod.model_validate({"metadata": {"name": "p", "namespace": "default"},
                              "spec": {"containers": [{"name": "c", "resources": {"requests": {"example.com/a": "1"}}}]}})
    info = PodInfo.of(pod)
    for snap in (first, second, first):
        snap.add_pod(info, "n")
        assert snap.requested[snap.res_index["example.com/a"], 0] == 1
        assert snap.requested[snap.res_index["example.com/b"], 0] == 0
        snap.remove_pod(info.key)
        assert not snap.requested[:, 0].any()


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_a_copied_cluster_accounts_into_its_own_counters(how):
    """A deep copy or a pickle copies arrays one by one: the copy's counters must still be views of
    the stacked array its accounting writes (the what-if widgets deep-copy a cluster)."""
    import copy
    import pickle

    rng = random.Random(7)
    names = list(EXTENDED[:2])
    cluster = Cluster([_node(rng, f"n{i}", names) for i in range(3)])
    for i in range(4):
        cluster.snapshot.add_pod(PodInfo.of(_pod(rng, f"p{i}", names)), f"n{i % 3}")
    fresh = copy.deepcopy(cluster) if how == "deepcopy" else pickle.loads(pickle.dumps(cluster))
    snap, old = fresh.snapshot, cluster.snapshot
    before = [getattr(old, name).copy() for name in Snapshot._VIEWS]
    book = Book()
    for name in sorted(snap.index, key=snap.index.get):
        book.node(fresh.nodes[name])
        book.pods[name] = list(snap.pods[snap.index[name]])
    for i in range(4, 12):  # a new resource column on the way: the copy's views are rebuilt again
        info = PodInfo.of(_pod(rng, f"p{i}", [*names, EXTENDED[2]] if i == 8 else names))
        node = f"n{i % 3}"
        snap.add_pod(info, node)
        book.pods[node].append(info)
        book.check(snap)
    assert all((getattr(old, name) == b).all() for name, b in zip(Snapshot._VIEWS, before))


def test_one_pod_in_a_snapshot_and_its_copy_whose_columns_parted():
    """A copy keeps its vectors under a key of its own: after the copy, the two snapshots learn the
    same extended resources in opposite orders, and one PodInfo is accounted in both."""
    import copy

    first = Snapshot()
    first.add_node(Node.model_validate({"metadata": {"name": "n"}, "status": {"allocatable": {"pods": "9"}}}))
    second = copy.deepcopy(first)
    first.resource_column("example.com/a")
    first.resource_column("example.com/b")
    second.resource_column("example.com/b")
    second.resource_column("example.com/a")
    pod = Pod.model_validate({"metadata": {"name": "p", "namespace": "default"},
                              "spec": {"containers": [{"name": "c", "resources": {"requests": {"example.com/a": "1"}}}]}})
    info = PodInfo.of(pod)
    for snap in (first, second):
        snap.add_pod(info, "n")
        assert snap.requested[snap.res_index["example.com/a"], 0] == 1
        assert snap.requested[snap.res_index["example.com/b"], 0] == 0
