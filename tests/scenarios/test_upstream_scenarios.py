"""Upstream's integration and e2e scheduling tests as scenarios, run through ``kschedlab``'s CLI.

Each ``upstream/**/*.yaml`` file is one upstream test row: its first YAML document is the
scenario (below), the rest are the manifests. The manifests go through ``kschedlab schedule
-o json`` (or ``simulate -o json``) exactly as a user runs them, and the JSON is checked:

.. code-block:: yaml

    scenario:
      source: "kubernetes/kubernetes <path>@<commit> :: <TestFunc> :: <row name>"
      command: schedule            # or simulate; default schedule
      args: [--feature-gates, X=true]   # extra CLI arguments
      expect:
        placed: {ns/pod: [node, ...]}     # bound, on one of these nodes
        pending: [ns/pod]                 # not bound at the end
        victims: {ns/preemptor: [ns/victim, ...]}   # exactly these, any order
        victimCount: {ns/preemptor: N}    # when upstream only counts them
        messages: {ns/pod: [fragment, ...]}         # each in the pod's last failure message
        claims: {ns/claim: ["driver/pool/* (request)", ...]}   # the allocation, in order (fnmatch)
        boundAfter: {ns/pod: seconds}     # simulate: bound, and not before this virtual time
        notPreempted: [ns/pod]            # still running (no one's victim)
      xfail: "why kschedlab does not pass it yet"  # strict: it must fail

Upstream's waits ("the pod is scheduled", "the pod is unschedulable") are the end of the run:
``schedule`` retries until nothing can change, as upstream's scheduler would within its timeout.
Where the order in time matters (a pod created later, a taint removed), the manifests hold a
``Simulation`` and ``simulate`` runs it: its pods' rows and pending list are read the same way.
"""
from __future__ import annotations

import fnmatch
import json
from pathlib import Path

import pytest
import yaml

from kschedlab.cli import main

HERE = Path(__file__).parent / "upstream"
FILES = sorted(HERE.rglob("*.yaml"))


def load(path: Path) -> tuple[dict, str]:
    """The scenario header and the manifests' text."""
    text = path.read_text()
    head, _, manifests = text.partition("\n---\n")
    spec = yaml.safe_load(head)["scenario"]
    return spec, manifests


def run(spec: dict, manifests: str, tmp_path: Path, capsys) -> dict:
    file = tmp_path / "manifests.yaml"
    file.write_text(manifests)
    command = spec.get("command", "schedule")
    code = main([command, str(file), "-o", "json", *spec.get("args", [])])
    out = capsys.readouterr().out
    assert code == 0, out
    return json.loads(out)


def simulated(doc: dict) -> dict:
    """``simulate -o json`` in the shape of ``schedule -o json``: each pod's node once bound, its
    STATUS (Pending while in the pending list), and when it was bound."""
    pending = {p["pod"]: p for p in doc["pending"]}
    pods = []
    for row in doc["pods"]:
        status = "Pending" if row["pod"] in pending else "Terminating" if row["preempted"] is not None else "Running"
        pods.append({"name": row["pod"], "node": row["node"] if row["bound"] is not None else None,
                     "podStatus": status, "bound": row["bound"],
                     "lastFailureMessage": (pending.get(row["pod"]) or {}).get("message")})
    return {"pods": pods}


def check(spec: dict, doc: dict) -> list[str]:
    """Every way the run differs from ``spec['expect']``."""
    expect = spec["expect"]
    if spec.get("command") == "simulate":
        doc = simulated(doc)
    pods = {p["name"]: p for p in doc["pods"]}
    diffs = []
    for name, after in expect.get("boundAfter", {}).items():
        bound = pods.get(name, {}).get("bound")
        if bound is None or bound < after:
            diffs.append(f"{name}: expected bound at or after {after}s, got {bound}")
    for name, nodes in expect.get("placed", {}).items():
        got = pods.get(name, {}).get("node")
        status = pods.get(name, {}).get("podStatus")
        if got not in nodes or status != "Running":
            diffs.append(f"{name}: expected Running on one of {nodes}, got {status} on {got}")
    for name in expect.get("pending", []):
        if pods.get(name, {}).get("podStatus") != "Pending":
            diffs.append(f"{name}: expected Pending, got {pods.get(name, {}).get('podStatus')}"
                         f" on {pods.get(name, {}).get('node')}")
    for name, victims in expect.get("victims", {}).items():
        got = sorted(v["name"] for v in pods.get(name, {}).get("victims", []))
        if got != sorted(victims):
            diffs.append(f"{name}: expected victims {sorted(victims)}, got {got}")
    for name, count in expect.get("victimCount", {}).items():
        got = len(pods.get(name, {}).get("victims", []))
        if got != count:
            diffs.append(f"{name}: expected {count} victims, got {got}")
    preempted = {v["name"] for p in doc["pods"] for v in p.get("victims", [])}
    for name in expect.get("notPreempted", []):  # bound before the run: listed only if the run touched it
        if name in preempted or pods.get(name, {}).get("podStatus", "Running") != "Running":
            diffs.append(f"{name}: expected still Running, got {pods.get(name, {}).get('podStatus')}")
    claims = {c["claim"]: c["devices"] for c in doc.get("resourceClaims", [])}
    for name, devices in expect.get("claims", {}).items():
        got = claims.get(name) or []
        if len(got) != len(devices) or not all(fnmatch.fnmatchcase(g, d) for g, d in zip(got, devices)):
            diffs.append(f"{name}: expected allocation {devices}, got {claims.get(name)}")
    for name, fragments in expect.get("messages", {}).items():
        message = pods.get(name, {}).get("lastFailureMessage") or ""
        diffs += [f"{name}: {f!r} not in {message!r}" for f in fragments if f not in message]
    return diffs


def _param(path: Path):
    spec, _ = load(path)
    marks = [pytest.mark.xfail(reason=spec["xfail"], strict=True)] if spec.get("xfail") else []
    return pytest.param(path, id=str(path.relative_to(HERE).with_suffix("")), marks=marks)


def test_every_scenario_cites_its_source():
    assert len(FILES) >= 30
    for path in FILES:
        spec, manifests = load(path)
        assert spec["source"].startswith("kubernetes/kubernetes test/"), path
        assert " :: " in spec["source"] and spec["expect"] and manifests.strip(), path


@pytest.mark.parametrize("path", [_param(p) for p in FILES])
def test_upstream_scenario(path, tmp_path, capsys):
    spec, manifests = load(path)
    diffs = check(spec, run(spec, manifests, tmp_path, capsys))
    assert not diffs, "\n".join(diffs)
