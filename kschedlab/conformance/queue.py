"""Conformance stages of the scheduling queue (``CASES.md``: ``queue-sort`` with ``queueOps``,
``queue-backoff``).

``queue-sort`` with ``queueOps`` runs the operations on a :class:`SchedulingQueue` whose
``less`` is the case's QueueSort plugin, on a fake clock (``queueOptions.clockStart``,
default 0). Operations (``pod`` is a v1.Pod where a new object is needed, else a pod name):

==========================  ================================================================
``{"op": "add", "pod"}``     a new pending pod
``{"op": "pop"}``            pop; the popped pod's name (null when none) joins ``popOrder``
``{"op": "addUnschedulable", "pod", "unschedulablePlugins", "pendingPlugins", "error"}``
                             the popped pod's attempt failed
``{"op": "done", "pod"}``    the popped pod's attempt finished
``{"op": "update", "pod"}``  the pod's new version
``{"op": "delete", "pod"}``  the pod was deleted (``pod``: a name, or a v1.Pod never added)
``{"op": "event", "event": {"resource", "action"} | "UnschedulableTimeout" | "ForceActivate",
"oldObj", "newObj", "preCheck"}``  a cluster event (MoveAllToActiveOrBackoffQueue; ``preCheck``: its
                             PreEnqueueCheck, see :func:`_pre_check`)
``{"op": "nominate", "pod", "node", "mode"}``  AddNominatedPod (mode Override by default; ``pod``
                             may be a v1.Pod the queue does not hold)
``{"op": "deleteNomination", "pod"}``  DeleteNominatedPodIfExists
``{"op": "step", "seconds"}``  advance the clock
``{"op": "flushBackoffQ"}`` / ``{"op": "flushUnschedulableLeftover"}``  run one flush now
``{"op": "observe"}``        note where every pod added so far is (``observations``)
``{"op": "activate", "pods"}``  Activate: the pods (names, or v1.Pods the queue never held) to activeQ
``{"op": "isPodWorthRequeuing", "pod", "unschedulablePlugins", "pendingPlugins", "event", "oldObj",
"newObj"}``                  the queue's requeue strategy for a pod (a v1.Pod, not queued) that
                             failed with those plugins (``requeueStrategies``)
==========================  ================================================================

``queueingHints: [{event: {resource, action} | "UnschedulableTimeout", plugin, hint: Queue |
QueueSkip, error?}]`` registers a plugin's QueueingHint for an event (upstream's
``QueueingHintMapPerProfile`` with ``queueHintReturnQueue`` / ``queueHintReturnSkip``; with
``error`` the hint fails with that message, which the queue reads as Queue).

``queuePreEnqueue: [plugin]`` runs those in-tree PreEnqueue plugins (e.g. SchedulingGates) when a
pod enters the queue or is updated; a rejection gates the pod.

``expected.other.popOrder`` lists the names the ``pop`` operations returned (when there
are none, the queue is popped empty at the end); ``nominatedPods`` is ``{node: [names]}``,
``nominatedPodToNode`` ``{pod: node}``;
``requeueStrategies`` the strategies of the ``isPodWorthRequeuing`` ops (``queueSkip``,
``queueAfterBackoff``, ``queueImmediately``), ``hintCalls`` how many times the case's hints ran;
``queueCounts {active, backoff, unschedulable, gated}`` how many pods each holds at the end (listed keys);
``presentPods`` / ``absentPods`` the pods in (or not in) activeQ, backoffQ or the pool at the end;
``queuedIn {pod: active | backoff | unschedulable | gated | in-flight | null}`` where the listed
pods are at the end, ``observations: [{pod: queue}]`` where they were at each ``observe``.

``queue-backoff``: ``queuedPodAttempts`` (the failure count) under ``args``
(``podInitialBackoffSeconds``/``podMaxBackoffSeconds``, or ``...Nanoseconds``) gives
``backoffNanoseconds``; ``expected.other.steps`` replays upstream's TestBackOffFlow:
pop, fail with a plugin, UnschedulableTimeout, and check the backoff of each round.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any, Callable

from kschedlab.conformance.compare import Mismatch, check
from kschedlab.conformance.plugins import fixtures, plugin_for
from kschedlab.features import FeatureGates

_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)")
_UNIT_NS = {"ns": 1, "us": 1_000, "µs": 1_000, "ms": 1_000_000, "s": 1_000_000_000, "m": 60_000_000_000,
            "h": 3_600_000_000_000}


def parse_duration_ns(value) -> int:
    """A Go duration string (``"1s"``, ``"1m30s"``) or a number of seconds, in nanoseconds.

    >>> parse_duration_ns("10s"), parse_duration_ns("1m30s"), parse_duration_ns(0.5)
    (10000000000, 90000000000, 500000000)
    """
    if isinstance(value, (int, float)):
        return round(value * 1_000_000_000)
    text = str(value).strip()
    pos, total = 0, 0
    for m in _DURATION.finditer(text):
        if m.start() != pos:
            raise ValueError(f"invalid duration {value!r}")
        total += round(float(m.group(1)) * _UNIT_NS[m.group(2)])
        pos = m.end()
    if pos != len(text) or not text:
        raise ValueError(f"invalid duration {value!r}")
    return total


def _pod_info(spec: dict):
    from kschedlab.api.core import Pod
    from kschedlab.framework.types import PodInfo

    return PodInfo.of(Pod.model_validate(spec))


def _event(spec) -> Any:
    from kschedlab.framework import events as ev

    if isinstance(spec, str):
        return {"UnschedulableTimeout": ev.EVENT_UNSCHEDULABLE_TIMEOUT,
                "ForceActivate": ev.EVENT_FORCE_ACTIVATE}[spec]
    action = ev.ActionType.NONE
    for part in str(spec["action"]).split("|"):
        action |= ev.ActionType[part.strip()]
    return ev.ClusterEvent(spec["resource"], action, spec.get("label", ""))


def _obj(spec):
    if spec is None:
        return None
    from kschedlab.api.core import Node, Pod

    kind = spec.get("kind", "Pod")
    return {"Pod": Pod, "Node": Node}[kind].model_validate(spec)


def _pre_check(spec: dict | None):
    """``MoveAllToActiveOrBackoffQueue``'s PreEnqueueCheck from its data form: the pod's priority
    ``priorityAtLeast`` / ``priorityBelow`` a bound and ``priorityEven``, all given must hold;
    ``notCalled: true`` fails the case if the queue calls it.

    >>> from kschedlab.api.core import Pod
    >>> check = _pre_check({"priorityAtLeast": 2, "priorityEven": True})
    >>> [check(Pod.model_validate({"spec": {"priority": p}})) for p in (1, 2, 3, 4)]
    [False, True, False, True]
    """
    if spec is None:
        return None

    def check(pod) -> bool:
        if spec.get("notCalled"):
            raise Mismatch("the PreEnqueueCheck was called")
        priority = pod.spec.priority or 0
        return (priority >= spec.get("priorityAtLeast", priority) and priority < spec.get("priorityBelow", priority + 1)
                and (not spec.get("priorityEven") or priority % 2 == 0))

    return check


def _options(case: dict, key: str = "queueOptions") -> dict:
    return dict(case.get(key) or {})


def _hint_fn(spec: dict, calls: list[int]):
    from kschedlab.framework.events import QueueingHint

    hint, error = QueueingHint[spec.get("hint", "Queue")], spec.get("error")

    def fn(pod_info, old_obj, new_obj):
        calls[0] += 1
        if error:
            raise RuntimeError(error)
        return hint

    return fn


def case_hints(case: dict, calls: list[int]) -> dict:
    """``{plugin: [(ClusterEvent, hint)]}`` of ``queueingHints``; every call of a hint adds one to
    ``calls[0]``."""
    hints: dict[str, list] = {}
    for spec in case.get("queueingHints") or []:
        hints.setdefault(spec["plugin"], []).append((_event(spec["event"]), _hint_fn(spec, calls)))
    return hints


#: the queue's requeue strategies by upstream's names (``queueingStrategy``)
_STRATEGY_NAMES = {"SKIP": "queueSkip", "AFTER_BACKOFF": "queueAfterBackoff", "IMMEDIATELY": "queueImmediately"}


def build_queue(case: dict, less, clock, hints=None):
    """A queue for a case: ``queueOptions`` (seconds) and ``featureGates``."""
    from kschedlab.queue import SchedulingQueue

    opts = _options(case)
    gates = FeatureGates(case.get("featureGates") or {}, emulate_older=True)
    kwargs = {}
    for name, arg in (("podInitialBackoffSeconds", "pod_initial_backoff"), ("podMaxBackoffSeconds", "pod_max_backoff"),
                      ("podMaxInUnschedulablePodsDurationSeconds", "pod_max_in_unschedulable_pods_duration")):
        if name in opts:
            kwargs[arg] = float(opts[name])
    return SchedulingQueue(less, pre_enqueue=_pre_enqueue(case, gates), hints=hints or {}, clock=clock, gates=gates,
                           **kwargs)


def _pre_enqueue(case: dict, gates: FeatureGates):
    """The PreEnqueue plugins of ``queuePreEnqueue`` (in-tree names) run in order, as the queue's
    PreEnqueue check; None when the case names none."""
    names = case.get("queuePreEnqueue") or []
    if not names:
        return None
    from kschedlab.framework.runtime import Handle
    from kschedlab.framework.status import Status
    from kschedlab.plugins import in_tree_registry

    registry = in_tree_registry()
    plugins = [registry[name].build({}, Handle(gates, None, None)) for name in names]

    def run(pod_info):
        for plugin in plugins:
            status = plugin.pre_enqueue(pod_info) or Status()
            if not status.is_success():
                return status.with_plugin(plugin.name)
        return Status()

    return run


def stage_queue_sort_ops(case: dict, plugin, diffs: list[str], check) -> None:
    """``queue-sort`` with ``queueOps`` (see the module docstring)."""
    from kschedlab.framework.nominator import NominatingInfo

    now = [float(_options(case).get("clockStart", 0.0))]
    hint_calls = [0]
    q = build_queue(case, plugin.less, lambda: now[0], case_hints(case, hint_calls))
    observations: list[dict[str, str | None]] = []
    strategies: list[str] = []
    popped: list[str | None] = []
    popped_qpi: dict[str, Any] = {}
    known: dict[str, Any] = {}
    pops = False
    for i, op in enumerate(case.get("queueOps") or []):
        kind = op["op"]
        if kind == "add":
            info = _pod_info(op["pod"])
            known[info.name] = info
            q.add(info)
        elif kind == "pop":
            pops = True
            qpi = q.pop()
            popped.append(None if qpi is None else qpi.pod_info.name or "")
            if qpi is not None:
                popped_qpi[qpi.pod_info.name] = qpi
        elif kind == "addUnschedulable":
            name = op["pod"] if isinstance(op["pod"], str) else op["pod"]["metadata"]["name"]
            qpi = popped_qpi.pop(name, None)
            if qpi is None:
                from kschedlab.queue import QueuedPodInfo

                qpi = QueuedPodInfo(known[name], now[0])
            q.add_unschedulable_if_not_present(qpi, op.get("unschedulablePlugins") or (),
                                               op.get("pendingPlugins") or (), bool(op.get("error", False)))
        elif kind == "done":
            q.done(known[op["pod"]].key)
        elif kind == "update":
            new = _pod_info(op["pod"])
            old = known.get(new.name, new)
            known[new.name] = new
            q.update(old, new)
        elif kind == "delete":  # (a v1.Pod the queue never held, or a name)
            q.delete(_pod_info(op["pod"]).key if isinstance(op["pod"], dict) else known[op["pod"]].key)
        elif kind == "event":
            q.move_all_to_active_or_backoff(_event(op["event"]), _obj(op.get("oldObj")), _obj(op.get("newObj")),
                                            _pre_check(op.get("preCheck")))
        elif kind == "nominate":
            if isinstance(op["pod"], dict):  # a pod known only to the nominator
                known[op["pod"]["metadata"]["name"]] = _pod_info(op["pod"])
                op = {**op, "pod": op["pod"]["metadata"]["name"]}
            q.add_nominated_pod(known[op["pod"]], NominatingInfo(op.get("mode", "Override"), op.get("node", "")))
        elif kind == "deleteNomination":
            q.delete_nominated_pod_if_exists(known[op["pod"]].key)
        elif kind == "step":
            now[0] += float(op["seconds"])
        elif kind == "flushBackoffQ":
            q.flush_backoff_completed()
        elif kind == "flushUnschedulableLeftover":
            q.flush_unschedulable_leftover()
        elif kind == "isPodWorthRequeuing":
            from kschedlab.queue import QueuedPodInfo

            qpi = QueuedPodInfo(_pod_info(op["pod"]), now[0])
            qpi.unschedulable_plugins = set(op.get("unschedulablePlugins") or ())
            qpi.pending_plugins = set(op.get("pendingPlugins") or ())
            strategy = q.is_pod_worth_requeuing(qpi, _event(op["event"]), _obj(op.get("oldObj")), _obj(op.get("newObj")))
            strategies.append(_STRATEGY_NAMES[strategy.name])
        elif kind == "activate":  # (names, or v1.Pods the queue never held)
            q.activate([_pod_info(p).key if isinstance(p, dict) else known[p].key for p in op["pods"]])
        elif kind == "observe":
            observations.append({name or "": q.where(info.key) for name, info in known.items()})
        else:
            diffs.append(f"queueOps[{i}]: unknown op {kind!r}")
            return
    want = case["expected"]["other"]
    if "popOrder" in want:
        if not pops:
            while (qpi := q.pop()) is not None:
                popped.append(qpi.pod_info.name)
        check(diffs, "popOrder", popped, want["popOrder"])
    if "nominatedPods" in want:
        got = {node: [pi.name for pi in pods] for node, pods in q.nominator.nominated_pods.items()}
        check(diffs, "nominatedPods", got, want["nominatedPods"])
    if "nominatedPodToNode" in want:
        got_nodes = {key.split("/", 1)[-1]: node for key, node in q.nominator.nominated_pod_to_node.items()}
        check(diffs, "nominatedPodToNode", got_nodes, want["nominatedPodToNode"])
    if "requeueStrategies" in want:
        check(diffs, "requeueStrategies", strategies, want["requeueStrategies"])
    if "hintCalls" in want:
        check(diffs, "hintCalls", hint_calls[0], want["hintCalls"])
    if "queueCounts" in want:
        counts = q.pending_counts()
        check(diffs, "queueCounts", {k: counts.get(k, 0) for k in want["queueCounts"]}, want["queueCounts"])
    queued = {"active", "backoff", "unschedulable", "gated"}
    for key, present in (("presentPods", True), ("absentPods", False)):
        for name in want.get(key) or []:
            where = q.where(known[name].key) if name in known else None
            if (where in queued) != present:
                diffs.append(f"{key}: {name} is {'in ' + where if where else 'in no queue'}")
    if "queuedIn" in want:
        check(diffs, "queuedIn", {name: q.where(known[name].key) for name in want["queuedIn"]}, want["queuedIn"])
    if "observations" in want:
        if len(observations) != len(want["observations"]):
            diffs.append(f"observations: {len(observations)} observe ops, {len(want['observations'])} expected")
        for i, (got_obs, want_obs) in enumerate(zip(observations, want["observations"])):
            check(diffs, f"observations[{i}]", {name: got_obs.get(name) for name in want_obs}, want_obs)


def _backoff_args_ns(args: dict) -> tuple[int, int]:
    def one(prefix: str, default_s: float) -> int:
        if f"{prefix}Nanoseconds" in args:
            return int(args[f"{prefix}Nanoseconds"])
        if f"{prefix}Seconds" in args:
            return round(float(args[f"{prefix}Seconds"]) * 1_000_000_000)
        return round(default_s * 1_000_000_000)

    return one("podInitialBackoff", 1.0), one("podMaxBackoff", 10.0)


def stage_queue_backoff(case: dict, diffs: list[str], check) -> None:
    """``queue-backoff`` (see the module docstring)."""
    want = case["expected"]["other"]
    if "backoffNanoseconds" in want:
        from kschedlab.queue import SchedulingQueue

        initial, maximum = _backoff_args_ns(case.get("args") or {})
        q = SchedulingQueue(lambda a, b: False, pre_enqueue=None, hints={}, clock=lambda: 0.0)
        q._initial_ns, q._max_ns = initial, maximum  # nanosecond-exact, as upstream's time.Duration
        got = q._backoff_ns(int(case["queuedPodAttempts"]))
        check(diffs, "backoffNanoseconds", got, int(want["backoffNanoseconds"]))
    if "steps" in want:
        _backoff_flow(case, want["steps"], diffs, check)


def _backoff_flow(case: dict, steps: list[dict], diffs: list[str], check) -> None:
    """TestBackOffFlow: each round pops the pod, fails it, sends UnschedulableTimeout and checks
    that it sits in backoffQ for exactly the expected backoff."""
    from kschedlab.plugins.queuesort import PrioritySort
    from kschedlab.queue.scheduling_queue import BACKOFF, BACKOFF_ORDERING_WINDOW
    from kschedlab.queue.types import NANOS, to_nanos

    opts = _options(case)
    now = [float(opts.get("clockStart", 1000.25))]
    args = case.get("args") or {}
    initial, maximum = _backoff_args_ns(args)
    q = build_queue({**case, "queueOptions": {**opts, "podInitialBackoffSeconds": initial / NANOS,
                                               "podMaxBackoffSeconds": maximum / NANOS}},
                    PrioritySort().less, lambda: now[0])
    pod = case.get("pod") or {"metadata": {"name": "test-pod", "namespace": "test-ns", "uid": "test-uid"}}
    info = _pod_info(pod)
    q.add(info)
    window = to_nanos(BACKOFF_ORDERING_WINDOW)
    for i, step in enumerate(steps):
        timestamp = to_nanos(now[0])
        qpi = q.pop()
        if qpi is None:
            diffs.append(f"steps[{i}]: nothing to pop")
            return
        check(diffs, f"steps[{i}].attempts", qpi.attempts, int(step["attempts"]))
        q.add_unschedulable_if_not_present(qpi, {"unsched-plugin"})
        q.move_all_to_active_or_backoff(_event("UnschedulableTimeout"))
        if q.where(qpi.key) != BACKOFF:
            diffs.append(f"steps[{i}]: pod not in backoffQ but {q.where(qpi.key)}")
            return
        backoff = qpi.backoff_expiration_ns - timestamp
        if q.pop_from_backoff_q:  # the actual backoff rounds up to the ordering window
            backoff = (backoff // window) * window + window
        check(diffs, f"steps[{i}].backoff", backoff, parse_duration_ns(step["backoff"]))
        now[0] += BACKOFF_ORDERING_WINDOW
        q.flush_backoff_completed()
        if q.where(qpi.key) != BACKOFF:
            diffs.append(f"steps[{i}]: left backoffQ after an early flush")
        now[0] += backoff / NANOS
        q.flush_backoff_completed()
        if q.where(qpi.key) == BACKOFF:
            diffs.append(f"steps[{i}]: still in backoffQ after its backoff")


def _timestamp(value) -> float:
    if isinstance(value, (int, float)):
        return float(value)
    text = str(value).replace("Z", "+00:00")
    return datetime.fromisoformat(text).timestamp() if not text.startswith("0001-") else float("-inf")


def _stage_queue_sort(case, diffs):
    from kschedlab.api.core import Pod
    from kschedlab.framework.types import PodInfo
    from kschedlab.queue.types import QueuedPodInfo

    cluster, _ = fixtures({**case, "pod": None})
    plugin = plugin_for(case, cluster)
    if case.get("queueOps") is not None:  # operations on a SchedulingQueue (kschedlab.conformance.queue)
        from kschedlab.conformance.queue import stage_queue_sort_ops

        return stage_queue_sort_ops(case, plugin, diffs, check)
    queued = [QueuedPodInfo(PodInfo.of(Pod.model_validate(q["pod"])), _timestamp(q["timestamp"]))
              for q in case.get("queuedPods") or []]
    want = case["expected"]["other"]
    if "less" in want:
        check(diffs, "less", plugin.less(queued[0], queued[1]), want["less"])
    if "popOrder" in want:
        from functools import cmp_to_key

        order = sorted(queued, key=cmp_to_key(lambda a, b: -1 if plugin.less(a, b) else 1 if plugin.less(b, a) else 0))
        check(diffs, "popOrder", [q.pod_info.name for q in order], want["popOrder"])


def _stage_queue_backoff(case, diffs):
    from kschedlab.conformance.queue import stage_queue_backoff

    stage_queue_backoff(case, diffs, check)


STAGES: dict[str, Callable] = {
    "queue-sort": _stage_queue_sort,
    "queue-backoff": _stage_queue_backoff,
}
