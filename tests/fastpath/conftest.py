"""Fixtures shared by the fast-path tests."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest


@dataclass
class FusedPreFilterCalls:
    """What went through the fused path: per call of ``FastPath.run_pre_filter``, the pod's key
    and whether its plan ran plugins live beside the fused ones."""

    keys: list[str] = field(default_factory=list)
    live: list[bool] = field(default_factory=list)


@pytest.fixture
def fused_pre_filter_calls(monkeypatch) -> FusedPreFilterCalls:
    """Records every ``FastPath.run_pre_filter`` call (the call itself runs unchanged)."""
    from kschedlab.scheduler.fast_path import FastPath

    calls = FusedPreFilterCalls()
    run_pre_filter = FastPath.run_pre_filter

    def recorded(self, plan, state, info):
        calls.keys.append(info.key)
        calls.live.append(bool(plan.live))
        return run_pre_filter(self, plan, state, info)

    monkeypatch.setattr(FastPath, "run_pre_filter", recorded)
    return calls
