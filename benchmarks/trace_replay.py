"""Trace replay at scale: a job trace of the Alibaba PAI 2020 shape
(:data:`kschedlab.research.trace.PAI_2020`) replayed on a cluster of 8-GPU nodes (96 cores,
512 GiB, ``nvidia.com/gpu: 8``) by the full default profile with GenericWorkload on (gangs
through the PodGroup cycle), as one sweep run (:func:`kschedlab.research.run.execute`).

The trace is read as the clock reaches it (``Simulation.stream``), utilisation is kept as
interval means (``ClusterUtilization``), attempts keep no traces and the run keeps no queue
history nor list of attempt results (``Simulation(keep_history=False)``): memory grows with the
pods alive at a time and one timeline row per pod, not with attempts nor nodes x samples.

Run: ``.venv/bin/python benchmarks/trace_replay.py [--pods 100000] [--nodes 5000]
[--arrival-rate 2.0] [--interval 300] [--until SECONDS] [--seed 0]``.  Prints one JSON line: the
run's numbers (scheduled fraction, pending percentiles, utilisation, attempts, virtual end),
``wall_seconds``, ``cpu_seconds`` (steadier on a shared machine) and ``peak_rss_mb`` of this process.  Numbers are for reading, never asserted.
"""

import argparse
import json
import resource
import sys
import time


def main(argv=None) -> int:
    from kschedlab.research import Run, Variant, Workload, execute

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pods", type=int, default=100_000)
    parser.add_argument("--nodes", type=int, default=5_000)
    parser.add_argument("--arrival-rate", type=float, default=2.0, help="jobs per second of virtual time")
    parser.add_argument("--interval", type=float, default=300.0, help="seconds per utilisation row")
    parser.add_argument("--until", type=float, help="stop at this virtual time (default: when all is done)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--progress", action="store_true", help="a bar of virtual seconds on stderr")
    args = parser.parse_args(argv)
    workload = Workload(f"pai-{args.pods}", generate={"pods": args.pods, "arrival_rate": args.arrival_rate},
                        nodes={"count": args.nodes}, until=args.until, interval=args.interval)
    start = time.perf_counter()
    row = execute(Run("default", None, Variant("baseline"), workload, seed=args.seed), progress=args.progress)
    wall = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_SELF)
    rss = usage.ru_maxrss / (1024 * 1024 if sys.platform == "darwin" else 1024)
    out = {k: v for k, v in row.items() if not isinstance(v, list)}
    out.update({"nodes": args.nodes, "arrival_rate": args.arrival_rate, "total_wall_seconds": round(wall, 1),
                "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 1),
                "peak_rss_mb": round(rss, 1), "utilization_rows": len(row["time"])})
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
