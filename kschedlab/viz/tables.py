"""Plain pandas tables of a cluster and of scheduling results (for notebooks and reports).

>>> from kschedlab import Cluster, Scheduler
>>> from kschedlab.scenarios import path
>>> cluster = Cluster.from_manifests(path("default"))
>>> nodes_table(cluster).loc["gpu-b3", ["zone", "cpu", "nvidia.com/gpu", "taints"]].tolist()
['zone-b', '16', '4', 'nvidia.com/gpu=present:NoSchedule']
>>> results_table(Scheduler(cluster).run()).loc["default/web-0", "node"]
'node-a1'
"""

from __future__ import annotations

from typing import Iterable

import pandas as pd

from kschedlab.api.resources import CPU, MEMORY, PODS, pod_requests
from kschedlab.cluster import BASE_RESOURCES
from kschedlab.viz.common import human, live_rows
from kschedlab.viz.figures import zone_label

__all__ = ["nodes_table", "pods_table", "results_table"]


def nodes_table(cluster) -> pd.DataFrame:
    """One row per node: zone, allocatable cpu / memory / extended resources, requested, taints, cordoned."""
    snap = cluster.snapshot
    rows = live_rows(snap)
    extended = [r for r in snap.resources if r not in BASE_RESOURCES and snap.allocatable[snap.res_index[r], rows].any()]
    records = []
    for row in rows:
        node = snap.nodes[row]
        rec = {"node": snap.names[row], "zone": zone_label(node)}
        for name in (CPU, MEMORY, *extended):
            rec[name] = human(snap.allocatable[snap.res_index[name], row], name)
        rec["requested cpu"] = human(snap.requested[snap.res_index[CPU], row], CPU)
        rec["requested memory"] = human(snap.requested[snap.res_index[MEMORY], row], MEMORY)
        rec["pods"] = f"{int(snap.pod_count[row])}/{int(snap.allocatable[snap.res_index[PODS], row])}"
        taints = snap.taint_sets[int(snap.taint_group[row])]
        rec["taints"] = ", ".join(f"{t.key}{'=' + t.value if t.value else ''}:{t.effect}" for t in taints)
        rec["cordoned"] = bool(snap.unschedulable[row])
        records.append(rec)
    return pd.DataFrame.from_records(records).set_index("node")


def pods_table(cluster) -> pd.DataFrame:
    """One row per pod: node (empty when pending), cpu / memory requests, other requests, priority."""
    records = []
    for key, pod in cluster.pods.items():
        reqs = pod_requests(pod)
        other = ", ".join(f"{k}={human(v, k)}" for k, v in sorted(reqs.items()) if k not in (CPU, MEMORY))
        records.append({"pod": key, "node": pod.spec.node_name or "", "cpu": human(reqs.get(CPU, 0), CPU),
                        "memory": human(reqs.get(MEMORY, 0), MEMORY), "other requests": other,
                        "priority": pod.spec.priority if pod.spec.priority is not None else 0})
    return pd.DataFrame.from_records(records, columns=["pod", "node", "cpu", "memory", "other requests",
                                                       "priority"]).set_index("pod")


def results_table(results: Iterable) -> pd.DataFrame:
    """One row per scheduling result: the node (empty when unscheduled) and the message."""
    records = [{"pod": r.pod, "node": r.node or "", "status": r.status.code.name, "message": r.message}
               for r in results]
    return pd.DataFrame.from_records(records, columns=["pod", "node", "status", "message"]).set_index("pod")
