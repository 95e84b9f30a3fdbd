"""Storage objects created by Simulation events reach the scheduling queue as cluster events."""

import json
import textwrap
from pathlib import Path

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


# -- provisioners on the clock, VolumeBinding's PreBind wait -------------------------------------------
SIM = Path(__file__).parents[2] / "datasets" / "sim"


def test_slow_provisioner_scenario(capsys):
    assert main(["simulate", str(SIM / "slow-provisioner.yaml"), "-o", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    pods = {p["pod"]: p for p in out["pods"]}
    assert (pods["default/web-fast"]["bound"], pods["default/web-fast"]["attempts"]) == (30.0, 1)
    assert (pods["default/web-slow"]["bound"], pods["default/web-slow"]["attempts"]) == (700.0, 2)
    waits = [(w["time"], w["pod"], w["event"], w["message"]) for w in out["volumeBindingWaits"]]
    assert (600.0, "default/web-slow", "Failed",
            'running PreBind plugin "VolumeBinding": binding volumes: context deadline exceeded') in waits
    assert (30.0, "default/web-fast", "Bound", "") in waits


def test_schedule_keeps_the_instant_provisioner(capsys):
    assert main(["schedule", str(SIM / "slow-provisioner.yaml"), "-o", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [(p["name"], p["node"], p["attempts"]) for p in out["pods"]] == [
        ("default/web-fast", "node-1", 1), ("default/web-slow", "node-1", 1)]


WFFC_CLASS = """\
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: local}
provisioner: disk.example.com
volumeBindingMode: WaitForFirstConsumer
"""


def provisioned(tmp_path, capsys, provisioner: dict, *extra: str) -> dict:
    sim = {"apiVersion": "kschedlab.io/v1alpha1", "kind": "Simulation", "metadata": {"name": "s"},
           "spec": {"until": 100, "storage": {"provisioners": {"disk.example.com": provisioner}}}}
    path = tmp_path / "scenario.yaml"
    path.write_text("---\n".join([NODE, POD, WFFC_CLASS, json.dumps(CLAIM) + "\n", *extra, json.dumps(sim) + "\n"]))
    assert main(["simulate", str(path), "-o", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_bind_timeout_seconds_from_the_configuration(tmp_path, capsys):
    config = textwrap.dedent("""\
        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          pluginConfig:
          - name: VolumeBinding
            args: {bindTimeoutSeconds: 10}
        """)
    out = provisioned(tmp_path, capsys, {"delaySeconds": 25}, config)
    failed = [w["time"] for w in out["volumeBindingWaits"] if w["event"] == "Failed"]
    assert failed == [10.0, 22.0]  # 10 s after each wait began; the retry began at 12 s
    assert (out["pods"][0]["bound"], out["pods"][0]["attempts"]) == (25.0, 3)


def test_failing_provisioner(tmp_path, capsys):
    out = provisioned(tmp_path, capsys, {"delaySeconds": 5, "fail": True})
    failed = [(w["time"], w["message"]) for w in out["volumeBindingWaits"] if w["event"] == "Failed"]
    assert failed[0] == (5.0, 'running PreBind plugin "VolumeBinding": binding volumes: provisioning failed '
                              'for PVC "data"')
    assert out["pods"][0]["bound"] is None
    assert out["pending"][0]["message"] == failed[0][1]


def test_provisioner_timing_is_validated(tmp_path, capsys):
    path = tmp_path / "scenario.yaml"
    sim = {"apiVersion": "kschedlab.io/v1alpha1", "kind": "Simulation", "metadata": {"name": "s"},
           "spec": {"storage": {"provisioners": {"disk.example.com": {"delaySeconds": -1}}}}}
    path.write_text("---\n".join([NODE, json.dumps(sim) + "\n"]))
    assert main(["simulate", str(path)]) != 0
    assert "spec.storage.provisioners[disk.example.com].delaySeconds: Invalid value: -1.0" in capsys.readouterr().err
