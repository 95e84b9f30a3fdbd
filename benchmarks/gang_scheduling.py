"""Gang (PodGroup) scheduling, shaped after upstream scheduler_perf's
``podgroup/gangscheduling`` (GangScheduling) and ``podgroup/tas`` (TopologyAwareScheduling):
5,000 nodes, PodGroups ``gang-0``.. with a gang policy (``minCount`` = the group's size, 8 to
64 pods drawn from the seed), each group scheduled whole through one PodGroup cycle; the
TopologyAwareScheduling variant labels nodes into racks of 100 (upstream's node.yaml) and gives
every group ``schedulingConstraints.topology: [{key: topology.kubernetes.io/rack}]`` with the
TopologyAwareWorkloadScheduling gate on.

Run: ``.venv/bin/python benchmarks/gang_scheduling.py [GangScheduling|TopologyAwareScheduling ...]
[--groups N] [--nodes N] [--sizes MIN MAX] [--keep-traces N] [--profile [TOP]]``
(default: both workloads; same as ``kschedlab bench GangScheduling -o json``).  Prints one JSON
line per workload with groups_per_second, pods_per_second, the group latency percentiles,
peak_rss_mb and the floor's rate and ``reference_ratio`` (:func:`kschedlab.perf_floors.gang_floor`, same
process); ``--profile`` adds a cProfile of the measured cycles (top TOP functions by
cumulative time, default 15) on stderr.  Numbers are for reading, never asserted.
"""

import argparse
import cProfile
import io
import json
import pstats
import sys

from kschedlab.scheduler_perf import GANG_WORKLOADS, run_gang_workload


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("workloads", nargs="*", metavar="WORKLOAD",
                        help=f"of {', '.join(GANG_WORKLOADS)} (default: all)")
    parser.add_argument("--groups", type=int, help="measured groups (default: the workload's)")
    parser.add_argument("--nodes", type=int)
    parser.add_argument("--sizes", type=int, nargs=2, metavar=("MIN", "MAX"), help="group sizes (default 8 64)")
    parser.add_argument("--nodes-per-domain", type=int, help="nodes per rack and zone (default 100)")
    parser.add_argument("--keep-traces", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--profile", type=int, nargs="?", const=15, metavar="TOP",
                        help="cProfile the measured cycles, print the TOP functions by cumulative time")
    args = parser.parse_args(argv)
    unknown = [w for w in args.workloads if w not in GANG_WORKLOADS]
    if unknown:
        parser.error(f"unknown workload(s) {', '.join(unknown)}; known: {', '.join(GANG_WORKLOADS)}")
    lo, hi = args.sizes or (None, None)
    for name in args.workloads or list(GANG_WORKLOADS):
        profile = cProfile.Profile() if args.profile else None
        result = run_gang_workload(name, nodes=args.nodes, groups=args.groups, min_size=lo, max_size=hi,
                                   nodes_per_domain=args.nodes_per_domain, keep_traces=args.keep_traces,
                                   seed=args.seed, profile=profile, reference=True,
                                   progress=sys.stderr.isatty())
        print(json.dumps(result), flush=True)
        if profile is not None:
            out = io.StringIO()
            pstats.Stats(profile, stream=out).sort_stats("cumulative").print_stats(args.profile)
            print(f"== {name}: cProfile of the measured cycles (cumulative)", file=sys.stderr)
            print(out.getvalue(), file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
