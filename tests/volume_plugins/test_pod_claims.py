"""The claims a pod's volumes use, read once (``plugins/helper/volumes``) for VolumeBinding,
VolumeZone, NodeVolumeLimits and VolumeRestrictions: a generic ephemeral volume's claim
``<pod>-<volume>``, upstream's messages when it is missing or not the pod's."""

from __future__ import annotations

import textwrap

from kschedlab.api.loader import load_text
from kschedlab.cluster import Cluster
from kschedlab.framework.interface import CycleState
from kschedlab.framework.status import Code
from kschedlab.plugins.helper.volumes import pod_claim_names, volume_is_for_pod
from kschedlab.scheduler import Scheduler

NODE_AND_POD = textwrap.dedent("""
    apiVersion: v1
    kind: Node
    metadata: {name: n1}
    status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}}
    ---
    apiVersion: v1
    kind: Pod
    metadata: {name: demo-ephemeral, namespace: default, uid: pod-uid}
    spec:
      containers: [{name: c, image: busybox}]
      volumes:
      - name: my-volume
        ephemeral:
          volumeClaimTemplate:
            spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
    """)


def claim(owner_uid: str) -> str:
    return textwrap.dedent(f"""
        ---
        apiVersion: v1
        kind: PersistentVolumeClaim
        metadata:
          name: demo-ephemeral-my-volume
          namespace: default
          ownerReferences: [{{apiVersion: v1, kind: Pod, name: demo-ephemeral, uid: {owner_uid}, controller: true}}]
        spec: {{accessModes: [ReadWriteOnce], resources: {{requests: {{storage: 1Gi}}}}}}
        """)


def test_a_missing_ephemeral_claim_waits_for_its_controller_with_upstreams_event_text():
    # the FailedScheduling event of the Kubernetes docs' generic ephemeral volume example
    cluster = Cluster(load_text(NODE_AND_POD))
    assert Scheduler(cluster).schedule_one("default/demo-ephemeral").message == (
        '0/1 nodes are available: waiting for ephemeral volume controller to create the persistentvolumeclaim '
        '"demo-ephemeral-my-volume". preemption: 0/1 nodes are available: 1 Preemption is not helpful for '
        'scheduling.')


def test_an_ephemeral_claim_of_another_pod_is_refused_by_volume_binding_and_node_volume_limits():
    cluster = Cluster(load_text(NODE_AND_POD + claim("other-uid")))
    pod_info = cluster.pod_infos["default/demo-ephemeral"]
    plugins = Scheduler(cluster).profiles["default-scheduler"].plugins
    not_owner = "PVC default/demo-ephemeral-my-volume was not created for pod default/demo-ephemeral (pod is not owner)"
    _, status = plugins["VolumeBinding"].pre_filter(CycleState(), pod_info, cluster.snapshot)
    assert (status.code, status.reasons) == (Code.UnschedulableAndUnresolvable, (not_owner,))
    verdicts = plugins["NodeVolumeLimits"].filter_nodes(CycleState(), pod_info, cluster.snapshot,
                                                        cluster.snapshot.order)
    assert (verdicts.status(0).code, verdicts.status(0).reasons) == (Code.Error, (not_owner,))


def test_the_pods_own_ephemeral_claim_is_its_claim():
    cluster = Cluster(load_text(NODE_AND_POD + claim("pod-uid")))
    pod = cluster.pod_infos["default/demo-ephemeral"].pod
    pvc = cluster.get("PersistentVolumeClaim", "default/demo-ephemeral-my-volume")
    assert pod_claim_names(pod) == ["demo-ephemeral-my-volume"]
    assert volume_is_for_pod(pod, pvc) is None
