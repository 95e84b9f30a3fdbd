"""What the scheduler records: the outcome of one attempt (:class:`ScheduleResult`) and, for a
whole run of the scheduling loop, what became of every pod (:class:`PodReport`,
:class:`RunResult`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from kschedlab.framework.diagnosis import Diagnosis
from kschedlab.framework.nominator import NominatingInfo
from kschedlab.framework.status import Status
from kschedlab.framework.trace import CycleTrace

#: ``ScheduleResult.message`` of a pod a PreEnqueue plugin holds back (its status says why)
GATED_MESSAGE = "SchedulingGated"
#: the start of ``ScheduleResult.message`` of a popped pod that is being deleted: not scheduled
#: (upstream ``skipPodSchedule``'s FailedScheduling event, ``skip schedule deleting pod: <ns>/<name>``)
SKIP_DELETING_PREFIX = "skip schedule deleting pod: "


@dataclass
class ScheduleResult:
    """The outcome of one scheduling attempt."""

    pod: str
    node: str | None
    status: Status
    message: str = ""
    trace: CycleTrace | None = None
    diagnosis: Diagnosis | None = None
    #: the nominating info a failed attempt hands the failure handler (upstream's
    #: ``ScheduleResult.nominatingInfo``, ``clearNominatedNode`` after the pod was assumed); None
    #: when the attempt did not fail or PostFilter left the nomination alone (Noop)
    nominating_info: NominatingInfo | None = None

    @property
    def scheduled(self) -> bool:
        return self.node is not None

    @property
    def gated(self) -> bool:
        """Held back by a PreEnqueue plugin (scheduling gates, a gang below quorum): no attempt ran."""
        return self.node is None and self.message == GATED_MESSAGE

    @property
    def skipped(self) -> bool:
        """The pod was being deleted when popped: no attempt ran and it leaves the queue.

        >>> ScheduleResult("ns/p", None, Status(), SKIP_DELETING_PREFIX + "ns/p").skipped
        True
        """
        return self.node is None and self.message.startswith(SKIP_DELETING_PREFIX)

    def explain(self):
        """Per-node DataFrame of this attempt (requires a recorded trace)."""
        if self.trace is None:
            raise ValueError(f"no trace was kept for {self.pod}")
        return self.trace.explain()

    def to_dict(self) -> dict:
        """The stable JSON shape of one attempt: ``name``, ``node``, ``status``, ``message``,
        ``filter`` (every node of the snapshot that was not skipped by percentageOfNodesToScore:
        the ones PreFilter left out carry its status) and ``scores``."""
        out = {"name": self.pod, "node": self.node, "status": self.status.code.name,
               "message": self.message, "filter": {}, "scores": {}}
        if self.trace is not None:
            statuses = self.trace.filter_statuses()
            if self.trace.absent_status is not None:  # nodes PreFilter left out get its status, as in explain()
                for node in self.trace.node_names:
                    if node is not None and node not in statuses:
                        statuses[node] = self.trace.absent_status
            out["filter"] = {node: {"code": st.code.name, "plugin": st.plugin, "reasons": list(st.reasons)}
                             for node, st in statuses.items()}
            out["scores"] = self.trace.scores()
        return out


@dataclass
class Victim:
    """A pod deleted by preemption: where it ran and who preempted it (a pod key, or a group key
    such as ``podgroup/ml/train`` for workload-aware preemption)."""

    pod: str
    node: str | None
    preempted_by: str


@dataclass
class PodReport:
    """What became of one pod in a run of the scheduling loop.

    ``pod_status`` is kubectl's STATUS column at the end of the run: ``Pending``,
    ``SchedulingGated``, ``Running`` once bound, ``Terminating`` for a victim of preemption
    (deleted by the scheduler; ``preempted_by`` names the preemptor). ``message`` is the
    last attempt's message (for a pod held back before any attempt, the PreEnqueue plugin's
    message; for a victim, its ``DisruptionTarget`` condition's); ``last_failure`` the message
    of its last failed attempt, even when a later one bound it.

    >>> from kschedlab.framework.status import Status
    >>> r = PodReport("default/web", "n1", "Running", attempts=2, last_failure="0/1 nodes are available: "
    ...               "1 Insufficient cpu.", result=ScheduleResult("default/web", "n1", Status()))
    >>> d = r.to_dict(); d["podStatus"], d["status"], d["attempts"], d["victims"]
    ('Running', 'Success', 2, [])
    """

    name: str
    node: str | None
    pod_status: str
    nominated_node: str | None = None
    attempts: int = 0
    message: str = ""
    last_failure: str = ""
    victims: list[Victim] = field(default_factory=list)
    preempted_by: str | None = None
    stopped: bool = False
    result: ScheduleResult | None = None

    def to_dict(self) -> dict:
        """``ScheduleResult.to_dict()``'s keys (``status`` is None for a pod not attempted in the
        run) plus ``podStatus``, ``nominatedNodeName``, ``attempts``, ``lastFailureMessage``,
        ``victims`` (``[{name, node}]``), ``preemptedBy`` and ``attemptBoundReached``."""
        if self.result is not None:
            out = self.result.to_dict()
        else:
            out = {"name": self.name, "node": self.node, "status": None, "message": "", "filter": {}, "scores": {}}
        out["node"] = self.node
        out["message"] = self.message
        out.update({"podStatus": self.pod_status, "nominatedNodeName": self.nominated_node,
                    "attempts": self.attempts, "lastFailureMessage": self.last_failure,
                    "victims": [{"name": v.pod, "node": v.node} for v in self.victims],
                    "preemptedBy": self.preempted_by, "attemptBoundReached": self.stopped})
        return out


class RunResult(list):
    """What :meth:`Scheduler.run` returns: a list with the last :class:`ScheduleResult` of
    every pod it took (in queue order, as before), plus the story of the run.

    ``pods`` — a :class:`PodReport` per pod, victims of preemption included;
    ``attempts`` — scheduling attempts made; ``max_attempts`` — the per-pod bound;
    ``stopped`` — pods left where they were because they reached it; ``once`` — a single pass;
    ``history`` — every ScheduleResult recorded during the run, in order (all attempts).
    """

    def __init__(self, results=(), *, pods=(), attempts: int = 0, max_attempts: int | None = None,
                 stopped=(), once: bool = False, history=()):
        super().__init__(results)
        self.pods: list[PodReport] = list(pods)
        self.history: list[ScheduleResult] = list(history)
        self.attempts = attempts
        self.max_attempts = max_attempts
        self.stopped: list[str] = list(stopped)
        self.once = once

    def to_dict(self) -> dict:
        """``{"pods": [...], "attempts": N, "maxAttempts": N, "once": bool, "attemptBoundReached": [...]}``."""
        return {"pods": [p.to_dict() for p in self.pods], "attempts": self.attempts,
                "maxAttempts": self.max_attempts, "once": self.once, "attemptBoundReached": list(self.stopped)}
