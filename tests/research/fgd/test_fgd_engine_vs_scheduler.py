"""The vectorized engine places every pod on the same node and GPUs as kschedlab's Scheduler with
the plugins, for every policy and both tie-breaks (the fast path is checked against the faithful one)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kschedlab.research.fgd.experiment import run
from kschedlab.research.fgd.faithful import run_scheduler
from kschedlab.research.fgd.openb import read_nodes, read_pods, sample_frames
from kschedlab.research.fgd.policies import POLICIES

OPENB = Path(__file__).parents[3] / ".." / "shared" / "traces" / "openb"


def same_runs(nodes, pods, policy, seed, tie_break):
    fast = run(nodes, pods, policy, seed, tie_break=tie_break, keep_placements=True)
    slow = run_scheduler(nodes, pods, policy, seed, tie_break=tie_break)
    assert fast.placements == slow.placements
    assert fast.failed == slow.failed and (fast.used == slow.used).all() and (fast.arrived == slow.arrived).all()
    assert fast.fragmentation == slow.fragmentation
    return fast


@pytest.mark.parametrize("tie_break", ["name", "random"])
@pytest.mark.parametrize("policy", POLICIES)
def test_same_placements_on_a_sample(policy, tie_break):
    nodes, pods = sample_frames(seed=5, nodes=20, pods=90)
    result = same_runs(nodes, pods, policy, 42, tie_break)
    assert result.failed > 0 and len(result.placements) > 60   # the cluster fills up: ties and rejections


@pytest.mark.skipif(not OPENB.is_dir(), reason="the openb trace is not at ../shared/traces/openb")
def test_same_placements_on_a_slice_of_the_real_trace():
    nodes = read_nodes(OPENB / "openb_node_list_gpu_node.csv").iloc[::40]        # 31 nodes, every model
    pods = read_pods(OPENB / "openb_pod_list_default.csv").iloc[::45]
    same_runs(nodes, pods, "FGD", 43, "name")
