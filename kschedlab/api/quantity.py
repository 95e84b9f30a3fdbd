"""Exact Kubernetes resource quantities (``resource.Quantity``).

A quantity is held as an integer number of nano-units, which is exactly what the
API can represent: parsing rounds anything finer than ``1n`` up (away from zero),
like upstream ``ParseQuantity``. No floating point is involved anywhere.

Grammar (as in apimachinery)::

    <quantity>       ::= <signedNumber><suffix>
    <signedNumber>   ::= [+-] ( <digits> | <digits>. | <digits>.<digits> | .<digits> )
    <suffix>         ::= <binarySI> | <decimalSI> | <decimalExponent>
    <binarySI>       ::= Ki | Mi | Gi | Ti | Pi | Ei
    <decimalSI>      ::= n | u | m | "" | k | M | G | T | P | E
    <decimalExponent>::= e<signedInt> | E<signedInt>

>>> Quantity.parse("1.5").milli_value()
1500
>>> str(Quantity.parse("1.5"))
'1500m'
>>> Quantity.parse("1Gi") == Quantity.parse("1024Mi")
True
>>> Quantity.parse("100m") + Quantity.parse("1")
Quantity('1100m')
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import total_ordering
from typing import Any

__all__ = ["Quantity", "DECIMAL_SI", "BINARY_SI", "DECIMAL_EXPONENT", "parse_quantity"]

DECIMAL_SI = "DecimalSI"
BINARY_SI = "BinarySI"
DECIMAL_EXPONENT = "DecimalExponent"
_FORMATS = (DECIMAL_SI, BINARY_SI, DECIMAL_EXPONENT)

_NANO = 10**9
_MAX_INT64 = 2**63 - 1
_MAX_INT32 = 2**31 - 1
# Decimal exponents beyond this are refused: the value would need more than ten
# thousand digits, which no Kubernetes consumer can use (upstream keeps them in a
# big decimal but every accessor then overflows int64).
_MAX_NANO_EXPONENT = 10_000
# Numbers of more than this many digits are refused (upstream reads any length into a
# big integer; here a bound keeps parsing cheap, far above anything a resource needs).
_MAX_DIGITS = 1_000

_DECIMAL_SUFFIXES = {
    "n": -9,
    "u": -6,
    "m": -3,
    "": 0,
    "k": 3,
    "M": 6,
    "G": 9,
    "T": 12,
    "P": 15,
    "E": 18,
}
_BINARY_SUFFIXES = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL_BY_EXP = {v: k for k, v in _DECIMAL_SUFFIXES.items()}
_BINARY_BY_POW1024 = {v // 10: k for k, v in _BINARY_SUFFIXES.items()}
_SUFFIX_LETTERS = frozenset("eEinumkKMGTP")
_DIGITS = frozenset("0123456789")


def _invalid(text: object, why: str = "") -> ValueError:
    shown = str(text)
    if len(shown) > 64:
        shown = f"{shown[:40]}... ({len(shown):,} characters)"
    return ValueError(f'invalid quantity "{shown}"' + (f": {why}" if why else ""))


def _split(s: str) -> tuple[bool, str, str, str] | None:
    """Split ``s`` into (positive, integer digits, fraction digits, suffix).

    Mirrors the scanner of apimachinery (leading zeros dropped, a lone sign or
    "." read as zero). Returns None when the text is not of the quantity form.
    """
    positive = True
    pos = 0
    end = len(s)
    if pos < end and s[0] in "+-":
        positive = s[0] == "+"
        pos += 1
    while pos < end and s[pos] == "0":
        pos += 1
    if pos >= end:
        return positive, "0", "", ""
    start = pos
    while pos < end and s[pos] in _DIGITS:
        pos += 1
    num = s[start:pos] or "0"
    if pos >= end:
        return positive, num, "", ""
    denom = ""
    if s[pos] == ".":
        pos += 1
        start = pos
        while pos < end and s[pos] in _DIGITS:
            pos += 1
        denom = s[start:pos]
        if pos >= end:
            return positive, num, denom, ""
    suffix_start = pos
    while pos < end and s[pos] in _SUFFIX_LETTERS:
        pos += 1
    if pos < end and s[pos] in "+-":
        pos += 1
    while pos < end and s[pos] in _DIGITS:
        pos += 1
    if pos < end:
        return None
    return positive, num, denom, s[suffix_start:]


def _interpret(suffix: str) -> tuple[int, int, str] | None:
    """Return (base, exponent, format) for a suffix, or None if unknown."""
    if suffix in _DECIMAL_SUFFIXES:
        return 10, _DECIMAL_SUFFIXES[suffix], DECIMAL_SI
    if suffix in _BINARY_SUFFIXES:
        return 2, _BINARY_SUFFIXES[suffix], BINARY_SI
    if len(suffix) > 1 and suffix[0] in "eE":
        body = suffix[1:]
        digits = body[1:] if body[0] in "+-" else body
        if not digits or not set(digits) <= _DIGITS or len(digits.lstrip("0")) > 10:
            return None
        exp = int(body)
        # upstream stores the exponent in an int32 that is later negated
        if abs(exp) > _MAX_INT32:
            return None
        return 10, exp, DECIMAL_EXPONENT
    return None


def _ceil_div_abs(n: int, d: int) -> int:
    """n / d rounded away from zero (d > 0)."""
    q, r = divmod(abs(n), d)
    if r:
        q += 1
    return q if n >= 0 else -q


def _decimal_canonical(nanos: int) -> tuple[int, int]:
    """Mantissa and base-10 exponent (a multiple of 3) with no trailing zeros lost."""
    m, exp = nanos, -9
    while m % 10 == 0:
        m //= 10
        exp += 1
    while exp % 3:
        m *= 10
        exp -= 1
    return m, exp


@total_ordering
class Quantity:
    """An immutable, exact Kubernetes quantity.

    Construct with :meth:`parse` (or ``Quantity("1Gi")``), :meth:`from_int`,
    :meth:`from_milli` or :meth:`from_nanos`. Arithmetic keeps exactness; the
    result takes the format of the left operand unless that one is zero (as
    upstream ``Add``/``Sub`` do).

    >>> q = Quantity.parse("1.5Gi")
    >>> q.value(), str(q)
    (1610612736, '1536Mi')
    >>> Quantity.parse("0.1m").milli_value()  # rounded up, like MilliValue()
    1
    >>> Quantity.parse("1e3") > 999
    True
    """

    __slots__ = ("_nanos", "_format", "_text", "_source")

    _nanos: int
    _format: str
    _text: str | None
    _source: str | None

    def __init__(self, value: str | int | Quantity = 0) -> None:
        if isinstance(value, Quantity):
            other = value
        elif isinstance(value, bool):
            raise _invalid(value)
        elif isinstance(value, int):
            other = Quantity.from_int(value)
        elif isinstance(value, str):
            other = Quantity.parse(value)
        else:
            raise TypeError(f"cannot make a Quantity from {type(value).__name__}")
        self._init(other._nanos, other._format, other._text, other._source)

    def _init(self, nanos: int, fmt: str, text: str | None, source: str | None) -> None:
        object.__setattr__(self, "_nanos", nanos)
        object.__setattr__(self, "_format", fmt)
        object.__setattr__(self, "_text", text)
        object.__setattr__(self, "_source", source)

    @classmethod
    def _make(
        cls, nanos: int, fmt: str, text: str | None = None, source: str | None = None
    ) -> Quantity:
        q = cls.__new__(cls)
        q._init(nanos, fmt, text, source)
        return q

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Quantity is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("Quantity is immutable")

    def __reduce__(self):  # pickling / deepcopy
        return (Quantity._make, (self._nanos, self._format, self._text, self._source))

    def __copy__(self) -> Quantity:
        return self

    def __deepcopy__(self, memo: Any) -> Quantity:
        return self

    # ------------------------------------------------------------------ parsing

    @classmethod
    def parse(cls, s: str | int) -> Quantity:
        """Parse a Kubernetes quantity string (or an integer).

        Raises ``ValueError('invalid quantity "<input>"')`` on bad input.

        >>> Quantity.parse("100Mi").value()
        104857600
        >>> Quantity.parse("3.001n")  # finer than 1n rounds up
        Quantity('4n')
        >>> Quantity.parse("1.5.0")
        Traceback (most recent call last):
        ...
        ValueError: invalid quantity "1.5.0"
        """
        if isinstance(s, Quantity):
            return s
        if isinstance(s, bool):
            raise _invalid(s)
        if isinstance(s, int):
            return cls.from_int(s)
        if not isinstance(s, str):
            raise _invalid(s)
        if s == "":
            raise _invalid(s)
        if s == "0":
            return cls._make(0, DECIMAL_SI, "0", s)
        parts = _split(s)
        if parts is None:
            raise _invalid(s)
        positive, num, denom, suffix = parts
        if len(num) + len(denom) > _MAX_DIGITS:
            raise _invalid(s, f"more than {_MAX_DIGITS:,} digits")
        interp = _interpret(suffix)
        if interp is None:
            raise _invalid(s)
        base, exponent, fmt = interp
        sign = 1 if positive else -1
        digits = int(num + denom)

        # Fast path of upstream: small exact values keep the input text as their
        # string form when it is already canonical.
        if fmt == BINARY_SI:
            if exponent >= 0 and not denom:
                precision = 15 - len(num) - exponent * 3 // 10 - 1
            else:
                precision = -1
        else:
            precision = 18 - (len(num) + len(denom))
        if precision >= 0:
            scale = (exponent if base == 10 else 0) - len(denom)
            if -9 <= scale <= _MAX_NANO_EXPONENT - 9:
                mult = (1 << exponent) if base == 2 else 1
                result = digits * mult
                if result <= _MAX_INT64:
                    result *= sign
                    shifted = num + denom
                    text = None
                    if base == 2:
                        if digits & 0x07:
                            text = s
                    elif scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0":
                        text = s
                    return cls._make(result * 10 ** (scale + 9), fmt, text, s)

        # Slow path: exact rational value, rounded up to nano, binary capped.
        if digits == 0:
            nanos = 0
        elif base == 2:
            nanos = _ceil_div_abs(digits * (1 << exponent) * _NANO, 10 ** len(denom))
        else:
            e = exponent - len(denom) + 9
            if e >= 0:
                if e > _MAX_NANO_EXPONENT:
                    raise _invalid(s, f"more than {_MAX_NANO_EXPONENT:,} digits before the decimal point")
                nanos = digits * 10**e
            elif -e > len(str(digits)):
                nanos = 1
            else:
                nanos = _ceil_div_abs(digits, 10**-e)
        if fmt == BINARY_SI and nanos > _MAX_INT64 * _NANO:
            nanos = _MAX_INT64 * _NANO
        if fmt == BINARY_SI and 0 < nanos < _NANO:
            fmt = DECIMAL_SI
        return cls._make(sign * nanos, fmt, None, s)

    @classmethod
    def from_int(cls, value: int, format: str = DECIMAL_SI) -> Quantity:
        """A quantity of ``value`` whole units (like ``NewQuantity``).

        >>> str(Quantity.from_int(2048, "BinarySI"))
        '2Ki'
        """
        return cls.from_nanos(int(value) * _NANO, format)

    @classmethod
    def from_milli(cls, milli: int, format: str = DECIMAL_SI) -> Quantity:
        """A quantity of ``milli`` thousandths (like ``NewMilliQuantity``).

        >>> str(Quantity.from_milli(1500))
        '1500m'
        """
        return cls.from_nanos(int(milli) * 10**6, format)

    @classmethod
    def from_nanos(cls, nanos: int, format: str = DECIMAL_SI) -> Quantity:
        """A quantity of ``nanos`` billionths of a unit.

        >>> Quantity.from_nanos(5)
        Quantity('5n')
        """
        if format not in _FORMATS:
            raise ValueError(f"unknown quantity format {format!r}")
        if isinstance(nanos, bool) or not isinstance(nanos, int):
            raise TypeError("nanos must be an int")
        return cls._make(nanos, format)

    # --------------------------------------------------------------- accessors

    @property
    def format(self) -> str:
        """``DecimalSI``, ``BinarySI`` or ``DecimalExponent``.

        >>> Quantity.parse("1Mi").format
        'BinarySI'
        """
        return self._format

    @property
    def nanos(self) -> int:
        """The exact amount in units of 10^-9.

        >>> Quantity.parse("1m").nanos
        1000000
        """
        return self._nanos

    def as_fraction(self) -> Fraction:
        """The exact amount as a Fraction of whole units.

        >>> Quantity.parse("250m").as_fraction()
        Fraction(1, 4)
        """
        return Fraction(self._nanos, _NANO)

    def value(self) -> int:
        """The amount in whole units, rounded up away from zero (``Value()``).

        >>> Quantity.parse("1500m").value()
        2
        """
        return _ceil_div_abs(self._nanos, _NANO)

    def milli_value(self) -> int:
        """The amount in thousandths, rounded up away from zero (``MilliValue()``).

        >>> Quantity.parse("1.2345").milli_value()
        1235
        """
        return _ceil_div_abs(self._nanos, 10**6)

    def scaled_value(self, scale: int) -> int:
        """ceil(q / 10^scale) away from zero (``ScaledValue``).

        >>> Quantity.parse("1G").scaled_value(6)
        1000
        """
        e = scale + 9
        if e >= 0:
            return _ceil_div_abs(self._nanos, 10**e)
        return self._nanos * 10**-e

    def sign(self) -> int:
        """-1, 0 or 1.

        >>> Quantity.parse("-1").sign()
        -1
        """
        return (self._nanos > 0) - (self._nanos < 0)

    def is_zero(self) -> bool:
        """True when the amount is zero.

        >>> Quantity.parse("0Mi").is_zero()
        True
        """
        return self._nanos == 0

    def round_up(self, scale: int) -> Quantity:
        """Round up (away from zero) to a multiple of 10^scale (``RoundUp``).

        >>> str(Quantity.parse("1.0001m").round_up(-3))
        '2m'
        """
        e = scale + 9
        if e <= 0:
            return self
        step = 10**e
        if self._nanos % step == 0:
            return self
        return Quantity._make(_ceil_div_abs(self._nanos, step) * step, self._format)

    # ------------------------------------------------------------ presentation

    def canonical(self) -> str:
        """The canonical form upstream ``String()`` produces for this amount.

        >>> Quantity.parse("1000M").canonical()
        '1G'
        """
        n = self._nanos
        if n == 0:
            return "0"
        fmt = self._format
        if fmt == BINARY_SI:
            if -1024 * _NANO < n < 1024 * _NANO or n % _NANO:
                fmt = DECIMAL_SI
            else:
                v = n // _NANO
                m, times = abs(v), 0
                while m >= 1024 and m % 1024 == 0:
                    m //= 1024
                    times += 1
                if times == 0:
                    return str(v)
                if times in _BINARY_BY_POW1024:
                    return f"{m if v > 0 else -m}{_BINARY_BY_POW1024[times]}"
                fmt = DECIMAL_EXPONENT  # past Ei: exact decimal fallback
        m, exp = _decimal_canonical(n)
        if fmt == DECIMAL_SI and exp in _DECIMAL_BY_EXP:
            return f"{m}{_DECIMAL_BY_EXP[exp]}"
        return f"{m}" if exp == 0 else f"{m}e{exp}"

    def __str__(self) -> str:
        return self._text if self._text is not None else self.canonical()

    def source_text(self) -> str:
        """The text this quantity was parsed from (its canonical string otherwise).

        >>> Quantity.parse("1.5").source_text()
        '1.5'
        """
        return self._source if self._source is not None else str(self)

    def __repr__(self) -> str:
        return f"Quantity({str(self)!r})"

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    # ------------------------------------------------------ comparison & maths

    @staticmethod
    def _other_nanos(other: Any) -> int | None:
        if isinstance(other, Quantity):
            return other._nanos
        if isinstance(other, bool):
            return None
        if isinstance(other, int):
            return other * _NANO
        if isinstance(other, Fraction):
            v = other * _NANO
            return v.numerator if v.denominator == 1 else None
        return None

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Fraction) and not isinstance(other, bool):
            return self.as_fraction() == other
        o = self._other_nanos(other)
        if o is None:
            return NotImplemented
        return self._nanos == o

    def __lt__(self, other: object) -> bool:
        if isinstance(other, Fraction):
            return self.as_fraction() < other
        o = self._other_nanos(other)
        if o is None:
            return NotImplemented
        return self._nanos < o

    def __hash__(self) -> int:
        return hash(Fraction(self._nanos, _NANO))

    def __bool__(self) -> bool:
        return self._nanos != 0

    def _combine(self, other: Any, nanos: int) -> Quantity:
        fmt = self._format
        if self._nanos == 0 and isinstance(other, Quantity):
            fmt = other._format
        return Quantity._make(nanos, fmt)

    def __add__(self, other: Any) -> Quantity:
        o = self._other_nanos(other)
        if o is None:
            return NotImplemented
        return self._combine(other, self._nanos + o)

    def __radd__(self, other: Any) -> Quantity:
        if isinstance(other, int) and not isinstance(other, bool) and other == 0:
            return self  # so that sum() works
        o = self._other_nanos(other)
        if o is None:
            return NotImplemented
        return Quantity._make(o + self._nanos, self._format)

    def __sub__(self, other: Any) -> Quantity:
        o = self._other_nanos(other)
        if o is None:
            return NotImplemented
        return self._combine(other, self._nanos - o)

    def __rsub__(self, other: Any) -> Quantity:
        o = self._other_nanos(other)
        if o is None:
            return NotImplemented
        return Quantity._make(o - self._nanos, self._format)

    def __mul__(self, k: Any) -> Quantity:
        if isinstance(k, bool) or not isinstance(k, int):
            return NotImplemented
        return Quantity._make(self._nanos * k, self._format)

    __rmul__ = __mul__

    def __neg__(self) -> Quantity:
        return Quantity._make(-self._nanos, self._format)

    def __pos__(self) -> Quantity:
        return self

    def __abs__(self) -> Quantity:
        return self if self._nanos >= 0 else -self

    # ---------------------------------------------------------------- pydantic

    @classmethod
    def _coerce(cls, value: Any) -> Quantity:
        if isinstance(value, Quantity):
            return value
        if isinstance(value, bool):
            raise _invalid(value)
        if isinstance(value, int):
            q = cls.from_int(value)
            return cls._make(q._nanos, q._format, None, str(value))
        if isinstance(value, float):
            # YAML/JSON numbers such as 0.5: upstream unmarshals the literal text.
            if not math.isfinite(value):
                raise _invalid(value)
            return cls.parse(repr(value))
        if isinstance(value, str):
            return cls.parse(value)
        raise ValueError(f"expected a quantity string, got {type(value).__name__}")

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        from pydantic_core import core_schema

        return core_schema.no_info_plain_validator_function(
            cls._coerce,
            serialization=core_schema.plain_serializer_function_ser_schema(
                lambda q: q.source_text(), when_used="always"
            ),
        )

    @classmethod
    def __get_pydantic_json_schema__(cls, core_schema: Any, handler: Any) -> dict:
        return {"type": "string", "title": "Quantity"}


def parse_quantity(s: str | int) -> Quantity:
    """Alias of :meth:`Quantity.parse`.

    >>> parse_quantity("2Ki").value()
    2048
    """
    return Quantity.parse(s)


_BINARY_UNITS = ((2**40, "Ti"), (2**30, "Gi"), (2**20, "Mi"), (2**10, "Ki"))


def short_bytes(value: int) -> str:
    """A byte count as people read it: binary suffix, at most four significant digits.

    >>> short_bytes(6 * 2**30), short_bytes(15676630631), short_bytes(512)
    ('6Gi', '14.6Gi', '512')
    """
    value = int(value)
    for div, suffix in _BINARY_UNITS:
        if abs(value) >= div:
            return f"{value / div:.4g}{suffix}"
    return str(value)
