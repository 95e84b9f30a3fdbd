"""One call from manifest files (or a cluster dump) to the objects a cluster would hold.

:func:`load_manifests` loads (:mod:`~kschedlab.api.loader`), adds what the workload
controllers create (:func:`~kschedlab.controllers.workloads.expand`: ReplicaSets and pods of
Deployments, pods of ReplicaSets, StatefulSets, Jobs and DaemonSets) and applies the
API server's create behaviour (:func:`~kschedlab.apiserver.admission.admit`).
``Cluster.from_manifests``, ``kschedlab schedule`` and ``kschedlab simulate`` use it,
so the Python API and the command line see the same objects.

Objects of kinds the scheduler does not use are skipped with one
:class:`~kschedlab.api.kinds.SkippedKindsWarning` (``strict=True`` refuses them).
Objects the API server refuses are left out and reported, as ``kubectl apply -f``
goes on past them (:mod:`~kschedlab.apiserver.apply`; ``strict=True`` refuses everything).
A KubeSchedulerConfiguration or Simulation among the files is returned unchanged.

>>> objs = load_manifests(text='''
... apiVersion: v1
... kind: Node
... metadata: {name: n1}
... status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
... ---
... apiVersion: apps/v1
... kind: Deployment
... metadata: {name: web}
... spec:
...   replicas: 2
...   selector: {matchLabels: {app: web}}
...   template:
...     metadata: {labels: {app: web}}
...     spec: {containers: [{name: app, image: nginx}]}
... ''')
>>> [o.kind for o in objs]
['Node', 'Deployment', 'ReplicaSet', 'Pod', 'Pod']
>>> objs[3].namespace, objs[3].spec.scheduler_name
('default', 'default-scheduler')
"""

from __future__ import annotations

import os
from typing import Iterable, Mapping

from ..api.core import Pod
from ..api.loader import load, load_text
from ..api.meta import TypedObject
from ..apiserver.admission import admit
from ..apiserver.apply import Applied, Refusal, RefusedObjectsWarning, failed_create
from ..apiserver.object_validation import refuse_invalid
from .workloads import expand

__all__ = ["load_manifests", "create", "slow_start"]


def create(objects: Iterable[TypedObject], *, feature_gates: Mapping[str, bool] | None = None, seed: int = 0,
           enable_admission_plugins: Iterable[str] = (), strict: bool = True) -> Applied:
    """What creating ``objects`` in a cluster leads to: the controllers' objects added
    (:func:`~kschedlab.controllers.workloads.expand`, deterministic per ``seed``), then every
    object admitted (:func:`~kschedlab.apiserver.admission.admit`). ``feature_gates`` are
    the overrides of the v1.37 defaults (e.g. ``{"GenericWorkload": True}``).

    With ``strict`` any refusal refuses everything (one :class:`ManifestError`); without,
    the objects are applied as ``kubectl apply -f`` applies them: a refused object is left
    out, listed in the result's ``refused`` (:mod:`~kschedlab.apiserver.apply`), and the
    controllers whose pods were refused record ``FailedCreate`` (``events``).

    >>> from kschedlab.api.apps import StatefulSet
    >>> db = StatefulSet(metadata={"name": "db"}, spec={"replicas": 1, "serviceName": "db",
    ...                  "template": {"spec": {"containers": [{"name": "pg", "image": "postgres"}]}}})
    >>> [o.key for o in create([db])]
    ['default/db', 'default/db-0']
    """
    gates = dict(feature_gates or {})
    objects = list(objects)
    # expand returns copies, which admission may change in place
    refused: list[Refusal] | None = None if strict else []
    # what validation refuses is never expanded: its controller does not exist
    valid = objects if refused is None else refuse_invalid(objects, refused)
    expanded = expand(valid, seed=seed, feature_gates=gates)
    admitted = admit(expanded, feature_gates=gates, enable_admission_plugins=enable_admission_plugins, copy=False,
                     refused=refused)
    if not refused:
        return Applied(admitted)
    # the pods a controller made (not in the files) are the controller's to report
    submitted = {_ident(o) for o in objects}
    made = slow_start([r for r in refused if _ident(r.obj) not in submitted], expanded)
    refused[:] = [r for r in refused if _ident(r.obj) in submitted] + made
    return Applied(admitted, refused, failed_create(admitted, made))


#: the controllers that create their pods in slow-start batches (StatefulSets create one at a time)
_SLOW_START = ("ReplicaSet", "Job", "DaemonSet")


def slow_start(refused: list[Refusal], expanded: list[TypedObject]) -> list[Refusal]:
    """The refusals of controller-made pods that the controllers would have met.

    A ReplicaSet, Job or DaemonSet controller creates its missing pods in batches of 1, 2, 4,
    ... (``slowStartBatch``, ``SlowStartInitialBatchSize`` 1), the pods of a batch at once,
    and stops after the first batch with a refused create: the pods after it are not tried in
    that sync. So a template every create refuses (a missing PriorityClass) costs one refusal and
    one ``FailedCreate`` event, not one per replica, and a quota that runs out in the batch of
    four costs the refusals of that batch. The pods of one template that admission refused once
    are refused again (quota usage only grows while the objects load), so the pods after the
    stop are only dropped from ``refused``. ``expanded`` lists the controllers' pods in the
    order they create them."""
    by_pod = {id(r.obj): r for r in refused}
    seen: dict[tuple[str, str, str], int] = {}
    stop_at: dict[tuple[str, str, str], int] = {}  # a controller -> the first position it does not try
    kept: list[Refusal] = []
    for obj in expanded:
        ref = obj.metadata.controller_ref() if isinstance(obj, Pod) else None
        if not isinstance(obj, Pod) or ref is None or ref.kind not in _SLOW_START:
            if id(obj) in by_pod:
                kept.append(by_pod[id(obj)])
            continue
        owner = (ref.kind, obj.namespace, ref.name or "")
        position = seen[owner] = seen.get(owner, -1) + 1
        if id(obj) not in by_pod or position >= stop_at.get(owner, position + 1):
            continue
        kept.append(by_pod[id(obj)])
        # the batches hold positions 0 | 1-2 | 3-6 | 7-14 | ...: this one ends before 2^k - 1
        stop_at.setdefault(owner, (1 << (position + 1).bit_length()) - 1)
    return kept


def _ident(obj: TypedObject) -> tuple[str, str, str]:
    meta = getattr(obj, "metadata", None)
    if meta is None:
        return (obj.kind or "", "", "")
    namespace = (meta.namespace or "default") if getattr(obj, "NAMESPACED", False) else ""
    return (obj.kind or "", namespace, meta.name or "")


def load_manifests(*paths: str | os.PathLike, text: str | None = None, source: str = "<string>",
                   feature_gates: Mapping[str, bool] | None = None, seed: int = 0, strict: bool = False,
                   enable_admission_plugins: Iterable[str] = ()) -> Applied:
    """Load files and directories (and/or YAML ``text``), expand workloads, admit.

    All load errors (bad YAML, unknown fields, wrong types, removed API versions) are
    reported together in one :class:`~kschedlab.api.errors.ManifestError` naming file,
    object and field; nothing is returned then. Objects the API server refuses
    (admission, validation) are left out as ``kubectl apply -f`` leaves them: the result
    (an :class:`~kschedlab.apiserver.apply.Applied` list) lists them in ``refused`` with the
    controllers' ``FailedCreate`` events in ``events``, and one
    :class:`~kschedlab.apiserver.apply.RefusedObjectsWarning` prints kubectl's lines. With
    ``strict=True`` a refusal refuses everything, as a load error does. See the module text.

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     objs = load_manifests(text='''
    ... apiVersion: v1
    ... kind: Pod
    ... metadata: {name: gold-pod}
    ... spec: {priorityClassName: gold, containers: [{name: app, image: nginx}]}
    ... ---
    ... apiVersion: v1
    ... kind: Pod
    ... metadata: {name: plain-pod}
    ... spec: {containers: [{name: app, image: nginx}]}
    ... ''', source="pods.yaml")
    >>> [o.key for o in objs], [r.kubectl() for r in objs.refused]
    (['default/plain-pod'], ['Error from server (Forbidden): error when creating "pods.yaml": pods "gold-pod" is forbidden: no PriorityClass with name gold was found'])

    >>> load_manifests(text="apiVersion: v1\\nkind: Secret\\nmetadata: {name: s, namespace: a}", strict=True)
    Traceback (most recent call last):
    ...
    kschedlab.api.errors.ManifestError: <string>: document 1 (Secret a/s): kind "Secret" (apiVersion v1) is not used by the scheduler (refused in strict mode)
    """
    import warnings

    from ..api.kinds import SkippedKindsWarning, skipped_summary

    objects: list[TypedObject] = []
    skipped: list = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", SkippedKindsWarning)
        if paths:
            objects.extend(load(paths, strict=strict))
        if text is not None:
            objects.extend(load_text(text, source, strict=strict))
    for w in caught:
        if isinstance(w.message, SkippedKindsWarning):
            skipped.extend(w.message.skipped)
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    out = create(objects, feature_gates=feature_gates, seed=seed, enable_admission_plugins=enable_admission_plugins,
                 strict=strict)
    if skipped:
        warnings.warn(SkippedKindsWarning(skipped_summary(skipped), skipped), stacklevel=2)
    if out.refused:
        warnings.warn(RefusedObjectsWarning.of(out), stacklevel=2)
    return out
