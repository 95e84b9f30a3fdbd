"""Storage objects created by Simulation events reach the scheduling queue as cluster events."""

import json

import pytest

from kschedlab.cli import main

NODE = """\
apiVersion: v1
kind: Node
metadata: {name: node-1, labels: {kubernetes.io/hostname: node-1}}
status: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}
"""
POD = """\
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default}
spec:
  containers: [{name: c, image: nginx}]
  volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]
"""
CLAIM = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data", "namespace": "default"},
         "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "local",
                  "resources": {"requests": {"storage": "1Gi"}}}}
VOLUME = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv-1"},
          "spec": {"capacity": {"storage": "5Gi"}, "accessModes": ["ReadWriteOnce"], "storageClassName": "local",
                   "hostPath": {"path": "/data"}},
          "status": {"phase": "Available"}}


def run(tmp_path, capsys, events: list, *objects: str) -> dict:
    sim = {"apiVersion": "kschedlab.io/v1alpha1", "kind": "Simulation", "metadata": {"name": "s"},
           "spec": {"until": 200, "events": events}}
    path = tmp_path / "scenario.yaml"
    path.write_text("---\n".join([NODE, POD, *objects, json.dumps(sim) + "\n"]))
    assert main(["simulate", str(path), "-o", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    return {p["pod"]: p for p in out["pods"]}


def test_missing_claim_created_later(tmp_path, capsys):
    pods = run(tmp_path, capsys, [{"at": 60, "create": CLAIM}], json.dumps(VOLUME) + "\n")
    assert pods["default/web"]["scheduled"] == 60.0


def test_volume_created_later_binds_the_immediate_claim(tmp_path, capsys):
    pods = run(tmp_path, capsys, [{"at": 30, "create": VOLUME}], json.dumps(CLAIM) + "\n")
    assert pods["default/web"]["scheduled"] == 30.0


@pytest.mark.parametrize("events", [[], [{"at": 60, "create": {**CLAIM, "metadata": {"name": "other",
                                                                                     "namespace": "default"}}}]])
def test_without_the_claim_the_pod_stays_pending(tmp_path, capsys, events):
    pods = run(tmp_path, capsys, events, json.dumps(VOLUME) + "\n")
    assert pods["default/web"]["scheduled"] is None
