"""The observations of "predict, then change the YAML" exercises beyond the scheduler's (the kubelet's
eviction ranking and thresholds, the eviction API) and a KubeSchedulerConfiguration among the YAML's
documents: a YAML they cannot use gets a sentence, never a traceback."""

from __future__ import annotations

import pytest

from kschedlab.exercises import exercise


def _without(text: str, kind: str) -> str:
    return "---\n".join(doc for doc in text.split("---\n") if f"kind: {kind}\n" not in doc)


@pytest.mark.parametrize(("notebook", "number", "kind", "said"), [
    ("13b-eviction-ranking-and-oom", 3, "NodeStatsSummary",
     "your YAML: 0 NodeStatsSummary documents; the kubelet reads exactly one"),
    ("13-node-pressure-eviction", 6, "KubeletConfiguration",
     "your YAML: 0 KubeletConfiguration and 1 NodeStatsSummary documents; the kubelet reads exactly one of each"),
])
def test_a_kubelet_observation_needs_its_documents(notebook, number, kind, said, capsys):
    ex = exercise(notebook, number)
    assert ex.try_it(_without(ex.manifest(), kind), 1) is False
    out = " ".join(capsys.readouterr().out.split())  # the feedback is wrapped at spaces
    assert out.startswith(f"Your YAML cannot be used: {said}") and "Traceback" not in out


def test_two_scheduler_configurations_are_refused(capsys):
    ex = exercise("11-bin-packing", 6)
    config = ex.manifest().split("---\n")[0]
    assert ex.try_it(config + "---\n" + ex.manifest(), "node-2") is False
    out = " ".join(capsys.readouterr().out.split())  # the feedback is wrapped at spaces
    assert out.startswith("Your YAML cannot be used: your YAML: more than one KubeSchedulerConfiguration")


def test_an_eviction_of_a_missing_pod_is_answered_404():
    ex = exercise("14-api-initiated-eviction", 6)
    allowed, lines = ex.outcome(_without(ex.manifest(), "Pod"))
    assert allowed == 0
    assert lines[1].startswith("  evict default/web-0: 404")


def test_the_ranking_is_told_in_order():
    ex = exercise("13b-eviction-ranking-and-oom", 3)
    rank, lines = ex.outcome(ex.manifest())
    assert rank == 1
    assert lines[1] == "  1. default/batch-burstable-over (priority 0)"
    assert lines[-1] == "So default/batch-burstable-over is at rank 1."
