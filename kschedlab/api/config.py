"""``kubescheduler.config.k8s.io/v1``: KubeSchedulerConfiguration.

Plugin args stay plain dicts here; the framework parses and validates them. They are decoded
strictly first, as kube-scheduler decodes them (:mod:`kschedlab.api.plugin_args`): an unknown
field or a value of the wrong type is refused with its path.

>>> cfg = KubeSchedulerConfiguration.model_validate({
...     "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
...     "profiles": [{"schedulerName": "default-scheduler",
...                   "plugins": {"score": {"enabled": [{"name": "NodeResourcesFit", "weight": 2}]}},
...                   "pluginConfig": [{"name": "NodeResourcesFit",
...                                     "args": {"scoringStrategy": {"type": "MostAllocated"}}}]}]})
>>> cfg.profiles[0].plugins.score.enabled[0].weight
2
>>> cfg.profiles[0].plugin_config[0].args["scoringStrategy"]["type"]
'MostAllocated'
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field, ValidationError, model_validator

from ._base import K8sModel
from .meta import TypedObject
from .plugin_args import args_errors

__all__ = [
    "KubeSchedulerConfiguration",
    "KubeSchedulerProfile",
    "Plugins",
    "PluginSet",
    "Plugin",
    "PluginConfig",
    "EXTENSION_POINTS",
]

EXTENSION_POINTS = (
    "preEnqueue",
    "queueSort",
    "preFilter",
    "filter",
    "postFilter",
    "preScore",
    "score",
    "reserve",
    "permit",
    "preBind",
    "bind",
    "postBind",
    "multiPoint",
    "placementGenerate",
    "placementScore",
    "placementFeasible",
    "podGroupPostFilter",
)
"""JSON names of the ``plugins`` sections, in upstream's declaration order."""


class Plugin(K8sModel):
    """A plugin name and (for Score / PlacementScore) its weight."""

    name: str | None = None
    weight: int | None = None


class PluginSet(K8sModel):
    """Enabled and disabled plugins of one extension point."""

    enabled: list[Plugin] = Field(default_factory=list)
    disabled: list[Plugin] = Field(default_factory=list)


class Plugins(K8sModel):
    """The plugin sets of a profile, one per extension point."""

    pre_enqueue: PluginSet = Field(default_factory=PluginSet)
    queue_sort: PluginSet = Field(default_factory=PluginSet)
    pre_filter: PluginSet = Field(default_factory=PluginSet)
    filter: PluginSet = Field(default_factory=PluginSet)
    post_filter: PluginSet = Field(default_factory=PluginSet)
    pre_score: PluginSet = Field(default_factory=PluginSet)
    score: PluginSet = Field(default_factory=PluginSet)
    reserve: PluginSet = Field(default_factory=PluginSet)
    permit: PluginSet = Field(default_factory=PluginSet)
    pre_bind: PluginSet = Field(default_factory=PluginSet)
    bind: PluginSet = Field(default_factory=PluginSet)
    post_bind: PluginSet = Field(default_factory=PluginSet)
    multi_point: PluginSet = Field(default_factory=PluginSet)
    placement_generate: PluginSet = Field(default_factory=PluginSet)
    placement_score: PluginSet = Field(default_factory=PluginSet)
    placement_feasible: PluginSet = Field(default_factory=PluginSet)
    pod_group_post_filter: PluginSet = Field(default_factory=PluginSet)


class PluginConfig(K8sModel):
    """Arguments for one plugin (kept as a plain dict)."""

    name: str | None = None
    args: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _decode_args_strictly(self) -> "PluginConfig":
        errors = args_errors(self.name or "", self.args)
        if errors:
            raise ValidationError.from_exception_data("PluginConfig", [
                {"type": e["type"], "loc": ("args", *e["loc"]), "input": e["input"], "ctx": e["ctx"]}
                for e in errors])
        return self


class KubeSchedulerProfile(K8sModel):
    """One scheduling profile."""

    scheduler_name: str | None = None
    percentage_of_nodes_to_score: int | None = None
    percentage_of_placements_to_score: int | None = None
    plugins: Plugins | None = None
    plugin_config: list[PluginConfig] = Field(default_factory=list)


class KubeSchedulerConfiguration(TypedObject):
    """kubescheduler.config.k8s.io/v1 KubeSchedulerConfiguration (no metadata)."""

    API_VERSION: ClassVar[str] = "kubescheduler.config.k8s.io/v1"
    KIND: ClassVar[str] = "KubeSchedulerConfiguration"
    NAMESPACED: ClassVar[bool] = False

    parallelism: int | None = None
    leader_election: Any = None
    client_connection: Any = None
    enable_profiling: bool | None = None
    enable_contention_profiling: bool | None = None
    percentage_of_nodes_to_score: int | None = None
    percentage_of_placements_to_score: int | None = None
    pod_initial_backoff_seconds: int | None = None
    pod_max_backoff_seconds: int | None = None
    profiles: list[KubeSchedulerProfile] = Field(default_factory=list)
    extenders: list[Any] = Field(default_factory=list)
    delay_cache_until_active: bool | None = None
