"""DRA device selectors (upstream ``k8s.io/dynamic-resource-allocation/cel``): CEL expressions
over one ``device``, evaluated by a real CEL engine.

It lives in ``api/`` because the API server compiles selectors when it validates DeviceClasses
and ResourceClaims; the allocator uses it through :mod:`kschedlab.dra.cel`.

The engine is ``cel-expr-python`` (Google's C++ CEL runtime, ``cel-cpp``, with its parser and
type checker), set up as upstream's ``k8s.io/dynamic-resource-allocation/cel`` environment:

* variables ``device.driver`` (string), ``device.attributes`` (map of domain to map of name to
  attribute value), ``device.capacity`` (map of domain to map of name to ``Quantity``),
  ``device.allowMultipleAllocations`` (bool); an attribute or capacity name without a domain
  lives in the driver's domain; looking up a domain the device does not have gives an empty map;
* the Kubernetes ``quantity`` library (``quantity``, ``isQuantity``, ``sign``, ``compareTo``,
  ``isGreaterThan``, ``isLessThan``, ``asInteger``, ``isInteger``, ``asApproximateFloat``,
  ``add``, ``sub``) and ``semver`` library (``semver``, ``isSemver`` with the optional normalize
  argument, ``major``/``minor``/``patch``, the comparisons); a ``version`` attribute is a Semver;
* the CEL extensions upstream's base environment enables and cel-cpp has: strings (v2),
  ``cel.bind``, optional types (``.?`` / ``orValue``), ``math``, regex ``find``/``findAll``.

>>> sel = compile_selector('device.driver == "gpu.example.com" && '
...     'device.attributes["gpu.example.com"].model == "a100" && '
...     'device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0')
>>> dev = DeviceView("gpu.example.com", {"model": "a100"}, {"memory": Quantity("80Gi")})
>>> sel.matches(dev)
True
>>> sel.matches(DeviceView("gpu.example.com", {"model": "a100"}, {"memory": Quantity("16Gi")}))
False

Errors read as upstream's (``compile.go``, cel-go):

>>> compile_selector('device.driver')
Traceback (most recent call last):
...
kschedlab.api.dracel.CELError: must evaluate to bool or the unknown type, not string
>>> compile_selector('device.attributes["gpu.example.com"].model == ')  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
kschedlab.api.dracel.CELError: compilation failed: ERROR: <input>:1:47: Syntax error: mismatched input '<EOF>' expecting ...
>>> compile_selector('device.attributes["gpu.example.com"].cores > 2').matches(dev)
Traceback (most recent call last):
...
kschedlab.api.dracel.CELError: no such key: cores

Compiled selectors are cached by expression text; a :class:`DeviceView` keeps the engine's
input for each device, so evaluating many selectors on the same devices is cheap.

The engine was chosen by fidelity, then speed; :mod:`kschedlab.dra.cel` records the measurements.

The cost limit (``resource.CELSelectorExpressionMaxCost``, 1,000,000) is kept with a worst-case
bound of kschedlab's own (:mod:`kschedlab.api.dracel_cost`; cel-cpp meters nothing): validation
refuses a selector past it with upstream's ``too complex, exceeds cost limit``, and such a selector
is never evaluated (``operation cancelled: actual cost limit exceeded``).

Left out of upstream's environment (cel-cpp lacks them, or they are not DRA's concern): the
Kubernetes ``lists``, ``sets``, ``url``, ``ip``,
``cidr``, ``format`` and ``image`` libraries, two-variable comprehensions, and the rule that
list/map literals are homogeneous. ``device.foo`` reports ``undefined field 'foo'`` as
cel-go does; ``device`` on its own (``cel.bind(d, device, ...)``) is not a variable here.
Looking up a missing domain gives an empty map as upstream's does: the domains an expression
indexes with a string literal (``device.attributes["x"]``) are added as empty maps for that
expression, so only an expression that both indexes a missing domain that way and tests
``"x" in device.attributes`` (or counts the domains) sees it, where upstream would not.
"""

from __future__ import annotations

import contextlib
import functools
import math
import re
import threading
import time
from typing import Any, Iterable, Iterator, Mapping

from cel_expr_python import cel as _cel
from cel_expr_python.ext import ext_bindings, ext_math, ext_optional, ext_strings
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from .dracel_cost import CEL_SELECTOR_EXPRESSION_MAX_COST, estimate_cost
from .quantity import Quantity

__all__ = [
    "CELError",
    "Semver",
    "DeviceView",
    "Selector",
    "compile_selector",
    "device_view",
    "parse_semver",
    "compile_errors",
    "benchmark",
    "SELECTOR_MAX_LENGTH",
    "COST_LIMIT_EXCEEDED",
    "TOO_COMPLEX",
    "EvaluationTimer",
    "evaluation_timer",
]

SELECTOR_MAX_LENGTH = 10 * 1024
COST_LIMIT_EXCEEDED = "operation cancelled: actual cost limit exceeded"
TOO_COMPLEX = "too complex, exceeds cost limit"
"""``CELSelectorExpressionMaxLength``: the longest selector the API accepts."""


class CELError(ValueError):
    """A selector that does not compile, or fails when evaluated; the text is upstream's."""


# ------------------------------------------------------------------ semver


class Semver:
    """A semantic version as ``github.com/blang/semver/v4`` parses and orders it.

    >>> parse_semver("1.2.3-rc.1") < parse_semver("1.2.3"), parse_semver("1.10.0") > parse_semver("1.9.9")
    (True, True)
    >>> str(parse_semver("1.0.0+build.5"))
    '1.0.0+build.5'
    """

    __slots__ = ("major", "minor", "patch", "pre", "build")

    def __init__(self, major: int, minor: int, patch: int, pre: tuple[str, ...] = (),
                 build: tuple[str, ...] = ()) -> None:
        self.major, self.minor, self.patch, self.pre, self.build = major, minor, patch, pre, build

    def __str__(self) -> str:
        s = f"{self.major}.{self.minor}.{self.patch}"
        if self.pre:
            s += "-" + ".".join(self.pre)
        if self.build:
            s += "+" + ".".join(self.build)
        return s

    def __repr__(self) -> str:
        return f"Semver({str(self)!r})"

    def compare(self, other: Semver) -> int:
        """-1, 0 or 1 (build metadata is ignored, a pre-release sorts before its release).

        >>> parse_semver("1.0.0-alpha").compare(parse_semver("1.0.0-alpha.1"))
        -1
        """
        a = (self.major, self.minor, self.patch)
        b = (other.major, other.minor, other.patch)
        if a != b:
            return -1 if a < b else 1
        if not self.pre or not other.pre:
            return (not self.pre) - (not other.pre)
        for x, y in zip(self.pre, other.pre):
            c = _compare_pre(x, y)
            if c:
                return c
        return (len(self.pre) > len(other.pre)) - (len(self.pre) < len(other.pre))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Semver) and self.compare(other) == 0

    def __lt__(self, other: Semver) -> bool:
        return self.compare(other) < 0

    def __gt__(self, other: Semver) -> bool:
        return self.compare(other) > 0

    def __hash__(self) -> int:
        return hash((self.major, self.minor, self.patch, self.pre))


def _compare_pre(x: str, y: str) -> int:
    xn, yn = x.isdigit(), y.isdigit()
    if xn and yn:
        a, b = int(x), int(y)
    elif xn or yn:
        return -1 if xn else 1  # numeric identifiers sort first
    else:
        a, b = x, y  # type: ignore[assignment]
    return (a > b) - (a < b)


_ALNUM = set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-")
_DIGITS = set("0123456789")


def _parse_uint(s: str, what: str) -> int:
    if not set(s) <= _DIGITS:
        raise ValueError(f"Invalid character(s) found in {what.lower()} number {_goq(s)}")
    if len(s) > 1 and s[0] == "0":
        raise ValueError(f"{what} number must not contain leading zeroes {_goq(s)}")
    if not s:
        raise ValueError('strconv.ParseUint: parsing "": invalid syntax')
    v = int(s)
    if v >= 2**64:
        raise ValueError(f"strconv.ParseUint: parsing {_goq(s)}: value out of range")
    return v


def _goq(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def parse_semver(s: str) -> Semver:
    """``semver.Parse`` with blang's error texts.

    >>> parse_semver("1.2")
    Traceback (most recent call last):
    ...
    ValueError: No Major.Minor.Patch elements found
    >>> parse_semver("01.2.3")
    Traceback (most recent call last):
    ...
    ValueError: Major number must not contain leading zeroes "01"
    """
    if not s:
        raise ValueError("Version string empty")
    parts = s.split(".", 2)
    if len(parts) != 3:
        raise ValueError("No Major.Minor.Patch elements found")
    major = _parse_uint(parts[0], "Major")
    minor = _parse_uint(parts[1], "Minor")
    patch_str = parts[2]
    build: list[str] = []
    pre: list[str] = []
    if "+" in patch_str:
        i = patch_str.index("+")
        build = patch_str[i + 1:].split(".")
        patch_str = patch_str[:i]
    if "-" in patch_str:
        i = patch_str.index("-")
        pre = patch_str[i + 1:].split(".")
        patch_str = patch_str[:i]
    patch = _parse_uint(patch_str, "Patch")
    for p in pre:
        if not p:
            raise ValueError("Prerelease is empty")
        if p.isdigit():
            if len(p) > 1 and p[0] == "0":
                raise ValueError(f"Numeric PreRelease version must not contain leading zeroes {_goq(p)}")
        elif not set(p) <= _ALNUM:
            raise ValueError(f"Invalid character(s) found in prerelease {_goq(p)}")
    for b in build:
        if not b:
            raise ValueError("Build meta data is empty")
        if not set(b) <= _ALNUM:
            raise ValueError(f"Invalid character(s) found in build meta data {_goq(b)}")
    return Semver(major, minor, patch, tuple(pre), tuple(build))


def _normalize_and_parse(s: str) -> Semver:
    # semver(s, true): drop a leading "v", leading zeros, fill missing minor/patch
    s = s[1:] if s.startswith("v") else s
    parts = s.split(".", 2)
    for i, p in enumerate(parts):
        if len(p) > 1:
            p = p.lstrip("0")
            if not p or not p[0].isdigit():
                p = "0" + p
            parts[i] = p
    if len(parts) < 3:
        if "+" in parts[-1] or "-" in parts[-1]:
            raise ValueError("short version cannot contain PreRelease/Build meta data")
        parts += ["0"] * (3 - len(parts))
    return parse_semver(".".join(parts))


# ------------------------------------------------------- engine types (protobuf)

_QUANTITY_TYPE = "kubernetes.Quantity"
_SEMVER_TYPE = "kubernetes.Semver"


def _message_classes() -> tuple[Any, Any, Any]:
    # Quantity and Semver are opaque types in upstream's environment; cel-cpp carries custom
    # values as protobuf messages, so each gets a one-field message holding its exact value.
    fdp = descriptor_pb2.FileDescriptorProto(name="kschedlab/dra/cel_types.proto", package="kubernetes",
                                             syntax="proto3")
    for name in ("Quantity", "Semver"):
        m = fdp.message_type.add(name=name)
        m.field.add(name="value", number=1, type=descriptor_pb2.FieldDescriptorProto.TYPE_STRING,
                    label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    q = message_factory.GetMessageClass(pool.FindMessageTypeByName(_QUANTITY_TYPE))
    s = message_factory.GetMessageClass(pool.FindMessageTypeByName(_SEMVER_TYPE))
    return pool, q, s


_POOL, _QuantityMsg, _SemverMsg = _message_classes()


@functools.lru_cache(maxsize=4096)
def _q_from_msg(value: str) -> Quantity:
    return Quantity.from_nanos(int(value))


def _q_msg(q: Quantity) -> Any:
    # value equality (1 == 1000m), as resource.Quantity.Equal: the message holds nanos
    return _QuantityMsg(value=str(q.nanos))


@functools.lru_cache(maxsize=4096)
def _kept_q_msg(nanos: int) -> Any:
    """:func:`_q_msg` of a device's capacity, one message per amount (devices' capacities
    repeat; the engine only reads the messages of an activation)."""
    return _QuantityMsg(value=str(nanos))


@functools.lru_cache(maxsize=4096)
def _s_from_msg(value: str) -> Semver:
    return parse_semver(value)


def _s_msg(v: Semver) -> Any:
    # build metadata does not take part in equality or ordering
    return _SemverMsg(value=str(Semver(v.major, v.minor, v.patch, v.pre)))


_QUANTITY_FORMAT_ERR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"


def _parse_quantity(s: str) -> Quantity:
    try:
        return Quantity.parse(s)
    except ValueError:
        raise ValueError(_QUANTITY_FORMAT_ERR) from None


@functools.lru_cache(maxsize=4096)
def _quantity_fn(s: str) -> Any:
    # quantity("40Gi"): literal arguments repeat on every evaluation, so parse each text once
    return _q_msg(_parse_quantity(s))


@functools.lru_cache(maxsize=4096)
def _semver_fn(s: str, normalize: bool = False) -> Any:
    return _s_msg(_normalize_and_parse(s) if normalize else parse_semver(s))


def _is_quantity(s: str) -> bool:
    try:
        Quantity.parse(s)
    except ValueError:
        return False
    return True


def _is_semver(s: str, normalize: bool = False) -> bool:
    try:
        (_normalize_and_parse if normalize else parse_semver)(s)
    except ValueError:
        return False
    return True


def _cmp(a: Any, b: Any) -> int:
    if type(a) is _QuantityMsg:
        x, y = int(a.value), int(b.value)  # exact values in nanos
        return (x > y) - (x < y)
    return _s_from_msg(a.value).compare(_s_from_msg(b.value))


def _major(m: Any) -> int:
    return _s_from_msg(m.value).major


def _minor(m: Any) -> int:
    return _s_from_msg(m.value).minor


def _patch(m: Any) -> int:
    return _s_from_msg(m.value).patch


_INT64_MAX = 2**63 - 1
_NANO = 10**9


def _q_as_int(m: Any) -> int:
    n = _q_from_msg(m.value).nanos
    if n % _NANO or not -_INT64_MAX - 1 <= n // _NANO <= _INT64_MAX:
        raise ValueError("cannot convert value to integer")
    return n // _NANO


def _q_is_int(m: Any) -> bool:
    n = _q_from_msg(m.value).nanos
    return n % _NANO == 0 and -_INT64_MAX - 1 <= n // _NANO <= _INT64_MAX


def _q_float(m: Any) -> float:
    n = _q_from_msg(m.value).nanos
    try:
        return n / _NANO
    except OverflowError:
        return math.inf if n > 0 else -math.inf


def _q_add(a: Any, b: Any) -> Any:
    extra = b * _NANO if isinstance(b, int) else int(b.value)
    return _QuantityMsg(value=str(int(a.value) + extra))


def _q_sub(a: Any, b: Any) -> Any:
    extra = b * _NANO if isinstance(b, int) else int(b.value)
    return _QuantityMsg(value=str(int(a.value) - extra))


def _regex_find(s: str, pattern: str) -> str:
    m = re.search(pattern, s)
    return m.group(0) if m else ""


def _regex_find_all(s: str, pattern: str, limit: int = -1) -> list[str]:
    if limit == 0:
        return []
    out = [m.group(0) for m in re.finditer(pattern, s)]
    return out if limit < 0 else out[:limit]


def _functions() -> list[Any]:
    T = _cel.Type
    Q, S = T(_QUANTITY_TYPE), T(_SEMVER_TYPE)
    Ovl, F = _cel.Overload, _cel.FunctionDecl

    def member(id_: str, ret: Any, params: list[Any], impl: Any = None) -> Any:
        return Ovl(id_, ret, params, is_member=True, impl=impl) if impl else Ovl(id_, ret, params, is_member=True)

    # cel-cpp dispatches on runtime kinds: Quantity and Semver are both messages, so the
    # comparisons get one implementation that looks at the message type.
    return [
        F("quantity", [Ovl("string_to_quantity", Q, [T.STRING], impl=_quantity_fn)]),
        F("isQuantity", [Ovl("is_quantity_string", T.BOOL, [T.STRING], impl=_is_quantity)]),
        F("sign", [Ovl("quantity_sign", T.INT, [Q], impl=lambda m: _q_from_msg(m.value).sign())]),
        F("isGreaterThan", [member("quantity_is_greater_than", T.BOOL, [Q, Q], lambda a, b: _cmp(a, b) == 1),
                            member("semver_is_greater_than", T.BOOL, [S, S])]),
        F("isLessThan", [member("quantity_is_less_than", T.BOOL, [Q, Q], lambda a, b: _cmp(a, b) == -1),
                         member("semver_is_less_than", T.BOOL, [S, S])]),
        F("compareTo", [member("quantity_compare_to", T.INT, [Q, Q], _cmp),
                        member("semver_compare_to", T.INT, [S, S])]),
        F("asApproximateFloat", [member("quantity_get_float", T.DOUBLE, [Q], _q_float)]),
        F("asInteger", [member("quantity_get_int", T.INT, [Q], _q_as_int)]),
        F("isInteger", [member("quantity_is_integer", T.BOOL, [Q], _q_is_int)]),
        F("add", [member("quantity_add", Q, [Q, Q], _q_add), member("quantity_add_int", Q, [Q, T.INT], _q_add)]),
        F("sub", [member("quantity_sub", Q, [Q, Q], _q_sub), member("quantity_sub_int", Q, [Q, T.INT], _q_sub)]),
        F("semver", [Ovl("string_to_semver", S, [T.STRING], impl=_semver_fn),
                     Ovl("string_bool_to_semver", S, [T.STRING, T.BOOL], impl=_semver_fn)]),
        F("isSemver", [Ovl("is_semver_string", T.BOOL, [T.STRING], impl=_is_semver),
                       Ovl("is_semver_string_bool", T.BOOL, [T.STRING, T.BOOL], impl=_is_semver)]),
        F("major", [member("semver_major", T.INT, [S], _major)]),
        F("minor", [member("semver_minor", T.INT, [S], _minor)]),
        F("patch", [member("semver_patch", T.INT, [S], _patch)]),
        F("find", [member("string_find_string", T.STRING, [T.STRING, T.STRING], _regex_find)]),
        F("findAll", [member("string_find_all_string", T.List(T.STRING), [T.STRING, T.STRING], _regex_find_all),
                      member("string_find_all_string_int", T.List(T.STRING), [T.STRING, T.STRING, T.INT],
                             _regex_find_all)]),
    ]


def _includes_equal(a: Any, b: Any) -> bool:
    # cel-go's Equal: numbers compare across int / uint / double, other kinds only with their own
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if type(a) is not type(b):
        return False
    if type(a) is _SemverMsg:
        return _s_from_msg(a.value).compare(_s_from_msg(b.value)) == 0
    return a == b


def _includes(target: Any, arg: Any) -> bool:
    return _includes_equal(target, arg)


def _includes_list(target: Any, arg: Any) -> bool:
    return any(_includes_equal(item, arg) for item in target)


def _includes_functions() -> list[Any]:
    """``<target>.includes(<arg>)`` of the ``DRAListTypeAttributes`` environment: whether a list
    holds the argument, or a scalar equals it. Upstream declares one (dyn, dyn) overload; cel-cpp
    dispatches on the runtime kinds, so here there is one overload per pair of kinds."""
    T = _cel.Type
    kinds = {"int": T.INT, "uint": T.UINT, "double": T.DOUBLE, "string": T.STRING, "bool": T.BOOL,
             "semver": T(_SEMVER_TYPE)}
    overloads = []
    for name, arg in kinds.items():
        overloads.append(_cel.Overload(f"dra_includes_list_{name}", T.BOOL, [T.List(arg), arg], is_member=True,
                                       impl=_includes_list))
        for target_name, target in kinds.items():
            overloads.append(_cel.Overload(f"dra_includes_{target_name}_{name}", T.BOOL, [target, arg],
                                           is_member=True, impl=_includes))
    return [_cel.FunctionDecl("includes", overloads)]


_DEVICE_VARS = ("driver", "attributes", "capacity", "allowMultipleAllocations")


def _new_env(list_types: bool = False) -> Any:
    T = _cel.Type
    Q = T(_QUANTITY_TYPE)
    variables = {
        "device.driver": T.STRING,
        "device.attributes": T.Map(T.STRING, T.Map(T.STRING, T.DYN)),
        "device.capacity": T.Map(T.STRING, T.Map(T.STRING, Q)),
        "device.allowMultipleAllocations": T.BOOL,
    }
    return _cel.NewEnv(
        descriptor_pool=_POOL,
        variables=variables,
        functions=_functions() + (_includes_functions() if list_types else []),
        extensions=[ext_strings.ExtStrings(2), ext_bindings.ExtBindings(), ext_optional.ExtOptional(),
                    ext_math.ExtMath()],
    )


#: the environment by the ``DRAListTypeAttributes`` gate (on: list attributes, ``includes()``)
_ENVS = {False: _new_env(False), True: _new_env(True)}
_ENV_LOCK = threading.Lock()

# ------------------------------------------------------------------ errors

_UNDECLARED_DEVICE = re.compile(r"undeclared reference to 'device\.([^'.]+)[^']*' \(in container ''\)")
_CPP_TYPE_NAMES = {
    "BOOL": "bool", "INT": "int", "UINT": "uint", "DOUBLE": "double", "STRING": "string", "BYTES": "bytes",
    "NULL": "null_type", "DURATION": "google.protobuf.Duration", "TIMESTAMP": "google.protobuf.Timestamp",
    "TYPE": "type", "DYN": "dyn",
}


def _go_type_name(name: str) -> str:
    # cel-cpp prints LIST<INT> / MAP<STRING, INT>; cel-go prints list(int) / map(string, int)
    m = re.fullmatch(r"(LIST|MAP)<(.*)>", name)
    if m:
        inner = _split_type_args(m.group(2))
        return f"{m.group(1).lower()}({', '.join(_go_type_name(a) for a in inner)})"
    return _CPP_TYPE_NAMES.get(name, name)


def _split_type_args(s: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    out.append(cur.strip())
    return out


def _compile_issues(text: str) -> str:
    # "INVALID_ARGUMENT: ERROR: ... [INVALID_ARGUMENT]" -> cel-go's issues.String()
    text = re.sub(r"^[A-Z_]+: ", "", text)
    text = re.sub(r" \[[A-Z_]+\]$", "", text)
    return _UNDECLARED_DEVICE.sub(lambda m: f"undefined field '{m.group(1)}'", text)


_RUNTIME_REWRITES = (
    (re.compile(r'^Key not found in map : "(.*)"$', re.S), lambda m: f"no such key: {m.group(1)}"),
    (re.compile(r"^Key not found in map : (.*)$", re.S), lambda m: f"no such key: {m.group(1)}"),
    (re.compile(r"^divide by zero$"), lambda m: "division by zero"),
    (re.compile(r"^modulus by zero$"), lambda m: "modulus by zero"),
    (re.compile(r"^No matching overloads found : (.*)$", re.S), lambda m: f"no such overload: {m.group(1)}"),
)


def _runtime_message(text: str) -> str:
    text = re.sub(r"^[A-Z_]+: ", "", str(text))
    for rx, fix in _RUNTIME_REWRITES:
        m = rx.match(text)
        if m:
            return fix(m)
    return text


# ------------------------------------------------------------------ devices


def _split_qualified(name: str, driver: str) -> tuple[str, str]:
    domain, sep, ident = name.partition("/")
    return (domain, ident) if sep else (driver, name)


_LIST_KEYS = {"ints": "int", "bools": "bool", "strings": "string", "versions": "version"}


#: the engine values of one-field scalar attributes (``{"int": 1}``, ``{"version": "1.2.3"}``),
#: by (field, value): the same for every device carrying them (errors are not kept: they name
#: the attribute)
_SCALAR_VALUES: dict[tuple[str, Any], Any] = {}
_SCALAR_VALUES_LIMIT = 1 << 14
_SCALAR_KINDS = {"int": (int,), "bool": (bool,), "string": (str,), "version": (str,)}
_MISSING = object()


def _scalar_value(name: str, kind: str, raw: Any) -> Any:
    """The engine value of the attribute ``{kind: raw}`` (``raw`` of the kind's own type)."""
    if kind != "version":
        return raw
    try:
        return _s_msg(parse_semver(raw))
    except ValueError as e:
        raise CELError(f"attribute {name}: parse semantic version: {e}") from None


def _attribute_value(name: str, value: Any, list_types: bool = False) -> Any:
    """The engine's value of one attribute: a scalar, or with ``list_types`` a list for the
    list-typed ones. Without the gate a list-typed attribute has no supported value, and every
    selector on its device fails (upstream does this on purpose: scheduling stops until the
    slices change, rather than placing a pod wrongly)."""
    if type(value) is dict and len(value) == 1:  # one scalar field, as in a slice (kept per value)
        ((kind, raw),) = value.items()
        if type(raw) in _SCALAR_KINDS.get(kind, ()):
            key = (kind, raw)
            found = _SCALAR_VALUES.get(key, _MISSING)
            if found is _MISSING:
                found = _scalar_value(name, kind, raw)
                if len(_SCALAR_VALUES) >= _SCALAR_VALUES_LIMIT:
                    _SCALAR_VALUES.clear()
                _SCALAR_VALUES[key] = found
            return found
    if isinstance(value, Mapping):  # ResourceSlice JSON: {"int": 1} / {"ints": [0, 1]} ...
        set_ = [k for k in ("int", "bool", "string", "version") if value.get(k) is not None]
        lists = [k for k in _LIST_KEYS if value.get(k) is not None] if list_types else []
        if lists:
            return _list_value(name, lists[0], value[lists[0]])
        if len(set_) != 1:
            raise CELError(f"attribute {name}: unsupported attribute value")
        value = ("version", value["version"]) if set_[0] == "version" else value[set_[0]]
    elif hasattr(value, "set_fields") and hasattr(value, "version"):  # api.resource.DeviceAttribute
        found = value.values() if list_types else None
        if found is not None:
            return _list_value(name, *found)
        if value.version is not None:
            value = ("version", value.version)
        else:
            value = value.value()
            if value is None:
                raise CELError(f"attribute {name}: unsupported attribute value")
    if isinstance(value, list) and list_types:
        return [_attribute_value(name, v) for v in value]
    if isinstance(value, tuple) and len(value) == 2 and value[0] == "version":
        try:
            return _s_msg(parse_semver(value[1]))
        except ValueError as e:
            raise CELError(f"attribute {name}: parse semantic version: {e}") from None
    if isinstance(value, Semver):
        return _s_msg(value)
    if isinstance(value, (bool, int, str)):
        return value
    raise CELError(f"attribute {name}: unsupported attribute value")


def _list_value(name: str, key: str, values: list) -> list:
    if key == "versions":
        return [_attribute_value(name, ("version", v)) for v in values]
    return list(values)


def _capacity_value(value: Any) -> Quantity:
    if isinstance(value, Quantity):
        return value
    if isinstance(value, Mapping):  # ResourceSlice JSON: {"value": "1Gi", "requestPolicy": ...}
        value = value.get("value", 0)
    elif hasattr(value, "request_policy"):  # api.resource.DeviceCapacity
        value = value.value if value.value is not None else 0
    return value if isinstance(value, Quantity) else Quantity(value)


class DeviceView:
    """One device as a selector sees it.

    ``attributes`` and ``capacity`` are keyed by the names a ResourceSlice uses (``model`` or
    ``other.example.com/model``; a name without a domain is in the driver's domain). Attribute
    values are ``int``, ``bool``, ``str``, a :class:`Semver`, ``("version", "1.2.3")``, a
    :class:`~kschedlab.api.resource.DeviceAttribute` or its JSON (``{"int": 4}``); capacities
    are quantities, :class:`~kschedlab.api.resource.DeviceCapacity` or its JSON
    (``{"value": "40Gi"}``). ``allow_multiple_allocations`` None reads as false. ``list_types``
    (the ``DRAListTypeAttributes`` gate) makes ``{"ints": [0, 1]}`` and the other list-typed
    attributes lists; without it they have no supported value and every selector fails on the
    device. Evaluate it with selectors compiled for the same gate.

    >>> d = DeviceView("dra.example.com", {"model": "x", "acme.com/fw": ("version", "1.2.3")}, {"cores": Quantity("8")})
    >>> sorted(d.attributes_by_domain)
    ['acme.com', 'dra.example.com']
    >>> compile_selector('device.attributes["acme.com"].fw.isGreaterThan(semver("1.0.0"))').matches(d)
    True
    >>> j = DeviceView("dra.example.com", {"numa": {"int": 1}}, {"memory": {"value": "1Gi"}}, None)
    >>> compile_selector('device.attributes["dra.example.com"].numa == 1 && '
    ...                  'device.capacity["dra.example.com"].memory.isGreaterThan(quantity("1G"))').matches(j)
    True
    """

    __slots__ = ("driver", "attributes", "capacity", "allow_multiple_allocations", "list_types",
                 "attributes_by_domain", "capacity_by_domain", "_data", "_activations", "_error")

    def __init__(self, driver: str, attributes: Mapping[str, Any] | None = None,
                 capacity: Mapping[str, Any] | None = None, allow_multiple_allocations: bool | None = False,
                 list_types: bool = False) -> None:
        self.driver = driver
        self.attributes = dict(attributes or {})
        self.capacity = dict(capacity or {})
        self.allow_multiple_allocations = bool(allow_multiple_allocations)
        self.list_types = list_types
        self._error: CELError | None = None
        by_domain: dict[str, dict[str, Any]] = {}
        try:
            for name, value in self.attributes.items():
                domain, ident = _split_qualified(name, driver)
                by_domain.setdefault(domain, {})[ident] = _attribute_value(name, value, list_types)
        except CELError as e:
            self._error = e
        self.attributes_by_domain = by_domain
        caps: dict[str, dict[str, Any]] = {}
        for name, q in self.capacity.items():
            domain, ident = _split_qualified(name, driver)
            caps.setdefault(domain, {})[ident] = _kept_q_msg(_capacity_value(q).nanos)
        self.capacity_by_domain = caps
        self._activations: dict[tuple[frozenset[str], frozenset[str]], Any] = {}

    def _activation(self, attr_domains: frozenset[str], cap_domains: frozenset[str]) -> Any:
        key = (attr_domains, cap_domains)
        act = self._activations.get(key)
        if act is None:
            attrs = dict(self.attributes_by_domain)
            for d in attr_domains:
                attrs.setdefault(d, {})
            caps = dict(self.capacity_by_domain)
            for d in cap_domains:
                caps.setdefault(d, {})
            data = {
                "device.driver": self.driver,
                "device.attributes": attrs,
                "device.capacity": caps,
                "device.allowMultipleAllocations": self.allow_multiple_allocations,
            }
            act = _ENVS[self.list_types].Activation(data)
            self._activations[key] = act
        return act

    def __repr__(self) -> str:
        return (f"DeviceView({self.driver!r}, {self.attributes!r}, {self.capacity!r}, "
                f"allow_multiple_allocations={self.allow_multiple_allocations}, list_types={self.list_types})")


def device_view(driver: str, device: Any) -> DeviceView:
    """A :class:`DeviceView` of a ResourceSlice device (``kschedlab.api.resource.Device``).

    >>> from kschedlab.api.resource import Device
    >>> dev = Device.model_validate({"name": "gpu-0", "attributes": {"model": {"string": "a100"}},
    ...                              "capacity": {"memory": {"value": "40Gi"}}})
    >>> compile_selector('device.capacity["gpu.example.com"].memory == quantity("40Gi")').matches(
    ...     device_view("gpu.example.com", dev))
    True
    """
    return DeviceView(driver, dict(device.attributes), dict(device.capacity), device.allow_multiple_allocations)


# ------------------------------------------------------------------ selectors

_DOMAIN_LOOKUP = re.compile(r"""device\s*\.\s*(attributes|capacity)\s*\[\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')\s*\]""")


class Selector:
    """A compiled selector; :meth:`matches` evaluates it for one device.

    >>> s = compile_selector('device.allowMultipleAllocations == true')
    >>> s.matches(DeviceView("d", allow_multiple_allocations=True)), s.expression
    (True, 'device.allowMultipleAllocations == true')
    """

    __slots__ = ("expression", "list_types", "max_cost", "_program", "_attr_domains", "_cap_domains")

    def __init__(self, expression: str, program: Any, list_types: bool = False) -> None:
        self.expression = expression
        self.list_types = list_types
        #: the worst-case cost (:mod:`kschedlab.api.dracel_cost`)
        self.max_cost = estimate_cost(program.serialize())
        self._program = program
        attr, cap = set(), set()
        for m in _DOMAIN_LOOKUP.finditer(expression):
            (attr if m.group(1) == "attributes" else cap).add(m.group(2) if m.group(2) is not None else m.group(3))
        self._attr_domains = frozenset(attr)
        self._cap_domains = frozenset(cap)

    def matches(self, device: DeviceView) -> bool:
        """Evaluate for ``device``; raises :class:`CELError` on a runtime error.

        >>> compile_selector('1 / 0 == 1').matches(DeviceView("d"))
        Traceback (most recent call last):
        ...
        kschedlab.api.dracel.CELError: division by zero
        """
        timer = _TIMER
        if timer.enabled:
            began = _perf_counter()
            try:
                return self._matches(device)
            finally:
                timer.seconds += _perf_counter() - began
                timer.evaluations += 1
        return self._matches(device)

    def _matches(self, device: DeviceView) -> bool:
        if self.max_cost > CEL_SELECTOR_EXPRESSION_MAX_COST:
            raise CELError(COST_LIMIT_EXCEEDED)
        if device._error is not None:
            raise device._error
        if device.list_types is not self.list_types:
            raise ValueError(f"selector compiled with list_types={self.list_types} evaluated on a device "
                             f"read with list_types={device.list_types}")
        result = self._program.eval(device._activation(self._attr_domains, self._cap_domains))
        value = result.value()
        kind = result.type().name()
        if kind == "BOOL":
            return bool(value)
        if kind == "ERROR":
            raise CELError(_runtime_message(value))
        name = _go_type_name(kind)
        raise CELError(f"CEL result of type {name} could not be converted to bool: "
                       f"type conversion error from '{name}' to 'bool'")

    def __repr__(self) -> str:
        return f"Selector({self.expression!r})"


class EvaluationTimer:
    """Counts selector evaluations and their wall-clock seconds while ``enabled`` (off by
    default: :meth:`Selector.matches` then pays one attribute test)."""

    __slots__ = ("enabled", "evaluations", "seconds")

    def __init__(self) -> None:
        self.enabled = False
        self.evaluations = 0
        self.seconds = 0.0


_TIMER = EvaluationTimer()
_perf_counter = time.perf_counter


@contextlib.contextmanager
def evaluation_timer(enabled: bool = True) -> Iterator[EvaluationTimer]:
    """Time every :meth:`Selector.matches` inside the ``with`` block (the engine's evaluation,
    with the device's input built on its first use); yields a fresh :class:`EvaluationTimer`
    whose ``evaluations`` / ``seconds`` hold the totals. ``enabled=False`` yields one that stays
    at zero. Not reentrant.

    >>> with evaluation_timer() as t:
    ...     compile_selector('device.driver == "d"').matches(DeviceView("d"))
    True
    >>> t.evaluations, t.seconds > 0, t.enabled
    (1, True, False)
    """
    global _TIMER
    timer = EvaluationTimer()
    timer.enabled = enabled
    previous, _TIMER = _TIMER, timer
    try:
        yield timer
    finally:
        timer.enabled = False
        _TIMER = previous


@functools.lru_cache(maxsize=8192)
def compile_selector(expression: str, list_types: bool = False) -> Selector:
    """Compile (and cache) a selector; raises :class:`CELError` as upstream words it.
    ``list_types`` is the ``DRAListTypeAttributes`` gate: it adds ``includes()`` (a list holds the
    argument, or a scalar equals it) and reads list-typed attributes as lists.

    >>> numa = DeviceView("d", {"numa": {"ints": [0, 1]}, "model": {"string": "a100"}}, list_types=True)
    >>> compile_selector('device.attributes["d"].numa.includes(1)', list_types=True).matches(numa)
    True
    >>> compile_selector('device.attributes["d"].model == "a100"', list_types=True).matches(numa)
    True
    >>> compile_selector('device.attributes["d"].model == "a100"').matches(
    ...     DeviceView("d", {"numa": {"ints": [0, 1]}, "model": {"string": "a100"}}))
    Traceback (most recent call last):
    ...
    kschedlab.api.dracel.CELError: attribute numa: unsupported attribute value
    >>> compile_selector('device.attributes["d"].numa.includes(1)')
    Traceback (most recent call last):
    ...
    kschedlab.api.dracel.CELError: compilation failed: ERROR: <input>:1:37: undeclared reference to 'includes' (in container '')
     | device.attributes["d"].numa.includes(1)
     | ....................................^

    >>> compile_selector('device.attributes["x"].a == 1') is compile_selector('device.attributes["x"].a == 1')
    True
    >>> compile_selector('device.foo == 1')
    Traceback (most recent call last):
    ...
    kschedlab.api.dracel.CELError: compilation failed: ERROR: <input>:1:7: undefined field 'foo'
     | device.foo == 1
     | ......^
    """
    with _ENV_LOCK:
        try:
            program = _ENVS[list_types].compile(expression)
        except RuntimeError as e:
            raise CELError("compilation failed: " + _compile_issues(str(e))) from None
        out = program.return_type().name()
    if out not in ("BOOL", "DYN"):
        raise CELError(f"must evaluate to bool or the unknown type, not {_go_type_name(out)}")
    return Selector(expression, program, list_types)


def compile_errors(expressions: Iterable[str]) -> list[str | None]:
    """For each expression, the compile error message or None.

    >>> compile_errors(['true', '1'])
    [None, 'must evaluate to bool or the unknown type, not int']
    """
    out: list[str | None] = []
    for e in expressions:
        try:
            compile_selector(e)
            out.append(None)
        except CELError as err:
            out.append(str(err))
    return out


def benchmark(n: int = 20000) -> float:
    """Microseconds per evaluation of a typical selector on one device (input prepared once).

    >>> benchmark(10) > 0
    True
    """
    import time

    sel = compile_selector('device.driver == "gpu.example.com" && '
                           'device.attributes["gpu.example.com"].model == "a100" && '
                           'device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0')
    dev = DeviceView("gpu.example.com", {"model": "a100"}, {"memory": Quantity("80Gi")})
    sel.matches(dev)
    t0 = time.perf_counter()
    for _ in range(n):
        sel.matches(dev)
    return (time.perf_counter() - t0) / n * 1e6


