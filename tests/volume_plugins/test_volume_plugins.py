"""VolumeZone, VolumeRestrictions and NodeVolumeLimits end to end: manifests in, placements and
messages out, as kube-scheduler v1.37 gives them (the plugins' own tables are in
``tests/conformance/volumezone``, ``volumerestrictions`` and ``nodevolumelimits``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kschedlab.api import load_manifests
from kschedlab.api.loader import load_text
from kschedlab.cluster import Cluster
from kschedlab.framework.interface import CycleState
from kschedlab.scheduler import Scheduler

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared" / "public-manifests"

ZONE_CONFLICT = "node(s) had no available volume zone"
RWOP_CONFLICT = "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode"
DISK_CONFLICT = "node(s) had no available disk"
MAX_VOLUMES = "node(s) exceed max volume count"


def node(name: str, zone: str | None = None, cpu: str = "4") -> str:
    labels = f"labels: {{topology.kubernetes.io/zone: {zone}}}, " if zone else ""
    return f"""---
apiVersion: v1
kind: Node
metadata: {{name: {name}, {labels}}}
status: {{allocatable: {{cpu: "{cpu}", memory: 8Gi, pods: "110"}}}}
"""


def bound_claim(name: str, pv: str, *, mode: str = "ReadWriteOnce", zone: str | None = None,
                driver: str = "pd.csi.storage.gke.io", namespace: str = "default") -> str:
    """A PV and the claim bound to it, as the PV controller leaves them."""
    labels = f"labels: {{topology.kubernetes.io/zone: {zone}}}, " if zone else ""
    return f"""---
apiVersion: v1
kind: PersistentVolume
metadata: {{name: {pv}, {labels}}}
spec:
  capacity: {{storage: 10Gi}}
  accessModes: [{mode}]
  storageClassName: ""
  claimRef: {{namespace: {namespace}, name: {name}}}
  csi: {{driver: {driver}, volumeHandle: {pv}}}
status: {{phase: Bound}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {{name: {name}, namespace: {namespace}, annotations: {{pv.kubernetes.io/bind-completed: "yes"}}}}
spec: {{accessModes: [{mode}], storageClassName: "", volumeName: {pv}, resources: {{requests: {{storage: 10Gi}}}}}}
status: {{phase: Bound, accessModes: [{mode}], capacity: {{storage: 10Gi}}}}
"""


def pod(name: str, volumes: str, *, node_name: str | None = None, priority: int | None = None,
        cpu: str = "100m") -> str:
    extra = (f"  nodeName: {node_name}\n" if node_name else "") + (f"  priority: {priority}\n" if priority is not None else "")
    return f"""---
apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: default}}
spec:
{extra}  containers: [{{name: c, image: busybox, resources: {{requests: {{cpu: {cpu}}}}}}}]
  volumes: {volumes}
"""


def claim_volume(claim: str) -> str:
    return f"[{{name: data, persistentVolumeClaim: {{claimName: {claim}}}}}]"


def csi_node(name: str, driver: str, count: int) -> str:
    return f"""---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {{name: {name}}}
spec: {{drivers: [{{name: {driver}, nodeID: {name}, allocatable: {{count: {count}}}}}]}}
"""


def run(text: str, **kw):
    cluster = Cluster(load_text(text))
    result = Scheduler(cluster, **kw).run()
    return cluster, {p.name: p for p in result.pods}


# -- VolumeZone ----------------------------------------------------------------------------------
def test_zonal_volumes_decide_the_zone_of_their_pods():
    text = (node("east-1", "east") + node("west-1", "west")
            + bound_claim("data-east", "pv-east", zone="east") + bound_claim("data-west", "pv-west", zone="west")
            + pod("db-east", claim_volume("data-east")) + pod("db-west", claim_volume("data-west")))
    for seed in range(3):  # whatever the tie draw, the volume's zone decides
        _, pods = run(text, seed=seed)
        assert pods["default/db-east"].node == "east-1"
        assert pods["default/db-west"].node == "west-1"


def test_a_volume_of_a_zone_without_nodes_leaves_its_pod_pending_with_upstreams_message():
    cluster = Cluster(load_text(node("east-1", "east") + node("east-2", "east")
                                + bound_claim("data", "pv-west", zone="west") + pod("db", claim_volume("data"))))
    result = Scheduler(cluster).schedule_one("default/db")
    assert result.node is None
    assert result.message == (f"0/2 nodes are available: 2 {ZONE_CONFLICT}. preemption: 0/2 nodes are available: "
                              "2 Preemption is not helpful for scheduling.")
    assert {st.plugin for st in result.trace.filter_statuses().values()} == {"VolumeZone"}


# -- VolumeRestrictions --------------------------------------------------------------------------
RWOP = node("n1") + node("n2") + bound_claim("shared", "pv-shared", mode="ReadWriteOncePod")


def test_a_read_write_once_pod_claim_admits_one_pod_the_second_stays_pending():
    _, pods = run(RWOP + pod("first", claim_volume("shared")) + pod("second", claim_volume("shared")))
    assert pods["default/first"].pod_status == "Running"
    second = pods["default/second"]
    assert second.pod_status == "Pending" and second.node is None
    assert second.message == (f"0/2 nodes are available: 2 {RWOP_CONFLICT}. preemption: 0/2 nodes are available: "
                              "2 No preemption victims found for incoming pod.")


def test_preemption_frees_a_read_write_once_pod_claim_held_by_a_lower_priority_pod():
    text = RWOP + pod("holder", claim_volume("shared"), node_name="n1", priority=10) \
        + pod("urgent", claim_volume("shared"), priority=1000)
    cluster, pods = run(text)
    urgent = pods["default/urgent"]
    assert urgent.pod_status == "Running"
    assert [(v.pod, v.node) for v in urgent.victims] == [("default/holder", "n1")]
    assert pods["default/holder"].pod_status == "Terminating"
    # the claim could only be freed on the holder's node: the preemptor binds there
    assert urgent.node == "n1"


def test_a_higher_priority_holder_is_not_preempted():
    text = RWOP + pod("holder", claim_volume("shared"), node_name="n1", priority=1000) \
        + pod("late", claim_volume("shared"), priority=10)
    cluster, pods = run(text)
    assert pods["default/late"].pod_status == "Pending" and not pods["default/late"].victims
    assert cluster.pods["default/holder"].spec.node_name == "n1"


def test_the_same_ebs_volume_is_mounted_by_one_pod_per_node():
    ebs = "[{name: disk, awsElasticBlockStore: {volumeID: vol-0a1b}}]"
    _, pods = run(node("n1") + pod("a", ebs) + pod("b", ebs))
    assert pods["default/a"].pod_status == "Running"
    assert pods["default/b"].pod_status == "Pending"
    assert DISK_CONFLICT in pods["default/b"].message


def test_pre_filter_extensions_follow_the_claim_holders():
    from kschedlab.plugins.volume_restrictions import PRE_FILTER_STATE_KEY, VolumeRestrictions

    cluster = Cluster(load_text(RWOP + pod("holder", claim_volume("shared"), node_name="n1")
                                + pod("next", claim_volume("shared"))))
    sched = Scheduler(cluster)
    plugin = sched.profiles["default-scheduler"].plugins[VolumeRestrictions.name]
    state = CycleState()
    _, status = plugin.pre_filter(state, cluster.pod_infos["default/next"], cluster.snapshot)
    assert status.is_success() and state[PRE_FILTER_STATE_KEY].conflicting_claim_ref_count == 1
    copy = state[PRE_FILTER_STATE_KEY].clone()
    holder = cluster.pod_infos["default/holder"]
    node_info = cluster.snapshot.node_info("n1")
    assert plugin.remove_pod(state, None, holder, node_info).is_success()
    assert state[PRE_FILTER_STATE_KEY].conflicting_claim_ref_count == 0 and copy.conflicting_claim_ref_count == 1
    plugin.add_pod(state, None, holder, node_info)
    assert state[PRE_FILTER_STATE_KEY].conflicting_claim_ref_count == 1


# -- NodeVolumeLimits ----------------------------------------------------------------------------
EBS = "ebs.csi.aws.com"


def test_a_node_at_its_csi_attach_limit_takes_no_new_volume_but_a_shared_one():
    text = (node("full") + csi_node("full", EBS, 2)
            + bound_claim("a", "pv-a", driver=EBS) + bound_claim("b", "pv-b", driver=EBS)
            + bound_claim("c", "pv-c", driver=EBS)
            + pod("uses-a", claim_volume("a"), node_name="full") + pod("uses-b", claim_volume("b"), node_name="full")
            + pod("wants-c", claim_volume("c")) + pod("shares-a", claim_volume("a")))
    _, pods = run(text)
    assert pods["default/wants-c"].pod_status == "Pending"
    assert pods["default/wants-c"].message == (
        f"0/1 nodes are available: 1 {MAX_VOLUMES}. preemption: 0/1 nodes are available: "
        "1 No preemption victims found for incoming pod.")
    assert pods["default/shares-a"].node == "full"  # the volume is attached already: not counted twice


def test_volume_attachments_count_and_the_pod_goes_where_there_is_room():
    text = (node("busy") + node("free") + csi_node("busy", EBS, 1) + csi_node("free", EBS, 1)
            + bound_claim("old", "pv-old", driver=EBS) + bound_claim("new", "pv-new", driver=EBS)
            + """---
apiVersion: storage.k8s.io/v1
kind: VolumeAttachment
metadata: {name: va-old}
spec: {attacher: ebs.csi.aws.com, nodeName: busy, source: {persistentVolumeName: pv-old}}
""" + pod("web", claim_volume("new")))
    for seed in range(3):
        _, pods = run(text, seed=seed)
        assert pods["default/web"].node == "free"


def test_mysql_with_an_inline_cinder_volume_counts_against_the_cinder_csi_driver():
    manifest = (SHARED / "mysql-cinder.yaml").read_text()
    nodes = node("full") + node("room") + csi_node("full", "cinder.csi.openstack.org", 0) \
        + csi_node("room", "cinder.csi.openstack.org", 1)
    cluster = Cluster(load_manifests(text=nodes + "---\n" + manifest))  # admitted: namespace default
    result = Scheduler(cluster).schedule_one("default/mysql")
    assert result.node == "room"
    assert result.trace.filter_statuses()["full"].reasons == (MAX_VOLUMES,)


def test_without_a_csinode_the_in_tree_volume_is_not_counted():
    manifest = (SHARED / "mysql-cinder.yaml").read_text()
    cluster = Cluster(load_manifests(text=node("n1") + "---\n" + manifest))
    assert Scheduler(cluster).schedule_one("default/mysql").node == "n1"


PREVENT = """---
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata: {name: ebs.csi.aws.com}
spec: {preventPodSchedulingIfMissing: true}
"""


@pytest.mark.parametrize("gate, placed", [(True, ["ready"]), (False, ["ready", "unready"])])
def test_volume_limit_scaling_keeps_pods_off_nodes_without_the_driver(gate, placed):
    from kschedlab.features import FeatureGates
    from kschedlab.plugins.node_volume_limits import NodeVolumeLimits

    cluster = Cluster(load_text(node("ready") + node("unready") + csi_node("ready", EBS, 10)
                                + PREVENT + bound_claim("data", "pv-data", driver=EBS) + pod("web", claim_volume("data"))))
    sched = Scheduler(cluster, gates=FeatureGates({"VolumeLimitScaling": gate}))
    plugin = sched.profiles["default-scheduler"].plugins[NodeVolumeLimits.name]
    from kschedlab.conformance.plugins import run_filter

    pi = cluster.pod_infos["default/web"]
    verdicts = run_filter(plugin, CycleState(), pi, cluster.snapshot, cluster.snapshot.order)
    ok = [cluster.snapshot.names[int(r)] for i, r in enumerate(cluster.snapshot.order) if verdicts.codes[i] == 0]
    assert sorted(ok) == sorted(placed)
    if gate:
        i = [cluster.snapshot.names[int(r)] for r in cluster.snapshot.order].index("unready")
        assert verdicts.status(i).reasons == ("ebs.csi.aws.com CSI driver is not installed on the node",)


# -- the default profile and the fused path --------------------------------------------------------
def test_pods_without_such_volumes_keep_the_fast_path():
    text = node("n1") + pod("cfg", "[{name: c, configMap: {name: app}}, {name: t, emptyDir: {}}]") \
        + bound_claim("data", "pv-data") + pod("db", claim_volume("data"))
    cluster = Cluster(load_text(text))
    fast = Scheduler(cluster).fast_paths["default-scheduler"]
    assert fast.plan(cluster.pod_infos["default/cfg"], cluster.snapshot) is not None
    assert fast.plan(cluster.pod_infos["default/db"], cluster.snapshot) is None


def test_the_three_plugins_are_in_the_default_profile_in_upstreams_order():
    from kschedlab.framework.profile import resolve_profile

    points = resolve_profile({}).points
    pre_filter = [n for n in points["preFilter"] if n in ("VolumeRestrictions", "NodeVolumeLimits", "VolumeZone")]
    assert pre_filter == ["VolumeRestrictions", "NodeVolumeLimits", "VolumeZone"]
    assert points["filter"].index("NodeResourcesFit") < points["filter"].index("VolumeRestrictions")


def test_wordpress_mysql_follows_its_provisioned_volume_to_its_zone():
    """The Kubernetes website's WordPress + MySQL example, read back from a cluster where the claim
    was bound to a PV provisioned in zone west: the MySQL pod can only run there."""
    objects = load_manifests(SHARED / "web-wordpress-mysql.yaml")
    claim = next(o for o in objects if type(o).__name__ == "PersistentVolumeClaim")
    claim.spec.volume_name = "pv-mysql"
    claim.metadata.annotations = {"pv.kubernetes.io/bind-completed": "yes"}
    pv = load_text(f"""apiVersion: v1
kind: PersistentVolume
metadata: {{name: pv-mysql, labels: {{topology.kubernetes.io/zone: west}}}}
spec:
  capacity: {{storage: 20Gi}}
  accessModes: [ReadWriteOnce]
  claimRef: {{namespace: default, name: {claim.metadata.name}}}
  csi: {{driver: pd.csi.storage.gke.io, volumeHandle: pv-mysql}}
""")
    cluster = Cluster(list(load_text(node("east-1", "east") + node("east-2", "east") + node("west-1", "west")))
                      + objects + list(pv))
    result = Scheduler(cluster).run()
    mysql = [p for p in result.pods if p.name.startswith("default/wordpress-mysql-")]
    assert len(mysql) == 1 and mysql[0].node == "west-1"


def _limits_case(limit: int, placed: list[list[int]], attached: list[int], wanted: list[int]) -> str:
    """One node with an EBS limit, pods on it using claims ``c<i>``, VolumeAttachments of PVs
    ``pv-c<i>`` and a new pod using ``wanted`` claims; claim ``c<i>`` is bound to PV ``pv-c<i>``."""
    used = sorted({c for p in placed for c in p} | set(attached) | set(wanted))
    text = node("n1") + csi_node("n1", EBS, limit) + "".join(bound_claim(f"c{i}", f"pv-c{i}", driver=EBS) for i in used)
    vols = lambda cs: "[" + ", ".join(f"{{name: v{c}, persistentVolumeClaim: {{claimName: c{c}}}}}" for c in cs) + "]"  # noqa: E731
    text += "".join(pod(f"placed-{k}", vols(cs), node_name="n1") for k, cs in enumerate(placed))
    text += "".join(f"""---
apiVersion: storage.k8s.io/v1
kind: VolumeAttachment
metadata: {{name: va-{i}}}
spec: {{attacher: {EBS}, nodeName: n1, source: {{persistentVolumeName: pv-c{i}}}}}
""" for i in attached)
    return text + pod("new", vols(wanted))


@settings(max_examples=60, deadline=None)
@given(limit=st.integers(0, 6),
       placed=st.lists(st.lists(st.integers(0, 5), max_size=3, unique=True), max_size=3),
       attached=st.lists(st.integers(0, 5), max_size=3, unique=True),
       wanted=st.lists(st.integers(0, 5), min_size=1, max_size=3, unique=True))
def test_the_count_bound_shortcut_never_changes_the_answer(limit, placed, attached, wanted):
    from kschedlab.conformance.plugins import run_filter
    from kschedlab.plugins.node_volume_limits import NodeVolumeLimits

    cluster = Cluster(load_text(_limits_case(limit, placed, attached, wanted)))
    plugin = Scheduler(cluster).profiles["default-scheduler"].plugins[NodeVolumeLimits.name]
    pi, rows = cluster.pod_infos["default/new"], cluster.snapshot.order
    fast = run_filter(plugin, CycleState(), pi, cluster.snapshot, rows).status(0)
    plugin._surely_fits = lambda *a: False
    exact = run_filter(plugin, CycleState(), pi, cluster.snapshot, rows).status(0)
    assert fast == exact
    # the exact count, by hand: unique volumes of the placed pods, other attachments, new ones
    on_node = {c for p in placed for c in p}
    count = len(on_node) + len(set(attached) - on_node) + len(set(wanted) - on_node)
    assert fast.is_success() == (count <= limit or not set(wanted) - on_node)


def test_zookeeper_replicas_need_a_free_attach_slot_for_their_provisioned_disks():
    """The docs' ZooKeeper StatefulSet (3 replicas, one 10Gi claim each, required anti-affinity)
    on three nodes whose CSI driver attaches 0, 1 and 1 volumes: the claims wait for their first
    consumer, NodeVolumeLimits counts an unbound claim under the class's provisioner and a provisioned
    one under its PV's CSI driver, and the third replica finds no attach slot left anywhere (it is
    reported before InterPodAffinity, which comes later in the filter order)."""
    from kschedlab.storage.pv_controller import PersistentVolumeController

    driver = "pd.csi.storage.gke.io"
    text = (node("n1") + node("n2") + node("n3") + csi_node("n1", driver, 0) + csi_node("n2", driver, 1)
            + csi_node("n3", driver, 1) + f"""---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {{name: standard, annotations: {{storageclass.kubernetes.io/is-default-class: "true"}}}}
provisioner: {driver}
volumeBindingMode: WaitForFirstConsumer
""")
    cluster = Cluster(load_manifests(SHARED / "web-zookeeper.yaml", text=text))
    PersistentVolumeController(cluster).sync()
    pods = {p.name: p for p in Scheduler(cluster).run().pods}
    assert sorted(p.node for p in pods.values() if p.node) == ["n2", "n3"]
    pending = [p for p in pods.values() if p.pod_status == "Pending"]
    assert len(pending) == 1 and pending[0].message == (
        f"0/3 nodes are available: 3 {MAX_VOLUMES}. preemption: 0/3 nodes are available: "
        "3 No preemption victims found for incoming pod.")
