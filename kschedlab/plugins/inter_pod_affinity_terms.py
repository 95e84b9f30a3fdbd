"""Inter-pod (anti-)affinity terms as kube-scheduler processes them.

A ``v1.PodAffinityTerm`` becomes an :class:`AffinityTerm` (upstream
``framework.AffinityTerm``): the label selector compiled as
``metav1.LabelSelectorAsSelector`` does (``None`` selects nothing, ``{}``
everything), the namespaces the term names, the topology key and the namespace
selector. :func:`pod_terms` parses the four lists of a pod once
(``framework.NewPodInfo``) and keeps the result in the ``PodInfo``'s cache.

Which namespaces a term covers (``getNamespacesFromPodAffinityTerm`` and
``AffinityTerm.Matches``): the names in ``namespaces`` or any namespace whose
labels match ``namespaceSelector``; with neither, the namespace of the pod that
carries the term. An empty ``namespaceSelector`` (``{}``) matches every namespace.

>>> from kschedlab.api.core import Pod
>>> pod = Pod.model_validate({"metadata": {"name": "web", "namespace": "shop", "labels": {"app": "web"}},
...     "spec": {"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
...         {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}]}}}})
>>> terms = parse_pod_terms(pod)
>>> t = terms.required_anti[0]
>>> sorted(t.namespaces), t.topology_key, t.matches(pod, None)
(['shop'], 'kubernetes.io/hostname', True)
>>> parse_pod_terms(Pod.model_validate({"spec": {"affinity": {"podAffinity": {
...     "requiredDuringSchedulingIgnoredDuringExecution": [{"labelSelector": {"matchExpressions": [
...     {"key": "app", "operator": "In", "values": ["{bad}"]}]}, "topologyKey": "zone"}]}}}})).error[:61]
'requiredAffinityTerms: values[0][app]: Invalid value: "{bad}"'
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Iterable, Mapping

from kschedlab.api.validation import label_value_errors, qualified_name_errors

__all__ = [
    "Selector",
    "EVERYTHING",
    "NOTHING",
    "label_selector_as_selector",
    "AffinityTerm",
    "PodTerms",
    "parse_pod_terms",
    "pod_terms",
    "terms_key",
    "merge_namespace_selector",
]

def _go_quote(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)


def _go_strings(values: list[str]) -> str:
    """``%#v`` of a ``[]string`` (``[]string(nil)`` when empty, as LabelSelectorAsSelector passes it)."""
    if not values:
        return "[]string(nil)"
    return "[]string{" + ", ".join(_go_quote(v) for v in values) + "}"


def _aggregate(errors: list[str]) -> str:
    """``utilerrors.NewAggregate(...).Error()``: one message, or ``[a, b]`` (duplicates dropped)."""
    seen: list[str] = []
    for e in errors:
        if e not in seen:
            seen.append(e)
    return seen[0] if len(seen) == 1 else "[" + ", ".join(seen) + "]"


# -- selectors ------------------------------------------------------------------------------------------------
_OPS = {"In": "in", "NotIn": "notin", "Exists": "exists", "DoesNotExist": "!"}


@dataclass(frozen=True)
class Selector:
    """A compiled ``labels.Selector``: ``kind`` is ``"everything"``, ``"nothing"`` or ``"requirements"``.

    >>> s, _ = label_selector_as_selector(_sel({"matchExpressions": [{"key": "a", "operator": "NotIn",
    ...                                                             "values": ["x"]}]}))
    >>> s.matches({}), s.matches({"a": "x"}), EVERYTHING.matches({}), NOTHING.matches({})
    (True, False, True, False)
    """

    kind: str
    requirements: tuple = ()  # ((key, op, frozenset(values)), ...) sorted by key

    def matches(self, labels: Mapping[str, str] | None) -> bool:
        if self.kind == "everything":
            return True
        if self.kind == "nothing":
            return False
        labels = labels or {}
        for key, op, values in self.requirements:
            if op == "in" or op == "=":
                if key not in labels or labels[key] not in values:
                    return False
            elif op == "notin":
                if key in labels and labels[key] in values:
                    return False
            elif op == "exists":
                if key not in labels:
                    return False
            elif key in labels:  # "!" DoesNotExist
                return False
        return True

    def is_empty(self) -> bool:
        """``labels.Selector.Empty()``: true only for the selector of ``{}`` (not for "nothing")."""
        return self.kind == "everything"

    @property
    def key(self) -> tuple:
        return (self.kind, tuple((k, op, tuple(sorted(v))) for k, op, v in self.requirements))


EVERYTHING = Selector("everything")
NOTHING = Selector("nothing")


def _sel(data: dict):  # doctest helper
    from kschedlab.api.meta import LabelSelector

    return LabelSelector.model_validate(data)


def _requirement_errors(key: str, op: str, values: list[str]) -> list[str]:
    """``labels.NewRequirement`` validation, as field errors rendered to strings."""
    errs = []
    key_errors = qualified_name_errors(key)
    if key_errors:
        errs.append(f"key: Invalid value: {_go_quote(key)}: {'; '.join(key_errors)}")
    if op in ("in", "notin") and not values:
        errs.append(f"values: Invalid value: {_go_strings(values)}: "
                    "for 'in', 'notin' operators, values set can't be empty")
    elif op == "=" and len(values) != 1:
        errs.append(f"values: Invalid value: {_go_strings(values)}: "
                    "exact-match compatibility requires one single value")
    elif op in ("exists", "!") and values:
        errs.append(f"values: Invalid value: {_go_strings(values)}: values set must be empty for exists and does "
                    "not exist")
    for i, v in enumerate(values):
        msgs = label_value_errors(v)
        if msgs:
            errs.append(f"values[{i}][{key}]: Invalid value: {_go_quote(v)}: {'; '.join(msgs)}")
    return errs


def label_selector_as_selector(selector) -> tuple[Selector, str | None]:
    """``metav1.LabelSelectorAsSelector``: (selector, error message or None).

    >>> label_selector_as_selector(None)[0] is NOTHING, label_selector_as_selector(_sel({}))[0] is EVERYTHING
    (True, True)
    >>> label_selector_as_selector(_sel({"matchExpressions": [{"key": "a", "operator": "In"}]}))[1]
    "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty"
    """
    if selector is None:
        return NOTHING, None
    if not selector.match_labels and not selector.match_expressions:
        return EVERYTHING, None
    reqs = []
    for k, v in selector.match_labels.items():
        errs = _requirement_errors(k, "=", [v])
        if errs:
            return NOTHING, _aggregate(errs)
        reqs.append((k, "=", frozenset([v])))
    for expr in selector.match_expressions:
        op = _OPS.get(expr.operator or "")
        if op is None:
            return NOTHING, f"{_go_quote(expr.operator or '')} is not a valid label selector operator"
        values = list(expr.values)
        errs = _requirement_errors(expr.key or "", op, values)
        if errs:
            return NOTHING, _aggregate(errs)
        reqs.append((expr.key or "", op, frozenset(values)))
    reqs.sort(key=lambda r: r[0])
    return Selector("requirements", tuple(reqs)), None


# -- terms ---------------------------------------------------------------------------------------------------
_INTERNED: dict[tuple, int] = {}


def _intern(key: tuple) -> int:
    """A small integer naming ``key`` (equal keys, equal ids), for cheap grouping."""
    ident = _INTERNED.get(key)
    if ident is None:
        ident = _INTERNED[key] = len(_INTERNED)
    return ident


@dataclass(frozen=True)
class AffinityTerm:
    """A processed ``v1.PodAffinityTerm`` (upstream ``framework.AffinityTerm``).

    ``match_id`` names what decides which pods the term matches (namespaces and
    selectors, not the topology key): equal ids match the same pods.
    """

    namespaces: frozenset
    selector: Selector
    topology_key: str
    namespace_selector: Selector
    match_id: int = field(init=False, compare=False, repr=False, default=-1)

    def __post_init__(self):
        object.__setattr__(self, "match_id", _intern(self.match_key))

    def matches(self, pod, ns_labels: Mapping[str, str] | None) -> bool:
        """``AffinityTerm.Matches``: ``pod`` (a v1 Pod or a PodInfo) is in one of the term's
        namespaces (``ns_labels`` are the labels of the pod's namespace) and its labels match."""
        meta = pod.metadata if hasattr(pod, "metadata") else pod.pod.metadata
        if (meta.namespace or "") in self.namespaces or self.namespace_selector.matches(ns_labels):
            return self.selector.matches(meta.labels)
        return False

    @cached_property
    def match_key(self) -> tuple:
        """What decides which pods the term matches (the topology key left out; computed once)."""
        return (tuple(sorted(self.namespaces)), self.selector.key, self.namespace_selector.key)


@dataclass(frozen=True)
class WeightedAffinityTerm:
    term: AffinityTerm
    weight: int


@dataclass
class PodTerms:
    """A pod's parsed terms; ``error`` is the parse error NewPodInfo would return (or None).

    ``anti_signature`` / ``score_signature`` name the pod's required anti-affinity terms and
    the terms that score other pods (required affinity, preferred affinity and
    anti-affinity, with weights): pods with equal signatures act alike on an incoming pod.
    """

    required_affinity: list[AffinityTerm] = field(default_factory=list)
    required_anti: list[AffinityTerm] = field(default_factory=list)
    preferred_affinity: list[WeightedAffinityTerm] = field(default_factory=list)
    preferred_anti: list[WeightedAffinityTerm] = field(default_factory=list)
    error: str | None = None
    anti_signature: int = field(init=False, default=-1)
    score_signature: int = field(init=False, default=-1)

    def __post_init__(self):
        self.anti_signature = _intern(("anti", tuple((t.match_id, t.topology_key) for t in self.required_anti)))
        self.score_signature = _intern((
            "score", tuple((t.match_id, t.topology_key) for t in self.required_affinity),
            tuple((w.term.match_id, w.term.topology_key, w.weight) for w in self.preferred_affinity),
            tuple((w.term.match_id, w.term.topology_key, w.weight) for w in self.preferred_anti)))


def _new_affinity_term(pod, term) -> tuple[AffinityTerm | None, str | None]:
    selector, err = label_selector_as_selector(term.label_selector)
    if err is not None:
        return None, err
    if not term.namespaces and term.namespace_selector is None:
        namespaces = frozenset([pod.metadata.namespace or ""])
    else:
        namespaces = frozenset(term.namespaces)
    ns_selector, err = label_selector_as_selector(term.namespace_selector)
    if err is not None:
        return None, err
    return AffinityTerm(namespaces, selector, term.topology_key or "", ns_selector), None


def _terms(pod, v1_terms) -> tuple[list[AffinityTerm], str | None]:
    out = []
    for t in v1_terms:
        parsed, err = _new_affinity_term(pod, t)
        if err is not None:
            return [], err  # upstream drops the whole list on the first bad term
        out.append(parsed)
    return out, None


def _weighted(pod, v1_terms) -> tuple[list[WeightedAffinityTerm], str | None]:
    out = []
    for w in v1_terms:
        parsed, err = _new_affinity_term(pod, w.pod_affinity_term)
        if err is not None:
            return [], err
        out.append(WeightedAffinityTerm(parsed, int(w.weight or 0)))
    return out, None


_NO_TERMS: PodTerms | None = None


def parse_pod_terms(pod) -> PodTerms:
    """``framework.NewPodInfo``'s term parsing: every list, errors joined as upstream does
    (a pod without pod (anti-)affinity shares one empty, read-only result)."""
    global _NO_TERMS
    aff = pod.spec.affinity
    if aff is None or (aff.pod_affinity is None and aff.pod_anti_affinity is None):
        if _NO_TERMS is None:
            _NO_TERMS = PodTerms()
        return _NO_TERMS
    pa = aff.pod_affinity if aff is not None else None
    paa = aff.pod_anti_affinity if aff is not None else None
    errors = []
    req, err = _terms(pod, pa.required_during_scheduling_ignored_during_execution if pa else [])
    if err:
        errors.append(f"requiredAffinityTerms: {err}")
    anti, err = _terms(pod, paa.required_during_scheduling_ignored_during_execution if paa else [])
    if err:
        errors.append(f"requiredAntiAffinityTerms: {err}")
    pref, err = _weighted(pod, pa.preferred_during_scheduling_ignored_during_execution if pa else [])
    if err:
        errors.append(f"preferredAffinityTerms: {err}")
    pref_anti, err = _weighted(pod, paa.preferred_during_scheduling_ignored_during_execution if paa else [])
    if err:
        errors.append(f"preferredAntiAffinityTerms: {err}")
    return PodTerms(req, anti, pref, pref_anti, _aggregate(errors) if errors else None)


_CACHE_KEY = "InterPodAffinity/terms"


def _selector_key(selector) -> tuple | None:
    if selector is None:
        return None
    return (tuple(selector.match_labels.items()),
            tuple((e.key, e.operator, tuple(e.values)) for e in selector.match_expressions))


def _term_key(term) -> tuple:
    return (_selector_key(term.label_selector), tuple(term.namespaces), term.topology_key,
            _selector_key(term.namespace_selector))


def terms_key(pod) -> tuple | None:
    """Everything :func:`parse_pod_terms` reads of ``pod`` (its namespace and the fields of its
    four term lists, in order), or None for a pod without pod (anti-)affinity: pods with equal
    keys parse to equal terms.

    >>> from kschedlab.api.core import Pod
    >>> def pod(ns, key): return Pod.model_validate({"metadata": {"namespace": ns}, "spec": {"affinity": {
    ...     "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
    ...         {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": key}]}}}})
    >>> terms_key(pod("a", "zone")) == terms_key(pod("a", "zone")), terms_key(pod("b", "zone")) == terms_key(pod("a", "zone"))
    (True, False)
    >>> terms_key(pod("a", "zone")) == terms_key(pod("a", "host")), terms_key(Pod.model_validate({}))
    (False, None)
    """
    aff = pod.spec.affinity
    if aff is None or (aff.pod_affinity is None and aff.pod_anti_affinity is None):
        return None
    out: list = [pod.metadata.namespace or ""]
    for part in (aff.pod_affinity, aff.pod_anti_affinity):
        if part is None:
            out += [(), ()]
            continue
        out.append(tuple(_term_key(t) for t in part.required_during_scheduling_ignored_during_execution))
        out.append(tuple((w.weight, _term_key(w.pod_affinity_term))
                         for w in part.preferred_during_scheduling_ignored_during_execution))
    return tuple(out)


#: parsed terms by :func:`terms_key`, shared by the pods of one template (PodTerms are read-only)
_BY_CONTENT: dict[tuple, PodTerms] = {}
_BY_CONTENT_MAX = 1024


def pod_terms(pod_info) -> PodTerms:
    """The parsed terms of a PodInfo, cached on it while its ``spec.affinity`` object stays, and
    shared by pods whose terms read alike (:func:`terms_key`), so a Deployment's replicas are
    parsed once.

    >>> from kschedlab.api.core import Pod
    >>> from kschedlab.framework.types import PodInfo
    >>> spec = {"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
    ...     {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "zone"}]}}}
    >>> a, b = (PodInfo.of(Pod.model_validate({"metadata": {"name": n}, "spec": spec})) for n in "ab")
    >>> pod_terms(a) is pod_terms(b), pod_terms(a).required_affinity[0].topology_key
    (True, 'zone')
    """
    affinity = pod_info.pod.spec.affinity
    cached = pod_info.cache.get(_CACHE_KEY)
    if cached is None or cached[0] is not affinity:
        key = terms_key(pod_info.pod)
        terms = None if key is None else _BY_CONTENT.get(key)
        if terms is None:
            terms = parse_pod_terms(pod_info.pod)
            if key is not None:
                if len(_BY_CONTENT) >= _BY_CONTENT_MAX:
                    _BY_CONTENT.clear()
                _BY_CONTENT[key] = terms
        cached = pod_info.cache[_CACHE_KEY] = (affinity, terms)
    return cached[1]


def merge_namespace_selector(term: AffinityTerm, namespaces: Iterable[tuple[str, Mapping[str, str]]]
                             ) -> AffinityTerm:
    """``mergeAffinityTermNamespacesIfNotEmpty`` (for the incoming pod's terms): the namespaces
    a non-empty selector picks out of ``namespaces`` ((name, labels) pairs) join the term's
    names and the selector becomes "nothing"; an empty selector (all namespaces) stays.

    >>> t = AffinityTerm(frozenset(["a"]), EVERYTHING, "zone",
    ...                  label_selector_as_selector(_sel({"matchLabels": {"team": "x"}}))[0])
    >>> m = merge_namespace_selector(t, [("b", {"team": "x"}), ("c", {"team": "y"})])
    >>> sorted(m.namespaces), m.namespace_selector is NOTHING
    (['a', 'b'], True)
    """
    if term.namespace_selector.is_empty() or term.namespace_selector.kind == "nothing":
        return term  # all namespaces, or none to add (the term as it is)
    names = {name for name, labels in namespaces if term.namespace_selector.matches(labels)}
    return replace(term, namespaces=term.namespaces | names, namespace_selector=NOTHING)
