"""PodInfo and NodeInfo: what plugins see of a pod and of a node.

``PodInfo`` wraps an API Pod with the values every cycle needs, computed once
(requests, non-zero requests for scoring, host ports, priority).  ``NodeInfo``
is a light view of one row of the columnar :class:`~kschedlab.cluster.Snapshot`
for plugins written node by node.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

from kschedlab.api.resources import CPU, DEFAULT_NON_ZERO, MEMORY, pod_requests

DEFAULT_PRIORITY = 0

_CACHE_OWNERS = itertools.count()


def cache_owner() -> int:
    """A number naming one object that keeps values in ``PodInfo.cache``: unlike ``id()``, it is
    never handed out again in the process, so a new owner never reads a collected one's entries.

    >>> a, b = cache_owner(), cache_owner()
    >>> a != b
    True
    """
    return next(_CACHE_OWNERS)


def pod_key(pod) -> str:
    return f"{pod.metadata.namespace or ''}/{pod.metadata.name}"


def host_ports(pod) -> list[tuple[str, str, int]]:
    """(hostIP, protocol, hostPort) of every container port that claims a host port.

    Regular containers and sidecar (restartable) init containers, as
    upstream's ``getContainerPorts``; empty hostIP means 0.0.0.0 and empty
    protocol TCP.
    """
    out = []
    sidecars = [c for c in pod.spec.init_containers if c.restart_policy == "Always"]
    for container in (*pod.spec.containers, *sidecars):
        for port in container.ports:
            if port.host_port and port.host_port > 0:
                out.append((port.host_ip or "0.0.0.0", port.protocol or "TCP", port.host_port))
    return out


def _names_the_defaults(spec) -> bool:
    """Whether every container of ``spec`` (init containers too) requests cpu and memory itself,
    so that its requests with the scoring defaults (``DEFAULT_NON_ZERO``) are its plain requests.

    >>> from kschedlab.api.core import PodSpec
    >>> _names_the_defaults(PodSpec(containers=[{"name": "a", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]))
    True
    >>> _names_the_defaults(PodSpec(containers=[{"name": "a", "resources": {"requests": {"cpu": "1"}}}]))
    False
    """
    for container in (*spec.containers, *spec.init_containers):
        requests = container.resources.requests if container.resources else None
        if not requests or any(name not in requests for name in DEFAULT_NON_ZERO):
            return False
    return True


@dataclass(eq=False)
class PodInfo:
    """An API pod plus the per-pod values the scheduler derives from it."""

    pod: Any
    key: str
    requests: dict[str, int]
    non_zero: tuple[int, int]
    ports: list[tuple[str, str, int]]
    priority: int
    #: scratch space plugins use to cache per-pod precomputation
    cache: dict = field(default_factory=dict)
    #: the requests with containers' missing cpu / memory at the scoring defaults (every resource)
    non_zero_requests: dict[str, int] | None = None
    #: whether ``requests`` counted pod-level resources (PodLevelResources)
    pod_level_resources: bool = True

    @classmethod
    def of(cls, pod, *, pod_level_resources: bool = True) -> "PodInfo":
        requests = pod_requests(pod, pod_level_resources=pod_level_resources)
        if _names_the_defaults(pod.spec):  # (then the scoring defaults fill in nothing)
            nz = dict(requests)
        else:
            nz = pod_requests(pod, non_missing=DEFAULT_NON_ZERO, pod_level_resources=pod_level_resources)
        prio = pod.spec.priority
        return cls(
            pod=pod,
            key=pod_key(pod),
            requests=requests,
            non_zero=(nz.get(CPU, 0), nz.get(MEMORY, 0)),
            ports=host_ports(pod),
            priority=DEFAULT_PRIORITY if prio is None else prio,
            non_zero_requests=nz,
            pod_level_resources=pod_level_resources,
        )

    @property
    def name(self) -> str:
        return self.pod.metadata.name

    @property
    def namespace(self) -> str:
        return self.pod.metadata.namespace or ""

    @property
    def labels(self) -> dict[str, str]:
        return self.pod.metadata.labels

    def __repr__(self) -> str:
        return f"PodInfo({self.key})"


class NodeInfo:
    """One node of a snapshot, as a per-node plugin sees it: ``node`` is the Node object (an
    attribute, the snapshot sets it anew when the node is replaced: a plugin reads it once per
    node it is asked about), the rest is read from the snapshot's row when asked."""

    __slots__ = ("snapshot", "row", "node")

    def __init__(self, snapshot, row: int):
        self.snapshot = snapshot
        self.row = row
        self.node = snapshot.nodes[row]

    @property
    def name(self) -> str:
        return self.snapshot.names[self.row]

    @property
    def pods(self) -> list[PodInfo]:
        return self.snapshot.pods[self.row]

    def _as_dict(self, matrix) -> dict[str, int]:
        values = matrix[:, self.row]
        return {name: int(values[i]) for i, name in enumerate(self.snapshot.resources) if values[i]}

    @property
    def allocatable(self) -> dict[str, int]:
        return self._as_dict(self.snapshot.allocatable)

    @property
    def requested(self) -> dict[str, int]:
        return self._as_dict(self.snapshot.requested)

    @property
    def non_zero_requested(self) -> tuple[int, int]:
        cpu, mem = self.snapshot.non_zero[:, self.row]
        return int(cpu), int(mem)

    @property
    def used_ports(self) -> set[tuple[str, str, int]]:
        return self.snapshot.used_ports(self.row)

    def __repr__(self) -> str:
        return f"NodeInfo({self.name})"
