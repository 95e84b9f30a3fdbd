"""The teachers' check of 09-gang-scheduling: each exercise's expected answer recomputed by the library
(run after the notebook's own cells, in its kernel, by tests/course/test_exercise_answers.py)."""

held_at_0 = held[held["start"] == 0]
plain_starts = sweep[(sweep["mode"] == "plain") & (sweep["job-a started"] == 0) & (sweep["job-b started"] == 0)]
expected = [(ex1, float(cycle.pods["finished"].max())), (ex2, float((held_at_0["end"] - held_at_0["start"]).max())),
            (ex3, int(plain_starts["minCount"].max()))]
for ex, value in expected:
    assert ex.verdict(value)[0], ex.question
print("expected answers:", [value for _, value in expected])
