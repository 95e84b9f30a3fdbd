"""The cycle state PostFilter reads after a fused cycle that found no node.

The fused path answers the in-tree PreFilter plugins without calling them. When the cycle fails,
the framework's PreFilter completes the state before PostFilter, unless no plugin ran live and
every PostFilter plugin is DefaultPreemption or DynamicResources: those read nothing of what it
would add (the entries of the plugins it skips, such as DynamicResources' "skipped" state).
A PostFilter plugin of one's own may read anything, so it sees the plugin-by-plugin path's state.
"""

from __future__ import annotations

import random

import pytest

from kschedlab.framework.interface import Plugin
from kschedlab.framework.runtime import Framework
from kschedlab.framework.status import Code, Status
from kschedlab.scheduler import Scheduler
from tests.fastpath.test_fast_path import build, same_attempt
from tests.seeds import seeds


class StateProbe(Plugin):
    """PostFilter: notes the keys of the cycle state and the skipped Filter plugins; never helps."""

    name = "StateProbe"
    seen: list = []

    def post_filter(self, state, pod_info, diagnosis):
        StateProbe.seen.append((pod_info.key, sorted(state), sorted(state.skip_filter)))
        return None, Status(Code.Unschedulable)


def attempts(seed: int, fast: bool, config=None, registry=None) -> list:
    cluster, pending = build(seed, nodes=20, placed=30, kinds=("plain", "huge", "huge", "cpu-only"))
    rng = random.Random(seed)
    for key in pending:
        cluster.pods[key].spec.priority = cluster.pod_infos[key].priority = rng.choice((0, 1000))
    sched = Scheduler(cluster, config, seed=seed, fast_path=fast, registry=registry)
    return [sched.schedule_one(key) for key in pending]


@pytest.mark.parametrize("seed", seeds(3))
def test_a_post_filter_plugin_of_ones_own_reads_the_frameworks_state(seed):
    config = {"profiles": [{"plugins": {"postFilter": {"enabled": [{"name": StateProbe.name}]}}}]}
    seen = []
    results = []
    for fast in (True, False):
        StateProbe.seen = []
        results.append(attempts(seed, fast, config, {StateProbe.name: StateProbe}))
        seen.append(StateProbe.seen)
    for a, b in zip(*results):
        same_attempt(a, b)
    assert seen[0] == seen[1]
    assert seen[0] and all("DynamicResources" in keys for _, keys, _ in seen[0])


@pytest.mark.parametrize("seed", seeds(3))
def test_default_preemption_reads_the_fused_state(seed, monkeypatch):
    """With the default PostFilter plugins the fused cycle's state is enough: the framework's
    PreFilter is not called, and every attempt (preemption included) reads as on the other path."""
    calls = {True: 0, False: 0}
    run_pre_filter = Framework.run_pre_filter
    results = []
    for fast in (True, False):
        def counted(self, *args, _fast=fast, **kwargs):
            calls[_fast] += 1
            return run_pre_filter(self, *args, **kwargs)

        monkeypatch.setattr(Framework, "run_pre_filter", counted)
        results.append(attempts(seed, fast))
    for a, b in zip(*results):
        same_attempt(a, b)
    assert any(r.node is None for r in results[0])
    assert any(r.trace is not None and r.trace.preemption is not None for r in results[0])
    assert calls[True] == 0 < calls[False]
