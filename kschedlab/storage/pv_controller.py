"""The PersistentVolume controller and the external provisioner, as far as scheduling needs them.

Upstream these run outside the scheduler: kube-controller-manager's PV controller
(``pkg/controller/volume/persistentvolume``) binds claims to volumes, and a CSI driver's
external-provisioner creates a volume for a claim. The scheduler only prepares their work
(VolumeBinding's PreBind writes the PV's ``claimRef`` or the claim's
``volume.kubernetes.io/selected-node`` annotation) and waits until the claims are bound. Here
they are modelled by :class:`PersistentVolumeController`, which answers at once:

- a claim whose class binds ``Immediate`` (or that names its volume) is bound to the smallest
  matching Available volume (:func:`~kschedlab.storage.pv_helpers.find_matching_volume`), or, when
  none matches and its class has a provisioner, to a volume provisioned for it;
- a claim of a ``WaitForFirstConsumer`` class waits for the scheduler: a volume the scheduler
  pre-bound to it (``claimRef``) binds it; the ``selected-node`` annotation has a volume
  provisioned for it on that node;
- binding sets the volume's ``claimRef`` and phase ``Bound``, the claim's ``volumeName``, the
  ``pv.kubernetes.io/bind-completed`` and ``bound-by-controller`` annotations, its phase
  ``Bound`` and its ``status.capacity`` / ``accessModes``;
- provisioning creates the PersistentVolume ``pvc-<claim uid>`` of the requested size, access
  modes, volume mode and class (reclaim policy from the class), a CSI volume of the provisioner
  (in-tree provisioner names map to their CSI drivers, as CSI migration does), reachable from the
  selected node's values of the driver's CSINode ``topologyKeys`` (else of the class's
  ``allowedTopologies`` keys; without a node, the first allowed value of each key). When the
  driver publishes its capacity (CSIDriver ``storageCapacity``), the CSIStorageCapacity the
  scheduler found for the node shrinks by the volume's size, as the provisioner's next
  republication of that capacity would show.

Nothing here fails or waits: a real provisioner may fail (it then removes ``selected-node``
and the scheduler retries the pod), which is not modelled.

>>> from kschedlab.cluster import Cluster
>>> from kschedlab.api.loader import load_text
>>> from kschedlab.apiserver.admission import admit
>>> c = Cluster(admit(load_text('''
... apiVersion: v1
... kind: PersistentVolume
... metadata: {name: pv-1}
... spec: {capacity: {storage: 10Gi}, accessModes: [ReadWriteOnce], hostPath: {path: /data}}
... status: {phase: Available}
... ---
... apiVersion: v1
... kind: PersistentVolumeClaim
... metadata: {name: data}
... spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 5Gi}}, storageClassName: ""}
... ''')))
>>> PersistentVolumeController(c).sync()
['default/data']
>>> claim = c.get("PersistentVolumeClaim", "default/data")
>>> claim.spec.volume_name, claim.status.phase, str(claim.status.capacity["storage"])
('pv-1', 'Bound', '10Gi')
"""

from __future__ import annotations

import hashlib
import uuid

from kschedlab.api.core import NodeSelector, NodeSelectorRequirement, NodeSelectorTerm
from kschedlab.api.csi_translation import CSI_DRIVER_OF
from kschedlab.api.persistentvolume import (
    ANN_BIND_COMPLETED,
    ANN_BOUND_BY_CONTROLLER,
    ANN_SELECTED_NODE,
    ANN_STORAGE_PROVISIONER,
    PersistentVolume,
    PersistentVolumeClaim,
    VolumeNodeAffinity,
)
from kschedlab.api.quantity import Quantity
from kschedlab.api.volume import CSIPersistentVolumeSource, ObjectReference
from kschedlab.storage.pv_helpers import NOT_SUPPORTED_PROVISIONER, find_matching_volume

__all__ = ["PersistentVolumeController", "ANN_PROVISIONED_BY", "is_claim_fully_bound",
           "capacity_for", "describe_volume_claims"]

ANN_PROVISIONED_BY = "pv.kubernetes.io/provisioned-by"


def is_claim_fully_bound(claim: PersistentVolumeClaim) -> bool:
    """``isPVCFullyBound``: the claim names its volume and carries ``pv.kubernetes.io/bind-completed``."""
    return bool(claim.spec.volume_name) and ANN_BIND_COMPLETED in claim.metadata.annotations


def _capacity_limit(cap) -> Quantity | None:
    """``capacitySufficient``'s limit: ``maximumVolumeSize`` when set, else ``capacity``."""
    return cap.maximum_volume_size if cap.maximum_volume_size is not None else cap.capacity


def capacity_for(cluster, class_name: str, size: int, labels) -> object | None:
    """The first CSIStorageCapacity of ``class_name`` reachable from a node with ``labels`` whose
    limit holds ``size`` bytes (``hasEnoughCapacity``'s search), or None."""
    from kschedlab.api.meta import label_selector_matches

    for cap in cluster.objects.get("CSIStorageCapacity", {}).values():
        limit = _capacity_limit(cap)
        if (cap.storage_class_name == class_name and limit is not None and limit.value() >= size
                and label_selector_matches(cap.node_topology, labels)):
            return cap
    return None


class PersistentVolumeController:
    """The PV controller and external provisioner over ``cluster`` (see the module text)."""

    def __init__(self, cluster):
        self.cluster = cluster

    # -- lookups ---------------------------------------------------------------------------
    def _class(self, name: str):
        return self.cluster.get("StorageClass", name) if name else None

    def _volumes(self, class_name: str) -> list[PersistentVolume]:
        return [pv for pv in self.cluster.objects.get("PersistentVolume", {}).values()
                if pv.storage_class() == class_name]

    # -- the controller's loop -------------------------------------------------------------
    def sync(self) -> list[str]:
        """Make every new volume no claim holds Available (:meth:`sync_volumes`), then bind (or
        provision for) every claim that can be bound now; returns the claims' keys."""
        self.sync_volumes()
        done = []
        for claim in list(self.cluster.objects.get("PersistentVolumeClaim", {}).values()):
            if not is_claim_fully_bound(claim) and self.sync_claim(claim):
                done.append(claim.key)
        return done

    def sync_volumes(self) -> list[str]:
        """``syncVolume`` for the volumes still ``Pending`` (as the API server creates them) or
        without a phase: one no claim holds yet -- no ``claimRef``, or one without a UID, which only
        reserves it -- becomes ``Available``, the phase VolumeBinding and the claims' binding look
        for. Returns their names.

        >>> from kschedlab.api.persistentvolume import PersistentVolume
        >>> from kschedlab.cluster import Cluster
        >>> c = Cluster([PersistentVolume.model_validate({"metadata": {"name": "pv-1"},
        ...     "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/d"}}})])
        >>> PersistentVolumeController(c).sync_volumes(), c.get("PersistentVolume", "pv-1").status.phase
        (['pv-1'], 'Available')
        """
        done = []
        for pv in list(self.cluster.objects.get("PersistentVolume", {}).values()):
            if pv.status.phase not in (None, "", "Pending") or (pv.spec.claim_ref is not None and pv.spec.claim_ref.uid):
                continue
            pv.status.phase = "Available"
            pv.mark_set("status")
            self.cluster.add(pv)
            done.append(pv.name)
        return done

    def sync_claim(self, claim: PersistentVolumeClaim) -> bool:
        """``syncUnboundClaim`` for one claim; True when it is bound afterwards."""
        if is_claim_fully_bound(claim):
            return True
        if claim.metadata.deletion_timestamp is not None:
            return False
        if claim.spec.volume_name:  # pre-bound by the user or the scheduler: that volume or nothing
            pv = self.cluster.get("PersistentVolume", claim.spec.volume_name)
            if pv is None or (pv.spec.claim_ref is not None and pv.claim_key() != claim.key):
                return False
            self.bind(pv, claim)
            return True
        class_name = claim.storage_class()
        sc = self._class(class_name)
        delay = sc is not None and sc.is_wait_for_first_consumer()
        pv = find_matching_volume(claim, self._volumes(class_name), None, set(), delay)
        if pv is not None:
            self.bind(pv, claim)
            return True
        node = claim.metadata.annotations.get(ANN_SELECTED_NODE)
        if delay and not node:
            return False
        if sc is None or not sc.provisioner or sc.provisioner == NOT_SUPPORTED_PROVISIONER:
            return False
        self.bind(self.provision(claim, sc, node), claim)
        return True

    # -- binding ---------------------------------------------------------------------------
    def bind(self, pv: PersistentVolume, claim: PersistentVolumeClaim) -> None:
        """``bind``: the volume to the claim, then the claim to the volume, both ``Bound``."""
        if pv.spec.claim_ref is None or not pv.spec.claim_ref.uid:
            pv.spec.claim_ref = ObjectReference(kind="PersistentVolumeClaim", namespace=claim.namespace,
                                                name=claim.name, uid=claim.metadata.uid, api_version="v1")
            pv.metadata.annotations = {**pv.metadata.annotations, ANN_BOUND_BY_CONTROLLER: "yes"}
        pv.status.phase = "Bound"
        pv.mark_set("spec", "status", "metadata")
        annotations = dict(claim.metadata.annotations)
        if not claim.spec.volume_name:
            annotations[ANN_BOUND_BY_CONTROLLER] = "yes"
        annotations[ANN_BIND_COMPLETED] = "yes"
        claim.metadata.annotations = annotations
        claim.spec.volume_name = pv.name
        claim.status.phase = "Bound"
        claim.status.access_modes = list(pv.spec.access_modes)
        claim.status.capacity = dict(pv.spec.capacity)
        claim.mark_set("spec", "status", "metadata")
        self.cluster.add(pv)
        self.cluster.add(claim)

    def provision(self, claim: PersistentVolumeClaim, sc, node_name: str | None) -> PersistentVolume:
        """What the external provisioner creates for ``claim`` of class ``sc`` on ``node_name``
        (None: a claim that binds immediately), stored in the cluster."""
        uid = claim.metadata.uid or str(uuid.UUID(bytes=hashlib.sha256(
            f"kschedlab/PersistentVolumeClaim/{claim.key}".encode()).digest()[:16], version=4))
        driver = CSI_DRIVER_OF.get(sc.provisioner, sc.provisioner)
        labels = {}
        node = self.cluster.nodes.get(node_name) if node_name else None
        if node is not None:
            labels = node.metadata.labels
        keys: list[str] = []
        csinode = self.cluster.get("CSINode", node_name) if node_name else None
        entry = csinode.driver(driver) if csinode is not None else None
        if entry is not None and entry.topology_keys:
            keys = list(entry.topology_keys)
        else:
            keys = [r.key for term in sc.allowed_topologies[:1] for r in term.match_label_expressions if r.key]
        requirements = []
        for key in keys:
            if node is not None:
                if key in labels:
                    requirements.append(NodeSelectorRequirement(key=key, operator="In", values=[labels[key]]))
            else:
                values = [r.values[0] for r in sc.allowed_topologies[0].match_label_expressions
                          if r.key == key and r.values]
                if values:
                    requirements.append(NodeSelectorRequirement(key=key, operator="In", values=values))
        size = claim.spec.resources.requests.get("storage")
        pv = PersistentVolume.model_validate({
            "metadata": {"name": f"pvc-{uid}", "annotations": {ANN_PROVISIONED_BY: sc.provisioner}},
            "spec": {
                "capacity": {"storage": str(size) if size is not None else "0"},
                "accessModes": list(claim.spec.access_modes),
                "persistentVolumeReclaimPolicy": sc.reclaim_policy or "Delete",
                "storageClassName": sc.name,
                "volumeMode": claim.spec.volume_mode or "Filesystem",
                **({"mountOptions": list(sc.mount_options)} if sc.mount_options else {}),
            },
            "status": {"phase": "Pending"},
        })
        pv.spec.csi = CSIPersistentVolumeSource(driver=driver, volume_handle=f"pvc-{uid}", fs_type="ext4")
        if requirements:
            pv.spec.node_affinity = VolumeNodeAffinity(required=NodeSelector(
                node_selector_terms=[NodeSelectorTerm(match_expressions=requirements)]))
        claim.metadata.annotations = {**claim.metadata.annotations, ANN_STORAGE_PROVISIONER: sc.provisioner}
        self._consume_capacity(driver, sc.name, claim.requested_storage(), labels if node is not None else None)
        self.cluster.add(pv)
        return pv

    def _consume_capacity(self, driver: str, class_name: str, size: int, labels) -> None:
        """Shrink the CSIStorageCapacity the scheduler checked by the provisioned size."""
        csidriver = self.cluster.get("CSIDriver", driver)
        if labels is None or csidriver is None or not csidriver.spec.storage_capacity:
            return
        cap = capacity_for(self.cluster, class_name, size, labels)
        if cap is None:
            return
        if cap.capacity is not None:
            cap.capacity = Quantity(max(0, cap.capacity.value() - size))
        if cap.maximum_volume_size is not None and cap.capacity is not None \
                and cap.maximum_volume_size.value() > cap.capacity.value():
            cap.maximum_volume_size = Quantity(cap.capacity.value())


def describe_volume_claims(cluster) -> list[dict]:
    """Each claim of the cluster as ``kubectl get pvc`` shows it: status, volume, capacity, class.

    >>> from kschedlab.cluster import Cluster
    >>> from kschedlab.api.persistentvolume import PersistentVolumeClaim
    >>> describe_volume_claims(Cluster([PersistentVolumeClaim.model_validate({"metadata": {"name": "c",
    ...     "namespace": "ns"}, "spec": {"storageClassName": "fast"}, "status": {"phase": "Pending"}})]))
    [{'claim': 'ns/c', 'status': 'Pending', 'volume': '', 'capacity': '', 'storageClass': 'fast'}]
    """
    out = []
    for claim in cluster.objects.get("PersistentVolumeClaim", {}).values():
        size = claim.status.capacity.get("storage")
        out.append({"claim": claim.key, "status": claim.status.phase or "Pending",
                    "volume": claim.spec.volume_name or "", "capacity": str(size) if size is not None else "",
                    "storageClass": claim.storage_class()})
    return out
