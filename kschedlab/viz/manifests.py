"""The documents of a manifest file as written, for notebooks that show "the YAML you
would apply" next to what kschedlab computes from it.

>>> from pathlib import Path
>>> f = Path(__file__).resolve().parents[2] / "datasets" / "seed" / "02-node-name.yaml"
>>> print(yaml_documents(f, kind="Pod", name="nginx"))
apiVersion: v1
kind: Pod
metadata:
  name: nginx
spec:
  containers:
  - name: nginx
    image: nginx
  nodeName: kube-01
"""

from __future__ import annotations

import re
from pathlib import Path

from kschedlab.api.safe_yaml import safe_load

__all__ = ["yaml_documents"]

_SEPARATOR = re.compile(r"^---\s*$", re.MULTILINE)


def _strip_header(text: str) -> str:
    """Drop the comment lines (and blank lines) before a document's first key."""
    lines = text.splitlines()
    while lines and (not lines[0].strip() or lines[0].lstrip().startswith("#")):
        lines.pop(0)
    return "\n".join(lines).rstrip()


def yaml_documents(path, *, kind: str | None = None, name: str | None = None) -> str:
    """The documents of ``path`` whose ``kind`` and ``metadata.name`` match (either may be
    None: any), verbatim except for the comment lines above each, joined by ``---``."""
    out = []
    for chunk in _SEPARATOR.split(Path(path).read_text()):
        doc = safe_load(chunk, str(path))
        if not isinstance(doc, dict):
            continue
        if kind is not None and doc.get("kind") != kind:
            continue
        if name is not None and (doc.get("metadata") or {}).get("name") != name:
            continue
        out.append(_strip_header(chunk))
    if not out:
        raise ValueError(f"{path}: no document with kind={kind!r} name={name!r}")
    return "\n---\n".join(out)
