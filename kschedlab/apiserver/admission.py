"""What the API server does to objects on create, as pure functions.

:func:`admit` takes loaded objects and returns admitted copies (the inputs are
not changed). For pods it applies, in the API server's order:

1. defaulting: namespace ``default``, ``schedulerName: default-scheduler``,
   requests defaulted from limits per container, pod-level resource defaults,
   ``hostPort`` = ``containerPort`` under ``hostNetwork``, resource quantities
   rounded up to milli units;
2. (in :func:`admit`) the mutating LimitRanger: the defaults of the namespace's
   LimitRanges for containers without requests or limits (:mod:`kschedlab.api.limitrange`);
3. the pod strategy on create: ``status.phase`` Pending (for unbound pods, or
   when unset), ``status.qosClass`` (of the requests LimitRanger set), the
   ``SchedulingGated`` condition, ``matchLabelKeys``/``mismatchLabelKeys`` merged
   into label selectors;
4. admission plugins: Priority, DefaultTolerationSeconds, RuntimeClass;
5. a subset of pod validation that matters to scheduling;
6. (in :func:`admit`) the validating LimitRanger (min / max / maxLimitRequestRatio), then
   the ResourceQuota plugin: pods are charged to the ResourceQuotas of
   their namespace in list order, overhead included (:mod:`kschedlab.api.resourcequota`);
   pods that exist already (bound, or read back with a resourceVersion) only count.

A pod read back from an API server (it has ``metadata.resourceVersion``, as every
object of a ``kubectl get -o yaml`` dump does; :func:`is_stored`) is not created
again: steps 2 to 4 and the LimitRanger of step 6 are skipped (its priority, preemption policy, tolerations,
overhead and merged selectors are the ones stored, even when its PriorityClass is
not in the dump), except that a missing ``spec.priority``, ``status.phase`` or
``status.qosClass`` is filled in.

PriorityClasses, RuntimeClasses, LimitRanges and ResourceQuotas are taken from the same
list (plus the two built-in system classes). Errors are :class:`ManifestError` naming the
file, the object and the field; when any object is refused nothing is returned, unless the
caller asks for ``kubectl apply``'s way (``refused=[]``: the refused objects are left out).

>>> from kschedlab.api.loader import load_text
>>> objs = admit(load_text('''
... apiVersion: scheduling.k8s.io/v1
... kind: PriorityClass
... metadata: {name: high}
... value: 1000
... ---
... apiVersion: v1
... kind: Pod
... metadata: {name: web-0}
... spec:
...   priorityClassName: high
...   containers: [{name: app, resources: {limits: {cpu: "1", memory: 1Gi}}}]
... '''))
>>> pod = objs[1]
>>> pod.key, pod.spec.priority, pod.spec.scheduler_name, pod.status.qos_class
('default/web-0', 1000, 'default-scheduler', 'Guaranteed')
>>> str(pod.spec.containers[0].resources.requests["cpu"])
'1'
>>> [(t.key, t.toleration_seconds) for t in pod.spec.tolerations]
[('node.kubernetes.io/not-ready', 300), ('node.kubernetes.io/unreachable', 300)]
"""

from __future__ import annotations

import hashlib
import random
import uuid
from typing import Any, Iterable, Mapping

from ..api.core import (
    Container,
    LabelSelector,
    LabelSelectorRequirement,
    Namespace,
    Node,
    Pod,
    PodAffinityTerm,
    PodCondition,
    ResourceRequirements,
    Toleration,
    compute_pod_qos,
)
from ..api.errors import Key, ManifestError, format_path
from ..api.limitrange import LimitRange, LimitRanger, default_limit_range, limit_range_errors
from ..api.meta import KubeObject, TypedObject
from ..api.node import RuntimeClass
from ..api.node_declared_features import validate_declared_features
from ..api.persistentvolume import PersistentVolumeClaim
from ..api.quantity import Quantity
from ..api.resource_names import (
    is_extended_resource_name,
    is_hugepage_resource_name,
    is_integer_resource_name,
    is_native_resource,
    is_overcommit_allowed,
    is_standard_container_resource_name,
    is_standard_resource_name,
)
from ..api.resources import aggregate_containers
from ..api.scheduling import PriorityClass, system_priority_classes
from ..api.tolerations import validate_tolerations
from ..api.validation import qualified_name_errors
from .apply import NOT_SERVED, Refusal
from .priorityclass import PREEMPT_LOWER_PRIORITY, admitted_priority

__all__ = [
    "admit",
    "is_stored",
    "admit_pod",
    "default_pod",
    "default_tolerations",
    "merge_tolerations",
    "validate_pod",
    "limit_pod_hard_anti_affinity_topology",
    "LIMIT_POD_HARD_ANTI_AFFINITY_TOPOLOGY",
    "DEFAULT_FEATURE_GATES",
    "DEFAULT_SCHEDULER_NAME",
    "DEFAULT_NAMESPACE",
    "DEFAULT_TOLERATION_SECONDS",
]

DEFAULT_SCHEDULER_NAME = "default-scheduler"
DEFAULT_NAMESPACE = "default"
DEFAULT_TOLERATION_SECONDS = 300
TAINT_NODE_NOT_READY = "node.kubernetes.io/not-ready"
TAINT_NODE_UNREACHABLE = "node.kubernetes.io/unreachable"
LABEL_METADATA_NAME = "kubernetes.io/metadata.name"
HUGEPAGES_PREFIX = "hugepages-"

DEFAULT_FEATURE_GATES: dict[str, bool] = {
    "PodLevelResources": True,
    "MatchLabelKeysInPodAffinity": True,
    "MatchLabelKeysInPodTopologySpread": True,
    "MatchLabelKeysInPodTopologySpreadSelectorMerge": True,
    "GenericWorkload": False,
}
"""Gates (at their v1.37 defaults) that change what admission does."""

# messages, as the API server words them
MSG_PRIORITY_MISMATCH = (
    "the integer value of priority ({given}) must not be provided in pod spec; "
    "priority admission controller computed {computed} from the given PriorityClass name"
)
MSG_PREEMPTION_MISMATCH = (
    "the string value of PreemptionPolicy ({given}) must not be provided in pod spec; "
    "priority admission controller computed {computed} from the given PriorityClass name"
)
MSG_RUNTIME_CLASS_NOT_FOUND = 'pod rejected: RuntimeClass "{name}" not found'
MSG_OVERHEAD_MISMATCH = "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead"
MSG_OVERHEAD_WITHOUT_CLASS = "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead"
MSG_NODE_SELECTOR_CONFLICT = (
    "conflict: runtimeClass.scheduling.nodeSelector[{key}] = {rc}; pod.spec.nodeSelector[{key}] = {pod}"
)
MSG_SCHEDULING_GATED = "Scheduling is blocked due to non-empty scheduling gates"


class _Errors:
    """Collects field errors for one object."""

    def __init__(self, obj: TypedObject) -> None:
        self.file = obj.source_file
        self.obj = obj.describe()
        self.items: list[ManifestError] = []

    def add(self, path: Iterable[Any] | str | None, message: str) -> None:
        p = path if isinstance(path, str) or path is None else format_path(path)
        self.items.append(ManifestError(message, file=self.file, obj=self.obj, path=p))


def _q(v: Any) -> str:
    return f'"{v}"' if isinstance(v, (str, Quantity)) else str(v)


# ----------------------------------------------------------------- tolerations


def _tol_equal(a: Toleration, b: Toleration) -> bool:
    return (
        (a.key or "") == (b.key or "")
        and (a.operator or "") == (b.operator or "")
        and (a.value or "") == (b.value or "")
        and (a.effect or "") == (b.effect or "")
        and a.toleration_seconds == b.toleration_seconds
    )


def _is_superset(ss: Toleration, t: Toleration) -> bool:
    # whether ss tolerates everything t does
    if _tol_equal(ss, t):
        return True
    if (t.key or "") != (ss.key or "") and ((ss.key or "") != "" or ss.operator != "Exists"):
        return False
    if (t.effect or "") != (ss.effect or "") and (ss.effect or "") != "":
        return False
    if ss.effect == "NoExecute" and ss.toleration_seconds is not None:
        if t.toleration_seconds is None or t.toleration_seconds > ss.toleration_seconds:
            return False
    op = ss.operator or ""
    if op in ("Equal", ""):
        return t.operator == "Equal" and (t.value or "") == (ss.value or "")
    if op == "Exists":
        return True
    return False


def merge_tolerations(first: list[Toleration], second: list[Toleration]) -> list[Toleration]:
    """Merge two toleration lists, dropping any covered by a broader one.

    Upstream ``tolerations.MergeTolerations`` (RuntimeClass admission uses it).

    >>> a = Toleration(key="k", operator="Exists")
    >>> b = Toleration(key="k", operator="Equal", value="v")
    >>> [t.operator for t in merge_tolerations([b], [a])]
    ['Exists']
    """
    all_t = [*first, *second]
    merged: list[Toleration] = []
    for i, t in enumerate(all_t):
        if any(_is_superset(m, t) for m in merged):
            continue
        if any(not _tol_equal(t, t2) and _is_superset(t2, t) for t2 in all_t[i + 1 :]):
            continue
        merged.append(t)
    return merged


def default_tolerations(tolerations: list[Toleration], seconds: int = DEFAULT_TOLERATION_SECONDS) -> list[Toleration]:
    """DefaultTolerationSeconds: add not-ready/unreachable NoExecute tolerations.

    Each is added (operator Exists, ``tolerationSeconds``) unless a toleration
    with that key (or an empty key) and NoExecute (or empty) effect exists.

    >>> [t.key for t in default_tolerations([Toleration(operator="Exists")])]
    [None]
    >>> len(default_tolerations([]))
    2
    """
    not_ready = unreachable = False
    for t in tolerations:
        key, effect = t.key or "", t.effect or ""
        if key in (TAINT_NODE_NOT_READY, "") and effect in ("NoExecute", ""):
            not_ready = True
        if key in (TAINT_NODE_UNREACHABLE, "") and effect in ("NoExecute", ""):
            unreachable = True
    out = list(tolerations)
    if not not_ready:
        out.append(Toleration(key=TAINT_NODE_NOT_READY, operator="Exists", effect="NoExecute",
                              toleration_seconds=seconds))
    if not unreachable:
        out.append(Toleration(key=TAINT_NODE_UNREACHABLE, operator="Exists", effect="NoExecute",
                              toleration_seconds=seconds))
    return out


# ------------------------------------------------------------- resource maths


def _is_supported_pod_level(name: str) -> bool:
    return name in ("cpu", "memory") or name.startswith(HUGEPAGES_PREFIX)


def _is_overcommit_allowed(name: str) -> bool:
    native = "/" not in name or name.startswith("kubernetes.io/")
    return native and not name.startswith(HUGEPAGES_PREFIX)


# ---------------------------------------------------------------- pod defaults


def _round_list(rl: dict[str, Quantity]) -> dict[str, Quantity]:
    return {k: v.round_up(-3) for k, v in rl.items()}


def _default_requests_from_limits(c: Container) -> None:
    if not c.resources.limits:
        return
    reqs = dict(c.resources.requests)
    changed = False
    for k, v in c.resources.limits.items():
        if k not in reqs:
            reqs[k] = v
            changed = True
    if changed:
        c.resources.requests = reqs
        c.mark_set("resources")


def _default_pod_level(pod: Pod) -> None:
    spec = pod.spec
    res = spec.resources
    if res is None:
        return
    # hugepage limits from containers
    if res.limits or res.requests:
        lims = dict(res.limits)
        aggr = aggregate_containers(spec, lambda c: c.resources.limits)
        for k, v in aggr.items():
            if not k.startswith(HUGEPAGES_PREFIX) or k in res.requests:
                continue
            lims.setdefault(k, v)
        if lims != res.limits:
            res.limits = lims
    # requests from containers, then from pod-level limits
    if res.limits:
        reqs = dict(res.requests)
        aggr = aggregate_containers(spec, lambda c: c.resources.requests)
        for k, v in aggr.items():
            if k not in reqs and _is_supported_pod_level(k) and _is_overcommit_allowed(k):
                reqs[k] = v
        for k, v in res.limits.items():
            if k not in reqs and _is_supported_pod_level(k):
                reqs[k] = v
        if reqs != res.requests:
            res.requests = reqs
    # limits from containers when every container has one
    limits_set = any(_is_supported_pod_level(k) for k in res.limits)
    requests_set = any(_is_supported_pod_level(k) for k in res.requests)
    if not limits_set and requests_set:
        lims = dict(res.limits)
        aggr = aggregate_containers(spec, lambda c: c.resources.limits)
        everyone = [*spec.init_containers, *spec.containers]
        for k, v in aggr.items():
            if k in lims or not _is_supported_pod_level(k) or not _is_overcommit_allowed(k):
                continue
            if all(k in c.resources.limits for c in everyone):
                lims[k] = v
        if lims != res.limits:
            res.limits = lims


def default_pod(pod: Pod, feature_gates: Mapping[str, bool] | None = None) -> Pod:
    """API defaulting of a pod (returns a new object).

    >>> p = default_pod(Pod(metadata={"name": "p"}, spec={"containers": [{"name": "c",
    ...     "resources": {"limits": {"cpu": "500m"}}}]}))
    >>> p.metadata.namespace, p.spec.scheduler_name, str(p.spec.containers[0].resources.requests["cpu"])
    ('default', 'default-scheduler', '500m')
    """
    gates = {**DEFAULT_FEATURE_GATES, **(feature_gates or {})}
    pod = pod.clone()
    _default_pod_inplace(pod, gates)
    return pod


def _default_pod_inplace(pod: Pod, gates: Mapping[str, bool]) -> None:
    if not pod.metadata.namespace:
        pod.metadata.namespace = DEFAULT_NAMESPACE
        pod.mark_set("metadata")
    spec = pod.spec
    if not spec.scheduler_name:
        spec.scheduler_name = DEFAULT_SCHEDULER_NAME
    for c in [*spec.containers, *spec.init_containers]:
        _default_requests_from_limits(c)
    if gates.get("PodLevelResources"):
        _default_pod_level(pod)
    if spec.host_network:
        for c in [*spec.containers, *spec.init_containers]:
            for port in c.ports:
                if not port.host_port:
                    port.host_port = port.container_port
    # SetDefaults_ResourceList: round every quantity up to milli units
    for c in [*spec.containers, *spec.init_containers]:
        if c.resources.requests:
            c.resources.requests = _round_list(c.resources.requests)
        if c.resources.limits:
            c.resources.limits = _round_list(c.resources.limits)
    if spec.overhead:
        spec.overhead = _round_list(spec.overhead)
    if spec.resources is not None:
        spec.resources.requests = _round_list(spec.resources.requests)
        spec.resources.limits = _round_list(spec.resources.limits)
        if not spec.resources.requests:
            spec.resources.model_fields_set.discard("requests")
        if not spec.resources.limits:
            spec.resources.model_fields_set.discard("limits")
    pod.mark_set("spec")


# ---------------------------------------------------------- pod create strategy


def _apply_label_keys(selector: LabelSelector, keys: list[str], op: str, labels: Mapping[str, str]) -> None:
    extra = [
        LabelSelectorRequirement(key=k, operator=op, values=[labels[k]]) for k in keys if k in labels
    ]
    if extra:
        selector.match_expressions = [*selector.match_expressions, *extra]


def _mutate_affinity_term(term: PodAffinityTerm, labels: Mapping[str, str]) -> None:
    if (not term.match_label_keys and not term.mismatch_label_keys) or term.label_selector is None:
        return
    _apply_label_keys(term.label_selector, term.match_label_keys, "In", labels)
    _apply_label_keys(term.label_selector, term.mismatch_label_keys, "NotIn", labels)


def _prepare_for_create(pod: Pod, gates: Mapping[str, bool]) -> None:
    pod.metadata.generation = 1
    st = pod.status
    if not pod.spec.node_name or not st.phase:
        st.phase = "Pending"
    st.qos_class = compute_pod_qos(pod.spec)
    if pod.spec.scheduling_gates and not any(c.type == "PodScheduled" for c in st.conditions):
        st.conditions = [
            *st.conditions,
            PodCondition(type="PodScheduled", status="False", reason="SchedulingGated",
                         message=MSG_SCHEDULING_GATED),
        ]
    pod.mark_set("status", "metadata")
    labels = pod.metadata.labels
    aff = pod.spec.affinity
    if gates.get("MatchLabelKeysInPodAffinity") and aff is not None:
        for a in (aff.pod_affinity, aff.pod_anti_affinity):
            if a is None:
                continue
            for w in a.preferred_during_scheduling_ignored_during_execution:
                _mutate_affinity_term(w.pod_affinity_term, labels)
            for t in a.required_during_scheduling_ignored_during_execution:
                _mutate_affinity_term(t, labels)
    if gates.get("MatchLabelKeysInPodTopologySpread") and gates.get("MatchLabelKeysInPodTopologySpreadSelectorMerge"):
        for c in pod.spec.topology_spread_constraints:
            if c.match_label_keys and c.label_selector is not None:
                _apply_label_keys(c.label_selector, c.match_label_keys, "In", labels)


# ------------------------------------------------------------ admission plugins


def _admit_priority(pod: Pod, classes: Mapping[str, PriorityClass], errs: _Errors) -> None:
    spec = pod.spec
    try:
        priority, policy = admitted_priority(spec, classes)
    except LookupError as err:
        errs.add("spec.priorityClassName", str(err))
        return
    # upstream getDefaultPriority: without a default class a pod also gets PreemptLowerPriority
    policy = policy or PREEMPT_LOWER_PRIORITY
    if spec.priority is not None and spec.priority != priority:
        errs.add("spec.priority", MSG_PRIORITY_MISMATCH.format(given=spec.priority, computed=priority))
        return
    spec.priority = priority
    if spec.preemption_policy is not None and spec.preemption_policy != policy:
        errs.add("spec.preemptionPolicy", MSG_PREEMPTION_MISMATCH.format(given=spec.preemption_policy, computed=policy))
        return
    spec.preemption_policy = policy


def _admit_runtime_class(pod: Pod, classes: Mapping[str, RuntimeClass], errs: _Errors) -> None:
    spec = pod.spec
    overhead_set = "overhead" in spec.model_fields_set or bool(spec.overhead)
    rc: RuntimeClass | None = None
    if spec.runtime_class_name is not None:
        rc = classes.get(spec.runtime_class_name)
        if rc is None:
            errs.add("spec.runtimeClassName", MSG_RUNTIME_CLASS_NOT_FOUND.format(name=spec.runtime_class_name))
            return
    if rc is not None and rc.overhead is not None:
        fixed = dict(rc.overhead.pod_fixed)
        if overhead_set and spec.overhead != fixed:
            errs.add("spec.overhead", MSG_OVERHEAD_MISMATCH)
            return
        spec.overhead = fixed
    elif overhead_set:
        errs.add("spec.overhead", MSG_OVERHEAD_WITHOUT_CLASS)
        return
    if rc is not None and rc.scheduling is not None:
        selector = dict(spec.node_selector)
        for k, v in rc.scheduling.node_selector.items():
            if k in selector and selector[k] != v:
                errs.add("spec.nodeSelector", MSG_NODE_SELECTOR_CONFLICT.format(key=k, rc=v, pod=selector[k]))
                return
            selector[k] = v
        if selector != spec.node_selector or rc.scheduling.node_selector:
            spec.node_selector = selector
        if rc.scheduling.tolerations:
            spec.tolerations = merge_tolerations(spec.tolerations, list(rc.scheduling.tolerations))


# ------------------------------------------------------------------ validation


def _resource_name_errors(name: str, path: list[Any], errs: _Errors) -> None:
    # validateContainerResourceName, with validateResourceName first
    problems = [f"Invalid value: {_q(name)}: {m}" for m in qualified_name_errors(name)]
    if not problems and "/" not in name and not is_standard_resource_name(name):
        problems.append(f"Invalid value: {_q(name)}: must be a standard resource type or fully qualified")
    if "/" not in name:
        if not is_standard_container_resource_name(name):
            problems.append(f"Invalid value: {_q(name)}: must be a standard resource for containers")
    elif not is_native_resource(name) and not is_extended_resource_name(name):
        problems.append(f"Invalid value: {_q(name)}: doesn't follow extended resource name standard")
    for message in problems:
        errs.add(path, message)


def _quantity_errors(name: str, v: Quantity, path: list[Any], errs: _Errors) -> None:
    # ValidateResourceQuantityValue
    if v.sign() < 0:
        errs.add(path, f"Invalid value: {_q(v)}: must be greater than or equal to 0")
    if is_integer_resource_name(name) and v.milli_value() % 1000 != 0:
        errs.add(path, f"Invalid value: {_q(v)}: must be an integer")


def _validate_resources(res: ResourceRequirements, path: list[Any], errs: _Errors) -> None:
    """A container's ``resources`` (``ValidateContainerResourceRequirements``): names, quantities,
    each request against its limit; map keys in the path as ``requests[cpu]``."""
    for k, v in res.limits.items():
        _resource_name_errors(k, [*path, "limits", Key(k)], errs)
        _quantity_errors(k, v, [*path, "limits", Key(k)], errs)
    for k, v in res.requests.items():
        _resource_name_errors(k, [*path, "requests", Key(k)], errs)
        _quantity_errors(k, v, [*path, "requests", Key(k)], errs)
        lim = res.limits.get(k)
        if lim is not None:
            if v != lim and not is_overcommit_allowed(k):
                errs.add([*path, "requests"], f"Invalid value: {_q(v)}: must be equal to {k} limit of {lim}")
            elif v > lim:
                errs.add([*path, "requests"], f"Invalid value: {_q(v)}: must be less than or equal to {k} limit of {lim}")
        elif not is_overcommit_allowed(k):
            errs.add([*path, "limits"], "Required value: Limit must be set for non overcommitable resources")
    names = [*res.limits, *res.requests]
    if any(is_hugepage_resource_name(n) for n in names) and not {"cpu", "memory"} & set(names):
        errs.add(path, "Forbidden: HugePages require cpu or memory")


def _validate_pod_resources(res: ResourceRequirements, path: list[Any], errs: _Errors) -> None:
    for kind in ("requests", "limits"):
        for k, v in getattr(res, kind).items():
            if v.sign() < 0:
                errs.add([*path, kind, Key(k)], f"Invalid value: {_q(v)}: must be greater than or equal to 0")
    for k, lim in res.limits.items():
        req = res.requests.get(k)
        if req is not None and req > lim:
            errs.add([*path, "requests"], f"Invalid value: {_q(req)}: must be less than or equal to {k} limit of {lim}")


def _validate_node_selector_requirement(r: Any, path: list[Any], errs: _Errors) -> None:
    op = r.operator
    if op in ("In", "NotIn") and not r.values:
        errs.add([*path, "values"], "Required value: must be specified when `operator` is 'In' or 'NotIn'")
    elif op in ("Exists", "DoesNotExist") and r.values:
        errs.add([*path, "values"], "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'")
    elif op in ("Gt", "Lt"):
        if len(r.values) != 1:
            errs.add([*path, "values"], "Required value: must be specified single value when `operator` is 'Lt' or 'Gt'")
    if op is None:
        errs.add([*path, "operator"], "Required value")


def _validate_affinity_term(t: PodAffinityTerm, path: list[Any], errs: _Errors) -> None:
    if not t.topology_key:
        errs.add([*path, "topologyKey"], "Required value: can not be empty")


def _validate_weight(w: int | None, path: list[Any], errs: _Errors) -> None:
    if w is None or not 1 <= w <= 100:
        errs.add([*path, "weight"], f"Invalid value: {0 if w is None else w}: must be in the range 1-100")


def validate_pod(pod: Pod, *, comparison_operators: bool = False) -> list[ManifestError]:
    """API validation of a pod, limited to what scheduling depends on.

    ``comparison_operators`` allows the ``Lt`` / ``Gt`` toleration operators
    (the TaintTolerationComparisonOperators gate; see :func:`validate_tolerations`).

    >>> errs = validate_pod(Pod(metadata={"name": "p"}, spec={"containers": [{"name": "c"}],
    ...     "topologySpreadConstraints": [{"maxSkew": 0, "topologyKey": "zone",
    ...                                    "whenUnsatisfiable": "DoNotSchedule"}]}))
    >>> print(errs[0])
    Pod p: spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero
    """
    errs = _Errors(pod)
    spec = pod.spec
    if not pod.metadata.name:
        errs.add("metadata.name", "Required value: name or generateName is required")
    if not spec.containers:
        errs.add("spec.containers", "Required value")
    for group in ("containers", "initContainers"):
        for i, c in enumerate(getattr(spec, "containers" if group == "containers" else "init_containers")):
            _validate_resources(c.resources, ["spec", group, i, "resources"], errs)
    if spec.resources is not None:
        _validate_pod_resources(spec.resources, ["spec", "resources"], errs)
    for k, v in spec.overhead.items():
        if v.sign() < 0:
            errs.add(["spec", "overhead", k], f"Invalid value: {_q(v)}: must be greater than or equal to 0")
    for path, message in validate_tolerations(spec.tolerations, ["spec", "tolerations"],
                                              comparison_operators=comparison_operators):
        errs.add(path, message)
    seen: set[tuple[str, str]] = set()
    for i, c in enumerate(spec.topology_spread_constraints):
        p = ["spec", "topologySpreadConstraints", i]
        if c.max_skew is None or c.max_skew <= 0:
            errs.add([*p, "maxSkew"], f"Invalid value: {c.max_skew or 0}: must be greater than zero")
        if c.min_domains is not None:
            if c.min_domains <= 0:
                errs.add([*p, "minDomains"], f"Invalid value: {c.min_domains}: must be greater than zero")
            elif c.when_unsatisfiable != "DoNotSchedule":
                errs.add([*p, "minDomains"], f"Invalid value: {c.min_domains}: can only use minDomains if "
                                             f"whenUnsatisfiable=DoNotSchedule, not {c.when_unsatisfiable or ''}")
        if not c.topology_key:
            errs.add([*p, "topologyKey"], "Required value: can not be empty")
        if not c.when_unsatisfiable:
            errs.add([*p, "whenUnsatisfiable"],
                     'Unsupported value: "": supported values: "DoNotSchedule", "ScheduleAnyway"')
        pair = (c.topology_key or "", c.when_unsatisfiable or "")
        if pair in seen:
            errs.add(p, f'Duplicate value: "{{{pair[0]}, {pair[1]}}}"')
        seen.add(pair)
    aff = spec.affinity
    if aff is not None:
        na = aff.node_affinity
        base = ["spec", "affinity", "nodeAffinity"]
        if na is not None:
            req = na.required_during_scheduling_ignored_during_execution
            if req is not None:
                rp = [*base, "requiredDuringSchedulingIgnoredDuringExecution"]
                if not req.node_selector_terms:
                    errs.add([*rp, "nodeSelectorTerms"], "Required value: must have at least one node selector term")
                for i, term in enumerate(req.node_selector_terms):
                    for field, reqs in (("matchExpressions", term.match_expressions),
                                        ("matchFields", term.match_fields)):
                        for j, r in enumerate(reqs):
                            _validate_node_selector_requirement(r, [*rp, "nodeSelectorTerms", i, field, j], errs)
            for i, pref in enumerate(na.preferred_during_scheduling_ignored_during_execution):
                pp = [*base, "preferredDuringSchedulingIgnoredDuringExecution", i]
                _validate_weight(pref.weight, pp, errs)
                for field, reqs in (("matchExpressions", pref.preference.match_expressions),
                                    ("matchFields", pref.preference.match_fields)):
                    for j, r in enumerate(reqs):
                        _validate_node_selector_requirement(r, [*pp, "preference", field, j], errs)
        for name, a in (("podAffinity", aff.pod_affinity), ("podAntiAffinity", aff.pod_anti_affinity)):
            if a is None:
                continue
            ap = ["spec", "affinity", name]
            for i, t in enumerate(a.required_during_scheduling_ignored_during_execution):
                _validate_affinity_term(t, [*ap, "requiredDuringSchedulingIgnoredDuringExecution", i], errs)
            for i, w in enumerate(a.preferred_during_scheduling_ignored_during_execution):
                wp = [*ap, "preferredDuringSchedulingIgnoredDuringExecution", i]
                _validate_weight(w.weight, wp, errs)
                _validate_affinity_term(w.pod_affinity_term, [*wp, "podAffinityTerm"], errs)
    # spec.resourceClaims and containers' resources.claims (DRA): kschedlab.apiserver.resource_validation
    from .resource_validation import validate_pod_resource_claims

    for path, message in validate_pod_resource_claims(pod):
        errs.add(path, message)
    return errs.items


def _validate_priority_class(pc: PriorityClass, errs: _Errors) -> None:
    # name, system- prefix, value range: kschedlab.apiserver.priorityclass (upstream's ValidatePriorityClass)
    from .priorityclass import priority_class_errors

    for path, message in priority_class_errors(pc):
        errs.add(path, message)


def _validate_node(node: Node, errs: _Errors) -> None:
    if not node.metadata.name:
        errs.add("metadata.name", "Required value: name or generateName is required")
    for i, t in enumerate(node.spec.taints):
        if not t.key:
            errs.add(["spec", "taints", i, "key"], "Required value")
        if not t.effect:
            errs.add(["spec", "taints", i, "effect"], "Required value")
    for kind in ("capacity", "allocatable"):
        for k, v in getattr(node.status, kind).items():
            if v.sign() < 0:
                errs.add(["status", kind, k], f"Invalid value: {_q(v)}: must be greater than or equal to 0")
    for i, message in validate_declared_features(node.status.declared_features):
        errs.add(["status", "declaredFeatures", i], message)


# ------------------------------------------- LimitPodHardAntiAffinityTopology (opt-in)

LIMIT_POD_HARD_ANTI_AFFINITY_TOPOLOGY = "LimitPodHardAntiAffinityTopology"
LABEL_HOSTNAME = "kubernetes.io/hostname"


def limit_pod_hard_anti_affinity_topology(pod: Pod) -> None:
    """The LimitPodHardAntiAffinityTopology validating admission plugin: a pod whose required
    pod anti-affinity uses a topologyKey other than ``kubernetes.io/hostname`` is forbidden.

    Raises :class:`ManifestError` with the API server's message.

    >>> p = Pod.model_validate({"metadata": {"name": "web", "namespace": "default"}, "spec": {"affinity": {
    ...     "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
    ...         {"labelSelector": {}, "topologyKey": "topology.kubernetes.io/zone"}]}}}})
    >>> limit_pod_hard_anti_affinity_topology(p)
    Traceback (most recent call last):
    ...
    kschedlab.api.errors.ManifestError: Pod default/web: pods "web" is forbidden: affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey topology.kubernetes.io/zone but only key kubernetes.io/hostname is allowed
    """
    affinity = pod.spec.affinity
    if affinity is None or affinity.pod_anti_affinity is None:
        return
    for term in affinity.pod_anti_affinity.required_during_scheduling_ignored_during_execution:
        if (term.topology_key or "") != LABEL_HOSTNAME:
            raise ManifestError(
                f'pods "{pod.metadata.name or ""}" is forbidden: affinity.PodAntiAffinity.RequiredDuringScheduling '
                f"has TopologyKey {term.topology_key or ''} but only key {LABEL_HOSTNAME} is allowed",
                file=pod.source_file, obj=pod.describe())


# ------------------------------------------------------------------ the driver


def _plural(kind: str) -> str:
    low = kind.lower()
    return low + "es" if low.endswith("s") else low + "s"


def _uid_for(obj: KubeObject) -> str:
    digest = hashlib.sha256(f"kschedlab/{obj.kind}/{obj.key}".encode()).digest()
    return str(uuid.UUID(bytes=digest[:16], version=4))


_NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"


def _generate_name(obj: KubeObject, taken: set[str]) -> None:
    base = obj.metadata.generate_name or ""
    base = base[:58]
    rng = random.Random(f"kschedlab/{obj.kind}/{obj.namespace}/{base}")
    while True:
        name = base + "".join(rng.choice(_NAME_ALPHABET) for _ in range(5))
        if name not in taken:
            obj.metadata.name = name
            obj._generated_name = True
            return


def admit_pod(
    pod: Pod,
    priority_classes: Mapping[str, PriorityClass] | Iterable[PriorityClass] = (),
    runtime_classes: Mapping[str, RuntimeClass] | Iterable[RuntimeClass] = (),
    *,
    feature_gates: Mapping[str, bool] | None = None,
) -> Pod:
    """Admit one pod (defaulting, strategy, admission plugins, validation).

    The built-in system PriorityClasses are always known. Raises
    :class:`ManifestError` (all problems of the pod) when refused.

    >>> p = admit_pod(Pod(metadata={"name": "p"}, spec={"containers": [{"name": "c"}],
    ...                   "priorityClassName": "system-node-critical"}))
    >>> p.spec.priority, p.spec.preemption_policy
    (2000001000, 'PreemptLowerPriority')
    >>> admit_pod(Pod(metadata={"name": "p"}, spec={"containers": [{"name": "c"}], "priorityClassName": "gold"}))
    Traceback (most recent call last):
    ...
    kschedlab.api.errors.ManifestError: Pod default/p: spec.priorityClassName: no PriorityClass with name gold was found
    """
    gates = {**DEFAULT_FEATURE_GATES, **(feature_gates or {})}
    return _admit_pod_inplace(pod.clone(), _index(priority_classes), _index(runtime_classes), gates)


_SYSTEM_CLASSES = {pc.name: pc for pc in system_priority_classes()}


def is_stored(obj: KubeObject) -> bool:
    """Whether ``obj`` was read back from an API server (a dump): it has a
    ``metadata.resourceVersion``, which only the server sets and which a create refuses.

    >>> is_stored(Pod(metadata={"name": "p", "resourceVersion": "41"})), is_stored(Pod(metadata={"name": "p"}))
    (True, False)
    """
    return bool(obj.metadata.resource_version)


def _restore_stored_pod(pod: Pod, pcs: Mapping[str, PriorityClass], errs: _Errors) -> None:
    # A stored pod went through admission when it was created; its priority, tolerations and
    # overhead are kept as they are, even if its PriorityClass or RuntimeClass has been deleted
    # or a global default PriorityClass appeared since (both allowed upstream). Only what a
    # trimmed dump may lack is filled in.
    if pod.spec.priority is None:
        _admit_priority(pod, pcs, errs)
    st = pod.status
    if not st.phase or not st.qos_class:
        st.phase = st.phase or "Pending"
        st.qos_class = st.qos_class or compute_pod_qos(pod.spec)
        pod.mark_set("status")


def _admit_pod_inplace(out: Pod, pcs: dict[str, PriorityClass], rcs: dict[str, RuntimeClass],
                       gates: Mapping[str, bool], limit_ranger: LimitRanger | None = None) -> Pod:
    for name, spc in _SYSTEM_CLASSES.items():
        pcs.setdefault(name, spc)
    _default_pod_inplace(out, gates)
    if not gates.get("GenericWorkload") and out.spec.scheduling_group is not None:
        # dropDisabledPodFields: spec.schedulingGroup is cleared while GenericWorkload is off
        out.spec.scheduling_group = None
    errs = _Errors(out)
    if is_stored(out):
        _restore_stored_pod(out, pcs, errs)
    else:
        if limit_ranger is not None:  # mutating LimitRanger: before the strategy computes the QoS class
            limit_ranger.mutate(out)
        _prepare_for_create(out, gates)
        _admit_priority(out, pcs, errs)
        if not errs.items:
            out.spec.tolerations = default_tolerations(out.spec.tolerations)
            _admit_runtime_class(out, rcs, errs)
    out.mark_set("spec")
    errs.items.extend(validate_pod(out, comparison_operators=bool(gates.get("TaintTolerationComparisonOperators"))))
    if not errs.items and limit_ranger is not None and not is_stored(out):
        refusal = limit_ranger.validate(out)  # validating LimitRanger, before ResourceQuota
        if refusal:
            errs.add(None, refusal)
    if errs.items:
        raise ManifestError.combine(errs.items)
    return out


def _index(objs: Mapping[str, Any] | Iterable[Any]) -> dict[str, Any]:
    if isinstance(objs, Mapping):
        return dict(objs)
    return {o.metadata.name or "": o for o in objs}


def admit(objects: Iterable[TypedObject], *, feature_gates: Mapping[str, bool] | None = None,
          enable_admission_plugins: Iterable[str] = (), copy: bool = True,
          refused: list[Refusal] | None = None) -> list[TypedObject]:
    """Apply API-server create behaviour to a list of objects; returns new objects.

    PriorityClasses, RuntimeClasses, LimitRanges and ResourceQuotas come from the same
    list. Every error of every object is reported in one :class:`ManifestError`, unless
    ``refused`` is given: then, as ``kubectl apply -f`` goes on past a refused object,
    each object with errors is left out and recorded there as a
    :class:`~kschedlab.apiserver.apply.Refusal` (a refused pod is not charged to quotas; a
    refused class or LimitRange is not used by the pods).
    ``enable_admission_plugins`` turns on admission plugins that are off by
    default (as kube-apiserver's ``--enable-admission-plugins``); known:
    ``LimitPodHardAntiAffinityTopology``. ``copy=False`` admits the given objects in place
    (for a caller that made them and holds no other reference, as
    :func:`~kschedlab.controllers.manifests.create` does with :func:`~kschedlab.controllers.workloads.expand`'s
    copies: one copy of a large cluster instead of two).

    >>> from kschedlab.api.core import Namespace
    >>> [ns.metadata.labels for ns in admit([Namespace(metadata={"name": "team-a"})])]
    [{'kubernetes.io/metadata.name': 'team-a'}]
    """
    gates = {**DEFAULT_FEATURE_GATES, **(feature_gates or {})}
    enabled_plugins = set(enable_admission_plugins)
    unknown_plugins = enabled_plugins - {LIMIT_POD_HARD_ANTI_AFFINITY_TOPOLOGY}
    if unknown_plugins:
        raise ValueError(f"unknown admission plugin(s): {', '.join(sorted(unknown_plugins))}")
    objs = [o.clone() for o in objects] if copy else list(objects)
    errors: list[ManifestError] = []

    # names from generateName, uniqueness of (kind, namespace, name)
    taken: dict[tuple[str, str], set[str]] = {}
    for o in objs:
        if isinstance(o, KubeObject):
            if o.NAMESPACED and not o.metadata.namespace:
                o.metadata.namespace = DEFAULT_NAMESPACE
                o.mark_set("metadata")
            elif isinstance(o, PriorityClass) and o.metadata.namespace:
                o.metadata.namespace = None  # cluster-scoped: the API server clears a namespace
            if o.metadata.name:
                taken.setdefault((o.kind or "", o.namespace), set()).add(o.metadata.name)
    seen: set[tuple[str, str]] = set()
    for o in objs:
        if not isinstance(o, KubeObject):
            continue
        if not o.metadata.name and o.metadata.generate_name:
            _generate_name(o, taken.setdefault((o.kind or "", o.namespace), set()))
            taken[(o.kind or "", o.namespace)].add(o.metadata.name or "")
            o.mark_set("metadata")
        ident = (o.kind or "", o.key)
        if o.metadata.name and ident in seen:
            errors.append(ManifestError(f'{_plural(o.kind or "")} "{o.name}" already exists',
                                        file=o.source_file, obj=o.describe()))
        seen.add(ident)
        if not o.metadata.uid and o.metadata.name:
            o.metadata.uid = _uid_for(o)
            o.mark_set("metadata")

    # classes first: the cluster has them before the pods are created
    pcs: dict[str, PriorityClass] = {}
    default_pc: PriorityClass | None = None
    for o in objs:
        if isinstance(o, PriorityClass):
            errs = _Errors(o)
            if o.value is None:
                o.value = 0
            if o.preemption_policy is None:
                o.preemption_policy = "PreemptLowerPriority"
            _validate_priority_class(o, errs)
            if o.global_default:
                if default_pc is not None:
                    errs.add(None, f"PriorityClass {default_pc.name} is already marked as default. "
                                   "Only one default can exist")
                else:
                    default_pc = o
            errors.extend(errs.items)
            if not errs.items:
                pcs[o.name] = o
    rcs: dict[str, RuntimeClass] = {}
    for o in objs:
        if isinstance(o, RuntimeClass):
            errs = _Errors(o)
            if not o.handler:
                errs.add("handler", "Required value")
            if o.overhead is not None:
                o.overhead.pod_fixed = _round_list(o.overhead.pod_fixed)
            errors.extend(errs.items)
            rcs[o.name] = o

    # LimitRanges: defaulted and validated; the valid ones apply to the pods of their namespace
    limit_ranges: list[LimitRange] = []
    for o in objs:
        if isinstance(o, LimitRange):
            default_limit_range(o)
            errs = _Errors(o)
            for path, message in limit_range_errors(o):
                errs.add(path, message)
            errors.extend(errs.items)
            if not errs.items:
                limit_ranges.append(o)
    ranger = LimitRanger(limit_ranges, pod_level_resources=bool(gates.get("PodLevelResources")))

    # ResourceQuotas: validated, then their status filled as the quota controller would
    from ..api.resourcequota import ResourceQuota, admit_quota, resource_quota_errors

    quotas: list[ResourceQuota] = []
    for o in objs:
        if isinstance(o, ResourceQuota):
            errs = _Errors(o)
            for path, message in resource_quota_errors(o):
                errs.add(path, message)
            errors.extend(errs.items)
            if not errs.items:
                quotas.append(o)

    # scheduling.k8s.io Workload / PodGroup / CompositePodGroup (served with GenericWorkload)
    from .podgroup_validation import admit_scheduling_objects

    errors.extend(admit_scheduling_objects(objs, {**_SYSTEM_CLASSES, **pcs}, gates))

    # resource.k8s.io (DRA) kinds; adminAccess needs the namespace's labels
    from .resource_validation import admit_resource_objects

    ns_labels = {o.name: o.metadata.labels for o in objs if isinstance(o, Namespace)}
    errors.extend(admit_resource_objects(objs, ns_labels, list_types=bool(gates.get("DRAListTypeAttributes"))))

    # core/v1 PersistentVolume(Claim) and the storage.k8s.io kinds
    from .storage_validation import admit_storage_objects

    errors.extend(admit_storage_objects(objs))

    out: list[TypedObject] = []
    for o in objs:
        if isinstance(o, Pod):
            try:
                o = _admit_pod_inplace(o, dict(pcs), rcs, gates, ranger)
                if LIMIT_POD_HARD_ANTI_AFFINITY_TOPOLOGY in enabled_plugins:
                    limit_pod_hard_anti_affinity_topology(o)
            except ManifestError as e:
                errors.append(e)
        elif isinstance(o, PersistentVolumeClaim) and not is_stored(o):
            refusal = ranger.validate_claim(o.metadata.namespace or "", o.metadata.name or "",
                                            o.spec.resources.requests)
            if refusal:  # validating LimitRanger, before ResourceQuota
                errs = _Errors(o)
                errs.add(None, refusal)
                errors.extend(errs.items)
        elif isinstance(o, Namespace):
            if o.metadata.name:
                o.metadata.labels = {**o.metadata.labels, LABEL_METADATA_NAME: o.metadata.name}
                o.mark_set("metadata")
            if not o.status.phase:
                o.status.phase = "Active"
                o.mark_set("status")
        elif isinstance(o, Node):
            st = o.status
            if st.capacity and "allocatable" not in st.model_fields_set and not st.allocatable:
                st.allocatable = dict(st.capacity)
            if st.capacity:
                st.capacity = _round_list(st.capacity)
            if st.allocatable:
                st.allocatable = _round_list(st.allocatable)
            if st.capacity or st.allocatable:
                o.mark_set("status")
            errs = _Errors(o)
            _validate_node(o, errs)
            errors.extend(errs.items)
        out.append(o)
    # the ResourceQuota plugin runs last: admitted pods in order, bound ones only counted
    if refused is None:
        errors.extend(admit_quota([o for o in out if isinstance(o, Pod)], quotas))
        if errors:
            raise ManifestError.combine(errors)
        return out
    by_object = _errors_by_object(out, errors)
    never_created = _owned_by_refused(out, by_object)
    quota_errors = admit_quota([o for o in out if isinstance(o, Pod) and id(o) not in by_object
                                and id(o) not in never_created], quotas)
    for obj_id, errs_of in _errors_by_object(out, quota_errors).items():
        by_object.setdefault(obj_id, []).extend(errs_of)
    kept = []
    for o in out:
        if id(o) in by_object:
            refused.append(Refusal(o, by_object[id(o)], o.source_file))
        elif id(o) not in never_created:
            kept.append(o)
    return kept


def _owned_by_refused(objs: list[TypedObject], refused: Mapping[int, Any]) -> set[int]:
    # what a refused workload's controllers would have created (its ReplicaSet, their pods) never
    # exists: the objects whose controller is refused or itself never created
    # (a uid a created object shares, as a duplicate's does, names that one instead)
    kept_uids = {o.metadata.uid for o in objs if id(o) not in refused and isinstance(o, KubeObject)}
    gone = {o.metadata.uid for o in objs if id(o) in refused and isinstance(o, KubeObject) and o.metadata.uid
            and o.metadata.uid not in kept_uids}
    out: set[int] = set()
    changed = True
    while changed:
        changed = False
        for o in objs:
            if id(o) in out or id(o) in refused or not isinstance(o, KubeObject):
                continue
            ref = o.metadata.controller_ref()
            if ref is not None and ref.uid and ref.uid in gone:
                out.add(id(o))
                if o.metadata.uid:
                    gone.add(o.metadata.uid)
                changed = True
    return out


def _errors_by_object(objs: list[TypedObject], errors: list[ManifestError]) -> dict[int, list[ManifestError]]:
    # which object each error is about (its file and name); an error naming no object of the
    # list, or a kind the server does not serve (kubectl cannot map it), refuses the whole input
    index: dict[tuple[str | None, str], TypedObject] = {}
    for o in objs:
        index[(o.source_file, o.describe())] = o
    out: dict[int, list[ManifestError]] = {}
    for e in errors:
        for item in e.errors:
            o = index.get((item.file, item.obj or ""))
            if o is None or item.message.startswith(NOT_SERVED):
                raise ManifestError.combine(errors)
            out.setdefault(id(o), []).append(item)
    return out
