"""Seed section 8 end to end: manifests through ``kschedlab schedule`` allocate devices and show them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kschedlab.cli import main

ROOT = Path(__file__).resolve().parents[2] / "datasets"
SEED = ROOT / "dra"
SCEN = ROOT / "dra-scheduling"

NOT_ALLOCATABLE = ("0/1 nodes are available: 1 cannot allocate all claims. still not schedulable, preemption: "
                   "0/1 nodes are available: 1 Preemption is not helpful for scheduling.")


def schedule(capsys, *paths) -> dict:
    assert main(["schedule", *map(str, paths), "-o", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def by_pod(doc) -> dict:
    return {p["name"]: p for p in doc["pods"]}


def claims(doc) -> dict:
    return {c["claim"]: c for c in doc["resourceClaims"]}


def test_prioritized_list_prefers_first_subrequest(capsys):
    doc = schedule(capsys, SEED / "08-prioritized-list.yaml", SCEN / "prioritized-list-cluster.yaml")
    pods = by_pod(doc)
    assert pods["default/first"]["node"] == "node-black"
    assert pods["default/second"]["node"] == "node-white"
    got = claims(doc)
    first = next(c for k, c in got.items() if k.startswith("default/first-dev-"))
    second = next(c for k, c in got.items() if k.startswith("default/second-dev-"))
    assert first["devices"] == ["resource-driver.example.com/node-black/large-black (req-0/large-black)"]
    assert sorted(second["devices"]) == [
        "resource-driver.example.com/node-white/small-white-0 (req-0/small-white)",
        "resource-driver.example.com/node-white/small-white-1 (req-0/small-white)"]
    assert first["reservedFor"] == ["first"] and second["reservedFor"] == ["second"]


def test_cats_one_device_two_pods(capsys):
    doc = schedule(capsys, SEED / "08-pod-with-cats.yaml", SEED / "08-cat-slice.yaml", SCEN / "cats-cluster.yaml")
    pods = by_pod(doc)
    assert pods["default/pod-with-cats"]["node"] == "node-with-cats"
    assert pods["default/pod-with-cats-2"]["node"] is None
    assert pods["default/pod-with-cats-2"]["message"] == NOT_ALLOCATABLE
    got = claims(doc)
    # <pod>-<pod claim name>-<5 characters>, the suffix from the seeded generator
    assert got["default/pod-with-cats-cat-69szq"]["devices"] == [
        "resource-driver.example.com/black-cat-pool/large-black-cat (req-0)"]


def test_extended_resource_backed_by_dra(capsys):
    doc = schedule(capsys, SEED / "08-extended-resource-class.yaml", SCEN / "extended-resource-cluster.yaml")
    pods = by_pod(doc)
    assert pods["default/trainer"]["node"] == "gpu-node"
    assert pods["default/late"]["message"] == NOT_ALLOCATABLE
    (name, claim), = claims(doc).items()
    assert name.startswith("default/trainer-extended-resources-")
    assert sorted(claim["devices"]) == ["gpu.example.com/gpu-node/gpu-0 (container-0-request-0)",
                                        "gpu.example.com/gpu-node/gpu-1 (container-0-request-0)"]


def test_partitionable_devices_share_counters(capsys):
    doc = schedule(capsys, SEED / "08-partitionable-counters.yaml", SCEN / "partitionable-cluster.yaml")
    pods = by_pod(doc)
    assert pods["default/part-a"]["node"] == "worker-1"
    assert pods["default/part-b"]["message"] == NOT_ALLOCATABLE


def test_binding_conditions_never_met(capsys):
    doc = schedule(capsys, SEED / "08-binding-conditions.yaml", SCEN / "binding-conditions-cluster.yaml")
    pod = by_pod(doc)["default/fabric-user"]
    assert pod["node"] is None
    assert pod["message"] == 'running PreBind plugin "DynamicResources": device binding timeout'
    claim = claims(doc)["default/fabric-gpu"]
    assert claim["allocated"] and claim["reservedFor"] == []  # Unreserve dropped the pod, kept the allocation


def test_missing_claims_say_why(capsys):
    assert main(["schedule", str(SCEN / "missing-claims.yaml")]) == 0
    out, err = capsys.readouterr()
    assert 'resourceclaim.resource.k8s.io "no-such-claim" not found' in out
    assert 'pod "default/names-missing-template": ResourceClaim not created yet' in out
    assert ('resource claim template "no-such-template": resourceclaimtemplate.resource.k8s.io '
            '"no-such-template" not found') in err


@pytest.mark.parametrize("path", sorted(SCEN.glob("*.yaml")))
def test_every_scenario_is_described(path):
    readme = (SCEN / "README.md").read_text()
    assert path.name in readme


def test_simulation_frees_the_gpu_when_the_first_job_ends(capsys):
    assert main(["simulate", str(SCEN / "gpu-waits-sim.yaml")]) == 0
    rows = {line.split()[0]: line.split() for line in capsys.readouterr().out.splitlines()
            if line.strip().startswith("default/")}
    # pod created first_attempt scheduled bound node finished preempted attempts
    assert rows["default/gpu-job-0"][1:8] == ["0.0", "0.0", "0.0", "0.0", "gpu-node", "20.0", "-"]
    assert rows["default/gpu-job-1"][1:9] == ["1.0", "1.0", "20.0", "20.0", "gpu-node", "40.0", "-", "2"]
