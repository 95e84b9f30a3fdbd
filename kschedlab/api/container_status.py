"""The kubelet's report on a pod's containers (``status.containerStatuses``,
``initContainerStatuses``, ``ephemeralContainerStatuses``), and the DRA parts of a pod's status
(``extendedResourceClaimStatus``, ``nodeAllocatableResourceClaimStatuses``), ``core/v1``.

Typed from the ``core/v1`` API of v1.36; ``nodeAllocatableResourceClaimStatuses`` (DRA node
allocatable resources, KEP-5517, v1.37) from the KEP's API section (``mapping`` and ``overhead``,
its first ``resources`` map tombstoned).

>>> cs = ContainerStatus.model_validate({"name": "app", "ready": True, "restartCount": 2,
...     "imageID": "docker.io/library/nginx@sha256:ab", "state": {"running": {"startedAt": "2026-01-02T03:04:05Z"}},
...     "lastState": {"terminated": {"exitCode": 137, "reason": "OOMKilled"}}})
>>> cs.restart_count, cs.last_state.terminated.reason, cs.state.running.started_at.year
(2, 'OOMKilled', 2026)
"""

from __future__ import annotations

from pydantic import Field

from ._base import K8sModel, Time
from .quantity import Quantity
from .requirements import ResourceRequirements

__all__ = [
    "ContainerStateWaiting",
    "ContainerStateRunning",
    "ContainerStateTerminated",
    "ContainerState",
    "VolumeMountStatus",
    "LinuxContainerUser",
    "ContainerUser",
    "ResourceHealth",
    "ResourceStatus",
    "ContainerStatus",
    "ContainerExtendedResourceRequest",
    "PodExtendedResourceClaimStatus",
    "NodeAllocatableMappedResources",
    "NodeAllocatableOverheadResources",
    "NodeAllocatableResourceClaimStatus",
]


class ContainerStateWaiting(K8sModel):
    """Not yet running: why (``ContainerCreating``, ``CrashLoopBackOff``, ``ImagePullBackOff`` ...)."""

    reason: str | None = None
    message: str | None = None


class ContainerStateRunning(K8sModel):
    """Running since ``startedAt``."""

    started_at: Time | None = None


class ContainerStateTerminated(K8sModel):
    """Ended: exit code or signal, reason (``Completed``, ``Error``, ``OOMKilled``), times."""

    exit_code: int | None = None
    signal: int | None = None
    reason: str | None = None
    message: str | None = None
    started_at: Time | None = None
    finished_at: Time | None = None
    container_id: str | None = Field(default=None, alias="containerID")


class ContainerState(K8sModel):
    """One of ``waiting``, ``running``, ``terminated`` (none set means waiting)."""

    waiting: ContainerStateWaiting | None = None
    running: ContainerStateRunning | None = None
    terminated: ContainerStateTerminated | None = None


class VolumeMountStatus(K8sModel):
    """A mounted volume as the runtime mounted it."""

    name: str | None = None
    mount_path: str | None = None
    read_only: bool | None = None
    recursive_read_only: str | None = None


class LinuxContainerUser(K8sModel):
    """The identity the container's first process runs with on Linux."""

    uid: int | None = None
    gid: int | None = None
    supplemental_groups: list[int] = Field(default_factory=list)


class ContainerUser(K8sModel):
    """``user``: the identity of the container's first process."""

    linux: LinuxContainerUser | None = None


class ResourceHealth(K8sModel):
    """The health of one device of an allocated resource (``Healthy``, ``Unhealthy``, ``Unknown``)."""

    resource_id: str | None = Field(default=None, alias="resourceID")
    health: str | None = None
    message: str | None = None


class ResourceStatus(K8sModel):
    """``allocatedResourcesStatus[]``: the devices behind one resource name or claim."""

    name: str | None = None
    resources: list[ResourceHealth] = Field(default_factory=list)


class ContainerStatus(K8sModel):
    """One container's status."""

    name: str | None = None
    state: ContainerState | None = None
    last_state: ContainerState | None = None
    ready: bool | None = None
    restart_count: int | None = None
    image: str | None = None
    image_id: str | None = Field(default=None, alias="imageID")
    container_id: str | None = Field(default=None, alias="containerID")
    started: bool | None = None
    allocated_resources: dict[str, Quantity] = Field(default_factory=dict)
    resources: ResourceRequirements | None = None
    volume_mounts: list[VolumeMountStatus] = Field(default_factory=list)
    user: ContainerUser | None = None
    allocated_resources_status: list[ResourceStatus] = Field(default_factory=list)
    stop_signal: str | None = None


class ContainerExtendedResourceRequest(K8sModel):
    """Which request of the special extended-resource claim serves a container's extended resource."""

    container_name: str | None = None
    resource_name: str | None = None
    request_name: str | None = None


class PodExtendedResourceClaimStatus(K8sModel):
    """``status.extendedResourceClaimStatus``: the claim made for extended resources backed by DRA."""

    request_mappings: list[ContainerExtendedResourceRequest] = Field(default_factory=list)
    resource_claim_name: str | None = None


class NodeAllocatableMappedResources(K8sModel):
    """A node allocatable resource a claim's devices map to (``cpu``, ``memory``, hugepages)."""

    name: str | None = None
    quantity: Quantity | None = None


class NodeAllocatableOverheadResources(K8sModel):
    """A node allocatable overhead a claim's devices bring, per pod and per referencing container."""

    name: str | None = None
    per_pod: Quantity | None = None
    per_container: Quantity | None = None


class NodeAllocatableResourceClaimStatus(K8sModel):
    """``status.nodeAllocatableResourceClaimStatuses[]``: node allocatable resources of one claim."""

    resource_claim_name: str | None = None
    containers: list[str] = Field(default_factory=list)
    mapping: list[NodeAllocatableMappedResources] = Field(default_factory=list)
    overhead: list[NodeAllocatableOverheadResources] = Field(default_factory=list)

