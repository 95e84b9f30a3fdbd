"""Storage objects created during a simulation, told to the scheduling queue as cluster events.

A PersistentVolume, PersistentVolumeClaim, StorageClass, CSINode, CSIDriver or
CSIStorageCapacity a ``create`` event adds (or replaces, as ``kubectl apply``) is stored, the
PersistentVolume controller then binds what it can (:mod:`kschedlab.storage.pv_controller`),
and the queue hears of each change as the informers would deliver it, so the storage plugins'
QueueingHints move the pods they rejected.

>>> event_of("PersistentVolumeClaim", None) == ClusterEvent(PERSISTENT_VOLUME_CLAIM, ActionType.Add)
True
>>> event_of("CSINode", object()) == ClusterEvent(CSI_NODE, ActionType.Update)
True
"""

from __future__ import annotations

from kschedlab.framework.events import (
    CSI_DRIVER,
    CSI_NODE,
    CSI_STORAGE_CAPACITY,
    PERSISTENT_VOLUME,
    PERSISTENT_VOLUME_CLAIM,
    STORAGE_CLASS,
    ActionType,
    ClusterEvent,
)

#: stored kind -> the resource of its cluster events
STORAGE_RESOURCES = {
    "PersistentVolume": PERSISTENT_VOLUME,
    "PersistentVolumeClaim": PERSISTENT_VOLUME_CLAIM,
    "StorageClass": STORAGE_CLASS,
    "CSINode": CSI_NODE,
    "CSIDriver": CSI_DRIVER,
    "CSIStorageCapacity": CSI_STORAGE_CAPACITY,
}


def event_of(kind: str, old) -> ClusterEvent:
    """The cluster event of storing a ``kind`` object (Add when there was no ``old`` one)."""
    return ClusterEvent(STORAGE_RESOURCES[kind], ActionType.Add if old is None else ActionType.Update)


def apply_storage(sim, obj) -> None:
    """Store ``obj`` in ``sim``'s cluster, let the PV controller bind what it can now, and tell
    the queue of the object and of each claim (and volume) the controller bound."""
    from kschedlab.storage.pv_controller import PersistentVolumeController

    kind = type(obj).__name__
    meta = obj.metadata
    key = f"{meta.namespace}/{meta.name}" if getattr(meta, "namespace", None) else meta.name
    old = sim.cluster.get(kind, key)
    sim.cluster.add(obj)
    sim.changes.changed()
    sim.queue.move_all_to_active_or_backoff(event_of(kind, old), old, obj)
    for claim_key in PersistentVolumeController(sim.cluster).sync():
        claim = sim.cluster.get("PersistentVolumeClaim", claim_key)
        pv = sim.cluster.get("PersistentVolume", claim.spec.volume_name)
        sim.queue.move_all_to_active_or_backoff(event_of("PersistentVolume", pv), pv, pv)
        sim.queue.move_all_to_active_or_backoff(event_of("PersistentVolumeClaim", claim), claim, claim)
