"""The teachers' check of 05-topology-spread: each exercise's expected answer recomputed by the library
(run after the notebook's own cells, in its kernel, by tests/course/test_exercise_answers.py)."""

from kschedlab.viz import with_constraint

one_more = SpreadExplorer(Cluster.from_manifests(one), "default/mypod").add_pod("node3")
zone_a = spread_table(one_more.cluster, "default/mypod").loc["zoneA", "skew if placed"]
md_cluster = Cluster.from_manifests(min_domains)
strict = spread_table(md_cluster, with_constraint(md_cluster.pods["default/mypod"], {"maxSkew": 2, "minDomains": 4}))
ignored = spread_variants(Cluster.from_manifests(with_affinity), "default/mypod",
                          {"Ignore": {"nodeAffinityPolicy": "Ignore"}}).loc["Ignore", "node"]
expected = [(ex1, int(zone_a)), (ex2, int(strict["fits"].sum())), (ex3, "d" if not ignored else ignored)]
for ex, value in expected:
    assert ex.verdict(value)[0], ex.question
print("zone A skew:", zone_a, "| zones that fit:", list(strict.index[strict["fits"]]),
      "| nodeAffinityPolicy Ignore:", ignored or "Pending")

# The outcomes the notebook's text states, checked here rather than in the student's cells.
assert Scheduler(Cluster.from_manifests(one), seed=0).schedule_one("default/mypod").node in {"node3", "node4"}
assert Scheduler(Cluster.from_manifests(two), seed=0).schedule_one("default/mypod").node == "node4"
pending = Scheduler(Cluster.from_manifests(conflict), seed=0).schedule_one("default/mypod")
assert pending.node is None
assert pending.message == ("0/3 nodes are available: 3 node(s) didn't match pod topology spread constraints. "
                           "preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.")
unlabelled = Cluster.from_manifests(DATA / "04-node-without-zone-label.yaml")
assert Scheduler(unlabelled, seed=0).schedule_one("default/mypod").node == "node2"
assert outcomes.loc["nodeTaintsPolicy: Honor", "node"] in {"node3", "node4"}
assert outcomes.loc["nodeTaintsPolicy: Ignore (default)", "message"].startswith(
    "0/5 nodes are available: 1 node(s) had untolerated taint(s), 4 node(s) didn't match pod topology spread "
    "constraints.")
assert web3["PodTopologySpread raw"].to_dict() == {"node1": 3, "node3": 0, "node2": 3, "node4": 0}
assert web3["PodTopologySpread normalized"].to_dict() == {"node1": 0, "node3": 100, "node2": 0, "node4": 100}
assert "PodTopologySpread" in skipped
assert table["PodTopologySpread normalized"].to_dict() == {"node1": 54, "node3": 100, "node2": 54, "node4": 100}
