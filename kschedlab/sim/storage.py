"""Storage on the simulation clock: provisioners that take time, VolumeBinding's PreBind wait,
and storage objects created during a simulation told to the scheduling queue as cluster events.

:class:`SimStorage` is the part of a :class:`~kschedlab.sim.engine.Simulation` that

* plays the external provisioners named in ``spec.storage.provisioners``: a claim the scheduler
  gave a ``volume.kubernetes.io/selected-node`` is provisioned ``delaySeconds`` after the
  provisioner first saw it (the PV controller then binds it); one that ``fail``\\ s loses its
  selected-node annotation instead, as a provisioner gives a claim back to the scheduler;
* lets VolumeBinding's PreBind wait on the virtual clock: the pod stays assumed on its node and
  its claims are checked every second until all are bound (``Bound``) or the check fails or
  ``bindTimeoutSeconds`` passed (``Failed`` with the error; Unreserve ran, the pod is requeued).

A PersistentVolume, PersistentVolumeClaim, StorageClass, CSINode, CSIDriver or
CSIStorageCapacity a ``create`` event adds (or replaces, as ``kubectl apply``) is stored, the
PersistentVolume controller then binds what it can (:mod:`kschedlab.storage.pv_controller`),
and the queue hears of each change as the informers would deliver it, so the storage plugins'
QueueingHints move the pods they rejected.

>>> from kschedlab.controllers.manifests import create
>>> from kschedlab.api.loader import load_objects
>>> from kschedlab.sim.engine import Simulation
>>> sim = Simulation(create(load_objects([{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}}])))
>>> sim.storage.wakeups(), sim.storage.binding_frame().empty
([], True)
>>> event_of("PersistentVolumeClaim", None) == ClusterEvent(PERSISTENT_VOLUME_CLAIM, ActionType.Add)
True
>>> event_of("CSINode", object()) == ClusterEvent(CSI_NODE, ActionType.Update)
True
"""

from __future__ import annotations

import pandas as pd

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


BINDING_COLUMNS = ["time", "pod", "node", "event", "message"]


class SimStorage:
    """The provisioners and VolumeBinding's PreBind waits of one simulation (see the module docstring)."""

    def __init__(self, sim, provisioners: dict | None = None) -> None:
        self.sim = sim
        #: provisioner name -> (delay in seconds, fails)
        self.provisioners: dict[str, tuple[float, bool]] = dict(provisioners or {})
        if self.provisioners:
            for fw in sim.scheduler.profiles.values():
                fw.handle.extra["volume_binding_waits"] = frozenset(self.provisioners)
        #: claim key -> when its provisioner first saw it
        self.seen: dict[str, float] = {}
        #: pod key -> when PreBind is asked next
        self.binding: dict[str, float] = {}
        self.binding_records: list[dict] = []

    def wakeups(self) -> list[float]:
        """Times something of storage is due: a provisioner finishing, the next PreBind poll."""
        return [self.seen[k] + self._provisioner_of(k)[0] for k in self.seen] + list(self.binding.values())

    def step(self) -> None:
        """Everything due now: provisioners see new claims and finish theirs, PreBind waits are
        noted and polled."""
        if not self.provisioners:
            return
        self._provision()
        self._track_binding_waits()
        self._poll_binding_waits()

    def _provisioner_of(self, claim_key: str) -> tuple[float, bool]:
        claim = self.sim.cluster.get("PersistentVolumeClaim", claim_key)
        sc = self.sim.cluster.get("StorageClass", claim.storage_class()) if claim is not None else None
        return self.provisioners.get(sc.provisioner if sc is not None else "", (0.0, False))

    def _provision(self) -> None:
        from kschedlab.api.persistentvolume import ANN_SELECTED_NODE
        from kschedlab.storage.pv_controller import PersistentVolumeController, is_claim_fully_bound

        sim = self.sim
        for key, claim in sorted(sim.cluster.objects.get("PersistentVolumeClaim", {}).items()):
            sc = sim.cluster.get("StorageClass", claim.storage_class())
            if (sc is None or sc.provisioner not in self.provisioners or is_claim_fully_bound(claim)
                    or not claim.metadata.annotations.get(ANN_SELECTED_NODE)):
                self.seen.pop(key, None)
                continue
            started = self.seen.setdefault(key, sim.now)
            delay, fail = self.provisioners[sc.provisioner]
            if sim.now < started + delay:
                continue
            del self.seen[key]
            sim.changes.changed()
            if fail:  # given back to the scheduler: it may choose another node
                claim.metadata.annotations = {k: v for k, v in claim.metadata.annotations.items()
                                              if k != ANN_SELECTED_NODE}
                sim.queue.move_all_to_active_or_backoff(event_of("PersistentVolumeClaim", claim), claim, claim)
                continue
            if PersistentVolumeController(sim.cluster).sync_claim(claim):
                pv = sim.cluster.get("PersistentVolume", claim.spec.volume_name)
                sim.queue.move_all_to_active_or_backoff(event_of("PersistentVolume", None), None, pv)
            sim.queue.move_all_to_active_or_backoff(event_of("PersistentVolumeClaim", claim), claim, claim)

    def _track_binding_waits(self) -> None:
        from kschedlab.plugins.volume_binding import BIND_POLL_SECONDS, NAME

        sim = self.sim
        for key, (_fw, _state, _pod_info, node, _trace, plugin) in sim.scheduler.binding_waits.items():
            if key in self.binding or plugin != NAME:
                continue
            self.binding[key] = sim.now + BIND_POLL_SECONDS
            self.binding_records.append({"time": sim.now, "pod": key, "node": node, "event": "VolumesPending",
                                         "message": f"waiting for the volumes of the pod to be bound on node {node}"})
            row = sim._timeline.get(key)
            if row is not None and row["scheduled"] is None:  # the scheduling cycle chose the node now
                row["scheduled"] = sim.now

    def _poll_binding_waits(self) -> None:
        from kschedlab.plugins.volume_binding import BIND_POLL_SECONDS

        sim = self.sim
        for key in sorted(self.binding, key=lambda k: (self.binding[k], k)):
            if self.binding[key] > sim.now:
                continue
            node = sim.scheduler.binding_waits[key][3]
            result = sim.scheduler.poll_pre_bind(key)
            if result is None:
                self.binding[key] += BIND_POLL_SECONDS
                continue
            del self.binding[key]
            sim.changes.changed()
            failed = result.node is None
            self.binding_records.append({"time": sim.now, "pod": key, "node": node,
                                         "event": "Failed" if failed else "Bound",
                                         "message": result.message if failed else ""})
            if failed:
                sim.pre_bind_failed(key)

    def binding_frame(self) -> pd.DataFrame:
        """VolumeBinding's PreBind waits: ``VolumesPending`` when one starts, then ``Bound`` or
        ``Failed`` (with the error) when it ends."""
        return pd.DataFrame(self.binding_records, columns=BINDING_COLUMNS)

    def report(self) -> dict:
        """What ``kschedlab simulate -o json`` shows of storage (only when a wait happened)."""
        import json

        frame = self.binding_frame()
        return {"volumeBindingWaits": json.loads(frame.to_json(orient="records"))} if len(frame) else {}
