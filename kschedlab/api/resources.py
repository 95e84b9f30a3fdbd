"""Pod resource requests as kube-scheduler computes them.

Follows ``k8s.io/component-helpers/resource`` ``PodRequests``: the sum of the
regular containers, restartable (sidecar) init containers added to it, the
maximum over the init-container phases, pod-level requests when set, plus
``spec.overhead``.  Values are integers in scheduler units: millicores for
``cpu``, plain units (bytes, counts) for everything else.

>>> from kschedlab.api.core import Pod
>>> pod = Pod.model_validate({"metadata": {"name": "p"}, "spec": {"containers": [
...     {"name": "a", "resources": {"requests": {"cpu": "250m", "memory": "64Mi"}}},
...     {"name": "b"}]}})
>>> pod_requests(pod)
{'cpu': 250, 'memory': 67108864}
>>> pod_requests(pod, non_missing=DEFAULT_NON_ZERO)["cpu"]   # b counts as 100m
350
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

CPU = "cpu"
MEMORY = "memory"
EPHEMERAL_STORAGE = "ephemeral-storage"
PODS = "pods"

#: schedutil.DefaultMilliCPURequest / DefaultMemoryRequest, used for scoring
#: containers that request nothing.
DEFAULT_MILLI_CPU_REQUEST = 100
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024
DEFAULT_NON_ZERO: Mapping[str, int] = {CPU: DEFAULT_MILLI_CPU_REQUEST, MEMORY: DEFAULT_MEMORY_REQUEST}

#: resources a pod may request at pod level (PodLevelResources).
POD_LEVEL_RESOURCES = frozenset({CPU, MEMORY, "hugepages-2Mi", "hugepages-1Gi"})


def to_units(name: str, quantity) -> int:
    """A Quantity in scheduler units: millicores for cpu, Value() otherwise."""
    return quantity.milli_value() if name == CPU else quantity.value()


def resource_list(values: Mapping) -> dict[str, int]:
    return {name: to_units(name, q) for name, q in values.items()}


def add_resources(into: dict[str, Any], other: Mapping[str, Any]) -> None:
    """``addResourceList``: ``other``'s values added into ``into`` (ints or Quantities)."""
    for name, value in other.items():
        into[name] = into[name] + value if name in into else value


def max_resources(into: dict[str, Any], other: Mapping[str, Any]) -> None:
    """``maxResourceList``: each of ``into``'s values raised to ``other``'s when that is larger."""
    for name, value in other.items():
        if name not in into or value > into[name]:
            into[name] = value


def _container_requests(container, non_missing: Mapping[str, int] | None) -> dict[str, int]:
    reqs = resource_list(container.resources.requests) if container.resources else {}
    if non_missing:
        for name, value in non_missing.items():
            reqs.setdefault(name, value)
    return reqs


def pod_requests(pod, *, non_missing: Mapping[str, int] | None = None,
                 pod_level_resources: bool = True, exclude_overhead: bool = False) -> dict[str, int]:
    """Aggregate requests of ``pod`` (see module docstring)."""
    spec = pod.spec
    reqs: dict[str, int] = aggregate_containers(spec, lambda c: _container_requests(c, non_missing))
    level = getattr(spec, "resources", None)
    if pod_level_resources and level is not None and level.requests:
        for name, q in level.requests.items():
            if name in POD_LEVEL_RESOURCES:
                reqs[name] = to_units(name, q)
    if not exclude_overhead and spec.overhead:
        add_resources(reqs, resource_list(spec.overhead))
    return reqs


def aggregate_containers(spec, get: Callable[[Any], Mapping[str, Any]],
                         container_fn: Callable[[Any], None] | None = None) -> dict[str, Any]:
    """Effective sum over containers with the sidecar rule (upstream ``AggregateContainerRequests``
    / ``AggregateContainerLimits``), of what ``get`` reads from each container (ints or Quantities).

    Regular containers and sidecars (restartable init containers) add up; each
    plain init container counts with the sidecars started before it; the
    result is the max of the two. ``container_fn`` sees each regular container's
    resources and each init container's phase, as upstream's ``ContainerFn`` does.

    >>> from kschedlab.api.core import Container, PodSpec
    >>> spec = PodSpec(containers=[Container(resources={"requests": {"cpu": "1"}})],
    ...                init_containers=[Container(resources={"requests": {"cpu": "2"}})])
    >>> str(aggregate_containers(spec, lambda c: c.resources.requests)["cpu"])
    '2'
    """
    result: dict[str, Any] = {}
    for c in spec.containers:
        own = get(c)
        if container_fn is not None:
            container_fn(own)
        add_resources(result, own)
    sidecars: dict[str, Any] = {}
    init_max: dict[str, Any] = {}
    for c in spec.init_containers:
        own = get(c)
        if c.restart_policy == "Always":
            add_resources(result, own)
            add_resources(sidecars, own)
            phase = dict(sidecars)
        else:
            phase = dict(own)
            add_resources(phase, sidecars)
        if container_fn is not None:
            container_fn(phase)
        max_resources(init_max, phase)
    max_resources(result, init_max)
    return result
