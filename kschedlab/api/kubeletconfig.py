"""``kubelet.config.k8s.io/v1beta1``: KubeletConfiguration, the kubelet's config file.

Only the fields node-pressure eviction and node allocatable read are typed
(``evictionHard``, ``evictionSoft``, ``evictionSoftGracePeriod``,
``evictionMaxPodGracePeriod``, ``evictionMinimumReclaim``,
``evictionPressureTransitionPeriod``, ``mergeDefaultEvictionSettings``,
``systemReserved``, ``kubeReserved``, ``enforceNodeAllocatable``); the other
v1beta1 fields are accepted as written so that a real config file loads, and a
field v1beta1 does not have is refused like any unknown field.

The threshold strings stay strings here: the kubelet parses them when it
starts (``kschedlab.kubelet.config``), which is where their errors come from.

Defaulting is upstream's, in two steps: :meth:`KubeletConfiguration.with_defaults`
is ``SetDefaults_KubeletConfiguration`` (v1beta1 defaults.go) and
:meth:`KubeletConfiguration.effective_eviction_hard` is what the kubelet does
when it loads the file (cmd/kubelet/app/server.go ``loadConfigFile``): an
``evictionHard`` that is not given gets every default hard threshold; one that
is given replaces them all -- the signals it leaves out have no hard threshold
(the docs say "set to 0") -- unless ``mergeDefaultEvictionSettings: true``, which
adds each default signal the map leaves out.

>>> cfg = KubeletConfiguration.model_validate({"apiVersion": "kubelet.config.k8s.io/v1beta1",
...     "kind": "KubeletConfiguration", "evictionHard": {"memory.available": "500Mi"}})
>>> cfg.effective_eviction_hard()
{'memory.available': '500Mi'}
>>> cfg.model_copy(update={"merge_default_eviction_settings": True}).effective_eviction_hard()
{'memory.available': '500Mi', 'nodefs.available': '10%', 'nodefs.inodesFree': '5%', 'imagefs.available': '15%', 'imagefs.inodesFree': '5%'}
>>> KubeletConfiguration().with_defaults().eviction_pressure_transition_period
'5m0s'
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field

from .meta import TypedObject

__all__ = [
    "KubeletConfiguration",
    "DEFAULT_EVICTION_HARD",
    "DEFAULT_ENFORCE_NODE_ALLOCATABLE",
    "DEFAULT_EVICTION_PRESSURE_TRANSITION_PERIOD",
    "NODE_ALLOCATABLE_ENFORCEMENT_KEY",
]

#: The kubelet's default hard eviction thresholds on Linux nodes, in upstream's order
#: (the seed's list: memory, nodefs, nodefs inodes, imagefs, imagefs inodes).
DEFAULT_EVICTION_HARD: dict[str, str] = {
    "memory.available": "100Mi",
    "nodefs.available": "10%",
    "nodefs.inodesFree": "5%",
    "imagefs.available": "15%",
    "imagefs.inodesFree": "5%",
}

#: ``enforceNodeAllocatable`` when not set.
DEFAULT_ENFORCE_NODE_ALLOCATABLE = ("pods",)
#: the key of ``enforceNodeAllocatable`` that also adds ``allocatableMemory.available``
#: thresholds (upstream ``kubetypes.NodeAllocatableEnforcementKey``).
NODE_ALLOCATABLE_ENFORCEMENT_KEY = "pods"
#: ``evictionPressureTransitionPeriod`` when not set (5 minutes).
DEFAULT_EVICTION_PRESSURE_TRANSITION_PERIOD = "5m0s"

# v1beta1 fields kschedlab does not interpret; accepted as written.
_OTHER_FIELDS = (
    "enableServer", "staticPodPath", "podLogsDir", "syncFrequency", "fileCheckFrequency",
    "httpCheckFrequency", "staticPodURL", "staticPodURLHeader", "address", "port", "readOnlyPort",
    "tlsCertFile", "tlsPrivateKeyFile", "tlsCipherSuites", "tlsMinVersion", "rotateCertificates",
    "serverTLSBootstrap", "authentication", "authorization", "registryPullQPS", "registryBurst",
    "imagePullCredentialsVerificationPolicy", "preloadedImagesVerificationAllowlist",
    "eventRecordQPS", "eventBurst", "enableDebuggingHandlers", "enableContentionProfiling",
    "healthzPort", "healthzBindAddress", "oomScoreAdj", "clusterDomain", "clusterDNS",
    "streamingConnectionIdleTimeout", "nodeStatusUpdateFrequency", "nodeStatusReportFrequency",
    "nodeLeaseDurationSeconds", "imageMinimumGCAge", "imageMaximumGCAge",
    "imageGCHighThresholdPercent", "imageGCLowThresholdPercent", "volumeStatsAggPeriod",
    "kubeletCgroups", "systemCgroups", "cgroupRoot", "cgroupsPerQOS", "cgroupDriver",
    "cpuManagerPolicy", "singleProcessOOMKill", "cpuManagerPolicyOptions", "cpuManagerReconcilePeriod",
    "memoryManagerPolicy", "topologyManagerPolicy", "topologyManagerScope",
    "topologyManagerPolicyOptions", "qosReserved", "runtimeRequestTimeout", "hairpinMode", "maxPods",
    "podCIDR", "podPidsLimit", "resolvConf", "runOnce", "cpuCFSQuota", "cpuCFSQuotaPeriod",
    "nodeStatusMaxImages", "maxOpenFiles", "contentType", "kubeAPIQPS", "kubeAPIBurst",
    "serializeImagePulls", "maxParallelImagePulls", "enableControllerAttachDetach",
    "protectKernelDefaults", "makeIPTablesUtilChains", "iptablesMasqueradeBit", "iptablesDropBit",
    "featureGates", "failSwapOn", "memorySwap", "containerLogMaxSize", "containerLogMaxFiles",
    "containerLogMaxWorkers", "containerLogMonitorInterval", "configMapAndSecretChangeDetectionStrategy",
    "systemReservedCgroup", "kubeReservedCgroup", "reservedSystemCPUs", "showHiddenMetricsForVersion",
    "allowedUnsafeSysctls", "volumePluginDir", "providerID", "kernelMemcgNotification", "logging",
    "enableSystemLogHandler", "enableSystemLogQuery", "shutdownGracePeriod",
    "shutdownGracePeriodCriticalPods", "shutdownGracePeriodByPodPriority", "crashLoopBackOff",
    "reservedMemory", "enableProfilingHandler", "enableDebugFlagsHandler", "seccompDefault",
    "memoryThrottlingFactor", "registerWithTaints", "registerNode", "tracing",
    "localStorageCapacityIsolation", "containerRuntimeEndpoint", "imageServiceEndpoint",
    "failCgroupV1", "userNamespaces", "podHousekeepingPeriod",
)


def _other_fields() -> dict[str, Any]:
    return {name: (Any, Field(default=None, alias=name)) for name in _OTHER_FIELDS}


class _KubeletConfigurationBase(TypedObject):
    """The eviction-related fields, typed."""

    eviction_hard: dict[str, str] | None = None
    eviction_soft: dict[str, str] | None = None
    eviction_soft_grace_period: dict[str, str] | None = None
    eviction_pressure_transition_period: str | None = None
    eviction_max_pod_grace_period: int | None = None
    eviction_minimum_reclaim: dict[str, str] | None = None
    merge_default_eviction_settings: bool | None = None
    system_reserved: dict[str, str] | None = None
    kube_reserved: dict[str, str] | None = None
    enforce_node_allocatable: list[str] | None = None


def _build_model() -> type[_KubeletConfigurationBase]:
    from pydantic import create_model

    return create_model(
        "KubeletConfiguration", __base__=_KubeletConfigurationBase, __module__=__name__, **_other_fields()
    )


class KubeletConfiguration(_build_model()):  # type: ignore[misc]
    """kubelet.config.k8s.io/v1beta1 KubeletConfiguration (no metadata)."""

    API_VERSION: ClassVar[str] = "kubelet.config.k8s.io/v1beta1"
    KIND: ClassVar[str] = "KubeletConfiguration"
    NAMESPACED: ClassVar[bool] = False

    def with_defaults(self) -> KubeletConfiguration:
        """A copy with the v1beta1 defaults of the eviction fields filled in.

        ``evictionHard`` (only when not given at all), ``evictionPressureTransitionPeriod``
        (5m), ``evictionMaxPodGracePeriod`` (0), ``mergeDefaultEvictionSettings``
        (false), ``enforceNodeAllocatable`` (``[pods]``); the other maps stay unset.

        >>> c = KubeletConfiguration(eviction_hard={}).with_defaults()
        >>> c.eviction_hard, c.merge_default_eviction_settings, c.enforce_node_allocatable
        ({}, False, ['pods'])
        """
        update: dict[str, Any] = {}
        if self.eviction_hard is None:
            update["eviction_hard"] = dict(DEFAULT_EVICTION_HARD)
        if not self.eviction_pressure_transition_period or self.eviction_pressure_transition_period in ("0", "0s"):
            update["eviction_pressure_transition_period"] = DEFAULT_EVICTION_PRESSURE_TRANSITION_PERIOD
        if self.eviction_max_pod_grace_period is None:
            update["eviction_max_pod_grace_period"] = 0
        if self.merge_default_eviction_settings is None:
            update["merge_default_eviction_settings"] = False
        if self.enforce_node_allocatable is None:
            update["enforce_node_allocatable"] = list(DEFAULT_ENFORCE_NODE_ALLOCATABLE)
        out = self.model_copy(update=update, deep=True)
        out._source = self._source
        return out

    def effective_eviction_hard(self) -> dict[str, str]:
        """The ``evictionHard`` map the kubelet parses (see the module docstring).

        >>> KubeletConfiguration().effective_eviction_hard()["imagefs.available"]
        '15%'
        >>> KubeletConfiguration(eviction_hard={}).effective_eviction_hard()
        {}
        >>> KubeletConfiguration(eviction_hard={"nodefs.available": "1Gi"},
        ...                      merge_default_eviction_settings=True).effective_eviction_hard()["nodefs.available"]
        '1Gi'
        """
        if self.eviction_hard is None:
            return dict(DEFAULT_EVICTION_HARD)
        out = dict(self.eviction_hard)
        if self.merge_default_eviction_settings:
            for signal, value in DEFAULT_EVICTION_HARD.items():
                out.setdefault(signal, value)
        return out
