"""``scheduling.k8s.io/v1``: PriorityClass.

>>> pc = PriorityClass.model_validate({"metadata": {"name": "high"}, "value": 1000})
>>> pc.value, pc.effective_preemption_policy()
(1000, 'PreemptLowerPriority')
"""

from __future__ import annotations

from typing import ClassVar

from .meta import KubeObject

__all__ = [
    "PriorityClass",
    "SYSTEM_CLUSTER_CRITICAL",
    "SYSTEM_NODE_CRITICAL",
    "SYSTEM_CRITICAL_PRIORITY",
    "HIGHEST_USER_DEFINABLE_PRIORITY",
    "SYSTEM_PRIORITY_CLASSES",
    "system_priority_classes",
]

SYSTEM_CLUSTER_CRITICAL = "system-cluster-critical"
SYSTEM_NODE_CRITICAL = "system-node-critical"
SYSTEM_CRITICAL_PRIORITY = 2 * 1_000_000_000
HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000
SYSTEM_PRIORITY_CLASS_PREFIX = "system-"
SYSTEM_PRIORITY_CLASSES = {
    SYSTEM_NODE_CRITICAL: SYSTEM_CRITICAL_PRIORITY + 1000,
    SYSTEM_CLUSTER_CRITICAL: SYSTEM_CRITICAL_PRIORITY,
}
"""The classes the API server creates at bootstrap (name -> value)."""


class PriorityClass(KubeObject):
    """scheduling.k8s.io/v1 PriorityClass (cluster-scoped)."""

    API_VERSION: ClassVar[str] = "scheduling.k8s.io/v1"
    KIND: ClassVar[str] = "PriorityClass"
    NAMESPACED: ClassVar[bool] = False

    value: int | None = None
    global_default: bool | None = None
    description: str | None = None
    preemption_policy: str | None = None

    def effective_preemption_policy(self) -> str:
        """``preemptionPolicy`` with the API default (PreemptLowerPriority).

        >>> PriorityClass(preemption_policy="Never").effective_preemption_policy()
        'Never'
        """
        return self.preemption_policy or "PreemptLowerPriority"


def system_priority_classes() -> list[PriorityClass]:
    """The built-in classes as objects (system-node-critical, system-cluster-critical).

    >>> [(p.name, p.value) for p in system_priority_classes()]
    [('system-node-critical', 2000001000), ('system-cluster-critical', 2000000000)]
    """
    descriptions = {
        SYSTEM_NODE_CRITICAL: "Used for system critical pods that must not be moved from their current node.",
        SYSTEM_CLUSTER_CRITICAL: "Used for system critical pods that must run in the cluster, "
        "but can be moved to another node if necessary.",
    }
    return [
        PriorityClass(
            metadata={"name": name},
            value=value,
            description=descriptions[name],
            preemption_policy="PreemptLowerPriority",
        )
        for name, value in SYSTEM_PRIORITY_CLASSES.items()
    ]
