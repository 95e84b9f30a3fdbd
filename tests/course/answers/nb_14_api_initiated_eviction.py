"""The teachers' check of 14-api-initiated-eviction: each exercise's expected answer recomputed by the library
(run after the notebook's own cells, in its kernel, by tests/course/test_exercise_answers.py)."""

first_code = int(budget_what_if(first_example, "default/web", three, max_unavailable=1)["code"].iloc[0])
expected = [(ex1, allowed_evictions(replicas, "default/web", web, min_available="30%")),
            (ex2, allowed_evictions(replicas, "default/web", web, max_unavailable="30%")),
            (ex3, {200: "a", 429: "b", 500: "c"}[first_code])]
for ex, value in expected:
    assert ex.verdict(value)[0], ex.question
print("expected answers:", [value for _, value in expected], "| first eviction's code:", first_code)
