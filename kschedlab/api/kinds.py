"""Kinds of the Kubernetes API that kschedlab does not read, and how the loader treats them.

A cluster dump (``kubectl get ... -A -o yaml``) holds ConfigMaps, Secrets, Events,
RBAC objects, custom resources and more next to the nodes and pods. The loader
skips those (one summary warning, :class:`SkippedKindsWarning`), or refuses them
with ``strict=True``. A kind that does not exist in a Kubernetes API group (a typo
such as ``kind: Pdo``) or a kind kschedlab reads given with a version it does not
serve (``apps/v1beta1 Deployment``) is always an error.

>>> classify("v1", "ConfigMap"), classify("monitoring.coreos.com/v1", "ServiceMonitor"), classify("v1", "Pdo")
('unused', 'unused', 'unknown')
>>> classify("apps/v1", "Deployment")
'read'
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable

from .registry import model_for, registered_kinds

__all__ = ["classify", "group_of", "removed_version", "UNUSED_BUILTIN_KINDS", "REMOVED_VERSIONS",
           "SkippedKindsWarning", "skipped_summary"]

UNUSED_BUILTIN_KINDS: dict[str, frozenset[str]] = {
    group: frozenset(kinds.split())
    for group, kinds in {
        "": "Binding ComponentStatus ConfigMap Endpoints Event LimitRange "
            "PodTemplate ReplicationController ResourceQuota Secret ServiceAccount",
        "admissionregistration.k8s.io": "MutatingWebhookConfiguration ValidatingWebhookConfiguration "
                                        "ValidatingAdmissionPolicy ValidatingAdmissionPolicyBinding "
                                        "MutatingAdmissionPolicy MutatingAdmissionPolicyBinding",
        "apiextensions.k8s.io": "CustomResourceDefinition",
        "apiregistration.k8s.io": "APIService",
        "apps": "ControllerRevision",
        "authentication.k8s.io": "TokenReview SelfSubjectReview TokenRequest",
        "authorization.k8s.io": "SubjectAccessReview SelfSubjectAccessReview LocalSubjectAccessReview "
                                "SelfSubjectRulesReview",
        "autoscaling": "HorizontalPodAutoscaler Scale",
        "batch": "CronJob",
        "certificates.k8s.io": "CertificateSigningRequest ClusterTrustBundle PodCertificateRequest",
        "coordination.k8s.io": "Lease LeaseCandidate",
        "discovery.k8s.io": "EndpointSlice",
        "events.k8s.io": "Event",
        "flowcontrol.apiserver.k8s.io": "FlowSchema PriorityLevelConfiguration",
        "internal.apiserver.k8s.io": "StorageVersion",
        "networking.k8s.io": "Ingress IngressClass NetworkPolicy IPAddress ServiceCIDR",
        "node.k8s.io": "",
        "policy": "Eviction",
        "rbac.authorization.k8s.io": "Role RoleBinding ClusterRole ClusterRoleBinding",
        "resource.k8s.io": "DeviceClass ResourceClaim ResourceClaimTemplate ResourceSlice DeviceTaintRule",
        "scheduling.k8s.io": "",
        "storage.k8s.io": "VolumeAttributesClass",
        "storagemigration.k8s.io": "StorageVersionMigration",
    }.items()
}
"""API group -> kinds the v1.37 API server serves there that kschedlab does not read."""


def _removed(release: str, served: str, entries: str) -> dict[tuple[str, str], tuple[str, str]]:
    out = {}
    for entry in entries.split():
        api_version, kind = entry.rsplit("/", 1)
        out[(api_version, kind)] = (served, release)
    return out


REMOVED_VERSIONS: dict[tuple[str, str], tuple[str, str]] = {
    **_removed("v1.16", "apps/v1", "extensions/v1beta1/Deployment apps/v1beta1/Deployment apps/v1beta2/Deployment "
                                   "extensions/v1beta1/DaemonSet apps/v1beta2/DaemonSet extensions/v1beta1/ReplicaSet "
                                   "apps/v1beta2/ReplicaSet apps/v1beta1/StatefulSet apps/v1beta2/StatefulSet"),
    **_removed("v1.16", "networking.k8s.io/v1", "extensions/v1beta1/NetworkPolicy"),
    **_removed("v1.22", "networking.k8s.io/v1", "extensions/v1beta1/Ingress networking.k8s.io/v1beta1/Ingress "
                                                "networking.k8s.io/v1beta1/IngressClass"),
    **_removed("v1.22", "scheduling.k8s.io/v1", "scheduling.k8s.io/v1beta1/PriorityClass "
                                                "scheduling.k8s.io/v1alpha1/PriorityClass"),
    **_removed("v1.22", "storage.k8s.io/v1", "storage.k8s.io/v1beta1/StorageClass storage.k8s.io/v1beta1/CSIDriver "
                                             "storage.k8s.io/v1beta1/CSINode storage.k8s.io/v1beta1/VolumeAttachment"),
    **_removed("v1.22", "coordination.k8s.io/v1", "coordination.k8s.io/v1beta1/Lease"),
    **_removed("v1.25", "batch/v1", "batch/v1beta1/CronJob batch/v2alpha1/CronJob"),
    **_removed("v1.25", "policy/v1", "policy/v1beta1/PodDisruptionBudget"),
    **_removed("v1.25", "node.k8s.io/v1", "node.k8s.io/v1beta1/RuntimeClass node.k8s.io/v1alpha1/RuntimeClass"),
    **_removed("v1.25", "discovery.k8s.io/v1", "discovery.k8s.io/v1beta1/EndpointSlice"),
    **_removed("v1.25", "events.k8s.io/v1", "events.k8s.io/v1beta1/Event"),
    **_removed("v1.25", "autoscaling/v2", "autoscaling/v2beta1/HorizontalPodAutoscaler"),
    **_removed("v1.26", "autoscaling/v2", "autoscaling/v2beta2/HorizontalPodAutoscaler"),
    **_removed("v1.27", "storage.k8s.io/v1", "storage.k8s.io/v1beta1/CSIStorageCapacity"),
}
"""``(apiVersion, kind)`` of built-in APIs the v1.37 API server no longer serves -> (the version
it serves instead, the release that removed the old one), from the Kubernetes deprecated API
migration guide."""


def removed_version(api_version: str, kind: str) -> str | None:
    """kubectl's error for a kind given in an API version that was removed, naming the
    version served instead; None when the version is not a removed one.

    >>> removed_version("policy/v1beta1", "PodDisruptionBudget")
    'no matches for kind "PodDisruptionBudget" in version "policy/v1beta1": the API server serves it as apiVersion: policy/v1 (policy/v1beta1 was removed in Kubernetes v1.25)'
    >>> removed_version("policy/v1", "PodDisruptionBudget") is None
    True
    """
    removed = REMOVED_VERSIONS.get((api_version, kind))
    if removed is None:
        return None
    served, release = removed
    return (f'no matches for kind "{kind}" in version "{api_version}": the API server serves it as '
            f"apiVersion: {served} ({api_version} was removed in Kubernetes {release})")


def group_of(api_version: str) -> str:
    """The API group of an ``apiVersion`` ("" for the core group).

    >>> group_of("v1"), group_of("apps/v1")
    ('', 'apps')
    """
    return api_version.rsplit("/", 1)[0] if "/" in api_version else ""


def _known_groups() -> set[str]:
    return set(UNUSED_BUILTIN_KINDS) | {group_of(v) for v, _ in registered_kinds()}


def classify(api_version: str, kind: str) -> str:
    """``"read"`` (a registered model), ``"unused"`` (a real kind kschedlab does not
    read, or a kind of a group it does not know: a custom resource) or ``"unknown"``
    (no such kind in a known group, or a version of a read kind that is not served).

    >>> classify("apps/v1beta1", "Deployment"), classify("rbac.authorization.k8s.io/v1", "Role")
    ('unknown', 'unused')
    """
    if model_for(api_version, kind) is not None:
        return "read"
    group = group_of(api_version)
    if group not in _known_groups():
        return "unused"
    if kind in UNUSED_BUILTIN_KINDS.get(group, ()):
        return "unused"
    return "unknown"


class SkippedKindsWarning(UserWarning):
    """Objects of kinds the scheduler does not use were skipped while loading.

    ``skipped`` lists ``(file, object, apiVersion, kind)`` for each.
    """

    def __init__(self, message: str, skipped: list[tuple[str | None, str, str, str]] | None = None):
        super().__init__(message)  # (made from the message alone when copied by its args: no list)
        self.skipped = skipped if skipped is not None else []


def skipped_summary(skipped: Iterable[tuple[str | None, str, str, str]]) -> str:
    """The one-line summary of skipped objects, counted per kind.

    >>> skipped_summary([("a.yaml", "ConfigMap x", "v1", "ConfigMap"), ("a.yaml", "Event e", "v1", "Event"),
    ...                  ("a.yaml", "ConfigMap y", "v1", "ConfigMap")])
    'skipped 3 objects of kinds the scheduler does not use: ConfigMap (2), Event (1)'
    """
    counts = Counter(kind for _, _, _, kind in skipped)
    n = sum(counts.values())
    parts = ", ".join(f"{k} ({c})" for k, c in sorted(counts.items()))
    return f"skipped {n} object{'s' if n != 1 else ''} of kinds the scheduler does not use: {parts}"
