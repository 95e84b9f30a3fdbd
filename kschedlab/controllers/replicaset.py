"""What the ReplicaSet controller does while the cluster runs: replace a pod that is gone.

The controller counts a pod that is terminating or terminal out of its replicas, so it creates the
replacement at once: after a kubelet eviction or an OOM kill, and while a preemption victim or a pod the
taint manager evicts still holds its node. A replacement is admitted as the API server admits it
(:func:`~kschedlab.controllers.created.admit_created`); a refused one is recorded on the cluster and the
controller stops there, as ``slowStartBatch`` does.
"""

from __future__ import annotations

from typing import Any, Iterable

from ..api.core import Pod
from ..api.meta import TypedObject
from .created import admit_created
from .workloads import expand_replicaset, namespace_pods

__all__ = ["replicaset_replacements"]


def replicaset_replacements(cluster: Any, pod: Pod, *, seed: int = 0, gates: Any = None,
                            seen: Iterable[str] = ()) -> list[TypedObject]:
    """The pods ``pod``'s ReplicaSet creates now that ``pod`` is gone or terminating, admitted; none
    when it has no ReplicaSet in ``cluster``.  A replacement never reuses the name of the pod it
    replaces, nor of a pod the run has seen (``seen``: ``namespace/name`` keys)."""
    ref = pod.metadata.controller_ref()
    if ref is None or ref.kind != "ReplicaSet":
        return []
    ns = pod.metadata.namespace or "default"
    rs = next((r for r in cluster.of_kind("ReplicaSet")
               if r.metadata.name == ref.name and (r.metadata.namespace or "default") == ns), None)
    if rs is None:
        return []
    pods = namespace_pods(cluster, ns)
    prefix = f"{pod.metadata.namespace or ''}/"
    taken = {p.metadata.name or "" for p in pods} | {pod.metadata.name or ""} | {k[len(prefix):] for k in seen
                                                                                 if k.startswith(prefix)}
    out: list[TypedObject] = []
    for new in expand_replicaset(rs, pods, seed=seed, taken=taken):
        admitted = admit_created(cluster, rs, [new], gates)
        if admitted is None:  # slowStartBatch: the controller stops at a failed create
            break
        out.extend(admitted)
    return out
