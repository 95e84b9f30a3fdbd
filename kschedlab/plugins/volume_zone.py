"""VolumeZone: a pod's bound PersistentVolumes must be reachable from the node's zone and region
(upstream ``pkg/scheduler/framework/plugins/volumezone``).

PreFilter reads the zone and region labels of the PVs the pod's claims are bound to
(``failure-domain.beta.kubernetes.io/zone|region``, ``topology.kubernetes.io/zone|region``; a value
``a__b`` lists several zones). A claim not bound yet is fine when its class waits for the first
consumer (VolumeBinding picks the volume); otherwise, and for a missing claim, volume or class, the
pod is UnschedulableAndUnresolvable. Without any such label the plugin Skips. Filter passes a node
without zone or region labels (a single-zone cluster) and otherwise asks that every PV label's key
(or, for a beta key, its GA twin) is on the node with one of the PV's values.

>>> from kschedlab.api.loader import load_text
>>> from kschedlab.cluster import Cluster
>>> from kschedlab.scheduler import Scheduler
>>> cluster = Cluster(load_text('''
... apiVersion: v1
... kind: Node
... metadata: {name: east, labels: {topology.kubernetes.io/zone: east}}
... status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}}
... ---
... apiVersion: v1
... kind: PersistentVolume
... metadata: {name: pv-west, labels: {topology.kubernetes.io/zone: west}}
... spec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce], claimRef: {namespace: default, name: data},
...        csi: {driver: pd.csi.storage.gke.io, volumeHandle: d1}}
... ---
... apiVersion: v1
... kind: PersistentVolumeClaim
... metadata: {name: data, namespace: default, annotations: {pv.kubernetes.io/bind-completed: "yes"}}
... spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}, volumeName: pv-west}
... ---
... apiVersion: v1
... kind: Pod
... metadata: {name: db, namespace: default}
... spec:
...   containers: [{name: c, image: postgres}]
...   volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]
... '''))
>>> Scheduler(cluster).schedule_one("default/db").message
'0/1 nodes are available: 1 node(s) had no available volume zone. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.'
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kschedlab.framework.events import (
    NODE,
    PERSISTENT_VOLUME,
    PERSISTENT_VOLUME_CLAIM,
    QUEUE,
    SKIP,
    STORAGE_CLASS,
    ActionType,
    ClusterEvent,
    QueueingHint,
    as_objects,
    pod_of,
)
from kschedlab.framework.interface import Plugin, Verdicts, register
from kschedlab.framework.status import Code, Status
from kschedlab.plugins.helper.volumes import (
    ERR_BINDING_MODE_NOT_SET,
    NotFound,
    get_pv,
    get_pvc,
    get_storage_class,
    persistent_volume_claim_names,
    sign_volumes,
)

NAME = "VolumeZone"
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
ERR_REASON_CONFLICT = "node(s) had no available volume zone"
ERR_CLAIM_NO_NAME = "PersistentVolumeClaim had no name"
ERR_NO_PV_NO_CLASS = "PersistentVolumeClaim had no pv name and storageClass name"
ERR_PV_NO_NAME = "PersistentVolume had no name"
WAIT_FOR_FIRST_CONSUMER = "WaitForFirstConsumer"

BETA_ZONE, BETA_REGION = "failure-domain.beta.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/region"
ZONE, REGION = "topology.kubernetes.io/zone", "topology.kubernetes.io/region"
#: the labels looked at, in upstream's order
TOPOLOGY_LABELS = (BETA_ZONE, BETA_REGION, ZONE, REGION)
#: a PV's beta label matches the node's GA label when the node lacks the beta one
GA_LABEL = {BETA_REGION: REGION, BETA_ZONE: ZONE}
MULTI_ZONE_DELIMITER = "__"


@dataclass(frozen=True)
class PVTopology:
    """One topology label of a PV: its key and the zones (or regions) it lists."""

    pv_name: str
    key: str
    values: frozenset[str]


def label_zones_to_set(value: str) -> frozenset[str] | None:
    """``volumehelpers.LabelZonesToSet``: ``a__b`` -> {a, b}; None when an element is empty
    (the label is then ignored).

    >>> sorted(label_zones_to_set("us-west1-c__us-west1-a")), label_zones_to_set("a__")
    (['us-west1-a', 'us-west1-c'], None)
    """
    zones = [z.strip() for z in value.split(MULTI_ZONE_DELIMITER)]
    if any(not z for z in zones):
        return None
    return frozenset(zones)


def pv_topologies(pv) -> list[PVTopology]:
    """``getPVTopologies``: the PV's zone and region labels (its node affinity is NodeAffinity's
    business, not this plugin's)."""
    out = []
    labels = pv.metadata.labels or {}
    for key in TOPOLOGY_LABELS:
        if key in labels:
            values = label_zones_to_set(labels[key])
            if values is not None:
                out.append(PVTopology(pv.metadata.name, key, values))
    return out


def _lookup_status(err: NotFound) -> Status:
    return Status.unresolvable(str(err))


@register
class VolumeZone(Plugin):
    name = NAME

    def sign_pod(self, pod_info):
        """Signature: the pod's volume sources."""
        return sign_volumes(pod_info)

    def _pv_topologies(self, pod) -> tuple[list[PVTopology], Status]:
        """``getPVbyPod``: the topologies of the pod's bound PVs, or why there are none to read."""
        cluster = self.handle.cluster
        out: list[PVTopology] = []
        for claim in persistent_volume_claim_names(pod):
            if not claim:
                return [], Status.unresolvable(ERR_CLAIM_NO_NAME)
            try:
                pvc = get_pvc(cluster, pod.metadata.namespace, claim)
                pv_name = pvc.spec.volume_name or ""
                if not pv_name:
                    class_name = pvc.storage_class()
                    if not class_name:
                        return [], Status.unresolvable(ERR_NO_PV_NO_CLASS)
                    sc = get_storage_class(cluster, class_name)
                    if sc.volume_binding_mode is None:
                        return [], Status.unresolvable(ERR_BINDING_MODE_NOT_SET.format(class_name))
                    if sc.volume_binding_mode == WAIT_FOR_FIRST_CONSUMER:
                        continue
                    return [], Status.unresolvable(ERR_PV_NO_NAME)
                out.extend(pv_topologies(get_pv(cluster, pv_name)))
            except NotFound as err:
                return [], _lookup_status(err)
        return out, Status()

    def pre_filter(self, state, pod_info, snapshot):
        topologies, status = self._pv_topologies(pod_info.pod)
        if not status.is_success():
            return None, status
        if not topologies:
            return None, Status.skip()
        state[PRE_FILTER_STATE_KEY] = topologies
        return None, Status()

    def filter_nodes(self, state, pod_info, snapshot, rows: np.ndarray) -> Verdicts:
        n = len(rows)
        pod = pod_info.pod
        if not pod.spec.volumes:
            return Verdicts.passing(n)
        topologies = state.get(PRE_FILTER_STATE_KEY)
        if topologies is None:  # PreFilter did not run (or failed): compute again, as upstream
            topologies, status = self._pv_topologies(pod)
            if not status.is_success():
                return Verdicts.from_mask(np.ones(n, bool), status.code, status.reasons)
        constrained = np.zeros(n, bool)
        for key in TOPOLOGY_LABELS:
            constrained |= snapshot.label_codes(key)[0][rows] >= 0
        failed = np.zeros(n, bool)
        for t in topologies:
            codes, vocab = snapshot.label_codes(t.key)
            own = codes[rows]
            fits = np.isin(own, [vocab[v] for v in t.values if v in vocab])
            ga = GA_LABEL.get(t.key)
            if ga is not None:  # the node lacks the beta label: its GA label may match
                ga_codes, ga_vocab = snapshot.label_codes(ga)
                fits |= (own < 0) & np.isin(ga_codes[rows], [ga_vocab[v] for v in t.values if v in ga_vocab])
            failed |= ~fits
        return Verdicts.from_mask(failed & constrained, Code.UnschedulableAndUnresolvable, (ERR_REASON_CONFLICT,))

    # -- EnqueueExtensions --------------------------------------------------------------------------
    def events_to_register(self):
        """A WaitForFirstConsumer class added, a node added or relabelled, a claim added or updated
        (bound), a PV added or its topology labels changed. StorageClass updates are ignored:
        ``volumeBindingMode`` is immutable."""
        return [
            (ClusterEvent(STORAGE_CLASS, ActionType.Add), after_storage_class_added),
            (ClusterEvent(NODE, ActionType.Add | ActionType.UpdateNodeLabel), None),
            (ClusterEvent(PERSISTENT_VOLUME_CLAIM, ActionType.Add | ActionType.Update), after_claim_change),
            (ClusterEvent(PERSISTENT_VOLUME, ActionType.Add | ActionType.Update), after_pv_change),
        ]


# -- QueueingHints: events that may make a pod this plugin rejected schedulable -------------------
def after_claim_change(pod_info, old_obj, new_obj) -> QueueingHint:
    """``isSchedulableAfterPersistentVolumeClaimChange``: Queue when the pod uses the claim."""
    _, pvc = as_objects(old_obj, new_obj, "PersistentVolumeClaim", "isSchedulableAfterPersistentVolumeClaimChange")
    pod = pod_of(pod_info)
    if pvc is None or (pod.metadata.namespace or "") != (pvc.metadata.namespace or ""):
        return SKIP
    return QUEUE if pvc.metadata.name in persistent_volume_claim_names(pod) else SKIP


def after_storage_class_added(pod_info, old_obj, new_obj) -> QueueingHint:
    """``isSchedulableAfterStorageClassAdded``: only a WaitForFirstConsumer class may help."""
    _, sc = as_objects(None, new_obj, "StorageClass", "isSchedulableAfterStorageClassAdded")
    return QUEUE if sc.volume_binding_mode == WAIT_FOR_FIRST_CONSUMER else SKIP


def after_pv_change(pod_info, old_obj, new_obj) -> QueueingHint:
    """``isSchedulableAfterPersistentVolumeChange``: a new PV, or a PV whose topology labels changed."""
    old, new = as_objects(old_obj, new_obj, "PersistentVolume", "isSchedulableAfterPersistentVolumeChange")
    if old is None:
        return QUEUE
    return QUEUE if pv_topologies(old) != pv_topologies(new) else SKIP
