"""Node selectors and node affinity evaluated for many nodes at once
(``k8s.io/component-helpers/scheduling/corev1/nodeaffinity``).

A requirement that cannot be parsed (bad operator values, an unsupported
field) makes its term match nothing, as upstream's lazy-error selector does.

>>> import numpy as np
>>> from kschedlab.cluster import Snapshot
>>> from kschedlab.api.core import Node, NodeSelectorTerm
>>> snap = Snapshot()
>>> for name, gpu in [("a", "2"), ("b", "8")]:
...     _ = snap.add_node(Node.model_validate({"metadata": {"name": name, "labels": {"gpus": gpu}}}))
>>> term = NodeSelectorTerm.model_validate({"matchExpressions": [
...     {"key": "gpus", "operator": "Gt", "values": ["4"]}]})
>>> match_terms([term], snap, np.arange(2)).tolist()
[False, True]
"""

from __future__ import annotations

import numpy as np

from kschedlab.api.labels import is_qualified_name, is_valid_label_value
from kschedlab.api.tolerations import parse_int64

NAME_FIELD = "metadata.name"


class _Invalid(Exception):
    pass


def _requirement_mask(op: str, values: list[str], codes: np.ndarray, vocab: dict[str, int]) -> np.ndarray:
    """Rows whose value (as a code, -1 = absent) satisfies ``op values``."""
    if op in ("In", "NotIn"):
        if not values:
            raise _Invalid(f"for '{op}' operator, values set can't be empty")
        wanted = [vocab[v] for v in values if v in vocab]
        hit = np.isin(codes, wanted) if wanted else np.zeros(len(codes), bool)
        return hit if op == "In" else ~hit
    if op in ("Exists", "DoesNotExist"):
        if values:
            raise _Invalid(f"values set must be empty for '{op}'")
        return codes >= 0 if op == "Exists" else codes < 0
    if op in ("Gt", "Lt"):
        if len(values) != 1:
            raise _Invalid(f"for '{op}' operator, exactly one value is required")
        bound = parse_int64(values[0])
        if bound is None:
            raise _Invalid(f"for '{op}' operator, the value must be an integer")
        ok = np.zeros(len(vocab) + 1, bool)  # last slot: absent (-1)
        for value, code in vocab.items():
            n = parse_int64(value)
            ok[code] = n is not None and (n > bound if op == "Gt" else n < bound)
        return ok[codes]
    raise _Invalid(f"{op!r} is not a valid label selector operator")


def _term_mask(term, snapshot, rows: np.ndarray) -> np.ndarray:
    if not term.match_expressions and not term.match_fields:
        return np.zeros(len(rows), bool)
    mask = np.ones(len(rows), bool)
    try:
        for req in term.match_expressions:
            if not is_qualified_name(req.key) or (
                    req.operator in ("In", "NotIn") and not all(map(is_valid_label_value, req.values))):
                raise _Invalid(f"invalid label requirement on {req.key!r}")
            codes, vocab = snapshot.label_codes(req.key)
            mask &= _requirement_mask(req.operator, list(req.values), codes[rows], vocab)
        for req in term.match_fields:
            if req.key != NAME_FIELD or req.operator not in ("In", "NotIn") or len(req.values) != 1:
                raise _Invalid(f"not a valid field selector requirement: {req.key}")
            codes, vocab = snapshot.name_codes()
            mask &= _requirement_mask(req.operator, list(req.values), codes[rows], vocab)
    except _Invalid:
        return np.zeros(len(rows), bool)
    return mask


def match_terms(terms, snapshot, rows: np.ndarray) -> np.ndarray:
    """Nodes matching any of the ORed ``nodeSelectorTerms`` (none for an empty list)."""
    mask = np.zeros(len(rows), bool)
    for term in terms:
        mask |= _term_mask(term, snapshot, rows)
    return mask


def match_labels(selector: dict[str, str], snapshot, rows: np.ndarray) -> np.ndarray:
    """``spec.nodeSelector``: every key present with exactly that value."""
    mask = np.ones(len(rows), bool)
    for key, value in selector.items():
        codes, vocab = snapshot.label_codes(key)
        mask &= codes[rows] == vocab.get(value, -2)
    return mask


class RequiredNodeAffinity:
    """``GetRequiredNodeAffinity(pod)``: nodeSelector AND required node affinity terms."""

    def __init__(self, pod):
        self.selector = dict(pod.spec.node_selector or {})
        na = pod.spec.affinity.node_affinity if pod.spec.affinity else None
        required = na.required_during_scheduling_ignored_during_execution if na else None
        self.terms = list(required.node_selector_terms) if required is not None else None

    def match(self, snapshot, rows: np.ndarray) -> np.ndarray:
        mask = match_labels(self.selector, snapshot, rows) if self.selector else np.ones(len(rows), bool)
        if self.terms is not None:
            mask &= match_terms(self.terms, snapshot, rows)
        return mask


def preferred_score(terms, snapshot, rows: np.ndarray) -> np.ndarray:
    """Sum of the weights of the preferred terms each node matches (weight 0 terms ignored)."""
    total = np.zeros(len(rows), np.int64)
    for term in terms:
        if term.weight:
            total += term.weight * _term_mask(term.preference, snapshot, rows)
    return total


NAME_PART_MSG = ("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and "
                 "end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used "
                 "for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")


def validate_terms(terms, path: str, values: bool = False) -> list[tuple[str, str]]:
    """(field path, problem) for each requirement upstream's selector parsing rejects;
    with ``values`` the problem reads as upstream's ``Invalid value: ...`` text."""
    errors: list[tuple[str, str]] = []
    for i, term in enumerate(terms):
        term_path = path.format(i=i)
        for j, req in enumerate(term.match_expressions):
            p = f"{term_path}.matchExpressions[{j}]"
            if not is_qualified_name(req.key):
                errors.append((f"{p}.key", f'Invalid value: "{req.key}": {NAME_PART_MSG}' if values
                               else "invalid label key"))
            if req.operator in ("In", "NotIn"):
                if not req.values:
                    errors.append((f"{p}.values", "for 'in', 'notin' operators, values set can't be empty"))
                for k, v in enumerate(req.values):
                    if not is_valid_label_value(v):
                        errors.append((f"{p}.values[{k}]", "invalid label value"))
            elif req.operator in ("Exists", "DoesNotExist"):
                if req.values:
                    errors.append((f"{p}.values", "values set must be empty for exists and does not exist"))
            elif req.operator in ("Gt", "Lt"):
                if len(req.values) != 1 or parse_int64(req.values[0]) is None:
                    errors.append((f"{p}.values", "for 'Gt', 'Lt' operators, exactly one integer value is required"))
            else:
                errors.append((f"{p}.operator", f"{req.operator!r} is not a valid node selector operator"))
        for j, req in enumerate(term.match_fields):
            p = f"{term_path}.matchFields[{j}]"
            if req.key != NAME_FIELD:
                errors.append((f"{p}.key", "not a valid field selector key"))
            if len(req.values) != 1:
                errors.append((f"{p}.values", "must have one element"))
            if req.operator not in ("In", "NotIn"):
                errors.append((f"{p}.operator", "not a valid selector operator"))
    return errors
