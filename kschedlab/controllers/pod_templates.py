"""What every workload controller does with a pod template: hash it (``pod-template-hash``,
``controller-revision-hash``), name the pods it creates, and own them (controller references,
UIDs) — shared by the Deployment / ReplicaSet / StatefulSet / Job expansion and the
DaemonSet controller.

>>> from kschedlab.api.core import PodTemplateSpec
>>> pod_template_hash(PodTemplateSpec.model_validate({"metadata": {"labels": {"app": "web"}}}))
'65f44fcd74'
"""

from __future__ import annotations

import hashlib
import json
import random
import uuid
from typing import Any

from ..api.apps import StatefulSet
from ..api.core import ObjectMeta, OwnerReference, Pod, PodTemplateSpec
from ..api.meta import KubeObject

ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"
"""Upstream ``util/rand`` alphabet (no vowels, no confusable characters)."""

MAX_GENERATED_NAME_LENGTH = 63 - 5
LABEL_POD_TEMPLATE_HASH = "pod-template-hash"
LABEL_CONTROLLER_REVISION_HASH = "controller-revision-hash"
LABEL_STS_POD_NAME = "statefulset.kubernetes.io/pod-name"
LABEL_POD_INDEX = "apps.kubernetes.io/pod-index"
LABEL_JOB_NAME = "batch.kubernetes.io/job-name"
LABEL_LEGACY_JOB_NAME = "job-name"
LABEL_CONTROLLER_UID = "batch.kubernetes.io/controller-uid"
LABEL_LEGACY_CONTROLLER_UID = "controller-uid"
JOB_COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index"
JOB_TRACKING_FINALIZER = "batch.kubernetes.io/job-tracking"
ANN_REVISION = "deployment.kubernetes.io/revision"
ANN_DESIRED_REPLICAS = "deployment.kubernetes.io/desired-replicas"
ANN_MAX_REPLICAS = "deployment.kubernetes.io/max-replicas"
ANN_LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


def safe_encode_string(s: str) -> str:
    """Map each character into the safe alphabet (upstream ``rand.SafeEncodeString``).

    >>> safe_encode_string("0123456789")
    '456789bcdf'
    """
    return "".join(ALPHANUMS[ord(ch) % len(ALPHANUMS)] for ch in s)


def fnv32a(data: bytes) -> int:
    """The 32-bit FNV-1a hash (Go's ``hash/fnv`` New32a) of ``data``."""
    h = 0x811C9DC5
    for b in data:
        h ^= b
        h = (h * 0x01000193) & 0xFFFFFFFF
    return h


def _fnv32(data: bytes) -> int:
    h = 0x811C9DC5
    for b in data:
        h = (h * 0x01000193) & 0xFFFFFFFF
        h ^= b
    return h


def _canonical_json(obj: Any) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def _template_data(template: PodTemplateSpec) -> Any:
    return template.model_dump(mode="json", by_alias=True, exclude_unset=True)


def pod_template_hash(template: PodTemplateSpec, collision_count: int | None = None) -> str:
    """``pod-template-hash`` of a Deployment template (upstream ``ComputeHash`` scheme).

    FNV-32a of the template (our canonical JSON), plus the collision count,
    printed in decimal and safe-encoded: up to 10 characters.

    >>> h = pod_template_hash(PodTemplateSpec(metadata={"labels": {"app": "web"}}))
    >>> h == pod_template_hash(PodTemplateSpec(metadata={"labels": {"app": "web"}})), set(h) <= set(ALPHANUMS)
    (True, True)
    """
    data = _canonical_json(_template_data(template))
    if collision_count is not None:
        data += (collision_count & 0xFFFFFFFF).to_bytes(4, "little") + bytes(4)
    return safe_encode_string(str(fnv32a(data)))


def controller_revision_hash(sts: StatefulSet) -> str:
    """Name of a StatefulSet's current ControllerRevision (``<name>-<hash>``).

    Upstream hashes the revision's patch (``{"spec":{"template":{..., "$patch":
    "replace"}}}``) with FNV-32, in hex, safe-encoded.

    >>> s = StatefulSet(metadata={"name": "web"})
    >>> controller_revision_hash(s).startswith("web-")
    True
    """
    template = _template_data(sts.spec.template)
    template["$patch"] = "replace"
    raw = _canonical_json({"spec": {"template": template}})
    probe = sts.status.collision_count
    if probe is not None:
        raw += str(probe).encode()
    h = safe_encode_string(format(_fnv32(raw), "x"))
    prefix = (sts.metadata.name or "")[:223]
    return f"{prefix}-{h}"


# ------------------------------------------------------------------- helpers


def object_uid(seed: int, kind: str, key: str) -> str:
    """A uid for the object ``kind`` ``key``, the same for the same seed (the API server's are random)."""
    digest = hashlib.sha256(f"kschedlab/{seed}/{kind}/{key}".encode()).digest()
    return str(uuid.UUID(bytes=digest[:16], version=4))


def owner_rng(seed: int, owner: KubeObject) -> random.Random:
    """The random source of the names ``owner``'s controller generates, fixed by the seed."""
    return random.Random(f"kschedlab/{seed}/{owner.kind}/{owner.key}")


def generated_name(prefix: str, rng: random.Random, taken: set[str]) -> str:
    """``prefix`` and five random alphanumerics (``metadata.generateName``), not in ``taken``."""
    if len(prefix) > MAX_GENERATED_NAME_LENGTH:
        prefix = prefix[:MAX_GENERATED_NAME_LENGTH]
    while True:
        name = prefix + "".join(rng.choice(ALPHANUMS) for _ in range(5))
        if name not in taken:
            taken.add(name)
            return name


def controller_ref(owner: KubeObject) -> OwnerReference:
    """The ownerReference a controller sets on what it makes (``controller: true``)."""
    return OwnerReference(
        api_version=owner.api_version,
        kind=owner.kind,
        name=owner.name,
        uid=owner.metadata.uid,
        controller=True,
        block_owner_deletion=True,
    )


def ensure_uid(obj: KubeObject, seed: int) -> None:
    """Give ``obj`` a uid (:func:`object_uid`) unless it has one."""
    if not obj.metadata.uid:
        obj.metadata.uid = object_uid(seed, obj.kind or "", obj.key)
        obj.mark_set("metadata")


def pod_from_template(
    template: PodTemplateSpec, owner: KubeObject, name: str, seed: int,
    extra_labels: dict[str, str] | None = None, extra_annotations: dict[str, str] | None = None,
    generate_name: str | None = None,
) -> Pod:
    """A pod ``name`` made by ``owner`` from ``template`` (its labels, annotations and ownerReference).
    ``generate_name``: the prefix the controller submits instead of a name (ReplicaSets, Jobs and
    DaemonSets do; the API server generates ``name`` from it), kept in ``metadata.generateName``."""
    tm = template.metadata
    meta: dict[str, Any] = {"name": name}
    if generate_name:
        meta["generateName"] = generate_name
    if owner.namespace:
        meta["namespace"] = owner.namespace
    labels = {**tm.labels, **(extra_labels or {})}
    annotations = {**tm.annotations, **(extra_annotations or {})}
    if labels:
        meta["labels"] = labels
    if annotations:
        meta["annotations"] = annotations
    if tm.finalizers:
        meta["finalizers"] = list(tm.finalizers)
    pod = Pod(metadata=ObjectMeta(**meta), spec=template.spec.clone())
    pod.metadata.owner_references = [controller_ref(owner)]
    pod.metadata.uid = object_uid(seed, "Pod", pod.key)
    pod._source = owner._source  # errors about generated objects name the owner's file
    pod._generated_name = bool(generate_name)
    return pod
