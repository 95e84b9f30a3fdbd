"""SchedulingBasic (upstream scheduler_perf): 5,000 nodes, 1,000 pods placed, 10,000 pods measured.

Run: ``.venv/bin/python benchmarks/scheduling_basic.py`` (same as ``kschedlab bench SchedulingBasic``).
Prints one JSON line with pods_per_second and peak_rss_mb. Numbers are for reading, never asserted.
"""

import json
import sys

from kschedlab.scheduler_perf import run_workload

if __name__ == "__main__":
    keep = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    print(json.dumps(run_workload("SchedulingBasic", keep_traces=keep)))
