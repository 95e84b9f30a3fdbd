"""NodeResourcesFit's verdicts as the fast path computes them on many rows at once
(``kept_scores.fit_signatures``, read off the snapshot's free capacity, and the reason lookup of
``NodeFitVerdicts.failures`` / ``verdicts``) against the check written out node by node, on
seeded random snapshots changed between reads: pods placed and removed (nodes at their pod
limit), allocatable shrunk and grown, a resource no node has."""

from __future__ import annotations

import random

import numpy as np
import pytest

from kschedlab.api.core import Node, Pod
from kschedlab.cluster import Snapshot
from kschedlab.framework.status import Code
from kschedlab.framework.types import PodInfo
from kschedlab.scheduler.kept_scores import FitVerdictsNow, NodeFitVerdicts, fit_signatures
from tests.seeds import seeds

GPU = "example.com/gpu"
CHECKED = ((("cpu", 1500),), (("cpu", 700), ("memory", 3 << 30)), ((GPU, 2), ("cpu", 100)),
           (("memory", 1 << 30), ("example.com/none", 1)), (("cpu", 9000),))


def _node(name: str, rng: random.Random) -> Node:
    alloc = {"cpu": rng.choice(["1", "2", "4"]), "memory": rng.choice(["2Gi", "4Gi"]),
             "pods": rng.choice(["1", "2", "3", "110"])}
    if rng.random() < 0.4:
        alloc[GPU] = rng.choice(["1", "4"])
    return Node.model_validate({"metadata": {"name": name}, "status": {"allocatable": alloc}})


def _pod(name: str, rng: random.Random) -> PodInfo:
    requests = {"cpu": rng.choice(["100m", "500m", "1"]), "memory": rng.choice(["256Mi", "1Gi"])}
    if rng.random() < 0.3:
        requests[GPU] = "1"
    return PodInfo.of(Pod.model_validate({"metadata": {"name": name, "namespace": "default"}, "spec": {
        "containers": [{"name": "c", "resources": {"requests": requests}}]}}))


def _written_out(snap: Snapshot, checked, row: int) -> tuple[int, int]:
    """The checks ``row`` fails (bit 0: too many pods) and its code, node by node."""
    index = snap.res_index
    sig = int(snap.pod_count[row] + 1 > snap.allocatable[index["pods"], row])
    hopeless = False
    for bit, (name, want) in enumerate(checked, 1):
        col = index.get(name)
        alloc = 0 if col is None else int(snap.allocatable[col, row])
        used = 0 if col is None else int(snap.requested[col, row])
        if want > alloc - used:
            sig |= 1 << bit
            hopeless = hopeless or want > alloc
    code = 0 if not sig else int(Code.UnschedulableAndUnresolvable if hopeless else Code.Unschedulable)
    return sig, code


@pytest.mark.parametrize("seed", seeds(4))
def test_signatures_and_reason_columns_equal_the_check_node_by_node(seed):
    rng = random.Random(seed)
    snap = Snapshot()
    for i in range(40):
        snap.add_node(_node(f"n{i}", rng))
    kept = {checked: NodeFitVerdicts(snap, checked) for checked in CHECKED}
    placed: list[str] = []
    made = 0
    seen_codes: set[int] = set()
    pods_full = 0
    for _read in range(60):
        for _ in range(rng.randrange(1, 6)):  # a few changes between two reads
            action = rng.random()
            if action < 0.6 or not placed:
                made += 1
                info = _pod(f"p{made}", rng)
                snap.add_pod(info, rng.choice(snap.names))
                placed.append(info.key)
            elif action < 0.85:
                snap.remove_pod(placed.pop(rng.randrange(len(placed))))
            else:
                snap.update_node(_node(rng.choice(snap.names), rng))
        order = snap.order
        rows = np.roll(order, rng.randrange(len(order)))[: rng.randrange(len(order) + 1)]
        for checked in CHECKED:
            expected = [_written_out(snap, checked, row) for row in rows.tolist()]
            sig, code = fit_signatures(snap, checked, rows)
            assert list(zip(sig.tolist(), code.tolist())) == expected
            seen_codes.update(code.tolist())
            pods_full += sum(s & 1 for s, _ in expected)
            for verdicts_of in (kept[checked], FitVerdictsNow(snap, checked)):
                plugin, fail_code, reason, reasons = verdicts_of.failures(rows, 3)
                failed = [s != 0 for s, _ in expected]
                assert plugin.tolist() == [3 if f else -1 for f in failed]
                assert fail_code.tolist() == [c for _, c in expected]
                # the reasons: one entry per failing signature present, smallest first, each row pointing at its own
                present = sorted({s for s, _ in expected if s})
                assert reason.tolist() == [present.index(s) if s else -1 for s, _ in expected]
                assert len(reasons) == len(present) and all(reasons)
                verdicts = verdicts_of.verdicts(rows)
                assert verdicts.codes.tolist() == fail_code.tolist()
                if any(failed):
                    assert verdicts.reason_idx.tolist() == reason.tolist() and verdicts.reasons == reasons
    # every code came up, and the pod limit decided some of them
    assert seen_codes == {0, int(Code.Unschedulable), int(Code.UnschedulableAndUnresolvable)} and pods_full
