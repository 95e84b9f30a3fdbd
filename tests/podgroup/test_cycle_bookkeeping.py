"""The PodGroup cycle's bookkeeping made lighter (issue 26, branch perfgang3), checked against the
plain forms kept here as references:

* ``pod_group_state`` and ``members`` walk the cluster's member keys instead of working each pod's
  key out again;
* the scheduling loop builds a group's hierarchy once, when it pops the members, and hands it to
  the cycle (it was built again from the popped keys);
* a failed group's rejected members share the (reason, message) of the status they got;
* the pods the algorithm never tried are appended after its results when those are a prefix of
  the queue (no sort);
* the ``PodGroupInitiallyScheduled`` condition is built without validation and left alone, with
  no copy made, when nothing in it would change.

Random clusters of gangs (sizes, minCount at or below the size, priorities), driven through the
scheduling loop step by step with mutations between steps (pods deleted, nodes tainted, cordoned and
relabelled, a pod nominated, busy pods and gang members arriving late): every recorded result, every
pod's PodScheduled condition, every PodGroup's conditions, the queue and the attempt counts must be
the same with the plain forms as with the new ones."""

from __future__ import annotations

import dataclasses
import random

import pytest

from kschedlab.api.meta import Condition
from kschedlab.api.podgroup import PodGroup
from kschedlab.cluster import Cluster
from kschedlab.framework import podgroups as pgstate
from kschedlab.framework.hierarchy_tracker import TERMINAL_PHASES
from kschedlab.framework.podgroups import PodGroupInfo
from kschedlab.framework.types import pod_key
from kschedlab.scheduler import Scheduler, scheduling_loop
from kschedlab.scheduler.podgroup import conditions as cond
from kschedlab.scheduler.podgroup import cycle
from kschedlab.scheduler.podgroup.algorithm import PodResult
from kschedlab.scheduler.result import ScheduleResult
from kschedlab.scheduler.scheduling_loop import SchedulingLoop
from tests.podgroup.test_gang_member_verdicts import GPU, NS, _mutate, _node, _pod
from tests.seeds import seeds

GATES = {"GenericWorkload": True}


# -- the plain forms ---------------------------------------------------------------------------------
def plain_members(cluster, namespace, name):
    keys = cluster.group_pods.get((namespace or "", name), {})
    return [cluster.pods[k] for k in keys
            if cluster.pods[k].status is None or cluster.pods[k].status.phase not in TERMINAL_PHASES]


def plain_pod_group_state(cluster, namespace, name):
    st = pgstate.PodGroupState()
    for pod in plain_members(cluster, namespace, name):
        key = pod_key(pod)
        st.all.append(key)
        if pod.spec.node_name:
            st.assigned.append(key)
        elif key in cluster.snapshot.pod_row:
            st.assumed.append(key)
        else:
            st.unscheduled.append(key)
    return st


def plain_pop_group_members(scheduler, queue, qpi, group):
    composite = scheduler.gates.enabled("CompositePodGroup")
    members = [pi.key for pi in PodGroupInfo.build(scheduler.cluster, group, composite=composite).queued_pods()]
    popped = {qpi.pod_info.key: qpi, **{q.key: q for q in queue.pop_members(
        k for k in members if k != qpi.pod_info.key)}}
    order = [k for k in members if k in popped]
    return PodGroupInfo.build(scheduler.cluster, group, order, composite), popped


def plain_reject(scheduler, pod_info, status, pr, said):
    reason = "Unschedulable" if status.is_rejected() else "SchedulerError"
    message = status.message()
    scheduler.set_condition(pod_info.pod, False, reason, message)
    return scheduler.record(ScheduleResult(pod_info.key, None, status, message, pr.trace, pr.diagnosis))


def plain_complete_pods(info, result):
    done = {pr.key for pr in result.pods}
    result.pods.extend(PodResult(pi, None, result.status) for pi in info.pods if pi.key not in done)
    order = {pi.key: i for i, pi in enumerate(info.pods)}
    result.pods.sort(key=lambda pr: order.get(pr.key, len(order)))


def plain_condition(status, reason, message):
    fields = {"type": "PodGroupInitiallyScheduled", "status": status, "reason": reason}
    if message:
        fields["message"] = message
    return Condition(**fields)


def plain_update(pg, condition, now=None):
    existing = cond.find_status_condition(pg.status.conditions, condition.type or "")
    if existing is not None and existing.status == "True" and condition.status != "True":
        return False
    new = condition.clone()
    new.observed_generation = pg.metadata.generation or None
    if new.observed_generation is None:
        new.model_fields_set.discard("observed_generation")
    conditions = list(pg.status.conditions)
    if not cond.set_status_condition(conditions, new, now):
        return False
    pg.status.conditions = conditions
    pg.mark_set("status")
    return True


PLAIN = {
    "state": [(pgstate, "pod_group_state", plain_pod_group_state), (pgstate, "members", plain_members)],
    "pop": [(scheduling_loop, "pop_group_members", plain_pop_group_members)],
    "reject": [(cycle, "_reject", plain_reject)],
    "complete": [(cycle, "_complete_pods", plain_complete_pods)],
    "condition": [(cond, "_condition", plain_condition), (cond, "update_pod_group_condition", plain_update)],
}


# -- the runs ----------------------------------------------------------------------------------------
def _cluster(seed: int) -> tuple[Cluster, list[str]]:
    """GPU nodes partly taken and gangs that often do not fit (minCount at most the size)."""
    rng = random.Random(seed)
    nodes = [_node(i, rng) for i in range(rng.randint(12, 20))]
    cluster = Cluster(nodes)
    with_gpus = [n.metadata.name for n in nodes if GPU in n.status.allocatable]
    for i in range(rng.randint(20, 40)):
        cluster.add(_pod(f"busy-{i:02d}", rng.choice(["1", "2"]), rng.choice([1, 2]), 100,
                         node=rng.choice(with_gpus)))
    groups = []
    for g in range(6):
        size = rng.randint(1, 7)
        cpu, gpus, priority = rng.choice(["500m", "1", "3"]), rng.choice([0, 1, 2, 4]), rng.choice([0, 100])
        cluster.add(PodGroup.model_validate({
            "apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
            "metadata": {"name": f"gang-{g}", "namespace": NS, "generation": rng.choice([None, 1, 3])},
            "spec": {"priority": priority, "schedulingPolicy": {"gang": {"minCount": rng.randint(1, size)}}}}))
        for m in range(size):
            cluster.add(_pod(f"gang-{g}-{m}", cpu, gpus, priority, group=f"gang-{g}"))
        groups.append(f"gang-{g}")
    cluster.add(_pod("nominee", "2", 2, 1000))
    return cluster, groups


def _observe(loop: SchedulingLoop, recorded: list) -> tuple:
    """What a step left: the results recorded, conditions, the queue and the attempt counts."""
    cluster = loop.cluster
    results = [(r.pod, r.node, r.status.code, r.status.reasons, r.status.plugin, r.message,
                r.trace is not None, r.diagnosis.message() if r.diagnosis is not None else None)
               for r in recorded]
    recorded.clear()
    pods = {k: ([c.model_dump() for c in p.status.conditions] if p.status else None,
                p.status.nominated_node_name if p.status else None, p.spec.node_name)
            for k, p in cluster.pods.items()}
    groups = {k: [c.model_dump() for c in g.status.conditions] for k, g in cluster.objects["PodGroup"].items()}
    states = {name: dataclasses.asdict(plain_pod_group_state(cluster, NS, name))
              for name in (k.split("/")[1] for k in cluster.objects["PodGroup"])}
    return (results, pods, groups, states, loop.queue.pending(), loop.queue.in_flight(), dict(loop.attempts),
            loop.total_attempts)


def run(seed: int) -> list:
    """The loop step by step, a mutation after each; what every step left."""
    cluster, groups = _cluster(seed)
    sched = Scheduler(cluster, seed=seed, gates=GATES)
    loop = SchedulingLoop(sched)
    recorded: list = []
    sched.on_result.append(recorded.append)
    loop.attach()
    for q in sched.queue():
        loop.add(cluster.pod_infos[q.pod_info.key])
    rng = random.Random(seed + 1000)
    seen = []
    arriving: list[tuple[int, str]] = []  # (step, key): in the cluster, queued only at that step
    for step in range(70):
        if not loop.step():
            loop._advance()
        seen.append(_observe(loop, recorded))
        for _, key in [a for a in arriving if a[0] <= step]:
            arriving.remove((_, key))
            loop.add(cluster.pod_infos[key])
        roll = rng.random()
        if roll < 0.2:  # a gang member arriving late, queued a few steps after the cluster has it
            group = rng.choice(groups)
            pod = _pod(f"{group}-late-{step}", "1", rng.choice([0, 1]), 0, group=group)
            cluster.add(pod)
            arriving.append((step + rng.randint(0, 4), pod_key(pod)))
        elif roll < 0.3:  # a PodGroup's spec changed
            pg = cluster.objects["PodGroup"][f"{NS}/{rng.choice(groups)}"]
            pg.metadata.generation = (pg.metadata.generation or 0) + 1
        else:
            _mutate(cluster, rng, step)
        loop.tracker.changed()
    loop.detach()
    return seen


@pytest.mark.parametrize("seed", seeds(5))
def test_bookkeeping_answers_as_plain(seed, monkeypatch):
    new = run(seed)
    with monkeypatch.context() as m:
        for patches in PLAIN.values():
            for module, name, plain in patches:
                m.setattr(module, name, plain)
        plain_run = run(seed)
    assert len(new) == len(plain_run)
    for step, (a, b) in enumerate(zip(new, plain_run)):
        assert a == b, f"step {step}"
    assert any(r[1] is None for step in new for r in step[0]), "no member was rejected"
    assert any(r[1] is not None for step in new for r in step[0]), "no member was bound"


@pytest.mark.parametrize("seed", seeds(3))
def test_pod_group_state_and_members_as_plain(seed):
    """Member walks against the plain ones on a cluster with assumed, bound and terminated members."""
    cluster, groups = _cluster(seed)
    sched = Scheduler(cluster, seed=seed, gates=GATES)
    for name in groups:
        sched.schedule_pod_group(f"podgroup/{NS}/{name}")
    rng = random.Random(seed)
    for key in sorted(cluster.pods):
        pod = cluster.pods[key]
        roll = rng.random()
        if roll < 0.15 and not pod.spec.node_name:
            cluster.snapshot.add_pod(cluster.pod_infos[key], rng.choice(sorted(cluster.nodes)))
        elif roll < 0.3 and pod.status is not None:
            pod.status.phase = rng.choice(["Succeeded", "Failed", "Running"])
    for name in groups:
        assert pgstate.members(cluster, NS, name) == plain_members(cluster, NS, name)
        assert pgstate.pod_group_state(cluster, NS, name) == plain_pod_group_state(cluster, NS, name)
