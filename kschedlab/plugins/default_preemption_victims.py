"""DefaultPreemption's arithmetic victim search over many nodes at once.

When every Filter plugin left after PreFilter either ignores the node's pods or is
NodeResourcesFit (see ``DefaultPreemption._victims_by_resources``), choosing the victims on a
node is upstream's ``SelectVictimsOnNode`` loop on numbers: remove every pod of lower priority,
then add them back one at a time -- PDB-violating ones first, each group most important first
(higher priority, then earlier start) -- keeping each one with which the preemptor still fits.
:func:`reprieve_rows` runs that loop for all the dry run's nodes together: one numpy step per
position in the nodes' ordered victim lists instead of one Filter run per victim and node.

:class:`VictimTable` keeps each node's pods as one padded ``[fields, rows, K]`` array (priority,
start time, state, a one for the pod count, requests per resource), rebuilt for a node only when
its row version changed; a dry-run span reads its nodes' pods with one gather (:class:`Span`)
instead of walking them, and lays them out slot by slot. The pod count is checked as one more
request (each pod asks for one ``pods``). A pod's ``status.startTime`` is set in place once it
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
>>> span = Span(table, np.array([0]), preemptor.priority, ["cpu"], c.snapshot)
>>> span.npot.tolist(), span.held.tolist()  # three pods below priority 10, none staying (pods, cpu)
([3], [[0], [0]])
>>> found = reprieve_rows(span, np.array([0]), preemptor, ["cpu"], np.zeros((2, 1), np.int64), [], 0)
>>> [v.key for v in found.pods(0)], int(found.num_violating[0])  # b (priority 5) goes; c is reprieved, a not
(['default/b', 'default/a'], 0)
"""

from __future__ import annotations

import numpy as np

from kschedlab.eviction.disruption import selects_for_preemption
from kschedlab.framework.preemption import MAX_INT32, VictimRows, start_time_ns

__all__ = ["Span", "VictimTable", "reprieve_rows"]


class VictimTable:
    """Per node row: its pods (in the snapshot's order) as one ``[fields, rows, K]`` array padded
    to the most pods on a node, the fields being priority, start time (ns), state (0 no pod, 1
    placed, 2 started), one (1 for a pod: the pod count as a request) and the requests of the
    resources asked for so far (``names``, from field 4 on); a row is read again from the snapshot
    when its ``row_version`` moved. A span of the dry run reads its rows with one gather
    (:class:`Span`)."""

    PRIO, START, STATE, ONE, REQ = 0, 1, 2, 3, 4

    def __init__(self) -> None:
        self.snapshot = None
        self.pods = np.empty(0, object)
        self.version = np.full(0, -1, np.int64)
        self.names: list[str] = []
        self.data = np.zeros((self.REQ, 0, 0), np.int64)

    def _reset(self, snapshot, rows: int, width: int, names: list[str]) -> None:
        self.snapshot = snapshot
        self.pods = np.empty(rows, object)  # each row's pods as a tuple (an object array: a span takes its rows)
        self.pods.fill(())
        self.version = np.full(rows, -1, np.int64)
        self.names = names
        self.data = np.zeros((self.REQ + len(names), rows, width), np.int64)

    def fields(self, names) -> list[int]:
        """The fields of the pod count and of the requests of ``names`` (kept by :meth:`sync`)."""
        return [self.ONE, *[self.REQ + self.names.index(n) for n in names]]

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
                    fields.append([p.priority, start_time_ns(p, 0), 2, 1, *[req.get(n, 0) for n in names]])
                else:
                    fields.append([p.priority, 0, 1, 1, *[req.get(n, 0) for n in names]])
                at_row.append(r)
                at_slot.append(k)
        if fields:
            data[:, at_row, at_slot] = np.array(fields, np.int64).T
        self.version[stale] = snapshot.row_version.take(stale)


class Span:
    """The rows of one dry-run span read off a synced :class:`VictimTable` with one gather, for a
    preemptor of ``priority``, slot by slot (``[K, rows]``: a slot's values along the span are
    contiguous): the priority, start time, whether it started, whether it is of lower priority,
    and the pod count and requests of ``checked`` (``[1 + checked, K, rows]``, the count first).
    Per row and counted quantity (``[1 + checked, rows]``: the pods, then ``checked``): what the
    node allocates (``alloc``) and holds (``used``), what its lower-priority pods take
    (``lower_req``) and what the others take (``held``); per row the lower-priority pods
    (``npot``).

    Sums and extremes over a row's few slots reduce along the leading axis: numpy's reductions
    along a short trailing axis cost several times as much."""

    def __init__(self, table: VictimTable, rows: np.ndarray, priority: int, checked: list[str], snapshot):
        # the one gather (rows kept whole: [fields, rows, K]), then slot by slot: [fields, K, rows]
        block = np.ascontiguousarray(table.data.take(rows, axis=1).transpose(0, 2, 1))
        self.rows = rows
        self.pods = table.pods.take(rows)  # (sync replaces a row's tuple: these stay the pods read here)
        self.prio = block[VictimTable.PRIO]
        self.start = block[VictimTable.START]
        state = block[VictimTable.STATE]
        self.started = state == 2
        self.lower = (state != 0) & (self.prio < priority)
        fields = table.fields(checked)
        if fields == list(range(fields[0], fields[0] + len(fields))):
            self.req = block[fields[0]:fields[0] + len(fields)]
        else:
            self.req = block[fields]
        self.lower_req = (self.req * self.lower).sum(axis=1)
        self.npot = self.lower_req[0]
        self.held = self.req.sum(axis=1) - self.lower_req  # (empty slots hold zeros)
        res_index = snapshot.res_index
        cols = [res_index["pods"], *[res_index.get(n) for n in checked]]
        if None in cols:
            zeros = np.zeros(len(rows), np.int64)
            self.alloc = np.stack([zeros if c is None else snapshot.allocatable[c].take(rows) for c in cols])
            self.used = np.stack([snapshot.pod_count.take(rows), *[
                zeros if c is None else snapshot.requested[c].take(rows) for c in cols[1:]]])
        else:
            at = (np.array(cols)[:, None], rows)
            self.alloc = snapshot.allocatable[at]
            self.used = snapshot.requested[at]
            self.used[0] = snapshot.pod_count.take(rows)


def reprieve_rows(span: Span, take: np.ndarray, pod_info, checked: list[str], extra_used: np.ndarray,
                  pdbs: list, now_ns: int) -> VictimRows:
    """Upstream's reprieve loop on the requests of the span's rows at positions ``take`` for the
    preemptor ``pod_info``: per row, the victims most important first and the number of
    PDB-violating ones (not found where the preemptor does not fit even with every lower-priority
    pod gone, or none is there). ``checked`` are the resources NodeResourcesFit compares (the
    span's); ``extra_used`` (``[1 + checked, rows]``, the pod count first) what nominated pods of
    equal or higher priority add to each node. The pod count is one more request (each pod asks
    for one, the node allocates ``pods``). Works on ``[K, rows]`` arrays whose slots are put in
    each row's processing order."""
    if len(take) == len(span.rows):
        prio, times, started, pot = span.prio, span.start, span.started, span.lower
        reqs, npot, lower_req, alloc, used = span.req, span.npot, span.lower_req, span.alloc, span.used
    else:
        prio, times, started, pot = (x[:, take] for x in (span.prio, span.start, span.started, span.lower))
        reqs, npot, lower_req = span.req[:, :, take], span.npot[take], span.lower_req[:, take]
        alloc, used = span.alloc[:, take], span.used[:, take]
    n_rows = len(take)
    used = used - lower_req + extra_used
    want = np.array([1, *[pod_info.requests[n] for n in checked]], np.int64)[:, None]
    free = alloc - want
    covered = (npot > 0) & (used <= free).all(axis=0)
    if not covered.any():
        return VictimRows.none(n_rows)
    pot = pot & covered
    starts = np.where(started, times, now_ns)
    slots = None  # each row's slot at each position, when not the identity
    # each row's potential victims first, most important first (higher priority, earlier start), ties
    # in the node's pod order: often the node's order already
    later = (prio[1:] > prio[:-1]) | ((prio[1:] == prio[:-1]) & (starts[1:] < starts[:-1]))
    if (pot[1:] & (~pot[:-1] | later)).any():
        slots = np.broadcast_to(np.arange(pot.shape[0])[:, None], pot.shape)
        order = np.lexsort((slots, starts, -prio, ~pot), axis=0)
        prio, pot, started, times, starts, slots = (np.take_along_axis(x, order, 0)
                                                    for x in (prio, pot, started, times, starts, slots))
        reqs = np.take_along_axis(reqs, order[None], 1)
    width = int(npot[covered].max())
    if width < pot.shape[0]:
        prio, pot, started, times, starts, reqs = prio[:width], pot[:width], started[:width], \
            times[:width], starts[:width], reqs[:, :width]
        slots = slots[:width] if slots is not None else None
    node_pods = span.pods if n_rows == len(span.rows) else span.pods.take(take)
    violating = None
    if pdbs:
        if slots is None:
            slots = np.broadcast_to(np.arange(width)[:, None], pot.shape)
        violating = np.zeros(pot.shape, bool)
        si, ri = np.nonzero(pot)
        flat = [node_pods[r][k] for r, k in zip(ri.tolist(), slots[si, ri].tolist())]
        for pdb in pdbs:
            allowed = int(pdb.status.disruptions_allowed or 0) if pdb.status else 0
            disrupted = pdb.status.disrupted_pods if pdb.status is not None else {}
            sel = np.zeros(pot.shape, bool)
            sel[si, ri] = np.fromiter((selects_for_preemption(pdb, p.pod) and p.pod.metadata.name not in disrupted
                                       for p in flat), bool, len(flat))
            violating |= sel & (np.cumsum(sel, axis=0) > allowed)
        if not violating.any():
            violating = None
    if violating is not None:  # upstream's processing order: the violating pods of a row, then the others
        assert slots is not None
        proc = np.argsort(np.where(pot, ~violating, 2), axis=0, kind="stable")
        prio, pot, started, times, starts, slots, violating = (np.take_along_axis(x, proc, 0) for x in (
            prio, pot, started, times, starts, slots, violating))
        reqs = np.take_along_axis(reqs, proc[None], 1)
    kept = np.empty(pot.shape, bool)
    for s in range(width):
        a = reqs[:, s]
        fits = np.logical_and(pot[s], (used + a <= free).all(axis=0), out=kept[s])
        used += a * fits
    victim = pot & ~kept
    if violating is not None:
        assert slots is not None
        num_violating = (victim & violating).sum(axis=0)
        # the victims most important first again (ties keep the processing order)
        again = np.lexsort((np.broadcast_to(np.arange(width)[:, None], victim.shape), starts, -prio, ~victim),
                           axis=0)
        prio, started, times, slots, victim = (np.take_along_axis(x, again, 0)
                                               for x in (prio, started, times, slots, victim))
    else:
        num_violating = np.zeros(n_rows, np.int64)
    # what pickOneNodeForPreemption reads of each row's victims
    per_row = victim.sum(axis=0)
    top = np.where(victim, prio, np.iinfo(np.int64).min).max(axis=0)
    total = (prio * victim).sum(axis=0) + per_row * (MAX_INT32 + 1)
    at_top = victim & (prio == top)
    started_top = at_top & started

    def pods(i: int) -> list:  # row i's victims, most important first
        on_node, here = node_pods[i], victim[:, i]
        at = np.flatnonzero(here) if slots is None else slots[:, i][here]
        return [on_node[k] for k in at.tolist()]

    return VictimRows(covered & (per_row > 0), num_violating, top, total, per_row,
                      np.where(started_top, times, np.iinfo(np.int64).max).min(axis=0),
                      started_top.any(axis=0), (at_top & ~started).any(axis=0), pods)
