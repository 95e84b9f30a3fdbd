"""What pods use over time, and each node's kubelet, for node-pressure eviction in a
``Simulation`` (``spec.usage`` and ``spec.kubelet``).  Not Kubernetes kinds: the kubelet
measures usage (cAdvisor / the CRI), a scenario has to say it.

``spec.usage[]`` names pods (``pod: namespace/name``, or ``selector`` with an optional
``namespace``), a ``resource`` (``memory`` working set, ``ephemeral-storage``, ``inodes``,
``pids``) and exactly one shape; times are seconds since the pod started running on its
node (so a replacement starts over):

``constant: 1Gi``
    the same value all along
``ramp: {from: 0, to: 6Gi, start: 0, end: 60}``
    linear from ``from`` at ``start`` to ``to`` at ``end`` (integer, rounded down), flat after
``step: {before: 100Mi, after: 6Gi, at: 30}``
    ``before`` until ``at``, then ``after``
``table: [{at: 0, value: 1Gi}, {at: 60, value: 3Gi}]``
    each value from its ``at`` until the next (0 before the first)

An ``ephemeral-storage`` or ``inodes`` usage lands, by ``fs``, in the container's
``writableLayer`` (the default) or its ``logs``; which filesystem that is depends on the
node's layout (below).

``spec.kubelet[]`` gives nodes a KubeletConfiguration (``config``: its fields, as in a
KubeletConfiguration file; unset: the scenario's KubeletConfiguration) chosen by ``nodeNames`` and/or ``nodeSelector`` (neither: every
node; the first entry that matches a node is its kubelet), and what the node has outside
pods: ``systemUsage`` (memory, ephemeral-storage, inodes, pids used by the OS and
daemons), ``inodes`` (the node filesystem's inode count; unset: no inode signal) and
``maxPID`` (``kernel.pid_max``, 4194304 by default), and the node's filesystem ``layout``:
``single`` (one disk: images, writable layers and logs on nodefs, the default), ``imagefs``
(a dedicated imagefs holds images and writable layers) or ``split`` (writable layers stay on
nodefs as containerfs, imagefs holds only images; needs the kubelet's
``KubeletSeparateDiskGC`` gate, on by default). With ``imagefs`` / ``split``, ``imageFs``
gives that filesystem's ``capacity`` (and ``inodes``). The node's images are its
``status.images``.

>>> u = PodUsage.model_validate({"pod": "default/web", "resource": "memory",
...                              "ramp": {"from": 0, "to": "1Gi", "end": 100}})
>>> [u.shape.value_at(t) for t in (0, 50, 100, 200)], u.shape.last_change()
([0, 536870912, 1073741824, 1073741824], 100.0)
>>> try:
...     PodUsage.model_validate({"pod": "web", "resource": "memory", "constant": "1Gi", "step": {"after": 1, "at": 5}})
... except ValueError as err:
...     print(err.errors()[0]["msg"])
Value error, a usage needs exactly one of constant, ramp, step, table (got 2)
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, ClassVar, Literal

from pydantic import Field, field_validator, model_validator

from ._base import K8sModel
from .meta import LabelSelector
from .quantity import Quantity

__all__ = ["USAGE_RESOURCES", "UsageShape", "Ramp", "Step", "TablePoint", "PodUsage", "NodeKubelet",
           "DEFAULT_MAX_PID", "FS_WRITABLE_LAYER", "FS_LOGS", "FILESYSTEM_LAYOUTS", "FilesystemSpec"]

#: the resources a usage can give, as the eviction manager names them
USAGE_RESOURCES = ("memory", "ephemeral-storage", "inodes", "pids")
#: ``kernel.pid_max`` on a 64-bit Linux node
DEFAULT_MAX_PID = 4194304
#: where a disk usage lands (``PodUsage.fs``)
FS_WRITABLE_LAYER = "writableLayer"
FS_LOGS = "logs"
#: node filesystem layouts (the names of :mod:`kschedlab.kubelet.ranking`'s ``LAYOUTS``)
FILESYSTEM_LAYOUTS = ("single", "imagefs", "split")


def _amount(v: Any) -> int:
    """A quantity (``"1Gi"``, ``"500"``) or an integer, as a non-negative integer."""
    if isinstance(v, bool):
        raise ValueError(f"expected a quantity, got {v!r}")
    q = Quantity.from_int(v) if isinstance(v, int) else Quantity(str(v))
    value = q.value()
    if value < 0:
        raise ValueError(f"must be greater than or equal to 0, got {v!r}")
    return value


class Ramp(K8sModel):
    """Linear from ``from`` (at ``start``) to ``to`` (at ``end``)."""

    from_: Any = Field(alias="from")
    to: Any
    start: float = 0.0
    end: float

    @field_validator("from_", "to")
    @classmethod
    def _q(cls, v: Any) -> int:
        return _amount(v)

    @model_validator(mode="after")
    def _order(self) -> "Ramp":
        if self.start < 0 or self.end <= self.start:
            raise ValueError(f"end ({self.end:g}) must be greater than start ({self.start:g}) and start at least 0")
        return self


class Step(K8sModel):
    """``before`` until ``at``, ``after`` from then on."""

    before: Any = 0
    after: Any
    at: float

    @field_validator("before", "after")
    @classmethod
    def _q(cls, v: Any) -> int:
        return _amount(v)

    @field_validator("at")
    @classmethod
    def _at(cls, v: float) -> float:
        if v < 0:
            raise ValueError("must be greater than or equal to 0")
        return v


class TablePoint(K8sModel):
    """One row of a ``table`` shape."""

    at: float
    value: Any

    @field_validator("value")
    @classmethod
    def _q(cls, v: Any) -> int:
        return _amount(v)


class UsageShape:
    """A usage over time (seconds since the pod started) as integers."""

    def __init__(self, kind: str, spec: Any):
        self.kind, self.spec = kind, spec

    def value_at(self, t: float) -> int:
        """The usage ``t`` seconds after the pod started.

        >>> UsageShape("step", Step(before=1, after=5, at=10)).value_at(9.5)
        1
        """
        s = self.spec
        if self.kind == "constant":
            return s
        if self.kind == "step":
            return s.after if t >= s.at else s.before
        if self.kind == "table":
            value = 0
            for row in s:
                if t >= row.at:
                    value = row.value
            return value
        if t <= s.start:
            return s.from_
        if t >= s.end:
            return s.to
        frac = Fraction(t - s.start) / Fraction(s.end - s.start)
        return s.from_ + int((s.to - s.from_) * frac // 1)

    def last_change(self) -> float:
        """From when (seconds since the pod started) the usage no longer changes.

        >>> UsageShape("table", [TablePoint(at=0, value=1), TablePoint(at=40, value=2)]).last_change()
        40.0
        """
        s = self.spec
        if self.kind == "constant":
            return 0.0
        if self.kind == "step":
            return float(s.at)
        if self.kind == "table":
            return float(max((row.at for row in s), default=0.0))
        return float(s.end)


class PodUsage(K8sModel):
    """One entry of ``spec.usage``: which pods, which resource, which shape."""

    pod: str | None = None
    selector: LabelSelector | None = None
    namespace: str | None = None
    resource: Literal["memory", "ephemeral-storage", "inodes", "pids"]
    constant: Any = None
    ramp: Ramp | None = None
    step: Step | None = None
    table: list[TablePoint] | None = None
    fs: Literal["writableLayer", "logs"] | None = None

    SHAPES: ClassVar[tuple[str, ...]] = ("constant", "ramp", "step", "table")

    @field_validator("constant")
    @classmethod
    def _q(cls, v: Any) -> Any:
        return None if v is None else _amount(v)

    @field_validator("table")
    @classmethod
    def _table(cls, v: list[TablePoint] | None) -> list[TablePoint] | None:
        if v is not None:
            if not v:
                raise ValueError("must have at least one row")
            ats = [row.at for row in v]
            if ats != sorted(ats) or len(set(ats)) != len(ats) or ats[0] < 0:
                raise ValueError("rows must be in increasing order of at, from 0 on")
        return v

    @model_validator(mode="after")
    def _one(self) -> "PodUsage":
        given = [s for s in self.SHAPES if getattr(self, s) is not None]
        if len(given) != 1:
            raise ValueError(f"a usage needs exactly one of constant, ramp, step, table (got {len(given)})")
        if (self.pod is None) == (self.selector is None):
            raise ValueError("a usage needs exactly one of pod, selector")
        if self.pod is not None and self.namespace is not None:
            raise ValueError("namespace goes with selector (write pod: namespace/name)")
        if self.fs is not None and self.resource not in ("ephemeral-storage", "inodes"):
            raise ValueError(f"fs goes with ephemeral-storage or inodes, not {self.resource}")
        return self

    @property
    def target(self) -> str:
        """``writableLayer`` or ``logs`` (disk usages); the resource itself otherwise."""
        if self.resource in ("ephemeral-storage", "inodes"):
            return self.fs or FS_WRITABLE_LAYER
        return self.resource

    @property
    def shape(self) -> UsageShape:
        """The shape given, as a :class:`UsageShape`."""
        kind = next(s for s in self.SHAPES if getattr(self, s) is not None)
        return UsageShape(kind, getattr(self, kind))

    def matches(self, pod) -> bool:
        """Whether this entry is about ``pod``.

        >>> from kschedlab.api.core import Pod
        >>> p = Pod.model_validate({"metadata": {"name": "a", "namespace": "ns", "labels": {"app": "x"}}})
        >>> PodUsage(pod="ns/a", resource="pids", constant=5).matches(p)
        True
        >>> PodUsage(selector={"matchLabels": {"app": "y"}}, resource="pids", constant=5).matches(p)
        False
        """
        ns = pod.metadata.namespace or "default"
        if self.pod is not None:
            want_ns, _, name = self.pod.rpartition("/")
            return name == pod.metadata.name and (want_ns or "default") == ns
        if self.namespace is not None and self.namespace != ns:
            return False
        return self.selector.matches(pod.metadata.labels or {})


class FilesystemSpec(K8sModel):
    """A dedicated filesystem's size: ``capacity`` (a quantity) and ``inodes``."""

    capacity: Any
    inodes: int | None = None

    @field_validator("capacity")
    @classmethod
    def _cap(cls, v: Any) -> int:
        value = _amount(v)
        if value <= 0:
            raise ValueError("must be greater than 0")
        return value


class NodeKubelet(K8sModel):
    """One entry of ``spec.kubelet``: the nodes it is for and their kubelet."""

    node_names: list[str] | None = None
    node_selector: dict[str, str] | None = None
    config: dict[str, Any] | None = None
    system_usage: dict[str, Any] = {}
    inodes: int | None = None
    max_pid: int = Field(default=DEFAULT_MAX_PID, alias="maxPID")
    layout: Literal["single", "imagefs", "split"] = "single"
    image_fs: FilesystemSpec | None = None

    @model_validator(mode="after")
    def _filesystems(self) -> "NodeKubelet":
        if self.layout != "single" and self.image_fs is None:
            raise ValueError(f"layout {self.layout} needs imageFs (its capacity)")
        if self.layout == "single" and self.image_fs is not None:
            raise ValueError("imageFs goes with layout imagefs or split")
        return self

    @field_validator("system_usage")
    @classmethod
    def _usage(cls, v: dict[str, Any]) -> dict[str, int]:
        bad = sorted(set(v) - set(USAGE_RESOURCES))
        if bad:
            raise ValueError(f"unsupported resource {bad[0]!r} (one of {', '.join(USAGE_RESOURCES)})")
        return {k: _amount(q) for k, q in v.items()}

    @field_validator("inodes", "max_pid")
    @classmethod
    def _positive(cls, v: int | None) -> int | None:
        if v is not None and v <= 0:
            raise ValueError("must be greater than 0")
        return v

    def matches(self, node) -> bool:
        """Whether this entry is ``node``'s kubelet."""
        if self.node_names is not None and node.metadata.name not in self.node_names:
            return False
        labels = node.metadata.labels or {}
        return all(labels.get(k) == v for k, v in (self.node_selector or {}).items())
