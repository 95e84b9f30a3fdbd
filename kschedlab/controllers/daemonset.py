"""What the DaemonSet controller creates: one pod per eligible node.

A node is eligible (upstream ``NodeShouldRunDaemonPod``) when the pod the controller
would make for it — the template with the DaemonSet tolerations
(:func:`daemon_pod_tolerations`) — fits it by node name (a template ``nodeName``
must be that node), by required node affinity (``nodeSelector`` and
``requiredDuringSchedulingIgnoredDuringExecution``, including ``matchFields`` on
``metadata.name``), and no ``NoSchedule``/``NoExecute`` taint of the node is left
untolerated. Unschedulable nodes are not skipped (the pods tolerate
``node.kubernetes.io/unschedulable``).

Each new pod is the template with those tolerations, the labels
``controller-revision-hash`` and ``pod-template-generation``, a controller owner
reference to the DaemonSet, a name ``<daemonset>-<5 random chars>`` and the required
node affinity replaced by the single term ``matchFields metadata.name In [node]``
(:func:`replace_node_name_node_affinity`); ``nodeName`` stays empty: the scheduler
binds the pod. Pods the DaemonSet already has (owner references, or adoption by its
selector) count for the node they are bound to or aimed at
(:func:`target_node_name`); a node whose only pods are ``Failed`` gets a new one.
``controller-revision-hash`` is computed over our rendering of the template (as for
Deployments), so its value differs from a real cluster's.

>>> from kschedlab.api.core import Node
>>> ds = DaemonSet.model_validate({"metadata": {"name": "agent", "namespace": "kube-system"},
...     "spec": {"selector": {"matchLabels": {"app": "agent"}},
...              "template": {"metadata": {"labels": {"app": "agent"}}, "spec": {"containers": [{"name": "a"}]}}}})
>>> nodes = [Node.model_validate({"metadata": {"name": "cp"}, "spec": {"taints": [
...              {"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}]}}),
...          Node.model_validate({"metadata": {"name": "w1"}})]
>>> [target_node_name(p) for p in expand_daemonset(ds, nodes)]
['w1']
"""

from __future__ import annotations

from typing import Iterable, Mapping

from kschedlab.api.tolerations import TaintValueError, find_matching_untolerated_taint

from ..api.apps import DaemonSet
from ..api.core import (
    Affinity,
    Node,
    NodeAffinity,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    Pod,
    PodSpec,
    PodTemplateSpec,
    Toleration,
)
from .controller_ref import claim
from .pod_templates import (
    ensure_uid,
    generated_name,
    owner_rng,
    pod_from_template,
    pod_template_hash,
)

__all__ = [
    "expand_daemonset",
    "create_pod_template",
    "node_should_run_daemon_pod",
    "daemon_pod_tolerations",
    "add_or_update_toleration",
    "replace_node_name_node_affinity",
    "target_node_name",
    "LABEL_TEMPLATE_GENERATION",
    "LABEL_CONTROLLER_REVISION_HASH",
    "ANN_TEMPLATE_GENERATION",
]

LABEL_TEMPLATE_GENERATION = "pod-template-generation"
LABEL_CONTROLLER_REVISION_HASH = "controller-revision-hash"
ANN_TEMPLATE_GENERATION = "deprecated.daemonset.template.generation"
OBJECT_NAME_FIELD = "metadata.name"

_DAEMON_TOLERATIONS = (
    ("node.kubernetes.io/not-ready", "NoExecute"),
    ("node.kubernetes.io/unreachable", "NoExecute"),
    ("node.kubernetes.io/disk-pressure", "NoSchedule"),
    ("node.kubernetes.io/memory-pressure", "NoSchedule"),
    ("node.kubernetes.io/pid-pressure", "NoSchedule"),
    ("node.kubernetes.io/unschedulable", "NoSchedule"),
)
TAINT_NODE_NETWORK_UNAVAILABLE = "node.kubernetes.io/network-unavailable"


def _match_toleration(a: Toleration, b: Toleration) -> bool:
    return ((a.key or "") == (b.key or "") and (a.effect or "") == (b.effect or "")
            and (a.operator or "") == (b.operator or "") and (a.value or "") == (b.value or ""))


def add_or_update_toleration(tolerations: list[Toleration], toleration: Toleration) -> list[Toleration]:
    """``AddOrUpdateTolerationInPodSpec``: replace each toleration with the same key,
    effect, operator and value (e.g. one with ``tolerationSeconds``), else append.

    >>> t = Toleration(key="k", operator="Exists", effect="NoExecute")
    >>> [x.toleration_seconds for x in add_or_update_toleration([Toleration(key="k", operator="Exists",
    ...     effect="NoExecute", toleration_seconds=300)], t)]
    [None]
    """
    out, updated = [], False
    for t in tolerations:
        if _match_toleration(toleration, t):
            out.append(toleration.clone())
            updated = True
        else:
            out.append(t)
    if not updated:
        out.append(toleration.clone())
    return out


def daemon_pod_tolerations(spec: PodSpec) -> list[Toleration]:
    """The tolerations of a DaemonSet pod (``AddOrUpdateDaemonPodTolerations``): the
    template's, plus not-ready and unreachable ``NoExecute`` without
    ``tolerationSeconds``; disk-pressure, memory-pressure, pid-pressure and
    unschedulable ``NoSchedule``; network-unavailable ``NoSchedule`` under
    ``hostNetwork``. ``spec`` is not changed.

    >>> [t.key.split("/")[1] for t in daemon_pod_tolerations(PodSpec(host_network=True))][-1]
    'network-unavailable'
    """
    out = [t.clone() for t in spec.tolerations]
    for key, effect in _DAEMON_TOLERATIONS:
        out = add_or_update_toleration(out, Toleration(key=key, operator="Exists", effect=effect))
    if spec.host_network:
        out = add_or_update_toleration(out, Toleration(key=TAINT_NODE_NETWORK_UNAVAILABLE, operator="Exists",
                                                       effect="NoSchedule"))
    return out


def replace_node_name_node_affinity(affinity: Affinity | None, node_name: str) -> Affinity:
    """Upstream ``ReplaceDaemonSetPodNodeNameNodeAffinity``: the required node affinity
    becomes the one term ``matchFields metadata.name In [node_name]``; preferred terms,
    pod affinity and anti-affinity are kept. Returns a new Affinity.

    >>> a = replace_node_name_node_affinity(Affinity.model_validate({"nodeAffinity": {
    ...     "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
    ...         {"matchExpressions": [{"key": "disk", "operator": "In", "values": ["ssd"]}]}]}}}), "n1")
    >>> a.model_dump(by_alias=True, exclude_defaults=True)
    {'nodeAffinity': {'requiredDuringSchedulingIgnoredDuringExecution': {'nodeSelectorTerms': [{'matchFields': [{'key': 'metadata.name', 'operator': 'In', 'values': ['n1']}]}]}}}
    """
    term = NodeSelectorTerm(match_fields=[NodeSelectorRequirement(key=OBJECT_NAME_FIELD, operator="In",
                                                                  values=[node_name])])
    out = affinity.clone() if affinity is not None else Affinity()
    if out.node_affinity is None:
        out.node_affinity = NodeAffinity()
    na = out.node_affinity
    if na.required_during_scheduling_ignored_during_execution is None:
        na.required_during_scheduling_ignored_during_execution = NodeSelector()
    na.required_during_scheduling_ignored_during_execution.node_selector_terms = [term]
    na.required_during_scheduling_ignored_during_execution.mark_set("node_selector_terms")
    na.mark_set("required_during_scheduling_ignored_during_execution")
    out.mark_set("node_affinity")
    return out


def target_node_name(pod: Pod) -> str | None:
    """The node a DaemonSet pod is for (``GetTargetNodeName``): ``spec.nodeName``, else
    the single value of a ``matchFields metadata.name In`` requirement; None if neither.

    >>> target_node_name(Pod(spec={"affinity": replace_node_name_node_affinity(None, "n2")}))
    'n2'
    """
    if pod.spec.node_name:
        return pod.spec.node_name
    aff = pod.spec.affinity
    na = aff.node_affinity if aff is not None else None
    req = na.required_during_scheduling_ignored_during_execution if na is not None else None
    if req is None:
        return None
    for term in req.node_selector_terms:
        for r in term.match_fields:
            if r.key == OBJECT_NAME_FIELD and r.operator == "In":
                return r.values[0] if len(r.values) == 1 else None
    return None


def _int64(v: str) -> int | None:
    try:
        n = int(v, 10)
    except ValueError:
        return None
    if v.strip() != v or v.startswith("+") or not -(1 << 63) <= n < (1 << 63):
        return None
    return n


def _requirement_matches(r: NodeSelectorRequirement, values: Mapping[str, str]) -> bool:
    key, op = r.key or "", r.operator
    present = key in values
    if op == "In":
        return bool(r.values) and present and values[key] in r.values
    if op == "NotIn":
        return bool(r.values) and (not present or values[key] not in r.values)
    if op == "Exists":
        return not r.values and present
    if op == "DoesNotExist":
        return not r.values and not present
    if op in ("Gt", "Lt"):
        if len(r.values) != 1 or not present:
            return False
        want, have = _int64(r.values[0]), _int64(values[key])
        if want is None or have is None:
            return False
        return have > want if op == "Gt" else have < want
    return False


def _term_matches(term: NodeSelectorTerm, node: Node) -> bool:
    if not term.match_expressions and not term.match_fields:
        return False  # an empty term selects no node
    fields = {OBJECT_NAME_FIELD: node.name}
    for r in term.match_fields:
        if r.key != OBJECT_NAME_FIELD or r.operator not in ("In", "NotIn") or len(r.values) != 1:
            return False
    return (all(_requirement_matches(r, node.metadata.labels) for r in term.match_expressions)
            and all(_requirement_matches(r, fields) for r in term.match_fields))


def _fits_required_node_affinity(spec: PodSpec, node: Node) -> bool:
    labels = node.metadata.labels
    if any(labels.get(k) != v for k, v in spec.node_selector.items()):
        return False
    na = spec.affinity.node_affinity if spec.affinity is not None else None
    req = na.required_during_scheduling_ignored_during_execution if na is not None else None
    if req is None:
        return True
    return any(_term_matches(t, node) for t in req.node_selector_terms)


def node_should_run_daemon_pod(ds: DaemonSet, node: Node, *, comparison_operators: bool = False,
                               tolerations: list[Toleration] | None = None) -> bool:
    """Whether the DaemonSet controller wants a pod of ``ds`` on ``node`` (``shouldRun``).

    ``comparison_operators`` is the TaintTolerationComparisonOperators gate (Gt/Lt
    tolerations); a taint value a numeric toleration cannot compare counts as untolerated.
    ``tolerations``: the daemon pod's tolerations when the caller has them already
    (:func:`daemon_pod_tolerations` of the template, computed once per DaemonSet).

    >>> ds = DaemonSet.model_validate({"metadata": {"name": "gpu"}, "spec": {"template": {"spec": {
    ...     "nodeSelector": {"gpu": "true"}}}}})
    >>> node_should_run_daemon_pod(ds, Node.model_validate({"metadata": {"name": "n", "labels": {"gpu": "true"}}}))
    True
    """
    spec = ds.spec.template.spec
    if spec.node_name and spec.node_name != node.name:
        return False
    if not _fits_required_node_affinity(spec, node):
        return False
    if tolerations is None:
        tolerations = daemon_pod_tolerations(spec)
    try:
        taint = find_matching_untolerated_taint(node.spec.taints, tolerations, ("NoSchedule", "NoExecute"),
                                                comparison_operators=comparison_operators)
    except TaintValueError:
        return False
    return taint is None


def _template_generation(ds: DaemonSet) -> int:
    v = ds.metadata.annotations.get(ANN_TEMPLATE_GENERATION)
    return int(v) if v is not None and v.isdigit() else 1  # the API server starts at 1


def create_pod_template(template: PodTemplateSpec, generation: int | None, hash_: str) -> PodTemplateSpec:
    """Upstream ``CreatePodTemplate``: a copy of ``template`` with the DaemonSet tolerations,
    the ``pod-template-generation`` label (when ``generation`` is given) and the
    ``controller-revision-hash`` label (when ``hash_`` is not empty).

    >>> t = create_pod_template(PodTemplateSpec(), 2, "3242341807")
    >>> t.metadata.labels
    {'pod-template-generation': '2', 'controller-revision-hash': '3242341807'}
    """
    out = template.clone()
    out.spec.tolerations = daemon_pod_tolerations(out.spec)
    labels = dict(out.metadata.labels)
    if generation is not None:
        labels[LABEL_TEMPLATE_GENERATION] = str(generation)
    if hash_:
        labels[LABEL_CONTROLLER_REVISION_HASH] = hash_
    out.metadata.labels = labels
    out.metadata.mark_set("labels")
    out.spec.mark_set("tolerations")
    out.mark_set("metadata", "spec")
    return out


def expand_daemonset(ds: DaemonSet, nodes: Iterable[Node], existing_pods: Iterable[Pod] = (), seed: int = 0,
                     taken: set[str] | None = None, claimed: set[int] | None = None,
                     feature_gates: Mapping[str, bool] | None = None) -> list[Pod]:
    """The pods the DaemonSet controller creates for ``ds`` on ``nodes`` (see the module text).

    >>> from kschedlab.api.core import Node
    >>> ds = DaemonSet.model_validate({"metadata": {"name": "agent", "namespace": "ops"},
    ...     "spec": {"template": {"metadata": {"labels": {"app": "agent"}}}}})
    >>> [p.metadata.labels["pod-template-generation"] for p in expand_daemonset(ds, [Node(metadata={"name": "n"})])]
    ['1']
    """
    ensure_uid(ds, seed)
    comparison = bool((feature_gates or {}).get("TaintTolerationComparisonOperators", False))
    existing_pods = list(existing_pods)
    covered: set[str] = set()
    for p in claim(ds, existing_pods, claimed=claimed):
        target = target_node_name(p)
        if target is not None and p.status.phase != "Failed":
            covered.add(target)
    template = create_pod_template(ds.spec.template, _template_generation(ds),
                                   pod_template_hash(ds.spec.template, ds.status.collision_count))
    taken = set() if taken is None else taken
    rng = owner_rng(seed, ds)
    out: list[Pod] = []
    for node in nodes:
        if node.name in covered or not node_should_run_daemon_pod(ds, node, comparison_operators=comparison,
                                                                  tolerations=template.spec.tolerations):
            continue
        prefix = f"{ds.name}-"
        pod = pod_from_template(template, ds, generated_name(prefix, rng, taken), seed, generate_name=prefix)
        pod.spec.affinity = replace_node_name_node_affinity(pod.spec.affinity, node.name)
        pod.spec.node_name = None
        pod.spec.mark_set("affinity", "tolerations")
        pod.mark_set("spec")
        out.append(pod)
    return out
