"""``resource.k8s.io`` kinds of Dynamic Resource Allocation (DRA).

``resource.k8s.io/v1``: :class:`DeviceClass`, :class:`ResourceClaim`,
:class:`ResourceClaimTemplate`, :class:`ResourceSlice`; ``resource.k8s.io/v1alpha3``:
:class:`DeviceTaintRule`. Field names follow the Go types (snake_case here, camelCase
in YAML); unknown fields are refused, as the API server's strict decoding does.

Defaults the API server applies on create (``allocationMode: ExactCount``, ``count: 1``,
toleration operator ``Equal``) are applied by admission
(:mod:`kschedlab.apiserver.resource_validation`); the helpers here read the effective
values whether or not a claim went through admission:

>>> claim = ResourceClaim.model_validate({
...     "metadata": {"name": "gpu", "namespace": "default"},
...     "spec": {"devices": {"requests": [{"name": "req-0", "exactly": {"deviceClassName": "gpu.example.com"}}]}},
... })
>>> req = claim.spec.devices.requests[0]
>>> req.exactly.device_class_name, req.exactly.effective_allocation_mode(), req.exactly.effective_count()
('gpu.example.com', 'ExactCount', 1)
>>> claim.is_allocated()
False

A device's attributes are typed; exactly one of ``int``, ``bool``, ``string`` and
``version`` is set:

>>> DeviceAttribute.model_validate({"version": "1.2.3"}).value()
'1.2.3'
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field

from ._base import K8sModel, Time
from .core import NodeSelector
from .meta import Condition, KubeObject, ObjectMeta
from .quantity import Quantity

__all__ = [
    "API_GROUP",
    "API_VERSION",
    "API_VERSION_V1ALPHA3",
    "ALLOCATION_MODES",
    "DEVICE_TAINT_EFFECTS",
    "DEVICE_TOLERATION_OPERATORS",
    "ALLOCATION_CONFIG_SOURCES",
    "ADMIN_ACCESS_NAMESPACE_LABEL",
    "DEVICE_CLASS_EXTENDED_RESOURCE_PREFIX",
    # selectors and config
    "CELDeviceSelector",
    "DeviceSelector",
    "OpaqueDeviceConfiguration",
    "DeviceClassConfiguration",
    "DeviceClassSpec",
    "DeviceClass",
    # claims
    "DeviceToleration",
    "CapacityRequirements",
    "ExactDeviceRequest",
    "DeviceSubRequest",
    "DeviceRequest",
    "DeviceConstraint",
    "DeviceClaimConfiguration",
    "DeviceClaim",
    "ResourceClaimSpec",
    "DeviceRequestAllocationResult",
    "DeviceAllocationConfiguration",
    "DeviceAllocationResult",
    "AllocationResult",
    "ResourceClaimConsumerReference",
    "Condition",
    "NetworkDeviceData",
    "AllocatedDeviceStatus",
    "ResourceClaimStatus",
    "ResourceClaim",
    "ResourceClaimTemplateSpec",
    "ResourceClaimTemplate",
    # slices
    "ResourcePool",
    "DeviceAttribute",
    "CapacityRequestPolicyRange",
    "CapacityRequestPolicy",
    "DeviceCapacity",
    "Counter",
    "CounterSet",
    "DeviceCounterConsumption",
    "DeviceTaint",
    "Device",
    "ResourceSliceSpec",
    "ResourceSlice",
    # taint rules
    "DeviceTaintSelector",
    "DeviceTaintRuleSpec",
    "DeviceTaintRuleStatus",
    "DeviceTaintRule",
    "DeviceTaintRuleV1beta2",
]

API_GROUP = "resource.k8s.io"
API_VERSION = "resource.k8s.io/v1"
API_VERSION_V1ALPHA3 = "resource.k8s.io/v1alpha3"
API_VERSION_V1BETA2 = "resource.k8s.io/v1beta2"

ALLOCATION_MODES = ("ExactCount", "All")
DEVICE_TAINT_EFFECTS = ("None", "NoSchedule", "NoExecute")
DEVICE_TOLERATION_OPERATORS = ("Exists", "Equal")
ALLOCATION_CONFIG_SOURCES = ("FromClass", "FromClaim")
ADMIN_ACCESS_NAMESPACE_LABEL = "resource.kubernetes.io/admin-access"
DEVICE_CLASS_EXTENDED_RESOURCE_PREFIX = "deviceclass.resource.kubernetes.io/"


# ------------------------------------------------------------ selectors, config


class CELDeviceSelector(K8sModel):
    """A CEL expression over one ``device`` (see :mod:`kschedlab.dra.cel`)."""

    expression: str | None = None


class DeviceSelector(K8sModel):
    """One selector; ``cel`` is the only kind there is."""

    cel: CELDeviceSelector | None = None


class OpaqueDeviceConfiguration(K8sModel):
    """Driver-specific parameters, passed to the driver unchanged."""

    driver: str | None = None
    parameters: Any = None


class DeviceClassConfiguration(K8sModel):
    """A configuration entry of a DeviceClass (``opaque`` is the only kind)."""

    opaque: OpaqueDeviceConfiguration | None = None


class DeviceClassSpec(K8sModel):
    """What devices a class selects, their config, and optionally an extended resource name."""

    selectors: list[DeviceSelector] = Field(default_factory=list)
    config: list[DeviceClassConfiguration] = Field(default_factory=list)
    extended_resource_name: str | None = None


class DeviceClass(KubeObject):
    """resource.k8s.io/v1 DeviceClass (cluster-scoped).

    >>> DeviceClass.model_validate({"metadata": {"name": "gpu.example.com"},
    ...     "spec": {"extendedResourceName": "example.com/gpu"}}).spec.extended_resource_name
    'example.com/gpu'
    """

    API_VERSION: ClassVar[str] = API_VERSION
    KIND: ClassVar[str] = "DeviceClass"
    NAMESPACED: ClassVar[bool] = False

    spec: DeviceClassSpec = Field(default_factory=DeviceClassSpec)


# ------------------------------------------------------------------- claims


class DeviceToleration(K8sModel):
    """A claim's toleration of device taints (operator ``Equal`` when empty)."""

    key: str | None = None
    operator: str | None = None
    value: str | None = None
    effect: str | None = None
    toleration_seconds: int | None = None


class CapacityRequirements(K8sModel):
    """How much of each consumable capacity a request takes from a shared device."""

    requests: dict[str, Quantity] = Field(default_factory=dict)


class RequestFields(K8sModel):
    """Fields shared by ``exactly`` and each ``firstAvailable`` subrequest."""

    device_class_name: str | None = None
    selectors: list[DeviceSelector] = Field(default_factory=list)
    allocation_mode: str | None = None
    count: int | None = None
    tolerations: list[DeviceToleration] = Field(default_factory=list)
    capacity: CapacityRequirements | None = None

    def effective_allocation_mode(self) -> str:
        """``allocationMode`` with the API default (ExactCount).

        >>> ExactDeviceRequest().effective_allocation_mode()
        'ExactCount'
        """
        return self.allocation_mode or "ExactCount"

    def effective_count(self) -> int:
        """``count`` with the API default (1 in ExactCount mode; 0 for All).

        >>> ExactDeviceRequest(count=3).effective_count(), ExactDeviceRequest(allocation_mode="All").effective_count()
        (3, 0)
        """
        if self.effective_allocation_mode() != "ExactCount":
            return self.count or 0
        return 1 if self.count is None else self.count


class ExactDeviceRequest(RequestFields):
    """``requests[].exactly``: one device class, selectors, a count or All."""

    admin_access: bool | None = None


class DeviceSubRequest(RequestFields):
    """One alternative of ``requests[].firstAvailable``; referenced as ``<request>/<subrequest>``."""

    name: str | None = None


class DeviceRequest(K8sModel):
    """A named request: exactly one of ``exactly`` and ``firstAvailable``."""

    name: str | None = None
    exactly: ExactDeviceRequest | None = None
    first_available: list[DeviceSubRequest] = Field(default_factory=list)


class DeviceConstraint(K8sModel):
    """``matchAttribute`` (same value) or ``distinctAttribute`` (all different) across requests."""

    requests: list[str] = Field(default_factory=list)
    match_attribute: str | None = None
    distinct_attribute: str | None = None


class DeviceClaimConfiguration(K8sModel):
    """Opaque configuration for some (or, with no ``requests``, all) requests of a claim."""

    requests: list[str] = Field(default_factory=list)
    opaque: OpaqueDeviceConfiguration | None = None


class DeviceClaim(K8sModel):
    """``spec.devices`` of a claim."""

    requests: list[DeviceRequest] = Field(default_factory=list)
    constraints: list[DeviceConstraint] = Field(default_factory=list)
    config: list[DeviceClaimConfiguration] = Field(default_factory=list)


class ResourceClaimSpec(K8sModel):
    """What a claim asks for."""

    devices: DeviceClaim = Field(default_factory=DeviceClaim)


class DeviceRequestAllocationResult(K8sModel):
    """One allocated device: which request, driver, pool and device."""

    request: str | None = None
    driver: str | None = None
    pool: str | None = None
    device: str | None = None
    admin_access: bool | None = None
    tolerations: list[DeviceToleration] = Field(default_factory=list)
    binding_conditions: list[str] = Field(default_factory=list)
    binding_failure_conditions: list[str] = Field(default_factory=list)
    share_id: str | None = Field(default=None, alias="shareID")
    consumed_capacity: dict[str, Quantity] = Field(default_factory=dict)


class DeviceAllocationConfiguration(K8sModel):
    """Configuration copied into the allocation, from the class or the claim."""

    source: str | None = None
    requests: list[str] = Field(default_factory=list)
    opaque: OpaqueDeviceConfiguration | None = None


class DeviceAllocationResult(K8sModel):
    """``status.allocation.devices``."""

    results: list[DeviceRequestAllocationResult] = Field(default_factory=list)
    config: list[DeviceAllocationConfiguration] = Field(default_factory=list)


class AllocationResult(K8sModel):
    """``status.allocation``: the devices and where they can be used."""

    devices: DeviceAllocationResult = Field(default_factory=DeviceAllocationResult)
    node_selector: NodeSelector | None = None
    allocation_timestamp: Time | None = None


class ResourceClaimConsumerReference(K8sModel):
    """An object (a pod, or a PodGroup) for which a claim is reserved."""

    api_group: str | None = None
    resource: str | None = None
    name: str | None = None
    uid: str | None = None


class NetworkDeviceData(K8sModel):
    """Network details a driver reports for an allocated device."""

    interface_name: str | None = None
    ips: list[str] = Field(default_factory=list)
    hardware_address: str | None = None


class AllocatedDeviceStatus(K8sModel):
    """``status.devices[]``: what a driver reports about an allocated device."""

    driver: str | None = None
    pool: str | None = None
    device: str | None = None
    share_id: str | None = Field(default=None, alias="shareID")
    conditions: list[Condition] = Field(default_factory=list)
    data: Any = None
    network_data: NetworkDeviceData | None = None


class ResourceClaimStatus(K8sModel):
    """Allocation, reservations and per-device status of a claim."""

    allocation: AllocationResult | None = None
    reserved_for: list[ResourceClaimConsumerReference] = Field(default_factory=list)
    devices: list[AllocatedDeviceStatus] = Field(default_factory=list)


class ResourceClaim(KubeObject):
    """resource.k8s.io/v1 ResourceClaim (namespaced)."""

    API_VERSION: ClassVar[str] = API_VERSION
    KIND: ClassVar[str] = "ResourceClaim"
    NAMESPACED: ClassVar[bool] = True

    spec: ResourceClaimSpec = Field(default_factory=ResourceClaimSpec)
    status: ResourceClaimStatus = Field(default_factory=ResourceClaimStatus)

    def is_allocated(self) -> bool:
        """Whether ``status.allocation`` is set.

        >>> ResourceClaim(status={"allocation": {}}).is_allocated()
        True
        """
        return self.status.allocation is not None

    def request_names(self) -> list[str]:
        """The names of ``spec.devices.requests``, in order.

        >>> ResourceClaim(spec={"devices": {"requests": [{"name": "a"}, {"name": "b"}]}}).request_names()
        ['a', 'b']
        """
        return [r.name or "" for r in self.spec.devices.requests]


class ResourceClaimTemplateSpec(K8sModel):
    """The claim each pod gets: metadata to copy and the claim spec."""

    metadata: ObjectMeta = Field(default_factory=ObjectMeta)
    spec: ResourceClaimSpec = Field(default_factory=ResourceClaimSpec)


class ResourceClaimTemplate(KubeObject):
    """resource.k8s.io/v1 ResourceClaimTemplate (namespaced)."""

    API_VERSION: ClassVar[str] = API_VERSION
    KIND: ClassVar[str] = "ResourceClaimTemplate"
    NAMESPACED: ClassVar[bool] = True

    spec: ResourceClaimTemplateSpec = Field(default_factory=ResourceClaimTemplateSpec)


# ------------------------------------------------------------------- slices


class ResourcePool(K8sModel):
    """The pool a slice belongs to; the newest ``generation`` wins."""

    name: str | None = None
    generation: int | None = None
    resource_slice_count: int | None = None


class DeviceAttribute(K8sModel):
    """A typed attribute value: exactly one of ``int``, ``bool``, ``string``, ``version`` or, with the
    alpha ``DRAListTypeAttributes`` gate, one of the non-empty lists ``ints``, ``bools``,
    ``strings``, ``versions``."""

    int_: int | None = Field(default=None, alias="int")
    bool_: bool | None = Field(default=None, alias="bool")
    string: str | None = None
    version: str | None = None
    ints: list[int] | None = None
    bools: list[bool] | None = None
    strings: list[str] | None = None
    versions: list[str] | None = None

    def value(self) -> int | bool | str | None:
        """The scalar value that is set (a version as its text), or None.

        >>> DeviceAttribute.model_validate({"int": 4}).value(), DeviceAttribute.model_validate({"bool": False}).value()
        (4, False)
        """
        for v in (self.int_, self.bool_, self.string, self.version):
            if v is not None:
                return v
        return None

    def values(self) -> tuple[str, list] | None:
        """The list value that is set, as (JSON name, values), or None.

        >>> DeviceAttribute.model_validate({"ints": [0, 1]}).values()
        ('ints', [0, 1])
        """
        for name in LIST_ATTRIBUTE_FIELDS:
            v = getattr(self, name)
            if v is not None:
                return name, v
        return None

    def set_fields(self) -> list[str]:
        """The JSON names of the value fields that are set.

        >>> DeviceAttribute.model_validate({"int": 1, "string": "x", "strings": ["y"]}).set_fields()
        ['int', 'string', 'strings']
        """
        pairs = (("int", self.int_), ("bool", self.bool_), ("string", self.string), ("version", self.version))
        return [n for n, v in pairs if v is not None] + [n for n in LIST_ATTRIBUTE_FIELDS if getattr(self, n) is not None]


#: the list-typed attribute fields (``DRAListTypeAttributes``) and the scalar type of their items
LIST_ATTRIBUTE_FIELDS = {"ints": "int", "bools": "bool", "strings": "string", "versions": "version"}


class CapacityRequestPolicyRange(K8sModel):
    """Allowed requests: ``min`` upwards in ``step`` increments, up to ``max``."""

    min: Quantity | None = None
    max: Quantity | None = None
    step: Quantity | None = None


class CapacityRequestPolicy(K8sModel):
    """How a consumable capacity may be requested (``validValues`` or ``validRange``)."""

    default: Quantity | None = None
    valid_values: list[Quantity] = Field(default_factory=list)
    valid_range: CapacityRequestPolicyRange | None = None


class DeviceCapacity(K8sModel):
    """A capacity of a device, with an optional request policy (consumable capacity)."""

    value: Quantity | None = None
    request_policy: CapacityRequestPolicy | None = None


class Counter(K8sModel):
    """A counter value."""

    value: Quantity | None = None


class CounterSet(K8sModel):
    """``sharedCounters[]``: named counters that devices consume (partitionable devices)."""

    name: str | None = None
    counters: dict[str, Counter] = Field(default_factory=dict)


class DeviceCounterConsumption(K8sModel):
    """How much a device takes from a counter set when allocated."""

    counter_set: str | None = None
    counters: dict[str, Counter] = Field(default_factory=dict)


class DeviceTaint(K8sModel):
    """A device taint; effects ``None``, ``NoSchedule``, ``NoExecute``."""

    key: str | None = None
    value: str | None = None
    effect: str | None = None
    time_added: Time | None = None


class Device(K8sModel):
    """One device of a slice."""

    name: str | None = None
    attributes: dict[str, DeviceAttribute] = Field(default_factory=dict)
    capacity: dict[str, DeviceCapacity] = Field(default_factory=dict)
    consumes_counters: list[DeviceCounterConsumption] = Field(default_factory=list)
    node_name: str | None = None
    node_selector: NodeSelector | None = None
    all_nodes: bool | None = None
    taints: list[DeviceTaint] = Field(default_factory=list)
    binds_to_node: bool | None = None
    binding_conditions: list[str] = Field(default_factory=list)
    binding_failure_conditions: list[str] = Field(default_factory=list)
    allow_multiple_allocations: bool | None = None


class ResourceSliceSpec(K8sModel):
    """A slice of a driver's pool: where its devices are usable and the devices."""

    driver: str | None = None
    pool: ResourcePool = Field(default_factory=ResourcePool)
    node_name: str | None = None
    node_selector: NodeSelector | None = None
    all_nodes: bool | None = None
    per_device_node_selection: bool | None = None
    devices: list[Device] = Field(default_factory=list)
    shared_counters: list[CounterSet] = Field(default_factory=list)


class ResourceSlice(KubeObject):
    """resource.k8s.io/v1 ResourceSlice (cluster-scoped).

    >>> s = ResourceSlice.model_validate({"metadata": {"name": "s"}, "spec": {"driver": "d", "allNodes": True,
    ...     "pool": {"name": "p", "generation": 1, "resourceSliceCount": 1},
    ...     "devices": [{"name": "gpu-0", "capacity": {"memory": {"value": "40Gi"}}}]}})
    >>> s.spec.devices[0].capacity["memory"].value.value()
    42949672960
    """

    API_VERSION: ClassVar[str] = API_VERSION
    KIND: ClassVar[str] = "ResourceSlice"
    NAMESPACED: ClassVar[bool] = False

    spec: ResourceSliceSpec = Field(default_factory=ResourceSliceSpec)


# ------------------------------------------------------------- taint rules


class DeviceTaintSelector(K8sModel):
    """Which devices a DeviceTaintRule taints (all criteria must hold).

    ``deviceClassName`` and ``selectors`` were removed from the API in v1.35
    (tombstoned upstream), so they are refused as unknown fields.
    """

    driver: str | None = None
    pool: str | None = None
    device: str | None = None


class DeviceTaintRuleSpec(K8sModel):
    """A device selector and the one taint it adds."""

    device_selector: DeviceTaintSelector | None = None
    taint: DeviceTaint = Field(default_factory=DeviceTaint)


class DeviceTaintRuleStatus(K8sModel):
    """Conditions such as ``EvictionInProgress``."""

    conditions: list[Condition] = Field(default_factory=list)


class DeviceTaintRule(KubeObject):
    """resource.k8s.io/v1alpha3 DeviceTaintRule (cluster-scoped).

    >>> r = DeviceTaintRule.model_validate({"metadata": {"name": "example"}, "spec": {
    ...     "deviceSelector": {"driver": "dra.example.com"},
    ...     "taint": {"key": "dra.example.com/unhealthy", "value": "Broken", "effect": "NoExecute"}}})
    >>> r.spec.taint.effect, r.api_version
    ('NoExecute', 'resource.k8s.io/v1alpha3')
    """

    API_VERSION: ClassVar[str] = API_VERSION_V1ALPHA3
    KIND: ClassVar[str] = "DeviceTaintRule"
    NAMESPACED: ClassVar[bool] = False

    spec: DeviceTaintRuleSpec = Field(default_factory=DeviceTaintRuleSpec)
    status: DeviceTaintRuleStatus = Field(default_factory=DeviceTaintRuleStatus)


class DeviceTaintRuleV1beta2(DeviceTaintRule):
    """The same DeviceTaintRule as served by ``resource.k8s.io/v1beta2`` (the beta API).

    >>> DeviceTaintRuleV1beta2.model_validate({"metadata": {"name": "r"},
    ...     "spec": {"taint": {"key": "k", "effect": "None"}}}).api_version
    'resource.k8s.io/v1beta2'
    """

    API_VERSION: ClassVar[str] = API_VERSION_V1BETA2
