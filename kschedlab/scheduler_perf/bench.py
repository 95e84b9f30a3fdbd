"""Every shape at once: ``kschedlab bench`` (:func:`run_bench`, one child process per shape,
_scaled counts; :func:`bench_table`) and the node-count scaling runs of the notebooks
(:func:`scaling_runs`).
"""

from __future__ import annotations

from kschedlab.perf_floors import FLOOR_SHAPES
from kschedlab.scheduler_perf.dra import DRA_WORKLOADS, run_dra_workload
from kschedlab.scheduler_perf.gang import GANG_WORKLOADS, run_gang_workload
from kschedlab.scheduler_perf.workloads import WORKLOADS, run_workload

#: the shapes ``kschedlab bench`` runs, in its table's order
BENCH_SHAPES = ("SchedulingBasic", "SchedulingPodAntiAffinity", "SchedulingPodAffinity", "TopologySpreading",
                "PreemptionBasic", "Unschedulable", "SchedulingWithMixedChurn", "GangScheduling",
                "TopologyAwareScheduling", "SchedulingWithResourceClaimTemplate", "SchedulingWithResourceClaim")


def _scaled(value: int, scale: float, least: int = 1) -> int:
    return max(least, int(round(value * scale))) if value else 0


def run_shape(name: str, scale: float = 1.0, *, keep_traces: int | None = 1000, seed: int = 0,
              gates=None) -> dict:
    """One shape of :data:`BENCH_SHAPES` at ``scale`` times upstream's sizes (nodes, init pods and
    measured pods; gangs: nodes, groups and nodes per rack; DRA: nodes with devices and pods), as
    one row of :func:`bench_table`: ``shape``, ``nodes``, ``pods``, ``scheduled``,
    ``pods_per_second``, ``pods_per_cpu_second``, ``peak_rss_mb``, ``upstream_threshold`` and, for
    SchedulingBasic, the churn workloads and the shapes with a floor, ``reference_ratio``
    (:func:`numpy_reference`, with the churn steps for the churn workloads,
    :func:`kschedlab.perf_floors.shape_floor`, for the gang shapes
    :func:`kschedlab.perf_floors.gang_floor` or, for the DRA shapes,
    :func:`kschedlab.scheduler_perf.dra.dra_floor`; same run). ``gates`` (FeatureGates
    or a dict) override the shape's feature gates.

    >>> row = run_shape("SchedulingBasic", 0.004)
    >>> row["nodes"], row["pods"], row["scheduled"], row["reference_ratio"] is not None
    (20, 40, 40, True)
    """
    if name in WORKLOADS:
        w = WORKLOADS[name]
        r = run_workload(name, nodes=_scaled(w.nodes, scale), init_pods=_scaled(w.init_pods, scale),
                         measure_pods=_scaled(w.measure_pods, scale), keep_traces=keep_traces, seed=seed,
                         reference=name == "SchedulingBasic" or name in FLOOR_SHAPES or w.churn is not None,
                         gates=gates)
        nodes = r["nodes"]
    elif name in GANG_WORKLOADS:
        g = GANG_WORKLOADS[name]
        r = run_gang_workload(name, nodes=_scaled(g.nodes, scale), groups=_scaled(g.measure_groups, scale),
                              nodes_per_domain=_scaled(g.nodes_per_domain, scale, least=5), keep_traces=keep_traces,
                              seed=seed, gates=gates, reference=True)
        nodes = r["nodes"]
    elif name in DRA_WORKLOADS:
        d = DRA_WORKLOADS[name]
        r = run_dra_workload(name, nodes=_scaled(d.nodes_with_dra, scale), init_pods=_scaled(d.init_pods, scale),
                             measure_pods=_scaled(d.measure_pods, scale), keep_traces=keep_traces, seed=seed,
                             gates=gates, reference=True)
        nodes = r["nodes"]
    else:
        raise ValueError(f"unknown shape {name!r}; known: {', '.join(BENCH_SHAPES)}")
    return {"shape": name, "nodes": nodes, "pods": r["pods"], "scheduled": r["scheduled"],
            "pods_per_second": r["pods_per_second"], "pods_per_cpu_second": r["pods_per_cpu_second"],
            "peak_rss_mb": r["peak_rss_mb"], "upstream_threshold": r["upstream_threshold"],
            "reference_ratio": r.get("reference_ratio"), "seconds": r["seconds"]}


def _shape_in_child(conn, name: str, scale: float, keep_traces, seed: int, gates) -> None:
    try:
        conn.send(("ok", run_shape(name, scale, keep_traces=keep_traces, seed=seed, gates=gates)))
    except BaseException as err:  # reported by the parent, with the shape's name
        conn.send(("error", f"{type(err).__name__}: {err}"))
    finally:
        conn.close()


def run_bench(shapes=None, scale: float = 1.0, *, keep_traces: int | None = 1000, seed: int = 0,
              isolate: bool = True, on_row=None, gates=None) -> list[dict]:
    """Run ``shapes`` (default :data:`BENCH_SHAPES`) one after the other with :func:`run_shape`.
    ``isolate`` runs each in a forked process of its own, so ``peak_rss_mb`` is that shape's peak
    (the parent's memory at the fork included) and one shape's leftovers do not slow the next.
    ``on_row(row)`` is called as each row is ready; ``gates`` as in :func:`run_shape`.

    >>> rows = run_bench(["SchedulingBasic", "Unschedulable"], 0.004, isolate=False)
    >>> [(r["shape"], r["nodes"], r["pods"]) for r in rows]
    [('SchedulingBasic', 20, 40), ('Unschedulable', 20, 40)]
    """
    import multiprocessing

    names = list(BENCH_SHAPES if not shapes else shapes)
    unknown = [n for n in names if n not in BENCH_SHAPES]
    if unknown:
        raise ValueError(f"unknown shape(s) {', '.join(unknown)}; known: {', '.join(BENCH_SHAPES)}")
    if not scale > 0:
        raise ValueError(f"scale must be greater than 0, got {scale}")
    rows = []
    for name in names:
        if isolate:
            ctx = multiprocessing.get_context("fork")
            parent, child = ctx.Pipe(duplex=False)
            proc = ctx.Process(target=_shape_in_child, args=(child, name, scale, keep_traces, seed, gates))
            proc.start()
            child.close()
            try:
                kind, payload = parent.recv()
            except EOFError:
                kind, payload = "error", f"the process running it ended with exit code {proc.exitcode}"
            proc.join()
            if kind == "error":
                raise RuntimeError(f"bench shape {name}: {payload}")
            row = payload
        else:
            row = run_shape(name, scale, keep_traces=keep_traces, seed=seed, gates=gates)
        rows.append(row)
        if on_row is not None:
            on_row(row)
    return rows


def bench_table(rows: list[dict]) -> str:
    """The rows of :func:`run_bench` as one text table (``-`` where a value is missing).

    >>> print(bench_table([{"shape": "SchedulingBasic", "nodes": 20, "pods": 40, "scheduled": 40,
    ...     "pods_per_second": 1500.0, "pods_per_cpu_second": 1600.0, "peak_rss_mb": 120.0,
    ...     "upstream_threshold": 680, "reference_ratio": 2.5}]))
    shape            nodes  pods  scheduled  pods/s  pods/CPU-s  peak memory  upstream threshold  numpy loop / this
    ---------------  -----  ----  ---------  ------  ----------  -----------  ------------------  -----------------
    SchedulingBasic     20    40         40  1500.0      1600.0       120 MB                 680               2.5x
    """
    header = ("shape", "nodes", "pods", "scheduled", "pods/s", "pods/CPU-s", "peak memory", "upstream threshold",
              "numpy loop / this")

    def cell(value, fmt="{}"):
        return "-" if value is None else fmt.format(value)

    body = [(r["shape"], cell(r["nodes"], "{:,}"), cell(r["pods"], "{:,}"), cell(r["scheduled"], "{:,}"),
             cell(r["pods_per_second"]), cell(r["pods_per_cpu_second"]), cell(r["peak_rss_mb"], "{:.0f} MB"),
             cell(r["upstream_threshold"]), cell(r.get("reference_ratio"), "{}x")) for r in rows]
    widths = [max(len(header[i]), *(len(b[i]) for b in body)) for i in range(len(header))]
    lines = ["  ".join(h.ljust(w) if i == 0 else h.rjust(w) for i, (h, w) in enumerate(zip(header, widths))).rstrip()]
    lines[0] = "  ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip()
    lines.append("  ".join("-" * w for w in widths))
    for b in body:
        lines.append("  ".join(v.ljust(w) if i == 0 else v.rjust(w) for i, (v, w) in enumerate(zip(b, widths))))
    return "\n".join(lines)


def scaling_runs(node_counts=(1000, 5000, 15000), *, init_pods: int = 1000, measure_pods: int = 3000,
                 keep_traces: int | None = 1000, seed: int = 0, isolate: bool = True):
    """SchedulingBasic at several cluster sizes (pod-default.yaml pods, ``init_pods`` placed first,
    ``measure_pods`` measured): a pandas DataFrame with one row per size: ``nodes``,
    ``nodes_to_find`` (upstream's adaptive ``numFeasibleNodesToFind``), ``pods_per_cpu_second``,
    ``cpu_us_per_pod``, ``cpu_ns_per_pod_per_node`` (flat or falling: the cost per pod grows at
    most linearly with the nodes) and ``peak_rss_mb``; ``isolate`` runs each size in a forked
    process.

    >>> df = scaling_runs((20, 40), init_pods=10, measure_pods=20, isolate=False)
    >>> df["nodes"].tolist(), df["nodes_to_find"].tolist()
    ([20, 40], [20, 40])
    """
    import multiprocessing

    import pandas as pd

    from kschedlab.scheduler import num_feasible_nodes_to_find

    def one(n: int) -> dict:
        return run_workload("SchedulingBasic", nodes=n, init_pods=init_pods, measure_pods=measure_pods,
                            keep_traces=keep_traces, seed=seed)

    rows = []
    for n in node_counts:
        if isolate:
            ctx = multiprocessing.get_context("fork")
            with ctx.Pool(1, maxtasksperchild=1) as pool:
                r = pool.apply(run_workload, ("SchedulingBasic",),
                               {"nodes": n, "init_pods": init_pods, "measure_pods": measure_pods,
                                "keep_traces": keep_traces, "seed": seed})
        else:
            r = one(n)
        us = 1e6 * r["cpu_seconds"] / r["pods"] if r["pods"] else None
        rows.append({"nodes": n, "nodes_to_find": num_feasible_nodes_to_find(0, n), "pods": r["pods"],
                     "scheduled": r["scheduled"], "pods_per_second": r["pods_per_second"],
                     "pods_per_cpu_second": r["pods_per_cpu_second"],
                     "cpu_us_per_pod": None if us is None else round(us, 1),
                     "cpu_ns_per_pod_per_node": None if us is None else round(1000 * us / n, 2),
                     "peak_rss_mb": r["peak_rss_mb"]})
    return pd.DataFrame(rows)
