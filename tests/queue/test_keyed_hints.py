"""The keyed hint of GangScheduling (:class:`kschedlab.framework.events.KeyedHint`): a pod added
is offered only to the pool's pods of its PodGroup.  The queue must decide exactly as when every
pod filed under GangScheduling is asked: same moves at the same times in the same order, and
each gang leaves PreEnqueue when its last member arrives."""

from __future__ import annotations

import pytest

from kschedlab.queue.scheduling_queue import SchedulingQueue
from kschedlab.research.trace import TRACE_GATES, arrivals, generate_trace, make_nodes
from kschedlab.sim import Simulation
from tests.seeds import covered, seeds


def _replay(seed: int, narrowed: bool, monkeypatch) -> Simulation:
    if not narrowed:
        monkeypatch.setattr(SchedulingQueue, "_narrowed", lambda self, event, old, new: None)
    trace = generate_trace(seed=seed, pods=80, arrival_rate=0.5)
    sim = Simulation(make_nodes(2), gates=TRACE_GATES, seed=seed, keep_traces=0)
    sim.stream(arrivals(trace))
    sim.run()
    monkeypatch.undo()
    return sim


@pytest.mark.parametrize("seed", seeds(2))
def test_pod_add_offered_to_its_group_only_decides_as_offered_to_all(seed, monkeypatch):
    narrowed, every = _replay(seed, True, monkeypatch), _replay(seed, False, monkeypatch)
    moves, expected = narrowed.result().moves, every.result().moves
    assert covered(len(moves) > 200 and (moves["to"] == "gated").any())  # gangs waited, pods were retried
    assert moves.equals(expected)
    assert narrowed.result().pods.equals(every.result().pods)


def test_a_gang_leaves_pre_enqueue_when_its_last_member_arrives(monkeypatch):
    sim = _replay(0, True, monkeypatch)
    moves = sim.result().moves
    created = sim.result().pods.set_index("pod")["created"]
    gangs = 0
    for pod, rows in moves.groupby("pod", sort=False):
        group = pod.rsplit("-", 1)[0]
        members = created[created.index.str.startswith(group + "-")]
        if len(members) < 2 or rows["to"].iloc[0] != "gated":
            continue
        leave = rows[(rows["from"] == "gated") & (rows["to"] == "active")]
        assert leave["time"].iloc[0] == members.max()
        assert leave["event"].iloc[0] == "UnscheduledPodAdd"
        gangs += 1
    assert gangs > 5
