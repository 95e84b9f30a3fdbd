"""PreemptionBasic (upstream scheduler_perf, default_preemption): 5,000 nodes filled by 20,000
low-priority pods (900m each), then 5,000 high-priority pods (3970m) measured, each of which must
preempt the four pods of one node before it binds.

Run: ``.venv/bin/python benchmarks/preemption_basic.py [keep_traces] [nodes init_pods measure_pods]``
(same as ``kschedlab bench PreemptionBasic``; upstream's enabled case is
``benchmarks/preemption_basic.py 1000 1000 4000 1000``).  Prints one JSON line with
pods_per_second, attempts, preemptions, victims and peak_rss_mb.  Numbers are for reading, never
asserted.
"""

import json
import sys

from kschedlab.scheduler_perf import run_workload

if __name__ == "__main__":
    keep = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    sizes = [int(a) for a in sys.argv[2:5]]
    nodes, init_pods, measure_pods = sizes if len(sizes) == 3 else (None, None, None)
    print(json.dumps(run_workload("PreemptionBasic", keep_traces=keep, nodes=nodes, init_pods=init_pods,
                                  measure_pods=measure_pods)))
