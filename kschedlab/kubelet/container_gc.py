"""The kubelet's dead-container garbage collection (upstream
``pkg/kubelet/kuberuntime/kuberuntime_gc.go``, policy from ``pkg/kubelet/container/container_gc.go``):
which exited containers it removes, freeing their writable layers and logs.

Containers are grouped per (pod, container name). A running container is never touched,
nor one created less than ``min_age`` ago (``--minimum-container-ttl-duration``, 0). Then:

1. every dead container of a pod whose content should be removed (evicted, or deleted and
   terminated) goes -- and, for the eviction manager's ``DeleteAllUnusedContainers``, also
   those of any terminated pod;
2. of the rest, each group keeps its ``max_per_pod_container`` newest (``--maximum-dead-containers-per-container``, 1);
3. overall at most ``max_containers`` stay (``--maximum-dead-containers``, -1: no limit):
   first each group is cut to ``max_containers // groups`` (at least 1), then the oldest go.

The periodic collection runs every minute (``ContainerGCPeriod``); the eviction manager calls
``DeleteAllUnusedContainers`` as node-level reclaim before it ranks pods.

>>> dead = [DeadContainer("ns/a", "app", created=10, pod_removable=False, disk=5),
...         DeadContainer("ns/a", "app", created=20, pod_removable=False, disk=7),
...         DeadContainer("ns/b", "app", created=15, pod_removable=True, disk=9)]
>>> [(c.pod, c.created) for c in evictable_dead_containers(dead, now=60)]
[('ns/b', 15), ('ns/a', 10)]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

__all__ = ["CONTAINER_GC_PERIOD", "ContainerGCPolicy", "DeadContainer", "evictable_dead_containers"]

#: seconds between two periodic container collections (upstream ``ContainerGCPeriod``)
CONTAINER_GC_PERIOD = 60.0


@dataclass(frozen=True)
class ContainerGCPolicy:
    """``MinAge`` (seconds), ``MaxPerPodContainer``, ``MaxContainers`` (kubelet defaults 0, 1, -1)."""

    min_age: float = 0.0
    max_per_pod_container: int = 1
    max_containers: int = -1


@dataclass(frozen=True)
class DeadContainer:
    """An exited container still on disk: its pod, name, creation time, image, whether its
    pod's content should go (``pod_removable``: evicted, or deleted and terminated), whether its
    pod is terminated, and the bytes / inodes its writable layer and logs hold."""

    pod: str
    name: str
    created: float
    pod_removable: bool = False
    pod_terminated: bool = False
    image: str = ""
    disk: int = 0
    logs: int = 0
    inodes: int = 0
    #: the instance's restart count (tells instances of one container apart)
    attempt: int = 0


def evictable_dead_containers(dead: Sequence[DeadContainer], now: float, policy: ContainerGCPolicy | None = None,
                              *, evict_non_deleted_pods: bool = False, all_sources_ready: bool = True
                              ) -> list[DeadContainer]:
    """The dead containers one collection removes, in removal order (see the module docstring)."""
    policy = policy or ContainerGCPolicy()
    units: dict[tuple[str, str], list[DeadContainer]] = {}
    for c in dead:
        if now - c.created < policy.min_age:
            continue
        units.setdefault((c.pod, c.name), []).append(c)
    for unit in units.values():
        unit.sort(key=lambda c: -c.created)  # newest first, as upstream sorts each unit
    removed: list[DeadContainer] = []
    if all_sources_ready:
        for key in list(units):
            unit = units[key]
            if unit[0].pod_removable or (evict_non_deleted_pods and unit[0].pod_terminated):
                removed.extend(reversed(unit))
                del units[key]
    if policy.max_per_pod_container >= 0:
        for key, unit in units.items():
            extra = len(unit) - policy.max_per_pod_container
            if extra > 0:
                removed.extend(reversed(unit[-extra:]))
                units[key] = unit[:-extra]
    if policy.max_containers >= 0 and sum(map(len, units.values())) > policy.max_containers:
        per_unit = max(policy.max_containers // len(units), 1)
        for key, unit in units.items():
            extra = len(unit) - per_unit
            if extra > 0:
                removed.extend(reversed(unit[-extra:]))
                units[key] = unit[:-extra]
        left = sorted((c for u in units.values() for c in u), key=lambda c: c.created)
        extra = len(left) - policy.max_containers
        if extra > 0:
            removed.extend(left[:extra])
    return removed
