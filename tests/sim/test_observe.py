"""Pod states over virtual time (kschedlab.sim.observe) for the seed's preemption stories."""

from __future__ import annotations

from pathlib import Path

import pytest

from kschedlab.sim.observe import pod_state, transitions, watch
from kschedlab.sim.scenario import from_files

DATA = Path(__file__).resolve().parents[2] / "datasets" / "preemption"


def story(name):
    sim, until = from_files(DATA / name)
    return sim, transitions(watch(sim, until=until, step=1))


def test_nominated_node_story():
    """Seed §12: the preemptor is nominated, the victim keeps its node for its grace period, a
    higher-priority pod arriving meanwhile takes the node, and the first preemptor ends on another
    node than the one it was nominated to."""
    sim, changes = story("12-nominated-node-story.yaml")
    rows = [tuple(r) for r in changes[["time", "pod", "state", "node"]].values.tolist()]
    assert rows == [
        (0.0, "default/low-a", "running", "n1"), (0.0, "default/low-b", "running", "n2"),
        (5.0, "default/low-a", "terminating", "n1"), (5.0, "default/p", "nominated", "n1"),
        (10.0, "default/q", "nominated", "n1"),
        (35.0, "default/low-a", "gone", ""), (35.0, "default/low-b", "terminating", "n2"),
        (35.0, "default/p", "nominated", "n2"), (35.0, "default/q", "running", "n1"),
        (65.0, "default/low-b", "gone", ""), (65.0, "default/p", "running", "n2")]
    victims = [r.trace.preemption.victims for r in sim.scheduler.results
               if r.trace is not None and r.trace.preemption is not None]
    # q's preemption found low-a already terminating and deleted nothing more
    assert victims == [["default/low-a"], [], ["default/low-b"]]


def test_a_grid_time_between_events_changes_nothing():
    sim, until = from_files(DATA / "12-nominated-node-story.yaml")
    coarse = transitions(watch(sim, until=until, step=5))
    assert coarse[["time", "pod", "state"]].values.tolist()[-1] == [65.0, "default/p", "running"]


def test_step_must_be_positive():
    sim, _ = from_files(DATA / "12-nominated-node-story.yaml")
    with pytest.raises(ValueError):
        watch(sim, until=10, step=0)


def test_pod_state_reads_the_pod_object():
    from kschedlab.api.core import Pod

    assert pod_state(Pod.model_validate({"spec": {}, "status": {"nominatedNodeName": "n3"}})) == ("nominated", "n3")
    assert pod_state(Pod.model_validate({"spec": {}})) == ("pending", "")
