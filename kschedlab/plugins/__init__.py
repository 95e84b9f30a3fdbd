"""In-tree plugins, one module per upstream plugin, registered by name."""

from __future__ import annotations

from kschedlab.framework.interface import REGISTRY

# Importing a plugin module registers its plugin (``@register``) in the framework's REGISTRY,
# so every in-tree plugin is known as soon as this package is imported.
from kschedlab.plugins import (  # noqa: E402,F401
    default_binder,
    default_preemption,
    dynamic_resources,
    gang_scheduling,
    image_locality,
    inter_pod_affinity,
    node_affinity,
    node_declared_features,
    node_name,
    node_ports,
    node_resources_balanced_allocation,
    node_resources_fit,
    node_unschedulable,
    node_volume_limits,
    pod_topology_spread,
    podgroup_pods_count,
    queuesort,
    scheduling_gates,
    taint_toleration,
    topology_placement,
    volume_binding,
    volume_restrictions,
    volume_zone,
)


def in_tree_registry() -> dict:
    """Plugin name -> class for every plugin registered so far: the in-tree ones, and any
    out-of-tree plugin decorated with ``@register``."""
    return dict(REGISTRY)
