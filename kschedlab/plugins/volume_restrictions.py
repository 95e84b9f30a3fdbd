"""VolumeRestrictions: disks that cannot be mounted twice, and claims with the ReadWriteOncePod
access mode (upstream ``pkg/scheduler/framework/plugins/volumerestrictions``).

- **Disk conflicts** (Filter, Unschedulable ``node(s) had no available disk``): on one node, a GCE
  PD may be mounted by several pods only if all mount it read-only; an AWS EBS volume ID by one pod
  only; a Ceph RBD image (a shared monitor, same pool and image) and an iSCSI IQN only read-only.
- **ReadWriteOncePod** (PreFilter, Filter): PreFilter looks the pod's claims up (a missing one is
  UnschedulableAndUnresolvable, ``persistentvolumeclaim "x" not found``) and counts the scheduled
  pods using one of its ReadWriteOncePod claims; while any does, every node is Unschedulable
  (``node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode``).
  The count follows the PreFilter extensions AddPod / RemovePod, so preemption finds that removing
  the holder frees the claim.

The plugin Skips at PreFilter for a pod with neither such a disk nor a ReadWriteOncePod claim in use.

>>> from kschedlab.api.core import Pod
>>> from kschedlab.api.volume import Volume
>>> gce = lambda ro: Volume.model_validate({"name": "d", "gcePersistentDisk": {"pdName": "pd", "readOnly": ro}})
>>> is_volume_conflict(gce(True), Pod.model_validate({"spec": {"volumes": [gce(True).model_dump(by_alias=True)]}}))
False
>>> is_volume_conflict(gce(False), Pod.model_validate({"spec": {"volumes": [gce(True).model_dump(by_alias=True)]}}))
True
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kschedlab.framework.events import (
    NODE,
    PERSISTENT_VOLUME_CLAIM,
    POD,
    QUEUE,
    SKIP,
    ActionType,
    ClusterEvent,
    QueueingHint,
    as_objects,
    pod_of,
)
from kschedlab.framework.interface import Plugin, Verdicts, register
from kschedlab.framework.status import Code, Status
from kschedlab.plugins.helper.volumes import NotFound, get_pvc, persistent_volume_claim_names, sign_volumes

NAME = "VolumeRestrictions"
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
ERR_REASON_DISK_CONFLICT = "node(s) had no available disk"
ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT = \
    "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode"
READ_WRITE_ONCE_POD = "ReadWriteOncePod"
#: the snapshot's index of the placed pods that mount a disk this plugin checks
_DISK_USERS = (NAME, "disk-users")
#: the snapshot's index of the placed pods with a persistentVolumeClaim volume (``StorageInfos``)
_CLAIM_USERS = (NAME, "claim-users")


def needs_restrictions_check(volume) -> bool:
    """The volume is a GCE PD, AWS EBS, RBD or iSCSI disk."""
    return (volume.gce_persistent_disk is not None or volume.aws_elastic_block_store is not None
            or volume.rbd is not None or volume.iscsi is not None)


def is_volume_conflict(volume, pod) -> bool:
    """``isVolumeConflict``: ``volume`` cannot be mounted beside ``pod``'s volumes."""
    for existing in pod.spec.volumes:
        disk, other = volume.gce_persistent_disk, existing.gce_persistent_disk
        if disk is not None and other is not None:
            if disk.pd_name == other.pd_name and not (disk.read_only and other.read_only):
                return True
        ebs, other = volume.aws_elastic_block_store, existing.aws_elastic_block_store
        if ebs is not None and other is not None and ebs.volume_id == other.volume_id:
            return True
        iscsi, other = volume.iscsi, existing.iscsi
        if iscsi is not None and other is not None:
            if iscsi.iqn == other.iqn and not (iscsi.read_only and other.read_only):
                return True
        rbd, other = volume.rbd, existing.rbd
        if rbd is not None and other is not None:
            if (set(rbd.monitors) & set(other.monitors) and rbd.pool == other.pool and rbd.image == other.image
                    and not (rbd.read_only and other.read_only)):
                return True
    return False


def satisfies_volume_conflicts(pod, pods) -> bool:
    """``satisfyVolumeConflicts``: none of ``pod``'s disks conflicts with ``pods``' volumes."""
    disks = [v for v in pod.spec.volumes if needs_restrictions_check(v)]
    return not any(is_volume_conflict(v, other) for v in disks for other in pods)


@dataclass
class PreFilterState:
    """The pod's ReadWriteOncePod claims and how many references placed pods hold to them."""

    read_write_once_pod_claims: frozenset[str]
    conflicting_claim_ref_count: int

    def clone(self) -> "PreFilterState":
        return PreFilterState(self.read_write_once_pod_claims, self.conflicting_claim_ref_count)

    def update_with_pod(self, pod, multiplier: int) -> None:
        """Another pod's claim references, added (1) or removed (-1); by claim name, as upstream."""
        self.conflicting_claim_ref_count += multiplier * sum(
            1 for claim in persistent_volume_claim_names(pod) if claim in self.read_write_once_pod_claims)


@register
class VolumeRestrictions(Plugin):
    name = NAME

    def sign_pod(self, pod_info):
        """Signature: the pod's volume sources."""
        return sign_volumes(pod_info)

    def pre_filter(self, state, pod_info, snapshot):
        pod = pod_info.pod
        needs_check = any(needs_restrictions_check(v) for v in pod.spec.volumes)
        rwop = set()
        for claim in persistent_volume_claim_names(pod):
            try:
                pvc = get_pvc(self.handle.cluster, pod.metadata.namespace, claim)
            except NotFound as err:
                return None, Status.unresolvable(str(err))
            if READ_WRITE_ONCE_POD in pvc.spec.access_modes:
                rwop.add(pvc.metadata.name)
        count = 0
        if rwop:
            ns = pod.metadata.namespace or ""
            users = snapshot.matching_pods(_CLAIM_USERS, lambda p: bool(persistent_volume_claim_names(p.pod)))
            used = {(p.pod.metadata.namespace or "", c)
                    for _, p in users.values() for c in persistent_volume_claim_names(p.pod)}
            count = sum(1 for claim in rwop if (ns, claim) in used)  # at most one pod holds each
        if not needs_check and count == 0:
            return None, Status.skip()
        state[PRE_FILTER_STATE_KEY] = PreFilterState(frozenset(rwop), count)
        return None, Status()

    def pre_filter_state(self, state) -> dict | None:
        """The cycle state as plain data (conformance ``preFilterState``)."""
        s = state.get(PRE_FILTER_STATE_KEY)
        return None if s is None else {"readWriteOncePodPVCs": sorted(s.read_write_once_pod_claims),
                                       "conflictingPVCRefCount": s.conflicting_claim_ref_count}

    def _state(self, state) -> tuple[PreFilterState | None, Status]:
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return None, Status.error(f'cannot read "{PRE_FILTER_STATE_KEY}" from cycleState')
        return s, Status()

    def add_pod(self, state, pod_info_to_schedule, pod_info_to_add, node_info) -> Status:
        """PreFilterExtensions.AddPod: the pod's references to the ReadWriteOncePod claims count."""
        s, status = self._state(state)
        if s is not None:
            s.update_with_pod(pod_info_to_add.pod, 1)
        return status

    def remove_pod(self, state, pod_info_to_schedule, pod_info_to_remove, node_info) -> Status:
        """PreFilterExtensions.RemovePod: the pod no longer holds its claims."""
        s, status = self._state(state)
        if s is not None:
            s.update_with_pod(pod_info_to_remove.pod, -1)
        return status

    def filter_nodes(self, state, pod_info, snapshot, rows: np.ndarray) -> Verdicts:
        n = len(rows)
        pod = pod_info.pod
        failed = np.zeros(n, bool)
        if any(needs_restrictions_check(v) for v in pod.spec.volumes):
            users = snapshot.matching_pods(_DISK_USERS, lambda p: any(needs_restrictions_check(v)
                                                                      for v in p.pod.spec.volumes))
            by_row: dict[int, list] = {}
            for row, p in users.values():
                by_row.setdefault(row, []).append(p.pod)
            for i, row in enumerate(rows.tolist()):
                if row in by_row and not satisfies_volume_conflicts(pod, by_row[row]):
                    failed[i] = True
        s, status = self._state(state)
        if s is None:
            code, reasons = Code.Error, status.reasons
        elif s.conflicting_claim_ref_count > 0:
            code, reasons = Code.Unschedulable, (ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT,)
        else:
            return Verdicts.from_mask(failed, Code.Unschedulable, (ERR_REASON_DISK_CONFLICT,))
        # every node fails; a disk conflict is found first where there is one
        codes = np.where(failed, np.int8(Code.Unschedulable), np.int8(code)).astype(np.int8)
        return Verdicts(codes, failed.astype(np.int32), [tuple(reasons), (ERR_REASON_DISK_CONFLICT,)])

    # -- EnqueueExtensions --------------------------------------------------------------------------
    def events_to_register(self):
        """A pod deleted (its disks or claims are free again; ``spec.volumes`` is immutable, so pod
        updates are ignored), a node added, a claim the pod needs created."""
        return [
            (ClusterEvent(POD, ActionType.Delete), after_pod_deleted),
            (ClusterEvent(NODE, ActionType.Add), None),
            (ClusterEvent(PERSISTENT_VOLUME_CLAIM, ActionType.Add), after_claim_added),
        ]


# -- QueueingHints: events that may make a pod this plugin rejected schedulable -------------------
def after_claim_added(pod_info, old_obj, new_obj) -> QueueingHint:
    """``isSchedulableAfterPersistentVolumeClaimAdded``: Queue when the pod uses the new claim."""
    _, pvc = as_objects(old_obj, new_obj, "PersistentVolumeClaim", "isSchedulableAfterPersistentVolumeClaimChange")
    pod = pod_of(pod_info)
    if (pvc.metadata.namespace or "") != (pod.metadata.namespace or ""):
        return SKIP
    return QUEUE if pvc.metadata.name in persistent_volume_claim_names(pod) else SKIP


def after_pod_deleted(pod_info, old_obj, new_obj) -> QueueingHint:
    """``isSchedulableAfterPodDeleted``: Queue when the deleted pod (same namespace) held a
    conflicting disk or any claim the pod uses (its access mode is not looked up)."""
    deleted, _ = as_objects(old_obj, new_obj, "Pod", "isSchedulableAfterPodDeleted")
    pod = pod_of(pod_info)
    if (deleted.metadata.namespace or "") != (pod.metadata.namespace or ""):
        return SKIP
    if not satisfies_volume_conflicts(pod, [deleted]):
        return QUEUE
    claims = set(persistent_volume_claim_names(pod))
    return QUEUE if any(c in claims for c in persistent_volume_claim_names(deleted)) else SKIP
