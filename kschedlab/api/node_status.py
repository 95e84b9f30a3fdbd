"""The parts of ``v1.NodeStatus`` (and ``NodeSpec.configSource``) the kubelet reports: addresses,
the kubelet's endpoint, system info, runtime handlers, features, dynamic kubelet config and the
attached volumes. The scheduler reads none of them; they are typed so that a ``kubectl get nodes
-o yaml`` dump loads as it is and a misspelt field is refused with its path.

>>> info = NodeSystemInfo.model_validate({"kubeletVersion": "v1.37.0", "operatingSystem": "linux",
...                                       "swap": {"capacity": 0}})
>>> info.kubelet_version, info.swap.capacity
('v1.37.0', 0)
>>> NodeDaemonEndpoints.model_validate({"kubeletEndpoint": {"Port": 10250}}).kubelet_endpoint.port
10250
>>> from pydantic import ValidationError
>>> try:
...     NodeSystemInfo.model_validate({"kubeletVersiom": "v1.37.0"})
... except ValidationError as e:
...     print(e.errors()[0]["loc"], e.errors()[0]["type"])
('kubeletVersiom',) extra_forbidden
"""

from __future__ import annotations

from pydantic import Field

from ._base import K8sModel

__all__ = [
    "AttachedVolume",
    "ConfigMapNodeConfigSource",
    "DaemonEndpoint",
    "NodeAddress",
    "NodeConfigSource",
    "NodeConfigStatus",
    "NodeDaemonEndpoints",
    "NodeFeatures",
    "NodeRuntimeHandler",
    "NodeRuntimeHandlerFeatures",
    "NodeSwapStatus",
    "NodeSystemInfo",
]


class NodeAddress(K8sModel):
    """``status.addresses[]``: ``InternalIP``, ``ExternalIP``, ``Hostname`` ..."""

    type: str | None = None
    address: str | None = None


class DaemonEndpoint(K8sModel):
    """A port a node daemon listens on (the JSON name is ``Port``, capitalised)."""

    port: int | None = Field(default=None, alias="Port")


class NodeDaemonEndpoints(K8sModel):
    """``status.daemonEndpoints``."""

    kubelet_endpoint: DaemonEndpoint | None = None


class NodeSwapStatus(K8sModel):
    """``status.nodeInfo.swap``."""

    capacity: int | None = None


class NodeSystemInfo(K8sModel):
    """``status.nodeInfo``."""

    machine_id: str | None = Field(default=None, alias="machineID")
    system_uuid: str | None = Field(default=None, alias="systemUUID")
    boot_id: str | None = Field(default=None, alias="bootID")
    kernel_version: str | None = None
    os_image: str | None = None
    container_runtime_version: str | None = None
    kubelet_version: str | None = None
    kube_proxy_version: str | None = None
    operating_system: str | None = None
    architecture: str | None = None
    swap: NodeSwapStatus | None = None


class ConfigMapNodeConfigSource(K8sModel):
    """A ConfigMap holding a kubelet configuration (dynamic kubelet config, still in the API)."""

    namespace: str | None = None
    name: str | None = None
    uid: str | None = None
    resource_version: str | None = None
    kubelet_config_key: str | None = None


class NodeConfigSource(K8sModel):
    """``spec.configSource`` and the three sources in ``status.config``."""

    config_map: ConfigMapNodeConfigSource | None = None


class NodeConfigStatus(K8sModel):
    """``status.config``."""

    assigned: NodeConfigSource | None = None
    active: NodeConfigSource | None = None
    last_known_good: NodeConfigSource | None = None
    error: str | None = None


class NodeFeatures(K8sModel):
    """``status.features``."""

    supplemental_groups_policy: bool | None = None


class NodeRuntimeHandlerFeatures(K8sModel):
    """What one runtime handler supports."""

    recursive_read_only_mounts: bool | None = None
    user_namespaces: bool | None = None


class NodeRuntimeHandler(K8sModel):
    """``status.runtimeHandlers[]`` (the default handler has the empty name)."""

    name: str | None = None
    features: NodeRuntimeHandlerFeatures | None = None


class AttachedVolume(K8sModel):
    """``status.volumesAttached[]``."""

    name: str | None = None
    device_path: str | None = None
