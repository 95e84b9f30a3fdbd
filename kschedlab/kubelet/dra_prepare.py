"""Why a pod bound by ``spec.nodeName`` cannot start: its ResourceClaims, as the kubelet's DRA
manager checks them before it prepares a pod's resources (``PrepareResources``).

A pod that names its node skips kube-scheduler, and the scheduler is what allocates claims
and reserves them for the pod (DynamicResources). The kubelet refuses to start a pod whose
claim is missing, not allocated, or not reserved for it; the pod stays ``Pending`` on its
node. :func:`unprepared_claims` says which claim stops which such pod.

>>> from kschedlab.api.core import Pod
>>> from kschedlab.api.resource import ResourceClaim
>>> from kschedlab.cluster import Cluster
>>> pod = Pod.model_validate({"metadata": {"name": "p", "namespace": "default", "uid": "u"},
...     "spec": {"nodeName": "n1", "containers": [{"name": "c", "resources": {"claims": [{"name": "gpu"}]}}],
...              "resourceClaims": [{"name": "gpu", "resourceClaimName": "single-gpu"}]}})
>>> claim = ResourceClaim.model_validate({"metadata": {"name": "single-gpu", "namespace": "default"},
...     "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}}})
>>> unprepared_claims(Cluster([pod, claim]))
[('default/p', 'n1', 'ResourceClaim default/single-gpu is not allocated: spec.nodeName bypasses the scheduler, which allocates claims, so the kubelet cannot prepare it and the pod does not start')]
"""

from __future__ import annotations

from kschedlab.dra.manager import dra_manager, pod_claim_names

__all__ = ["unprepared_claims"]

_BYPASS = "spec.nodeName bypasses the scheduler, which allocates claims, so the kubelet cannot prepare it " \
          "and the pod does not start"


def _reason(pod, claim: dict | None, key: str) -> str | None:
    if claim is None:
        return f"ResourceClaim {key} does not exist: the kubelet cannot prepare it and the pod does not start"
    status = claim.get("status") or {}
    if not status.get("allocation"):
        return f"ResourceClaim {key} is not allocated: {_BYPASS}"
    reserved = status.get("reservedFor") or []
    if not any(r.get("name") == pod.metadata.name and (r.get("uid") or "") == (pod.metadata.uid or "")
               for r in reserved):
        return f"ResourceClaim {key} is not reserved for the pod: {_BYPASS}"
    return None


def unprepared_claims(cluster) -> list[tuple[str, str, str]]:
    """``(pod, node, why)`` for each pod bound by ``spec.nodeName`` (not by this run's
    scheduler) whose first unusable claim keeps the kubelet from starting it."""
    out = []
    manager = None
    for key, pod in cluster.pods.items():
        if not pod.spec.node_name or not pod.spec.resource_claims or pod.status.phase not in (None, "", "Pending"):
            continue
        manager = manager or dra_manager(cluster)
        ns = pod.metadata.namespace or ""
        names = list(pod_claim_names(pod))
        if len(names) < len(pod.spec.resource_claims):
            out.append((key, pod.spec.node_name, "a ResourceClaim from a template was not created for it yet: "
                                                 "the kubelet cannot prepare it and the pod does not start"))
            continue
        for name in names:
            why = _reason(pod, manager.get_claim(ns, name), f"{ns}/{name}")
            if why:
                out.append((key, pod.spec.node_name, why))
                break
    return out
