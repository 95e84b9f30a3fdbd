"""kube-scheduler: the scheduling and binding cycles over a cluster.

* :mod:`.schedule_one` — :class:`Scheduler`: one pod's scheduling cycle (PreFilter, Filter,
  PostFilter/preemption, Score, select) and binding cycle (Reserve, Permit, PreBind, Bind);
* :mod:`.result` — :class:`ScheduleResult`, the outcome of one attempt, and what became of
  every pod in a run (``RunResult``, ``PodReport``);
* :mod:`.scheduling_loop` — ``Scheduler.run()``: the loop over the scheduling queue to quiescence;
* :mod:`.podgroup` — the PodGroup scheduling cycle for gangs and CompositePodGroups, which
  drives the Scheduler through its public methods.
"""

from kschedlab.scheduler.result import ScheduleResult
from kschedlab.scheduler.schedule_one import (
    MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND,
    MIN_FEASIBLE_NODES_TO_FIND,
    ConfigError,
    Scheduler,
    num_feasible_nodes_to_find,
)

__all__ = ["Scheduler", "ScheduleResult", "ConfigError", "num_feasible_nodes_to_find",
           "MIN_FEASIBLE_NODES_TO_FIND", "MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND"]
