"""resource.k8s.io admission: defaults, admin access, validation with upstream's paths and
wording; pod DRA fields; the seed's DRA datasets load and bad ones are refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from kschedlab.api.core import Namespace, Pod
from kschedlab.api.errors import ManifestError
from kschedlab.api.loader import load, load_text
from kschedlab.api.resource import DeviceTaintRule, ResourceClaim, ResourceClaimTemplate, ResourceSlice
from kschedlab.apiserver.admission import admit
from kschedlab.apiserver.resource_validation import validate_resource_claim, validate_resource_slice

DATA = Path(__file__).resolve().parents[2] / "datasets" / "dra"
GOOD = sorted(DATA.glob("*.yaml"))
BAD = sorted((DATA / "bad").glob("*.yaml"))


def test_every_seed_example_is_there():
    names = {p.name for p in GOOD}
    assert {"08-prioritized-list.yaml", "08-cat-slice.yaml", "08-pod-with-cats.yaml", "08-admin-access.yaml",
            "08-extended-resource-class.yaml", "08-partitionable-counters.yaml", "08-consumable-capacity.yaml",
            "08-device-taint-rules.yaml", "08-binding-conditions.yaml"} <= names


GATES = {"GenericWorkload": True, "DRAWorkloadResourceClaims": True}  # for the PodGroup example


@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.name)
def test_dataset_loads_and_is_admitted(path):
    objs = load(path)
    assert objs
    admitted = admit(objs, feature_gates=GATES)
    assert len(admitted) == len(objs)


def test_podgroup_claims_and_claim_reserved_for_the_group():
    objs = admit(load(DATA / "podgroup-resource-claims.yaml"), feature_gates=GATES)
    pg = objs[-1]
    assert [(c.name, c.resource_claim_name, c.resource_claim_template_name) for c in pg.spec.resource_claims] == [
        ("pg-claim", "my-pg-claim", None), ("pg-claim-template", None, "my-pg-template")]
    claim = next(o for o in objs if isinstance(o, ResourceClaim))
    ref = claim.status.reserved_for[0]
    assert (ref.api_group, ref.resource, ref.name) == ("scheduling.k8s.io", "podgroups", pg.name)


def test_datasets_read_as_the_seed_says():
    (tmpl,) = [o for o in admit(load(DATA / "08-prioritized-list.yaml")) if isinstance(o, ResourceClaimTemplate)]
    subs = tmpl.spec.spec.devices.requests[0].first_available
    assert [(s.name, s.allocation_mode, s.count) for s in subs] == [("large-black", "ExactCount", 1),
                                                                    ("small-white", "ExactCount", 2)]
    (s,) = load(DATA / "08-cat-slice.yaml")
    dev = s.spec.devices[0]
    assert s.spec.all_nodes is True and dev.attributes["cat"].bool_ is True and dev.attributes["color"].string == "black"
    a, b = load(DATA / "08-partitionable-counters.yaml")
    assert str(a.spec.shared_counters[0].counters["memory"].value) == "8Gi"
    assert [str(d.consumes_counters[0].counters["memory"].value) for d in b.spec.devices] == ["6Gi", "6Gi"]
    objs = load(DATA / "08-consumable-capacity.yaml")
    claim = next(o for o in objs if isinstance(o, ResourceClaim))
    eth1 = next(o for o in objs if isinstance(o, ResourceSlice)).spec.devices[0]
    used = claim.status.allocation.devices.results[0].consumed_capacity["bandwidth"]
    assert eth1.capacity["bandwidth"].value.value() // used.value() == 10
    rules = load(DATA / "08-device-taint-rules.yaml")
    assert [(r.spec.taint.effect, r.spec.device_selector.driver) for r in rules if isinstance(r, DeviceTaintRule)] \
        == [("NoExecute", "dra.example.com"), ("None", "dra.example.com")]


@pytest.mark.parametrize("name,path,message", [
    ("bad-cel.yaml", "spec.selectors[0].cel.expression",
     "found no matching overload for '_&&_' applied to '(bool, string)'"),
    ("bad-cel.yaml", "spec.selectors[1].cel.expression", "compilation failed: ERROR: <input>:1:7: undefined field 'vendor'"),
    ("count-with-all.yaml", "spec.devices.requests[0].exactly.count",
     "Invalid value: 2: must not be specified when allocationMode is 'All'"),
    ("admin-access-unlabelled-namespace.yaml", "spec.spec.devices.requests[0].exactly.adminAccess",
     "Forbidden: admin access to devices requires the `resource.kubernetes.io/admin-access: true` label on the "
     "containing namespace"),
    ("unknown-field.yaml", "spec.devices[0].colour", 'unknown field "colour"'),
    ("unknown-claim-in-container.yaml", "spec.containers[0].resources.claims[0]",
     'Not found: "dog": must be one of the names in pod.spec.resourceClaims: cat'),
    ("exactly-and-first-available.yaml", "spec.devices.requests[0]",
     "Invalid value: null: exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set"),
])
def test_bad_manifests_refused_with_file_object_and_path(name, path, message):
    file = DATA / "bad" / name
    with pytest.raises(ManifestError) as e:
        admit(load(file))
    hits = [err for err in e.value.errors if err.path == path]
    assert hits, str(e.value)
    assert message in hits[0].message
    assert hits[0].file and hits[0].file.endswith(name)
    assert hits[0].obj


def test_every_bad_manifest_is_covered():
    assert len(BAD) == 6


def test_refused_admission_changes_nothing():
    objs = load(DATA / "bad" / "count-with-all.yaml")
    before = [o.model_dump() for o in objs]
    with pytest.raises(ManifestError):
        admit(objs)
    assert [o.model_dump() for o in objs] == before


def test_defaults_applied_by_admission_only():
    text = """
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c}
spec:
  devices:
    requests:
    - name: r
      exactly:
        deviceClassName: cls
        tolerations: [{key: k, value: v}]
"""
    (raw,) = load_text(text)
    (claim,) = admit([raw])
    ex = claim.spec.devices.requests[0].exactly
    assert (ex.allocation_mode, ex.count, ex.tolerations[0].operator) == ("ExactCount", 1, "Equal")
    assert raw.spec.devices.requests[0].exactly.count is None
    dumped = claim.model_dump(by_alias=True, exclude_unset=True)
    assert dumped["spec"]["devices"]["requests"][0]["exactly"]["count"] == 1


def _claim(requests, **extra) -> ResourceClaim:
    return ResourceClaim.model_validate({"metadata": {"name": "c", "namespace": "ns"},
                                         "spec": {"devices": {"requests": requests, **extra}}})


@pytest.mark.parametrize("requests,extra,want", [
    ([{"name": "r"}], {}, [("spec.devices.requests[0]",
                            "Required value: exactly one of `exactly` or `firstAvailable` is required")]),
    ([{"name": "r", "exactly": {"allocationMode": "ExactCount", "count": 0}}], {},
     [("spec.devices.requests[0].exactly.deviceClassName", "Required value"),
      ("spec.devices.requests[0].exactly.count", "Invalid value: 0: must be greater than zero")]),
    ([{"name": "r", "exactly": {"deviceClassName": "c", "allocationMode": "ExactCount", "count": 1}},
      {"name": "r", "exactly": {"deviceClassName": "c", "allocationMode": "ExactCount", "count": 1}}], {},
     [("spec.devices.requests[1]", 'Duplicate value: "r"')]),
    ([{"name": "r", "exactly": {"deviceClassName": "c", "allocationMode": "ExactCount", "count": 1}}],
     {"constraints": [{"requests": ["r", "x"], "matchAttribute": "numa"}]},
     [("spec.devices.constraints[0].requests[1]", 'Invalid value: "x": must be the name of a request in the claim '
                                                  "or the name of a request and a subrequest separated by '/'"),
      ("spec.devices.constraints[0].matchAttribute",
       'Invalid value: "numa": a fully qualified name must be a domain and a name separated by a slash')]),
    ([{"name": "r", "firstAvailable": [{"name": "a", "deviceClassName": "c", "allocationMode": "ExactCount",
                                        "count": 1}]}],
     {"config": [{"requests": ["r/a", "r/b"], "opaque": {"driver": "d.example.com", "parameters": [1]}}]},
     [("spec.devices.config[0].requests[1]", 'Invalid value: "r/b": must be the name of a request in the claim '
                                             "or the name of a request and a subrequest separated by '/'"),
      ("spec.devices.config[0].opaque.parameters", 'Invalid value: "<value omitted>": must be a valid JSON object')]),
    ([{"name": "r", "exactly": {"deviceClassName": "c", "allocationMode": "ExactCount", "count": 1,
                                "tolerations": [{"key": "k", "operator": "Exists", "value": "v"}]}}], {},
     [("spec.devices.requests[0].exactly.tolerations[0].value",
       'Invalid value: "v": must be empty for operator `Exists`')]),
    ([{"name": "Bad_Name", "exactly": {"deviceClassName": "c", "allocationMode": "ExactCount", "count": 1}}], {},
     [("spec.devices.requests[0].name", 'Invalid value: "Bad_Name": a lowercase RFC 1123 label must consist of '
                                        "lower case alphanumeric characters or '-', and must start and end with an "
                                        "alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for "
                                        "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')")]),
])
def test_claim_validation(requests, extra, want):
    assert validate_resource_claim(_claim(requests, **extra)) == want


def test_claim_status_rules():
    c = _claim([{"name": "r", "exactly": {"deviceClassName": "c", "allocationMode": "ExactCount", "count": 1}}])
    c.status = c.status.model_validate({"reservedFor": [{"resource": "pods", "name": "p", "uid": "1"}]})
    assert validate_resource_claim(c) == [("status.reservedFor",
                                           "Forbidden: may not be specified when `allocated` is not set")]
    c.status = c.status.model_validate({"allocation": {"devices": {"results": [
        {"request": "x", "driver": "d.example.com", "pool": "p", "device": "dev", "shareID": "NOT-A-UUID"}]}}})
    paths = [p for p, _ in validate_resource_claim(c)]
    assert paths == ["status.allocation.devices.results[0].request", "status.allocation.devices.results[0].shareID"]


def _slice(spec) -> ResourceSlice:
    base = {"driver": "d.example.com", "pool": {"name": "p", "generation": 1, "resourceSliceCount": 1},
            "nodeName": "n1"}
    return ResourceSlice.model_validate({"metadata": {"name": "s"}, "spec": {**base, **spec}})


@pytest.mark.parametrize("spec,want", [
    ({"devices": [{"name": "d", "attributes": {"a": {}}}]},
     [("spec.devices[0].attributes[a]", 'Invalid value: "": exactly one value must be specified')]),
    ({"devices": [{"name": "d", "attributes": {"v": {"version": "1.0"}}}]},
     [("spec.devices[0].attributes[v].version",
       'Invalid value: "1.0": must be a string compatible with semver.org spec 2.0.0')]),
    ({"devices": [{"name": "d", "attributes": {"bad-name": {"int": 1}}}]},
     [("spec.devices[0].attributes", "Invalid value: \"bad-name\": a valid C identifier must start with alphabetic "
                                     "character or '_', followed by a string of alphanumeric characters or '_' "
                                     "(e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for validation is "
                                     "'[A-Za-z_][A-Za-z0-9_]*')")]),
    ({"devices": [{"name": "d", "capacity": {"bw": {"value": "10G", "requestPolicy": {"default": "1M"}}}}]},
     [("spec.devices[0].capacity[bw].requestPolicy", "Forbidden: allowMultipleAllocations must be true")]),
    ({"devices": [{"name": "d", "allowMultipleAllocations": True, "capacity": {"bw": {"value": "10G",
      "requestPolicy": {"default": "3", "validRange": {"min": "1", "step": "2", "max": "20000000001"}}}}}]},
     [("spec.devices[0].capacity[bw].requestPolicy.validRange.max",
       'Invalid value: "20000000001": max is larger than capacity value: 10G')]),
    ({"devices": [{"name": "d", "bindingConditions": ["ready"]}]},
     [("spec.devices[0].bindingFailureConditions",
       "Invalid value: []: bindingFailureConditions are required to use bindingConditions")]),
    ({"devices": [{"name": "d", "nodeName": "n2"}]},
     [("spec.devices[0]", "Invalid value: null: `nodeName`, `nodeSelector` and `allNodes` can only be set if "
                          "`perDeviceNodeSelection` is set to true in the ResourceSlice spec")]),
    ({"devices": [{"name": "d"}, {"name": "d"}]}, [("spec.devices[1]", 'Duplicate value: "d"')]),
    ({"devices": [{"name": "d", "taints": [{"key": "k", "effect": "NoExecute"}]}],
      "sharedCounters": [{"name": "c", "counters": {"memory": {"value": "1Gi"}}}]},
     [("spec", 'Invalid value: "": only one of `sharedCounters` or `devices` is allowed')]),
    ({"nodeName": None, "pool": {"name": "p", "resourceSliceCount": 0}},
     [("spec.pool.resourceSliceCount", "Invalid value: 0: must be greater than zero"),
      ("spec", "Required value: exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` "
               "is required")]),
])
def test_slice_validation(spec, want):
    assert validate_resource_slice(_slice(spec)) == want


def test_pod_claim_validation_via_admission():
    text = """
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  resourceClaims:
  - {name: gpu, resourceClaimName: gpu-claim, resourceClaimTemplateName: gpu-template}
  - {name: gpu, resourceClaimName: other}
  - {name: net}
  containers:
  - name: c
    resources:
      claims: [{name: gpu}, {name: gpu}, {name: net, request: Bad_Req}]
"""
    with pytest.raises(ManifestError) as e:
        admit(load_text(text, source="p.yaml"))
    got = [(err.path, err.message) for err in e.value.errors]
    assert ("spec.resourceClaims[0]", 'Invalid value: {"name":"gpu","resourceClaimName":"gpu-claim",'
            '"resourceClaimTemplateName":"gpu-template"}: at most one of `resourceClaimName` or '
            "`resourceClaimTemplateName` may be specified") in got
    assert ("spec.resourceClaims[1].name", 'Duplicate value: "gpu"') in got
    assert ("spec.resourceClaims[2]", 'Invalid value: {"name":"net"}: must specify one of: `resourceClaimName`, '
            "`resourceClaimTemplateName`") in got
    assert ("spec.containers[0].resources.claims[1]", 'Duplicate value: "gpu"') in got
    assert any(p == "spec.containers[0].resources.claims[2].request" for p, _ in got)
    assert all(err.file == "p.yaml" and err.obj == "Pod default/p" for err in e.value.errors)


def test_admin_access_allowed_in_labelled_namespace():
    tmpl = ResourceClaimTemplate.model_validate({"metadata": {"name": "t", "namespace": "ops"}, "spec": {"spec": {
        "devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "c", "adminAccess": True}}]}}}})
    ns = Namespace.model_validate({"metadata": {"name": "ops", "labels": {
        "resource.kubernetes.io/admin-access": "true"}}})
    assert len(admit([ns, tmpl])) == 2
    with pytest.raises(ManifestError, match="admin access to devices requires"):
        admit([tmpl])
    wrong_label = Namespace.model_validate({"metadata": {"name": "ops", "labels": {
        "resource.k8s.io/admin-access": "true"}}})
    with pytest.raises(ManifestError, match="admin access to devices requires"):
        admit([wrong_label, tmpl])


def test_pod_without_claims_unaffected():
    (p,) = admit([Pod.model_validate({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c"}]}})])
    assert p.spec.resource_claims == []


# Rows of upstream TestValidateClass (pkg/apis/resource/validation/validation_deviceclass_test.go@master),
# with the objects written as manifests. Left out: metadata labels/annotations (generic ObjectMeta
# validation), the raw `xxx` parameters (YAML cannot carry non-JSON bytes) and the exact TooLong
# boundary (kubectl sends compact JSON, so the byte count differs from the Go test's raw text).
_GOOD_CONFIG = {"opaque": {"driver": "foo", "parameters": {"foo": 42}}}


@pytest.mark.parametrize("row,spec,want", [
    ("good-extended-resource-name", {"extendedResourceName": "example.com/gpu"}, []),
    ("bad-extended-resource-name", {"extendedResourceName": "example.com"},
     [("spec.extendedResourceName", 'Invalid value: "example.com": must be a valid extended resource name')]),
    ("selectors", {"selectors": [{"cel": {"expression": "true"}}, {}, {"cel": {"expression": "noSuchVar"}}]
                   + [{"cel": {"expression": "true"}}] * 29},
     [("spec.selectors[1].cel", "Required value"),
      ("spec.selectors[2].cel.expression", 'Invalid value: "noSuchVar": compilation failed: ERROR: <input>:1:1: '
       "undeclared reference to 'noSuchVar' (in container '')\n | noSuchVar\n | ^")]),
    ("too-many-selectors", {"selectors": [{"cel": {"expression": "true"}}] * 33},
     [("spec.selectors", "Too many: 33: must have at most 32 items")]),
    ("configuration", {"config": [_GOOD_CONFIG, {"opaque": {}}, {"opaque": {"driver": "foo", "parameters": "hello-world"}},
                                  {"opaque": {"driver": "foo", "parameters": None}}, {}] + [_GOOD_CONFIG] * 27},
     [("spec.config[1].opaque.driver", "Required value"), ("spec.config[1].opaque.parameters", "Required value"),
      ("spec.config[2].opaque.parameters", 'Invalid value: "<value omitted>": must be a valid JSON object'),
      ("spec.config[3].opaque.parameters", "Required value"), ("spec.config[4].opaque", "Required value")]),
    ("too-many-configs", {"config": [_GOOD_CONFIG] * 33}, [("spec.config", "Too many: 33: must have at most 32 items")]),
])
def test_upstream_validate_class_rows(row, spec, want):
    from kschedlab.api.resource import DeviceClass
    from kschedlab.apiserver.resource_validation import validate_device_class

    dc = DeviceClass.model_validate({"metadata": {"name": "foo"}, "spec": spec})
    assert validate_device_class(dc) == want, row
