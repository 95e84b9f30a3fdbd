"""The teachers' check of 17-composite-podgroups: each exercise's expected answer recomputed by the library
(run after the notebook's own cells, in its kernel, by tests/course/test_exercise_answers.py)."""

three = composite_what_if(RACKS, cpu=3)
two = composite_what_if(RACKS, cpu=2)
z1_free = pgviz.domain_capacity(two.cluster, "zone").loc["z1", "free"]
expected = [(ex1, three.chosen), (ex2, len(zones_of(two).split(", "))), (ex3, float(z1_free))]
for ex, value in expected:
    assert ex.verdict(value)[0], ex.question
print("expected answers:", [value for _, value in expected])

# The numbers the notebook's text states, checked here rather than in the student's cells.
# section 1: the racks and zones
assert pgviz.domain_capacity(cluster, "rack").allocatable.tolist() == [8, 4, 8, 8, 12, 12]
assert pgviz.domain_capacity(cluster, "zone").allocatable.tolist() == [12, 16, 24]
# section 2: the cycle, zone by zone
z0 = outline[outline.placement == "z0"]
assert z0[z0.step == "feasible"].verdict.tolist() == ["Wait", "Wait", "Unschedulable"]
assert z0[z0.step == "feasible"].detail.iloc[-1] == "minCount (2) cannot be satisfied: 1 scheduled, 0 remaining"
assert z0[z0.step == "revert"].detail.item() == "rolled back 4 pods"
assert z0[z0.step == "revert"].index.item() == 38
commits = outline[outline.step == "commit"][["group", "placement"]].values.tolist()
assert commits == [["job-rep0", "z0-r0"], ["job-rep0", "z1-r1"], ["job-rep1", "z1-r0"],
                   ["job-rep0", "z2-r1"], ["job-rep1", "z2-r0"], ["job", "z1"]]
zones = scores[scores.group == "job"].set_index("placement")
assert zones.verdict.tolist() == ["Unschedulable", "Success", "Success"]
assert zones.pods.tolist() == [4, 8, 8]
assert zones.loc["z1", ["NodeResourcesFit", "PodGroupPodsCount", "total"]].tolist() == [51, 100, 151]
assert zones.loc["z2", ["NodeResourcesFit", "PodGroupPodsCount", "total"]].tolist() == [34, 100, 134]
rep0_z1 = scores[(scores.group == "job-rep0") & (scores.within == "z1")]
assert rep0_z1.total.tolist() == [151, 151] and rep0_z1[rep0_z1.chosen].placement.item() == "z1-r1"
bound = pgviz.pod_outcomes(out)
assert (bound.outcome == "bound").all() and len(bound) == 8
assert set(bound[bound.group == "job-rep0"].node.str[:5]) == {"z1-r1"}
assert set(bound[bound.group == "job-rep1"].node.str[:5]) == {"z1-r0"}
zone_use = pgviz.domain_capacity(cluster, "zone")
assert zone_use.loc["z1", ["allocatable", "requested"]].tolist() == [16, 16]
assert zone_use.loc["z2", "allocatable"] == 24  # the 8 workers (16 CPUs) would have filled two thirds
# section 3: conditions
assert conditions(cluster, "CompositePodGroup", "ml/job") == []
for name in ("ml/job-rep0", "ml/job-rep1"):
    assert [(c["status"], c["reason"]) for c in conditions(cluster, "PodGroup", name)] == [("True", "Scheduled")]
# section 4: a job that does not fit
free = pgviz.domain_capacity(cluster, "rack")
assert free.free.max() == 12 and free.free.idxmax() == "z2-r0" and free.loc["z2-r1", "free"] == 12
POSTFILTER = "pod group preemption: not supported with topology constraints"
JOB_STATUS = ("0/3 placements are available, first placement status: minCount (2) cannot be satisfied: "
              "0 scheduled, 1 remaining")
REP0_STATUS = ("0/2 placements are available, first placement status: minCount (4) cannot be satisfied: "
               "2 scheduled, 1 remaining")
assert big.status.message() == f"{JOB_STATUS}, {POSTFILTER}"
assert conditions(cluster, "PodGroup", "ml/big-rep0")[0]["message"] == f"{REP0_STATUS}, {POSTFILTER}"
assert conditions(cluster, "PodGroup", "ml/big-rep1")[0]["message"] == f"{JOB_STATUS}, {POSTFILTER}"
assert conditions(cluster, "CompositePodGroup", "ml/big") == []
assert not any(big.placements().values())
tried = pgviz.cycle_steps(big, steps=["pod"])
assert set(tried.pod.str[:8]) == {"big-rep0"}  # big-rep1 never tried
assert pgviz.placement_scores(big).total.isna().all()  # nothing feasible, nothing scored
assert (pgviz.placement_scores(big).verdict == "Unschedulable").all()
# section 5: the explorer's grid
assert sizes.loc[2, "zone"].tolist() == ["z0", "z1", "z2", ""]
