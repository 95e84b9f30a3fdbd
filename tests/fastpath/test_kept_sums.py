"""InterPodAffinity's per-value sums of the snapshot's own count arrays, kept across cycles
(``_Topology.per_value(..., kept=True)``, ``_KeptSums``): each read adds only the rows the snapshot
logged as changed since the last one (``Snapshot.changes_since``) whose counts moved. Checked attempt by attempt against runs where every read sums the whole
array again, fast path and plugin by plugin, on the random clusters of ``test_affinity_groups``
(node relabels, taints, node deletions with or without their pods, pod deletions, pods marked
terminating, new nodes, preemption and nominations) and of ``test_shared_parses`` (bound pods
relabelled, namespace labels changed, a pending pod's affinity replaced, pod deletions)."""

from __future__ import annotations

import numpy as np
import pytest

from kschedlab.api.core import Node, Pod
from kschedlab.cluster import Cluster
from kschedlab.plugins.inter_pod_affinity import _KEPT_SUMS, _Topology
from tests.fastpath import test_affinity_groups, test_shared_parses
from tests.fastpath.test_fast_path import same_attempt
from tests.seeds import covered, seeds

ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"


def _count_reads(monkeypatch) -> list[tuple[bool, bool]]:
    """Wrap the kept reads: (an entry was reused, some row had changed since its last read)."""
    reads: list[tuple[bool, bool]] = []
    kept_sums = _Topology._kept_sums

    def counted(self, key, per_row):
        kept = _KEPT_SUMS.get((id(per_row), key))
        reused = (kept is not None and kept.per_row is per_row and kept.codes is self.col(key)[0]
                  and kept.live is self.live and len(kept.seen) == len(per_row))
        reads.append((reused, reused and bool((kept.seen != per_row).any())))
        return kept_sums(self, key, per_row)

    monkeypatch.setattr(_Topology, "_kept_sums", counted)
    return reads


def _summed_every_time(monkeypatch) -> None:
    kept_sums = _Topology._kept_sums
    monkeypatch.setattr(_Topology, "_kept_sums", lambda self, key, per_row: (
        _KEPT_SUMS.clear(), kept_sums(self, key, per_row))[1])


@pytest.mark.parametrize("seed", seeds(6))
def test_kept_sums_answer_as_sums_of_the_whole_array(seed, monkeypatch):
    fast, orphans = seed % 2 == 0, seed % 3 == 1
    _KEPT_SUMS.clear()
    reads = _count_reads(monkeypatch)
    kept = test_affinity_groups.run(seed, False, fast=fast, orphans=orphans)
    assert covered(any(changed for _, changed in reads))  # rows brought up to date
    assert covered(not all(reused for reused, _ in reads))  # rebuilt after nodes changed
    _summed_every_time(monkeypatch)
    summed = test_affinity_groups.run(seed, False, fast=fast, orphans=orphans)
    assert len(kept) == len(summed)
    for a, b in zip(kept, summed):
        same_attempt(a, b)


@pytest.mark.parametrize("seed", seeds(4))
def test_kept_sums_follow_relabelled_pods_namespaces_and_affinity(seed, monkeypatch):
    fast = seed % 2 == 0
    _KEPT_SUMS.clear()
    reads = _count_reads(monkeypatch)
    kept = test_shared_parses.run(seed, fast)
    assert any(changed for _, changed in reads)
    _summed_every_time(monkeypatch)
    summed = test_shared_parses.run(seed, fast)
    assert len(kept) == len(summed)
    for a, b in zip(kept, summed):
        same_attempt(a, b)


def _node(name: str, zone: str | None) -> Node:
    labels = ({HOST: name} if name != "n0" else {}) | ({ZONE: zone} if zone else {})
    return Node.model_validate({"metadata": {"name": name, "labels": labels},
                                "status": {"allocatable": {"cpu": "4", "pods": "10"}}})


def _pod(name: str, node: str, app: str) -> Pod:
    return Pod.model_validate({"metadata": {"name": name, "namespace": "default", "labels": {"app": app}},
                               "spec": {"nodeName": node}})


def test_kept_sums_through_pods_nodes_and_growth():
    """Direct reads of one index (pods ``app: web``) per zone and per hostname (n0 has none, so a
    hostname's code is not its row), kept against summed,
    through pods bound and deleted, a pod relabelled, a node relabelled (a new label column), a
    node removed with its pod still bound (a new live mask), then that pod deleted (a row that is
    no longer live changes), nodes added past the capacity (new count arrays), many rows changed between
    two reads, and more changes than the snapshot's change log keeps."""
    cluster = Cluster([_node(f"n{i}", "ab"[i % 2]) for i in range(4)])
    snapshot = cluster.snapshot
    key = ("test", "web")
    held: list[tuple[np.ndarray, list[int]]] = []  # answers kept by the test, and their values then

    def check():
        per_row = snapshot.matching_pod_counts(key, lambda p: p.pod.metadata.labels.get("app") == "web")
        for label in (ZONE, HOST):
            kept = _Topology(snapshot).per_value(label, per_row, kept=True)
            summed = _Topology(snapshot).per_value(label, per_row)
            assert kept.tolist() == summed.tolist(), label
            with pytest.raises(ValueError):  # a read-only view of the kept sums
                kept[0] = 99
            assert _Topology(snapshot).per_value(label, per_row, kept=True).tolist() == summed.tolist()
            held.append((kept if label == ZONE else kept[:], summed.tolist()))  # the answer, or a view of it
        # copied on write: an answer still held never changes as the kept sums move on
        assert [a.tolist() for a, _ in held] == [values for _, values in held]
        return per_row

    _KEPT_SUMS.clear()
    check()
    cluster.add(_pod("a", "n0", "web"))
    cluster.add(_pod("b", "n1", "web"))
    cluster.add(_pod("c", "n2", "db"))
    first = check()
    assert int(np.asarray(_Topology(snapshot).per_value(ZONE, first, kept=True)).sum()) == 2
    cluster.remove_pod("default/a")
    check()
    p = cluster.pods["default/c"]
    snapshot.change_pod("default/c", lambda: setattr(p.metadata, "labels", {"app": "web"}))
    check()
    relabelled = cluster.nodes["n1"].model_copy(deep=True)
    relabelled.metadata.labels = {HOST: "n1", ZONE: "a"}
    cluster.update_node(relabelled)
    check()
    cluster.remove_node("n2")  # its pod "c" stays bound: it no longer counts
    assert _Topology(snapshot).per_value(ZONE, check(), kept=True).tolist()[:2] == [1, 0]
    cluster.remove_pod("default/c")  # a pod leaves a removed node's row: no sum changes
    check()
    for i in range(4, 40):
        cluster.add(_node(f"n{i}", "ab"[i % 2]))
        cluster.add(_pod(f"w{i}", f"n{i}", "web"))
        check()
    assert snapshot.matching_pod_counts(key, None) is not first  # the capacity grew
    for i in range(4, 40):  # more rows logged between two reads than are taken one by one
        cluster.add(_pod(f"u{i}", f"n{i}", "web" if i % 3 else "db"))
        cluster.add(_pod(f"t{i}", f"n{i}", "web"))
    for i in range(4, 40, 2):
        cluster.remove_pod(f"default/u{i}")
    check()
    snapshot.CHANGE_LOG = 2  # the log drops rows before the next read: every row compared
    for i in range(4, 10):
        cluster.add(_pod(f"v{i}", f"n{i}", "web"))
    check()
