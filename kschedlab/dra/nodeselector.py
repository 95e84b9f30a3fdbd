"""Node selection for ResourceSlices and devices, and the allocation's node selector.

``node_matches`` is upstream's ``NodeMatches`` (a node name, all nodes, or a
``v1.NodeSelector`` matched against one node); ``allocation_node_selector`` builds
the ``nodeSelector`` of an ``AllocationResult`` as upstream's ``createNodeSelector``.

>>> node = {"metadata": {"name": "node-1", "labels": {"region": "r1"}}}
>>> node_matches(node, "", False, {"nodeSelectorTerms": [{"matchExpressions": [
...     {"key": "region", "operator": "In", "values": ["r1"]}]}]})
True
>>> node_matches(node, "node-2", False, None)
False
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

import numpy as np

__all__ = ["node_matches", "selector_matches", "NodeSelectorError", "local_node_selector",
           "allocation_node_selector", "selector_mask"]


class NodeSelectorError(ValueError):
    """A node selector that cannot be parsed (unknown operator, non-integer Gt/Lt value, ...)."""


def _int64(value: str) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise NodeSelectorError(f"invalid integer value {value!r}") from None


def _requirement(req: dict, labels: dict, *, field: bool, name: str) -> bool:
    key = req.get("key", "")
    op = req.get("operator", "")
    values = req.get("values") or []
    if field:
        if key != "metadata.name":
            raise NodeSelectorError(f"not a valid field selector key: {key}")
        if op not in ("In", "NotIn") or len(values) != 1:
            raise NodeSelectorError(f"unsupported field requirement {op} with {len(values)} values")
        return (name in values) == (op == "In")
    present = key in labels
    if op == "In":
        return present and labels[key] in values
    if op == "NotIn":
        return not present or labels[key] not in values
    if op == "Exists":
        return present
    if op == "DoesNotExist":
        return not present
    if op in ("Gt", "Lt"):
        if len(values) != 1:
            raise NodeSelectorError(f"for '{op}' operator, exactly one value is required")
        bound = _int64(values[0])
        if not present:
            return False
        try:
            have = int(labels[key])
        except ValueError:
            return False
        return have > bound if op == "Gt" else have < bound
    raise NodeSelectorError(f"{op!r} is not a valid node selector operator")


def selector_matches(selector: dict, node: dict) -> bool:
    """Whether ``node`` matches a ``v1.NodeSelector`` (terms ORed; an empty term matches nothing).

    >>> selector_matches({"nodeSelectorTerms": [{}]}, {"metadata": {"name": "n"}})
    False
    """
    meta = node.get("metadata") or {}
    labels = meta.get("labels") or {}
    name = meta.get("name", "")
    matched = False
    for term in selector.get("nodeSelectorTerms") or []:
        exprs = term.get("matchExpressions") or []
        fields = term.get("matchFields") or []
        if not exprs and not fields:
            continue
        ok = all(_requirement(r, labels, field=False, name=name) for r in exprs) and \
            all(_requirement(r, labels, field=True, name=name) for r in fields)
        matched = matched or ok
    return matched


def selector_mask(selector: dict, rows: np.ndarray, label_codes: Callable[[str], tuple[np.ndarray, dict]],
                  name_row: Callable[[str], int | None]) -> np.ndarray | None:
    """:func:`selector_matches` for many nodes at once: ``rows`` are node rows, ``label_codes(key)``
    gives a label's value code per row (-1 where absent) and the code of each value,
    ``name_row(name)`` a node's row (None when there is none). None when the selector has a
    requirement that could raise or compares numbers (``Gt`` / ``Lt``, other field keys or
    operators): the caller asks :func:`selector_matches` per node then.

    >>> codes = (np.array([0, 1, -1]), {"a": 0, "b": 1})
    >>> sel = {"nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["b"]}]},
    ...                              {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n2"]}]}]}
    >>> selector_mask(sel, np.arange(3), lambda key: codes, {"n0": 0, "n1": 1, "n2": 2}.get).tolist()
    [False, True, True]
    """
    # (each requirement's answer is a new array: the first one of a term is taken as it is, and
    # a selector of one term returns that term's answer, without arrays of ones and zeros to start)
    matched: np.ndarray | None = None
    for term in selector.get("nodeSelectorTerms") or []:
        exprs = term.get("matchExpressions") or []
        fields = term.get("matchFields") or []
        if not exprs and not fields:
            continue
        ok: np.ndarray | None = None
        for req in exprs:
            op = req.get("operator", "")
            if op not in ("In", "NotIn", "Exists", "DoesNotExist"):
                return None
            codes, vocab = label_codes(req.get("key", ""))
            have = codes[rows]
            if op in ("In", "NotIn"):
                wanted = [vocab[v] for v in req.get("values") or [] if v in vocab]
                hit = np.isin(have, wanted) if wanted else np.zeros(len(rows), dtype=bool)
                answer = hit if op == "In" else ~hit
            else:
                answer = (have >= 0) if op == "Exists" else (have < 0)
            ok = answer if ok is None else ok & answer
        for req in fields:
            values = req.get("values") or []
            op = req.get("operator", "")
            if req.get("key", "") != "metadata.name" or op not in ("In", "NotIn") or len(values) != 1:
                return None
            row = name_row(values[0])
            hit = rows == row if row is not None else np.zeros(len(rows), dtype=bool)
            answer = hit if op == "In" else ~hit
            ok = answer if ok is None else ok & answer
        matched = ok if matched is None else matched | ok
    return np.zeros(len(rows), dtype=bool) if matched is None else matched


def node_matches(node: dict | None, node_name: str, all_nodes: bool, node_selector: dict | None) -> bool:
    """Upstream ``NodeMatches``: a node name, then all nodes, then a selector; none set = no match."""
    if node_name:
        return node is not None and (node.get("metadata") or {}).get("name") == node_name
    if all_nodes:
        return True
    if node_selector is not None:
        return selector_matches(node_selector, node or {})
    return False


def local_node_selector(node_name: str) -> dict:
    """The selector for exactly one node (``metadata.name In [node]``).

    >>> local_node_selector("n1")
    {'nodeSelectorTerms': [{'matchFields': [{'key': 'metadata.name', 'operator': 'In', 'values': ['n1']}]}]}
    """
    return {"nodeSelectorTerms": [{"matchFields": [
        {"key": "metadata.name", "operator": "In", "values": [node_name]}]}]}


def _contains(reqs: list[dict], req: dict) -> bool:
    values = set(req.get("values") or [])
    return any(r.get("key") == req.get("key") and r.get("operator") == req.get("operator")
               and set(r.get("values") or []) == values for r in reqs)


def allocation_node_selector(placements: Iterable[tuple[str, bool, dict | None]], node_name: str) -> dict | None:
    """``createNodeSelector``: ``placements`` holds per allocated device its node name, whether it
    binds to the node, and its node selector (the slice's or, with per-device node selection, the
    device's). Any node-local device pins the allocation to ``node_name``; otherwise the single
    terms of the selectors are merged; nothing set means available everywhere (``None``).

    >>> allocation_node_selector([("", False, None)], "n1") is None
    True
    >>> allocation_node_selector([("", True, None)], "n1") == local_node_selector("n1")
    True
    """
    fields: list[dict] = []
    exprs: list[dict] = []
    for dev_node, binds, selector in placements:
        if dev_node or binds:
            return local_node_selector(node_name)
        if selector is not None:
            terms = selector.get("nodeSelectorTerms") or []
            if len(terms) == 1:
                for r in terms[0].get("matchFields") or []:
                    if not _contains(fields, r):
                        fields.append(r)
                for r in terms[0].get("matchExpressions") or []:
                    if not _contains(exprs, r):
                        exprs.append(r)
            elif len(terms) > 1:
                raise NodeSelectorError(f"unsupported ResourceSlice.NodeSelector with {len(terms)} terms")
    if not fields and not exprs:
        return None
    term: dict[str, Any] = {}
    if fields:
        term["matchFields"] = fields
    if exprs:
        term["matchExpressions"] = exprs
    return {"nodeSelectorTerms": [term]}
