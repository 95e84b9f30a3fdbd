"""Conformance stages of node-pressure eviction (``CASES.md``): ``eviction-rank``,
``eviction-threshold-parse``, ``eviction-threshold-order``, ``eviction-threshold-met``.

:func:`run_case` returns human-readable differences (empty = pass).

Thresholds in case files are ``{"signal", "operator", "value": {"quantity"} | {"percentage"},
"gracePeriod" (Go duration or ns), "minReclaim"}``; observations are
``{signal: {"available", "capacity", "time"}}`` (quantities as strings, times in seconds).
A ``helper`` key picks the upstream function a row exercises; without it the stage runs
its main function:

==============================  ==============================================================
stage / helper                  input -> ``expected.other``
==============================  ==============================================================
threshold-parse                 ``evictionConfig {allocatableConfig, evictionHard, evictionSoft,
                                evictionSoftGracePeriod, evictionMinimumReclaim}`` ->
                                ``thresholds`` (as a set), ``error`` (bool or substring)
 addAllocatableThresholds       ``thresholds`` -> ``thresholds``
 updateContainerFsThresholds    ``thresholds, imageFs, containerFs`` -> ``containerFsThresholds
                                {hardAvailable, softAvailable, hardInodesFree, softInodesFree}``,
                                ``error``
 parsePercentage                ``input`` -> ``value`` (float32), ``error``
 compareThresholdValue          ``a, b`` -> ``equal`` (both ways)
threshold-order                 ``thresholds`` -> ``order`` (signals after byEvictionPriority)
 getReclaimableThreshold        ``thresholds`` (sorted first) -> ``found``
threshold-met                   ``thresholds, observations, enforceMinReclaim`` -> ``thresholdsMet``
 thresholdsUpdatedStats         ``thresholds, observations, lastObservations`` -> ``thresholdsMet``
 thresholdsFirstObservedAt      ``thresholds, lastObservedAt [{threshold, at}], now`` ->
                                ``observedAt [{threshold, at}]``
 thresholdsMetGracePeriod       ``observedAt [{threshold, at}], now`` -> ``thresholdsMet``
 nodeConditions                 ``thresholds`` -> ``nodeConditions`` (as a set)
 nodeConditionsLastObservedAt   ``nodeConditions, lastObservedAt {cond: at}, now`` -> ``observedAt``
 nodeConditionsObservedSince    ``observedAt {cond: at}, period, now`` -> ``nodeConditions``
 hasNodeCondition               ``nodeConditions, item`` -> ``result``
 makeSignalObservations         ``summary`` -> ``observations {signal: {available, capacity}}``
rank                            ``existingPods`` (in the order given), ``podStats``, ``rank``:
                                ``{signal, layout}`` or ``{comparators, fsStatsToMeasure,
                                resource}`` -> ``order`` (pod names)
==============================  ==============================================================

Threshold lists compare as upstream's tests do: ``thresholds`` of the parse stage as sets
of whole thresholds (minimum reclaim included), ``thresholdsMet`` with ``hasThreshold``
(minimum reclaim ignored).

>>> run_case({"id": "x", "stage": "eviction-threshold-order",
...           "thresholds": [{"signal": "nodefs.available"}, {"signal": "memory.available"}],
...           "expected": {"other": {"order": ["memory.available", "nodefs.available"]}}})
[]
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

import numpy as np

from kschedlab.api.quantity import Quantity
from kschedlab.conformance.compare import run_stage
from kschedlab.kubelet.gotypes import parse_duration
from kschedlab.kubelet.ranking import COMPARATORS, LAYOUT_SINGLE, PodStatsIndex, order_by, rank_pods
from kschedlab.kubelet.signals import SignalObservation, make_signal_observations
from kschedlab.kubelet.thresholds import (
    Threshold,
    ThresholdConfigError,
    ThresholdValue,
    add_allocatable_thresholds,
    compare_threshold_value,
    get_reclaimable_threshold,
    has_threshold,
    is_hard_eviction_threshold,
    node_conditions,
    node_conditions_last_observed_at,
    node_conditions_observed_since,
    parse_percentage,
    parse_threshold_config,
    sort_by_eviction_priority,
    thresholds_first_observed_at,
    thresholds_met,
    thresholds_met_grace_period,
    thresholds_updated_stats,
    update_containerfs_thresholds,
)

__all__ = ["run_case", "STAGES"]


def _thresholds(data) -> list[Threshold]:
    return [Threshold.from_dict(d) for d in data or []]


def _show(ts) -> list[str]:
    return sorted(str(t) for t in ts)


def _full_equal(a: Threshold, b: Threshold) -> bool:
    mr_a, mr_b = a.min_reclaim, b.min_reclaim
    same_mr = (mr_a is None and mr_b is None) or (mr_a is not None and mr_b is not None
                                                   and compare_threshold_value(mr_a, mr_b))
    return (a.grace_period == b.grace_period and a.operator == b.operator and a.signal == b.signal
            and compare_threshold_value(a.value, b.value) and same_mr)


def _set_equal(got, want, eq) -> bool:
    return len(got) == len(want) and all(any(eq(w, g) for g in got) for w in want) \
        and all(any(eq(g, w) for w in want) for g in got)


def _check_set(diffs, label, got, want, eq) -> None:
    if not _set_equal(got, want, eq):
        diffs.append(f"{label}: got {_show(got)}, want {_show(want)}")


def _same_threshold(a: Threshold, b: Threshold) -> bool:
    return has_threshold([a], b)


def _check_error(diffs, other, err: str | None) -> None:
    if "error" not in other:
        if err is not None:
            diffs.append(f"error: got {err!r}, want none")
        return
    want = other["error"]
    if want is False or want is None:
        if err is not None:
            diffs.append(f"error: got {err!r}, want none")
    elif err is None:
        diffs.append(f"error: got none, want {want!r}")
    elif isinstance(want, str) and want not in err:
        diffs.append(f"error: got {err!r}, want one containing {want!r}")


def _observations(data: Mapping | None) -> dict[str, SignalObservation]:
    out = {}
    for signal, o in (data or {}).items():
        cap = o.get("capacity")
        out[signal] = SignalObservation(Quantity(str(o.get("available", "0"))),
                                        Quantity(str(cap)) if cap is not None else None, o.get("time"))
    return out


def _observed_at(data) -> dict[Threshold, float]:
    return {Threshold.from_dict(e["threshold"]): float(e["at"]) for e in data or []}


def _period(v) -> int:
    return v if isinstance(v, int) else parse_duration(str(v))


# --------------------------------------------------------------------- stages


def _stage_parse(case: dict, diffs: list[str]) -> None:
    other = case["expected"].get("other") or {}
    helper = case.get("helper", "ParseThresholdConfig")
    if helper == "ParseThresholdConfig":
        cfg = case.get("evictionConfig") or {}
        err = None
        got: list[Threshold] = []
        try:
            got = parse_threshold_config(cfg.get("allocatableConfig") or [], cfg.get("evictionHard"),
                                         cfg.get("evictionSoft"), cfg.get("evictionSoftGracePeriod"),
                                         cfg.get("evictionMinimumReclaim"))
        except ThresholdConfigError as e:
            err = str(e)
        _check_error(diffs, other, err)
        if "thresholds" in other:
            _check_set(diffs, "thresholds", got, _thresholds(other["thresholds"]), _full_equal)
    elif helper == "addAllocatableThresholds":
        got = add_allocatable_thresholds(_thresholds(case.get("thresholds")))
        _check_set(diffs, "thresholds", got, _thresholds(other.get("thresholds")), _full_equal)
    elif helper == "updateContainerFsThresholds":
        got, err = update_containerfs_thresholds(_thresholds(case.get("thresholds")), bool(case.get("imageFs")),
                                                 bool(case.get("containerFs")))
        _check_error(diffs, other, err)
        want = other.get("containerFsThresholds") or {}
        for key, signal, hard in (("hardAvailable", "containerfs.available", True),
                                  ("softAvailable", "containerfs.available", False),
                                  ("hardInodesFree", "containerfs.inodesFree", True),
                                  ("softInodesFree", "containerfs.inodesFree", False)):
            found = [t for t in got if t.signal == signal and is_hard_eviction_threshold(t) == hard]
            if not found:
                diffs.append(f"{key}: not found")
                continue
            if key in want:
                w = Threshold.from_dict(want[key])
                for t in found:
                    if not _full_equal(t, w):
                        diffs.append(f"{key}: got {t}, want {w}")
    elif helper == "parsePercentage":
        err = None
        value = 0.0
        try:
            value = parse_percentage(case["input"])
        except ValueError as e:
            err = str(e)
        _check_error(diffs, other, err)
        want = float(np.float32(other.get("value", 0.0)))
        if value != want:
            diffs.append(f"value: got {value!r}, want {want!r}")
    elif helper == "compareThresholdValue":
        a, b = ThresholdValue.from_dict(case["a"]), ThresholdValue.from_dict(case["b"])
        for x, y, label in ((a, b, "a,b"), (b, a, "b,a")):
            got_eq = compare_threshold_value(x, y)
            if got_eq != other.get("equal"):
                diffs.append(f"compareThresholdValue({label}): got {got_eq}, want {other.get('equal')}")
    else:
        diffs.append(f"unknown helper {helper!r} for stage eviction-threshold-parse")


def _stage_order(case: dict, diffs: list[str]) -> None:
    other = case["expected"].get("other") or {}
    ordered = sort_by_eviction_priority(_thresholds(case.get("thresholds")))
    helper = case.get("helper")
    if helper == "getReclaimableThreshold":
        found = get_reclaimable_threshold(ordered) is not None
        if found != other.get("found"):
            diffs.append(f"found: got {found}, want {other.get('found')}")
        return
    if helper is not None:
        diffs.append(f"unknown helper {helper!r} for stage eviction-threshold-order")
        return
    got = [t.signal for t in ordered]
    if got != other.get("order"):
        diffs.append(f"order: got {got}, want {other.get('order')}")


def _stage_met(case: dict, diffs: list[str]) -> None:
    other = case["expected"].get("other") or {}
    helper = case.get("helper", "thresholdsMet")
    want_met = _thresholds(other.get("thresholdsMet"))
    if helper == "thresholdsMet":
        got = thresholds_met(_thresholds(case.get("thresholds")), _observations(case.get("observations")),
                             bool(case.get("enforceMinReclaim")))
        _check_set(diffs, "thresholdsMet", got, want_met, _same_threshold)
    elif helper == "thresholdsUpdatedStats":
        got = thresholds_updated_stats(_thresholds(case.get("thresholds")), _observations(case.get("observations")),
                                       _observations(case.get("lastObservations")))
        _check_set(diffs, "thresholdsMet", got, want_met, _same_threshold)
    elif helper == "thresholdsMetGracePeriod":
        got = thresholds_met_grace_period(_observed_at(case.get("observedAt")), float(case.get("now", 0)))
        _check_set(diffs, "thresholdsMet", got, want_met, _same_threshold)
    elif helper == "thresholdsFirstObservedAt":
        got_at = thresholds_first_observed_at(_thresholds(case.get("thresholds")),
                                              _observed_at(case.get("lastObservedAt")), float(case.get("now", 0)))
        want_at = _observed_at(other.get("observedAt"))
        if {str(k): v for k, v in got_at.items()} != {str(k): v for k, v in want_at.items()}:
            diffs.append(f"observedAt: got {({str(k): v for k, v in got_at.items()})}, "
                         f"want {({str(k): v for k, v in want_at.items()})}")
    elif helper == "nodeConditions":
        got_c = node_conditions(_thresholds(case.get("thresholds")))
        if sorted(got_c) != sorted(other.get("nodeConditions") or []) or len(set(got_c)) != len(got_c):
            diffs.append(f"nodeConditions: got {got_c}, want {other.get('nodeConditions')}")
    elif helper == "nodeConditionsLastObservedAt":
        got_d = node_conditions_last_observed_at(case.get("nodeConditions") or [], case.get("lastObservedAt") or {},
                                                 float(case.get("now", 0)))
        if got_d != (other.get("observedAt") or {}):
            diffs.append(f"observedAt: got {got_d}, want {other.get('observedAt')}")
    elif helper == "nodeConditionsObservedSince":
        got_c = node_conditions_observed_since(case.get("observedAt") or {}, _period(case.get("period", 0)),
                                               float(case.get("now", 0)))
        if sorted(got_c) != sorted(other.get("nodeConditions") or []):
            diffs.append(f"nodeConditions: got {got_c}, want {other.get('nodeConditions')}")
    elif helper == "hasNodeCondition":
        got_b = case.get("item") in (case.get("nodeConditions") or [])
        if got_b != other.get("result"):
            diffs.append(f"result: got {got_b}, want {other.get('result')}")
    elif helper == "makeSignalObservations":
        obs = make_signal_observations(case.get("summary") or {})
        for signal, want in (other.get("observations") or {}).items():
            o = obs.get(signal)
            if o is None:
                diffs.append(f"observations[{signal}]: missing")
                continue
            for key in ("available", "capacity"):
                if key in want:
                    got_v = getattr(o, key)
                    if got_v is None or got_v.value() != Quantity(str(want[key])).value():
                        diffs.append(f"observations[{signal}].{key}: got {got_v}, want {want[key]}")
        if other.get("exactSignals") and sorted(obs) != sorted(other.get("observations") or {}):
            diffs.append(f"signals: got {sorted(obs)}, want {sorted(other.get('observations') or {})}")
    else:
        diffs.append(f"unknown helper {helper!r} for stage eviction-threshold-met")


def _stage_rank(case: dict, diffs: list[str]) -> None:
    from kschedlab.api.core import Pod

    other = case["expected"].get("other") or {}
    pods = [Pod.model_validate(p) for p in case.get("existingPods") or []]
    index = PodStatsIndex(case.get("podStats") or [])
    rank = case.get("rank") or {}
    if "comparators" in rank:
        fs = tuple(rank.get("fsStatsToMeasure") or ())
        res = rank.get("resource", "ephemeral-storage")
        unknown = [n for n in rank["comparators"] if n not in COMPARATORS]
        if unknown:
            diffs.append(f"unknown comparators {unknown}")
            return
        ordered = order_by(pods, [COMPARATORS[n](index, fs, res) for n in rank["comparators"]])
    else:
        ordered = rank_pods(pods, index, rank["signal"], rank.get("layout", LAYOUT_SINGLE))
    got = [p.metadata.name for p in ordered]
    if got != other.get("order"):
        diffs.append(f"order: got {got}, want {other.get('order')}")


STAGES: dict[str, Callable[[dict, list[str]], None]] = {
    "eviction-threshold-parse": _stage_parse,
    "eviction-threshold-order": _stage_order,
    "eviction-threshold-met": _stage_met,
    "eviction-rank": _stage_rank,
}

from kschedlab.conformance.kubelet_gc import STAGES as _GC_STAGES  # noqa: E402  (node-level reclaim)
from kschedlab.conformance.kubelet_manager import STAGES as _MANAGER_STAGES  # noqa: E402  (manager, oom_score_adj)

STAGES.update(_GC_STAGES)
STAGES.update(_MANAGER_STAGES)


def run_case(case: dict[str, Any]) -> list[str]:
    """Run one eviction case; the differences from ``expected`` (empty = pass). A crash is
    reported as a difference, with its cause."""
    return run_stage(STAGES, case, "an eviction")
