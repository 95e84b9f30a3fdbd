"""The scheduling framework: status codes, plugin contracts, profiles, the runtime and traces."""

from kschedlab.framework.interface import CycleState, Plugin, PreFilterResult, Verdicts, register
from kschedlab.framework.status import Code, Status

__all__ = ["CycleState", "Plugin", "PreFilterResult", "Verdicts", "register", "Code", "Status"]
