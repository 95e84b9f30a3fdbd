"""What the API server checks on every object before anything is created from it:
``ValidateObjectMeta`` (names per kind, namespace name, labels, annotations, owner references), node taints,
container names, workload specs (``ValidateReplicaSetSpec`` and its siblings: non-negative
counts, a selector matching the template's labels), a PodDisruptionBudget's ``minAvailable`` /
``maxUnavailable`` (not both; a count or a percentage of at most 100%), the enumerated fields of
every kind (:mod:`~kschedlab.apiserver.supported_values`), with upstream's messages and field
paths; a count that does not fit its int32 is the decoder's 400 BadRequest instead
(:func:`decode_error`); and a bound on the pods one load may create.

:func:`check_objects` runs at the start of :func:`~kschedlab.controllers.workloads.expand`, so a
refused object makes no pods and a ``replicas: 10000000`` is refused before the first pod
is made; applied as ``kubectl apply -f`` applies (not strict), :func:`refuse_invalid` leaves each
invalid object out first and the rest goes on. Objects a test builds directly (the conformance runner's fixtures) never pass here.

Not validated here: the other checks of kinds with their own validation module (PriorityClass,
resource.k8s.io, scheduling.k8s.io Workload/PodGroup, storage), finalizers and managed fields.
A cluster-scoped object's ``metadata.namespace`` is cleared by admission, as the API server
clears it, rather than refused; an empty namespace is defaulted there too. Unlike upstream, a
workload without ``spec.selector`` is accepted (examples and tests of the project leave it out;
the controllers then select by the template's labels).

>>> from kschedlab.api.core import Pod
>>> pod = Pod.model_validate({"metadata": {"name": "<b>x</b>", "namespace": "A B",
...     "labels": {"a b": "ok", "app": "-x"}}, "spec": {"containers": [{"name": "app"}]}})
>>> for path, message in object_errors(pod):
...     print(f"{path}: {message}")  # doctest: +NORMALIZE_WHITESPACE
metadata.name: Invalid value: "<b>x</b>": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')
metadata.namespace: Invalid value: "A B": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')
metadata.labels: Invalid value: "a b": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')
metadata.labels: Invalid value: "-x": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')
"""

from __future__ import annotations

import json
import os
import re
from typing import Any, Callable, Iterable

from ..api.errors import ManifestError, format_path
from ..api.meta import KubeObject, TypedObject
from ..api.resources import to_units
from ..api.unmarshal import INT32_COUNTS, count_decode_error
from ..api.validation import (
    dns1123_label_errors,
    dns1123_subdomain_errors,
    label_value_errors,
    qualified_name_errors,
)
from .apply import Refusal
from .container_restart import restart_errors
from .field import go_pointer
from .pod_validation import ephemeral_containers_errors, pod_spec_field_errors
from .supported_values import enum_errors

__all__ = ["object_errors", "check_objects", "refuse_invalid", "object_meta_errors", "owner_references_errors",
           "workload_errors", "wanted_pods", "pod_bound_error", "DEFAULT_MAX_PODS", "MAX_PODS_ENV", "max_pods", "TOTAL_ANNOTATION_SIZE_LIMIT_B"]

DEFAULT_MAX_PODS = 100_000
"""The most pods one load may create from its workloads (set ``KSCHEDLAB_MAX_PODS`` to change it)."""
MAX_PODS_ENV = "KSCHEDLAB_MAX_PODS"
TOTAL_ANNOTATION_SIZE_LIMIT_B = 256 * (1 << 10)
_INT64_MAX = 2**63 - 1
TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")

Errors = list[tuple[str, str]]


def _quote(value: str) -> str:
    """Go's ``%q`` of a string, as field errors show a bad value."""
    return json.dumps(value, ensure_ascii=False)


def _invalid(path: Iterable[Any], value: Any, message: str) -> tuple[str, str]:
    shown = _quote(value) if isinstance(value, str) else str(value)
    return format_path(path), f"Invalid value: {shown}: {message}"


def _mask_trailing_dash(name: str) -> str:
    return name[:-1] + "a" if len(name) > 1 and name.endswith("-") else name


def name_is_dns_subdomain(name: str, prefix: bool) -> list[str]:
    """``NameIsDNSSubdomain``: a generateName prefix may end with a dash."""
    return dns1123_subdomain_errors(_mask_trailing_dash(name) if prefix else name)


def name_is_dns_label(name: str, prefix: bool) -> list[str]:
    """``NameIsDNSLabel``."""
    return dns1123_label_errors(_mask_trailing_dash(name) if prefix else name)


NAME_RULES: dict[str, Callable[[str, bool], list[str]]] = {
    "Pod": name_is_dns_subdomain,
    "Node": name_is_dns_subdomain,
    "Namespace": name_is_dns_label,
    "Deployment": name_is_dns_subdomain,
    "ReplicaSet": name_is_dns_subdomain,
    "StatefulSet": name_is_dns_label,
    "DaemonSet": name_is_dns_subdomain,
    "Job": name_is_dns_subdomain,
    "PodDisruptionBudget": name_is_dns_subdomain,
    "ResourceQuota": name_is_dns_subdomain,
    "RuntimeClass": name_is_dns_subdomain,
}
"""The kinds validated here and their name rule (upstream's ``Validate<Kind>Name``)."""


def labels_errors(labels: dict[str, str], path: list[Any]) -> Errors:
    """``ValidateLabels``: every key a qualified name, every value a label value."""
    errs: Errors = []
    for k, v in labels.items():
        errs += [_invalid(path, k, msg) for msg in qualified_name_errors(k)]
        errs += [_invalid(path, v, msg) for msg in label_value_errors(v)]
    return errs


def annotations_errors(annotations: dict[str, str], path: list[Any]) -> Errors:
    """``ValidateAnnotations``: keys qualified names (any case), 256 KiB in all."""
    errs: Errors = []
    for k in annotations:
        errs += [_invalid(path, k, msg) for msg in qualified_name_errors(k.lower())]
    size = sum(len(k.encode()) + len(v.encode()) for k, v in annotations.items())
    if size > TOTAL_ANNOTATION_SIZE_LIMIT_B:
        errs.append((format_path(path), f"Too long: may not be more than {TOTAL_ANNOTATION_SIZE_LIMIT_B} bytes"))
    return errs


#: kinds that may not own objects (upstream ``BannedOwners``), by (group, version, kind)
BANNED_OWNERS = {("", "v1", "Event")}


def _go_json(value: Any) -> str:
    """``value`` as Go's ``encoding/json`` writes it (compact; ``<``, ``>``, ``&`` escaped)."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _owner_json(ref: Any) -> dict:
    out = {"apiVersion": ref.api_version or "", "kind": ref.kind or "", "name": ref.name or "", "uid": ref.uid or ""}
    if ref.controller is not None:
        out["controller"] = ref.controller
    if ref.block_owner_deletion is not None:
        out["blockOwnerDeletion"] = ref.block_owner_deletion
    return out


def owner_references_errors(refs: list[Any], path: list[Any]) -> Errors:
    """``ValidateOwnerReferences``: ``apiVersion`` with a version, ``kind``, ``name`` and ``uid``
    set, no Event as owner, at most one controller (the path has no index, as upstream's).

    >>> from kschedlab.api.meta import OwnerReference
    >>> owner_references_errors([OwnerReference(api_version="apps/", name="web")], ["metadata", "ownerReferences"])
    [('metadata.ownerReferences.apiVersion', 'Invalid value: "apps/": version must not be empty'), ('metadata.ownerReferences.kind', 'Invalid value: "": must not be empty'), ('metadata.ownerReferences.uid', 'Invalid value: "": must not be empty')]

    >>> from kschedlab.api.meta import OwnerReference
    >>> a = OwnerReference(api_version="apps/v1", kind="ReplicaSet", name="a", uid="1", controller=True)
    >>> owner_references_errors([a, a.model_copy(update={"name": "b"})], ["metadata", "ownerReferences"])
    [('metadata.ownerReferences', 'Invalid value: [{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"a","uid":"1","controller":true},{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"b","uid":"1","controller":true}]: Only one reference can have Controller set to true. Found "true" in references for ReplicaSet/a and ReplicaSet/b')]
    """
    errs: Errors = []
    first_controller = ""
    for ref in refs:
        parts = (ref.api_version or "").split("/")
        group, version = ("", "") if len(parts) > 2 else (parts[0] if len(parts) == 2 else "", parts[-1])
        if not version:
            errs.append(_invalid([*path, "apiVersion"], ref.api_version or "", "version must not be empty"))
        for name, value in (("kind", ref.kind), ("name", ref.name), ("uid", ref.uid)):
            if not value:
                errs.append(_invalid([*path, name], "", "must not be empty"))
        if (group, version, ref.kind) in BANNED_OWNERS:
            errs.append((format_path(path), f"Invalid value: {_go_json(_owner_json(ref))}: "
                                            f"{group}/{version}, Kind={ref.kind} is disallowed from being an owner"))
        if ref.controller:
            current = f"{ref.kind or ''}/{ref.name or ''}"
            if first_controller:
                errs.append((format_path(path), f"Invalid value: {_go_json([_owner_json(r) for r in refs])}: Only one "
                                                f'reference can have Controller set to true. Found "true" in references '
                                                f"for {first_controller} and {current}"))
            else:
                first_controller = current
    return errs


def object_meta_errors(obj: KubeObject) -> Errors:
    """``ValidateObjectMeta`` with the kind's name rule (see the module text for what is left out)."""
    meta = obj.metadata
    rule = NAME_RULES[obj.kind or ""]
    errs: Errors = []
    if meta.generate_name:
        errs += [_invalid(["metadata", "generateName"], meta.generate_name, m) for m in rule(meta.generate_name, True)]
    if meta.name:
        errs += [_invalid(["metadata", "name"], meta.name, m) for m in rule(meta.name, False)]
    elif not meta.generate_name:
        errs.append(("metadata.name", "Required value: name or generateName is required"))
    if obj.NAMESPACED and meta.namespace:
        errs += [_invalid(["metadata", "namespace"], meta.namespace, m) for m in name_is_dns_label(meta.namespace, False)]
    if meta.generation is not None and meta.generation < 0:
        errs.append(_invalid(["metadata", "generation"], meta.generation, "must be greater than or equal to 0"))
    errs += labels_errors(meta.labels, ["metadata", "labels"])
    errs += annotations_errors(meta.annotations, ["metadata", "annotations"])
    errs += owner_references_errors(meta.owner_references, ["metadata", "ownerReferences"])
    return errs


def _pod_spec_errors(spec: Any, path: list[Any], claim_volumes: Iterable[str] = ()) -> Errors:
    errs: Errors = []
    seen: set[str] = set()
    for group, containers in (("initContainers", spec.init_containers), ("containers", spec.containers)):
        for i, c in enumerate(containers):
            p = [*path, group, i, "name"]
            if not c.name:
                errs.append((format_path(p), "Required value"))
                continue
            errs += [_invalid(p, c.name, m) for m in dns1123_label_errors(c.name)]
            if c.name in seen:
                errs.append((format_path(p), f"Duplicate value: {_quote(c.name)}"))
            seen.add(c.name)
            for kind in ("requests", "limits"):
                for name, q in getattr(c.resources, kind).items():
                    errs += _amount_errors(name, q, [*path, group, i, "resources", kind, name])
    return errs + restart_errors(spec, path) + pod_spec_field_errors(spec, path, claim_volumes)


def _amount_errors(name: str, quantity: Any, path: list[Any]) -> Errors:
    # Not an upstream check: Value() overflows int64 there; kschedlab keeps amounts in int64 columns.
    if abs(to_units(name, quantity)) > _INT64_MAX:
        unit = "millicores" if name == "cpu" else "units"
        return [_invalid(path, str(quantity), f"must be no more than {_INT64_MAX} {unit} "
                                              "(kschedlab holds resource amounts in int64)")]
    return []


def _node_errors(node: Any) -> Errors:
    errs: Errors = []
    for i, t in enumerate(node.spec.taints):
        p = ["spec", "taints", i]
        errs += [_invalid([*p, "key"], t.key or "", m) for m in qualified_name_errors(t.key or "")]
        value_errs = label_value_errors(t.value or "")
        if value_errs:
            errs.append(_invalid([*p, "value"], t.value or "", ";".join(value_errs)))
        if not t.effect:
            errs.append((format_path([*p, "effect"]), "Required value"))
        elif t.effect not in TAINT_EFFECTS:
            supported = ", ".join(_quote(e) for e in TAINT_EFFECTS)
            errs.append((format_path([*p, "effect"]),
                         f"Unsupported value: {_quote(t.effect)}: supported values: {supported}"))
    for kind in ("capacity", "allocatable"):
        for name, q in getattr(node.status, kind).items():
            errs += _amount_errors(name, q, ["status", kind, name])
    return errs


def _count_errors(value: int | None, path: list[Any]) -> Errors:
    """An int32 count validation refuses when negative (one that does not fit is a decode error)."""
    if value is not None and value < 0:
        return [_invalid(path, value, "must be greater than or equal to 0")]
    return []


def decode_error(obj: Any) -> str | None:
    """The API server's 400 answer when ``obj``'s JSON does not decode into its Go type: a count
    its int32 cannot hold (:mod:`kschedlab.api.unmarshal`; the decoder stops at the first such
    field, nothing is validated). The loader records it; an object built in Python is checked here.

    >>> from kschedlab.api.apps import Deployment
    >>> print(decode_error(Deployment.model_validate({"spec": {"replicas": 10**18}})))
    Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal number 1000000000000000000 into Go struct field DeploymentSpec.spec.replicas of type int32
    """
    if obj.decode_error is not None:
        return str(obj.decode_error)
    kind = obj.kind or ""
    return count_decode_error(kind, obj.api_version or "",
                              {name: getattr(obj.spec, name) for name in INT32_COUNTS.get(kind, ())})


def _go_map(labels: dict[str, str]) -> str:
    inner = ", ".join(f"{_quote(k)}:{_quote(v)}" for k, v in sorted(labels.items()))
    return "map[string]string{" + inner + "}"


def workload_errors(obj: Any) -> Errors:
    """``ValidateReplicaSetSpec`` / ``ValidateDeploymentSpec`` / StatefulSet, DaemonSet and Job
    spec checks that matter before pods are made: counts, selector, template labels and
    container names."""
    kind = obj.kind
    spec = obj.spec
    errs: Errors = []
    if kind in ("Deployment", "ReplicaSet", "StatefulSet"):
        errs += _count_errors(spec.replicas, ["spec", "replicas"])
    if kind == "Job":
        errs += _count_errors(spec.parallelism, ["spec", "parallelism"])
        errs += _count_errors(spec.completions, ["spec", "completions"])
    template_labels = spec.template.metadata.labels
    if kind != "Job" and spec.selector is not None:  # a Job's selector is generated by the API server
        if not spec.selector.match_labels and not spec.selector.match_expressions:
            what = "deployment" if kind in ("Deployment", "ReplicaSet") else kind.lower()
            errs.append(("spec.selector", "Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), "
                                          f"MatchExpressions:[]v1.LabelSelectorRequirement(nil)}}: empty selector is "
                                          f"invalid for {what}"))
        elif not spec.selector.matches(template_labels):
            errs.append(("spec.template.metadata.labels",
                         f"Invalid value: {_go_map(template_labels)}: `selector` does not match template `labels`"))
    errs += labels_errors(template_labels, ["spec", "template", "metadata", "labels"])
    errs += annotations_errors(spec.template.metadata.annotations, ["spec", "template", "metadata", "annotations"])
    claims = [c.metadata.name or "" for c in spec.volume_claim_templates] if kind == "StatefulSet" else []
    errs += _pod_spec_errors(spec.template.spec, ["spec", "template", "spec"], claims)
    errs += ephemeral_containers_errors(spec.template.spec, ["spec", "template", "spec"], template=True)
    return errs


_PERCENT_MSG = ("a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or "
                "'93%', regex used for validation is '[0-9]+%')")


def _pdb_spec_go(spec: Any) -> str:
    # %#v of the internal PodDisruptionBudgetSpec: its four pointer fields in order
    fields = (("MinAvailable", "intstr.IntOrString", spec.min_available),
              ("Selector", "v1.LabelSelector", spec.selector),
              ("MaxUnavailable", "intstr.IntOrString", spec.max_unavailable),
              ("UnhealthyPodEvictionPolicy", "policy.UnhealthyPodEvictionPolicyType", spec.unhealthy_pod_eviction_policy))
    return ("policy.PodDisruptionBudgetSpec{"
            + ", ".join(f"{name}:{go_pointer(t, v is not None, i)}" for i, (name, t, v) in enumerate(fields)) + "}")


def _pdb_errors(pdb: Any) -> Errors:
    """``ValidatePodDisruptionBudgetSpec``, in part: ``minAvailable`` / ``maxUnavailable`` not both
    set (the bad value is the spec as Go's ``%#v`` prints it, a set pointer as an address:
    :func:`~kschedlab.apiserver.field.go_pointer`), each a non-negative integer or a percentage
    of at most 100%.

    >>> from kschedlab.api.policy import PodDisruptionBudget
    >>> _pdb_errors(PodDisruptionBudget.model_validate({"spec": {"minAvailable": "150%"}}))
    [('spec.minAvailable', 'Invalid value: "150%": must not be greater than 100%')]
    >>> for path, message in _pdb_errors(PodDisruptionBudget.model_validate({"spec": {"minAvailable": 1,
    ...                                                                     "maxUnavailable": -1}})):
    ...     print(f"{path}: {message}")
    spec: Invalid value: policy.PodDisruptionBudgetSpec{MinAvailable:(*intstr.IntOrString)(0xc000010000), Selector:(*v1.LabelSelector)(nil), MaxUnavailable:(*intstr.IntOrString)(0xc000010040), UnhealthyPodEvictionPolicy:(*policy.UnhealthyPodEvictionPolicyType)(nil)}: minAvailable and maxUnavailable cannot be both set
    spec.maxUnavailable: Invalid value: -1: must be greater than or equal to 0
    """
    errs: Errors = []
    spec = pdb.spec
    if spec.min_available is not None and spec.max_unavailable is not None:
        errs.append(("spec", f"Invalid value: {_pdb_spec_go(spec)}: minAvailable and maxUnavailable cannot be both set"))
    for name, value in (("minAvailable", spec.min_available), ("maxUnavailable", spec.max_unavailable)):
        path = ["spec", name]
        if isinstance(value, str):
            if not re.fullmatch(r"[0-9]+%", value):
                errs.append(_invalid(path, value, _PERCENT_MSG))
            elif int(value[:-1]) > 100:
                errs.append(_invalid(path, value, "must not be greater than 100%"))
        elif value is not None and value < 0:
            errs.append(_invalid(path, value, "must be greater than or equal to 0"))
    return errs


def object_errors(obj: TypedObject) -> Errors:
    """``(field path, message)`` of every problem of ``obj``: a decode error alone (path ``""``,
    see :func:`decode_error`), else the enumerated fields of every kind
    (:func:`~kschedlab.apiserver.supported_values.enum_errors`) and the checks of the kinds
    named in :data:`NAME_RULES`."""
    if not isinstance(obj, KubeObject):
        return []
    decode = decode_error(obj)
    if decode is not None:
        return [("", decode)]
    if obj.kind not in NAME_RULES:
        return enum_errors(obj)
    errs = object_meta_errors(obj)
    if obj.kind == "Pod":
        errs += _pod_spec_errors(obj.spec, ["spec"])
        if not obj.metadata.resource_version:  # a stored pod (a dump) keeps the ephemeral containers added to it
            errs += ephemeral_containers_errors(obj.spec, ["spec"], template=False)
    elif obj.kind == "Node":
        errs += _node_errors(obj)
    elif obj.kind in ("Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job"):
        errs += workload_errors(obj)
    elif obj.kind == "PodDisruptionBudget":
        errs += _pdb_errors(obj)
    return errs + enum_errors(obj)


def max_pods() -> int:
    """The pod bound of a load: ``KSCHEDLAB_MAX_PODS`` when set, else :data:`DEFAULT_MAX_PODS`."""
    text = os.environ.get(MAX_PODS_ENV)
    if not text:
        return DEFAULT_MAX_PODS
    try:
        value = int(text)
    except ValueError:
        raise ManifestError(f"{MAX_PODS_ENV}: Invalid value: {_quote(text)}: must be an integer") from None
    if value < 0:
        raise ManifestError(f"{MAX_PODS_ENV}: Invalid value: {value}: must be greater than or equal to 0")
    return value


def check_objects(objects: Iterable[TypedObject]) -> None:
    """Validate every object (:func:`object_errors`); raise one :class:`ManifestError`
    naming each refused object and field.

    >>> from kschedlab.api.apps import ReplicaSet
    >>> rs = ReplicaSet.model_validate({"metadata": {"name": "rs", "namespace": "default"}, "spec": {
    ...     "replicas": -1, "selector": {"matchLabels": {"app": "a"}},
    ...     "template": {"metadata": {"labels": {"app": "b"}}, "spec": {"containers": [{"name": "c"}]}}}})
    >>> check_objects([rs])
    Traceback (most recent call last):
    ...
    kschedlab.api.errors.ManifestError: ReplicaSet default/rs: spec.replicas: Invalid value: -1: must be greater than or equal to 0
    ReplicaSet default/rs: spec.template.metadata.labels: Invalid value: map[string]string{"app":"b"}: `selector` does not match template `labels`
    """
    errors = [ManifestError(message, file=obj.source_file, obj=obj.describe(), path=path)
              for obj in objects for path, message in object_errors(obj)]
    if errors:
        raise ManifestError.combine(errors)


def refuse_invalid(objects: Iterable[TypedObject], refused: list[Refusal]) -> list[TypedObject]:
    """The objects :func:`object_errors` finds nothing wrong with; each other one is left out
    and recorded in ``refused``, as the API server answers ``kubectl apply -f`` object by
    object (422 Invalid for that one, the rest created).

    >>> from kschedlab.api.core import Pod
    >>> bad = Pod.model_validate({"metadata": {"name": "Bad_Name", "namespace": "default"},
    ...                           "spec": {"containers": [{"name": "c"}]}})
    >>> good = Pod.model_validate({"metadata": {"name": "good", "namespace": "default"},
    ...                            "spec": {"containers": [{"name": "c"}]}})
    >>> refused: list[Refusal] = []
    >>> [o.name for o in refuse_invalid([bad, good], refused)], [r.to_dict()["object"] for r in refused]
    (['good'], ['Pod default/Bad_Name'])
    """
    kept: list[TypedObject] = []
    for obj in objects:
        errs = object_errors(obj)
        if errs:
            if isinstance(obj, KubeObject) and obj.NAMESPACED and not obj.metadata.namespace:
                obj = obj.clone()  # named as admission names it: in the default namespace
                obj.metadata.namespace = "default"
            refused.append(Refusal(obj, [ManifestError(message, file=obj.source_file, obj=obj.describe(), path=path)
                                         for path, message in errs], obj.source_file))
        else:
            kept.append(obj)
    return kept


def wanted_pods(obj: Any, nodes: int) -> tuple[int, str] | None:
    """At most how many pods workload ``obj`` makes, and the field that asks for them
    (None for other kinds); a DaemonSet asks for one per node of the load.

    >>> from kschedlab.api.batch import Job
    >>> wanted_pods(Job.model_validate({"spec": {"parallelism": 5, "completions": 100000000}}), 0)
    (5, 'spec.parallelism')
    """
    if obj.kind in ("Deployment", "ReplicaSet", "StatefulSet"):
        spec = obj.spec
        return (1 if spec.replicas is None else spec.replicas), "spec.replicas"
    if obj.kind == "Job":
        spec = obj.spec
        parallelism = 1 if spec.parallelism is None else spec.parallelism
        if spec.completions is not None and spec.completions < parallelism:
            return spec.completions, "spec.completions"
        return parallelism, "spec.parallelism"
    if obj.kind == "DaemonSet":
        return nodes, "spec.template"
    return None


def pod_bound_error(obj: Any, made: int, nodes: int, bound: int) -> ManifestError | None:
    """The error when workload ``obj`` may take a load that has made ``made`` pods so far past
    ``bound`` pods: it names the workload and the field that asks for the pods; nothing is cut
    silently.

    >>> from kschedlab.api.apps import Deployment
    >>> d = Deployment.model_validate({"metadata": {"name": "web", "namespace": "default"},
    ...                                "spec": {"replicas": 10000000}})
    >>> print(pod_bound_error(d, 0, 0, DEFAULT_MAX_PODS))
    Deployment default/web: spec.replicas: Invalid value: 10000000: the load would create up to 10,000,000 pods, more than its bound of 100,000 (KSCHEDLAB_MAX_PODS)
    """
    wanted = wanted_pods(obj, nodes)
    if wanted is None or made + wanted[0] <= bound:
        return None
    count, field = wanted
    return ManifestError(f"Invalid value: {count}: the load would create up to {made + count:,} pods, more than its "
                         f"bound of {bound:,} ({MAX_PODS_ENV})", file=obj.source_file, obj=obj.describe(), path=field)
