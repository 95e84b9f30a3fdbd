"""ResourceQuota admission for pods: usage with overhead, upstream messages, scopes, the
quota controller's view of existing pods, validation errors, and the seed's example."""

from __future__ import annotations

from pathlib import Path

import pytest

from kschedlab.api.core import Pod
from kschedlab.api.errors import ManifestError
from kschedlab.api.loader import load_text
from kschedlab.api.quantity import Quantity
from kschedlab.api.resourcequota import QuotaAdmission, QuotaRefused, ResourceQuota, pod_usage
from kschedlab.apiserver.admission import admit
from kschedlab.apiserver.apply import RefusedObjectsWarning

SEED = Path(__file__).resolve().parents[2] / "datasets" / "seed"


def _seed_text(copies: int = 1) -> str:
    base = (SEED / "03-pod-overhead.yaml").read_text()
    pod = base[base.index("apiVersion: v1\nkind: Pod"):]
    extra = "".join("\n---\n" + pod.replace("name: test-pod", f"name: test-pod-{i}") for i in range(2, copies + 1))
    return base + extra + "\n---\n" + (SEED / "03-pod-overhead-quota.yaml").read_text()


def _quota(objs) -> ResourceQuota:
    (q,) = [o for o in objs if isinstance(o, ResourceQuota)]
    return q


def _used(q: ResourceQuota) -> dict[str, str]:
    return {k: str(v) for k, v in sorted(q.status.used.items())}


def test_seed_pod_is_charged_requests_plus_overhead():
    objs = admit(load_text(_seed_text(), source="seed.yaml"))
    q = _quota(objs)
    assert _used(q) == {"limits.cpu": "2250m", "limits.memory": "320Mi", "pods": "1",
                        "requests.cpu": "2250m", "requests.memory": "320Mi"}
    assert {k: str(v) for k, v in q.status.hard.items()} == {k: str(v) for k, v in q.spec.hard.items()}


def test_second_kata_pod_exceeds_the_quota_only_because_of_overhead():
    with pytest.raises(ManifestError) as err:
        admit(load_text(_seed_text(copies=2), source="two.yaml"))
    assert str(err.value) == (
        'two.yaml: Pod default/test-pod-2: pods "test-pod-2" is forbidden: exceeded quota: compute-quota, '
        "requested: limits.cpu=2250m,requests.cpu=2250m, used: limits.cpu=2250m,requests.cpu=2250m, "
        "limited: limits.cpu=4,requests.cpu=4")
    # without the RuntimeClass (no overhead) both copies fit: 2 x 2000m = 4000m
    text = _seed_text(copies=2).replace("  runtimeClassName: kata-fc\n", "")
    q = _quota(admit(load_text(text)))
    assert str(q.status.used["requests.cpu"]) == "4"


def test_refusal_changes_nothing():
    objs = load_text(_seed_text(copies=2))
    before = [o.model_dump(by_alias=True, exclude_unset=True) for o in objs]
    with pytest.raises(ManifestError):
        admit(objs)
    assert [o.model_dump(by_alias=True, exclude_unset=True) for o in objs] == before


def test_several_resources_exceeded_are_listed_sorted():
    text = """
apiVersion: v1
kind: ResourceQuota
metadata: {name: tiny, namespace: team}
spec: {hard: {requests.memory: 100Mi, requests.cpu: 100m, pods: "5"}}
---
apiVersion: v1
kind: Pod
metadata: {name: big, namespace: team}
spec:
  containers: [{name: c, resources: {requests: {cpu: 200m, memory: 200Mi}}}]
"""
    with pytest.raises(ManifestError) as err:
        admit(load_text(text))
    assert str(err.value).endswith(
        'pods "big" is forbidden: exceeded quota: tiny, requested: requests.cpu=200m,requests.memory=200Mi, '
        "used: requests.cpu=0,requests.memory=0, limited: requests.cpu=100m,requests.memory=100Mi")


def test_quota_in_another_namespace_does_not_apply():
    text = """
apiVersion: v1
kind: ResourceQuota
metadata: {name: none, namespace: other}
spec: {hard: {pods: "0"}}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec: {containers: [{name: c}]}
"""
    objs = admit(load_text(text))
    assert str(_quota(objs).status.used["pods"]) == "0"


def test_cpu_quota_requires_every_container_to_declare_cpu():
    text = """
apiVersion: v1
kind: ResourceQuota
metadata: {name: cpu-only}
spec: {hard: {limits.cpu: "4"}}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - {name: with, resources: {limits: {cpu: "1"}}}
  - {name: without}
"""
    with pytest.raises(ManifestError) as err:
        admit(load_text(text))
    assert 'pods "p" is forbidden: failed quota: cpu-only: must specify limits.cpu for: without' in str(err.value)


def test_scopes_select_pods():
    quota = ResourceQuota.model_validate({"metadata": {"name": "be", "namespace": "default"},
                                          "spec": {"hard": {"pods": "1"}, "scopes": ["BestEffort"]}})
    qa = QuotaAdmission([quota])
    burstable = Pod.model_validate({"metadata": {"name": "b", "namespace": "default"},
                                    "spec": {"containers": [{"resources": {"requests": {"cpu": "1"}}}]}})
    for _ in range(3):  # not BestEffort: never counted
        qa.admit(burstable)
    assert str(quota.status.used["pods"]) == "0"
    qa.admit(Pod.model_validate({"metadata": {"name": "e1", "namespace": "default"}, "spec": {"containers": [{}]}}))
    with pytest.raises(QuotaRefused, match="exceeded quota: be"):
        qa.admit(Pod.model_validate({"metadata": {"name": "e2", "namespace": "default"},
                                     "spec": {"containers": [{}]}}))


def test_priority_class_scope_selector():
    quota = ResourceQuota.model_validate({"metadata": {"name": "high", "namespace": "default"}, "spec": {
        "hard": {"pods": "0"},
        "scopeSelector": {"matchExpressions": [{"scopeName": "PriorityClass", "operator": "In",
                                                "values": ["high"]}]}}})
    qa = QuotaAdmission([quota])
    qa.admit(Pod.model_validate({"metadata": {"name": "low", "namespace": "default"},
                                 "spec": {"priorityClassName": "low", "containers": [{}]}}))
    with pytest.raises(QuotaRefused):
        qa.admit(Pod.model_validate({"metadata": {"name": "hi", "namespace": "default"},
                                     "spec": {"priorityClassName": "high", "containers": [{}]}}))


def test_bound_pods_are_counted_not_checked():
    text = """
apiVersion: v1
kind: ResourceQuota
metadata: {name: q}
spec: {hard: {requests.cpu: "1"}}
---
apiVersion: v1
kind: Pod
metadata: {name: running}
spec:
  nodeName: n1
  containers: [{name: c, resources: {requests: {cpu: "2"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: new}
spec:
  containers: [{name: c, resources: {requests: {cpu: 100m}}}]
"""
    with pytest.raises(ManifestError) as err:
        admit(load_text(text))
    # the running pod (admitted before the quota existed) is counted; only the new one is refused
    assert str(err.value).endswith("requested: requests.cpu=100m, used: requests.cpu=2, limited: requests.cpu=1")


def test_status_used_from_the_manifest_is_the_starting_point():
    text = """
apiVersion: v1
kind: ResourceQuota
metadata: {name: q}
spec: {hard: {pods: "3"}}
status: {hard: {pods: "3"}, used: {pods: "2"}}
---
apiVersion: v1
kind: Pod
metadata: {name: running}
spec: {nodeName: n1, containers: [{name: c}]}
---
apiVersion: v1
kind: Pod
metadata: {name: new}
spec: {containers: [{name: c}]}
"""
    q = _quota(admit(load_text(text)))
    assert str(q.status.used["pods"]) == "3"  # 2 observed + the new pod; the running one is in the 2


def test_pending_pods_read_back_from_a_cluster_exist_and_are_not_admitted_again():
    """A ``kubectl get -o yaml`` dump: a quota lowered below what its namespace uses (the API server
    allows it) and a pending pod that was created before; the pod exists, it is neither refused nor
    charged twice (its usage is in the dumped ``status.used``)."""
    text = """
apiVersion: v1
kind: ResourceQuota
metadata: {name: q, namespace: shop, resourceVersion: "90"}
spec: {hard: {requests.cpu: "1"}}
status: {hard: {requests.cpu: "1"}, used: {requests.cpu: 2500m}}
---
apiVersion: v1
kind: Pod
metadata: {name: running, namespace: shop, resourceVersion: "80"}
spec: {nodeName: n1, priority: 0, containers: [{name: c, resources: {requests: {cpu: "2"}}}]}
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata: {name: pending, namespace: shop, resourceVersion: "85"}
spec: {priority: 0, containers: [{name: c, resources: {requests: {cpu: 500m}}}]}
status: {phase: Pending}
"""
    objs = admit(load_text(text))
    assert [o.metadata.name for o in objs if isinstance(o, Pod)] == ["running", "pending"]
    assert _used(_quota(objs)) == {"requests.cpu": "2500m"}


def test_validation_errors_name_the_field():
    text = """
apiVersion: v1
kind: ResourceQuota
metadata: {name: bad}
spec: {hard: {requests.cpu: "-1", pods: 1500m}}
"""
    with pytest.raises(ManifestError) as err:
        admit(load_text(text, source="bad.yaml"))
    lines = str(err.value).splitlines()
    assert lines == [
        'bad.yaml: ResourceQuota default/bad: spec.hard[requests.cpu]: Invalid value: "-1": must be greater than or equal to 0',
        'bad.yaml: ResourceQuota default/bad: spec.hard[pods]: Invalid value: "1500m": must be an integer',
    ]


def test_unknown_scope_is_refused_with_that_quota_alone():
    from kschedlab.controllers.manifests import load_manifests

    with pytest.warns(RefusedObjectsWarning):
        out = load_manifests(text="apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: q}\nspec: {scopes: [Forever]}\n"
                                  "---\napiVersion: v1\nkind: Namespace\nmetadata: {name: team}\n")
    assert [o.kind for o in out] == ["Namespace"]
    assert [r.message for r in out.refused] == [
        'ResourceQuota "q" is invalid: spec.scopes: Invalid value: []core.ResourceQuotaScope{"Forever"}: unsupported scope']


def test_pod_usage_keeps_quantity_formats():
    pod = Pod.model_validate({"spec": {"overhead": {"memory": "120Mi"}, "containers": [
        {"resources": {"requests": {"memory": "100M"}, "limits": {"memory": "100M"}}}]}})
    usage = pod_usage(pod)
    assert usage["requests.memory"] == Quantity(100_000_000 + 120 * 2**20)
    assert str(usage["limits.memory"]) == str(usage["requests.memory"])
