"""The FGD paper's experiment: one run per policy (default trace, seed 42) and the 60-run
default-trace sweep (six policies x seeds 42-51) on a 2-worker LocalCluster.

    .venv/bin/python benchmarks/fgd_packing.py [OPENB_DIR] [--no-sweep]

OPENB_DIR defaults to ../shared/traces/openb beside the repository (the trace is not shipped).
Prints each run's wall and CPU seconds, the process's peak memory, the sweep's wall seconds and its peak worker memory, and
the machine's load average (the machine may be shared: timings grow with the load).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path


def main(argv: list[str]) -> int:
    from kschedlab.research.fgd.experiment import DEFAULT_SEEDS, run
    from kschedlab.research.fgd.openb import DEFAULT_NODES, DEFAULT_PODS, read_nodes, read_pods
    from kschedlab.research.fgd.policies import POLICIES
    from kschedlab.research.fgd.runs import PackingTrace, packing_runs, summary
    from kschedlab.research.sweep import sweep

    args = [a for a in argv if not a.startswith("--")]
    folder = Path(args[0]) if args else Path(__file__).resolve().parents[1] / ".." / "shared" / "traces" / "openb"
    if not folder.is_dir():
        print(f"no openb trace at {folder}", file=sys.stderr)
        return 2
    nodes, pods = read_nodes(folder / DEFAULT_NODES), read_pods(folder / DEFAULT_PODS)
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'policy':14s} {'pods':>6s} {'wall s':>7s} {'cpu s':>7s} {'unallocated % at 100':>21s}")
    for policy in POLICIES:
        wall, cpu = time.perf_counter(), time.process_time()
        result = run(nodes, pods, policy, 42)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        print(f"{policy:14s} {result.pods:6d} {wall:7.2f} {cpu:7.2f} {result.unallocated_at(100):21.2f}")
    import resource

    print(f"peak memory of this process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB; "
          f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if "--no-sweep" in argv:
        return 0
    trace = PackingTrace("default", str(folder / DEFAULT_NODES), str(folder / DEFAULT_PODS))
    runs = packing_runs(POLICIES, [trace], DEFAULT_SEEDS)
    with tempfile.TemporaryDirectory() as out:
        from distributed import Client, LocalCluster

        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster, \
                Client(cluster) as client:
            wall = time.perf_counter()
            results = sweep(runs=runs, output=out, client=client, progress=False)
            wall = time.perf_counter() - wall
            peak = max(w["metrics"]["memory"] for w in client.scheduler_info()["workers"].values())
    print(summary(results).to_string(index=False))
    print(f"sweep: {len(results)} runs in {wall:.1f} s wall on 2 workers; worker memory at the end "
          f"{peak / 2**20:.0f} MiB; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
