"""Preemption tables, figures and the PreemptionExplorer show exactly what the scheduler decided."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from vizcases import EVIL_NODE, EVIL_POD

from kschedlab import Cluster, Scheduler
from kschedlab.api.core import Node, Pod
from kschedlab.api.loader import load
from kschedlab.apiserver.admission import admit
from kschedlab.controllers.workloads import expand
from kschedlab.eviction import disruption as pdbmod
from kschedlab.framework.preemption import pick_one_node_for_preemption
from kschedlab.sim.observe import transitions, watch
from kschedlab.sim.scenario import from_files
from kschedlab.viz import preemption_candidates, preemption_figure, preemption_timeline, preemption_what_if
from kschedlab.viz.common import esc
from kschedlab.viz.preemption import RULES
from kschedlab.widgets import PreemptionExplorer

DATA = Path(__file__).resolve().parents[2] / "datasets" / "preemption"
ORDERING = DATA / "12-candidate-ordering.yaml"
URGENT = "default/urgent-1"


def objects(name="12-candidate-ordering.yaml"):
    return admit(expand(load(DATA / name)))


def attempt(objs, key):
    cluster = Cluster(copy.deepcopy(objs))
    pdbmod.refresh(cluster)
    return Scheduler(cluster).schedule_one(key)


def figure_strings(fig) -> str:
    return json.dumps(json.loads(fig.to_json()))


# ----------------------------------------------------------------------------- the candidate table
def test_every_criterion_rules_out_one_node():
    record = attempt(objects(), URGENT).trace.preemption
    table = preemption_candidates(record)
    assert list(table.index) == ["node-e", "node-d", "node-c", "node-b", "node-a"]
    assert table["decided by"].to_dict() == {
        "node-e": RULES[4], "node-d": RULES[4], "node-c": RULES[2], "node-b": RULES[1], "node-a": RULES[0]}
    assert table.loc["node-a", "PDB violations"] == 1 and table.loc["node-a", "victims"] == "web-2 (10)"
    assert table.loc["node-c", "victims"] == "c-job-1 (100), c-job-2 (100)"
    assert table.loc["node-c", ["priority sum", "victims count"]].tolist() == [200, 2]
    assert table.loc["node-e", "start of highest-priority victims"] == "2024-01-03 00:00:00"
    assert table["chosen"].tolist() == [True, False, False, False, False]
    assert record.selected.name == "node-e" and record.victims == ["default/e-job"]


@pytest.mark.parametrize("name, key", [
    ("12-preemption-basic.yaml", "default/nginx"),
    ("12-pdb-respected.yaml", "default/critical"),
    ("12-pdb-violated.yaml", "default/critical"),
    ("12-lowest-priority-first.yaml", None),
    ("12-candidate-ordering.yaml", URGENT),
])
def test_rank_one_is_the_node_the_scheduler_chose(name, key):
    objs = objects(name)
    if key is None:
        key = next(o.key for o in objs if type(o).__name__ == "Pod" and not o.spec.node_name)
    record = attempt(objs, key).trace.preemption
    table = preemption_candidates(record)
    assert table.index[0] == record.selected.name
    assert table.loc[record.selected.name, "chosen"]
    victims_map = {c.name: c.victims for c in record.candidates}
    assert pick_one_node_for_preemption(victims_map, now_ns=record.now_ns) == table.index[0]


def test_nodes_that_cannot_be_helped_are_listed_with_their_reason():
    w = preemption_what_if(objects(), URGENT, priorities={URGENT: 400})
    table = w.table
    # at 400 the batch pods (500) are no longer victims: node-b cannot be helped
    assert table.loc["node-b", "not a candidate"] == "No preemption victims found for incoming pod"
    assert table.loc["node-b", "rank"] is None or table["rank"].isna()["node-b"]
    assert "node-b" not in preemption_candidates(w.record).index


def test_a_single_candidate_is_decided_by_being_alone():
    objs = objects("12-preemption-basic.yaml")
    w = preemption_what_if(objs, "default/nginx", priorities={"default/medium-1": 2_000_000})
    table = preemption_candidates(w.record)
    assert list(table.index) == ["kube-01"] and table.loc["kube-01", "decided by"] == "only candidate"


# ------------------------------------------------------------------------------------- what if
def test_what_if_moves_the_chosen_node_and_never_changes_its_input():
    objs = objects()
    before = [o.model_dump() for o in objs]
    base = preemption_what_if(objs, URGENT)
    assert (base.chosen, base.victims) == ("node-e", ["default/e-job"])
    # a looser budget: node-a has no violation any more and the lowest victim priority; the budget
    # still prefers keeping the PDB-violating pod (web-2) and evicts web-1 instead
    looser = preemption_what_if(objs, URGENT, min_available={"default/web-pdb": 1})
    assert (looser.chosen, looser.victims) == ("node-a", ["default/web-1"])
    assert looser.table.loc["node-a", "decided by"] == RULES[1]
    # e-job more important: node-d wins on the priority sum against node-c
    busier = preemption_what_if(objs, URGENT, priorities={"default/e-job": 150})
    assert busier.chosen == "node-d" and busier.table.loc["node-d", "decided by"] == RULES[2]
    assert busier.summary == "default/urgent-1 preempts d-job on node-d"
    assert [o.model_dump() for o in objs] == before


def test_what_if_without_preemption():
    w = preemption_what_if(objects(), URGENT, priorities={URGENT: 5})
    assert w.chosen is None and w.victims == []
    assert w.summary.startswith("default/urgent-1: 0/5 nodes are available: 5 Insufficient cpu. preemption:")


# --------------------------------------------------------------------------------------- figures
def test_figure_has_one_block_per_victim_and_marks_the_chosen_node():
    record = attempt(objects(), URGENT).trace.preemption
    fig = preemption_figure(record)
    blocks = [t for t in fig.data if t.type == "bar"]
    assert sorted(t.meta for t in blocks) == ["batch-2", "c-job-1", "c-job-2", "d-job", "e-job", "web-2"]
    star = [t for t in fig.data if t.meta == "chosen"][0]
    assert star.x[0].startswith("node-e") and RULES[4] in star.text[0]
    assert list(fig.layout.xaxis.categoryarray)[0].startswith("node-e")
    # one legend entry per victim priority
    assert sorted(t.name for t in blocks if t.showlegend) == ["priority 10", "priority 100", "priority 500"]


def test_figure_without_candidates_says_why():
    w = preemption_what_if(objects(), URGENT, priorities={URGENT: 5})
    fig = preemption_figure(w.record)
    assert not fig.data and "No preemption victims found" in fig.layout.annotations[0].text


def evil_objects():
    nodes = [Node.model_validate({"metadata": {"name": EVIL_NODE}, "status": {"allocatable": {"cpu": "1",
                                                                                            "pods": "9"}}})]
    pods = [Pod.model_validate({"metadata": {"name": EVIL_POD, "namespace": "default"}, "spec": {
        "nodeName": EVIL_NODE, "priority": 1, "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}),
        Pod.model_validate({"metadata": {"name": "<b>pre</b>", "namespace": "default"}, "spec": {
            "priority": 9, "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}})]
    return [*nodes, *pods]


def test_figures_and_explorer_escape_user_names():
    objs = evil_objects()
    record = attempt(objs, "default/<b>pre</b>").trace.preemption
    text = figure_strings(preemption_figure(record))
    for raw in (EVIL_POD, EVIL_NODE, "<b>pre</b>"):
        assert raw not in text
    assert json.dumps(esc(EVIL_NODE))[1:-1] in text
    ex = PreemptionExplorer(objs, "default/<b>pre</b>")
    html = ex.children[0].value + ex.status.value + ex.table.value
    assert "<b>pre</b>" not in html and esc("<b>pre</b>") in html and EVIL_POD not in html


# -------------------------------------------------------------------------------------- timeline
def test_timeline_follows_the_story_states():
    sim, until = from_files(DATA / "12-nominated-node-story.yaml")
    states = watch(sim, until=until, step=1)
    fig = preemption_timeline(states, title="story")
    by_state = {t.meta: t for t in fig.data}
    assert set(by_state) == {"running", "terminating", "nominated"}
    # p is nominated twice (n1 from t=5, then n2 from t=35) before it runs on n2 from t=65
    nominated = [(y, b, b + x, node) for y, b, x, node in zip(by_state["nominated"].y, by_state["nominated"].base,
                                                                by_state["nominated"].x, by_state["nominated"].text)]
    assert ("default/p", 5.0, 35.0, "n1") in nominated and ("default/p", 35.0, 65.0, "n2") in nominated
    terminating = list(zip(by_state["terminating"].y, by_state["terminating"].base, by_state["terminating"].x))
    assert ("default/low-a", 5.0, 30.0) in terminating and ("default/low-b", 35.0, 30.0) in terminating


# ------------------------------------------------------------------------------------- the widget
def test_explorer_controls_rerun_what_if():
    objs = objects()
    ex = PreemptionExplorer(objs, URGENT)
    assert list(ex.priority)[0] == URGENT and ex.priority["default/e-job"].value == 100
    assert ex.min_available["default/web-pdb"].value == 2 and ex.min_available["default/web-pdb"].max == 2
    ex.set(priorities={"default/e-job": 150})
    expected = preemption_what_if(objs, URGENT, priorities={"default/e-job": 150})
    assert (ex.last.chosen, ex.last.victims) == (expected.chosen, expected.victims) == ("node-d", ["default/d-job"])
    fig = ex.figure.outputs[0]["data"]["application/vnd.plotly.v1+json"]
    assert any(t.get("meta") == "chosen" for t in fig["data"])
    assert "node-d" in ex.status.value and "d-job" in ex.table.value
    # a control changed directly (as a user does) re-runs too
    ex.min_available["default/web-pdb"].value = 1
    assert ex.last.chosen == "node-a"
    assert repr(ex) == "PreemptionExplorer(pod='default/urgent-1') -> node-a, victims: web-1"


def test_observe_transitions_only_keep_changes():
    sim, until = from_files(DATA / "12-non-preempting-story.yaml")
    changes = transitions(watch(sim, until=until, step=1))
    ds = changes[changes["pod"] == "default/ds-job"][["time", "state"]].values.tolist()
    assert ds == [[1.0, "pending"], [60.0, "running"], [70.0, "terminating"], [100.0, "gone"]]


def test_what_if_refuses_a_preemptor_that_is_already_bound():
    objs = objects()
    cluster = Cluster(objs)  # shares the objects: scheduling binds urgent-1 in them
    scheduler = Scheduler(cluster)
    scheduler.schedule_one(URGENT)
    scheduler.schedule_one(URGENT)
    with pytest.raises(ValueError, match="already bound to node-e"):
        preemption_what_if(objs, URGENT)


def test_fewest_victims_decides_only_for_the_lowest_priority():
    """Criterion 3 adds 2^31 to each victim's priority: victims of priority -2147483648 count 0, and a
    node with one such victim ties with a node with two; criterion 4 then decides."""
    lowest = -(1 << 31)

    def pod(name, cpu, priority, node=None):
        spec = {"priority": priority, "containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]}
        if node:
            spec["nodeName"] = node
        return Pod.model_validate({"metadata": {"name": name, "namespace": "default"}, "spec": spec})

    nodes = [Node.model_validate({"metadata": {"name": n}, "status": {"allocatable": {"cpu": "2", "pods": "9"}}})
             for n in ("x", "y")]
    objs = [*nodes, pod("one", "2", lowest, "x"), pod("two-a", "1", lowest, "y"), pod("two-b", "1", lowest, "y"),
            pod("pre", "2", 0)]
    w = preemption_what_if(objs, "default/pre")
    assert w.chosen == "x"
    assert w.table.loc["x", "decided by"] == RULES[3] and w.table.loc["y", "decided by"] == RULES[3]
