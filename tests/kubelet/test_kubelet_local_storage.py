"""Local-storage limit eviction (``kschedlab.kubelet.manager.local_storage_evictions``, upstream
``localStorageEviction``): the checks, their messages and their place in a round."""

from __future__ import annotations

from kschedlab.api.core import Pod
from kschedlab.kubelet.config import EvictionConfig
from kschedlab.kubelet.manager import EvictionState, local_storage_evictions, synchronize
from kschedlab.kubelet.ranking import PodStatsIndex
from kschedlab.kubelet.thresholds import Threshold

GI = 2**30


def _pod(name, limits=None, priority=0, **spec) -> Pod:
    containers = [{"name": name, **({"resources": {"limits": limits}} if limits else {})}]
    return Pod.model_validate({"metadata": {"name": name, "uid": name},
                               "spec": {"containers": containers, "priority": priority, **spec}})


def _stats(name, rootfs=0, logs=0, **extra):
    return {"podRef": {"uid": name}, "containers": [{"name": name, "rootfs": {"usedBytes": rootfs},
                                                     "logs": {"usedBytes": logs}}], **extra}


def test_pod_usage_over_the_sum_of_container_limits():
    pod = _pod("p", {"ephemeral-storage": "1Gi"})
    index = PodStatsIndex([_stats("p", rootfs=GI // 2, **{"ephemeral-storage": {"usedBytes": 2 * GI}})])
    [eviction] = local_storage_evictions([pod], index, dedicated_image_fs=False)
    assert eviction.message == "Pod ephemeral local storage usage exceeds the total limit of containers 1Gi. "
    assert eviction.grace_period_seconds == 1


def test_logs_count_on_a_dedicated_imagefs_rootfs_does_not():
    pod = _pod("p", {"ephemeral-storage": "1Gi"})
    over_in_rootfs = PodStatsIndex([_stats("p", rootfs=2 * GI)])
    over_in_logs = PodStatsIndex([_stats("p", logs=2 * GI)])
    assert local_storage_evictions([pod], over_in_rootfs, dedicated_image_fs=True) == []
    assert len(local_storage_evictions([pod], over_in_logs, dedicated_image_fs=True)) == 1


def test_an_empty_dir_without_size_limit_or_in_memory_is_not_limited():
    unlimited = _pod("a", volumes=[{"name": "v", "emptyDir": {}}])
    index = PodStatsIndex([_stats("a", volume=[{"name": "v", "usedBytes": 5 * GI}])])
    assert local_storage_evictions([unlimited], index, dedicated_image_fs=False) == []


def test_critical_pods_are_kept():
    pod = _pod("p", {"ephemeral-storage": "1Gi"}, priority=2000000000)
    assert local_storage_evictions([pod], PodStatsIndex([_stats("p", rootfs=2 * GI)]), False) == []


def test_a_round_evicts_every_pod_over_its_limit_and_stops_there():
    pods = [_pod("a", {"ephemeral-storage": "1Gi"}), _pod("b", {"ephemeral-storage": "1Gi"}), _pod("c")]
    summary = {"node": {"fs": {"availableBytes": 100, "capacityBytes": 200}},
               "pods": [_stats("a", rootfs=2 * GI), _stats("b", logs=2 * GI), _stats("c", rootfs=9 * GI)]}
    config = EvictionConfig([Threshold.from_dict({"signal": "nodefs.available", "value": {"quantity": "1Gi"}})], [])
    _, result = synchronize(config, EvictionState(), summary, pods, 0.0, local_storage_capacity_isolation=True)
    assert [e.pod.metadata.name for e in result.local_storage] == ["a", "b"]
    assert result.evicted is None and result.node_conditions == ["DiskPressure"]
    _, without = synchronize(config, EvictionState(), summary, pods, 0.0)
    assert without.local_storage == [] and without.evicted == "c"
