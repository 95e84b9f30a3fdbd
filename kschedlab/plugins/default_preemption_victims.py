"""DefaultPreemption's arithmetic victim search over many nodes at once.

When every Filter plugin left after PreFilter either ignores the node's pods or is
NodeResourcesFit (see ``DefaultPreemption._victims_by_resources``), choosing the victims on a
node is upstream's ``SelectVictimsOnNode`` loop on numbers: remove every pod of lower priority,
then add them back one at a time -- PDB-violating ones first, each group most important first
(higher priority, then earlier start) -- keeping each one with which the preemptor still fits.
:func:`reprieve_rows` runs that loop for all the dry run's nodes together: one numpy step per
position in the nodes' ordered victim lists instead of one Filter run per victim and node.

:class:`VictimTable` keeps each node's pods as one padded ``[rows, K, fields]`` array (priority,
start time, state, requests per resource), rebuilt for a node only when its row version changed;
a dry-run span reads its nodes' pods with one gather (:class:`Span`) instead of walking them. A pod's ``status.startTime`` is set in place once it
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
>>> span = Span(table, np.array([0]), preemptor.priority, ["cpu"])
>>> span.npot.tolist(), span.held.tolist()  # three pods below priority 10, none staying
([3], [[0]])
>>> found = reprieve_rows(span, np.array([0]), c.snapshot, preemptor, ["cpu"],
...                       np.zeros((1, 1), np.int64), np.zeros(1, np.int64), [], 0)
>>> [v.key for v in found.pods(0)], int(found.num_violating[0])  # b (priority 5) goes; c is reprieved, a not
(['default/b', 'default/a'], 0)
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import itemgetter

import numpy as np

from kschedlab.eviction.disruption import selects_for_preemption
from kschedlab.framework.preemption import MAX_INT32, VictimRows, start_time_ns

__all__ = ["Span", "VictimTable", "reprieve_rows"]


class VictimTable:
    """Per node row: its pods (in the snapshot's order) as one ``[fields, rows, K]`` array padded
    to the most pods on a node, the fields being priority, start time (ns), state (0 no pod, 1
    placed, 2 started) and the requests of the resources asked for so far (``names``, from field
    3 on); a row is read again from the snapshot when its ``row_version`` moved. A span of the dry
    run reads its rows with one gather (:class:`Span`)."""

    PRIO, START, STATE, REQ = 0, 1, 2, 3

    def __init__(self) -> None:
        self.snapshot = None
        self.pods: list[tuple] = []
        self.version = np.full(0, -1, np.int64)
        self.names: list[str] = []
        self.data = np.zeros((self.REQ, 0, 0), np.int64)

    def _reset(self, snapshot, rows: int, width: int, names: list[str]) -> None:
        self.snapshot = snapshot
        self.pods = [()] * rows
        self.version = np.full(rows, -1, np.int64)
        self.names = names
        self.data = np.zeros((self.REQ + len(names), rows, width), np.int64)

    def fields(self, names) -> list[int]:
        """The fields of the requests of ``names`` (kept by :meth:`sync`)."""
        return [self.REQ + self.names.index(n) for n in names]

    def sync(self, snapshot, rows: np.ndarray, names) -> None:
        """Make ``rows`` current for ``snapshot`` with the requests of ``names`` kept."""
        size = len(snapshot.row_version)
        if snapshot is not self.snapshot or size > len(self.version) or any(n not in self.names for n in names):
            self._reset(snapshot, size, max(self.data.shape[2], 1), list(dict.fromkeys([*self.names, *names])))
        stale = rows[self.version.take(rows) != snapshot.row_version.take(rows)]
        if not len(stale):
            return
        stale_list = stale.tolist()
        widest = max(len(snapshot.pods[r]) for r in stale_list)
        width = self.data.shape[2]
        if widest > width:
            grown = np.zeros((*self.data.shape[:2], max(widest, 2 * width)), np.int64)
            grown[:, :, :width] = self.data
            self.data = grown
        data, names = self.data, self.names
        data[:, stale] = 0
        at_row: list[int] = []
        at_slot: list[int] = []
        fields: list[list[int]] = []
        for r in stale_list:
            pods = self.pods[r] = tuple(snapshot.pods[r])
            for k, p in enumerate(pods):
                req = p.requests
                s = p.pod.status
                if s is not None and s.start_time is not None:
                    fields.append([p.priority, start_time_ns(p, 0), 2, *[req.get(n, 0) for n in names]])
                else:
                    fields.append([p.priority, 0, 1, *[req.get(n, 0) for n in names]])
                at_row.append(r)
                at_slot.append(k)
        if fields:
            data[:, at_row, at_slot] = np.array(fields, np.int64).T
        self.version[stale] = snapshot.row_version.take(stale)


class Span:
    """The rows of one dry-run span read off a synced :class:`VictimTable` with one gather, for a
    preemptor of ``priority``: per row and slot (``[rows, K]``) the priority, start time, whether it
    started, whether it is of lower priority, and the requests of ``checked`` (``[checked, rows,
    K]``); per row the lower-priority pods (``npot``), what they ask for (``lower_req``,
    ``[checked, rows]``), and what the other pods ask for (``held``) and their count (``staying``).

    Sums and extremes along a row are matrix products and elementwise steps over the few slots:
    numpy's reductions along a short axis cost ten times as much on arrays of this shape."""

    def __init__(self, table: VictimTable, rows: np.ndarray, priority: int, checked: list[str]):
        block = table.data.take(rows, axis=1)  # the one gather: [fields, rows, K]
        self.rows = rows
        self.pods = _pick(table.pods, rows)  # (sync replaces a row's tuple: these stay the pods read here)
        self.prio = block[VictimTable.PRIO]
        self.start = block[VictimTable.START]
        state = block[VictimTable.STATE]
        present = state != 0
        self.started = state == 2
        self.lower = present & (self.prio < priority)
        self.req = block[table.fields(checked)]
        ones = np.ones(block.shape[2], np.int64)
        self.npot = self.lower @ ones
        self.lower_req = (self.req * self.lower) @ ones
        self.held = self.req @ ones - self.lower_req  # (empty slots hold zeros)
        self.staying = present @ ones - self.npot


def _pick(items: Sequence, rows: np.ndarray) -> tuple:
    """``items`` at ``rows``, as a tuple."""
    if len(rows) < 2:
        return tuple(items[r] for r in rows.tolist())
    return itemgetter(*rows.tolist())(items)


def _row_extreme(ufunc, x: np.ndarray) -> np.ndarray:
    """``ufunc`` (maximum or minimum) along each row of ``x``: column by column when the rows are short."""
    if x.shape[1] > 8:
        return ufunc.reduce(x, axis=1)
    out = x[:, 0]
    for k in range(1, x.shape[1]):
        out = ufunc(out, x[:, k])
    return out


def reprieve_rows(span: Span, take: np.ndarray, snapshot, pod_info, checked: list[str],
                  extra_used: np.ndarray, extra_count: np.ndarray, pdbs: list, now_ns: int) -> VictimRows:
    """Upstream's reprieve loop on the requests of the span's rows at positions ``take`` for the
    preemptor ``pod_info``: per row, the victims most important first and the number of
    PDB-violating ones (not found where the preemptor does not fit even with every lower-priority
    pod gone, or none is there). ``checked`` are the resources NodeResourcesFit compares (the
    span's); ``extra_used`` ([checked, rows]) and ``extra_count`` what nominated pods of equal or
    higher priority add to each node. Works on ``[rows, K]`` arrays whose columns are put in each
    row's processing order."""
    if len(take) == len(span.rows):
        rows, prio, times, started, pot = span.rows, span.prio, span.start, span.started, span.lower
        reqs, npot, lower_req = span.req, span.npot, span.lower_req
    else:
        rows, prio, times, started, pot = (x[take] for x in (span.rows, span.prio, span.start, span.started,
                                                              span.lower))
        reqs, npot, lower_req = span.req[:, take], span.npot[take], span.lower_req[:, take]
    n_rows = len(rows)
    res_index = snapshot.res_index
    cols = [res_index.get(n) for n in checked]
    alloc_all, requested_all = snapshot.allocatable.take(rows, axis=1), snapshot.requested.take(rows, axis=1)
    if None in cols:
        zeros = np.zeros(n_rows, np.int64)
        alloc = np.stack([zeros if c is None else alloc_all[c] for c in cols])  # [checked, rows]
        used = np.stack([zeros if c is None else requested_all[c] for c in cols])
    else:
        alloc, used = alloc_all[cols], requested_all[cols]
    used = used - lower_req + extra_used
    count = snapshot.pod_count.take(rows) - npot + extra_count
    max_pods = alloc_all[res_index["pods"]]
    want = np.array([pod_info.requests[n] for n in checked], np.int64)[:, None]
    covered = (npot > 0) & (count + 1 <= max_pods) & (want <= alloc - used).all(axis=0)
    if not covered.any():
        return VictimRows.none(n_rows)
    pot = pot & covered[:, None]
    starts = np.where(started, times, now_ns)
    slots = None  # each row's slot at each position, when not the identity
    # each row's potential victims first, most important first (higher priority, earlier start), ties
    # in the node's pod order: often the node's order already
    head, tail = pot[:, :-1], pot[:, 1:]
    later = (prio[:, 1:] > prio[:, :-1]) | ((prio[:, 1:] == prio[:, :-1]) & (starts[:, 1:] < starts[:, :-1]))
    if (tail & (~head | later)).any():
        slots = np.broadcast_to(np.arange(pot.shape[1]), pot.shape)
        order = np.lexsort((slots, starts, -prio, ~pot))
        prio, pot, started, times, starts, slots = (np.take_along_axis(x, order, 1)
                                                    for x in (prio, pot, started, times, starts, slots))
        reqs = np.take_along_axis(reqs, order[None], 2)
    width = int(npot[covered].max())
    if width < pot.shape[1]:
        prio, pot, started, times, starts, reqs = prio[:, :width], pot[:, :width], started[:, :width], \
            times[:, :width], starts[:, :width], reqs[:, :, :width]
        slots = slots[:, :width] if slots is not None else None
    node_pods = span.pods if n_rows == len(span.rows) else _pick(span.pods, take)
    violating = None
    if pdbs:
        if slots is None:
            slots = np.broadcast_to(np.arange(width), pot.shape)
        violating = np.zeros(pot.shape, bool)
        ri, ci = np.nonzero(pot)
        flat = [node_pods[r][k] for r, k in zip(ri.tolist(), slots[ri, ci].tolist())]
        for pdb in pdbs:
            allowed = int(pdb.status.disruptions_allowed or 0) if pdb.status else 0
            disrupted = pdb.status.disrupted_pods if pdb.status is not None else {}
            sel = np.zeros(pot.shape, bool)
            sel[ri, ci] = np.fromiter((selects_for_preemption(pdb, p.pod) and p.pod.metadata.name not in disrupted
                                       for p in flat), bool, len(flat))
            violating |= sel & (np.cumsum(sel, axis=1) > allowed)
        if not violating.any():
            violating = None
    if violating is not None:  # upstream's processing order: the violating pods of a row, then the others
        assert slots is not None
        proc = np.argsort(np.where(pot, ~violating, 2), axis=1, kind="stable")
        prio, pot, started, times, starts, slots, violating = (np.take_along_axis(x, proc, 1) for x in (
            prio, pot, started, times, starts, slots, violating))
        reqs = np.take_along_axis(reqs, proc[None], 2)
    victim = np.empty(pot.shape, bool)
    room = max_pods - 2
    free = alloc - want
    for s in range(width):
        a = reqs[:, :, s]
        fits = pot[:, s] & (count <= room) & ((used + a) <= free).all(axis=0)
        used += a * fits
        count += fits
        victim[:, s] = pot[:, s] & ~fits
    ones, any_of = np.ones(width, np.int64), np.ones(width, bool)
    if violating is not None:
        assert slots is not None
        num_violating = (victim & violating) @ ones
        # the victims most important first again (ties keep the processing order)
        again = np.lexsort((np.broadcast_to(np.arange(width), victim.shape), starts, -prio, ~victim))
        prio, started, times, slots, victim = (np.take_along_axis(x, again, 1)
                                               for x in (prio, started, times, slots, victim))
    else:
        num_violating = np.zeros(n_rows, np.int64)
    # what pickOneNodeForPreemption reads of each row's victims
    per_row = victim @ ones
    top = _row_extreme(np.maximum, np.where(victim, prio, np.iinfo(np.int64).min))
    total = np.where(victim, prio + (MAX_INT32 + 1), 0) @ ones
    at_top = victim & (prio == top[:, None])
    started_top = at_top & started
    earliest = _row_extreme(np.minimum, np.where(started_top, times, np.iinfo(np.int64).max))
    vslots = np.nonzero(victim)[1] if slots is None else slots[victim]  # row by row, most important first
    vstart = np.concatenate(([0], np.cumsum(per_row)))

    def pods(i: int) -> list:
        on_node = node_pods[i]
        return [on_node[k] for k in vslots[vstart[i]:vstart[i + 1]].tolist()]

    return VictimRows(covered & (per_row > 0), num_violating, top, total, per_row, earliest,
                      started_top @ any_of, (at_top & ~started) @ any_of, pods)
