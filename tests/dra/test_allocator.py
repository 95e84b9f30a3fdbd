"""The structured allocator beyond the upstream rows: search effort, trace, caching, inputs."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from kschedlab.api.errors import ManifestError
from kschedlab.api.loader import load_text
from kschedlab.dra.allocator import (
    AllocatedState,
    AllocationError,
    Allocator,
    DRAFeatures,
    FailedAllocationOnNode,
    allocate,
)
from kschedlab.dra.trace import COLUMNS, AllocationTrace

CASES = {c["id"].removeprefix("dra/allocator/"): c for c in json.loads(
    (Path(__file__).resolve().parents[1] / "conformance" / "dra" / "allocator.json").read_text())}


def _allocator(case: dict) -> Allocator:
    state = AllocatedState(
        allocated_devices={(d["driver"], d["pool"], d["device"]) for d in case["allocatedDevices"]},
        aggregated_capacity={(d["driver"], d["pool"], d["device"]): d["consumedCapacity"]
                             for d in case.get("allocatedCapacity", [])})
    return Allocator(DRAFeatures.from_gates(case["featureGates"]), state, case["deviceClasses"], case["resourceSlices"])


def _run(name: str, trace: AllocationTrace | None = None):
    case = CASES[name]
    a = _allocator(case)
    return a, a.allocate(case["node"], case["resourceClaims"], trace=trace)


@pytest.mark.parametrize("name,invocations", [
    ("check-combinations-within-single-request-single-pool-single-slice", 16),
    ("check-combinations-within-single-request-single-pool-multiple-slices", 16),
    ("check-combinations-within-single-request-multiple-pools-multiple-slices", 16),
    ("check-combinations-within-single-request-many-pools", 16),
    ("check-combinations-with-backtracking", 12),
    ("check-combinations-with-backtracking-across-slices-and-pools", 12),
    ("check-combinations-with-prioritized-list", 26),
    ("prioritized-list-max-allocation-limit-request", 75),
    ("prioritized-list-max-allocation-allocation-mode-all", 42),
])
def test_search_effort_matches_upstream(name, invocations):
    """upstream's expectNumAllocateOneInvocations (experimental channel): devices of one request
    are tried as combinations, and the claim limit cuts the search short."""
    a, _ = _run(name)
    assert a.stats["allocate_one"] == invocations


@pytest.mark.parametrize("name,reason", [
    ("small-and-large-backtrack-requests", "selector false"),
    ("already-allocated-devices", "already allocated"),
    ("with-constraint-for-request-retry", "constraint"),
    ("tainted-two-devices", "taint"),
    ("partitionable-devices-multiple-devices", "counters"),
    ("consumable-capacity-multi-allocatable-device-with-exceeded-consumable-capacity-request", "capacity"),
    ("consumable-capacity-multi-allocatable-device-with-missing-capacity-request", "capacity undefined"),
    ("binding-conditions-without-feature-gate", "binding conditions disabled"),
    ("prioritized-list-allocation-mode-all-with-selectors-deviceclass-subset", "class selector false"),
    ("partitionable-devices-per-device-node-selection-nodename", "node selection"),
    ("partitionable-devices-disabled-device-consumes-counters", "partitionable devices disabled"),
])
def test_trace_names_the_rejection(name, reason):
    trace = AllocationTrace()
    _, with_trace = _run(name, trace)
    _, without = _run(name)
    assert with_trace == without or (with_trace is not None and len(with_trace) == len(without))
    assert reason in trace.rejections()
    frame = trace.to_frame()
    assert list(frame.columns) == list(COLUMNS)
    assert frame["step"].tolist() == list(range(len(frame)))


def test_trace_shows_backtracking():
    trace = AllocationTrace()
    _, result = _run("with-constraint-for-request-retry", trace)
    frame = trace.to_frame()
    first = frame[frame.action == "allocate"].iloc[0]
    assert (first.request, first.device) == ("req-0", "driver-a/pool-1/device-1")
    undone = frame[frame.action == "deallocate"]
    assert "driver-a/pool-1/device-1" in undone.device.tolist()
    assert (frame.action == "backtrack").any()
    assert frame.iloc[-1].detail == "allocated"
    assert sorted(r["device"] for r in result[0]["devices"]["results"]) == ["device-2", "device-3"]


def test_trace_enters_next_subrequest():
    trace = AllocationTrace()
    _run("prioritized-list-first-unavailable", trace)
    subs = trace.to_frame().query("action == 'subrequest'").request.tolist()
    assert subs == ["req-0/subReq-0", "req-0/subReq-1"]


def _gpu_node(name: str) -> tuple[dict, dict]:
    node = {"metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}}}
    sl = {"metadata": {"name": f"{name}-gpus"}, "spec": {
        "driver": "gpu.example.com", "nodeName": name,
        "pool": {"name": name, "generation": 1, "resourceSliceCount": 1},
        "devices": [{"name": f"gpu-{i}", "attributes": {"numa": {"int": i // 4}, "model": {"string": "a100"}},
                     "capacity": {"memory": {"value": "80Gi"}}} for i in range(8)]}}
    return node, sl


GPU_CLASS = {"metadata": {"name": "gpu"}, "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]}}


def _gpu_claim(count: int) -> dict:
    return {"metadata": {"name": "train", "namespace": "ml"}, "spec": {"devices": {
        "requests": [{"name": "gpus", "exactly": {
            "deviceClassName": "gpu", "allocationMode": "ExactCount", "count": count,
            "selectors": [{"cel": {"expression": 'device.attributes["gpu.example.com"].model == "a100"'}}]}}],
        "constraints": [{"matchAttribute": "gpu.example.com/numa"}]}}}


def test_cel_is_evaluated_once_per_device_and_selector():
    """The fast path caches class and request selector results per device across allocations."""
    nodes, slices = zip(*(_gpu_node(f"node-{i}") for i in range(3)))
    a = Allocator(DRAFeatures(), AllocatedState({("gpu.example.com", "node-0", "gpu-0")}), [GPU_CLASS], slices)
    first = a.allocate(nodes[0], [_gpu_claim(4)])
    # gpu-0 is in use (checked before CEL); 7 devices x (class selector + request selector)
    assert a.stats["cel_evaluations"] == 14
    assert [r["device"] for r in first[0]["devices"]["results"]] == ["gpu-4", "gpu-5", "gpu-6", "gpu-7"]
    assert a.allocate(nodes[0], [_gpu_claim(4)]) == first
    assert a.stats["cel_evaluations"] == 14
    a.allocate(nodes[1], [_gpu_claim(2)])
    assert a.stats["cel_evaluations"] == 14 + 4  # gpu-0 and gpu-1 of node-1, both selectors


def test_nothing_fits_returns_none_and_an_invalid_pool_is_reported():
    node, sl = _gpu_node("n")
    assert allocate(node, [_gpu_claim(5)], [GPU_CLASS], [sl]) is None  # only 4 per NUMA node
    dup = copy.deepcopy(sl)
    dup["metadata"]["name"] = "other"
    for s in (sl, dup):
        s["spec"]["pool"]["resourceSliceCount"] = 2
    with pytest.raises(FailedAllocationOnNode, match="invalid resource pools were encountered"):
        allocate(node, [_gpu_claim(1)], [GPU_CLASS], [sl, dup])


def test_bad_quantity_names_object_and_field():
    node, sl = _gpu_node("n")
    sl["spec"]["devices"][3]["capacity"]["memory"]["value"] = "80 Gi"
    with pytest.raises(ManifestError) as err:
        allocate(node, [_gpu_claim(1)], [GPU_CLASS], [sl])
    assert str(err.value) == 'ResourceSlice n-gpus: spec.devices[3].capacity.memory.value: invalid quantity "80 Gi"'


def test_feature_gates():
    assert DRAFeatures.from_gates({}) == DRAFeatures()
    assert not DRAFeatures.from_gates({"DRAResourceClaimDeviceStatus": False}).device_binding_and_status
    assert DRAFeatures.from_gates({"DRAConsumableCapacity": False}).consumable_capacity is False
    with pytest.raises(ValueError, match="unknown feature gate"):
        DRAFeatures.from_gates({"DRANoSuchGate": True})


def test_disabled_gate_refuses_subrequests():
    case = CASES["prioritized-list-first-unavailable"]
    with pytest.raises(AllocationError, match="DRAPrioritizedList feature is disabled"):
        Allocator(DRAFeatures(prioritized_list=False), None, case["deviceClasses"], case["resourceSlices"]) \
            .allocate(case["node"], case["resourceClaims"])


YAML = """
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  selectors:
  - cel: {expression: 'device.driver == "gpu.example.com"'}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-1-gpus}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: node-1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    attributes: {model: {string: a100}}
  - name: gpu-1
    attributes: {model: {string: h100}}
    taints: [{key: maintenance, effect: NoSchedule}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: train, namespace: ml}
spec:
  devices:
    requests:
    - name: gpu
      firstAvailable:
      - name: h100
        deviceClassName: gpu.example.com
        allocationMode: ExactCount
        count: 1
        selectors: [{cel: {expression: 'device.attributes["gpu.example.com"].model == "h100"'}}]
      - name: any
        deviceClassName: gpu.example.com
        allocationMode: ExactCount
        count: 1
"""


def test_models_loaded_from_yaml():
    """Objects from the loader (pydantic models) work like dicts: the tainted h100 is refused,
    so the second alternative takes the a100."""
    objs = load_text(YAML)
    by_kind = {type(o).__name__: o for o in objs}
    trace = AllocationTrace()
    result = Allocator(DRAFeatures(), None, [by_kind["DeviceClass"]], [by_kind["ResourceSlice"]]).allocate(
        {"metadata": {"name": "node-1"}}, [by_kind["ResourceClaim"]], trace=trace)
    assert result == [{"devices": {"results": [
        {"request": "gpu/any", "driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0"}]},
        "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
            {"key": "metadata.name", "operator": "In", "values": ["node-1"]}]}]}}]
    assert trace.rejections() == {"selector false": 1, "taint": 1}
