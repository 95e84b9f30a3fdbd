"""From a KubeletConfiguration (or kubelet flags) to what the eviction manager runs on:
the thresholds, the grace periods, node allocatable.

Errors are the kubelet's start-up errors with upstream's text, raised as one
:class:`~kschedlab.api.errors.ManifestError` naming the file, the object and the field
path of every bad entry (``evictionHard[memory.available]``); nothing is built then.

>>> from kschedlab.api.loader import load_text
>>> cfg, = load_text('''
... apiVersion: kubelet.config.k8s.io/v1beta1
... kind: KubeletConfiguration
... evictionHard: {memory.available: "-1Gi", mem.available: "1Gi"}
... evictionSoft: {nodefs.available: "150%"}
... evictionSoftGracePeriod: {nodefs.available: "1m"}
... ''', source="kubelet.yaml")
>>> eviction_config(cfg)
Traceback (most recent call last):
...
kschedlab.api.errors.ManifestError: kubelet.yaml: KubeletConfiguration: evictionHard[memory.available]: eviction threshold memory.available must be positive: -1Gi
kubelet.yaml: KubeletConfiguration: evictionHard[mem.available]: unsupported eviction signal mem.available
kubelet.yaml: KubeletConfiguration: evictionSoft[nodefs.available]: eviction percentage threshold nodefs.available must be <= 100%: 150%
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

from kschedlab.api.errors import ManifestError, format_path
from kschedlab.api.kubeletconfig import (
    DEFAULT_EVICTION_PRESSURE_TRANSITION_PERIOD,
    KubeletConfiguration,
)
from kschedlab.api.quantity import DECIMAL_SI, Quantity
from kschedlab.api.unmarshal import json_value

from .gotypes import SECOND, parse_duration, parse_quantity
from .ranking import LAYOUT_SINGLE, layout_flags
from .signals import SIGNAL_MEMORY_AVAILABLE, SIGNAL_NODEFS_AVAILABLE
from .thresholds import (
    Threshold,
    ThresholdConfigError,
    get_threshold_quantity,
    is_hard_eviction_threshold,
    parse_grace_periods,
    parse_minimum_reclaims,
    parse_threshold_config,
    parse_threshold_statement,
    update_containerfs_thresholds,
)

__all__ = [
    "EvictionConfig", "eviction_config", "load_kubelet_config", "kubelet_config_from_flags",
    "parse_resource_list", "hard_eviction_reservation", "node_allocatable", "eviction_grace_period",
    "IMMEDIATE_EVICTION_GRACE_PERIOD_SECONDS", "DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS",
]

#: grace period of a pod evicted on a hard threshold (upstream ``immediateEvictionGracePeriodSeconds``;
#: the docs round it to "0s": the kubelet's minimum grace period is one second)
IMMEDIATE_EVICTION_GRACE_PERIOD_SECONDS = 1
#: ``terminationGracePeriodSeconds`` of a pod that does not set it
DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS = 30
_OBJ = "KubeletConfiguration"
_RESERVABLE = ("cpu", "memory", "ephemeral-storage", "pid")


@dataclass
class EvictionConfig:
    """What the eviction manager needs (upstream ``eviction.Config`` plus node allocatable):
    ``thresholds`` in evaluation order; ``hard_thresholds`` (from ``evictionHard`` alone)
    reserve capacity from node allocatable; periods in nanoseconds."""

    thresholds: list[Threshold]
    hard_thresholds: list[Threshold]
    max_pod_grace_period_seconds: int = 0
    pressure_transition_period: int = 5 * 60 * SECOND
    system_reserved: dict[str, Quantity] = field(default_factory=dict)
    kube_reserved: dict[str, Quantity] = field(default_factory=dict)
    enforce_node_allocatable: list[str] = field(default_factory=lambda: ["pods"])
    warnings: list[str] = field(default_factory=list)
    #: ``localStorageCapacityIsolation`` (the kubelet's default: on): pods over their local-storage
    #: limits are evicted first (:func:`~kschedlab.kubelet.manager.local_storage_evictions`)
    local_storage_capacity_isolation: bool = True

    def with_filesystems(self, layout: str = LAYOUT_SINGLE) -> EvictionConfig:
        """The config once the kubelet knows the node's filesystems: containerfs thresholds
        set from nodefs or imagefs (:func:`~kschedlab.kubelet.thresholds.update_containerfs_thresholds`);
        a containerfs threshold written by the user lands in ``warnings``."""
        ts, err = update_containerfs_thresholds(self.thresholds, *layout_flags(layout))
        out = EvictionConfig(**{**self.__dict__, "thresholds": ts, "warnings": list(self.warnings)})
        if err:
            out.warnings.append(err)
        return out

    def thresholds_frame(self):
        """The thresholds as a ``pandas.DataFrame`` (signal, operator, value, grace, minReclaim, hard,
        active); a threshold without operator -- a containerfs copy of a nodefs / imagefs threshold
        that does not exist, appended as upstream does -- can never be met (``active`` False)."""
        import pandas as pd

        return pd.DataFrame([{**t.to_dict(), "value": str(t.value), "hard": t.hard,
                              "minReclaim": str(t.min_reclaim) if t.min_reclaim is not None else None,
                              "active": bool(t.operator)}
                             for t in self.thresholds])


def _err(cfg: KubeletConfiguration, field_name: str, key: str | None, message: str) -> ManifestError:
    src = cfg._source[0] if cfg._source else None
    return ManifestError(message, file=src, obj=_OBJ, path=format_path((field_name, key) if key else (field_name,)))


def parse_resource_list(values: Mapping[str, str] | None) -> dict[str, Quantity]:
    """``systemReserved`` / ``kubeReserved`` as quantities (upstream ``parseResourceList``):
    only cpu, memory, ephemeral-storage and pid may be reserved, never negative.

    >>> parse_resource_list({"memory": "1.5Gi"})["memory"].value()
    1610612736
    >>> parse_resource_list({"gpu": "1"})
    Traceback (most recent call last):
    ...
    ValueError: cannot reserve "gpu" resource
    """
    out: dict[str, Quantity] = {}
    for k, v in (values or {}).items():
        if k not in _RESERVABLE:
            raise ValueError(f'cannot reserve "{k}" resource')
        try:
            q = parse_quantity(v)
        except ValueError as e:
            raise ValueError(f'failed to parse quantity "{v}" for "{k}" resource: {e}') from None
        if q.sign() < 0:
            raise ValueError(f'resource quantity for "{k}" cannot be negative: {v}')
        out[k] = q
    return out


def eviction_config(cfg: KubeletConfiguration) -> EvictionConfig:
    """Parse the eviction settings of ``cfg`` as the kubelet does at start-up (defaults
    applied first, ``evictionHard`` merged or not per ``mergeDefaultEvictionSettings``).

    >>> ec = eviction_config(KubeletConfiguration())
    >>> [str(t) for t in ec.thresholds]
    ['memory.available<100Mi', 'nodefs.available<10%', 'nodefs.inodesFree<5%', 'imagefs.available<15%', 'imagefs.inodesFree<5%', 'allocatableMemory.available<100Mi']
    """
    cfg = cfg.with_defaults()
    hard = cfg.effective_eviction_hard()
    errors: list[ManifestError] = []
    for field_name, statements in (("evictionHard", hard), ("evictionSoft", cfg.eviction_soft)):
        for signal, val in (statements or {}).items():
            try:
                parse_threshold_statement(signal, val)
            except ValueError as e:
                errors.append(_err(cfg, field_name, signal, str(e)))
    for field_name, parse, statements in (("evictionSoftGracePeriod", parse_grace_periods, cfg.eviction_soft_grace_period),
                                          ("evictionMinimumReclaim", parse_minimum_reclaims, cfg.eviction_minimum_reclaim)):
        for signal, val in (statements or {}).items():
            try:
                parse({signal: val})
            except ThresholdConfigError as e:
                errors.append(_err(cfg, field_name, signal, e.message))
    reserved: dict[str, dict[str, Quantity]] = {}
    for field_name, values in (("systemReserved", cfg.system_reserved), ("kubeReserved", cfg.kube_reserved)):
        for k, v in (values or {}).items():
            try:
                reserved.setdefault(field_name, {}).update(parse_resource_list({k: v}))
            except ValueError as e:
                errors.append(_err(cfg, field_name, k, str(e)))
    period = DEFAULT_EVICTION_PRESSURE_TRANSITION_PERIOD
    try:
        transition = parse_duration(cfg.eviction_pressure_transition_period or period) or parse_duration(period)
    except ValueError as e:
        errors.append(_err(cfg, "evictionPressureTransitionPeriod", None, str(e)))
        transition = 0
    isolation = getattr(cfg, "localStorageCapacityIsolation", None)
    if isolation is not None and not isinstance(isolation, bool):
        errors.append(_err(cfg, "localStorageCapacityIsolation", None,
                           f"json: cannot unmarshal {json_value(isolation)} into Go struct field "
                           "KubeletConfiguration.localStorageCapacityIsolation of type bool"))
    if not errors:
        try:
            thresholds = parse_threshold_config(cfg.enforce_node_allocatable, hard, cfg.eviction_soft,
                                                cfg.eviction_soft_grace_period, cfg.eviction_minimum_reclaim)
            hard_only = parse_threshold_config([], hard)
        except ThresholdConfigError as e:
            errors.append(_err(cfg, e.field, e.key, e.message))
    if errors:
        raise ManifestError.combine(errors)
    return EvictionConfig(thresholds=thresholds, hard_thresholds=hard_only,
                          max_pod_grace_period_seconds=cfg.eviction_max_pod_grace_period or 0,
                          pressure_transition_period=transition,
                          system_reserved=reserved.get("systemReserved", {}),
                          kube_reserved=reserved.get("kubeReserved", {}),
                          enforce_node_allocatable=list(cfg.enforce_node_allocatable or []),
                          local_storage_capacity_isolation=isolation is not False)


def load_kubelet_config(paths) -> tuple[KubeletConfiguration, EvictionConfig]:
    """The one KubeletConfiguration among the manifests at ``paths``, and its parsed eviction
    settings; every error (YAML, fields, thresholds) as a ManifestError."""
    from kschedlab.api.loader import load

    configs = [o for o in load(paths) if isinstance(o, KubeletConfiguration)]
    if len(configs) != 1:
        raise ManifestError(f"expected one KubeletConfiguration, found {len(configs)}",
                            file=", ".join(map(str, paths)) if isinstance(paths, (list, tuple)) else str(paths))
    return configs[0], eviction_config(configs[0])


# ---------------------------------------------------------------------- flags

_MAP_FLAGS = {  # flag -> (field, separator)
    "--eviction-hard": ("eviction_hard", "<"),
    "--eviction-soft": ("eviction_soft", "<"),
    "--eviction-soft-grace-period": ("eviction_soft_grace_period", "="),
    "--eviction-minimum-reclaim": ("eviction_minimum_reclaim", "="),
    "--system-reserved": ("system_reserved", "=="),
    "--kube-reserved": ("kube_reserved", "=="),
}


def _parse_map_flag(flag: str, value: str, sep: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for s in value.split(","):
        if not s:
            continue
        if sep == "==":  # cliflag.ConfigurationMap: a key without "=" maps to ""
            k, _, v = s.partition("=")
            out[k.strip()] = v.strip()
            continue
        parts = s.split(sep, 1)
        if len(parts) != 2:
            raise ManifestError(f'invalid argument "{value}" for "{flag}" flag: malformed pair, expect string{sep}string',
                                obj="kubelet flags")
        out[parts[0].strip()] = parts[1].strip()
    return out


def kubelet_config_from_flags(args: str | Sequence[str]) -> KubeletConfiguration:
    """A KubeletConfiguration from kubelet command-line flags (the eviction and reservation ones).

    A map flag given several times adds to the map its first use started, as
    ``cliflag.MapStringString`` does; the defaults apply to what is not given.

    >>> cfg = kubelet_config_from_flags("--eviction-hard=memory.available<500Mi --system-reserved=memory=1.5Gi")
    >>> cfg.eviction_hard, cfg.system_reserved
    ({'memory.available': '500Mi'}, {'memory': '1.5Gi'})
    >>> kubelet_config_from_flags(["--eviction-hard=memory.available=500Mi"])
    Traceback (most recent call last):
    ...
    kschedlab.api.errors.ManifestError: kubelet flags: invalid argument "memory.available=500Mi" for "--eviction-hard" flag: malformed pair, expect string<string
    """
    argv = shlex.split(args) if isinstance(args, str) else list(args)
    values: dict[str, object] = {}
    i = 0
    while i < len(argv):
        arg = argv[i]
        name, eq, value = arg.partition("=")
        if not eq:
            if i + 1 >= len(argv):
                raise ManifestError(f"flag needs an argument: {name}", obj="kubelet flags")
            value = argv[i + 1]
            i += 1
        i += 1
        if name in _MAP_FLAGS:
            field_name, sep = _MAP_FLAGS[name]
            current = values.setdefault(field_name, {})
            current.update(_parse_map_flag(name, value, sep))  # type: ignore[union-attr]
        elif name == "--eviction-max-pod-grace-period":
            try:
                values["eviction_max_pod_grace_period"] = int(value)
            except ValueError:
                raise ManifestError(f'invalid argument "{value}" for "{name}" flag: strconv.ParseInt: '
                                    f'parsing "{value}": invalid syntax', obj="kubelet flags") from None
        elif name == "--eviction-pressure-transition-period":
            values["eviction_pressure_transition_period"] = value
        elif name == "--enforce-node-allocatable":
            values["enforce_node_allocatable"] = [v.strip() for v in value.split(",") if v.strip()]
        else:
            raise ManifestError(f"unknown flag: {name}", obj="kubelet flags")
    return KubeletConfiguration(**values)


# ----------------------------------------------------------- node allocatable


def hard_eviction_reservation(hard_thresholds: Iterable[Threshold], capacity: Mapping[str, Quantity]) -> dict[str, Quantity]:
    """What hard ``memory.available`` / ``nodefs.available`` thresholds hold back from
    allocatable memory / ephemeral storage (upstream ``hardEvictionReservation``)."""
    out: dict[str, Quantity] = {}
    for t in hard_thresholds:
        if t.operator != "LessThan":
            continue
        if t.signal == SIGNAL_MEMORY_AVAILABLE and "memory" in capacity:
            out["memory"] = get_threshold_quantity(t.value, capacity["memory"])
        elif t.signal == SIGNAL_NODEFS_AVAILABLE and "ephemeral-storage" in capacity:
            out["ephemeral-storage"] = get_threshold_quantity(t.value, capacity["ephemeral-storage"])
    return out


def node_allocatable(capacity: Mapping[str, Quantity | str | int], config: EvictionConfig) -> dict[str, Quantity]:
    """``capacity - kubeReserved - systemReserved - hard eviction threshold`` per resource,
    never below zero (the Node's ``status.allocatable`` the kubelet reports).

    >>> ec = eviction_config(kubelet_config_from_flags("--eviction-hard=memory.available<500Mi "
    ...                                                "--system-reserved=memory=1.5Gi"))
    >>> str(node_allocatable({"memory": "10Gi"}, ec)["memory"])
    '8204Mi'
    """
    cap = {k: v if isinstance(v, Quantity) else Quantity(v) for k, v in capacity.items()}
    evict = hard_eviction_reservation(config.hard_thresholds, cap)
    out: dict[str, Quantity] = {}
    for k, v in cap.items():
        reserved = Quantity.from_int(0, DECIMAL_SI)
        for part in (config.system_reserved, config.kube_reserved, evict):
            if k in part:
                reserved = reserved + part[k]
        value = v - reserved
        out[k] = value if value.sign() >= 0 else Quantity.from_int(0, v.format)
    return out


def eviction_grace_period(threshold: Threshold, pod, max_pod_grace_period_seconds: int) -> int:
    """Seconds a pod evicted for ``threshold`` gets to stop: the immediate grace period for a
    hard threshold; for a soft one ``evictionMaxPodGracePeriod``, or the pod's own
    ``terminationGracePeriodSeconds`` when smaller (the seed: "the lesser of the two");
    never ``terminationGracePeriodSeconds`` alone, and immediate when no maximum is set.

    >>> from kschedlab.api.core import Pod
    >>> soft = Threshold("memory.available", grace_period=90 * 10**9)
    >>> eviction_grace_period(soft, Pod(), 60), eviction_grace_period(soft, Pod(), 0)
    (30, 1)
    >>> eviction_grace_period(Threshold("memory.available"), Pod(), 60)
    1
    """
    if is_hard_eviction_threshold(threshold) or max_pod_grace_period_seconds <= 0:
        return IMMEDIATE_EVICTION_GRACE_PERIOD_SECONDS
    own = pod.spec.termination_grace_period_seconds
    own = DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS if own is None else own
    return max(min(max_pod_grace_period_seconds, own), IMMEDIATE_EVICTION_GRACE_PERIOD_SECONDS)

