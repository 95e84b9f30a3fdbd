"""Node-level reclaim: what the kubelet frees before it evicts a pod (upstream
``buildSignalToNodeReclaimFuncs`` and ``reclaimNodeLevelResources``).

===========================  ==========================================  ================================
layout                       nodefs / nodefs inodes pressure             imagefs pressure
===========================  ==========================================  ================================
single filesystem            delete dead containers, then unused images  (the same)
imagefs (split disk)         nothing (pods are evicted)                  dead containers, unused images
imagefs + containerfs        delete dead containers                      delete unused images
===========================  ==========================================  ================================

containerfs pressure reclaims as nodefs, except with a plain imagefs, where it
reclaims as imagefs. Memory and PID pressure have nothing to reclaim at node level.

After reclaiming, the kubelet observes again and evicts no pod if no threshold is
met any more *counting the minimum reclaim* (:func:`node_reclaim_sufficient`).

The seed's lost table of deprecated kubelet garbage-collection flags, restored
(:data:`DEPRECATED_GC_FLAGS`): the eviction thresholds above replace them.

>>> build_signal_to_node_reclaim_funcs(False, False)["nodefs.available"]
('DeleteAllUnusedContainers', 'DeleteUnusedImages')
>>> build_signal_to_node_reclaim_funcs(True, False)["nodefs.available"]
()
"""

from __future__ import annotations

from typing import Mapping, Sequence

from .signals import (
    SIGNAL_CONTAINERFS_AVAILABLE,
    SIGNAL_CONTAINERFS_INODES_FREE,
    SIGNAL_IMAGEFS_AVAILABLE,
    SIGNAL_IMAGEFS_INODES_FREE,
    SIGNAL_NODEFS_AVAILABLE,
    SIGNAL_NODEFS_INODES_FREE,
    SignalObservation,
)
from .thresholds import Threshold, thresholds_met

__all__ = ["DELETE_ALL_UNUSED_CONTAINERS", "DELETE_UNUSED_IMAGES", "DEPRECATED_GC_FLAGS",
           "build_signal_to_node_reclaim_funcs", "node_reclaim_sufficient"]

DELETE_ALL_UNUSED_CONTAINERS = "DeleteAllUnusedContainers"
DELETE_UNUSED_IMAGES = "DeleteUnusedImages"

#: The seed's lost table "Застарілі функції збору сміття kubelet", restored from the
#: upstream page (kubernetes/website node-pressure-eviction.md): kubelet flag ->
#: (the eviction setting that replaces it, or None; why). Newer versions of the page list
#: only the last three rows.
DEPRECATED_GC_FLAGS: dict[str, tuple[str | None, str]] = {
    "--image-gc-high-threshold": ("--eviction-hard or --eviction-soft",
                                  "existing eviction signals can trigger image garbage collection"),
    "--image-gc-low-threshold": ("--eviction-minimum-reclaim", "eviction reclaims achieve the same behavior"),
    "--maximum-dead-containers": (None, "deprecated once old logs are stored outside of container's context"),
    "--maximum-dead-containers-per-container": (None, "deprecated once old logs are stored outside of "
                                                      "container's context"),
    "--minimum-container-ttl-duration": (None, "deprecated once old logs are stored outside of container's context"),
}


def build_signal_to_node_reclaim_funcs(with_image_fs: bool, split_container_image_fs: bool) -> dict[str, tuple[str, ...]]:
    """Signal -> the node-level reclaim steps, in order, for a filesystem layout."""
    both = (DELETE_ALL_UNUSED_CONTAINERS, DELETE_UNUSED_IMAGES)
    out: dict[str, tuple[str, ...]] = {}
    if with_image_fs and not split_container_image_fs:
        out[SIGNAL_NODEFS_AVAILABLE] = ()
        out[SIGNAL_NODEFS_INODES_FREE] = ()
        out[SIGNAL_IMAGEFS_AVAILABLE] = both
        out[SIGNAL_IMAGEFS_INODES_FREE] = both
        out[SIGNAL_CONTAINERFS_AVAILABLE] = both
        out[SIGNAL_CONTAINERFS_INODES_FREE] = both
    elif with_image_fs and split_container_image_fs:
        out[SIGNAL_IMAGEFS_AVAILABLE] = (DELETE_UNUSED_IMAGES,)
        out[SIGNAL_IMAGEFS_INODES_FREE] = (DELETE_UNUSED_IMAGES,)
        out[SIGNAL_NODEFS_AVAILABLE] = (DELETE_ALL_UNUSED_CONTAINERS,)
        out[SIGNAL_NODEFS_INODES_FREE] = (DELETE_ALL_UNUSED_CONTAINERS,)
        out[SIGNAL_CONTAINERFS_AVAILABLE] = (DELETE_ALL_UNUSED_CONTAINERS,)
        out[SIGNAL_CONTAINERFS_INODES_FREE] = (DELETE_ALL_UNUSED_CONTAINERS,)
    else:
        for s in (SIGNAL_NODEFS_AVAILABLE, SIGNAL_NODEFS_INODES_FREE, SIGNAL_IMAGEFS_AVAILABLE,
                  SIGNAL_IMAGEFS_INODES_FREE, SIGNAL_CONTAINERFS_AVAILABLE, SIGNAL_CONTAINERFS_INODES_FREE):
            out[s] = both
    return out


def node_reclaim_sufficient(thresholds: Sequence[Threshold], observations_after: Mapping[str, SignalObservation]) -> bool:
    """True when, on the observations taken after node-level reclaim, no threshold is met
    even with its minimum reclaim added -- then the kubelet evicts no pod this round.

    >>> from kschedlab.api.quantity import Quantity
    >>> from kschedlab.kubelet.thresholds import ThresholdValue
    >>> t = Threshold("imagefs.available", value=ThresholdValue(Quantity("100Gi")),
    ...               min_reclaim=ThresholdValue(Quantity("2Gi")))
    >>> node_reclaim_sufficient([t], {"imagefs.available": SignalObservation(Quantity("101Gi"))})
    False
    >>> node_reclaim_sufficient([t], {"imagefs.available": SignalObservation(Quantity("102Gi"))})
    True
    """
    return not thresholds_met(thresholds, observations_after, enforce_min_reclaim=True)
