"""DynamicResources through the scheduler: allocation and reservation written at PreBind, in-flight
allocations seen by later pods, Unreserve, binding conditions, PostFilter deallocation, args and
QueueingHints."""

from __future__ import annotations

import copy

import pytest

from kschedlab.api.loader import load_text
from kschedlab.apiserver.admission import admit
from kschedlab.cluster import Cluster
from kschedlab.dra.manager import FINALIZER, dra_manager
from kschedlab.features import FeatureGates
from kschedlab.framework.events import QueueingHint
from kschedlab.framework.interface import ArgsError, CycleState
from kschedlab.framework.runtime import Framework
from kschedlab.framework.status import Code
from kschedlab.plugins.dynamic_resources import NAME, DynamicResources, validate_args
from kschedlab.scheduler import Scheduler

BASE = """
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
status: {allocatable: {cpu: "8", memory: 16Gi, pods: "110"}}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec: {selectors: [{cel: {expression: device.driver == "gpu.example.com"}}]}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-gpus}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
  devices: [{name: gpu-0}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c1}
spec: {devices: {requests: [{name: g, exactly: {deviceClassName: gpu}}]}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c2}
spec: {devices: {requests: [{name: g, exactly: {deviceClassName: gpu}}]}}
"""


def pod(name: str, claim: str) -> str:
    return f"""
---
apiVersion: v1
kind: Pod
metadata: {{name: {name}}}
spec:
  resourceClaims: [{{name: dev, resourceClaimName: {claim}}}]
  containers: [{{name: c, image: nginx, resources: {{claims: [{{name: dev}}]}}}}]
"""


def cluster(text: str) -> Cluster:
    return Cluster(admit(load_text(text)))


def claim(c: Cluster, name: str) -> dict:
    return dra_manager(c).get_claim("default", name)


def test_prebind_writes_allocation_finalizer_and_reservation():
    c = cluster(BASE + pod("a", "c1"))
    result = Scheduler(c).schedule_one("default/a")
    assert result.node == "n1"
    got = claim(c, "c1")
    assert got["metadata"]["finalizers"] == [FINALIZER]
    assert [r["device"] for r in got["status"]["allocation"]["devices"]["results"]] == ["gpu-0"]
    assert got["status"]["allocation"]["nodeSelector"]["nodeSelectorTerms"][0]["matchFields"][0]["values"] == ["n1"]
    assert got["status"]["reservedFor"] == [{"resource": "pods", "name": "a", "uid": c.pods["default/a"].metadata.uid}]
    assert not dra_manager(c).in_flight
    # a second pod sharing the allocated claim is reserved too, without a new allocation
    c2 = cluster(BASE + pod("a", "c1") + pod("b", "c1"))
    results = Scheduler(c2).run()
    assert [r.node for r in results] == ["n1", "n1"]
    assert [r["name"] for r in claim(c2, "c1")["status"]["reservedFor"]] == ["a", "b"]


def test_device_taken_by_one_claim_is_not_given_to_another():
    c = cluster(BASE + pod("a", "c1") + pod("b", "c2"))
    results = Scheduler(c).run()
    assert results[0].node == "n1"
    assert results[1].node is None
    assert results[1].trace.filter.status(0).reasons == ("cannot allocate all claims",)
    assert results[1].status.code == Code.Unschedulable


def framework_and_state(c: Cluster, key: str):
    fw = Framework({}, cluster=c)
    plugin = fw.plugins[NAME]
    info = c.pod_infos[key]
    state = CycleState()
    _, status = plugin.pre_filter(state, info, c.snapshot)
    assert status.is_success(), status
    verdicts = plugin.filter_nodes(state, info, c.snapshot, c.snapshot.order)
    return plugin, info, state, verdicts


def test_reserve_puts_allocation_in_flight_and_unreserve_forgets_it():
    c = cluster(BASE + pod("a", "c1") + pod("b", "c2") + pod("a2", "c1"))
    plugin, info, state, verdicts = framework_and_state(c, "default/a")
    assert verdicts.codes.tolist() == [0]
    assert plugin.reserve(state, info, "n1").is_success()
    manager = dra_manager(c)
    assert len(manager.in_flight) == 1
    assert ("gpu.example.com", "n1", "gpu-0") in manager.allocated_state().allocated_devices
    # another pod of the same claim waits for the allocation in flight
    other = CycleState()
    _, status = plugin.pre_filter(other, c.pod_infos["default/a2"], c.snapshot)
    assert status.code == Code.UnschedulableAndUnresolvable
    assert status.reasons == ("resource claim default/c1 is in the process of being allocated",)
    # a pod of another claim sees the device as taken
    _, _, _, verdicts_b = framework_and_state(c, "default/b")
    assert verdicts_b.status(0).reasons == ("cannot allocate all claims",)
    plugin.unreserve(state, info, "n1")
    assert not manager.in_flight
    _, _, _, verdicts_b = framework_and_state(c, "default/b")
    assert verdicts_b.codes.tolist() == [0]


def test_wrong_topology_is_deallocated_by_postfilter():
    c = cluster(BASE + pod("a", "c1"))
    manager = dra_manager(c)
    stale = copy.deepcopy(claim(c, "c1"))
    stale["status"] = {"allocation": {"devices": {"results": [
        {"request": "g", "driver": "gpu.example.com", "pool": "n1", "device": "gpu-0"}]},
        "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
            {"key": "metadata.name", "operator": "In", "values": ["gone"]}]}]}}}
    manager.update_claim(stale)
    result = Scheduler(c).schedule_one("default/a")
    assert result.node is None
    assert "1 resourceclaim not available on the node" in result.message
    assert "deallocation of ResourceClaim completed" in result.message
    assert claim(c, "c1")["status"].get("allocation") is None
    assert Scheduler(c).schedule_one("default/a").node == "n1"  # the next attempt allocates again


FABRIC = BASE.replace("devices: [{name: gpu-0}]", """devices:
  - name: gpu-0
    bindsToNode: true
    bindingConditions: [is-prepared]
    bindingFailureConditions: [preparing-failed]""")


def set_conditions(c: Cluster, name: str, **conditions):
    manager = dra_manager(c)
    got = copy.deepcopy(claim(c, name))
    got["status"]["devices"] = [{"driver": "gpu.example.com", "pool": "n1", "device": "gpu-0", "conditions": [
        {"type": t, "status": s, "reason": "Test", "message": "set by the test",
         "lastTransitionTime": "2026-01-01T00:00:00Z"} for t, s in conditions.items()]}]
    manager.update_claim(got)


def test_binding_conditions_met_while_waiting():
    c = cluster(FABRIC + pod("a", "c1"))
    sched = Scheduler(c)
    calls = []

    def driver_prepares(pod_info, timeout):
        calls.append(timeout)
        set_conditions(c, "c1", **{"is-prepared": "True"})
        return True

    for fw in sched.profiles.values():
        fw.handle.extra["binding_conditions_wait"] = driver_prepares
    result = sched.schedule_one("default/a")
    assert result.node == "n1"
    assert calls == [600.0]
    got = claim(c, "c1")["status"]
    assert got["allocation"]["allocationTimestamp"]
    assert got["allocation"]["devices"]["results"][0]["bindingConditions"] == ["is-prepared"]


def test_binding_failure_condition_aborts_and_next_cycle_deallocates():
    c = cluster(FABRIC + pod("a", "c1"))
    sched = Scheduler(c)

    def driver_fails(pod_info, timeout):
        set_conditions(c, "c1", **{"preparing-failed": "True"})
        return False

    for fw in sched.profiles.values():
        fw.handle.extra["binding_conditions_wait"] = driver_fails
    result = sched.schedule_one("default/a")
    assert result.node is None
    assert result.message == ('running PreBind plugin "DynamicResources": claim c1 binding failed: '
                              'reason=Test, message="set by the test"')
    kept = claim(c, "c1")["status"]
    assert kept["allocation"] and kept["reservedFor"] == []
    again = sched.schedule_one("default/a")
    assert "1 resourceclaim not available on the node" in again.message
    assert "deallocation of ResourceClaim completed" in again.message
    assert claim(c, "c1")["status"].get("allocation") is None


def test_binding_timeout_from_args():
    config = {"profiles": [{"pluginConfig": [{"name": NAME, "args": {"bindingTimeout": "60s"}}]}]}
    c = cluster(FABRIC + pod("a", "c1"))
    sched = Scheduler(c, config)
    seen = []
    for fw in sched.profiles.values():
        fw.handle.extra["binding_conditions_wait"] = lambda p, t: seen.append(t) or False
    message = sched.schedule_one("default/a").message
    assert message == 'running PreBind plugin "DynamicResources": device binding timeout'
    assert seen == [60.0]
    plugin = sched.profiles["default-scheduler"].plugins[NAME]
    allocated = claim(c, "c1")
    assert not plugin.claim_timed_out(allocated)
    from datetime import datetime, timedelta, timezone

    later = datetime.now(timezone.utc) + timedelta(seconds=61)
    assert plugin.claim_timed_out(allocated, now=later)


@pytest.mark.parametrize("raw, gates, errors", [
    ({}, {}, []),
    ({"filterTimeout": "0s", "bindingTimeout": "1s"}, {}, []),
    ({"filterTimeout": "-1s"}, {}, [("FieldValueInvalid", "filterTimeout", "must be zero or positive")]),
    ({"bindingTimeout": "500ms"}, {}, [("FieldValueInvalid", "bindingTimeout", "must be at least 1 second")]),
    ({"filterTimeout": "10s"}, {"DRASchedulerFilterTimeout": False},
     [("FieldValueForbidden", "filterTimeout", "DRASchedulingFilterTimeout feature gate is disabled")]),
    ({"bindingTimeout": "60s"}, {"DRADeviceBindingConditions": False},
     [("FieldValueForbidden", "bindingTimeout",
       "DRADeviceBindingConditions or DRAResourceClaimDeviceStatus feature gate is disabled")]),
    ({"filterTimeout": "soon"}, {}, [("FieldValueInvalid", "filterTimeout", "time: invalid duration 'soon'")]),
])
def test_args_validation(raw, gates, errors):
    g = FeatureGates(gates, emulate_older=True)
    if not errors:
        args = validate_args(raw, g)
        assert args.binding_timeout >= 1
        return
    with pytest.raises(ArgsError) as info:
        validate_args(raw, g)
    assert [(e.type, e.field, e.detail) for e in info.value.errors] == errors


def test_args_defaults():
    args = validate_args({}, FeatureGates())
    assert (args.filter_timeout, args.binding_timeout) == (10.0, 600.0)
    off = validate_args({}, FeatureGates({"DRASchedulerFilterTimeout": False}, emulate_older=True))
    assert off.filter_timeout is None


def hint_plugin(c: Cluster) -> DynamicResources:
    return Framework({}, cluster=c).plugins[NAME]


def test_queueing_hint_claim_change():
    from kschedlab.api.resource import ResourceClaim

    c = cluster(BASE + pod("a", "c1"))
    plugin = hint_plugin(c)
    info = c.pod_infos["default/a"]
    c1 = c.objects["ResourceClaim"]["default/c1"]
    c2 = c.objects["ResourceClaim"]["default/c2"]
    assert plugin.after_claim_change(info, None, c1) == QueueingHint.Queue  # the pod's claim created
    assert plugin.after_claim_change(info, None, c2) == QueueingHint.QueueSkip  # someone else's
    assert plugin.after_claim_change(info, c1, c1.model_copy(deep=True)) == QueueingHint.QueueSkip  # same status
    allocated = ResourceClaim.model_validate({**c2.model_dump(by_alias=True, exclude_none=True), "status": {
        "allocation": {"devices": {"results": []}}}})
    assert plugin.after_claim_change(info, allocated, c2) == QueueingHint.Queue  # deallocated: devices freed
    changed = ResourceClaim.model_validate({**c1.model_dump(by_alias=True, exclude_none=True), "status": {
        "reservedFor": [{"resource": "pods", "name": "x", "uid": "x"}]}})
    assert plugin.after_claim_change(info, c1, changed) == QueueingHint.Queue


def test_queueing_hint_pod_gets_its_generated_claim():
    c = cluster(BASE + """
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: t}
spec: {spec: {devices: {requests: [{name: g, exactly: {deviceClassName: gpu}}]}}}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  resourceClaims: [{name: dev, resourceClaimTemplateName: t}]
  containers: [{name: c, image: nginx}]
""")
    plugin = hint_plugin(c)
    info = c.pod_infos["default/p"]
    assert plugin.pre_enqueue(info).reasons == ('pod "default/p": ResourceClaim not created yet',)
    old = info.pod.model_copy(deep=True)
    from kschedlab.dra.resourceclaim_controller import ResourceClaimController

    assert ResourceClaimController(c).sync() == []
    assert plugin.after_pod_change(info, old, info.pod) == QueueingHint.Queue
    assert plugin.after_pod_change(info, None, c.pods.get("default/p").model_copy(
        update={"metadata": old.metadata.model_copy(update={"uid": "other"})})) == QueueingHint.QueueSkip
    assert plugin.pre_enqueue(info).is_success()
    events = [e.label for e, _ in plugin.events_to_register()]
    assert events == ["Node", "resource.k8s.io/ResourceClaim", "PodUpdatePodGeneratedResourceClaim",
                      "resource.k8s.io/DeviceClass", "resource.k8s.io/ResourceSlice"]


def test_pods_with_claims_are_not_signable():
    c = cluster(BASE + pod("a", "c1"))
    plugin = hint_plugin(c)
    fragments, status = plugin.sign_pod(c.pod_infos["default/a"])
    assert fragments is None and status.reasons == ("pods with dra resource claims are not signable",)


def test_postfilter_statuses_as_upstream_rows():
    """TestPlugin rows "empty", "missing-class" and "no-resources": PostFilter's answers."""
    c = cluster(BASE + pod("a", "c1") + """
---
apiVersion: v1
kind: Pod
metadata: {name: plain}
spec: {containers: [{name: c, image: nginx}]}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: classless}
spec: {devices: {requests: [{name: g, exactly: {deviceClassName: missing}}]}}
""" + pod("b", "classless"))
    plugin = hint_plugin(c)

    def post_filter(key):
        state = CycleState()
        plugin.pre_filter(state, c.pod_infos[key], c.snapshot)
        plugin.filter_nodes(state, c.pod_infos[key], c.snapshot, c.snapshot.order)
        return plugin.post_filter(state, c.pod_infos[key], None)[1]

    empty = post_filter("default/plain")
    assert (empty.code, empty.reasons) == (Code.Unschedulable, ())
    assert post_filter("default/b").reasons == ("no new claims to deallocate",)
    dra_manager(c).update_claim({**claim(c, "c2"), "metadata": {**claim(c, "c2")["metadata"]},
                                 "status": {"allocation": {"devices": {"results": [
                                     {"request": "g", "driver": "gpu.example.com", "pool": "n1",
                                      "device": "gpu-0"}]}}}})
    assert post_filter("default/a").reasons == ("still not schedulable",)
    off = DynamicResources.build({}, type("H", (), {"gates": FeatureGates({"DynamicResourceAllocation": False},
                                                                         emulate_older=True), "cluster": c})())
    assert off.post_filter(CycleState(), c.pod_infos["default/a"], None)[1].reasons == ("plugin disabled",)


EXTENDED = """
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "8", memory: 16Gi, pods: "110"}}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec: {extendedResourceName: example.com/gpu}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-gpus}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
  devices: [{name: gpu-0}]
---
apiVersion: v1
kind: Pod
metadata: {name: a}
spec:
  containers:
  - name: c
    image: nginx
    resources: {requests: {example.com/gpu: "1", cpu: 100m}, limits: {example.com/gpu: "1"}}
"""


def test_extended_resource_claim_created_at_prebind_and_nothing_left_in_flight():
    c = cluster(EXTENDED)
    assert Scheduler(c).schedule_one("default/a").node == "n1"
    manager = dra_manager(c)
    assert not manager.in_flight
    (made,) = manager.list_claims()
    meta = made["metadata"]
    assert meta["name"].startswith("a-extended-resources-")
    assert meta["annotations"] == {"resource.kubernetes.io/extended-resource-claim": "true"}
    (request,) = made["spec"]["devices"]["requests"]
    exact = request["exactly"]
    assert (request["name"], exact["deviceClassName"], exact["allocationMode"], exact["count"]) == (
        "container-0-request-1", "gpu", "ExactCount", 1)
    written = c.pods["default/a"].status.extended_resource_claim_status  # typed, as the API server stores it
    assert written.model_dump(by_alias=True, exclude_none=True, mode="json") == {
        "requestMappings": [{"containerName": "c", "resourceName": "example.com/gpu",
                             "requestName": "container-0-request-1"}],
        "resourceClaimName": meta["name"]}
    assert manager.allocated_state().allocated_devices == {("gpu.example.com", "n1", "gpu-0")}


def test_device_taint_rule_keeps_devices_out_unless_tolerated():
    rule = """
---
apiVersion: resource.k8s.io/v1alpha3
kind: DeviceTaintRule
metadata: {name: maintenance}
spec:
  deviceSelector: {driver: gpu.example.com}
  taint: {key: example.com/maintenance, value: "true", effect: NoSchedule}
"""
    c = Cluster(admit(load_text(BASE + rule + pod("a", "c1")), feature_gates={"DRADeviceTaintRules": True}))
    (tainted,) = dra_manager(c).resource_slices()
    assert tainted["spec"]["devices"][0]["taints"] == [
        {"key": "example.com/maintenance", "value": "true", "effect": "NoSchedule"}]
    result = Scheduler(c).schedule_one("default/a")
    assert result.node is None and "1 cannot allocate all claims" in result.message
    tolerant = copy.deepcopy(claim(c, "c2"))
    tolerant["spec"]["devices"]["requests"][0]["exactly"]["tolerations"] = [
        {"key": "example.com/maintenance", "operator": "Exists", "effect": "NoSchedule"}]
    dra_manager(c).update_claim(tolerant)
    c.add(c.pods["default/a"].model_copy(update={"metadata": c.pods["default/a"].metadata.model_copy(
        update={"name": "b", "uid": "b-uid"}), "spec": c.pods["default/a"].spec.model_copy(update={
            "resource_claims": [c.pods["default/a"].spec.resource_claims[0].model_copy(
                update={"resource_claim_name": "c2"})]})}, deep=True))
    assert Scheduler(c).schedule_one("default/b").node == "n1"


def test_extended_resource_from_device_plugin_or_dra_per_node():
    text = EXTENDED.replace("metadata: {name: n1}\nstatus: {allocatable: {cpu: \"8\", memory: 16Gi, pods: \"110\"}}",
                            "metadata: {name: n1}\nstatus: {allocatable: {cpu: \"8\", memory: 16Gi, pods: \"110\"}}\n"
                            "---\napiVersion: v1\nkind: Node\nmetadata: {name: plugin-node}\n"
                            "status: {allocatable: {cpu: \"8\", memory: 16Gi, pods: \"110\", example.com/gpu: \"4\"}}")
    c = cluster(text)
    plugin = hint_plugin(c)
    info = c.pod_infos["default/a"]
    state = CycleState()
    assert plugin.pre_filter(state, info, c.snapshot)[1].is_success()
    verdicts = plugin.filter_nodes(state, info, c.snapshot, c.snapshot.order)
    assert verdicts.codes.tolist() == [0, 0]  # DRA on n1, the device plugin on plugin-node
    s = state[NAME]
    assert s.node_allocations["n1"].extended_claim is not None
    assert "plugin-node" not in s.node_allocations  # nothing for DRA to do there
    assert plugin.reserve(state, info, "plugin-node").is_success() and not dra_manager(c).in_flight
    fit = Framework({}, cluster=c).plugins["NodeResourcesFit"]
    assert fit.filter_nodes(CycleState(), info, c.snapshot, c.snapshot.order).codes.tolist() == [0, 0]


def test_allocated_claims_filter_all_nodes_at_once_as_node_by_node():
    """A pod whose claims are all allocated is filtered for many nodes at once (the allocation's
    node selector over the label columns): the same codes and reasons as the per-node Filter,
    on a node the selector names, on others, and when every node passes."""
    nodes = "".join(f"""
---
apiVersion: v1
kind: Node
metadata: {{name: m{i}, labels: {{kubernetes.io/hostname: m{i}}}}}
status: {{allocatable: {{cpu: "8", memory: 16Gi, pods: "110"}}}}""" for i in range(3))
    c = cluster(BASE + nodes + pod("a", "c1") + pod("b", "c1"))
    assert Scheduler(c).schedule_one("default/a").node == "n1"
    plugin, info, state, verdicts = framework_and_state(c, "default/b")
    rows = c.snapshot.order
    per_node = [plugin._filter_row(state, info, c.snapshot, int(r)) for r in rows]
    assert [verdicts.status(i) for i in range(len(rows))] == per_node
    assert sorted(int(code) for code in verdicts.codes) == [0] + [int(Code.UnschedulableAndUnresolvable)] * 3
    # a selector every node matches: all pass
    s = state.get(NAME)
    s.infos[0].available_on_nodes = {"nodeSelectorTerms": [{"matchExpressions": [
        {"key": "kubernetes.io/hostname", "operator": "Exists"}]}]}
    assert plugin._allocated_only(s, c.snapshot, rows).all_pass
