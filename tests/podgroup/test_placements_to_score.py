"""``percentageOfPlacementsToScore`` in the placement algorithm (KEP-5732's limit on the placements
checked): how many racks a topology-constrained gang is tried in, which ones, and the config checks.
The function's own numbers are conformance rows (tests/conformance/podgroup_cycle/placements_to_score.json)."""

from __future__ import annotations

import pytest

from kschedlab.api.core import Namespace, Node
from kschedlab.cluster import Cluster
from kschedlab.features import FeatureGates
from kschedlab.scheduler import Scheduler
from kschedlab.scheduler.schedule_one import ConfigError
from kschedlab.scheduler_perf.gang import (
    LABEL_RACK,
    TAS_GANG_POD,
    TAS_GATES,
    make_domain_nodes,
    make_gang_pods,
    make_pod_groups,
)

NS = "tas-ns-0"


def _gang(racks: int, per_rack: int, size: int, config: dict | None = None, seed: int = 0):
    """A cluster of ``racks`` racks, one gang of ``size`` pods constrained to one rack, its scheduler."""
    cluster = Cluster(make_domain_nodes(racks * per_rack, (LABEL_RACK,), per_rack))
    cluster.add(Namespace.model_validate({"metadata": {"name": NS}}))
    gates = {"GenericWorkload": True, "TopologyAwareWorkloadScheduling": True}
    for obj in make_pod_groups([size], NS, LABEL_RACK, gates) + make_gang_pods([size], TAS_GANG_POD, NS, gates):
        cluster.add(obj)
    sched = Scheduler(cluster, config, gates=FeatureGates(TAS_GATES), seed=seed)
    return cluster, sched


def _run(cluster, sched):
    out = sched.schedule_pod_group(f"podgroup/{NS}/gang-0", sorted(k for k in cluster.pod_infos if k.startswith(NS)))
    tried = [s["placement"] for s in out.log if s["step"] == "placement"]
    racks = {cluster.nodes[r.node].metadata.labels[LABEL_RACK] for r in out.pod_results if r.node}
    return out, tried, racks


@pytest.mark.parametrize("pct, tried", [(20, 2), (50, 5), (100, 10)])
def test_configured_percentage_bounds_the_feasible_placements_tried(pct, tried):
    cluster, sched = _gang(10, 2, 2, {"percentageOfPlacementsToScore": pct})
    out, placements, racks = _run(cluster, sched)
    assert out.scheduled and len(racks) == 1
    assert len(placements) == tried  # every rack fits the gang: the search stops at `tried` feasible ones


def test_profile_percentage_wins_over_the_configuration():
    config = {"percentageOfPlacementsToScore": 100, "profiles": [{"percentageOfPlacementsToScore": 30}]}
    cluster, sched = _gang(10, 2, 2, config)
    assert len(_run(cluster, sched)[1]) == 3


def test_adaptive_default_tries_every_placement_of_a_small_cluster():
    # 10 racks of 2 nodes: 20 nodes summed, 100 - 20*9/500 = 100%: all ten, in generated order
    cluster, sched = _gang(10, 2, 2)
    _, tried, _ = _run(cluster, sched)
    assert len(tried) == 10 and tried == sorted(tried, key=lambda n: int(n.rsplit("-", 1)[1]))


def test_without_placement_score_plugins_the_first_feasible_placement_is_taken():
    config = {"profiles": [{"plugins": {"placementScore": {"disabled": [{"name": "*"}]}}}]}
    cluster, sched = _gang(10, 2, 2, config)
    out, tried, racks = _run(cluster, sched)
    assert out.scheduled and len(tried) == 1 and racks == set(tried)


def test_infeasible_placements_do_not_count_and_the_subset_is_drawn_from_the_seed():
    # racks of 2 nodes holding 110 pods each: a gang of 3 pods of 100m fits any rack; with 20%
    # of 10 placements (2) the scheduler tries shuffled racks; the seed decides which
    picked = set()
    for seed in range(6):
        cluster, sched = _gang(10, 2, 3, {"percentageOfPlacementsToScore": 20}, seed=seed)
        out, tried, racks = _run(cluster, sched)
        assert len(tried) == 2 and out.scheduled
        again = _run(*_gang(10, 2, 3, {"percentageOfPlacementsToScore": 20}, seed=seed))[1]
        assert again == tried  # deterministic for a seed
        picked.add(tuple(tried))
    assert len(picked) > 1  # not the generator's order every time


def test_infeasible_racks_are_passed_over_until_enough_feasible_ones():
    # a gang of 3 pods, nodes holding 1 pod each: no rack of 2 nodes fits it, the one rack of 4 does
    nodes = [Node.model_validate({"metadata": {"name": f"node-{i}", "labels": {LABEL_RACK: f"rack-{min(i // 2, 4)}"}},
                                  "status": {"allocatable": {"cpu": "4", "memory": "32Gi", "pods": "1"}}})
             for i in range(12)]
    cluster = Cluster(nodes)
    cluster.add(Namespace.model_validate({"metadata": {"name": NS}}))
    gates = {"GenericWorkload": True, "TopologyAwareWorkloadScheduling": True}
    for obj in make_pod_groups([3], NS, LABEL_RACK, gates) + make_gang_pods([3], TAS_GANG_POD, NS, gates):
        cluster.add(obj)
    sched = Scheduler(cluster, {"percentageOfPlacementsToScore": 20}, gates=FeatureGates(TAS_GATES))
    out, tried, racks = _run(cluster, sched)
    assert out.scheduled and racks == {"rack-4"}
    assert tried[-1].endswith("rack-4")  # the search went on past infeasible racks to the feasible one


@pytest.mark.parametrize("config, where", [
    ({"percentageOfPlacementsToScore": 101}, "percentageOfPlacementsToScore: Invalid value: 101"),
    ({"profiles": [{"percentageOfPlacementsToScore": -1}]},
     "profiles[0].percentageOfPlacementsToScore: Invalid value: -1"),
])
def test_out_of_range_percentage_is_refused(config, where):
    with pytest.raises(ConfigError, match=r"not in valid range \[0-100\]") as err:
        Scheduler(Cluster([]), config)
    assert where in str(err.value)


def _two_zone_job() -> Cluster:
    """2 zones x 2 racks x 2 nodes of 4 CPU; a CompositePodGroup ``job`` (zone, minGroupCount 2) of two
    replicas (rack, minCount 4) of 4 workers x 2 CPU: every zone and every rack can host its part."""
    from kschedlab.api.loader import load_objects

    objs: list[dict] = [
        {"apiVersion": "v1", "kind": "Node",
         "metadata": {"name": f"z{z}-r{r}-n{i}", "labels": {"zone": f"z{z}", "rack": f"z{z}-r{r}"}},
         "status": {"allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"}}}
        for z in range(2) for r in range(2) for i in range(2)]
    objs.append({"apiVersion": "scheduling.k8s.io/v1alpha3", "kind": "CompositePodGroup",
                 "metadata": {"name": "job", "namespace": "ml"},
                 "spec": {"schedulingPolicy": {"gang": {"minGroupCount": 2}},
                          "schedulingConstraints": {"topology": [{"key": "zone"}]}}})
    for rep in range(2):
        objs.append({"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
                     "metadata": {"name": f"rep{rep}", "namespace": "ml"},
                     "spec": {"schedulingPolicy": {"gang": {"minCount": 4}}, "parentCompositePodGroupName": "job",
                              "schedulingConstraints": {"topology": [{"key": "rack"}]}}})
        objs += [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"rep{rep}-w{i}", "namespace": "ml"},
                  "spec": {"schedulingGroup": {"podGroupName": f"rep{rep}"},
                           "containers": [{"name": "c", "resources": {"requests": {"cpu": "2"}}}]}}
                 for i in range(4)]
    return Cluster(load_objects(objs))


@pytest.mark.parametrize("pct, zones_tried", [(50, 1), (100, 2)])
def test_composite_pod_group_search_is_bounded_too(pct, zones_tried):
    cluster = _two_zone_job()
    gates = {**TAS_GATES, "CompositePodGroup": True}
    sched = Scheduler(cluster, {"percentageOfPlacementsToScore": pct}, gates=FeatureGates(gates))
    out = sched.schedule_pod_group("compositepodgroup/ml/job")
    zones = [s["placement"] for s in out.log if s["step"] == "placement" and s["depth"] == 1]
    assert out.status.is_success() and len(zones) == zones_tried
