"""The binding cycle of a pod whose only binding work is DynamicResources' (``Scheduler._bind_claims``,
:meth:`FastBinding.claims_only`) against the framework's folds (``run_reserve``, ``run_permit``,
``run_pre_bind_pre_flights``, ``run_pre_bind``, ``run_bind``), attempt by attempt.

The shared-claims clusters of ``test_shared_claims`` (claims deallocated, nodes relabelled, added and
removed, placed pods deleted between attempts), with DynamicResources' Reserve and PreBind answers
replaced for some pods (seeded by the pod's name): a rejection or an Error after the plugin did its
work (so Unreserve has claims to release), an Error or a Skip instead of it, a Wait at PreBind.
Both runs take the fused Filter path; only the binding cycle differs. Every attempt must give the
same result and trace (steps, statuses, messages, the nominated node written), and after the run the
pods (status, conditions, nominatedNodeName), the snapshot, the nominator, the pods waiting at PreBind
and the claims (dump as read back, key order included) must be the same.
"""

from __future__ import annotations

import random
import zlib

import pytest

from kschedlab.framework.status import Status
from kschedlab.plugins.dynamic_resources import DynamicResources
from kschedlab.scheduler import Scheduler
from kschedlab.scheduler.fast_binding import FastBinding
from tests.fastpath.test_fast_binding import pods_dump, snapshot_state
from tests.fastpath.test_fast_path import same_attempt
from tests.fastpath.test_shared_claims import _claims, build, mutate
from tests.seeds import covered, seeds

#: the replaced answers: (point, what) -> the status returned, and whether the plugin runs first
INJECTED = {
    "reserve": [("rejected-after", True, Status.unschedulable("injected: no room")),
                ("error-after", True, Status.error("injected: store down")),
                ("skip", False, Status.skip())],
    "pre_bind": [("rejected-after", True, Status.unresolvable("injected: claim gone")),
                 ("error-before", False, Status.error("injected: conflict")),
                 ("skip", False, Status.skip()),
                 ("wait", True, Status.wait("injected: binding conditions"))],
}


def _injected(seed: int, key: str, point: str):
    """The answer replaced for ``key`` at ``point`` (about one pod in seven each), or None."""
    draw = random.Random(zlib.crc32(f"{seed}/{key}/{point}".encode())).random()
    choices = INJECTED[point]
    return choices[int(draw * 7)] if draw < len(choices) / 7 else None


def run(seed: int, fused: bool, gate: bool, monkeypatch, seen: dict) -> tuple:
    reserve, pre_bind = DynamicResources.reserve, DynamicResources.pre_bind

    def replaced(point, original):
        def answer(self, state, pod_info, node):
            found = _injected(seed, pod_info.key, point)
            if found is None:
                return original(self, state, pod_info, node)
            what, runs_first, status = found
            if runs_first:
                original(self, state, pod_info, node)
            seen[point, what] += 1
            return status
        return answer
    monkeypatch.setattr(DynamicResources, "reserve", replaced("reserve", reserve))
    monkeypatch.setattr(DynamicResources, "pre_bind", replaced("pre_bind", pre_bind))
    claims_only = FastBinding.claims_only

    def taken(self, state) -> bool:  # the reference: never (the folds)
        found = fused and claims_only(self, state)
        seen["fused"] += found
        return found
    monkeypatch.setattr(FastBinding, "claims_only", taken)
    cluster, keys = build(seed)
    sched = Scheduler(cluster, seed=seed, gates={"NominatedNodeNameForExpectation": gate})
    rng = random.Random(3000 + seed)
    out = []
    for step, key in enumerate(keys):
        mutate(cluster, rng, step, seen)
        if key in cluster.pods:
            out.append(sched.schedule_one(key))
    monkeypatch.undo()
    return out, pods_dump(cluster), snapshot_state(cluster), sorted(sched.binding_waits), _claims(cluster)


@pytest.mark.parametrize("seed", seeds(4))
@pytest.mark.parametrize("gate", [True, False])
def test_claims_binding_cycle_same_as_the_folds(seed, gate, monkeypatch):
    seen: dict = {"fused": 0, "deallocated": 0, "labels": 0, "deleted": 0, "nodes": 0}
    for point, choices in INJECTED.items():
        for what, _, _ in choices:
            seen[point, what] = 0
    fast, fast_pods, fast_snap, fast_waits, fast_claims = run(seed, True, gate, monkeypatch, seen)
    taken = seen["fused"]
    slow, slow_pods, slow_snap, slow_waits, slow_claims = run(seed, False, gate, monkeypatch, seen)
    assert seen["fused"] == taken > 10  # the reference took the folds for every pod
    assert len(fast) == len(slow)
    for a, b in zip(fast, slow):
        same_attempt(a, b)
        assert (a.trace.nominated_node_name, a.nominating_info) == (b.trace.nominated_node_name, b.nominating_info)
    assert fast_pods == slow_pods and fast_snap == slow_snap
    assert fast_waits == slow_waits and fast_claims == slow_claims
    # every injected answer happened, the mutations too, and pods were placed and failed
    assert covered(all(count > 0 for count in seen.values()))
    assert covered(any(r.node is not None for r in fast) and any(r.node is None for r in fast))
