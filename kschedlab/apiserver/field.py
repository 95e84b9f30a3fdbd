"""Field errors as the API server words them (upstream ``apimachinery/pkg/util/validation/field``):
each is ``(path, message)``, the message the ``ErrorBody`` of its type with the bad value shown as
Go shows it (a string quoted with ``%q``, a number or bool as itself, nil as ``null``, anything else
as JSON).

>>> invalid("spec.name", "a\\tb", "must be a DNS label")
('spec.name', 'Invalid value: "a\\\\tb": must be a DNS label')
>>> required("spec.count"), forbidden("spec.x", "may not be set"), forbidden("spec.y")
(('spec.count', 'Required value'), ('spec.x', 'Forbidden: may not be set'), ('spec.y', 'Forbidden'))
>>> not_supported("spec.mode", "Sometimes", ["Always", "Never"])
('spec.mode', 'Unsupported value: "Sometimes": supported values: "Always", "Never"')
>>> bad_value(True), bad_value(None), bad_value(["a", 1])
('true', 'null', '["a",1]')
"""

from __future__ import annotations

import json
from typing import Any, Iterable

from ..api.quantity import Quantity

__all__ = ["bad_value", "invalid", "required", "forbidden", "duplicate", "not_supported", "too_long", "too_many",
           "go_pointer", "GO_HEAP_BASE"]

#: where the addresses :func:`go_pointer` prints start. Go's ``%#v`` of a struct (the bad value of
#: a PodDisruptionBudget spec, a Deployment strategy) prints a set pointer field as its heap
#: address, new on every request: a captured ``kubectl apply`` of a budget with both bounds shows
#: ``MinAvailable:(*intstr.IntOrString)(0xc01a234760)``. kschedlab prints fixed addresses of that
#: shape, one per field of the struct shown (``GO_HEAP_BASE + 0x20 * field``), so two set pointers
#: differ as they do in Go and a run prints what the last one printed.
GO_HEAP_BASE = 0xC000010000

_GO_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _go_quote(s: str) -> str:
    # Go's %q: backslash escapes for quotes and control characters, printable text kept
    out = []
    for ch in s:
        if ch in _GO_ESCAPES:
            out.append(_GO_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def bad_value(value: Any) -> str:
    """A field error's bad value as Go prints it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return _go_quote(value)
    if isinstance(value, (int, Quantity)):
        return str(value)
    return json.dumps(value, separators=(",", ":"), default=str)


def invalid(path: Any, value: Any, detail: str) -> tuple[Any, str]:
    """``field.Invalid``."""
    return path, f"Invalid value: {bad_value(value)}: {detail}"


def required(path: Any, detail: str = "") -> tuple[Any, str]:
    """``field.Required``."""
    return path, "Required value" + (f": {detail}" if detail else "")


def forbidden(path: Any, detail: str = "") -> tuple[Any, str]:
    """``field.Forbidden``."""
    return path, "Forbidden" + (f": {detail}" if detail else "")


def duplicate(path: Any, value: Any) -> tuple[Any, str]:
    """``field.Duplicate``."""
    return path, f"Duplicate value: {bad_value(value)}"


def not_supported(path: Any, value: Any, allowed: Iterable[str]) -> tuple[Any, str]:
    """``field.NotSupported``: the supported values listed, each quoted."""
    return path, f"Unsupported value: {bad_value(value)}: supported values: " + ", ".join(
        bad_value(a) for a in allowed)


def too_long(path: Any, limit: int) -> tuple[Any, str]:
    """``field.TooLong`` (bytes)."""
    return path, f"Too long: may not be more than {limit} bytes"


def too_many(path: Any, n: int, limit: int) -> tuple[Any, str]:
    """``field.TooMany``."""
    return path, f"Too many: {n}: must have at most {limit} items"


def go_pointer(type_name: str, is_set: bool, field: int = 0) -> str:
    """A pointer field of a struct as Go's ``%#v`` prints it: ``nil``, or an address (see
    :data:`GO_HEAP_BASE`; ``field`` is the field's place in its struct).

    >>> go_pointer("intstr.IntOrString", False)
    '(*intstr.IntOrString)(nil)'
    >>> go_pointer("intstr.IntOrString", True, 2)
    '(*intstr.IntOrString)(0xc000010040)'
    """
    return f"(*{type_name})(" + (f"{GO_HEAP_BASE + 0x20 * field:#x}" if is_set else "nil") + ")"
