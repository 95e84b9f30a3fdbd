"""Ports of upstream's PodGroup scheduling *cycle* tests (``schedule_one_podgroup_test.go``), as data.

Every row runs a real cycle, ``Scheduler.schedule_pod_group`` (or ``Scheduler.run``), on a
cluster built from the row, with only the fake plugins of ``conftest.py`` in the profile, and
asserts upstream's outcome: the cycle's status, which pods were bound / rejected / nominated,
the rejection messages and the PodGroup's ``PodGroupInitiallyScheduled`` condition.

Upstream's ``TestSubmitPodGroupAlgorithmResult`` hands a hand-made algorithm result to
``submitPodGroupAlgorithmResult``; here each row produces that result with fakes instead (a
scripted PlacementFeasible answer, a Filter failing the named pods, a PodGroupPostFilter
result) and then checks what upstream checks. Validation messages follow the hierarchy wording
of upstream's current ``validatePodGroup`` (``schedule_one_podgroup.go``, stored copy id
70396658844), which the stored test copy predates.
"""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

CYCLE = "kubernetes pkg/scheduler/schedule_one_podgroup_test.go (stored copy id 55634420285)"
CODE = "kubernetes pkg/scheduler/schedule_one_podgroup.go validatePodGroup (stored copy id 70396658844)"

PG = "podgroup/default/pg"
SCHED_ERR = "SchedulerError"


def _ids(rows):
    return [r["name"] for r in rows]


def _bound(c, name):
    return c.pods[f"default/{name}"].spec.node_name


def _pod_condition(c, name):
    conds = [x for x in c.pods[f"default/{name}"].status.conditions if x.type == "PodScheduled"]
    return conds[-1] if conds else None


def _pg_condition(c, name="pg"):
    cond = c.objects["PodGroup"][f"default/{name}"].condition()
    if cond is None:
        return None
    return cond.status, cond.reason, cond.message or ""


# ---------------------------------------------------------------------------------------------
# TestValidatePodGroup: the checks before the cycle. A failing row rejects every queued pod with
# a SchedulerError and sets the PodGroup's condition; a passing row schedules the group.
# ---------------------------------------------------------------------------------------------
_SCHED_NAME = ('all pods in a pod group hierarchy should have the same .spec.schedulerName set, '
               'got: "{a}" ("{pa}") and "{b}" ("{pb}")')
_PRIO = ('all pods in a pod group hierarchy should have the same priority as the root pod group\'s priority, '
         'got {a} ("{pod}") and {b} ("podgroup/default/pg")')
_POLICY_ROOT = ("all pods in a pod group hierarchy should have the same preemption policy as the root pod group's "
                'preemption policy, got {a} ("{pod}") and {b} ("podgroup/default/pg")')
VALIDATE_ROWS = [
    dict(name="failure when no pods to evaluate", pg={}, pods=[], profiles=["sched1"],
         error='profile not found for scheduler name ""'),
    dict(name="success for same scheduler name", pg={},
         pods=[dict(name="p1", scheduler="sched1"), dict(name="p2", scheduler="sched1")], profiles=["sched1"],
         error=None),
    dict(name="failure for different scheduler names", pg={},
         pods=[dict(name="p1", scheduler="sched1"), dict(name="p2", scheduler="sched2")],
         profiles=["sched1", "sched2"], error=_SCHED_NAME.format(a="sched2", pa="p2", b="sched1", pb="p1")),
    dict(name="failure when profile not found", pg={},
         pods=[dict(name="p1", scheduler="sched1"), dict(name="p2", scheduler="sched1")], profiles=["other"],
         error='profile not found for scheduler name "sched1"'),
    dict(name="success when priorities match", pg=dict(priority=10),
         pods=[dict(name="p1", priority=10), dict(name="p2", priority=10)], profiles=None, error=None),
    dict(name="failure when different priorities across pods", pg=dict(priority=10),
         pods=[dict(name="p1", priority=9), dict(name="p2", priority=10)], profiles=None,
         error=_PRIO.format(a=9, pod="p1", b=10)),
    dict(name="failure when different priorities across pods and pod group", pg=dict(priority=9),
         pods=[dict(name="p1", priority=10), dict(name="p2", priority=10)], profiles=None,
         error=_PRIO.format(a=10, pod="p1", b=9)),
    dict(name="success when new pods match scheduled pods scheduler name and priority", pg=dict(priority=10),
         scheduled=[dict(name="p2", priority=10, scheduler="sched1", node_name="node1")],
         pods=[dict(name="p1", priority=10, scheduler="sched1")], profiles=["sched1"], error=None),
    dict(name="failure when new pod has different scheduler name than scheduled pod", pg=dict(priority=10),
         scheduled=[dict(name="p2", priority=10, scheduler="sched2", node_name="node1")],
         pods=[dict(name="p1", priority=10, scheduler="sched1")], profiles=["sched1"],
         error=_SCHED_NAME.format(a="sched2", pa="p2", b="sched1", pb="p1")),
    dict(name="failure when new pod has different priority than scheduled pod", pg=dict(priority=10),
         scheduled=[dict(name="p2", priority=9, scheduler="sched1", node_name="node1")],
         pods=[dict(name="p1", priority=10, scheduler="sched1")], profiles=["sched1"],
         error=_PRIO.format(a=9, pod="p2", b=10)),
    dict(name="success when preemption policies match", pg=dict(preemption_policy="Never"),
         pods=[dict(name="p1", preemption_policy="Never"), dict(name="p2", preemption_policy="Never")],
         profiles=None, ppp=True, error=None),
    dict(name="failure when different preemption policies across pods", pg=dict(preemption_policy="Never"),
         pods=[dict(name="p1", preemption_policy="PreemptLowerPriority"), dict(name="p2", preemption_policy="Never")],
         profiles=None, ppp=True, error=_POLICY_ROOT.format(a="PreemptLowerPriority", pod="p1", b="Never")),
    dict(name="failure when different preemption policies across pods and pod group",
         pg=dict(preemption_policy="Never"),
         pods=[dict(name="p1", preemption_policy="PreemptLowerPriority"),
               dict(name="p2", preemption_policy="PreemptLowerPriority")],
         profiles=None, ppp=True, error=_POLICY_ROOT.format(a="PreemptLowerPriority", pod="p1", b="Never")),
    dict(name="success when preemption policies between pods and podgroup do not match but "
              "PodGroupPreemptionPolicy is disabled", pg=dict(preemption_policy="Never"),
         pods=[dict(name="p1", preemption_policy="PreemptLowerPriority"),
               dict(name="p2", preemption_policy="PreemptLowerPriority")],
         profiles=None, ppp=False, error=None),
    dict(name="failure when preemption policies do not match across pods and PodGroupPreemptionPolicy is disabled",
         pg=dict(preemption_policy="Never"),
         pods=[dict(name="p1", preemption_policy="PreemptLowerPriority"), dict(name="p2", preemption_policy="Never")],
         profiles=None, ppp=False,
         error='all pods in a pod group hierarchy should have the same preemption policy, got Never ("p2") and '
               'PreemptLowerPriority ("p1")'),
]
for _r in VALIDATE_ROWS:
    _r["source"] = f"{CYCLE} TestValidatePodGroup; messages: {CODE}"


def _validate_setup(pgkit, row):
    objs = [pgkit.node("node1"), pgkit.pod_group("pg", **row["pg"])]
    for spec in [*row.get("scheduled", []), *row["pods"]]:
        spec = dict(spec)
        objs.append(pgkit.pod(spec.pop("name"), "pg", scheduler=spec.pop("scheduler", None), **spec))
    c = pgkit.cluster(objs)
    profiles = [{"schedulerName": n} for n in (row["profiles"] or ["default-scheduler"])]
    gates = {"GenericWorkload": True, "PodGroupPreemptionPolicy": row.get("ppp", False)}
    from kschedlab.scheduler import Scheduler
    return c, Scheduler(c, {"profiles": profiles}, gates=gates)


@pytest.mark.parametrize("row", VALIDATE_ROWS, ids=_ids(VALIDATE_ROWS))
def test_validate_pod_group(row, pgkit):
    c, sched = _validate_setup(pgkit, row)
    queued = [p["name"] for p in row["pods"]]
    if not queued:
        # nothing queued: the cycle itself has nothing to do, so the check is called directly
        from kschedlab.scheduler.podgroup.algorithm import PodGroupInfo
        from kschedlab.scheduler.podgroup.cycle_validation import validate_hierarchy
        info = PodGroupInfo.build(c, PG)
        assert validate_hierarchy(info, lambda leaf: [], sched.profiles,
                                  pod_group_preemption_policy=row.get("ppp", False)) == row["error"]
        return
    out = sched.schedule_pod_group(PG)
    if row["error"] is None:
        assert out.status.is_success(), out.status
        assert {n: _bound(c, n) for n in queued} == {n: "node1" for n in queued}
        assert _pg_condition(c) == ("True", "Scheduled", "")
        return
    assert pgkit.status_of(out.status) == ("Error", row["error"])
    assert sorted((r.pod, r.node, r.status.code.name, r.message) for r in out.pod_results) == [
        (f"default/{n}", None, "Error", row["error"]) for n in sorted(queued)]
    for n in queued:
        cond = _pod_condition(c, n)
        assert (cond.status, cond.reason, cond.message) == ("False", SCHED_ERR, row["error"])
    assert _pg_condition(c) == ("False", SCHED_ERR, row["error"])


# ---------------------------------------------------------------------------------------------
# TestScheduleOnePodGroup_SchedulerNameMismatchUpdatesStatus
# ---------------------------------------------------------------------------------------------
MISMATCH_ROWS = [dict(
    name="scheduler name mismatch sets a SchedulerError condition",
    message=_SCHED_NAME.format(a="sched2", pa="p2", b="sched1", pb="p1"),
    upstream_message='all pods in a single pod group should have the same .spec.schedulerName set, got: '
                     '"sched2" and "sched1"',
    source=f"{CYCLE} TestScheduleOnePodGroup_SchedulerNameMismatchUpdatesStatus; message wording: {CODE}")]


@pytest.mark.parametrize("row", MISMATCH_ROWS, ids=_ids(MISMATCH_ROWS))
def test_scheduler_name_mismatch_updates_status(row, pgkit):
    from kschedlab.scheduler import Scheduler
    c = pgkit.cluster([pgkit.node("node1"), pgkit.pod_group("pg"),
                       pgkit.pod("p", "pg", scheduler="sched1", node_name="node1"),
                       pgkit.pod("p1", "pg", scheduler="sched1"), pgkit.pod("p2", "pg", scheduler="sched2")])
    sched = Scheduler(c, {"profiles": [{"schedulerName": "sched1"}, {"schedulerName": "sched2"}]},
                      gates=pgkit.GATES_GW)
    sched.schedule_pod_group(PG)
    assert _pg_condition(c) == ("False", SCHED_ERR, row["message"])


# ---------------------------------------------------------------------------------------------
# TestSkipPodGroupPodSchedule: a pod being deleted and an assumed pod leave the cycle.
# ---------------------------------------------------------------------------------------------
SKIP_ROWS = [dict(name="terminating and assumed pods are skipped", pods={"p1": {}, "p2": {"terminating": True},
                                                                          "p3": {}},
                  assumed=["p3"], expect_attempted=["p1"], source=f"{CYCLE} TestSkipPodGroupPodSchedule")]


@pytest.mark.parametrize("row", SKIP_ROWS, ids=_ids(SKIP_ROWS))
def test_skip_pod_group_pod_schedule(row, pgkit):
    c = pgkit.cluster([pgkit.node("node1"), pgkit.pod_group("pg"),
                       *(pgkit.pod(n, "pg", scheduler=None, **kw) for n, kw in row["pods"].items())])
    for n in row["assumed"]:
        pgkit.assume(c, n, "node1")
    from kschedlab.scheduler import Scheduler
    out = Scheduler(c, gates=pgkit.GATES_GW).schedule_pod_group(PG, [f"default/{n}" for n in row["pods"]])
    assert [r.pod for r in out.pod_results] == [f"default/{n}" for n in row["expect_attempted"]]
    assert [pi.name for pi in out.root.pods] == row["expect_attempted"]


# ---------------------------------------------------------------------------------------------
# TestPodGroupCycle_FillsPodResultsOnFewerResults: the algorithm stops at p2's filter error, so it
# has two pod results; the cycle still rejects all three pods (p2 with its own error, the others
# with the group's).
# ---------------------------------------------------------------------------------------------
_P2_ERR = 'running "FakePodGroupPlugin" filter plugin: filter error for p2'
FEWER_ROWS = [dict(name="all three pods are handled", filter={"p1": None, "p2": ("Error", "filter error for p2"),
                                                               "p3": None},
                   algorithm_pods=2,
                   expect={"p1": f"failed to schedule other pod from a pod group: {_P2_ERR}", "p2": _P2_ERR,
                           "p3": f"failed to schedule other pod from a pod group: {_P2_ERR}"},
                   source=f"{CYCLE} TestPodGroupCycle_FillsPodResultsOnFewerResults")]


@pytest.mark.parametrize("row", FEWER_ROWS, ids=_ids(FEWER_ROWS))
def test_fills_pod_results_on_fewer_results(row, pgkit):
    c = pgkit.cluster([pgkit.node("node1"), pgkit.pod_group("pg"), *(pgkit.pod(n, "pg") for n in ("p1", "p2", "p3"))])
    sched = pgkit.scheduler(c, pgkit.profile(filter=["FakePodGroupPlugin"], postFilter=["FakePodGroupPlugin"]),
                            {"FakePodGroupPlugin": pgkit.fake_pod_group_plugin(row["filter"])})
    results, _ = pgkit.run_algorithm(sched, PG)
    assert len(results[PG].pods) == row["algorithm_pods"]
    out = sched.schedule_pod_group(PG)
    got = {r.pod.split("/")[1]: (r.node, r.status.code.name, r.message) for r in out.pod_results}
    assert got == {n: (None, "Error", msg) for n, msg in row["expect"].items()}


# ---------------------------------------------------------------------------------------------
# TestPodGroupCycle_PodGroupPostFilter: PodGroupPostFilter runs only in the PodGroup cycle
# (GenericWorkload) and only when a plugin is enabled at that extension point. Driven through
# ``Scheduler.run``, which takes the pods through the PodGroup cycle only with GenericWorkload.
# ---------------------------------------------------------------------------------------------
POST_FILTER_ROWS = [
    dict(name="runs pod group post filter when GenericWorkload is enabled and DefaultPreemption is registered",
         generic_workload=True, post_filter_plugin="DefaultPreemption", expect_called=True),
    dict(name="disables pod group post filter when GenericWorkload feature gate is disabled",
         generic_workload=False, post_filter_plugin="DefaultPreemption", expect_called=False),
    dict(name="disables pod group post filter when DefaultPreemption is not registered",
         generic_workload=True, post_filter_plugin="FakePodGroupPlugin", expect_called=False),
]
for _r in POST_FILTER_ROWS:
    _r["source"] = f"{CYCLE} TestPodGroupCycle_PodGroupPostFilter"


@pytest.mark.parametrize("row", POST_FILTER_ROWS, ids=_ids(POST_FILTER_ROWS))
def test_pod_group_post_filter_runs(row, pgkit):
    c = pgkit.cluster([pgkit.node("node1"), pgkit.pod_group("pg"), pgkit.pod("p1", "pg"), pgkit.pod("p2", "pg")])
    name = row["post_filter_plugin"]
    fake = pgkit.fake_pod_group_plugin({"p1": ("Unschedulable", "always fail p1"),
                                        "p2": ("Unschedulable", "always fail p2")}, name=name)
    points = dict(filter=[name], postFilter=[name])
    if name == "DefaultPreemption":
        points["podGroupPostFilter"] = [name]
    sched = pgkit.scheduler(c, pgkit.profile(**points), {name: fake},
                            {"GenericWorkload": row["generic_workload"]})
    results = sched.run()
    assert [r.node for r in results] == [None, None]
    assert bool(fake.calls) == row["expect_called"]


# ---------------------------------------------------------------------------------------------
# TestPodGroupCycle_NominatedNodes: PodGroupPostFilter's nominations reach the pods it names.
# ---------------------------------------------------------------------------------------------
NOMINATED_ROWS = [dict(name="p1 nominated to node1, p2 not nominated", nominations={"p1": "node1"},
                       expect={"p1": "node1", "p2": None}, source=f"{CYCLE} TestPodGroupCycle_NominatedNodes")]


@pytest.mark.parametrize("row", NOMINATED_ROWS, ids=_ids(NOMINATED_ROWS))
def test_pod_group_cycle_nominated_nodes(row, pgkit):
    c = pgkit.cluster([pgkit.node("node1"), pgkit.node("node2"), pgkit.pod_group("pg"),
                       pgkit.pod("p1", "pg"), pgkit.pod("p2", "pg")])
    fake = pgkit.fake_pod_group_plugin({"p1": "Unschedulable", "p2": "Unschedulable"}, name="DefaultPreemption",
                                       post_filter_status="Success", nominations=row["nominations"])
    sched = pgkit.scheduler(c, pgkit.profile(filter=["DefaultPreemption"], postFilter=["DefaultPreemption"],
                                             podGroupPostFilter=["DefaultPreemption"]), {"DefaultPreemption": fake})
    out = sched.schedule_pod_group(PG)
    assert out.post_filter is not None and out.post_filter.is_success()
    assert {n: c.pods[f"default/{n}"].status.nominated_node_name for n in row["expect"]} == row["expect"]
    assert all(r.node is None for r in out.pod_results)


# ---------------------------------------------------------------------------------------------
# TestScheduleOnePodGroup_PodGroupNotFound: the queued PodGroup is gone; the pods go back
# unscheduled (upstream: into the queue's incomplete PodGroup pods, which we do not model).
# ---------------------------------------------------------------------------------------------
NOT_FOUND_ROWS = [dict(name="pods are rejected when the PodGroup does not exist", pods=["p1", "p2"],
                       message='podgroup.scheduling.k8s.io "pg" not found',
                       source=f"{CYCLE} TestScheduleOnePodGroup_PodGroupNotFound")]


@pytest.mark.parametrize("row", NOT_FOUND_ROWS, ids=_ids(NOT_FOUND_ROWS))
def test_pod_group_not_found(row, pgkit):
    c = pgkit.cluster([pgkit.node("node1"), *(pgkit.pod(n, "pg") for n in row["pods"])])
    sched = pgkit.scheduler(c, pgkit.profile(), {})
    out = sched.schedule_pod_group(PG)
    assert pgkit.status_of(out.status) == ("Error", row["message"])
    assert [(r.pod, r.node) for r in out.pod_results] == [(f"default/{n}", None) for n in row["pods"]]


# ---------------------------------------------------------------------------------------------
# TestSubmitPodGroupAlgorithmResult: what happens to the pods and to the condition for a given
# algorithm outcome. Pods p1..p3, one node (node1). ``filter``
# fails the named pods; ``feasible`` scripts PlacementFeasible (one entry per step: before any
# pod, after p1, ...), a tuple being the exact answer; ``post_filter`` makes a PodGroupPostFilter
# plugin answer ``(status, nominations)``; ``gang`` uses the real GangScheduling with that
# minCount instead of the script.
# ---------------------------------------------------------------------------------------------
_SCHEDULED_TRUE = ("True", "Scheduled", "All pods scheduled")
SUBMIT_ROWS = [
    dict(name="All pods feasible", filter={}, feasible=None,
         bound={"p1", "p2", "p3"}, failed=set(), condition=("True", "Scheduled", "")),
    dict(name="All pods feasible, but podGroup unschedulable", filter={},
         feasible=[["Wait", "Wait", "Wait", ("Wait", "not enough capacity for the gang")]],
         bound=set(), failed={"p1", "p2", "p3"},
         condition=("False", "Unschedulable", "not enough capacity for the gang")),
    dict(name="One unschedulable", filter={"p2": "Unschedulable"}, feasible=None,
         bound={"p1", "p3"}, failed={"p2"}, condition=("True", "Scheduled", "")),
    dict(name="All pods unschedulable", filter={"p1": "Unschedulable", "p2": "Unschedulable", "p3": "Unschedulable"},
         feasible=[["Wait", "Wait", "Wait", ("Unschedulable", "0/3 nodes are available: insufficient cpu")]],
         bound=set(), failed={"p1", "p2", "p3"},
         condition=("False", "Unschedulable", "0/3 nodes are available: insufficient cpu")),
    dict(name="All pods unschedulable with nil nominatingInfo",
         filter={"p1": "Unschedulable", "p2": "Unschedulable", "p3": "Unschedulable"},
         feasible=[["Wait", "Wait", "Wait", ("Unschedulable", "0/3 nodes are available: insufficient cpu")]],
         bound=set(), failed={"p1", "p2", "p3"},
         condition=("False", "Unschedulable", "0/3 nodes are available: insufficient cpu")),
    dict(name="Unschedulable for the entire pod group",
         filter={"p1": "Unschedulable", "p2": "Unschedulable", "p3": "Unschedulable"},
         feasible=[["Wait", "Wait", "Wait", ("Unschedulable", "node affinity mismatch")]],
         bound=set(), failed={"p1", "p2", "p3"}, condition=("False", "Unschedulable", "node affinity mismatch")),
    dict(name="Error for one pod", filter={"p2": "Unschedulable", "p3": "Unschedulable"}, gang=3,
         post_filter=(("Error", "plugin returned error"), None),
         bound=set(), failed={"p1", "p2", "p3"}, condition=("False", SCHED_ERR, "plugin returned error")),
    dict(name="Already Scheduled, successful cycle keeps condition", existing=_SCHEDULED_TRUE, filter={},
         feasible=None, bound={"p1", "p2", "p3"}, failed=set(), condition=("True", "Scheduled", "")),
    dict(name="Already Scheduled, rejected cycle does not regress condition", existing=_SCHEDULED_TRUE,
         filter={"p1": "Unschedulable", "p2": "Unschedulable", "p3": "Unschedulable"},
         feasible=[["Wait", "Wait", "Wait", ("Unschedulable", "extra pods could not be placed")]],
         bound=set(), failed={"p1", "p2", "p3"}, condition=_SCHEDULED_TRUE),
    dict(name="Already Scheduled, error cycle does not regress condition", existing=_SCHEDULED_TRUE,
         filter={"p2": "Unschedulable", "p3": "Unschedulable"}, gang=3, post_filter=(("Error",), None),
         bound=set(), failed={"p1", "p2", "p3"}, condition=_SCHEDULED_TRUE),
    dict(name="PodGroup waiting on preemption uses nominating info instead of suggested host for successfully "
              "evaluated pods",
         filter={"p2": "Unschedulable", "p3": "Unschedulable"},
         feasible=[["Wait", ("Wait",), ("Wait",), ("Wait",)]],
         post_filter=(("Success", "waiting on preemption"), {"p1": "node2"}),
         bound=set(), failed={"p2", "p3"}, preempting={"p1": "node2"},
         condition=("False", "Unschedulable", "waiting on preemption")),
]
for _r in SUBMIT_ROWS:
    _r["source"] = f"{CYCLE} TestSubmitPodGroupAlgorithmResult"


@pytest.mark.parametrize("row", SUBMIT_ROWS, ids=_ids(SUBMIT_ROWS))
def test_submit_pod_group_algorithm_result(row, pgkit):
    conditions = None
    if row.get("existing"):
        st, reason, msg = row["existing"]
        conditions = [{"type": "PodGroupInitiallyScheduled", "status": st, "reason": reason, "message": msg,
                       "lastTransitionTime": "2026-01-01T00:00:00Z"}]
    c = pgkit.cluster([pgkit.node("node1"),
                       pgkit.pod_group("pg", min_count=row.get("gang"), conditions=conditions),
                       *(pgkit.pod(n, "pg") for n in ("p1", "p2", "p3"))])
    filters = {n: None for n in ("p1", "p2", "p3")}
    filters.update(row["filter"])
    post_status, nominations = row.get("post_filter") or (None, None)
    fake = pgkit.fake_pod_group_plugin(filters, name="DefaultPreemption", post_filter_status=post_status,
                                       nominations=nominations)
    registry = {"DefaultPreemption": fake}
    points = dict(filter=["DefaultPreemption"])
    if row.get("post_filter"):
        points["podGroupPostFilter"] = ["DefaultPreemption"]
    if row.get("gang"):
        points["placementFeasible"] = ["GangScheduling"]
        points["permit"] = ["GangScheduling"]
    elif row.get("feasible"):
        registry["FakePlacementFeasible"] = pgkit.fake_placement_feasible(row["feasible"])
        points["placementFeasible"] = ["FakePlacementFeasible"]
    sched = pgkit.scheduler(c, pgkit.profile(**points), registry)
    out = sched.schedule_pod_group(PG)
    names = ("p1", "p2", "p3")
    assert {n for n in names if _bound(c, n)} == row["bound"]
    assert all(_bound(c, n) == "node1" for n in row["bound"])
    nominated = {n: c.pods[f"default/{n}"].status.nominated_node_name for n in names}
    assert {n: v for n, v in nominated.items() if v} == row.get("preempting", {})
    rejected = {r.pod.split("/")[1] for r in out.pod_results if r.node is None}
    assert rejected - set(row.get("preempting", {})) == row["failed"]
    assert _pg_condition(c) == row["condition"]


# ---------------------------------------------------------------------------------------------
# TestUpdatePodGroupCondition: the condition patch (no regression from True, the transition time
# kept unless the status changes, observedGeneration from metadata.generation).
# ---------------------------------------------------------------------------------------------
_T = "PodGroupInitiallyScheduled"
CONDITION_ROWS = [
    dict(name="set Scheduled condition to True on empty status", existing=None,
         condition=("True", "SomeReason", "All required pods have been successfully scheduled"),
         expect=("True", "SomeReason", "All required pods have been successfully scheduled")),
    dict(name="set Scheduled condition to False with Unschedulable reason", existing=None,
         condition=("False", "Unschedulable", "0/3 nodes are available: insufficient cpu"),
         expect=("False", "Unschedulable", "0/3 nodes are available: insufficient cpu")),
    dict(name="set Scheduled condition to False with SchedulerError reason", existing=None,
         condition=("False", "SchedulerError", "Internal scheduling error"),
         expect=("False", "SchedulerError", "Internal scheduling error")),
    dict(name="transition from Unschedulable to Scheduled",
         existing=("False", "Unschedulable", "previously unschedulable"),
         condition=("True", "Scheduled", "All required pods have been successfully scheduled"),
         expect=("True", "Scheduled", "All required pods have been successfully scheduled")),
    dict(name="transition from SchedulerError to Scheduled", existing=("False", "SchedulerError", "internal error"),
         condition=("True", "Scheduled", "All required pods have been successfully scheduled"),
         expect=("True", "Scheduled", "All required pods have been successfully scheduled")),
    dict(name="do not regress Scheduled to Unschedulable", existing=("True", "Scheduled", "All pods scheduled"),
         condition=("False", "Unschedulable", "extra pods could not be placed"),
         expect=("True", "Scheduled", "All pods scheduled"), keep_time=True),
    dict(name="do not regress Scheduled to SchedulerError", existing=("True", "Scheduled", "All pods scheduled"),
         condition=("False", "SchedulerError", "internal error"),
         expect=("True", "Scheduled", "All pods scheduled"), keep_time=True),
    dict(name="transition from Unschedulable to SchedulerError preserves LastTransitionTime",
         existing=("False", "Unschedulable", "not enough resources"),
         condition=("False", "SchedulerError", "internal error"),
         expect=("False", "SchedulerError", "internal error"), keep_time=True),
    dict(name="transition from SchedulerError to Unschedulable preserves LastTransitionTime",
         existing=("False", "SchedulerError", "internal error"),
         condition=("False", "Unschedulable", "not enough resources"),
         expect=("False", "Unschedulable", "not enough resources"), keep_time=True),
    dict(name="Scheduled to Scheduled preserves LastTransitionTime", existing=("True", "Scheduled", "All pods scheduled"),
         condition=("True", "Scheduled", "New condition message"),
         expect=("True", "Scheduled", "New condition message"), keep_time=True),
    dict(name="ObservedGeneration is set from PodGroup generation", existing=None, generation=7,
         condition=("True", "Scheduled", "All pods scheduled"), expect=("True", "Scheduled", "All pods scheduled"),
         observed_generation=7),
]
for _r in CONDITION_ROWS:
    _r["source"] = f"{CYCLE} TestUpdatePodGroupCondition"


@pytest.mark.parametrize("row", CONDITION_ROWS, ids=_ids(CONDITION_ROWS))
def test_update_pod_group_condition(row, pgkit):
    from kschedlab.api.podgroup import Condition
    from kschedlab.scheduler.podgroup.conditions import update_pod_group_condition

    t0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
    t1 = datetime(2026, 1, 2, tzinfo=timezone.utc)
    conditions = None
    if row["existing"]:
        st, reason, msg = row["existing"]
        conditions = [{"type": _T, "status": st, "reason": reason, "message": msg,
                       "lastTransitionTime": t0.strftime("%Y-%m-%dT%H:%M:%SZ")}]
    c = pgkit.cluster([pgkit.pod_group("pg", ns="ns1", conditions=conditions, generation=row.get("generation"))])
    pg = c.objects["PodGroup"]["ns1/pg"]
    st, reason, msg = row["condition"]
    update_pod_group_condition(pg, Condition(type=_T, status=st, reason=reason, message=msg), now=t1)
    got = pg.condition()
    assert (got.status, got.reason, got.message or "") == row["expect"]
    assert (got.observed_generation or 0) == row.get("observed_generation", 0)
    if row.get("keep_time"):
        assert got.last_transition_time == t0


# ---------------------------------------------------------------------------------------------
# The CompositePodGroup cycle tests: the real GangScheduling at PlacementFeasible, a Filter
# failing the pods named, every other pod fits node1. Which pods end up bound, which rejected.
# (Upstream gives the pods priority 100 but calls podGroupCycle directly, past validation; the
# groups have no priority, so the rows leave the pods' priority unset to pass validatePodGroup.)
# ---------------------------------------------------------------------------------------------
CPG_CYCLE_ROWS = [
    dict(name="TestCPGHierarchicalScheduling_Internal",
         cpgs={"cpg-root": (2, None), "cpg-sub1": (2, "cpg-root"), "cpg-sub2": (0, "cpg-root"),
               "cpg-sub3": (2, "cpg-root")},
         pgs={"pg1": (3, "cpg-sub1"), "pg2": (3, "cpg-sub1"), "pg3": (3, "cpg-sub1"), "pg4": (0, "cpg-sub2"),
              "pg5": (3, "cpg-sub2"), "pg6": (3, "cpg-sub3"), "pg7": (3, "cpg-sub3")},
         failing={"pg3", "pg7"}, success={"pg1", "pg2", "pg4", "pg5"}, fail={"pg3", "pg6", "pg7"}),
    dict(name="TestCPGMinGroupCount_Internal", cpgs={"cpg-root": (2, None)},
         pgs={"pg1": (3, "cpg-root"), "pg2": (3, "cpg-root"), "pg3": (3, "cpg-root")},
         failing={"pg3"}, success={"pg1", "pg2"}, fail={"pg3"}, big_pod="pg3"),
    dict(name="TestCPGBasicWithGangChildren_Internal", cpgs={"cpg-root": (0, None)},
         pgs={"pg1": (3, "cpg-root"), "pg2": (3, "cpg-root")},
         failing={"pg2"}, success={"pg1"}, fail={"pg2"}, big_pod="pg2"),
]
for _r in CPG_CYCLE_ROWS:
    _r["source"] = f"{CYCLE} {_r['name']}"


@pytest.mark.parametrize("row", CPG_CYCLE_ROWS, ids=_ids(CPG_CYCLE_ROWS))
def test_cpg_cycle(row, pgkit):
    objs = [pgkit.node("node1", cpu="100" if row["name"].endswith("Scheduling_Internal") else "20")]
    for name, (min_groups, parent) in row["cpgs"].items():
        objs.append(pgkit.composite(name, parent=parent, min_group_count=min_groups or None, basic=not min_groups))
    filters = {}
    for name, (min_count, parent) in row["pgs"].items():
        objs.append(pgkit.pod_group(name, parent=parent, min_count=min_count or None, basic=not min_count))
        for i in range(3):
            pod = f"{name}-pod-{i}"
            cpu = "100" if (row.get("big_pod") == name and i == 0) else ("1" if "big_pod" in row else None)
            objs.append(pgkit.pod(pod, name, cpu=cpu))
            filters[pod] = ("Unschedulable", "insufficient cpu") if name in row["failing"] else None
    c = pgkit.cluster(objs)
    sched = pgkit.scheduler(c, pgkit.profile(filter=["FakePodGroupPlugin"], placementFeasible=["GangScheduling"],
                                             permit=["GangScheduling"]),
                            {"FakePodGroupPlugin": pgkit.fake_pod_group_plugin(filters)}, pgkit.GATES_TAS_CPG)
    out = sched.schedule_pod_group("compositepodgroup/default/cpg-root")
    results = {r.pod.split("/")[1]: r.node for r in out.pod_results}
    for g in row["success"]:
        for i in range(3):
            assert results[f"{g}-pod-{i}"] == "node1", f"{g}-pod-{i}"
    for g in row["fail"]:
        for i in range(3):
            assert results[f"{g}-pod-{i}"] is None, f"{g}-pod-{i}"
            assert not _bound(c, f"{g}-pod-{i}")
