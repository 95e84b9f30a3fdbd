"""The ResourceClaim controller: claims from templates, bound pods, deleted pods."""

from __future__ import annotations

from kschedlab.api.loader import load_text
from kschedlab.apiserver.admission import admit
from kschedlab.cluster import Cluster
from kschedlab.dra.manager import dra_manager
from kschedlab.dra.resourceclaim_controller import POD_CLAIM_NAME_ANNOTATION, ResourceClaimController, pod_runnable
from kschedlab.scheduler import Scheduler

OBJECTS = """
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "8", memory: 16Gi, pods: "110"}}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
  devices: [{name: gpu-0}, {name: gpu-1}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu}
spec:
  metadata: {labels: {team: ml}, annotations: {note: from-template}}
  spec: {devices: {requests: [{name: g, exactly: {deviceClassName: gpu}}]}}
---
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]
  containers: [{name: c, image: nginx}]
"""


def make(extra: str = "") -> Cluster:
    return Cluster(admit(load_text(OBJECTS + extra)))


def test_claim_from_template_owned_by_pod_with_template_metadata():
    c = make()
    assert ResourceClaimController(c, seed=0).sync() == []
    pod = c.pods["default/web"]
    (status,) = pod.status.resource_claim_statuses
    assert status.name == "gpu"
    claim = dra_manager(c).get_claim("default", status.resource_claim_name)
    meta = claim["metadata"]
    assert meta["name"].startswith("web-gpu-") and len(meta["name"]) == len("web-gpu-") + 5
    assert meta["generateName"] == "web-gpu-"
    assert meta["annotations"] == {"note": "from-template", POD_CLAIM_NAME_ANNOTATION: "gpu"}
    assert meta["labels"] == {"team": "ml"}
    assert meta["ownerReferences"] == [{"apiVersion": "v1", "kind": "Pod", "name": "web", "uid": pod.metadata.uid,
                                        "controller": True, "blockOwnerDeletion": True}]
    assert claim["spec"]["devices"]["requests"][0]["exactly"]["deviceClassName"] == "gpu"
    # the same seed gives the same name; another seed another one
    again = make()
    ResourceClaimController(again, seed=0).sync()
    assert again.pods["default/web"].status.resource_claim_statuses[0].resource_claim_name == meta["name"]
    other = make()
    ResourceClaimController(other, seed=7).sync()
    assert other.pods["default/web"].status.resource_claim_statuses[0].resource_claim_name != meta["name"]


def test_sync_is_idempotent_and_reuses_an_orphan():
    c = make()
    ctrl = ResourceClaimController(c)
    ctrl.sync()
    name = c.pods["default/web"].status.resource_claim_statuses[0].resource_claim_name
    ctrl.sync()
    assert list(c.objects["ResourceClaim"]) == [f"default/{name}"]
    c.pods["default/web"].status.resource_claim_statuses.clear()  # status lost: the claim is found again
    ctrl.sync()
    assert c.pods["default/web"].status.resource_claim_statuses[0].resource_claim_name == name
    assert len(c.objects["ResourceClaim"]) == 1


def test_missing_template_keeps_pod_out_with_reasons():
    c = make().__class__(admit(load_text(OBJECTS.replace("resourceClaimTemplateName: one-gpu",
                                                          "resourceClaimTemplateName: nope"))))
    errors = ResourceClaimController(c).sync()
    assert [(e.pod, e.message) for e in errors] == [
        ("default/web", 'resource claim template "nope": resourceclaimtemplate.resource.k8s.io "nope" not found')]
    result = Scheduler(c).schedule_one("default/web")
    assert result.node is None
    assert result.message == 'pod "default/web": ResourceClaim not created yet'
    assert result.status.plugin == "DynamicResources"


def test_scheduled_then_deleted_pod_releases_devices():
    c = make()
    ctrl = ResourceClaimController(c)
    ctrl.sync()
    assert Scheduler(c).schedule_one("default/web").node == "n1"
    name = c.pods["default/web"].status.resource_claim_statuses[0].resource_claim_name
    assert dra_manager(c).get_claim("default", name)["status"]["allocation"]
    pod = c.pods["default/web"]
    c.remove_pod("default/web")
    ctrl.pod_deleted(pod)
    assert dra_manager(c).get_claim("default", name) is None
    assert not dra_manager(c).allocated_state().allocated_devices


def test_shared_claim_deallocated_when_last_consumer_goes():
    shared = """
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: shared}
spec: {devices: {requests: [{name: g, exactly: {deviceClassName: gpu}}]}}
---
apiVersion: v1
kind: Pod
metadata: {name: a}
spec:
  resourceClaims: [{name: gpu, resourceClaimName: shared}]
  containers: [{name: c, image: nginx}]
---
apiVersion: v1
kind: Pod
metadata: {name: b}
spec:
  resourceClaims: [{name: gpu, resourceClaimName: shared}]
  containers: [{name: c, image: nginx}]
"""
    c = make(shared)
    ctrl = ResourceClaimController(c)
    ctrl.sync()
    results = Scheduler(c).run(["default/a", "default/b"])
    assert [r.node for r in results] == ["n1", "n1"]
    manager = dra_manager(c)
    for key in ("default/a", "default/b"):
        pod = c.pods[key]
        c.remove_pod(key)
        ctrl.pod_deleted(pod)
    got = manager.get_claim("default", "shared")
    assert got["status"]["reservedFor"] == [] and got["status"].get("allocation") is None
    assert got["metadata"]["finalizers"] == []


def test_prebound_pod_waits_for_allocation_and_is_reserved_when_allocated():
    bound = """
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: pinned}
spec: {devices: {requests: [{name: g, exactly: {deviceClassName: gpu}}]}}
---
apiVersion: v1
kind: Pod
metadata: {name: pinned-pod}
spec:
  nodeName: n1
  resourceClaims: [{name: gpu, resourceClaimName: pinned}]
  containers: [{name: c, image: nginx}]
---
apiVersion: v1
kind: Pod
metadata: {name: user}
spec:
  resourceClaims: [{name: gpu, resourceClaimName: pinned}]
  containers: [{name: c, image: nginx}]
"""
    c = make(bound)
    ctrl = ResourceClaimController(c)
    ctrl.sync()
    pinned = c.pods["default/pinned-pod"]
    assert pod_runnable(c, pinned) == (False, "waiting for resource claim pinned: not allocated")
    # the scheduler allocates the claim for another pod; the controller then reserves it for the bound pod
    assert Scheduler(c).schedule_one("default/user").node == "n1"
    assert pod_runnable(c, pinned) == (False, "waiting for resource claim pinned: not reserved for the pod")
    ctrl.sync()
    assert pod_runnable(c, pinned) == (True, "")
    assert [r["name"] for r in dra_manager(c).get_claim("default", "pinned")["status"]["reservedFor"]] == [
        "user", "pinned-pod"]
