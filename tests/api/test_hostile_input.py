"""Hostile and careless input (issue 23), small versions: each is refused with its message,
naming the file, the object and the field; none grows memory or runs without end."""

from __future__ import annotations

import textwrap
import tracemalloc

import pytest

from kschedlab.api.errors import ManifestError
from kschedlab.api.loader import load, load_text
from kschedlab.apiserver.apply import RefusedObjectsWarning
from kschedlab.apiserver.object_validation import MAX_PODS_ENV
from kschedlab.cluster import Cluster
from kschedlab.controllers.manifests import load_manifests
from kschedlab.scheduler import Scheduler

ALIAS_BOMB_CONFIG = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: NodeResourcesFit
    args:
      a: &a ["x","x","x","x","x","x","x","x","x"]
      b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
      c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
      d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
      e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
      f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
      g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
      h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
      i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
"""


def _refused(text: str, source: str = "hostile.yaml", **kw) -> list[str]:
    with pytest.raises(ManifestError) as ei:
        load_manifests(text=text, source=source, **kw)
    return str(ei.value).splitlines()


# ------------------------------------------------------------------ memory stays bounded


def test_an_alias_bomb_is_refused_before_it_is_built():
    tracemalloc.start()
    try:
        with pytest.raises(ManifestError) as ei:
            load_text(ALIAS_BOMB_CONFIG, "sched.yaml")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert str(ei.value).startswith("sched.yaml:11: invalid YAML: document contains excessive aliasing (more than "
                                    "99% of the first ")
    assert "here the anchor at line 10, column 10 is expanded" in str(ei.value)
    assert peak < 20 * 2**20


def test_an_anchor_that_contains_itself_is_refused():
    with pytest.raises(ManifestError) as ei:
        load_text("a: &a [1, *a]\n", "loop.yaml")
    assert str(ei.value) == "loop.yaml:1: invalid YAML: the anchor at line 1, column 4 contains an alias of itself"


def test_aliases_of_ordinary_size_still_load():
    objs = load_text(textwrap.dedent("""\
        apiVersion: v1
        kind: List
        items:
        - apiVersion: v1
          kind: Node
          metadata: {name: n1, labels: &l {zone: a, disk: ssd}}
          status: {allocatable: &r {cpu: "4", memory: 8Gi}}
        - apiVersion: v1
          kind: Node
          metadata: {name: n2, labels: *l}
          status: {allocatable: *r}
        """))
    assert [o.metadata.labels for o in objs] == [{"zone": "a", "disk": "ssd"}] * 2


def test_unknown_plugin_args_fields_are_refused_with_their_path():
    lines = _refused(textwrap.dedent("""\
        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - pluginConfig:
          - name: DefaultPreemption
            args: {minCandidateNodesPercentage: 10}
          - name: NodeResourcesFit
            args: {scoringStrategy: {type: MostAllocated, resorces: []}, extra: {x: 1}}
          - name: MyOwnPlugin
            args: {anything: goes}
        """), "sched.yaml")
    assert lines == [
        'sched.yaml: document 1: profiles[0].pluginConfig[1].args.scoringStrategy.resorces: unknown field "resorces"',
        'sched.yaml: document 1: profiles[0].pluginConfig[1].args.extra: unknown field "extra"',
    ]


def test_a_bad_scoring_strategy_names_the_config_file_and_plugin_config(tmp_path):
    config = tmp_path / "sched.yaml"
    config.write_text(textwrap.dedent("""\
        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - pluginConfig:
          - name: InterPodAffinity
            args: {hardPodAffinityWeight: 1}
          - name: NodeResourcesFit
            args: {scoringStrategy: {type: Bogus}}
        """))
    with pytest.raises(ValueError) as ei:
        Scheduler(Cluster([]), load(config)[0])
    assert str(ei.value) == (f"{config}: KubeSchedulerConfiguration: profiles[0].pluginConfig[1]: invalid args for "
                             "plugin NodeResourcesFit: scoringStrategy.type: FieldValueNotSupported: Bogus")


DEPLOYMENT = """\
apiVersion: apps/v1
kind: {kind}
metadata: {{name: web}}
spec:
  {field}: {value}
  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata: {{labels: {{app: web}}}}
    spec: {{containers: [{{name: app, image: nginx}}]}}
"""


@pytest.mark.parametrize("kind, field, value, message", [
    ("Deployment", "replicas", 2147483648, 'Deployment in version "v1" cannot be handled as a Deployment: json: cannot '
                                           "unmarshal number 2147483648 into Go struct field DeploymentSpec.spec.replicas "
                                           "of type int32"),
    ("StatefulSet", "replicas", -1, "spec.replicas: Invalid value: -1: must be greater than or equal to 0"),
    ("ReplicaSet", "replicas", -1, "spec.replicas: Invalid value: -1: must be greater than or equal to 0"),
    ("Deployment", "replicas", 10_000_000, "spec.replicas: Invalid value: 10000000: the load would create up to "
                                           "10,000,000 pods, more than its bound of 100,000 (KSCHEDLAB_MAX_PODS)"),
    ("StatefulSet", "replicas", 10_000_000, "spec.replicas: Invalid value: 10000000: the load would create up to "
                                            "10,000,000 pods, more than its bound of 100,000 (KSCHEDLAB_MAX_PODS)"),
])
def test_workload_sizes_are_refused_as_the_api_server_refuses_them(kind, field, value, message):
    # strict: the API server's refusals refuse the whole input; the pod bound does in any mode
    assert _refused(DEPLOYMENT.format(kind=kind, field=field, value=value), strict=True) == [
        f"hostile.yaml: {kind} web: {message}"]


def test_a_job_of_100m_completions_is_bounded_by_its_parallelism():
    job = textwrap.dedent("""\
        apiVersion: batch/v1
        kind: Job
        metadata: {{name: big}}
        spec:
          completions: 100000000
          parallelism: {parallelism}
          template: {{spec: {{restartPolicy: Never, containers: [{{name: c, image: busybox}}]}}}}
        """)
    assert [o.kind for o in load_manifests(text=job.format(parallelism=2))].count("Pod") == 2
    assert _refused(job.format(parallelism=100000000)) == [
        "hostile.yaml: Job big: spec.parallelism: Invalid value: 100000000: the load would create up to "
        "100,000,000 pods, more than its bound of 100,000 (KSCHEDLAB_MAX_PODS)"]


def test_the_pod_bound_is_configurable_and_counts_the_whole_load(monkeypatch):
    two = DEPLOYMENT.format(kind="Deployment", field="replicas", value=2)
    monkeypatch.setenv(MAX_PODS_ENV, "3")
    assert [o.kind for o in load_manifests(text=two)].count("Pod") == 2
    both = two + "---\n" + two.replace("name: web}", "name: api}")
    assert _refused(both) == ["hostile.yaml: Deployment api: spec.replicas: Invalid value: 2: the load would create up "
                              "to 4 pods, more than its bound of 3 (KSCHEDLAB_MAX_PODS)"]


# ------------------------------------------------------- metadata as the API server checks it

SUBDOMAIN = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
             "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
             "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
LABEL = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and "
         "end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
         "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')")
NAME_PART = ("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
             "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
             "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
VALUE = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
         "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for "
         "validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")


def _pod(metadata: str, container: str = "app") -> str:
    return f"apiVersion: v1\nkind: Pod\nmetadata: {metadata}\nspec: {{containers: [{{name: {container!r}}}]}}\n"


@pytest.mark.parametrize("text, expected", [
    (_pod("{name: '<script>alert(1)</script>'}"),
     f'Pod <script>alert(1)</script>: metadata.name: Invalid value: "<script>alert(1)</script>": {SUBDOMAIN}'),
    (_pod("{name: " + "a" * 300 + "}"),
     f'Pod {"a" * 300}: metadata.name: Invalid value: "{"a" * 300}": must be no more than 253 characters'),
    (_pod("{name: p, namespace: A B}"), f'Pod A B/p: metadata.namespace: Invalid value: "A B": {LABEL}'),
    (_pod("{name: p}", container="<b>"), f'Pod p: spec.containers[0].name: Invalid value: "<b>": {LABEL}'),
    (_pod("{name: p, labels: {'': x}}"), 'Pod p: metadata.labels: Invalid value: "": name part must be non-empty\n'
                                         f'hostile.yaml: Pod p: metadata.labels: Invalid value: "": {NAME_PART}'),
    (_pod("{name: p, labels: {a b: x}}"), f'Pod p: metadata.labels: Invalid value: "a b": {NAME_PART}'),
    (_pod("{name: p, labels: {/x: x}}"), 'Pod p: metadata.labels: Invalid value: "/x": prefix part must be non-empty'),
    (_pod("{name: p, labels: {UPPER/lower: x}}"),
     f'Pod p: metadata.labels: Invalid value: "UPPER/lower": prefix part {SUBDOMAIN}'),
    (_pod("{name: p, labels: {k: bad value!}}"), f'Pod p: metadata.labels: Invalid value: "bad value!": {VALUE}'),
    (_pod('{name: p, labels: {k: "a\\nb"}}'), f'Pod p: metadata.labels: Invalid value: "a\\nb": {VALUE}'),
    (_pod("{name: p, labels: {k: -x}}"), f'Pod p: metadata.labels: Invalid value: "-x": {VALUE}'),
    (_pod("{name: p, labels: {k: " + "v" * 64 + "}}"),
     f'Pod p: metadata.labels: Invalid value: "{"v" * 64}": must be no more than 63 characters'),
    ("apiVersion: v1\nkind: Node\nmetadata: {name: '<i>n</i>'}\n",
     f'Node <i>n</i>: metadata.name: Invalid value: "<i>n</i>": {SUBDOMAIN}'),
    ("apiVersion: v1\nkind: Node\nmetadata: {name: 'n'}\nspec: {taints: [{key: k, value: '<script>', effect: NoSchedule}]}\n",
     f'Node n: spec.taints[0].value: Invalid value: "<script>": {VALUE}'),
    ("apiVersion: v1\nkind: Node\nmetadata: {name: 'n'}\nspec: {taints: [{key: k, effect: Sometimes}]}\n",
     'Node n: spec.taints[0].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", '
     '"PreferNoSchedule", "NoExecute"'),
    ("apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: rs}\nspec: {selector: {matchLabels: {app: a}}, "
     "template: {metadata: {labels: {app: b}}, spec: {containers: [{name: c}]}}}\n",
     'ReplicaSet rs: spec.template.metadata.labels: Invalid value: map[string]string{"app":"b"}: `selector` does not '
     'match template `labels`'),
    ("apiVersion: v1\nkind: Pod\nmetadata: {name: p, annotations: {big: '" + "x" * 262142 + "'}}\n"
     "spec: {containers: [{name: c}]}\n",
     "Pod p: metadata.annotations: Too long: may not be more than 262144 bytes"),
])
def test_metadata_is_validated_as_the_api_server_validates_it(text, expected):
    assert _refused(text, strict=True) == f"hostile.yaml: {expected}".splitlines()


def test_an_invalid_name_or_label_leaves_its_object_out_and_the_rest_applies():
    # kubectl apply -f sends each object: the API server answers 422 Invalid for the bad one only
    text = (_pod("{name: Bad_Name, labels: {k: -x}}") + "---\n" + _pod("{name: good}")
            + "---\napiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: rs}\nspec: {replicas: -1, "
              "selector: {matchLabels: {app: a}}, template: {metadata: {labels: {app: a}}, "
              "spec: {containers: [{name: c}]}}}\n")
    with pytest.warns(RefusedObjectsWarning):
        objs = load_manifests(text=text, source="hostile.yaml")
    assert [o.key for o in objs] == ["default/good"]
    assert [r.kubectl() for r in objs.refused] == [
        f'The Pod "Bad_Name" is invalid: [metadata.name: Invalid value: "Bad_Name": {SUBDOMAIN}, '
        f'metadata.labels: Invalid value: "-x": {VALUE}]',
        'The ReplicaSet "rs" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0']
    assert [(r.to_dict()["object"], r.file) for r in objs.refused] == [("Pod default/Bad_Name", "hostile.yaml"),
                                                                        ("ReplicaSet default/rs", "hostile.yaml")]


def test_a_document_without_kind_is_named_by_its_name():
    assert _refused("metadata: {name: web-0}\nspec: {}\n") == [
        "hostile.yaml: document 1 (web-0): apiVersion not set, kind not set"]


@pytest.mark.parametrize("amount, message", [
    ("1e999999999", 'invalid quantity "1e999999999": more than 10,000 digits before the decimal point'),
    ("9" * 100_000, f'invalid quantity "{"9" * 40}... (100,000 characters)": more than 1,000 digits'),
    ("1e" + "9" * 100_000, f'invalid quantity "1e{"9" * 38}... (100,002 characters)"'),
    ("1e400", 'Invalid value: "10e399": must be no more than 9223372036854775807 millicores (kschedlab holds '
              "resource amounts in int64)"),
])
def test_quantities_past_what_can_be_held_are_refused_with_our_message(amount, message):
    text = f"apiVersion: v1\nkind: Node\nmetadata: {{name: 'n'}}\nstatus: {{allocatable: {{cpu: '{amount}'}}}}\n"
    assert _refused(text, strict=True) == [f"hostile.yaml: Node n: status.allocatable.cpu: {message}"]


# ------------------------------------------------------------------ CEL selectors


def _quadrupling(levels: int) -> str:
    """A selector whose string grows fourfold per ``cel.bind`` (the parser allows about ten)."""
    names = [f"v{i}" for i in range(levels + 1)]
    binds = "".join(f"cel.bind({b}, {a} + {a} + {a} + {a}, " for a, b in zip(names, names[1:]))
    return f'cel.bind(v0, device.driver, {binds}{names[-1]}.size() > 0{")" * (levels + 1)}'


def test_a_selector_that_multiplies_a_string_is_refused_at_validation():
    text = ("apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu}\n"
            f"spec: {{selectors: [{{cel: {{expression: '{_quadrupling(10)}'}}}}]}}\n")
    assert _refused(text, strict=True) == ["hostile.yaml: DeviceClass gpu: spec.selectors[0].cel.expression: "
                                           "Forbidden: too complex, exceeds cost limit"]
    # as kubectl apply: the class is refused and left out, the rest of the input applies
    with pytest.warns(RefusedObjectsWarning, match="too complex, exceeds cost limit"):
        applied = load_manifests(text=text, source="hostile.yaml")
    assert [o for o in applied if o.kind == "DeviceClass"] == []


def test_a_selector_over_the_budget_is_never_evaluated():
    from kschedlab.api.dracel import CELError, DeviceView, compile_selector

    small, bomb = compile_selector(_quadrupling(2)), compile_selector(_quadrupling(10))
    assert small.matches(DeviceView("gpu.example.com")) and small.max_cost < 1000
    tracemalloc.start()
    try:
        with pytest.raises(CELError, match="^operation cancelled: actual cost limit exceeded$"):
            bomb.matches(DeviceView("gpu.example.com"))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2**20
