"""Node declared features (KEP-5328): what a node says its kubelet supports, and what a pod needs.

The kubelet lists, at start-up, the gated node features it supports in the Node's
``status.declaredFeatures`` (sorted names such as ``RestartAllContainersOnContainerExits``).
The scheduler infers from a pod's spec the features it needs and keeps it off nodes that do
not declare them. This module is the shared feature library that upstream keeps in
``staging/src/k8s.io/component-helpers/nodedeclaredfeatures``: a registry of features, each
knowing from which pod fields it is inferred (``InferForScheduling``), the bitmap
``FeatureSet`` built over the sorted registry, the merge-style mapping of a node's sorted list
(``TryMap``, which ignores names the registry does not know), and the validation the API server
applies to ``status.declaredFeatures``.

>>> from kschedlab.api.core import Pod
>>> pod = Pod.model_validate({"metadata": {"name": "p"}, "spec": {"containers": [
...     {"name": "c", "restartPolicyRules": [{"action": "RestartAllContainers",
...       "exitCodes": {"operator": "In", "values": [42]}}]}]}})
>>> reqs = DEFAULT_FRAMEWORK.infer_for_pod_scheduling(pod.spec, COMPONENT_VERSION)
>>> DEFAULT_FRAMEWORK.unmap(reqs)
['RestartAllContainersOnContainerExits']
>>> node_set = DEFAULT_FRAMEWORK.try_map(["ContainerUlimits", "NotInRegistry"])
>>> reqs.is_subset(node_set)
False
>>> DEFAULT_FRAMEWORK.unmap(node_set)
['ContainerUlimits']
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import total_ordering
from typing import Any, Callable, Iterable, Sequence

__all__ = [
    "COMPONENT_VERSION", "DEFAULT_FRAMEWORK", "FEATURES", "DeclaredFeature", "FeatureSet", "Framework",
    "Version", "validate_declared_features", "validate_feature_name",
]

_UPSTREAM = "staging/src/k8s.io/component-helpers/nodedeclaredfeatures/features/"


# ------------------------------------------------------------------ versions
@total_ordering
@dataclass(frozen=True)
class Version:
    """A semantic version (``util/version``): major.minor.patch with an optional pre-release.

    >>> Version.parse("1.37.0") > Version.parse("1.33.0")
    True
    >>> Version.parse("1.37.0-alpha.1") < Version.parse("1.37.0")
    True
    >>> str(Version.parse("v1.35.2"))
    '1.35.2'
    """

    major: int
    minor: int
    patch: int
    pre: tuple = ()

    @classmethod
    def parse(cls, text: str) -> "Version":
        """Parse ``[v]X.Y.Z[-pre][+build]``; a malformed string raises ValueError."""
        m = re.fullmatch(r"v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?", text.strip())
        if m is None:
            raise ValueError(f"could not parse {text!r} as version")
        pre = tuple(int(p) if p.isdigit() else p for p in m.group(4).split(".")) if m.group(4) else ()
        return cls(int(m.group(1)), int(m.group(2)), int(m.group(3)), pre)

    def _key(self):
        # a release sorts after its pre-releases; numeric identifiers before alphanumeric ones
        pre = tuple((0, p, "") if isinstance(p, int) else (1, 0, p) for p in self.pre)
        return (self.major, self.minor, self.patch, 0 if self.pre else 1, pre)

    def __lt__(self, other: "Version") -> bool:
        return self._key() < other._key()

    def __str__(self) -> str:
        core = f"{self.major}.{self.minor}.{self.patch}"
        return core + ("-" + ".".join(str(p) for p in self.pre) if self.pre else "")


#: the version kschedlab's scheduler reports (features whose maxVersion is below it are not required)
COMPONENT_VERSION = Version(1, 37, 0)


# ------------------------------------------------------------------ pod spec helpers
def _get(obj: Any, key: str, default: Any = None) -> Any:
    """A field of a model or of a raw dict (fields the models keep as plain JSON)."""
    if obj is None:
        return default
    if isinstance(obj, dict):
        return obj.get(key, default)
    snake = _SNAKE.get((type(obj), key))
    if snake is None:
        # the field whose JSON name is ``key`` (``downwardAPI`` is ``downward_api``), else by case
        snake = next((name for name, f in getattr(type(obj), "model_fields", {}).items() if f.alias == key),
                     re.sub(r"(?<!^)(?=[A-Z])", "_", key).lower())
        _SNAKE[(type(obj), key)] = snake
    return getattr(obj, snake, default)


#: (model class, camelCase field name) -> the model attribute (snake_case)
_SNAKE: dict[tuple[type, str], str] = {}


def _containers(spec, *, ephemeral: bool = True) -> tuple:
    """The pod's containers, init containers and (with ``ephemeral``) ephemeral containers, in that order."""
    if ephemeral:
        return (*spec.containers, *spec.init_containers, *spec.ephemeral_containers)
    return (*spec.containers, *spec.init_containers)


# The inference helpers below are plain loops that answer as soon as they know (they run for
# every pod scheduled).
def _restart_all_containers(spec) -> bool:
    for c in _containers(spec, ephemeral=False):
        for rule in c.restart_policy_rules or ():
            if _get(rule, "action") == "RestartAllContainers":
                return True
    return False


def _per_pod_pid_limit(spec) -> bool:
    return spec.resources is not None and "pid" in spec.resources.limits


def _container_ulimits(spec) -> bool:
    for c in _containers(spec):
        if _get(_get(c, "securityContext"), "ulimits") is not None:
            return True
    return False


def _user_namespaces_host_network(spec) -> bool:
    return bool(spec.host_network) and spec.host_users is False


def _cgroup_options(spec) -> bool:
    for c in _containers(spec, ephemeral=False):
        if _get(_get(_get(c, "securityContext"), "cgroupOptions"), "mountMode") is not None:
            return True
    return False


def _volume_bind_mount_options(spec) -> bool:
    for c in _containers(spec):
        for m in _get(c, "volumeMounts") or ():
            if _get(m, "bindMountOptions"):
                return True
    return False


def _projected_sources(spec) -> Iterable[Any]:
    for vol in spec.volumes:
        yield from (_get(_get(vol, "projected"), "sources") or [])


def _pod_certificate_mldsa(spec) -> bool:
    if not spec.volumes:
        return False
    return any(_get(_get(src, "podCertificate"), "keyType") in ("MLDSA44", "MLDSA65", "MLDSA87")
               for src in _projected_sources(spec))


def _downward_api_assigned_resources(spec) -> bool:
    if not spec.volumes:
        return False

    def uses(items) -> bool:
        return any(_get(_get(item, "resourceFieldRef"), "resource") == "assigned.cpuset" for item in items or [])

    return (any(uses(_get(_get(vol, "downwardAPI"), "items")) for vol in spec.volumes)
            or any(uses(_get(_get(src, "downwardAPI"), "items")) for src in _projected_sources(spec)))


def _never(spec) -> bool:
    return False


# ------------------------------------------------------------------ the registry
@dataclass(frozen=True)
class DeclaredFeature:
    """One registry entry: its name, when a pod needs it, the kubelet gate behind it.

    ``infer_for_scheduling(spec) -> bool`` is upstream's ``InferForScheduling``; ``max_version``
    (inclusive) ends its relevance: a scheduler newer than it no longer requires the feature.
    """

    name: str
    infer_for_scheduling: Callable[[Any], bool]
    #: the pod fields it is inferred from, in words (for tables and notebooks)
    pod_fields: str
    #: kubelet feature gates the node needs to declare it
    kubelet_gates: tuple[str, ...] = ()
    max_version: Version | None = None
    source: str = ""


#: the features of upstream's registry (``features.AllFeatures``) that kschedlab models, by name
FEATURES: tuple[DeclaredFeature, ...] = (
    DeclaredFeature("CgroupOptions", _cgroup_options,
                    "securityContext.cgroupOptions.mountMode of a container or init container",
                    ("CgroupOptions",), source=_UPSTREAM + "cgroupoptions/feature.go"),
    DeclaredFeature("ContainerUlimits", _container_ulimits,
                    "securityContext.ulimits of any container (init and ephemeral too)",
                    ("ContainerUlimits",), source=_UPSTREAM + "containerulimits/container_ulimits.go"),
    DeclaredFeature("DRANodeAllocatableResources", _never, "none (not a scheduling requirement)",
                    ("DRANodeAllocatableResources",), source=_UPSTREAM + "dranodeallocatableresources/feature.go"),
    DeclaredFeature("DRAOptionalNodeOperations", _never,
                    "none (the claim's allocation is only known at PreBind; DynamicResources filters)",
                    ("DRAOptionalNodeOperations",), source=_UPSTREAM + "draoptionalnodeoperations/feature.go"),
    DeclaredFeature("DownwardAPIAssignedResources", _downward_api_assigned_resources,
                    "a downwardAPI volume item (or projected one) with resourceFieldRef.resource assigned.cpuset",
                    ("DownwardAPIAssignedResources",),
                    source=_UPSTREAM + "downwardapiassignedresources/downward_api_assigned_resources.go"),
    DeclaredFeature("ExtendWebSocketsToKubelet", _never, "none (not a scheduling requirement)",
                    ("ExtendWebSocketsToKubelet",), source=_UPSTREAM + "extendwebsocketstokubelet/feature.go"),
    DeclaredFeature("GuaranteedQoSPodCPUResize", _never, "none at scheduling (required by CPU resizes of a Guaranteed pod)",
                    ("InPlacePodVerticalScalingExclusiveCPUs",),
                    source=_UPSTREAM + "inplacepodresize/guaranteed_cpu_resize.go"),
    DeclaredFeature("PerPodPIDLimit", _per_pod_pid_limit, "spec.resources.limits.pid (pod-level)",
                    ("PerPodPIDLimit",), source=_UPSTREAM + "perpodpidlimit/feature.go"),
    DeclaredFeature("PodCertificateMLDSA", _pod_certificate_mldsa,
                    "a projected podCertificate volume source with keyType MLDSA44, MLDSA65 or MLDSA87",
                    ("PodCertificateMLDSA",), source=_UPSTREAM + "podcertificatesmldsa/feature.go"),
    DeclaredFeature("RestartAllContainersOnContainerExits", _restart_all_containers,
                    "restartPolicyRules[].action RestartAllContainers on a container or init container",
                    ("RestartAllContainersOnContainerExits",),
                    source=_UPSTREAM + "restartallcontainers/restart_all_containers.go"),
    DeclaredFeature("UserNamespacesHostNetworkSupport", _user_namespaces_host_network,
                    "spec.hostNetwork: true together with spec.hostUsers: false",
                    ("UserNamespacesHostNetworkSupport",),
                    source=_UPSTREAM + "usernamespaceshostnetwork/user_namespaces_host_network.go"),
    DeclaredFeature("VolumeBindMountOptions", _volume_bind_mount_options,
                    "volumeMounts[].bindMountOptions of any container",
                    ("VolumeBindMountOptions",), source=_UPSTREAM + "volumebindmountoptions/feature.go"),
)


# ------------------------------------------------------------------ feature sets
@dataclass(frozen=True)
class FeatureSet:
    """A set of registry features as a bitmap of ``size`` bits (bit i: the i-th name in sorted order).

    >>> a, b = FeatureSet(0b011, 3), FeatureSet(0b111, 3)
    >>> a.is_subset(b), b.is_subset(a), a.is_empty(), len(b)
    (True, False, False, 3)
    """

    bits: int
    size: int

    def is_empty(self) -> bool:
        return self.bits == 0

    def __len__(self) -> int:
        return bin(self.bits).count("1")

    def is_subset(self, other: "FeatureSet") -> bool:
        """Every feature of this set is in ``other``; sets over registries of different sizes are an error."""
        if self.size != other.size:
            raise ValueError(f"feature set size mismatch: {self.size} != {other.size}")
        return self.bits & ~other.bits == 0


@dataclass
class Framework:
    """Upstream's ``nodedeclaredfeatures.Framework``: a registry sorted by name, and the mapper
    between names and :class:`FeatureSet` bits.

    >>> fw = Framework([f for f in FEATURES if f.name in ("PerPodPIDLimit", "ContainerUlimits")])
    >>> fw.names
    ['ContainerUlimits', 'PerPodPIDLimit']
    >>> fw.map_sorted(["PerPodPIDLimit"]).bits
    2
    """

    registry: Sequence[Any]
    names: list[str] = field(init=False)

    def __post_init__(self) -> None:
        self.registry = sorted(self.registry, key=lambda f: f.name)
        self.names = [f.name for f in self.registry]

    def new_feature_set(self) -> FeatureSet:
        return FeatureSet(0, len(self.names))

    def _map(self, sorted_names: Sequence[str], ignore_unknown: bool) -> FeatureSet:
        # a merge over two sorted lists, as upstream's mapSorted: an unsorted input may miss names
        bits, i, j = 0, 0, 0
        names = self.names
        while i < len(sorted_names) and j < len(names):
            if sorted_names[i] == names[j]:
                bits |= 1 << j
                i, j = i + 1, j + 1
            elif sorted_names[i] < names[j]:
                if not ignore_unknown:
                    raise ValueError(f"unknown feature {sorted_names[i]}")
                i += 1
            else:
                j += 1
        if not ignore_unknown and i < len(sorted_names):
            raise ValueError(f"unknown feature {sorted_names[i]}")
        return FeatureSet(bits, len(names))

    def map_sorted(self, sorted_names: Sequence[str]) -> FeatureSet:
        """``MapSorted``: the set of these (sorted) names; an unknown name raises ValueError."""
        return self._map(sorted_names, False)

    def try_map(self, sorted_names: Sequence[str]) -> FeatureSet:
        """``TryMap``: as :meth:`map_sorted`, ignoring names the registry does not know (a node's list)."""
        return self._map(sorted_names, True)

    def unmap(self, fs: FeatureSet) -> list[str]:
        """``Unmap``: the sorted names of the set's features."""
        if fs.size != len(self.names):
            raise ValueError(f"feature size mismatch! s.size={fs.size}; len(m.registeredFeatures)={len(self.names)}")
        return [n for i, n in enumerate(self.names) if fs.bits >> i & 1]

    def infer_for_pod_scheduling(self, spec, target_version: Version | None) -> FeatureSet:
        """``InferForPodScheduling``: the features the pod spec needs on its node when scheduled by a
        component of ``target_version``; a feature past its ``max_version`` is not required."""
        if target_version is None:
            raise ValueError("target version cannot be nil")
        bits = 0
        for i, feature in enumerate(self.registry):
            if feature.max_version is not None and target_version > feature.max_version:
                continue
            if feature.infer_for_scheduling(spec):
                bits |= 1 << i
        return FeatureSet(bits, len(self.names))

    def unsatisfied(self, reqs: FeatureSet, declared: Sequence[str]) -> list[str]:
        """``MatchNodeFeatureSet``'s diff: the required features a node declaring ``declared`` lacks."""
        node = self.try_map(declared)
        return self.unmap(FeatureSet(reqs.bits & ~node.bits, reqs.size))


#: the registry the scheduler and the API server use (upstream ``ndf.DefaultFramework``)
DEFAULT_FRAMEWORK = Framework(FEATURES)


# ------------------------------------------------------------------ API validation
_NAME = re.compile(r"^[A-Z][a-zA-Z0-9]*(/[a-zA-Z][a-zA-Z0-9]*)*$")
MAX_NAME_LENGTH = 253


def validate_feature_name(name: str) -> str | None:
    """The error message for an invalid declared feature name, or None.

    >>> validate_feature_name("MyFeature/mySubFeature") is None
    True
    >>> validate_feature_name("invalid-name")[:30]
    'invalid feature name "invalid-'
    """
    if len(name) > MAX_NAME_LENGTH:
        return f'invalid feature name "{name}": must be no more than {MAX_NAME_LENGTH} characters'
    if not _NAME.match(name):
        return (f'invalid feature name "{name}": must start with an UpperCamelCase segment, with subsequent '
                "segments separated by '/' (e.g., MyFeature or MyFeature/mySubFeature), and contain only "
                "alphanumeric characters and slashes")
    return None


def validate_declared_features(names: Sequence[str]) -> list[tuple[int, str]]:
    """Field errors of a node's ``status.declaredFeatures`` as ``(index, message)``: each name valid,
    the list sorted, no duplicates.

    >>> validate_declared_features(["B", "A", "A"])
    [(1, 'Invalid value: "A": list must be sorted alphabetically'), (2, 'Duplicate value: "A"')]
    """
    errors: list[tuple[int, str]] = []
    for i, name in enumerate(names):
        message = validate_feature_name(name)
        if message is not None:
            errors.append((i, f'Invalid value: "{name}": {message}'))
        if i + 1 < len(names):
            following = names[i + 1]
            if following == name:
                errors.append((i + 1, f'Duplicate value: "{following}"'))
            elif following < name:
                errors.append((i + 1, f'Invalid value: "{following}": list must be sorted alphabetically'))
    return errors
