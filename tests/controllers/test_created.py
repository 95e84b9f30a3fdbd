"""Pods a controller creates while the cluster runs go through admission as a load's do: the
namespace's LimitRange defaults land on them, a ResourceQuota counts the pods already there and may
refuse them (recorded with the owner's FailedCreate event), and a PriorityClass sets their priority."""

import contextlib
import textwrap

import pytest

from kschedlab.apiserver.apply import RefusedObjectsWarning
from kschedlab.cluster import Cluster
from kschedlab.controllers.manifests import load_manifests
from kschedlab.controllers.replicaset import replicaset_replacements


def cluster(replicas: int, quota_pods: int | None = None) -> Cluster:
    quota = "" if quota_pods is None else textwrap.dedent(f"""
        ---
        apiVersion: v1
        kind: ResourceQuota
        metadata: {{name: pods, namespace: default}}
        spec: {{hard: {{count/pods: "{quota_pods}"}}}}
        """)
    text = textwrap.dedent(f"""
        apiVersion: scheduling.k8s.io/v1
        kind: PriorityClass
        metadata: {{name: high}}
        value: 1000
        ---
        apiVersion: v1
        kind: LimitRange
        metadata: {{name: defaults, namespace: default}}
        spec: {{limits: [{{type: Container, defaultRequest: {{cpu: 250m}}, default: {{cpu: 500m}}}}]}}
        ---
        apiVersion: apps/v1
        kind: ReplicaSet
        metadata: {{name: web, namespace: default}}
        spec:
          replicas: {replicas}
          selector: {{matchLabels: {{app: web}}}}
          template:
            metadata: {{labels: {{app: web}}}}
            spec: {{priorityClassName: high, containers: [{{name: c, image: nginx}}]}}
        """) + quota
    refused = quota_pods is not None and quota_pods < replicas
    with pytest.warns(RefusedObjectsWarning) if refused else contextlib.nullcontext():
        return Cluster(load_manifests(text=text))


def test_a_replacement_gets_the_namespace_defaults_and_its_priority():
    c = cluster(2)
    gone = c.pods[sorted(c.pods)[0]]
    c.remove_pod(gone.key)
    (new,) = replicaset_replacements(c, gone)
    assert new.name != gone.name and new.metadata.generate_name == "web-"
    assert str(new.spec.containers[0].resources.requests["cpu"]) == "250m"
    assert str(new.spec.containers[0].resources.limits["cpu"]) == "500m"
    assert new.spec.priority == 1000


def test_a_quota_refuses_a_replacement_and_the_replicaset_records_it():
    c = cluster(2, quota_pods=1)  # the load created one pod; the second was refused
    assert len(c.pods) == 1 and len(c.refused) == 1
    (pod,) = c.pods.values()
    assert replicaset_replacements(c, pod) == []  # the missing replica is refused again
    assert len(c.refused) == 2 and "exceeded quota: pods" in c.refused[-1].message
    assert [e.reason for e in c.events] == ["FailedCreate", "FailedCreate"]
