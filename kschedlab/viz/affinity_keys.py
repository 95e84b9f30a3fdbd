"""What-ifs for inter-pod affinity terms that use ``matchLabelKeys`` / ``mismatchLabelKeys``: give
the incoming pod another label value, or drop the keys, and see the selectors the API server merges
at creation and the nodes that pass Filter.

>>> from pathlib import Path
>>> from kschedlab.api.loader import load
>>> raw = load(Path(__file__).resolve().parents[2] / "datasets" / "inter-pod-affinity"
...            / "tenant-match-mismatch-label-keys.yaml")
>>> out = label_keys_outcome(raw, "default/tenant-a-web")
>>> out.feasible, out.node
(['node-1a', 'node-1b'], 'node-1b')
>>> label_keys_outcome(raw, "default/tenant-a-web", labels={"tenant": "tenant-z"}).feasible
['node-3a', 'node-3b']
>>> label_keys_outcome(raw, "default/tenant-a-web", match_label_keys=False, mismatch_label_keys=False).feasible
['node-3a', 'node-3b']
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Mapping

__all__ = ["LabelKeysOutcome", "feasible_nodes", "label_keys_outcome", "merged_selectors"]


def feasible_nodes(result) -> list[str]:
    """The nodes that passed every Filter plugin in a ScheduleResult's cycle (sorted)."""
    statuses = result.trace.filter_statuses() if result.trace is not None else {}
    return sorted(n for n, status in statuses.items() if status.is_success())


def merged_selectors(pod) -> list[str]:
    """Each required (anti-)affinity term of an admitted pod as one line: kind, topologyKey and the
    label selector's requirements (with what admission merged from matchLabelKeys / mismatchLabelKeys)."""
    lines = []
    aff = pod.spec.affinity
    for kind, block in (("podAffinity", aff.pod_affinity if aff else None),
                        ("podAntiAffinity", aff.pod_anti_affinity if aff else None)):
        for term in (block.required_during_scheduling_ignored_during_execution if block else []):
            sel = term.label_selector
            reqs = [f"{k}={v}" for k, v in (sel.match_labels or {}).items()] if sel else []
            reqs += [f"{r.key} {r.operator} [{', '.join(r.values)}]".replace(" []", "")
                     for r in (sel.match_expressions if sel else [])]
            lines.append(f"{kind} ({term.topology_key}): {' AND '.join(reqs) or 'every pod'}")
    return lines


@dataclass
class LabelKeysOutcome:
    """The incoming pod as admitted, and one scheduling cycle for it."""

    pod: str
    labels: dict[str, str]
    selectors: list[str] = field(default_factory=list)
    feasible: list[str] = field(default_factory=list)
    node: str | None = None
    message: str = ""


def label_keys_outcome(raw_objects: Iterable, pod: str, *, labels: Mapping[str, str] | None = None,
                       match_label_keys: bool = True, mismatch_label_keys: bool = True,
                       seed: int = 0) -> LabelKeysOutcome:
    """Admit ``raw_objects`` (as loaded, before admission) with ``pod`` ("namespace/name") relabelled
    by ``labels`` and, when asked, its terms' ``matchLabelKeys`` / ``mismatchLabelKeys`` removed; then
    schedule that pod alone among the running pods. The objects passed in are not changed."""
    from kschedlab.apiserver.admission import admit
    from kschedlab.cluster import Cluster
    from kschedlab.scheduler import Scheduler

    objects = [o.clone() for o in raw_objects]
    target = None
    for o in objects:
        if type(o).__name__ == "Pod" and f"{o.metadata.namespace or 'default'}/{o.metadata.name}" == pod:
            target = o
    if target is None:
        raise KeyError(f"no pod {pod}")
    if labels:
        target.metadata.labels = {**(target.metadata.labels or {}), **labels}
    aff = target.spec.affinity
    for block in ((aff.pod_affinity, aff.pod_anti_affinity) if aff else ()):
        for term in (block.required_during_scheduling_ignored_during_execution if block else []):
            if not match_label_keys:
                term.match_label_keys = []
            if not mismatch_label_keys:
                term.mismatch_label_keys = []
    admitted = admit([o for o in objects if type(o).__name__ != "Pod" or o is target or o.spec.node_name])
    cluster = Cluster(admitted)
    admitted_pod = cluster.pods[pod]
    result = Scheduler(cluster, seed=seed).schedule_one(pod)
    return LabelKeysOutcome(pod, dict(admitted_pod.metadata.labels), merged_selectors(admitted_pod),
                            feasible_nodes(result), result.node, result.message)
