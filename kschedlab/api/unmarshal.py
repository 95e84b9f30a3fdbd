"""The API server's JSON decoder refusing a workload count its Go field cannot hold.

kubectl sends each object as JSON; the API server decodes it into the kind's Go struct before
anything else, and a value that does not fit its field (a string, a boolean, a fraction or a number
past the int32 range where ``spec.replicas`` belongs) stops the decode: a 400 BadRequest for that
object alone, worded as Go's ``json.UnmarshalTypeError`` inside the handler's "cannot be handled"
(the JSON literal is named by its kind, a number by its text). The load keeps such an object
with the bad count left out and this message attached
(:attr:`~kschedlab.api.meta.TypedObject.decode_error`), so validation reports it and leaves the
object out while the rest of the input applies.

>>> print(count_decode_error("Deployment", "apps/v1", {"replicas": "3"}))
Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32
>>> print(count_decode_error("Job", "batch/v1", {"completions": 2.5, "parallelism": True}))
Job in version "v1" cannot be handled as a Job: json: cannot unmarshal number 2.5 into Go struct field JobSpec.spec.completions of type int32
>>> count_decode_error("StatefulSet", "apps/v1", {"replicas": 3}) is None
True
"""

from __future__ import annotations

import json
import re
from typing import Any, Mapping

__all__ = ["INT32_COUNTS", "count_decode_error", "json_value"]

#: the ``*int32`` / ``int32`` counts of a kind's spec (``DeploymentSpec.Replicas``, ``JobSpec.Parallelism``...)
INT32_COUNTS: dict[str, tuple[str, ...]] = {
    "Deployment": ("replicas",), "ReplicaSet": ("replicas",), "StatefulSet": ("replicas",),
    "Job": ("parallelism", "completions"),
}
_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1


def _go_float(value: float) -> str:
    # Go's encoding/json float text (as kubectl sends it): shortest form, exponent without padding
    return re.sub(r"e([+-])0*(\d)", r"e\1\2", repr(value))


def json_value(value: Any) -> str:
    """How ``json.UnmarshalTypeError`` names a JSON value: its kind, a number with its text.

    >>> [json_value(v) for v in ("a", False, {}, [], 1e-07, 10**18)]
    ['string', 'bool', 'object', 'array', 'number 1e-7', 'number 1000000000000000000']
    """
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, float):
        return f"number {_go_float(value)}"
    return f"number {json.dumps(value)}"


def count_decode_error(kind: str, api_version: str, spec: Mapping[str, Any]) -> str | None:
    """The decoder's message for the first count of ``spec`` (in the JSON's order) that its
    int32 cannot hold, or None (a null count is unset)."""
    counts = INT32_COUNTS.get(kind, ())
    for name, value in spec.items():
        if name not in counts or value is None:
            continue
        if isinstance(value, int) and not isinstance(value, bool) and _INT32_MIN <= value <= _INT32_MAX:
            continue
        version = api_version.rsplit("/", 1)[-1]
        return (f'{kind} in version "{version}" cannot be handled as a {kind}: json: cannot unmarshal '
                f"{json_value(value)} into Go struct field {kind}Spec.spec.{name} of type int32")
    return None
