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

__all__ = ["classify", "group_of", "UNUSED_BUILTIN_KINDS", "SkippedKindsWarning", "skipped_summary"]

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

    def __init__(self, message: str, skipped: list[tuple[str | None, str, str, str]]):
        super().__init__(message)
        self.skipped = skipped


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
