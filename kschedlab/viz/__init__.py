"""Figures, worked calculations and HTML reports built from traces and cluster state.

``viz`` only reads: it never changes a cluster, a scheduler or a trace.

>>> from kschedlab import Cluster, Scheduler
>>> from kschedlab.scenarios import path
>>> from kschedlab import viz
>>> cluster = Cluster.from_manifests(path("default"))
>>> results = Scheduler(cluster).run()
>>> fig = viz.node_utilization(cluster)
>>> fig.layout.title.text
'Requested vs allocatable per node'

Importing ``kschedlab.viz`` is light: each name is imported from its module (plotly, pandas,
networkx behind it) the first time it is used.
"""

from importlib import import_module
from importlib.util import find_spec

#: module (under ``kschedlab.viz``) -> the names it gives this package
_EXPORTS = {
    "calc": (
        "Worksheet", "fit_config", "parse_shape", "rtcr_worksheet", "score_worksheet", "shape_yaml",
        "to_yaml", "what_if"),
    "figures": (
        "cluster_picture", "filter_grid", "filter_outcome", "label_colors", "node_utilization",
        "pod_label_keys", "score_breakdown", "shape_function", "utilization_table"),
    "manifests": ("yaml_documents",),
    "report": ("render_report", "write_report"),
    "preemption": ("preemption_candidates", "preemption_figure", "preemption_timeline", "preemption_what_if"),
    "spread": (
        "compare_spread", "place_replicas", "spread_constraints", "spread_table", "spread_variants",
        "topology_skew", "with_constraint"),
    "tables": ("nodes_table", "pods_table", "results_table"),
    "table_style": ("styled", "use_styled_tables"),
    "gang": (
        "gang_counts", "gang_timeline", "min_count_sweep", "pod_group_conditions", "run_gang_story",
        "runs_summary", "story_yaml", "sweep_figure"),
    "podgroup": (
        "cycle_steps", "domain_capacity", "hierarchy_tree", "placement_scores", "pod_attempts",
        "pod_outcomes", "search_tree"),
    "overhead": ("describe_percent", "overhead_bars", "overhead_outcome"),
}
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = sorted(_WHERE)


def __getattr__(name: str):
    module = _WHERE.get(name)
    if module is None:
        if not name.startswith("_") and find_spec(f"{__name__}.{name}") is not None:
            return import_module(f"{__name__}.{name}")  # a submodule, as ``viz.figures``
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_WHERE))
