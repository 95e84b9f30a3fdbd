"""Timestamps keep nanosecond precision (Go's RFC3339Nano), and preemption orders by the exact value."""

from __future__ import annotations

import copy
import pickle
from types import SimpleNamespace

import pytest

from kschedlab.api import Pod, dump, load_text
from kschedlab.api.meta import format_time, parse_time, time_ns
from kschedlab.framework.preemption import more_important_pod, start_time_ns


@pytest.mark.parametrize("text, ns, formatted", [
    ("2026-12-01T10:00:00.123456789Z", 1796119200_123456789, "2026-12-01T10:00:00.123456789Z"),
    ("2026-12-01T10:00:00.000000001Z", 1796119200_000000001, "2026-12-01T10:00:00.000000001Z"),
    ("2026-12-01T10:00:00.1234567891Z", 1796119200_123456789, "2026-12-01T10:00:00.123456789Z"),  # Go keeps 9
    ("2026-12-01T12:00:00.5+02:00", 1796119200_500000000, "2026-12-01T10:00:00.5Z"),
    ("2026-12-01T10:00:00Z", 1796119200_000000000, "2026-12-01T10:00:00Z"),
])
def test_parse_and_format_keep_nanoseconds(text, ns, formatted):
    t = parse_time(text)
    assert time_ns(t) == ns and t.ns == ns
    assert format_time(t) == formatted


def test_ordering_equality_and_copies_use_the_exact_value():
    a = parse_time("2026-12-01T10:00:00.123456789Z")
    b = parse_time("2026-12-01T10:00:00.123456788Z")
    assert b < a and a > b and a != b and sorted([a, b]) == [b, a]
    assert a == parse_time("2026-12-01T10:00:00.123456789Z")
    assert len({a, b}) == 2
    assert copy.deepcopy(a).ns == a.ns and pickle.loads(pickle.dumps(a)).ns == a.ns
    assert "nanosecond=789" in repr(a)


POD = """
apiVersion: v1
kind: Pod
metadata: {name: p, creationTimestamp: "2026-12-01T10:00:00.123456789Z"}
status: {startTime: "2026-12-01T10:00:00.987654321Z"}
"""


def test_round_trip_through_load_and_dump():
    pod = load_text(POD)[0]
    assert pod.metadata.creation_timestamp.ns % 1000 == 789
    out = dump([pod])
    assert 'creationTimestamp: \'2026-12-01T10:00:00.123456789Z\'' in out
    assert "startTime: '2026-12-01T10:00:00.987654321Z'" in out
    assert pod.clone().status.start_time.ns == pod.status.start_time.ns
    assert pod.model_copy(deep=True).status.start_time.ns == pod.status.start_time.ns


def _info(name, start, priority=0):
    pod = Pod.model_validate({"metadata": {"name": name}, "status": {"startTime": start}})
    return SimpleNamespace(pod=pod, priority=priority)


def test_preemption_start_time_ordering_sees_nanoseconds():
    # same microsecond: only the nanoseconds say which pod started first (MoreImportantPod)
    early = _info("early", "2026-12-01T10:00:00.123456001Z")
    late = _info("late", "2026-12-01T10:00:00.123456999Z")
    assert start_time_ns(late, 0) - start_time_ns(early, 0) == 998
    assert more_important_pod(early, late, 0) and not more_important_pod(late, early, 0)
