"""The teachers' check of 19-reproducing-a-paper: each exercise's expected answer recomputed by the library
(run after the notebook's own cells, in its kernel, by tests/course/test_exercise_answers.py)."""

from kschedlab.research.fgd.policies import FGD, GpuPacking

two = NodeRes(32000, (1000, 800), "T4")
fgd_score = FGD([TypicalPod(PodRes(4000, 500, 1), 0.5), TypicalPod(PodRes(4000, 1000, 1), 0.5)]).score(
    two, PodRes(4000, 500, 1))
packing_score = GpuPacking().score(NodeRes(32000, (1000, 600)), PodRes(4000, 500, 1))
worst = medians.idxmax()
expected = [(ex1, fgd_score), (ex2, packing_score), (ex3, "abc"[ex3.choices.index(worst)])]
for ex, value in expected:
    assert ex.verdict(value)[0], ex.question
# the text's claims: MyFGD places every pod as the library's FGD; the reproduction matches the paper
assert mine.placements == library.placements
assert bool((table["difference"].abs() <= 0.5).all()) and same_order
print("expected answers:", [value for _, value in expected])
