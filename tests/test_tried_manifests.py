"""What trying public manifests as a new user showed (issue 21), end to end through the CLI:
DRA extended resources by the DeviceClass's implicit name, a suspended Job, a pod bound by
``spec.nodeName`` with an unallocated claim, and every node in ``schedule -o json``."""

from __future__ import annotations

import json
from pathlib import Path

from kschedlab.api.batch import Job
from kschedlab.api.loader import load
from kschedlab.cli import main
from kschedlab.controllers.manifests import create

PUBLIC = Path(__file__).resolve().parents[1] / ".." / "shared" / "public-manifests"

DRA_CLUSTER = """\
apiVersion: v1
kind: Node
metadata: {name: cpu-node}
status: {allocatable: {cpu: "8", memory: 16Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: gpu-node}
status: {allocatable: {cpu: "8", memory: 16Gi, pods: "110"}}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  selectors:
  - cel: {expression: "device.driver == 'gpu.example.com'"}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: gpu-node-gpu.example.com}
spec:
  driver: gpu.example.com
  nodeName: gpu-node
  pool: {name: gpu-node, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
  - name: gpu-1
"""


def _json(capsys, *argv) -> dict:
    assert main(["schedule", *argv, "-o", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_dra_extended_resource_by_the_implicit_class_name(tmp_path, capsys):
    # the dra-example-driver demo: pod0 asks for deviceclass.resource.kubernetes.io/gpu.example.com
    # (served by the default chart install); pod1 for example.com/gpu, which needs the chart's
    # extendedResourceName and stays Pending without it
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(DRA_CLUSTER)
    doc = _json(capsys, str(cluster), str(PUBLIC / "dra-extended-resource-request.yaml"))
    pods = {p["name"]: p for p in doc["pods"]}
    assert pods["extended-resource-request/pod0"]["node"] == "gpu-node"
    assert pods["extended-resource-request/pod0"]["filter"]["cpu-node"]["plugin"] == "DynamicResources"
    assert pods["extended-resource-request/pod1"]["podStatus"] == "Pending"
    assert pods["extended-resource-request/pod1"]["message"].startswith(
        "0/2 nodes are available: 2 Insufficient example.com/gpu.")
    (claim,) = doc["resourceClaims"]
    assert claim["claim"].startswith("extended-resource-request/pod0-extended-resources-")
    assert claim["devices"] == ["gpu.example.com/gpu-node/gpu-0 (container-0-request-0)"]
    assert claim["reservedFor"] == ["pod0"]


SUSPENDED = """\
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: pi}
spec:
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers: [{name: pi, image: perl}]
"""


def test_a_suspended_job_says_why_it_has_no_pods(tmp_path, capsys):
    f = tmp_path / "job.yaml"
    f.write_text(SUSPENDED)
    assert main(["schedule", str(f)]) == 0
    assert capsys.readouterr().out == (
        "No pending pods.\n"
        "Job default/pi: the Job is suspended (spec.suspend: true; condition Suspended, reason JobSuspended): "
        "the Job controller creates no pods until it is resumed\n")
    (job,) = [o for o in create(load(f)) if isinstance(o, Job)]
    assert [c.model_dump(by_alias=True, exclude_none=True) for c in job.status.conditions] == [
        {"type": "Suspended", "status": "True", "reason": "JobSuspended", "message": "Job suspended"}]


BOUND_WITH_CLAIM = """\
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: single-gpu, namespace: default}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: gpu.example.com}
---
apiVersion: v1
kind: Pod
metadata: {name: pinned-gpu}
spec:
  nodeName: gpu-node
  resourceClaims: [{name: gpu, resourceClaimName: single-gpu}]
  containers:
  - name: ctr
    image: ubuntu
    resources: {claims: [{name: gpu}]}
"""


def test_a_pod_bound_by_node_name_with_an_unallocated_claim_is_shown(tmp_path, capsys):
    f = tmp_path / "bound.yaml"
    f.write_text(DRA_CLUSTER + BOUND_WITH_CLAIM)
    why = ("ResourceClaim default/single-gpu is not allocated: spec.nodeName bypasses the scheduler, which "
           "allocates claims, so the kubelet cannot prepare it and the pod does not start")
    assert main(["schedule", str(f)]) == 0
    assert f"Pod default/pinned-gpu (Pending on gpu-node): {why}" in capsys.readouterr().out
    doc = _json(capsys, str(f))
    assert doc["notStarted"] == [{"object": "Pod default/pinned-gpu (Pending on gpu-node)", "node": "gpu-node",
                                  "reason": why}]


def test_json_keeps_the_nodes_prefilter_left_out(tmp_path, capsys):
    f = tmp_path / "pinned.yaml"
    f.write_text(DRA_CLUSTER.split("---\napiVersion: resource.k8s.io/v1")[0] + """\
---
apiVersion: v1
kind: Pod
metadata: {name: pinned}
spec:
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchFields: [{key: metadata.name, operator: In, values: [gpu-node]}]
  containers: [{name: c, image: nginx}]
""")
    (pod,) = _json(capsys, str(f))["pods"]
    assert pod["node"] == "gpu-node"
    assert pod["filter"] == {
        "gpu-node": {"code": "Success", "plugin": None, "reasons": []},
        "cpu-node": {"code": "UnschedulableAndUnresolvable", "plugin": None,
                     "reasons": ["node(s) didn't satisfy plugin(s) [NodeAffinity]"]},
    }
