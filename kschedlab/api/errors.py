"""Errors that name the file, the object and the field path.

>>> e = ManifestError('invalid quantity "1.5.0"', file="pods.yaml", obj="Pod default/web-0",
...                   path="spec.containers[0].resources.requests.cpu")
>>> print(e)
pods.yaml: Pod default/web-0: spec.containers[0].resources.requests.cpu: invalid quantity "1.5.0"
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Sequence

__all__ = ["ManifestError", "format_path", "Key", "errors_from_validation"]


class ManifestError(ValueError):
    """A refused manifest: ``file``, ``obj``, ``path`` and ``message``.

    One exception may carry several errors (``errors``; a single error lists
    itself). Its attributes are those of the first error and ``str()`` gives one
    line per error.

    >>> a = ManifestError("x", file="a.yaml", obj="document 1")
    >>> b = ManifestError("y", file="b.yaml", line=3)
    >>> print(ManifestError.combine([a, b]))
    a.yaml: document 1: x
    b.yaml:3: y
    """

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        obj: str | None = None,
        path: str | None = None,
        line: int | None = None,
        errors: Sequence[ManifestError] | None = None,
    ) -> None:
        self.message = message
        self.file = file
        self.obj = obj
        self.path = path or None
        self.line = line
        self.errors: list[ManifestError] = list(errors) if errors else [self]
        super().__init__(self._text())

    def _line(self) -> str:
        parts = []
        if self.file:
            parts.append(f"{self.file}:{self.line}" if self.line and not self.obj else self.file)
        elif self.line and not self.obj:
            parts.append(f"line {self.line}")
        if self.obj:
            parts.append(self.obj)
        if self.path:
            parts.append(self.path)
        parts.append(self.message)
        return ": ".join(parts)

    def _text(self) -> str:
        if self.errors and self.errors[0] is not self:
            return "\n".join(e._line() for e in self.errors)
        return self._line()

    def __str__(self) -> str:
        return self._text()

    def __reduce__(self):
        return (_rebuild, (self.message, self.file, self.obj, self.path, self.line, self._others()))

    def _others(self) -> list[ManifestError] | None:
        if self.errors and self.errors[0] is not self:
            return self.errors
        return None

    @classmethod
    def combine(cls, errors: Iterable[ManifestError]) -> ManifestError:
        """One exception for several errors (the error itself when only one).

        >>> str(ManifestError.combine([ManifestError("boom", file="f.yaml")]))
        'f.yaml: boom'
        """
        flat: list[ManifestError] = []
        for e in errors:
            flat.extend(e.errors)
        if not flat:
            raise ValueError("no errors to combine")
        if len(flat) == 1:
            return flat[0]
        first = flat[0]
        return cls(
            first.message, file=first.file, obj=first.obj, path=first.path, line=first.line, errors=flat
        )


def _rebuild(message, file, obj, path, line, errors):
    return ManifestError(message, file=file, obj=obj, path=path, line=line, errors=errors)


_SIMPLE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


class Key(str):
    """A map key in a field path, always bracketed (``field.Path.Key``), even a plain word:
    ``format_path(("resources", "requests", Key("cpu")))`` is ``resources.requests[cpu]``."""


def format_path(loc: Iterable[Any]) -> str:
    """A Kubernetes-style field path from a location tuple.

    Map keys that are not plain words are bracketed, as ``field.Path.Key`` does; a
    :class:`Key` always is.

    >>> format_path(("spec", "containers", 0, "resources", "requests", "cpu"))
    'spec.containers[0].resources.requests.cpu'
    >>> format_path(("metadata", "labels", "app.kubernetes.io/name"))
    'metadata.labels[app.kubernetes.io/name]'
    >>> format_path(("spec", "containers", 0, "resources", "requests", Key("cpu")))
    'spec.containers[0].resources.requests[cpu]'
    """
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif out and (isinstance(part, Key) or not _SIMPLE_KEY.match(str(part))):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


_TYPE_NAMES = {
    "int_type": "integer",
    "int_parsing": "integer",
    "int_from_float": "integer",
    "string_type": "string",
    "bool_type": "boolean",
    "bool_parsing": "boolean",
    "dict_type": "object",
    "model_type": "object",
    "model_attributes_type": "object",
    "list_type": "array",
    "float_type": "number",
}


def _json_type(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, dict):
        return "object"
    if isinstance(v, (list, tuple)):
        return "array"
    return type(v).__name__


def _short(v: Any) -> str:
    if isinstance(v, str):
        s = v if len(v) <= 40 else v[:37] + "..."
        return f'"{s}"'
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return str(v)
    return ""


def _message(err: dict) -> str:
    etype = err.get("type", "")
    loc = err.get("loc", ())
    if etype == "extra_forbidden":
        return f'unknown field "{loc[-1] if loc else "?"}"'
    if etype == "missing":
        return "Required value"
    if etype in _TYPE_NAMES:
        got = err.get("input")
        shown = _short(got)
        hint = (" (YAML reads an unquoted yes, no, on, off, y, n, true or false as a boolean, as kubectl "
                "does: quote the value)" if isinstance(got, bool) and _TYPE_NAMES[etype] == "string" else "")
        return (f"invalid type: expected {_TYPE_NAMES[etype]}, got {_json_type(got)}" + (f" {shown}" if shown else "")
                + hint)
    msg = str(err.get("msg", ""))
    for prefix in ("Value error, ", "Assertion failed, "):
        if msg.startswith(prefix):
            msg = msg[len(prefix):]
    return msg


def errors_from_validation(exc: Any, *, file: str | None, obj: str | None, line: int | None = None,
                           prefix: Sequence[Any] = ()) -> list[ManifestError]:
    """Convert a pydantic ``ValidationError`` into ManifestErrors (one per problem).

    >>> from pydantic import ValidationError
    >>> from kschedlab.api.core import Pod
    >>> try:
    ...     Pod.model_validate({"spec": {"nodeNam": "n1"}})
    ... except ValidationError as e:
    ...     print(errors_from_validation(e, file="f.yaml", obj="Pod p")[0])
    f.yaml: Pod p: spec.nodeNam: unknown field "nodeNam"
    """
    out = []
    for err in exc.errors(include_url=False):
        loc = tuple(prefix) + tuple(err.get("loc", ()))
        out.append(ManifestError(_message(err), file=file, obj=obj, path=format_path(loc) or None, line=line))
    return out
