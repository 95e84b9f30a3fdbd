"""DRA CEL selectors: upstream's environment on a real CEL engine, errors in upstream's words."""

from __future__ import annotations

import pytest

from kschedlab.api.quantity import Quantity
from kschedlab.api.resource import Device
from kschedlab.dra.cel import CELError, DeviceView, Semver, compile_selector, device_view, parse_semver

DRIVER = "dra.example.com"
DEV = DeviceView(
    DRIVER,
    {"model": "a100", "cores": 8, "fast": True, "fw": ("version", "1.2.3"), "acme.com/family": "x"},
    {"memory": Quantity("40Gi"), "acme.com/slots": Quantity("4")},
    allow_multiple_allocations=True,
)


@pytest.mark.parametrize("expr,want", [
    ('device.driver == "dra.example.com"', True),
    ('device.attributes["dra.example.com"].model == "a100"', True),
    ("device.attributes['dra.example.com'].model == 'a100'", True),
    ('device.attributes["dra.example.com"].cores > 4 && device.attributes["dra.example.com"].fast', True),
    ('device.attributes["acme.com"].family == "x"', True),
    ('device.capacity["acme.com"].slots == quantity("4")', True),
    ('device.capacity["dra.example.com"].memory == quantity("40960Mi")', True),
    ('device.capacity["dra.example.com"].memory.isGreaterThan(quantity("40G"))', True),
    ('device.capacity["dra.example.com"].memory.isLessThan(quantity("40G"))', False),
    ('device.capacity["dra.example.com"].memory.compareTo(quantity("40Gi")) == 0', True),
    ('device.capacity["dra.example.com"].memory.asInteger() == 42949672960', True),
    ('quantity("1.5").isInteger()', False),
    ('quantity("50k").sub(20000).asApproximateFloat() == 30000.0', True),
    ('quantity("50k").add(quantity("20k")) == quantity("70k")', True),
    ('sign(quantity("-1m")) == -1', True),
    ('isQuantity("1.3Gi") && !isQuantity("200K")', True),
    ('device.attributes["dra.example.com"].fw.isGreaterThan(semver("1.2.0"))', True),
    ('device.attributes["dra.example.com"].fw.compareTo(semver("1.2.3")) == 0', True),
    ('device.attributes["dra.example.com"].fw == semver("1.2.3")', True),
    ('semver("1.2.3-rc.1").isLessThan(semver("1.2.3"))', True),
    ('semver("v1.2", true) == semver("1.2.0") && semver("1.2.3").major() == 1', True),
    ('isSemver("1.0.0") && !isSemver("v1.0") && isSemver("v1.0", true)', True),
    ('device.allowMultipleAllocations == true', True),
    ('"gpu.example.com" in device.attributes', False),
    ('"model" in device.attributes["dra.example.com"]', True),
    ('"model" in device.attributes["unknown.example.com"]', False),
    ('device.attributes["unknown.example.com"].size() == 0', True),
    ('has(device.attributes["dra.example.com"].model)', True),
    ('has(device.attributes["dra.example.com"].nope)', False),
    ('device.attributes["dra.example.com"].?nope.orValue("none") == "none"', True),
    ('cel.bind(dra, device.attributes["dra.example.com"], dra.fast && dra.cores == 8)', True),
    ('device.attributes["dra.example.com"].model.upperAscii() == "A100"', True),
    ('device.attributes["dra.example.com"].model.startsWith("a1")', True),
    ('device.attributes["dra.example.com"].model.matches("^a[0-9]+$")', True),
    ('device.attributes["dra.example.com"].model.find("[0-9]+") == "100"', True),
    ('[1, 2, 3].all(x, x > 0) && [1, 2].exists(x, x == 2)', True),
])
def test_selector_values(expr, want):
    assert compile_selector(expr).matches(DEV) is want


@pytest.mark.parametrize("expr,message", [
    ("device.driver", "must evaluate to bool or the unknown type, not string"),
    ("1 + 1", "must evaluate to bool or the unknown type, not int"),
    ('quantity("1")', "must evaluate to bool or the unknown type, not kubernetes.Quantity"),
    ("device.foo == 1", "compilation failed: ERROR: <input>:1:7: undefined field 'foo'"),
    ("nosuchvar == 1", "compilation failed: ERROR: <input>:1:1: undeclared reference to 'nosuchvar' (in container '')"),
    ('device.driver == ', "compilation failed: ERROR: <input>:1:18: Syntax error: mismatched input '<EOF>'"),
    ('"a".startsWith(1)', "found no matching overload for 'startsWith' applied to '(string, int)'"),
    ('quantity("1").sign() == 1', "compilation failed: ERROR: <input>:1:19:"),  # sign is a global function
    ('quantity("1").compareTo(semver("1.0.0")) == 0',
     "found no matching overload for 'compareTo' applied to '(kubernetes.Quantity, kubernetes.Semver)'"),
])
def test_compile_errors(expr, message):
    with pytest.raises(CELError) as e:
        compile_selector(expr)
    assert str(e.value).startswith(message) or message in str(e.value)


@pytest.mark.parametrize("expr,message", [
    ('device.attributes["dra.example.com"].nope == 1', "no such key: nope"),
    ('device.attributes["unknown.example.com"].x == 1', "no such key: x"),
    ('device.attributes["dra.example.com"]["model"] == "a100" && {"a": 1}["b"] == 1', "no such key: b"),
    ("1 / 0 == 1", "division by zero"),
    ('sign(quantity("200K")) == 1',
     "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"),
    ('semver("1.2") == semver("1.2.0")', "No Major.Minor.Patch elements found"),
    ('quantity("9999999999999999999999999999G").asInteger() == 0', "cannot convert value to integer"),
    ('device.attributes["dra.example.com"].model',
     "CEL result of type string could not be converted to bool"),
])
def test_runtime_errors(expr, message):
    sel = compile_selector(expr)
    with pytest.raises(CELError) as e:
        sel.matches(DEV)
    assert message in str(e.value)


def test_bad_version_attribute_is_a_runtime_error():
    dev = DeviceView(DRIVER, {"fw": ("version", "1.2")})
    with pytest.raises(CELError, match="attribute fw: parse semantic version: No Major.Minor.Patch elements found"):
        compile_selector("true").matches(dev)


def test_compiled_selectors_are_cached():
    assert compile_selector("device.driver == 'x'") is compile_selector("device.driver == 'x'")


def test_device_view_from_slice_json_and_models():
    raw = {"name": "gpu-0", "allowMultipleAllocations": True,
           "attributes": {"model": {"string": "a100"}, "fw": {"version": "2.0.0"}, "acme.com/n": {"int": 3}},
           "capacity": {"memory": {"value": "40Gi", "requestPolicy": {"default": "1Gi"}}}}
    sel = compile_selector('device.attributes["gpu.example.com"].fw.major() == 2 && '
                           'device.attributes["acme.com"].n == 3 && device.allowMultipleAllocations && '
                           'device.capacity["gpu.example.com"].memory == quantity("40Gi")')
    assert sel.matches(DeviceView("gpu.example.com", raw["attributes"], raw["capacity"], True))
    assert sel.matches(device_view("gpu.example.com", Device.model_validate(raw)))


def test_domain_defaults_do_not_leak_between_selectors():
    a = compile_selector('device.attributes["x.example.com"].size() == 0')
    b = compile_selector('"x.example.com" in device.attributes')
    dev = DeviceView(DRIVER, {"model": "m"})
    assert a.matches(dev) and not b.matches(dev)


def test_semver_ordering():
    order = ["1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2", "1.0.0-beta.11",
             "1.0.0-rc.1", "1.0.0"]
    vs = [parse_semver(v) for v in order]
    assert all(a < b for a, b in zip(vs, vs[1:]))
    assert parse_semver("1.0.0+a") == parse_semver("1.0.0+b")
    assert isinstance(vs[0], Semver)
