"""When a simulation run ends, and what it leaves pending.

A run stops for one of four reasons (``SimulationResult.stop_reason``):

``quiescent``
    (a run given no ``until``) nothing can change any more: no scheduled event
    (arrival, deletion, run duration ending, node change, gate removal), no
    timer that changes the cluster (Permit timeout, grace period, taint-manager
    eviction, drain step, a kubelet housekeeping round that could see something
    new: a usage still changing, a threshold in its grace period, a pressure
    condition held by its transition period) and every pending pod has already been tried -- or,
    if gated, had its PreEnqueue plugins run -- since the cluster last changed.
    The queue's own timers (backoff expiry, the 5-minute flush of the
    unschedulable pool) would only retry pods against the same cluster, which
    fails again in the same way, so they are not waited for.  A pod that has
    not been retried since the last change still is: the run goes on until its
    retry.  An attempt that ended in an error (rather than a rejection) is
    retried once more even with no change (an error may not happen again);
    the same error twice against the same cluster settles the pod.
``until``
    the clock reached the ``until`` time given to the run.  Up to it every
    periodic retry is made, as kube-scheduler makes them (or, once they repeat
    cycle after cycle, counted as made: :mod:`kschedlab.sim.fast_forward`);
    ``quiescent_at`` says from when nothing could change.
``horizon``
    no ``until`` was given and the clock reached the horizon
    (:data:`DEFAULT_HORIZON`, 24 h of virtual time, unless another is passed)
    with something still able to change.
``max-attempts``
    the run made its maximum number of scheduling attempts.

>>> tracker = ChangeTracker()
>>> tracker.evaluated("default/web")
>>> tracker.is_settled("default/web"), tracker.is_settled("default/db")
(True, False)
>>> tracker.changed()
>>> tracker.is_settled("default/web")
False
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from kschedlab.scheduler.scheduling_loop import ChangeTracker

__all__ = ["DEFAULT_HORIZON", "STOP_QUIESCENT", "STOP_UNTIL", "STOP_HORIZON", "STOP_MAX_ATTEMPTS", "STOP_REASONS",
           "PENDING_COLUMNS", "ChangeTracker", "pending_report", "stop_sentence"]

#: virtual seconds a run given no ``until`` may last (24 h); ``kschedlab simulate`` names it
#: when a run stops there ("pass --until to change it")
DEFAULT_HORIZON = 86400.0

STOP_QUIESCENT = "quiescent"
STOP_UNTIL = "until"
STOP_HORIZON = "horizon"
STOP_MAX_ATTEMPTS = "max-attempts"
STOP_REASONS = (STOP_QUIESCENT, STOP_UNTIL, STOP_HORIZON, STOP_MAX_ATTEMPTS)

#: columns of ``SimulationResult.pending``
PENDING_COLUMNS = ["pod", "queue", "attempts", "message"]


def _condition_message(pod) -> str:
    for cond in (pod.status.conditions if pod.status is not None else []):
        if cond.type == "PodScheduled" and cond.status == "False":
            return cond.message or cond.reason or ""
    return ""


def _gated_message(sim, key: str) -> str:
    pod_info = sim.cluster.pod_infos[key]
    fw = sim.scheduler.framework_for(pod_info.pod)
    status = fw.run_pre_enqueue(pod_info) if fw is not None else None
    if status is not None and not status.is_success():
        text = status.message()
        plugin = status.plugin or "PreEnqueue"
        return f"gated by {plugin}: {text}" if text else f"gated by {plugin}"
    return _condition_message(pod_info.pod)


def pending_report(sim, timeline: dict[str, dict], last_message: dict[str, str],
                   permit_deadlines: dict[str, tuple[float, str]] | None = None) -> pd.DataFrame:
    """The pods still waiting for a node when the run stopped: ``pod``, ``queue`` (active,
    backoff, unschedulable, gated; in-flight for a pod held at Permit; other-scheduler for a pod
    whose ``schedulerName`` is none of the profiles), ``attempts`` and ``message`` (the last
    failure message, ``0/N nodes are available: ...``; for a gated pod the PreEnqueue plugin
    that holds it).  ``timeline`` is the run's pod -> timeline row, ``last_message`` pod -> last
    failure message, ``permit_deadlines`` pod held at Permit -> (when its wait ends, plugin)."""
    rows: list[dict[str, Any]] = []
    permit_deadlines = permit_deadlines or {}
    for key, pod in sim.cluster.pods.items():
        if pod.spec.node_name:
            continue
        row = timeline.get(key)
        if row is None:
            if sim.scheduler.framework_for(pod) is None:
                rows.append({"pod": key, "queue": "other-scheduler", "attempts": 0,
                             "message": f"schedulerName {pod.spec.scheduler_name!r} is not a profile of this "
                                        f"scheduler"})
            continue
        queue = sim.queue.where(key)
        if queue is None:
            continue
        if queue == "gated":
            message = _gated_message(sim, key)
        elif key in permit_deadlines:
            deadline, plugin = permit_deadlines[key]
            message = f"waiting at Permit ({plugin}) until {deadline:g} s"
        else:
            message = last_message.get(key) or _condition_message(pod)
        rows.append({"pod": key, "queue": queue, "attempts": int(row["attempts"]), "message": message})
    return pd.DataFrame(rows, columns=PENDING_COLUMNS)


def stop_sentence(result) -> str:
    """One line saying why and when a run stopped.

    >>> from types import SimpleNamespace as NS
    >>> stop_sentence(NS(stop_reason="horizon", end_time=86400.0, horizon=86400.0, quiescent_at=None))
    'stopped at the default horizon of 86400 s; pass --until to change it'
    >>> stop_sentence(NS(stop_reason="until", end_time=120.0, horizon=None, quiescent_at=50.0))
    'stopped at 120 s (until); nothing could change after 50 s'
    >>> stop_sentence(NS(stop_reason="quiescent", end_time=31.0, horizon=86400.0, quiescent_at=31.0))
    'stopped at 31 s: nothing can change any more (quiescent)'
    """
    reason, end = result.stop_reason, float(result.end_time)
    if reason == STOP_QUIESCENT:
        return f"stopped at {end:g} s: nothing can change any more (quiescent)"
    if reason == STOP_HORIZON:
        what = "the default horizon" if result.horizon == DEFAULT_HORIZON else "the horizon"
        return f"stopped at {what} of {end:g} s; pass --until to change it"
    if reason == STOP_UNTIL:
        settled = "" if result.quiescent_at is None else f"; nothing could change after {result.quiescent_at:g} s"
        return f"stopped at {end:g} s (until){settled}"
    return f"stopped at {end:g} s after the maximum number of scheduling attempts ({reason})"
