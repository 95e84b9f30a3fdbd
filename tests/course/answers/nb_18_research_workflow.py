"""The teachers' check of 18-research-workflow: each exercise's expected answer recomputed by the library
(run after the notebook's own cells, in its kernel, by tests/course/test_exercise_answers.py)."""

from kschedlab.research import Run
from kschedlab.research.sweep import missing_runs, plan

one = Cluster(make_nodes(1))
one.snapshot.requested[one.snapshot.res_index[GPU], 0] = 3
score = int(GPUBinPacking().score_nodes(None, None, one.snapshot, np.arange(1))[0])

more_seeds = plan({"default": None}, variants, workloads, [0, 1, 2, 3])
computed_again = len(missing_runs(more_seeds, output.name))

cpu = compare_arms(results, "cpu_utilization_mean", "pai-generated")
higher_in = cpu.wins["default / gpu-binpack"][0]  # for utilisation, better is higher
means = results[results["workload"] == "pai-generated"].groupby("variant")["cpu_utilization_mean"].mean().round(3)
assert means.to_dict() == {"baseline": 0.467, "gpu-binpack": 0.474}  # as the question says

replay = results[results["workload"] == "pai-sample"]
numbers = ["pods", "scheduled_fraction", "pending_p90", "gpu_utilization_mean", "gpu_fragmentation_mean"]
per_arm = replay.groupby("variant")
separate_runs = bool((per_arm["run_id"].nunique() == per_arm["seed"].nunique()).all())
same_numbers = bool((per_arm[numbers].nunique() == 1).all().all())
identical_nodes = len({str(sorted(n.status.allocatable.items())) for n in make_nodes(4)}) == 1
placements = []
for seed in (0, 1):  # the same replay with two seeds: where did each pod go?
    sim, until, _ = Run("default", None, variants[0], workloads[1], seed).simulation()
    placements.append(sim.run(until=until).pods.set_index("pod")["node"])
moved = int((placements[0].fillna("") != placements[1].fillna("")).sum())  # unscheduled pods: no node

expected = [(ex1, score), (ex2, computed_again), (ex3, higher_in),
            (ex4, "b" if separate_runs and same_numbers and identical_nodes and moved else "a")]
for ex, value in expected:
    assert ex.verdict(value)[0], ex.question
print("GPUBinPacking on 3 of 8 GPUs:", score)
print("runs computed with seed 3 added:", computed_again, "of", len(more_seeds))
print("seeds where gpu-binpack uses more CPU:", higher_in, "| better/same/worse:", cpu.wins["default / gpu-binpack"])
print("pai-sample: separate runs per seed:", separate_runs, "| same numbers:", same_numbers,
      f"| pods on another node with seed 1: {moved} of {len(placements[0])}")
