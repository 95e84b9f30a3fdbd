"""Workload expansion: what the controllers would create from workload objects.

* Deployment -> ReplicaSet ``<deployment>-<pod-template-hash>`` -> pods
  ``<replicaset>-<5 chars>`` labelled ``pod-template-hash``;
* ReplicaSet -> pods;
* StatefulSet -> pods ``<name>-<ordinal>`` with ``controller-revision-hash``,
  ``statefulset.kubernetes.io/pod-name`` and ``apps.kubernetes.io/pod-index``; with
  ``podManagementPolicy: OrderedReady`` (the default) one at a time, each once the pods before it are
  Running and Ready (:mod:`kschedlab.controllers.statefulset` creates the next ones as that happens);
* Job -> ``parallelism`` pods (capped by the remaining completions) with the
  job labels, and the completion index for Indexed jobs.;
* Job named by a Workload's ``spec.controllerRef`` -> its PodGroup (from the
  Workload's single PodGroupTemplate) and pods with ``spec.schedulingGroup``
  (:func:`job_pod_group`);
* DaemonSet -> one pod per eligible node (:mod:`kschedlab.controllers.daemonset`);
* a StatefulSet pod's volumeClaimTemplates and a pod's generic ephemeral volumes -> their
  PersistentVolumeClaims (:mod:`kschedlab.controllers.volume_claims`).

Names use upstream's alphabet ``bcdfghjklmnpqrstvwxz2456789``. Random parts and
UIDs come from the ``seed``, so the result is the same for the same seed. Hashes
follow upstream's construction (FNV over the template, encoded with
``SafeEncodeString``) but hash our own JSON rendering of the template, so their
values differ from a real cluster's.

Objects that already exist in the input and belong to the owner count towards
its desired state (controllers reconcile to it). They are found as the
controllers find them (:mod:`kschedlab.controllers.controller_ref`): the controller owner
reference (by UID, else kind and name), else adoption of orphans by the owner's
selector; a Deployment's current ReplicaSet is the owned one whose template equals
the Deployment's apart from ``pod-template-hash`` (not one named by our hash). So a
dump of a running cluster expands to itself.

>>> from kschedlab.api.loader import load_text
>>> objs = expand(load_text('''
... apiVersion: apps/v1
... kind: Deployment
... metadata: {name: web, namespace: shop}
... spec:
...   replicas: 2
...   selector: {matchLabels: {app: web}}
...   template:
...     metadata: {labels: {app: web}}
...     spec: {containers: [{name: app, image: nginx}]}
... '''), seed=1)
>>> [o.kind for o in objs]
['Deployment', 'ReplicaSet', 'Pod', 'Pod']
>>> rs, pod = objs[1], objs[2]
>>> rs.name == "web-" + rs.metadata.labels["pod-template-hash"]
True
>>> pod.name.startswith(rs.name + "-"), len(pod.name) == len(rs.name) + 6, pod.namespace
(True, True, 'shop')
>>> pod.metadata.owner_references[0].kind, pod.metadata.owner_references[0].controller
('ReplicaSet', True)
"""

from __future__ import annotations

import math
import random
import re
from typing import Any, Callable, Iterable, Mapping

from ..api.apps import Deployment, ReplicaSet, StatefulSet
from ..api.batch import Job, JobCondition
from ..api.core import (
    LabelSelector,
    ObjectMeta,
    OwnerReference,
    Pod,
    PodSchedulingGroup,
    PodTemplateSpec,
)
from ..api.env import EnvVar
from ..api.meta import KubeObject, TypedObject, time_ns
from ..api.volume import PersistentVolumeClaimVolumeSource, Volume
from ..apiserver.object_validation import check_objects, pod_bound_error
from ..apiserver.object_validation import max_pods as default_max_pods
from .controller_ref import claim, controlled_by
from .pod_templates import (
    ALPHANUMS,
    ANN_DESIRED_REPLICAS,
    ANN_LAST_APPLIED,
    ANN_MAX_REPLICAS,
    ANN_REVISION,
    JOB_COMPLETION_INDEX,
    JOB_TRACKING_FINALIZER,
    LABEL_CONTROLLER_REVISION_HASH,
    LABEL_CONTROLLER_UID,
    LABEL_JOB_NAME,
    LABEL_LEGACY_CONTROLLER_UID,
    LABEL_LEGACY_JOB_NAME,
    LABEL_POD_INDEX,
    LABEL_POD_TEMPLATE_HASH,
    LABEL_STS_POD_NAME,
    MAX_GENERATED_NAME_LENGTH,
    controller_ref,
    controller_revision_hash,
    ensure_uid,
    fnv32a,
    generated_name,
    object_uid,
    owner_rng,
    pod_from_template,
    pod_template_hash,
    safe_encode_string,
)
from .volume_claims import create_claims, statefulset_claim_name

__all__ = [
    "expand",
    "expand_deployment",
    "find_new_replicaset",
    "equal_ignore_hash",
    "expand_replicaset",
    "expand_statefulset",
    "statefulset_ordinals",
    "ordered_ready",
    "running_and_ready",
    "expand_job",
    "job_pod_group",
    "compute_pod_group_name",
    "pod_template_hash",
    "controller_revision_hash",
    "safe_encode_string",
    "ALPHANUMS",
]

def owned_pods(owner: KubeObject, pods: list[Pod], claimed: set[int] | None = None) -> list[Pod]:
    """The pods of ``pods`` that ``owner``'s controller counts as its own: those whose controller
    reference names it (by UID, else kind and name), then the orphans its selector adopts."""
    return claim(owner, pods, claimed=claimed)


def namespace_pods(cluster: Any, namespace: str) -> list[Pod]:
    """The pods of ``cluster`` in ``namespace`` (a pod without one is in ``default``)."""
    return [p for p in cluster.pods.values() if (p.metadata.namespace or "default") == namespace]


def active_pods(pods: list[Pod]) -> list[Pod]:
    """The pods neither terminal (``Succeeded``, ``Failed``) nor being deleted."""
    return [p for p in pods if p.status.phase not in ("Succeeded", "Failed") and not p.metadata.deletion_timestamp]


def terminating_pods(pods: list[Pod]) -> list[Pod]:
    """The pods being deleted that are not terminal yet (a Job with ``podReplacementPolicy: Failed``
    still counts them as running)."""
    return [p for p in pods if p.metadata.deletion_timestamp and p.status.phase not in ("Succeeded", "Failed")]


def _scaled(value: int | str | None, total: int, default: str, round_up: bool) -> int:
    v = default if value is None else value
    if isinstance(v, int):
        return v
    m = re.fullmatch(r"(\d+)%", v.strip())
    if not m:
        return 0
    exact = int(m.group(1)) * total
    return math.ceil(exact / 100) if round_up else exact // 100


# --------------------------------------------------------------- controllers


def expand_replicaset(rs: ReplicaSet, existing_pods: Iterable[Pod] = (), seed: int = 0,
                      taken: set[str] | None = None, claimed: set[int] | None = None) -> list[Pod]:
    """The pods a ReplicaSet controller creates (its replicas minus existing ones).

    >>> rs = ReplicaSet(metadata={"name": "web-abc", "namespace": "default"},
    ...                 spec={"replicas": 2, "template": {"metadata": {"labels": {"app": "web"}}}})
    >>> [p.metadata.labels for p in expand_replicaset(rs)]
    [{'app': 'web'}, {'app': 'web'}]
    """
    ensure_uid(rs, seed)
    replicas = 1 if rs.spec.replicas is None else rs.spec.replicas
    have = len(active_pods(owned_pods(rs, list(existing_pods), claimed)))
    taken = set() if taken is None else taken
    rng = owner_rng(seed, rs)
    out = []
    for _ in range(max(0, replicas - have)):
        prefix = f"{rs.name}-"
        out.append(pod_from_template(rs.spec.template, rs, generated_name(prefix, rng, taken), seed,
                                     generate_name=prefix))
    return out


def _replicaset_for(dep: Deployment, seed: int, replicas: int | None = None, revision: int = 1,
                    taken_names: set[str] | frozenset[str] = frozenset()) -> ReplicaSet:
    ensure_uid(dep, seed)
    desired = 1 if dep.spec.replicas is None else dep.spec.replicas
    replicas = desired if replicas is None else replicas
    h = pod_template_hash(dep.spec.template, dep.status.collision_count)
    while f"{dep.name}-{h}" in taken_names:
        # the name belongs to a ReplicaSet that is not this Deployment's current one: as the
        # controller does on AlreadyExists, count a collision and hash again
        dep.status.collision_count = (dep.status.collision_count or 0) + 1
        dep.mark_set("status")
        dep.status.mark_set("collision_count")
        h = pod_template_hash(dep.spec.template, dep.status.collision_count)
    name = f"{dep.name}-{h}"
    template = dep.spec.template.clone()
    template.metadata.labels = {**template.metadata.labels, LABEL_POD_TEMPLATE_HASH: h}
    template.mark_set("metadata")
    selector = (dep.spec.selector or LabelSelector()).clone()
    selector.match_labels = {**selector.match_labels, LABEL_POD_TEMPLATE_HASH: h}
    surge = _max_surge(dep)
    annotations = {k: v for k, v in dep.metadata.annotations.items() if k != ANN_LAST_APPLIED}
    annotations.update({
        ANN_DESIRED_REPLICAS: str(desired),
        ANN_MAX_REPLICAS: str(desired + surge),
        ANN_REVISION: str(revision),
    })
    meta: dict[str, Any] = {"name": name, "labels": dict(template.metadata.labels), "annotations": annotations}
    if dep.namespace:
        meta["namespace"] = dep.namespace
    spec: dict[str, Any] = {"replicas": replicas, "selector": selector, "template": template}
    if dep.spec.min_ready_seconds is not None:
        spec["minReadySeconds"] = dep.spec.min_ready_seconds
    rs = ReplicaSet(metadata=ObjectMeta(**meta), spec=spec)
    rs.metadata.owner_references = [controller_ref(dep)]
    rs.metadata.uid = object_uid(seed, "ReplicaSet", rs.key)
    rs._source = dep._source
    return rs


def _max_surge(dep: Deployment) -> int:
    strategy = dep.spec.strategy
    if strategy is not None and strategy.type not in (None, "RollingUpdate"):
        return 0
    desired = 1 if dep.spec.replicas is None else dep.spec.replicas
    ru = strategy.rolling_update if strategy is not None else None
    return _scaled(ru.max_surge if ru else None, desired, "25%", True)


def _template_ignoring_hash(template: PodTemplateSpec) -> Any:
    data = template.model_dump(mode="json", by_alias=True, exclude_defaults=True)
    labels = (data.get("metadata") or {}).get("labels") or {}
    labels.pop(LABEL_POD_TEMPLATE_HASH, None)
    if "metadata" in data:
        if not labels:
            data["metadata"].pop("labels", None)
        if not data["metadata"]:
            del data["metadata"]
    return data


def equal_ignore_hash(a: PodTemplateSpec, b: PodTemplateSpec) -> bool:
    """Whether two pod templates are equal apart from the ``pod-template-hash`` label
    (upstream ``EqualIgnoreHash``; unset and empty fields compare equal).

    >>> a = PodTemplateSpec.model_validate({"metadata": {"labels": {"app": "web", "pod-template-hash": "6d4"}}})
    >>> b = PodTemplateSpec.model_validate({"metadata": {"labels": {"app": "web"}}, "spec": {"tolerations": []}})
    >>> equal_ignore_hash(a, b)
    True
    """
    return _template_ignoring_hash(a) == _template_ignoring_hash(b)


def _revision(rs: ReplicaSet) -> int:
    v = rs.metadata.annotations.get(ANN_REVISION, "")
    return int(v) if v.isdigit() else 0


def _creation_key(obj: KubeObject) -> tuple:
    ts = obj.metadata.creation_timestamp
    return (ts is None, time_ns(ts) if ts is not None else 0, obj.name)


def find_new_replicaset(dep: Deployment, owned: Iterable[ReplicaSet]) -> ReplicaSet | None:
    """The Deployment's current ReplicaSet: the oldest owned one whose template equals
    the Deployment's apart from ``pod-template-hash`` (upstream ``FindNewReplicaSet``).

    >>> d = Deployment.model_validate({"metadata": {"name": "web"}, "spec": {
    ...     "template": {"metadata": {"labels": {"app": "web"}}}}})
    >>> rs = ReplicaSet.model_validate({"metadata": {"name": "web-6d4"}, "spec": {
    ...     "template": {"metadata": {"labels": {"app": "web", "pod-template-hash": "6d4"}}}}})
    >>> find_new_replicaset(d, [rs]).name
    'web-6d4'
    """
    for rs in sorted(owned, key=_creation_key):
        if equal_ignore_hash(rs.spec.template, dep.spec.template):
            return rs
    return None


def expand_deployment(dep: Deployment, existing: Iterable[TypedObject] = (), seed: int = 0,
                      taken: set[str] | None = None, claimed: set[int] | None = None,
                      replicaset_names: Iterable[str] | None = None) -> list[TypedObject]:
    """The ReplicaSet a Deployment controller creates, and that ReplicaSet's pods.

    The Deployment's ReplicaSets among ``existing`` are found as the controller finds
    them (owner references, else adoption by the Deployment's selector, see
    :func:`~kschedlab.controllers.controller_ref.claim`). When one of them has the Deployment's
    template (:func:`find_new_replicaset`) nothing is created: that ReplicaSet expands
    on its own. Otherwise a new ReplicaSet ``<name>-<pod-template-hash>`` is made with,
    for RollingUpdate, ``min(replicas + maxSurge - replicas of the old ReplicaSets,
    replicas)`` replicas (upstream ``NewRSNewReplicas``); for Recreate, all replicas
    once no pod of an old ReplicaSet is active, else none yet. When the name is held by
    another ReplicaSet (``replicaset_names``: those of the namespace, by default taken
    from ``existing``), the collision count goes up and the hash is computed again.

    >>> d = Deployment(metadata={"name": "web"}, spec={"replicas": 1,
    ...     "template": {"metadata": {"labels": {"app": "web"}}}})
    >>> [o.kind for o in expand_deployment(d)]
    ['ReplicaSet', 'Pod']
    """
    existing = list(existing)
    pods = [o for o in existing if isinstance(o, Pod)]
    owned = claim(dep, [o for o in existing if isinstance(o, ReplicaSet)], claimed=claimed)
    if find_new_replicaset(dep, owned) is not None:
        return []
    desired = 1 if dep.spec.replicas is None else dep.spec.replicas
    replicas = desired
    if owned:
        strategy = dep.spec.strategy
        if strategy is not None and strategy.type == "Recreate":
            if any(active_pods(owned_pods(rs, pods)) for rs in owned):
                return []
        else:
            current = sum(1 if rs.spec.replicas is None else rs.spec.replicas for rs in owned)
            replicas = max(0, min(desired + _max_surge(dep) - current, desired))
    revision = max((_revision(rs) for rs in owned), default=0) + 1
    rs_names = set(replicaset_names) if replicaset_names is not None else {
        o.name for o in existing if isinstance(o, ReplicaSet) and (o.namespace or "default") == (dep.namespace or "default")}
    rs = _replicaset_for(dep, seed, replicas, revision, rs_names)
    return [rs, *expand_replicaset(rs, pods, seed, taken, claimed)]


def expand_statefulset(sts: StatefulSet, existing_pods: Iterable[Pod] = (), seed: int = 0,
                       claimed: set[int] | None = None, ready: Callable[[Pod], bool] | None = None) -> list[Pod]:
    """The pods ``<name>-<ordinal>`` the StatefulSet controller creates now, given ``existing_pods``
    (upstream ``processReplica``).

    An ordinal is filled by a pod the StatefulSet owns (owner reference or adoption,
    :func:`~kschedlab.controllers.controller_ref.claim`) named ``<name>-<ordinal>``; a pod of
    that name owned by something else also blocks it (the controller's create fails
    with AlreadyExists). ``podManagementPolicy: Parallel`` creates every missing pod at once. With
    ``OrderedReady`` (the default) the controller goes through the ordinals in order and creates one
    pod at a time: it stops after creating a pod, and at a pod that is terminating, not Running
    and Ready (``ready``, default :func:`running_and_ready`) or not its own.

    >>> s = StatefulSet(metadata={"name": "db", "namespace": "default"},
    ...                 spec={"replicas": 2, "serviceName": "db"})
    >>> [(p.name, p.metadata.labels["apps.kubernetes.io/pod-index"]) for p in expand_statefulset(s)]
    [('db-0', '0')]
    >>> s.spec.pod_management_policy = "Parallel"
    >>> [p.name for p in expand_statefulset(s)]
    ['db-0', 'db-1']
    """
    ensure_uid(sts, seed)
    ready = running_and_ready if ready is None else ready
    ordered = ordered_ready(sts)
    revision = controller_revision_hash(sts)
    existing_pods = list(existing_pods)
    owned = {p.name: p for p in claim(sts, existing_pods, claimed=claimed)}
    others = {p.name for p in existing_pods if (p.namespace or "default") == (sts.namespace or "default")}
    out = []
    for ordinal in statefulset_ordinals(sts):
        name = f"{sts.name}-{ordinal}"
        pod = owned.get(name)
        if pod is not None or name in others:
            if ordered and (pod is None or pod.metadata.deletion_timestamp is not None or not ready(pod)):
                break
            continue
        pod = pod_from_template(
            sts.spec.template, sts, name, seed,
            extra_labels={
                LABEL_CONTROLLER_REVISION_HASH: revision,
                LABEL_STS_POD_NAME: name,
                LABEL_POD_INDEX: str(ordinal),
            },
        )
        pod.spec.hostname = name
        pod.spec.subdomain = sts.spec.service_name or ""
        claims = [Volume(name=t.name, persistent_volume_claim=PersistentVolumeClaimVolumeSource(
                      claim_name=statefulset_claim_name(t.name, sts.name, ordinal)))
                  for t in sts.spec.volume_claim_templates if t.name]
        if claims:
            names = {c.name for c in claims}
            pod.spec.volumes = [*(v for v in pod.spec.volumes if v.name not in names), *claims]
            pod.mark_set("spec")
        out.append(pod)
        if ordered:
            break
    return out


def statefulset_ordinals(sts: StatefulSet) -> range:
    """The ordinals of the set's replicas: ``replicas`` (default 1) from ``ordinals.start`` (default 0)."""
    start = sts.spec.ordinals.start if sts.spec.ordinals and sts.spec.ordinals.start else 0
    return range(start, start + (1 if sts.spec.replicas is None else sts.spec.replicas))


def ordered_ready(sts: StatefulSet) -> bool:
    """Whether the set's pods are created one at a time (``podManagementPolicy`` OrderedReady, the default)."""
    return sts.spec.pod_management_policy in (None, "OrderedReady")


def running_and_ready(pod: Pod) -> bool:
    """``isRunningAndReady``: phase Running and the Ready condition True.

    >>> running_and_ready(Pod.model_validate({"status": {"phase": "Running",
    ...                                                  "conditions": [{"type": "Ready", "status": "True"}]}}))
    True
    >>> running_and_ready(Pod.model_validate({"status": {"phase": "Running"}}))
    False
    """
    status = pod.status
    return (status is not None and status.phase == "Running"
            and any(c.type == "Ready" and c.status == "True" for c in status.conditions))


def parse_indexes(text: str | None) -> set[int]:
    """The indexes of a Job's ``status.completedIndexes`` (``"0-2,4"``).

    >>> sorted(parse_indexes("0-2,4,6,7"))
    [0, 1, 2, 4, 6, 7]
    """
    out: set[int] = set()
    for part in (text or "").split(","):
        part = part.strip()
        if not part:
            continue
        if "-" in part:
            a, b = part.split("-", 1)
            out.update(range(int(a), int(b) + 1))
        else:
            out.add(int(part))
    return out


def _prepare_job(job: Job, seed: int) -> None:
    """What the API server adds to a Job on create: defaults, selector, labels."""
    ensure_uid(job, seed)
    spec = job.spec
    if spec.completions is None and spec.parallelism is None:
        spec.completions = 1
        spec.parallelism = 1
    if spec.parallelism is None:
        spec.parallelism = 1
    if spec.completion_mode is None:
        spec.completion_mode = "NonIndexed"
    if not spec.manual_selector:
        uid = job.metadata.uid or ""
        labels = {
            **spec.template.metadata.labels,
            LABEL_CONTROLLER_UID: uid,
            LABEL_JOB_NAME: job.name,
            LABEL_LEGACY_CONTROLLER_UID: uid,
            LABEL_LEGACY_JOB_NAME: job.name,
        }
        spec.template.metadata.labels = labels
        spec.template.mark_set("metadata")
        if spec.selector is None:
            spec.selector = LabelSelector(match_labels={LABEL_CONTROLLER_UID: uid})
    job.mark_set("spec")


def expand_job(job: Job, existing_pods: Iterable[Pod] = (), seed: int = 0,
               taken: set[str] | None = None, pod_group: str | None = None,
               claimed: set[int] | None = None, rng: random.Random | None = None,
               count_terminating: bool = False) -> list[Pod]:
    """The pods a Job controller starts: ``parallelism``, capped by remaining completions.

    ``job`` is completed in place with what the API server adds on create
    (uid, selector, job labels, defaults). With ``pod_group`` (the PodGroup the
    controller manages for the Job, see :func:`job_pod_group`) each new pod gets
    ``spec.schedulingGroup.podGroupName``. ``rng`` draws the names' suffixes (by default
    the Job's own source, fixed by ``seed``); ``count_terminating``: terminating pods still
    count as running (``podReplacementPolicy: Failed``).

    >>> j = Job(metadata={"name": "pi", "namespace": "default"},
    ...         spec={"completions": 3, "parallelism": 5, "completionMode": "Indexed"})
    >>> pods = expand_job(j)
    >>> [p.metadata.annotations["batch.kubernetes.io/job-completion-index"] for p in pods]
    ['0', '1', '2']
    >>> pods[0].name.startswith("pi-0-"), pods[0].spec.hostname
    (True, 'pi-0')
    """
    _prepare_job(job, seed)
    spec = job.spec
    if spec.suspend:  # the Job controller creates no pods and says why in a condition
        if not any(c.type == "Suspended" for c in job.status.conditions):
            job.status.conditions = [*job.status.conditions, JobCondition(type="Suspended", status="True",
                                                                          reason="JobSuspended",
                                                                          message="Job suspended")]
            job.mark_set("status")
        return []
    owned = owned_pods(job, list(existing_pods), claimed)
    active = active_pods(owned)
    if count_terminating:
        active += terminating_pods(owned)
    diff = pods_lacking(job, len(active))
    if diff <= 0:
        return []
    taken = set() if taken is None else taken
    rng = owner_rng(seed, job) if rng is None else rng
    template = spec.template
    out: list[Pod] = []
    if spec.completion_mode == "Indexed":
        used = parse_indexes(job.status.completed_indexes)
        for p in active:
            idx = p.metadata.annotations.get(JOB_COMPLETION_INDEX) or p.metadata.labels.get(JOB_COMPLETION_INDEX)
            if idx is not None and idx.isdigit():
                used.add(int(idx))
        indexes = [i for i in range(spec.completions or 0) if i not in used][:diff]
        for index in indexes:
            append = f"-{index}-"
            prefix = job.name + append
            if len(prefix) > MAX_GENERATED_NAME_LENGTH:
                prefix = prefix[: MAX_GENERATED_NAME_LENGTH - len(append)] + append
            name = generated_name(prefix, rng, taken)
            pod = pod_from_template(
                template, job, name, seed,
                extra_labels={JOB_COMPLETION_INDEX: str(index)},
                extra_annotations={JOB_COMPLETION_INDEX: str(index)},
                generate_name=prefix,
            )
            pod.spec.hostname = f"{job.name}-{index}"
            index_env = EnvVar.model_validate({"name": "JOB_COMPLETION_INDEX", "valueFrom": {
                "fieldRef": {"fieldPath": f"metadata.labels['{JOB_COMPLETION_INDEX}']"}}})
            for c in [*pod.spec.init_containers, *pod.spec.containers]:
                if not any(e.name == "JOB_COMPLETION_INDEX" for e in c.env):
                    c.env = [*c.env, index_env.clone()]
            out.append(pod)
    else:
        for _ in range(diff):
            prefix = f"{job.name}-"
            out.append(pod_from_template(template, job, generated_name(prefix, rng, taken), seed, generate_name=prefix))
    for pod in out:
        if JOB_TRACKING_FINALIZER not in pod.metadata.finalizers:
            pod.metadata.finalizers = [*pod.metadata.finalizers, JOB_TRACKING_FINALIZER]
        if pod_group:
            pod.spec.scheduling_group = PodSchedulingGroup(pod_group_name=pod_group)
            pod.spec.mark_set("scheduling_group")
    return out


def pods_lacking(job: Job, active: int) -> int:
    """How many pods the Job controller would start with ``active`` pods running: up to
    ``parallelism``, capped by the completions still to succeed (a work queue, without
    ``completions``, starts none once a pod has succeeded); 0 or less when none.

    >>> j = Job(metadata={"name": "pi"}, spec={"completions": 5, "parallelism": 2})
    >>> pods_lacking(j, 0), pods_lacking(j, 2)
    (2, 0)
    """
    spec, succeeded = job.spec, job.status.succeeded or 0
    parallelism = spec.parallelism or 0
    if spec.completions is None:
        want = active if succeeded > 0 else parallelism
    else:
        want = max(0, min(spec.completions - succeeded, parallelism))
    return want - active


# ------------------------------------------------- Job -> Workload -> PodGroup -> pods

DNS1123_SUBDOMAIN_MAX_LENGTH = 253


def compute_pod_group_name(workload_name: str, template_name: str) -> str:
    """Name of the PodGroup a Job controller creates from a Workload's template
    (upstream ``computePodGroupName``): ``<workload>-<template>-<hash>``, the hash being
    FNV-32a of both names, printed in decimal and safe-encoded; names are truncated
    to fit 253 characters.

    >>> compute_pod_group_name("training-policy", "worker").startswith("training-policy-worker-")
    True
    """
    h = safe_encode_string(str(fnv32a((workload_name + template_name).encode())))
    max_available = DNS1123_SUBDOMAIN_MAX_LENGTH - len(h) - 2
    wl, tpl = workload_name, template_name
    if len(wl) + len(tpl) > max_available:
        half = max_available // 2
        if len(wl) <= half:
            tpl = tpl[: max_available - len(wl)]
        elif len(tpl) <= half:
            wl = wl[: max_available - len(tpl)]
        else:
            wl, tpl = wl[: max_available - half], tpl[:half]
    return f"{wl}-{tpl}-{h}"


def _is_new_job(job: Job, owned: list[Pod]) -> bool:
    # upstream isNewJob: objects are only created for a Job that has never started
    st = job.status
    if owned or st.start_time is not None or (st.succeeded or 0) or (st.failed or 0):
        return False
    return not any(c.type == "Suspended" for c in st.conditions)


def job_pod_group(job: Job, objects: Iterable[TypedObject], seed: int = 0,
                  existing_pods: Iterable[Pod] = ()) -> tuple[Any, bool]:
    """The PodGroup the Job controller manages for ``job``: ``(PodGroup or None, created)``.

    A Job takes part in workload-aware scheduling when a Workload in its namespace names
    it in ``spec.controllerRef`` (``{apiGroup: batch, kind: Job, name}``) — that Workload
    must have exactly one ``podGroupTemplates`` entry, as upstream's controller requires
    (otherwise the Job falls back to pod-by-pod scheduling). A PodGroup controlled by the
    Job with ``spec.workloadRef`` to that Workload is reused; else, for a Job that has not
    started, one is created from the template: ``workloadRef``, ``schedulingPolicy``,
    ``schedulingConstraints``, ``disruptionMode``, ``resourceClaims`` and (as the seed
    documents) ``priorityClassName``/``preemptionPolicy`` copied, a controller owner
    reference to the Job and a plain one to the Workload. A Job whose pod template
    already names a ``schedulingGroup`` (bring your own PodGroup) or that has a
    controller owner of its own is left alone.

    >>> from kschedlab.api.workloadapi import Workload
    >>> job = Job(metadata={"name": "train", "namespace": "ml"},
    ...           spec={"parallelism": 4, "completions": 4, "completionMode": "Indexed"})
    >>> wl = Workload.model_validate({"metadata": {"name": "train-policy", "namespace": "ml"},
    ...     "spec": {"controllerRef": {"apiGroup": "batch", "kind": "Job", "name": "train"},
    ...              "podGroupTemplates": [{"name": "worker", "schedulingPolicy": {"gang": {"minCount": 4}}}]}})
    >>> pg, created = job_pod_group(job, [job, wl])
    >>> created, pg.spec.workload_ref.workload_name, pg.spec.scheduling_policy.gang.min_count
    (True, 'train-policy', 4)
    >>> [(r.kind, r.controller) for r in pg.metadata.owner_references]
    [('Job', True), ('Workload', None)]
    """
    from ..api.podgroup import PodGroup
    from ..api.workloadapi import Workload

    if job.spec.template.spec.scheduling_group is not None or job.metadata.controller_ref() is not None:
        return None, False
    ns = job.namespace or "default"
    objects = list(objects)
    workloads = [o for o in objects if isinstance(o, Workload) and (o.namespace or "default") == ns
                 and o.controlled_by("Job", job.name, "batch")
                 and (o.metadata.controller_ref() is None or controlled_by(o, job))]
    if len(workloads) != 1 or len(workloads[0].spec.pod_group_templates) != 1:
        return None, False
    wl = workloads[0]
    ensure_uid(job, seed)
    ensure_uid(wl, seed)
    for o in objects:
        if (isinstance(o, PodGroup) and (o.namespace or "default") == ns and o.spec.workload_ref is not None
                and o.spec.workload_ref.workload_name == wl.name and controlled_by(o, job)):
            return o, False
    if not _is_new_job(job, owned_pods(job, list(existing_pods))):
        return None, False
    template = wl.spec.pod_group_templates[0]
    spec: dict[str, Any] = {
        "workloadRef": {"workloadName": wl.name, "templateName": template.name},
        "schedulingPolicy": template.scheduling_policy.model_dump(by_alias=True, exclude_none=True),
    }
    for attr, key in (("scheduling_constraints", "schedulingConstraints"), ("disruption_mode", "disruptionMode")):
        value = getattr(template, attr)
        if value is not None:
            spec[key] = value.model_dump(by_alias=True, exclude_none=True)
    if template.resource_claims:
        spec["resourceClaims"] = [c.model_dump(by_alias=True, exclude_none=True) for c in template.resource_claims]
    if template.priority_class_name:
        spec["priorityClassName"] = template.priority_class_name
    if template.preemption_policy:
        spec["preemptionPolicy"] = template.preemption_policy
    meta: dict[str, Any] = {"name": compute_pod_group_name(wl.name, template.name or "")}
    if job.namespace:
        meta["namespace"] = job.namespace
    pg = PodGroup.model_validate({"metadata": meta, "spec": spec})
    pg.metadata.owner_references = [
        controller_ref(job),
        OwnerReference(api_version=wl.api_version, kind="Workload", name=wl.name, uid=wl.metadata.uid),
    ]
    pg.metadata.uid = object_uid(seed, "PodGroup", pg.key)
    pg.mark_set("metadata")
    pg._source = job._source
    return pg, True


def expand(objects: Iterable[TypedObject], seed: int = 0,
           feature_gates: Mapping[str, bool] | None = None, max_pods: int | None = None) -> list[TypedObject]:
    """Add the ReplicaSets and pods controllers would create; deterministic per ``seed``.

    Deployments, ReplicaSets, StatefulSets, Jobs and DaemonSets (one pod per eligible
    Node among ``objects``, :mod:`kschedlab.controllers.daemonset`) are expanded. What a
    controller already has is found as the controller finds it (owner references,
    else adoption by selector, :mod:`kschedlab.controllers.controller_ref`) and counts
    towards the desired state, so a dump of a running cluster expands to itself.
    Generated objects follow their owner. Inputs are not changed (copies are
    returned, completed with generated UIDs and, for Jobs, the selector and
    labels the API server adds). ``feature_gates`` matter to DaemonSets only
    (TaintTolerationComparisonOperators).

    Objects are validated first as the API server validates them
    (:func:`~kschedlab.apiserver.object_validation.check_objects`), and the pods the load creates
    are bounded by ``max_pods`` (default ``KSCHEDLAB_MAX_PODS``, else 100,000): a workload
    that may pass the bound is refused, naming it and its field.

    >>> from kschedlab.api.apps import StatefulSet
    >>> out = expand([StatefulSet(metadata={"name": "db", "namespace": "default"}, spec={"replicas": 2})])
    >>> [o.key for o in out]  # OrderedReady: db-1 once db-0 is Running and Ready
    ['default/db', 'default/db-0']
    >>> [o.metadata.uid for o in out] == [o.metadata.uid for o in expand(out[:1])]
    True
    >>> len(expand(out)) == len(out)  # the expansion expands to itself
    True
    """
    from ..api.apps import DaemonSet
    from ..api.core import Node
    from ..api.podgroup import PodGroup
    from ..api.workloadapi import Workload
    from .controller_ref import OwnerIndex
    from .daemonset import expand_daemonset

    objects = list(objects)
    check_objects(objects)
    bound = default_max_pods() if max_pods is None else max_pods
    made_pods = 0
    objs = [o.clone() for o in objects]
    pods = [o for o in objs if isinstance(o, Pod)]
    nodes = [o for o in objs if isinstance(o, Node)]
    scheduling = [o for o in objs if isinstance(o, (Workload, PodGroup))]
    pod_index = OwnerIndex(pods)
    rs_index = OwnerIndex([o for o in objs if isinstance(o, ReplicaSet)])
    taken: dict[str, set[str]] = {}
    for o in objs:
        if isinstance(o, KubeObject) and o.metadata.name:
            taken.setdefault(o.namespace, set()).add(o.metadata.name)
    claimed: set[int] = set()  # orphans already adopted by an earlier controller

    out: list[TypedObject] = []
    for o in objs:
        out.append(o)
        names = taken.setdefault(o.namespace, set()) if isinstance(o, KubeObject) else set()
        too_many = pod_bound_error(o, made_pods, len(nodes), bound)
        if too_many is not None:
            raise too_many
        if isinstance(o, Deployment):
            sets = rs_index.candidates(o)
            sets_pods = [p for rs in sets for p in pod_index.candidates(rs)]
            # the ReplicaSets' pods, and the namespace's orphans (a new ReplicaSet may adopt them)
            made = expand_deployment(o, [*sets, *sets_pods, *pod_index.candidates(o)], seed, names, claimed,
                                     replicaset_names=[rs.name for rs in rs_index.in_namespace(o.namespace)])
        elif isinstance(o, ReplicaSet):
            made = expand_replicaset(o, pod_index.candidates(o), seed, names, claimed)
        elif isinstance(o, StatefulSet):
            made = expand_statefulset(o, pod_index.in_namespace(o.namespace), seed, claimed)
        elif isinstance(o, DaemonSet):
            made = expand_daemonset(o, nodes, pod_index.candidates(o), seed, names, claimed, feature_gates)
        elif isinstance(o, Job):
            owned = pod_index.candidates(o)
            pg, created = job_pod_group(o, [o, *scheduling], seed, owned)
            made = ([pg] if created else []) + expand_job(
                o, owned, seed, names, pod_group=pg.name if pg is not None else None, claimed=claimed)
        else:
            continue
        for m in made:
            if isinstance(m, KubeObject):
                taken.setdefault(m.namespace, set()).add(m.name)
            made_pods += isinstance(m, Pod)
        out.extend(made)
    for o in out:  # the ephemeral volume controller's claims name their pod by UID
        if isinstance(o, Pod) and o.metadata.name and any(v.ephemeral is not None for v in o.spec.volumes):
            ensure_uid(o, seed)
    out.extend(create_claims(out))
    return out
