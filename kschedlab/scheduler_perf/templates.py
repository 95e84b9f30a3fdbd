"""Upstream's scheduler_perf templates (``test/integration/scheduler_perf/templates``, the churn
templates, ``default_preemption/templates``) and the ``createNodes`` / ``createPods`` ops that
replay them.

>>> [n.metadata.labels["kubernetes.io/hostname"] for n in make_nodes(2)]
['scheduler-perf-00000', 'scheduler-perf-00001']
>>> [p.metadata.name for p in make_pods(2, "measured")]
['measured-00000', 'measured-00001']
"""

from __future__ import annotations

from kschedlab.api.core import Node, Pod
from kschedlab.apiserver.admission import admit_pod

LABEL_HOSTNAME = "kubernetes.io/hostname"
LABEL_ZONE = "topology.kubernetes.io/zone"

#: node-default.yaml (capacity; allocatable defaults to capacity on create)
NODE_DEFAULT = {
    "apiVersion": "v1", "kind": "Node",
    "metadata": {"name": "scheduler-perf-"},
    "status": {"capacity": {"pods": "110", "cpu": "4", "memory": "32Gi"},
               "allocatable": {"pods": "110", "cpu": "4", "memory": "32Gi"},
               "conditions": [{"status": "True", "type": "Ready"}], "phase": "Running"},
}


def _pause_container(image: str) -> dict:
    return {"image": image, "name": "pause", "ports": [{"containerPort": 80}],
            "resources": {"limits": {"cpu": "100m", "memory": "500Mi"},
                          "requests": {"cpu": "100m", "memory": "500Mi"}}}


#: pod-default.yaml
POD_DEFAULT = {
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "pod-", "namespace": "default"},
    "spec": {"schedulerName": "default-scheduler", "containers": [_pause_container("registry.k8s.io/pause:3.10")]},
}
#: pod-with-pod-anti-affinity.yaml
POD_WITH_POD_ANTI_AFFINITY = {
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "anti-affinity-pod-", "labels": {"color": "green"}},
    "spec": {
        "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
            "labelSelector": {"matchLabels": {"color": "green"}},
            "topologyKey": LABEL_HOSTNAME,
            "namespaces": ["sched-1", "sched-0"]}]}},
        "containers": [_pause_container("registry.k8s.io/pause:3.10.2")]},
}
#: pod-with-pod-affinity.yaml
POD_WITH_POD_AFFINITY = {
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "affinity-pod-", "labels": {"color": "blue"}},
    "spec": {
        "affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
            "labelSelector": {"matchLabels": {"color": "blue"}},
            "topologyKey": LABEL_ZONE,
            "namespaces": ["sched-1", "sched-0"]}]}},
        "containers": [_pause_container("registry.k8s.io/pause:3.10.1")]},
}
#: pod-with-topology-spreading.yaml
POD_WITH_TOPOLOGY_SPREADING = {
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "spreading-pod-", "labels": {"color": "blue"}},
    "spec": {
        "topologySpreadConstraints": [{
            "maxSkew": 5, "topologyKey": LABEL_ZONE, "whenUnsatisfiable": "DoNotSchedule",
            "labelSelector": {"matchLabels": {"color": "blue"}}}],
        "containers": [_pause_container("registry.k8s.io/pause:3.10")]},
}


#: templates/pod-low-priority.yaml
POD_LOW_PRIORITY = {
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "pod-"},
    "spec": {"terminationGracePeriodSeconds": 0,
             "containers": [{"image": "registry.k8s.io/pause:3.10", "name": "pause", "ports": [{"containerPort": 80}],
                             "resources": {"limits": {"cpu": "900m", "memory": "500Mi"},
                                           "requests": {"cpu": "900m", "memory": "500Mi"}}}]},
}
#: default_preemption/templates/pod-high-priority.yaml (``spec.priority`` set directly, no class)
POD_HIGH_PRIORITY = {
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "pod-high-priority-"},
    "spec": {"terminationGracePeriodSeconds": 0, "priority": 9999999,
             "containers": [{"image": "registry.k8s.io/pause:3.10.2", "name": "pause",
                             "resources": {"limits": {"cpu": "3970m", "memory": "500Mi"},
                                           "requests": {"cpu": "3970m", "memory": "500Mi"}}}]},
}


#: templates/pod-high-priority-large-cpu.yaml (9 CPU: fits no node-default.yaml node)
POD_HIGH_PRIORITY_LARGE_CPU = {
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "pod-h-"},
    "spec": {"priority": 10,
             "containers": [{"image": "registry.k8s.io/pause:3.10.1", "name": "pause", "ports": [{"containerPort": 80}],
                             "resources": {"requests": {"cpu": "9", "memory": "500Mi"}}}]},
}
#: templates/churn/node-default.yaml (no allocatable resources: room for no pod)
NODE_CHURN = {
    "apiVersion": "v1", "kind": "Node",
    "metadata": {"name": "node-churn-"},
    "status": {"capacity": {"pods": "0"}, "conditions": [{"status": "True", "type": "Ready"}], "phase": "Running"},
}
#: templates/churn/service-default.yaml
SERVICE_CHURN = {
    "apiVersion": "v1", "kind": "Service",
    "metadata": {"name": "service-churn-"},
    "spec": {"selector": {"app": "foo"}, "ports": [{"protocol": "TCP", "port": 8080, "targetPort": 8080}]},
}


def make_nodes(count: int, labels: tuple[str, tuple[str, ...]] | None = None) -> list:
    """``createNodes``: nodes named ``scheduler-perf-NNNNN`` with their hostname label and,
    with ``labels`` = (key, values), the labelNodePrepareStrategy values round robin."""
    nodes = []
    for i in range(count):
        node = Node.model_validate(NODE_DEFAULT)
        name = f"scheduler-perf-{i:05d}"
        node.metadata.name = name
        node.metadata.labels = {LABEL_HOSTNAME: name}
        if labels is not None:
            key, values = labels
            node.metadata.labels[key] = values[i % len(values)]
        nodes.append(node)
    return nodes


def make_pods(count: int, prefix: str, template: dict | None = None, namespace: str | None = None) -> list:
    """``createPods``: ``count`` pods of ``template`` (default pod-default.yaml), admitted once
    (API-server defaults) and copied, named ``{prefix}-NNNNN`` in ``namespace``.

    A template that sets ``spec.priority`` itself (upstream's high-priority templates do, without a
    priorityClassName) keeps that value: the Priority admission plugin would refuse it, so its
    check is skipped for such templates, as upstream's test API server lets these pods through.
    """
    data = dict(template or POD_DEFAULT)
    data["metadata"] = {**data.get("metadata", {}), "name": f"{prefix}-", "namespace": namespace or "default"}
    spec = dict(data.get("spec", {}))
    priority = spec.pop("priority", None)
    data["spec"] = spec
    admitted = admit_pod(Pod.model_validate(data)).model_dump(mode="json", by_alias=True, exclude_unset=True)
    if priority is not None:
        admitted["spec"]["priority"] = priority
    pods = []
    for i in range(count):
        pod = Pod.model_validate(admitted)
        pod.metadata.name = f"{prefix}-{i:05d}"
        pods.append(pod)
    return pods
