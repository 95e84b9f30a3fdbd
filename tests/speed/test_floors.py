"""The floors of kschedlab.perf_floors place every pod where the scheduler does."""

from __future__ import annotations

import pytest

from kschedlab.api.core import Namespace
from kschedlab.apiserver.admission import admit
from kschedlab.cluster import Cluster
from kschedlab.perf_floors import FLOOR_SHAPES, shape_floor
from kschedlab.scheduler import Scheduler
from kschedlab.scheduler_perf import WORKLOADS, make_nodes, make_pods, run_shape


def scheduler_rows(name: str, nodes: int, init_pods: int, pods: int, victims: list | None = None) -> list[int]:
    """The row of every pod as the scheduler places it; a pod that preempted is attempted again at
    once (as ``run_workload`` does), and its victims' init indexes go to ``victims``."""
    w = WORKLOADS[name]
    cluster = Cluster(make_nodes(nodes, w.node_labels))
    for ns in admit([Namespace.model_validate({"metadata": {"name": ns}}) for ns in w.namespaces]):
        cluster.add(ns)
    scheduler = Scheduler(cluster, keep_traces=0)
    for pod in make_pods(init_pods, "init", w.init_template, w.init_namespace):
        cluster.add(pod)
    rows = [-1 if r.node is None else cluster.snapshot.index[r.node] for r in scheduler.run()]
    measured = make_pods(pods, "pod", w.measure_template, w.measure_namespace)
    for pod in measured:
        cluster.add(pod)
    for q in scheduler.queue([f"{w.measure_namespace}/{p.metadata.name}" for p in measured]):
        key = q.pod_info.key
        plugin = scheduler.framework_for(cluster.pods[key]).plugins["DefaultPreemption"]
        plugin.last_record = None
        node = scheduler.schedule_one(key).node
        gone = plugin.last_record.victims if plugin.last_record is not None else []
        if node is None and cluster.pods[key].status.nominated_node_name:
            node = scheduler.schedule_one(key).node
        if victims is not None:
            victims.append([int(v.rsplit("-", 1)[1]) for v in gone])
        rows.append(-1 if node is None else cluster.snapshot.index[node])
    return rows


@pytest.mark.parametrize("name", sorted(FLOOR_SHAPES))
@pytest.mark.parametrize("nodes, init_pods, pods", [(30, 10, 60), (120, 60, 150)])
def test_floor_places_every_pod_where_the_scheduler_does(name, nodes, init_pods, pods):
    assert shape_floor(name, nodes, init_pods, pods)["placements"] == scheduler_rows(name, nodes, init_pods, pods)


@pytest.mark.parametrize("nodes, init_pods, pods", [(20, 80, 20), (150, 600, 120), (40, 100, 50)])
def test_preemption_floor_evicts_the_pods_the_scheduler_evicts(nodes, init_pods, pods):
    victims: list = []
    rows = scheduler_rows("PreemptionBasic", nodes, init_pods, pods, victims)
    floor = shape_floor("PreemptionBasic", nodes, init_pods, pods)
    assert floor["placements"] == rows and floor["victims"] == victims
    assert sum(map(len, victims)) > 0


def test_anti_affinity_floor_leaves_pods_pending_when_every_node_is_taken():
    assert shape_floor("SchedulingPodAntiAffinity", 6, 2, 6)["placements"].count(-1) == 2
    assert scheduler_rows("SchedulingPodAntiAffinity", 6, 2, 6).count(-1) == 2


def test_spreading_floor_keeps_the_skew():
    rows = shape_floor("TopologySpreading", 9, 0, 60)["placements"]
    per_zone = [sum(1 for r in rows if r % 3 == z) for z in range(3)]
    assert max(per_zone) - min(per_zone) <= 5


@pytest.mark.parametrize("name", sorted(FLOOR_SHAPES))
def test_bench_row_has_the_floor_ratio(name):
    row = run_shape(name, 0.004)
    assert row["reference_ratio"] is not None and row["reference_ratio"] > 0
