"""ClusterView: the cluster picture with its pods coloured by a label you choose.

A thin wrapper over :func:`kschedlab.viz.figures.cluster_picture`: a dropdown of the pod
label keys (``color_by``), what to size boxes by (a resource, or ``count``: every pod the same), and one
of node label keys
to group nodes by (the well-known zone labels by default). The figure itself is interactive
(hover a pod for its labels, click a zone or a node to zoom in).

>>> from kschedlab import Cluster
>>> from kschedlab.scenarios import path
>>> view = ClusterView(Cluster.from_manifests(path("default")), color_by="app")
>>> view.color_by.value, view.size_by.value
('app', 'cpu')
>>> view.set(color_by="(none)").figure_title()
'Cluster: zones, nodes and their pods (sized by cpu)'
>>> view.set(size_by="count").figure_title()
'Cluster: zones, nodes and their pods (sized by pod count)'
"""

from __future__ import annotations

import ipywidgets as widgets

from kschedlab.api.resources import CPU, MEMORY
from kschedlab.viz.figures import COUNT, cluster_picture, pod_label_keys
from kschedlab.widgets._display import set_figure, set_quietly

__all__ = ["ClusterView"]

NONE = "(none)"
WELL_KNOWN = "(topology.kubernetes.io/zone)"


class ClusterView(widgets.VBox):
    """Dropdowns ``color_by`` (pod label keys), ``size_by`` (cpu, memory, count) and ``zone_key``
    (node label keys) over :func:`~kschedlab.viz.figures.cluster_picture` of ``cluster``
    (read, never changed; call :meth:`update` after changing the cluster)."""

    def __init__(self, cluster, *, color_by: str | None = None, size_by: str = CPU, zone_key: str | None = None,
                 title: str = "Cluster: zones, nodes and their pods"):
        self.cluster = cluster
        self.title = title
        self.last = None
        style = {"description_width": "90px"}
        keys = pod_label_keys(cluster)
        node_keys = sorted({k for n in cluster.nodes.values() for k in n.metadata.labels})
        self.color_by = widgets.Dropdown(options=[NONE, *keys], value=color_by or NONE,
                                         description="colour by", style=style)
        self.size_by = widgets.Dropdown(options=[CPU, MEMORY, COUNT], value=size_by, description="size by", style=style)
        self.zone_key = widgets.Dropdown(options=[WELL_KNOWN, *node_keys], value=zone_key or WELL_KNOWN,
                                         description="group by", style=style)
        self.figure = widgets.Output()
        super().__init__(children=[widgets.HBox([self.color_by, self.size_by, self.zone_key]), self.figure])
        for control in (self.color_by, self.size_by, self.zone_key):
            control.observe(self.update, names="value")
        self.update()

    def set(self, *, color_by: str | None = None, size_by: str | None = None,
            zone_key: str | None = None) -> "ClusterView":
        """Set dropdowns by value and redraw once."""
        for control, value in ((self.color_by, color_by), (self.size_by, size_by), (self.zone_key, zone_key)):
            if value is not None:
                set_quietly(control, value, self.update)
        return self.update()

    def update(self, *_) -> "ClusterView":
        """Redraw the picture with the current choices."""
        color = None if self.color_by.value == NONE else self.color_by.value
        zone = None if self.zone_key.value == WELL_KNOWN else self.zone_key.value
        self.last = cluster_picture(self.cluster, size_by=self.size_by.value, color_by=color, zone_key=zone,
                                    title=self.title)
        set_figure(self.figure, self.last)
        return self

    def figure_title(self) -> str:
        return self.last.layout.title.text if self.last is not None else ""

    def __repr__(self) -> str:
        return (f"ClusterView(color_by={self.color_by.value!r}, size_by={self.size_by.value!r}, "
                f"group_by={self.zone_key.value!r}, nodes={len(self.cluster.nodes)}, pods={len(self.cluster.pods)})")
