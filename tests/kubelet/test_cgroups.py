"""The pod cgroup of the seed's kata-fc pod (section 3), as the kubelet sizes it: the numbers
of the seed exactly, admitted from the seed YAML as a user would."""

from __future__ import annotations

from pathlib import Path

from kschedlab.api.core import Pod
from kschedlab.api.loader import load
from kschedlab.apiserver.admission import admit
from kschedlab.kubelet.cgroups import pod_limits, resource_config_for_pod

SEED = Path(__file__).resolve().parents[2] / "datasets" / "seed" / "03-pod-overhead.yaml"


def _seed_pod() -> Pod:
    (pod,) = [o for o in admit(load(SEED)) if isinstance(o, Pod)]
    return pod


def test_seed_pod_cgroup_values():
    pod = _seed_pod()
    cfg = resource_config_for_pod(pod)
    assert cfg.qos_class == "Guaranteed"  # requests defaulted from the limits
    assert cfg.memory == 335544320 == 320 * 2**20  # memory.limit_in_bytes in the seed
    assert cfg.cpu_quota == 225000 and cfg.cpu_period == 100000  # 2250m of every 100 ms
    assert cfg.cpu_shares == 2250 * 1024 // 1000 == 2304
    assert cfg.files() == {"cpu.shares": "2304", "cpu.cfs_quota_us": "225000", "cpu.cfs_period_us": "100000",
                           "memory.limit_in_bytes": "335544320"}


def test_without_overhead_the_cgroup_is_the_containers_sum():
    pod = _seed_pod()
    pod.spec.overhead = {}
    cfg = resource_config_for_pod(pod)
    assert (cfg.cpu_shares, cfg.cpu_quota, cfg.memory) == (2048, 200000, 200 * 2**20)


def test_overhead_is_not_added_to_a_missing_limit():
    pod = Pod.model_validate({"spec": {"overhead": {"cpu": "250m", "memory": "120Mi"}, "containers": [
        {"resources": {"requests": {"cpu": "500m", "memory": "100Mi"}, "limits": {"cpu": "1"}}}]}})
    assert pod_limits(pod) == {"cpu": 1250}
    cfg = resource_config_for_pod(pod)
    assert cfg.qos_class == "Burstable"
    assert (cfg.cpu_shares, cfg.cpu_quota, cfg.memory) == (768, 125000, None)  # requests 750m


def test_cpu_cfs_quota_off_writes_minus_one():
    cfg = resource_config_for_pod(_seed_pod(), enforce_cpu_limits=False)
    assert cfg.cpu_quota == -1 and cfg.files()["cpu.cfs_quota_us"] == "-1"


def test_best_effort_pod_gets_minimum_shares_even_with_overhead():
    pod = Pod.model_validate({"spec": {"overhead": {"cpu": "250m"}, "containers": [{}]}})
    cfg = resource_config_for_pod(pod)
    assert cfg.qos_class == "BestEffort"
    assert cfg.files() == {"cpu.shares": "2"}
