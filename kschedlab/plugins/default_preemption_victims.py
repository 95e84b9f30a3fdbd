"""DefaultPreemption's arithmetic victim search over many nodes at once.

When every Filter plugin left after PreFilter either ignores the node's pods or is
NodeResourcesFit (see ``DefaultPreemption._victims_by_resources``), choosing the victims on a
node is upstream's ``SelectVictimsOnNode`` loop on numbers: remove every pod of lower priority,
then add them back one at a time -- PDB-violating ones first, each group most important first
(higher priority, then earlier start) -- keeping each one with which the preemptor still fits.
:func:`reprieve_rows` runs that loop for all the dry run's nodes together: one numpy step per
position in the nodes' ordered victim lists instead of one Filter run per victim and node.

:class:`VictimTable` keeps each node's pods as padded arrays (priority, start time, requests per
resource), rebuilt for a node only when its row version changed, so a preemption reads the pods
of the nodes it visits without walking them. A pod's ``status.startTime`` is set in place once it
runs: whoever sets it goes through :meth:`kschedlab.cluster.Cluster.start_pod`, which moves the
row's version.

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
>>> found = reprieve_rows(table, c.snapshot, np.array([0]), preemptor, ["cpu"],
...                       np.zeros((1, 1), np.int64), np.zeros(1, np.int64), [], 0)
>>> [v.key for v in found.pods(0)], int(found.num_violating[0])  # b (priority 5) goes; c is reprieved, a not
(['default/b', 'default/a'], 0)
"""

from __future__ import annotations

import numpy as np

from kschedlab.eviction.disruption import selects_for_preemption
from kschedlab.framework.preemption import MAX_INT32, VictimRows, start_time_ns

__all__ = ["VictimTable", "reprieve_rows"]


class VictimTable:
    """Per node row: its pods (in the snapshot's order), their priorities, start times (ns; and
    whether they started) and their requests of the resources asked for so far, as ``[rows, K]``
    arrays padded to the most pods on a node; a row is read again from the snapshot when its
    ``row_version`` moved."""

    def __init__(self) -> None:
        self.snapshot = None
        self.pods: list[tuple] = []
        self.version = np.full(0, -1, np.int64)
        self.valid = np.zeros((0, 0), bool)
        self.prio = np.zeros((0, 0), np.int64)
        self.start = np.zeros((0, 0), np.int64)
        self.started = np.zeros((0, 0), bool)
        self.req: dict[str, np.ndarray] = {}

    def _reset(self, snapshot, rows: int, width: int, names) -> None:
        self.snapshot = snapshot
        self.pods = [()] * rows
        self.version = np.full(rows, -1, np.int64)
        self.valid = np.zeros((rows, width), bool)
        self.prio = np.zeros((rows, width), np.int64)
        self.start = np.zeros((rows, width), np.int64)
        self.started = np.zeros((rows, width), bool)
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
        self.pods = list(self.pods)  # a new list: answers handed out keep the one they read
        widest = max(len(snapshot.pods[r]) for r in stale_list)
        if widest > self.valid.shape[1]:
            grow = max(widest, 2 * self.valid.shape[1])
            self.valid, self.prio = _widen(self.valid, grow), _widen(self.prio, grow)
            self.start, self.started = _widen(self.start, grow), _widen(self.started, grow)
            self.req = {n: _widen(a, grow) for n, a in self.req.items()}
        for a in (self.valid, self.prio, self.start, self.started, *self.req.values()):
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
            for k, p in enumerate(pods):
                if (s := p.pod.status) is not None and s.start_time is not None:
                    self.started[r, k] = True
                    self.start[r, k] = start_time_ns(p, 0)
            for name, a in req_items:
                a[r, :n] = [p.requests.get(name, 0) for p in pods]
        self.version[stale] = snapshot.row_version.take(stale)


def _widen(a: np.ndarray, width: int) -> np.ndarray:
    out = np.zeros((a.shape[0], width), a.dtype)
    out[:, : a.shape[1]] = a
    return out


def reprieve_rows(table: VictimTable, snapshot, rows: np.ndarray, pod_info, checked: list[str],
                  extra_used: np.ndarray, extra_count: np.ndarray, pdbs: list, now_ns: int) -> VictimRows:
    """Upstream's reprieve loop on the requests of ``rows`` (synced in ``table``) for the preemptor
    ``pod_info``: per row, the victims most important first and the number of PDB-violating ones
    (not found where the preemptor does not fit even with every lower-priority pod gone, or none
    is there). ``checked`` are the resources NodeResourcesFit compares; ``extra_used`` ([checked,
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
    node_pods = table.pods  # (sync replaces the list, so these stay the pods read for this call)
    if not len(ri):
        return VictimRows.none(n_rows)
    at = rows[ri]
    fprio = table.prio[at, ki]
    started = table.started[at, ki]
    times = table.start[at, ki]
    starts = np.where(started, times, now_ns)
    # most important first within each row, stable (often the node's pod order already)
    same_row = ri[1:] == ri[:-1]
    later = (fprio[1:] > fprio[:-1]) | ((fprio[1:] == fprio[:-1]) & (starts[1:] < starts[:-1]))
    if (same_row & later).any():
        order = np.lexsort((ki, starts, -fprio, ri))
        ri, ki, fprio, times, started, starts = ri[order], ki[order], fprio[order], times[order], \
            started[order], starts[order]
    violating = np.zeros(len(ri), bool)
    bounds = np.concatenate([[0], np.cumsum(np.bincount(ri, minlength=n_rows))])
    if pdbs:
        flat = [node_pods[r][k] for r, k in zip(rows[ri].tolist(), ki.tolist())]
        for pdb in pdbs:
            allowed = int(pdb.status.disruptions_allowed or 0) if pdb.status else 0
            disrupted = pdb.status.disrupted_pods if pdb.status is not None else {}
            sel = np.fromiter((selects_for_preemption(pdb, p.pod) and p.pod.metadata.name not in disrupted
                               for p in flat), bool, len(flat))
            used_budget = np.cumsum(sel)
            used_budget -= np.concatenate([[0], used_budget])[bounds[ri]]
            violating |= sel & (used_budget > allowed)
    # upstream's processing order: the violating pods of a row, then the others
    if violating.any():
        proc = np.lexsort((np.arange(len(ri)), ~violating, ri))
        ri, ki, violating, fprio, times, started, starts = ri[proc], ki[proc], violating[proc], fprio[proc], \
            times[proc], started[proc], starts[proc]
    slot = np.arange(len(ri)) - bounds[ri]
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
    # the victims of a row most important first (upstream sorts them again when the row had both
    # violating and other pods; ties keep the processing order)
    chosen = np.flatnonzero(is_victim)
    if violating.any():
        num_violating = np.bincount(ri, weights=is_victim & violating, minlength=n_rows).astype(np.int64)
        chosen = chosen[np.lexsort((chosen, starts[chosen], -fprio[chosen], ri[chosen]))]
    else:
        num_violating = np.zeros(n_rows, np.int64)
    vrow = ri[chosen]
    per_row = np.bincount(vrow, minlength=n_rows)
    vstart = np.concatenate([[0], np.cumsum(per_row)])
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
        started_top = at_top & started[chosen]
        earliest[some] = np.minimum.reduceat(np.where(started_top, times[chosen], np.iinfo(np.int64).max), first_of)
        any_started[some] = np.logical_or.reduceat(started_top, first_of)
        any_unstarted[some] = np.logical_or.reduceat(at_top & ~started[chosen], first_of)
    vslots = ki[chosen]

    def pods(i: int) -> list:
        on_node = node_pods[int(rows[i])]
        return [on_node[k] for k in vslots[vstart[i]:vstart[i + 1]].tolist()]

    return VictimRows(covered & (per_row > 0), num_violating, top, total, per_row.astype(np.int64), earliest,
                      any_started, any_unstarted, pods)
