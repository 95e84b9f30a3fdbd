"""The teachers' check of 17-composite-podgroups: each exercise's expected answer recomputed by the library
(run after the notebook's own cells, in its kernel, by tests/course/test_exercise_answers.py)."""

three = composite_what_if(RACKS, cpu=3)
two = composite_what_if(RACKS, cpu=2)
z1_free = pgviz.domain_capacity(two.cluster, "zone").loc["z1", "free"]
expected = [(ex1, three.chosen), (ex2, len(zones_of(two).split(", "))), (ex3, float(z1_free))]
for ex, value in expected:
    assert ex.verdict(value)[0], ex.question
print("expected answers:", [value for _, value in expected])
