"""``v1`` ResourceQuota and the API server's quota admission for pods.

A ResourceQuota caps what the pods of one namespace may use in total. Upstream, the
``ResourceQuota`` validating admission plugin (``apiserver/pkg/admission/plugin/
resourcequota``, ``CheckRequest``) measures each pod being created with the pod evaluator
(``pkg/quota/v1/evaluator/core/pods.go``, ``PodUsageFunc``) and refuses it when the quota's
``status.used`` plus the pod's usage would pass ``status.hard``:

* ``requests.cpu`` / ``cpu``, ``requests.memory`` / ``memory``, ``requests.ephemeral-storage``:
  the pod's requests as the scheduler sums them, **overhead included**;
* ``limits.cpu``, ``limits.memory``, ...: the pod's limits, the overhead added to each limit
  the pod has;
* ``pods`` (pods not yet terminal), ``count/pods`` (every pod), ``hugepages-*`` and
  ``requests.<extended resource>``.

A quota with ``cpu`` or ``memory`` in ``hard`` also demands that every container declares
that resource (``failed quota: <name>: must specify ...``), unless the pod has pod-level
resources. Scopes (``Terminating``, ``NotTerminating``, ``BestEffort``, ``NotBestEffort``,
``PriorityClass``, ``CrossNamespacePodAffinity``) and ``scopeSelector`` restrict which pods
a quota sees.

>>> from kschedlab.api.core import Pod
>>> quota = ResourceQuota.model_validate({"metadata": {"name": "compute", "namespace": "default"},
...     "spec": {"hard": {"requests.cpu": "2", "requests.memory": "1Gi"}}})
>>> pod = Pod.model_validate({"metadata": {"name": "test-pod", "namespace": "default"}, "spec": {
...     "overhead": {"cpu": "250m", "memory": "120Mi"},
...     "containers": [{"name": "a", "resources": {"requests": {"cpu": "500m", "memory": "100Mi"}}},
...                    {"name": "b", "resources": {"requests": {"cpu": "1500m", "memory": "100Mi"}}}]}})
>>> {k: str(v) for k, v in sorted(pod_usage(pod).items())}
{'count/pods': '1', 'cpu': '2250m', 'memory': '320Mi', 'pods': '1', 'requests.cpu': '2250m', 'requests.memory': '320Mi'}
>>> QuotaAdmission([quota]).admit(pod)
Traceback (most recent call last):
...
kschedlab.api.resourcequota.QuotaRefused: pods "test-pod" is forbidden: exceeded quota: compute, requested: requests.cpu=2250m, used: requests.cpu=0, limited: requests.cpu=2
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from typing import ClassVar, Iterable, Mapping

from pydantic import Field

from ._base import K8sModel
from .core import Container, Pod, compute_pod_qos
from .errors import ManifestError, format_path
from .meta import KubeObject
from .quantity import Quantity
from .resources import POD_LEVEL_RESOURCES, add_resources, aggregate_containers

__all__ = [
    "ResourceQuota",
    "ResourceQuotaSpec",
    "ResourceQuotaStatus",
    "ScopeSelector",
    "ScopedResourceSelectorRequirement",
    "QuotaAdmission",
    "QuotaRefused",
    "admit_quota",
    "pod_usage",
    "pod_requests_quantities",
    "pod_limits_quantities",
    "pod_constraints",
    "pod_matches_scope",
    "matching_resources",
    "quota_matches",
    "pretty_print",
    "resource_quota_errors",
    "POD_OBJECT_COUNT",
    "SCOPES",
]

POD_OBJECT_COUNT = "count/pods"
SCOPES = ("Terminating", "NotTerminating", "BestEffort", "NotBestEffort", "PriorityClass",
          "CrossNamespacePodAffinity")
SCOPE_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")

#: the resources the pod evaluator tracks (besides the prefixed ones)
POD_RESOURCES = frozenset({
    POD_OBJECT_COUNT, "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory",
    "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods",
})
_PREFIXES = ("hugepages-", "requests.hugepages-")
#: quota on these demands an explicit value in every container (an upstream compatibility rule)
_VALIDATION_SET = frozenset({"cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory"})
_INTEGER_RESOURCES = frozenset({"pods", "services", "replicationcontrollers", "resourcequotas", "secrets",
                                "configmaps", "persistentvolumeclaims", "services.nodeports",
                                "services.loadbalancers"})
_ZERO = Quantity(0)


class ScopedResourceSelectorRequirement(K8sModel):
    """One ``scopeSelector.matchExpressions`` item."""

    scope_name: str | None = None
    operator: str | None = None
    values: list[str] = Field(default_factory=list)


class ScopeSelector(K8sModel):
    """``spec.scopeSelector``: every expression must match."""

    match_expressions: list[ScopedResourceSelectorRequirement] = Field(default_factory=list)


class ResourceQuotaSpec(K8sModel):
    """v1 ResourceQuotaSpec."""

    hard: dict[str, Quantity] = Field(default_factory=dict)
    scopes: list[str] = Field(default_factory=list)
    scope_selector: ScopeSelector | None = None


class ResourceQuotaStatus(K8sModel):
    """v1 ResourceQuotaStatus: what the quota controller observed."""

    hard: dict[str, Quantity] = Field(default_factory=dict)
    used: dict[str, Quantity] = Field(default_factory=dict)


class ResourceQuota(KubeObject):
    """v1 ResourceQuota (namespaced)."""

    API_VERSION: ClassVar[str] = "v1"
    KIND: ClassVar[str] = "ResourceQuota"
    NAMESPACED: ClassVar[bool] = True

    spec: ResourceQuotaSpec = Field(default_factory=ResourceQuotaSpec)
    status: ResourceQuotaStatus = Field(default_factory=ResourceQuotaStatus)


class QuotaRefused(ValueError):
    """A pod the quota admission refuses; ``str()`` is the API server's message."""


# ------------------------------------------------------------ pod requests and limits


def _pod_level_set(pod: Pod) -> bool:
    res = pod.spec.resources
    return res is not None and any(k in POD_LEVEL_RESOURCES for k in (*res.requests, *res.limits))


def pod_requests_quantities(pod: Pod, *, pod_level_resources: bool = True) -> dict[str, Quantity]:
    """The pod's requests as Quantities, overhead added (upstream ``PodRequests``).

    >>> p = Pod.model_validate({"spec": {"overhead": {"cpu": "1"},
    ...     "containers": [{"resources": {"requests": {"cpu": "1"}}}]}})
    >>> str(pod_requests_quantities(p)["cpu"])
    '2'
    """
    reqs = aggregate_containers(pod.spec, lambda c: c.resources.requests)
    if pod_level_resources and _pod_level_set(pod):
        for name, q in pod.spec.resources.requests.items():
            if name in POD_LEVEL_RESOURCES:
                reqs[name] = q
    add_resources(reqs, pod.spec.overhead)
    return reqs


def pod_limits_quantities(pod: Pod, *, pod_level_resources: bool = True) -> dict[str, Quantity]:
    """The pod's limits as Quantities, overhead added to each non-zero limit (``PodLimits``).

    >>> p = Pod.model_validate({"spec": {"overhead": {"cpu": "1", "memory": "1Gi"},
    ...     "containers": [{"resources": {"limits": {"cpu": "2"}}}]}})
    >>> {k: str(v) for k, v in pod_limits_quantities(p).items()}
    {'cpu': '3'}
    """
    lims = aggregate_containers(pod.spec, lambda c: c.resources.limits)
    if pod_level_resources and _pod_level_set(pod):
        for name, q in pod.spec.resources.limits.items():
            if name in POD_LEVEL_RESOURCES:
                lims[name] = q
    for name, q in pod.spec.overhead.items():
        if name in lims and not lims[name].is_zero():
            lims[name] = lims[name] + q
    return lims


def _is_native(name: str) -> bool:
    return "/" not in name or name.startswith("kubernetes.io/")


def _is_extended(name: str) -> bool:
    return not _is_native(name) and not name.startswith("requests.")


def _compute_usage(requests: Mapping[str, Quantity], limits: Mapping[str, Quantity]) -> dict[str, Quantity]:
    # upstream podComputeUsageHelper
    out: dict[str, Quantity] = {"pods": Quantity(1)}
    for res in ("cpu", "memory", "ephemeral-storage"):
        if res in requests:
            out[res] = requests[res]
            out[f"requests.{res}"] = requests[res]
        if res in limits:
            out[f"limits.{res}"] = limits[res]
    for name, q in requests.items():
        if name.startswith("hugepages-"):
            out[name] = q
            out[f"requests.{name}"] = q
        if _is_extended(name):
            out[f"requests.{name}"] = q
    return out


def _counts_compute(pod: Pod, now: datetime | None) -> bool:
    # upstream QuotaV1Pod: terminal pods and pods stuck past their deletion grace are free
    if pod.status.phase in ("Failed", "Succeeded"):
        return False
    meta = pod.metadata
    if meta.deletion_timestamp is not None and meta.deletion_grace_period_seconds is not None:
        at = now or datetime.now(timezone.utc)
        if at > meta.deletion_timestamp + timedelta(seconds=meta.deletion_grace_period_seconds):
            return False
    return True


def pod_usage(pod: Pod, *, now: datetime | None = None, pod_level_resources: bool = True) -> dict[str, Quantity]:
    """What one pod counts against a quota (upstream ``PodUsageFunc``).

    ``now`` decides whether a pod marked for deletion is past its grace period (default:
    the current time).

    >>> p = Pod.model_validate({"spec": {"containers": [{"resources": {"requests": {"cpu": "1"}}}]},
    ...                         "status": {"phase": "Succeeded"}})
    >>> {k: str(v) for k, v in pod_usage(p).items()}   # terminal: only the object count
    {'count/pods': '1'}
    """
    usage = {POD_OBJECT_COUNT: Quantity(1)}
    if not _counts_compute(pod, now):
        return usage
    reqs = pod_requests_quantities(pod, pod_level_resources=pod_level_resources)
    lims = pod_limits_quantities(pod, pod_level_resources=pod_level_resources)
    usage.update(_compute_usage(reqs, lims))
    return usage


def matching_resources(names: Iterable[str]) -> list[str]:
    """The quota resource names the pod evaluator tracks, among ``names``.

    >>> matching_resources(["requests.cpu", "services", "requests.nvidia.com/gpu", "hugepages-2Mi"])
    ['requests.cpu', 'requests.nvidia.com/gpu', 'hugepages-2Mi']
    """
    out = []
    for n in names:
        if n in POD_RESOURCES or n.startswith(_PREFIXES) or (not _is_native(n) and n.startswith("requests.")):
            out.append(n)
    return out


def pod_constraints(required: Iterable[str], pod: Pod, *, pod_level_resources: bool = True) -> str | None:
    """The pod evaluator's ``Constraints``: the error text, or None when the pod may be charged.

    A quota on cpu or memory (``cpu``, ``requests.cpu``, ``limits.cpu``, ...) requires that
    every container and init container sets that value.

    >>> p = Pod.model_validate({"spec": {"containers": [{"name": "foo"}, {"name": "bar"}]}})
    >>> pod_constraints(["memory", "cpu"], p)
    'must specify cpu for: bar,foo; memory for: bar,foo'
    """
    if pod_level_resources and _pod_level_set(pod):
        return None
    required_set = set(required) & _VALIDATION_SET
    missing: dict[str, set[str]] = {}
    containers: list[Container] = [*pod.spec.containers, *pod.spec.init_containers]
    for c in containers:
        have = set(_compute_usage(c.resources.requests, c.resources.limits))
        for res in required_set - have:
            missing.setdefault(res, set()).add(c.name or "")
    if not missing:
        return None
    parts = [f"{res} for: {','.join(sorted(missing[res]))}" for res in sorted(missing)]
    return "must specify " + "; ".join(parts)


def _cross_namespace(pod: Pod) -> bool:
    aff = pod.spec.affinity
    if aff is None:
        return False
    for a in (aff.pod_affinity, aff.pod_anti_affinity):
        if a is None:
            continue
        terms = [*a.required_during_scheduling_ignored_during_execution,
                 *(w.pod_affinity_term for w in a.preferred_during_scheduling_ignored_during_execution)]
        if any(t.namespaces or t.namespace_selector is not None for t in terms):
            return True
    return False


def pod_matches_scope(selector: ScopedResourceSelectorRequirement, pod: Pod) -> bool:
    """Whether ``pod`` is in a quota scope (upstream ``podMatchesScopeFunc``).

    >>> p = Pod.model_validate({"spec": {"priorityClassName": "high", "containers": [{}]}})
    >>> pod_matches_scope(ScopedResourceSelectorRequirement(scope_name="PriorityClass", operator="In",
    ...                   values=["high", "medium"]), p)
    True
    >>> pod_matches_scope(ScopedResourceSelectorRequirement(scope_name="NotBestEffort", operator="Exists"), p)
    False
    """
    scope = selector.scope_name
    if scope in ("Terminating", "NotTerminating"):
        terminating = pod.spec.active_deadline_seconds is not None and pod.spec.active_deadline_seconds >= 0
        return terminating == (scope == "Terminating")
    if scope in ("BestEffort", "NotBestEffort"):
        best_effort = (pod.status.qos_class or compute_pod_qos(pod.spec)) == "BestEffort"
        return best_effort == (scope == "BestEffort")
    if scope == "PriorityClass":
        name = pod.spec.priority_class_name or ""
        op = selector.operator
        if op == "Exists":
            return name != ""
        if op == "DoesNotExist":
            return name == ""
        if op == "In":
            return name != "" and name in selector.values
        if op == "NotIn":
            return name == "" or name not in selector.values
        return False
    if scope == "CrossNamespacePodAffinity":
        return _cross_namespace(pod)
    return False


def _scope_selectors(quota: ResourceQuota) -> list[ScopedResourceSelectorRequirement]:
    out = [ScopedResourceSelectorRequirement(scope_name=s, operator="Exists") for s in quota.spec.scopes]
    if quota.spec.scope_selector is not None:
        out.extend(quota.spec.scope_selector.match_expressions)
    return out


def quota_matches(quota: ResourceQuota, pod: Pod) -> bool:
    """Whether the quota applies to the pod: it limits a pod resource and every scope matches.

    >>> q = ResourceQuota.model_validate({"spec": {"hard": {"pods": "1"}, "scopes": ["BestEffort"]}})
    >>> quota_matches(q, Pod.model_validate({"spec": {"containers": [{}]}}))
    True
    """
    hard = quota.status.hard or quota.spec.hard
    if not matching_resources(hard):
        return False
    return all(pod_matches_scope(s, pod) for s in _scope_selectors(quota))


def pretty_print(resources: Mapping[str, Quantity]) -> str:
    """``name=value`` pairs sorted by name, as quota errors print them.

    >>> pretty_print({"requests.memory": Quantity("320Mi"), "requests.cpu": Quantity("2250m")})
    'requests.cpu=2250m,requests.memory=320Mi'
    """
    return ",".join(f"{k}={resources[k]}" for k in sorted(resources))


def _mask(resources: Mapping[str, Quantity], names: Iterable[str]) -> dict[str, Quantity]:
    keep = set(names)
    return {k: v for k, v in resources.items() if k in keep}


def _forbidden(pod: Pod, message: str) -> QuotaRefused:
    name = pod.metadata.name or pod.metadata.generate_name or "Unknown"
    return QuotaRefused(f'pods "{name}" is forbidden: {message}')


# ---------------------------------------------------------------- validation


def resource_quota_errors(quota: ResourceQuota) -> list[tuple[str, str]]:
    """``(field path, message)`` for each problem API validation finds in ``spec.hard``.

    >>> resource_quota_errors(ResourceQuota.model_validate({"metadata": {"name": "q"},
    ...     "spec": {"hard": {"requests.cpu": "-1", "pods": "1500m"}}}))
    [('spec.hard[requests.cpu]', 'Invalid value: "-1": must be greater than or equal to 0'), ('spec.hard[pods]', 'Invalid value: "1500m": must be an integer')]
    """
    errs: list[tuple[str, str]] = []
    if not quota.metadata.name:
        errs.append(("metadata.name", "Required value: name or generateName is required"))
    for name, q in quota.spec.hard.items():
        path = format_path(("spec", "hard")) + f"[{name}]"
        if q.sign() < 0:
            errs.append((path, f'Invalid value: "{q}": must be greater than or equal to 0'))
        elif (name in _INTEGER_RESOURCES or _is_extended(name)) and q.milli_value() % 1000 != 0:
            errs.append((path, f'Invalid value: "{q}": must be an integer'))
    errs += _scope_errors(quota.spec)
    return errs


def _go_strings(values: list[str]) -> str:
    # %#v of a []core.ResourceQuotaScope
    return "[]core.ResourceQuotaScope{" + ", ".join(json.dumps(v, ensure_ascii=False) for v in values) + "}"


def _scope_errors(spec: ResourceQuotaSpec) -> list[tuple[str, str]]:
    """``validateResourceQuotaScopes`` and ``validateScopedResourceSelectorRequirement``, in part:
    an unknown scope name or selector operator (the model takes any string, as Go decodes it).

    >>> _scope_errors(ResourceQuotaSpec.model_validate({"scopes": ["BestEffort", "Cheap"],
    ...     "scopeSelector": {"matchExpressions": [{"scopeName": "Gold", "operator": "Within"}]}}))
    [('spec.scopes', 'Invalid value: []core.ResourceQuotaScope{"BestEffort", "Cheap"}: unsupported scope'), ('spec.scopeSelector.matchExpressions[0].scopeName', 'Invalid value: "Gold": unsupported scope'), ('spec.scopeSelector.matchExpressions[0].operator', 'Invalid value: "Within": not a valid selector operator')]
    """
    errs: list[tuple[str, str]] = []
    for scope in spec.scopes:
        if scope not in SCOPES:
            errs.append(("spec.scopes", f"Invalid value: {_go_strings(spec.scopes)}: unsupported scope"))
    if spec.scope_selector is not None:
        for i, req in enumerate(spec.scope_selector.match_expressions):
            path = format_path(("spec", "scopeSelector", "matchExpressions", i))
            if req.scope_name not in SCOPES:
                errs.append((f"{path}.scopeName",
                             f"Invalid value: {json.dumps(req.scope_name or '', ensure_ascii=False)}: unsupported scope"))
            if req.operator not in SCOPE_OPERATORS:
                errs.append((f"{path}.operator", f"Invalid value: {json.dumps(req.operator or '', ensure_ascii=False)}: "
                                                 "not a valid selector operator"))
    return errs


# ---------------------------------------------------------------- admission


class QuotaAdmission:
    """The ResourceQuota admission plugin over a fixed set of quotas.

    On construction each quota gets ``status.hard`` = ``spec.hard`` (as the quota
    controller writes it) and ``status.used``: the manifest's, when given (a quota dumped
    from a live cluster), else zero for every hard resource. :meth:`admit` checks one pod
    being created and, when it fits every quota of its namespace, charges it;
    :meth:`observe` charges a pod that already exists (bound pods of a manifest) without
    checking, to quotas whose usage was not given.

    >>> q = ResourceQuota.model_validate({"metadata": {"name": "pods", "namespace": "default"},
    ...                                   "spec": {"hard": {"pods": "1"}}})
    >>> qa = QuotaAdmission([q])
    >>> qa.admit(Pod.model_validate({"metadata": {"name": "a", "namespace": "default"}, "spec": {"containers": [{}]}}))
    >>> str(q.status.used["pods"])
    '1'
    >>> qa.admit(Pod.model_validate({"metadata": {"name": "b", "namespace": "default"}, "spec": {"containers": [{}]}}))
    Traceback (most recent call last):
    ...
    kschedlab.api.resourcequota.QuotaRefused: pods "b" is forbidden: exceeded quota: pods, requested: pods=1, used: pods=1, limited: pods=1
    """

    def __init__(self, quotas: Iterable[ResourceQuota], *, now: datetime | None = None,
                 pod_level_resources: bool = True) -> None:
        self.quotas = list(quotas)
        self.now = now
        self.pod_level_resources = pod_level_resources
        self._recount: set[int] = set()
        for q in self.quotas:
            given = "used" in q.status.model_fields_set or bool(q.status.used)
            q.status.hard = dict(q.spec.hard)
            used = dict(q.status.used)
            for name in q.status.hard:
                used.setdefault(name, _ZERO)
            q.status.used = used
            q.status.model_fields_set.update({"hard", "used"})
            q.mark_set("status")
            if not given:
                self._recount.add(id(q))

    def _in_namespace(self, pod: Pod) -> list[ResourceQuota]:
        ns = pod.metadata.namespace or ""
        return [q for q in self.quotas if (q.metadata.namespace or "") == ns]

    def observe(self, pod: Pod) -> None:
        """Charge an existing pod to the quotas the controller recounts (no check)."""
        usage = pod_usage(pod, now=self.now, pod_level_resources=self.pod_level_resources)
        for q in self._in_namespace(pod):
            if id(q) not in self._recount or not quota_matches(q, pod):
                continue
            tracked = matching_resources(q.status.hard)
            for name in tracked:
                if name in usage:
                    q.status.used[name] = q.status.used.get(name, _ZERO) + usage[name]

    def check(self, pod: Pod) -> dict[str, dict[str, Quantity]]:
        """The new ``status.used`` of each quota the pod changes (by quota name), without
        charging it; raises :class:`QuotaRefused` as the API server would refuse it."""
        interesting: list[ResourceQuota] = []
        for q in self._in_namespace(pod):
            if not quota_matches(q, pod):
                continue
            restricted = matching_resources(q.status.hard)
            err = pod_constraints(restricted, pod, pod_level_resources=self.pod_level_resources)
            if err:
                raise _forbidden(pod, f"failed quota: {q.name}: {err}")
            interesting.append(q)
        if not interesting:
            return {}
        usage = pod_usage(pod, now=self.now, pod_level_resources=self.pod_level_resources)
        negative = sorted(k for k, v in usage.items() if v.sign() < 0)
        if negative:
            raise _forbidden(pod, f"quota usage is negative for resource(s): {','.join(negative)}")
        delta = {k: v for k, v in usage.items() if not v.is_zero()}
        if not delta:
            return {}
        out: dict[str, dict[str, Quantity]] = {}
        for q in interesting:
            hard = q.status.hard
            requested = _mask(delta, hard)
            new_used = dict(q.status.used)
            for k, v in requested.items():
                new_used[k] = new_used[k] + v if k in new_used else v
            exceeded = [k for k in requested if k in hard and new_used[k] > hard[k]]
            if exceeded:
                raise _forbidden(pod, "exceeded quota: {}, requested: {}, used: {}, limited: {}".format(
                    q.name, pretty_print(_mask(requested, exceeded)), pretty_print(_mask(q.status.used, exceeded)),
                    pretty_print(_mask(hard, exceeded))))
            out[q.name] = new_used
        return out

    def admit(self, pod: Pod) -> None:
        """Check ``pod`` against every quota of its namespace and charge it."""
        updates = self.check(pod)
        for q in self._in_namespace(pod):
            if q.name in updates:
                q.status.used = updates[q.name]


def admit_quota(pods: Iterable[Pod], quotas: Iterable[ResourceQuota]) -> list[ManifestError]:
    """Quota admission over pods in order: pods that exist already (bound, or read back from an
    API server: they carry ``metadata.resourceVersion``) are observed, new ones checked.

    Returns one :class:`ManifestError` per refused pod (refused pods are not charged).

    >>> q = ResourceQuota.model_validate({"metadata": {"name": "two", "namespace": "default"},
    ...                                   "spec": {"hard": {"count/pods": "2"}}})
    >>> pods = [Pod.model_validate({"metadata": {"name": n, "namespace": "default"}, "spec": {"containers": [{}]}})
    ...         for n in ("a", "b", "c")]
    >>> [str(e) for e in admit_quota(pods, [q])]
    ['Pod default/c: pods "c" is forbidden: exceeded quota: two, requested: count/pods=1, used: count/pods=2, limited: count/pods=2']
    """
    qa = QuotaAdmission(quotas)
    errors: list[ManifestError] = []
    for pod in pods:
        if pod.spec.node_name or pod.metadata.resource_version:
            qa.observe(pod)
            continue
        try:
            qa.admit(pod)
        except QuotaRefused as err:
            errors.append(ManifestError(str(err), file=pod.source_file, obj=pod.describe()))
    return errors
