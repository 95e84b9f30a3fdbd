"""NodeResourcesFit: the pod's requests must fit the node's free allocatable
resources (Filter); nodes are scored by a scoring strategy (LeastAllocated,
MostAllocated or RequestedToCapacityRatio)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kschedlab.api.labels import is_qualified_name
from kschedlab.api.resource_names import is_extended_resource_name
from kschedlab.api.resources import CPU, EPHEMERAL_STORAGE, MEMORY, PODS, pod_requests, resource_list
from kschedlab.framework.events import QUEUE, SKIP, HintError, QueueingHint, as_objects, event_only, pod_of, same_pod
from kschedlab.framework.interface import ArgsError, FieldError, Plugin, Verdicts, register
from kschedlab.framework.status import Code, Status
from kschedlab.framework.types import cache_owner
from kschedlab.plugins import resource_allocation as ra

NAME = "NodeResourcesFit"
LEAST_ALLOCATED = "LeastAllocated"
MOST_ALLOCATED = "MostAllocated"
REQUESTED_TO_CAPACITY_RATIO = "RequestedToCapacityRatio"
STRATEGIES = (LEAST_ALLOCATED, MOST_ALLOCATED, REQUESTED_TO_CAPACITY_RATIO)
MAX_CUSTOM_PRIORITY_SCORE = 10
TOO_MANY_PODS = "Too many pods"
NATIVE = (CPU, MEMORY, EPHEMERAL_STORAGE)


@dataclass
class FitArgs:
    ignored_resources: set[str] = field(default_factory=set)
    ignored_resource_groups: set[str] = field(default_factory=set)
    strategy: str = LEAST_ALLOCATED
    resources: list[tuple[str, int]] = field(default_factory=lambda: [(CPU, 1), (MEMORY, 1)])
    shape: list[tuple[int, int]] = field(default_factory=list)


#: ``resourceapi.ResourceDeviceClassPrefix``: the implicit extended resource name of a DeviceClass
IMPLICIT_EXTENDED_RESOURCE_PREFIX = "deviceclass.resource.kubernetes.io/"


def is_dra_extended_resource_name(name: str) -> bool:
    """``resourcehelper.IsDRAExtendedResourceName``: an extended resource name, or a DeviceClass's
    implicit one (``deviceclass.resource.kubernetes.io/<class>``, which the kubernetes.io prefix
    keeps out of :func:`is_extended_resource_name`).

    >>> is_dra_extended_resource_name("deviceclass.resource.kubernetes.io/gpu.example.com")
    True
    >>> is_extended_resource_name("deviceclass.resource.kubernetes.io/gpu.example.com")
    False
    >>> is_dra_extended_resource_name("example.com/gpu"), is_dra_extended_resource_name("cpu")
    (True, False)
    """
    return is_extended_resource_name(name) or name.startswith(IMPLICIT_EXTENDED_RESOURCE_PREFIX)


def validate_fit_args(raw: dict) -> tuple[FitArgs, list[FieldError]]:
    errors: list[FieldError] = []
    args = FitArgs()
    for i, res in enumerate(raw.get("ignoredResources") or []):
        if not is_qualified_name(res):
            errors.append(FieldError("FieldValueInvalid", f"ignoredResources[{i}]", res))
        args.ignored_resources.add(res)
    for i, group in enumerate(raw.get("ignoredResourceGroups") or []):
        if "/" in group:
            errors.append(FieldError("FieldValueInvalid", f"ignoredResourceGroups[{i}]",
                                     "resource group name can't contain '/'"))
        if not is_qualified_name(group):
            errors.append(FieldError("FieldValueInvalid", f"ignoredResourceGroups[{i}]", group))
        args.ignored_resource_groups.add(group)
    strategy = raw.get("scoringStrategy")
    if strategy is not None:
        args.strategy = strategy.get("type") or ""
        if args.strategy not in STRATEGIES:
            errors.append(FieldError("FieldValueNotSupported", "scoringStrategy.type", args.strategy))
        args.resources = [(r.get("name", ""), int(r.get("weight", 0))) for r in strategy.get("resources") or []]
        errors += ra.validate_resources(args.resources, "scoringStrategy.resources", max_weight=100)
        rtcr = strategy.get("requestedToCapacityRatio")
        if rtcr is not None:
            args.shape = [(int(p.get("utilization", 0)), int(p.get("score", 0))) for p in rtcr.get("shape") or []]
            errors += validate_shape(args.shape, "scoringStrategy.shape")
    return args, errors


def validate_shape(shape: list[tuple[int, int]], path: str) -> list[FieldError]:
    if not shape:
        return [FieldError("FieldValueRequired", path, "at least one point must be specified")]
    errors = []
    for i in range(1, len(shape)):
        if shape[i - 1][0] >= shape[i][0]:
            errors.append(FieldError("FieldValueInvalid", f"{path}[{i}].utilization",
                                     "utilization values must be sorted in increasing order"))
            break
    for i, (util, score) in enumerate(shape):
        if not 0 <= util <= 100:
            errors.append(FieldError("FieldValueInvalid", f"{path}[{i}].utilization", "not in valid range [0, 100]"))
        if not 0 <= score <= MAX_CUSTOM_PRIORITY_SCORE:
            errors.append(FieldError("FieldValueInvalid", f"{path}[{i}].score",
                                     f"not in valid range [0, {MAX_CUSTOM_PRIORITY_SCORE}]"))
    return errors


def default_fit_args(raw: dict) -> dict:
    """v1 defaulting (``SetDefaults_NodeResourcesFitArgs``) of args from a KubeSchedulerConfiguration."""
    raw = dict(raw or {})
    strategy = dict(raw.get("scoringStrategy") or {"type": LEAST_ALLOCATED})
    strategy["resources"] = ra.default_resource_specs(strategy.get("resources"))
    raw["scoringStrategy"] = strategy
    return raw


@register
class NodeResourcesFit(Plugin):
    name = NAME
    default_args = staticmethod(default_fit_args)

    @classmethod
    def parse_args(cls, raw, handle=None) -> FitArgs:
        args, errors = validate_fit_args(raw or {})
        if errors:
            raise ArgsError(NAME, errors)
        return args

    def __init__(self, args=None, handle=None):
        super().__init__(args or FitArgs(), handle)
        self._checked_key = (NAME, "checked", cache_owner())
        a = self.args
        if a.strategy == LEAST_ALLOCATED:
            scorer = ra.least_allocated
        elif a.strategy == MOST_ALLOCATED:
            scorer = ra.most_allocated
        else:
            scorer = ra.requested_to_capacity_ratio(
                [(u, s * (100 // MAX_CUSTOM_PRIORITY_SCORE)) for u, s in a.shape])
        self.scorer = ra.ResourceAllocationScorer(a.resources, scorer, use_requested=False)

    def events_to_register(self):
        """``EventsToRegister``: a bound pod deleted, a node added or its allocatable changed; with
        DRAExtendedResource a DeviceClass added/updated; with InPlacePodVerticalScaling a bound pod
        or the pod itself scaled down."""
        from kschedlab.framework.events import ASSIGNED_POD, DEVICE_CLASS, NODE, TARGET_POD, ActionType, ClusterEvent

        gates = getattr(self.handle, "gates", None)

        def enabled(name: str) -> bool:
            return gates.enabled(name) if gates is not None else True

        events = [(ClusterEvent(ASSIGNED_POD, ActionType.Delete), fit_after_assigned_pod_delete),
                  (ClusterEvent(NODE, ActionType.Add | ActionType.UpdateNodeAllocatable), fit_after_node_change)]
        if enabled("DRAExtendedResource"):
            events.append((ClusterEvent(DEVICE_CLASS, ActionType.Add | ActionType.Update), fit_after_device_class_event))
        if enabled("InPlacePodVerticalScaling"):
            events.append((ClusterEvent(ASSIGNED_POD, ActionType.UpdatePodScaleDown), fit_after_assigned_pod_scale_down))
            events.append((ClusterEvent(TARGET_POD, ActionType.UpdatePodScaleDown), fit_after_target_pod_scale_down))
        return events

    def sign_pod(self, pod_info):
        """Signature: the pod's requests; unsignable while DRAExtendedResource is on."""
        return ra.sign_resources(self.handle, pod_info)

    # -- filtering -------------------------------------------------------------------
    def pre_filter(self, state, pod_info, snapshot):
        state[NAME] = pod_info.requests
        return None, Status()

    def _ignored(self, name: str) -> bool:
        if not is_extended_resource_name(name):
            return False
        return name in self.args.ignored_resources or name.split("/", 1)[0] in self.args.ignored_resource_groups

    def insufficient(self, pod_info, snapshot, rows: np.ndarray) -> list[tuple[str, np.ndarray, np.ndarray]]:
        """(reason, short-of-it mask, exceeds-allocatable mask) for each resource, upstream order."""
        requests = pod_info.requests
        out = []
        pods_col = snapshot.res_index[PODS]
        alloc_pods = snapshot.allocatable[pods_col].take(rows)
        never = np.zeros(len(rows), bool)
        out.append((TOO_MANY_PODS, snapshot.pod_count.take(rows) + 1 > alloc_pods, never))
        names = self.checked_resources(pod_info)
        if not names:
            return out
        zeros = None
        dra_classes = self.dra_served(names)
        for name in names:
            col = snapshot.res_index.get(name)
            if col is None:  # no node has or uses this resource
                alloc = free = zeros = np.zeros(len(rows), np.int64) if zeros is None else zeros
            else:
                alloc = snapshot.allocatable[col].take(rows)
                free = alloc - snapshot.requested[col].take(rows)
            want = requests[name]
            lacking, exceeds = want > free, want > alloc
            if name in dra_classes:  # a node without it in allocatable leaves it to DynamicResources
                lacking, exceeds = lacking & (alloc != 0), exceeds & (alloc != 0)
            out.append((f"Insufficient {name}", lacking, exceeds))
        return out

    def checked_resources(self, pod_info) -> list[str]:
        """The resources the pod asks for, in the order Fits checks them (native ones, then the
        others sorted, ignored ones left out); computed once per pod."""
        key = self._checked_key
        names = pod_info.cache.get(key)
        if names is None:
            requests = pod_info.requests
            names = []
            if any(requests.values()):
                names = [r for r in NATIVE if requests.get(r, 0) > 0]
                names += sorted(r for r, v in requests.items() if r not in NATIVE and r != PODS and v
                                and not self._ignored(r))
            pod_info.cache[key] = names
        return names

    def dra_served(self, names: list[str]) -> set[str]:
        """The extended resources among ``names`` a DeviceClass serves (DRAExtendedResource)."""
        gates = getattr(self.handle, "gates", None)
        cluster = getattr(self.handle, "cluster", None)
        if gates is None or cluster is None or not cluster.objects.get("DeviceClass") or \
                not gates.enabled("DRAExtendedResource"):
            return set()
        candidates = [n for n in names if is_dra_extended_resource_name(n)]
        if not candidates:
            return set()
        from kschedlab.dra.manager import dra_manager

        mapping = dra_manager(cluster).extended_resource_mapping()
        return {n for n in candidates if n in mapping}

    def filter_nodes(self, state, pod_info, snapshot, rows: np.ndarray) -> Verdicts:
        checks = self.insufficient(pod_info, snapshot, rows)
        failed = checks[0][1]
        for _, lacking, _ in checks[1:]:
            failed = failed | lacking
        if not failed.any():
            return Verdicts.passing(len(rows))
        short = np.zeros((len(checks), len(rows)), bool)
        hopeless = np.zeros(len(rows), bool)
        for i, (_, lacking, exceeds) in enumerate(checks):
            short[i] = lacking
            hopeless |= lacking & exceeds
        failed = short.any(axis=0)
        if not failed.any():
            return Verdicts.passing(len(rows))
        # nodes failing on the same set of resources share one reason tuple
        weights = (1 << np.arange(len(checks), dtype=np.int64))
        signature = weights @ short
        table: dict[int, int] = {}
        reasons: list[tuple[str, ...]] = []
        reason_idx = np.full(len(rows), -1, np.int32)
        for sig in np.flatnonzero(np.bincount(signature[failed])).tolist():  # (the distinct ones, in order)
            table[sig] = len(reasons)
            reasons.append(tuple(checks[i][0] for i in range(len(checks)) if sig >> i & 1))
            reason_idx[signature == sig] = table[sig]
        codes = np.where(failed, np.where(hopeless, Code.UnschedulableAndUnresolvable, Code.Unschedulable), 0)
        return Verdicts(codes.astype(np.int8), reason_idx, reasons)

    def insufficient_resources(self, pod_info, snapshot, row: int) -> list[dict]:
        """Upstream's ``InsufficientResource`` list for one node (units: millicores, bytes)."""
        rows = np.asarray([row])
        out = []
        for reason, lacking, exceeds in self.insufficient(pod_info, snapshot, rows):
            if not lacking[0]:
                continue
            name = PODS if reason == TOO_MANY_PODS else reason.removeprefix("Insufficient ")
            col = snapshot.res_index.get(name)
            used = int(snapshot.pod_count[row]) if name == PODS else (
                0 if col is None else int(snapshot.requested[col, row]))
            out.append({"resourceName": name, "reason": reason,
                        "requested": 1 if name == PODS else pod_info.requests[name],
                        "used": used, "capacity": 0 if col is None else int(snapshot.allocatable[col, row]),
                        "unresolvable": bool(exceeds[0])})
        return out

    # -- scoring ---------------------------------------------------------------------
    def pre_score(self, state, pod_info, snapshot, rows) -> Status:
        state[NAME + "/score"] = self.scorer.requests_of(pod_info)
        state[NAME + "/dra"] = ra.dra_extended_totals(self.handle, self.scorer.names)
        return Status()

    def score_nodes(self, state, pod_info, snapshot, rows: np.ndarray) -> np.ndarray:
        if not self.scorer.names:
            raise ValueError("resources not found")
        requests = state.get(NAME + "/score") or self.scorer.requests_of(pod_info)
        dra = state[NAME + "/dra"] if NAME + "/dra" in state else ra.dra_extended_totals(self.handle, self.scorer.names)
        return self.scorer.score(requests, snapshot, rows, dra)

    # -- PlacementScore (TopologyAwareWorkloadScheduling) -----------------------------
    def score_placement(self, state, group, assignments) -> tuple[int, Status]:
        """Bin-packing of a whole placement: MostAllocated over the placement's summed
        allocatable and requested resources (what its nodes run plus the proposed pods), with
        this plugin's resource weights, whatever its per-node scoring strategy."""
        snapshot = self.handle.cluster.snapshot
        rows = assignments.placement.rows
        want = np.zeros(len(self.scorer.names), np.int64)
        for pod_info, _node in assignments.proposed:
            want += np.asarray(self.scorer.requests_of(pod_info), np.int64)
        _, allocated, allocatable = self.scorer.matrices([0] * len(self.scorer.names), snapshot, rows)
        requested = allocated.sum(axis=1) + want
        score = ra.most_allocated(requested[:, None], None, allocatable.sum(axis=1)[:, None], self.scorer.weights)
        return int(score[0]), Status()


# -- QueueingHints: events that may make a pod this plugin rejected schedulable -------------------


def _fit_requests(pod) -> dict[str, int]:
    """The requests Fits compares (``computePodResourceRequest``): the pods count is not a request."""
    return {name: value for name, value in pod_requests(pod).items() if name != PODS}


def _allocatable(node) -> dict[str, int]:
    return resource_list(node.status.allocatable) if node.status else {}


def is_fit(pod, node) -> bool:
    """``isFit``: the pod fits an otherwise empty ``node`` (no ignored resources)."""
    if node is None:
        return False
    alloc = _allocatable(node)
    if 1 > alloc.get(PODS, 0):
        return False
    for name, want in _fit_requests(pod_of(pod)).items():
        if want > 0 and want > alloc.get(name, 0):
            return False
    return True


def have_any_requested_resources_increased(pod, original_node, modified_node) -> bool:
    """``haveAnyRequestedResourcesIncreased``: more allowed pods, or more allocatable of a
    resource the pod requests."""
    old, new = _allocatable(original_node), _allocatable(modified_node)
    if new.get(PODS, 0) > old.get(PODS, 0):
        return True
    requests = _fit_requests(pod_of(pod))
    if not any(requests.values()):
        return False
    for name, want in requests.items():
        if want and new.get(name, 0) > old.get(name, 0):
            return True
    return False


def fit_after_node_change(pod_info, old_obj, new_obj) -> QueueingHint:
    """The node hint of NodeResourcesFit: Queue for an added node the pod fits when empty, or an update
    that keeps it fitting and grows the allocatable of a requested resource (or the pod count)."""
    original, modified = as_objects(old_obj, new_obj, "Node")
    if modified is None:
        raise HintError("expected a new *v1.Node")
    pod = pod_of(pod_info)
    if not is_fit(pod, modified):
        return SKIP
    if original is None:
        return QUEUE
    if not have_any_requested_resources_increased(pod, original, modified):
        return SKIP
    return QUEUE


@event_only
def fit_after_assigned_pod_delete(pod_info, old_obj, new_obj) -> QueueingHint:
    """``isSchedulableAfterAssignedPodDelete``: Queue when the deleted pod was bound or nominated
    (whatever the rejected pod asks for: one answer per deletion)."""
    deleted, _ = as_objects(old_obj, new_obj, "Pod")
    if deleted is None:
        raise HintError("expected a deleted *v1.Pod")
    if not deleted.spec.node_name and not (deleted.status.nominated_node_name if deleted.status else None):
        return SKIP
    return QUEUE


def _scale_down_frees(target, original, modified) -> bool:
    """A scheduled pod's requests went down in a resource the target pod requests."""
    if not modified.spec.node_name:
        return False
    before, after = pod_requests(original), pod_requests(modified)
    for name, want in pod_requests(target).items():
        if not want or name == PODS:
            continue
        if name in (CPU, MEMORY, EPHEMERAL_STORAGE) or "/" in name or name.startswith("hugepages-"):
            if before.get(name, 0) > after.get(name, 0):
                return True
    return False


def fit_after_pod_event(pod_info, old_obj, new_obj) -> QueueingHint:
    """``isSchedulableAfterPodEvent`` (InPlacePodVerticalScaling on): a bound pod deleted, a bound
    pod scaled down in a resource the pod requests, or the pod itself scaled down."""
    original, modified = as_objects(old_obj, new_obj, "Pod")
    if original is None:
        raise HintError("expected an old *v1.Pod")
    target = pod_of(pod_info)
    if modified is None:
        return fit_after_assigned_pod_delete(pod_info, original, None)
    if same_pod(modified, target) or _scale_down_frees(target, original, modified):
        return QUEUE
    return SKIP


def fit_after_assigned_pod_scale_down(pod_info, old_obj, new_obj) -> QueueingHint:
    """A bound pod's requests went down in a resource the rejected pod requests."""
    original, modified = as_objects(old_obj, new_obj, "Pod")
    if original is None or modified is None:
        raise HintError("expected old and new *v1.Pod")
    return QUEUE if _scale_down_frees(pod_of(pod_info), original, modified) else SKIP


def fit_after_target_pod_scale_down(pod_info, old_obj, new_obj) -> QueueingHint:
    """The rejected pod itself asks for less."""
    _, modified = as_objects(old_obj, new_obj, "Pod")
    if modified is None:
        raise HintError("expected a new *v1.Pod")
    return QUEUE if same_pod(modified, pod_of(pod_info)) else SKIP


def fit_after_device_class_event(pod_info, old_obj, new_obj) -> QueueingHint:
    """``isSchedulableAfterDeviceClassEvent``: a DeviceClass now maps an extended resource the pod
    requests (its explicit ``extendedResourceName``, or, for an added class, the implicit
    ``deviceclass.resource.kubernetes.io/<class>``)."""
    original, modified = as_objects(old_obj, new_obj, "DeviceClass")
    if modified is None:
        raise HintError("expected a new DeviceClass")
    new_name = _extended_resource_name(modified)
    if original is not None and _extended_resource_name(original) == new_name:
        return SKIP
    requested = {n for n, v in pod_requests(pod_of(pod_info)).items() if v}
    if new_name is not None and new_name in requested:
        return QUEUE
    if original is None and IMPLICIT_EXTENDED_RESOURCE_PREFIX + (modified.metadata.name or "") in requested:
        return QUEUE
    return SKIP


def _extended_resource_name(device_class: Any) -> str | None:
    spec = getattr(device_class, "spec", None)
    return getattr(spec, "extended_resource_name", None) if spec is not None else None
