"""Small object builders shared by the viz tests."""

from kschedlab import Cluster
from kschedlab.api.core import Node, Pod

EVIL_POD = "<script>alert('pod')</script>"
EVIL_NODE = '<img src=x onerror="alert(1)">'


def node(name, cpu="4", memory="8Gi", labels=None, taints=None, unschedulable=False, extra=None):
    return Node.model_validate({
        "metadata": {"name": name, "labels": labels or {}},
        "spec": {"taints": taints or [], "unschedulable": unschedulable},
        "status": {"allocatable": {"cpu": cpu, "memory": memory, "pods": "110", **(extra or {})}}})


def pod(name, cpu=None, memory=None, node_name=None, **spec):
    requests = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v is not None}
    body = {"containers": [{"name": "c", "resources": {"requests": requests}}], **spec}
    if node_name:
        body["nodeName"] = node_name
    return Pod.model_validate({"metadata": {"name": name, "namespace": "default"}, "spec": body})


def evil_cluster():
    return Cluster([
        node(EVIL_NODE, labels={"topology.kubernetes.io/zone": "<b>zone</b>"}),
        node("plain", cpu="2", labels={"topology.kubernetes.io/zone": "<b>zone</b>"}),
        node("cordoned", unschedulable=True),
        pod("bound&co", cpu="500m", node_name="plain"),
        pod(EVIL_POD, cpu="1", memory="1Gi"),
    ])
