"""The StatefulSet controller while the cluster runs: an ``OrderedReady`` set's next pod is created
once the pods before it are Running and Ready (upstream ``stateful_set_control.go``).

:func:`~kschedlab.controllers.workloads.expand_statefulset` says which pods the controller creates,
given the pods there are; a load creates an ``OrderedReady`` set's first missing pod only.
:class:`StatefulSetController` asks again when one of a set's pods becomes ready -- ``kschedlab
schedule`` takes a pod it binds as Running and Ready (there is no kubelet there), a simulation a pod
its kubelet starts -- admits the new pod as the API server would (the cluster's PriorityClasses,
RuntimeClasses, StorageClasses, the namespace's LimitRanges and ResourceQuotas) and returns it, with the
claims of its ``volumeClaimTemplates``, to be added to the cluster. A refused pod is recorded as a load records
one (``cluster.refused``, a ``FailedCreate`` event) and stops the set there, as the controller's
failed create does. :func:`waiting_sets` names the sets still short of pods and the pod each waits on.

>>> from kschedlab.api.loader import load_text
>>> from kschedlab.cluster import Cluster
>>> from kschedlab.controllers.manifests import create
>>> cluster = Cluster(create(load_text('''
... apiVersion: apps/v1
... kind: StatefulSet
... metadata: {name: db, namespace: default}
... spec:
...   serviceName: db
...   replicas: 2
...   selector: {matchLabels: {app: db}}
...   template:
...     metadata: {labels: {app: db}}
...     spec: {containers: [{name: pg, image: postgres}]}
... ''')))
>>> sorted(cluster.pods), waiting_sets(cluster)
(['default/db-0'], [('StatefulSet default/db', 'db-1 is created once db-0 is Running and Ready (1 of 2 pods)')])
>>> [p.key for p in StatefulSetController(cluster).became_ready("default/db-0")]
['default/db-1']
"""

from __future__ import annotations

from typing import Any, Callable

from ..api.apps import StatefulSet
from ..api.core import Pod
from ..api.meta import TypedObject
from .created import admit_created
from .volume_claims import statefulset_claims
from .workloads import expand_statefulset, namespace_pods, ordered_ready, running_and_ready, statefulset_ordinals

__all__ = ["StatefulSetController", "waiting_sets"]


class StatefulSetController:
    """The next pods of the StatefulSet owning a pod that became ready. A pod counts as Running and
    Ready when its status says so or :meth:`became_ready` was told of it. ``seed`` names and UIDs
    the new pods as a load would; ``gates``: the feature gates admission runs with."""

    def __init__(self, cluster: Any, *, seed: int = 0, gates: Any = None):
        self.cluster, self.seed, self.gates = cluster, seed, gates
        #: pods told ready by :meth:`became_ready`
        self.ready_keys: set[str] = set()

    def ready(self, pod: Pod) -> bool:
        """Whether the controller takes ``pod`` as Running and Ready."""
        return pod.key in self.ready_keys or running_and_ready(pod)

    def became_ready(self, key: str) -> list[TypedObject]:
        """Pod ``key`` is Running and Ready: what its StatefulSet's controller creates now, admitted,
        to be added to the cluster in order (each pod after the claims of its volumeClaimTemplates
        it lacks); nothing when the pod has no StatefulSet or the set waits on another pod."""
        pod = self.cluster.pods.get(key)
        sts = _owner(self.cluster, pod) if pod is not None else None
        if sts is None:
            return []
        self.ready_keys.add(key)
        ns = sts.metadata.namespace or "default"
        pods = namespace_pods(self.cluster, ns)
        made: list[TypedObject] = []
        have = self.cluster.objects.get("PersistentVolumeClaim", {})
        for new in expand_statefulset(sts, pods, self.seed, ready=self.ready):
            claims = [c for c in statefulset_claims(sts, new) if c.key not in have]
            admitted = admit_created(self.cluster, sts, [*claims, new], self.gates)
            if admitted is None:
                break
            made.extend(admitted)
        return made


def _owner(cluster: Any, pod: Pod) -> StatefulSet | None:
    ref = pod.metadata.controller_ref()
    if ref is None or ref.kind != "StatefulSet":
        return None
    found = cluster.objects.get("StatefulSet", {}).get(f"{pod.metadata.namespace or 'default'}/{ref.name}")
    return found if found is not None and found.metadata.uid in (None, ref.uid) else None


def waiting_sets(cluster: Any, ready: Callable[[Pod], bool] | None = None) -> list[tuple[str, str]]:
    """``(StatefulSet <key>, why)`` for each ``OrderedReady`` set with fewer pods than replicas:
    the pod the controller creates next and the pod it waits on."""
    ready = running_and_ready if ready is None else ready
    out = []
    for sts in cluster.objects.get("StatefulSet", {}).values():
        if not ordered_ready(sts):
            continue
        ns = sts.metadata.namespace or "default"
        pods = {p.metadata.name: p for p in namespace_pods(cluster, ns)}
        wanted = [f"{sts.metadata.name}-{o}" for o in statefulset_ordinals(sts)]
        have = [n for n in wanted if n in pods]
        missing = next((n for n in wanted if n not in pods), None)
        blocking = next((n for n in have if not ready(pods[n])), None)
        if missing is not None and blocking is not None:
            out.append((f"StatefulSet {sts.key}", f"{missing} is created once {blocking} is Running and Ready "
                                                  f"({len(have)} of {len(wanted)} pods)"))
    return out
