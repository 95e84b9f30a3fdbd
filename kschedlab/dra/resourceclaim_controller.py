"""The ResourceClaim controller of kube-controller-manager (upstream ``pkg/controller/resourceclaim``),
over a :class:`~kschedlab.cluster.Cluster`.

- For every ``spec.resourceClaims`` entry naming a ResourceClaimTemplate, it creates one claim
  from the template, owned by the pod, named ``<pod>-<claim name>-<5 random characters>`` (the
  base truncated proportionally to 57 characters; the suffix comes from a seeded generator so
  runs repeat), annotated ``resource.kubernetes.io/pod-claim-name``, and records it in the pod's
  ``status.resourceClaimStatuses``. A missing template leaves the pod without its claim: the
  scheduler keeps it out of scheduling (``ResourceClaim not created yet``) and the controller
  reports ``resource claim template "<name>": ...not found``.
- For a pod bound by ``spec.nodeName`` (the scheduler skipped), it reserves claims that are
  already allocated; a pod whose claims are missing or unallocated cannot start
  (:func:`pod_runnable` says why).
- When a pod is deleted, it leaves ``reservedFor`` of its claims; a claim reserved by no one is
  deallocated, and a claim generated for the pod is deleted.

>>> from kschedlab.cluster import Cluster
>>> from kschedlab.api.loader import load_text
>>> from kschedlab.apiserver.admission import admit
>>> c = Cluster(admit(load_text('''
... apiVersion: resource.k8s.io/v1
... kind: ResourceClaimTemplate
... metadata: {name: gpu}
... spec: {spec: {devices: {requests: [{name: g, exactly: {deviceClassName: gpu}}]}}}
... ---
... apiVersion: v1
... kind: Pod
... metadata: {name: web}
... spec:
...   containers: [{name: c, image: nginx}]
...   resourceClaims: [{name: gpu, resourceClaimTemplateName: gpu}]
... ''')))
>>> ctrl = ResourceClaimController(c)
>>> ctrl.sync()
[]
>>> [s.resource_claim_name for s in c.pods["default/web"].status.resource_claim_statuses]
['web-gpu-lpnf9']
>>> ctrl.pod_deleted(c.pods["default/web"]); sorted(c.objects.get("ResourceClaim", {}))
[]
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass

from kschedlab.dra.devices import as_dict
from kschedlab.dra.manager import RESERVED_FOR_MAX_SIZE, dra_manager
from kschedlab.dra.podgroup_claims import ensure_group_claim, matching_group_claim, pod_group_of

__all__ = ["ResourceClaimController", "ControllerError", "pod_runnable", "POD_CLAIM_NAME_ANNOTATION",
           "generate_name_base"]

#: ``podResourceClaimAnnotation``: which pod claim a generated claim is for
POD_CLAIM_NAME_ANNOTATION = "resource.kubernetes.io/pod-claim-name"
_NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
_MAX_BASE_LEN = 57


@dataclass(frozen=True)
class ControllerError:
    """One pod the controller could not handle, and upstream's error text."""

    pod: str
    message: str


def generate_name_base(pod_name: str, claim_name: str) -> str:
    """``<pod>-<claim>-``; longer than 57 characters, both parts are cut proportionally and
    joined by one hyphen (no trailing one, as upstream).

    >>> generate_name_base("web", "gpu")
    'web-gpu-'
    >>> b = generate_name_base("p" * 60, "c" * 30); len(b), b[-3:]
    (56, 'ccc')
    """
    base = f"{pod_name}-{claim_name}-"
    if len(base) > _MAX_BASE_LEN:
        n = len(base)
        base = pod_name[:len(pod_name) * _MAX_BASE_LEN // n] + "-" + claim_name[:len(claim_name) * _MAX_BASE_LEN // n]
    return base


class ResourceClaimController:
    """Keeps template-generated claims and pod reservations in step with the pods (module doc)."""

    def __init__(self, cluster, seed: int = 0) -> None:
        self.cluster = cluster
        self.seed = seed

    @property
    def manager(self):
        return dra_manager(self.cluster)

    def sync(self) -> list[ControllerError]:
        """Handle every pod once (``syncPod``); returns the pods it could not handle and why."""
        errors = []
        for key, pod in list(self.cluster.pods.items()):
            errors.extend(ControllerError(key, msg) for msg in self.sync_pod(pod))
        return errors

    def sync_pod(self, pod) -> list[str]:
        """Create the pod's template claims; for a bound pod, reserve its allocated claims."""
        errors = []
        if not pod.spec.resource_claims or (pod.metadata.deletion_timestamp is not None):
            return errors
        for pod_claim in pod.spec.resource_claims:
            if not pod_claim.resource_claim_template_name:
                continue
            message = self._handle_template_claim(pod, pod_claim)
            if message:
                errors.append(message)
        if pod.spec.node_name:
            self._reserve_for_bound_pod(pod)
        return errors

    def _handle_template_claim(self, pod, pod_claim) -> str | None:
        from kschedlab.api.core import PodResourceClaimStatus

        statuses = pod.status.resource_claim_statuses
        if any(s.name == pod_claim.name for s in statuses):
            return None
        ns = pod.metadata.namespace or ""
        group = pod_group_of(self.cluster, pod)
        group_claim = matching_group_claim(group, pod_claim)
        if group_claim is not None:  # one claim for the whole PodGroup (DRAWorkloadResourceClaims)
            name, error = ensure_group_claim(self.cluster, group, group_claim, seed=self.seed)
            if error:
                return error
            statuses.append(PodResourceClaimStatus(name=pod_claim.name, resource_claim_name=name))
            return None
        existing = self._find_pod_claim(pod, pod_claim.name)
        if existing is None:
            template = self.cluster.objects.get("ResourceClaimTemplate", {}).get(
                f"{ns}/{pod_claim.resource_claim_template_name}" if ns else pod_claim.resource_claim_template_name)
            if template is None:
                name = pod_claim.resource_claim_template_name
                return f'resource claim template "{name}": resourceclaimtemplate.resource.k8s.io "{name}" not found'
            existing = self._create_from_template(pod, pod_claim.name, as_dict(template))
        statuses.append(PodResourceClaimStatus(name=pod_claim.name,
                                               resource_claim_name=existing["metadata"]["name"]))
        return None

    def _find_pod_claim(self, pod, pod_claim_name: str) -> dict | None:
        """``findPodResourceClaim``: a claim owned by the pod for this pod claim (an orphan of an
        interrupted sync)."""
        ns, uid = pod.metadata.namespace or "", pod.metadata.uid or ""
        for obj in self.manager.claims_controlled_by(uid):  # upstream looks them up by owner too
            if isinstance(obj, dict):
                meta = obj.get("metadata") or {}
                namespace, annotations = meta.get("namespace"), meta.get("annotations") or {}
            else:
                namespace, annotations = obj.metadata.namespace, obj.metadata.annotations
            if (namespace or "") == ns and annotations.get(POD_CLAIM_NAME_ANNOTATION) == pod_claim_name:
                return as_dict(obj)
        return None

    def _create_from_template(self, pod, pod_claim_name: str, template: dict) -> dict:
        ns = pod.metadata.namespace or ""
        tmeta = ((template.get("spec") or {}).get("metadata") or {})
        annotations = dict(tmeta.get("annotations") or {})
        annotations[POD_CLAIM_NAME_ANNOTATION] = pod_claim_name
        base = generate_name_base(pod.metadata.name, pod_claim_name)
        rng = random.Random(f"kschedlab/resourceclaim/{self.seed}/{ns}/{base}")
        while True:
            name = base + "".join(rng.choice(_NAME_ALPHABET) for _ in range(5))
            if self.manager.get_claim(ns, name) is None:
                break
        claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                 "metadata": {"name": name, "generateName": base, "namespace": ns or None,
                              "uid": f"{pod.metadata.uid or pod.metadata.name}-{pod_claim_name}",
                              "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": pod.metadata.name,
                                                   "uid": pod.metadata.uid or "", "controller": True,
                                                   "blockOwnerDeletion": True}],
                              "annotations": annotations, "labels": dict(tmeta.get("labels") or {})},
                 "spec": copy.deepcopy((template.get("spec") or {}).get("spec") or {})}
        if not ns:
            del claim["metadata"]["namespace"]
        self.manager.update_claim(claim)
        # (the stored claim's kept dump, read-only: the scheduler's first read of the claim takes it
        # as it is, instead of dumping the claim a second time)
        created = self.manager.claim_dict(ns, name)
        assert created is not None
        return created

    def _reserve_for_bound_pod(self, pod) -> None:
        """A pod bound without the scheduler: reserve each allocated claim for it, if room."""
        for claim in self._claims_of(pod):
            status = claim.get("status") or {}
            if not status.get("allocation"):
                continue
            reserved = status.get("reservedFor") or []
            if any((r.get("uid") or "") == (pod.metadata.uid or "") for r in reserved):
                continue
            if len(reserved) >= RESERVED_FOR_MAX_SIZE:
                continue
            claim = copy.deepcopy(claim)
            claim["status"]["reservedFor"] = [*reserved, {"resource": "pods", "name": pod.metadata.name,
                                                          "uid": pod.metadata.uid or ""}]
            self.manager.update_claim(claim)

    def _claims_of(self, pod) -> list[dict]:
        out = []
        ns = pod.metadata.namespace or ""
        statuses = {s.name: s.resource_claim_name for s in pod.status.resource_claim_statuses}
        for pc in pod.spec.resource_claims:
            name = pc.resource_claim_name or statuses.get(pc.name)
            claim = self.manager.get_claim(ns, name) if name else None
            if claim is not None:
                out.append(claim)
        return out

    def pod_deleted(self, pod) -> None:
        """The pod is gone: leave ``reservedFor``, deallocate claims reserved by no one, delete the
        claims generated for it."""
        uid = pod.metadata.uid or ""
        for claim in self.manager.list_claims():
            meta = claim.get("metadata") or {}
            status = claim.get("status") or {}
            reserved = status.get("reservedFor") or []
            owned = any(r.get("controller") and (r.get("uid") or "") == uid and r.get("name") == pod.metadata.name
                        for r in meta.get("ownerReferences") or [])
            if owned:
                self.manager.delete_claim(claim)
                continue
            if not any((r.get("uid") or "") == uid for r in reserved):
                continue
            claim = copy.deepcopy(claim)
            claim["status"]["reservedFor"] = [r for r in reserved if (r.get("uid") or "") != uid]
            if not claim["status"]["reservedFor"]:
                claim["status"]["allocation"] = None
                claim["status"]["devices"] = []
                claim["metadata"]["finalizers"] = [f for f in meta.get("finalizers") or []
                                                   if f != "resource.kubernetes.io/delete-protection"]
            self.manager.update_claim(claim)


def pod_runnable(cluster, pod) -> tuple[bool, str]:
    """Whether the kubelet could start a bound pod as far as its claims go: each claim must exist,
    be allocated and be reserved for the pod; else the reason it keeps waiting.

    >>> from kschedlab.cluster import Cluster
    >>> from kschedlab.api.core import Pod
    >>> p = Pod.model_validate({"metadata": {"name": "p", "namespace": "default"}, "spec": {
    ...     "nodeName": "n1", "resourceClaims": [{"name": "gpu", "resourceClaimName": "gpu-claim"}]}})
    >>> pod_runnable(Cluster(), p)
    (False, 'waiting for resource claim gpu-claim: not found')
    """
    manager = dra_manager(cluster)
    ns = pod.metadata.namespace or ""
    statuses = {s.name: s.resource_claim_name for s in pod.status.resource_claim_statuses}
    for pc in pod.spec.resource_claims:
        name = pc.resource_claim_name or statuses.get(pc.name)
        if name is None:
            if pc.resource_claim_template_name:
                return False, f'waiting for the resource claim of "{pc.name}" to be created'
            continue
        claim = manager.get_claim(ns, name)
        if claim is None:
            return False, f"waiting for resource claim {name}: not found"
        status = claim.get("status") or {}
        if not status.get("allocation"):
            return False, f"waiting for resource claim {name}: not allocated"
        group = pod_group_of(cluster, pod)
        uids = {pod.metadata.uid or ""} | ({group.metadata.uid or ""} if group is not None else set())
        if not any((r.get("uid") or "") in uids for r in status.get("reservedFor") or []):
            return False, f"waiting for resource claim {name}: not reserved for the pod"
    return True, ""




def describe_claims(cluster) -> list[dict]:
    """Every ResourceClaim as a short summary: name, allocated devices
    (``driver/pool/device`` with the request), the node selector's nodes and the consumers.

    >>> from kschedlab.cluster import Cluster
    >>> from kschedlab.api.resource import ResourceClaim
    >>> c = Cluster([ResourceClaim.model_validate({"metadata": {"name": "c", "namespace": "default"},
    ...     "status": {"allocation": {"devices": {"results": [{"request": "r", "driver": "d", "pool": "p",
    ...     "device": "x"}]}}, "reservedFor": [{"resource": "pods", "name": "web", "uid": "1"}]}})])
    >>> describe_claims(c)
    [{'claim': 'default/c', 'allocated': True, 'devices': ['d/p/x (r)'], 'reservedFor': ['web']}]
    """
    out = []
    for claim in dra_manager(cluster).list_claims():
        meta = claim.get("metadata") or {}
        status = claim.get("status") or {}
        allocation = status.get("allocation") or {}
        results = (allocation.get("devices") or {}).get("results") or []
        ns = meta.get("namespace")
        out.append({"claim": f"{ns}/{meta.get('name', '')}" if ns else meta.get("name", ""),
                    "allocated": bool(allocation),
                    "devices": [f"{r.get('driver')}/{r.get('pool')}/{r.get('device')} ({r.get('request')})"
                                for r in results],
                    "reservedFor": [r.get("name", "") for r in status.get("reservedFor") or []]})
    return out
