"""API-initiated eviction (kschedlab.eviction.api_initiated) and the disruption controller (kschedlab.eviction.disruption).

* Seed section 14 ("Виселення, ініційоване API") on datasets/eviction/14-*.yaml:
  200 / 429 / 500 with upstream's messages, graceful deletion, the PDB status updates.
* Upstream tables ported: pkg/registry/core/pod/storage/eviction_test.go
  (TestEviction, TestEvictionIgnorePDB, TestEvictionDryRun, TestEvictionPDBStatus) and
  pkg/controller/disruption/disruption_test.go (status computations).
* A hypothesis property: evicting with a refreshed budget never takes the healthy
  count below desiredHealthy.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kschedlab.api.core import Node, Pod
from kschedlab.api.loader import load
from kschedlab.api.policy import PodDisruptionBudget
from kschedlab.apiserver.admission import admit
from kschedlab.cluster import Cluster
from kschedlab.eviction import disruption as pdbmod
from kschedlab.eviction.api_initiated import (
    MSG_MULTIPLE_PDBS,
    MSG_PDB_VIOLATION,
    EvictionResponse,
    evict,
    finish_terminations,
    graceful_delete,
    pod_phase,
)

DATA = Path(__file__).resolve().parent.parent / "datasets" / "eviction"
SRC_EVICTION = "kubernetes/kubernetes pkg/registry/core/pod/storage/eviction_test.go"
SRC_DISRUPTION = "kubernetes/kubernetes pkg/controller/disruption/disruption_test.go"
T0 = datetime(1970, 1, 1, tzinfo=timezone.utc)


def scenario(name: str) -> Cluster:
    cluster = Cluster(admit(load(DATA / name)))
    pdbmod.refresh(cluster, now=0)
    return cluster


def pdb_of(cluster, name="web"):
    return cluster.objects["PodDisruptionBudget"][f"default/{name}"]


# ------------------------------------------------------------------- seed section 14
def test_seed_200_then_429_against_min_available():
    c = scenario("14-pdb-min-available.yaml")
    budget = pdb_of(c)
    assert (budget.status.current_healthy, budget.status.desired_healthy, budget.status.expected_pods,
            budget.status.disruptions_allowed) == (3, 2, 3, 1)

    ok = evict(c, "default/web-0", now=100)
    assert (ok.code, ok.http_status, ok.path, ok.pdb) == (200, 201, "budget", "web")
    assert ok.to_status() == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}
    pod = c.pods["default/web-0"]  # graceful deletion: still there, terminating for 30 s
    assert pdbmod.to_seconds(pod.metadata.deletion_timestamp) == 130.0
    assert pod.metadata.deletion_grace_period_seconds == 30
    cond = next(c_ for c_ in pod.status.conditions if c_.type == "DisruptionTarget")
    assert (cond.status, cond.reason, cond.message) == ("True", "EvictionByEvictionAPI", "Eviction API: evicting")
    st_ = budget.status
    assert st_.disruptions_allowed == 0 and list(st_.disrupted_pods) == ["web-0"]
    assert pdbmod.to_seconds(st_.disrupted_pods["web-0"]) == 100.0
    assert [(x.type, x.status, x.reason) for x in st_.conditions] == [
        ("DisruptionAllowed", "False", "InsufficientPods")]

    refused = evict(c, "default/web-1", now=101)
    assert (refused.code, refused.reason, refused.message) == (429, "TooManyRequests", MSG_PDB_VIOLATION)
    # the status the API server has was not refreshed since: 3 currently
    assert refused.causes[0].message == "The disruption budget web needs 2 healthy pods and has 3 currently"
    assert refused.to_status() == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": MSG_PDB_VIOLATION,
        "reason": "TooManyRequests", "details": {"causes": [{"reason": "DisruptionBudget", "message":
            "The disruption budget web needs 2 healthy pods and has 3 currently"}]}, "code": 429}
    assert c.pods["default/web-1"].metadata.deletion_timestamp is None

    # the disruption controller catches up: web-0 terminating, 2 healthy -> still 429
    pdbmod.refresh(c, now=102)
    assert (budget.status.current_healthy, budget.status.disruptions_allowed, budget.status.disrupted_pods) == (
        2, 0, {})
    assert evict(c, "default/web-1", now=102).causes[0].message == (
        "The disruption budget web needs 2 healthy pods and has 2 currently")
    # the kubelet finishes web-0 when its grace period ends
    assert finish_terminations(c, 129) == [] and finish_terminations(c, 130) == ["default/web-0"]


def test_seed_500_when_two_budgets_select_the_pod():
    c = Cluster(admit(load(DATA / "14-multiple-pdbs.yaml")))
    r = evict(c, "default/api-0", now=0)
    assert (r.code, r.message, r.path) == (500, MSG_MULTIPLE_PDBS, "multiple-pdbs")
    assert r.message == "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."
    assert r.to_status() == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                             "message": MSG_MULTIPLE_PDBS, "code": 500}
    assert c.pods["default/api-0"].metadata.deletion_timestamp is None
    assert [b.status.disruptions_allowed for b in c.of_kind("PodDisruptionBudget")] == [0, 1]
    # batch-0 is selected by `backend` only
    ok = evict(c, "default/batch-0", now=0)
    assert (ok.code, ok.pdb) == (200, "backend")
    assert pdb_of(c, "backend").status.disruptions_allowed == 0


def test_seed_no_budget_always_200_and_pending_pod_goes_at_once():
    c = Cluster([Node(metadata={"name": "n1"}),
                 Pod(metadata={"name": "a", "namespace": "default"}, spec={"nodeName": "n1"}),
                 Pod(metadata={"name": "pending", "namespace": "default"})])
    r = evict(c, "default/a", now=0, grace_period_seconds=10)
    assert (r.code, r.path, r.deleted, r.deletion_time) == (200, "no-pdb", False, 10.0)
    p = evict(c, "default/pending", now=0)  # not scheduled: grace period 0
    assert (p.code, p.path, p.deleted) == (200, "ignore-pdb", True) and "default/pending" not in c.pods
    gone = evict(c, "default/pending", now=1)
    assert (gone.code, gone.reason, gone.message) == (404, "NotFound", 'pods "pending" not found')


def test_unhealthy_pod_eviction_policy_dataset():
    c = scenario("14-unhealthy-pod-eviction-policy.yaml")
    budget = pdb_of(c, "db")
    assert (budget.status.current_healthy, budget.status.desired_healthy, budget.status.disruptions_allowed) == (
        2, 2, 0)
    assert evict(c, "default/db-0", now=0, dry_run=True).code == 429  # a ready pod is protected
    r = evict(c, "default/db-2", now=0)  # IfHealthyBudget: 2 >= 2 > 0, the app is not disrupted
    assert (r.code, r.path) == (200, "unhealthy") and budget.status.disruptions_allowed == 0
    assert budget.status.disrupted_pods == {}  # the budget was not used

    # with db-1 unready too, IfHealthyBudget protects the unready pod, AlwaysAllow does not
    for policy, code in (("IfHealthyBudget", 429), ("AlwaysAllow", 200), (None, 429)):
        c = scenario("14-unhealthy-pod-eviction-policy.yaml")
        c.pods["default/db-1"].status.conditions[0].status = "False"
        budget = pdb_of(c, "db")
        budget.spec.unhealthy_pod_eviction_policy = policy
        pdbmod.refresh(c, now=0)
        assert (budget.status.current_healthy, budget.status.desired_healthy) == (1, 2)
        assert evict(c, "default/db-2", now=0).code == code, policy


def test_checks_of_check_and_decrement():
    def cluster(status, generation=None):
        c = Cluster([Node(metadata={"name": "n1"}), Pod(metadata={"name": "p", "namespace": "default",
                                                                   "labels": {"a": "b"}}, spec={"nodeName": "n1"})])
        c.add(PodDisruptionBudget.model_validate({"metadata": {"name": "foo", "namespace": "default",
                                                               **({"generation": generation} if generation else {})},
                                                  "spec": {"selector": {"matchLabels": {"a": "b"}}},
                                                  "status": status}))
        return c

    stale = evict(cluster({"disruptionsAllowed": 1, "observedGeneration": 1}, generation=2), "default/p", now=0)
    assert (stale.code, stale.retry_after_seconds, stale.causes[0].message) == (
        429, 10, "The disruption budget foo is still being processed by the server.")
    neg = evict(cluster({"disruptionsAllowed": -1}), "default/p", now=0)
    assert (neg.code, neg.reason, neg.message) == (
        403, "Forbidden", 'poddisruptionbudget.policy "foo" is forbidden: pdb disruptions allowed is negative')
    assert neg.to_status()["details"] == {"name": "foo", "group": "policy", "kind": "poddisruptionbudget"}
    big = cluster({"disruptionsAllowed": 5, "disruptedPods": {f"x{i}": "1970-01-01T00:00:00Z" for i in range(2001)}})
    r = evict(big, "default/p", now=0)
    assert (r.code, r.message) == (403, 'poddisruptionbudget.policy "foo" is forbidden: DisruptedPods map too big - '
                                        'too many evictions not confirmed by PDB controller')


def test_graceful_delete_may_only_shorten():
    c = Cluster([Node(metadata={"name": "n1"}), Pod(metadata={"name": "p", "namespace": "default"},
                                                    spec={"nodeName": "n1", "terminationGracePeriodSeconds": 60})])
    first = graceful_delete(c, "default/p", now=0)
    assert (first.grace_period_seconds, pdbmod.to_seconds(first.deletion_timestamp)) == (60, 60.0)
    longer = graceful_delete(c, "default/p", now=10, grace_period_seconds=100)
    assert longer.pending and pdbmod.to_seconds(longer.deletion_timestamp) == 60.0
    shorter = graceful_delete(c, "default/p", now=10, grace_period_seconds=5)
    # counted from the first request: 60 - 60 + 5
    assert (shorter.grace_period_seconds, pdbmod.to_seconds(shorter.deletion_timestamp)) == (5, 5.0)
    assert graceful_delete(c, "default/p", now=10, grace_period_seconds=0).deleted and not c.pods
    # a negative period becomes 1 second
    c.add(Pod(metadata={"name": "q", "namespace": "default"}, spec={"nodeName": "n1"}))
    assert graceful_delete(c, "default/q", now=0, grace_period_seconds=-5).grace_period_seconds == 1


def test_terminating_pods_stay_on_an_unreachable_node():
    c = Cluster([Node(metadata={"name": "n1"}, status={"conditions": [{"type": "Ready", "status": "Unknown"}]}),
                 Pod(metadata={"name": "p", "namespace": "default"}, spec={"nodeName": "n1"})])
    evict(c, "default/p", now=0)
    assert finish_terminations(c, 1000) == [] and "default/p" in c.pods


def test_assume_running_reading_of_admitted_pods():
    pod = admit([Pod(metadata={"name": "p"}, spec={"nodeName": "n1", "containers": [{"name": "c"}]})])[0]
    assert pod.status.phase == "Pending"
    assert pod_phase(pod) == "Running" and pod_phase(pod, assume_running=False) == "Pending"


# ---------------------------------------------------------------- upstream: eviction_test.go
def _upstream_cluster(name, pdbs, phase=None, ready=None, terminating=False, policy=None):
    """validNewPod: labels a=true, nodeName foo; created in phase Pending unless ``phase``."""
    status = {"phase": phase or "Pending"}
    if ready is not None:
        status["conditions"] = [{"type": "Ready", "status": ready}]
    pod = Pod.model_validate({"metadata": {"name": name, "namespace": "default", "labels": {"a": "true"}},
                              "spec": {"nodeName": "foo", "containers": [{"name": "c"}]}, "status": status})
    if terminating:
        pod.metadata.deletion_timestamp = T0
    c = Cluster([Node(metadata={"name": "foo"}), pod])
    for i, (selector, status_) in enumerate(pdbs):
        c.add(PodDisruptionBudget.model_validate({
            "metadata": {"name": "foo" if i == 0 else f"foo{i}", "namespace": "default"},
            "spec": {"selector": selector, **({"unhealthyPodEvictionPolicy": policy} if policy else {})},
            "status": status_}))
    return c


A_TRUE = {"matchLabels": {"a": "true"}}
POLICIES = (None, "IfHealthyBudget", "AlwaysAllow")
NEEDS_0 = "Cannot evict pod as it would violate the pod's disruption budget.: TooManyRequests: The disruption budget foo needs 0 healthy pods and has 0 currently"

# source: eviction_test.go TestEviction (badNameInURL row left out: no Eviction object name here)
TEST_EVICTION = [
    # name, selector, status, phase, expect_error, expect_deleted, policies
    ("matching pdbs with no disruptions allowed, pod running", A_TRUE, {"disruptionsAllowed": 0}, "Running",
     NEEDS_0, False, (None, "IfHealthyBudget")),
    ("matching pdbs with no disruptions allowed, pod pending", A_TRUE, {"disruptionsAllowed": 0}, "Pending",
     "", True, POLICIES),
    ("matching pdbs with no disruptions allowed, pod succeeded", A_TRUE, {"disruptionsAllowed": 0}, "Succeeded",
     "", True, POLICIES),
    ("matching pdbs with no disruptions allowed, pod failed", A_TRUE, {"disruptionsAllowed": 0}, "Failed",
     "", True, POLICIES),
    ("matching pdbs with disruptions allowed", A_TRUE, {"disruptionsAllowed": 1}, None, "", True, POLICIES),
    ("non-matching pdbs", {"matchLabels": {"b": "true"}}, {"disruptionsAllowed": 0}, None, "", True, POLICIES),
    ("matching pdbs with no disruptions allowed, pod running, empty selector", {}, {"disruptionsAllowed": 0},
     "Running", NEEDS_0, False, (None, "IfHealthyBudget")),
]


def _with_policies(rows):
    """Each row once per unhealthyPodEvictionPolicy it covers upstream (the last field)."""
    return [pytest.param(*row[:-1], policy, id=f"{row[0][:70]} with {policy} policy")
            for policy in POLICIES for row in rows if policy in row[-1]]


@pytest.mark.parametrize("name,selector,status,phase,expect_error,expect_deleted,policy",
                         _with_policies(TEST_EVICTION))
def test_upstream_eviction(name, selector, status, phase, expect_error, expect_deleted, policy):
    # source: eviction_test.go TestEviction (DeleteOptions gracePeriodSeconds 0; pods have no Ready condition,
    # which upstream reads as not ready: assume_running=False and a Ready: "False" condition for Running pods)
    c = _upstream_cluster("t", [(selector, status)], phase=phase, policy=policy,
                          ready="False" if phase == "Running" else None)
    r = evict(c, "default/t", now=0, grace_period_seconds=0, assume_running=False)
    assert r.error() == expect_error
    assert ("default/t" not in c.pods) == expect_deleted


def test_upstream_eviction_always_allow_deletes_unready_running_pod():
    # source: eviction_test.go TestEviction, the AlwaysAllow comment of row 1:
    # "AlwaysAllow would terminate the pod since Running pods are not guarded by this policy"
    c = _upstream_cluster("t1", [(A_TRUE, {"disruptionsAllowed": 0})], phase="Running", ready="False",
                          policy="AlwaysAllow")
    assert evict(c, "default/t1", now=0, grace_period_seconds=0).code == 200 and not c.pods


# source: eviction_test.go TestEvictionIgnorePDB (rows driven by resourceVersion conflicts of the mock store
# -- t2 "pod becomes running", t3, t4, t5, t9, t10 -- are not modelled: kschedlab has no concurrent writers)
TEST_IGNORE_PDB = [
    ("pdbs No disruptions allowed, pod pending, pod deleted successfully", {"disruptionsAllowed": 0}, "Pending",
     None, False, "", POLICIES),
    ("matching pdbs with no disruptions allowed, pod terminating", {"disruptionsAllowed": 0}, None, None, True,
     "", POLICIES),
    ("matching pdbs with no disruptions allowed, pod running, pod healthy, unhealthy pod not ours",
     {"disruptionsAllowed": 0, "currentHealthy": 2, "desiredHealthy": 2}, "Running", "True", False,
     "Cannot evict pod as it would violate the pod's disruption budget.: TooManyRequests: "
     "The disruption budget foo needs 2 healthy pods and has 2 currently", POLICIES),
    ("matching pdbs with disruptions allowed, pod running, pod healthy, healthy pod ours, deletes pod by honoring "
     "the PDB", {"disruptionsAllowed": 1, "currentHealthy": 3, "desiredHealthy": 3}, "Running", "True", False, "",
     POLICIES),
    ("matching pdbs with no disruptions allowed, pod running, pod unhealthy, unhealthy pod ours",
     {"disruptionsAllowed": 0, "currentHealthy": 2, "desiredHealthy": 2}, "Running", "False", False, "", POLICIES),
    ("matching pdbs with no disruptions allowed, pod running, pod unhealthy, unhealthy pod ours, skips the PDB "
     "check and deletes", {"disruptionsAllowed": 0}, "Running", "False", False, "", ("AlwaysAllow",)),
]


@pytest.mark.parametrize("name,status,phase,ready,terminating,expect_error,policy", _with_policies(TEST_IGNORE_PDB))
def test_upstream_eviction_ignore_pdb(name, status, phase, ready, terminating, expect_error, policy):
    # source: eviction_test.go TestEvictionIgnorePDB
    c = _upstream_cluster("t", [(A_TRUE, status)], phase=phase, ready=ready, terminating=terminating,
                          policy=policy)
    r = evict(c, "default/t", now=0, grace_period_seconds=0 if not terminating else 300, assume_running=False)
    assert r.error() == expect_error
    assert ("default/t" not in c.pods) == (expect_error == "")


def test_upstream_eviction_ignore_pdb_empty_selector():
    # source: eviction_test.go TestEvictionIgnorePDB "... empty selector, pod not deleted by honoring the PDB"
    for policy in POLICIES:
        c = _upstream_cluster("t11", [({}, {"disruptionsAllowed": 0, "currentHealthy": 3, "desiredHealthy": 3})],
                              phase="Running", ready="True", policy=policy)
        assert evict(c, "default/t11", now=0).error() == (
            "Cannot evict pod as it would violate the pod's disruption budget.: TooManyRequests: "
            "The disruption budget foo needs 3 healthy pods and has 3 currently")


@pytest.mark.parametrize("with_pdb", [False, True])
def test_upstream_eviction_dry_run(with_pdb):
    # source: eviction_test.go TestEvictionDryRun: a dry run succeeds and changes nothing
    pdbs = [(A_TRUE, {"disruptionsAllowed": 1})] if with_pdb else []
    c = _upstream_cluster("foo", pdbs, phase="Running")
    r = evict(c, "default/foo", now=0, dry_run=True)
    assert (r.code, r.dry_run) == (200, True)
    pod = c.pods["default/foo"]
    assert pod.metadata.deletion_timestamp is None and not pod.status.conditions
    if with_pdb:
        assert pdb_of(c, "foo").status.disruptions_allowed == 1 and not pdb_of(c, "foo").status.disrupted_pods


@pytest.mark.parametrize("allowed,expected,reason", [(1, 0, "InsufficientPods"), (3, 2, "SufficientPods")])
def test_upstream_eviction_pdb_status(allowed, expected, reason):
    # source: eviction_test.go TestEvictionPDBStatus
    c = Cluster([Node(metadata={"name": "foo"})])
    for name in ("foo-1", "foo-2"):
        c.add(Pod.model_validate({"metadata": {"name": name, "namespace": "default", "labels": {"a": "true"}},
                                  "spec": {"nodeName": "foo"}, "status": {"phase": "Running"}}))
    c.add(PodDisruptionBudget.model_validate({
        "metadata": {"name": "foo", "namespace": "default"}, "spec": {"selector": A_TRUE},
        "status": {"disruptionsAllowed": allowed, "conditions": [
            {"type": "DisruptionAllowed", "reason": "SufficientPods", "status": "True"}]}}))
    assert evict(c, "default/foo-1", now=0).code == 200
    st_ = pdb_of(c, "foo").status
    assert st_.disruptions_allowed == expected
    assert pdbmod.find_condition(st_.conditions, "DisruptionAllowed").reason == reason


# -------------------------------------------------------------- upstream: disruption_test.go
def _dpod(name, *, labels=None, ready=True, owner=None, uid=None):
    """newPod: labels foo=bar, a Ready=True condition (bound here, which the controller ignores)."""
    return Pod.model_validate({
        "metadata": {"name": name, "namespace": "default", "labels": labels or {"foo": "bar"},
                     **({"uid": uid} if uid else {}),
                     **({"ownerReferences": [{"kind": owner[0], "name": owner[1], "uid": owner[2],
                                              "controller": True}]} if owner else {})},
        "spec": {"nodeName": "n1"},
        "status": {"conditions": [{"type": "Ready", "status": "True"}] if ready else []}})


def _dpdb(**spec):
    return PodDisruptionBudget.model_validate({"metadata": {"name": "foobar", "namespace": "default"},
                                               "spec": {"selector": {"matchLabels": {"foo": "bar"}}, **spec}})


def _verify(pdb, pods, allowed, current, desired, expected, scale_of=None, now=None):
    pdb.status = pdbmod.compute_status(pdb, pods, scale_of=scale_of, now=now)
    st_ = pdb.status
    assert (st_.disruptions_allowed, st_.current_healthy, st_.desired_healthy, st_.expected_pods) == (
        allowed, current, desired, expected)
    cond = pdbmod.find_condition(st_.conditions, "DisruptionAllowed")
    assert cond.status == ("True" if allowed > 0 else "False")


def test_upstream_no_selector():
    # source: disruption_test.go TestNoSelector (an empty selector matches every pod)
    pdb = _dpdb(minAvailable=3)
    pdb.spec.selector.match_labels = {}
    _verify(pdb, [], 0, 0, 3, 0)
    _verify(pdb, [_dpod("yo-yo-yo")], 0, 1, 3, 1)


def test_upstream_unavailable():
    # source: disruption_test.go TestUnavailable
    pdb, pods = _dpdb(minAvailable=3), []
    for i in range(4):
        _verify(pdb, pods, 0, i, 3, i)
        pods.append(_dpod(f"yo-yo-yo {i}"))
    _verify(pdb, pods, 1, 4, 3, 4)
    pods[0].status.conditions = []
    pods[0].spec.node_name = None  # upstream: no Ready condition -> not ready
    _verify(pdb, pods, 0, 3, 3, 4)


def test_upstream_integer_max_unavailable_and_naked_pods():
    # source: disruption_test.go TestIntegerMaxUnavailable, TestNakedPod, TestStatusForUnmanagedPod
    pdb = _dpdb(maxUnavailable=1)
    _verify(pdb, [], 0, 0, 0, 0)
    _verify(pdb, [_dpod("naked")], 0, 1, 0, 0)
    pdb = _dpdb(minAvailable="28%")
    _verify(pdb, [_dpod("naked")], 0, 1, 0, 0)
    assert not any(c.reason == "SyncFailed" for c in pdb.status.conditions)


@pytest.mark.parametrize("max_unavailable,scales,expect", [
    (2, (7, 5), ((0, 1, 5, 7), (0, 1, 3, 5))),        # TestIntegerMaxUnavailableWithScaling
    ("30%", (7, 3), ((0, 1, 4, 7), (0, 1, 2, 3))),    # TestPercentageMaxUnavailableWithScaling
])
def test_upstream_max_unavailable_with_scaling(max_unavailable, scales, expect):
    # source: disruption_test.go TestIntegerMaxUnavailableWithScaling, TestPercentageMaxUnavailableWithScaling
    pdb = _dpdb(maxUnavailable=max_unavailable)
    pod = _dpod("pod", owner=("ReplicaSet", "foobar", "rs-uid"))
    for scale, row in zip(scales, expect):
        _verify(pdb, [pod], *row, scale_of=lambda p, s=scale: s)


def test_upstream_replica_set_and_scale_resource():
    # source: disruption_test.go TestReplicaSet, TestScaleResource
    pdb = _dpdb(minAvailable="20%")
    _verify(pdb, [_dpod("pod", owner=("ReplicaSet", "foobar", "rs"))], 0, 1, 2, 10, scale_of=lambda p: 10)
    pdb = _dpdb(maxUnavailable=5)
    pods = [_dpod(f"pod-{i}", owner=("customresource", "", "cr-uid")) for i in range(4)]
    # replicas 10, 4 pods: disruptionsAllowed = 5 - (10 - 4) < 0 -> 0
    _verify(pdb, pods, 0, 4, 5, 10, scale_of=lambda p: 10)


def test_upstream_multiple_controllers_and_replication_controller():
    # source: disruption_test.go TestMultipleControllers (first two asserts), TestReplicationController
    pdb = _dpdb(minAvailable="1%")
    pods = [_dpod(f"pod {i}") for i in range(2)]
    pdb.status = pdbmod.compute_status(pdb, pods)
    assert pdb.status.disruptions_allowed == 0  # no controllers yet
    pods = [_dpod(f"pod {i}", owner=("ReplicationController", "rc 1", "rc1")) for i in range(2)]
    pdb.status = pdbmod.compute_status(pdb, pods, scale_of=lambda p: 1)
    assert pdb.status.disruptions_allowed == 1

    labels = {"foo": "bar", "baz": "quux"}
    pdb, pods = _dpdb(minAvailable="34%"), []
    _verify(pdb, pods, 0, 0, 0, 0)
    for i in range(3):
        pods.append(_dpod(f"foobar {i}", labels=labels, owner=("ReplicationController", "foobar", "rc")))
        _verify(pdb, pods, 0 if i < 2 else 1, i + 1, 2, 3, scale_of=lambda p: 3)
    pods.append(_dpod("rogue"))  # no controller: left out of the expected count
    pdb.status = pdbmod.compute_status(pdb, pods, scale_of=lambda p: 3 if p.metadata.controller_ref() else None)
    assert pdb.status.disruptions_allowed == 2


def test_upstream_update_disrupted_pods():
    # source: disruption_test.go TestUpdateDisruptedPods
    now = 1000.0
    pdb = _dpdb(minAvailable=1)
    pdb.status.disrupted_pods = {
        "p1": pdbmod.to_datetime(now),        # removed, pod deletion started
        "p2": pdbmod.to_datetime(now - 300),  # removed, expired
        "p3": pdbmod.to_datetime(now),        # stays, pod untouched
        "notthere": pdbmod.to_datetime(now),  # removed, pod deleted
    }
    p1 = _dpod("p1")
    p1.metadata.deletion_timestamp = pdbmod.to_datetime(now)
    _verify(pdb, [p1, _dpod("p2"), _dpod("p3")], 0, 1, 1, 3, now=now)
    assert pdb.status.disrupted_pods == {"p3": pdbmod.to_datetime(now)}


@pytest.mark.parametrize("selector", [
    {"matchExpressions": [{"key": "foo", "operator": "In", "values": []}]},  # In without values
    {"matchExpressions": [{"key": "foo", "operator": "Exists", "values": ["bar"]}]},
])
def test_upstream_invalid_selectors(selector):
    # source: disruption_test.go TestInvalidSelectors (fail safe: 0/0/0/0, SyncFailed)
    pdb = PodDisruptionBudget.model_validate({"metadata": {"name": "foobar", "namespace": "default"},
                                              "spec": {"minAvailable": 3, "selector": selector}})
    pdb.status = pdbmod.compute_status(pdb, [_dpod("p")], now=0)
    st_ = pdb.status
    assert (st_.disruptions_allowed, st_.current_healthy, st_.desired_healthy, st_.expected_pods) == (0, None, None,
                                                                                                      None)
    assert pdbmod.find_condition(st_.conditions, "DisruptionAllowed").reason == "SyncFailed"


def test_controller_not_found_fails_safe_and_keeps_the_counts():
    pdb = _dpdb(maxUnavailable="50%")
    pdb.status.current_healthy, pdb.status.disruptions_allowed = 4, 2
    pods = [_dpod("p", owner=("ReplicaSet", "gone", "x"))]
    pdb.status = pdbmod.compute_status(pdb, pods, scale_of=lambda p: None)
    assert (pdb.status.disruptions_allowed, pdb.status.current_healthy) == (0, 4)
    cond = pdbmod.find_condition(pdb.status.conditions, "DisruptionAllowed")
    assert (cond.reason, cond.message) == ("SyncFailed", 'found no controllers for pod "p"')


def test_entries_within_deletion_timeout_keep_the_pod_unhealthy():
    pdb = _dpdb(minAvailable=1)
    pdb.status.disrupted_pods = {"p1": pdbmod.to_datetime(0)}
    pods = [_dpod("p1"), _dpod("p2")]
    _verify(pdb, pods, 0, 1, 1, 2, now=60)     # evicted 60 s ago, deletion still expected
    _verify(pdb, pods, 0, 1, 1, 2, now=119)    # DeletionTimeout (120 s) not yet passed
    # at exactly 120 s upstream counts the pod healthy (After) but keeps the entry (not Before)
    _verify(pdb, pods, 1, 2, 1, 2, now=120)
    assert list(pdb.status.disrupted_pods) == ["p1"]
    _verify(pdb, pods, 1, 2, 1, 2, now=121)    # not deleted after all: the entry goes
    assert pdb.status.disrupted_pods == {}


def test_refresh_without_clock_keeps_old_behaviour():
    c = scenario("14-pdb-min-available.yaml")
    evict(c, "default/web-0", now=5)
    pdbmod.refresh(c)  # no clock: the scheduler's call
    assert list(pdb_of(c).status.disrupted_pods) == ["web-0"]


def test_job_owner_without_scale_fails_safe_in_refresh():
    from kschedlab.api.loader import load_text

    c = Cluster(admit(load_text("""
apiVersion: batch/v1
kind: Job
metadata: {name: batch, namespace: default}
spec: {template: {spec: {containers: [{name: c}], restartPolicy: Never}}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: b, namespace: default}
spec: {maxUnavailable: 1, selector: {matchLabels: {app: b}}}
---
apiVersion: v1
kind: Pod
metadata:
  name: b-0
  namespace: default
  labels: {app: b}
  ownerReferences: [{apiVersion: batch/v1, kind: Job, name: batch, uid: u1, controller: true}]
spec: {nodeName: n1, containers: [{name: c}]}
""")))
    pdbmod.refresh(c, now=0)
    cond = pdbmod.find_condition(c.of_kind("PodDisruptionBudget")[0].status.conditions, "DisruptionAllowed")
    assert cond.reason == "SyncFailed"


# ----------------------------------------------------------------------------- property
@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 6), min_available=st.integers(0, 6), order=st.permutations(range(6)))
def test_refreshed_budget_never_goes_below_desired(n, min_available, order):
    c = Cluster([Node(metadata={"name": "n1"})] + [
        Pod(metadata={"name": f"p{i}", "namespace": "default", "labels": {"app": "x"}}, spec={"nodeName": "n1"})
        for i in range(n)])
    c.add(PodDisruptionBudget.model_validate({"metadata": {"name": "x", "namespace": "default"},
                                              "spec": {"minAvailable": min_available,
                                                       "selector": {"matchLabels": {"app": "x"}}}}))
    allowed = 0
    for t, i in enumerate(o for o in order if o < n):
        pdbmod.refresh(c, now=t)
        if evict(c, f"default/p{i}", now=t).code == 200:
            allowed += 1
    assert allowed == max(0, n - min_available)
    healthy = sum(1 for p in c.pods.values() if p.metadata.deletion_timestamp is None)
    assert healthy >= min(n, min_available)


def test_response_str_and_error():
    r = EvictionResponse(500, "", MSG_MULTIPLE_PDBS, "default/p", "multiple-pdbs")
    assert r.error() == MSG_MULTIPLE_PDBS + ": " and str(r) == "500 Failure: " + MSG_MULTIPLE_PDBS
