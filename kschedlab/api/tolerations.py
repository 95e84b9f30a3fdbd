"""Toleration and taint matching (``k8s.io/component-helpers/scheduling/corev1``
and ``api/core/v1`` helpers).

>>> from kschedlab.api.core import Taint, Toleration
>>> taint = Taint(key="sla", value="950", effect="NoSchedule")
>>> tolerates(Toleration(key="sla", operator="Gt", value="900", effect="NoSchedule"), taint,
...           comparison_operators=True)
True
>>> tolerates(Toleration(key="sla", operator="Gt", value="900", effect="NoSchedule"), taint)
False
"""

from __future__ import annotations

import re
from typing import Iterable

from kschedlab.api.validation import label_value_errors, qualified_name_errors

_INT64 = re.compile(r"[+-]?[0-9]+\Z")
_CANONICAL_INT = re.compile(r"(0|-?[1-9][0-9]*)\Z")
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1


class TaintValueError(ValueError):
    """A numeric toleration met a taint whose value is not a canonical integer."""


def parse_int64(value: str | None) -> int | None:
    """An int64 label value (strconv.ParseInt, base 10), or None."""
    if value is None or not _INT64.match(value):
        return None
    n = int(value)
    return n if INT64_MIN <= n <= INT64_MAX else None


def _parse_canonical(value: str | None, what: str) -> int:
    if value is None or not _CANONICAL_INT.match(value) or parse_int64(value) is None:
        raise TaintValueError(f"failed to parse {what} value {value or ''!r} as int64: "
                              "must be a valid decimal integer in canonical form".replace("'", '"'))
    return int(value)


def tolerates(toleration, taint, *, comparison_operators: bool = False) -> bool:
    """``Toleration.ToleratesTaint``: effect, key, then the operator.

    A numeric operator facing a non-integer taint value raises
    :class:`TaintValueError` (Filter reports it; Score counts it as untolerated).
    """
    if toleration.effect and toleration.effect != taint.effect:
        return False
    if toleration.key and toleration.key != taint.key:
        return False
    op = toleration.operator or "Equal"
    if op == "Equal":
        return (toleration.value or "") == (taint.value or "")
    if op == "Exists":
        return True
    if op in ("Gt", "Lt"):
        if not comparison_operators:
            return False
        tol = parse_int64(toleration.value)
        if tol is None:
            return False
        val = _parse_canonical(taint.value, "taint")
        return val > tol if op == "Gt" else val < tol
    return False


def tolerations_tolerate_taint(tolerations: Iterable, taint, *, comparison_operators: bool = False) -> bool:
    """Whether any toleration tolerates ``taint`` (``TolerationsTolerateTaint``).

    A numeric toleration that cannot compare does not hide another toleration
    that matches; :class:`TaintValueError` is raised only when none does.

    >>> from kschedlab.api.core import Taint, Toleration
    >>> gold = Taint(key="sla", value="gold", effect="NoSchedule")
    >>> tolerations_tolerate_taint([Toleration(key="sla", operator="Gt", value="900"),
    ...                             Toleration(key="sla", operator="Exists")], gold, comparison_operators=True)
    True
    """
    first_error: TaintValueError | None = None
    for toleration in tolerations:
        try:
            if tolerates(toleration, taint, comparison_operators=comparison_operators):
                return True
        except TaintValueError as err:
            first_error = first_error or err
    if first_error is not None:
        raise first_error
    return False


def find_matching_untolerated_taint(taints: Iterable, tolerations: list, effects: tuple[str, ...],
                                    *, comparison_operators: bool = False):
    """First taint with one of ``effects`` that no toleration tolerates, or None.

    As upstream, a cleanly untolerated taint is preferred over one whose numeric
    comparison failed; the first such failure is raised only when there is none.
    """
    first_error: TaintValueError | None = None
    for taint in taints:
        if taint.effect not in effects:
            continue
        try:
            if not tolerations_tolerate_taint(tolerations, taint, comparison_operators=comparison_operators):
                return taint
        except TaintValueError as err:
            first_error = first_error or err
    if first_error is not None:
        raise first_error
    return None


# ------------------------------------------------------------------ validation (ValidateTolerations)

#: apimachinery ``content.IsDecimalInteger``'s message
DECIMAL_INTEGER_MSG = "must be a valid decimal integer in canonical form"


def decimal_integer_errors(value: str) -> list[str]:
    """``content.IsDecimalInteger``: "0" or an optional "-" then a digit 1-9 and more digits.

    Stricter than a plain integer parse: no "+", no leading zeros, no "-0", no spaces.

    >>> decimal_integer_errors("950"), decimal_integer_errors("-3"), decimal_integer_errors("0")
    ([], [], [])
    >>> decimal_integer_errors("0950"), decimal_integer_errors("+1"), decimal_integer_errors("")
    (['must be a valid decimal integer in canonical form'], ['must be a valid decimal integer in canonical form'], ['must be non-empty'])
    """
    if value == "":
        return ["must be non-empty"]
    return [] if _CANONICAL_INT.match(value) and value != "-0" else [DECIMAL_INTEGER_MSG]


def _quoted(value) -> str:
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'


def uses_comparison_operators(tolerations: Iterable) -> bool:
    """Whether any toleration uses ``Lt`` or ``Gt`` (upstream ``taintTolerationComparisonOperatorsInUse``:
    an update keeps a pod valid that was created with them, even after the gate is turned off).

    >>> from kschedlab.api.core import Toleration
    >>> uses_comparison_operators([Toleration(key="sla", operator="Gt", value="900")])
    True
    """
    return any(t.operator in ("Lt", "Gt") for t in tolerations)


def validate_tolerations(tolerations: Iterable, path: list, *, comparison_operators: bool = False) -> list[tuple[list, str]]:
    """``ValidateTolerations``: ``(field path, message)`` for every problem of ``tolerations``.

    ``comparison_operators`` is ``PodValidationOptions.AllowTaintTolerationComparisonOperators``
    (the TaintTolerationComparisonOperators gate, or an old pod that already uses Lt/Gt).
    Without it ``Lt`` and ``Gt`` are unsupported operators; with it their value must be a
    decimal integer in canonical form.

    >>> from kschedlab.api.core import Toleration
    >>> sla = Toleration(key="sla", operator="Gt", value="0950", effect="NoSchedule")
    >>> validate_tolerations([sla], ["spec", "tolerations"])
    [(['spec', 'tolerations', 0, 'operator'], 'Unsupported value: "Gt": supported values: "Equal", "Exists"')]
    >>> validate_tolerations([sla], ["spec", "tolerations"], comparison_operators=True)
    [(['spec', 'tolerations', 0, 'value'], 'Invalid value: "0950": must be a valid decimal integer in canonical form')]
    """
    out: list[tuple[list, str]] = []
    for i, t in enumerate(tolerations):
        p = [*path, i]
        key, op, value = t.key or "", t.operator or "", t.value or ""
        if key:
            out += [([*p, "key"], f"Invalid value: {_quoted(key)}: {msg}") for msg in qualified_name_errors(key)]
        if not key and op != "Exists":
            out.append(([*p, "operator"], f"Invalid value: {_quoted(op)}: operator must be Exists when `key` is "
                                          'empty, which means "match all values and all keys"'))
        if t.toleration_seconds is not None and t.effect != "NoExecute":
            out.append(([*p, "effect"], f"Invalid value: {_quoted(t.effect or '')}: effect must be 'NoExecute' "
                                        "when `tolerationSeconds` is set"))
        if op in ("", "Equal"):
            errs = label_value_errors(value)
            if errs:
                out.append(([*p, "operator"], f"Invalid value: {_quoted(value)}: " + ";".join(errs)))
        elif op == "Exists":
            if value:
                out.append(([*p, "operator"], f"Invalid value: {_quoted(value)}: value must be empty when "
                                              "`operator` is 'Exists'"))
        elif op in ("Lt", "Gt") and comparison_operators:
            out += [([*p, "value"], f"Invalid value: {_quoted(value)}: {msg}") for msg in decimal_integer_errors(value)]
        else:
            out.append(([*p, "operator"], f'Unsupported value: {_quoted(op)}: supported values: "Equal", "Exists"'))
    return out
