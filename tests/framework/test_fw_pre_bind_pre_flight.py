"""PreBindPreFlight (``RunPreBindPreFlights``) and the ``nominatedNodeName`` the binding cycle writes
with NominatedNodeNameForExpectation (upstream ``schedule_one.go`` ``bindingCycle``)."""

from __future__ import annotations

import pytest

from kschedlab.api.loader import load_text
from kschedlab.cluster import Cluster
from kschedlab.framework.interface import CycleState, Plugin
from kschedlab.framework.runtime import Framework
from kschedlab.framework.status import Code, Status
from kschedlab.plugins.dynamic_resources import DynamicResources
from kschedlab.plugins.volume_binding import VolumeBinding, VolumeBindingState
from kschedlab.scheduler import Scheduler

NODE = """---
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}}
"""
POD = """---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default}
spec: {containers: [{name: c, resources: {requests: {cpu: 100m}}}]}
"""
KEY = "default/web"


def _answering(name: str, pre_flight: Status | None, calls: list[str] | None = None) -> type:
    """A PreBind plugin whose PreBindPreFlight answers ``pre_flight`` (None: it has no preflight)."""

    def pre_bind(self, state, pod_info, node_name):
        if calls is not None:
            calls.append(name)
        return Status()

    body: dict = {"name": name, "pre_bind": pre_bind}
    if pre_flight is not None:
        body["pre_bind_pre_flight"] = lambda self, state, pod_info, node_name: pre_flight
    return type(name, (Plugin,), body)


def _framework(*plugins: type) -> Framework:
    profile = {"plugins": {"multiPoint": {"disabled": [{"name": "*"}]},
                           "queueSort": {"enabled": [{"name": "PrioritySort"}]},
                           "bind": {"enabled": [{"name": "DefaultBinder"}]},
                           "preBind": {"enabled": [{"name": p.name} for p in plugins]}}}
    return Framework(profile, registry={p.name: p for p in plugins})


@pytest.mark.parametrize(("answers", "code", "skipped"), [
    ((Status.skip(), Status.skip()), Code.Skip, ["A", "B"]),
    ((Status.skip(), Status()), Code.Success, ["A"]),
    ((Status.skip(), None), Code.Success, ["A"]),  # no preflight: counts as Success
])
def test_run_pre_bind_pre_flights_aggregates_and_prebind_leaves_the_skipped_out(answers, code, skipped):
    calls: list[str] = []
    fw = _framework(*(_answering(n, a, calls) for n, a in zip("AB", answers)))
    state = CycleState()
    assert fw.run_pre_bind_pre_flights(state, None, "n1").code == code
    assert sorted(state.skip_pre_bind) == skipped
    assert fw.run_pre_bind(state, None, "n1").is_success()
    assert calls == [n for n in "AB" if n not in skipped]


def test_a_preflight_error_stops_at_its_plugin():
    fw = _framework(_answering("A", Status.error("boom")), _answering("B", Status(Code.Unschedulable)))
    status = fw.run_pre_bind_pre_flights(CycleState(), None, "n1")
    assert (status.code, status.message()) == (Code.Error, 'running PreBindPreFlight "A": boom')


@pytest.mark.parametrize("code", [Code.Unschedulable, Code.UnschedulableAndUnresolvable, Code.Wait])
def test_any_other_preflight_answer_is_an_error(code):
    status = _framework(_answering("A", Status(code, ("no",)))).run_pre_bind_pre_flights(CycleState(), None, "n1")
    assert status.code == Code.Error
    assert status.message() == (f'PreBindPreFlight A returned "{code.name}", which is unsupported. '
                                "It is supposed to return Success, Skip, or Error status")


class Hold(Plugin):
    """Permit: every pod waits."""

    name = "Hold"

    def permit(self, state, pod_info, node_name):
        return Status(Code.Wait), 30


HOLD = {"profiles": [{"plugins": {"permit": {"enabled": [{"name": "Hold"}]}}}]}


def _held(gates: dict | None = None, fast_path: bool = True) -> tuple[Cluster, Scheduler]:
    cluster = Cluster(load_text(NODE + POD))
    sched = Scheduler(cluster, HOLD, registry={"Hold": Hold}, gates=gates, fast_path=fast_path)
    assert sched.schedule_one(KEY).status.code == Code.Wait
    return cluster, sched


@pytest.mark.parametrize("fast_path", [True, False])
def test_a_pod_waiting_at_permit_shows_its_node_then_binding_clears_it(fast_path):
    cluster, sched = _held(fast_path=fast_path)
    pod = cluster.pods[KEY]
    assert pod.status.nominated_node_name == "n1"
    # the pod is assumed on n1, not nominated there: the nominator does not hold it twice
    assert cluster.nominator.nominated_pods_for_node("n1") == []
    result = sched.allow(KEY, "Hold")
    assert (result.node, result.trace.nominated_node_name) == ("n1", "n1")
    assert pod.status.nominated_node_name is None  # ClearingNominatedNodeNameAfterBinding


def test_without_clearing_after_binding_the_bound_pod_keeps_it():
    cluster, sched = _held({"ClearingNominatedNodeNameAfterBinding": False})
    assert sched.allow(KEY, "Hold").node == "n1"
    assert cluster.pods[KEY].status.nominated_node_name == "n1"


def test_the_gate_off_writes_nothing():
    cluster, sched = _held({"NominatedNodeNameForExpectation": False})
    assert cluster.pods[KEY].status.nominated_node_name is None
    assert sched.allow(KEY, "Hold").trace.nominated_node_name is None


def test_a_pod_rejected_while_waiting_loses_the_nomination():
    cluster, sched = _held()
    result = sched.reject(KEY, "Hold", "timed out")
    assert result.node is None and result.trace.nominated_node_name == "n1"
    assert cluster.pods[KEY].status.nominated_node_name is None
    assert cluster.nominator.nominated_node(KEY) is None
    assert KEY not in cluster.snapshot.pod_row


@pytest.mark.parametrize("fast_path", [True, False])
def test_a_pod_with_nothing_to_wait_for_gets_no_nomination(fast_path):
    cluster = Cluster(load_text(NODE + POD))
    written = []
    cluster_pod = cluster.pods[KEY]
    sched = Scheduler(cluster, fast_path=fast_path)
    sched.on_bound.append(lambda key, node: written.append(cluster_pod.status.nominated_node_name))
    result = sched.schedule_one(KEY)
    assert (result.node, result.trace.nominated_node_name, written) == ("n1", None, [None])


WFFC = """---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: standard}
provisioner: pd.csi.storage.gke.io
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: default}
spec: {accessModes: [ReadWriteOnce], storageClassName: standard, resources: {requests: {storage: 1Gi}}}
---
apiVersion: v1
kind: Pod
metadata: {name: db, namespace: default}
spec:
  containers: [{name: c}]
  volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]
"""


def test_volume_binding_has_prebind_work_for_an_unbound_claim():
    cluster = Cluster(load_text(NODE + WFFC))
    sched = Scheduler(cluster, gates={"ClearingNominatedNodeNameAfterBinding": False})
    result = sched.schedule_one("default/db")
    assert (result.node, result.trace.nominated_node_name) == ("n1", "n1")
    assert cluster.pods["default/db"].status.nominated_node_name == "n1"


def test_volume_binding_pre_flight_answers():
    plugin = VolumeBinding.build(None, None)
    state = CycleState()
    assert plugin.pre_bind_pre_flight(state, None, "n1").code == Code.Error
    state[VolumeBinding.name] = VolumeBindingState(skip=True)
    assert plugin.pre_bind_pre_flight(state, None, "n1").is_skip()
    state[VolumeBinding.name] = VolumeBindingState(all_bound=True)
    assert plugin.pre_bind_pre_flight(state, None, "n1").is_skip()
    state[VolumeBinding.name] = VolumeBindingState()
    assert plugin.pre_bind_pre_flight(state, None, "n1").message() == 'no pod volumes found for node "n1"'


def test_dynamic_resources_pre_flight_skips_a_pod_without_claims():
    cluster = Cluster(load_text(NODE + POD))
    fw = Scheduler(cluster).profiles["default-scheduler"]
    plugin = fw.plugins[DynamicResources.name]
    assert plugin.pre_bind_pre_flight(CycleState(), cluster.pod_infos[KEY], "n1").is_skip()


def test_a_nominated_pod_held_at_permit_is_counted_once_on_its_node():
    """A preemptor nominated to n1, then assumed there and held at Permit: the next pod's Filter
    on n1 sees it once (as assumed), not again as a nominated pod (upstream's assume drops it from
    the nominator; here RunFilterPluginsWithNominatedPods passes over a pod already placed)."""
    big = POD.replace("name: web", "name: big").replace("cpu: 100m", "cpu: 1500m")
    small = POD.replace("name: web", "name: small").replace("cpu: 100m", "cpu: 400m")
    cluster = Cluster(load_text(NODE + big + small))
    cluster.nominate("default/big", "n1")
    sched = Scheduler(cluster, HOLD, registry={"Hold": Hold}, fast_path=False)
    assert sched.schedule_one("default/big").status.code == Code.Wait
    assert cluster.pods["default/big"].status.nominated_node_name == "n1"
    assert sched.schedule_one("default/small").status.code == Code.Wait  # 1500m + 400m fit in 2 CPUs
