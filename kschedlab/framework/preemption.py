"""Preemption machinery (upstream ``pkg/scheduler/framework/preemption``).

A preemption plugin (``DefaultPreemption``) supplies the policy -- which pods
may be victims on a node, how many nodes to dry-run, how to order candidates --
and the :class:`Evaluator` here runs the algorithm every such plugin shares:

1. is the pod eligible to preempt at all (``PodEligibleToPreemptOthers``);
2. the *potential nodes* are those whose filter status was ``Unschedulable``
   (``UnschedulableAndUnresolvable`` nodes cannot be helped by removing pods);
3. a *dry run* on those nodes, starting at an offset and stopping once enough
   candidates are found, asks the plugin for the victims on each node;
4. the best candidate is picked (fewest PDB violations, lowest highest-victim
   priority, smallest priority sum, fewest victims, latest start time, first);
5. the :class:`Executor` marks the victims with a ``DisruptionTarget``
   condition, deletes them, and clears lower-priority nominations on the node.

A pod group preempting as a unit (DefaultPreemption's PodGroupPostFilter) picks its
victims itself and has the Executor evict them (:meth:`Executor.actuate_pod_group`).

The dry run works on the live :class:`~kschedlab.cluster.Snapshot`: pods are
removed and added back with the exact, cheap ``remove_pod`` / ``add_pod``, and
every node is restored (pod order included) before the next one is tried.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Callable, NamedTuple, Protocol

import numpy as np

from kschedlab.api.meta import time_ns
from kschedlab.framework.diagnosis import Diagnosis
from kschedlab.framework.status import Code, Status

MAX_INT32 = (1 << 31) - 1
MIN_INT64 = -(1 << 63)

ERR_NO_NODES = "no nodes available"
MSG_NOT_HELPFUL = "Preemption is not helpful for scheduling"
MSG_NO_CANDIDATE = "no candidate node for preemption"

MODE_NOOP = "Noop"
MODE_OVERRIDE = "Override"

DISRUPTION_TARGET = "DisruptionTarget"
REASON_PREEMPTION_BY_SCHEDULER = "PreemptionByScheduler"


def go_quote(text: str) -> str:
    """Go's ``%q`` for the plain strings that appear in messages (node names)."""
    return json.dumps(text, ensure_ascii=False)


# --------------------------------------------------------------------------- results
@dataclass(frozen=True)
class PostFilterResult:
    """``fwk.PostFilterResult``: what to do with the pod's ``status.nominatedNodeName``.

    ``nominating_mode`` Override sets it to ``nominated_node_name`` ("" clears
    it); Noop leaves it alone.
    """

    nominated_node_name: str = ""
    nominating_mode: str = MODE_OVERRIDE

    @staticmethod
    def with_nominated_node(name: str) -> "PostFilterResult":
        return PostFilterResult(name, MODE_OVERRIDE)

    def to_dict(self) -> dict:
        return {"nominatedNodeName": self.nominated_node_name, "nominatingMode": self.nominating_mode}


@dataclass
class PodGroupPostFilterResult:
    """``fwk.PodGroupPostFilterResult``: the node each pod of the preempting group is
    nominated to (pod key -> node name), and the pods evicted for it."""

    nominations: dict[str, str] = field(default_factory=dict)
    victims: list[str] = field(default_factory=list)
    num_pdb_violations: int = 0


@dataclass(frozen=True)
class GroupPreemptor:
    """A pod group preempting as one unit, as the :class:`Executor` names it in events
    and conditions (upstream ``podGroupExecutorPreemptor``); ``kind`` is "podgroup" or
    "compositepodgroup"."""

    kind: str
    uid: str
    scheduler_name: str


class VictimSummary(NamedTuple):
    """What :func:`pick_one_node_for_preemption`'s default criteria read of a node's victims,
    worked out with them by a victim search that has it at hand: the highest priority, the sum
    of ``priority + MaxInt32 + 1``, the count, the earliest start (ns) among the started victims
    of the highest priority (None if none started) and whether one of those has not started."""

    highest_priority: int
    priority_sum: int
    count: int
    earliest_started: int | None
    unstarted: bool

    def earliest_start(self, now_ns: int) -> int:
        """``GetEarliestPodStartTime`` of the victims at ``now_ns``."""
        if self.unstarted:
            return now_ns if self.earliest_started is None else min(self.earliest_started, now_ns)
        return MIN_INT64 if self.earliest_started is None else self.earliest_started


@dataclass
class Victims:
    """``extenderv1.Victims``: the pods to evict on one node, most important first; ``summary``
    (optional, not compared) holds what the default candidate ordering reads of them."""

    pods: list  # PodInfo
    num_pdb_violations: int = 0
    summary: VictimSummary | None = field(default=None, compare=False, repr=False)


@dataclass
class Candidate:
    """A node where the preemptor fits once ``victims`` are gone."""

    name: str
    victims: Victims

    def __repr__(self) -> str:
        return (f"Candidate({self.name}, victims={[p.key for p in self.victims.pods]}, "
                f"pdbViolations={self.victims.num_pdb_violations})")


class RowNames(Sequence):
    """The names of node ``rows`` (a list or an array) in an immutable row -> name view
    (``Snapshot.node_names()``), looked up when read.

    >>> names = RowNames(("a", "b", "c"), np.array([2, 0]))
    >>> list(names), names[1], names[-1:], len(names), names == ["c", "a"]
    (['c', 'a'], 'a', ['a'], 2, True)
    """

    def __init__(self, view: tuple, rows):
        self._view, self._rows = view, rows

    def _list(self) -> list[str]:
        rows = self._rows.tolist() if isinstance(self._rows, np.ndarray) else self._rows
        return [self._view[r] for r in rows]

    def __getitem__(self, i):
        return self._list()[i] if isinstance(i, slice) else self._view[int(self._rows[i])]

    def __iter__(self):
        return iter(self._list())

    def __len__(self) -> int:
        return len(self._rows)

    def __eq__(self, other) -> bool:
        return isinstance(other, Sequence) and self._list() == list(other)

    def __repr__(self) -> str:
        return repr(self._list())


class VictimRows:
    """The victims of many nodes at once, as columns (what a preemption interface's
    ``victims_for_rows`` answers): for the i-th node asked, ``found[i]`` (victims found;
    the dry run visits the other nodes one by one), ``num_violating[i]``, the columns of its
    :class:`VictimSummary`, and ``pods(i)``: the victims, most important first, made when asked.

    >>> none = VictimRows.none(2)
    >>> none.found.tolist(), len(none)
    ([False, False], 2)
    """

    def __init__(self, found: np.ndarray, num_violating: np.ndarray, highest: np.ndarray, total: np.ndarray,
                 count: np.ndarray, earliest: np.ndarray, started: np.ndarray, unstarted: np.ndarray,
                 pods: Callable[[int], list]):
        self.found, self.num_violating = found, num_violating
        self.highest, self.total, self.count = highest, total, count
        self.earliest, self.started, self.unstarted = earliest, started, unstarted
        self.pods = pods

    @classmethod
    def none(cls, n: int) -> "VictimRows":
        """No victims found on any of ``n`` nodes."""
        z = np.zeros(n, np.int64)
        no = np.zeros(n, bool)
        return cls(no, z, z, z, z, z, no, no, lambda i: [])

    def __len__(self) -> int:
        return len(self.found)

    def spread(self, at: np.ndarray, size: int) -> "VictimRows":
        """These answers as the ones for positions ``at`` of ``size`` nodes (none for the others)."""
        if len(at) == size:
            return self
        inner = np.full(size, -1, np.int64)
        inner[at] = np.arange(len(at))
        columns = []
        for col in (self.found, self.num_violating, self.highest, self.total, self.count, self.earliest,
                    self.started, self.unstarted):
            out = np.zeros(size, col.dtype)
            out[at] = col
            columns.append(out)
        pods = self.pods
        return VictimRows(*columns, lambda i: pods(int(inner[i])))

    def victims(self, i: int) -> Victims:
        """The :class:`Victims` of the i-th node (with its summary)."""
        started = bool(self.started[i])
        summary = VictimSummary(int(self.highest[i]), int(self.total[i]), int(self.count[i]),
                                int(self.earliest[i]) if started else None, bool(self.unstarted[i]))
        return Victims(self.pods(i), int(self.num_violating[i]), summary)


class CandidateSequence(Sequence):
    """The dry run's candidates in order, kept as parts: a :class:`Candidate`, or the nodes
    ``names`` answered at positions ``at`` of a :class:`VictimRows`; a candidate's ``Candidate``
    object is made when it is read.

    >>> c = Candidate("n1", Victims([]))
    >>> seq = CandidateSequence([c])
    >>> len(seq), seq[0] is c, list(seq) == [c], seq == [c]
    (1, True, True, True)
    """

    def __init__(self, parts: list):
        self._parts = parts
        self._built: list[Candidate] | None = None

    def _all(self) -> list[Candidate]:
        if self._built is None:
            built: list[Candidate] = []
            for part in self._parts:
                if isinstance(part, Candidate):
                    built.append(part)
                else:
                    found, at, names = part
                    built.extend(Candidate(n, found.victims(i)) for i, n in zip(at.tolist(), names))
            self._built = built
        return self._built

    def __len__(self) -> int:
        return sum(1 if isinstance(p, Candidate) else len(p[2]) for p in self._parts)

    def __getitem__(self, i):
        return self._all()[i]

    def __iter__(self):
        return iter(self._all())

    def __eq__(self, other) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)

    def __repr__(self) -> str:
        return repr(self._all())

    def victims_map(self) -> "Mapping[str, Victims]":
        """Node name -> victims (``candidatesToVictimsMap``), with the victims made when read."""
        return _VictimsMap(self._parts)


class _VictimsMap(Mapping):
    """A :class:`CandidateSequence`'s victims by node; :meth:`best` is ``pickOneNodeForPreemption``
    with the default criteria on the summaries' columns when every part has them. The names are
    listed when first needed (the node :meth:`best` picks is looked up without them)."""

    def __init__(self, parts: list):
        self._parts = parts
        self._listed: list[str] | None = None
        self._best: tuple[str, Victims] | None = None

    @property
    def _names(self) -> list[str]:
        if self._listed is None:
            self._listed = [n for p in self._parts for n in ((p.name,) if isinstance(p, Candidate) else p[2])]
        return self._listed

    def __getitem__(self, name: str) -> Victims:
        if self._best is not None and name == self._best[0]:
            return self._best[1]
        if name not in self._names:
            raise KeyError(name)
        pos = self._names.index(name)
        for part in self._parts:
            if isinstance(part, Candidate):
                if not pos:
                    return part.victims
                pos -= 1
            elif pos < len(part[2]):
                return part[0].victims(int(part[1][pos]))
            else:
                pos -= len(part[2])
        raise KeyError(name)

    def __contains__(self, name) -> bool:
        return (self._best is not None and name == self._best[0]) or name in self._names

    def __iter__(self):
        return iter(self._names)

    def __len__(self) -> int:
        return sum(1 if isinstance(p, Candidate) else len(p[2]) for p in self._parts)

    def best(self, now_ns: int) -> str | None:
        """The first node best by the default criteria, read from the columns; None when some
        candidate has no columns (the criteria are then asked node by node)."""
        parts = self._parts
        if not parts or any(isinstance(p, Candidate) for p in parts):
            return None

        def column(attr: str) -> np.ndarray:
            cols = [getattr(p[0], attr).take(p[1]) for p in parts]
            return cols[0] if len(cols) == 1 else np.concatenate(cols)

        started, unstarted, earliest = column("started"), column("unstarted"), column("earliest")
        latest_start = np.where(unstarted, np.where(started, np.minimum(earliest, now_ns), now_ns),
                                np.where(started, earliest, MIN_INT64))
        keep = np.ones(len(started), bool)
        for score in (-column("num_violating"), -column("highest"), -column("total"), -column("count"), latest_start):
            keep &= score == score[keep].max()
        pos = int(np.argmax(keep))
        for found, at, names in parts:
            if pos < len(names):
                name = names[pos]
                self._best = (name, found.victims(int(at[pos])))
                return name
            pos -= len(names)
        raise AssertionError("a position past the parts")


def _rows_where(order: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``order[mask]``; ``order`` itself when every row matches (the snapshot's array, replaced and
    never written to when nodes change: a preemption record keeping the potential nodes of every
    failed cycle then holds no node-sized copy of its own).

    >>> order = np.array([2, 0, 1])
    >>> _rows_where(order, np.array([True, True, True])) is order, _rows_where(order, order > 0).tolist()
    (True, [2, 1])
    """
    return order if mask.all() else order[mask]


class NodeToStatus:
    """``framework.NodeToStatus``: the Filter status of every node of a failed cycle.

    Nodes not listed explicitly have ``absent`` (by default
    UnschedulableAndUnresolvable with no reason: a node that was never
    evaluated cannot be helped by preemption).

    Built from a filter outcome or a dry run (:meth:`from_rows`) it keeps the
    statuses as arrays (node rows and an index into a few shared statuses) and
    answers :meth:`nodes_for_status_code` and :meth:`fit_error_message` with
    numpy; the dict of :attr:`statuses` is made only when it is asked for.

    >>> m = NodeToStatus({"n1": Status.unschedulable("Insufficient cpu")})
    >>> m.get("n1").code.name, m.get("n2").code.name
    ('Unschedulable', 'UnschedulableAndUnresolvable')
    >>> lazy = NodeToStatus.from_rows(("a", "b", "c"), np.array([2, 0]), np.array([0, 0]),
    ...                               [Status.unschedulable("Insufficient cpu")])
    >>> len(lazy), lazy.get("c").reasons, lazy.get("b").code.name, list(lazy.statuses)
    (2, ('Insufficient cpu',), 'UnschedulableAndUnresolvable', ['c', 'a'])
    """

    def __init__(self, statuses: dict[str, Status] | None = None, absent: Status | None = None):
        self._statuses: dict[str, Status] | None = dict(statuses or {})
        #: (row -> node name, rows in insertion order, index into shared, shared statuses) until materialised
        self._table: tuple | None = None
        #: (row -> node name, a FilterOutcome, positions of its failed nodes) until the table is asked for
        self._outcome: tuple | None = None
        self.absent = absent if absent is not None else Status(Code.UnschedulableAndUnresolvable)

    @classmethod
    def from_rows(cls, names, rows: np.ndarray, index: np.ndarray, shared: list[Status],
                  absent: Status | None = None) -> "NodeToStatus":
        """Node ``names[rows[i]]`` has status ``shared[index[i]]`` (rows distinct, in the order the
        statuses were found)."""
        out = cls(absent=absent)
        out._statuses = None
        out._table = (names, np.asarray(rows, np.int64), np.asarray(index, np.int64), list(shared))
        return out

    @property
    def _rows(self) -> tuple:
        """The statuses as (names, rows, index, shared), made from the filter outcome when first asked."""
        if self._outcome is not None:
            names, outcome, failed = self._outcome
            # nodes failing the same way share one Status (it is immutable): the few distinct
            # (reason, code, plugin) triples are found with a lookup table instead of a sort
            plugins = max(len(outcome.plugins), 1)
            codes = outcome.fail_code[failed].astype(np.int64)
            keys = ((outcome.fail_reason[failed].astype(np.int64) + 1) * (int(codes.max()) + 1)
                    + codes) * plugins + outcome.fail_plugin[failed]
            present = np.flatnonzero(np.bincount(keys))
            table = np.zeros(int(present[-1]) + 1, np.int64)
            table[present] = np.arange(len(present))
            first = [int(np.argmax(keys == k)) for k in present.tolist()]
            at = np.arange(len(outcome.rows))[failed]
            shared = [outcome.status(int(at[i])) for i in first]
            self._table = (names, outcome.rows[failed], table[keys], shared)
            self._outcome = None
        return self._table  # type: ignore[return-value]

    @property
    def statuses(self) -> dict[str, Status]:
        """Node name -> status, for the nodes listed explicitly (in the order they were found)."""
        if self._statuses is None:
            names, rows, index, shared = self._rows
            self._statuses = dict(zip([names[r] for r in rows.tolist()], [shared[i] for i in index.tolist()]))
            self._table = None
        return self._statuses

    @statuses.setter
    def statuses(self, value: dict[str, Status]) -> None:
        self._statuses, self._table, self._outcome = dict(value), None, None

    def get(self, name: str | None) -> Status:
        if self._statuses is None:
            names, rows, index, shared = self._rows
            if name is not None and name in names:
                hit = np.flatnonzero(rows == names.index(name))
                if len(hit):
                    return shared[int(index[hit[0]])]
            return self.absent
        if name in self._statuses:
            return self._statuses[name]
        return self.absent

    def set(self, name: str, status: Status) -> None:
        self.statuses[name] = status

    def __len__(self) -> int:
        if self._outcome is not None:
            return len(self._outcome[1].rows[self._outcome[2]])
        return len(self._rows[1]) if self._statuses is None else len(self._statuses)

    def items(self):
        return self.statuses.items()

    def nodes_for_status_code(self, snapshot, code: Code) -> list[int]:
        """Rows of the nodes whose status has ``code`` (``NodesForStatusCode``).

        In node-tree order (upstream walks its node list when the absent status
        matches, and a map -- in random order -- otherwise).
        """
        return self.rows_for_status_code(snapshot, code).tolist()

    def rows_for_status_code(self, snapshot, code: Code) -> np.ndarray:
        """:meth:`nodes_for_status_code` as an array."""
        order = snapshot.order
        if self._outcome is not None and self._outcome[0] in (snapshot.names, snapshot.node_names()):
            _, outcome, failed = self._outcome  # (the code of each failed node, read off the outcome)
            rows = outcome.rows[failed]
            codes = np.full(max(len(snapshot.names), int(rows.max(initial=-1)) + 1), int(self.absent.code), np.int8)
            codes[rows] = outcome.fail_code[failed]
            return _rows_where(order, codes[order] == int(code))
        if self._statuses is None and self._rows[0] in (snapshot.names, snapshot.node_names()):
            _, rows, index, shared = self._rows
            codes = np.full(max(len(snapshot.names), int(rows.max(initial=-1)) + 1), int(self.absent.code), np.int64)
            codes[rows] = np.fromiter((int(s.code) for s in shared), np.int64, len(shared))[index]
            return _rows_where(order, codes[order] == int(code))
        names, statuses, absent_matches = snapshot.names, self.statuses, self.absent.code == code
        out = []
        for r in order.tolist():
            st = statuses.get(names[r])
            if (absent_matches if st is None else st.code == code):
                out.append(r)
        return np.asarray(out, np.int64)

    def rows_passing(self, snapshot, plugins: Sequence[str]) -> np.ndarray | None:
        """Per snapshot row, whether the failed cycle's Filter outcome shows the node passing every
        Filter plugin named in ``plugins``: it failed at a plugin run after all of them (the
        plugins run in order and stop at the first failure). None when the statuses are not kept
        as the outcome of this snapshot or one of ``plugins`` did not run in it.

        >>> from kschedlab.framework.runtime import FilterOutcome
        >>> outcome = FilterOutcome(np.array([2, 0, 1]), np.array([2, 0, 1], np.int16),
        ...                         np.array([2, 3, 2], np.int8), np.array([0, 0, 0], np.int32),
        ...                         [("x",)], ["TaintToleration", "NodeResourcesFit", "Other"])
        >>> from types import SimpleNamespace
        >>> snap = SimpleNamespace(names=["a", "b", "c"])
        >>> m = NodeToStatus.from_filter_outcome(outcome, snap.names)
        >>> m.rows_passing(snap, ["TaintToleration"]).tolist(), m.rows_passing(snap, ["NodeResourcesFit"]).tolist()
        ([False, True, True], [False, False, True])
        >>> m.rows_passing(snap, ["NodeAffinity"]) is None
        True
        """
        if self._outcome is None or self._outcome[0] is not snapshot.names and \
                self._outcome[0] is not snapshot.node_names():
            return None
        _, outcome, failed = self._outcome
        order = outcome.plugins
        if any(p not in order for p in plugins):
            return None
        last = max((order.index(p) for p in plugins), default=-1)
        shown = np.zeros(len(snapshot.names), bool)
        rows = outcome.rows[failed]
        shown[rows[outcome.fail_plugin[failed] > last]] = True
        return shown

    def fit_error_message(self, num_all_nodes: int) -> str:
        """``FitError.Error()`` of a diagnosis holding only these statuses."""
        d = Diagnosis(num_all_nodes)
        counts: dict[str, int] = {}
        if self._statuses is None:
            _, rows, index, shared = self._rows
            per_status = np.bincount(index, minlength=len(shared)).tolist() if len(index) else [0] * len(shared)
            for st, n in zip(shared, per_status):
                if n:
                    for reason in st.reasons:
                        counts[reason] = counts.get(reason, 0) + n
        else:
            for st in self._statuses.values():
                for reason in st.reasons:
                    counts[reason] = counts.get(reason, 0) + 1
        d.add_counts(counts, explicit=len(self))
        d.absent_status = self.absent
        return d.message()

    @classmethod
    def from_filter_outcome(cls, outcome, node_names, absent: Status | None = None) -> "NodeToStatus":
        """Statuses of a failed cycle from the scheduler's :class:`FilterOutcome`
        (every visited row) and the absent status (PreFilter rejection or
        PreFilterResult); the outcome's columns are kept, a node's ``Status`` made when read.

        >>> from kschedlab.framework.runtime import FilterOutcome
        >>> outcome = FilterOutcome(np.array([2, 0, 1]), np.array([0, -1, 0], np.int16),
        ...                         np.array([2, 0, 3], np.int8), np.array([0, -1, 0], np.int32),
        ...                         [("Insufficient cpu",)], ["NodeResourcesFit"])
        >>> m = NodeToStatus.from_filter_outcome(outcome, ["a", "b", "c"])
        >>> len(m), m.get("c").code.name, m.get("a").code.name, m.get("b").reasons
        (2, 'Unschedulable', 'UnschedulableAndUnresolvable', ('Insufficient cpu',))
        """
        out = cls(absent=absent)
        if outcome is not None:
            failed = np.flatnonzero(outcome.fail_plugin >= 0)
            if len(failed):
                out._statuses = None
                # (every node failed, as in a preemptor's cycle: all positions, kept as a slice)
                out._outcome = (node_names, outcome, slice(None) if len(failed) == len(outcome.rows) else failed)
        return out

    def __repr__(self) -> str:
        return f"NodeToStatus({self.statuses!r}, absent={self.absent!r})"


@dataclass
class PreemptionRecord:
    """What one preemption attempt did, for traces and teaching."""

    pod: str
    #: the Unschedulable nodes (a :class:`RowNames` after a dry run)
    potential_nodes: Sequence[str] = field(default_factory=list)
    offset: int = 0
    num_candidates: int = 0
    #: a :class:`CandidateSequence` after a dry run (its ``Candidate`` objects made when read)
    candidates: Sequence[Candidate] = field(default_factory=list)
    node_statuses: NodeToStatus | None = None
    selected: Candidate | None = None
    victims: list[str] = field(default_factory=list)
    cleared_nominations: list[str] = field(default_factory=list)
    events: list[str] = field(default_factory=list)
    #: the evaluator's verdict (DefaultPreemption prefixes its message with "preemption: ")
    result: PostFilterResult | None = None
    status: Status | None = None
    #: the clock of the dry run (ns): a victim without ``status.startTime`` counts as starting then
    now_ns: int | None = None

    def to_dict(self) -> dict:
        """Plain data (for JSON output and DataFrames)."""
        def cand(c: Candidate) -> dict:
            return {"node": c.name, "victims": [p.key for p in c.victims.pods],
                    "numPDBViolations": c.victims.num_pdb_violations}

        return {
            "pod": self.pod,
            "potentialNodes": list(self.potential_nodes),
            "offset": self.offset,
            "numCandidates": self.num_candidates,
            "candidates": [cand(c) for c in self.candidates],
            "nodeStatuses": {n: {"code": st.code.name, "reasons": list(st.reasons)}
                             for n, st in (self.node_statuses.items() if self.node_statuses else [])},
            "selected": cand(self.selected) if self.selected else None,
            "victims": list(self.victims),
            "clearedNominations": list(self.cleared_nominations),
            "events": list(self.events),
            "result": self.result.to_dict() if self.result else None,
            "status": {"code": self.status.code.name, "reasons": list(self.status.reasons)} if self.status else None,
        }


# --------------------------------------------------------------------------- helpers
def start_time_ns(pod_info, now_ns: int) -> int:
    """``GetPodStartTime`` in nanoseconds; a pod that has not started counts as
    starting now."""
    st = pod_info.pod.status.start_time if pod_info.pod.status else None
    if st is None:
        return now_ns
    cache = getattr(pod_info, "cache", None)
    if cache is None:
        return time_ns(st)  # exact: start times keep their nanoseconds
    found = cache.get("start_time_ns")
    if found is None or found[0] is not st:  # kept while the pod keeps the same start time object
        found = cache["start_time_ns"] = (st, time_ns(st))
    return found[1]


def importance_key(now_ns: int) -> Callable:
    """Sort key for ``MoreImportantPod``: higher priority first, then the pod that
    started earlier (``sorted(..., key=importance_key(now))`` = most important first)."""
    return lambda pi: (-pi.priority, start_time_ns(pi, now_ns))


def more_important_pod(a, b, now_ns: int) -> bool:
    """``util.MoreImportantPod`` on PodInfos."""
    if a.priority != b.priority:
        return a.priority > b.priority
    return start_time_ns(a, now_ns) < start_time_ns(b, now_ns)


def earliest_start_of_highest_priority(victims: Victims, now_ns: int) -> int | None:
    """``util.GetEarliestPodStartTime``: the earliest start time among the victims
    of the highest priority."""
    pods = victims.pods
    if not pods:
        return None
    earliest = start_time_ns(pods[0], now_ns)
    top = pods[0].priority
    for pi in pods:
        if pi.priority == top:
            earliest = min(earliest, start_time_ns(pi, now_ns))
        elif pi.priority > top:
            top = pi.priority
            earliest = start_time_ns(pi, now_ns)
    return earliest


def default_score_funcs(victims_map: Mapping[str, Victims], now_ns: int) -> list[Callable[[str], int]]:
    """The ordered criteria of ``pickOneNodeForPreemption`` (higher score wins)."""

    def min_pdb_violations(node: str) -> int:
        return -victims_map[node].num_pdb_violations

    def min_highest_priority(node: str) -> int:
        return -victims_map[node].pods[0].priority

    def min_sum_priorities(node: str) -> int:
        # +MaxInt32+1 makes every term positive, so more pods never look cheaper
        return -sum(pi.priority + MAX_INT32 + 1 for pi in victims_map[node].pods)

    def min_num_pods(node: str) -> int:
        return -len(victims_map[node].pods)

    def latest_start_time(node: str) -> int:
        earliest = earliest_start_of_highest_priority(victims_map[node], now_ns)
        return MIN_INT64 if earliest is None else earliest

    return [min_pdb_violations, min_highest_priority, min_sum_priorities, min_num_pods, latest_start_time]


def pick_one_node_for_preemption(victims_map: Mapping[str, Victims], score_funcs: list | None = None,
                                 now_ns: int | None = None) -> str:
    """``pickOneNodeForPreemption``: apply the criteria in turn until one node is
    left; remaining ties go to the first node (upstream: map order, i.e. any)."""
    if not victims_map:
        return ""
    if now_ns is None:
        now_ns = time.time_ns()
    if score_funcs is None and isinstance(victims_map, _VictimsMap):
        best = victims_map.best(now_ns)
        if best is not None:
            return best
    nodes = list(victims_map)
    if score_funcs is None and all(v.summary is not None and v.pods for v in victims_map.values()):
        # the default criteria as one key per node, read from the victims' summaries (the first best wins)
        def key(node: str) -> tuple:
            v = victims_map[node]
            s = v.summary
            return (-v.num_pdb_violations, -s.highest_priority, -s.priority_sum, -s.count, s.earliest_start(now_ns))

        return max(nodes, key=key)
    for f in score_funcs or default_score_funcs(victims_map, now_ns):
        best, selected = None, []
        for node in nodes:
            score = f(node)
            if best is None or score > best:
                best, selected = score, [node]
            elif score == best:
                selected.append(node)
        if len(selected) == 1:
            return selected[0]
        nodes = selected
    return nodes[0]


def node_scratch(snapshot, row: int):
    """Run a block that removes / adds pods on node ``row`` and put the node back
    exactly as it was afterwards (pods, accounting, indexes and pod order)."""
    return rows_scratch(snapshot, (row,))


@contextmanager
def rows_scratch(snapshot, rows):
    """:func:`node_scratch` for the nodes of ``rows`` at once; they are put back in that
    order, each pod missing added back in its node's former order."""
    saved = {row: list(snapshot.pods[row]) for row in rows}
    try:
        yield
    finally:
        for row, pods in saved.items():
            keep = {p.key for p in pods}
            for p in list(snapshot.pods[row]):
                if p.key not in keep:
                    snapshot.remove_pod(p.key)
            present = {p.key for p in snapshot.pods[row]}
            node = snapshot.names[row]
            for p in pods:
                if p.key not in present:
                    snapshot.add_pod(p, node)
            snapshot.pods[row][:] = pods


class _CandidateList:
    """``candidateList``: keeps at most ``size`` candidates (later adds are dropped), as the
    parts of a :class:`CandidateSequence`."""

    def __init__(self, size: int):
        self.size = max(size, 0)
        self.parts: list = []
        self.kept = 0
        self.added = 0

    def add(self, c: Candidate) -> None:
        self.added += 1
        if self.kept < self.size:
            self.parts.append(c)
            self.kept += 1

    def add_rows(self, found: VictimRows, at: np.ndarray, names: Sequence[str]) -> None:
        """The nodes ``names``, answered at positions ``at`` of ``found``, in order."""
        self.added += len(at)
        room = self.size - self.kept
        if room > 0 and len(at):
            self.parts.append((found, at[:room], names[:room] if room < len(at) else names))
            self.kept += min(room, len(at))

    def __len__(self) -> int:
        return self.kept


# --------------------------------------------------------------------------- interface
class PreemptionInterface(Protocol):
    """What a preemption plugin supplies to the :class:`Evaluator` (``preemption.Interface``)."""

    def get_offset_and_num_candidates(self, num_nodes: int) -> tuple[int, int]: ...

    def candidates_to_victims_map(self, candidates: Sequence[Candidate]) -> Mapping[str, Victims]: ...

    def pod_eligible_to_preempt_others(self, pod_info, nominated_node_status: Status | None) -> tuple[bool, str]: ...

    def select_victims_on_node(self, state, pod_info, snapshot, row: int, pdbs: list, now_ns: int,
                               nominated: list | None = None) -> tuple[list, int, Status]: ...

    def ordered_score_funcs(self, victims_map: Mapping[str, Victims]) -> list | None: ...


# --------------------------------------------------------------------------- executor
class Executor:
    """Actuates a chosen candidate (upstream ``preemption.Executor``), synchronously.

    For each victim: a pod waiting at Permit is rejected instead (the handle's
    ``extra["preempt_waiting_pod"](key, plugin, message) -> bool``, wired by the
    scheduler); otherwise the victim gets the ``DisruptionTarget`` condition and
    is deleted.  Deletion goes through ``extra["delete_pod"](key, pod_info)``
    when the scheduler or a simulation wants to model the grace period;
    without it the victim leaves the cluster at once (its grace period treated
    as already over).  Lower-priority pods nominated to the node lose their
    nomination (``status.nominatedNodeName`` cleared, and the nominator told
    through ``delete_nominated_pod_if_exists(key)`` when it has one).

    With ``SchedulerAsyncPreemption`` (on at v1.37) upstream runs this in a
    goroutine, clearing nominations first and skipping victims already being
    deleted; the scheduler's observable outcome is the same, so it runs inline.
    """

    def __init__(self, handle):
        self.handle = handle

    def _now(self) -> datetime:
        clock = self.handle.extra.get("clock") if self.handle is not None else None
        return datetime.fromtimestamp(clock() if clock else time.time(), timezone.utc)

    def actuate(self, candidate: Candidate, preemptor, plugin_name: str, record: PreemptionRecord | None = None,
                async_preemption: bool = True) -> Status:
        victims = candidate.victims.pods
        if async_preemption:
            victims = [v for v in victims if v.pod.metadata.deletion_timestamp is None]
            if not victims:
                return Status()
            self._clear_lower_nominations(preemptor, candidate.name, record)
            now = self._condition_time()
            for v in victims:
                self.preempt_pod(candidate, preemptor, v, plugin_name, record, now)
            return Status()
        now = self._condition_time()
        for v in victims:
            if v.pod.metadata.deletion_timestamp is not None:
                continue
            self.preempt_pod(candidate, preemptor, v, plugin_name, record, now)
        self._clear_lower_nominations(preemptor, candidate.name, record)
        return Status()

    def actuate_pod_group(self, victims: list, preemptor: GroupPreemptor, plugin_name: str,
                          record: PreemptionRecord | None = None) -> Status:
        """``ActuatePodGroupPreemption``: preempt every victim not already being deleted.
        The candidate is the whole cluster (named "cluster"), so no node's lower-priority
        nominations are cleared."""
        candidate = Candidate("cluster", Victims(victims))
        now = self._condition_time()
        for v in victims:
            if v.pod.metadata.deletion_timestamp is None:
                self.preempt_pod(candidate, preemptor, v, plugin_name, record, now)
        return Status()

    def preempt_pod(self, candidate: Candidate, preemptor, victim, plugin_name: str,
                    record: PreemptionRecord | None = None, now=None) -> None:
        """``PreemptPod``: reject a waiting victim, or mark and delete it.  ``preemptor``
        is a PodInfo or a :class:`GroupPreemptor`; ``now`` the condition's transition time (read
        once per preemption, None: read here)."""
        extra = self.handle.extra if self.handle is not None else {}
        kind, uid, scheduler = _preemptor_identity(preemptor)
        event = f"Preempted by {kind} {uid} on node {candidate.name}"
        reject = extra.get("preempt_waiting_pod")
        if reject is not None and reject(victim.key, plugin_name, "preempted"):
            event += " (in kube-scheduler memory)."
        else:
            self._set_disruption_condition(victim.pod, scheduler, kind, now)
            delete = extra.get("delete_pod")
            if delete is not None:
                delete(victim.key, victim)
            else:
                cluster = self.handle.cluster if self.handle is not None else None
                if cluster is not None and victim.key in cluster.pods:
                    cluster.remove_pod(victim.key)
        if record is not None:
            record.victims.append(victim.key)
            record.events.append(f"{victim.key}: Preempted: {event}")

    def _condition_time(self):
        """The time a DisruptionTarget condition set now transitions at (as validation would make it)."""
        from kschedlab.api.meta import parse_time

        return parse_time(self._now())

    def _set_disruption_condition(self, pod, scheduler: str, kind: str, now=None) -> None:
        from kschedlab.api.core import PodCondition

        message = f"{scheduler}: preempting to accommodate a higher priority {kind}"
        conditions = pod.status.conditions
        found = None
        for i, c in enumerate(conditions):
            if c.type == DISRUPTION_TARGET:
                if c.status == "True" and c.reason == REASON_PREEMPTION_BY_SCHEDULER and c.message == message:
                    return
                found = i
                break
        # (every field already of its type: the time as validation would make it)
        if found is None or conditions[found].status != "True":
            when = now if now is not None else self._condition_time()
        else:
            when = conditions[found].last_transition_time
        condition = PodCondition.trusted(type=DISRUPTION_TARGET, status="True", reason=REASON_PREEMPTION_BY_SCHEDULER,
                                         message=message, observed_generation=pod.metadata.generation,
                                         last_transition_time=when)
        if found is None:
            conditions.append(condition)
        else:
            conditions[found] = condition

    def _clear_lower_nominations(self, preemptor, node: str, record: PreemptionRecord | None) -> None:
        if self.handle is None:
            return
        for pi in self.handle.nominated_pods_for_node(node):
            if pi.priority >= preemptor.priority:
                continue
            if pi.pod.status is not None and pi.pod.status.nominated_node_name:
                pi.pod.status.nominated_node_name = None
            nominator = self.handle.pod_nominator
            if nominator is not None:
                nominator.delete_nominated_pod_if_exists(pi.key)
            if record is not None:
                record.cleared_nominations.append(pi.key)


def _preemptor_identity(preemptor) -> tuple[str, str, str]:
    """(type, uid, schedulerName) of a preemptor: a PodInfo or a :class:`GroupPreemptor`."""
    if isinstance(preemptor, GroupPreemptor):
        return preemptor.kind, preemptor.uid, preemptor.scheduler_name
    pod = preemptor.pod
    return "pod", pod.metadata.uid or preemptor.key, pod.spec.scheduler_name or ""


# --------------------------------------------------------------------------- evaluator
class Evaluator:
    """The preemption algorithm shared by preemption plugins (``preemption.Evaluator``)."""

    #: the fewest nodes handed at once to an interface's ``victims_for_rows``
    MIN_CHUNK = 32

    def __init__(self, plugin_name: str, handle, interface: PreemptionInterface, executor: Executor | None = None):
        self.plugin_name = plugin_name
        self.handle = handle
        self.interface = interface
        self.executor = executor or Executor(handle)
        #: the last dry run's candidates and the nodes it went through to find them (its first span's size)
        self._last_yield = (0, 0)

    # -- inputs ---------------------------------------------------------------------
    @property
    def snapshot(self):
        return self.handle.cluster.snapshot

    def pdbs(self) -> list:
        cluster = self.handle.cluster
        return cluster.of_kind("PodDisruptionBudget") if cluster is not None else []

    def now_ns(self) -> int:
        clock = self.handle.extra.get("clock")
        return int(clock() * 1_000_000_000) if clock else time.time_ns()

    # -- the algorithm --------------------------------------------------------------
    def preempt(self, state, pod_info, m: NodeToStatus,
                record: PreemptionRecord | None = None) -> tuple[PostFilterResult | None, Status]:
        """``Evaluator.Preempt``: returns the nomination and a status.

        * ``(None, Unschedulable)``: not eligible (message says why);
        * ``(Override "", Unschedulable FitError)``: no node can be helped;
        * ``(None, Error)``: dry-run errors and no candidate;
        * ``(Override node, Success)``: victims on ``node`` were preempted.
        """
        pod = pod_info.pod
        nominated = pod.status.nominated_node_name if pod.status else None
        ok, msg = self.interface.pod_eligible_to_preempt_others(pod_info, m.get(nominated) if nominated else None)
        if not ok:
            return None, Status.unschedulable(msg)
        snapshot = self.snapshot
        num_all = len(snapshot.order)
        candidates, statuses, errors = self.find_candidates(state, pod_info, m, record)
        if errors and not candidates:
            return None, Status.error(_aggregate(errors))
        if not candidates:
            statuses = statuses if statuses is not None else NodeToStatus()
            statuses.absent = Status(Code.UnschedulableAndUnresolvable, (MSG_NOT_HELPFUL,))
            return PostFilterResult.with_nominated_node(""), Status.unschedulable(statuses.fit_error_message(num_all))
        best = self.select_candidate(candidates)
        if best is None or not best.name:
            return None, Status.unschedulable(MSG_NO_CANDIDATE)
        if record is not None:
            record.selected = best
        async_preemption = self.handle.gates.enabled("SchedulerAsyncPreemption")
        status = self.executor.actuate(best, pod_info, self.plugin_name, record, async_preemption=async_preemption)
        if not status.is_success():
            return None, status
        return PostFilterResult.with_nominated_node(best.name), Status()

    def find_candidates(self, state, pod_info, m: NodeToStatus, record: PreemptionRecord | None = None):
        """``findCandidates``: dry-run the Unschedulable nodes.  Returns
        (candidates, statuses of nodes that could not be helped, errors)."""
        snapshot = self.snapshot
        if not len(snapshot.order):
            return [], None, [ERR_NO_NODES]
        potential = m.rows_for_status_code(snapshot, Code.Unschedulable)
        if not len(potential):
            return [], NodeToStatus(), []
        offset, num = self.interface.get_offset_and_num_candidates(len(potential))
        if record is not None:
            record.potential_nodes = RowNames(snapshot.node_names(), potential)
            record.offset, record.num_candidates = offset, num
        return self.dry_run_preemption(state, pod_info, potential, self.pdbs(), offset, num, record)

    def dry_run_preemption(self, state, pod_info, rows, pdbs: list, offset: int, num_candidates: int,
                           record: PreemptionRecord | None = None):
        """``DryRunPreemption``: visit ``rows`` (node rows, a list or an array) from ``offset``
        (wrapping), ask the plugin for victims on each, and stop once there is at least one
        PDB-respecting candidate and ``num_candidates`` in all.

        Upstream visits nodes with 16 workers; this visits them one at a time
        (upstream's ``parallelism: 1``), which gives the same candidates except
        when more than ``num_candidates`` could be found (large clusters), where
        upstream's result depends on goroutine timing.  Each list keeps at most
        ``num_candidates`` candidates, as upstream's ``candidateList``.

        An interface with ``victims_for_rows`` may answer for many nodes at once: the status a
        visit would give a node that yields no candidate (no lower-priority pod, or no room even
        with all of them gone), and the victims of the other nodes (a :class:`VictimRows`; a
        node it finds none for is left to the visit); only the nodes it leaves are visited one
        by one, and the outcome is the same. It is asked span by span along the visit order,
        so nodes past the last candidate are mostly not looked at. The candidates come back as
        a :class:`CandidateSequence`.
        """
        from kschedlab.framework.runtime import clone_cycle_state

        snapshot = self.snapshot
        non_violating = _CandidateList(num_candidates)
        violating = _CandidateList(num_candidates)
        errors: list[str] = []
        now_ns = self.now_ns()
        if record is not None:
            record.now_ns = now_ns
        nominations = self.handle.nominated_pods_by_node()  # looked up once for the whole dry run
        # an interface may answer some nodes without touching the snapshot or the cycle state
        quick = getattr(self.interface, "select_victims_without_changes", None)
        n = len(rows)
        rows = np.asarray(rows, np.int64)
        visit = np.concatenate((rows[offset:], rows[:offset]))
        shared: list[Status] = []
        # an interface may answer many nodes at once, asked span by span along the visit order, each
        # span as long as should give the candidates still wanted (at least MIN_CHUNK), so the nodes
        # past the last candidate are mostly not looked at
        many = getattr(self.interface, "victims_for_rows", None)
        index = np.full(n, -1, np.int64)
        CANDIDATE = -2
        end = n
        names = snapshot.names
        size = non_violating.size
        pos = 0
        stop = False
        while pos < n and not stop:
            if many is None:
                span = n - pos
            else:  # the nodes that would give the candidates still wanted at the yield seen so far, and a
                # quarter more (so that one more span mostly does); the first span at the last dry run's yield
                wanted = num_candidates - len(non_violating) - len(violating) if len(non_violating) \
                    else max(num_candidates, 1)
                so_far = non_violating.added + violating.added
                if so_far:
                    span = max(self.MIN_CHUNK, -(-5 * wanted * pos // (4 * so_far)))
                elif pos:
                    span = max(self.MIN_CHUNK, wanted, 2 * pos)
                else:
                    added, seen = self._last_yield
                    span = max(self.MIN_CHUNK, -(-5 * wanted * seen // (4 * added)) if added else wanted)
            part = index[pos:pos + span]
            answers = None
            settled = many(state, pod_info, snapshot, visit[pos:pos + span], pdbs, now_ns, nominations) \
                if many is not None else None
            if settled is None:
                many = None
            else:
                found_index, found_shared, answers = settled
                found_index = np.asarray(found_index, np.int64)
                part[found_index >= 0] = found_index[found_index >= 0] + len(shared)
                shared.extend(found_shared)
            chunk = pos + (part == -1).nonzero()[0]
            pos += span
            if not len(chunk):
                continue
            if answers is not None and answers.found.all():
                # every node of the span answered with victims: each is a candidate, in order, up to
                # the first where both lists together hold enough (with a PDB-respecting one)
                bad = answers.num_violating > 0
                ok_added = non_violating.added + np.cumsum(~bad)
                bad_added = violating.added + np.cumsum(bad)
                enough = np.flatnonzero((ok_added > 0) & (np.minimum(ok_added, size) + np.minimum(bad_added, size)
                                                          >= num_candidates))
                take = len(chunk) if not len(enough) else int(enough[0]) + 1
                if len(enough):
                    stop, end = True, int(chunk[take - 1]) + 1
                index[chunk[:take]] = CANDIDATE
                at = np.arange(take)
                taken = visit[chunk[:take]]
                view = snapshot.node_names()  # (the names looked up when read)
                non_violating.add_rows(answers, at[~bad[:take]], RowNames(view, taken[~bad[:take]]))
                violating.add_rows(answers, at[bad[:take]], RowNames(view, taken[bad[:take]]))
                continue
            answered = answers.found.tolist() if answers is not None else [False] * len(chunk)
            for j, (i, row) in enumerate(zip(chunk.tolist(), visit[chunk].tolist())):
                name = names[row]
                if answered[j]:
                    num_violating = int(answers.num_violating[j])
                    target = non_violating if num_violating == 0 else violating
                    target.add_rows(answers, np.array([j]), [name])
                else:
                    found = quick(state, pod_info, snapshot, row, pdbs, now_ns, nominations.get(name, [])) \
                        if quick is not None else None
                    if found is None:
                        state_copy = clone_cycle_state(state)
                        with node_scratch(snapshot, row):
                            found = self.interface.select_victims_on_node(
                                state_copy, pod_info, snapshot, row, pdbs, now_ns, nominations.get(name, []))
                    victims, num_violating, status = found
                    if not (status.is_success() and victims):
                        if status.is_success():
                            status = Status.error(f"expected at least one victim pod on node {go_quote(name)}")
                        if status.code == Code.Error:
                            errors.append(status.message())
                        index[i] = len(shared)
                        shared.append(status)
                        continue
                    (non_violating if num_violating == 0 else violating).add(
                        Candidate(name, Victims(list(victims), num_violating)))
                index[i] = CANDIDATE
                if len(non_violating) and len(non_violating) + len(violating) >= num_candidates:
                    end = i + 1
                    stop = True
                    break
        if many is not None:
            self._last_yield = (non_violating.added + violating.added, end)
        keep = (index[:end] >= 0).nonzero()[0]
        statuses = NodeToStatus.from_rows(snapshot.names, visit[keep], index[keep], shared)
        candidates = CandidateSequence(non_violating.parts + violating.parts)
        if record is not None:
            record.candidates = candidates
            record.node_statuses = statuses
        return candidates, statuses, errors

    def select_candidate(self, candidates: Sequence[Candidate]) -> Candidate | None:
        """``SelectCandidate``: the best of the candidates (see module docstring)."""
        if not candidates:
            return None
        if len(candidates) == 1:
            return candidates[0]
        victims_map = self.interface.candidates_to_victims_map(candidates)
        funcs = self.interface.ordered_score_funcs(victims_map)
        node = pick_one_node_for_preemption(victims_map, funcs, self.now_ns())
        if node in victims_map:
            return Candidate(node, victims_map[node])
        return candidates[0]


def _aggregate(errors: list[str]) -> str:
    """``utilerrors.NewAggregate(errs).Error()``: one message, or the distinct
    messages in brackets."""
    seen: list[str] = []
    for e in errors:
        if e not in seen:
            seen.append(e)
    if len(seen) == 1:
        return seen[0]
    return "[" + ", ".join(seen) + "]"
