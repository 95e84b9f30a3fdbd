"""Pieces of PodTopologySpread that do not depend on the framework plumbing
(upstream ``podtopologyspread/common.go``, ``helper/spread.go`` and the bits of
``apimachinery/pkg/labels`` the plugin relies on).

* :class:`Selector` -- a parsed ``labels.Selector``: ``Nothing`` (a nil
  ``labelSelector``), ``Everything`` (an empty one) or a list of requirements.
  Upstream's quirks are kept: a ``Nothing`` selector matches no pod; an
  ``Everything`` selector matches every pod but *counts* none of the existing pods
  (``countPodsMatchSelector`` returns 0 for an empty selector).
* :class:`SpreadConstraint` -- the internal constraint (``topologySpreadConstraint``)
  with its defaults: ``minDomains`` 1, ``nodeAffinityPolicy`` Honor,
  ``nodeTaintsPolicy`` Ignore.
* :func:`default_selector` -- ``helper.DefaultSelector``: the selector deduced from the
  Services, ReplicationControllers, ReplicaSets and StatefulSets a pod belongs to.
* :func:`go_log` / :func:`go_round` -- Go's ``math.Log`` and ``math.Round`` bit for
  bit, so scores equal upstream's float arithmetic.

>>> s = Selector.from_label_selector(LabelSelector.model_validate({"matchLabels": {"foo": "bar"}}))
>>> s.matches({"foo": "bar"}), s.matches({}), s.empty()
(True, False, False)
>>> Selector.from_label_selector(None).matches({"foo": "bar"})
False
>>> every = Selector.from_label_selector(LabelSelector())
>>> every.matches({}), every.empty()
(True, True)
>>> go_round(2.5), go_round(0.49999999999999994), go_round(-2.5)
(3, 0, -3)
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field
from typing import Iterable, Mapping

import numpy as np

from kschedlab.api.labels import is_qualified_name, is_valid_label_value
from kschedlab.api.meta import LabelSelector
from kschedlab.api.tolerations import TaintValueError, find_matching_untolerated_taint

LABEL_HOSTNAME = "kubernetes.io/hostname"
LABEL_TOPOLOGY_ZONE = "topology.kubernetes.io/zone"
DO_NOT_SCHEDULE = "DoNotSchedule"
SCHEDULE_ANYWAY = "ScheduleAnyway"
HONOR = "Honor"
IGNORE = "Ignore"
MAX_INT32 = (1 << 31) - 1
DO_NOT_SCHEDULE_TAINTS = ("NoSchedule", "NoExecute")

# labels.selection operators, as upstream spells them in Requirement.String()
OP_EQUALS = "="
OP_IN = "in"
OP_NOT_IN = "notin"
OP_EXISTS = "exists"
OP_DOES_NOT_EXIST = "!"
_FROM_API = {"In": OP_IN, "NotIn": OP_NOT_IN, "Exists": OP_EXISTS, "DoesNotExist": OP_DOES_NOT_EXIST}


class SelectorError(ValueError):
    """``metav1.LabelSelectorAsSelector`` refused a selector."""


# -- labels.Selector ---------------------------------------------------------------------------
Requirement = tuple[str, str, tuple[str, ...]]  # (key, operator, values)


def _requirement(key: str, op: str, values: Iterable[str]) -> Requirement:
    """``labels.NewRequirement`` with its validation (the error text follows upstream's)."""
    values = tuple(values)
    if not is_qualified_name(key):
        raise SelectorError(f'key: Invalid value: "{key}": name part must consist of alphanumeric characters, '
                            "'-', '_' or '.', and must start and end with an alphanumeric character")
    if op in (OP_IN, OP_NOT_IN) and not values:
        raise SelectorError("values: Invalid value: []string{}: for 'in', 'notin' operators, "
                            "values set can't be empty")
    if op == OP_EQUALS and len(values) != 1:
        raise SelectorError("values: Invalid value: exact-match compatibility requires one single value")
    if op in (OP_EXISTS, OP_DOES_NOT_EXIST) and values:
        raise SelectorError("values: Invalid value: values set must be empty for exists and does not exist")
    for i, v in enumerate(values):
        if not is_valid_label_value(v):
            raise SelectorError(f'values[{i}]: Invalid value: "{v}": a valid label must be an empty string or '
                                "consist of alphanumeric characters, '-', '_' or '.', and must start and end "
                                "with an alphanumeric character")
    return key, op, values


def _requirement_matches(req: Requirement, labels: Mapping[str, str]) -> bool:
    key, op, values = req
    if op in (OP_EQUALS, OP_IN):
        return key in labels and labels[key] in values
    if op == OP_NOT_IN:
        return key not in labels or labels[key] not in values
    if op == OP_EXISTS:
        return key in labels
    return key not in labels  # DoesNotExist


@dataclass(frozen=True)
class Selector:
    """A parsed label selector; ``requirements is None`` is ``labels.Nothing()``."""

    requirements: tuple[Requirement, ...] | None = ()

    @staticmethod
    def from_label_selector(ls: LabelSelector | None) -> "Selector":
        """``metav1.LabelSelectorAsSelector``: nil -> Nothing, empty -> Everything."""
        if ls is None:
            return Selector(None)
        reqs = [_requirement(k, OP_EQUALS, (v,)) for k, v in ls.match_labels.items()]
        for expr in ls.match_expressions:
            op = _FROM_API.get(expr.operator or "")
            if op is None:
                raise SelectorError(f'"{expr.operator or ""}" is not a valid label selector operator')
            reqs.append(_requirement(expr.key or "", op, expr.values))
        return Selector(()).add(reqs)

    @staticmethod
    def from_set(labels: Mapping[str, str]) -> "Selector":
        """``labels.SelectorFromSet`` / ``Set.AsSelector``: one Equals requirement per label."""
        if not labels:
            return _EVERYTHING
        return Selector(()).add((k, OP_EQUALS, (v,)) for k, v in labels.items())

    def add(self, reqs: Iterable[Requirement]) -> "Selector":
        """``Selector.Add``: a new selector with the requirements sorted by key (Nothing stays Nothing)."""
        if self.requirements is None:
            return self
        return Selector(tuple(sorted((*self.requirements, *reqs))))

    @property
    def is_nothing(self) -> bool:
        return self.requirements is None

    def empty(self) -> bool:
        """``Selector.Empty``: no requirements (Everything); Nothing is not empty."""
        return self.requirements is not None and not self.requirements

    def matches(self, labels: Mapping[str, str]) -> bool:
        if self.requirements is None:
            return False
        return all(_requirement_matches(r, labels) for r in self.requirements)

    @property
    def key(self) -> tuple:
        """A hashable identity of the selector (for the snapshot's pod indexes)."""
        return ("nothing",) if self.requirements is None else self.requirements

    def as_data(self) -> list | None:
        """Plain data: None for Nothing, else ``[[key, op, [values]]]`` sorted."""
        if self.requirements is None:
            return None
        return [[k, op, sorted(vals)] for k, op, vals in sorted(self.requirements)]

    def __str__(self) -> str:
        if self.requirements is None:
            return "<nothing>"
        parts = []
        for k, op, vals in self.requirements:
            if op == OP_EXISTS:
                parts.append(k)
            elif op == OP_DOES_NOT_EXIST:
                parts.append(f"!{k}")
            elif op == OP_EQUALS:
                parts.append(f"{k}={vals[0]}")
            else:
                parts.append(f"{k} {op} ({','.join(sorted(vals))})")
        return ",".join(parts)


#: the empty selector (selects everything); Selector is immutable, so it is shared
_EVERYTHING = Selector(())


def merge_label_set_with_selector(match_labels: Mapping[str, str], selector: Selector) -> Selector:
    """``mergeLabelSetWithSelector``: the pod's matchLabelKeys labels ANDed with the selector
    (a Nothing selector is returned unchanged)."""
    if selector.is_nothing:
        return selector
    return Selector.from_set(match_labels).add(selector.requirements or ())


# -- constraints -----------------------------------------------------------------------------
@dataclass(frozen=True)
class SpreadConstraint:
    """``topologySpreadConstraint``: a v1.TopologySpreadConstraint with its selector parsed."""

    max_skew: int
    topology_key: str
    selector: Selector
    min_domains: int = 1
    node_affinity_policy: str = HONOR
    node_taints_policy: str = IGNORE

    def as_data(self) -> dict:
        return {"maxSkew": self.max_skew, "topologyKey": self.topology_key, "selector": self.selector.as_data(),
                "minDomains": self.min_domains, "nodeAffinityPolicy": self.node_affinity_policy,
                "nodeTaintsPolicy": self.node_taints_policy}


def filter_constraints(constraints, pod_labels: Mapping[str, str], action: str, *,
                       match_label_keys: bool, node_inclusion_policy: bool) -> list[SpreadConstraint]:
    """``filterTopologySpreadConstraints``: the constraints with ``whenUnsatisfiable == action``,
    selectors parsed, matchLabelKeys merged (gate MatchLabelKeysInPodTopologySpread) and the
    inclusion policies read (gate NodeInclusionPolicyInPodTopologySpread)."""
    out: list[SpreadConstraint] = []
    for c in constraints:
        if c.when_unsatisfiable != action:
            continue
        selector = Selector.from_label_selector(c.label_selector)
        if match_label_keys and c.match_label_keys:
            labels = {k: pod_labels[k] for k in c.match_label_keys if k in pod_labels}
            if labels:
                selector = merge_label_set_with_selector(labels, selector)
        affinity, taints = HONOR, IGNORE
        if node_inclusion_policy:
            affinity = c.node_affinity_policy or HONOR
            taints = c.node_taints_policy or IGNORE
        out.append(SpreadConstraint(int(c.max_skew or 0), c.topology_key or "", selector,
                                    1 if c.min_domains is None else int(c.min_domains), affinity, taints))
    return out


def node_labels_match(labels: Mapping[str, str], constraints: list[SpreadConstraint]) -> bool:
    """``nodeLabelsMatchSpreadConstraints``: every topology key present."""
    return all(c.topology_key in labels for c in constraints)


def count_pods_match_selector(pod_infos, selector: Selector, namespace: str) -> int:
    """``countPodsMatchSelector`` for one node (the per-pod reference path)."""
    if selector.empty():
        return 0
    return sum(1 for p in pod_infos if counts_towards(p, selector, namespace))


def counts_towards(pod_info, selector: Selector, namespace: str) -> bool:
    """Whether an existing pod counts for a constraint: same namespace, not terminating,
    labels matched (the predicate of the snapshot's pod index)."""
    pod = pod_info.pod
    return ((pod.metadata.namespace or "") == namespace and pod.metadata.deletion_timestamp is None
            and selector.matches(pod.metadata.labels))


# -- node inclusion policies, vectorized -----------------------------------------------------------
def untolerated_mask(snapshot, rows: np.ndarray, tolerations, comparison_operators: bool) -> np.ndarray:
    """Rows with a NoSchedule/NoExecute taint the tolerations do not tolerate
    (``FindMatchingUntoleratedTaint`` with ``DoNotScheduleTaintsFilterFunc``), computed once
    per distinct taint set. A numeric toleration meeting a non-integer taint value does not
    tolerate it."""
    if len(snapshot.taint_sets) == 1:
        return np.zeros(len(rows), bool)
    groups = snapshot.taint_group[rows]
    unique = np.unique(groups)
    bad = np.zeros(len(unique), bool)
    for i, g in enumerate(unique.tolist()):
        try:
            taint = find_matching_untolerated_taint(snapshot.taint_sets[g], tolerations, DO_NOT_SCHEDULE_TAINTS,
                                                    comparison_operators=comparison_operators)
        except TaintValueError:
            taint = True
        bad[i] = taint is not None
    return bad[np.searchsorted(unique, groups)]


# -- helper.DefaultSelector --------------------------------------------------------------------------
_RC = ("", "v1", "ReplicationController")
_RS = ("apps", "v1", "ReplicaSet")
_SS = ("apps", "v1", "StatefulSet")


def _parse_group_version(api_version: str) -> tuple[str, str] | None:
    """``schema.ParseGroupVersion``: "" -> ("", ""), "v1" -> ("", "v1"), "apps/v1"; more slashes fail."""
    if not api_version:
        return "", ""
    parts = api_version.split("/")
    if len(parts) == 1:
        return "", parts[0]
    if len(parts) == 2:
        return parts[0], parts[1]
    return None


def _find(cluster, kind: str, namespace: str, name: str):
    for obj in cluster.of_kind(kind) if cluster is not None else ():
        if (obj.metadata.namespace or "") == namespace and (obj.metadata.name or "") == name:
            return obj
    return None


def _service_selector(service) -> dict | None:
    """A Service's ``spec.selector``; None when it was never set (nil selects nothing)."""
    spec = service.spec
    if "selector" not in spec.model_fields_set and not spec.selector:
        return None
    return dict(spec.selector)


def default_selector(pod, cluster) -> Selector:
    """``helper.DefaultSelector``: the labels selected by the pod's Services merged, plus the
    selector of the ReplicationController, ReplicaSet or StatefulSet controlling it."""
    namespace = pod.metadata.namespace or ""
    labels = pod.metadata.labels
    label_set: dict[str, str] = {}
    for service in cluster.of_kind("Service") if cluster is not None else ():
        if (service.metadata.namespace or "") != namespace:
            continue
        sel = _service_selector(service)
        if sel is None:
            continue
        if all(labels.get(k) == v and k in labels for k, v in sel.items()):
            label_set.update(sel)
    selector = Selector.from_set(label_set)
    owner = pod.metadata.controller_ref()
    if owner is None:
        return selector
    gv = _parse_group_version(owner.api_version or "")
    if gv is None:
        return selector
    gvk = (*gv, owner.kind or "")
    if gvk == _RC:
        rc = _find(cluster, "ReplicationController", namespace, owner.name or "")
        if rc is not None:
            label_set.update(getattr(rc.spec, "selector", None) or {})
            selector = Selector.from_set(label_set)
    elif gvk in (_RS, _SS):
        obj = _find(cluster, gvk[2], namespace, owner.name or "")
        if obj is not None:
            try:
                other = Selector.from_label_selector(obj.spec.selector)
            except SelectorError:
                return selector
            if not other.is_nothing:
                selector = selector.add(other.requirements or ())
    return selector


# -- Go float arithmetic ------------------------------------------------------------------------------
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_L1 = 6.666666666666735130e-01
_L2 = 3.999999999940941908e-01
_L3 = 2.857142874366239149e-01
_L4 = 2.222219843214978396e-01
_L5 = 1.818357216161805012e-01
_L6 = 1.531383769920937332e-01
_L7 = 1.479819860511658591e-01
_SQRT2_HALF = math.sqrt(2) / 2


def go_log(x: float) -> float:
    """Go's ``math.Log`` (the FreeBSD ``e_log.c`` algorithm Go implements), operation by
    operation, so results match upstream to the last bit.

    >>> go_log(1.0), go_log(math.e) == 1.0
    (0.0, True)
    """
    if math.isnan(x) or x == math.inf:
        return x
    if x < 0:
        return math.nan
    if x == 0:
        return -math.inf
    f1, ki = math.frexp(x)
    if f1 < _SQRT2_HALF:
        f1 *= 2
        ki -= 1
    f = f1 - 1
    k = float(ki)
    s = f / (2 + f)
    s2 = s * s
    s4 = s2 * s2
    t1 = s2 * (_L1 + s4 * (_L3 + s4 * (_L5 + s4 * _L7)))
    t2 = s4 * (_L2 + s4 * (_L4 + s4 * _L6))
    r = t1 + t2
    hfsq = 0.5 * f * f
    return k * _LN2_HI - ((hfsq - (s * (hfsq + r) + k * _LN2_LO)) - f)


def topology_normalizing_weight(size: int) -> float:
    """``topologyNormalizingWeight``: ln(size + 2), as Go computes it."""
    return go_log(float(size + 2))


def go_round(x: float) -> int:
    """Go's ``math.Round``: half away from zero (Python's ``round`` rounds half to even)."""
    t = math.trunc(x)
    if abs(x - t) >= 0.5:
        t += math.copysign(1, x)
    return int(t)


def go_round_array(x: np.ndarray) -> np.ndarray:
    """:func:`go_round` over an array of float64, as int64."""
    t = np.trunc(x)
    return (t + np.where(np.abs(x - t) >= 0.5, np.sign(x), 0.0)).astype(np.int64)


def float_bits(x: float) -> int:
    """The IEEE-754 bits of a float (to compare float results exactly in tests)."""
    return struct.unpack("<Q", struct.pack("<d", x))[0]


@dataclass
class CriticalPaths:
    """``criticalPaths``: the two (value, count) pairs with the smallest counts, kept with
    upstream's update rule (it is exact after PreFilter, approximate after AddPod/RemovePod)."""

    paths: list[list] = field(default_factory=lambda: [["", MAX_INT32], ["", MAX_INT32]])

    def update(self, value: str, num: int) -> None:
        p = self.paths
        i = 0 if value == p[0][0] else 1 if value == p[1][0] else -1
        if i >= 0:
            p[i][1] = num
            if p[0][1] > p[1][1]:
                p[0], p[1] = p[1], p[0]
        elif num < p[0][1]:
            p[1] = p[0]
            p[0] = [value, num]
        elif num < p[1][1]:
            p[1] = [value, num]

    def copy(self) -> "CriticalPaths":
        return CriticalPaths([list(self.paths[0]), list(self.paths[1])])

    def as_data(self) -> list:
        """The two paths, values of equal counts sorted (as upstream's tests compare them)."""
        (v0, n0), (v1, n1) = self.paths
        if n0 == n1 and v0 > v1:
            v0, v1 = v1, v0
        return [[v0, n0], [v1, n1]]
