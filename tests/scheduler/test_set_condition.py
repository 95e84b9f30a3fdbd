"""``Scheduler.set_condition`` (which leaves a pod alone when it has the condition already) against
the plain write (the condition made anew, the list replaced), on random pods and random sequences of
writes with changes made behind its back between them."""

import random
from datetime import datetime, timezone

import pytest

from kschedlab.api.core import Pod, PodCondition
from kschedlab.scheduler.schedule_one import Scheduler
from tests.seeds import seeds

REASONS = [None, "", "Unschedulable", "SchedulerError"]
MESSAGES = [None, "", "0/3 nodes are available: 3 Insufficient cpu.", "binding rejected"]


def plain_set_condition(pod, ok, reason, message) -> None:
    """The write without the check: a new condition, the list replaced."""
    fields = {"type": "PodScheduled", "status": "True" if ok else "False"}
    if reason:
        fields["reason"] = str(reason)
    if message:
        fields["message"] = str(message)
    conditions = [c for c in pod.status.conditions if c.type != "PodScheduled"]
    pod.status.conditions = [*conditions, PodCondition.trusted(**fields)]


def _pod(rng: random.Random) -> Pod:
    status: dict = {"phase": "Pending"}
    conditions = []
    if rng.random() < 0.4:
        conditions.append({"type": "Ready", "status": "False"})
    if rng.random() < 0.4:
        conditions.append({"type": "PodScheduled", "status": rng.choice(["True", "False"]),
                           **({"reason": "Unschedulable"} if rng.random() < 0.5 else {})})
    if rng.random() < 0.3:
        conditions.append({"type": "PodScheduled", "status": "False", "message": MESSAGES[2]})
    if conditions or rng.random() < 0.5:
        status["conditions"] = conditions
    return Pod.model_validate({"metadata": {"name": "p", "namespace": "default"}, "status": status})


def _meddle(rng: random.Random, pod) -> None:
    """A change made without set_condition: in place, a condition appended unmarked, a value or
    the list written without marking it set."""
    conditions = pod.status.conditions
    choice = rng.randrange(7)
    if choice == 0 and conditions:
        conditions[-1].message = rng.choice(MESSAGES[2:])
    elif choice == 1 and conditions:
        conditions[-1].last_probe_time = datetime(2026, 12, 7, tzinfo=timezone.utc)
    elif choice == 2:
        conditions.append(PodCondition(type=rng.choice(["Ready", "PodScheduled"]), status="True"))
    elif choice == 3 and conditions:
        conditions[-1].__pydantic_fields_set__.add("observed_generation")
    elif choice == 4 and conditions:
        conditions.insert(0, PodCondition(type="PodScheduled", status="False"))
    elif choice == 5 and conditions:
        conditions[-1].__dict__["observed_generation"] = 3
    elif choice == 6:
        pod.status.__pydantic_fields_set__.discard("conditions")


def _state(pod) -> tuple:
    status = pod.status
    return (pod.model_dump(mode="json", by_alias=True), pod.model_dump(exclude_unset=True),
            sorted(status.__pydantic_fields_set__),
            [(c.__dict__, sorted(c.__pydantic_fields_set__), c.__pydantic_extra__, c.__pydantic_private__)
             for c in status.conditions])


@pytest.mark.parametrize("seed", seeds(8))
def test_set_condition_leaves_the_pod_as_the_plain_write_does(seed):
    rng = random.Random(seed)
    for _ in range(100):
        pod = _pod(rng)
        other = pod.clone()
        for _ in range(rng.randrange(1, 12)):
            if rng.random() < 0.3:  # the same change to both
                meddle = rng.random()
                _meddle(random.Random(meddle), pod)
                _meddle(random.Random(meddle), other)
            else:
                args = (rng.random() < 0.3, rng.choice(REASONS), rng.choice(MESSAGES))
                Scheduler.set_condition(pod, *args)
                plain_set_condition(other, *args)
            assert _state(pod) == _state(other)


def test_a_repeated_write_keeps_the_condition():
    pod = _pod(random.Random(0))
    Scheduler.set_condition(pod, False, "Unschedulable", MESSAGES[2])
    first = pod.status.conditions[-1]
    Scheduler.set_condition(pod, False, "Unschedulable", MESSAGES[2])
    assert pod.status.conditions[-1] is first
    Scheduler.set_condition(pod, False, "Unschedulable", MESSAGES[3])
    assert pod.status.conditions[-1] is not first and pod.status.conditions[-1].message == MESSAGES[3]
