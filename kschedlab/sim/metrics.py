"""kube-scheduler's metrics, computed from a simulation run as pandas time series.

Everything here reads a :class:`~kschedlab.sim.engine.SimulationResult` (its
``moves``, the queue's history of where each pod went and why, and its per-pod
``pods`` timeline); nothing is sampled, so a series changes exactly when the
queue did.

=============================================  =========================================================
``scheduler_pending_pods{queue}``              :func:`pending_pods` (gauge: active, backoff,
                                               unschedulable, gated)
``scheduler_schedule_attempts_total{result}``  :func:`schedule_attempts_total` (counter: scheduled,
                                               unschedulable, error); :func:`schedule_attempts` lists
                                               the attempts
``scheduler_pod_scheduling_sli_duration_seconds``  ``sli`` of :func:`scheduling_latency` (first entry
                                               into activeQ -> scheduled; gated time excluded)
``scheduler_pod_scheduling_attempts``          ``attempts`` of :func:`scheduling_latency`
=============================================  =========================================================

:func:`exposition` prints the gauges and counters at one instant in the
Prometheus text format, as ``/metrics`` would.

>>> from kschedlab.api.core import Node, Pod
>>> from kschedlab.sim import Simulation
>>> node = Node.model_validate({"metadata": {"name": "n1"},
...     "status": {"allocatable": {"cpu": "1", "memory": "1Gi", "pods": "10"}}})
>>> def pod(name, gates=()):
...     return Pod.model_validate({"metadata": {"name": name, "namespace": "default"}, "spec": {
...         "schedulingGates": [{"name": g} for g in gates],
...         "containers": [{"name": "c", "resources": {"requests": {"cpu": "600m"}}}]}})
>>> sim = Simulation([node])
>>> sim.create_pod(pod("first"), at=0, duration=10)
>>> sim.create_pod(pod("second"), at=2, duration=10)
>>> sim.create_pod(pod("gated", gates=["example.com/quota"]), at=0, duration=10)
>>> sim.remove_scheduling_gates("default/gated", at=5)
>>> result = sim.run(until=60)
>>> pending_pods(result)
      active  backoff  unschedulable  gated
time
0.0        0        0              0      1
2.0        0        0              1      1
5.0        0        0              2      0
10.0       0        0              1      0
20.0       0        0              0      0
60.0       0        0              0      0
>>> schedule_attempts(result, sim)
              pod  attempt  popped  finished         result
0   default/first        1     0.0       0.0      scheduled
1  default/second        1     2.0       2.0  unschedulable
2   default/gated        1     5.0       5.0  unschedulable
3  default/second        2    10.0      10.0      scheduled
4   default/gated        2    10.0      10.0  unschedulable
5   default/gated        3    20.0      20.0      scheduled
>>> schedule_attempts_total(result, sim).iloc[-1].to_dict()
{'scheduled': 3, 'unschedulable': 3, 'error': 0}
>>> latency = scheduling_latency(result)
>>> print(latency[["pod", "created", "enqueued", "scheduled", "gated_for", "sli", "created_to_bound"]]
...       .to_string(index=False))
           pod  created  enqueued  scheduled  gated_for  sli  created_to_bound
 default/first      0.0       0.0        0.0        0.0  0.0               0.0
 default/gated      0.0       5.0       20.0        5.0 15.0              20.0
default/second      2.0       2.0       10.0        0.0  8.0               8.0

When the first pod finishes at 10 s both waiting pods are woken (AssignedPodDelete);
``second`` (older in the queue) takes the node and ``gated`` fails once more.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from kschedlab.framework.status import Code

__all__ = [
    "QUEUES", "RESULTS", "pending_pods", "schedule_attempts", "schedule_attempts_total", "scheduling_latency",
    "pod_status_timeline", "exposition",
]

#: the ``queue`` label values of ``scheduler_pending_pods``
QUEUES = ("active", "backoff", "unschedulable", "gated")
#: the ``result`` label values of ``scheduler_schedule_attempts_total``
RESULTS = ("scheduled", "unschedulable", "error")
IN_FLIGHT = "in-flight"


def _none(value: Any) -> Any:
    """NaN / NA / None -> None."""
    if value is None:
        return None
    try:
        return None if pd.isna(value) else value
    except (TypeError, ValueError):
        return value


def _moves(result) -> list[tuple[float, str, Any, Any, str]]:
    moves = result.moves
    return [(float(t), p, _none(a), _none(b), e)
            for t, p, a, b, e in zip(moves["time"], moves["pod"], moves["from"], moves["to"], moves["event"])]


def pending_pods(result) -> pd.DataFrame:
    """``scheduler_pending_pods{queue}`` over virtual time: one column per queue, indexed by ``time``.

    A row per instant at which the queue changed, holding the counts once every
    move of that instant is done (a pod added and popped at the same instant
    never shows as active); a first row at 0 and a last one at the end of the
    run make the step function complete.  In-flight pods are not pending.
    """
    where: dict[str, str | None] = {}
    counts = dict.fromkeys(QUEUES, 0)
    rows: dict[float, dict[str, int]] = {0.0: dict(counts)}
    for time, pod, _, to, _ in _moves(result):
        before = where.get(pod)
        if before in counts:
            counts[before] -= 1
        if to in counts:
            counts[to] += 1
        where[pod] = to
        rows[time] = dict(counts)
    end = float(result.end_time)
    if end not in rows and end > max(rows):
        rows[end] = dict(counts)
    df = pd.DataFrame.from_dict(rows, orient="index", columns=list(QUEUES)).sort_index()
    df.index.name = "time"
    return df.astype("int64")


def _scheduler(source):
    if source is None:
        return None
    return getattr(source, "scheduler", source)


def _outcomes_by_pod(source) -> dict[str, list[str]]:
    """Each pod's finished attempts, in order, from the scheduler's results: scheduled,
    unschedulable or error (a Permit ``Wait`` ends later, with the result of the wait)."""
    scheduler = _scheduler(source)
    out: dict[str, list[str]] = {}
    if scheduler is None:
        return out
    for r in scheduler.results:
        if r.status.code == Code.Wait or (r.node is None and r.message == "SchedulingGated"):
            continue
        if r.node is not None:
            label = "scheduled"
        elif r.status.code == Code.Error:
            label = "error"
        else:
            label = "unschedulable"
        out.setdefault(r.pod, []).append(label)
    return out


def schedule_attempts(result, scheduler=None) -> pd.DataFrame:
    """Every scheduling attempt of the run: ``pod``, ``attempt`` (1, 2, ...), ``popped`` (the time
    the pod left the queue), ``finished`` (when it was bound or went back; NaN while still in
    flight, e.g. waiting at Permit) and ``result``.

    Without ``scheduler`` (a :class:`~kschedlab.scheduler.schedule_one.Scheduler`, or the
    :class:`~kschedlab.sim.engine.Simulation` that holds it) a failed attempt
    is ``unschedulable``: the queue's history does not say whether it ended in
    an error.  A pod deleted while in flight ends its attempt with no result.
    """
    outcomes = _outcomes_by_pod(scheduler)
    used: dict[str, int] = {}
    open_attempts: dict[str, dict] = {}
    rows: list[dict] = []
    for time, pod, src, to, event in _moves(result):
        if to == IN_FLIGHT:
            n = sum(1 for r in rows if r["pod"] == pod) + 1
            row = {"pod": pod, "attempt": n, "popped": time, "finished": math.nan, "result": None}
            rows.append(row)
            open_attempts[pod] = row
        elif src == IN_FLIGHT and pod in open_attempts:
            row = open_attempts.pop(pod)
            row["finished"] = time
            if to is None and event == "Delete":
                continue
            label = "scheduled" if to is None else "unschedulable"
            known = outcomes.get(pod)
            if known is not None and used.get(pod, 0) < len(known):
                label = known[used.get(pod, 0)]
                used[pod] = used.get(pod, 0) + 1
            row["result"] = label
    return pd.DataFrame(rows, columns=["pod", "attempt", "popped", "finished", "result"])


def schedule_attempts_total(result, scheduler=None) -> pd.DataFrame:
    """``scheduler_schedule_attempts_total{result}``: cumulative counts indexed by the time each
    attempt finished (one row per instant, plus 0 and the end of the run)."""
    attempts = schedule_attempts(result, scheduler)
    done = attempts[attempts["result"].notna()].sort_values("finished", kind="stable")
    counts = dict.fromkeys(RESULTS, 0)
    rows: dict[float, dict[str, int]] = {0.0: dict(counts)}
    for time, label in zip(done["finished"], done["result"]):
        counts[label] += 1
        rows[float(time)] = dict(counts)
    end = float(result.end_time)
    if end > max(rows):
        rows[end] = dict(counts)
    df = pd.DataFrame.from_dict(rows, orient="index", columns=list(RESULTS)).sort_index()
    df.index.name = "time"
    return df.astype("int64")


def _first_move(result) -> dict[str, dict[str, float]]:
    """pod -> {queue: first time the pod entered it}."""
    out: dict[str, dict[str, float]] = {}
    for time, pod, _, to, _ in _moves(result):
        if to is not None:
            out.setdefault(pod, {}).setdefault(to, time)
    return out


def scheduling_latency(result) -> pd.DataFrame:
    """Per pod: ``created``, ``enqueued`` (first entry into activeQ, i.e. the PreEnqueue
    plugins let it through: upstream's ``InitialAttemptTimestamp``), ``first_attempt``,
    ``scheduled``, ``bound``, ``attempts`` and the latencies

    * ``gated_for`` = enqueued - created (time held by PreEnqueue, e.g. scheduling gates);
    * ``attempt_to_scheduled`` = scheduled - first_attempt;
    * ``sli`` = scheduled - enqueued (``scheduler_pod_scheduling_sli_duration_seconds``);
    * ``created_to_bound`` = bound - created.

    NaN where the pod never got that far.
    """
    pods = result.pods
    first = _first_move(result)
    rows = []
    for rec in pods.to_dict("records"):
        pod = rec["pod"]
        created, enqueued = _f(rec.get("created")), _f(first.get(pod, {}).get("active"))
        first_attempt, scheduled, bound = _f(rec.get("first_attempt")), _f(rec.get("scheduled")), _f(rec.get("bound"))
        rows.append({"pod": pod, "created": created, "enqueued": enqueued, "first_attempt": first_attempt,
                     "scheduled": scheduled, "bound": bound, "attempts": int(rec.get("attempts") or 0),
                     "gated_for": enqueued - created, "attempt_to_scheduled": scheduled - first_attempt,
                     "sli": scheduled - enqueued, "created_to_bound": bound - created})
    columns = ["pod", "created", "enqueued", "first_attempt", "scheduled", "bound", "attempts", "gated_for",
               "attempt_to_scheduled", "sli", "created_to_bound"]
    return pd.DataFrame(rows, columns=columns)


def _f(value) -> float:
    value = _none(value)
    return math.nan if value is None else float(value)


def pod_status_timeline(result) -> pd.DataFrame:
    """What ``kubectl get pods`` shows in STATUS for each pod over virtual time.

    ``SchedulingGated`` from creation while the pod is held by PreEnqueue (the
    API server set that ``PodScheduled`` condition at creation, and it stays
    until the scheduler tries the pod), ``Pending`` while it waits for a node,
    ``Running`` from the moment it is bound (the simulation has no kubelet: a
    bound pod is taken to start at once), ``Terminating`` once preempted and
    ``Completed`` when its run duration is over.  Columns ``time``, ``pod``,
    ``status``; a row per change.
    """
    first = _first_move(result)
    rows = []
    for rec in result.pods.to_dict("records"):
        pod = rec["pod"]
        created = _f(rec.get("created"))
        moves = first.get(pod, {})
        events: list[tuple[float, int, str]] = []
        gated = "gated" in moves and moves["gated"] <= min(moves.values())
        events.append((created, 0, "SchedulingGated" if gated else "Pending"))
        if gated and not math.isnan(_f(rec.get("first_attempt"))):
            events.append((_f(rec.get("first_attempt")), 1, "Pending"))
        for column, order, status in (("bound", 2, "Running"), ("preempted", 3, "Terminating"),
                                      ("finished", 4, "Completed")):
            t = _f(rec.get(column))
            if not math.isnan(t):
                events.append((t, order, status))
        final: dict[float, str] = {}
        for t, _, status in sorted(events):
            final[t] = status  # what a watcher sees once the instant is over
        last = None
        for t, status in final.items():
            if status != last:
                rows.append({"time": t, "pod": pod, "status": status})
                last = status
    return pd.DataFrame(rows, columns=["time", "pod", "status"])


def _at(df: pd.DataFrame, at: float | None) -> dict[str, int]:
    if at is None:
        return df.iloc[-1].to_dict()
    upto = df[df.index <= at]
    return upto.iloc[-1].to_dict() if len(upto) else dict.fromkeys(df.columns, 0)


def exposition(result, scheduler=None, at: float | None = None, *, profile: str = "default-scheduler") -> str:
    """The two series at time ``at`` (default: the end of the run) in the Prometheus text format.

    >>> from kschedlab.sim import Simulation
    >>> print(exposition(Simulation().run(until=1)))
    # HELP scheduler_pending_pods [STABLE] Number of pending pods, by the queue type. 'active' means number of pods in activeQ; 'backoff' means number of pods in backoffQ; 'unschedulable' means number of pods in unschedulablePods that the scheduler attempted to schedule and failed; 'gated' is the number of unschedulable pods that the scheduler never attempted to schedule because they are gated.
    # TYPE scheduler_pending_pods gauge
    scheduler_pending_pods{queue="active"} 0
    scheduler_pending_pods{queue="backoff"} 0
    scheduler_pending_pods{queue="gated"} 0
    scheduler_pending_pods{queue="unschedulable"} 0
    # HELP scheduler_schedule_attempts_total [STABLE] Number of attempts to schedule pods, by the result. 'unschedulable' means a pod could not be scheduled, while 'error' means an internal scheduler problem.
    # TYPE scheduler_schedule_attempts_total counter
    scheduler_schedule_attempts_total{profile="default-scheduler",result="error"} 0
    scheduler_schedule_attempts_total{profile="default-scheduler",result="scheduled"} 0
    scheduler_schedule_attempts_total{profile="default-scheduler",result="unschedulable"} 0
    """
    pending = _at(pending_pods(result), at)
    attempts = _at(schedule_attempts_total(result, scheduler), at)
    lines = [
        "# HELP scheduler_pending_pods [STABLE] Number of pending pods, by the queue type. 'active' means number of pods "
        "in activeQ; 'backoff' means number of pods in backoffQ; 'unschedulable' means number of pods in "
        "unschedulablePods that the scheduler attempted to schedule and failed; 'gated' is the number of "
        "unschedulable pods that the scheduler never attempted to schedule because they are gated.",
        "# TYPE scheduler_pending_pods gauge",
        *(f'scheduler_pending_pods{{queue="{q}"}} {int(pending[q])}' for q in sorted(QUEUES)),
        "# HELP scheduler_schedule_attempts_total [STABLE] Number of attempts to schedule pods, by the result. "
        "'unschedulable' means a pod could not be scheduled, while 'error' means an internal scheduler problem.",
        "# TYPE scheduler_schedule_attempts_total counter",
        *(f'scheduler_schedule_attempts_total{{profile="{profile}",result="{r}"}} {int(attempts[r])}'
          for r in sorted(RESULTS)),
    ]
    return "\n".join(lines)
