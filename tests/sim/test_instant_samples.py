"""A recorder that keeps an instant's last sample (``last_of_instant``: the research runs'
``ClusterUtilization``) is not sampled at the start of an instant whose events will sample it:
runs report the same as runs that sample there too (the plain path), frame for frame. The
per-node recorder (``UtilizationSamples``, which keeps the row of a node removed within an
instant) is still sampled there."""

from __future__ import annotations

import pytest

from kschedlab.research.metrics import ClusterUtilization
from kschedlab.research.trace import TRACE_GATES, arrivals, generate_trace, make_nodes
from kschedlab.sim import Simulation


class _SamplingAlways(Simulation):
    """The plain path: a sample at the start of every instant."""

    def _sampled_by_due_events(self) -> bool:
        return False


def replay(cls, seed: int, nodes: int, interval: float | None) -> tuple:
    """A gang-heavy trace (waits, retries, preemptions on few nodes) with a node removed and one
    added while it runs: every frame the run reports, and how often the recorder was asked."""
    util = None if interval is None else ClusterUtilization(interval=interval)
    sim = cls(make_nodes(nodes, cpu="16", memory="64Gi", gpu=2), gates=TRACE_GATES, seed=seed, keep_traces=0,
              utilization=util)
    calls = []
    record = sim._util.record
    sim._util.record = lambda time, snapshot: (calls.append(time), record(time, snapshot))[1]
    sim.stream(arrivals(generate_trace(pods=80, seed=seed, arrival_rate=0.2)))
    sim.remove_node(sim.cluster.snapshot.names[0], at=300.0)
    sim.add_node(make_nodes(1, cpu="16", memory="64Gi", gpu=2, prefix="late")[0], at=700.0)
    result = sim.run(until=2500)
    frames = tuple(getattr(result, name).to_json() for name in ("pods", "utilization", "queue", "moves"))
    return (frames, [p.to_dict() for p in sim.report().pods], result.end_time, result.stop_reason), len(calls)


@pytest.mark.parametrize("seed, nodes, interval", [(0, 5, 60), (1, 4, 7.5), (2, 3, 1), (0, 5, None)])
def test_a_run_reports_the_same_without_the_samples_its_events_replace(seed, nodes, interval):
    fast, fast_calls = replay(Simulation, seed, nodes, interval)
    plain, plain_calls = replay(_SamplingAlways, seed, nodes, interval)
    assert fast == plain
    assert (fast_calls < plain_calls) == (interval is not None)  # samples left out only for last_of_instant
