"""One run of a sweep: a scheduler configuration, a plugin variant, a workload and a seed, run
as a full simulation (:mod:`kschedlab.sim`) and summed up in one row.

Everything here is plain data that pickles (a custom plugin class travels by value when it was
defined in a notebook or ``__main__``, as cloudpickle does), so a run can go to any Dask worker.

>>> from kschedlab.research.trace import generate_trace
>>> run = Run("default", None, Variant("baseline"),
...           Workload("tiny", generate={"jobs": 6, "arrival_rate": 0.5}, nodes={"count": 2}), seed=0)
>>> row = execute(run)
>>> row["run_id"] == run.run_id, row["pods"] >= 6, row["scheduled_fraction"]
(True, True, 1.0)
"""

from __future__ import annotations

import copy
import hashlib
import inspect
import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from kschedlab.framework.out_of_tree import import_registry, merge_registries

__all__ = ["Variant", "Workload", "Run", "execute", "apply_variant", "plugin_registry", "NODE_DEFAULTS", "KEY_COLUMNS"]

#: the columns that name a run in a results table
KEY_COLUMNS = ["run_id", "config", "variant", "workload", "seed"]
#: the bound on scheduling attempts of a trace replay (a scenario keeps the simulation's 1,000,000)
MAX_TRACE_ATTEMPTS = 10**12
#: the node shape of a trace workload unless its ``nodes`` say otherwise (a PAI 8-GPU machine)
NODE_DEFAULTS = {"count": 10, "cpu": "96", "memory": "512Gi", "gpu": 8, "pods": 110}


def _class_identity(cls) -> dict:
    """What names a plugin class in a run id: module, qualified name and a digest of its source
    (when Python can find it), so that editing the class makes new runs."""
    try:
        source = inspect.getsource(cls)
    except (OSError, TypeError):
        source = ""
    return {"class": f"{cls.__module__}:{cls.__qualname__}",
            "source": hashlib.sha256(source.encode()).hexdigest()[:16] if source else ""}


@dataclass(frozen=True)
class Variant:
    """Custom plugins added to every profile of a configuration.

    ``plugins``: name -> plugin class (the out-of-tree registry); ``enable``: entries added to
    each profile's ``plugins.<point>.enabled`` (``{"name", "weight", "point"}``, point
    ``multiPoint`` when not given); ``args``: plugin name -> args added to ``pluginConfig``.

    >>> Variant("baseline").apply({"profiles": [{}]})
    {'profiles': [{}]}
    """

    name: str
    plugins: dict = field(default_factory=dict)
    enable: tuple = ()
    args: dict = field(default_factory=dict)

    def apply(self, config: dict | None) -> dict:
        """``config`` (a KubeSchedulerConfiguration as a dict, None: the default) with this
        variant's plugins enabled and configured in every profile."""
        return apply_variant(config, self)

    def identity(self) -> dict:
        return {"name": self.name, "plugins": {n: _class_identity(c) for n, c in sorted(self.plugins.items())},
                "enable": [dict(e) for e in self.enable], "args": self.args}


def apply_variant(config: dict | None, variant: Variant) -> dict:
    """See :meth:`Variant.apply`.

    >>> v = Variant("v", enable=({"name": "Spread", "weight": 2},), args={"Spread": {"k": 1}})
    >>> apply_variant(None, v)["profiles"][0]
    {'plugins': {'multiPoint': {'enabled': [{'name': 'Spread', 'weight': 2}]}}, 'pluginConfig': [{'name': 'Spread', 'args': {'k': 1}}]}
    """
    out = copy.deepcopy(config) if config else {}
    if not variant.enable and not variant.args:
        return out or {"profiles": [{}]} if config is None else out
    profiles = out.setdefault("profiles", []) or out.setdefault("profiles", [{}])
    if not profiles:
        profiles.append({})
    for profile in profiles:
        for entry in variant.enable:
            entry = dict(entry)
            point = entry.pop("point", "multiPoint")
            plugins = profile.setdefault("plugins", {})
            plugins.setdefault(point, {}).setdefault("enabled", []).append(entry)
        for name, args in variant.args.items():
            profile.setdefault("pluginConfig", []).append({"name": name, "args": copy.deepcopy(args)})
    return out


def plugin_registry(variant: Variant, plugins: tuple[str, ...] | list[str] = ()) -> dict:
    """The out-of-tree registries ``plugins`` (``MODULE:ATTRIBUTE``, imported by name) and the
    classes of ``variant`` in one; a name taken twice by different classes is refused as
    kube-scheduler's ``Registry.Merge`` refuses it.

    >>> from kschedlab.research.fgd.plugins import REGISTRY
    >>> sorted(plugin_registry(Variant("v", {"Mine": REGISTRY["FGDScore"]}), ["kschedlab.research.fgd.plugins:REGISTRY"]))[:3]
    ['BestFitScore', 'DotProductScore', 'FGDScore']
    >>> plugin_registry(Variant("v", {"FGDScore": REGISTRY["BestFitScore"]}), ["kschedlab.research.fgd.plugins:REGISTRY"])
    Traceback (most recent call last):
    ...
    kschedlab.framework.profile.ProfileError: a plugin named FGDScore already exists
    """
    from kschedlab.framework.profile import ProfileError

    merged = merge_registries(import_registry(text) for text in plugins)
    for name, cls in variant.plugins.items():
        if merged.get(name, cls) is not cls:
            raise ProfileError(f"a plugin named {name} already exists")
        merged[name] = cls
    return merged


def _file_digest(path: str) -> str:
    p = Path(path)
    files = sorted(f for f in p.rglob("*") if f.is_file()) if p.is_dir() else [p]
    h = hashlib.sha256()
    for f in files:
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


@dataclass(frozen=True)
class Workload:
    """What happens to the cluster: exactly one of

    * ``scenario``: scenario files as ``kschedlab simulate`` reads them (their own nodes, their
      own timeline; the sweep's configuration replaces theirs);
    * ``trace``: a job trace file (:mod:`kschedlab.research.trace`) replayed on ``nodes``;
    * ``generate``: :func:`~kschedlab.research.trace.generate_trace` arguments (``jobs``,
      ``arrival_rate``); the trace is drawn with the run's seed and replayed on ``nodes``.

    ``nodes``: ``count``, ``cpu``, ``memory``, ``gpu``, ``pods`` (:data:`NODE_DEFAULTS`);
    ``until``: virtual seconds to stop at (default: the scenario's, else when nothing can change
    any more); ``interval``: seconds between utilisation samples.
    """

    name: str
    scenario: tuple = ()
    trace: str | None = None
    generate: dict | None = None
    nodes: dict | None = None
    until: float | None = None
    interval: float = 60.0

    def identity(self) -> dict:
        out: dict[str, Any] = {"name": self.name, "until": self.until, "interval": self.interval}
        if self.scenario:
            out["scenario"] = [_file_digest(p) for p in self.scenario]
        if self.trace:
            out["trace"] = _file_digest(self.trace)
        if self.generate is not None:
            out["generate"] = self.generate
        if self.scenario == ():
            out["nodes"] = {**NODE_DEFAULTS, **(self.nodes or {})}
        return out

    def load_trace(self, seed: int):
        from kschedlab.research.trace import generate_trace, read_trace

        if self.trace:
            return read_trace(self.trace)
        return generate_trace(seed=seed, **(self.generate or {}))


@dataclass(frozen=True)
class Run:
    """One cell of a sweep. ``config``: a KubeSchedulerConfiguration as a dict (None: the
    default profile); ``keep_traces``: full traces kept (the sweep needs none)."""

    config_name: str
    config: dict | None
    variant: Variant
    workload: Workload
    seed: int = 0
    keep_traces: int = 0
    #: out-of-tree registries as ``MODULE:ATTRIBUTE`` (``kschedlab sweep --plugins``), imported by
    #: name where the run executes, so a Dask worker imports the module rather than receiving code
    plugins: tuple[str, ...] = ()

    @property
    def run_id(self) -> str:
        """A digest of everything that decides the run's outcome (16 hex digits)."""
        key = {"config": self.config, "variant": self.variant.identity(), "workload": self.workload.identity(),
               "seed": self.seed, "keep_traces": self.keep_traces}
        if self.plugins:
            key["plugins"] = {text: {n: _class_identity(c) for n, c in sorted(import_registry(text).items())}
                              for text in self.plugins}
        text = json.dumps(key, sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def labels(self) -> dict:
        return {"run_id": self.run_id, "config": self.config_name, "variant": self.variant.name,
                "workload": self.workload.name, "seed": self.seed}

    def scheduler_config(self) -> dict:
        return self.variant.apply(self.config)

    def registry(self) -> dict:
        """The plugins this run adds to the in-tree ones: :attr:`plugins` imported by name and
        the variant's classes (:func:`plugin_registry`)."""
        return plugin_registry(self.variant, self.plugins)

    def simulation(self):
        """The Simulation of this run, ready to run, with its ``until`` and its gang tracker."""
        from kschedlab.research.metrics import ClusterUtilization, GangWaits

        utilization = ClusterUtilization(self.workload.interval)
        config = self.scheduler_config()
        registry = self.registry()
        if self.workload.scenario:
            from kschedlab.sim.scenario import from_files

            sim, until = from_files(*self.workload.scenario, seed=self.seed, keep_traces=self.keep_traces,
                                    config=config, registry=registry, utilization=utilization)
        else:
            sim, until = self._trace_simulation(config, registry, utilization), None
        gangs = GangWaits(sim.cluster, lambda: sim.now)
        sim.scheduler.on_bound.append(gangs.on_bound)
        return sim, (self.workload.until if self.workload.until is not None else until), gangs

    def _trace_simulation(self, config, registry, utilization):
        from kschedlab.research.trace import TRACE_GATES, arrivals, make_nodes
        from kschedlab.sim import Simulation

        shape = {**NODE_DEFAULTS, **(self.workload.nodes or {})}
        count = shape.pop("count")
        sim = Simulation(make_nodes(count, **shape), config, gates=TRACE_GATES, seed=self.seed, registry=registry,
                         keep_traces=self.keep_traces, utilization=utilization, keep_history=False)
        sim.stream(arrivals(self.workload.load_trace(self.seed)))
        return sim


def execute(run: Run, *, progress: bool = False, prepare: Callable[[Any], None] | None = None) -> dict[str, Any]:
    """Run ``run`` and return its row: :data:`KEY_COLUMNS`, the numbers of
    :func:`~kschedlab.research.metrics.summarize` and its series (``progress``: a bar of virtual
    seconds on stderr; ``prepare``: called with the simulation before it runs, e.g. to watch its clock)."""
    from kschedlab.research.metrics import summarize

    start = time.perf_counter()
    sim, until, gangs = run.simulation()
    if prepare is not None:
        prepare(sim)
    trace = not run.workload.scenario
    # a trace ends: its replay runs until nothing can change, however many retries that takes
    result = sim.run(until=until, horizon=None if until is None and trace else 86400.0, progress=progress,
                     max_attempts=MAX_TRACE_ATTEMPTS if trace else 1_000_000)
    wall = time.perf_counter() - start
    row = {**run.labels(), **summarize(sim, result, wall_seconds=wall, gangs=gangs)}
    row["stop_reason"] = result.stop_reason
    if math.isnan(row["scheduled_fraction"]):
        row["scheduled_fraction"] = 0.0
    return row
