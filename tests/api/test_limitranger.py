"""LimitRanger admission: the kubernetes.io pages' LimitRange examples (read from
``../shared/public-manifests``), its place before ResourceQuota, what the scheduler then
sees, and LimitRange validation with field paths."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from kschedlab import Cluster, Scheduler
from kschedlab.api import load_manifests
from kschedlab.api.errors import ManifestError
from kschedlab.api.limitrange import LimitRange
from kschedlab.api.resourcequota import ResourceQuota

PUBLIC = Path(__file__).resolve().parents[2] / ".." / "shared" / "public-manifests"

NODE = """\
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "%s", memory: 8Gi, pods: "110"}}
"""


def _load(*paths, text=None, strict=False):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return load_manifests(*paths, text=text, strict=strict)


def _pods(objs):
    return {o.key: o for o in objs if o.kind == "Pod"}


def _resources(pod):
    r = pod.spec.containers[0].resources
    return {k: str(v) for k, v in r.requests.items()}, {k: str(v) for k, v in r.limits.items()}


def test_docs_default_cpu_request_and_limit():
    # "Configure Default CPU Requests and Limits for a Namespace": a container with neither gets
    # the LimitRange's default request (500m) and limit (1); one with only a limit gets a request
    # equal to that limit (API defaulting runs before LimitRanger)
    objs = _load(PUBLIC / "web-cpu-defaults-limitrange.yaml", PUBLIC / "web-cpu-defaults-pod.yaml",
                 PUBLIC / "web-cpu-defaults-pod-2.yaml")
    pods = _pods(objs)
    demo = pods["default/default-cpu-demo"]
    assert _resources(demo) == ({"cpu": "500m"}, {"cpu": "1"})
    assert demo.status.qos_class == "Burstable"
    assert demo.metadata.annotations["kubernetes.io/limit-ranger"] == (
        "LimitRanger plugin set: cpu request for container default-cpu-demo-ctr; "
        "cpu limit for container default-cpu-demo-ctr")
    demo2 = pods["default/default-cpu-demo-2"]
    assert _resources(demo2) == ({"cpu": "1"}, {"cpu": "1"})
    assert "kubernetes.io/limit-ranger" not in demo2.metadata.annotations
    assert objs.refused == []


def test_limitrange_of_another_namespace_does_not_apply():
    text = (PUBLIC / "web-cpu-defaults-pod.yaml").read_text().replace("name: default-cpu-demo\n",
                                                                        "name: default-cpu-demo\n  namespace: other\n", 1)
    objs = _load(PUBLIC / "web-cpu-defaults-limitrange.yaml", text=text)
    (pod,) = _pods(objs).values()
    assert _resources(pod) == ({}, {})
    assert pod.status.qos_class == "BestEffort"


def test_scheduler_sees_the_defaulted_requests(tmp_path):
    nodes = tmp_path / "node.yaml"
    nodes.write_text(NODE % "800m")
    objs = _load(nodes, PUBLIC / "web-cpu-defaults-limitrange.yaml", PUBLIC / "web-cpu-defaults-pod.yaml",
                 PUBLIC / "web-cpu-defaults-pod-2.yaml")
    run = Scheduler(Cluster(objs), seed=0).run()
    by_pod = {r.pod: r for r in run.history}
    # 500m fits on the 800m node; the second pod's defaulted 1 cpu request does not
    assert by_pod["default/default-cpu-demo"].node == "n1"
    assert by_pod["default/default-cpu-demo-2"].node is None
    assert "1 Insufficient cpu" in by_pod["default/default-cpu-demo-2"].message


MIN_MAX = """\
apiVersion: v1
kind: LimitRange
metadata: {name: cpu-min-max-demo-lr, namespace: constraints-cpu-example}
spec:
  limits:
  - {type: Container, max: {cpu: 800m}, min: {cpu: 200m}}
---
apiVersion: v1
kind: Pod
metadata: {name: constraints-cpu-demo, namespace: constraints-cpu-example}
spec:
  containers:
  - {name: c, image: nginx, resources: {limits: {cpu: 800m}, requests: {cpu: 500m}}}
---
apiVersion: v1
kind: Pod
metadata: {name: constraints-cpu-demo-2, namespace: constraints-cpu-example}
spec:
  containers:
  - {name: c, image: nginx, resources: {limits: {cpu: 1.5}, requests: {cpu: 500m}}}
---
apiVersion: v1
kind: Pod
metadata: {name: constraints-cpu-demo-3, namespace: constraints-cpu-example}
spec:
  containers:
  - {name: c, image: nginx, resources: {limits: {cpu: 800m}, requests: {cpu: 100m}}}
---
apiVersion: v1
kind: Pod
metadata: {name: constraints-cpu-demo-4, namespace: constraints-cpu-example}
spec:
  containers:
  - {name: c, image: vish/stress}
"""


def test_docs_min_max_cpu_refusals():
    # "Configure Minimum and Maximum CPU Constraints for a Namespace": the pod within bounds is
    # created; over the max and under the min are forbidden; a pod without resources gets the
    # defaults LimitRange defaulting derived from max (limit 800m, request 800m)
    objs = _load(text=MIN_MAX)
    pods = _pods(objs)
    assert sorted(pods) == ["constraints-cpu-example/constraints-cpu-demo",
                            "constraints-cpu-example/constraints-cpu-demo-4"]
    assert _resources(pods["constraints-cpu-example/constraints-cpu-demo-4"]) == ({"cpu": "800m"}, {"cpu": "800m"})
    assert [r.message for r in objs.refused] == [
        'pods "constraints-cpu-demo-2" is forbidden: maximum cpu usage per Container is 800m, but limit is 1500m',
        'pods "constraints-cpu-demo-3" is forbidden: minimum cpu usage per Container is 200m, but request is 100m',
    ]
    assert objs.refused[0].kubectl() == (
        'Error from server (Forbidden): error when creating "<string>": pods "constraints-cpu-demo-2" is forbidden: '
        "maximum cpu usage per Container is 800m, but limit is 1500m")
    with pytest.raises(ManifestError, match="maximum cpu usage per Container is 800m, but limit is 1500m"):
        _load(text=MIN_MAX, strict=True)


def test_ratio_and_pod_type_messages():
    text = """\
apiVersion: v1
kind: LimitRange
metadata: {name: lr}
spec:
  limits:
  - {type: Container, maxLimitRequestRatio: {memory: "2"}}
  - {type: Pod, max: {cpu: "1"}}
---
apiVersion: v1
kind: Pod
metadata: {name: bursty}
spec:
  containers:
  - {name: a, resources: {requests: {memory: 100Mi, cpu: 300m}, limits: {memory: 300Mi, cpu: 600m}}}
  - {name: b, resources: {requests: {memory: 100Mi, cpu: 300m}, limits: {memory: 150Mi, cpu: 600m}}}
"""
    objs = _load(text=text)
    (refusal,) = objs.refused
    assert refusal.message == (
        'pods "bursty" is forbidden: [memory max limit to request ratio per Container is 2, but provided ratio is '
        "3.000000, maximum cpu usage per Pod is 1, but limit is 1200m]")


def test_limitranger_runs_before_resourcequota():
    # the quota demands cpu and memory requests and limits of every container; the LimitRange's
    # defaults supply them, and the quota is charged the defaulted values
    text = """\
apiVersion: v1
kind: LimitRange
metadata: {name: defaults}
spec:
  limits:
  - {type: Container, default: {cpu: 500m, memory: 256Mi}, defaultRequest: {cpu: 250m, memory: 128Mi}}
---
apiVersion: v1
kind: Pod
metadata: {name: plain}
spec: {containers: [{name: app, image: nginx}]}
"""
    objs = _load(PUBLIC / "web-quota-mem-cpu.yaml", text=text)
    assert objs.refused == []
    (quota,) = [o for o in objs if isinstance(o, ResourceQuota)]
    assert {k: str(v) for k, v in sorted(quota.status.used.items())} == {
        "limits.cpu": "500m", "limits.memory": "256Mi", "requests.cpu": "250m", "requests.memory": "128Mi"}


def test_cpu_defaults_alone_do_not_satisfy_a_memory_quota():
    objs = _load(PUBLIC / "web-quota-mem-cpu.yaml", PUBLIC / "web-cpu-defaults-limitrange.yaml",
                 PUBLIC / "web-cpu-defaults-pod.yaml")
    assert _pods(objs) == {}
    (refusal,) = objs.refused
    assert refusal.message == ('pods "default-cpu-demo" is forbidden: failed quota: mem-cpu-demo: must specify '
                               "limits.memory for: default-cpu-demo-ctr; requests.memory for: default-cpu-demo-ctr")


def test_invalid_limitrange_is_refused_with_field_paths():
    text = """\
apiVersion: v1
kind: LimitRange
metadata: {name: bad}
spec:
  limits:
  - {type: Container, default: {cpu: 500m}, defaultRequest: {cpu: "1"}, maxLimitRequestRatio: {cpu: 500m}}
  - {type: Node}
  - {type: PersistentVolumeClaim}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec: {containers: [{name: app, image: nginx}]}
"""
    objs = _load(text=text)
    (refusal,) = objs.refused
    assert isinstance(refusal.obj, LimitRange)
    assert refusal.message == (
        'LimitRange "bad" is invalid: ['
        'spec.limits[0].defaultRequest[cpu]: Invalid value: "1": default request value 1 is greater than default '
        "limit value 500m, "
        'spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: "500m": ratio 500m is less than 1, '
        'spec.limits[1].type: Invalid value: "Node": must be a standard limit type or fully qualified, '
        "spec.limits[2].limits: Required value: either minimum or maximum storage value is required, but neither "
        "was provided]")
    # the pod is created, without defaults from the refused LimitRange
    assert _resources(_pods(objs)["default/p"]) == ({}, {})


def test_stored_pods_are_not_limited_again():
    text = MIN_MAX.replace("name: constraints-cpu-demo-2,", "name: constraints-cpu-demo-2, resourceVersion: '7',")
    objs = _load(text=text)
    assert "constraints-cpu-example/constraints-cpu-demo-2" in _pods(objs)


def test_cli_min_max_refusals_as_kubectl_prints_them(tmp_path, capsys):
    from kschedlab.cli import main

    f = tmp_path / "cpu-constraints.yaml"
    f.write_text(NODE % "4" + "---\n" + MIN_MAX)
    assert main(["schedule", str(f)]) == 1
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [
        f'Error from server (Forbidden): error when creating "{f}": pods "constraints-cpu-demo-2" is forbidden: '
        "maximum cpu usage per Container is 800m, but limit is 1500m",
        f'Error from server (Forbidden): error when creating "{f}": pods "constraints-cpu-demo-3" is forbidden: '
        "minimum cpu usage per Container is 200m, but request is 100m"]
    assert "2 pods: 2 running, 0 pending" in captured.out


def test_cli_public_limitrange_pages(tmp_path, capsys):
    import json

    from kschedlab.cli import main

    nodes = tmp_path / "node.yaml"
    nodes.write_text(NODE % "800m")
    files = [str(PUBLIC / n) for n in ("web-cpu-defaults-limitrange.yaml", "web-cpu-defaults-pod.yaml",
                                       "web-cpu-defaults-pod-2.yaml")]
    assert main(["schedule", str(nodes), *files, "-o", "json"]) == 0
    pods = {p["name"]: p for p in json.loads(capsys.readouterr().out)["pods"]}
    assert pods["default/default-cpu-demo"]["node"] == "n1"
    assert pods["default/default-cpu-demo-2"]["message"].startswith("0/1 nodes are available: 1 Insufficient cpu.")


def test_a_claim_below_the_namespace_minimum_is_refused_and_the_rest_applies():
    """kubernetes.io "Limit Storage Consumption": a LimitRange of type PersistentVolumeClaim refuses
    a claim asking less than its min, with the API server's message; the claim that fits is created."""
    text = """
apiVersion: v1
kind: LimitRange
metadata: {name: storagelimits, namespace: default}
spec:
  limits:
  - {type: PersistentVolumeClaim, max: {storage: 2Gi}, min: {storage: 1Gi}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: pvc-limit-lower, namespace: default}
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 500Mi}}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: pvc-limit-greater, namespace: default}
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 5Gi}}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: pvc-ok, namespace: default}
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
"""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        applied = load_manifests(text=text)
    assert [o.key for o in applied if o.kind == "PersistentVolumeClaim"] == ["default/pvc-ok"]
    assert [r.message for r in applied.refused] == [
        'persistentvolumeclaims "pvc-limit-lower" is forbidden: minimum storage usage per '
        "PersistentVolumeClaim is 1Gi, but request is 500Mi",
        'persistentvolumeclaims "pvc-limit-greater" is forbidden: maximum storage usage per '
        "PersistentVolumeClaim is 2Gi, but request is 5Gi",
    ]
