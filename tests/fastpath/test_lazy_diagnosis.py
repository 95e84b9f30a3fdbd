"""The cycle of a pod with a live Filter plugin, lighter (issue 26 continued, branch perfdracycle): the
Diagnosis counts a Filter pass's failures when first read (``Diagnosis.add_outcome``), the fast path's
outcome taken from a live plugin's verdicts in fewer array operations (``FastPath._run_filter_plain``),
``Code.Error`` compared as a plain int. Each is checked against the code before (the references of
``test_lean_filter``: the counts written at once over a mask of the failed nodes, every outcome column
scattered from the live plugins' failures), attempt by attempt, on the pods sharing ResourceClaims of
``test_shared_claims`` (claims deallocated, nodes relabelled, added and removed, pods deleted) and on the
custom Filter / PreFilter plugins of ``test_custom_filters``; and the Diagnosis of every cycle, those that
found a node included (what the conformance runner reads of them), is the same."""

from __future__ import annotations

import pytest

from kschedlab.scheduler import Scheduler
from tests.fastpath import test_custom_filters, test_shared_claims
from tests.fastpath.test_lean_filter import as_before, same_runs
from tests.seeds import seeds


def _noting_diagnoses(monkeypatch, seen: list) -> None:
    """Record, for every ``find_node``, what a reader of its Diagnosis sees."""
    find_node = Scheduler.find_node

    def noting(self, *args, **kwargs):
        node, diagnosis = find_node(self, *args, **kwargs)
        explicit = diagnosis.explicit  # (read first: each of these settles the counts by itself)
        seen.append((node, explicit, sorted(diagnosis.unschedulable_plugins), dict(diagnosis.reason_counts),
                     diagnosis.message()))
        return node, diagnosis
    monkeypatch.setattr(Scheduler, "find_node", noting)


def _same_with_diagnoses(run, monkeypatch) -> tuple[list, list]:
    """``run()`` lean and as before (``same_runs``), and the Diagnosis of every cycle of each."""
    seen: list = []
    _noting_diagnoses(monkeypatch, seen)
    runs = []

    def noted():
        seen.clear()
        results = run()
        runs.append(list(seen))
        return results

    results = same_runs(noted, as_before, monkeypatch)
    assert len(runs) == 2 and runs[0] == runs[1]
    return results, runs[0]


@pytest.mark.parametrize("seed", seeds(4))
def test_shared_claims_answer_as_before(seed, monkeypatch):
    seen = {"deallocated": 0, "labels": 0, "deleted": 0, "nodes": 0, "kept": 0, "asked": 0, "appended": 0}
    results, diagnoses = _same_with_diagnoses(lambda: test_shared_claims.run(seed, True, dict(seen))[0],
                                              monkeypatch)
    assert any(r.node is None for r in results) and any(r.node is not None for r in results)
    # cycles that found a node after others failed: their Diagnosis counted lazily, read here
    assert any(node is not None and explicit for node, explicit, _, _, _ in diagnoses)


@pytest.mark.parametrize("seed", seeds(3))
@pytest.mark.parametrize("names", [("ZoneGate",), ("RoomyNodes",), ("ZoneGate", "RoomyNodes", "Quiet")])
def test_custom_filters_answer_as_before(seed, names, monkeypatch):
    results, diagnoses = _same_with_diagnoses(lambda: test_custom_filters.run(seed, names, True), monkeypatch)
    assert any(r.node is None for r in results)
    assert any(plugins for _, _, plugins, _, _ in diagnoses)
