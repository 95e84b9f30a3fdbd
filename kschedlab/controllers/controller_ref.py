"""Which objects a controller owns, the way upstream's ``ControllerRefManager`` decides.

An object belongs to a controller when its controller owner reference (the one with
``controller: true``) names it: by UID when both sides have one, else by kind and name
(hand-written manifests often have no UIDs). An object with no controller reference is
*adopted* by the first controller in the same namespace whose (non-nil) selector matches
its labels, unless it is being deleted; an object controlled by someone else is never
taken. Workload expansion (:mod:`kschedlab.controllers.workloads`, :mod:`kschedlab.controllers.daemonset`)
counts owned objects against the desired replicas, so a dump of a running cluster
expands to itself.

>>> from kschedlab.api.core import Pod
>>> from kschedlab.api.apps import ReplicaSet
>>> rs = ReplicaSet.model_validate({"metadata": {"name": "web-6d4", "namespace": "shop", "uid": "u-rs"},
...     "spec": {"selector": {"matchLabels": {"app": "web", "pod-template-hash": "6d4"}}}})
>>> owned = Pod.model_validate({"metadata": {"name": "a", "namespace": "shop", "ownerReferences": [
...     {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-6d4", "uid": "u-rs", "controller": True}]}})
>>> orphan = Pod.model_validate({"metadata": {"name": "b", "namespace": "shop",
...     "labels": {"app": "web", "pod-template-hash": "6d4"}}})
>>> other_hash = Pod.model_validate({"metadata": {"name": "c", "namespace": "shop",
...     "labels": {"app": "web", "pod-template-hash": "58b"}}})
>>> [p.name for p in claim(rs, [owned, orphan, other_hash])]
['a', 'b']
"""

from __future__ import annotations

from typing import Iterable, TypeVar

from ..api.meta import KubeObject, LabelSelector, OwnerReference, label_selector_matches

__all__ = ["controlled_by", "claim", "refers_to", "OwnerIndex"]

T = TypeVar("T", bound=KubeObject)


def refers_to(ref: OwnerReference, owner: KubeObject) -> bool:
    """Whether an owner reference names ``owner``: same UID when both have one, else same kind and name.

    >>> from kschedlab.api.apps import Deployment
    >>> d = Deployment(metadata={"name": "web", "uid": "u1"})
    >>> refers_to(OwnerReference(kind="Deployment", name="web", uid="u1"), d)
    True
    >>> refers_to(OwnerReference(kind="Deployment", name="web", uid="u0"), d)  # an earlier "web"
    False
    >>> refers_to(OwnerReference(kind="Deployment", name="web"), d)
    True
    """
    if ref.uid and owner.metadata.uid:
        return ref.uid == owner.metadata.uid
    return ref.kind == owner.kind and ref.name == owner.name


def _same_namespace(a: KubeObject, b: KubeObject) -> bool:
    return (a.namespace or "default") == (b.namespace or "default")


def controlled_by(obj: KubeObject, owner: KubeObject) -> bool:
    """Whether ``obj``'s controller owner reference names ``owner`` (same namespace).

    >>> from kschedlab.api.core import Pod
    >>> from kschedlab.api.apps import ReplicaSet
    >>> p = Pod.model_validate({"metadata": {"name": "p", "ownerReferences": [
    ...     {"kind": "ReplicaSet", "name": "rs", "controller": True}]}})
    >>> controlled_by(p, ReplicaSet(metadata={"name": "rs"})), controlled_by(p, ReplicaSet(metadata={"name": "x"}))
    (True, False)
    """
    ref = obj.metadata.controller_ref()
    return ref is not None and _same_namespace(obj, owner) and refers_to(ref, owner)


def claim(owner: KubeObject, candidates: Iterable[T], selector: LabelSelector | None = None,
          claimed: set[int] | None = None) -> list[T]:
    """The candidates ``owner`` controls, plus the orphans it adopts (``ClaimObject``).

    ``selector`` defaults to ``owner.spec.selector``; a nil selector adopts nothing.
    ``claimed`` (ids of objects already adopted by an earlier controller) is updated,
    so an orphan is adopted once, by the first controller that matches it.

    >>> from kschedlab.api.core import Pod
    >>> from kschedlab.api.apps import ReplicaSet
    >>> a = ReplicaSet.model_validate({"metadata": {"name": "a"}, "spec": {"selector": {"matchLabels": {"app": "x"}}}})
    >>> b = ReplicaSet.model_validate({"metadata": {"name": "b"}, "spec": {"selector": {"matchLabels": {"app": "x"}}}})
    >>> orphan = Pod(metadata={"name": "p", "labels": {"app": "x"}})
    >>> seen = set()
    >>> [len(claim(a, [orphan], claimed=seen)), len(claim(b, [orphan], claimed=seen))]
    [1, 0]
    """
    if selector is None:
        spec = getattr(owner, "spec", None)
        selector = getattr(spec, "selector", None)
    out: list[T] = []
    for obj in candidates:
        if obj is owner or not _same_namespace(obj, owner):
            continue
        ref = obj.metadata.controller_ref()
        if ref is not None:
            if refers_to(ref, owner):
                out.append(obj)
            continue
        if obj.metadata.deletion_timestamp is not None or owner.metadata.deletion_timestamp is not None:
            continue
        if claimed is not None and id(obj) in claimed:
            continue
        if selector is not None and not selector.is_empty() and label_selector_matches(selector, obj.metadata.labels):
            out.append(obj)
            if claimed is not None:
                claimed.add(id(obj))
    return out


class OwnerIndex:
    """Objects indexed by their controller reference, so that finding what an owner
    controls (:func:`claim`) looks at that owner's objects and the orphans of its
    namespace only, not at every object of a large dump.

    >>> from kschedlab.api.core import Pod
    >>> from kschedlab.api.apps import ReplicaSet
    >>> rs = ReplicaSet(metadata={"name": "a", "namespace": "ns", "uid": "u"})
    >>> pods = [Pod.model_validate({"metadata": {"name": f"p{i}", "namespace": "ns", "ownerReferences": [
    ...     {"kind": "ReplicaSet", "name": n, "uid": u, "controller": True}]}}) for i, (n, u) in enumerate(
    ...     [("a", "u"), ("b", "v"), ("a", None)])]
    >>> [p.name for p in OwnerIndex(pods).candidates(rs)]
    ['p0', 'p2']
    """

    def __init__(self, objects: Iterable[KubeObject]):
        self._by_uid: dict[str, list[KubeObject]] = {}
        self._by_name: dict[tuple[str, str | None, str | None], list[KubeObject]] = {}
        self._orphans: dict[str, list[KubeObject]] = {}
        self._by_namespace: dict[str, list[KubeObject]] = {}
        for obj in objects:
            ns = obj.namespace or "default"
            self._by_namespace.setdefault(ns, []).append(obj)
            ref = obj.metadata.controller_ref()
            if ref is None:
                self._orphans.setdefault(ns, []).append(obj)
                continue
            if ref.uid:
                self._by_uid.setdefault(ref.uid, []).append(obj)
            self._by_name.setdefault((ns, ref.kind, ref.name), []).append(obj)

    def candidates(self, owner: KubeObject) -> list[KubeObject]:
        """The objects ``owner`` may control or adopt (a superset; :func:`claim` decides)."""
        ns = owner.namespace or "default"
        groups = [self._by_name.get((ns, owner.kind, owner.name), ()), self._orphans.get(ns, ())]
        if owner.metadata.uid:
            groups.insert(0, self._by_uid.get(owner.metadata.uid, ()))
        seen: set[int] = set()
        out = []
        for group in groups:
            for obj in group:
                if id(obj) not in seen:
                    seen.add(id(obj))
                    out.append(obj)
        return out

    def in_namespace(self, namespace: str) -> list[KubeObject]:
        """Every indexed object of a namespace ("" counts as ``default``)."""
        return self._by_namespace.get(namespace or "default", [])
