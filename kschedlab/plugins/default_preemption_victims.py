"""DefaultPreemption's arithmetic victim search over many nodes at once.

When every Filter plugin left after PreFilter either ignores the node's pods or is
NodeResourcesFit (see ``DefaultPreemption._victims_by_resources``), choosing the victims on a
node is upstream's ``SelectVictimsOnNode`` loop on numbers: remove every pod of lower priority,
then add them back one at a time -- PDB-violating ones first, each group most important first
(higher priority, then earlier start) -- keeping each one with which the preemptor still fits.
:func:`reprieve_rows` runs that loop for all the dry run's nodes together: one numpy step per
position in the nodes' ordered victim lists instead of one Filter run per victim and node.

:class:`VictimTable` keeps each node's pods as padded arrays (priority, requests per resource),
rebuilt for a node only when its row version changed, so a preemption reads the pods of the
nodes it visits without walking them. Start times are read on every call (a pod's
``status.startTime`` may be set in place once it runs).

>>> from kschedlab.api.core import Node, Pod
>>> from kschedlab.cluster import Cluster
>>> from kschedlab.framework.types import PodInfo
>>> node = {"status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}
>>> def pod(name, cpu, prio):
...     return Pod.model_validate({"metadata": {"name": name, "namespace": "default"}, "spec": {
...         "nodeName": "n", "priority": prio, "containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]}})
>>> c = Cluster([Node.model_validate({"metadata": {"name": "n"}, **node}),
...              pod("a", "1", 1), pod("b", "2", 5), pod("c", "1", 3)])
>>> preemptor = PodInfo.of(pod("p", "3", 10))
>>> table = VictimTable()
>>> table.sync(c.snapshot, np.array([0]), ["cpu"])
>>> (victims, violating, summary), = reprieve_rows(table, c.snapshot, np.array([0]), preemptor, ["cpu"],
...                                       np.zeros((1, 1), np.int64), np.zeros(1, np.int64), [], 0)
>>> [v.key for v in victims], violating      # b (priority 5) goes; c is reprieved first, then a does not fit
(['default/b', 'default/a'], 0)
"""

from __future__ import annotations

import numpy as np

from kschedlab.eviction.disruption import selects_for_preemption
from kschedlab.framework.preemption import MAX_INT32, VictimSummary, start_time_ns

__all__ = ["VictimTable", "reprieve_rows"]


class VictimTable:
    """Per node row: its pods (in the snapshot's order), their priorities and their requests of
    the resources asked for so far, as ``[rows, K]`` arrays padded to the most pods on a node;
    a row is read again from the snapshot when its ``row_version`` moved."""

    def __init__(self) -> None:
        self.snapshot = None
        self.pods: list[tuple] = []
        self.version = np.full(0, -1, np.int64)
        self.valid = np.zeros((0, 0), bool)
        self.prio = np.zeros((0, 0), np.int64)
        self.req: dict[str, np.ndarray] = {}

    def _reset(self, snapshot, rows: int, width: int, names) -> None:
        self.snapshot = snapshot
        self.pods = [()] * rows
        self.version = np.full(rows, -1, np.int64)
        self.valid = np.zeros((rows, width), bool)
        self.prio = np.zeros((rows, width), np.int64)
        self.req = {name: np.zeros((rows, width), np.int64) for name in names}

    def sync(self, snapshot, rows: np.ndarray, names) -> None:
        """Make ``rows`` current for ``snapshot`` with the requests of ``names`` kept."""
        size = len(snapshot.row_version)
        if snapshot is not self.snapshot or size > len(self.version) or any(n not in self.req for n in names):
            self._reset(snapshot, size, max(self.valid.shape[1], 1), {*self.req, *names})
        stale = rows[self.version.take(rows) != snapshot.row_version.take(rows)]
        if not len(stale):
            return
        stale_list = stale.tolist()
        widest = max(len(snapshot.pods[r]) for r in stale_list)
        if widest > self.valid.shape[1]:
            grow = max(widest, 2 * self.valid.shape[1])
            self.valid = _widen(self.valid, grow)
            self.prio = _widen(self.prio, grow)
            self.req = {n: _widen(a, grow) for n, a in self.req.items()}
        self.valid[stale] = False
        self.prio[stale] = 0
        for a in self.req.values():
            a[stale] = 0
        req_items = list(self.req.items())
        for r in stale_list:
            pods = tuple(snapshot.pods[r])
            self.pods[r] = pods
            n = len(pods)
            if not n:
                continue
            self.valid[r, :n] = True
            self.prio[r, :n] = [p.priority for p in pods]
            for name, a in req_items:
                a[r, :n] = [p.requests.get(name, 0) for p in pods]
        self.version[stale] = snapshot.row_version.take(stale)


def _widen(a: np.ndarray, width: int) -> np.ndarray:
    out = np.zeros((a.shape[0], width), a.dtype)
    out[:, : a.shape[1]] = a
    return out


def _start_times(pods: list) -> tuple[np.ndarray, np.ndarray]:
    """``GetPodStartTime`` of each pod in ns, and which pods have not started (0 there: such a
    pod counts as starting now)."""
    raw = [None if (s := p.pod.status) is None else s.start_time for p in pods]
    unstarted = np.array([t is None for t in raw], bool)
    times = np.zeros(len(pods), np.int64)
    for i in np.flatnonzero(~unstarted).tolist():
        times[i] = start_time_ns(pods[i], 0)
    return times, unstarted


def _permuted(items: list, order: np.ndarray) -> list:
    """``items`` in ``order`` (the list itself when the order is the identity)."""
    if (np.diff(order) == 1).all():
        return items
    return [items[i] for i in order.tolist()]


def reprieve_rows(table: VictimTable, snapshot, rows: np.ndarray, pod_info, checked: list[str],
                  extra_used: np.ndarray, extra_count: np.ndarray, pdbs: list, now_ns: int) -> list:
    """Upstream's reprieve loop on the requests of ``rows`` (synced in ``table``) for the preemptor
    ``pod_info``: per row ``(victims most important first, number of PDB-violating victims)``, or
    None where the preemptor does not fit even with every lower-priority pod gone (or none is
    there). ``checked`` are the resources NodeResourcesFit compares; ``extra_used`` ([checked,
    rows]) and ``extra_count`` what nominated pods of equal or higher priority add to each node."""
    n_rows = len(rows)
    priority = pod_info.priority
    valid = table.valid[rows]
    pot = valid & (table.prio[rows] < priority)
    npot = pot.sum(axis=1)
    res_index = snapshot.res_index
    zeros = np.zeros(n_rows, np.int64)
    reqs = [table.req[name][rows] for name in checked]
    alloc = np.stack([zeros] + [zeros if (c := res_index.get(n)) is None else snapshot.allocatable[c].take(rows)
                                for n in checked])[1:]
    used = np.stack([zeros] + [(zeros if (c := res_index.get(n)) is None else snapshot.requested[c].take(rows))
                               - np.where(pot, r, 0).sum(axis=1) for n, r in zip(checked, reqs)])[1:]
    used = used + extra_used
    count = snapshot.pod_count.take(rows) - npot + extra_count
    max_pods = snapshot.allocatable[res_index["pods"]].take(rows)
    want = np.array([pod_info.requests[n] for n in checked], np.int64)[:, None]
    covered = (npot > 0) & (count + 1 <= max_pods) & (want <= alloc - used).all(axis=0)
    # the potential victims, flat, grouped by row in the node's pod order
    ri, ki = np.nonzero(pot & covered[:, None])
    plists = [table.pods[r] for r in rows.tolist()]
    flat = [plists[r][k] for r, k in zip(ri.tolist(), ki.tolist())]
    out: list = [None] * n_rows
    if not flat:
        return out
    fprio = table.prio[rows[ri], ki]
    times, unstarted = _start_times(flat)
    starts = np.where(unstarted, now_ns, times)
    order = np.lexsort((ki, starts, -fprio, ri))  # most important first within each row, stable
    ri, ki, fprio, times, unstarted, starts = ri[order], ki[order], fprio[order], times[order], \
        unstarted[order], starts[order]
    flat = _permuted(flat, order)
    violating = np.zeros(len(flat), bool)
    bounds = np.concatenate([[0], np.cumsum(np.bincount(ri, minlength=n_rows))])
    for pdb in pdbs:
        allowed = int(pdb.status.disruptions_allowed or 0) if pdb.status else 0
        disrupted = pdb.status.disrupted_pods if pdb.status is not None else {}
        sel = np.fromiter((selects_for_preemption(pdb, p.pod) and p.pod.metadata.name not in disrupted
                           for p in flat), bool, len(flat))
        used_budget = np.cumsum(sel)
        used_budget -= np.concatenate([[0], used_budget])[bounds[ri]]
        violating |= sel & (used_budget > allowed)
    # upstream's processing order: the violating pods of a row, then the others
    proc = np.lexsort((np.arange(len(flat)), ~violating, ri))
    ri, ki, violating, fprio, times, unstarted, starts = ri[proc], ki[proc], violating[proc], fprio[proc], \
        times[proc], unstarted[proc], starts[proc]
    flat = _permuted(flat, proc)
    slot = np.arange(len(flat)) - bounds[ri]
    width = int(slot.max()) + 1
    present = np.zeros((n_rows, width), bool)
    present[ri, slot] = True
    add = np.zeros((len(checked), n_rows, width), np.int64)
    for i, r in enumerate(reqs):
        add[i, ri, slot] = r[ri, ki]
    victim = np.zeros((n_rows, width), bool)
    for s in range(width):
        a = add[:, :, s]
        fits = present[:, s] & (count + 2 <= max_pods) & (want <= alloc - (used + a)).all(axis=0)
        used += np.where(fits, a, 0)
        count += fits
        victim[:, s] = present[:, s] & ~fits
    is_victim = victim[ri, slot]
    num_violating = np.bincount(ri, weights=is_victim & violating, minlength=n_rows).astype(np.int64)
    mixed = (np.bincount(ri, weights=violating, minlength=n_rows) > 0) & \
        (np.bincount(ri, weights=~violating, minlength=n_rows) > 0)
    chosen = np.flatnonzero(is_victim)
    picked = flat if len(chosen) == len(flat) else [flat[i] for i in chosen.tolist()]
    vrow = ri[chosen]
    per_row = np.bincount(vrow, minlength=n_rows)
    vstart = np.concatenate([[0], np.cumsum(per_row)])
    vbounds = vstart.tolist()
    # what pickOneNodeForPreemption reads of each row's victims (grouped by row: reduceat per group)
    some = np.flatnonzero(per_row)
    first_of = vstart[some]
    vprio = fprio[chosen]
    top = np.full(n_rows, np.iinfo(np.int64).min, np.int64)
    total = np.zeros(n_rows, np.int64)
    earliest = np.full(n_rows, np.iinfo(np.int64).max, np.int64)
    any_started = np.zeros(n_rows, bool)
    any_unstarted = np.zeros(n_rows, bool)
    if len(some):
        top[some] = np.maximum.reduceat(vprio, first_of)
        total[some] = np.add.reduceat(vprio + (MAX_INT32 + 1), first_of)
        at_top = vprio == top[vrow]
        started_top = at_top & ~unstarted[chosen]
        earliest[some] = np.minimum.reduceat(np.where(started_top, times[chosen], np.iinfo(np.int64).max), first_of)
        any_started[some] = np.logical_or.reduceat(started_top, first_of)
        any_unstarted[some] = np.logical_or.reduceat(at_top & unstarted[chosen], first_of)
    nv = num_violating.tolist()
    mixed_list = mixed.tolist()
    columns = (top.tolist(), total.tolist(), earliest.tolist(), any_started.tolist(), any_unstarted.tolist(),
               covered.tolist())
    for r, (hi, tot, first, started, waiting, ok) in enumerate(zip(*columns)):
        if not ok:
            continue
        victims = picked[vbounds[r]:vbounds[r + 1]]
        if mixed_list[r] and len(victims) > 1:  # violating and not: most important first, stable
            key = {id(p): (-p.priority, now_ns if p.pod.status is None or p.pod.status.start_time is None
                           else start_time_ns(p, now_ns)) for p in victims}
            victims.sort(key=lambda p: key[id(p)])
        out[r] = (victims, nv[r], VictimSummary(hi, tot, len(victims), first if started else None, waiting)
                  if victims else None)
    return out
