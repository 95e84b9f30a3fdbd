"""Fixtures for upstream's NodeDeclaredFeatures tests: a registry of mock features and a component
version given to the plugin, and a PreFilter state written without running PreFilter (the keys are
described in :mod:`kschedlab.conformance.node_declared_features`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kschedlab.conformance.compare import Mismatch
from kschedlab.framework.interface import CycleState

__all__ = ["MockFeature", "apply_fixtures", "seed_state"]


@dataclass
class MockFeature:
    """A registry entry whose ``InferForScheduling`` answers from a script (upstream's MockFeature).

    >>> m = MockFeature("F", [False, True])
    >>> m.infer_for_scheduling(None), m.infer_for_scheduling(None)
    (False, True)
    """

    name: str
    answers: Any = False
    max_version: Any = None
    calls: int = field(default=0)

    def infer_for_scheduling(self, spec) -> bool:
        if isinstance(self.answers, list):
            if self.calls >= len(self.answers):
                raise Mismatch(f"unexpected call {self.calls + 1} to InferForScheduling of {self.name}")
            answer = self.answers[self.calls]
        else:
            answer = self.answers
        self.calls += 1
        return bool(answer)


def apply_fixtures(plugin, case: dict) -> None:
    """Give a NodeDeclaredFeatures plugin the case's mock registry and component version."""
    from kschedlab.api.node_declared_features import Framework, Version

    if "declaredFeatureRegistry" in case:
        plugin.framework = Framework([
            MockFeature(f["name"], f.get("inferForScheduling", False),
                        Version.parse(f["maxVersion"]) if f.get("maxVersion") else None)
            for f in case["declaredFeatureRegistry"]])
    if "componentVersion" in case:
        v = case["componentVersion"]
        plugin.version = None if v is None else Version.parse(v)


def seed_state(plugin, state: CycleState, other: dict) -> None:
    """Write ``other.preFilterState`` into the cycle state as the plugin's PreFilter would."""
    want = other.get("preFilterState")
    if want is None:
        return
    from kschedlab.plugins.node_declared_features import PRE_FILTER_STATE_KEY, PreFilterState

    state[PRE_FILTER_STATE_KEY] = PreFilterState(plugin.framework.map_sorted(sorted(want["reqs"])))
