"""Eviction thresholds: parsing, the containerfs and allocatable rules, ordering, and
evaluation against observations (upstream ``pkg/kubelet/eviction/helpers.go``).

A threshold is ``<signal><operator><quantity>``: ``memory.available<1Gi`` or
``nodefs.available<10%``. A soft threshold has a grace period (how long it must
hold before pods are evicted); a hard one has none. ``minReclaim`` raises the bar
the kubelet reclaims to once a threshold is met: it keeps going until ``available``
reaches ``threshold + minReclaim``.

>>> ts = parse_threshold_config(["pods"], {"memory.available": "500Mi"}, {"nodefs.available": "15%"},
...                             {"nodefs.available": "1m30s"}, {"nodefs.available": "500Mi"})
>>> [str(t) for t in ts]
['memory.available<500Mi', 'nodefs.available<15% (grace 1m30s, minReclaim 500Mi)', 'allocatableMemory.available<500Mi']
>>> obs = {"memory.available": SignalObservation(Quantity("400Mi"), Quantity("10Gi"))}
>>> [str(t) for t in thresholds_met(ts, obs, enforce_min_reclaim=False)]
['memory.available<500Mi']
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from kschedlab.api.quantity import BINARY_SI, Quantity

from .gotypes import SECOND, format_duration, parse_duration, parse_float32, parse_quantity
from .signals import (
    OP_FOR_SIGNAL,
    OP_LESS_THAN,
    SIGNAL_ALLOCATABLE_MEMORY_AVAILABLE,
    SIGNAL_CONTAINERFS_AVAILABLE,
    SIGNAL_CONTAINERFS_INODES_FREE,
    SIGNAL_IMAGEFS_AVAILABLE,
    SIGNAL_IMAGEFS_INODES_FREE,
    SIGNAL_MEMORY_AVAILABLE,
    SIGNAL_NODEFS_AVAILABLE,
    SIGNAL_NODEFS_INODES_FREE,
    SIGNAL_TO_NODE_CONDITION,
    SIGNAL_TO_RESOURCE,
    SignalObservation,
    valid_signal,
)

__all__ = [
    "ThresholdValue", "Threshold", "ThresholdConfigError", "UNSUPPORTED_EVICTION_SIGNAL",
    "parse_percentage", "parse_threshold_statement", "parse_threshold_statements", "parse_grace_periods",
    "parse_minimum_reclaims", "parse_threshold_config", "add_allocatable_thresholds",
    "update_containerfs_thresholds", "is_hard_eviction_threshold", "get_threshold_quantity", "threshold_bytes",
    "thresholds_met", "thresholds_updated_stats", "thresholds_first_observed_at",
    "thresholds_met_grace_period", "node_conditions", "node_conditions_last_observed_at",
    "node_conditions_observed_since", "merge_thresholds", "has_threshold", "compare_threshold_value",
    "sort_by_eviction_priority", "get_reclaimable_threshold", "reclaim_target",
]

UNSUPPORTED_EVICTION_SIGNAL = "unsupported eviction signal {}"


@dataclass(frozen=True)
class ThresholdValue:
    """A literal ``quantity`` or a ``percentage`` (a float32 fraction of the capacity).

    Only the first set one counts, as upstream: a value with neither is 0%.

    >>> str(ThresholdValue(Quantity("1Gi"))), str(ThresholdValue(percentage=parse_percentage("10.5%")))
    ('1Gi', '10.5%')
    """

    quantity: Quantity | None = None
    percentage: float = 0.0

    def __str__(self) -> str:
        if self.quantity is not None:
            return str(self.quantity)
        return f"{float(np.float32(self.percentage) * np.float32(100)):g}%"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ThresholdValue) and compare_threshold_value(self, other)

    def __hash__(self) -> int:
        return hash(("q", self.quantity)) if self.quantity is not None else hash(("p", self.percentage))

    def to_dict(self) -> dict:
        """The case-file form: ``{"quantity": "1Gi"}`` or ``{"percentage": 0.1}``."""
        if self.quantity is not None:
            return {"quantity": str(self.quantity)}
        return {"percentage": self.percentage}

    @classmethod
    def from_dict(cls, d: Mapping | None) -> ThresholdValue | None:
        """The inverse of :meth:`to_dict` (None stays None).

        >>> ThresholdValue.from_dict({"percentage": 0.05}).percentage == float(np.float32(0.05))
        True
        """
        if d is None:
            return None
        if d.get("quantity") is not None:
            return cls(quantity=Quantity(str(d["quantity"])))
        return cls(percentage=float(np.float32(d.get("percentage", 0.0))))


@dataclass(frozen=True)
class Threshold:
    """One eviction threshold (upstream ``evictionapi.Threshold``); ``grace_period`` in ns."""

    signal: str
    operator: str = OP_LESS_THAN
    value: ThresholdValue = field(default_factory=ThresholdValue)
    grace_period: int = 0
    min_reclaim: ThresholdValue | None = None

    @property
    def hard(self) -> bool:
        """No grace period: eviction starts as soon as the threshold is met."""
        return is_hard_eviction_threshold(self)

    def __str__(self) -> str:
        op = "<" if self.operator == OP_LESS_THAN else f" {self.operator or '(no operator)'} "
        extra = []
        if self.grace_period:
            extra.append(f"grace {format_duration(self.grace_period)}")
        if self.min_reclaim is not None:
            extra.append(f"minReclaim {self.min_reclaim}")
        return f"{self.signal}{op}{self.value}" + (f" ({', '.join(extra)})" if extra else "")

    def to_dict(self) -> dict:
        """The case-file form (``gracePeriod`` as a Go duration; ``minReclaim`` when set)."""
        out: dict[str, Any] = {"signal": self.signal, "operator": self.operator, "value": self.value.to_dict()}
        if self.grace_period:
            out["gracePeriod"] = format_duration(self.grace_period)
        if self.min_reclaim is not None:
            out["minReclaim"] = self.min_reclaim.to_dict()
        return out

    @classmethod
    def from_dict(cls, d: Mapping) -> Threshold:
        """The inverse of :meth:`to_dict`; ``gracePeriod`` may also be nanoseconds.

        >>> str(Threshold.from_dict({"signal": "memory.available", "value": {"quantity": "1Gi"},
        ...                          "gracePeriod": "1m"}))
        'memory.available<1Gi (grace 1m0s)'
        """
        gp = d.get("gracePeriod", 0)
        return cls(signal=d["signal"], operator=d.get("operator", OP_LESS_THAN),
                   value=ThresholdValue.from_dict(d.get("value") or {}) or ThresholdValue(),
                   grace_period=gp if isinstance(gp, int) else parse_duration(str(gp)),
                   min_reclaim=ThresholdValue.from_dict(d.get("minReclaim")))


class ThresholdConfigError(ValueError):
    """A threshold the kubelet refuses at start-up: upstream's ``message``, the config
    ``field`` (``evictionHard``...) and the map ``key`` (the signal) it came from."""

    def __init__(self, message: str, field: str, key: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        self.key = key


def threshold_bytes(value: str, capacity: int) -> int:
    """A threshold written as in a KubeletConfiguration (``"10%"`` or ``"1Gi"``) as a number of
    bytes of ``capacity`` bytes, computed as the kubelet does (:func:`get_threshold_quantity`).

    >>> threshold_bytes("10%", 10 * 2**30), threshold_bytes("1Gi", 10 * 2**30)
    (1073741840, 1073741824)
    """
    if value.endswith("%"):
        parsed = ThresholdValue(percentage=parse_percentage(value))
    else:
        parsed = ThresholdValue(quantity=Quantity(value))
    return get_threshold_quantity(parsed, Quantity.from_int(capacity, BINARY_SI)).value()


def parse_percentage(text: str) -> float:
    """``"10.5%"`` -> the float32 fraction 0.105 (upstream ``parsePercentage``).

    >>> parse_percentage("25.5%") == float(np.float32(0.255))
    True
    >>> parse_percentage("12%345")
    Traceback (most recent call last):
    ...
    ValueError: strconv.ParseFloat: parsing "12%345": invalid syntax
    """
    value = parse_float32(text.rstrip("%"))
    return float(np.float32(value) / np.float32(100))


def parse_threshold_statement(signal: str, val: str) -> Threshold | None:
    """One ``signal: value`` of ``evictionHard`` / ``evictionSoft``; None for ``0%`` and
    ``100%`` (ignored, as upstream). Raises ValueError with upstream's message.

    >>> str(parse_threshold_statement("nodefs.available", "10%"))
    'nodefs.available<10%'
    >>> parse_threshold_statement("memory.available", "100%") is None
    True
    >>> parse_threshold_statement("memory.available", "-150Mi")
    Traceback (most recent call last):
    ...
    ValueError: eviction threshold memory.available must be positive: -150Mi
    """
    if not valid_signal(signal):
        raise ValueError(UNSUPPORTED_EVICTION_SIGNAL.format(signal))
    operator = OP_FOR_SIGNAL[signal]
    if val.endswith("%"):
        if val in ("0%", "100%"):
            return None
        pct = parse_percentage(val)
        if pct < 0:
            raise ValueError(f"eviction percentage threshold {signal} must be >= 0%: {val}")
        if pct > 1:
            raise ValueError(f"eviction percentage threshold {signal} must be <= 100%: {val}")
        return Threshold(signal, operator, ThresholdValue(percentage=pct))
    q = parse_quantity(val)
    if q.sign() < 0 or q.is_zero():
        raise ValueError(f"eviction threshold {signal} must be positive: {q.canonical()}")
    return Threshold(signal, operator, ThresholdValue(quantity=q))


def parse_threshold_statements(statements: Mapping[str, str] | None, field: str = "evictionHard") -> list[Threshold]:
    """Every statement of one map, in the map's order (upstream iterates a Go map).

    >>> [str(t) for t in parse_threshold_statements({"memory.available": "1Gi", "nodefs.available": "0%"})]
    ['memory.available<1Gi']
    """
    out = []
    for signal, val in (statements or {}).items():
        try:
            t = parse_threshold_statement(signal, val)
        except ValueError as e:
            raise ThresholdConfigError(str(e), field, signal) from None
        if t is not None:
            out.append(t)
    return out


def parse_grace_periods(statements: Mapping[str, str] | None) -> dict[str, int]:
    """``evictionSoftGracePeriod`` -> {signal: nanoseconds} (upstream ``parseGracePeriods``).

    >>> parse_grace_periods({"memory.available": "1m30s"})
    {'memory.available': 90000000000}
    """
    out: dict[str, int] = {}
    for signal, val in (statements or {}).items():
        if not valid_signal(signal):
            raise ThresholdConfigError(UNSUPPORTED_EVICTION_SIGNAL.format(signal), "evictionSoftGracePeriod", signal)
        try:
            gp = parse_duration(val)
        except ValueError as e:
            raise ThresholdConfigError(str(e), "evictionSoftGracePeriod", signal) from None
        if gp < 0:
            raise ThresholdConfigError(f"invalid eviction grace period specified: {val}, must be a positive value",
                                       "evictionSoftGracePeriod", signal)
        out[signal] = gp
    return out


def parse_minimum_reclaims(statements: Mapping[str, str] | None) -> dict[str, ThresholdValue]:
    """``evictionMinimumReclaim`` -> {signal: value} (upstream ``parseMinimumReclaims``).

    >>> str(parse_minimum_reclaims({"imagefs.available": "2Gi"})["imagefs.available"])
    '2Gi'
    """
    field_name = "evictionMinimumReclaim"
    out: dict[str, ThresholdValue] = {}
    for signal, val in (statements or {}).items():
        if not valid_signal(signal):
            raise ThresholdConfigError(UNSUPPORTED_EVICTION_SIGNAL.format(signal), field_name, signal)
        try:
            if val.endswith("%"):
                pct = parse_percentage(val)
                if pct <= 0:
                    raise ValueError(f"eviction percentage minimum reclaim {signal} must be positive: {val}")
                out[signal] = ThresholdValue(percentage=pct)
                continue
            q = parse_quantity(val)
            if q.sign() < 0:
                raise ValueError(f"negative eviction minimum reclaim specified for {signal}")
        except ValueError as e:
            raise ThresholdConfigError(str(e), field_name, signal) from None
        out[signal] = ThresholdValue(quantity=q)
    return out


def parse_threshold_config(allocatable_config: Iterable[str], eviction_hard: Mapping[str, str] | None,
                           eviction_soft: Mapping[str, str] | None = None,
                           eviction_soft_grace_period: Mapping[str, str] | None = None,
                           eviction_minimum_reclaim: Mapping[str, str] | None = None) -> list[Threshold]:
    """Every threshold of the kubelet's eviction settings (upstream ``ParseThresholdConfig``):
    hard ones, then soft ones with their grace periods, each with its signal's minimum
    reclaim; with ``pods`` in ``allocatable_config`` (``enforceNodeAllocatable``) every hard
    ``memory.available`` threshold is copied to ``allocatableMemory.available``.

    Raises :class:`ThresholdConfigError` (upstream's message, the field and the signal).

    >>> parse_threshold_config([], {}, {"memory.available": "150Mi"})
    Traceback (most recent call last):
    ...
    kschedlab.kubelet.thresholds.ThresholdConfigError: grace period must be specified for the soft eviction threshold memory.available
    """
    results = list(parse_threshold_statements(eviction_hard, "evictionHard"))
    soft = parse_threshold_statements(eviction_soft, "evictionSoft")
    grace = parse_grace_periods(eviction_soft_grace_period)
    min_reclaims = parse_minimum_reclaims(eviction_minimum_reclaim)
    soft_with_grace = []
    for t in soft:
        if t.signal not in grace:
            raise ThresholdConfigError(f"grace period must be specified for the soft eviction threshold {t.signal}",
                                       "evictionSoftGracePeriod", t.signal)
        soft_with_grace.append(Threshold(t.signal, t.operator, t.value, grace[t.signal], t.min_reclaim))
    results.extend(soft_with_grace)
    results = [Threshold(t.signal, t.operator, t.value, t.grace_period, min_reclaims[t.signal])
               if t.signal in min_reclaims else t for t in results]
    if "pods" in list(allocatable_config):
        results = add_allocatable_thresholds(results)
    return results


def is_hard_eviction_threshold(threshold: Threshold) -> bool:
    """A threshold without grace period (upstream ``isHardEvictionThreshold``)."""
    return threshold.grace_period == 0


def add_allocatable_thresholds(thresholds: Sequence[Threshold]) -> list[Threshold]:
    """The thresholds, then a copy of each hard ``memory.available`` one as
    ``allocatableMemory.available`` (upstream ``addAllocatableThresholds``).

    >>> [t.signal for t in add_allocatable_thresholds([Threshold("memory.available",
    ...                                                           value=ThresholdValue(Quantity("1Gi")))])]
    ['memory.available', 'allocatableMemory.available']
    """
    extra = [Threshold(SIGNAL_ALLOCATABLE_MEMORY_AVAILABLE, t.operator, t.value, 0, t.min_reclaim)
             for t in thresholds if t.signal == SIGNAL_MEMORY_AVAILABLE and is_hard_eviction_threshold(t)]
    return [*thresholds, *extra]


def update_containerfs_thresholds(thresholds: Sequence[Threshold], image_fs: bool,
                                  separate_container_image_fs: bool) -> tuple[list[Threshold], str | None]:
    """Give ``containerfs.available`` / ``containerfs.inodesFree`` the thresholds of the
    filesystem the writable layers live on (upstream ``UpdateContainerFsThresholds``):

    * one filesystem, or images split from containers (``image_fs and separate``):
      nodefs's thresholds;
    * a dedicated imagefs holding images and writable layers (``image_fs`` only):
      imagefs's thresholds.

    Hard and soft are copied separately. A containerfs threshold the user wrote is
    replaced in place and reported in the returned message (the kubelet logs it and
    goes on); otherwise the copy is appended -- even when there is nothing to copy, in
    which case the appended threshold has no operator and never fires (as upstream).

    >>> ts = [Threshold("nodefs.available", value=ThresholdValue(Quantity("1Gi")))]
    >>> out, err = update_containerfs_thresholds(ts, False, False)
    >>> [str(t) for t in out][:2], err
    (['nodefs.available<1Gi', 'containerfs.available<1Gi'], None)
    """
    empty = Threshold(signal="", operator="", value=ThresholdValue())
    hard_nodefs = soft_nodefs = hard_nodefs_inodes = soft_nodefs_inodes = empty
    hard_imagefs = soft_imagefs = hard_imagefs_inodes = soft_imagefs_inodes = empty
    idx = {"hard_disk": -1, "soft_disk": -1, "hard_inodes": -1, "soft_inodes": -1}
    err: str | None = None
    for i, t in enumerate(thresholds):
        hard = is_hard_eviction_threshold(t)
        if t.signal == SIGNAL_IMAGEFS_AVAILABLE:
            if hard:
                hard_imagefs = t
            else:
                soft_imagefs = t
        elif t.signal == SIGNAL_IMAGEFS_INODES_FREE:
            if hard:
                hard_imagefs_inodes = t
            else:
                soft_imagefs_inodes = t
        elif t.signal == SIGNAL_NODEFS_AVAILABLE:
            if hard:
                hard_nodefs = t
            else:
                soft_nodefs = t
        elif t.signal == SIGNAL_NODEFS_INODES_FREE:
            if hard:
                hard_nodefs_inodes = t
            else:
                soft_nodefs_inodes = t
        elif t.signal == SIGNAL_CONTAINERFS_AVAILABLE:
            err = f"found containerfs.available for {'hard' if hard else 'soft'} eviction. ignoring"
            idx["hard_disk" if hard else "soft_disk"] = i
        elif t.signal == SIGNAL_CONTAINERFS_INODES_FREE:
            err = f"found containerfs.inodesFree for {'hard' if hard else 'soft'} eviction. ignoring"
            idx["hard_inodes" if hard else "soft_inodes"] = i
    out = list(thresholds)

    def put(key: str, t: Threshold) -> None:
        if idx[key] != -1:
            out[idx[key]] = t
        else:
            out.append(t)

    def copy(signal: str, src: Threshold, with_grace: bool) -> Threshold:
        return Threshold(signal, src.operator, src.value, src.grace_period if with_grace else 0, src.min_reclaim)

    if image_fs == separate_container_image_fs:  # one filesystem, or images split from containers
        put("hard_disk", copy(SIGNAL_CONTAINERFS_AVAILABLE, hard_nodefs, False))
        put("soft_disk", copy(SIGNAL_CONTAINERFS_AVAILABLE, soft_nodefs, True))
        put("hard_inodes", copy(SIGNAL_CONTAINERFS_INODES_FREE, hard_nodefs_inodes, False))
        put("soft_inodes", copy(SIGNAL_CONTAINERFS_INODES_FREE, soft_nodefs_inodes, True))
    if image_fs and not separate_container_image_fs:
        put("hard_disk", copy(SIGNAL_CONTAINERFS_AVAILABLE, hard_imagefs, False))
        put("soft_disk", copy(SIGNAL_CONTAINERFS_AVAILABLE, soft_imagefs, True))
        put("hard_inodes", copy(SIGNAL_CONTAINERFS_INODES_FREE, hard_imagefs_inodes, True))
        put("soft_inodes", copy(SIGNAL_CONTAINERFS_INODES_FREE, soft_imagefs_inodes, True))
    return out, err


def get_threshold_quantity(value: ThresholdValue, capacity: Quantity | None) -> Quantity:
    """The threshold as an amount: the literal quantity, or ``int64(capacity * percentage)``
    in float64 as upstream (``GetThresholdQuantity``). The percentage is a float32, so
    10% of 10Gi is 16 bytes more than 1Gi, exactly as the kubelet computes it.

    >>> get_threshold_quantity(ThresholdValue(percentage=parse_percentage("10%")), Quantity("10Gi")).value()
    1073741840
    """
    if value.quantity is not None:
        return value.quantity
    cap = capacity.value() if capacity is not None else 0
    return Quantity.from_int(int(float(cap) * float(value.percentage)), BINARY_SI)


def thresholds_met(thresholds: Sequence[Threshold], observations: Mapping[str, SignalObservation],
                   enforce_min_reclaim: bool) -> list[Threshold]:
    """The thresholds whose signal is observed below them, grace periods aside (upstream
    ``thresholdsMet``); with ``enforce_min_reclaim`` the bar is ``threshold + minReclaim``.

    >>> t = Threshold("memory.available", value=ThresholdValue(Quantity("1Gi")),
    ...               min_reclaim=ThresholdValue(Quantity("500Mi")))
    >>> obs = {"memory.available": SignalObservation(Quantity("1.05Gi"))}
    >>> len(thresholds_met([t], obs, False)), len(thresholds_met([t], obs, True))
    (0, 1)
    """
    out = []
    for t in thresholds:
        observed = observations.get(t.signal)
        if observed is None:
            continue
        quantity = get_threshold_quantity(t.value, observed.capacity)
        if enforce_min_reclaim and t.min_reclaim is not None:
            quantity = quantity + get_threshold_quantity(t.min_reclaim, observed.capacity)
        if t.operator == OP_LESS_THAN and quantity > observed.available:
            out.append(t)
    return out


def reclaim_target(threshold: Threshold, capacity: Quantity | None = None) -> Quantity:
    """What ``available`` must reach before the kubelet stops reclaiming for ``threshold``:
    the threshold plus its minimum reclaim (upstream ``thresholdsMet(..., true)``).

    >>> t = Threshold("nodefs.available", value=ThresholdValue(Quantity("1Gi")),
    ...               min_reclaim=ThresholdValue(Quantity("500Mi")))
    >>> str(reclaim_target(t))   # the seed's "1.5 GiB" is 1Gi + 500Mi, i.e. 1524Mi
    '1524Mi'
    """
    q = get_threshold_quantity(threshold.value, capacity)
    if threshold.min_reclaim is not None:
        q = q + get_threshold_quantity(threshold.min_reclaim, capacity)
    return q


def thresholds_updated_stats(thresholds: Sequence[Threshold], observations: Mapping[str, SignalObservation],
                             last_observations: Mapping[str, SignalObservation]) -> list[Threshold]:
    """The thresholds whose stats are newer than last time (upstream ``thresholdsUpdatedStats``):
    no observation -> dropped; no previous one, no time, or a later time -> kept."""
    out = []
    for t in thresholds:
        observed = observations.get(t.signal)
        if observed is None:
            continue
        last = last_observations.get(t.signal)
        if last is None or observed.time is None or last.time is None or observed.time > last.time:
            out.append(t)
    return out


def thresholds_first_observed_at(thresholds: Sequence[Threshold], last_observed_at: Mapping[Threshold, float],
                                 now: float) -> dict[Threshold, float]:
    """When each threshold met now was first met: kept from before, else ``now``."""
    return {t: last_observed_at.get(t, now) for t in thresholds}


def thresholds_met_grace_period(observed_at: Mapping[Threshold, float], now: float) -> list[Threshold]:
    """The thresholds met for at least their grace period (times in seconds).

    >>> soft = Threshold("memory.available", value=ThresholdValue(Quantity("2Gi")), grace_period=60 * 10**9)
    >>> thresholds_met_grace_period({soft: 0.0}, 59.0), len(thresholds_met_grace_period({soft: 0.0}, 60.0))
    ([], 1)
    """
    return [t for t, at in observed_at.items() if not ((now - at) * SECOND < t.grace_period)]


def node_conditions(thresholds: Iterable[Threshold]) -> list[str]:
    """The node conditions the thresholds drive, each once, in order.

    >>> node_conditions([Threshold("nodefs.available"), Threshold("memory.available"),
    ...                  Threshold("imagefs.available")])
    ['DiskPressure', 'MemoryPressure']
    """
    out: list[str] = []
    for t in thresholds:
        cond = SIGNAL_TO_NODE_CONDITION.get(t.signal)
        if cond is not None and cond not in out:
            out.append(cond)
    return out


def node_conditions_last_observed_at(conditions: Iterable[str], last_observed_at: Mapping[str, float],
                                     now: float) -> dict[str, float]:
    """Conditions seen now get ``now``; the others keep their last time."""
    out = {c: now for c in conditions}
    for c, at in last_observed_at.items():
        out.setdefault(c, at)
    return out


def node_conditions_observed_since(observed_at: Mapping[str, float], period_ns: int, now: float) -> list[str]:
    """The conditions seen within the last ``period_ns`` (the pressure transition period):
    a node condition stays true that long after its threshold stops being met.

    >>> node_conditions_observed_since({"MemoryPressure": 0.0}, 300 * 10**9, 299.0)
    ['MemoryPressure']
    """
    return [c for c, at in observed_at.items() if (now - at) * SECOND < period_ns]


def compare_threshold_value(a: ThresholdValue, b: ThresholdValue) -> bool:
    """Upstream ``compareThresholdValue``: equal quantities, or both percentages equal."""
    if a.quantity is not None:
        return b.quantity is not None and a.quantity == b.quantity
    if b.quantity is not None:
        return False
    return a.percentage == b.percentage


def has_threshold(inputs: Iterable[Threshold], item: Threshold) -> bool:
    """Whether a threshold with the same grace period, operator, signal and value is in
    ``inputs`` (minimum reclaim not compared, as upstream)."""
    return any(t.grace_period == item.grace_period and t.operator == item.operator and t.signal == item.signal
               and compare_threshold_value(t.value, item.value) for t in inputs)


def merge_thresholds(a: Sequence[Threshold], b: Iterable[Threshold]) -> list[Threshold]:
    """``a`` plus each threshold of ``b`` not already in it."""
    out = list(a)
    for t in b:
        if not has_threshold(out, t):
            out.append(t)
    return out


def _eviction_priority_less(a: Threshold, b: Threshold) -> bool:
    return a.signal in (SIGNAL_MEMORY_AVAILABLE, SIGNAL_ALLOCATABLE_MEMORY_AVAILABLE) \
        or b.signal not in SIGNAL_TO_RESOURCE


def sort_by_eviction_priority(thresholds: Sequence[Threshold]) -> list[Threshold]:
    """Memory first, signals without a resource last (upstream ``byEvictionPriority``),
    sorted as Go's ``sort.Sort`` does for up to 12 elements (insertion sort; that Less
    is not a strict order, so the algorithm matters: memory thresholds also pass each
    other). Longer lists use the same insertion sort.

    >>> [t.signal for t in sort_by_eviction_priority([Threshold("nodefs.available"), Threshold("pid.available"),
    ...                                               Threshold("memory.available")])]
    ['memory.available', 'nodefs.available', 'pid.available']
    """
    a = list(thresholds)
    for i in range(1, len(a)):
        j = i
        while j > 0 and _eviction_priority_less(a[j], a[j - 1]):
            a[j], a[j - 1] = a[j - 1], a[j]
            j -= 1
    return a


def get_reclaimable_threshold(thresholds: Sequence[Threshold]) -> tuple[Threshold, str] | None:
    """The first threshold with a resource to reclaim, and that resource."""
    for t in thresholds:
        if t.signal in SIGNAL_TO_RESOURCE:
            return t, SIGNAL_TO_RESOURCE[t.signal]
    return None
