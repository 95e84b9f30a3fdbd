"""The ``PodGroupInitiallyScheduled`` condition: how the scheduler reports a PodGroup
scheduling cycle in ``status.conditions`` (upstream ``updatePodGroupCondition`` and
``apimeta.SetStatusCondition``).

* success: ``True`` / ``Scheduled``; failure: ``False`` / ``Unschedulable`` or
  ``False`` / ``SchedulerError`` (message: the cycle's status message);
* once ``True`` the condition never goes back to ``False`` (a later cycle for extra pods
  that fails leaves it alone);
* ``lastTransitionTime`` changes only when the status changes; reason, message and
  ``observedGeneration`` (the PodGroup's ``metadata.generation``) are refreshed.

>>> from datetime import datetime, timezone
>>> from kschedlab.api.podgroup import PodGroup
>>> pg = PodGroup.model_validate({"metadata": {"name": "pg", "namespace": "ns"}})
>>> t0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
>>> update_pod_group_condition(pg, unschedulable("0/3 nodes are available"), now=t0)
True
>>> update_pod_group_condition(pg, scheduled(), now=t0.replace(hour=1))
True
>>> update_pod_group_condition(pg, unschedulable("extra pods could not be placed"), now=t0.replace(hour=2))
False
>>> c = pg.condition(); c.status, c.reason, c.last_transition_time.hour
('True', 'Scheduled', 1)
"""

from __future__ import annotations

from datetime import datetime, timezone

from kschedlab.api.podgroup import (
    POD_GROUP_INITIALLY_SCHEDULED,
    REASON_SCHEDULED,
    REASON_SCHEDULER_ERROR,
    REASON_UNSCHEDULABLE,
    Condition,
)

__all__ = [
    "find_status_condition",
    "set_status_condition",
    "update_pod_group_condition",
    "scheduled",
    "unschedulable",
    "scheduler_error",
]


def find_status_condition(conditions: list[Condition], type_: str) -> Condition | None:
    """``apimeta.FindStatusCondition``."""
    return next((c for c in conditions if c.type == type_), None)


def set_status_condition(conditions: list[Condition], new: Condition, now: datetime | None = None) -> bool:
    """``apimeta.SetStatusCondition``: add or update ``new`` in place; True when anything changed.

    A new condition without ``lastTransitionTime`` gets ``now``; an existing one keeps its
    time unless the status changes.
    """
    now = now or datetime.now(timezone.utc)
    existing = find_status_condition(conditions, new.type or "")
    if existing is None:
        added = new.clone()
        if added.last_transition_time is None:
            added.last_transition_time = now
        conditions.append(added)
        return True
    changed = False
    if existing.status != new.status:
        existing.status = new.status
        existing.last_transition_time = new.last_transition_time or now
        changed = True
    for attr in ("reason", "message", "observed_generation"):
        value = getattr(new, attr)
        if getattr(existing, attr) != value:
            setattr(existing, attr, value)
            if value is None:  # an unset field stays out of dumps
                existing.model_fields_set.discard(attr)
            changed = True
    return changed


def update_pod_group_condition(pg, condition: Condition, now: datetime | None = None) -> bool:
    """Apply ``condition`` to ``pg.status`` the way the scheduler patches it; True when the
    status changed (a PATCH would be sent).

    The condition is stamped with ``observedGeneration`` = ``metadata.generation``; a
    ``True`` condition is never replaced by a non-``True`` one.
    """
    existing = find_status_condition(pg.status.conditions, condition.type or "")
    generation = pg.metadata.generation or None
    if existing is not None and (existing.status == "True" and condition.status != "True"
                                 or _same(existing, condition, generation)):
        return False
    cond = condition.clone()
    cond.observed_generation = generation
    if cond.observed_generation is None:
        cond.model_fields_set.discard("observed_generation")
    conditions = list(pg.status.conditions)
    if not set_status_condition(conditions, cond, now):
        return False
    pg.status.conditions = conditions
    pg.mark_set("status")
    return True


def _same(existing: Condition, new: Condition, generation: int | None) -> bool:
    """Would ``new``, stamped with ``generation``, leave ``existing`` as it is (what
    :func:`set_status_condition` compares)?"""
    return (existing.status == new.status and existing.reason == new.reason
            and existing.message == new.message and existing.observed_generation == generation)


def _condition(status: str, reason: str, message: str) -> Condition:
    # plain strings of the allowed values: no validation needed
    fields = {"type": POD_GROUP_INITIALLY_SCHEDULED, "status": status, "reason": reason}
    if message:
        fields["message"] = message
    return Condition.trusted(**fields)


def scheduled(message: str = "") -> Condition:
    """``PodGroupInitiallyScheduled=True``, reason ``Scheduled``."""
    return _condition("True", REASON_SCHEDULED, message)


def unschedulable(message: str) -> Condition:
    """``PodGroupInitiallyScheduled=False``, reason ``Unschedulable``."""
    return _condition("False", REASON_UNSCHEDULABLE, message)


def scheduler_error(message: str) -> Condition:
    """``PodGroupInitiallyScheduled=False``, reason ``SchedulerError``."""
    return _condition("False", REASON_SCHEDULER_ERROR, message)
