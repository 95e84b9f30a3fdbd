"""Dynamic Resource Allocation as tables and pictures: the devices of the ResourceSlices per node,
a claim's CEL selectors evaluated device by device, the allocator's search as a tree, the shared
counters of partitionable devices, and one claim edited and allocated again.

Everything reads a :class:`~kschedlab.cluster.Cluster` (its claims, classes and slices through
:func:`kschedlab.dra.manager.dra_manager`) and changes nothing.

>>> from pathlib import Path
>>> data = Path(__file__).resolve().parents[2] / "datasets"
>>> cluster, errors = dra_cluster(data / "dra" / "08-prioritized-list.yaml",
...                               data / "dra-scheduling" / "prioritized-list-cluster.yaml")
>>> errors
[]
>>> device_table(cluster)[["node", "device", "attributes"]].values.tolist()
[['node-black', 'large-black', 'color=black size=large'], ['node-white', 'small-white-0', 'color=white size=small'], ['node-white', 'small-white-1', 'color=white size=small']]
>>> claim = claim_of(cluster, "default/first")
>>> result, trace = allocate_on(cluster, "node-white", [claim])
>>> [r["device"] for r in result[0]["devices"]["results"]]
['small-white-0', 'small-white-1']
>>> tree = search_tree(trace)
>>> tree[tree.status == "rejected"].label.tolist()
['small-white-0', 'small-white-1']
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

import pandas as pd
import plotly.graph_objects as go

from kschedlab.api.loader import load
from kschedlab.api.quantity import BINARY_SI, Quantity
from kschedlab.apiserver.admission import admit
from kschedlab.cluster import Cluster
from kschedlab.dra.allocator import AllocationError, Allocator, DRAFeatures
from kschedlab.dra.cel import DeviceView, compile_selector
from kschedlab.dra.devices import as_dict, read_slice
from kschedlab.dra.manager import dra_manager
from kschedlab.dra.resourceclaim_controller import ResourceClaimController
from kschedlab.dra.trace import AllocationTrace

__all__ = ["dra_cluster", "claim_of", "device_table", "device_map", "selector_table", "allocate_on",
           "search_tree", "search_tree_figure", "counter_table", "ClaimTry", "try_claim"]

#: marker colours of the device map and the search tree
COLORS = {"free": "#9ecae1", "allocated": "#0072B2", "rejected": "#D55E00", "rolled back": "#E69F00",
          "backtrack": "#969696", "subrequest": "#CC79A7", "result": "#252525", "claims": "#252525",
          "tried": "#bdbdbd"}
#: search tree markers: the root (the claims) and a found result differ in shape, not only in name
SYMBOLS = {"claims": "square", "result": "star", "backtrack": "x", "rejected": "x-thin-open"}


def dra_cluster(*paths: str | Path, seed: int = 0) -> tuple[Cluster, list]:
    """Load and admit ``paths`` into a Cluster and run the ResourceClaim controller once (claims
    from templates), as ``kschedlab schedule`` does; returns the cluster and the controller's errors."""
    objects: list = []
    for p in paths:
        objects.extend(load(p))
    cluster = Cluster(admit(objects))
    return cluster, ResourceClaimController(cluster, seed=seed).sync()


def claim_of(cluster: Cluster, pod: str, claim: str | None = None) -> dict:
    """The ResourceClaim (dict) of ``pod`` ("namespace/name"): the one for its pod claim named
    ``claim``, by default its first; a claim from a template is found through its owner."""
    ns, name = pod.split("/", 1)
    p = cluster.pods[pod]
    pod_claim = next(pc for pc in p.spec.resource_claims if claim is None or pc.name == claim)
    manager = dra_manager(cluster)
    if pod_claim.resource_claim_name:
        found = manager.get_claim(ns, pod_claim.resource_claim_name)
        if found is None:
            raise KeyError(f"pod {pod}: resourceclaim {pod_claim.resource_claim_name!r} not found")
        return found
    for c in manager.list_claims():
        meta = c.get("metadata") or {}
        owners = [o.get("name") for o in meta.get("ownerReferences") or []]
        if (meta.get("namespace") == ns and name in owners
                and (meta.get("annotations") or {}).get("resource.kubernetes.io/pod-claim-name") == pod_claim.name):
            return c
    raise KeyError(f"pod {pod}: the claim of {pod_claim.name!r} has not been created")


def _q(nanos: int) -> str:
    """A counter (kept in nano units by the allocator) as a quantity: ``_q(6 * 2**30 * 10**9)`` is ``6Gi``."""
    return str(Quantity.from_nanos(nanos, BINARY_SI))


def _attr_text(attributes: dict) -> str:
    parts = []
    for k, v in (attributes or {}).items():
        value = next(iter(v.values())) if isinstance(v, dict) and v else v
        parts.append(f"{k}={str(value).lower() if isinstance(value, bool) else value}")
    return " ".join(parts)


def _owners(cluster: Cluster) -> dict[tuple[str, str, str], str]:
    owners = {}
    for c in dra_manager(cluster).list_claims():
        meta = c.get("metadata") or {}
        for r in (((c.get("status") or {}).get("allocation") or {}).get("devices") or {}).get("results") or []:
            owners[(r.get("driver", ""), r.get("pool", ""), r.get("device", ""))] = \
                f"{meta.get('namespace')}/{meta.get('name')}"
    return owners


def device_table(cluster: Cluster) -> pd.DataFrame:
    """One row per device of the cluster's ResourceSlices: where it is (``node``: the slice's node,
    ``all nodes`` or ``node selector``), driver, pool, device, attributes, the counters it consumes
    and the claim it is allocated to (empty when free)."""
    owners = _owners(cluster)
    rows = []
    for raw in dra_manager(cluster).resource_slices():
        s = read_slice(raw)
        where = s.node_name or ("all nodes" if s.all_nodes else "node selector")
        for d in s.devices:
            consumes = " ".join(f"{cs}:" + ",".join(f"{k}={_q(v)}" for k, v in counters.items())
                                for cs, counters in d.consumes_counters)
            rows.append({"node": where, "driver": s.driver, "pool": s.pool, "device": d.name,
                         "attributes": _attr_text(d.raw.get("attributes") or {}), "consumes": consumes,
                         "claim": owners.get(d.id, "")})
    return pd.DataFrame(rows, columns=["node", "driver", "pool", "device", "attributes", "consumes", "claim"])


def device_map(cluster: Cluster, title: str = "Devices per node (ResourceSlices)") -> go.Figure:
    """Nodes × devices: one square per device in its node's row, green when allocated (hover shows
    the claim and the attributes), blue when free."""
    table = device_table(cluster)
    fig = go.Figure()
    nodes = list(dict.fromkeys(table.node))
    for state in ("free", "allocated"):
        part = table[(table.claim != "") == (state == "allocated")]
        xs = [int((table.node[:i] == n).sum()) for i, n in zip(part.index, part.node)]
        fig.add_trace(go.Scatter(
            x=xs, y=list(part.node), mode="markers+text", name=state, text=list(part.device),
            textposition="bottom center", marker={"symbol": "square", "size": 34, "color": COLORS[state]},
            customdata=list(zip(part.driver, part.pool, part.attributes, part.claim)),
            hovertemplate="%{text}<br>%{customdata[0]} / %{customdata[1]}<br>%{customdata[2]}"
                          "<br>claim: %{customdata[3]}<extra></extra>"))
    fig.update_layout(title=title, height=140 + 80 * len(nodes), template="plotly_white",
                      xaxis={"title": "device", "showticklabels": False, "range": [-0.9, max(2, len(table)) - 0.1]},
                      yaxis={"categoryorder": "array", "categoryarray": nodes[::-1],
                             "range": [-0.8, len(nodes) - 0.4]},  # room for the labels under the last row
                      margin={"b": 60})
    return fig


def _requests(claim: dict) -> list[tuple[str, dict]]:
    out = []
    for r in ((claim.get("spec") or {}).get("devices") or {}).get("requests") or []:
        if r.get("exactly"):
            out.append((r["name"], r["exactly"]))
        for sub in r.get("firstAvailable") or []:
            out.append((f"{r['name']}/{sub['name']}", sub))
    return out


def _evaluate(expression: str, view: DeviceView) -> Any:
    try:
        return compile_selector(expression).matches(view)
    except Exception as err:  # the CEL engine's compile or runtime error, shown as text
        return f"error: {err}"


def selector_table(cluster: Cluster, claim: dict) -> pd.DataFrame:
    """Every CEL selector that matters for ``claim`` evaluated on every device: for each request
    (or ``firstAvailable`` subrequest), first its DeviceClass's selectors, then its own. Columns
    ``request``, ``device``, ``selector`` (which one), ``expression`` (one line) and ``result``
    (True, False or the CEL error)."""
    manager = dra_manager(cluster)
    slices = [read_slice(raw) for raw in manager.resource_slices()]
    rows = []
    for request, body in _requests(claim):
        cls = manager.get_device_class(body.get("deviceClassName", "")) or {}
        selectors = [(f"class {body.get('deviceClassName')} #{i}", s) for i, s in
                     enumerate((cls.get("spec") or {}).get("selectors") or [])]
        selectors += [(f"request #{i}", s) for i, s in enumerate(body.get("selectors") or [])]
        for s in slices:
            for d in s.devices:
                view = DeviceView(s.driver, d.raw.get("attributes") or {}, d.raw.get("capacity") or {},
                                  d.allow_multiple_allocations)
                for which, sel in selectors:
                    expr = (sel.get("cel") or {}).get("expression", "")
                    rows.append({"request": request, "device": d.name, "selector": which,
                                 "expression": " ".join(expr.split()), "result": _evaluate(expr, view)})
    return pd.DataFrame(rows, columns=["request", "device", "selector", "expression", "result"])


def allocate_on(cluster: Cluster, node: str, claims: Iterable[dict], *,
                features: DRAFeatures | None = None) -> tuple[list[dict] | None, AllocationTrace]:
    """Run the structured allocator for ``claims`` on ``node`` with the devices already allocated in
    the cluster taken; returns the allocation results (None when they do not fit) and the trace."""
    manager = dra_manager(cluster)
    trace = AllocationTrace()
    allocator = Allocator(features, manager.allocated_state(), manager.device_classes(), manager.resource_slices())
    return allocator.allocate(as_dict(cluster.nodes[node]), list(claims), trace=trace), trace


def search_tree(trace: AllocationTrace) -> pd.DataFrame:
    """The allocator's search as a tree, one row per node: ``id``, ``parent`` (-1 for the root),
    ``label``, ``request``, ``status`` (allocated, rejected, rolled back, backtrack, subrequest,
    result) and ``reason``. A taken device is the parent of what is tried after it; a rollback
    marks it ``rolled back`` and the search continues from its parent.

    >>> t = AllocationTrace()
    >>> for action, dev, reason in [("try", "d/p/a", ""), ("allocate", "d/p/a", ""), ("try", "d/p/b", ""),
    ...                             ("reject", "d/p/b", "constraint"), ("deallocate", "d/p/a", ""),
    ...                             ("try", "d/p/b", ""), ("allocate", "d/p/b", "")]:
    ...     t.add(action, request="r", device=dev, reason=reason)
    >>> search_tree(t)[["id", "parent", "label", "status"]].values.tolist()
    [[0, -1, 'claims', 'claims'], [1, 0, 'a', 'rolled back'], [2, 1, 'b', 'rejected'], [3, 0, 'b', 'allocated']]
    """
    rows = [{"id": 0, "parent": -1, "label": "claims", "request": "", "status": "claims", "reason": ""}]
    stack = [0]
    subrequest_at: dict[str, int] = {}  # request name -> stack length before its open subrequest
    last_try = None

    def add(label: str, request: str, status: str, reason: str = "") -> int:
        rows.append({"id": len(rows), "parent": stack[-1], "label": label, "request": request,
                     "status": status, "reason": reason})
        return len(rows) - 1

    for r in trace.rows:
        action, request = r["action"], r["request"]
        short = r["device"].rsplit("/", 1)[-1]
        if action == "subrequest":
            base = request.split("/", 1)[0]
            if base in subrequest_at:
                del stack[subrequest_at[base]:]
            subrequest_at[base] = len(stack)
            stack.append(add(request, request, "subrequest", r["detail"]))
        elif action == "try":
            last_try = add(short, request, "tried")
        elif action == "reject" and last_try is not None and rows[last_try]["label"] == short:
            rows[last_try].update(status="rejected", reason=r["reason"] + (f": {r['detail']}" if r["detail"] else ""))
        elif action == "reject":  # allocationMode All rejects without a try
            add(short, request, "rejected", r["reason"])
        elif action == "allocate":
            if last_try is None or rows[last_try]["label"] != short:
                last_try = add(short, request, "allocated")
            rows[last_try]["status"] = "allocated"
            stack.append(last_try)
            last_try = None
        elif action == "deallocate":
            for i in range(len(stack) - 1, 0, -1):
                if rows[stack[i]]["label"] == short and rows[stack[i]]["status"] == "allocated":
                    rows[stack[i]]["status"] = "rolled back"
                    del stack[i:]
                    break
        elif action == "backtrack":
            add("backtrack", request, "backtrack", r["reason"] or r["detail"])
        elif action == "result":
            del stack[1:]
            add(r["detail"], "", "result")
    return pd.DataFrame(rows, columns=["id", "parent", "label", "request", "status", "reason"])


_DEVICE_STATES = ("allocated", "rejected", "rolled back", "tried")


def search_tree_figure(trace: AllocationTrace, title: str = "The allocator's search") -> go.Figure:
    """:func:`search_tree` drawn top-down: leaves side by side in search order, each node above its
    children; a device is labelled with its request, colour by status, the reason on hover."""
    tree = search_tree(trace)
    children: dict[int, list[int]] = {}
    for i, p in zip(tree.id, tree.parent):
        children.setdefault(int(p), []).append(int(i))
    x: dict[int, float] = {}
    level: dict[int, int] = {0: 0}
    next_leaf = [0]

    def place(n: int) -> None:
        kids = children.get(n, [])
        for k in kids:
            level[k] = level[n] + 1
            place(k)
        if kids:
            x[n] = sum(x[k] for k in kids) / len(kids)
        else:
            x[n] = next_leaf[0]
            next_leaf[0] += 1

    place(0)
    fig = go.Figure()
    ex, ey = [], []
    for i, p in zip(tree.id, tree.parent):
        if p >= 0:
            ex += [x[p], x[i], None]
            ey += [-level[p], -level[i], None]
    fig.add_trace(go.Scatter(x=ex, y=ey, mode="lines", line={"color": "#cccccc"}, hoverinfo="skip",
                             showlegend=False))
    for status in dict.fromkeys(tree.status):
        part = tree[tree.status == status]
        fig.add_trace(go.Scatter(
            x=[x[i] for i in part.id], y=[-level[i] for i in part.id], mode="markers+text", name=status,
            text=[f"{q}<br>{lab}" if st in _DEVICE_STATES else lab
                  for q, lab, st in zip(part.request, part.label, part.status)],
            textposition="bottom center",
            marker={"size": 16, "color": COLORS.get(status, "#636363"), "symbol": SYMBOLS.get(status, "circle"),
                    "line": {"width": 2, "color": COLORS.get(status, "#636363")}},
            customdata=list(zip(part.request, part.reason)),
            hovertemplate="%{text}<br>%{customdata[1]}<extra></extra>"))
    depth = max(level.values())
    fig.update_layout(title=title, template="plotly_white", height=220 + 90 * depth,
                      xaxis={"visible": False}, yaxis={"visible": False, "range": [-depth - 0.7, 0.5]})
    return fig


def counter_table(cluster: Cluster) -> pd.DataFrame:
    """The shared counters of partitionable devices: per pool and counter set, each counter's
    capacity, what the allocated devices consume of it and what is left (exact quantities)."""
    owners = _owners(cluster)
    slices = [read_slice(raw) for raw in dra_manager(cluster).resource_slices()]
    used: dict[tuple, int] = {}
    for s in slices:
        for d in s.devices:
            if d.id in owners:
                for cs, counters in d.consumes_counters:
                    for k, v in counters.items():
                        used[(s.driver, s.pool, cs, k)] = used.get((s.driver, s.pool, cs, k), 0) + v
    rows = []
    for s in slices:
        for cs, counters in s.shared_counters:
            for k, v in counters.items():
                u = used.get((s.driver, s.pool, cs, k), 0)
                rows.append({"pool": f"{s.driver}/{s.pool}", "counterSet": cs, "counter": k,
                             "capacity": _q(v), "consumed": _q(u), "left": _q(v - u)})
    return pd.DataFrame(rows, columns=["pool", "counterSet", "counter", "capacity", "consumed", "left"])


@dataclass
class ClaimTry:
    """One claim built from a device class, a count and a selector, allocated on one node."""

    claim: dict
    devices: list[str]
    message: str
    trace: AllocationTrace


def try_claim(cluster: Cluster, node: str, device_class: str, count: int = 1, selector: str = "") -> ClaimTry:
    """Allocate a one-request claim (``count`` devices of ``device_class`` matching ``selector``, a
    CEL expression; empty for none) on ``node``; ``message`` says what happened.

    >>> from pathlib import Path
    >>> data = Path(__file__).resolve().parents[2] / "datasets"
    >>> cluster, _ = dra_cluster(data / "dra" / "08-prioritized-list.yaml",
    ...                          data / "dra-scheduling" / "prioritized-list-cluster.yaml")
    >>> try_claim(cluster, "node-white", "resource.example.com", 2).devices
    ['small-white-0', 'small-white-1']
    >>> try_claim(cluster, "node-white", "resource.example.com", 3).message
    'cannot allocate: 3 device(s) asked, the search found no solution'
    >>> print(try_claim(cluster, "node-white", "resource.example.com", 1, 'device.attributes["x"]').message)
    error: claim default/edited: selector #0: CEL compile error: must evaluate to bool or the unknown type, not map(string, dyn)
    """
    exactly: dict[str, Any] = {"deviceClassName": device_class, "allocationMode": "ExactCount", "count": count}
    if selector.strip():
        exactly["selectors"] = [{"cel": {"expression": selector}}]
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
             "metadata": {"name": "edited", "namespace": "default"},
             "spec": {"devices": {"requests": [{"name": "req", "exactly": exactly}]}}}
    try:
        result, trace = allocate_on(cluster, node, [claim])
    except AllocationError as err:
        return ClaimTry(claim, [], f"error: {err}", AllocationTrace())
    if result is None:
        return ClaimTry(claim, [], f"cannot allocate: {count} device(s) asked, the search found no solution", trace)
    devices = [r["device"] for r in result[0]["devices"]["results"]]
    return ClaimTry(claim, devices, f"allocated on {node}: {', '.join(devices)}", trace)
