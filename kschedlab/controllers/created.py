"""What a controller creates while the cluster runs, admitted as the API server admits it.

A load admits everything it creates in one list (:func:`kschedlab.apiserver.admission.admit`); a
controller that creates a pod later -- the StatefulSet controller's next pod, a ReplicaSet's
replacement -- sends it on its own. :func:`admit_created` admits such objects against what the
cluster holds: its PriorityClasses, RuntimeClasses and StorageClasses, the namespace's LimitRanges
(their defaults land on the pod), then the namespace's ResourceQuotas over the pods already there. A
refusal is recorded as a load records one: on ``cluster.refused``, with the owner's ``FailedCreate``
event on ``cluster.events``.

>>> from kschedlab.api.loader import load_text
>>> from kschedlab.cluster import Cluster
>>> from kschedlab.controllers.manifests import create
>>> cluster = Cluster(create(load_text('''
... apiVersion: v1
... kind: LimitRange
... metadata: {name: defaults, namespace: default}
... spec: {limits: [{type: Container, defaultRequest: {cpu: 250m}}]}
... ---
... apiVersion: apps/v1
... kind: ReplicaSet
... metadata: {name: web, namespace: default}
... spec:
...   replicas: 0
...   selector: {matchLabels: {app: web}}
...   template: {metadata: {labels: {app: web}}, spec: {containers: [{name: c, image: nginx}]}}
... ''')))
>>> from kschedlab.controllers.workloads import expand_replicaset
>>> rs = cluster.get("ReplicaSet", "default/web")
>>> rs.spec.replicas = 1
>>> (pod,) = admit_created(cluster, rs, expand_replicaset(rs))
>>> str(pod.spec.containers[0].resources.requests["cpu"])
'250m'
"""

from __future__ import annotations

from typing import Any

from ..api.core import Pod
from ..api.errors import ManifestError
from ..api.meta import KubeObject, TypedObject
from ..api.resourcequota import QuotaAdmission, QuotaRefused
from ..apiserver.admission import admit
from ..apiserver.apply import Refusal, failed_create

__all__ = ["admit_created"]

#: the kinds admission reads besides the new objects (cluster-wide, then per namespace)
_CLASSES = ("PriorityClass", "RuntimeClass", "StorageClass")
_PER_NAMESPACE = ("LimitRange",)


def admit_created(cluster: Any, owner: KubeObject, objects: list[TypedObject],
                  gates: Any = None) -> list[TypedObject] | None:
    """``objects`` (a pod last, its claims before it) created by ``owner``'s controller, admitted;
    None when the API server refuses one of them (the refusals and ``owner``'s event recorded on
    ``cluster``). ``gates``: FeatureGates or a dict of overrides."""
    ns = owner.metadata.namespace or "default"
    context = [o for kind in _CLASSES for o in cluster.of_kind(kind)]
    context += [o for kind in _PER_NAMESPACE for o in cluster.of_kind(kind) if o.metadata.namespace == ns]
    refused: list[Refusal] = []
    served = dict(getattr(gates, "overrides", gates) or {})
    out = admit([*context, *objects], feature_gates=served, refused=refused)[len(context):]
    pod = out[-1] if out else None
    if not refused and isinstance(pod, Pod):
        quota = QuotaAdmission([q for q in cluster.of_kind("ResourceQuota") if q.metadata.namespace == ns])
        for p in cluster.pods.values():
            if (p.metadata.namespace or "default") == ns:
                quota.observe(p)
        try:
            quota.admit(pod)
        except QuotaRefused as err:
            refused.append(Refusal(pod, [ManifestError(str(err), obj=pod.describe())]))
    if refused:
        cluster.refused.extend(refused)
        cluster.events.extend(failed_create([owner], refused))
        return None
    return out
