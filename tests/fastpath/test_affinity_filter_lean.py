"""InterPodAffinity's Filter with fewer array operations (issue 26 continued, branch perfanti2): the
incoming pod's affinity read as one ``take`` and compare a term (a node lacking the key reads the
zero slot), and the verdicts built from the checks that fail some node only (none: the shared
passing arrays with the plugin's reasons; one: its reason and code by one product). Checked against
the code before, kept below as the reference: attempt by attempt and outcome by outcome on the
random clusters of ``test_affinity_groups`` and ``test_shared_parses`` (fast path and plugin by
plugin), and directly on random masks with checks that fail no node."""

from __future__ import annotations

import numpy as np
import pytest

from kschedlab.framework.interface import Verdicts
from kschedlab.framework.status import Code
from kschedlab.plugins.inter_pod_affinity import (
    GATE_DEFERRED_RESIZE,
    LABEL_HOSTNAME,
    PRE_FILTER_STATE_KEY,
    InterPodAffinity,
    PreFilterState,
    _resize_deferred,
    _verdicts,
    pod_matches_all_terms,
)
from tests.fastpath import test_affinity_groups, test_shared_parses
from tests.fastpath.test_lean_filter import reference_verdicts, same_runs
from tests.seeds import seeds


def reference_filter_nodes(self, state, pod_info, snapshot, rows: np.ndarray) -> Verdicts:
    """InterPodAffinity's Filter as written before (branch perfanti): the affinity check with a
    mask of the nodes lacking a key and one of the domains holding a matching pod, and every check
    handed to the verdicts whether or not it fails a node."""
    n = len(rows)
    if self._gate(GATE_DEFERRED_RESIZE) and _resize_deferred(pod_info.pod):
        return Verdicts.passing(n)
    s: PreFilterState | None = state.get(PRE_FILTER_STATE_KEY)
    if s is None:
        msg = f'error reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found'
        return Verdicts(np.full(n, np.int8(Code.Error)), np.zeros(n, np.int32), [(msg,)])
    rows = np.asarray(rows, np.int64)
    topo = s.topo

    def codes(key):
        return topo.col(key)[0].take(rows)

    slots_of: dict[str, np.ndarray] = {}  # each key's slots of ``rows``, once a call

    def slots(key):
        out = slots_of.get(key)
        if out is None:
            out = slots_of[key] = topo.slots(key, rows)
        return out

    # 1. the incoming pod's affinity (None: no node fails it, and so for the others)
    fail_aff = None
    if s.host_affinity_terms:  # fast path, every term hostname-scoped: a node-local check
        has_host = codes(LABEL_HOSTNAME) >= 0
        self_ok = (s.matching_host_affinity_pods <= 0
                   and pod_matches_all_terms(s.affinity_terms, pod_info.pod))
        fail_aff = ~has_host | ((s.host_affinity_rows[rows] <= 0) & (not self_ok))
    elif s.cluster_affinity_terms:
        missing = np.zeros(n, bool)
        pods_exist = np.ones(n, bool)
        for t in s.cluster_affinity_terms:
            c = codes(t.topology_key)
            missing |= c < 0
            counts = s.affinity_counts.get(t.topology_key)
            pods_exist &= (c >= 0) & (counts[slots(t.topology_key)] > 0
                                      if counts is not None else False)
        self_ok = (not s._nonempty(s.affinity_counts)
                   and (not s.fast_path or s.matching_host_affinity_pods <= 0)
                   and pod_matches_all_terms(s.affinity_terms, pod_info.pod))
        fail_aff = missing | (~pods_exist & (not self_ok))

    # 2. the incoming pod's anti-affinity
    fail_anti = None
    for t in s.cluster_anti_affinity_terms:
        counts = s.anti_affinity_counts.get(t.topology_key)
        if counts is not None:
            failing = counts.take(slots(t.topology_key)) > 0
            fail_anti = failing if fail_anti is None else fail_anti | failing
    if s.host_anti_affinity_terms:
        failing = (codes(LABEL_HOSTNAME) >= 0) & (s.host_anti_affinity_rows[rows] > 0)
        fail_anti = failing if fail_anti is None else fail_anti | failing

    # 3. the existing pods' anti-affinity
    fail_existing = None
    for key, counts in s.existing_anti_affinity_counts.items():
        failing = counts.take(slots(key)) > 0
        fail_existing = failing if fail_existing is None else fail_existing | failing
    if s.host_existing_anti_rows is not None:
        failing = (codes(LABEL_HOSTNAME) >= 0) & (s.host_existing_anti_rows[rows] > 0)
        fail_existing = failing if fail_existing is None else fail_existing | failing

    return reference_verdicts(n, fail_aff, fail_anti, fail_existing)


def _as_before(monkeypatch) -> None:
    monkeypatch.setattr(InterPodAffinity, "filter_nodes", reference_filter_nodes)


@pytest.mark.parametrize("seed", seeds(6))
def test_affinity_filter_answers_as_before_on_random_clusters(seed, monkeypatch):
    fast, orphans = seed % 2 == 0, seed % 3 == 1
    same_runs(lambda: test_affinity_groups.run(seed, False, fast=fast, orphans=orphans, shared_host=seed == 3),
              _as_before, monkeypatch)


@pytest.mark.parametrize("seed", seeds(4))
def test_affinity_filter_answers_as_before_with_namespaces_and_relabels(seed, monkeypatch):
    fast = seed % 2 == 0
    same_runs(lambda: test_shared_parses.run(seed, fast), _as_before, monkeypatch)


@pytest.mark.parametrize("seed", seeds(60))
def test_verdicts_of_checks_that_fail_no_node(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 40))
    masks = []
    for _ in range(3):
        kind = rng.integers(0, 4)  # None, no node failing, one node failing, random
        if kind == 0:
            masks.append(None)
        elif kind == 1:
            masks.append(np.zeros(n, bool))
        elif kind == 2:
            mask = np.zeros(n, bool)
            if n:
                mask[rng.integers(0, n)] = True
            masks.append(mask)
        else:
            masks.append(rng.random(n) < rng.random())
    got, want = _verdicts(n, *masks), reference_verdicts(n, *masks)
    assert got.codes.dtype == want.codes.dtype and got.reason_idx.dtype == want.reason_idx.dtype
    assert np.array_equal(got.codes, want.codes) and np.array_equal(got.reason_idx, want.reason_idx)
    assert got.reasons == want.reasons
    for i in range(n):
        assert got.status(i) == want.status(i)
