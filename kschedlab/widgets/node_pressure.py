"""EvictionRankingExplorer: change one pod's memory usage and see where the kubelet would
rank it for eviction under memory pressure (:func:`kschedlab.viz.kubelet_eviction.ranking_with_usage`)
and, given the node's memory capacity, which container the kernel's OOM killer would kill if
memory ran out first (:func:`kschedlab.kubelet.oom.oom_ranking_table`).

>>> from pathlib import Path
>>> from kschedlab.api.core import Pod
>>> from kschedlab.api.loader import load
>>> from kschedlab.api.nodestats import NodeStatsSummary
>>> objs = load(Path(__file__).resolve().parents[2] / "datasets" / "kubelet" / "13-memory-pressure-ranking.yaml")
>>> pods = [o for o in objs if isinstance(o, Pod)]
>>> stats = next(o for o in objs if isinstance(o, NodeStatsSummary)).summary()["pods"]
>>> ex = EvictionRankingExplorer(pods, stats, "api-burstable-under", max_mib=2048)
>>> ex.position
6
>>> ex.set(1100).position     # 76Mi over its 1Gi request: ahead of the 50Mi-over pod of the same priority
3
>>> ex
EvictionRankingExplorer(pod='api-burstable-under', usage=1100Mi, position=3)
>>> ex = EvictionRankingExplorer(pods, stats, "api-burstable-under", memory_capacity=8 * 2**30)
>>> ex.oom_victim, ex.set(2048).oom_victim     # at 2Gi (1Gi over its request) the kernel picks it
('default/batch-burstable-over', 'default/api-burstable-under')
"""

from __future__ import annotations

from typing import Mapping, Sequence

import ipywidgets as widgets

from kschedlab.kubelet.oom import oom_ranking_table
from kschedlab.kubelet.ranking import memory_usage
from kschedlab.viz.common import esc
from kschedlab.viz.kubelet_eviction import ranking_with_usage, with_memory_usage
from kschedlab.widgets._display import set_quietly, table_html

__all__ = ["EvictionRankingExplorer"]

_MI = 2**20


class EvictionRankingExplorer(widgets.VBox):
    """A slider for the memory working set (MiB) of the pod named ``pod`` among ``pods``
    (their summary-API stats ``pod_stats``); it shows the eviction ranking for ``signal`` with
    the reason of every position. ``position`` is the pod's rank (1: evicted first); ``table``
    the latest ranking. With ``memory_capacity`` (bytes) it also shows the OOM killer's table
    for the same usage (``oom_table``, ``oom_victim``: the pod whose container it kills). The
    pods and stats passed in are not changed; names are escaped."""

    def __init__(self, pods: Sequence, pod_stats: Sequence[Mapping], pod: str, *, max_mib: int = 2048,
                 signal: str = "memory.available", memory_capacity: int | None = None):
        self.pods, self.pod_stats, self.pod, self.signal = list(pods), list(pod_stats), pod, signal
        current = next((s for s in self.pod_stats if (s.get("podRef") or {}).get("name") == pod), None)
        if current is None:
            raise KeyError(f"no stats for pod {pod}")
        meta = next((p.metadata for p in self.pods if p.metadata.name == pod), None)
        if meta is None:
            raise KeyError(f"no pod {pod} among the pods")
        # the ranking table names a pod namespace/name (name alone without a namespace)
        self._key = f"{meta.namespace}/{meta.name}" if meta.namespace else meta.name
        self.usage = widgets.IntSlider(value=memory_usage(current) // _MI, min=0, max=max_mib, step=1,
                                       description=f"{pod} usage (Mi)", continuous_update=False,
                                       style={"description_width": "220px"}, layout=widgets.Layout(width="640px"))
        self.summary = widgets.HTML()
        self.ranking = widgets.HTML()
        self.table = None
        self.position = None
        self.memory_capacity = memory_capacity
        self.oom = widgets.HTML()
        self.oom_table = None
        self.oom_victim = None
        super().__init__(children=[self.usage, self.summary, self.ranking, self.oom])
        self.add_class("kschedlab-EvictionRankingExplorer")  # a handle for the browser test
        self.usage.observe(self.update, names="value")
        self.update()

    def set(self, mib: int) -> "EvictionRankingExplorer":
        """Set the slider (MiB) and redraw once (for scripts and tests)."""
        set_quietly(self.usage, mib, self.update)
        self.update()
        return self

    def update(self, *_) -> None:
        """Re-rank with the slider's usage and redraw."""
        self.table = ranking_with_usage(self.pods, self.pod_stats, {self.pod: self.usage.value * _MI}, self.signal)
        keys = list(self.table["pod"])
        self.position = keys.index(self._key) + 1
        self.summary.value = (f"<b>{esc(self.pod)}</b> using {self.usage.value}Mi ranks "
                              f"<b>{self.position}</b> of {len(keys)}; evicted first: <b>{esc(keys[0])}</b>")
        self.ranking.value = table_html(self.table, f"eviction order for {self.signal}")
        if self.memory_capacity:
            import pandas as pd

            rows = oom_ranking_table(self.pods, with_memory_usage(self.pod_stats, {self.pod: self.usage.value * _MI}),
                                     self.memory_capacity)
            self.oom_table = pd.DataFrame(rows)
            self.oom_victim = next((r["pod"] for r in rows if r["killed"]), None)
            cols = ["rank", "pod", "container", "qos", "oomScoreAdj", "badness", "killed"]
            self.oom.value = table_html(self.oom_table[cols] if rows else self.oom_table,
                                        "if memory ran out first: the kernel's OOM killer (highest badness dies)")

    def __repr__(self) -> str:
        return f"EvictionRankingExplorer(pod={self.pod!r}, usage={self.usage.value}Mi, position={self.position})"
