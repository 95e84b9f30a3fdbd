"""A worst-case cost bound for DRA device selectors, standing in for cel-go's cost limits.

Upstream refuses a selector whose estimated worst-case cost passes
``resource.CELSelectorExpressionMaxCost`` (1,000,000) when it validates a DeviceClass or
ResourceClaim (``too complex, exceeds cost limit``), and stops an evaluation whose actual cost
passes the same budget (``operation cancelled: actual cost limit exceeded``). The CEL engine
kschedlab runs (``cel-expr-python``, cel-cpp) has neither a cost estimator nor a runtime
budget, so this module bounds the worst case itself, on the checked expression the engine
serializes (``cel.expr.CheckedExpr``):

* every value has a worst-case size: a string its length, a list or map its entries. What a
  device brings is bounded by the API's limits (strings of at most 64 bytes, at most 32
  attributes and capacities); literals by their own size; ``+`` adds sizes; ``cel.bind`` and
  the comprehension macros (``map``, ``filter``, ``all``, ``exists``...) carry sizes through
  their variables, a loop running once per entry of its range;
* the cost adds one per node, a tenth of the size of each string or list built or scanned
  (cel-go's per-character factor), and a loop's body once per iteration.

The numbers are this module's, not cel-go's: a selector cel-go would accept just under the
limit may be refused here or the other way round; what holds is that an expression that doubles
a string in a chain of ``cel.bind`` or nests loops over loops is refused before it runs, and an
accepted one cannot build more than about ten million characters. The allocator never
evaluates a selector over the budget: :meth:`~kschedlab.api.dracel.Selector.matches` reports
upstream's runtime error instead.

>>> from kschedlab.api.dracel import compile_selector
>>> compile_selector('device.driver == "gpu.example.com"').max_cost < 100
True
>>> bomb = 'cel.bind(a, device.driver, ' + ''.join(f'cel.bind({v}, {p} + {p}, ' for p, v in
...     zip('abcdefghijklmnopqrstuvwxy', 'bcdefghijklmnopqrstuvwxyz')) + 'z.size() > 0' + ')' * 26
>>> compile_selector(bomb).max_cost > CEL_SELECTOR_EXPRESSION_MAX_COST
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

__all__ = ["estimate_cost", "CEL_SELECTOR_EXPRESSION_MAX_COST", "DEVICE_VALUE_MAX_SIZE"]

CEL_SELECTOR_EXPRESSION_MAX_COST = 1_000_000
"""``resource.CELSelectorExpressionMaxCost``: the budget of one selector, at validation and at run time."""
DEVICE_VALUE_MAX_SIZE = 64
"""The largest string or map a device brings (attribute values and names of at most 64 bytes;
at most 32 attributes and capacities)."""
_STRING_FACTOR = 0.1


# ------------------------------------------------------------------ protobuf wire format


def _varint(buf: bytes, pos: int) -> tuple[int, int]:
    out = shift = 0
    while True:
        b = buf[pos]
        pos += 1
        out |= (b & 0x7F) << shift
        if b < 0x80:
            return out, pos
        shift += 7


def _fields(buf: bytes) -> list[tuple[int, Any]]:
    """(field number, value) pairs of a message: ints for varints and fixed, bytes for the rest."""
    out = []
    pos = 0
    while pos < len(buf):
        key, pos = _varint(buf, pos)
        num, wire = key >> 3, key & 7
        value: int | bytes
        if wire == 0:
            value, pos = _varint(buf, pos)
        elif wire == 1:
            value, pos = int.from_bytes(buf[pos:pos + 8], "little"), pos + 8
        elif wire == 2:
            n, pos = _varint(buf, pos)
            value, pos = buf[pos:pos + n], pos + n
        elif wire == 5:
            value, pos = int.from_bytes(buf[pos:pos + 4], "little"), pos + 4
        else:
            raise ValueError(f"unsupported protobuf wire type {wire}")
        out.append((num, value))
    return out


def _one(fields: list[tuple[int, Any]], num: int, default: Any = None) -> Any:
    for n, v in fields:
        if n == num:
            return v
    return default


def _all(fields: list[tuple[int, Any]], num: int) -> list[Any]:
    return [v for n, v in fields if n == num]


# ---------------------------------------------------------------------------- estimate


@dataclass
class _Estimate:
    size: float
    cost: float


@dataclass
class _Estimator:
    variables: dict[str, float] = field(default_factory=dict)

    def expr(self, buf: bytes) -> _Estimate:
        f = _fields(buf)
        for num, value in f:
            if num == 3:
                return self.constant(_fields(value))
            if num == 4:
                name = _one(_fields(value), 1, b"").decode()
                return _Estimate(self.variables.get(name, DEVICE_VALUE_MAX_SIZE), 1)
            if num == 5:
                operand = _one(_fields(value), 1)
                inner = self.expr(operand) if operand is not None else _Estimate(0, 0)
                return _Estimate(max(inner.size, DEVICE_VALUE_MAX_SIZE), inner.cost + 1)
            if num == 6:
                return self.call(_fields(value))
            if num == 7:
                items = [self.expr(e) for e in _all(_fields(value), 1)]
                return _Estimate(len(items) + sum(i.size for i in items), 1 + sum(i.cost for i in items))
            if num == 8:
                total = _Estimate(0, 1)
                for entry in _all(_fields(value), 2):
                    ef = _fields(entry)
                    for part in (_one(ef, 3), _one(ef, 4)):
                        if part is not None:
                            e = self.expr(part)
                            total = _Estimate(total.size + 1 + e.size, total.cost + e.cost)
                return total
            if num == 9:
                return self.comprehension(_fields(value))
        return _Estimate(1, 1)

    @staticmethod
    def constant(f: list[tuple[int, Any]]) -> _Estimate:
        for num, value in f:
            if num in (6, 7):
                return _Estimate(len(value), 1)
        return _Estimate(1, 1)

    def call(self, f: list[tuple[int, Any]]) -> _Estimate:
        name = _one(f, 2, b"").decode()
        target = _one(f, 1)
        parts = ([self.expr(target)] if target is not None else []) + [self.expr(a) for a in _all(f, 3)]
        cost = 1 + sum(p.cost for p in parts)
        if name == "_+_":
            size = sum(p.size for p in parts)
        elif name in ("_==_", "_!=_", "_<_", "_<=_", "_>_", "_>=_", "_&&_", "_||_", "!_", "@in", "size",
                      "matches", "startsWith", "endsWith", "contains"):
            size = 1
        else:
            size = max((p.size for p in parts), default=1)
        scanned = sum(p.size for p in parts)
        return _Estimate(size, cost + math.ceil(_STRING_FACTOR * (size + scanned)))

    def comprehension(self, f: list[tuple[int, Any]]) -> _Estimate:
        iter_var = _one(f, 1, b"").decode()
        accu_var = _one(f, 3, b"").decode()
        rng = self.expr(_one(f, 2, b""))
        init = self.expr(_one(f, 4, b""))
        iterations = rng.size
        saved = dict(self.variables)
        self.variables[iter_var] = rng.size
        self.variables[accu_var] = init.size
        cond = self.expr(_one(f, 5, b""))
        step = self.expr(_one(f, 6, b""))
        growth = max(step.size - init.size, 0)
        accu = init.size + iterations * growth
        self.variables[accu_var] = accu
        result = self.expr(_one(f, 7, b""))
        self.variables = saved
        cost = rng.cost + init.cost + iterations * (cond.cost + step.cost + math.ceil(_STRING_FACTOR * accu))
        return _Estimate(result.size, cost + result.cost)


def estimate_cost(serialized: bytes) -> int:
    """The worst-case cost of a checked expression as ``Expression.serialize()`` gives it (an
    ``Any`` holding a ``cel.expr.CheckedExpr``); see the module text."""
    checked = _one(_fields(serialized), 2, b"")
    expr = _one(_fields(checked), 4, b"")
    return math.ceil(_Estimator().expr(expr).cost)
