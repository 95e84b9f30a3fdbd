"""The kschedlab command: output shapes, exit codes, error messages."""

from __future__ import annotations

import json

import pytest

from kschedlab.cli import main

GATED = """\
apiVersion: kschedlab.io/v1alpha1
kind: Simulation
metadata: {name: numeric-tolerations}
spec:
  featureGates: {TaintTolerationComparisonOperators: true}
---
apiVersion: v1
kind: Node
metadata: {name: node1}
spec:
  taints: [{key: sla, value: "950", effect: NoSchedule}]
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  tolerations: [{key: sla, operator: Gt, value: "900", effect: NoSchedule}]
  containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m}}}]
"""


def test_demo_prints_explanations_and_writes_a_report(tmp_path, capsys):
    report = tmp_path / "r.html"
    assert main(["demo", "--report", str(report)]) == 0
    out = capsys.readouterr().out
    assert "default/trainer-0  gpu-b3" in out
    assert "0/5 nodes are available:" in out
    assert report.read_text().startswith("<!DOCTYPE html>")


def test_schedule_json_keeps_its_shape(tmp_path, capsys):
    f = tmp_path / "s.yaml"
    f.write_text(GATED)
    assert main(["schedule", str(f), "-o", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    (pod,) = doc["pods"]
    assert set(pod) == {"name", "node", "status", "message", "filter", "scores"}
    assert (pod["name"], pod["node"], pod["status"]) == ("default/p", "node1", "Success")
    assert pod["filter"] == {"node1": {"code": "Success", "plugin": None, "reasons": []}}


def test_feature_gates_flag_overrides_the_scenario(tmp_path, capsys):
    f = tmp_path / "s.yaml"
    f.write_text(GATED)
    assert main(["schedule", str(f), "-o", "json", "--feature-gates",
                 "TaintTolerationComparisonOperators=false"]) == 0
    (pod,) = json.loads(capsys.readouterr().out)["pods"]
    assert pod["node"] is None
    assert pod["filter"]["node1"] == {"code": "UnschedulableAndUnresolvable", "plugin": "TaintToleration",
                                      "reasons": ["node(s) had untolerated taint(s)"]}


@pytest.mark.parametrize(("text", "message"), [
    ("apiVersion: v1\nkind: Pod\nmetadata: {name: web-0}\nspec: {containers: [{name: c, resources: "
     "{requests: {cpu: 1.5.0}}}]}\n",
     'bad.yaml: Pod default/web-0: spec.containers[0].resources.requests.cpu: invalid quantity "1.5.0"'),
    ("apiVersion: v1\nkind: Pod\nmetadata: {name: web-0}\nspec: {containers: [{name: c, resource: {}}]}\n",
     'bad.yaml: Pod default/web-0: spec.containers[0].resource: unknown field "resource"'),
])
def test_bad_input_names_file_object_and_field(tmp_path, capsys, text, message):
    f = tmp_path / "bad.yaml"
    f.write_text(text)
    assert main(["schedule", str(f)]) == 2
    err = capsys.readouterr().err
    assert message in err.replace(str(tmp_path) + "/", "")


def test_unknown_feature_gate_is_refused(tmp_path, capsys):
    f = tmp_path / "s.yaml"
    f.write_text(GATED)
    assert main(["schedule", str(f), "--feature-gates", "NoSuchGate=true"]) == 2
    assert "unrecognized feature gate: NoSuchGate" in capsys.readouterr().err


def test_conformance_closes_with_the_count_line(capsys):
    assert main(["conformance", "tests/conformance/nodename"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "7 passed, 0 failed, 0 expected failures"


def test_bench_reports_json(capsys):
    assert main(["bench", "SchedulingBasic", "--nodes", "30", "--init-pods", "10", "--pods", "40",
                 "-o", "json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert {"pods_per_second", "peak_rss_mb", "nodes", "pods"} <= set(result)
    assert (result["nodes"], result["pods"], result["scheduled"]) == (30, 40, 40)


def test_schedule_pod_groups_with_the_podgroup_cycle(capsys):
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "datasets" / "podgroup" / "two-training-jobs.yaml"
    assert main(["schedule", str(path), "--feature-gates", "GenericWorkload=true", "-o", "json"]) == 0
    pods = {p["name"]: (p["node"], p["message"]) for p in json.loads(capsys.readouterr().out)["pods"]}
    assert sorted(pods[f"ml/train-a-{i}"][0] for i in range(4)) == ["node-0", "node-1", "node-2", "node-3"]
    assert pods["ml/train-b-0"] == (None, "0/4 nodes are available: 4 Insufficient cpu.")
    assert {pods[f"ml/train-b-{i}"] for i in (1, 2, 3)} == {
        (None, "minCount (4) cannot be satisfied: 0 scheduled, 3 remaining")}


def test_pod_groups_are_not_served_without_the_gate(capsys):
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "datasets" / "podgroup" / "two-training-jobs.yaml"
    assert main(["schedule", str(path)]) == 2
    assert ('two-training-jobs.yaml: PodGroup ml/train-a: no matches for kind "PodGroup" in version '
            '"scheduling.k8s.io/v1beta1" (served only with the feature gate(s) GenericWorkload enabled)'
            in capsys.readouterr().err)
