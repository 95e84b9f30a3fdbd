"""Tables for node-pressure eviction (notebook 13): the eviction signals with the node
condition and taint each one drives, ``oom_score_adj`` per container, and the eviction
ranking with one pod's usage changed ("what if this pod used more memory?").

Read only, like the rest of :mod:`kschedlab.viz`: the pods and stats passed in are not changed.

>>> t = signals_table()
>>> t.loc["memory.available", ["node condition", "taint"]].tolist()
['MemoryPressure', 'node.kubernetes.io/memory-pressure:NoSchedule']
>>> t.loc["pid.available", "resource"]
'pids'
"""

from __future__ import annotations

import copy
from typing import Iterable, Mapping, Sequence

from kschedlab.eviction.taint_manager import NODE_CONDITION_TO_TAINT
from kschedlab.kubelet.qos_policy import pod_oom_score_adjusts
from kschedlab.kubelet.ranking import LAYOUT_SINGLE, LAYOUTS, layout_flags, rank_spec, ranking_frame
from kschedlab.kubelet.reclaim import build_signal_to_node_reclaim_funcs
from kschedlab.kubelet.signals import SIGNAL_TO_NODE_CONDITION, SIGNAL_TO_RESOURCE, SIGNALS

__all__ = ["SIGNAL_SOURCES", "LAYOUT_NAMES", "signals_table", "disk_layouts_table", "oom_score_table",
           "with_memory_usage", "ranking_with_usage"]

#: where the kubelet reads each signal (summary API, Linux); ``capacity`` is what a percentage is of
SIGNAL_SOURCES = {
    "memory.available": "node.memory.availableBytes = capacity - workingSet (cgroupfs, inactive_file excluded)",
    "allocatableMemory.available": "the same for the 'pods' cgroup (node allocatable)",
    "nodefs.available": "node.fs.availableBytes of capacityBytes",
    "nodefs.inodesFree": "node.fs.inodesFree of inodes",
    "imagefs.available": "node.runtime.imageFs.availableBytes of capacityBytes",
    "imagefs.inodesFree": "node.runtime.imageFs.inodesFree of inodes",
    "containerfs.available": "node.runtime.containerFs.availableBytes of capacityBytes",
    "containerfs.inodesFree": "node.runtime.containerFs.inodesFree of inodes",
    "pid.available": "node.rlimit.maxpid - node.rlimit.curproc",
}


def signals_table():
    """Every eviction signal (index) with the resource it measures, where the kubelet reads it,
    the node condition it sets and the NoSchedule taint the node lifecycle controller maps
    that condition to."""
    import pandas as pd

    rows = []
    for s in SIGNALS:
        cond = SIGNAL_TO_NODE_CONDITION[s]
        taint = NODE_CONDITION_TO_TAINT.get(cond, {}).get("True")
        rows.append({"signal": s, "resource": SIGNAL_TO_RESOURCE[s], "what the kubelet reads": SIGNAL_SOURCES[s],
                     "node condition": cond, "taint": f"{taint}:NoSchedule" if taint else None})
    return pd.DataFrame(rows).set_index("signal")


#: the docs' names of the kubelet's filesystem layouts
LAYOUT_NAMES = {"single": "one filesystem (nodefs)", "imagefs": "separate imagefs (split disk)",
                "split": "imagefs + containerfs (split image)"}


def disk_layouts_table():
    """For each disk signal (rows) and filesystem layout (columns): what node-level reclaim the
    kubelet tries first (``reclaim``; "(none)": straight to evicting pods) and which pod usage it ranks pods by (``ranks by``; the
    summary-API filesystem stats summed: ``images``, ``root`` = writable layer, ``logs``,
    ``localVolumeSource`` = local volumes).

    >>> t = disk_layouts_table()
    >>> t.loc["imagefs.available", ("imagefs + containerfs (split image)", "reclaim")]
    'DeleteUnusedImages'
    >>> t.loc["nodefs.available", ("separate imagefs (split disk)", "reclaim")]
    '(none)'
    >>> t.loc["nodefs.available", ("separate imagefs (split disk)", "ranks by")]
    'ephemeral-storage: logs+localVolumeSource'
    """
    import pandas as pd

    disk = [s for s in SIGNALS if SIGNAL_TO_RESOURCE[s] in ("ephemeral-storage", "inodes")]
    cols = {}
    for layout in LAYOUTS:
        reclaim = build_signal_to_node_reclaim_funcs(*layout_flags(layout))
        cols[(LAYOUT_NAMES[layout], "reclaim")] = {s: ", ".join(reclaim.get(s, ())) or "(none)" for s in disk}
        cols[(LAYOUT_NAMES[layout], "ranks by")] = {
            s: rank_spec(s, layout).describe().removeprefix("disk(").removesuffix(")") for s in disk}
    return pd.DataFrame(cols)


def oom_score_table(pods: Iterable, memory_capacity: int):
    """One row per container of ``pods``: the pod's QoS class, the container's memory
    request and the ``oom_score_adj`` the kubelet gives it on a node with ``memory_capacity``
    bytes, highest score (killed first by the kernel's OOM killer) first.

    >>> from kschedlab.api.core import Pod
    >>> be = Pod.model_validate({"metadata": {"name": "be"}, "spec": {"containers": [{"name": "c"}]}})
    >>> oom_score_table([be], 8 * 2**30)[["pod", "qos", "oom_score_adj"]].values.tolist()
    [['be', 'BestEffort', 1000]]
    """
    import pandas as pd

    rows = []
    for pod in pods:
        adjs = pod_oom_score_adjusts(pod, memory_capacity)
        for c in [*pod.spec.init_containers, *pod.spec.containers]:
            req = (c.resources.requests.get("memory") if c.resources else None)
            rows.append({"pod": pod.metadata.name, "container": c.name, "qos": pod.qos_class(),
                         "memory request": str(req) if req is not None else "0",
                         "oom_score_adj": adjs[c.name]})
    frame = pd.DataFrame(rows, columns=["pod", "container", "qos", "memory request", "oom_score_adj"])
    return frame.sort_values("oom_score_adj", ascending=False, kind="stable").reset_index(drop=True)


def with_memory_usage(pod_stats: Sequence[Mapping], changes: Mapping[str, int]) -> list[dict]:
    """A copy of the summary API's pod stats with the working set of the pods named in
    ``changes`` (pod name -> bytes) replaced, at pod level and spread over no container: a
    pod's containers keep their stats only when it has one container (which then gets it all).

    >>> stats = [{"podRef": {"name": "a", "uid": "a"}, "memory": {"workingSetBytes": 1}}]
    >>> with_memory_usage(stats, {"a": 5})[0]["memory"], stats[0]["memory"]
    ({'workingSetBytes': 5}, {'workingSetBytes': 1})
    >>> with_memory_usage(stats, {"b": 5})
    Traceback (most recent call last):
    ...
    KeyError: 'no stats for pod b'
    """
    out = copy.deepcopy([dict(s) for s in pod_stats])
    names = {(s.get("podRef") or {}).get("name") for s in out}
    for name in changes:
        if name not in names:
            raise KeyError(f"no stats for pod {name}")
    for s in out:
        name = (s.get("podRef") or {}).get("name")
        if name not in changes:
            continue
        s["memory"] = {**(s.get("memory") or {}), "workingSetBytes": int(changes[name])}
        containers = s.get("containers") or []
        if len(containers) == 1:
            containers[0]["memory"] = {**(containers[0].get("memory") or {}), "workingSetBytes": int(changes[name])}
        elif containers:
            s["containers"] = [{k: v for k, v in c.items() if k != "memory"} for c in containers]
    return out


def ranking_with_usage(pods: Sequence, pod_stats: Sequence[Mapping], changes: Mapping[str, int] | None = None,
                       signal: str = "memory.available", layout: str = LAYOUT_SINGLE):
    """:func:`kschedlab.kubelet.ranking_frame` after :func:`with_memory_usage`: the order the
    kubelet would evict ``pods`` in if the pods in ``changes`` used that much memory, with the
    reason of every position; sizes shown as quantities."""
    from kschedlab.api.quantity import short_bytes

    frame = ranking_frame(pods, with_memory_usage(pod_stats, changes or {}), signal, layout)
    for col in ("usage", "request", "aboveRequest"):
        frame[col] = [("-" + short_bytes(-v)) if v < 0 else short_bytes(v) for v in frame[col]]
    return frame[["pod", "qos", "priority", "usage", "request", "exceedsRequest", "aboveRequest", "reason"]]
