"""Enumerated fields the API server decodes as plain strings and validation refuses per object.

Go decodes ``restartPolicy: Sometimes`` into a ``string`` type like any other; the object's
validation then answers ``Unsupported value: "Sometimes": supported values: "Always",
"OnFailure", "Never"`` (``field.NotSupported``) or, for selector operators, ``Invalid value:
"Foo": not a valid selector operator``, at the field's path. So the models take any string and
:func:`enum_errors` finds the bad ones where they sit in the object (a Pod's ``spec``, a
workload's ``spec.template.spec``, a PodDisruptionBudget's ``spec``...); the object is left
out while the rest of the input applies (:func:`~kschedlab.apiserver.object_validation.refuse_invalid`).

Checked: pod spec ``restartPolicy``, ``dnsPolicy``, ``preemptionPolicy`` (in a workload's
template; a Pod's own one meets the Priority admission plugin first, a Forbidden refusal),
containers' ``imagePullPolicy`` and ports' ``protocol``, tolerations' ``operator`` (in a
template; a Pod's own meet admission's ``validate_tolerations``) and ``effect``, node selector and label selector operators, ``topologySpreadConstraints``'
``whenUnsatisfiable`` / ``nodeAffinityPolicy`` / ``nodeTaintsPolicy``; a Deployment's
``strategy``, a DaemonSet's ``updateStrategy`` (upstream shows the whole struct as the bad
value, a set ``rollingUpdate`` pointer as an address: :func:`~kschedlab.apiserver.field.go_pointer`); the template ``restartPolicy`` a ReplicaSet, Deployment, StatefulSet or
DaemonSet needs (``Always``), a Job's (``OnFailure`` or ``Never``) and its ``completionMode``; a PodDisruptionBudget's
``unhealthyPodEvictionPolicy``. Other kinds' enums are checked by their own validation
(storage, DRA, ResourceQuota scopes, PriorityClass and PodGroup ``preemptionPolicy``).
Status fields (pod ``phase``, ``qosClass``, condition ``status``) stay checked by the models.

>>> from kschedlab.api.apps import Deployment
>>> d = Deployment.model_validate({"metadata": {"name": "web"}, "spec": {"strategy": {"type": "Fast"},
...     "template": {"spec": {"restartPolicy": "Sometimes", "containers": [{"name": "c",
...     "imagePullPolicy": "Maybe"}], "tolerations": [{"operator": "Exists", "effect": "NoWay"}]}}}})
>>> for path, message in enum_errors(d):
...     print(f"{path}: {message}")
spec.template.spec.containers[0].imagePullPolicy: Unsupported value: "Maybe": supported values: "Always", "IfNotPresent", "Never"
spec.template.spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"
spec.template.spec.tolerations[0].effect: Unsupported value: "NoWay": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"
spec.template.spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always"
spec.strategy: Unsupported value: apps.DeploymentStrategy{Type:"Fast", RollingUpdate:(*apps.RollingUpdateDeployment)(nil)}: supported values: "Recreate", "RollingUpdate"
"""

from __future__ import annotations

import types
import typing
from typing import Any, Callable

from pydantic import BaseModel

from ..api.apps import DaemonSetUpdateStrategy, DeploymentStrategy
from ..api.batch import JobSpec
from ..api.core import (
    Container,
    ContainerPort,
    NodeSelectorRequirement,
    PodSpec,
    Toleration,
    TopologySpreadConstraint,
)
from ..api.errors import format_path
from ..api.meta import LabelSelectorRequirement, TypedObject
from ..api.policy import PodDisruptionBudgetSpec
from ..api.volume import ClusterTrustBundleProjection
from .field import bad_value, go_pointer, invalid, not_supported

__all__ = ["enum_errors", "RESTART_POLICIES", "DNS_POLICIES", "PULL_POLICIES", "PORT_PROTOCOLS"]

RESTART_POLICIES = ("Always", "OnFailure", "Never")
DNS_POLICIES = ("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None")
PULL_POLICIES = ("Always", "IfNotPresent", "Never")  # sorted, as sets.List gives them
PORT_PROTOCOLS = ("SCTP", "TCP", "UDP")  # sorted
TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
NODE_SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
LABEL_SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")
TOLERATION_OPERATORS = ("Equal", "Exists", "Gt", "Lt")  # Gt / Lt: validate_tolerations decides (a gate)
PREEMPTION_POLICIES = ("PreemptLowerPriority", "Never")
COMPLETION_MODES = ("NonIndexed", "Indexed")
UNHEALTHY_POD_EVICTION_POLICIES = ("AlwaysAllow", "IfHealthyBudget")  # sorted
#: kinds whose pod template must restart Always (``ValidatePodTemplateSpecForReplicaSet`` and its siblings)
ALWAYS_RESTARTING = ("Deployment", "ReplicaSet", "StatefulSet", "DaemonSet")

Errors = list[tuple[str, str]]
Check = Callable[[str], "str | None"]


def _one_of(allowed: tuple[str, ...]) -> Check:
    def check(value: str) -> str | None:
        return None if value in allowed else not_supported("", value, allowed)[1]
    return check


def _operator(allowed: tuple[str, ...]) -> Check:
    def check(value: str) -> str | None:
        return None if value in allowed else invalid("", value, "not a valid selector operator")[1]
    return check


def _toleration_operator(value: str) -> str | None:
    # the message validate_tolerations gives (without the TaintTolerationComparisonOperators gate)
    return None if value in TOLERATION_OPERATORS else not_supported("", value, ("Equal", "Exists"))[1]


#: (model, attribute) -> the check of a set, non-empty value
CHECKS: dict[tuple[type, str], Check] = {
    (PodSpec, "restart_policy"): _one_of(RESTART_POLICIES),
    (PodSpec, "dns_policy"): _one_of(DNS_POLICIES),
    (PodSpec, "preemption_policy"): _one_of(PREEMPTION_POLICIES),
    (Container, "image_pull_policy"): _one_of(PULL_POLICIES),
    (ContainerPort, "protocol"): _one_of(PORT_PROTOCOLS),
    (Toleration, "operator"): _toleration_operator,
    (Toleration, "effect"): _one_of(TAINT_EFFECTS),
    (TopologySpreadConstraint, "when_unsatisfiable"): _one_of(("DoNotSchedule", "ScheduleAnyway")),
    (TopologySpreadConstraint, "node_affinity_policy"): _one_of(("Honor", "Ignore")),
    (TopologySpreadConstraint, "node_taints_policy"): _one_of(("Honor", "Ignore")),
    (NodeSelectorRequirement, "operator"): _operator(NODE_SELECTOR_OPERATORS),
    (LabelSelectorRequirement, "operator"): _operator(LABEL_SELECTOR_OPERATORS),
    (JobSpec, "completion_mode"): _one_of(COMPLETION_MODES),
    (PodDisruptionBudgetSpec, "unhealthy_pod_eviction_policy"): _one_of(UNHEALTHY_POD_EVICTION_POLICIES),
}

#: checks a kind skips: a Pod's own preemptionPolicy is the Priority admission plugin's (Forbidden), its
#: tolerations' operators are :func:`~kschedlab.api.tolerations.validate_tolerations`' (with the gate for Lt / Gt)
_SKIPPED: dict[str, set[tuple[type, str]]] = {"Pod": {(PodSpec, "preemption_policy"), (Toleration, "operator")}}

#: fields whose enums a validation of their own reports (not walked here): a ClusterTrustBundle
#: projection's selector (:mod:`kschedlab.apiserver.selector_validation`, at upstream's path)
_VALIDATED_ELSEWHERE = {(ClusterTrustBundleProjection, "label_selector")}

_Plan = list[tuple[str, str, "Check | None"]]
_PLANS: dict[type, _Plan] = {}


def _models(annotation: Any) -> list[type]:
    """The model classes a field's annotation holds (in a list, an optional or a union)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    origin = typing.get_origin(annotation)
    if origin in (list, typing.Union, types.UnionType):
        return [m for arg in typing.get_args(annotation) for m in _models(arg)]
    return []


def _plan(cls: type) -> _Plan:
    """(attribute, JSON name, check or None to descend) of the fields of ``cls`` that hold a
    checked enum, directly or further down (cached; cycles end at a class in progress)."""
    plan = _PLANS.get(cls)
    if plan is not None:
        return plan
    _PLANS[cls] = plan = []
    for name, info in cls.model_fields.items():  # type: ignore[attr-defined]
        alias = info.alias or name
        check = CHECKS.get((cls, name))
        if check is not None:
            plan.append((name, alias, check))
        elif (cls, name) not in _VALIDATED_ELSEWHERE and any(_plan(m) for m in _models(info.annotation)):
            plan.append((name, alias, None))
    return plan


def _walk(value: Any, path: list[Any], skipped: set[tuple[type, str]], errs: Errors) -> None:
    if isinstance(value, list):
        for i, item in enumerate(value):
            _walk(item, [*path, i], skipped, errs)
        return
    if not isinstance(value, BaseModel):
        return
    cls = type(value)
    for name, alias, check in _plan(cls):
        v = getattr(value, name)
        if check is None:
            _walk(v, [*path, alias], skipped, errs)
        elif isinstance(v, str) and v and (cls, name) not in skipped:
            message = check(v)
            if message is not None:
                errs.append((format_path([*path, alias]), message))


def _go_struct(type_name: str, kind: str | None, pointer_type: str, pointer_set: bool) -> str:
    # %#v of a strategy struct: its Type and its RollingUpdate pointer (the struct's second field)
    return f'{type_name}{{Type:{bad_value(kind or "")}, RollingUpdate:{go_pointer(pointer_type, pointer_set, 1)}}}'


def _strategy_errors(obj: Any) -> Errors:
    spec = obj.spec
    if obj.kind == "Deployment" and spec.strategy is not None:
        s: DeploymentStrategy = spec.strategy
        if s.type and s.type not in ("Recreate", "RollingUpdate"):
            shown = _go_struct("apps.DeploymentStrategy", s.type, "apps.RollingUpdateDeployment",
                               s.rolling_update is not None)
            return [("spec.strategy", f'Unsupported value: {shown}: supported values: "Recreate", "RollingUpdate"')]
    if obj.kind == "DaemonSet" and spec.update_strategy is not None:
        u: DaemonSetUpdateStrategy = spec.update_strategy
        if u.type and u.type not in ("OnDelete", "RollingUpdate"):
            shown = _go_struct("apps.DaemonSetUpdateStrategy", u.type, "apps.RollingUpdateDaemonSet",
                               u.rolling_update is not None)
            return [("spec.updateStrategy",
                     f'Unsupported value: {shown}: supported values: "RollingUpdate", "OnDelete"')]
    return []


def enum_errors(obj: TypedObject) -> Errors:
    """``(field path, message)`` of every enumerated field of ``obj`` with a value its
    validation does not support (see the module text)."""
    errs: Errors = []
    _walk(obj, [], _SKIPPED.get(obj.kind or "", set()), errs)
    if obj.kind in ALWAYS_RESTARTING:
        policy = obj.spec.template.spec.restart_policy or "Always"  # type: ignore[attr-defined]
        if policy != "Always":
            errs.append(not_supported("spec.template.spec.restartPolicy", policy, ("Always",)))
    if obj.kind == "Job":
        errs += _job_restart_policy_errors(obj.spec.template.spec.restart_policy)  # type: ignore[attr-defined]
    if obj.kind in ("Deployment", "DaemonSet"):
        errs += _strategy_errors(obj)
    return errs


def _job_restart_policy_errors(policy: str | None) -> Errors:
    """``validateJobPodTemplateSpec``: a Job's pods restart OnFailure or Never (a missing policy is
    defaulted to Always first, so it is refused as Always is).

    >>> _job_restart_policy_errors(None)
    [('spec.template.spec.restartPolicy', 'Required value: valid values: "OnFailure", "Never"')]
    """
    path = "spec.template.spec.restartPolicy"
    if policy in (None, "", "Always"):
        return [(path, 'Required value: valid values: "OnFailure", "Never"')]
    if policy not in ("OnFailure", "Never"):
        return [not_supported(path, policy, ("OnFailure", "Never"))]
    return []
