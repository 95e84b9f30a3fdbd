"""A trace replay keeps no per-attempt records, and that changes nothing it reports.

* ``Simulation(keep_history=False)`` (what a research run uses) gives the same pods' timeline,
  utilisation and queue sizes as the default, with no queue moves and no list of attempt
  results kept;
* the trace path never creates a pod no node of its default shape can hold, nor a PodGroup
  whose priority differs from its pods'.
"""

from __future__ import annotations

import pandas as pd

from kschedlab.api.quantity import parse_quantity as parse
from kschedlab.research import Run, Variant, Workload, execute
from kschedlab.research.run import NODE_DEFAULTS
from kschedlab.research.trace import PAI_2020, TRACE_GATES, arrivals, generate_trace, make_nodes
from kschedlab.sim import Simulation


def replay(keep_history: bool, pods: int = 300, nodes: int = 6):
    trace = generate_trace(pods=pods, seed=4, arrival_rate=0.2)
    sim = Simulation(make_nodes(nodes), None, gates=TRACE_GATES, seed=4, keep_traces=0, keep_history=keep_history)
    sim.stream(arrivals(trace))
    return sim, sim.run(horizon=None, max_attempts=10**9)


def test_a_replay_without_history_reports_the_same():
    with_history, full = replay(True)
    without, lean = replay(False)
    pd.testing.assert_frame_equal(full.pods, lean.pods)
    pd.testing.assert_frame_equal(full.utilization, lean.utilization)
    pd.testing.assert_frame_equal(full.queue, lean.queue)
    assert full.end_time == lean.end_time and full.stop_reason == lean.stop_reason
    assert len(full.moves) > 0 and len(lean.moves) == 0
    assert len(with_history.scheduler.results) == int(full.pods["attempts"].sum()) > len(full.pods)
    assert len(without.scheduler.results) == 0


def test_a_research_run_of_a_trace_keeps_no_history_and_finishes():
    run = Run("default", None, Variant("baseline"),
              Workload("w", generate={"pods": 120, "arrival_rate": 0.5}, nodes={"count": 3}), seed=1)
    sim, _, _ = run.simulation()
    assert sim.queue.keep_history is False
    row = execute(run)
    assert row["stop_reason"] == "quiescent" and row["pods"] == 120


def test_every_generated_pod_fits_an_empty_default_node_and_groups_carry_their_priority():
    trace = generate_trace(pods=20_000, seed=0, arrival_rate=2.0)
    assert int(trace["memory"].max()) * 2**20 <= parse(NODE_DEFAULTS["memory"]).value()
    assert int(trace["cpu"].max()) <= int(NODE_DEFAULTS["cpu"]) * 1000
    assert int(trace["gpu"].max()) <= NODE_DEFAULTS["gpu"]
    assert PAI_2020.memory_range[1] * 2**20 <= parse(NODE_DEFAULTS["memory"]).value()
    groups = {}
    for _, obj, _ in arrivals(trace.head(400)):
        if type(obj).__name__ == "PodGroup":
            assert obj.spec.priority is not None
            groups[obj.metadata.name] = obj
        elif obj.spec.scheduling_group is not None:
            assert groups[obj.spec.scheduling_group.pod_group_name].spec.priority == obj.spec.priority
    assert len(groups) > 10 and len({g.metadata.uid for g in groups.values()}) == len(groups)
