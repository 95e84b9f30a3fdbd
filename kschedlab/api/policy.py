"""``policy/v1``: PodDisruptionBudget.

>>> pdb = PodDisruptionBudget.model_validate({"metadata": {"name": "web", "namespace": "default"},
...     "spec": {"minAvailable": 2, "selector": {"matchLabels": {"app": "web"}}},
...     "status": {"disruptionsAllowed": 1}})
>>> pdb.spec.min_available, pdb.status.disruptions_allowed
(2, 1)

``status.conditions`` are ``metav1.Condition``s: a misspelt key there is refused with its path.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from ._base import IntOrString, K8sModel, Time
from .meta import Condition, KubeObject, LabelSelector

__all__ = ["PodDisruptionBudget", "PodDisruptionBudgetSpec", "PodDisruptionBudgetStatus"]


class PodDisruptionBudgetSpec(K8sModel):
    """policy/v1 PodDisruptionBudgetSpec."""

    min_available: IntOrString | None = None
    selector: LabelSelector | None = None
    max_unavailable: IntOrString | None = None
    unhealthy_pod_eviction_policy: str | None = None


class PodDisruptionBudgetStatus(K8sModel):
    """policy/v1 PodDisruptionBudgetStatus."""

    observed_generation: int | None = None
    disrupted_pods: dict[str, Time] = Field(default_factory=dict)
    disruptions_allowed: int | None = None
    current_healthy: int | None = None
    desired_healthy: int | None = None
    expected_pods: int | None = None
    conditions: list[Condition] = Field(default_factory=list)


class PodDisruptionBudget(KubeObject):
    """policy/v1 PodDisruptionBudget."""

    API_VERSION: ClassVar[str] = "policy/v1"
    KIND: ClassVar[str] = "PodDisruptionBudget"
    NAMESPACED: ClassVar[bool] = True

    spec: PodDisruptionBudgetSpec = Field(default_factory=PodDisruptionBudgetSpec)
    status: PodDisruptionBudgetStatus = Field(default_factory=PodDisruptionBudgetStatus)
