"""Throughput workloads shaped like upstream's scheduler_perf (test/integration/scheduler_perf),
one module per workload family as upstream keeps one ``performance-config.yaml`` per directory:

* :mod:`.workloads` — the pod workloads (SchedulingBasic, pod (anti-)affinity, TopologySpreading,
  PreemptionBasic, the churn workloads) and :func:`run_workload`, which reaches every workload by name;
* :mod:`.gang` — ``podgroup/gangscheduling`` and ``podgroup/tas`` (:func:`run_gang_workload`);
* :mod:`.dra` — ``dra/performance-config.yaml`` (:func:`run_dra_workload`);
* :mod:`.bench` — every shape at once (``kschedlab bench``) and the scaling runs;
* :mod:`.templates` — upstream's node and pod templates and the ``createNodes`` / ``createPods`` ops;
* :mod:`.measure` — rates over windows, latency percentiles, peak memory.

The names below are the package's API (``from kschedlab.scheduler_perf import run_workload``).

>>> r = run_workload("SchedulingBasic", nodes=20, init_pods=10, measure_pods=30)
>>> r["pods"], r["scheduled"]
(30, 30)
"""

from kschedlab.scheduler_perf.bench import BENCH_SHAPES, bench_table, run_bench, run_shape, scaling_runs
from kschedlab.scheduler_perf.dra import (
    DRA_WORKLOADS,
    DRAWorkload,
    dra_resource_slice,
    make_dra_nodes,
    make_dra_objects,
    make_dra_pods,
    run_dra_workload,
)
from kschedlab.scheduler_perf.gang import (
    GANG_WORKLOADS,
    LABEL_RACK,
    GangWorkload,
    group_sizes,
    groups_for_pods,
    make_domain_nodes,
    make_gang_pods,
    make_pod_groups,
    run_gang_workload,
)
from kschedlab.scheduler_perf.measure import MEASURED_GC_THRESHOLDS, peak_rss_mb
from kschedlab.scheduler_perf.templates import (
    LABEL_HOSTNAME,
    LABEL_ZONE,
    NODE_DEFAULT,
    POD_DEFAULT,
    POD_HIGH_PRIORITY,
    POD_HIGH_PRIORITY_LARGE_CPU,
    POD_LOW_PRIORITY,
    POD_WITH_POD_AFFINITY,
    POD_WITH_POD_ANTI_AFFINITY,
    POD_WITH_TOPOLOGY_SPREADING,
    make_nodes,
    make_pods,
)
from kschedlab.scheduler_perf.workloads import WORKLOADS, Churn, Workload, numpy_reference, run_workload

__all__ = [
    "BENCH_SHAPES", "bench_table", "run_bench", "run_shape", "scaling_runs",
    "DRA_WORKLOADS", "DRAWorkload", "dra_resource_slice", "make_dra_nodes", "make_dra_objects", "make_dra_pods",
    "run_dra_workload",
    "GANG_WORKLOADS", "LABEL_RACK", "GangWorkload", "group_sizes", "groups_for_pods", "make_domain_nodes", "make_gang_pods",
    "make_pod_groups", "run_gang_workload",
    "MEASURED_GC_THRESHOLDS", "peak_rss_mb",
    "LABEL_HOSTNAME", "LABEL_ZONE", "NODE_DEFAULT", "POD_DEFAULT", "POD_HIGH_PRIORITY", "POD_HIGH_PRIORITY_LARGE_CPU", "POD_LOW_PRIORITY",
    "POD_WITH_POD_AFFINITY", "POD_WITH_POD_ANTI_AFFINITY", "POD_WITH_TOPOLOGY_SPREADING", "make_nodes", "make_pods",
    "WORKLOADS", "Churn", "Workload", "numpy_reference", "run_workload",
]
