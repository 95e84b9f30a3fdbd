"""The eviction manager's admission of new pods (``kschedlab.kubelet.manager.admit``,
upstream ``managerImpl.Admit``) beyond the ported ``TestAdmitUnderNodeConditions`` rows."""

from __future__ import annotations

from kschedlab.api.core import Pod
from kschedlab.kubelet.manager import admit


def _pod(name="p", resources=None, **spec) -> Pod:
    container = {"name": "c", **({"resources": resources} if resources else {})}
    return Pod.model_validate({"metadata": {"name": name}, "spec": {"containers": [container], **spec}})


def test_best_effort_tolerating_memory_pressure_is_admitted_under_memory_pressure_only():
    tolerating = _pod(tolerations=[{"key": "node.kubernetes.io/memory-pressure", "operator": "Exists",
                                    "effect": "NoSchedule"}])
    assert admit(["MemoryPressure"], tolerating).admit
    rejected = admit(["MemoryPressure", "DiskPressure"], tolerating)
    assert (rejected.admit, rejected.reason, rejected.message) == (
        False, "Evicted", "The node had condition: [MemoryPressure DiskPressure]. ")


def test_a_toleration_of_another_taint_does_not_help():
    other = _pod(tolerations=[{"key": "node.kubernetes.io/disk-pressure", "operator": "Exists",
                               "effect": "NoSchedule"}])
    assert not admit(["MemoryPressure"], other).admit


def test_critical_pods_are_admitted_under_any_pressure():
    critical = _pod(priority=2000000000)
    assert admit(["DiskPressure", "PIDPressure"], critical).admit
    static = Pod.model_validate({"metadata": {"name": "s", "annotations": {"kubernetes.io/config.source": "file"}},
                                 "spec": {"containers": [{"name": "c"}]}})
    assert admit(["DiskPressure"], static).admit


def test_pid_pressure_rejects_burstable_pods():
    burstable = _pod(resources={"requests": {"memory": "100Mi"}})
    assert admit(["MemoryPressure"], burstable).admit
    assert admit(["PIDPressure"], burstable).message == "The node had condition: [PIDPressure]. "
