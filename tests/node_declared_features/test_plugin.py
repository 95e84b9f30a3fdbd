"""NodeDeclaredFeatures in the scheduler: the default profile, placement, messages, the queue."""

from __future__ import annotations

from pathlib import Path

from kschedlab.cluster import Cluster
from kschedlab.controllers.manifests import load_manifests
from kschedlab.features import FeatureGates
from kschedlab.framework.events import QUEUE, SKIP
from kschedlab.framework.profile import resolve_profile, unmodelled_defaults
from kschedlab.framework.runtime import Handle
from kschedlab.framework.types import PodInfo
from kschedlab.plugins import in_tree_registry
from kschedlab.plugins.node_declared_features import NodeDeclaredFeatures
from kschedlab.scheduler import Scheduler
from kschedlab.sim import Simulation

DATA = Path(__file__).resolve().parents[2] / "datasets" / "node-declared-features" / "mixed-kubelets.yaml"
MESSAGE = ("0/3 nodes are available: 3 node(s) didn't match Pod's required features. "
           "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.")


def test_default_profile_runs_it_last_at_prefilter_and_filter():
    points = resolve_profile({}).points
    assert points["preFilter"][-1] == points["filter"][-1] == "NodeDeclaredFeatures"
    assert "NodeDeclaredFeatures" not in points["score"]
    assert "NodeDeclaredFeatures" not in unmodelled_defaults(in_tree_registry())


def test_pods_land_only_on_nodes_declaring_what_they_need():
    cluster = Cluster.from_manifests(DATA)
    run = Scheduler(cluster).run()
    by_name = {p.name: p for p in run.pods}
    assert by_name["default/trainer"].node in ("node-new-1", "node-new-2")
    assert by_name["default/db"].node == "node-new-2"
    assert by_name["default/netprobe"].node is None
    assert by_name["default/netprobe"].message == MESSAGE


def test_gate_off_lets_every_node_through():
    cluster = Cluster.from_manifests(DATA)
    gates = FeatureGates({"NodeDeclaredFeatures": False}, emulate_older=True)
    run = Scheduler(cluster, gates=gates).run()
    assert all(p.node is not None for p in run.pods)


def test_a_node_declaring_the_feature_later_wakes_the_pod():
    sim = Simulation(load_manifests(DATA))
    upgraded = sim.cluster.nodes["node-new-2"].clone()
    upgraded.status.declared_features = sorted([*upgraded.status.declared_features, "UserNamespacesHostNetworkSupport"])
    sim.update_node(upgraded, at=30)
    pods = sim.run().pods.set_index("pod")
    assert pods.loc["default/netprobe", "node"] == "node-new-2"
    assert pods.loc["default/netprobe", "scheduled"] >= 30


def test_hints():
    cluster = Cluster.from_manifests(DATA)
    plugin = NodeDeclaredFeatures.build({}, Handle(FeatureGates(), None, cluster))
    pod = cluster.pods["default/netprobe"]
    node = cluster.nodes["node-new-2"]
    relabelled = node.clone()
    relabelled.metadata.labels = {**relabelled.metadata.labels, "team": "x"}
    assert plugin.after_node_change(PodInfo.of(pod), node, relabelled) == SKIP
    assert plugin.after_node_change(PodInfo.of(pod), None, node) == QUEUE
    fixed = pod.clone()
    fixed.spec.host_users = None
    assert plugin.after_target_pod_update(PodInfo.of(pod), pod, fixed) == QUEUE
    assert plugin.after_target_pod_update(PodInfo.of(pod), pod, pod.clone()) == SKIP


def test_signature_is_the_required_features():
    cluster = Cluster.from_manifests(DATA)
    plugin = NodeDeclaredFeatures.build({}, Handle(FeatureGates(), None, cluster))
    (web,), _ = plugin.sign_pod(PodInfo.of(cluster.pods["default/web"]))
    (db,), _ = plugin.sign_pod(PodInfo.of(cluster.pods["default/db"]))
    assert (web.value, db.value) == ("", "ContainerUlimits")
