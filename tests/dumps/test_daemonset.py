"""DaemonSet (apps/v1) is read and expanded as upstream's DaemonSet controller does."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from kschedlab import Cluster, Scheduler
from kschedlab.api import DaemonSet, Pod, expand, load_manifests, load_text
from kschedlab.api.core import Affinity, PodTemplateSpec
from kschedlab.api.loader import load_objects
from kschedlab.api.safe_yaml import safe_load
from kschedlab.controllers.daemonset import (
    create_pod_template,
    expand_daemonset,
    replace_node_name_node_affinity,
    target_node_name,
)

HERE = Path(__file__).resolve().parent
CASES = json.loads((HERE / "daemonset_util_cases.json").read_text())
DUMP = HERE.parents[1] / "datasets" / "dumps" / "shop-cluster.yaml"


# -- upstream tables (pkg/controller/daemon/util/daemonset_util_test.go), as data ----------------------------
@pytest.mark.parametrize("case", CASES["replaceNodeNameNodeAffinity"], ids=lambda c: c["id"])
def test_replace_daemonset_pod_node_name_node_affinity(case):
    affinity = Affinity.model_validate(case["affinity"]) if case["affinity"] is not None else None
    got = replace_node_name_node_affinity(affinity, case["hostname"])
    assert got.model_dump(mode="json", by_alias=True, exclude_defaults=True) == case["expected"]


@pytest.mark.parametrize("case", CASES["getTargetNodeName"], ids=lambda c: c["id"])
def test_get_target_node_name(case):
    got = target_node_name(Pod.model_validate(case["pod"]))
    assert got == (None if case["expected"].get("error") else case["expected"]["nodeName"])


@pytest.mark.parametrize("case", CASES["createPodTemplate"], ids=lambda c: c["id"])
def test_create_pod_template(case):
    labels = create_pod_template(PodTemplateSpec(), case["generation"], case["hash"]).metadata.labels
    assert labels.get("pod-template-generation") == case["expected"]["generationLabel"]
    assert labels.get("controller-revision-hash") == case["expected"]["hashLabel"]


# -- expansion -------------------------------------------------------------------------------------------------
NODES = """
apiVersion: v1
kind: Node
metadata: {name: cp, labels: {kubernetes.io/os: linux, node-role.kubernetes.io/control-plane: ""}}
spec: {taints: [{key: node-role.kubernetes.io/control-plane, effect: NoSchedule}]}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: w1, labels: {kubernetes.io/os: linux, gpus: "2"}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: w2, labels: {kubernetes.io/os: linux, gpus: "8"}}
spec:
  unschedulable: true
  taints: [{key: node.kubernetes.io/unschedulable, effect: NoSchedule},
           {key: node.kubernetes.io/not-ready, effect: NoExecute}]
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: win, labels: {kubernetes.io/os: windows}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: dedicated, labels: {kubernetes.io/os: linux}}
spec: {taints: [{key: dedicated, value: db, effect: NoExecute}]}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
"""


def _ds(name, spec_extra="", tmpl_extra=""):
    return f"""---
apiVersion: apps/v1
kind: DaemonSet
metadata: {{name: {name}, namespace: ops}}
spec:
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec:
      containers: [{{name: c, image: "agent:1", resources: {{requests: {{cpu: 100m}}}}}}]
{tmpl_extra}{spec_extra}"""


def _targets(text):
    objs = load_text(NODES + text)
    return sorted(target_node_name(p) for p in expand(objs) if p.kind == "Pod")


def test_one_pod_per_eligible_node():
    # cp: control-plane taint untolerated; dedicated: NoExecute taint untolerated; w2 is cordoned and not
    # ready, which the DaemonSet tolerations cover
    assert _targets(_ds("agent")) == ["w1", "w2", "win"]


def test_tolerate_everything_and_node_selector():
    tmpl = "      tolerations: [{operator: Exists}]\n      nodeSelector: {kubernetes.io/os: linux}\n"
    assert _targets(_ds("proxy", tmpl_extra=tmpl)) == ["cp", "dedicated", "w1", "w2"]


def test_required_node_affinity_with_gt():
    tmpl = ("      affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [\n"
            "        {matchExpressions: [{key: gpus, operator: Gt, values: ['4']}]}]}}}\n")
    assert _targets(_ds("gpu", tmpl_extra=tmpl)) == ["w2"]


def test_template_node_name_and_match_fields():
    assert _targets(_ds("pinned", tmpl_extra="      nodeName: w1\n")) == ["w1"]
    tmpl = ("      affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [\n"
            "        {matchFields: [{key: metadata.name, operator: NotIn, values: [w1]}]}]}}}\n")
    assert _targets(_ds("not-w1", tmpl_extra=tmpl)) == ["w2", "win"]


def test_new_pod_shape():
    tmpl = ("      hostNetwork: true\n"
            "      tolerations: [{key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute,"
            " tolerationSeconds: 300}]\n"
            "      affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [\n"
            "        {matchExpressions: [{key: kubernetes.io/os, operator: In, values: [linux]}]}]},\n"
            "        preferredDuringSchedulingIgnoredDuringExecution: [{weight: 1, preference: {matchExpressions: [\n"
            "          {key: gpus, operator: Exists}]}}]}}\n")
    objs = load_text(NODES + _ds("agent", tmpl_extra=tmpl))
    ds = next(o for o in objs if o.kind == "DaemonSet")
    pods = expand_daemonset(ds, [o for o in objs if o.kind == "Node"], seed=3)
    assert [target_node_name(p) for p in pods] == ["w1", "w2"]
    pod = pods[0]
    assert pod.name.startswith("agent-") and len(pod.name) == len("agent-") + 5 and pod.namespace == "ops"
    assert pod.spec.node_name is None
    ref = pod.metadata.controller_ref()
    assert (ref.kind, ref.name, ref.uid, ref.block_owner_deletion) == ("DaemonSet", "agent", ds.metadata.uid, True)
    assert pod.metadata.labels["app"] == "agent" and pod.metadata.labels["pod-template-generation"] == "1"
    assert pod.metadata.labels["controller-revision-hash"]
    na = pod.spec.affinity.node_affinity
    assert [t.model_dump(by_alias=True, exclude_defaults=True)
            for t in na.required_during_scheduling_ignored_during_execution.node_selector_terms] == [
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["w1"]}]}]
    assert len(na.preferred_during_scheduling_ignored_during_execution) == 1  # kept
    tols = [(t.key, t.effect, t.toleration_seconds) for t in pod.spec.tolerations]
    assert tols == [
        ("node.kubernetes.io/not-ready", "NoExecute", None),  # the 300 s one is replaced
        ("node.kubernetes.io/unreachable", "NoExecute", None),
        ("node.kubernetes.io/disk-pressure", "NoSchedule", None),
        ("node.kubernetes.io/memory-pressure", "NoSchedule", None),
        ("node.kubernetes.io/pid-pressure", "NoSchedule", None),
        ("node.kubernetes.io/unschedulable", "NoSchedule", None),
        ("node.kubernetes.io/network-unavailable", "NoSchedule", None),
    ]
    assert ds.spec.template.spec.affinity.node_affinity.required_during_scheduling_ignored_during_execution \
        .node_selector_terms[0].match_expressions  # the DaemonSet itself is not changed


def test_existing_pods_are_matched_by_owner_reference_and_target_node():
    ds_uid = "ds-uid"
    text = _ds("agent").replace("metadata: {name: agent, namespace: ops}",
                                f"metadata: {{name: agent, namespace: ops, uid: {ds_uid}}}")
    own = f"ownerReferences: [{{apiVersion: apps/v1, kind: DaemonSet, name: agent, uid: {ds_uid}, controller: true}}]"
    text += f"""---
apiVersion: v1
kind: Pod
metadata: {{name: agent-bound, namespace: ops, labels: {{app: agent}}, {own}}}
spec: {{nodeName: w1, containers: [{{name: c}}]}}
status: {{phase: Running}}
---
apiVersion: v1
kind: Pod
metadata: {{name: agent-pending, namespace: ops, labels: {{app: agent}}, {own}}}
spec:
  containers: [{{name: c}}]
  affinity: {{nodeAffinity: {{requiredDuringSchedulingIgnoredDuringExecution: {{nodeSelectorTerms: [
    {{matchFields: [{{key: metadata.name, operator: In, values: [w2]}}]}}]}}}}}}
status: {{phase: Pending}}
---
apiVersion: v1
kind: Pod
metadata: {{name: agent-failed, namespace: ops, labels: {{app: agent}}, {own}}}
spec: {{nodeName: win, containers: [{{name: c}}]}}
status: {{phase: Failed}}
"""
    objs = load_text(NODES + text)
    made = [o for o in expand(objs) if o.kind == "Pod" and o.name.startswith("agent-")
            and o.name not in ("agent-bound", "agent-pending", "agent-failed")]
    assert [target_node_name(p) for p in made] == ["win"]  # only the failed pod's node gets a new one


def _dump_without(pod_name):
    data = safe_load(DUMP.read_text(), str(DUMP))
    data["items"] = [i for i in data["items"] if i["metadata"]["name"] != pod_name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return load_objects(data, source=str(DUMP))


def test_dump_daemonset_pods_are_not_duplicated_and_a_missing_one_comes_back():
    objs = _dump_without("node-exporter-w2rdn")  # node-exporter's pod on worker-2
    from kschedlab.controllers.manifests import create

    created = create(objs)
    new = [o for o in created if o.kind == "Pod" and o.key not in {x.key for x in objs}]
    assert [(p.namespace, target_node_name(p)) for p in new] == [("monitoring", "worker-2")]
    pod = new[0]
    # admitted: DefaultTolerationSeconds adds nothing, the DaemonSet tolerations have no seconds
    assert all(t.toleration_seconds is None for t in pod.spec.tolerations)
    assert pod.spec.host_network and any(t.key == "node.kubernetes.io/network-unavailable" for t in pod.spec.tolerations)
    results = Scheduler(Cluster(created), seed=0).run()
    placed = {r.pod: r.node for r in results}
    assert set(placed) == {"shop/api-7d9c5b8f6c-b5rxq", pod.key} and placed[pod.key] == "worker-2"


def test_daemonset_loads_from_the_dump():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        objs = load_manifests(DUMP)
    dss = [o for o in objs if isinstance(o, DaemonSet)]
    assert [(d.key, d.status.desired_number_scheduled) for d in dss] == [
        ("kube-system/kube-proxy", 3), ("monitoring/node-exporter", 2)]
