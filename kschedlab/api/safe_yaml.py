"""The one YAML reader of kschedlab: safe, strict about keys, bounded in what aliases expand to.

Every YAML file the project reads — manifests, KubeSchedulerConfigurations, scenarios,
sweeps, expected-failure lists — goes through :class:`ManifestLoader` (via
:func:`load_documents`, :func:`safe_load` or :mod:`kschedlab.api.loader`):

* only the safe tags (no Python objects), timestamps kept as text (Kubernetes decodes YAML
  through JSON), a repeated key refused;
* aliases bounded as Go's ``yaml`` package (behind ``sigs.k8s.io/yaml``, which the API server
  and kube-scheduler decode with) bounds them: once a document has decoded more than 1,000
  nodes, at most 99% of them may come from alias expansion up to 400,000 nodes, a share falling
  to 10% at 4,000,000 (:func:`allowed_alias_ratio`); past that the document is refused
  ("excessive aliasing") with the file, the line where the alias is used and the line and
  column of its anchor. An
  anchor that contains an alias of itself is refused too. The count walks the composed node
  graph before anything is built, so an alias bomb costs at most a few hundred thousand steps
  and no memory.

>>> bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\\n" + "".join(
...     f"{c}: &{c} [{', '.join([f'*{p}'] * 10)}]\\n" for p, c in zip("abcdefg", "bcdefgh"))
>>> safe_load(bomb, "bomb.yaml")
Traceback (most recent call last):
...
kschedlab.api.errors.ManifestError: bomb.yaml:4: invalid YAML: document contains excessive aliasing (more than 99% of the first 1,901 decoded nodes come from aliases; here the anchor at line 3, column 4 is expanded)
>>> safe_load("base: &b {cpu: 1}\\nother: *b", "ok.yaml")
{'base': {'cpu': 1}, 'other': {'cpu': 1}}
>>> safe_load("a: 1\\na: 2", "dup.yaml")
Traceback (most recent call last):
...
kschedlab.api.errors.ManifestError: dup.yaml:2: invalid YAML: duplicate key "a" (column 1)
"""

from __future__ import annotations

from typing import Any, Iterator

import yaml

from .errors import ManifestError

__all__ = ["ManifestLoader", "load_documents", "safe_load", "safe_load_all", "check_aliases",
           "allowed_alias_ratio", "ALIAS_RATIO_RANGE_LOW", "ALIAS_RATIO_RANGE_HIGH"]

ALIAS_RATIO_RANGE_LOW = 400_000
"""Up to this many decoded nodes, 99% may come from alias expansion."""
ALIAS_RATIO_RANGE_HIGH = 4_000_000
"""From this many decoded nodes on, 10% may come from alias expansion."""
_MIN_ALIASED = 100
_MIN_DECODED = 1000

_BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class ManifestLoader(_BaseLoader):  # type: ignore[misc, valid-type]
    """SafeLoader that keeps timestamps as text and refuses duplicate keys."""

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:  # noqa: D102
        if isinstance(node, yaml.MappingNode):
            self.flatten_mapping(node)
            seen: set[Any] = set()
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=deep)
                try:
                    dup = key in seen
                    seen.add(key)
                except TypeError:
                    continue
                if dup:
                    raise yaml.constructor.ConstructorError(
                        "while constructing a mapping",
                        node.start_mark,
                        f'duplicate key "{key}"',
                        key_node.start_mark,
                    )
        return super().construct_mapping(node, deep=deep)


# Kubernetes reads YAML timestamps as strings (sigs.k8s.io/yaml goes through JSON).
ManifestLoader.yaml_implicit_resolvers = {
    ch: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for ch, resolvers in _BaseLoader.yaml_implicit_resolvers.items()
}
ManifestLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, ManifestLoader.construct_mapping)


def allowed_alias_ratio(decoded: int) -> float:
    """The share of decoded nodes that may come from alias expansion (Go ``yaml``'s rule).

    >>> allowed_alias_ratio(1000), round(allowed_alias_ratio(2_200_000), 3), allowed_alias_ratio(10**7)
    (0.99, 0.545, 0.1)
    """
    if decoded <= ALIAS_RATIO_RANGE_LOW:
        return 0.99
    if decoded >= ALIAS_RATIO_RANGE_HIGH:
        return 0.10
    span = ALIAS_RATIO_RANGE_HIGH - ALIAS_RATIO_RANGE_LOW
    return 0.99 - 0.89 * ((decoded - ALIAS_RATIO_RANGE_LOW) / span)


def _children(node: Any) -> list:
    value = node.value
    if isinstance(node, yaml.MappingNode):
        return [n for pair in value for n in pair]
    if isinstance(node, yaml.SequenceNode):
        return value
    return []


def _where(node: Any) -> str:
    mark = node.start_mark
    return f"line {mark.line + 1}, column {mark.column + 1}"


def check_aliases(root: Any, source: str) -> None:
    """Refuse a composed document whose aliases expand too far, or an anchor that contains itself.

    Nodes are counted in document order as a decoder meets them, an alias counting its
    anchor's whole subtree again (see the module text); raises :class:`ManifestError`.
    """
    decoded = aliased = 0
    seen: set[int] = set()
    open_ids: set[int] = set()
    # stack of (node, parent, (anchor, where it is used) or None, leaving?)
    stack: list[tuple[Any, Any, Any, bool]] = [(root, None, None, False)]
    while stack:
        node, parent, alias, leaving = stack.pop()
        if leaving:
            open_ids.discard(id(node))
            continue
        nid = id(node)
        if nid in open_ids:
            raise ManifestError(f"invalid YAML: the anchor at {_where(node)} contains an alias of itself",
                                file=source, line=node.start_mark.line + 1)
        if alias is None and nid in seen and _children(node):
            alias = (node, parent)  # a second meeting of a collection node is an alias of it
        seen.add(nid)
        decoded += 1
        if alias is not None:
            aliased += 1
            if (aliased > _MIN_ALIASED and decoded > _MIN_DECODED
                    and aliased / decoded > allowed_alias_ratio(decoded)):
                anchor, used_in = alias
                raise ManifestError(
                    f"invalid YAML: document contains excessive aliasing (more than "
                    f"{allowed_alias_ratio(decoded):.0%} of the first {decoded:,} decoded nodes come from "
                    f"aliases; here the anchor at {_where(anchor)} is expanded)",
                    file=source, line=used_in.start_mark.line + 1)
        kids = _children(node)
        if kids:
            open_ids.add(nid)
            stack.append((node, parent, alias, True))
            stack.extend((k, node, alias, False) for k in reversed(kids))


def load_documents(text: str, source: str) -> Iterator[tuple[Any, int | None]]:
    """``(data, first line)`` of each YAML document of ``text``; bad YAML (aliases past the
    bound included) raises :class:`ManifestError` naming ``source`` and the line."""
    loader = ManifestLoader(text)
    may_alias = "*" in text
    try:
        while loader.check_node():
            node = loader.get_node()
            if node is None:
                yield None, None
                continue
            if may_alias:
                check_aliases(node, source)
            yield loader.construct_document(node), node.start_mark.line + 1
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line = mark.line + 1 if mark else None
        col = f" (column {mark.column + 1})" if mark else ""
        problem = e.problem or e.context or "malformed YAML"
        raise ManifestError(f"invalid YAML: {problem}{col}", file=source, line=line) from None
    except yaml.YAMLError as e:
        raise ManifestError(f"invalid YAML: {e}", file=source) from None
    finally:
        loader.dispose()


def safe_load_all(text: str, source: str = "<string>") -> list[Any]:
    """Every document of ``text`` (empty ones as None), read by :class:`ManifestLoader`.

    >>> safe_load_all("a: 1\\n---\\nb: [2]\\n")
    [{'a': 1}, {'b': [2]}]
    """
    return [data for data, _ in load_documents(text, source)]


def safe_load(text: str, source: str = "<string>") -> Any:
    """The single document of ``text`` (None when empty), read by :class:`ManifestLoader`;
    more than one document is refused.

    >>> safe_load("created: 2024-01-02T03:04:05Z")
    {'created': '2024-01-02T03:04:05Z'}
    """
    docs = safe_load_all(text, source)
    if len(docs) > 1:
        raise ManifestError("invalid YAML: expected a single document in the stream, found more", file=source)
    return docs[0] if docs else None
