"""PodGroup preemption's reprieve shortcut answers as the full check.

A victim unit is reprieved when every pod the group placed still passes Filter on its node
(:class:`~kschedlab.framework.group_reprieve.GroupReprieve`).  When only node-local filters
run and the full check passed before the unit came back, only the pods placed on the unit's
nodes are filtered again, and a unit that touches no node the group uses is kept without
filtering.  On
seeded random clusters (8-GPU and CPU nodes, running pods of several priorities, some in
PodGroups with disruption mode all or single, some with host ports or pod anti-affinity, a
few nominated pods, PDBs) a pending gang of higher priority runs one PodGroup cycle twice:
with the shortcut and with every unit filtered.  Messages, statuses, victims, nominations,
the cluster afterwards and the scheduler's rotating start and random state must be the same.
"""

from __future__ import annotations

import numpy as np
import pytest

from kschedlab.api.loader import load_objects
from kschedlab.cluster import Cluster
from kschedlab.framework.group_reprieve import GroupReprieve
from kschedlab.scheduler import Scheduler
from tests.seeds import seeds

GPU = "nvidia.com/gpu"
GATES = {"GenericWorkload": True}


def random_cluster(seed: int, wide: bool = False) -> tuple[list[dict], str]:
    """Objects of a random cluster and the key of its pending gang; ``wide``: most running
    pods in groups evicted whole (disruption mode all), so that a victim unit spans several
    nodes, and a larger gang, so that it often shares more than one node with the gang."""
    rng = np.random.default_rng(seed)
    n_nodes = int(rng.integers(3, 30))
    objects: list[dict] = []
    for i in range(n_nodes):
        alloc = {"cpu": str(int(rng.choice([8, 16, 32]))), "memory": "64Gi", "pods": str(int(rng.integers(3, 12)))}
        if rng.random() < 0.7:
            alloc[GPU] = "8"
        objects.append({"apiVersion": "v1", "kind": "Node",
                        "metadata": {"name": f"n{i:02d}", "labels": {"kubernetes.io/hostname": f"n{i:02d}"}},
                        "status": {"allocatable": alloc, "capacity": alloc}})
    groups = []
    for g in range(int(rng.integers(2, 6) if wide else rng.integers(0, 5))):
        spec: dict = {"priority": int(rng.choice([0, 100])), "schedulingPolicy": {"gang": {"minCount": 1}}}
        mode = "all" if wide else rng.choice(["all", "single", ""])
        if mode:
            spec["disruptionMode"] = {str(mode): {}}
        groups.append(f"g{g}")
        objects.append({"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
                        "metadata": {"name": f"g{g}", "namespace": "default", "uid": f"g{g}"}, "spec": spec})
    ports = rng.random() < 0.2
    anti = rng.random() < 0.15

    def pod(name: str, priority: int, node: str | None = None, group: str | None = None) -> dict:
        requests = {"cpu": f"{int(rng.choice([1, 2, 4, 8]))}", "memory": f"{int(rng.choice([1, 4, 8]))}Gi"}
        container: dict = {"name": "c", "resources": {"requests": requests}}
        gpus = int(rng.choice([0, 0, 1, 2, 4, 8]))
        if gpus:
            requests[GPU] = str(gpus)
            container["resources"]["limits"] = {GPU: str(gpus)}
        if ports and rng.random() < 0.3:
            container["ports"] = [{"containerPort": 80, "hostPort": 8080}]
        spec: dict = {"priority": priority, "containers": [container]}
        labels = {"app": str(rng.choice(["a", "b"]))}
        if anti and rng.random() < 0.3:
            spec["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": {"app": "a"}}, "topologyKey": "kubernetes.io/hostname"}]}}
        if group:
            spec["schedulingGroup"] = {"podGroupName": group}
        body: dict = {"apiVersion": "v1", "kind": "Pod",
                      "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}", "labels": labels},
                      "spec": spec}
        if node:
            spec["nodeName"] = node
            body["status"] = {"phase": "Running", "startTime": f"2024-01-0{int(rng.integers(1, 10))}T00:00:00Z"}
        return body

    for j in range(int(rng.integers(n_nodes, 5 * n_nodes))):
        group = str(rng.choice(groups)) if groups and rng.random() < (0.8 if wide else 0.4) else None
        objects.append(pod(f"e{j:03d}", int(rng.choice([0, 0, 100, 1000])), f"n{int(rng.integers(0, n_nodes)):02d}",
                           group))
    for j in range(int(rng.integers(0, 3))):
        nominated = pod(f"nom{j}", int(rng.choice([0, 1000])))
        nominated["status"] = {"nominatedNodeName": f"n{int(rng.integers(0, n_nodes)):02d}"}
        objects.append(nominated)
    if rng.random() < 0.3:
        objects.append({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                        "metadata": {"name": "pdb-a", "namespace": "default"},
                        "spec": {"selector": {"matchLabels": {"app": "a"}}},
                        "status": {"disruptionsAllowed": int(rng.integers(0, 2))}})
    size = int(rng.integers(3, 9) if wide else rng.integers(1, 6))
    priority = int(rng.choice([100, 1000, 1000]))
    objects.append({"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
                    "metadata": {"name": "gang", "namespace": "default", "uid": "gang"},
                    "spec": {"priority": priority, "schedulingPolicy": {"gang": {"minCount": size}}}})
    objects.extend(pod(f"w{i}", priority, group="gang") for i in range(size))
    return objects, "podgroup/default/gang"


def one_cycle(seed: int, *, shortcut: bool, monkeypatch, wide: bool = False) -> dict:
    """One PodGroup cycle of the gang; what it answered and left behind."""
    objects, key = random_cluster(seed, wide)
    cluster = Cluster(load_objects(objects))
    for name, p in cluster.pods.items():  # nominated pods as the scheduler's nominator knows them
        if p.status is not None and p.status.nominated_node_name:
            cluster.nominate(name, p.status.nominated_node_name)
    sched = Scheduler(cluster, gates=GATES, seed=seed)
    monkeypatch.setattr(GroupReprieve, "use_shortcut", shortcut)
    out = sched.schedule_pod_group(key)
    return {
        "status": (out.status.code, out.status.message()),
        "post_filter": None if out.post_filter is None else (out.post_filter.code, out.post_filter.message()),
        "pods": [(r.pod, r.node, r.message) for r in out.pod_results],
        "nominations": {k: r.nominations for k, r in out.groups.items()},
        "cluster": {k: (p.spec.node_name, p.metadata.deletion_timestamp is not None,
                        p.status.nominated_node_name if p.status else None) for k, p in cluster.pods.items()},
        "scheduler": (sched.next_start_node_index, sched.rng.getstate()),
    }


@pytest.mark.parametrize("seed", seeds(150))
def test_the_shortcut_reprieves_as_the_full_check(seed, monkeypatch):
    assert one_cycle(seed, shortcut=True, monkeypatch=monkeypatch) == \
        one_cycle(seed, shortcut=False, monkeypatch=monkeypatch)


@pytest.mark.parametrize("seed", seeds(100))
def test_units_on_several_of_the_gangs_nodes_reprieved_as_by_the_full_check(seed, monkeypatch):
    assert one_cycle(seed, shortcut=True, monkeypatch=monkeypatch, wide=True) == \
        one_cycle(seed, shortcut=False, monkeypatch=monkeypatch, wide=True)


def test_the_random_clusters_reach_every_branch(monkeypatch):
    """The seeds above preempt (victims kept by the shortcut, kept and evicted after filtering
    the group's pods on some of its nodes only, kept after the full check and evicted), find no placement even with every victim gone, and run the full check because
    a filter is not node-local."""
    seen: set[str] = set()
    keep, unchanged = GroupReprieve.keep, GroupReprieve._unchanged_for_assignments
    fit = GroupReprieve._assignments_fit

    def watched_fit(self, nodes=None):
        answer = fit(self, nodes)
        if nodes is not None and len(nodes) < len(self.assigned_nodes):
            seen.add("kept, some nodes filtered" if answer else "evicted, some nodes filtered")
        return answer

    def watched_keep(self, unit):
        kept = keep(self, unit)
        seen.add("kept" if kept else "evicted")
        if not self.shortcut_allowed:
            seen.add("full check only")
        return kept

    def watched_unchanged(self, unit):
        answer = unchanged(self, unit)
        if answer:
            seen.add("kept by the shortcut")
        return answer

    monkeypatch.setattr(GroupReprieve, "keep", watched_keep)
    monkeypatch.setattr(GroupReprieve, "_unchanged_for_assignments", watched_unchanged)
    monkeypatch.setattr(GroupReprieve, "_assignments_fit", watched_fit)
    messages = set()
    for seed in range(150):
        result = one_cycle(seed, shortcut=True, monkeypatch=monkeypatch)
        messages.add((result["post_filter"] or (None, ""))[1].split(",")[0])
    assert seen == {"kept", "evicted", "kept by the shortcut", "full check only",
                    "kept, some nodes filtered", "evicted, some nodes filtered"}
    assert "pod group preemption: found a placement for podgroup" in messages
    assert any(m.startswith("pod group preemption: minCount") for m in messages)  # no room even without victims
