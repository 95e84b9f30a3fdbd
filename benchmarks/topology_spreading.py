"""TopologySpreading (upstream scheduler_perf): 5,000 nodes in zones moon-1..moon-3, 5,000
pod-default pods placed, 5,000 pods spreading over zones (maxSkew 5, DoNotSchedule) measured.

Run: ``.venv/bin/python benchmarks/topology_spreading.py`` (same as ``kschedlab bench TopologySpreading -o json``).
Prints one JSON line with pods_per_second, the rates over the first and the last 1,000 measured
pods and peak_rss_mb. Numbers are for reading, never asserted.
"""

import json
import sys

from kschedlab.scheduler_perf import run_workload

if __name__ == "__main__":
    keep = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    print(json.dumps(run_workload("TopologySpreading", keep_traces=keep)))
