"""The queue against an injected clock: periodic flushes and ``next_wakeup``.

Upstream's ``PriorityQueue.Run`` (scheduling_queue.go, stored copy id 54506489227) runs
``flushBackoffQCompleted`` every second -- aligned to whole seconds by
``waitUntilAlignedWithOrderingWindow`` when SchedulerPopFromBackoffQ is on, else
``wait.Until`` from the start -- and ``flushUnschedulableEntitiesLeftover`` every 30 s
(``wait.Until``: right away, then every period). ``flush()`` runs whichever tick has come;
``next_wakeup()`` tells a simulation when the next one will move a pod.
"""

from __future__ import annotations

from kschedlab_queue_fakes import FakeClock, info, make_pod, new_queue, pop_pod

from kschedlab.features import FeatureGates
from kschedlab.framework import events as ev

GATE_OFF = FeatureGates({"SchedulerPopFromBackoffQ": False})
POD = make_pod("p", "ns", "uid-p")


def failed_once(clock, **kwargs):
    q = new_queue(clock, **kwargs)
    q.add(info(POD))
    qpi = pop_pod(q, POD)
    q.add_unschedulable_if_not_present(qpi, set(), error=True)  # errors go straight to backoffQ
    return q


def test_nothing_pending_needs_no_wakeup():
    q = new_queue(FakeClock(1_000.0))
    assert q.next_wakeup() is None
    q.add(info(POD))
    assert q.next_wakeup() is None  # activeQ is popped by the scheduler, not by time


def test_backoff_flush_on_whole_seconds_with_pop_from_backoff_q():
    clock = FakeClock(1_000.25)
    q = failed_once(clock)
    assert q.backoff_expiration(q.get("ns/p")) == 1_001.0  # 1_001.25 truncated to the window
    assert q.next_wakeup() == 1_002.0  # the expiry must be before the (aligned) flush time
    clock.t = 1_001.75
    q.flush()
    assert q.where("ns/p") == "backoff"
    clock.t = 1_002.0
    q.flush()
    assert q.where("ns/p") == "active"
    assert q.history[-1][0] == 1_002.0 and q.history[-1][4] == ev.BACKOFF_COMPLETE


def test_backoff_flush_every_second_from_start_without_pop_from_backoff_q():
    clock = FakeClock(1_000.25)
    q = failed_once(clock, gates=GATE_OFF)
    assert q.backoff_expiration(q.get("ns/p")) == 1_001.25
    assert q.next_wakeup() == 1_002.25  # ticks at 1001.25 (expiry not yet before now), 1002.25
    clock.t = 1_001.25
    q.flush()
    assert q.where("ns/p") == "backoff"
    clock.t = 1_002.25
    q.flush()
    assert q.where("ns/p") == "active"


def test_backoff_flush_runs_once_per_tick():
    clock = FakeClock(1_000.0)
    q = failed_once(clock)
    clock.t = 1_000.5
    q.flush()
    q.flush()
    assert q.where("ns/p") == "backoff"


def test_pop_from_backoff_q_takes_a_backing_off_pod_when_active_is_empty():
    clock = FakeClock(1_000.0)
    q = new_queue(clock)
    q.add(info(POD))
    qpi = pop_pod(q, POD)
    q.add_unschedulable_if_not_present(qpi, {"plugin"})
    q.move_all_to_active_or_backoff(ev.EVENT_UNSCHEDULABLE_TIMEOUT)
    assert q.where("ns/p") == "backoff"
    assert q.pop() is qpi and qpi.attempts == 2
    q2 = failed_once(FakeClock(1_000.0), gates=GATE_OFF)
    assert q2.pop() is None


def test_leftover_flush_every_30s_after_5_minutes():
    clock = FakeClock(1_000.0)
    q = new_queue(clock)
    q.add(info(POD))
    qpi = pop_pod(q, POD)
    q.add_unschedulable_if_not_present(qpi, {"plugin"})
    assert q.where("ns/p") == "unschedulable"
    # the flush at 1300 sees exactly 300 s (not more than podMaxInUnschedulablePodsDuration): the next one moves it
    assert q.next_wakeup() == 1_330.0
    clock.t = 1_300.0
    q.flush()
    assert q.where("ns/p") == "unschedulable"
    clock.t = 1_330.0
    q.flush()
    assert q.where("ns/p") == "active"
    assert q.get("ns/p").was_flushed_from_unschedulable


def test_flush_catches_up_after_a_long_jump():
    clock = FakeClock(1_000.0)
    q = new_queue(clock)
    q.add(info(POD))
    qpi = pop_pod(q, POD)
    q.add_unschedulable_if_not_present(qpi, {"plugin"})
    clock.t = 5_000.0
    q.flush()
    assert q.where("ns/p") == "active"


def test_simulation_loop_reaches_every_wakeup():
    """Driving the clock by next_wakeup(): a pod rejected five times by an error backs off
    1, 2, 4, 8, 10 s (aligned to whole seconds) and is retried right after each backoff."""
    clock = FakeClock(1_000.0)
    q = new_queue(clock)
    q.add(info(POD))
    retried_at = []
    for _ in range(5):
        qpi = q.pop()
        assert qpi is not None
        q.add_unschedulable_if_not_present(qpi, set(), error=True)  # errorBackoffQ: never popped early
        failed_at = clock()
        while q.where("ns/p") != "active":
            clock.t = q.next_wakeup()
            q.flush()
        retried_at.append(clock() - failed_at)
    assert retried_at == [2.0, 3.0, 5.0, 9.0, 11.0]
