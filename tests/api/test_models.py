"""Model shapes: attribute names, aliases, defaults, round trips, helpers."""

import pytest
from pydantic import ValidationError

from kschedlab.api import load_text
from kschedlab.api.config import EXTENSION_POINTS, KubeSchedulerConfiguration
from kschedlab.api.core import Node, Pod, compute_pod_qos
from kschedlab.api.meta import LabelSelector, label_selector_matches
from kschedlab.api.quantity import Quantity

# A pod as `kubectl get pod -o yaml` prints it (fields the scheduler never reads included).
KUBECTL_POD = """
apiVersion: v1
kind: Pod
metadata:
  annotations: {kubectl.kubernetes.io/restartedAt: "2024-05-01T10:00:00Z"}
  creationTimestamp: "2024-05-01T10:00:00Z"
  generateName: web-7d4b9c8f6d-
  generation: 1
  labels: {app: web, pod-template-hash: 7d4b9c8f6d}
  managedFields:
  - apiVersion: v1
    fieldsType: FieldsV1
    fieldsV1: {"f:metadata": {"f:labels": {}}}
    manager: kube-controller-manager
    operation: Update
    time: "2024-05-01T10:00:00Z"
  name: web-7d4b9c8f6d-x2x9q
  namespace: shop
  ownerReferences:
  - apiVersion: apps/v1
    blockOwnerDeletion: true
    controller: true
    kind: ReplicaSet
    name: web-7d4b9c8f6d
    uid: 0b1c2d3e-0000-4000-8000-000000000001
  resourceVersion: "12345"
  uid: 0b1c2d3e-0000-4000-8000-000000000002
  finalizers: [example.com/keep]
spec:
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions:
          - {key: topology.kubernetes.io/zone, operator: In, values: [a, b]}
          matchFields:
          - {key: metadata.name, operator: NotIn, values: [n9]}
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 10
        preference:
          matchExpressions: [{key: disk, operator: Exists}]
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - labelSelector: {matchLabels: {app: web}}
        topologyKey: kubernetes.io/hostname
        namespaces: [shop]
        namespaceSelector: {}
        matchLabelKeys: [pod-template-hash]
        mismatchLabelKeys: [tenant]
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 50
        podAffinityTerm:
          labelSelector:
            matchExpressions: [{key: app, operator: In, values: [web]}]
          topologyKey: topology.kubernetes.io/zone
  containers:
  - name: app
    image: nginx:1.25
    imagePullPolicy: IfNotPresent
    command: [nginx]
    args: [-g, daemon off;]
    env: [{name: A, value: "1"}, {name: B, valueFrom: {fieldRef: {fieldPath: metadata.name}}}]
    ports: [{containerPort: 80, hostPort: 8080, protocol: TCP, hostIP: 10.0.0.1, name: http}]
    resources:
      requests: {cpu: 250m, memory: 64Mi}
      limits: {cpu: "1", memory: 128Mi}
    livenessProbe: {httpGet: {path: /, port: 80}, periodSeconds: 10}
    readinessProbe: {tcpSocket: {port: 80}}
    volumeMounts: [{mountPath: /var/run/secrets/kubernetes.io/serviceaccount, name: kube-api-access, readOnly: true}]
    securityContext: {runAsNonRoot: true}
    terminationMessagePath: /dev/termination-log
    terminationMessagePolicy: File
  initContainers:
  - name: proxy
    image: envoy
    restartPolicy: Always
    resources: {requests: {cpu: 100m}}
  - name: migrate
    image: tools
  dnsPolicy: ClusterFirst
  enableServiceLinks: true
  hostNetwork: false
  nodeName: n1
  nodeSelector: {kubernetes.io/os: linux}
  overhead: {cpu: 10m}
  preemptionPolicy: PreemptLowerPriority
  priority: 1000
  priorityClassName: high
  restartPolicy: Always
  runtimeClassName: kata
  schedulerName: default-scheduler
  schedulingGates: [{name: example.com/wait}]
  schedulingGroup: {podGroupName: training-worker-0}
  securityContext: {}
  serviceAccount: default
  serviceAccountName: default
  terminationGracePeriodSeconds: 30
  tolerations:
  - {effect: NoExecute, key: node.kubernetes.io/not-ready, operator: Exists, tolerationSeconds: 300}
  - {key: gpu, operator: Equal, value: "true", effect: NoSchedule}
  - {key: level, operator: Gt, value: "5"}
  topologySpreadConstraints:
  - maxSkew: 1
    minDomains: 3
    topologyKey: topology.kubernetes.io/zone
    whenUnsatisfiable: DoNotSchedule
    labelSelector: {matchLabels: {app: web}}
    matchLabelKeys: [pod-template-hash]
    nodeAffinityPolicy: Honor
    nodeTaintsPolicy: Ignore
  volumes:
  - name: kube-api-access
    projected: {defaultMode: 420, sources: [{serviceAccountToken: {expirationSeconds: 3607, path: token}}]}
status:
  conditions:
  - {lastProbeTime: null, lastTransitionTime: "2024-05-01T10:00:01Z", status: "True", type: PodScheduled}
  containerStatuses:
  - containerID: containerd://abc
    image: docker.io/library/nginx:1.25
    imageID: docker.io/library/nginx@sha256:abc
    lastState: {}
    name: app
    ready: true
    restartCount: 0
    started: true
    state: {running: {startedAt: "2024-05-01T10:00:02Z"}}
  hostIP: 10.0.0.5
  hostIPs: [{ip: 10.0.0.5}]
  nominatedNodeName: n2
  phase: Running
  podIP: 10.244.1.7
  podIPs: [{ip: 10.244.1.7}]
  qosClass: Burstable
  startTime: "2024-05-01T10:00:01Z"
"""


def test_kubectl_pod_loads_and_typed_paths():
    (pod,) = load_text(KUBECTL_POD)
    assert isinstance(pod, Pod)
    spec = pod.spec
    assert spec.node_selector == {"kubernetes.io/os": "linux"}
    term = spec.affinity.node_affinity.required_during_scheduling_ignored_during_execution.node_selector_terms[0]
    assert term.match_expressions[0].operator == "In"
    assert term.match_fields[0].key == "metadata.name"
    assert spec.affinity.node_affinity.preferred_during_scheduling_ignored_during_execution[0].weight == 10
    anti = spec.affinity.pod_anti_affinity
    req = anti.required_during_scheduling_ignored_during_execution[0]
    assert req.namespace_selector == LabelSelector() and req.namespaces == ["shop"]
    assert req.match_label_keys == ["pod-template-hash"] and req.mismatch_label_keys == ["tenant"]
    pref = anti.preferred_during_scheduling_ignored_during_execution[0]
    assert pref.pod_affinity_term.label_selector.match_expressions[0].values == ["web"]
    assert spec.tolerations[0].toleration_seconds == 300
    assert [t.operator for t in spec.tolerations] == ["Exists", "Equal", "Gt"]
    assert spec.init_containers[0].restart_policy == "Always" and spec.init_containers[0].is_restartable
    assert spec.containers[0].resources.requests["cpu"] == Quantity.parse("250m")
    assert spec.containers[0].ports[0].host_ip == "10.0.0.1"
    assert spec.containers[0].ports[0].host_port == 8080
    assert spec.overhead["cpu"].milli_value() == 10
    assert spec.runtime_class_name == "kata" and spec.priority == 1000
    assert spec.scheduling_gates[0].name == "example.com/wait"
    assert spec.scheduling_group.pod_group_name == "training-worker-0"
    c = spec.topology_spread_constraints[0]
    assert (c.max_skew, c.min_domains, c.when_unsatisfiable) == (1, 3, "DoNotSchedule")
    assert (c.node_affinity_policy, c.node_taints_policy) == ("Honor", "Ignore")
    assert pod.status.host_ip == "10.0.0.5" and [i.ip for i in pod.status.pod_ips] == ["10.244.1.7"]
    assert pod.status.nominated_node_name == "n2" and pod.status.phase == "Running"
    assert pod.status.start_time.year == 2024
    assert pod.status.conditions[0].type == "PodScheduled"
    assert pod.metadata.owner_references[0].controller is True
    assert pod.metadata.controller_ref().kind == "ReplicaSet"
    assert pod.key == "shop/web-7d4b9c8f6d-x2x9q"


def test_round_trip_exclude_unset():
    import yaml

    (pod,) = load_text(KUBECTL_POD)
    original = yaml.load(KUBECTL_POD, Loader=yaml.BaseLoader)  # all scalars as text
    dumped = pod.model_dump(mode="json", by_alias=True, exclude_unset=True)

    def texts(x):
        if isinstance(x, dict):
            return {k: texts(v) for k, v in x.items()}
        if isinstance(x, list):
            return [texts(v) for v in x]
        if x is None:
            return "null"
        if isinstance(x, bool):
            return "true" if x else "false"
        return str(x)

    assert texts(dumped) == original


def test_node_fields():
    (node,) = load_text(
        """
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
spec:
  unschedulable: true
  podCIDR: 10.244.0.0/24
  podCIDRs: [10.244.0.0/24]
  providerID: kind://docker/kind/n1
  taints:
  - {key: dedicated, value: gpu, effect: NoSchedule, timeAdded: "2024-05-01T10:00:00Z"}
status:
  capacity: {cpu: "8", memory: 32Gi, pods: "110"}
  allocatable: {cpu: 7800m, memory: 30Gi, pods: "110", nvidia.com/gpu: "2"}
  images:
  - names: [docker.io/library/nginx@sha256:abc, docker.io/library/nginx:1.25]
    sizeBytes: 67108864
  conditions:
  - {type: Ready, status: "True", lastHeartbeatTime: "2024-05-01T10:00:00Z",
     lastTransitionTime: "2024-05-01T10:00:00Z", reason: KubeletReady, message: ok}
  addresses: [{type: InternalIP, address: 10.0.0.5}]
  daemonEndpoints: {kubeletEndpoint: {Port: 10250}}
  nodeInfo: {machineID: x, systemUUID: "y", bootID: z, kubeletVersion: v1.37.0}
  volumesInUse: []
  runtimeHandlers: [{name: runc, features: {recursiveReadOnlyMounts: true}}]
  features: {supplementalGroupsPolicy: true}
  declaredFeatures: [InPlacePodVerticalScaling]
"""
    )
    assert isinstance(node, Node) and node.key == "n1"
    assert node.spec.unschedulable is True
    assert node.spec.taints[0].effect == "NoSchedule" and node.spec.taints[0].time_added.year == 2024
    assert str(node.spec.taints[0]) == "dedicated=gpu:NoSchedule"
    assert node.status.allocatable["cpu"].milli_value() == 7800
    assert node.status.allocatable["nvidia.com/gpu"].value() == 2
    assert node.status.images[0].size_bytes == 67108864
    assert node.status.conditions[0].status == "True"
    assert node.spec.pod_cidrs == ["10.244.0.0/24"]


def test_defaults_collections_and_none():
    pod = Pod()
    assert pod.spec.containers == [] and pod.spec.tolerations == [] and pod.spec.node_selector == {}
    assert pod.metadata.labels == {} and pod.status.conditions == []
    assert pod.spec.affinity is None and pod.spec.priority is None and pod.spec.node_name is None
    assert pod.api_version == "v1" and pod.kind == "Pod"
    assert pod.model_dump(exclude_unset=True) == {}
    # nulls are "unset" for collections
    p = Pod.model_validate({"metadata": {"name": "a", "labels": None}, "spec": {"tolerations": None}})
    assert p.metadata.labels == {} and p.spec.tolerations == []


def test_snake_case_in_python_camel_in_json():
    p = Pod(metadata={"name": "a"}, spec={"node_name": "n1", "hostNetwork": True})
    assert p.spec.node_name == "n1" and p.spec.host_network is True
    assert p.model_dump(by_alias=True, exclude_unset=True)["spec"] == {"nodeName": "n1", "hostNetwork": True}
    assert Pod.model_validate({"spec": {"hostPID": True, "setHostnameAsFQDN": True}}).spec.host_pid is True


@pytest.mark.parametrize(
    "doc,path,msg",
    [
        ({"spec": {"priority": "1"}}, ("spec", "priority"), "integer"),
        ({"metadata": {"labels": {"a": 1}}}, ("metadata", "labels", "a"), "string"),
        ({"spec": {"hostNetwork": "yes"}}, ("spec", "hostNetwork"), "bool"),
        ({"kind": "Node"}, (), "does not match"),
    ],
)
def test_strict_validation(doc, path, msg):
    with pytest.raises(ValidationError) as ei:
        Pod.model_validate(doc)
    err = ei.value.errors()[0]
    assert tuple(err["loc"]) == path
    assert msg.lower() in str(ei.value).lower()


def test_enum_fields_take_any_string_as_go_decodes_them():
    # validation refuses the object later (kschedlab.apiserver.supported_values), not the model
    from kschedlab.api.core import NodeSelectorRequirement

    for op in ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Equal"):
        assert NodeSelectorRequirement(key="k", operator=op).operator == op
    pod = Pod.model_validate({"spec": {"restartPolicy": "Sometimes", "tolerations": [{"operator": "In",
                                                                                       "effect": "Sometimes"}]}})
    assert pod.spec.restart_policy == "Sometimes" and pod.spec.tolerations[0].effect == "Sometimes"


# QoS, per upstream GetPodQOS rules (qos_test.go-style rows)
def _c(req=None, lim=None, restart=None):
    d = {"name": "c", "resources": {}}
    if req:
        d["resources"]["requests"] = req
    if lim:
        d["resources"]["limits"] = lim
    if restart:
        d["restartPolicy"] = restart
    return d


@pytest.mark.parametrize(
    "containers,init,pod_res,expect",
    [
        ([_c()], [], None, "BestEffort"),
        ([_c({"nvidia.com/gpu": "1"}, {"nvidia.com/gpu": "1"})], [], None, "BestEffort"),
        ([_c({"cpu": "1", "memory": "1Gi"}, {"cpu": "1", "memory": "1Gi"})], [], None, "Guaranteed"),
        ([_c(None, {"cpu": "1", "memory": "1Gi"})], [], None, "Burstable"),  # not defaulted yet
        ([_c({"cpu": "1"}, {"cpu": "1"})], [], None, "Burstable"),
        ([_c({"cpu": "1", "memory": "1Gi"}, {"cpu": "1", "memory": "1Gi"}), _c()], [], None, "Burstable"),
        ([_c({"cpu": "1", "memory": "1Gi"}, {"cpu": "1", "memory": "1Gi"})], [_c({"cpu": "1"})], None, "Burstable"),
        ([_c({"cpu": "1", "memory": "1Gi"}, {"cpu": "2", "memory": "1Gi"})], [], None, "Burstable"),
        ([_c({"cpu": "0"})], [], None, "BestEffort"),
        ([_c()], [], {"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "1Gi"}},
         "Guaranteed"),
        ([_c({"cpu": "1", "memory": "1Gi"}, {"cpu": "1", "memory": "1Gi"})], [], {"requests": {"cpu": "1"}},
         "Burstable"),
    ],
)
def test_qos(containers, init, pod_res, expect):
    spec = {"containers": containers, "initContainers": init}
    if pod_res is not None:
        spec["resources"] = pod_res
    pod = Pod.model_validate({"spec": spec})
    assert pod.qos_class() == expect
    assert compute_pod_qos(pod.spec) == expect


def test_qos_prefers_status():
    pod = Pod.model_validate({"spec": {"containers": [_c()]}, "status": {"qosClass": "Guaranteed"}})
    assert pod.qos_class() == "Guaranteed" and pod.compute_qos_class() == "BestEffort"


def test_keys():
    from kschedlab.api import Namespace, PriorityClass, Service

    assert Pod(metadata={"name": "p"}).key == "p"  # no namespace (conformance objects)
    assert Service(metadata={"name": "s", "namespace": "x"}).key == "x/s"
    assert Namespace(metadata={"name": "x", "namespace": "ignored"}).key == "x"
    assert PriorityClass(metadata={"name": "high"}).key == "high"


def test_label_selector_semantics():
    sel = LabelSelector.model_validate(
        {"matchLabels": {"app": "web"}, "matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["db"]}]}
    )
    assert sel.matches({"app": "web"})
    assert not sel.matches({"app": "web", "tier": "db"})
    assert not label_selector_matches(None, {"app": "web"})
    assert label_selector_matches(LabelSelector(), {})


def test_scheduler_config():
    plugins = {ep: {"enabled": [{"name": "X", "weight": 1}], "disabled": [{"name": "*"}]} for ep in EXTENSION_POINTS}
    cfg = KubeSchedulerConfiguration.model_validate(
        {
            "apiVersion": "kubescheduler.config.k8s.io/v1",
            "kind": "KubeSchedulerConfiguration",
            "parallelism": 8,
            "percentageOfNodesToScore": 50,
            "podInitialBackoffSeconds": 2,
            "podMaxBackoffSeconds": 20,
            "leaderElection": {"leaderElect": False},
            "clientConnection": {"kubeconfig": "/etc/kubernetes/scheduler.conf"},
            "profiles": [
                {
                    "schedulerName": "default-scheduler",
                    "percentageOfNodesToScore": 30,
                    "plugins": plugins,
                    "pluginConfig": [{"name": "PodTopologySpread", "args": {"defaultingType": "List"}}],
                }
            ],
        }
    )
    prof = cfg.profiles[0]
    assert prof.plugins.multi_point.enabled[0].name == "X"
    assert prof.plugins.pre_enqueue.disabled[0].name == "*"
    assert prof.plugin_config[0].args == {"defaultingType": "List"}
    assert cfg.pod_max_backoff_seconds == 20
    with pytest.raises(ValidationError):
        KubeSchedulerConfiguration.model_validate({"featureGates": {"A": True}})
