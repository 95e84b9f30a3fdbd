"""The teachers' check of 13b-eviction-ranking-and-oom: each exercise's expected answer recomputed by the library
(run after the notebook's own cells, in its kernel, by tests/course/test_exercise_answers.py)."""

import tempfile

first = ranking_with_usage(pods, stats["pods"], {"web-besteffort": 900 * Mi})["pod"].iloc[0].split("/")[1]
letter = "abcd"[ex1.choices.index(first)]
# ex2: section 2's simulation with batch requesting 5Gi
oom_yaml = (DATA / "sim-oom-kill.yaml").read_text()
assert oom_yaml.count("memory: 1Gi}}") == 1  # batch's request, the one line changed
with tempfile.TemporaryDirectory() as tmp:
    (Path(tmp) / "oom.yaml").write_text(oom_yaml.replace("memory: 1Gi}}", "memory: 5Gi}}"))
    sim_5, until_5 = from_files(Path(tmp) / "oom.yaml")
sim_5.run(until_5)
first_5 = sim_5.kubelet.ooms[0]["ranking"]
batch_badness = next(r["badness"] for r in first_5 if r["pod"] == "default/batch")
assert [r["pod"] for r in first_5 if r["killed"]] == ["default/cache"]  # the solution says so
raised = [p.model_copy(deep=True) for p in pods]
next(p for p in raised if p.metadata.name == "batch-burstable-over").spec.priority = 2000
rank = list(ranking_with_usage(raised, stats["pods"])["pod"]).index("default/batch-burstable-over") + 1
for ex, value in [(ex1, letter), (ex2, batch_badness), (ex3, rank), (ex4, "a sentence of a few words")]:
    assert ex.verdict(value)[0], ex.question
print("evicted first:", first, "| batch's badness:", batch_badness, "| batch at priority 2000 ranks", rank)
