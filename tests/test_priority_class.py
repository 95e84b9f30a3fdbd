"""PriorityClass API rules, the Priority admission plugin, and preemptionPolicy: Never.

Rows ported from upstream tables carry a ``source`` comment naming the table and
the row; the other tests are the rules of seed section 12 ("Пріоритет та
Випередження Podʼів").  Messages are upstream's, word for word.
"""

from __future__ import annotations

import pandas as pd
import pytest

from kschedlab import Cluster, Scheduler
from kschedlab.api import ManifestError, admit, load_text
from kschedlab.api.core import Node, Pod
from kschedlab.api.scheduling import PriorityClass, system_priority_classes
from kschedlab.apiserver.admission import admit_pod
from kschedlab.apiserver.priorityclass import (
    global_default_class,
    global_default_error,
    priority_class_errors,
    priority_class_update_errors,
    validate_priority_class,
    validate_priority_class_update,
)
from kschedlab.framework.status import Code

SRC_VALIDATION = ("kubernetes/kubernetes@ebda9584f9dc9ee4a7437c0653a22326cb0acadc "
                  "pkg/apis/scheduling/validation/validation_test.go")
SRC_ADMISSION = ("kubernetes/kubernetes@78fc8e44052f699bf598f84b697b41e5a328c9c5 "
                 "plugin/pkg/admission/priority/admission_test.go")


def pc(name, value=0, *, default=False, policy=None, namespace=None, description=None) -> PriorityClass:
    body = {"metadata": {"name": name, **({"namespace": namespace} if namespace else {})}, "value": value,
            "globalDefault": default}
    if policy is not None:
        body["preemptionPolicy"] = policy
    if description is not None:
        body["description"] = description
    return PriorityClass.model_validate(body)


# the classes of admission_test.go (PreemptionPolicy as the API server defaults it, except where the
# table sets it: its objects skip defaulting, and a nil policy behaves as PreemptLowerPriority)
DEFAULT_1 = pc("default1", 1000, default=True)
DEFAULT_2 = pc("default2", 2000, default=True)
NONDEFAULT_1 = pc("nondefault1", 2000, description="Just a test priority class")
PREEMPTION_POLICY_CLASS = pc("nopreemptionpolicy", 2000, default=True, policy="PreemptLowerPriority",
                             description="Just a test priority class")


def messages(errors) -> list[str]:
    return [f"{e.path}: {e.message}" if e.path else e.message for e in errors]


# ------------------------------------------------------------------------- ValidatePriorityClass
@pytest.mark.parametrize("name, obj", [
    # source: SRC_VALIDATION TestValidatePriorityClass successCases["no description"]
    ("no description", pc("tier1", 100)),
    # source: SRC_VALIDATION TestValidatePriorityClass successCases["with description"]
    ("with description", pc("tier1", 200, description="Used for the highest priority pods.")),
])
def test_validate_priority_class_success(name, obj):
    assert priority_class_errors(obj) == []


@pytest.mark.parametrize("name, obj, want", [
    # source: SRC_VALIDATION TestValidatePriorityClass errorCases["with namespace"]
    ("with namespace", pc("tier1", 100, namespace="foo"),
     [("metadata.namespace", "Forbidden: not allowed on this type")]),
    # source: SRC_VALIDATION TestValidatePriorityClass errorCases["invalid name"]
    ("invalid name", pc("tier&1", 100),
     [("metadata.name", "Invalid value: \"tier&1\": a lowercase RFC 1123 subdomain must consist of lower case "
                        "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character "
                        "(e.g. 'example.com', regex used for validation is "
                        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")]),
])
def test_validate_priority_class_errors(name, obj, want):
    assert priority_class_errors(obj) == want


@pytest.mark.parametrize("name, new", [
    # source: SRC_VALIDATION TestValidatePriorityClassUpdate successCases["no change"]
    ("no change", pc("tier1", 100, description="Used for the highest priority pods.")),
    # source: SRC_VALIDATION TestValidatePriorityClassUpdate successCases["change description"]
    ("change description", pc("tier1", 100, description="A different description.")),
    # source: SRC_VALIDATION TestValidatePriorityClassUpdate successCases["remove description"]
    ("remove description", pc("tier1", 100)),
    # source: SRC_VALIDATION TestValidatePriorityClassUpdate successCases["change globalDefault"]
    ("change globalDefault", pc("tier1", 100, default=True)),
])
def test_validate_priority_class_update_success(name, new):
    assert priority_class_update_errors(new, pc("tier1", 100)) == []


@pytest.mark.parametrize("name, new, want", [
    # source: SRC_VALIDATION TestValidatePriorityClassUpdate errorCases["add namespace"] (ErrorTypeInvalid)
    ("add namespace", pc("tier1", 100, namespace="foo"),
     [("metadata.namespace", 'Invalid value: "foo": field is immutable')]),
    # source: SRC_VALIDATION TestValidatePriorityClassUpdate errorCases["change name"] (ErrorTypeInvalid)
    ("change name", pc("tier2", 100), [("metadata.name", 'Invalid value: "tier2": field is immutable')]),
    # source: SRC_VALIDATION TestValidatePriorityClassUpdate errorCases["remove value"] (ErrorTypeForbidden)
    ("remove value", PriorityClass.model_validate({"metadata": {"name": "tier1"}}),
     [("value", "Forbidden: may not be changed in an update.")]),
    # source: SRC_VALIDATION TestValidatePriorityClassUpdate errorCases["change value"] (ErrorTypeForbidden)
    ("change value", pc("tier1", 101), [("value", "Forbidden: may not be changed in an update.")]),
])
def test_validate_priority_class_update_errors(name, new, want):
    assert priority_class_update_errors(new, pc("tier1", 100)) == want


def test_preemption_policy_is_immutable():
    # ValidatePriorityClassUpdate: ValidateImmutableField(pc.PreemptionPolicy, oldPc.PreemptionPolicy)
    errs = validate_priority_class_update(pc("batch", 10, policy="Never"), pc("batch", 10))
    assert messages(errs) == ['preemptionPolicy: Invalid value: "Never": field is immutable']


# ------------------------------------------------------------- the admission plugin's Validate
SYSTEM_TEST = pc("system-test", 1_000_000_001, description="Name has system critical prefix")


@pytest.mark.parametrize("name, existing, new, update, want", [
    # source: SRC_ADMISSION TestPriorityClassAdmission "create operator with default class"
    ("create with default class", [], DEFAULT_1, False, ""),
    # source: SRC_ADMISSION TestPriorityClassAdmission "create operator with one existing default class"
    ("create with one existing default class", [DEFAULT_1], DEFAULT_2, False,
     "PriorityClass default1 is already marked as default. Only one default can exist"),
    # source: SRC_ADMISSION TestPriorityClassAdmission "create operator with system name and value allowed by
    # admission controller" (the plugin does not check names or values; validation does, see below)
    ("create system name", [], SYSTEM_TEST, False, ""),
    # source: SRC_ADMISSION TestPriorityClassAdmission "update operator with default class"
    ("update with default class", [], DEFAULT_1, True, ""),
    # source: SRC_ADMISSION TestPriorityClassAdmission "update operator with one existing default class"
    ("update with one existing default class", [DEFAULT_1], DEFAULT_2, True,
     "PriorityClass default1 is already marked as default. Only one default can exist"),
    # source: SRC_ADMISSION TestPriorityClassAdmission "update operator with system name and value allowed by
    # admission controller"
    ("update system name", [], SYSTEM_TEST, True, ""),
    # source: SRC_ADMISSION TestPriorityClassAdmission "update operator with different default classes"
    ("update with different default classes", [DEFAULT_1], DEFAULT_2, True,
     "PriorityClass default1 is already marked as default. Only one default can exist"),
])
def test_priority_class_admission(name, existing, new, update, want):
    assert global_default_error(new, existing, update=update) == want


def test_priority_class_admission_delete_is_not_checked():
    # source: SRC_ADMISSION TestPriorityClassAdmission "delete operation with default class"
    cluster = Cluster([DEFAULT_1.clone()])
    assert cluster.remove("PriorityClass", "default1").name == "default1"
    assert cluster.of_kind("PriorityClass") == []


def test_updating_the_default_class_itself_is_allowed():
    # admission.go validatePriorityClass: on Update only a *different* default conflicts
    assert global_default_error(pc("default1", 1000, default=True), [DEFAULT_1], update=True) == ""
    assert validate_priority_class_update(pc("default1", 1000, default=True, description="x"), DEFAULT_1,
                                          [DEFAULT_1]) == []


def test_the_system_prefix_is_refused_by_validation():
    assert messages(validate_priority_class(SYSTEM_TEST)) == [
        "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. "
        "error: system-test is not a known system priority class"]


# -------------------------------------------------------------------- default priority resolution
@pytest.mark.parametrize("name, before, after, want_before, want_after", [
    # source: SRC_ADMISSION TestDefaultPriority "simple resolution with a default class"
    ("simple resolution", [DEFAULT_1], [DEFAULT_1], ("default1", 1000), ("default1", 1000)),
    # source: SRC_ADMISSION TestDefaultPriority "add a default class"
    ("add a default class", [NONDEFAULT_1], [NONDEFAULT_1, DEFAULT_1], ("", 0), ("default1", 1000)),
    # source: SRC_ADMISSION TestDefaultPriority "multiple default classes resolves to the minimum value among them"
    ("multiple defaults", [DEFAULT_1, DEFAULT_2], [DEFAULT_2], ("default1", 1000), ("default2", 2000)),
    # source: SRC_ADMISSION TestDefaultPriority "delete default priority class"
    ("delete default", [DEFAULT_1], [], ("default1", 1000), ("", 0)),
    # source: SRC_ADMISSION TestDefaultPriority "update default class and remove its global default"
    ("update default, remove globalDefault", [DEFAULT_1], [pc("default1", 1000)], ("default1", 1000), ("", 0)),
])
def test_default_priority(name, before, after, want_before, want_after):
    for classes, (want_name, want_value) in ((before, want_before), (after, want_after)):
        dpc = global_default_class(classes)
        assert ((dpc.name, dpc.value) if dpc else ("", 0)) == (want_name, want_value)
        # and what a pod without priorityClassName gets
        pod = admit_pod(Pod.model_validate({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c"}]}}),
                        classes)
        assert ((pod.spec.priority_class_name or ""), pod.spec.priority) == (want_name, want_value)


# ---------------------------------------------------------------------------- pod admission
def pod(name="p", namespace="namespace", *, class_name=None, priority=None, policy=None, mirror=False) -> Pod:
    spec = {"containers": [{"name": "container"}]}
    if class_name is not None:
        spec["priorityClassName"] = class_name
    if priority is not None:
        spec["priority"] = priority
    if policy is not None:
        spec["preemptionPolicy"] = policy
    meta = {"name": name, "namespace": namespace}
    if mirror:
        meta["annotations"] = {"kubernetes.io/config.mirror": ""}
    return Pod.model_validate({"metadata": meta, "spec": spec})


SCC = 2_000_000_000  # scheduling.SystemCriticalPriority
NOT_FOUND = "spec.priorityClassName: no PriorityClass with name {} was found"


@pytest.mark.parametrize("name, classes, the_pod, want", [
    # source: SRC_ADMISSION TestPodAdmission "Pod with priority class"
    ("pod with priority class", [DEFAULT_1, NONDEFAULT_1], pod(class_name="default1"), 1000),
    # source: SRC_ADMISSION TestPodAdmission "Pod without priority class"
    ("pod without priority class", [DEFAULT_1], pod(), 1000),
    # source: SRC_ADMISSION TestPodAdmission "pod without priority class and no existing priority class"
    ("no class, no classes", [], pod(), 0),
    # source: SRC_ADMISSION TestPodAdmission "pod without priority class and no default class"
    ("no class, no default", [NONDEFAULT_1], pod(), 0),
    # source: SRC_ADMISSION TestPodAdmission "pod with a system priority class" (built in here)
    ("system class", [], pod(namespace="kube-system", class_name="system-cluster-critical"), SCC),
    # source: SRC_ADMISSION TestPodAdmission "Pod with non-existing priority class"
    ("non-existing class", [DEFAULT_1, NONDEFAULT_1], pod(class_name="non-existing"),
     NOT_FOUND.format("non-existing")),
    # source: SRC_ADMISSION TestPodAdmission "pod with integer priority"
    ("integer priority", [], pod(class_name="default1", priority=1000), NOT_FOUND.format("default1")),
    # source: SRC_ADMISSION TestPodAdmission "mirror pod with system priority class"
    ("mirror pod, system class", [], pod(namespace="kube-system", class_name="system-cluster-critical",
                                         mirror=True), SCC),
    # source: SRC_ADMISSION TestPodAdmission "mirror pod with integer priority"
    ("mirror pod, integer priority", [], pod(class_name="default1", priority=1000, mirror=True),
     NOT_FOUND.format("default1")),
    # source: SRC_ADMISSION TestPodAdmission "pod with system critical priority in non-system namespace"
    ("system class elsewhere", [], pod(namespace="non-system-namespace", class_name="system-cluster-critical"),
     SCC),
    # source: SRC_ADMISSION TestPodAdmission "pod with priority that matches computed priority"
    ("priority matches computed", [NONDEFAULT_1], pod(namespace="non-system-namespace", priority=0), 0),
    # source: SRC_ADMISSION TestPodAdmission "pod with priority that matches default priority"
    ("priority matches default", [DEFAULT_2], pod(namespace="non-system-namespace", priority=2000), 2000),
    # source: SRC_ADMISSION TestPodAdmission "pod with priority that matches resolved priority"
    ("priority matches resolved", [], pod(namespace="kube-system", class_name="system-cluster-critical",
                                          priority=SCC), SCC),
    # source: SRC_ADMISSION TestPodAdmission "pod with nil preemtpion policy"
    ("nil policy", [PREEMPTION_POLICY_CLASS], pod(namespace="kube-system", class_name="nopreemptionpolicy",
                                                  priority=2000), 2000),
    # source: SRC_ADMISSION TestPodAdmission "pod with preemtpion policy that matches resolved preemtpion policy"
    ("policy matches", [PREEMPTION_POLICY_CLASS],
     pod(namespace="kube-system", class_name="nopreemptionpolicy", priority=2000, policy="PreemptLowerPriority"),
     2000),
    # source: SRC_ADMISSION TestPodAdmission "pod with preemtpion policy that does't matches resolved preemtpion
    # policy"
    ("policy does not match", [PREEMPTION_POLICY_CLASS],
     pod(namespace="kube-system", class_name="nopreemptionpolicy", priority=2000, policy="Never"),
     "spec.preemptionPolicy: the string value of PreemptionPolicy (Never) must not be provided in pod spec; "
     "priority admission controller computed PreemptLowerPriority from the given PriorityClass name"),
])
def test_pod_admission(name, classes, the_pod, want):
    if isinstance(want, str):
        with pytest.raises(ManifestError) as ei:
            admit_pod(the_pod, classes)
        assert f"{ei.value.path}: {ei.value.message}" == want
        return
    admitted = admit_pod(the_pod, classes)
    assert admitted.spec.priority == want
    # every admitted pod gets a preemption policy (the class's, or PreemptLowerPriority)
    assert admitted.spec.preemption_policy == "PreemptLowerPriority"


def test_a_pod_without_class_may_not_ask_for_never():
    # admission.go getDefaultPriority: no default class -> PreemptLowerPriority, which a pod's own
    # preemptionPolicy must match
    with pytest.raises(ManifestError) as ei:
        admit_pod(pod(policy="Never"))
    assert ei.value.message == (
        "the string value of PreemptionPolicy (Never) must not be provided in pod spec; "
        "priority admission controller computed PreemptLowerPriority from the given PriorityClass name")


# ------------------------------------------------------------------------- the seed's rules
SEED_CLASSES = """
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: high-priority
value: 1000000
globalDefault: false
description: "This priority class should be used for XYZ service pods only."
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: high-priority-nonpreempting
value: 1000000
preemptionPolicy: Never
globalDefault: false
description: "This priority class will not cause other pods to be preempted."
---
apiVersion: v1
kind: Pod
metadata:
  name: nginx
  labels:
    env: test
spec:
  containers:
  - name: nginx
    image: nginx
    imagePullPolicy: IfNotPresent
  priorityClassName: high-priority
"""


def test_seed_examples_are_admitted():
    """Seed §12 "Приклад PriorityClass", "Приклад невипереджаючого PriorityClass", "Пріоритет Podʼа":
    the admission controller computes the pod's priority as 1000000."""
    high, nonpreempting, nginx = admit(load_text(SEED_CLASSES))
    assert (high.value, high.preemption_policy, high.global_default) == (1_000_000, "PreemptLowerPriority", False)
    assert (nonpreempting.value, nonpreempting.preemption_policy) == (1_000_000, "Never")
    assert (nginx.spec.priority, nginx.spec.preemption_policy) == (1_000_000, "PreemptLowerPriority")


@pytest.mark.parametrize("value, error", [
    # seed §12: "будь-яке 32-розрядне ціле значення, яке менше або дорівнює 1 мільярду ...
    # від -2147483648 до 1000000000 включно"
    (-2147483648, None),
    (1_000_000_000, None),
    (1_000_000_001, "value: Forbidden: maximum allowed value of a user defined priority is 1000000000"),
    (-2147483649, 'value: PriorityClass in version "v1" cannot be handled as a PriorityClass: json: cannot '
                  'unmarshal number -2147483649 into Go struct field PriorityClass.value of type int32'),
    (2147483648, 'value: PriorityClass in version "v1" cannot be handled as a PriorityClass: json: cannot '
                 'unmarshal number 2147483648 into Go struct field PriorityClass.value of type int32'),
])
def test_value_range(value, error):
    text = f"apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {{name: edge}}\nvalue: {value}\n"
    if error is None:
        assert admit(load_text(text))[0].value == value
        return
    with pytest.raises(ManifestError) as ei:
        admit(load_text(text, source="t.yaml"))
    assert str(ei.value) == f"t.yaml: PriorityClass edge: {error}"


def test_user_classes_may_not_use_the_system_prefix_but_builtins_are_known():
    """Seed §12: the name "не може мати префікс system-"; larger values are reserved for the built-in
    classes of critical system pods."""
    with pytest.raises(ManifestError) as ei:
        admit(load_text("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: system-gold}\n"
                        "value: 10\n", source="t.yaml"))
    assert str(ei.value) == (
        "t.yaml: PriorityClass system-gold: metadata.name: Forbidden: priority class names with 'system-' prefix "
        "are reserved for system use only. error: system-gold is not a known system priority class")
    assert [(c.name, c.value, c.preemption_policy, bool(c.global_default)) for c in system_priority_classes()] == [
        ("system-node-critical", 2_000_001_000, "PreemptLowerPriority", False),
        ("system-cluster-critical", 2_000_000_000, "PreemptLowerPriority", False)]
    # re-creating a built-in class exactly as it is passes validation; any other value does not
    assert priority_class_errors(pc("system-cluster-critical", 2_000_000_000)) == []
    assert priority_class_errors(pc("system-cluster-critical", 7)) == [
        ("metadata.name", "Forbidden: priority class names with 'system-' prefix are reserved for system use only. "
                          "error: value of system-cluster-critical PriorityClass must be 2000000000")]
    assert priority_class_errors(pc("system-node-critical", 2_000_001_000, default=True)) == [
        ("metadata.name", "Forbidden: priority class names with 'system-' prefix are reserved for system use only. "
                          "error: globalDefault of system-node-critical PriorityClass must be false")]


def test_only_one_global_default():
    """Seed §12: "В системі може існувати лише один обʼєкт PriorityClass з globalDefault, встановленим в true"."""
    text = ("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: NAME}\nvalue: 10\n"
            "globalDefault: true\n")
    with pytest.raises(ManifestError) as ei:
        admit(load_text(text.replace("NAME", "a") + "---\n" + text.replace("NAME", "b"), source="t.yaml"))
    assert str(ei.value) == ("t.yaml: PriorityClass b: PriorityClass a is already marked as default. "
                             "Only one default can exist")
    stored = admit(load_text(text.replace("NAME", "a")))
    assert messages(validate_priority_class(pc("b", 10, default=True), stored)) == [
        "PriorityClass a is already marked as default. Only one default can exist"]


def test_a_namespace_on_a_priority_class_is_dropped():
    (obj,) = admit(load_text("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\n"
                             "metadata: {name: tier1, namespace: foo}\nvalue: 1\n"))
    assert obj.metadata.namespace is None and obj.key == "tier1"


def two_node_cluster(*objects) -> list:
    nodes = [Node.model_validate({"metadata": {"name": n}, "status": {"allocatable": {"cpu": "1", "pods": "10"}}})
             for n in ("n1", "n2")]
    return [*nodes, *objects]


def cpu_pod(name, cpu, class_name=None, node=None, policy=None) -> Pod:
    spec = {"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]}
    if class_name:
        spec["priorityClassName"] = class_name
    if node:
        spec["nodeName"] = node
    if policy:
        spec["preemptionPolicy"] = policy
    return Pod.model_validate({"metadata": {"name": name, "namespace": "default"}, "spec": spec})


def test_a_new_default_class_does_not_change_existing_pods():
    """Seed §12: "Додавання PriorityClass з globalDefault ... не змінює пріоритети поточних Podʼів"."""
    cluster = Cluster(admit(two_node_cluster(cpu_pod("old", "100m"))))
    assert cluster.pods["default/old"].spec.priority == 0
    new_default = admit([pc("everyone", 500, default=True)])
    for obj in new_default:
        cluster.add(obj)
    assert cluster.pods["default/old"].spec.priority == 0
    later = admit_pod(cpu_pod("later", "100m"), cluster.of_kind("PriorityClass"))
    assert (later.spec.priority_class_name, later.spec.priority) == ("everyone", 500)


def test_deleting_a_class_keeps_running_pods_and_refuses_new_ones():
    """Seed §12: "Якщо ви видаляєте PriorityClass, поточні Podʼи ... залишаються незмінними, але ви не можете
    створювати більше Podʼів, які використовують імʼя видаленого PriorityClass"."""
    cluster = Cluster(admit(two_node_cluster(pc("gold", 1000), pc("bronze", 10),
                                             cpu_pod("bronze-1", "1", "bronze", node="n1"),
                                             cpu_pod("gold-1", "1", "gold", node="n2"))))
    cluster.remove("PriorityClass", "gold")
    assert cluster.pods["default/gold-1"].spec.priority == 1000
    assert cluster.pod_infos["default/gold-1"].priority == 1000
    with pytest.raises(ManifestError) as ei:
        admit_pod(cpu_pod("gold-2", "1", "gold"), cluster.of_kind("PriorityClass"))
    assert ei.value.message == "no PriorityClass with name gold was found"
    # the running pod still counts with its priority: a 500 pod may preempt bronze-1, never gold-1
    cluster.add(admit([pc("silver", 500), cpu_pod("silver-1", "1", "silver")])[1])
    result = Scheduler(cluster).schedule_one("default/silver-1")
    assert result.trace.preemption.victims == ["default/bronze-1"]


# ------------------------------------------------------------------ preemptionPolicy: Never
NEVER = pc("high-priority-nonpreempting", 1_000_000, policy="Never")
LOW = pc("low", 10)
HIGHER = pc("higher", 2_000_000)


def test_never_is_queued_ahead_by_priority():
    """Seed §12 "Невипереджаючий PriorityClass": such pods are placed in the scheduling queue ahead of
    lower-priority pods."""
    cluster = Cluster(admit(two_node_cluster(NEVER, LOW, cpu_pod("low-1", "100m", "low"),
                                             cpu_pod("never-1", "100m", "high-priority-nonpreempting"))))
    order = [q.pod_info.key for q in Scheduler(cluster).queue()]
    assert order == ["default/never-1", "default/low-1"]


def test_never_does_not_preempt():
    """Seed §12: "вони не можуть випереджати інші Podʼи"; the pod stays pending."""
    cluster = Cluster(admit(two_node_cluster(NEVER, LOW, cpu_pod("low-1", "1", "low", node="n1"),
                                             cpu_pod("low-2", "1", "low", node="n2"),
                                             cpu_pod("never-1", "1", "high-priority-nonpreempting"))))
    result = Scheduler(cluster).schedule_one("default/never-1")
    assert result.node is None and set(cluster.pods) >= {"default/low-1", "default/low-2"}
    assert result.message == ("0/2 nodes are available: 2 Insufficient cpu. "
                              "preemption: not eligible due to preemptionPolicy=Never.")
    assert result.trace.preemption is not None and result.trace.preemption.victims == []
    assert not cluster.pods["default/never-1"].status.nominated_node_name


def test_never_pods_are_still_preemptible():
    """Seed §12: "Невипереджаючі Podʼи все ще можуть бути випереджені іншими, Podʼами з високим пріоритетом"."""
    cluster = Cluster(admit(two_node_cluster(NEVER, HIGHER,
                                             cpu_pod("never-1", "1", "high-priority-nonpreempting", node="n1"),
                                             cpu_pod("never-2", "1", "high-priority-nonpreempting", node="n2"),
                                             cpu_pod("urgent", "1", "higher"))))
    scheduler = Scheduler(cluster)
    first = scheduler.schedule_one("default/urgent")
    assert first.status.code == Code.Unschedulable
    assert len(first.trace.preemption.victims) == 1
    assert first.trace.preemption.victims[0] in ("default/never-1", "default/never-2")
    nominated = cluster.pods["default/urgent"].status.nominated_node_name
    assert scheduler.schedule_one("default/urgent").node == nominated


def test_never_pods_back_off_and_let_lower_priority_pods_through():
    """Seed §12: non-preempting pods are subject to scheduling back-off, so lower-priority pods may be
    scheduled before them; once resources free up the non-preempting pod goes first."""
    from kschedlab.sim import Simulation

    classes = [NEVER, LOW]
    objects = admit([*classes, Node.model_validate({"metadata": {"name": "n1"},
                                                    "status": {"allocatable": {"cpu": "1", "pods": "10"}}})])
    sim = Simulation(objects)
    running = admit([*classes, cpu_pod("running", "600m", "low")])[2]
    sim.create_pod(running, at=0, duration=60)
    sim.create_pod(admit([*classes, cpu_pod("never-1", "800m", "high-priority-nonpreempting")])[2], at=1)
    sim.create_pod(admit([*classes, cpu_pod("small", "100m", "low")])[2], at=2)
    sim.create_pod(admit([*classes, cpu_pod("big-low", "800m", "low")])[2], at=3)
    rows = sim.run(until=200).pods.set_index("pod")
    # the small low-priority pod fits beside "running" and is not held up by the pending never-1
    assert rows.loc["default/small", "scheduled"] == 2.0
    # when "running" finishes, never-1 (higher priority) gets the room before big-low
    assert (rows.loc["default/never-1", "scheduled"], rows.loc["default/never-1", "node"]) == (60.0, "n1")
    assert pd.isna(rows.loc["default/big-low", "node"])
    # and never-1 preempted nobody on the way
    assert rows["preempted"].isna().all()
