"""The Filter pass with fewer array operations (issue 26 continued, branch perfanti): InterPodAffinity's
verdicts assembled by integer arithmetic on the failing masks (``_verdicts``), each node's slot read off
a table kept per topology key (``_Topology.slots``), the fast path's outcome taken whole from the first
live plugin that fails a node when the fused check cleared every node (``FastPath._run_filter_plain``),
the Diagnosis counted without a mask of the failed nodes, and when first read (``Diagnosis.add_outcome``), and
``FastPath.fits_fewer`` answering from the kept "every node fits". Each is checked against the code
before, kept below as the reference: attempt by attempt on the random clusters of
``test_affinity_groups`` (node relabels, retaints, removals with and without their pods, pod
deletions, preemption, nominations; fast path and plugin by plugin) and of ``test_shared_parses``
(namespaces, pods relabelled, affinity replaced), and directly on random masks."""

from __future__ import annotations

import numpy as np
import pytest

from kschedlab.api.core import Node
from kschedlab.cluster import Cluster
from kschedlab.framework.diagnosis import Diagnosis
from kschedlab.framework.interface import Verdicts
from kschedlab.framework.runtime import FilterOutcome, filter_verdicts
from kschedlab.framework.status import Code
from kschedlab.plugins import inter_pod_affinity
from kschedlab.plugins.inter_pod_affinity import _REASONS, _Topology, _verdicts
from kschedlab.scheduler import Scheduler
from kschedlab.scheduler.fast_path import FastPath
from tests.fastpath import test_affinity_groups, test_shared_parses
from tests.fastpath.test_fast_path import same_attempt
from tests.seeds import seeds

HOST = "kubernetes.io/hostname"


def reference_verdicts(n, fail_aff, fail_anti, fail_existing) -> Verdicts:
    """The verdicts as written before: masked writes, the first failing check last."""
    none = np.zeros(n, bool)
    aff = none if fail_aff is None else fail_aff
    anti = none if fail_anti is None else fail_anti
    existing = none if fail_existing is None else fail_existing
    out = np.zeros(n, np.int8)
    idx = np.full(n, -1, np.int32)
    third = existing & ~anti & ~aff
    second = anti & ~aff
    out[third], idx[third] = Code.Unschedulable, 2
    out[second], idx[second] = Code.Unschedulable, 1
    out[aff], idx[aff] = Code.UnschedulableAndUnresolvable, 0
    return Verdicts(out, idx, list(_REASONS))


def reference_slots(self, key, rows):
    """Each row's slot computed at every call, as before."""
    codes = self.col(key)[0][rows]
    return codes if self.rows_of(key) is None else np.where(codes >= 0, rows, -1)


def reference_add_failures(diagnosis, outcome, failed) -> None:
    """The Diagnosis counts as written before: over a mask of the failed nodes, at once."""
    mask = outcome.fail_plugin >= 0
    assert int(mask.sum()) == failed
    per_reason = np.bincount(outcome.fail_reason[mask] + 1)
    idx = np.flatnonzero(per_reason[1:])
    counts: dict[str, int] = {}
    for r, c in zip(idx.tolist(), per_reason[idx + 1].tolist()):
        for reason in outcome.reasons[r]:
            counts[reason] = counts.get(reason, 0) + c
    diagnosis.add_counts(counts, failed)
    plugins = np.flatnonzero(np.bincount(outcome.fail_plugin[mask]))
    diagnosis.unschedulable_plugins.update(outcome.plugins[p] for p in plugins.tolist())


def reference_run_filter_plain(self, plan, state, pod_info, snapshot, rows):
    """``FastPath._run_filter_plain`` as written before: every outcome column scattered from the
    live plugins' failures."""
    n = len(rows)
    ok = self.passing(plan, pod_info, snapshot, rows)
    live = []
    at = None if ok is None else np.flatnonzero(ok)
    for name in plan.live_filter:
        if at is not None and not len(at):
            break
        verdicts = filter_verdicts(self.plugins[name], state, pod_info, snapshot, rows if at is None else rows[at])
        if verdicts.all_pass:
            continue
        codes = verdicts.codes
        if (codes == Code.Error).any():
            return self.fw.run_filter(state, pod_info, snapshot, rows)
        where = np.arange(n) if at is None else at
        failed = codes != 0
        live.append((plan.filter_names.index(name), where[failed], verdicts, failed))
        at = where[~failed]
    if ok is None and not live:
        return self.all_passed(plan, rows)
    fail_plugin = np.full(n, -1, np.int16)
    fail_code = np.zeros(n, np.int8)
    fail_reason = np.full(n, -1, np.int32)
    reasons: list = []
    if ok is not None and not ok.all():
        doubtful = np.flatnonzero(~ok)
        checked = self._rejected(plan, state, pod_info, snapshot, rows[doubtful])
        if not live and len(doubtful) == n:
            return checked
        fail_plugin[doubtful] = checked.fail_plugin
        fail_code[doubtful] = checked.fail_code
        fail_reason[doubtful] = checked.fail_reason
        reasons = list(checked.reasons)
    for index, failed_at, verdicts, failed in live:
        fail_plugin[failed_at] = index
        fail_code[failed_at] = verdicts.codes[failed]
        r = verdicts.reason_idx[failed]
        fail_reason[failed_at] = np.where(r >= 0, r + len(reasons), -1)
        reasons.extend(verdicts.reasons)
    return FilterOutcome(rows, fail_plugin, fail_code, fail_reason, reasons, plan.filter_names)


def as_before(monkeypatch) -> None:
    monkeypatch.setattr(inter_pod_affinity, "_verdicts", reference_verdicts)
    monkeypatch.setattr(_Topology, "slots", reference_slots)
    monkeypatch.setattr(Diagnosis, "add_outcome", reference_add_failures)
    monkeypatch.setattr(FastPath, "_run_filter_plain", reference_run_filter_plain)


def same_runs(run, patch, monkeypatch) -> list:
    """``run()`` as it is and with ``patch`` (the code as it was) applied: the same attempts and the
    same Filter outcomes, column by column. Returns the first run's results."""
    lean = run()
    with monkeypatch.context() as m:
        patch(m)
        before = run()
    assert len(lean) == len(before)
    for a, b in zip(lean, before):
        same_attempt(a, b)
    _same_outcomes(lean, before)
    return lean


def _same_outcomes(a, b) -> None:
    """The Filter outcomes' columns too (``same_attempt`` compares the statuses they give)."""
    for ra, rb in zip(a, b):
        fa, fb = (r.trace.filter if r.trace is not None else None for r in (ra, rb))
        assert (fa is None) == (fb is None)
        if fa is not None:
            for column in ("rows", "fail_plugin", "fail_code", "fail_reason"):
                x, y = getattr(fa, column), getattr(fb, column)
                assert x.dtype == y.dtype and np.array_equal(x, y), column
            assert fa.reasons == fb.reasons


@pytest.mark.parametrize("seed", seeds(6))
def test_lean_filter_answers_as_before_on_random_clusters(seed, monkeypatch):
    fast, orphans = seed % 2 == 0, seed % 3 == 1
    lean = same_runs(lambda: test_affinity_groups.run(seed, False, fast=fast, orphans=orphans, shared_host=seed == 3),
                     as_before, monkeypatch)
    assert any(r.diagnosis is not None and r.diagnosis.unschedulable_plugins for r in lean)


@pytest.mark.parametrize("seed", seeds(4))
def test_lean_filter_answers_as_before_with_namespaces_and_relabels(seed, monkeypatch):
    fast = seed % 2 == 0
    same_runs(lambda: test_shared_parses.run(seed, fast), as_before, monkeypatch)


@pytest.mark.parametrize("seed", seeds(40))
def test_verdicts_arithmetic_as_masked_writes(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 60))
    masks = [None if rng.random() < 0.3 else rng.random(n) < rng.random() for _ in range(3)]
    got, want = _verdicts(n, *masks), reference_verdicts(n, *masks)
    assert got.codes.dtype == want.codes.dtype and got.reason_idx.dtype == want.reason_idx.dtype
    assert np.array_equal(got.codes, want.codes) and np.array_equal(got.reason_idx, want.reason_idx)
    assert got.reasons == want.reasons


def _node(name: str, host: str | None) -> Node:
    return Node.model_validate({"metadata": {"name": name, "labels": {HOST: host} if host else {}},
                                "status": {"allocatable": {"cpu": "4", "pods": "10"}}})


def test_kept_slots_follow_nodes_added_relabelled_and_removed():
    cluster = Cluster([_node(f"n{i}", f"n{i}" if i % 4 else None) for i in range(8)])
    snap = cluster.snapshot

    def check():
        topo = _Topology(snap)
        rows = snap.order
        assert np.array_equal(topo.slots(HOST, rows), reference_slots(topo, HOST, rows))

    check()
    check()  # read from the kept table
    cluster.add(_node("n8", "n8"))
    check()
    twin = _node("n1", "n2")  # two nodes share a value: slots become value codes
    cluster.update_node(twin)
    check()
    cluster.remove_node("n3")
    check()


def test_fits_fewer_reads_every_node_fits():
    cluster = Cluster([Node.model_validate({"metadata": {"name": f"n{i}"},
                                            "status": {"allocatable": {"cpu": str(2 + i % 2), "pods": "10"}}})
                       for i in range(4)])
    from kschedlab.api.core import Pod
    from kschedlab.framework.types import PodInfo

    sched = Scheduler(cluster)
    fast = sched.fast_paths["default-scheduler"]
    rows = cluster.snapshot.order
    answers = []
    for cpu in ("1", "3", "4"):  # fits every node, two of them, none
        info = PodInfo.of(Pod.model_validate({"metadata": {"name": f"p{cpu}", "namespace": "default"}, "spec": {
            "containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]}}))
        for _ in range(4):  # (a young shape's fit is not kept: no answer before its third cycle)
            plan = fast.plan(info, cluster.snapshot)
            answers.append([fast.fits_fewer(plan, cluster.snapshot, rows, count) for count in (1, 2, 3)])
    young = [[False] * 3] * 2
    assert answers == young + [[False] * 3] * 2 + young + [[False, False, True]] * 2 + young + [[True] * 3] * 2
