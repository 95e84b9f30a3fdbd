"""Loading manifests: YAML (multi-document), JSON, ``kind: List`` dumps, directories.

Only safe YAML loading is used, its plain scalars resolved as kubectl's YAML reader resolves
them (:func:`kschedlab.api.safe_yaml.resolve_plain`). Every error of a load is collected and
reported in one :class:`~kschedlab.api.errors.ManifestError`; when there is any error
nothing is returned.

kubectl sends an object as JSON (``sigs.k8s.io/yaml`` converts the YAML) and the API server
decodes that JSON into its typed object; :func:`as_sent` is that round trip: a float with an
integral value is written as an integer (``replicas: 1e3`` is 1000; ``1e18`` is the API
server's decode error for that object, ``... cannot unmarshal number 1000000000000000000 into Go
struct field DeploymentSpec.spec.replicas of type int32``, kept on the object by
:mod:`~kschedlab.api.unmarshal` as any count its int32 cannot hold), and a key YAML read as a
boolean or integer becomes its JSON text (``true``, ``80``).

>>> objs = load_text('''
... apiVersion: v1
... kind: Node
... metadata: {name: n1}
... status: {allocatable: {cpu: "4", memory: 8Gi}}
... ---
... apiVersion: v1
... kind: Pod
... metadata: {name: web-0, namespace: default}
... spec: {containers: [{name: app, resources: {requests: {cpu: 1.5.0}}}]}
... ''', source="pods.yaml")
Traceback (most recent call last):
...
kschedlab.api.errors.ManifestError: pods.yaml: Pod default/web-0: spec.containers[0].resources.requests.cpu: invalid quantity "1.5.0"
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

import yaml
from pydantic import ValidationError

from .errors import ManifestError, errors_from_validation
from .kinds import SkippedKindsWarning, classify, removed_version, skipped_summary
from .meta import TypedObject
from .registry import model_for
from .safe_yaml import load_documents
from .unmarshal import INT32_COUNTS, count_decode_error

__all__ = ["load", "load_text", "load_objects", "dump", "describe_raw", "as_sent", "MANIFEST_SUFFIXES"]

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")
_LIST_KEYS = {"apiVersion", "kind", "metadata", "items"}

def _yaml_documents(text: str, source: str) -> Iterator[tuple[Any, int]]:
    """Yield (data, first line) for each YAML document; raise ManifestError on bad YAML
    (:mod:`kschedlab.api.safe_yaml`: safe tags, no repeated key, aliases bounded)."""
    yield from load_documents(text, source)


def _json_documents(text: str, source: str) -> list[tuple[Any, int]]:
    def no_dups(pairs: list[tuple[str, Any]]) -> dict:
        out: dict = {}
        for k, v in pairs:
            if k in out:
                raise ValueError(f'duplicate key "{k}"')
            out[k] = v
        return out

    try:
        data = json.loads(text, object_pairs_hook=no_dups)
    except json.JSONDecodeError as e:
        raise ManifestError(f"invalid JSON: {e.msg} (column {e.colno})", file=source, line=e.lineno) from None
    except ValueError as e:
        raise ManifestError(f"invalid JSON: {e}", file=source) from None
    if isinstance(data, list):
        return [(d, None) for d in data]  # type: ignore[misc]
    return [(data, 1)]


#: Go's JSON encoder writes a float64 below this magnitude without an exponent
_GO_PLAIN_FLOAT = 1e21


def as_sent(data: Any) -> Any:
    """``data`` as the API server decodes it after kubectl's YAML-to-JSON conversion: an
    integral float below 1e21 becomes the integer Go's JSON encoder writes for it, a boolean
    or integer map key its JSON text (``sigs.k8s.io/yaml``); the rest is unchanged.

    >>> as_sent({"replicas": 1000.0, "ratio": 0.5, True: [2.0, "x"], 80: None})
    {'replicas': 1000, 'ratio': 0.5, 'true': [2, 'x'], '80': None}
    """
    if isinstance(data, dict):
        return {_key(k): as_sent(v) for k, v in data.items()}
    if isinstance(data, list):
        return [as_sent(v) for v in data]
    if type(data) is float and data.is_integer() and abs(data) < _GO_PLAIN_FLOAT:
        return int(data)
    return data


def _key(key: Any) -> Any:
    if type(key) is bool:
        return "true" if key else "false"
    if type(key) is int:
        return str(key)
    return key


def describe_raw(data: Any, doc: str) -> str:
    """How errors name a raw object: ``Kind ns/name``, else the document label (with the
    object's ``metadata.name`` when it has one but no kind).

    A namespaced object without a namespace is named in ``default``, where
    admission will put it.

    >>> describe_raw({"kind": "Pod", "metadata": {"name": "web-0", "namespace": "team-a"}}, "document 1")
    'Pod team-a/web-0'
    >>> describe_raw({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web-0"}}, "document 1")
    'Pod default/web-0'
    >>> describe_raw({"kind": "Pod"}, "document 3")
    'document 3'
    >>> describe_raw({"metadata": {"name": "web-0"}}, "document 2")
    'document 2 (web-0)'
    """
    if isinstance(data, dict):
        kind = data.get("kind")
        meta = data.get("metadata")
        name = meta.get("name") if isinstance(meta, dict) else None
        if isinstance(kind, str) and kind and isinstance(name, str) and name:
            ns = meta.get("namespace")
            model = model_for(str(data.get("apiVersion")), kind)
            namespaced = getattr(model, "NAMESPACED", True) if model else True
            if namespaced and isinstance(ns, str) and ns:
                return f"{kind} {ns}/{name}"
            if namespaced and model is not None:
                return f"{kind} default/{name}"
            return f"{kind} {name}"
        if isinstance(name, str) and name and not (isinstance(kind, str) and kind):
            return f"{doc} ({name})"
    return doc


def _build(data: Any, source: str, doc: str, docno: int | None, line: int | None,
           errors: list[ManifestError], out: list[TypedObject], skipped: list | None = None) -> None:
    obj_name = describe_raw(data, doc)
    if not isinstance(data, dict):
        kind = {list: "array", str: "string", int: "number", float: "number", bool: "boolean"}.get(
            type(data), type(data).__name__
        )
        errors.append(ManifestError(f"expected an object, got {kind}", file=source, obj=doc, line=line))
        return
    api_version = data.get("apiVersion")
    kind = data.get("kind")
    missing = [f"{f} not set" for f, v in (("apiVersion", api_version), ("kind", kind)) if not v]
    if missing:
        errors.append(ManifestError(", ".join(missing), file=source, obj=obj_name, line=line))
        return
    if not isinstance(api_version, str) or not isinstance(kind, str):
        errors.append(ManifestError("apiVersion and kind must be strings", file=source, obj=doc, line=line))
        return
    model = model_for(api_version, kind)
    if model is None:
        removed = removed_version(api_version, kind)
        if removed is not None:
            errors.append(ManifestError(removed, file=source, obj=doc if obj_name == doc else f"{doc} ({obj_name})",
                                        line=line))
            return
        if kind == "List" or (kind.endswith("List") and "items" in data):
            _build_list(data, source, doc, docno, line, errors, out, skipped)
            return
        if classify(api_version, kind) == "unused":
            if skipped is not None:
                skipped.append((source, obj_name, api_version, kind))
            else:
                errors.append(ManifestError(
                    f'kind "{kind}" (apiVersion {api_version}) is not used by the scheduler '
                    "(refused in strict mode)", file=source, obj=f"{doc} ({obj_name})", line=line))
            return
        errors.append(
            ManifestError(f'unknown kind "{kind}" (apiVersion {api_version})', file=source, obj=doc, line=line)
        )
        return
    sent = as_sent(data)
    spec = sent.get("spec")
    decode = count_decode_error(kind, api_version, spec) if isinstance(spec, dict) else None
    if decode is not None:  # the count is left out: the object is refused for it (kschedlab.api.unmarshal)
        sent = {**sent, "spec": {k: v for k, v in spec.items() if k not in INT32_COUNTS[kind]}}
    try:
        obj = model.model_validate(sent, by_alias=True, by_name=False)
    except ValidationError as e:
        errors.extend(errors_from_validation(e, file=source, obj=obj_name, line=line))
        return
    obj._source = (source, docno)
    obj._decode_error = decode
    out.append(obj)


def _build_list(data: dict, source: str, doc: str, docno: int | None, line: int | None,
                errors: list[ManifestError], out: list[TypedObject], skipped: list | None = None) -> None:
    extra = sorted(set(data) - _LIST_KEYS)
    for k in extra:
        errors.append(ManifestError(f'unknown field "{k}"', file=source, obj=doc, path=k, line=line))
    items = data.get("items")
    if items is None:
        return
    if not isinstance(items, list):
        errors.append(ManifestError("invalid type: expected array", file=source, obj=doc, path="items", line=line))
        return
    kind = data["kind"]
    item_kind = kind[: -len("List")] if kind != "List" else None
    for i, item in enumerate(items):
        label = f"{doc}, item {i + 1}"
        if isinstance(item, dict) and item_kind:
            item = dict(item)
            item.setdefault("kind", item_kind)
            item.setdefault("apiVersion", data.get("apiVersion"))
        _build(item, source, label, docno, line, errors, out, skipped)


def _parse_text(text: str, source: str, is_json: bool, errors: list[ManifestError],
                out: list[TypedObject], skipped: list | None = None) -> None:
    try:
        docs = list(_json_documents(text, source) if is_json else _yaml_documents(text, source))
    except ManifestError as e:
        errors.append(e)
        return
    for n, (data, line) in enumerate(docs, start=1):
        if data is None:
            continue
        _build(data, source, f"document {n}", n, line, errors, out, skipped)


def _finish(errors: list[ManifestError], skipped: list | None, stacklevel: int = 3) -> None:
    if errors:
        raise ManifestError.combine(errors)
    if skipped:
        warnings.warn(SkippedKindsWarning(skipped_summary(skipped), skipped), stacklevel=stacklevel)


def load_text(text: str, source: str = "<string>", *, strict: bool = False) -> list[TypedObject]:
    """Load objects from YAML (or JSON) text.

    Objects of kinds the scheduler does not use (ConfigMap, Event, custom
    resources, ... see :mod:`kschedlab.api.kinds`) are skipped with one
    :class:`~kschedlab.api.kinds.SkippedKindsWarning`; ``strict=True`` makes
    them errors.

    >>> [o.key for o in load_text("kind: Namespace\\napiVersion: v1\\nmetadata: {name: team-a}")]
    ['team-a']
    >>> load_text("apiVersion: v1\\nkind: ConfigMap\\nmetadata: {name: c, namespace: a}", "c.yaml", strict=True)
    Traceback (most recent call last):
    ...
    kschedlab.api.errors.ManifestError: c.yaml: document 1 (ConfigMap a/c): kind "ConfigMap" (apiVersion v1) is not used by the scheduler (refused in strict mode)
    """
    errors: list[ManifestError] = []
    out: list[TypedObject] = []
    skipped: list | None = None if strict else []
    _parse_text(text, source, False, errors, out, skipped)
    _finish(errors, skipped)
    return out


def _as_paths(paths: str | os.PathLike | Iterable[str | os.PathLike]) -> list[Path]:
    if isinstance(paths, (str, os.PathLike)):
        return [Path(paths)]
    return [Path(p) for p in paths]


def _files(paths: Sequence[Path], errors: list[ManifestError]) -> list[Path]:
    files: list[Path] = []
    for p in paths:
        if p.is_dir():
            found = sorted(
                (f for f in p.rglob("*") if f.is_file() and f.suffix.lower() in MANIFEST_SUFFIXES),
                key=lambda f: f.relative_to(p).as_posix(),
            )
            if not found:
                errors.append(ManifestError("no manifest files (*.yaml, *.yml, *.json) in this directory",
                                            file=str(p)))
            files.extend(found)
        elif p.is_file():
            files.append(p)
        else:
            errors.append(ManifestError("no such file or directory", file=str(p)))
    return files


def load(paths: str | os.PathLike | Iterable[str | os.PathLike], *, strict: bool = False) -> list[TypedObject]:
    """Load objects from files and directories (recursively, in sorted order).

    ``.json`` files are read as JSON (an object, a list of objects or a List);
    everything else as multi-document YAML. All errors are reported together in
    one :class:`ManifestError`, and then nothing is returned. Kinds the scheduler
    does not use are skipped with one warning (errors with ``strict=True``), as in
    :func:`load_text`.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "nodes.yaml").write_text("apiVersion: v1\\nkind: Node\\nmetadata: {name: n1}\\n")
    >>> [o.key for o in load(d)]
    ['n1']
    >>> _ = (d / "empty.yaml").write_text("# nothing yet\\n")
    >>> load(d)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    kschedlab.api.errors.ManifestError: .../empty.yaml: the file holds no Kubernetes objects (it is empty or only comments)
    """
    errors: list[ManifestError] = []
    out: list[TypedObject] = []
    skipped: list | None = None if strict else []
    for f in _files(_as_paths(paths), errors):
        source = str(f)
        try:
            text = f.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            errors.append(ManifestError(f"cannot read file: {e}", file=source))
            continue
        before = (len(out), len(errors), len(skipped or ()))
        _parse_text(text, source, f.suffix.lower() == ".json", errors, out, skipped)
        if (len(out), len(errors), len(skipped or ())) == before:
            errors.append(ManifestError("the file holds no Kubernetes objects (it is empty or only comments)",
                                        file=source))
    _finish(errors, skipped)
    return out


def load_objects(data: Any, source: str = "<data>", *, strict: bool = False) -> list[TypedObject]:
    """Build objects from already-parsed data (a dict, a List dict or a list of dicts).

    >>> load_objects({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}})[0].key
    'n1'
    """
    errors: list[ManifestError] = []
    out: list[TypedObject] = []
    skipped: list | None = None if strict else []
    docs = data if isinstance(data, list) else [data]
    for n, d in enumerate(docs, start=1):
        if d is None:
            continue
        _build(d, source, f"document {n}", n, None, errors, out, skipped)
    _finish(errors, skipped)
    return out


def dump(objects: Iterable[TypedObject]) -> str:
    """Multi-document YAML of the objects (only the fields that were set).

    >>> from kschedlab.api.core import Node
    >>> print(dump([Node(metadata={"name": "n1"})]), end="")
    apiVersion: v1
    kind: Node
    metadata:
      name: n1
    """
    docs = []
    for o in objects:
        d = o.model_dump(mode="json", by_alias=True, exclude_unset=True)
        head = {"apiVersion": o.api_version, "kind": o.kind}
        head.update({k: v for k, v in d.items() if k not in head})
        docs.append(head)
    return yaml.safe_dump_all(docs, sort_keys=False, default_flow_style=False)
