"""SchedulingBasic (upstream scheduler_perf): 5,000 nodes, 1,000 pods placed, 10,000 pods measured.

Run: ``.venv/bin/python benchmarks/scheduling_basic.py [keep_traces]`` (``kschedlab bench SchedulingBasic``
plus the yardstick). Prints one JSON line with pods_per_second, peak_rss_mb and, from the same run, the
minimal numpy loop's rate (``reference_pods_per_cpu_second``, :func:`kschedlab.scheduler_perf.numpy_reference`)
and ``reference_ratio`` (its rate over the scheduler's, both per CPU second). Numbers are for reading, never
asserted.
"""

import json
import sys

from kschedlab.scheduler_perf import run_workload

if __name__ == "__main__":
    keep = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    print(json.dumps(run_workload("SchedulingBasic", keep_traces=keep, reference=True)))
