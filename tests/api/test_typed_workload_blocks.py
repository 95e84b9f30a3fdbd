"""The blocks of StatefulSets, Jobs, Services, Namespaces and the workloads' status conditions that used
to load as plain data are typed: a valid example loads and dumps back as written, a misspelt key is
refused with its path, a value of the wrong type too."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from kschedlab.api.errors import ManifestError
from kschedlab.api.loader import load_objects
from tests.api.doc_paths import at, dotted

T = "2026-01-02T03:04:05Z"
TEMPLATE = {"metadata": {"labels": {"app": "a"}}, "spec": {"containers": [{"name": "c", "image": "busybox"}]}}
SELECTOR = {"matchLabels": {"app": "a"}}


def _obj(api: str, kind: str, spec: dict | None = None, status: dict | None = None) -> dict:
    obj: dict[str, Any] = {"apiVersion": api, "kind": kind, "metadata": {"name": "o"}}
    if kind != "Namespace":
        obj["metadata"]["namespace"] = "default"
    if spec is not None:
        obj["spec"] = spec
    if status is not None:
        obj["status"] = status
    return obj


def _condition(**more: Any) -> dict:
    return {"type": "Ready", "status": "True", "lastTransitionTime": T, "reason": "R", "message": "m", **more}


STS = {"serviceName": "o", "selector": SELECTOR, "template": TEMPLATE}
JOB = {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}

#: (id, valid object, path to a mapping of it (a typo goes there), (path to a scalar, a value of the wrong type))
BLOCKS: list[tuple[str, dict, list, tuple[list, Any]]] = [
    ("sts-updateStrategy", _obj("apps/v1", "StatefulSet", {**STS, "updateStrategy": {
        "type": "RollingUpdate", "rollingUpdate": {"partition": 2, "maxUnavailable": "50%"}}}),
     ["spec", "updateStrategy", "rollingUpdate"], (["spec", "updateStrategy", "rollingUpdate", "partition"], "two")),
    ("sts-retention", _obj("apps/v1", "StatefulSet", {**STS, "persistentVolumeClaimRetentionPolicy": {
        "whenDeleted": "Delete", "whenScaled": "Retain"}}),
     ["spec", "persistentVolumeClaimRetentionPolicy"], (["spec", "persistentVolumeClaimRetentionPolicy",
                                                         "whenScaled"], ["Retain"])),
    ("sts-conditions", _obj("apps/v1", "StatefulSet", STS, {"conditions": [_condition()]}),
     ["status", "conditions", 0], (["status", "conditions", 0, "lastTransitionTime"], "yesterday")),
    ("deployment-conditions", _obj("apps/v1", "Deployment", {"selector": SELECTOR, "template": TEMPLATE},
                                   {"conditions": [_condition(type="Available", lastUpdateTime=T)]}),
     ["status", "conditions", 0], (["status", "conditions", 0, "lastUpdateTime"], 5)),
    ("replicaset-conditions", _obj("apps/v1", "ReplicaSet", {"selector": SELECTOR, "template": TEMPLATE},
                                   {"conditions": [_condition(type="ReplicaFailure")]}),
     ["status", "conditions", 0], (["status", "conditions", 0, "message"], ["m"])),
    ("daemonset-conditions", _obj("apps/v1", "DaemonSet", {"selector": SELECTOR, "template": TEMPLATE},
                                  {"conditions": [_condition()]}),
     ["status", "conditions", 0], (["status", "conditions", 0, "reason"], {"r": 1})),
    ("job-podFailurePolicy", _obj("batch/v1", "Job", {**JOB, "podFailurePolicy": {"rules": [
        {"action": "FailJob", "onExitCodes": {"containerName": "c", "operator": "In", "values": [42]}},
        {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]}]}}),
     ["spec", "podFailurePolicy", "rules", 0, "onExitCodes"],
     (["spec", "podFailurePolicy", "rules", 0, "onExitCodes", "values"], "42")),
    ("job-podFailurePolicy-conditions", _obj("batch/v1", "Job", {**JOB, "podFailurePolicy": {"rules": [
        {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]}]}}),
     ["spec", "podFailurePolicy", "rules", 0, "onPodConditions", 0],
     (["spec", "podFailurePolicy", "rules", 0, "action"], 1)),
    ("job-successPolicy", _obj("batch/v1", "Job", {**JOB, "completionMode": "Indexed", "completions": 3,
                                                   "successPolicy": {"rules": [{"succeededIndexes": "0-1",
                                                                                "succeededCount": 1}]}}),
     ["spec", "successPolicy", "rules", 0], (["spec", "successPolicy", "rules", 0, "succeededCount"], "one")),
    ("job-status", _obj("batch/v1", "Job", JOB, {
        "conditions": [_condition(type="Complete", lastProbeTime=T)],
        "uncountedTerminatedPods": {"succeeded": ["u1"], "failed": ["u2"]}}),
     ["status", "uncountedTerminatedPods"], (["status", "uncountedTerminatedPods", "failed"], "u2")),
    ("service-ports", _obj("v1", "Service", {"selector": {"app": "a"}, "ports": [
        {"name": "http", "protocol": "TCP", "appProtocol": "http", "port": 80, "targetPort": "web",
         "nodePort": 30080}], "type": "NodePort"}),
     ["spec", "ports", 0], (["spec", "ports", 0, "port"], "eighty")),
    ("service-sessionAffinityConfig", _obj("v1", "Service", {"sessionAffinity": "ClientIP", "sessionAffinityConfig": {
        "clientIP": {"timeoutSeconds": 600}}}),
     ["spec", "sessionAffinityConfig", "clientIP"],
     (["spec", "sessionAffinityConfig", "clientIP", "timeoutSeconds"], "10m")),
    ("service-status", _obj("v1", "Service", {"type": "LoadBalancer"}, {
        "loadBalancer": {"ingress": [{"ip": "192.0.2.1", "ipMode": "VIP",
                                      "ports": [{"port": 80, "protocol": "TCP", "error": "x"}]}]},
        "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": T, "reason": "R", "message": ""}]}),
     ["status", "loadBalancer", "ingress", 0, "ports", 0],
     (["status", "loadBalancer", "ingress", 0, "ports", 0, "port"], "80/TCP")),
    ("namespace-conditions", _obj("v1", "Namespace", None, {"phase": "Terminating", "conditions": [
        _condition(type="NamespaceDeletionContentFailure", status="False")]}),
     ["status", "conditions", 0], (["status", "conditions", 0, "status"], False)),
]




def _errors(obj: dict) -> list[str]:
    try:
        load_objects([obj], source="o.yaml")
    except ManifestError as e:
        return str(e).splitlines()
    return []


def _name(obj: dict) -> str:
    ns = obj["metadata"].get("namespace")
    return f"{obj['kind']} {ns + '/' if ns else ''}o"


CASES = [pytest.param(obj, where, wrong, id=name) for name, obj, where, wrong in BLOCKS]


@pytest.mark.parametrize(("obj", "where", "wrong"), CASES)
def test_a_valid_block_loads_and_dumps_back(obj, where, wrong):
    [loaded] = load_objects([copy.deepcopy(obj)], source="o.yaml")
    dumped = json.loads(json.dumps(loaded.model_dump(mode="json", by_alias=True, exclude_unset=True)))
    for part in ("spec", "status"):
        if part in obj:
            assert dumped[part] == obj[part]


@pytest.mark.parametrize(("obj", "where", "wrong"), CASES)
def test_a_misspelt_key_is_refused_with_its_path(obj, where, wrong):
    bad = copy.deepcopy(obj)
    at(bad, where)["bogusField"] = 1
    assert _errors(bad) == [f'o.yaml: {_name(obj)}: {dotted(where)}.bogusField: unknown field "bogusField"']


@pytest.mark.parametrize(("obj", "where", "wrong"), CASES)
def test_a_value_of_the_wrong_type_is_refused_with_its_path(obj, where, wrong):
    path, value = wrong
    bad = copy.deepcopy(obj)
    at(bad, path[:-1])[path[-1]] = value
    [line] = _errors(bad)
    assert line.startswith(f"o.yaml: {_name(obj)}: {dotted(path)}")
