"""A real cluster dump (datasets/dumps/shop-cluster.yaml) loads as it is, through the CLI and the
Python API: kinds the scheduler does not use are skipped with one warning, the controllers'
objects already in the dump are matched by ownerReferences (no phantom ReplicaSet or pod), and
the only pod left to schedule is the Pending replica."""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

import pytest

from kschedlab import Cluster, Scheduler
from kschedlab.api import ManifestError, SkippedKindsWarning, load, load_manifests
from kschedlab.api.loader import load_objects
from kschedlab.api.safe_yaml import safe_load
from kschedlab.cli import main

DUMP = Path(__file__).resolve().parents[2] / "datasets" / "dumps" / "shop-cluster.yaml"
SUMMARY = ("skipped 14 objects of kinds the scheduler does not use: ConfigMap (3), EndpointSlice (1), "
           "Endpoints (1), Event (3), Role (1), Secret (2), ServiceAccount (2), ServiceMonitor (1)")
PENDING = "shop/api-7d9c5b8f6c-b5rxq"


def _raw():
    return safe_load(DUMP.read_text(), str(DUMP))


def _keys(objs):
    return sorted((o.kind, o.key) for o in objs)


def test_python_api_loads_the_dump_with_one_summary_warning():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        objs = load_manifests(DUMP)
    skipped = [w for w in caught if issubclass(w.category, SkippedKindsWarning)]
    assert [str(w.message) for w in skipped] == [SUMMARY]
    assert ("ServiceMonitor", "monitoring/web") in {(k, o.split(" ", 1)[1]) for _, o, _, k in skipped[0].message.skipped}
    kinds = {o.kind for o in objs}
    assert kinds == {"Node", "Deployment", "ReplicaSet", "StatefulSet", "Job", "DaemonSet", "Pod", "Service",
                     "PodDisruptionBudget", "Namespace", "PriorityClass"}


def test_the_dump_expands_to_itself():
    with pytest.warns(SkippedKindsWarning):
        loaded = load(DUMP)
    with pytest.warns(SkippedKindsWarning):
        created = load_manifests(DUMP)
    assert _keys(created) == _keys(loaded)  # no phantom ReplicaSet, no new pod
    pods = [o for o in created if o.kind == "Pod"]
    assert len(pods) == 13 and [p.key for p in pods if not p.spec.node_name] == [PENDING]


def test_python_api_schedules_only_the_pending_replica():
    with pytest.warns(SkippedKindsWarning):
        cluster = Cluster.from_manifests(DUMP)
    results = Scheduler(cluster, seed=0).run()
    assert [(r.pod, bool(r.node)) for r in results] == [(PENDING, True)]


def test_cli_schedule_dump(capsys):
    assert main(["schedule", str(DUMP), "-o", "json"]) == 0
    out, err = capsys.readouterr()
    pods = json.loads(out)["pods"]
    assert [p["name"] for p in pods] == [PENDING] and pods[0]["node"] in ("worker-1", "worker-2")
    assert err.strip() == f"warning: {SUMMARY}"


def test_cli_strict_refuses_unused_kinds_naming_file_and_object(capsys):
    assert main(["schedule", str(DUMP), "--strict"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 14
    assert err[0] == (f'error: {DUMP}: document 1, item 26 (ConfigMap shop/kube-root-ca.crt): kind "ConfigMap" '
                      "(apiVersion v1) is not used by the scheduler (refused in strict mode)")
    assert err[-1].endswith('(ServiceMonitor monitoring/web): kind "ServiceMonitor" (apiVersion '
                            "monitoring.coreos.com/v1) is not used by the scheduler (refused in strict mode)")


def test_strict_python_api():
    with pytest.raises(ManifestError) as ei:
        load_manifests(DUMP, strict=True)
    assert len(ei.value.errors) == 14


def test_fields_that_do_not_exist_are_still_refused_in_a_dump():
    data = _raw()
    pod = next(i for i in data["items"] if i["kind"] == "Pod")
    pod["status"]["containerStatuses"][0]["bogus"] = 1
    pod["status"]["hostIp"] = "10.0.0.1"  # the API field is hostIP
    with pytest.raises(ManifestError) as ei:
        load_objects(data, source="dump.yaml")
    assert re.search(r'status\.hostIp: unknown field "hostIp"', str(ei.value))
    assert re.search(r'status\.containerStatuses\[0\]\.bogus: unknown field "bogus"', str(ei.value))


def test_unknown_kinds_of_real_api_groups_stay_errors():
    text = "apiVersion: v1\nkind: Pdo\nmetadata: {name: x}\n---\napiVersion: apps/v1beta1\nkind: Deployment\n"
    with pytest.raises(ManifestError) as ei:
        load_manifests(text=text, source="t.yaml")
    assert [str(e) for e in ei.value.errors] == [
        't.yaml: document 1: unknown kind "Pdo" (apiVersion v1)',
        't.yaml: document 2: no matches for kind "Deployment" in version "apps/v1beta1": the API server '
        'serves it as apiVersion: apps/v1 (apps/v1beta1 was removed in Kubernetes v1.16)']


def test_every_status_block_of_the_dump_is_kept():
    with pytest.warns(SkippedKindsWarning):
        objs = load(DUMP)
    pod = next(o for o in objs if o.key == "shop/web-6d4cf56db6-x7k2p")
    assert pod.status.host_ip == "10.0.1.21" and [i.ip for i in pod.status.host_ips] == ["10.0.1.21"]
    running = pod.status.container_statuses[0].state.running
    assert running.model_dump()["startedAt"] == "2026-11-28T14:02:12Z"
    assert {c.type for c in pod.status.conditions} >= {"Ready", "PodScheduled", "PodReadyToStartContainers"}
    node = next(o for o in objs if o.key == "cp-1")
    assert node.metadata.managed_fields and node.status.node_info.kubelet_version == "v1.37.0"


CONFIGMAP = "\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: default}\ndata: {a: b}\n"


def test_cli_simulate_skips_unused_kinds_and_strict_refuses(tmp_path, capsys):
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text((DUMP.parents[1] / "sim" / "gated-pod.yaml").read_text() + CONFIGMAP)
    assert main(["simulate", str(scenario), "-o", "json"]) == 0
    out, err = capsys.readouterr()
    assert err.strip() == "warning: skipped 1 object of kinds the scheduler does not use: ConfigMap (1)"
    assert {p["pod"] for p in json.loads(out)["pods"]} >= {"default/test-pod"}
    assert main(["simulate", str(scenario), "--strict"]) == 2
    assert "(ConfigMap default/settings): kind \"ConfigMap\"" in capsys.readouterr().err


def test_cli_demo_accepts_strict(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["demo", "--strict", "-o", "json"]) == 0
    assert capsys.readouterr().err.startswith("report written to")


def test_the_json_form_of_the_dump_loads_the_same(tmp_path):
    as_json = tmp_path / "dump.json"  # kubectl get ... -o json
    as_json.write_text(json.dumps(_raw(), indent=4))
    with pytest.warns(SkippedKindsWarning, match="skipped 14 objects"):
        from_json = load_manifests(as_json)
    with pytest.warns(SkippedKindsWarning):
        from_yaml = load_manifests(DUMP)
    assert _keys(from_json) == _keys(from_yaml)


def test_stored_pods_keep_their_priority_when_the_class_is_not_in_the_dump():
    data = _raw()
    for item in data["items"]:
        if item["kind"] == "Pod" and item["metadata"]["name"].startswith("web-"):
            item["spec"]["priorityClassName"] = "shop-high"  # not in the dump
            item["spec"]["priority"] = 100000
    data["items"].append({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",  # a default class
                          "metadata": {"name": "default-tier", "resourceVersion": "90210"},  # added later
                          "globalDefault": True, "value": 1000})
    from kschedlab.controllers.manifests import create

    with pytest.warns(SkippedKindsWarning):
        objs = create(load_objects(data, source="dump.yaml"))
    pods = {o.name: o for o in objs if o.kind == "Pod"}
    assert pods["web-6d4cf56db6-x7k2p"].spec.priority == 100000
    assert pods["api-7d9c5b8f6c-8wzlh"].spec.priority == 0  # stored before the default class existed
    # a pod created now (no resourceVersion) goes through admission
    new = dict(next(i for i in data["items"] if i["metadata"]["name"] == "web-6d4cf56db6-x7k2p"))
    new["metadata"] = {"name": "fresh", "namespace": "shop"}
    with pytest.raises(ManifestError, match="no PriorityClass with name shop-high was found"):
        create(load_objects([new], source="new.yaml"))
