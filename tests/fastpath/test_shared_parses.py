"""Parses shared by pods that read alike: InterPodAffinity's terms (``terms_key``: pods of one
template parse once) and PodTopologySpread's own constraints (``_constraint_key`` with the values of the
labels matchLabelKeys names). Checked attempt by attempt against runs where every pod is parsed for
itself, on random clusters with the changes that must reach the parses between attempts: pods
relabelled (bound ones through the snapshot, pending ones in place before a retry), a pending pod's
affinity or spread constraints replaced, a namespace's labels changed (terms with a
namespaceSelector), nodes declaring a feature some pods need, or no longer."""

from __future__ import annotations

import random

import pytest

from kschedlab.api.core import Affinity, Namespace, Node, Pod, TopologySpreadConstraint
from kschedlab.cluster import Cluster
from kschedlab.plugins import inter_pod_affinity_terms
from kschedlab.plugins.pod_topology_spread import PodTopologySpread
from kschedlab.scheduler import Scheduler
from tests.fastpath.test_fast_path import same_attempt
from tests.seeds import covered, seeds

HOST = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
ZONES = ("z1", "z2", "z3")
NAMESPACES = ("default", "team-a", "team-b")
FEATURE = "RestartAllContainersOnContainerExits"


def node(i: int, features: bool) -> Node:
    return Node.model_validate({
        "metadata": {"name": f"n{i:02d}", "labels": {HOST: f"n{i:02d}", ZONE: ZONES[i % 3]}},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "10"},
                   "declaredFeatures": [FEATURE] if features else []}})


def affinity(rng: random.Random) -> dict:
    """One of a few term sets (so pods share them), some with a namespaceSelector."""
    app = rng.choice(["web", "db"])
    key = rng.choice([HOST, ZONE])
    term: dict = {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": key}
    if rng.random() < 0.4:
        term["namespaceSelector"] = {"matchLabels": {"team": "x"}}
    kind = rng.choice(["anti", "affinity", "preferred"])
    if kind == "anti":
        return {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}
    if kind == "affinity":
        return {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{**term, "topologyKey": ZONE}]}}
    return {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": rng.choice([5, 50]), "podAffinityTerm": term}]}}


def spread(rng: random.Random) -> list:
    return [{"maxSkew": 1, "topologyKey": rng.choice([ZONE, HOST]),
             "whenUnsatisfiable": rng.choice(["DoNotSchedule", "ScheduleAnyway"]),
             "labelSelector": {"matchLabels": {"app": rng.choice(["web", "db"])}},
             "matchLabelKeys": ["tier"]}]


def labels(rng: random.Random) -> dict:
    return {"app": rng.choice(["web", "db"]), "tier": rng.choice(["a", "b"])}


def pod(name: str, rng: random.Random) -> Pod:
    container: dict = {"name": "c", "resources": {"requests": {"cpu": "300m", "memory": "128Mi"}}}
    if rng.random() < 0.15:  # needs a node declaring the feature
        container["restartPolicyRules"] = [{"action": "RestartAllContainers",
                                            "exitCodes": {"operator": "In", "values": [42]}}]
    spec: dict = {"containers": [container]}
    kind = rng.random()
    if kind < 0.6:
        spec["affinity"] = affinity(rng)
    elif kind < 0.9:
        spec["topologySpreadConstraints"] = spread(rng)
    return Pod.model_validate({"metadata": {"name": name, "namespace": rng.choice(NAMESPACES),
                                            "labels": labels(rng)}, "spec": spec})


def mutate(cluster: Cluster, rng: random.Random, pending: list, step: int) -> None:
    """One change between attempts (the same draws on both runs)."""
    bound = sorted(k for k, p in cluster.pods.items() if p.spec.node_name)
    choice = rng.random()
    if choice < 0.2 and bound:  # a bound pod relabelled
        key = rng.choice(bound)
        new = labels(rng)
        p = cluster.pods[key]
        cluster.snapshot.change_pod(key, lambda: setattr(p.metadata, "labels", new))
    elif choice < 0.35:  # a namespace's labels
        name = rng.choice(NAMESPACES[1:])
        cluster.add(Namespace.model_validate({"metadata": {"name": name, "labels": {
            "team": rng.choice(["x", "y"])}}}))
    elif choice < 0.45:  # a node declares the feature, or stops
        n = cluster.nodes[rng.choice(sorted(cluster.nodes))].model_copy(deep=True)
        n.status.declared_features = [] if n.status.declared_features else [FEATURE]
        cluster.update_node(n)
    elif choice < 0.55 and bound:
        cluster.remove_pod(rng.choice(bound))
    elif pending:  # a pending pod changed in place, then tried again
        key = pending[rng.randrange(len(pending))]
        p = cluster.pods[key]
        what = rng.random()
        if what < 0.4:
            p.metadata.labels = labels(rng)
        elif what < 0.7:
            p.spec.affinity = Affinity.model_validate(affinity(rng))
            p.spec.topology_spread_constraints = []
        else:
            p.spec.affinity = None
            p.spec.topology_spread_constraints = [TopologySpreadConstraint.model_validate(c) for c in spread(rng)]
        pending.remove(key)
        pending.append(key)


def run(seed: int, fast: bool) -> list:
    rng = random.Random(seed)
    cluster = Cluster([node(i, features=i % 4 == 0) for i in range(15)])
    for name in NAMESPACES:
        cluster.add(Namespace.model_validate({"metadata": {"name": name, "labels": {"team": "x"}}}))
    sched = Scheduler(cluster, seed=seed, fast_path=fast)
    results: list = []
    pending: list[str] = []
    for step in range(60):
        p = pod(f"p{step:03d}", rng)
        cluster.add(p)
        key = f"{p.metadata.namespace}/{p.metadata.name}"
        results.append(sched.schedule_one(key))
        if results[-1].node is None:
            pending.append(key)
        mutate(cluster, rng, pending, step)
        if pending and rng.random() < 0.5:  # the pod changed last (or the oldest) tried again
            again = pending[-1]
            results.append(sched.schedule_one(again))
            if results[-1].node is not None:
                pending.remove(again)
    return results


@pytest.mark.parametrize("seed", seeds(6))
def test_shared_parses_answer_as_a_parse_per_pod(seed, monkeypatch):
    fast = seed % 3 != 2
    parses: list = []
    parse = inter_pod_affinity_terms.parse_pod_terms
    monkeypatch.setattr(inter_pod_affinity_terms, "parse_pod_terms", lambda p: (parses.append(1), parse(p))[1])
    shared = run(seed, fast)
    affinity_pods = sum(1 for r in shared if r.trace is not None and any(
        name == "InterPodAffinity" and s is not None and s.is_success() for name, s in r.trace.prefilter))
    assert affinity_pods > len(parses) > 0  # pods of one term set shared a parse
    assert covered(any(r.node is None for r in shared) and sum(r.node is not None for r in shared) > len(shared) // 3)

    monkeypatch.setattr(inter_pod_affinity_terms, "terms_key", lambda p: None)
    monkeypatch.setattr(PodTopologySpread, "_parsed", lambda self, gates, p, own: {})  # each pod parses alone
    alone = run(seed, fast)
    assert len(shared) == len(alone)
    for a, b in zip(shared, alone):
        same_attempt(a, b)


def test_a_relabelled_pod_is_parsed_again_for_match_label_keys():
    """Two pods alike but for the label matchLabelKeys names get their own selectors; a pod
    relabelled in place gets the selector of its new labels."""
    from kschedlab.framework.types import PodInfo

    plugin = PodTopologySpread.build({})
    data = {"metadata": {"name": "p", "namespace": "default", "labels": {"app": "web", "tier": "a"}},
            "spec": {"topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": ZONE,
                                                    "whenUnsatisfiable": "DoNotSchedule",
                                                    "labelSelector": {"matchLabels": {"app": "web"}},
                                                    "matchLabelKeys": ["tier"]}]}}
    a = PodInfo.of(Pod.model_validate(data))
    b = PodInfo.of(Pod.model_validate({**data, "metadata": {**data["metadata"], "labels": {"app": "web",
                                                                                            "tier": "b"}}}))
    c = PodInfo.of(Pod.model_validate(data))
    sel = [plugin.constraints_of(x, "DoNotSchedule")[0].selector for x in (a, b, c)]
    assert sel[0] == sel[2] and sel[0] != sel[1]
    assert plugin.constraints_of(a, "DoNotSchedule")[0] is plugin.constraints_of(c, "DoNotSchedule")[0]
    a.pod.metadata.labels = {"app": "web", "tier": "b"}
    assert plugin.constraints_of(a, "DoNotSchedule")[0].selector == sel[1]


def test_terms_follow_the_namespace_and_the_affinity_object():
    """Terms naming no namespace cover the pod's own: pods alike in other namespaces get their
    own parse; a pod whose affinity is replaced in place is parsed again."""
    from kschedlab.framework.types import PodInfo

    spec = {"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": HOST}]}}}
    a, b = (PodInfo.of(Pod.model_validate({"metadata": {"name": "p", "namespace": ns}, "spec": spec}))
            for ns in ("a", "b"))
    terms = inter_pod_affinity_terms.pod_terms
    assert terms(a).required_anti[0].namespaces == frozenset(["a"])
    assert terms(b).required_anti[0].namespaces == frozenset(["b"])
    a.pod.spec.affinity = Affinity.model_validate({"podAntiAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": ZONE}]}})
    assert terms(a).required_anti[0].topology_key == ZONE
