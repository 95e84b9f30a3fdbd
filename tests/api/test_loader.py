"""Loading manifests and the errors of bad ones."""

import json
import textwrap

import pytest

from kschedlab.api import ManifestError, dump, load, load_objects, load_text
from kschedlab.api.config import KubeSchedulerConfiguration
from kschedlab.api.core import Namespace, Node, Pod
from kschedlab.api.node import RuntimeClass
from kschedlab.api.policy import PodDisruptionBudget
from kschedlab.api.scheduling import PriorityClass


def y(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


ALL_KINDS = y(
    """
    apiVersion: v1
    kind: Namespace
    metadata: {name: shop, labels: {team: a}}
    ---
    apiVersion: v1
    kind: Node
    metadata: {name: n1}
    status: {allocatable: {cpu: "4"}}
    ---
    apiVersion: v1
    kind: Pod
    metadata: {name: p, namespace: shop}
    spec: {containers: [{name: c}]}
    ---
    apiVersion: v1
    kind: Service
    metadata: {name: web, namespace: shop}
    spec: {selector: {app: web}, ports: [{port: 80, targetPort: 8080}], type: ClusterIP, clusterIP: 10.0.0.10}
    ---
    apiVersion: scheduling.k8s.io/v1
    kind: PriorityClass
    metadata: {name: high}
    value: 1000
    globalDefault: false
    description: important
    preemptionPolicy: Never
    ---
    apiVersion: node.k8s.io/v1
    kind: RuntimeClass
    metadata: {name: kata}
    handler: kata
    overhead: {podFixed: {cpu: 250m, memory: 120Mi}}
    scheduling:
      nodeSelector: {runtime: kata}
      tolerations: [{key: kata, operator: Exists, effect: NoSchedule}]
    ---
    apiVersion: policy/v1
    kind: PodDisruptionBudget
    metadata: {name: web, namespace: shop}
    spec: {maxUnavailable: 25%, selector: {matchLabels: {app: web}}, unhealthyPodEvictionPolicy: AlwaysAllow}
    status: {disruptionsAllowed: 1, currentHealthy: 3, desiredHealthy: 2, expectedPods: 3, observedGeneration: 1,
             disruptedPods: {web-1: "2024-05-01T10:00:00Z"}}
    ---
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: web, namespace: shop}
    spec:
      replicas: 2
      selector: {matchLabels: {app: web}}
      strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}
      template: {metadata: {labels: {app: web}}, spec: {containers: [{name: c}]}}
    ---
    apiVersion: apps/v1
    kind: ReplicaSet
    metadata: {name: rs, namespace: shop}
    spec: {replicas: 1, selector: {matchLabels: {a: b}}, template: {metadata: {labels: {a: b}}}}
    ---
    apiVersion: apps/v1
    kind: StatefulSet
    metadata: {name: db, namespace: shop}
    spec:
      serviceName: db
      replicas: 3
      podManagementPolicy: Parallel
      ordinals: {start: 1}
      volumeClaimTemplates: [{metadata: {name: data}, spec: {accessModes: [ReadWriteOnce]}}]
      template: {metadata: {labels: {app: db}}}
    ---
    apiVersion: batch/v1
    kind: Job
    metadata: {name: pi, namespace: shop}
    spec: {completions: 4, parallelism: 2, completionMode: Indexed, backoffLimit: 6,
           template: {spec: {restartPolicy: Never, containers: [{name: pi}]}}}
    ---
    apiVersion: kubescheduler.config.k8s.io/v1
    kind: KubeSchedulerConfiguration
    profiles: [{schedulerName: default-scheduler}]
    """
)


def test_multi_document_all_kinds():
    objs = load_text(ALL_KINDS, source="all.yaml")
    assert [o.kind for o in objs] == [
        "Namespace", "Node", "Pod", "Service", "PriorityClass", "RuntimeClass", "PodDisruptionBudget",
        "Deployment", "ReplicaSet", "StatefulSet", "Job", "KubeSchedulerConfiguration",
    ]
    pc = objs[4]
    assert isinstance(pc, PriorityClass) and pc.value == 1000 and pc.preemption_policy == "Never"
    rc = objs[5]
    assert isinstance(rc, RuntimeClass) and rc.overhead.pod_fixed["memory"].value() == 120 * 2**20
    assert rc.scheduling.tolerations[0].key == "kata"
    pdb = objs[6]
    assert isinstance(pdb, PodDisruptionBudget) and pdb.spec.max_unavailable == "25%"
    assert pdb.status.disrupted_pods["web-1"].year == 2024
    assert objs[1].source_file == "all.yaml"
    assert isinstance(objs[-1], KubeSchedulerConfiguration)


def test_empty_documents_and_comments_are_skipped():
    objs = load_text("---\n# nothing\n---\napiVersion: v1\nkind: Node\nmetadata: {name: a}\n---\n")
    assert [o.key for o in objs] == ["a"]


def test_kubectl_list():
    text = y(
        """
        apiVersion: v1
        items:
        - apiVersion: v1
          kind: Node
          metadata: {name: n1}
        - apiVersion: v1
          kind: Pod
          metadata: {name: p, namespace: default}
        kind: List
        metadata:
          resourceVersion: ""
        """
    )
    objs = load_text(text)
    assert [(o.kind, o.key) for o in objs] == [("Node", "n1"), ("Pod", "default/p")]


def test_typed_list_items_without_kind():
    text = json.dumps(
        {
            "apiVersion": "v1",
            "kind": "PodList",
            "metadata": {"resourceVersion": "1"},
            "items": [{"metadata": {"name": "a", "namespace": "x"}}, {"metadata": {"name": "b", "namespace": "x"}}],
        }
    )
    objs = load_text(text)
    assert [o.key for o in objs] == ["x/a", "x/b"] and all(isinstance(o, Pod) for o in objs)


def test_directories_recursive_sorted_and_json(tmp_path):
    (tmp_path / "b").mkdir()
    (tmp_path / "a").mkdir()
    (tmp_path / "b" / "1.yml").write_text("apiVersion: v1\nkind: Node\nmetadata: {name: b1}\n")
    (tmp_path / "a" / "2.yaml").write_text("apiVersion: v1\nkind: Node\nmetadata: {name: a2}\n")
    (tmp_path / "a" / "1.json").write_text(
        json.dumps([{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "a1"}},
                    {"apiVersion": "v1", "kind": "List",
                     "items": [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "a1b"}}]}])
    )
    (tmp_path / "notes.txt").write_text("not a manifest")
    (tmp_path / "z.json").write_text(json.dumps({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "z"}}))
    objs = load(tmp_path)
    assert [o.key for o in objs] == ["a1", "a1b", "a2", "b1", "z"]
    # several paths, str or Path
    objs = load([str(tmp_path / "z.json"), tmp_path / "b"])
    assert [o.key for o in objs] == ["z", "b1"]


def test_load_objects_and_dump_roundtrip():
    objs = load_text(ALL_KINDS)
    again = load_text(dump(objs))
    assert [o.model_dump(by_alias=True, exclude_unset=True) for o in again] == [
        o.model_dump(by_alias=True, exclude_unset=True) for o in objs
    ]
    assert load_objects({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "n"}})[0].key == "n"
    assert isinstance(load_objects([{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "n"}}])[0],
                      Namespace)


def test_timestamps_stay_text_and_parse():
    (node,) = load_text("apiVersion: v1\nkind: Node\nmetadata: {name: 'n', creationTimestamp: 2024-01-02T03:04:05Z}\n")
    assert node.metadata.creation_timestamp.isoformat() == "2024-01-02T03:04:05+00:00"
    assert node.model_dump(by_alias=True, exclude_unset=True)["metadata"]["creationTimestamp"] == "2024-01-02T03:04:05Z"


# ------------------------------------------------------------------- errors


def _err(text: str, source: str = "pods.yaml") -> ManifestError:
    with pytest.raises(ManifestError) as ei:
        load_text(text, source=source)
    return ei.value


BAD_POD = y(
    """
    apiVersion: v1
    kind: Pod
    metadata: {name: web-0, namespace: default}
    spec:
      containers:
      - name: app
        resources:
          requests: {cpu: 1.5.0}
    """
)


def test_invalid_quantity_error_names_file_object_path():
    e = _err(BAD_POD)
    assert str(e) == 'pods.yaml: Pod default/web-0: spec.containers[0].resources.requests.cpu: invalid quantity "1.5.0"'
    assert (e.file, e.obj, e.path, e.message) == (
        "pods.yaml", "Pod default/web-0", "spec.containers[0].resources.requests.cpu", 'invalid quantity "1.5.0"'
    )
    assert isinstance(e, ValueError)


def test_unknown_field():
    e = _err(BAD_POD.replace("resources:", "resource:"))
    assert str(e) == 'pods.yaml: Pod default/web-0: spec.containers[0].resource: unknown field "resource"'


def test_snake_case_keys_are_unknown_in_manifests():
    e = _err("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {node_name: n1}\n")
    assert str(e) == 'pods.yaml: Pod default/p: spec.node_name: unknown field "node_name"'


def test_unknown_kind_and_missing_type():
    e = _err("apiVersion: v1\nkind: Node\nmetadata: {name: 'n'}\n---\napiVersion: v1\nkind: Foo\nmetadata: {name: x}\n")
    assert str(e) == 'pods.yaml: document 2: unknown kind "Foo" (apiVersion v1)'
    e = _err("apiVersion: apps/v1beta1\nkind: Deployment\n")
    assert str(e) == ('pods.yaml: document 1: no matches for kind "Deployment" in version "apps/v1beta1": the API '
                      "server serves it as apiVersion: apps/v1 (apps/v1beta1 was removed in Kubernetes v1.16)")
    e = _err("metadata: {name: x}\n")
    assert str(e) == "pods.yaml: document 1 (x): apiVersion not set, kind not set"
    e = _err("- a\n- b\n")
    assert str(e) == "pods.yaml: document 1: expected an object, got array"


def test_malformed_yaml_reports_line():
    e = _err("apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n   bad: [\n", source="broken.yaml")
    assert e.file == "broken.yaml" and e.line == 5
    assert str(e).startswith("broken.yaml:5: invalid YAML: ")
    e = _err("a: 1\nb: 2\na: 3\n")
    assert e.line == 3 and 'duplicate key "a"' in str(e)


def test_malformed_json_reports_line(tmp_path):
    f = tmp_path / "x.json"
    f.write_text('{\n  "apiVersion": "v1",\n  "kind": "Node",\n}\n')
    with pytest.raises(ManifestError) as ei:
        load(f)
    assert ei.value.file == str(f) and ei.value.line == 4
    assert "invalid JSON" in str(ei.value)


def test_all_errors_reported_nothing_returned(tmp_path):
    (tmp_path / "a.yaml").write_text(BAD_POD + "---\napiVersion: v1\nkind: Foo\n")
    (tmp_path / "b.yaml").write_text("apiVersion: v1\nkind: Node\nmetadata: {name: ok}\n")
    (tmp_path / "c.yaml").write_text("key: [unclosed\n")
    with pytest.raises(ManifestError) as ei:
        load(tmp_path)
    e = ei.value
    lines = str(e).splitlines()
    assert len(e.errors) == 3 and len(lines) == 3
    assert lines[0].endswith('spec.containers[0].resources.requests.cpu: invalid quantity "1.5.0"')
    assert lines[0].startswith(str(tmp_path / "a.yaml") + ": Pod default/web-0: ")
    assert lines[1] == f'{tmp_path / "a.yaml"}: document 2: unknown kind "Foo" (apiVersion v1)'
    assert lines[2].startswith(f'{tmp_path / "c.yaml"}:2: invalid YAML')
    # the first error's attributes are the exception's
    assert e.obj == "Pod default/web-0"


def test_missing_path():
    with pytest.raises(ManifestError) as ei:
        load("/nonexistent/kschedlab.yaml")
    assert str(ei.value) == "/nonexistent/kschedlab.yaml: no such file or directory"


def test_list_item_errors_and_type_errors():
    text = y(
        """
        apiVersion: v1
        kind: List
        items:
        - apiVersion: v1
          kind: Node
          metadata: {name: n1}
          spec: {taints: [{key: a, effect: Sometimes}]}
        - apiVersion: v1
          kind: Node
          spec: {unschedulable: "yes"}
        """
    )
    e = _err(text)
    # a wrong type is the load's error; an unsupported enum value decodes (admission refuses that object)
    assert str(e).splitlines() == [
        'pods.yaml: document 1, item 2: spec.unschedulable: invalid type: expected boolean, got string "yes"']


def test_label_keys_with_dots_are_bracketed():
    e = _err("apiVersion: v1\nkind: Node\nmetadata: {name: 'n', labels: {app.kubernetes.io/name: 5}}\n")
    assert e.path == "metadata.labels[app.kubernetes.io/name]"


def test_error_pickles():
    import pickle

    e = _err(BAD_POD + "---\nkind: Foo\napiVersion: v1\n")
    again = pickle.loads(pickle.dumps(e))
    assert str(again) == str(e) and len(again.errors) == 2


def test_node_list_objects_types():
    objs = load_text(ALL_KINDS)
    assert isinstance(objs[1], Node)


def test_an_empty_file_is_an_error(tmp_path):
    from kschedlab.api.errors import ManifestError
    from kschedlab.api.loader import load

    (tmp_path / "empty.yaml").write_text("")
    (tmp_path / "comments.yaml").write_text("---\n# later\n---\n")
    with pytest.raises(ManifestError) as err:
        load([tmp_path / "empty.yaml", tmp_path / "comments.yaml"])
    assert str(err.value).count("the file holds no Kubernetes objects") == 2


def test_a_directory_without_manifests_is_an_error(tmp_path):
    from kschedlab.api.errors import ManifestError
    from kschedlab.api.loader import load

    (tmp_path / "README.md").write_text("notes")
    with pytest.raises(ManifestError, match="no manifest files"):
        load(tmp_path)


def test_a_file_of_skipped_kinds_is_not_empty(tmp_path):
    import warnings

    from kschedlab.api.loader import load

    (tmp_path / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: a}\n")
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        assert load(tmp_path) == []
