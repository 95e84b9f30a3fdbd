"""What the API server does on create to ``resource.k8s.io`` objects and to a pod's DRA fields:
defaulting (``allocationMode: ExactCount``, ``count: 1``, toleration operator ``Equal``), the
admin-access check against the namespace's label, and validation with upstream's field paths and
wording (``pkg/apis/resource/validation``, ``pkg/apis/core/validation``). Selector expressions are
compiled by the real CEL environment (:mod:`kschedlab.api.dracel`).

>>> from kschedlab.api.resource import ResourceClaim
>>> c = ResourceClaim.model_validate({"metadata": {"name": "c", "namespace": "ns"}, "spec": {"devices": {
...     "requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com", "allocationMode": "All",
...                   "count": 2, "selectors": [{"cel": {"expression": "device.driver"}}]}}]}}})
>>> for path, msg in validate_resource_claim(c):
...     print(f"{path}: {msg}")
spec.devices.requests[0].exactly.selectors[0].cel.expression: Invalid value: "device.driver": must evaluate to bool or the unknown type, not string
spec.devices.requests[0].exactly.count: Invalid value: 2: must not be specified when allocationMode is 'All'

Status is kept as loaded (a simulation may start from allocated claims), and validated as a
status update would be.
"""

from __future__ import annotations

import contextvars
import json
import re
from typing import Any, Callable, Mapping

from ..api.core import NodeSelector, Pod
from ..api.dracel import SELECTOR_MAX_LENGTH, TOO_COMPLEX, CELError, compile_selector
from ..api.dracel_cost import CEL_SELECTOR_EXPRESSION_MAX_COST
from ..api.errors import ManifestError
from ..api.meta import KubeObject
from ..api.quantity import Quantity
from ..api.resource import (
    ADMIN_ACCESS_NAMESPACE_LABEL,
    ALLOCATION_CONFIG_SOURCES,
    DEVICE_TAINT_EFFECTS,
    LIST_ATTRIBUTE_FIELDS,
    CapacityRequestPolicy,
    Device,
    DeviceAttribute,
    DeviceClaim,
    DeviceClass,
    DeviceTaint,
    DeviceTaintRule,
    DeviceTaintRuleV1beta2,
    DeviceToleration,
    OpaqueDeviceConfiguration,
    RequestFields,
    ResourceClaim,
    ResourceClaimStatus,
    ResourceClaimTemplate,
    ResourceSlice,
)
from ..api.resource_names import is_extended_resource_name
from ..api.validation import (
    dns1123_label_errors,
    dns1123_subdomain_errors,
    label_value_errors,
    qualified_name_errors,
)
from .field import bad_value as _q
from .field import duplicate as _duplicate
from .field import forbidden as _forbidden
from .field import invalid as _invalid
from .field import not_supported as _not_supported
from .field import required as _required
from .field import too_long as _too_long
from .field import too_many as _too_many

__all__ = [
    "default_resource_object",
    "validate_device_class",
    "validate_resource_claim",
    "validate_resource_claim_template",
    "validate_resource_slice",
    "validate_device_taint_rule",
    "validate_pod_resource_claims",
    "admin_access_errors",
    "admit_resource_objects",
    "RESOURCE_KINDS",
]

Errs = list[tuple[str | None, str]]

RESOURCE_KINDS = (DeviceClass, ResourceClaim, ResourceClaimTemplate, ResourceSlice, DeviceTaintRule)

# limits of the resource.k8s.io API (pkg/apis/resource/types.go)
DEVICE_REQUESTS_MAX = 32
DEVICE_SELECTORS_MAX = 32
FIRST_AVAILABLE_MAX = 8
DEVICE_CONSTRAINTS_MAX = 32
DEVICE_CONFIG_MAX = 32
RESOURCE_SLICE_MAX_DEVICES = 128
RESOURCE_SLICE_MAX_DEVICES_ADVANCED = 64
MAX_ATTRIBUTES_AND_CAPACITIES = 32
ATTRIBUTE_VALUE_MAX_LENGTH = 64
DEVICE_MAX_ID_LENGTH = 32
DEVICE_MAX_DOMAIN_LENGTH = 63
DRIVER_NAME_MAX_LENGTH = 63
POOL_NAME_MAX_LENGTH = 253
BINDING_CONDITIONS_MAX = 4
RESERVED_FOR_MAX = 256
OPAQUE_PARAMETERS_MAX_LENGTH = 10 * 1024

_C_IDENTIFIER_FMT = "[A-Za-z_][A-Za-z0-9_]*"
_C_IDENTIFIER_RE = re.compile(_C_IDENTIFIER_FMT + r"\Z")
_SEMVER_RE = re.compile(
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(-(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(\.(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*)?"
    r"(\+[0-9a-zA-Z-]+(\.[0-9a-zA-Z-]+)*)?$")
_UUID_RE = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


# ------------------------------------------------------------- field errors


def _key(path: str, key: str) -> str:
    return f"{path}[{key}]"


def _c_identifier_errors(value: str) -> list[str]:
    if _C_IDENTIFIER_RE.match(value):
        return []
    return ["a valid C identifier must start with alphabetic character or '_', followed by a string of "
            "alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for "
            f"validation is '{_C_IDENTIFIER_FMT}')"]


# ---------------------------------------------------------- name validators


def _driver_name(errs: Errs, path: str, name: str | None) -> None:
    # ValidateCSIDriverName
    name = name or ""
    if not name:
        errs.append(_required(path))
    if len(name) > DRIVER_NAME_MAX_LENGTH:
        errs.append(_too_long(path, DRIVER_NAME_MAX_LENGTH))
    for msg in dns1123_subdomain_errors(name.lower()) if name else []:
        errs.append(_invalid(path, name, msg))


def _dns_label(errs: Errs, path: str, value: str | None, *, required: bool = True) -> None:
    if not value:
        if required:
            errs.append(_required(path))
        return
    for msg in dns1123_label_errors(value):
        errs.append(_invalid(path, value, msg))


def _dns_subdomain(errs: Errs, path: str, value: str | None, *, required: bool = True) -> None:
    if not value:
        if required:
            errs.append(_required(path))
        return
    for msg in dns1123_subdomain_errors(value):
        errs.append(_invalid(path, value, msg))


def _pool_name(errs: Errs, path: str, name: str | None) -> None:
    if not name:
        errs.append(_required(path))
        return
    if len(name) > POOL_NAME_MAX_LENGTH:
        errs.append(_too_long(path, POOL_NAME_MAX_LENGTH))
    for part in name.split("/"):
        for msg in dns1123_subdomain_errors(part):
            errs.append(_invalid(path, part, msg))


def _label_name(errs: Errs, path: str, value: str | None) -> None:
    # metav1validation.ValidateLabelName
    for msg in qualified_name_errors(value or ""):
        errs.append(_invalid(path, value or "", msg))


def _qualified_name(errs: Errs, path: str, name: str) -> None:
    parts = name.split("/")
    if len(parts) == 1:
        _c_identifier(errs, path, parts[0])
    elif len(parts) == 2:
        if not parts[0]:
            errs.append(_invalid(path, "", "the domain must not be empty"))
        else:
            _driver_name(errs, path, parts[0])
        if not parts[1]:
            errs.append(_invalid(path, "", "the name must not be empty"))
        else:
            _c_identifier(errs, path, parts[1])
    else:
        errs.append(_invalid(path, name, "must not contain more than one slash"))


def _c_identifier(errs: Errs, path: str, ident: str) -> None:
    if len(ident) > DEVICE_MAX_ID_LENGTH:
        errs.append(_too_long(path, DEVICE_MAX_ID_LENGTH))
    for msg in _c_identifier_errors(ident):
        errs.append(_invalid(path, ident, msg))


def _fully_qualified_name(errs: Errs, path: str, name: str) -> None:
    _qualified_name(errs, path, name)
    if "/" not in name:
        errs.append(_invalid(path, name, "a fully qualified name must be a domain and a name separated by a slash"))


def _set(errs: Errs, path: str, items: list, limit: int, key: Callable[[Any], Any],
         check: Callable[[Errs, str, Any], None]) -> None:
    """``validateSet``: size limit (short-circuits), each item, then duplicates."""
    if 0 <= limit < len(items):
        errs.append(_too_many(path, len(items), limit))
        return
    for i, item in enumerate(items):
        check(errs, f"{path}[{i}]", item)
    seen: set[Any] = set()
    for i, item in enumerate(items):
        k = key(item)
        if k in seen:
            errs.append(_duplicate(f"{path}[{i}]", k))
        seen.add(k)


def _slice(errs: Errs, path: str, items: list, limit: int, check: Callable[[Errs, str, Any], None]) -> None:
    if 0 <= limit < len(items):
        errs.append(_too_many(path, len(items), limit))
        return
    for i, item in enumerate(items):
        check(errs, f"{path}[{i}]", item)


# -------------------------------------------------------------- selectors


def _cel_expression(errs: Errs, path: str, expression: str) -> None:
    if len(expression) > SELECTOR_MAX_LENGTH:
        errs.append(_too_long(path, SELECTOR_MAX_LENGTH))
        return
    try:
        selector = compile_selector(expression, list_types=_LIST_TYPES.get())
    except CELError as e:
        errs.append(_invalid(path, expression, str(e)))
        return
    if selector.max_cost > CEL_SELECTOR_EXPRESSION_MAX_COST:
        errs.append(_forbidden(path, TOO_COMPLEX))


def _selector(errs: Errs, path: str, selector: Any) -> None:
    if selector.cel is None:
        errs.append(_required(f"{path}.cel"))
    else:
        _cel_expression(errs, f"{path}.cel.expression", selector.cel.expression or "")


def _selectors(errs: Errs, path: str, selectors: list) -> None:
    _slice(errs, path, selectors, DEVICE_SELECTORS_MAX, _selector)


# ---------------------------------------------------------- configuration


def _raw_extension(errs: Errs, path: str, value: Any) -> None:
    if value is None:
        errs.append(_required(path))
        return
    raw = json.dumps(value, separators=(",", ":"))
    if len(raw) > OPAQUE_PARAMETERS_MAX_LENGTH:
        errs.append(_too_long(path, OPAQUE_PARAMETERS_MAX_LENGTH))
    elif not isinstance(value, dict):
        errs.append(_invalid(path, "<value omitted>", "must be a valid JSON object"))


def _opaque(errs: Errs, path: str, opaque: OpaqueDeviceConfiguration | None) -> None:
    if opaque is None:
        errs.append(_required(f"{path}.opaque"))
        return
    _driver_name(errs, f"{path}.opaque.driver", opaque.driver)
    _raw_extension(errs, f"{path}.opaque.parameters", opaque.parameters)


# ----------------------------------------------------------------- claims


class _RequestNames:
    """Request names of a claim and, for ``firstAvailable``, their subrequest names."""

    def __init__(self, devices: DeviceClaim) -> None:
        self.names: dict[str, set[str] | None] = {}
        for r in devices.requests:
            self.names[r.name or ""] = {s.name or "" for s in r.first_available} if r.first_available else None

    def has(self, ref: str) -> bool:
        parts = ref.split("/")
        if len(parts) > 2 or parts[0] not in self.names:
            return False
        if len(parts) == 1:
            return True
        subs = self.names[parts[0]]
        return subs is not None and parts[1] in subs


_REF_MSG = "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'"


def _request_ref(names: _RequestNames) -> Callable[[Errs, str, str], None]:
    def check(errs: Errs, path: str, ref: str) -> None:
        parts = ref.split("/")
        if len(parts) > 2:
            errs.append(_invalid(path, ref, _REF_MSG))
            return
        for p in parts:
            _dns_label(errs, path, p)
        if not names.has(ref):
            errs.append(_invalid(path, ref, _REF_MSG))
    return check


def _toleration(errs: Errs, path: str, t: DeviceToleration) -> None:
    if t.key:
        _label_name(errs, f"{path}.key", t.key)
    op = t.operator or ""
    if op == "Exists":
        if t.value:
            errs.append(_invalid(f"{path}.value", t.value, "must be empty for operator `Exists`"))
    elif op == "Equal":
        for msg in label_value_errors(t.value or ""):
            errs.append(_invalid(f"{path}.value", t.value or "", msg))
    elif op == "":
        errs.append(_required(f"{path}.operator"))
    else:
        errs.append(_not_supported(f"{path}.operator", op, ["Equal", "Exists"]))
    if t.effect and t.effect not in DEVICE_TAINT_EFFECTS:
        errs.append(_not_supported(f"{path}.effect", t.effect, sorted(DEVICE_TAINT_EFFECTS)))


def _request_fields(errs: Errs, path: str, r: RequestFields) -> None:
    cls = r.device_class_name
    if not cls:
        errs.append(_required(f"{path}.deviceClassName"))
    else:
        _dns_subdomain(errs, f"{path}.deviceClassName", cls)
    _selectors(errs, f"{path}.selectors", r.selectors)
    mode = r.allocation_mode or ""
    count = r.count or 0
    if mode == "All":
        if count != 0:
            errs.append(_invalid(f"{path}.count", count, "must not be specified when allocationMode is 'All'"))
    elif mode == "ExactCount":
        if count <= 0:
            errs.append(_invalid(f"{path}.count", count, "must be greater than zero"))
    else:
        errs.append(_not_supported(f"{path}.allocationMode", mode, ["All", "ExactCount"]))
    for i, t in enumerate(r.tolerations):
        _toleration(errs, f"{path}.tolerations[{i}]", t)
    if r.capacity is not None:
        for name, q in r.capacity.requests.items():
            _qualified_name(errs, f"{path}.capacity.requests", name)
            if q.sign() < 0:
                errs.append(_invalid(_key(f"{path}.capacity.requests", name), q,
                                     "must be greater than or equal to 0"))


def _device_request(errs: Errs, path: str, request: Any) -> None:
    _dns_label(errs, f"{path}.name", request.name)
    has_first = bool(request.first_available)
    has_exactly = request.exactly is not None
    if not has_first and not has_exactly:
        errs.append(_required(path, "exactly one of `exactly` or `firstAvailable` is required"))
    elif has_first and has_exactly:
        errs.append(_invalid(path, None, "exactly one of `exactly` or `firstAvailable` is required, "
                                         "but multiple fields are set"))
    elif has_first:
        def sub(e: Errs, p: str, s: Any) -> None:
            _dns_label(e, f"{p}.name", s.name)
            _request_fields(e, p, s)
        _set(errs, f"{path}.firstAvailable", request.first_available, FIRST_AVAILABLE_MAX, lambda s: s.name or "",
             sub)
    else:
        _request_fields(errs, f"{path}.exactly", request.exactly)


def _device_claim(errs: Errs, path: str, devices: DeviceClaim) -> None:
    names = _RequestNames(devices)
    _set(errs, f"{path}.requests", devices.requests, DEVICE_REQUESTS_MAX, lambda r: r.name or "", _device_request)

    def constraint(e: Errs, p: str, c: Any) -> None:
        _set(e, f"{p}.requests", c.requests, DEVICE_REQUESTS_MAX, lambda s: s, _request_ref(names))
        if c.match_attribute is not None:
            _fully_qualified_name(e, f"{p}.matchAttribute", c.match_attribute)
        elif c.distinct_attribute is not None:
            _fully_qualified_name(e, f"{p}.distinctAttribute", c.distinct_attribute)
        else:
            e.append(_required(p, 'exactly one of "matchAttribute" or "distinctAttribute" is required, '
                                  "but multiple fields are set"))
    _slice(errs, f"{path}.constraints", devices.constraints, DEVICE_CONSTRAINTS_MAX, constraint)

    def config(e: Errs, p: str, c: Any) -> None:
        _set(e, f"{p}.requests", c.requests, DEVICE_REQUESTS_MAX, lambda s: s, _request_ref(names))
        _opaque(e, p, c.opaque)
    _slice(errs, f"{path}.config", devices.config, DEVICE_CONFIG_MAX, config)


def _claim_status(errs: Errs, status: ResourceClaimStatus, names: _RequestNames) -> None:
    def consumer(e: Errs, p: str, ref: Any) -> None:
        for field in ("resource", "name", "uid"):
            if not getattr(ref, field):
                e.append(_required(f"{p}.{field}"))
    _set(errs, "status.reservedFor", status.reserved_for, RESERVED_FOR_MAX, lambda r: r.uid or "", consumer)
    if status.reserved_for and status.allocation is None:
        errs.append(_forbidden("status.reservedFor", "may not be specified when `allocated` is not set"))
    alloc = status.allocation
    allocated: set[tuple[str, str, str, str | None]] = set()
    if alloc is not None:
        base = "status.allocation.devices"
        for i, r in enumerate(alloc.devices.results):
            p = f"{base}.results[{i}]"
            _request_ref(names)(errs, f"{p}.request", r.request or "")
            _driver_name(errs, f"{p}.driver", r.driver)
            _pool_name(errs, f"{p}.pool", r.pool)
            _dns_label(errs, f"{p}.device", r.device)
            _binding_parameters(errs, p, r.binding_conditions, r.binding_failure_conditions)
            for j, t in enumerate(r.tolerations):
                _toleration(errs, f"{p}.tolerations[{j}]", t)
            if r.share_id is not None:
                _uid(errs, f"{p}.shareID", r.share_id)
            allocated.add((r.driver or "", r.pool or "", r.device or "", r.share_id))
        for i, c in enumerate(alloc.devices.config):
            p = f"{base}.config[{i}]"
            if not c.source:
                errs.append(_required(f"{p}.source"))
            elif c.source not in ALLOCATION_CONFIG_SOURCES:
                errs.append(_not_supported(f"{p}.source", c.source, ["FromClaim", "FromClass"]))
            _set(errs, f"{p}.requests", c.requests, DEVICE_REQUESTS_MAX, lambda s: s, _request_ref(names))
            _opaque(errs, p, c.opaque)
        if alloc.node_selector is not None:
            _node_selector(errs, "status.allocation.nodeSelector", alloc.node_selector)
    for i, d in enumerate(status.devices):
        p = f"status.devices[{i}]"
        _driver_name(errs, f"{p}.driver", d.driver)
        _pool_name(errs, f"{p}.pool", d.pool)
        _dns_label(errs, f"{p}.device", d.device)
        if d.share_id is not None:
            _uid(errs, f"{p}.shareID", d.share_id)
        if (d.driver or "", d.pool or "", d.device or "", d.share_id) not in allocated:
            ident = f"{d.driver or ''}/{d.pool or ''}/{d.device or ''}" + (f"/{d.share_id}" if d.share_id else "")
            errs.append(_invalid(p, ident, "must be an allocated device in the claim"))


def _uid(errs: Errs, path: str, uid: str) -> None:
    if not _UUID_RE.match(uid):
        errs.append(_invalid(path, uid, f"error validating uid: invalid UUID length: {len(uid)}"
                             if len(uid) != 36 else "error validating uid: invalid UUID format"))
    elif uid != uid.lower():
        errs.append(_invalid(path, uid, "uid must be in RFC 4122 normalized form, "
                                        "`xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` with lowercase hexadecimal characters"))


def _metadata_name(errs: Errs, obj: KubeObject) -> None:
    name = obj.metadata.name
    if not name and not obj.metadata.generate_name:
        errs.append(_required("metadata.name", "name or generateName is required"))
    elif name:
        for msg in dns1123_subdomain_errors(name):
            errs.append(_invalid("metadata.name", name, msg))


def validate_device_class(dc: DeviceClass) -> Errs:
    """``ValidateDeviceClass``: selectors compile, config is opaque JSON, extendedResourceName is valid.

    >>> validate_device_class(DeviceClass.model_validate({"metadata": {"name": "gpu"},
    ...     "spec": {"extendedResourceName": "gpu"}}))
    [('spec.extendedResourceName', 'Invalid value: "gpu": must be a valid extended resource name')]
    """
    errs: Errs = []
    _metadata_name(errs, dc)
    _selectors(errs, "spec.selectors", dc.spec.selectors)
    _slice(errs, "spec.config", dc.spec.config, DEVICE_CONFIG_MAX, lambda e, p, c: _opaque(e, p, c.opaque))
    name = dc.spec.extended_resource_name
    if name is not None and not is_extended_resource_name(name):
        errs.append(_invalid("spec.extendedResourceName", name, "must be a valid extended resource name"))
    return errs


def validate_resource_claim(claim: ResourceClaim) -> Errs:
    """``ValidateResourceClaim`` (spec) and the status rules of a status update."""
    errs: Errs = []
    _metadata_name(errs, claim)
    _device_claim(errs, "spec.devices", claim.spec.devices)
    _claim_status(errs, claim.status, _RequestNames(claim.spec.devices))
    return errs


def validate_resource_claim_template(t: ResourceClaimTemplate) -> Errs:
    """``ValidateResourceClaimTemplate``: the claim spec sits at ``spec.spec``.

    >>> t = ResourceClaimTemplate.model_validate({"metadata": {"name": "t"},
    ...     "spec": {"spec": {"devices": {"requests": [{"name": "r"}]}}}})
    >>> validate_resource_claim_template(t)
    [('spec.spec.devices.requests[0]', 'Required value: exactly one of `exactly` or `firstAvailable` is required')]
    """
    errs: Errs = []
    _metadata_name(errs, t)
    _device_claim(errs, "spec.spec.devices", t.spec.spec.devices)
    return errs


# ----------------------------------------------------------------- slices


def _node_selector(errs: Errs, path: str, ns: NodeSelector) -> None:
    if not ns.node_selector_terms:
        errs.append(_required(f"{path}.nodeSelectorTerms", "must have at least one node selector term"))
    for i, term in enumerate(ns.node_selector_terms):
        for field, reqs in (("matchExpressions", term.match_expressions), ("matchFields", term.match_fields)):
            for j, r in enumerate(reqs):
                p = f"{path}.nodeSelectorTerms[{i}].{field}[{j}]"
                op = r.operator
                if op in ("In", "NotIn") and not r.values:
                    errs.append(_required(f"{p}.values", "must be specified when `operator` is 'In' or 'NotIn'"))
                elif op in ("Exists", "DoesNotExist") and r.values:
                    errs.append(_forbidden(f"{p}.values",
                                           "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
                elif op in ("Gt", "Lt") and len(r.values) != 1:
                    errs.append(_required(f"{p}.values",
                                          "must be specified single value when `operator` is 'Lt' or 'Gt'"))
                if op is None:
                    errs.append(_required(f"{p}.operator"))
                if field == "matchExpressions":
                    _label_name(errs, f"{p}.key", r.key)


def _binding_parameters(errs: Errs, path: str, conditions: list[str], failures: list[str]) -> None:
    for field, items in (("bindingConditions", conditions), ("bindingFailureConditions", failures)):
        if len(items) > BINDING_CONDITIONS_MAX:
            errs.append(_too_many(f"{path}.{field}", len(items), BINDING_CONDITIONS_MAX))
        else:
            for i, c in enumerate(items):
                _label_name(errs, f"{path}.{field}[{i}]", c)
    seen: set[str] = set()
    for i, c in enumerate(conditions):
        if c in seen:
            errs.append(_duplicate(f"{path}.bindingConditions[{i}]", c))
        seen.add(c)
    seen_f: set[str] = set()
    for i, c in enumerate(failures):
        if c in seen_f:
            errs.append(_duplicate(f"{path}.bindingFailureConditions[{i}]", c))
        seen_f.add(c)
        if c in conditions:
            errs.append(_invalid(f"{path}.bindingFailureConditions[{i}]", c,
                                 "bindingFailureConditions must not overlap with bindingConditions"))
    if not conditions and failures:
        errs.append(_invalid(f"{path}.bindingConditions", [], "bindingConditions are required to use "
                                                              "bindingFailureConditions"))
    if not failures and conditions:
        errs.append(_invalid(f"{path}.bindingFailureConditions", [], "bindingFailureConditions are required to "
                                                                     "use bindingConditions"))


def _attribute(errs: Errs, path: str, a: DeviceAttribute) -> None:
    if a.string is not None and len(a.string) > ATTRIBUTE_VALUE_MAX_LENGTH:
        errs.append(_too_long(f"{path}.string", ATTRIBUTE_VALUE_MAX_LENGTH))
    if a.version is not None:
        _version(errs, f"{path}.version", a.version)
    for i, v in enumerate(a.strings or ()):
        if len(v) > ATTRIBUTE_VALUE_MAX_LENGTH:
            errs.append(_too_long(f"{path}.strings[{i}]", ATTRIBUTE_VALUE_MAX_LENGTH))
    for i, v in enumerate(a.versions or ()):
        _version(errs, f"{path}.versions[{i}]", v)
    # an empty list is not stored (protobuf keeps no empty repeated field), so it sets nothing
    n = sum(1 for f in a.set_fields() if f not in LIST_ATTRIBUTE_FIELDS or getattr(a, f))
    if n == 0:
        errs.append(_invalid(path, "", "exactly one value must be specified"))
    elif n > 1:
        errs.append(_invalid(path, a.model_dump(by_alias=True, exclude_none=True), "exactly one value must be specified"))


def _version(errs: Errs, path: str, version: str) -> None:
    if not _SEMVER_RE.match(version):
        errs.append(_invalid(path, version, "must be a string compatible with semver.org spec 2.0.0"))
    if len(version) > ATTRIBUTE_VALUE_MAX_LENGTH:
        errs.append(_too_long(path, ATTRIBUTE_VALUE_MAX_LENGTH))


def _request_policy(errs: Errs, path: str, capacity: Quantity, policy: CapacityRequestPolicy) -> None:
    if policy.valid_values and policy.valid_range is not None:
        errs.append(_forbidden(path, 'exactly one policy can be specified, cannot specify "validValues" and '
                                     '"validRange" at the same time'))
        return
    default = policy.default
    if policy.valid_values:
        if default is None:
            errs.append(_required(f"{path}.default", "required when validValues is defined"))
            return
        vp = f"{path}.validValues"
        vals = policy.valid_values
        for i in range(len(vals) - 1):
            if vals[i] > vals[i + 1]:
                errs.append(_invalid(f"{vp}[{i + 1}]", str(vals[i + 1]), "values must be sorted in ascending order"))
        seen: set[int] = set()
        for i, v in enumerate(vals):
            if v > capacity:
                errs.append(_invalid(f"{vp}[{i}]", str(v), f"option is larger than capacity value: {capacity}"))
            if v.value() in seen:
                errs.append(_duplicate(f"{vp}[{i}]", str(v.value())))
            seen.add(v.value())
        if not any(v == default for v in vals):
            errs.append(_invalid(vp, str(default), "default value is not valid according to the requestPolicy"))
    elif policy.valid_range is not None:
        if default is None:
            errs.append(_required(f"{path}.default", "required when validRange is defined"))
            return
        rp = f"{path}.validRange"
        rng = policy.valid_range
        if rng.min is None:
            errs.append(_required(f"{rp}.min", "required when validRange is defined"))
            return
        if rng.min > capacity:
            errs.append(_invalid(f"{rp}.min", str(rng.min), f"min is larger than capacity value: {capacity}"))
        if default < rng.min:
            errs.append(_invalid(f"{rp}.default", str(default), f"default is less than min: {rng.min}"))
        if rng.max is not None:
            if rng.min > rng.max:
                errs.append(_invalid(f"{rp}.max", str(rng.min), f"min is larger than max: {rng.max}"))
            if rng.max > capacity:
                errs.append(_invalid(f"{rp}.max", str(rng.max), f"max is larger than capacity value: {capacity}"))
            if default > rng.max:
                errs.append(_invalid(f"{rp}.default", str(default), f"default is more than max: {rng.max}"))
        if rng.step is not None:
            if rng.step.sign() <= 0:
                errs.append(_invalid(f"{rp}.step", str(rng.step), "must be greater than zero"))
            else:
                added = rng.min + rng.step
                if added > capacity:
                    errs.append(_invalid(f"{rp}.step", str(rng.step),
                                         f"one step {added} is larger than capacity value: {capacity}"))
                for value in ([default] + ([rng.max] if rng.max is not None else [])):
                    if (value.value() - rng.min.value()) % rng.step.value() != 0:
                        errs.append(_invalid(f"{rp}.step", str(value), f"value is not a multiple of a given step "
                                                                       f"({rng.step}) from ({rng.min})"))


def _taint(errs: Errs, path: str, t: DeviceTaint) -> None:
    _label_name(errs, f"{path}.key", t.key)
    if t.value:
        for msg in label_value_errors(t.value):
            errs.append(_invalid(f"{path}.value", t.value, msg))
    if not t.effect:
        errs.append(_required(f"{path}.effect"))
    elif t.effect not in DEVICE_TAINT_EFFECTS:
        errs.append(_not_supported(f"{path}.effect", t.effect, sorted(DEVICE_TAINT_EFFECTS)))


def _device(errs: Errs, path: str, d: Device, per_device: bool) -> None:
    _dns_label(errs, f"{path}.name", d.name)
    n = len(d.attributes) + len(d.capacity)
    if n > MAX_ATTRIBUTES_AND_CAPACITIES:
        errs.append(_invalid(path, n, "the total number of attributes and capacities must not exceed "
                                      f"{MAX_ATTRIBUTES_AND_CAPACITIES}"))
    for name, a in d.attributes.items():
        _qualified_name(errs, f"{path}.attributes", name)
        _attribute(errs, _key(f"{path}.attributes", name), a)
    multi = bool(d.allow_multiple_allocations)
    for name, c in d.capacity.items():
        _qualified_name(errs, f"{path}.capacity", name)
        cp = _key(f"{path}.capacity", name)
        if c.request_policy is not None:
            if multi:
                _request_policy(errs, f"{cp}.requestPolicy", c.value or Quantity(0), c.request_policy)
            else:
                errs.append(_forbidden(f"{cp}.requestPolicy", "allowMultipleAllocations must be true"))
    for i, t in enumerate(d.taints):
        _taint(errs, f"{path}.taints[{i}]", t)

    def consumption(e: Errs, p: str, c: Any) -> None:
        if not c.counter_set:
            e.append(_required(f"{p}.counterSet"))
        else:
            _dns_label(e, f"{p}.counterSet", c.counter_set)
        if not c.counters:
            e.append(_required(f"{p}.counters"))
    _set(errs, f"{path}.consumesCounters", d.consumes_counters, -1, lambda c: c.counter_set or "", consumption)
    if per_device:
        fields = []
        if d.node_name is not None:
            if d.node_name:
                fields.append("`nodeName`")
                _dns_subdomain(errs, f"{path}.nodeName", d.node_name)
            else:
                errs.append(_invalid(f"{path}.nodeName", "", "must not be empty"))
        if d.node_selector is not None:
            fields.append("`nodeSelector`")
            _node_selector(errs, f"{path}.nodeSelector", d.node_selector)
        if d.all_nodes is not None:
            if d.all_nodes:
                fields.append("`allNodes`")
            else:
                errs.append(_invalid(f"{path}.allNodes", False, "must be either unset or set to true"))
        msg = ("exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when "
               "`perDeviceNodeSelection` is set to true in the ResourceSlice spec")
        if not fields:
            errs.append(_required(path, msg))
        elif len(fields) > 1:
            errs.append(_invalid(path, "{" + ", ".join(fields) + "}", msg))
    elif d.node_name is not None or d.node_selector is not None or d.all_nodes is not None:
        errs.append(_invalid(path, None, "`nodeName`, `nodeSelector` and `allNodes` can only be set if "
                                         "`perDeviceNodeSelection` is set to true in the ResourceSlice spec"))
    _binding_parameters(errs, path, d.binding_conditions, d.binding_failure_conditions)


def validate_resource_slice(s: ResourceSlice) -> Errs:
    """``ValidateResourceSlice``.

    >>> s = ResourceSlice.model_validate({"metadata": {"name": "s"}, "spec": {"driver": "d.example.com",
    ...     "pool": {"name": "p", "resourceSliceCount": 1}, "nodeName": "n1", "allNodes": True}})
    >>> validate_resource_slice(s)
    [('spec', 'Invalid value: "{`nodeName`, `allNodes`}": exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required, but multiple fields are set')]
    """
    errs: Errs = []
    _metadata_name(errs, s)
    spec = s.spec
    _driver_name(errs, "spec.driver", spec.driver)
    _pool_name(errs, "spec.pool.name", spec.pool.name)
    if (spec.pool.resource_slice_count or 0) <= 0:
        errs.append(_invalid("spec.pool.resourceSliceCount", spec.pool.resource_slice_count or 0,
                             "must be greater than zero"))
    if (spec.pool.generation or 0) < 0:
        errs.append(_invalid("spec.pool.generation", spec.pool.generation, "must be greater than or equal to zero"))
    fields = []
    if spec.node_name is not None:
        if spec.node_name:
            fields.append("`nodeName`")
            _dns_subdomain(errs, "spec.nodeName", spec.node_name)
        else:
            errs.append(_invalid("spec.nodeName", "", "must be either unset or set to a non-empty string"))
    if spec.node_selector is not None:
        fields.append("`nodeSelector`")
        _node_selector(errs, "spec.nodeSelector", spec.node_selector)
        if len(spec.node_selector.node_selector_terms) != 1:
            terms = [t.model_dump(by_alias=True, exclude_defaults=True) for t in spec.node_selector.node_selector_terms]
            errs.append(_invalid("spec.nodeSelector.nodeSelectorTerms", terms,
                                 "must have exactly one node selector term"))
    for attr, field in (("all_nodes", "allNodes"), ("per_device_node_selection", "perDeviceNodeSelection")):
        v = getattr(spec, attr)
        if v is not None:
            if v:
                fields.append(f"`{field}`")
            else:
                errs.append(_invalid(f"spec.{field}", False, "must be either unset or set to true"))
    one_of = "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"
    if not fields:
        errs.append(_required("spec", one_of))
    elif len(fields) > 1:
        errs.append(_invalid("spec", "{" + ", ".join(fields) + "}", one_of + ", but multiple fields are set"))
    if "shared_counters" in spec.model_fields_set and "devices" in spec.model_fields_set:
        errs.append(_invalid("spec", "", "only one of `sharedCounters` or `devices` is allowed"))
    advanced = any(d.taints or d.consumes_counters for d in spec.devices)
    limit = RESOURCE_SLICE_MAX_DEVICES_ADVANCED if advanced else RESOURCE_SLICE_MAX_DEVICES
    per_device = bool(spec.per_device_node_selection)
    _set(errs, "spec.devices", spec.devices, limit, lambda d: d.name or "",
         lambda e, p, d: _device(e, p, d, per_device))

    def counter_set(e: Errs, p: str, cs: Any) -> None:
        if not cs.name:
            e.append(_required(f"{p}.name"))
        else:
            _dns_label(e, f"{p}.name", cs.name)
        if not cs.counters:
            e.append(_required(f"{p}.counters"))
        for k in cs.counters:
            _dns_label(e, f"{p}.counters", k)
    _set(errs, "spec.sharedCounters", spec.shared_counters, -1, lambda c: c.name or "", counter_set)
    return errs


def validate_device_taint_rule(r: DeviceTaintRule) -> Errs:
    """``ValidateDeviceTaintRule``.

    >>> validate_device_taint_rule(DeviceTaintRule.model_validate({"metadata": {"name": "r"},
    ...     "spec": {"taint": {"key": "k"}}}))
    [('spec.taint.effect', 'Required value')]
    """
    errs: Errs = []
    _metadata_name(errs, r)
    sel = r.spec.device_selector
    if sel is not None:
        if sel.driver is not None:
            _driver_name(errs, "spec.deviceSelector.driver", sel.driver)
        if sel.pool is not None:
            _pool_name(errs, "spec.deviceSelector.pool", sel.pool)
        if sel.device is not None:
            _dns_label(errs, "spec.deviceSelector.device", sel.device)
    _taint(errs, "spec.taint", r.spec.taint)
    return errs


# -------------------------------------------------------------------- pods


def validate_pod_resource_claims(pod: Pod) -> Errs:
    """The DRA part of pod validation: ``spec.resourceClaims`` and every container's
    ``resources.claims``.

    >>> p = Pod.model_validate({"metadata": {"name": "p"}, "spec": {"containers": [
    ...     {"name": "c", "resources": {"claims": [{"name": "gpu"}]}}]}})
    >>> validate_pod_resource_claims(p)
    [('spec.containers[0].resources.claims[0]', 'Not found: "gpu": must be one of the names in pod.spec.resourceClaims which is empty')]
    """
    errs: Errs = []
    names: set[str] = set()
    for i, c in enumerate(pod.spec.resource_claims):
        p = f"spec.resourceClaims[{i}]"
        if not c.name:
            errs.append(_required(f"{p}.name"))
        elif c.name in names:
            errs.append(_duplicate(f"{p}.name", c.name))
        else:
            label_errs: Errs = []
            _dns_label(label_errs, f"{p}.name", c.name)
            errs.extend(label_errs)
            if not label_errs and c.resource_claim_template_name is not None and pod.metadata.name:
                final = f"{pod.metadata.name}-{c.name}"
                for msg in dns1123_subdomain_errors(final):
                    errs.append(_invalid(f"{p}.name", final, "final ResourceClaim name: " + msg))
            names.add(c.name)
        value = c.model_dump(by_alias=True, exclude_none=True)
        if c.resource_claim_name is not None and c.resource_claim_template_name is not None:
            errs.append(_invalid(p, value, "at most one of `resourceClaimName` or `resourceClaimTemplateName` "
                                           "may be specified"))
        if c.resource_claim_name is None and c.resource_claim_template_name is None:
            errs.append(_invalid(p, value, "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`"))
        for attr, field in (("resource_claim_name", "resourceClaimName"),
                            ("resource_claim_template_name", "resourceClaimTemplateName")):
            v = getattr(c, attr)
            if v is not None:
                for msg in dns1123_subdomain_errors(v):
                    errs.append(_invalid(f"{p}.{field}", v, msg))
    groups = (("containers", pod.spec.containers), ("initContainers", pod.spec.init_containers))
    for group, containers in groups:
        for i, ctr in enumerate(containers):
            _container_claims(errs, f"spec.{group}[{i}].resources.claims", ctr.resources.claims, names)
    if pod.spec.resources is not None and pod.spec.resources.claims:
        _container_claims(errs, "spec.resources.claims", pod.spec.resources.claims, names)
    return errs


def _container_claims(errs: Errs, path: str, claims: list, pod_names: set[str]) -> None:
    seen: set[str] = set()
    for i, c in enumerate(claims):
        p = f"{path}[{i}]"
        if not c.name:
            errs.append(_required(p))
            continue
        key = c.name + (f"/{c.request}" if c.request else "")
        if key in seen:
            errs.append(_duplicate(p, key))
        seen.add(key)
        if c.name not in pod_names:
            detail = "must be one of the names in pod.spec.resourceClaims"
            detail += " which is empty" if not pod_names else ": " + ", ".join(sorted(pod_names))
            errs.append((p, f"Not found: {_q(c.name)}: {detail}"))
        if c.request:
            for msg in dns1123_label_errors(c.request):
                errs.append(_invalid(f"{p}.request", c.request, "must be a DNS label: " + msg))


# --------------------------------------------------------------- admission


def default_resource_object(obj: Any) -> None:
    """API defaulting in place: ``allocationMode: ExactCount`` with ``count: 1``, toleration
    operator ``Equal`` (claims and templates); other kinds are left alone.

    >>> c = ResourceClaim.model_validate({"spec": {"devices": {"requests": [{"name": "r",
    ...     "firstAvailable": [{"name": "a", "deviceClassName": "x", "tolerations": [{"key": "k"}]}]}]}}})
    >>> default_resource_object(c); s = c.spec.devices.requests[0].first_available[0]
    >>> s.allocation_mode, s.count, s.tolerations[0].operator
    ('ExactCount', 1, 'Equal')
    """
    if isinstance(obj, ResourceClaim):
        devices = obj.spec.devices
    elif isinstance(obj, ResourceClaimTemplate):
        devices = obj.spec.spec.devices
    else:
        return
    for r in devices.requests:
        for target in ([r.exactly] if r.exactly is not None else []) + list(r.first_available):
            if not target.allocation_mode:
                target.allocation_mode = "ExactCount"
                target.mark_set("allocation_mode")
            if target.allocation_mode == "ExactCount" and not target.count:
                target.count = 1
                target.mark_set("count")
            for t in target.tolerations:
                if not t.operator:
                    t.operator = "Equal"
                    t.mark_set("operator")
            r.mark_set("exactly" if target is r.exactly else "first_available")
    devices.mark_set("requests")


_ADMIN_MSG = ("admin access to devices requires the `resource.kubernetes.io/admin-access: true` label on the "
              "containing namespace")


def admin_access_errors(obj: ResourceClaim | ResourceClaimTemplate,
                        namespace_labels: Mapping[str, str] | None) -> Errs:
    """``AuthorizedForAdmin``: ``adminAccess: true`` only in a namespace labelled
    ``resource.kubernetes.io/admin-access: "true"``; the first such request is reported.

    >>> c = ResourceClaim.model_validate({"metadata": {"name": "c"}, "spec": {"devices": {"requests": [
    ...     {"name": "r", "exactly": {"deviceClassName": "x", "adminAccess": True}}]}}})
    >>> admin_access_errors(c, {})[0][0], admin_access_errors(c, {"resource.kubernetes.io/admin-access": "true"})
    ('spec.devices.requests[0].exactly.adminAccess', [])
    """
    base = "spec.devices" if isinstance(obj, ResourceClaim) else "spec.spec.devices"
    devices = obj.spec.devices if isinstance(obj, ResourceClaim) else obj.spec.spec.devices
    if (namespace_labels or {}).get(ADMIN_ACCESS_NAMESPACE_LABEL) == "true":
        return []
    for i, r in enumerate(devices.requests):
        if r.exactly is not None and r.exactly.admin_access:
            return [_forbidden(f"{base}.requests[{i}].exactly.adminAccess", _ADMIN_MSG)]
    return []


_VALIDATORS: dict[type, Callable[[Any], Errs]] = {
    DeviceClass: validate_device_class,
    ResourceClaim: validate_resource_claim,
    ResourceClaimTemplate: validate_resource_claim_template,
    ResourceSlice: validate_resource_slice,
    DeviceTaintRule: validate_device_taint_rule,
    DeviceTaintRuleV1beta2: validate_device_taint_rule,
}


def admit_resource_objects(objs: list, namespaces: Mapping[str, Mapping[str, str]], *,
                           list_types: bool = False) -> list[ManifestError]:
    """Admit the ``resource.k8s.io`` objects among ``objs`` in place (defaults, admin access,
    validation); ``namespaces`` maps a namespace name to its labels (a namespace not given has
    none). Returns the errors, each naming file, object and field path.

    ``list_types`` is the ``DRAListTypeAttributes`` gate: off, a ResourceSlice's list-typed
    attribute values are dropped on create, as the API server drops a disabled field (the
    attribute is then left without a value); on, they stay and selectors may call ``includes()``.

    >>> s = ResourceSlice.model_validate({"metadata": {"name": "s"}, "spec": {"driver": "d.example.com",
    ...     "nodeName": "n", "pool": {"name": "p", "resourceSliceCount": 1},
    ...     "devices": [{"name": "d0", "attributes": {"numa": {"ints": [0, 1]}}}]}})
    >>> [(e.path, e.message) for e in admit_resource_objects([s.model_copy(deep=True)], {})]
    [('spec.devices[0].attributes[numa]', 'Invalid value: "": exactly one value must be specified')]
    >>> admit_resource_objects([s], {}, list_types=True)
    []
    """
    errors: list[ManifestError] = []
    token = _LIST_TYPES.set(list_types)
    try:
        for o in objs:
            check = _VALIDATORS.get(type(o))
            if check is None:
                continue
            default_resource_object(o)
            if isinstance(o, ResourceSlice) and not list_types:
                _drop_list_attributes(o)
            errs = check(o)
            if isinstance(o, (ResourceClaim, ResourceClaimTemplate)):
                errs += admin_access_errors(o, namespaces.get(o.namespace))
            errors.extend(ManifestError(msg, file=o.source_file, obj=o.describe(), path=path) for path, msg in errs)
    finally:
        _LIST_TYPES.reset(token)
    return errors


def _drop_list_attributes(s: ResourceSlice) -> None:
    for d in s.spec.devices:
        for a in d.attributes.values():
            for name in LIST_ATTRIBUTE_FIELDS:
                setattr(a, name, None)


#: ``DRAListTypeAttributes`` while :func:`admit_resource_objects` validates (selectors compile with it)
_LIST_TYPES: contextvars.ContextVar[bool] = contextvars.ContextVar("list_types", default=False)
