"""The outcome of one scheduling attempt, as the scheduler records it."""

from __future__ import annotations

from dataclasses import dataclass

from kschedlab.framework.diagnosis import Diagnosis
from kschedlab.framework.status import Status
from kschedlab.framework.trace import CycleTrace


@dataclass
class ScheduleResult:
    """The outcome of one scheduling attempt."""

    pod: str
    node: str | None
    status: Status
    message: str = ""
    trace: CycleTrace | None = None
    diagnosis: Diagnosis | None = None

    @property
    def scheduled(self) -> bool:
        return self.node is not None

    def explain(self):
        """Per-node DataFrame of this attempt (requires a recorded trace)."""
        if self.trace is None:
            raise ValueError(f"no trace was kept for {self.pod}")
        return self.trace.explain()

    def to_dict(self) -> dict:
        """The stable JSON shape of ``kschedlab schedule -o json``."""
        out = {"name": self.pod, "node": self.node, "status": self.status.code.name,
               "message": self.message, "filter": {}, "scores": {}}
        if self.trace is not None:
            out["filter"] = {node: {"code": st.code.name, "plugin": st.plugin, "reasons": list(st.reasons)}
                             for node, st in self.trace.filter_statuses().items()}
            out["scores"] = self.trace.scores()
        return out
