"""Pod topology labels: the binding copies the node's zone and region onto the pod; the
Downward API reads them back (seed section 2, "Мітки топології Podʼів")."""

from __future__ import annotations

import pytest

from kschedlab.api.binding import admit_binding, bind_pod
from kschedlab.api.core import Node, Pod
from kschedlab.api.downward_api import downward_api_env
from kschedlab.api.errors import ManifestError
from kschedlab.api.loader import load_text
from kschedlab.apiserver.admission import admit
from kschedlab.cluster import Cluster
from kschedlab.features import FeatureGates
from kschedlab.scheduler import Scheduler

SEED = """\
apiVersion: v1
kind: Node
metadata:
  name: kube-01
  labels:
    kubernetes.io/hostname: kube-01
    topology.kubernetes.io/zone: antarctica-east1
    topology.kubernetes.io/region: antarctica
    topology.k8s.io/zone: not-copied
status:
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
---
apiVersion: v1
kind: Pod
metadata:
  name: pod-with-topology-labels
  namespace: default
spec:
  containers:
    - name: app
      image: alpine
      command: ["sh", "-c", "env"]
      env:
        - name: MY_ZONE
          valueFrom:
            fieldRef:
              fieldPath: metadata.labels['topology.kubernetes.io/zone']
        - name: MY_REGION
          valueFrom:
            fieldRef:
              fieldPath: metadata.labels['topology.kubernetes.io/region']
"""
KEY = "default/pod-with-topology-labels"


def schedule(text: str, gates=None) -> Cluster:
    cluster = Cluster(admit(load_text(text)))
    Scheduler(cluster, gates=gates).run()
    return cluster


def test_seed_example_bound_pod_gets_zone_and_region():
    pod = schedule(SEED).pods[KEY]
    assert pod.spec.node_name == "kube-01"
    assert pod.metadata.labels == {"topology.kubernetes.io/zone": "antarctica-east1",
                                   "topology.kubernetes.io/region": "antarctica"}
    assert downward_api_env(pod) == {"MY_ZONE": "antarctica-east1", "MY_REGION": "antarctica"}


def test_gate_off_copies_nothing():
    pod = schedule(SEED, FeatureGates({"PodTopologyLabelsAdmission": False})).pods[KEY]
    assert pod.spec.node_name == "kube-01"
    assert pod.metadata.labels == {}
    assert downward_api_env(pod, "app") == {"MY_ZONE": "", "MY_REGION": ""}


def test_node_labels_overwrite_the_pods_and_other_labels_stay():
    node = Node.model_validate({"metadata": {"name": "n", "labels": {"topology.kubernetes.io/zone": "z1"}}})
    pod = Pod.model_validate({"metadata": {"name": "p", "labels": {"topology.kubernetes.io/zone": "stale", "app": "a"}}})
    bind_pod(pod, "n", labels=admit_binding({}, "Node", node, FeatureGates()), gates=FeatureGates())
    assert pod.metadata.labels == {"topology.kubernetes.io/zone": "z1", "app": "a"}


def test_binding_to_something_else_or_a_missing_node_is_left_alone():
    node = Node.model_validate({"metadata": {"name": "n", "labels": {"topology.kubernetes.io/zone": "z1"}}})
    assert admit_binding({"x": "1"}, "VirtualNode", node) == {"x": "1"}
    assert admit_binding({}, "Node", None) == {}


def test_pod_already_bound_elsewhere_is_refused_unchanged():
    pod = Pod.model_validate({"metadata": {"name": "p"}, "spec": {"nodeName": "a"}})
    with pytest.raises(ValueError, match="already assigned to node 'a'"):
        bind_pod(pod, "b", labels={"topology.kubernetes.io/zone": "z"})
    assert pod.spec.node_name == "a" and pod.metadata.labels == {}


def test_the_scheduler_cache_sees_the_labels_the_binding_added():
    # the follower requires, on its node, a pod labelled with the zone the binding gave the first pod
    text = SEED.replace("antarctica-east1", "z-a") + """\
---
apiVersion: v1
kind: Node
metadata:
  name: kube-02
  labels: {kubernetes.io/hostname: kube-02, topology.kubernetes.io/zone: z-b}
status:
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
"""
    cluster = Cluster(admit(load_text(text)))
    sched = Scheduler(cluster)
    sched.run([KEY])
    first = cluster.pods[KEY]
    zone = first.metadata.labels["topology.kubernetes.io/zone"]
    cluster.add(Pod.model_validate({"metadata": {"name": "follower", "namespace": "default"}, "spec": {
        "containers": [{"name": "c", "image": "busybox"}],
        "affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
            "labelSelector": {"matchLabels": {"topology.kubernetes.io/zone": zone}},
            "topologyKey": "kubernetes.io/hostname"}]}}}}))
    sched.run(["default/follower"])
    assert cluster.pods["default/follower"].spec.node_name == first.spec.node_name


def test_downward_api_names_what_it_cannot_resolve():
    pod = Pod.model_validate({"metadata": {"name": "p", "namespace": "ns"}, "spec": {"containers": [
        {"name": "c", "env": [{"name": "A", "valueFrom": {"configMapKeyRef": {"name": "cm", "key": "k"}}}]},
        {"name": "d", "env": [{"name": "B", "valueFrom": {"fieldRef": {"fieldPath": "spec.bogus"}}}]}]}})
    with pytest.raises(ManifestError, match=r"Pod ns/p: spec.containers\[0\].env\[0\].valueFrom.configMapKeyRef"):
        downward_api_env(pod)
    with pytest.raises(ManifestError, match=r"spec.containers\[1\].env\[0\].valueFrom.fieldRef.fieldPath: unsupported"):
        downward_api_env(pod, "d")
    with pytest.raises(ManifestError, match='no container named "x"'):
        downward_api_env(pod, "x")
