"""Scheduler profiles: the v1.37 default plugin set, merging a user's plugin
config into it, and MultiPoint expansion, as kube-scheduler does.

A profile spec is the ``profiles[i]`` entry of a KubeSchedulerConfiguration as
plain data (dict).  :func:`resolve_profile` turns it into ordered plugin names
per extension point plus score weights.

>>> r = resolve_profile({})
>>> r.points["filter"][:4]
['NodeUnschedulable', 'NodeName', 'TaintToleration', 'NodeAffinity']
>>> r.weights["TaintToleration"], r.weights["NodeResourcesFit"]
(3, 1)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kschedlab.framework.interface import EXTENSION_POINTS, MAX_NODE_SCORE, MAX_TOTAL_SCORE, REGISTRY

DEFAULT_SCHEDULER_NAME = "default-scheduler"

#: upstream's getDefaultPlugins() MultiPoint list at v1.37, in order, with weights.
DEFAULT_MULTIPOINT: list[tuple[str, int | None]] = [
    ("SchedulingGates", None),
    ("PrioritySort", None),
    ("NodeUnschedulable", None),
    ("NodeName", None),
    ("TaintToleration", 3),
    ("NodeAffinity", 2),
    ("NodePorts", None),
    ("NodeResourcesFit", 1),
    ("VolumeRestrictions", None),
    ("NodeVolumeLimits", None),
    ("VolumeBinding", None),
    ("VolumeZone", None),
    ("PodTopologySpread", 2),
    ("InterPodAffinity", 2),
    ("DynamicResources", 2),  # DynamicResourceAllocation is GA; placed before DefaultPreemption
    ("DefaultPreemption", None),
    ("NodeResourcesBalancedAllocation", 1),
    ("ImageLocality", 1),
    ("DefaultBinder", None),
    ("NodeDeclaredFeatures", None),  # NodeDeclaredFeatures is GA
]

POINTS_IN_CONFIG_ORDER = list(EXTENSION_POINTS)


def default_multipoint(gates=None) -> list[tuple[str, int | None]]:
    """``getDefaultPlugins()`` after upstream's ``applyFeatureGates``: the v1.37 list, then,
    by gate, ``DeferredPodScheduling`` inserted before NodeResourcesFit
    (InPlacePodVerticalScalingSchedulerPreemption), ``GangScheduling`` appended
    (GenericWorkload), ``TopologyPlacementGenerator`` and ``PodGroupPodsCount`` (weight 1)
    appended (TopologyAwareWorkloadScheduling). ``gates``: a FeatureGates (v1.37 defaults
    when None).

    >>> from kschedlab.features import FeatureGates
    >>> [n for n, _ in default_multipoint(FeatureGates({"GenericWorkload": True}))][-2:]
    ['NodeDeclaredFeatures', 'GangScheduling']
    >>> "GangScheduling" in [n for n, _ in default_multipoint()]
    False
    """
    if gates is None:
        from kschedlab.features import FeatureGates

        gates = FeatureGates()
    plugins = list(DEFAULT_MULTIPOINT)
    if gates.enabled("InPlacePodVerticalScalingSchedulerPreemption"):
        i = next(i for i, (n, _) in enumerate(plugins) if n == "NodeResourcesFit")
        plugins.insert(i, ("DeferredPodScheduling", None))
    if gates.enabled("GenericWorkload"):
        plugins.append(("GangScheduling", None))
    if gates.enabled("TopologyAwareWorkloadScheduling"):
        plugins.extend([("TopologyPlacementGenerator", None), ("PodGroupPodsCount", 1)])
    return plugins


class ProfileError(ValueError):
    """An impossible profile (unknown plugin, no queue sort, duplicate, ...)."""


def _plugin_set(spec: dict | None) -> tuple[list[dict], list[str]]:
    spec = spec or {}
    enabled = [dict(p) for p in spec.get("enabled") or []]
    disabled = [p["name"] for p in spec.get("disabled") or []]
    return enabled, disabled


def merge_plugin_set(default: tuple[list[dict], list[str]], custom: tuple[list[dict], list[str]]):
    """``mergePluginSet``: custom entries replace defaults in place, the rest are appended."""
    d_enabled, d_disabled = default
    c_enabled, c_disabled = custom
    disabled = list(c_disabled) + list(d_disabled)
    custom_index = {p["name"]: i for i, p in enumerate(c_enabled)}
    replaced: set[int] = set()
    enabled: list[dict] = []
    if "*" not in disabled:
        for plugin in d_enabled:
            if plugin["name"] in disabled:
                continue
            if plugin["name"] in custom_index:
                i = custom_index[plugin["name"]]
                plugin = c_enabled[i]
                replaced.add(i)
            enabled.append(plugin)
    enabled.extend(p for i, p in enumerate(c_enabled) if i not in replaced)
    return enabled, disabled


@dataclass
class ResolvedProfile:
    scheduler_name: str
    points: dict[str, list[str]]
    weights: dict[str, int]
    plugin_config: dict[str, dict]
    percentage_of_nodes_to_score: int | None
    needed: list[str] = field(default_factory=list)
    #: PlacementScore weights (the same ``weight`` field as Score, 1 when unset)
    placement_weights: dict[str, int] = field(default_factory=dict)
    #: the profile's ``percentageOfPlacementsToScore`` (None: the configuration's)
    percentage_of_placements_to_score: int | None = None


def default_plugins(registry: dict, gates=None) -> list[dict]:
    """The default MultiPoint list (for these feature gates), limited to the plugins in ``registry``."""
    return [{"name": n, **({"weight": w} if w else {})} for n, w in default_multipoint(gates) if n in registry]


def unmodelled_defaults(registry: dict, gates=None) -> list[str]:
    """Upstream default plugins that ``registry`` does not implement (yet)."""
    return [n for n, _ in default_multipoint(gates) if n not in registry]


def implements(cls, point: str) -> bool:
    """Whether plugin class ``cls`` has a method for extension point ``point``."""
    return any(callable(getattr(cls, m, None)) for m in EXTENSION_POINTS[point])


#: old plugin name -> the name upstream registers it under now
RENAMED_PLUGINS = {"TopologyPlacement": "TopologyPlacementGenerator"}


def renamed_plugins(profile: dict) -> dict:
    """``profile`` with the plugins of :data:`RENAMED_PLUGINS` under their current names, each
    old name met warned about once (a DeprecationWarning); the dict given is left as it is.

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     p = renamed_plugins({"plugins": {"placementGenerate": {"enabled": [{"name": "TopologyPlacement"}]}}})
    >>> p["plugins"]["placementGenerate"]["enabled"], str(w[0].message)
    ([{'name': 'TopologyPlacementGenerator'}], 'plugin "TopologyPlacement" is now named "TopologyPlacementGenerator"')
    """
    import copy
    import warnings

    out = copy.deepcopy(profile)
    seen: set[str] = set()

    def rename(entry: dict) -> None:
        new = RENAMED_PLUGINS.get(entry.get("name"))
        if new is None:
            return
        if entry["name"] not in seen:
            seen.add(entry["name"])
            warnings.warn(f'plugin "{entry["name"]}" is now named "{new}"', DeprecationWarning, stacklevel=4)
        entry["name"] = new

    for spec in (out.get("plugins") or {}).values():
        for key in ("enabled", "disabled"):
            for entry in (spec or {}).get(key) or []:
                rename(entry)
    for item in out.get("pluginConfig") or []:
        rename(item)
    return out


def resolve_profile(profile: dict, registry: dict | None = None, gates=None) -> ResolvedProfile:
    """Merge ``profile`` (a KubeSchedulerConfiguration profile dict) with the
    defaults and expand MultiPoint; ``registry`` maps plugin names to classes
    (default: every plugin registered with ``@register``, the in-tree ones included); ``gates`` (a FeatureGates, v1.37 defaults when
    None) decide the gated default plugins. A plugin's former name (:data:`RENAMED_PLUGINS`) is
    accepted with a DeprecationWarning.
    """
    if registry is None:
        registry = REGISTRY
    profile = renamed_plugins(profile)

    def is_known(name: str) -> bool:
        return name in registry

    def implements_point(name: str, point: str) -> bool:
        return implements(registry[name], point)
    # upstream NewFramework refuses a repeated pluginConfig before looking at the plugins
    plugin_config: dict[str, dict] = {}
    for item in profile.get("pluginConfig") or []:
        if item["name"] in plugin_config:
            raise ProfileError(f"repeated config for plugin {item['name']!r}")
        plugin_config[item["name"]] = item.get("args") or {}

    plugins_cfg: dict[str, Any] = profile.get("plugins") or {}
    merged: dict[str, tuple[list[dict], list[str]]] = {}
    defaults = {"multiPoint": (default_plugins(registry, gates), [])}
    for point in ["multiPoint", *POINTS_IN_CONFIG_ORDER]:
        base = defaults.get(point, ([], []))
        merged[point] = merge_plugin_set(base, _plugin_set(plugins_cfg.get(point)))

    multipoint_enabled, _ = merged["multiPoint"]
    points: dict[str, list[str]] = {}
    for point in POINTS_IN_CONFIG_ORDER:
        enabled, disabled = merged[point]
        explicit = [p["name"] for p in enabled]
        for name in explicit:
            if not is_known(name):
                raise ProfileError(f"{point} plugin {name!r} does not exist")
            if not implements_point(name, point):
                raise ProfileError(f"plugin {name!r} does not extend {point} plugin")
        if "*" in disabled:
            points[point] = explicit
            continue
        overrides, from_multipoint = [], []
        for entry in multipoint_enabled:
            name = entry["name"]
            if not is_known(name):
                raise ProfileError(f"multiPoint plugin {name!r} does not exist")
            if not implements_point(name, point) or name in disabled:
                continue
            if name in explicit:
                overrides.append(name)
                continue
            if name in from_multipoint:
                raise ProfileError(f"plugin {name!r} already registered as {point!r}")
            from_multipoint.append(name)
        ordered = [n for n in explicit if n in overrides] + from_multipoint + [
            n for n in explicit if n not in overrides]
        dup = next((n for i, n in enumerate(ordered) if n in ordered[:i]), None)
        if dup is not None:  # upstream updatePluginList's wording
            raise ProfileError(f"plugin {dup!r} already registered as {point!r}")
        points[point] = ordered

    scheduler_name = profile.get("schedulerName") or DEFAULT_SCHEDULER_NAME
    if len(points["queueSort"]) != 1:
        raise ProfileError(
            f"only one queue sort plugin required for profile with scheduler name "
            f"{scheduler_name!r}, but got {len(points['queueSort'])}")
    if not points["bind"]:
        raise ProfileError(f"at least one bind plugin is needed for profile with scheduler name {scheduler_name!r}")

    weights: dict[str, int] = {}
    total = 0
    for entry in [*merged["score"][0], *multipoint_enabled]:
        name = entry["name"]
        if name not in points["score"] or name in weights:
            continue
        weight = int(entry.get("weight") or 0) or 1
        if weight * MAX_NODE_SCORE > MAX_TOTAL_SCORE - total:
            raise ProfileError("total score of Score plugins could overflow")
        weights[name] = weight
        total += weight * MAX_NODE_SCORE

    placement_weights: dict[str, int] = {}
    for entry in [*merged["placementScore"][0], *multipoint_enabled]:
        name = entry["name"]
        if name in points["placementScore"] and name not in placement_weights:
            placement_weights[name] = int(entry.get("weight") or 0) or 1

    needed: list[str] = []
    for names in points.values():
        needed.extend(n for n in names if n not in needed)
    return ResolvedProfile(scheduler_name, points, weights, plugin_config,
                           profile.get("percentageOfNodesToScore"), needed, placement_weights,
                           profile.get("percentageOfPlacementsToScore"))
