"""``v1`` LimitRange and the API server's LimitRanger admission plugin.

A LimitRange bounds what each container, each pod or each PersistentVolumeClaim of one
namespace may ask for. Upstream (``plugin/pkg/admission/limitranger``) the plugin runs in
both admission phases:

* **mutating**, right after API defaulting and before the pod strategy computes the QoS
  class: every container and init container without a request or limit for a resource
  gets the ``defaultRequest`` / ``default`` of the ``Container`` items
  (:func:`pod_mutate_limit`), and the pod is annotated
  ``kubernetes.io/limit-ranger: LimitRanger plugin set: cpu request for container app; ...``;
* **validating**, before ResourceQuota: ``min``, ``max`` and ``maxLimitRequestRatio`` per
  container (``Container``), for the pod's totals (``Pod``; pod-level resources override the
  sum of the containers) and for a claim's ``storage`` request (``PersistentVolumeClaim``)
  (:func:`pod_validate_limit`, :func:`pvc_validate_limit`). A refusal is
  ``pods "x" is forbidden: <message>``; several problems of one LimitRange are listed in
  brackets, as ``utilerrors.NewAggregate`` prints them.

The LimitRange object itself is defaulted on create (``default`` from ``max``,
``defaultRequest`` from ``default`` then from ``min``; :func:`default_limit_range`) and
validated with field paths (:func:`limit_range_errors`). Go iterates maps in random order;
here the resources of one item are visited sorted by name, so messages come out in a stable
order.

>>> lr = LimitRange.model_validate({"metadata": {"name": "cpu-limit-range", "namespace": "default"},
...     "spec": {"limits": [{"type": "Container", "default": {"cpu": 1}, "defaultRequest": {"cpu": 0.5}}]}})
>>> from kschedlab.api.core import Pod
>>> pod = Pod.model_validate({"metadata": {"name": "default-cpu-demo", "namespace": "default"},
...     "spec": {"containers": [{"name": "default-cpu-demo-ctr", "image": "nginx"}]}})
>>> pod_mutate_limit(lr, pod)
>>> r = pod.spec.containers[0].resources
>>> str(r.requests["cpu"]), str(r.limits["cpu"])
('500m', '1')
>>> pod.metadata.annotations["kubernetes.io/limit-ranger"]
'LimitRanger plugin set: cpu request for container default-cpu-demo-ctr; cpu limit for container default-cpu-demo-ctr'
>>> tight = LimitRange.model_validate({"metadata": {"name": "tight", "namespace": "default"},
...     "spec": {"limits": [{"type": "Container", "max": {"cpu": "800m"}}]}})
>>> pod_validate_limit(tight, pod)
['maximum cpu usage per Container is 800m, but limit is 1']
"""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction
from typing import ClassVar, Iterable, Mapping

from pydantic import Field

from ._base import K8sModel
from .core import Container, Pod
from .meta import KubeObject
from .quantity import Quantity
from .resources import aggregate_containers
from .validation import qualified_name_errors

__all__ = [
    "LimitRange",
    "LimitRangeItem",
    "LimitRangeSpec",
    "LimitRanger",
    "LIMIT_TYPES",
    "LIMIT_RANGER_ANNOTATION",
    "default_limit_range",
    "limit_range_errors",
    "default_container_resource_requirements",
    "pod_mutate_limit",
    "pod_validate_limit",
    "pvc_validate_limit",
    "aggregate",
]

LIMIT_TYPE_POD = "Pod"
LIMIT_TYPE_CONTAINER = "Container"
LIMIT_TYPE_PVC = "PersistentVolumeClaim"
LIMIT_TYPES = (LIMIT_TYPE_POD, LIMIT_TYPE_CONTAINER, LIMIT_TYPE_PVC)
LIMIT_RANGER_ANNOTATION = "kubernetes.io/limit-ranger"
_STANDARD_CONTAINER_RESOURCES = ("cpu", "memory", "ephemeral-storage")
_ONE = Quantity("1")


class LimitRangeItem(K8sModel):
    """v1 LimitRangeItem: the bounds and defaults of one limit type."""

    type: str | None = None
    max: dict[str, Quantity] = Field(default_factory=dict)
    min: dict[str, Quantity] = Field(default_factory=dict)
    default: dict[str, Quantity] = Field(default_factory=dict)
    default_request: dict[str, Quantity] = Field(default_factory=dict)
    max_limit_request_ratio: dict[str, Quantity] = Field(default_factory=dict)


class LimitRangeSpec(K8sModel):
    """v1 LimitRangeSpec."""

    limits: list[LimitRangeItem] = Field(default_factory=list)


class LimitRange(KubeObject):
    """v1 LimitRange (namespaced)."""

    API_VERSION: ClassVar[str] = "v1"
    KIND: ClassVar[str] = "LimitRange"
    NAMESPACED: ClassVar[bool] = True

    spec: LimitRangeSpec = Field(default_factory=LimitRangeSpec)


# ------------------------------------------------------------ the object on create


def default_limit_range(lr: LimitRange) -> None:
    """API defaulting of a LimitRange (in place; upstream ``SetDefaults_LimitRangeItem``):
    for ``Container`` items a missing ``default`` comes from ``max``, then a missing
    ``defaultRequest`` from ``default``, then from ``min``.

    >>> lr = LimitRange.model_validate({"spec": {"limits": [{"type": "Container",
    ...     "max": {"cpu": "2"}, "min": {"memory": "1Mi"}}]}})
    >>> default_limit_range(lr)
    >>> item = lr.spec.limits[0]
    >>> {k: str(v) for k, v in item.default.items()}, {k: str(v) for k, v in item.default_request.items()}
    ({'cpu': '2'}, {'cpu': '2', 'memory': '1Mi'})
    """
    for item in lr.spec.limits:
        if item.type != LIMIT_TYPE_CONTAINER:
            continue
        default = dict(item.default)
        for k, v in item.max.items():
            default.setdefault(k, v)
        request = dict(item.default_request)
        for k, v in default.items():
            request.setdefault(k, v)
        for k, v in item.min.items():
            request.setdefault(k, v)
        item.default, item.default_request = default, request


def _resource_name_errors(limit_type: str | None, name: str) -> list[str]:
    if limit_type in (LIMIT_TYPE_POD, LIMIT_TYPE_CONTAINER):
        # validateContainerResourceName: a standard name, hugepages-*, or a qualified extended name
        if "/" not in name and name not in _STANDARD_CONTAINER_RESOURCES and not name.startswith("hugepages-"):
            return [f'Invalid value: "{name}": must be a standard resource for containers']
    return [f'Invalid value: "{name}": {m}' for m in qualified_name_errors(name)]


def limit_range_errors(lr: LimitRange) -> list[tuple[str, str]]:
    """``(field path, message)`` for each problem ``ValidateLimitRange`` finds.

    >>> bad = LimitRange.model_validate({"metadata": {"name": "lr"}, "spec": {"limits": [
    ...     {"type": "Container", "min": {"cpu": "2"}, "max": {"cpu": "1"}},
    ...     {"type": "Pod", "default": {"cpu": "1"}}]}})
    >>> for path, message in limit_range_errors(bad):
    ...     print(path, message)
    spec.limits[0].min[cpu] Invalid value: "2": min value 2 is greater than max value 1
    spec.limits[1].default Forbidden: may not be specified when `type` is 'Pod'
    """
    errs: list[tuple[str, str]] = []
    if not lr.metadata.name:
        errs.append(("metadata.name", "Required value: name or generateName is required"))
    seen_types: set[str | None] = set()
    for i, item in enumerate(lr.spec.limits):
        base = f"spec.limits[{i}]"
        t = item.type or ""
        type_errs = [f'Invalid value: "{t}": {m}' for m in qualified_name_errors(t)]
        if not type_errs and "/" not in t and t not in LIMIT_TYPES:
            type_errs = [f'Invalid value: "{t}": must be a standard limit type or fully qualified']
        errs.extend((f"{base}.type", m) for m in type_errs)
        if item.type in seen_types:
            errs.append((f"{base}.type", f'Duplicate value: "{t}"'))
        seen_types.add(item.type)

        fields = [("max", item.max), ("min", item.min)]
        if item.type == LIMIT_TYPE_POD:
            for name, values in (("default", item.default), ("defaultRequest", item.default_request)):
                if values:
                    errs.append((f"{base}.{name}", "Forbidden: may not be specified when `type` is 'Pod'"))
        else:
            fields += [("default", item.default), ("defaultRequest", item.default_request)]
        if item.type == LIMIT_TYPE_PVC and "storage" not in item.min and "storage" not in item.max:
            errs.append((f"{base}.limits", "Required value: either minimum or maximum storage value is required, "
                                           "but neither was provided"))
        fields.append(("maxLimitRequestRatio", item.max_limit_request_ratio))
        keys: set[str] = set()
        for name, values in fields:
            for k in values:
                errs.extend((f"{base}.{name}[{k}]", m) for m in _resource_name_errors(item.type, k))
                keys.add(k)
        defaults = item.default if item.type != LIMIT_TYPE_POD else {}
        requests = item.default_request if item.type != LIMIT_TYPE_POD else {}
        for k in sorted(keys):
            errs.extend(_bounds_errors(base, k, item.min.get(k), item.max.get(k), defaults.get(k),
                                       requests.get(k), item.max_limit_request_ratio.get(k)))
    return errs


def _bounds_errors(base: str, k: str, lo: Quantity | None, hi: Quantity | None, default: Quantity | None,
                   request: Quantity | None, ratio: Quantity | None) -> list[tuple[str, str]]:
    errs: list[tuple[str, str]] = []
    if lo is not None and hi is not None and lo > hi:
        errs.append((f"{base}.min[{k}]", f'Invalid value: "{lo}": min value {lo} is greater than max value {hi}'))
    if request is not None and lo is not None and lo > request:
        errs.append((f"{base}.defaultRequest[{k}]",
                     f'Invalid value: "{request}": min value {lo} is greater than default request value {request}'))
    if request is not None and hi is not None and request > hi:
        errs.append((f"{base}.defaultRequest[{k}]",
                     f'Invalid value: "{request}": default request value {request} is greater than max value {hi}'))
    if request is not None and default is not None and request > default:
        errs.append((f"{base}.defaultRequest[{k}]", f'Invalid value: "{request}": default request value {request} '
                                                    f"is greater than default limit value {default}"))
    if default is not None and lo is not None and lo > default:
        errs.append((f"{base}.default[{k}]",
                     f'Invalid value: "{lo}": min value {lo} is greater than default value {default}'))
    if default is not None and hi is not None and default > hi:
        errs.append((f"{base}.default[{k}]",
                     f'Invalid value: "{hi}": default value {default} is greater than max value {hi}'))
    if ratio is not None and ratio < _ONE:
        errs.append((f"{base}.maxLimitRequestRatio[{k}]", f'Invalid value: "{ratio}": ratio {ratio} is less than 1'))
    if ratio is not None and lo is not None and hi is not None and lo.sign() > 0:
        bound = hi.as_fraction() / lo.as_fraction()
        if ratio.as_fraction() > bound:
            errs.append((f"{base}.maxLimitRequestRatio[{k}]", f'Invalid value: "{ratio}": ratio {ratio} is greater '
                                                              f"than max/min = {_six_decimals(bound)}"))
    overcommit = ("/" not in k or k.startswith("kubernetes.io/")) and not k.startswith("hugepages-")
    if not overcommit and default is not None and request is not None and default != request:
        errs.append((f"{base}.defaultRequest[{k}]", f'Invalid value: "{request}": default value {default} must '
                                                    f"equal to defaultRequest value {request} in {k}"))
    return errs


# ------------------------------------------------------------ mutating admission


def default_container_resource_requirements(lr: LimitRange) -> tuple[dict[str, Quantity], dict[str, Quantity]]:
    """``(requests, limits)`` a container gets from the ``Container`` items of ``lr``.

    >>> lr = LimitRange.model_validate({"spec": {"limits": [{"type": "Container",
    ...     "default": {"cpu": "75m"}, "defaultRequest": {"cpu": "50m"}}]}})
    >>> [{k: str(v) for k, v in rl.items()} for rl in default_container_resource_requirements(lr)]
    [{'cpu': '50m'}, {'cpu': '75m'}]
    """
    requests: dict[str, Quantity] = {}
    limits: dict[str, Quantity] = {}
    for item in lr.spec.limits:
        if item.type == LIMIT_TYPE_CONTAINER:
            requests.update(item.default_request)
            limits.update(item.default)
    return requests, limits


def _merge_container(c: Container, requests: Mapping[str, Quantity], limits: Mapping[str, Quantity],
                     prefix: str) -> list[str]:
    set_limits = sorted(k for k in limits if k not in c.resources.limits)
    set_requests = sorted(k for k in requests if k not in c.resources.requests)
    if set_limits:
        c.resources.limits = {**c.resources.limits, **{k: limits[k] for k in set_limits}}
    if set_requests:
        c.resources.requests = {**c.resources.requests, **{k: requests[k] for k in set_requests}}
    if set_limits or set_requests:
        c.mark_set("resources")
    notes = []
    if set_requests:
        notes.append(f"{', '.join(set_requests)} request for {prefix} {c.name or ''}")
    if set_limits:
        notes.append(f"{', '.join(set_limits)} limit for {prefix} {c.name or ''}")
    return notes


def pod_mutate_limit(lr: LimitRange, pod: Pod) -> None:
    """The mutating half (upstream ``PodMutateLimitFunc``): defaults of the ``Container``
    items for every container and init container that lacks them, and the annotation
    naming what was set (in place)."""
    requests, limits = default_container_resource_requirements(lr)
    notes: list[str] = []
    for c in pod.spec.containers:
        notes += _merge_container(c, requests, limits, "container")
    for c in pod.spec.init_containers:
        notes += _merge_container(c, requests, limits, "init container")
    if notes:
        pod.metadata.annotations = {**pod.metadata.annotations,
                                    LIMIT_RANGER_ANNOTATION: "LimitRanger plugin set: " + "; ".join(notes)}
        pod.mark_set("metadata")


# ------------------------------------------------------------ validating admission


def _six_decimals(value: Fraction) -> str:
    # the ratio as Go's %f prints it: six decimals
    exact = Decimal(value.numerator) / Decimal(value.denominator)
    return str(exact.quantize(Decimal("0.000001"), rounding=ROUND_HALF_EVEN))


def _min_constraint(limit_type: str, name: str, enforced: Quantity, request: Mapping[str, Quantity],
                    limit: Mapping[str, Quantity]) -> str | None:
    req, lim = request.get(name), limit.get(name)
    if req is None:
        return f"minimum {name} usage per {limit_type} is {enforced}.  No request is specified"
    if enforced > req:
        return f"minimum {name} usage per {limit_type} is {enforced}, but request is {req}"
    if lim is not None and enforced > lim:
        return f"minimum {name} usage per {limit_type} is {enforced}, but limit is {lim}"
    return None


def _max_constraint(limit_type: str, name: str, enforced: Quantity, request: Mapping[str, Quantity],
                    limit: Mapping[str, Quantity]) -> str | None:
    req, lim = request.get(name), limit.get(name)
    if lim is None:
        return f"maximum {name} usage per {limit_type} is {enforced}.  No limit is specified"
    if lim > enforced:
        return f"maximum {name} usage per {limit_type} is {enforced}, but limit is {lim}"
    if req is not None and req > enforced:
        return f"maximum {name} usage per {limit_type} is {enforced}, but request is {req}"
    return None


def _max_request_constraint(limit_type: str, name: str, enforced: Quantity,
                            request: Mapping[str, Quantity]) -> str | None:
    req = request.get(name)
    if req is None:
        return f"maximum {name} usage per {limit_type} is {enforced}.  No request is specified"
    if req > enforced:
        return f"maximum {name} usage per {limit_type} is {enforced}, but request is {req}"
    return None


def _ratio_constraint(limit_type: str, name: str, enforced: Quantity, request: Mapping[str, Quantity],
                      limit: Mapping[str, Quantity]) -> str | None:
    req, lim = request.get(name), limit.get(name)
    if req is None or req.is_zero():
        return (f"{name} max limit to request ratio per {limit_type} is {enforced}, "
                "but no request is specified or request is 0")
    if lim is None or lim.is_zero():
        return (f"{name} max limit to request ratio per {limit_type} is {enforced}, "
                "but no limit is specified or limit is 0")
    ratio = abs(lim.as_fraction()) / abs(req.as_fraction())
    if ratio > enforced.as_fraction():
        return (f"{name} max limit to request ratio per {limit_type} is {enforced}, "
                f"but provided ratio is {_six_decimals(ratio)}")
    return None


def _check(limit_type: str, item: LimitRangeItem, requests: Mapping[str, Quantity],
           limits: Mapping[str, Quantity]) -> list[str]:
    out = []
    for k in sorted(item.min):
        out.append(_min_constraint(limit_type, k, item.min[k], requests, limits))
    for k in sorted(item.max):
        out.append(_max_constraint(limit_type, k, item.max[k], requests, limits))
    for k in sorted(item.max_limit_request_ratio):
        out.append(_ratio_constraint(limit_type, k, item.max_limit_request_ratio[k], requests, limits))
    return [m for m in out if m]


def aggregate(pod: Pod, which: str, *, pod_level_resources: bool = True) -> dict[str, Quantity]:
    """The pod's total ``requests`` or ``limits`` as LimitRanger counts it: containers and
    sidecars add up, each init container counts with the sidecars before it, the larger
    wins; with pod-level resources (``PodLevelResources``) ``spec.resources`` overrides
    cpu, memory and hugepages.

    >>> pod = Pod.model_validate({"spec": {"containers": [{"resources": {"requests": {"cpu": "1"}}}],
    ...     "initContainers": [{"resources": {"requests": {"cpu": "3"}}}], "resources": {"requests": {"memory": "1Gi"}}}})
    >>> {k: str(v) for k, v in aggregate(pod, "requests").items()}
    {'cpu': '3', 'memory': '1Gi'}
    """
    total = aggregate_containers(pod.spec, lambda c: getattr(c.resources, which))
    if pod_level_resources and pod.spec.resources is not None:
        for k, v in getattr(pod.spec.resources, which).items():
            if k in ("cpu", "memory") or k.startswith("hugepages-"):
                total[k] = v
    return total


def pod_validate_limit(lr: LimitRange, pod: Pod, *, pod_level_resources: bool = True) -> list[str]:
    """The validating half (upstream ``PodValidateLimitFunc``): one message per violated
    bound, containers first (then init containers) for ``Container`` items, the pod's
    totals (:func:`aggregate`) for ``Pod`` items."""
    errs: list[str] = []
    for item in lr.spec.limits:
        if item.type == LIMIT_TYPE_CONTAINER:
            for c in [*pod.spec.containers, *pod.spec.init_containers]:
                errs += _check(LIMIT_TYPE_CONTAINER, item, c.resources.requests, c.resources.limits)
        elif item.type == LIMIT_TYPE_POD:
            errs += _check(LIMIT_TYPE_POD, item, aggregate(pod, "requests", pod_level_resources=pod_level_resources),
                           aggregate(pod, "limits", pod_level_resources=pod_level_resources))
    return errs


def pvc_validate_limit(lr: LimitRange, requests: Mapping[str, Quantity]) -> list[str]:
    """Upstream ``PersistentVolumeClaimValidateLimitFunc`` over a claim's
    ``spec.resources.requests``: ``min`` as for containers (a claim has no limits),
    ``max`` against the request.

    >>> lr = LimitRange.model_validate({"spec": {"limits": [{"type": "PersistentVolumeClaim",
    ...     "min": {"storage": "1Gi"}, "max": {"storage": "2Gi"}}]}})
    >>> pvc_validate_limit(lr, {"storage": Quantity("5Gi")})
    ['maximum storage usage per PersistentVolumeClaim is 2Gi, but request is 5Gi']
    """
    errs: list[str] = []
    for item in lr.spec.limits:
        if item.type != LIMIT_TYPE_PVC:
            continue
        for k in sorted(item.min):
            errs.append(_min_constraint(LIMIT_TYPE_PVC, k, item.min[k], requests, {}))
        for k in sorted(item.max):
            errs.append(_max_request_constraint(LIMIT_TYPE_PVC, k, item.max[k], requests))
    return [m for m in errs if m]


def _aggregate_message(errors: list[str]) -> str:
    return errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"


class LimitRanger:
    """The LimitRanger admission plugin over the LimitRanges of a cluster.

    :meth:`mutate` and :meth:`validate` take one object being created; each LimitRange of
    its namespace applies in turn, and validation stops at the first LimitRange that
    refuses, as upstream does. :meth:`validate` returns the API server's message
    (``pods "x" is forbidden: ...``) or None.

    >>> lr = LimitRange.model_validate({"metadata": {"name": "mem", "namespace": "default"},
    ...     "spec": {"limits": [{"type": "Container", "max": {"memory": "1Gi"}, "min": {"memory": "500Mi"}}]}})
    >>> ranger = LimitRanger([lr])
    >>> pod = Pod.model_validate({"metadata": {"name": "big", "namespace": "default"},
    ...     "spec": {"containers": [{"name": "c", "resources": {"limits": {"memory": "1.5Gi"}, "requests": {"memory": "100Mi"}}}]}})
    >>> ranger.mutate(pod)
    >>> print(ranger.validate(pod))
    pods "big" is forbidden: [minimum memory usage per Container is 500Mi, but request is 100Mi, maximum memory usage per Container is 1Gi, but limit is 1536Mi]
    """

    def __init__(self, limit_ranges: Iterable[LimitRange], *, pod_level_resources: bool = True) -> None:
        self.by_namespace: dict[str, list[LimitRange]] = {}
        for lr in limit_ranges:
            self.by_namespace.setdefault(lr.metadata.namespace or "", []).append(lr)
        self.pod_level_resources = pod_level_resources

    def mutate(self, pod: Pod) -> None:
        """Apply the defaults of every LimitRange of the pod's namespace (in place)."""
        for lr in self.by_namespace.get(pod.metadata.namespace or "", ()):
            pod_mutate_limit(lr, pod)

    def validate(self, pod: Pod) -> str | None:
        """The refusal of a pod being created (``pods "x" is forbidden: ...``), or None."""
        name = pod.metadata.name or pod.metadata.generate_name or "Unknown"
        for lr in self.by_namespace.get(pod.metadata.namespace or "", ()):
            errors = pod_validate_limit(lr, pod, pod_level_resources=self.pod_level_resources)
            if errors:
                return f'pods "{name}" is forbidden: {_aggregate_message(errors)}'
        return None

    def validate_claim(self, namespace: str, name: str, requests: Mapping[str, Quantity]) -> str | None:
        """The refusal of a PersistentVolumeClaim being created with ``spec.resources.requests``
        (``persistentvolumeclaims "x" is forbidden: ...``), or None.

        >>> lr = LimitRange.model_validate({"metadata": {"name": "storage", "namespace": "default"},
        ...     "spec": {"limits": [{"type": "PersistentVolumeClaim", "min": {"storage": "1Gi"}}]}})
        >>> print(LimitRanger([lr]).validate_claim("default", "data", {"storage": Quantity("500Mi")}))
        persistentvolumeclaims "data" is forbidden: minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi
        """
        for lr in self.by_namespace.get(namespace, ()):
            errors = pvc_validate_limit(lr, requests)
            if errors:
                return f'persistentvolumeclaims "{name}" is forbidden: {_aggregate_message(errors)}'
        return None
