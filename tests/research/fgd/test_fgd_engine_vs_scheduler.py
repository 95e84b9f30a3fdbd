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


def test_cluster_frag_follows_the_typical_pods_object(monkeypatch):
    """The accessible rows are kept per typical-pod list; another list at a freed one's address
    (``id`` made constant in the module plays that) is read anew: a T4-only typical pod sees no
    GPU of a P100 node, so all its free GPU counts as fragment only for the first list."""
    from kschedlab.research.fgd import engine as fgd_engine
    from kschedlab.research.fgd.model import PodRes, TypicalPod
    from kschedlab.research.fgd.policies import BestFit

    monkeypatch.setattr(fgd_engine, "id", lambda obj: 0, raising=False)
    node = fgd_engine.EngineNode("n", 32000, 1 << 40, 110, (1000, 1000), "P100")
    eng = fgd_engine.Engine([node], BestFit())
    t4_only = [TypicalPod(PodRes(1000, 500, 1, "T4"), 1.0)]
    any_gpu = [TypicalPod(PodRes(1000, 500, 1), 1.0)]
    fresh = fgd_engine.Engine([node], BestFit()).cluster_frag(any_gpu)
    assert eng.cluster_frag(t4_only) != fresh
    assert eng.cluster_frag(any_gpu) == fresh
