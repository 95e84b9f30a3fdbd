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
