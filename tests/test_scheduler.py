"""End-to-end behaviour of the scheduling cycle on small clusters."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kschedlab.api.core import Node, Pod
from kschedlab.cluster import Cluster
from kschedlab.framework.interface import CycleState, Plugin
from kschedlab.framework.status import Status
from kschedlab.scheduler import Scheduler


def node(name, cpu="4", memory="8Gi", pods="110", labels=None, taints=None, unschedulable=False):
    return Node.model_validate({
        "metadata": {"name": name, "labels": labels or {}},
        "spec": {"taints": taints or [], "unschedulable": unschedulable},
        "status": {"allocatable": {"cpu": cpu, "memory": memory, "pods": pods}}})


def pod(name, cpu=None, memory=None, node_name=None, **spec):
    requests = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v is not None}
    body = {"containers": [{"name": "c", "resources": {"requests": requests}}], **spec}
    if node_name:
        body["nodeName"] = node_name
    return Pod.model_validate({"metadata": {"name": name, "namespace": "default"}, "spec": body})


def test_aggregated_message_matches_upstream_wording():
    cluster = Cluster([node("a", cpu="1"), node("b", cpu="1"),
                       *(node(f"z{i}", labels={"disk": "hdd"}) for i in range(3)),
                       pod("p", cpu="2", nodeSelector={"disk": "ssd"})])
    result = Scheduler(cluster).schedule_one("default/p")
    assert result.node is None
    # NodeAffinity runs before NodeResourcesFit in the default profile: every node fails on the selector.
    assert result.message == ("0/5 nodes are available: 5 node(s) didn't match Pod's node affinity/selector."
                              " preemption: 0/5 nodes are available: 5 Preemption is not helpful for scheduling.")
    cond = cluster.pods["default/p"].status.conditions[-1]
    assert (cond.type, cond.status, cond.reason) == ("PodScheduled", "False", "Unschedulable")


def test_first_failing_plugin_per_node_builds_the_histogram():
    cluster = Cluster([node("a", cpu="1", labels={"disk": "ssd"}), node("b", cpu="1", labels={"disk": "ssd"}),
                       *(node(f"z{i}", labels={"disk": "hdd"}) for i in range(3)),
                       pod("p", cpu="2", nodeSelector={"disk": "ssd"})])
    result = Scheduler(cluster).schedule_one("default/p")
    assert result.message == ("0/5 nodes are available: 2 Insufficient cpu, "
                              "3 node(s) didn't match Pod's node affinity/selector."
                              " preemption: 0/5 nodes are available: 5 Preemption is not helpful for scheduling.")


def test_binding_accounts_the_pod_and_sets_node_name():
    cluster = Cluster([node("a", cpu="2"), pod("p1", cpu="1500m"), pod("p2", cpu="1")])
    results = Scheduler(cluster).run()
    assert [r.node for r in results] == ["a", None]
    assert cluster.pods["default/p1"].spec.node_name == "a"
    assert cluster.snapshot.requested[cluster.snapshot.res_index["cpu"], 0] == 1500
    # p1 has the same priority, so preemption finds no victim
    assert results[1].message == ("0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are "
                                  "available: 1 No preemption victims found for incoming pod.")


def test_pods_with_node_name_are_already_placed():
    cluster = Cluster([node("a", cpu="1"), pod("bound", cpu="1", node_name="a"), pod("p", cpu="500m")])
    assert [p.metadata.name for p in cluster.pending_pods()] == ["p"]
    assert Scheduler(cluster).schedule_one("default/p").node is None


def test_gated_pod_is_not_attempted():
    cluster = Cluster([node("a"), pod("g", schedulingGates=[{"name": "example.com/foo"},
                                                            {"name": "example.com/bar"}])])
    result = Scheduler(cluster).schedule_one("default/g")
    assert result.node is None and result.message == "SchedulingGated"
    assert result.status.reasons == ("waiting for scheduling gates: [example.com/foo example.com/bar]",)


def test_profiles_are_chosen_by_scheduler_name():
    config = {"profiles": [{"schedulerName": "default-scheduler"},
                           {"schedulerName": "packer", "pluginConfig": [{"name": "NodeResourcesFit", "args": {
                               "scoringStrategy": {"type": "MostAllocated"}}}]}]}
    cluster = Cluster([node("small", cpu="2"), node("large", cpu="16"),
                       pod("spread", cpu="1"), pod("packed", cpu="1", schedulerName="packer")])
    sched = Scheduler(cluster, config)
    assert sched.schedule_one("default/spread").node == "large"
    assert sched.schedule_one("default/packed").node == "small"


def test_unknown_scheduler_name_is_not_ours():
    cluster = Cluster([node("a"), pod("p", schedulerName="other")])
    assert Scheduler(cluster).queue() == []


def test_seed_example_node_order_round_robins_zones():
    """Section 10 of the seed: zone 1 = nodes 1-4, zone 2 = nodes 5-6."""
    nodes = [node(f"node-{i}", labels={"topology.kubernetes.io/zone": "z1" if i <= 4 else "z2"})
             for i in range(1, 7)]
    cluster = Cluster(nodes)
    order = [cluster.snapshot.names[r] for r in cluster.snapshot.order]
    assert order == ["node-1", "node-5", "node-2", "node-6", "node-3", "node-4"]


def test_next_start_index_resumes_where_the_last_pod_stopped():
    cluster = Cluster([node(f"n{i:03d}") for i in range(200)] + [pod(f"p{i}", cpu="10m") for i in range(3)])
    sched = Scheduler(cluster, {"percentageOfNodesToScore": 50})
    r0 = sched.schedule_one("default/p0")
    assert (r0.trace.start_index, r0.trace.num_to_find) == (0, 100)
    assert len(r0.trace.filter.rows) == 100 and sched.next_start_node_index == 100
    r1 = sched.schedule_one("default/p1")
    assert r1.trace.start_index == 100


@pytest.mark.parametrize("fast", [True, False])
def test_the_pass_goes_on_to_the_next_feasible_node(fast):
    """Upstream's ``findNodesThatPassFilters`` with one worker: 150 nodes, 100 sought; nodes 0-99 fit,
    100-104 are too small, 105-149 fit. It keeps nodes 0-99, records the five failures (they are in
    the Diagnosis, so they count as processed), and cancels at node 105, the 101st feasible, which
    it neither keeps nor counts: 105 evaluated, and the next pod starts at node 105."""
    cpus = ["4"] * 100 + ["1"] * 5 + ["4"] * 45
    cluster = Cluster([node(f"n{i:03d}", cpu=cpu) for i, cpu in enumerate(cpus)]
                      + [pod(f"p{i}", cpu="2") for i in range(2)])
    sched = Scheduler(cluster, seed=0, fast_path=fast)
    r0 = sched.schedule_one("default/p0")
    assert (r0.trace.num_to_find, r0.trace.feasible_nodes, r0.trace.evaluated_nodes) == (100, 100, 105)
    assert sched.next_start_node_index == 105
    assert sched.schedule_one("default/p1").trace.start_index == 105


class BlinkingLightScorer(Plugin):
    """The seed's example: a score plugin written outside the tree, node by node."""

    name = "BlinkingLightScorer"

    def score(self, state, pod_info, node_info):
        return (10 if node_info.node.metadata.labels.get("light") == "blinking" else 0), Status()

    def normalize_score(self, state, pod_info, scores):
        top = scores.max()
        if top:
            scores[:] = scores * 100 // top
        return Status()


def test_custom_plugin_from_a_notebook_joins_a_profile():
    config = {"profiles": [{"plugins": {"score": {"enabled": [{"name": "BlinkingLightScorer", "weight": 5}]}}}]}
    cluster = Cluster([node("plain"), node("blink", labels={"light": "blinking"}), pod("p", cpu="100m")])
    sched = Scheduler(cluster, config, registry={"BlinkingLightScorer": BlinkingLightScorer})
    result = sched.schedule_one("default/p")
    assert result.node == "blink"
    assert result.trace.scores()["blink"]["BlinkingLightScorer"] == {"raw": 10, "normalized": 100, "weighted": 500}


def test_explain_has_one_row_per_evaluated_node():
    cluster = Cluster([node("a", cpu="1"), node("b"), node("c"), pod("p", cpu="2")])
    df = Scheduler(cluster).schedule_one("default/p").explain()
    assert set(df.index) == {"a", "b", "c"}
    assert df.loc["a", "filter"] == "NodeResourcesFit" and df.loc["a", "reasons"] == "Insufficient cpu"
    assert df["chosen"].sum() == 1


def test_ties_are_broken_by_the_seeded_rng():
    picks = set()
    for seed in range(20):
        cluster = Cluster([node("a"), node("b"), node("c"), pod("p", cpu="1")])
        picks.add(Scheduler(cluster, seed=seed).schedule_one("default/p").node)
    assert picks == {"a", "b", "c"}
    again = [Scheduler(Cluster([node("a"), node("b"), node("c"), pod("p", cpu="1")]), seed=7)
             .schedule_one("default/p").node for _ in range(3)]
    assert len(set(again)) == 1


# -- properties ----------------------------------------------------------------------------
labels = st.dictionaries(st.sampled_from(["zone", "disk", "gpu"]), st.sampled_from(["a", "b", "1", "8"]), max_size=3)
taints = st.lists(st.fixed_dictionaries({"key": st.sampled_from(["t1", "t2"]), "value": st.sampled_from(["x", "y"]),
                                         "effect": st.sampled_from(["NoSchedule", "PreferNoSchedule",
                                                                    "NoExecute"])}), max_size=2)


@st.composite
def clusters(draw):
    n = draw(st.integers(1, 12))
    nodes = [node(f"n{i}", cpu=str(draw(st.integers(1, 4))), labels=draw(labels), taints=draw(taints),
                  unschedulable=draw(st.booleans())) for i in range(n)]
    pods = []
    for i in range(draw(st.integers(1, 15))):
        spec = {}
        if draw(st.booleans()):
            spec["nodeSelector"] = draw(labels)
        if draw(st.booleans()):
            spec["tolerations"] = [{"key": draw(st.sampled_from(["t1", "t2"])), "operator": "Exists"}]
        pods.append(pod(f"p{i}", cpu=f"{draw(st.integers(0, 3000))}m", **spec))
    return nodes, pods


@settings(max_examples=60, deadline=None)
@given(clusters())
def test_vectorized_filters_answer_like_one_node_at_a_time(data):
    nodes, pods = data
    cluster = Cluster(nodes)
    sched = Scheduler(cluster)
    fw = sched.profiles["default-scheduler"]
    snap = cluster.snapshot
    rows = snap.order
    for p in pods:
        cluster.add(p)
        info = cluster.pod_infos[f"default/{p.metadata.name}"]
        state = CycleState()
        fw.run_pre_filter(state, info, snap)
        whole = fw.run_filter(state, info, snap, rows)
        for i, row in enumerate(rows):
            assert fw.run_filter_node(state, info, snap, int(row)) == whole.status(i)


@settings(max_examples=60, deadline=None)
@given(clusters())
def test_nothing_is_overcommitted(data):
    nodes, pods = data
    cluster = Cluster([*nodes, *pods])
    Scheduler(cluster).run()
    snap = cluster.snapshot
    cpu = snap.res_index["cpu"]
    assert (snap.requested[cpu, : len(nodes)] <= snap.allocatable[cpu, : len(nodes)]).all()
    for p in cluster.pods.values():
        if p.spec.node_name:
            n = cluster.nodes[p.spec.node_name]
            assert not n.spec.unschedulable
            assert all(n.metadata.labels.get(k) == v for k, v in p.spec.node_selector.items())


def test_explain_prints_whole_in_a_terminal():
    from kschedlab import Cluster, Scheduler
    from kschedlab.scenarios import path

    result = Scheduler(Cluster.from_manifests(path("default"))).run()[0]
    text = str(result.explain())
    assert "..." not in text and "NaN" not in text and "<NA>" not in text
    assert all(col in text for col in ("ImageLocality weighted", "total", "rank", "chosen"))
