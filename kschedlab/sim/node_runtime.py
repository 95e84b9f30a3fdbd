"""What a simulated node's container runtime holds besides running pods: its images, its
dead containers, the state of each pod's container (running, or waiting to restart after
an OOM kill), and where each byte lives for the node's filesystem layout.  Used by
:mod:`kschedlab.sim.kubelet`.

Filesystems by layout (what each one's ``used`` counts; ``system`` is
``spec.kubelet[].systemUsage``; dead containers keep their writable layer and logs until
garbage-collected):

==========  =====================================  ===================================  ===================
layout      nodefs (``node.fs``)                   imagefs (``runtime.imageFs``)        containerfs
==========  =====================================  ===================================  ===================
single      system + images + writable layers      (nodefs itself)                      (nodefs itself)
            + logs
imagefs     system + logs                          images + writable layers             (imagefs itself)
split       system + logs + writable layers        images                               (nodefs itself)
==========  =====================================  ===================================  ===================

The kubelet's image GC sees an image as in use while any container of the node, running
or dead, was made from it -- so deleting dead containers first can make images collectable.

>>> rt = NodeRuntime("single", images=[Image("redis:latest", 100)])
>>> rt.image_bytes(), rt.filesystems({"writable": 5, "logs": 2, "system": 10}, nodefs_capacity=1000)["nodefs"]
(100, {'capacity': 1000, 'used': 117})
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Iterable

from kschedlab.api.core import normalize_image_name
from kschedlab.kubelet.container_gc import (
    CONTAINER_GC_PERIOD,
    ContainerGCPolicy,
    DeadContainer,
    evictable_dead_containers,
)
from kschedlab.kubelet.images import (
    IMAGE_DETECT_PERIOD,
    IMAGE_GC_PERIOD,
    GCResult,
    Image,
    ImageGCManager,
    ImageGCPolicy,
)

__all__ = ["NodeRuntime", "ContainerState", "INITIAL_RESTART_BACKOFF", "MAX_RESTART_BACKOFF",
           "BACKOFF_RESET_AFTER", "restart_backoff", "first_crossing"]

#: the kubelet's crash-loop back-off: first restart after 10 s, doubling up to 5 min
INITIAL_RESTART_BACKOFF = 10.0
MAX_RESTART_BACKOFF = 300.0
#: a container that ran this long since its last start begins its back-off afresh
BACKOFF_RESET_AFTER = 2 * MAX_RESTART_BACKOFF


def restart_backoff(level: int) -> float:
    """Seconds before the restart after the ``level``-th failure in a row (0 = the first).

    >>> [restart_backoff(i) for i in range(7)]
    [10.0, 20.0, 40.0, 80.0, 160.0, 300.0, 300.0]
    """
    return min(INITIAL_RESTART_BACKOFF * 2 ** min(level, 16), MAX_RESTART_BACKOFF)


@dataclass
class ContainerState:
    """The usage-bearing (first) container of a pod on its node."""

    name: str
    image: str
    started: float
    restart_count: int = 0
    waiting_until: float | None = None
    backoff_level: int = 0
    last_terminated: dict | None = None

    def running(self, now: float) -> bool:
        """Whether the container runs at ``now`` (not in its restart back-off)."""
        return self.waiting_until is None or now >= self.waiting_until


class NodeRuntime:
    """One node's images, dead containers and garbage collectors (see the module docstring)."""

    def __init__(self, layout: str = "single", images: Iterable[Image] = (), image_policy: ImageGCPolicy | None = None,
                 container_policy: ContainerGCPolicy | None = None) -> None:
        self.layout = layout
        self.images: dict[str, Image] = {i.id: i for i in images}
        self.image_gc = ImageGCManager(image_policy)
        self.container_policy = container_policy or ContainerGCPolicy()
        self.dead: list[DeadContainer] = []
        self.next_detect = IMAGE_DETECT_PERIOD
        self.next_image_gc = IMAGE_GC_PERIOD
        self.next_container_gc = CONTAINER_GC_PERIOD
        # images the node has when the simulation starts: known to the kubelet long before
        self.image_gc.detect_images(self.images.values(), set(), None)

    # -- images ------------------------------------------------------------------------------
    def image_bytes(self) -> int:
        """Bytes the node's images take."""
        return sum(i.size for i in self.images.values())

    def has_image(self, name: str) -> bool:
        """Whether the node holds ``name`` (normalized as ImageLocality does)."""
        return normalize_image_name(name) in self.images

    def pull(self, name: str, size: int) -> bool:
        """The image ``name`` pulled (no-op when present); True when it was new."""
        key = normalize_image_name(name)
        if key in self.images:
            return False
        self.images[key] = Image(key, size)
        return True

    def images_in_use(self, running_images: Iterable[str]) -> set[str]:
        """Images of running containers plus those of dead containers (the runtime lists both)."""
        return {normalize_image_name(i) for i in running_images if i} | \
               {normalize_image_name(c.image) for c in self.dead if c.image}

    def detect(self, running_images: Iterable[str], now: float) -> None:
        """The image manager's periodic detection (every 5 min)."""
        self.image_gc.detect_images(self.images.values(), self.images_in_use(running_images), now)
        self.next_detect = now + IMAGE_DETECT_PERIOD

    def _remove_images(self, result: GCResult) -> None:
        for i in result.removed:
            self.images.pop(i, None)

    def delete_unused_images(self, running_images: Iterable[str], now: float) -> GCResult:
        """The eviction manager's ``DeleteUnusedImages``."""
        result = self.image_gc.delete_unused_images(self.images.values(), self.images_in_use(running_images), now)
        self._remove_images(result)
        return result

    def garbage_collect_images(self, running_images: Iterable[str], now: float, capacity: int,
                               available: int) -> GCResult:
        """The periodic image collection (every 5 min) on the image filesystem."""
        result = self.image_gc.garbage_collect(self.images.values(), self.images_in_use(running_images), now,
                                               capacity, available)
        self._remove_images(result)
        self.next_image_gc = now + IMAGE_GC_PERIOD
        return result

    # -- dead containers -------------------------------------------------------------------
    def add_dead(self, container: DeadContainer) -> None:
        """A container exited (its writable layer and logs stay until collected)."""
        self.dead.append(container)

    def collectable_containers(self, now: float, *, evict_non_deleted_pods: bool = False) -> list[DeadContainer]:
        """The dead containers a collection at ``now`` would remove."""
        return evictable_dead_containers(self.dead, now, self.container_policy,
                                         evict_non_deleted_pods=evict_non_deleted_pods)

    def remove_containers(self, now: float, *, evict_non_deleted_pods: bool = False,
                          periodic: bool = False) -> list[DeadContainer]:
        """Collect dead containers (``DeleteAllUnusedContainers`` with ``evict_non_deleted_pods``)."""
        gone = self.collectable_containers(now, evict_non_deleted_pods=evict_non_deleted_pods)
        ids = {id(c) for c in gone}
        self.dead = [c for c in self.dead if id(c) not in ids]
        if periodic:
            self.next_container_gc = now + CONTAINER_GC_PERIOD
        return gone

    # -- filesystems -------------------------------------------------------------------------
    def dead_usage(self) -> dict[str, int]:
        """Bytes and inodes dead containers hold (writable layers, logs)."""
        return {"writable": sum(c.disk for c in self.dead), "logs": sum(c.logs for c in self.dead),
                "inodes": sum(c.inodes for c in self.dead)}

    def filesystems(self, used: dict[str, int], *, nodefs_capacity: int, imagefs_capacity: int | None = None,
                    images: int | None = None) -> dict[str, dict[str, int]]:
        """``{"nodefs", "imagefs", "containerfs"}`` -> ``{capacity, used}`` for the layout, from
        ``used`` = ``{"writable", "logs", "system"}`` bytes (running and dead containers) and
        ``images`` (default: the node's image bytes)."""
        images = self.image_bytes() if images is None else images
        w, logs, system = used.get("writable", 0), used.get("logs", 0), used.get("system", 0)
        if self.layout == "single":
            nodefs = {"capacity": nodefs_capacity, "used": system + images + w + logs}
            return {"nodefs": nodefs, "imagefs": nodefs, "containerfs": nodefs}
        imagefs_capacity = imagefs_capacity or 0
        if self.layout == "imagefs":
            nodefs = {"capacity": nodefs_capacity, "used": system + logs}
            imagefs = {"capacity": imagefs_capacity, "used": images + w}
            return {"nodefs": nodefs, "imagefs": imagefs, "containerfs": imagefs}
        nodefs = {"capacity": nodefs_capacity, "used": system + logs + w}
        imagefs = {"capacity": imagefs_capacity, "used": images}
        return {"nodefs": nodefs, "imagefs": imagefs, "containerfs": nodefs}


def first_crossing(f: Callable[[float], int], limit: int, start: float, breakpoints: Iterable[float]) -> float | None:
    """The first time ``t >= start`` with ``f(t) > limit``, for an ``f`` linear between
    ``breakpoints`` (found to the millisecond; None: never).

    >>> first_crossing(lambda t: 100 * t, 250, 0.0, [0.0, 10.0])
    2.501
    """
    if f(start) > limit:
        return start
    points = sorted({b for b in breakpoints if b > start})
    lo = start
    for b in points:
        before = b - 1e-6  # just before a drop at b
        if f(b) > limit or (before > lo and f(before) > limit):
            hi = b if f(b) > limit and not (before > lo and f(before) > limit) else before
            for _ in range(60):
                mid = (lo + hi) / 2
                if f(mid) > limit:
                    hi = mid
                else:
                    lo = mid
            t = round(math.ceil(hi * 1000 - 1e-6) / 1000, 3)
            for _ in range(3):  # float rounding: the next millisecond
                if t >= start and f(t) > limit:
                    return t
                t = round(t + 0.001, 3)
            return hi
        lo = b
    return None
