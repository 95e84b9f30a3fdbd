"""Invariants of the kubelet's memory-pressure ranking, and agreement with the order Go's
sort.Sort gives (insertion sort with multiSorter.Less for up to 12 pods, ties included)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kschedlab.api.core import Pod
from kschedlab.kubelet.ranking import (
    PodStatsIndex,
    exceed_memory_requests,
    memory,
    memory_usage,
    pod_priority,
    priority,
    rank_pods,
    request_quantity,
)

Mi = 2**20

pod_specs = st.lists(
    st.tuples(st.sampled_from([None, 64, 128, 256]),            # memory request (Mi) or BestEffort
              st.sampled_from([0, 64, 128, 200, 256, 512]),     # working set (Mi)
              st.sampled_from([-1, 0, 1, 1000]),                # priority
              st.booleans()),                                   # stats known
    min_size=1, max_size=12)


def _build(specs):
    pods, stats = [], []
    for i, (req, ws, prio, known) in enumerate(specs):
        res = {"requests": {"memory": f"{req}Mi"}} if req is not None else {}
        pods.append(Pod.model_validate({"metadata": {"name": f"p{i}", "uid": f"p{i}"},
                                        "spec": {"priority": prio, "containers": [{"name": "c", "resources": res}]}}))
        if known:
            stats.append({"podRef": {"uid": f"p{i}"}, "memory": {"workingSetBytes": ws * Mi}})
    return pods, PodStatsIndex(stats)


def _go_sort(pods, cmps):
    def less(a, b):
        for c in cmps[:-1]:
            r = c(a, b)
            if r < 0:
                return True
            if r > 0:
                return False
        return cmps[-1](a, b) < 0
    out = list(pods)
    for i in range(1, len(out)):
        j = i
        while j > 0 and less(out[j], out[j - 1]):
            out[j], out[j - 1] = out[j - 1], out[j]
            j -= 1
    return out


@settings(max_examples=200, deadline=None)
@given(pod_specs)
def test_memory_ranking_invariants_and_go_order(specs):
    pods, index = _build(specs)
    ranked = rank_pods(pods, index, "memory.available")
    assert sorted(p.metadata.name for p in ranked) == sorted(p.metadata.name for p in pods)

    def key(p):
        s = index.get(p)
        if s is None:
            return (0,)
        exceeds = memory_usage(s) > request_quantity(p, "memory")
        return (1, 0 if exceeds else 1, pod_priority(p), -(memory_usage(s) - request_quantity(p, "memory")))
    keys = [key(p) for p in ranked]
    assert keys == sorted(keys)
    go = _go_sort(pods, [exceed_memory_requests(index), priority, memory(index)])
    assert [p.metadata.name for p in ranked] == [p.metadata.name for p in go]
