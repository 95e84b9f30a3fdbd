"""Conformance stages of the kubelet's eviction manager as a whole and of its
``oom_score_adj`` policy (upstream ``pkg/kubelet/eviction/eviction_manager_test.go``,
``pkg/kubelet/qos/policy_test.go``).

``eviction-manager`` replays one of upstream's step scripts: a manager with ``config``
(``thresholds``, ``maxPodGracePeriodSeconds``, ``pressureTransitionPeriod``) on a node of
``layout`` (``single``, ``imagefs``, ``split``) with the active ``pods`` (and
``localStorageCapacityIsolation``, default off as in upstream's test manager); each of ``steps``
moves the clock by ``advance`` (seconds or a Go duration), may replace the summary-API
``summary`` (kept from step to step, as upstream's fake provider), the ``pods`` and
``summaryAfterGC`` (what the stats become once image or container GC ran; without it the
GC frees nothing), runs one :func:`~kschedlab.kubelet.manager.synchronize` round, then asks
:func:`~kschedlab.kubelet.manager.admit` about the step's ``admit`` pods. ``helper: Admit``
skips the rounds: ``nodeConditions`` and ``admit`` only. ``expected.steps[i]`` (keys
checked only when given, as upstream asserts):

==========================  ==============================================================
``memoryPressure``,         ``IsUnderMemoryPressure`` / ``IsUnderDiskPressure`` /
``diskPressure``,           ``IsUnderPIDPressure`` after the round
``pidPressure``
``evicted``                 the (last) pod killed this round (null: none; true: any pod)
``evictedPods``             every pod killed this round, in order
``notEvicted``              a pod that must not be the one killed
``gracePeriodSeconds``      the grace period override given to the kill
``status``                  the evicted pod's ``{phase, reason, message, conditions}``
``imageGC``, ``containerGC``  whether node-level reclaim ran image / container GC
``admit``                   ``[bool]``: the verdicts on the step's ``admit`` pods, in order
==========================  ==============================================================

``kubelet-oom-score-adj`` computes ``GetContainerOOMScoreAdjust`` for every init and regular
container of ``pod`` on a node of ``memoryCapacity`` bytes, with the ``PodLevelResources``
gate as ``podLevelResources`` (default off); ``expected.other.oomScoreAdj``: ``{container:
[low, high]}`` (inclusive bounds, as upstream's table; every container must be listed).

>>> run_case({"id": "x", "stage": "kubelet-oom-score-adj", "memoryCapacity": 4000000000,
...           "pod": {"spec": {"containers": [{"name": "c"}]}},
...           "expected": {"other": {"oomScoreAdj": {"c": [999, 999]}}}})
['oom_score_adj c: got 1000, want between 999 and 999']
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from kschedlab.api.core import Pod
from kschedlab.conformance.compare import run_stage
from kschedlab.kubelet.config import EvictionConfig
from kschedlab.kubelet.gotypes import parse_duration
from kschedlab.kubelet.manager import REASON_EVICTED, EvictionState, admit, synchronize
from kschedlab.kubelet.qos_policy import pod_oom_score_adjusts
from kschedlab.kubelet.ranking import LAYOUT_SINGLE
from kschedlab.kubelet.reclaim import DELETE_ALL_UNUSED_CONTAINERS, DELETE_UNUSED_IMAGES
from kschedlab.kubelet.signals import NODE_DISK_PRESSURE, NODE_MEMORY_PRESSURE, NODE_PID_PRESSURE
from kschedlab.kubelet.thresholds import Threshold

__all__ = ["run_case", "STAGES"]

#: ``v1.PodReasonTerminationByKubelet``: the ``DisruptionTarget`` reason of a kubelet eviction
REASON_TERMINATION_BY_KUBELET = "TerminationByKubelet"

_PRESSURE_KEYS = (("memoryPressure", NODE_MEMORY_PRESSURE), ("diskPressure", NODE_DISK_PRESSURE),
                  ("pidPressure", NODE_PID_PRESSURE))


def _seconds(v) -> float:
    return float(v) if isinstance(v, (int, float)) else parse_duration(str(v)) / 1e9


def _config(data: Mapping, layout: str) -> EvictionConfig:
    period = data.get("pressureTransitionPeriod", "5m")
    return EvictionConfig(
        thresholds=[Threshold.from_dict(t) for t in data.get("thresholds") or []], hard_thresholds=[],
        max_pod_grace_period_seconds=int(data.get("maxPodGracePeriodSeconds", 0)),
        pressure_transition_period=period if isinstance(period, int) else parse_duration(str(period)),
    ).with_filesystems(layout)


def _evicted_status(message: str, condition: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {"phase": "Failed", "reason": REASON_EVICTED, "message": message}
    if condition:
        out["conditions"] = [{"type": "DisruptionTarget", "status": "True", "reason": REASON_TERMINATION_BY_KUBELET,
                              "message": message}]
    return out


def _check_admit(diffs: list[str], label: str, conditions, pods, want) -> None:
    got = [admit(conditions, p).admit for p in pods]
    if want is not None and got != want:
        diffs.append(f"{label} admit {[p.metadata.name for p in pods]}: got {got}, want {want}")


class _DiskGC:
    """Upstream's ``mockDiskGC``: remembers the reclaim functions run; the stats after them are
    ``after`` (or unchanged when None)."""

    def __init__(self, summary: Mapping[str, Any], after: Mapping[str, Any] | None) -> None:
        self.summary, self.after = summary, after
        self.runs: list[tuple[str, ...]] = []

    def __call__(self, funcs: tuple[str, ...]) -> Mapping[str, Any]:
        self.runs.append(funcs)
        return self.after if self.after is not None else self.summary


def _stage_manager(case: dict, diffs: list[str]) -> None:
    want_steps = case["expected"].get("steps") or []
    if case.get("helper") == "Admit":
        for i, step in enumerate(case.get("steps") or []):
            pods = [Pod.model_validate(p) for p in step.get("admit") or []]
            want = want_steps[i] if i < len(want_steps) else {}
            _check_admit(diffs, f"step {i}", step.get("nodeConditions") or [], pods, want.get("admit"))
        return
    layout = case.get("layout", LAYOUT_SINGLE)
    config = _config(case.get("config") or {}, layout)
    state = EvictionState()
    pods = [Pod.model_validate(p) for p in case.get("pods") or []]
    summary: Mapping[str, Any] = {}
    local_storage = bool(case.get("localStorageCapacityIsolation", False))
    now = 0.0
    for i, step in enumerate(case.get("steps") or []):
        now += _seconds(step.get("advance", 0))
        summary = step.get("summary", summary)
        if "pods" in step:
            pods = [Pod.model_validate(p) for p in step["pods"]]
        gc = _DiskGC(summary, step.get("summaryAfterGC"))
        state, result = synchronize(config, state, summary, pods, now, layout=layout, summary_after_reclaim=gc,
                                    local_storage_capacity_isolation=local_storage)
        if gc.runs and gc.after is not None:
            summary = gc.after
        want = want_steps[i] if i < len(want_steps) else {}
        label = f"step {i}"
        for key, cond in _PRESSURE_KEYS:
            if key in want and (cond in result.node_conditions) != want[key]:
                diffs.append(f"{label} {key}: got {cond in result.node_conditions}, want {want[key]}")
        # upstream's mock pod killer remembers the last pod killed in the round
        # (a local-storage eviction sets no DisruptionTarget condition)
        kills: list[tuple[str, int | None, dict[str, Any]]] = [(e.pod.metadata.name, e.grace_period_seconds, _evicted_status(e.message, condition=False))
                 for e in result.local_storage]
        if result.evicted is not None and result.message is not None:
            kills.append((result.evicted, result.grace_period_seconds, _evicted_status(result.message)))
        killed, grace, got_status = kills[-1] if kills else (None, None, None)
        if want.get("evicted") is True:
            if killed is None:
                diffs.append(f"{label} evicted: got none, want a pod")
        elif "evicted" in want and killed != want["evicted"]:
            diffs.append(f"{label} evicted: got {killed}, want {want['evicted']}")
        if "evictedPods" in want and [k[0] for k in kills] != want["evictedPods"]:
            diffs.append(f"{label} evictedPods: got {[k[0] for k in kills]}, want {want['evictedPods']}")
        if "notEvicted" in want and want["notEvicted"] in [k[0] for k in kills]:
            diffs.append(f"{label} evicted {want['notEvicted']}, which must not be evicted")
        if "gracePeriodSeconds" in want and grace != want["gracePeriodSeconds"]:
            diffs.append(f"{label} gracePeriodSeconds: got {grace}, want {want['gracePeriodSeconds']}")
        if "status" in want:
            if got_status != want["status"]:
                diffs.append(f"{label} status: got {got_status}, want {want['status']}")
        ran = {f for run in gc.runs for f in run}
        for key, func in (("imageGC", DELETE_UNUSED_IMAGES), ("containerGC", DELETE_ALL_UNUSED_CONTAINERS)):
            if key in want and (func in ran) != want[key]:
                diffs.append(f"{label} {key}: got {func in ran}, want {want[key]}")
        if "admit" in want:
            admit_pods = [Pod.model_validate(p) for p in step.get("admit") or []]
            _check_admit(diffs, label, result.node_conditions, admit_pods, want["admit"])


def _stage_oom_score_adj(case: dict, diffs: list[str]) -> None:
    want = (case["expected"].get("other") or {}).get("oomScoreAdj") or {}
    pod = Pod.model_validate(case["pod"])
    got = pod_oom_score_adjusts(pod, int(case["memoryCapacity"]),
                                pod_level_resources=bool(case.get("podLevelResources", False)))
    if sorted(got) != sorted(want):
        diffs.append(f"containers: got {sorted(got)}, want {sorted(want)}")
    for name, (low, high) in want.items():
        if name in got and not low <= got[name] <= high:
            diffs.append(f"oom_score_adj {name}: got {got[name]}, want between {low} and {high}")


STAGES: dict[str, Callable[[dict, list[str]], None]] = {
    "eviction-manager": _stage_manager,
    "kubelet-oom-score-adj": _stage_oom_score_adj,
}


def run_case(case: dict[str, Any]) -> list[str]:
    """Run one case of these stages; the differences from ``expected`` (empty = pass)."""
    return run_stage(STAGES, case, "a kubelet")
