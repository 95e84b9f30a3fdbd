"""PersistentVolume helpers of ``k8s.io/component-helpers/storage/volume`` (``pv_helpers.go``,
``helpers.go``): which volume a claim can bind to, and whether a node can reach a volume.

>>> from kschedlab.api.persistentvolume import PersistentVolume, PersistentVolumeClaim
>>> claim = PersistentVolumeClaim.model_validate({"metadata": {"name": "c", "namespace": "ns"},
...     "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "5Gi"}},
...              "storageClassName": "local"}})
>>> pvs = [PersistentVolume.model_validate({"metadata": {"name": n}, "spec": {
...     "capacity": {"storage": size}, "accessModes": ["ReadWriteOnce"], "storageClassName": "local",
...     "local": {"path": "/mnt"}}, "status": {"phase": "Available"}}) for n, size in
...     [("big", "100Gi"), ("small", "10Gi"), ("tiny", "1Gi")]]
>>> find_matching_volume(claim, pvs, {"kubernetes.io/hostname": "n1"}, set(), True).name
'small'
"""

from __future__ import annotations

from typing import Iterable, Mapping

from kschedlab.api.node_selector import NAME_FIELD
from kschedlab.api.persistentvolume import PersistentVolume, PersistentVolumeClaim

__all__ = [
    "NOT_SUPPORTED_PROVISIONER",
    "node_selector_terms_match",
    "check_node_affinity",
    "check_access_modes",
    "check_volume_mode_mismatches",
    "is_volume_bound_to_claim",
    "find_matching_volume",
]

NOT_SUPPORTED_PROVISIONER = "kubernetes.io/no-provisioner"
"""The provisioner of classes whose volumes are created by hand (local volumes): no provisioning."""


def _int64(text: str) -> int | None:
    """``strconv.ParseInt(text, 10, 64)``, None when it fails."""
    body = text[1:] if text[:1] in "+-" else text
    if not body.isascii() or not body.isdigit():
        return None
    value = int(text)
    return value if -(1 << 63) <= value < (1 << 63) else None


def _requirement_matches(op: str | None, key: str | None, values: list[str], labels: Mapping[str, str]) -> bool:
    """One ``NodeSelectorRequirement`` against a node's labels; an invalid one matches nothing."""
    present = key in labels
    if op in ("In", "NotIn"):
        if not values:
            return False
        hit = present and labels[key] in values
        return hit if op == "In" else not hit
    if op in ("Exists", "DoesNotExist"):
        if values:
            return False
        return present if op == "Exists" else not present
    if op in ("Gt", "Lt"):
        if len(values) != 1 or not present:
            return False
        bound, have = _int64(values[0]), _int64(labels[key])
        if bound is None or have is None:
            return False
        return have > bound if op == "Gt" else have < bound
    return False


def node_selector_terms_match(terms, labels: Mapping[str, str], name: str = "") -> bool:
    """``MatchNodeSelectorTerms``: some term whose requirements all hold (an empty term matches
    nothing; ``matchFields`` knows ``metadata.name`` only).

    >>> from kschedlab.api.core import NodeSelectorTerm
    >>> t = NodeSelectorTerm.model_validate({"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]})
    >>> node_selector_terms_match([t], {"zone": "a"}), node_selector_terms_match([t], {"zone": "b"})
    (True, False)
    """
    for term in terms:
        if not term.match_expressions and not term.match_fields:
            continue
        ok = all(_requirement_matches(r.operator, r.key, r.values, labels) for r in term.match_expressions)
        if ok and term.match_fields:
            ok = all(r.key == NAME_FIELD and _requirement_matches(r.operator, r.key, r.values, {NAME_FIELD: name})
                     for r in term.match_fields)
        if ok:
            return True
    return False


def check_node_affinity(pv: PersistentVolume, labels: Mapping[str, str]) -> bool:
    """``CheckNodeAffinity``: the node with these ``labels`` satisfies the PV's required node
    affinity (a PV without one is reachable from every node). Upstream matches a node made of
    the labels alone, so a ``matchFields`` term never matches here."""
    affinity = pv.spec.node_affinity
    if affinity is None or affinity.required is None:
        return True
    return node_selector_terms_match(affinity.required.node_selector_terms, labels)


def check_access_modes(claim: PersistentVolumeClaim, pv: PersistentVolume) -> bool:
    """``CheckAccessModes``: every access mode the claim asks for is one of the PV's."""
    have = set(pv.spec.access_modes)
    return all(mode in have for mode in claim.spec.access_modes)


def check_volume_mode_mismatches(claim: PersistentVolumeClaim, pv: PersistentVolume) -> bool:
    """``CheckVolumeModeMismatches``: the claim's and the PV's volume modes differ (unset is Filesystem)."""
    return (claim.spec.volume_mode or "Filesystem") != (pv.spec.volume_mode or "Filesystem")


def is_volume_bound_to_claim(pv: PersistentVolume, claim: PersistentVolumeClaim) -> bool:
    """``IsVolumeBoundToClaim``: the PV's claimRef names the claim (and its UID, when it has one)."""
    ref = pv.spec.claim_ref
    if ref is None:
        return False
    if (ref.name or "") != claim.name or (ref.namespace or "") != claim.namespace:
        return False
    return not ref.uid or ref.uid == (claim.metadata.uid or "")


def find_matching_volume(claim: PersistentVolumeClaim, volumes: Iterable[PersistentVolume],
                         node_labels: Mapping[str, str] | None, excluded: set[str] | dict,
                         delay_binding: bool) -> PersistentVolume | None:
    """``FindMatchingVolume``: the volume pre-bound to ``claim`` (None when the node cannot reach
    it), else the smallest Available volume of the claim's class, big enough, of the same volume
    mode and attributes class, matching the claim's selector, reachable from the node
    (``node_labels``; None on the PV controller's path, where claims that wait for their first
    consumer are left to the scheduler) and offering the claim's access modes. ``excluded`` names
    volumes already chosen for other claims of the pod."""
    from kschedlab.api.meta import label_selector_matches

    requested = claim.requested_storage()
    requested_class = claim.storage_class()
    selector = claim.spec.selector
    smallest: PersistentVolume | None = None
    smallest_size = 0
    for pv in volumes:
        if pv.name in excluded:
            continue
        bound_here = is_volume_bound_to_claim(pv, claim)
        if pv.spec.claim_ref is not None and not bound_here:
            continue
        size = pv.storage_capacity()
        if size < requested:
            continue
        if check_volume_mode_mismatches(claim, pv):
            continue
        if pv.metadata.deletion_timestamp is not None:
            continue
        reachable = node_labels is None or check_node_affinity(pv, node_labels)
        if bound_here:
            return pv if reachable else None
        if node_labels is None and delay_binding:
            continue
        if pv.status.phase != "Available":
            continue
        if selector is not None and not label_selector_matches(selector, pv.metadata.labels):
            continue
        if pv.storage_class() != requested_class:
            continue
        if not reachable:
            continue
        if node_labels is not None and not check_access_modes(claim, pv):
            continue
        if (pv.spec.volume_attributes_class_name or "") != (claim.spec.volume_attributes_class_name or ""):
            continue
        if smallest is None or smallest_size > size:
            smallest, smallest_size = pv, size
    return smallest
