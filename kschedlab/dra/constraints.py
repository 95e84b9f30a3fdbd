"""Claim constraints: ``matchAttribute`` (all devices share a value) and ``distinctAttribute``.

Constraints are checked as devices are added during the search and undone in
reverse order when it backtracks. A constraint that names requests only looks
at devices for those requests (a subrequest counts as its parent request, or by
its full ``req/sub`` name). Values compare only within one type (string, int,
bool, version); an attribute with no value of these types is an error.

With the alpha ``DRAListTypeAttributes`` gate an attribute may hold a list (``ints``,
``bools``, ``strings``, ``versions``) and every value is a set (a scalar is a set of one):
``matchAttribute`` keeps the devices whose sets share at least one value with all the others,
``distinctAttribute`` those whose sets share none with another's. Without the gate a list-typed
attribute has no value this allocator reads, which is an error.

>>> m = MatchAttribute((), "driver-a/numa")
>>> m.add("", "", {"numa": {"int": 1}}, ("driver-a", "p", "d1"))
True
>>> m.add("", "", {"numa": {"int": 2}}, ("driver-a", "p", "d2"))
False
>>> lists = MatchAttribute((), "driver-a/numa", list_types=True)
>>> [lists.add("", "", {"numa": v}, ("driver-a", "p", f"d{i}"))
...  for i, v in enumerate(({"ints": [0, 1]}, {"int": 1}, {"ints": [0]}))]
[True, True, False]
"""

from __future__ import annotations

from typing import Any

from kschedlab.dra.devices import DeviceID, device_id_str

__all__ = ["MatchAttribute", "DistinctAttribute", "UnsupportedAttribute", "lookup_attribute"]

_SCALARS = ("string", "int", "bool", "version")
#: list-typed attribute fields and the scalar type of their items
_LISTS = {"strings": "string", "ints": "int", "bools": "bool", "versions": "version"}


class UnsupportedAttribute(ValueError):
    """An attribute without any value this allocator understands."""


def lookup_attribute(attributes: dict, device_id: DeviceID, name: str) -> dict | None:
    """Find a fully qualified attribute: as written, or unqualified in the driver's own domain.

    >>> lookup_attribute({"numa": {"int": 0}}, ("driver-a", "p", "d"), "driver-a/numa")
    {'int': 0}
    >>> lookup_attribute({"numa": {"int": 0}}, ("driver-a", "p", "d"), "other/numa") is None
    True
    """
    attr = attributes.get(name)
    if attr is not None:
        return attr
    domain, sep, ident = name.partition("/")
    if not sep or domain != device_id[0]:
        return None
    return attributes.get(ident)


def _as_set(attr: dict, name: str, device_id: DeviceID, list_types: bool = False) -> tuple[str, frozenset]:
    """The attribute as ``(type, {value})``; an attribute without a known value raises."""
    for key in _SCALARS:
        if attr.get(key) is not None:
            return key, frozenset((attr[key],))
    if list_types:
        for key, kind in _LISTS.items():
            if attr.get(key) is not None:
                return kind, frozenset(attr[key])
    raise UnsupportedAttribute(
        f"attribute {name} of device {device_id_str(device_id)}: unsupported attribute value")


class _Constraint:
    kind = ""

    def __init__(self, requests: tuple[str, ...], attribute: str, list_types: bool = False) -> None:
        self.requests = frozenset(requests)
        self.attribute = attribute
        self.list_types = list_types
        self._cache: dict[DeviceID, tuple[str, frozenset] | None] = {}

    def applies(self, request: str, sub: str) -> bool:
        """Whether a device for ``request`` (or its subrequest ``sub``) is subject to the constraint."""
        if not self.requests:
            return True
        if not sub:
            return request in self.requests
        return request in self.requests or f"{request}/{sub}" in self.requests

    def _value(self, attributes: dict, device_id: DeviceID) -> tuple[str, frozenset] | None:
        if device_id in self._cache:
            return self._cache[device_id]
        attr = lookup_attribute(attributes, device_id, self.attribute)
        value = None if attr is None else _as_set(attr, self.attribute, device_id, self.list_types)
        self._cache[device_id] = value
        return value

    def describe(self) -> str:
        """``matchAttribute x`` / ``distinctAttribute x``, for traces."""
        return f"{self.kind} {self.attribute}"


class MatchAttribute(_Constraint):
    """All devices must have the attribute, with the same value."""

    kind = "matchAttribute"

    def __init__(self, requests: tuple[str, ...], attribute: str, list_types: bool = False) -> None:
        super().__init__(requests, attribute, list_types)
        self._stack: list[tuple[str, frozenset]] = []

    def add(self, request: str, sub: str, attributes: dict, device_id: DeviceID) -> bool:
        """Try to add a device; ``False`` leaves the state unchanged."""
        if not self.applies(request, sub):
            return True
        value = self._value(attributes, device_id)
        if value is None:
            return False
        if self._stack:
            kind, common = self._stack[-1]
            if value[0] != kind:
                return False
            common = common & value[1]
            if not common:
                return False
            value = (kind, common)
        self._stack.append(value)
        return True

    def remove(self, request: str, sub: str) -> None:
        """Undo the matching successful ``add``."""
        if self.applies(request, sub):
            self._stack.pop()


class DistinctAttribute(_Constraint):
    """All devices must have the attribute, no two with the same value."""

    kind = "distinctAttribute"

    def __init__(self, requests: tuple[str, ...], attribute: str, list_types: bool = False) -> None:
        super().__init__(requests, attribute, list_types)
        self._values: list[tuple[str, frozenset]] = []

    def add(self, request: str, sub: str, attributes: dict, device_id: DeviceID) -> bool:
        """Try to add a device; ``False`` leaves the state unchanged."""
        if not self.applies(request, sub):
            return True
        value = self._value(attributes, device_id)
        if value is None:
            return False
        for kind, seen in self._values:
            if kind == value[0] and seen & value[1]:
                return False
        self._values.append(value)
        return True

    def remove(self, request: str, sub: str) -> None:
        """Undo the matching successful ``add``."""
        if self.applies(request, sub):
            self._values.pop()


def make_constraint(kind: str, requests: tuple[str, ...], attribute: str, list_types: bool = False) -> Any:
    """A constraint object for ``kind`` ``matchAttribute`` or ``distinctAttribute`` (``list_types``:
    the ``DRAListTypeAttributes`` gate).

    >>> make_constraint("distinctAttribute", ("r",), "d/x").describe()
    'distinctAttribute d/x'
    """
    cls = MatchAttribute if kind == "matchAttribute" else DistinctAttribute
    return cls(requests, attribute, list_types)
