"""The shapes with a count per topology domain, and PreemptionBasic, beside their floors (issue 26).

Run: ``.venv/bin/python benchmarks/floors.py [SHAPE ...] [--scale S] [--profile [TOP]]``
(default: SchedulingPodAntiAffinity, SchedulingPodAffinity, TopologySpreading and PreemptionBasic at full size).
Each shape runs with :func:`kschedlab.scheduler_perf.run_workload` and then, in the same process, its
floor (:func:`kschedlab.perf_floors.shape_floor`: the least numpy work giving the same placements;
its docstring says what it leaves out). Prints one JSON line per shape with ``pods_per_cpu_second``,
the floor's ``reference_pods_per_cpu_second`` and ``reference_ratio`` (floor / shape, both per CPU
second), the machine's load average beside them. ``--profile`` adds a cProfile of the measured pods
(process time) on stderr. Numbers are for reading, never asserted.
"""

import argparse
import cProfile
import io
import json
import os
import pstats
import sys
import time

from kschedlab.perf_floors import FLOOR_SHAPES
from kschedlab.scheduler_perf import WORKLOADS, run_workload


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("shapes", nargs="*", default=list(FLOOR_SHAPES), help="shapes (default: all with a floor)")
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of upstream's sizes")
    parser.add_argument("--profile", type=int, nargs="?", const=25, metavar="TOP",
                        help="cProfile the measured pods, print the TOP functions (cumulative, then own time)")
    args = parser.parse_args(argv)
    for name in args.shapes:
        w = WORKLOADS[name]
        profile = cProfile.Profile(time.process_time) if args.profile else None
        r = run_workload(name, nodes=max(1, round(w.nodes * args.scale)),
                         init_pods=max(1, round(w.init_pods * args.scale)),
                         measure_pods=max(1, round(w.measure_pods * args.scale)), reference=True, profile=profile)
        keep = ("workload", "nodes", "init_pods", "pods", "scheduled", "pods_per_second", "pods_per_cpu_second",
                "first_window_pods_per_cpu_second", "last_window_pods_per_cpu_second",
                "reference_pods_per_cpu_second", "reference_ratio", "upstream_threshold", "peak_rss_mb")
        print(json.dumps({**{k: r[k] for k in keep}, "load_average": os.getloadavg()[0]}), flush=True)
        if profile is not None:
            for order in ("cumulative", "tottime"):
                out = io.StringIO()
                pstats.Stats(profile, stream=out).sort_stats(order).print_stats(args.profile)
                print(f"== {name}: cProfile of the measured pods ({order})", file=sys.stderr)
                print(out.getvalue(), file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
