"""ResourceSlices, devices and claim requests read once into compact records.

The allocator works on Kubernetes-shaped ``resource.k8s.io/v1`` objects given as
dicts (camelCase keys, as in YAML) or as pydantic models (dumped by alias). This
module reads them once: quantities are parsed, pointers become ``None``-or-value,
and a device knows its ``(driver, pool, name)`` id. Bad quantities raise
:class:`~kschedlab.api.errors.ManifestError` naming the object and field path.

>>> s = read_slice({"metadata": {"name": "s1"}, "spec": {"driver": "gpu.example.com",
...     "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 1},
...     "nodeName": "node-1", "devices": [{"name": "gpu-0",
...     "capacity": {"memory": {"value": "80Gi"}}}]}})
>>> s.devices[0].id, s.devices[0].capacity["memory"].value
(('gpu.example.com', 'node-1', 'gpu-0'), Quantity('80Gi'))
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from kschedlab.api.errors import ManifestError
from kschedlab.api.quantity import Quantity

__all__ = [
    "DeviceID", "as_dict", "read_slice", "read_claim", "Slice", "Device", "DeviceCapacity",
    "RequestPolicy", "Request", "Claim", "Constraint", "device_id_str", "parse_quantity_at", "tolerates",
]

#: ``(driver, pool, device)``, upstream ``DeviceID``
DeviceID = tuple[str, str, str]


def device_id_str(device_id: DeviceID) -> str:
    """Upstream's ``DeviceID.String()``: ``driver/pool/device``.

    >>> device_id_str(("driver-a", "pool-1", "device-1"))
    'driver-a/pool-1/device-1'
    """
    return "/".join(device_id)


def as_dict(obj: Any) -> dict:
    """A Kubernetes object as a plain dict (pydantic models dumped by alias, ``None`` dropped).

    >>> as_dict({"a": 1})
    {'a': 1}
    """
    if obj is None:
        return {}
    if type(obj) is dict:  # the common case, without the slower ABC check
        return obj
    if isinstance(obj, Mapping):
        return obj  # type: ignore[return-value]
    dump = getattr(obj, "model_dump", None)
    if dump is not None:
        return dump(by_alias=True, exclude_none=True, mode="json")
    raise TypeError(f"expected a mapping or a pydantic model, got {type(obj).__name__}")


def parse_quantity_at(value: Any, obj: str, path: str) -> Quantity:
    """Parse a quantity; a bad one raises ManifestError with ``obj`` and ``path``.

    >>> parse_quantity_at("1Gi", "ResourceSlice s", "spec.x")
    Quantity('1Gi')
    >>> parse_quantity_at("1.2.3", "ResourceSlice s", "spec.x")
    Traceback (most recent call last):
    ...
    kschedlab.api.errors.ManifestError: ResourceSlice s: spec.x: invalid quantity "1.2.3"
    """
    if isinstance(value, Quantity):
        return value
    try:
        return Quantity.parse(value)
    except (ValueError, TypeError):
        raise ManifestError(f'invalid quantity "{value}"', obj=obj, path=path) from None


@dataclass(frozen=True)
class RequestPolicy:
    """``CapacityRequestPolicy``: default, validValues or validRange (min, max, step)."""

    default: Quantity | None = None
    valid_values: tuple[Quantity, ...] | None = None
    min: Quantity | None = None
    max: Quantity | None = None
    step: Quantity | None = None
    has_range: bool = False


@dataclass(frozen=True)
class DeviceCapacity:
    """One entry of a device's ``capacity``: its value and optional request policy."""

    value: Quantity
    policy: RequestPolicy | None = None


@dataclass(eq=False)
class Device:
    """One device of a slice, read once (``id`` is ``(driver, pool, name)``)."""

    name: str
    id: DeviceID
    raw: dict
    attributes: dict
    capacity: dict[str, DeviceCapacity]
    consumes_counters: list[tuple[str, dict[str, int]]]
    taints: list[dict]
    binding_conditions: list[str] | None
    binding_failure_conditions: list[str] | None
    binds_to_node: bool
    allow_multiple_allocations: bool | None
    node_name: str
    all_nodes: bool
    node_selector: dict | None
    #: whether any capacity has a request policy
    capacity_policies: bool = False
    #: cached ``DeviceView`` for CEL
    view: Any = None
    #: (CEL engine, selector expressions) -> whether all matched; kept while the device is (the
    #: device is read again when its slice changes), so a selector is evaluated once per device
    selector_matches: dict | None = None


@dataclass(eq=False)
class Slice:
    """A ResourceSlice, read once."""

    name: str
    driver: str
    pool: str
    generation: int
    slice_count: int
    node_name: str
    all_nodes: bool
    node_selector: dict | None
    per_device_node_selection: bool | None
    shared_counters: list[tuple[str, dict[str, int]]]
    devices: list[Device]
    raw: dict

    @property
    def pool_id(self) -> tuple[str, str]:
        """``(driver, pool)``."""
        return (self.driver, self.pool)


def _policy(raw: dict | None, obj: str, path: str) -> RequestPolicy | None:
    if raw is None:
        return None
    default = raw.get("default")
    values = raw.get("validValues")
    rng = raw.get("validRange")
    return RequestPolicy(
        default=parse_quantity_at(default, obj, f"{path}.default") if default is not None else None,
        valid_values=(tuple(parse_quantity_at(v, obj, f"{path}.validValues[{i}]") for i, v in enumerate(values))
                      if values is not None else None),
        min=(parse_quantity_at(rng["min"], obj, f"{path}.validRange.min")
             if rng is not None and rng.get("min") is not None else None),
        max=(parse_quantity_at(rng["max"], obj, f"{path}.validRange.max")
             if rng is not None and rng.get("max") is not None else None),
        step=(parse_quantity_at(rng["step"], obj, f"{path}.validRange.step")
              if rng is not None and rng.get("step") is not None else None),
        has_range=rng is not None,
    )


def _counters(raw: dict | None, obj: str, path: str) -> dict[str, int]:
    return {name: parse_quantity_at((c or {}).get("value", 0), obj, f"{path}.{name}.value").nanos
            for name, c in (raw or {}).items()}


def read_slice(raw_slice: Any) -> Slice:
    """Read one ResourceSlice (dict or model) into a :class:`Slice`."""
    raw = as_dict(raw_slice)
    meta = raw.get("metadata") or {}
    spec = raw.get("spec") or {}
    name = meta.get("name", "")
    obj = f"ResourceSlice {name}"
    driver = spec.get("driver", "")
    pool = spec.get("pool") or {}
    pool_name = pool.get("name", "")
    devices = []
    for i, d in enumerate(spec.get("devices") or []):
        path = f"spec.devices[{i}]"
        capacity = {
            cname: DeviceCapacity(
                value=parse_quantity_at((c or {}).get("value", 0), obj, f"{path}.capacity.{cname}.value"),
                policy=_policy((c or {}).get("requestPolicy"), obj, f"{path}.capacity.{cname}.requestPolicy"),
            )
            for cname, c in (d.get("capacity") or {}).items()
        }
        consumes = [
            (cc.get("counterSet", ""), _counters(cc.get("counters"), obj, f"{path}.consumesCounters[{j}].counters"))
            for j, cc in enumerate(d.get("consumesCounters") or [])
        ]
        devices.append(Device(
            name=d.get("name", ""),
            id=(driver, pool_name, d.get("name", "")),
            raw=d,
            attributes=d.get("attributes") or {},
            capacity=capacity,
            consumes_counters=consumes,
            taints=list(d.get("taints") or []),
            # an empty list is unset, as after an API round trip (omitempty)
            binding_conditions=d.get("bindingConditions") or None,
            binding_failure_conditions=d.get("bindingFailureConditions") or None,
            binds_to_node=bool(d.get("bindsToNode")),
            allow_multiple_allocations=d.get("allowMultipleAllocations"),
            node_name=d.get("nodeName") or "",
            all_nodes=bool(d.get("allNodes")),
            node_selector=d.get("nodeSelector"),
            capacity_policies=any(c.policy is not None for c in capacity.values()),
        ))
    shared = [(cs.get("name", ""), _counters(cs.get("counters"), obj, f"spec.sharedCounters[{i}].counters"))
              for i, cs in enumerate(spec.get("sharedCounters") or [])]
    return Slice(
        name=name, driver=driver, pool=pool_name,
        generation=int(pool.get("generation") or 0),
        slice_count=int(pool.get("resourceSliceCount") or 0),
        node_name=spec.get("nodeName") or "",
        all_nodes=bool(spec.get("allNodes")),
        node_selector=spec.get("nodeSelector"),
        per_device_node_selection=spec.get("perDeviceNodeSelection"),
        shared_counters=shared, devices=devices, raw=raw,
    )


@dataclass(eq=False)
class Request:
    """A request (``exactly``) or one ``firstAvailable`` subrequest, as upstream's requestAccessor."""

    name: str
    class_name: str
    mode: str
    count: int
    admin_access: bool
    has_admin_access: bool
    selectors: list[dict]
    tolerations: list[dict] | None
    capacity_requests: dict[str, Quantity] | None
    has_capacity: bool
    #: the parent request's name for a subrequest, else ""
    parent: str = ""

    @property
    def full_name(self) -> str:
        """``req`` or ``req/sub``, as results name it."""
        return f"{self.parent}/{self.name}" if self.parent else self.name


@dataclass(eq=False)
class Constraint:
    """A claim constraint: ``matchAttribute`` or ``distinctAttribute`` (or neither: unsupported)."""

    requests: tuple[str, ...]
    match_attribute: str | None
    distinct_attribute: str | None


@dataclass(eq=False)
class Claim:
    """A ResourceClaim's ``spec.devices``: requests (each a list of alternatives), constraints, config."""

    name: str
    namespace: str
    #: per request: ``[exact]`` or the ``firstAvailable`` subrequests (``is_list`` True)
    requests: list[tuple[str, bool, list[Request]]]
    constraints: list[Constraint]
    config: list[dict]
    raw: dict

    @property
    def kobj(self) -> str:
        """``klog.KObj``: ``namespace/name`` or ``name``."""
        return f"{self.namespace}/{self.name}" if self.namespace else self.name


def _request(raw: dict, parent: str, obj: str, path: str) -> Request:
    cap = raw.get("capacity")
    reqs = None
    if cap is not None:
        reqs = {n: parse_quantity_at(q, obj, f"{path}.capacity.requests.{n}")
                for n, q in (cap.get("requests") or {}).items()}
    admin = raw.get("adminAccess")
    return Request(
        name=raw.get("name", ""),
        class_name=raw.get("deviceClassName", ""),
        mode=raw.get("allocationMode", ""),
        count=int(raw.get("count") or 0),
        admin_access=bool(admin) if not parent else False,
        has_admin_access=admin is not None and not parent,
        selectors=list(raw.get("selectors") or []),
        tolerations=raw.get("tolerations"),
        capacity_requests=reqs,
        has_capacity=cap is not None,
        parent=parent,
    )


def read_claim(raw_claim: Any) -> Claim:
    """Read one ResourceClaim (dict or model) into a :class:`Claim`.

    >>> c = read_claim({"metadata": {"name": "c"}, "spec": {"devices": {"requests": [
    ...     {"name": "gpu", "exactly": {"deviceClassName": "gpu", "allocationMode": "ExactCount",
    ...      "count": 2}}]}}})
    >>> [(n, r[0].class_name, r[0].count) for n, _, r in c.requests]
    [('gpu', 'gpu', 2)]
    """
    raw = as_dict(raw_claim)
    meta = raw.get("metadata") or {}
    devices = (raw.get("spec") or {}).get("devices") or {}
    obj = f"ResourceClaim {meta.get('name', '')}"
    requests = []
    for i, r in enumerate(devices.get("requests") or []):
        name = r.get("name", "")
        first = r.get("firstAvailable") or []
        if first:
            subs = [_request(s, name, obj, f"spec.devices.requests[{i}].firstAvailable[{j}]")
                    for j, s in enumerate(first)]
            requests.append((name, True, subs))
        else:
            exact = dict(r.get("exactly") or {})
            exact["name"] = name
            requests.append((name, False, [_request(exact, "", obj, f"spec.devices.requests[{i}].exactly")]))
    constraints = [Constraint(requests=tuple(c.get("requests") or ()),
                              match_attribute=c.get("matchAttribute") or None,
                              distinct_attribute=c.get("distinctAttribute") or None)
                   for c in devices.get("constraints") or []]
    return Claim(name=meta.get("name", ""), namespace=meta.get("namespace", "") or "",
                 requests=requests, constraints=constraints,
                 config=list(devices.get("config") or []), raw=raw)


def tolerates(toleration: dict, taint: dict) -> bool:
    """``resourceclaim.ToleratesTaint`` (key, operator Exists / Equal, effect).

    >>> tolerates({"key": "k", "operator": "Exists", "effect": "NoExecute"}, {"key": "k", "effect": "NoExecute"})
    True
    >>> tolerates({"key": "k", "value": "a"}, {"key": "k", "value": "b", "effect": "NoExecute"})
    False
    """
    if toleration.get("effect") and toleration.get("effect") != taint.get("effect"):
        return False
    if toleration.get("key") and toleration.get("key") != taint.get("key"):
        return False
    op = toleration.get("operator") or "Equal"
    if op == "Exists":
        return True
    return op == "Equal" and (toleration.get("value") or "") == (taint.get("value") or "")
