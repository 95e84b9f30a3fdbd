"""Conformance stages for the placement extension points of the PodGroup cycle
(``shared/CASES.md``, "Pod group stages"), called by :mod:`kschedlab.conformance.runner`.

The plugin under test is ``plugin`` (built from ``args`` with the case's ``featureGates``);
the group being placed is ``target``, a group key ``podgroup/<ns>/<name>`` or
``compositepodgroup/<ns>/<name>``, read from ``podGroups`` (PodGroups and CompositePodGroups
side by side) with the subtree the cluster holds (children only with the CompositePodGroup
gate, as the scheduler builds it).

``placement-feasible``
    PlacementFeasible after each step ``{scheduled, remaining}`` of ``steps`` (pods, or child
    groups of a CompositePodGroup, placed so far and still to try), in one cycle state;
    ``expected.other.codes``, one per step.
``placement-generate``
    PlacementGenerate of ``target`` inside ``parentPlacement {name, nodes}`` over ``nodes``;
    ``existingPods`` are the placed members of the target's subtree (a ``nodeName`` outside
    ``nodes`` is allowed, as upstream's snapshot allows it); ``expected.other``:
    ``{code, placements: {name: [node]}}`` (placements compared on success only, node order
    as the parent placement's).
``placement-score``
    PlacementScore of ``target`` for ``proposedAssignments [{pod, node}]`` with
    ``existingPods`` placed (bound or assumed alike); ``expected.other``: ``{score, code}``.
``placement-normalize``
    NormalizePlacementScore of ``placementScores`` (a list of ints) for ``target``;
    ``expected.other``: ``{normalizedScores, code}`` or ``{code, message}``.

>>> case = {"id": "x", "stage": "placement-normalize", "plugin": "PodGroupPodsCount",
...         "target": "podgroup/default/pg1", "placementScores": [10, 50, 110],
...         "expected": {"other": {"normalizedScores": [9, 45, 100]}}}
>>> diffs = []; STAGES["placement-normalize"](case, diffs); diffs
[]
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from kschedlab.conformance.compare import Mismatch, check, check_status, code_matches
from kschedlab.conformance.plugins import plugin_for
from kschedlab.conformance.podgroup import group_objects
from kschedlab.features import FeatureGates
from kschedlab.framework.interface import CycleState
from kschedlab.framework.status import Status

__all__ = ["STAGES"]

#: extension point -> the plugin method implementing it
_METHODS = {"PlacementFeasible": "placement_feasible", "PlacementGenerate": "generate_placements",
            "PlacementScore": "score_placement", "NormalizePlacementScore": "normalize_placement_score"}


def _cluster(case: dict):
    from kschedlab.api.core import Node, Pod
    from kschedlab.cluster import Cluster

    cluster = Cluster()
    for node in case.get("nodes") or []:
        cluster.add(Node.model_validate(node))
    for group in group_objects(case):
        cluster.add(group)
    for pod in case.get("existingPods") or []:
        cluster.add(Pod.model_validate(pod))
    return cluster


def _gates(case: dict) -> FeatureGates:
    return FeatureGates(case.get("featureGates") or {}, emulate_older=True)


def _target(case: dict, cluster):
    """The PodGroupInfo of ``target`` (its object None when ``podGroups`` lacks it)."""
    from kschedlab.framework.podgroups import PodGroupInfo, parse_key

    key = case.get("target")
    if not isinstance(key, str) or key.count("/") != 2 or parse_key(key)[0] not in ("podgroup", "compositepodgroup"):
        raise Mismatch(f"target: {key!r} is not a group key (podgroup/<ns>/<name> or compositepodgroup/<ns>/<name>)")
    return PodGroupInfo.build(cluster, key, composite=_gates(case).enabled("CompositePodGroup"))


def _method(plugin, point: str) -> Callable:
    fn = getattr(plugin, _METHODS[point], None)
    if fn is None:
        raise Mismatch(f"plugin {plugin.name} has no {point} extension point")
    return fn


def _other(case: dict) -> dict:
    return (case.get("expected") or {}).get("other") or {}


def stage_placement_feasible(case: dict, diffs: list[str]) -> None:
    """``placement-feasible``: the code after each step."""
    cluster = _cluster(case)
    plugin = plugin_for(case, cluster)
    feasible = _method(plugin, "PlacementFeasible")
    info = _target(case, cluster)
    state = CycleState()
    got = []
    for step in case.get("steps") or []:
        status = feasible(state, info, int(step.get("scheduled", 0)), int(step.get("remaining", 0))) or Status()
        got.append(status.code.name)
    want = _other(case)["codes"]
    if len(got) != len(want):
        diffs.append(f"codes: {len(got)} steps given, {len(want)} codes expected")
    for i, (code, expected) in enumerate(zip(got, want)):
        if not code_matches(code, expected):
            diffs.append(f"codes[{i}] (step {case['steps'][i]}): got {code}, want {expected}")


def stage_placement_generate(case: dict, diffs: list[str]) -> None:
    """``placement-generate``: the candidate placements and their nodes."""
    from kschedlab.framework.placement import Placement

    cluster = _cluster(case)
    plugin = plugin_for(case, cluster)
    generate = _method(plugin, "PlacementGenerate")
    info = _target(case, cluster)
    parent_spec = case.get("parentPlacement")
    snapshot = cluster.snapshot
    if parent_spec is None:
        parent = Placement.all_nodes(snapshot)
    else:
        missing = [n for n in parent_spec.get("nodes") or [] if n not in snapshot.index]
        if missing:
            raise Mismatch(f"parentPlacement.nodes: {missing} are not among the case's nodes")
        parent = Placement(parent_spec.get("name", ""),
                           np.asarray([snapshot.index[n] for n in parent_spec.get("nodes") or []], np.int64))
    placements, status = generate(CycleState(), info, parent)
    status = status or Status()
    want = _other(case)
    check_status(diffs, "status", status, {"code": want.get("code")})
    if status.is_success():
        got = {p.name: p.node_names(snapshot) for p in placements}
        check(diffs, "placements", got, want.get("placements"))


def stage_placement_score(case: dict, diffs: list[str]) -> None:
    """``placement-score``: the raw score of the proposed assignments."""
    from kschedlab.api.core import Pod
    from kschedlab.framework.placement import Placement, PodGroupAssignments
    from kschedlab.framework.types import PodInfo

    cluster = _cluster(case)
    plugin = plugin_for(case, cluster)
    score = _method(plugin, "PlacementScore")
    info = _target(case, cluster)
    proposed = []
    for i, item in enumerate(case.get("proposedAssignments") or []):
        if "pod" not in item or "node" not in item:
            raise Mismatch(f"proposedAssignments[{i}]: needs 'pod' and 'node'")
        proposed.append((PodInfo.of(Pod.model_validate(item["pod"])), item["node"]))
    value, status = score(CycleState(), info, PodGroupAssignments(Placement.all_nodes(cluster.snapshot), proposed))
    want = _other(case)
    check_status(diffs, "status", status or Status(), {"code": want.get("code")})
    check(diffs, "score", int(value), want.get("score"))


def stage_placement_normalize(case: dict, diffs: list[str]) -> None:
    """``placement-normalize``: the normalized scores, or the error status and its message."""
    cluster = _cluster(case)
    plugin = plugin_for(case, cluster)
    normalize = _method(plugin, "NormalizePlacementScore")
    info = _target(case, cluster)
    scores = [int(s) for s in case.get("placementScores") or []]
    status = normalize(CycleState(), info, scores) or Status()
    want = _other(case)
    check_status(diffs, "status", status, {"code": want.get("code")})
    if "message" in want:
        check(diffs, "message", status.message(), want["message"])
    if status.is_success():
        check(diffs, "normalizedScores", scores, want.get("normalizedScores"))


STAGES: dict[str, Callable] = {
    "placement-feasible": stage_placement_feasible,
    "placement-generate": stage_placement_generate,
    "placement-score": stage_placement_score,
    "placement-normalize": stage_placement_normalize,
}
