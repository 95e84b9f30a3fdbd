"""The teachers' check of 16-podgroups-and-placement: each exercise's expected answer recomputed by the library
(run after the notebook's own cells, in its kernel, by tests/course/test_exercise_answers.py)."""

two_cpus = placement_what_if(RACKS, min_count=4, cpu=2, topology="rack")
min_five = placement_what_if(RACKS, min_count=5, cpu=1, topology="rack")
expected = [(ex1, two_cpus.chosen), (ex2, int((min_five.scores.verdict == "Success").sum())),
            (ex3, len(group_preemption_what_if("all")["evicted"]))]
for ex, value in expected:
    assert ex.verdict(value)[0], ex.question
print("expected answers:", [value for _, value in expected])
