"""VolumeBinding: a pod's PersistentVolumeClaims decide where it can run, and bind when it does.

* PreFilter: Skip for a pod without claims (``persistentVolumeClaim`` or generic ``ephemeral``
  volumes); a claim that is missing, lost, being deleted or (ephemeral) not the pod's makes the
  pod UnschedulableAndUnresolvable with upstream's message; so does a claim that binds
  ``Immediate`` and is not bound yet (``pod has unbound immediate PersistentVolumeClaims``).
* Filter, per node: a bound claim's volume must be reachable from the node (its node affinity);
  an unbound claim of a ``WaitForFirstConsumer`` class needs an Available volume the node reaches
  (the smallest that fits, as the PV controller would choose) or provisioning there (the class's
  ``allowedTopologies``, and the driver's CSIStorageCapacity when its CSIDriver says
  ``storageCapacity``). Reasons: ``node(s) had volume node affinity conflict``, ``node(s) didn't
  find available persistent volumes to bind``, ``node(s) did not have enough free storage``,
  ``node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)``.
* Score (StorageCapacityScoring, beta and on by default at v1.37): per storage class, the share
  of the capacity the pod's claims would use (static bindings: the chosen volumes' capacity;
  else the CSIStorageCapacity found for the node) through the ``shape`` function (default: 0%
  used scores 10, 100% used scores 0, times 10), averaged over the classes and rounded.
* Reserve assumes the choice, Unreserve forgets it, PreBindPreFlight answers Skip when no claim is
  left to bind (else Success: the scheduler writes ``nominatedNodeName`` first), PreBind writes it; the PV controller and
  external provisioner (:mod:`kschedlab.storage.pv_controller`) then bind the claims.  Without a
  clock they answer at once; in a simulation (:mod:`kschedlab.sim.storage`) PreBind waits on the
  virtual clock, the claims checked every second (:data:`BIND_POLL_SECONDS`), until all are bound
  or ``bindTimeoutSeconds`` passed (``binding volumes: context deadline exceeded``).

>>> from kschedlab.cluster import Cluster
>>> from kschedlab.api.loader import load_text
>>> from kschedlab.scheduler import Scheduler
>>> cluster = Cluster(load_text('''
... apiVersion: v1
... kind: Node
... metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
... status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}}
... ---
... apiVersion: v1
... kind: Node
... metadata: {name: n2, labels: {kubernetes.io/hostname: n2}}
... status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}}
... ---
... apiVersion: storage.k8s.io/v1
... kind: StorageClass
... metadata: {name: local}
... provisioner: kubernetes.io/no-provisioner
... volumeBindingMode: WaitForFirstConsumer
... ---
... apiVersion: v1
... kind: PersistentVolume
... metadata: {name: disk-on-n2}
... spec:
...   capacity: {storage: 100Gi}
...   accessModes: [ReadWriteOnce]
...   storageClassName: local
...   local: {path: /mnt/disk}
...   nodeAffinity: {required: {nodeSelectorTerms: [{matchExpressions: [
...     {key: kubernetes.io/hostname, operator: In, values: [n2]}]}]}}
... status: {phase: Available}
... ---
... apiVersion: v1
... kind: PersistentVolumeClaim
... metadata: {name: data, namespace: default}
... spec: {accessModes: [ReadWriteOnce], storageClassName: local, resources: {requests: {storage: 10Gi}}}
... ---
... apiVersion: v1
... kind: Pod
... metadata: {name: db, namespace: default}
... spec:
...   containers: [{name: c}]
...   volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]
... '''))
>>> result = Scheduler(cluster).schedule_one("default/db")
>>> result.node, cluster.get("PersistentVolumeClaim", "default/data").spec.volume_name
('n2', 'disk-on-n2')
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from kschedlab.framework.events import (
    CSI_DRIVER,
    CSI_NODE,
    CSI_STORAGE_CAPACITY,
    NODE,
    PERSISTENT_VOLUME,
    PERSISTENT_VOLUME_CLAIM,
    QUEUE,
    SKIP,
    STORAGE_CLASS,
    ActionType,
    ClusterEvent,
    HintError,
    QueueingHint,
    as_objects,
    pod_of,
)
from kschedlab.framework.interface import (
    MAX_NODE_SCORE,
    ArgsError,
    FieldError,
    Plugin,
    SignFragment,
    Verdicts,
    register,
)
from kschedlab.framework.signers import VOLUMES_SIGNER_NAME
from kschedlab.framework.status import Code, Status
from kschedlab.plugins.helper.shape_score import FunctionShapePoint, build_broken_linear_function
from kschedlab.plugins.helper.volumes import NotFound, claim_name_of, get_pvc, pod_claim_names, volume_is_for_pod
from kschedlab.plugins.node_resources_fit import MAX_CUSTOM_PRIORITY_SCORE, validate_shape
from kschedlab.plugins.volume_binder import BinderError, PodVolumeClaims, PodVolumes, VolumeBinder

NAME = "VolumeBinding"
ERR_REASON_IMMEDIATE = "pod has unbound immediate PersistentVolumeClaims"
DEFAULT_BIND_TIMEOUT_SECONDS = 600
MAX_UTILIZATION = 100
#: the default ``shape`` when StorageCapacityScoring is on (``SetDefaults_VolumeBindingArgs``)
DEFAULT_SHAPE = ((0, MAX_CUSTOM_PRIORITY_SCORE), (100, 0))
ANN_MIGRATED_PLUGINS = "storage.alpha.kubernetes.io/migrated-plugins"
#: volume sources the Volumes signer leaves out (made per pod, they never decide a node)
_SYNTHETIC_SOURCES = ("config_map", "secret", "downward_api", "projected", "empty_dir")


@dataclass
class VolumeBindingArgs:
    """``VolumeBindingArgs``: how long PreBind waits for the claims, and the scoring shape."""

    bind_timeout_seconds: int = DEFAULT_BIND_TIMEOUT_SECONDS
    shape: list[tuple[int, int]] | None = None


def validate_args(raw: dict | None, scoring: bool) -> VolumeBindingArgs:
    """``SetDefaults_VolumeBindingArgs`` then ``ValidateVolumeBindingArgsWithOptions``
    (``scoring``: the StorageCapacityScoring gate). A missing ``bindTimeoutSeconds`` is 600 and a
    missing ``shape`` the default one (gate on); an explicit empty ``shape`` is refused, as
    validation refuses it in the internal config.

    >>> validate_args({}, True).shape
    [(0, 10), (100, 0)]
    >>> try:
    ...     validate_args({"bindTimeoutSeconds": -1, "shape": [{"utilization": 0, "score": 11}]}, True)
    ... except ArgsError as e:
    ...     print(e)
    invalid args for plugin VolumeBinding: bindTimeoutSeconds: FieldValueInvalid: invalid BindTimeoutSeconds, \
should not be a negative value; shape[0].score: FieldValueInvalid: not in valid range [0, 10]
    """
    raw = dict(raw or {})
    raw.pop("apiVersion", None)
    raw.pop("kind", None)
    errors = [FieldError("FieldValueInvalid", k, "unknown field") for k in sorted(set(raw) - {"bindTimeoutSeconds",
                                                                                              "shape"})]
    timeout = raw.get("bindTimeoutSeconds")
    args = VolumeBindingArgs(DEFAULT_BIND_TIMEOUT_SECONDS if timeout is None else timeout)
    if not isinstance(args.bind_timeout_seconds, int) or isinstance(args.bind_timeout_seconds, bool):
        errors.append(FieldError("FieldValueInvalid", "bindTimeoutSeconds", "expected an integer"))
    elif args.bind_timeout_seconds < 0:
        errors.append(FieldError("FieldValueInvalid", "bindTimeoutSeconds",
                                 "invalid BindTimeoutSeconds, should not be a negative value"))
    shape = raw.get("shape")
    if scoring:
        args.shape = ([tuple(p) for p in DEFAULT_SHAPE] if shape is None else
                      [(int(p.get("utilization", 0)), int(p.get("score", 0))) for p in shape])
        errors += validate_shape(args.shape, "shape")
    elif shape is not None:
        errors.append(FieldError("FieldValueInvalid", "shape", "unsupported field"))
    if errors:
        raise ArgsError(NAME, errors)
    return args


def scaled_shape(shape: list[tuple[int, int]]) -> list[FunctionShapePoint]:
    """The args' shape as the scorer takes it: scores 0..10 scaled to 0..100 (as ``New`` does).

    >>> scaled_shape([(0, 10), (100, 0)])
    [FunctionShapePoint(utilization=0, score=100), FunctionShapePoint(utilization=100, score=0)]
    """
    return [FunctionShapePoint(u, s * (MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE)) for u, s in shape]


def build_scorer(shape: list[FunctionShapePoint]):
    """``buildScorerFunction``: a node's score from ``{class: (requested, capacity)}`` bytes.

    >>> score = build_scorer(scaled_shape([(0, 0), (100, 10)]))
    >>> score({"fast": (50, 200)}), score({"a": (50, 100), "b": (100, 200)}), score({})
    (25, 50, 0)
    """
    f = build_broken_linear_function(shape)

    def class_score(requested: int, capacity: int) -> int:
        if capacity == 0 or requested > capacity:
            return int(f(MAX_UTILIZATION))
        return int(f(requested * MAX_UTILIZATION // capacity))

    def scorer(classes: dict[str, tuple[int, int]]) -> int:
        if not classes:
            return 0
        total = sum(class_score(r, c) for r, c in classes.values())
        n = len(classes)
        return (2 * total + n) // (2 * n)  # math.Round of total / n (scores are not negative)

    return scorer


@dataclass
class VolumeBindingState:
    """The cycle state: the pod's claims, what each feasible node needs, and Reserve's answer."""

    skip: bool = False
    claims: PodVolumeClaims | None = None
    by_node: dict[str, PodVolumes] = field(default_factory=dict)
    has_static_bindings: bool = False
    all_bound: bool = False
    #: when PreBind's wait for the claims to bind began (simulation clock)
    wait_started: float = 0.0


#: the cycle state of every pod without claims (never changed: the extension points read it only)
SKIP_STATE = VolumeBindingState(skip=True)


def volumes_signer(pod) -> list[dict]:
    """``VolumesSigner``: the pod's volumes but the synthetic ones (configMap, secret,
    downwardAPI, projected, emptyDir), as JSON."""
    return [v.model_dump(mode="json", by_alias=True, exclude_none=True) for v in pod.spec.volumes
            if all(getattr(v, s) is None for s in _SYNTHETIC_SOURCES)]


#: how often PreBind checks the claims while it waits (``wait.PollUntilContextTimeout``'s interval)
BIND_POLL_SECONDS = 1


@register
class VolumeBinding(Plugin):
    """The VolumeBinding plugin (see the module text)."""

    name = NAME

    @classmethod
    def parse_args(cls, raw, handle=None) -> VolumeBindingArgs:
        from kschedlab.features import FeatureGates

        gates = getattr(handle, "gates", None) or FeatureGates()
        return validate_args(raw, gates.enabled("StorageCapacityScoring"))

    def __init__(self, args=None, handle=None):
        from kschedlab.features import FeatureGates

        gates = getattr(handle, "gates", None) or FeatureGates()
        self.scoring = gates.enabled("StorageCapacityScoring")
        super().__init__(args or validate_args({}, self.scoring), handle)
        self.scorer = build_scorer(scaled_shape(self.args.shape)) if self.scoring and self.args.shape else None
        self._binder: VolumeBinder | None = None

    @property
    def binder(self) -> VolumeBinder:
        """The binder over the handle's cluster (made on first use, its assume caches kept)."""
        cluster = self.handle.cluster
        if self._binder is None or self._binder.cluster is not cluster:
            self._binder = VolumeBinder(cluster, self.args.bind_timeout_seconds)
        return self._binder

    def sign_pod(self, pod_info):
        """Signature: the pod's non-synthetic volumes."""
        return [SignFragment(VOLUMES_SIGNER_NAME, volumes_signer(pod_info.pod))], None

    # -- PreFilter -----------------------------------------------------------------------------------
    def _pod_has_pvcs(self, pod) -> bool:
        """``podHasPVCs``: whether the pod uses claims; raises ValueError with the reason a claim
        makes the pod unschedulable."""
        cluster = self.handle.cluster
        has = False
        for vol in pod.spec.volumes:
            name, ephemeral = claim_name_of(pod, vol)
            if name is None:
                continue
            has = True
            try:
                pvc = get_pvc(cluster, pod.metadata.namespace, name)
            except NotFound as err:
                if ephemeral:
                    raise ValueError('waiting for ephemeral volume controller to create the persistentvolumeclaim '
                                     f'"{name}"') from None
                raise ValueError(str(err)) from None
            if pvc.status.phase == "Lost":
                raise ValueError(f'persistentvolumeclaim "{pvc.name}" bound to non-existent persistentvolume '
                                 f'"{pvc.spec.volume_name or ""}"')
            if pvc.metadata.deletion_timestamp is not None:
                raise ValueError(f'persistentvolumeclaim "{pvc.name}" is being deleted')
            problem = volume_is_for_pod(pod, pvc) if ephemeral else None
            if problem:
                raise ValueError(problem)
        return has

    def pre_filter(self, state, pod_info, snapshot):
        pod = pod_info.pod
        if not pod.spec.volumes:
            state[NAME] = SKIP_STATE
            return None, Status.skip()
        try:
            if not self._pod_has_pvcs(pod):
                state[NAME] = SKIP_STATE
                return None, Status.skip()
        except ValueError as err:
            return None, Status.unresolvable(str(err))
        try:
            claims = self.binder.get_pod_volume_claims(pod)
        except BinderError as err:
            return None, Status.error(str(err))
        if claims.unbound_claims_immediate:
            return None, Status.unresolvable(ERR_REASON_IMMEDIATE)
        state[NAME] = VolumeBindingState(claims=claims)
        return None, Status()

    # -- Filter --------------------------------------------------------------------------------------
    def filter_nodes(self, state, pod_info, snapshot, rows: np.ndarray) -> Verdicts:
        s: VolumeBindingState | None = state.get(NAME)
        if s is None or s.skip:
            return Verdicts.passing(len(rows))
        return Verdicts.from_statuses(self._filter_row(s, pod_info.pod, snapshot, int(r)) for r in rows)

    def _filter_row(self, s: VolumeBindingState, pod, snapshot, row: int) -> Status:
        name = snapshot.names[row]
        node = self.handle.cluster.nodes.get(name)
        if node is None:
            return Status.error("node not found")
        try:
            volumes, reasons = self.binder.find_pod_volumes(pod, s.claims, node)
        except BinderError as err:
            return Status.error(str(err))
        if reasons:
            return Status.unresolvable(*reasons)
        s.by_node[name] = volumes
        s.has_static_bindings = s.has_static_bindings or bool(volumes.static_bindings)
        return Status()

    # -- PreScore / Score ------------------------------------------------------------------------------
    def pre_score(self, state, pod_info, snapshot, rows) -> Status:
        if self.scorer is None:
            return Status.skip()
        s: VolumeBindingState | None = state.get(NAME)
        if s is None:
            return Status.error(f'reading "{NAME}" from cycleState: not found')
        if s.has_static_bindings or self.scoring:
            return Status()
        return Status.skip()

    def score_nodes(self, state, pod_info, snapshot, rows: np.ndarray) -> np.ndarray:
        out = np.zeros(len(rows), np.int64)
        s: VolumeBindingState | None = state.get(NAME)
        if self.scorer is None or s is None or not s.by_node:
            return out
        for i, row in enumerate(rows):
            volumes = s.by_node.get(snapshot.names[int(row)])
            if volumes is not None:
                out[i] = self.scorer(self.class_resources(volumes))
        return out

    def class_resources(self, volumes: PodVolumes) -> dict[str, tuple[int, int]]:
        """Score's ``classResourceMap``: per storage class, (requested, capacity) bytes."""
        classes: dict[str, tuple[int, int]] = {}
        if volumes.static_bindings or not self.scoring:
            for b in volumes.static_bindings:
                requested, capacity = b.storage_resource()
                r, c = classes.get(b.storage_class_name(), (0, 0))
                classes[b.storage_class_name()] = (r + requested, c + capacity)
            return classes
        for p in volumes.dynamic_provisions:
            if p.node_capacity is None or p.node_capacity.capacity is None:
                continue
            name = p.pvc.spec.storage_class_name or ""
            r, _ = classes.get(name, (0, 0))
            classes[name] = (r + p.pvc.requested_storage(), p.node_capacity.capacity.value())
        return classes

    # -- Reserve / Unreserve / PreBind -----------------------------------------------------------------
    def reserve(self, state, pod_info, node_name: str) -> Status:
        s: VolumeBindingState | None = state.get(NAME)
        if s is None:
            return Status.error(f'reading "{NAME}" from cycleState: not found')
        if s.skip:  # no claim: nothing to assume (upstream finds no volumes for the node: all bound)
            return Status()
        volumes = s.by_node.get(node_name)
        if volumes is None:
            s.all_bound = True
            return Status()
        s.all_bound = self.binder.assume_pod_volumes(pod_info.pod, node_name, volumes)
        return Status()

    def unreserve(self, state, pod_info, node_name: str) -> None:
        s: VolumeBindingState | None = state.get(NAME)
        if s is None or node_name not in s.by_node:
            return
        self.binder.revert_assumed_pod_volumes(s.by_node[node_name])

    def pre_bind_pre_flight(self, state, pod_info, node_name: str) -> Status:
        """PreBindPreFlight: Skip when no claim of the pod is left to bind, Success when PreBind
        binds some on ``node_name``."""
        s: VolumeBindingState | None = state.get(NAME)
        if s is None:
            return Status.error(f'reading "{NAME}" from cycleState: not found')
        if s.skip or s.all_bound:
            return Status.skip()
        if node_name not in s.by_node:
            return Status.error(f'no pod volumes found for node "{node_name}"')
        return Status()

    def pre_bind(self, state, pod_info, node_name: str) -> Status:
        s: VolumeBindingState | None = state.get(NAME)
        if s is None:
            return Status.error(f'reading "{NAME}" from cycleState: not found')
        if s.skip or s.all_bound:
            return Status()
        volumes = s.by_node.get(node_name)
        if volumes is None:
            return Status.error(f'no pod volumes found for node "{node_name}"')
        extra = getattr(self.handle, "extra", None) or {}
        try:
            if not (extra.get("volume_binding_waits") and "clock" in extra):
                self.binder.bind_pod_volumes(pod_info.pod, node_name, volumes)
                return Status()
            # a simulation: the provisioners answer on its clock, PreBind polls (poll_pre_bind)
            self.binder.delayed_provisioners = frozenset(extra["volume_binding_waits"])
            node = self.binder.bind_api_update(node_name, volumes)
            if self.binder.check_bindings(node, volumes):
                return Status()
        except BinderError as err:
            return Status.error(str(err))
        s.wait_started = float(extra["clock"]())
        return Status(Code.Wait, (f"waiting for the volumes of the pod to be bound on node {node_name}",))

    def poll_pre_bind(self, state, pod_info, node_name: str) -> Status:
        """One poll of PreBind's wait on the simulation clock (``wait.PollUntilContextTimeout``
        every :data:`BIND_POLL_SECONDS`): all claims bound -> Success; one that never will be, or
        ``bindTimeoutSeconds`` after the wait began -> Error; else Wait."""
        s: VolumeBindingState = state.get(NAME)
        now = float(self.handle.extra["clock"]())
        node = self.handle.cluster.nodes.get(node_name)
        try:
            if node is None:
                raise BinderError(f'failed to get node "{node_name}": node "{node_name}" not found')
            if self.binder.check_bindings(node, s.by_node[node_name]):
                return Status()
        except BinderError as err:
            return Status.error(str(err))
        if now >= s.wait_started + self.args.bind_timeout_seconds:
            return Status.error("binding volumes: context deadline exceeded")
        return Status(Code.Wait, (f"waiting for the volumes of the pod to be bound on node {node_name}",))

    # -- EventsToRegister ------------------------------------------------------------------------------
    def events_to_register(self):
        """StorageClass added or updated (hint), a claim added or updated (hint), a PV added or
        updated, a node added or relabelled, CSINode added or updated (hint), CSIDriver updated
        (hint), CSIStorageCapacity added or updated (hint)."""
        return [
            (ClusterEvent(STORAGE_CLASS, ActionType.Add | ActionType.Update), after_storage_class_change),
            (ClusterEvent(PERSISTENT_VOLUME_CLAIM, ActionType.Add | ActionType.Update), after_claim_change),
            (ClusterEvent(PERSISTENT_VOLUME, ActionType.Add | ActionType.Update), None),
            (ClusterEvent(NODE, ActionType.Add | ActionType.UpdateNodeLabel), None),
            (ClusterEvent(CSI_NODE, ActionType.Add | ActionType.Update), after_csi_node_change),
            (ClusterEvent(CSI_DRIVER, ActionType.Update), after_csi_driver_change),
            (ClusterEvent(CSI_STORAGE_CAPACITY, ActionType.Add | ActionType.Update), after_capacity_change),
        ]


# -- QueueingHints: events that may make a pod this plugin rejected schedulable ------------------------
def after_csi_node_change(pod_info, old_obj, new_obj) -> QueueingHint:
    """``isSchedulableAfterCSINodeChange``: a new CSINode, or its migrated-plugins annotation changed."""
    if old_obj is None:
        return QUEUE
    original, modified = as_objects(old_obj, new_obj, "CSINode")
    if original.metadata.annotations.get(ANN_MIGRATED_PLUGINS) != modified.metadata.annotations.get(
            ANN_MIGRATED_PLUGINS):
        return QUEUE
    return SKIP


def after_claim_change(pod_info, old_obj, new_obj) -> QueueingHint:
    """``isSchedulableAfterPersistentVolumeClaimChange``: a claim the pod uses was added or updated."""
    _, claim = as_objects(old_obj, new_obj, "PersistentVolumeClaim")
    if claim is None:
        raise HintError("expected a new *v1.PersistentVolumeClaim")
    pod = pod_of(pod_info)
    if (pod.metadata.namespace or "") != claim.namespace:
        return SKIP
    return QUEUE if claim.name in pod_claim_names(pod) else SKIP


def after_storage_class_change(pod_info, old_obj, new_obj) -> QueueingHint:
    """``isSchedulableAfterStorageClassChange``: a new class, or its allowedTopologies changed."""
    original, modified = as_objects(old_obj, new_obj, "StorageClass")
    if original is None:
        return QUEUE
    if original.allowed_topologies != modified.allowed_topologies:
        return QUEUE
    return SKIP


def _volume_limit(cap):
    """``volumeLimit``: ``maximumVolumeSize`` when set, else ``capacity``."""
    return cap.maximum_volume_size if cap.maximum_volume_size is not None else cap.capacity


def after_capacity_change(pod_info, old_obj, new_obj) -> QueueingHint:
    """``isSchedulableAfterCSIStorageCapacityChange``: a new capacity, or its volume limit grew."""
    original, modified = as_objects(old_obj, new_obj, "CSIStorageCapacity")
    if original is None:
        return QUEUE
    old, new = _volume_limit(original), _volume_limit(modified)
    if new is not None and (old is None or new.value() > old.value()):
        return QUEUE
    return SKIP


def after_csi_driver_change(pod_info, old_obj, new_obj) -> QueueingHint:
    """``isSchedulableAfterCSIDriverChange``: a driver of the pod's inline CSI volumes stopped
    publishing storage capacity."""
    original, modified = as_objects(old_obj, new_obj, "CSIDriver")
    pod = pod_of(pod_info)
    for vol in pod.spec.volumes:
        if vol.csi is None or vol.csi.driver != modified.name:
            continue
        if original.spec.storage_capacity and not modified.spec.storage_capacity:
            return QUEUE
    return SKIP
