"""``v1.ResourceRequirements``: a container's (or a pod's) requests, limits and DRA claims.

>>> r = ResourceRequirements.model_validate({"requests": {"cpu": "250m"}, "claims": [{"name": "gpu"}]})
>>> r.requests["cpu"].milli_value(), r.claims[0].name
(250, 'gpu')
"""

from __future__ import annotations

from pydantic import Field

from ._base import K8sModel
from .quantity import Quantity

__all__ = ["ResourceClaim", "ResourceRequirements"]


class ResourceClaim(K8sModel):
    """``resources.claims[]``: a pod claim (``spec.resourceClaims[].name``) a container uses,
    optionally only one ``request`` of it."""

    name: str | None = None
    request: str | None = None


class ResourceRequirements(K8sModel):
    """Container (or pod-level) requests and limits."""

    limits: dict[str, Quantity] = Field(default_factory=dict)
    requests: dict[str, Quantity] = Field(default_factory=dict)
    claims: list[ResourceClaim] = Field(default_factory=list)
