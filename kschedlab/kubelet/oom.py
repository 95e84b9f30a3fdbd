"""The kernel's OOM killer: which container process dies when memory runs out before the
kubelet could evict (Linux ``mm/oom_kill.c`` ``oom_badness`` / ``select_bad_process``, with
the ``oom_score_adj`` the kubelet gives each container, :mod:`kschedlab.kubelet.qos_policy`).

The kernel scores every process it may kill, in pages::

    badness = rss + swap + page_tables / PAGE_SIZE  +  oom_score_adj * (totalpages // 1000)

``totalpages`` is the memory of the domain that ran out: RAM plus swap for the whole node,
or the cgroup's limit for a cgroup OOM (the ``kubepods`` cgroup of node allocatable, or one
container's memory limit). Note ``totalpages // 1000`` is taken first, as the kernel
does. A process with ``oom_score_adj == -1000`` is never chosen. The highest badness dies;
on a tie the process met later in the kernel's walk (the one started later) wins.
``/proc/PID/oom_score`` shows ``(1000 + badness * 1000 // totalpages) * 2 // 3`` (0..2000
scaled to 0..1333).

Since the kubelet sets ``oom_score_adj`` = 1000 for BestEffort, ``1000 - 1000*request/capacity``
for Burstable and -997 for Guaranteed and node-critical pods, ``oom_score_adj *
totalpages/1000`` reads as "pretend this container already uses that fraction of the node":
a BestEffort container counts as using the whole node on top of its RSS; a Burstable one as
using everything but its request. So the seed's rule -- low-QoS containers that use much
more than they requested die first -- is arithmetic, not policy.

Unlike a kubelet eviction, an OOM kill ends one container (``terminated``, reason
``OOMKilled``, exit code 137 = 128 + SIGKILL) and the pod's ``restartPolicy`` decides
whether it starts again; the pod keeps its node.

Not modelled: the pause (sandbox) process (-998, a few hundred KiB), the kubelet and the
container runtime (-999), other system daemons, and cgroup v2's ``memory.oom.group`` (the
kubelet sets it, so a container's processes die together: here a container is one process).

>>> from kschedlab.api.core import Pod
>>> def pod(name, req=None, lim=None):
...     res = {k: {"cpu": "1", "memory": v} if lim else {"memory": v}
...            for k, v in (("requests", req), ("limits", lim)) if v}
...     return Pod.model_validate({"metadata": {"name": name, "uid": name},
...                                "spec": {"containers": [{"name": "app", "resources": res}]}})
>>> pods = [pod("guaranteed", "3Gi", "3Gi"), pod("burstable", "1Gi"), pod("besteffort")]
>>> stats = [{"podRef": {"uid": n}, "containers": [{"name": "app", "memory": {"workingSetBytes": w * 2**30}}]}
...          for n, w in (("guaranteed", 3), ("burstable", 4), ("besteffort", 1))]
>>> [(r["pod"], r["oomScoreAdj"], r["badness"]) for r in oom_ranking_table(pods, stats, 8 * 2**30)]
[('burstable', 875, 2883451), ('besteffort', 1000, 2359144), ('guaranteed', -997, -1304277)]

The Burstable container dies first: it uses 3 GiB above its 1 GiB request, more than the
BestEffort one's whole 1 GiB.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from .qos_policy import container_oom_score_adjust
from .ranking import PodStatsIndex

__all__ = ["PAGE_SIZE", "OOM_SCORE_ADJ_MIN", "OOM_SCORE_ADJ_MAX", "OOM_KILLED_REASON", "OOM_KILLED_EXIT_CODE",
           "OOM_GLOBAL", "OOM_KUBEPODS", "OOM_CONTAINER", "oom_badness", "proc_oom_score", "OomProcess",
           "oom_processes", "select_bad_process", "oom_ranking_table", "oom_ranking_frame"]

#: bytes per page on x86-64 / arm64 with 4 KiB pages
PAGE_SIZE = 4096
OOM_SCORE_ADJ_MIN = -1000
OOM_SCORE_ADJ_MAX = 1000
#: ``containerStatuses[].state.terminated.reason`` of a container the kernel killed
OOM_KILLED_REASON = "OOMKilled"
#: 128 + SIGKILL (9)
OOM_KILLED_EXIT_CODE = 137

#: the three memory domains that can run out, as the simulation names them
OOM_GLOBAL = "node"
OOM_KUBEPODS = "kubepods"
OOM_CONTAINER = "container"


def oom_badness(rss_bytes: int, oom_score_adj: int, totalpages: int, *, swap_bytes: int = 0,
                page_table_bytes: int = 0) -> int | None:
    """The kernel's ``oom_badness`` of one process (None: never killed, ``oom_score_adj`` -1000).

    >>> oom_badness(2**30, 0, 2**21)          # 1 GiB of RSS on an 8 GiB node: its pages
    262144
    >>> oom_badness(2**30, 1000, 2**21)       # BestEffort: plus 1000 * (2097152 // 1000)
    2359144
    >>> oom_badness(2**30, -1000, 2**21) is None
    True
    """
    if not OOM_SCORE_ADJ_MIN <= oom_score_adj <= OOM_SCORE_ADJ_MAX:
        raise ValueError(f"oom_score_adj must be in [-1000, 1000], got {oom_score_adj}")
    if oom_score_adj == OOM_SCORE_ADJ_MIN:
        return None
    points = rss_bytes // PAGE_SIZE + swap_bytes // PAGE_SIZE + page_table_bytes // PAGE_SIZE
    return points + oom_score_adj * (totalpages // 1000)


def _c_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def proc_oom_score(badness: int | None, totalpages: int) -> int:
    """What ``/proc/PID/oom_score`` shows for a badness (C's truncating division).

    >>> proc_oom_score(2359144, 2**21), proc_oom_score(262144, 2**21), proc_oom_score(None, 2**21)
    (1416, 750, 0)
    """
    if badness is None:
        return 0
    return _c_div((1000 + _c_div(badness * 1000, totalpages)) * 2, 3)


@dataclass(frozen=True)
class OomProcess:
    """One container's main process as the OOM killer sees it."""

    pod: str
    container: str
    qos: str
    memory_request: int
    memory_limit: int | None
    rss: int
    oom_score_adj: int
    badness: int | None
    oom_score: int
    #: position in the kernel's walk (start order); a tie goes to the later one
    order: int


def _pod_name(pod) -> str:
    ns = pod.metadata.namespace
    return f"{ns}/{pod.metadata.name}" if ns else pod.metadata.name


def _mem(container, kind: str) -> int | None:
    res = container.resources
    q = getattr(res, kind).get("memory") if res is not None else None
    return q.value() if q is not None else None


def oom_processes(pods: Sequence, pod_stats: Iterable[Mapping[str, Any]] | PodStatsIndex, memory_capacity: int,
                  totalpages: int | None = None) -> list[OomProcess]:
    """Every container process of ``pods`` (in the order given = start order) with its RSS
    (the container's working set in ``pod_stats``, summary-API form; a container without
    stats uses nothing), the ``oom_score_adj`` the kubelet set on a node of
    ``memory_capacity`` bytes, and its badness in a domain of ``totalpages`` pages
    (a pod with one container and pod-level stats only: the pod's working set)
    (default: the node, ``memory_capacity // PAGE_SIZE``)."""
    index = pod_stats if isinstance(pod_stats, PodStatsIndex) else PodStatsIndex(pod_stats)
    pages = memory_capacity // PAGE_SIZE if totalpages is None else totalpages
    out: list[OomProcess] = []
    for pod in pods:
        stats = index.get(pod) or {}
        used = {c.get("name"): ((c.get("memory") or {}).get("workingSetBytes") or 0)
                for c in stats.get("containers") or [] if (c.get("memory") or {}).get("workingSetBytes") is not None}
        if not used and len(pod.spec.containers) == 1 and (stats.get("memory") or {}).get("workingSetBytes"):
            # stats of the pod alone: its one container holds it
            used = {pod.spec.containers[0].name: stats["memory"]["workingSetBytes"]}
        for c in [*pod.spec.init_containers, *pod.spec.containers]:
            if c.name not in used and any(c is i for i in pod.spec.init_containers):
                continue  # an init container that is not running has no process
            adj = container_oom_score_adjust(pod, c, memory_capacity)
            rss = int(used.get(c.name, 0))
            badness = oom_badness(rss, adj, pages)
            out.append(OomProcess(_pod_name(pod), c.name, pod.qos_class(), _mem(c, "requests") or 0,
                                  _mem(c, "limits"), rss, adj, badness, proc_oom_score(badness, pages), len(out)))
    return out


def select_bad_process(processes: Sequence[OomProcess]) -> OomProcess | None:
    """The process the kernel kills: the highest badness; on a tie the later one; None when
    every process is exempt (``oom_score_adj`` -1000) -- the kernel then panics.

    >>> a = OomProcess("a", "c", "BestEffort", 0, None, 4096, 0, 1, 0, 0)
    >>> select_bad_process([a, OomProcess("b", "c", "BestEffort", 0, None, 4096, 0, 1, 0, 1)]).pod
    'b'
    """
    chosen = None
    for p in processes:
        if p.badness is None:
            continue
        if chosen is None or p.badness >= chosen.badness:
            chosen = p
    return chosen


def oom_ranking_table(pods: Sequence, pod_stats: Iterable[Mapping[str, Any]] | PodStatsIndex, memory_capacity: int,
                      totalpages: int | None = None) -> list[dict]:
    """The OOM killer's view as rows, the victim first (highest badness; ties: later
    process first; exempt processes last), with the reason in words; see the module docstring."""
    procs = oom_processes(pods, pod_stats, memory_capacity, totalpages)
    pages = memory_capacity // PAGE_SIZE if totalpages is None else totalpages
    ordered = sorted(procs, key=lambda p: (p.badness is None, -(p.badness or 0), -p.order))
    victim = select_bad_process(procs)
    rows = []
    for rank, p in enumerate(ordered, 1):
        if p.badness is None:
            why = "oom_score_adj -1000: never killed"
        else:
            adj_pages = p.oom_score_adj * (pages // 1000)
            why = (f"{p.rss // PAGE_SIZE} pages of RSS {'+' if adj_pages >= 0 else '-'} {abs(adj_pages)} "
                   f"for oom_score_adj {p.oom_score_adj} ({p.qos})")
        rows.append({"rank": rank, "pod": p.pod, "container": p.container, "qos": p.qos,
                     "memoryRequest": p.memory_request, "memoryLimit": p.memory_limit, "rss": p.rss,
                     "oomScoreAdj": p.oom_score_adj, "badness": p.badness, "oomScore": p.oom_score,
                     "killed": p is victim, "reason": why})
    return rows


def oom_ranking_frame(pods: Sequence, pod_stats: Iterable[Mapping[str, Any]] | PodStatsIndex, memory_capacity: int,
                      totalpages: int | None = None):
    """:func:`oom_ranking_table` as a ``pandas.DataFrame`` indexed by rank."""
    import pandas as pd

    return pd.DataFrame(oom_ranking_table(pods, pod_stats, memory_capacity, totalpages)).set_index("rank")
