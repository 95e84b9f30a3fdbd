"""Go parsing the kubelet relies on, with Go's errors: ``time.ParseDuration``,
``strconv.ParseFloat(s, 32)`` and ``resource.ParseQuantity``.

>>> parse_duration("1m30s"), parse_duration("-30s"), parse_duration("0")
(90000000000, -30000000000, 0)
>>> parse_duration("30")
Traceback (most recent call last):
...
ValueError: time: missing unit in duration "30"
>>> parse_float32("25.5")
25.5
>>> format_duration(90 * 10**9), format_duration(300 * 10**9), format_duration(0)
('1m30s', '5m0s', '0s')
"""

from __future__ import annotations

import re

import numpy as np

from kschedlab.api.quantity import Quantity

__all__ = ["parse_duration", "format_duration", "parse_float32", "parse_quantity", "QUANTITY_FORMAT_ERROR",
           "SECOND"]

SECOND = 1_000_000_000
_UNITS = {"ns": 1, "us": 1_000, "µs": 1_000, "μs": 1_000, "ms": 1_000_000, "s": SECOND,
          "m": 60 * SECOND, "h": 3600 * SECOND}
_MAX_INT64 = 2**63 - 1

#: upstream ``resource.ErrFormatWrong``
QUANTITY_FORMAT_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"


def _quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def parse_duration(text: str) -> int:
    """Go's ``time.ParseDuration``: nanoseconds, or ValueError with Go's message.

    >>> parse_duration("1.5h"), parse_duration("300ms")
    (5400000000000, 300000000)
    >>> parse_duration("2x")
    Traceback (most recent call last):
    ...
    ValueError: time: unknown unit "x" in duration "2x"
    """
    orig, s = text, text
    neg = False
    if s and s[0] in "-+":
        neg = s[0] == "-"
        s = s[1:]
    if s == "0":
        return 0
    if not s:
        raise ValueError(f"time: invalid duration {_quote(orig)}")
    total = 0
    while s:
        if not (s[0] == "." or s[0].isdigit()):
            raise ValueError(f"time: invalid duration {_quote(orig)}")
        m = re.match(r"(\d*)(?:\.(\d*))?", s)
        whole, frac = m.group(1), m.group(2)
        if not whole and not frac:
            raise ValueError(f"time: invalid duration {_quote(orig)}")
        s = s[m.end():]
        u = re.match(r"[^0-9.]*", s).group(0)
        if not u:
            raise ValueError(f"time: missing unit in duration {_quote(orig)}")
        if u not in _UNITS:
            raise ValueError(f"time: unknown unit {_quote(u)} in duration {_quote(orig)}")
        s = s[len(u):]
        unit = _UNITS[u]
        v = int(whole or "0") * unit
        if frac:
            v += int(frac) * unit // 10 ** len(frac)
        total += v
        if total > _MAX_INT64 + (1 if neg else 0):
            raise ValueError(f"time: invalid duration {_quote(orig)}")
    return -total if neg else total


def format_duration(ns: int) -> str:
    """Go's ``time.Duration.String`` for whole or fractional seconds.

    >>> format_duration(3600 * 10**9), format_duration(1500 * 10**6), format_duration(250 * 10**6)
    ('1h0m0s', '1.5s', '250ms')
    """
    if ns == 0:
        return "0s"
    sign = "-" if ns < 0 else ""
    ns = abs(ns)
    if ns < SECOND:
        for unit, size in (("ms", 10**6), ("µs", 10**3), ("ns", 1)):
            if ns >= size:
                text = f"{ns / size:.9f}".rstrip("0").rstrip(".")
                return f"{sign}{text}{unit}"
    h, rest = divmod(ns, 3600 * SECOND)
    m, rest = divmod(rest, 60 * SECOND)
    sec = f"{rest // SECOND}" + (f".{rest % SECOND:09d}".rstrip("0") if rest % SECOND else "") + "s"
    if h:
        return f"{sign}{h}h{m}m{sec}"
    if m:
        return f"{sign}{m}m{sec}"
    return f"{sign}{sec}"


_FLOAT = re.compile(r"^[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity|nan)$", re.IGNORECASE)
_FLOAT32_MAX = float(np.finfo(np.float32).max)


def parse_float32(text: str) -> float:
    """``strconv.ParseFloat(text, 32)``: the float32 nearest, as a Python float.

    >>> parse_float32("0.1") == float(np.float32(0.1))
    True
    >>> parse_float32("foo")
    Traceback (most recent call last):
    ...
    ValueError: strconv.ParseFloat: parsing "foo": invalid syntax
    """
    if not _FLOAT.match(text):
        raise ValueError(f"strconv.ParseFloat: parsing {_quote(text)}: invalid syntax")
    value = float(text)
    if abs(value) != float("inf") and abs(value) > _FLOAT32_MAX and abs(float(np.float64(value))) > _FLOAT32_MAX:
        with np.errstate(over="ignore"):
            if np.isinf(np.float32(value)):
                raise ValueError(f"strconv.ParseFloat: parsing {_quote(text)}: value out of range")
    with np.errstate(over="ignore"):
        return float(np.float32(value))


def parse_quantity(text: str) -> Quantity:
    """``resource.ParseQuantity`` with upstream's error text.

    >>> parse_quantity("1.5Gi").value()
    1610612736
    >>> parse_quantity("1.5.0")
    Traceback (most recent call last):
    ...
    ValueError: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'
    """
    try:
        return Quantity.parse(text)
    except (ValueError, TypeError):
        raise ValueError(QUANTITY_FORMAT_ERROR) from None
