"""Writes eviction.json: rows of upstream's Eviction subresource tests
(pkg/registry/core/pod/storage/eviction_test.go) as ``api-eviction`` cases.

The fixtures are rebuilt as the tests make them: ``validNewPod()`` (pod ``foo`` in ``default``,
``terminationGracePeriodSeconds: 30``, one container) renamed, labelled ``a: "true"`` and bound to
node ``foo``.  Pods the tests create through the pod storage get ``status.phase: Pending`` from the
pod strategy's ``PrepareForCreate`` (then the row's phase, written through the status storage);
pods handed to the mock store (TestEvictionIgnorePDB) keep exactly the phase, ``Ready`` condition and
``deletionTimestamp`` the row gives.  Tests looping over ``unhealthyPodEvictionPolicy`` (nil,
IfHealthyBudget, AlwaysAllow, or the row's ``policies``) give one case per policy, named as the
subtest.  Run ``python build_eviction_cases.py`` to regenerate."""

from __future__ import annotations

import json
import re
from pathlib import Path

SOURCE = ("kubernetes/kubernetes pkg/registry/core/pod/storage/eviction_test.go@master :: ")
PDB_VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget.: TooManyRequests: "
NEEDS = PDB_VIOLATION + "The disruption budget foo needs {} healthy pods and has {} currently"
NOW = "2026-01-01T00:00:00Z"
ALL_POLICIES = (None, "IfHealthyBudget", "AlwaysAllow")


def pod(name, *, phase=None, ready=None, terminating=False):
    out: dict = {"apiVersion": "v1", "kind": "Pod",
                 "metadata": {"name": name, "namespace": "default", "labels": {"a": "true"}},
                 "spec": {"nodeName": "foo", "terminationGracePeriodSeconds": 30,
                          "containers": [{"name": "foo", "image": "test", "imagePullPolicy": "IfNotPresent"}]}}
    status: dict = {}
    if phase:
        status["phase"] = phase
    if ready is not None:
        status["conditions"] = [{"type": "Ready", "status": ready}]
    if status:
        out["status"] = status
    if terminating:
        out["metadata"]["deletionTimestamp"] = NOW
    return out


def pdb(allowed, *, selector=None, current=0, desired=0, policy=None, conditions=None):
    status: dict = {"disruptionsAllowed": allowed}
    if current or desired:
        status.update(currentHealthy=current, desiredHealthy=desired)
    if conditions:
        status["conditions"] = conditions
    spec: dict = {"selector": {"matchLabels": {"a": "true"}} if selector is None else selector}
    if policy:
        spec["unhealthyPodEvictionPolicy"] = policy
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "foo", "namespace": "default"},
            "spec": spec, "status": status}


def eviction(name, grace=None, dry_run=None):
    options: dict = {}
    if grace is not None:
        options["gracePeriodSeconds"] = grace
    if dry_run:
        options["dryRun"] = dry_run
    return {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": name, "namespace": "default"},
            "deleteOptions": options}


def slugify(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def policy_str(policy):
    return "nil" if policy is None else policy


def eviction_rows():
    """TestEviction: pods through the pod storage; DeleteOptions gracePeriodSeconds 0."""
    rows = [  # name, selector, allowed, pod name, phase, bad name, expected error, policies
        ("matching pdbs with no disruptions allowed, pod running", None, 0, "t1", "Running", False,
         NEEDS.format(0, 0), (None, "IfHealthyBudget")),
        ("matching pdbs with no disruptions allowed, pod pending", None, 0, "t2", "Pending", False, "", ALL_POLICIES),
        ("matching pdbs with no disruptions allowed, pod succeeded", None, 0, "t3", "Succeeded", False, "",
         ALL_POLICIES),
        ("matching pdbs with no disruptions allowed, pod failed", None, 0, "t4", "Failed", False, "", ALL_POLICIES),
        ("matching pdbs with disruptions allowed", None, 1, "t5", None, False, "", ALL_POLICIES),
        ("non-matching pdbs", {"matchLabels": {"b": "true"}}, 0, "t6", None, False, "", ALL_POLICIES),
        ("matching pdbs with disruptions allowed but bad name in Url", None, 1, "t7", None, True,
         "name in URL does not match name in Eviction object: BadRequest", ALL_POLICIES),
        ("matching pdbs with no disruptions allowed, pod running, empty selector", {}, 0, "t8", "Running", False,
         NEEDS.format(0, 0), (None, "IfHealthyBudget")),
    ]
    for policy in ALL_POLICIES:
        for name, selector, allowed, pod_name, phase, bad_name, error, policies in rows:
            if policy not in policies:
                continue
            sub = f"{name} with {policy_str(policy)} policy"
            case = {"id": "apieviction/eviction/" + slugify(sub), "source": SOURCE + "TestEviction :: " + sub,
                    "stage": "api-eviction", "existingPods": [pod(pod_name, phase=phase or "Pending")],
                    "pdbs": [pdb(allowed, selector=selector, policy=policy)], "eviction": eviction(pod_name, 0)}
            if bad_name:
                case["urlName"] = pod_name + "bad-name"
            case["expected"] = {"other": {"error": error, **({} if error else {"podDeleted": True})}}
            if not phase:
                case["notes"] = "no phase in the row: the pod storage created the pod Pending"
            yield case


def ignore_pdb_rows():
    """TestEvictionIgnorePDB: the rows whose outcome does not hinge on the mock store's conflicts."""
    rows = [  # name, pdb kwargs, pod name, grace, pod kwargs, expected error, delete count, policies
        ("matching pdbs with no disruptions allowed, pod terminating", {"allowed": 0}, "t6", 300,
         {"terminating": True}, "", 1, ALL_POLICIES),
        ("matching pdbs with no disruptions allowed, pod running, pod healthy, unhealthy pod not ours",
         {"allowed": 0, "current": 2, "desired": 2}, "t7", 0, {"phase": "Running", "ready": "True"},
         NEEDS.format(2, 2), 0, ALL_POLICIES),
        ("matching pdbs with disruptions allowed, pod running, pod healthy, healthy pod ours, deletes pod by "
         "honoring the PDB", {"allowed": 1, "current": 3, "desired": 3}, "t8", 0,
         {"phase": "Running", "ready": "True"}, "", 1, ALL_POLICIES),
        ("matching pdbs with no disruptions allowed, pod running, pod unhealthy, unhealthy pod ours",
         {"allowed": 0, "current": 2, "desired": 2}, "t8", 0, {"phase": "Running", "ready": "False"}, "", 1,
         ALL_POLICIES),
        ("matching pdbs with no disruptions allowed, pod running, pod unhealthy, unhealthy pod ours, skips the PDB "
         "check and deletes", {"allowed": 0}, "t8", 0, {"phase": "Running", "ready": "False"}, "", 1,
         ("AlwaysAllow",)),
        ("matching pdbs with no disruptions allowed, pod running, pod healthy, empty selector, pod not deleted by "
         "honoring the PDB", {"allowed": 0, "current": 3, "desired": 3, "selector": {}}, "t11", 0,
         {"phase": "Running", "ready": "True"}, NEEDS.format(3, 3), 0, ALL_POLICIES),
    ]
    for policy in ("AlwaysAllow", None, "IfHealthyBudget"):
        for name, budget, pod_name, grace, pod_kwargs, error, deletes, policies in rows:
            if policy not in policies:
                continue
            budget = dict(budget)
            allowed = budget.pop("allowed")
            sub = f"{name} with {policy_str(policy)} policy"
            yield {"id": "apieviction/ignore-pdb/" + slugify(sub), "source": SOURCE + "TestEvictionIgnorePDB :: " + sub,
                   "stage": "api-eviction", "existingPods": [pod(pod_name, **pod_kwargs)],
                   "pdbs": [pdb(allowed, policy=policy, **budget)], "eviction": eviction(pod_name, grace),
                   "expected": {"other": {"error": error, "deleteCount": deletes}},
                   "notes": "the pod is the mock store's, as the row builds it (no phase when the row gives none); "
                            "its deletionTimestamp is the test's metav1.Now(), here a fixed time"}


def dry_run_rows():
    rows = [("just request-options", ["All"], None, False), ("just eviction-options", None, ["All"], False),
            ("both options", ["All"], ["All"], False), ("with pdbs", ["All"], ["All"], True)]
    for name, request, options, with_pdb in rows:
        case = {"id": "apieviction/dry-run/" + slugify(name), "source": SOURCE + "TestEvictionDryRun :: " + name,
                "stage": "api-eviction", "existingPods": [pod("foo", phase="Pending")],
                "pdbs": [pdb(1)] if with_pdb else [], "eviction": eviction("foo", dry_run=options)}
        if request:
            case["requestDryRun"] = request
        case["expected"] = {"other": {"error": ""}}
        yield case


def pdb_status_rows():
    sufficient = [{"type": "DisruptionAllowed", "reason": "SufficientPods", "status": "True"}]
    rows = [("pdb status is updated after eviction", 1, 0, "InsufficientPods"),
            ("condition reason is only updated if AllowedDisruptions becomes 0", 3, 2, "SufficientPods")]
    for name, allowed, want_allowed, want_reason in rows:
        yield {"id": "apieviction/pdb-status/" + slugify(name), "source": SOURCE + "TestEvictionPDBStatus :: " + name,
               "stage": "api-eviction", "existingPods": [pod("foo-1", phase="Running"), pod("foo-2", phase="Running")],
               "pdbs": [pdb(allowed, conditions=sufficient)], "eviction": eviction("foo-1"),
               "expected": {"other": {"error": "",
                                      "pdbs": {"foo": {"disruptionsAllowed": want_allowed,
                                                       "conditionReason": want_reason}}}}}


def cases() -> list[dict]:
    return [*eviction_rows(), *ignore_pdb_rows(), *dry_run_rows(), *pdb_status_rows()]


if __name__ == "__main__":
    out = Path(__file__).with_name("eviction.json")
    out.write_text(json.dumps(cases(), indent=1) + "\n")
    print(f"wrote {len(cases())} cases to {out}")
