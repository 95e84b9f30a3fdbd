"""SpreadExplorer: add pods to a cluster and watch the skew of a pod's topology spread
constraints move, domain by domain.

The widget keeps its own copy of the cluster and only wires controls to
:mod:`kschedlab.viz.spread`: :func:`~kschedlab.viz.spread.add_matching_pod` (an existing
replica appears on a node), :func:`~kschedlab.viz.spread.add_replica` + a real scheduling
cycle (the next replica is scheduled and bound, or stays Pending), and after every change
:func:`~kschedlab.viz.spread.topology_skew`, :func:`~kschedlab.viz.spread.spread_table` and
:func:`~kschedlab.viz.spread.probe` (where the pod would go now) are redrawn.

>>> from pathlib import Path
>>> from kschedlab import Cluster
>>> data = Path(__file__).resolve().parents[2] / "datasets" / "topology-spread"
>>> ex = SpreadExplorer(Cluster.from_manifests(data / "01-one-constraint.yaml"), "default/mypod")
>>> ex
SpreadExplorer(pod='default/mypod', zone: zoneA=2 zoneB=1, next -> zoneB)
>>> ex.add_pod("node4").counts()
{'zoneA': 2, 'zoneB': 2}
>>> ex.schedule().node in {"node1", "node2", "node3", "node4"}
True
>>> ex.set(max_skew=3).reset().counts()
{'zoneA': 2, 'zoneB': 1}
"""

from __future__ import annotations

import copy

import ipywidgets as widgets

from kschedlab.viz.common import esc
from kschedlab.viz.spread import (
    add_matching_pod,
    add_replica,
    probe,
    require_pending,
    spread_constraints,
    spread_table,
    topology_skew,
    with_constraint,
)
from kschedlab.widgets._display import set_figure, set_quietly, table_html

__all__ = ["SpreadExplorer"]


class SpreadExplorer(widgets.VBox):
    """Buttons to add a matching pod on a chosen node, to schedule the next replica of the
    pod (a copy, placed by the real scheduler), to undo everything; sliders for ``maxSkew``
    and ``minDomains`` of the pod's constraint ``constraint``. Below: where the pod would go
    now, the skew chart of every constraint and the table of the chosen one.

    ``cluster`` is a Cluster (deep-copied, never changed) or a zero-argument factory;
    ``pod`` the key of a pending pod in it with topology spread constraints (or defaults).
    ``cluster`` (attribute) is the widget's working copy, ``last`` the latest
    :func:`~kschedlab.viz.spread.probe` result, ``actions`` what was done.
    """

    def __init__(self, cluster, pod: str, *, constraint: int = 0, seed: int = 0):
        self._source = cluster
        self.pod = pod
        self.constraint = constraint
        self.seed = seed
        self.actions: list[str] = []
        self.last = None
        self._counter = 0
        self.cluster = self._fresh()
        require_pending(self.cluster, pod)
        own = self.cluster.pods[pod].spec.topology_spread_constraints
        first = own[constraint] if own else None
        style = {"description_width": "180px"}
        wide = widgets.Layout(width="490px")
        fit = widgets.Layout(width="auto")
        self.node = widgets.Dropdown(options=sorted(self.cluster.nodes), description="node", style=style,
                                     layout=wide)
        self.add_button = widgets.Button(description="add a matching pod", icon="plus", layout=fit)
        self.schedule_button = widgets.Button(description="schedule next replica", icon="play", layout=fit)
        self.reset_button = widgets.Button(description="reset", icon="undo", layout=fit)
        self.max_skew = widgets.IntSlider(value=int(first.max_skew) if first else 1, min=1, max=6,
                                          description="maxSkew", continuous_update=False, style=style,
                                          layout=wide, disabled=first is None)
        min_domains = int(first.min_domains) if first is not None and first.min_domains else 0
        self.min_domains = widgets.IntSlider(value=min_domains, min=0, max=6, description="minDomains (0=unset)",
                                             continuous_update=False, style=style, layout=wide,
                                             disabled=first is None or first.when_unsatisfiable != "DoNotSchedule")
        self.status = widgets.HTML()
        self.figure = widgets.Output()
        self.table = widgets.HTML()
        self.history = widgets.HTML()
        header = widgets.HTML(f"<b>SpreadExplorer</b>: pod <code>{esc(pod)}</code>")
        super().__init__(children=[
            header, widgets.HBox([self.node, self.add_button]),
            widgets.HBox([self.schedule_button, self.reset_button]), self.max_skew, self.min_domains,
            self.status, self.figure, self.table, self.history])
        self.add_button.on_click(lambda _: self.add_pod(self.node.value))
        self.schedule_button.on_click(lambda _: self.schedule())
        self.reset_button.on_click(lambda _: self.reset())
        for control in (self.max_skew, self.min_domains):
            control.observe(self._on_constraint, names="value")
        self.update()

    # -- state ------------------------------------------------------------------------------------
    def _fresh(self):
        source = self._source
        return source() if callable(source) and not hasattr(source, "snapshot") else copy.deepcopy(source)

    def _name(self, stem: str) -> str:
        self._counter += 1
        base = self.cluster.pods[self.pod].metadata.name
        return f"{base}-{stem}-{self._counter}"

    def _apply_constraint(self) -> None:
        """Put the slider values into the pending pod's constraint (only when they differ)."""
        pod = self.cluster.pods[self.pod]
        own = pod.spec.topology_spread_constraints
        if not own:
            return
        c = own[self.constraint]
        want_min = self.min_domains.value or None
        if c.max_skew == self.max_skew.value and c.min_domains == want_min:
            return
        changed = with_constraint(pod, {"maxSkew": self.max_skew.value, "minDomains": want_min}, self.constraint)
        self.cluster.remove_pod(self.pod)
        self.cluster.add(changed)

    # -- verbs --------------------------------------------------------------------------------------
    def add_pod(self, node: str) -> "SpreadExplorer":
        """Bind a pod with the labels of the pod to ``node`` (an existing replica)."""
        key = add_matching_pod(self.cluster, self.pod, node, self._name("on"))
        self.actions.append(f"added {key} on {node}")
        return self.update()

    def schedule(self):
        """Schedule a copy of the pod with the real scheduler (bound when it fits); returns the result."""
        from kschedlab.scheduler import Scheduler

        key = add_replica(self.cluster, self.pod, self._name("r"))
        result = Scheduler(self.cluster, seed=self.seed).schedule_one(key)
        if result.node:
            self.actions.append(f"scheduled {key} → {result.node}")
        else:
            self.cluster.remove_pod(key)
            self.actions.append(f"{key} stays Pending: {result.message}")
        self.update()
        return result

    def reset(self) -> "SpreadExplorer":
        """Back to the cluster the widget started from (slider values are kept)."""
        self.cluster = self._fresh()
        self.actions = []
        self._counter = 0
        return self.update()

    def set(self, *, max_skew: int | None = None, min_domains: int | None = None) -> "SpreadExplorer":
        """Set the sliders (``min_domains`` 0 = unset) and redraw once."""
        for control, value in ((self.max_skew, max_skew), (self.min_domains, min_domains)):
            if value is not None:
                set_quietly(control, value, self._on_constraint)
        return self.update()

    def _on_constraint(self, *_):
        self.update()

    def counts(self, constraint: int | None = None) -> dict[str, int]:
        """Matching pods per eligible domain of a constraint (default: the widget's)."""
        t = spread_table(self.cluster, self.pod, self.constraint if constraint is None else constraint)
        return {str(k): int(v) for k, v in t.loc[t["eligible"], "matching pods"].items()}

    # -- views ----------------------------------------------------------------------------------------
    def update(self, *_) -> "SpreadExplorer":
        """Apply the sliders, re-probe the pod and redraw every view."""
        try:
            self._apply_constraint()
            self.last = probe(self.cluster, self.pod, seed=self.seed)
            n = len(spread_constraints(self.cluster, self.pod))
        except (ValueError, KeyError, IndexError) as err:
            self.last = None
            self.status.value = f"<span style='color:#D55E00'>{esc(err)}</span>"
            return self
        r = self.last
        if r.node:
            self.status.value = f"next replica of <b>{esc(self.pod)}</b> → <b>{esc(r.node)}</b>"
        else:
            self.status.value = (f"next replica of <b>{esc(self.pod)}</b> stays Pending: "
                                 f"<span style='color:#D55E00'>{esc(r.message)}</span>")
        set_figure(self.figure, topology_skew(self.cluster, self.pod))
        if n:
            t = spread_table(self.cluster, self.pod, self.constraint)
            caption = (f"constraint {self.constraint}: {t.attrs['topologyKey']}, maxSkew {t.attrs['maxSkew']}, "
                       f"global minimum {t.attrs['global minimum']}, {t.attrs['eligible domains']} eligible domain(s)")
            self.table.value = table_html(t, caption)
        else:
            self.table.value = "<p>the pod has no topology spread constraints</p>"
        self.history.value = "".join(f"<div>{esc(line)}</div>" for line in self.actions[-8:])
        return self

    def _domain_of(self, node: str | None) -> str | None:
        if node is None:
            return None
        try:
            key = spread_table(self.cluster, self.pod, self.constraint).attrs["topologyKey"]
        except (ValueError, IndexError):
            return node
        return self.cluster.nodes[node].metadata.labels.get(key, node)

    def __repr__(self) -> str:
        try:
            t = spread_table(self.cluster, self.pod, self.constraint)
            counts = " ".join(f"{k}={int(v)}" for k, v in t.loc[t["eligible"], "matching pods"].items())
            where = self._domain_of(self.last.node) if self.last is not None else None
            nxt = where or "Pending"
            return f"SpreadExplorer(pod={self.pod!r}, {t.attrs['topologyKey']}: {counts}, next -> {nxt})"
        except (ValueError, KeyError, IndexError):
            return f"SpreadExplorer(pod={self.pod!r})"
