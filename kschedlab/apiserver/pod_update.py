"""What the API server does to a pod on UPDATE, as pure functions.

:func:`validate_pod_update` is upstream ``ValidatePodUpdate``
(``pkg/apis/core/validation/validation.go``) limited to what scheduling
readiness is about; :func:`update_pod` applies an update or a JSON merge patch
the way the pod registry does (defaulting, ``PrepareForUpdate``, validation)
and refuses it with a :class:`~kschedlab.api.errors.ManifestError`.

The rules, in upstream's order:

* ``metadata.name`` / ``namespace`` / ``uid`` are immutable; the new pod must
  itself be valid;
* containers may not be added or removed; images may change;
* ``activeDeadlineSeconds`` may be set, or lowered, never raised or unset;
* tolerations may only be added (an existing one may change only its
  ``tolerationSeconds``);
* ``schedulingGates`` may only be removed: a gate the old pod did not have is
  ``Forbidden: only deletion is allowed, but found new scheduling gate '<name>'``;
* while the *old* pod is gated, its scheduling directives may be tightened
  (the seed's four rules, "Змінні директиви планування Podʼа"):

  1. ``spec.nodeSelector``: additions only (it may be set when absent);
  2. ``spec.affinity.nodeAffinity``: anything may be set when it was nil;
  3. required node affinity with non-empty ``nodeSelectorTerms``: no term may be
     added or removed, only requirements appended to each term's
     ``matchExpressions`` / ``matchFields`` (terms are ORed, requirements ANDed);
  4. ``preferredDuringSchedulingIgnoredDuringExecution``: any change;

* anything else is ``spec: Forbidden: pod updates may not change fields other
  than ...`` followed by a diff of the spec.

>>> from kschedlab.apiserver.admission import admit_pod
>>> from kschedlab.api.core import Pod
>>> gated = admit_pod(Pod.model_validate({"metadata": {"name": "test-pod"}, "spec": {
...     "schedulingGates": [{"name": "example.com/foo"}],
...     "containers": [{"name": "pause", "image": "registry.k8s.io/pause:3.6"}]}}))
>>> pod_phase_display(gated)
'SchedulingGated'
>>> update_pod(gated, {"spec": {"schedulingGates": [{"name": "example.com/foo"}, {"name": "x"}]}})
Traceback (most recent call last):
...
kschedlab.api.errors.ManifestError: Pod default/test-pod: spec.schedulingGates[1].name: Forbidden: only deletion is allowed, but found new scheduling gate 'x'
>>> tighter = update_pod(gated, {"spec": {"nodeSelector": {"disktype": "ssd"}}})
>>> tighter.spec.node_selector, tighter.metadata.generation
({'disktype': 'ssd'}, 2)
>>> ungated = update_pod(tighter, {"spec": {"schedulingGates": None}})
>>> ungated.spec.scheduling_gates
[]
>>> update_pod(ungated, {"spec": {"nodeSelector": {"disktype": "ssd", "zone": "a"}}})
... # doctest: +ELLIPSIS
Traceback (most recent call last):
...
kschedlab.api.errors.ManifestError: Pod default/test-pod: spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,...
"""

from __future__ import annotations

import difflib
import json
from typing import Any, Iterable, Mapping

from pydantic import BaseModel, ValidationError

from ..api.container_status import ContainerState
from ..api.core import (
    Affinity,
    NodeAffinity,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    Pod,
    PodSpec,
    Toleration,
)
from ..api.errors import ManifestError, errors_from_validation, format_path
from ..api.quantity import Quantity

__all__ = [
    "validate_pod_update",
    "update_pod",
    "merge_patch",
    "spec_diff",
    "pod_phase_display",
    "kubectl_get_pods",
    "UPDATABLE_POD_SPEC_FIELDS",
    "MSG_ONLY_DELETION_OF_GATES",
    "MSG_NODE_SELECTOR_ADDITIONS",
    "MSG_NODE_SELECTOR_TERMS_LIST",
    "MSG_NODE_SELECTOR_TERM_ADDITIONS",
    "MSG_TOLERATIONS",
    "MSG_CONTAINERS",
    "MSG_OTHER_FIELDS",
    "MSG_IMMUTABLE",
]

# -- messages, as validation.go words them ---------------------------------------------------------
#: ``updatablePodSpecFields`` (v1.33+; the resize subresource took container resources out of the list)
UPDATABLE_POD_SPEC_FIELDS = (
    "`spec.containers[*].image`",
    "`spec.initContainers[*].image`",
    "`spec.activeDeadlineSeconds`",
    "`spec.tolerations` (only additions to existing tolerations)",
    "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
)
MSG_OTHER_FIELDS = "pod updates may not change fields other than " + ",".join(UPDATABLE_POD_SPEC_FIELDS)
MSG_ONLY_DELETION_OF_GATES = "only deletion is allowed, but found new scheduling gate '{gate}'"
MSG_NODE_SELECTOR_ADDITIONS = "only additions to spec.nodeSelector are allowed (no mutations or deletions)"
MSG_NODE_SELECTOR_TERMS_LIST = "no additions/deletions to non-empty NodeSelectorTerms list are allowed"
MSG_NODE_SELECTOR_TERM_ADDITIONS = "only additions are allowed (no mutations or deletions)"
MSG_TOLERATIONS = "existing toleration can not be modified except its tolerationSeconds"
MSG_CONTAINERS = "pod updates may not add or remove containers"
MSG_IMMUTABLE = "field is immutable"
MSG_DEADLINE_LOWER = "must be less than or equal to previous value"
MSG_DEADLINE_NIL = "must not update from a positive integer to nil value"
MSG_DEADLINE_RANGE = "must be between 0 and 2147483647, inclusive"
MSG_IMAGE_WHITESPACE = "must not have leading or trailing whitespace"
MAX_INT32 = 2**31 - 1

_AFFINITY_PATH = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"


# -- values as field.Error prints them --------------------------------------------------------------
def _go_json(value: Any) -> str:
    """``json.Marshal`` text: compact, map keys sorted, ``<>&`` escaped as Go does."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False, sort_keys=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _go_requirement(r: NodeSelectorRequirement) -> dict:
    # the internal core type has no JSON tags: Go field names, nil slices as null
    return {"Key": r.key or "", "Operator": r.operator or "", "Values": list(r.values) or None}


def _go_term(t: NodeSelectorTerm) -> dict:
    return {"MatchExpressions": [_go_requirement(r) for r in t.match_expressions] or None,
            "MatchFields": [_go_requirement(r) for r in t.match_fields] or None}


def _bad_value(value: Any) -> str:
    """How ``field.Invalid`` shows a value: strings quoted, numbers bare, nil ``null``, the rest as JSON."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, NodeSelectorTerm):
        return _go_json(_go_term(value))
    if isinstance(value, list) and all(isinstance(v, NodeSelectorTerm) for v in value):
        return _go_json([_go_term(v) for v in value]) if value else "null"
    if isinstance(value, Mapping):
        return _go_json(dict(sorted(value.items()))) if value else "null"
    return _go_json(value)


class _Errors:
    def __init__(self, pod: Pod):
        self.file = pod.source_file
        self.obj = pod.describe()
        self.items: list[ManifestError] = []

    def _add(self, path, message: str) -> None:
        p = path if isinstance(path, str) else format_path(path)
        self.items.append(ManifestError(message, file=self.file, obj=self.obj, path=p))

    def invalid(self, path, value: Any, detail: str) -> None:
        self._add(path, f"Invalid value: {_bad_value(value)}: {detail}")

    def forbidden(self, path, detail: str) -> None:
        self._add(path, f"Forbidden: {detail}")

    def extend(self, errors: Iterable[ManifestError]) -> None:
        self.items.extend(errors)


# -- semantic equality (apiequality.Semantic) ---------------------------------------------------------
def _semantic(value: Any) -> Any:
    """A comparable form: unset and empty are the same (nil == empty slice/map, as Semantic.DeepEqual),
    quantities compare by value, map keys are kept even with empty values."""
    if isinstance(value, BaseModel):
        out = {}
        for name in type(value).model_fields:
            v = _semantic(getattr(value, name))
            if v is None or v == "" or v == [] or v == {}:
                continue
            out[name] = v
        return out
    if isinstance(value, Quantity):
        return ("Quantity", value.nanos)
    if isinstance(value, Mapping):
        return {k: _semantic(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_semantic(v) for v in value]
    return value


def _same(a: Any, b: Any) -> bool:
    return _semantic(a) == _semantic(b)


# -- the rules -----------------------------------------------------------------------------------------
def _validate_metadata_update(old: Pod, new: Pod, errs: _Errors) -> None:
    """``ValidateObjectMetaUpdate``, the identity fields."""
    for field, attr in (("name", "name"), ("namespace", "namespace"), ("uid", "uid")):
        before, after = getattr(old.metadata, attr), getattr(new.metadata, attr)
        if (before or "") != (after or ""):
            errs.invalid(f"metadata.{field}", after or "", MSG_IMMUTABLE)


def _validate_container_updates(new: list, old: list, path: str, errs: _Errors) -> bool:
    """``ValidateContainerUpdates``; True when validation must stop (count changed).

    Upstream also requires every image to be non-empty; kschedlab pods may omit
    images (nothing here pulls them), so only the whitespace rule is kept."""
    if len(new) != len(old):
        errs.forbidden(path, MSG_CONTAINERS)
        return True
    for i, c in enumerate(new):
        if c.image is not None and c.image.strip() != c.image:
            errs.invalid(f"{path}[{i}].image", c.image, MSG_IMAGE_WHITESPACE)
    return False


def _toleration_key(t: Toleration, seconds: int | None) -> tuple:
    return (t.key or "", t.operator or "", t.value or "", t.effect or "", seconds)


def _validate_only_added_tolerations(new: list[Toleration], old: list[Toleration], errs: _Errors) -> None:
    """``validateOnlyAddedTolerations``: each old toleration is still there, up to its tolerationSeconds."""
    for o in old:
        if not any(_toleration_key(o, n.toleration_seconds) == _toleration_key(n, n.toleration_seconds)
                   for n in new):
            errs.forbidden("spec.tolerations", MSG_TOLERATIONS)
            return


def _validate_only_deleted_scheduling_gates(new, old, errs: _Errors) -> None:
    """``validateOnlyDeletedSchedulingGates``: one error per gate the old pod did not have.

    Upstream walks a Go map (random order); kschedlab reports them in list order."""
    added: dict[str, int] = {}
    for i, gate in enumerate(new):
        added[gate.name or ""] = i
    for gate in old:
        added.pop(gate.name or "", None)
    for name, i in sorted(added.items(), key=lambda kv: kv[1]):
        errs.forbidden(f"spec.schedulingGates[{i}].name", MSG_ONLY_DELETION_OF_GATES.format(gate=name))


def _validate_node_selector_mutation(new: Mapping[str, str], old: Mapping[str, str], errs: _Errors) -> None:
    """``validateNodeSelectorMutation``: no existing key deleted or changed."""
    for k, v in old.items():
        if k not in new or new[k] != v:
            errs.invalid("spec.nodeSelector", dict(new), MSG_NODE_SELECTOR_ADDITIONS)
            return


def _term_has_only_additions(new: NodeSelectorTerm, old: NodeSelectorTerm) -> bool:
    """``validateNodeSelectorTermHasOnlyAdditions``."""
    if not old.match_expressions and not old.match_fields:
        if new.match_expressions or new.match_fields:
            return False
    for field in ("match_expressions", "match_fields"):
        before, after = getattr(old, field), getattr(new, field)
        if before:
            if len(after) < len(before) or not _same(after[:len(before)], before):
                return False
    return True


def _validate_node_affinity_mutation(new: NodeAffinity | None, old: NodeAffinity | None, errs: _Errors) -> None:
    """``validateNodeAffinityMutation``: rules 2 and 3 of the seed (rule 4, preferred terms, is free)."""
    if old is None or old.required_during_scheduling_ignored_during_execution is None:
        return
    old_terms = old.required_during_scheduling_ignored_during_execution.node_selector_terms
    new_terms: list[NodeSelectorTerm] = []
    if new is not None and new.required_during_scheduling_ignored_during_execution is not None:
        new_terms = new.required_during_scheduling_ignored_during_execution.node_selector_terms
    if old_terms and len(old_terms) != len(new_terms):
        errs.invalid(_AFFINITY_PATH, new_terms, MSG_NODE_SELECTOR_TERMS_LIST)
        return
    for i, old_term in enumerate(old_terms):
        if not _term_has_only_additions(new_terms[i], old_term):
            errs.invalid(f"{_AFFINITY_PATH}[{i}]", new_terms[i], MSG_NODE_SELECTOR_TERM_ADDITIONS)


def _spec_json(spec: PodSpec) -> list[str]:
    data = spec.model_dump(mode="json", by_alias=True, exclude_none=True)

    def prune(v):
        if isinstance(v, dict):
            pruned = {k: prune(x) for k, x in v.items()}
            return {k: x for k, x in pruned.items() if x not in ([], {}, None)}
        if isinstance(v, list):
            return [prune(x) for x in v]
        return v

    return json.dumps(prune(data), indent=1, ensure_ascii=False).splitlines(keepends=True)


def spec_diff(old: PodSpec, new: PodSpec) -> str:
    """A unified diff (3 lines of context, no file header) of the two specs as indented JSON.

    Upstream appends its own diff of the internal ``PodSpec`` to the
    "may not change fields" error; this one is over the v1 JSON names.

    >>> from kschedlab.api.core import PodSpec
    >>> print(spec_diff(PodSpec(priority=1), PodSpec(priority=2)), end="")
    @@ -1,3 +1,3 @@
     {
    - "priority": 1
    + "priority": 2
     }
    """
    lines = difflib.unified_diff(_spec_json(old), _spec_json(new), n=3)
    out = [line if line.endswith("\n") else line + "\n" for line in lines]
    return "".join(out[2:])  # drop the ---/+++ header lines


def validate_pod_update(old: Pod, new: Pod, *, comparison_operators: bool = False) -> list[ManifestError]:
    """``ValidatePodUpdate``: every reason the API server refuses ``new`` as an update of ``old``.

    ``comparison_operators`` is the TaintTolerationComparisonOperators gate; a pod that already
    uses Lt / Gt tolerations keeps them valid without it.

    >>> from kschedlab.api.core import Pod
    >>> old = Pod.model_validate({"metadata": {"name": "p", "namespace": "default"}, "spec": {
    ...     "schedulingGates": [{"name": "g"}], "nodeSelector": {"a": "b"}, "containers": [{"name": "c"}]}})
    >>> new = old.clone(); new.spec.node_selector = {"a": "z", "c": "d"}
    >>> [str(e) for e in validate_pod_update(old, new)]
    ['Pod default/p: spec.nodeSelector: Invalid value: {"a":"z","c":"d"}: only additions to spec.nodeSelector are allowed (no mutations or deletions)']
    """
    from ..api.tolerations import uses_comparison_operators
    from .admission import validate_pod
    from .supported_values import enum_errors

    errs = _Errors(new)
    _validate_metadata_update(old, new, errs)
    errs.extend(validate_pod(new, comparison_operators=comparison_operators
                             or uses_comparison_operators(old.spec.tolerations)))
    for path, message in enum_errors(new):
        errs._add(path, message)
    o, n = old.spec, new.spec
    if _validate_container_updates(n.containers, o.containers, "spec.containers", errs):
        return errs.items
    if _validate_container_updates(n.init_containers, o.init_containers, "spec.initContainers", errs):
        return errs.items

    if n.active_deadline_seconds is not None:
        if not 0 <= n.active_deadline_seconds <= MAX_INT32:
            errs.invalid("spec.activeDeadlineSeconds", n.active_deadline_seconds, MSG_DEADLINE_RANGE)
            return errs.items
        if o.active_deadline_seconds is not None and o.active_deadline_seconds < n.active_deadline_seconds:
            errs.invalid("spec.activeDeadlineSeconds", n.active_deadline_seconds, MSG_DEADLINE_LOWER)
            return errs.items
    elif o.active_deadline_seconds is not None:
        errs.invalid("spec.activeDeadlineSeconds", None, MSG_DEADLINE_NIL)

    _validate_only_added_tolerations(n.tolerations, o.tolerations, errs)
    _validate_only_deleted_scheduling_gates(n.scheduling_gates, o.scheduling_gates, errs)

    if _same(n, o):
        return errs.items

    # the updatable fields are taken from the old spec before the final comparison
    munged = n.clone()
    for new_c, old_c in zip(munged.containers, o.containers):
        new_c.image = old_c.image
    for new_c, old_c in zip(munged.init_containers, o.init_containers):
        new_c.image = old_c.image
    munged.active_deadline_seconds = o.active_deadline_seconds
    munged.scheduling_gates = list(o.scheduling_gates)
    munged.tolerations = list(o.tolerations)
    grace_old, grace_new = o.termination_grace_period_seconds, munged.termination_grace_period_seconds
    if grace_old is not None and grace_old < 0 and grace_new == 1:
        munged.termination_grace_period_seconds = grace_old

    if o.scheduling_gates:  # the old pod is gated: its scheduling directives may be tightened
        if not _same(munged.node_selector, o.node_selector):
            _validate_node_selector_mutation(munged.node_selector, o.node_selector, errs)
            munged.node_selector = dict(o.node_selector)
        old_na = o.affinity.node_affinity if o.affinity is not None else None
        new_na = munged.affinity.node_affinity if munged.affinity is not None else None
        if not _same(old_na, new_na):
            _validate_node_affinity_mutation(new_na, old_na, errs)
            if munged.affinity is None:
                if old_na is not None:
                    munged.affinity = Affinity(node_affinity=old_na)
            elif (o.affinity is None and munged.affinity.pod_affinity is None
                  and munged.affinity.pod_anti_affinity is None):
                munged.affinity = None
            else:
                munged.affinity.node_affinity = old_na

    if not _same(munged, o):
        errs.forbidden("spec", f"{MSG_OTHER_FIELDS}\n{spec_diff(o, munged)}".rstrip("\n"))
    return errs.items


# -- applying an update ----------------------------------------------------------------------------------
def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386 JSON merge patch (``kubectl patch --type=merge``): ``None`` deletes a key, objects
    merge recursively, anything else (lists included) replaces.

    >>> merge_patch({"a": 1, "b": {"c": 2, "d": 3}}, {"b": {"c": None, "e": 4}, "f": [1]})
    {'a': 1, 'b': {'d': 3, 'e': 4}, 'f': [1]}
    """
    if not isinstance(patch, Mapping):
        return patch
    out = dict(target) if isinstance(target, Mapping) else {}
    for k, v in patch.items():
        if v is None:
            out.pop(k, None)
        else:
            out[k] = merge_patch(out.get(k), v)
    return out


def update_pod(old: Pod, new_or_patch: Pod | Mapping[str, Any], *,
               feature_gates: Mapping[str, bool] | None = None) -> Pod:
    """Update ``old`` as the API server would; returns the stored pod, ``old`` is unchanged.

    ``new_or_patch`` is the whole new pod (``kubectl replace``) or a JSON merge
    patch (``kubectl patch --type=merge``; ``kubectl apply`` also sends a patch).
    The result is defaulted, then the admission plugins that act on updates
    run (Priority keeps the computed ``priority``/``preemptionPolicy``,
    DefaultTolerationSeconds re-adds its tolerations).  As the pod registry's
    ``PrepareForUpdate``: the status is kept from ``old`` (the main resource
    cannot change it) and ``metadata.generation`` grows when the spec changed.
    Raises :class:`ManifestError` with every error of
    :func:`validate_pod_update` (nothing is changed then).
    """
    from .admission import DEFAULT_FEATURE_GATES, default_pod, default_tolerations

    obj = f"{old.describe()}"
    if isinstance(new_or_patch, Pod):
        new = new_or_patch.clone()
    else:
        base = old.model_dump(mode="json", by_alias=True, exclude_none=True)
        merged = merge_patch(base, new_or_patch)
        try:
            new = Pod.model_validate(merged)
        except ValidationError as err:
            raise ManifestError.combine(errors_from_validation(err, file=old.source_file, obj=obj)) from None
    gates = {**DEFAULT_FEATURE_GATES, **(feature_gates or {})}
    new = default_pod(new, gates)
    # the admission plugins that also act on UPDATE: Priority keeps the priority (and preemption
    # policy) it computed at creation when the new object leaves them out; DefaultTolerationSeconds
    # adds its two NoExecute tolerations again
    spec = new.spec
    if spec.priority is None and old.spec.priority is not None:
        spec.priority = old.spec.priority
    if spec.preemption_policy is None and old.spec.preemption_policy is not None:
        spec.preemption_policy = old.spec.preemption_policy
    spec.tolerations = default_tolerations(spec.tolerations)
    object.__setattr__(new, "__pydantic_private__", dict(old.__pydantic_private__ or {}))
    # rest.BeforeUpdate: the UID and timestamps come from the stored object when left out
    meta, old_meta = new.metadata, old.metadata
    meta.uid = meta.uid or old_meta.uid
    meta.creation_timestamp = old_meta.creation_timestamp or meta.creation_timestamp
    meta.deletion_timestamp = old_meta.deletion_timestamp
    meta.generation = old_meta.generation
    errors = validate_pod_update(old, new, comparison_operators=bool(gates.get("TaintTolerationComparisonOperators")))
    if errors:
        raise ManifestError.combine(errors)
    new.status = old.status.clone()
    if not _same(new.spec, old.spec):
        new.metadata.generation = (old.metadata.generation or 0) + 1
    new.mark_set("status", "metadata", "spec")
    return new


# -- what kubectl shows ------------------------------------------------------------------------------------
def pod_phase_display(pod: Pod) -> str:
    """The STATUS column of ``kubectl get pods`` (kubectl's ``printPod``, regular containers).

    The phase, replaced by ``status.reason`` when set, by ``SchedulingGated``
    while the ``PodScheduled`` condition says so, by a container's waiting or
    terminated reason (``ContainerCreating``, ``Completed``, ``ExitCode:1`` ...),
    and by ``Terminating`` once the pod has a deletion timestamp.

    >>> from kschedlab.api.core import Pod
    >>> pod_phase_display(Pod(status={"phase": "Running"}))
    'Running'
    >>> pod_phase_display(Pod(status={"phase": "Pending", "conditions": [
    ...     {"type": "PodScheduled", "status": "False", "reason": "SchedulingGated"}]}))
    'SchedulingGated'
    >>> pod_phase_display(Pod(status={"phase": "Succeeded", "containerStatuses": [
    ...     {"name": "c", "ready": False, "state": {"terminated": {"exitCode": 0, "reason": "Completed"}}}]}))
    'Completed'
    """
    status = pod.status
    reason = status.phase or ""
    if status.reason:
        reason = status.reason
    for cond in status.conditions:
        if cond.type == "PodScheduled" and cond.reason == "SchedulingGated":
            reason = "SchedulingGated"
    has_running = False
    for cs in reversed(status.container_statuses):
        state = cs.state or ContainerState()
        waiting, terminated = state.waiting, state.terminated
        if waiting is not None and waiting.reason:
            reason = waiting.reason
        elif terminated is not None and terminated.reason:
            reason = terminated.reason
        elif terminated is not None:
            signal = terminated.signal or 0
            reason = f"Signal:{signal}" if signal else f"ExitCode:{terminated.exit_code or 0}"
        elif cs.ready and state.running is not None:
            has_running = True
    if reason == "Completed" and has_running:
        ready = any(c.type == "Ready" and c.status == "True" for c in status.conditions)
        reason = "Running" if ready else "NotReady"
    if pod.metadata.deletion_timestamp is not None:
        if status.reason == "NodeLost":
            reason = "Unknown"
        elif status.phase not in ("Succeeded", "Failed"):
            reason = "Terminating"
    return reason


def kubectl_get_pods(pods: Iterable[Pod]):
    """``kubectl get pods -o wide`` as a DataFrame: NAME, READY, STATUS, RESTARTS, NODE.

    >>> from kschedlab.api.core import Pod
    >>> kubectl_get_pods([Pod(metadata={"name": "p"}, spec={"containers": [{"name": "c"}]})]).to_dict("records")
    [{'NAME': 'p', 'READY': '0/1', 'STATUS': '', 'RESTARTS': 0, 'NODE': '<none>'}]
    """
    import pandas as pd

    rows = []
    for pod in pods:
        statuses = pod.status.container_statuses
        ready = sum(1 for cs in statuses if cs.ready)
        restarts = sum(cs.restart_count or 0 for cs in statuses)
        rows.append({"NAME": pod.metadata.name or "", "READY": f"{ready}/{len(pod.spec.containers)}",
                     "STATUS": pod_phase_display(pod), "RESTARTS": restarts, "NODE": pod.spec.node_name or "<none>"})
    return pd.DataFrame(rows, columns=["NAME", "READY", "STATUS", "RESTARTS", "NODE"])
