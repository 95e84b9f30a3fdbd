"""``kubectl apply -f`` semantics of load_manifests and ``kschedlab schedule``: refused objects
are reported and left out, the rest applies, controllers record FailedCreate, malformed input
still refuses everything, ``strict`` refuses at the first refusal."""

from __future__ import annotations

import json
import warnings

import pytest

from kschedlab import Cluster
from kschedlab.api import load_manifests
from kschedlab.api.errors import ManifestError
from kschedlab.apiserver.apply import RefusedObjectsWarning
from kschedlab.cli import main

NODE = """\
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
"""

QUOTA_AND_DEPLOYMENT = NODE + """\
---
apiVersion: v1
kind: ResourceQuota
metadata: {name: two-pods}
spec: {hard: {pods: "2"}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: app, image: nginx}]}
"""


#: a DaemonSet whose pods name a RuntimeClass that does not exist (a mutating admission plugin refuses them)
AGENT_WITHOUT_RUNTIME_CLASS = """\
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {runtimeClassName: gvisor, containers: [{name: agent, image: busybox}]}
"""


def _load(text, **kw):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        objs = load_manifests(text=text, source="app.yaml", **kw)
    return objs, [w.message for w in caught if isinstance(w.message, RefusedObjectsWarning)]


def test_refused_objects_are_left_out_and_the_rest_applies():
    text = NODE + """\
---
apiVersion: v1
kind: Pod
metadata: {name: gold}
spec: {priorityClassName: gold, containers: [{name: app, image: nginx}]}
---
apiVersion: v1
kind: Pod
metadata: {name: sandboxed}
spec: {runtimeClassName: gvisor, containers: [{name: app, image: nginx}]}
---
apiVersion: v1
kind: Pod
metadata: {name: greater}
spec:
  tolerations: [{key: gpu-count, operator: Gt, value: "2", effect: NoSchedule}]
  containers: [{name: app, image: nginx}]
---
apiVersion: v1
kind: Pod
metadata: {name: fine}
spec: {containers: [{name: app, image: nginx}]}
"""
    objs, warned = _load(text)
    assert [o.key for o in objs] == ["n1", "default/fine"]
    assert [r.kubectl() for r in objs.refused] == [
        'Error from server (Forbidden): error when creating "app.yaml": pods "gold" is forbidden: '
        "no PriorityClass with name gold was found",
        'Error from server (Forbidden): error when creating "app.yaml": pods "sandboxed" is forbidden: '
        'pod rejected: RuntimeClass "gvisor" not found',
        'The Pod "greater" is invalid: spec.tolerations[0].operator: Unsupported value: "Gt": supported values: '
        '"Equal", "Exists"',
    ]
    (warning,) = warned
    assert warning.refused == objs.refused and str(warning) == "\n".join(r.kubectl() for r in objs.refused)
    cluster = Cluster(objs)
    assert [r.obj.key for r in cluster.refused] == ["default/gold", "default/sandboxed", "default/greater"]
    assert list(cluster.pods) == ["default/fine"]


def test_a_priority_or_preemption_policy_set_by_hand_is_forbidden_as_the_priority_plugin_says():
    text = NODE + """\
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: never}
value: 10
preemptionPolicy: Never
---
apiVersion: v1
kind: Pod
metadata: {name: by-hand}
spec: {priority: 1000, containers: [{name: app, image: nginx}]}
---
apiVersion: v1
kind: Pod
metadata: {name: policy-by-hand}
spec: {priorityClassName: never, preemptionPolicy: PreemptLowerPriority, containers: [{name: app, image: nginx}]}
"""
    objs, _ = _load(text)
    assert [r.kubectl() for r in objs.refused] == [
        'Error from server (Forbidden): error when creating "app.yaml": pods "by-hand" is forbidden: the integer '
        "value of priority (1000) must not be provided in pod spec; priority admission controller computed 0 "
        "from the given PriorityClass name",
        'Error from server (Forbidden): error when creating "app.yaml": pods "policy-by-hand" is forbidden: the '
        "string value of PreemptionPolicy (PreemptLowerPriority) must not be provided in pod spec; priority "
        "admission controller computed Never from the given PriorityClass name",
    ]


def test_owner_references_with_two_controllers_or_an_event_owner_are_invalid():
    text = NODE + """\
---
apiVersion: v1
kind: Pod
metadata:
  name: two-controllers
  ownerReferences:
  - {apiVersion: apps/v1, kind: ReplicaSet, name: a, uid: "1", controller: true}
  - {apiVersion: apps/v1, kind: ReplicaSet, name: b, uid: "2", controller: true, blockOwnerDeletion: true}
spec: {containers: [{name: app, image: nginx}]}
---
apiVersion: v1
kind: Pod
metadata:
  name: event-owned
  ownerReferences: [{apiVersion: v1, kind: Event, name: "e<1>", uid: "3"}]
spec: {containers: [{name: app, image: nginx}]}
"""
    objs, _ = _load(text)
    assert [o.key for o in objs] == ["n1"]
    assert [r.kubectl() for r in objs.refused] == [
        'The Pod "two-controllers" is invalid: metadata.ownerReferences: Invalid value: [{"apiVersion":"apps/v1",'
        '"kind":"ReplicaSet","name":"a","uid":"1","controller":true},{"apiVersion":"apps/v1","kind":"ReplicaSet",'
        '"name":"b","uid":"2","controller":true,"blockOwnerDeletion":true}]: Only one reference can have Controller '
        'set to true. Found "true" in references for ReplicaSet/a and ReplicaSet/b',
        'The Pod "event-owned" is invalid: metadata.ownerReferences: Invalid value: {"apiVersion":"v1",'
        '"kind":"Event","name":"e\\u003c1\\u003e","uid":"3"}: /v1, Kind=Event is disallowed from being an owner',
    ]


def test_a_pdb_budget_above_100_percent_negative_or_not_a_percentage_is_invalid():
    pdb = "---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {{name: {name}}}\nspec: {{{spec}}}\n"
    text = NODE + "".join(pdb.format(name=n, spec=spec) for n, spec in [
        ("too-many", 'minAvailable: "150%"'), ("negative", "maxUnavailable: -1"), ("typo", 'maxUnavailable: "10 %"'),
        ("fine", 'minAvailable: "100%"')])
    objs, _ = _load(text)
    assert [o.key for o in objs] == ["n1", "default/fine"]
    assert [r.kubectl() for r in objs.refused] == [
        'The PodDisruptionBudget "too-many" is invalid: spec.minAvailable: Invalid value: "150%": must not be '
        "greater than 100%",
        'The PodDisruptionBudget "negative" is invalid: spec.maxUnavailable: Invalid value: -1: must be greater than '
        "or equal to 0",
        'The PodDisruptionBudget "typo" is invalid: spec.maxUnavailable: Invalid value: "10 %": a valid percent '
        "string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation "
        "is '[0-9]+%')",
    ]


def test_strict_refuses_everything_at_a_refusal():
    text = NODE + "---\napiVersion: v1\nkind: Pod\nmetadata: {name: gold}\n" \
                  "spec: {priorityClassName: gold, containers: [{name: app, image: nginx}]}\n"
    with pytest.raises(ManifestError, match="spec.priorityClassName: no PriorityClass with name gold was found"):
        load_manifests(text=text, strict=True)


def test_malformed_documents_refuse_the_whole_input():
    text = NODE + "---\napiVersion: v1\nkind: Pod\nmetadata: {name: typo}\nspec: {containerz: []}\n"
    with pytest.raises(ManifestError, match='Pod default/typo: spec.containerz: unknown field "containerz"'):
        load_manifests(text=text)


def test_replicaset_records_failed_create_for_pods_the_quota_refuses():
    objs, _ = _load(QUOTA_AND_DEPLOYMENT)
    pods = [o for o in objs if o.kind == "Pod"]
    (rs,) = [o for o in objs if o.kind == "ReplicaSet"]
    (refusal,) = objs.refused
    assert len(pods) == 2
    assert {p.metadata.generate_name for p in pods} == {f"{rs.name}-"}  # as the controller submitted them
    # ResourceQuota is a validating plugin: the name is generated by then
    assert refusal.message == (f'pods "{refusal.obj.metadata.name}" is forbidden: exceeded quota: two-pods, '
                               "requested: pods=1, used: pods=2, limited: pods=2")
    (event,) = objs.events
    assert (event.involved, event.type, event.reason, event.source) == (
        f"ReplicaSet {rs.key}", "Warning", "FailedCreate", "replicaset-controller")
    assert event.message == "Error creating: " + refusal.message
    (condition,) = rs.status.conditions
    assert condition.model_dump(by_alias=True, exclude_none=True) == {"type": "ReplicaFailure", "status": "True", "reason": "FailedCreate",
                         "message": refusal.message}


def test_statefulset_and_job_events():
    text = NODE + """\
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 1
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {priorityClassName: missing, containers: [{name: db, image: postgres}]}
---
apiVersion: batch/v1
kind: Job
metadata: {name: pi}
spec:
  template:
    spec:
      restartPolicy: Never
      priorityClassName: missing
      containers: [{name: pi, image: perl}]
""" + AGENT_WITHOUT_RUNTIME_CLASS
    objs, _ = _load(text)
    messages = {e.involved: e.message for e in objs.events}
    assert {e.involved: e.source for e in objs.events}["DaemonSet default/agent"] == "daemonset-controller"
    # the DaemonSet, Job and ReplicaSet controllers submit their pods with generateName and no name: a
    # mutating admission plugin refuses a pod whose name is not generated yet, and says its generateName
    assert messages["DaemonSet default/agent"] == (
        'Error creating: pods "agent-" is forbidden: pod rejected: RuntimeClass "gvisor" not found')
    assert messages["StatefulSet default/db"] == (
        'create Pod db-0 in StatefulSet db failed error: pods "db-0" is forbidden: '
        "no PriorityClass with name missing was found")
    (job_event,) = [m for k, m in messages.items() if k.startswith("Job ")]
    assert job_event == 'Error creating: pods "pi-" is forbidden: no PriorityClass with name missing was found'


def test_cli_reports_failed_create_of_a_controllers_pod(tmp_path, capsys):
    # kubectl sent only the Deployment, which was created: it prints nothing and exits 0; the
    # refused third pod is the ReplicaSet's FailedCreate event
    f = tmp_path / "app.yaml"
    f.write_text(QUOTA_AND_DEPLOYMENT)
    assert main(["schedule", str(f)]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    assert "2 pods: 2 running, 0 pending" in captured.out
    assert "refused by the API server: Pod default/web-" in captured.out
    assert "(created by ReplicaSet default/web-" in captured.out
    assert "event: ReplicaSet default/web-" in captured.out and "Warning FailedCreate" in captured.out
    assert main(["schedule", str(f), "-o", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [(r["reason"], r["createdBy"].split("-")[0]) for r in doc["refused"]] == [
        ("Forbidden", "ReplicaSet default/web")]
    assert [e["reason"] for e in doc["events"]] == ["FailedCreate"]
    assert main(["schedule", str(f), "--strict"]) == 2
    assert "exceeded quota: two-pods" in capsys.readouterr().err


def test_cli_exit_status_is_kubectls_for_a_refused_object_of_the_files(tmp_path, capsys):
    f = tmp_path / "pods.yaml"
    f.write_text(NODE + "---\napiVersion: v1\nkind: Pod\nmetadata: {name: gold}\n"
                        "spec: {priorityClassName: gold, containers: [{name: app, image: nginx}]}\n")
    assert main(["schedule", str(f)]) == 1
    assert capsys.readouterr().err == (f'Error from server (Forbidden): error when creating "{f}": pods "gold" is '
                                       "forbidden: no PriorityClass with name gold was found\n")


@pytest.mark.parametrize(("api_version", "kind", "served", "release"), [
    ("policy/v1beta1", "PodDisruptionBudget", "policy/v1", "v1.25"),
    ("batch/v1beta1", "CronJob", "batch/v1", "v1.25"),
    ("extensions/v1beta1", "Deployment", "apps/v1", "v1.16"),
])
def test_removed_api_versions_name_the_served_one(tmp_path, capsys, api_version, kind, served, release):
    f = tmp_path / "old.yaml"
    f.write_text(NODE + f"---\napiVersion: {api_version}\nkind: {kind}\nmetadata: {{name: legacy}}\nspec: {{}}\n")
    assert main(["schedule", str(f)]) == 2  # nothing is applied
    assert capsys.readouterr().err == (
        f'error: {f}: document 2 ({kind} legacy): no matches for kind "{kind}" in version "{api_version}": '
        f"the API server serves it as apiVersion: {served} ({api_version} was removed in Kubernetes {release})\n")


def test_what_a_refused_workload_would_create_never_exists():
    from kschedlab.api.apps import Deployment, ReplicaSet
    from kschedlab.api.core import Pod
    from kschedlab.apiserver.admission import _owned_by_refused

    def owned(kind, name, uid, owner_kind, owner, owner_uid):
        return kind.model_validate({"metadata": {"name": name, "namespace": "default", "uid": uid, "ownerReferences": [
            {"apiVersion": "apps/v1", "kind": owner_kind, "name": owner, "uid": owner_uid, "controller": True}]}})

    dep = Deployment.model_validate({"metadata": {"name": "web", "namespace": "default", "uid": "d1"}})
    rs = owned(ReplicaSet, "web-abc", "r1", "Deployment", "web", "d1")
    pod = owned(Pod, "web-abc-x", "p1", "ReplicaSet", "web-abc", "r1")
    other = owned(Pod, "db-x", "p2", "ReplicaSet", "db-abc", "r2")
    assert _owned_by_refused([dep, rs, pod, other], {id(dep): []}) == {id(rs), id(pod)}
    # a duplicate shares its uid with the object that was created: that one's objects stay
    twin = Deployment.model_validate({"metadata": {"name": "web", "namespace": "default", "uid": "d1"}})
    assert _owned_by_refused([dep, twin, rs, pod], {id(twin): []}) == set()


def test_docs_quota_page_second_pod_is_refused_and_the_first_stays():
    # "Configure Memory and CPU Quotas for a Namespace": the first pod (600Mi / 400m requests) is
    # created; the second (700Mi more) would pass requests.memory 1Gi and is refused
    from pathlib import Path

    public = Path(__file__).resolve().parents[2] / ".." / "shared" / "public-manifests"
    pods = """\
apiVersion: v1
kind: Pod
metadata: {name: quota-mem-cpu-demo}
spec:
  containers:
  - name: quota-mem-cpu-demo-ctr
    image: nginx
    resources: {limits: {memory: 800Mi, cpu: 800m}, requests: {memory: 600Mi, cpu: 400m}}
---
apiVersion: v1
kind: Pod
metadata: {name: quota-mem-cpu-demo-2}
spec:
  containers:
  - name: quota-mem-cpu-demo-2-ctr
    image: redis
    resources: {limits: {memory: 1Gi, cpu: 800m}, requests: {memory: 700Mi, cpu: 400m}}
"""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        objs = load_manifests(public / "web-quota-mem-cpu.yaml", text=pods, source="quota-mem-cpu-pod.yaml")
    assert [o.key for o in objs if o.kind == "Pod"] == ["default/quota-mem-cpu-demo"]
    (refusal,) = objs.refused
    assert refusal.kubectl() == (
        'Error from server (Forbidden): error when creating "quota-mem-cpu-pod.yaml": pods "quota-mem-cpu-demo-2" '
        "is forbidden: exceeded quota: mem-cpu-demo, requested: requests.memory=700Mi, used: requests.memory=600Mi, "
        "limited: requests.memory=1Gi")
    (quota,) = [o for o in objs if o.kind == "ResourceQuota"]
    assert {k: str(v) for k, v in sorted(quota.status.used.items())} == {
        "limits.cpu": "800m", "limits.memory": "800Mi", "requests.cpu": "400m", "requests.memory": "600Mi"}


def test_simulate_applies_as_kubectl_apply_too(tmp_path, capsys):
    f = tmp_path / "app.yaml"
    f.write_text(QUOTA_AND_DEPLOYMENT)
    assert main(["simulate", str(f), "-o", "json"]) == 0
    captured = capsys.readouterr()
    assert "exceeded quota: two-pods" in captured.err and "Warning FailedCreate" in captured.err
    assert not captured.err.startswith("Error from server")
    assert len(json.loads(captured.out)["pods"]) == 2
    assert main(["simulate", str(f), "--strict"]) == 2


@pytest.mark.parametrize(("bad", "message"), [
    ("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: {name: c}}\n",
     "Pod default/p: spec.containers: invalid type: expected array, got object"),
    ("apiVersion: v1\nkind: Pod\nmetadata: {name: p\n", "invalid YAML"),
])
def test_a_malformed_document_refuses_the_valid_ones_too(bad, message):
    with pytest.raises(ManifestError, match=message.replace("[", r"\[")):
        load_manifests(text=NODE + "---\n" + bad)


@pytest.mark.parametrize("meta, shown", [
    ("{generateName: web-}", "web-"),                 # named by the API server after mutating admission
    ("{name: web-1, generateName: web-}", "web-1"),   # a name given: generateName is not used
])
def test_a_mutating_admission_refusal_names_what_the_pod_was_submitted_with(meta, shown):
    objs, _ = _load(NODE + f"""\
---
apiVersion: v1
kind: Pod
metadata: {meta}
spec: {{priorityClassName: missing, containers: [{{name: c, image: nginx}}]}}
""")
    (refusal,) = objs.refused
    assert refusal.message == f'pods "{shown}" is forbidden: no PriorityClass with name missing was found'
    assert refusal.key == f"default/{shown}"


def _deployment(name: str, replicas: int, spec: str) -> str:
    return f"""\
---
apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}}}
spec:
  replicas: {replicas}
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec: {{{spec}containers: [{{name: app, image: nginx}}]}}
"""


def test_a_template_every_create_refuses_costs_one_refusal_as_slow_start_stops_at_the_first_batch(capsys, tmp_path):
    # ReplicaSet, Job and DaemonSet controllers create in batches of 1, 2, 4, ... and stop after a
    # batch with a refused create: the first pod of a refused template is the only one tried
    text = NODE.replace("name: n1}", "name: n1, labels: {zone: a}}") + _deployment(
        "web", 6, "priorityClassName: gold, ") + """\
---
apiVersion: batch/v1
kind: Job
metadata: {name: pi}
spec:
  parallelism: 5
  completions: 5
  template:
    spec: {restartPolicy: Never, priorityClassName: gold, containers: [{name: pi, image: perl}]}
"""
    for i in (2, 3):
        text += "---\n" + NODE.replace("n1", f"n{i}")
    text += AGENT_WITHOUT_RUNTIME_CLASS
    objs, _ = _load(text)
    assert sorted(r.controller.split()[0] for r in objs.refused) == ["DaemonSet", "Job", "ReplicaSet"]
    assert len(objs.events) == 3
    (rs,) = [o for o in objs if o.kind == "ReplicaSet"]
    (web,) = [r for r in objs.refused if r.controller.startswith("ReplicaSet")]
    assert web.key == f"default/{rs.name}-"  # a mutating plugin refused it: the name was never made
    f = tmp_path / "app.yaml"
    f.write_text(text)
    assert main(["schedule", str(f)]) == 0
    assert (f"refused by the API server: Pod default/{rs.name}- (created by ReplicaSet default/{rs.name}): "
            f'pods "{rs.name}-" is forbidden: no PriorityClass with name gold was found') in capsys.readouterr().out


@pytest.mark.parametrize("quota, replicas, created, refused", [
    (2, 3, 2, 1),    # batches 1 | 2: the second batch's second pod is refused
    (3, 10, 3, 4),   # 1 | 2 | 4: all four of the third batch are refused, the last three are not tried
    (4, 10, 4, 3),   # the third batch: one created, three refused
    (0, 10, 0, 1),   # the first batch is refused
    (7, 20, 7, 8),   # 1 | 2 | 4 | 8: the fourth batch is refused whole
])
def test_a_quota_that_runs_out_refuses_the_rest_of_its_batch(quota, replicas, created, refused):
    objs, _ = _load(NODE + f"""\
---
apiVersion: v1
kind: ResourceQuota
metadata: {{name: q}}
spec: {{hard: {{pods: "{quota}"}}}}
""" + _deployment("api", replicas, ""))
    assert sum(o.kind == "Pod" for o in objs) == created
    assert len(objs.refused) == len(objs.events) == refused
    assert all("exceeded quota: q" in r.message for r in objs.refused)
