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
    rows]) and ``extra_count`` what nominated pods of equal or higher priority add to each node.
    Works on ``[rows, K]`` arrays whose columns are put in each row's processing order."""
    n_rows = len(rows)
    prio = table.prio[rows]
    pot = table.valid[rows] & (prio < pod_info.priority)
    npot = pot.sum(axis=1)
    res_index = snapshot.res_index
    zeros = np.zeros(n_rows, np.int64)
    cols = [res_index.get(n) for n in checked]
    reqs = np.stack([table.req[name][rows] for name in checked])  # [checked, rows, K]
    alloc = np.stack([zeros if c is None else snapshot.allocatable[c].take(rows) for c in cols])
    used = np.stack([zeros if c is None else snapshot.requested[c].take(rows) for c in cols]) \
        - np.where(pot, reqs, 0).sum(axis=2) + extra_used
    count = snapshot.pod_count.take(rows) - npot + extra_count
    max_pods = snapshot.allocatable[res_index["pods"]].take(rows)
    want = np.array([pod_info.requests[n] for n in checked], np.int64)[:, None]
    covered = (npot > 0) & (count + 1 <= max_pods) & (want <= alloc - used).all(axis=0)
    pot &= covered[:, None]
    if not pot.any():
        return VictimRows.none(n_rows)
    started, times = table.started[rows], table.start[rows]
    starts = np.where(started, times, now_ns)
    slots = np.broadcast_to(np.arange(pot.shape[1]), pot.shape)
    # each row's potential victims first, most important first (higher priority, earlier start), ties
    # in the node's pod order: often the node's order already
    pairs = pot[:, 1:] & pot[:, :-1]
    later = (prio[:, 1:] > prio[:, :-1]) | ((prio[:, 1:] == prio[:, :-1]) & (starts[:, 1:] < starts[:, :-1]))
    if (pot[:, 1:] & ~pot[:, :-1]).any() or (pairs & later).any():
        order = np.lexsort((slots, starts, -prio, ~pot))
        prio, pot, started, times, starts, slots = (np.take_along_axis(x, order, 1)
                                                    for x in (prio, pot, started, times, starts, slots))
        reqs = np.take_along_axis(reqs, order[None], 2)
    width = int(pot.sum(axis=1).max())
    prio, pot, started, times, starts, slots, reqs = prio[:, :width], pot[:, :width], started[:, :width], \
        times[:, :width], starts[:, :width], slots[:, :width], reqs[:, :, :width]
    node_pods = table.pods  # (sync replaces the list, so these stay the pods read for this call)
    violating = np.zeros(pot.shape, bool)
    if pdbs:
        ri, ci = np.nonzero(pot)
        flat = [node_pods[r][k] for r, k in zip(rows[ri].tolist(), slots[ri, ci].tolist())]
        for pdb in pdbs:
            allowed = int(pdb.status.disruptions_allowed or 0) if pdb.status else 0
            disrupted = pdb.status.disrupted_pods if pdb.status is not None else {}
            sel = np.zeros(pot.shape, bool)
            sel[ri, ci] = np.fromiter((selects_for_preemption(pdb, p.pod) and p.pod.metadata.name not in disrupted
                                       for p in flat), bool, len(flat))
            violating |= sel & (np.cumsum(sel, axis=1) > allowed)
    mixed = bool(violating.any())
    if mixed:  # upstream's processing order: the violating pods of a row, then the others
        proc = np.argsort(np.where(pot, ~violating, 2), axis=1, kind="stable")
        prio, pot, started, times, starts, slots, violating = (np.take_along_axis(x, proc, 1) for x in (
            prio, pot, started, times, starts, slots, violating))
        reqs = np.take_along_axis(reqs, proc[None], 2)
    victim = np.zeros(pot.shape, bool)
    for s in range(width):
        a = reqs[:, :, s]
        fits = pot[:, s] & (count + 2 <= max_pods) & (want <= alloc - (used + a)).all(axis=0)
        used += np.where(fits, a, 0)
        count += fits
        victim[:, s] = pot[:, s] & ~fits
    num_violating = (victim & violating).sum(axis=1)
    if mixed:  # the victims most important first again (ties keep the processing order)
        again = np.lexsort((np.broadcast_to(np.arange(width), victim.shape), starts, -prio, ~victim))
        prio, started, times, slots, victim = (np.take_along_axis(x, again, 1)
                                               for x in (prio, started, times, slots, victim))
    # what pickOneNodeForPreemption reads of each row's victims
    per_row = victim.sum(axis=1)
    top = np.where(victim, prio, np.iinfo(np.int64).min).max(axis=1)
    total = np.where(victim, prio + (MAX_INT32 + 1), 0).sum(axis=1)
    at_top = victim & (prio == top[:, None])
    started_top = at_top & started
    earliest = np.where(started_top, times, np.iinfo(np.int64).max).min(axis=1)
    vslots = slots[victim]  # row by row, most important first
    vstart = np.concatenate(([0], np.cumsum(per_row)))

    def pods(i: int) -> list:
        on_node = node_pods[int(rows[i])]
        return [on_node[k] for k in vslots[vstart[i]:vstart[i + 1]].tolist()]

    return VictimRows(covered & (per_row > 0), num_violating, top, total, per_row, earliest,
                      started_top.any(axis=1), (at_top & ~started).any(axis=1), pods)
