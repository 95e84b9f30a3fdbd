"""Quantity parsing, rounding, printing and arithmetic.

Tables ported from upstream apimachinery unit tests.
source: kubernetes/kubernetes staging/src/k8s.io/apimachinery/pkg/api/resource/quantity_test.go
        @002cd1a0cd960ebe9d6f194d342384d6fe0fedcf
"""

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from kschedlab.api.quantity import BINARY_SI, DECIMAL_EXPONENT, DECIMAL_SI, Quantity

MAX_INT64 = 2**63 - 1


def dec(i: int, exp: int) -> int:
    """nanos of upstream's decQuantity(i, exp, ...) = i * 10^exp."""
    return int(Fraction(i) * Fraction(10) ** exp * 10**9)


# source: quantity_test.go :: TestQuantityParse :: table
PARSE_CASES = [
    ("0", dec(0, 0), DECIMAL_SI),
    ("0n", dec(0, 0), DECIMAL_SI),
    ("0u", dec(0, 0), DECIMAL_SI),
    ("0m", dec(0, 0), DECIMAL_SI),
    ("0Ki", dec(0, 0), BINARY_SI),
    ("0k", dec(0, 0), DECIMAL_SI),
    ("0Mi", dec(0, 0), BINARY_SI),
    ("0M", dec(0, 0), DECIMAL_SI),
    ("0Gi", dec(0, 0), BINARY_SI),
    ("0G", dec(0, 0), DECIMAL_SI),
    ("0Ti", dec(0, 0), BINARY_SI),
    ("0T", dec(0, 0), DECIMAL_SI),
    ("1", dec(1, 0), DECIMAL_SI),
    ("1Ki", dec(1024, 0), BINARY_SI),
    ("8Ki", dec(8 * 1024, 0), BINARY_SI),
    ("7Mi", dec(7 * 1024**2, 0), BINARY_SI),
    ("6Gi", dec(6 * 1024**3, 0), BINARY_SI),
    ("5Ti", dec(5 * 1024**4, 0), BINARY_SI),
    ("4Pi", dec(4 * 1024**5, 0), BINARY_SI),
    ("3Ei", dec(3 * 1024**6, 0), BINARY_SI),
    ("10Ti", dec(10 * 1024**4, 0), BINARY_SI),
    ("100Ti", dec(100 * 1024**4, 0), BINARY_SI),
    ("5n", dec(5, -9), DECIMAL_SI),
    ("4u", dec(4, -6), DECIMAL_SI),
    ("3m", dec(3, -3), DECIMAL_SI),
    ("9", dec(9, 0), DECIMAL_SI),
    ("8k", dec(8, 3), DECIMAL_SI),
    ("50k", dec(5, 4), DECIMAL_SI),
    ("7M", dec(7, 6), DECIMAL_SI),
    ("6G", dec(6, 9), DECIMAL_SI),
    ("5T", dec(5, 12), DECIMAL_SI),
    ("40T", dec(4, 13), DECIMAL_SI),
    ("300T", dec(3, 14), DECIMAL_SI),
    ("2P", dec(2, 15), DECIMAL_SI),
    ("1E", dec(1, 18), DECIMAL_SI),
    ("1E-3", dec(1, -3), DECIMAL_EXPONENT),
    ("1e3", dec(1, 3), DECIMAL_EXPONENT),
    ("1E6", dec(1, 6), DECIMAL_EXPONENT),
    ("1e9", dec(1, 9), DECIMAL_EXPONENT),
    ("1E12", dec(1, 12), DECIMAL_EXPONENT),
    ("1e15", dec(1, 15), DECIMAL_EXPONENT),
    ("1E18", dec(1, 18), DECIMAL_EXPONENT),
    ("1e14", dec(1, 14), DECIMAL_EXPONENT),
    ("1e13", dec(1, 13), DECIMAL_EXPONENT),
    ("100.035k", dec(100035, 0), DECIMAL_SI),
    ("0.001", dec(1, -3), DECIMAL_SI),
    ("0.0005k", dec(5, -1), DECIMAL_SI),
    ("0.005", dec(5, -3), DECIMAL_SI),
    ("0.05", dec(5, -2), DECIMAL_SI),
    ("0.5", dec(5, -1), DECIMAL_SI),
    ("0.00050k", dec(5, -1), DECIMAL_SI),
    ("0.00500", dec(5, -3), DECIMAL_SI),
    ("0.05000", dec(5, -2), DECIMAL_SI),
    ("0.50000", dec(5, -1), DECIMAL_SI),
    ("0.5e0", dec(5, -1), DECIMAL_EXPONENT),
    ("0.5e-1", dec(5, -2), DECIMAL_EXPONENT),
    ("0.5e-2", dec(5, -3), DECIMAL_EXPONENT),
    ("10.035M", dec(10035, 3), DECIMAL_SI),
    ("1.2e3", dec(12, 2), DECIMAL_EXPONENT),
    ("1.3E+6", dec(13, 5), DECIMAL_EXPONENT),
    ("1.40e9", dec(14, 8), DECIMAL_EXPONENT),
    ("1.53E12", dec(153, 10), DECIMAL_EXPONENT),
    ("1.6e15", dec(16, 14), DECIMAL_EXPONENT),
    ("1.7E18", dec(17, 17), DECIMAL_EXPONENT),
    ("9.01", dec(901, -2), DECIMAL_SI),
    ("8.1k", dec(81, 2), DECIMAL_SI),
    ("7.123456M", dec(7123456, 0), DECIMAL_SI),
    ("6.987654321G", dec(6987654321, 0), DECIMAL_SI),
    ("5.444T", dec(5444, 9), DECIMAL_SI),
    ("40.1T", dec(401, 11), DECIMAL_SI),
    ("300.2T", dec(3002, 11), DECIMAL_SI),
    ("2.5P", dec(25, 14), DECIMAL_SI),
    ("1.01E", dec(101, 16), DECIMAL_SI),
    # things that saturate / round
    ("3.001n", dec(4, -9), DECIMAL_SI),
    ("1.1E-9", dec(2, -9), DECIMAL_EXPONENT),
    ("0.0000000001", dec(1, -9), DECIMAL_SI),
    ("0.0000000005", dec(1, -9), DECIMAL_SI),
    ("0.00000000050", dec(1, -9), DECIMAL_SI),
    ("0.5e-9", dec(1, -9), DECIMAL_EXPONENT),
    ("0.9n", dec(1, -9), DECIMAL_SI),
    ("0.00000012345", dec(124, -9), DECIMAL_SI),
    ("0.00000012354", dec(124, -9), DECIMAL_SI),
    ("9Ei", MAX_INT64 * 10**9, BINARY_SI),
    ("9223372036854775807Ki", MAX_INT64 * 10**9, BINARY_SI),
    ("12E", dec(12, 18), DECIMAL_SI),
    # fractional binary
    ("100.035Ki", dec(10243584, -2), BINARY_SI),
    ("0.5Mi", dec(512 * 1024, 0), BINARY_SI),
    ("0.05Gi", dec(536870912, -1), BINARY_SI),
    ("0.025Ti", dec(274877906944, -1), BINARY_SI),
    # "things written by trolls"
    ("0.000000000001Ki", dec(2, -9), DECIMAL_SI),  # rounds up, changes format
    (".001", dec(1, -3), DECIMAL_SI),
    (".0001k", dec(100, -3), DECIMAL_SI),
    ("1.", dec(1, 0), DECIMAL_SI),
    ("1.G", dec(1, 9), DECIMAL_SI),
]


@pytest.mark.parametrize("text,nanos,fmt", PARSE_CASES)
def test_parse_table(text, nanos, fmt):
    q = Quantity.parse(text)
    assert q.nanos == nanos
    assert q.format == fmt


@pytest.mark.parametrize("text,nanos,fmt", PARSE_CASES)
def test_parse_table_signed(text, nanos, fmt):
    # source: TestQuantityParse :: "Try the negative version of everything" / explicit "+"
    assert Quantity.parse("-" + text).nanos == -nanos
    assert Quantity.parse("-" + text).format == fmt
    assert Quantity.parse("+" + text).nanos == nanos


# source: quantity_test.go :: TestQuantityParse :: invalid
INVALID = [
    "1.1.M",
    "1+1.0M",
    "0.1mi",
    "0.1am",
    "aoeu",
    ".5i",
    "1i",
    "-3.01i",
    "-3.01e-",
    "1e4294967297",
    " 1",
    "1 ",
    "",
    # ours
    "1.5.0",
    "1e",
    "1Kii",
    "1KiB",
]


@pytest.mark.parametrize("text", INVALID)
def test_invalid(text):
    with pytest.raises(ValueError) as ei:
        Quantity.parse(text)
    assert str(ei.value) == f'invalid quantity "{text}"'


def test_exponent_bounds():
    # source: quantity_test.go :: TestInterpretExponentInt32Bounds (through ParseQuantity)
    assert Quantity.parse("1E-2147483647").nanos == 1  # tiny, rounds up to 1n
    with pytest.raises(ValueError):
        Quantity.parse("1E2147483648")
    with pytest.raises(ValueError):
        Quantity.parse("1E-2147483648")


# source: quantity_test.go :: TestQuantityString (value, canonical, alternate spellings)
STRING_CASES = [
    (dec(1024**3, 0), BINARY_SI, "1Gi", "1024Mi"),
    (dec(300 * 1024**2, 0), BINARY_SI, "300Mi", "307200Ki"),
    (dec(6 * 1024, 0), BINARY_SI, "6Ki", ""),
    (dec(1001 * 1024**3, 0), BINARY_SI, "1001Gi", "1025024Mi"),
    (dec(1024**4, 0), BINARY_SI, "1Ti", "1024Gi"),
    (dec(5, 0), BINARY_SI, "5", "5000m"),
    (dec(500, -3), BINARY_SI, "500m", "0.5"),
    (dec(1, 9), DECIMAL_SI, "1G", "1000M"),
    (dec(1000, 6), DECIMAL_SI, "1G", "0.001T"),
    (dec(1, -3), DECIMAL_SI, "1m", "1000u"),
    (dec(80, -3), DECIMAL_SI, "80m", ""),
    (dec(1080, -3), DECIMAL_SI, "1080m", "1.08"),
    (dec(108, -2), DECIMAL_SI, "1080m", "1080000000n"),
    (dec(300, 6), DECIMAL_SI, "300M", ""),
    (dec(1, 12), DECIMAL_SI, "1T", ""),
    (dec(1, 18), DECIMAL_SI, "1E", ""),
    (dec(1, 21), DECIMAL_SI, "1e21", "1000E"),
    (dec(5, 21), DECIMAL_SI, "5e21", "5000E"),
    (dec(1, 24), DECIMAL_SI, "1e24", "1000000E"),
    (dec(1, 70), BINARY_SI, "10e69", ""),
    (dec(2, 70), BINARY_SI, "20e69", ""),
    (dec(1, 72), BINARY_SI, "1e72", ""),
    (dec(1234567, 6), DECIMAL_SI, "1234567M", ""),
    (dec(1234567, -3), BINARY_SI, "1234567m", ""),
    (dec(3, 3), DECIMAL_SI, "3k", ""),
    (dec(1025, 0), BINARY_SI, "1025", ""),
    (dec(0, 0), DECIMAL_SI, "0", ""),
    (dec(0, 0), BINARY_SI, "0", ""),
    (dec(1, 9), DECIMAL_EXPONENT, "1e9", ".001e12"),
    (dec(1, -3), DECIMAL_EXPONENT, "1e-3", "0.001e0"),
    (dec(1, -9), DECIMAL_EXPONENT, "1e-9", "1000e-12"),
    (dec(80, -3), DECIMAL_EXPONENT, "80e-3", ""),
    (dec(300, 6), DECIMAL_EXPONENT, "300e6", ""),
    (dec(1, 12), DECIMAL_EXPONENT, "1e12", ""),
    (dec(1, 3), DECIMAL_EXPONENT, "1e3", ""),
    (dec(3, 3), DECIMAL_EXPONENT, "3e3", ""),
    (dec(0, 0), DECIMAL_EXPONENT, "0", "00"),
    (dec(1, -9), DECIMAL_SI, "1n", ""),
    (dec(80, -9), DECIMAL_SI, "80n", ""),
    (dec(1080, -9), DECIMAL_SI, "1080n", ""),
    (dec(108, -8), DECIMAL_SI, "1080n", ""),
    (dec(1, -6), DECIMAL_SI, "1u", ""),
    (dec(80, -6), DECIMAL_SI, "80u", ""),
    (dec(1080, -6), DECIMAL_SI, "1080u", ""),
]


@pytest.mark.parametrize("nanos,fmt,expect,alternate", STRING_CASES)
def test_string(nanos, fmt, expect, alternate):
    q = Quantity.from_nanos(nanos, fmt)
    assert str(q) == expect
    assert Quantity.parse(expect) == q
    assert str(Quantity.parse(expect)) == expect  # canonical input is kept
    if alternate:
        assert str(Quantity.parse(alternate)) == expect
    if nanos:
        assert str(-q) == "-" + expect


def test_binary_past_ei():
    # source: quantity_test.go :: TestBinarySIPastEiArithmeticRoundTrip
    q = Quantity.parse("1Ei") * 1024
    assert str(q) == "1180591620717411303424"
    assert Quantity.parse(str(q)) == q


def test_binary_zero_exponent():
    # source: quantity_test.go :: TestBinarySIZeroExponentString
    assert str(Quantity.from_int(2000, BINARY_SI)) == "2000"
    assert str(Quantity.from_int(-2000, BINARY_SI)) == "-2000"


# source: quantity_test.go :: TestQuantityParseEmit
@pytest.mark.parametrize(
    "text,expect",
    [
        ("1Ki", "1Ki"),
        ("1Mi", "1Mi"),
        ("1Gi", "1Gi"),
        ("1024Mi", "1Gi"),
        ("1000M", "1G"),
        (".001Ki", "1024m"),
        (".000001Ki", "1024u"),
        (".000000001Ki", "1024n"),
        (".000000000001Ki", "2n"),
    ],
)
def test_parse_emit(text, expect):
    assert str(Quantity.parse(text)) == expect
    assert str(Quantity.parse("-" + text)) == "-" + expect


def test_keeps_input_text_like_upstream():
    # upstream reuses the input string when it is already canonical-looking
    assert str(Quantity.parse("1.500k")) == "1.500k"
    assert str(Quantity.parse("1.5")) == "1500m"
    assert str(Quantity.parse("100m")) == "100m"


def test_value_rounds_up_away_from_zero():
    # Value()/MilliValue(): ceil, away from zero
    assert Quantity.parse("1.5").value() == 2
    assert Quantity.parse("-1.5").value() == -2
    assert Quantity.parse("0.1m").milli_value() == 1
    assert Quantity.parse("1.0001m").milli_value() == 2
    assert Quantity.parse("2Gi").value() == 2 * 1024**3
    assert Quantity.parse("250m").milli_value() == 250
    assert Quantity.parse("1").milli_value() == 1000


# source: quantity_test.go :: TestQuantityRoundUp
@pytest.mark.parametrize(
    "text,scale,expect",
    [
        ("9.01", -3, dec(901, -2)),
        ("9.01", -2, dec(901, -2)),
        ("9.01", -1, dec(91, -1)),
        ("9.01", 0, dec(10, 0)),
        ("9.01", 1, dec(10, 0)),
        ("9.01", 2, dec(100, 0)),
        ("-9.01", -3, dec(-901, -2)),
        ("-9.01", -1, dec(-91, -1)),
        ("-9.01", 0, dec(-10, 0)),
        ("-9.01", 2, dec(-100, 0)),
    ],
)
def test_round_up(text, scale, expect):
    assert Quantity.parse(text).round_up(scale).nanos == expect


# source: quantity_test.go :: TestQuantityCmp
@pytest.mark.parametrize("x,y,cmp", [("0", "0", 0), ("100m", "50m", 1), ("50m", "100m", -1), ("10000T", "100Gi", 1)])
def test_compare(x, y, cmp):
    a, b = Quantity.parse(x), Quantity.parse(y)
    assert (a > b) - (a < b) == cmp


def test_add_sub_keep_format():
    # source: TestQuantityAddZeroPreservesSuffix / TestQuantitySubZeroPreservesSuffix
    zero = Quantity.parse("0")
    for text in ("100m", "1Gi"):
        v = Quantity.parse(text)
        assert str(v + zero) == text
        assert str(zero + v) == text
        assert str(v - zero) == text
        assert str(zero - v) == str(-v)
    assert str(Quantity.parse("1Gi") + Quantity.parse("512Mi")) == "1536Mi"
    assert Quantity.parse("1") - Quantity.parse("250m") == Quantity.parse("750m")


def test_immutable_hashable_numeric():
    q = Quantity.parse("1")
    with pytest.raises(AttributeError):
        q._nanos = 5  # type: ignore[misc]
    assert q == Quantity.parse("1000m") and hash(q) == hash(Quantity.parse("1000m"))
    assert q == 1 and hash(q) == hash(1)
    assert {Quantity.parse("1Ki"): "a"}[Quantity.parse("1024")] == "a"
    assert sum([Quantity.parse("1"), Quantity.parse("2")]) == 3
    assert sorted(map(Quantity.parse, ["2", "1Ki", "500m"])) == [Quantity.parse(s) for s in ["500m", "2", "1Ki"]]
    assert Quantity.parse("1.5").as_fraction() == Fraction(3, 2)


def test_int_input():
    assert Quantity.parse(3).value() == 3
    assert Quantity(3) == Quantity("3")
    with pytest.raises(ValueError):
        Quantity.parse(True)  # type: ignore[arg-type]


class _M(BaseModel):
    q: Quantity
    d: dict[str, Quantity] = {}


def test_pydantic_field():
    m = _M.model_validate({"q": "1.5", "d": {"cpu": 2, "mem": 0.5}})
    assert m.q.milli_value() == 1500
    assert m.d["cpu"].value() == 2 and m.d["mem"].milli_value() == 500
    # dumps back to text: what was given for parsed values
    assert m.model_dump() == {"q": "1.5", "d": {"cpu": "2", "mem": "0.5"}}
    assert m.model_dump_json() == '{"q":"1.5","d":{"cpu":"2","mem":"0.5"}}'
    with pytest.raises(ValidationError) as ei:
        _M.model_validate({"q": "1.5.0"})
    assert 'invalid quantity "1.5.0"' in str(ei.value)
    with pytest.raises(ValidationError):
        _M.model_validate({"q": [1]})
    # computed quantities dump their canonical form
    assert _M(q=Quantity.parse("1") + Quantity.parse("500m")).model_dump()["q"] == "1500m"


_SUFFIXES = ["", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "e3", "e-2"]


@given(
    sign=st.sampled_from(["", "-", "+"]),
    whole=st.integers(min_value=0, max_value=10**12),
    frac=st.one_of(st.just(""), st.from_regex(r"\.[0-9]{1,12}", fullmatch=True)),
    suffix=st.sampled_from(_SUFFIXES),
)
def test_print_parse_roundtrip(sign, whole, frac, suffix):
    q = Quantity.parse(f"{sign}{whole}{frac}{suffix}")
    again = Quantity.parse(str(q))
    assert again == q
    assert Quantity.parse(q.canonical()) == q
    # exactness: nano multiple, and never below the true value in magnitude
    true = Fraction(f"{whole}{frac or ''}") * (
        Fraction(1024) ** ({"Ki": 1, "Mi": 2, "Gi": 3, "Ti": 4, "Pi": 5, "Ei": 6}.get(suffix, 0))
    )
    if suffix not in ("Ki", "Mi", "Gi", "Ti", "Pi", "Ei"):
        exp = {"": 0, "n": -9, "u": -6, "m": -3, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18,
               "e3": 3, "e-2": -2}[suffix]
        true = Fraction(f"{whole}{frac or ''}") * Fraction(10) ** exp
    got = abs(q.as_fraction())
    capped = suffix.endswith("i") and true > MAX_INT64  # BinarySI is capped at 2^63-1
    if capped:
        assert got == MAX_INT64
    else:
        assert got >= true
        assert got - true < Fraction(1, 10**9)
