"""How conformance results are compared and reported (the rules of ``shared/CASES.md``).

Expected objects compare as Go's tests compare structs:

* a field's zero value (``false``, ``0``, ``""``, ``[]``, ``{}``, ``null``) and its absence
  are the same (:func:`equal`);
* a status without ``reasons`` asserts its code only, ``"reasons": []`` asserts there are
  none (:func:`status_matches`);
* the pseudo-code ``non-Success`` matches every code but ``Success`` (:func:`code_matches`);
* ``podGroups`` may hold PodGroups and CompositePodGroups side by side; the model is picked
  by ``kind`` / ``apiVersion`` (:func:`pod_group_model`).
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["Mismatch", "NON_SUCCESS", "check", "code_matches", "equal", "is_zero", "pod_group_model",
           "status_dict", "status_matches", "check_status"]

#: pseudo-code of an expected status: any code but Success
NON_SUCCESS = "non-Success"


class Mismatch(Exception):
    """A stage found a difference it cannot continue past (reported as the case's diff)."""


def is_zero(value: Any) -> bool:
    """Whether ``value`` is a zero value (Go's for the JSON types): ``None``, ``False``, ``0``,
    ``""``, an empty list or an empty object.

    >>> [is_zero(v) for v in (None, False, 0, 0.0, "", [], {}, (), "0", [0], {"a": 0})]
    [True, True, True, True, True, True, True, True, False, False, False]
    """
    if value is None or value is False:
        return True
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value == 0
    if isinstance(value, (str, list, tuple, dict, set, frozenset)):
        return len(value) == 0
    return False


def equal(got: Any, want: Any) -> bool:
    """Deep equality where a field's zero value and its absence are the same.

    A key missing on one side equals a zero value on the other; any two zero values are
    equal (``null`` and ``[]``, ``0`` and an absent key); otherwise types must agree
    (``true`` is not ``1``) and lists compare in order.

    >>> equal({"requested": 2, "unresolvable": False}, {"requested": 2})
    True
    >>> equal({}, {"observedGeneration": 0}), equal({"a": {"b": []}}, {"a": {}})
    (True, True)
    >>> equal({"requested": 2}, {"requested": 2, "unresolvable": True})
    False
    >>> equal(True, 1), equal([1, 2], [2, 1]), equal([{"x": 0}], [{}])
    (False, False, True)
    """
    if is_zero(got) and is_zero(want):
        return True
    if isinstance(got, dict) and isinstance(want, dict):
        return all(equal(got.get(k), want.get(k)) for k in set(got) | set(want))
    if isinstance(got, (list, tuple)) and isinstance(want, (list, tuple)):
        return len(got) == len(want) and all(equal(g, w) for g, w in zip(got, want))
    if isinstance(got, bool) != isinstance(want, bool):
        return False
    return got == want


def _dump(value: Any) -> str:
    return json.dumps(value, default=str, sort_keys=True)


def check(diffs: list[str], what: str, got: Any, want: Any) -> None:
    """Append a readable diff when ``got`` differs from ``want`` (by :func:`equal`).

    >>> diffs = []
    >>> check(diffs, "score", 3, 4); diffs
    ['score: got 3, want 4']
    >>> check(diffs, "fit", {"requested": 2, "unresolvable": False}, {"requested": 2}); len(diffs)
    1
    """
    if not equal(got, want):
        diffs.append(f"{what}: got {_dump(got)}, want {_dump(want)}")


def code_matches(got: str, want: str | None) -> bool:
    """Whether a status code matches the expected one: absent means ``Success`` (Go's zero
    Code) and ``non-Success`` matches every other code.

    >>> code_matches("Error", "non-Success"), code_matches("Success", "non-Success")
    (True, False)
    >>> code_matches("Success", None), code_matches("Wait", "Wait"), code_matches("Skip", "Wait")
    (True, True, False)
    """
    want = want or "Success"
    if want == NON_SUCCESS:
        return got != "Success"
    return got == want


def status_dict(status) -> dict:
    """A framework Status as a case writes it: ``{code, reasons}`` (a None status is Success,
    as in the framework)."""
    if status is None:
        return {"code": "Success", "reasons": []}
    return {"code": status.code.name, "reasons": list(status.reasons)}


def status_matches(got: dict, want: dict | None) -> bool:
    """Whether a status (``{code, reasons}``) matches an expected one: without ``reasons`` the
    code alone is asserted; ``"reasons": []`` asserts there are none; reasons compare as
    exact strings, in order. ``want`` None is a Success status.

    >>> got = {"code": "Unschedulable", "reasons": ["node(s) didn't match"]}
    >>> status_matches(got, {"code": "Unschedulable"})
    True
    >>> status_matches(got, {"code": "Unschedulable", "reasons": []})
    False
    >>> status_matches(got, {"code": "non-Success", "reasons": ["node(s) didn't match"]})
    True
    >>> status_matches({"code": "Success", "reasons": []}, {})
    True
    """
    want = want or {}
    if not code_matches(got.get("code", "Success"), want.get("code")):
        return False
    if "reasons" not in want:
        return True
    return list(got.get("reasons") or []) == list(want.get("reasons") or [])


def check_status(diffs: list[str], what: str, status, want: dict | None) -> None:
    """Append a diff when a framework Status (or a ``{code, reasons}`` dict) does not match
    the expected status (:func:`status_matches`).

    >>> from kschedlab.framework.status import Code, Status
    >>> diffs = []
    >>> check_status(diffs, "filter[n1]", Status(Code.Unschedulable, ("too many pods",)), {"code": "Unschedulable"})
    >>> check_status(diffs, "filter[n2]", Status(), {"code": "non-Success"}); diffs
    ['filter[n2]: got {"code": "Success", "reasons": []}, want {"code": "non-Success"}']
    """
    got = status if isinstance(status, dict) else status_dict(status)
    if not status_matches(got, want):
        diffs.append(f"{what}: got {_dump(got)}, want {_dump(want)}")


#: (apiVersion group, kind) -> (module, model) for the objects of ``podGroups``
_GROUP_MODELS = {
    ("scheduling.k8s.io", "PodGroup"): ("kschedlab.api.podgroup", "PodGroup"),
    ("scheduling.k8s.io", "CompositePodGroup"): ("kschedlab.api.podgroup", "CompositePodGroup"),
}


def pod_group_model(data: dict, where: str = "podGroups"):
    """The model for one entry of ``podGroups``, picked by its ``kind`` and ``apiVersion``:
    a PodGroup (``scheduling.k8s.io/v1beta1``) or a CompositePodGroup (``.../v1alpha3``).

    >>> pod_group_model({"apiVersion": "scheduling.k8s.io/v1alpha3", "kind": "CompositePodGroup"}).__name__
    'CompositePodGroup'
    >>> try:
    ...     pod_group_model({"apiVersion": "v1", "kind": "Pod"}, "podGroups[2]")
    ... except Mismatch as err:
    ...     print(err)
    podGroups[2]: kind 'Pod' (apiVersion 'v1') is neither a PodGroup nor a CompositePodGroup
    """
    import importlib

    kind, api_version = data.get("kind"), data.get("apiVersion") or ""
    group = api_version.rpartition("/")[0]
    target = _GROUP_MODELS.get((group, kind))
    if target is None:
        raise Mismatch(f"{where}: kind {kind!r} (apiVersion {api_version!r}) is neither a PodGroup "
                       "nor a CompositePodGroup")
    module, name = target
    return getattr(importlib.import_module(module), name)


def run_stage(stages: dict, case: dict[str, Any], family: str) -> list[str]:
    """Run ``case`` with its stage from ``stages``: the differences from ``expected`` (empty =
    pass). An unknown stage (``family`` names the stages expected: "a kubelet GC", "an eviction"),
    or a crash (with its cause), is reported as a difference.

    >>> run_stage({}, {"stage": "x"}, "a kubelet GC")
    ["stage 'x' is not a kubelet GC stage"]
    >>> run_stage({"x": lambda case, diffs: 1 / 0}, {"stage": "x"}, "a demo")
    ['ZeroDivisionError: division by zero']
    """
    stage = stages.get(case.get("stage"))
    if stage is None:
        return [f"stage {case.get('stage')!r} is not {family} stage"]
    diffs: list[str] = []
    try:
        stage(case, diffs)
    except Exception as err:  # a crash fails the case, with its cause
        diffs.append(f"{type(err).__name__}: {err}")
    return diffs
