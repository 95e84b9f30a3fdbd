"""The DRA floor (``scheduler_perf.dra.dra_floor``) places every pod on the scheduler's node and
device, init pods and measured pods, for both DRA workloads: sizes where the devices fill up,
where pods are left over (no free device), and other seeds (other tie draws)."""

from __future__ import annotations

import pytest

from kschedlab.scheduler_perf.dra import dra_floor, run_dra_workload


@pytest.mark.parametrize("name, nodes, init_pods, measure_pods, devices, seed", [
    ("SchedulingWithResourceClaimTemplate", 7, 20, 25, 4, 0),   # 45 pods, 28 devices: 17 left over
    ("SchedulingWithResourceClaimTemplate", 12, 30, 30, 5, 3),  # every device taken
    ("SchedulingWithResourceClaimTemplate", 130, 40, 60, 2, 1),  # more nodes than numFeasibleNodesToFind's 100
    ("SchedulingWithResourceClaim", 6, 30, 30, 2, 0),           # 12 claims of 5 pods on 12 devices
    ("SchedulingWithResourceClaim", 9, 17, 23, 3, 5),           # claims cut short at the namespace's end
])
def test_floor_places_as_the_scheduler(name, nodes, init_pods, measure_pods, devices, seed):
    r = run_dra_workload(name, nodes=nodes, init_pods=init_pods, measure_pods=measure_pods,
                         max_claims_per_node=devices, seed=seed, reference=True, keep_traces=0)
    assert len(r["placements"]) == init_pods + measure_pods
    assert r["placements"] == r["reference_placements"]
    assert r["reference_placements"] == dra_floor(name, nodes, init_pods, measure_pods, devices,
                                                  seed=seed)["placements"]
    unplaced = init_pods + measure_pods - r["init_scheduled"] - r["scheduled"]
    assert r["placements"].count(None) == unplaced
    assert r["reference_ratio"] is not None and r["reference_ratio"] > 0
