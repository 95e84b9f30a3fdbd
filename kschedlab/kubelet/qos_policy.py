"""``oom_score_adj`` per container by QoS class (upstream ``pkg/kubelet/qos/policy.go``):
what the kernel's OOM killer adds to a process's score when the node runs out of memory
before the kubelet could evict.

* node-critical pods (``system-node-critical`` and critical) and Guaranteed pods: -997;
* BestEffort pods: 1000;
* Burstable containers: ``1000 - 1000 * memoryRequest / memoryCapacity`` (integer division),
  kept within 3..999 -- a container requesting 10% of the node's memory gets 900. With pod-level
  requests, the pod's memory request not given to any container is shared equally among all
  containers (init ones included). A sidecar (restartable init container) never scores above
  the regular container with the smallest request.

The seed's consequence: low-QoS containers that use much more memory than they
requested die first. (The alpha ``KubeletOOMScoreAdjTieBreak`` nudge and DRA memory
allocations are not modelled.)

>>> from kschedlab.api.core import Pod
>>> pod = Pod.model_validate({"spec": {"containers": [{"name": "c", "resources": {
...     "requests": {"memory": "1G"}, "limits": {"memory": "2G"}}}]}})
>>> container_oom_score_adjust(pod, pod.spec.containers[0], 10_000_000_000)
900
"""

from __future__ import annotations

from kschedlab.api.resources import pod_requests

from .ranking import is_critical_pod

__all__ = ["GUARANTEED_OOM_SCORE_ADJ", "BESTEFFORT_OOM_SCORE_ADJ", "KUBELET_OOM_SCORE_ADJ",
           "KUBE_PROXY_OOM_SCORE_ADJ", "container_oom_score_adjust", "is_node_critical_pod", "pod_oom_score_adjusts"]

KUBELET_OOM_SCORE_ADJ = -999
KUBE_PROXY_OOM_SCORE_ADJ = -999
GUARANTEED_OOM_SCORE_ADJ = -997
BESTEFFORT_OOM_SCORE_ADJ = 1000
SYSTEM_NODE_CRITICAL = "system-node-critical"


def is_node_critical_pod(pod) -> bool:
    """A critical pod of the ``system-node-critical`` class (upstream ``IsNodeCriticalPod``)."""
    return is_critical_pod(pod) and pod.spec.priority_class_name == SYSTEM_NODE_CRITICAL


def _memory_request(container) -> int:
    q = container.resources.requests.get("memory") if container.resources else None
    return q.value() if q is not None else 0


def _pod_level_memory_request(pod) -> int | None:
    res = pod.spec.resources
    if res is None or not res.requests:
        return None
    q = res.requests.get("memory")
    return q.value() if q is not None else 0


def _remaining_pod_memory_request_per_container(pod) -> int:
    pod_req = _pod_level_memory_request(pod) or 0
    if pod_req == 0:
        return 0
    n = len(pod.spec.containers) + len(pod.spec.init_containers)
    aggregate = pod_requests(pod, pod_level_resources=False, exclude_overhead=True).get("memory", 0)
    return _go_div(pod_req - aggregate, n)


def _go_div(a: int, b: int) -> int:
    # Go's integer division truncates toward zero
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _is_sidecar(pod, container) -> bool:
    return container.restart_policy == "Always" and any(c.name == container.name for c in pod.spec.init_containers)


def container_oom_score_adjust(pod, container, memory_capacity: int, *, pod_level_resources: bool = True) -> int:
    """The ``oom_score_adj`` the kubelet gives ``container`` of ``pod`` on a node with
    ``memory_capacity`` bytes (see the module docstring)."""
    if is_node_critical_pod(pod):
        return GUARANTEED_OOM_SCORE_ADJ
    qos = pod.qos_class()
    if qos == "Guaranteed":
        return GUARANTEED_OOM_SCORE_ADJ
    if qos == "BestEffort":
        return BESTEFFORT_OOM_SCORE_ADJ
    request = _memory_request(container)
    use_pod_level = pod_level_resources and _pod_level_memory_request(pod) is not None
    remaining = _remaining_pod_memory_request_per_container(pod) if use_pod_level else 0
    adj = 1000 - _go_div(1000 * (request + remaining), memory_capacity)
    if _is_sidecar(pod, container) and pod.spec.containers:
        smallest = min(_memory_request(c) for c in pod.spec.containers) + remaining
        adj = min(adj, 1000 - _go_div(1000 * smallest, memory_capacity))
    if adj < 1000 + GUARANTEED_OOM_SCORE_ADJ:
        return 1000 + GUARANTEED_OOM_SCORE_ADJ
    if adj == BESTEFFORT_OOM_SCORE_ADJ:
        return adj - 1
    return adj


def pod_oom_score_adjusts(pod, memory_capacity: int, *, pod_level_resources: bool = True) -> dict[str, int]:
    """``{container name: oom_score_adj}`` for the init and regular containers of ``pod``.

    >>> from kschedlab.api.core import Pod
    >>> pod_oom_score_adjusts(Pod.model_validate({"spec": {"containers": [{"name": "a"}]}}), 8 * 2**30)
    {'a': 1000}
    """
    return {c.name: container_oom_score_adjust(pod, c, memory_capacity, pod_level_resources=pod_level_resources)
            for c in [*pod.spec.init_containers, *pod.spec.containers]}
