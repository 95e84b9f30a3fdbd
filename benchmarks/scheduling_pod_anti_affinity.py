"""SchedulingPodAntiAffinity (upstream scheduler_perf): 5,000 nodes, 1,000 pods with required
anti-affinity (color=green, per hostname) placed in sched-0, 2,000 more measured in sched-1.

Run: ``.venv/bin/python benchmarks/scheduling_pod_anti_affinity.py``
(same as ``kschedlab bench SchedulingPodAntiAffinity -o json``).
Prints one JSON line with pods_per_second, the rates over the first and the last 1,000 measured
pods and peak_rss_mb. Numbers are for reading, never asserted.
"""

import json
import sys

from kschedlab.scheduler_perf import run_workload

if __name__ == "__main__":
    keep = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    print(json.dumps(run_workload("SchedulingPodAntiAffinity", keep_traces=keep)))
