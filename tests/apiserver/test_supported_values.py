"""Invalid values refused per object as the API server refuses them: enumerated fields, owner
references, a PodDisruptionBudget with both bounds, counts the JSON decoder cannot hold; the rest
of the input applies (kubectl apply -f)."""

from __future__ import annotations

import json
import textwrap

import pytest

from kschedlab.api.apps import DaemonSet, Deployment
from kschedlab.api.batch import Job
from kschedlab.api.core import Pod
from kschedlab.api.errors import ManifestError
from kschedlab.api.loader import load_text
from kschedlab.api.meta import OwnerReference
from kschedlab.api.policy import PodDisruptionBudget
from kschedlab.apiserver.admission import admit
from kschedlab.apiserver.apply import RefusedObjectsWarning
from kschedlab.apiserver.object_validation import decode_error, object_errors, owner_references_errors
from kschedlab.apiserver.pod_update import update_pod
from kschedlab.apiserver.supported_values import enum_errors
from kschedlab.cli import main
from kschedlab.controllers.manifests import load_manifests

CONTAINER = {"name": "app", "image": "nginx"}


def _pod(**spec):
    return Pod.model_validate({"metadata": {"name": "p", "namespace": "default"},
                               "spec": {"containers": [dict(CONTAINER)], **spec}})


@pytest.mark.parametrize("spec, path, message", [
    ({"restartPolicy": "Sometimes"}, "spec.restartPolicy",
     'Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"'),
    ({"dnsPolicy": "Google"}, "spec.dnsPolicy",
     'Unsupported value: "Google": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"'),
    ({"containers": [{**CONTAINER, "imagePullPolicy": "Maybe"}]}, "spec.containers[0].imagePullPolicy",
     'Unsupported value: "Maybe": supported values: "Always", "IfNotPresent", "Never"'),
    ({"initContainers": [{**CONTAINER, "name": "init", "ports": [{"containerPort": 80, "protocol": "HTTP"}]}]},
     "spec.initContainers[0].ports[0].protocol", 'Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"'),
    ({"tolerations": [{"operator": "Exists", "effect": "NoWay"}]}, "spec.tolerations[0].effect",
     'Unsupported value: "NoWay": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"'),
    ({"topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "Maybe"}]},
     "spec.topologySpreadConstraints[0].whenUnsatisfiable",
     'Unsupported value: "Maybe": supported values: "DoNotSchedule", "ScheduleAnyway"'),
    ({"topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
                                     "nodeTaintsPolicy": "Respect"}]},
     "spec.topologySpreadConstraints[0].nodeTaintsPolicy", 'Unsupported value: "Respect": supported values: "Honor", '
                                                           '"Ignore"'),
    ({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "zone", "operator": "Equal", "values": ["a"]}]}]}}}},
     "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
     ".matchExpressions[0].operator", 'Invalid value: "Equal": not a valid selector operator'),
    ({"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"topologyKey": "zone", "labelSelector": {"matchExpressions": [{"key": "app", "operator": "Gt",
                                                                        "values": ["1"]}]}}]}}},
     "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector"
     ".matchExpressions[0].operator", 'Invalid value: "Gt": not a valid selector operator'),
])
def test_an_unsupported_pod_enum_is_one_error_at_its_path(spec, path, message):
    assert enum_errors(_pod(**spec)) == [(path, message)]


def test_supported_values_pass():
    pod = _pod(restartPolicy="OnFailure", dnsPolicy="None", preemptionPolicy="Never",
               tolerations=[{"key": "k", "operator": "Equal", "value": "v", "effect": "NoExecute"}],
               topologySpreadConstraints=[{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway",
                                           "nodeAffinityPolicy": "Ignore", "nodeTaintsPolicy": "Honor"}])
    assert enum_errors(pod) == []


def test_a_pods_own_preemption_policy_is_left_to_the_priority_plugin_a_templates_is_not():
    assert enum_errors(_pod(preemptionPolicy="Sometimes")) == []
    d = Deployment.model_validate({"metadata": {"name": "web"}, "spec": {"template": {"spec": {
        "preemptionPolicy": "Sometimes", "containers": [CONTAINER]}}}})
    assert enum_errors(d) == [("spec.template.spec.preemptionPolicy",
                               'Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"')]


def test_a_templates_toleration_operator_is_checked_a_pods_own_at_admission():
    assert enum_errors(_pod(tolerations=[{"key": "k", "operator": "In"}])) == []
    d = Deployment.model_validate({"metadata": {"name": "web"}, "spec": {"template": {"spec": {
        "tolerations": [{"key": "k", "operator": "In"}], "containers": [CONTAINER]}}}})
    assert enum_errors(d) == [("spec.template.spec.tolerations[0].operator",
                               'Unsupported value: "In": supported values: "Equal", "Exists"')]


def test_a_pod_update_with_an_unsupported_value_is_refused():
    with pytest.raises(ManifestError) as ei:
        update_pod(admit([_pod()])[0], {"spec": {"tolerations": [{"key": "k", "operator": "Exists", "effect": "Sometimes"}]}})
    assert str(ei.value) == ('Pod default/p: spec.tolerations[0].effect: Unsupported value: "Sometimes": supported '
                             'values: "NoSchedule", "PreferNoSchedule", "NoExecute"')


def test_a_replicating_templates_restart_policy_must_be_always():
    d = Deployment.model_validate({"metadata": {"name": "web"}, "spec": {"template": {"spec": {
        "restartPolicy": "OnFailure", "containers": [CONTAINER]}}}})
    assert enum_errors(d) == [("spec.template.spec.restartPolicy",
                               'Unsupported value: "OnFailure": supported values: "Always"')]


@pytest.mark.parametrize("policy, message", [
    (None, 'Required value: valid values: "OnFailure", "Never"'),
    ("Always", 'Required value: valid values: "OnFailure", "Never"'),
    ("Sometimes", 'Unsupported value: "Sometimes": supported values: "OnFailure", "Never"'),
    ("OnFailure", None),
])
def test_a_jobs_pods_restart_on_failure_or_never(policy, message):
    template = {"spec": {"containers": [CONTAINER], **({"restartPolicy": policy} if policy else {})}}
    job = Job.model_validate({"metadata": {"name": "j"}, "spec": {"template": template}})
    errors = [e for e in enum_errors(job) if "supported values: \"Always\", " not in e[1]]
    assert errors == ([] if message is None else [("spec.template.spec.restartPolicy", message)])


def test_strategies_completion_mode_and_eviction_policy():
    ds = DaemonSet.model_validate({"metadata": {"name": "agent"}, "spec": {
        "updateStrategy": {"type": "Rolling", "rollingUpdate": {"maxUnavailable": 1}},
        "template": {"spec": {"containers": [CONTAINER]}}}})
    assert enum_errors(ds) == [("spec.updateStrategy", 'Unsupported value: apps.DaemonSetUpdateStrategy{Type:"Rolling",'
                                                       ' RollingUpdate:(*apps.RollingUpdateDaemonSet)(0xc000010020)}: '
                                                       'supported values: "RollingUpdate", "OnDelete"')]
    job = Job.model_validate({"metadata": {"name": "j"}, "spec": {"completionMode": "Ordered", "template": {
        "spec": {"restartPolicy": "Never", "containers": [CONTAINER]}}}})
    assert enum_errors(job) == [("spec.completionMode",
                                 'Unsupported value: "Ordered": supported values: "NonIndexed", "Indexed"')]
    pdb = PodDisruptionBudget.model_validate({"metadata": {"name": "b"}, "spec": {
        "unhealthyPodEvictionPolicy": "Never", "selector": {"matchExpressions": [{"key": "a", "operator": "Has"}]}}})
    assert enum_errors(pdb) == [
        ("spec.selector.matchExpressions[0].operator", 'Invalid value: "Has": not a valid selector operator'),
        ("spec.unhealthyPodEvictionPolicy",
         'Unsupported value: "Never": supported values: "AlwaysAllow", "IfHealthyBudget"')]


@pytest.mark.parametrize("ref, errors", [
    ({"apiVersion": "", "kind": "ReplicaSet", "name": "rs", "uid": "1"},
     [("metadata.ownerReferences.apiVersion", 'Invalid value: "": version must not be empty')]),
    ({"apiVersion": "apps/v1/x", "kind": "ReplicaSet", "name": "rs", "uid": "1"},
     [("metadata.ownerReferences.apiVersion", 'Invalid value: "apps/v1/x": version must not be empty')]),
    ({"apiVersion": "apps/v1", "kind": "", "name": "", "uid": ""},
     [("metadata.ownerReferences.kind", 'Invalid value: "": must not be empty'),
      ("metadata.ownerReferences.name", 'Invalid value: "": must not be empty'),
      ("metadata.ownerReferences.uid", 'Invalid value: "": must not be empty')]),
    ({"apiVersion": "v1", "kind": "Node", "name": "n1", "uid": "u"}, []),
])
def test_owner_reference_fields_must_be_set(ref, errors):
    assert owner_references_errors([OwnerReference.model_validate(ref)], ["metadata", "ownerReferences"]) == errors


def test_pdb_with_both_bounds_is_refused():
    pdb = PodDisruptionBudget.model_validate({"metadata": {"name": "b", "namespace": "default"},
                                              "spec": {"minAvailable": "50%", "maxUnavailable": 1}})
    ((path, message),) = object_errors(pdb)
    assert path == "spec" and message.endswith(": minAvailable and maxUnavailable cannot be both set")
    assert message.startswith("Invalid value: policy.PodDisruptionBudgetSpec{MinAvailable:(*intstr.IntOrString)(")


def test_a_pdb_spec_shows_each_set_pointer_as_an_address_of_its_own():
    # Go's %#v prints a heap address per set pointer, as kubectl shows it: (*intstr.IntOrString)(0xc01a234760)
    pdb = PodDisruptionBudget.model_validate({"metadata": {"name": "b", "namespace": "default"}, "spec": {
        "minAvailable": 1, "maxUnavailable": 1, "selector": {"matchLabels": {"app": "web"}}}})
    ((_, message),) = object_errors(pdb)
    assert message == ("Invalid value: policy.PodDisruptionBudgetSpec{MinAvailable:(*intstr.IntOrString)(0xc000010000), "
                       "Selector:(*v1.LabelSelector)(0xc000010020), MaxUnavailable:(*intstr.IntOrString)(0xc000010040), "
                       "UnhealthyPodEvictionPolicy:(*policy.UnhealthyPodEvictionPolicyType)(nil)}: minAvailable and "
                       "maxUnavailable cannot be both set")


@pytest.mark.parametrize("kind, spec, field", [
    ("ReplicaSet", {"replicas": 2**31}, "ReplicaSetSpec.spec.replicas"),
    ("StatefulSet", {"replicas": -(2**31) - 1}, "StatefulSetSpec.spec.replicas"),
    ("Job", {"parallelism": 1, "completions": 2**40}, "JobSpec.spec.completions"),
])
def test_a_count_past_int32_is_a_decode_error_before_validation(kind, spec, field):
    api = "batch/v1" if kind == "Job" else "apps/v1"
    (obj,) = load_text(json.dumps({"apiVersion": api, "kind": kind, "metadata": {"name": "Bad_Name"}, "spec": spec}))
    value = next(v for k, v in spec.items() if k in field)
    message = (f'{kind} in version "v1" cannot be handled as a {kind}: json: cannot unmarshal number {value} into '
               f"Go struct field {field} of type int32")
    assert decode_error(obj) == message
    assert object_errors(obj) == [("", message)]  # the bad name is never validated


@pytest.mark.parametrize("value, literal", [('"3"', "string"), ("true", "bool"), ("{n: 3}", "object"),
                                            ("[3]", "array"), ("2.5", "number 2.5"), ("1e21", "number 1e+21")])
def test_a_count_of_the_wrong_type_is_that_objects_bad_request(value, literal):
    text = textwrap.dedent(f"""\
        apiVersion: apps/v1
        kind: StatefulSet
        metadata: {{name: db}}
        spec:
          replicas: {value}
          selector: {{matchLabels: {{app: db}}}}
          template:
            metadata: {{labels: {{app: db}}}}
            spec: {{containers: [{{name: pg, image: postgres}}]}}
        ---
        apiVersion: v1
        kind: Pod
        metadata: {{name: good}}
        spec: {{containers: [{{name: app, image: nginx}}]}}
        """)
    with pytest.warns(RefusedObjectsWarning):
        out = load_manifests(text=text, source="db.yaml")
    assert [o.key for o in out] == ["default/good"]
    assert [r.kubectl() for r in out.refused] == [
        'Error from server (BadRequest): error when creating "db.yaml": StatefulSet in version "v1" cannot be handled '
        f"as a StatefulSet: json: cannot unmarshal {literal} into Go struct field StatefulSetSpec.spec.replicas of "
        "type int32"]


MANIFEST = textwrap.dedent("""\
    apiVersion: v1
    kind: Node
    metadata: {name: n1}
    status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
    ---
    apiVersion: scheduling.k8s.io/v1
    kind: PriorityClass
    metadata: {name: sometimes}
    value: 10
    preemptionPolicy: Sometimes
    ---
    apiVersion: v1
    kind: Pod
    metadata: {name: bad-restart}
    spec: {restartPolicy: Sometimes, containers: [{name: app, image: nginx}]}
    ---
    apiVersion: v1
    kind: Pod
    metadata:
      name: orphan
      ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: rs}]
    spec: {containers: [{name: app, image: nginx}]}
    ---
    apiVersion: policy/v1
    kind: PodDisruptionBudget
    metadata: {name: both}
    spec: {minAvailable: 1, maxUnavailable: 1}
    ---
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: huge}
    spec:
      replicas: 1e18
      selector: {matchLabels: {app: huge}}
      template:
        metadata: {labels: {app: huge}}
        spec: {containers: [{name: app, image: nginx}]}
    ---
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: web}
    spec:
      replicas: 2
      selector: {matchLabels: {app: web}}
      template:
        metadata: {labels: {app: web}}
        spec: {tolerations: [{operator: Exists, effect: Sometimes}], containers: [{name: app, image: nginx}]}
    ---
    apiVersion: v1
    kind: Pod
    metadata: {name: good}
    spec: {containers: [{name: app, image: nginx}]}
    """)

KUBECTL = [
    'The PriorityClass "sometimes" is invalid: preemptionPolicy: Unsupported value: "Sometimes": supported values: '
    '"PreemptLowerPriority", "Never"',
    'The Pod "bad-restart" is invalid: spec.restartPolicy: Unsupported value: "Sometimes": supported values: '
    '"Always", "OnFailure", "Never"',
    'The Pod "orphan" is invalid: metadata.ownerReferences.uid: Invalid value: "": must not be empty',
    'The PodDisruptionBudget "both" is invalid: spec: Invalid value: policy.PodDisruptionBudgetSpec{MinAvailable:'
    "(*intstr.IntOrString)(0xc000010000), Selector:(*v1.LabelSelector)(nil), MaxUnavailable:(*intstr.IntOrString)"
    "(0xc000010040), UnhealthyPodEvictionPolicy:(*policy.UnhealthyPodEvictionPolicyType)(nil)}: minAvailable and "
    "maxUnavailable cannot be both set",
    'Error from server (BadRequest): error when creating "{file}": Deployment in version "v1" cannot be handled as a '
    "Deployment: json: cannot unmarshal number 1000000000000000000 into Go struct field DeploymentSpec.spec.replicas "
    "of type int32",
    'The Deployment "web" is invalid: spec.template.spec.tolerations[0].effect: Unsupported value: "Sometimes": '
    'supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
]


def test_each_bad_object_is_left_out_and_the_rest_applies():
    with pytest.warns(RefusedObjectsWarning):
        out = load_manifests(text=MANIFEST, source="m.yaml")
    assert sorted(o.key for o in out) == ["default/good", "n1"]
    assert sorted(r.kubectl() for r in out.refused) == sorted(k.replace("{file}", "m.yaml") for k in KUBECTL)
    assert [r.reason for r in out.refused if r.name == "huge"] == ["BadRequest"]


@pytest.mark.parametrize("command", ["schedule", "simulate"])
def test_the_cli_reports_each_refusal_and_places_the_rest(tmp_path, capsys, command):
    path = tmp_path / "m.yaml"
    path.write_text(MANIFEST)
    code = main([command, str(path), "-o", "json"])
    captured = capsys.readouterr()
    assert code == 1  # kubectl apply's: an object of the files was refused
    assert sorted(captured.err.splitlines()) == sorted(k.replace("{file}", str(path)) for k in KUBECTL)
    doc = json.loads(captured.out)
    placed = {p.get("name", p.get("pod")): p["node"] for p in doc["pods"]}  # simulate names it "pod"
    assert placed == {"default/good": "n1"}


@pytest.mark.parametrize("event, error", [
    ("addNode: {apiVersion: v1, kind: Node, metadata: {name: n2}, spec: {taints: [{key: k, effect: Sometimes}]}}",
     'error: <data>: Node n2: spec.taints[0].effect: Unsupported value: "Sometimes": supported values: '
     '"NoSchedule", "PreferNoSchedule", "NoExecute"'),
    ("setTaints: {node: n1, taints: [{key: k, effect: Sometimes}]}",
     'error: {file}: Simulation s: spec.events[0].setTaints.taints: [0].effect: Unsupported value: "Sometimes": '
     'supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"'),
])
def test_a_simulation_event_with_an_unsupported_taint_effect_is_refused(tmp_path, capsys, event, error):
    path = tmp_path / "sim.yaml"
    path.write_text(MANIFEST.split("---\n")[0] + "---\napiVersion: kschedlab.io/v1alpha1\nkind: Simulation\n"
                    f"metadata: {{name: s}}\nspec:\n  events:\n  - at: 5\n    {event}\n")
    assert main(["simulate", str(path)]) == 2
    assert capsys.readouterr().err.strip() == error.replace("{file}", str(path))
