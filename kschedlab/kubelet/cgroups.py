"""The pod-level cgroup the kubelet creates for a pod (upstream ``pkg/kubelet/cm``,
``ResourceConfigForPod`` in ``helpers_linux.go``).

Every pod gets a cgroup ``kubepods/<qos>/pod<uid>`` above its containers. The kubelet sizes
it from the pod's aggregated requests and limits, *with* ``spec.overhead`` added:

* ``cpu.shares`` from the CPU request: ``milliCPU * 1024 // 1000``, at least 2 and at most
  262144 (:func:`milli_cpu_to_shares`);
* ``cpu.cfs_quota_us`` from the CPU limit: ``milliCPU * period // 1000``, at least 1000 µs,
  with ``cpu.cfs_period_us`` = 100000 µs (:func:`milli_cpu_to_quota`); ``-1`` (no cap) when
  the kubelet runs with ``cpuCFSQuota: false``;
* ``memory.limit_in_bytes`` from the memory limit.

Which of them are set depends on the QoS class: Guaranteed pods get all three; Burstable
pods get shares, and the quota (or the memory limit) only when *every* container declares a
CPU (memory) limit; BestEffort pods get ``cpu.shares = 2`` and nothing else.

The overhead is added to the requests always, and to a limit only when the pod has that
limit (upstream ``PodLimits``: "overhead is added to non-zero limits"). The seed's pod
(containers 500m/100Mi and 1500m/100Mi, RuntimeClass overhead 250m/120Mi):

>>> from kschedlab.api.core import Pod
>>> pod = Pod.model_validate({"metadata": {"name": "test-pod"}, "spec": {
...     "overhead": {"cpu": "250m", "memory": "120Mi"},
...     "containers": [
...         {"name": "busybox-ctr", "resources": {"requests": {"cpu": "500m", "memory": "100Mi"},
...                                               "limits": {"cpu": "500m", "memory": "100Mi"}}},
...         {"name": "nginx-ctr", "resources": {"requests": {"cpu": "1500m", "memory": "100Mi"},
...                                             "limits": {"cpu": "1500m", "memory": "100Mi"}}}]}})
>>> cfg = resource_config_for_pod(pod)
>>> cfg.qos_class, cfg.cpu_shares, cfg.cpu_quota, cfg.cpu_period, cfg.memory
('Guaranteed', 2304, 225000, 100000, 335544320)
>>> cfg.files()
{'cpu.shares': '2304', 'cpu.cfs_quota_us': '225000', 'cpu.cfs_period_us': '100000', 'memory.limit_in_bytes': '335544320'}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from kschedlab.api.quantity import Quantity
from kschedlab.api.resources import CPU, MEMORY, aggregate_containers, pod_requests, resource_list

__all__ = [
    "MIN_SHARES",
    "MAX_SHARES",
    "SHARES_PER_CPU",
    "MILLI_CPU_TO_CPU",
    "QUOTA_PERIOD",
    "MIN_QUOTA_PERIOD",
    "MIN_MILLI_CPU_LIMIT",
    "CUSTOM_CPU_CFS_QUOTA_PERIOD",
    "CGROUP2_MEMORY_MIN",
    "PodCgroupConfig",
    "milli_cpu_to_shares",
    "milli_cpu_to_quota",
    "hugepage_limits",
    "pod_limits",
    "resource_config_for_pod",
]

#: kernel bounds of cpu.shares
MIN_SHARES = 2
MAX_SHARES = 262144
SHARES_PER_CPU = 1024
MILLI_CPU_TO_CPU = 1000
#: the default CFS period, 100 ms in microseconds
QUOTA_PERIOD = 100000
#: the smallest quota the kernel accepts, 1 ms in microseconds
MIN_QUOTA_PERIOD = 1000
#: MIN_QUOTA_PERIOD * MILLI_CPU_TO_CPU // QUOTA_PERIOD: smaller CPU limits get the 1 ms floor
MIN_MILLI_CPU_LIMIT = 10
#: the kubelet feature gate (Alpha, off by default) that lets ``cpuCFSQuotaPeriod`` change
#: the period used to compute the quota
CUSTOM_CPU_CFS_QUOTA_PERIOD = "CustomCPUCFSQuotaPeriod"
#: the cgroup v2 file MemoryQoS writes the memory request to
CGROUP2_MEMORY_MIN = "memory.min"

HUGEPAGES_PREFIX = "hugepages-"
_POD_LEVEL = frozenset({CPU, MEMORY})


def milli_cpu_to_shares(milli_cpu: int) -> int:
    """``cpu.shares`` for a CPU request in millicores (upstream ``MilliCPUToShares``).

    >>> [milli_cpu_to_shares(m) for m in (0, 1, 100, 250, 2250, 500000)]
    [2, 2, 102, 256, 2304, 262144]
    """
    if milli_cpu == 0:
        return MIN_SHARES
    shares = milli_cpu * SHARES_PER_CPU // MILLI_CPU_TO_CPU
    return max(MIN_SHARES, min(MAX_SHARES, shares))


def milli_cpu_to_quota(milli_cpu: int, period: int = QUOTA_PERIOD, *,
                       custom_period: bool = False) -> int:
    """``cpu.cfs_quota_us`` for a CPU limit in millicores (upstream ``MilliCPUToQuota``).

    0 millicores means no limit (quota 0). The quota is computed over ``period`` only when
    the CustomCPUCFSQuotaPeriod gate is on (``custom_period``); otherwise over 100000 µs,
    whatever period the kubelet configured.

    >>> milli_cpu_to_quota(2250), milli_cpu_to_quota(5), milli_cpu_to_quota(0)
    (225000, 1000, 0)
    >>> milli_cpu_to_quota(200, 5000), milli_cpu_to_quota(200, 5000, custom_period=True)
    (20000, 1000)
    """
    if milli_cpu == 0:
        return 0
    if not custom_period:
        period = QUOTA_PERIOD
    return max(MIN_QUOTA_PERIOD, milli_cpu * period // MILLI_CPU_TO_CPU)


def _page_size(name: str) -> int:
    try:
        return Quantity.parse(name[len(HUGEPAGES_PREFIX):]).value()
    except ValueError:
        return 0  # upstream ignores the parse error: the zero page size


def hugepage_limits(resources: Mapping[str, Any]) -> dict[int, int]:
    """Huge page limits by page size in bytes (upstream ``HugePageLimits``).

    ``resources`` maps resource names to Quantities or ints; names without the
    ``hugepages-`` prefix are ignored; sizes written differently add up.

    >>> hugepage_limits({"hugepages-2Mi": 128, "hugepages-2097152": 256, "hugepages-4Mi": 512, "4Mi": 1024})
    {2097152: 384, 4194304: 512}
    """
    out: dict[int, int] = {}
    for name, value in resources.items():
        if not name.startswith(HUGEPAGES_PREFIX):
            continue
        v = value.value() if isinstance(value, Quantity) else int(value)
        size = _page_size(name)
        out[size] = out.get(size, 0) + v
    return out




def _pod_level_set(pod) -> bool:
    res = pod.spec.resources
    if res is None:
        return False
    return any(k in _POD_LEVEL for k in (*res.requests, *res.limits))


def pod_limits(pod, *, pod_level_resources: bool = True, exclude_overhead: bool = False,
               container_fn: Callable[[dict[str, int]], None] | None = None) -> dict[str, int]:
    """The pod's aggregated limits in scheduler units (upstream ``PodLimits``).

    Regular containers and sidecars add up, each plain init container counts with the
    sidecars started before it, and the larger of the two wins; pod-level limits replace
    the aggregate for cpu and memory; ``spec.overhead`` is added to every limit the pod
    has (a resource without a limit stays unlimited). ``container_fn`` sees each
    container's limits as upstream's ``ContainerFn`` does.

    >>> from kschedlab.api.core import Pod
    >>> pod = Pod.model_validate({"spec": {"overhead": {"cpu": "250m", "memory": "120Mi"},
    ...     "containers": [{"resources": {"limits": {"cpu": "1"}}}]}})
    >>> pod_limits(pod)   # memory has no limit: the overhead does not create one
    {'cpu': 1250}
    """
    spec = pod.spec
    limits: dict[str, int] = aggregate_containers(spec, lambda c: resource_list(c.resources.limits), container_fn)
    if pod_level_resources and _pod_level_set(pod):
        for name, q in spec.resources.limits.items():
            if name in _POD_LEVEL:
                limits[name] = resource_list({name: q})[name]
    if not exclude_overhead and spec.overhead:
        for name, value in resource_list(spec.overhead).items():
            if limits.get(name, 0) != 0:
                limits[name] += value
    return limits


@dataclass(frozen=True)
class PodCgroupConfig:
    """What the kubelet writes into a pod's cgroup (upstream ``ResourceConfig``).

    ``None`` means the kubelet leaves that knob alone (the kernel default, i.e. unlimited).
    ``requests`` / ``limits`` are the aggregates the values came from (overhead included).
    """

    qos_class: str
    cpu_shares: int | None = None
    cpu_quota: int | None = None
    cpu_period: int | None = None
    memory: int | None = None
    hugepage_limit: dict[int, int] = field(default_factory=dict)
    unified: dict[str, str] = field(default_factory=dict)
    requests: dict[str, int] = field(default_factory=dict)
    limits: dict[str, int] = field(default_factory=dict)

    def files(self) -> dict[str, str]:
        """The cgroup v1 files and the values written to them (unset knobs left out).

        >>> PodCgroupConfig("BestEffort", cpu_shares=2).files()
        {'cpu.shares': '2'}
        """
        out: dict[str, str] = {}
        for name, value in (("cpu.shares", self.cpu_shares), ("cpu.cfs_quota_us", self.cpu_quota),
                            ("cpu.cfs_period_us", self.cpu_period), ("memory.limit_in_bytes", self.memory)):
            if value is not None:
                out[name] = str(value)
        for size, limit in sorted(self.hugepage_limit.items()):
            out[f"hugetlb.{_page_name(size)}.limit_in_bytes"] = str(limit)
        out.update(self.unified)
        return out


def _page_name(size: int) -> str:
    for unit, div in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if size >= div and size % div == 0:
            return f"{size // div}{unit}"
    return f"{size}B"


def resource_config_for_pod(pod, *, enforce_cpu_limits: bool = True, cpu_period: int = QUOTA_PERIOD,
                            enforce_memory_qos: bool = False,
                            feature_gates: Mapping[str, bool] | None = None) -> PodCgroupConfig:
    """The pod cgroup's settings (upstream ``ResourceConfigForPod``).

    ``enforce_cpu_limits`` is the kubelet's ``cpuCFSQuota`` (true by default; false writes
    quota -1), ``cpu_period`` its ``cpuCFSQuotaPeriod`` in microseconds (used for the quota
    only with the CustomCPUCFSQuotaPeriod gate), ``enforce_memory_qos`` the MemoryQoS gate
    (writes ``memory.min`` = the memory request). ``feature_gates`` may set
    ``PodLevelResources`` (on by default) and ``CustomCPUCFSQuotaPeriod`` (off).

    >>> from kschedlab.api.core import Pod
    >>> burstable = Pod.model_validate({"spec": {"containers": [
    ...     {"resources": {"requests": {"cpu": "100m", "memory": "100Mi"}, "limits": {"cpu": "200m"}}}]}})
    >>> cfg = resource_config_for_pod(burstable)
    >>> cfg.qos_class, cfg.cpu_shares, cfg.cpu_quota, cfg.memory   # no memory limit declared
    ('Burstable', 102, 20000, None)
    """
    gates = {"PodLevelResources": True, CUSTOM_CPU_CFS_QUOTA_PERIOD: False, **(feature_gates or {})}
    pod_level = bool(gates["PodLevelResources"])
    reqs = pod_requests(pod, pod_level_resources=pod_level)
    declared = {CPU: True, MEMORY: True}

    def note(res: dict[str, int]) -> None:
        for name in (CPU, MEMORY):
            if res.get(name, 0) == 0:
                declared[name] = False

    limits = pod_limits(pod, pod_level_resources=pod_level, container_fn=note)
    if pod_level and _pod_level_set(pod):
        for name in (CPU, MEMORY):
            q = pod.spec.resources.limits.get(name)
            if q is not None and not q.is_zero():
                declared[name] = True
    huge = hugepage_limits(reqs)
    cpu_requests = reqs.get(CPU, 0)
    cpu_limits = limits.get(CPU, 0)
    memory_limits = limits.get(MEMORY, 0)
    shares = milli_cpu_to_shares(cpu_requests)
    quota = milli_cpu_to_quota(cpu_limits, cpu_period, custom_period=bool(gates[CUSTOM_CPU_CFS_QUOTA_PERIOD]))
    if not enforce_cpu_limits:
        quota = -1
    qos = pod.qos_class()
    values: dict[str, Any] = {}
    if qos == "Guaranteed":
        values = {"cpu_shares": shares, "cpu_quota": quota, "cpu_period": cpu_period, "memory": memory_limits}
    elif qos == "Burstable":
        values = {"cpu_shares": shares}
        if declared[CPU]:
            values.update(cpu_quota=quota, cpu_period=cpu_period)
        if declared[MEMORY]:
            values["memory"] = memory_limits
    else:
        values = {"cpu_shares": MIN_SHARES}
    unified: dict[str, str] = {}
    if enforce_memory_qos and reqs.get(MEMORY, 0) > 0:
        unified[CGROUP2_MEMORY_MIN] = str(reqs[MEMORY])
    return PodCgroupConfig(qos_class=qos, hugepage_limit=huge, unified=unified, requests=reqs, limits=limits,
                           **values)
