"""Comparison figures from a sweep's results table (:func:`kschedlab.research.sweep.sweep`):
pending-time CDFs, utilisation over time and per-configuration box plots.

Colours are the Okabe-Ito palette (safe for the common colour-vision deficiencies), one per
configuration/variant; seeds of the same arm share its colour and are told apart by line dash.
Every axis says its unit.

>>> import pandas as pd
>>> rows = pd.DataFrame({"config": ["default", "default", "packed", "packed"],
...     "variant": ["baseline"] * 4, "workload": ["w"] * 4, "seed": [0, 1, 0, 1],
...     "pending_times": [[0.0, 5.0, 10.0], [0.0, 2.0], [0.0, 1.0], [3.0]],
...     "time": [[0.0, 60.0]] * 4, "gpu_utilization": [[0.2, 0.4], [0.3, 0.5], [0.6, 0.7], [0.5, 0.6]],
...     "pending_p90": [9.0, 1.8, 0.9, 3.0]})
>>> fig = pending_cdf(rows)
>>> [t.name for t in fig.data], fig.layout.xaxis.title.text
(['default / baseline', 'packed / baseline'], 'pending time (s)')
>>> utilization_over_time(rows, "gpu_utilization").layout.yaxis.title.text
'GPU utilisation (% of allocatable)'
>>> len(box_by_config(rows, "pending_p90").data)
2
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

__all__ = ["OKABE_ITO", "arm_label", "pending_cdf", "utilization_over_time", "box_by_config", "METRIC_LABELS",
           "metric_scale", "unallocated_vs_arrived", "unallocated_bars", "POLICY_ORDER"]

#: the FGD paper's policies in its order (packing sweeps, :mod:`kschedlab.research.fgd`)
POLICY_ORDER = ("Random", "DotProduct", "GpuClustering", "GpuPacking", "BestFit", "FGD")

#: Okabe & Ito's colour-blind-safe palette (black last)
OKABE_ITO = ("#E69F00", "#56B4E9", "#009E73", "#0072B2", "#D55E00", "#CC79A7", "#F0E442", "#000000")
DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")

#: axis titles, units included
METRIC_LABELS = {
    "cpu_utilization": "CPU utilisation (% of allocatable)",
    "memory_utilization": "memory utilisation (% of allocatable)",
    "gpu_utilization": "GPU utilisation (% of allocatable)",
    "cpu_fragmentation": "CPU fragmentation (% of free CPU on busy nodes)",
    "gpu_fragmentation": "GPU fragmentation (% of free GPUs on busy nodes)",
    "running_pods": "running pods (count)",
    "scheduled_fraction": "scheduled (% of pods)",
    "pending_p50": "median pending time (s)",
    "pending_p90": "90th percentile pending time (s)",
    "pending_p99": "99th percentile pending time (s)",
    "gang_wait_p90": "90th percentile gang wait (s)",
    "cpu_utilization_mean": "mean CPU utilisation (% of allocatable)",
    "gpu_utilization_mean": "mean GPU utilisation (% of allocatable)",
    "gpu_fragmentation_mean": "mean GPU fragmentation (% of free GPUs)",
    "preemptions": "preempted pods (count)",
    "evictions": "evicted pods (count)",
    "decisions_per_second": "scheduling decisions per wall-clock second (1/s)",
}
_PERCENT = {k for k, v in METRIC_LABELS.items() if "(%" in v}


def metric_scale(metric: str) -> int:
    """What the figures multiply ``metric`` by: 100 for a share shown in %, else 1.

    >>> metric_scale("gpu_utilization_mean"), metric_scale("pending_p90")
    (100, 1)
    """
    return 100 if metric in _PERCENT else 1


def arm_label(row) -> str:
    """``config / variant`` (what a sweep compares)."""
    return f"{row['config']} / {row['variant']}"


def _arms(results: pd.DataFrame) -> dict[str, str]:
    arms = sorted({arm_label(r) for _, r in results.iterrows()})
    return {arm: OKABE_ITO[i % len(OKABE_ITO)] for i, arm in enumerate(arms)}


def _one_workload(results: pd.DataFrame, workload: str | None) -> tuple[pd.DataFrame, str]:
    names = sorted(results["workload"].unique())
    if workload is None:
        if len(names) > 1:
            raise ValueError(f"workload: Required value: the results hold {len(names)} workloads ({', '.join(names)})")
        workload = names[0]
    elif workload not in names:
        raise ValueError(f"workload: Not found: {workload!r} (the results hold {', '.join(names)})")
    return results[results["workload"] == workload], workload


def pending_cdf(results: pd.DataFrame, workload: str | None = None, *, log_x: bool = False) -> go.Figure:
    """The CDF of pending time (creation to scheduling) per configuration / variant, the pods of
    all seeds pooled; ``workload`` picks one when the table holds several."""
    rows, workload = _one_workload(results, workload)
    colors = _arms(rows)
    fig = go.Figure()
    for arm, color in colors.items():
        picked = rows[[arm_label(r) == arm for _, r in rows.iterrows()]]
        values = np.sort(np.concatenate([np.asarray(v, float) for v in picked["pending_times"]] or [np.array([])]))
        if len(values) == 0:
            continue
        share = np.arange(1, len(values) + 1) / len(values) * 100
        fig.add_trace(go.Scatter(x=values, y=share, mode="lines", line={"shape": "hv", "color": color, "width": 2},
                                 name=arm, hovertemplate="%{x:.1f} s: %{y:.1f}% of pods<extra>" + arm + "</extra>"))
    fig.update_layout(title=f"Pending time, {workload} (scheduled pods of {rows['seed'].nunique()} seeds)",
                      xaxis_title="pending time (s)", yaxis_title="pods scheduled within (% of scheduled)",
                      template="plotly_white", legend_title="config / variant")
    if log_x:
        fig.update_xaxes(type="log")
    return fig


def utilization_over_time(results: pd.DataFrame, metric: str = "gpu_utilization",
                          workload: str | None = None) -> go.Figure:
    """``metric`` (a utilisation series column) over virtual time, one line per run: colour per
    configuration / variant, dash per seed."""
    rows, workload = _one_workload(results, workload)
    colors = _arms(rows)
    seeds = sorted(rows["seed"].unique())
    scale = 100 if metric in _PERCENT else 1
    fig = go.Figure()
    for _, row in rows.sort_values(["config", "variant", "seed"]).iterrows():
        arm = arm_label(row)
        t = np.asarray(row["time"], float)
        v = np.asarray(row[metric], float) * scale
        fig.add_trace(go.Scatter(x=t / 60, y=v, mode="lines", name=f"{arm}, seed {row['seed']}",
                                 legendgroup=arm, line={"shape": "hv", "color": colors[arm],
                                                        "dash": DASHES[seeds.index(row["seed"]) % len(DASHES)]}))
    fig.update_layout(title=f"{METRIC_LABELS.get(metric, metric).split(' (')[0]} over time, {workload}",
                      xaxis_title="virtual time (min)", yaxis_title=METRIC_LABELS.get(metric, metric),
                      template="plotly_white")
    return fig


def box_by_config(results: pd.DataFrame, metric: str = "pending_p90", workload: str | None = None) -> go.Figure:
    """``metric`` (a number per run) as a box per configuration / variant, one point per seed."""
    rows, workload = _one_workload(results, workload)
    colors = _arms(rows)
    scale = 100 if metric in _PERCENT else 1
    fig = go.Figure()
    for arm, color in colors.items():
        picked = rows[[arm_label(r) == arm for _, r in rows.iterrows()]]
        fig.add_trace(go.Box(y=picked[metric].astype(float) * scale, name=arm, marker_color=color,
                             boxpoints="all", jitter=0.3, pointpos=0, text=[f"seed {s}" for s in picked["seed"]]))
    fig.update_layout(title=f"{METRIC_LABELS.get(metric, metric).split(' (')[0]} per configuration, {workload}",
                      xaxis_title="config / variant", yaxis_title=METRIC_LABELS.get(metric, metric),
                      template="plotly_white", showlegend=False)
    return fig


def _policies(results: pd.DataFrame, policies=None) -> list[str]:
    present = list(dict.fromkeys(results["policy"]))
    order = [p for p in POLICY_ORDER if p in present] + [p for p in present if p not in POLICY_ORDER]
    return [p for p in order if policies is None or p in policies]


def _rgba(hex_colour: str, alpha: float) -> str:
    r, g, b = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha})"


def unallocated_vs_arrived(results: pd.DataFrame, trace: str | None = None, *, policies=None,
                           low: int = 0, high: int = 130) -> go.Figure:
    """The FGD paper's figure from a packing sweep: unallocated GPU % of capacity against the
    arrived workload (% of the cluster's GPUs), one line per policy (the median over seeds) with
    the band from the lowest to the highest seed.

    >>> rows = pd.DataFrame({"trace": ["t"] * 4, "policy": ["FGD", "FGD", "Random", "Random"], "seed": [0, 1, 0, 1],
    ...     "arrived_pct": [[99, 100]] * 4, "unallocated": [[6.0, 5.0], [5.0, 4.0], [14.0, 13.0], [15.0, 14.0]]})
    >>> fig = unallocated_vs_arrived(rows)
    >>> [t.name for t in fig.data if t.showlegend], fig.layout.yaxis.title.text
    (['Random', 'FGD'], 'unallocated GPUs (% of capacity)')
    """
    if trace is None:
        trace = str(results["trace"].iloc[0])
    rows = results[results["trace"] == trace]
    fig = go.Figure()
    for i, policy in enumerate(_policies(rows, policies)):
        colour = OKABE_ITO[i % len(OKABE_ITO)]
        curves = [pd.Series(list(u), index=list(a)) for a, u in zip(rows.loc[rows.policy == policy, "arrived_pct"],
                                                                     rows.loc[rows.policy == policy, "unallocated"])]
        frame = pd.concat(curves, axis=1).sort_index()
        frame = frame[(frame.index >= low) & (frame.index <= high)]
        x = frame.index.to_numpy()
        fig.add_trace(go.Scatter(x=np.concatenate([x, x[::-1]]),
                                 y=np.concatenate([frame.max(axis=1).to_numpy(), frame.min(axis=1).to_numpy()[::-1]]),
                                 fill="toself", fillcolor=_rgba(colour, 0.2), line={"width": 0}, hoverinfo="skip",
                                 showlegend=False, name=f"{policy} (seeds' range)"))
        fig.add_trace(go.Scatter(x=x, y=frame.median(axis=1).to_numpy(), mode="lines", name=policy,
                                 line={"color": colour}, showlegend=True,
                                 hovertemplate=f"{policy}<br>arrived %{{x}} %<br>unallocated %{{y:.2f}} %<extra></extra>"))
    fig.update_layout(title=f"unallocated GPUs as the workload arrives ({trace}; median and range over "
                            f"{rows['seed'].nunique()} seeds)", xaxis_title="arrived workload (% of GPU capacity)",
                      yaxis_title="unallocated GPUs (% of capacity)", template="plotly_white")
    return fig


def unallocated_bars(results: pd.DataFrame, family: str | None = None, *, policies=None) -> go.Figure:
    """Median unallocated GPU % at 100 % arrived, per trace (x) and policy (bars), for the traces
    of one family (``gpushare``, ``multigpu``, ``gpuspec``, ``cpu``, ``default``; all when None);
    error bars span the seeds.

    >>> rows = pd.DataFrame({"trace": ["a", "a", "b", "b"], "family": ["cpu"] * 4, "policy": ["FGD", "BestFit"] * 2,
    ...     "seed": [0] * 4, "unallocated_100": [4.0, 7.0, 5.0, 8.0]})
    >>> [t.name for t in unallocated_bars(rows, "cpu").data]
    ['BestFit', 'FGD']
    """
    rows = results if family is None else results[results["family"] == family]
    traces = sorted(rows["trace"].unique())
    fig = go.Figure()
    for i, policy in enumerate(_policies(rows, policies)):
        g = rows[rows.policy == policy].groupby("trace")["unallocated_100"]
        med, lo, hi = g.median().reindex(traces), g.min().reindex(traces), g.max().reindex(traces)
        fig.add_trace(go.Bar(x=traces, y=med, name=policy, marker_color=OKABE_ITO[i % len(OKABE_ITO)],
                             error_y={"type": "data", "symmetric": False, "array": (hi - med).to_numpy(),
                                      "arrayminus": (med - lo).to_numpy()}))
    fig.update_layout(barmode="group", template="plotly_white",
                      title=f"unallocated GPUs at 100 % arrived{'' if family is None else f' ({family} traces)'}",
                      xaxis_title="trace", yaxis_title="unallocated GPUs (% of capacity, median over seeds)")
    return fig
