"""List-typed device attributes (``ints``, ``bools``, ``strings``, ``versions``; the alpha
``DRAListTypeAttributes`` gate, off by default) as upstream's ``dynamic-resource-allocation``
reads them: with the gate, selectors see lists (and ``includes()``), ``matchAttribute`` keeps
devices whose value sets overlap, ``distinctAttribute`` those whose sets are disjoint; a selector
that never reads the list attribute works as before. Without the gate a list-typed attribute is
not a supported value: every selector on its device fails (upstream's choice: scheduling stops
until the slices change) and the API server drops the field on create."""

from __future__ import annotations

import json

import pytest

from kschedlab.api.dracel import CELError, DeviceView, compile_selector
from kschedlab.api.errors import ManifestError
from kschedlab.api.loader import load_text
from kschedlab.cli import main
from kschedlab.controllers.manifests import create
from kschedlab.dra.allocator import AllocatedState, AllocationError, Allocator, DRAFeatures

DRIVER = "gpu.example.com"
NODE = {"metadata": {"name": "node-1"}}
CLASS = {"metadata": {"name": "gpu"}, "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}}


def _slice(*numas) -> dict:
    devices = [{"name": f"gpu-{i}", "attributes": {"model": {"string": "a100"}, "numa": numa}}
               for i, numa in enumerate(numas)]
    return {"metadata": {"name": "s"}, "spec": {"driver": DRIVER, "nodeName": "node-1",
                                                "pool": {"name": "p", "resourceSliceCount": 1}, "devices": devices}}


def _claim(count: int, constraint: str | None = None, selector: str | None = None) -> dict:
    exactly = {"deviceClassName": "gpu", "allocationMode": "ExactCount", "count": count}
    if selector:
        exactly["selectors"] = [{"cel": {"expression": selector}}]
    devices = {"requests": [{"name": "r", "exactly": exactly}]}
    if constraint:
        devices["constraints"] = [{constraint: f"{DRIVER}/numa"}]
    return {"metadata": {"name": "c", "namespace": "default"}, "spec": {"devices": devices}}


def _allocate(claim: dict, slice_: dict, list_types: bool) -> list[str] | None:
    features = DRAFeatures.from_gates({"DRAListTypeAttributes": list_types})
    result = Allocator(features, AllocatedState(), [CLASS], [slice_]).allocate(NODE, [claim])
    return None if result is None else [r["device"] for r in result[0]["devices"]["results"]]


def test_the_gate_is_alpha_and_off_by_default():
    from kschedlab.features import DEFAULTS_V1_37

    assert DEFAULTS_V1_37["DRAListTypeAttributes"][:2] == (False, "Alpha")
    assert DRAFeatures().list_type_attributes is False


def test_a_selector_that_never_reads_the_list_works_with_the_gate():
    sel = 'device.attributes["gpu.example.com"].model == "a100"'
    assert _allocate(_claim(1, selector=sel), _slice({"ints": [0, 1]}), list_types=True) == ["gpu-0"]


def test_without_the_gate_every_selector_on_the_device_fails():
    with pytest.raises(AllocationError, match="attribute numa: unsupported attribute value"):
        _allocate(_claim(1), _slice({"ints": [0, 1]}), list_types=False)


@pytest.mark.parametrize("expression,expected", [
    ('device.attributes["gpu.example.com"].numa.includes(1)', True),
    ('device.attributes["gpu.example.com"].numa.includes(7)', False),
    ('device.attributes["gpu.example.com"].numa.exists(n, n > 0)', True),
    ('2 in device.attributes["gpu.example.com"].numa', False),
    ('device.attributes["gpu.example.com"].model.includes("a100")', True),  # a scalar equals the argument
    ('device.attributes["gpu.example.com"].model.includes(1)', False),  # other kinds are never equal
    ('device.attributes["gpu.example.com"].fw.includes(semver("2.0.0"))', True),
    ('device.attributes["gpu.example.com"].fw.exists(v, v.isGreaterThan(semver("2.0.0")))', False),
])
def test_selectors_read_lists(expression, expected):
    dev = DeviceView(DRIVER, {"numa": {"ints": [0, 1]}, "model": {"string": "a100"},
                              "fw": {"versions": ["1.2.0", "2.0.0+build.1"]}}, list_types=True)
    assert compile_selector(expression, list_types=True).matches(dev) is expected


def test_includes_is_declared_only_with_the_gate():
    with pytest.raises(CELError, match="undeclared reference to 'includes'"):
        compile_selector('device.attributes["gpu.example.com"].numa.includes(1)')


@pytest.mark.parametrize("numas,devices", [
    (({"ints": [0, 1]}, {"ints": [1]}, {"ints": [2]}), ["gpu-0", "gpu-1"]),  # {0,1} and {1} share 1
    (({"ints": [0]}, {"ints": [2]}, {"int": 2}), ["gpu-1", "gpu-2"]),  # a scalar is a set of one
    (({"ints": [0]}, {"ints": [1]}, {"strings": ["1"]}), None),  # an int never matches a string
])
def test_match_attribute_keeps_overlapping_sets(numas, devices):
    assert _allocate(_claim(2, "matchAttribute"), _slice(*numas), list_types=True) == devices


@pytest.mark.parametrize("numas,devices", [
    (({"ints": [0, 1]}, {"ints": [1, 2]}, {"ints": [3]}), ["gpu-0", "gpu-2"]),  # {0,1} and {1,2} overlap
    (({"ints": [0, 1]}, {"int": 1}, {"ints": [1, 2]}), None),
])
def test_distinct_attribute_keeps_disjoint_sets(numas, devices):
    assert _allocate(_claim(2, "distinctAttribute"), _slice(*numas), list_types=True) == devices


def test_constraints_without_the_gate_report_the_list_as_unsupported():
    slice_ = _slice({"ints": [0, 1]}, {"ints": [1]})
    claim = _claim(2, "matchAttribute")
    claim["spec"]["devices"]["requests"][0]["exactly"]["deviceClassName"] = "any"
    any_class = {"metadata": {"name": "any"}, "spec": {}}
    features = DRAFeatures.from_gates({"DRAListTypeAttributes": False})
    with pytest.raises(AllocationError, match=r"attribute gpu\.example\.com/numa of device .*unsupported attribute value"):
        Allocator(features, AllocatedState(), [any_class], [slice_]).allocate(NODE, [claim])


MANIFEST = """
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: p, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    attributes:
      numa: {ints: [0, 1]}
      tags: {strings: [ok, %s]}
      fw: {versions: ["1.0.0", "v2"]}
"""


def test_api_validation_of_list_values():
    objs = load_text(MANIFEST % ("x" * 65))
    with pytest.raises(ManifestError) as err:
        create(objs, feature_gates={"DRAListTypeAttributes": True})
    text = str(err.value)
    assert "spec.devices[0].attributes[tags].strings[1]: Too long: may not be more than 64 bytes" in text
    assert ('spec.devices[0].attributes[fw].versions[1]: Invalid value: "v2": must be a string compatible '
            'with semver.org spec 2.0.0') in text
    assert "attributes[numa]" not in text


def test_api_drops_list_values_without_the_gate():
    with pytest.raises(ManifestError) as err:
        create(load_text(MANIFEST % "fine"))
    assert 'spec.devices[0].attributes[numa]: Invalid value: "": exactly one value must be specified' in str(err.value)


def test_schedule_with_the_gate(tmp_path, capsys):
    """The whole loop: a claim for two GPUs on one NUMA node, the NUMA nodes given as lists."""
    path = tmp_path / "m.yaml"
    path.write_text("""
apiVersion: v1
kind: Node
metadata: {name: node-1}
status: {allocatable: {cpu: "8", memory: 16Gi, pods: "110"}}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec: {selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-1-gpus}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: node-1, resourceSliceCount: 1}
  devices:
  - {name: gpu-0, attributes: {numa: {ints: [0]}}}
  - {name: gpu-1, attributes: {numa: {ints: [0, 1]}}}
  - {name: gpu-2, attributes: {numa: {ints: [2]}}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: two-gpus, namespace: default}
spec:
  devices:
    requests:
    - name: gpus
      exactly:
        deviceClassName: gpu.example.com
        count: 2
        selectors: [{cel: {expression: 'device.attributes["gpu.example.com"].numa.includes(0)'}}]
    constraints: [{matchAttribute: gpu.example.com/numa}]
---
apiVersion: v1
kind: Pod
metadata: {name: trainer, namespace: default}
spec:
  containers: [{name: c, image: pause, resources: {claims: [{name: gpus}]}}]
  resourceClaims: [{name: gpus, resourceClaimName: two-gpus}]
""")
    assert main(["schedule", str(path), "-o", "json", "--feature-gates", "DRAListTypeAttributes=true"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [p["podStatus"] for p in doc["pods"]] == ["Running"]
    assert doc["resourceClaims"][0]["devices"] == ["gpu.example.com/node-1/gpu-0 (gpus)",
                                                   "gpu.example.com/node-1/gpu-1 (gpus)"]
