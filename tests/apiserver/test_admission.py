"""API-server create behaviour: defaulting, Priority, RuntimeClass, DefaultTolerationSeconds."""

import textwrap

import pytest

from kschedlab.api import ManifestError, admit, load_text
from kschedlab.api.core import Namespace, Node, Pod, Toleration
from kschedlab.api.quantity import Quantity
from kschedlab.apiserver.admission import admit_pod, default_pod, merge_tolerations


def y(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def pod_yaml(spec: str = "", meta: str = "{name: p}", status: str = "") -> str:
    out = f"apiVersion: v1\nkind: Pod\nmetadata: {meta}\nspec:\n  containers: [{{name: c}}]\n"
    out += textwrap.indent(textwrap.dedent(spec), "  ") if spec else ""
    if status:
        out += "status:\n" + textwrap.indent(textwrap.dedent(status), "  ")
    return out


def admit_text(*docs: str) -> list:
    return admit(load_text("---\n".join(docs), source="t.yaml"))


def only_pod(*docs: str) -> Pod:
    return [o for o in admit_text(*docs) if isinstance(o, Pod)][0]


def refused(*docs: str) -> ManifestError:
    with pytest.raises(ManifestError) as ei:
        admit_text(*docs)
    return ei.value


PC_HIGH = "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 1000\n"
PC_DEFAULT = (
    "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: base}\nvalue: 10\n"
    "globalDefault: true\npreemptionPolicy: Never\n"
)


# ------------------------------------------------------------------ defaulting


def test_defaults():
    pod = only_pod(pod_yaml())
    assert pod.metadata.namespace == "default"
    assert pod.spec.scheduler_name == "default-scheduler"
    assert pod.status.phase == "Pending"
    assert pod.status.qos_class == "BestEffort"
    # upstream getDefaultPriority: no class and no default class -> 0 and PreemptLowerPriority
    assert pod.spec.priority == 0 and pod.spec.preemption_policy == "PreemptLowerPriority"
    assert pod.metadata.uid  # assigned, deterministic
    assert pod.metadata.uid == only_pod(pod_yaml()).metadata.uid
    dumped = pod.model_dump(by_alias=True, exclude_unset=True)
    assert dumped["spec"]["schedulerName"] == "default-scheduler"
    assert dumped["status"] == {"phase": "Pending", "qosClass": "BestEffort"}


def test_explicit_scheduler_and_namespace_kept():
    pod = only_pod(pod_yaml("schedulerName: mine\n", meta="{name: p, namespace: team}"))
    assert pod.spec.scheduler_name == "mine" and pod.key == "team/p"


def test_requests_default_from_limits_per_container():
    pod = only_pod(
        y(
            """
            apiVersion: v1
            kind: Pod
            metadata: {name: p}
            spec:
              initContainers:
              - {name: i, resources: {limits: {cpu: "2"}}}
              containers:
              - {name: a, resources: {limits: {cpu: "1", memory: 1Gi}, requests: {cpu: 500m}}}
              - {name: b, resources: {requests: {cpu: 100m}}}
            """
        )
    )
    a, b = pod.spec.containers
    assert a.resources.requests == {"cpu": Quantity.parse("500m"), "memory": Quantity.parse("1Gi")}
    assert b.resources.requests == {"cpu": Quantity.parse("100m")} and b.resources.limits == {}
    assert pod.spec.init_containers[0].resources.requests["cpu"] == 2
    assert pod.status.qos_class == "Burstable"


def test_guaranteed_after_defaulting():
    pod = only_pod(pod_yaml().replace("[{name: c}]", "[{name: c, resources: {limits: {cpu: 1, memory: 1Gi}}}]"))
    assert pod.status.qos_class == "Guaranteed"


def test_resource_lists_rounded_up_to_milli():
    pod = only_pod(pod_yaml().replace("[{name: c}]", "[{name: c, resources: {requests: {cpu: 0.0001}}}]"))
    assert str(pod.spec.containers[0].resources.requests["cpu"]) == "1m"
    node = admit([Node.model_validate({"metadata": {"name": "n"}, "status": {"capacity": {"cpu": "1.0001"}}})])[0]
    assert node.status.capacity["cpu"].milli_value() == 1001
    assert node.status.allocatable == node.status.capacity  # defaulted from capacity


def test_host_network_defaults_host_ports():
    pod = only_pod(
        pod_yaml("hostNetwork: true\n").replace("[{name: c}]", "[{name: c, ports: [{containerPort: 80}]}]")
    )
    assert pod.spec.containers[0].ports[0].host_port == 80


def test_pod_level_resources_defaults():
    # requests default to the aggregated container requests, else to pod limits
    pod = only_pod(
        y(
            """
            apiVersion: v1
            kind: Pod
            metadata: {name: p}
            spec:
              resources: {limits: {cpu: "4", memory: 4Gi}}
              containers:
              - {name: a, resources: {requests: {cpu: "1"}}}
              - {name: b, resources: {requests: {cpu: 500m}}}
            """
        )
    )
    assert pod.spec.resources.requests == {"cpu": Quantity.parse("1500m"), "memory": Quantity.parse("4Gi")}
    # limits default from containers when every container has one
    pod = only_pod(
        y(
            """
            apiVersion: v1
            kind: Pod
            metadata: {name: p}
            spec:
              resources: {requests: {cpu: "1"}}
              containers:
              - {name: a, resources: {limits: {cpu: "1", memory: 1Gi}}}
              - {name: b, resources: {limits: {cpu: "2"}}}
            """
        )
    )
    assert pod.spec.resources.limits == {"cpu": Quantity.parse("3")}


def test_status_of_bound_pods_kept():
    pod = only_pod(pod_yaml("nodeName: n1\n", status="phase: Running\nstartTime: '2024-01-01T00:00:00Z'\n"))
    assert pod.status.phase == "Running" and pod.status.start_time.year == 2024
    pod = only_pod(pod_yaml(status="phase: Running\n"))  # unbound: reset to Pending
    assert pod.status.phase == "Pending"


def test_scheduling_gated_condition():
    pod = only_pod(pod_yaml("schedulingGates: [{name: example.com/gate}]\n"))
    (cond,) = pod.status.conditions
    assert (cond.type, cond.status, cond.reason) == ("PodScheduled", "False", "SchedulingGated")
    assert cond.message == "Scheduling is blocked due to non-empty scheduling gates"


def test_match_label_keys_merged_into_selectors():
    pod = only_pod(
        y(
            """
            apiVersion: v1
            kind: Pod
            metadata: {name: p, labels: {app: web, rev: r1, tenant: t1}}
            spec:
              containers: [{name: c}]
              affinity:
                podAntiAffinity:
                  requiredDuringSchedulingIgnoredDuringExecution:
                  - labelSelector: {matchLabels: {app: web}}
                    topologyKey: kubernetes.io/hostname
                    matchLabelKeys: [rev, missing]
                    mismatchLabelKeys: [tenant]
              topologySpreadConstraints:
              - maxSkew: 1
                topologyKey: zone
                whenUnsatisfiable: DoNotSchedule
                labelSelector: {matchLabels: {app: web}}
                matchLabelKeys: [rev]
            """
        )
    )
    term = pod.spec.affinity.pod_anti_affinity.required_during_scheduling_ignored_during_execution[0]
    assert [(r.key, r.operator, r.values) for r in term.label_selector.match_expressions] == [
        ("rev", "In", ["r1"]),
        ("tenant", "NotIn", ["t1"]),
    ]
    tsc = pod.spec.topology_spread_constraints[0]
    assert [(r.key, r.operator, r.values) for r in tsc.label_selector.match_expressions] == [("rev", "In", ["r1"])]
    # gate off: untouched
    raw = load_text(pod.model_dump_json(by_alias=True))  # noqa: F841 (dump works)
    plain = admit(
        load_text(
            "apiVersion: v1\nkind: Pod\nmetadata: {name: q, labels: {rev: r1}}\nspec:\n  containers: [{name: c}]\n"
            "  topologySpreadConstraints: [{maxSkew: 1, topologyKey: z, whenUnsatisfiable: DoNotSchedule,"
            " labelSelector: {}, matchLabelKeys: [rev]}]\n"
        ),
        feature_gates={"MatchLabelKeysInPodTopologySpreadSelectorMerge": False},
    )[0]
    assert plain.spec.topology_spread_constraints[0].label_selector.match_expressions == []


def test_namespace_label_and_phase():
    (ns,) = admit([Namespace(metadata={"name": "team-a", "labels": {"x": "y"}})])
    assert ns.metadata.labels == {"x": "y", "kubernetes.io/metadata.name": "team-a"}
    assert ns.status.phase == "Active"


def test_inputs_not_changed():
    objs = load_text(pod_yaml())
    before = objs[0].model_dump()
    admit(objs)
    assert objs[0].model_dump() == before


# -------------------------------------------------------------------- priority


def test_priority_from_class():
    pod = only_pod(PC_HIGH, pod_yaml("priorityClassName: high\n"))
    assert pod.spec.priority == 1000 and pod.spec.preemption_policy == "PreemptLowerPriority"


def test_priority_class_order_does_not_matter():
    pod = only_pod(pod_yaml("priorityClassName: high\n"), PC_HIGH)
    assert pod.spec.priority == 1000


def test_global_default_class():
    pod = only_pod(PC_DEFAULT, pod_yaml())
    assert (pod.spec.priority_class_name, pod.spec.priority, pod.spec.preemption_policy) == ("base", 10, "Never")


def test_system_classes_are_builtin():
    pod = only_pod(pod_yaml("priorityClassName: system-cluster-critical\n"))
    assert pod.spec.priority == 2000000000
    pod = only_pod(pod_yaml("priorityClassName: system-node-critical\n", meta="{name: p, namespace: kube-system}"))
    assert pod.spec.priority == 2000001000


def test_unknown_priority_class():
    e = refused(pod_yaml("priorityClassName: gold\n", meta="{name: web-0, namespace: default}"))
    assert str(e) == "t.yaml: Pod default/web-0: spec.priorityClassName: no PriorityClass with name gold was found"


def test_priority_set_by_user():
    assert only_pod(PC_HIGH, pod_yaml("priorityClassName: high\npriority: 1000\n")).spec.priority == 1000
    e = refused(PC_HIGH, pod_yaml("priorityClassName: high\npriority: 7\n"))
    assert e.path == "spec.priority"
    assert e.message == (
        "the integer value of priority (7) must not be provided in pod spec; "
        "priority admission controller computed 1000 from the given PriorityClass name"
    )
    e = refused(pod_yaml("priority: 5\n"))
    assert "computed 0" in e.message


def test_preemption_policy_set_by_user():
    e = refused(PC_DEFAULT, pod_yaml("preemptionPolicy: PreemptLowerPriority\n"))
    assert e.message == (
        "the string value of PreemptionPolicy (PreemptLowerPriority) must not be provided in pod spec; "
        "priority admission controller computed Never from the given PriorityClass name"
    )


def test_priority_class_validation():
    e = refused("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: huge}\nvalue: 1000000001\n")
    assert str(e) == (
        "t.yaml: PriorityClass huge: value: Forbidden: maximum allowed value of a user defined priority is 1000000000"
    )
    e = refused("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: system-x}\nvalue: 1\n")
    assert e.path == "metadata.name" and "system-x is not a known system priority class" in e.message
    e = refused(PC_DEFAULT, PC_DEFAULT.replace("name: base", "name: other"))
    assert e.obj == "PriorityClass other"
    assert e.message == "PriorityClass base is already marked as default. Only one default can exist"
    (pc,) = admit(load_text(PC_HIGH))
    assert pc.preemption_policy == "PreemptLowerPriority"


# ---------------------------------------------------------------- runtimeclass

RC = y(
    """
    apiVersion: node.k8s.io/v1
    kind: RuntimeClass
    metadata: {name: kata}
    handler: kata
    overhead: {podFixed: {cpu: 250m, memory: 120Mi}}
    scheduling:
      nodeSelector: {runtime: kata}
      tolerations: [{key: kata, operator: Exists, effect: NoSchedule}]
    """
)


def test_runtime_class_overhead_selector_tolerations():
    pod = only_pod(RC, pod_yaml("runtimeClassName: kata\nnodeSelector: {disk: ssd}\n"))
    assert pod.spec.overhead == {"cpu": Quantity.parse("250m"), "memory": Quantity.parse("120Mi")}
    assert pod.spec.node_selector == {"disk": "ssd", "runtime": "kata"}
    assert [t.key for t in pod.spec.tolerations] == [
        "node.kubernetes.io/not-ready",
        "node.kubernetes.io/unreachable",
        "kata",
    ]
    dumped = pod.model_dump(by_alias=True, exclude_unset=True)["spec"]
    assert dumped["overhead"] == {"cpu": "250m", "memory": "120Mi"}


def test_runtime_class_errors():
    e = refused(pod_yaml("runtimeClassName: gvisor\n"))
    assert e.message == 'pod rejected: RuntimeClass "gvisor" not found' and e.path == "spec.runtimeClassName"
    e = refused(RC, pod_yaml("runtimeClassName: kata\noverhead: {cpu: 1}\n"))
    assert e.message == "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead"
    assert only_pod(RC, pod_yaml("runtimeClassName: kata\noverhead: {cpu: 250m, memory: 120Mi}\n")).spec.overhead
    e = refused(pod_yaml("overhead: {cpu: 1}\n"))
    assert e.message == "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead"
    e = refused(RC, pod_yaml("runtimeClassName: kata\nnodeSelector: {runtime: runc}\n"))
    assert e.message == "conflict: runtimeClass.scheduling.nodeSelector[runtime] = kata; pod.spec.nodeSelector[runtime] = runc"


# ---------------------------------------------------------- default tolerations


def test_default_toleration_seconds():
    pod = only_pod(pod_yaml())
    assert [(t.key, t.operator, t.effect, t.toleration_seconds) for t in pod.spec.tolerations] == [
        ("node.kubernetes.io/not-ready", "Exists", "NoExecute", 300),
        ("node.kubernetes.io/unreachable", "Exists", "NoExecute", 300),
    ]


@pytest.mark.parametrize(
    "tolerations,expect_keys",
    [
        ("[{operator: Exists}]", [None]),
        ("[{key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 10}]",
         ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"]),
        ("[{key: node.kubernetes.io/unreachable, operator: Exists}]",
         ["node.kubernetes.io/unreachable", "node.kubernetes.io/not-ready"]),
        ("[{key: node.kubernetes.io/not-ready, operator: Exists, effect: NoSchedule}]",
         ["node.kubernetes.io/not-ready", "node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"]),
    ],
)
def test_default_tolerations_respect_existing(tolerations, expect_keys):
    pod = only_pod(pod_yaml(f"tolerations: {tolerations}\n"))
    assert [t.key for t in pod.spec.tolerations] == expect_keys
    assert pod.spec.tolerations[0].toleration_seconds in (None, 10)


def test_merge_tolerations_superset():
    a = Toleration(key="k", operator="Exists", effect="NoExecute", toleration_seconds=100)
    b = Toleration(key="k", operator="Equal", value="v", effect="NoExecute", toleration_seconds=50)
    c = Toleration(key="k", operator="Equal", value="v", effect="NoExecute")
    assert merge_tolerations([b], [a]) == [a]  # a covers b (shorter time)
    assert merge_tolerations([c], [a]) == [c, a]  # c tolerates forever: not covered
    assert merge_tolerations([a], [a]) == [a]


# ------------------------------------------------------------------ validation


def test_validation_errors_all_reported():
    e = refused(
        y(
            """
            apiVersion: v1
            kind: Pod
            metadata: {name: bad}
            spec:
              containers: [{name: c, resources: {requests: {cpu: "2"}, limits: {cpu: "1"}}}]
              tolerations:
              - {operator: Equal, value: x}
              - {key: k, operator: Exists, effect: NoSchedule, tolerationSeconds: 5}
              topologySpreadConstraints:
              - {maxSkew: 0, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway, minDomains: 2}
              - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway}
              affinity:
                nodeAffinity:
                  preferredDuringSchedulingIgnoredDuringExecution:
                  - {weight: 0, preference: {matchExpressions: [{key: a, operator: In}]}}
                podAffinity:
                  requiredDuringSchedulingIgnoredDuringExecution:
                  - {labelSelector: {}}
            """
        )
    )
    got = str(e).splitlines()
    want = [
        't.yaml: Pod default/bad: spec.containers[0].resources.requests: Invalid value: "2": '
        "must be less than or equal to cpu limit of 1",
        't.yaml: Pod default/bad: spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists '
        'when `key` is empty, which means "match all values and all keys"',
        't.yaml: Pod default/bad: spec.tolerations[1].effect: Invalid value: "NoSchedule": effect must be '
        "'NoExecute' when `tolerationSeconds` is set",
        "t.yaml: Pod default/bad: spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero",
        "t.yaml: Pod default/bad: spec.topologySpreadConstraints[0].minDomains: Invalid value: 2: can only use "
        "minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway",
        't.yaml: Pod default/bad: spec.topologySpreadConstraints[1]: Duplicate value: "{zone, ScheduleAnyway}"',
        "t.yaml: Pod default/bad: spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]"
        ".weight: Invalid value: 0: must be in the range 1-100",
        "t.yaml: Pod default/bad: spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]"
        ".preference.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
        "t.yaml: Pod default/bad: spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]"
        ".topologyKey: Required value: can not be empty",
    ]
    assert got == want


def test_errors_across_objects_and_nothing_returned():
    e = refused(pod_yaml("priorityClassName: nope\n"), pod_yaml(meta="{name: q}").replace("[{name: c}]", "[]"),
                "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nspec: {taints: [{key: a}]}\n")
    assert [x.obj for x in e.errors] == ["Pod default/p", "Pod default/q", "Node n1"]
    assert e.errors[1].path == "spec.containers" and e.errors[1].message == "Required value"
    assert e.errors[2].path == "spec.taints[0].effect"


def test_duplicates_and_generate_name():
    e = refused(pod_yaml(), pod_yaml())
    assert str(e) == 't.yaml: Pod default/p: pods "p" already exists'
    objs = admit_text(pod_yaml(meta="{generateName: web-}"), pod_yaml(meta="{generateName: web-}"))
    names = [o.name for o in objs]
    assert all(n.startswith("web-") and len(n) == 9 for n in names) and len(set(names)) == 2
    assert names == [o.name for o in admit_text(pod_yaml(meta="{generateName: web-}"),
                                                pod_yaml(meta="{generateName: web-}"))]


def test_admit_pod_and_default_pod_directly():
    p = Pod.model_validate({"metadata": {"name": "x"}, "spec": {"containers": [{"name": "c"}]}})
    assert default_pod(p).spec.tolerations == []  # defaulting alone adds no tolerations
    assert len(admit_pod(p).spec.tolerations) == 2
    assert p.spec.scheduler_name is None  # input unchanged


@pytest.mark.parametrize("resources, want", [
    # ValidateContainerResourceRequirements (pkg/apis/core/validation): map keys as field.Path.Key
    ('{requests: {cpu: "-1"}, limits: {memory: "-1Mi"}}',
     ['spec.containers[0].resources.limits[memory]: Invalid value: "-1Mi": must be greater than or equal to 0',
      'spec.containers[0].resources.requests[cpu]: Invalid value: "-1": must be greater than or equal to 0',
      # defaulting copied the limit into the request before validation
      'spec.containers[0].resources.requests[memory]: Invalid value: "-1Mi": must be greater than or equal to 0']),
    ('{requests: {example.com/foo: 500m}, limits: {example.com/foo: 500m}}',
     ['spec.containers[0].resources.limits[example.com/foo]: Invalid value: "500m": must be an integer',
      'spec.containers[0].resources.requests[example.com/foo]: Invalid value: "500m": must be an integer']),
    ('{requests: {example.com/foo: "1"}, limits: {example.com/foo: "2"}}',
     ['spec.containers[0].resources.requests: Invalid value: "1": must be equal to example.com/foo limit of 2']),
    ('{requests: {example.com/foo: "1"}}',
     ["spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable resources"]),
    ('{requests: {foo: "1"}}',
     ['spec.containers[0].resources.requests[foo]: Invalid value: "foo": must be a standard resource type or '
      'fully qualified',
      'spec.containers[0].resources.requests[foo]: Invalid value: "foo": must be a standard resource for containers']),
    ('{limits: {hugepages-2Mi: 2Mi}}',
     ["spec.containers[0].resources: Forbidden: HugePages require cpu or memory"]),
])
def test_container_resources_are_validated_as_the_api_server_does(resources, want):
    doc = f"apiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec:\n  containers: [{{name: c, resources: {resources}}}]\n"
    e = refused(doc)
    assert [f"{x.path}: {x.message}" for x in e.errors] == want


def test_extended_resources_equal_in_request_and_limit_are_admitted():
    doc = pod_yaml().replace("[{name: c}]", '[{name: c, resources: {limits: {example.com/foo: "2"}}}]')
    assert str(only_pod(doc).spec.containers[0].resources.requests["example.com/foo"]) == "2"
