"""A container's own restartPolicy and restartPolicyRules, refused per object as the API server
refuses them (``kschedlab.apiserver.container_restart``); messages as upstream's
``pkg/apis/core/validation`` words them and as kubectl prints them."""

from __future__ import annotations

import textwrap

import pytest

from kschedlab.api.apps import Deployment
from kschedlab.api.core import Pod
from kschedlab.apiserver.apply import RefusedObjectsWarning
from kschedlab.apiserver.object_validation import object_errors
from kschedlab.controllers.manifests import load_manifests

APP = {"name": "app", "image": "nginx"}
PROBE = {"exec": {"command": ["true"]}}
RULE = {"action": "Restart", "exitCodes": {"operator": "In", "values": [42]}}


def _errors(**spec):
    pod = Pod.model_validate({"metadata": {"name": "p", "namespace": "default"},
                              "spec": {"containers": [dict(APP)], **spec}})
    return object_errors(pod)


@pytest.mark.parametrize("field", ["lifecycle", "livenessProbe", "readinessProbe", "startupProbe"])
def test_only_a_sidecar_among_init_containers_may_have_probes_and_lifecycle(field):
    value = {"preStop": {"exec": {"command": ["true"]}}} if field == "lifecycle" else PROBE
    assert _errors(initContainers=[{"name": "proxy", "image": "envoy", "restartPolicy": "Always", field: value}]) == []
    assert _errors(initContainers=[{"name": "setup", "image": "busybox", field: value}]) == [
        (f"spec.initContainers[0].{field}", "Forbidden: may not be set for init containers without restartPolicy=Always")]


@pytest.mark.parametrize("group", ["containers", "initContainers"])
def test_restart_rules_need_the_containers_own_restart_policy(group):
    rules = [dict(RULE)]
    bad = {"name": "worker", "image": "busybox", "restartPolicyRules": rules}
    spec = {group: [bad]} if group == "initContainers" else {"containers": [bad]}
    assert _errors(**spec) == [(f"spec.{group}[0].restartPolicy",
                                "Required value: must specify restartPolicy when restart rules are used")]
    good = {**bad, "restartPolicy": "Never"}
    assert _errors(**({group: [good]} if group == "initContainers" else {"containers": [good]})) == []


@pytest.mark.parametrize("rule, path, message", [
    ({"action": "Restart", "exitCodes": {"values": [1]}}, "restartPolicyRules[0].exitCodes.operator",
     'Unsupported value: "": supported values: "In", "NotIn"'),
    ({"action": "Restart", "exitCodes": {"operator": "Between", "values": [1]}},
     "restartPolicyRules[0].exitCodes.operator", 'Unsupported value: "Between": supported values: "In", "NotIn"'),
    ({"action": "Restart"}, "restartPolicyRules[0].exitCodes", "Required value: must be specified"),
    ({"action": "DoNotRestart", "exitCodes": {"operator": "In", "values": [3]}}, "restartPolicyRules[0].action",
     'Unsupported value: "DoNotRestart": supported values: "Restart", "RestartAllContainers"'),
    ({"exitCodes": {"operator": "In", "values": [3]}}, "restartPolicyRules[0].action",
     'Unsupported value: "": supported values: "Restart", "RestartAllContainers"'),
    ({"action": "Restart", "exitCodes": {"operator": "NotIn", "values": list(range(256))}},
     "restartPolicyRules[0].exitCodes.values", "Too many: 256: must have at most 255 items"),
])
def test_a_bad_restart_rule(rule, path, message):
    container = {**APP, "restartPolicy": "Never", "restartPolicyRules": [rule]}
    assert _errors(containers=[container]) == [(f"spec.containers[0].{path}", message)]


@pytest.mark.parametrize("rule", [
    {"action": "Restart", "exitCodes": {"operator": "In", "values": []}},
    {"action": "RestartAllContainers", "exitCodes": {"operator": "NotIn", "values": [0]}},
    {"action": "Restart", "exitCodes": {"operator": "In", "values": [-1, 256, 300]}},
])
def test_rules_a_v1_36_api_server_accepts(rule):
    container = {**APP, "restartPolicy": "Never", "restartPolicyRules": [rule]}
    assert _errors(restartPolicy="Never", containers=[container]) == []


def test_at_most_20_restart_rules():
    container = {**APP, "restartPolicy": "Never", "restartPolicyRules": [dict(RULE)] * 21}
    assert _errors(containers=[container]) == [("spec.containers[0].restartPolicyRules",
                                                "Too many: 21: must have at most 20 items")]
    container["restartPolicyRules"] = [dict(RULE)] * 20
    assert _errors(containers=[container]) == []


def test_a_template_is_checked_where_it_sits():
    deployment = Deployment.model_validate({"metadata": {"name": "web"}, "spec": {
        "selector": {"matchLabels": {"app": "web"}},
        "template": {"metadata": {"labels": {"app": "web"}}, "spec": {
            "initContainers": [{"name": "warm", "image": "busybox", "startupProbe": PROBE}],
            "containers": [dict(APP)]}}}})
    assert object_errors(deployment) == [
        ("spec.template.spec.initContainers[0].startupProbe",
         "Forbidden: may not be set for init containers without restartPolicy=Always")]


def test_kubectl_apply_refuses_only_the_bad_pod():
    text = textwrap.dedent("""\
        apiVersion: v1
        kind: Pod
        metadata: {name: gangwait}
        spec:
          containers:
          - {name: main, image: busybox}
          - name: retry
            image: busybox
            restartPolicyRules:
            - {action: Restart, exitCodes: {operator: In, values: [3]}}
        ---
        apiVersion: v1
        kind: Pod
        metadata: {name: with-sidecar}
        spec:
          initContainers:
          - {name: proxy, image: envoy, restartPolicy: Always, readinessProbe: {tcpSocket: {port: 9901}}}
          containers:
          - {name: app, image: nginx}
        """)
    with pytest.warns(RefusedObjectsWarning):
        out = load_manifests(text=text, source="pods.yaml")
    assert [o.key for o in out] == ["default/with-sidecar"]
    assert [r.kubectl() for r in out.refused] == [
        'The Pod "gangwait" is invalid: spec.containers[1].restartPolicy: Required value: must specify restartPolicy '
        "when restart rules are used"]
