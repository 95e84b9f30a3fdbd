"""Which resource names are which, as the API server's helpers (``pkg/apis/core/helper``)
tell them apart: native or extended, overcommittable, counted in whole units, standard for
containers.

>>> [is_extended_resource_name(n) for n in ("example.com/foo", "cpu", "kubernetes.io/x", "requests.a/b")]
[True, False, False, False]
>>> [is_overcommit_allowed(n) for n in ("cpu", "hugepages-2Mi", "example.com/foo")]
[True, False, False]
>>> is_integer_resource_name("example.com/foo"), is_integer_resource_name("memory")
(True, False)
"""

from __future__ import annotations

from .validation import qualified_name_errors

__all__ = ["is_native_resource", "is_hugepage_resource_name", "is_extended_resource_name",
           "is_overcommit_allowed", "is_integer_resource_name", "is_standard_resource_name",
           "is_standard_container_resource_name"]

#: ``core.ResourceDefaultNamespacePrefix``
DEFAULT_NAMESPACE_PREFIX = "kubernetes.io/"
#: ``core.DefaultResourceRequestsPrefix``
REQUESTS_PREFIX = "requests."
HUGEPAGES_PREFIX = "hugepages-"

_STANDARD_CONTAINER_RESOURCES = frozenset({"cpu", "memory", "ephemeral-storage"})
_STANDARD_RESOURCES = frozenset({
    "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory", "requests.ephemeral-storage",
    "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods", "resourcequotas", "services",
    "replicationcontrollers", "secrets", "configmaps", "persistentvolumeclaims", "storage",
    "requests.storage", "services.nodeports", "services.loadbalancers",
})
_INTEGER_RESOURCES = frozenset({
    "pods", "resourcequotas", "services", "replicationcontrollers", "secrets", "configmaps",
    "persistentvolumeclaims", "services.nodeports", "services.loadbalancers",
})


def is_native_resource(name: str) -> bool:
    """``IsNativeResource``: no domain, or one under ``kubernetes.io/``."""
    return "/" not in name or DEFAULT_NAMESPACE_PREFIX in name


def is_hugepage_resource_name(name: str) -> bool:
    """``IsHugePageResourceName``: ``hugepages-<size>``."""
    return name.startswith(HUGEPAGES_PREFIX)


def is_extended_resource_name(name: str) -> bool:
    """``IsExtendedResourceName``: not native, not ``requests.*``, and ``requests.<name>`` is a
    qualified name."""
    if is_native_resource(name) or name.startswith(REQUESTS_PREFIX):
        return False
    return not qualified_name_errors(REQUESTS_PREFIX + name)


def is_overcommit_allowed(name: str) -> bool:
    """``IsOvercommitAllowed``: a native resource other than huge pages (a request may be
    below its limit)."""
    return is_native_resource(name) and not is_hugepage_resource_name(name)


def is_integer_resource_name(name: str) -> bool:
    """``IsIntegerResourceName``: object counts and extended resources come in whole units."""
    return name in _INTEGER_RESOURCES or is_extended_resource_name(name)


def is_standard_resource_name(name: str) -> bool:
    """``IsStandardResourceName`` (with ``IsQuotaHugePageResourceName``)."""
    return (name in _STANDARD_RESOURCES or name.startswith(HUGEPAGES_PREFIX)
            or name.startswith(REQUESTS_PREFIX + HUGEPAGES_PREFIX))


def is_standard_container_resource_name(name: str) -> bool:
    """``IsStandardContainerResourceName``: cpu, memory, ephemeral-storage, huge pages."""
    return name in _STANDARD_CONTAINER_RESOURCES or is_hugepage_resource_name(name)
