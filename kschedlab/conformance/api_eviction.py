"""The ``api-eviction`` conformance stage: one ``POST .../pods/<name>/eviction`` answered by
:func:`kschedlab.eviction.api_initiated.evict` (upstream ``pkg/registry/core/pod/storage/eviction.go``).

A case gives ``existingPods`` (the pods stored, phases and conditions as the API holds them: taken
literally, a pod without a ``Ready`` condition is not assumed running), ``pdbs`` (policy/v1
PodDisruptionBudgets with their status), ``eviction`` (the policy/v1 Eviction: ``metadata.name`` /
``namespace``, ``deleteOptions.gracePeriodSeconds`` / ``dryRun``), optional ``urlName`` (the pod
name in the request URL; default the Eviction's name), ``requestDryRun`` (the request's
``CreateOptions.dryRun``; either dry run makes the call a dry run).  The clock stands at 0.

``expected.other`` keys, each checked when present: ``error`` (the error as upstream's tests print
it, ``errToString``: message, reason, causes; ``""`` = success), ``deleteCount`` (DELETE calls the
handler made: kschedlab's makes one per allowed eviction, none for a dry run), ``podDeleted`` (the
pod is gone), ``podTerminating`` (it is still there with a ``deletionTimestamp``), ``pdbs``
(``{name: {disruptionsAllowed, conditionReason}}``: the budget's status afterwards, the reason of its
``DisruptionAllowed`` condition).

>>> pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
...        "spec": {"nodeName": "n"}, "status": {"phase": "Running"}}
>>> run_api_eviction_case({"existingPods": [pod], "eviction": {"metadata": {"name": "p", "namespace": "default"},
...     "deleteOptions": {"gracePeriodSeconds": 0}}, "expected": {"other": {"error": "", "podDeleted": True}}})
[]
"""

from __future__ import annotations

from typing import Any, cast

from kschedlab.api.core import Pod
from kschedlab.api.loader import load_objects
from kschedlab.api.policy import PodDisruptionBudget
from kschedlab.cluster import Cluster
from kschedlab.eviction.api_initiated import evict
from kschedlab.eviction.disruption import DISRUPTION_ALLOWED_CONDITION, find_condition

__all__ = ["run_api_eviction_case", "STAGES"]


def _pdb_view(pdb) -> dict:
    cond = find_condition(pdb.status.conditions, DISRUPTION_ALLOWED_CONDITION)
    reason = None if cond is None else cond.reason
    return {"disruptionsAllowed": pdb.status.disruptions_allowed or 0, "conditionReason": reason or ""}


def run_api_eviction_case(case: dict) -> list[str]:
    """Run one ``api-eviction`` case; the differences (empty = pass)."""
    cluster = Cluster(load_objects([*(case.get("existingPods") or []), *(case.get("pdbs") or [])]))
    eviction = case["eviction"]
    meta = eviction.get("metadata") or {}
    options = eviction.get("deleteOptions") or {}
    url_name = case.get("urlName", meta.get("name"))
    key = f"{meta.get('namespace') or ''}/{url_name}"
    response = evict(cluster, key, now=0, dry_run=bool(options.get("dryRun") or case.get("requestDryRun")),
                     grace_period_seconds=options.get("gracePeriodSeconds"), assume_running=False,
                     eviction_name=meta.get("name"))
    pod = cast("Pod | None", cluster.pods.get(key))
    got: dict[str, Any] = {
        "error": response.error(),
        "deleteCount": int(response.allowed and not response.dry_run),
        "podDeleted": pod is None,
        "podTerminating": pod is not None and pod.metadata.deletion_timestamp is not None,
        "pdbs": {p.metadata.name: _pdb_view(p)
                 for p in cast("list[PodDisruptionBudget]", cluster.of_kind("PodDisruptionBudget"))}}
    want = (case.get("expected") or {}).get("other") or {}
    diffs = []
    for name, value in want.items():
        if name not in got:
            diffs.append(f"expected key {name!r} is not known to the api-eviction stage")
        elif name == "pdbs":
            for pdb, status in value.items():
                if got["pdbs"].get(pdb) != status:
                    diffs.append(f"pdb {pdb}: {got['pdbs'].get(pdb)}, want {status}")
        elif got[name] != value:
            diffs.append(f"{name}: {got[name]!r}, want {value!r}")
    return diffs


def stage_api_eviction(case: dict, diffs: list[str]) -> None:
    """The ``api-eviction`` stage for the conformance runner."""
    diffs.extend(run_api_eviction_case(case))


STAGES = {"api-eviction": stage_api_eviction}
