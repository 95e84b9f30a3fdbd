"""Extended resources backed by DRA, as NodeResourcesFit and NodeResourcesBalancedAllocation see
them (DRAExtendedResource): a node that does not advertise an extended resource in its
allocatable, while a DeviceClass serves it, offers as many units as it has devices of that class,
and has as many in use as of those devices are allocated (upstream ``calculateDRAResourceTotals``).

>>> from kschedlab.dra.devices import read_slice
>>> s = read_slice({"metadata": {"name": "s"}, "spec": {"driver": "d", "nodeName": "n1",
...     "pool": {"name": "n1", "resourceSliceCount": 1}, "devices": [{"name": "a"}, {"name": "b"}]}})
>>> class_device_totals([s], {"metadata": {"name": "n1"}}, {"metadata": {"name": "c"}}, {("d", "n1", "a")})
(2, 1)
>>> class_device_totals([s], {"metadata": {"name": "n2"}}, {"metadata": {"name": "c"}}, set())
(0, 0)
"""

from __future__ import annotations

from typing import Iterable

from kschedlab.dra.devices import Device, Slice
from kschedlab.dra.nodeselector import NodeSelectorError, selector_matches

__all__ = ["class_device_totals", "devices_on_node"]


def _device_matches_node(node: dict, node_name: str, d: Device) -> bool:
    if d.all_nodes or d.node_name and d.node_name == node_name:
        return True
    if d.node_selector is not None:
        return selector_matches(d.node_selector, node)
    return False


def devices_on_node(s: Slice, node: dict) -> list[Device]:
    """The devices of a slice that ``node`` reaches, with upstream's shortcuts: a slice without
    node name, ``allNodes`` or selector counts for every node."""
    node_name = (node.get("metadata") or {}).get("name", "")
    if s.per_device_node_selection:
        return [d for d in s.devices if _device_matches_node(node, node_name, d)]
    if not s.all_nodes and s.node_name != node_name and s.node_selector is not None:
        return list(s.devices) if selector_matches(s.node_selector, node) else []
    if not s.all_nodes and s.node_name and s.node_name != node_name:
        return []
    return list(s.devices)


def class_device_totals(slices: Iterable[Slice], node: dict, device_class: dict,
                        allocated: set[tuple[str, str, str]], *, list_types: bool = False) -> tuple[int, int]:
    """(devices of ``device_class`` on ``node``, how many of them are allocated); (0, 0) when a
    selector fails to compile or evaluate (upstream logs the error and skips the resource).
    ``list_types``: the ``DRAListTypeAttributes`` gate, as the selectors are compiled and read."""
    from kschedlab.dra import cel

    expressions = [((sel.get("cel") or {}).get("expression") or "")
                   for sel in (device_class.get("spec") or {}).get("selectors") or []]
    try:
        compiled = [cel.compile_selector(e, list_types=list_types) for e in expressions]
        total = used = 0
        for s in slices:
            for d in devices_on_node(s, node):
                if compiled:
                    if d.view is None or getattr(d.view, "list_types", False) is not list_types:
                        d.view = cel.DeviceView(d.id[0], d.attributes, {n: c.value for n, c in d.capacity.items()},
                                                d.allow_multiple_allocations, list_types=list_types)
                    if not all(c.matches(d.view) for c in compiled):
                        continue
                total += 1
                if d.id in allocated:
                    used += 1
    except (cel.CELError, NodeSelectorError):
        return 0, 0
    return total, used
