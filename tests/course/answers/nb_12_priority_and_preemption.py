"""The teachers' check of 12-priority-and-preemption: each exercise's expected answer recomputed by the library
(run after the notebook's own cells, in its kernel, by tests/course/test_exercise_answers.py)."""

e150 = viz.preemption_what_if(objects, "default/urgent-1", priorities={"default/e-job": 150})
cheap_c = viz.preemption_what_if(objects, "default/urgent-1",
                                 priorities={"default/c-job-1": 50, "default/c-job-2": 40})


def admitted(value):
    try:
        admit(load_text(PC.format(name="top", value=value), source="pc.yaml"))
        return True
    except ManifestError:
        return False


highest = 1_000_000_000 if admitted(1_000_000_000) and not admitted(1_000_000_001) else None
# ex3: a globalDefault class at the highest user value; a pod naming no class, one naming system-node-critical
everyone = admit(load_text(PC.format(name="everyone", value=highest) + "globalDefault: true\n---\n"
                           "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec: {containers: [{name: c}]}\n---\n"
                           "apiVersion: v1\nkind: Pod\nmetadata: {name: kube-proxy, namespace: kube-system}\n"
                           "spec: {priorityClassName: system-node-critical, containers: [{name: c}]}\n",
                           source="everyone.yaml"))
priority = {o.name: o.spec.priority for o in everyone if o.kind == "Pod"}
assert priority["web"] == highest
expected = [(ex1, e150.chosen), (ex2, len(cheap_c.victims)), (ex3, priority["kube-proxy"] - priority["web"])]
for ex, value in expected:
    assert ex.verdict(value)[0], ex.question
print("expected answers:", [value for _, value in expected])
