"""The teachers' checks here run inside a notebook's kernel (tests/course/test_exercise_answers.py),
not as modules of their own."""

collect_ignore_glob = ["nb_*.py"]
