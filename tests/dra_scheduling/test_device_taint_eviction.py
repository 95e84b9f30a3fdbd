"""DeviceTaintRules on the simulation clock: NoExecute eviction with tolerationSeconds, the
EvictionInProgress condition with upstream's messages, the effect None dry run (seed section 8)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kschedlab.api.errors import ManifestError
from kschedlab.cli import main
from kschedlab.dra.devicetainteviction import DeviceTaintEvictionController, _Rule
from kschedlab.sim.scenario import from_files

SCEN = Path(__file__).resolve().parents[2] / "datasets" / "dra-scheduling"
DRY_RUN = ("3 published devices selected. 1 allocated device selected. 1 pod would be evicted in 1 namespace "
           "if the effect was NoExecute. This information will not be updated again. Recreate the DeviceTaintRule "
           "to trigger an update.")


def run(name: str):
    sim, until = from_files(SCEN / name)
    result = sim.run(until=until)
    return sim, result


def statuses(sim) -> list[tuple]:
    f = sim.dra.evictions_frame()
    f = f[f.action == "rule-status"]
    return [(r.time, r.object, r.status, r.reason, r.message) for r in f.itertuples()]


def test_seed_dry_run_then_noexecute():
    sim, result = run("device-taint-dry-run-sim.yaml")
    assert statuses(sim) == [
        (10.0, "example-dry-run", "False", "NoEffect", DRY_RUN),
        (30.0, "example", "True", "PodsPendingEviction", "1 pod needs to be evicted in 1 namespace."),
        (40.0, "example", "False", "Completed", "1 pod evicted since starting the controller."),
    ]
    rules = sim.dra.rules_frame().set_index("rule")
    assert rules.loc["example", "message"] == "1 pod evicted since starting the controller."
    assert rules.loc["example-dry-run", "lastTransitionTime"] == 10.0  # never updated again
    rule = sim.cluster.objects["DeviceTaintRule"]["example"]
    assert rule.spec.taint.time_added.timestamp() == 30.0 and rule.metadata.generation == 1
    assert rule.status.conditions[0].observed_generation == 1
    evicted = sim.dra.evictions_frame().query("action == 'evict'")
    assert list(evicted.object) == ["default/trainer-b4w6p"] and list(evicted.time) == [30.0]
    # the evicted pod is gone at the end of its grace period; the ReplicaSet's replacement waits
    assert "default/trainer-b4w6p" not in sim.cluster.pods
    pods = result.pods.set_index("pod")
    assert pods.loc["default/trainer-tr7f6", "created"] == 30.0
    assert list(result.pending.pod) == ["default/trainer-tr7f6"]
    assert "cannot allocate all claims" in result.pending.message.iloc[0]


def test_disruption_target_condition():
    sim, until = from_files(SCEN / "device-taint-dry-run-sim.yaml")
    sim.run(until=35)
    pod = sim.cluster.pods["default/trainer-b4w6p"]
    cond = next(c for c in pod.status.conditions if c.type == "DisruptionTarget")
    assert (cond.status, cond.reason, cond.message) == (
        "True", "DeletionByDeviceTaintManager", "Device Taint manager: deleting due to NoExecute taint")
    assert pod.metadata.deletion_timestamp.timestamp() == 60.0  # 30 s grace


def test_toleration_seconds_in_three_namespaces():
    sim, result = run("device-taint-eviction-sim.yaml")
    assert statuses(sim) == [
        (10.0, "gpu-maintenance", "True", "PodsPendingEviction", "3 pods need to be evicted in 3 different namespaces."),
        (20.0, "gpu-maintenance", "True", "PodsPendingEviction",
         "2 pods need to be evicted in 2 different namespaces. 1 pod evicted since starting the controller."),
        (70.0, "gpu-maintenance", "False", "Completed", "4 pods evicted since starting the controller."),
    ]
    ev = sim.dra.evictions_frame()
    assert [(r.time, r.object) for r in ev[ev.action == "evict"].itertuples()] == [
        (10.0, "team-a/trainer-64r9n"), (70.0, "team-b/trainer-cjjcv"), (70.0, "team-c/trainer-54sn9"),
        (70.0, "team-b/trainer-qlgz7")]
    scheduled = ev[ev.action == "evict-scheduled"]
    assert list(scheduled["at"])[:3] == [10.0, 70.0, 70.0]
    pods = result.pods.set_index("pod")
    # the replacements: team-a's at 10 s and team-c's at 70 s on node-2; team-b's first one went
    # to the tolerated (tainted) node-1 and was evicted at once
    assert pods.loc["team-a/trainer-jwflt", "node"] == "node-2"
    assert pods.loc["team-c/trainer-6smmd", "node"] == "node-2"
    assert pods.loc["team-b/trainer-qlgz7", "node"] == "node-1"
    assert pods.loc["team-b/trainer-8jchc", "node"] == "node-2"
    assert result.pending.empty


def _claim(results, tolerations=()):
    return {"metadata": {"name": "c", "namespace": "ns"}, "status": {"allocation": {"devices": {"results": [
        {"driver": "d", "pool": "p", "device": dev, "tolerations": list(tolerations)} for dev in results]}}}}


def _rule(name, effect="NoExecute", added="1970-01-01T00:01:40Z", **selector):
    return _Rule(name, name, 1, {"deviceSelector": selector,
                                 "taint": {"key": "k", "value": "v", "effect": effect, "timeAdded": added}}, None)


@pytest.mark.parametrize("tolerations, when", [
    ((), 100.0),
    (({"key": "k", "operator": "Exists", "effect": "NoExecute"},), None),  # forever
    (({"key": "k", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60},
      {"operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 30}), 130.0),  # the smallest
    (({"key": "k", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": -5},), 100.0),
    (({"key": "k", "operator": "Exists"},), 100.0),  # no effect: does not count for eviction
    (({"key": "k", "value": "other", "effect": "NoExecute"},), 100.0),
])
def test_claim_eviction_time(tolerations, when):
    ev = DeviceTaintEvictionController().claim_eviction(_claim(["gpu-0"], tolerations), {}, [_rule("r", driver="d")], 0)
    assert (ev.when if ev else None) == when


@pytest.mark.parametrize("selector, hit", [
    ({"driver": "d"}, True), ({"driver": "d", "pool": "p", "device": "gpu-0"}, True), ({"pool": "q"}, False),
    ({"device": "gpu-1"}, False), ({}, True)])
def test_rule_selection(selector, hit):
    ev = DeviceTaintEvictionController().claim_eviction(_claim(["gpu-0"]), {}, [_rule("r", **selector)], 0)
    assert (ev is not None) == hit


def test_no_selector_selects_nothing_and_none_effect_never_evicts():
    rule = _Rule("r", "r", 1, {"taint": {"key": "k", "effect": "NoExecute"}}, None)
    assert DeviceTaintEvictionController().claim_eviction(_claim(["gpu-0"]), {}, [rule], 0) is None
    assert DeviceTaintEvictionController().claim_eviction(_claim(["gpu-0"]), {}, [_rule("n", "None", driver="d")],
                                                          0) is None


def test_slice_taints_and_rules_together_earliest_wins():
    pools = {("d", "p"): [{"name": "gpu-0", "taints": [
        {"key": "k", "effect": "NoExecute", "timeAdded": "1970-01-01T00:00:50Z"},
        {"key": "x", "effect": "NoSchedule", "timeAdded": "1970-01-01T00:00:10Z"}]}]}
    ev = DeviceTaintEvictionController().claim_eviction(_claim(["gpu-0"]), pools, [_rule("r", driver="d")], 0)
    assert ev.when == 50.0
    assert [str(r) for r in ev.reasons] == ["DeviceTaintRule r", "ResourceSlice d/p/gpu-0 taint #0"]


NO_SCHEDULE = """
apiVersion: kschedlab.io/v1alpha1
kind: Simulation
metadata: {name: s}
spec:
  until: 40
  events:
  - at: 10
    create:
      apiVersion: resource.k8s.io/v1alpha3
      kind: DeviceTaintRule
      metadata: {name: no-new-pods}
      spec:
        deviceSelector: {driver: dra.example.com}
        taint: {key: maintenance, effect: NoSchedule}
"""


def test_noschedule_rule_only_reports(tmp_path):
    base = (SCEN / "device-taint-dry-run-sim.yaml").read_text()
    cluster = base[:base.index("apiVersion: kschedlab.io/v1alpha1")]
    (tmp_path / "c.yaml").write_text(cluster)
    (tmp_path / "s.yaml").write_text(NO_SCHEDULE)
    sim, until = from_files(tmp_path / "c.yaml", tmp_path / "s.yaml")
    result = sim.run(until=until)
    assert statuses(sim) == [(10.0, "no-new-pods", "False", "OtherEffect",
                              "Eviction only happens for the NoExecute effect.")]
    assert result.pods.node.tolist() == ["node-1"]


def test_cli_json_reports_dra(capsys):
    assert main(["simulate", str(SCEN / "device-taint-dry-run-sim.yaml"), "-o", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [r["rule"] for r in doc["deviceTaintRules"]] == ["example-dry-run", "example"]
    assert doc["deviceTaintRules"][0]["message"] == DRY_RUN


def test_create_event_refuses_kinds_it_cannot_apply(tmp_path):
    (tmp_path / "s.yaml").write_text("""
apiVersion: kschedlab.io/v1alpha1
kind: Simulation
metadata: {name: s}
spec:
  events:
  - at: 1
    create: {apiVersion: v1, kind: Service, metadata: {name: x}}
""")
    with pytest.raises(ManifestError, match=r"spec.events\[0\].create"):
        from_files(tmp_path / "s.yaml")


EDIT = """
apiVersion: kschedlab.io/v1alpha1
kind: Simulation
metadata: {name: s}
spec:
  until: 60
  events:
  - at: 10
    create:
      apiVersion: resource.k8s.io/v1alpha3
      kind: DeviceTaintRule
      metadata: {name: example}
      spec:
        deviceSelector: {driver: dra.example.com}
        taint: {key: dra.example.com/unhealthy, value: Broken, effect: None}
  - at: 30
    create:
      apiVersion: resource.k8s.io/v1alpha3
      kind: DeviceTaintRule
      metadata: {name: example}
      spec:
        deviceSelector: {driver: dra.example.com}
        taint: {key: dra.example.com/unhealthy, value: Broken, effect: NoExecute}
"""


def test_editing_the_dry_run_into_noexecute(tmp_path):
    """The seed's last step: edit the rule and change the effect to NoExecute (same object, new
    generation). An update queues no status work of its own: the pod's eviction queues the pod,
    then the rule, so the rule's first look at the new generation comes after the deletion."""
    base = (SCEN / "device-taint-dry-run-sim.yaml").read_text()
    (tmp_path / "c.yaml").write_text(base[:base.index("apiVersion: kschedlab.io/v1alpha1")])
    (tmp_path / "s.yaml").write_text(EDIT)
    sim, until = from_files(tmp_path / "c.yaml", tmp_path / "s.yaml")
    sim.run(until=until)
    assert statuses(sim) == [
        (10.0, "example", "False", "NoEffect", DRY_RUN),
        (30.0, "example", "False", "Completed", "1 pod evicted since starting the controller."),
    ]
    rule = sim.cluster.objects["DeviceTaintRule"]["example"]
    assert rule.metadata.generation == 2 and rule.status.conditions[0].observed_generation == 2
    assert rule.spec.taint.time_added.timestamp() == 30.0  # the taint changed: added anew


def test_a_replaced_slice_is_read_again_even_at_the_old_address(tmp_path, monkeypatch):
    """The controller skips a sync when nothing changed; a ResourceSlice replaced by a new object
    (here: one with a NoExecute taint) is a change even when the new object took the old one's
    address, as CPython does once the old one is freed. ``id`` made constant in the module plays
    that reuse: a change check by ``id`` would miss the new taint."""
    import kschedlab.dra.devicetainteviction as dte
    from kschedlab.api.loader import load_text

    base = (SCEN / "device-taint-dry-run-sim.yaml").read_text()
    (tmp_path / "c.yaml").write_text(base[:base.index("apiVersion: kschedlab.io/v1alpha1")])
    (tmp_path / "s.yaml").write_text("apiVersion: kschedlab.io/v1alpha1\nkind: Simulation\nmetadata: {name: s}\n"
                                     "spec: {until: 5, events: []}\n")
    sim, until = from_files(tmp_path / "c.yaml", tmp_path / "s.yaml")
    sim.run(until=until)
    (pod_key,) = [k for k, p in sim.cluster.pods.items() if p.spec.node_name == "node-1"]
    monkeypatch.setattr(dte, "id", lambda obj: 0, raising=False)
    controller = DeviceTaintEvictionController()
    controller.sync(sim.cluster, 5.0)
    assert controller.delete_pod_at == {}
    tainted = base.replace("devices: [{name: gpu-0}, {name: gpu-1}, {name: gpu-2}]",
                           "devices: [{name: gpu-0, taints: [{key: k, effect: NoExecute}]}, {name: gpu-1, taints: "
                           "[{key: k, effect: NoExecute}]}, {name: gpu-2, taints: [{key: k, effect: NoExecute}]}]")
    (new_slice,) = [o for o in load_text(tainted[:tainted.index("apiVersion: kschedlab.io/v1alpha1")])
                    if o.kind == "ResourceSlice"]
    sim.cluster.objects["ResourceSlice"]["node-1-gpus"] = new_slice
    controller.sync(sim.cluster, 6.0)
    assert list(controller.delete_pod_at) == [pod_key]
