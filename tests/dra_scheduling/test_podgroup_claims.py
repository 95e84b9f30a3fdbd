"""PodGroup spec.resourceClaims (DRAWorkloadResourceClaims; seed podgroup-api): one claim for the
group, made once from a template, reserved for the PodGroup and shared by its pods."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from kschedlab.api import admit, load
from kschedlab.api.podgroup import PodGroup
from kschedlab.cli import main
from kschedlab.dra.manager import dra_manager
from kschedlab.dra.podgroup_claims import ensure_group_claim, pod_group_deleted
from kschedlab.sim.scenario import from_files

DATA = Path(__file__).resolve().parents[2] / "datasets"
CLUSTER = DATA / "dra-scheduling" / "podgroup-claims-cluster.yaml"
GROUP_REF = {"apiGroup": "scheduling.k8s.io", "resource": "podgroups", "name": "training-group"}


def run(path):
    sim, until = from_files(path)
    return sim, sim.run(until=until)


def claims(sim) -> dict:
    return {c["metadata"]["name"]: c for c in dra_manager(sim.cluster).list_claims()}


def test_one_claim_for_the_group_reserved_for_the_group():
    sim, result = run(CLUSTER)
    pods = result.pods.set_index("pod")
    assert set(pods.node) == {"worker-2"} and pods.bound.notna().all()
    by_name = claims(sim)
    assert sorted(by_name) == ["my-pg-claim", "training-group-pg-claim-template-84h8d"]
    group = sim.cluster.objects["PodGroup"]["some-ns/training-group"]
    assert [(s.name, s.resource_claim_name) for s in group.status.resource_claim_statuses] == [
        ("pg-claim-template", "training-group-pg-claim-template-84h8d")]
    nic = by_name["training-group-pg-claim-template-84h8d"]
    assert [(r["kind"], r["name"], r["controller"]) for r in nic["metadata"]["ownerReferences"]] == [
        ("PodGroup", "training-group", True)]
    for claim in by_name.values():  # one consumer: the group, whatever the number of pods
        assert [{k: r[k] for k in GROUP_REF} for r in claim["status"]["reservedFor"]] == [GROUP_REF]
        assert claim["status"]["reservedFor"][0]["uid"] == group.metadata.uid
    assert [r["device"] for r in by_name["my-pg-claim"]["status"]["allocation"]["devices"]["results"]] == ["gpu-0"]
    for key in ("some-ns/trainer-0", "some-ns/trainer-1"):
        statuses = sim.cluster.pods[key].status.resource_claim_statuses
        assert [(s.name, s.resource_claim_name) for s in statuses] == [
            ("pg-claim-template", "training-group-pg-claim-template-84h8d")]


def test_gate_off_each_pod_gets_its_own_claim_and_the_gang_waits(tmp_path):
    docs = list(yaml.safe_load_all(CLUSTER.read_text()))
    docs[0]["spec"]["featureGates"] = {"GenericWorkload": True}
    (tmp_path / "off.yaml").write_text(yaml.safe_dump_all(docs))
    sim, result = run(tmp_path / "off.yaml")
    assert sim.cluster.objects["PodGroup"]["some-ns/training-group"].spec.resource_claims == []  # dropped
    assert sorted(claims(sim)) == ["my-pg-claim", "trainer-0-pg-claim-template-z6m2k",
                                   "trainer-1-pg-claim-template-d8pmn"]
    assert result.pods.bound.isna().all()
    messages = set(result.pending.message)
    assert "0/2 nodes are available: resource claim some-ns/my-pg-claim is in the process of being allocated." \
        in messages


def test_cli_schedule_lists_the_group_as_consumer(capsys):
    assert main(["schedule", str(CLUSTER), "-o", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert {p["name"]: p["node"] for p in doc["pods"]} == {"some-ns/trainer-0": "worker-2",
                                                          "some-ns/trainer-1": "worker-2"}
    assert {c["claim"]: c["reservedFor"] for c in doc["resourceClaims"]} == {
        "some-ns/my-pg-claim": ["training-group"],
        "some-ns/training-group-pg-claim-template-84h8d": ["training-group"]}


def test_pod_entry_must_match_exactly(tmp_path):
    docs = list(yaml.safe_load_all(CLUSTER.read_text()))
    pod = docs[-1]
    pod["spec"]["resourceClaims"][1]["name"] = "nic"  # same template, another name: the pod's own claim
    pod["spec"]["containers"][0]["resources"]["claims"][1]["name"] = "nic"
    (tmp_path / "c.yaml").write_text(yaml.safe_dump_all(docs))
    sim, _ = run(tmp_path / "c.yaml")
    assert sorted(claims(sim)) == ["my-pg-claim", "trainer-1-nic-psbrd", "training-group-pg-claim-template-84h8d"]


def test_seed_manifest_claims_dropped_without_the_gate():
    seed = DATA / "dra" / "podgroup-resource-claims.yaml"
    on = admit(load([seed]), feature_gates={"GenericWorkload": True, "DRAWorkloadResourceClaims": True})
    off = admit(load([seed]), feature_gates={"GenericWorkload": True})
    group_on, group_off = (next(o for o in objs if isinstance(o, PodGroup)) for objs in (on, off))
    assert [c.name for c in group_on.spec.resource_claims] == ["pg-claim", "pg-claim-template"]
    assert group_off.spec.resource_claims == []


def test_missing_template_and_group_deletion():
    sim, _ = run(CLUSTER)
    group = sim.cluster.objects["PodGroup"]["some-ns/training-group"]
    other = group.spec.resource_claims[1].model_copy(update={"name": "x", "resource_claim_template_name": "nope"})
    assert ensure_group_claim(sim.cluster, group, other) == (
        None, 'resource claim template "nope": resourceclaimtemplate.resource.k8s.io "nope" not found')
    pod_group_deleted(sim.cluster, group)
    assert sorted(claims(sim)) == ["my-pg-claim"]  # the group's template claim goes with it


def test_group_claims_pods_are_evicted_by_a_noexecute_rule(tmp_path):
    docs = list(yaml.safe_load_all(CLUSTER.read_text()))
    docs[0]["spec"].update({"until": 30, "events": [{"at": 10, "create": {
        "apiVersion": "resource.k8s.io/v1alpha3", "kind": "DeviceTaintRule", "metadata": {"name": "gpus-broken"},
        "spec": {"deviceSelector": {"driver": "gpu.example.com"},
                 "taint": {"key": "broken", "effect": "NoExecute"}}}}]})
    (tmp_path / "taint.yaml").write_text(yaml.safe_dump_all(docs))
    sim, _ = run(tmp_path / "taint.yaml")
    ev = sim.dra.evictions_frame()
    assert [(r.time, r.object) for r in ev[ev.action == "evict"].itertuples()] == [
        (10.0, "some-ns/trainer-0"), (10.0, "some-ns/trainer-1")]
    assert ev[ev.action == "rule-status"].message.tolist()[0] == "2 pods need to be evicted in 1 namespace."
