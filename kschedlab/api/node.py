"""``node.k8s.io/v1``: RuntimeClass (pod overhead and scheduling constraints).

>>> rc = RuntimeClass.model_validate({"metadata": {"name": "kata"}, "handler": "kata",
...      "overhead": {"podFixed": {"cpu": "250m"}}})
>>> str(rc.overhead.pod_fixed["cpu"])
'250m'
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from ._base import K8sModel
from .core import Toleration
from .meta import KubeObject
from .quantity import Quantity

__all__ = ["RuntimeClass", "Overhead", "Scheduling"]


class Overhead(K8sModel):
    """Resources a pod of this runtime uses on top of its containers."""

    pod_fixed: dict[str, Quantity] = Field(default_factory=dict)


class Scheduling(K8sModel):
    """Node selector and tolerations merged into pods of this runtime."""

    node_selector: dict[str, str] = Field(default_factory=dict)
    tolerations: list[Toleration] = Field(default_factory=list)


class RuntimeClass(KubeObject):
    """node.k8s.io/v1 RuntimeClass (cluster-scoped)."""

    API_VERSION: ClassVar[str] = "node.k8s.io/v1"
    KIND: ClassVar[str] = "RuntimeClass"
    NAMESPACED: ClassVar[bool] = False

    handler: str | None = None
    overhead: Overhead | None = None
    scheduling: Scheduling | None = None
