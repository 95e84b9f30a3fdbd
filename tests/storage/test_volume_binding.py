"""VolumeBinding's own behaviour beyond the upstream tables: the assume cache across pods,
Unreserve, the QueueingHints, args, and the fast path staying on for pods without claims."""

import textwrap

from kschedlab.api.loader import load_text
from kschedlab.api.persistentvolume import PersistentVolumeClaim
from kschedlab.api.storage import CSIStorageCapacity, StorageClass
from kschedlab.cluster import Cluster
from kschedlab.framework.events import QUEUE, SKIP
from kschedlab.framework.interface import CycleState
from kschedlab.plugins import volume_binding as vb
from kschedlab.scheduler import Scheduler

ONE_PV = textwrap.dedent("""
    apiVersion: v1
    kind: Node
    metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
    status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
    ---
    apiVersion: storage.k8s.io/v1
    kind: StorageClass
    metadata: {name: local}
    provisioner: kubernetes.io/no-provisioner
    volumeBindingMode: WaitForFirstConsumer
    ---
    apiVersion: v1
    kind: PersistentVolume
    metadata: {name: only}
    spec: {capacity: {storage: 10Gi}, accessModes: [ReadWriteOnce], storageClassName: local, local: {path: /d},
           nodeAffinity: {required: {nodeSelectorTerms: [{matchExpressions: [
             {key: kubernetes.io/hostname, operator: In, values: [n1]}]}]}}}
    status: {phase: Available}
    """)


def claim_and_pod(name: str) -> str:
    return textwrap.dedent(f"""
        ---
        apiVersion: v1
        kind: PersistentVolumeClaim
        metadata: {{name: {name}, namespace: default}}
        spec: {{accessModes: [ReadWriteOnce], storageClassName: local, resources: {{requests: {{storage: 5Gi}}}}}}
        ---
        apiVersion: v1
        kind: Pod
        metadata: {{name: {name}, namespace: default}}
        spec:
          containers: [{{name: c}}]
          volumes: [{{name: data, persistentVolumeClaim: {{claimName: {name}}}}}]
        """)


def test_an_assumed_volume_is_taken_for_the_next_pod_until_unreserved():
    cluster = Cluster(load_text(ONE_PV + claim_and_pod("a") + claim_and_pod("b")))
    sched = Scheduler(cluster)
    plugin = sched.profiles["default-scheduler"].plugins["VolumeBinding"]
    rows = cluster.snapshot.order
    state_a, state_b = CycleState(), CycleState()
    a, b = cluster.pod_infos["default/a"], cluster.pod_infos["default/b"]
    plugin.pre_filter(state_a, a, cluster.snapshot)
    assert plugin.filter_nodes(state_a, a, cluster.snapshot, rows).status(0).is_success()
    assert plugin.reserve(state_a, a, "n1").is_success()
    assert plugin.binder.assumed_pvs["only"].claim_key() == "default/a"
    plugin.pre_filter(state_b, b, cluster.snapshot)
    status = plugin.filter_nodes(state_b, b, cluster.snapshot, rows).status(0)
    assert status.reasons == ("node(s) didn't find available persistent volumes to bind",)
    plugin.unreserve(state_a, a, "n1")
    assert not plugin.binder.assumed_pvs
    state_b = CycleState()
    plugin.pre_filter(state_b, b, cluster.snapshot)
    assert plugin.filter_nodes(state_b, b, cluster.snapshot, rows).status(0).is_success()


def test_two_pods_one_volume_through_the_scheduler():
    cluster = Cluster(load_text(ONE_PV + claim_and_pod("a") + claim_and_pod("b")))
    results = {r.pod: r for r in Scheduler(cluster).run().history}
    assert results["default/a"].node == "n1"
    assert results["default/b"].node is None
    assert "node(s) didn't find available persistent volumes to bind" in results["default/b"].message
    assert cluster.get("PersistentVolume", "only").status.phase == "Bound"


def test_hints():
    pod = load_text(claim_and_pod("a"))[1]
    claim = PersistentVolumeClaim.model_validate({"metadata": {"name": "a", "namespace": "default"}})
    other_ns = PersistentVolumeClaim.model_validate({"metadata": {"name": "a", "namespace": "other"}})
    assert vb.after_claim_change(pod, None, claim) == QUEUE
    assert vb.after_claim_change(pod, None, other_ns) == SKIP
    sc = StorageClass.model_validate({"metadata": {"name": "s"}, "provisioner": "p"})
    topo = StorageClass.model_validate({"metadata": {"name": "s"}, "provisioner": "p", "allowedTopologies": [
        {"matchLabelExpressions": [{"key": "zone", "values": ["a"]}]}]})
    assert vb.after_storage_class_change(pod, None, sc) == QUEUE
    assert vb.after_storage_class_change(pod, sc, sc) == SKIP
    assert vb.after_storage_class_change(pod, sc, topo) == QUEUE
    small = CSIStorageCapacity.model_validate({"metadata": {"name": "c"}, "capacity": "1Gi"})
    big = CSIStorageCapacity.model_validate({"metadata": {"name": "c"}, "capacity": "1Gi", "maximumVolumeSize": "2Gi"})
    assert vb.after_capacity_change(pod, small, big) == QUEUE
    assert vb.after_capacity_change(pod, big, small) == SKIP


def test_args_and_score_gate():
    from kschedlab.features import FeatureGates
    from kschedlab.framework.runtime import Handle

    plugin = vb.VolumeBinding.build({}, Handle(FeatureGates({"StorageCapacityScoring": False}), None, None))
    assert plugin.scorer is None and plugin.args.bind_timeout_seconds == 600
    assert plugin.pre_score(CycleState(), None, None, []).is_skip()


def test_fast_path_serves_pods_without_claims_and_not_the_others():
    cluster = Cluster(load_text(ONE_PV + claim_and_pod("a") + textwrap.dedent("""
        ---
        apiVersion: v1
        kind: Pod
        metadata: {name: plain, namespace: default}
        spec: {containers: [{name: c, resources: {requests: {cpu: 100m}}}]}
        """)))
    fast = Scheduler(cluster).fast_paths["default-scheduler"]
    assert fast is not None
    assert fast.plan(cluster.pod_infos["default/plain"], cluster.snapshot) is not None
    assert fast.plan(cluster.pod_infos["default/a"], cluster.snapshot) is None
