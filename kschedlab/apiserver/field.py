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

__all__ = ["bad_value", "invalid", "required", "forbidden", "duplicate", "not_supported", "too_long", "too_many"]

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
