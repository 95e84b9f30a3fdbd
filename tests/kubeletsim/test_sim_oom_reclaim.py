"""The kernel's OOM killer, container restarts, images, dead containers and the three
filesystem layouts on the simulation clock (kschedlab.sim.kubelet / node_runtime)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from kschedlab.api.errors import ManifestError
from kschedlab.apiserver.pod_update import kubectl_get_pods
from kschedlab.sim.scenario import from_files

ROOT = Path(__file__).resolve().parents[2]
OOM = ROOT / "datasets" / "kubelet" / "sim-oom-kill.yaml"
LAYOUTS = ROOT / "datasets" / "kubelet" / "sim-reclaim-layouts.yaml"


def _run(path):
    sim, until = from_files(path)
    return sim, sim.run(until=until)


def test_oom_dataset_kernel_kills_between_rounds():
    sim, _ = _run(OOM)
    k = sim.kubelet
    assert [(o["time"], o["domain"], o["pod"], o["container"]) for o in k.ooms] == [
        (12.0, "node", "default/batch", "batch"), (34.0, "node", "default/batch", "batch"),
        (66.0, "node", "default/batch", "batch"), (118.0, "node", "default/batch", "batch")]
    first = k.ooms[0]
    assert first["action"] == "restart at 22 s (restartPolicy Always)"
    assert [(r["pod"], r["oomScoreAdj"], r["badness"], r["killed"]) for r in first["ranking"]] == [
        ("default/batch", 875, 3276667, True), ("default/cache", 1000, 2359144, False),
        ("default/db", -997, -1697493, False)]
    assert k.evictions == [] and k.conditions == []     # the kubelet never saw the pressure
    batch = sim.cluster.pods["default/batch"]
    assert batch.status.phase == "Running" and batch.status.start_time is not None
    cs = batch.status.container_statuses[0]  # a ContainerStatus as the API server stores it, times on the sim's clock
    dumped = cs.model_dump(by_alias=True, exclude_none=True, mode="json")
    assert cs.restart_count == 3 and dumped["state"] == {"waiting": {"reason": "CrashLoopBackOff"}}
    assert dumped["lastState"]["terminated"] == {"exitCode": 137, "reason": "OOMKilled",
                                                 "startedAt": "1970-01-01T00:01:46Z", "finishedAt": "1970-01-01T00:01:58Z"}
    row = kubectl_get_pods([batch]).to_dict("records")[0]
    assert (row["READY"], row["STATUS"], row["RESTARTS"]) == ("0/1", "CrashLoopBackOff", 3)


def _scenario(tmp_path, docs, sim_spec):
    text = "\n---\n".join(yaml.safe_dump(d) for d in docs) + "\n---\n" + yaml.safe_dump(
        {"apiVersion": "kschedlab.io/v1alpha1", "kind": "Simulation", "metadata": {"name": "s"}, "spec": sim_spec})
    path = tmp_path / "scenario.yaml"
    path.write_text(text)
    return path


NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
        "status": {"capacity": {"cpu": "4", "memory": "4Gi", "pods": "110"},
                   "allocatable": {"cpu": "4", "memory": "4Gi", "pods": "110"}}}


def _pod(name, resources=None, restart=None):
    spec = {"nodeName": "n1", "containers": [{"name": "c", "image": "img", "resources": resources or {}}]}
    if restart:
        spec["restartPolicy"] = restart
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}, "spec": spec}


def test_container_limit_oom_and_restart_policy_never(tmp_path):
    path = _scenario(tmp_path, [NODE, _pod("capped", {"limits": {"memory": "1Gi"}}, restart="Never"),
                                _pod("other")],
                     {"until": 60, "usage": [
                         {"pod": "default/capped", "resource": "memory", "ramp": {"from": 0, "to": "2Gi", "end": 20}},
                         {"pod": "default/other", "resource": "memory", "constant": "1Gi"}]})
    sim, _ = _run(path)
    (o,) = sim.kubelet.ooms
    # 2Gi over 20 s passes 1Gi just after 10 s: the container's own cgroup runs out
    assert (o["time"], o["domain"], o["pod"], o["action"]) == \
        (10.001, "container", "default/capped", "pod Failed (restartPolicy Never)")
    assert [r["pod"] for r in o["ranking"]] == ["default/capped"]
    assert "default/capped" not in sim.cluster.pods            # terminal: gone from the scheduler's cache


def test_kubepods_cgroup_runs_out_before_the_node(tmp_path):
    path = _scenario(tmp_path, [NODE, _pod("a"), _pod("b", {"requests": {"memory": "1Gi"}})],
                     {"until": 30, "kubelet": [{"config": {"systemReserved": {"memory": "1Gi"},
                                                           "evictionHard": {"memory.available": "100Mi"}}}],
                      "usage": [{"pod": "default/a", "resource": "memory", "constant": "1Gi"},
                                {"pod": "default/b", "resource": "memory",
                                 "step": {"before": "1Gi", "after": "2560Mi", "at": 5}}]})
    sim, _ = _run(path)
    o = sim.kubelet.ooms[0]
    # pods want 3.5Gi > 4Gi - 1Gi reserved; the node (4Gi) would still have room
    assert (o["time"], o["domain"], o["limit"], o["totalpages"]) == (5.0, "kubepods", 3 * 2**30, 786432)
    assert o["pod"] == "default/b"    # 2.5Gi, 1.5Gi above its request, beats a's 1Gi at adj 1000


def test_layouts_dataset_reclaims_images_before_evicting():
    sim, _ = _run(LAYOUTS)
    k = sim.kubelet
    got = [(r["time"], r["node"], r["kind"], r["signal"], r["imagesRemoved"], r["freedBytes"], r["sufficient"])
           for r in k.reclaims]
    assert got == [
        (70.0, "disk-single", "eviction", "imagefs.available", ["old-app:0.9", "ml-base:2.0"], 35 * 2**30, True),
        (90.0, "disk-imagefs", "eviction", "imagefs.available", ["old-app:0.9", "ml-base:2.0"], 35 * 2**30, True),
        (100.0, "disk-split", "eviction", "nodefs.available", [], 0, False),
        (111.0, "disk-split", "eviction", "nodefs.available", [], 85 * 2**30, True)]
    assert k.reclaims[2]["steps"] == ["DeleteAllUnusedContainers"]
    assert [(e["node"], e["pod"], e["signal"]) for e in k.evictions] == [
        ("disk-split", "default/writer-split", "nodefs.available")]
    # the kubelet reports what is left in status.images (ImageLocality reads it)
    assert [i.names for i in sim.cluster.nodes["disk-single"].status.images] == [["app:1.0"]]
    assert len(sim.cluster.nodes["disk-split"].status.images) == 3


def test_signals_per_layout():
    sim, _ = _run(LAYOUTS)
    at = {(r["node"], r["signal"]): r["availableBytes"] for r in sim.kubelet.signals if r["time"] == 60.0}
    gi = 2**30
    # single: one disk for all three; imagefs: writable layers with the images; split: with nodefs
    assert at[("disk-single", "nodefs.available")] == at[("disk-single", "imagefs.available")] == 20 * gi
    assert (at[("disk-imagefs", "nodefs.available")], at[("disk-imagefs", "imagefs.available")],
            at[("disk-imagefs", "containerfs.available")]) == (90 * gi, 30 * gi, 30 * gi)
    assert (at[("disk-split", "nodefs.available")], at[("disk-split", "imagefs.available")],
            at[("disk-split", "containerfs.available")]) == (39 * gi, 60 * gi, 39 * gi)


def test_split_layout_without_the_gate_never_evicts(tmp_path):
    docs = list(yaml.safe_load_all(LAYOUTS.read_text()))
    sim_doc = docs.pop()
    sim_doc["spec"]["kubelet"][2]["config"] = {"featureGates": {"KubeletSeparateDiskGC": False},
                                               "evictionMinimumReclaim": {"imagefs.available": "5Gi"}}
    path = _scenario(tmp_path, [d for d in docs if d["kind"] != "Simulation"], sim_doc["spec"])
    sim, _ = _run(path)
    assert [e["node"] for e in sim.kubelet.evictions] == []
    assert not [r for r in sim.kubelet.signals if r["node"] == "disk-split"]


def test_bad_layouts_and_usages_are_refused(tmp_path):
    bad = [({"kubelet": [{"layout": "imagefs"}]}, "layout imagefs needs imageFs"),
           ({"kubelet": [{"imageFs": {"capacity": "1Gi"}}]}, "imageFs goes with layout imagefs or split"),
           ({"kubelet": [{"layout": "split", "imageFs": {"capacity": "-1Gi"}}]}, "greater than or equal to 0"),
           ({"usage": [{"pod": "default/a", "resource": "memory", "constant": 1, "fs": "logs"}]},
            "fs goes with ephemeral-storage or inodes"),
           ({"kubelet": [{"config": {"imageGCHighThresholdPercent": 70}}]}, "can not be higher than")]
    for spec, msg in bad:
        path = _scenario(tmp_path, [NODE, _pod("a")], spec)
        with pytest.raises((ManifestError, ValueError), match=msg):
            _run(path)


def test_logs_land_on_nodefs_in_every_layout(tmp_path):
    node = json.loads(json.dumps(NODE))
    node["status"]["capacity"]["ephemeral-storage"] = "10Gi"
    path = _scenario(tmp_path, [node, _pod("a")],
                     {"until": 10, "kubelet": [{"layout": "imagefs", "imageFs": {"capacity": "20Gi"}}],
                      "usage": [{"pod": "default/a", "resource": "ephemeral-storage", "fs": "logs",
                                 "constant": "1Gi"},
                                {"pod": "default/a", "resource": "ephemeral-storage", "constant": "3Gi"}]})
    sim, _ = _run(path)
    at = {r["signal"]: r["availableBytes"] for r in sim.kubelet.signals if r["time"] == 0.0}
    assert (at["nodefs.available"], at["imagefs.available"]) == (9 * 2**30, 17 * 2**30)


def test_cli_shows_the_oom_killer_and_reclaim():
    out = subprocess.run([sys.executable, "-m", "kschedlab.cli", "simulate", str(OOM)], capture_output=True,
                         text=True, check=True).stdout
    assert "the kernel's OOM killer kills default/batch container batch (OOMKilled, exit code 137)" in out
    out = subprocess.run([sys.executable, "-m", "kschedlab.cli", "simulate", str(LAYOUTS), "-o", "json"],
                         capture_output=True, text=True, check=True).stdout
    data = json.loads(out)
    kubelet = data["kubelet"] if "kubelet" in data else data
    assert [r["node"] for r in kubelet["reclaims"]][:2] == ["disk-single", "disk-imagefs"]


def test_finished_pod_leaves_a_dead_container_until_the_minute_gc(tmp_path):
    node = json.loads(json.dumps(NODE))
    node["status"]["capacity"]["ephemeral-storage"] = "10Gi"
    job = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "job", "namespace": "default"},
           "spec": {"containers": [{"name": "c", "image": "x"}]}}
    path = _scenario(tmp_path, [node], {"events": [{"at": 0, "duration": 15, "create": job}],
                                        "usage": [{"pod": "default/job", "resource": "ephemeral-storage",
                                                   "constant": "2Gi"}]})
    sim, _ = from_files(path)
    result = sim.run()
    # the run waits for the kubelet's container GC (every minute) to delete the 2Gi writable layer
    assert (result.stop_reason, result.end_time) == ("quiescent", 60.0)
    assert [(r["time"], r["kind"], r["freedBytes"]) for r in sim.kubelet.reclaims] == [(60.0, "containerGC", 2 * 2**30)]
    at = [r["availableBytes"] for r in sim.kubelet.signals if r["signal"] == "nodefs.available"]
    assert at[-1] == 10 * 2**30
