"""The ``device-taint-eviction`` conformance stage: the device taint eviction controller
(:mod:`kschedlab.dra.devicetainteviction`) over a few steps of a clock.

A case gives ``start`` (RFC 3339), ``objects`` (ResourceSlices, ResourceClaims, bound Pods,
DeviceTaintRules, used as written), ``steps`` (``{"advance": seconds}`` each: the clock moves, then
every work item due is handled) and ``expected.steps``, one per step, with the keys to check:
``evicted`` (every pod deleted so far, ``namespace/name``, sorted) and ``rules`` (``{rule:
EvictionInProgress condition}`` with ``status``, ``reason``, ``message``, ``lastTransitionTime``;
``{}`` = no rule has one).  A deleted pod is gone at once, as with upstream's fake client.

>>> case = {"stage": "device-taint-eviction", "start": "2000-01-01T00:00:00Z", "objects": [
...   {"apiVersion": "resource.k8s.io/v1alpha3", "kind": "DeviceTaintRule", "metadata": {"name": "r", "uid": "1"},
...    "spec": {"deviceSelector": {"driver": "d"},
...             "taint": {"key": "k", "effect": "NoExecute", "timeAdded": "2000-01-01T00:00:00Z"}}}],
...   "steps": [{"advance": 0}], "expected": {"steps": [{"rules": {"r": {"type": "EvictionInProgress", "status": "False", "reason": "NotStarted",
...   "message": "", "lastTransitionTime": "2000-01-01T00:00:00Z"}}}]}}
>>> run_device_taint_case(case)
[]
"""

from __future__ import annotations

from datetime import datetime, timezone

from kschedlab.api.loader import load_objects
from kschedlab.cluster import Cluster
from kschedlab.dra.devicetainteviction import RULE_KINDS, DeviceTaintEvictionController, seconds_of

__all__ = ["run_device_taint_case", "STAGES"]


def _rfc3339(value) -> str:
    return datetime.fromtimestamp(seconds_of(value), timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _conditions(cluster) -> dict:
    out = {}
    for kind in RULE_KINDS:
        for rule in cluster.objects.get(kind, {}).values():
            for c in rule.status.conditions:
                if c.type == "EvictionInProgress":
                    out[rule.metadata.name] = {"type": c.type, "status": c.status, "reason": c.reason, "message": c.message or "",
                                               "lastTransitionTime": _rfc3339(c.last_transition_time)}
    return out


def run_device_taint_case(case: dict) -> list[str]:
    """Run one ``device-taint-eviction`` case; the differences (empty = pass)."""
    cluster = Cluster(load_objects(case.get("objects") or []))
    controller = DeviceTaintEvictionController()
    now = seconds_of(case["start"])
    evicted: list[str] = []

    def delete(key: str) -> None:
        evicted.append(key)
        cluster.remove_pod(key)

    diffs = []
    for i, (step, want) in enumerate(zip(case.get("steps") or [], (case.get("expected") or {}).get("steps") or [])):
        now += float(step.get("advance") or 0)
        controller.step(cluster, now, delete=delete)
        if "evicted" in want and sorted(evicted) != sorted(want["evicted"]):
            diffs.append(f"step {i}: evicted {sorted(evicted)}, want {sorted(want['evicted'])}")
        if "rules" in want:
            got = _conditions(cluster)
            for name in sorted(set(got) | set(want["rules"])):
                if got.get(name) != want["rules"].get(name):
                    diffs.append(f"step {i}: rule {name}: condition {got.get(name)}, want {want['rules'].get(name)}")
    return diffs


def stage_device_taint_eviction(case: dict, diffs: list[str]) -> None:
    """The ``device-taint-eviction`` stage for the conformance runner."""
    diffs.extend(run_device_taint_case(case))


STAGES = {"device-taint-eviction": stage_device_taint_eviction}
