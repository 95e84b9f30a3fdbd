"""Plain-text tables of a scheduling run, for terminals (``kschedlab schedule`` / ``demo``).

Nothing is cut: every column and row is printed whole, and a missing value is ``-``
(never ``NaN``, ``<NA>`` or ``None``).

>>> from kschedlab.scheduler.result import PodReport, RunResult, Victim
>>> run = RunResult(pods=[
...     PodReport("default/nginx", "kube-01", "Running", "kube-01", 2, "", "0/2 nodes are available: "
...               "2 Insufficient cpu.", [Victim("default/low-2", "kube-01", "default/nginx")]),
...     PodReport("default/low-2", "kube-01", "Terminating", None, 0, "", "", [], "default/nginx")],
...     attempts=2, max_attempts=20)
>>> print(run_table(run))
NAME           STATUS       NODE     NOMINATED NODE  ATTEMPTS  MESSAGE
default/nginx  Running      kube-01  kube-01         2         preempted default/low-2 on kube-01; before: 0/2 nodes are available: 2 Insufficient cpu.
default/low-2  Terminating  kube-01  -               0         preempted by default/nginx
<BLANKLINE>
2 pods: 1 running, 0 pending, 1 preempted; 2 scheduling attempts.
"""

from __future__ import annotations

import numpy as np

__all__ = ["run_table", "explain_text", "text_table", "pod_message"]

_HEADERS = ("NAME", "STATUS", "NODE", "NOMINATED NODE", "ATTEMPTS", "MESSAGE")


def text_table(headers, rows) -> str:
    """Columns padded to their widest cell (two spaces apart), the last one left ragged."""
    rows = [["-" if c is None or c == "" else str(c) for c in row] for row in rows]
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]
    lines = []
    for row in [list(headers), *rows]:
        cells = [c.ljust(w) for c, w in zip(row[:-1], widths[:-1])] + [row[-1]]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def _who(key: str) -> str:
    """A preemptor as people read it: a pod key, or ``PodGroup ns/name`` for a group."""
    for prefix, kind in (("podgroup/", "PodGroup "), ("compositepodgroup/", "CompositePodGroup ")):
        if key.startswith(prefix):
            return kind + key[len(prefix):]
    return key


def pod_message(p) -> str:
    """What the MESSAGE column says about a :class:`~kschedlab.scheduler.result.PodReport`:
    who preempted it or whom it preempted, then the last attempt's message (for a bound pod,
    its last failed attempt's, after ``before:``)."""
    parts = []
    if p.stopped:
        parts.append(f"attempt bound reached after {p.attempts} attempt{'s' if p.attempts != 1 else ''}")
    if p.preempted_by:
        parts.append(f"preempted by {_who(p.preempted_by)}")
    if p.victims:
        parts.append("preempted " + ", ".join(f"{v.pod} on {v.node}" if v.node else v.pod for v in p.victims))
    if p.node and not p.preempted_by:
        if p.last_failure:
            parts.append(f"before: {p.last_failure}")
    elif not p.preempted_by:
        parts.append(p.message or p.last_failure)
    return "; ".join(x for x in parts if x)


def run_table(run) -> str:
    """A :class:`~kschedlab.scheduler.result.RunResult` as a kubectl-like table and a summary."""
    rows = [(p.name, p.pod_status, p.node, p.nominated_node, p.attempts, pod_message(p)) for p in run.pods]
    out = [text_table(_HEADERS, rows), ""]
    running = sum(1 for p in run.pods if p.node and not p.preempted_by)
    preempted = sum(1 for p in run.pods if p.preempted_by)
    gated = sum(1 for p in run.pods if p.pod_status == "SchedulingGated")
    pending = len(run.pods) - running - preempted - gated
    counts = [f"{running} running", f"{pending} pending"]
    if gated:
        counts.append(f"{gated} scheduling-gated")
    if preempted:
        counts.append(f"{preempted} preempted")
    if not run.pods:
        return "No pending pods."
    out.append(f"{len(run.pods)} pod{'s' if len(run.pods) != 1 else ''}: {', '.join(counts)}; {run.attempts} "
               f"scheduling attempt{'s' if run.attempts != 1 else ''}.")
    if run.once:
        out.append("Single pass (--once): each pod was tried once; failed pods were not retried.")
    if run.stopped:
        n = run.max_attempts
        out.append(f"Attempt bound reached (--max-attempts {n}): {', '.join(run.stopped)} left after {n} "
                   f"attempt{'s' if n != 1 else ''} each; kube-scheduler would go on retrying.")
    return "\n".join(out)


def explain_text(result) -> str:
    """A result's per-node table (filter verdict, reasons, total, rank, chosen), whole; true /
    false cells are written yes / no, as every table of the course
    (:func:`kschedlab.viz.table_style.yes_no`)."""
    from kschedlab.viz.table_style import yes_no

    df = result.explain()
    cols = [c for c in ("filter", "reasons", "total", "rank", "chosen") if c in df]
    df = df[cols].astype(object).where(df[cols].notna(), "-")
    if "reasons" in df:
        df["reasons"] = df["reasons"].replace("", "-")
    headers = ("node", *cols)
    rows = [(node, *(df.at[node, c] for c in cols)) for node in df.index]
    return text_table(headers, [[yes_no(c) if isinstance(c, (bool, np.bool_)) else str(c) for c in r] for r in rows])
