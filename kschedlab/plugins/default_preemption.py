"""DefaultPreemption: when no node fits, find a node where evicting pods of
lower priority makes room, preempt them and nominate the node (PostFilter).

The algorithm shared by preemption plugins lives in :mod:`kschedlab.framework.preemption`;
this module holds DefaultPreemption's policy: who may preempt, which pods are
victims on a node (``select_victims_on_node``: remove every lower-priority pod,
check the preemptor fits, then reprieve as many as possible -- PDB-violating
ones first, most important first), and how many nodes to dry-run.

PodGroupPostFilter (workload-aware preemption) runs when a PodGroup cycle ends
Unschedulable: the whole cluster is one domain and the group preempts as one
unit.  Victims are the pods of lower (group-aware) priority, a pod whose group
hierarchy has ``disruptionMode: all`` taken together with every scheduled pod
of that hierarchy.  All of them leave the snapshot and the group algorithm must
then place the group, once; victims are reprieved one at a time (PDB-violating
first, most important first) when every placed pod still passes Filter on its
node with them back, the rest are evicted and the group's pods nominated where
that one run put them.
Groups with topology constraints are not supported.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cmp_to_key
from typing import Callable

import numpy as np

from kschedlab.eviction.disruption import selects_for_preemption
from kschedlab.framework import podgroups as pgstate
from kschedlab.framework.group_reprieve import GroupReprieve, ReprieveError
from kschedlab.framework.interface import ArgsError, FieldError, Plugin, register
from kschedlab.framework.podgroups import DEFAULT_SCHEDULER_NAME, PodGroupInfo, pod_preemption_policy
from kschedlab.framework.preemption import (
    DISRUPTION_TARGET,
    REASON_PREEMPTION_BY_SCHEDULER,
    CandidateSequence,
    Evaluator,
    Executor,
    GroupPreemptor,
    NodeToStatus,
    PodGroupPostFilterResult,
    PreemptionRecord,
    VictimRows,
    Victims,
    importance_key,
    rows_scratch,
    start_time_ns,
)
from kschedlab.framework.status import SUCCESS, Code, Status
from kschedlab.plugins.default_preemption_victims import Span, VictimTable, reprieve_rows

NAME = "DefaultPreemption"
DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE = 10
DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE = 100

ERR_NO_VICTIMS = "No preemption victims found for incoming pod"
#: Filter plugins whose verdict on a node does not depend on the pods running there
POD_INDEPENDENT_FILTERS = frozenset({"NodeUnschedulable", "NodeName", "TaintToleration", "NodeAffinity"})
#: cycle-state key of the per-preemption cache :meth:`DefaultPreemption._victims_by_resources` fills
STATIC_FILTER_KEY = "DefaultPreemption/pod-independent-filters"
MSG_PREEMPT_NEVER = "not eligible due to preemptionPolicy=Never."
MSG_TERMINATING_VICTIM = "not eligible due to a terminating pod on the nominated node."
MSG_PREFIX = "preemption: "
MSG_POD_GROUP_NOT_FOUND = "preemption: pod group for pod not found"
MSG_PLACEMENT_LIMITATION = "preemption: not eligible due to placement-based pod group scheduling limitation"
MSG_WAITING_FOR_PREEMPTION = "waiting for the preemption for this pod to be finished"
STATE_KEY = NAME + "/record"
#: snapshot pod index: the pods grouped by priority and whether they are in a scheduling group
#: (:func:`pods_per_row`; one index for every preemptor priority)
PRIORITY_CLASSES_KEY = NAME + "/priority-and-scheduling-group"
FIT = "NodeResourcesFit"
TOO_MANY_PODS = "Too many pods"

MSG_POD_GROUP_PREFIX = "pod group preemption: "
MSG_TOPOLOGY_CONSTRAINTS = "not supported with topology constraints"
MSG_NO_GROUP_VICTIMS = "No preemption victims found for incoming preemptor"
MSG_ONGOING = "ongoing preemption on nominated nodes"
#: victim ranking at equal priority (upstream ``victimRank``)
VICTIM_RANK = {"CompositePodGroup": 3, "PodGroup": 2, "Pod": 1}


@dataclass
class GroupVictim:
    """A unit evicted or reprieved as a whole (upstream ``Victim``): one pod (``kind``
    "Pod", or "PodGroup" for a member of a group with ``disruptionMode: single``), or
    every scheduled pod of a group hierarchy with ``disruptionMode: all``."""

    kind: str
    pods: list  # PodInfo
    priority: int
    num_pdb_violations: int = 0


@dataclass
class DefaultPreemptionArgs:
    """``DefaultPreemptionArgs`` after v1 defaulting."""

    min_candidate_nodes_percentage: int = DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE
    min_candidate_nodes_absolute: int = DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE


def default_args(raw: dict | None) -> dict:
    """``SetDefaults_DefaultPreemptionArgs``: unset fields become 10 and 100."""
    out = dict(raw or {})
    if out.get("minCandidateNodesPercentage") is None:
        out["minCandidateNodesPercentage"] = DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE
    if out.get("minCandidateNodesAbsolute") is None:
        out["minCandidateNodesAbsolute"] = DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE
    return out


def validate_args(raw: dict | None) -> tuple[DefaultPreemptionArgs, list[FieldError]]:
    """``ValidateDefaultPreemptionArgs`` (fields left out take the v1 defaults).

    >>> [str(e) for e in validate_args({"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 0})[1]]
    ['minCandidateNodesPercentage: FieldValueInvalid: cannot be zero at the same time as minCandidateNodesAbsolute', \
'minCandidateNodesAbsolute: FieldValueInvalid: cannot be zero at the same time as minCandidateNodesPercentage']
    """
    raw = default_args(raw)
    unknown = sorted(set(raw) - {"minCandidateNodesPercentage", "minCandidateNodesAbsolute", "apiVersion", "kind"})
    errors: list[FieldError] = [FieldError("FieldValueInvalid", k, "unknown field") for k in unknown]
    pct, absolute = raw["minCandidateNodesPercentage"], raw["minCandidateNodesAbsolute"]
    for path, value in (("minCandidateNodesPercentage", pct), ("minCandidateNodesAbsolute", absolute)):
        if not isinstance(value, int) or isinstance(value, bool):
            errors.append(FieldError("FieldValueInvalid", path, f"expected an integer, got {value!r}"))
    if errors:
        return DefaultPreemptionArgs(), errors
    if pct < 0 or pct > 100:
        errors.append(FieldError("FieldValueInvalid", "minCandidateNodesPercentage", "not in valid range [0, 100]"))
    if absolute < 0:
        errors.append(FieldError("FieldValueInvalid", "minCandidateNodesAbsolute", "not in valid range [0, inf)"))
    if pct == 0 and absolute == 0:
        errors.append(FieldError("FieldValueInvalid", "minCandidateNodesPercentage",
                                 "cannot be zero at the same time as minCandidateNodesAbsolute"))
        errors.append(FieldError("FieldValueInvalid", "minCandidateNodesAbsolute",
                                 "cannot be zero at the same time as minCandidateNodesPercentage"))
    return DefaultPreemptionArgs(pct, absolute), errors


def filter_pods_with_pdb_violation(pod_infos: list, pdbs: list) -> tuple[list, list]:
    """``filterPodsWithPDBViolation``: split pods (keeping their order) into those
    whose eviction would exceed a budget's ``disruptionsAllowed`` and the rest.

    Budgets are consumed in order: with ``disruptionsAllowed: 1`` the first
    matching pod is fine and the second violates.  A pod already listed in the
    budget's ``status.disruptedPods`` was accounted by the API server and uses
    no budget.
    """
    allowed = [int(pdb.status.disruptions_allowed or 0) if pdb.status else 0 for pdb in pdbs]
    violating, non_violating = [], []
    for pi in pod_infos:
        violated = False
        for i, pdb in enumerate(pdbs):
            if not selects_for_preemption(pdb, pi.pod):
                continue
            if pdb.status is not None and pi.pod.metadata.name in pdb.status.disrupted_pods:
                continue
            allowed[i] -= 1
            if allowed[i] < 0:
                violated = True
        (violating if violated else non_violating).append(pi)
    return violating, non_violating


def _priority_class(pod_info) -> tuple[int, bool]:
    return pod_info.priority, pod_info.pod.spec.scheduling_group is not None


def pods_per_row(snapshot, picked: Callable[[int, bool], bool]) -> np.ndarray | None:
    """Per node row, how many of its pods are of a (priority, in a scheduling group) class
    ``picked`` accepts; None when no pod in the snapshot is.  Read off one kept index of the
    snapshot's pods grouped by class (a few classes: a sum of their per-row counts).

    >>> from kschedlab.api.core import Node, Pod
    >>> from kschedlab.cluster import Cluster
    >>> c = Cluster([Node.model_validate({"metadata": {"name": n}}) for n in ("a", "b")] + [
    ...     Pod.model_validate({"metadata": {"name": f"p{i}", "namespace": "default"},
    ...                         "spec": {"nodeName": node, "priority": prio}})
    ...     for i, (node, prio) in enumerate([("a", 5), ("b", 1), ("b", 0)])])
    >>> pods_per_row(c.snapshot, lambda priority, grouped: priority < 2)[:2].tolist()
    [0, 2]
    >>> pods_per_row(c.snapshot, lambda priority, grouped: grouped) is None
    True
    """
    classes = snapshot.pod_groups(PRIORITY_CLASSES_KEY, _priority_class)
    counts = [group.counts for (priority, grouped), group in classes.items() if picked(priority, grouped)]
    if not counts:
        return None
    return counts[0] if len(counts) == 1 else np.sum(counts, axis=0)


def pod_terminating_by_preemption(pod) -> bool:
    """Deleted (``deletionTimestamp`` set) and marked ``DisruptionTarget`` by the scheduler."""
    if pod.metadata.deletion_timestamp is None:
        return False
    for c in pod.status.conditions if pod.status else []:
        if c.type == DISRUPTION_TARGET:
            return c.status == "True" and c.reason == REASON_PREEMPTION_BY_SCHEDULER
    return False


class _IndependentPass:
    """Whether the pod-independent Filter ``plugins`` (:data:`POD_INDEPENDENT_FILTERS`) all pass a
    node for the preemptor, each node filtered when first asked about (their verdict on a node does
    not move while a preemption runs: they read neither the node's pods nor the other nodes). The
    nodes the failed cycle's ``statuses`` show past all of them (:meth:`NodeToStatus.rows_passing`)
    are known to pass without filtering."""

    def __init__(self, plugins: list, state, pod_info, snapshot, statuses: NodeToStatus | None = None):
        self.plugins, self.state, self.pod_info, self.snapshot = plugins, state, pod_info, snapshot
        self.passing = np.ones(len(snapshot.names), bool)
        shown = statuses.rows_passing(snapshot, [p.name for p in plugins]) if plugins and statuses is not None \
            else None
        self.known = shown if shown is not None else np.full(len(snapshot.names), not plugins)

    def take(self, rows: np.ndarray) -> np.ndarray:
        """Whether the plugins pass each of ``rows``."""
        new = rows[~self.known.take(rows)]
        if len(new):
            from kschedlab.framework.runtime import filter_verdicts

            for p in self.plugins:
                verdicts = filter_verdicts(p, self.state, self.pod_info, self.snapshot, new)
                self.passing[new[verdicts.codes != 0]] = False
            self.known[new] = True
        return self.passing.take(rows)


@register
class DefaultPreemption(Plugin):
    """PostFilter (and, with async preemption, PreEnqueue) plugin.

    Upstream's two customization hooks may be replaced on an instance:
    ``is_eligible_pod(node_info, victim_info, preemptor_pod) -> bool`` (an extra
    condition on victims, besides lower priority) and
    ``more_important_pod(a_info, b_info) -> bool`` (victim ordering; None keeps
    the default: higher priority, then earlier start time).  ``rng`` draws the
    dry-run offset (seeded; the scheduler may hand over its own).
    """

    name = NAME
    default_args = staticmethod(default_args)

    @classmethod
    def parse_args(cls, raw, handle=None) -> DefaultPreemptionArgs:
        args, errors = validate_args(raw)
        if errors:
            raise ArgsError(NAME, errors)
        return args

    def __init__(self, args=None, handle=None):
        super().__init__(args or DefaultPreemptionArgs(), handle)
        self.rng = random.Random(0)
        self.is_eligible_pod: Callable = self._default_is_eligible
        self.more_important_pod: Callable | None = None
        self.executor = Executor(handle)
        self.evaluator = Evaluator(NAME, handle, self, self.executor)
        self.last_record: PreemptionRecord | None = None
        self._victim_table = VictimTable()

    @staticmethod
    def _default_is_eligible(node_info, victim, preemptor) -> bool:
        return True

    # -- extension points -------------------------------------------------------
    def pre_enqueue(self, pod_info) -> Status:
        """Upstream blocks a pod while its asynchronous preemption is still
        deleting victims; here preemption completes inside PostFilter."""
        return SUCCESS

    def post_filter(self, state, pod_info, diagnosis) -> tuple:
        """``PostFilter``: preempt for ``pod_info`` given the failed cycle's
        statuses (a :class:`NodeToStatus`, or a diagnosis carrying one as
        ``node_to_status``; see :meth:`node_to_status`)."""
        pod = pod_info.pod
        gates = self.handle.gates if self.handle is not None else None
        group = pod.spec.scheduling_group
        if group is not None and gates is not None and gates.enabled("TopologyAwareWorkloadScheduling"):
            pg = self._pod_group(pod.metadata.namespace, group.pod_group_name)
            if pg is None:
                return None, Status.unschedulable(MSG_POD_GROUP_NOT_FOUND)
            spec = getattr(pg, "spec", None)
            constraints = spec.get("schedulingConstraints") if isinstance(spec, dict) else \
                getattr(spec, "scheduling_constraints", None)
            if constraints is not None:
                return None, Status.unschedulable(MSG_PLACEMENT_LIMITATION)
        m = self.node_to_status(state, pod_info, diagnosis)
        # shared by the dry run's copies of the cycle state (a dict has no clone()): see _victims_by_resources
        state[STATIC_FILTER_KEY] = {"statuses": m}
        record = PreemptionRecord(pod_info.key)
        result, status = self.evaluator.preempt(state, pod_info, m, record)
        record.result, record.status = result, status
        self.last_record = record
        state[STATE_KEY] = record
        msg = status.message()
        if msg:
            return result, Status(status.code, (MSG_PREFIX + msg,))
        return result, status

    def node_to_status(self, state, pod_info, diagnosis) -> NodeToStatus:
        """The per-node statuses PostFilter works from.

        Taken from ``diagnosis`` when it is a :class:`NodeToStatus` or has a
        ``node_to_status`` attribute.  Otherwise rebuilt from what the
        diagnosis knows: a PreFilter rejection applies to every node; else every
        node is filtered again and nodes that pass (left out by a
        PreFilterResult) get the diagnosis' absent status.
        """
        if isinstance(diagnosis, NodeToStatus):
            return diagnosis
        attached = getattr(diagnosis, "node_to_status", None)
        if attached is not None:
            return attached
        absent = getattr(diagnosis, "absent_status", None)
        if getattr(diagnosis, "prefilter_msg", ""):
            return NodeToStatus(absent=absent)
        fw = self.handle.framework
        snapshot = self.handle.cluster.snapshot
        outcome = fw.run_filter_with_nominated_pods(state, pod_info, snapshot, snapshot.order)
        m = NodeToStatus.from_filter_outcome(outcome, snapshot.names)
        passed = outcome.rows[outcome.passed].tolist()
        for row in passed:
            m.set(snapshot.names[row], absent or Status(Code.UnschedulableAndUnresolvable))
        return m

    # -- preemption.Interface ---------------------------------------------------------
    def calculate_num_candidates(self, num_nodes: int) -> int:
        """``calculateNumCandidates``: percentage of the nodes, at least the
        absolute minimum, at most all of them.

        >>> DefaultPreemption().calculate_num_candidates(5000), DefaultPreemption().calculate_num_candidates(50)
        (500, 50)
        """
        n = num_nodes * self.args.min_candidate_nodes_percentage // 100
        n = max(n, self.args.min_candidate_nodes_absolute)
        return min(n, num_nodes)

    def get_offset_and_num_candidates(self, num_nodes: int) -> tuple[int, int]:
        return self.rng.randrange(num_nodes), self.calculate_num_candidates(num_nodes)

    def candidates_to_victims_map(self, candidates) -> Mapping[str, Victims]:
        """Node name -> victims (read lazily from a :class:`CandidateSequence`)."""
        if isinstance(candidates, CandidateSequence):
            return candidates.victims_map()
        return {c.name: c.victims for c in candidates}

    def ordered_score_funcs(self, victims_map) -> list | None:
        return None

    def is_preemption_allowed(self, node_info, victim, preemptor) -> bool:
        """The victim has lower priority than the preemptor (and passes ``is_eligible_pod``)."""
        return victim.priority < preemptor.priority and self.is_eligible_pod(node_info, victim, preemptor.pod)

    def pod_eligible_to_preempt_others(self, pod_info, nominated_node_status: Status | None) -> tuple[bool, str]:
        """``PodEligibleToPreemptOthers``: not with ``preemptionPolicy: Never``,
        nor while victims of an earlier preemption still terminate on the
        nominated node (unless that node is now UnschedulableAndUnresolvable)."""
        pod = pod_info.pod
        if pod.spec.preemption_policy == "Never":
            return False, MSG_PREEMPT_NEVER
        nominated = pod.status.nominated_node_name if pod.status else None
        if nominated:
            if nominated_node_status is not None and nominated_node_status.code == Code.UnschedulableAndUnresolvable:
                return True, ""
            snapshot = self.handle.cluster.snapshot
            row = snapshot.index.get(nominated)
            if row is not None:
                node_info = snapshot.node_info(row)
                for p in snapshot.pods[row]:
                    if self.is_preemption_allowed(node_info, p, pod_info) and pod_terminating_by_preemption(p.pod):
                        return False, MSG_TERMINATING_VICTIM
        return True, ""

    def select_victims_on_node(self, state, pod_info, snapshot, row: int, pdbs: list, now_ns: int,
                               nominated: list | None = None) -> tuple[list, int, Status]:
        """``SelectVictimsOnNode``: the fewest pods to evict from node ``row``.

        Every lower-priority pod is removed; if the preemptor still does not
        fit, the node's status explains why.  Otherwise pods are added back
        one at a time, most important first -- PDB-violating ones before the
        rest -- and kept (reprieved) when the preemptor still fits.  The
        caller restores the node (:func:`kschedlab.framework.preemption.node_scratch`).
        ``nominated`` are the pods nominated to the node (looked up when None).
        """
        fw = self.handle.framework
        node_name = snapshot.names[row]
        node_info = snapshot.node_info(row)
        if nominated is None:
            nominated = self.handle.nominated_pods_for_node(node_name)
        potential = [p for p in snapshot.pods[row] if self.is_preemption_allowed(node_info, p, pod_info)]
        if potential:
            found = self._victims_by_resources(state, pod_info, snapshot, row, pdbs, now_ns, nominated, potential)
            if found is not None:
                return found

        def remove(pi) -> Status:
            snapshot.remove_pod(pi.key)
            return fw.run_pre_filter_extension_remove_pod(state, pod_info, pi, snapshot, row)

        def add(pi) -> Status:
            snapshot.add_pod(pi, node_name)
            return fw.run_pre_filter_extension_add_pod(state, pod_info, pi, snapshot, row)

        for pi in potential:
            status = remove(pi)
            if not status.is_success():
                return [], 0, Status.error(status.message())
        if not potential:
            return [], 0, Status.unresolvable(ERR_NO_VICTIMS)
        status = fw.run_filter_with_nominated_pods_node(state, pod_info, snapshot, row, nominated)
        if not status.is_success():
            return [], 0, status
        self._sort_by_importance(potential, now_ns)
        violating, non_violating = filter_pods_with_pdb_violation(potential, pdbs)
        victims: list = []

        def reprieve(pi) -> tuple[bool, Status]:
            status = add(pi)
            if not status.is_success():
                return False, status
            fits = fw.run_filter_with_nominated_pods_node(state, pod_info, snapshot, row, nominated).is_success()
            if not fits:
                status = remove(pi)
                if not status.is_success():
                    return False, status
                victims.append(pi)
            return fits, Status()

        num_violating = 0
        for pi in violating:
            fits, status = reprieve(pi)
            if not status.is_success():
                return [], 0, Status.error(status.message())
            if not fits:
                num_violating += 1
        for pi in non_violating:
            _, status = reprieve(pi)
            if not status.is_success():
                return [], 0, Status.error(status.message())
        if violating and non_violating:
            self._sort_by_importance(victims, now_ns)
        return victims, num_violating, Status()

    def select_victims_without_changes(self, state, pod_info, snapshot, row: int, pdbs: list, now_ns: int,
                                       nominated: list) -> tuple[list, int, Status] | None:
        """:meth:`select_victims_on_node`'s answer when it can be had without changing the
        snapshot or the cycle state (see :meth:`_victims_by_resources`); None otherwise. The dry
        run asks this first and skips the node's scratch copy when it answers."""
        node_info = snapshot.node_info(row)
        potential = [p for p in snapshot.pods[row] if self.is_preemption_allowed(node_info, p, pod_info)]
        if not potential:
            return [], 0, Status.unresolvable(ERR_NO_VICTIMS)
        return self._victims_by_resources(state, pod_info, snapshot, row, pdbs, now_ns, nominated, potential)

    def victims_for_rows(self, state, pod_info, snapshot, rows: np.ndarray, pdbs: list, now_ns: int,
                         nominations: dict):
        """The dry run's answers for many nodes of ``rows`` at once, or None when victims are chosen
        some other way (``is_eligible_pod`` or a victim method replaced). Answers (per row: an
        index into the statuses, -1 when the node is not settled; the statuses; the victims of
        the unsettled rows, a :class:`VictimRows` in their order, or None).

        A node settled gets the status a visit would give it without a candidate: a node without a
        pod of lower priority :data:`ERR_NO_VICTIMS`; when :meth:`_victims_by_resources` covers
        the preemptor (see :mod:`kschedlab.plugins.default_preemption_victims`), a node where it
        would not fit even with every lower-priority pod gone (and no nominated pod of equal or
        higher priority) the NodeResourcesFit status it would have there. The unsettled nodes
        it covers get their victims, PDB violations and summary for the candidate ordering (none
        found for a node left to the one-by-one visit)."""
        if not self._default_victim_policy(ordering=False):
            return None
        priority = pod_info.priority
        lower = pods_per_row(snapshot, lambda below, grouped: below < priority)
        some = lower.take(rows) != 0 if lower is not None else np.zeros(len(rows), bool)
        index = some.astype(np.int64) * -1  # 0: no lower-priority pod, -1: not settled yet
        shared = [Status.unresolvable(ERR_NO_VICTIMS)]
        rest = some.nonzero()[0]
        plan = self._resource_plan(state, pod_info, snapshot) if len(rest) else None
        if plan is None or not plan[0]:
            return index, shared, None
        _, checked, passing = plan
        sub = rows if len(rest) == len(rows) else rows[rest]
        covers = passing.take(sub)  # the nodes the arithmetic covers
        if not covers.all():
            rest, sub = rest[covers], sub[covers]
        if not len(rest):
            return index, shared, VictimRows.none(len(some.nonzero()[0]))
        table = self._victim_table
        table.sync(snapshot, sub, checked)
        span = Span(table, sub, priority, checked, snapshot)
        extra_used = np.zeros((1 + len(checked), len(sub)), np.int64)  # the pod count first, as in the span
        nominated = np.zeros(len(sub), bool)
        if nominations:
            fw = self.handle.framework
            where = {r: j for j, r in enumerate(sub.tolist())}
            for node, infos in nominations.items():
                j = where.get(snapshot.index.get(node, -1))
                if j is None:
                    continue
                for p in fw.ge_nominated(pod_info, infos):
                    nominated[j] = True
                    extra_used[0, j] += 1
                    for i, name in enumerate(checked, 1):
                        extra_used[i, j] += p.requests.get(name, 0)
        # what stays on each node once every lower-priority pod is gone (the pods of higher or equal
        # priority) against what it allocates: the pod count first, then each checked resource
        requests = pod_info.requests
        want = np.array([1, *[requests[name] for name in checked]], np.int64)[:, None]
        short = want > span.alloc - span.held
        failed = short.any(axis=0) & ~nominated  # (with nominated pods the visit reports the node)
        if failed.any():
            reasons_of = [TOO_MANY_PODS, *[f"Insufficient {name}" for name in checked]]
            hopeless = (short[1:] & (want[1:] > span.alloc[1:])).any(axis=0)  # (never for the pod count)
            signature = (1 << np.arange(len(reasons_of), dtype=np.int64)) @ short + (hopeless.astype(np.int64)
                                                                                    << len(reasons_of))
            for sig in np.flatnonzero(np.bincount(signature[failed])).tolist():  # (the distinct ones, in order)
                reasons = tuple(reasons_of[i] for i in range(len(reasons_of)) if sig >> i & 1)
                code = Code.UnschedulableAndUnresolvable if sig >> len(reasons_of) & 1 else Code.Unschedulable
                index[rest[failed & (signature == sig)]] = len(shared)
                shared.append(Status(code, reasons, FIT))
        if not self._default_victim_policy():
            return index, shared, None
        left = (index < 0).nonzero()[0]  # the unsettled rows, and which of them the arithmetic covers
        take = (~failed).nonzero()[0]
        if not len(take):
            return index, shared, VictimRows.none(len(left))
        found = reprieve_rows(span, take, pod_info, checked, extra_used[:, take], pdbs, now_ns)
        if len(take) == len(left):
            return index, shared, found
        return index, shared, found.spread(np.searchsorted(left, rest[take]), len(left))

    def _default_victim_policy(self, ordering: bool = True) -> bool:
        """Victims are chosen by this class's own methods (no hook or method replaced; with
        ``ordering``, the victims' ordering too), so they may be found for many nodes at once."""
        cls = type(self)
        return (self.is_eligible_pod is self._default_is_eligible and (not ordering or self.more_important_pod is None)
                and cls.is_preemption_allowed is DefaultPreemption.is_preemption_allowed
                and cls.select_victims_on_node is DefaultPreemption.select_victims_on_node
                and cls.select_victims_without_changes is DefaultPreemption.select_victims_without_changes
                and cls._victims_by_resources is DefaultPreemption._victims_by_resources)

    def _resource_plan(self, state, pod_info, snapshot):
        """Whether :meth:`_victims_by_resources` covers this preemptor (see there), the resources
        it checks and whether the pod-independent filters pass a node (an :class:`_IndependentPass`,
        asked only about the nodes the dry run reaches); worked out once per preemption and kept in
        the cycle state.  None without the cache or NodeResourcesFit."""
        fw = self.handle.framework
        static = state.get(STATIC_FILTER_KEY)
        fit = fw.plugins.get(FIT)
        if static is None or fit is None:
            return None
        plan = static.get("plan")
        if plan is None:
            plugins = fw.filter_plugins(state)
            extensions = [p for p in fw.points["preFilter"] if p.name not in state.skip_filter
                          and (hasattr(p, "add_pod") or hasattr(p, "remove_pod"))]
            names = [p.name for p in plugins]
            ok = (not extensions and fit in plugins
                  and all(n in POD_INDEPENDENT_FILTERS or n == FIT for n in names))
            checked = fit.checked_resources(pod_info) if ok else []
            if ok and fit.dra_served(checked):
                ok = False
            passing = _IndependentPass([p for p in plugins if p.name in POD_INDEPENDENT_FILTERS], state, pod_info,
                                       snapshot, static.get("statuses")) if ok else None
            plan = static["plan"] = (ok, checked, passing)
        return plan

    def _victims_by_resources(self, state, pod_info, snapshot, row: int, pdbs: list, now_ns: int, nominated: list,
                              potential: list):
        """:meth:`select_victims_on_node` as arithmetic on the node's requests, when that gives the
        same answer: every Filter plugin left after PreFilter either ignores the node's pods
        (:data:`POD_INDEPENDENT_FILTERS`, checked once per preemption and node) or is
        NodeResourcesFit (no DRA-served extended resource), and no PreFilter extension would be
        told of removed or added pods. Removing and re-adding victims then only changes the
        node's requested resources and pod count, so each reprieve is a comparison instead of
        a Filter run. None when the case is not covered or the preemptor does not fit even with
        every victim gone (the regular path then reports the node's status)."""
        fw = self.handle.framework
        plan = self._resource_plan(state, pod_info, snapshot)
        if plan is None:
            return None
        ok, checked, passing = plan
        if not ok or not passing.take(np.array([row]))[0]:
            return None
        res_index = snapshot.res_index
        cols = [res_index.get(name) for name in checked]
        alloc = [0 if c is None else int(snapshot.allocatable[c, row]) for c in cols]
        used = [0 if c is None else int(snapshot.requested[c, row]) for c in cols]
        pods_col = res_index["pods"]
        max_pods = int(snapshot.allocatable[pods_col, row])
        count = int(snapshot.pod_count[row])
        want = [pod_info.requests[name] for name in checked]
        for p in potential:
            count -= 1
            for i, name in enumerate(checked):
                used[i] -= p.requests.get(name, 0)
        for p in fw.ge_nominated(pod_info, nominated):  # nominated pods count as if running there
            count += 1
            for i, name in enumerate(checked):
                used[i] += p.requests.get(name, 0)

        def fits(extra) -> bool:
            if count + (1 if extra is not None else 0) + 1 > max_pods:
                return False
            for i, name in enumerate(checked):
                add = extra.requests.get(name, 0) if extra is not None else 0
                if want[i] > alloc[i] - (used[i] + add):
                    return False
            return True

        if not fits(None):
            return None
        self._sort_by_importance(potential, now_ns)
        violating, non_violating = filter_pods_with_pdb_violation(potential, pdbs)
        victims: list = []
        num_violating = 0
        for group, counts in ((violating, True), (non_violating, False)):
            for p in group:
                if fits(p):
                    count += 1
                    for i, name in enumerate(checked):
                        used[i] += p.requests.get(name, 0)
                else:
                    victims.append(p)
                    num_violating += counts
        if violating and non_violating:
            self._sort_by_importance(victims, now_ns)
        return victims, num_violating, Status()

    def _sort_by_importance(self, pods: list, now_ns: int) -> None:
        """Most important first (stable: ties keep the node's pod order)."""
        less = self.more_important_pod
        if less is None:
            pods.sort(key=importance_key(now_ns))
        else:
            pods.sort(key=cmp_to_key(lambda a, b: -1 if less(a, b) else (1 if less(b, a) else 0)))

    # -- PodGroupPostFilter ---------------------------------------------------------------
    def pod_group_post_filter(self, state, group: PodGroupInfo, pods: list, schedule) -> tuple:
        """``PodGroupPostFilter``: preempt for the whole group (see the module docstring).
        ``schedule()`` runs the group algorithm on the snapshot as it is then (once, with the
        victims gone) and returns the placed pods' results."""
        if any(g.obj.spec.scheduling_constraints and g.obj.spec.scheduling_constraints.topology
               for g in group.all_groups()):
            return None, Status.unschedulable(MSG_POD_GROUP_PREFIX + MSG_TOPOLOGY_CONSTRAINTS)
        result, status = self._preempt_pod_group(group, pods, schedule)
        if status.message():
            return result, Status(status.code, (MSG_POD_GROUP_PREFIX + status.message(),))
        return result, status

    def _preempt_pod_group(self, group: PodGroupInfo, pods: list, schedule) -> tuple:
        """``PodGroupEvaluator.Preempt``."""
        priority = group.obj.priority_value()
        if self.handle.gates.enabled("PodGroupPreemptionPolicy"):
            never = group.obj.effective_preemption_policy() == "Never"
        else:
            never = any(pod_preemption_policy(pi.pod) == "Never" for pi in pods)
        if never:
            return None, Status.unschedulable(MSG_PREEMPT_NEVER)
        if self._ongoing_group_preemption(pods, priority):
            current = {pi.key: pi.pod.status.nominated_node_name or "" for pi in pods}
            return PodGroupPostFilterResult(current), Status(Code.Success, (MSG_ONGOING,))
        victims = self._group_victims(below=priority)
        if not victims:
            return None, Status.unschedulable(MSG_NO_GROUP_VICTIMS)
        (placed, evicted), status = self._select_group_victims(victims, schedule)
        if not status.is_success():
            return None, status
        victim_pods = [pi for v in evicted for pi in v.pods]
        preemptor = GroupPreemptor(group.kind.lower(), group.obj.metadata.uid or group.key,
                                   pods[0].pod.spec.scheduler_name or DEFAULT_SCHEDULER_NAME)
        self.last_record = PreemptionRecord(group.key)
        status = self.executor.actuate_pod_group(victim_pods, preemptor, NAME, self.last_record)
        if not status.is_success():
            return None, status
        result = PodGroupPostFilterResult(placed, [pi.key for pi in victim_pods],
                                          sum(v.num_pdb_violations for v in evicted))
        return result, Status(Code.Success, (f"found a placement for podgroup, preempting {len(victim_pods)} victims",))

    def _select_group_victims(self, victims: list[GroupVictim], schedule) -> tuple:
        """``selectVictimsOnDomain``: remove every victim, place the group once, then try
        to reprieve each unit in order against that placement
        (:class:`~kschedlab.framework.group_reprieve.GroupReprieve`).  Returns
        ``((placement, evicted units), status)``; the snapshot is restored."""
        snapshot = self.handle.cluster.snapshot
        now_ns = self.evaluator.now_ns()
        rows = {pi.key: snapshot.pod_row[pi.key] for v in victims for pi in v.pods}
        node_of = {key: snapshot.names[row] for key, row in rows.items()}
        with rows_scratch(snapshot, sorted(set(rows.values()), reverse=True)):
            for key in rows:
                snapshot.remove_pod(key)
            assignments, status = schedule()
            if not status.is_success():
                return (None, None), status
            reprieve = GroupReprieve(self.handle.framework, snapshot, assignments, node_of)
            try:
                evicted = self._reprieve(victims, reprieve, now_ns)
            except ReprieveError as err:
                return (None, None), Status.error(str(err))
        return ({a.key: a.node for a in assignments}, evicted), Status()

    def _reprieve(self, victims: list[GroupVictim], reprieve: GroupReprieve, now_ns: int) -> list[GroupVictim]:
        """The units not kept, tried in order.  Without a PDB, when every unit off the
        group's nodes is kept whatever the order (``keeps_untouching``), only the units on
        those nodes are ordered and tried: the others' place in the order decides nothing."""
        if not self.evaluator.pdbs() and reprieve.keeps_untouching():
            victims = reprieve.touching(victims)
        return [v for v in self._order_group_victims(victims, now_ns) if not reprieve.keep(v)]

    def _order_group_victims(self, victims: list[GroupVictim], now_ns: int) -> list[GroupVictim]:
        """``prepareDomainVictims``: most important first (``MoreImportantVictim``: higher
        priority, CompositePodGroup > PodGroup > Pod, more pods, earlier start -- a pod
        not started counts as starting ``now_ns`` -- then pod uid), PDB-violating units
        before the rest.  A unit violates when any of its pods does; budgets are consumed
        in that order."""

        def importance(v: GroupVictim) -> tuple:
            first = v.pods[0]
            start = start_time_ns(first, now_ns) if len(v.pods) == 1 else \
                min(start_time_ns(pi, now_ns) for pi in v.pods)
            return -v.priority, -VICTIM_RANK[v.kind], -len(v.pods), start, first.pod.metadata.uid or first.key

        victims.sort(key=importance)
        violating_pods, _ = filter_pods_with_pdb_violation([pi for v in victims for pi in v.pods],
                                                           self.evaluator.pdbs())
        if not violating_pods:
            return victims
        violating_keys = {pi.key for pi in violating_pods}
        for v in victims:
            v.num_pdb_violations = sum(1 for pi in v.pods if pi.key in violating_keys)
        return [v for v in victims if v.num_pdb_violations] + [v for v in victims if not v.num_pdb_violations]

    def _group_victims(self, below: int | None = None) -> list[GroupVictim]:
        """``getCrossNodesVictims``: every pod in the snapshot as a victim unit, priced at
        the priority of its group hierarchy's root (its own without a group), in the
        snapshot's order; ``below``: only the units of lower priority.

        With ``below``, there is nothing to walk when no unit can be priced below it (see
        :meth:`_no_unit_below`); nodes holding neither a pod in a group nor a pod of lower
        priority are skipped whole (a snapshot index counts those pods per node), and each
        group hierarchy is looked up once."""
        cluster = self.handle.cluster
        snapshot = cluster.snapshot
        rows = range(len(snapshot.pods))
        if below is not None:
            if self._no_unit_below(below):
                return []
            maybe = pods_per_row(snapshot, lambda priority, grouped: grouped or priority < below)
            rows = np.flatnonzero(maybe[:len(snapshot.pods)]).tolist() if maybe is not None else []
        chains: dict[tuple, tuple] = {}
        seen: set[str] = set()
        out = []
        for row in rows:
            for pi in snapshot.pods[row]:
                if pi.key in seen:
                    continue
                name = pgstate.pod_group_name(pi.pod)
                if name is None:
                    if below is not None and pi.priority >= below:
                        continue
                    seen.add(pi.key)
                    out.append(GroupVictim("Pod", [pi], pi.priority))
                    continue
                found = chains.get((pi.pod.metadata.namespace, name))
                if found is None:
                    chain = self._group_chain(pi.pod)
                    whole = [g for g in chain if g.spec.disruption_mode is not None and g.spec.disruption_mode.all]
                    found = chains[(pi.pod.metadata.namespace, name)] = (
                        chain[-1].priority_value() if chain else None, whole[-1] if whole else None)
                root_priority, top = found
                priority = pi.priority if root_priority is None else root_priority
                if below is not None and priority >= below:
                    continue
                if top is None:
                    seen.add(pi.key)
                    out.append(GroupVictim("PodGroup" if pi.pod.spec.scheduling_group else "Pod", [pi], priority))
                    continue
                keys = PodGroupInfo.build(cluster, top.group_key).scheduled_pod_keys(cluster)
                members = [pi, *(m for m in (self._snapshot_pod(snapshot, k) for k in keys
                                             if k not in seen and k != pi.key) if m is not None)]
                seen.update(m.key for m in members)
                out.append(GroupVictim(type(top).__name__, members, priority))
        return out

    def _no_unit_below(self, below: int) -> bool:
        """No victim unit can be priced below ``below``: a unit's price is the priority of
        its group hierarchy's root (a PodGroup or CompositePodGroup object) or, without one,
        its pod's, and neither any pod of the snapshot (a snapshot index) nor any group
        object has a lower priority."""
        cluster = self.handle.cluster
        snapshot = cluster.snapshot
        classes = snapshot.pod_groups(PRIORITY_CLASSES_KEY, _priority_class)
        if any(priority < below for priority, _ in classes):
            return False
        return not any(priority < below for priority in cluster.group_priorities)

    @staticmethod
    def _snapshot_pod(snapshot, key: str):
        """The PodInfo the snapshot holds for ``key``, or None."""
        row = snapshot.pod_row.get(key)
        if row is None:
            return None
        return next((p for p in snapshot.pods[row] if p.key == key), None)

    def _group_priority(self, pod_info) -> int:
        """``GetPodPriority``: the priority of the root of the pod's group hierarchy, or the
        pod's own without a group."""
        chain = self._group_chain(pod_info.pod)
        return chain[-1].priority_value() if chain else pod_info.priority

    def _group_chain(self, pod) -> list:
        """The pod's PodGroup then its CompositePodGroup ancestors (followed only with the
        CompositePodGroup gate), as far as they exist."""
        cluster = self.handle.cluster
        namespace = pod.metadata.namespace
        name = pgstate.pod_group_name(pod)
        obj = pgstate.get_pod_group(cluster, namespace, name) if name else None
        composite = self.handle.gates.enabled("CompositePodGroup")
        chain: list = []
        while obj is not None and obj.group_key not in {g.group_key for g in chain}:
            chain.append(obj)
            parent = obj.spec.parent_composite_pod_group_name
            obj = pgstate.get_composite_pod_group(cluster, namespace, parent) if composite and parent else None
        return chain

    def _ongoing_group_preemption(self, pods: list, priority: int) -> bool:
        """``isOngoingPreemption``: a node some pod of the group is nominated to still
        holds a lower-priority pod terminating because the scheduler preempted it."""
        snapshot = self.handle.cluster.snapshot
        nominated = {pi.pod.status.nominated_node_name for pi in pods if pi.pod.status}
        for node in nominated - {None, ""}:
            row = snapshot.index.get(node)
            for p in snapshot.pods[row] if row is not None else []:
                if self._group_priority(p) < priority and pod_terminating_by_preemption(p.pod):
                    return True
        return False

    # -- helpers ------------------------------------------------------------------------
    def _pod_group(self, namespace, name):
        cluster = self.handle.cluster if self.handle is not None else None
        if cluster is None or not name:
            return None
        groups = cluster.objects.get("PodGroup", {})
        return groups.get(f"{namespace}/{name}" if namespace else name)
