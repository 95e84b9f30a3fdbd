"""In-tree plugins, one module per upstream plugin, registered by name."""

from __future__ import annotations

import importlib

from kschedlab.framework.interface import REGISTRY

_MODULES = (
    "scheduling_gates",
    "queuesort",
    "node_unschedulable",
    "node_name",
    "node_ports",
    "node_resources_fit",
    "node_resources_balanced_allocation",
    "node_affinity",
    "inter_pod_affinity",
    "taint_toleration",
    "pod_topology_spread",
    "image_locality",
    "default_binder",
    "default_preemption",
    "gang_scheduling",
    "topology_placement",
    "podgroup_pods_count",
)


def in_tree_registry() -> dict:
    """Plugin name -> class for every in-tree plugin kschedlab implements."""
    for module in _MODULES:
        importlib.import_module(f"{__name__}.{module}")
    return dict(REGISTRY)
