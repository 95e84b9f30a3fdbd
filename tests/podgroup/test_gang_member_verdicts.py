"""A gang member's Filter verdicts read off the kept NodeResourcesFit verdicts whole (issue 26 part 6b,
branch perfgang): when no node is cordoned and the pod tolerates every taint set, NodeResourcesFit is
the only fused plugin that may reject a node, so ``FastPath._rejected`` takes the outcome's columns
from ``NodeFitVerdicts.failures`` instead of filling them plugin by plugin. Checked against the
plugin-by-plugin fill (``_fit_alone`` answering False), attempt by attempt and column by column, on
random clusters of GPU nodes with gangs that mostly fail, retried with mutations between cycles:
pods deleted and added, nodes tainted (tolerated or not), cordoned, relabelled, a pod nominated.

A young shape's (branch perfgang2) rejected nodes get the same verdicts computed on those rows alone
(``FitVerdictsNow``), checked against the framework's Filter plugin by plugin, as such shapes had before."""

from __future__ import annotations

import random

import numpy as np
import pytest

from kschedlab.api.core import Node, Pod
from kschedlab.api.podgroup import PodGroup
from kschedlab.cluster import Cluster
from kschedlab.scheduler import Scheduler, fast_path
from kschedlab.scheduler.fast_path import FastPath
from kschedlab.scheduler.kept_scores import FitVerdictsNow, NodeFitVerdicts
from tests.fastpath.test_fast_path import same_attempt
from tests.fastpath.test_lean_filter import same_runs
from tests.seeds import covered, seeds

GPU = "nvidia.com/gpu"
NS = "default"
GATES = {"GenericWorkload": True}
TOLERATED = {"key": "gpu", "value": "yes", "effect": "NoSchedule"}
UNTOLERATED = {"key": "dedicated", "value": "x", "effect": "NoSchedule"}


def _node(i: int, rng: random.Random) -> Node:
    alloc = {"cpu": rng.choice(["8", "16"]), "memory": "64Gi", "pods": rng.choice(["4", "110"])}
    gpus = rng.choice([None, "2", "4", "8"])
    if gpus is not None:
        alloc[GPU] = gpus
    return Node.model_validate({"metadata": {"name": f"node-{i:02d}", "labels": {"rack": f"r{i % 3}"}},
                                "status": {"allocatable": alloc, "capacity": dict(alloc)}})


def _pod(name: str, cpu: str, gpus: int, priority: int, *, group: str | None = None,
         node: str | None = None) -> Pod:
    requests = {"cpu": cpu, "memory": "1Gi"}
    resources: dict = {"requests": requests}
    if gpus:
        requests[GPU] = str(gpus)
        resources["limits"] = {GPU: str(gpus)}
    spec: dict = {"containers": [{"name": "c", "resources": resources}], "priority": priority,
                  "schedulerName": "default-scheduler",
                  "tolerations": [{"key": "gpu", "operator": "Equal", "value": "yes", "effect": "NoSchedule"}]}
    if group is not None:
        spec["schedulingGroup"] = {"podGroupName": group}
    if node is not None:
        spec["nodeName"] = node
    return Pod.model_validate({"metadata": {"name": name, "namespace": NS}, "spec": spec})


def _cluster(seed: int, scale: int = 1) -> tuple[Cluster, list[str]]:
    """GPU nodes mostly taken, and gangs of alike members (all or nothing) asking for more GPUs than
    are free, so most cycles place a few members and fail at the next one (``scale`` times the
    nodes and the pods placed: past 100 nodes a pass looks for fewer feasible nodes than there are)."""
    rng = random.Random(seed)
    nodes = [_node(i, rng) for i in range(rng.randint(20, 30) * scale)]
    cluster = Cluster(nodes)
    with_gpus = [n.metadata.name for n in nodes if GPU in n.status.allocatable]
    for i in range(rng.randint(40, 70) * scale):
        cluster.add(_pod(f"busy-{i:02d}", rng.choice(["1", "2"]), rng.choice([1, 2]), 100,
                         node=rng.choice(with_gpus)))
    groups = []
    for g in range(8):
        size = rng.randint(2, 8)
        cpu, gpus, priority = rng.choice(["500m", "1", "3"]), rng.choice([0, 1, 2, 4]), rng.choice([0, 100])
        cluster.add(PodGroup.model_validate({
            "apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
            "metadata": {"name": f"gang-{g}", "namespace": NS},
            "spec": {"priority": priority, "schedulingPolicy": {"gang": {"minCount": size}}}}))
        for m in range(size):
            cluster.add(_pod(f"gang-{g}-{m}", cpu, gpus, priority, group=f"gang-{g}"))
        groups.append(f"podgroup/{NS}/gang-{g}")
    cluster.add(_pod("nominee", "2", 2, 1000))
    return cluster, groups


def _mutate(cluster: Cluster, rng: random.Random, step: int) -> None:
    """One random change between cycles (the same draws for both runs)."""
    bound = sorted(k for k, p in cluster.pods.items() if p.spec.node_name and p.spec.scheduling_group is None)
    names = sorted(cluster.nodes)
    choice = rng.random()
    if choice < 0.3 and bound:
        cluster.remove_pod(rng.choice(bound))
    elif choice < 0.55:  # a taint or a cordon, set or (on a node that has one, half the time) lifted
        marked = [n for n in names if cluster.nodes[n].spec.taints or cluster.nodes[n].spec.unschedulable]
        data = cluster.nodes[rng.choice(marked if marked and rng.random() < 0.5 else names)].model_dump(
            by_alias=True, exclude_none=True)
        spec = data.setdefault("spec", {})
        if spec.get("taints") or spec.get("unschedulable"):
            spec["taints"], spec["unschedulable"] = [], False
        elif rng.random() < 0.3:
            spec["unschedulable"] = True
        else:
            spec["taints"] = [rng.choice([TOLERATED, TOLERATED, UNTOLERATED])]
        cluster.update_node(Node.model_validate(data))
    elif choice < 0.65:
        n = cluster.nodes[rng.choice(names)].model_copy(deep=True)
        n.metadata.labels = {**n.metadata.labels, "rack": f"r{rng.randrange(5)}"}
        cluster.update_node(n)
    elif choice < 0.8 and "default/nominee" in cluster.pods and not cluster.pods["default/nominee"].spec.node_name:
        cluster.nominate("default/nominee", rng.choice([None, *names]))
    else:
        with_gpus = [n for n in names if GPU in cluster.nodes[n].status.allocatable]
        cluster.add(_pod(f"late-{step}", "1", 1, 100, node=rng.choice(with_gpus)))


def run(seed: int, scale: int = 1) -> list:
    """Cycles of the gangs in turn, a mutation after each: every pod result."""
    cluster, groups = _cluster(seed, scale)
    sched = Scheduler(cluster, seed=seed, gates=GATES)
    rng = random.Random(seed + 1000)
    results = []
    for step in range(60):
        group = groups[step % len(groups)]
        name = group.rsplit("/", 1)[1]
        if any(p.spec.scheduling_group is not None and p.spec.scheduling_group.pod_group_name == name
               and not p.spec.node_name for p in cluster.pods.values()):  # (the loop pops queued pods only)
            results.extend(sched.schedule_pod_group(group).pod_results)
        _mutate(cluster, rng, step)
    return results


def recomputed(m) -> None:
    """The outcome filled plugin by plugin, as before this part."""
    m.setattr(FastPath, "_fit_alone", lambda self, plan, pod_info, snapshot: False)


@pytest.mark.parametrize("seed", seeds(4))
def test_kept_member_verdicts_answer_as_recomputed(seed, monkeypatch):
    calls = {"failures": 0}
    failures = NodeFitVerdicts.failures

    def counted(self, rows, plugin):
        calls["failures"] += 1
        return failures(self, rows, plugin)

    monkeypatch.setattr(NodeFitVerdicts, "failures", counted)
    results = same_runs(lambda: run(seed), recomputed, monkeypatch)
    assert covered(calls["failures"] >= 1)  # the kept columns answered (in the first run) ...
    failed = [r for r in results if r.node is None and r.diagnosis is not None]
    assert covered(failed and any(r.node is not None for r in results))  # ... members failing and placed
    assert covered(any(r.trace is not None and r.trace.filter is not None and (r.trace.filter.fail_plugin >= 0).any()
                       for r in failed))


@pytest.mark.parametrize("seed", seeds(4))
def test_a_pass_over_nodes_fewer_than_sought_in_one_chunk_answers_as_in_chunks(seed, monkeypatch):
    """``FastPath.fits_fewer``: when fewer nodes have room than the pass looks for, it visits them all,
    so one chunk answers as the chunks did (the same nodes visited, statuses and placements; only the
    outcome's reason table is laid out once instead of per chunk). Against the chunks (only a pod
    that fits nowhere in one chunk, as before), on 8 times the nodes."""
    seen = []
    fits_fewer = FastPath.fits_fewer

    def counted(self, plan, snapshot, rows, count):
        answer = fits_fewer(self, plan, snapshot, rows, count)
        seen.append((answer, answer and not fits_fewer(self, plan, snapshot, rows, 1)))
        return answer

    monkeypatch.setattr(FastPath, "fits_fewer", counted)
    once = run(seed, scale=8)
    with monkeypatch.context() as m:
        m.setattr(FastPath, "fits_fewer", lambda self, plan, snapshot, rows, count: fits_fewer(self, plan, snapshot,
                                                                                              rows, 1))
        chunks = run(seed, scale=8)
    assert len(once) == len(chunks)
    for a, b in zip(once, chunks):
        same_attempt(a, b)
        fa, fb = a.trace.filter if a.trace else None, b.trace.filter if b.trace else None
        assert (fa is None) == (fb is None)
        if fa is not None:
            for column in ("rows", "fail_plugin", "fail_code"):
                assert np.array_equal(getattr(fa, column), getattr(fb, column)), column
    assert covered(any(fewer for _, fewer in seen))  # a pass went whole where the chunks went before
    stopped = [r for r in once if r.trace is not None and 0 < r.trace.evaluated_nodes < len(r.trace.node_names)]
    assert covered(stopped)  # passes that found enough
    assert all(r.trace.evaluated_nodes >= r.trace.num_to_find for r in stopped)


def test_failures_columns_equal_the_verdicts_recorded():
    rng = np.random.default_rng(0)
    cluster, _ = _cluster(3)
    snap = cluster.snapshot
    for checked in ((("cpu", 3000), (GPU, 2)), (("cpu", 500),), ((GPU, 9), ("memory", 1 << 36))):
        kept = NodeFitVerdicts(snap, checked)
        for _ in range(5):
            rows = rng.permutation(len(snap.nodes))[: rng.integers(0, len(snap.nodes) + 1)].astype(np.int64)
            plugin, code, reason, reasons = kept.failures(rows, 2)
            v = kept.verdicts(rows)
            assert plugin.dtype == np.int16 and code.dtype == np.int8 and reason.dtype == np.int32
            assert np.array_equal(code, v.codes) and np.array_equal(reason, v.reason_idx)
            assert np.array_equal(plugin, np.where(v.codes != 0, 2, -1)) and reasons == v.reasons


def test_a_first_chunk_with_exactly_the_nodes_sought_is_visited_whole():
    """The edge ``fits_fewer`` keeps: 150 nodes, 100 sought, a first chunk of 128 with exactly 100 that
    fit, and 10 more past it. Upstream's pass with one worker keeps the first 100 feasible nodes, goes
    on through the 28 that fail and stops at node 128, the 101st feasible: 128 processed. 110 fit,
    more than 100: the pass goes in chunks, and the second chunk finds the 101st."""
    cpus = ["4"] * 100 + ["1"] * 28 + ["4"] * 10 + ["1"] * 12
    cluster = Cluster([Node.model_validate({"metadata": {"name": f"n{i:03d}"},
                                            "status": {"allocatable": {"cpu": cpu, "pods": "110"}}})
                       for i, cpu in enumerate(cpus)])
    cluster.add(Pod.model_validate({"metadata": {"name": "p", "namespace": NS}, "spec": {
        "containers": [{"name": "c", "resources": {"requests": {"cpu": "2"}}}]}}))
    sched = Scheduler(cluster, seed=0)
    fast = sched.fast_paths["default-scheduler"]
    for _ in range(3):  # (the shape's fit is kept from its third cycle)
        fast.plan(cluster.pod_infos[f"{NS}/p"], cluster.snapshot)
    trace = sched.schedule_one(f"{NS}/p").trace
    assert (trace.num_to_find, trace.feasible_nodes, trace.evaluated_nodes) == (100, 100, 128)


def young_plugin_by_plugin(m) -> None:
    """A young shape's rejected nodes filtered plugin by plugin, as before ``FitVerdictsNow``."""
    rejected = FastPath._rejected

    def as_before(self, plan, state, pod_info, snapshot, rows):
        if plan.shape.cycles < fast_path.KEEP_FROM and plan.shape.checked not in self._fit_verdicts:
            return self.fw.run_filter(state, pod_info, snapshot, rows)
        return rejected(self, plan, state, pod_info, snapshot, rows)

    m.setattr(FastPath, "_rejected", as_before)


@pytest.mark.parametrize("seed", seeds(6))
def test_young_shape_verdicts_answer_as_plugin_by_plugin(seed, monkeypatch):
    """Attempt by attempt and column by column; on odd seeds every shape stays young (so the
    cordons and taints of the mutations meet the young verdicts too, outside ``_fit_alone``)."""
    if seed % 2:
        monkeypatch.setattr(fast_path, "KEEP_FROM", 10**9)
    reads = {True: 0, False: 0}
    read = FitVerdictsNow._read
    fit_alone = FastPath._fit_alone

    def counted(self, rows):
        reads[alone[-1]] += 1
        return read(self, rows)

    alone = [False]

    def noted(self, plan, pod_info, snapshot):
        alone.append(fit_alone(self, plan, pod_info, snapshot))
        return alone[-1]

    monkeypatch.setattr(FitVerdictsNow, "_read", counted)
    monkeypatch.setattr(FastPath, "_fit_alone", noted)
    same_runs(lambda: run(seed), young_plugin_by_plugin, monkeypatch)
    assert covered(reads[True] >= 1 and (reads[False] >= 1 or not seed % 2))  # the young verdicts answered
