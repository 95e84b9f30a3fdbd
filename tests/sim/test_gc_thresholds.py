"""A simulation runs with the garbage collector's ``RUN_GC_THRESHOLDS`` and puts the caller's
back; the collector's schedule changes nothing a run reports."""

from __future__ import annotations

import gc

import pytest

from kschedlab.research.trace import TRACE_GATES, arrivals, generate_trace, make_nodes
from kschedlab.sim import Simulation, engine


def replay(seed: int) -> tuple:
    """A small gang-heavy trace on too few nodes (waits, retries, preemptions): what it reports,
    and the collector's thresholds seen while it ran."""
    seen = set()
    sim = Simulation(make_nodes(6, cpu="16", memory="64Gi", gpu=2), gates=TRACE_GATES, seed=seed, keep_traces=0)
    sim.on_clock = lambda now: seen.add(gc.get_threshold())
    sim.stream(arrivals(generate_trace(pods=120, seed=seed, arrival_rate=0.2)))
    result = sim.run(until=3000)
    report = sim.report()
    return (result.pods.to_json(), result.utilization.to_json(),
            [p.to_dict() for p in report.pods], result.end_time), seen


@pytest.mark.parametrize("seed", [0, 3])
def test_a_run_reports_the_same_whatever_the_collector_does(seed, monkeypatch):
    before = gc.get_threshold()
    tuned, seen = replay(seed)
    assert seen == {engine.RUN_GC_THRESHOLDS} and gc.get_threshold() == before
    monkeypatch.setattr(engine, "RUN_GC_THRESHOLDS", (1, 1, 1))  # a collection at nearly every allocation
    assert replay(seed)[0] == tuned
