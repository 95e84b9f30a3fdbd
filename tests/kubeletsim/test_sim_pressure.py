"""Node-pressure eviction on the simulation clock (kschedlab.sim.kubelet)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from kschedlab.api.errors import ManifestError
from kschedlab.sim.kubelet import report_text
from kschedlab.sim.scenario import from_files

ROOT = Path(__file__).resolve().parents[2]
DATASET = ROOT / "datasets" / "kubelet" / "sim-memory-pressure.yaml"


@pytest.fixture(scope="module")
def memory_run():
    sim, until = from_files(DATASET)
    result = sim.run(until=until)
    return sim, result


def test_dataset_condition_taint_eviction_replacement(memory_run):
    sim, result = memory_run
    k = sim.kubelet
    assert k.conditions == [
        {"time": 60.0, "node": "node-a", "condition": "MemoryPressure", "status": "True",
         "taintsAdded": ["node.kubernetes.io/memory-pressure:NoSchedule"], "taintsRemoved": []},
        {"time": 361.0, "node": "node-a", "condition": "MemoryPressure", "status": "False",
         "taintsAdded": [], "taintsRemoved": ["node.kubernetes.io/memory-pressure:NoSchedule"]},
    ]
    assert len(k.evictions) == 1
    e = k.evictions[0]
    assert (e["time"], e["node"], e["gracePeriodSeconds"], e["terminated"]) == (60.0, "node-a", 1, 61.0)
    assert e["pod"].startswith("default/cache-")
    assert [r["qos"] for r in e["ranking"]] == ["BestEffort", "Guaranteed", "Burstable"]
    assert e["message"] == ("The node was low on resource: memory. Threshold quantity: 500Mi, available: 348Mi. "
                            "Container cache was using 5632Mi, request is 0, has larger consumption of memory. ")
    assert e["status"]["phase"] == "Failed" and e["status"]["reason"] == "Evicted"
    assert e["status"]["conditions"] == [{"type": "DisruptionTarget", "status": "True",
                                          "reason": "TerminationByKubelet", "message": e["message"]}]
    assert e["replacement"].startswith("default/cache-") and e["replacement"] != e["pod"]
    assert (e["replacementNode"], e["replacementScheduled"]) == ("node-b", 61.0)
    pods = result.pods.set_index("pod")
    assert pods.loc[e["pod"], "finished"] == 61.0
    assert pods.loc[e["replacement"], "node"] == "node-b"
    assert result.stop_reason == "quiescent" and result.end_time == 361.0
    assert sim.cluster.nodes["node-a"].spec.taints == []


def test_signals_over_time(memory_run):
    sim, _ = memory_run
    rows = [(r["time"], r["available"], r["met"]) for r in sim.kubelet.signals
            if r["node"] == "node-a" and r["signal"] == "memory.available"]
    # the round at 0 comes before the pods are scheduled: 8Gi - 512Mi system; then
    # 8Gi - 512Mi - 800Mi - 900Mi - the cache ramp (1024Mi more every 10 s, 5632Mi from 55 s)
    assert rows[:7] == [(0.0, "7680Mi", False), (10.0, "4956Mi", False), (20.0, "3932Mi", False),
                        (30.0, "2908Mi", False), (40.0, "1884Mi", False), (50.0, "860Mi", False), (60.0, "348Mi", True)]
    # after the eviction the manager waits for the pod's cleanup (1 s), then 10 s
    assert rows[7] == (71.0, "5980Mi", False)


def _scenario(tmp_path, sim_spec, *, extra=""):
    text = """
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {capacity: {cpu: "4", memory: 4Gi, ephemeral-storage: 10Gi, pods: "110"},
         allocatable: {cpu: "4", memory: 4Gi, ephemeral-storage: 10Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default, labels: {app: p}}
spec: {containers: [{name: c}], terminationGracePeriodSeconds: 45}
""" + extra + "---\n" + yaml.safe_dump({"apiVersion": "kschedlab.io/v1alpha1", "kind": "Simulation",
                                          "metadata": {"name": "s"}, "spec": sim_spec})
    path = tmp_path / "scenario.yaml"
    path.write_text(text)
    return path


def test_soft_threshold_grace_period_and_pod_grace(tmp_path):
    path = _scenario(tmp_path, {"kubelet": [{"config": {
        "evictionHard": {"memory.available": "100Mi"}, "evictionSoft": {"memory.available": "1Gi"},
        "evictionSoftGracePeriod": {"memory.available": "30s"}, "evictionMaxPodGracePeriod": 60}}],
        "usage": [{"pod": "default/p", "resource": "memory", "step": {"before": 0, "after": "3584Mi", "at": 15}}]})
    sim, until = from_files(path)
    result = sim.run(until=until)
    # met first at 20 (the first round after the step), acted on 30 s later; grace min(45, 60)
    assert sim.kubelet.conditions[0]["time"] == 20.0
    e = sim.kubelet.evictions[0]
    assert (e["time"], e["gracePeriodSeconds"], e["terminated"], e["replacement"]) == (50.0, 45, 95.0, None)
    assert result.stop_reason == "quiescent"


def test_disk_pressure_reclaims_at_node_level_first(tmp_path):
    path = _scenario(tmp_path, {"kubelet": [{"inodes": 1000, "config": {"evictionHard": {"nodefs.available": "1Gi"}}}],
                                "usage": [{"pod": "default/p", "resource": "ephemeral-storage",
                                           "table": [{"at": 0, "value": "1Gi"}, {"at": 25, "value": "9600Mi"}]}]})
    sim, until = from_files(path)
    sim.run(until=until)
    assert [(c["time"], c["condition"], c["status"]) for c in sim.kubelet.conditions][0] == \
        (30.0, "DiskPressure", "True")
    e = sim.kubelet.evictions[0]
    assert (e["time"], e["signal"], e["nodeReclaim"]) == \
        (30.0, "nodefs.available", ["DeleteAllUnusedContainers", "DeleteUnusedImages"])
    assert "taints" not in e and sim.kubelet.conditions[0]["taintsAdded"] == ["node.kubernetes.io/disk-pressure:NoSchedule"]


def test_pid_pressure(tmp_path):
    path = _scenario(tmp_path, {"kubelet": [{"maxPID": 1000, "config": {"evictionHard": {"pid.available": "100"}}}],
                                "usage": [{"pod": "default/p", "resource": "pids", "constant": 950}]})
    sim, until = from_files(path)
    result = sim.run(until=until)
    assert sim.kubelet.conditions[0] == {"time": 10.0, "node": "n1", "condition": "PIDPressure", "status": "True",
                                         "taintsAdded": ["node.kubernetes.io/pid-pressure:NoSchedule"],
                                         "taintsRemoved": []}
    e = sim.kubelet.evictions[0]
    assert (e["time"], e["signal"], e["pod"], e["replacement"]) == (10.0, "pid.available", "default/p", None)
    assert result.stop_reason == "quiescent" and result.end_time == 311.0


def test_flat_usage_without_pressure_ends(tmp_path):
    path = _scenario(tmp_path, {"usage": [{"pod": "default/p", "resource": "memory", "constant": "1Gi"}]})
    sim, until = from_files(path)
    result = sim.run()
    assert result.stop_reason == "quiescent" and result.end_time == 10.0
    assert sim.kubelet.evictions == [] and sim.kubelet.conditions == []


def test_ramp_keeps_the_run_going_until_it_is_flat(tmp_path):
    path = _scenario(tmp_path, {"usage": [{"pod": "default/p", "resource": "memory",
                                           "ramp": {"from": 0, "to": "1Gi", "end": 95}}]})
    sim, _ = from_files(path)
    result = sim.run()
    assert result.stop_reason == "quiescent" and result.end_time == 100.0


@pytest.mark.parametrize("spec, message", [
    ({"usage": [{"pod": "default/p", "resource": "gpu", "constant": 1}]}, "spec.usage[0].resource"),
    ({"usage": [{"pod": "default/p", "resource": "memory", "constant": 1, "step": {"after": 2, "at": 1}}]},
     "exactly one of constant, ramp, step, table"),
    ({"usage": [{"pod": "default/p", "resource": "memory", "ramp": {"from": 0, "to": "1Gi", "start": 5, "end": 5}}]},
     "spec.usage[0].ramp: end (5) must be greater than start (5)"),
    ({"usage": [{"pod": "default/p", "resource": "memory", "constant": "lots"}]}, "spec.usage[0].constant"),
    ({"usage": [{"pod": "default/nope", "resource": "memory", "constant": 1}]}, "spec.usage[0].pod: Not found"),
    ({"kubelet": [{"nodeNames": ["n9"]}]}, "spec.kubelet[0].nodeNames[0]: Not found"),
    ({"kubelet": [{"config": {"evictionHard": {"memory.available": "lots"}}}]}, "spec.kubelet[0].config"),
    ({"kubelet": [{"systemUsage": {"gpu": 1}}]}, "spec.kubelet[0].systemUsage"),
    ({"kubelet": [{"config": {"localStorageCapacityIsolation": "sometimes"}}]},
     "localStorageCapacityIsolation: json: cannot unmarshal string into Go struct field "
     "KubeletConfiguration.localStorageCapacityIsolation of type bool"),
])
def test_bad_input_names_the_field(tmp_path, spec, message):
    path = _scenario(tmp_path, spec)
    with pytest.raises(ManifestError) as err:
        from_files(path)
    assert message in str(err.value)


def test_cli_table_and_json():
    run = [sys.executable, "-m", "kschedlab.cli", "simulate", str(DATASET)]
    table = subprocess.run(run, capture_output=True, text=True, check=True).stdout
    assert "node-a  MemoryPressure=True  +node.kubernetes.io/memory-pressure:NoSchedule" in table
    assert "60 s  node-a evicts default/cache-" in table and "on node-b" in table
    out = json.loads(subprocess.run([*run, "-o", "json"], capture_output=True, text=True, check=True).stdout)
    assert out["kubelet"]["evictions"][0]["replacementNode"] == "node-b"
    assert out["kubelet"]["conditions"][0]["time"] == 60.0


def test_soft_threshold_per_node_config_and_pdb_ignored():
    """Two ReplicaSet pods on the small node (its own soft threshold by nodeSelector), a PDB
    that allows no disruption: the kubelet evicts anyway."""
    sim, until = from_files(Path(__file__).parent / "soft-per-node.yaml")
    result = sim.run(until=until)
    k = sim.kubelet
    assert [(c["time"], c["node"], c["status"]) for c in k.conditions] == [(20.0, "small", "True"),
                                                                           (340.0, "small", "False")]
    assert len(k.evictions) == 1
    e = k.evictions[0]
    # met at 20, soft grace 20 s -> 40; grace min(30 default, evictionMaxPodGracePeriod 10)
    assert (e["time"], e["node"], e["gracePeriodSeconds"], e["terminated"]) == (40.0, "small", 10, 50.0)
    assert e["message"].startswith("The node was low on resource: memory. Threshold quantity: 1Gi, available: 648Mi.")
    assert (e["replacementNode"], e["replacementScheduled"]) == ("big", 50.0)
    # the manager waits for the cleanup (10 s), then 10 s: its next round is at 60
    times = sorted({r["time"] for r in k.signals if r["node"] == "small"})
    assert times[:5] == [0.0, 10.0, 20.0, 30.0, 40.0] and times[5] == 60.0
    assert result.end_time == 340.0


def test_condition_does_not_flap(tmp_path):
    """Usage dips below the threshold and back within the transition period: one True, one False."""
    path = _scenario(tmp_path, {"kubelet": [{"config": {"evictionHard": {"memory.available": "100Mi"},
                                                        "evictionSoft": {"memory.available": "1Gi"},
                                                        "evictionSoftGracePeriod": {"memory.available": "5m"},
                                                        "evictionPressureTransitionPeriod": "1m"}}],
                                "usage": [{"pod": "default/p", "resource": "memory", "table": [
                                    {"at": 0, "value": "3584Mi"}, {"at": 25, "value": "1Gi"},
                                    {"at": 55, "value": "3584Mi"}, {"at": 85, "value": "1Gi"}]}]})
    sim, until = from_files(path)
    result = sim.run(until=until)
    # met at 10..20 and 60..80 (rounds); last met at 80, False at the first round 60 s later
    assert [(c["time"], c["status"]) for c in sim.kubelet.conditions] == [(10.0, "True"), (140.0, "False")]
    assert sim.kubelet.evictions == []
    assert result.stop_reason == "quiescent" and result.end_time == 140.0


def test_compact_signals_frame(memory_run):
    from kschedlab.sim.kubelet import signals_frame

    sim, _ = memory_run
    full = signals_frame(sim.kubelet, compact=False)
    compact = signals_frame(sim.kubelet)
    a = compact[(compact.node == "node-a") & (compact.signal == "memory.available")]
    # every change up to 71 s, then only the last round (361 s: unchanged since 71 s)
    assert list(a.time) == [0.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 71.0, 361.0]
    assert len(full[(full.node == "node-a") & (full.signal == "memory.available")]) == 37


_LIMITED = """---
apiVersion: v1
kind: Pod
metadata: {name: q, namespace: default}
spec:
  containers:
  - name: c
    resources: {limits: {ephemeral-storage: 1Gi}}
"""


def test_a_container_over_its_ephemeral_storage_limit_is_evicted_without_node_pressure(tmp_path):
    path = _scenario(tmp_path, {"usage": [{"pod": "default/q", "resource": "ephemeral-storage",
                                           "table": [{"at": 0, "value": "512Mi"}, {"at": 15, "value": "1536Mi"}]}]},
                     extra=_LIMITED)
    sim, until = from_files(path)
    sim.run(until=until)
    assert sim.kubelet.conditions == []  # the node has room: no threshold is met
    [e] = sim.kubelet.evictions
    assert (e["time"], e["pod"], e["signal"], e["gracePeriodSeconds"], e["ranking"]) == \
        (20.0, "default/q", None, 1, [])
    assert e["message"] == "Container c exceeded its local ephemeral storage limit \"1Gi\". "
    assert sim.cluster.pods.get("default/q") is None or sim.cluster.pods["default/q"].status.reason == "Evicted"
    assert "default/q (over its local-storage limit, grace period 1 s" in report_text(sim.kubelet)


def test_local_storage_capacity_isolation_off_lets_it_run(tmp_path):
    path = _scenario(tmp_path, {"kubelet": [{"config": {"localStorageCapacityIsolation": False}}],
                                "usage": [{"pod": "default/q", "resource": "ephemeral-storage",
                                           "table": [{"at": 0, "value": "512Mi"}, {"at": 15, "value": "1536Mi"}]}]},
                     extra=_LIMITED)
    sim, until = from_files(path)
    sim.run(until=until)
    assert sim.kubelet.evictions == []


def test_the_dataset_evicts_each_replacement_under_a_name_never_used_before():
    sim, until = from_files(ROOT / "datasets" / "kubelet" / "sim-local-storage-limit.yaml")
    result = sim.run(until=until)
    evicted = [(e["time"], e["gracePeriodSeconds"]) for e in sim.kubelet.evictions]
    assert evicted == [(50.0, 1), (101.0, 1)]
    names = [e["pod"] for e in sim.kubelet.evictions] + [sim.kubelet.evictions[-1]["replacement"]]
    assert len(set(names)) == 3  # the second replacement does not take the first pod's name
    assert len(result.pods) == 3 and sorted(result.pods["pod"]) == sorted(names)
