"""The in-tree plugin args types of ``kubescheduler.config.k8s.io/v1``, for strict decoding.

kube-scheduler decodes each ``pluginConfig[].args`` of a registered plugin strictly into
its ``<Plugin>Args`` type (``PluginConfig.decodeNestedObjects``): an unknown field, or a
value of the wrong JSON type, refuses the whole configuration. :func:`args_errors` does the
same for the args of the plugins below, with each field's path; the values themselves are
validated by the plugins (``validate_args``), with upstream's messages. Args of a plugin
not listed here (an out-of-tree plugin) are not looked at, as upstream skips args of kinds
its scheme does not know.

>>> [(e["loc"], e["type"]) for e in args_errors("NodeResourcesFit",
...     {"scoringStrategy": {"type": "MostAllocated", "resorces": []}, "extra": 1})]
[(('scoringStrategy', 'resorces'), 'extra_forbidden'), (('extra',), 'extra_forbidden')]
>>> args_errors("NodeResourcesFit", {"apiVersion": "kubescheduler.config.k8s.io/v1",
...                                  "kind": "NodeResourcesFitArgs"}), args_errors("MyPlugin", {"x": 1})
([], [])
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from ._base import K8sModel
from .core import NodeAffinity, TopologySpreadConstraint

__all__ = ["args_errors", "ARGS_TYPES"]


class _TypeMeta(K8sModel):
    api_version: str | None = None
    kind: str | None = None


class ResourceSpec(K8sModel):
    """``ResourceSpec``: a resource name and its weight."""

    name: str | None = None
    weight: int | None = None


class UtilizationShapePoint(K8sModel):
    """One point of a score function shape."""

    utilization: int | None = None
    score: int | None = None


class RequestedToCapacityRatioParam(K8sModel):
    """The shape of the RequestedToCapacityRatio strategy."""

    shape: list[UtilizationShapePoint] | None = None


class ScoringStrategy(K8sModel):
    """``ScoringStrategy`` of NodeResourcesFit and PlacementBinPacking."""

    type: str | None = None
    resources: list[ResourceSpec] | None = None
    requested_to_capacity_ratio: RequestedToCapacityRatioParam | None = None


class DefaultPreemptionArgs(_TypeMeta):
    """``DefaultPreemptionArgs``."""

    min_candidate_nodes_percentage: int | None = None
    min_candidate_nodes_absolute: int | None = None


class InterPodAffinityArgs(_TypeMeta):
    """``InterPodAffinityArgs``."""

    hard_pod_affinity_weight: int | None = None
    ignore_preferred_terms_of_existing_pods: bool | None = None


class NodeResourcesFitArgs(_TypeMeta):
    """``NodeResourcesFitArgs``."""

    ignored_resources: list[str] | None = None
    ignored_resource_groups: list[str] | None = None
    scoring_strategy: ScoringStrategy | None = None


class PodTopologySpreadArgs(_TypeMeta):
    """``PodTopologySpreadArgs``."""

    default_constraints: list[TopologySpreadConstraint] | None = None
    defaulting_type: str | None = None


class NodeResourcesBalancedAllocationArgs(_TypeMeta):
    """``NodeResourcesBalancedAllocationArgs``."""

    resources: list[ResourceSpec] | None = None


class VolumeBindingArgs(_TypeMeta):
    """``VolumeBindingArgs``."""

    bind_timeout_seconds: int | None = None
    shape: list[UtilizationShapePoint] | None = None


class NodeAffinityArgs(_TypeMeta):
    """``NodeAffinityArgs``."""

    added_affinity: NodeAffinity | None = None


class DynamicResourcesArgs(_TypeMeta):
    """``DynamicResourcesArgs`` (durations as Go duration strings)."""

    filter_timeout: str | None = None
    binding_timeout: str | None = None


class PlacementBinPackingArgs(_TypeMeta):
    """``PlacementBinPackingArgs``."""

    scoring_strategy: ScoringStrategy | None = None


ARGS_TYPES: dict[str, type[K8sModel]] = {
    "DefaultPreemption": DefaultPreemptionArgs,
    "InterPodAffinity": InterPodAffinityArgs,
    "NodeResourcesFit": NodeResourcesFitArgs,
    "PodTopologySpread": PodTopologySpreadArgs,
    "NodeResourcesBalancedAllocation": NodeResourcesBalancedAllocationArgs,
    "VolumeBinding": VolumeBindingArgs,
    "NodeAffinity": NodeAffinityArgs,
    "DynamicResources": DynamicResourcesArgs,
    "PlacementBinPacking": PlacementBinPackingArgs,
}
"""Plugin name -> its v1 args type."""


def args_errors(plugin: str, args: Any) -> list[dict[str, Any]]:
    """pydantic error dicts (``type``, ``loc`` below ``args``, ``input``) of decoding ``args``
    strictly into ``plugin``'s args type; empty when they decode or the plugin has no type here."""
    model = ARGS_TYPES.get(plugin)
    if model is None:
        return []
    try:
        model.model_validate(args, by_alias=True, by_name=False)
    except ValidationError as err:
        return [{"type": e["type"], "loc": tuple(e["loc"]), "input": e.get("input"), "ctx": e.get("ctx", {}),
                 "msg": e["msg"]} for e in err.errors(include_url=False)]
    return []
