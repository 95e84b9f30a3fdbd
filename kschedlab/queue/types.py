"""``QueuedPodInfo``: a pod in the scheduling queue plus its queueing state
(upstream ``framework.QueuedPodInfo`` / ``QueueingParams``).

Times are float seconds from the queue's clock.

>>> from kschedlab.api.core import Pod
>>> from kschedlab.framework.types import PodInfo
>>> q = QueuedPodInfo(PodInfo.of(Pod.model_validate({"metadata": {"name": "p", "namespace": "ns"}})), 10.0)
>>> q.key, q.gated, q.attempts, q.unschedulable_plugins
('ns/p', False, 0, set())
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

NANOS = 1_000_000_000


def to_nanos(seconds: float) -> int:
    """Float seconds to integer nanoseconds (the queue computes backoff in integers, as Go does)."""
    return round(seconds * NANOS)


@dataclass(eq=False)
class QueuedPodInfo:
    """A queued pod. The first four fields keep the shape of ``kschedlab.scheduler.schedule_one.QueuedPodInfo``."""

    pod_info: Any
    #: when the pod was added, or last came back after a failed attempt (QueueSort's tie-breaker)
    timestamp: float
    #: scheduling attempts so far (incremented at every pop)
    attempts: int = 0
    #: when the pod first entered activeQ (None while it was only ever gated)
    initial_attempt_timestamp: float | None = None
    #: plugins that rejected the pod in its last attempt (Unschedulable / UnschedulableAndUnresolvable)
    unschedulable_plugins: set[str] = field(default_factory=set)
    #: plugins that returned Pending in its last attempt (a Queue from them skips backoff)
    pending_plugins: set[str] = field(default_factory=set)
    #: attempts that ended rejected by plugins (drives the backoff)
    unschedulable_count: int = 0
    #: attempts in a row that ended in an error (drives the backoff while > 0)
    consecutive_errors_count: int = 0
    #: cached backoff expiry in integer nanoseconds (None = not computed yet)
    backoff_expiration_ns: int | None = None
    #: the PreEnqueue plugin holding the pod back ("" when not gated)
    gating_plugin: str = ""
    #: the events the gating plugin registered (only those can ungate the pod)
    gating_plugin_events: list = field(default_factory=list)
    #: the pod left the unschedulable pool through the podMaxInUnschedulablePodsDuration flush
    was_flushed_from_unschedulable: bool = False
    #: when the leftover flush last moved (or re-evaluated) this pod
    flush_timestamp: float | None = None

    @property
    def pod(self):
        return self.pod_info.pod

    @property
    def key(self) -> str:
        return self.pod_info.key

    @property
    def gated(self) -> bool:
        """Held back by a PreEnqueue plugin (``Gated()``)."""
        return self.gating_plugin != ""

    @property
    def backoff_expiration(self) -> float | None:
        """The cached backoff expiry in seconds (None until computed)."""
        return None if self.backoff_expiration_ns is None else self.backoff_expiration_ns / NANOS

    @property
    def rejector_plugins(self) -> set[str]:
        return self.unschedulable_plugins | self.pending_plugins

    def __repr__(self) -> str:
        extra = f", gated by {self.gating_plugin}" if self.gated else ""
        return (f"QueuedPodInfo({self.key}, timestamp={self.timestamp:g}, attempts={self.attempts}, "
                f"unschedulable_plugins={sorted(self.unschedulable_plugins)}{extra})")
