"""``percentageOfNodesToScore``: how many nodes the scheduler looks at, and what that costs in
placement quality (seed section 10, "Налаштування продуктивності планувальника").

Speed is measured as work, not wall time, so results are the same on every machine:
``evaluated`` is the number of nodes the Filter plugins ran on for a pod (upstream's
``EvaluatedNodes``), ``scored`` the number of feasible nodes that went on to scoring.
Quality is the ``rank`` of the chosen node among *all* feasible nodes, ranked by the
total score each would get if every feasible node were scored (1 = a best node; ties
share the better rank), and the ``regret``, the best total minus the chosen one.

>>> objects = synthetic_cluster(nodes=200, pending=5, seed=1)
>>> sweep = percentage_sweep(lambda: objects, [0, 100], seed=1)
>>> sweep.groupby("percentage")["evaluated"].mean().to_dict()   # 0: look for 100 feasible nodes
{0: 105.0, 100: 200.0}
>>> bool((sweep[sweep["percentage"] == 100]["rank"] == 1).all())
True
"""

from __future__ import annotations

import random
from typing import Callable, Iterable, Sequence

import numpy as np
import pandas as pd

from kschedlab.api.core import Node, Pod
from kschedlab.apiserver.admission import admit
from kschedlab.cluster import Cluster
from kschedlab.framework.interface import CycleState
from kschedlab.scheduler import Scheduler, num_feasible_nodes_to_find

__all__ = ["synthetic_cluster", "all_feasible_scores", "percentage_sweep", "sweep_summary",
           "adaptive_percentage", "num_feasible_nodes_to_find"]

LABEL_HOSTNAME = "kubernetes.io/hostname"
LABEL_ZONE = "topology.kubernetes.io/zone"


def adaptive_percentage(num_all_nodes: int) -> int:
    """The default percentage (``percentageOfNodesToScore`` unset or 0): ``50 - nodes/125``,
    at least 5 (integer division, as upstream).

    >>> [adaptive_percentage(n) for n in (100, 1000, 5000, 6000)]
    [50, 42, 10, 5]
    """
    return max(50 - num_all_nodes // 125, 5)


def synthetic_cluster(nodes: int = 500, *, zones: int = 3, pending: int = 40, seed: int = 0) -> list:
    """A seeded, admitted cluster: ``nodes`` nodes of 4 to 32 CPUs in ``zones`` zones (round
    robin), each already running one ``load-*`` pod that takes 0-90 % of its CPU and memory,
    and ``pending`` unscheduled pods of assorted sizes (``web-*``).  Same seed, same objects.

    >>> objs = synthetic_cluster(nodes=6, pending=2, seed=3)
    >>> [type(o).__name__ for o in objs].count("Node"), [o.name for o in objs if o.name.startswith("web")]
    (6, ['web-000', 'web-001'])
    """
    rng = random.Random(seed)
    out: list = []
    for i in range(nodes):
        cpu = rng.choice((4, 8, 16, 32))
        name = f"node-{i:04d}"
        zone = f"zone-{chr(ord('a') + i % zones)}"
        out.append(Node.model_validate({
            "metadata": {"name": name, "labels": {LABEL_HOSTNAME: name, LABEL_ZONE: zone}},
            "status": {"allocatable": {"cpu": str(cpu), "memory": f"{cpu * 4}Gi", "pods": "110"}}}))
        cpu_used, mem_used = rng.uniform(0.0, 0.9), rng.uniform(0.0, 0.9)
        out.append(Pod.model_validate({
            "metadata": {"name": f"load-{i:04d}", "namespace": "default"},
            "spec": {"nodeName": name, "containers": [{"name": "app", "resources": {"requests": {
                "cpu": f"{int(cpu * 1000 * cpu_used)}m", "memory": f"{int(cpu * 4 * 1024 * mem_used)}Mi"}}}]}}))
    for j in range(pending):
        cpu = rng.choice(("250m", "500m", "1", "2"))
        mem = rng.choice(("512Mi", "1Gi", "2Gi", "4Gi"))
        out.append(Pod.model_validate({
            "metadata": {"name": f"web-{j:03d}", "namespace": "default", "labels": {"app": "web"}},
            "spec": {"containers": [{"name": "app", "image": "registry.k8s.io/pause:3.10",
                                     "resources": {"requests": {"cpu": cpu, "memory": mem}}}]}}))
    return admit(out)


def all_feasible_scores(scheduler: Scheduler, pod_key: str) -> pd.Series:
    """Total score of every feasible node for ``pod_key`` as if all of them were scored
    (PreFilter, Filter on every node, PreScore, Score), without changing anything: no
    binding, no move of the scheduler's round-robin start.  Indexed by node name, in
    node-tree order; empty when no node is feasible.
    """
    pod_info = scheduler.cluster.pod_infos[pod_key]
    fw = scheduler.framework_for(pod_info.pod)
    snapshot = scheduler.cluster.snapshot
    state = CycleState()
    pre_res, status, _, _ = fw.run_pre_filter(state, pod_info, snapshot)
    if not status.is_success():
        return pd.Series([], dtype="int64", name="total")
    rows = snapshot.order
    if not pre_res.all_nodes():
        keep = np.fromiter((snapshot.index[n] for n in pre_res.node_names if n in snapshot.index), np.int64)
        rows = rows[np.isin(rows, keep)]
    outcome = fw.run_filter_with_nominated_pods(state, pod_info, snapshot, rows)
    feasible = outcome.rows[outcome.passed]
    names = [snapshot.names[int(r)] for r in feasible]
    if len(feasible) <= 1 or not fw.points["score"]:
        return pd.Series(np.zeros(len(feasible), np.int64), index=names, name="total")
    fw.run_pre_score(state, pod_info, snapshot, feasible)
    scores = fw.run_score(state, pod_info, snapshot, feasible)
    return pd.Series(scores.total.astype(np.int64), index=names, name="total")


def percentage_sweep(build: Callable[[], Iterable], percentages: Sequence[int], *, config: dict | None = None,
                     pods: Sequence[str] | None = None, seed: int = 0) -> pd.DataFrame:
    """Schedule the same pending pods once per ``percentageOfNodesToScore`` value, each time on a
    fresh cluster from ``build()`` (a list of objects), and measure every decision.

    One row per (percentage, pod): ``percentage`` (0 = the adaptive default), ``to_find`` (how
    many feasible nodes the scheduler looked for), ``evaluated``, ``scored``, ``feasible_total``
    (feasible nodes in the whole cluster), ``node``, ``rank``, ``chosen_total``, ``best_total``
    and ``regret``.  Pods go in queue order; ``pods`` limits them.
    """
    rows = []
    for pct in percentages:
        cluster = Cluster([o.clone() for o in build()])
        cfg = {**(config or {}), "percentageOfNodesToScore": int(pct)}
        scheduler = Scheduler(cluster, cfg, seed=seed, keep_traces=1)
        keys = [q.pod_info.key for q in scheduler.queue()]
        if pods is not None:
            keys = [k for k in keys if k in set(pods)]
        for key in keys:
            full = all_feasible_scores(scheduler, key)
            result = scheduler.schedule_one(key)
            trace = result.trace
            row = {"percentage": int(pct), "pod": key,
                   "to_find": num_feasible_nodes_to_find(int(pct), len(cluster.nodes)),
                   "evaluated": trace.evaluated_nodes if trace else 0,
                   "scored": (len(trace.score.rows) if trace and trace.score is not None
                              else int(result.node is not None)),
                   "feasible_total": len(full), "node": result.node}
            if result.node is not None and len(full):
                chosen = int(full[result.node])
                best = int(full.max())
                row.update(rank=int((full > chosen).sum()) + 1, chosen_total=chosen, best_total=best,
                           regret=best - chosen)
            else:
                row.update(rank=None, chosen_total=None, best_total=None, regret=None)
            rows.append(row)
    columns = ["percentage", "pod", "to_find", "evaluated", "scored", "feasible_total", "node", "rank",
               "chosen_total", "best_total", "regret"]
    df = pd.DataFrame(rows, columns=columns)
    for col in ("rank", "chosen_total", "best_total", "regret"):
        df[col] = df[col].astype("Int64")
    return df


def sweep_summary(sweep: pd.DataFrame) -> pd.DataFrame:
    """Per percentage: mean nodes evaluated and scored, the share of pods placed on a best node,
    mean and worst rank, mean regret.

    >>> objects = synthetic_cluster(nodes=150, pending=4, seed=2)
    >>> sweep_summary(percentage_sweep(lambda: objects, [100], seed=2))["best_node_share"].tolist()
    [1.0]
    """
    placed = sweep[sweep["node"].notna()]
    g = placed.groupby("percentage")
    out = pd.DataFrame({
        "to_find": g["to_find"].first(),
        "evaluated": g["evaluated"].mean(),
        "scored": g["scored"].mean(),
        "best_node_share": g["rank"].apply(lambda r: float((r == 1).mean())),
        "mean_rank": g["rank"].apply(lambda r: float(r.astype(float).mean())),
        "worst_rank": g["rank"].max().astype(int),
        "mean_regret": g["regret"].apply(lambda r: float(r.astype(float).mean())),
    })
    return out
