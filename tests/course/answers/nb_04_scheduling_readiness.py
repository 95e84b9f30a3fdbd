"""The teachers' check of 04-scheduling-readiness: each exercise's expected answer recomputed by the library
(run after the notebook's own cells, in its kernel, by tests/course/test_exercise_answers.py)."""

latency = scheduling_latency(journey).set_index("pod").loc["default/test-pod"]
half_ungated = gates_outcome(test_pod, nodes, keep=["example.com/bar"])
on_ssd = update_pod(test_pod, {"spec": {"nodeSelector": {"disktype": "ssd"}}})
patches = [{"spec": {"nodeSelector": {"disktype": "hdd"}}},
           {"spec": {"nodeSelector": {"disktype": "ssd", "topology.kubernetes.io/zone": "zone-a"}}},
           {"spec": {"schedulingGates": [{"name": "example.com/foo"}, {"name": "example.com/bar"},
                                         {"name": "example.com/baz"}]}},
           {"spec": {"priority": 1000}}]
accepted = []
for letter, patch in zip("abcd", patches):
    try:
        update_pod(on_ssd, patch)
        accepted.append(letter)
    except ManifestError:
        pass
expected = [(ex1, float(latency["sli"])), (ex2, half_ungated.status), (ex3, accepted[0])]
for ex, value in expected:
    assert ex.verdict(value)[0], ex.question
assert accepted == ["b"] and latency["gated_for"] == 20
print("sli:", latency["sli"], "s | gated for:", latency["gated_for"], "s | STATUS with one gate left:",
      half_ungated.status, "| accepted update:", accepted)
