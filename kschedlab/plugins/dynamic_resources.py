"""DynamicResources: a pod's ResourceClaims must exist, be allocatable on the node (the structured
allocator picks the devices) and are allocated and reserved for the pod when it binds
(upstream ``pkg/scheduler/framework/plugins/dynamicresources``).

Extension points, as upstream:

- **PreEnqueue**: every claim the pod names exists (a template's claim is listed in
  ``status.resourceClaimStatuses``), is not being deleted and, when generated from a template,
  is owned by the pod;
- **PreFilter**: gathers the claims (Skip without any), refuses a claim in use by others or with
  an allocation in flight, checks the DeviceClasses of unallocated claims and prepares the
  allocator over the allocated state and the (tainted) ResourceSlices; with DRAExtendedResource a
  pod requesting an extended resource served by a DeviceClass gets a special in-memory claim;
- **Filter**: an allocated claim's node selector must match the node (and, with binding
  conditions, not have failed or timed out); unallocated claims must all be allocatable there;
- **PostFilter**: deallocates one allocated claim that was unavailable and is reserved by no one
  else (or deletes a stale extended-resource claim);
- **Score** (DRAPrioritizedList): ``8 - index`` of every chosen ``firstAvailable`` subrequest,
  normalized to 0..100;
- **Reserve** / **Unreserve**: the node's allocation is assumed (in flight), so later pods see its
  devices as taken; Unreserve forgets it and drops the pod from ``reservedFor``;
- **PreBindPreFlight**: Success when the pod has claims (PreBind will act), else Skip;
- **PreBind**: writes ``status.allocation`` (with the finalizer) and adds the pod to
  ``reservedFor``, then waits for device binding conditions up to ``bindingTimeout``.

Every rejection is UnschedulableAndUnresolvable, as upstream's ``statusUnschedulable``.
"""

from __future__ import annotations

import copy
import random
import re
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

import numpy as np

from kschedlab.api.container_status import PodExtendedResourceClaimStatus
from kschedlab.api.resources import pod_requests
from kschedlab.dra.allocator import (
    INVALID_POOLS,
    AllocationError,
    Allocator,
    DRAFeatures,
    FailedAllocationOnNode,
    Screened,
)
from kschedlab.dra.devices import as_dict, read_claim
from kschedlab.dra.manager import (
    EXTENDED_RESOURCE_CLAIM_ANNOTATION,
    FINALIZER,
    RESERVED_FOR_MAX_SIZE,
    claim_identity,
    dra_manager,
)
from kschedlab.dra.nodeselector import NodeSelectorError, selector_mask, selector_matches
from kschedlab.dra.podgroup_claims import consumer_reference, matching_group_claim, pod_group_of
from kschedlab.framework.events import (
    DEVICE_CLASS,
    NODE,
    POD,
    QUEUE,
    RESOURCE_CLAIM,
    RESOURCE_SLICE,
    SKIP,
    ActionType,
    ClusterEvent,
    HintError,
    QueueingHint,
    as_objects,
    pod_of,
)
from kschedlab.framework.interface import ArgsError, FieldError, Plugin, Verdicts, register
from kschedlab.framework.status import SUCCESS, Code, Status
from kschedlab.plugins.helper.normalize_score import default_normalize_score
from kschedlab.plugins.node_resources_fit import is_dra_extended_resource_name

NAME = "DynamicResources"
#: the name of the in-memory claim for extended resources (deliberately not a valid name)
SPECIAL_CLAIM_IN_MEM_NAME = "<extended-resources>"
#: ``DynamicResourcesArgs`` defaults (v1): filterTimeout 10 s, bindingTimeout 600 s
FILTER_TIMEOUT_DEFAULT_SECONDS = 10.0
BINDING_TIMEOUT_DEFAULT_SECONDS = 600.0
#: PreBind asks the claims again every 5 s while it waits for binding conditions
BINDING_POLL_SECONDS = 5.0
#: ``resourceapi.FirstAvailableDeviceRequestMaxSize``: the score of the first subrequest
FIRST_AVAILABLE_DEVICE_REQUEST_MAX_SIZE = 8
#: ``resourceclaim.ErrClaimNotFound`` / ``ErrAPIUnsupported``
ERR_CLAIM_NOT_FOUND = "ResourceClaim not created yet"
ERR_API_UNSUPPORTED = "resource claim reference in pod spec is not supported"
ERR_CANNOT_ALLOCATE = "cannot allocate all claims"
ERR_NOT_AVAILABLE = "resourceclaim not available on the node"
ERR_IN_USE = "resourceclaim in use"
ERR_TIMED_OUT = "timed out trying to allocate devices"
ERR_SIGN = "pods with dra resource claims are not signable"
_NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
#: a screen's kinds (``Screened.FIT``, ``NO_FIT``, ``INVALID``, ``UNDECIDED``) -> the Filter code and the
#: index of the reason (ERR_CANNOT_ALLOCATE, INVALID_POOLS; -1: none); an UNDECIDED node is filtered alone
_SCREEN_CODES = np.zeros(4, np.int8)
_SCREEN_CODES[[Screened.NO_FIT, Screened.INVALID, Screened.UNDECIDED]] = Code.UnschedulableAndUnresolvable
_SCREEN_REASONS = np.full(4, -1, np.int32)
_SCREEN_REASONS[[Screened.NO_FIT, Screened.INVALID]] = [0, 1]
#: a label key no node has: ``Snapshot.label_codes`` of it is the same object until a node is set
_NODE_DICTS_MARKER = "dra.kschedlab.io/node-dicts"
#: chunks of node dicts kept for the screen (the oldest dropped first)
_CHUNK_DICTS = 512
#: allocation node selectors whose verdicts are kept at once (all dropped past it)
_KEPT_SELECTORS = 4096


# -- args ------------------------------------------------------------------------------------------
_DURATION_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)")
_UNIT_SECONDS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def parse_duration(text: Any) -> float:
    """A Go duration (``"60s"``, ``"1m30s"``, ``"1ns"``, ``"0"``) in seconds; ValueError otherwise.

    >>> parse_duration("1m30s"), parse_duration("0"), parse_duration("-2s")
    (90.0, 0.0, -2.0)
    """
    s = str(text).strip()
    sign = -1.0 if s.startswith("-") else 1.0
    s = s.lstrip("+-")
    if s == "0":
        return 0.0
    pos, total = 0, 0.0
    for m in _DURATION_PART.finditer(s):
        if m.start() != pos:
            break
        total += float(m.group(1)) * _UNIT_SECONDS[m.group(2)]
        pos = m.end()
    if pos != len(s) or not s:
        raise ValueError(f"time: invalid duration {str(text)!r}")
    return sign * total


@dataclass
class DynamicResourcesArgs:
    """Validated ``DynamicResourcesArgs`` (seconds; None = not set and no default)."""

    filter_timeout: float | None = FILTER_TIMEOUT_DEFAULT_SECONDS
    binding_timeout: float = BINDING_TIMEOUT_DEFAULT_SECONDS


def validate_args(raw: dict | None, gates) -> DynamicResourcesArgs:
    """Default then validate args (``SetDefaults_DynamicResourcesArgs`` and
    ``ValidateDynamicResourcesArgs``): a field whose feature is off must not be set; filterTimeout
    must be zero or positive, bindingTimeout at least one second.

    >>> from kschedlab.features import FeatureGates
    >>> validate_args({"bindingTimeout": "60s"}, FeatureGates()).binding_timeout
    60.0
    >>> validate_args({"filterTimeout": "-1s"}, FeatureGates())  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    kschedlab.framework.interface.ArgsError: ...: filterTimeout: FieldValueInvalid: must be zero or positive
    """
    raw = dict(raw or {})
    errors: list[FieldError] = []
    values: dict[str, float | None] = {}
    for key in ("filterTimeout", "bindingTimeout"):
        if raw.get(key) is None:
            values[key] = None
            continue
        try:
            values[key] = parse_duration(raw[key])
        except ValueError as err:
            errors.append(FieldError("FieldValueInvalid", key, str(err)))
            values[key] = None
    filter_gate = gates.enabled("DRASchedulerFilterTimeout")
    binding_gate = gates.enabled("DRADeviceBindingConditions") and gates.enabled("DRAResourceClaimDeviceStatus")
    if filter_gate:
        if values["filterTimeout"] is not None and values["filterTimeout"] < 0:
            errors.append(FieldError("FieldValueInvalid", "filterTimeout", "must be zero or positive"))
    elif values["filterTimeout"] is not None:
        errors.append(FieldError("FieldValueForbidden", "filterTimeout",
                                 "DRASchedulingFilterTimeout feature gate is disabled"))
    if binding_gate:
        if values["bindingTimeout"] is not None and values["bindingTimeout"] < 1:
            errors.append(FieldError("FieldValueInvalid", "bindingTimeout", "must be at least 1 second"))
    elif values["bindingTimeout"] is not None:
        errors.append(FieldError("FieldValueForbidden", "bindingTimeout",
                                 "DRADeviceBindingConditions or DRAResourceClaimDeviceStatus feature gate is disabled"))
    if errors:
        raise ArgsError(NAME, errors)
    filter_timeout = values["filterTimeout"]
    if filter_timeout is None and filter_gate and "filterTimeout" not in raw:
        filter_timeout = FILTER_TIMEOUT_DEFAULT_SECONDS
    binding = values["bindingTimeout"]
    return DynamicResourcesArgs(filter_timeout=filter_timeout,
                                binding_timeout=BINDING_TIMEOUT_DEFAULT_SECONDS if binding is None else binding)


# -- claims of a pod ------------------------------------------------------------------------------
class ClaimError(Exception):
    """A reason why the pod's claims cannot be used yet (PreEnqueue / PreFilter message)."""


def _kobj(claim: dict) -> str:
    meta = claim.get("metadata") or {}
    ns = meta.get("namespace")
    return f"{ns}/{meta.get('name', '')}" if ns else meta.get("name", "")


def _pod_kobj(pod) -> str:
    ns = pod.metadata.namespace or ""
    return f"{ns}/{pod.metadata.name}" if ns else pod.metadata.name


def pod_claim_name(pod, pod_claim) -> tuple[str | None, bool]:
    """``resourceclaim.Name``: (claim name or None when the template produced none, whether the
    pod must own the claim); raises :class:`ClaimError` while a template's claim is not created."""
    if pod_claim.resource_claim_name:
        return pod_claim.resource_claim_name, False
    if pod_claim.resource_claim_template_name:
        for status in (pod.status.resource_claim_statuses if pod.status else []):
            if status.name == pod_claim.name:
                return status.resource_claim_name, True
        raise ClaimError(f'pod "{pod.metadata.namespace or ""}/{pod.metadata.name}": {ERR_CLAIM_NOT_FOUND}')
    raise ClaimError(f'pod "{pod.metadata.namespace or ""}/{pod.metadata.name}", spec.resourceClaim '
                     f'"{pod_claim.name}": {ERR_API_UNSUPPORTED}')


def is_controlled_by(claim: dict, pod) -> bool:
    """``metav1.IsControlledBy``: the claim's controller reference is the pod (by UID)."""
    for ref in (claim.get("metadata") or {}).get("ownerReferences") or []:
        if ref.get("controller"):
            return (ref.get("uid") or "") == (pod.metadata.uid or "")
    return False


def pod_claims(manager, pod) -> list[dict]:
    """``foreachPodResourceClaim``: the pod's claims in ``spec.resourceClaims`` order (those a
    template did not produce are left out); raises :class:`ClaimError` with upstream's message."""
    out = []
    for pod_claim in pod.spec.resource_claims:
        name, must_own = pod_claim_name(pod, pod_claim)
        if name is None:
            continue
        claim = manager.claim_dict(pod.metadata.namespace or "", name)  # (read-only, as every reader here)
        if claim is None:
            raise ClaimError(f'resourceclaim.resource.k8s.io "{name}" not found')
        if (claim.get("metadata") or {}).get("deletionTimestamp"):
            raise ClaimError(f'resourceclaim "{name}" is being deleted')
        if must_own and not is_controlled_by(claim, pod):
            group = pod_group_of(manager.cluster, pod)
            if group is not None and matching_group_claim(group, pod_claim) is not None:
                if is_controlled_by(claim, group):
                    out.append(claim)
                    continue
                raise ClaimError(f"ResourceClaim {_kobj(claim)} was not created for Pod {_pod_kobj(pod)} or PodGroup "
                                 f"{_pod_kobj(group)} (neither Pod nor PodGroup is the owner)")
            raise ClaimError(f"ResourceClaim {_kobj(claim)} was not created for pod {_pod_kobj(pod)} "
                             f"(pod is not owner)")
        out.append(claim)
    return out


def is_reserved_for_pod(claim: dict, pod, pod_group=None) -> bool:
    """``resourceclaim.IsReservedForPod``: the pod, or its PodGroup when given, is a consumer."""
    uids = {pod.metadata.uid or ""} | ({pod_group.metadata.uid or ""} if pod_group is not None else set())
    return any((r.get("uid") or "") in uids for r in (claim.get("status") or {}).get("reservedFor") or [])


def can_be_reserved(claim: dict) -> bool:
    """``resourceclaim.CanBeReserved``: fewer than 256 consumers."""
    return len((claim.get("status") or {}).get("reservedFor") or []) < RESERVED_FOR_MAX_SIZE


def _allocation(claim: dict) -> dict | None:
    return (claim.get("status") or {}).get("allocation") or None


# -- cycle state ----------------------------------------------------------------------------------
@dataclass
class ClaimInfo:
    """Per claim: the node selector of its allocation, the allocation chosen at Reserve."""

    available_on_nodes: dict | None = None
    allocation: dict | None = None


@dataclass
class NodeAllocation:
    """What Filter found for one node: one allocation per claim to allocate (``results``, built
    on first use by ``build``, see ``Allocator.allocate_deferred``; None: nothing to allocate),
    and the node's version of the extended-resource claim (None when it has nothing to allocate
    there)."""

    build: Any = None
    extended_claim: dict | None = None
    request_mappings: list[dict] = field(default_factory=list)
    _results: list[dict] | None = None

    @property
    def results(self) -> list[dict]:
        if self._results is None:
            self._results = self.build() if self.build is not None else []
        return self._results


@dataclass
class DRAState:
    """The plugin's cycle state (upstream ``stateData``); ``claims`` follow ``spec.resourceClaims``,
    the in-memory extended-resource claim (if any) last."""

    claims: list[dict] = field(default_factory=list)
    extended_index: int | None = None
    resource_to_class: dict[str, str] = field(default_factory=dict)
    pod_scalar: dict[str, int] = field(default_factory=dict)
    allocator: Allocator | None = None
    infos: list[ClaimInfo] = field(default_factory=list)
    unavailable: set[int] = field(default_factory=set)
    node_allocations: dict[str, NodeAllocation] = field(default_factory=dict)
    node_dicts: dict[int, dict] = field(default_factory=dict)
    #: PreFilter found nothing to do (no claims, no extended resources served by DRA)
    skipped: bool = False
    #: the in-memory extended-resource claim as put in flight at Reserve (PreBind replaces the claim)
    extended_in_flight: dict | None = None
    #: when PreBind started waiting for binding conditions (seconds on the handle's clock)
    binding_wait_started: float | None = None
    #: what Filter works out once per cycle (``_FilterPlan``), on its first node
    filter_plan: Any = None
    #: ``(Allocator.screen's answers, the snapshot rows of their nodes, the snapshot)`` of each
    #: screened Filter call
    screened: list[tuple[Any, np.ndarray, Any]] = field(default_factory=list)

    def clone(self) -> "DRAState":
        return self  # shared, as upstream's Clone

    def empty(self) -> bool:
        return not self.claims

    def extended_claim(self) -> dict | None:
        return self.claims[self.extended_index] if self.extended_index is not None else None

    def no_user_claim(self) -> bool:
        return len(self.claims) == (1 if self.extended_index is not None else 0)

    def to_allocate(self) -> list[tuple[int, dict]]:
        """(index, claim) of the claims without an allocation, in order."""
        return [(i, c) for i, c in enumerate(self.claims) if _allocation(c) is None]


@dataclass
class _FilterPlan:
    """The node-independent part of Filter, worked out on the first node of a cycle: the claims
    to allocate (``(index, claim)``, read for the allocator on first use), whether device
    binding is on, the admin-access refusal (None when there is none) and whether any claim
    names a ``firstAvailable`` request (otherwise every Score is 0)."""

    to_allocate: list[tuple[int, dict]]
    binding_enabled: bool
    admin_refusal: Status | None
    #: DRASchedulerFilterTimeout on and a timeout set: the allocator's run is timed
    timed: bool = False
    parsed: dict[int, Any] = field(default_factory=dict)


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _parse_time(value: Any) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=timezone.utc)
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None


@register
class DynamicResources(Plugin):
    """The DynamicResources plugin (see the module docstring)."""

    name = NAME

    @classmethod
    def parse_args(cls, raw, handle=None) -> DynamicResourcesArgs:
        from kschedlab.features import FeatureGates

        gates = getattr(handle, "gates", None) or FeatureGates()
        return validate_args(raw, gates)

    def __init__(self, args=None, handle=None):
        from kschedlab.features import FeatureGates

        super().__init__(args or DynamicResourcesArgs(), handle)
        self.gates = getattr(handle, "gates", None) or FeatureGates()
        self.enabled = self.gates.enabled("DynamicResourceAllocation")
        self.features = DRAFeatures.from_gates(self.gates)
        self._rng = random.Random(0)
        #: row -> (Node object, its labels as read, the node as the allocator takes it), across cycles
        self._node_dicts: dict[int, tuple[Any, dict, dict]] = {}
        #: (snapshot, its label-column marker, row -> node dict) of the rows checked since the marker
        self._node_dicts_seen: tuple[Any, Any, dict[int, dict]] | None = None
        #: (snapshot, its label-column marker, rows' bytes -> their node dicts) of the chunks screened
        self._chunk_dicts: tuple[Any, Any, dict[tuple, list[dict]]] | None = None
        #: (cluster, its DRA manager): see :attr:`manager`
        self._manager: tuple[Any, Any] | None = None
        #: id(allocation node selector) -> (it, snapshot, label marker, verdicts per row or None):
        #: see :meth:`_selector_verdicts`
        self._selectors: dict[int, tuple] = {}

    # -- helpers -------------------------------------------------------------------------------
    @property
    def manager(self):
        """The cluster's DRA manager (kept with the cluster it is for: asked a few times a cycle)."""
        cluster = self.handle.cluster
        kept = self._manager
        if kept is None or kept[0] is not cluster:
            kept = self._manager = (cluster, dra_manager(cluster))
        return kept[1]

    def _gate(self, name: str) -> bool:
        return self.gates.enabled(name)

    def _binding_enabled(self) -> bool:
        return self._gate("DRADeviceBindingConditions") and self._gate("DRAResourceClaimDeviceStatus")

    @staticmethod
    def _state(state) -> DRAState | None:
        return state.get(NAME)

    def sign_pod(self, pod_info):
        """Signature: pods with claims are not signable (upstream issue 134986)."""
        if pod_info.pod.spec.resource_claims:
            return None, Status.unschedulable(ERR_SIGN)
        return [], None

    # -- PreEnqueue ------------------------------------------------------------------------------
    def pre_enqueue(self, pod_info) -> Status:
        """Every claim of the pod must exist, not be deleted and, from a template, be the pod's."""
        pod = pod_of(pod_info)
        if not self.enabled or not pod.spec.resource_claims:  # (no claim to look up)
            return SUCCESS
        try:
            pod_claims(self.manager, pod)
        except ClaimError as err:
            return Status.unresolvable(str(err))
        return Status()

    # -- PreFilter -------------------------------------------------------------------------------
    def pre_filter(self, state, pod_info, snapshot):
        """Gather the claims and their allocation state; Skip when the pod has none."""
        if not self.enabled:
            return None, Status.skip()
        s = DRAState()
        state[NAME] = s
        pod = pod_info.pod
        manager = self.manager
        try:
            claims = pod_claims(manager, pod)
        except ClaimError as err:
            return None, Status.unresolvable(str(err))
        extended = self._pre_filter_extended(pod, manager, s)
        if extended is not None:
            s.extended_index = len(claims)
            claims = [*claims, extended]
        if not claims:
            s.skipped = True
            return None, Status.skip()
        s.infos = [ClaimInfo() for _ in claims]
        to_allocate = 0
        group = self._claims_group(pod)
        for i, claim in enumerate(claims):
            if (group is not None and _allocation(claim) is None and manager.has_pending_allocation(claim)
                    and self._group_claim(pod, group, claim)):
                # the group's claim, being allocated for another pod of the group: share that allocation
                claim = claims[i] = manager.in_flight[claim_identity(claim)]
            allocation = _allocation(claim)
            if allocation is not None and not can_be_reserved(claim) and not is_reserved_for_pod(claim, pod):
                return None, Status.unresolvable(ERR_IN_USE)
            if allocation is not None:
                if allocation.get("nodeSelector") is not None:
                    s.infos[i].available_on_nodes = allocation["nodeSelector"]
                continue
            to_allocate += 1
            if manager.has_pending_allocation(claim):
                return None, Status.unresolvable(f"resource claim {_kobj(claim)} is in the process of being allocated")
            if i == s.extended_index:
                continue
            for request in ((claim.get("spec") or {}).get("devices") or {}).get("requests") or []:
                rname = request.get("name", "")
                if request.get("exactly") is not None:
                    status = self._validate_device_class(manager, request["exactly"].get("deviceClassName"), rname)
                elif request.get("firstAvailable"):
                    if not self._gate("DRAPrioritizedList"):
                        return None, Status.unresolvable(
                            f"claim {_kobj(claim)}, request {rname}: has subrequests, "
                            f"but the DRAPrioritizedList feature is disabled")
                    status = None
                    for sub in request["firstAvailable"]:
                        status = self._validate_device_class(manager, sub.get("deviceClassName"),
                                                             f"{rname}/{sub.get('name', '')}")
                        if status is not None:
                            break
                else:
                    return None, Status.unresolvable(
                        f"resource claim {_kobj(claim)}, request {rname}: unknown request type")
                if status is not None:
                    return None, status
        if to_allocate:
            s.allocator = Allocator(self.features, manager.allocated_state(), manager.device_classes(),
                                    manager.parsed_slices(), cache=manager.allocator_cache)
        s.claims = claims
        return None, Status()

    @staticmethod
    def _validate_device_class(manager, class_name: str | None, request_name: str) -> Status | None:
        if not class_name:
            return Status.error(f"request {request_name}: unsupported request type")
        if manager.get_device_class(class_name) is None:
            return Status.unresolvable(f"request {request_name}: device class {class_name} does not exist")
        return None

    def _pre_filter_extended(self, pod, manager, s: DRAState) -> dict | None:
        """``preFilterExtendedResources``: the pod's special claim for extended resources served
        by a DeviceClass (one left from an earlier cycle, else a new in-memory one), or None."""
        if not self._gate("DRAExtendedResource"):
            return None
        mapping = manager.extended_resource_mapping()
        if not mapping:  # no DeviceClass serves an extended resource
            return None
        if not _names_requested(pod.spec) & mapping.keys():  # (so no request of pod_requests' is served)
            return None
        reqs = pod_requests(pod)
        if not any(v and is_dra_extended_resource_name(n) and n in mapping for n, v in reqs.items()):
            return None
        s.resource_to_class = mapping
        s.pod_scalar = {n: v for n, v in reqs.items() if n not in ("cpu", "memory", "ephemeral-storage", "pods")}
        for claim in manager.list_claims():
            meta = claim.get("metadata") or {}
            if (meta.get("annotations") or {}).get(EXTENDED_RESOURCE_CLAIM_ANNOTATION) != "true":
                continue
            for ref in meta.get("ownerReferences") or []:
                if ref.get("name") == pod.metadata.name and ref.get("controller") and \
                        (ref.get("uid") or "") == (pod.metadata.uid or ""):
                    return claim
        ns = pod.metadata.namespace or ""
        return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                "metadata": {"namespace": ns, "name": SPECIAL_CLAIM_IN_MEM_NAME,
                             "uid": f"in-memory/{ns}/{pod.metadata.name}/{pod.metadata.uid or ''}",
                             "generateName": pod.metadata.name + "-extended-resources-",
                             "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": pod.metadata.name,
                                                  "uid": pod.metadata.uid or "", "controller": True,
                                                  "blockOwnerDeletion": True}],
                             "annotations": {EXTENDED_RESOURCE_CLAIM_ANNOTATION: "true"}},
                "spec": {}}

    # -- Filter ------------------------------------------------------------------------------------
    def filter_nodes(self, state, pod_info, snapshot, rows: np.ndarray) -> Verdicts:
        """Filter each node in ``rows`` (the allocator runs per node; where its answer needs no
        search, ``Allocator.screen`` gives it for all the rows at once)."""
        s = self._state(state) if self.enabled else None
        if s is not None and len(rows) > 1:
            if s.allocator is not None:
                verdicts = self._screen(s, state, pod_info, snapshot, rows)
            else:
                verdicts = self._allocated_only(s, snapshot, rows)
            if verdicts is not None:
                return verdicts
        return Verdicts.from_statuses(self._filter_row(state, pod_info, snapshot, int(r)) for r in rows)

    def _screen(self, s: DRAState, state, pod_info, snapshot, rows: np.ndarray) -> Verdicts | None:
        """Filter ``rows`` with ``Allocator.screen`` when the pod's claims are all still to be
        allocated (so the per-node checks of allocated claims have nothing to do) and there is
        no extended-resource claim or admin-access refusal; the rows it cannot answer go through
        :meth:`_filter_row`. None when it does not apply."""
        if s.empty() or s.extended_index is not None:
            return None
        plan = s.filter_plan
        if plan is None:
            plan = s.filter_plan = self._filter_plan(s)
        if len(plan.to_allocate) != len(s.claims) or plan.admin_refusal is not None:
            return None
        claims = []
        for i, claim in plan.to_allocate:
            parsed = plan.parsed.get(i)
            if parsed is None:
                parsed = plan.parsed[i] = read_claim(claim)
            claims.append(parsed)
        found = s.allocator.screen(self._node_dicts_of_chunk(snapshot, rows), claims)
        kinds = found.kinds
        # per kind (FIT, NO_FIT, INVALID, UNDECIDED): the code and the reason's index, one take each
        codes = _SCREEN_CODES.take(kinds)
        idx = _SCREEN_REASONS.take(kinds)
        table = {(ERR_CANNOT_ALLOCATE,): 0, (INVALID_POOLS,): 1}
        for k in np.flatnonzero(kinds == Screened.UNDECIDED).tolist():
            status = self._filter_row(state, pod_info, snapshot, int(rows[k]))
            codes[k] = status.code
            if status.reasons:
                idx[k] = table.setdefault(status.reasons, len(table))
        s.screened.append((found, rows, snapshot))
        return Verdicts(codes, idx, list(table))

    def _allocated_only(self, s: DRAState, snapshot, rows: np.ndarray) -> Verdicts | None:
        """Filter ``rows`` at once when every claim of the pod is allocated (nothing for the
        allocator): a node fails where some claim's node selector does not match it
        (``selector_mask`` over the snapshot's label columns). None when that does not apply
        (an extended-resource claim, binding conditions to check, a selector only
        ``selector_matches`` can judge)."""
        if s.empty() or s.extended_index is not None or s.allocator is not None:
            return None
        if self._binding_enabled() and has_binding_conditions(s.claims):
            return None
        kept = []
        for i, info in enumerate(s.infos):
            if info.available_on_nodes is None:
                continue
            verdicts = self._selector_verdicts(info.available_on_nodes, snapshot)
            if verdicts is None:
                return None
            kept.append((i, verdicts))
        if not kept:
            return Verdicts.passing(len(rows))
        if len(kept) == 1:  # (one selector: its kept verdicts on these rows are the answer)
            i, (codes_all, idx_all) = kept[0]
            codes = codes_all.take(rows)
            if not codes.any():
                return Verdicts.passing(len(rows))
            s.unavailable.add(i)
            return Verdicts(codes, idx_all.take(rows), [(ERR_NOT_AVAILABLE,)])
        failed = None
        for i, (codes_all, _) in kept:
            fails = codes_all.take(rows) != 0
            if fails.any():
                failed = fails if failed is None else failed | fails
                s.unavailable.add(i)
        if failed is None:
            return Verdicts.passing(len(rows))
        # ``Verdicts.from_mask`` in two array operations: the code where failed (a bool is 0 or 1
        # as int8), reason 0 there and -1 elsewhere
        return Verdicts(failed.view(np.int8) * np.int8(Code.UnschedulableAndUnresolvable),
                        failed.astype(np.int32) - 1, [(ERR_NOT_AVAILABLE,)])

    def _selector_verdicts(self, selector: dict, snapshot) -> tuple[np.ndarray, np.ndarray] | None:
        """An allocation's node selector judged on every snapshot row at once (``selector_mask``):
        the code (UnschedulableAndUnresolvable where it does not match, else 0) and the reason
        index (0 there, else -1) per row; None when only ``selector_matches`` can judge it. Kept
        per selector (the claim's dump's own dict, held, so the pods sharing an allocated claim
        share it) while the snapshot's label columns stay (a node set or added since: another
        ``Snapshot.label_codes`` marker; a removed node's row is in no later Filter's rows, and a
        node added again under its name takes a new row)."""
        marker = snapshot.label_codes(_NODE_DICTS_MARKER)
        hit = self._selectors.get(id(selector))
        if hit is not None and hit[0] is selector and hit[1] is snapshot and hit[2] is marker:
            return hit[3]
        mask = selector_mask(selector, np.arange(len(snapshot.nodes)), snapshot.label_codes, snapshot.index.get)
        found = None
        if mask is not None:
            failed = ~mask
            found = (failed.view(np.int8) * np.int8(Code.UnschedulableAndUnresolvable), failed.astype(np.int32) - 1)
        if len(self._selectors) >= _KEPT_SELECTORS:
            self._selectors.clear()
        self._selectors[id(selector)] = (selector, snapshot, marker, found)
        return found

    def _node_dicts_for(self, snapshot, rows: list[int]) -> list[dict]:
        """The nodes of ``rows`` as the allocator takes them (name and labels), the same dict for
        the same node from one cycle to the next (so the allocator recognises it). While the
        snapshot's label columns are kept (no node was set since: ``Snapshot.label_codes``),
        the dicts are handed out as they are; otherwise each is checked against its node."""
        marker = snapshot.label_codes(_NODE_DICTS_MARKER)
        fresh = self._node_dicts_seen
        if fresh is not None and fresh[0] is snapshot and fresh[1] is marker:
            dicts = fresh[2]
            try:
                return [dicts[row] for row in rows]
            except KeyError:
                pass
        kept = self._node_dicts
        dicts = {} if fresh is None or fresh[0] is not snapshot or fresh[1] is not marker else fresh[2]
        out = []
        for row in rows:
            obj = snapshot.nodes[row]
            hit = kept.get(row)
            meta = obj.metadata
            if hit is None or hit[0] is not obj or hit[1] != (meta.labels or {}) \
                    or hit[2]["metadata"]["name"] != meta.name:
                labels = dict(meta.labels or {})
                hit = kept[row] = (obj, labels, {"metadata": {"name": meta.name, "labels": dict(labels)}})
            dicts[row] = hit[2]
            out.append(hit[2])
        self._node_dicts_seen = (snapshot, marker, dicts)
        return out

    def _node_dicts_of_chunk(self, snapshot, rows: np.ndarray) -> list[dict]:
        """:meth:`_node_dicts_for` of a chunk of rows, the same list (read-only) for the same rows
        while the dicts it holds are handed out as they are (same snapshot, label columns kept):
        the scheduler filters the same chunks from one pod to the next."""
        marker = snapshot.label_codes(_NODE_DICTS_MARKER)
        kept = self._chunk_dicts
        if kept is None or kept[0] is not snapshot or kept[1] is not marker:
            kept = self._chunk_dicts = (snapshot, marker, {})
        lists = kept[2]
        key = (rows.dtype.char, rows.tobytes())
        found = lists.get(key)
        if found is None:
            found = self._node_dicts_for(snapshot, rows.tolist())
            if len(lists) >= _CHUNK_DICTS:
                del lists[next(iter(lists))]
            lists[key] = found
        return found

    def _node_dict(self, s: DRAState, snapshot, row: int) -> dict:
        node = s.node_dicts.get(row)
        if node is None:
            # node selection (slices, devices, allocations) reads only the name and the labels
            node = s.node_dicts[row] = self._node_dicts_for(snapshot, [row])[0]
        return node

    @staticmethod
    def _node_allocation(s: DRAState, node_name: str) -> "NodeAllocation | None":
        """What Filter found for ``node_name``: from the per-node path or a screen."""
        found = s.node_allocations.get(node_name)
        if found is None:
            for screened, rows, snapshot in s.screened:
                row = snapshot.index.get(node_name)
                at = np.flatnonzero(rows == row) if row is not None else ()
                if len(at):
                    k = int(at[0])
                    if screened.kinds[k] == Screened.FIT:
                        found = s.node_allocations[node_name] = NodeAllocation(screened.builder(k), None, [])
        return found

    def _filter_row(self, state, pod_info, snapshot, row: int) -> Status:
        if not self.enabled:
            return Status()
        s = self._state(state)
        if s is None:
            return Status.error(f"reading {NAME!r} from cycle state: not found")
        if s.empty():
            return Status()
        pod = pod_info.pod
        node = self._node_dict(s, snapshot, row)
        node_name = snapshot.names[row]
        node_claim, mappings, status = self._filter_extended(s, pod, snapshot.nodes[row])
        if status is not None:
            return status
        if node_claim is None and s.no_user_claim():
            return Status()
        plan = s.filter_plan
        if plan is None:
            plan = s.filter_plan = self._filter_plan(s)
        unavailable = []
        for i, claim in enumerate(s.claims):
            selector = s.infos[i].available_on_nodes
            if selector is not None:
                try:
                    matches = selector_matches(selector, node)
                except NodeSelectorError as err:
                    return Status.error(str(err))
                if not matches:
                    unavailable.append(i)
                    continue
            if _allocation(claim) is None:
                continue
            if plan.binding_enabled:
                try:
                    ready = self.claim_ready_for_binding(claim)
                except ClaimError:
                    unavailable.append(i)
                    continue
                if not ready and self.claim_timed_out(claim):
                    unavailable.append(i)
        results = None
        if s.allocator is not None:
            to_allocate = []
            for i, claim in plan.to_allocate:
                if i == s.extended_index and node_claim is not None:
                    claim = node_claim
                else:  # read once per cycle (the node's extended-resource claim is new per node)
                    parsed = plan.parsed.get(i)
                    if parsed is None:
                        parsed = plan.parsed[i] = read_claim(claim)
                    claim = parsed
                to_allocate.append(claim)
            if node_claim is not None or plan.admin_refusal is not None:
                refusal = self._admin_refusal([node_claim if i == s.extended_index and node_claim is not None
                                               else c for i, c in plan.to_allocate])
                if refusal is not None:
                    return refusal
            started = time.monotonic() if plan.timed else 0.0
            try:
                # the results of one node are built (at Score or Reserve); each has one per claim
                results = s.allocator.allocate_deferred(node, to_allocate)
            except FailedAllocationOnNode as err:
                return Status.unresolvable(str(err))
            except AllocationError as err:
                return Status.error(str(err))
            if plan.timed and time.monotonic() - started > self.args.filter_timeout:
                return Status.unresolvable(ERR_TIMED_OUT)
            if results is None:
                return Status.unresolvable(ERR_CANNOT_ALLOCATE)
        if unavailable:
            s.unavailable.update(unavailable)
            return Status.unresolvable(ERR_NOT_AVAILABLE)
        if s.allocator is not None:
            s.node_allocations[node_name] = NodeAllocation(results, node_claim, mappings)
        return Status()

    def _filter_plan(self, s: DRAState) -> _FilterPlan:
        """The node-independent part of Filter for this cycle (see :class:`_FilterPlan`)."""
        to_allocate = s.to_allocate()
        return _FilterPlan(to_allocate=to_allocate, binding_enabled=self._binding_enabled(),
                           admin_refusal=self._admin_refusal([c for _, c in to_allocate]),
                           timed=bool(self._gate("DRASchedulerFilterTimeout") and self.args.filter_timeout))

    def _admin_refusal(self, claims: list[dict]) -> Status | None:
        """With DRAAdminAccess off, the refusal of the first request asking for admin access."""
        if self._gate("DRAAdminAccess"):
            return None
        for claim in claims:
            for request in ((claim.get("spec") or {}).get("devices") or {}).get("requests") or []:
                if (request.get("exactly") or {}).get("adminAccess"):
                    return Status.unresolvable(f"claim {_kobj(claim)}, request {request.get('name', '')}: "
                                               f"admin access is requested, but the feature is disabled")
        return None

    def _filter_extended(self, s: DRAState, pod, node) -> tuple[dict | None, list[dict], Status | None]:
        """``filterExtendedResources``: the node's version of the extended-resource claim (None
        when the node's device plugins serve every such request), its container request mappings,
        and a rejection."""
        claim = s.extended_claim()
        if claim is None:
            return None, [], None
        if ((claim.get("spec") or {}).get("devices") or {}).get("requests"):
            return None, [], Status.unresolvable("cannot schedule extended resource claim")
        allocatable = dict(node.status.allocatable) if node.status else {}
        via_dra: dict[str, int] = {}
        for name, quantity in s.pod_scalar.items():
            if not is_dra_extended_resource_name(name) or quantity == 0:
                continue
            q = allocatable.get(name)
            by_plugin = q is not None and q.value() > 0
            if name in s.resource_to_class:
                if not by_plugin:
                    via_dra[name] = quantity
            elif not by_plugin:
                return None, [], Status.unresolvable("cannot fit resource")
        if not via_dra:
            return None, [], None
        requests, mappings = device_requests_for(pod, via_dra, s.resource_to_class)
        node_claim = copy.deepcopy(claim)
        node_claim["spec"] = {"devices": {"requests": requests}}
        return node_claim, mappings, None

    # -- PostFilter ---------------------------------------------------------------------------------
    def post_filter(self, state, pod_info, diagnosis):
        """Deallocate one unavailable claim that no one else uses (or delete a stale
        extended-resource claim) so that the next attempt may allocate it elsewhere."""
        if not self.enabled:
            return None, Status.unschedulable("plugin disabled")
        s = self._state(state)
        if s is None or s.skipped:  # nothing of the pod is DRA's: a reason-less rejection, as upstream
            return None, Status(Code.Unschedulable)
        if s.empty():
            return None, Status.unschedulable("no new claims to deallocate")
        pod = pod_info.pod
        manager = self.manager
        ext = s.extended_claim()
        for i in sorted(s.unavailable):
            if i == s.extended_index:
                continue
            claim = s.claims[i]
            reserved = (claim.get("status") or {}).get("reservedFor") or []
            if not reserved or len(reserved) == 1 and (reserved[0].get("uid") or "") == (pod.metadata.uid or ""):
                updated = copy.deepcopy(claim)
                status = updated.setdefault("status", {})
                status["reservedFor"] = []
                status["allocation"] = None
                status["devices"] = []
                manager.update_claim(updated)
                return None, Status.unschedulable("deallocation of ResourceClaim completed")
        if ext is not None and (ext.get("metadata") or {}).get("name") != SPECIAL_CLAIM_IN_MEM_NAME:
            manager.delete_claim(ext)
            return None, Status.unschedulable("deletion of ResourceClaim completed")
        return None, Status.unschedulable("still not schedulable")

    # -- Score --------------------------------------------------------------------------------------
    def scores_nodes(self, state) -> bool:
        """Score may answer other than 0 in this cycle: DRAPrioritizedList is on and some claim of
        the pod has a ``firstAvailable`` request (otherwise ``computeScore`` is 0 on every node,
        and so is its normalization; the fused fast path leaves Score out then)."""
        s = self._state(state)
        if not self.enabled or not self._gate("DRAPrioritizedList") or s is None or s.empty():
            return False
        return any(request.get("firstAvailable") for claim in s.claims
                   for request in ((claim.get("spec") or {}).get("devices") or {}).get("requests") or [])

    def score_nodes(self, state, pod_info, snapshot, rows: np.ndarray) -> np.ndarray:
        """``8 - i`` for every allocated ``firstAvailable`` subrequest ``i`` (DRAPrioritizedList)."""
        out = np.zeros(len(rows), np.int64)
        if not self.scores_nodes(state):
            return out
        s = self._state(state)
        for k, row in enumerate(rows):
            found = self._node_allocation(s, snapshot.names[int(row)])
            if found is not None:
                out[k] = compute_score(s.claims, found.results)
        return out

    def normalize_score(self, state, pod_info, scores: np.ndarray) -> Status:
        """``DefaultNormalizeScore(100, false)``."""
        if self.enabled:
            default_normalize_score(100, False, scores)
        return Status()

    # -- Reserve / Unreserve ------------------------------------------------------------------------
    def reserve(self, state, pod_info, node_name: str) -> Status:
        """Assume the node's allocations: their devices are in use for every later pod."""
        if not self.enabled:
            return Status()
        s = self._state(state)
        if s is None or s.empty():
            return Status()
        to_allocate = s.to_allocate()
        if not to_allocate:
            return Status()
        if s.allocator is None:
            return Status()
        found = self._node_allocation(s, node_name)
        user_claims = any(i != s.extended_index for i, _ in to_allocate)
        if found is None or not found.results:
            if not user_claims:
                return Status()
            return Status.error("claim allocation not found for node")
        if len(found.results) != len(to_allocate):
            return Status.error(f"internal error, have {len(found.results)} allocations, "
                                f"{len(to_allocate)} claims to allocate, want {len(to_allocate)} claims")
        for k, (i, claim) in enumerate(to_allocate):
            allocation = found.results[k]
            if i == s.extended_index:
                if found.extended_claim is None:  # the node's device plugins serve the extended resources
                    continue
                claim = found.extended_claim
            s.infos[i].allocation = allocation
            # the claim as assumed: a copy of what changes (metadata, finalizers, status)
            meta = dict(claim.get("metadata") or {})
            finalizers = list(meta.get("finalizers") or [])
            if FINALIZER not in finalizers:
                finalizers.append(FINALIZER)
            meta["finalizers"] = finalizers
            claim = {**claim, "metadata": meta, "status": {**(claim.get("status") or {}), "allocation": allocation}}
            self.manager.signal_pending_allocation(claim)
            if i == s.extended_index:
                s.extended_in_flight = claim
        return Status()

    def unreserve(self, state, pod_info, node_name: str) -> None:
        """Forget in-flight allocations and drop the pod from ``reservedFor`` (idempotent)."""
        if not self.enabled:
            return
        s = self._state(state)
        if s is None or s.empty():
            return
        manager = self.manager
        pod = pod_info.pod
        for i, claim in enumerate(s.claims):
            if i == s.extended_index:
                continue
            manager.remove_pending_allocation(claim)
            current = manager.get_claim((claim.get("metadata") or {}).get("namespace") or "",
                                        (claim.get("metadata") or {}).get("name", ""))
            if current is not None and _allocation(current) is not None and is_reserved_for_pod(current, pod):
                current = copy.deepcopy(current)
                current["status"]["reservedFor"] = [r for r in current["status"].get("reservedFor") or []
                                                    if (r.get("uid") or "") != (pod.metadata.uid or "")]
                manager.update_claim(current)
        ext = s.extended_claim()
        if ext is None:
            return
        manager.remove_pending_allocation(ext)
        if s.extended_in_flight is not None:
            manager.remove_pending_allocation(s.extended_in_flight)
        if (ext.get("metadata") or {}).get("name") != SPECIAL_CLAIM_IN_MEM_NAME:
            manager.delete_claim(ext)

    # -- PreBind ------------------------------------------------------------------------------------
    def pre_bind_pre_flight(self, state, pod_info, node_name: str) -> Status:
        """PreBindPreFlight: Success when the pod has claims for PreBind to write, else Skip."""
        if not self.enabled:
            return Status.skip()
        s = self._state(state)
        if s is None or s.empty():
            return Status.skip()
        return Status()

    def pre_bind(self, state, pod_info, node_name: str) -> Status:
        """Write each claim's allocation and reservation, then wait for binding conditions."""
        if not self.enabled:
            return Status.skip()
        s = self._state(state)
        if s is None or s.empty():
            return Status.skip()
        pod = pod_info.pod
        group = self._claims_group(pod)
        for i, claim in enumerate(s.claims):
            if not is_reserved_for_pod(claim, pod, group if self._group_claim(pod, group, claim) else None):
                try:
                    s.claims[i] = self._bind_claim(s, i, pod, node_name, group)
                except ClaimError as err:
                    return Status.error(str(err))
        if not self._binding_enabled() or not has_binding_conditions(s.claims):
            return Status()
        extra = getattr(self.handle, "extra", None) or {}
        wait = extra.get("binding_conditions_wait")
        try:
            if self.pod_ready_for_binding(s):
                return Status()
            if extra.get("binding_waits") and "clock" in extra:
                # a simulation: wait on its clock, asked again every 5 s (poll_pre_bind)
                s.binding_wait_started = float(extra["clock"]())
                return Status(Code.Wait, (f"waiting for binding conditions for device on node {node_name}",))
            # no wall clock to poll on: a ``binding_conditions_wait(pod_info, timeout)`` hook (a simulation,
            # a test) may let drivers act; whatever it returns, the claims are checked once more
            if wait is not None:
                wait(pod_info, self.args.binding_timeout)
                if self.pod_ready_for_binding(s):
                    return Status()
        except ClaimError as err:
            return Status.error(str(err))
        return Status.error("device binding timeout")

    def poll_pre_bind(self, state, pod_info, node_name: str) -> Status:
        """One poll of the PreBind wait on the simulation clock (``wait.PollUntilContextTimeout``
        every :data:`BINDING_POLL_SECONDS`): ready -> Success; a failure condition or the claim's
        own timeout -> Error; ``bindingTimeout`` after the wait began -> ``device binding timeout``;
        else Wait."""
        s = self._state(state)
        now = float(self.handle.extra["clock"]())
        if now >= s.binding_wait_started + self.args.binding_timeout:
            return Status.error("device binding timeout")
        try:
            if self.pod_ready_for_binding(s):
                return Status()
        except ClaimError as err:
            return Status.error(str(err))
        return Status(Code.Wait, (f"waiting for binding conditions for device on node {node_name}",))

    def _claims_group(self, pod):
        """The pod's PodGroup when DRAWorkloadResourceClaims is on and the group has claims."""
        if not self._gate("DRAWorkloadResourceClaims"):
            return None
        group = pod_group_of(self.handle.cluster, pod)
        return group if group is not None and group.spec.resource_claims else None

    @staticmethod
    def _group_claim(pod, group, claim: dict) -> bool:
        """``claim`` is the one behind a pod claim that matches one of the group's claims."""
        if group is None:
            return False
        name = (claim.get("metadata") or {}).get("name")
        statuses = {st.name: st.resource_claim_name for st in pod.status.resource_claim_statuses}
        for pc in pod.spec.resource_claims:
            gc = matching_group_claim(group, pc)
            if gc is not None and (pc.resource_claim_name or statuses.get(pc.name)) == name:
                return True
        return False

    def _clock_now(self) -> datetime:
        """Now on the handle's clock (a simulation's virtual seconds), else the wall clock."""
        clock = (getattr(self.handle, "extra", None) or {}).get("clock")
        return _now() if clock is None else datetime.fromtimestamp(float(clock()), timezone.utc)

    def _bind_claim(self, s: DRAState, index: int, pod, node_name: str, group) -> dict:
        """``bindClaim``: store the allocation from Reserve (finalizer first) and add the pod (or
        ``group``, the pod's PodGroup with claims, for its claims) to ``reservedFor``; the
        extended-resource claim is created first. Returns the claim as written (the stored
        object's dump is made when some reader asks for it)."""
        manager = self.manager
        claim = original = s.claims[index]
        allocation = s.infos[index].allocation
        is_ext = index == s.extended_index
        if is_ext and allocation is None and not ((claim.get("spec") or {}).get("devices") or {}).get("requests"):
            return claim
        mappings: list[dict] = []
        try:
            if is_ext and (claim.get("metadata") or {}).get("name") == SPECIAL_CLAIM_IN_MEM_NAME:
                found = s.node_allocations.get(node_name)
                if found is None or found.extended_claim is None:
                    raise ClaimError(f"extended resource claim not found for node {node_name}")
                mappings = found.request_mappings
                claim = self._create_extended_claim(found.extended_claim, pod)
                s.claims[index] = claim
            meta = claim.get("metadata") or {}
            base = manager.claim_object(meta.get("namespace") or "", meta.get("name", ""))
            found = manager.claim_dict(meta.get("namespace") or "", meta.get("name", ""))
            if found is None:
                raise ClaimError(f"get updated claim {_kobj(claim)} after conflict: "
                                 f'resourceclaims.resource.k8s.io "{meta.get("name", "")}" not found')
            # the stored claim with new metadata and status dicts: what is changed below is replaced,
            # never changed in place (the rest stays the stored dump's own, which update_claim reuses)
            current = {**found, "metadata": dict(found.get("metadata") or {}), "status": dict(found.get("status") or {})}
            if current["metadata"].get("deletionTimestamp"):
                raise ClaimError(f"claim {_kobj(current)} got deleted in the meantime")
            status = current["status"]
            if allocation is not None:
                if status.get("allocation"):
                    raise ClaimError(f"claim {_kobj(current)} got allocated elsewhere in the meantime")
                finalizers = current["metadata"].get("finalizers") or []
                if FINALIZER not in finalizers:
                    current["metadata"]["finalizers"] = [*finalizers, FINALIZER]
                # stored through validation (a copy); only the timestamp below is added to it
                status["allocation"] = dict(allocation)
            status.setdefault("reservedFor", [])
            consumer = consumer_reference(group) if self._group_claim(pod, group, current) else {
                "resource": "pods", "name": pod.metadata.name, "uid": pod.metadata.uid or ""}
            if all((r.get("uid") or "") != consumer["uid"] for r in status["reservedFor"]):
                status["reservedFor"] = [*status["reservedFor"], consumer]
            if self._binding_enabled() and status.get("allocation") and not status["allocation"].get(
                    "allocationTimestamp"):
                status["allocation"] = {**status["allocation"],
                                        "allocationTimestamp": _seconds_stamp(self._clock_now())}
            manager.update_claim(current, base=base)  # (only the finalizers and the status changed)
            # what the cycle reads of the claim from here on (its identity for Unreserve and the
            # re-reads of the binding-conditions wait, its results' binding conditions) is the
            # written dict's: the stored object is dumped when some reader asks (``claim_dict``)
            stored = current
        finally:
            if allocation is not None:
                manager.remove_pending_allocation(original)
                manager.remove_pending_allocation(claim)
        if is_ext:
            pod.status.extended_resource_claim_status = PodExtendedResourceClaimStatus.model_validate(
                {"requestMappings": mappings, "resourceClaimName": stored["metadata"]["name"]})
        return stored

    def _create_extended_claim(self, node_claim: dict, pod) -> dict:
        """Create the pod's extended-resource claim in the cluster (generated name, seeded suffix)."""
        manager = self.manager
        claim = copy.deepcopy(node_claim)
        meta = claim["metadata"]
        base = meta.get("generateName") or ""
        rng = random.Random(f"kschedlab/ResourceClaim/{meta.get('namespace')}/{base}")
        while True:
            name = base + "".join(rng.choice(_NAME_ALPHABET) for _ in range(5))
            if manager.get_claim(meta.get("namespace") or "", name) is None:
                break
        meta["name"] = name
        meta["uid"] = f"{pod.metadata.uid or ''}-{name}"
        claim["status"] = {}
        manager.update_claim(claim)
        return manager.get_claim(meta.get("namespace") or "", name)

    # -- binding conditions ---------------------------------------------------------------------------
    def claim_ready_for_binding(self, claim: dict) -> bool:
        """``isClaimReadyForBinding``: every binding condition True; ClaimError when a binding
        failure condition is True."""
        allocation = _allocation(claim)
        if allocation is None:
            return False
        statuses = (claim.get("status") or {}).get("devices") or []
        for result in (allocation.get("devices") or {}).get("results") or []:
            if not result.get("bindingConditions"):
                continue
            device = next((d for d in statuses if d.get("device") == result.get("device") and
                           d.get("driver") == result.get("driver") and d.get("pool") == result.get("pool")), None)
            if device is None:
                return False
            conditions = {c.get("type"): c for c in device.get("conditions") or []}
            for name in result.get("bindingFailureConditions") or []:
                failed = conditions.get(name)
                if failed is not None and failed.get("status") == "True":
                    name_of = (claim.get("metadata") or {}).get("name", "")
                    raise ClaimError(f'claim {name_of} binding failed: reason={failed.get("reason") or ""}, '
                                     f'message="{failed.get("message") or ""}"')
            for name in result["bindingConditions"]:
                if (conditions.get(name) or {}).get("status") != "True":
                    return False
        return True

    def claim_timed_out(self, claim: dict, now: datetime | None = None) -> bool:
        """``isClaimTimeout``: allocated more than ``bindingTimeout`` ago with binding conditions."""
        if not self._binding_enabled():
            return False
        allocation = _allocation(claim)
        stamp = _parse_time(allocation.get("allocationTimestamp")) if allocation else None
        if stamp is None:
            return False
        now = now or self._clock_now()
        for result in (allocation.get("devices") or {}).get("results") or []:
            if result.get("bindingConditions") and stamp + timedelta(seconds=self.args.binding_timeout) < now:
                return True
        return False

    def pod_ready_for_binding(self, s: DRAState) -> bool:
        """``isPodReadyForBinding``: re-read every claim; ClaimError on failure or timeout."""
        manager = self.manager
        for i, claim in enumerate(s.claims):
            meta = claim.get("metadata") or {}
            current = manager.get_claim(meta.get("namespace") or "", meta.get("name", ""))
            if current is None:
                raise ClaimError(f'resourceclaim.resource.k8s.io "{meta.get("name", "")}" not found')
            s.claims[i] = current
            if not self.claim_ready_for_binding(current):
                if self.claim_timed_out(current):
                    raise ClaimError(f"claim {meta.get('name', '')} binding timeout")
                return False
        return True

    # -- QueueingHints --------------------------------------------------------------------------------
    def events_to_register(self):
        """Node added or relabelled / allocatable changed; a ResourceClaim added or updated (hint);
        the pod's generated claims listed in its status (hint); a DeviceClass or ResourceSlice
        added or updated."""
        if not self.enabled:
            return []
        node_actions = ActionType.Add | ActionType.UpdateNodeLabel | ActionType.UpdateNodeAllocatable
        return [
            (ClusterEvent(NODE, node_actions), None),
            (ClusterEvent(RESOURCE_CLAIM, ActionType.Add | ActionType.Update), self.after_claim_change),
            (ClusterEvent(POD, ActionType.UpdatePodGeneratedResourceClaim), self.after_pod_change),
            (ClusterEvent(DEVICE_CLASS, ActionType.Add | ActionType.Update), None),
            (ClusterEvent(RESOURCE_SLICE, ActionType.Add | ActionType.Update), None),
        ]

    def after_claim_change(self, pod_info, old_obj, new_obj) -> QueueingHint:
        """``isSchedulableAfterClaimChange``: Queue when a claim got deallocated, or a claim of the
        pod was created or its status changed; QueueSkip otherwise."""
        original, modified = as_objects(old_obj, new_obj, "ResourceClaim")
        if modified is None:
            raise HintError("expected a new *v1.ResourceClaim")
        new = as_dict(modified)
        old = as_dict(original) if original is not None else None
        pod = pod_of(pod_info)
        try:
            uses = any(claim_identity(c) == claim_identity(new) for c in pod_claims(self.manager, pod))
        except ClaimError:
            return SKIP
        if old is not None and _allocation(old) is not None and _allocation(new) is None:
            return QUEUE
        if not uses:
            return SKIP
        if old is None:
            return QUEUE
        if (old.get("status") or {}) == (new.get("status") or {}):
            return SKIP
        return QUEUE

    def after_pod_change(self, pod_info, old_obj, new_obj) -> QueueingHint:
        """``isSchedulableAfterPodChange``: the pod itself now lists all its claims."""
        _, modified = as_objects(None, new_obj, "Pod")
        if modified is None:
            raise HintError("expected a new *v1.Pod")
        pod = pod_of(pod_info)
        if (pod.metadata.uid or pod.metadata.name) != (modified.metadata.uid or modified.metadata.name):
            return SKIP
        try:
            pod_claims(self.manager, modified)
        except ClaimError:
            return SKIP
        return QUEUE


# -- helpers shared with tests --------------------------------------------------------------------------
def device_requests_for(pod, via_dra: dict[str, int], mapping: dict[str, str]) -> tuple[list[dict], list[dict]]:
    """``createDeviceRequests`` and ``createRequestMappings``: one ExactCount request
    ``container-<i>-request-<j>`` per (container, extended resource served by DRA), ``i`` the
    container's index among init then regular containers, ``j`` the resource's index among the
    container's sorted request names; and the container -> request mappings for the pod status.

    >>> from kschedlab.api.core import Pod
    >>> pod = Pod.model_validate({"spec": {"containers": [{"name": "c", "resources": {"requests": {
    ...     "example.com/gpu": "2", "cpu": "1"}}}]}})
    >>> reqs, maps = device_requests_for(pod, {"example.com/gpu": 2}, {"example.com/gpu": "gpu"})
    >>> reqs[0]["name"], reqs[0]["exactly"]["count"], maps[0]["containerName"]
    ('container-0-request-1', 2, 'c')
    """
    requests, mappings = [], []
    containers = [*pod.spec.init_containers, *pod.spec.containers]
    for i, container in enumerate(containers):
        creqs = dict(container.resources.requests) if container.resources else {}
        keys = sorted(creqs)
        for j, name in enumerate(keys):
            if name not in via_dra or not mapping.get(name):
                continue
            count = creqs[name].value()
            if count == 0:
                continue
            rname = f"container-{i}-request-{j}"
            requests.append({"name": rname, "exactly": {"deviceClassName": mapping[name],
                                                       "allocationMode": "ExactCount", "count": count}})
            mappings.append({"containerName": container.name or "", "resourceName": name, "requestName": rname})
    return requests, mappings


def compute_score(claims: list[dict], results: list[dict]) -> int:
    """``computeScore``: for every claim (allocated ones use their own allocation, the others the
    node's results in order), ``8 - i`` per allocated subrequest ``i`` of a ``firstAvailable``.

    >>> claim = {"spec": {"devices": {"requests": [{"name": "r", "firstAvailable": [{"name": "a"}, {"name": "b"}]}]}}}
    >>> compute_score([claim], [{"devices": {"results": [{"request": "r/b"}]}}])
    7
    """
    score = 0
    k = 0
    for claim in claims:
        allocation = _allocation(claim)
        if allocation is None:
            if k >= len(results):
                break
            allocation = results[k]
            k += 1
        chosen = {r.get("request") for r in (allocation.get("devices") or {}).get("results") or []
                  if "/" in (r.get("request") or "")}
        for request in ((claim.get("spec") or {}).get("devices") or {}).get("requests") or []:
            if request.get("exactly") is not None:
                continue
            for i, sub in enumerate(request.get("firstAvailable") or []):
                if f"{request.get('name', '')}/{sub.get('name', '')}" in chosen:
                    score += FIRST_AVAILABLE_DEVICE_REQUEST_MAX_SIZE - i
    return score


def _seconds_stamp(dt: datetime) -> str:
    """``dt.strftime("%Y-%m-%dT%H:%M:%SZ")`` (RFC 3339 to the second), formatted directly for a
    four-digit year.

    >>> _seconds_stamp(datetime(2026, 12, 6, 9, 5, 7, 999, timezone.utc))
    '2026-12-06T09:05:07Z'
    """
    if dt.year < 1000:  # (strftime's %Y does not pad these everywhere)
        return dt.strftime("%Y-%m-%dT%H:%M:%SZ")
    return f"{dt.year}-{dt.month:02d}-{dt.day:02d}T{dt.hour:02d}:{dt.minute:02d}:{dt.second:02d}Z"


def _names_requested(spec) -> set[str]:
    """The resource names ``pod_requests`` may sum for a pod of ``spec``: those its containers,
    init containers, pod-level resources and overhead request (a name whose request is 0
    included).

    >>> from kschedlab.api.core import PodSpec
    >>> sorted(_names_requested(PodSpec(containers=[{"name": "c", "resources": {"requests": {"example.com/gpu": "1"}}}],
    ...                                 overhead={"cpu": "10m"})))
    ['cpu', 'example.com/gpu']
    """
    names: set[str] = set()
    for container in (*spec.containers, *spec.init_containers):
        if container.resources is not None:
            names.update(container.resources.requests)
    level = getattr(spec, "resources", None)
    if level is not None and level.requests:
        names.update(level.requests)
    if spec.overhead:
        names.update(spec.overhead)
    return names


def has_binding_conditions(claims: list[dict]) -> bool:
    """``hasBindingConditions``: some allocated device of some claim has binding conditions."""
    for claim in claims:
        allocation = _allocation(claim)
        results = ((allocation or {}).get("devices") or {}).get("results") or []
        if any(r.get("bindingConditions") for r in results):
            return True
    return False

