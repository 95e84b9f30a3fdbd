"""PodDisruptionBudget helpers: which pods a budget covers and the status the
disruption controller (``pkg/controller/disruption``) keeps on it.

The scheduler only *reads* ``status.disruptionsAllowed`` and
``status.disruptedPods`` (preemption prefers victims whose budgets allow the
disruption); the Eviction API (:mod:`kschedlab.eviction.api_initiated`) reads and decrements
them.  Nothing in kschedlab runs the disruption controller on its own: call
:func:`refresh` (or :func:`compute_status`) after pods come and go, as the
controller would, or write the status in the manifest.  Pass ``now`` (seconds
on the simulation clock, or a datetime) to get the controller's handling of
``status.disruptedPods`` too: entries of pods being deleted, of pods gone and
of pods not deleted within :data:`DELETION_TIMEOUT` are dropped.

Readiness: a pod counts as healthy when its ``Ready`` condition is ``True``
(``IsPodReady``).  Nothing in kschedlab runs a kubelet, so a pod *without* a
``Ready`` condition counts as ready once it is bound and not terminal
(:func:`is_pod_ready`); give a pod ``Ready: "False"`` to model one that is not.

>>> from kschedlab.api.core import Pod
>>> from kschedlab.api.policy import PodDisruptionBudget
>>> pdb = PodDisruptionBudget.model_validate({"metadata": {"name": "web", "namespace": "default"},
...     "spec": {"minAvailable": 2, "selector": {"matchLabels": {"app": "web"}}}})
>>> pods = [Pod.model_validate({"metadata": {"name": f"web-{i}", "namespace": "default",
...     "labels": {"app": "web"}}, "spec": {"nodeName": "n1"}}) for i in range(3)]
>>> st = compute_status(pdb, pods)
>>> st.current_healthy, st.desired_healthy, st.expected_pods, st.disruptions_allowed
(3, 2, 3, 1)
>>> [(c.type, c.status, c.reason) for c in st.conditions]
[('DisruptionAllowed', 'True', 'SufficientPods')]
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta, timezone
from typing import Callable, Iterable

from kschedlab.api.meta import Condition
from kschedlab.api.policy import PodDisruptionBudget, PodDisruptionBudgetStatus

__all__ = ["selector_is_valid", "selects_for_preemption", "matching_pods", "scaled_value",
           "compute_status", "refresh", "is_pod_ready", "pdbs_for_pod", "to_datetime", "to_seconds",
           "update_disruption_allowed_condition", "set_status_condition", "find_condition",
           "DELETION_TIMEOUT", "DISRUPTION_ALLOWED_CONDITION", "SUFFICIENT_PODS_REASON",
           "INSUFFICIENT_PODS_REASON", "SYNC_FAILED_REASON"]

#: ``disruption.DeletionTimeout``: how long an entry of ``status.disruptedPods`` waits for its
#: pod to be marked for deletion before the controller counts the pod as healthy again.
DELETION_TIMEOUT = 120.0

DISRUPTION_ALLOWED_CONDITION = "DisruptionAllowed"
SUFFICIENT_PODS_REASON = "SufficientPods"
INSUFFICIENT_PODS_REASON = "InsufficientPods"
SYNC_FAILED_REASON = "SyncFailed"

#: kinds whose scale the disruption controller knows without the scale subresource
_SCALE_KINDS = ("ReplicationController", "ReplicaSet", "Deployment", "StatefulSet")

_SELECTOR_OPS_WITH_VALUES = ("In", "NotIn")
_SELECTOR_OPS_WITHOUT_VALUES = ("Exists", "DoesNotExist")
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


# -------------------------------------------------------------------------- time
def to_datetime(now) -> datetime:
    """A simulation time (seconds since the Unix epoch, as the simulation clock and
    :class:`~kschedlab.framework.preemption.Executor` use) or a datetime, as an aware UTC datetime.

    >>> to_datetime(90).isoformat()
    '1970-01-01T00:01:30+00:00'
    """
    if isinstance(now, datetime):
        return now if now.tzinfo is not None else now.replace(tzinfo=timezone.utc)
    return _EPOCH + timedelta(seconds=float(now))


def to_seconds(value) -> float:
    """The inverse of :func:`to_datetime` (numbers pass through).

    >>> to_seconds(to_datetime(12.5))
    12.5
    """
    if isinstance(value, datetime):
        return (to_datetime(value) - _EPOCH).total_seconds()
    return float(value)


# -------------------------------------------------------------------- selectors
def selector_is_valid(selector) -> bool:
    """Whether ``metav1.LabelSelectorAsSelector`` accepts the selector.

    In/NotIn need values, Exists/DoesNotExist must have none; any other
    operator is refused.  (Label key and value syntax are not checked here.)

    >>> from kschedlab.api.meta import LabelSelector
    >>> selector_is_valid(LabelSelector.model_validate({"matchExpressions": [{"key": "a", "operator": "In"}]}))
    False
    """
    if selector is None:
        return True
    for req in selector.match_expressions:
        if req.operator in _SELECTOR_OPS_WITH_VALUES:
            if not req.values:
                return False
        elif req.operator in _SELECTOR_OPS_WITHOUT_VALUES:
            if req.values:
                return False
        else:
            return False
    return True


def selects_for_preemption(pdb, pod) -> bool:
    """Whether preemption counts ``pod`` against ``pdb`` (``filterPodsWithPDBViolation``).

    Same namespace; a pod without labels matches nothing; an invalid, nil or
    *empty* selector matches nothing (unlike the disruption controller, for
    which an empty policy/v1 selector selects the whole namespace).
    """
    if (pdb.metadata.namespace or "") != (pod.metadata.namespace or ""):
        return False
    labels = pod.metadata.labels
    if not labels:
        return False
    selector = pdb.spec.selector
    if selector is None or not selector_is_valid(selector) or selector.is_empty():
        return False
    return selector.matches(labels)


def matching_pods(pdb, pods: Iterable) -> list:
    """The pods the disruption controller counts for ``pdb``: same namespace and
    selected (a nil selector selects nothing, an empty one everything)."""
    ns = pdb.metadata.namespace or ""
    selector = pdb.spec.selector
    if selector is None or not selector_is_valid(selector):
        return []
    return [p for p in pods if (p.metadata.namespace or "") == ns and selector.matches(p.metadata.labels)]


def pdbs_for_pod(pdbs: Iterable, pod) -> list:
    """The budgets the Eviction API checks for ``pod`` (``getPodDisruptionBudgets``):
    same namespace, a valid selector that matches the pod's labels.  A nil
    selector matches nothing; an empty policy/v1 selector matches every pod of
    the namespace (an eviction then meets that budget too).

    >>> from kschedlab.api.core import Pod
    >>> from kschedlab.api.policy import PodDisruptionBudget
    >>> everything = PodDisruptionBudget.model_validate({"metadata": {"name": "all", "namespace": "default"},
    ...     "spec": {"selector": {}}})
    >>> nothing = PodDisruptionBudget.model_validate({"metadata": {"name": "none", "namespace": "default"}})
    >>> [p.metadata.name for p in pdbs_for_pod([everything, nothing], Pod(metadata={"name": "x",
    ...     "namespace": "default"}))]
    ['all']
    """
    ns = pod.metadata.namespace or ""
    out = []
    for pdb in pdbs:
        if (pdb.metadata.namespace or "") != ns:
            continue
        selector = pdb.spec.selector
        if selector is None or not selector_is_valid(selector):
            continue
        if selector.matches(pod.metadata.labels):
            out.append(pdb)
    return out


def scaled_value(value, total: int, round_up: bool) -> int:
    """``intstr.GetScaledValueFromIntOrPercent``.

    >>> scaled_value("50%", 3, True), scaled_value("50%", 3, False), scaled_value(2, 10, True)
    (2, 1, 2)
    """
    if isinstance(value, int):
        return value
    text = str(value)
    if not text.endswith("%"):
        raise ValueError("invalid value for IntOrString: invalid type: string is not a percentage")
    try:
        pct = int(text[:-1])
    except ValueError:
        raise ValueError(f"invalid value {text!r}: {text[:-1]!r} is not an integer") from None
    scaled = pct * total / 100
    return math.ceil(scaled) if round_up else math.floor(scaled)


# --------------------------------------------------------------------- readiness
def is_pod_ready(pod) -> bool:
    """``podutil.IsPodReady`` with kschedlab's no-kubelet reading.

    A ``Ready`` condition decides when the pod has one; without it, a bound pod
    that is not terminal counts as ready (nothing in a simulation would set it).

    >>> from kschedlab.api.core import Pod
    >>> is_pod_ready(Pod(spec={"nodeName": "n1"})), is_pod_ready(Pod())
    (True, False)
    >>> is_pod_ready(Pod(spec={"nodeName": "n1"}, status={"conditions": [{"type": "Ready", "status": "False"}]}))
    False
    """
    for cond in pod.status.conditions if pod.status else []:
        if cond.type == "Ready":
            return cond.status == "True"
    if not pod.spec.node_name:
        return False
    phase = pod.status.phase if pod.status else None
    return phase not in ("Succeeded", "Failed")


_ready = is_pod_ready  # the name this module used before


# -------------------------------------------------------------------- conditions
def find_condition(conditions: list[Condition], ctype: str) -> Condition | None:
    """The ``metav1.Condition`` of type ``ctype`` in ``conditions``, or None."""
    return next((cond for cond in conditions or [] if cond.type == ctype), None)


def set_status_condition(conditions: list[Condition], new: dict, now=None) -> None:
    """``meta.SetStatusCondition``: add or update the condition of ``new["type"]``
    in place; ``lastTransitionTime`` moves only when the status changes."""
    stamp = to_datetime(now) if now is not None else None
    for i, cond in enumerate(conditions):
        if cond.type != new["type"]:
            continue
        cond = cond.clone()
        if cond.status != new["status"]:
            cond.status = new["status"]
            cond.last_transition_time = new.get("lastTransitionTime") or stamp
        cond.reason = new.get("reason", cond.reason)
        cond.message = new.get("message", cond.message)
        cond.observed_generation = new.get("observedGeneration", cond.observed_generation)
        cond.mark_set("status", "last_transition_time", "reason", "message", "observed_generation")
        conditions[i] = cond
        return
    conditions.append(Condition.trusted(
        type=new["type"], status=new["status"], observed_generation=new.get("observedGeneration"),
        last_transition_time=new.get("lastTransitionTime") or stamp, reason=new.get("reason", ""),
        message=new.get("message", "")))


def update_disruption_allowed_condition(status: PodDisruptionBudgetStatus, now=None) -> None:
    """``pdbhelper.UpdateDisruptionAllowedCondition``: ``DisruptionAllowed`` True
    (``SufficientPods``) when disruptions are allowed, else False (``InsufficientPods``)."""
    allowed = (status.disruptions_allowed or 0) > 0
    set_status_condition(status.conditions, {
        "type": DISRUPTION_ALLOWED_CONDITION, "status": "True" if allowed else "False",
        "reason": SUFFICIENT_PODS_REASON if allowed else INSUFFICIENT_PODS_REASON, "message": "",
        "observedGeneration": status.observed_generation}, now)


# ----------------------------------------------------------------- the controller
class _SyncFailed(Exception):
    pass


def _expected_scale(pods: list, scale_of: Callable | None) -> int:
    """``getExpectedScale``: the summed scale of the pods' controllers.  Pods without a
    controller are skipped (upstream logs them as unmanaged); a controller whose
    scale cannot be found fails the sync."""
    seen: dict = {}
    for pod in pods:
        ref = pod.metadata.controller_ref()
        key = None if ref is None else (ref.uid or (ref.kind, ref.name))
        if key in seen:
            continue
        scale = scale_of(pod) if scale_of is not None else None
        if scale is None:
            if ref is None:
                continue  # unmanaged
            raise _SyncFailed(f'found no controllers for pod "{pod.metadata.name}"')
        seen[key] = scale
    return sum(seen.values())


def _disrupted_pod_map(pods: list, disrupted: dict, now: float) -> dict:
    """``buildDisruptedPodMap``: keep the entries of matching pods that are not yet
    being deleted and whose deletion is still expected (within ``DELETION_TIMEOUT``)."""
    out = {}
    for pod in pods:
        if pod.metadata.deletion_timestamp is not None:
            continue
        when = disrupted.get(pod.metadata.name)
        if when is None:
            continue
        if to_seconds(when) + DELETION_TIMEOUT < now:
            continue
        out[pod.metadata.name] = when
    return out


def compute_status(pdb, pods: Iterable, *, scale_of: Callable | None = None, now=None) -> PodDisruptionBudgetStatus:
    """The status the disruption controller would write for ``pdb`` over ``pods``.

    ``expectedPods`` is the number of matching pods for an integer
    ``minAvailable``; for a percentage or ``maxUnavailable`` it is the summed
    scale of the pods' controllers, which ``scale_of(pod) -> int | None``
    supplies (None: the controller was not found; the controller then fails
    safe: ``disruptionsAllowed`` 0 and a ``SyncFailed`` condition, the other
    counts left as they were).  Pods that declare no controller are left out
    of that sum, as upstream does (unless ``scale_of`` answers for them: the
    answer then stands for one controller shared by all such pods).  ``currentHealthy`` counts ready pods that
    are not being deleted and not in ``status.disruptedPods``.  An invalid
    selector fails safe as well.

    ``now`` (simulation seconds or a datetime) makes ``status.disruptedPods``
    follow ``buildDisruptedPodMap``; without it the map is kept as it is (and
    its pods count as disrupted however old the entry), the behaviour callers
    that have no clock (the scheduler) rely on.
    """
    previous = pdb.status or PodDisruptionBudgetStatus()
    status = previous.model_copy(deep=True)
    stamp = now
    spec = pdb.spec
    try:
        if spec.selector is not None and not selector_is_valid(spec.selector):
            raise _SyncFailed("couldn't convert label selector: invalid selector")
        pods = matching_pods(pdb, pods)
        expected, desired = len(pods), 0
        if spec.max_unavailable is not None:
            expected = _expected_scale(pods, scale_of)
            desired = max(0, expected - scaled_value(spec.max_unavailable, expected, True))
        elif spec.min_available is not None:
            if isinstance(spec.min_available, int):
                desired = spec.min_available
            else:
                expected = _expected_scale(pods, scale_of)
                desired = scaled_value(spec.min_available, expected, True)
        else:
            expected = len(pods)
    except (_SyncFailed, ValueError) as err:
        status.disruptions_allowed = 0
        set_status_condition(status.conditions, {
            "type": DISRUPTION_ALLOWED_CONDITION, "status": "False", "reason": SYNC_FAILED_REASON,
            "message": str(err), "observedGeneration": status.observed_generation}, stamp)
        return status
    old = dict(previous.disrupted_pods)
    if now is not None:
        t = to_seconds(now)
        disrupted = _disrupted_pod_map(pods, old, t)
        healthy = sum(1 for p in pods if p.metadata.deletion_timestamp is None and is_pod_ready(p)
                      and not (p.metadata.name in disrupted
                               and to_seconds(disrupted[p.metadata.name]) + DELETION_TIMEOUT > t))
    else:
        disrupted = old
        healthy = sum(1 for p in pods if p.metadata.deletion_timestamp is None and p.metadata.name not in disrupted
                      and is_pod_ready(p))
    allowed = healthy - desired
    if expected <= 0 or allowed <= 0:
        allowed = 0
    status.current_healthy = healthy
    status.desired_healthy = desired
    status.expected_pods = expected
    status.disruptions_allowed = allowed
    status.disrupted_pods = disrupted
    status.observed_generation = pdb.metadata.generation if pdb.metadata.generation is not None \
        else previous.observed_generation
    update_disruption_allowed_condition(status, stamp)
    return status


def _scale_lookup(cluster) -> Callable:
    def scale_of(pod):
        ref = pod.metadata.controller_ref()
        if ref is None:
            return None
        ns = pod.metadata.namespace
        key = f"{ns}/{ref.name}" if ns else ref.name
        owner = cluster.objects.get(ref.kind, {}).get(key)
        if owner is None:
            return None
        if ref.kind == "ReplicaSet":
            parent = owner.metadata.controller_ref()
            if parent is not None and parent.kind == "Deployment":
                pkey = f"{ns}/{parent.name}" if ns else parent.name
                dep = cluster.objects.get("Deployment", {}).get(pkey)
                if dep is not None:
                    return dep.spec.replicas if dep.spec.replicas is not None else 1
        spec = getattr(owner, "spec", None)
        if ref.kind not in _SCALE_KINDS and not hasattr(spec, "replicas"):
            return None  # no scale subresource (a Job, say): upstream fails safe
        replicas = getattr(spec, "replicas", None)
        return 1 if replicas is None else replicas
    return scale_of


def refresh(cluster, *, now=None) -> list[PodDisruptionBudget]:
    """Recompute the status of every PodDisruptionBudget in ``cluster`` (in place),
    as the disruption controller does after pods change.  Returns the budgets.

    ``now`` as in :func:`compute_status`."""
    pdbs = cluster.of_kind("PodDisruptionBudget")
    scale_of = _scale_lookup(cluster)
    for pdb in pdbs:
        pdb.status = compute_status(pdb, cluster.pods.values(), scale_of=scale_of, now=now)
    return pdbs
