"""DRA scheduling, shaped after upstream scheduler_perf's ``dra/performance-config.yaml``:
SchedulingWithResourceClaimTemplate (500 nodes ``scheduler-perf-dra-<i>``, each with a
ResourceSlice of 10 devices of driver ``test-driver.cdi.k8s.io``, DeviceClass ``test-class``,
ResourceClaimTemplate ``test-claim-template`` in namespaces ``init`` and ``test``, 2,500 pods placed
and 2,500 measured, each with a claim from the template; upstream threshold 56 pods/s) and
SchedulingWithResourceClaim (500 nodes with 2 devices, 500 + 500 named claims each shared by
5 pods). Every pod goes through the ResourceClaim controller when it is created, then through
the default profile with DynamicResources.

Run: ``.venv/bin/python benchmarks/dra_scheduling.py [SchedulingWithResourceClaimTemplate|SchedulingWithResourceClaim ...]
[--nodes N] [--init-pods N] [--pods N] [--devices N] [--keep-traces N] [--no-cel-timing] [--profile [TOP]]``
(default: both workloads; ``kschedlab bench SchedulingWithResourceClaimTemplate -o json`` runs
the same without CEL timing).  Prints one JSON line per workload with pods_per_second beside
upstream_threshold, their CPU-time twins, and the CEL share: ``cel_evaluations``,
``cel_seconds`` (selector evaluations timed by ``kschedlab.api.dracel.evaluation_timer``) and
``cel_share`` of the measured CPU time; the workload's floor
(``kschedlab.scheduler_perf.dra.dra_floor``, run after it in the same process) as
``reference_pods_per_cpu_second``, ``reference_ratio`` (floor / workload, per CPU second) and
``reference_same_placements`` (every pod on the same node and device); the load average.
``--yardstick`` also runs SchedulingBasic (pod-default.yaml pods, no claims) with the workload's
node and pod counts in the same process, after it: ``yardstick_pods_per_cpu_second`` and
``yardstick_ratio`` (its rate over the workload's, per CPU second): the simple pod at the same
size, what a DRA pod whose claim is allocated already cannot beat.
``--profile`` adds a cProfile of the measured pods (top TOP functions by cumulative time,
default 20) on stderr.  Numbers are for reading, never asserted.
"""

import argparse
import cProfile
import io
import json
import os
import pstats
import sys

from kschedlab.scheduler_perf import DRA_WORKLOADS, run_dra_workload, run_workload


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("workloads", nargs="*", metavar="WORKLOAD",
                        help=f"of {', '.join(DRA_WORKLOADS)} (default: all)")
    parser.add_argument("--nodes", type=int, help="nodes with a ResourceSlice (default: the workload's)")
    parser.add_argument("--init-pods", type=int)
    parser.add_argument("--pods", type=int, help="measured pods")
    parser.add_argument("--devices", type=int, help="devices per node (upstream maxClaimsPerNode)")
    parser.add_argument("--keep-traces", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-cel-timing", action="store_true", help="do not time selector evaluations")
    parser.add_argument("--yardstick", action="store_true",
                        help="also run SchedulingBasic at the same node and pod counts, report its rate and ratio")
    parser.add_argument("--profile", type=int, nargs="?", const=20, metavar="TOP",
                        help="cProfile the measured pods, print the TOP functions by cumulative time")
    args = parser.parse_args(argv)
    unknown = [w for w in args.workloads if w not in DRA_WORKLOADS]
    if unknown:
        parser.error(f"unknown workload(s) {', '.join(unknown)}; known: {', '.join(DRA_WORKLOADS)}")
    for name in args.workloads or list(DRA_WORKLOADS):
        profile = cProfile.Profile() if args.profile else None
        result = run_dra_workload(name, nodes=args.nodes, init_pods=args.init_pods, measure_pods=args.pods,
                                  max_claims_per_node=args.devices, keep_traces=args.keep_traces, seed=args.seed,
                                  cel_timing=not args.no_cel_timing, profile=profile,
                                  progress=sys.stderr.isatty(), reference=True)
        placements, floor = result.pop("placements"), result.pop("reference_placements")
        result["reference_same_placements"] = placements == floor
        if args.yardstick:
            basic = run_workload("SchedulingBasic", nodes=result["nodes"], init_pods=result["init_pods"],
                                 measure_pods=result["pods"], keep_traces=args.keep_traces, seed=args.seed)
            rate = basic["pods_per_cpu_second"]
            result["yardstick_pods_per_cpu_second"] = rate
            result["yardstick_ratio"] = round(rate / result["pods_per_cpu_second"], 2) \
                if rate and result["pods_per_cpu_second"] else None
        print(json.dumps({**result, "load_average": os.getloadavg()[0]}), flush=True)
        if profile is not None:
            out = io.StringIO()
            pstats.Stats(profile, stream=out).sort_stats("cumulative").print_stats(args.profile)
            print(f"== {name}: cProfile of the measured pods (cumulative)", file=sys.stderr)
            print(out.getvalue(), file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
