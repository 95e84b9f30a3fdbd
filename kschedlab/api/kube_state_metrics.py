"""The pod overhead metrics of kube-state-metrics (``internal/store/pod.go``).

kube-state-metrics only reads API objects; for a pod with ``spec.overhead`` it exports

* ``kube_pod_overhead_cpu_cores`` — the CPU overhead in cores (``MilliValue() / 1000``);
* ``kube_pod_overhead_memory_bytes`` — the memory overhead in bytes (``Value()``);

each labelled ``namespace``, ``pod``, ``uid``. A pod without overhead (or without that
resource in it) has no sample, but the family's ``# HELP`` / ``# TYPE`` lines are still
written. Both families are ALPHA, so their help text carries no ``[STABLE]`` mark. Values
are printed as kube-state-metrics prints floats (Go's shortest ``'g'`` format).

>>> from kschedlab.api.core import Pod
>>> pod = Pod.model_validate({"metadata": {"name": "test-pod", "namespace": "default", "uid": "d7f4b509"},
...                           "spec": {"overhead": {"cpu": "250m", "memory": "120Mi"}, "containers": [{}]}})
>>> print(pod_overhead_metrics([pod]))
# HELP kube_pod_overhead_cpu_cores The pod overhead in regards to cpu cores associated with running a pod.
# TYPE kube_pod_overhead_cpu_cores gauge
kube_pod_overhead_cpu_cores{namespace="default",pod="test-pod",uid="d7f4b509"} 0.25
# HELP kube_pod_overhead_memory_bytes The pod overhead in regards to memory associated with running a pod.
# TYPE kube_pod_overhead_memory_bytes gauge
kube_pod_overhead_memory_bytes{namespace="default",pod="test-pod",uid="d7f4b509"} 1.2582912e+08
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Iterable, NamedTuple

from .quantity import Quantity

__all__ = [
    "CPU_CORES",
    "MEMORY_BYTES",
    "FAMILIES",
    "Sample",
    "format_float",
    "quantity_to_float",
    "pod_overhead_samples",
    "pod_overhead_metrics",
]

CPU_CORES = "kube_pod_overhead_cpu_cores"
MEMORY_BYTES = "kube_pod_overhead_memory_bytes"
#: name -> (help text, type)
FAMILIES: dict[str, tuple[str, str]] = {
    CPU_CORES: ("The pod overhead in regards to cpu cores associated with running a pod.", "gauge"),
    MEMORY_BYTES: ("The pod overhead in regards to memory associated with running a pod.", "gauge"),
}
#: resource.MaxMilliValue: above it MilliValue() would overflow int64
MAX_MILLI_VALUE = (2**63 - 1) // 1000


class Sample(NamedTuple):
    """One metric sample: family name, labels in order, value."""

    name: str
    labels: tuple[tuple[str, str], ...]
    value: float


def quantity_to_float(q: Quantity) -> float:
    """kube-state-metrics' ``convertValueToFloat64``: ``MilliValue() / 1000`` unless huge.

    >>> quantity_to_float(Quantity("250m")), quantity_to_float(Quantity("120Mi"))
    (0.25, 125829120.0)
    """
    if q.value() > MAX_MILLI_VALUE:
        return float(q.value())
    return q.milli_value() / 1000


def format_float(f: float) -> str:
    """A float as the Prometheus text writer prints it (Go ``strconv.FormatFloat(f, 'g', -1, 64)``).

    >>> [format_float(v) for v in (0.25, 125829120.0, 1e9, 2.0, 100000.0, 0.0001, 0.00001, 1.0, 0.0)]
    ['0.25', '1.2582912e+08', '1e+09', '2', '100000', '0.0001', '1e-05', '1', '0']
    """
    if f == 1:
        return "1"
    if f == 0:
        return "0"
    if f == -1:
        return "-1"
    if math.isnan(f):
        return "NaN"
    if math.isinf(f):
        return "+Inf" if f > 0 else "-Inf"
    sign, digits, exp = Decimal(repr(f)).as_tuple()
    ds = list(digits)
    while len(ds) > 1 and ds[-1] == 0:
        ds.pop()
        exp += 1
    nd = len(ds)
    dp = nd + exp  # position of the decimal point, counted from the first digit
    neg = "-" if sign else ""
    text = "".join(map(str, ds))
    x = dp - 1
    if x < -4 or x >= 6:  # shortest formatting decides with precision 6, as Go does
        mant = text[0] + ("." + text[1:] if nd > 1 else "")
        return f"{neg}{mant}e{'-' if x < 0 else '+'}{abs(x):02d}"
    if dp <= 0:
        return f"{neg}0.{'0' * -dp}{text}"
    if dp >= nd:
        return f"{neg}{text}{'0' * (dp - nd)}"
    return f"{neg}{text[:dp]}.{text[dp:]}"


def pod_overhead_samples(pod) -> list[Sample]:
    """The overhead samples of one pod (none when it has no ``spec.overhead``).

    >>> from kschedlab.api.core import Pod
    >>> pod_overhead_samples(Pod.model_validate({"metadata": {"name": "p"}, "spec": {"containers": [{}]}}))
    []
    """
    labels = (("namespace", pod.metadata.namespace or ""), ("pod", pod.metadata.name or ""),
              ("uid", pod.metadata.uid or ""))
    out: list[Sample] = []
    for name, q in pod.spec.overhead.items():
        if name == "cpu":
            out.append(Sample(CPU_CORES, labels, quantity_to_float(q)))
        elif name == "memory":
            out.append(Sample(MEMORY_BYTES, labels, float(q.value())))
    return out


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def pod_overhead_metrics(pods: Iterable) -> str:
    """Both families for ``pods`` in the Prometheus text format (one family after the other)."""
    samples = [s for pod in pods for s in pod_overhead_samples(pod)]
    lines: list[str] = []
    for family, (help_text, kind) in FAMILIES.items():
        lines += [f"# HELP {family} {help_text}", f"# TYPE {family} {kind}"]
        for s in samples:
            if s.name == family:
                labels = ",".join(f'{k}="{_escape(v)}"' for k, v in s.labels)
                lines.append(f"{family}{{{labels}}} {format_float(s.value)}")
    return "\n".join(lines) + "\n"
