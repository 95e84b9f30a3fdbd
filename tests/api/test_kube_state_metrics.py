"""kube-state-metrics' pod overhead families for the seed pod and edge cases."""

from __future__ import annotations

from pathlib import Path

from kschedlab.api.core import Pod
from kschedlab.api.kube_state_metrics import format_float, pod_overhead_metrics, pod_overhead_samples
from kschedlab.api.loader import load
from kschedlab.apiserver.admission import admit

SEED = Path(__file__).resolve().parents[2] / "datasets" / "seed" / "03-pod-overhead.yaml"


def test_seed_pod_metrics():
    (pod,) = [o for o in admit(load(SEED)) if isinstance(o, Pod)]
    text = pod_overhead_metrics([pod])
    uid = pod.metadata.uid
    assert text.splitlines()[2] == f'kube_pod_overhead_cpu_cores{{namespace="default",pod="test-pod",uid="{uid}"}} 0.25'
    assert text.splitlines()[5] == (
        f'kube_pod_overhead_memory_bytes{{namespace="default",pod="test-pod",uid="{uid}"}} 1.2582912e+08')
    assert float(text.splitlines()[5].rsplit(" ", 1)[1]) == 120 * 2**20


def test_pod_without_overhead_has_headers_only():
    pod = Pod.model_validate({"metadata": {"name": "plain", "namespace": "ns"}, "spec": {"containers": [{}]}})
    assert pod_overhead_samples(pod) == []
    assert [line for line in pod_overhead_metrics([pod]).splitlines() if not line.startswith("#")] == []


def test_only_cpu_overhead_and_label_escaping():
    pod = Pod.model_validate({"metadata": {"name": 'we"ird', "namespace": "ns", "uid": "u"},
                              "spec": {"overhead": {"cpu": "2"}, "containers": [{}]}})
    lines = [line for line in pod_overhead_metrics([pod]).splitlines() if not line.startswith("#")]
    assert lines == ['kube_pod_overhead_cpu_cores{namespace="ns",pod="we\\"ird",uid="u"} 2']


def test_go_float_formatting():
    assert [format_float(v) for v in (1e21, 123456.0, 1234567.0, 0.001, -2.5, 1e-7)] == [
        "1e+21", "123456", "1.234567e+06", "0.001", "-2.5", "1e-07"]
