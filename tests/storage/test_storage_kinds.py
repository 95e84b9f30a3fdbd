"""The storage kinds: loading (a kubectl dump as it is), defaults, validation with field paths,
the claims controllers create, the cluster's lookups."""

import textwrap
from pathlib import Path

import pytest

from kschedlab.api import ManifestError, admit, load_text
from kschedlab.api.kinds import classify
from kschedlab.cluster import Cluster
from kschedlab.controllers.manifests import load_manifests

SHARED = Path(__file__).parents[2] / ".." / "shared" / "public-manifests"

DUMP = textwrap.dedent("""
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: PersistentVolume
  metadata:
    annotations: {pv.kubernetes.io/provisioned-by: ebs.csi.aws.com}
    creationTimestamp: "2024-05-01T10:00:00Z"
    name: pvc-0b6f
    resourceVersion: "1234"
    uid: 5f1b6c0e-1111-2222-3333-444455556666
  spec:
    accessModes: [ReadWriteOnce]
    capacity: {storage: 10Gi}
    claimRef: {apiVersion: v1, kind: PersistentVolumeClaim, name: data-db-0, namespace: prod,
               resourceVersion: "1200", uid: 0a0a0a0a-1111-2222-3333-444455556666}
    csi:
      driver: ebs.csi.aws.com
      fsType: ext4
      volumeAttributes: {storage.kubernetes.io/csiProvisionerIdentity: 1714-ebs}
      volumeHandle: vol-0123456789
    nodeAffinity:
      required:
        nodeSelectorTerms:
        - matchExpressions:
          - {key: topology.kubernetes.io/zone, operator: In, values: [eu-west-1a]}
    persistentVolumeReclaimPolicy: Delete
    storageClassName: gp3
    volumeMode: Filesystem
  status: {phase: Bound, lastPhaseTransitionTime: "2024-05-01T10:00:05Z"}
- apiVersion: v1
  kind: PersistentVolumeClaim
  metadata:
    annotations:
      pv.kubernetes.io/bind-completed: "yes"
      pv.kubernetes.io/bound-by-controller: "yes"
      volume.beta.kubernetes.io/storage-provisioner: ebs.csi.aws.com
      volume.kubernetes.io/selected-node: ip-10-0-1-5.eu-west-1.compute.internal
      volume.kubernetes.io/storage-provisioner: ebs.csi.aws.com
    finalizers: [kubernetes.io/pvc-protection]
    labels: {app: db}
    name: data-db-0
    namespace: prod
  spec:
    accessModes: [ReadWriteOnce]
    resources: {requests: {storage: 10Gi}}
    storageClassName: gp3
    volumeMode: Filesystem
    volumeName: pvc-0b6f
  status:
    accessModes: [ReadWriteOnce]
    capacity: {storage: 10Gi}
    phase: Bound
- allowVolumeExpansion: true
  apiVersion: storage.k8s.io/v1
  kind: StorageClass
  metadata:
    annotations: {storageclass.kubernetes.io/is-default-class: "true"}
    name: gp3
  parameters: {type: gp3}
  provisioner: ebs.csi.aws.com
  reclaimPolicy: Delete
  volumeBindingMode: WaitForFirstConsumer
  allowedTopologies:
  - matchLabelExpressions:
    - {key: topology.kubernetes.io/zone, values: [eu-west-1a, eu-west-1b]}
- apiVersion: storage.k8s.io/v1
  kind: CSINode
  metadata: {name: ip-10-0-1-5.eu-west-1.compute.internal}
  spec:
    drivers:
    - allocatable: {count: 25}
      name: ebs.csi.aws.com
      nodeID: i-0abc
      topologyKeys: [topology.kubernetes.io/zone]
- apiVersion: storage.k8s.io/v1
  kind: CSIDriver
  metadata: {name: ebs.csi.aws.com}
  spec: {attachRequired: true, podInfoOnMount: false, storageCapacity: true, fsGroupPolicy: File}
- apiVersion: storage.k8s.io/v1
  kind: CSIStorageCapacity
  metadata: {name: csisc-abc, namespace: kube-system}
  storageClassName: gp3
  capacity: 500Gi
  maximumVolumeSize: 16Ti
  nodeTopology: {matchLabels: {topology.kubernetes.io/zone: eu-west-1a}}
- apiVersion: storage.k8s.io/v1
  kind: VolumeAttachment
  metadata: {name: csi-123}
  spec: {attacher: ebs.csi.aws.com, nodeName: ip-10-0-1-5.eu-west-1.compute.internal,
         source: {persistentVolumeName: pvc-0b6f}}
  status: {attached: true}
""")


def test_kinds_are_read():
    for api_version, kind in [("v1", "PersistentVolume"), ("v1", "PersistentVolumeClaim"),
                              ("storage.k8s.io/v1", "StorageClass"), ("storage.k8s.io/v1", "CSINode"),
                              ("storage.k8s.io/v1", "CSIDriver"), ("storage.k8s.io/v1", "CSIStorageCapacity"),
                              ("storage.k8s.io/v1", "VolumeAttachment")]:
        assert classify(api_version, kind) == "read"
    assert classify("storage.k8s.io/v1", "VolumeAttributesClass") == "unused"


def test_kubectl_dump_loads_as_it_is_and_round_trips():
    objs = admit(load_text(DUMP, source="dump.yaml"))
    assert [o.kind for o in objs] == ["PersistentVolume", "PersistentVolumeClaim", "StorageClass", "CSINode",
                                      "CSIDriver", "CSIStorageCapacity", "VolumeAttachment"]
    pv, pvc, sc, csinode, driver, cap, va = objs
    assert pv.storage_capacity() == 10 << 30 and pv.claim_key() == "prod/data-db-0" and pv.source_name() == "csi"
    assert pvc.is_bound() and pvc.storage_class() == "gp3" and pvc.status.phase == "Bound"
    assert sc.is_wait_for_first_consumer() and sc.allowed_topologies[0].matches({"topology.kubernetes.io/zone": "eu-west-1b"})
    assert csinode.driver("ebs.csi.aws.com").allocatable.count == 25
    assert driver.spec.storage_capacity is True and driver.spec.requires_republish is False  # defaulted
    assert cap.maximum_volume_size.value() == 16 << 40
    assert va.status.attached is True
    again = load_text("\n---\n".join(__import__("yaml").safe_dump(o.model_dump(exclude_unset=True)) for o in objs))
    assert [o.model_dump() for o in admit(again)] == [o.model_dump() for o in objs]


def test_cluster_lookups():
    c = Cluster(admit(load_text(DUMP)))
    assert c.get("PersistentVolumeClaim", "prod/data-db-0").spec.volume_name == "pvc-0b6f"
    assert c.get("PersistentVolume", "pvc-0b6f").spec.csi.volume_handle == "vol-0123456789"
    assert c.get("StorageClass", "gp3").provisioner == "ebs.csi.aws.com"
    assert c.get("CSINode", "ip-10-0-1-5.eu-west-1.compute.internal") is not None
    assert c.get("PersistentVolumeClaim", "prod/nope") is None
    c.remove("PersistentVolumeClaim", "prod/data-db-0")
    assert c.get("PersistentVolumeClaim", "prod/data-db-0") is None


def test_defaults():
    pv, pvc, sc, driver = admit(load_text(textwrap.dedent("""
        apiVersion: v1
        kind: PersistentVolume
        metadata: {name: pv1}
        spec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce], hostPath: {path: /data}}
        ---
        apiVersion: v1
        kind: PersistentVolumeClaim
        metadata: {name: c}
        spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
        ---
        apiVersion: storage.k8s.io/v1
        kind: StorageClass
        metadata: {name: standard}
        provisioner: kubernetes.io/no-provisioner
        ---
        apiVersion: storage.k8s.io/v1
        kind: CSIDriver
        metadata: {name: hostpath.csi.k8s.io}
        """)))
    assert (pv.spec.persistent_volume_reclaim_policy, pv.spec.volume_mode, pv.status.phase) == (
        "Retain", "Filesystem", "Pending")
    assert (pvc.namespace, pvc.spec.volume_mode, pvc.status.phase) == ("default", "Filesystem", "Pending")
    assert (sc.reclaim_policy, sc.volume_binding_mode) == ("Delete", "Immediate")
    assert (driver.spec.attach_required, driver.spec.storage_capacity, driver.spec.fs_group_policy,
            driver.spec.volume_lifecycle_modes) == (True, False, "ReadWriteOnceWithFSType", ["Persistent"])


LABEL_VALUE = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
               "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used "
               "for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")


@pytest.mark.parametrize("doc, expected", [
    ("apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: c}\n"
     "spec: {accessModes: [ReadWriteMany, Sometimes], resources: {requests: {storage: 1Gi}}}",
     ['t.yaml: PersistentVolumeClaim default/c: spec.accessModes: Unsupported value: "Sometimes": '
      'supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"']),
    ("apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: c}\n"
     "spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: '-1Gi'}}, volumeMode: Raw}",
     ['t.yaml: PersistentVolumeClaim default/c: spec.resources[storage]: Invalid value: "-1Gi": '
      'must be greater than zero',
      't.yaml: PersistentVolumeClaim default/c: spec.volumeMode: Unsupported value: "Raw": '
      'supported values: "Block", "Filesystem"']),
    ("apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: pv}\nspec: {capacity: {storage: 1Gi}}",
     ["t.yaml: PersistentVolume pv: spec.accessModes: Required value",
      "t.yaml: PersistentVolume pv: spec: Required value: must specify a volume type"]),
    ("apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: pv}\nspec: {capacity: {storage: 1Gi}, "
     "accessModes: [ReadWriteOnce], hostPath: {path: /x}, nfs: {server: s, path: /}}",
     ["t.yaml: PersistentVolume pv: spec.nfs: Forbidden: may not specify more than 1 volume type"]),
    ("apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: s}\nprovisioner: p\n"
     "reclaimPolicy: Recycle\nvolumeBindingMode: WaitForever",
     ['t.yaml: StorageClass s: reclaimPolicy: Unsupported value: "Recycle": supported values: '
      '"Delete", "Retain"',
      't.yaml: StorageClass s: volumeBindingMode: Unsupported value: "WaitForever": supported '
      'values: "Immediate", "WaitForFirstConsumer"']),
    ("apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: s}",
     ["t.yaml: StorageClass s: provisioner: Required value"]),
    ("apiVersion: storage.k8s.io/v1\nkind: CSINode\nmetadata: {name: n1}\n"
     "spec: {drivers: [{name: d.example.com, allocatable: {count: -1}}]}",
     ["t.yaml: CSINode n1: spec.drivers[0].nodeID: Required value",
      't.yaml: CSINode n1: spec.drivers[0].allocatable.count: Invalid value: -1: must be greater '
      'than or equal to 0']),
    ("apiVersion: storage.k8s.io/v1\nkind: CSIStorageCapacity\nmetadata: {name: c, namespace: kube-system}\n"
     "capacity: '-1'",
     ["t.yaml: CSIStorageCapacity kube-system/c: storageClassName: Required value",
      't.yaml: CSIStorageCapacity kube-system/c: capacity: Invalid value: "-1": must be greater '
      'than or equal to 0']),
    # ValidateLabelSelector: labels first, then each expression's operator, key and values
    ("apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: c}\n"
     "spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}, selector: {matchLabels: {a: 'b c'}, "
     "matchExpressions: [{key: k, operator: Has}, {key: z, operator: In, values: ['x y']}]}}",
     [f't.yaml: PersistentVolumeClaim default/c: spec.selector.matchLabels: Invalid value: "b c": {LABEL_VALUE}',
      't.yaml: PersistentVolumeClaim default/c: spec.selector.matchExpressions[0].operator: Invalid value: "Has": '
      'not a valid selector operator',
      't.yaml: PersistentVolumeClaim default/c: spec.selector.matchExpressions[1].values[0]: Invalid value: "x y": '
      f'{LABEL_VALUE}']),
])
def test_validation_messages(doc, expected):
    with pytest.raises(ManifestError) as ei:
        admit(load_text(doc, source="t.yaml"))
    assert [str(e) for e in ei.value.errors] == expected


def test_unknown_volume_source_refused_every_other_loads():
    text = ("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c}]\n  volumes:\n"
            "  - {name: a, configMap: {name: x}}\n  - {name: b, projected: {sources: []}}\n"
            "  - {name: c, nfs: {server: s, path: /}}\n  - {name: d, floppyDisk: {}}\n")
    with pytest.raises(ManifestError) as ei:
        load_text(text, source="p.yaml")
    assert "spec.volumes[3].floppyDisk" in str(ei.value)
    pod = load_text(text.replace("  - {name: d, floppyDisk: {}}\n", ""))[0]
    assert [v.source_name() for v in pod.spec.volumes] == ["configMap", "projected", "nfs"]


def test_statefulset_and_ephemeral_claims_created_once():
    # OrderedReady: the first pod and its claim; zk-1 waits until zk-0 is Running and Ready
    ordered = load_manifests(SHARED / "web-zookeeper.yaml")
    assert [o.key for o in ordered if o.kind in ("Pod", "PersistentVolumeClaim")] == [
        "default/zk-0", "default/datadir-zk-0"]
    text = (SHARED / "web-zookeeper.yaml").read_text()
    objs = load_manifests(text=text.replace("podManagementPolicy: OrderedReady", "podManagementPolicy: Parallel"))
    claims = {o.key: o for o in objs if o.kind == "PersistentVolumeClaim"}
    assert sorted(claims) == ["default/datadir-zk-0", "default/datadir-zk-1", "default/datadir-zk-2"]
    assert claims["default/datadir-zk-0"].requested_storage() == 10 << 30
    pods = {o.name: o for o in objs if o.kind == "Pod"}
    assert [v.persistent_volume_claim.claim_name for v in pods["zk-1"].spec.volumes
            if v.persistent_volume_claim] == ["datadir-zk-1"]
    eph = load_manifests(text=textwrap.dedent("""
        apiVersion: v1
        kind: Pod
        metadata: {name: web, namespace: shop}
        spec:
          containers: [{name: c}]
          volumes:
          - name: scratch
            ephemeral:
              volumeClaimTemplate:
                metadata: {labels: {type: scratch}}
                spec: {accessModes: [ReadWriteOnce], storageClassName: fast, resources: {requests: {storage: 1Gi}}}
        """))
    pod, claim = eph
    assert claim.key == "shop/web-scratch" and claim.metadata.labels == {"type": "scratch"}
    ref = claim.metadata.owner_references[0]
    assert (ref.kind, ref.name, ref.uid, ref.controller) == ("Pod", "web", pod.metadata.uid, True)
    assert len(load_manifests(text="\n---\n".join(
        __import__("yaml").safe_dump(o.model_dump(exclude_unset=True)) for o in eph))) == 2
