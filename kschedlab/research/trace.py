"""Job traces: a documented table of jobs, read from CSV or parquet, drawn from the published
shape of a public GPU cluster trace, and turned into simulation arrivals.

The schema (:data:`TRACE_COLUMNS`), one row per job:

============  ========  ======================================================================
column        type      meaning
============  ========  ======================================================================
``job``       string    the job's name (optional; ``job-<row>`` when absent)
``arrival``   float     submission time, seconds of virtual time from the start (>= 0)
``duration``  float     run time once bound, seconds (> 0; empty: runs forever)
``cpu``       integer   CPU request of each pod, millicores (>= 0)
``memory``    integer   memory request of each pod, MiB (>= 0)
``gpu``       integer   ``nvidia.com/gpu`` request (and limit) of each pod (>= 0)
``gang``      integer   pods of the job (>= 1); more than one: a PodGroup with a gang policy
                        ``minCount`` = ``gang`` (feature gate GenericWorkload), all or nothing
``priority``  integer   ``spec.priority`` of each pod
============  ========  ======================================================================

A job of ``gang`` n is n pods ``<job>-0`` .. ``<job>-<n-1>`` in namespace ``trace``, each with
the row's requests; the pods of a gang arrive together.  The table is kept compact (numpy
columns: float64 times, int32 requests, int16 gang sizes) and is read row by row as the clock
reaches each arrival (:func:`arrivals`), so a long trace never becomes Pod objects all at once.

>>> trace = generate_trace(jobs=4, seed=1)
>>> list(trace.columns) == TRACE_COLUMNS
True
>>> trace["arrival"].is_monotonic_increasing and bool((trace["gang"] >= 1).all())
True
>>> [type(obj).__name__ for _, obj, _ in arrivals(trace.iloc[:1].assign(gang=2))]
['PodGroup', 'Pod', 'Pod']
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np
import pandas as pd

from kschedlab.api.errors import ManifestError
from kschedlab.api.meta import copier
from kschedlab.api.quantity import Quantity

__all__ = [
    "TRACE_COLUMNS", "TRACE_NAMESPACE", "GPU_RESOURCE", "TRACE_GATES", "PAI_2020", "TraceShape",
    "read_trace", "write_trace", "validate_trace", "generate_trace", "arrivals", "make_nodes", "trace_pods",
]

#: the columns of a trace, in order
TRACE_COLUMNS = ["job", "arrival", "duration", "cpu", "memory", "gpu", "gang", "priority"]
#: the namespace of the pods and PodGroups a trace creates
TRACE_NAMESPACE = "trace"
#: GPUs are the device plugin's extended resource
GPU_RESOURCE = "nvidia.com/gpu"
#: gangs go through the PodGroup cycle
TRACE_GATES = {"GenericWorkload": True}

_DTYPES = {"arrival": np.float64, "duration": np.float64, "cpu": np.int32, "memory": np.int32, "gpu": np.int16,
           "gang": np.int16, "priority": np.int32}
_MINIMUM = {"arrival": 0, "cpu": 0, "memory": 0, "gpu": 0, "gang": 1}


def _fail(source: str, message: str, row: int | None = None, column: str | None = None) -> ManifestError:
    return ManifestError(message, file=source, obj=None if row is None else f"row {row}", path=column)


def validate_trace(frame: pd.DataFrame, source: str = "<trace>") -> pd.DataFrame:
    """Check ``frame`` against the schema and return it compact (the dtypes above, sorted by
    arrival, stable).  A bad table raises :class:`~kschedlab.api.errors.ManifestError` naming
    ``source``, the row (counted from 0, as in the file's data rows) and the column.

    >>> validate_trace(pd.DataFrame({"arrival": [0.0], "duration": [60], "cpu": [1000], "memory": [512],
    ...                              "gpu": [1], "gang": [0], "priority": [0]}), "jobs.csv")
    Traceback (most recent call last):
    ...
    kschedlab.api.errors.ManifestError: jobs.csv: row 0: gang: Invalid value: 0: must be at least 1
    """
    unknown = [c for c in frame.columns if c not in TRACE_COLUMNS]
    if unknown:
        openb = {"cpu_milli", "num_gpu"} <= set(frame.columns)
        raise _fail(source, f'unknown field "{unknown[0]}" (the columns are {", ".join(TRACE_COLUMNS)})'
                    + ("; this is an openb pod list: replay it with `kschedlab packing` or a Sweep's spec.packing"
                       if openb else ""), column=str(unknown[0]))
    missing = [c for c in TRACE_COLUMNS if c not in frame.columns and c not in ("job", "duration")]
    if missing:
        raise _fail(source, "Required value", column=missing[0])
    out: dict[str, np.ndarray] = {}
    for column, dtype in _DTYPES.items():
        if column not in frame.columns:  # duration: every job runs forever
            out[column] = np.full(len(frame), np.nan)
            continue
        values = pd.to_numeric(frame[column], errors="coerce")
        bad = values.isna() & frame[column].notna() if column == "duration" else values.isna()
        if bad.any():
            row = int(np.flatnonzero(bad.to_numpy())[0])
            raise _fail(source, f"invalid value {frame[column].iloc[row]!r}: expected a number", row, column)
        array = values.to_numpy(dtype=np.float64)
        if np.issubdtype(dtype, np.integer):
            fractional = np.flatnonzero(array != np.floor(array))
            if len(fractional):
                row = int(fractional[0])
                raise _fail(source, f"Invalid value: {array[row]:g}: must be an integer", row, column)
            info = np.iinfo(dtype)
            outside = np.flatnonzero((array < info.min) | (array > info.max))
            if len(outside):
                row = int(outside[0])
                raise _fail(source, f"Invalid value: {array[row]:g}: must be at most {info.max}", row, column)
        low = _MINIMUM.get(column)
        below = np.flatnonzero(array < low) if low is not None else np.array([], int)
        if column == "duration":
            below = np.flatnonzero(array <= 0)
        if len(below):
            row = int(below[0])
            value = int(array[row]) if np.issubdtype(dtype, np.integer) else f"{array[row]:g}"
            rule = "must be greater than 0" if column == "duration" else f"must be at least {low}"
            raise _fail(source, f"Invalid value: {value}: {rule}", row, column)
        out[column] = array.astype(dtype)
    if "job" in frame.columns:
        jobs = frame["job"].astype(str).to_numpy()
        duplicated = pd.Series(jobs).duplicated().to_numpy()
        if duplicated.any():
            row = int(np.flatnonzero(duplicated)[0])
            raise _fail(source, f"Duplicate value: {jobs[row]!r}", row, "job")
    else:
        jobs = np.array([f"job-{i}" for i in range(len(frame))], dtype=object)
    compact = pd.DataFrame({"job": jobs, **out}, columns=TRACE_COLUMNS)
    return compact.sort_values("arrival", kind="stable").reset_index(drop=True)


def read_trace(path: str | Path) -> pd.DataFrame:
    """Read a trace from ``.csv`` or ``.parquet`` and validate it (:func:`validate_trace`).

    >>> from kschedlab.research.trace import SAMPLE
    >>> trace = read_trace(SAMPLE)
    >>> len(trace), int(trace["gang"].sum())
    (200, 394)
    """
    path = Path(path)
    try:
        if path.suffix == ".parquet":
            frame = pd.read_parquet(path)
        elif path.suffix == ".csv":
            frame = pd.read_csv(path, comment="#", dtype={"job": str})
        else:
            raise _fail(str(path), "a trace is a .csv or .parquet file")
    except (OSError, ValueError) as err:
        if isinstance(err, ManifestError):
            raise
        raise _fail(str(path), f"cannot read the trace: {err}") from None
    return validate_trace(frame, str(path))


def write_trace(trace: pd.DataFrame, path: str | Path) -> Path:
    """Write ``trace`` as CSV or parquet (by the suffix of ``path``); returns the path."""
    path = Path(path)
    trace = validate_trace(trace, str(path))
    if path.suffix == ".parquet":
        trace.to_parquet(path, index=False)
    else:
        trace.to_csv(path, index=False, float_format="%.3f")
    return path


@dataclass(frozen=True)
class TraceShape:
    """The distributions :func:`generate_trace` draws from (all parameters; see :data:`PAI_2020`).

    ``arrival_rate`` jobs per second (a Poisson process); ``gang_sizes`` / ``gang_weights``,
    ``gpu_counts`` / ``gpu_weights`` and ``priorities`` / ``priority_weights``: categorical
    distributions; ``cpu_median`` (millicores), ``cpu_sigma``: log-normal CPU per pod, clipped to
    ``cpu_range``; ``memory_per_cpu`` (MiB per core) times a log-normal factor of sigma
    ``memory_sigma``, clipped to ``memory_range`` (MiB); ``duration_median`` (s),
    ``duration_sigma``: log-normal run time clipped to ``duration_range``; a job with GPUs asks
    for at least ``cpu_per_gpu`` millicores per GPU.
    """

    arrival_rate: float = 0.05
    gang_sizes: tuple[int, ...] = (1, 2, 4, 8, 16)
    gang_weights: tuple[float, ...] = (0.80, 0.07, 0.07, 0.04, 0.02)
    gpu_counts: tuple[int, ...] = (0, 1, 2, 4, 8)
    gpu_weights: tuple[float, ...] = (0.22, 0.64, 0.06, 0.04, 0.04)
    cpu_median: float = 6000
    cpu_sigma: float = 0.8
    cpu_range: tuple[int, int] = (500, 64000)
    cpu_per_gpu: int = 4000
    memory_per_cpu: float = 4096
    memory_sigma: float = 0.5
    #: at most three quarters of a PAI machine's 512 GiB (as ``cpu_range`` keeps to 64 of its 96
    #: cores), so that every pod fits an empty default node: a pod no node can hold would be
    #: retried after every completion for the whole replay and never run
    memory_range: tuple[int, int] = (64, 384 * 1024)
    duration_median: float = 1200.0
    duration_sigma: float = 1.8
    duration_range: tuple[float, float] = (10.0, 3 * 86400.0)
    priorities: tuple[int, ...] = (0, 100, 1000)
    priority_weights: tuple[float, ...] = (0.70, 0.20, 0.10)


#: The shape of the Alibaba PAI GPU cluster trace of July-August 2020 (``cluster-trace-gpu-v2020``
#: in github.com/alibaba/clusterdata; Weng et al., "MLaaS in the Wild: Workload Analysis and
#: Scheduling in Large-Scale Heterogeneous GPU Clusters", USENIX NSDI 2022): about 1,800
#: machines with 6,500 GPUs, most of them 96-core / 8-GPU; tasks of one or many instances (the
#: multi-instance ones gang-scheduled); most instances ask for at most one GPU and some for none
#: (CPU-only roles such as parameter servers); CPU requests of a few cores (``plan_cpu`` 600 =
#: 6 cores is typical); run times heavy-tailed over seconds to days.  The parameters are our
#: rounded reading of those published distributions (not a fit to the data, which is not
#: downloaded): change them to study another shape.
PAI_2020 = TraceShape()


def generate_trace(jobs: int = 1000, *, seed: int = 0, shape: TraceShape = PAI_2020,
                   arrival_rate: float | None = None, pods: int | None = None) -> pd.DataFrame:
    """``jobs`` jobs drawn from ``shape`` (default :data:`PAI_2020`), deterministic for ``seed``
    (numpy's PCG64); ``arrival_rate`` (jobs/s) overrides the shape's.  CPU is rounded to 100m,
    memory to 64 MiB, times to milliseconds.  With ``pods``, as many jobs as hold exactly that
    many pods (the last gang cut short if need be) instead of ``jobs``.

    >>> int(generate_trace(pods=1000, seed=2)["gang"].sum())
    1000

    >>> t = generate_trace(1000, seed=0)
    >>> round(float((t["gpu"] <= 1).mean()), 2), int(t["gang"].max()), bool((t["duration"] >= 10).all())
    (0.87, 16, True)
    >>> generate_trace(5, seed=3).equals(generate_trace(5, seed=3))
    True
    >>> int(generate_trace(pods=100_000, seed=0)["memory"].max()) <= PAI_2020.memory_range[1]
    True
    """
    if pods is not None:
        if pods < 1:
            raise ValueError(f"pods: Invalid value: {pods}: must be at least 1")
        mean_gang = float(np.dot(shape.gang_sizes, shape.gang_weights) / np.sum(shape.gang_weights))
        count = int(pods / mean_gang * 1.2) + 16
        while True:  # jobs enough for ``pods`` (a seed drawing small gangs needs more)
            trace = generate_trace(count, seed=seed, shape=shape, arrival_rate=arrival_rate)
            if int(trace["gang"].sum()) >= pods:
                return _cut(trace, pods)
            count *= 2
    rng = np.random.default_rng(seed)
    rate = shape.arrival_rate if arrival_rate is None else arrival_rate
    if rate <= 0:
        raise ValueError(f"arrival_rate: Invalid value: {rate}: must be greater than 0")

    def choice(values, weights):
        p = np.asarray(weights, float)
        return np.asarray(values)[rng.choice(len(values), size=jobs, p=p / p.sum())]

    arrival = np.round(np.cumsum(rng.exponential(1.0 / rate, size=jobs)) - 0.0, 3)
    arrival -= arrival[0] if jobs else 0.0
    gang = choice(shape.gang_sizes, shape.gang_weights)
    gpu = choice(shape.gpu_counts, shape.gpu_weights)
    cpu = rng.lognormal(math.log(shape.cpu_median), shape.cpu_sigma, size=jobs)
    cpu = np.maximum(cpu, gpu * shape.cpu_per_gpu)
    cpu = np.clip(np.round(cpu / 100) * 100, *shape.cpu_range)
    memory = cpu / 1000 * shape.memory_per_cpu * rng.lognormal(0.0, shape.memory_sigma, size=jobs)
    memory = np.clip(np.round(memory / 64) * 64, *shape.memory_range)
    duration = np.clip(rng.lognormal(math.log(shape.duration_median), shape.duration_sigma, size=jobs),
                       *shape.duration_range)
    priority = choice(shape.priorities, shape.priority_weights)
    frame = pd.DataFrame({"job": [f"job-{i}" for i in range(jobs)], "arrival": arrival,
                          "duration": np.round(duration, 3), "cpu": cpu, "memory": memory, "gpu": gpu,
                          "gang": gang, "priority": priority})
    return validate_trace(frame, f"generate_trace(seed={seed})")


def _cut(trace: pd.DataFrame, pods: int) -> pd.DataFrame:
    """The leading jobs of ``trace`` holding exactly ``pods`` pods."""
    total = np.cumsum(trace["gang"].to_numpy(np.int64))
    if total[-1] < pods:
        raise ValueError(f"pods: the trace holds {int(total[-1])} pods, fewer than {pods}")
    n = int(np.searchsorted(total, pods)) + 1
    out = trace.iloc[:n].copy()
    out.iloc[-1, out.columns.get_loc("gang")] = pods - (int(total[n - 2]) if n > 1 else 0)
    return out.reset_index(drop=True)


def make_nodes(count: int, *, cpu: str = "96", memory: str = "512Gi", gpu: int = 8, pods: int = 110,
               prefix: str = "gpu-node") -> list:
    """``count`` identical nodes (default: a PAI 8-GPU machine, 96 cores, 512 GiB), named
    ``<prefix>-NNNNN`` with their hostname label, GPUs as ``nvidia.com/gpu``.

    >>> [n.metadata.name for n in make_nodes(2)], str(make_nodes(1)[0].status.allocatable["nvidia.com/gpu"])
    (['gpu-node-00000', 'gpu-node-00001'], '8')
    """
    from kschedlab.api.core import Node

    allocatable = {"cpu": cpu, "memory": memory, "pods": str(pods)}
    if gpu:
        allocatable[GPU_RESOURCE] = str(gpu)
    nodes = []
    for i in range(count):
        name = f"{prefix}-{i:05d}"
        nodes.append(Node.model_validate({
            "apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "status": {"capacity": dict(allocatable), "allocatable": dict(allocatable),
                       "conditions": [{"type": "Ready", "status": "True"}], "phase": "Running"}}))
    return nodes


def _templates():
    """The admitted pod and PodGroup every trace object is copied from (API-server defaults once)."""
    from kschedlab.api.core import Pod
    from kschedlab.api.podgroup import PodGroup
    from kschedlab.apiserver.admission import admit, admit_pod

    pod = admit_pod(Pod.model_validate({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "trace-pod", "namespace": TRACE_NAMESPACE},
        "spec": {"containers": [{"name": "task", "image": "registry.k8s.io/pause:3.10",
                                 "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}}),
        feature_gates=TRACE_GATES).model_dump(mode="json", by_alias=True, exclude_unset=True)
    group = admit([PodGroup.model_validate({
        "apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
        "metadata": {"name": "trace-group", "namespace": TRACE_NAMESPACE},
        "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}}})], feature_gates=TRACE_GATES)[0]
    return pod, group.model_dump(mode="json", by_alias=True, exclude_unset=True)


def _manifest(template: dict, name: str, cpu: int, memory: int, gpu: int, priority: int, group: str | None) -> dict:
    """The manifest of one trace pod: ``template`` (the admitted pod) with the row's requests,
    priority and PodGroup."""
    requests = {"cpu": f"{cpu}m", "memory": f"{memory}Mi"}
    resources: dict = {"requests": requests}
    if gpu:
        requests[GPU_RESOURCE] = str(gpu)
        resources["limits"] = {GPU_RESOURCE: str(gpu)}
    container = {**template["spec"]["containers"][0], "resources": resources}
    spec = {**template["spec"], "containers": [container], "priority": int(priority)}
    if group is not None:
        spec["schedulingGroup"] = {"podGroupName": group}
    return {**template, "metadata": {**template["metadata"], "name": name}, "spec": spec}


def _group_manifest(template: dict, name: str, gang: int, priority: int) -> dict:
    """The manifest of one gang's PodGroup: ``template`` (the admitted PodGroup, without its uid)
    with the job's name, ``minCount`` and priority."""
    metadata = {k: v for k, v in template["metadata"].items() if k != "uid"}
    spec = {**template["spec"], "schedulingPolicy": {"gang": {"minCount": int(gang)}}, "priority": int(priority)}
    return {**template, "metadata": {**metadata, "name": name}, "spec": spec}


class _TraceObjects:
    """Makes the trace's pods and PodGroups: the objects :func:`_manifest` and
    :func:`_group_manifest` describe, as ``model_validate`` would make them, without validating
    each.  Per shape (for a pod: GPUs or none, a PodGroup or none; which fields are set) one
    manifest is validated; each object is a fresh copy of it (:func:`~kschedlab.api.meta.copier`) with the row's
    values written in, the requests' quantities parsed once per text (they are immutable)."""

    def __init__(self, pod_template: dict, group_template: dict):
        self.pod_template, self.group_template = pod_template, group_template
        self._shapes: dict[tuple[bool, bool], Callable[[], Any]] = {}
        self._group: Callable[[], Any] | None = None
        self._quantities: dict[str, Quantity] = {}

    def _quantity(self, text: str) -> Quantity:
        q = self._quantities.get(text)
        if q is None:
            q = self._quantities[text] = Quantity.parse(text)
        return q

    def pod(self, name: str, cpu: int, memory: int, gpu: int, priority: int, group: str | None) -> Any:
        from kschedlab.api.core import Pod

        shape = (gpu > 0, group is not None)
        make = self._shapes.get(shape)
        if make is None:
            manifest = _manifest(self.pod_template, name, cpu, memory, gpu, priority, group)
            make = self._shapes[shape] = copier(Pod.model_validate(manifest))
        pod = make()
        pod.metadata.name = name
        pod.spec.priority = int(priority)
        resources = pod.spec.containers[0].resources
        resources.requests["cpu"] = self._quantity(f"{cpu}m")
        resources.requests["memory"] = self._quantity(f"{memory}Mi")
        if gpu:
            resources.requests[GPU_RESOURCE] = resources.limits[GPU_RESOURCE] = self._quantity(str(gpu))
        if group is not None:
            pod.spec.scheduling_group.pod_group_name = group
        return pod

    def group(self, name: str, gang: int, priority: int) -> Any:
        from kschedlab.api.podgroup import PodGroup

        if self._group is None:
            self._group = copier(PodGroup.model_validate(_group_manifest(self.group_template, name, gang, priority)))
        group = self._group()
        group.metadata.name = name
        group.spec.scheduling_policy.gang.min_count = int(gang)
        group.spec.priority = int(priority)
        return group


def arrivals(trace: pd.DataFrame) -> Iterator[tuple[float, object, float | None]]:
    """The trace as :meth:`kschedlab.sim.engine.Simulation.stream` reads it: per job in arrival
    order, its PodGroup (a gang) and then its pods, as ``(arrival, object, duration)``; objects
    are built only when asked for.  A PodGroup has the job's priority in ``spec.priority``, as
    its pods do (a group without one would never be scheduled while its pods have one), and
    its own uid.

    >>> group, *pods = [obj for _, obj, _ in arrivals(generate_trace(1, seed=0).assign(gang=2, priority=100))]
    >>> group.spec.priority, [p.spec.priority for p in pods], group.metadata.uid != _templates()[1]["metadata"]["uid"]
    (100, [100, 100], True)
    """
    import hashlib
    import uuid

    make = _TraceObjects(*_templates())
    columns = [trace[c].to_numpy() for c in TRACE_COLUMNS]
    for job, arrival, duration, cpu, memory, gpu, gang, priority in zip(*columns):
        arrival = float(arrival)
        run = None if math.isnan(duration) else float(duration)
        group = None
        if gang > 1:
            group = str(job)
            pod_group = make.group(group, int(gang), int(priority))
            # the uid admission gives an object without one (a digest of kind and key)
            digest = hashlib.sha256(f"kschedlab/{pod_group.kind}/{pod_group.key}".encode()).digest()
            pod_group.metadata.uid = str(uuid.UUID(bytes=digest[:16], version=4))
            yield arrival, pod_group, None
        for i in range(int(gang)):
            name = f"{job}-{i}"
            yield arrival, make.pod(name, int(cpu), int(memory), int(gpu), int(priority), group), run


def trace_pods(trace: pd.DataFrame) -> int:
    """How many pods ``trace`` creates (the sum of its gang sizes)."""
    return int(trace["gang"].sum())


#: the sample shipped with the repository: 200 jobs of :data:`PAI_2020` (seed 0, 0.05 jobs/s)
SAMPLE = Path(__file__).resolve().parents[2] / "datasets" / "traces" / "pai-2020-sample.csv"
