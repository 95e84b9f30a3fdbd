"""kschedlab.viz.placement and the placement explorers (notebooks 16 and 17)."""

import pytest

from kschedlab.api.errors import ManifestError
from kschedlab.viz.placement import (
    composite_manifests,
    composite_what_if,
    group_preemption_what_if,
    placement_what_if,
    training_manifests,
)
from kschedlab.widgets.placement import CompositeExplorer, PlacementExplorer

RACKS = [("a1", "rack-a", 4), ("a2", "rack-a", 4), ("a3", "rack-a", 4), ("b1", "rack-b", 3), ("b2", "rack-b", 3),
         ("c1", "rack-c", 2), ("c2", "rack-c", 2), ("d1", "rack-d", 3)]
ZONES = {"z0": {"r0": 4, "r1": 2}, "z1": {"r0": 4, "r1": 4}, "z2": {"r0": 6, "r1": 6}}


def test_notebook_16_placement_and_scores():
    out = placement_what_if(RACKS)
    assert (out.code, out.chosen, out.bound) == ("Success", "rack-b", 6)
    assert set(out.nodes.values()) == {"b1", "b2"}
    scores = out.scores.set_index("placement")
    assert scores.loc[["rack-a", "rack-b", "rack-c"], "total"].tolist() == [126, 151, 117]
    assert scores.loc["rack-d", "verdict"] == "Unschedulable"


@pytest.mark.parametrize("min_count,feasible", [(3, 4), (4, 3), (5, 2), (6, 2)])
def test_min_count_decides_which_racks_are_feasible(min_count, feasible):
    out = placement_what_if(RACKS, min_count=min_count)
    assert int((out.scores.verdict == "Success").sum()) == feasible and out.chosen == "rack-b"


def test_bigger_workers_move_the_gang_and_no_constraint_has_no_rack():
    assert placement_what_if(RACKS, cpu=2).chosen == "rack-a"
    free = placement_what_if(RACKS, topology=None)
    assert free.code == "Success" and free.chosen == "" and free.bound == 6 and free.scores.empty


def test_gang_that_fits_nowhere():
    out = placement_what_if([("n1", "rack-a", 2)], min_count=4, workers=4)
    assert out.code == "Unschedulable" and out.bound == 0 and out.chosen == ""
    assert "minCount (4) cannot be satisfied" in out.message


def test_topology_needs_its_gate_and_manifests_are_admitted():
    objs = training_manifests([("n1", "rack-a", 2)], workers=1, topology="rack")
    group = next(o for o in objs if o.kind == "PodGroup")
    assert group.spec.disruption_mode.single is not None and group.spec.priority == 0


def test_composite_zone_follows_worker_size():
    assert [composite_what_if(ZONES, cpu=c).chosen for c in (1, 2, 3)] == ["z0", "z1", "z2"]
    assert composite_what_if(ZONES, cpu=4).code == "Unschedulable"
    assert composite_what_if(ZONES, cpu=2).bound == 8
    objs = composite_manifests(ZONES)
    assert sum(o.kind == "Node" for o in objs) == 12 and sum(o.kind == "Pod" for o in objs) == 8


def test_disruption_mode_and_priority_in_group_preemption():
    single, whole = group_preemption_what_if("single"), group_preemption_what_if("all")
    assert single["priorities"] == {"analytics": 100, "training": 1000000}
    assert single["evicted"] == ["analytics-2"] and single["nominated"] == "n2"
    assert whole["evicted"] == ["analytics-0", "analytics-1", "analytics-2"]
    same = group_preemption_what_if("all", preemptor_class="low-priority")
    assert same["evicted"] == [] and "No preemption victims" in same["message"]
    with pytest.raises(ManifestError, match="disruptionMode"):
        group_preemption_what_if("everything")


def test_explorers_follow_their_controls():
    ex = PlacementExplorer(RACKS)
    assert repr(ex) == "PlacementExplorer(minCount=4, cpu=1, topology=rack): Success: 6 pods bound in rack-b"
    ex.cpu.value = 2  # as a user moves the slider
    assert ex.last.chosen == "rack-a" and "rack-a" in ex.verdict.value
    ex.topology.value = ""
    assert ex.last.chosen == "" and "No candidate placements" in ex.table.value
    comp = CompositeExplorer(ZONES)
    assert comp.last.chosen == "z1"
    comp.cpu.value = 3
    assert comp.last.chosen == "z2" and len(comp.figure.outputs) == 1
