"""Conformance stages for the API server's admission plugins (LimitRanger), from upstream
``plugin/pkg/admission/limitranger/admission_test.go``, and for object validation.

Stage                              Input -> expected ``other``
================================== ==========================================================
limitranger-pod                    ``limitRange``, ``pod``, ``mutateOnly`` (bool),
                                   ``featureGates`` -> ``refused`` (bool: the validating half
                                   refuses), ``containers`` / ``initContainers`` (each
                                   ``{requests, limits}`` after the mutating half, compared by
                                   value), ``annotation`` (``kubernetes.io/limit-ranger``, null =
                                   none)
limitranger-pvc                    ``limitRange``, ``persistentVolumeClaim`` (its
                                   ``spec.resources.requests``) -> ``refused``
limitranger-default-requirements   ``limitRange`` -> ``requests``, ``limits`` a container gets
limitrange-validation              ``limitRange`` -> ``errors: []`` (valid) or ``errorDetail``:
                                   refused, and every error's message contains it ("" = any)
object-meta-owner-references       ``ownerReferences`` (a list, as in ``metadata``) -> ``errors:
                                   []`` (valid) or ``errorDetail``: refused, and the first
                                   error contains it (``ValidateOwnerReferences``, apimachinery)
pdb-spec-validation                ``podDisruptionBudgetSpec`` -> ``refused`` (bool:
                                   ``ValidatePodDisruptionBudgetSpec`` finds an error)
================================== ==========================================================

The LimitRange is used as given (upstream's tests build it without API defaulting, and
``ValidateLimitRange``'s rows validate it undefaulted too) and the pod is not defaulted either:
the functions run on the objects as the rows write them.

>>> from kschedlab.conformance.runner import run_case
>>> run_case({"id": "x", "stage": "limitranger-default-requirements",
...     "limitRange": {"spec": {"limits": [{"type": "Container", "default": {"cpu": "1"}}]}},
...     "expected": {"other": {"requests": {}, "limits": {"cpu": "1000m"}}}}).ok
True
"""

from __future__ import annotations

from typing import Callable

from kschedlab.api.core import Pod
from kschedlab.api.limitrange import (
    LIMIT_RANGER_ANNOTATION,
    LimitRange,
    default_container_resource_requirements,
    limit_range_errors,
    pod_mutate_limit,
    pod_validate_limit,
    pvc_validate_limit,
)
from kschedlab.api.meta import OwnerReference
from kschedlab.api.policy import PodDisruptionBudget
from kschedlab.api.quantity import Quantity
from kschedlab.apiserver.object_validation import object_errors, owner_references_errors

__all__ = ["STAGES"]


def _quantities(rl: dict) -> dict[str, Quantity]:
    return {k: Quantity(v) for k, v in rl.items()}


def _compare_lists(what: str, got: dict[str, Quantity], want: dict, diffs: list[str]) -> None:
    if got != _quantities(want):
        diffs.append(f"{what}: got { {k: str(v) for k, v in sorted(got.items())} }, want {want}")


def _stage_pod(case: dict, diffs: list[str]) -> None:
    want = case["expected"]["other"]
    lr = LimitRange.model_validate(case["limitRange"])
    pod = Pod.model_validate(case["pod"])
    pod_mutate_limit(lr, pod)
    for field, containers in (("containers", pod.spec.containers), ("initContainers", pod.spec.init_containers)):
        for i, expected in enumerate(want.get(field, [])):
            resources = containers[i].resources
            _compare_lists(f"{field}[{i}].requests", resources.requests, expected.get("requests", {}), diffs)
            _compare_lists(f"{field}[{i}].limits", resources.limits, expected.get("limits", {}), diffs)
    if "annotation" in want:
        got = pod.metadata.annotations.get(LIMIT_RANGER_ANNOTATION)
        if got != want["annotation"]:
            diffs.append(f"annotation: got {got!r}, want {want['annotation']!r}")
    if case.get("mutateOnly"):
        return
    gates = case.get("featureGates", {})
    errors = pod_validate_limit(lr, pod, pod_level_resources=gates.get("PodLevelResources", True))
    if bool(errors) != want["refused"]:
        diffs.append(f"refused: got {bool(errors)} ({errors}), want {want['refused']}")


def _stage_pvc(case: dict, diffs: list[str]) -> None:
    want = case["expected"]["other"]["refused"]
    lr = LimitRange.model_validate(case["limitRange"])
    requests = _quantities(case["persistentVolumeClaim"]["spec"]["resources"].get("requests", {}))
    errors = pvc_validate_limit(lr, requests)
    if bool(errors) != want:
        diffs.append(f"refused: got {bool(errors)} ({errors}), want {want}")


def _stage_default_requirements(case: dict, diffs: list[str]) -> None:
    want = case["expected"]["other"]
    requests, limits = default_container_resource_requirements(LimitRange.model_validate(case["limitRange"]))
    _compare_lists("requests", requests, want["requests"], diffs)
    _compare_lists("limits", limits, want["limits"], diffs)


def _stage_validation(case: dict, diffs: list[str]) -> None:
    want = case["expected"]["other"]
    errors = [f"{path}: {message}" for path, message in limit_range_errors(LimitRange.model_validate(case["limitRange"]))]
    if "errors" in want:
        if errors != want["errors"]:
            diffs.append(f"errors: got {errors}, want {want['errors']}")
        return
    detail = want["errorDetail"]
    if not errors:
        diffs.append(f"errors: got none, want one containing {detail!r}")
    for e in errors:
        if detail not in e:
            diffs.append(f"error {e!r} does not contain {detail!r}")


def _stage_owner_references(case: dict, diffs: list[str]) -> None:
    want = case["expected"]["other"]
    refs = [OwnerReference.model_validate(r) for r in case["ownerReferences"]]
    errors = [f"{path}: {message}" for path, message in
              owner_references_errors(refs, ["metadata", "ownerReferences"])]
    if "errors" in want:
        if errors != want["errors"]:
            diffs.append(f"errors: got {errors}, want {want['errors']}")
    elif not errors or want["errorDetail"] not in errors[0]:
        diffs.append(f"errors: got {errors}, want the first to contain {want['errorDetail']!r}")


def _stage_pdb_spec(case: dict, diffs: list[str]) -> None:
    want = case["expected"]["other"]["refused"]
    pdb = PodDisruptionBudget.model_validate({"metadata": {"name": "pdb", "namespace": "default"},
                                              "spec": case["podDisruptionBudgetSpec"]})
    errors = object_errors(pdb)
    if bool(errors) != want:
        diffs.append(f"refused: got {bool(errors)} ({errors}), want {want}")


STAGES: dict[str, Callable[[dict, list[str]], None]] = {
    "pdb-spec-validation": _stage_pdb_spec,
    "object-meta-owner-references": _stage_owner_references,
    "limitranger-pod": _stage_pod,
    "limitranger-pvc": _stage_pvc,
    "limitranger-default-requirements": _stage_default_requirements,
    "limitrange-validation": _stage_validation,
}
