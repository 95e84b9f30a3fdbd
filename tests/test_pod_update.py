"""Pod UPDATE validation: scheduling gates may only be removed, a gated pod's scheduling
directives may only be tightened (seed section 4, "Змінні директиви планування Podʼа"),
every other spec change is refused.

Rows marked "upstream" are ported from kubernetes/kubernetes:
``test/integration/pods/pods_test.go`` (TestMutablePodSchedulingDirectives) and the
gated-pod / tolerations / activeDeadlineSeconds / schedulingGates rows of
``pkg/apis/core/validation/validation_test.go`` (TestValidatePodUpdate), whose
expected errors are substrings; here the whole message is checked against the
wording of ``validation.go`` (validateOnlyDeletedSchedulingGates,
validateNodeSelectorMutation, validateNodeAffinityMutation,
validateOnlyAddedTolerations, ValidatePodUpdate).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kschedlab.api.core import Pod
from kschedlab.api.errors import ManifestError
from kschedlab.api.loader import load
from kschedlab.apiserver.admission import admit, admit_pod
from kschedlab.apiserver.pod_update import (
    MSG_OTHER_FIELDS,
    kubectl_get_pods,
    merge_patch,
    pod_phase_display,
    update_pod,
    validate_pod_update,
)

ROOT = Path(__file__).resolve().parents[1]
SEED = ROOT / "datasets" / "seed"

OTHER = f"spec: Forbidden: {MSG_OTHER_FIELDS}"
AFFINITY = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"


def make(spec: dict | None = None, gates=("baz",), name="test-pod") -> Pod:
    body = {"containers": [{"name": "fake-name", "image": "fakeimage"}], **(spec or {})}
    if gates:
        body["schedulingGates"] = [{"name": g} for g in gates]
    return Pod.model_validate({"metadata": {"name": name, "namespace": "default"}, "spec": body})


def required(*terms) -> dict:
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [dict(t) for t in terms]}}}


def expr(key, op="In", *values) -> dict:
    return {"key": key, "operator": op, **({"values": list(values)} if values else {})}


def messages(old: Pod, new: Pod) -> list[str]:
    """Each error as ``path: message`` (without the object name)."""
    return [f"{e.path}: {e.message}" if e.path else e.message for e in validate_pod_update(old, new)]


def first_line(text: str) -> str:
    return text.split("\n", 1)[0]


# -- test/integration/pods/pods_test.go TestMutablePodSchedulingDirectives (upstream) ------------------------
UPSTREAM_INTEGRATION = [
    ("adding node selector is allowed for gated pods",
     make(), make({"nodeSelector": {"foo": "bar"}})),
    ("addition to nodeAffinity is allowed for gated pods",
     make({"affinity": required({"matchExpressions": [expr("expr", "In", "foo")]})}),
     make({"affinity": required({"matchExpressions": [expr("expr", "In", "foo"), expr("expr2", "In", "foo2")],
                                 "matchFields": [expr("metadata.name", "In", "foo")]})})),
    ("addition to nodeAffinity is allowed for gated pods with nil affinity",
     make(),
     make({"affinity": required({"matchExpressions": [expr("expr", "In", "foo")],
                                 "matchFields": [expr("metadata.name", "In", "foo")]})})),
]


@pytest.mark.parametrize("name, old, new", UPSTREAM_INTEGRATION, ids=[r[0] for r in UPSTREAM_INTEGRATION])
def test_upstream_mutable_pod_scheduling_directives(name, old, new):
    assert messages(admit_pod(old), admit_pod(new)) == []
    stored = update_pod(admit_pod(old), new)
    assert stored.spec.scheduling_gates[0].name == "baz"


# -- TestValidatePodUpdate rows (upstream), with full messages ---------------------------------------------
ROWS = [
    # (name, old, new, expected errors; "" entries are the OTHER-fields error, compared on its first line)
    ("removing one scheduling gate", make(gates=("a", "b")), make(gates=("b",)), []),
    ("removing every scheduling gate", make(gates=("a", "b")), make(gates=()), []),
    ("reordering scheduling gates", make(gates=("a", "b")), make(gates=("b", "a")), []),
    ("adding a scheduling gate", make(gates=("a",)), make(gates=("a", "x")),
     ["spec.schedulingGates[1].name: Forbidden: only deletion is allowed, but found new scheduling gate 'x'"]),
    ("adding scheduling gates to a pod that had none", make(gates=()), make(gates=("x", "y")),
     ["spec.schedulingGates[0].name: Forbidden: only deletion is allowed, but found new scheduling gate 'x'",
      "spec.schedulingGates[1].name: Forbidden: only deletion is allowed, but found new scheduling gate 'y'"]),
    ("replacing a scheduling gate", make(gates=("a",)), make(gates=("b",)),
     ["spec.schedulingGates[0].name: Forbidden: only deletion is allowed, but found new scheduling gate 'b'"]),
    # rule 1: nodeSelector
    ("node selector is set on a gated pod", make(), make({"nodeSelector": {"foo": "bar"}}), []),
    ("node selector gains a key on a gated pod", make({"nodeSelector": {"foo": "bar"}}),
     make({"nodeSelector": {"foo": "bar", "baz": "qux"}}), []),
    ("node selector value changed on a gated pod", make({"nodeSelector": {"a": "b"}}),
     make({"nodeSelector": {"a": "z", "c": "d"}}),
     ['spec.nodeSelector: Invalid value: {"a":"z","c":"d"}: only additions to spec.nodeSelector are allowed '
      "(no mutations or deletions)"]),
    ("node selector key removed on a gated pod", make({"nodeSelector": {"a": "b", "c": "d"}}),
     make({"nodeSelector": {"c": "d"}}),
     ['spec.nodeSelector: Invalid value: {"c":"d"}: only additions to spec.nodeSelector are allowed '
      "(no mutations or deletions)"]),
    ("node selector removed on a gated pod", make({"nodeSelector": {"a": "b"}}), make(),
     ["spec.nodeSelector: Invalid value: null: only additions to spec.nodeSelector are allowed "
      "(no mutations or deletions)"]),
    ("node selector set on a pod that is not gated", make(gates=()), make({"nodeSelector": {"foo": "bar"}}, gates=()),
     [""]),
    # rule 2: nodeAffinity may be set when nil
    ("node affinity set on a gated pod", make(), make({"affinity": required({"matchExpressions": [expr("a", "In", "x")]})}),
     []),
    ("node affinity set on a pod that is not gated", make(gates=()),
     make({"affinity": required({"matchExpressions": [expr("a", "In", "x")]})}, gates=()), [""]),
    # rule 3: only requirements appended to existing terms
    ("requirement appended to a term", make({"affinity": required({"matchExpressions": [expr("a", "In", "x")]})}),
     make({"affinity": required({"matchExpressions": [expr("a", "In", "x"), expr("b", "Exists")]})}), []),
    ("match field appended to a term", make({"affinity": required({"matchExpressions": [expr("a", "In", "x")]})}),
     make({"affinity": required({"matchExpressions": [expr("a", "In", "x")],
                                 "matchFields": [expr("metadata.name", "In", "n1")]})}), []),
    ("requirement replaced in a term", make({"affinity": required({"matchExpressions": [expr("a", "In", "x")]})}),
     make({"affinity": required({"matchExpressions": [expr("b", "Exists")]})}),
     [f'{AFFINITY}[0]: Invalid value: {{"MatchExpressions":[{{"Key":"b","Operator":"Exists","Values":null}}],'
      f'"MatchFields":null}}: only additions are allowed (no mutations or deletions)']),
    ("requirement prepended to a term", make({"affinity": required({"matchExpressions": [expr("a", "In", "x")]})}),
     make({"affinity": required({"matchExpressions": [expr("b", "Exists"), expr("a", "In", "x")]})}),
     [f'{AFFINITY}[0]: Invalid value: {{"MatchExpressions":[{{"Key":"b","Operator":"Exists","Values":null}},'
      f'{{"Key":"a","Operator":"In","Values":["x"]}}],"MatchFields":null}}: only additions are allowed '
      f"(no mutations or deletions)"]),
    ("term added", make({"affinity": required({"matchExpressions": [expr("a", "In", "x")]})}),
     make({"affinity": required({"matchExpressions": [expr("a", "In", "x")]}, {"matchExpressions": [expr("b", "Exists")]})}),
     [f'{AFFINITY}: Invalid value: [{{"MatchExpressions":[{{"Key":"a","Operator":"In","Values":["x"]}}],'
      f'"MatchFields":null}},{{"MatchExpressions":[{{"Key":"b","Operator":"Exists","Values":null}}],'
      f'"MatchFields":null}}]: no additions/deletions to non-empty NodeSelectorTerms list are allowed']),
    ("term removed", make({"affinity": required({"matchExpressions": [expr("a", "In", "x")]},
                                                  {"matchExpressions": [expr("b", "Exists")]})}),
     make({"affinity": required({"matchExpressions": [expr("a", "In", "x")]})}),
     [f'{AFFINITY}: Invalid value: [{{"MatchExpressions":[{{"Key":"a","Operator":"In","Values":["x"]}}],'
      f'"MatchFields":null}}]: no additions/deletions to non-empty NodeSelectorTerms list are allowed']),
    ("required node affinity removed", make({"affinity": required({"matchExpressions": [expr("a", "In", "x")]})}),
     make(), [f"{AFFINITY}: Invalid value: null: no additions/deletions to non-empty NodeSelectorTerms list "
              f"are allowed"]),
    ("an empty term cannot gain requirements", make({"affinity": required({})}),
     make({"affinity": required({"matchExpressions": [expr("a", "In", "x")]})}),
     [f'{AFFINITY}[0]: Invalid value: {{"MatchExpressions":[{{"Key":"a","Operator":"In","Values":["x"]}}],'
      f'"MatchFields":null}}: only additions are allowed (no mutations or deletions)']),
    # rule 4: preferred terms are free while gated
    ("preferred terms set on a gated pod", make(),
     make({"affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
         {"weight": 10, "preference": {"matchExpressions": [expr("a", "In", "x")]}}]}}}), []),
    ("preferred terms changed on a gated pod",
     make({"affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
         {"weight": 10, "preference": {"matchExpressions": [expr("a", "In", "x")]}}]}}}),
     make({"affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
         {"weight": 90, "preference": {"matchExpressions": [expr("b", "Exists")]}}]}}}), []),
    ("preferred terms removed on a gated pod",
     make({"affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
         {"weight": 10, "preference": {"matchExpressions": [expr("a", "In", "x")]}}]}}}), make(), []),
    ("preferred terms changed on a pod that is not gated",
     make({"affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
         {"weight": 10, "preference": {"matchExpressions": [expr("a", "In", "x")]}}]}}}, gates=()),
     make({"affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
         {"weight": 90, "preference": {"matchExpressions": [expr("a", "In", "x")]}}]}}}, gates=()), [""]),
    # pod (anti-)affinity stays immutable, gated or not
    ("pod affinity added on a gated pod", make(),
     make({"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
         {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}]}}}), [""]),
    ("node affinity set while pod affinity is kept",
     make({"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
         {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}]}}}),
     make({"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
         {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}]},
         **required({"matchExpressions": [expr("a", "In", "x")]})}}), []),
    # the other updatable fields
    ("image changed", make(), make({"containers": [{"name": "fake-name", "image": "other"}]}), []),
    ("container added", make(), make({"containers": [{"name": "fake-name", "image": "fakeimage"},
                                                     {"name": "two", "image": "fakeimage"}]}),
     ["spec.containers: Forbidden: pod updates may not add or remove containers"]),
    ("image with whitespace", make(), make({"containers": [{"name": "fake-name", "image": " fakeimage"}]}),
     ['spec.containers[0].image: Invalid value: " fakeimage": must not have leading or trailing whitespace']),
    ("activeDeadlineSeconds set", make(), make({"activeDeadlineSeconds": 30}), []),
    ("activeDeadlineSeconds lowered", make({"activeDeadlineSeconds": 30}), make({"activeDeadlineSeconds": 10}), []),
    ("activeDeadlineSeconds raised", make({"activeDeadlineSeconds": 10}), make({"activeDeadlineSeconds": 20}),
     ["spec.activeDeadlineSeconds: Invalid value: 20: must be less than or equal to previous value"]),
    ("activeDeadlineSeconds unset", make({"activeDeadlineSeconds": 10}), make(),
     ["spec.activeDeadlineSeconds: Invalid value: null: must not update from a positive integer to nil value"]),
    ("activeDeadlineSeconds out of range", make(), make({"activeDeadlineSeconds": 3_000_000_000}),
     ["spec.activeDeadlineSeconds: Invalid value: 3000000000: must be between 0 and 2147483647, inclusive"]),
    ("toleration added", make(), make({"tolerations": [{"key": "k", "operator": "Exists", "effect": "NoSchedule"}]}), []),
    ("tolerationSeconds changed",
     make({"tolerations": [{"key": "k", "operator": "Equal", "value": "v", "effect": "NoExecute", "tolerationSeconds": 5}]}),
     make({"tolerations": [{"key": "k", "operator": "Equal", "value": "v", "effect": "NoExecute", "tolerationSeconds": 9}]}),
     []),
    ("toleration value changed",
     make({"tolerations": [{"key": "k", "operator": "Equal", "value": "v", "effect": "NoExecute", "tolerationSeconds": 5}]}),
     make({"tolerations": [{"key": "k", "operator": "Equal", "value": "w", "effect": "NoExecute", "tolerationSeconds": 5}]}),
     ["spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds"]),
    ("terminationGracePeriodSeconds from negative to 1", make({"terminationGracePeriodSeconds": -1}),
     make({"terminationGracePeriodSeconds": 1}), []),
    ("terminationGracePeriodSeconds changed", make({"terminationGracePeriodSeconds": 30}),
     make({"terminationGracePeriodSeconds": 10}), [""]),
    ("priority changed", make(), make({"priority": 10}), [""]),
    ("empty lists and maps equal absent ones", make(), make({"tolerations": [], "nodeSelector": {}}), []),
    ("several errors at once", make({"nodeSelector": {"a": "b"}}, gates=("g",)),
     make({"nodeSelector": {"a": "c"}, "priority": 5}, gates=("g", "h")),
     ["spec.schedulingGates[1].name: Forbidden: only deletion is allowed, but found new scheduling gate 'h'",
      'spec.nodeSelector: Invalid value: {"a":"c"}: only additions to spec.nodeSelector are allowed '
      "(no mutations or deletions)", ""]),
]


@pytest.mark.parametrize("name, old, new, expected", ROWS, ids=[r[0] for r in ROWS])
def test_validate_pod_update(name, old, new, expected):
    got = messages(old, new)
    want = [OTHER if e == "" else e for e in expected]
    assert [first_line(g) if w == OTHER else g for g, w in zip(got, want)] == want
    assert len(got) == len(want)


def test_other_fields_error_names_the_updatable_fields_and_shows_a_diff():
    old, new = make(gates=()), make({"priority": 10}, gates=())
    (err,) = validate_pod_update(old, new)
    assert err.path == "spec"
    assert err.message.startswith(
        "Forbidden: pod updates may not change fields other than `spec.containers[*].image`,"
        "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to "
        "existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was "
        "previously negative)\n@@ ")
    assert '+ "priority": 10' in err.message.splitlines()


def test_metadata_name_is_immutable():
    old, new = make(), make(name="other")
    assert messages(old, new) == ['metadata.name: Invalid value: "other": field is immutable']


def test_the_new_pod_must_itself_be_valid():
    new = make({"tolerations": [{"operator": "Equal", "value": "x"}]})
    got = messages(make(), new)
    assert got[0].startswith('spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists')


# -- update_pod: the registry around validation ---------------------------------------------------------------
def seed_test_pod() -> Pod:
    objs = admit(load(SEED / "04-pod-with-scheduling-gates.yaml"))
    return next(o for o in objs if type(o).__name__ == "Pod")


def test_seed_gates_come_off_one_by_one_and_the_pod_keeps_its_status():
    pod = seed_test_pod()
    assert [g.name for g in pod.spec.scheduling_gates] == ["example.com/foo", "example.com/bar"]
    assert pod_phase_display(pod) == "SchedulingGated"
    one = update_pod(pod, {"spec": {"schedulingGates": [{"name": "example.com/bar"}]}})
    assert [g.name for g in one.spec.scheduling_gates] == ["example.com/bar"]
    assert one.metadata.generation == 2 and one.status == pod.status
    # kubectl apply of pods/pod-without-scheduling-gates.yaml sends a patch that drops the field
    none = update_pod(one, {"spec": {"schedulingGates": None}})
    assert none.spec.scheduling_gates == [] and none.metadata.generation == 3
    # the condition is the scheduler's to change: until it tries the pod, kubectl still says SchedulingGated
    assert pod_phase_display(none) == "SchedulingGated"
    assert pod.spec.scheduling_gates and one.spec.scheduling_gates  # inputs untouched


def test_adding_a_gate_back_is_refused_with_the_file_and_object_named():
    pod = seed_test_pod()
    with pytest.raises(ManifestError) as info:
        update_pod(pod, {"spec": {"schedulingGates": [{"name": "example.com/foo"}, {"name": "example.com/bar"},
                                                      {"name": "x"}]}})
    err = info.value
    assert str(err).endswith("04-pod-with-scheduling-gates.yaml: Pod default/test-pod: spec.schedulingGates[2].name: "
                             "Forbidden: only deletion is allowed, but found new scheduling gate 'x'")


def test_replace_with_the_seed_manifest_removes_the_gates():
    # kubectl replace -f pods/pod-without-scheduling-gates.yaml: defaulting and the Priority /
    # DefaultTolerationSeconds admission plugins give back what the bare manifest leaves out
    pod = seed_test_pod()
    manifest = next(iter(load(SEED / "04-pod-without-scheduling-gates.yaml")))
    stored = update_pod(pod, manifest)
    assert stored.spec.scheduling_gates == []
    assert stored.spec.tolerations == pod.spec.tolerations and stored.spec.priority == 0
    assert stored.source_file.endswith("04-pod-with-scheduling-gates.yaml")


def test_replace_cannot_drop_a_toleration_the_pod_was_created_with():
    pod = admit_pod(make({"tolerations": [{"key": "k", "operator": "Exists", "effect": "NoSchedule"}]}))
    with pytest.raises(ManifestError) as info:
        update_pod(pod, make())
    assert info.value.message == "Forbidden: existing toleration can not be modified except its tolerationSeconds"


def test_every_error_is_reported_and_nothing_changes():
    pod = admit_pod(make({"nodeSelector": {"a": "b"}}))
    before = pod.clone()
    with pytest.raises(ManifestError) as info:
        update_pod(pod, {"spec": {"nodeSelector": {"a": "c"}, "schedulingGates": [{"name": "baz"}, {"name": "y"}]}})
    assert len(info.value.errors) == 2
    assert pod == before


def test_a_malformed_patch_names_the_field():
    with pytest.raises(ManifestError, match=r"spec.nodeSelector.a: invalid type: expected string, got integer 1"):
        update_pod(admit_pod(make()), {"spec": {"nodeSelector": {"a": 1}}})


def test_merge_patch_replaces_lists_and_deletes_with_null():
    assert merge_patch({"spec": {"a": [1, 2], "b": 1}}, {"spec": {"a": [3], "b": None}}) == {"spec": {"a": [3]}}


def test_status_column_through_the_lifecycle():
    from kschedlab import Cluster, Scheduler
    from kschedlab.api.core import Node

    pod = seed_test_pod()
    ungated = update_pod(pod, {"spec": {"schedulingGates": None}})
    node = Node.model_validate({"metadata": {"name": "node-2"},
                                "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}})
    cluster = Cluster([node, ungated])
    assert pod_phase_display(cluster.pods["default/test-pod"]) == "SchedulingGated"
    assert Scheduler(cluster).schedule_one("default/test-pod").node == "node-2"
    bound = cluster.pods["default/test-pod"]
    # bound, the condition says PodScheduled=True; without a kubelet the phase is still Pending
    assert pod_phase_display(bound) == "Pending"
    running = bound.model_copy(update={"status": bound.status.model_copy(update={"phase": "Running"})})
    table = kubectl_get_pods([running])
    assert table.to_dict("records") == [{"NAME": "test-pod", "READY": "0/1", "STATUS": "Running", "RESTARTS": 0,
                                         "NODE": "node-2"}]


def test_terminating_and_container_reasons():
    base = {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c"}]}}
    waiting = Pod.model_validate({**base, "status": {"phase": "Pending", "containerStatuses": [
        {"name": "c", "ready": False, "state": {"waiting": {"reason": "ContainerCreating"}}}]}})
    assert pod_phase_display(waiting) == "ContainerCreating"
    failed = Pod.model_validate({**base, "status": {"phase": "Failed", "containerStatuses": [
        {"name": "c", "ready": False, "state": {"terminated": {"exitCode": 2}}}]}})
    assert pod_phase_display(failed) == "ExitCode:2"
    deleting = Pod.model_validate({**base, "metadata": {"name": "p", "deletionTimestamp": "2024-01-01T00:00:00Z"},
                                   "status": {"phase": "Running"}})
    assert pod_phase_display(deleting) == "Terminating"
