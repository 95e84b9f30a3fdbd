"""The PodGroup cycle's own costs made lighter (issue 26, branch perfgang4), checked against the
plain forms kept here as references:

* a group's scheduled members are counted once a cycle (for validation) and the count handed to
  the algorithm, which counted them again;
* GangScheduling's PlacementFeasible builds its status with the plugin's name (no second copy), and
  the algorithm reads the verdict's code as an int (an Unschedulable verdict is kept as it is);
* the loop counts a cycle's attempts in one call, reads a cycle's outcome once for all members and
  compares result codes as ints; submit reads the group's status once for all members.

Two drivers: the scheduling loop step by step on random clusters of gangs with mutations between
steps (``tests/podgroup/test_cycle_bookkeeping.py``'s ``run``), every PodGroup cycle's log, status and
pod results collected besides what that run observes (results, conditions, queue, attempts, last
failures); and CompositePodGroups of racked PodGroups under TopologyAwareWorkloadScheduling, with
members already bound, so a group is evaluated in several placements with a scheduled count above
zero. Two steps are also checked alone, where the drivers do not reach every case: PlacementFeasible
(the framework sets the plugin's name again) and the loop's result hook (no gang member waits at
Permit in a PodGroup cycle)."""

from __future__ import annotations

import random

import pytest

from kschedlab.api.core import Pod
from kschedlab.api.loader import load_objects
from kschedlab.api.podgroup import CompositePodGroup, PodGroup
from kschedlab.cluster import Cluster
from kschedlab.features import FeatureGates
from kschedlab.framework import podgroups as pgstate
from kschedlab.framework.status import Code, Status
from kschedlab.plugins import gang_scheduling
from kschedlab.plugins.gang_scheduling import NAME as GANG
from kschedlab.scheduler import Scheduler
from kschedlab.scheduler.podgroup import cycle
from kschedlab.scheduler.podgroup.algorithm import PodGroupAlgorithm
from kschedlab.scheduler.podgroup.cycle import _reject
from kschedlab.scheduler.result import GATED_MESSAGE, ScheduleResult
from kschedlab.scheduler.scheduling_loop import SchedulingLoop, rejecting_plugins
from kschedlab.scheduler_perf.gang import TAS_GATES
from tests.podgroup import test_cycle_bookkeeping as bookkeeping
from tests.seeds import covered, seeds


# -- the plain forms ---------------------------------------------------------------------------------
def plain_scheduled_count(self, info):
    return pgstate.pod_group_state(self.scheduler.cluster, info.namespace, info.name).scheduled_pods_count


def plain_gang_feasible(self, state, group, scheduled, remaining):
    obj = getattr(group, "obj", group)
    if type(obj).__name__ == "CompositePodGroup":
        min_count = obj.min_group_count
    else:
        min_count = 1 if obj.min_count is None else obj.min_count
    args = {"min": min_count, "scheduled": scheduled, "remaining": remaining}
    if remaining + scheduled < min_count:
        status = Status(Code.Unschedulable, (gang_scheduling.MSG_CANNOT_BE_SATISFIED.format(**args),))
    elif scheduled < min_count:
        status = Status(Code.Wait, (gang_scheduling.MSG_NOT_YET_SATISFIED.format(**args),))
    else:
        status = Status()
    return status.with_plugin(GANG)


def plain_feasible(self, pstate, info, scheduled, remaining):
    status = self.fw.run_placement_feasible(pstate, info, scheduled, remaining)
    self.log.append({"step": "feasible", "key": info.key, "depth": self._depth, "code": status.code.name,
                     "message": status.message(), "scheduled": scheduled, "remaining": remaining,
                     "placement": self._placement.name})
    if status.code == Code.Error:
        return False, Status.error(f"failed to evaluate placement feasibility: {status.message()}")
    if status.code == Code.Unschedulable or status.code == Code.UnschedulableAndUnresolvable:
        return False, Status(Code.Unschedulable, status.reasons, status.plugin)
    if status.code == Code.Wait:
        return True, Status(Code.Unschedulable, status.reasons, status.plugin)
    return True, status


def plain_count(self, keys):
    for key in keys:
        self.attempts[key] = self.attempts.get(key, 0) + 1
        self.total_attempts += 1
        self.tracker.evaluated(key)
        for callback in self.on_attempt:
            callback(key)


def plain_attempt_group(self, qpi, group):
    info, popped = bookkeeping.scheduling_loop.pop_group_members(self.scheduler, self.queue, qpi, group)
    self._count(popped)
    self._preemptor = group
    out = self.scheduler.schedule_pod_group(info)
    self._preemptor = None
    plugins = rejecting_plugins(out.pod_results)
    for result in out.pod_results:
        q = popped.pop(result.pod)
        if result.node is not None:
            self.queue.done(result.pod)
        elif result.status.code == Code.Wait:
            self._wait(result.pod, q)
        elif out.status.is_success() and not self.once:
            self.queue.return_to_active(q)
        else:
            self.failed(q, result, plugins)
    for key in popped:
        self.queue.done(key)
    self._move_forgotten()


def plain_result(self, result):
    key = result.pod
    if self.keep_history:
        self.history.append(result)
    if key not in self.last:
        self._seen.append(key)
    self.last[key] = result
    if result.node is None and result.status.code != Code.Wait and not result.gated:
        self.last_failure[key] = result.message
    if result.status.code == Code.Error:
        self.tracker.errored(key, result.message)
    if result.node is None and result.status.code != Code.Wait and key in self.waiting:
        self.wait_started.pop(key, None)
        self.failed(self.waiting.pop(key), result)
        self._move_forgotten()


def plain_submit(scheduler, fw, leaf, result, out):
    group_status = result.status
    said: dict = {}
    for pr in result.pods:
        pod_info = pr.pod_info
        if group_status.code == Code.Error:
            status = pr.status if pr.status.code == Code.Error else group_status
            out.pod_results.append(_reject(scheduler, pod_info, status, pr, said))
            continue
        if pr.status.is_success() and pr.node:
            if group_status.is_success():
                out.pod_results.append(scheduler.record(
                    scheduler.assume_and_bind(fw, pr.state or cycle.CycleState(), pod_info, pr.node, pr.trace)))
                continue
            out.pod_results.append(_reject(scheduler, pod_info, group_status, pr, said))
        else:
            out.pod_results.append(_reject(scheduler, pod_info, pr.status, pr, said))
        node = result.nominations.get(pod_info.key)
        if node:
            scheduler.cluster.nominate(pod_info.key, node)
    if leaf.obj is None:
        return
    message = group_status.message()
    if group_status.is_success():
        condition = cycle.cond.scheduled(message)
    elif group_status.is_rejected():
        condition = cycle.cond.unschedulable(message)
    else:
        condition = cycle.cond.scheduler_error(message)
    cycle.cond.update_pod_group_condition(leaf.obj, condition, cycle._now(scheduler))


PLAIN = [
    (PodGroupAlgorithm, "_scheduled_count", plain_scheduled_count),
    (gang_scheduling.GangScheduling, "placement_feasible", plain_gang_feasible),
    (PodGroupAlgorithm, "_feasible", plain_feasible),
    (SchedulingLoop, "_count", plain_count),
    (SchedulingLoop, "_attempt_group", plain_attempt_group),
    (SchedulingLoop, "result", plain_result),
    (cycle, "submit_pod_group_result", plain_submit),
    *bookkeeping.PLAIN["state"],
]


def _cycle_view(out) -> tuple:
    """What a PodGroup cycle answered: its status, the algorithm's log, each pod's result."""
    return (out.status.code, out.status.reasons, out.status.plugin, out.algorithm_pod_results, out.log,
            [(r.pod, r.node, r.status.code, r.status.reasons, r.status.plugin, r.message) for r in out.pod_results])


def _collecting(cycles: list, monkeypatch) -> None:
    """Every PodGroup cycle's answer goes to ``cycles``."""
    original = Scheduler.schedule_pod_group

    def schedule_pod_group(self, root, pod_keys=None):
        out = original(self, root, pod_keys)
        cycles.append(_cycle_view(out))
        return out

    monkeypatch.setattr(Scheduler, "schedule_pod_group", schedule_pod_group)


def _loop_run(seed: int, monkeypatch) -> tuple[list, list, dict]:
    cycles: list = []
    failures: dict = {}
    with monkeypatch.context() as m:
        _collecting(cycles, m)
        original_detach = SchedulingLoop.detach

        def detach(self):
            failures.update(self.last_failure)
            return original_detach(self)

        m.setattr(SchedulingLoop, "detach", detach)
        seen = bookkeeping.run(seed)
    return seen, cycles, failures


@pytest.mark.parametrize("seed", seeds(6))
def test_loop_cycles_answer_as_plain(seed, monkeypatch):
    new = _loop_run(seed, monkeypatch)
    with monkeypatch.context() as m:
        for owner, name, plain in PLAIN:
            m.setattr(owner, name, plain)
        plain_run = _loop_run(seed, monkeypatch)
    seen, cycles, failures = new
    assert len(seen) == len(plain_run[0])
    for step, (a, b) in enumerate(zip(seen, plain_run[0])):
        assert a == b, f"step {step}"
    assert cycles == plain_run[1]
    assert failures == plain_run[2]
    codes = [c[0] for c in cycles]
    assert covered(Code.Success in codes and Code.Unschedulable in codes), codes
    assert covered(any(s["step"] == "feasible" and s["code"] == "Wait" for c in cycles for s in c[4]))


# -- CompositePodGroups under TopologyAwareWorkloadScheduling -------------------------------------------
def _composite_cluster(seed: int) -> tuple[Cluster, list[str]]:
    """2-3 zones of 2 racks of 2-3 nodes; CompositePodGroups of 2-3 racked PodGroups (gangs, minCount at
    most the size), some members already bound (in one rack of one zone a job), busy pods anywhere."""
    rng = random.Random(seed)
    objs: list[dict] = []
    nodes = []
    racks: dict[tuple[int, int], list[str]] = {}
    zones = rng.randint(2, 3)
    for z in range(zones):
        for r in range(2):
            for i in range(rng.randint(2, 3)):
                name = f"z{z}-r{r}-n{i}"
                nodes.append(name)
                racks.setdefault((z, r), []).append(name)
                objs.append({"apiVersion": "v1", "kind": "Node",
                             "metadata": {"name": name, "labels": {"zone": f"z{z}", "rack": f"z{z}-r{r}"}},
                             "status": {"allocatable": {"cpu": rng.choice(["4", "6", "8"]), "memory": "16Gi",
                                                        "pods": "110"}}})
    for i in range(rng.randint(3, 10)):
        objs.append(_cpod(f"busy-{i}", rng.choice(["1", "2"]), node=rng.choice(nodes)))
    roots = []
    for j in range(2):
        children, zone = rng.randint(2, 3), rng.randrange(zones)
        objs.append({"apiVersion": "scheduling.k8s.io/v1alpha3", "kind": "CompositePodGroup",
                     "metadata": {"name": f"job{j}", "namespace": "ml"},
                     "spec": {"schedulingPolicy": {"gang": {"minGroupCount": rng.randint(1, children)}},
                              "schedulingConstraints": {"topology": [{"key": "zone"}]}}})
        for c in range(children):
            size, rack = rng.randint(1, 4), racks[zone, rng.randrange(2)]
            objs.append({"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
                         "metadata": {"name": f"job{j}-rep{c}", "namespace": "ml"},
                         "spec": {"schedulingPolicy": {"gang": {"minCount": rng.randint(1, size)}},
                                  "parentCompositePodGroupName": f"job{j}",
                                  "schedulingConstraints": {"topology": [{"key": "rack"}]}}})
            for w in range(size):
                bound = rng.random() < 0.3
                objs.append(_cpod(f"job{j}-rep{c}-w{w}", rng.choice(["1", "2", "3"]), group=f"job{j}-rep{c}",
                                  node=rng.choice(rack) if bound else None))
        roots.append(f"compositepodgroup/ml/job{j}")
    return Cluster(load_objects(objs)), roots


def _cpod(name: str, cpu: str, *, group: str | None = None, node: str | None = None) -> dict:
    spec: dict = {"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]}
    if group is not None:
        spec["schedulingGroup"] = {"podGroupName": group}
    if node is not None:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "ml"}, "spec": spec}


def _composite_run(seed: int, monkeypatch) -> list:
    cluster, roots = _composite_cluster(seed)
    sched = Scheduler(cluster, gates=FeatureGates({**TAS_GATES, "CompositePodGroup": True}), seed=seed)
    cycles: list = []
    rng = random.Random(seed + 7)
    with monkeypatch.context() as m:
        _collecting(cycles, m)
        for round_ in range(4):
            for root in roots:
                sched.schedule_pod_group(root)
            bound = sorted(k for k, p in cluster.pods.items() if p.spec.node_name and not k.startswith("ml/busy"))
            if bound:  # a bound member leaves: its group needs one more and has fewer scheduled
                cluster.remove_pod(rng.choice(bound))
            group = rng.choice(sorted(n.split("/")[1] for n in cluster.objects["PodGroup"]))
            cluster.add(Pod.model_validate(_cpod(f"late-{round_}", "1", group=group)))
    return cycles


@pytest.mark.parametrize("seed", seeds(5))
def test_composite_cycles_answer_as_plain(seed, monkeypatch):
    new = _composite_run(seed, monkeypatch)
    with monkeypatch.context() as m:
        for owner, name, plain in PLAIN:
            m.setattr(owner, name, plain)
        plain_cycles = _composite_run(seed, monkeypatch)
    assert new == plain_cycles
    feasible = [s for c in new for s in c[4] if s["step"] == "feasible" and s["depth"] >= 1]
    assert any(s["scheduled"] > 0 for s in feasible), "no group started with scheduled members"
    assert sum(1 for c in new for s in c[4] if s["step"] == "placement") > len(new), "one placement a cycle"


# -- the steps alone ----------------------------------------------------------------------------------
def test_gang_placement_feasible_answers_as_plain():
    """Every (minCount, scheduled, remaining) of a gang, a basic PodGroup and a CompositePodGroup:
    the same status (code, reasons, plugin) as the plain form."""
    gang = PodGroup.model_validate({"metadata": {"name": "g", "namespace": "ns"},
                                    "spec": {"schedulingPolicy": {"gang": {"minCount": 3}}}})
    basic = PodGroup.model_validate({"metadata": {"name": "b", "namespace": "ns"},
                                     "spec": {"schedulingPolicy": {"basic": {}}}})
    composite = CompositePodGroup.model_validate({"metadata": {"name": "c", "namespace": "ns"},
                                                  "spec": {"schedulingPolicy": {"gang": {"minGroupCount": 2}}}})
    plugin = gang_scheduling.GangScheduling()
    for group in (gang, basic, composite):
        for scheduled in range(5):
            for remaining in range(5):
                got = plugin.placement_feasible(None, group, scheduled, remaining)
                want = plain_gang_feasible(plugin, None, group, scheduled, remaining)
                assert (got.code, got.reasons, got.plugin) == (want.code, want.reasons, want.plugin)


def test_loop_result_hook_answers_as_plain():
    """The loop's hook for every recorded result (a Wait, an Error twice, a rejection, a gated pod,
    a placement, in random orders): the same last results, last failures and settled pods."""
    cluster, _ = bookkeeping._cluster(0)
    keys = sorted(cluster.pods)[:6]
    kinds = [Status(Code.Wait, ("waiting",), GANG), Status.error("boom"), Status.unschedulable("no room"),
             Status(Code.UnschedulableAndUnresolvable, ("gated",), GANG), Status()]
    for seed in range(20):
        rng = random.Random(seed)
        results = []
        for _ in range(30):
            status = rng.choice(kinds)
            node = "node-00" if status.is_success() else None
            message = GATED_MESSAGE if node is None and rng.random() < 0.2 else status.message()
            results.append(ScheduleResult(rng.choice(keys), node, status, message))
        seen = []
        for hook in (SchedulingLoop.result, plain_result):
            loop = SchedulingLoop(Scheduler(cluster, seed=0, gates=bookkeeping.GATES))
            for i, result in enumerate(results):
                hook(loop, result)
                if i % 7 == 0:
                    loop.tracker.changed()
            seen.append((dict(loop.last), dict(loop.last_failure), list(loop._seen),
                         {k: loop.tracker.is_settled(k) for k in keys}))
        assert seen[0] == seen[1]
