"""Pod overhead end to end: from a RuntimeClass to admission, scheduling, quota, the pod
cgroup and the kube-state-metrics samples, for one pod (notebook 03).

:func:`overhead_outcome` admits a list of manifests (optionally with the RuntimeClass
overhead replaced), schedules one pod and gathers every number the notebook explains;
:func:`overhead_bars` draws the pod's requests, container by container plus the overhead,
as a share of each node's allocatable (the percentages ``kubectl describe node`` prints).
Nothing here changes the objects passed in.

>>> from pathlib import Path
>>> from kschedlab.api.loader import load
>>> seed = load(Path(__file__).resolve().parents[2] / "datasets" / "seed" / "03-pod-overhead.yaml")
>>> out = overhead_outcome(seed, "default/test-pod")
>>> out.requests, out.node, out.cgroup.memory
({'cpu': 2250, 'memory': 335544320}, 'node-big', 335544320)
>>> out.describe_node("node-big")
{'cpu': '2250m (56%)', 'memory': '320Mi (1%)'}
>>> overhead_outcome(seed, "default/test-pod", cpu_overhead=0, memory_overhead=0).node_fit  # no overhead
{'node-big': True, 'node-cpu-short': True, 'node-mem-short': True}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Mapping

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from kschedlab.api.core import Pod
from kschedlab.api.errors import ManifestError
from kschedlab.api.kube_state_metrics import pod_overhead_metrics
from kschedlab.api.node import Overhead, RuntimeClass
from kschedlab.api.quantity import BINARY_SI, Quantity
from kschedlab.api.resourcequota import ResourceQuota
from kschedlab.api.resources import pod_requests, resource_list
from kschedlab.apiserver.admission import admit
from kschedlab.cluster import Cluster
from kschedlab.kubelet.cgroups import PodCgroupConfig, resource_config_for_pod
from kschedlab.scheduler import Scheduler

__all__ = ["OverheadOutcome", "overhead_outcome", "overhead_bars", "request_breakdown", "describe_percent",
           "copies_admitted"]

_RESOURCES = ("cpu", "memory")
_OVERHEAD_COLOR = "#D55E00"
_CONTAINER_COLORS = ("#0072B2", "#009E73", "#CC79A7", "#882255", "#56B4E9", "#999933")


def describe_percent(requested: int, allocatable: int) -> int:
    """The percentage ``kubectl describe node`` prints: ``int(requested / allocatable * 100)``.

    >>> describe_percent(2250, 4000), describe_percent(320 * 2**20, 16 * 2**30)
    (56, 1)
    """
    if allocatable == 0:
        return 0
    return int(float(requested) / float(allocatable) * 100)


def _show(resource: str, value: int) -> str:
    if resource == "cpu":
        return str(Quantity.from_milli(value))
    return str(Quantity.from_int(value, BINARY_SI))


@dataclass
class OverheadOutcome:
    """Everything one pod's overhead changes, as the components compute it.

    ``pod`` is the admitted pod (``None`` when admission refused it: ``error`` says why),
    ``containers`` each container's requests, ``overhead`` the pod's ``spec.overhead``,
    ``requests`` what the scheduler looks for, ``node`` / ``message`` / ``node_fit`` /
    ``reasons`` the scheduling result, ``cgroup`` the pod cgroup, ``quotas`` the
    ResourceQuotas after admission, ``metrics`` the kube-state-metrics text.
    """

    pod: Pod | None
    error: str = ""
    containers: dict[str, dict[str, int]] = field(default_factory=dict)
    overhead: dict[str, int] = field(default_factory=dict)
    requests: dict[str, int] = field(default_factory=dict)
    allocatable: dict[str, dict[str, int]] = field(default_factory=dict)
    used: dict[str, dict[str, int]] = field(default_factory=dict)
    node: str | None = None
    message: str = ""
    node_fit: dict[str, bool] = field(default_factory=dict)
    reasons: dict[str, list[str]] = field(default_factory=dict)
    cgroup: PodCgroupConfig | None = None
    quotas: list[ResourceQuota] = field(default_factory=list)
    metrics: str = ""

    def describe_node(self, node: str) -> dict[str, str]:
        """The pod's CPU and memory requests on ``node`` as ``kubectl describe node`` shows them."""
        return {r: f"{_show(r, self.requests.get(r, 0))} "
                   f"({describe_percent(self.requests.get(r, 0), self.allocatable[node].get(r, 0))}%)"
                for r in _RESOURCES}

    def table(self) -> pd.DataFrame:
        """Per node: allocatable, what the pod asks, whether it fits and the Filter's reasons."""
        rows = []
        for node, alloc in self.allocatable.items():
            rows.append({"node": node,
                         **{f"allocatable {r}": _show(r, alloc.get(r, 0)) for r in _RESOURCES},
                         **{f"pod {r}": self.describe_node(node)[r] for r in _RESOURCES},
                         "fits": self.node_fit.get(node, False),
                         "reasons": ", ".join(self.reasons.get(node, []))})
        return pd.DataFrame(rows).set_index("node")


def _with_overhead(objects: Iterable, cpu: str | int | None, memory: str | int | None) -> list:
    out = []
    for o in objects:
        if isinstance(o, RuntimeClass) and (cpu is not None or memory is not None):
            o = o.clone()
            fixed = dict(o.overhead.pod_fixed) if o.overhead is not None else {}
            for name, value in (("cpu", cpu), ("memory", memory)):
                if value is None:
                    continue
                q = value if isinstance(value, Quantity) else Quantity(value)
                if q.is_zero():
                    fixed.pop(name, None)
                else:
                    fixed[name] = q
            o.overhead = Overhead(pod_fixed=fixed) if fixed else None
        out.append(o)
    return out


def request_breakdown(pod: Pod) -> tuple[dict[str, dict[str, int]], dict[str, int]]:
    """``(per-container requests, overhead)`` in scheduler units (millicores, bytes).

    >>> pod = Pod.model_validate({"spec": {"overhead": {"cpu": "250m"},
    ...     "containers": [{"name": "a", "resources": {"requests": {"cpu": "1"}}}]}})
    >>> request_breakdown(pod)
    ({'a': {'cpu': 1000, 'memory': 0}}, {'cpu': 250, 'memory': 0})
    """
    containers = {}
    for c in pod.spec.containers:
        reqs = resource_list(c.resources.requests)
        containers[c.name or "container"] = {r: reqs.get(r, 0) for r in _RESOURCES}
    over = resource_list(pod.spec.overhead)
    return containers, {r: over.get(r, 0) for r in _RESOURCES}


def overhead_outcome(objects: Iterable, pod: str, *, cpu_overhead: str | int | None = None,
                     memory_overhead: str | int | None = None, seed: int = 0) -> OverheadOutcome:
    """Admit ``objects`` (with every RuntimeClass's overhead replaced where given, ``0``
    removing it), schedule ``pod`` ("namespace/name") and collect the numbers.

    Admission errors (a quota exceeded, an unknown RuntimeClass) come back in ``error``.
    """
    objs = _with_overhead(objects, cpu_overhead, memory_overhead)
    try:
        admitted = admit(objs)
    except ManifestError as err:
        return OverheadOutcome(pod=None, error=str(err))
    cluster = Cluster(admitted)
    target = next(o for o in admitted if isinstance(o, Pod) and o.key == pod)
    containers, over = request_breakdown(target)
    reqs = pod_requests(target)
    out = OverheadOutcome(pod=target, containers=containers, overhead=over,
                          requests={r: reqs.get(r, 0) for r in _RESOURCES},
                          quotas=[o for o in admitted if isinstance(o, ResourceQuota)])
    for node in [o for o in admitted if o.kind == "Node"]:
        alloc = resource_list(node.status.allocatable)
        out.allocatable[node.name] = {r: alloc.get(r, 0) for r in _RESOURCES}
        out.used[node.name] = {r: 0 for r in _RESOURCES}
    for other in admitted:
        if isinstance(other, Pod) and other.spec.node_name in out.used and other.key != pod:
            for r, v in pod_requests(other).items():
                if r in _RESOURCES:
                    out.used[other.spec.node_name][r] += v
    result = Scheduler(cluster, seed=seed).schedule_one(pod)
    out.node, out.message = result.node, result.message
    for node, status in result.trace.filter_statuses().items():
        out.node_fit[node] = status.code.name == "Success"
        out.reasons[node] = list(status.reasons)
    out.cgroup = resource_config_for_pod(target)
    out.metrics = pod_overhead_metrics([target])
    return out


def copies_admitted(objects: Iterable, pod: str, *, cpu_overhead: str | int | None = None,
                    memory_overhead: str | int | None = None, limit: int = 20) -> int:
    """How many copies of ``pod`` ("namespace/name") admission accepts together with the
    other ``objects`` (their ResourceQuotas, above all), trying 1, 2, ... up to ``limit``.
    Overheads as in :func:`overhead_outcome`.

    >>> from pathlib import Path
    >>> from kschedlab.api.loader import load
    >>> data = Path(__file__).resolve().parents[2] / "datasets" / "seed"
    >>> objs = [*load(data / "03-pod-overhead.yaml"), *load(data / "03-pod-overhead-quota.yaml")]
    >>> copies_admitted(objs, "default/test-pod"), copies_admitted(objs, "default/test-pod", cpu_overhead=0)
    (1, 2)
    """
    objs = _with_overhead(objects, cpu_overhead, memory_overhead)
    template = next(o for o in objs if isinstance(o, Pod) and
                    f"{o.metadata.namespace or 'default'}/{o.metadata.name}" == pod)
    rest = [o for o in objs if o is not template]
    accepted = 0
    for n in range(1, limit + 1):
        copies = []
        for i in range(n):
            copy = template.clone()
            copy.metadata.name = template.metadata.name if i == 0 else f"{template.metadata.name}-{i + 1}"
            copies.append(copy)
        try:
            admit([*rest, *copies])
        except ManifestError:
            break
        accepted = n
    return accepted


def overhead_bars(outcome: OverheadOutcome, *, title: str | None = None) -> go.Figure:
    """Stacked bars per node and resource: requests of the node's other pods, each container
    of the pod, and the overhead, as a percentage of the node's allocatable; the dashed line
    is 100 %. A stack above it does not fit (NodeResourcesFit: ``Insufficient <resource>``)."""
    nodes = list(outcome.allocatable)
    fig = make_subplots(rows=1, cols=2, subplot_titles=[f"{r} (% of allocatable)" for r in _RESOURCES],
                        shared_yaxes=True)
    parts: list[tuple[str, Mapping[str, int] | None, str]] = [("other pods", None, "#c7c7c7")]
    for i, name in enumerate(outcome.containers):
        parts.append((name, outcome.containers[name], _CONTAINER_COLORS[i % len(_CONTAINER_COLORS)]))
    parts.append(("overhead", outcome.overhead, _OVERHEAD_COLOR))
    for col, r in enumerate(_RESOURCES, start=1):
        for label, values, color in parts:
            ys, texts = [], []
            for n in nodes:
                amount = outcome.used[n][r] if values is None else values.get(r, 0)
                alloc = outcome.allocatable[n][r]
                ys.append(100 * amount / alloc if alloc else 0.0)
                texts.append(f"{label}: {_show(r, amount)} of {_show(r, alloc)}")
            fig.add_trace(go.Bar(x=nodes, y=ys, name=label, marker_color=color, hovertext=texts,
                                 hoverinfo="text", legendgroup=label, showlegend=col == 1,
                                 marker_pattern_shape="/" if label == "overhead" else ""), row=1, col=col)
        fig.add_hline(y=100, line_dash="dash", line_color="black", row=1, col=col)
    fig.update_layout(barmode="stack", title=title or f"{outcome.pod.name if outcome.pod else 'pod'}: "
                      f"containers + overhead = {_show('cpu', outcome.requests.get('cpu', 0))} CPU, "
                      f"{_show('memory', outcome.requests.get('memory', 0))} memory",
                      yaxis_title="% of node allocatable", legend_title_text="requests")
    return fig
