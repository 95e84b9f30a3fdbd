"""Conformance stages of the kubelet's garbage collection, the node-level reclaim that
comes before eviction: ``kubelet-image-gc`` and ``kubelet-container-gc`` (an extension of
``CASES.md``; registered with the eviction stages of :mod:`kschedlab.conformance.kubelet`).

Times are seconds; ``null`` is Go's zero time (before every other time). Upstream's tests
use the wall clock; a case writes the same instants as numbers in the same order.

``kubelet-image-gc`` -- ``policy {highThresholdPercent, lowThresholdPercent, minAge,
maxAge}`` (ages as Go durations or seconds; unset: 0) and ``steps``, run in order on one
:class:`~kschedlab.kubelet.images.ImageGCManager`, each with the runtime's ``images``
(``[{id, size, pinned}]``, kept from the step before when absent) and the ids ``inUse``
by containers:

=====================  =========================================================  ====================
op                     input                                                      checked (``expected.other.steps[i]``)
=====================  =========================================================  ====================
detectImages           ``time`` (now), ``detectTime`` (default ``time``)          ``records {id: {firstDetected, lastUsed}}``, ``recordCount``
freeSpace              ``bytesToFree``, ``time``                                  ``freed``, ``imagesLeft``
deleteUnusedImages     ``time``                                                   ``freed``, ``imagesLeft``
garbageCollect         ``capacity``, ``available``, ``time``                      ``error`` (bool), ``freed``, ``imagesLeft``
=====================  =========================================================  ====================

``kubelet-container-gc`` -- ``containers [{pod, name, attempt, created, state
(exited|running), podDeleted, podTerminated}]``, ``policy {minAge, maxPerPodContainer,
maxContainers}``, ``now``, ``evictNonDeletedPods`` -> ``expected.other.remain``: the indexes
of the containers left (as a set).

>>> run_case({"id": "x", "stage": "kubelet-container-gc", "now": 7200, "policy": {"minAge": "1h",
...           "maxPerPodContainer": 1, "maxContainers": -1},
...           "containers": [{"pod": "p", "name": "c", "created": 2}, {"pod": "p", "name": "c", "created": 1}],
...           "expected": {"other": {"remain": [0]}}})
[]
"""

from __future__ import annotations

from typing import Any, Callable

from kschedlab.conformance.compare import run_stage
from kschedlab.kubelet.container_gc import ContainerGCPolicy, DeadContainer, evictable_dead_containers
from kschedlab.kubelet.gotypes import SECOND, parse_duration
from kschedlab.kubelet.images import Image, ImageGCManager, ImageGCPolicy

__all__ = ["STAGES", "run_case"]


def _seconds(v: Any) -> float:
    if v is None:
        return 0.0
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return float(v)
    return parse_duration(str(v)) / SECOND


def _stage_image_gc(case: dict, diffs: list[str]) -> None:
    pol = case.get("policy") or {}
    gc = ImageGCManager(ImageGCPolicy(int(pol.get("highThresholdPercent", 0)), int(pol.get("lowThresholdPercent", 0)),
                                      _seconds(pol.get("minAge")), _seconds(pol.get("maxAge"))))
    want = (case["expected"].get("other") or {}).get("steps") or []
    images: list[Image] = []
    for i, step in enumerate(case.get("steps") or []):
        if "images" in step:
            images = [Image(im["id"], int(im.get("size", 0)), bool(im.get("pinned"))) for im in step["images"]]
        in_use = set(step.get("inUse") or [])
        now = step.get("time")
        op = step.get("op")
        got: dict[str, Any] = {}
        if op == "detectImages":
            gc.detect_images(images, in_use, now, step.get("detectTime", now))
            got["records"] = {r.id: {"firstDetected": r.first_detected, "lastUsed": r.last_used}
                              for r in gc.records.values()}
            got["recordCount"] = len(gc.records)
        elif op in ("freeSpace", "deleteUnusedImages", "garbageCollect"):
            if op == "freeSpace":
                res = gc.free_space(images, in_use, int(step["bytesToFree"]), now)
            elif op == "deleteUnusedImages":
                res = gc.delete_unused_images(images, in_use, now)
            else:
                res = gc.garbage_collect(images, in_use, now, int(step["capacity"]), int(step["available"]))
            removed = set(res.removed)
            images = [im for im in images if im.id not in removed]  # the fake runtime forgets them
            got.update(freed=res.freed, imagesLeft=len(images), error=res.error is not None,
                       errorMessage=res.error)
        else:
            diffs.append(f"step {i}: unknown op {op!r}")
            continue
        exp = want[i] if i < len(want) else {}
        for key, value in exp.items():
            if key == "records":
                for rid, fields in value.items():
                    rec = got["records"].get(rid)
                    if rec is None:
                        diffs.append(f"step {i}: no record of {rid}")
                        continue
                    for f, v in fields.items():
                        if rec.get(f) != v:
                            diffs.append(f"step {i}: {rid}.{f}: got {rec.get(f)!r}, want {v!r}")
            elif got.get(key) != value:
                diffs.append(f"step {i}: {key}: got {got.get(key)!r}, want {value!r}")


def _stage_container_gc(case: dict, diffs: list[str]) -> None:
    pol = case.get("policy") or {}
    policy = ContainerGCPolicy(_seconds(pol.get("minAge")), int(pol.get("maxPerPodContainer", 1)),
                               int(pol.get("maxContainers", -1)))
    dead, index = [], {}
    for i, c in enumerate(case.get("containers") or []):
        if c.get("state", "exited") == "running":
            continue
        d = DeadContainer(c["pod"], c["name"], float(c.get("created", 0)), pod_removable=bool(c.get("podDeleted")),
                          pod_terminated=bool(c.get("podTerminated")), attempt=int(c.get("attempt", 0)))
        dead.append(d)
        index[id(d)] = i
    gone = {index[id(d)] for d in evictable_dead_containers(dead, float(case.get("now", 0)), policy,
                                                           evict_non_deleted_pods=bool(case.get("evictNonDeletedPods")))}
    remain = sorted(set(range(len(case.get("containers") or []))) - gone)
    want = sorted((case["expected"].get("other") or {}).get("remain") or [])
    if remain != want:
        diffs.append(f"remain: got {remain}, want {want}")


STAGES: dict[str, Callable[[dict, list[str]], None]] = {
    "kubelet-image-gc": _stage_image_gc,
    "kubelet-container-gc": _stage_container_gc,
}


def run_case(case: dict[str, Any]) -> list[str]:
    """Run one garbage-collection case; the differences from ``expected`` (empty = pass)."""
    return run_stage(STAGES, case, "a kubelet GC")
