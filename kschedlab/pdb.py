"""PodDisruptionBudget helpers: which pods a budget covers and the status the
disruption controller (``pkg/controller/disruption``) keeps on it.

The scheduler only *reads* ``status.disruptionsAllowed`` and
``status.disruptedPods`` (preemption prefers victims whose budgets allow the
disruption).  Nothing in kschedlab runs the disruption controller on its own:
call :func:`refresh` (or :func:`compute_status`) after pods come and go, as the
controller would, or write the status in the manifest.

>>> from kschedlab.api.core import Pod
>>> from kschedlab.api.policy import PodDisruptionBudget
>>> pdb = PodDisruptionBudget.model_validate({"metadata": {"name": "web", "namespace": "default"},
...     "spec": {"minAvailable": 2, "selector": {"matchLabels": {"app": "web"}}}})
>>> pods = [Pod.model_validate({"metadata": {"name": f"web-{i}", "namespace": "default",
...     "labels": {"app": "web"}}, "spec": {"nodeName": "n1"}}) for i in range(3)]
>>> st = compute_status(pdb, pods)
>>> st.current_healthy, st.desired_healthy, st.expected_pods, st.disruptions_allowed
(3, 2, 3, 1)
"""

from __future__ import annotations

import math
from typing import Callable, Iterable

from kschedlab.api.policy import PodDisruptionBudget, PodDisruptionBudgetStatus

__all__ = ["selector_is_valid", "selects_for_preemption", "matching_pods", "scaled_value",
           "compute_status", "refresh"]

_SELECTOR_OPS_WITH_VALUES = ("In", "NotIn")
_SELECTOR_OPS_WITHOUT_VALUES = ("Exists", "DoesNotExist")


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


def _ready(pod) -> bool:
    """``IsPodReady``, with kschedlab's no-kubelet reading: a bound pod without a
    Ready condition counts as ready (nothing in a simulation would set it)."""
    if not pod.spec.node_name:
        return False
    phase = pod.status.phase if pod.status else None
    if phase in ("Succeeded", "Failed"):
        return False
    for cond in pod.status.conditions if pod.status else []:
        if cond.type == "Ready":
            return cond.status == "True"
    return True


def compute_status(pdb, pods: Iterable, *, scale_of: Callable | None = None) -> PodDisruptionBudgetStatus:
    """The status the disruption controller would write for ``pdb`` over ``pods``.

    ``expectedPods`` is the number of matching pods for an integer
    ``minAvailable``; for a percentage or ``maxUnavailable`` it is the summed
    scale of the pods' controllers, which ``scale_of(pod) -> int | None``
    supplies (None: the pod has no controller with a scale; the controller then
    fails safe with ``disruptionsAllowed`` 0).  ``currentHealthy`` counts ready,
    not terminating pods that are not in ``status.disruptedPods``.
    """
    pods = matching_pods(pdb, pods)
    disrupted = dict(pdb.status.disrupted_pods) if pdb.status else {}
    spec = pdb.spec
    expected, desired = len(pods), 0
    fail_safe = False
    if spec.max_unavailable is not None or (spec.min_available is not None and not isinstance(spec.min_available, int)):
        expected = 0
        seen = set()
        for pod in pods:
            ref = pod.metadata.controller_ref()
            key = (ref.kind, ref.name) if ref is not None else None
            if key in seen:
                continue
            scale = scale_of(pod) if scale_of is not None else None
            if scale is None:
                fail_safe = True
                break
            seen.add(key)
            expected += scale
        if spec.max_unavailable is not None:
            desired = max(0, expected - scaled_value(spec.max_unavailable, expected, True))
        else:
            desired = scaled_value(spec.min_available, expected, True)
    elif spec.min_available is not None:
        desired = spec.min_available
    healthy = sum(1 for p in pods if p.metadata.deletion_timestamp is None and p.metadata.name not in disrupted
                  and _ready(p))
    allowed = healthy - desired
    if fail_safe or expected <= 0 or allowed <= 0:
        allowed = 0
    status = (pdb.status or PodDisruptionBudgetStatus()).model_copy()
    status.current_healthy = healthy
    status.desired_healthy = desired
    status.expected_pods = expected
    status.disruptions_allowed = allowed
    status.disrupted_pods = disrupted
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
        replicas = getattr(spec, "replicas", None)
        return 1 if replicas is None else replicas
    return scale_of


def refresh(cluster) -> list[PodDisruptionBudget]:
    """Recompute the status of every PodDisruptionBudget in ``cluster`` (in place),
    as the disruption controller does after pods change.  Returns the budgets."""
    pdbs = cluster.of_kind("PodDisruptionBudget")
    scale_of = _scale_lookup(cluster)
    for pdb in pdbs:
        pdb.status = compute_status(pdb, cluster.pods.values(), scale_of=scale_of)
    return pdbs
