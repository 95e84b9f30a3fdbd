"""Opportunistic batching (gate OpportunisticBatching): signatures, the batch cache, its
invalidation rules, and the proof that batching changes nothing but the work done.

Upstream reference: pkg/scheduler/framework/runtime/batch.go (the seed's "one pod per node"
form: a batch is dropped when the previous pod's node still fits the next pod), the plugins'
``SignPod``, and schedule_one.go's hint path (``evaluateNominatedNode``).

The equivalence property holds where upstream's premise holds -- a pod placed on a node changes
that node's Filter/Score results only.  Outside it batching is an approximation, as upstream's;
``test_upstream_approximation_*`` below pin those cases down.
"""

from __future__ import annotations

import copy
from collections import Counter

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from kschedlab.api.core import Node, Pod
from kschedlab.cluster import Cluster
from kschedlab.features import FeatureGates
from kschedlab.framework import batch as b
from kschedlab.framework.interface import CycleState, Plugin, SignFragment
from kschedlab.framework.runtime import Framework
from kschedlab.framework.signers import LABELS_SIGNER_NAME, RESOURCES_SIGNER_NAME, resources_signer
from kschedlab.framework.status import Code, Status
from kschedlab.framework.types import PodInfo
from kschedlab.scheduler import Scheduler

#: OpportunisticBatching is on by default at v1.37, but NodeResourcesFit and BalancedAllocation cannot
#: sign any pod while DRAExtendedResource is on (GA and locked at v1.37): emulate an older version
GATES = FeatureGates({"DRAExtendedResource": False}, emulate_older=True)
GATES_OFF = GATES.with_overrides({"OpportunisticBatching": False})
#: upstream's precondition too: no default topology spreading (else no pod can be signed)
NO_DEFAULT_SPREAD = {"name": "PodTopologySpread", "args": {"defaultingType": "List"}}
CONFIG = {"profiles": [{"pluginConfig": [NO_DEFAULT_SPREAD]}]}


def make_node(name, cpu="4", memory="8Gi", pods="110", labels=None, taints=(), unschedulable=False, images=()):
    return Node.model_validate({
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})}},
        "spec": {"taints": list(taints), "unschedulable": unschedulable},
        "status": {"allocatable": {"cpu": cpu, "memory": memory, "pods": pods},
                   "images": [{"names": [n], "sizeBytes": s} for n, s in images]}})


def make_pod(name, cpu="1", memory="1Gi", *, containers=1, labels=None, node_selector=None, affinity=None,
             tolerations=(), host_port=None, image="nginx:1", spread=None, scheduler=None, uid=None,
             nominated=None):
    ports = [{"containerPort": 80, "hostPort": host_port}] if host_port else []
    cs = [{"name": f"c{i}", "image": image, "ports": ports if i == 0 else [],
           "resources": {"requests": {"cpu": cpu, "memory": memory}} if cpu else {}} for i in range(containers)]
    spec = {"containers": cs, "tolerations": list(tolerations), "nodeSelector": node_selector or {}}
    if affinity:
        spec["affinity"] = affinity
    if spread:
        spec["topologySpreadConstraints"] = spread
    if scheduler:
        spec["schedulerName"] = scheduler
    body = {"metadata": {"name": name, "namespace": "default", "labels": labels or {}, "uid": uid}, "spec": spec}
    if nominated:
        body["status"] = {"nominatedNodeName": nominated}
    return Pod.model_validate(body)


def run(objects, gates=GATES, config=CONFIG, **kw):
    """Schedule copies of ``objects`` (binding mutates the pods)."""
    scheduler = Scheduler(Cluster(copy.deepcopy(list(objects))), config, gates=gates, **kw)
    return scheduler, scheduler.run()


# -- Signature ------------------------------------------------------------------------------------------------
def signer(profile=None, gates=GATES):
    return Framework(profile if profile is not None else {"pluginConfig": [NO_DEFAULT_SPREAD]}, gates=gates)


def test_equal_constraints_equal_signatures():
    fw = signer()
    a = PodInfo.of(make_pod("a", tolerations=[{"key": "x", "operator": "Exists"}, {"key": "w", "operator": "Exists"}],
                            node_selector={"disk": "ssd"}))
    b_ = PodInfo.of(make_pod("b", tolerations=[{"key": "w", "operator": "Exists"}, {"key": "x", "operator": "Exists"}],
                             node_selector={"disk": "ssd"}))
    assert fw.sign_pod(a) is not None and fw.sign_pod(a) == fw.sign_pod(b_)  # toleration order is irrelevant
    for other in (make_pod("c", cpu="2"), make_pod("c", node_selector={"disk": "hdd"}), make_pod("c", image="x"),
                  make_pod("c", host_port=8080), make_pod("c", labels={"app": "web"}),
                  make_pod("c", scheduler="other")):
        assert fw.sign_pod(PodInfo.of(other)) != fw.sign_pod(a)


@pytest.mark.parametrize("pod, why", [
    (make_pod("p", spread=[{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}]),
     "topology spread constraints"),
    (make_pod("p", affinity={"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": {"a": "b"}}}]}}),
     "pod anti-affinity"),
])
def test_unsignable_pods(pod, why):
    assert signer().sign_pod(PodInfo.of(pod)) is None, why


def test_pod_affinity_refuses_before_the_plugins_that_sign(monkeypatch):
    """A pod with pod (anti-)affinity cannot be signed: InterPodAffinity is asked among the plugins
    that often refuse, before the others (whose answers would be dropped), and the answer is None."""
    fw = signer()
    asked = []
    for plugin in fw.sign_plugins:
        monkeypatch.setattr(plugin, "sign_pod", lambda p, plugin=plugin, sign=plugin.sign_pod: (
            asked.append(plugin.name), sign(p))[1])
    pod = make_pod("p", affinity={"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": {"a": "b"}}}]}})
    assert fw.sign_pod(PodInfo.of(pod)) is None
    assert asked[-1] == "InterPodAffinity" and set(asked) <= {
        "NodeResourcesFit", "NodeResourcesBalancedAllocation", "PodTopologySpread", "InterPodAffinity"}
    asked.clear()
    assert fw.sign_pod(PodInfo.of(make_pod("q"))) is not None  # a pod every plugin signs: all are asked
    assert sorted(asked) == sorted(p.name for p in fw.sign_plugins)


def test_signatures_off():
    pod = PodInfo.of(make_pod("p"))
    assert signer(gates=GATES_OFF).sign_pod(pod) is None and signer(gates=GATES_OFF).batch is None
    # v1.37 defaults: DRAExtendedResource (locked on) makes NodeResourcesFit refuse every pod
    assert signer(gates=FeatureGates()).sign_pod(pod) is None
    # default profile: System default spread constraints
    assert signer({}).sign_pod(pod) is None

    class NoSign(Plugin):  # an out-of-tree Filter plugin without sign_pod turns signatures off
        name = "NoSign"

        def filter(self, state, pod_info, node_info):
            return Status()

    fw = Framework({"plugins": {"filter": {"enabled": [{"name": "NoSign"}]}}, "pluginConfig": [NO_DEFAULT_SPREAD]},
                   gates=GATES, registry={"NoSign": NoSign})
    assert fw.unsignable_plugins == ["NoSign"] and not fw.signatures_enabled and fw.sign_pod(pod) is None


# source: kubernetes/kubernetes pkg/scheduler/framework/plugins/interpodaffinity/plugin_test.go TestPodAffinitySignature
@pytest.mark.parametrize("name, affinity, ignore, want_ok, want", [
    ("no affinity, default settings", None, False, True, [SignFragment(LABELS_SIGNER_NAME, {"foo": "bar"})]),
    ("no affinity, ignore setting set", None, True, True, None),
    ("affinity set", {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": "z"}]}},
     False, False, None),
])
def test_upstream_pod_affinity_signature(name, affinity, ignore, want_ok, want):
    from kschedlab.plugins.inter_pod_affinity import InterPodAffinity

    pl = InterPodAffinity(InterPodAffinity.parse_args({"ignorePreferredTermsOfExistingPods": ignore}))
    fragments, status = pl.sign_pod(PodInfo.of(make_pod("p", labels={"foo": "bar"}, affinity=affinity)))
    assert (status is None or status.is_success()) == want_ok
    assert fragments == want


# source: kubernetes/kubernetes pkg/scheduler/framework/plugins/podtopologyspread/filtering_test.go
#         @01c2588bf4a3eb6bb3524b1e2bd60efb38a4b577 TestPodTopoSignatures
@pytest.mark.parametrize("name, spread, args, want_ok", [
    ("pod w constraints", [{"topologyKey": "test", "maxSkew": 1, "whenUnsatisfiable": "DoNotSchedule"}],
     {"defaultingType": "System"}, False),
    ("pod no constraints but default", None, {"defaultingType": "System"}, False),
    ("pod no constraints no default", None, {"defaultingType": "List", "defaultConstraints": []}, True),
])
def test_upstream_pod_topology_signatures(name, spread, args, want_ok):
    from kschedlab.plugins.pod_topology_spread import PodTopologySpread

    pl = PodTopologySpread(PodTopologySpread.parse_args(args))
    fragments, status = pl.sign_pod(PodInfo.of(make_pod("p", spread=spread)))
    assert (status is None or status.is_success()) == want_ok
    assert fragments is None


# source: kubernetes/kubernetes pkg/scheduler/framework/plugins/noderesources/fit_test.go TestFitSignPod and
#         balanced_allocation_test.go TestBalancedAllocationSignPod (same rows)
@pytest.mark.parametrize("plugin", ["NodeResourcesFit", "NodeResourcesBalancedAllocation"])
@pytest.mark.parametrize("name, containers, dra, want_code", [
    ("pod with CPU and memory requests", [("1000m", "2000")], False, Code.Success),
    ("best-effort pod with no requests", [], False, Code.Success),
    ("pod with multiple containers", [("500m", "1000"), ("1500m", "3000")], False, Code.Success),
    ("DRA extended resource enabled - returns unschedulable", [("1000m", "2000")], True, Code.Unschedulable),
])
def test_upstream_resources_sign_pod(plugin, name, containers, dra, want_code):
    from kschedlab.framework.runtime import Handle
    from kschedlab.plugins import in_tree_registry

    pod = Pod.model_validate({"metadata": {"name": "p"}, "spec": {"containers": [
        {"name": f"c{i}", "resources": {"requests": {"cpu": c, "memory": m}}} for i, (c, m) in enumerate(containers)]
        or [{"name": "c"}]}})
    handle = Handle(FeatureGates({"DRAExtendedResource": dra}, emulate_older=True), None)
    pl = in_tree_registry()[plugin].build(None, handle)
    info = PodInfo.of(pod)
    fragments, status = pl.sign_pod(info)
    assert (status or Status()).code == want_code
    if want_code == Code.Success:
        assert fragments == [SignFragment(RESOURCES_SIGNER_NAME, resources_signer(info))]


# -- the batch cache on its own ---------------------------------------------------------------------------------
# source: kubernetes/kubernetes pkg/scheduler/framework/runtime/batch_test.go@150ed9fcc3d11575bd68f8dc6c4bc3fb72caeb51
#         TestBatchBasic (all rows)
class BatchTestPlugin(Plugin):
    """Each node holds at most one pod whose uid starts with 'b' (blocking pods)."""

    name = "batchTest"

    def filter(self, state, pod_info, node_info):
        if pod_info.pod.metadata.uid[0] == "b" and any(p.pod.metadata.uid[0] == "b" for p in node_info.pods):
            return Status.unschedulable("unsched")
        return Status()

    def sign_pod(self, pod_info):
        return [], None


def nodes(*names):
    return b.SortedScoredNodes.from_names(list(names))


BATCH_BASIC = [
    # name, first uid, first sig, first scheduled, first chosen, first others, skip pod, second uid, second sig,
    # second chosen, second others, expected hint, expected remaining (None: empty batch)
    ("a second pod with the same signature gets a hint", "b-1", "sig", True, "n3", ["n1"], False, "b-2", "sig",
     "n1", None, "n1", None),
    ("a second pod with a different signature doesn't get a hint", "a-1", "sig", True, "n3", ["n1"], False, "a-2",
     "sig2", "n1", None, None, None),
    ("a second pod doesn't get a hint if it's not 1-pod-per-node", "a-1", "sig", True, "n3", ["n1"], False, "a-2",
     "sig", "n1", None, None, None),
    ("pod doesn't get hint if previous pod didn't scheduled", "b-1", "sig", False, "n3", ["n1"], False, "b-2", "sig",
     "n1", None, None, None),
    ("empty list", "b-1", "sig", True, "n3", [], False, "b-2", "sig", "n4", None, None, None),
    ("nil list", "b-1", "sig", True, "n3", None, False, "b-2", "sig", "n4", None, None, None),
    ("pod doesn't get hint because the previous pod is to a different profile", "b-1", "sig", True, "n3", ["n1"],
     True, "b-2", "sig", "n1", None, None, None),
    ("pod uses batch from preceding pod and leaves remaining batch to next pod", "b-1", "sig", True, "n3",
     ["n1", "n2"], False, "b-2", "sig", "n1", None, "n1", ["n2"]),
]


@pytest.mark.parametrize("row", BATCH_BASIC, ids=[r[0] for r in BATCH_BASIC])
def test_upstream_batch_basic(row):
    (_, uid1, sig1, ok1, chosen1, others1, skip, uid2, sig2, chosen2, others2, want_hint, want_remaining) = row
    fw = Framework({"plugins": {"multiPoint": {"disabled": [{"name": "*"}]},
                                "queueSort": {"enabled": [{"name": "PrioritySort"}]},
                                "filter": {"enabled": [{"name": "batchTest"}]},
                                "bind": {"enabled": [{"name": "DefaultBinder"}]}}},
                   gates=GATES, registry={"batchTest": BatchTestPlugin})
    batch = fw.batch
    pod1, pod2 = make_pod("pod", uid=uid1), make_pod("pod2", uid=uid2)
    cluster = Cluster([make_node(chosen1)])
    cluster.snapshot.add_pod(PodInfo.of(pod1), chosen1)  # the node the first pod went to holds it
    snap, state = cluster.snapshot, CycleState()

    assert batch.get_node_hint(PodInfo.of(pod1), sig1, state, snap, 1, 0.0) is None
    if ok1:
        batch.store_schedule_results(sig1, None, chosen1, None if others1 is None else nodes(*others1), 1, 0.0)
    cycle = 3 if skip else 2
    hint = batch.get_node_hint(PodInfo.of(pod2), sig2, state, snap, cycle, 0.0)
    assert hint == want_hint
    batch.store_schedule_results(sig2, hint, chosen2, None if others2 is None else nodes(*others2), cycle, 0.0)
    if want_remaining is None:
        assert batch.state is None or len(batch.state.nodes) == 0
    else:
        assert batch.state.signature == "sig" and batch.state.nodes.names() == want_remaining


# -- whole scheduling cycles ----------------------------------------------------------------------------------------
# source: kubernetes/kubernetes test/integration/scheduler/batch/batch_test.go TestBatchScenarios (stored copy id
#         57641412498; commit not reported).  Nodes: 100 CPU, 4Gi, maxPods pods; pods: 10 CPU, 4Mi, preferred node
#         affinity with weights n, n-1, ... on the listed nodes.  Profiles: default (no default spreading), "mysched"
#         (the same), "nosign" (+ a Filter plugin without SignPod), "emptysign" (+ one refusing every pod).
#         The two "rescoring" rows are upstream's newer behaviour (the last node is rescored and may get a second
#         pod from the batch); kschedlab follows the documented v1.37 rule -- a node that can take a second pod
#         ends the batch -- so those rows expect the same nodes but fewer batched pods (marked "seed:").
def _pref(*names):
    return {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": len(names) - i, "preference": {"matchFields": [
            {"key": "metadata.name", "operator": "In", "values": [n]}]}} for i, n in enumerate(names)]}}


SCENARIOS = {
    "one pod one node": ({"n1": 1}, [("p1", {}, "n1", False)]),
    "distinct pods on distinct nodes": (
        {"n3": 10, "n2": 10, "n1": 10},
        [("p1", {"sel": "1"}, "n1", False), ("p2", {"sel": "2"}, "n2", False), ("p3", {"sel": "3"}, "n3", False)]),
    "three pod batch": ({"n3": 1, "n2": 1, "n1": 1}, [
        ("p1", {"aff": ("n1", "n2", "n3")}, "n1", False), ("p2", {"aff": ("n1", "n2", "n3")}, "n2", True),
        ("p3", {"aff": ("n1", "n2", "n3")}, "n3", True)]),
    "two consecutive batches": ({"n4": 1, "n3": 1, "n2": 1, "n1": 1}, [
        ("p1", {"aff": ("n1", "n2")}, "n1", False), ("p2", {"aff": ("n1", "n2")}, "n2", True),
        ("p3", {"aff": ("n4", "n3")}, "n4", False), ("p4", {"aff": ("n4", "n3")}, "n3", True)]),
    "seed: rescoring enables batching for multiple pods per node": ({"n4": 2, "n3": 2, "n2": 2, "n1": 2}, [
        ("p1", {"aff": ("n1", "n2")}, "n1", False), ("p2", {"aff": ("n1", "n2")}, "n1", False),
        ("p3", {"aff": ("n4", "n3")}, "n4", False), ("p4", {"aff": ("n4", "n3")}, "n4", False)]),
    "seed: rescoring falls back to next cached node when last chosen node is not feasible": ({"n1": 2, "n2": 2}, [
        ("p1", {"aff": ("n1", "n2")}, "n1", False), ("p2", {"aff": ("n1", "n2")}, "n1", False),
        ("p3", {"aff": ("n1", "n2")}, "n2", True)]),
    "no batching between schedulers": ({"n3": 1, "n2": 1, "n1": 1}, [
        ("p1", {"aff": ("n1", "n2", "n3")}, "n1", False),
        ("p2", {"aff": ("n1", "n2", "n3"), "sched": "mysched"}, "n2", False)]),
    "no batching missing sign": ({"n3": 1, "n2": 1, "n1": 1}, [
        ("p1", {"aff": ("n1", "n2", "n3"), "sched": "nosign"}, "n1", False),
        ("p2", {"aff": ("n1", "n2", "n3"), "sched": "nosign"}, "n2", False)]),
    "no batching empty sign": ({"n3": 1, "n2": 1, "n1": 1}, [
        ("p1", {"aff": ("n1", "n2", "n3"), "sched": "emptysign"}, "n1", False),
        ("p2", {"aff": ("n1", "n2", "n3"), "sched": "emptysign"}, "n2", False)]),
    "unschedulable pod": ({"n1": 1}, [("p1", {}, "n1", False), ("p2", {}, None, False)]),
}


class NoSignPlugin(Plugin):
    name = "nosign"

    def filter(self, state, pod_info, node_info):
        return Status()


class EmptySignPlugin(NoSignPlugin):
    name = "emptysign"

    def sign_pod(self, pod_info):
        return None, Status(Code.Unschedulable)


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_upstream_batch_scenarios(name):
    node_pods, pods = SCENARIOS[name]
    objects = [Node.model_validate({"metadata": {"name": n, "labels": {"forpod": n[-1]}},
                                    "status": {"allocatable": {"cpu": "100", "memory": "4Gi", "pods": str(m)}}})
               for n, m in node_pods.items()]
    for pname, spec, _, _ in pods:
        objects.append(Pod.model_validate({"metadata": {"name": pname, "namespace": "batch"}, "spec": {
            "schedulerName": spec.get("sched"), "nodeSelector": {"forpod": spec["sel"]} if "sel" in spec else {},
            "affinity": _pref(*spec["aff"]) if "aff" in spec else {"nodeAffinity": {}},
            "containers": [{"name": "pause", "image": "registry.k8s.io/pause:3.10",
                            "resources": {"requests": {"cpu": "10", "memory": str(4 * 1024 * 1024)}}}]}}))
    extra = {"nosign": "nosign", "emptysign": "emptysign"}
    profiles = [{"schedulerName": n, "pluginConfig": [NO_DEFAULT_SPREAD],
                 **({"plugins": {"filter": {"enabled": [{"name": extra[n]}]}}} if n in extra else {})}
                for n in ("default-scheduler", "mysched", "nosign", "emptysign")]
    scheduler = Scheduler(Cluster(objects), {"profiles": profiles}, gates=GATES,
                          registry={"nosign": NoSignPlugin, "emptysign": EmptySignPlugin})
    for pname, _, want_node, want_batched in pods:
        result = scheduler.schedule_one(f"batch/{pname}")
        assert (result.node, result.trace.batched) == (want_node, want_batched), pname
    default = scheduler.profiles["default-scheduler"].batch
    assert default.batched_pods == sum(p[3] for p in pods)


# -- invalidation rules -------------------------------------------------------------------------------------------
def one_pod_per_node(n=4, **kw):
    return [make_node(f"n{i}", cpu=str(2 + i), pods="1", **kw) for i in range(n)]


def test_seed_example_cache_expires_after_half_a_second():
    """The seed's walk-through: pod-1 is scheduled and its result cached; pods 2, 3 use the
    cache; it expires after 0.5 s and the next pod builds a new one."""
    now = [0.0]
    objects = [*one_pod_per_node(6), *(make_pod(f"p{i}") for i in range(6))]
    scheduler = Scheduler(Cluster(objects), CONFIG, gates=GATES, clock=lambda: now[0])
    served = []
    for i in range(6):
        now[0] = 0.25 * i  # 0.5 s is not yet "after" the creation time + 0.5 s; 0.75 s is
        result = scheduler.schedule_one(f"default/p{i}")
        served.append(result.trace.batched)
        if i == 3:
            assert result.trace.batch.flushed == [b.FLUSH_EXPIRED]
    assert served == [False, True, True, False, True, True]


def test_default_clock_never_expires_and_gate_off_records_nothing():
    objects = [*one_pod_per_node(6), *(make_pod(f"p{i}") for i in range(6))]
    _, results = run(objects)
    assert [r.trace.batched for r in results] == [False] + [True] * 5
    _, results = run(objects, gates=GATES_OFF)
    assert all(r.trace.batch is None and not r.trace.batched for r in results)


def test_simulation_virtual_clock_ages_batches():
    from kschedlab.sim.engine import Simulation

    sim = Simulation(one_pod_per_node(6), CONFIG, gates=GATES, attempt_duration=0.2)
    for i in range(6):
        sim.create_pod(make_pod(f"p{i}"), at=0.0)
    sim.run()
    served = [r.trace.batched for r in sim.scheduler.results]
    assert served == [False, True, True, False, True, True]  # attempts at 0, .2, .4, .6 (expired), .8, 1.0


def test_node_not_full_ends_the_batch():
    """A node that can take a second pod of the batch drops the cached list (one pod per node)."""
    objects = [*(make_node(f"n{i}", cpu=str(2 + i), pods="2") for i in range(3)),
               *(make_pod(f"p{i}") for i in range(3))]
    _, results = run(objects)
    assert [r.trace.batched for r in results] == [False, False, False]
    assert results[1].trace.batch.flushed == [b.FLUSH_NODE_NOT_FULL]


@pytest.mark.parametrize("between, reason", [
    ("other profile", b.FLUSH_POD_SKIPPED), ("unschedulable", b.FLUSH_POD_SKIPPED),
    ("different pod", b.FLUSH_POD_INCOMPATIBLE), ("nominated", b.FLUSH_POD_NOMINATED)])
def test_batch_needs_consecutive_equal_pods(between, reason):
    other = {"other profile": make_pod("x", scheduler="other"), "unschedulable": make_pod("x", cpu="64"),
             "different pod": make_pod("x", cpu="500m"), "nominated": make_pod("x", nominated="n0")}[between]
    objects = [*one_pod_per_node(5), make_pod("p0"), other, make_pod("p1")]
    profiles = [{"schedulerName": n, "pluginConfig": [NO_DEFAULT_SPREAD]} for n in ("default-scheduler", "other")]
    scheduler = Scheduler(Cluster(objects), {"profiles": profiles}, gates=GATES)
    for key in ("default/p0", "default/x"):
        scheduler.schedule_one(key)
    if between in ("different pod", "nominated"):
        # the odd pod itself found the batch unusable; it got a node, so p1 then finds the odd pod's results
        assert scheduler.results[-1].trace.batch.flushed[0] == reason
    else:
        result = scheduler.schedule_one("default/p1")
        assert not result.trace.batched and result.trace.batch.flushed == [reason]


def test_node_missing_and_hint_no_longer_fitting():
    objects = [*one_pod_per_node(4), *(make_pod(f"p{i}") for i in range(4))]
    scheduler = Scheduler(Cluster(objects), CONFIG, gates=GATES)
    first = scheduler.schedule_one("default/p0").node
    scheduler.cluster.remove_node(first)  # the previous pod's node is gone
    result = scheduler.schedule_one("default/p1")
    assert not result.trace.batched and result.trace.batch.flushed == [b.FLUSH_NODE_MISSING]
    # the next hint is cordoned after it was cached: it is filtered again, fails, all nodes are searched
    hint = scheduler.profiles["default-scheduler"].batch.state.nodes.names()[0]
    node = scheduler.cluster.nodes[hint].clone()
    node.spec.unschedulable = True
    scheduler.cluster.update_node(node)
    result = scheduler.schedule_one("default/p2")
    assert result.trace.batch.hint == hint and result.trace.batch.attempt == b.HINT_NOT_USED
    assert result.node not in (hint, None) and not result.trace.batched


# -- the proof: batching changes nothing but the work done ------------------------------------------------------------
ZONES = ("za", "zb")


@st.composite
def workloads(draw):
    """A small cluster and a stream of pods drawn from a few templates, in runs (so equal
    signatures come one after another), within upstream's premise: no preferred node affinity,
    no PreferNoSchedule taints, no pod affinity terms that score (the pods with pod anti-affinity
    or spreading cannot be signed, so they only break batches), equal priorities."""
    n = draw(st.integers(2, 8))
    node_list = []
    for i in range(n):
        labels = {"zone": draw(st.sampled_from(ZONES))}
        if draw(st.booleans()):
            labels["disk"] = "ssd"
        taints = [{"key": "dedicated", "value": "x", "effect": "NoSchedule"}] if draw(st.integers(0, 4)) == 0 else []
        images = [("nginx:1", draw(st.sampled_from([30, 300, 900])) * 1024 * 1024)] if draw(st.booleans()) else []
        node_list.append(make_node(f"n{i}", cpu=draw(st.sampled_from(["1", "2", "3", "4", "6"])),
                                   memory=draw(st.sampled_from(["2Gi", "4Gi", "8Gi"])),
                                   pods=draw(st.sampled_from(["1", "1", "1", "2", "3", "110"])), labels=labels,
                                   taints=taints, unschedulable=draw(st.integers(0, 7)) == 0, images=images))
    templates = []
    for t in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["plain", "plain", "plain", "plain", "spread", "anti"]))
        spec = {"cpu": draw(st.sampled_from(["500m", "1", "1500m", "2"])),
                "memory": draw(st.sampled_from(["256Mi", "1Gi", "3Gi"])),
                "containers": draw(st.integers(1, 2)), "labels": {"app": f"t{t}"},
                "image": draw(st.sampled_from(["nginx:1", "busybox"])),
                "node_selector": draw(st.sampled_from([None, {"disk": "ssd"}, {"zone": "za"}])),
                "tolerations": [{"key": "dedicated", "operator": "Exists"}] if draw(st.booleans()) else [],
                "host_port": draw(st.sampled_from([None, None, 8080]))}
        if draw(st.booleans()):
            spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [
                    {"key": "zone", "operator": "In", "values": list(draw(st.sampled_from([("za",), ZONES])))}]}]}}}
        if kind == "spread":
            spec["spread"] = [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
                               "labelSelector": {"matchLabels": {"app": f"t{t}"}}}]
        elif kind == "anti":
            spec.setdefault("affinity", {})["podAntiAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": [
                {"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": {"app": f"t{t}"}}}]}
        templates.append(spec)
    runs = draw(st.lists(st.tuples(st.integers(0, len(templates) - 1), st.integers(1, 6)), min_size=1, max_size=5))
    pods = [make_pod(f"p{i}", **templates[t]) for i, t in enumerate(t for t, k in runs for _ in range(k))]
    args = {"scoringStrategy": {"type": draw(st.sampled_from(["LeastAllocated", "MostAllocated"]))}}
    ignore = draw(st.booleans())
    config = {"profiles": [{"pluginConfig": [NO_DEFAULT_SPREAD, {"name": "NodeResourcesFit", "args": args},
                                             {"name": "InterPodAffinity",
                                              "args": {"ignorePreferredTermsOfExistingPods": ignore}}]}]}
    return node_list, pods, config, draw(st.integers(0, 3))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(workloads())
def test_batched_equals_unbatched_step_by_step(case):
    """Attempt by attempt, the gate-on scheduler is compared with a gate-off scheduler run on a
    copy of the same state (same start index, same random state): an attempt that is not served
    from the batch is identical (node, per-node filter verdicts, scores, message); one served from
    the batch takes a node the unbatched path scores highest, and the scores cached for it equal
    the ones the unbatched path computes."""
    node_list, pods, config, seed = case
    on = Scheduler(Cluster(copy.deepcopy([*node_list, *pods])), config, gates=GATES, seed=seed)
    served = 0
    for pod in pods:
        key = f"default/{pod.metadata.name}"
        off = Scheduler(copy.deepcopy(on.cluster), config, gates=GATES_OFF, seed=seed)
        off.next_start_node_index = on.next_start_node_index
        off.rng.setstate(on.rng.getstate())
        r_off = off.schedule_one(key)
        r_on = on.schedule_one(key)
        assert (r_on.status.code, r_on.message) == (r_off.status.code, r_off.message)
        t_on, t_off = r_on.trace, r_off.trace
        if t_on is not None and t_on.batched:
            served += 1
            scores = t_off.scores()
            if scores:  # the unbatched path scored: the cached node is one of its best, with the same scores
                best = max(s["total"] for s in scores.values())
                assert scores[r_on.node]["total"] == best
                assert t_on.batch.hint_scores == scores[r_on.node]
            else:
                assert r_on.node == r_off.node
        else:
            assert r_on.node == r_off.node
            if t_on is not None:
                assert t_on.filter_statuses() == t_off.filter_statuses()
                assert t_on.scores() == t_off.scores()
                assert (t_on.evaluated_nodes, t_on.feasible_nodes) == (t_off.evaluated_nodes, t_off.feasible_nodes)
    event(f"served from batch: {min(served, 3)}{'+' if served >= 3 else ''}")


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(workloads())
def test_batched_run_equals_unbatched_run(case):
    """Whole runs with the gate on and off give the same nodes, scores of every scored node and
    messages -- whenever no attempt had to break a tie at random (with ties both pick uniformly
    among the best nodes, but not the same one)."""
    node_list, pods, config, seed = case
    s_on, on = run([*node_list, *pods], gates=GATES, config=config, seed=seed)
    s_off, off = run([*node_list, *pods], gates=GATES_OFF, config=config, seed=seed)
    if any(r.trace is not None and r.trace.ties > 1 for r in off):
        event("ties: runs may differ")
        return
    event(f"compared; served from batch: {sum(r.trace.batched for r in on if r.trace)}")
    assert [(r.pod, r.node, r.status.code, r.message) for r in on] == \
           [(r.pod, r.node, r.status.code, r.message) for r in off]
    for r_on, r_off in zip(on, off):
        if r_on.trace is None:
            continue
        if r_on.trace.batched:
            if r_off.trace.score is not None:  # the unbatched path scored (more than one feasible node)
                assert r_on.trace.batch.hint_scores == r_off.trace.scores()[r_on.node]
        else:
            assert r_on.trace.scores() == r_off.trace.scores()


def test_batching_happens_in_one_pod_per_node_workloads():
    """The property tests above are not vacuous: such workloads are served from the batch."""
    objects = [*(make_node(f"n{i}", cpu=str(1 + i % 4), pods="1", labels={"zone": ZONES[i % 2]}) for i in range(8)),
               *(make_pod(f"a{i}", cpu="1") for i in range(5)), *(make_pod(f"b{i}", cpu="500m") for i in range(3))]
    scheduler, results = run(objects)
    assert [r.trace.batched for r in results] == [False, True, True, True, True, False, True, True]
    assert scheduler.profiles["default-scheduler"].batch.attempts == Counter(
        {b.HINT_USED: 6, b.NO_HINT: 2})


# -- where upstream's batching is an approximation (pinned, not "fixed") ---------------------------------------------
def _first_node_of(results, pod):
    return next(r.node for r in results if r.pod == f"default/{pod}")


def test_upstream_approximation_normalized_scores_are_not_renormalized():
    """Scores cached after normalization are not renormalized when the best node leaves the
    feasible set: with preferred node affinity the second pod may get another node than
    without batching (upstream behaviour; the equivalence property above excludes it)."""
    objects = [make_node("a", cpu="2", memory="64Gi", pods="1", labels={"tier": "a"}),
               make_node("b", cpu="1200m", memory="64Gi", pods="1", labels={"tier": "b"}),
               make_node("c", cpu="8", memory="64Gi", pods="1")]
    pref = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 100, "preference": {"matchExpressions": [{"key": "tier", "operator": "In", "values": ["a"]}]}},
        {"weight": 10, "preference": {"matchExpressions": [{"key": "tier", "operator": "In", "values": ["b"]}]}}]}}
    pods = [make_pod(f"p{i}", cpu="1", memory="1Gi", affinity=pref) for i in range(2)]
    _, on = run([*objects, *pods])
    _, off = run([*objects, *pods], gates=GATES_OFF)
    assert [r.node for r in off] == ["a", "b"]  # b's affinity score rises from 10 to 100 once a is full
    assert [r.node for r in on] == ["a", "c"] and on[1].trace.batched


def test_upstream_approximation_new_nodes_are_not_seen_within_the_window():
    objects = [*one_pod_per_node(3), *(make_pod(f"p{i}") for i in range(2))]
    results = {}
    for gates in (GATES, GATES_OFF):
        scheduler = Scheduler(Cluster(copy.deepcopy(objects)), CONFIG, gates=gates)
        scheduler.schedule_one("default/p0")
        scheduler.cluster.add(make_node("big", cpu="64", memory="64Gi", pods="1"))
        results[gates is GATES] = scheduler.schedule_one("default/p1")
    assert results[False].node == "big"
    assert results[True].trace.batched and results[True].node != "big"


def test_upstream_approximation_large_clusters_reuse_the_scored_window():
    """With 100+ nodes only ``numFeasibleNodesToFind`` nodes are scored per cycle, and the next
    unbatched cycle starts where the last one stopped; a batched pod takes the next best node of
    the previous window instead (and the start index does not move)."""
    objects = [*(make_node(f"n{i:03d}", cpu=str(2 + i), pods="1") for i in range(200)),
               *(make_pod(f"p{i}") for i in range(2))]
    s_on, on = run(objects)
    s_off, off = run(objects, gates=GATES_OFF)
    assert on[0].node == off[0].node == "n099"  # the best of the first 100 nodes visited
    assert on[1].trace.batched and on[1].node == "n098" and s_on.next_start_node_index == 100
    assert int(off[1].node[1:]) >= 100 and s_off.next_start_node_index == 0  # the best of the other 100


def test_bench_feature_gates_option(capsys):
    import json

    from kschedlab.cli import main

    for flag in ("OpportunisticBatching=true", "OpportunisticBatching=false"):
        assert main(["bench", "SchedulingBasic", "--nodes", "20", "--init-pods", "5", "--pods", "10",
                     "--feature-gates", flag, "-o", "json"]) == 0
        out = json.loads(capsys.readouterr().out)
        # at v1.37 defaults no pod is signable (DRAExtendedResource, System spreading): nothing is batched
        assert (out["scheduled"], out["batched"]) == (10, 0)
    assert main(["bench", "--feature-gates", "DRAExtendedResource=false"]) == 2  # locked at v1.37
