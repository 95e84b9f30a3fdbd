"""The ``dra-allocate`` conformance stage: run the structured allocator for one case.

A case (see CASES.md) gives ``featureGates``, ``node``, ``deviceClasses``,
``resourceClaims`` (in order), ``resourceSlices``, ``allocatedDevices`` and optionally
``allocatedCapacity``; ``expected`` holds ``allocation`` (null or one entry per claim:
``{claim, nodeSelector, results, config?}``) and ``error`` (a substring, or null).
:func:`run_allocate_case` returns readable differences, empty when the case passes.

Comparison follows upstream's matchers: allocations and their results are
multisets (results in order when ``resultsOrdered``), node selectors ignore the
order of terms, requirements and values, zero values equal absent fields, a field
absent from an expected result must be unset, quantities compare by value, and a
set ``shareID`` is written ``shareIDSet: true`` (upstream replaces the random id).

>>> case = {"stage": "dra-allocate", "node": {"metadata": {"name": "n1"}},
...   "deviceClasses": [{"metadata": {"name": "c"}, "spec": {}}],
...   "resourceClaims": [{"metadata": {"name": "claim"}, "spec": {"devices": {"requests": [
...       {"name": "r", "exactly": {"deviceClassName": "c", "allocationMode": "ExactCount", "count": 1}}]}}}],
...   "resourceSlices": [{"metadata": {"name": "s"}, "spec": {"driver": "d", "nodeName": "n1",
...       "pool": {"name": "p", "generation": 1, "resourceSliceCount": 1}, "devices": [{"name": "x"}]}}],
...   "expected": {"allocation": [{"claim": "claim", "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
...       {"key": "metadata.name", "operator": "In", "values": ["n1"]}]}]},
...       "results": [{"request": "r", "driver": "d", "pool": "p", "device": "x"}]}], "error": None}}
>>> run_allocate_case(case)
[]
>>> case["expected"]["allocation"][0]["results"][0]["device"] = "y"
>>> print(run_allocate_case(case)[0].splitlines()[0])
allocation differs:
"""

from __future__ import annotations

import json
from typing import Any

from kschedlab.api.errors import ManifestError
from kschedlab.api.quantity import Quantity
from kschedlab.dra.allocator import AllocatedState, AllocationError, Allocator, DRAFeatures

__all__ = ["run_allocate_case", "canonical_allocation", "stage_dra_allocate", "STAGES"]


def _zero(v: Any) -> bool:
    return v is None or v is False or v == "" or v == 0 and not isinstance(v, bool) or v == [] or v == {}


def _drop_zero(d: dict) -> dict:
    return {k: (_drop_zero(v) if isinstance(v, dict) else v) for k, v in d.items() if not _zero(v)}


def _qty(v: Any) -> str:
    try:
        return f"{Quantity.parse(v).nanos}n"
    except (ValueError, TypeError):
        return f"invalid:{v}"


def _result(r: dict, *, actual: bool) -> dict:
    out = dict(r)
    if actual:
        share = out.pop("shareID", None)
        if share:
            out["shareIDSet"] = True
    if out.get("consumedCapacity"):
        out["consumedCapacity"] = {k: _qty(q) for k, q in out["consumedCapacity"].items()}
    if out.get("tolerations"):
        out["tolerations"] = [_drop_zero(t) for t in out["tolerations"]]
    return _drop_zero(out)


def _selector(sel: dict | None) -> Any:
    if not sel:
        return None
    terms = []
    for t in sel.get("nodeSelectorTerms") or []:
        term = {}
        for key in ("matchExpressions", "matchFields"):
            reqs = sorted(json.dumps({"key": r.get("key", ""), "operator": r.get("operator", ""),
                                      "values": sorted(r.get("values") or [])}, sort_keys=True)
                          for r in t.get(key) or [])
            if reqs:
                term[key] = reqs
        terms.append(json.dumps(term, sort_keys=True))
    return sorted(terms)


def _entry(claim: str, selector: dict | None, results: list[dict], config: list[dict] | None, *,
           actual: bool, ordered: bool) -> str:
    res = [json.dumps(_result(r, actual=actual), sort_keys=True) for r in results]
    if not ordered:
        res.sort()
    cfg = [json.dumps(_drop_zero(c), sort_keys=True) for c in config or []]
    return json.dumps({"claim": claim, "nodeSelector": _selector(selector), "results": res, "config": cfg},
                      sort_keys=True)


def canonical_allocation(claims: list[dict], allocation: list[dict] | None, *, ordered: bool = False) -> list[str] | None:
    """Allocator output (``AllocationResult`` dicts, one per claim) in the comparable form of
    expected entries; ``None`` when nothing was allocated."""
    if not allocation:
        return None
    out = []
    for claim, a in zip(claims, allocation):
        name = (claim.get("metadata") or {}).get("name", "")
        devices = a.get("devices") or {}
        out.append(_entry(name, a.get("nodeSelector"), devices.get("results") or [], devices.get("config"),
                          actual=True, ordered=ordered))
    return sorted(out)


def _pretty(entries: list[str] | None) -> str:
    if entries is None:
        return "  null"
    lines = []
    for e in entries:
        d = json.loads(e)
        lines.append(f"  claim {d['claim']}: nodeSelector={d['nodeSelector']}")
        lines.extend(f"    {r}" for r in d["results"])
        lines.extend(f"    config {c}" for c in d["config"])
    return "\n".join(lines)


def run_allocate_case(case: dict) -> list[str]:
    """Run one ``dra-allocate`` case; the list of differences (empty = pass)."""
    diffs: list[str] = []
    expected = case.get("expected") or {}
    try:
        features = DRAFeatures.from_gates(case.get("featureGates") or {})
        allocated = AllocatedState(
            allocated_devices={(d["driver"], d["pool"], d["device"]) for d in case.get("allocatedDevices") or []},
            aggregated_capacity={(d["driver"], d["pool"], d["device"]): dict(d.get("consumedCapacity") or {})
                                 for d in case.get("allocatedCapacity") or []},
        )
    except (KeyError, ValueError) as err:
        return [f"case {case.get('id', '?')}: invalid input: {err}"]
    claims = list(case.get("resourceClaims") or [])
    error = None
    allocation = None
    try:
        allocator = Allocator(features, allocated, case.get("deviceClasses") or [], case.get("resourceSlices") or [])
        allocation = allocator.allocate(case.get("node") or {}, claims)
    except (AllocationError, ManifestError) as err:
        error = str(err)
    want_error = expected.get("error")
    if want_error is None and error is not None:
        diffs.append(f"unexpected error: {error}")
    elif want_error is not None and error is None:
        diffs.append(f"expected an error containing {want_error!r}, got none")
    elif want_error is not None and error is not None and want_error not in error:
        diffs.append(f"error {error!r} does not contain {want_error!r}")
    ordered = bool(expected.get("resultsOrdered"))
    got = canonical_allocation(claims, allocation, ordered=ordered)
    want_raw = expected.get("allocation")
    want = None
    if want_raw:
        want = sorted(_entry(e.get("claim", ""), e.get("nodeSelector"), e.get("results") or [], e.get("config"),
                             actual=False, ordered=ordered) for e in want_raw)
    if got != want:
        diffs.append("allocation differs:\n expected:\n" + _pretty(want) + "\n got:\n" + _pretty(got))
    return diffs


def stage_dra_allocate(case: dict, diffs: list[str]) -> None:
    """The ``dra-allocate`` stage for the conformance runner: appends the differences to ``diffs``."""
    diffs.extend(run_allocate_case(case))


#: stages this module gives the conformance runner
STAGES = {"dra-allocate": stage_dra_allocate}
