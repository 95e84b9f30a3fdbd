"""Opportunistic batching as notebook 10 shows it (kschedlab.sim.batching) and the
percentageOfNodesToScore explorer."""

import pytest

from kschedlab.scheduler import num_feasible_nodes_to_find
from kschedlab.sim.batching import (
    BATCHING_CONFIG,
    batching_comparison,
    batching_gates,
    batching_run,
    one_pod_per_node,
    signature_blockers,
)
from kschedlab.viz.performance import feasible_nodes_figure, feasible_nodes_steps
from kschedlab.widgets.performance import PercentageExplorer


def test_identical_pods_one_per_node_are_served_from_the_batch():
    run = batching_run(one_pod_per_node(nodes=5, pods=4))
    assert run["served from batch"].tolist() == [False, True, True, True]
    assert run["nodes filtered"].tolist() == [5, 1, 1, 1]
    assert run["nodes scored"].tolist() == [5, 0, 0, 0]
    assert run["left in batch"].tolist() == [4, 3, 2, 1]
    # a hinted pod goes to the hinted node
    served = run[run["served from batch"]]
    assert (served["hint"] == served["node"]).all()
    assert len(set(run["node"])) == 4


def test_gate_off_means_full_cycles():
    run = batching_run(one_pod_per_node(nodes=5, pods=4), batching=False)
    assert not run["served from batch"].any()
    assert run["nodes filtered"].tolist() == [5, 5, 5, 5]
    assert run["nodes scored"].tolist() == [5, 4, 3, 2]  # full nodes are filtered out


def test_two_pods_per_node_flush_the_batch():
    run = batching_run(one_pod_per_node(nodes=3, pods=3, node_cpu=6))
    assert not run["served from batch"].any()
    assert run["not used because"].tolist()[1:] == ["node_not_full", "node_not_full"]


def test_default_profile_and_dra_extended_resource_block_signing():
    objs = one_pod_per_node(nodes=2, pods=1)
    assert signature_blockers(objs, "default/worker-0", {}, batching_gates()) == [
        ("PodTopologySpread", "pods with default topology constraints are not signable")]
    blockers = signature_blockers(objs, "default/worker-0", BATCHING_CONFIG, batching_gates(dra_extended_resource=True))
    assert [p for p, _ in blockers] == ["NodeResourcesFit", "NodeResourcesBalancedAllocation"]
    assert not batching_run(objs, config={})["signed"].any()


def test_affinity_and_spread_are_unsignable_but_tolerations_are_not():
    anti = {"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": {"app": "train"}}}]}}}
    spread = {"topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "kubernetes.io/hostname",
                                             "whenUnsatisfiable": "DoNotSchedule",
                                             "labelSelector": {"matchLabels": {"app": "train"}}}]}
    tol = {"tolerations": [{"key": "gpu", "operator": "Exists"}]}
    assert [p for p, _ in signature_blockers(one_pod_per_node(extra_pod=anti), "default/worker-2",
                                             BATCHING_CONFIG)] == ["InterPodAffinity"]
    assert [p for p, _ in signature_blockers(one_pod_per_node(extra_pod=spread), "default/worker-2",
                                             BATCHING_CONFIG)] == ["PodTopologySpread"]
    assert signature_blockers(one_pod_per_node(extra_pod=tol), "default/worker-2", BATCHING_CONFIG) == []
    run = batching_run(one_pod_per_node(extra_pod=tol))
    assert run.loc[2, "not used because"] == "pod_incompatible" and run.loc[4, "served from batch"]


def test_comparison_and_objects_unchanged():
    objs = one_pod_per_node(nodes=10, pods=6)
    table = batching_comparison(objs)
    assert table.loc["nodes filtered"].tolist() == [10 + 5, 60]
    assert table.loc["served from batch"].tolist() == [5, 0]
    assert all(o.spec.node_name is None for o in objs if o.kind == "Pod")


@pytest.mark.parametrize("pct,nodes", [(0, 50), (0, 100), (0, 1000), (0, 6000), (3, 2500), (100, 321), (37, 12345)])
def test_steps_end_at_num_feasible_nodes_to_find(pct, nodes):
    assert feasible_nodes_steps(pct, nodes)[-1][1] == num_feasible_nodes_to_find(pct, nodes)


def test_percentage_explorer_follows_the_sliders():
    ex = PercentageExplorer(nodes=2000)
    assert ex.found == 680 and "680" in repr(ex)
    ex.percentage.value = 3  # as a user moves the slider
    assert ex.found == 100
    fig = feasible_nodes_figure(3, 2000)
    assert fig.layout.xaxis.title.text.endswith("(nodes)") and fig.layout.yaxis.title.text.endswith("(nodes)")


def test_two_profiles_each_batch_but_interleaving_breaks_it():
    from kschedlab.sim.batching import two_profiles

    alternate = one_pod_per_node(nodes=8, pods=6, scheduler_names={0: "batch-scheduler", 2: "batch-scheduler",
                                                                   4: "batch-scheduler"})
    run = batching_run(alternate, config=two_profiles())
    assert run["profile"].tolist() == ["batch-scheduler", "default-scheduler"] * 3
    assert not run["served from batch"].any()
    assert run["signed"].tolist() == [True, False] * 3
    assert run.loc[2, "not used because"] == "pod_skipped"
    grouped = one_pod_per_node(nodes=8, pods=6, scheduler_names={j: "batch-scheduler" for j in (3, 4, 5)})
    run = batching_run(grouped, config=two_profiles())
    assert run["served from batch"].tolist() == [False] * 4 + [True, True]
