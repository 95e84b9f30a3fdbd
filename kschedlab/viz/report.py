"""A self-contained HTML report of a scheduling run.

One file that opens offline: plotly.js is embedded once in the head, as the
cartesian bundle (bar, heatmap, scatter: what the report draws) compressed
with gzip and base64-encoded (``assets/``, MIT licence beside it); the browser
inflates it with ``DecompressionStream`` and draws each figure from its JSON.
Every figure is a ``<div>`` with a fixed id (``kschedlab-utilization``,
``kschedlab-pod-<i>-score`` ...), no timestamps: the same cluster and results
always give the same bytes.  Every user-provided string (title, pod and node
names, messages, reasons) is escaped with :func:`html.escape`; in the figure
JSON ``<``, ``>``, ``&`` and ``/`` are escaped as well.

>>> import tempfile, pathlib
>>> from kschedlab import Cluster, Scheduler
>>> from kschedlab.scenarios import path
>>> cluster = Cluster.from_manifests(path("default"))
>>> results = Scheduler(cluster).run()
>>> out = write_report(pathlib.Path(tempfile.mkdtemp()) / "r.html", cluster, results, title="demo <1>")
>>> text = out.read_text()
>>> "<title>demo &lt;1&gt;</title>" in text
True
>>> text.count('<script type="application/json" data-figure=') == text.count('class="kschedlab-figure"')
True
>>> len(text) < 1_500_000
True
"""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from typing import Iterable

import plotly.graph_objects as go
import plotly.io as pio

from kschedlab.api.resources import DEFAULT_NON_ZERO, pod_requests
from kschedlab.viz.common import TEMPLATE, esc, live_rows
from kschedlab.viz.figures import filter_outcome, no_trace, node_utilization, score_breakdown

#: plotly.js, the cartesian bundle of the version the plotly package draws with, gzip-compressed
PLOTLY_BUNDLE = Path(__file__).resolve().parent / "assets" / "plotly-cartesian.min.js.gz"

__all__ = ["write_report", "render_report", "cluster_bars"]

_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto; max-width: 1200px;
       color: #222; padding: 0 1em; }
h1 { font-size: 1.6em; } h2 { font-size: 1.3em; margin-top: 2em; border-bottom: 1px solid #ddd; }
h3 { font-size: 1.1em; }
table { border-collapse: collapse; margin: 0.5em 0 1em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
td.ok { color: #0072B2; } td.fail { color: #D55E00; }
td.nowrap, tbody th { white-space: nowrap; }
code { background: #f6f8fa; padding: 0 0.2em; }
.note { color: #666; }
"""

_PLOTLY_CONFIG = {"displaylogo": False, "responsive": True}


#: inflates the bundle, runs it, then draws every figure from its JSON block
_LOADER = """
(async () => {
  const packed = document.getElementById("kschedlab-plotly").textContent.trim();
  const bytes = Uint8Array.from(atob(packed), (c) => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  const code = document.createElement("script");
  code.text = await new Response(stream).text();
  document.head.appendChild(code);
  for (const block of document.querySelectorAll("script[data-figure]")) {
    const fig = JSON.parse(block.textContent);
    Plotly.newPlot(block.dataset.figure, fig.data, fig.layout, %s);
  }
})();
""" % json.dumps(_PLOTLY_CONFIG)


def _figure_div(fig, div_id: str) -> str:
    text = pio.to_json(fig, validate=False)
    for raw, escaped in (("&", "\\u0026"), ("<", "\\u003c"), (">", "\\u003e"), ("/", "\\u002f")):
        text = text.replace(raw, escaped)  # nothing in the JSON can close the script block
    height = fig.layout.height or 450
    return (f'<div id="{esc(div_id)}" class="kschedlab-figure" style="height:{int(height)}px"></div>\n'
            f'<script type="application/json" data-figure="{esc(div_id)}">{text}</script>')


def _plotly_head() -> str:
    packed = base64.b64encode(PLOTLY_BUNDLE.read_bytes()).decode("ascii")
    return (f'<script type="application/gzip-base64" id="kschedlab-plotly">{packed}</script>\n'
            f"<script>{_LOADER}</script>")


#: the width the report's cluster bars get on a page, and a label character's, in pixels (a
#: pod's name goes inside its bar only if it fits there)
_BAR_PIXELS, _CHAR_PIXELS = 800, 7


def cluster_bars(cluster, title: str = "Cluster: nodes and their pods (CPU requested)") -> go.Figure:
    """One bar per node, cut into its pods (sized by their CPU request, as scoring counts it,
    each labelled with its name) and the free rest: the report's cluster picture.

    A pod too narrow for its name is labelled just after its node's last pod instead (the
    names of a node's narrow pods joined by commas), so no name is cut or runs into another.

    >>> from kschedlab import Cluster, Scheduler
    >>> from kschedlab.scenarios import path
    >>> cluster = Cluster.from_manifests(path("default"))
    >>> _ = Scheduler(cluster).run()
    >>> fig = cluster_bars(cluster)
    >>> fig.data[0].name, fig.data[1].name, list(fig.data[1].text)
    ('free', 'pods', ['', '', '', 'trainer-0'])
    >>> dict(zip(fig.data[2].y, fig.data[2].text))["node-a2"]  # 250m of the widest node's 16 CPUs
    'batch-0'
    """
    snap = cluster.snapshot
    rows = live_rows(snap)
    names = [esc(snap.names[r]) for r in rows]  # tick labels: plotly reads markup in them
    col = snap.res_index.get("cpu")
    alloc = {row: int(snap.allocatable[col, row]) / 1000 if col is not None else 0 for row in rows}
    cpus = {row: [int(pod_requests(info.pod, non_missing=DEFAULT_NON_ZERO).get("cpu", 0)) / 1000
                  for info in snap.pods[row]] for row in rows}
    widest = max([max(alloc[row], sum(cpus[row])) for row in rows] + [1e-9])
    y, base, width, text, hover = [], [], [], [], []
    free_y, free_base, free_width = [], [], []
    after_y, after_x, after_text = [], [], []
    for row, name in zip(rows, names):
        at, narrow = 0.0, []
        for info, cpu in zip(snap.pods[row], cpus[row]):
            fits = cpu / widest * _BAR_PIXELS >= _CHAR_PIXELS * len(info.name) + 6
            y.append(name)
            base.append(at)
            width.append(cpu)
            text.append(esc(info.name) if fits else "")
            hover.append(esc(f"{info.key}: {cpu:g} CPU"))
            if not fits:
                narrow.append(info.name)
            at += cpu
        if narrow:
            after_y.append(name)
            after_x.append(at)
            after_text.append(esc(", ".join(narrow)))
        if alloc[row] > at:
            free_y.append(name)
            free_base.append(at)
            free_width.append(alloc[row] - at)
    fig = go.Figure([  # the free rest first: the pods and their names are drawn over it
        go.Bar(name="free", orientation="h", y=free_y, x=free_width, base=free_base, marker={"color": "#f0f0f0"},
               hovertemplate="%{y}: %{x:g} CPU free<extra></extra>"),
        go.Bar(name="pods", orientation="h", y=y, x=width, base=base, text=text,
               textposition="inside", insidetextanchor="middle", textangle=0, constraintext="none",
               marker={"color": "#9ecae1", "line": {"color": "#ffffff", "width": 1}},
               customdata=hover, hovertemplate="%{customdata}<extra></extra>"),
        go.Scatter(name="narrow pods", mode="text", y=after_y, x=after_x, text=after_text,
                   textposition="middle right", textfont={"size": 12}, showlegend=False, hoverinfo="skip")])
    fig.update_layout(template=TEMPLATE, title=esc(title), barmode="overlay", height=120 + 40 * len(names),
                      legend={"traceorder": "reversed"},
                      uniformtext={"minsize": 9, "mode": "show"}, xaxis={"title": "CPU (cores)"},
                      yaxis={"autorange": "reversed", "automargin": True}, margin={"t": 60, "l": 10, "r": 10, "b": 40})
    return fig


def _results_table(results) -> str:
    rows = []
    for i, r in enumerate(results):
        cls = "ok" if r.node else "fail"
        rows.append(f'<tr><td class="nowrap"><a href="#kschedlab-pod-{i}">{esc(r.pod)}</a></td>'
                    f'<td class="{cls} nowrap">{esc(r.node or "—")}</td><td>{esc(r.status.code.name)}</td>'
                    f"<td>{esc(r.message)}</td></tr>")
    return ("<table><thead><tr><th>pod</th><th>node</th><th>status</th><th>message</th></tr></thead><tbody>"
            + "".join(rows) + "</tbody></table>")


def _pod_groups_section(cluster) -> str:
    """Every PodGroup and CompositePodGroup: its conditions in a table, and the object as
    ``kubectl get podgroup -o yaml`` shows it (the empty string when the cluster has none)."""
    import yaml

    from kschedlab.framework.podgroups import describe_pod_groups

    groups = describe_pod_groups(cluster)
    if not groups:
        return ""
    rows, docs = [], []
    for g in groups:
        meta = g.get("metadata") or {}
        name = f"{meta['namespace']}/{meta.get('name', '')}" if meta.get("namespace") else meta.get("name", "")
        for c in (g.get("status") or {}).get("conditions") or [{}]:
            cls = {"True": "ok", "False": "fail"}.get(c.get("status"), "")
            rows.append(f'<tr><td class="nowrap">{esc(g.get("kind", ""))}</td><td class="nowrap">{esc(name)}</td>'
                        f'<td class="nowrap">{esc(c.get("type", "—"))}</td>'
                        f'<td class="{cls}">{esc(c.get("status", "—"))}</td>'
                        f'<td class="nowrap">{esc(c.get("reason", ""))}</td><td>{esc(c.get("message", ""))}</td></tr>')
        docs.append(yaml.safe_dump(g, sort_keys=False))
    head = "".join(f"<th>{h}</th>" for h in ("kind", "group", "condition", "status", "reason", "message"))
    return ("<h2>Pod groups</h2>" + f"<table><thead><tr>{head}</tr></thead><tbody>" + "".join(rows)
            + "</tbody></table><details><summary>kubectl get podgroups,compositepodgroups -o yaml</summary><pre>"
            + esc("---\n".join(docs)) + "</pre></details>")


def _refused_section(cluster) -> str:
    """The objects the API server refused, as ``schedule`` lists them after its table, and the
    controllers' ``FailedCreate`` events (the empty string when nothing was refused)."""
    refused, events = getattr(cluster, "refused", ()), getattr(cluster, "events", ())
    if not refused:
        return ""
    rows = [f'<tr><td class="nowrap">{esc(r.obj.kind)} {esc(r.key)}</td>'
            f'<td class="nowrap">{esc(r.file or "—")}</td><td class="fail nowrap">{esc(r.reason)}</td>'
            f"<td>{esc(r.message)}</td><td>{esc(r.controller or '—')}</td></tr>" for r in refused]
    head = "".join(f"<th>{h}</th>" for h in ("object", "file", "reason", "message", "created by"))
    out = ("<h2>Refused by the API server</h2>" + f"<table><thead><tr>{head}</tr></thead><tbody>" + "".join(rows)
           + "</tbody></table>")
    if events:
        out += "<ul>" + "".join(f"<li>{esc(str(e))}</li>" for e in events) + "</ul>"
    return out


def _run_table(run, anchors: dict[str, int]) -> str:
    """Every pod of a :class:`~kschedlab.scheduler.result.RunResult`: kubectl STATUS, node,
    nominated node, attempts, the last attempt's status code and what happened."""
    from kschedlab.viz.run_text import pod_message

    rows = []
    for p in run.pods:
        name = esc(p.name)
        if p.name in anchors:
            name = f'<a href="#kschedlab-pod-{anchors[p.name]}">{name}</a>'
        cls = "ok" if p.node and not p.preempted_by else "fail"
        code = p.result.status.code.name if p.result is not None else "—"
        rows.append(f'<tr><td class="nowrap">{name}</td><td class="{cls} nowrap">{esc(p.pod_status)}</td>'
                    f'<td class="nowrap">{esc(p.node or "—")}</td><td class="nowrap">{esc(p.nominated_node or "—")}</td>'
                    f"<td>{p.attempts}</td><td>{esc(code)}</td><td>{esc(pod_message(p))}</td></tr>")
    head = "".join(f"<th>{h}</th>" for h in ("pod", "status", "node", "nominated node", "attempts",
                                             "last attempt", "message"))
    return f"<table><thead><tr>{head}</tr></thead><tbody>" + "".join(rows) + "</tbody></table>"


_LABEL_WIDTH = 90  # characters per line of a node's verdict beside the filter grid


def _wrap_label(label: str, width: int = _LABEL_WIDTH) -> str:
    """Break a verdict label at ``; `` / ``, `` so no line is longer than ``width`` characters
    (the text between tags counts), with ``<br>``; nothing is dropped.

    >>> _wrap_label("<b>P</b>: " + "; ".join(["Insufficient example.com/resource-" + str(i) for i in range(4)]), 60)
    '<b>P</b>: Insufficient example.com/resource-0;<br>Insufficient example.com/resource-1;<br>Insufficient example.com/resource-2;<br>Insufficient example.com/resource-3'
    """
    import re

    pieces = re.split(r"(?<=[;,]) ", label)
    lines, line = [], ""
    for piece in pieces:
        candidate = f"{line} {piece}" if line else piece
        if line and len(re.sub(r"<[^>]+>", "", candidate)) > width:
            lines.append(line)
            line = piece
        else:
            line = candidate
    lines.append(line)
    return "<br>".join(lines)


def _fit_filter_figure(fig):
    """Make room in a filter grid for long node names (left) and whole verdicts (right)."""
    import re

    plain = lambda text: re.sub(r"<[^>]+>", "", text)  # noqa: E731
    longest = 0
    for ann in fig.layout.annotations:
        if ann.xref == "paper" and ann.x == 1.01 and ann.text:
            ann.text = _wrap_label(ann.text)
            longest = max(longest, *(len(plain(line)) for line in ann.text.split("<br>")))
    names = [str(n) for n in (fig.data[0].y or ())] if fig.data else []
    margin = fig.layout.margin
    left = max(margin.l or 0, 20 + 7 * max((len(n) for n in names), default=0))
    right = max(margin.r or 0, 30 + 7 * longest)
    fig.update_layout(margin={"l": left, "r": right})
    return fig


def _explain_table(result, i: int) -> str:
    from kschedlab.viz.table_style import table_html

    df = result.explain()
    cols = [c for c in ("filter", "code", "reasons", "total", "rank", "chosen") if c in df]
    return table_html(df[cols], uuid=f"kschedlab-pod-{i}-table")


def _pod_section(i: int, result, report=None) -> str:
    parts = [f'<h2 id="kschedlab-pod-{i}">{esc(result.pod)} → {esc(result.node or "unschedulable")}</h2>']
    if report is not None and (report.attempts > 1 or report.victims or report.stopped):
        from kschedlab.viz.run_text import pod_message

        parts.append(f'<p class="note">{esc(report.pod_status)} after {report.attempts} attempt'
                     f'{"s" if report.attempts != 1 else ""}: {esc(pod_message(report))} (the table and '
                     f'figures below are of the last attempt)</p>')
    if result.message:
        parts.append(f"<p><code>{esc(result.message)}</code></p>")
    if result.trace is None:
        parts.append(f'<p class="note">{esc(no_trace(result))}</p>')
        return "\n".join(parts)
    parts.append(_explain_table(result, i))
    parts.append(_figure_div(_fit_filter_figure(filter_outcome(result)), f"kschedlab-pod-{i}-filter"))
    if result.trace.score is not None:
        parts.append(_figure_div(score_breakdown(result), f"kschedlab-pod-{i}-score"))
    else:
        reason = ("only one feasible node: scoring is skipped" if result.trace.selected
                  else "no feasible node: nothing was scored")
        parts.append(f'<p class="note">{esc(reason)}</p>')
    return "\n".join(parts)


def render_report(cluster, results: Iterable, title: str = "kschedlab report") -> str:
    """The report as an HTML string (see :func:`write_report`); ``results`` is what
    ``Scheduler.run()`` returns (every pod's story is then in the table, victims of preemption
    included) or any list of ScheduleResults."""
    run = results
    results = list(results)
    scheduled = sum(1 for r in results if r.node)
    pods = getattr(run, "pods", None)
    if pods is not None:
        table = _run_table(run, {r.pod: i for i, r in enumerate(results)})
        attempts = f", {run.attempts} scheduling attempt{'s' if run.attempts != 1 else ''}"
        victims = sum(1 for p in pods if p.preempted_by)
        if victims:
            attempts += f", {victims} pod{'s' if victims != 1 else ''} preempted"
        if run.once:
            attempts += " (single pass: failed pods were not retried)"
        if run.stopped:
            attempts += (f"; attempt bound ({run.max_attempts}) reached by {', '.join(run.stopped)}")
    else:
        table, attempts = _results_table(results), ""
    body = [
        f"<h1>{esc(title)}</h1>",
        f'<p class="note">{scheduled} of {len(results)} pods scheduled on {len(cluster.snapshot.index)} nodes'
        f'{esc(attempts)}.</p>',
        "<h2>Results</h2>", table, _refused_section(cluster), _pod_groups_section(cluster),
        "<h2>Cluster</h2>", _figure_div(node_utilization(cluster), "kschedlab-utilization"),
        _figure_div(cluster_bars(cluster), "kschedlab-cluster"),
    ]
    by_name = {p.name: p for p in pods or ()}
    body.extend(_pod_section(i, r, by_name.get(r.pod)) for i, r in enumerate(results))
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<title>{esc(title)}</title>\n<style>{_CSS}</style>\n"
            f"{_plotly_head()}\n</head>\n<body>\n"
            + "\n".join(body) + "\n</body>\n</html>\n")


def write_report(path, cluster, results: Iterable, title: str = "kschedlab report") -> Path:
    """Write one self-contained HTML report and return its path.

    A results table (pod, kubectl status, node, nominated node, attempts, message), the objects the
    API server refused with the controllers' FailedCreate events, the pod groups'
    conditions and objects (when there are any), the node utilization and
    cluster figures, then per pod its explain() table, filter outcome and
    score breakdown.  Works offline (plotly.js is inlined once, compressed).  The file is written whole or
    not at all (a temporary file beside it, renamed), so an interrupted run leaves no half report.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = render_report(cluster, results, title)
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path
