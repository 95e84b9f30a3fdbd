"""A small trace replay's numbers pinned: the values were computed by the code before the
trace-replay speed-ups of issue 26 (commit 1cc1f61: GPU pods on the plugin-by-plugin path, node-sized
kept answers for every request, utilisation summed over all nodes at every sample), so the fused path
taking extended resources, the young shapes read row by row and the kept utilisation sums must
give the run the same outcome: scheduled fraction, pending percentiles, utilisation, preemptions,
attempts and virtual end. Two nodes for 60 pods: GPUs run short, gangs wait, priorities preempt."""

from __future__ import annotations

import pytest

from kschedlab.research import Run, Variant, Workload, execute

PINNED = {
    0: {
        "pods": 60,
        "scheduled": 60,
        "scheduled_fraction": 1.0,
        "pending_p50": 2197.2059999999997,
        "pending_p90": 4483.705,
        "pending_p99": 4483.705,
        "pending_max": 4483.705,
        "cpu_utilization_mean": 0.03243755923489279,
        "gpu_utilization_mean": 0.01651175621345029,
        "cpu_fragmentation_mean": 0.503488874552883,
        "gpu_fragmentation_mean": 0.5091764561403509,
        "preemptions": 7,
        "gangs": 5,
        "attempts": 785,
        "end_time": 171190.7,
    },
    1: {
        "pods": 60,
        "scheduled": 60,
        "scheduled_fraction": 1.0,
        "pending_p50": 3665.481,
        "pending_p90": 8029.859000000001,
        "pending_p99": 8062.09075,
        "pending_max": 8104.969000000001,
        "cpu_utilization_mean": 0.025992800031748326,
        "gpu_utilization_mean": 0.04333972559799383,
        "cpu_fragmentation_mean": 0.09513295169703785,
        "gpu_fragmentation_mean": 0.06199128395061728,
        "preemptions": 17,
        "gangs": 12,
        "attempts": 1041,
        "end_time": 259203.082,
    },
}


@pytest.mark.parametrize("seed", [0, 1])
def test_small_replay_gives_the_numbers_of_the_code_before(seed):
    workload = Workload("pai-pin", generate={"pods": 60, "arrival_rate": 2.0}, nodes={"count": 2}, interval=300.0)
    row = execute(Run("default", None, Variant("baseline"), workload, seed=seed))
    assert {key: row[key] for key in PINNED[seed]} == PINNED[seed]
