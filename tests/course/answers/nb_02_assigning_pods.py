"""The teachers' check of 02-assigning-pods: each exercise's expected answer recomputed by the library
(run after the notebook's own cells, in its kernel, by tests/course/test_exercise_answers.py)."""

from kschedlab.controllers.manifests import load_manifests

objs = load_manifests(added_file)
node_foo = next(o for o in objs if o.kind == "Node" and o.name == "node-foo")
node_foo.metadata.labels = {**node_foo.metadata.labels, "disktype": "ssd"}
ssd_node = Scheduler(Cluster(objs), seed=0).schedule_one("default/pod-foo-ssd").node
list_only = next(r for r in ns_results if r.pod == "team-b/web-list-only")
tenant_q = label_keys_outcome(raw_tenants, "default/tenant-a-web", labels={"tenant": "tenant-q"})
expected = [(ex1, "abc"[["node-foo", "node-plain", None].index(ssd_node)]), (ex2, len(feasible_nodes(list_only))),
            (ex3, len(tenant_q.feasible))]
for ex, value in expected:
    assert ex.verdict(value)[0], ex.question
print("pod-foo-ssd ->", ssd_node, "| web-list-only passes on", feasible_nodes(list_only),
      "| tenant-q passes on", tenant_q.feasible)
