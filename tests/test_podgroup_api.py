"""Workload / PodGroup / CompositePodGroup API: loading, validation, admission, the Job path.

Seed: podgroup-api.uk.txt (examples are loaded as written); error wording follows the
declarative validators of k8s.io/apimachinery/pkg/api/validate as field.Error prints them.
"""

from __future__ import annotations

import textwrap

import pytest

from kschedlab.api import ManifestError, admit, expand, load_text
from kschedlab.api.core import Pod
from kschedlab.api.podgroup import CompositePodGroup, PodGroup
from kschedlab.api.workloadapi import Workload
from kschedlab.apiserver.podgroup_validation import (
    validate_composite_pod_group,
    validate_pod_group,
    validate_workload,
)
from kschedlab.controllers.workloads import compute_pod_group_name, job_pod_group

ON = {"GenericWorkload": True}
CPG_ON = {"GenericWorkload": True, "CompositePodGroup": True}


def y(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def errs(items) -> list[str]:
    return [f"{path}: {msg}" for path, msg in items]


def pg(spec: dict, name: str = "pg", ns: str = "ns") -> PodGroup:
    return PodGroup.model_validate({"metadata": {"name": name, "namespace": ns}, "spec": spec})


# -- the seed's manifests ----------------------------------------------------------------------------
SEED_RELATIONSHIP = y("""
    apiVersion: scheduling.k8s.io/v1beta1
    kind: Workload
    metadata:
      name: training-policy
    spec:
      podGroupTemplates:
      - name: worker
        schedulingPolicy:
          gang:
            minCount: 4
    ---
    apiVersion: scheduling.k8s.io/v1beta1
    kind: PodGroup
    metadata:
      name: training-worker-0
    spec:
      podGroupTemplateRef:
        workload:
          workloadName: training-policy
          podGroupTemplateName: worker
      schedulingPolicy:
        gang:
          minCount: 4
    ---
    apiVersion: v1
    kind: Pod
    metadata:
      name: worker-0
    spec:
      schedulingGroup:
        podGroupName: training-worker-0
      containers:
      - name: ml-worker
        image: training:v1
""")

SEED_CLAIMS = y("""
    apiVersion: scheduling.k8s.io/v1beta1
    kind: PodGroup
    metadata:
      name: training-group
      namespace: some-ns
    spec:
      schedulingPolicy:
        gang:
          minCount: 4
      disruptionMode:
        all: {}
      priorityClassName: high-priority
      resourceClaims:
      - name: pg-claim
        resourceClaimName: my-pg-claim
      - name: pg-claim-template
        resourceClaimTemplateName: my-pg-template
""")


def test_seed_relationship_manifests_load():
    wl, group, pod = load_text(SEED_RELATIONSHIP, source="seed.yaml")
    assert isinstance(wl, Workload) and wl.template("worker").scheduling_policy.gang.min_count == 4
    assert group.min_count == 4 and group.spec.pod_group_template_ref.workload.pod_group_template_name == "worker"
    assert pod.spec.scheduling_group.pod_group_name == "training-worker-0"
    # round trip: what was loaded dumps back unchanged
    assert group.model_dump(by_alias=True, exclude_unset=True)["spec"]["podGroupTemplateRef"] == {
        "workload": {"workloadName": "training-policy", "podGroupTemplateName": "worker"}}


def test_seed_relationship_admitted_with_generic_workload():
    out = admit(load_text(SEED_RELATIONSHIP), feature_gates=ON)
    group = next(o for o in out if isinstance(o, PodGroup))
    pod = next(o for o in out if isinstance(o, Pod))
    assert group.namespace == "default" and group.spec.priority == 0
    assert group.spec.disruption_mode.single is not None  # +default={"single": {}}
    assert pod.spec.scheduling_group.pod_group_name == "training-worker-0"


def test_seed_claims_example_keeps_claims_as_data():
    group = load_text(SEED_CLAIMS)[0]
    assert [(c.name, c.resource_claim_name, c.resource_claim_template_name) for c in group.spec.resource_claims] == [
        ("pg-claim", "my-pg-claim", None), ("pg-claim-template", None, "my-pg-template")]
    assert group.spec.disruption_mode.all is not None
    pc = "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high-priority}\nvalue: 5000\n"
    out = admit(load_text(pc + "---\n" + SEED_CLAIMS), feature_gates=ON)
    assert out[1].spec.priority == 5000
    assert out[1].spec.preemption_policy is None  # only with the PodGroupPreemptionPolicy gate
    out = admit(load_text(pc + "---\n" + SEED_CLAIMS), feature_gates={**ON, "PodGroupPreemptionPolicy": True})
    assert out[1].spec.preemption_policy == "PreemptLowerPriority"


def test_unknown_field_names_file_object_and_path():
    text = "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: pg, namespace: ns}\n" \
           "spec:\n  schedulingPolicy: {gang: {minCount: 2, maxCount: 3}}\n"
    with pytest.raises(ManifestError) as ei:
        load_text(text, source="pg.yaml")
    assert str(ei.value) == 'pg.yaml: PodGroup ns/pg: spec.schedulingPolicy.gang.maxCount: unknown field "maxCount"'


def test_strict_types():
    text = "apiVersion: scheduling.k8s.io/v1alpha3\nkind: CompositePodGroup\nmetadata: {name: r}\n" \
           "spec: {schedulingPolicy: {gang: {minGroupCount: '2'}}}\n"
    with pytest.raises(ManifestError, match=r"spec\.schedulingPolicy\.gang\.minGroupCount: invalid type"):
        load_text(text, source="c.yaml")


def test_api_versions():
    assert PodGroup.API_VERSION == "scheduling.k8s.io/v1beta1"
    assert Workload.API_VERSION == "scheduling.k8s.io/v1beta1"
    assert CompositePodGroup.API_VERSION == "scheduling.k8s.io/v1alpha3"
    with pytest.raises(ManifestError, match="unknown kind"):
        load_text("apiVersion: scheduling.k8s.io/v1alpha1\nkind: PodGroup\nmetadata: {name: x}\n")


# -- validation ----------------------------------------------------------------------------------------
def test_parent_requires_workload_ref():
    group = pg({"parentCompositePodGroupName": "root", "schedulingPolicy": {"gang": {"minCount": 2}}})
    assert errs(validate_pod_group(group, CPG_ON)) == [
        "spec.workloadRef: Required value: must be set when parentCompositePodGroupName is set"]
    group = pg({"parentCompositePodGroupName": "root", "schedulingPolicy": {"gang": {"minCount": 2}},
                "workloadRef": {"workloadName": "w", "templateName": "t"}})
    assert validate_pod_group(group, CPG_ON) == []


def test_standalone_pod_group_may_not_name_a_parent():
    group = pg({"parentCompositePodGroupName": "root", "schedulingPolicy": {"basic": {}}})
    # CompositePodGroup off: the field is forbidden altogether
    assert errs(validate_pod_group(group, ON)) == ["spec.parentCompositePodGroupName: Forbidden"]
    # on: a PodGroup without workloadRef (standalone) may not name a parent
    assert "spec.workloadRef" in errs(validate_pod_group(group, CPG_ON))[0]


@pytest.mark.parametrize("min_count,want", [
    (0, "spec.schedulingPolicy.gang.minCount: Required value"),
    (None, "spec.schedulingPolicy.gang.minCount: Required value"),
    (-1, "spec.schedulingPolicy.gang.minCount: Invalid value: -1: must be greater than or equal to 1"),
    (1, None),
])
def test_min_count(min_count, want):
    gang = {} if min_count is None else {"minCount": min_count}
    got = errs(validate_pod_group(pg({"schedulingPolicy": {"gang": gang}}), ON))
    assert got == ([] if want is None else [want])


def test_scheduling_policy_union():
    assert errs(validate_pod_group(pg({}), ON)) == [
        'spec.schedulingPolicy: Invalid value: "": must specify one of: `basic`, `gang`']
    assert errs(validate_pod_group(pg({"schedulingPolicy": {"basic": {}, "gang": {"minCount": 1}}}), ON)) == [
        'spec.schedulingPolicy: Invalid value: "{basic, gang}": must specify exactly one of: `basic`, `gang`']


def test_scheduling_constraints_need_topology_aware_scheduling():
    spec = {"schedulingPolicy": {"gang": {"minCount": 2}},
            "schedulingConstraints": {"topology": [{"key": "topology.kubernetes.io/rack"}]}}
    assert errs(validate_pod_group(pg(spec), ON)) == ["spec.schedulingConstraints: Forbidden"]
    tas = {**ON, "TopologyAwareWorkloadScheduling": True}
    assert validate_pod_group(pg(spec), tas) == []
    spec["schedulingConstraints"]["topology"].append({"key": "zone"})
    assert errs(validate_pod_group(pg(spec), tas)) == [
        "spec.schedulingConstraints.topology: Too many: 2: must have at most 1 items"]
    spec["schedulingConstraints"]["topology"] = [{"key": ""}]
    assert errs(validate_pod_group(pg(spec), tas)) == ["spec.schedulingConstraints.topology[0].key: Required value"]


def test_priority_and_preemption_policy():
    spec = {"schedulingPolicy": {"basic": {}}, "priority": 1_000_000_001, "preemptionPolicy": "Never"}
    assert errs(validate_pod_group(pg(spec), ON)) == [
        "spec.priority: Invalid value: 1000000001: must be less than or equal to 1000000000",
        "spec.preemptionPolicy: Forbidden"]
    assert len(validate_pod_group(pg(spec), {**ON, "PodGroupPreemptionPolicy": True})) == 1


def test_resource_claims_union_and_limit():
    claims = [{"name": "a"}, {"name": "b", "resourceClaimName": "x", "resourceClaimTemplateName": "y"}]
    got = errs(validate_pod_group(pg({"schedulingPolicy": {"basic": {}}, "resourceClaims": claims}), ON))
    assert got == [
        'spec.resourceClaims[0]: Invalid value: "": must specify one of: `resourceClaimName`, '
        '`resourceClaimTemplateName`',
        'spec.resourceClaims[1]: Invalid value: "{resourceClaimName, resourceClaimTemplateName}": must specify '
        'exactly one of: `resourceClaimName`, `resourceClaimTemplateName`']
    many = [{"name": f"c{i}", "resourceClaimName": "x"} for i in range(5)]
    assert errs(validate_pod_group(pg({"schedulingPolicy": {"basic": {}}, "resourceClaims": many}), ON)) == [
        "spec.resourceClaims: Too many: 5: must have at most 4 items"]


def test_disruption_mode_union():
    got = errs(validate_pod_group(pg({"schedulingPolicy": {"basic": {}}, "disruptionMode": {}}), ON))
    assert got == ['spec.disruptionMode: Invalid value: "": must specify one of: `single`, `all`']


def test_workload_ref_fields():
    spec = {"schedulingPolicy": {"basic": {}}, "workloadRef": {"workloadName": "Bad_Name"}}
    got = errs(validate_pod_group(pg(spec), ON))
    assert got[0].startswith('spec.workloadRef.workloadName: Invalid value: "Bad_Name": a lowercase RFC 1123 '
                             'subdomain')
    assert got[1] == "spec.workloadRef.templateName: Required value"


def test_composite_pod_group_validation():
    cpg = CompositePodGroup.model_validate({"metadata": {"name": "root", "namespace": "ns"},
                                            "spec": {"schedulingPolicy": {"gang": {"minGroupCount": 0}}}})
    assert errs(validate_composite_pod_group(cpg, CPG_ON)) == [
        "spec.workloadRef: Required value", "spec.schedulingPolicy.gang.minGroupCount: Required value"]
    ok = CompositePodGroup.model_validate({"metadata": {"name": "root", "namespace": "ns"}, "spec": {
        "workloadRef": {"workloadName": "w", "templateName": "root"}, "schedulingPolicy": {"basic": {}}}})
    assert validate_composite_pod_group(ok, CPG_ON) == []
    assert ok.min_group_count == 1


def test_workload_validation():
    wl = Workload.model_validate({"metadata": {"name": "w"}, "spec": {
        "controllerRef": {"apiGroup": "batch", "kind": "Job", "name": "train"},
        "podGroupTemplates": [{"name": "worker", "schedulingPolicy": {"gang": {"minCount": 0}}},
                              {"name": "worker", "schedulingPolicy": {"basic": {}}}]}})
    assert errs(validate_workload(wl, ON)) == [
        "spec.podGroupTemplates[0].schedulingPolicy.gang.minCount: Required value",
        'spec.podGroupTemplates[1].name: Duplicate value: "worker"']
    many = Workload.model_validate({"metadata": {"name": "w"}, "spec": {"podGroupTemplates": [
        {"name": f"t{i}", "schedulingPolicy": {"basic": {}}} for i in range(9)]}})
    assert errs(validate_workload(many, ON)) == ["spec.podGroupTemplates: Too many: 9: must have at most 8 items"]
    composite = Workload.model_validate({"metadata": {"name": "w"}, "spec": {"compositePodGroupTemplates": [
        {"name": "root", "schedulingPolicy": {"basic": {}},
         "podGroupTemplates": [{"name": "leaf", "schedulingPolicy": {"basic": {}}}]}]}})
    assert errs(validate_workload(composite, ON)) == ["spec.compositePodGroupTemplates: Forbidden"]
    assert validate_workload(composite, CPG_ON) == []


# -- admission -----------------------------------------------------------------------------------------
PG_DOC = "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: pg}\n" \
         "spec: {schedulingPolicy: {gang: {minCount: 2}}}\n"


def test_not_served_without_generic_workload():
    with pytest.raises(ManifestError) as ei:
        admit(load_text(PG_DOC, source="pg.yaml"))
    assert str(ei.value).startswith('pg.yaml: PodGroup default/pg: no matches for kind "PodGroup" in version '
                                    '"scheduling.k8s.io/v1beta1"')
    cpg = "apiVersion: scheduling.k8s.io/v1alpha3\nkind: CompositePodGroup\nmetadata: {name: r}\n" \
          "spec: {workloadRef: {workloadName: w, templateName: r}, schedulingPolicy: {basic: {}}}\n"
    with pytest.raises(ManifestError, match="CompositePodGroup"):
        admit(load_text(cpg), feature_gates=ON)
    assert admit(load_text(cpg), feature_gates=CPG_ON)[0].namespace == "default"


def test_admission_refuses_invalid_pod_group_and_names_it():
    doc = PG_DOC.replace("minCount: 2", "minCount: -3")
    with pytest.raises(ManifestError) as ei:
        admit(load_text(doc, source="pg.yaml"), feature_gates=ON)
    assert str(ei.value) == ("pg.yaml: PodGroup default/pg: spec.schedulingPolicy.gang.minCount: Invalid value: -3: "
                             "must be greater than or equal to 1")


def test_unknown_priority_class():
    doc = PG_DOC.replace("spec: {", "spec: {priorityClassName: gold, ")
    with pytest.raises(ManifestError, match="spec.priorityClassName: no PriorityClass with name gold was found"):
        admit(load_text(doc), feature_gates=ON)


def test_pod_scheduling_group_dropped_while_gate_off():
    pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n" \
          "spec: {schedulingGroup: {podGroupName: pg}, containers: [{name: c}]}\n"
    assert admit(load_text(pod))[0].spec.scheduling_group is None
    assert admit(load_text(pod), feature_gates=ON)[0].spec.scheduling_group.pod_group_name == "pg"


# -- the Job controller path -----------------------------------------------------------------------------
JOB = y("""
    apiVersion: batch/v1
    kind: Job
    metadata: {name: train, namespace: ml}
    spec:
      parallelism: 4
      completions: 4
      completionMode: Indexed
      template:
        spec:
          restartPolicy: Never
          containers: [{name: w, image: training:v1, resources: {requests: {cpu: "1"}}}]
    ---
    apiVersion: scheduling.k8s.io/v1beta1
    kind: Workload
    metadata: {name: train-policy, namespace: ml}
    spec:
      controllerRef: {apiGroup: batch, kind: Job, name: train}
      podGroupTemplates:
      - name: worker
        schedulingPolicy: {gang: {minCount: 4}}
        priorityClassName: high
""")


def test_job_named_by_workload_creates_pod_group_and_pods():
    out = expand(load_text(JOB), seed=1)
    kinds = [o.kind for o in out]
    assert kinds == ["Job", "PodGroup", "Pod", "Pod", "Pod", "Pod", "Workload"]
    group = out[1]
    assert group.name == compute_pod_group_name("train-policy", "worker")
    assert group.namespace == "ml"
    assert group.spec.workload_ref.workload_name == "train-policy"
    assert group.spec.workload_ref.template_name == "worker"
    assert group.min_count == 4 and group.spec.priority_class_name == "high"
    owners = group.metadata.owner_references
    assert [(r.kind, r.name, r.controller) for r in owners] == [("Job", "train", True),
                                                                ("Workload", "train-policy", None)]
    assert all(p.spec.scheduling_group.pod_group_name == group.name for p in out[2:6])
    pc = "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 100\n"
    admitted = admit([*load_text(pc), *out], feature_gates=ON)
    assert next(o for o in admitted if isinstance(o, PodGroup)).spec.priority == 100


def test_pod_group_name_is_deterministic_and_fits():
    h = compute_pod_group_name("w", "t").rsplit("-", 1)[1]
    assert compute_pod_group_name("w", "t") == f"w-t-{h}"
    long = compute_pod_group_name("a" * 200, "b" * 200)
    assert len(long) <= 253 and long.startswith("a" * 100)


def test_job_path_is_idempotent_and_reuses_the_pod_group():
    once = expand(load_text(JOB), seed=1)
    twice = expand(once, seed=1)
    assert [o.key for o in twice] == [o.key for o in once]


def test_byo_pod_group_and_unsupported_workloads_fall_back():
    byo = JOB.replace("restartPolicy: Never", "restartPolicy: Never\n      schedulingGroup: {podGroupName: mine}")
    out = expand(load_text(byo))
    assert "PodGroup" not in [o.kind for o in out]
    assert all(o.spec.scheduling_group.pod_group_name == "mine" for o in out if isinstance(o, Pod))
    two = JOB + "  - name: other\n    schedulingPolicy: {basic: {}}\n"
    assert "PodGroup" not in [o.kind for o in expand(load_text(two))]
    none = JOB.replace("name: train}", "name: other-job}")
    assert "PodGroup" not in [o.kind for o in expand(load_text(none))]


def test_started_job_does_not_get_a_pod_group():
    objs = load_text(JOB.replace("metadata: {name: train, namespace: ml}",
                                 "metadata: {name: train, namespace: ml}\nstatus: {startTime: '2026-01-01T00:00:00Z'}"))
    assert objs[0].status.start_time is not None
    group, created = job_pod_group(objs[0], objs)
    assert group is None and not created
