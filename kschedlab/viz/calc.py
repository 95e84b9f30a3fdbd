"""Worked score calculations: the numbers a scoring plugin computes, laid out
beside the formula, plus the helpers the notebooks and widgets share.

All functions read a scheduler's plugins and its cluster snapshot; none of
them changes anything.  Call :func:`score_worksheet` *before* the pod is
scheduled (scoring sees the node without the pod), then compare with the
trace of the real attempt.

>>> from kschedlab import Cluster, Scheduler
>>> from kschedlab.api.loader import load_text
>>> cluster = Cluster(load_text('''
... apiVersion: v1
... kind: Node
... metadata: {name: n1}
... status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
... ---
... apiVersion: v1
... kind: Pod
... metadata: {name: web, namespace: default}
... spec: {containers: [{name: c, resources: {requests: {cpu: "1", memory: 2Gi}}}]}
... '''))
>>> sheet = score_worksheet(Scheduler(cluster), "default/web")
>>> sheet.resources["formula"].tolist()
['(4000m - 1000m) * 100 // 4000m = 75', '(8Gi - 2Gi) * 100 // 8Gi = 75']
>>> sheet.nodes.loc["n1"].to_dict()
{'formula': '(75×1 + 75×1) // (1 + 1) = 75', 'by hand': 75, 'plugin': 75}
"""

from __future__ import annotations

import copy
import math
import re
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

import numpy as np
import pandas as pd
import yaml

from kschedlab.api.resources import CPU, EPHEMERAL_STORAGE, MEMORY, to_units
from kschedlab.api.safe_yaml import safe_load_all
from kschedlab.framework.interface import MAX_NODE_SCORE, CycleState
from kschedlab.plugins import resource_allocation as ra
from kschedlab.plugins.helper import FunctionShapePoint, build_broken_linear_function
from kschedlab.plugins.node_resources_fit import (
    LEAST_ALLOCATED,
    MAX_CUSTOM_PRIORITY_SCORE,
    MOST_ALLOCATED,
    REQUESTED_TO_CAPACITY_RATIO,
    STRATEGIES,
    validate_shape,
)
from kschedlab.viz.common import live_rows

__all__ = ["fit_config", "to_yaml", "normalize_shape", "parse_shape", "parse_weights", "shape_errors", "shape_yaml",
           "Worksheet", "score_worksheet", "rtcr_worksheet", "round_half_away", "WhatIf", "what_if",
           "LEGACY_SCALE", "CURRENT_SCALE", "SHAPE_PRESETS"]

#: shape scores are multiplied by this before use: 1 in the documented legacy 0-10 example ...
LEGACY_SCALE = 1
#: ... and MaxNodeScore / MaxCustomPriorityScore = 10 in kube-scheduler today.
CURRENT_SCALE = MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE

#: named shapes for the ShapeEditor and the notebooks (configuration units).
SHAPE_PRESETS: dict[str, list[tuple[int, int]]] = {
    "bin packing (0,0) → (100,10)": [(0, 0), (100, 10)],
    "spreading (0,10) → (100,0)": [(0, 10), (100, 0)],
    "prefer 50-80% full": [(0, 0), (50, 8), (80, 10), (100, 4)],
    "flat until 70%, then pack": [(0, 0), (70, 0), (100, 10)],
}


# -- configuration -------------------------------------------------------------------------------
def fit_config(strategy: str = LEAST_ALLOCATED, resources: Mapping[str, int] | None = None,
               shape: Iterable | None = None, *, scheduler_name: str = "default-scheduler") -> dict:
    """A v1 KubeSchedulerConfiguration (as a dict) setting NodeResourcesFit's scoringStrategy.

    ``resources`` maps resource name to weight (default cpu and memory, 1
    each); ``shape`` is needed for RequestedToCapacityRatio.

    >>> print(to_yaml(fit_config("MostAllocated", {"cpu": 1, "memory": 1})), end="")
    apiVersion: kubescheduler.config.k8s.io/v1
    kind: KubeSchedulerConfiguration
    profiles:
    - schedulerName: default-scheduler
      pluginConfig:
      - name: NodeResourcesFit
        args:
          scoringStrategy:
            type: MostAllocated
            resources:
            - name: cpu
              weight: 1
            - name: memory
              weight: 1
    """
    if strategy not in STRATEGIES:
        raise ValueError(f"scoringStrategy.type: Unsupported value: {strategy!r}: supported values: "
                         + ", ".join(f'"{s}"' for s in STRATEGIES))
    resources = dict(resources or {CPU: 1, MEMORY: 1})
    scoring: dict[str, Any] = {"type": strategy,
                               "resources": [{"name": n, "weight": int(w)} for n, w in resources.items()]}
    if strategy == REQUESTED_TO_CAPACITY_RATIO:
        points = normalize_shape(shape if shape is not None else [(0, 0), (100, 10)])
        scoring["requestedToCapacityRatio"] = {"shape": [{"utilization": u, "score": s} for u, s in points]}
    return {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
            "profiles": [{"schedulerName": scheduler_name,
                          "pluginConfig": [{"name": "NodeResourcesFit", "args": {"scoringStrategy": scoring}}]}]}


def to_yaml(obj) -> str:
    """Block-style YAML, keys in insertion order (how the docs write configurations)."""
    if hasattr(obj, "model_dump"):
        obj = obj.model_dump(mode="json", by_alias=True, exclude_unset=True)
    return yaml.safe_dump(obj, sort_keys=False, default_flow_style=False)


# -- shapes ----------------------------------------------------------------------------------------
def normalize_shape(points) -> list[tuple[int, int]]:
    """Shape points as ``[(utilization, score), ...]`` from dicts, tuples or FunctionShapePoint.

    >>> normalize_shape([{"utilization": 0, "score": 10}, (100, 0)])
    [(0, 10), (100, 0)]
    """
    out = []
    for p in points:
        if isinstance(p, Mapping):
            out.append((int(p.get("utilization", 0)), int(p.get("score", 0))))
        else:
            u, s = p
            out.append((int(u), int(s)))
    return out


def parse_shape(text: str) -> list[tuple[int, int]]:
    """Parse ``"0:0, 50:8, 100:10"`` (utilization:score pairs) into shape points.

    >>> parse_shape("0:0, 50 : 8; 100:10")
    [(0, 0), (50, 8), (100, 10)]
    >>> parse_shape("0:0, oops")
    Traceback (most recent call last):
    ...
    ValueError: cannot read shape point 'oops': write utilization:score, e.g. 50:8
    """
    out = []
    for item in filter(None, (part.strip() for part in re.split(r"[,;\n]", text))):
        m = re.fullmatch(r"(-?\d+)\s*:\s*(-?\d+)", item)
        if not m:
            raise ValueError(f"cannot read shape point {item!r}: write utilization:score, e.g. 50:8")
        out.append((int(m.group(1)), int(m.group(2))))
    return out


def parse_weights(text: str) -> dict[str, int]:
    """Parse ``"cpu=1, memory=1, intel.com/foo=5"`` into resource weights.

    >>> parse_weights("cpu=3, memory = 1; intel.com/foo=5")
    {'cpu': 3, 'memory': 1, 'intel.com/foo': 5}
    """
    out: dict[str, int] = {}
    for item in filter(None, (part.strip() for part in re.split(r"[,;\n]", text))):
        m = re.fullmatch(r"([A-Za-z0-9./_-]+)\s*=\s*(-?\d+)", item)
        if not m:
            raise ValueError(f"cannot read resource weight {item!r}: write name=weight, e.g. cpu=1")
        out[m.group(1)] = int(m.group(2))
    if not out:
        raise ValueError("at least one resource weight is needed, e.g. cpu=1, memory=1")
    return out


def shape_errors(points) -> list[str]:
    """NodeResourcesFit's validation of a shape (messages as upstream's field errors).

    >>> shape_errors([(0, 0), (100, 11)])
    ['scoringStrategy.shape[1].score: FieldValueInvalid: not in valid range [0, 10]']
    """
    return [str(e) for e in validate_shape(normalize_shape(points), "scoringStrategy.shape")]


def shape_yaml(points) -> str:
    """The ``requestedToCapacityRatio`` block of NodeResourcesFitArgs for ``points``.

    >>> print(shape_yaml([(0, 0), (100, 10)]), end="")
    requestedToCapacityRatio:
      shape:
      - utilization: 0
        score: 0
      - utilization: 100
        score: 10
    """
    return to_yaml({"requestedToCapacityRatio": {
        "shape": [{"utilization": u, "score": s} for u, s in normalize_shape(points)]}})


def round_half_away(x: float) -> int:
    """Go's ``math.Round``: halves round away from zero (Python's ``round`` rounds to even).

    >>> round_half_away(2.5), round(2.5), round_half_away(-2.5)
    (3, 2, -3)
    """
    return int(math.floor(abs(x) + 0.5)) * (1 if x >= 0 else -1)


# -- formatting ------------------------------------------------------------------------------------
_UNITS = ((2**30, "Gi"), (2**20, "Mi"), (2**10, "Ki"))


def _unit_for(resource: str, values: Iterable[int]) -> tuple[int, str]:
    """A divisor that divides every value exactly, so the formula shows small numbers.

    Integer division results do not change when both sides are divided by the
    same exact factor, so the displayed formula computes the same number.
    """
    values = [int(v) for v in values if v]
    if resource == CPU:
        return 1, "m"
    if resource in (MEMORY, EPHEMERAL_STORAGE) or resource.startswith("hugepages-"):
        for div, suffix in _UNITS:
            if all(v % div == 0 for v in values):
                return div, suffix
    return 1, ""


def _q(value: int, unit: tuple[int, str]) -> str:
    div, suffix = unit
    return f"{int(value) // div}{suffix}"


# -- worksheets ------------------------------------------------------------------------------------
@dataclass
class Worksheet:
    """A worked calculation: ``resources`` has one row per (node, resource),
    ``nodes`` one row per node with the node-level formula, the value computed
    by hand from the rows (``by hand``) and, when a plugin was asked, what the
    plugin itself returns (``plugin``)."""

    resources: pd.DataFrame
    nodes: pd.DataFrame
    plugin: str = ""
    strategy: str = ""

    def _repr_html_(self) -> str:  # pragma: no cover - notebook display
        return (f"<p><b>{self.plugin}</b> {self.strategy}</p>" + self.resources.to_html()
                + self.nodes.to_html())


def _framework(scheduler, pod_key: str, profile: str | None):
    pod = scheduler.cluster.pods[pod_key]
    if profile is not None:
        return scheduler.profiles[profile]
    fw = scheduler.framework_for(pod)
    if fw is None:
        raise ValueError(f"no profile for schedulerName {pod.spec.scheduler_name!r} of pod {pod_key}")
    return fw


def _rows(snapshot, nodes: Iterable[str] | None) -> np.ndarray:
    if nodes is None:
        return np.asarray(live_rows(snapshot), np.int64)
    return np.asarray([snapshot.index[n] for n in nodes], np.int64)


def score_worksheet(scheduler, pod_key: str, plugin: str = "NodeResourcesFit", *,
                    nodes: Iterable[str] | None = None, profile: str | None = None) -> Worksheet:
    """The per-resource arithmetic of a resource scoring plugin for ``pod_key`` on ``nodes``.

    ``plugin`` is ``NodeResourcesFit`` (any scoring strategy) or
    ``NodeResourcesBalancedAllocation``.  The numbers are what the plugin
    sees: requests in scheduler units (millicores, bytes), cpu and memory
    counted with the 100m / 200Mi defaults for containers without requests
    for NodeResourcesFit, real requests for BalancedAllocation.  ``by hand``
    redoes the node formula in plain Python from the rows; ``plugin`` is the
    plugin's own ``score_nodes``.  Nodes default to all nodes (call this before
    scheduling the pod; filters are not applied).
    """
    fw = _framework(scheduler, pod_key, profile)
    if plugin not in fw.plugins:
        raise ValueError(f"plugin {plugin!r} is not enabled in profile {fw.profile.scheduler_name!r}")
    pl = fw.plugins[plugin]
    scorer = getattr(pl, "scorer", None)
    if not isinstance(scorer, ra.ResourceAllocationScorer):
        raise ValueError(f"{plugin} is not a resource allocation scorer")
    snapshot = scheduler.cluster.snapshot
    pod_info = scheduler.cluster.pod_infos[pod_key]
    rows = _rows(snapshot, nodes)
    req = scorer.pod_requests(pod_info.pod)
    requested, allocated, allocatable = scorer.matrices(req, snapshot, rows)
    library = np.asarray(pl.score_nodes(CycleState(), pod_info, snapshot, rows), np.int64)
    names = [snapshot.names[int(r)] for r in rows]
    if plugin == "NodeResourcesBalancedAllocation":
        res, nod = _balanced_sheet(scorer, req, names, requested, allocated, allocatable)
        strategy = ""
    else:
        strategy = pl.args.strategy
        shape = [(u, s * CURRENT_SCALE) for u, s in pl.args.shape]
        res, nod = _fit_sheet(strategy, shape, scorer, req, names, requested, allocated, allocatable)
    nod["plugin"] = library.tolist() if len(names) else []
    if strategy == "" and not any(req):
        nod["note"] = "pod requests nothing: PreScore skips the plugin"
    return Worksheet(res, nod, plugin, strategy)


_RES_COLUMNS = ["node", "resource", "weight", "allocatable", "on node", "pod", "requested", "utilization %",
                "score", "counted", "formula"]


def _fit_sheet(strategy, shape, scorer, pod_req, names, requested, allocated, allocatable):
    fn = build_broken_linear_function([FunctionShapePoint(u, s) for u, s in shape]) if shape else None
    records, node_records = [], []
    for j, node in enumerate(names):
        parts = []
        for i, resource in enumerate(scorer.names):
            alloc, used, total = int(allocatable[i, j]), int(allocated[i, j]), int(requested[i, j])
            weight = int(scorer.weights[i])
            unit = _unit_for(resource, (alloc, used, total, pod_req[i]))
            util = None
            if alloc == 0:
                score, counted = 0, False
                formula = "not scored: node has none" if pod_req[i] or resource in (CPU, MEMORY) else \
                    "not scored: pod does not request it"
            elif strategy == LEAST_ALLOCATED:
                score = 0 if total > alloc else (alloc - total) * MAX_NODE_SCORE // alloc
                counted = True
                formula = (f"{_q(total, unit)} > {_q(alloc, unit)}: 0" if total > alloc else
                           f"({_q(alloc, unit)} - {_q(total, unit)}) * 100 // {_q(alloc, unit)} = {score}")
            elif strategy == MOST_ALLOCATED:
                capped = min(total, alloc)
                score = capped * MAX_NODE_SCORE // alloc
                counted = True
                formula = f"{_q(capped, unit)} * 100 // {_q(alloc, unit)} = {score}"
            else:
                util = ra.MAX_UTILIZATION if total > alloc else total * ra.MAX_UTILIZATION // alloc
                score = int(fn(util))
                counted = score > 0
                formula = (f"shape({_q(total, unit)} * 100 // {_q(alloc, unit)} = {util}%) = {score}"
                           + ("" if counted else " (0: left out of the mean)"))
            if util is None and alloc:
                util = min(total, alloc) * ra.MAX_UTILIZATION // alloc
            if counted:
                parts.append((score, weight))
            records.append({"node": node, "resource": resource, "weight": weight, "allocatable": alloc,
                            "on node": used, "pod": int(pod_req[i]), "requested": total,
                            "utilization %": util, "score": score, "counted": counted, "formula": formula})
        num = sum(s * w for s, w in parts)
        den = sum(w for _, w in parts)
        terms = " + ".join(f"{s}×{w}" for s, w in parts)
        weights = " + ".join(str(w) for _, w in parts)
        if not den:
            by_hand, formula = 0, "no resource counted: 0"
        elif strategy == REQUESTED_TO_CAPACITY_RATIO:
            by_hand = round_half_away(num / den)
            formula = f"round(({terms}) / ({weights})) = round({num / den:.4g}) = {by_hand}"
        else:
            by_hand = num // den
            formula = f"({terms}) // ({weights}) = {by_hand}"
        node_records.append({"node": node, "formula": formula, "by hand": by_hand})
    res = pd.DataFrame.from_records(records, columns=_RES_COLUMNS).astype({"utilization %": "Int64"})
    nod = pd.DataFrame.from_records(node_records, columns=["node", "formula", "by hand"]).set_index("node")
    return res, nod


def _balanced_sheet(scorer, pod_req, names, requested, allocated, allocatable):
    records, node_records = [], []
    half = MAX_NODE_SCORE // 2
    for j, node in enumerate(names):
        with_pod, without = [], []
        for i, resource in enumerate(scorer.names):
            alloc, used, total = int(allocatable[i, j]), int(allocated[i, j]), int(requested[i, j])
            unit = _unit_for(resource, (alloc, used, total, pod_req[i]))
            if alloc == 0:
                formula = "not counted: node has none / pod does not request it"
                f_with = f_without = None
            else:
                f_with, f_without = min(total / alloc, 1.0), min(used / alloc, 1.0)
                with_pod.append(f_with)
                without.append(f_without)
                formula = (f"with pod {_q(total, unit)}/{_q(alloc, unit)} = {f_with:.4f}, "
                           f"without {_q(used, unit)}/{_q(alloc, unit)} = {f_without:.4f}")
            records.append({"node": node, "resource": resource, "allocatable": alloc, "on node": used,
                            "pod": int(pod_req[i]), "requested": total, "fraction with pod": f_with,
                            "fraction without pod": f_without, "formula": formula})
        b_with, b_without = _balance(with_pod), _balance(without)
        diff = half + b_with - b_without
        by_hand = half + int(diff / 2)  # Go integer division truncates toward zero
        formula = (f"balance = int((1 - std) * 100): with pod {b_with}, without {b_without}; "
                   f"50 + (50 + {b_with} - {b_without}) / 2 = {by_hand}")
        node_records.append({"node": node, "balance with pod": b_with, "balance without pod": b_without,
                             "formula": formula, "by hand": by_hand})
    res = pd.DataFrame.from_records(records, columns=["node", "resource", "allocatable", "on node", "pod",
                                                      "requested", "fraction with pod", "fraction without pod",
                                                      "formula"])
    nod = pd.DataFrame.from_records(node_records, columns=["node", "balance with pod", "balance without pod",
                                                           "formula", "by hand"]).set_index("node")
    return res, nod


def _balance(fractions: list[float]) -> int:
    """int64((1 - std) * 100): |f1 - f2| / 2 for two resources, population std for more, 0 for fewer."""
    if len(fractions) == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif len(fractions) > 2:
        mean = sum(fractions) / len(fractions)
        std = math.sqrt(sum((f - mean) ** 2 for f in fractions) / len(fractions))
    else:
        std = 0.0
    return int((1 - std) * float(MAX_NODE_SCORE))


def _units(resource: str, q) -> int:
    from kschedlab.api.quantity import Quantity

    return to_units(resource, q if isinstance(q, Quantity) else Quantity(str(q)))


def rtcr_worksheet(pod_request: Mapping[str, Any], nodes: Mapping[str, Mapping[str, Mapping[str, Any]]],
                   weights: Mapping[str, int], shape, *, score_scale: int = CURRENT_SCALE) -> Worksheet:
    """RequestedToCapacityRatio worked by hand, without a cluster (the docs' example).

    ``pod_request`` and each node's ``"available"`` (allocatable) and
    ``"used"`` map resource names to quantities (``"256Mi"``, ``2``).
    ``score_scale`` multiplies the shape's scores: 1 reproduces the
    documented legacy 0-10 arithmetic, 10 (default) is kube-scheduler today.
    The node score is computed twice: ``by hand`` (Python, from the rows) and
    ``library`` (the scorer NodeResourcesFit uses, on the same numbers).

    >>> sheet = rtcr_worksheet({"cpu": 2}, {"n": {"available": {"cpu": 8}, "used": {"cpu": 1}}},
    ...                        {"cpu": 1}, [(0, 0), (100, 10)], score_scale=1)
    >>> print(sheet.resources[["resource", "utilization", "utilization %", "score"]].to_string(index=False))
    resource  utilization  utilization %  score
         cpu         37.5             37      3
    """
    points = normalize_shape(shape)
    scaled = [FunctionShapePoint(u, s * score_scale) for u, s in points]
    fn = build_broken_linear_function(scaled)
    library_scorer = ra.requested_to_capacity_ratio([(p.utilization, p.score) for p in scaled])
    names = list(weights)
    w = np.asarray([int(weights[n]) for n in names], np.int64)
    records, node_records = [], []
    for node, spec in nodes.items():
        avail = {r: _units(r, q) for r, q in (spec.get("available") or {}).items()}
        used = {r: _units(r, q) for r, q in (spec.get("used") or {}).items()}
        req_col = np.zeros((len(names), 1), np.int64)
        alloc_col = np.zeros((len(names), 1), np.int64)
        parts = []
        for i, resource in enumerate(names):
            want = _units(resource, pod_request.get(resource, 0))
            cap, on = avail.get(resource, 0), used.get(resource, 0)
            total = on + want
            req_col[i, 0], alloc_col[i, 0] = total, cap
            unit = _unit_for(resource, (cap, on, want))
            if cap == 0:
                util_exact, util, score = None, None, 0
                formula = "not scored: node has none"
            else:
                util_exact = total * 100 / cap
                util = ra.MAX_UTILIZATION if total > cap else total * ra.MAX_UTILIZATION // cap
                score = int(fn(util))
                formula = (f"({_q(want, unit)} + {_q(on, unit)}) * 100 // {_q(cap, unit)} = {util}; "
                           f"rawScoringFunction({util}) = {score}")
                if score > 0:
                    parts.append((score, int(w[i])))
            records.append({"node": node, "resource": resource, "weight": int(w[i]), "available": cap,
                            "used": on, "pod": want, "utilization": util_exact, "utilization %": util,
                            "score": score, "weighted": score * int(w[i]), "formula": formula})
        num = sum(s * k for s, k in parts)
        den = sum(k for _, k in parts)
        by_hand = round_half_away(num / den) if den else 0
        library = int(library_scorer(req_col, req_col, alloc_col, w)[0])
        terms = " + ".join(f"({s} * {k})" for s, k in parts)
        formula = f"({terms}) / ({' + '.join(str(k) for _, k in parts)}) = {num}/{den} = {num / den:.4g} → {by_hand}" \
            if den else "no resource scored: 0"
        node_records.append({"node": node, "formula": formula, "by hand": by_hand, "library": library})
    res = pd.DataFrame.from_records(records, columns=["node", "resource", "weight", "available", "used", "pod",
                                                      "utilization", "utilization %", "score", "weighted",
                                                      "formula"]).astype({"utilization %": "Int64"})
    nod = pd.DataFrame.from_records(node_records, columns=["node", "formula", "by hand", "library"]).set_index(
        "node")
    return Worksheet(res, nod, "NodeResourcesFit", REQUESTED_TO_CAPACITY_RATIO)


# -- what if: one pod, changed requests or strategy, on a fresh copy --------------------------------
@dataclass
class WhatIf:
    """One re-run: the config used, the pod's key, the NodeResourcesFit worksheet
    (scored nodes only) and the scheduling result."""

    config: dict
    pod: str
    result: Any
    worksheet: Worksheet

    @property
    def summary(self) -> str:
        r = self.result
        return f"{r.pod} → {r.node}" if r.node else f"{r.pod}: {r.message}"


def pod_with_requests(pod_yaml: str, *, cpu: int | None = None, memory: int | None = None):
    """The Pod in ``pod_yaml`` with its first container's cpu (millicores) /
    memory (MiB) requests replaced; 0 removes the request.  Not admitted yet.

    >>> p = pod_with_requests("apiVersion: v1\\nkind: Pod\\nmetadata: {name: p}\\n"
    ...                       "spec: {containers: [{name: c}]}", cpu=1500, memory=512)
    >>> {k: str(v) for k, v in p.spec.containers[0].resources.requests.items()}
    {'cpu': '1500m', 'memory': '512Mi'}
    """
    from kschedlab.api.loader import load_objects

    docs = [d for d in safe_load_all(pod_yaml, "pod_yaml") if d]
    pods = [d for d in docs if isinstance(d, dict) and d.get("kind") == "Pod"]
    if len(pods) != 1:
        raise ValueError(f"pod_yaml must hold exactly one Pod, found {len(pods)}")
    doc = copy.deepcopy(pods[0])
    containers = (doc.setdefault("spec", {}).get("containers") or [])
    if not containers:
        raise ValueError("the Pod has no containers")
    requests = containers[0].setdefault("resources", {}).setdefault("requests", {})
    for name, value, text in ((CPU, cpu, f"{cpu}m"), (MEMORY, memory, f"{memory}Mi")):
        if value is None:
            continue
        if value:
            requests[name] = text
        else:
            requests.pop(name, None)
    return load_objects(doc, source="pod_yaml")[0]


def what_if(cluster: Callable[[], Any] | Any, pod_yaml: str, *, cpu: int | None = None, memory: int | None = None,
            strategy: str = LEAST_ALLOCATED, resources: Mapping[str, int] | None = None, shape=None,
            seed: int = 0) -> WhatIf:
    """Schedule the pod of ``pod_yaml`` on a fresh copy of a cluster with a given scoring strategy.

    ``cluster`` is a zero-argument factory returning a new Cluster, or a
    Cluster (deep-copied, never changed).  ``cpu`` (millicores) and
    ``memory`` (MiB) replace the first container's requests.  Nothing of the
    caller's is mutated; a new Scheduler (``seed``) is built each time.

    >>> from kschedlab import Cluster
    >>> from kschedlab.scenarios import path
    >>> pod = "apiVersion: v1\\nkind: Pod\\nmetadata: {name: probe}\\nspec: {containers: [{name: c}]}"
    >>> w = what_if(lambda: Cluster.from_manifests(path("default")), pod, cpu=500, memory=512,
    ...             strategy="MostAllocated")
    >>> w.summary
    'default/probe → node-a2'
    """
    from kschedlab.apiserver.admission import admit
    from kschedlab.cluster import Cluster
    from kschedlab.scheduler import Scheduler

    fresh = cluster() if callable(cluster) and not isinstance(cluster, Cluster) else copy.deepcopy(cluster)
    pod = admit([pod_with_requests(pod_yaml, cpu=cpu, memory=memory)])[0]
    fresh.add(pod)
    key = f"{pod.metadata.namespace}/{pod.metadata.name}"
    config = fit_config(strategy, resources, shape)
    scheduler = Scheduler(fresh, config, seed=seed)
    sheet = score_worksheet(scheduler, key)
    result = scheduler.schedule_one(key)
    scored = list(result.trace.scores()) if result.trace is not None else []
    sheet.resources = sheet.resources[sheet.resources["node"].isin(scored)].reset_index(drop=True)
    sheet.nodes = sheet.nodes.loc[[n for n in sheet.nodes.index if n in scored]]
    return WhatIf(config, key, result, sheet)
