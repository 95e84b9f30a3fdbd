"""Writes controller.json: the rows of upstream's taint eviction controller tests
(pkg/controller/tainteviction/taint_eviction_test.go) as ``taint-eviction`` cases.

The fixtures are rebuilt as the test's helpers make them: ``testutil.NewPod(name, node)`` (namespace
``default``, a ``Ready: True`` condition), ``testutil.NewNode(name)``, ``createNoExecuteTaint(i)``
(key ``testTaint<i>``, value ``test<i>``, NoExecute; its ``timeAdded`` is the wall clock there and is
left out: the manager does not read it) and ``addToleration(pod, i, seconds)`` (Equal toleration of
taint ``i``; ``seconds < 0``: no ``tolerationSeconds``).

Upstream checks with ``verifyPodActions``: a 10 ms poll for up to 5 s until the pod's patch / delete
actions are as expected.  A row expecting no action passes at the first poll, so it is checked at
0.01 s; a row expecting a deletion is checked at the 5 s limit.  Run ``python
build_taint_eviction_cases.py`` to regenerate."""

from __future__ import annotations

import json
import re
from pathlib import Path

SOURCE = ("kubernetes/kubernetes pkg/controller/tainteviction/taint_eviction_test.go"
          "@003e86297d18a8538c9da3619871393f9703bf70 :: ")
FIRST_POLL, POLL_LIMIT = 0.01, 5.0


def pod(name, node="", tolerations=None):
    spec: dict = {"nodeName": node} if node else {}
    if tolerations:
        spec["tolerations"] = tolerations
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}, "spec": spec,
            "status": {"conditions": [{"type": "Ready", "status": "True"}]}}


def toleration(index, seconds):
    out = {"key": f"testTaint{index}", "value": f"test{index}", "effect": "NoExecute"}
    if seconds >= 0:
        out["tolerationSeconds"] = seconds
    return out


def tolerating(name, node, index, seconds):
    return pod(name, node, [toleration(index, seconds)])


def taint(index):
    return {"key": f"testTaint{index}", "value": f"test{index}", "effect": "NoExecute"}


def node(name="node1", taints=()):
    out: dict = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}}
    if taints:
        out["spec"] = {"taints": [taint(i) for i in taints]}
    return out


def actions(patch, delete):
    return {"patched": ["pod1"] if patch else [], "deleted": ["pod1"] if delete else []}


def when(delete):
    return POLL_LIMIT if delete else FIRST_POLL


def case(test, row, slug, *, steps, expected, notes="", **inputs):
    out = {"id": f"tainteviction/controller/{slug}", "source": SOURCE + f"{test} :: {row}",
           "stage": "taint-eviction", **inputs, "steps": steps, "expected": {"steps": expected}}
    if notes:
        out["notes"] = notes
    return out


def create_pod():
    rows = [("not scheduled - ignore", pod("pod1"), {}, False, False),
            ("scheduled on untainted Node", pod("pod1", "node1"), {}, False, False),
            ("schedule on tainted Node", pod("pod1", "node1"), {"node1": [taint(1)]}, True, True),
            ("schedule on tainted Node with finite toleration", tolerating("pod1", "node1", 1, 100),
             {"node1": [taint(1)]}, False, False),
            ("schedule on tainted Node with infinite toleration", tolerating("pod1", "node1", 1, -1),
             {"node1": [taint(1)]}, False, False),
            ("schedule on tainted Node with infinite invalid toleration", tolerating("pod1", "node1", 2, -1),
             {"node1": [taint(1)]}, True, True)]
    for row, p, tainted, patch, delete in rows:
        yield case("TestCreatePod", row, "create-pod/" + slugify(row), existingPods=[p], taintedNodes=tainted,
                   steps=[{"op": "podUpdated", "oldPod": None, "newPod": p, "advance": when(delete)}],
                   expected=[actions(patch, delete)])


def update_pod():
    tainted = {"node1": [taint(1)]}
    rows = [("scheduling onto tainted Node", pod("pod1"), False, pod("pod1", "node1"), True, True),
            ("scheduling onto tainted Node with toleration", tolerating("pod1", "", 1, -1), False,
             tolerating("pod1", "node1", 1, -1), False, False),
            ("removing toleration", tolerating("pod1", "node1", 1, 100), True, pod("pod1", "node1"), True, True),
            ("lengthening toleration shouldn't work", tolerating("pod1", "node1", 1, 1), True,
             tolerating("pod1", "node1", 1, 100), True, True)]
    for row, prev, await_eviction, new, patch, delete in rows:
        first: dict = {"op": "podUpdated", "oldPod": None, "newPod": prev}
        expected: list = [{}]
        if await_eviction:
            first["advance"] = FIRST_POLL
            expected = [{"queued": ["default/pod1"]}]
        yield case("TestUpdatePod", row, "update-pod/" + slugify(row), existingPods=[prev], taintedNodes=tainted,
                   steps=[first, {"op": "podUpdated", "oldPod": prev, "newPod": new, "advance": when(delete)}],
                   expected=expected + [actions(patch, delete)],
                   notes="awaitForScheduledEviction rows wait (10 ms poll) until the first update has queued "
                         "the deletion; the second update comes after that" if await_eviction else "")


def create_node():
    rows = [("Creating Node matching already assigned Pod", pod("pod1", "node1"), node(), False, False),
            ("Creating tainted Node matching already assigned Pod", pod("pod1", "node1"), node(taints=[1]),
             True, True),
            ("Creating tainted Node matching already assigned tolerating Pod", tolerating("pod1", "node1", 1, -1),
             node(taints=[1]), False, False)]
    for row, p, n, patch, delete in rows:
        yield case("TestCreateNode", row, "create-node/" + slugify(row), existingPods=[p],
                   steps=[{"op": "nodeUpdated", "oldNode": None, "newNode": n, "advance": when(delete)}],
                   expected=[actions(patch, delete)])


def delete_node():
    yield case("TestDeleteNode", "(single scenario)", "delete-node", taintedNodes={"node1": [taint(1)]},
               steps=[{"op": "nodeUpdated", "oldNode": node(), "newNode": None}],
               expected=[{"taintedNodes": []}])


def update_node():
    multi = pod("pod1", "node1", [toleration(1, 1), toleration(2, 100)])
    rows = [("Added taint, expect node patched and deleted", pod("pod1", "node1"), node(), node(taints=[1]),
             True, True, 0),
            ("Added tolerated taint", tolerating("pod1", "node1", 1, 100), node(), node(taints=[1]), False, False, 0),
            ("Only one added taint tolerated", tolerating("pod1", "node1", 1, 100), node(), node(taints=[1, 2]),
             True, True, 0),
            ("Taint removed", tolerating("pod1", "node1", 1, 1), node(taints=[1]), node(), False, False, 1.5),
            ("Pod with multiple tolerations are evicted when first one runs out", multi, node(),
             node(taints=[1, 2]), True, True, 0)]
    for row, p, old, new, patch, delete, sleep in rows:
        yield case("TestUpdateNode", row, "update-node/" + slugify(row), existingPods=[p],
                   steps=[{"op": "nodeUpdated", "oldNode": old, "newNode": new, "advance": sleep + when(delete)}],
                   expected=[actions(patch, delete)],
                   notes="additionalSleep 1.5 s before the check" if sleep else "")


def update_node_with_multiple_taints():
    p = pod("pod1", "node1", [{"key": "testTaint1", "operator": "Exists", "effect": "NoExecute"},
                              {"key": "testTaint2", "operator": "Exists", "effect": "NoExecute",
                               "tolerationSeconds": 60}])
    nodes = [node(), node(taints=[1]), node(taints=[1, 2]), node(taints=[1])]
    queued = [[], [], ["default/pod1"], []]
    steps = [{"op": "handleNodeUpdate", "node": n} for n in nodes]
    expected = [{"queued": q} for q in queued]
    expected[-1]["deleted"] = []
    yield case("TestUpdateNodeWithMultipleTaints", "(single scenario)", "update-node-with-multiple-taints",
               existingPods=[p], steps=steps, expected=expected,
               notes="no taint -> infinitely tolerated taint -> + temporarily tolerated taint -> back; the pod is "
                     "queued only while the 60 s toleration applies, and never deleted")


def update_node_with_multiple_pods():
    pods = [pod("pod1", "node1"), tolerating("pod2", "node1", 1, 1), tolerating("pod3", "node1", 1, -1)]
    row = "Pods with different toleration times are evicted appropriately"
    yield case("TestUpdateNodeWithMultiplePods", row, "update-node-with-multiple-pods/" + slugify(row),
               existingPods=pods,
               steps=[{"op": "nodeUpdated", "oldNode": node(), "newNode": node(taints=[1]), "advance": 0.5},
                      {"advance": 1.0}],
               expected=[{"deleted": ["pod1"]}, {"deleted": ["pod2"]}],
               notes="expectedDeleteTimes pod1 at 0, pod2 at 1 s: checked half-way to the next time (0.5 s) and "
                     "0.5 s after the last (1.5 s); actions are cleared after each check")
    row = "Evict all pods not matching all taints instantly"
    yield case("TestUpdateNodeWithMultiplePods", row, "update-node-with-multiple-pods/" + slugify(row),
               existingPods=pods,
               steps=[{"op": "nodeUpdated", "oldNode": node(), "newNode": node(taints=[1, 2]), "advance": 0.5}],
               expected=[{"deleted": ["pod1", "pod2", "pod3"]}],
               notes="expectedDeleteTimes all at 0: checked 0.5 s later")


def eventual_consistency():
    rows = [("existing pod2 scheduled onto tainted Node", pod("pod2"), pod("pod2", "node1")),
            ("existing pod2 with taint toleration scheduled onto tainted Node", tolerating("pod2", "", 1, 100),
             tolerating("pod2", "node1", 1, 100)),
            ("new pod2 created on tainted Node", None, pod("pod2", "node1")),
            ("new pod2 with tait toleration created on tainted Node", None, tolerating("pod2", "node1", 1, 100))]
    for row, prev, new in rows:
        steps = [] if prev is None else [{"op": "podUpdated", "oldPod": None, "newPod": prev}]
        expected: list = [{} for _ in steps]
        steps += [{"op": "nodeUpdated", "oldNode": node(), "newNode": node(taints=[1]), "advance": POLL_LIMIT},
                  {"op": "podUpdated", "oldPod": prev, "newPod": new, "advance": 0.02}]
        expected += [actions(True, True)]
        yield case("TestEventualConsistency", row, "eventual-consistency/" + slugify(row),
                   existingPods=[pod("pod1", "node1")], steps=steps, expected=expected,
                   notes="pod2 reaches the controller only through its informer (it is not in the fake clientset); "
                         "upstream checks the node update's actions (pod1) and then only that the late pod2 "
                         "update is handled without failing")


def helpers():
    tolerations = [([], 0), ([{}], -1), ([{"tolerationSeconds": 1}, {"tolerationSeconds": 2}], 1_000_000_000),
                   ([{"tolerationSeconds": 1}, {}], 1_000_000_000), ([{}, {"tolerationSeconds": 1}], 1_000_000_000)]
    for i, (tols, want) in enumerate(tolerations):
        yield {"id": f"tainteviction/helpers/get-min-toleration-time/{i}",
               "source": SOURCE + f"TestGetMinTolerationTime :: row {i}", "stage": "taint-eviction",
               "helper": "getMinTolerationTime", "other": {"tolerations": tols},
               "expected": {"other": {"minTolerationTime": want}},
               "notes": "nanoseconds (time.Duration); -1: no tolerationSeconds, tolerated forever"}
    yield {"id": "tainteviction/helpers/filter-no-execute-taints",
           "source": SOURCE + "TestFilterNoExecuteTaints :: (single check)", "stage": "taint-eviction",
           "helper": "getNoExecuteTaints",
           "other": {"taints": [{"key": "one", "value": "one", "effect": "NoExecute"},
                                {"key": "two", "value": "two", "effect": "NoSchedule"}]},
           "expected": {"other": {"taintKeys": ["one"]}}}
    for sub, helper, message in (("emitPodDeletionEvent", "emitPodDeletionEvent", "Marking for deletion Pod test/test"),
                                 ("emitCancelPodDeletionEvent", "emitCancelPodDeletionEvent",
                                  "Cancelling deletion of Pod test/test")):
        yield {"id": f"tainteviction/helpers/pod-deletion-event/{helper}",
               "source": SOURCE + f"TestPodDeletionEvent :: {sub}", "stage": "taint-eviction", "helper": helper,
               "other": {"pod": {"namespace": "test", "name": "test"}},
               "expected": {"other": {"events": [{
                   "namespace": "test",
                   "involvedObject": {"kind": "Pod", "apiVersion": "v1", "namespace": "test", "name": "test"},
                   "reason": "TaintManagerEviction", "type": "Normal", "count": 1, "message": message}]}},
               "notes": "the Event's source component is the fake recorder's (nodeControllerTest), not the "
                        "controller's; its name and timestamps are ignored upstream too"}


def timed_workers():
    source = ("kubernetes/kubernetes pkg/controller/tainteviction/timed_workers_test.go"
              "@132c00c12db821e5cf7b936bb31beb812b44eea5 :: ")
    keys = [f"{i}/{i}" for i in range(1, 6)]

    def add(fire):
        return [{"op": "addWork", "key": k, "createdAt": 0, "fireAt": fire} for k in keys]

    def cancel(*ks):
        return [{"op": "cancelWork", "key": k} for k in ks]

    step = [{"op": "step", "seconds": 11}]
    rows = [("TestExecute", add(0), 5), ("TestExecuteDelayed", add(10) + add(10) + step, 5),
            ("TestCancel", add(10) + add(10) + cancel("2/2", "4/4") + step, 3),
            ("TestCancelAndRead", add(10) + add(10) + cancel("2/2", "4/4") +
             [{"op": "addWork", "key": "2/2", "createdAt": 0, "fireAt": 10}] + step, 4)]
    for test, ops, executed in rows:
        yield {"id": "tainteviction/timed-workers/" + slugify(test[4:]), "source": source + f"{test} :: (single scenario)",
               "stage": "taint-eviction", "helper": "TimedWorkerQueue", "other": {"ops": ops},
               "expected": {"other": {"executed": executed}},
               "notes": "NewWorkArgs(i, i): key i/i; now = 0 s, then = 10 s; the fake clock steps 11 s"}


def slugify(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def cases() -> list[dict]:
    return [*create_pod(), *update_pod(), *create_node(), *delete_node(), *update_node(),
            *update_node_with_multiple_taints(), *update_node_with_multiple_pods(), *eventual_consistency(),
            *helpers(), *timed_workers()]


if __name__ == "__main__":
    out = Path(__file__).with_name("controller.json")
    out.write_text(json.dumps(cases(), indent=1) + "\n")
    print(f"wrote {len(cases())} cases to {out}")
