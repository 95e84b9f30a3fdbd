"""DRA on the simulation clock, as figures and helpers for notebook 08: device taint eviction and
PreBind waits for binding conditions (:mod:`kschedlab.sim.dra`).

>>> from pathlib import Path
>>> data = Path(__file__).resolve().parents[2] / "datasets"
>>> sim, result = run_scenario(data / "dra" / "08-binding-conditions.yaml",
...                            data / "dra-scheduling" / "binding-conditions-sim.yaml")
>>> [(r.what, r.start, r.end) for r in segments(sim, result).itertuples()]
[('waiting for binding conditions', 0.0, 35.0), ('running', 35.0, 120.0)]
>>> binding_outcome(ready_at=43, timeout="60s")
('bound', 45.0)
>>> binding_outcome(ready_at=None, timeout="20s")
('failed', 20.0)
"""

from __future__ import annotations

import copy
import tempfile
from pathlib import Path

import pandas as pd
import plotly.graph_objects as go
import yaml

from kschedlab.api.safe_yaml import safe_load_all

__all__ = ["run_scenario", "segments", "dra_timeline", "rule_status_table", "binding_outcome"]

_DATA = Path(__file__).resolve().parents[2] / "datasets"
_COLOURS = {"waiting for binding conditions": "#E69F00", "running": "#56B4E9", "terminating": "#D55E00"}


def run_scenario(*paths, until: float | None = None, seed: int | None = None):
    """Build the simulation of scenario files and run it: ``(sim, result)``."""
    from kschedlab.sim.scenario import from_files

    sim, end = from_files(*paths, seed=seed)
    return sim, sim.run(until=until if until is not None else end)


def segments(sim, result) -> pd.DataFrame:
    """Per pod, what it did when: ``waiting for binding conditions`` (PreBind waits),
    ``running`` (bound until it finished, was deleted or the run ended) and ``terminating`` (from
    a device taint eviction to the end of its grace period)."""
    end = float(result.end_time)
    rows = []
    waits: dict[str, float] = {}
    for r in sim.dra.binding_frame().itertuples():
        if r.event == "BindingConditionsPending":
            waits[r.pod] = r.time
        elif r.pod in waits:
            rows.append({"pod": r.pod, "what": "waiting for binding conditions", "start": waits.pop(r.pod),
                         "end": r.time, "note": r.message or r.event})
    rows += [{"pod": pod, "what": "waiting for binding conditions", "start": t, "end": end, "note": "still waiting"}
             for pod, t in waits.items()]
    evicted = {r.object: r.time for r in sim.dra.evictions_frame().itertuples() if r.action == "evict"}
    for r in result.pods.itertuples():
        if pd.isna(r.bound) or r.bound is None:
            continue
        stop = evicted.get(r.pod)
        finished = None if r.finished is None or pd.isna(r.finished) else float(r.finished)
        rows.append({"pod": r.pod, "what": "running", "start": float(r.bound),
                     "end": stop if stop is not None else finished if finished is not None else end,
                     "note": f"on {r.node}"})
        if stop is not None:
            gone = end
            pod = sim.cluster.pods.get(r.pod)
            if pod is None or pod.metadata.deletion_timestamp is not None:
                gone = min(end, stop + _grace(sim, r.pod))
            rows.append({"pod": r.pod, "what": "terminating", "start": stop, "end": gone,
                         "note": "DisruptionTarget: DeletionByDeviceTaintManager"})
    return pd.DataFrame(rows, columns=["pod", "what", "start", "end", "note"])


def _grace(sim, key: str) -> float:
    pod = sim.cluster.pods.get(key)
    grace = pod.spec.termination_grace_period_seconds if pod is not None else None
    return float(30 if grace is None else grace)


def rule_status_table(sim) -> pd.DataFrame:
    """Every change of a DeviceTaintRule's ``EvictionInProgress`` condition, in time order."""
    f = sim.dra.evictions_frame()
    f = f[f.action == "rule-status"]
    return f[["time", "object", "status", "reason", "message"]].rename(columns={"object": "rule"}).reset_index(
        drop=True)


def dra_timeline(sim, result, title: str = "DRA on the simulation clock") -> go.Figure:
    """A Gantt chart of :func:`segments`, with a dotted line at each DeviceTaintRule status change
    (hover for the message)."""
    seg = segments(sim, result)
    fig = go.Figure()
    pods = list(dict.fromkeys(result.pods.pod))
    for what, colour in _COLOURS.items():
        part = seg[seg.what == what]
        if part.empty:
            continue
        fig.add_trace(go.Bar(y=part.pod, x=part.end - part.start, base=part.start, orientation="h", name=what,
                             marker_color=colour, customdata=part.note,
                             hovertemplate="%{y}<br>%{base}–%{x} s<br>%{customdata}<extra>" + what + "</extra>"))
    rules = rule_status_table(sim)
    for r in rules.itertuples():
        fig.add_vline(x=r.time, line_dash="dot", line_color="#777")
    if not rules.empty:
        fig.add_trace(go.Scatter(x=rules.time, y=[pods[0]] * len(rules), mode="markers", name="rule status",
                                 marker={"symbol": "diamond", "color": "#333", "size": 9},
                                 customdata=rules.rule + ": " + rules.message,
                                 hovertemplate="%{x} s<br>%{customdata}<extra></extra>"))
    fig.update_layout(title=title, barmode="overlay", xaxis_title="simulated seconds",
                      yaxis={"categoryorder": "array", "categoryarray": pods[::-1]},
                      height=140 + 32 * len(pods), margin={"l": 10, "r": 10, "t": 50, "b": 40})
    return fig


def binding_outcome(*, ready_at: float | None, timeout: str | None = "60s",
                    failed_at: float | None = None) -> tuple[str, float]:
    """Run the seed's binding-conditions scenario with the driver reporting ``is-prepared`` at
    ``ready_at`` (None: never) or ``preparing-failed`` at ``failed_at``, and ``bindingTimeout``
    ``timeout`` (None: the default 600 s): ``("bound", time)`` or ``("failed", time)`` of the first
    wait's end."""
    seed_path = _DATA / "dra" / "08-binding-conditions.yaml"
    seed_docs = safe_load_all(seed_path.read_text(), str(seed_path))
    config = next(d for d in seed_docs if d["kind"] == "KubeSchedulerConfiguration")
    if timeout is None:
        seed_docs.remove(config)
    else:
        config = copy.deepcopy(config)
        config["profiles"][0]["pluginConfig"][0]["args"]["bindingTimeout"] = timeout
        seed_docs = [d for d in seed_docs if d["kind"] != "KubeSchedulerConfiguration"] + [config]
    sim_path = _DATA / "dra-scheduling" / "binding-conditions-sim.yaml"
    docs = safe_load_all(sim_path.read_text(), str(sim_path))
    events = [docs[-1]["spec"]["events"][0]]
    for at, cond in ((ready_at, "dra.example.com/is-prepared"), (failed_at, "dra.example.com/preparing-failed")):
        if at is not None:
            events.append({"at": at, "setDeviceConditions": {"pod": "default/fabric-user", "conditions": [
                {"type": cond, "status": "True", "reason": "Driver", "message": "set by the driver"}]}})
    docs[-1]["spec"] = {"until": 700, "events": events}
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "seed.yaml").write_text(yaml.safe_dump_all(seed_docs))
        (Path(tmp) / "sim.yaml").write_text(yaml.safe_dump_all(docs))
        sim, _ = run_scenario(Path(tmp) / "seed.yaml", Path(tmp) / "sim.yaml")
    ends = [r for r in sim.dra.binding_frame().itertuples() if r.event in ("Bound", "Failed")]
    return ("bound" if ends[0].event == "Bound" else "failed"), float(ends[0].time)
