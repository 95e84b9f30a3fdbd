"""Watch pods change state while a :class:`~kschedlab.sim.engine.Simulation` runs.

:func:`watch` advances the simulation to each time of a grid and records, for
every pod the cluster has (or had), what an observer of the API would see:

=============  ===========================================================
state          meaning
=============  ===========================================================
``pending``    not bound, no ``status.nominatedNodeName``
``nominated``  not bound, ``status.nominatedNodeName`` set (``node`` = it)
``running``    bound (``spec.nodeName`` = ``node``)
``terminating`` bound and ``metadata.deletionTimestamp`` set: a victim in
               its grace period, still holding its node's resources
``gone``       deleted (a victim after its grace period, a finished pod)
=============  ===========================================================

A pod appears from the first grid time after it is created.  The grid should
be finer than the interesting delays (grace periods, back-off); transitions
between two grid times show at the later one.

>>> from kschedlab.api.core import Node, Pod
>>> from kschedlab.sim import Simulation
>>> node = Node.model_validate({"metadata": {"name": "n1"}, "status": {"allocatable": {"cpu": "1", "pods": "9"}}})
>>> def pod(name, priority, grace=None):
...     spec = {"priority": priority, "containers": [{"name": "c", "resources": {"requests": {"cpu": "800m"}}}]}
...     if grace is not None:
...         spec["terminationGracePeriodSeconds"] = grace
...     return Pod.model_validate({"metadata": {"name": name, "namespace": "default"}, "spec": spec})
>>> sim = Simulation([node])
>>> sim.create_pod(pod("low", 10, grace=20), at=0)
>>> sim.create_pod(pod("high", 1000), at=5)
>>> states = watch(sim, until=30, step=5)
>>> print(transitions(states).to_string(index=False))
 time         pod       state node
  0.0 default/low     running   n1
  5.0 default/low terminating   n1
  5.0 default/high   nominated   n1
 25.0 default/low        gone
 25.0 default/high     running   n1
"""

from __future__ import annotations

import math

import pandas as pd

__all__ = ["STATES", "pod_state", "watch", "transitions"]

STATES = ("pending", "nominated", "running", "terminating", "gone")
COLUMNS = ["time", "pod", "state", "node"]


def pod_state(pod) -> tuple[str, str]:
    """(state, node) of one pod object, as in the table above (never ``gone``)."""
    if pod.spec.node_name:
        if pod.metadata.deletion_timestamp is not None:
            return "terminating", pod.spec.node_name
        return "running", pod.spec.node_name
    nominated = pod.status.nominated_node_name if pod.status is not None else None
    if nominated:
        return "nominated", nominated
    return "pending", ""


def _snapshot(sim, time: float, seen: dict[str, None], rows: list[dict]) -> None:
    pods = sim.cluster.pods
    for key in pods:
        seen.setdefault(key, None)
    for key in seen:
        pod = pods.get(key)
        state, node = pod_state(pod) if pod is not None else ("gone", "")
        rows.append({"time": time, "pod": key, "state": state, "node": node})


def watch(sim, until: float, *, step: float = 1.0, start: float | None = None) -> pd.DataFrame:
    """Run ``sim`` up to ``until`` and return one row per (grid time, pod): ``time``, ``pod``,
    ``state`` and ``node`` (the bound node, or the nominated one; "" otherwise).

    The grid is ``start`` (default: the simulation's current time), ``start + step``, ...,
    ``until``.  The simulation is really run (up to ``until``; its clock stops earlier when
    nothing is left to happen); call ``sim.result()`` afterwards for its usual tables.
    """
    if step <= 0:
        raise ValueError("step must be > 0")
    t0 = float(sim.now if start is None else start)
    count = int(math.floor((float(until) - t0) / step + 1e-9))
    rows: list[dict] = []
    seen: dict[str, None] = {}
    for i in range(count + 1):
        t = t0 + i * step
        sim.run(until=t)  # returns early (clock before t) once nothing is left to happen
        _snapshot(sim, t, seen, rows)
    return pd.DataFrame.from_records(rows, columns=COLUMNS)


def transitions(states: pd.DataFrame) -> pd.DataFrame:
    """Only the rows where a pod's (state, node) changes (its first row included), in time order."""
    if states.empty:
        return states.copy()
    prev = states.groupby("pod", sort=False)[["state", "node"]].shift()
    changed = (states["state"] != prev["state"]) | (states["node"] != prev["node"])
    return states[changed].reset_index(drop=True)
