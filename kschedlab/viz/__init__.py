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
"""

from kschedlab.viz.calc import (
    Worksheet,
    fit_config,
    parse_shape,
    rtcr_worksheet,
    score_worksheet,
    shape_yaml,
    to_yaml,
    what_if,
)
from kschedlab.viz.figures import (
    cluster_picture,
    filter_grid,
    filter_outcome,
    label_colors,
    node_utilization,
    pod_label_keys,
    score_breakdown,
    shape_function,
    utilization_table,
)
from kschedlab.viz.manifests import yaml_documents
from kschedlab.viz.preemption import preemption_candidates, preemption_figure, preemption_timeline, preemption_what_if
from kschedlab.viz.report import render_report, write_report
from kschedlab.viz.spread import (
    compare_spread,
    place_replicas,
    spread_constraints,
    spread_table,
    spread_variants,
    topology_skew,
    with_constraint,
)
from kschedlab.viz.table_style import styled, use_styled_tables
from kschedlab.viz.tables import nodes_table, pods_table, results_table

__all__ = [
    "node_utilization", "score_breakdown", "filter_outcome", "shape_function", "cluster_picture",
    "filter_grid", "utilization_table", "write_report", "render_report", "Worksheet", "fit_config", "to_yaml",
    "parse_shape", "shape_yaml", "score_worksheet", "rtcr_worksheet", "what_if", "nodes_table", "pods_table",
    "results_table", "label_colors", "pod_label_keys", "spread_constraints", "spread_table", "topology_skew",
    "with_constraint", "spread_variants", "compare_spread", "place_replicas", "yaml_documents",
    "preemption_candidates", "preemption_figure", "preemption_timeline", "preemption_what_if", "styled",
    "use_styled_tables",
]

from kschedlab.viz.gang import (
    gang_counts,
    gang_timeline,
    min_count_sweep,
    pod_group_conditions,
    run_gang_story,
    runs_summary,
    story_yaml,
    sweep_figure,
)

__all__ += ["gang_counts", "gang_timeline", "min_count_sweep", "pod_group_conditions", "run_gang_story",
            "runs_summary", "story_yaml", "sweep_figure"]

from kschedlab.viz.podgroup import (  # noqa: E402
    cycle_steps,
    domain_capacity,
    hierarchy_tree,
    placement_scores,
    pod_attempts,
    pod_outcomes,
    search_tree,
)

__all__ += ["cycle_steps", "placement_scores", "pod_outcomes", "domain_capacity", "pod_attempts", "hierarchy_tree",
            "search_tree"]

from kschedlab.viz.overhead import describe_percent, overhead_bars, overhead_outcome  # noqa: E402

__all__ += ["overhead_outcome", "overhead_bars", "describe_percent"]
