"""Conformance stages for what a pod's resources (overhead included) turn into: ``pod-requests``
(``PodRequests`` / ``PodLimits`` of ``k8s.io/component-helpers/resource``, the sums the scheduler
and the kubelet start from, sidecars included), ``kubelet-pod-cgroup`` (the kubelet's pod cgroup,
``pkg/kubelet/cm``) and ``quota-pod-usage`` / ``quota-pod-constraints`` (the pod quota evaluator,
``pkg/quota/v1/evaluator/core``).

==========================  =================================================================
stage / helper              input -> ``expected.other``
==========================  =================================================================
pod-requests                ``pod``, ``options {excludeOverhead, aggregateOnly}`` (``aggregateOnly``:
                            ``AggregateContainerRequests`` / ``...Limits``, no pod-level
                            resources and no overhead) -> ``requests``, ``limits`` (each the whole
                            ResourceList, quantities compared by value)
kubelet-pod-cgroup          ``pod``, ``kubelet {cpuCFSQuota, cpuCFSQuotaPeriod, memoryQoS}``,
                            ``featureGates`` -> any of ``cpuShares, cpuQuota, cpuPeriod,
                            memory`` (null = left unset, unlike 0), ``unified``
 MilliCPUToQuota            ``milliCPU, period`` -> ``quota``
 MilliCPUToShares           ``milliCPU`` -> ``shares``
 HugePageLimits             ``resources`` -> ``hugePageLimits {page size: bytes}`` (also
                            checked through the pod cgroup of a pod requesting them)
quota-pod-usage             ``pod``, ``now`` (RFC 3339), ``featureGates`` -> ``usage`` (quantities
                            compared by value, as ``quota.Equals``)
quota-pod-constraints       ``pod``, ``required``, ``featureGates`` -> ``error`` ("" = none)
==========================  =================================================================

>>> run_case({"id": "x", "stage": "kubelet-pod-cgroup", "helper": "MilliCPUToShares", "milliCPU": 100,
...           "expected": {"other": {"shares": 102}}})
[]
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Callable

from kschedlab.api.core import Pod
from kschedlab.api.quantity import Quantity
from kschedlab.api.resourcequota import pod_constraints, pod_usage
from kschedlab.api.resources import aggregate_containers, pod_requests, resource_list
from kschedlab.conformance.compare import run_stage
from kschedlab.kubelet.cgroups import (
    CUSTOM_CPU_CFS_QUOTA_PERIOD,
    QUOTA_PERIOD,
    hugepage_limits,
    milli_cpu_to_quota,
    milli_cpu_to_shares,
    pod_limits,
    resource_config_for_pod,
)

__all__ = ["STAGES", "run_case"]

_FIELDS = {"cpuShares": "cpu_shares", "cpuQuota": "cpu_quota", "cpuPeriod": "cpu_period", "memory": "memory"}


def _pod(case: dict) -> Pod:
    return Pod.model_validate(case["pod"])


def _stage_cgroup(case: dict, diffs: list[str]) -> None:
    want = case["expected"]["other"]
    gates = case.get("featureGates", {})
    helper = case.get("helper")
    if helper == "MilliCPUToQuota":
        got = milli_cpu_to_quota(case["milliCPU"], case["period"],
                                 custom_period=bool(gates.get(CUSTOM_CPU_CFS_QUOTA_PERIOD)))
        if got != want["quota"]:
            diffs.append(f"quota: got {got}, want {want['quota']}")
        return
    if helper == "MilliCPUToShares":
        got = milli_cpu_to_shares(case["milliCPU"])
        if got != want["shares"]:
            diffs.append(f"shares: got {got}, want {want['shares']}")
        return
    if helper == "HugePageLimits":
        resources = {k: Quantity(v) for k, v in case["resources"].items()}
        expected = {int(k): v for k, v in want["hugePageLimits"].items()}
        got = hugepage_limits(resources)
        if got != expected:
            diffs.append(f"hugePageLimits: got {got}, want {expected}")
        pod = Pod.model_validate({"spec": {"containers": [{"resources": {"requests": case["resources"]}}]}})
        via_pod = resource_config_for_pod(pod, enforce_cpu_limits=False, cpu_period=0).hugepage_limit
        if via_pod != expected:
            diffs.append(f"ResourceConfigForPod hugePageLimit: got {via_pod}, want {expected}")
        return
    if helper is not None:
        diffs.append(f"unknown helper {helper!r}")
        return
    kubelet = case.get("kubelet", {})
    cfg = resource_config_for_pod(_pod(case), enforce_cpu_limits=kubelet.get("cpuCFSQuota", True),
                                  cpu_period=kubelet.get("cpuCFSQuotaPeriod", QUOTA_PERIOD),
                                  enforce_memory_qos=kubelet.get("memoryQoS", False), feature_gates=gates)
    for key, attr in _FIELDS.items():
        if key in want and getattr(cfg, attr) != want[key]:
            diffs.append(f"{key}: got {getattr(cfg, attr)}, want {want[key]}")
    if "unified" in want and cfg.unified != want["unified"]:
        diffs.append(f"unified: got {cfg.unified}, want {want['unified']}")


def _stage_pod_requests(case: dict, diffs: list[str]) -> None:
    want = case["expected"]["other"]
    options = case.get("options") or {}
    pod = _pod(case)
    if options.get("aggregateOnly"):
        got = {"requests": aggregate_containers(pod.spec, lambda c: resource_list(c.resources.requests)),
               "limits": aggregate_containers(pod.spec, lambda c: resource_list(c.resources.limits))}
    else:
        exclude = bool(options.get("excludeOverhead"))
        got = {"requests": pod_requests(pod, exclude_overhead=exclude),
               "limits": pod_limits(pod, exclude_overhead=exclude)}
    for name in ("requests", "limits"):
        if name not in want:
            continue
        expected = resource_list({k: Quantity(v) for k, v in want[name].items()})
        if got[name] != expected:
            diffs.append(f"{name}: got {got[name]}, want {expected} ({want[name]})")


def _stage_usage(case: dict, diffs: list[str]) -> None:
    want = {k: Quantity(v) for k, v in case["expected"]["other"]["usage"].items()}
    now = datetime.fromisoformat(case["now"].replace("Z", "+00:00")) if case.get("now") else None
    gates = case.get("featureGates", {})
    got = pod_usage(_pod(case), now=now, pod_level_resources=gates.get("PodLevelResources", True))
    if got != want:
        diffs.append(f"usage: got { {k: str(v) for k, v in sorted(got.items())} }, "
                     f"want { {k: str(v) for k, v in sorted(want.items())} }")


def _stage_constraints(case: dict, diffs: list[str]) -> None:
    want = case["expected"]["other"].get("error", "")
    gates = case.get("featureGates", {})
    got = pod_constraints(case.get("required", []), _pod(case),
                          pod_level_resources=gates.get("PodLevelResources", True)) or ""
    if got != want:
        diffs.append(f"error: got {got!r}, want {want!r}")


STAGES: dict[str, Callable[[dict, list[str]], None]] = {
    "pod-requests": _stage_pod_requests,
    "kubelet-pod-cgroup": _stage_cgroup,
    "quota-pod-usage": _stage_usage,
    "quota-pod-constraints": _stage_constraints,
}


def run_case(case: dict[str, Any]) -> list[str]:
    """Run one case of these stages; the differences from ``expected`` (empty = pass)."""
    return run_stage(STAGES, case, "a pod-resources")
