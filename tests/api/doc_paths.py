"""Paths into a manifest document, shared by the API tests.

>>> doc = {"spec": {"containers": [{"name": "c"}]}}
>>> at(doc, ["spec", "containers", 0, "name"]), dotted(["spec", "containers", 0, "name"])
('c', 'spec.containers[0].name')
"""

from __future__ import annotations

from typing import Any


def at(node: Any, path: list | tuple) -> Any:
    """The value at ``path`` (keys and list indexes) in ``node``."""
    for step in path:
        node = node[step]
    return node


def dotted(path: list | tuple) -> str:
    """``path`` written as the API server writes a field path (``a.b[0].c``)."""
    out = ""
    for step in path:
        out += f"[{step}]" if isinstance(step, int) else (f".{step}" if out else step)
    return out
