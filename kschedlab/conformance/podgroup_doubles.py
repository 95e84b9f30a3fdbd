"""The test doubles of upstream's PodGroup-cycle tests (``schedule_one_podgroup_test.go``,
``algorithm_podgroup_test.go``), as plugin classes: the behaviour and strings are upstream's,
the code is ours. :func:`registry_and_profile` builds them from a case's ``fakePlugins``
(``shared/CASES.md``, "Pod group cycle stages"); ``tests/podgroup`` uses them directly.

* ``FakePodGroupPlugin`` (:func:`fake_pod_group_plugin`): Filter answers per pod name, else
  Unschedulable "default fake filter failure"; PostFilter Unschedulable "default fake
  postfilter failure"; PodGroupPostFilter Unschedulable "default fake podgroup postfilter
  failure" unless given a status (and nominations); its calls are recorded.
* ``GangScheduling`` standing in for PlacementFeasible (:func:`fake_placement_feasible`):
  ``statuses[k][e]`` for the k-th placement evaluated (a new one each time a group starts with
  nothing evaluated, the index pinned per placement) after e members were evaluated; no entry
  means Success; a code answers "injected placementFeasible status".
* ``FakePlacementPlugin`` (:func:`fake_placement_plugin`): PlacementGenerate per group key, cut
  to the parent placement, empty ones dropped (sorted by name in upstream's ordered wrapper,
  registered under ``orderedGenerateWrapperName`` at PlacementGenerate);
  PlacementScore from a table (0 when absent); Filter per node; ``pod_per_node``: a reserved
  node fails Filter "<node> is already reserved".
* ``FakeScorePlugin[i]`` (:func:`fake_score_plugin`): PlacementScore only.

>>> Fake = fake_pod_group_plugin({"p1": Status()})
>>> Fake.name, Fake.calls
('FakePodGroupPlugin', [])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kschedlab.framework.interface import Plugin
from kschedlab.framework.placement import Placement
from kschedlab.framework.status import Code, Status

__all__ = ["DEFAULT_FAKE_FILTER_FAILURE", "DEFAULT_FAKE_PG_POST_FILTER_FAILURE", "INJECTED_FEASIBLE",
           "fake_pod_group_plugin", "fake_placement_feasible", "fake_placement_plugin", "fake_score_plugin",
           "case_status", "registry_and_profile"]

DEFAULT_FAKE_FILTER_FAILURE = "default fake filter failure"
DEFAULT_FAKE_POST_FILTER_FAILURE = "default fake postfilter failure"
DEFAULT_FAKE_PG_POST_FILTER_FAILURE = "default fake podgroup postfilter failure"
INJECTED_FEASIBLE = "injected placementFeasible status"


def case_status(spec: dict | None) -> Status:
    """A case's status ``{code, message?, plugin?}`` (null = Go's nil = Success).

    >>> case_status({"code": "Error", "message": "boom"}).message(), case_status(None).is_success()
    ('boom', True)
    """
    if spec is None:
        return Status()
    message = spec.get("message")
    return Status(Code[spec.get("code") or "Success"], (message,) if message else (), spec.get("plugin"))


def fake_pod_group_plugin(filter_status: dict[str, Status | None] | None = None, *,
                          post_filter_status: Status | None = None, nominations: dict | None = None,
                          name: str = "FakePodGroupPlugin"):
    """``fakePodGroupPlugin``; ``filter_status``: pod name -> status (None = Success);
    ``nominations``: pod name -> node, handed back with ``post_filter_status``."""
    filters = dict(filter_status or {})
    noms = dict(nominations or {})

    class _Result:
        def __init__(self, nominations):
            self.nominations = nominations

    def filter_(self, state, pod_info, node_info):
        if pod_info.name in filters:
            return filters[pod_info.name] or Status()
        return Status.unschedulable(DEFAULT_FAKE_FILTER_FAILURE)

    def post_filter(self, state, pod_info, diagnosis):
        return None, Status.unschedulable(DEFAULT_FAKE_POST_FILTER_FAILURE)

    def pod_group_post_filter(self, state, group, pods, schedule):
        type(self).calls.append(group.key)
        if post_filter_status is None:
            return None, Status.unschedulable(DEFAULT_FAKE_PG_POST_FILTER_FAILURE)
        if not noms:
            return None, post_filter_status
        return _Result({pi.key: noms[pi.name] for pi in pods if noms.get(pi.name)}), post_filter_status

    return type("FakePodGroupPlugin", (Plugin,), {"name": name, "filter": filter_, "post_filter": post_filter,
                                                  "pod_group_post_filter": pod_group_post_filter, "calls": []})


def fake_placement_feasible(statuses: list[list] | None = None, name: str = "GangScheduling"):
    """``fakePlacementFeasiblePlugin`` (registered as GangScheduling, as upstream's is); an
    entry is a code name (answered with "injected placementFeasible status") or a Status."""
    table = [list(s) for s in (statuses or [])]
    key = "fakePlacementFeasible/placementIndex"

    def placement_feasible(self, state, group, scheduled, remaining):
        if not table:
            return Status()
        total = len(group.children) if group.kind == "CompositePodGroup" else len(group.pods)
        evaluated = total - remaining
        if evaluated == 0:
            type(self).placement_count += 1
        if key not in state:
            state[key] = type(self).placement_count - 1
        index = state[key]
        if index < len(table) and table[index] and evaluated < len(table[index]):
            entry = table[index][evaluated]
            if isinstance(entry, Status):
                return entry
            code = Code[entry]
            return Status() if code == Code.Success else Status(code, (INJECTED_FEASIBLE,))
        return Status()

    return type("FakePlacementFeasible", (Plugin,), {"name": name, "placement_feasible": placement_feasible,
                                                     "placement_count": 0})


def fake_placement_plugin(*, filter_status: dict[str, Status] | None = None, generate: dict | None = None,
                          generate_status: dict[str, Status] | None = None, scores: dict | None = None,
                          score_status: dict | None = None, pod_per_node: bool = False,
                          name: str = "FakePlacementPlugin", ordered: bool = True):
    """``fakePlacementPlugin`` (with the ordered wrapper when ``ordered``): ``generate``
    ``{group key: {placement: [node]}}``, ``generate_status`` ``{group key: Status}``, ``scores``
    ``{group key: {placement: int}}``, ``score_status`` likewise with Statuses,
    ``filter_status`` ``{node: Status}``."""
    filters = dict(filter_status or {})
    gen = {k: dict(v) for k, v in (generate or {}).items()}
    gen_status = dict(generate_status or {})
    score_map = {k: dict(v) for k, v in (scores or {}).items()}
    score_st = {k: dict(v) for k, v in (score_status or {}).items()}

    def filter_(self, state, pod_info, node_info):
        st = filters.get(node_info.name)
        if st is not None:
            return st
        if node_info.name in type(self).reserved:
            return Status.unschedulable(f"{node_info.name} is already reserved")
        return Status()

    def reserve(self, state, pod_info, node_name):
        if pod_per_node:
            type(self).reserved.add(node_name)
        return Status()

    def unreserve(self, state, pod_info, node_name):
        if pod_per_node:
            type(self).reserved.discard(node_name)

    def generate_placements(self, state, group, parent):
        snapshot = self.handle.cluster.snapshot
        parent_rows = set(int(r) for r in parent.rows)
        out = []
        for pname, nodes in gen.get(group.key, {}).items():
            rows = [snapshot.index[n] for n in nodes if n in snapshot.index and snapshot.index[n] in parent_rows]
            if rows:
                out.append(Placement(pname, np.asarray(rows, np.int64)))
        if ordered:
            out.sort(key=lambda p: p.name)
        return out, gen_status.get(group.key) or Status()

    def score_placement(self, state, group, assignments):
        value = score_map.get(group.key, {}).get(assignments.name, 0)
        return value, score_st.get(group.key, {}).get(assignments.name) or Status()

    return type("FakePlacementPlugin", (Plugin,), {
        "name": name, "filter": filter_, "reserve": reserve, "unreserve": unreserve,
        "generate_placements": generate_placements, "score_placement": score_placement, "reserved": set()})


def fake_score_plugin(name: str, scores: dict, score_status: dict | None = None):
    """A PlacementScore-only ``fakePlacementPlugin`` (``FakeScorePlugin[i]``)."""
    score_map = {k: dict(v) for k, v in scores.items()}
    score_st = {k: dict(v) for k, v in (score_status or {}).items()}

    def score_placement(self, state, group, assignments):
        return (score_map.get(group.key, {}).get(assignments.name, 0),
                score_st.get(group.key, {}).get(assignments.name) or Status())

    return type("FakeScorePlugin", (Plugin,), {"name": name, "score_placement": score_placement})


def _statuses(table: dict | None) -> dict:
    return {k: case_status(v) for k, v in (table or {}).items()}


def _fake(spec: dict):
    """The plugin class of one ``fakePlugins`` entry; ``double`` names the double when the
    entry registers it under another name (upstream registers ``fakePodGroupPlugin`` as
    DefaultPreemption where PodGroupPostFilter must run)."""
    name = spec["name"]
    if name == "FakePodGroupPlugin" or spec.get("double") == "FakePodGroupPlugin":
        result = spec.get("podGroupPostFilterResult")
        return fake_pod_group_plugin(
            {pod: (None if s is None else case_status(s)) for pod, s in (spec.get("filterStatusByPod") or {}).items()},
            post_filter_status=(case_status(spec["podGroupPostFilterStatus"])
                                if spec.get("podGroupPostFilterStatus") is not None else None),
            nominations=result, name=name)
    if name == "GangScheduling":
        return fake_placement_feasible([[s if isinstance(s, str) else case_status(s) for s in seq]
                                        for seq in spec.get("placementFeasibleSequences") or []])
    if name == "FakePlacementPlugin" or spec.get("double") == "FakePlacementPlugin":
        return fake_placement_plugin(
            filter_status=_statuses(spec.get("filterStatusByNode")), generate=spec.get("generatePlacements"),
            generate_status=_statuses(spec.get("generateStatus")), scores=spec.get("scorePlacements"),
            score_status={k: _statuses(v) for k, v in (spec.get("scoreStatus") or {}).items()},
            pod_per_node=bool(spec.get("podPerNode")), ordered=bool(spec.get("orderedGenerateWrapperName")),
            name=name)
    raise KeyError(f"fakePlugins: no test double named {name!r}")


def registry_and_profile(case: dict, scheduler_name: str = "test-scheduler") -> tuple[dict, dict]:
    """The registry of a case's ``fakePlugins`` and the profile enabling them at their
    ``extensionPoints`` (``placementScore`` with weight 1), ``realPlugins`` at every point they
    implement, queue sort and binder added (``tf.NewFramework``); an explicit ``profile``
    ``{extensionPoint: [plugin]}`` replaces the points."""
    from kschedlab.framework.interface import EXTENSION_POINTS
    from kschedlab.framework.profile import implements
    from kschedlab.plugins import in_tree_registry

    registry: dict[str, Any] = {}
    points: dict[str, list[str]] = {}
    for spec in case.get("fakePlugins") or []:
        registry[spec["name"]] = _fake(spec)
        wrapper = spec.get("orderedGenerateWrapperName")
        if wrapper:  # upstream's orderedPlacementPlugin: the fake's PlacementGenerate, sorted, under its own name
            registry[wrapper] = _fake(dict(spec, name=wrapper, double="FakePlacementPlugin"))
        for point in spec.get("extensionPoints") or []:
            points.setdefault(point, []).append(wrapper if wrapper and point == "placementGenerate" else spec["name"])
    real = in_tree_registry()
    for name in case.get("realPlugins") or []:
        for point in EXTENSION_POINTS:
            if point not in ("queueSort", "bind") and implements(real[name], point):
                points.setdefault(point, []).append(name)
    if case.get("profile") is not None:
        points = {point: list(names) for point, names in case["profile"].items()}
    plugins: dict = {"multiPoint": {"disabled": [{"name": "*"}]},
                     "queueSort": {"enabled": [{"name": "PrioritySort"}]},
                     "bind": {"enabled": [{"name": "DefaultBinder"}]}}
    for point, names in points.items():
        plugins[point] = {"enabled": [{"name": n, "weight": 1} if point == "placementScore" else {"name": n}
                                      for n in names]}
    return registry, {"schedulerName": scheduler_name, "plugins": plugins}
