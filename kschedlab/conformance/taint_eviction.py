"""The ``taint-eviction`` conformance stage: the NoExecute taint manager
(:class:`kschedlab.eviction.taint_manager.NoExecuteTaintManager`, upstream
``pkg/controller/tainteviction``) fed the controller's events on a virtual clock.

A case gives

* ``existingPods``: the pods the API holds (upstream's fake clientset): the pods the manager
  lists for a node, and the only ones a fired deletion finds (a pod missing there is neither
  patched nor deleted, as when the controller's ``Get`` fails); a deleted pod is gone at once;
* ``taintedNodes``: ``{node: [taint]}``, the manager's map of NoExecute taints before the steps
  (upstream sets ``controller.taintedNodes`` directly);
* ``steps``: one event each, the clock starting at 0 s: ``{"op": "podUpdated", "oldPod", "newPod"}``
  (``PodUpdated``; a null ``newPod`` is a deletion), ``{"op": "nodeUpdated", "oldNode", "newNode"}``
  (``NodeUpdated``; a null ``newNode`` is a deletion) or ``{"op": "handleNodeUpdate", "node"}``
  (the node as the node lister now returns it); ``op`` may be left out.  Deletions due at once
  run, then the clock moves ``advance`` seconds (default 0), running each deletion at its time;
* ``expected.steps[i]``, the keys to check after step ``i``: ``deleted`` / ``patched`` (pod names
  deleted / given the ``DisruptionTarget`` condition since the last check of either, as a set;
  checking clears them, as upstream's ``ClearActions``), ``queued`` (``namespace/name`` of every
  pod with a pending deletion, upstream's ``GetWorkerUnsafe``), ``taintedNodes`` (node names).

A ``helper`` key runs one function instead: ``getMinTolerationTime`` (``other.tolerations`` ->
``expected.other.minTolerationTime`` in nanoseconds, Go's ``time.Duration``: ``-1`` = tolerated
forever), ``getNoExecuteTaints`` (``other.taints`` -> ``expected.other.taintKeys``, in order),
``emitPodDeletionEvent`` / ``emitCancelPodDeletionEvent`` (``other.pod {namespace, name}`` ->
``expected.other.events``: the recorded Events' ``namespace``, ``involvedObject``, ``reason``,
``type``, ``count``, ``message``), ``TimedWorkerQueue`` (``other.ops``: ``{op: addWork, key, createdAt,
fireAt}``, ``{op: cancelWork, key}``, ``{op: step, seconds}`` on a clock from 0 s ->
``expected.other.executed``: how many work items ran, started ones included).

>>> case = {"stage": "taint-eviction", "existingPods": [{"apiVersion": "v1", "kind": "Pod",
...     "metadata": {"name": "p", "namespace": "default"}, "spec": {"nodeName": "n1"}}],
...   "steps": [{"op": "nodeUpdated", "oldNode": None, "newNode": {"metadata": {"name": "n1"},
...     "spec": {"taints": [{"key": "k", "effect": "NoExecute"}]}}}],
...   "expected": {"steps": [{"deleted": ["p"], "patched": ["p"], "taintedNodes": ["n1"]}]}}
>>> run_taint_eviction_case(case)
[]
"""

from __future__ import annotations

from typing import cast

from kschedlab.api.core import Node, Pod, PodCondition, Taint, Toleration
from kschedlab.api.loader import load_objects
from kschedlab.cluster import Cluster
from kschedlab.eviction.taint_manager import (
    DISRUPTION_TARGET,
    NoExecuteTaintManager,
    delete_pod_by_taint_manager,
    min_toleration_seconds,
    no_execute_taints,
    pod_deletion_event,
)
from kschedlab.eviction.timed_workers import ScheduledEviction, TimedWorkerQueue

__all__ = ["run_taint_eviction_case", "STAGES"]

NANOSECONDS = 1_000_000_000


def _pod(obj) -> Pod | None:
    return None if obj is None else Pod.model_validate(obj)


def _node(obj) -> Node | None:
    return None if obj is None else Node.model_validate(obj)


def _key(pod: Pod) -> str:
    return f"{pod.metadata.namespace or ''}/{pod.metadata.name}"


def _disruption_target(pod: Pod) -> PodCondition | None:
    cond = next((c for c in pod.status.conditions if c.type == DISRUPTION_TARGET), None)
    return None if cond is None else cond.model_copy()


class _Run:
    """One case's manager, API objects, clock and the actions seen since the last check."""

    def __init__(self, case: dict):
        self.cluster = Cluster(load_objects(case.get("existingPods") or []))
        self.manager = NoExecuteTaintManager(self.cluster)
        self.now = 0.0
        self.deleted: list[str] = []
        self.patched: list[str] = []
        for name, taints in (case.get("taintedNodes") or {}).items():
            node = Node.model_validate({"metadata": {"name": name}, "spec": {"taints": taints}})
            self.manager.on_node_update(node, self.now, pods=[])

    def apply(self, step: dict) -> None:
        op = step.get("op")
        if op == "podUpdated":
            self.pod_updated(_pod(step.get("oldPod")), _pod(step.get("newPod")))
        elif op in ("nodeUpdated", "handleNodeUpdate"):
            self.node_updated(_node(step.get("oldNode")),
                              _node(step.get("node") if op == "handleNodeUpdate" else step.get("newNode")))
        elif op is not None:
            raise ValueError(f"unknown op {op!r}")
        self.fire()
        target = self.now + float(step.get("advance") or 0)
        while (due := self.manager.next_deadline()) is not None and due <= target:
            self.now = max(self.now, due)
            self.fire()
        self.now = target

    def pod_updated(self, old: Pod | None, new: Pod | None) -> None:
        if new is not None:
            self.manager.on_pod_update(new, self.now, old=old)
        elif old is not None:
            self.manager.on_pod_delete(_key(old), self.now)

    def node_updated(self, old: Node | None, new: Node | None) -> None:
        if new is not None:
            self.manager.on_node_update(new, self.now)
        elif old is not None:
            self.manager.on_node_delete(old.metadata.name or "", self.now)

    def fire(self) -> None:
        for key, when in self.manager.due(self.now):
            pod = cast("Pod | None", self.cluster.pods.get(key))
            if pod is None:
                continue
            before = _disruption_target(pod)
            delete_pod_by_taint_manager(self.cluster, key, now=when)
            name = pod.metadata.name or ""
            if _disruption_target(pod) != before:
                self.patched.append(name)
            self.deleted.append(name)
            if key in self.cluster.pods:
                self.cluster.remove_pod(key)

    def check(self, i: int, want: dict) -> list[str]:
        diffs = []
        if "deleted" in want or "patched" in want:
            for what, got in (("deleted", self.deleted), ("patched", self.patched)):
                if what in want and sorted(set(got)) != sorted(want[what]):
                    diffs.append(f"step {i}: {what} {sorted(set(got))}, want {sorted(want[what])}")
            self.deleted, self.patched = [], []
        if "queued" in want and sorted(self.manager.scheduled()) != sorted(want["queued"]):
            diffs.append(f"step {i}: queued {sorted(self.manager.scheduled())}, want {sorted(want['queued'])}")
        if "taintedNodes" in want and sorted(self.manager.tainted_nodes()) != sorted(want["taintedNodes"]):
            diffs.append(f"step {i}: taintedNodes {sorted(self.manager.tainted_nodes())}, "
                         f"want {sorted(want['taintedNodes'])}")
        return diffs


def _timed_worker_queue(ops: list[dict]) -> int:
    queue, now, executed = TimedWorkerQueue(), 0.0, 0
    for op in ops:
        if op["op"] == "addWork":
            queue.add_work(ScheduledEviction(op["key"], "", float(op["createdAt"]), float(op["fireAt"])))
        elif op["op"] == "cancelWork":
            queue.cancel_work(op["key"])
        elif op["op"] == "step":
            now += float(op["seconds"])
        else:
            raise ValueError(f"unknown TimedWorkerQueue op {op['op']!r}")
        executed += len(queue.due(now))
    return executed


def _helper(case: dict) -> list[str]:
    name, other = case["helper"], case.get("other") or {}
    want = (case.get("expected") or {}).get("other") or {}
    if name == "getMinTolerationTime":
        seconds = min_toleration_seconds([Toleration.model_validate(t) for t in other.get("tolerations") or []])
        got: object = -1 if seconds < 0 else int(seconds * NANOSECONDS)
        key = "minTolerationTime"
    elif name == "getNoExecuteTaints":
        got = [t.key for t in no_execute_taints([Taint.model_validate(t) for t in other.get("taints") or []])]
        key = "taintKeys"
    elif name in ("emitPodDeletionEvent", "emitCancelPodDeletionEvent"):
        pod = other["pod"]
        got = [pod_deletion_event(f"{pod['namespace']}/{pod['name']}",
                                  cancelled=name == "emitCancelPodDeletionEvent")]
        key = "events"
    elif name == "TimedWorkerQueue":
        got, key = _timed_worker_queue(other.get("ops") or []), "executed"
    else:
        return [f"helper {name!r} is not supported by the taint-eviction stage"]
    return [] if got == want.get(key) else [f"{key} {got!r}, want {want.get(key)!r}"]


def run_taint_eviction_case(case: dict) -> list[str]:
    """Run one ``taint-eviction`` case; the differences (empty = pass)."""
    if case.get("helper"):
        return _helper(case)
    run = _Run(case)
    wanted = (case.get("expected") or {}).get("steps") or []
    diffs = []
    for i, step in enumerate(case.get("steps") or []):
        run.apply(step)
        if i < len(wanted):
            diffs.extend(run.check(i, wanted[i]))
    if len(wanted) > len(case.get("steps") or []):
        diffs.append(f"{len(wanted)} expected steps for {len(case.get('steps') or [])} steps")
    return diffs


def stage_taint_eviction(case: dict, diffs: list[str]) -> None:
    """The ``taint-eviction`` stage for the conformance runner."""
    diffs.extend(run_taint_eviction_case(case))


STAGES = {"taint-eviction": stage_taint_eviction}
