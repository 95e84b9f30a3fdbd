"""The PersistentVolumeClaims controllers create for pods.

* The StatefulSet controller creates, for each pod ``<set>-<ordinal>`` and each of
  ``spec.volumeClaimTemplates``, the claim ``<template>-<set>-<ordinal>`` in the set's namespace,
  labelled with the template's labels and the set's ``selector.matchLabels``
  (upstream ``getPersistentVolumeClaims``); the pod's volume of that name refers to it. For a
  pod that already exists it does so only while the pod is Pending (a running pod's claim
  missing from a dump is not created again).
* The ephemeral volume controller creates, for a pod's generic ephemeral volume (``ephemeral``),
  the claim ``<pod>-<volume>`` owned by the pod (upstream ``ephemeral.VolumeClaimName``).

A claim that already exists (a cluster dump) is not created again.

>>> from kschedlab.api.core import Pod
>>> pod = Pod.model_validate({"metadata": {"name": "web", "namespace": "default", "uid": "u1"},
...     "spec": {"volumes": [{"name": "scratch", "ephemeral": {"volumeClaimTemplate": {
...         "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}}}]}})
>>> [(c.key, c.metadata.owner_references[0].name) for c in ephemeral_claims(pod)]
[('default/web-scratch', 'web')]
"""

from __future__ import annotations

from typing import Iterable

from ..api.apps import StatefulSet
from ..api.core import OwnerReference, Pod
from ..api.meta import ObjectMeta
from ..api.persistentvolume import PersistentVolumeClaim

__all__ = ["statefulset_claim_name", "statefulset_claims", "ephemeral_claim_name", "ephemeral_claims",
           "create_claims"]


def statefulset_claim_name(template: str, set_name: str, ordinal: int) -> str:
    """``getPersistentVolumeClaimName``.

    >>> statefulset_claim_name("data", "cassandra", 2)
    'data-cassandra-2'
    """
    return f"{template}-{set_name}-{ordinal}"


def statefulset_claims(sts: StatefulSet, pod: Pod) -> list[PersistentVolumeClaim]:
    """The claims the StatefulSet controller creates for one of its pods ``<set>-<ordinal>``."""
    ordinal = int(pod.name.rsplit("-", 1)[1])
    selector_labels = dict(sts.spec.selector.match_labels) if sts.spec.selector else {}
    out = []
    for t in sts.spec.volume_claim_templates:
        claim = _claim(ObjectMeta(name=statefulset_claim_name(t.name, sts.name, ordinal),
                                  namespace=sts.metadata.namespace), t, {**t.metadata.labels, **selector_labels})
        claim._source = sts._source
        out.append(claim)
    return out


def _claim(meta: ObjectMeta, template, labels: dict[str, str]) -> PersistentVolumeClaim:
    """A claim as its controller creates it from a template (``metadata`` labels and annotations, ``spec``)."""
    if labels:
        meta.labels = labels
    if template.metadata.annotations:
        meta.annotations = dict(template.metadata.annotations)
    return PersistentVolumeClaim(api_version="v1", kind="PersistentVolumeClaim", metadata=meta,
                                 spec=template.spec.clone())


def ephemeral_claim_name(pod: Pod, volume_name: str) -> str:
    """``ephemeral.VolumeClaimName``: ``<pod>-<volume>``."""
    return f"{pod.name}-{volume_name}"


def ephemeral_claims(pod: Pod) -> list[PersistentVolumeClaim]:
    """The claims the ephemeral volume controller creates for ``pod``'s generic ephemeral volumes."""
    out = []
    for v in pod.spec.volumes:
        if v.ephemeral is None or v.ephemeral.volume_claim_template is None:
            continue
        t = v.ephemeral.volume_claim_template
        meta = ObjectMeta(name=ephemeral_claim_name(pod, v.name or ""), namespace=pod.metadata.namespace,
                          owner_references=[OwnerReference(api_version="v1", kind="Pod", name=pod.name,
                                                           uid=pod.metadata.uid, controller=True,
                                                           block_owner_deletion=True)])
        claim = _claim(meta, t, dict(t.metadata.labels))
        claim._source = pod._source
        out.append(claim)
    return out


def create_claims(objects: Iterable) -> list[PersistentVolumeClaim]:
    """The claims of ``objects``' pending StatefulSet pods and of ephemeral volumes that ``objects`` lacks
    (a claim is known by namespace and name), in the order of the pods."""
    objects = list(objects)
    have = {o.key for o in objects if isinstance(o, PersistentVolumeClaim)}
    sets = {(o.namespace, o.name): o for o in objects if isinstance(o, StatefulSet)}
    out: list[PersistentVolumeClaim] = []
    for pod in objects:
        if not isinstance(pod, Pod):
            continue
        made: list[PersistentVolumeClaim] = []
        ref = pod.metadata.owner_references[0] if pod.metadata.owner_references else None
        if (ref is not None and ref.kind == "StatefulSet" and (pod.namespace, ref.name) in sets
                and (pod.status is None or pod.status.phase in (None, "", "Pending"))):
            made.extend(statefulset_claims(sets[(pod.namespace, ref.name)], pod))
        made.extend(ephemeral_claims(pod))
        for c in made:
            if c.key not in have:
                have.add(c.key)
                out.append(c)
    return out
