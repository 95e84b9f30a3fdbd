"""API-initiated eviction: the ``pods/eviction`` subresource of the API server
(upstream ``pkg/registry/core/pod/storage/eviction.go``), as a pure function of a
:class:`~kschedlab.cluster.Cluster` and a clock.

:func:`evict` answers as the API server does (seed section 14, "Виселення,
ініційоване API"):

* **200** -- the eviction is allowed: the pod gets the ``DisruptionTarget``
  condition (reason ``EvictionByEvictionAPI``) and is deleted gracefully
  (``deletionTimestamp`` = now + grace period; a pod that is not scheduled or
  already terminal goes at once).  The docs call this ``200 OK``; on the wire
  the create handler answers ``201 Created`` with a ``Status`` of ``Success``
  (:attr:`EvictionResponse.http_status`, :meth:`EvictionResponse.to_status`);
* **429** TooManyRequests -- a PodDisruptionBudget forbids it now (try later);
* **500** -- more than one budget selects the pod (a misconfiguration);
* 403 / 404 for a budget with a negative ``disruptionsAllowed`` or too many
  unconfirmed evictions, and for a pod that does not exist;
* 400 BadRequest when the Eviction object names another pod than the URL.

The checks, in upstream's order:

1. a pod that is ``Succeeded``, ``Failed``, ``Pending`` or already being
   deleted is deleted without looking at budgets;
2. the budgets selecting the pod (:func:`kschedlab.eviction.disruption.pdbs_for_pod`): none
   -> delete; more than one -> 500;
3. a pod that is not ready (``IsPodReady``) is deleted without using the
   budget when the budget's ``unhealthyPodEvictionPolicy`` is ``AlwaysAllow``,
   or (``IfHealthyBudget``, the default) when ``currentHealthy >=
   desiredHealthy > 0``;
4. otherwise the budget is checked and decremented (``checkAndDecrement``):
   ``status.observedGeneration < metadata.generation`` -> 429 "still being
   processed"; ``disruptionsAllowed < 0`` -> 403; more than 2000
   ``disruptedPods`` -> 403; ``disruptionsAllowed == 0`` -> 429; else
   ``disruptionsAllowed`` is decremented, the pod is recorded in
   ``status.disruptedPods`` and deleted.

Readiness and phase follow :func:`kschedlab.eviction.disruption.is_pod_ready`: without a
kubelet, a bound pod with no ``Ready`` condition counts as ready.  Admission
gives a bound pod without a phase ``Pending``; such a pod (bound, no ``Ready``
condition, phase ``Pending``) is read as running, so budgets protect the pods
of a scenario written without status.  Pass ``assume_running=False`` to take
the phase literally, as the upstream tests do.

``now`` is the simulation clock in seconds since the Unix epoch (the clock
:class:`~kschedlab.framework.preemption.Executor` uses) or a datetime.

>>> from kschedlab.api.core import Node, Pod
>>> from kschedlab.api.policy import PodDisruptionBudget
>>> from kschedlab.cluster import Cluster
>>> c = Cluster([Node(metadata={"name": "n1"})] + [Pod(metadata={"name": f"web-{i}", "namespace": "default",
...     "labels": {"app": "web"}}, spec={"nodeName": "n1"}) for i in range(2)])
>>> c.add(PodDisruptionBudget.model_validate({"metadata": {"name": "web", "namespace": "default"},
...     "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}},
...     "status": {"disruptionsAllowed": 1, "currentHealthy": 2, "desiredHealthy": 1, "expectedPods": 2}}))
>>> r = evict(c, "default/web-0", now=0)
>>> r.code, r.http_status, str(c.pods["default/web-0"].metadata.deletion_timestamp)
(200, 201, '1970-01-01 00:00:30+00:00')
>>> r = evict(c, "default/web-1", now=1)
>>> r.code, r.reason, r.message
(429, 'TooManyRequests', "Cannot evict pod as it would violate the pod's disruption budget.")
>>> r.causes[0].message
'The disruption budget web needs 1 healthy pods and has 2 currently'
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Callable, Iterable

from kschedlab.api.core import PodCondition
from kschedlab.eviction import disruption as pdbmod
from kschedlab.eviction.disruption import is_pod_ready, to_datetime, to_seconds

__all__ = [
    "evict", "EvictionResponse", "StatusCause", "graceful_delete", "DeletionOutcome", "finish_terminations",
    "update_pod_condition", "pod_phase",
    "MSG_PDB_VIOLATION", "MSG_MULTIPLE_PDBS", "MSG_NAME_MISMATCH", "CAUSE_DISRUPTION_BUDGET", "REASON_EVICTION_BY_EVICTION_API",
    "MESSAGE_EVICTION_BY_EVICTION_API", "DISRUPTION_TARGET", "MAX_DISRUPTED_POD_SIZE",
    "DEFAULT_TERMINATION_GRACE_PERIOD",
]

# -- messages, as the API server words them ---------------------------------------------------
MSG_PDB_VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget."
MSG_MULTIPLE_PDBS = "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."
CAUSE_NEEDS = "The disruption budget {name} needs {desired} healthy pods and has {current} currently"
CAUSE_PROCESSING = "The disruption budget {name} is still being processed by the server."
MSG_NEGATIVE = 'poddisruptionbudget.policy "{name}" is forbidden: pdb disruptions allowed is negative'
MSG_MAP_TOO_BIG = ('poddisruptionbudget.policy "{name}" is forbidden: DisruptedPods map too big - too many '
                   'evictions not confirmed by PDB controller')
MSG_NOT_FOUND = 'pods "{name}" not found'
MSG_NAME_MISMATCH = "name in URL does not match name in Eviction object"
#: ``policyv1.DisruptionBudgetCause``, the type of the cause a 429 carries
CAUSE_DISRUPTION_BUDGET = "DisruptionBudget"

DISRUPTION_TARGET = "DisruptionTarget"
REASON_EVICTION_BY_EVICTION_API = "EvictionByEvictionAPI"
MESSAGE_EVICTION_BY_EVICTION_API = "Eviction API: evicting"

#: ``MaxDisruptedPodSize``: more unconfirmed evictions than this and the API server refuses (403)
MAX_DISRUPTED_POD_SIZE = 2000
#: ``terminationGracePeriodSeconds`` defaulted by the API server
DEFAULT_TERMINATION_GRACE_PERIOD = 30

# -------------------------------------------------------------------------------- results
@dataclass(frozen=True)
class StatusCause:
    """``metav1.StatusCause`` (its ``type`` is serialised as ``reason``)."""

    type: str
    message: str


@dataclass(frozen=True)
class EvictionResponse:
    """What the API server answers to ``POST .../pods/<name>/eviction``.

    ``code`` is the response class the docs use (200, 429, 500, and 403 / 404);
    ``http_status`` is what goes on the wire (201 for a success).  ``path``
    names the branch of the handler that decided (for teaching): ``bad-name``, ``ignore-pdb``
    (terminal, pending or terminating pod), ``no-pdb``, ``multiple-pdbs``,
    ``unhealthy`` (deleted without using the budget), ``budget`` (budget
    decremented), ``budget-exhausted``, ``generation-stale``, ``negative``,
    ``map-too-big``, ``not-found``.
    """

    code: int
    reason: str
    message: str
    pod: str
    path: str
    causes: tuple[StatusCause, ...] = ()
    retry_after_seconds: int = 0
    pdb: str | None = None
    dry_run: bool = False
    #: the pod left the cluster at once (grace period 0)
    deleted: bool = False
    #: the pod's ``deletionTimestamp`` after the eviction (when its grace period ends)
    deletion_timestamp: datetime | None = None
    grace_period_seconds: int | None = None

    @property
    def allowed(self) -> bool:
        return self.code == 200

    @property
    def http_status(self) -> int:
        """The HTTP status on the wire: 201 Created for an allowed eviction."""
        return 201 if self.code == 200 else self.code

    @property
    def deletion_time(self) -> float | None:
        """``deletion_timestamp`` in simulation seconds (None when the pod is not terminating)."""
        return None if self.deletion_timestamp is None else to_seconds(self.deletion_timestamp)

    def to_status(self) -> dict:
        """The ``metav1.Status`` body the API server sends back.

        >>> EvictionResponse(200, "", "", "default/p", "no-pdb").to_status()
        {'kind': 'Status', 'apiVersion': 'v1', 'metadata': {}, 'status': 'Success', 'code': 201}
        """
        out: dict = {"kind": "Status", "apiVersion": "v1", "metadata": {}}
        if self.allowed:
            out.update(status="Success", code=201)
            return out
        out.update(status="Failure", message=self.message)
        if self.reason and self.code != 500:
            out["reason"] = self.reason
        details: dict = {}
        if self.code in (403, 404):
            details = {"name": self.pdb if self.code == 403 else self.pod.split("/", 1)[-1],
                       "group": "policy" if self.code == 403 else "",
                       "kind": "poddisruptionbudget" if self.code == 403 else "pods"}
            if not details["group"]:
                del details["group"]
        if self.causes:
            details["causes"] = [{"reason": c.type, "message": c.message} for c in self.causes]
        if self.retry_after_seconds:
            details["retryAfterSeconds"] = self.retry_after_seconds
        if details:
            out["details"] = details
        out["code"] = self.code
        return out

    def error(self) -> str:
        """The error the way upstream's eviction tests print it (``errToString``):
        message, reason, then each cause not already at the end of the message.

        >>> EvictionResponse(429, "TooManyRequests", MSG_PDB_VIOLATION, "default/p", "budget-exhausted",
        ...     (StatusCause("DisruptionBudget", "The disruption budget foo needs 0 healthy pods and has 0 currently"),
        ...     )).error()
        "Cannot evict pod as it would violate the pod's disruption budget.: TooManyRequests: The disruption budget foo needs 0 healthy pods and has 0 currently"
        """
        if self.allowed:
            return ""
        out = f"{self.message}: {self.reason}"
        for cause in self.causes:
            if not self.message.endswith(cause.message):
                out += f": {cause.message}"
        return out

    def __str__(self) -> str:
        if self.allowed:
            return f"{self.code} {self.pod} evicted ({self.path})"
        return f"{self.code} {self.reason or 'Failure'}: {self.message}"


@dataclass(frozen=True)
class DeletionOutcome:
    """What a ``DELETE`` of a pod did (``rest.BeforeDelete`` and the pod strategy)."""

    pod: str
    #: the pod left the cluster now
    deleted: bool
    #: the grace period in effect (None when nothing changed)
    grace_period_seconds: int | None
    deletion_timestamp: datetime | None
    #: the pod was already terminating and the request could not shorten its grace period
    pending: bool = False


# ------------------------------------------------------------------------------- helpers
def pod_phase(pod, *, assume_running: bool = True) -> str:
    """The phase the eviction handler sees.

    With ``assume_running`` (the default) a bound pod without a ``Ready``
    condition whose phase is unset or ``Pending`` reads as ``Running``: there is
    no kubelet in kschedlab to start it (see the module docstring).

    >>> from kschedlab.api.core import Pod
    >>> pod_phase(Pod(spec={"nodeName": "n1"}, status={"phase": "Pending"})), pod_phase(Pod())
    ('Running', 'Pending')
    """
    phase = pod.status.phase if pod.status else None
    if assume_running and pod.spec.node_name and phase in (None, "Pending") and not any(
            c.type == "Ready" for c in (pod.status.conditions if pod.status else [])):
        return "Running"
    return phase or "Pending"


def update_pod_condition(pod, ctype: str, status: str, reason: str, message: str, now) -> bool:
    """``podutil.UpdatePodCondition``: add or replace the condition; the transition
    time moves only when the status changes.  Returns whether anything changed."""
    stamp = to_datetime(now)
    new = PodCondition(type=ctype, status=status, reason=reason, message=message, last_transition_time=stamp)
    conditions = pod.status.conditions
    for i, old in enumerate(conditions):
        if old.type != ctype:
            continue
        if old.status == status:
            new.last_transition_time = old.last_transition_time
        equal = (old.status == status and old.reason == reason and old.message == message
                 and old.last_transition_time == new.last_transition_time)
        conditions[i] = new
        pod.mark_set("status")
        return not equal
    conditions.append(new)
    pod.mark_set("status")
    return True


def _grace_of(pod) -> int:
    g = pod.spec.termination_grace_period_seconds
    return DEFAULT_TERMINATION_GRACE_PERIOD if g is None else g


def graceful_delete(cluster, pod_key: str, *, now, grace_period_seconds: int | None = None,
                    remove: Callable[[str], None] | None = None, dry_run: bool = False) -> DeletionOutcome:
    """``DELETE`` a pod as the API server does (pod strategy ``CheckGracefulDelete``
    and ``rest.BeforeDelete``).

    The grace period is ``grace_period_seconds`` or the pod's
    ``terminationGracePeriodSeconds`` (30 when unset); 0 for a pod that is not
    scheduled or is terminal; a negative one becomes 1.  With a period above 0
    the pod stays, terminating: ``deletionTimestamp`` = now + period (the
    kubelet, :func:`finish_terminations`, removes it then).  A pod already
    terminating keeps its deadline unless an explicit, shorter period is given.
    ``remove(key)`` takes a pod out of the cluster (default
    ``cluster.remove_pod``; a simulation passes its own to tell the queue).
    """
    pod = cluster.pods.get(pod_key)
    if pod is None:
        return DeletionOutcome(pod_key, False, None, None)
    remove = remove or cluster.remove_pod
    meta = pod.metadata
    if grace_period_seconds is not None and grace_period_seconds < 0:
        grace_period_seconds = 1
    if meta.deletion_timestamp is not None:
        current = meta.deletion_grace_period_seconds
        if current is None or current == 0:
            period, ts = 0, meta.deletion_timestamp
        elif grace_period_seconds is None or grace_period_seconds >= current:
            return DeletionOutcome(pod_key, False, current, meta.deletion_timestamp, pending=True)
        else:
            period = grace_period_seconds
            ts = meta.deletion_timestamp - timedelta(seconds=current) + timedelta(seconds=period)
    else:
        period = _grace_of(pod) if grace_period_seconds is None else grace_period_seconds
        if not pod.spec.node_name:
            period = 0
        if pod.status and pod.status.phase in ("Failed", "Succeeded"):
            period = 0
        if period < 0:
            period = 1
        ts = to_datetime(now) + timedelta(seconds=period)
    if dry_run:
        return DeletionOutcome(pod_key, period == 0, period, ts)
    cluster.mark_terminating(pod_key, ts, period)
    pod.mark_set("metadata")
    if period == 0 and not meta.finalizers:
        remove(pod_key)
        return DeletionOutcome(pod_key, True, 0, ts)
    return DeletionOutcome(pod_key, False, period, ts)


def finish_terminations(cluster, now, *, remove: Callable[[str], None] | None = None) -> list[str]:
    """The kubelets' side of graceful deletion: every terminating pod whose
    ``deletionTimestamp`` has come is removed (its containers stopped, the kubelet
    deletes it with grace period 0).  Pods on a node whose ``Ready`` condition is
    ``Unknown`` stay: no kubelet reports back from an unreachable node.  Returns
    the removed pod keys in order.
    """
    remove = remove or cluster.remove_pod
    t = to_datetime(now)
    gone = []
    for key, pod in list(cluster.pods.items()):
        ts = pod.metadata.deletion_timestamp
        if ts is None or ts > t or pod.metadata.finalizers:
            continue
        node = cluster.nodes.get(pod.spec.node_name) if pod.spec.node_name else None
        if node is not None and any(c.type == "Ready" and c.status == "Unknown" for c in node.status.conditions):
            continue
        gone.append(key)
    gone.sort(key=lambda k: (cluster.pods[k].metadata.deletion_timestamp, k))
    for key in gone:
        remove(key)
    return gone


def _can_ignore_pdb(pod, assume_running: bool) -> bool:
    """``canIgnorePDB``: terminal, pending or already terminating pods."""
    return (pod_phase(pod, assume_running=assume_running) in ("Succeeded", "Failed", "Pending")
            or pod.metadata.deletion_timestamp is not None)


def _key_name(pod_key: str) -> tuple[str, str]:
    ns, _, name = pod_key.rpartition("/")
    return ns, name


# ---------------------------------------------------------------------------------- evict
def evict(cluster, pod_key: str, *, now, dry_run: bool = False, grace_period_seconds: int | None = None,
          pdbs: Iterable | None = None, assume_running: bool = True,
          remove: Callable[[str], None] | None = None, eviction_name: str | None = None) -> EvictionResponse:
    """``POST /api/v1/namespaces/<ns>/pods/<name>/eviction`` (policy/v1 Eviction).

    ``grace_period_seconds`` is the Eviction's ``deleteOptions.gracePeriodSeconds``
    (None: the pod's own).  ``pdbs`` defaults to the cluster's
    PodDisruptionBudgets; the budget that allows the eviction is updated in
    place (unless ``dry_run``).  ``remove`` as in :func:`graceful_delete`.
    ``eviction_name`` is the Eviction object's ``metadata.name`` (None: the pod's
    name, as a client building it from the pod sends it).
    See the module docstring for the decision order.

    >>> from kschedlab.cluster import Cluster
    >>> evict(Cluster(), "default/web-0", now=0, eviction_name="web-1").error()
    'name in URL does not match name in Eviction object: BadRequest'
    """
    ns, name = _key_name(pod_key)
    if eviction_name is not None and eviction_name != name:
        return EvictionResponse(400, "BadRequest", MSG_NAME_MISMATCH, pod_key, "bad-name")
    pod = cluster.pods.get(pod_key)
    if pod is None:
        return EvictionResponse(404, "NotFound", MSG_NOT_FOUND.format(name=name), pod_key, "not-found")

    def allowed(path: str, pdb_name: str | None = None) -> EvictionResponse:
        if not dry_run:
            update_pod_condition(pod, DISRUPTION_TARGET, "True", REASON_EVICTION_BY_EVICTION_API,
                                 MESSAGE_EVICTION_BY_EVICTION_API, now)
        out = graceful_delete(cluster, pod_key, now=now, grace_period_seconds=grace_period_seconds,
                              remove=remove, dry_run=dry_run)
        return EvictionResponse(200, "", "", pod_key, path, pdb=pdb_name, dry_run=dry_run, deleted=out.deleted,
                                deletion_timestamp=out.deletion_timestamp,
                                grace_period_seconds=out.grace_period_seconds)

    if _can_ignore_pdb(pod, assume_running):
        return allowed("ignore-pdb")

    budgets = pdbmod.pdbs_for_pod(cluster.of_kind("PodDisruptionBudget") if pdbs is None else pdbs, pod)
    if len(budgets) > 1:
        return EvictionResponse(500, "", MSG_MULTIPLE_PDBS, pod_key, "multiple-pdbs")
    if not budgets:
        return allowed("no-pdb")
    pdb = budgets[0]
    st = pdb.status
    current, desired = st.current_healthy or 0, st.desired_healthy or 0
    if not is_pod_ready(pod):
        if pdb.spec.unhealthy_pod_eviction_policy == "AlwaysAllow":
            return allowed("unhealthy", pdb.metadata.name)
        if current >= desired > 0:
            return allowed("unhealthy", pdb.metadata.name)

    # checkAndDecrement
    pname = pdb.metadata.name
    if (st.observed_generation or 0) < (pdb.metadata.generation or 0):
        return EvictionResponse(429, "TooManyRequests", MSG_PDB_VIOLATION, pod_key, "generation-stale",
                                (StatusCause(CAUSE_DISRUPTION_BUDGET, CAUSE_PROCESSING.format(name=pname)),),
                                retry_after_seconds=10, pdb=pname, dry_run=dry_run)
    allowed_n = st.disruptions_allowed or 0
    if allowed_n < 0:
        return EvictionResponse(403, "Forbidden", MSG_NEGATIVE.format(name=pname), pod_key, "negative", pdb=pname,
                                dry_run=dry_run)
    if len(st.disrupted_pods) > MAX_DISRUPTED_POD_SIZE:
        return EvictionResponse(403, "Forbidden", MSG_MAP_TOO_BIG.format(name=pname), pod_key, "map-too-big",
                                pdb=pname, dry_run=dry_run)
    if allowed_n == 0:
        return EvictionResponse(429, "TooManyRequests", MSG_PDB_VIOLATION, pod_key, "budget-exhausted",
                                (StatusCause(CAUSE_DISRUPTION_BUDGET,
                                             CAUSE_NEEDS.format(name=pname, desired=desired, current=current)),),
                                pdb=pname, dry_run=dry_run)
    if not dry_run:
        new = st.model_copy(deep=True)
        new.disruptions_allowed = allowed_n - 1
        if new.disruptions_allowed == 0:
            pdbmod.update_disruption_allowed_condition(new, now)
        new.disrupted_pods = {**new.disrupted_pods, name: to_datetime(now)}
        pdb.status = new
        pdb.mark_set("status")
    return allowed("budget", pname)

