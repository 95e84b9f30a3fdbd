"""Sweeps: scheduler configurations x custom plugin variants x workloads x seeds, every run a
full simulation, run on Dask and gathered into one pandas DataFrame (and parquet on disk).

``kschedlab sweep SPEC.yaml`` reads a ``kschedlab.io/v1alpha1`` ``Sweep``; :func:`sweep` takes
the same from Python (custom plugin classes included)::

    apiVersion: kschedlab.io/v1alpha1
    kind: Sweep
    metadata: {name: most-allocated-vs-default}
    spec:
      output: results/most-allocated     # relative to this file
      seeds: [0, 1, 2]
      configs:
      - name: default                    # no config: the default profile
      - name: most-allocated
        file: most-allocated.yaml        # a KubeSchedulerConfiguration file (or `config:` inline)
      variants:
      - name: baseline
      - name: prefer-gpu-free
        plugins:
        - {name: PreferGPUFree, class: "mypkg.plugins:PreferGPUFree", weight: 2}
      workloads:
      - name: pai
        trace: ../traces/pai-2020-sample.csv
        nodes: {count: 20}
        until: 3600
      - name: pai-generated
        generate: {jobs: 300, arrivalRate: 0.05}
      - name: capacity-waits
        scenario: [../sim/capacity-waits.yaml]
      runs:                               # optional: these cells instead of the whole grid
      - {config: default, variant: baseline, workload: pai, seed: 0}

A ``spec.packing`` section runs the FGD paper's experiment instead (:mod:`kschedlab.research.fgd`):
its policies x traces x ``spec.seeds``, each run a :class:`~kschedlab.research.fgd.runs.PackingRun`
(``config`` ``packing``, ``variant`` the policy, ``workload`` the trace's name)::

    spec:
      output: results/fgd
      seeds: [42, 43, 44]
      packing:
        policies: [Random, DotProduct, GpuClustering, GpuPacking, BestFit, FGD]   # the default
        tieBreak: name                    # or random (upstream's draw)
        inflate: 1.3                      # requests up to 130 % of the cluster's GPUs
        traces:
        - {name: default, nodes: openb_node_list_gpu_node.csv, pods: openb_pod_list_default.csv}

Each run is one Dask task (``retries`` on failure; a task whose worker dies is rescheduled by
Dask), keyed by a digest of everything that decides its outcome (:attr:`Run.run_id`).  As each
run finishes its row is written to ``<output>/parts/run-<id>.parquet``; a sweep started again
with the same output skips the runs whose part is there, so an interrupted sweep resumes where
it stopped.  ``<output>/results.parquet`` holds the whole table at the end.
"""

from __future__ import annotations

import dataclasses
import importlib
import itertools
import logging
import os
import sys
import warnings
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any, Callable, Iterable

import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from kschedlab.api.errors import ManifestError, errors_from_validation
from kschedlab.api.safe_yaml import safe_load
from kschedlab.research.run import KEY_COLUMNS, Run, Variant, Workload, execute, plugin_registry

__all__ = ["SweepSpec", "load_spec", "plan", "sweep", "read_results", "summary_table", "describe", "check_configs",
           "missing_runs", "PARTS", "CorruptPartWarning", "WorkerLostWarning"]

API_VERSION = "kschedlab.io/v1alpha1"
#: the folder of per-run parts under a sweep's output
PARTS = "parts"


class K8sModel(BaseModel):
    """The Sweep's fields as the API objects take theirs: camelCase, unknown fields refused, strict types."""

    model_config = ConfigDict(extra="forbid", alias_generator=to_camel, populate_by_name=True, strict=True)


class ConfigEntry(K8sModel):
    """``spec.configs[i]``: a named KubeSchedulerConfiguration (``file``, ``config`` or neither)."""

    name: str
    file: str | None = None
    config: dict[str, Any] | None = None


class PluginEntry(K8sModel):
    """``spec.variants[i].plugins[j]``: an out-of-tree plugin, importable as ``module:Class``."""

    name: str
    class_: str = Field(alias="class")
    weight: int | None = None
    point: str = "multiPoint"
    args: dict[str, Any] | None = None


class VariantEntry(K8sModel):
    name: str
    plugins: list[PluginEntry] = Field(default_factory=list)


class NodesEntry(K8sModel):
    count: int = 10
    cpu: str = "96"
    memory: str = "512Gi"
    gpu: int = 8
    pods: int = 110


class GenerateEntry(K8sModel):
    jobs: int = 1000
    pods: int | None = None
    arrival_rate: float | None = None


class WorkloadEntry(K8sModel):
    """``spec.workloads[i]``: exactly one of ``scenario``, ``trace``, ``generate``."""

    name: str
    scenario: list[str] | None = None
    trace: str | None = None
    generate: GenerateEntry | None = None
    nodes: NodesEntry | None = None
    until: float | None = None
    interval: float = 60.0


class PackingTraceEntry(K8sModel):
    """``spec.packing.traces[i]``: a node list and a pod list of the openb schema."""

    name: str
    nodes: str
    pods: str


class PackingEntry(K8sModel):
    """``spec.packing``: the FGD paper's experiment (:mod:`kschedlab.research.fgd`), policies x traces
    x ``spec.seeds``; these runs replace the configs x variants x workloads grid."""

    policies: list[str] = Field(default_factory=lambda: ["Random", "DotProduct", "GpuClustering", "GpuPacking",
                                                         "BestFit", "FGD"])
    traces: list[PackingTraceEntry]
    tie_break: str = "name"
    inflate: float = 1.3


class RunEntry(K8sModel):
    config: str
    variant: str
    workload: str
    seed: int


class SweepSpecBody(K8sModel):
    output: str | None = None
    seeds: list[int] = Field(default_factory=lambda: [0])
    keep_traces: int = 0
    retries: int = 2
    configs: list[ConfigEntry] = Field(default_factory=lambda: [ConfigEntry(name="default")])
    variants: list[VariantEntry] = Field(default_factory=lambda: [VariantEntry(name="baseline")])
    workloads: list[WorkloadEntry] = Field(default_factory=list)
    packing: PackingEntry | None = None
    runs: list[RunEntry] | None = None


class SweepMetadata(K8sModel):
    name: str


class SweepSpec(K8sModel):
    """A ``kschedlab.io/v1alpha1`` ``Sweep`` as written (paths not yet resolved)."""

    api_version: str
    kind: str
    metadata: SweepMetadata
    spec: SweepSpecBody


def _error(file: str | None, obj: str | None, path: str, message: str) -> ManifestError:
    return ManifestError(message, file=file, obj=obj, path=path)


def _unique(entries, file, obj, what: str) -> None:
    seen: set[str] = set()
    for i, entry in enumerate(entries):
        if entry.name in seen:
            raise _error(file, obj, f"spec.{what}[{i}].name", f"Duplicate value: {entry.name!r}")
        seen.add(entry.name)


def _import_class(text: str, file, obj, path: str):
    module, _, name = text.partition(":")
    if not module or not name:
        raise _error(file, obj, path, f"Invalid value: {text!r}: expected module:Class")
    try:
        target = importlib.import_module(module)
        for part in name.split("."):
            target = getattr(target, part)
    except (ImportError, AttributeError) as err:
        raise _error(file, obj, path, f"Invalid value: {text!r}: cannot import: {err}") from None
    return target


def _load_config(entry: ConfigEntry, base: Path, file, obj, path: str) -> dict | None:
    from kschedlab.api.config import KubeSchedulerConfiguration
    from kschedlab.api.loader import load

    if entry.file is not None and entry.config is not None:
        raise _error(file, obj, path, "Invalid value: give file or config, not both")
    if entry.file is not None:
        target = base / entry.file
        if not target.exists():
            raise _error(file, obj, f"{path}.file", f"Not found: {entry.file!r}")
        found = [o for o in load(target) if isinstance(o, KubeSchedulerConfiguration)]
        if len(found) != 1:
            raise _error(file, obj, f"{path}.file",
                         f"Invalid value: {entry.file!r}: expected one KubeSchedulerConfiguration, found {len(found)}")
        return found[0].model_dump(mode="json", by_alias=True, exclude_unset=True)
    if entry.config is not None:
        data = {"apiVersion": KubeSchedulerConfiguration.API_VERSION, "kind": "KubeSchedulerConfiguration",
                **entry.config}
        try:
            model = KubeSchedulerConfiguration.model_validate(data)
        except ValidationError as err:
            raise ManifestError.combine(errors_from_validation(err, file=file, obj=obj,
                                                               prefix=(*_loc(path), "config"))) from None
        return model.model_dump(mode="json", by_alias=True, exclude_unset=True)
    return None


def _loc(path: str) -> tuple:
    """``spec.configs[1]`` -> ("spec", "configs", 1)."""
    out: list[Any] = []
    for part in path.replace("]", "").split("."):
        name, *indexes = part.split("[")
        out.append(name)
        out.extend(int(i) for i in indexes)
    return tuple(out)


def check_configs(configs: dict[str, dict | None], variants: dict[str, Variant], *, file: str | None = None,
                  obj: str | None = None, paths: dict[str, str] | None = None, plugins: Iterable[str] = ()) -> None:
    """Build a scheduler for every (configuration, variant) pair on an empty cluster, so that an
    unknown plugin or bad args fail before any run starts, naming the configuration's field
    (``plugins``: out-of-tree registries as ``MODULE:ATTRIBUTE``, as :attr:`Run.plugins`)."""
    from kschedlab.cluster import Cluster
    from kschedlab.framework.interface import ArgsError
    from kschedlab.framework.profile import ProfileError
    from kschedlab.research.trace import TRACE_GATES
    from kschedlab.scheduler import ConfigError, Scheduler

    plugins = tuple(plugins)
    for (cname, config), (vname, variant) in itertools.product(configs.items(), variants.items()):
        try:
            Scheduler(Cluster([]), variant.apply(config), gates=TRACE_GATES, registry=plugin_registry(variant, plugins))
        except (ArgsError, ProfileError, ConfigError, ValueError) as err:
            where = (paths or {}).get(cname, f"configs[{cname}]")
            raise _error(file, obj, where, f"with variant {vname!r}: {err}") from None


def load_spec(path: str | os.PathLike, plugins: Iterable[str] = ()) -> tuple[list[Run], Path | None, int]:
    """Read a Sweep file: its runs (the grid, or ``spec.runs``), its output folder (relative
    paths are relative to the file) and ``spec.retries``; ``plugins``: out-of-tree registries
    (``MODULE:ATTRIBUTE``) every run adds, which the configurations may enable.  Any problem raises
    :class:`~kschedlab.api.errors.ManifestError` naming the file, the Sweep and the field path.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "s.yaml").write_text("apiVersion: kschedlab.io/v1alpha1\\nkind: Sweep\\nmetadata: {name: s}\\n"
    ...     "spec:\\n  seeds: [0, 1]\\n  workloads:\\n  - {name: w, generate: {jobs: 5, arrivalRat: 1}}\\n")
    >>> load_spec(d / "s.yaml")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    kschedlab.api.errors.ManifestError: .../s.yaml: Sweep s: spec.workloads[0].generate.arrivalRat: unknown field "arrivalRat"
    """
    path = Path(path)
    file = str(path)
    try:
        data = safe_load(path.read_text(encoding="utf-8"), file)
    except OSError as err:
        raise _error(file, None, "", f"cannot read file: {err}") from None
    if not isinstance(data, dict):
        raise _error(file, None, "", "expected a Sweep object")
    name = (data.get("metadata") or {}).get("name") if isinstance(data.get("metadata"), dict) else None
    obj = f"Sweep {name}" if name else "Sweep"
    if data.get("apiVersion") != API_VERSION or data.get("kind") != "Sweep":
        raise _error(file, obj, "kind" if data.get("apiVersion") == API_VERSION else "apiVersion",
                     f"Unsupported value: expected apiVersion {API_VERSION} and kind Sweep, got "
                     f"{data.get('apiVersion')!r} {data.get('kind')!r}")
    try:
        spec = SweepSpec.model_validate(data)
    except ValidationError as err:
        raise ManifestError.combine(errors_from_validation(err, file=file, obj=obj)) from None
    base = path.parent
    body = spec.spec
    registries = tuple(plugins)
    if body.packing is not None:
        if registries:
            raise _error(file, obj, "spec.packing", "Forbidden: a packing sweep runs the FGD engine's own policies, "
                                                    "not out-of-tree plugins (--plugins)")
        return _packing_runs(body, base, file, obj)
    if not body.workloads:
        raise _error(file, obj, "spec.workloads", "Required value: give workloads (or packing)")
    for what in ("configs", "variants", "workloads"):
        _unique(getattr(body, what), file, obj, what)
    if not body.seeds:
        raise _error(file, obj, "spec.seeds", "Required value: at least one seed")
    configs = {e.name: _load_config(e, base, file, obj, f"spec.configs[{i}]") for i, e in enumerate(body.configs)}
    variants = {}
    for i, entry in enumerate(body.variants):
        plugins, enable, args = {}, [], {}
        for j, p in enumerate(entry.plugins):
            plugins[p.name] = _import_class(p.class_, file, obj, f"spec.variants[{i}].plugins[{j}].class")
            enable.append({"name": p.name, "point": p.point, **({"weight": p.weight} if p.weight else {})})
            if p.args:
                args[p.name] = p.args
        variants[entry.name] = Variant(entry.name, plugins, tuple(enable), args)
    check_configs(configs, variants, file=file, obj=obj,
                  paths={e.name: f"spec.configs[{i}]" for i, e in enumerate(body.configs)}, plugins=registries)
    workloads = {}
    for i, w in enumerate(body.workloads):
        where = f"spec.workloads[{i}]"
        given = [k for k in ("scenario", "trace", "generate") if getattr(w, k) is not None]
        if len(given) != 1:
            raise _error(file, obj, where, "Invalid value: give exactly one of scenario, trace, generate")
        if w.interval <= 0:
            raise _error(file, obj, f"{where}.interval", f"Invalid value: {w.interval:g}: must be greater than 0")
        files = [str(base / f) for f in (w.scenario or ([w.trace] if w.trace else []))]
        for j, f in enumerate(files):
            if not Path(f).exists():
                field = f"{where}.scenario[{j}]" if w.scenario else f"{where}.trace"
                raise _error(file, obj, field, f"Not found: {Path(f).relative_to(base).as_posix()!r}")
        if w.trace:
            from kschedlab.research.trace import read_trace

            read_trace(files[0])  # a bad trace is reported now, with its own file and row
        if w.nodes is not None and w.scenario:
            raise _error(file, obj, f"{where}.nodes", "Forbidden: a scenario brings its own nodes")
        workloads[w.name] = Workload(
            w.name, scenario=tuple(files) if w.scenario else (), trace=files[0] if w.trace else None,
            generate=(w.generate.model_dump(exclude_none=True) if w.generate is not None else None),
            nodes=w.nodes.model_dump() if w.nodes is not None else None, until=w.until, interval=w.interval)
    if body.runs is None:
        runs = plan(configs, variants, workloads, body.seeds, keep_traces=body.keep_traces, plugins=registries)
    else:
        runs = []
        for i, r in enumerate(body.runs):
            for field, table in (("config", configs), ("variant", variants), ("workload", workloads)):
                if getattr(r, field) not in table:
                    raise _error(file, obj, f"spec.runs[{i}].{field}", f"Not found: {getattr(r, field)!r}")
            runs.append(Run(r.config, configs[r.config], variants[r.variant], workloads[r.workload], r.seed,
                            body.keep_traces, registries))
    output = (base / body.output) if body.output else None
    return runs, output, body.retries


def _packing_runs(body: SweepSpecBody, base: Path, file, obj) -> tuple[list, Path | None, int]:
    """``spec.packing``: the runs of the FGD experiment (``spec.runs`` picks cells by
    ``variant`` = policy and ``workload`` = trace name; ``config`` is ``packing``)."""
    from kschedlab.research.fgd.openb import read_nodes, read_pods
    from kschedlab.research.fgd.runs import CONFIG, PackingTrace, packing_runs

    entry = body.packing
    if body.workloads:
        raise _error(file, obj, "spec.workloads", "Forbidden: a packing sweep brings its own traces")
    if entry.tie_break not in ("name", "random"):
        raise _error(file, obj, "spec.packing.tieBreak",
                     f'Unsupported value: "{entry.tie_break}": supported values: "name", "random"')
    if not body.seeds:
        raise _error(file, obj, "spec.seeds", "Required value: at least one seed")
    _unique(entry.traces, file, obj, "packing.traces")
    traces = []
    for i, t in enumerate(entry.traces):
        for what, reader in (("nodes", read_nodes), ("pods", read_pods)):
            target = base / getattr(t, what)
            if not target.exists():
                raise _error(file, obj, f"spec.packing.traces[{i}].{what}", f"Not found: {getattr(t, what)!r}")
            try:
                reader(target)
            except ValueError as err:
                raise _error(file, obj, f"spec.packing.traces[{i}].{what}", f"Invalid value: {err}") from None
        traces.append(PackingTrace(t.name, str(base / t.nodes), str(base / t.pods)))
    try:
        runs = packing_runs(entry.policies, traces, body.seeds, tie_break=entry.tie_break, inflate=entry.inflate)
    except ValueError as err:
        raise _error(file, obj, "spec.packing.policies", f"Unsupported value: {err}") from None
    if body.runs is not None:
        cells = {(r.config_name, r.variant.name, r.workload.name, r.seed): r for r in runs}
        picked = []
        for i, r in enumerate(body.runs):
            key = (r.config, r.variant, r.workload, r.seed)
            if key not in cells:
                raise _error(file, obj, f"spec.runs[{i}]", f"Not found: {CONFIG!r} cell {key!r}")
            picked.append(cells[key])
        runs = picked
    return runs, (base / body.output) if body.output else None, body.retries


def _execute(run) -> dict:
    """One run's row: a simulation run (:func:`~kschedlab.research.run.execute`) or a run that
    executes itself (a packing run)."""
    own = getattr(run, "execute", None)
    return own() if own is not None else execute(run)


def plan(configs: dict[str, dict | None], variants: dict[str, Variant] | Iterable[Variant],
         workloads: dict[str, Workload] | Iterable[Workload], seeds: Iterable[int], *,
         keep_traces: int = 0, plugins: Iterable[str] = ()) -> list[Run]:
    """The grid: every configuration x variant x workload x seed, in that order (``plugins``:
    :attr:`Run.plugins` of every run).

    >>> runs = plan({"default": None}, [Variant("a"), Variant("b")], [Workload("w", generate={"jobs": 3})], [0, 1])
    >>> [(r.variant.name, r.seed) for r in runs]
    [('a', 0), ('a', 1), ('b', 0), ('b', 1)]
    """
    if not isinstance(variants, dict):
        variants = {v.name: v for v in variants}
    if not isinstance(workloads, dict):
        workloads = {w.name: w for w in workloads}
    plugins = tuple(plugins)
    return [Run(c, configs[c], variants[v], workloads[w], seed, keep_traces, plugins)
            for c, v, w, seed in itertools.product(configs, variants, workloads, list(seeds))]


def _part(output: Path, run_id: str) -> Path:
    return output / PARTS / f"run-{run_id}.parquet"


def _write_part(output: Path, row: dict) -> Path:
    """One run's row as a parquet file, written whole or not at all (a temporary file renamed)."""
    target = _part(output, row["run_id"])
    target.parent.mkdir(parents=True, exist_ok=True)
    _write_whole(pd.DataFrame([row]), target)
    return target


def _write_whole(frame: pd.DataFrame, target: Path) -> None:
    """``frame`` as parquet at ``target``, whole or not at all (a temporary file renamed; an
    interrupted write leaves no file behind)."""
    tmp = target.with_name(target.name + ".tmp")
    try:
        frame.to_parquet(tmp, index=False)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


class WorkerLostWarning(UserWarning):
    """A Dask worker of the sweep went away (its process died or was killed); the runs it held
    are run again elsewhere, up to ``retries`` times."""

    #: ``kschedlab`` prints it as one ``warning:`` line
    one_line = True


def _workers(client) -> dict[str, str]:
    """The scheduler's workers now: address -> name, asked of the scheduler itself (the client's
    ``scheduler_info()`` returns a copy that its periodic refresh, every 2 s, may just have replaced
    by one without workers: every worker would seem gone)."""
    identity = client.sync(client.scheduler.identity, n_workers=-1)
    return {addr: str(info.get("name", addr)) for addr, info in identity["workers"].items()}


def _report_lost(client, known: dict[str, str]) -> None:
    """Warn about each worker of ``known`` that the scheduler no longer has; ``known`` becomes
    the workers now."""
    now = _workers(client)
    for addr in sorted(set(known) - set(now)):
        warnings.warn(WorkerLostWarning(f"Dask worker {known[addr]} ({addr}) died or left; the runs it held "
                                        "are run again on the other workers"), stacklevel=3)
    known.clear()
    known.update(now)


class CorruptPartWarning(UserWarning):
    """A parquet part of an earlier sweep could not be read: it is removed and its run made again."""

    #: ``kschedlab`` prints it as one ``warning:`` line
    one_line = True


def _part_error(part: Path) -> str | None:
    """Why ``part`` cannot be read as parquet (None when it can: its footer is read)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        pq.read_metadata(part)
    except (pa.ArrowException, OSError, ValueError) as err:
        return str(err) or type(err).__name__
    return None


def missing_runs(runs: Iterable[Run], output: str | os.PathLike) -> list[Run]:
    """The runs of ``runs`` (each once) whose part is not under ``output``: what :func:`sweep`
    with that output computes (the others are read back). A part that cannot be read (a
    corrupt or truncated file) is named in a :class:`CorruptPartWarning`, removed, and its run
    counts as missing.

    >>> import tempfile
    >>> runs = plan({"default": None}, [Variant("a")], [Workload("w", generate={"jobs": 3})], [0, 1])
    >>> len(missing_runs(runs + runs, tempfile.mkdtemp()))
    2
    """
    by_id = {r.run_id: r for r in runs}
    todo = []
    for r in by_id.values():
        part = _part(Path(output), r.run_id)
        if part.exists():
            why = _part_error(part)
            if why is None:
                continue
            warnings.warn(CorruptPartWarning(f"{part}: cannot be read as parquet ({why}); run {r.run_id} is "
                                             "run again"), stacklevel=2)
            part.unlink()
        todo.append(r)
    return todo


def read_results(output: str | os.PathLike, run_ids: Iterable[str] | None = None) -> pd.DataFrame:
    """The rows written under ``output`` (only ``run_ids`` when given), sorted by configuration,
    variant, workload and seed."""
    folder = Path(output) / PARTS
    wanted = None if run_ids is None else set(run_ids)
    parts = [p for p in sorted(folder.glob("run-*.parquet")) if wanted is None or p.stem[len("run-"):] in wanted]
    for p in parts:
        why = _part_error(p)
        if why is not None:
            raise ManifestError(f"cannot be read as parquet ({why}); remove it or run the sweep again", file=str(p))
    frames = [pd.read_parquet(p) for p in parts]
    if not frames:
        return pd.DataFrame(columns=KEY_COLUMNS)
    df = pd.concat(frames, ignore_index=True)
    return df.sort_values(["config", "variant", "workload", "seed"], kind="stable").reset_index(drop=True)


@contextmanager
def _main_kept_home():
    """While in the block, a new process started with ``spawn`` (how Dask's nannies start their
    workers) does not import the ``__main__`` of this one, as it does not for a notebook's kernel.

    A script's ``__main__`` names its file (``python script.py``) or its module (``python -m
    mod``), and ``multiprocessing`` imports it again in every spawned worker: a script that
    calls :func:`sweep` at import level, without ``if __name__ == "__main__":``, would start a
    sweep in each worker and the workers would fail to start (Dask's "Nanny failed to start").
    The workers never need it: they import plugin modules by name, and cloudpickle sends what
    ``__main__`` defines by value.

    >>> import sys
    >>> main = sys.modules["__main__"]
    >>> before = getattr(main, "__file__", None), getattr(main, "__spec__", None)
    >>> with _main_kept_home():
    ...     getattr(main, "__file__", None), getattr(main, "__spec__", None)
    (None, None)
    >>> (getattr(main, "__file__", None), getattr(main, "__spec__", None)) == before
    True
    """
    main = sys.modules.get("__main__")
    saved = {k: main.__dict__[k] for k in ("__file__", "__spec__") if main is not None and k in main.__dict__}
    try:
        for key in saved:
            if key == "__file__":
                del main.__dict__[key]
            else:
                main.__dict__[key] = None
        yield
    finally:
        if main is not None:
            main.__dict__.update(saved)


def _client(stack: ExitStack, client, address: str | None, workers: int):
    """The client to run on: the one given, one connected to ``address``, or a new LocalCluster of
    ``workers`` processes (one thread each) closed when the sweep ends; while it lives its
    workers (those Dask restarts too) start without the script that called :func:`sweep`
    (:func:`_main_kept_home`)."""
    if client is not None:
        return client
    from distributed import Client, LocalCluster

    if address is not None:
        return stack.enter_context(Client(address))
    stack.enter_context(_main_kept_home())
    cluster = stack.enter_context(LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                               dashboard_address=":0", silence_logs=logging.CRITICAL))
    return stack.enter_context(Client(cluster))


def sweep(spec: str | os.PathLike | None = None, *, runs: list[Run] | None = None,
          configs: dict[str, dict | None] | None = None, variants=None, workloads=None,
          seeds: Iterable[int] = (0,), output: str | os.PathLike | None = None, client=None,
          address: str | None = None, workers: int = 2, retries: int | None = None, progress: bool = True,
          on_result: Callable[[dict], None] | None = None, plugins: Iterable[str] = ()) -> pd.DataFrame:
    """Run a sweep and return its table: one row per run, :data:`~kschedlab.research.run.KEY_COLUMNS`,
    the numbers of :func:`~kschedlab.research.metrics.summarize` (``scheduled_fraction``,
    ``pending_p50`` ... ``decisions_per_second``) and, as list columns, ``pending_times`` and
    the utilisation series (``time``, ``cpu_utilization``, ...).

    The runs: a Sweep file ``spec``, or ``runs``, or the grid of ``configs`` (name ->
    KubeSchedulerConfiguration dict, None for the default) x ``variants`` (:class:`Variant`) x
    ``workloads`` (:class:`Workload`) x ``seeds``.  ``output``: the folder of parquet parts
    (required; a spec's ``spec.output`` by default); runs already written there are not run
    again.  ``client`` / ``address`` / ``workers``: where to run (default: a LocalCluster of
    ``workers`` processes, closed at the end).  ``retries``: per run, on failure (default 2).
    ``on_result(row)`` is called after each run's part is written.  ``plugins``: out-of-tree
    registries as ``MODULE:ATTRIBUTE`` (``kschedlab sweep --plugins``) that every run adds and the
    configurations may enable; each worker imports the module by name (it must be importable
    there: a LocalCluster's workers have this process's ``sys.path``).  The table lists which runs
    this call computed in ``attrs["computed"]`` (run ids, in the table's order).
    """
    spec_retries = None
    plugins = tuple(plugins)
    if spec is not None:
        runs, spec_output, spec_retries = load_spec(spec, plugins)
        output = output if output is not None else spec_output
    elif runs is None:
        if workloads is None:
            raise ValueError("give a spec, runs, or workloads (with configs, variants and seeds)")
        runs = plan(configs if configs is not None else {"default": None},
                    variants if variants is not None else [Variant("baseline")], workloads, seeds, plugins=plugins)
    elif plugins:
        if any(hasattr(r, "execute") for r in runs):
            raise ValueError("plugins: a packing run runs the FGD engine's own policies, not out-of-tree plugins")
        runs = [dataclasses.replace(r, plugins=plugins) for r in runs]
    if output is None:
        raise ValueError("output: Required value: the folder the results are written to")
    output = Path(output)
    retries = retries if retries is not None else (spec_retries if spec_retries is not None else 2)
    by_id = {r.run_id: r for r in runs}
    if spec is None and not all(hasattr(r, "execute") for r in runs):
        check_configs({r.config_name: r.config for r in runs}, {r.variant.name: r.variant for r in runs},
                      plugins=plugins)
    todo = missing_runs(by_id.values(), output)
    computed: list[str] = []
    if todo:
        with ExitStack() as stack:
            dask_client = _client(stack, client, address, workers)
            from distributed import as_completed

            bar = None
            if progress:
                from tqdm.auto import tqdm

                bar = stack.enter_context(tqdm(total=len(by_id), initial=len(by_id) - len(todo), unit="run",
                                               desc="sweep"))
            known = _workers(dask_client)
            futures = [dask_client.submit(_execute, r, key=f"kschedlab-run-{r.run_id}", retries=retries, pure=False)
                       for r in todo]
            try:
                for future in as_completed(futures):
                    _report_lost(dask_client, known)
                    try:
                        row = future.result()
                    except Exception as err:
                        run = by_id[future.key[len("kschedlab-run-"):]]
                        raise RuntimeError(f"run {run.run_id} ({run.config_name}, {run.variant.name}, "
                                           f"{run.workload.name}, seed {run.seed}) failed: {err}") from err
                    _write_part(output, row)
                    computed.append(row["run_id"])
                    if bar is not None:
                        bar.update(1)
                    if on_result is not None:
                        on_result(row)
            finally:
                for future in futures:
                    future.cancel()
    table = read_results(output, by_id)
    if len(table):
        _write_whole(table, output / "results.parquet")
    order = {rid: i for i, rid in enumerate(table["run_id"])}
    table.attrs["computed"] = sorted(computed, key=order.get)
    table.attrs["output"] = str(output)
    return table


#: the columns :func:`summary_table` shows
SUMMARY = ["scheduled_fraction", "pending_p50", "pending_p90", "pending_p99", "cpu_utilization_mean",
           "gpu_utilization_mean", "gpu_fragmentation_mean", "preemptions", "evictions", "gang_wait_p90"]


def summary_table(results: pd.DataFrame, columns: list[str] | None = None, *, timing: bool = False) -> pd.DataFrame:
    """Means over seeds per configuration, variant and workload (``timing``: with
    ``wall_seconds`` and ``decisions_per_second``, which differ from run to run)."""
    columns = list(columns or SUMMARY) + (["wall_seconds", "decisions_per_second"] if timing else [])
    groups = results.groupby(["config", "variant", "workload"], sort=True)
    table = groups[columns].mean()
    table.insert(0, "seeds", groups["seed"].count())
    return table


def describe(results: pd.DataFrame) -> str:
    """The summary table as text (``kschedlab sweep``'s output); a packing sweep's as
    :func:`kschedlab.research.fgd.runs.summary`."""
    if "unallocated_100" in results.columns:
        from kschedlab.research.fgd.runs import summary

        with pd.option_context("display.width", 200, "display.max_columns", 20):
            return summary(results).to_string(index=False, na_rep="-")
    with pd.option_context("display.width", 200, "display.max_columns", 20, "display.float_format", "{:.3g}".format):
        return summary_table(results, timing=True).to_string(na_rep="-")


