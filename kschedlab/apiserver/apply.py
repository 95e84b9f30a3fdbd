"""``kubectl apply -f`` as the API server answers it: each object on its own.

kubectl submits the objects of its files one by one, in order. The API server refuses an
object that admission or validation rejects (a missing PriorityClass or RuntimeClass, a
ResourceQuota or LimitRange refusal, an invalid field); kubectl prints the refusal and goes
on with the next object. So a refused object is *left out* and the rest is created.

:class:`Refusal` is one refused object with the API server's errors, printed as kubectl
prints them (:meth:`Refusal.kubectl`). When a workload controller's pod is refused, kubectl
(which sent only the workload) prints nothing; the controller records it as
kube-controller-manager does: a ``Warning`` Event with reason ``FailedCreate`` on the
ReplicaSet, Job, StatefulSet or DaemonSet, and, for a ReplicaSet, a ``ReplicaFailure``
condition with the same message (:func:`failed_create`).

:class:`Applied` is the list of created objects that carries the refusals and the
controllers' events (``load_manifests`` returns it; ``Cluster`` keeps them as
``cluster.refused`` and ``cluster.events``).

>>> from kschedlab.api.core import Pod
>>> pod = Pod.model_validate({"metadata": {"name": "web", "namespace": "default"}})
>>> r = Refusal(pod, [ManifestError('pods "web" is forbidden: exceeded quota: q, requested: pods=1, '
...                                 'used: pods=1, limited: pods=1', obj="Pod default/web")], "pods.yaml")
>>> print(r.kubectl())
Error from server (Forbidden): error when creating "pods.yaml": pods "web" is forbidden: exceeded quota: q, requested: pods=1, used: pods=1, limited: pods=1
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from ..api.apps import ReplicaSetCondition
from ..api.errors import ManifestError
from ..api.meta import KubeObject, TypedObject

__all__ = ["Applied", "Refusal", "ControllerEvent", "failed_create", "RefusedObjectsWarning", "NOT_SERVED"]

#: how kubectl starts the error for a kind the API server does not serve; such an object
#: cannot be sent at all, so it refuses the whole input
NOT_SERVED = "no matches for kind "

#: messages of admission plugins whose refusal is a 403 Forbidden (the rest are 422 Invalid)
_FORBIDDEN_MESSAGES = ("no PriorityClass with name ", "pod rejected: ", "conflict: runtimeClass.",
                       "the integer value of priority (", "the string value of PreemptionPolicy (")


#: what a decode error (400 BadRequest) says: ``Deployment in version "v1" cannot be handled as a Deployment: ...``
_CANNOT_DECODE = " cannot be handled as a "


def _plural(kind: str) -> str:
    low = kind.lower()
    return low + "es" if low.endswith("s") else low + "s"


@dataclass
class Refusal:
    """One object the API server refused: the object (as submitted), its errors and the file.
    ``controller`` names the workload controller that created it (``ReplicaSet default/web-7d4b9``)
    when it was not in the files: kubectl never sent it, so kubectl prints nothing for it and
    only the controller's ``FailedCreate`` event tells."""

    obj: TypedObject
    errors: list[ManifestError]
    file: str | None = None
    controller: str | None = None

    @property
    def name(self) -> str:
        """The object's name as the API server knew it when it refused the object: the name of
        a controller's pod is made from its ``generateName`` after the mutating admission
        plugins, so a pod one of them refused has only the prefix."""
        meta = getattr(self.obj, "metadata", None)
        if meta is None:
            return ""
        if meta.generate_name and getattr(self.obj, "_generated_name", False) and self._before_naming:
            return meta.generate_name
        return meta.name or meta.generate_name or ""

    @property
    def key(self) -> str:
        """``namespace/name`` (``name`` for a cluster-scoped object), with :attr:`name`."""
        namespace = getattr(getattr(self.obj, "metadata", None), "namespace", None)
        return f"{namespace}/{self.name}" if namespace and getattr(self.obj, "NAMESPACED", False) else self.name

    @property
    def _before_naming(self) -> bool:
        # a mutating admission plugin's refusal; validating ones say "<kind> "<name>" is forbidden: "
        return self.reason == "Forbidden" and " is forbidden: " not in self.errors[0].message

    @property
    def reason(self) -> str:
        """``Forbidden`` (an admission plugin refused), ``AlreadyExists``, ``BadRequest`` (the
        object's JSON does not decode into its type) or ``Invalid``."""
        first = self.errors[0].message
        if _CANNOT_DECODE in first:
            return "BadRequest"
        if " is forbidden: " in first or first.startswith(_FORBIDDEN_MESSAGES):
            return "Forbidden"
        if first.endswith(" already exists"):
            return "AlreadyExists"
        return "Invalid"

    @property
    def message(self) -> str:
        """The API server's message for this object (the status ``message``)."""
        kind = self.obj.kind or ""
        first = self.errors[0].message
        if self.reason == "Forbidden":
            if " is forbidden: " in first:
                return first
            return f'{_plural(kind)} "{self.name}" is forbidden: {first}'  # a mutating plugin's refusal
        if self.reason in ("AlreadyExists", "BadRequest"):
            return first
        details = [f"{e.path}: {e.message}" if e.path else e.message for e in self.errors]
        if len(details) == 1:
            return f'{kind} "{self.name}" is invalid: {details[0]}'
        return f'{kind} "{self.name}" is invalid: [' + ", ".join(details) + "]"

    def kubectl(self) -> str:
        """The line ``kubectl apply -f`` prints for this object."""
        if self.reason == "Invalid":
            return f"The {self.message[0].upper()}{self.message[1:]}"
        where = f'error when creating "{self.file}": ' if self.file else ""
        return f"Error from server ({self.reason}): {where}{self.message}"

    def to_dict(self) -> dict:
        return {"object": f"{self.obj.kind} {self.key}", "file": self.file,
                "reason": self.reason, "message": self.message, "createdBy": self.controller}


@dataclass
class ControllerEvent:
    """An Event a controller records on its object (``kubectl describe`` lists them)."""

    involved: str
    type: str
    reason: str
    message: str
    source: str

    def to_dict(self) -> dict:
        return {"involvedObject": self.involved, "type": self.type, "reason": self.reason,
                "message": self.message, "source": self.source}

    def __str__(self) -> str:
        return f"{self.involved}: {self.type} {self.reason} ({self.source}): {self.message}"


class Applied(list):
    """The objects created, as a list, with ``refused`` (:class:`Refusal`) and ``events``
    (:class:`ControllerEvent`) beside them."""

    def __init__(self, objects: Iterable[TypedObject] = (), refused: Iterable[Refusal] = (),
                 events: Iterable[ControllerEvent] = ()) -> None:
        super().__init__(objects)
        self.refused: list[Refusal] = list(refused)
        self.events: list[ControllerEvent] = list(events)

    def report(self) -> list[str]:
        """What the user sees: kubectl's line for each refused object of the files, then the
        controllers' events (their own pods' refusals)."""
        return [r.kubectl() for r in self.refused if r.controller is None] + [str(e) for e in self.events]


class RefusedObjectsWarning(UserWarning):
    """Some objects were refused by the API server and left out; ``refused`` lists them.

    Made from the message alone (as warning machinery that copies warnings by their ``args``
    does, pytest-xdist for one), it has empty lists.

    >>> RefusedObjectsWarning("a line").refused
    []
    """

    def __init__(self, message: str, refused: Iterable[Refusal] = (), events: Iterable[ControllerEvent] = ()) -> None:
        super().__init__(message)
        self.refused: list[Refusal] = list(refused)
        self.events: list[ControllerEvent] = list(events)

    @classmethod
    def of(cls, applied: Applied) -> RefusedObjectsWarning:
        """The warning for what ``applied`` refused, worded as kubectl reports it."""
        return cls("\n".join(applied.report()), applied.refused, applied.events)


_SOURCES = {"ReplicaSet": "replicaset-controller", "Job": "job-controller",
            "StatefulSet": "statefulset-controller", "DaemonSet": "daemonset-controller"}


def failed_create(objects: list[TypedObject], refused: list[Refusal]) -> list[ControllerEvent]:
    """The ``FailedCreate`` events of the controllers whose pods were refused (and, on a
    ReplicaSet, its ``ReplicaFailure`` condition, set in place on the object in ``objects``);
    each such refusal's ``controller`` is set.

    >>> from kschedlab.api.apps import ReplicaSet
    >>> from kschedlab.api.core import Pod
    >>> rs = ReplicaSet.model_validate({"metadata": {"name": "web-7d4b9", "namespace": "default", "uid": "u1"}})
    >>> pod = Pod.model_validate({"metadata": {"name": "web-7d4b9-x2x4z", "namespace": "default",
    ...     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-7d4b9",
    ...                          "uid": "u1", "controller": True}]}})
    >>> refusal = Refusal(pod, [ManifestError('pods "web-7d4b9-x2x4z" is forbidden: no room')])
    >>> [str(e) for e in failed_create([rs], [refusal])]
    ['ReplicaSet default/web-7d4b9: Warning FailedCreate (replicaset-controller): Error creating: pods "web-7d4b9-x2x4z" is forbidden: no room']
    >>> rs.status.conditions[0].type, rs.status.conditions[0].reason
    ('ReplicaFailure', 'FailedCreate')
    """
    owners: dict[tuple[str, str, str], KubeObject] = {}
    for o in objects:
        if isinstance(o, KubeObject) and o.kind in _SOURCES:
            owners[(o.kind, o.metadata.namespace or "", o.metadata.name or "")] = o
    events: list[ControllerEvent] = []
    for r in refused:
        if r.obj.kind != "Pod":
            continue
        ref = r.obj.metadata.controller_ref()
        owner = owners.get((ref.kind, r.obj.metadata.namespace or "", ref.name)) if ref is not None else None
        if owner is None:
            continue
        if owner.kind == "StatefulSet":
            text = f"create Pod {r.name} in StatefulSet {owner.metadata.name} failed error: {r.message}"
        else:
            text = f"Error creating: {r.message}"
        r.controller = f"{owner.kind} {owner.key}"
        events.append(ControllerEvent(r.controller, "Warning", "FailedCreate", text, _SOURCES[owner.kind]))
        if owner.kind == "ReplicaSet":
            conditions = [c for c in owner.status.conditions if c.type != "ReplicaFailure"]
            owner.status.conditions = [*conditions, ReplicaSetCondition(type="ReplicaFailure", status="True",
                                                                        reason="FailedCreate", message=r.message)]
            owner.mark_set("status")
    return events
