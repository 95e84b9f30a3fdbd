"""NodeVolumeLimits: a node attaches at most the number of volumes its CSI drivers allow
(upstream ``pkg/scheduler/framework/plugins/nodevolumelimits``, ``CSILimits``).

A node's limits are the ``allocatable.count`` of each driver in its CSINode (a node without a
CSINode, or a driver without a count, has no limit); the node's ``attachable-volumes-*`` allocatable
is no longer read, and the in-tree per-cloud filters (EBSLimits, GCEPDLimits, ...) are gone upstream. Volumes are counted per driver as unique
``<driver>/<volumeHandle>``:

- a claim (``persistentVolumeClaim``, or the ``<pod>-<volume>`` claim of a generic ``ephemeral``
  volume, which the pod must own) counts under its bound PV's CSI driver and handle; an in-tree PV
  (AWS EBS, GCE PD, Azure Disk, Cinder, Portworx) under the CSI driver it migrated to, when the node
  has a CSINode (Portworx also needs the ``storage.alpha.kubernetes.io/migrated-plugins``
  annotation); a claim not bound yet (or bound to a PV that does not exist) counts under its
  StorageClass's provisioner, with a handle of its own;
- an inline in-tree volume counts like an in-tree PV;
- the VolumeAttachments to the node count too, unless a pod on the node already counted the volume.

A volume the new pod shares with a pod on the node is not counted twice. Filter fails with
Unschedulable ``node(s) exceed max volume count`` when a driver's count plus the pod's new volumes
exceeds its limit; a claim of the pod that does not exist is UnschedulableAndUnresolvable
(``looking up PVC ns/name: persistentvolumeclaim "name" not found``). With VolumeLimitScaling (beta,
on), a driver whose CSIDriver sets ``preventPodSchedulingIfMissing`` must be installed on the node
(Unschedulable ``<driver> CSI driver is not installed on the node``). PreFilter Skips a pod without
claims, ephemeral volumes or migratable inline volumes.

>>> from kschedlab.api.loader import load_text
>>> from kschedlab.cluster import Cluster
>>> from kschedlab.scheduler import Scheduler
>>> cluster = Cluster(load_text('''
... apiVersion: v1
... kind: Node
... metadata: {name: n1}
... status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}}
... ---
... apiVersion: storage.k8s.io/v1
... kind: CSINode
... metadata: {name: n1}
... spec: {drivers: [{name: cinder.csi.openstack.org, nodeID: n1, allocatable: {count: 0}}]}
... ---
... apiVersion: v1
... kind: Pod
... metadata: {name: mysql, namespace: default}
... spec:
...   containers: [{name: mysql, image: mysql}]
...   volumes: [{name: data, cinder: {volumeID: bd82f7e2}}]
... '''))
>>> Scheduler(cluster).schedule_one("default/mysql").message
'0/1 nodes are available: 1 node(s) exceed max volume count. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.'
"""

from __future__ import annotations

import random

import numpy as np

from kschedlab.api.csi_translation import (
    PORTWORX_IN_TREE,
    TranslationError,
    csi_driver_name,
    in_tree_plugin_name,
    is_inline_migratable,
    is_migratable_in_tree_plugin,
    is_pv_migratable,
    translate_inline,
    translate_pv,
)
from kschedlab.framework.events import (
    CSI_NODE,
    PERSISTENT_VOLUME_CLAIM,
    POD,
    QUEUE,
    SKIP,
    VOLUME_ATTACHMENT,
    ActionType,
    ClusterEvent,
    HintError,
    QueueingHint,
    as_objects,
    pod_of,
)
from kschedlab.framework.interface import Plugin, Verdicts, register
from kschedlab.framework.status import Status
from kschedlab.plugins.helper.volumes import (
    NotFound,
    claim_name_of,
    get_csi_driver,
    get_pv,
    get_pvc,
    get_storage_class,
    pod_claim_names,
    sign_volumes,
    volume_is_for_pod,
)

NAME = "NodeVolumeLimits"
ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED = "node(s) exceed max volume count"
ERR_DRIVER_NOT_INSTALLED = "{} CSI driver is not installed on the node"
MIGRATED_PLUGINS_ANNOTATION = "storage.alpha.kubernetes.io/migrated-plugins"
#: in-tree plugins whose CSI migration is GA: counted as their CSI driver wherever the node has a CSINode
MIGRATION_GA = frozenset({"kubernetes.io/aws-ebs", "kubernetes.io/gce-pd", "kubernetes.io/azure-disk",
                          "kubernetes.io/cinder"})
#: ``rand.String``'s alphabet, for the handle prefix of claims not bound yet
_RAND_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"


class VolumeLookupError(Exception):
    """A volume of the pod cannot be counted; ``not_found`` when a claim does not exist."""

    def __init__(self, message: str, not_found: bool = False):
        super().__init__(message)
        self.not_found = not_found


def counts_volume(vol) -> bool:
    """A claim, a generic ephemeral volume or a migratable inline volume: what the plugin may count."""
    return vol.persistent_volume_claim is not None or vol.ephemeral is not None or is_inline_migratable(vol)


_PASS = Status()
#: ``PodInfo.cache`` key of :func:`_countable` (a pod's spec does not change)
_COUNTABLE_KEY = NAME + "/countable"


def _countable(pod) -> int:
    """How many of a placed pod's volumes may count (claims with a name); -1 when counting one may
    fail (a claim without name, a generic ephemeral volume, an inline in-tree volume)."""
    n = 0
    for vol in pod.spec.volumes:
        if vol.ephemeral is not None or is_inline_migratable(vol):
            return -1
        if vol.persistent_volume_claim is not None:
            if not vol.persistent_volume_claim.claim_name:
                return -1
            n += 1
    return n


def is_csi_migration_on(csi_node, plugin: str) -> bool:
    """``isCSIMigrationOn``: the node counts ``plugin``'s volumes as its CSI driver's. AWS EBS, GCE
    PD, Azure Disk and Cinder need only a CSINode; Portworx (CSIMigrationPortworx, GA and locked on
    since v1.33) also needs the plugin in the CSINode's migrated-plugins annotation; others never."""
    if csi_node is None or not plugin:
        return False
    if plugin in MIGRATION_GA:
        return True
    if plugin != PORTWORX_IN_TREE:
        return False
    listed = (csi_node.metadata.annotations or {}).get(MIGRATED_PLUGINS_ANNOTATION, "")
    return plugin in set(listed.split(",")) if listed else False


def volume_limits(csi_node) -> dict[str, int]:
    """``getVolumeLimits``: driver name -> ``allocatable.count`` from the node's CSINode."""
    if csi_node is None:
        return {}
    return {d.name: d.allocatable.count for d in csi_node.spec.drivers
            if d.allocatable is not None and d.allocatable.count is not None}


@register
class NodeVolumeLimits(Plugin):
    name = NAME

    def __init__(self, args=None, handle=None):
        super().__init__(args, handle)
        # upstream draws 32 random characters once per plugin; kschedlab draws them from a fixed seed
        rng = random.Random(NAME)
        self.random_volume_id_prefix = "".join(rng.choice(_RAND_ALPHABET) for _ in range(32))

    def sign_pod(self, pod_info):
        """Signature: the pod's volume sources."""
        return sign_volumes(pod_info)

    # -- PreFilter / Filter ---------------------------------------------------------------------------
    def pre_filter(self, state, pod_info, snapshot):
        if any(counts_volume(v) for v in pod_info.pod.spec.volumes):
            return None, Status()
        return None, Status.skip()

    def filter_nodes(self, state, pod_info, snapshot, rows: np.ndarray) -> Verdicts:
        if not pod_info.pod.spec.volumes:
            return Verdicts.passing(len(rows))
        attachments: dict[str, list] = {}
        for va in self.handle.cluster.of_kind("VolumeAttachment"):
            attachments.setdefault(va.spec.node_name or "", []).append(va)
        # the new pod's volumes depend on the node only through its migration view (kept per view)
        memo: dict = {}
        return Verdicts.from_statuses(self._filter_row(pod_info.pod, snapshot, int(row), attachments, memo)
                                      for row in rows)

    def _pod_volumes(self, pod, csi_node, memo: dict) -> dict[str, str] | Status:
        """The new pod's volumes on a node with ``csi_node`` (or why they cannot be counted)."""
        view = None if csi_node is None else (csi_node.metadata.annotations or {}).get(MIGRATED_PLUGINS_ANNOTATION, "")
        found = memo.get(view)
        if found is None:
            found = {}
            try:
                self.attachable_volumes(pod, csi_node, True, found)
            except VolumeLookupError as err:
                found = Status.unresolvable(str(err)) if err.not_found else Status.error(str(err))
            memo[view] = found
        return found

    def _plan(self, pod, csi_node, memo: dict):
        """What a node with ``csi_node`` decides before its pods are looked at: a final status, or
        (its limits, the pod's new volumes, their count per driver)."""
        found = self._pod_volumes(pod, csi_node, memo)
        if isinstance(found, Status):
            return found
        if not found:
            return _PASS
        if self.handle.gates.enabled("VolumeLimitScaling"):
            for driver in sorted(set(found.values())):
                if self._driver_missing(csi_node, driver, memo):
                    return Status.unschedulable(ERR_DRIVER_NOT_INSTALLED.format(driver))
        limits = volume_limits(csi_node)
        if not limits:
            return _PASS
        new_count: dict[str, int] = {}
        for driver in found.values():
            new_count[driver] = new_count.get(driver, 0) + 1
        return limits, found, new_count

    def _filter_row(self, pod, snapshot, row: int, attachments: dict[str, list], memo: dict) -> Status:
        node_name = snapshot.names[row]
        csi_node = self.handle.cluster.get("CSINode", node_name)  # none: the node has no CSI driver yet
        plan = self._plan(pod, csi_node, memo)
        if isinstance(plan, Status):
            return plan
        limits, found, new_count = plan
        if self._surely_fits(new_count, limits, snapshot.pods[row], len(attachments.get(node_name, ()))):
            return _PASS
        new_volumes = dict(found)
        attached: dict[str, str] = {}
        for existing in snapshot.pods[row]:
            try:
                self.attachable_volumes(existing.pod, csi_node, False, attached)
            except VolumeLookupError as err:
                return Status.error(str(err))
        attached_count: dict[str, int] = {}
        for unique, driver in attached.items():
            new_volumes.pop(unique, None)  # a volume shared with a pod on the node is counted once
            attached_count[driver] = attached_count.get(driver, 0) + 1
        for unique, driver in self.attached_by_volume_attachments(attachments.get(node_name, [])).items():
            if unique not in attached:
                attached_count[driver] = attached_count.get(driver, 0) + 1
        new_count = {}
        for driver in new_volumes.values():
            new_count[driver] = new_count.get(driver, 0) + 1
        for driver, count in new_count.items():
            if driver in limits and attached_count.get(driver, 0) + count > limits[driver]:
                return Status.unschedulable(ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED)
        return Status()

    @staticmethod
    def _surely_fits(new_count: dict[str, int], limits: dict[str, int], pods, attachments: int) -> bool:
        """The exact count can only pass: the node's pods have no volume whose counting may fail
        (an ephemeral claim's owner, an inline translation, a claim without name) and, for every
        limited driver, all their countable volumes plus the node's VolumeAttachments plus the
        pod's new volumes stay within the limit."""
        bound = attachments
        for p in pods:
            found = p.cache.get(_COUNTABLE_KEY)
            if found is None:
                found = p.cache[_COUNTABLE_KEY] = _countable(p.pod)
            if found < 0:
                return False
            bound += found
        return all(bound + n <= limits[d] for d, n in new_count.items() if d in limits)

    def _driver_missing(self, csi_node, driver: str, memo: dict) -> bool:
        """VolumeLimitScaling: the driver's CSIDriver asks for it on the node, and the node lacks it
        (what the CSIDriver asks is kept in ``memo`` for the Filter call)."""
        prevent = memo.get(("prevent", driver))
        if prevent is None:
            try:
                prevent = bool(get_csi_driver(self.handle.cluster, driver).spec.prevent_pod_scheduling_if_missing)
            except NotFound:
                prevent = False
            memo[("prevent", driver)] = prevent
        return prevent and (csi_node is None or csi_node.driver(driver) is None)

    # -- counting -------------------------------------------------------------------------------------
    def attachable_volumes(self, pod, csi_node, new_pod: bool, result: dict[str, str]) -> None:
        """``filterAttachableVolumes``: add ``<driver>/<handle>`` -> driver for each volume of ``pod``
        the node must attach. A claim that does not exist stops a new pod (it cannot run without it)
        and is not counted for a pod on the node."""
        cluster = self.handle.cluster
        ns = pod.metadata.namespace or ""
        for vol in pod.spec.volumes:
            claim_name, ephemeral = claim_name_of(pod, vol)
            if claim_name is None:
                self._inline_volume(vol, csi_node, result)
                continue
            if not claim_name:
                raise VolumeLookupError("PersistentVolumeClaim had no name")
            try:
                pvc = get_pvc(cluster, ns, claim_name)
            except NotFound as err:
                if new_pod:
                    raise VolumeLookupError(f"looking up PVC {ns}/{claim_name}: {err}", not_found=True) from None
                continue
            if ephemeral:
                problem = volume_is_for_pod(pod, pvc)
                if problem:
                    raise VolumeLookupError(problem)
            driver, handle = self.csi_driver_info(csi_node, pvc)
            if driver and handle:
                result[f"{driver}/{handle}"] = driver

    def _inline_volume(self, vol, csi_node, result: dict[str, str]) -> None:
        """``checkAttachableInlineVolume``: a migratable inline volume counts as its CSI driver's."""
        if not is_inline_migratable(vol):
            return
        plugin = in_tree_plugin_name(None, vol)
        if not is_csi_migration_on(csi_node, plugin):
            return
        try:
            translated = translate_inline(vol)
        except TranslationError as err:
            raise VolumeLookupError(f"converting volume({vol.name}) from inline to csi: {err}") from None
        if translated.volume_handle is None:
            return
        driver = csi_driver_name(plugin)
        result[f"{driver}/{translated.volume_handle}"] = driver

    def csi_driver_info(self, csi_node, pvc) -> tuple[str, str]:
        """``getCSIDriverInfo``: the CSI driver and volume handle of a claim's PV (translated when
        in-tree), or of its StorageClass when the claim is not bound or its PV is missing."""
        pv_name = pvc.spec.volume_name or ""
        if not pv_name:
            return self._driver_info_from_class(csi_node, pvc)
        try:
            pv = get_pv(self.handle.cluster, pv_name)
        except NotFound:
            return self._driver_info_from_class(csi_node, pvc)
        csi = pv.spec.csi
        if csi is not None:
            return csi.driver or "", csi.volume_handle or ""
        if not is_pv_migratable(pv) or not is_csi_migration_on(csi_node, in_tree_plugin_name(pv, None)):
            return "", ""
        try:
            translated = translate_pv(pv)
        except TranslationError:
            return "", ""
        return (translated.driver, translated.volume_handle) if translated.volume_handle is not None else ("", "")

    def _driver_info_from_class(self, csi_node, pvc) -> tuple[str, str]:
        """``getCSIDriverInfoFromSC``: the class's provisioner (the CSI driver of a migrated in-tree
        one) and a handle made of the claim's name (a claim without class must be bound: not counted)."""
        class_name = pvc.storage_class()
        if not class_name:
            return "", ""
        try:
            sc = get_storage_class(self.handle.cluster, class_name)
        except NotFound:
            return "", ""
        handle = f"{self.random_volume_id_prefix}-{pvc.metadata.namespace or ''}/{pvc.metadata.name}"
        provisioner = sc.provisioner or ""
        if is_migratable_in_tree_plugin(provisioner):
            if not is_csi_migration_on(csi_node, provisioner):
                return "", ""
            return csi_driver_name(provisioner), handle
        return provisioner, handle

    def attached_by_volume_attachments(self, attachments: list) -> dict[str, str]:
        """``getNodeVolumeAttachmentInfo``: ``<attacher>/<handle>`` -> attacher of the node's
        VolumeAttachments of CSI PVs (without attacher, PV name or an existing CSI PV: not counted)."""
        out = {}
        for va in attachments:
            attacher, pv_name = va.spec.attacher, va.spec.source.persistent_volume_name
            if not attacher or pv_name is None:
                continue
            try:
                pv = get_pv(self.handle.cluster, pv_name)
            except NotFound:
                continue
            if pv.spec.csi is None:
                continue
            out[f"{attacher}/{pv.spec.csi.volume_handle or ''}"] = attacher
        return out

    # -- EnqueueExtensions --------------------------------------------------------------------------
    def events_to_register(self):
        """A CSINode added or a driver's limit raised, a placed pod with counted volumes deleted, a
        claim the pod needs created, a VolumeAttachment deleted."""
        return [
            (ClusterEvent(CSI_NODE, ActionType.Add), None),
            (ClusterEvent(CSI_NODE, ActionType.Update), after_csi_node_updated),
            (ClusterEvent(POD, ActionType.Delete), after_pod_deleted),
            (ClusterEvent(PERSISTENT_VOLUME_CLAIM, ActionType.Add), after_claim_added),
            (ClusterEvent(VOLUME_ATTACHMENT, ActionType.Delete), after_volume_attachment_deleted),
        ]


# -- QueueingHints: events that may make a pod this plugin rejected schedulable -------------------
def after_pod_deleted(pod_info, old_obj, new_obj) -> QueueingHint:
    """``isSchedulableAfterPodDeleted``: a placed (or nominated) pod with a claim, an ephemeral or a
    migratable inline volume was deleted."""
    deleted, _ = as_objects(old_obj, new_obj, "Pod", "isSchedulableAfterPodDeleted")
    if not deleted.spec.volumes:
        return SKIP
    nominated = deleted.status.nominated_node_name if deleted.status is not None else None
    if not deleted.spec.node_name and not nominated:
        return SKIP
    return QUEUE if any(counts_volume(v) for v in deleted.spec.volumes) else SKIP


def after_claim_added(pod_info, old_obj, new_obj) -> QueueingHint:
    """``isSchedulableAfterPVCAdded``: the new claim is one of the pod's (its ephemeral ones included)."""
    _, pvc = as_objects(old_obj, new_obj, "PersistentVolumeClaim", "isSchedulableAfterPVCAdded")
    pod = pod_of(pod_info)
    if (pvc.metadata.namespace or "") != (pod.metadata.namespace or ""):
        return SKIP
    return QUEUE if pvc.metadata.name in pod_claim_names(pod) else SKIP


def after_volume_attachment_deleted(pod_info, old_obj, new_obj) -> QueueingHint:
    """``isSchedulableAfterVolumeAttachmentDeleted``: the pod has a claim, or an inline in-tree
    volume of the deleted attachment's driver."""
    deleted, _ = as_objects(old_obj, new_obj, "VolumeAttachment", "isSchedulableAfterVolumeAttachmentDeleted")
    for vol in pod_of(pod_info).spec.volumes:
        if vol.persistent_volume_claim is not None:
            return QUEUE
        if not is_inline_migratable(vol):
            continue
        try:
            translated = translate_inline(vol)
        except TranslationError as err:
            raise HintError(f"converting volume({vol.name}) from inline to csi: {err}") from None
        if deleted.spec.attacher == translated.driver:
            return QUEUE
    return SKIP


def after_csi_node_updated(pod_info, old_obj, new_obj) -> QueueingHint:
    """``isSchedulableAfterCSINodeUpdated``: some driver's limit went up (a missing count is 0)."""
    old, new = as_objects(old_obj, new_obj, "CSINode", "isSchedulableAfterCSINodeUpdated")

    def count(d) -> int:
        return d.allocatable.count if d.allocatable is not None and d.allocatable.count is not None else 0

    before = {d.name: count(d) for d in old.spec.drivers}
    return QUEUE if any(count(d) > before.get(d.name, 0) for d in new.spec.drivers) else SKIP
