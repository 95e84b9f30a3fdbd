"""resource.k8s.io models: loading through the registry, typing, strictness, round trips."""

from __future__ import annotations

import pytest

from kschedlab.api.core import Pod
from kschedlab.api.errors import ManifestError
from kschedlab.api.loader import dump, load_text
from kschedlab.api.registry import model_for
from kschedlab.api.resource import (
    DeviceClass,
    DeviceTaintRule,
    DeviceTaintRuleV1beta2,
    ResourceClaim,
    ResourceClaimTemplate,
    ResourceSlice,
)

SLICE = """
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: dra.example.com
  nodeName: worker-1
  pool: {name: pool, generation: 1, resourceSliceCount: 1}
  devices:
  - name: eth1
    allowMultipleAllocations: true
    attributes:
      name: {string: eth1}
      cores: {int: 8}
      fast: {bool: true}
      fw: {version: 1.2.3}
    capacity:
      bandwidth:
        value: 10G
        requestPolicy: {default: 1M, validRange: {min: 1M, step: "8"}}
    consumesCounters:
    - counterSet: set-1
      counters: {memory: {value: 6Gi}}
    taints: [{key: k, value: v, effect: NoSchedule}]
    bindsToNode: true
    bindingConditions: [dra.example.com/is-prepared]
    bindingFailureConditions: [dra.example.com/preparing-failed]
  sharedCounters:
  - name: set-1
    counters: {memory: {value: 8Gi}}
"""


@pytest.mark.parametrize("api_version,kind,cls", [
    ("resource.k8s.io/v1", "DeviceClass", DeviceClass),
    ("resource.k8s.io/v1", "ResourceClaim", ResourceClaim),
    ("resource.k8s.io/v1", "ResourceClaimTemplate", ResourceClaimTemplate),
    ("resource.k8s.io/v1", "ResourceSlice", ResourceSlice),
    ("resource.k8s.io/v1alpha3", "DeviceTaintRule", DeviceTaintRule),
    ("resource.k8s.io/v1beta2", "DeviceTaintRule", DeviceTaintRuleV1beta2),
])
def test_registered(api_version, kind, cls):
    assert model_for(api_version, kind) is cls


def test_slice_fields_typed():
    (s,) = load_text(SLICE, source="s.yaml")
    d = s.spec.devices[0]
    assert d.attributes["cores"].value() == 8 and d.attributes["fast"].value() is True
    assert d.attributes["fw"].version == "1.2.3" and d.attributes["name"].string == "eth1"
    cap = d.capacity["bandwidth"]
    assert cap.value.value() == 10 * 10**9
    assert cap.request_policy.valid_range.step.value() == 8
    assert d.consumes_counters[0].counters["memory"].value.value() == 6 * 2**30
    assert s.spec.shared_counters[0].counters["memory"].value.value() == 8 * 2**30
    assert d.taints[0].effect == "NoSchedule" and d.binds_to_node is True
    assert d.allow_multiple_allocations is True


def test_slice_round_trip():
    (s,) = load_text(SLICE, source="s.yaml")
    (again,) = load_text(dump([s]), source="again.yaml")
    assert again.model_dump() == s.model_dump()


def test_claim_prioritized_list_and_status():
    (c,) = load_text("""
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c, namespace: ns}
spec:
  devices:
    requests:
    - name: req-0
      firstAvailable:
      - {name: large, deviceClassName: cls, selectors: [{cel: {expression: "true"}}]}
      - {name: small, deviceClassName: cls, count: 2}
    constraints: [{requests: [req-0], matchAttribute: dra.example.com/numa}]
    config: [{requests: [req-0], opaque: {driver: d, parameters: {a: 1}}}]
status:
  allocation:
    devices:
      results:
      - {request: req-0/small, driver: d, pool: p, device: x, shareID: "a671734a", consumedCapacity: {bandwidth: 1G}}
    nodeSelector:
      nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [n1]}]}]
  reservedFor: [{resource: pods, name: p, uid: "1"}]
""")
    req = c.spec.devices.requests[0]
    assert req.exactly is None and [s.name for s in req.first_available] == ["large", "small"]
    assert req.first_available[1].effective_count() == 2
    r = c.status.allocation.devices.results[0]
    assert r.share_id == "a671734a" and str(r.consumed_capacity["bandwidth"]) == "1G"
    assert c.is_allocated() and c.status.reserved_for[0].resource == "pods"


def test_pod_claim_fields_typed():
    p = Pod.model_validate({"metadata": {"name": "p"}, "spec": {
        "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "t"}],
        "containers": [{"name": "c", "resources": {"claims": [{"name": "gpu", "request": "req-0"}]}}]},
        "status": {"resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": "p-gpu-abcde"}]}})
    assert p.spec.resource_claims[0].resource_claim_template_name == "t"
    assert p.spec.containers[0].resources.claims[0].request == "req-0"
    assert p.status.resource_claim_statuses[0].resource_claim_name == "p-gpu-abcde"


@pytest.mark.parametrize("doc,path", [
    ("apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\nspec: {driver: d, bogus: 1}",
     "spec.bogus"),
    ("apiVersion: resource.k8s.io/v1alpha3\nkind: DeviceTaintRule\nmetadata: {name: r}\n"
     "spec: {deviceSelector: {deviceClassName: x}, taint: {key: k, effect: NoExecute}}",
     "spec.deviceSelector.deviceClassName"),
    ("apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\n"
     "spec: {devices: [{name: d, attributes: {a: {int: \"3\"}}}]}",
     "spec.devices[0].attributes.a.int"),
    ("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
     "spec: {containers: [{name: c, resources: {claims: [{name: a, foo: b}]}}]}",
     "spec.containers[0].resources.claims[0].foo"),
])
def test_bad_fields_refused_with_path(doc, path):
    with pytest.raises(ManifestError) as e:
        load_text(doc, source="bad.yaml")
    assert e.value.file == "bad.yaml"
    assert e.value.path == path


@pytest.mark.parametrize("doc, path, message", [
    ("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c, namespace: default}\n"
     "spec: {devices: {requests: [{name: r, exactly: {allocationMode: Some, deviceClassName: gpu}}]}}",
     "spec.devices.requests[0].exactly.allocationMode", 'Unsupported value: "Some": supported values: "All", "ExactCount"'),
    ("apiVersion: resource.k8s.io/v1alpha3\nkind: DeviceTaintRule\nmetadata: {name: r}\n"
     "spec: {taint: {key: k, effect: PreferNoSchedule}}",
     "spec.taint.effect", 'Unsupported value: "PreferNoSchedule": supported values: "NoExecute", "NoSchedule", "None"'),
])
def test_unsupported_enum_values_decode_and_validation_refuses_the_object(doc, path, message):
    # Go decodes an enum as a plain string; the object's validation refuses it (kubectl apply: that object only)
    from kschedlab.apiserver.resource_validation import admit_resource_objects

    objs = load_text(doc, source="bad.yaml")
    assert [(e.path, e.message) for e in admit_resource_objects(objs, {})] == [(path, message)]
