"""Status codes and the Status value every extension point returns.

Mirrors kube-scheduler's ``fwk.Status``: a code, human-readable reasons and
the plugin that produced it.

>>> s = Status.unschedulable("Insufficient cpu", plugin="NodeResourcesFit")
>>> s.code.name, s.reasons, s.is_rejected()
('Unschedulable', ('Insufficient cpu',), True)
>>> Status.success().is_success(), Status() is Status.success()
(True, True)

Reasons are a tuple, as the constructors build them; a list (or one string) given to
``Status(...)`` directly, as a plugin written in a notebook may give, is kept as that tuple:

>>> Status(Code.Unschedulable, ["node has GPUs"]).reasons, Status(Code.Unschedulable, "no room").reasons
(('node has GPUs',), ('no room',))
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum


class Code(IntEnum):
    """Upstream status codes, same numbering."""

    Success = 0
    Error = 1
    Unschedulable = 2
    UnschedulableAndUnresolvable = 3
    Wait = 4
    Skip = 5
    Pending = 6


_SUCCESS_CODE = int(Code.Success)
_SKIP_CODE = int(Code.Skip)
_object_new = object.__new__
_REJECTED_CODES = frozenset(int(c) for c in (Code.Unschedulable, Code.UnschedulableAndUnresolvable, Code.Pending))


@dataclass(frozen=True, slots=True, init=False)
class Status:
    code: Code = Code.Success
    reasons: tuple[str, ...] = ()
    plugin: str | None = None

    def __new__(cls, code: Code = Code.Success, reasons: tuple[str, ...] = (), plugin: str | None = None) -> "Status":
        # A plain Success, what a plugin's per-node ``filter`` answers for most nodes, is one shared
        # object: a Status cannot change, so no one sees the sharing, and making one per node was
        # most of such a plugin's cost. Any other is made here, its fields written through their
        # slots (the frozen dataclass's own ``__init__`` goes through ``object.__setattr__``).
        if plugin is None and not reasons and not code and cls is Status:
            return SUCCESS
        self = _object_new(cls)
        _set_code(self, code)
        _set_reasons(self, reasons if type(reasons) is tuple else  # (the constructors always pass a tuple)
                     (reasons,) if isinstance(reasons, str) else tuple(reasons))
        _set_plugin(self, plugin)
        return self

    def __reduce__(self) -> tuple[type, tuple[Code, tuple[str, ...], str | None]]:
        # (copied and unpickled through the constructor: never by filling in a shared Status)
        return type(self), (self.code, self.reasons, self.plugin)

    # -- constructors ------------------------------------------------------
    @staticmethod
    def success() -> "Status":
        return SUCCESS

    @staticmethod
    def unschedulable(*reasons: str, plugin: str | None = None) -> "Status":
        return _made(Code.Unschedulable, reasons, plugin)

    @staticmethod
    def unresolvable(*reasons: str, plugin: str | None = None) -> "Status":
        return _made(Code.UnschedulableAndUnresolvable, reasons, plugin)

    @staticmethod
    def error(*reasons: str, plugin: str | None = None) -> "Status":
        return _made(Code.Error, reasons, plugin)

    @staticmethod
    def skip(plugin: str | None = None) -> "Status":
        return SKIP if plugin is None else SKIP.with_plugin(plugin)

    @staticmethod
    def wait(*reasons: str, plugin: str | None = None) -> "Status":
        return _made(Code.Wait, reasons, plugin)

    # -- predicates --------------------------------------------------------
    # (compared with plain ints: reading an enum member off its class is the slow part of a check)
    def is_success(self) -> bool:
        return self.code == _SUCCESS_CODE

    def is_skip(self) -> bool:
        return self.code == _SKIP_CODE

    def is_rejected(self) -> bool:
        return self.code in _REJECTED_CODES

    def with_plugin(self, plugin: str) -> "Status":
        if self.plugin == plugin:
            return self
        if not self.reasons:  # reason-less statuses are shared (they are immutable)
            key = (self.code, plugin)
            found = _PLAIN.get(key)
            if found is None:
                found = _PLAIN[key] = Status(self.code, (), plugin)
            return found
        return _made(self.code, self.reasons, plugin)

    def message(self) -> str:
        return ", ".join(self.reasons)

    def __str__(self) -> str:
        text = self.code.name
        if self.reasons:
            text += f": {self.message()}"
        return text


_set_code, _set_reasons, _set_plugin = (Status.__dict__[name].__set__ for name in ("code", "reasons", "plugin"))


def _made(code: Code, reasons: tuple[str, ...], plugin: str | None) -> Status:
    """A Status of ``code`` with ``reasons`` (a tuple), as the constructors make it: by its slots,
    without the class call."""
    status = _object_new(Status)
    _set_code(status, code)
    _set_reasons(status, reasons)
    _set_plugin(status, plugin)
    return status


#: the plain Success, shared
SUCCESS = _made(Code.Success, (), None)
SKIP = Status(Code.Skip)
#: (code, plugin) -> the shared reason-less Status (see ``with_plugin``)
_PLAIN: dict[tuple[Code, str], Status] = {}


class FrameworkError(RuntimeError):
    """A plugin returned an Error status or broke a contract (e.g. score out of range)."""
