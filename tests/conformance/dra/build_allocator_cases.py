"""Writes allocator.json: upstream's shared allocator test table, row by row, as `dra-allocate` cases.

The helpers below mirror the object generators of upstream's allocator_testing.go (node, class,
request, subRequest, device, slice, ...) so that every row reads like the Go row it ports; the
output is plain Kubernetes JSON in the CASES.md format. Run from the repository root:

    python tests/conformance/dra/build_allocator_cases.py
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

UPSTREAM = ("kubernetes/kubernetes staging/src/k8s.io/dynamic-resource-allocation/structured/internal/"
            "allocatortesting/allocator_testing.go@008b3652959ca58af8be3fb5b6ecfe9ae7638282 :: TestAllocator :: ")

region1, region2 = "region-1", "region-2"
node1, node2 = "node-1", "node-2"
classA, classB = "class-a", "class-b"
driverA, driverB = "driver-a", "driver-b"
pool1, pool2, pool3, pool4 = "pool-1", "pool-2", "pool-3", "pool-4"
req0, req1, req2, req3 = "req-0", "req-1", "req-2", "req-3"
subReq0, subReq1 = "subReq-0", "subReq-1"
req0SubReq0, req0SubReq1 = "req-0/subReq-0", "req-0/subReq-1"
req1SubReq0, req1SubReq1 = "req-1/subReq-0", "req-1/subReq-1"
req2SubReq0, req2SubReq1 = "req-2/subReq-0", "req-2/subReq-1"
claim0, claim1 = "claim-0", "claim-1"
slice1, slice2, slice3, slice4 = "slice-1", "slice-2", "slice-3", "slice-4"
device0, device1, device2, device3, device4 = "device-0", "device-1", "device-2", "device-3", "device-4"
counterSet1, counterSet2 = "counter-set-1", "counter-set-2"
capacity0, capacity1 = "capacity-0", "capacity-1"
zero, one, two, three, four = "0", "1", "2", "3", "4"
MAX = 32  # resourceapi.AllocationResultsMaxSize

fieldNameKey, regionKey, planetKey, planetValueEarth = "metadata.name", "region", "planet", "earth"
fromCounters = "fromCounters"
nodeSelectionAll, nodeSelectionPerDevice = "nodeSelectionAll", "nodeSelectionPerDevice"

nonExistentAttribute = driverA + "/NonExistentAttribute"
boolAttribute = driverA + "/boolAttribute"
stringAttribute = driverA + "/stringAttribute"
versionAttribute = driverA + "/driverVersion"
intAttribute = driverA + "/numa"
taintKey, taintValue, taintValue2 = "taint-key", "taint-value", "taint-value-2"
taintNone = {"key": taintKey, "value": taintValue, "effect": "None"}
taintNoSchedule = {"key": taintKey, "value": taintValue, "effect": "NoSchedule"}
taintNoExecute = {"key": taintKey, "value": taintValue2, "effect": "NoExecute"}
tolerationNoSchedule = {"operator": "Exists", "key": taintKey, "effect": "NoSchedule"}
tolerationNoExecute = {"operator": "Equal", "key": taintKey, "value": taintValue2, "effect": "NoExecute"}
tolerationNoScheduleKey1 = {"operator": "Exists", "key": "key1", "effect": "NoSchedule"}


# ------------------------------------------------------------------ generators
def node(name, region):
    return {"metadata": {"name": name, "labels": {regionKey: region, planetKey: planetValueEarth}}}


def sel(expr):
    return {"cel": {"expression": expr}}


def cls(name, driver):
    return {"metadata": {"name": name}, "spec": {"selectors": [sel(f'device.driver == "{driver}"')]}}


def classWithAllowMultipleAllocations(name, driver, multi):
    return {"metadata": {"name": name}, "spec": {"selectors": [
        sel(f'device.driver == "{driver}" && device.allowMultipleAllocations == {str(multi).lower()}')]}}


def deviceConfiguration(driver, attribute):
    return {"opaque": {"driver": driver, "parameters": {attribute: attribute + "Value"}}}


def classWithConfig(name, driver, attribute):
    c = cls(name, driver)
    c["spec"]["config"] = [deviceConfiguration(driver, attribute)]
    return c


def claimWithRequests(name, constraints, *requests):
    devices = {"requests": [copy.deepcopy(r) for r in requests]}
    if constraints:
        devices["constraints"] = constraints
    return {"metadata": {"name": name}, "spec": {"devices": devices}}


def request(name, class_, count, *selectors):
    exactly = {"count": count, "allocationMode": "ExactCount", "deviceClassName": class_}
    if selectors:
        exactly["selectors"] = list(selectors)
    return {"name": name, "exactly": exactly}


deviceRequest = request


def allDeviceRequest(name, class_):
    return {"name": name, "exactly": {"allocationMode": "All", "deviceClassName": class_}}


def subRequest(name, class_, count, *fields):
    s = {"name": name, "count": count, "allocationMode": "ExactCount", "deviceClassName": class_}
    for f in fields:
        if "cel" in f:
            s.setdefault("selectors", []).append(f)
        else:
            s.setdefault("tolerations", []).append(f)
    return s


def withAllocationMode(sub, mode):
    sub = copy.deepcopy(sub)
    sub["allocationMode"] = mode
    return sub


def capacityRequests(q):
    return {"requests": {capacity0: q} if q is not None else {}}


def withCapacityRequest(req, q):
    req = copy.deepcopy(req)
    (req["exactly"] if "exactly" in req else req)["capacity"] = capacityRequests(q)
    return req


def withSelectors(req, *selectors):
    req = copy.deepcopy(req)
    req["exactly"]["selectors"] = list(selectors)
    return req


def requestWithPrioritizedList(name, *subs):
    return {"name": name, "firstAvailable": [copy.deepcopy(s) for s in subs]}


def claimWithRequest(name, req, class_, *constraints):
    return claimWithRequests(name, list(constraints), request(req, class_, 1))


def claim(name):
    return {"metadata": {"name": name}, "spec": {"devices": {}}}


def withRequests(c, *requests):
    c = copy.deepcopy(c)
    c["spec"]["devices"]["requests"] = [copy.deepcopy(r) for r in requests]
    return c


def withConstraints(c, *constraints):
    c = copy.deepcopy(c)
    c["spec"]["devices"]["constraints"] = list(constraints)
    return c


def withConfigs(c, configs):
    c = copy.deepcopy(c)
    c["spec"]["devices"]["config"] = configs
    return c


def withTolerations(c, *tolerations):
    c = copy.deepcopy(c)
    for r in c["spec"]["devices"]["requests"]:
        r["exactly"].setdefault("tolerations", []).extend(tolerations)
    return c


def claimWithDeviceConfig(name, req, class_, driver, attribute):
    c = claimWithRequest(name, req, class_)
    c["spec"]["devices"]["config"] = [deviceConfiguration(driver, attribute)]
    return c


def deviceClaimConfig(requests, config):
    return {"requests": requests, **config}


def device(name, capacity=None, attributes=None):
    d = {"name": name}
    if attributes:
        d["attributes"] = attributes
    if isinstance(capacity, dict):
        d["capacity"] = {n: {"value": q} for n, q in capacity.items()}
    elif capacity == fromCounters:
        d["_fromCounters"] = True
    return d


def withTaints(d, *taints):
    d = copy.deepcopy(d)
    d.pop("_fromCounters", None)
    d.setdefault("taints", []).extend(taints)
    return d


def withDeviceCounterConsumption(d, *consumptions):
    d = copy.deepcopy(d)
    from_counters = d.pop("_fromCounters", False)
    d.setdefault("consumesCounters", []).extend(consumptions)
    if from_counters:
        d["capacity"] = {n: dict(c) for dcc in d["consumesCounters"] for n, c in dcc["counters"].items()}
    return d


def withNodeSelection(d, selection):
    d = copy.deepcopy(d)
    d.pop("_fromCounters", None)
    if isinstance(selection, dict):
        d["nodeSelector"] = selection
    elif selection == nodeSelectionAll:
        d["allNodes"] = True
    else:
        d["nodeName"] = selection
    return d


def withBindingConditions(d, conditions, failure):
    d = copy.deepcopy(d)
    d.pop("_fromCounters", None)
    d["bindingConditions"] = conditions
    d["bindingFailureConditions"] = failure
    return d


def withBindsToNode(d, value):
    d = copy.deepcopy(d)
    d["bindsToNode"] = value
    return d


def withAllowMultipleAllocations(d):
    d = copy.deepcopy(d)
    d.pop("_fromCounters", None)
    d["allowMultipleAllocations"] = True
    return d


def withCapacityRequestPolicyRange(d, capacity):
    d = copy.deepcopy(d)
    d.pop("_fromCounters", None)
    caps = d.setdefault("capacity", {})
    for n, q in capacity.items():
        caps[n] = {"value": q, "requestPolicy": {"default": two, "validRange": {"min": two, "step": two, "max": four}}}
    return d


def withCapacityRequestPolicyValidValues(d, default, capacity, additional):
    d = copy.deepcopy(d)
    d.pop("_fromCounters", None)
    caps = d.setdefault("capacity", {})
    for n, q in capacity.items():
        caps[n] = {"value": q, "requestPolicy": {"default": default, "validValues": [default, *(additional or [])]}}
    return d


def deviceCounterConsumption(counter_set, counters):
    return {"counterSet": counter_set, "counters": {n: {"value": q} for n, q in (counters or {}).items()}}


def counterSet(name, counters):
    cs = {"name": name}
    if counters:
        cs["counters"] = {n: {"value": q} for n, q in counters.items()}
    return cs


def resourcePool(name, count):
    return {"name": name, "resourceSliceCount": count, "generation": 1}


def _slice(name, selection, pool, driver):
    rp = pool if isinstance(pool, dict) else resourcePool(pool, 1)
    s = {"metadata": {"name": name}, "spec": {"driver": driver, "pool": copy.deepcopy(rp)}}
    if isinstance(selection, dict):
        s["spec"]["nodeSelector"] = selection
    elif selection == nodeSelectionAll:
        s["spec"]["allNodes"] = True
    elif selection == nodeSelectionPerDevice:
        s["spec"]["perDeviceNodeSelection"] = True
    else:
        s["spec"]["nodeName"] = selection
    return s


def sliceWithDevices(name, selection, pool, driver, *devices):
    s = _slice(name, selection, pool, driver)
    devs = []
    for d in devices:
        d = copy.deepcopy(d)
        d.pop("_fromCounters", None)
        devs.append(d)
    if devs:
        s["spec"]["devices"] = devs
    return s


def sliceWithCounterSets(name, selection, pool, driver, *counter_sets):
    s = _slice(name, selection, pool, driver)
    s["spec"]["sharedCounters"] = list(counter_sets)
    return s


def sliceWithNoDevices(name, selection, pool, driver):
    return sliceWithDevices(name, selection, pool, driver)


def sliceWithOneDevice(name, selection, pool, driver):
    return sliceWithDevices(name, selection, pool, driver, device(device1))


def sliceWithMultipleDevices(name, selection, pool, driver, count):
    return sliceWithDevices(name, selection, pool, driver, *[device(f"device-{i}") for i in range(count)])


def setPool(s, **fields):
    s = copy.deepcopy(s)
    s["spec"]["pool"].update(fields)
    return s


def nodeLabelSelector(key, *values):
    return {"nodeSelectorTerms": [{"matchExpressions": [{"key": key, "operator": "In", "values": list(values)}]}]}


def localNodeSelector(name):
    return {"nodeSelectorTerms": [{"matchFields": [{"key": fieldNameKey, "operator": "In", "values": [name]}]}]}


def deviceAllocationResult(request_, driver, pool, dev, admin, *tolerations):
    r = {"request": request_, "driver": driver, "pool": pool, "device": dev}
    if admin:
        r["adminAccess"] = True
    if tolerations:
        r["tolerations"] = list(tolerations)
    return r


def withConsumedCapacity(r, consumed):
    r = dict(r)
    r["shareIDSet"] = True
    if consumed:
        r["consumedCapacity"] = dict(consumed)
    return r


def withBindings(request_, driver, pool, dev, conditions, failure, *tolerations):
    r = deviceAllocationResult(request_, driver, pool, dev, False, *tolerations)
    if conditions:
        r["bindingConditions"] = conditions
    if failure:
        r["bindingFailureConditions"] = failure
    return r


def multipleDeviceAllocationResults(request_, driver, pool, count, start):
    return [deviceAllocationResult(request_, driver, pool, f"device-{i}", False) for i in range(start, start + count)]


def allocationResult(selector, *results, config=None):
    return {"nodeSelector": selector, "results": list(results), **({"config": config} if config else {})}


def cfg(source, requests, config):
    return {"source": source, **({"requests": requests} if requests else {}), **config}


def mem(expr_size):
    return sel(f'device.capacity["{driverA}"].memory.compareTo(quantity("{expr_size}")) >= 0')


def A(**kv):  # device attributes
    out = {}
    for k, v in kv.items():
        if isinstance(v, bool):
            out[k] = {"bool": v}
        elif isinstance(v, int):
            out[k] = {"int": v}
        elif isinstance(v, tuple):
            out[k] = {"version": v[0]}
        elif v is None:
            out[k] = {}
        else:
            out[k] = {"string": v}
    return out


def V(s):  # version value marker for A()
    return (s,)


GATES = {"AdminAccess": "DRAAdminAccess", "PrioritizedList": "DRAPrioritizedList",
         "PartitionableDevices": "DRAPartitionableDevices", "DeviceTaints": "DRADeviceTaints",
         "DeviceBindingAndStatus": "DRADeviceBindingConditions", "ConsumableCapacity": "DRAConsumableCapacity",
         "ListTypeAttributes": "DRAListTypeAttributes"}

CASES: list[dict] = []


def row(name, *, features=(), claims=(), classes=(), slices=(), node_=None, allocated=(),
        allocatedCapacity=(), expect=None, error=None, notes=""):
    gates = {g: (f in features) for f, g in GATES.items()}
    gates["DRAResourceClaimDeviceStatus"] = True
    allocation = None
    if expect:
        allocation = []
        for c, a in zip([c["metadata"]["name"] for c in claims], expect):
            allocation.append({"claim": c, **a})
    case = {
        "id": f"dra/allocator/{name}",
        "source": UPSTREAM + name,
        "stage": "dra-allocate",
        "featureGates": dict(sorted(gates.items())),
        "node": node_ or node(node1, region1),
        "deviceClasses": list(classes),
        "resourceClaims": list(claims),
        "resourceSlices": list(slices),
        "allocatedDevices": [{"driver": d, "pool": p, "device": n} for d, p, n in allocated],
        "expected": {"allocation": allocation, "error": error},
    }
    if allocatedCapacity:
        case["allocatedCapacity"] = [{"driver": d, "pool": p, "device": n, "consumedCapacity": c}
                                     for d, p, n, c in allocatedCapacity]
    if notes:
        case["notes"] = notes
    CASES.append(case)


def ID(d, p, n):
    return (d, p, n)


N1 = node(node1, region1)


def rows_basic():
    row("empty")
    row("simple", claims=[claimWithRequest(claim0, req0, classA)], classes=[cls(classA, driverA)],
        slices=[sliceWithOneDevice(slice1, node1, pool1, driverA)], node_=N1,
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False))])
    row("other-node", claims=[claimWithRequest(claim0, req0, classA)], classes=[cls(classA, driverA)],
        slices=[sliceWithOneDevice(slice1, node1, pool1, driverB), sliceWithOneDevice(slice2, node2, pool2, driverA)],
        node_=node(node2, region2),
        expect=[allocationResult(localNodeSelector(node2), deviceAllocationResult(req0, driverA, pool2, device1, False))])
    small_large = claimWithRequests(claim0, None, request(req0, classA, 1, mem("1Gi")), request(req1, classA, 1, mem("2Gi")))
    row("small-and-large", claims=[small_large], classes=[cls(classA, driverA)],
        slices=[sliceWithDevices(slice1, node1, pool1, driverA, device(device1, {"memory": "1Gi"}),
                                 device(device2, {"memory": "2Gi"}))],
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False),
                                 deviceAllocationResult(req1, driverA, pool1, device2, False))])
    row("small-and-large-backtrack-requests", claims=[small_large], classes=[cls(classA, driverA)],
        slices=[sliceWithDevices(slice1, node1, pool1, driverA, device(device2, {"memory": "2Gi"}),
                                 device(device1, {"memory": "1Gi"}))],
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False),
                                 deviceAllocationResult(req1, driverA, pool1, device2, False))])
    row("small-and-large-backtrack-claims",
        claims=[claimWithRequests(claim0, None, request(req0, classA, 1, mem("1Gi"))),
                claimWithRequests(claim1, None, request(req1, classA, 1, mem("2Gi")))],
        classes=[cls(classA, driverA)],
        slices=[sliceWithDevices(slice1, node1, pool1, driverA, device(device2, {"memory": "2Gi"}),
                                 device(device1, {"memory": "1Gi"}))],
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False)),
                allocationResult(localNodeSelector(node1), deviceAllocationResult(req1, driverA, pool1, device2, False))])
    row("devices-split-across-different-slices",
        claims=[claimWithRequests(claim0, None, request(req0, classA, 2))], classes=[cls(classA, driverA)],
        slices=[sliceWithOneDevice(slice1, node1, pool1, driverA), sliceWithOneDevice(slice2, node1, pool2, driverA)],
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False),
                                 deviceAllocationResult(req0, driverA, pool2, device1, False))])
    row("obsolete-slice", claims=[claimWithRequest(claim0, req0, classA)], classes=[cls(classA, driverA)],
        slices=[sliceWithDevices("slice-1-obsolete", node1, resourcePool(pool1, 2), driverA, device(device1)),
                setPool(sliceWithDevices("slice-1-obsolete", node1, resourcePool(pool1, 2), driverA, device(device2)),
                        generation=2)])
    a = setPool(sliceWithOneDevice(slice1, node1, pool1, driverA), resourceSliceCount=2)
    b = copy.deepcopy(a)
    b["metadata"]["name"] += "-2"
    row("duplicate-slice", claims=[claimWithRequest(claim0, req0, classA)], classes=[cls(classA, driverA)],
        slices=[a, b], error="invalid resource pools were encountered")
    row("no-slices", claims=[claimWithRequest(claim0, req0, classA)], classes=[cls(classA, driverA)])
    row("not-enough-suitable-devices",
        claims=[claimWithRequest(claim0, req0, classA), claimWithRequest(claim0, req1, classA)],
        classes=[cls(classA, driverA)], slices=[sliceWithOneDevice(slice1, node1, pool1, driverA)])
    row("no-classes", claims=[claimWithRequest(claim0, req0, classA)],
        slices=[sliceWithOneDevice(slice1, node1, pool1, driverA)], error="could not retrieve device class class-a")
    row("unknown-class", claims=[claimWithRequest(claim0, req0, "unknown-class")], classes=[cls(classA, driverA)],
        slices=[sliceWithOneDevice(slice1, node1, pool1, driverA)], error="could not retrieve device class unknown-class")
    row("empty-class", claims=[claimWithRequest(claim0, req0, "")], classes=[cls(classA, driverA)],
        slices=[sliceWithOneDevice(slice1, node1, pool1, driverA)],
        error="claim claim-0, request req-0: missing device class name (unsupported request type?)")
    row("no-claims-to-allocate", classes=[cls(classA, driverA)], slices=[sliceWithOneDevice(slice1, node1, pool1, driverA)],
        notes="upstream expects no results for no claims: an empty list, written here as null (nothing allocated)")


def all_claim(name, class_, request_name=req0):
    return claimWithRequests(name, None, allDeviceRequest(request_name, class_))


def exact_claim(name, class_, count=1, request_name=req0):
    return claimWithRequests(name, None, request(request_name, class_, count))


def rows_all_devices():
    row("all-devices-single", claims=[all_claim(claim0, classA)], classes=[cls(classA, driverA)],
        slices=[sliceWithOneDevice(slice1, node1, pool1, driverA)],
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False))])
    row("all-devices-many", claims=[all_claim(claim0, classA)], classes=[cls(classA, driverA)],
        slices=[sliceWithOneDevice(slice1, node1, pool1, driverA), sliceWithOneDevice(slice1, node1, pool2, driverA)],
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False),
                                 deviceAllocationResult(req0, driverA, pool2, device1, False))])
    c = all_claim(claim0, classA)
    c["spec"]["devices"]["requests"][0]["exactly"]["count"] = 1
    row("all-devices-of-the-incomplete-pool", claims=[c], classes=[cls(classA, driverA)],
        slices=[setPool(sliceWithOneDevice(slice1, node1, pool1, driverA), resourceSliceCount=2)],
        error="claim claim-0, request req-0: asks for all devices, but resource pool driver-a/pool-1 is currently being updated")
    two_drivers = [sliceWithOneDevice(slice1, node1, pool1, driverA), sliceWithOneDevice(slice1, node1, pool1, driverB)]
    row("all-devices-plus-another", claims=[all_claim(claim0, classA), exact_claim(claim1, classB)],
        classes=[cls(classA, driverA), cls(classB, driverB)], slices=two_drivers,
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False)),
                allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverB, pool1, device1, False))])
    row("all-devices-plus-another-reversed", claims=[exact_claim(claim1, classB), all_claim(claim0, classA)],
        classes=[cls(classA, driverA), cls(classB, driverB)], slices=two_drivers,
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverB, pool1, device1, False)),
                allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False))])
    many = [sliceWithDevices(slice1, node1, pool1, driverA, device(device1), device(device2)),
            sliceWithOneDevice(slice1, node1, pool1, driverB)]
    row("all-devices-many-plus-another", claims=[all_claim(claim0, classA), exact_claim(claim1, classB)],
        classes=[cls(classA, driverA), cls(classB, driverB)], slices=many,
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False),
                                 deviceAllocationResult(req0, driverA, pool1, device2, False)),
                allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverB, pool1, device1, False))])
    row("all-devices-many-plus-another-reversed", claims=[exact_claim(claim1, classB), all_claim(claim0, classA)],
        classes=[cls(classA, driverA), cls(classB, driverB)], slices=many,
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverB, pool1, device1, False)),
                allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False),
                                 deviceAllocationResult(req0, driverA, pool1, device2, False))])
    row("all-devices-no-solution", claims=[exact_claim(claim1, classA), all_claim(claim0, classA)],
        classes=[cls(classA, driverA)], slices=[sliceWithOneDevice(slice1, node1, pool1, driverA)])
    row("all-devices-no-solution-reversed", claims=[all_claim(claim0, classA), exact_claim(claim1, classA)],
        classes=[cls(classA, driverA)], slices=[sliceWithOneDevice(slice1, node1, pool1, driverA)])
    row("all-devices-slice-without-devices", claims=[all_claim(claim0, classA)], classes=[cls(classA, driverA)],
        slices=[sliceWithNoDevices(slice1, node1, pool1, driverA)])
    row("all-devices-no-slices", claims=[all_claim(claim0, classA)], classes=[cls(classA, driverA)])
    two_dev = [sliceWithDevices(slice1, node1, pool1, driverA, device(device1), device(device2))]
    row("all-devices-some-allocated", claims=[all_claim(claim0, classA)], allocated=[ID(driverA, pool1, device1)],
        classes=[cls(classA, driverA)], slices=two_dev)
    c = claimWithRequest(claim0, req0, classA)
    c["spec"]["devices"]["requests"][0]["exactly"]["adminAccess"] = True
    c["spec"]["devices"]["requests"][0]["exactly"]["allocationMode"] = "All"
    row("all-devices-some-allocated-admin-access", features={"AdminAccess"}, claims=[c],
        allocated=[ID(driverA, pool1, device1)], classes=[cls(classA, driverA)], slices=two_dev,
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, True),
                                 deviceAllocationResult(req0, driverA, pool1, device2, True))])
    c = claimWithRequests(claim0, None, request(req0, classA, 1), request(req1, classA, 1))
    c["spec"]["devices"]["requests"][0]["exactly"]["adminAccess"] = True
    c["spec"]["devices"]["requests"][1]["exactly"]["adminAccess"] = True
    c["spec"]["devices"]["requests"][1]["exactly"]["allocationMode"] = "All"
    row("all-devices-some-allocating-admin-access", features={"AdminAccess"}, claims=[c],
        classes=[cls(classA, driverA)], slices=two_dev)
    c = claimWithRequest(claim0, req0, classA)
    c["spec"]["devices"]["requests"][0]["exactly"].update(adminAccess=True, allocationMode="ExactCount", count=2)
    row("count-devices-some-allocated-admin-access", features={"AdminAccess"}, claims=[c],
        allocated=[ID(driverA, pool1, device1)], classes=[cls(classA, driverA)], slices=two_dev,
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, True),
                                 deviceAllocationResult(req0, driverA, pool1, device2, True))])
    c1 = claimWithRequest(claim0, req0, classA)
    c1["spec"]["devices"]["requests"][0]["exactly"]["adminAccess"] = True
    c2 = claimWithRequest(claim1, req0, classA)
    c2["spec"]["devices"]["requests"][0]["exactly"]["adminAccess"] = True
    row("separate-claims-share-device-admin-access", features={"AdminAccess"}, claims=[c1, c2],
        classes=[cls(classA, driverA)], slices=two_dev,
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, True)),
                allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, True))])
    admin = claimWithRequest(claim1, req0, classA)
    admin["spec"]["devices"]["requests"][0]["exactly"]["adminAccess"] = True
    row("admin-access-claims-device-allocating-for-non-admin-access", features={"AdminAccess"},
        claims=[claimWithRequest(claim0, req0, classA), admin], classes=[cls(classA, driverA)], slices=two_dev,
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False)),
                allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, True))])

    def pl_all_first():
        c = withRequests(claim(claim0), requestWithPrioritizedList(req0, subRequest(subReq0, classA, 1),
                                                                  subRequest(subReq1, classB, 1)))
        c["spec"]["devices"]["requests"][0]["firstAvailable"][0]["allocationMode"] = "All"
        c["spec"]["devices"]["requests"][0]["firstAvailable"][0]["count"] = 0
        return c
    row("all-devices-slice-without-devices-prioritized-list", features={"PrioritizedList"}, claims=[pl_all_first()],
        classes=[cls(classA, driverA), cls(classB, driverB)],
        slices=[sliceWithNoDevices(slice1, node1, pool1, driverA), sliceWithOneDevice(slice2, node1, pool2, driverB)],
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0SubReq1, driverB, pool2, device1, False))])
    row("all-devices-no-slices-prioritized-list", features={"PrioritizedList"}, claims=[pl_all_first()],
        classes=[cls(classA, driverA), cls(classB, driverB)], slices=[sliceWithOneDevice(slice2, node1, pool2, driverB)],
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0SubReq1, driverB, pool2, device1, False))])
    row("all-devices-some-allocated-prioritized-list", features={"PrioritizedList"}, claims=[pl_all_first()],
        allocated=[ID(driverA, pool1, device1)], classes=[cls(classA, driverA), cls(classB, driverB)],
        slices=[sliceWithDevices(slice1, node1, pool1, driverA, device(device1), device(device2)),
                sliceWithOneDevice(slice2, node1, pool2, driverB)],
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0SubReq1, driverB, pool2, device1, False))])


def rows_network_and_constraints():
    row("network-attached-device", claims=[claimWithRequest(claim0, req0, classA)], classes=[cls(classA, driverA)],
        slices=[sliceWithOneDevice(slice1, nodeLabelSelector(regionKey, region1), pool1, driverA)],
        expect=[allocationResult(nodeLabelSelector(regionKey, region1), deviceAllocationResult(req0, driverA, pool1, device1, False))])
    row("unsuccessful-allocation-network-attached-device", claims=[claimWithRequest(claim0, req0, classA)],
        classes=[cls(classA, driverA)], slices=[sliceWithOneDevice(slice1, nodeLabelSelector(regionKey, region1), pool1, driverA)],
        node_=node(node2, region2))
    row("many-network-attached-devices", claims=[claimWithRequests(claim0, None, request(req0, classA, 4))],
        classes=[cls(classA, driverA)],
        slices=[sliceWithOneDevice(slice1, nodeLabelSelector(regionKey, region1), pool1, driverA),
                sliceWithOneDevice(slice1, nodeSelectionAll, pool2, driverA),
                sliceWithOneDevice(slice1, nodeLabelSelector(planetKey, planetValueEarth), pool3, driverA),
                sliceWithOneDevice(slice1, localNodeSelector(node1), pool4, driverA)],
        expect=[allocationResult({"nodeSelectorTerms": [{
            "matchExpressions": [{"key": regionKey, "operator": "In", "values": [region1]},
                                 {"key": planetKey, "operator": "In", "values": [planetValueEarth]}],
            "matchFields": [{"key": fieldNameKey, "operator": "In", "values": [node1]}]}]},
            *[deviceAllocationResult(req0, driverA, p, device1, False) for p in (pool1, pool2, pool3, pool4)])])
    row("local-and-network-attached-devices", claims=[claimWithRequests(claim0, None, request(req0, classA, 2))],
        classes=[cls(classA, driverA)],
        slices=[sliceWithOneDevice(slice1, nodeLabelSelector(regionKey, region1), pool1, driverA),
                sliceWithOneDevice(slice1, node1, pool2, driverA)],
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False),
                                 deviceAllocationResult(req0, driverA, pool2, device1, False))])
    row("several-different-drivers", claims=[claimWithRequest(claim0, req0, classA), claimWithRequest(claim0, req0, classB)],
        classes=[cls(classA, driverA), cls(classB, driverB)],
        slices=[sliceWithDevices(slice1, node1, pool1, driverA, device(device1), device(device2)),
                sliceWithOneDevice(slice1, node1, pool1, driverB)],
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False)),
                allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverB, pool1, device1, False))])
    row("already-allocated-devices", claims=[claimWithRequest(claim0, req0, classA)],
        allocated=[ID(driverA, pool1, device1), ID(driverA, pool1, device2)], classes=[cls(classA, driverA)],
        slices=[sliceWithOneDevice(slice1, node1, pool1, driverA)])
    c = claimWithRequest(claim0, req0, classA)
    c["spec"]["devices"]["requests"][0]["exactly"]["adminAccess"] = True
    row("admin-access-disabled", claims=[c], classes=[cls(classA, driverA)],
        slices=[sliceWithOneDevice(slice1, node1, pool1, driverA)],
        error="claim claim-0, request req-0: admin access is requested, but the feature is disabled")
    row("admin-access-enabled", features={"AdminAccess"}, claims=[c],
        allocated=[ID(driverA, pool1, device1), ID(driverA, pool1, device2)], classes=[cls(classA, driverA)],
        slices=[sliceWithOneDevice(slice1, node1, pool1, driverA)],
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, True))])
    full = A(driverVersion=V("1.0.0"), numa=1, stringAttribute="stringAttributeValue", boolAttribute=True)
    row("with-constraint", claims=[claimWithRequests(claim0, [
        {"matchAttribute": intAttribute}, {"matchAttribute": versionAttribute},
        {"matchAttribute": stringAttribute}, {"matchAttribute": boolAttribute}],
        request(req0, classA, 1), request(req1, classA, 1))],
        classes=[cls(classA, driverA)],
        slices=[sliceWithDevices(slice1, node1, pool1, driverA, device(device1, None, full), device(device2, None, full))],
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False),
                                 deviceAllocationResult(req1, driverA, pool1, device2, False))])
    row("with-constraint-non-existent-attribute",
        claims=[claimWithRequest(claim0, req0, classA, {"matchAttribute": nonExistentAttribute})],
        classes=[cls(classA, driverA)], slices=[sliceWithOneDevice(slice1, node1, pool1, driverA)])

    def not_matching(name, constraint, a1, a2):
        row(name, claims=[claimWithRequests(claim0, [{"matchAttribute": constraint}], request(req0, classA, 2))],
            classes=[cls(classA, driverA), cls(classB, driverB)],
            slices=[sliceWithDevices(slice1, node1, pool1, driverA, device(device1, None, a1), device(device2, None, a2))])
    not_matching("with-constraint-not-matching-int-attribute", intAttribute, A(numa=1), A(numa=2))
    c = claimWithRequests(claim0, [{"matchAttribute": intAttribute}], request(req0, classA, 0))
    c["spec"]["devices"]["requests"][0]["exactly"]["allocationMode"] = "All"
    row("with-constraint-not-matching-int-attribute-all-devices", claims=[c],
        classes=[cls(classA, driverA), cls(classB, driverB)],
        slices=[sliceWithDevices(slice1, node1, pool1, driverA, device(device1, None, A(numa=1)),
                                 device(device2, None, A(numa=2)))],
        error="claim claim-0, request req-0: cannot add device driver-a/pool-1/device-2 because a claim constraint would not be satisfied")
    not_matching("with-constraint-not-matching-string-attribute", stringAttribute,
                 A(stringAttribute="stringAttributeValue"), A(stringAttribute="stringAttributeValue2"))
    not_matching("with-constraint-not-matching-bool-attribute", boolAttribute, A(boolAttribute=True), A(boolAttribute=False))
    not_matching("with-constraint-not-matching-version-attribute", versionAttribute,
                 A(driverVersion=V("1.0.0")), A(driverVersion=V("2.0.0")))
    row("with-constraint-for-request", claims=[claimWithRequests(claim0, [
        {"requests": [req0], "matchAttribute": versionAttribute}], request(req0, classA, 1), request(req1, classA, 1))],
        classes=[cls(classA, driverA), cls(classB, driverB)],
        slices=[sliceWithDevices(slice1, node1, pool1, driverA, device(device1, None, A(driverVersion=V("1.0.0"))),
                                 device(device2, None, A(driverVersion=V("2.0.0"))))],
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False),
                                 deviceAllocationResult(req1, driverA, pool1, device2, False))])
    row("with-constraint-for-request-retry", claims=[claimWithRequests(claim0, [
        {"requests": [req0], "matchAttribute": versionAttribute}, {"matchAttribute": stringAttribute}],
        request(req0, classA, 1), request(req1, classA, 1))],
        classes=[cls(classA, driverA), cls(classB, driverB)],
        slices=[sliceWithDevices(slice1, node1, pool1, driverA,
                                 device(device1, None, A(driverVersion=V("1.0.0"), stringAttribute="a")),
                                 device(device2, None, A(driverVersion=V("2.0.0"), stringAttribute="b")),
                                 device(device3, None, A(driverVersion=V("3.0.0"), stringAttribute="b")))],
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device2, False),
                                 deviceAllocationResult(req1, driverA, pool1, device3, False))])
    row("with-class-device-config", claims=[claimWithRequest(claim0, req0, classA)],
        classes=[classWithConfig(classA, driverA, "classAttribute")], slices=[sliceWithOneDevice(slice1, node1, pool1, driverA)],
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False),
                                 config=[cfg("FromClass", [req0], deviceConfiguration(driverA, "classAttribute"))])])
    row("with-class-device-config-with-multiple-request-and-configs",
        claims=[claimWithRequests(claim0, [], request(req0, classA, 1), request(req1, classA, 1), request(req2, classB, 1))],
        classes=[classWithConfig(classA, driverA, "classAttribute-A"), classWithConfig(classB, driverB, "classAttribute-B")],
        slices=[sliceWithMultipleDevices(slice1, node1, pool1, driverA, 2), sliceWithOneDevice(slice2, node1, pool1, driverB)],
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device0, False),
                                 deviceAllocationResult(req1, driverA, pool1, device1, False),
                                 deviceAllocationResult(req2, driverB, pool1, device1, False),
                                 config=[cfg("FromClass", [req0, req1], deviceConfiguration(driverA, "classAttribute-A")),
                                         cfg("FromClass", [req2], deviceConfiguration(driverB, "classAttribute-B"))])])
    row("claim-with-device-config", claims=[claimWithDeviceConfig(claim0, req0, classA, driverA, "deviceAttribute")],
        classes=[cls(classA, driverA)], slices=[sliceWithOneDevice(slice1, node1, pool1, driverA)],
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False),
                                 config=[cfg("FromClaim", None, deviceConfiguration(driverA, "deviceAttribute"))])])
    one_dev = [sliceWithOneDevice(slice1, node1, pool1, driverA)]
    c = claimWithRequest(claim0, req0, classA)
    c["spec"]["devices"]["requests"][0]["exactly"]["selectors"] = [{}]
    row("unknown-selector", claims=[c], classes=[cls(classA, driverA)], slices=one_dev,
        error="CEL expression empty (unsupported selector type?)")
    c = claimWithRequest(claim0, req0, classA)
    c["spec"]["devices"]["requests"][0]["exactly"]["allocationMode"] = "future-mode"
    row("unknown-allocation-mode", claims=[c], classes=[cls(classA, driverA)], slices=one_dev,
        error="unsupported count mode future-mode")
    c = claimWithRequest(claim0, req0, classA)
    c["spec"]["devices"]["constraints"] = [{}]
    row("unknown-constraint", claims=[c], classes=[cls(classA, driverA)], slices=one_dev,
        error="empty constraint (unsupported constraint type?)")
    c = claimWithRequest(claim0, req0, classA)
    c["spec"]["devices"]["requests"][0]["exactly"]["selectors"] = [sel("noSuchVar")]
    row("invalid-CEL-one-device", claims=[c], classes=[cls(classA, driverA)], slices=one_dev, error="undeclared reference")
    k = cls(classA, driverA)
    k["spec"]["selectors"][0]["cel"]["expression"] = "noSuchVar"
    row("invalid-CEL-one-device-class", claims=[claimWithRequest(claim0, req0, classA)], classes=[k], slices=one_dev,
        error="undeclared reference")
    c = claimWithRequest(claim0, req0, classA)
    c["spec"]["devices"]["requests"][0]["exactly"]["selectors"] = [sel("noSuchVar")]
    c["spec"]["devices"]["requests"][0]["exactly"]["allocationMode"] = "All"
    row("invalid-CEL-all-devices", claims=[c], classes=[cls(classA, driverA)], slices=one_dev, error="undeclared reference")
    row("too-many-devices-single-request", claims=[claimWithRequests(claim0, None, request(req0, classA, 500))],
        classes=[cls(classA, driverA)], error="exceeds the claim limit")
    row("many-devices-okay", claims=[claimWithRequests(claim0, None, request(req0, classA, MAX))], classes=[cls(classA, driverA)])
    row("too-many-devices-total", claims=[claimWithRequests(claim0, None, request(req0, classA, MAX), request(req1, classA, 1))],
        classes=[cls(classA, driverA)], slices=[sliceWithMultipleDevices(slice1, node1, pool1, driverA, MAX + 1)],
        error="exceeds the claim limit")
    row("all-devices-invalid-CEL", claims=[claimWithRequests(claim0, None, request(req0, classA, 500))],
        classes=[cls(classA, driverA)], error="exceeds the claim limit")


PL = {"PrioritizedList"}


def rows_prioritized_list():
    ab = [cls(classA, driverA), cls(classB, driverB)]
    row("prioritized-list-first-unavailable", features=PL,
        claims=[withRequests(claim(claim0), requestWithPrioritizedList(req0, subRequest(subReq0, classB, 1),
                                                                       subRequest(subReq1, classA, 1)))],
        classes=ab, slices=[sliceWithOneDevice(slice1, node1, pool1, driverA)],
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0SubReq1, driverA, pool1, device1, False))])
    row("prioritized-list-non-available", features=PL,
        claims=[withRequests(claim(claim0), requestWithPrioritizedList(req0, subRequest(subReq0, classB, 2),
                                                                       subRequest(subReq1, classA, 2)))],
        classes=ab, slices=[sliceWithOneDevice(slice1, node1, pool1, driverA), sliceWithOneDevice(slice2, node1, pool2, driverB)])
    row("prioritized-list-device-config", features=PL,
        claims=[withConfigs(withRequests(claim(claim0), requestWithPrioritizedList(
            req0, subRequest(subReq0, classA, 1), subRequest(subReq1, classB, 2))),
            [deviceClaimConfig([req0SubReq0], deviceConfiguration(driverA, "foo")),
             deviceClaimConfig([req0SubReq1], deviceConfiguration(driverB, "bar"))])],
        classes=ab, slices=[sliceWithDevices(slice1, node1, pool1, driverB, device(device1, None, {}), device(device2, None, {}))],
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0SubReq1, driverB, pool1, device1, False),
                                 deviceAllocationResult(req0SubReq1, driverB, pool1, device2, False),
                                 config=[cfg("FromClaim", [req0SubReq1], deviceConfiguration(driverB, "bar"))])])
    row("prioritized-list-class-config", features=PL,
        claims=[withRequests(claim(claim0), requestWithPrioritizedList(req0, subRequest(subReq0, classA, 2),
                                                                       subRequest(subReq1, classB, 2)))],
        classes=[classWithConfig(classA, driverA, "foo"), classWithConfig(classB, driverB, "bar")],
        slices=[sliceWithDevices(slice1, node1, pool1, driverB, device(device1), device(device2)),
                sliceWithDevices(slice2, node1, pool2, driverA, device(device3))],
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0SubReq1, driverB, pool1, device1, False),
                                 deviceAllocationResult(req0SubReq1, driverB, pool1, device2, False),
                                 config=[cfg("FromClass", [req0SubReq1], deviceConfiguration(driverB, "bar"))])])
    row("prioritized-list-subrequests-with-expressions", features=PL,
        claims=[withRequests(claim(claim0), withSelectors(deviceRequest(req0, classA, 1), mem("1Gi")),
                             requestWithPrioritizedList(req1, subRequest(subReq0, classA, 1, mem("4Gi")),
                                                        subRequest(subReq1, classA, 2, mem("2Gi"))))],
        classes=[cls(classA, driverA)],
        slices=[sliceWithDevices(slice1, node1, pool1, driverA, device(device1, {"memory": "2Gi"}),
                                 device(device2, {"memory": "2Gi"}), device(device3, {"memory": "1Gi"}))],
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device3, False),
                                 deviceAllocationResult(req1SubReq1, driverA, pool1, device1, False),
                                 deviceAllocationResult(req1SubReq1, driverA, pool1, device2, False))])
    ref_slices = [sliceWithDevices(slice1, node1, pool1, driverA, device(device1, {"memory": "8Gi"}, A(driverVersion=V("1.0.0")))),
                  sliceWithDevices(slice2, node1, pool2, driverA, device(device2, {"memory": "2Gi"}, A(driverVersion=V("2.0.0"))),
                                   device(device3, {"memory": "1Gi"}, A(driverVersion=V("1.0.0"))))]
    ref_requests = (withSelectors(deviceRequest(req0, classA, 1), mem("8Gi")),
                    requestWithPrioritizedList(req1, subRequest(subReq0, classA, 1, mem("2Gi")),
                                               subRequest(subReq1, classA, 1, mem("1Gi"))))
    row("prioritized-list-subrequests-with-constraints-ref-parent-request", features=PL,
        claims=[withRequests(withConstraints(claim(claim0), {"requests": [req0, req1], "matchAttribute": versionAttribute}),
                             *ref_requests)],
        classes=[cls(classA, driverA)], slices=ref_slices,
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False),
                                 deviceAllocationResult(req1SubReq1, driverA, pool2, device3, False))])
    row("prioritized-list-subrequests-with-constraints-ref-sub-request", features=PL,
        claims=[withRequests(withConstraints(claim(claim0), {"requests": [req0, req1SubReq0], "matchAttribute": versionAttribute}),
                             *ref_requests)],
        classes=[cls(classA, driverA)],
        slices=[ref_slices[0], sliceWithDevices(slice2, node1, pool2, driverA,
                                                device(device2, {"memory": "2Gi"}, A(driverVersion=V("2.0.0"))))],
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False),
                                 deviceAllocationResult(req1SubReq1, driverA, pool2, device2, False))])
    c = withRequests(claim(claim0), requestWithPrioritizedList(req0, subRequest(subReq0, classA, 1), subRequest(subReq1, classA, 1)))
    c["spec"]["devices"]["requests"][0]["firstAvailable"][0].update(allocationMode="All", count=0)
    row("prioritized-list-subrequests-with-allocation-mode-all", features=PL, claims=[c], classes=[cls(classA, driverA)],
        slices=[sliceWithDevices(slice1, node1, pool1, driverA, device(device1), device(device2))],
        allocated=[ID(driverA, pool1, device1)],
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0SubReq1, driverA, pool1, device2, False))])
    row("prioritized-list-allocation-mode-all-multiple-requests", features=PL,
        claims=[withRequests(claim(claim0), deviceRequest(req0, classA, 1), requestWithPrioritizedList(
            req1, withAllocationMode(subRequest(subReq0, classA, 0), "All"), subRequest(subReq1, classA, 1)))],
        classes=[cls(classA, driverA)], slices=[sliceWithDevices(slice1, node1, pool1, driverA, device(device1), device(device2))],
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False),
                                 deviceAllocationResult(req1SubReq1, driverA, pool1, device2, False))])
    row("prioritized-list-disabled", claims=[withRequests(claim(claim0), requestWithPrioritizedList(req0, subRequest(subReq0, classA, 1)))],
        classes=[cls(classA, driverA)], slices=[sliceWithOneDevice(slice1, node1, pool1, driverA)],
        error="claim claim-0, request req-0: has subrequests, but the DRAPrioritizedList feature is disabled")
    two_pools = [sliceWithDevices(slice1, node1, pool1, driverA, device(device1, {"memory": "8Gi"}, {})),
                 sliceWithDevices(slice2, node1, pool2, driverA, device(device2, {"memory": "4Gi"}, {}))]
    row("prioritized-list-multi-request", features=PL,
        claims=[withRequests(claim(claim0), withSelectors(deviceRequest(req1, classA, 1), mem("8Gi")),
                             requestWithPrioritizedList(req0, subRequest(subReq0, classA, 1, mem("8Gi")),
                                                        subRequest(subReq1, classA, 1, mem("4Gi"))))],
        classes=[cls(classA, driverA)], slices=two_pools,
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req1, driverA, pool1, device1, False),
                                 deviceAllocationResult(req0SubReq1, driverA, pool2, device2, False))])
    row("prioritized-list-with-backtracking", features=PL,
        claims=[withRequests(claim(claim0), requestWithPrioritizedList(req0, subRequest(subReq0, classA, 1, mem("8Gi")),
                                                                       subRequest(subReq1, classA, 1, mem("4Gi"))),
                             withSelectors(deviceRequest(req1, classA, 1), mem("8Gi")))],
        classes=[cls(classA, driverA)], slices=two_pools,
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0SubReq1, driverA, pool2, device2, False),
                                 deviceAllocationResult(req1, driverA, pool1, device1, False))])
    row("prioritized-list-too-many-in-first-subrequest", features=PL,
        claims=[withRequests(claim(claim0), requestWithPrioritizedList(req0, subRequest(subReq0, classB, 500),
                                                                       subRequest(subReq1, classA, 1)))],
        classes=ab, slices=[sliceWithOneDevice(slice1, node1, pool1, driverA)],
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0SubReq1, driverA, pool1, device1, False))])
    row("prioritized-list-allocation-mode-all", features=PL,
        claims=[withRequests(claim(claim0), requestWithPrioritizedList(
            req0, withAllocationMode(subRequest(subReq0, classA, 0), "All"), subRequest(subReq1, classA, 1)))],
        classes=[cls(classA, driverA)], slices=[sliceWithDevices(slice1, node1, pool1, driverA, device(device1), device(device2))],
        allocated=[ID(driverA, pool1, device2)],
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0SubReq1, driverA, pool1, device1, False))])
    gen = lambda g: sel(f'device.attributes["{driverA}"].generation == "{g}"')  # noqa: E731
    all_gen = withRequests(claim(claim0), requestWithPrioritizedList(
        req0, withAllocationMode(subRequest(subReq0, classA, 0, gen("v6")), "All"),
        withAllocationMode(subRequest(subReq1, classA, 0, gen("v5")), "All")))
    row("prioritized-list-allocation-mode-all-with-selectors", features=PL, claims=[all_gen], classes=[cls(classA, driverA)],
        slices=[sliceWithDevices(slice1, node1, pool1, driverA, device(device1, None, A(generation="v5")))],
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0SubReq1, driverA, pool1, device1, False))])
    row("prioritized-list-allocation-mode-all-with-selectors-multiple-pools", features=PL, claims=[all_gen],
        classes=[cls(classA, driverA)],
        slices=[sliceWithDevices(slice1, node1, pool1, driverA, device(device1, None, A(generation="v5"))),
                sliceWithDevices(slice2, node1, pool2, driverA, device(device1, None, A(generation="v5")))],
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0SubReq1, driverA, pool1, device1, False),
                                 deviceAllocationResult(req0SubReq1, driverA, pool2, device1, False))])
    row("prioritized-list-allocation-mode-all-with-selectors-multiple-pools-across-nodes", features=PL, claims=[all_gen],
        classes=[cls(classA, driverA)],
        slices=[sliceWithDevices(slice1, node1, pool1, driverA, device(device1, None, A(generation="v5"))),
                sliceWithDevices(slice2, node2, pool2, driverA, device(device1, None, A(generation="v5")),
                                 device(device2, None, A(generation="v6")))],
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0SubReq1, driverA, pool1, device1, False))])
    subset = {"metadata": {"name": classA}, "spec": {"selectors": [
        sel(f'device.driver == "{driverA}" && device.attributes["{driverA}"].selected')]}}
    row("prioritized-list-allocation-mode-all-with-selectors-deviceclass-subset", features=PL, claims=[all_gen],
        classes=[subset],
        slices=[sliceWithDevices(slice1, node1, pool1, driverA,
                                 device(device1, None, A(generation="v6", selected=False)),
                                 device(device2, None, A(generation="v5", selected=False)),
                                 device(device3, None, A(generation="v5", selected=True)))],
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0SubReq1, driverA, pool1, device3, False))])
    row("max-number-devices", claims=[claimWithRequests(claim0, None, request(req0, classA, MAX))], classes=[cls(classA, driverA)],
        slices=[sliceWithMultipleDevices(slice1, node1, pool1, driverA, MAX)],
        expect=[allocationResult(localNodeSelector(node1), *multipleDeviceAllocationResults(req0, driverA, pool1, MAX, 0))])
    row("prioritized-list-max-allocation-limit-request", features=PL,
        claims=[withRequests(claim(claim0),
                             requestWithPrioritizedList(req0, subRequest(subReq0, classA, MAX), subRequest(subReq1, classA, MAX // 2)),
                             requestWithPrioritizedList(req1, subRequest(subReq0, classA, MAX), subRequest(subReq1, classA, MAX // 2)))],
        classes=[cls(classA, driverA)], slices=[sliceWithMultipleDevices(slice1, node1, pool1, driverA, MAX * 2)],
        expect=[allocationResult(localNodeSelector(node1),
                                 *multipleDeviceAllocationResults(req0SubReq1, driverA, pool1, MAX // 2, 0),
                                 *multipleDeviceAllocationResults(req1SubReq1, driverA, pool1, MAX // 2, MAX // 2))],
        notes="upstream also expects 75 allocateOne invocations (checked by tests/dra/test_allocator.py)")
    row("prioritized-list-max-allocation-allocation-mode-all", features=PL,
        claims=[withRequests(claim(claim0), requestWithPrioritizedList(
            req0, withAllocationMode(subRequest(subReq0, classA, 0), "All"), subRequest(subReq1, classA, 2)),
            deviceRequest(req1, classB, 2))],
        classes=ab, slices=[sliceWithMultipleDevices(slice1, node1, pool1, driverA, MAX - 1),
                            sliceWithMultipleDevices(slice2, node1, pool2, driverB, 2)],
        expect=[allocationResult(localNodeSelector(node1),
                                 deviceAllocationResult(req0SubReq1, driverA, pool1, "device-0", False),
                                 deviceAllocationResult(req0SubReq1, driverA, pool1, "device-1", False),
                                 deviceAllocationResult(req1, driverB, pool2, "device-0", False),
                                 deviceAllocationResult(req1, driverB, pool2, "device-1", False))],
        notes="upstream also expects 42 allocateOne invocations (checked by tests/dra/test_allocator.py)")


PD = {"PartitionableDevices"}


def dcc(cs, **counters):
    return deviceCounterConsumption(cs, counters)


def fc(name, *consumptions):  # device(name, fromCounters, nil).withDeviceCounterConsumption(...)
    return withDeviceCounterConsumption(device(name, fromCounters), *consumptions)


def rows_partitionable():
    ca = [cls(classA, driverA)]
    row("partitionable-devices-single-device", features=PD, claims=[claimWithRequests(claim0, None, request(req0, classA, 1))],
        classes=ca,
        slices=[sliceWithDevices(slice1, node1, resourcePool(pool1, 2), driverA,
                                 withDeviceCounterConsumption(device(device1), dcc(counterSet1, memory="4Gi"))),
                sliceWithCounterSets(slice2, node1, resourcePool(pool1, 2), driverA, counterSet(counterSet1, {"memory": "8Gi"}))],
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False))])
    three = [sliceWithDevices(slice1, node1, resourcePool(pool1, 2), driverA,
                              fc(device1, dcc(counterSet1, memory="4Gi")), fc(device2, dcc(counterSet1, memory="6Gi")),
                              fc(device3, dcc(counterSet1, memory="4Gi"))),
             sliceWithCounterSets(slice2, node1, resourcePool(pool1, 2), driverA, counterSet(counterSet1, {"memory": "8Gi"}))]
    pl_req = (deviceRequest(req0, classA, 1),
              requestWithPrioritizedList(req1, subRequest(subReq0, classA, 1, mem("6Gi")), subRequest(subReq1, classA, 1, mem("4Gi"))))
    row("partitionable-devices-prioritized-list", features=PD | PL, claims=[withRequests(claim(claim0), *pl_req)],
        classes=ca, slices=three,
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False),
                                 deviceAllocationResult(req1SubReq1, driverA, pool1, device3, False))])
    row("partitionable-devices-multiple-devices", features=PD,
        claims=[claimWithRequests(claim0, None, request(req0, classA, 1), request(req1, classA, 1))], classes=ca, slices=three,
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False),
                                 deviceAllocationResult(req1, driverA, pool1, device3, False))])
    row("partitionable-devices-multiple-capacity-pools", features=PD | PL, claims=[withRequests(claim(claim0), *pl_req)],
        classes=ca,
        slices=[sliceWithDevices(slice1, node1, resourcePool(pool1, 2), driverA,
                                 fc(device1, dcc(counterSet1, memory="4Gi"), dcc(counterSet2, cpus="4")),
                                 fc(device2, dcc(counterSet1, memory="6Gi"), dcc(counterSet2, cpus="6")),
                                 fc(device3, dcc(counterSet1, memory="4Gi"), dcc(counterSet2, cpus="4"))),
                sliceWithCounterSets(slice2, node1, resourcePool(pool1, 2), driverA, counterSet(counterSet1, {"memory": "18Gi"}),
                                     counterSet(counterSet2, {"cpus": "8"}))],
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False),
                                 deviceAllocationResult(req1SubReq1, driverA, pool1, device3, False))])
    two_req = claimWithRequests(claim0, None, request(req0, classA, 1), request(req1, classA, 1))
    row("partitionable-devices-multiple-counters", features=PD, claims=[two_req], classes=ca,
        slices=[sliceWithDevices(slice1, node1, resourcePool(pool1, 2), driverA,
                                 fc(device1, dcc(counterSet1, memory="4Gi", cpus="6"), dcc(counterSet2, cpus="4", memory="2Gi")),
                                 fc(device2, dcc(counterSet1, memory="6Gi", cpus="4"), dcc(counterSet2, cpus="6", memory="6Gi")),
                                 fc(device3, dcc(counterSet1, memory="4Gi", cpus="4"), dcc(counterSet2, cpus="4", memory="4Gi"))),
                sliceWithCounterSets(slice2, node1, resourcePool(pool1, 2), driverA,
                                     counterSet(counterSet1, {"cpus": "8", "memory": "18Gi"}),
                                     counterSet(counterSet2, {"cpus": "12", "memory": "18Gi"}))],
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device2, False),
                                 deviceAllocationResult(req1, driverA, pool1, device3, False))])
    row("partitionable-devices-multiple-pools", features=PD, claims=[two_req], classes=ca,
        slices=[sliceWithDevices(slice1, node1, resourcePool(pool1, 2), driverA,
                                 fc(device1, dcc(counterSet1, cpus="6", memory="4Gi")),
                                 fc(device2, dcc(counterSet1, cpus="4", memory="6Gi")),
                                 fc(device3, dcc(counterSet1, cpus="4", memory="4Gi"))),
                sliceWithCounterSets(slice2, node1, resourcePool(pool1, 2), driverA,
                                     counterSet(counterSet1, {"cpus": "8", "memory": "18Gi"})),
                sliceWithDevices(slice3, node1, resourcePool(pool2, 2), driverA,
                                 fc(device1, dcc(counterSet1, cpus="6", memory="4Gi")),
                                 fc(device2, dcc(counterSet1, cpus="1", memory="7Gi")),
                                 fc(device3, dcc(counterSet1, cpus="1", memory="7Gi"))),
                sliceWithCounterSets(slice4, node1, resourcePool(pool2, 2), driverA,
                                     counterSet(counterSet1, {"cpus": "8", "memory": "18Gi"}))],
        allocated=[ID(driverA, pool1, device2), ID(driverA, pool1, device3), ID(driverA, pool2, device1)],
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool2, device2, False),
                                 deviceAllocationResult(req1, driverA, pool2, device3, False))])
    row("partitionable-devices-unused-counters-in-counter-set", features=PD,
        claims=[claimWithRequests(claim0, None, request(req0, classA, 2))], classes=ca,
        slices=[sliceWithDevices(slice1, node1, resourcePool(pool1, 2), driverA,
                                 withDeviceCounterConsumption(device(device1), dcc(counterSet1, memory="5Gi")),
                                 withDeviceCounterConsumption(device(device2), dcc(counterSet1, memory="4Gi")),
                                 withDeviceCounterConsumption(device(device3), dcc(counterSet1, memory="4Gi"))),
                sliceWithCounterSets(slice2, node1, resourcePool(pool1, 2), driverA,
                                     counterSet(counterSet1, {"memory": "8Gi", "unused": "1Gi"}))],
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device2, False),
                                 deviceAllocationResult(req0, driverA, pool1, device3, False))])
    one_req = claimWithRequests(claim0, None, request(req0, classA, 1))
    row("partitionable-devices-no-capacity-available", features=PD, claims=[one_req], classes=ca,
        slices=[sliceWithDevices(slice1, node1, pool1, driverA, fc(device1, dcc(counterSet1, memory="4Gi")),
                                 fc(device2, dcc(counterSet1, memory="16Gi"))),
                sliceWithCounterSets(slice2, node1, pool1, driverA, counterSet(counterSet1, {"memory": "18Gi"}))],
        allocated=[ID(driverA, pool1, device2)],
        notes="both slices of pool-1 say resourceSliceCount 1, so the pool counts as incomplete (two slices "
              "published) and nothing is allocated, as upstream expects")
    row("partitionable-devices-overallocated-capacity-pool", features=PD, claims=[one_req], classes=ca,
        slices=[sliceWithDevices(slice1, node1, pool1, driverA, fc(device1, dcc(counterSet1, memory="4Gi")),
                                 fc(device2, dcc(counterSet1, memory="20Gi"))),
                sliceWithCounterSets(slice2, node1, pool1, driverA, counterSet(counterSet1, {"memory": "18Gi"}))],
        allocated=[ID(driverA, pool1, device2)])
    row("partitionable-devices-disabled-device-consumes-counters", claims=[one_req], classes=ca,
        slices=[sliceWithDevices(slice1, node1, pool1, driverA,
                                 withDeviceCounterConsumption(device(device1), dcc(counterSet1, memory="4Gi"))),
                sliceWithCounterSets(slice2, node1, pool1, driverA, counterSet(counterSet1, {"memory": "18Gi"}))])
    row("partitionable-devices-disabled-other-device-do-not-consume-counters", claims=[one_req], classes=ca,
        slices=[sliceWithDevices(slice1, node1, resourcePool(pool1, 2), driverA,
                                 withDeviceCounterConsumption(device(device1), dcc(counterSet1, memory="4Gi")), device(device2)),
                sliceWithCounterSets(slice2, node1, resourcePool(pool1, 2), driverA, counterSet(counterSet1, {"memory": "18Gi"}))],
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device2, False))])
    row("partitionable-devices-disabled-per-device-node-selection", claims=[one_req], classes=ca,
        slices=[sliceWithDevices(slice1, nodeSelectionPerDevice, pool1, driverA, withNodeSelection(device(device2), node1))])
    row("partitionable-devices-per-device-node-selection-nodename", features=PD | PL,
        claims=[withRequests(claim(claim0), requestWithPrioritizedList(req0, subRequest(subReq0, classA, 1, mem("6Gi")),
                                                                       subRequest(subReq1, classA, 1, mem("4Gi"))))],
        classes=ca,
        slices=[sliceWithDevices(slice1, nodeSelectionPerDevice, resourcePool(pool1, 2), driverA,
                                 withNodeSelection(fc(device1, dcc(counterSet1, memory="4Gi")), node1),
                                 withNodeSelection(fc(device2, dcc(counterSet1, memory="6Gi")), node2)),
                sliceWithCounterSets(slice2, nodeSelectionPerDevice, resourcePool(pool1, 2), driverA,
                                     counterSet(counterSet1, {"memory": "18Gi"}))],
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0SubReq1, driverA, pool1, device1, False))])
    row("partitionable-devices-per-device-node-selection-node-selector", features=PD | PL, claims=[one_req], classes=ca,
        slices=[sliceWithDevices(slice1, nodeSelectionPerDevice, resourcePool(pool1, 2), driverA,
                                 withNodeSelection(fc(device1, dcc(counterSet1, memory="4Gi")), nodeLabelSelector(regionKey, region1))),
                sliceWithCounterSets(slice2, nodeSelectionPerDevice, resourcePool(pool1, 2), driverA,
                                     counterSet(counterSet1, {"memory": "18Gi"}))],
        expect=[allocationResult(nodeLabelSelector(regionKey, region1), deviceAllocationResult(req0, driverA, pool1, device1, False))])
    row("partitionable-devices-per-device-node-selection-node-selector-multiple-devices", features=PD | PL,
        claims=[claimWithRequests(claim0, None, request(req0, classA, 3), request(req1, classB, 3))],
        classes=[cls(classA, driverA), cls(classB, driverB)],
        slices=[sliceWithDevices(slice1, nodeSelectionPerDevice, resourcePool(pool1, 2), driverA,
                                 withNodeSelection(fc(device1, dcc(counterSet1, memory="4Gi")), nodeLabelSelector(regionKey, region1)),
                                 withNodeSelection(fc(device2, dcc(counterSet1, memory="4Gi")), node1),
                                 withNodeSelection(fc(device3, dcc(counterSet1, memory="4Gi")), nodeSelectionAll)),
                sliceWithCounterSets(slice2, nodeSelectionPerDevice, resourcePool(pool1, 2), driverA,
                                     counterSet(counterSet1, {"memory": "18Gi"})),
                sliceWithDevices(slice3, node1, resourcePool(pool2, 2), driverB,
                                 fc(device1, dcc(counterSet2, memory="4Gi")), fc(device2, dcc(counterSet2, memory="4Gi")),
                                 fc(device3, dcc(counterSet2, memory="4Gi"))),
                sliceWithCounterSets(slice4, node1, resourcePool(pool2, 2), driverB, counterSet(counterSet2, {"memory": "12Gi"}))],
        expect=[allocationResult(localNodeSelector(node1),
                                 *[deviceAllocationResult(req0, driverA, pool1, d, False) for d in (device1, device2, device3)],
                                 *[deviceAllocationResult(req1, driverB, pool2, d, False) for d in (device1, device2, device3)])])
    row("partitionable-devices-with-attribute-selector", features=PD,
        claims=[claimWithRequests(claim0, None, request(req0, classA, 2),
                                  request(req1, classA, 1, sel(f'device.attributes["{driverA}"].special')))],
        classes=ca,
        slices=[sliceWithDevices(slice1, node1, resourcePool(pool1, 2), driverA,
                                 withDeviceCounterConsumption(device(device1, None, A(special=True)),
                                                              dcc(counterSet1, cpu1="1"), dcc(counterSet2, mem="10Gi")),
                                 withDeviceCounterConsumption(device(device2, None, A(special=False)),
                                                              dcc(counterSet1, cpu2="1"), dcc(counterSet2, mem="10Gi")),
                                 withDeviceCounterConsumption(device(device3, None, A(special=False)),
                                                              dcc(counterSet1, cpu3="1"), dcc(counterSet2, mem="10Gi"))),
                sliceWithCounterSets(slice2, node1, resourcePool(pool1, 2), driverA,
                                     counterSet(counterSet1, {"cpu1": "1", "cpu2": "1", "cpu3": "1"}),
                                     counterSet(counterSet2, {"mem": "30Gi"}))],
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device2, False),
                                 deviceAllocationResult(req0, driverA, pool1, device3, False),
                                 deviceAllocationResult(req1, driverA, pool1, device1, False))])


DT = {"DeviceTaints"}


def rows_taints():
    ca = [cls(classA, driverA)]
    two_tainted = [sliceWithDevices(slice1, node1, pool1, driverA, withTaints(device(device1), taintNoSchedule),
                                    withTaints(device(device2), taintNoExecute))]
    both = [sliceWithDevices(slice1, node1, pool1, driverA, withTaints(device(device1), taintNoSchedule, taintNoExecute))]
    simple = claimWithRequest(claim0, req0, classA)
    row("tainted-two-devices", features=DT, claims=[simple], classes=ca, slices=two_tainted)
    row("tainted-one-device-two-taints", features=DT, claims=[simple], classes=ca, slices=both)
    row("tainted-two-devices-tolerated", features=DT, claims=[withTolerations(simple, tolerationNoExecute)], classes=ca,
        slices=two_tainted,
        expect=[allocationResult(localNodeSelector(node1),
                                 deviceAllocationResult(req0, driverA, pool1, device2, False, tolerationNoExecute))])
    row("tainted-two-devices-prioritized-list-tolerated", features=DT | PL,
        claims=[withRequests(claim(claim0), requestWithPrioritizedList(req0, subRequest(subReq0, classA, 1),
                                                                       subRequest(subReq1, classA, 1, tolerationNoExecute)))],
        classes=ca, slices=two_tainted,
        expect=[allocationResult(localNodeSelector(node1),
                                 deviceAllocationResult(req0SubReq1, driverA, pool1, device2, False, tolerationNoExecute))])
    row("tainted-no-effect", features=DT, claims=[simple], classes=ca,
        slices=[sliceWithDevices(slice1, node1, pool1, driverA, withTaints(device(device1), taintNone))],
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False))])
    row("tainted-one-device-two-taints-both-tolerated", features=DT,
        claims=[withTolerations(simple, tolerationNoSchedule, tolerationNoExecute)], classes=ca, slices=both,
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(
            req0, driverA, pool1, device1, False, tolerationNoSchedule, tolerationNoExecute))])
    row("tainted-disabled", claims=[simple], classes=ca, slices=both,
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False))])
    pl = withRequests(claim(claim0), requestWithPrioritizedList(req0, subRequest(subReq0, classB, 1), subRequest(subReq1, classA, 1)))
    one_tainted = [sliceWithDevices(slice1, node1, pool1, driverA, withTaints(device(device1), taintNoSchedule))]
    row("tainted-prioritized-list", features=DT | PL, claims=[pl], classes=[cls(classA, driverA), cls(classB, driverB)],
        slices=one_tainted)
    row("tainted-prioritized-list-disabled", features=PL, claims=[pl], classes=[cls(classA, driverA), cls(classB, driverB)],
        slices=one_tainted,
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0SubReq1, driverA, pool1, device1, False))])
    admin = claimWithRequest(claim0, req0, classA)
    admin["spec"]["devices"]["requests"][0]["exactly"]["adminAccess"] = True
    row("tainted-admin-access", features=DT | {"AdminAccess"}, claims=[admin],
        allocated=[ID(driverA, pool1, device1), ID(driverA, pool1, device2)], classes=ca, slices=one_tainted)
    row("tainted-admin-access-disabled", features={"AdminAccess"}, claims=[admin],
        allocated=[ID(driverA, pool1, device1), ID(driverA, pool1, device2)], classes=ca, slices=one_tainted,
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, True))])
    row("tainted-all-devices-single", features=DT, claims=[all_claim(claim0, classA)], classes=ca, slices=one_tainted)
    row("tainted-all-devices-single-disabled", claims=[all_claim(claim0, classA)], classes=ca, slices=one_tainted,
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False))])


DB = {"DeviceBindingAndStatus"}
CC = {"ConsumableCapacity"}


def rows_binding():
    ca = [cls(classA, driverA)]
    row("device-binding-conditions", features=DB, claims=[claimWithRequests(claim0, None, request(req0, classA, 1))], classes=ca,
        slices=[sliceWithDevices(slice1, node1, pool1, driverA, withBindingConditions(device(device1), ["IsPrepare"], ["BindingFailed"]))],
        expect=[allocationResult(localNodeSelector(node1), withBindings(req0, driverA, pool1, device1, ["IsPrepare"], ["BindingFailed"]))])
    row("binding-conditions-multiple-devices", features=DB,
        claims=[claimWithRequests(claim0, None, request(req0, classA, 2), request(req1, classA, 1))], classes=ca,
        slices=[sliceWithDevices(slice1, node1, pool1, driverA,
                                 withBindingConditions(device(device1), ["IsPrepare"], ["BindingFailed"]),
                                 withBindingConditions(device(device2), ["IsPrepare2"], ["BindingFailed2"]),
                                 withBindingConditions(device(device3), ["IsPrepare3"], ["BindingFailed3"]))],
        expect=[allocationResult(localNodeSelector(node1),
                                 withBindings(req0, driverA, pool1, device1, ["IsPrepare"], ["BindingFailed"]),
                                 withBindings(req0, driverA, pool1, device2, ["IsPrepare2"], ["BindingFailed2"]),
                                 withBindings(req1, driverA, pool1, device3, ["IsPrepare3"], ["BindingFailed3"]))])
    row("binding-conditions-with-and-without", features=DB,
        claims=[claimWithRequests(claim0, None, request(req0, classA, 1), request(req1, classA, 1))], classes=ca,
        slices=[sliceWithDevices(slice1, node1, pool1, driverA, device(device1),
                                 withBindingConditions(device(device2), ["IsPrepare"], ["BindingFailed"]))],
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False),
                                 withBindings(req1, driverA, pool1, device2, ["IsPrepare"], ["BindingFailed"]))])
    row("binding-conditions-without-feature-gate", claims=[claimWithRequests(claim0, None, request(req0, classA, 1))],
        classes=ca,
        slices=[sliceWithDevices(slice1, node1, pool1, driverA, withBindingConditions(device(device1), ["IsPrepare"], ["BindingFailed"]))])
    row("node-restriction", features=DB, claims=[claimWithRequest(claim0, req0, classA)], classes=ca,
        slices=[sliceWithDevices(slice1, nodeLabelSelector(planetKey, planetValueEarth), pool1, driverA,
                                 withBindsToNode(device(device1), True))],
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False))])
    counters8 = sliceWithCounterSets(slice2, node1, resourcePool(pool1, 2), driverA, counterSet(counterSet1, {"memory": "8Gi"}))
    row("partitionable-devices-with-binding-conditions", features=PD | DB,
        claims=[claimWithRequests(claim0, None, request(req0, classA, 1))], classes=ca,
        slices=[sliceWithDevices(slice1, node1, resourcePool(pool1, 2), driverA,
                                 withBindingConditions(fc(device1, dcc(counterSet1, memory="4Gi")), ["IsPrepare"], ["BindingFailed"])),
                counters8],
        expect=[allocationResult(localNodeSelector(node1), withBindings(req0, driverA, pool1, device1, ["IsPrepare"], ["BindingFailed"]))])
    row("partitionable-devices-with-binding-conditions-multiple", features=PD | DB,
        claims=[claimWithRequests(claim0, None, request(req0, classA, 2))], classes=ca,
        slices=[sliceWithDevices(slice1, node1, resourcePool(pool1, 2), driverA,
                                 withBindingConditions(fc(device1, dcc(counterSet1, memory="4Gi")), ["IsPrepare"], ["BindingFailed"]),
                                 withBindingConditions(fc(device2, dcc(counterSet1, memory="4Gi")), ["IsPrepare2"], ["BindingFailed2"])),
                counters8],
        expect=[allocationResult(localNodeSelector(node1),
                                 withBindings(req0, driverA, pool1, device1, ["IsPrepare"], ["BindingFailed"]),
                                 withBindings(req0, driverA, pool1, device2, ["IsPrepare2"], ["BindingFailed2"]))])
    row("partitionable-devices-with-binding-conditions-some-devices-no-conditions", features=PD | DB,
        claims=[claimWithRequests(claim0, None, request(req0, classA, 3))], classes=ca,
        slices=[sliceWithDevices(slice1, node1, resourcePool(pool1, 2), driverA,
                                 withBindingConditions(fc(device1, dcc(counterSet1, memory="2Gi")), ["IsPrepare"], ["BindingFailed"]),
                                 fc(device2, dcc(counterSet1, memory="2Gi")),
                                 withBindingConditions(fc(device3, dcc(counterSet1, memory="4Gi")), ["IsReady"], ["BindingTimeout"])),
                counters8],
        expect=[allocationResult(localNodeSelector(node1),
                                 withBindings(req0, driverA, pool1, device1, ["IsPrepare"], ["BindingFailed"]),
                                 withBindings(req0, driverA, pool1, device2, None, None),
                                 withBindings(req0, driverA, pool1, device3, ["IsReady"], ["BindingTimeout"]))])
    row("partitionable-devices-with-binding-conditions-multi-slices", features=PD | DB,
        claims=[claimWithRequests(claim0, None, request(req0, classA, 2))], classes=ca,
        slices=[sliceWithDevices(slice4, node1, resourcePool(pool1, 4), driverA,
                                 withBindingConditions(fc(device1, dcc(counterSet1, memory="4Gi")), ["IsPrepare"], ["BindingFailed"])),
                sliceWithCounterSets(slice3, node1, resourcePool(pool1, 4), driverA, counterSet(counterSet1, {"memory": "8Gi"})),
                sliceWithDevices(slice2, node1, resourcePool(pool1, 4), driverA, fc(device2, dcc(counterSet2, memory="4Gi"))),
                sliceWithCounterSets(slice1, node1, resourcePool(pool1, 4), driverA, counterSet(counterSet2, {"memory": "8Gi"}))],
        expect=[allocationResult(localNodeSelector(node1), withBindings(req0, driverA, pool1, device2, None, None),
                                 withBindings(req0, driverA, pool1, device1, ["IsPrepare"], ["BindingFailed"]))])
    taint1 = {"key": "key1", "value": "value1", "effect": "NoSchedule"}
    tainted_bc = lambda count: [  # noqa: E731
        sliceWithDevices(slice1, node1, resourcePool(pool1, count), driverA,
                         withTaints(withBindingConditions(fc(device1, dcc(counterSet1, memory="4Gi")), ["IsPrepare"], ["BindingFailed"]), taint1),
                         fc(device2, dcc(counterSet1, memory="4Gi"))),
        sliceWithCounterSets(slice2, node1, resourcePool(pool1, count), driverA, counterSet(counterSet1, {"memory": "8Gi"}))]
    row("partitionable-devices-with-binding-conditions-and-taints", features=PD | DB | DT,
        claims=[claimWithRequests(claim0, None, request(req0, classA, 2))], classes=ca, slices=tainted_bc(1),
        notes="as upstream, both slices of pool-1 say resourceSliceCount 1, so the pool is incomplete")
    row("partitionable-devices-with-binding-conditions-and-taints-tolerated", features=PD | DB | DT,
        claims=[withTolerations(claimWithRequests(claim0, None, request(req0, classA, 2)), tolerationNoScheduleKey1)],
        classes=ca, slices=tainted_bc(2),
        expect=[allocationResult(localNodeSelector(node1),
                                 withBindings(req0, driverA, pool1, device1, ["IsPrepare"], ["BindingFailed"], tolerationNoScheduleKey1),
                                 withBindings(req0, driverA, pool1, device2, None, None, tolerationNoScheduleKey1))])


def rows_consumable_capacity():
    multi = [classWithAllowMultipleAllocations(classA, driverA, True)]
    row("consumable-capacity-disabled-feature", features=DB,
        claims=[withRequests(claim(claim0), withCapacityRequest(deviceRequest(req0, classA, 1), one))],
        classes=[cls(classA, driverA)], slices=[sliceWithOneDevice(slice1, node1, pool1, driverA)],
        error="claim claim-0, request req-0: has capacity requests, but the DRAConsumableCapacity feature is disabled")
    row("consumable-capacity-disabled-feature-with-prioritized-list", features=PL | DB,
        claims=[withRequests(claim(claim0), requestWithPrioritizedList(
            req0, withCapacityRequest(subRequest(subReq0, classA, 1), one), withCapacityRequest(subRequest(subReq1, classA, 1), one)))],
        classes=[cls(classA, driverA)], slices=[sliceWithOneDevice(slice1, node1, pool1, driverA)],
        error="claim claim-0, subrequest subReq-0: has capacity requests, but the DRAConsumableCapacity feature is disabled")
    row("consumable-capacity-multi-allocatable-device-with-missing-capacity-request", features=CC,
        claims=[withRequests(claim(claim0), withCapacityRequest(deviceRequest(req0, classA, 1), one))], classes=[cls(classA, driverA)],
        slices=[sliceWithDevices(slice1, node1, pool1, driverA, withAllowMultipleAllocations(device(device1, {capacity1: one})))])
    row("consumable-capacity-multi-allocatable-device-allocation-mode-all-with-missing-capacity-request", features=CC,
        claims=[withRequests(claim(claim0), withCapacityRequest(allDeviceRequest(req0, classA), one))], classes=multi,
        slices=[sliceWithDevices(slice1, node1, pool1, driverA, withAllowMultipleAllocations(device(device1, {capacity1: one})))])
    two_plain = [withRequests(claim(claim0), deviceRequest(req0, classA, 1)), withRequests(claim(claim1), deviceRequest(req0, classA, 1))]
    row("consumable-capacity-multi-allocatable-device-without-capacity-without-capacity-request", features=CC, claims=two_plain,
        classes=multi, slices=[sliceWithDevices(slice1, node1, pool1, driverA, withAllowMultipleAllocations(device(device1)))],
        expect=[allocationResult(localNodeSelector(node1), withConsumedCapacity(deviceAllocationResult(req0, driverA, pool1, device1, False), None)),
                allocationResult(localNodeSelector(node1), withConsumedCapacity(deviceAllocationResult(req0, driverA, pool1, device1, False), None))])
    row("consumable-capacity-multi-allocatable-device-without-policy-without-capacity-request", features=CC, claims=two_plain,
        classes=multi,
        slices=[sliceWithDevices(slice1, node1, pool1, driverA, withAllowMultipleAllocations(device(device1, {capacity0: one})),
                                 withAllowMultipleAllocations(device(device2, {capacity0: one})))],
        expect=[allocationResult(localNodeSelector(node1), withConsumedCapacity(deviceAllocationResult(req0, driverA, pool1, device1, False), {capacity0: one})),
                allocationResult(localNodeSelector(node1), withConsumedCapacity(deviceAllocationResult(req0, driverA, pool1, device2, False), {capacity0: one}))])
    row("consumable-capacity-multi-allocatable-device-without-policy-without-capacity-request-block", features=CC, claims=two_plain,
        classes=multi, slices=[sliceWithDevices(slice1, node1, pool1, driverA, withAllowMultipleAllocations(device(device1, {capacity0: two})))])
    two_one = [withRequests(claim(claim0), withCapacityRequest(deviceRequest(req0, classA, 1), one)),
               withRequests(claim(claim1), withCapacityRequest(deviceRequest(req0, classA, 1), one))]
    row("consumable-capacity-multi-allocatable-device-without-policy-with-capacity-request", features=CC, claims=two_one,
        classes=multi, slices=[sliceWithDevices(slice1, node1, pool1, driverA, withAllowMultipleAllocations(device(device1, {capacity0: two})))],
        expect=[allocationResult(localNodeSelector(node1), withConsumedCapacity(deviceAllocationResult(req0, driverA, pool1, device1, False), {capacity0: one})),
                allocationResult(localNodeSelector(node1), withConsumedCapacity(deviceAllocationResult(req0, driverA, pool1, device1, False), {capacity0: one}))])
    rng = lambda name, q: withCapacityRequestPolicyRange(withAllowMultipleAllocations(device(name)), {capacity0: q})  # noqa: E731
    vv = lambda name, d, q, extra: withCapacityRequestPolicyValidValues(withAllowMultipleAllocations(device(name)), d, {capacity0: q}, extra)  # noqa: E731
    two_plain_w = [claimWithRequests(claim0, None, request(req0, classA, 1)), claimWithRequests(claim1, None, request(req0, classA, 1))]
    row("consumable-capacity-multi-allocatable-device-with-policy-without-capacity-request", features=CC, claims=two_plain_w,
        classes=multi, slices=[sliceWithDevices(slice1, node1, pool1, driverA, rng(device1, four))],
        expect=[allocationResult(localNodeSelector(node1), withConsumedCapacity(deviceAllocationResult(req0, driverA, pool1, device1, False), {capacity0: two})),
                allocationResult(localNodeSelector(node1), withConsumedCapacity(deviceAllocationResult(req0, driverA, pool1, device1, False), {capacity0: two}))])
    row("consumable-capacity-multi-allocatable-device-with-zero-request-policy", features=CC, claims=two_plain_w, classes=multi,
        slices=[sliceWithDevices(slice1, node1, pool1, driverA, vv(device1, zero, one, None))],
        expect=[allocationResult(localNodeSelector(node1), withConsumedCapacity(deviceAllocationResult(req0, driverA, pool1, device1, False), {capacity0: zero})),
                allocationResult(localNodeSelector(node1), withConsumedCapacity(deviceAllocationResult(req0, driverA, pool1, device1, False), {capacity0: zero}))],
        notes="consumedCapacity of 0 is written explicitly: zero-valued quantities inside the map are compared as values")
    one_claim = lambda q: [withRequests(claim(claim0), withCapacityRequest(deviceRequest(req0, classA, 1), q))]  # noqa: E731
    row("consumable-capacity-multi-allocatable-device-violates-zero-request-policy", features=CC, claims=one_claim(one),
        classes=multi, slices=[sliceWithDevices(slice1, node1, pool1, driverA, vv(device1, zero, one, None))])
    row("consumable-capacity-multi-allocatable-device-with-range-policy-with-capacity-request", features=CC, claims=two_one,
        classes=multi, slices=[sliceWithDevices(slice1, node1, pool1, driverA, rng(device1, four))],
        expect=[allocationResult(localNodeSelector(node1), withConsumedCapacity(deviceAllocationResult(req0, driverA, pool1, device1, False), {capacity0: two})),
                allocationResult(localNodeSelector(node1), withConsumedCapacity(deviceAllocationResult(req0, driverA, pool1, device1, False), {capacity0: two}))])
    row("consumable-capacity-multi-allocatable-device-with-range-policy-step", features=CC, claims=one_claim(three), classes=multi,
        slices=[sliceWithDevices(slice1, node1, pool1, driverA, rng(device1, four))],
        expect=[allocationResult(localNodeSelector(node1), withConsumedCapacity(deviceAllocationResult(req0, driverA, pool1, device1, False), {capacity0: four}))])
    row("consumable-capacity-multi-allocatable-device-with-valid-values-policy", features=CC, claims=one_claim(two), classes=multi,
        slices=[sliceWithDevices(slice1, node1, pool1, driverA, vv(device1, one, four, [two]))],
        expect=[allocationResult(localNodeSelector(node1), withConsumedCapacity(deviceAllocationResult(req0, driverA, pool1, device1, False), {capacity0: two}))])
    row("consumable-capacity-multi-allocatable-device-with-valid-values-policy-round-up", features=CC, claims=one_claim(two),
        classes=multi, slices=[sliceWithDevices(slice1, node1, pool1, driverA, vv(device1, one, three, [three]))],
        expect=[allocationResult(localNodeSelector(node1), withConsumedCapacity(deviceAllocationResult(req0, driverA, pool1, device1, False), {capacity0: three}))])
    row("consumable-capacity-multi-allocatable-device-with-exceeded-consumable-capacity-request", features=CC,
        claims=[withRequests(claim(claim0), withCapacityRequest(deviceRequest(req0, classA, 1), one)),
                withRequests(claim(claim1), withCapacityRequest(deviceRequest(req0, classA, 1), two))],
        classes=multi, slices=[sliceWithDevices(slice1, node1, pool1, driverA, rng(device1, two))])
    row("consumable-capacity-multi-allocatable-device-with-request-over-max-sharing-policy", features=CC, claims=one_claim("6"),
        classes=multi, slices=[sliceWithDevices(slice1, node1, pool1, driverA, rng(device1, "10"))])
    row("consumable-capacity-multi-allocatable-device-with-allocated-capacity-use-remaining", features=CC, claims=one_claim(two),
        allocatedCapacity=[(driverA, pool1, device1, {capacity0: two})], classes=multi,
        slices=[sliceWithDevices(slice1, node1, pool1, driverA, rng(device1, four))],
        expect=[allocationResult(localNodeSelector(node1), withConsumedCapacity(deviceAllocationResult(req0, driverA, pool1, device1, False), {capacity0: two}))])
    row("consumable-capacity-multi-allocatable-device-with-allocated-capacity-next-device", features=CC, claims=one_claim(two),
        allocatedCapacity=[(driverA, pool1, device1, {capacity0: two})], classes=multi,
        slices=[sliceWithDevices(slice1, node1, pool1, driverA, rng(device1, two), rng(device2, two))],
        expect=[allocationResult(localNodeSelector(node1), withConsumedCapacity(deviceAllocationResult(req0, driverA, pool1, device2, False), {capacity0: two}))])
    row("consumable-capacity-with-multi-allocatable-device-backtrack", features=CC,
        claims=[withRequests(withConstraints(claim(claim0), {"matchAttribute": stringAttribute}),
                             withCapacityRequest(deviceRequest(req0, classA, 1), two), withCapacityRequest(deviceRequest(req1, classA, 1), two)),
                withRequests(claim(claim1), withCapacityRequest(deviceRequest(req0, classA, 1), two))],
        classes=[cls(classA, driverA)],
        slices=[sliceWithDevices(slice1, node1, pool1, driverA,
                                 withCapacityRequestPolicyRange(withAllowMultipleAllocations(device(device2, None, A(stringAttribute="stringAttributeValue1"))), {capacity0: two}),
                                 withCapacityRequestPolicyRange(withAllowMultipleAllocations(device(device1, None, A(stringAttribute="stringAttributeValue2"))), {capacity0: four}))],
        expect=[allocationResult(localNodeSelector(node1),
                                 withConsumedCapacity(deviceAllocationResult(req0, driverA, pool1, device1, False), {capacity0: two}),
                                 withConsumedCapacity(deviceAllocationResult(req1, driverA, pool1, device1, False), {capacity0: two})),
                allocationResult(localNodeSelector(node1), withConsumedCapacity(deviceAllocationResult(req0, driverA, pool1, device2, False), {capacity0: two}))])
    row("consumable-capacity-multi-allocatable-device-with-subrequest", features=CC | PL,
        claims=[withRequests(claim(claim0), requestWithPrioritizedList(
            req0, withCapacityRequest(subRequest(subReq0, classA, 1), four), withCapacityRequest(subRequest(subReq1, classA, 1), two),
            subRequest(subReq1, classA, 1)))],
        classes=multi, slices=[sliceWithDevices(slice1, node1, pool1, driverA, rng(device1, two))],
        expect=[allocationResult(localNodeSelector(node1), withConsumedCapacity(deviceAllocationResult(req0SubReq1, driverA, pool1, device1, False), {capacity0: two}))])
    row("consumable-capacity-multi-allocatable-device-with-no-available-consumable-capacity", features=CC, claims=one_claim(two),
        allocatedCapacity=[(driverA, pool1, device1, {capacity0: two})], classes=multi,
        slices=[sliceWithDevices(slice1, node1, pool1, driverA, rng(device1, two))])
    all_two = [withRequests(claim(claim0), withCapacityRequest(allDeviceRequest(req0, classA), two))]
    row("consumable-capacity-multi-allocatable-device-allocation-mode-all-filter-out-no-capacity", features=CC, claims=all_two,
        classes=multi,
        slices=[sliceWithDevices(slice1, node1, pool1, driverA, withAllowMultipleAllocations(device(device1, {capacity0: two})),
                                 withAllowMultipleAllocations(device(device2)))],
        expect=[allocationResult(localNodeSelector(node1), withConsumedCapacity(deviceAllocationResult(req0, driverA, pool1, device1, False), {capacity0: two}))])
    row("consumable-capacity-multi-allocatable-device-allocation-mode-all-filter-out-insufficient-capacity", features=CC,
        claims=all_two, classes=multi,
        slices=[sliceWithDevices(slice1, node1, pool1, driverA, withAllowMultipleAllocations(device(device1, {capacity0: two})),
                                 withAllowMultipleAllocations(device(device2, {capacity0: one})))],
        expect=[allocationResult(localNodeSelector(node1), withConsumedCapacity(deviceAllocationResult(req0, driverA, pool1, device1, False), {capacity0: two}))])
    mixed = [withRequests(claim(claim0), withCapacityRequest(deviceRequest(req0, classA, 1), one),
                          withCapacityRequest(allDeviceRequest(req1, classA), one))]
    all_one = [withRequests(claim(claim0), withCapacityRequest(allDeviceRequest(req0, classA), one))]
    d21 = [sliceWithDevices(slice1, node1, pool1, driverA, withAllowMultipleAllocations(device(device1, {capacity0: two})),
                            withAllowMultipleAllocations(device(device2, {capacity0: one})))]
    d11 = [sliceWithDevices(slice1, node1, pool1, driverA, withAllowMultipleAllocations(device(device1, {capacity0: one})),
                            withAllowMultipleAllocations(device(device2, {capacity0: one})))]
    row("consumable-capacity-multi-allocatable-device-allocation-mode-all-allocating-sufficient", features=CC, claims=mixed,
        classes=[cls(classA, driverA)], slices=d21,
        expect=[allocationResult(localNodeSelector(node1),
                                 withConsumedCapacity(deviceAllocationResult(req0, driverA, pool1, device1, False), {capacity0: one}),
                                 withConsumedCapacity(deviceAllocationResult(req1, driverA, pool1, device1, False), {capacity0: one}),
                                 withConsumedCapacity(deviceAllocationResult(req1, driverA, pool1, device2, False), {capacity0: one}))])
    row("consumable-capacity-multi-allocatable-device-allocation-mode-all-in-use-sufficient", features=CC, claims=all_one,
        allocatedCapacity=[(driverA, pool1, device1, {capacity0: one})], classes=[cls(classA, driverA)], slices=d21,
        expect=[allocationResult(localNodeSelector(node1),
                                 withConsumedCapacity(deviceAllocationResult(req0, driverA, pool1, device1, False), {capacity0: one}),
                                 withConsumedCapacity(deviceAllocationResult(req0, driverA, pool1, device2, False), {capacity0: one}))])
    row("consumable-capacity-multi-allocatable-device-allocation-mode-all-allocating-insufficient", features=CC, claims=mixed,
        classes=[cls(classA, driverA)], slices=d11)
    row("consumable-capacity-multi-allocatable-device-allocation-mode-all-in-use-insufficient", features=CC, claims=all_one,
        allocatedCapacity=[(driverA, pool1, device1, {capacity0: one})], classes=[cls(classA, driverA)], slices=d11,
        expect=[allocationResult(localNodeSelector(node1), withConsumedCapacity(deviceAllocationResult(req0, driverA, pool1, device2, False), {capacity0: one}))])
    dedicated = [classWithAllowMultipleAllocations(classA, driverA, False)]
    row("consumable-capacity-dedicated-device-with-consumable-capacity-request", features=CC, claims=one_claim(one), classes=dedicated,
        slices=[sliceWithDevices(slice1, node1, pool1, driverA, device(device1, {capacity0: one}))],
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False))])
    row("consumable-capacity-dedicated-device-with-multiple-consumable-capacity-request", features=CC, claims=two_one,
        classes=dedicated,
        slices=[sliceWithDevices(slice1, node1, pool1, driverA, withCapacityRequestPolicyRange(device(device1), {capacity0: two}))])
    row("allow-multiple-allocations-exclude-multi-allocatable-device-by-class-selector", features=CC, claims=one_claim(one),
        classes=dedicated,
        slices=[sliceWithDevices(slice1, node1, pool1, driverA, withAllowMultipleAllocations(device(device1, {capacity0: one})))])
    row("allow-multiple-allocations-not-allocate-multi-allocatable-device-which-already-dedicated", features=CC,
        claims=one_claim(one), allocated=[ID(driverA, pool1, device1)], classes=multi,
        slices=[sliceWithDevices(slice1, node1, pool1, driverA, rng(device1, two))])
    row("allow-multiple-allocations-not-allocate-dedicated-device-which-change-from-multi-allocatable", features=CC,
        claims=one_claim(one), allocatedCapacity=[(driverA, pool1, device1, {capacity0: one})], classes=multi,
        slices=[sliceWithDevices(slice1, node1, pool1, driverA, withCapacityRequestPolicyRange(device(device1), {capacity0: two}))])
    row("allow-multiple-allocations-with-partitionable-device", features=PL | PD | CC,
        claims=[withRequests(claim(claim0), deviceRequest(req0, classA, 1), requestWithPrioritizedList(
            req1, subRequest(subReq0, classA, 1, mem("6Gi")), subRequest(subReq1, classA, 1, mem("4Gi"))))],
        classes=multi,
        slices=[sliceWithDevices(slice1, node1, resourcePool(pool1, 2), driverA,
                                 withAllowMultipleAllocations(fc(device1, dcc(counterSet1, memory="4Gi"))),
                                 withAllowMultipleAllocations(fc(device2, dcc(counterSet1, memory="6Gi"))),
                                 withAllowMultipleAllocations(fc(device3, dcc(counterSet1, memory="4Gi")))),
                sliceWithCounterSets(slice2, node1, resourcePool(pool1, 2), driverA, counterSet(counterSet1, {"memory": "8Gi"}))],
        expect=[allocationResult(localNodeSelector(node1),
                                 withConsumedCapacity(deviceAllocationResult(req0, driverA, pool1, device1, False), {"memory": "4Gi"}),
                                 withConsumedCapacity(deviceAllocationResult(req1SubReq1, driverA, pool1, device3, False), {"memory": "4Gi"}))])
    cap_sel = lambda q: sel(f'device.capacity["{driverA}"]["{capacity0}"].compareTo(quantity("{q}")) >= 0')  # noqa: E731
    shared = lambda name, c0: withCapacityRequestPolicyRange(withAllowMultipleAllocations(  # noqa: E731
        fc(name, dcc(counterSet1, **{capacity0: c0}), dcc(counterSet2, **{capacity1: four}))), {capacity1: four})
    row("consumable-capacity-with-partitionable-device-multiple-capacity-pools", features=PL | PD | CC,
        claims=[withRequests(claim(claim0), withCapacityRequest(deviceRequest(req0, classA, 1), one),
                             withCapacityRequest(deviceRequest(req2, classA, 1), two),
                             requestWithPrioritizedList(req1, withCapacityRequest(subRequest(subReq0, classA, 1, cap_sel("4")), one),
                                                        withCapacityRequest(subRequest(subReq1, classA, 1, cap_sel("2")), one)))],
        classes=[cls(classA, driverA)],
        slices=[sliceWithDevices(slice1, node1, resourcePool(pool1, 2), driverA, shared(device1, two), shared(device2, four),
                                 shared(device3, two)),
                sliceWithCounterSets(slice2, node1, resourcePool(pool1, 2), driverA, counterSet(counterSet1, {capacity0: four}),
                                     counterSet(counterSet2, {capacity1: "8"}))],
        expect=[allocationResult(localNodeSelector(node1),
                                 withConsumedCapacity(deviceAllocationResult(req0, driverA, pool1, device1, False), {capacity0: one, capacity1: two}),
                                 withConsumedCapacity(deviceAllocationResult(req2, driverA, pool1, device3, False), {capacity0: two, capacity1: two}),
                                 withConsumedCapacity(deviceAllocationResult(req1SubReq1, driverA, pool1, device1, False), {capacity0: one, capacity1: two}))])


def rows_distinct():
    row("with-distinct-constraints", features=CC,
        claims=[withRequests(withConstraints(claim(claim0),
                                             {"distinctAttribute": boolAttribute, "requests": [req0, req1]},
                                             {"distinctAttribute": versionAttribute, "requests": [req0, req1, req2]},
                                             {"distinctAttribute": intAttribute, "requests": [req0, req1, req2, req3]}),
                             *[deviceRequest(r, classA, 1) for r in (req0, req1, req2, req3)])],
        classes=[cls(classA, driverA)],
        slices=[sliceWithDevices(slice1, node1, pool1, driverA,
                                 withAllowMultipleAllocations(device(device1, None, A(driverVersion=V("1.0.0"), numa=0, boolAttribute=True))),
                                 withAllowMultipleAllocations(device(device2, None, A(driverVersion=V("1.0.1"), numa=1, boolAttribute=False))),
                                 withAllowMultipleAllocations(device(device3, None, A(driverVersion=V("1.0.2"), numa=2, boolAttribute=True))),
                                 withAllowMultipleAllocations(device(device4, None, A(driverVersion=V("1.0.0"), numa=3, boolAttribute=True))))],
        expect=[allocationResult(localNodeSelector(node1),
                                 *[withConsumedCapacity(deviceAllocationResult(r, driverA, pool1, d, False), None)
                                   for r, d in ((req0, device1), (req1, device2), (req2, device3), (req3, device4))])])
    distinct_one = [withRequests(withConstraints(claim(claim0), {"distinctAttribute": boolAttribute, "requests": [req0]}),
                                 deviceRequest(req0, classA, 1))]
    row("with-distinct-constraints-attribute-not-set", features=CC, claims=distinct_one, classes=[cls(classA, driverA)],
        slices=[sliceWithDevices(slice1, node1, pool1, driverA, withAllowMultipleAllocations(device(device1)))])
    row("with-distinct-constraints-unknown-type-attribute", features=CC, claims=distinct_one, classes=[cls(classA, driverA)],
        slices=[sliceWithDevices(slice1, node1, pool1, driverA, withAllowMultipleAllocations(device(device1, None, A(boolAttribute=None))))],
        error="unsupported attribute value",
        notes="only the substring is upstream's; the rest of the message is this implementation's")
    bool_sel = sel(f'device.attributes["{driverA}"].boolAttribute')
    row("with-distinct-constraints-with-subrequests", features=CC | PL,
        claims=[withRequests(withConstraints(claim(claim0), {"distinctAttribute": boolAttribute, "requests": [req0, req1]}),
                             *[requestWithPrioritizedList(r, subRequest(subReq0, classA, 1, bool_sel), subRequest(subReq1, classA, 1))
                               for r in (req0, req1, req2)])],
        classes=[cls(classA, driverA)],
        slices=[sliceWithDevices(slice1, node1, pool1, driverA,
                                 withAllowMultipleAllocations(device(device1, None, A(boolAttribute=True))),
                                 withAllowMultipleAllocations(device(device2, None, A(boolAttribute=False))))],
        expect=[allocationResult(localNodeSelector(node1),
                                 withConsumedCapacity(deviceAllocationResult(req0SubReq0, driverA, pool1, device1, False), None),
                                 withConsumedCapacity(deviceAllocationResult(req1SubReq1, driverA, pool1, device2, False), None),
                                 withConsumedCapacity(deviceAllocationResult(req2SubReq0, driverA, pool1, device1, False), None))])
    multi = [classWithAllowMultipleAllocations(classA, driverA, True)]
    row("distinct-constraint-one-multi-allocatable-device-with-distinct-constraint", features=CC,
        claims=[withRequests(withConstraints(claim(claim0), {"distinctAttribute": stringAttribute}),
                             withCapacityRequest(deviceRequest(req0, classA, 1), one),
                             withCapacityRequest(deviceRequest(req1, classA, 1), one))],
        classes=multi,
        slices=[sliceWithDevices(slice1, node1, pool1, driverA, withCapacityRequestPolicyRange(withAllowMultipleAllocations(
            device(device1, None, A(stringAttribute="stringAttributeValue"))), {capacity0: two}))])
    row("distinct-constraint-two-multi-allocatable-devices-with-distinct-constraint", features=CC,
        claims=[withRequests(withConstraints(claim(claim0), {"distinctAttribute": stringAttribute}),
                             withCapacityRequest(deviceRequest(req0, classA, 1), two),
                             withCapacityRequest(deviceRequest(req1, classA, 1), two))],
        classes=multi,
        slices=[sliceWithDevices(slice1, node1, resourcePool(pool1, 2), driverA, withCapacityRequestPolicyRange(withAllowMultipleAllocations(
                    device(device1, None, A(stringAttribute="stringAttributeValue1"))), {capacity0: four})),
                sliceWithDevices(slice1, node1, resourcePool(pool1, 2), driverA, withCapacityRequestPolicyRange(withAllowMultipleAllocations(
                    device(device2, None, A(stringAttribute="stringAttributeValue2"))), {capacity0: four}))],
        expect=[allocationResult(localNodeSelector(node1),
                                 withConsumedCapacity(deviceAllocationResult(req0, driverA, pool1, device1, False), {capacity0: two}),
                                 withConsumedCapacity(deviceAllocationResult(req1, driverA, pool1, device2, False), {capacity0: two}))])


def g(s, generation, count):
    return setPool(s, generation=generation, resourceSliceCount=count)


def rows_pools():
    ca = [cls(classA, driverA)]
    simple = [claimWithRequest(claim0, req0, classA)]
    row("allocation-mode-all-with-multi-host-resource-pool", claims=[all_claim(claim0, classA)], classes=ca,
        slices=[sliceWithDevices(slice1, node1, resourcePool(pool1, 2), driverA, device(device1)),
                sliceWithDevices(slice2, node2, resourcePool(pool1, 2), driverA, device(device2))],
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False))])
    row("multi-host-resource-pool-with-stale-slice-for-current-node", claims=simple, classes=ca,
        slices=[g(sliceWithDevices(slice1, node1, pool1, driverA, device(device1)), 1, 2),
                g(sliceWithDevices(slice2, node2, pool1, driverA, device(device2)), 2, 2)])
    for name, first, second in (("multi-host-resource-pool-complete-update-from-node-1-to-node-2", node1, node2),
                                ("multi-host-resource-pool-complete-update-from-node-2-to-node-1", node2, node1)):
        row(name, claims=simple, classes=ca,
            slices=[g(sliceWithDevices(slice1, first, pool1, driverA, device(device1)), 1, 2),
                    g(sliceWithDevices(slice1, first, pool1, driverA, device(device2)), 1, 2),
                    g(sliceWithDevices(slice2, second, pool1, driverA, device(device1)), 2, 2),
                    g(sliceWithDevices(slice2, second, pool1, driverA, device(device2)), 2, 2)],
            expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False))])
    row("multi-host-resource-pool-incomplete-update-from-node-1-to-node-2", claims=simple, classes=ca,
        slices=[g(sliceWithDevices(slice1, node1, pool1, driverA, device(device1)), 1, 2),
                g(sliceWithDevices(slice1, node1, pool1, driverA, device(device2)), 1, 2),
                g(sliceWithDevices(slice2, node2, pool1, driverA, device(device1)), 2, 2)],
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False))])
    row("multi-host-resource-pool-incomplete-update-from-node-2-to-node-1", claims=simple, classes=ca,
        slices=[g(sliceWithDevices(slice1, node2, pool1, driverA, device(device1)), 1, 2),
                g(sliceWithDevices(slice1, node2, pool1, driverA, device(device2)), 1, 2),
                g(sliceWithDevices(slice2, node1, pool1, driverA, device(device1)), 2, 2)])
    one_req = [withRequests(claim(claim0), deviceRequest(req0, classA, 1))]
    invalid = "invalid resource pools were encountered"
    row("partitionable-devices-same-counter-set-name-in-different-resource-slices", features=PD, claims=one_req, classes=ca,
        slices=[sliceWithDevices(slice1, node1, resourcePool(pool1, 4), driverA, device(device1)),
                sliceWithCounterSets(slice2, node1, resourcePool(pool1, 4), driverA, counterSet(counterSet1, None)),
                sliceWithDevices(slice3, node1, resourcePool(pool1, 4), driverA, device(device2)),
                sliceWithCounterSets(slice4, node1, resourcePool(pool1, 4), driverA, counterSet(counterSet1, None))],
        error=invalid)
    row("partitionable-devices-device-counter-consumption-references-unknown-counter-set", features=PD, claims=one_req,
        classes=ca,
        slices=[sliceWithDevices(slice1, node1, resourcePool(pool1, 2), driverA,
                                 withDeviceCounterConsumption(device(device1), deviceCounterConsumption(counterSet2, None))),
                sliceWithCounterSets(slice2, node1, resourcePool(pool1, 2), driverA, counterSet(counterSet1, None))],
        error=invalid)
    row("partitionable-devices-device-counter-consumption-references-unknown-counter-in-counter-set", features=PD,
        claims=one_req, classes=ca,
        slices=[sliceWithDevices(slice1, node1, resourcePool(pool1, 2), driverA,
                                 withDeviceCounterConsumption(device(device1), dcc(counterSet1, memory="8Gi"))),
                sliceWithCounterSets(slice2, node1, resourcePool(pool1, 2), driverA, counterSet(counterSet1, {"other-memory": "8Gi"}))],
        error=invalid)
    row("partitionable-devices-device-counter-consumption-references-counter-set-in-other-pool", features=PD,
        claims=one_req, classes=ca,
        slices=[sliceWithDevices(slice1, node1, pool1, driverA, withDeviceCounterConsumption(device(device1), dcc(counterSet1, memory="8Gi"))),
                sliceWithCounterSets(slice2, node1, pool2, driverA, counterSet(counterSet1, {"memory": "8Gi"}))],
        error=invalid)
    row("partitionable-devices-devices-on-different-nodes-consume-same-counter-set", features=PD | PL,
        claims=[withRequests(claim(claim0), requestWithPrioritizedList(req0, subRequest(subReq0, classA, 1, mem("6Gi")),
                                                                       subRequest(subReq1, classA, 1, mem("2Gi"))))],
        classes=ca,
        slices=[sliceWithCounterSets(slice1, node1, resourcePool(pool1, 3), driverA, counterSet(counterSet1, {"memory": "8Gi"})),
                sliceWithDevices(slice2, node1, resourcePool(pool1, 3), driverA, fc(device1, dcc(counterSet1, memory="6Gi")),
                                 fc(device2, dcc(counterSet1, memory="2Gi"))),
                sliceWithDevices(slice3, node2, resourcePool(pool1, 3), driverA,
                                 withDeviceCounterConsumption(device(device3), dcc(counterSet1, memory="6Gi")))],
        allocated=[ID(driverA, pool1, device3)],
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0SubReq1, driverA, pool1, device2, False))])
    row("partitionable-devices-validation-error-on-non-targeting-slice", features=PD,
        claims=[claimWithRequests(claim0, None, request(req0, classA, 1))], classes=ca,
        slices=[sliceWithCounterSets(slice1, node1, resourcePool(pool1, 3), driverA, counterSet(counterSet1, {"memory": "8Gi"})),
                sliceWithDevices(slice2, node1, resourcePool(pool1, 3), driverA, fc(device1, dcc(counterSet1, memory="6Gi"))),
                sliceWithDevices(slice3, node2, resourcePool(pool1, 3), driverA,
                                 withDeviceCounterConsumption(device(device3), dcc(counterSet2, memory="6Gi")))],
        error=invalid)
    row("different-resourceslices-in-pool-can-target-different-nodes", claims=[claimWithRequests(claim0, None, request(req0, classA, 1))],
        classes=ca,
        slices=[sliceWithDevices(slice1, node2, resourcePool(pool1, 2), driverA, device(device1)),
                sliceWithDevices(slice2, node1, resourcePool(pool1, 2), driverA, device(device2))],
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device2, False))])
    dup = [sliceWithDevices(slice1, node1, resourcePool(pool1, 2), driverA, device(device1)),
           sliceWithDevices(slice2, node1, resourcePool(pool1, 2), driverA, device(device1)),
           sliceWithDevices(slice3, node1, resourcePool(pool2, 1), driverA, device(device2))]
    row("invalid-pool-is-ok-if-devices-can-be-allocated-from-other", claims=[claimWithRequests(claim0, None, request(req0, classA, 1))],
        classes=ca, slices=dup,
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool2, device2, False))])
    row("invalid-pool-is-error-if-no-other-device-can-be-allocated", claims=[claimWithRequests(claim0, None, request(req0, classA, 1))],
        classes=ca, slices=dup, allocated=[ID(driverA, pool2, device2)], error=invalid)
    row("no-allocation-from-incomplete-pools", claims=[claimWithRequests(claim0, None, request(req0, classA, 1))], classes=ca,
        slices=[sliceWithDevices(slice1, node1, resourcePool(pool1, 2), driverA, device(device1))])


def rows_combinations():
    ca = [cls(classA, driverA)]
    five = [claimWithRequests(claim0, None, request(req0, classA, 5))]
    notes = "upstream also expects {} allocateOne invocations (checked by tests/dra/test_allocator.py)"
    row("check-combinations-within-single-request-single-pool-single-slice", claims=five, classes=ca,
        slices=[sliceWithDevices(slice1, node1, pool1, driverA, *[device(d) for d in (device1, device2, device3, device4)])],
        notes=notes.format(16))
    row("check-combinations-within-single-request-single-pool-multiple-slices", claims=five, classes=ca,
        slices=[sliceWithDevices(slice1, node1, resourcePool(pool1, 2), driverA, device(device1), device(device2)),
                sliceWithDevices(slice2, node1, resourcePool(pool1, 2), driverA, device(device3), device(device4))],
        notes=notes.format(16))
    row("check-combinations-within-single-request-multiple-pools-multiple-slices", claims=five, classes=ca,
        slices=[sliceWithDevices(slice1, node1, resourcePool(pool1, 2), driverA, device(device1)),
                sliceWithDevices(slice2, node1, resourcePool(pool1, 2), driverA, device(device2)),
                sliceWithDevices(slice3, node1, pool2, driverA, device(device3), device(device4))],
        notes=notes.format(16))
    row("check-combinations-within-single-request-many-pools", claims=five, classes=ca,
        slices=[sliceWithDevices(s, node1, p, driverA, device(d)) for s, p, d in
                ((slice1, pool1, device1), (slice2, pool2, device2), (slice3, pool3, device3), (slice4, pool4, device4))],
        notes=notes.format(16))
    typ = lambda t: sel(f'device.attributes["{driverA}"].type == "{t}"')  # noqa: E731
    backtrack = [claimWithRequests(claim0, None, request(req1, classA, 2), request(req2, classA, 1, typ("X")))]
    xyy = [device(device1, None, A(type="X")), device(device2, None, A(type="Y")), device(device3, None, A(type="Y"))]
    row("check-combinations-with-backtracking", claims=backtrack, classes=ca,
        slices=[sliceWithDevices(slice1, node1, pool1, driverA, *xyy)],
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req1, driverA, pool1, device2, False),
                                 deviceAllocationResult(req1, driverA, pool1, device3, False),
                                 deviceAllocationResult(req2, driverA, pool1, device1, False))],
        notes=notes.format(12))
    row("check-combinations-with-backtracking-across-slices-and-pools", features=DB, claims=backtrack, classes=ca,
        slices=[sliceWithDevices(slice1, node1, resourcePool(pool1, 2), driverA, xyy[0]),
                sliceWithDevices(slice2, node1, resourcePool(pool1, 2), driverA, xyy[1]),
                sliceWithDevices(slice3, node1, pool2, driverA, withBindingConditions(xyy[2], ["IsPrepare"], []))],
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req1, driverA, pool1, device2, False),
                                 withBindings(req1, driverA, pool2, device3, ["IsPrepare"], []),
                                 deviceAllocationResult(req2, driverA, pool1, device1, False))],
        notes=notes.format(12))
    row("check-combinations-with-prioritized-list", features=PL,
        claims=[withRequests(claim(claim0),
                             requestWithPrioritizedList(req1, subRequest(subReq0, classA, 3, typ("Y")), subRequest(subReq1, classA, 2)),
                             requestWithPrioritizedList(req2, subRequest(subReq0, classA, 2), subRequest(subReq1, classA, 1, typ("X"))))],
        classes=ca, slices=[sliceWithDevices(slice1, node1, pool1, driverA, *xyy)],
        expect=[allocationResult(localNodeSelector(node1), deviceAllocationResult(req1SubReq1, driverA, pool1, device2, False),
                                 deviceAllocationResult(req1SubReq1, driverA, pool1, device3, False),
                                 deviceAllocationResult(req2SubReq1, driverA, pool1, device1, False))],
        notes=notes.format(26))


LT = {"ListTypeAttributes"}


def L(**kv):  # list-typed device attributes: ("strings"|"ints"|"bools"|"versions", [values]); {} for none
    return {k: ({v[0]: v[1]} if v else {}) for k, v in kv.items()}


def rows_list_attributes():
    """The DRAListTypeAttributes rows (matchAttribute over value sets, distinctAttribute pairwise disjoint)."""
    def one(name, constraint, attr, count, devices, ok, features=LT, error=None, requests=None):
        claims = [claimWithRequests(claim0, [{constraint: attr}], *(requests or [request(req0, classA, count)]))]
        slices = [sliceWithDevices(slice1, node1, pool1, driverA,
                                   *[device(f"device-{i + 1}", None, a) for i, a in enumerate(devices)])]
        expect = None if ok is None else [allocationResult(localNodeSelector(node1), *[
            deviceAllocationResult(req0, driverA, pool1, d, False) for d in ok])]
        row(name, features=features, claims=claims, classes=[cls(classA, driverA)], slices=slices, expect=expect,
            error=error, notes="only the substring is upstream's; the rest of the message is this implementation's"
            if error else "")

    m, d = "matchAttribute", "distinctAttribute"
    s1 = A(stringAttribute="value1")
    one("list-attributes-match-constaint-scalar-string-values", m, stringAttribute, 2, [s1, s1], [device1, device2])
    one("list-attributes-match-constaint-list-of-string-values-with-common-elements", m, stringAttribute, 2,
        [L(stringAttribute=("strings", ["value1", "value2", "value3"])), L(stringAttribute=("strings", ["value2", "value3", "value4"]))],
        [device1, device2])
    one("list-attributes-match-constaint-list-of-string-values-with-partially-common-elements", m, stringAttribute, 3,
        [L(stringAttribute=("strings", ["value1", "value2"])), L(stringAttribute=("strings", ["value2", "value3"])),
         L(stringAttribute=("strings", ["value3", "value1"]))], None)
    one("list-attributes-match-constaint-list-of-string-values-without-common-elements", m, stringAttribute, 1,
        [L(stringAttribute=("strings", ["value1", "value2"])), L(stringAttribute=("strings", ["value3", "value4"]))], None,
        requests=[request(req0, classA, 1), request(req0, classA, 1)])
    one("list-attributes-match-constaint-mixed-scalar-and-list-of-string-values-with-common-elements", m, stringAttribute, 2,
        [s1, L(stringAttribute=("strings", ["value1", "value2"]))], [device1, device2])
    one("list-attributes-match-constaint-mixed-scalar-and-list-of-string-values-with-partially-common-elements", m,
        stringAttribute, 3, [s1, L(stringAttribute=("strings", ["value1", "value2"])), L(stringAttribute=("strings", ["value2", "value3"]))],
        None)
    one("list-attributes-match-constaint-mixed-scalar-and-list-of-string-values-without-common-elements", m, stringAttribute, 2,
        [s1, L(stringAttribute=("strings", ["value2", "value3"]))], None)
    one("list-attributes-match-constaint-list-of-int-values-with-common-elements", m, intAttribute, 2,
        [L(numa=("ints", [0, 1, 2])), L(numa=("ints", [1, 2, 3]))], [device1, device2])
    one("list-attributes-match-constaint-list-of-bool-values-with-common-elements", m, boolAttribute, 2,
        [L(boolAttribute=("bools", [True, False])), L(boolAttribute=("bools", [True]))], [device1, device2])
    one("list-attributes-match-constaint-list-of-version-values-with-common-elements", m, versionAttribute, 2,
        [L(driverVersion=("versions", ["1.0.0", "1.1.0", "2.0.0"])), L(driverVersion=("versions", ["1.1.0", "2.0.0", "2.1.0"]))],
        [device1, device2])
    one("list-attributes-match-constaint-with-empty-or-unknown-type", m, stringAttribute, 2,
        [L(stringAttribute=None), L(stringAttribute=("strings", []))], None, error="unsupported attribute value")
    one("list-attributes-disabled-match-constraint-with-lists", m, stringAttribute, 2,
        [L(stringAttribute=("strings", ["value1", "value2", "value3"])), L(stringAttribute=("strings", ["value2", "value3", "value4"]))],
        None, features=set(), error="unsupported attribute value")
    LC = LT | CC
    one("list-attributes-distinct-constraint-scalar-string-values-all-distinct", d, stringAttribute, 2,
        [s1, A(stringAttribute="value2")], [device1, device2], features=LC)
    one("list-attributes-distinct-constraint-scalar-string-values-not-distinct", d, stringAttribute, 2, [s1, s1], None, features=LC)
    one("list-attributes-distinct-constraint-list-of-string-values-all-distinct", d, stringAttribute, 2,
        [L(stringAttribute=("strings", ["value1", "value2"])), L(stringAttribute=("strings", ["value2", "value3"])),
         L(stringAttribute=("strings", ["value3", "value4"]))], [device1, device3], features=LC)
    one("list-attributes-distinct-constraint-list-of-string-values-with-common-elements", d, stringAttribute, 2,
        [L(stringAttribute=("strings", ["value1", "value2", "value3"])), L(stringAttribute=("strings", ["value2", "value4", "value5"]))],
        None, features=LC)
    one("list-attributes-distinct-constraint-mixed-scalar-and-list-all-distinct", d, stringAttribute, 2,
        [s1, L(stringAttribute=("strings", ["value1", "value2"])), L(stringAttribute=("strings", ["value2", "value3"]))],
        [device1, device3], features=LC)
    one("list-attributes-distinct-constraint-mixed-scalar-and-list-with-common-elements", d, stringAttribute, 2,
        [s1, L(stringAttribute=("strings", ["value1", "value2"]))], None, features=LC)
    one("list-attributes-distinct-constraint-list-of-int-values-all-distinct", d, intAttribute, 2,
        [L(numa=("ints", [0, 1])), L(numa=("ints", [1, 2])), L(numa=("ints", [2, 3]))], [device1, device3], features=LC)
    one("list-attributes-distinct-constraint-list-of-bool-values-all-distinct", d, boolAttribute, 2,
        [L(boolAttribute=("bools", [True])), L(boolAttribute=("bools", [True, False])), L(boolAttribute=("bools", [False]))],
        [device1, device3], features=LC)
    one("list-attributes-distinct-constraint-list-of-version-values-all-distinct", d, versionAttribute, 2,
        [L(driverVersion=("versions", ["1.0.0", "1.1.0"])), L(driverVersion=("versions", ["1.1.0", "2.0.0"])),
         L(driverVersion=("versions", ["2.0.0", "2.1.0"]))], [device1, device3], features=LC)
    one("list-attributes-distinct-constaint-with-empty-or-unknown-type", d, versionAttribute, 2,
        [L(driverVersion=("versions", [])), L(driverVersion=None)], None, features=LC, error="unsupported attribute value")
    one("list-attributes-disabled-distinct-constraint-with-lists", d, stringAttribute, 2,
        [L(stringAttribute=("strings", ["value1", "value2", "value3"])), L(stringAttribute=("strings", ["value2", "value3", "value4"]))],
        None, features=CC, error="unsupported attribute value")


def main() -> None:
    for rows in (rows_basic, rows_all_devices, rows_network_and_constraints, rows_prioritized_list, rows_partitionable,
                 rows_taints, rows_binding, rows_consumable_capacity, rows_distinct, rows_list_attributes, rows_pools, rows_combinations):
        rows()
    ids = [c["id"] for c in CASES]
    assert len(ids) == len(set(ids)), "duplicate case ids"
    out = Path(__file__).with_name("allocator.json")
    out.write_text(json.dumps(CASES, indent=1) + "\n")
    print(f"{len(CASES)} cases -> {out}")


if __name__ == "__main__":
    main()
