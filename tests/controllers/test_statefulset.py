"""The StatefulSet controller's ordered creation (upstream ``processReplica``): an OrderedReady set
gets one pod at a time, each once the pods before it are Running and Ready; Parallel gets all."""

import json
import textwrap

import pytest

from kschedlab.api.loader import load_text
from kschedlab.apiserver.apply import RefusedObjectsWarning
from kschedlab.cli import main
from kschedlab.cluster import Cluster
from kschedlab.controllers.manifests import load_manifests
from kschedlab.controllers.statefulset import StatefulSetController, waiting_sets
from kschedlab.controllers.workloads import expand_statefulset
from kschedlab.scheduler import Scheduler
from kschedlab.sim.engine import Simulation
from kschedlab.storage.pv_controller import PersistentVolumeController

NODE = """
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
"""


def sts(replicas: int = 4, cpu: str = "1500m", policy: str = "OrderedReady") -> str:
    return textwrap.dedent(f"""
        apiVersion: apps/v1
        kind: StatefulSet
        metadata: {{name: db, namespace: default, uid: sts-uid}}
        spec:
          serviceName: db
          replicas: {replicas}
          podManagementPolicy: {policy}
          selector: {{matchLabels: {{app: db}}}}
          template:
            metadata: {{labels: {{app: db}}}}
            spec: {{containers: [{{name: pg, image: postgres, resources: {{requests: {{cpu: {cpu}}}}}}}]}}
        """)


def pod(name: str, *, ready: bool = True, phase: str = "Running", owner: str = "sts-uid", deleting: bool = False):
    meta = {"name": name, "namespace": "default", "labels": {"app": "db"},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "db", "uid": owner,
                                 "controller": True}]}
    if deleting:
        meta["deletionTimestamp"] = "2026-12-07T00:00:00Z"
    status = {"phase": phase, "conditions": [{"type": "Ready", "status": "True" if ready else "False"}]}
    (p,) = load_text(__import__("yaml").safe_dump({"apiVersion": "v1", "kind": "Pod", "metadata": meta,
                                                  "spec": {"nodeName": "n1", "containers": [{"name": "pg"}]},
                                                  "status": status}))
    return p


@pytest.mark.parametrize("pods, created", [
    ([], ["db-0"]),
    ([pod("db-0")], ["db-1"]),
    ([pod("db-0"), pod("db-1")], ["db-2"]),
    ([pod("db-0", ready=False)], []),                       # Running but not Ready
    ([pod("db-0", phase="Pending", ready=False)], []),
    ([pod("db-0", deleting=True)], []),                     # terminating
    ([pod("db-0"), pod("db-2")], ["db-1"]),                 # a gap is filled first
    ([pod("db-0", owner="other")], []),                     # db-0 is another controller's: AlreadyExists
    ([pod("db-0"), pod("db-1", ready=False), pod("db-3")], []),
])
def test_ordered_ready_creates_one_pod_once_the_ones_before_are_running_and_ready(pods, created):
    (s,) = load_text(sts())
    assert [p.name for p in expand_statefulset(s, pods)] == created


def test_parallel_creates_every_missing_pod_at_once():
    (s,) = load_text(sts(policy="Parallel"))
    assert [p.name for p in expand_statefulset(s, [pod("db-1", ready=False)])] == ["db-0", "db-2", "db-3"]


def test_the_scheduler_run_places_a_set_one_pod_at_a_time():
    # room for two pods of 1500m: db-2 is created and stays pending; db-3 is never created
    cluster = Cluster(load_manifests(text=NODE + "---" + sts()))
    assert sorted(cluster.pods) == ["default/db-0"]
    run = Scheduler(cluster).run()
    assert [(p.name, p.pod_status) for p in run.pods] == [
        ("default/db-0", "Running"), ("default/db-1", "Running"), ("default/db-2", "Pending")]
    assert sorted(cluster.pods) == ["default/db-0", "default/db-1", "default/db-2"]
    assert waiting_sets(cluster, lambda p: bool(p.spec.node_name)) == [
        ("StatefulSet default/db", "db-3 is created once db-2 is Running and Ready (3 of 4 pods)")]


def test_parallel_sets_are_created_whole_and_not_waited_on():
    cluster = Cluster(load_manifests(text=NODE + "---" + sts(policy="Parallel")))
    assert len(cluster.pods) == 4
    Scheduler(cluster).run()
    assert waiting_sets(cluster) == []


def test_a_pod_the_api_server_refuses_stops_the_set_there():
    limits = textwrap.dedent("""
        apiVersion: v1
        kind: LimitRange
        metadata: {name: small, namespace: default}
        spec: {limits: [{type: Container, max: {cpu: "1"}}]}
        """)
    with pytest.warns(RefusedObjectsWarning, match="create Pod db-0 in StatefulSet db failed"):
        objs = load_manifests(text=NODE + "---" + limits + "---" + sts())
    assert [r.obj.key for r in objs.refused] == ["default/db-0"]
    assert [e.message.split(" failed error: ")[0] for e in objs.events] == ["create Pod db-0 in StatefulSet db"]
    assert not [o for o in objs if o.kind == "Pod"]


def test_a_quota_refuses_a_pod_the_controller_creates_while_the_run_goes_on():
    quota = textwrap.dedent("""
        apiVersion: v1
        kind: ResourceQuota
        metadata: {name: two, namespace: default}
        spec: {hard: {count/pods: "2"}}
        """)
    cluster = Cluster(load_manifests(text=NODE + "---" + quota + "---" + sts(cpu="100m")))
    run = Scheduler(cluster).run()
    assert [p.name for p in run.pods] == ["default/db-0", "default/db-1"]
    assert [(r.obj.key, r.reason) for r in cluster.refused] == [("default/db-2", "Forbidden")]
    assert "exceeded quota: two" in cluster.refused[0].message
    assert [e.reason for e in cluster.events] == ["FailedCreate"]


def test_the_next_pod_gets_its_claims_and_binds_them_to_volumes_made_available():
    # PersistentVolumes applied without a status become Available (the PV controller's syncVolume)
    volumes = "".join(textwrap.dedent(f"""
        ---
        apiVersion: v1
        kind: PersistentVolume
        metadata: {{name: pv-{i}}}
        spec:
          capacity: {{storage: 10Gi}}
          accessModes: [ReadWriteOnce]
          storageClassName: local
          local: {{path: /mnt/{i}}}
          nodeAffinity: {{required: {{nodeSelectorTerms: [{{matchExpressions:
            [{{key: kubernetes.io/hostname, operator: In, values: [n1]}}]}}]}}}}
        """) for i in range(2))
    claims = ("  volumeClaimTemplates:\n  - metadata: {name: data}\n"
              "    spec: {accessModes: [ReadWriteOnce], storageClassName: local, resources: {requests: {storage: 5Gi}}}\n")
    storage_class = textwrap.dedent("""
        apiVersion: storage.k8s.io/v1
        kind: StorageClass
        metadata: {name: local}
        provisioner: kubernetes.io/no-provisioner
        volumeBindingMode: WaitForFirstConsumer
        """)
    cluster = Cluster(load_manifests(text=NODE + volumes + "---" + storage_class + "---" + sts(3, "100m") + claims))
    assert {pv.status.phase for pv in cluster.of_kind("PersistentVolume")} == {"Pending"}  # as created
    PersistentVolumeController(cluster).sync()  # kube-controller-manager's, before the scheduler looks
    assert {pv.status.phase for pv in cluster.of_kind("PersistentVolume")} == {"Available"}
    run = Scheduler(cluster).run()
    assert [(p.name, p.node) for p in run.pods] == [("default/db-0", "n1"), ("default/db-1", "n1"),
                                                    ("default/db-2", None)]
    bound = {c.key: c.spec.volume_name for c in cluster.of_kind("PersistentVolumeClaim")}
    assert bound == {"default/data-db-0": "pv-0", "default/data-db-1": "pv-1", "default/data-db-2": None}


def test_a_simulation_creates_the_next_pod_when_the_kubelet_starts_the_one_before():
    sim = Simulation(load_manifests(text=NODE + "---" + sts(3, "100m")))
    sim.run()
    assert sorted((k, p.spec.node_name) for k, p in sim.cluster.pods.items()) == [
        ("default/db-0", "n1"), ("default/db-1", "n1"), ("default/db-2", "n1")]


def test_the_controller_leaves_pods_of_other_owners_alone():
    cluster = Cluster(load_manifests(text=NODE + "---" + sts()))
    assert StatefulSetController(cluster).became_ready("default/nope") == []


def test_kschedlab_schedule_says_which_pod_a_set_waits_on(tmp_path, capsys):
    path = tmp_path / "db.yaml"
    path.write_text(NODE + "---" + sts())
    assert main(["schedule", str(path)]) == 0
    out = capsys.readouterr().out
    assert "default/db-2" in out and "default/db-3" not in out
    assert ("StatefulSet default/db: db-3 is created once db-2 is Running and Ready (3 of 4 pods) "
            "(podManagementPolicy OrderedReady)") in out


def test_kschedlab_simulate_says_which_pod_a_set_waits_on(tmp_path, capsys):
    # the simulation's kubelet starts what is bound: the set stops at the pod no node holds
    path = tmp_path / "db.yaml"
    path.write_text(NODE + "---" + sts())
    assert main(["simulate", str(path)]) == 0
    out = capsys.readouterr().out
    assert "default/db-2" in out and "default/db-3" not in out
    line = "db-3 is created once db-2 is Running and Ready (3 of 4 pods) (podManagementPolicy OrderedReady)"
    assert f"StatefulSet default/db: {line}" in out
    assert main(["simulate", str(path), "-o", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["notStarted"] == [
        {"object": "StatefulSet default/db", "node": None, "reason": line}]
