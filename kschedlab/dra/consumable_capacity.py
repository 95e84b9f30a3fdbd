"""Consumable capacity (``DRAConsumableCapacity``): what a request consumes of a device's capacity.

A request asks for some amount of a capacity; the device's ``requestPolicy``
rounds it up (``validRange`` min/step, or the next of ``validValues``) or fills a
missing request with the policy default (else the whole capacity). A device
shared by several allocations (``allowMultipleAllocations``) fits a request as
long as already allocated + being allocated + this request stays within the
capacity and the policy is respected. Integer arithmetic on nano-units, with
upstream's ``Value()`` (round up to whole units) where upstream uses it.

>>> from kschedlab.dra.devices import DeviceCapacity, RequestPolicy
>>> Q = Quantity.parse
>>> cap = DeviceCapacity(Q("4"), RequestPolicy(default=Q("2"), min=Q("2"), step=Q("2"), max=Q("4"),
...                                            has_range=True))
>>> consumed_capacity(Q("3"), cap)
Quantity('4')
>>> request_fits({}, {"c": Q("3")}, {"c": cap}, {})
True
>>> request_fits({"c": 2 * 10**9}, {"c": Q("3")}, {"c": cap}, {})
False
"""

from __future__ import annotations

from typing import Mapping

from kschedlab.api.quantity import BINARY_SI, Quantity
from kschedlab.dra.devices import DeviceCapacity, RequestPolicy

__all__ = ["consumed_capacity", "request_fits", "consumed_from_request", "CapacityUndefined"]

_NANO = 10**9


class CapacityUndefined(ValueError):
    """The request names a capacity the device does not have."""


def _go_rem(a: int, b: int) -> int:
    """Go's ``%``: the remainder takes the sign of the dividend."""
    r = abs(a) % abs(b)
    return -r if a < 0 else r


def _round_up_range(requested: Quantity, policy: RequestPolicy) -> Quantity:
    assert policy.min is not None
    if requested < policy.min:
        return policy.min
    if policy.step is None:
        return requested
    req, step, low = requested.value(), policy.step.value(), policy.min.value()
    added = req - low
    n = int(added / step) if step else 0
    if _go_rem(added, step) != 0:
        n += 1
    return Quantity.from_int(low + step * n, BINARY_SI)


def consumed_capacity(requested: Quantity | None, capacity: DeviceCapacity) -> Quantity:
    """``calculateConsumedCapacity``: the amount one allocation takes of ``capacity``."""
    policy = capacity.policy
    if requested is None:
        if policy is not None and policy.default is not None:
            return policy.default
        return capacity.value
    if policy is None:
        return requested
    if policy.has_range and policy.min is not None:
        return _round_up_range(requested, policy)
    if policy.valid_values is not None:
        for v in policy.valid_values:
            if requested <= v:
                return v
        return requested
    return requested


def _violates(consumed: Quantity, policy: RequestPolicy | None) -> bool:
    if policy is None:
        return False
    if policy.default is not None and consumed == policy.default:
        return False
    if policy.has_range:
        if policy.max is not None and consumed > policy.max:
            return True
        if policy.step is not None:
            low = policy.min.value() if policy.min is not None else 0
            if _go_rem(consumed.value() - low, policy.step.value()) != 0:
                return True
        return False
    if policy.valid_values:
        return not any(consumed == v for v in policy.valid_values)
    return False


def request_fits(allocated: Mapping[str, int], requests: Mapping[str, Quantity] | None,
                 capacity: Mapping[str, DeviceCapacity], allocating: Mapping[str, int]) -> bool:
    """``CmpRequestOverCapacity``: ``allocated`` and ``allocating`` are nano amounts per capacity
    name already taken by finished allocations and by this allocation attempt. Raises
    :class:`CapacityUndefined` when the request names a capacity the device lacks."""
    if requests:
        for name in requests:
            if name not in capacity:
                raise CapacityUndefined("some requested capacity has not been defined")
    for name, cap in capacity.items():
        consumed = consumed_capacity(requests.get(name) if requests else None, cap)
        if _violates(consumed, cap.policy):
            return False
        total = allocated.get(name, 0) + consumed.nanos + allocating.get(name, 0)
        if total > cap.value.nanos:
            return False
    return True


def consumed_from_request(requests: Mapping[str, Quantity] | None,
                          capacity: Mapping[str, DeviceCapacity]) -> dict[str, Quantity]:
    """``GetConsumedCapacityFromRequest``: the consumed amount of every capacity of the device."""
    return {name: consumed_capacity(requests.get(name) if requests else None, cap)
            for name, cap in capacity.items()}
