"""The teachers' check of 00-tour: each exercise's expected answer recomputed by the library
(run after the notebook's own cells, in its kernel, by tests/course/test_exercise_answers.py)."""

cache_table = by_pod["default/cache-0"].explain()
big_statuses = by_pod["default/big-0"].trace.filter_statuses()
insufficient = [n for n, st in big_statuses.items() if st.plugin == "NodeResourcesFit"]
expected = [(ex1, cache_table.loc["gpu-b3", "filter"]),
            (ex2, int(cache_table.loc[by_pod["default/cache-0"].node, "total"])),
            (ex3, len(insufficient))]
for ex, value in expected:
    assert ex.verdict(value)[0], ex.question
print("gpu-b3 rejected by:", cache_table.loc["gpu-b3", "filter"], "| cache-0 total:",
      cache_table.loc[by_pod["default/cache-0"].node, "total"], "| Insufficient cpu on:", insufficient)
