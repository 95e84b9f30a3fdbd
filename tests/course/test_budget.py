"""BudgetExplorer and kschedlab.viz.budget (notebook 14)."""

from pathlib import Path

import pytest

from kschedlab.api.loader import load
from kschedlab.viz.budget import allowed_evictions, budget_what_if
from kschedlab.widgets.budget import BudgetExplorer

DATA = Path(__file__).resolve().parents[2] / "datasets" / "eviction"
WEB = [f"default/web-{i}" for i in range(4)]


@pytest.fixture(scope="module")
def replicas():
    return load(DATA / "14-pdb-replicaset.yaml")


def test_dataset_as_written(replicas):
    table = budget_what_if(replicas, "default/web", WEB)
    assert table["code"].tolist() == [200, 200, 429, 429]
    assert table["disruptionsAllowed before"].tolist() == [2, 1, 0, 0]
    assert table["healthy before"].tolist() == [4, 3, 2, 2]
    assert table.loc[2, "message"] == "Cannot evict pod as it would violate the pod's disruption budget."


@pytest.mark.parametrize("change,allowed", [({"min_available": 0}, 4), ({"min_available": 4}, 0),
                                            ({"min_available": "30%"}, 2), ({"min_available": "25%"}, 3),
                                            ({"max_unavailable": 0}, 0), ({"max_unavailable": "30%"}, 2),
                                            ({"max_unavailable": "100%"}, 4), ({"max_unavailable": 1}, 1)])
def test_allowed_evictions(replicas, change, allowed):
    assert allowed_evictions(replicas, "default/web", WEB, **change) == allowed


def test_no_controller_scale_allows_nothing_for_max_unavailable():
    objs = load(DATA / "14-pdb-min-available.yaml")
    pods = WEB[:3]
    assert allowed_evictions(objs, "default/web", pods, max_unavailable=1) == 0
    assert allowed_evictions(objs, "default/web", pods, min_available=1) == 2


def test_bad_input_and_objects_unchanged(replicas):
    with pytest.raises(ValueError, match="not both"):
        budget_what_if(replicas, "default/web", WEB, min_available=1, max_unavailable=1)
    with pytest.raises(ValueError, match="default/nope"):
        budget_what_if(replicas, "default/nope", WEB)
    budget_what_if(replicas, "default/web", WEB, min_available=0)
    pdb = next(o for o in replicas if o.kind == "PodDisruptionBudget")
    assert pdb.spec.min_available == 2 and all(o.metadata.deletion_timestamp is None for o in replicas)


def test_widget_follows_its_controls(replicas):
    ex = BudgetExplorer(replicas, "default/web", WEB)
    assert repr(ex) == "BudgetExplorer(minAvailable=2): web-0 200, web-1 200, web-2 429, web-3 429"
    ex.value.value = "0"  # as a user moves the slider
    assert ex.last["code"].tolist() == [200] * 4
    ex.field.value = "maxUnavailable"
    assert ex.last["code"].tolist() == [429] * 4
    assert "0 of 4 evictions allowed" in ex.table.value
