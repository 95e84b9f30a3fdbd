"""The teachers' check of 09-gang-scheduling: each exercise's expected answer recomputed by the library
(run after the notebook's own cells, in its kernel, by tests/course/test_exercise_answers.py)."""

four = run_gang_story("cycle", min_count=4, jobs=("job-a", "job-b", "job-c", "job-d"))
assert four.job_started == {"job-a": 0.0, "job-b": 100.0, "job-c": 200.0, "job-d": 300.0}
# ex2: the Permit path run until 1000 s; the rounds of holds, by when they began
longer = run_gang_story("permit", until=1000)
rounds = longer.intervals[longer.intervals["state"] == "held at Permit"].groupby("start")["end"].max()
assert rounds.index.tolist() == [0.0, 300.0, 600.0, 900.0]
# ex3: the fewest nodes at which both jobs start at t=0 pod by pod, minCount 3
both_at_0 = [n for n in range(4, 9)
             if (min_count_sweep((3,), ("plain",), nodes=n)[["job-a started", "job-b started"]] == 0).all(axis=None)]
assert both_at_0 == [6, 7, 8]
expected = [(ex1, float(four.pods["finished"].max())), (ex2, float(rounds.iloc[2])), (ex3, both_at_0[0])]
for ex, value in expected:
    assert ex.verdict(value)[0], ex.question
print("expected answers:", [value for _, value in expected])

# The numbers the notebook's text states, checked here rather than in the student's cells.
# section 1: four 2-CPU nodes, two jobs of 8 CPU
job_cpu = workers.assign(cpu=workers["cpu"].astype(float)).groupby("podGroupName")["cpu"].sum().to_dict()
assert len(nodes) == 4 and nodes["cpu"].astype(float).tolist() == [2.0] * 4
assert job_cpu == {"job-a": 8.0, "job-b": 8.0} and len(workers) == 8
# section 2: pod by pod, without gangs
at_start, at_end = gang_counts(plain, at=0), gang_counts(plain, at=700)
assert at_start["waiting for peers"].tolist() == [2, 2] and at_start["pending"].tolist() == [2, 2]
assert at_end.equals(at_start) and not at_end["started"].any()
assert (plain.work, plain.until) == (100.0, 700.0)
tried_at_0 = plain.attempts[plain.attempts["time"] == 0]
assert (tried_at_0["status"] == "Success").sum() == 4
assert tried_at_0[tried_at_0["status"] == "Unschedulable"]["message"].str.contains("Insufficient cpu").sum() == 4
# the Permit path
assert gang_counts(permit, at=0)["held"].tolist() == [2, 2]
assert gang_counts(permit, at=350)["held"].tolist() == [2, 2]
assert set(held[held["start"] == 0]["end"] - held[held["start"] == 0]["start"]) == {300.0}  # 5 minutes
at_300 = first[first["time"] == 300]
assert at_300["status"].tolist() == ["Unschedulable"] * 4 + ["Wait"] * 4 + ["Unschedulable"] * 4
assert (at_300["plugin"].iloc[:4] == "GangScheduling").all()  # the timeouts, then the next round
assert at_300["message"].iloc[8:].str.contains("Insufficient cpu").all()
assert permit.job_started == {} and permit.pods["bound"].isna().all()
# section 3: the PodGroup cycle
assert cycle.job_started == {"job-a": 0.0, "job-b": 100.0}
assert gang_counts(cycle, at=0)["working"].tolist() == [4, 0]
assert cycle.pods["finished"].max() == 200.0 and cycle.pods["attempts"].tolist() == [1, 2] * 4
b_at_0 = cycle.attempts[(cycle.attempts["time"] == 0) & cycle.attempts["pod"].str.contains("job-b")]
assert (b_at_0["status"] == "Unschedulable").all() and b_at_0["message"].str.contains("0 scheduled").sum() == 3
conds = pod_group_conditions(cycle)
assert conds[["podgroup", "status", "reason", "since"]].values.tolist() == [
    ["job-a", "True", "Scheduled", 0.0], ["job-b", "False", "Unschedulable", 0.0],
    ["job-b", "True", "Scheduled", 100.0]]
assert pod_group_conditions(permit).empty and pod_group_conditions(plain).empty
# section 4: what minCount changes
def row(mode, m):
    return sweep[(sweep["mode"] == mode) & (sweep["minCount"] == m)].iloc[0]


for m in (1, 2):  # both jobs fit: every mode finishes by 200 s
    assert all(row(mode, m)["all done at"] == 200.0 for mode in ("plain", "permit", "cycle"))
    for mode in ("plain", "permit"):  # both jobs start at t=0 with 2 workers each
        assert [row(mode, m)["job-a running"], row(mode, m)["job-b running"]] == [2, 2]
        assert row(mode, m)["job-a started"] == row(mode, m)["job-b started"] == 0.0
for m in (3, 4):  # only the PodGroup cycle gets anything done
    assert pd.isna(row("plain", m)["all done at"]) and pd.isna(row("permit", m)["all done at"])
    assert row("permit", m)["job-a running"] == row("permit", m)["job-b running"] == 0
    assert row("plain", m)["job-a running"] == row("plain", m)["job-b running"] == 2
for m in (1, 2, 3, 4):
    r = row("cycle", m)
    assert (r["job-a running"], r["job-b running"], r["job-b started"], r["all done at"]) == (4, 0, 100.0, 200.0)
assert [row("permit", 3)["job-a held"], row("permit", 3)["job-b held"]] == [2, 2]
