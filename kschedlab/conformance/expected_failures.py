"""The cases the project knows it does not pass yet: one YAML file beside the cases
(``tests/conformance/EXPECTED-FAILURES.yaml``), read by ``kschedlab conformance`` and by the
test suite alike. Each entry is ``{id, reason}``; a listed case that fails is an *expected
failure*, a listed case that passes fails the run (strict, as pytest's strict xfail), so the
list shrinks the day a feature lands.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / FILE_NAME).write_text("- id: a/b\\n  reason: needs DRA\\n")
>>> (d / "sub").mkdir(); load(d / FILE_NAME)
{'a/b': 'needs DRA'}
>>> find([d / "sub"]) == [d / FILE_NAME]
True
"""

from __future__ import annotations

from pathlib import Path

from kschedlab.api.errors import ManifestError
from kschedlab.api.safe_yaml import safe_load

__all__ = ["FILE_NAME", "find", "load", "load_all"]

FILE_NAME = "EXPECTED-FAILURES.yaml"


def load(path) -> dict[str, str]:
    """``{case id: reason}`` of one expected-failures file (safe YAML: a list of ``{id, reason}``).

    A malformed file is refused with a :class:`ManifestError` naming the file, the entry and
    the field.
    """
    path = Path(path)
    data = safe_load(path.read_text(), str(path))
    if data is None:
        return {}
    if not isinstance(data, list):
        raise ManifestError("must be a list of {id, reason}", file=str(path))
    out: dict[str, str] = {}
    for i, entry in enumerate(data):
        where = f"entry {i}"
        if not isinstance(entry, dict):
            raise ManifestError("must be a mapping {id, reason}", file=str(path), obj=where)
        unknown = sorted(set(entry) - {"id", "reason"})
        if unknown:
            raise ManifestError(f'unknown field "{unknown[0]}"', file=str(path), obj=where, path=unknown[0])
        for key in ("id", "reason"):
            if not isinstance(entry.get(key), str) or not entry[key].strip():
                raise ManifestError("required: a non-empty string", file=str(path), obj=where, path=key)
        if entry["id"] in out:
            raise ManifestError(f"duplicate id {entry['id']!r}", file=str(path), obj=where, path="id")
        out[entry["id"]] = entry["reason"].strip()
    return out


def find(paths) -> list[Path]:
    """The expected-failures files that apply to ``paths``: for each, the nearest
    ``EXPECTED-FAILURES.yaml`` in its directory or above (once each, in order)."""
    found: list[Path] = []
    for p in map(Path, paths):
        d = p.resolve() if p.is_dir() else p.resolve().parent
        for folder in (d, *d.parents):
            candidate = folder / FILE_NAME
            if candidate.is_file():
                if candidate not in found:
                    found.append(candidate)
                break
    return found


def load_all(files) -> dict[str, str]:
    """The entries of several files (a later file's reason wins for a repeated id)."""
    out: dict[str, str] = {}
    for f in files:
        out.update(load(f))
    return out
