"""``core/v1`` kinds: Pod, Node, Namespace, Service and their parts.

Every field of a Pod and a Node is typed, down to the leaves: a node's status
(:mod:`.node_status`), probes and lifecycle hooks (:mod:`.probe`), ``env`` (:mod:`.env`),
``securityContext`` (:mod:`.security_context`), volume sources (:mod:`.volume`), container
statuses and the DRA parts of a pod's status (:mod:`.container_status`), ``restartPolicyRules``,
ephemeral containers. A misspelt field at any depth is refused with its path, as the API
server's strict decoding refuses it; a wrong type too (``"3"`` is no integer).

>>> pod = Pod.model_validate({
...     "metadata": {"name": "web-0", "namespace": "default"},
...     "spec": {"containers": [{"name": "app", "resources": {"requests": {"cpu": "500m"}}}]},
... })
>>> pod.spec.containers[0].resources.requests["cpu"].milli_value()
500
>>> pod.qos_class()
'Burstable'
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field, field_validator

from ._base import IntOrString, K8sModel, Time, check_enum
from .container_status import (
    ContainerStatus,
    NodeAllocatableResourceClaimStatus,
    PodExtendedResourceClaimStatus,
)
from .env import EnvVar
from .meta import (
    Condition,
    KubeObject,
    LabelSelector,
    LabelSelectorRequirement,
    ObjectMeta,
    OwnerReference,
    label_selector_matches,
)
from .node_status import (
    AttachedVolume,
    NodeAddress,
    NodeConfigSource,
    NodeConfigStatus,
    NodeDaemonEndpoints,
    NodeFeatures,
    NodeRuntimeHandler,
    NodeSystemInfo,
)
from .probe import Lifecycle, Probe
from .quantity import Quantity
from .requirements import ResourceClaim, ResourceRequirements
from .security_context import PodSecurityContext, SecurityContext
from .volume import LocalObjectReference, Volume

__all__ = [
    # re-exported meta types
    "ObjectMeta",
    "OwnerReference",
    "LabelSelector",
    "LabelSelectorRequirement",
    "label_selector_matches",
    # core
    "ResourceList",
    "ResourceRequirements",
    "ContainerPort",
    "ConfigMapEnvSource",
    "SecretEnvSource",
    "EnvFromSource",
    "VolumeMount",
    "VolumeDevice",
    "ContainerResizePolicy",
    "ContainerRestartRuleOnExitCodes",
    "ContainerRestartRule",
    "Container",
    "EphemeralContainer",
    "PodOS",
    "PodDNSConfigOption",
    "PodDNSConfig",
    "HostAlias",
    "PodReadinessGate",
    "HostIP",
    "PodIP",
    "NodeSelectorRequirement",
    "NodeSelectorTerm",
    "NodeSelector",
    "PreferredSchedulingTerm",
    "NodeAffinity",
    "PodAffinityTerm",
    "WeightedPodAffinityTerm",
    "PodAffinity",
    "PodAntiAffinity",
    "Affinity",
    "Toleration",
    "Taint",
    "TopologySpreadConstraint",
    "PodSchedulingGate",
    "PodSchedulingGroup",
    "ResourceClaim",
    "PodResourceClaim",
    "PodResourceClaimStatus",
    "PodSpec",
    "PodCondition",
    "PodStatus",
    "PodTemplateSpec",
    "Pod",
    "NodeSpec",
    "NodeCondition",
    "ContainerImage",
    "NodeStatus",
    "Node",
    "NamespaceSpec",
    "NamespaceStatus",
    "NamespaceCondition",
    "Namespace",
    "ServicePort",
    "SessionAffinityConfig",
    "ClientIPConfig",
    "ServiceStatus",
    "LoadBalancerStatus",
    "LoadBalancerIngress",
    "PortStatus",
    "ServiceSpec",
    "Service",
    "TAINT_EFFECTS",
    "TOLERATION_OPERATORS",
    "NODE_SELECTOR_OPERATORS",
    "compute_pod_qos",
]

ResourceList = dict[str, Quantity]
"""``v1.ResourceList``: resource name -> quantity."""

TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
TOLERATION_OPERATORS = ("Equal", "Exists", "Gt", "Lt")
NODE_SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
PROTOCOLS = ("TCP", "UDP", "SCTP")
PREEMPTION_POLICIES = ("PreemptLowerPriority", "Never")
POD_PHASES = ("Pending", "Running", "Succeeded", "Failed", "Unknown")
QOS_CLASSES = ("Guaranteed", "Burstable", "BestEffort")


# ------------------------------------------------------------------ containers


class ContainerPort(K8sModel):
    """v1.ContainerPort; ``hostPort`` is what the NodePorts plugin checks."""

    name: str | None = None
    host_port: int | None = None
    container_port: int | None = None
    protocol: str | None = None
    host_ip: str | None = Field(default=None, alias="hostIP")


class ConfigMapEnvSource(K8sModel):
    """``envFrom[].configMapRef``."""

    name: str | None = None
    optional: bool | None = None


class SecretEnvSource(K8sModel):
    """``envFrom[].secretRef``."""

    name: str | None = None
    optional: bool | None = None


class EnvFromSource(K8sModel):
    """``envFrom[]``: every key of a ConfigMap or Secret as environment variables."""

    prefix: str | None = None
    config_map_ref: ConfigMapEnvSource | None = None
    secret_ref: SecretEnvSource | None = None


class VolumeMount(K8sModel):
    """``volumeMounts[]``."""

    name: str | None = None
    read_only: bool | None = None
    recursive_read_only: str | None = None
    mount_path: str | None = None
    sub_path: str | None = None
    mount_propagation: str | None = None
    sub_path_expr: str | None = None
    bind_mount_options: list[str] = Field(default_factory=list)


class VolumeDevice(K8sModel):
    """``volumeDevices[]``: a raw block volume."""

    name: str | None = None
    device_path: str | None = None


class ContainerResizePolicy(K8sModel):
    """``resizePolicy[]``: whether resizing ``resourceName`` restarts the container."""

    resource_name: str | None = None
    restart_policy: str | None = None


class ContainerRestartRuleOnExitCodes(K8sModel):
    """``exitCodes`` of a restart rule: the exit codes ``In`` / ``NotIn`` ``values``."""

    operator: str | None = None
    values: list[int] = Field(default_factory=list)


class ContainerRestartRule(K8sModel):
    """``restartPolicyRules[]``: what to do (``action``) when the container exits as ``exitCodes`` says."""

    action: str | None = None
    exit_codes: ContainerRestartRuleOnExitCodes | None = None


class Container(K8sModel):
    """v1.Container. An init container with ``restartPolicy: Always`` is a sidecar."""

    name: str | None = None
    image: str | None = None
    command: list[str] = Field(default_factory=list)
    args: list[str] = Field(default_factory=list)
    working_dir: str | None = None
    ports: list[ContainerPort] = Field(default_factory=list)
    env_from: list[EnvFromSource] = Field(default_factory=list)
    env: list[EnvVar] = Field(default_factory=list)
    resources: ResourceRequirements = Field(default_factory=ResourceRequirements)
    resize_policy: list[ContainerResizePolicy] = Field(default_factory=list)
    restart_policy: str | None = None
    restart_policy_rules: list[ContainerRestartRule] = Field(default_factory=list)
    volume_mounts: list[VolumeMount] = Field(default_factory=list)
    volume_devices: list[VolumeDevice] = Field(default_factory=list)
    liveness_probe: Probe | None = None
    readiness_probe: Probe | None = None
    startup_probe: Probe | None = None
    lifecycle: Lifecycle | None = None
    termination_message_path: str | None = None
    termination_message_policy: str | None = None
    image_pull_policy: str | None = None
    security_context: SecurityContext | None = None
    stdin: bool | None = None
    stdin_once: bool | None = None
    tty: bool | None = None

    @property
    def is_restartable(self) -> bool:
        """True for ``restartPolicy: Always`` (a sidecar when used as init container).

        >>> Container(restart_policy="Always").is_restartable
        True
        """
        return self.restart_policy == "Always"


class EphemeralContainer(Container):
    """v1.EphemeralContainer: a debugging container added to a running pod; ``targetContainerName``
    names the container whose namespaces it joins."""

    target_container_name: str | None = None


# -------------------------------------------------------------- node affinity


class NodeSelectorRequirement(K8sModel):
    """v1.NodeSelectorRequirement (In, NotIn, Exists, DoesNotExist, Gt, Lt)."""

    key: str | None = None
    operator: str | None = None
    values: list[str] = Field(default_factory=list)


class NodeSelectorTerm(K8sModel):
    """ANDed label (``matchExpressions``) and field (``matchFields``) requirements."""

    match_expressions: list[NodeSelectorRequirement] = Field(default_factory=list)
    match_fields: list[NodeSelectorRequirement] = Field(default_factory=list)


class NodeSelector(K8sModel):
    """ORed node selector terms."""

    node_selector_terms: list[NodeSelectorTerm] = Field(default_factory=list)


class PreferredSchedulingTerm(K8sModel):
    """A weighted node selector term."""

    weight: int | None = None
    preference: NodeSelectorTerm = Field(default_factory=NodeSelectorTerm)


class NodeAffinity(K8sModel):
    """v1.NodeAffinity."""

    required_during_scheduling_ignored_during_execution: NodeSelector | None = None
    preferred_during_scheduling_ignored_during_execution: list[PreferredSchedulingTerm] = Field(
        default_factory=list
    )


# --------------------------------------------------------------- pod affinity


class PodAffinityTerm(K8sModel):
    """v1.PodAffinityTerm.

    ``label_selector``/``namespace_selector`` keep the nil-vs-empty distinction:
    None matches no pod / means "the pod's own namespace"; an empty selector
    matches all.
    """

    label_selector: LabelSelector | None = None
    namespaces: list[str] = Field(default_factory=list)
    topology_key: str | None = None
    namespace_selector: LabelSelector | None = None
    match_label_keys: list[str] = Field(default_factory=list)
    mismatch_label_keys: list[str] = Field(default_factory=list)


class WeightedPodAffinityTerm(K8sModel):
    """A weighted pod affinity term."""

    weight: int | None = None
    pod_affinity_term: PodAffinityTerm = Field(default_factory=PodAffinityTerm)


class PodAffinity(K8sModel):
    """v1.PodAffinity."""

    required_during_scheduling_ignored_during_execution: list[PodAffinityTerm] = Field(
        default_factory=list
    )
    preferred_during_scheduling_ignored_during_execution: list[WeightedPodAffinityTerm] = Field(
        default_factory=list
    )


class PodAntiAffinity(K8sModel):
    """v1.PodAntiAffinity."""

    required_during_scheduling_ignored_during_execution: list[PodAffinityTerm] = Field(
        default_factory=list
    )
    preferred_during_scheduling_ignored_during_execution: list[WeightedPodAffinityTerm] = Field(
        default_factory=list
    )


class Affinity(K8sModel):
    """v1.Affinity."""

    node_affinity: NodeAffinity | None = None
    pod_affinity: PodAffinity | None = None
    pod_anti_affinity: PodAntiAffinity | None = None


# ---------------------------------------------------------- taints & friends


class Toleration(K8sModel):
    """v1.Toleration. Empty operator means Equal; empty effect means all effects."""

    key: str | None = None
    operator: str | None = None
    value: str | None = None
    effect: str | None = None
    toleration_seconds: int | None = None


class Taint(K8sModel):
    """v1.Taint."""

    key: str | None = None
    value: str | None = None
    effect: str | None = None
    time_added: Time | None = None

    def __str__(self) -> str:
        # the form the scheduler prints: key=value:Effect
        v = f"={self.value}" if self.value else ""
        return f"{self.key or ''}{v}:{self.effect or ''}"


class TopologySpreadConstraint(K8sModel):
    """v1.TopologySpreadConstraint."""

    max_skew: int | None = None
    topology_key: str | None = None
    when_unsatisfiable: str | None = None
    label_selector: LabelSelector | None = None
    min_domains: int | None = None
    node_affinity_policy: str | None = None
    node_taints_policy: str | None = None
    match_label_keys: list[str] = Field(default_factory=list)


class PodSchedulingGate(K8sModel):
    """A scheduling gate: the pod is not scheduled while any remain."""

    name: str | None = None


class PodSchedulingGroup(K8sModel):
    """Which PodGroup a pod belongs to (``spec.schedulingGroup``, GenericWorkload)."""

    pod_group_name: str | None = None


class PodResourceClaim(K8sModel):
    """``spec.resourceClaims[]``: a DRA claim by name, or a template to create one from.

    >>> PodResourceClaim.model_validate({"name": "gpu", "resourceClaimTemplateName": "gpu-t"}).resource_claim_template_name
    'gpu-t'
    """

    name: str | None = None
    resource_claim_name: str | None = None
    resource_claim_template_name: str | None = None


class PodResourceClaimStatus(K8sModel):
    """``status.resourceClaimStatuses[]``: the claim generated for a template-based pod claim."""

    name: str | None = None
    resource_claim_name: str | None = None


# ------------------------------------------------------------------------ pod


class PodOS(K8sModel):
    """``spec.os``: the operating system the pod's containers need (``linux`` / ``windows``)."""

    name: str | None = None


class PodDNSConfigOption(K8sModel):
    """One resolver option of ``dnsConfig.options``."""

    name: str | None = None
    value: str | None = None


class PodDNSConfig(K8sModel):
    """``spec.dnsConfig``."""

    nameservers: list[str] = Field(default_factory=list)
    searches: list[str] = Field(default_factory=list)
    options: list[PodDNSConfigOption] = Field(default_factory=list)


class HostAlias(K8sModel):
    """``spec.hostAliases[]``: an ``/etc/hosts`` entry."""

    ip: str | None = None
    hostnames: list[str] = Field(default_factory=list)


class PodReadinessGate(K8sModel):
    """``spec.readinessGates[]``: a pod condition the pod's readiness waits for."""

    condition_type: str | None = None


class PodSpec(K8sModel):
    """v1.PodSpec."""

    volumes: list[Volume] = Field(default_factory=list)
    init_containers: list[Container] = Field(default_factory=list)
    containers: list[Container] = Field(default_factory=list)
    ephemeral_containers: list[EphemeralContainer] = Field(default_factory=list)
    restart_policy: str | None = None
    termination_grace_period_seconds: int | None = None
    active_deadline_seconds: int | None = None
    dns_policy: str | None = None
    node_selector: dict[str, str] = Field(default_factory=dict)
    service_account_name: str | None = None
    service_account: str | None = None
    automount_service_account_token: bool | None = None
    node_name: str | None = None
    host_network: bool | None = None
    host_pid: bool | None = Field(default=None, alias="hostPID")
    host_ipc: bool | None = Field(default=None, alias="hostIPC")
    share_process_namespace: bool | None = None
    security_context: PodSecurityContext | None = None
    image_pull_secrets: list[LocalObjectReference] = Field(default_factory=list)
    hostname: str | None = None
    subdomain: str | None = None
    affinity: Affinity | None = None
    scheduler_name: str | None = None
    tolerations: list[Toleration] = Field(default_factory=list)
    host_aliases: list[HostAlias] = Field(default_factory=list)
    priority_class_name: str | None = None
    priority: int | None = None
    dns_config: PodDNSConfig | None = None
    readiness_gates: list[PodReadinessGate] = Field(default_factory=list)
    runtime_class_name: str | None = None
    enable_service_links: bool | None = None
    preemption_policy: str | None = None
    overhead: dict[str, Quantity] = Field(default_factory=dict)
    topology_spread_constraints: list[TopologySpreadConstraint] = Field(default_factory=list)
    set_hostname_as_fqdn: bool | None = Field(default=None, alias="setHostnameAsFQDN")
    os: PodOS | None = None
    host_users: bool | None = None
    scheduling_gates: list[PodSchedulingGate] = Field(default_factory=list)
    resource_claims: list[PodResourceClaim] = Field(default_factory=list)
    resources: ResourceRequirements | None = None
    hostname_override: str | None = None
    scheduling_group: PodSchedulingGroup | None = None


class PodCondition(K8sModel):
    """v1.PodCondition."""

    type: str | None = None
    observed_generation: int | None = None
    status: str | None = None
    last_probe_time: Time | None = None
    last_transition_time: Time | None = None
    reason: str | None = None
    message: str | None = None


class HostIP(K8sModel):
    """``status.hostIPs[]``."""

    ip: str | None = None


class PodIP(K8sModel):
    """``status.podIPs[]``."""

    ip: str | None = None


class PodStatus(K8sModel):
    """v1.PodStatus."""

    observed_generation: int | None = None
    phase: str | None = None
    conditions: list[PodCondition] = Field(default_factory=list)
    message: str | None = None
    reason: str | None = None
    nominated_node_name: str | None = None
    host_ip: str | None = Field(default=None, alias="hostIP")
    host_ips: list[HostIP] = Field(default_factory=list, alias="hostIPs")
    pod_ip: str | None = Field(default=None, alias="podIP")
    pod_ips: list[PodIP] = Field(default_factory=list, alias="podIPs")
    start_time: Time | None = None
    init_container_statuses: list[ContainerStatus] = Field(default_factory=list)
    container_statuses: list[ContainerStatus] = Field(default_factory=list)
    qos_class: str | None = None
    ephemeral_container_statuses: list[ContainerStatus] = Field(default_factory=list)
    resize: str | None = None
    resource_claim_statuses: list[PodResourceClaimStatus] = Field(default_factory=list)
    extended_resource_claim_status: PodExtendedResourceClaimStatus | None = None
    allocated_resources: dict[str, Quantity] = Field(default_factory=dict)
    resources: ResourceRequirements | None = None
    node_allocatable_resource_claim_statuses: list[NodeAllocatableResourceClaimStatus] = Field(default_factory=list)

    @field_validator("phase")
    @classmethod
    def _check_phase(cls, v: str | None) -> str | None:
        return check_enum(v, POD_PHASES)

    @field_validator("qos_class")
    @classmethod
    def _check_qos(cls, v: str | None) -> str | None:
        return check_enum(v, QOS_CLASSES)


class PodTemplateSpec(K8sModel):
    """v1.PodTemplateSpec (the template of workload controllers)."""

    metadata: ObjectMeta = Field(default_factory=ObjectMeta)
    spec: PodSpec = Field(default_factory=PodSpec)


_QOS_RESOURCES = ("cpu", "memory")


def _resources_qos(res: ResourceRequirements) -> str:
    # one set of requests/limits: BestEffort, Guaranteed or Burstable
    if not res.requests and not res.limits:
        return "BestEffort"
    qos = ""
    zero = Quantity(0)
    for name in _QOS_RESOURCES:
        req = res.requests.get(name, zero)
        lim = res.limits.get(name, zero)
        if req != lim:
            return "Burstable"
        best_effort = req.is_zero() and lim.is_zero()
        if qos == "":
            qos = "BestEffort" if best_effort else "Guaranteed"
        elif best_effort != (qos == "BestEffort"):
            return "Burstable"
    return qos


def compute_pod_qos(spec: PodSpec) -> str:
    """QoS class from the pod spec (upstream ``ComputePodQOS``).

    Pod-level resources, when set, decide alone (PodLevelResources on);
    otherwise every init and regular container must agree.

    >>> compute_pod_qos(PodSpec(containers=[Container(resources={"requests": {"cpu": "1", "memory": "1Gi"},
    ...                                                          "limits": {"cpu": "1", "memory": "1Gi"}})]))
    'Guaranteed'
    """
    if spec.resources is not None:
        return _resources_qos(spec.resources)
    qos = ""
    for c in [*spec.init_containers, *spec.containers]:
        cq = _resources_qos(c.resources)
        if cq == "Burstable":
            return cq
        if qos == "":
            qos = cq
        elif qos != cq:
            return "Burstable"
    return qos or "BestEffort"


class Pod(KubeObject):
    """v1.Pod."""

    API_VERSION: ClassVar[str] = "v1"
    KIND: ClassVar[str] = "Pod"
    NAMESPACED: ClassVar[bool] = True

    spec: PodSpec = Field(default_factory=PodSpec)
    status: PodStatus = Field(default_factory=PodStatus)

    def qos_class(self) -> str:
        """``status.qosClass`` when set, else computed (upstream ``GetPodQOS``).

        >>> Pod().qos_class()
        'BestEffort'
        """
        if self.status.qos_class:
            return self.status.qos_class
        return compute_pod_qos(self.spec)

    def compute_qos_class(self) -> str:
        """The QoS class computed from the spec, ignoring ``status.qosClass``.

        >>> Pod(status={"qosClass": "Guaranteed"}).compute_qos_class()
        'BestEffort'
        """
        return compute_pod_qos(self.spec)


# ----------------------------------------------------------------------- node


class NodeSpec(K8sModel):
    """v1.NodeSpec."""

    pod_cidr: str | None = Field(default=None, alias="podCIDR")
    pod_cidrs: list[str] = Field(default_factory=list, alias="podCIDRs")
    provider_id: str | None = Field(default=None, alias="providerID")
    unschedulable: bool | None = None
    taints: list[Taint] = Field(default_factory=list)
    config_source: NodeConfigSource | None = None
    external_id: str | None = Field(default=None, alias="externalID")


class NodeCondition(K8sModel):
    """v1.NodeCondition."""

    type: str | None = None
    status: str | None = None
    last_heartbeat_time: Time | None = None
    last_transition_time: Time | None = None
    reason: str | None = None
    message: str | None = None


class ContainerImage(K8sModel):
    """An image present on a node (ImageLocality reads these)."""

    names: list[str] = Field(default_factory=list)
    size_bytes: int | None = None


class NodeStatus(K8sModel):
    """v1.NodeStatus."""

    capacity: dict[str, Quantity] = Field(default_factory=dict)
    allocatable: dict[str, Quantity] = Field(default_factory=dict)
    phase: str | None = None
    conditions: list[NodeCondition] = Field(default_factory=list)
    addresses: list[NodeAddress] = Field(default_factory=list)
    daemon_endpoints: NodeDaemonEndpoints | None = None
    node_info: NodeSystemInfo | None = None
    images: list[ContainerImage] = Field(default_factory=list)
    volumes_in_use: list[str] = Field(default_factory=list)
    volumes_attached: list[AttachedVolume] = Field(default_factory=list)
    config: NodeConfigStatus | None = None
    runtime_handlers: list[NodeRuntimeHandler] = Field(default_factory=list)
    features: NodeFeatures | None = None
    declared_features: list[str] = Field(default_factory=list)


class Node(KubeObject):
    """v1.Node (cluster-scoped)."""

    API_VERSION: ClassVar[str] = "v1"
    KIND: ClassVar[str] = "Node"
    NAMESPACED: ClassVar[bool] = False

    spec: NodeSpec = Field(default_factory=NodeSpec)
    status: NodeStatus = Field(default_factory=NodeStatus)


# ------------------------------------------------------------------ namespace


class NamespaceSpec(K8sModel):
    """v1.NamespaceSpec."""

    finalizers: list[str] = Field(default_factory=list)


class NamespaceCondition(K8sModel):
    """v1.NamespaceCondition (what blocks a terminating namespace)."""

    type: str | None = None
    status: str | None = None
    last_transition_time: Time | None = None
    reason: str | None = None
    message: str | None = None


class NamespaceStatus(K8sModel):
    """v1.NamespaceStatus."""

    phase: str | None = None
    conditions: list[NamespaceCondition] = Field(default_factory=list)


class Namespace(KubeObject):
    """v1.Namespace (cluster-scoped); its labels feed namespaceSelector."""

    API_VERSION: ClassVar[str] = "v1"
    KIND: ClassVar[str] = "Namespace"
    NAMESPACED: ClassVar[bool] = False

    spec: NamespaceSpec = Field(default_factory=NamespaceSpec)
    status: NamespaceStatus = Field(default_factory=NamespaceStatus)


# -------------------------------------------------------------------- service


class ServicePort(K8sModel):
    """v1.ServicePort."""

    name: str | None = None
    protocol: str | None = None
    app_protocol: str | None = None
    port: int | None = None
    target_port: IntOrString | None = None
    node_port: int | None = None


class ClientIPConfig(K8sModel):
    """v1.ClientIPConfig: how long a client's session sticks (``timeoutSeconds``)."""

    timeout_seconds: int | None = None


class SessionAffinityConfig(K8sModel):
    """v1.SessionAffinityConfig."""

    client_ip: ClientIPConfig | None = Field(default=None, alias="clientIP")


class PortStatus(K8sModel):
    """v1.PortStatus of a load balancer's ingress point."""

    port: int | None = None
    protocol: str | None = None
    error: str | None = None


class LoadBalancerIngress(K8sModel):
    """v1.LoadBalancerIngress: an address of the load balancer."""

    ip: str | None = None
    hostname: str | None = None
    ip_mode: str | None = None
    ports: list[PortStatus] = Field(default_factory=list)


class LoadBalancerStatus(K8sModel):
    """v1.LoadBalancerStatus."""

    ingress: list[LoadBalancerIngress] = Field(default_factory=list)


class ServiceStatus(K8sModel):
    """v1.ServiceStatus."""

    load_balancer: LoadBalancerStatus | None = None
    conditions: list[Condition] = Field(default_factory=list)


class ServiceSpec(K8sModel):
    """v1.ServiceSpec; only ``selector`` matters to scheduling (default spreading)."""

    ports: list[ServicePort] = Field(default_factory=list)
    selector: dict[str, str] = Field(default_factory=dict)
    cluster_ip: str | None = Field(default=None, alias="clusterIP")
    cluster_ips: list[str] = Field(default_factory=list, alias="clusterIPs")
    type: str | None = None
    external_ips: list[str] = Field(default_factory=list, alias="externalIPs")
    session_affinity: str | None = None
    load_balancer_ip: str | None = Field(default=None, alias="loadBalancerIP")
    load_balancer_source_ranges: list[str] = Field(default_factory=list)
    external_name: str | None = None
    external_traffic_policy: str | None = None
    health_check_node_port: int | None = None
    publish_not_ready_addresses: bool | None = None
    session_affinity_config: SessionAffinityConfig | None = None
    ip_families: list[str] = Field(default_factory=list)
    ip_family_policy: str | None = None
    allocate_load_balancer_node_ports: bool | None = None
    load_balancer_class: str | None = None
    internal_traffic_policy: str | None = None
    traffic_distribution: str | None = None


class Service(KubeObject):
    """v1.Service."""

    API_VERSION: ClassVar[str] = "v1"
    KIND: ClassVar[str] = "Service"
    NAMESPACED: ClassVar[bool] = True

    spec: ServiceSpec = Field(default_factory=ServiceSpec)
    status: ServiceStatus | None = None


def normalize_image_name(name: str) -> str:
    """``normalizedImageName``: an image without a tag or digest gets ``:latest``.

    >>> normalize_image_name("nginx"), normalize_image_name("registry:5000/app@sha256:ab")
    ('nginx:latest', 'registry:5000/app@sha256:ab')
    """
    if name.rfind(":") <= name.rfind("/"):
        name += ":latest"
    return name
