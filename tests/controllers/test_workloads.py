"""Workload expansion: names, labels, owner references, counts, determinism."""

import re
import textwrap

from kschedlab.api import admit, expand, load_text
from kschedlab.api.apps import ReplicaSet
from kschedlab.api.core import Pod
from kschedlab.controllers.workloads import ALPHANUMS, pod_template_hash, safe_encode_string

NAME5 = f"[{ALPHANUMS}]{{5}}"

DEPLOY = textwrap.dedent(
    """
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: web, namespace: shop, uid: 11111111-1111-4111-8111-111111111111}
    spec:
      replicas: 3
      selector: {matchLabels: {app: web}}
      template:
        metadata: {labels: {app: web}, annotations: {a: b}}
        spec: {containers: [{name: app, image: nginx, resources: {requests: {cpu: 100m}}}]}
    """
)


def test_deployment_to_replicaset_to_pods():
    objs = expand(load_text(DEPLOY), seed=0)
    dep, rs, *pods = objs
    assert isinstance(rs, ReplicaSet) and len(pods) == 3
    h = rs.metadata.labels["pod-template-hash"]
    assert re.fullmatch(f"[{ALPHANUMS}]{{1,10}}", h)
    assert rs.name == f"web-{h}" and rs.namespace == "shop"
    assert rs.spec.replicas == 3
    assert rs.spec.selector.match_labels == {"app": "web", "pod-template-hash": h}
    assert rs.metadata.annotations["deployment.kubernetes.io/desired-replicas"] == "3"
    assert rs.metadata.annotations["deployment.kubernetes.io/max-replicas"] == "4"  # 25% surge, rounded up
    ref = rs.metadata.owner_references[0]
    assert (ref.api_version, ref.kind, ref.name, ref.uid, ref.controller, ref.block_owner_deletion) == (
        "apps/v1", "Deployment", "web", "11111111-1111-4111-8111-111111111111", True, True)
    for p in pods:
        assert isinstance(p, Pod)
        assert re.fullmatch(f"web-{h}-{NAME5}", p.name)
        assert p.namespace == "shop"
        assert p.metadata.labels == {"app": "web", "pod-template-hash": h}
        assert p.metadata.annotations == {"a": "b"}
        assert p.metadata.owner_references[0].kind == "ReplicaSet"
        assert p.metadata.owner_references[0].uid == rs.metadata.uid
        assert p.spec.containers[0].resources.requests["cpu"].milli_value() == 100
    assert len({p.name for p in pods}) == 3


def test_expansion_is_deterministic_per_seed():
    a = expand(load_text(DEPLOY), seed=7)
    b = expand(load_text(DEPLOY), seed=7)
    c = expand(load_text(DEPLOY), seed=8)
    dump = lambda objs: [o.model_dump(by_alias=True, exclude_unset=True) for o in objs]  # noqa: E731
    assert dump(a) == dump(b)
    assert [o.name for o in a[2:]] != [o.name for o in c[2:]]
    assert a[1].name == c[1].name  # the template hash does not depend on the seed


def test_template_hash_changes_with_template():
    objs = load_text(DEPLOY)
    h1 = pod_template_hash(objs[0].spec.template)
    objs[0].spec.template.spec.containers[0].image = "nginx:2"
    assert pod_template_hash(objs[0].spec.template) != h1
    assert pod_template_hash(objs[0].spec.template, 1) != pod_template_hash(objs[0].spec.template)


def test_safe_encode_string_alphabet():
    # digits map to 4..9,b,c,d,f exactly as upstream's SafeEncodeString
    assert safe_encode_string("1234567890") == "56789bcdf4"


def test_replicaset_alone_and_existing_pods_counted():
    rs = textwrap.dedent(
        """
        apiVersion: apps/v1
        kind: ReplicaSet
        metadata: {name: rs, namespace: default, uid: u-rs}
        spec: {replicas: 3, selector: {matchLabels: {a: b}}, template: {metadata: {labels: {a: b}}}}
        ---
        apiVersion: v1
        kind: Pod
        metadata:
          name: rs-aaaaa
          namespace: default
          ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: rs, uid: u-rs, controller: true}]
        """
    )
    objs = expand(load_text(rs))
    pods = [o for o in objs if isinstance(o, Pod)]
    assert len(pods) == 3 and pods[-1].name == "rs-aaaaa"  # generated pods follow their owner
    assert [o.kind for o in objs] == ["ReplicaSet", "Pod", "Pod", "Pod"]
    # expanding the result again adds nothing
    assert len(expand(objs)) == len(objs)


def test_statefulset():
    sts = textwrap.dedent(
        """
        apiVersion: apps/v1
        kind: StatefulSet
        metadata: {name: db, namespace: data}
        spec:
          replicas: 3
          serviceName: db-svc
          podManagementPolicy: Parallel
          ordinals: {start: 2}
          selector: {matchLabels: {app: db}}
          volumeClaimTemplates: [{metadata: {name: pgdata}, spec: {accessModes: [ReadWriteOnce]}}]
          template: {metadata: {labels: {app: db}}, spec: {containers: [{name: pg}]}}
        """
    )
    sts_obj, *made = expand(load_text(sts))
    pods = [o for o in made if o.kind == "Pod"]
    assert [p.name for p in pods] == ["db-2", "db-3", "db-4"]
    claims = [o for o in made if o.kind == "PersistentVolumeClaim"]
    assert [(c.key, c.metadata.labels, c.spec.access_modes) for c in claims] == [
        (f"data/pgdata-db-{i}", {"app": "db"}, ["ReadWriteOnce"]) for i in (2, 3, 4)]
    assert len(expand([sts_obj, *made])) == 1 + len(made)  # a dump with its claims expands to itself
    rev = pods[0].metadata.labels["controller-revision-hash"]
    assert re.fullmatch(f"db-[{ALPHANUMS}]+", rev)
    for i, p in enumerate(pods, start=2):
        assert p.metadata.labels == {
            "app": "db",
            "controller-revision-hash": rev,
            "statefulset.kubernetes.io/pod-name": f"db-{i}",
            "apps.kubernetes.io/pod-index": str(i),
        }
        assert p.spec.hostname == f"db-{i}" and p.spec.subdomain == "db-svc"
        assert [v.model_dump(exclude_none=True) for v in p.spec.volumes] == [
            {"name": "pgdata", "persistentVolumeClaim": {"claimName": f"pgdata-db-{i}"}}]
        assert p.metadata.owner_references[0].kind == "StatefulSet"
        assert p.metadata.owner_references[0].uid == sts_obj.metadata.uid


JOB = textwrap.dedent(
    """
    apiVersion: batch/v1
    kind: Job
    metadata: {name: pi, namespace: ml}
    spec:
      {spec}
      template:
        metadata: {labels: {team: a}}
        spec: {restartPolicy: Never, containers: [{name: pi, image: perl}]}
    """
)


def job(spec: str, seed: int = 0):
    return expand(load_text(JOB.replace("{spec}", spec)), seed=seed)


def test_job_defaults_to_one_pod():
    j, *pods = job("backoffLimit: 4")
    assert len(pods) == 1
    assert j.spec.parallelism == 1 and j.spec.completions == 1 and j.spec.completion_mode == "NonIndexed"
    uid = j.metadata.uid
    p = pods[0]
    assert re.fullmatch(f"pi-{NAME5}", p.name)
    assert p.metadata.labels == {
        "team": "a",
        "batch.kubernetes.io/controller-uid": uid,
        "batch.kubernetes.io/job-name": "pi",
        "controller-uid": uid,
        "job-name": "pi",
    }
    assert j.spec.selector.match_labels == {"batch.kubernetes.io/controller-uid": uid}
    assert p.metadata.finalizers == ["batch.kubernetes.io/job-tracking"]
    assert p.metadata.owner_references[0].kind == "Job" and p.metadata.owner_references[0].controller


def test_job_parallelism_capped_by_completions():
    assert len(job("parallelism: 5\n  completions: 3")[1:]) == 3
    assert len(job("parallelism: 2\n  completions: 10")[1:]) == 2
    assert len(job("parallelism: 4")[1:]) == 4  # work queue: no completions
    assert len(job("parallelism: 4\n  suspend: true")[1:]) == 0


def test_indexed_job():
    j, *pods = job("parallelism: 2\n  completions: 5\n  completionMode: Indexed")
    assert [p.metadata.annotations["batch.kubernetes.io/job-completion-index"] for p in pods] == ["0", "1"]
    assert [p.metadata.labels["batch.kubernetes.io/job-completion-index"] for p in pods] == ["0", "1"]
    assert re.fullmatch(f"pi-1-{NAME5}", pods[1].name)
    assert pods[1].spec.hostname == "pi-1"
    assert [e.model_dump(exclude_unset=True) for e in pods[0].spec.containers[0].env] == [
        {"name": "JOB_COMPLETION_INDEX",
         "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['batch.kubernetes.io/job-completion-index']"}}}
    ]


def test_expand_then_admit_pipeline():
    objs = admit(expand(load_text(DEPLOY + "---\n" + JOB.replace("{spec}", "parallelism: 2"))))
    pods = [o for o in objs if isinstance(o, Pod)]
    assert len(pods) == 5
    assert all(p.status.phase == "Pending" and p.spec.scheduler_name == "default-scheduler" for p in pods)
    assert all(p.status.qos_class in ("Burstable", "BestEffort") for p in pods)


def test_inputs_unchanged():
    objs = load_text(DEPLOY)
    before = objs[0].model_dump()
    expand(objs)
    assert objs[0].model_dump() == before


def test_generated_pod_errors_name_the_owner_file():
    import pytest

    from kschedlab.api import ManifestError

    bad = DEPLOY.replace("spec: {containers", "spec: {priorityClassName: nope, containers")
    with pytest.raises(ManifestError) as ei:
        admit(expand(load_text(bad, source="deploy.yaml")))
    assert len(ei.value.errors) == 3
    assert ei.value.file == "deploy.yaml"
    assert ei.value.message == "no PriorityClass with name nope was found"


def test_namespace_default_matches_explicit_default():
    rs = textwrap.dedent(
        """
        apiVersion: apps/v1
        kind: ReplicaSet
        metadata: {name: rs, uid: u-rs}
        spec: {replicas: 1, template: {metadata: {labels: {a: b}}}}
        ---
        apiVersion: v1
        kind: Pod
        metadata:
          name: rs-aaaaa
          namespace: default
          ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: rs, uid: u-rs, controller: true}]
        """
    )
    assert len(expand(load_text(rs))) == 2
