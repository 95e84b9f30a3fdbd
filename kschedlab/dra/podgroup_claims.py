"""ResourceClaims of a PodGroup (``spec.resourceClaims``, feature gate DRAWorkloadResourceClaims,
beta and off by default at v1.37; seed podgroup-api).

A pod of the group uses the group's claim when one of its own ``spec.resourceClaims`` entries
matches a group entry exactly: the same ``name`` and the same ``resourceClaimName`` or
``resourceClaimTemplateName``.  Then

* a template makes one claim for the whole group (not one per pod): named
  ``<podgroup>-<claim>-<5 random characters>``, controlled by the PodGroup, recorded in the
  PodGroup's ``status.resourceClaimStatuses`` and copied into each pod's
  ``status.resourceClaimStatuses``;
* the scheduler reserves the claim for the PodGroup (``reservedFor``: ``scheduling.k8s.io``
  ``podgroups``) instead of for the pod, so any number of the group's pods share the devices; the
  first pod's allocation (and its node selector) holds for the others;
* the claim stays allocated when pods go; a template claim is deleted with its PodGroup.

The API server drops ``spec.resourceClaims`` from a PodGroup created with the gate off, so a
group's stored claims mean the gate was on.

>>> from kschedlab.api.podgroup import PodGroup
>>> from kschedlab.api.core import PodResourceClaim
>>> pg = PodGroup.model_validate({"metadata": {"name": "training-group", "namespace": "some-ns", "uid": "u1"},
...     "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}, "resourceClaims": [
...         {"name": "pg-claim", "resourceClaimName": "my-pg-claim"}]}})
>>> matching_group_claim(pg, PodResourceClaim(name="pg-claim", resource_claim_name="my-pg-claim")).name
'pg-claim'
>>> matching_group_claim(pg, PodResourceClaim(name="pg-claim", resource_claim_name="other")) is None
True
>>> consumer_reference(pg)
{'apiGroup': 'scheduling.k8s.io', 'resource': 'podgroups', 'name': 'training-group', 'uid': 'u1'}
"""

from __future__ import annotations

import copy
import random
from typing import Any

from kschedlab.dra.devices import as_dict
from kschedlab.dra.manager import dra_manager

_NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
_MAX_BASE_LEN = 57
GROUP = "scheduling.k8s.io"


def pod_group_of(cluster, pod) -> Any | None:
    """The PodGroup ``pod`` belongs to (``spec.schedulingGroup.podGroupName``), None when it has none
    or the group does not exist."""
    group = pod.spec.scheduling_group
    if group is None or not group.pod_group_name:
        return None
    ns = pod.metadata.namespace or ""
    store = cluster.objects.get("PodGroup", {})
    return store.get(f"{ns}/{group.pod_group_name}" if ns else group.pod_group_name)


def matching_group_claim(pod_group, pod_claim) -> Any | None:
    """The group's ``spec.resourceClaims`` entry ``pod_claim`` matches exactly (name and claim or
    template), else None."""
    if pod_group is None:
        return None
    for gc in pod_group.spec.resource_claims:
        if (gc.name == pod_claim.name and gc.resource_claim_name == pod_claim.resource_claim_name
                and gc.resource_claim_template_name == pod_claim.resource_claim_template_name):
            return gc
    return None


def consumer_reference(pod_group) -> dict:
    """``resourceclaim.BindTo`` for a group claim: the PodGroup as ``reservedFor`` entry."""
    return {"apiGroup": GROUP, "resource": "podgroups", "name": pod_group.metadata.name,
            "uid": pod_group.metadata.uid or ""}


def is_reserved_for_group(claim: dict, pod_group) -> bool:
    """The claim's ``reservedFor`` names the PodGroup (by UID).

    >>> from types import SimpleNamespace as NS
    >>> is_reserved_for_group({"status": {"reservedFor": [{"resource": "podgroups", "uid": "u1"}]}},
    ...                       NS(metadata=NS(uid="u1")))
    True
    """
    uid = pod_group.metadata.uid or ""
    return any((r.get("uid") or "") == uid and r.get("resource") == "podgroups"
               for r in (claim.get("status") or {}).get("reservedFor") or [])


def group_claim_name(pod_group, group_claim) -> str | None:
    """The name of the claim behind a group entry: its ``resourceClaimName``, or the generated one
    from the group's ``status.resourceClaimStatuses`` (None before it is created)."""
    if group_claim.resource_claim_name:
        return group_claim.resource_claim_name
    for status in pod_group.status.resource_claim_statuses:
        if status.name == group_claim.name:
            return status.resource_claim_name
    return None


def generate_name_base(group_name: str, claim_name: str) -> str:
    """``<podgroup>-<claim>-``, cut as the resourceclaim controller cuts pod claim names.

    >>> generate_name_base("training-group", "pg-claim-template")
    'training-group-pg-claim-template-'
    """
    base = f"{group_name}-{claim_name}-"
    if len(base) > _MAX_BASE_LEN:
        n = len(base)
        base = group_name[:len(group_name) * _MAX_BASE_LEN // n] + "-" + claim_name[:len(claim_name) * _MAX_BASE_LEN // n]
    return base


def ensure_group_claim(cluster, pod_group, group_claim, *, seed: int = 0) -> tuple[str | None, str | None]:
    """The group's claim for a template entry, created once per group when missing:
    ``(claim name, None)`` or ``(None, error)`` when the template does not exist."""
    from kschedlab.api.podgroup import PodGroupResourceClaimStatus

    name = group_claim_name(pod_group, group_claim)
    if name is not None:
        return name, None
    ns = pod_group.metadata.namespace or ""
    tname = group_claim.resource_claim_template_name
    template = cluster.objects.get("ResourceClaimTemplate", {}).get(f"{ns}/{tname}" if ns else tname)
    if template is None:
        return None, f'resource claim template "{tname}": resourceclaimtemplate.resource.k8s.io "{tname}" not found'
    template = as_dict(template)
    manager = dra_manager(cluster)
    base = generate_name_base(pod_group.metadata.name, group_claim.name)
    rng = random.Random(f"kschedlab/resourceclaim/{seed}/{ns}/{base}")
    while True:
        name = base + "".join(rng.choice(_NAME_ALPHABET) for _ in range(5))
        if manager.get_claim(ns, name) is None:
            break
    tmeta = (template.get("spec") or {}).get("metadata") or {}
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
             "metadata": {"name": name, "generateName": base, "namespace": ns,
                          "uid": f"{pod_group.metadata.uid or pod_group.metadata.name}-{group_claim.name}",
                          "ownerReferences": [{"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
                                               "name": pod_group.metadata.name, "uid": pod_group.metadata.uid or "",
                                               "controller": True, "blockOwnerDeletion": True}],
                          "annotations": dict(tmeta.get("annotations") or {}),
                          "labels": dict(tmeta.get("labels") or {})},
             "spec": copy.deepcopy((template.get("spec") or {}).get("spec") or {})}
    manager.update_claim(claim)
    pod_group.status.resource_claim_statuses.append(
        PodGroupResourceClaimStatus(name=group_claim.name, resource_claim_name=name))
    return name, None


def pod_group_deleted(cluster, pod_group) -> None:
    """The PodGroup is gone: the claims it controls are deleted."""
    manager = dra_manager(cluster)
    uid = pod_group.metadata.uid or ""
    for claim in manager.list_claims():
        refs = (claim.get("metadata") or {}).get("ownerReferences") or []
        if any(r.get("controller") and r.get("kind") == "PodGroup" and (r.get("uid") or "") == uid for r in refs):
            manager.delete_claim(claim)
