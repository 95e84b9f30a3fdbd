"""SchedulingBasic (upstream scheduler_perf): 5,000 nodes, 1,000 pods placed, 10,000 pods measured.

Run: ``.venv/bin/python benchmarks/scheduling_basic.py [keep_traces] [--nodes N] [--init-pods N]
[--pods N] [--no-reference] [--profile [TOP]]`` (``kschedlab bench SchedulingBasic`` plus the
yardstick). Prints one JSON line with pods_per_second, peak_rss_mb and, from the same run, the
minimal numpy loop's rate (``reference_pods_per_cpu_second``, :func:`kschedlab.scheduler_perf.numpy_reference`)
and ``reference_ratio`` (its rate over the scheduler's, both per CPU second); ``--profile`` adds a
cProfile of the measured pods (top TOP functions by cumulative and by own time, default 25) on
stderr. Numbers are for reading, never asserted.
"""

import argparse
import cProfile
import io
import json
import pstats
import sys

from kschedlab.scheduler_perf import run_workload


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("keep_traces", type=int, nargs="?", default=1000, help="full traces kept (default 1000)")
    parser.add_argument("--nodes", type=int)
    parser.add_argument("--init-pods", type=int)
    parser.add_argument("--pods", type=int, help="measured pods (default 10,000)")
    parser.add_argument("--no-reference", action="store_true", help="skip the numpy loop")
    parser.add_argument("--profile", type=int, nargs="?", const=25, metavar="TOP",
                        help="cProfile the measured pods, print the TOP functions (cumulative, then own time)")
    args = parser.parse_args(argv)
    profile = cProfile.Profile() if args.profile else None
    result = run_workload("SchedulingBasic", nodes=args.nodes, init_pods=args.init_pods, measure_pods=args.pods,
                          keep_traces=args.keep_traces, reference=not args.no_reference, profile=profile)
    print(json.dumps(result), flush=True)
    if profile is not None:
        for order in ("cumulative", "tottime"):
            out = io.StringIO()
            pstats.Stats(profile, stream=out).sort_stats(order).print_stats(args.profile)
            print(f"== cProfile of the measured pods ({order})", file=sys.stderr)
            print(out.getvalue(), file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
