"""The gang floors (kschedlab.perf_floors.gang_floor) place every pod where the PodGroup cycle does:
the same work, so the ratio ``kschedlab bench`` prints compares like with like."""

from __future__ import annotations

import pytest

from kschedlab.perf_floors import gang_floor
from kschedlab.scheduler import Scheduler
from kschedlab.scheduler_perf.gang import group_sizes, run_gang_workload


def scheduler_rows(monkeypatch, name: str, nodes: int, groups: int, per_domain: int, lo: int, hi: int) -> list[int]:
    """The node row of every measured pod (gang by gang, pods in creation order; -1: not placed)."""
    seen: list[list[tuple[str, str | None]]] = []
    cycle = Scheduler.schedule_pod_group

    def recording(self, root, pod_keys=None):
        out = cycle(self, root, pod_keys)
        seen.append([(r.pod, r.node) for r in out.pod_results])
        return out

    monkeypatch.setattr(Scheduler, "schedule_pod_group", recording)
    run_gang_workload(name, nodes=nodes, groups=groups, nodes_per_domain=per_domain, min_size=lo, max_size=hi)
    rows = []
    for results in seen:
        for _pod, node in sorted(results, key=lambda r: int(r[0].rsplit("-", 1)[1])):
            rows.append(int(node.rsplit("-", 1)[1]) if node else -1)
    return rows


@pytest.mark.parametrize("name, nodes, groups, per_domain, lo, hi", [
    ("TopologyAwareScheduling", 400, 20, 10, 3, 9),     # 40 racks, 37 of them searched: shuffled
    ("TopologyAwareScheduling", 30, 40, 10, 8, 64),     # racks fill up, some gangs fit nowhere
    ("GangScheduling", 300, 20, 0, 3, 9),
    ("GangScheduling", 30, 40, 0, 8, 64),               # the cluster fills up
])
def test_gang_floor_places_every_pod_where_the_cycle_does(monkeypatch, name, nodes, groups, per_domain, lo, hi):
    want = scheduler_rows(monkeypatch, name, nodes, groups, per_domain, lo, hi)
    got = gang_floor(name, nodes, group_sizes(groups, lo, hi), per_domain=per_domain)["placements"]
    assert got == want
    assert -1 in want or nodes >= 300  # the small clusters do leave gangs out


@pytest.mark.parametrize("name", ["GangScheduling", "TopologyAwareScheduling"])
def test_bench_row_of_a_gang_shape_has_the_floor_ratio(name):
    from kschedlab.scheduler_perf import run_shape

    row = run_shape(name, 0.01)
    assert row["scheduled"] == row["pods"] and row["reference_ratio"] > 0
