"""What removes running pods, outside the scheduler's own preemption.

* :mod:`.api_initiated` — API-initiated eviction: the ``pods/eviction`` subresource, graceful
  deletion and the ``DisruptionTarget`` condition;
* :mod:`.disruption` — PodDisruptionBudgets: which budgets select a pod, and the disruption
  controller that keeps their status (preemption and eviction both read it);
* :mod:`.drain` — ``kubectl drain``: cordon, then evict node by node with retries;
* :mod:`.taint_manager` — taint-based eviction: the NoExecute taint manager and the node
  lifecycle taints;
* :mod:`.timed_workers` — the taint manager's timers (``TimedWorkerQueue``) on a virtual clock.

Node-pressure eviction by the kubelet is in :mod:`kschedlab.kubelet`.
"""

from kschedlab.eviction.api_initiated import (
    EvictionResponse,
    evict,
    finish_terminations,
    graceful_delete,
    pod_phase,
    update_pod_condition,
)

__all__ = ["EvictionResponse", "evict", "finish_terminations", "graceful_delete", "pod_phase",
           "update_pod_condition"]
