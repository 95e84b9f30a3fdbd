"""The PodGroup scheduling algorithm (upstream ``PodGroupSchedulingAlgorithm``,
``algorithm_podgroup.go``): where the pods of one group — or of a whole CompositePodGroup
hierarchy — would go, worked out on the snapshot and fully rolled back afterwards.

* **default algorithm** (a PodGroup): ``PlacementFeasible`` first, then each queued pod in
  order is filtered and scored (no single-pod PostFilter) and, when it fits, assumed on
  its node with Reserve run; ``PlacementFeasible`` after every pod — Unschedulable stops
  the loop, Wait goes on (and is a failure if it is the last word), Success means the group
  is feasible. A failed group reverts its tentative pods at once.
* **placement algorithm** (gate TopologyAwareWorkloadScheduling): ``PlacementGenerate``
  splits the current placement into candidates; the default algorithm runs inside each and
  is reverted; ``PlacementScore`` ranks the feasible ones (a single feasible one is taken
  without scoring; equal totals go to a seeded random pick); the winner's pods are assumed
  again. A standalone PodGroup whose pods carry a nominated node tries the one placement
  holding it first and keeps it when it works. The search stops once
  :func:`num_feasible_placements_to_find` placements were found feasible
  (``percentageOfPlacementsToScore``, KEP-5732's limit on the placements checked; 1 when the
  profile has no PlacementScore plugin); when that bound leaves placements out, the candidates
  are first shuffled with the scheduler's seeded ``rng``, so the ones tried do not depend on the
  order PlacementGenerate returned them in.
* **CompositePodGroup** (gate CompositePodGroup): always the placement algorithm; inside a
  candidate the children (sorted by key) are scheduled recursively, ``PlacementFeasible``
  with ``minGroupCount`` after each child, stopping and rolling back as soon as the policy
  cannot be met; feasible candidates (as many as the same limit allows) are scored over the
  combined leaf assignments.
* the root: a Success with no pod newly placed becomes "no pods were schedulable".

Every step is logged in :attr:`PodGroupAlgorithm.log` (the search tree the notebooks draw); the
placements generated and evaluated are counted in :attr:`PodGroupAlgorithm.metrics`.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kschedlab.framework import podgroups as pgstate
from kschedlab.framework.interface import CycleState
from kschedlab.framework.placement import Placement, PodGroupAssignments
from kschedlab.framework.podgroups import PodGroupInfo
from kschedlab.framework.runtime import FrameworkError
from kschedlab.framework.status import Code, Status
from kschedlab.framework.trace import CycleTrace

__all__ = ["PodGroupInfo", "PodResult", "GroupResult", "PodGroupAlgorithm", "placement_fit_error",
           "num_feasible_placements_to_find", "proposed_assignments", "successful_leaves"]

GATE_TAS = "TopologyAwareWorkloadScheduling"
GATE_COMPOSITE = "CompositePodGroup"
MSG_NO_PODS_SCHEDULABLE = "no pods were schedulable"
MSG_NOMINATED_NOTHING = "nominated placement is feasible but no pending pod was scheduled"
#: the fewest feasible placements searched for, whatever the percentage
MIN_FEASIBLE_PLACEMENTS_TO_FIND = 1
#: the adaptive percentage's floor (a configured percentage may be lower)
MIN_FEASIBLE_PLACEMENTS_PERCENTAGE_TO_FIND = 5
# a PlacementFeasible verdict's code compared as a plain int and named from a dict (reading an
# enum member or its name goes through the enum's descriptors)
_CODE_NAMES = {code: code.name for code in Code}
_ERROR, _UNSCHEDULABLE, _UNRESOLVABLE, _WAIT = (int(c) for c in (Code.Error, Code.Unschedulable,
                                                                 Code.UnschedulableAndUnresolvable, Code.Wait))


def num_feasible_placements_to_find(percentage: int, num_placements: int, num_nodes: int) -> int:
    """How many feasible placements the placement algorithm looks for before it scores them:
    ``percentage`` of the ``num_placements`` generated, at least one. ``percentage`` 0 is
    adaptive: 100% falling linearly to 10% as ``num_nodes`` (the nodes summed over the generated
    placements, which may overlap or leave nodes out) grows from 0 to 5,000, never below 5%.

    >>> [num_feasible_placements_to_find(0, 50, n) for n in (0, 500, 2500, 5000, 10000)]
    [50, 45, 27, 5, 2]
    >>> num_feasible_placements_to_find(30, 500, 50000), num_feasible_placements_to_find(3, 10, 100)
    (150, 1)
    """
    if percentage == 0:
        percentage = max(100 - num_nodes * 9 // 500, MIN_FEASIBLE_PLACEMENTS_PERCENTAGE_TO_FIND)
    return max(num_placements * percentage // 100, MIN_FEASIBLE_PLACEMENTS_TO_FIND)


def placement_fit_error(message: str, num_placements: int) -> str:
    """``podGroupFitError.Error()`` inside the placement algorithm.

    >>> placement_fit_error("minCount (4) cannot be satisfied: 2 scheduled, 0 remaining", 3)
    '0/3 placements are available, first placement status: minCount (4) cannot be satisfied: 2 scheduled, 0 remaining'
    """
    if num_placements == 0:
        return message
    return f"0/{num_placements} placements are available, first placement status: {message}"


@dataclass
class PodResult:
    """One pod's outcome inside the algorithm (``algorithmResult``)."""

    pod_info: Any
    node: str | None
    status: Status
    state: CycleState | None = None
    trace: CycleTrace | None = None
    diagnosis: Any = None

    @property
    def key(self) -> str:
        return self.pod_info.key


@dataclass
class GroupResult:
    """A group's outcome (``PodGroupScheduledResult``)."""

    info: PodGroupInfo
    status: Status
    pods: list[PodResult] = field(default_factory=list)
    any_scheduled: bool = False
    waiting_on_preemption: bool = False
    placement: Placement | None = None
    #: pod key -> node a PodGroupPostFilter nominated
    nominations: dict[str, str] = field(default_factory=dict)


class _Reverts(list):
    def revert(self) -> None:
        while self:
            self.pop()()


class PodGroupAlgorithm:
    """Runs the algorithm for one profile over the scheduler's snapshot.

    ``scheduler`` provides the per-pod filter/score (``_schedule_pod``), its ``rng`` and
    gates; ``log`` collects ``dict`` steps: ``placement`` (a candidate is tried), ``pod``
    (a pod placed or not), ``feasible`` (a PlacementFeasible verdict), ``revert``,
    ``score`` and ``commit``; each has the group ``key`` and ``depth``.
    """

    def __init__(self, scheduler, fw, scheduled: dict[str, int] | None = None):
        self.scheduler = scheduler
        self.fw = fw
        #: PodGroup key -> its scheduled (assumed or assigned) members when the run starts, where
        #: the caller counted them already; a group's own count does not move during the run (its
        #: pods are reverted before it is evaluated again, other groups' pods are not its members)
        self._scheduled = scheduled or {}
        self.snapshot = scheduler.cluster.snapshot
        self.gates = scheduler.gates
        self.log: list[dict] = []
        #: upstream's placement metrics: ``scheduler_generated_placements_total`` and
        #: ``scheduler_placement_evaluations_total`` by result (an evaluation ending in Error
        #: counts in neither)
        self.metrics = {"generatedPlacements": 0, "feasibleEvaluations": 0, "infeasibleEvaluations": 0}
        self._all_nodes = self._placement = Placement.all_nodes(self.snapshot)
        self._depth = 0
        self._root_kind = "PodGroup"

    # -- entry ---------------------------------------------------------------------------------
    def run_root(self, root: PodGroupInfo) -> dict[str, GroupResult]:
        """``RunRootSchedulingAlgorithm``: results of every group evaluated; the snapshot is
        left exactly as it was."""
        self._root_kind = root.kind
        reverts = _Reverts()
        try:
            if root.kind == "CompositePodGroup":
                results: dict[str, GroupResult] = {}
                result, reverts = self._composite(root, results)
            else:
                result, reverts = self._pod_group(root)
                results = {root.key: result}
            if result.status.is_success() and not result.any_scheduled:
                result.status = Status.unschedulable(MSG_NO_PODS_SCHEDULABLE)
            return results
        finally:
            reverts.revert()

    def _pod_group(self, info: PodGroupInfo) -> tuple[GroupResult, _Reverts]:
        if self.gates.enabled(GATE_TAS):
            return self._placement_algorithm(info)
        return self._default(info, CycleState())

    # -- default algorithm ---------------------------------------------------------------------------
    def _default(self, info: PodGroupInfo, pstate: CycleState) -> tuple[GroupResult, _Reverts]:
        """``podGroupSchedulingDefaultAlgorithm``: the queued pods in order."""
        scheduled = self._scheduled_count(info)

        def run(pod_info, result):
            pod_result, revert = self._schedule_member(info, pod_info)
            result.pods.append(pod_result)
            return pod_result.status, pod_result.status.is_success(), [revert] if revert is not None else []

        return self._members_loop(info, pstate, info.pods, run, scheduled,
                                  "failed to schedule other pod from a pod group")

    def _scheduled_count(self, info: PodGroupInfo) -> int:
        """The group's assumed and assigned members (as the caller counted them, else now)."""
        count = self._scheduled.get(info.key)
        if count is None:
            count = pgstate.pod_group_state(self.scheduler.cluster, info.namespace, info.name).scheduled_pods_count
        return count

    def _members_loop(self, info: PodGroupInfo, pstate, members: list, run, scheduled: int,
                      error_prefix: str) -> tuple[GroupResult, _Reverts]:
        """Members (pods or child groups) one by one, ``PlacementFeasible`` before the first and
        after each; a group that ends without Success rolls back what it placed."""
        reverts = _Reverts()
        remaining = len(members)
        proceed, status = self._feasible(pstate, info, scheduled, remaining)
        result = GroupResult(info, status, placement=self._placement)
        if proceed:
            for member in members:
                member_status, placed_any, member_reverts = run(member, result)
                reverts.extend(member_reverts)
                if member_status.code == Code.Error:
                    result.status = Status.error(f"{error_prefix}: {member_status.message()}")
                    break
                remaining -= 1
                if member_status.is_success():
                    scheduled += 1
                proceed, result.status = self._feasible(pstate, info, scheduled, remaining)
                if not proceed:
                    break
                result.any_scheduled = result.any_scheduled or placed_any
        if not result.status.is_success():
            self._revert(info, reverts)
            result.any_scheduled = False
        return result, reverts

    def _feasible(self, pstate, info: PodGroupInfo, scheduled: int, remaining: int) -> tuple[bool, Status]:
        """``podGroupPotentiallyFeasible``: (go on?, the group's status so far)."""
        status = self.fw.run_placement_feasible(pstate, info, scheduled, remaining)
        code = status.code
        self.log.append({"step": "feasible", "key": info.key, "depth": self._depth, "code": _CODE_NAMES[code],
                         "message": status.message(), "scheduled": scheduled, "remaining": remaining,
                         "placement": self._placement.name})
        if code == _ERROR:
            return False, Status.error(f"failed to evaluate placement feasibility: {status.message()}")
        if code == _UNSCHEDULABLE:
            return False, status
        if code == _UNRESOLVABLE:
            return False, Status(Code.Unschedulable, status.reasons, status.plugin)
        if code == _WAIT:
            return True, Status(Code.Unschedulable, status.reasons, status.plugin)
        return True, status

    def _schedule_member(self, info: PodGroupInfo, pod_info) -> tuple[PodResult, Any]:
        """Filter and score one pod inside the current placement; assume it when it fits."""
        sched, fw = self.scheduler, self.fw
        state = CycleState()
        state["podgroup/cycle"] = info.key
        trace = CycleTrace(pod_info.key, fw.profile.scheduler_name, self.snapshot.node_names())
        step = {"step": "pod", "key": info.key, "pod": pod_info.key, "depth": self._depth,
                "placement": self._placement.name}
        self.log.append(step)
        if len(self._placement.rows) == 0:
            status = Status(Code.UnschedulableAndUnresolvable, ("no nodes available to schedule pods",))
            step.update(node=None, message=status.message())
            return PodResult(pod_info, None, status, state, trace), None
        try:
            restrict = None if self._placement is self._all_nodes else self._placement.rows
            node, diagnosis = sched.find_node(fw, state, pod_info, self.snapshot, trace, restrict=restrict)
        except FrameworkError as err:
            step.update(node=None, message=str(err))
            return PodResult(pod_info, None, Status.error(str(err)), state, trace), None
        if node is None:
            status = Status(Code.Unschedulable, (diagnosis.message(),))
            step.update(node=None, message=status.message())
            return PodResult(pod_info, None, status, state, trace, diagnosis), None
        status, revert = self.assume_and_reserve(state, pod_info, node)
        step.update(node=node if status.is_success() else None, message=status.message())
        if not status.is_success():
            return PodResult(pod_info, None, status, state, trace), None
        return PodResult(pod_info, node, Status(), state, trace), revert

    def assume_and_reserve(self, state, pod_info, node: str):
        """``AssumeAndReserveInSnapshot``: the pod on ``node`` in the snapshot, Reserve run;
        returns (status, revert) — revert unreserves and forgets it."""
        self.snapshot.add_pod(pod_info, node)
        status = self.fw.run_reserve(state, pod_info, node)

        def revert():
            self.fw.run_unreserve(state, pod_info, node)
            self.snapshot.remove_pod(pod_info.key)

        if not status.is_success():
            revert()
            return status, None
        return status, revert

    def _revert(self, info: PodGroupInfo, reverts: _Reverts) -> None:
        if reverts:
            self.log.append({"step": "revert", "key": info.key, "depth": self._depth,
                             "placement": self._placement.name, "pods": len(reverts)})
        reverts.revert()

    # -- placement algorithm ------------------------------------------------------------------------
    def _generate(self, info: PodGroupInfo) -> tuple[list[Placement], Status]:
        """PlacementGenerate inside the current placement; a candidate's nodes are put in
        snapshot order (the order pods walk them in) once here, not for every pod."""
        placements, status = self.fw.run_placement_generate(CycleState(), info, self._placement)
        if status.is_success():
            self.metrics["generatedPlacements"] += len(placements)
        order = self.snapshot.order
        position = np.full(len(self.snapshot.names), -1, np.int64)
        position[order] = np.arange(len(order))

        def in_order(rows: np.ndarray) -> np.ndarray:
            rows = rows[position[rows] >= 0]
            return rows[np.argsort(position[rows], kind="stable")]

        return [p if p is self._placement else Placement(p.name, in_order(np.asarray(p.rows, np.int64)))
                for p in placements], status

    @contextmanager
    def _in_placement(self, placement: Placement, info: PodGroupInfo):
        """``AssumePlacement`` for the duration of a ``with``: pods see only its nodes."""
        parent, self._placement = self._placement, placement
        self._depth += 1
        self.log.append({"step": "placement", "key": info.key, "depth": self._depth, "placement": placement.name,
                         "nodes": len(placement.rows)})
        try:
            yield
        finally:
            self._placement = parent
            self._depth -= 1

    def _placement_algorithm(self, info: PodGroupInfo) -> tuple[GroupResult, _Reverts]:
        placements, status = self._generate(info)
        if not status.is_success():
            return GroupResult(info, status), _Reverts()
        nominated = self._nominated_placement(placements, info)
        successes: list[tuple[Placement, GroupResult]] = []
        any_result = None
        if nominated is not None:
            result = self._evaluate(info, nominated)
            if result.status.code == Code.Error:
                return result, _Reverts()
            any_result = result
            if result.status.is_success() and result.any_scheduled:
                successes.append((nominated, result))
        if not successes:
            to_find, order = self._search_order(placements)
            for placement in order:
                if placement is nominated:
                    continue
                result = self._evaluate(info, placement)
                if result.status.code == Code.Error:
                    return result, _Reverts()
                any_result = any_result or result
                if result.status.is_success():
                    successes.append((placement, result))
                    if len(successes) >= to_find:
                        break
        if not successes:
            message = any_result.status.message()
            if any_result.status.is_success():
                message = MSG_NOMINATED_NOTHING
            any_result.status = Status.unschedulable(placement_fit_error(message, len(placements)))
            return any_result, _Reverts()
        best, status = self._best(info, [(p, [r]) for p, r in successes])
        if not status.is_success():
            return GroupResult(info, status), _Reverts()
        result = dict((id(p), r) for p, r in successes)[id(best)]
        reverts, err = self._assume_subtree([result])
        if err is not None:
            return GroupResult(info, Status.error(f"failed to assume the subtree: {err}")), _Reverts()
        return result, reverts

    def _search_order(self, placements: list[Placement]) -> tuple[int, list[Placement]]:
        """(feasible placements to find, the order to try them in): one when the profile has no
        PlacementScore plugin, else :func:`num_feasible_placements_to_find` with the profile's
        ``percentageOfPlacementsToScore`` or the configuration's; the candidates shuffled with
        the scheduler's ``rng`` when that leaves some out, as generated otherwise."""
        to_find = MIN_FEASIBLE_PLACEMENTS_TO_FIND
        if self.fw.points["placementScore"]:
            pct = self.fw.profile.percentage_of_placements_to_score
            if pct is None:
                pct = self.scheduler.percentage_of_placements_to_score
            to_find = num_feasible_placements_to_find(pct, len(placements), sum(len(p.rows) for p in placements))
        if to_find >= len(placements):
            return to_find, placements
        order = list(placements)
        self.scheduler.rng.shuffle(order)
        return to_find, order

    def _evaluate(self, info: PodGroupInfo, placement: Placement) -> GroupResult:
        """The default algorithm inside ``placement``, reverted afterwards."""
        with self._in_placement(placement, info):
            result, reverts = self._default(info, CycleState())
            self._revert(info, reverts)
        result.placement = placement
        self._count_evaluation(result.status)
        return result

    def _count_evaluation(self, status: Status) -> None:
        if status.code != Code.Error:
            self.metrics["feasibleEvaluations" if status.is_success() else "infeasibleEvaluations"] += 1

    def _nominated_placement(self, placements: list[Placement], info: PodGroupInfo) -> Placement | None:
        """The one placement holding the pods' nominated nodes (None when none or several do, and
        inside a CompositePodGroup cycle, which scores every placement)."""
        if self._root_kind != "PodGroup":
            return None
        nominated = {pi.pod.status.nominated_node_name for pi in info.pods
                     if pi.pod.status is not None and pi.pod.status.nominated_node_name}
        rows = {self.snapshot.index[n] for n in nominated if n in self.snapshot.index}
        if not rows:
            return None
        matched = None
        for placement in placements:
            if rows.intersection(placement.rows.tolist()):
                if matched is not None:
                    return None
                matched = placement
        return matched

    def _best(self, info: PodGroupInfo, successes: list[tuple[Placement, list[GroupResult]]]
              ) -> tuple[Placement | None, Status]:
        """``findBestPlacement``: the only feasible one, else the highest weighted total with
        a seeded random tie-break."""
        if len(successes) == 1:
            self.log.append({"step": "commit", "key": info.key, "depth": self._depth,
                             "placement": successes[0][0].name})
            return successes[0][0], Status()
        assignments = [proposed_assignments(p, results) for p, results in successes]
        rows, status = self.fw.run_placement_score(CycleState(), info, assignments)
        if not status.is_success():
            return None, status
        rng = self.scheduler.rng
        best, best_key = None, None
        for row in rows:
            row["randomizer"] = rng.getrandbits(62)
            key = (row["total"], row["randomizer"])
            if best_key is None or key > best_key:
                best, best_key = row, key
        self.log.append({"step": "score", "key": info.key, "depth": self._depth,
                         "rows": [{"placement": r["placement"].name, "total": r["total"], **r["scores"]}
                                  for r in rows]})
        self.log.append({"step": "commit", "key": info.key, "depth": self._depth,
                         "placement": best["placement"].name})
        return best["placement"], Status()

    def _assume_subtree(self, results: list[GroupResult]) -> tuple[_Reverts, str | None]:
        """``assumeSubtreeWithRevert``: the chosen pods assumed again."""
        reverts = _Reverts()
        for result in results:
            for pr in result.pods:
                if not pr.status.is_success() or not pr.node:
                    continue
                status, revert = self.assume_and_reserve(pr.state, pr.pod_info, pr.node)
                if revert is not None:
                    reverts.append(revert)
                if not status.is_success():
                    reverts.revert()
                    return _Reverts(), status.message()
        return reverts, None

    # -- CompositePodGroup ------------------------------------------------------------------------------
    def _recursive(self, info: PodGroupInfo, results: dict) -> tuple[GroupResult, _Reverts]:
        if info.kind == "PodGroup":
            result, reverts = self._pod_group(info)
            results[info.key] = result
            return result, reverts
        return self._composite(info, results)

    def _composite(self, info: PodGroupInfo, results: dict) -> tuple[GroupResult, _Reverts]:
        """``compositePodGroupSchedulingPlacementAlgorithm``."""
        placements, status = self._generate(info)
        if not status.is_success():
            results[info.key] = GroupResult(info, status)
            return results[info.key], _Reverts()
        any_subtree = None
        successes: list[tuple[Placement, dict]] = []
        to_find, order = self._search_order(placements)
        for placement in order:
            subtree: dict[str, GroupResult] = {}
            with self._in_placement(placement, info):
                result, reverts = self._composite_default(info, subtree)
                self._revert(info, reverts)
            result.placement = placement
            self._count_evaluation(result.status)
            if result.status.code == Code.Error:
                results.update(subtree)
                return result, _Reverts()
            any_subtree = any_subtree or subtree
            if result.status.is_success():
                successes.append((placement, subtree))
                if len(successes) >= to_find:
                    break
        if not successes:
            root = any_subtree[info.key]
            root.status = Status.unschedulable(placement_fit_error(root.status.message(), len(placements)))
            results.update(any_subtree)
            return root, _Reverts()
        scored = [(p, list(successful_leaves(info, sub))) for p, sub in successes]
        best, status = self._best(info, scored)
        if not status.is_success():
            results[info.key] = GroupResult(info, status)
            return results[info.key], _Reverts()
        subtree = dict((id(p), sub) for p, sub in successes)[id(best)]
        reverts, err = self._assume_subtree(list(successful_leaves(info, subtree)))
        if err is not None:
            results[info.key] = GroupResult(info, Status.error(f"failed to assume the subtree: {err}"))
            return results[info.key], _Reverts()
        results.update(subtree)
        return subtree[info.key], reverts

    def _composite_default(self, info: PodGroupInfo, results: dict) -> tuple[GroupResult, _Reverts]:
        """``compositePodGroupSchedulingDefaultAlgorithm``: children in order, PlacementFeasible
        (``minGroupCount``) after each, stop and roll back once the policy cannot be met."""

        def run(child, _result):
            child_result, child_reverts = self._recursive(child, results)
            return child_result.status, child_result.any_scheduled, list(child_reverts)

        result, reverts = self._members_loop(info, CycleState(), info.children, run, 0,
                                             "composite pod group evaluation failed due to child error")
        results[info.key] = result
        return result, reverts


def proposed_assignments(placement: Placement, results: list[GroupResult]) -> PodGroupAssignments:
    """The ProposedAssignments PlacementScore sees for ``placement``: the placed pods (Success
    with a node) of ``results``."""
    return PodGroupAssignments(placement, [(pr.pod_info, pr.node) for r in results for pr in r.pods
                                           if pr.status.is_success() and pr.node])


def successful_leaves(root: PodGroupInfo, results: dict):
    """``successfulLeafResults``: leaf results under successful ancestors only."""
    result = results.get(root.key)
    if result is None or not result.status.is_success():
        return
    for child in root.children:
        yield from successful_leaves(child, results)
    if result.pods:
        yield result


def pods_by_status(results: dict[str, GroupResult]) -> dict[str, list[str]]:
    """Pod keys per outcome over every leaf result (a summary for notebooks and tests)."""
    out: dict[str, list[str]] = {"placed": [], "unplaced": []}
    for result in results.values():
        for pr in result.pods:
            out["placed" if pr.node else "unplaced"].append(pr.key)
    return out

