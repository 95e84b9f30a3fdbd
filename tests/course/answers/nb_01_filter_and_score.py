"""The teachers' check of 01-filter-and-score: each exercise's expected answer recomputed by the library
(run after the notebook's own cells, in its kernel, by tests/course/test_exercise_answers.py)."""

from kschedlab.viz import what_if

two_cpus = what_if(cluster_without_pod, POD_YAML, cpu=2000, memory=2048).result.trace.scores()
packed = what_if(cluster_without_pod, POD_YAML, cpu=1000, memory=2048, strategy="MostAllocated").result
six_gi = what_if(cluster_without_pod, POD_YAML, cpu=1000, memory=6144).result.trace.scores()
expected = [(ex1, two_cpus["medium"]["NodeResourcesFit"]["raw"]),
            (ex2, "abcd"[ex2.choices.index(packed.node)]),
            (ex3, six_gi["large"]["NodeResourcesBalancedAllocation"]["raw"])]
for ex, value in expected:
    assert ex.verdict(value)[0], ex.question
print("medium at 2 CPUs:", expected[0][1], "| MostAllocated:", packed.node, "| large at 6Gi:", expected[2][1])
