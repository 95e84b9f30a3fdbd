"""The one YAML reader of kschedlab: safe, strict about keys, bounded in what aliases expand to.

Every YAML file the project reads — manifests, KubeSchedulerConfigurations, scenarios,
sweeps, expected-failure lists — goes through :class:`ManifestLoader` (via
:func:`load_documents`, :func:`safe_load` or :mod:`kschedlab.api.loader`):

* only the safe tags (no Python objects), timestamps kept as text (Kubernetes decodes YAML
  through JSON), a repeated key refused;
* plain scalars resolved as kubectl's YAML reader resolves them (``sigs.k8s.io/yaml`` on its
  go-yaml v2 fork, ``resolve``; :func:`resolve_plain`), not by PyYAML's YAML 1.1 rules:
  ``1e3`` and ``+12e03`` are numbers, ``0o17`` and ``0x1F`` integers, ``08`` the float 8,
  ``1:30`` text (no base 60), ``y`` / ``n`` booleans besides ``yes`` / ``on`` / ``true``...,
  an integer beyond 64 bits kept whole;
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

import re
from typing import Any, Iterator

import yaml

from .errors import ManifestError

__all__ = ["ManifestLoader", "resolve_plain", "load_documents", "safe_load", "safe_load_all", "check_aliases",
           "allowed_alias_ratio", "ALIAS_RATIO_RANGE_LOW", "ALIAS_RATIO_RANGE_HIGH"]

ALIAS_RATIO_RANGE_LOW = 400_000
"""Up to this many decoded nodes, 99% may come from alias expansion."""
ALIAS_RATIO_RANGE_HIGH = 4_000_000
"""From this many decoded nodes on, 10% may come from alias expansion."""
_MIN_ALIASED = 100
_MIN_DECODED = 1000

_BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class ManifestLoader(_BaseLoader):  # type: ignore[misc, valid-type]
    """SafeLoader that resolves plain scalars as go-yaml (:func:`resolve_plain`; timestamps
    stay text) and refuses duplicate keys."""

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


    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:  # noqa: D102
        if kind is yaml.ScalarNode and implicit[0]:
            if value == "<<":
                return _MERGE_TAG
            return _TAGS[type(resolve_plain(value))]
        return super().resolve(kind, value, implicit)

    def construct_yaml_int(self, node: Any) -> Any:  # noqa: D102
        value = resolve_plain(self.construct_scalar(node))
        if type(value) is not int:
            raise _cannot_decode(node, value, "!!int")
        return value

    def construct_yaml_float(self, node: Any) -> Any:  # noqa: D102
        value = resolve_plain(self.construct_scalar(node))
        if type(value) is int:
            return float(value)  # go-yaml: an integer tagged !!float is its float64
        if type(value) is not float:
            raise _cannot_decode(node, value, "!!float")
        return value

    def construct_yaml_bool(self, node: Any) -> Any:  # noqa: D102
        value = resolve_plain(self.construct_scalar(node))
        if type(value) is not bool:
            raise _cannot_decode(node, value, "!!bool")
        return value


_MERGE_TAG = "tag:yaml.org,2002:merge"
_TAGS = {type(None): "tag:yaml.org,2002:null", bool: "tag:yaml.org,2002:bool", int: "tag:yaml.org,2002:int",
         float: "tag:yaml.org,2002:float", str: "tag:yaml.org,2002:str"}
_SHORT = {int: "!!int", float: "!!float", bool: "!!bool", type(None): "!!null", str: "!!str"}

#: go-yaml v2's ``resolveMap``: the words (and ``.inf`` / ``.nan`` forms) it looks up whole
_WORDS: dict[str, Any] = {
    **dict.fromkeys(("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), True),
    **dict.fromkeys(("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), False),
    **dict.fromkeys(("", "~", "null", "Null", "NULL"), None),
    **dict.fromkeys((".nan", ".NaN", ".NAN"), float("nan")),
    **dict.fromkeys((".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"), float("inf")),
    **dict.fromkeys(("-.inf", "-.Inf", "-.INF"), float("-inf")),
}
#: go-yaml's ``yamlStyleFloat``
_YAML_STYLE_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
#: what Go's ``strconv.ParseFloat`` reads of a scalar that starts with a dot (no underscores)
_DOT_FLOAT = re.compile(r"\.[0-9]+([eE][-+]?[0-9]+)?")
_DIGITS = {2: "01", 8: "01234567", 10: "0123456789", 16: "0123456789abcdefABCDEF"}
_INT64 = 1 << 63
_UINT64 = 1 << 64


def _go_integer(text: str) -> tuple[int | None, bool]:
    """Go's ``strconv.ParseInt(text, 0, 64)`` then ``ParseUint``, without their range: the value
    (None: not an integer) and whether it is out of range the way ``ParseUint`` reports it
    (unsigned, above 64 bits: go-yaml then keeps it whole as a ``big.Int``)."""
    sign, body = (text[0], text[1:]) if text[:1] in ("+", "-") else ("", text)
    prefix = body[:2].lower()
    if prefix in ("0x", "0o", "0b"):
        base, digits = {"0x": 16, "0o": 8, "0b": 2}[prefix], body[2:]
    elif body[:1] == "0" and len(body) > 1:
        base, digits = 8, body[1:]
    else:
        base, digits = 10, body
    if not digits or any(c not in _DIGITS[base] for c in digits):
        return None, False
    if base == 10 and len(digits) > 4000:  # far past 64 bits (and Python's int-from-text limit)
        return None, not sign
    value = int(digits, base) * (-1 if sign == "-" else 1)
    if -_INT64 <= value < _INT64 or (not sign and value < _UINT64):
        return value, False
    return None, not sign


def resolve_plain(text: str) -> Any:
    """A plain (unquoted) YAML scalar as go-yaml v2's ``resolve`` reads it, which is what
    kubectl and the API server see: None, a bool, an int (any size), a float or the text.

    >>> [resolve_plain(t) for t in ("1e3", "+12e03", "0o17", "0x1F", "017", "08", "1_000", ".5", "1.")]
    [1000.0, 12000.0, 15, 31, 15, 8.0, 1000, 0.5, 1.0]
    >>> [resolve_plain(t) for t in ("y", "off", "~", "1:30", "0b2", "1e400", "-.inf", "2024-01-02", "0x" + "f" * 20)]
    [True, False, None, '1:30', '0b2', '1e400', -inf, '2024-01-02', 1208925819614629174706175]
    """
    if text in _WORDS:
        return _WORDS[text]
    first = text[:1]
    if first == ".":
        return float(text) if _DOT_FLOAT.fullmatch(text) else text
    if first not in "+-0123456789" or not first:
        return text
    plain = text.replace("_", "")
    value, out_of_range = _go_integer(plain)
    if value is not None:
        return value
    if _YAML_STYLE_FLOAT.fullmatch(plain):
        number = float(plain)
        if number not in (float("inf"), float("-inf")):  # Go's ParseFloat fails past float64
            return number
    if out_of_range:
        return int(plain, 0) if plain[:2].lower() in ("0x", "0o", "0b") else _big_decimal(plain)
    return text


def _big_decimal(plain: str) -> Any:
    """An unsigned decimal (or leading-zero octal) integer past 64 bits, kept whole; one of more
    than 4,000 digits stays text (it fits no Kubernetes field either way)."""
    if plain[:1] == "0":
        return int(plain[1:], 8)
    return int(plain) if len(plain) <= 4000 else plain


def _cannot_decode(node: Any, value: Any, tag: str) -> yaml.constructor.ConstructorError:
    return yaml.constructor.ConstructorError(
        None, None, f"cannot decode {_SHORT[type(value)]} `{node.value}` as a {tag}", node.start_mark)


# A plain scalar is resolved by ManifestLoader.resolve (go-yaml's rules: a timestamp stays text,
# as Kubernetes reads it through JSON); PyYAML's YAML 1.1 implicit resolvers are not used.
ManifestLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, ManifestLoader.construct_mapping)
ManifestLoader.add_constructor(_MERGE_TAG, ManifestLoader.construct_scalar)  # ``<<`` as a value: the text
ManifestLoader.add_constructor("tag:yaml.org,2002:int", ManifestLoader.construct_yaml_int)
ManifestLoader.add_constructor("tag:yaml.org,2002:float", ManifestLoader.construct_yaml_float)
ManifestLoader.add_constructor("tag:yaml.org,2002:bool", ManifestLoader.construct_yaml_bool)


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
    except RecursionError:
        # the reader refuses nesting past 1000 levels; building the data of a document nested
        # a few hundred levels deep can exhaust Python's stack before that
        raise ManifestError("invalid YAML: nested too deeply to build", file=source) from None
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
