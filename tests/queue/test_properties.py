"""Property tests of the scheduling queue (hypothesis state machine).

Random sequences of the queue's operations -- pods added (some with scheduling gates), popped,
failed (by plugins or with an error), bound, updated (gates removed, annotations), deleted,
activated, cluster events, clock steps and periodic flushes, under both SchedulerPopFromBackoffQ
values -- must keep these invariants:

* a pod is never lost nor duplicated: every live pod is in exactly one of activeQ, backoffQ,
  errorBackoffQ, the unschedulable pool (incl. gated) or in flight, and ``where``/``pending``
  agree; a deleted or bound pod is nowhere (a pod deleted in flight leaves when its attempt ends);
* a gated pod is never popped (scheduling gates can only be removed, as the API enforces);
* a pod popped from activeQ is not ordered after any pod left there (``less``).
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule
from kschedlab_queue_fakes import LESS, NODE_ADD, PV_ADD, FakeClock, info, make_pod, new_queue, queue_hint, skip_hint

from kschedlab.features import FeatureGates
from kschedlab.framework import events as ev
from kschedlab.plugins.scheduling_gates import SchedulingGates
from kschedlab.queue.scheduling_queue import RecordedEvent

N_PODS = 6
EVENTS = [NODE_ADD, PV_ADD, ev.EVENT_ASSIGNED_POD_DELETE, ev.EVENT_UNSCHEDULABLE_TIMEOUT,
          ev.ClusterEvent(ev.NODE, ev.ActionType.UpdateNodeLabel)]
PLUGINS = ["A", "B", "C"]


class QueueMachine(RuleBasedStateMachine):
    @initialize(pop_from_backoff_q=st.booleans(), start=st.floats(0, 5, allow_nan=False))
    def setup(self, pop_from_backoff_q, start):
        self.clock = FakeClock(1_000.0 + start)
        gates = SchedulingGates()
        hints = {"A": [(NODE_ADD, queue_hint)],
                 "B": [(NODE_ADD, skip_hint), (PV_ADD, queue_hint)],
                 "C": [(ev.ClusterEvent(ev.ASSIGNED_POD, ev.ActionType.Delete), queue_hint)],
                 "SchedulingGates": list(gates.events_to_register())}
        self.q = new_queue(self.clock, hints=hints, pre_enqueue=gates.pre_enqueue,
                           gates=FeatureGates({"SchedulerPopFromBackoffQ": pop_from_backoff_q}))
        self.alive: dict[str, object] = {}  # key -> current Pod
        self.in_flight: dict[str, object] = {}  # key -> popped QueuedPodInfo
        self.deleted_in_flight: set[str] = set()

    @staticmethod
    def key(i: int) -> str:
        return f"ns/p{i}"

    # -- operations -------------------------------------------------------------------------------------------
    @rule(i=st.integers(0, N_PODS - 1), priority=st.integers(0, 3), gated=st.sampled_from([False, False, True]))
    def add(self, i, priority, gated):
        key = self.key(i)
        if key in self.alive or key in self.in_flight:
            return
        pod = make_pod(f"p{i}", "ns", f"uid{i}", priority=priority, gates=["g"] if gated else None)
        self.q.add(info(pod))
        self.alive[key] = pod

    @rule()
    def pop(self):
        active_before = list(self.q._active)
        qpi = self.q.pop()
        if qpi is None:
            return
        key = qpi.key
        assert key in self.alive, f"popped {key}, which is not a live pod"
        assert key not in self.in_flight, f"{key} popped twice"
        assert not qpi.gated and not qpi.pod.spec.scheduling_gates, f"gated pod {key} popped"
        if any(x is qpi for x in active_before):
            assert not any(LESS(x, qpi) for x in active_before if x is not qpi), "pop ignored less()"
        self.in_flight[key] = qpi

    @rule(plugins=st.sets(st.sampled_from(PLUGINS), min_size=1), pending=st.sets(st.sampled_from(PLUGINS)),
          error=st.sampled_from([False, False, False, True]))
    def attempt_fails(self, plugins, pending, error):
        """A whole failed attempt: pop, then back to the queue."""
        self.pop()
        if self.in_flight:
            key = max(self.in_flight, key=lambda k: self.in_flight[k].attempts)
            self._fail(key, plugins, pending, error)

    @precondition(lambda self: self.in_flight)
    @rule(data=st.data(), plugins=st.sets(st.sampled_from(PLUGINS)), pending=st.sets(st.sampled_from(PLUGINS)),
          error=st.booleans())
    def fail(self, data, plugins, pending, error):
        key = data.draw(st.sampled_from(sorted(self.in_flight)))
        self._fail(key, plugins, pending, error)

    def _fail(self, key, plugins, pending, error):
        qpi = self.in_flight.pop(key)
        self.q.add_unschedulable_if_not_present(qpi, plugins, pending, error=error)
        self.deleted_in_flight.discard(key)

    @precondition(lambda self: self.in_flight)
    @rule(data=st.data())
    def bind(self, data):
        key = data.draw(st.sampled_from(sorted(self.in_flight)))
        self.in_flight.pop(key)
        self.q.done(key)
        self.deleted_in_flight.discard(key)
        pod = self.alive.pop(key, None)
        if pod is not None:
            self.q.assigned_pod_added(info(pod))

    @rule(i=st.integers(0, N_PODS - 1), ungate=st.booleans())
    def update(self, i, ungate):
        key = self.key(i)
        old = self.alive.get(key)
        if old is None:
            return
        new = old.model_copy(deep=True)
        if ungate:
            new.spec.scheduling_gates = []
        else:
            new.metadata.annotations = {"v": str(len(new.metadata.annotations or {}) + 1)}
        self.q.update(info(old), info(new))
        self.alive[key] = new

    @rule(i=st.integers(0, N_PODS - 1))
    def delete(self, i):
        key = self.key(i)
        if self.alive.pop(key, None) is None:
            return
        self.q.delete(key)
        if key in self.in_flight:
            self.deleted_in_flight.add(key)

    @rule(i=st.integers(0, N_PODS - 1))
    def activate(self, i):
        self.q.activate([self.key(i)])

    @rule(event=st.sampled_from(EVENTS))
    def event(self, event):
        self.q.move_all_to_active_or_backoff(event)

    @rule(seconds=st.sampled_from([0.1, 0.5, 1.0, 2.5, 10.0, 31.0, 301.0]))
    def tick(self, seconds):
        self.clock.step(seconds)
        self.q.flush()

    @rule()
    def wake_up(self):
        t = self.q.next_wakeup()
        if t is not None and t > self.clock():
            self.clock.t = t
        self.q.flush()

    # -- invariants ---------------------------------------------------------------------------------------------
    @invariant()
    def never_lost_nor_duplicated(self):
        if not hasattr(self, "q"):
            return
        q = self.q
        places = {"active": q._active, "backoff": q._backoff, "error-backoff": q._error_backoff,
                  "pool": q._unschedulable, "in-flight": q._in_flight}
        for i in range(N_PODS):
            key = self.key(i)
            holders = [name for name, where in places.items() if key in where]
            if key in self.in_flight:
                assert holders == ["in-flight"], (key, holders)
                assert q.where(key) == "in-flight"
            elif key in self.alive:
                assert len(holders) == 1 and holders[0] != "in-flight", (key, holders)
                want = {"active": "active", "backoff": "backoff", "error-backoff": "backoff"}.get(holders[0])
                if want is None:
                    want = "gated" if q._unschedulable[key].gated else "unschedulable"
                assert q.where(key) == want, (key, q.where(key), want)
                assert q.get(key).pod is self.alive[key], "the queue holds a stale version of the pod"
            else:
                assert holders == [] and q.where(key) is None, (key, holders)
        pending = q.pending()
        listed = [k for keys in pending.values() for k in keys]
        assert len(listed) == len(set(listed))
        assert set(listed) == {k for k in self.alive if k not in self.in_flight}
        assert len(q) == len(listed)

    @invariant()
    def recorded_events_counted(self):
        """The count the queue keeps of the events in its in-flight log (it skips the log when 0)."""
        if not hasattr(self, "q"):
            return
        log = self.q.in_flight_events()
        assert self.q._recorded == sum(1 for e in log if isinstance(e, RecordedEvent))

    @invariant()
    def gated_pods_wait_in_the_pool(self):
        if not hasattr(self, "q"):
            return
        for key in self.q.pending()["gated"]:
            assert self.alive[key].spec.scheduling_gates


QueueMachine.TestCase.settings = settings(max_examples=200, stateful_step_count=50, deadline=None,
                                          suppress_health_check=[HealthCheck.too_slow])
test_queue_state_machine = QueueMachine.TestCase
