"""Workload expansion finds what a controller already owns the way the controllers do:
ownerReferences (controller: true; by UID: a reference without one is refused, as the API
server refuses it), then adoption of orphans by the
owner's selector (for ReplicaSets that includes their own pod-template-hash label)."""

from __future__ import annotations

import pytest

from kschedlab.api import ManifestError, expand, load_text


def _new(objs, out):
    before = {(o.kind, o.key) for o in objs}
    return [(o.kind, o.key) for o in out if (o.kind, o.key) not in before]


DEPLOYMENT = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop, uid: dep-uid}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: nginx, image: "nginx:1.27"}]}
"""


def _rs(name, hash_, image="nginx:1.27", replicas=2, owner=None, created="2026-11-28T14:02:10Z"):
    refs = ""
    if owner:
        refs = f"  ownerReferences: [{owner}]\n"
    return f"""---
apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: {name}
  namespace: shop
  uid: {name}-uid
  creationTimestamp: "{created}"
  annotations: {{deployment.kubernetes.io/revision: "1"}}
  labels: {{app: web, pod-template-hash: {hash_}}}
{refs}spec:
  replicas: {replicas}
  selector: {{matchLabels: {{app: web, pod-template-hash: {hash_}}}}}
  template:
    metadata: {{labels: {{app: web, pod-template-hash: {hash_}}}}}
    spec: {{containers: [{{name: nginx, image: "{image}"}}]}}
"""


def _pod(name, hash_, owner=None, phase="Running"):
    refs = f"  ownerReferences: [{owner}]\n" if owner else ""
    return f"""---
apiVersion: v1
kind: Pod
metadata:
  name: {name}
  namespace: shop
  labels: {{app: web, pod-template-hash: {hash_}}}
{refs}spec: {{nodeName: n1, containers: [{{name: nginx, image: "nginx:1.27"}}]}}
status: {{phase: {phase}}}
"""


OWNED_BY_UID = "{apiVersion: apps/v1, kind: Deployment, name: web, uid: dep-uid, controller: true}"
OWNED_BY_NAME = "{apiVersion: apps/v1, kind: Deployment, name: web, controller: true}"
OWNED_BY_OLD_WEB = "{apiVersion: apps/v1, kind: Deployment, name: web, uid: an-earlier-web, controller: true}"


@pytest.mark.parametrize("owner", [OWNED_BY_UID, None], ids=["uid", "adopted"])
def test_deployment_with_its_real_replicaset_and_pods_expands_to_itself(owner):
    rs_ref = "{apiVersion: apps/v1, kind: ReplicaSet, name: web-6d4cf56db6, uid: web-6d4cf56db6-uid, controller: true}"
    objs = load_text(DEPLOYMENT + _rs("web-6d4cf56db6", "6d4cf56db6", owner=owner)
                     + _pod("web-6d4cf56db6-x7k2p", "6d4cf56db6", rs_ref)
                     + _pod("web-6d4cf56db6-q9m4z", "6d4cf56db6", rs_ref))
    assert _new(objs, expand(objs)) == []


def test_an_owner_reference_without_uid_is_refused_as_the_api_server_refuses_it():
    objs = load_text(DEPLOYMENT + _rs("web-6d4cf56db6", "6d4cf56db6", owner=OWNED_BY_NAME))
    with pytest.raises(ManifestError) as ei:
        expand(objs)
    assert str(ei.value) == ('<string>: ReplicaSet shop/web-6d4cf56db6: metadata.ownerReferences.uid: '
                             'Invalid value: "": must not be empty')


def test_replicaset_of_an_earlier_deployment_with_the_same_name_is_not_owned():
    objs = load_text(DEPLOYMENT + _rs("web-6d4cf56db6", "6d4cf56db6", owner=OWNED_BY_OLD_WEB, replicas=0))
    made = _new(objs, expand(objs))
    assert [k for k, _ in made] == ["ReplicaSet", "Pod", "Pod"]


def test_rollout_in_progress_new_replicaset_gets_the_surge():
    # the Deployment's template is nginx:1.27; its only ReplicaSet still runs nginx:1.26 with 2 replicas:
    # maxSurge 25% of 2 rounds up to 1, so the new ReplicaSet starts with 2 + 1 - 2 = 1 replica
    objs = load_text(DEPLOYMENT + _rs("web-58b9f7c6d4", "58b9f7c6d4", image="nginx:1.26", owner=OWNED_BY_UID))
    out = expand(objs)
    new_rs = [o for o in out if o.kind == "ReplicaSet" and o.name != "web-58b9f7c6d4"]
    assert len(new_rs) == 1 and new_rs[0].spec.replicas == 1
    assert new_rs[0].metadata.annotations["deployment.kubernetes.io/revision"] == "2"
    old_pods = [o for o in out if o.kind == "Pod" and o.name.startswith("web-58b9f7c6d4-")]
    assert len(old_pods) == 2  # the old ReplicaSet keeps its replicas until the controller scales it down


def test_recreate_waits_for_the_old_pods():
    dep = DEPLOYMENT.replace("  replicas: 2\n", "  replicas: 2\n  strategy: {type: Recreate}\n")
    rs_ref = "{apiVersion: apps/v1, kind: ReplicaSet, name: web-58b9f7c6d4, uid: web-58b9f7c6d4-uid, controller: true}"
    objs = load_text(dep + _rs("web-58b9f7c6d4", "58b9f7c6d4", image="nginx:1.26", owner=OWNED_BY_UID, replicas=1)
                     + _pod("web-58b9f7c6d4-aaaaa", "58b9f7c6d4", rs_ref))
    assert _new(objs, expand(objs)) == []
    gone = load_text(dep + _rs("web-58b9f7c6d4", "58b9f7c6d4", image="nginx:1.26", owner=OWNED_BY_UID, replicas=0))
    assert [k for k, _ in _new(gone, expand(gone))] == ["ReplicaSet", "Pod", "Pod"]


def test_replicaset_adopts_orphans_with_its_own_pod_template_hash_only():
    objs = load_text(_rs("web-6d4cf56db6", "6d4cf56db6", replicas=3)
                     + _pod("orphan-same-hash", "6d4cf56db6")
                     + _pod("orphan-other-hash", "58b9f7c6d4")
                     + _pod("orphan-failed", "6d4cf56db6", phase="Failed"))
    made = _new(objs, expand(objs))
    assert len(made) == 2  # 3 replicas - the one active orphan it adopts


def test_pods_owned_by_another_controller_are_not_adopted():
    other = "{apiVersion: apps/v1, kind: ReplicaSet, name: someone-else, uid: someone-else-uid, controller: true}"
    objs = load_text(_rs("web-6d4cf56db6", "6d4cf56db6", replicas=1) + _pod("taken", "6d4cf56db6", other))
    assert len(_new(objs, expand(objs))) == 1


def test_an_orphan_is_adopted_once():
    objs = load_text(_rs("a", "6d4cf56db6", replicas=1) + _rs("b", "6d4cf56db6", replicas=1)
                     + _pod("orphan", "6d4cf56db6"))
    made = _new(objs, expand(objs))
    assert [key.split("/")[1].rsplit("-", 1)[0] for _, key in made] == ["b"]


def test_replicaset_pods_matched_by_uid_not_name():
    # a pod whose controller reference names the ReplicaSet but carries another UID belongs to an
    # earlier ReplicaSet of that name
    ref = "{apiVersion: apps/v1, kind: ReplicaSet, name: web-6d4cf56db6, uid: stale, controller: true}"
    objs = load_text(_rs("web-6d4cf56db6", "6d4cf56db6", replicas=1) + _pod("p", "6d4cf56db6", ref))
    assert len(_new(objs, expand(objs))) == 1


STS = """
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: shop, uid: sts-uid}
spec:
  replicas: 2
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: pg, image: "postgres:17"}]}
---
apiVersion: v1
kind: Pod
metadata:
  name: db-0
  namespace: shop
  labels: {app: db}
  ownerReferences: [{apiVersion: apps/v1, kind: StatefulSet, name: db, uid: sts-uid, controller: true}]
spec: {nodeName: n1, containers: [{name: pg, image: "postgres:17"}]}
status: {phase: Running, conditions: [{type: Ready, status: "True"}]}
"""


def test_statefulset_keeps_its_owned_pods():
    objs = load_text(STS)
    assert _new(objs, expand(objs)) == [("Pod", "shop/db-1")]


def test_ordered_statefulset_waits_for_its_pod_to_be_ready():
    # OrderedReady: db-1 is created only once db-0 is Running and Ready
    objs = load_text(STS.replace(', conditions: [{type: Ready, status: "True"}]', ""))
    assert _new(objs, expand(objs)) == []


JOB = """
apiVersion: batch/v1
kind: Job
metadata: {name: migrate, namespace: shop, uid: job-uid}
spec:
  completions: 2
  parallelism: 2
  selector: {matchLabels: {batch.kubernetes.io/controller-uid: job-uid}}
  template:
    metadata: {labels: {batch.kubernetes.io/controller-uid: job-uid, batch.kubernetes.io/job-name: migrate}}
    spec: {restartPolicy: Never, containers: [{name: m, image: busybox}]}
---
apiVersion: v1
kind: Pod
metadata:
  name: migrate-abcde
  namespace: shop
  labels: {batch.kubernetes.io/controller-uid: job-uid, batch.kubernetes.io/job-name: migrate}
spec: {nodeName: n1, restartPolicy: Never, containers: [{name: m, image: busybox}]}
status: {phase: Running}
"""


def test_job_adopts_its_orphan_pod_by_selector():
    objs = load_text(JOB)
    assert len(_new(objs, expand(objs))) == 1  # 2 wanted, one running orphan adopted


def test_a_foreign_replicaset_with_our_name_makes_the_controller_count_a_collision():
    from kschedlab.controllers.workloads import pod_template_hash

    dep = load_text(DEPLOYMENT)[0]
    name = "web-" + pod_template_hash(dep.spec.template, None)
    foreign = _rs(name, "x", replicas=0).replace("labels: {app: web, pod-template-hash: x}", "labels: {other: x}")
    foreign = foreign.replace("selector: {matchLabels: {app: web, pod-template-hash: x}}",
                              "selector: {matchLabels: {other: x}}")
    objs = load_text(DEPLOYMENT + foreign)
    out = expand(objs)
    made = [o for o in out if o.kind == "ReplicaSet" and o.name != name]
    assert len(made) == 1 and made[0].name == "web-" + pod_template_hash(dep.spec.template, 1)
    assert next(o for o in out if o.kind == "Deployment").status.collision_count == 1


def test_a_replicaset_of_another_controller_with_our_name_is_a_collision_too():
    from kschedlab.controllers.workloads import pod_template_hash

    dep = load_text(DEPLOYMENT)[0]
    name = "web-" + pod_template_hash(dep.spec.template, None)
    other = "{apiVersion: apps/v1, kind: Deployment, name: api, uid: api-uid, controller: true}"
    objs = load_text(DEPLOYMENT + _rs(name, "x", replicas=0, owner=other))
    made = [o.name for o in expand(objs) if o.kind == "ReplicaSet" and o.name != name]
    assert made == ["web-" + pod_template_hash(dep.spec.template, 1)]


def test_expansion_of_a_large_dump_is_not_quadratic():
    # 600 Deployments, each with its ReplicaSet and 3 pods: everything is matched, nothing made
    import time

    from kschedlab.api import load_objects

    items = []
    for i in range(600):
        ns, sel = f"ns{i % 10}", {"app": f"a{i}"}
        tmpl = {"metadata": {"labels": sel}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}
        items.append({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": f"d{i}", "namespace": ns,
                      "uid": f"d{i}"}, "spec": {"replicas": 3, "selector": {"matchLabels": sel}, "template": tmpl}})
        labels = {**sel, "pod-template-hash": "h"}
        items.append({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {
            "name": f"d{i}-h", "namespace": ns, "uid": f"r{i}", "labels": labels, "ownerReferences": [
                {"apiVersion": "apps/v1", "kind": "Deployment", "name": f"d{i}", "uid": f"d{i}", "controller": True}]},
            "spec": {"replicas": 3, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels}, "spec": tmpl["spec"]}}})
        for j in range(3):
            items.append({"apiVersion": "v1", "kind": "Pod", "metadata": {
                "name": f"d{i}-h-{j}", "namespace": ns, "labels": labels, "ownerReferences": [
                    {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": f"d{i}-h", "uid": f"r{i}",
                     "controller": True}]},
                "spec": {"nodeName": "n", "containers": [{"name": "c"}]}, "status": {"phase": "Running"}})
    objs = load_objects(items)
    start = time.perf_counter()
    out = expand(objs)
    assert len(out) == len(objs)
    assert time.perf_counter() - start < 20
