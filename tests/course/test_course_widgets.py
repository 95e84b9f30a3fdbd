"""The library behind the course widgets of notebooks 00, 04, 06 and 07: the numbers they show,
and the widgets driven as a script would (``set``), without a browser."""

from __future__ import annotations

from pathlib import Path

import pytest

from kschedlab import Cluster, Scheduler
from kschedlab.api.core import Taint, Toleration
from kschedlab.api.loader import load
from kschedlab.apiserver.admission import admit
from kschedlab.scenarios import path
from kschedlab.viz.palette import CATEGORICAL
from kschedlab.viz.profiles import compare_profiles, profile_names, schedule_with_profile, score_profile
from kschedlab.viz.scheduling_gates import gates_outcome
from kschedlab.viz.taints import no_execute_verdict, normalize_prefer_no_schedule, taint_score_bars, toleration_outcome
from kschedlab.widgets.pod_explainer import PodExplainer, explain_columns
from kschedlab.widgets.profiles import ProfileExplorer
from kschedlab.widgets.scheduling_gates import GateExplorer
from kschedlab.widgets.tolerations import TolerationExplorer

DATASETS = Path(__file__).resolve().parents[2] / "datasets"
PREFER = DATASETS / "taints" / "06-prefer-no-schedule.yaml"
GATED = DATASETS / "seed" / "04-pod-with-scheduling-gates.yaml"
NUMERIC = DATASETS / "seed" / "06-numeric-toleration.yaml"


@pytest.fixture(scope="module")
def prefer():
    return admit(load(PREFER))


# ------------------------------------------------------------------ TaintToleration, notebook 06
@pytest.mark.parametrize(("counts", "expected"), [
    ([0, 1, 2, 3], [100, 67, 34, 0]), ([0, 0, 1, 2], [100, 100, 50, 0]), ([5], [0]), ([0, 0], [100, 100]),
    ([1, 3], [67, 0]),
])
def test_prefer_no_schedule_normalisation_is_integer_and_reversed(counts, expected):
    assert normalize_prefer_no_schedule(counts) == expected


def test_toleration_outcome_matches_the_scheduler_trace(prefer):
    out = toleration_outcome(prefer, "default/web")
    scores = out.result.trace.scores()
    for node, row in out.table.dropna(subset=["raw"]).iterrows():
        assert (row["raw"], row["normalized"], row["weighted"]) == tuple(
            scores[node]["TaintToleration"][k] for k in ("raw", "normalized", "weighted"))
    assert out.table.loc["draining", "filter"] == "TaintToleration: node(s) had untolerated taint(s)"
    assert out.table["weighted"].dropna().tolist() == [300, 201, 102, 0]
    assert out.node == "clean"


def test_toleration_outcome_leaves_the_objects_alone(prefer):
    before = [o.model_dump() for o in prefer]
    toleration_outcome(prefer, "default/web", extra=[{"key": "spot", "operator": "Exists"}])
    assert [o.model_dump() for o in prefer] == before
    with pytest.raises(KeyError, match="no pod default/nope"):
        toleration_outcome(prefer, "default/nope")


def test_only_prefer_no_schedule_tolerations_count_for_the_score(prefer):
    # a toleration for the spot taint with effect NoSchedule does not tolerate the PreferNoSchedule one
    out = toleration_outcome(prefer, "default/web", extra=[{"key": "spot", "operator": "Exists",
                                                            "effect": "NoSchedule"}])
    assert out.table.loc["spot", "raw"] == 1


def test_numeric_tolerations_need_the_gate_in_the_scheduler_too():
    gate = {"TaintTolerationComparisonOperators": True}
    objects = admit(load(NUMERIC), feature_gates=gate)
    on = toleration_outcome(objects, "default/nginx-numeric-toleration", gates=gate)
    off = toleration_outcome(objects, "default/nginx-numeric-toleration")
    assert on.node == "node1" and off.node is None
    assert on.table.loc["node3", "filter"].startswith('TaintToleration: failed to parse taint value "gold"')


def test_no_execute_verdicts():
    t = [Taint(key="k", effect="NoExecute"), Taint(key="other", effect="NoSchedule")]
    exists = Toleration(key="k", operator="Exists", effect="NoExecute")
    assert no_execute_verdict([], [Taint(key="x", effect="NoSchedule")]) == "not affected"
    assert no_execute_verdict([exists.model_copy(update={"toleration_seconds": 0})], t) == "evicted at once"
    assert no_execute_verdict([exists.model_copy(update={"toleration_seconds": 90}),
                               exists.model_copy(update={"toleration_seconds": 30})], t) == "evicted after 90 s"


def test_taint_score_bars_reads_well(prefer):
    fig = taint_score_bars(toleration_outcome(prefer, "default/web"))
    assert fig.layout.xaxis.title.text and fig.layout.yaxis.title.text
    assert tuple(fig.layout.xaxis.range) == (0, 100)
    bar = fig.data[0]
    assert set(bar.marker.color) <= set(CATEGORICAL) and bar.textposition == "outside" and bar.cliponaxis is False
    assert list(bar.y) == ["clean", "spot", "spot-old", "spot-old-shared"]  # draining was filtered out


def test_toleration_explorer(prefer):
    ex = TolerationExplorer(prefer, "default/web")
    assert ex.tolerations() == []
    ex.set(tolerate=["maintenance=true:NoExecute"], seconds=120)
    (tol,) = ex.tolerations()
    assert (tol.key, tol.effect, tol.toleration_seconds) == ("maintenance", "NoExecute", 120)
    assert ex.last.table.loc["draining", "NoExecute"] == "evicted after 120 s"
    assert ex.set(seconds=-1).last.table.loc["draining", "NoExecute"] == "stays for good"
    assert "draining" in ex.table.value and ex.figure.outputs
    with pytest.raises(KeyError, match="no node has taint"):
        ex.set(tolerate=["nope:NoSchedule"])


# ------------------------------------------------------------------ profiles, notebook 07
def test_score_profile_configures_exactly_the_weights():
    config = score_profile({"NodeResourcesFit": 3, "ImageLocality": 0, "TaintToleration": 1})
    sched = Scheduler(Cluster.from_manifests(path("default")), config)
    assert dict(sched.profiles["default-scheduler"].profile.weights) == {"NodeResourcesFit": 3, "TaintToleration": 1}


def test_compare_profiles_runs_each_profile_on_a_fresh_cluster():
    config = {"profiles": [{}, {"schedulerName": "packer", "pluginConfig": [
        {"name": "NodeResourcesFit", "args": {"scoringStrategy": {"type": "MostAllocated"}}}]}]}
    assert profile_names(config) == ["default-scheduler", "packer"]
    source = Cluster.from_manifests(path("default"))
    table = compare_profiles(source, config)
    assert not any(p.spec.node_name for p in source.pods.values())  # the source cluster is not changed
    assert set(table.index) == {"default/web-0", "default/cache-0", "default/trainer-0", "default/batch-0",
                                "default/big-0"}
    assert table.loc["default/big-0"].tolist() == ["", ""]
    assert (table["default-scheduler"] != table["packer"]).any()


def test_profile_explorer_disabling_every_score_plugin_keeps_scheduling():
    ex = ProfileExplorer(lambda: Cluster.from_manifests(path("default")), "default/web-0")
    ex.set(weights={name: 0 for name in ex.sliders})
    assert ex.weights() == {} and ex.last.node is not None
    assert "disabled" in ex.config.value
    result = schedule_with_profile(lambda: Cluster.from_manifests(path("default")), "default/web-0",
                                   ex.configuration())
    assert result.node == ex.last.node
    with pytest.raises(KeyError, match="unknown Score plugin"):
        ex.set(weights={"Nope": 1})


# ------------------------------------------------------------------ scheduling gates, notebook 04
def test_gates_outcome_and_explorer():
    objects = admit(load(GATED))
    pod = next(o for o in objects if o.kind == "Pod")
    nodes = [o for o in objects if o.kind == "Node"]
    half = gates_outcome(pod, nodes, keep=["example.com/foo"])
    assert (half.gates, half.status, half.generation, half.node) == (["example.com/foo"], "SchedulingGated", 2, None)
    refused = gates_outcome(pod, nodes, keep=["example.com/foo", "example.com/bar"], add=["example.com/baz"])
    assert "Forbidden: only deletion is allowed" in refused.error and refused.generation == 1
    ex = GateExplorer(pod, nodes)
    assert ex.set(keep=[]).last.node == "node-2" and "scheduled on node-2" in ex.summary.value
    assert ex.set(add=True).last.error is not None
    assert [g.name for g in pod.spec.scheduling_gates] == ["example.com/foo", "example.com/bar"]  # not changed


# ------------------------------------------------------------------ the tour, notebook 00
def test_pod_explainer():
    results = Scheduler(Cluster.from_manifests(path("default")), seed=0).run()
    ex = PodExplainer(results)
    assert ex.pod == results[0].pod
    assert ex.set("default/cache-0").verdict().startswith("default/cache-0: scheduled on node-b2 (total 452")
    table = explain_columns(ex.last)
    assert list(table.columns[:2]) == ["filter", "reasons"] and table.columns[-1] == "chosen"
    assert ex.set("default/big-0").figure.outputs
    with pytest.raises(KeyError):
        ex.set("default/nope")
    with pytest.raises(ValueError):
        PodExplainer([])
