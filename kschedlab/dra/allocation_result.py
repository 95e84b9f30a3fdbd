"""An ``AllocationResult`` the scheduler writes, made as validation makes it.

Reserve builds a claim's allocation from the allocator's result: results naming request, driver,
pool and device, a node selector of ``metadata.name`` fields, and PreBind's timestamp. Validating
that dict with pydantic (a ``before`` validator per nested model, the timestamp parsed) and dumping
it again for the claim's kept dump took a good part of PreBind. :func:`allocation_result` builds the
same model with :meth:`~kschedlab.api._base.K8sModel.trusted` and its dump directly when every value
is of the plain shape below (strings where the API has strings, lists of strings, no nulls, no
unknown keys); anything else is left to validation (``None``), whose error messages and field paths
are then the ones a caller sees. ``tests/dra_bench/test_allocation_result.py`` compares both on
random allocations, field set, equality and dump key order included.
"""

from __future__ import annotations

from typing import Any

from kschedlab.api._base import format_time, parse_time

__all__ = ["allocation_result"]

#: ``DeviceRequestAllocationResult``'s string keys the plain shape may have, in dump order
_RESULT_KEYS = ("request", "driver", "pool", "device")
_REQUIREMENT_KEYS = ("key", "operator")


def _strings(values: Any) -> bool:
    return type(values) is list and all(type(v) is str for v in values)


def _result(entry: Any):
    from kschedlab.api.resource import DeviceRequestAllocationResult

    if type(entry) is not dict or not entry.keys() <= _RESULT_FIELDS or not all(type(v) is str for v in entry.values()):
        return None
    fields = {key: entry[key] for key in _RESULT_KEYS if key in entry}
    dump = {**fields, "tolerations": [], "bindingConditions": [], "bindingFailureConditions": [],
            "consumedCapacity": {}}
    return DeviceRequestAllocationResult.trusted(**fields), dump


def _requirement(entry: Any):
    from kschedlab.api.core import NodeSelectorRequirement

    if type(entry) is not dict or not entry.keys() <= _REQUIREMENT_FIELDS:
        return None
    if not all(type(entry[key]) is str for key in _REQUIREMENT_KEYS if key in entry):
        return None
    fields = {key: entry[key] for key in _REQUIREMENT_KEYS if key in entry}
    if "values" in entry:
        if not _strings(entry["values"]):
            return None
        fields["values"] = list(entry["values"])
    return NodeSelectorRequirement.trusted(**fields), {**fields, "values": list(fields.get("values", ()))}


def _term(entry: Any):
    from kschedlab.api.core import NodeSelectorTerm

    if type(entry) is not dict or not entry.keys() <= _TERM_KEYS:
        return None
    fields: dict[str, list] = {}
    dump: dict[str, list] = {"matchExpressions": [], "matchFields": []}
    for key, name in (("matchExpressions", "match_expressions"), ("matchFields", "match_fields")):
        if key not in entry:
            continue
        if type(entry[key]) is not list:
            return None
        made = [_requirement(r) for r in entry[key]]
        if None in made:
            return None
        fields[name] = [m[0] for m in made]  # type: ignore[index]
        dump[key] = [m[1] for m in made]  # type: ignore[index]
    return NodeSelectorTerm.trusted(**fields), dump


def _node_selector(entry: Any):
    from kschedlab.api.core import NodeSelector

    if type(entry) is not dict or not entry.keys() <= {"nodeSelectorTerms"}:
        return None
    if "nodeSelectorTerms" not in entry:
        return NodeSelector.trusted(), {"nodeSelectorTerms": []}
    terms = entry["nodeSelectorTerms"]
    if type(terms) is not list:
        return None
    made = [_term(t) for t in terms]
    if None in made:
        return None
    return (NodeSelector.trusted(node_selector_terms=[m[0] for m in made]),  # type: ignore[index]
            {"nodeSelectorTerms": [m[1] for m in made]})  # type: ignore[index]


def allocation_result(data: Any) -> tuple[Any, dict] | None:
    """``(AllocationResult, its dump)`` as ``AllocationResult.model_validate(data)`` and its
    ``model_dump(by_alias=True, exclude_none=True, mode="json")`` give them, for an allocation of the
    plain shape (see the module docstring); None for any other.

    >>> from kschedlab.api.resource import AllocationResult
    >>> data = {"devices": {"results": [{"request": "r", "driver": "d", "pool": "p", "device": "a"}]},
    ...         "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
    ...             {"key": "metadata.name", "operator": "In", "values": ["n1"]}]}]},
    ...         "allocationTimestamp": "2026-12-07T01:00:00Z"}
    >>> model, dump = allocation_result(data)
    >>> model == AllocationResult.model_validate(data)
    True
    >>> dump == AllocationResult.model_validate(data).model_dump(by_alias=True, exclude_none=True, mode="json")
    True
    >>> allocation_result({"devices": {"results": [{"request": "r", "adminAccess": True}]}}) is None
    True
    """
    from kschedlab.api.resource import AllocationResult, DeviceAllocationResult

    if type(data) is not dict or not data.keys() <= _ALLOCATION_KEYS:
        return None
    fields: dict[str, Any] = {}
    dump: dict[str, Any] = {}
    if "devices" in data:
        devices = data["devices"]
        if type(devices) is not dict or not devices.keys() <= {"results", "config"}:
            return None
        inner: dict[str, list] = {}
        results = []
        if "results" in devices:
            if type(devices["results"]) is not list:
                return None
            made = [_result(r) for r in devices["results"]]
            if None in made:
                return None
            inner["results"] = [m[0] for m in made]  # type: ignore[index]
            results = [m[1] for m in made]  # type: ignore[index]
        if "config" in devices:
            if devices["config"] != [] or type(devices["config"]) is not list:
                return None
            inner["config"] = []
        fields["devices"] = DeviceAllocationResult.trusted(**inner)
        dump["devices"] = {"results": results, "config": []}
    else:
        dump["devices"] = {"results": [], "config": []}
    if "nodeSelector" in data:
        made_selector = _node_selector(data["nodeSelector"])
        if made_selector is None:
            return None
        fields["node_selector"], dump["nodeSelector"] = made_selector
    if "allocationTimestamp" in data:
        stamp = data["allocationTimestamp"]
        if type(stamp) is not str:
            return None
        try:
            fields["allocation_timestamp"] = parse_time(stamp)
        except Exception:  # (validation reports it)
            return None
        dump["allocationTimestamp"] = format_time(fields["allocation_timestamp"])
    return AllocationResult.trusted(**fields), dump


_RESULT_FIELDS = frozenset(_RESULT_KEYS)
_REQUIREMENT_FIELDS = frozenset((*_REQUIREMENT_KEYS, "values"))
_TERM_KEYS = frozenset(("matchExpressions", "matchFields"))
_ALLOCATION_KEYS = frozenset(("devices", "nodeSelector", "allocationTimestamp"))
