"""The teachers' check of 16-podgroups-and-placement: each exercise's expected answer recomputed by the library
(run after the notebook's own cells, in its kernel, by tests/course/test_exercise_answers.py)."""

two_cpus = placement_what_if(RACKS, min_count=4, cpu=2, topology="rack")
min_five = placement_what_if(RACKS, min_count=5, cpu=1, topology="rack")
expected = [(ex1, two_cpus.chosen), (ex2, int((min_five.scores.verdict == "Success").sum())),
            (ex3, len(group_preemption_what_if("all")["evicted"]))]
for ex, value in expected:
    assert ex.verdict(value)[0], ex.question
print("expected answers:", [value for _, value in expected])

# The numbers the notebook's text states, checked here rather than in the student's cells.
# section 2: one cycle on the small cluster
assert nodes_table(cluster)["cpu"].astype(float).sum() == 5
steps = pgviz.cycle_steps(out)
verdicts = steps[steps.step == "feasible"]
assert verdicts.verdict.tolist() == ["Wait"] * 4 + ["Success"] * 3
assert verdicts[["scheduled", "remaining"]].values.tolist()[4] == [4, 2]
assert verdicts[["scheduled", "remaining"]].values.tolist()[-1] == [5, 0]
assert steps[steps.pod == "worker-5"].detail.item() == "0/3 nodes are available: 3 Insufficient cpu."
outcomes = pgviz.pod_outcomes(out)
assert (outcomes.outcome == "bound").sum() == 5
assert outcomes.loc["worker-5", "outcome"] == "Unschedulable"
scheduled_condition = next(c for c in cluster.pods["ml/worker-5"].status.conditions if c.type == "PodScheduled")
assert (scheduled_condition.status, scheduled_condition.reason) == ("False", "Unschedulable")
assert out.status.is_success()
assert moves[["from", "to"]].values.tolist()[2:] == [["in-flight", "active"], ["active", "in-flight"],
                                                     ["in-flight", "unschedulable"]]
assert again.status.message() == ("no pods were schedulable, "
                                  "pod group preemption: No preemption victims found for incoming preemptor")
second = pgviz.cycle_steps(again)
assert second[second.step == "feasible"][["verdict", "scheduled", "remaining"]].values.tolist()[0] == ["Success", 5, 1]
assert condition_of(cluster)["status"] == "True" and condition_of(cluster)["reason"] == "Scheduled"
# when the gang does not fit
assert nodes_table(tight)["cpu"].astype(float).sum() == 3
assert failed.status.message() == MESSAGE
assert condition_of(tight) == {"type": "PodGroupInitiallyScheduled", "status": "False",
                               "reason": "Unschedulable", "message": MESSAGE}
assert tight.snapshot.pod_row == {}  # nothing assumed, nothing bound
fail_outcomes = pgviz.pod_outcomes(failed)
assert (fail_outcomes.message == MESSAGE).sum() == 3
assert set(fail_outcomes.message) == {MESSAGE, "0/2 nodes are available: 2 Insufficient cpu."}
assert sorted(sim2.queue.where(k) for k in sim2.cluster.pods) == ["unschedulable"] * 6
# section 3: placements in the four racks
assert pgviz.domain_capacity(racks, "rack").allocatable.tolist() == [12, 6, 4, 3]
assert [p.name for p in fw.points["placementScore"]] == ["NodeResourcesFit", "PodGroupPodsCount"]
assert fw.placement_weights == {"NodeResourcesFit": 1, "PodGroupPodsCount": 1}
assert scores.pods.tolist() == [6, 6, 4, 3]
assert scores.verdict.tolist() == ["Success", "Success", "Success", "Unschedulable"]
assert scores.loc[["rack-a", "rack-b", "rack-c"], "NodeResourcesFit"].tolist() == [26, 51, 51]
assert scores.loc[["rack-a", "rack-b", "rack-c"], "PodGroupPodsCount"].tolist() == [100, 100, 66]
assert scores.loc[["rack-a", "rack-b", "rack-c"], "total"].tolist() == [126, 151, 117]
assert scores.chosen[scores.chosen].index.tolist() == ["rack-b"]
assert scores.loc["rack-d", "message"] == "minCount (4) cannot be satisfied: 3 scheduled, 0 remaining"
assert DEFAULT_MEMORY_REQUEST == 200 * 2**20
assert [most_allocated(6, 6, 6, 2 * 16 * GiB), most_allocated(6, 12, 6, 3 * 16 * GiB),
        most_allocated(4, 4, 4, 2 * 16 * GiB)] == [51, 26, 51]  # rack-b, rack-a, rack-c
assert set(placed.placements().values()) == {"b1", "b2"}
assert condition_of(racks)["status"] == "True"
assert pgviz.domain_capacity(racks, "rack").loc["rack-b", ["allocatable", "requested"]].tolist() == [6, 6]
