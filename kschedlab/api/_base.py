"""Shared pieces of the API models: the base class and small value types.

Conventions (see ``kschedlab/api/__init__.py``):

* JSON names are camelCase (``pydantic.alias_generators.to_camel``); where the
  Kubernetes name is not what ``to_camel`` gives (``hostIP``, ``podIPs``, ...)
  the field carries an explicit alias.
* Unknown fields are refused (``extra="forbid"``); scalar types are strict, as the
  Go JSON decoder is (``"3"`` is not an integer, ``1`` is not a string).
* Collections default to empty, optional scalars and pointer structs to None,
  Go value structs (``resources``, ``metadata``, ``spec``...) to an empty model.
"""

from __future__ import annotations

import itertools
import operator
import re
from datetime import datetime, timedelta, timezone
from typing import Annotated, Any, Callable, Iterable, Self, TypeVar

from pydantic import BaseModel, ConfigDict, PlainSerializer, PlainValidator, model_validator
from pydantic.alias_generators import to_camel

__all__ = [
    "K8sModel",
    "Time",
    "IntOrString",
    "check_enum",
    "format_time",
    "parse_time",
    "mark_set",
    "Timestamp",
    "time_ns",
]


_is = operator.is_
#: ``None`` as often as asked (an endless iterator: sharing it is safe)
_NONES = itertools.repeat(None)


class K8sModel(BaseModel):
    """Base of every Kubernetes object model in ``kschedlab.api``."""

    model_config = ConfigDict(
        extra="forbid",
        alias_generator=to_camel,
        populate_by_name=True,
        serialize_by_alias=True,
        strict=True,
        arbitrary_types_allowed=True,
    )

    @model_validator(mode="before")
    @classmethod
    def _drop_nulls_for_defaults(cls, data: Any) -> Any:
        # JSON ``null`` means "not set" for Kubernetes; for fields whose zero value
        # is an empty collection or model, drop the key instead of failing.
        # (``map`` with ``operator.is_``: the identity test without a Python frame per value;
        # this runs on every nested model's validation)
        if isinstance(data, dict) and any(map(_is, data.values(), _NONES)):
            fields = cls.model_fields
            by_alias = _alias_index(cls)
            out = {}
            for k, v in data.items():
                if v is None:
                    name = by_alias.get(k, k)
                    f = fields.get(name)
                    if f is not None and f.default_factory is not None:
                        continue
                out[k] = v
            return out
        return data

    @classmethod
    def trusted(cls, **fields: Any) -> Self:
        """The model from field values (by field name) already of the right types, without
        validation; the named fields count as set. For hot paths that build small objects
        from known-good values (``model_construct`` is slower than validating).

        >>> from kschedlab.api.core import PodCondition
        >>> c = PodCondition.trusted(type="PodScheduled", status="True")
        >>> c == PodCondition.model_validate({"type": "PodScheduled", "status": "True"}), sorted(c.model_fields_set)
        (True, ['status', 'type'])
        """
        defaults = cls.__dict__.get("_trusted_defaults")
        if defaults is None:
            defaults = {name: (None if f.default_factory is not None else f.default)
                        for name, f in cls.model_fields.items()}
            factories = {name: f.default_factory for name, f in cls.model_fields.items()
                         if f.default_factory is not None}
            type.__setattr__(cls, "_trusted_defaults", (defaults, factories))
        else:
            defaults, factories = defaults
        values = dict(defaults)
        for name, factory in factories.items():
            if name not in fields:
                values[name] = factory()
        values.update(fields)
        obj = cls.__new__(cls)
        object.__setattr__(obj, "__dict__", values)
        object.__setattr__(obj, "__pydantic_fields_set__", set(fields))
        object.__setattr__(obj, "__pydantic_extra__", None)
        object.__setattr__(obj, "__pydantic_private__", None)
        return obj

    def clone(self) -> Self:
        """A deep copy (much faster than ``model_copy(deep=True)`` for API objects).

        >>> from kschedlab.api.core import Pod
        >>> a = Pod(metadata={"labels": {"x": "1"}}); b = a.clone(); b.metadata.labels["x"] = "2"
        >>> a.metadata.labels, b == a
        ({'x': '1'}, False)
        """
        return _clone(self)

    def mark_set(self, *names: str) -> None:
        """Record fields as explicitly set, so ``exclude_unset`` dumps them.

        Needed after changing a nested default object in place.

        >>> from kschedlab.api.core import Pod
        >>> p = Pod(); p.spec.node_name = "n1"; p.mark_set("spec")
        >>> p.model_dump(by_alias=True, exclude_unset=True)
        {'spec': {'nodeName': 'n1'}}
        """
        self.model_fields_set.update(names)


#: values a clone shares rather than copies (the test is by exact type: a subclass of str or int
#: may carry state)
_SHARED = frozenset({type(None), str, int, bool, float})


def _clone(v: Any) -> Any:
    # Quantities, datetimes, strings and numbers are immutable: shared.
    if isinstance(v, BaseModel):
        new = v.__class__.__new__(v.__class__)
        object.__setattr__(new, "__dict__", {k: x if type(x) in _SHARED else _clone(x) for k, x in v.__dict__.items()})
        object.__setattr__(new, "__pydantic_fields_set__", set(v.__pydantic_fields_set__))
        object.__setattr__(new, "__pydantic_extra__", _clone(v.__pydantic_extra__))
        object.__setattr__(new, "__pydantic_private__", _clone(v.__pydantic_private__))
        return new
    if isinstance(v, list):
        return [_clone(x) for x in v]
    if isinstance(v, dict):
        return {k: _clone(x) for k, x in v.items()}
    if isinstance(v, (set, tuple)):
        return type(v)(_clone(x) for x in v)
    return v


def copier(value: Any) -> Callable[[], Any]:
    """A function making fresh copies of ``value`` as :func:`_clone` would, for many copies of one
    object: what to copy is worked out once, so that a copy costs a dict copy per model. Models,
    lists, dicts, sets and tuples (and a model's fields-set) are new in each copy; anything else
    (strings, numbers, quantities, times) is shared.

    >>> from kschedlab.api.core import Pod
    >>> make = copier(Pod(metadata={"labels": {"x": "1"}}))
    >>> a, b = make(), make(); a.metadata.labels["x"] = "2"
    >>> b.metadata.labels, a.metadata is b.metadata
    ({'x': '1'}, False)
    """
    if isinstance(value, BaseModel):
        return _model_copier(value)
    if isinstance(value, list):
        if not value:
            return list
        items = [copier(v) for v in value]
        return lambda: [make() for make in items]
    if isinstance(value, dict):
        if not value:
            return dict
        if not any(isinstance(v, _CONTAINERS) for v in value.values()):
            return value.copy
        entries = [(k, copier(v)) for k, v in value.items()]
        return lambda: {k: make() for k, make in entries}
    if isinstance(value, (set, tuple)):
        return lambda: _clone(value)
    return lambda: value


#: what :func:`copier` makes anew in each copy
_CONTAINERS = (BaseModel, list, dict, set, tuple)


def _model_copier(model: BaseModel) -> Callable[[], Any]:
    cls, values = type(model), dict(model.__dict__)
    fresh = [(k, copier(v)) for k, v in values.items() if isinstance(v, _CONTAINERS)]
    fields_set = frozenset(model.__pydantic_fields_set__)
    extra = None if model.__pydantic_extra__ is None else copier(model.__pydantic_extra__)
    private = None if model.__pydantic_private__ is None else copier(model.__pydantic_private__)

    def copy() -> Any:
        new = cls.__new__(cls)
        d = values.copy()
        for k, make in fresh:
            d[k] = make()
        object.__setattr__(new, "__dict__", d)
        object.__setattr__(new, "__pydantic_fields_set__", set(fields_set))
        object.__setattr__(new, "__pydantic_extra__", None if extra is None else extra())
        object.__setattr__(new, "__pydantic_private__", None if private is None else private())
        return new

    return copy


_ALIAS_INDEX: dict[type, dict[str, str]] = {}


def _alias_index(cls: type[BaseModel]) -> dict[str, str]:
    """JSON name -> attribute name for a model class (cached)."""
    cache = _ALIAS_INDEX.get(cls)
    if cache is None:
        cache = {f.alias: name for name, f in cls.model_fields.items() if f.alias}
        _ALIAS_INDEX[cls] = cache
    return cache


def mark_set(obj: BaseModel, *path: str) -> None:
    """Mark each attribute along ``path`` (dotted names allowed) as set.

    >>> from kschedlab.api.core import Pod
    >>> p = Pod(); p.status.phase = "Pending"; mark_set(p, "status")
    >>> p.model_dump(exclude_unset=True)
    {'status': {'phase': 'Pending'}}
    """
    names: list[str] = []
    for part in path:
        names.extend(part.split("."))
    cur: Any = obj
    for name in names:
        cur.model_fields_set.add(name)
        cur = getattr(cur, name)


# ---------------------------------------------------------------- time values


_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_FRACTION = re.compile(r"[Tt ]\d{2}:\d{2}:\d{2}[.,](\d+)")


class Timestamp(datetime):
    """A UTC datetime that also keeps the nanoseconds below its microsecond.

    Go's ``time.Time`` (and so ``metav1.Time`` parsed from RFC 3339) holds
    nanoseconds; Python's datetime only microseconds. ``nanosecond`` is the 0-999
    rest, ``ns`` the exact value in nanoseconds since the epoch. Comparisons and
    hashing use the full value; datetime arithmetic returns microsecond values.

    >>> a, b = parse_time("2026-12-01T10:00:00.123456789Z"), parse_time("2026-12-01T10:00:00.123456788Z")
    >>> a > b, a.ns - b.ns, a.nanosecond
    (True, 1, 789)
    """

    def __new__(cls, *args: Any, nanosecond: int = 0, **kwargs: Any) -> Timestamp:
        obj = super().__new__(cls, *args, **kwargs)
        obj._nanosecond = nanosecond
        return obj

    @property
    def nanosecond(self) -> int:
        """The nanoseconds below ``microsecond`` (0-999)."""
        return getattr(self, "_nanosecond", 0)

    @property
    def ns(self) -> int:
        """Nanoseconds since the Unix epoch (exact)."""
        return time_ns(self)

    def __repr__(self) -> str:
        base = datetime.__repr__(self)
        return base[:-1] + f", nanosecond={self.nanosecond})" if self.nanosecond else base

    def __reduce_ex__(self, protocol: Any) -> Any:
        return (_timestamp_from_ns, (self.ns,))

    def __copy__(self) -> Timestamp:
        return self

    def __deepcopy__(self, memo: Any) -> Timestamp:
        return self

    def __hash__(self) -> int:
        return hash((datetime.__hash__(self), self.nanosecond))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, datetime):
            return datetime.__eq__(self, other) and self.nanosecond == getattr(other, "nanosecond", 0)
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __lt__(self, other: datetime) -> bool:
        if isinstance(other, datetime):
            return time_ns(self) < time_ns(other)
        return NotImplemented

    def __le__(self, other: datetime) -> bool:
        if isinstance(other, datetime):
            return time_ns(self) <= time_ns(other)
        return NotImplemented

    def __gt__(self, other: datetime) -> bool:
        if isinstance(other, datetime):
            return time_ns(self) > time_ns(other)
        return NotImplemented

    def __ge__(self, other: datetime) -> bool:
        if isinstance(other, datetime):
            return time_ns(self) >= time_ns(other)
        return NotImplemented


def _timestamp_from_ns(ns: int) -> Timestamp:
    seconds, rest = divmod(ns, 1_000_000_000)
    micro, nano = divmod(rest, 1000)
    dt = _EPOCH + timedelta(seconds=seconds, microseconds=micro)
    return Timestamp(dt.year, dt.month, dt.day, dt.hour, dt.minute, dt.second, dt.microsecond,
                     tzinfo=timezone.utc, nanosecond=nano)


def time_ns(dt: datetime) -> int:
    """Exact nanoseconds since the Unix epoch of a timezone-aware datetime
    (a :class:`Timestamp` keeps its sub-microsecond part).

    >>> time_ns(parse_time("1970-01-01T00:00:01.000000001Z"))
    1000000001
    """
    delta = datetime(dt.year, dt.month, dt.day, dt.hour, dt.minute, dt.second, dt.microsecond,
                     tzinfo=dt.tzinfo) - _EPOCH
    return ((delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds) * 1000 + getattr(
        dt, "nanosecond", 0)


def parse_time(value: Any) -> Timestamp:
    """Parse an RFC 3339 timestamp as Kubernetes writes them, keeping nanoseconds
    (Go's RFC3339Nano; digits past the ninth are dropped, as Go does).

    >>> parse_time("2024-05-01T10:00:00Z").isoformat()
    '2024-05-01T10:00:00+00:00'
    >>> format_time(parse_time("2026-12-01T12:00:00.123456789+02:00"))
    '2026-12-01T10:00:00.123456789Z'
    """
    nano = 0
    if isinstance(value, datetime):
        dt = value
        nano = getattr(value, "nanosecond", 0)
    elif isinstance(value, str):
        try:
            dt = datetime.fromisoformat(value)
        except ValueError:
            raise ValueError(f'invalid time "{value}": expected RFC 3339, e.g. 2006-01-02T15:04:05Z') from None
        if "T" not in value and "t" not in value:
            raise ValueError(f'invalid time "{value}": expected RFC 3339, e.g. 2006-01-02T15:04:05Z')
        m = _FRACTION.search(value)
        if m:
            digits = (m.group(1) + "000000000")[:9]
            nano = int(digits[6:9])
            dt = dt.replace(microsecond=int(digits[:6]))
    else:
        raise ValueError(f"expected an RFC 3339 time string, got {type(value).__name__}")
    if dt.tzinfo is None:
        raise ValueError(f'invalid time "{value}": missing time zone (use Z for UTC)')
    dt = dt.astimezone(timezone.utc)
    return Timestamp(dt.year, dt.month, dt.day, dt.hour, dt.minute, dt.second, dt.microsecond,
                     tzinfo=timezone.utc, nanosecond=nano)


def format_time(dt: datetime) -> str:
    """Format as RFC 3339 in UTC with the fraction Go's RFC3339Nano prints (trailing
    zeros dropped, nanoseconds kept).

    >>> format_time(parse_time("2024-05-01T12:00:00+02:00"))
    '2024-05-01T10:00:00Z'
    """
    nano = getattr(dt, "nanosecond", 0)
    dt = dt.astimezone(timezone.utc)
    if dt.microsecond or nano:
        frac = f"{dt.microsecond:06d}{nano:03d}".rstrip("0")
        return dt.strftime("%Y-%m-%dT%H:%M:%S.") + frac + "Z"
    return dt.strftime("%Y-%m-%dT%H:%M:%SZ")


Time = Annotated[datetime, PlainValidator(parse_time), PlainSerializer(format_time)]
"""A ``metav1.Time``: a timezone-aware datetime, dumped as RFC 3339 text."""


# ------------------------------------------------------------- int-or-string


def _int_or_string(value: Any) -> int | str:
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise ValueError(f"expected an integer or a string, got {type(value).__name__}")
    return value


IntOrString = Annotated[int | str, PlainValidator(_int_or_string)]
"""``intstr.IntOrString``: an int or a string such as ``"25%"``."""


# ----------------------------------------------------------------- enum checks


def _quote(v: Any) -> str:
    if isinstance(v, str):
        return f'"{v}"'
    return str(v)


_V = TypeVar("_V")


def check_enum(value: _V, allowed: Iterable[str], *, allow_empty: bool = False) -> _V:
    """Raise the API's ``Unsupported value`` error unless value is allowed.

    >>> check_enum("Equal", ["Equal", "Exists"])
    'Equal'
    >>> check_enum("Foo", ["Equal", "Exists"])
    Traceback (most recent call last):
    ...
    ValueError: Unsupported value: "Foo": supported values: "Equal", "Exists"
    """
    if value is None or (allow_empty and value == ""):
        return value
    allowed = list(allowed)
    if value not in allowed:
        raise ValueError(
            f"Unsupported value: {_quote(value)}: supported values: "
            + ", ".join(_quote(a) for a in allowed)
        )
    return value
