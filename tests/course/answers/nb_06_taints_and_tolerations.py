"""The teachers' check of 06-taints-and-tolerations: each exercise's expected answer recomputed by the library
(run after the notebook's own cells, in its kernel, by tests/course/test_exercise_answers.py)."""

from kschedlab.api.tolerations import validate_tolerations

tolerating = toleration_outcome(prefer, "default/web",
                                extra=[{"key": "shared", "operator": "Exists", "effect": "PreferNoSchedule"}])
accepted = [v for v in ex2.choices if not validate_tolerations(
    [Toleration(key="sla", operator="Lt", value=v)], ["spec", "tolerations"], comparison_operators=True)]
shorter = admit(load(SEED))
cluster = Cluster([untainted.clone()])
for pod in (o.clone() for o in shorter if o.kind == "Pod"):
    pod.spec.node_name = "node1"
    if pod.metadata.name == "toleration-seconds":
        pod.spec.tolerations = [t.model_copy(update={"toleration_seconds": 600}) if t.toleration_seconds == 3600
                                else t for t in pod.spec.tolerations]
    cluster.add(pod)
evicted = replay(cluster, [(10, tainted)], until=5000)
evicted_at = evicted[(evicted.pod == "default/toleration-seconds") & (evicted.event == "evicted")].time.iloc[0]
expected = [(ex1, int(tolerating.table.loc["spot-old", "normalized"])), (ex2, "abcd"[ex2.choices.index(accepted[0])]),
            (ex3, int(evicted_at))]
for ex, value in expected:
    assert ex.verdict(value)[0], ex.question
assert accepted == ["1000"]
print("spot-old when web tolerates shared:", tolerating.table.loc["spot-old", "normalized"])
print("values accepted for Lt:", accepted)
print("evicted at t =", evicted_at, "s")
