"""Stateful workloads from the public manifests, scheduled end to end with VolumeBinding: claims
created by the controllers, bound or provisioned, pods placed where their volumes are, and the
pods that cannot run with upstream's messages."""

import textwrap
from pathlib import Path

import pytest

from kschedlab.cli import main
from kschedlab.cluster import Cluster
from kschedlab.controllers.manifests import load_manifests
from kschedlab.scheduler import Scheduler
from kschedlab.storage.pv_controller import PersistentVolumeController

SHARED = Path(__file__).parents[2] / ".." / "shared" / "public-manifests"
ZONE = "topology.kubernetes.io/zone"
UNBOUND = "0/4 nodes are available: pod has unbound immediate PersistentVolumeClaims."


def nodes_yaml(cpu: str = "8") -> str:
    docs = []
    for zone in "ab":
        for i in (1, 2):
            name = f"node-{zone}{i}"
            docs.append(f"apiVersion: v1\nkind: Node\nmetadata: {{name: {name}, labels: {{kubernetes.io/hostname: {name}, "
                        f"{ZONE}: zone-{zone}}}}}\nstatus: {{allocatable: {{cpu: '{cpu}', memory: 32Gi, pods: '110'}}}}\n")
    return "---\n".join(docs)


def zonal_class(name: str = "standard", zones=("zone-b",), default: bool = True,
                provisioner: str = "ebs.csi.aws.com") -> str:
    ann = "\n  annotations: {storageclass.kubernetes.io/is-default-class: 'true'}" if default else ""
    return textwrap.dedent(f"""\
        apiVersion: storage.k8s.io/v1
        kind: StorageClass
        metadata:
          name: {name}""") + ann + textwrap.dedent(f"""
        provisioner: {provisioner}
        volumeBindingMode: WaitForFirstConsumer
        allowedTopologies:
        - matchLabelExpressions:
          - {{key: {ZONE}, values: [{', '.join(zones)}]}}
        """)


def run(*texts: str, paths=()):
    objs = load_manifests(*paths, text="\n---\n".join(texts)) if texts else load_manifests(*paths)
    cluster = Cluster(objs)
    PersistentVolumeController(cluster).sync()
    results = {r.pod: r for r in Scheduler(cluster).run().history}
    return cluster, results


def test_cassandra_claims_provisioned_by_their_immediate_class():
    cluster, results = run(nodes_yaml(), paths=[SHARED / "cassandra-sts.yaml"])
    assert sorted(results) == ["default/cassandra-0", "default/cassandra-1", "default/cassandra-2"]
    assert all(r.node for r in results.values())
    for i in range(3):
        claim = cluster.get("PersistentVolumeClaim", f"default/cassandra-data-cassandra-{i}")
        assert claim.status.phase == "Bound" and claim.storage_class() == "fast"
        pv = cluster.get("PersistentVolume", claim.spec.volume_name)
        # Immediate binding: provisioned before any pod, so not pinned to a node
        assert pv.spec.node_affinity is None and pv.storage_capacity() == 1 << 30
        assert pv.spec.csi.driver == "k8s.io/minikube-hostpath" and pv.claim_key() == claim.key


def test_zookeeper_without_storage_class_stays_pending():
    # OrderedReady: zk-1 and zk-2 are never created while zk-0 waits for its claim
    cluster, results = run(nodes_yaml(), paths=[SHARED / "web-zookeeper.yaml"])
    assert {k: (r.node, r.message.split(" preemption:")[0]) for k, r in results.items()} == {
        "default/zk-0": (None, UNBOUND)}
    assert [c.status.phase for c in cluster.of_kind("PersistentVolumeClaim")] == ["Pending"]
    assert sorted(cluster.pods) == ["default/zk-0"]


def test_zookeeper_with_a_default_zonal_class_runs_in_that_zone():
    cluster, results = run(nodes_yaml(), zonal_class(), paths=[SHARED / "web-zookeeper.yaml"])
    assert all(results[f"default/zk-{i}"].node in ("node-b1", "node-b2") for i in range(3))
    for i in range(3):
        claim = cluster.get("PersistentVolumeClaim", f"default/datadir-zk-{i}")
        node = results[f"default/zk-{i}"].node
        assert claim.storage_class() == "standard"  # DefaultStorageClass admission
        assert claim.metadata.annotations["volume.kubernetes.io/selected-node"] == node
        pv = cluster.get("PersistentVolume", claim.spec.volume_name)
        term = pv.spec.node_affinity.required.node_selector_terms[0]
        assert [(r.key, r.values) for r in term.match_expressions] == [(ZONE, ["zone-b"])]


def test_wordpress_mysql_follows_its_local_volume():
    local_pv = textwrap.dedent("""
        apiVersion: v1
        kind: PersistentVolume
        metadata: {name: local-a1}
        spec:
          capacity: {storage: 50Gi}
          accessModes: [ReadWriteOnce]
          local: {path: /mnt/disks/ssd1}
          nodeAffinity: {required: {nodeSelectorTerms: [{matchExpressions: [
            {key: kubernetes.io/hostname, operator: In, values: [node-a1]}]}]}}
        status: {phase: Available}
        """)
    cluster, results = run(nodes_yaml(), local_pv, paths=[SHARED / "web-wordpress-mysql.yaml"])
    mysql = next(r for k, r in results.items() if "wordpress-mysql" in k)
    assert mysql.node == "node-a1"
    assert cluster.get("PersistentVolumeClaim", "default/mysql-pv-claim").spec.volume_name == "local-a1"


def test_bound_volume_in_a_full_zone_leaves_the_pod_pending():
    pv = textwrap.dedent(f"""
        apiVersion: v1
        kind: PersistentVolume
        metadata: {{name: disk-a}}
        spec:
          capacity: {{storage: 10Gi}}
          accessModes: [ReadWriteOnce]
          storageClassName: standard
          csi: {{driver: ebs.csi.aws.com, volumeHandle: vol-a}}
          claimRef: {{namespace: default, name: data}}
          nodeAffinity: {{required: {{nodeSelectorTerms: [{{matchExpressions: [
            {{key: {ZONE}, operator: In, values: [zone-a]}}]}}]}}}}
        status: {{phase: Bound}}
        ---
        apiVersion: v1
        kind: PersistentVolumeClaim
        metadata: {{name: data, annotations: {{pv.kubernetes.io/bind-completed: "yes"}}}}
        spec: {{accessModes: [ReadWriteOnce], resources: {{requests: {{storage: 10Gi}}}}, storageClassName: standard,
               volumeName: disk-a}}
        status: {{phase: Bound}}
        ---
        apiVersion: v1
        kind: Pod
        metadata: {{name: db}}
        spec:
          containers: [{{name: db, resources: {{requests: {{cpu: '6'}}}}}}]
          volumes: [{{name: data, persistentVolumeClaim: {{claimName: data}}}}]
        ---
        apiVersion: v1
        kind: Pod
        metadata: {{name: busy-1}}
        spec: {{nodeName: node-a1, containers: [{{name: c, resources: {{requests: {{cpu: '4'}}}}}}]}}
        ---
        apiVersion: v1
        kind: Pod
        metadata: {{name: busy-2}}
        spec: {{nodeName: node-a2, containers: [{{name: c, resources: {{requests: {{cpu: '4'}}}}}}]}}
        """)
    _, results = run(nodes_yaml(), zonal_class(zones=("zone-a", "zone-b")), pv)
    db = results["default/db"]
    assert db.node is None
    assert db.message.startswith("0/4 nodes are available: 2 Insufficient cpu, "
                                 "2 node(s) had volume node affinity conflict.")


def test_missing_claim_and_ephemeral_volume():
    text = textwrap.dedent("""
        apiVersion: v1
        kind: Pod
        metadata: {name: orphan}
        spec:
          containers: [{name: c}]
          volumes: [{name: data, persistentVolumeClaim: {claimName: nowhere}}]
        ---
        apiVersion: v1
        kind: Pod
        metadata: {name: scratch}
        spec:
          containers: [{name: c}]
          volumes:
          - name: tmp
            ephemeral:
              volumeClaimTemplate:
                spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 5Gi}}}
        """)
    cluster, results = run(nodes_yaml(), zonal_class(), text)
    assert results["default/orphan"].node is None
    assert results["default/orphan"].message.startswith(
        '0/4 nodes are available: persistentvolumeclaim "nowhere" not found.')
    assert results["default/scratch"].node in ("node-b1", "node-b2")
    claim = cluster.get("PersistentVolumeClaim", "default/scratch-tmp")
    assert claim.status.phase == "Bound" and claim.metadata.owner_references[0].name == "scratch"


CAPACITY = textwrap.dedent("""
    apiVersion: storage.k8s.io/v1
    kind: CSIDriver
    metadata: {name: ebs.csi.aws.com}
    spec: {storageCapacity: true}
    ---
    apiVersion: storage.k8s.io/v1
    kind: CSIStorageCapacity
    metadata: {name: cap-a, namespace: kube-system}
    storageClassName: standard
    capacity: %s
    nodeTopology: {matchLabels: {topology.kubernetes.io/zone: zone-a}}
    ---
    apiVersion: storage.k8s.io/v1
    kind: CSIStorageCapacity
    metadata: {name: cap-b, namespace: kube-system}
    storageClassName: standard
    capacity: %s
    nodeTopology: {matchLabels: {topology.kubernetes.io/zone: zone-b}}
    ---
    apiVersion: v1
    kind: PersistentVolumeClaim
    metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 10Gi}}}
    ---
    apiVersion: v1
    kind: Pod
    metadata: {name: db}
    spec:
      containers: [{name: db}]
      volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]
    """)


@pytest.mark.parametrize("cap_a, cap_b, zone, score_a, score_b", [
    ("100Gi", "20Gi", "zone-a", 90, 50),   # 10% vs 50% used: the emptier zone scores higher
    ("5Gi", "20Gi", "zone-b", None, 50),   # zone-a cannot hold 10Gi
])
def test_storage_capacity_filters_and_scores(cap_a, cap_b, zone, score_a, score_b):
    cluster, results = run(nodes_yaml(), zonal_class(zones=("zone-a", "zone-b")), CAPACITY % (cap_a, cap_b))
    db = results["default/db"]
    assert cluster.nodes[db.node].metadata.labels[ZONE] == zone
    score = db.trace.score
    names = [cluster.snapshot.names[int(r)] for r in score.rows]
    raw = dict(zip(names, score.raw[score.plugins.index("VolumeBinding")]))
    assert {n: int(v) for n, v in raw.items()} == {
        **({"node-a1": score_a, "node-a2": score_a} if score_a is not None else {}),
        "node-b1": score_b, "node-b2": score_b}
    # the provisioner's next capacity report shows the volume taken
    cap = cluster.get("CSIStorageCapacity", f"kube-system/cap-{zone[-1]}")
    assert cap.capacity.value() == (int((cap_a if zone == "zone-a" else cap_b)[:-2]) - 10) << 30


def test_not_enough_storage_anywhere():
    cluster, results = run(nodes_yaml(), zonal_class(zones=("zone-a", "zone-b")), CAPACITY % ("5Gi", "8Gi"))
    assert results["default/db"].message.startswith(
        "0/4 nodes are available: 4 node(s) did not have enough free storage.")


def test_cli_prints_claims(capsys, tmp_path):
    (tmp_path / "nodes.yaml").write_text(nodes_yaml())
    (tmp_path / "sc.yaml").write_text(zonal_class())
    assert main(["schedule", str(tmp_path / "nodes.yaml"), str(tmp_path / "sc.yaml"),
                 str(SHARED / "web-zookeeper.yaml")]) == 0
    out = capsys.readouterr().out
    assert out.count("Running  node-b") == 3
    assert "persistentvolumeclaim default/datadir-zk-0: bound to pvc-" in out and "(10Gi), class standard" in out


def test_preemption_stays_in_the_volumes_zone():
    """A high-priority pod whose bound volume lives in zone-a preempts there, never in zone-b
    (VolumeBinding rejects zone-b as unresolvable, so preemption does not try it)."""
    text = textwrap.dedent(f"""
        apiVersion: scheduling.k8s.io/v1
        kind: PriorityClass
        metadata: {{name: high}}
        value: 1000
        ---
        apiVersion: v1
        kind: PersistentVolume
        metadata: {{name: disk-a}}
        spec:
          capacity: {{storage: 10Gi}}
          accessModes: [ReadWriteOnce]
          hostPath: {{path: /data}}
          nodeAffinity: {{required: {{nodeSelectorTerms: [{{matchExpressions: [
            {{key: {ZONE}, operator: In, values: [zone-a]}}]}}]}}}}
        status: {{phase: Available}}
        ---
        apiVersion: v1
        kind: PersistentVolumeClaim
        metadata: {{name: data}}
        spec: {{accessModes: [ReadWriteOnce], resources: {{requests: {{storage: 5Gi}}}}, storageClassName: ""}}
        """)
    for node in ("node-a1", "node-a2", "node-b1", "node-b2"):
        text += textwrap.dedent(f"""
            ---
            apiVersion: v1
            kind: Pod
            metadata: {{name: low-{node}}}
            spec: {{nodeName: {node}, containers: [{{name: c, resources: {{requests: {{cpu: '7'}}}}}}]}}
            """)
    text += textwrap.dedent("""
        ---
        apiVersion: v1
        kind: Pod
        metadata: {name: db}
        spec:
          priorityClassName: high
          containers: [{name: db, resources: {requests: {cpu: '4'}}}]
          volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]
        """)
    cluster, results = run(nodes_yaml(), text)
    assert cluster.get("PersistentVolumeClaim", "default/data").spec.volume_name == "disk-a"  # Immediate: bound first
    db = results["default/db"]
    assert db.node in ("node-a1", "node-a2")
    victims = [k for k in ("default/low-node-a1", "default/low-node-a2", "default/low-node-b1", "default/low-node-b2")
               if k not in cluster.pods]
    assert victims == [f"default/low-{db.node}"]
