"""What the API server does on create to Workload, PodGroup and CompositePodGroup objects
(``scheduling.k8s.io``): serving (feature gates), defaulting, the Priority admission
plugin and validation, with the API server's field-error wording.

Upstream validates these kinds declaratively (``+k8s:`` tags on the v1beta1 / v1alpha3
types); the rules and the error strings here follow ``k8s.io/apimachinery/pkg/api/validate``
(``Union``, ``DependentRequired``, ``Minimum``, ``Maximum``, ``MaxItems``, ``ForbiddenPointer``)
as ``field.Error.Error()`` prints them:

>>> from kschedlab.api.podgroup import PodGroup
>>> gates = {"GenericWorkload": True, "CompositePodGroup": True}
>>> pg = PodGroup.model_validate({"metadata": {"name": "pg", "namespace": "ns"},
...     "spec": {"parentCompositePodGroupName": "root", "schedulingPolicy": {"gang": {"minCount": 0}}}})
>>> for path, msg in validate_pod_group(pg, gates):
...     print(f"{path}: {msg}")
spec.workloadRef: Required value: must be set when parentCompositePodGroupName is set
spec.schedulingPolicy.gang.minCount: Required value

Without the CompositePodGroup gate the parent field itself is forbidden:

>>> [f"{p}: {m}" for p, m in validate_pod_group(pg, {"GenericWorkload": True})][0]
'spec.parentCompositePodGroupName: Forbidden'
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from ..api.errors import ManifestError
from ..api.meta import KubeObject
from ..api.podgroup import (
    PREEMPTION_POLICIES,
    CompositePodGroup,
    CompositePodGroupSchedulingPolicy,
    DisruptionMode,
    EmptyMode,
    PodGroup,
    PodGroupResourceClaim,
    PodGroupSchedulingConstraints,
    PodGroupSchedulingPolicy,
    WorkloadReference,
)
from ..api.validation import dns1123_label_errors, dns1123_subdomain_errors, qualified_name_errors
from ..api.workloadapi import (
    WORKLOAD_MAX_POD_GROUP_TEMPLATES,
    WORKLOAD_MAX_TREE_DEPTH,
    CompositePodGroupTemplate,
    PodGroupTemplate,
    Workload,
)
from .field import duplicate as _duplicate
from .field import forbidden as _forbidden
from .field import invalid as _invalid
from .field import not_supported as _not_supported
from .field import required as _required
from .field import too_many as _too_many
from .priorityclass import admitted_priority

__all__ = [
    "validate_pod_group",
    "validate_composite_pod_group",
    "validate_workload",
    "admit_scheduling_objects",
    "served",
    "GATE_DEFAULTS",
    "HIGHEST_USER_DEFINABLE_PRIORITY",
    "MAX_POD_GROUP_RESOURCE_CLAIMS",
]

#: the gates these kinds consult, at their v1.37 defaults (see kschedlab/features.py)
GATE_DEFAULTS: dict[str, bool] = {
    "GenericWorkload": False,
    "CompositePodGroup": False,
    "TopologyAwareWorkloadScheduling": False,
    "PodGroupPreemptionPolicy": False,
    "DRAWorkloadResourceClaims": False,
}

HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000
MAX_POD_GROUP_RESOURCE_CLAIMS = 4
MAX_TOPOLOGY_CONSTRAINTS = 1

Errs = list[tuple[str, str]]

# -- content checks: apimachinery util/validation (kschedlab.api.validation) --------------------------
_PATH_SEGMENT_BAD = (".", "..")


def path_segment_errors(value: str) -> list[str]:
    """``IsValidPathSegmentName``."""
    if value in _PATH_SEGMENT_BAD:
        return [f"may not be '{value}'"]
    return [f"may not contain '{c}'" for c in ("/", "%") if c in value]


def _format(errs: Errs, path: str, value: str | None, check, *, required: bool) -> None:
    """A string field with a format: "" counts as missing, as declarative validation does."""
    if not value:
        if required:
            errs.append(_required(path))
        return
    for detail in check(value):
        errs.append(_invalid(path, value, detail))


def _union(errs: Errs, path: str, members: list[tuple[str, bool]]) -> bool:
    """``validate.Union``: exactly one member set; True when it holds."""
    specified = [name for name, is_set in members if is_set]
    all_fields = ", ".join(f"`{name}`" for name, _ in members)
    if len(specified) > 1:
        errs.append(_invalid(path, "{" + ", ".join(specified) + "}", f"must specify exactly one of: {all_fields}"))
        return False
    if not specified:
        errs.append(_invalid(path, "", f"must specify one of: {all_fields}"))
        return False
    return True


def _minimum(errs: Errs, path: str, value: int | None, minimum: int) -> None:
    """A required integer with ``+k8s:minimum``: 0/unset is Required, below the minimum Invalid."""
    if not value:
        errs.append(_required(path))
    elif value < minimum:
        errs.append(_invalid(path, value, f"must be greater than or equal to {minimum}"))


def _gate(gates: Mapping[str, bool], name: str) -> bool:
    return bool(gates.get(name, GATE_DEFAULTS.get(name, False)))


# -- the parts ------------------------------------------------------------------------------------
def _pod_group_policy(errs: Errs, path: str, policy: PodGroupSchedulingPolicy) -> None:
    if _union(errs, path, [("basic", policy.basic is not None), ("gang", policy.gang is not None)]):
        if policy.gang is not None:
            _minimum(errs, f"{path}.gang.minCount", policy.gang.min_count, 1)


def _composite_policy(errs: Errs, path: str, policy: CompositePodGroupSchedulingPolicy) -> None:
    if _union(errs, path, [("basic", policy.basic is not None), ("gang", policy.gang is not None)]):
        if policy.gang is not None:
            _minimum(errs, f"{path}.gang.minGroupCount", policy.gang.min_group_count, 1)


def _constraints(errs: Errs, path: str, c: PodGroupSchedulingConstraints | None, allowed: bool) -> None:
    if c is None:
        return
    if not allowed:
        errs.append(_forbidden(path))
        return
    if len(c.topology) > MAX_TOPOLOGY_CONSTRAINTS:
        errs.append(_too_many(f"{path}.topology", len(c.topology), MAX_TOPOLOGY_CONSTRAINTS))
        return
    for i, t in enumerate(c.topology):
        _format(errs, f"{path}.topology[{i}].key", t.key, qualified_name_errors, required=True)


def _disruption(errs: Errs, path: str, mode: DisruptionMode | None) -> None:
    if mode is not None:
        _union(errs, path, [("single", mode.single is not None), ("all", mode.all is not None)])


def _priority(errs: Errs, path: str, class_name: str | None, priority: int | None) -> None:
    _format(errs, f"{path}.priorityClassName", class_name, dns1123_subdomain_errors, required=False)
    if priority is not None and priority > HIGHEST_USER_DEFINABLE_PRIORITY:
        errs.append(_invalid(f"{path}.priority", priority,
                             f"must be less than or equal to {HIGHEST_USER_DEFINABLE_PRIORITY}"))


def _preemption_policy(errs: Errs, path: str, policy: str | None, gates: Mapping[str, bool]) -> None:
    if policy is not None and not _gate(gates, "PodGroupPreemptionPolicy"):
        errs.append(_forbidden(path))
    elif policy is not None and policy not in PREEMPTION_POLICIES:  # as core's ValidatePreemptionPolicy
        errs.append(_not_supported(path, policy, PREEMPTION_POLICIES))


def _workload_ref(errs: Errs, path: str, ref: WorkloadReference | None, required: bool) -> None:
    if ref is None:
        if required:
            errs.append(_required(path))
        return
    _format(errs, f"{path}.workloadName", ref.workload_name, dns1123_subdomain_errors, required=True)
    _format(errs, f"{path}.templateName", ref.template_name, dns1123_label_errors, required=True)


def _resource_claims(errs: Errs, path: str, claims: list[PodGroupResourceClaim]) -> None:
    if len(claims) > MAX_POD_GROUP_RESOURCE_CLAIMS:
        errs.append(_too_many(path, len(claims), MAX_POD_GROUP_RESOURCE_CLAIMS))
        return
    seen: set[str] = set()
    for i, claim in enumerate(claims):
        p = f"{path}[{i}]"
        _format(errs, f"{p}.name", claim.name, dns1123_label_errors, required=True)
        if claim.name in seen:
            errs.append(_duplicate(p, claim.name))
        seen.add(claim.name or "")
        if _union(errs, p, [("resourceClaimName", bool(claim.resource_claim_name)),
                            ("resourceClaimTemplateName", bool(claim.resource_claim_template_name))]):
            for field, value in (("resourceClaimName", claim.resource_claim_name),
                                 ("resourceClaimTemplateName", claim.resource_claim_template_name)):
                _format(errs, f"{p}.{field}", value, dns1123_subdomain_errors, required=False)


def _metadata_name(errs: Errs, obj: KubeObject) -> None:
    if not obj.metadata.name and not obj.metadata.generate_name:
        errs.append(_required("metadata.name", "name or generateName is required"))
    elif obj.metadata.name:
        for detail in dns1123_subdomain_errors(obj.metadata.name):
            errs.append(_invalid("metadata.name", obj.metadata.name, detail))


# -- the kinds --------------------------------------------------------------------------------------
def validate_pod_group(pg: PodGroup, gates: Mapping[str, bool] | None = None) -> Errs:
    """API validation of a PodGroup on create: ``[(field path, message)]``, empty when valid.

    >>> ok = PodGroup.model_validate({"metadata": {"name": "pg"}, "spec": {"schedulingPolicy": {"basic": {}}}})
    >>> validate_pod_group(ok)
    []
    >>> both = PodGroup.model_validate({"metadata": {"name": "pg"},
    ...     "spec": {"schedulingPolicy": {"basic": {}, "gang": {"minCount": 2}}}})
    >>> validate_pod_group(both)[0][1]
    'Invalid value: "{basic, gang}": must specify exactly one of: `basic`, `gang`'
    """
    gates = gates or {}
    errs: Errs = []
    _metadata_name(errs, pg)
    spec = pg.spec
    if spec.parent_composite_pod_group_name is not None:
        if not _gate(gates, "CompositePodGroup"):
            errs.append(_forbidden("spec.parentCompositePodGroupName"))
        else:
            _format(errs, "spec.parentCompositePodGroupName", spec.parent_composite_pod_group_name,
                    dns1123_subdomain_errors, required=False)
            if spec.workload_ref is None:
                # DependentRequired: a standalone PodGroup may not name a parent
                errs.append(_required("spec.workloadRef", "must be set when parentCompositePodGroupName is set"))
    _workload_ref(errs, "spec.workloadRef", spec.workload_ref, required=False)
    _pod_group_policy(errs, "spec.schedulingPolicy", spec.scheduling_policy)
    _constraints(errs, "spec.schedulingConstraints", spec.scheduling_constraints,
                 _gate(gates, "TopologyAwareWorkloadScheduling"))
    _resource_claims(errs, "spec.resourceClaims", spec.resource_claims)
    _disruption(errs, "spec.disruptionMode", spec.disruption_mode)
    _priority(errs, "spec", spec.priority_class_name, spec.priority)
    _preemption_policy(errs, "spec.preemptionPolicy", spec.preemption_policy, gates)
    return errs


def validate_composite_pod_group(cpg: CompositePodGroup, gates: Mapping[str, bool] | None = None) -> Errs:
    """API validation of a CompositePodGroup on create (``workloadRef`` is required).

    >>> cpg = CompositePodGroup.model_validate({"metadata": {"name": "root"},
    ...     "spec": {"schedulingPolicy": {"gang": {"minGroupCount": -1}}}})
    >>> [f"{p}: {m}" for p, m in validate_composite_pod_group(cpg)]
    ['spec.workloadRef: Required value', 'spec.schedulingPolicy.gang.minGroupCount: Invalid value: -1: must be greater than or equal to 1']
    """
    gates = gates or {}
    errs: Errs = []
    _metadata_name(errs, cpg)
    spec = cpg.spec
    _format(errs, "spec.parentCompositePodGroupName", spec.parent_composite_pod_group_name,
            dns1123_subdomain_errors, required=False)
    _workload_ref(errs, "spec.workloadRef", spec.workload_ref, required=True)
    _composite_policy(errs, "spec.schedulingPolicy", spec.scheduling_policy)
    _constraints(errs, "spec.schedulingConstraints", spec.scheduling_constraints, True)
    _disruption(errs, "spec.disruptionMode", spec.disruption_mode)
    _priority(errs, "spec", spec.priority_class_name, spec.priority)
    _preemption_policy(errs, "spec.preemptionPolicy", spec.preemption_policy, gates)
    return errs


def _template_common(errs: Errs, path: str, t, gates: Mapping[str, bool], constraints_allowed: bool) -> None:
    _format(errs, f"{path}.name", t.name, dns1123_label_errors, required=True)
    _constraints(errs, f"{path}.schedulingConstraints", t.scheduling_constraints, constraints_allowed)
    _disruption(errs, f"{path}.disruptionMode", t.disruption_mode)
    _priority(errs, path, t.priority_class_name, t.priority)
    _preemption_policy(errs, f"{path}.preemptionPolicy", t.preemption_policy, gates)


def _named_templates(errs: Errs, path: str, templates: list):
    """Each template with its path, after the list's size and duplicate-name checks (none
    when the list is too long)."""
    if len(templates) > WORKLOAD_MAX_POD_GROUP_TEMPLATES:
        errs.append(_too_many(path, len(templates), WORKLOAD_MAX_POD_GROUP_TEMPLATES))
        return
    seen: set[str] = set()
    for i, t in enumerate(templates):
        p = f"{path}[{i}]"
        if t.name and t.name in seen:
            errs.append(_duplicate(f"{p}.name", t.name))
        seen.add(t.name or "")
        yield p, t


def _pod_group_templates(errs: Errs, path: str, templates: list[PodGroupTemplate], gates) -> None:
    for p, t in _named_templates(errs, path, templates):
        _template_common(errs, p, t, gates, _gate(gates, "TopologyAwareWorkloadScheduling"))
        _pod_group_policy(errs, f"{p}.schedulingPolicy", t.scheduling_policy)
        _resource_claims(errs, f"{p}.resourceClaims", t.resource_claims)


def _composite_templates(errs: Errs, path: str, templates: list[CompositePodGroupTemplate], gates,
                         depth: int) -> None:
    for p, t in _named_templates(errs, path, templates):
        _template_common(errs, p, t, gates, True)
        _composite_policy(errs, f"{p}.schedulingPolicy", t.scheduling_policy)
        if not t.pod_group_templates and not t.composite_pod_group_templates:
            errs.append(_required(p, "at least one of `podGroupTemplates`, `compositePodGroupTemplates` "
                                     "must be set"))
        if depth + 1 > WORKLOAD_MAX_TREE_DEPTH:
            errs.append(_invalid(p, t.name or "", f"must not be nested deeper than {WORKLOAD_MAX_TREE_DEPTH} levels"))
            continue
        _pod_group_templates(errs, f"{p}.podGroupTemplates", t.pod_group_templates, gates)
        _composite_templates(errs, f"{p}.compositePodGroupTemplates", t.composite_pod_group_templates, gates,
                             depth + 1)


def validate_workload(wl: Workload, gates: Mapping[str, bool] | None = None) -> Errs:
    """API validation of a Workload on create.

    >>> wl = Workload.model_validate({"metadata": {"name": "w"}, "spec": {}})
    >>> validate_workload(wl)
    [('spec', 'Invalid value: "": must specify one of: `podGroupTemplates`, `compositePodGroupTemplates`')]
    """
    gates = gates or {}
    errs: Errs = []
    _metadata_name(errs, wl)
    spec = wl.spec
    ref = spec.controller_ref
    if ref is not None:
        p = "spec.controllerRef"
        _format(errs, f"{p}.apiGroup", ref.api_group, dns1123_subdomain_errors, required=False)
        _format(errs, f"{p}.kind", ref.kind, path_segment_errors, required=True)
        _format(errs, f"{p}.name", ref.name, path_segment_errors, required=True)
    if spec.composite_pod_group_templates and not _gate(gates, "CompositePodGroup"):
        errs.append(_forbidden("spec.compositePodGroupTemplates"))
    else:
        _union(errs, "spec", [("podGroupTemplates", bool(spec.pod_group_templates)),
                              ("compositePodGroupTemplates", bool(spec.composite_pod_group_templates))])
    _pod_group_templates(errs, "spec.podGroupTemplates", spec.pod_group_templates, gates)
    if _gate(gates, "CompositePodGroup"):
        _composite_templates(errs, "spec.compositePodGroupTemplates", spec.composite_pod_group_templates, gates, 1)
    return errs


# -- serving, defaulting, Priority admission, driver ------------------------------------------------------
_SERVING_GATES = {"Workload": ("GenericWorkload",), "PodGroup": ("GenericWorkload",),
                  "CompositePodGroup": ("GenericWorkload", "CompositePodGroup")}


def served(kind: str, gates: Mapping[str, bool] | None = None) -> bool:
    """Whether the API server serves ``kind`` with these gates (v1.37: GenericWorkload, plus
    CompositePodGroup for CompositePodGroups).

    >>> served("PodGroup"), served("PodGroup", {"GenericWorkload": True})
    (False, True)
    """
    return all(_gate(gates or {}, g) for g in _SERVING_GATES.get(kind, ()))


def _default_disruption_mode(obj) -> None:
    # +default={"single": {}}
    if obj.spec.disruption_mode is None:
        obj.spec.disruption_mode = DisruptionMode(single=EmptyMode())
        obj.mark_set("spec")


def _admit_priority(obj, classes: Mapping[str, Any], gates: Mapping[str, bool]) -> Errs:
    """The Priority admission plugin for (composite) pod groups: ``priorityClassName`` ->
    ``priority`` (and ``preemptionPolicy`` with the PodGroupPreemptionPolicy gate)."""
    spec = obj.spec
    try:
        priority, policy = admitted_priority(spec, classes)
    except LookupError as err:
        return [("spec.priorityClassName", str(err))]
    if spec.priority is not None and spec.priority != priority:
        # wording as for pods (the plugin's pod message); not verified against the PodGroup branch
        return [("spec.priority", f"the integer value of priority ({spec.priority}) must not be provided in "
                                  f"pod group spec; priority admission controller computed {priority} from "
                                  f"the given PriorityClass name")]
    spec.priority = priority
    if policy is not None and _gate(gates, "PodGroupPreemptionPolicy") and spec.preemption_policy is None:
        spec.preemption_policy = policy
    obj.mark_set("spec")
    return []


def _to_manifest_errors(obj: KubeObject, errs: Iterable[tuple[str | None, str]]) -> list[ManifestError]:
    return [ManifestError(msg, file=obj.source_file, obj=obj.describe(), path=path) for path, msg in errs]


def admit_scheduling_objects(objs: list, priority_classes: Mapping[str, Any],
                             gates: Mapping[str, bool] | None = None) -> list[ManifestError]:
    """Admit the Workloads, PodGroups and CompositePodGroups among ``objs`` in place
    (serving check, defaults, priority, validation); returns the errors.

    A kind the API server does not serve with these gates is refused as ``kubectl apply``
    reports it.
    """
    gates = gates or {}
    errors: list[ManifestError] = []
    for o in objs:
        kind = type(o).__name__
        if kind not in _SERVING_GATES:
            continue
        if not served(kind, gates):
            missing = [g for g in _SERVING_GATES[kind] if not _gate(gates, g)]
            errors.append(ManifestError(
                f'no matches for kind "{kind}" in version "{o.API_VERSION}" '
                f"(served only with the feature gate(s) {', '.join(missing)} enabled)",
                file=o.source_file, obj=o.describe()))
            continue
        if isinstance(o, Workload):
            errors.extend(_to_manifest_errors(o, validate_workload(o, gates)))
            continue
        _default_disruption_mode(o)
        if isinstance(o, PodGroup) and not _gate(gates, "DRAWorkloadResourceClaims"):
            o.spec.resource_claims = []  # dropDisabledFields: not served without the gate
        errs = _admit_priority(o, priority_classes, gates)
        if isinstance(o, PodGroup):
            errs += validate_pod_group(o, gates)
        else:
            errs += validate_composite_pod_group(o, gates)
        errors.extend(_to_manifest_errors(o, errs))
    return errors
