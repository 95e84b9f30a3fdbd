"""Cost per evaluation of a typical DRA selector in the three CEL engines on the local mirror.

Run in a venv that has all three (``pip install common-expression-language cel-expr-python
cel-python``); kschedlab itself needs only ``cel-expr-python``. Each engine gets the device input
prepared once and evaluates the selector N times; a quantity is what the engine can carry:
an opaque message (cel-expr-python), a Python object (cel-python), a plain integer (the Rust
engine converts inputs to plain CEL values only).
"""

from __future__ import annotations

import time

SELECTOR = ('device.driver == "gpu.example.com" && device.attributes["gpu.example.com"].model == "a100" && '
            'device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0')
GI = 2**30
N = 20000


def _time(fn, n: int = N) -> float:
    fn()
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t0) / n * 1e6


def bench_cel_expr_python() -> float:
    from kschedlab.api.quantity import Quantity
    from kschedlab.dra.cel import DeviceView, compile_selector

    sel = compile_selector(SELECTOR)
    dev = DeviceView("gpu.example.com", {"model": "a100"}, {"memory": Quantity("80Gi")})
    assert sel.matches(dev)
    return _time(lambda: sel.matches(dev))


def bench_rust_cel() -> float:
    import cel  # common-expression-language

    def quantity(s: str) -> int:
        return int(s[:-2]) * GI

    def compare_to(a: int, b: int) -> int:
        return (a > b) - (a < b)

    prog = cel.compile(SELECTOR)
    ctx = cel.Context(variables={"device": {"driver": "gpu.example.com",
                                            "attributes": {"gpu.example.com": {"model": "a100"}},
                                            "capacity": {"gpu.example.com": {"memory": 80 * GI}}}},
                      functions={"quantity": quantity, "compareTo": compare_to})
    assert prog.execute(ctx) is True
    return _time(lambda: prog.execute(ctx))


def bench_celpy() -> float:
    import celpy
    from celpy import celtypes

    class Q(celtypes.IntType):
        pass

    def quantity(s):
        return Q(int(str(s)[:-2]) * GI)

    def compare_to(a, b):
        return celtypes.IntType((a > b) - (a < b))

    env = celpy.Environment()
    prog = env.program(env.compile(SELECTOR), functions={"quantity": quantity, "compareTo": compare_to})
    act = {"device": celpy.json_to_cel({"driver": "gpu.example.com",
                                        "attributes": {"gpu.example.com": {"model": "a100"}},
                                        "capacity": {}})}
    act["device"][celtypes.StringType("capacity")] = celtypes.MapType(
        {celtypes.StringType("gpu.example.com"): celtypes.MapType({celtypes.StringType("memory"): Q(80 * GI)})})
    assert bool(prog.evaluate(act))
    return _time(lambda: prog.evaluate(act), n=N // 10)


if __name__ == "__main__":
    for name, fn in (("cel-expr-python", bench_cel_expr_python), ("common-expression-language", bench_rust_cel),
                     ("cel-python", bench_celpy)):
        try:
            print(f"{name:28s} {fn():8.1f} µs per evaluation")
        except Exception as e:  # a candidate not installed, or unable to run the selector
            print(f"{name:28s} failed: {type(e).__name__}: {e}")
