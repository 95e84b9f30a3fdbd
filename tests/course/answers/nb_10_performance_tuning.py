"""The teachers' check of 10-performance-tuning: each exercise's expected answer recomputed by the library
(run after the notebook's own cells, in its kernel, by tests/course/test_exercise_answers.py)."""

from kschedlab.scheduler import num_feasible_nodes_to_find

eight = batching_comparison(one_pod_per_node(nodes=8, pods=6))
variants = {"a toleration": {"tolerations": [{"key": "gpu", "operator": "Exists"}]},
            "a topology spread constraint": spread,
            "a nodeSelector": {"nodeSelector": {"kubernetes.io/os": "linux"}}}
unsignable = [choice for choice, extra in variants.items()
              if signature_blockers(one_pod_per_node(extra_pod=extra), "default/worker-2", BATCHING_CONFIG)]
expected = [(ex1, num_feasible_nodes_to_find(0, 2000)), (ex2, num_feasible_nodes_to_find(3, 2500)),
            (ex3, int(eight.loc["nodes filtered", "on"])), (ex4, unsignable[0])]
assert len(unsignable) == 1
for ex, value in expected:
    assert ex.verdict(value)[0], ex.question
print("expected answers:", [value for _, value in expected])
print("nodes filtered without batching:", int(eight.loc["nodes filtered", "off"]))
