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


#: markup that must never become an element, an attribute or a script of the report
MARKUP = ('<kschedlab-evil data-evil="1"><img src=x onerror="window.__kschedlabEvil=1">'
          '<script>window.__kschedlabEvil=1</script><b data-evil="1">b</b>'
          '<a href="javascript:window.__kschedlabEvil=1">a</a></kschedlab-evil>')


def markup_everywhere_cluster():
    """Every string a user controls that the report shows carries :data:`MARKUP`: node and pod
    names, namespaces, label keys and values (zone, hostname), taint keys and values, container
    names and images, the scheduler name. Built directly, as only a test may (loading refuses
    such names)."""
    tag = MARKUP
    nodes = [
        node(f"n1{tag}", labels={"topology.kubernetes.io/zone": f"z{tag}", "kubernetes.io/hostname": f"h{tag}",
                                 f"k{tag}": f"v{tag}"}),
        node(f"n2{tag}", cpu="1", labels={"topology.kubernetes.io/zone": f"z{tag}"},
             taints=[{"key": f"t{tag}", "value": f"v{tag}", "effect": "NoSchedule"}]),
    ]
    pods = [
        Pod.model_validate({"metadata": {"name": f"p{i}{tag}", "namespace": f"ns{tag}", "labels": {f"l{tag}": tag}},
                            "spec": {"containers": [{"name": f"c{tag}", "image": f"img{tag}",
                                                     "resources": {"requests": {"cpu": cpu}}}]}})
        for i, cpu in enumerate(("3", "500m", "8"))
    ]
    return Cluster([*nodes, *pods])
