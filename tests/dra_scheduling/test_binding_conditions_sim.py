"""Binding conditions on the simulation clock (seed section 8): PreBind waits, asking the claim
every 5 s, until the conditions are True, a failure condition is True, or bindingTimeout."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from kschedlab.api.errors import ManifestError
from kschedlab.sim.scenario import from_files

DATA = Path(__file__).resolve().parents[2] / "datasets"
SEED = DATA / "dra" / "08-binding-conditions.yaml"
SCENARIO = DATA / "dra-scheduling" / "binding-conditions-sim.yaml"
READY = {"type": "dra.example.com/is-prepared", "status": "True", "reason": "Prepared", "message": "attached"}
FAILED = {"type": "dra.example.com/preparing-failed", "status": "True", "reason": "FabricError",
          "message": "no free port"}


def scenario(tmp_path, events, *, seed_config: bool = True, until: float = 200):
    docs = list(yaml.safe_load_all(SCENARIO.read_text()))
    docs[-1]["spec"] = {"until": until, "events": [docs[-1]["spec"]["events"][0], *events]}
    (tmp_path / "s.yaml").write_text(yaml.safe_dump_all(docs))
    seed = list(yaml.safe_load_all(SEED.read_text()))
    if not seed_config:
        seed = [d for d in seed if d["kind"] != "KubeSchedulerConfiguration"]
    (tmp_path / "seed.yaml").write_text(yaml.safe_dump_all(seed))
    sim, until = from_files(tmp_path / "seed.yaml", tmp_path / "s.yaml")
    return sim, sim.run(until=until)


def waits(sim) -> list[tuple]:
    return [(r.time, r.pod, r.event, r.message) for r in sim.dra.binding_frame().itertuples()]


def test_seed_scenario_bound_at_the_poll_after_the_driver():
    sim, until = from_files(SEED, SCENARIO)
    result = sim.run(until=until)
    assert waits(sim) == [
        (0.0, "default/fabric-user", "BindingConditionsPending",
         "waiting for binding conditions for device on node node-3"),
        (35.0, "default/fabric-user", "Bound", "")]
    pods = result.pods.set_index("pod")
    assert (pods.loc["default/fabric-user", "bound"], pods.loc["default/fabric-user", "node"]) == (35.0, "node-3")
    claim = sim.cluster.objects["ResourceClaim"][
        f"default/{sim.cluster.pods['default/fabric-user'].status.resource_claim_statuses[0].resource_claim_name}"]
    assert claim.status.allocation.node_selector.node_selector_terms[0].match_fields[0].values == ["node-3"]
    assert claim.status.devices[0].conditions[0].type == "dra.example.com/is-prepared"
    assert list(result.pending.pod) == ["default/early-bird"]


# the driver's write at a poll's time is seen by that poll; one written before the pod is
# allocated (at 0 s, with the pod's creation) finds no allocation and changes nothing. Ready at
# 59 s is too late: at 60 s the wait times out; the retry 2 s later finds the claim ready (not
# timed out, as its conditions hold) and binds at once
@pytest.mark.parametrize("at, bound", [(30, 30.0), (31, 35.0), (5, 5.0), (59, 62.0)])
def test_polls_every_five_seconds(tmp_path, at, bound):
    sim, result = scenario(tmp_path, [{"at": at, "setDeviceConditions": {"pod": "default/fabric-user",
                                                                          "conditions": [READY]}}])
    assert result.pods.set_index("pod").loc["default/fabric-user", "bound"] == bound


def test_timeout_after_binding_timeout_then_deallocated(tmp_path):
    sim, result = scenario(tmp_path, [], until=70)
    assert waits(sim) == [
        (0.0, "default/fabric-user", "BindingConditionsPending",
         "waiting for binding conditions for device on node node-3"),
        (60.0, "default/fabric-user", "Failed", 'running PreBind plugin "DynamicResources": device binding timeout'),
        # after a 2 s backoff the claim is found timed out, PostFilter deallocates it, and the
        # claim update brings the pod back at once: allocated anew, waiting again
        (62.0, "default/fabric-user", "BindingConditionsPending",
         "waiting for binding conditions for device on node node-3")]
    moves = result.moves[result.moves.pod == "default/fabric-user"]
    assert list(moves.event)[-3:] == ["ScheduleAttemptFailure", "resource.k8s.io/ResourceClaimUpdate",
                                      "PopFromBackoffQ"]
    claim = next(iter(sim.cluster.objects["ResourceClaim"].values()))
    assert claim.status.allocation.allocation_timestamp.timestamp() == 62.0


def test_default_binding_timeout_is_600s(tmp_path):
    sim, result = scenario(tmp_path, [], seed_config=False, until=700)
    assert waits(sim)[1][:3] == (600.0, "default/fabric-user", "Failed")


def test_failure_condition_aborts_and_the_pod_is_retried(tmp_path):
    sim, result = scenario(tmp_path, [
        {"at": 20, "setDeviceConditions": {"pod": "default/fabric-user", "conditions": [FAILED]}},
        {"at": 50, "setDeviceConditions": {"pod": "default/fabric-user", "podClaim": "gpu", "conditions": [READY]}}])
    rows = waits(sim)
    assert rows[1][0] == 20.0 and rows[1][2] == "Failed"  # the poll at 20 s sees the write of 20 s
    assert rows[1][3].startswith('running PreBind plugin "DynamicResources": claim fabric-user-gpu-')
    assert rows[1][3].endswith(' binding failed: reason=FabricError, message="no free port"')
    # backoff 2 s, PostFilter deallocates (status.devices cleared too), the claim update requeues,
    # allocated again at 22 s; polls at 27 ... 52 s, the driver reports ready at 50 s
    assert rows[2][:3] == (22.0, "default/fabric-user", "BindingConditionsPending")
    assert rows[3][:3] == (52.0, "default/fabric-user", "Bound")


def test_bad_set_device_conditions_is_refused(tmp_path):
    (tmp_path / "s.yaml").write_text("""
apiVersion: kschedlab.io/v1alpha1
kind: Simulation
metadata: {name: s}
spec:
  events:
  - at: 1
    setDeviceConditions: {pod: default/p, conditions: [{type: x, status: Yes}]}
""")
    with pytest.raises(ManifestError, match=r"conditions\[0\]: needs a type and a status True, False or Unknown"):
        from_files(tmp_path / "s.yaml")


def test_scheduled_is_the_cycle_that_led_to_binding(tmp_path):
    sim, result = scenario(tmp_path, [
        {"at": 20, "setDeviceConditions": {"pod": "default/fabric-user", "conditions": [FAILED]}},
        {"at": 50, "setDeviceConditions": {"pod": "default/fabric-user", "conditions": [READY]}}])
    row = result.pods.set_index("pod").loc["default/fabric-user"]
    assert (row.scheduled, row.bound, row.attempts) == (22.0, 52.0, 3)
