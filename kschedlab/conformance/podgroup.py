"""Conformance stages for pod groups (``shared/CASES.md``, "Pod group stages"), called by
:mod:`kschedlab.conformance.runner`:

``gang-preenqueue``
    GangScheduling's PreEnqueue for ``pod`` with ``podGroups`` (and ``compositePodGroups``),
    ``pendingPods`` (other known members) and the pod itself in the cluster;
    ``expected.other.status``.
``gang-queueing-hint``
    the GangScheduling hint for ``event {resource: Pod|PodGroup|CompositePodGroup,
    action: Add|Update, oldObj, newObj}``; the event's new (composite) pod group is in the
    cluster, as in the informer cache; ``expected.other.hint``.
``podgroup-validate``
    the checks before a PodGroup cycle for ``podGroups[0]``, its ``pendingPods`` (this
    cycle's pods, in order), ``existingPods`` (its scheduled pods) and ``profiles``
    (scheduler names, ``[""]`` when absent); ``expected.other.error`` (bool).
``podgroup-condition-update``
    :func:`~kschedlab.scheduler.podgroup.conditions.update_pod_group_condition` of ``condition`` on
    ``podGroups[0]``; ``expected.other.podGroupCondition`` (compared without
    ``lastTransitionTime``) and ``lastTransitionTimeUnchanged``.

Extra input key: ``compositePodGroups`` (v1alpha3 CompositePodGroups).
"""

from __future__ import annotations

from typing import Callable

from kschedlab.conformance.compare import check, check_status, pod_group_model
from kschedlab.features import FeatureGates

__all__ = ["STAGES", "group_objects"]


class StageError(Exception):
    """The case cannot be run as written (reported as a failure)."""


def _gates(case: dict) -> FeatureGates:
    return FeatureGates(case.get("featureGates") or {}, emulate_older=True)


def _cluster(case: dict, extra_pods: list[dict] = ()):
    """The case's nodes, pod groups (``podGroups`` by kind, and ``compositePodGroups``) and pods."""
    from kschedlab.api.core import Node, Pod
    from kschedlab.cluster import Cluster

    cluster = Cluster()
    for node in case.get("nodes") or []:
        cluster.add(Node.model_validate(node))
    for group in group_objects(case):
        cluster.add(group)
    for pod in [*(case.get("existingPods") or []), *(case.get("pendingPods") or []), *extra_pods]:
        cluster.add(Pod.model_validate(pod))
    return cluster


def group_objects(case: dict) -> list:
    """The objects of ``podGroups`` (PodGroups and CompositePodGroups side by side, each read
    with the model of its kind) and of ``compositePodGroups``."""
    out = []
    for key in ("podGroups", "compositePodGroups"):
        for i, data in enumerate(case.get(key) or []):
            out.append(pod_group_model(data, f"{key}[{i}]").model_validate(data))
    return out


def _plugin(case: dict, cluster):
    from kschedlab.plugins.gang_scheduling import GangScheduling

    return GangScheduling.for_cluster(cluster, _gates(case))


def stage_gang_preenqueue(case: dict, diffs: list[str]) -> None:
    from kschedlab.framework.types import pod_key

    cluster = _cluster(case, [case["pod"]])
    plugin = _plugin(case, cluster)
    pod = cluster.pods[pod_key(_pod_model(case["pod"]))]
    status = plugin.pre_enqueue(cluster.pod_infos[pod_key(pod)])
    check_status(diffs, "status", status, case["expected"]["other"]["status"])


def _pod_model(data: dict):
    from kschedlab.api.core import Pod

    return Pod.model_validate(data)


_MODELS = {"Pod": ("kschedlab.api.core", "Pod"), "PodGroup": ("kschedlab.api.podgroup", "PodGroup"),
           "CompositePodGroup": ("kschedlab.api.podgroup", "CompositePodGroup")}


def _model(resource: str, data: dict | None):
    import importlib

    if data is None:
        return None
    module, kind = _MODELS[resource]
    return getattr(importlib.import_module(module), kind).model_validate(data)


def stage_gang_queueing_hint(case: dict, diffs: list[str]) -> None:
    from kschedlab.framework.types import PodInfo

    event = case["event"]
    resource, action = event["resource"], event["action"]
    if resource not in _MODELS:
        raise StageError(f"unknown event resource {resource!r}")
    old, new = _model(resource, event.get("oldObj")), _model(resource, event.get("newObj"))
    cluster = _cluster(case)
    if resource != "Pod" and new is not None:
        cluster.add(new)  # the informer cache already holds the new object
    plugin = _plugin(case, cluster)
    hints: dict[tuple[str, str], Callable] = {
        ("Pod", "Add"): plugin.after_pod_added,
        ("PodGroup", "Add"): plugin.after_pod_group_added,
        ("PodGroup", "Update"): plugin.after_pod_group_updated,
        ("CompositePodGroup", "Add"): plugin.after_composite_pod_group_added,
    }
    fn = hints.get((resource, action))
    if fn is None:
        raise StageError(f"GangScheduling has no hint for {resource}/{action}")
    hint = fn(PodInfo.of(_pod_model(case["pod"])), old, new)
    check(diffs, "hint", hint.name, case["expected"]["other"]["hint"])


def stage_podgroup_validate(case: dict, diffs: list[str]) -> None:
    from kschedlab.api.podgroup import PodGroup
    from kschedlab.scheduler.podgroup.cycle_validation import validate_pod_group

    pg = group_objects(case)[0]
    if not isinstance(pg, PodGroup):
        raise StageError("podgroup-validate: podGroups[0] must be a PodGroup")
    pending = [_pod_model(p) for p in case.get("pendingPods") or []]
    scheduled = [p for p in (_pod_model(q) for q in case.get("existingPods") or [])
                 if p.spec.scheduling_group is not None and p.spec.scheduling_group.pod_group_name == pg.name
                 and (p.metadata.namespace or "") == (pg.metadata.namespace or "")]
    profiles = case.get("profiles")
    err = validate_pod_group(pg, pending, scheduled, [""] if profiles is None else profiles,
                             pod_group_preemption_policy=_gates(case).enabled("PodGroupPreemptionPolicy"))
    want = case["expected"]["other"]["error"]
    if (err is not None) != want:
        diffs.append(f"error: got {err!r}, want an error: {want}")


def _condition_dict(cond) -> dict | None:
    if cond is None:
        return None
    data = cond.model_dump(by_alias=True, exclude_none=True, mode="json")
    data.pop("lastTransitionTime", None)
    return data


def stage_podgroup_condition_update(case: dict, diffs: list[str]) -> None:
    from datetime import datetime, timezone

    from kschedlab.api.podgroup import Condition, PodGroup
    from kschedlab.scheduler.podgroup.conditions import find_status_condition, update_pod_group_condition

    pg = PodGroup.model_validate(case["podGroups"][0])
    cond = Condition.model_validate(case["condition"])
    before = find_status_condition(pg.status.conditions, cond.type or "")
    before_ltt = before.last_transition_time if before is not None else None
    update_pod_group_condition(pg, cond, now=datetime.now(timezone.utc))
    other = case["expected"]["other"]
    want = other["podGroupCondition"]
    got = find_status_condition(pg.status.conditions, want.get("type") or cond.type or "")
    check(diffs, "podGroupCondition", _condition_dict(got), {k: v for k, v in want.items()
                                                              if k != "lastTransitionTime"})
    if other.get("lastTransitionTimeUnchanged"):
        got_ltt = got.last_transition_time if got is not None else None
        if got_ltt is None or before_ltt is None or got_ltt.replace(microsecond=0) != before_ltt.replace(microsecond=0):
            diffs.append(f"lastTransitionTime: got {got_ltt}, want unchanged {before_ltt}")


STAGES: dict[str, Callable] = {
    "gang-preenqueue": stage_gang_preenqueue,
    "gang-queueing-hint": stage_gang_queueing_hint,
    "podgroup-validate": stage_podgroup_validate,
    "podgroup-condition-update": stage_podgroup_condition_update,
}
