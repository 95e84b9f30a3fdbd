"""The volume binder of the VolumeBinding plugin (upstream ``volumebinding/binder.go``).

It sorts a pod's claims (bound, waiting for their first consumer, immediate), finds for a node
the volumes its unbound claims can bind to or whether they can be provisioned there (class
topology, CSIStorageCapacity), assumes the choice for the chosen node (the PV with its
``claimRef``, the claim with ``volume.kubernetes.io/selected-node``) so that later pods see it,
and at PreBind writes it to the cluster, where the PV controller
(:mod:`kschedlab.storage.pv_controller`) completes the binding.

The assume caches are the binder's own dicts over the cluster's objects: an assumed PV or claim
hides the stored one until it is written (PreBind) or forgotten (Unreserve). In-tree PVs are
not translated to CSI (upstream translates them only on nodes whose CSINode lists the plugin
as migrated, which changes their node affinity's label keys).

>>> ConflictReason.BIND_CONFLICT.value
"node(s) didn't find available persistent volumes to bind"
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from kschedlab.api.persistentvolume import (
    ANN_BOUND_BY_CONTROLLER,
    ANN_SELECTED_NODE,
    PersistentVolume,
    PersistentVolumeClaim,
)
from kschedlab.api.volume import ObjectReference
from kschedlab.plugins.helper.volumes import ERR_BINDING_MODE_NOT_SET, claim_key, pod_claim_names
from kschedlab.storage.pv_controller import PersistentVolumeController, capacity_for, is_claim_fully_bound
from kschedlab.storage.pv_helpers import (
    NOT_SUPPORTED_PROVISIONER,
    check_node_affinity,
    find_matching_volume,
    is_volume_bound_to_claim,
)

__all__ = ["ConflictReason", "BindingInfo", "DynamicProvision", "PodVolumes", "PodVolumeClaims", "VolumeBinder",
           "BinderError", "match_topology_selector_terms"]


class ConflictReason(str, enum.Enum):
    """Why a node cannot take the pod's volumes (``ConflictReason``)."""

    NODE_CONFLICT = "node(s) had volume node affinity conflict"
    BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind"
    NOT_ENOUGH_SPACE = "node(s) did not have enough free storage"
    PV_NOT_EXIST = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"


class BinderError(Exception):
    """An error of the binder: the scheduling cycle fails with it (``framework.AsStatus``)."""


def match_topology_selector_terms(terms, labels) -> bool:
    """``MatchTopologySelectorTerms``: no term matches every node, else some term must.

    >>> match_topology_selector_terms([], {"zone": "a"})
    True
    """
    if not terms:
        return True
    return any(term.matches(labels) for term in terms)


@dataclass
class BindingInfo:
    """A claim and the volume chosen for it."""

    pv: PersistentVolume
    pvc: PersistentVolumeClaim

    def storage_class_name(self) -> str:
        return self.pv.spec.storage_class_name or ""

    def storage_resource(self) -> tuple[int, int]:
        """(requested bytes of the claim, capacity bytes of the volume)."""
        return self.pvc.requested_storage(), self.pv.storage_capacity()


@dataclass
class DynamicProvision:
    """A claim to provision on the node, and the CSIStorageCapacity that holds it (if checked)."""

    pvc: PersistentVolumeClaim
    node_capacity: object | None = None


@dataclass
class PodVolumes:
    """What a node needs for the pod's unbound claims."""

    static_bindings: list[BindingInfo] = field(default_factory=list)
    dynamic_provisions: list[DynamicProvision] = field(default_factory=list)


@dataclass
class PodVolumeClaims:
    """The pod's claims by state, and the volumes of each class the delayed ones may bind to."""

    bound_claims: list[PersistentVolumeClaim] = field(default_factory=list)
    unbound_claims_delay_binding: list[PersistentVolumeClaim] = field(default_factory=list)
    unbound_claims_immediate: list[PersistentVolumeClaim] = field(default_factory=list)
    unbound_volumes_delay_binding: dict[str, list[PersistentVolume]] = field(default_factory=dict)


class VolumeBinder:
    """``volumeBinder`` over a cluster, with its PV and claim assume caches."""

    def __init__(self, cluster, bind_timeout_seconds: int = 600):
        self.cluster = cluster
        self.bind_timeout_seconds = bind_timeout_seconds
        #: provisioners that do not answer at once (a simulation's ``spec.storage.provisioners``)
        self.delayed_provisioners: frozenset[str] = frozenset()
        self.assumed_pvs: dict[str, PersistentVolume] = {}
        self.assumed_pvcs: dict[str, PersistentVolumeClaim] = {}

    # -- caches -------------------------------------------------------------------------------
    def get_pv(self, name: str) -> PersistentVolume | None:
        found = self.assumed_pvs.get(name)
        return found if found is not None else self.cluster.get("PersistentVolume", name)

    def get_pvc(self, key: str) -> PersistentVolumeClaim | None:
        found = self.assumed_pvcs.get(key)
        return found if found is not None else self.cluster.get("PersistentVolumeClaim", key)

    def list_pvs(self, class_name: str) -> list[PersistentVolume]:
        """``pvCache.ListPVs``: the volumes of a class, assumed ones as assumed."""
        out = []
        for name, pv in self.cluster.objects.get("PersistentVolume", {}).items():
            pv = self.assumed_pvs.get(name, pv)
            if pv.storage_class() == class_name:
                out.append(pv)
        return out

    # -- PreFilter: the pod's claims ----------------------------------------------------------------
    def is_delay_binding_mode(self, claim: PersistentVolumeClaim) -> bool:
        """``IsDelayBindingMode``: the claim's class exists and waits for the first consumer."""
        name = claim.storage_class()
        sc = self.cluster.get("StorageClass", name) if name else None
        if sc is None:
            return False
        if sc.volume_binding_mode is None:
            raise BinderError(ERR_BINDING_MODE_NOT_SET.format(name))
        return sc.is_wait_for_first_consumer()

    def get_pod_volume_claims(self, pod) -> PodVolumeClaims:
        """``GetPodVolumeClaims``."""
        out = PodVolumeClaims()
        for name in pod_claim_names(pod):
            key = claim_key(pod.metadata.namespace or "", name)
            pvc = self.get_pvc(key)
            if pvc is None:
                raise BinderError(f'error getting PVC "{pod.metadata.namespace or ""}/{name}": could not find '
                                  f'v1.PersistentVolumeClaim "{pod.metadata.namespace or ""}/{name}"')
            if is_claim_fully_bound(pvc):
                out.bound_claims.append(pvc)
            elif self.is_delay_binding_mode(pvc) and not pvc.spec.volume_name:
                out.unbound_claims_delay_binding.append(pvc)
            else:
                out.unbound_claims_immediate.append(pvc)
        for pvc in out.unbound_claims_delay_binding:
            class_name = pvc.storage_class()
            if class_name not in out.unbound_volumes_delay_binding:
                out.unbound_volumes_delay_binding[class_name] = self.list_pvs(class_name)
        return out

    # -- Filter ---------------------------------------------------------------------------------
    def find_pod_volumes(self, pod, claims: PodVolumeClaims, node) -> tuple[PodVolumes, list[str]]:
        """``FindPodVolumes``: what ``node`` needs for the pod's volumes and the reasons it does not
        fit (raises :class:`BinderError` on an error)."""
        labels = node.metadata.labels
        bound_ok = unbound_ok = sufficient = pvs_found = True
        volumes = PodVolumes()
        for pvc in claims.bound_claims:
            pv = self.get_pv(pvc.spec.volume_name or "")
            if pv is None:
                pvs_found = False
                break
            if not check_node_affinity(pv, labels):
                bound_ok = False
                break
        if not claims.unbound_claims_delay_binding:
            return volumes, _reasons(bound_ok, unbound_ok, sufficient, pvs_found)
        to_match, to_provision = [], []
        for pvc in claims.unbound_claims_delay_binding:
            selected = pvc.metadata.annotations.get(ANN_SELECTED_NODE)
            if selected is not None:
                if selected != node.metadata.name:
                    unbound_ok = False
                    return volumes, _reasons(bound_ok, unbound_ok, sufficient, pvs_found)
                to_provision.append(pvc)
            else:
                to_match.append(pvc)
        if to_match:
            unbound_ok, volumes.static_bindings, unmatched = self._find_matching_volumes(
                to_match, claims.unbound_volumes_delay_binding, labels)
            to_provision.extend(unmatched)
        if to_provision:
            unbound_ok, sufficient, volumes.dynamic_provisions = self._check_volume_provisions(
                to_provision, node)
        return volumes, _reasons(bound_ok, unbound_ok, sufficient, pvs_found)

    @staticmethod
    def _find_matching_volumes(claims, volumes_by_class, labels):
        """``findMatchingVolumes``: claims by increasing request, each its smallest fitting volume."""
        chosen: dict[str, PersistentVolume] = {}
        bindings, unmatched = [], []
        found = True
        for pvc in sorted(claims, key=lambda c: c.requested_storage()):
            pv = find_matching_volume(pvc, volumes_by_class.get(pvc.storage_class(), []), labels, chosen, True)
            if pv is None:
                unmatched.append(pvc)
                found = False
                continue
            chosen[pv.name] = pv
            bindings.append(BindingInfo(pv, pvc))
        return found, bindings, unmatched

    def _check_volume_provisions(self, claims, node):
        """``checkVolumeProvisions``: (provisioning possible, enough space, what to provision)."""
        provisions = []
        for pvc in claims:
            class_name = pvc.storage_class()
            if not class_name:
                raise BinderError(f'no class for claim "{pvc.namespace}/{pvc.name}"')
            sc = self.cluster.get("StorageClass", class_name)
            if sc is None:
                raise BinderError(f'failed to find storage class "{class_name}"')
            if not sc.provisioner or sc.provisioner == NOT_SUPPORTED_PROVISIONER:
                return False, True, []
            if not match_topology_selector_terms(sc.allowed_topologies, node.metadata.labels):
                return False, True, []
            sufficient, capacity = self._has_enough_capacity(sc.provisioner, pvc, sc, node)
            if not sufficient:
                return True, False, []
            provisions.append(DynamicProvision(pvc, capacity))
        return True, True, provisions

    def _has_enough_capacity(self, provisioner: str, pvc, sc, node):
        """``hasEnoughCapacity``: only for CSI drivers that publish CSIStorageCapacity."""
        if "storage" not in pvc.spec.resources.requests:
            return True, None
        driver = self.cluster.get("CSIDriver", provisioner)
        if driver is None or not driver.spec.storage_capacity:
            return True, None
        capacity = capacity_for(self.cluster, sc.name, pvc.requested_storage(), node.metadata.labels)
        return capacity is not None, capacity

    # -- Reserve / Unreserve ----------------------------------------------------------------------
    def are_pod_volumes_bound(self, pod) -> bool:
        """``arePodVolumesBound``: every claim of the pod is fully bound (as cached)."""
        for name in pod_claim_names(pod):
            pvc = self.get_pvc(claim_key(pod.metadata.namespace or "", name))
            if pvc is None or not is_claim_fully_bound(pvc):
                return False
        return True

    def assume_pod_volumes(self, pod, node_name: str, volumes: PodVolumes) -> bool:
        """``AssumePodVolumes``: the chosen volumes pre-bound and the claims to provision annotated
        with the node, in the caches; True when every claim is bound already."""
        if self.are_pod_volumes_bound(pod):
            return True
        bindings = []
        for b in volumes.static_bindings:
            pv, dirty = _bind_volume_to_claim(b.pv, b.pvc)
            if dirty:
                self.assumed_pvs[pv.name] = pv
            bindings.append(BindingInfo(pv, b.pvc))
        provisions = []
        for p in volumes.dynamic_provisions:
            clone = p.pvc.clone()
            clone.metadata.annotations = {**clone.metadata.annotations, ANN_SELECTED_NODE: node_name}
            clone.mark_set("metadata")
            self.assumed_pvcs[clone.key] = clone
            provisions.append(DynamicProvision(clone, p.node_capacity))
        volumes.static_bindings = bindings
        volumes.dynamic_provisions = provisions
        return False

    def revert_assumed_pod_volumes(self, volumes: PodVolumes) -> None:
        """``RevertAssumedPodVolumes``: forget the assumed volumes and claims."""
        for b in volumes.static_bindings:
            self.assumed_pvs.pop(b.pv.name, None)
        for p in volumes.dynamic_provisions:
            self.assumed_pvcs.pop(p.pvc.key, None)

    # -- PreBind --------------------------------------------------------------------------------
    def bind_pod_volumes(self, pod, node_name: str, volumes: PodVolumes) -> None:
        """``BindPodVolumes`` without a clock: write the assumed objects, let the PV controller
        bind them, and check once that every claim ended bound on a volume the node reaches
        (raises :class:`BinderError`): a claim not bound now never will be."""
        node = self.bind_api_update(node_name, volumes)
        if not self.check_bindings(node, volumes):
            raise BinderError("binding volumes: context deadline exceeded")

    def bind_api_update(self, node_name: str, volumes: PodVolumes):
        """``bindAPIUpdate``: write the assumed volumes and claims; the PV controller binds them
        at once, except the claims whose provisioner is in ``delayed_provisioners`` (a simulation
        provisions those on its clock).  Returns the node."""
        for b in volumes.static_bindings:
            self.cluster.add(b.pv)
            self.assumed_pvs.pop(b.pv.name, None)
        for p in volumes.dynamic_provisions:
            self.cluster.add(p.pvc)
            self.assumed_pvcs.pop(p.pvc.key, None)
        controller = PersistentVolumeController(self.cluster)
        node = self.cluster.nodes.get(node_name)
        if node is None:
            raise BinderError(f'failed to get node "{node_name}": node "{node_name}" not found')
        for b in volumes.static_bindings:
            pvc = self.cluster.get("PersistentVolumeClaim", b.pvc.key)
            if pvc is not None:
                controller.sync_claim(pvc)
        for p in volumes.dynamic_provisions:
            pvc = self.cluster.get("PersistentVolumeClaim", p.pvc.key)
            sc = self.cluster.get("StorageClass", p.pvc.storage_class())
            if pvc is not None and (sc is None or sc.provisioner not in self.delayed_provisioners):
                controller.sync_claim(pvc)
        return node

    def check_bindings(self, node, volumes: PodVolumes) -> bool:
        """``checkBindings``: True when every claim is bound, False while one is still waiting;
        raises :class:`BinderError` when one never will be."""
        for b in volumes.static_bindings:
            pv = self.cluster.get("PersistentVolume", b.pv.name)
            pvc = self.cluster.get("PersistentVolumeClaim", b.pvc.key)
            if pv is None or pvc is None:
                raise BinderError("binding volumes: failed to check binding: object not found")
            if not check_node_affinity(pv, node.metadata.labels):
                raise BinderError(f'binding volumes: pv "{pv.name}" node affinity doesn\'t match node '
                                  f'"{node.metadata.name}": no matching NodeSelectorTerms')
            if pv.spec.claim_ref is None or (not pv.spec.claim_ref.uid and pvc.metadata.uid):
                raise BinderError(f'binding volumes: ClaimRef got reset for pv "{pv.name}"')
            if not is_claim_fully_bound(pvc):
                return False
        for p in volumes.dynamic_provisions:
            pvc = self.cluster.get("PersistentVolumeClaim", p.pvc.key)
            if pvc is None:
                raise BinderError("binding volumes: failed to check provisioning pvc: object not found")
            if pvc.metadata.annotations.get(ANN_SELECTED_NODE) != node.metadata.name:
                raise BinderError(f'binding volumes: provisioning failed for PVC "{pvc.name}"')
            if pvc.spec.volume_name:
                pv = self.cluster.get("PersistentVolume", pvc.spec.volume_name)
                if pv is not None and not check_node_affinity(pv, node.metadata.labels):
                    raise BinderError(f'binding volumes: pv "{pv.name}" node affinity doesn\'t match node '
                                      f'"{node.metadata.name}": no matching NodeSelectorTerms')
            if not is_claim_fully_bound(pvc):
                return False
        return True


def _reasons(bound_ok: bool, unbound_ok: bool, sufficient: bool, pvs_found: bool) -> list[str]:
    out = []
    if not bound_ok:
        out.append(ConflictReason.NODE_CONFLICT.value)
    if not unbound_ok:
        out.append(ConflictReason.BIND_CONFLICT.value)
    if not sufficient:
        out.append(ConflictReason.NOT_ENOUGH_SPACE.value)
    if not pvs_found:
        out.append(ConflictReason.PV_NOT_EXIST.value)
    return out


def _bind_volume_to_claim(pv: PersistentVolume, pvc: PersistentVolumeClaim) -> tuple[PersistentVolume, bool]:
    """``GetBindVolumeToClaim``: a copy of ``pv`` whose claimRef names ``pvc`` (and marked bound by
    the controller when it was not pre-bound), and whether it changed."""
    set_by_controller = not is_volume_bound_to_claim(pv, pvc)
    clone = pv.clone()
    dirty = False
    ref = pv.spec.claim_ref
    if (ref is None or (ref.name or "") != pvc.name or (ref.namespace or "") != pvc.namespace
            or (ref.uid or "") != (pvc.metadata.uid or "")):
        clone.spec.claim_ref = ObjectReference(kind="PersistentVolumeClaim", namespace=pvc.namespace, name=pvc.name,
                                               uid=pvc.metadata.uid, api_version="v1")
        clone.mark_set("spec")
        dirty = True
    if set_by_controller and ANN_BOUND_BY_CONTROLLER not in clone.metadata.annotations:
        clone.metadata.annotations = {**clone.metadata.annotations, ANN_BOUND_BY_CONTROLLER: "yes"}
        clone.mark_set("metadata")
        dirty = True
    return clone, dirty
