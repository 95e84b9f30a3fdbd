"""A gated pod after some of its scheduling gates are removed: what the API server stores, what
``kubectl get pods`` shows and what the scheduler does with it.

>>> from pathlib import Path
>>> from kschedlab.apiserver.admission import admit
>>> from kschedlab.api.loader import load
>>> objects = admit(load(Path(__file__).resolve().parents[2] / "datasets" / "seed" / "04-pod-with-scheduling-gates.yaml"))
>>> pod = next(o for o in objects if o.kind == "Pod"); nodes = [o for o in objects if o.kind == "Node"]
>>> out = gates_outcome(pod, nodes, keep=["example.com/bar"])
>>> out.gates, out.status, out.node, out.plugin
(['example.com/bar'], 'SchedulingGated', None, 'SchedulingGates')
>>> gates_outcome(pod, nodes, keep=[]).node
'node-2'
>>> print(gates_outcome(pod, nodes, keep=["example.com/foo", "example.com/bar"],
...                     add=["example.com/baz"]).error.split(".yaml: ")[1])
Pod default/test-pod: spec.schedulingGates[2].name: Forbidden: only deletion is allowed, but found new scheduling gate 'example.com/baz'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from kschedlab.api.core import Pod
from kschedlab.api.errors import ManifestError
from kschedlab.apiserver.pod_update import pod_phase_display, update_pod
from kschedlab.cluster import Cluster
from kschedlab.scheduler import Scheduler

__all__ = ["GatesOutcome", "gates_outcome"]


@dataclass
class GatesOutcome:
    """``gates`` the stored pod still has (the old ones when the update was refused), its
    ``status`` (the STATUS column of ``kubectl get pods``), ``generation``, the scheduler's
    answer (``node``, ``message``, the refusing ``plugin``) and the API server's ``error``."""

    gates: list[str]
    status: str
    generation: int | None
    node: str | None
    message: str
    plugin: str | None
    error: str | None = None

    def text(self) -> str:
        """A plain-text summary (what a headless run prints)."""
        lines = []
        if self.error:
            lines.append(f"update refused: {self.error}")
        lines.append(f"schedulingGates: {self.gates or '[]'} | STATUS after the update: {self.status} | generation {self.generation}")
        if self.node:
            lines.append(f"scheduled on {self.node}")
        else:
            lines.append(f"not scheduled ({self.plugin or 'Filter'}): {self.message}")
        return "\n".join(lines)


def gates_outcome(pod: Pod, nodes: Iterable, *, keep: Iterable[str], add: Iterable[str] = (),
                  seed: int = 0) -> GatesOutcome:
    """Update the stored gated ``pod`` to keep only the gates in ``keep`` (plus ``add``, which the
    API server refuses) with a merge patch, then try to schedule it once on ``nodes``. Nothing
    passed in is changed."""
    wanted = [g.name for g in pod.spec.scheduling_gates if g.name in set(keep)] + list(add)
    patch = {"spec": {"schedulingGates": [{"name": g} for g in wanted] or None}}
    error = None
    try:
        stored = update_pod(pod, patch)
    except ManifestError as err:
        stored, error = pod, str(err)
    result = Scheduler(Cluster([*(n.clone() for n in nodes), stored.clone()]), seed=seed).schedule_one(stored.key)
    plugin = result.status.plugin if result.node is None else None
    return GatesOutcome(gates=[g.name for g in stored.spec.scheduling_gates], status=pod_phase_display(stored),
                        generation=stored.metadata.generation, node=result.node, message=result.message or "",
                        plugin=plugin, error=error)
