"""PodGroup preemption's victim search answers as the plain one did, attempt by attempt.

DefaultPreemption reads "a pod below the preemptor on this node" and "nothing below the group"
off one kept snapshot index of the pods grouped by (priority, in a scheduling group)
(``pods_per_row``) instead of one count index per preemptor priority, and orders the victim units
with a key that skips the minimum over one pod and the PDB count when no pod violates.  The
reference kept here is the search as it was: the units by a walk of every pod of the snapshot, the
units ordered by the former key, each victim taken off and put back one by one by the former
``GroupReprieve.keep``.

On seeded random clusters (the gangs, priorities, disruption modes, host ports, anti-affinity,
nominated pods and PDBs of :mod:`tests.replay.test_podgroup_preemption_incremental`) a cluster
runs several PodGroup cycles, with mutations between them (victims' deletions completed, pods
deleted, new running pods, a new gang), once with the plugin as it is and once with the
reference.  Each cycle's statuses, messages, victims and nominations, the cluster, the
scheduler's random state, and the snapshot afterwards (its sums, each node's pods in order, the
pod indexes) must be the same; the priority-class index must count what the nodes hold.
"""

from __future__ import annotations

from contextlib import ExitStack

import numpy as np
import pytest

from kschedlab.api.loader import load_objects
from kschedlab.cluster import Cluster
from kschedlab.framework.group_reprieve import GroupReprieve, ReprieveError
from kschedlab.framework.interface import CycleState
from kschedlab.framework.preemption import node_scratch, start_time_ns
from kschedlab.framework.status import Status
from kschedlab.plugins import default_preemption as dp
from kschedlab.scheduler import Scheduler
from kschedlab.scheduler.podgroup.algorithm import PodResult
from tests.replay.test_podgroup_preemption_incremental import GATES, random_cluster
from tests.replay.test_preemption_fast_paths import reference_group_victims
from tests.seeds import seeds


class ReferenceReprieve(GroupReprieve):
    """``GroupReprieve`` as it was: every unit is put back before it is decided."""

    def keep(self, unit) -> bool:
        for pi in unit.pods:
            self.snapshot.add_pod(pi, self.node_of[pi.key])
        if self._unchanged_for_assignments(unit):
            return True
        self._extensions(unit, "add")
        fits = self._assignments_fit(self._touched(unit))
        if fits:
            self._passing = True
            return True
        for pi in unit.pods:
            self.snapshot.remove_pod(pi.key)
        self._extensions(unit, "remove")
        return False

    def _unchanged_for_assignments(self, unit) -> bool:
        if not self.shortcut_allowed or any(self.node_of[pi.key] in self.assigned_nodes for pi in unit.pods):
            return False
        if self._passing is None:
            for pi in unit.pods:
                self.snapshot.remove_pod(pi.key)
            self._passing = self._assignments_fit()
            for pi in unit.pods:
                self.snapshot.add_pod(pi, self.node_of[pi.key])
        return self._passing


def reference_select_group_victims(self, victims, schedule):
    """``_select_group_victims`` as it was: one victim at a time, one scratch per node."""
    snapshot = self.handle.cluster.snapshot
    node_of = {pi.key: snapshot.names[snapshot.pod_row[pi.key]] for v in victims for pi in v.pods}
    ordered = reference_order_group_victims(self, victims)
    with ExitStack() as stack:
        for row in sorted({snapshot.index[n] for n in node_of.values()}):
            stack.enter_context(node_scratch(snapshot, row))
        for key in node_of:
            snapshot.remove_pod(key)
        assignments, status = schedule()
        if not status.is_success():
            return (None, None), status
        reprieve = ReferenceReprieve(self.handle.framework, snapshot, assignments, node_of)
        try:
            evicted = [v for v in ordered if not reprieve.keep(v)]
        except ReprieveError as err:
            return (None, None), Status.error(str(err))
    return ({a.key: a.node for a in assignments}, evicted), Status()


def reference_order_group_victims(self, victims):
    now_ns = self.evaluator.now_ns()
    victims.sort(key=lambda v: (-v.priority, -dp.VICTIM_RANK[v.kind], -len(v.pods),
                                min(start_time_ns(pi, now_ns) for pi in v.pods),
                                v.pods[0].pod.metadata.uid or v.pods[0].key))
    violating_pods, _ = dp.filter_pods_with_pdb_violation([pi for v in victims for pi in v.pods],
                                                          self.evaluator.pdbs())
    violating_keys = {pi.key for pi in violating_pods}
    for v in victims:
        v.num_pdb_violations = sum(1 for pi in v.pods if pi.key in violating_keys)
    return [v for v in victims if v.num_pdb_violations] + [v for v in victims if not v.num_pdb_violations]


def reference_group_victims_below(self, below=None):
    """Every unit of the snapshot by a walk of all its pods (no index), those below ``below``."""
    return [v for v in reference_group_victims(self) if below is None or v.priority < below]


def use_reference(monkeypatch) -> None:
    monkeypatch.setattr(dp.DefaultPreemption, "_select_group_victims", reference_select_group_victims)
    monkeypatch.setattr(dp.DefaultPreemption, "_group_victims", reference_group_victims_below)


def snapshot_state(snapshot) -> dict:
    """What the snapshot holds, index answers included."""
    live = np.array(sorted(snapshot.index.values()), np.int64)
    classes = dp.pods_per_row(snapshot, lambda priority, grouped: True)
    counted = np.zeros(len(snapshot.pods), np.int64) if classes is None else classes[:len(snapshot.pods)]
    assert counted.tolist() == [len(pods) for pods in snapshot.pods]  # the class index counts every pod
    lower = dp.pods_per_row(snapshot, lambda priority, grouped: priority < 100)
    assert (np.zeros(len(snapshot.pods), np.int64) if lower is None else lower[:len(snapshot.pods)]).tolist() == \
        [sum(1 for p in pods if p.priority < 100) for pods in snapshot.pods]
    return {
        "sums": [a[..., live].tolist() for a in (snapshot.requested, snapshot.free, snapshot.non_zero,
                                                snapshot.pod_count)],
        "pods": [[p.key for p in pods] for pods in snapshot.pods],
        "pod_row": sorted(snapshot.pod_row.items()),
        "ports": {row: dict(c) for row, c in snapshot.port_rows.items() if c},
        "count_indexes": {str(k): e[1][live].tolist() for k, e in snapshot._pod_counts.items()},
        "list_indexes": {str(k): sorted(e[1]) for k, e in snapshot._pod_lists.items()},
        "group_indexes": {str(k): sorted((str(g), v.counts[live].tolist(), v.pods) for g, v in e[1].items())
                          for k, e in snapshot._pod_groups.items()},
    }


def new_gang(rng, step: int) -> list[dict]:
    size = int(rng.integers(1, 6))
    priority = int(rng.choice([0, 100, 1000, 1000]))
    name = f"gang{step}"
    objects: list[dict] = [{"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
                            "metadata": {"name": name, "namespace": "default", "uid": name},
                            "spec": {"priority": priority, "schedulingPolicy": {"gang": {"minCount": size}}}}]
    for i in range(size):
        cpu, gpu = int(rng.choice([1, 2, 8])), int(rng.choice([0, 1, 4, 8]))
        requests = {"cpu": str(cpu), "memory": "4Gi", **({"nvidia.com/gpu": str(gpu)} if gpu else {})}
        objects.append({"apiVersion": "v1", "kind": "Pod",
                        "metadata": {"name": f"{name}-{i}", "namespace": "default", "uid": f"{name}-{i}",
                                     "labels": {"app": "a"}},
                        "spec": {"priority": priority, "schedulingGroup": {"podGroupName": name},
                                 "containers": [{"name": "c", "resources": {"requests": requests}}]}})
    return objects


def mutate(cluster: Cluster, rng, step: int) -> None:
    """Victims' deletions completed (most), a few pods deleted, a few running pods added."""
    for key in sorted(cluster.pods):
        pod = cluster.pods[key]
        if pod.metadata.deletion_timestamp is not None and rng.random() < 0.8:
            cluster.remove_pod(key)
    bound = sorted(k for k, p in cluster.pods.items() if p.spec.node_name)
    for key in bound:
        if rng.random() < 0.1:
            cluster.remove_pod(key)
    nodes = sorted(cluster.snapshot.index)
    for j in range(int(rng.integers(0, 6))):
        body = {"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": f"m{step}-{j}", "namespace": "default", "uid": f"m{step}-{j}",
                             "labels": {"app": str(rng.choice(["a", "b"]))}},
                "spec": {"priority": int(rng.choice([0, 100, 1000])), "nodeName": str(rng.choice(nodes)),
                         "containers": [{"name": "c", "resources": {"requests": {"cpu": "2", "memory": "1Gi"}}}]},
                "status": {"phase": "Running", "startTime": f"2024-02-0{int(rng.integers(1, 10))}T00:00:00Z"}}
        cluster.add(load_objects([body])[0])


def run(seed: int, wide: bool, steps: int = 4) -> list:
    """Cycles of gangs on one random cluster, with mutations between them: what each answered
    and left behind."""
    objects, key = random_cluster(seed, wide)
    cluster = Cluster(load_objects(objects))
    for name, p in cluster.pods.items():
        if p.status is not None and p.status.nominated_node_name:
            cluster.nominate(name, p.status.nominated_node_name)
    sched = Scheduler(cluster, gates=GATES, seed=seed)
    rng = np.random.default_rng(seed + 1000)
    out = []
    for step in range(steps):
        result = sched.schedule_pod_group(key)
        out.append({
            "status": (result.status.code, result.status.message()),
            "post_filter": None if result.post_filter is None else (result.post_filter.code,
                                                                    result.post_filter.message()),
            "pods": [(r.pod, r.node, r.message) for r in result.pod_results],
            "nominations": {k: r.nominations for k, r in result.groups.items()},
            "cluster": {k: (p.spec.node_name, p.metadata.deletion_timestamp is not None,
                            p.status.nominated_node_name if p.status else None) for k, p in cluster.pods.items()},
            "scheduler": (sched.next_start_node_index, sched.rng.getstate()),
            "snapshot": snapshot_state(cluster.snapshot),
        })
        mutate(cluster, rng, step)
        for obj in load_objects(new_gang(rng, step)):
            cluster.add(obj)
        key = f"podgroup/default/gang{step}"
    return out


@pytest.mark.parametrize("wide", [False, True])
@pytest.mark.parametrize("seed", seeds(40))
def test_bulk_victim_search_answers_as_the_plain_one(seed, wide, monkeypatch):
    fast = run(seed, wide)
    with monkeypatch.context() as m:
        use_reference(m)
        plain = run(seed, wide)
    for step, (a, b) in enumerate(zip(fast, plain)):
        assert a == b, f"step {step}"


def test_the_seeds_preempt_and_find_nothing_below(monkeypatch):
    """The seeds above evict victims, reprieve some, and meet gangs with no unit below them;
    some searches try only the units on the gang's nodes, others every unit (a PDB, or a
    filter that is not node-local)."""
    kept = evicted = nothing = 0
    keep, no_unit_below = GroupReprieve.keep, dp.DefaultPreemption._no_unit_below
    keeps_untouching = GroupReprieve.keeps_untouching
    searches = {True: 0, False: 0}

    def watched_keeps_untouching(self):
        answer = keeps_untouching(self)
        searches[answer] += 1
        return answer

    def watched_keep(self, unit):
        nonlocal kept, evicted
        answer = keep(self, unit)
        kept += answer
        evicted += not answer
        return answer

    def watched_no_unit_below(self, below):
        nonlocal nothing
        answer = no_unit_below(self, below)
        nothing += answer
        return answer

    monkeypatch.setattr(GroupReprieve, "keep", watched_keep)
    monkeypatch.setattr(dp.DefaultPreemption, "_no_unit_below", watched_no_unit_below)
    monkeypatch.setattr(GroupReprieve, "keeps_untouching", watched_keeps_untouching)
    for seed in range(40):
        for wide in (False, True):
            run(seed, wide)
    assert kept and evicted and nothing
    assert searches[True] and searches[False]


def one_node_two_groups() -> list[dict]:
    """A 4-CPU node full with two PodGroups of priority 0, evicted whole: ``big`` (two pods of
    1 CPU, started later) and ``small`` (one pod of 2 CPU, started earlier); a gang of one
    2-CPU pod of priority 1000 pending."""
    objects: list[dict] = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n0"},
                            "status": {"allocatable": {"cpu": "4", "memory": "64Gi", "pods": "10"}}}]

    def group(name: str, priority: int, mode: str | None) -> dict:
        spec: dict = {"priority": priority, "schedulingPolicy": {"gang": {"minCount": 1}}}
        if mode:
            spec["disruptionMode"] = {mode: {}}
        return {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
                "metadata": {"name": name, "namespace": "default", "uid": name}, "spec": spec}

    def pod(name: str, group_name: str, cpu: int, priority: int, started: str | None) -> dict:
        body: dict = {"apiVersion": "v1", "kind": "Pod",
                      "metadata": {"name": name, "namespace": "default", "uid": name},
                      "spec": {"priority": priority, "schedulingGroup": {"podGroupName": group_name},
                               "containers": [{"name": "c", "resources": {"requests": {"cpu": str(cpu)}}}]}}
        if started:
            body["spec"]["nodeName"] = "n0"
            body["status"] = {"phase": "Running", "startTime": started}
        return body

    objects += [group("big", 0, "all"), group("small", 0, "all"), group("gang", 1000, None),
                pod("big-0", "big", 1, 0, "2024-01-05T00:00:00Z"), pod("big-1", "big", 1, 0, "2024-01-05T00:00:00Z"),
                pod("small-0", "small", 2, 0, "2024-01-01T00:00:00Z"), pod("gang-0", "gang", 2, 1000, None)]
    return objects


def test_the_larger_unit_is_reprieved_first():
    """Of two units of one priority and kind, the one with more pods is more important
    (``MoreImportantVictim``), whatever their start times: it is tried first and kept, and the
    smaller, which no longer fits beside it and the gang, is evicted."""
    cluster = Cluster(load_objects(one_node_two_groups()))
    result = Scheduler(cluster, gates=GATES, seed=0).schedule_pod_group("podgroup/default/gang")
    assert result.post_filter is not None and result.post_filter.is_success()
    assert result.post_filter.message().endswith("preempting 1 victims")
    assert sorted(cluster.pods) == ["default/big-0", "default/big-1", "default/gang-0"]  # small-0 deleted


def pdb_budget_spent_elsewhere() -> list[dict]:
    """A 4-CPU node ``n0`` full with ``a2`` (app a, priority 0) and ``b`` (app b, priority 100),
    2 CPU each; a 1-CPU node ``n1`` full with ``a1`` (app a, priority 50); a PDB on app a
    allowing one disruption; a gang of one 2-CPU pod of priority 1000 pending (it fits n0 only)."""
    def pod(name: str, app: str, cpu: int, priority: int, node: str | None) -> dict:
        body: dict = {"apiVersion": "v1", "kind": "Pod",
                      "metadata": {"name": name, "namespace": "default", "uid": name, "labels": {"app": app}},
                      "spec": {"priority": priority,
                               "containers": [{"name": "c", "resources": {"requests": {"cpu": str(cpu)}}}]}}
        if node:
            body["spec"]["nodeName"] = node
            body["status"] = {"phase": "Running", "startTime": "2024-01-01T00:00:00Z"}
        else:
            body["spec"]["schedulingGroup"] = {"podGroupName": "gang"}
        return body

    return [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
             "status": {"allocatable": {"cpu": cpu, "memory": "64Gi", "pods": "10"}}}
            for name, cpu in (("n0", "4"), ("n1", "1"))] + [
        {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
         "metadata": {"name": "gang", "namespace": "default", "uid": "gang"},
         "spec": {"priority": 1000, "schedulingPolicy": {"gang": {"minCount": 1}}}},
        {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "a", "namespace": "default"},
         "spec": {"selector": {"matchLabels": {"app": "a"}}}, "status": {"disruptionsAllowed": 1}},
        pod("a2", "a", 2, 0, "n0"), pod("b", "b", 2, 100, "n0"), pod("a1", "a", 1, 50, "n1"),
        pod("gang-0", "g", 2, 1000, None)]


def test_a_budget_spent_off_the_gangs_nodes_counts():
    """Budgets are consumed in the order of every unit, those off the gang's nodes included:
    ``a1`` (more important, on n1) takes the PDB's one disruption, so ``a2`` violates it, is tried
    first and kept; ``b`` is evicted."""
    cluster = Cluster(load_objects(pdb_budget_spent_elsewhere()))
    result = Scheduler(cluster, gates=GATES, seed=0).schedule_pod_group("podgroup/default/gang")
    assert result.post_filter is not None and result.post_filter.message().endswith("preempting 1 victims")
    assert sorted(cluster.pods) == ["default/a1", "default/a2", "default/gang-0"]  # b deleted


@pytest.mark.parametrize("cpu, narrowed", [("4", True), ("1", False)])
def test_narrowed_only_when_the_group_fits_without_victims(cpu, narrowed):
    """``keeps_untouching``: True when the group's placement passes the full check; False when
    it does not (every unit is then tried in order, and the first one off the group's nodes runs
    the check again, as before: nothing is remembered)."""
    cluster = Cluster(load_objects([
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n0"},
         "status": {"allocatable": {"cpu": cpu, "memory": "64Gi", "pods": "10"}}},
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default", "uid": "p"},
         "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "2"}}}]}}]))
    fw = Scheduler(cluster, gates=GATES, seed=0).profiles["default-scheduler"]
    pod_info, state = cluster.pod_infos["default/p"], CycleState()
    fw.run_pre_filter(state, pod_info, cluster.snapshot)
    reprieve = GroupReprieve(fw, cluster.snapshot, [PodResult(pod_info, "n0", Status(), state)], {})
    assert reprieve.shortcut_allowed
    assert reprieve.keeps_untouching() is narrowed
    assert reprieve._passing is (True if narrowed else None)
