"""Writes the PodTopologySpread conformance files of this directory.

The upstream tables are transcribed row by row with small builders that mirror
``pkg/scheduler/testing`` (``st.MakePod()``, ``st.MakeNode()``, ``SpreadConstraint``);
the builders only assemble plain Kubernetes objects, every expected value is
upstream's. Run ``python tests/conformance/podtopologyspread/_generate.py`` to
regenerate ``filtering.json``, ``scoring.json`` and ``validation_pluginargs.json``.

Feature gates: upstream's tests build the plugin from ``feature.Features{}`` and then
set ``enableNodeInclusionPolicyInPodTopologySpread`` / ``enableMatchLabelKeysInPodTopologySpread``
from the row, so a row that does not set them runs with both *off*; the cases say so in
``featureGates``.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))

from kschedlab.plugins.pod_topology_spread_common import MAX_INT32, topology_normalizing_weight  # noqa: E402

REPO = "kubernetes/kubernetes"
FILTERING = (f"{REPO} pkg/scheduler/framework/plugins/podtopologyspread/filtering_test.go"
             "@01c2588bf4a3eb6bb3524b1e2bd60efb38a4b577")
SCORING = (f"{REPO} pkg/scheduler/framework/plugins/podtopologyspread/scoring_test.go"
           "@38f68d59a73f5685774b2f1e1d1921e231cc8ab4")
VALIDATION = (f"{REPO} pkg/scheduler/apis/config/validation/validation_pluginargs_test.go"
              "@04791b4906602ffda5ccf9bc4c84d3329f1d7080")

NOT_MATCH = "node(s) didn't match pod topology spread constraints"
MISSING = NOT_MATCH + " (missing required label)"
HOST = "kubernetes.io/hostname"
ZONE_KEY = "topology.kubernetes.io/zone"
DNS, SA = "DoNotSchedule", "ScheduleAnyway"
HONOR, IGNORE = "Honor", "Ignore"
FOO = {"matchExpressions": [{"key": "foo", "operator": "Exists"}]}
BAR = {"matchExpressions": [{"key": "bar", "operator": "Exists"}]}
EMPTY = {}
TAINTS = [{"key": "node.kubernetes.io/unschedulable", "value": "", "effect": "NoSchedule"}]
PLUGIN = "PodTopologySpread"


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


# -- builders (st.MakeNode / st.MakePod) -----------------------------------------------------------
def node(name: str, labels: dict | None = None, taints: bool = False) -> dict:
    obj: dict = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}}
    if labels:
        obj["metadata"]["labels"] = dict(labels)
    if taints:
        obj["spec"] = {"taints": TAINTS}
    return obj


def zn(name: str, zone: str, **extra) -> dict:
    """A node labelled zone=<zone>, node=<name> (the filtering tests' nodes)."""
    taints = extra.pop("taints", False)
    return node(name, {"zone": zone, "node": name, **extra}, taints)


def hn(name: str, zone: str | None = None, **extra) -> dict:
    """A node labelled kubernetes.io/hostname=<name> (the scoring tests' nodes)."""
    taints = extra.pop("taints", False)
    labels = {"zone": zone} if zone else {}
    return node(name, {**labels, HOST: name, **extra}, taints)


def pod(name: str, labels: dict | None = None, *, node_name: str | None = None, namespace: str | None = None,
        constraints: list | None = None, node_selector: dict | None = None, affinity: tuple | None = None,
        tolerate: bool = False, owner: tuple | None = None, terminating: bool = False) -> dict:
    meta: dict = {"name": name}
    if namespace is not None:
        meta["namespace"] = namespace
    if labels:
        meta["labels"] = dict(labels)
    if owner:
        kind, owner_name = owner
        meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": kind, "name": owner_name, "controller": True}]
    if terminating:
        meta["deletionTimestamp"] = "2025-01-01T00:00:00Z"
    spec: dict = {}
    if node_name:
        spec["nodeName"] = node_name
    if constraints:
        spec["topologySpreadConstraints"] = constraints
    if node_selector is not None:
        spec["nodeSelector"] = node_selector
    if affinity:
        key, op, values = affinity
        spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [{"key": key, "operator": op, "values": values}]}]}}}
    if tolerate:
        spec["tolerations"] = [{"key": "node.kubernetes.io/unschedulable", "operator": "Exists"}]
    obj = {"apiVersion": "v1", "kind": "Pod", "metadata": meta}
    if spec:
        obj["spec"] = spec
    return obj


def ep(name: str, node_name: str, *label_keys: str, ns: str | None = None, terminating: bool = False,
       **labels) -> dict:
    """An existing pod: labels given as keys with "" values (``Label("foo", "")``) or key=value."""
    all_labels = {k: "" for k in label_keys}
    all_labels.update(labels)
    return pod(name, all_labels, node_name=node_name, namespace=ns, terminating=terminating)


def sc(skew, key, when, selector, min_domains=None, nap=None, ntp=None, mlk=None) -> dict:
    """``SpreadConstraint(maxSkew, key, when, selector, minDomains, nodeAffinityPolicy, nodeTaintsPolicy,
    matchLabelKeys)``."""
    c: dict = {"maxSkew": skew, "topologyKey": key, "whenUnsatisfiable": when}
    if selector is not None:
        c["labelSelector"] = selector
    if min_domains is not None:
        c["minDomains"] = min_domains
    if nap:
        c["nodeAffinityPolicy"] = nap
    if ntp:
        c["nodeTaintsPolicy"] = ntp
    if mlk:
        c["matchLabelKeys"] = mlk
    return c


def ml(**labels) -> dict:
    """``st.MakeLabelSelector().Label(k, v)...``"""
    return {"matchLabels": labels}


# -- expected internal state -----------------------------------------------------------------------
def canon(selector) -> list | None:
    """A selector as ``labels.Selector`` requirements: None for a nil selector (Nothing)."""
    if selector is None:
        return None
    reqs = [[k, "=", [v]] for k, v in selector.get("matchLabels", {}).items()]
    ops = {"In": "in", "NotIn": "notin", "Exists": "exists", "DoesNotExist": "!"}
    reqs += [[e["key"], ops[e["operator"]], sorted(e.get("values", []))] for e in selector.get("matchExpressions", [])]
    return sorted(reqs)


def cons(skew, key, selector, min_domains=1, nap=HONOR, ntp=IGNORE) -> dict:
    return {"maxSkew": skew, "topologyKey": key, "selector": canon(selector), "minDomains": min_domains,
            "nodeAffinityPolicy": nap, "nodeTaintsPolicy": ntp}


NEW_PATHS = [["", MAX_INT32], ["", MAX_INT32]]


def paths(p0, p1=None) -> list:
    """criticalPaths as upstream writes them, values of equal counts sorted (its cmp option)."""
    p1 = p1 or ["", MAX_INT32]
    (v0, n0), (v1, n1) = p0, p1
    if n0 == n1 and v0 > v1:
        v0, v1 = v1, v0
    return [[v0, n0], [v1, n1]]


def gates(nip: bool = False, mlk: bool = False) -> dict:
    return {"NodeInclusionPolicyInPodTopologySpread": nip, "MatchLabelKeysInPodTopologySpread": mlk}


def args_list(defaults=None) -> dict:
    return {"defaultingType": "List", **({"defaultConstraints": defaults} if defaults else {})}


GATE_NOTE = ("Upstream builds the plugin from feature.Features{} and sets the node-inclusion-policy and "
             "matchLabelKeys fields from the row (unset = false); featureGates carries the same values.")


# -- filtering_test.go --------------------------------------------------------------------------------
NODES4 = [zn("node-a", "zone1"), zn("node-b", "zone1"), zn("node-x", "zone2"), zn("node-y", "zone2")]


def foo_pods(*spec) -> list:
    """Existing pods labelled foo="" from (name, node) pairs."""
    return [ep(n, nd, "foo") for n, nd in spec]


STD5 = foo_pods(("p-a1", "node-a"), ("p-a2", "node-a"), ("p-b1", "node-b"), ("p-y1", "node-y"), ("p-y2", "node-y"))
STD7 = foo_pods(("p-a1", "node-a"), ("p-a2", "node-a"), ("p-b1", "node-b"), ("p-y1", "node-y"), ("p-y2", "node-y"),
                ("p-y3", "node-y"), ("p-y4", "node-y"))
FOO_A5 = [ep(n, nd, foo="a") for n, nd in [("p-a1", "node-a"), ("p-a2", "node-a"), ("p-b1", "node-b"),
                                             ("p-y1", "node-y"), ("p-y2", "node-y")]]
ABC = [node("node-a", {"node": "node-a", "foo": ""}), node("node-b", {"node": "node-b", "foo": ""}),
       node("node-c", {"node": "node-c", "bar": ""})]
ABC_TAINT = [node("node-a", {"node": "node-a"}), node("node-b", {"node": "node-b"}),
             node("node-c", {"node": "node-c", "bar": ""}, taints=True)]
BAR_ABC = [ep("p-a", "node-a", "bar"), ep("p-b", "node-b", "bar"), ep("p-c", "node-b", "bar"), ep("p-d", "node-c")]


def prefilter_state_cases() -> list[dict]:
    P = lambda *c, **kw: pod("p", {"foo": ""}, constraints=list(c), **kw)  # noqa: E731
    svc_foo_bar = [{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "svc"},
                    "spec": {"selector": {"foo": "bar"}}}]
    rows = [
        # name, pod, nodes, existing, want(constraints, paths, tp) | "Skip", extra
        ("clean cluster with one spreadConstraint", P(sc(5, "zone", DNS, ml(foo="bar"))), NODES4, [],
         ([cons(5, "zone", ml(foo="bar"))], [paths(["zone1", 0], ["zone2", 0])], [{"zone1": 0, "zone2": 0}]), {}),
        ("normal case with one spreadConstraint", P(sc(1, "zone", DNS, FOO)), NODES4, STD5,
         ([cons(1, "zone", FOO)], [paths(["zone2", 2], ["zone1", 3])], [{"zone1": 3, "zone2": 2}]), {}),
        ("normal case with null label selector", P(sc(1, "zone", DNS, None)), NODES4, STD5,
         ([cons(1, "zone", None)], [paths(["zone2", 0], ["zone1", 0])], [{"zone1": 0, "zone2": 0}]), {}),
        ("normal case with one spreadConstraint, on a 3-zone cluster", P(sc(1, "zone", DNS, FOO)),
         NODES4 + [zn("node-o", "zone3"), zn("node-p", "zone3")], STD5,
         ([cons(1, "zone", FOO)], [paths(["zone3", 0], ["zone2", 2])], [{"zone1": 3, "zone2": 2, "zone3": 0}]), {}),
        ("namespace mismatch doesn't count", P(sc(1, "zone", DNS, FOO)), NODES4,
         [ep("p-a1", "node-a", "foo"), ep("p-a2", "node-a", "foo", ns="ns1"), ep("p-b1", "node-b", "foo"),
          ep("p-y1", "node-y", "foo", ns="ns2"), ep("p-y2", "node-y", "foo")],
         ([cons(1, "zone", FOO)], [paths(["zone2", 1], ["zone1", 2])], [{"zone1": 2, "zone2": 1}]), {}),
        ("normal case with two spreadConstraints", P(sc(1, "zone", DNS, FOO), sc(1, "node", DNS, FOO)), NODES4, STD7,
         ([cons(1, "zone", FOO), cons(1, "node", FOO)],
          [paths(["zone1", 3], ["zone2", 4]), paths(["node-x", 0], ["node-b", 1])],
          [{"zone1": 3, "zone2": 4}, {"node-a": 2, "node-b": 1, "node-x": 0, "node-y": 4}]), {}),
        ("soft spreadConstraints should be bypassed",
         P(sc(1, "zone", SA, FOO), sc(1, "zone", DNS, FOO), sc(1, "node", SA, FOO), sc(1, "node", DNS, FOO)),
         [zn("node-a", "zone1"), zn("node-b", "zone1"), zn("node-y", "zone2")], STD7,
         ([cons(1, "zone", FOO), cons(1, "node", FOO)],
          [paths(["zone1", 3], ["zone2", 4]), paths(["node-b", 1], ["node-a", 2])],
          [{"zone1": 3, "zone2": 4}, {"node-a": 2, "node-b": 1, "node-y": 4}]), {}),
        ("different labelSelectors - simple version",
         pod("p", {"foo": "", "bar": ""}, constraints=[sc(1, "zone", DNS, FOO), sc(1, "node", DNS, BAR)]),
         [zn("node-a", "zone1"), zn("node-b", "zone1"), zn("node-y", "zone2")],
         [ep("p-a", "node-a", "foo"), ep("p-b", "node-b", "bar")],
         ([cons(1, "zone", FOO), cons(1, "node", BAR)],
          [paths(["zone2", 0], ["zone1", 1]), paths(["node-a", 0], ["node-y", 0])],
          [{"zone1": 1, "zone2": 0}, {"node-a": 0, "node-b": 1, "node-y": 0}]), {}),
        ("different labelSelectors - complex pods",
         pod("p", {"foo": "", "bar": ""}, constraints=[sc(1, "zone", DNS, FOO), sc(1, "node", DNS, BAR)]),
         [zn("node-a", "zone1"), zn("node-b", "zone1"), zn("node-y", "zone2")],
         [ep("p-a1", "node-a", "foo"), ep("p-a2", "node-a", "foo", "bar"), ep("p-b1", "node-b", "foo"),
          ep("p-y1", "node-y", "foo"), ep("p-y2", "node-y", "foo", "bar"), ep("p-y3", "node-y", "foo"),
          ep("p-y4", "node-y", "foo", "bar")],
         ([cons(1, "zone", FOO), cons(1, "node", BAR)],
          [paths(["zone1", 3], ["zone2", 4]), paths(["node-b", 0], ["node-a", 1])],
          [{"zone1": 3, "zone2": 4}, {"node-a": 1, "node-b": 0, "node-y": 2}]), {}),
        ("two spreadConstraints, and with podAffinity",
         P(sc(1, "zone", DNS, FOO), sc(1, "node", DNS, FOO), affinity=("node", "NotIn", ["node-x"])), NODES4, STD7,
         ([cons(1, "zone", FOO), cons(1, "node", FOO)],
          [paths(["zone1", 3], ["zone2", 4]), paths(["node-b", 1], ["node-a", 2])],
          [{"zone1": 3, "zone2": 4}, {"node-a": 2, "node-b": 1, "node-y": 4}]), {}),
        ("default constraints and a service", pod("p", {"foo": "bar", "baz": "kar"}), [], [],
         ([cons(3, "node", ml(foo="bar")), cons(5, "rack", ml(foo="bar"))], [NEW_PATHS, NEW_PATHS], [{}, {}]),
         {"args": args_list([{"maxSkew": 3, "topologyKey": "node", "whenUnsatisfiable": DNS},
                             {"maxSkew": 2, "topologyKey": "node", "whenUnsatisfiable": SA},
                             {"maxSkew": 5, "topologyKey": "rack", "whenUnsatisfiable": DNS}]),
          "services": svc_foo_bar}),
        ("default constraints and a service that doesn't match", pod("p", {"foo": "bar"}), [], [], "Skip",
         {"args": args_list([{"maxSkew": 3, "topologyKey": "node", "whenUnsatisfiable": DNS}]),
          "services": [{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "svc"},
                        "spec": {"selector": {"baz": "kep"}}}]}),
        ("default constraints and a service, but pod has constraints",
         pod("p", {"foo": "bar", "baz": "tar"}, constraints=[sc(1, "zone", DNS, ml(baz="tar")),
                                                              sc(2, "planet", SA, ml(fot="rok"))]), [], [],
         ([cons(1, "zone", ml(baz="tar"))], [NEW_PATHS], [{}]),
         {"args": args_list([{"maxSkew": 2, "topologyKey": "node", "whenUnsatisfiable": DNS}]),
          "services": svc_foo_bar}),
        ("default soft constraints and a service", pod("p", {"foo": "bar"}), [], [], "Skip",
         {"args": args_list([{"maxSkew": 2, "topologyKey": "node", "whenUnsatisfiable": SA}]),
          "services": svc_foo_bar}),
        ("TpKeyToDomainsNum is calculated when MinDomains is enabled",
         P(sc(1, "zone", DNS, FOO), sc(1, "node", DNS, FOO)), NODES4, STD7,
         ([cons(1, "zone", FOO), cons(1, "node", FOO)],
          [paths(["zone1", 3], ["zone2", 4]), paths(["node-x", 0], ["node-b", 1])],
          [{"zone1": 3, "zone2": 4}, {"node-a": 2, "node-b": 1, "node-x": 0, "node-y": 4}]), {}),
        ("feature gate disabled with NodeAffinityPolicy", P(sc(1, "node", DNS, BAR), node_selector={"foo": ""}),
         ABC, BAR_ABC, ([cons(1, "node", BAR)], [paths(["node-a", 1], ["node-b", 2])], [{"node-a": 1, "node-b": 2}]),
         {"gates": gates(nip=False)}),
        ("NodeAffinityPolicy honored with labelSelectors", P(sc(1, "node", DNS, BAR), node_selector={"foo": ""}),
         ABC, BAR_ABC, ([cons(1, "node", BAR)], [paths(["node-a", 1], ["node-b", 2])], [{"node-a": 1, "node-b": 2}]),
         {"gates": gates(nip=True)}),
        ("NodeAffinityPolicy ignored with labelSelectors",
         P(sc(1, "node", DNS, BAR, nap=IGNORE), node_selector={"foo": ""}), ABC, BAR_ABC,
         ([cons(1, "node", BAR, nap=IGNORE)], [paths(["node-c", 0], ["node-a", 1])],
          [{"node-a": 1, "node-b": 2, "node-c": 0}]), {"gates": gates(nip=True)}),
        ("NodeAffinityPolicy honored with nodeAffinity", P(sc(1, "node", DNS, BAR), affinity=("foo", "In", [""])),
         ABC, [ep("p-a", "node-a", "bar"), ep("p-c", "node-b", "bar"), ep("p-d", "node-b", "bar"),
               ep("p-e", "node-c")],
         ([cons(1, "node", BAR)], [paths(["node-a", 1], ["node-b", 2])], [{"node-a": 1, "node-b": 2}]),
         {"gates": gates(nip=True)}),
        ("NodeAffinityPolicy ignored with nodeAffinity",
         P(sc(1, "node", DNS, BAR, nap=IGNORE), affinity=("foo", "In", [""])), ABC, BAR_ABC,
         ([cons(1, "node", BAR, nap=IGNORE)], [paths(["node-c", 0], ["node-a", 1])],
          [{"node-a": 1, "node-b": 2, "node-c": 0}]), {"gates": gates(nip=True)}),
        ("feature gate disabled with NodeTaintsPolicy", P(sc(1, "node", DNS, BAR)), ABC_TAINT, BAR_ABC,
         ([cons(1, "node", BAR)], [paths(["node-c", 0], ["node-a", 1])], [{"node-a": 1, "node-b": 2, "node-c": 0}]),
         {"gates": gates(nip=False)}),
        ("NodeTaintsPolicy ignored", P(sc(1, "node", DNS, BAR)), ABC_TAINT, BAR_ABC,
         ([cons(1, "node", BAR)], [paths(["node-c", 0], ["node-a", 1])], [{"node-a": 1, "node-b": 2, "node-c": 0}]),
         {"gates": gates(nip=True)}),
        ("NodeTaintsPolicy honored", P(sc(1, "node", DNS, BAR, ntp=HONOR)), ABC_TAINT, BAR_ABC,
         ([cons(1, "node", BAR, ntp=HONOR)], [paths(["node-a", 1], ["node-b", 2])], [{"node-a": 1, "node-b": 2}]),
         {"gates": gates(nip=True)}),
        ("NodeTaintsPolicy honored with tolerated taints", P(sc(1, "node", DNS, BAR, ntp=HONOR), tolerate=True),
         ABC_TAINT, BAR_ABC,
         ([cons(1, "node", BAR, ntp=HONOR)], [paths(["node-c", 0], ["node-a", 1])],
          [{"node-a": 1, "node-b": 2, "node-c": 0}]), {"gates": gates(nip=True)}),
        ("two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore",
         P(sc(1, "zone", DNS, FOO), sc(1, "node", DNS, FOO, nap=IGNORE), node_selector={"foo": ""}),
         [zn("node-a", "zone1", foo=""), zn("node-b", "zone1"), zn("node-x", "zone2", foo="")],
         foo_pods(("p-b1", "node-b"), ("p-b2", "node-b"), ("p-x1", "node-x")),
         ([cons(1, "zone", FOO), cons(1, "node", FOO, nap=IGNORE)],
          [paths(["zone1", 0], ["zone2", 1]), paths(["node-a", 0], ["node-x", 1])],
          [{"zone1": 0, "zone2": 1}, {"node-a": 0, "node-b": 2, "node-x": 1}]), {"gates": gates(nip=True)}),
        ("two node inclusion Constraints, zone: honor/honor, node: honor/ignore",
         P(sc(1, "zone", DNS, FOO, ntp=HONOR), sc(1, "node", DNS, FOO)),
         [zn("node-a", "zone1", foo=""), zn("node-b", "zone1", taints=True), zn("node-x", "zone2", foo="")],
         foo_pods(("p-b1", "node-b"), ("p-b2", "node-b"), ("p-x1", "node-x")),
         ([cons(1, "zone", FOO, ntp=HONOR), cons(1, "node", FOO)],
          [paths(["zone1", 0], ["zone2", 1]), paths(["node-a", 0], ["node-x", 1])],
          [{"zone1": 0, "zone2": 1}, {"node-a": 0, "node-b": 2, "node-x": 1}]), {"gates": gates(nip=True)}),
        ("two node inclusion Constraints, zone: honor/ignore, node: honor/ignore",
         P(sc(1, "zone", DNS, FOO), sc(1, "node", DNS, FOO), node_selector={"foo": ""}),
         [zn("node-a", "zone1"), zn("node-b", "zone1", foo="", taints=True), zn("node-x", "zone2", foo=""),
          zn("node-y", "zone2")],
         foo_pods(("p-a1", "node-a"), ("p-a2", "node-a"), ("p-x1", "node-x"), ("p-y1", "node-y")),
         ([cons(1, "zone", FOO), cons(1, "node", FOO)],
          [paths(["zone1", 0], ["zone2", 1]), paths(["node-b", 0], ["node-x", 1])],
          [{"zone1": 0, "zone2": 1}, {"node-b": 0, "node-x": 1}]), {"gates": gates(nip=True)}),
        ("two node inclusion Constraints, zone: ignore/ignore, node: honor/honor",
         P(sc(1, "zone", DNS, FOO, nap=IGNORE), sc(1, "node", DNS, FOO, ntp=HONOR), node_selector={"foo": ""}),
         [zn("node-a", "zone1"), zn("node-b", "zone1", foo="", taints=True), zn("node-x", "zone2", foo=""),
          zn("node-y", "zone2", foo="")],
         foo_pods(("p-a1", "node-a"), ("p-a2", "node-a"), ("p-x1", "node-x"), ("p-x2", "node-x"),
                  ("p-y1", "node-y")),
         ([cons(1, "zone", FOO, nap=IGNORE), cons(1, "node", FOO, ntp=HONOR)],
          [paths(["zone1", 2], ["zone2", 3]), paths(["node-y", 1], ["node-x", 2])],
          [{"zone1": 2, "zone2": 3}, {"node-x": 2, "node-y": 1}]), {"gates": gates(nip=True)}),
        ("matchLabelKeys ignored when feature gate disabled",
         pod("p", {"foo": "", "bar": ""}, constraints=[sc(1, "zone", DNS, FOO, mlk=["bar"])]), NODES4, STD5,
         ([cons(1, "zone", FOO)], [paths(["zone2", 2], ["zone1", 3])], [{"zone1": 3, "zone2": 2}]),
         {"gates": gates(mlk=False)}),
        ("matchLabelKeys ANDed with LabelSelector when LabelSelector isn't empty",
         pod("p", {"foo": "", "bar": "a"}, constraints=[sc(1, "zone", DNS, FOO, mlk=["bar"])]), NODES4,
         [ep("p-a1", "node-a", "foo"), ep("p-a2", "node-a", "foo", bar="a"), ep("p-b1", "node-b", "foo"),
          ep("p-y1", "node-y", "foo", bar="a"), ep("p-y2", "node-y", "bar")],
         ([cons(1, "zone", {"matchLabels": {"bar": "a"}, "matchExpressions": FOO["matchExpressions"]})],
          [paths(["zone2", 1], ["zone1", 1])], [{"zone1": 1, "zone2": 1}]), {"gates": gates(mlk=True)}),
        ("matchLabelKeys ANDed with LabelSelector when LabelSelector is empty",
         pod("p", {"foo": "a"}, constraints=[sc(1, "zone", DNS, EMPTY, mlk=["foo"])]), NODES4, FOO_A5,
         ([cons(1, "zone", ml(foo="a"))], [paths(["zone2", 2], ["zone1", 3])], [{"zone1": 3, "zone2": 2}]),
         {"gates": gates(mlk=True)}),
        ("key in matchLabelKeys is ignored when LabelSelector is nil when feature gate enabled",
         P(sc(1, "zone", DNS, None, mlk=["bar"])), NODES4, FOO_A5,
         ([cons(1, "zone", None)], [paths(["zone2", 0], ["zone1", 0])], [{"zone1": 0, "zone2": 0}]),
         {"gates": gates(mlk=True)}),
        ("no pod is matched when LabelSelector is nil when feature gate disabled",
         P(sc(1, "zone", DNS, None, mlk=["bar"])), NODES4, FOO_A5,
         ([cons(1, "zone", None)], [paths(["zone2", 0], ["zone1", 0])], [{"zone1": 0, "zone2": 0}]), {}),
        ("key in matchLabelKeys is ignored when it isn't exist in pod.labels",
         P(sc(1, "zone", DNS, FOO, mlk=["bar"])), NODES4, FOO_A5,
         ([cons(1, "zone", FOO)], [paths(["zone2", 2], ["zone1", 3])], [{"zone1": 3, "zone2": 2}]),
         {"gates": gates(mlk=True)}),
        ("two spreadConstraints with the same topologyKey",
         pod("p", {"foo": "", "bar": ""}, constraints=[sc(1, "zone", DNS, FOO), sc(1, "zone", DNS, BAR)]), NODES4,
         [ep("p-a1", "node-a", "foo", "bar"), ep("p-b1", "node-b", "foo"), ep("p-x1", "node-x", "bar"),
          ep("p-y1", "node-y", "foo", "bar"), ep("p-y2", "node-y", "bar")],
         ([cons(1, "zone", FOO), cons(1, "zone", BAR)],
          [paths(["zone2", 1], ["zone1", 2]), paths(["zone1", 1], ["zone2", 3])],
          [{"zone1": 2, "zone2": 1}, {"zone1": 1, "zone2": 3}]), {}),
        ("skip if not specified", pod("p", {"foo": ""}), [zn("node-a", "zone1")], [], "Skip", {}),
    ]
    out = []
    for name, p, nodes, existing, want, extra in rows:
        case = {
            "id": f"podtopologyspread/filtering/prefilter-state-{slug(name)}",
            "source": f"{FILTERING} :: TestPreFilterState :: {name}",
            "plugin": PLUGIN, "stage": "prefilter",
            "args": extra.get("args", args_list()),
            "featureGates": extra.get("gates", gates()),
            "nodes": nodes, "existingPods": existing, "pod": p,
        }
        if "services" in extra:
            case["services"] = extra["services"]
        if want == "Skip":
            case["expected"] = {"prefilter": {"code": "Skip", "reasons": []}}
        else:
            c, cp, tp = want
            case["expected"] = {"prefilter": {"code": "Success", "reasons": []},
                                "other": {"preFilterState": {"constraints": c, "criticalPaths": cp,
                                                             "tpValueToMatchNum": tp}}}
        notes = [GATE_NOTE, "Upstream compares the whole preFilterState; the selector is compared as its parsed "
                            "requirements ([key, operator, values], null = labels.Nothing()), criticalPaths with "
                            "equal counts sorted by value as upstream's cmp option does; a fresh criticalPaths "
                            "entry is [\"\", MaxInt32]."]
        if "services" in extra:
            notes.append("The Service is unnamed upstream; 'svc' is synthetic.")
        case["notes"] = " ".join(notes)
        out.append(case)
    return out


S, U, UU = "Success", "Unschedulable", "UnschedulableAndUnresolvable"


def verdicts(spec: dict) -> dict:
    out = {}
    for n, code in spec.items():
        reasons = [] if code == S else [NOT_MATCH] if code == U else [MISSING]
        out[n] = {"code": code, "reasons": reasons}
    return out


def filter_case(func: str, name: str, p, nodes, existing, want: dict, nip: bool = False, suffix: str = "") -> dict:
    prefix = {"TestSingleConstraint": "single", "TestMultipleConstraints": "multiple"}[func]
    return {
        "id": f"podtopologyspread/filtering/{prefix}-{slug(name)}{suffix}",
        "source": f"{FILTERING} :: {func} :: {name}",
        "plugin": PLUGIN, "stage": "filter", "args": args_list(), "featureGates": gates(nip=nip),
        "nodes": nodes, "existingPods": existing, "pod": p,
        "expected": {"prefilter": {"code": "Success", "reasons": []}, "filter": verdicts(want)},
        "notes": GATE_NOTE + " Upstream checks only the status code of each node; the reason is the one "
                             "upstream's Filter returns with that code (ErrReasonConstraintsNotMatch for "
                             "Unschedulable, ErrReasonNodeLabelNotMatch for UnschedulableAndUnresolvable)."
                 + (" Two upstream rows share this name; this id carries a suffix." if suffix else ""),
    }


def single_constraint_cases() -> list[dict]:
    P = lambda *c, labels=None, **kw: pod("p", labels or {"foo": ""}, constraints=list(c), **kw)  # noqa: E731
    ABXY = lambda a, b, x, y: {"node-a": a, "node-b": b, "node-x": x, "node-y": y}  # noqa: E731
    zone_foo = sc(1, "zone", DNS, FOO)
    node_foo = sc(1, "node", DNS, FOO)
    p6 = foo_pods(("p-a1", "node-a"), ("p-a2", "node-a"), ("p-b1", "node-b"), ("p-y1", "node-y"),
                  ("p-y2", "node-y"), ("p-y3", "node-y"))
    abc = [node("node-a", {"node": "node-a"}), node("node-b", {"node": "node-b"}), node("node-c", {"node": "node-c"})]
    p221 = foo_pods(("p-a1", "node-a"), ("p-a2", "node-a"), ("p-b1", "node-b"), ("p-b2", "node-b"),
                    ("p-c1", "node-c"))
    p21 = foo_pods(("p-b1", "node-a"), ("p-b2", "node-b"), ("p-y1", "node-y"))
    foo_nodes = [node("node-a", {"node": "node-a", "foo": ""}), node("node-b", {"node": "node-b", "foo": ""}),
                 node("node-x", {"node": "node-x", "foo": ""}), node("node-y", {"node": "node-y"})]
    taint_nodes = foo_nodes[:3] + [node("node-y", {"node": "node-y"}, taints=True)]
    rows = [
        ("no existing pods", P(zone_foo), NODES4, [], ABXY(S, S, S, S), False),
        ("no existing pods, incoming pod doesn't match itself", P(sc(1, "zone", DNS, BAR)), NODES4, [],
         ABXY(S, S, S, S), False),
        ("existing pods in a different namespace do not count", P(zone_foo), NODES4,
         [ep("p-a1", "node-a", "foo", ns="ns1"), ep("p-b1", "node-a", "foo", ns="ns2"), ep("p-x1", "node-x", "foo"),
          ep("p-y1", "node-y", "foo")], ABXY(S, S, U, U), False),
        ("existing pods do not match null selector", P(sc(1, "zone", DNS, None)), NODES4,
         foo_pods(("p-x1", "node-x"), ("p-y1", "node-y")), ABXY(S, S, S, S), False),
        ("pods spread across zones as 3/3, all nodes fit", P(zone_foo), NODES4, p6, ABXY(S, S, S, S), False),
        ("pods spread across zones as 1/2 due to absence of label 'zone' on node-b", P(zone_foo),
         [zn("node-a", "zone1"), node("node-b", {"zon": "zone1", "node": "node-b"}), zn("node-x", "zone2"),
          zn("node-y", "zone2")],
         foo_pods(("p-a1", "node-a"), ("p-b1", "node-b"), ("p-x1", "node-x"), ("p-y1", "node-y")),
         ABXY(S, UU, U, U), False),
        ("pod cannot be scheduled as all nodes don't have label 'rack'", P(sc(1, "rack", DNS, FOO)),
         [zn("node-a", "zone1"), zn("node-x", "zone2")], [], {"node-a": UU, "node-x": UU}, False),
        ("pods spread across nodes as 2/1/0/3, only node-x fits", P(node_foo), NODES4, p6, ABXY(U, U, S, U), False),
        ("pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit", P(sc(2, "node", DNS, FOO)),
         NODES4, p6, ABXY(U, S, S, U), False),
        ("pods spread across nodes as 2/1/0/3, but pod doesn't match itself", P(node_foo, labels={"bar": ""}),
         NODES4, p6, ABXY(U, S, S, U), False),
        ("incoming pod has nodeAffinity, pods spread as 2/~1~/~0~/3, hence node-a fits",
         P(node_foo, affinity=("node", "In", ["node-a", "node-y"])), NODES4, p6, ABXY(S, S, S, U), False),
        ("terminating Pods should be excluded", P(node_foo),
         [node("node-a", {"node": "node-a"}), node("node-b", {"node": "node-b"})],
         [ep("p-a", "node-a", "foo", terminating=True), ep("p-b", "node-b", "foo")], {"node-a": S, "node-b": U},
         False),
        ("incoming pod has nodeAffinity, pods spread as 0/~2~/0/1, hence node-a fits",
         P(zone_foo, affinity=("node", "NotIn", ["node-b"])), NODES4,
         foo_pods(("p-b1", "node-b"), ("p-b2", "node-b"), ("p-y1", "node-y")), ABXY(S, S, U, U), False),
        ("pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains < minDomains, then the third "
         "node fits", P(sc(2, "node", DNS, FOO, min_domains=4)), abc, p221,
         {"node-a": U, "node-b": U, "node-c": S}, False),
        ("pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains > minDomains, then the all "
         "nodes fit", P(sc(2, "node", DNS, FOO, min_domains=2)), abc, p221,
         {"node-a": S, "node-b": S, "node-c": S}, False),
        ("pods spread across zone as 2/1, maxSkew is 2 and the number of domains < minDomains, then the third and "
         "fourth nodes fit", P(sc(2, "zone", DNS, FOO, min_domains=3)), NODES4, p21, ABXY(U, U, S, S), False),
        ("pods spread across zone as 2/1, maxSkew is 2 and the number of domains > minDomains, then the all nodes "
         "fit", P(sc(2, "zone", DNS, FOO, min_domains=1)), NODES4, p21, ABXY(S, S, S, S), False),
        ("NodeAffinityPolicy honored with labelSelectors", P(node_foo, node_selector={"foo": ""}), foo_nodes, p21,
         ABXY(U, U, S, S), True),
        ("NodeAffinityPolicy ignored with labelSelectors", P(sc(1, "node", DNS, FOO, nap=IGNORE),
                                                              node_selector={"foo": ""}), foo_nodes, p21,
         ABXY(U, U, S, U), True),
        ("NodeAffinityPolicy honored with nodeAffinity", P(node_foo, affinity=("foo", "In", [""])), foo_nodes, p21,
         ABXY(U, U, S, S), True),
        ("NodeAffinityPolicy ignored with labelSelectors", P(sc(1, "node", DNS, FOO, nap=IGNORE),
                                                              affinity=("foo", "In", [""])), foo_nodes, p21,
         ABXY(U, U, S, U), True),
        ("NodeTaintsPolicy honored", P(sc(1, "node", DNS, FOO, ntp=HONOR)), taint_nodes, p21, ABXY(U, U, S, S), True),
        ("NodeTaintsPolicy ignored", P(node_foo), taint_nodes, p21, ABXY(U, U, S, U), True),
    ]
    out, seen = [], set()
    for name, p, nodes, existing, want, nip in rows:
        suffix = "-2" if slug(name) in seen else ""
        seen.add(slug(name))
        out.append(filter_case("TestSingleConstraint", name, p, nodes, existing, want, nip, suffix))
    return out


def multiple_constraints_cases() -> list[dict]:
    ABXY = lambda a, b, x, y: {"node-a": a, "node-b": b, "node-x": x, "node-y": y}  # noqa: E731
    zf, nf, nb = sc(1, "zone", DNS, FOO), sc(1, "node", DNS, FOO), sc(1, "node", DNS, BAR)
    P = lambda *c, labels=None, **kw: pod("p", labels or {"foo": ""}, constraints=list(c), **kw)  # noqa: E731
    FB = {"foo": "", "bar": ""}
    p6 = foo_pods(("p-a1", "node-a"), ("p-a2", "node-a"), ("p-b1", "node-b"), ("p-y1", "node-y"),
                  ("p-y2", "node-y"), ("p-y3", "node-y"))
    aby = foo_pods(("p-a1", "node-a"), ("p-b1", "node-b"), ("p-y1", "node-y"))
    rows = [
        ("two Constraints on zone and node, spreads = [3/3, 2/1/0/3]", P(zf, nf), NODES4, p6, ABXY(U, U, S, U), False),
        ("two Constraints on zone and node, spreads = [3/4, 2/1/0/4]", P(zf, nf), NODES4,
         p6 + foo_pods(("p-y4", "node-y")), ABXY(U, U, U, U), False),
        ("Constraints hold different labelSelectors, spreads = [1/0, 1/0/0/1]", P(zf, nb, labels=FB), NODES4,
         [ep("p-a1", "node-a", "foo"), ep("p-y1", "node-y", "bar")], ABXY(U, U, S, U), False),
        ("Constraints hold different labelSelectors, spreads = [1/0, 0/0/1/1]", P(zf, nb, labels=FB), NODES4,
         [ep("p-a1", "node-a", "foo"), ep("p-x1", "node-x", "bar"), ep("p-y1", "node-y", "bar")],
         ABXY(U, U, U, U), False),
        ("Constraints hold different labelSelectors, spreads = [2/3, 1/0/0/1]", P(zf, nb, labels=FB), NODES4,
         [ep("p-a1", "node-a", "foo"), ep("p-a2", "node-a", "foo", "bar"), ep("p-y1", "node-y", "foo"),
          ep("p-y2", "node-y", "foo", "bar"), ep("p-y3", "node-y", "foo")], ABXY(U, S, U, U), False),
        ("Constraints hold different labelSelectors but pod doesn't match itself on 'zone' constraint",
         P(zf, nb, labels={"bar": ""}), NODES4,
         [ep("p-a1", "node-a", "foo"), ep("p-x1", "node-x", "bar"), ep("p-y1", "node-y", "bar")],
         ABXY(S, S, U, U), False),
        ("two Constraints on zone and node, absence of label 'node' on node-x, spreads = [1/1, 1/0/0/1]",
         P(zf, nf), [zn("node-a", "zone1"), zn("node-b", "zone1"), node("node-x", {"zone": "zone2"}),
                     zn("node-y", "zone2")],
         foo_pods(("p-a1", "node-a"), ("p-y3", "node-y")), ABXY(U, S, UU, U), False),
        ("two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore",
         P(zf, sc(1, "node", DNS, FOO, nap=IGNORE), node_selector={"foo": ""}),
         [zn("node-a", "zone1", foo=""), zn("node-b", "zone1", foo=""), zn("node-x", "zone2", foo=""),
          zn("node-y", "zone2")], aby, ABXY(U, U, S, U), True),
        ("two node inclusion Constraints, zone: honor/honor, node: honor/ignore",
         P(sc(1, "zone", DNS, FOO, ntp=HONOR), nf),
         [zn("node-a", "zone1", foo=""), zn("node-b", "zone1", foo=""), zn("node-x", "zone2", foo=""),
          zn("node-y", "zone2", taints=True)], aby, ABXY(U, U, S, U), True),
        ("two node inclusion Constraints, zone: honor/ignore, node: honor/ignore",
         P(zf, nf, node_selector={"foo": ""}),
         [zn("node-a", "zone1", foo=""), zn("node-b", "zone1"), zn("node-x", "zone2", foo=""),
          zn("node-y", "zone2", foo="", taints=True)], aby, ABXY(U, S, S, U), True),
        ("two node inclusion Constraints, zone: honor/honor, node: ignore/ignore",
         P(sc(1, "zone", DNS, FOO, ntp=HONOR), sc(1, "node", DNS, FOO, nap=IGNORE), node_selector={"foo": ""}),
         [zn("node-a", "zone1", foo=""), zn("node-b", "zone1"), zn("node-x", "zone2", foo=""),
          zn("node-y", "zone2", foo="", taints=True)], aby, ABXY(U, U, S, U), True),
        ("two Constraints on zone, spreads = [3/3, 2/1]", P(sc(1, "zone", DNS, BAR), zf, labels=FB), NODES4,
         [ep("p-a1", "node-a", "foo", "bar"), ep("p-a2", "node-a", "foo"), ep("p-b1", "node-b", "foo", "bar"),
          ep("p-y1", "node-y", "foo"), ep("p-y2", "node-y", "foo", "bar"), ep("p-y3", "node-y", "foo")],
         ABXY(U, U, S, S), False),
        ("two Constraints on zone, spreads = [3/4, 2/1]", P(sc(1, "zone", DNS, BAR), zf, labels=FB), NODES4,
         [ep("p-a1", "node-a", "foo", "bar"), ep("p-a2", "node-a", "foo"), ep("p-b1", "node-b", "foo", "bar"),
          ep("p-y1", "node-y", "foo"), ep("p-y2", "node-y", "foo", "bar"), ep("p-y3", "node-y", "foo"),
          ep("p-y4", "node-y", "foo")], ABXY(U, U, U, U), False),
    ]
    return [filter_case("TestMultipleConstraints", *row) for row in rows]


def prefilter_disabled_case() -> dict:
    return {
        "id": "podtopologyspread/filtering/prefilter-disabled",
        "source": f"{FILTERING} :: TestPreFilterDisabled",
        "plugin": PLUGIN, "stage": "filter", "args": args_list(),
        "nodes": [node("node")], "existingPods": [], "pod": pod("p"),
        "other": {"runPreFilter": False},
        "expected": {"filter": {"node": {"code": "Error", "reasons": [
            'reading "PreFilterPodTopologySpread" from cycleState: not found']}}},
        "notes": "Filter without PreFilter. Upstream's node and pod are empty objects ('node' and 'p' are "
                 "synthetic); it compares the status by code and error identity (fwk.ErrNotFound); the reason text "
                 "is getPreFilterState's wrapping of that error in filtering.go.",
    }


# -- scoring_test.go ---------------------------------------------------------------------------------------
def prescore_cases() -> list[dict]:
    out = []
    rs = lambda sel: {"apiVersion": "apps/v1", "kind": "ReplicaSet",  # noqa: E731
                      "metadata": {"namespace": "default", "name": "rs1"}, "spec": {"selector": sel}}
    skip_rows = [
        ("the pod doesn't have soft topology spread Constraints", pod("p", namespace="default"), args_list(),
         [hn("node-a"), hn("node-b")], []),
        ("default constraints and a replicaset that doesn't match",
         pod("p", {"foo": "bar", "baz": "sup"}, namespace="default", owner=("ReplicaSet", "rs2")),
         args_list([{"maxSkew": 2, "topologyKey": "planet", "whenUnsatisfiable": SA}]),
         [node("node-a", {"planet": "mars"})], [rs({"matchExpressions": [{"key": "tar", "operator": "Exists"}]})]),
    ]
    for name, p, args, nodes, rss in skip_rows:
        case = {"id": f"podtopologyspread/scoring/prescore-skip-{slug(name)}",
                "source": f"{SCORING} :: TestPreScoreSkip :: {name}", "plugin": PLUGIN, "stage": "prescore",
                "args": args, "featureGates": gates(), "nodes": nodes, "existingPods": [], "pod": p,
                "expected": {"other": {"prescore": {"code": "Skip"}}}, "notes": GATE_NOTE}
        if rss:
            case["replicaSets"] = rss
        out.append(case)

    w = topology_normalizing_weight
    a3 = [hn("node-a", "zone1"), hn("node-b", "zone1"), hn("node-x", "zone2")]
    a3f = [hn("node-a", "zone1", foo=""), hn("node-b", "zone1", foo=""), hn("node-x", "zone2")]
    a3t = [hn("node-a", "zone1", foo=""), hn("node-b", "zone1", foo=""), hn("node-x", "zone2", taints=True)]
    z12 = {"zone1": 0, "zone2": 0}
    P = lambda *c, **kw: pod("p", {"foo": ""}, constraints=list(c), **kw)  # noqa: E731
    rows = [
        # name, pod, args, nodes, replicaSets, nip, (constraints, ignored, counts, weight sizes)
        ("normal case", P(sc(1, "zone", SA, FOO), sc(1, HOST, SA, FOO)), args_list(), a3, [], False,
         ([cons(1, "zone", FOO), cons(1, HOST, FOO)], [], [z12, {}], [2, 3])),
        ("null selector", P(sc(1, "zone", SA, None)), args_list(), a3, [], False,
         ([cons(1, "zone", None)], [], [z12], [2])),
        ("node-x doesn't have label zone", P(sc(1, "zone", SA, FOO), sc(1, HOST, SA, BAR)), args_list(),
         [hn("node-a", "zone1"), hn("node-b", "zone1"), hn("node-x")], [], False,
         ([cons(1, "zone", FOO), cons(1, HOST, BAR)], ["node-x"], [{"zone1": 0}, {}], [1, 2])),
        ("system default constraints and a replicaset",
         pod("p", {"foo": "tar", "baz": "sup"}, namespace="default", owner=("ReplicaSet", "rs1")),
         {"defaultingType": "System"},
         [node("node-a", {HOST: "node-a", ZONE_KEY: "mars"}), node("node-b", {HOST: "node-b", ZONE_KEY: "mars"}),
          node("node-c", {HOST: "node-c"}), node("node-d", {HOST: "node-d"})], [rs(FOO)], False,
         ([cons(3, HOST, FOO), cons(5, ZONE_KEY, FOO)], [], [{}, {"mars": 0, "": 0}], [4, 2])),
        ("default constraints and a replicaset",
         pod("p", {"foo": "tar", "baz": "sup"}, namespace="default", owner=("ReplicaSet", "rs1")),
         args_list([{"maxSkew": 1, "topologyKey": HOST, "whenUnsatisfiable": SA},
                    {"maxSkew": 2, "topologyKey": "rack", "whenUnsatisfiable": DNS},
                    {"maxSkew": 2, "topologyKey": "planet", "whenUnsatisfiable": SA}]),
         [node("node-a", {"rack": "rack1", HOST: "node-a", "planet": "mars"})], [rs(FOO)], False,
         ([cons(1, HOST, FOO), cons(2, "planet", FOO)], [], [{}, {"mars": 0}], [1, 1])),
        ("default constraints and a replicaset, but pod has constraints",
         pod("p", {"foo": "bar", "baz": "sup"}, namespace="default", owner=("ReplicaSet", "rs1"),
             constraints=[sc(1, "zone", DNS, BAR), sc(2, "planet", SA, ml(baz="sup"))]),
         args_list([{"maxSkew": 2, "topologyKey": "galaxy", "whenUnsatisfiable": SA}]),
         [node("node-a", {"planet": "mars", "galaxy": "andromeda"})], [rs(FOO)], False,
         ([cons(2, "planet", ml(baz="sup"))], [], [{"mars": 0}], [1])),
        ("NodeAffinityPolicy honored with labelSelectors", P(sc(1, "zone", SA, BAR), node_selector={"foo": ""}),
         args_list(), a3f, [], True, ([cons(1, "zone", BAR)], [], [z12], [2])),
        ("NodeAffinityPolicy ignored with labelSelectors",
         P(sc(1, "zone", SA, BAR, nap=IGNORE), node_selector={"foo": ""}), args_list(), a3f, [], True,
         ([cons(1, "zone", BAR, nap=IGNORE)], [], [z12], [2])),
        ("NodeAffinityPolicy honored with nodeAffinity", P(sc(1, "zone", SA, BAR), affinity=("foo", "In", [""])),
         args_list(), a3f, [], True, ([cons(1, "zone", BAR)], [], [z12], [2])),
        ("NodeAffinityPolicy ignored with nodeAffinity",
         P(sc(1, "zone", SA, BAR, nap=IGNORE), affinity=("foo", "In", [""])), args_list(), a3f, [], True,
         ([cons(1, "zone", BAR, nap=IGNORE)], [], [z12], [2])),
        ("NodeTaintsPolicy honored", P(sc(1, "zone", SA, BAR, ntp=HONOR)), args_list(), a3t, [], True,
         ([cons(1, "zone", BAR, ntp=HONOR)], [], [z12], [2])),
        ("NodeTaintsPolicy ignored", P(sc(1, "zone", SA, BAR)), args_list(), a3t, [], True,
         ([cons(1, "zone", BAR)], [], [z12], [2])),
    ]
    for name, p, args, nodes, rss, nip, (c, ignored, counts, sizes) in rows:
        case = {"id": f"podtopologyspread/scoring/prescore-state-{slug(name)}",
                "source": f"{SCORING} :: TestPreScoreStateEmptyNodes :: {name}", "plugin": PLUGIN,
                "stage": "prescore", "args": args, "featureGates": gates(nip=nip), "nodes": nodes,
                "existingPods": [], "pod": p,
                "expected": {"other": {"prescore": {"code": "Success"}, "preScoreState": {
                    "constraints": c, "ignoredNodes": ignored, "topologyValueToPodCounts": counts,
                    "topologyNormalizingWeight": [w(s) for s in sizes]}}},
                "notes": GATE_NOTE + " Upstream (at this commit) keys the counts by (topologyKey, value) pairs; "
                                     "they are written per constraint (hostname constraints have none: they are "
                                     "counted per node in Score). topologyNormalizingWeight(n) = Go math.Log(n+2), "
                                     "written as the float64 Go computes for the n of the row."}
        if rss:
            case["replicaSets"] = rss
        out.append(case)
    return out


def score_cases() -> list[dict]:
    P = lambda *c, labels=None, **kw: pod("p", labels or {"foo": ""}, constraints=list(c), **kw)  # noqa: E731
    h1 = sc(1, HOST, SA, FOO)
    p_2103 = foo_pods(("p-a1", "node-a"), ("p-a2", "node-a"), ("p-b1", "node-b"), ("p-d1", "node-d"),
                      ("p-d2", "node-d"), ("p-d3", "node-d"))
    p_4321 = foo_pods(("p-a1", "node-a"), ("p-a2", "node-a"), ("p-a3", "node-a"), ("p-a4", "node-a"),
                      ("p-b1", "node-b"), ("p-b2", "node-b"), ("p-b3", "node-b"), ("p-c1", "node-c"),
                      ("p-c2", "node-c"), ("p-d1", "node-d"))
    p_4213 = foo_pods(("p-a1", "node-a"), ("p-a2", "node-a"), ("p-a3", "node-a"), ("p-a4", "node-a"),
                      ("p-b1", "node-b"), ("p-b2", "node-b"), ("p-x1", "node-x"), ("p-y1", "node-y"),
                      ("p-y2", "node-y"), ("p-y3", "node-y"))
    abcd = [hn("node-a"), hn("node-b"), hn("node-c"), hn("node-d")]
    abc_node = [node("node-a", {"node": "node-a", "foo": ""}), node("node-b", {"node": "node-b", "foo": ""}),
                node("node-c", {"node": "node-c"})]
    abc_taint = [node("node-a", {"node": "node-a"}), node("node-b", {"node": "node-b"}),
                 node("node-c", {"node": "node-c"}, taints=True)]
    p_2111 = foo_pods(("p-a1", "node-a"), ("p-a2", "node-a"), ("p-b1", "node-b"), ("p-c1", "node-c"))
    zones4 = [hn("node-a", "zone1"), hn("node-b", "zone1"), hn("node-x", "zone2"), hn("node-y", "zone2")]
    zones_abcd = [hn("node-a", "zone1"), hn("node-b", "zone1"), hn("node-c", "zone2"), hn("node-d", "zone2")]
    mlk_pods = [ep("p-a1", "node-a", "foo"), ep("p-b1", "node-b", "foo", "bar"), ep("p-y1", "node-c", "foo"),
                ep("p-y2", "node-c", "bar")]
    FB = {"foo": "", "bar": ""}
    FBZ = {"foo": "", "bar": "", "baz": ""}
    service = [{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "svc"}, "spec": {"selector": {"foo": ""}}}]
    rows = [
        # name, pod, existing, nodes, failedNodes, want, extra
        ("one constraint on node, no existing pods", P(h1), [], [hn("node-a"), hn("node-b")], [],
         {"node-a": 100, "node-b": 100}, {}),
        ("one constraint on node, only one node is candidate", P(h1),
         foo_pods(("p-a1", "node-a"), ("p-a2", "node-a"), ("p-b1", "node-b")), [hn("node-a")], [hn("node-b")],
         {"node-a": 100}, {}),
        ("one constraint on node, all nodes have the same number of matching pods", P(h1),
         foo_pods(("p-a1", "node-a"), ("p-b1", "node-b")), [hn("node-a"), hn("node-b")], [],
         {"node-a": 100, "node-b": 100}, {}),
        ("one constraint on node, all 4 nodes are candidates", P(h1), p_2103, abcd, [],
         {"node-a": 20, "node-b": 60, "node-c": 100, "node-d": 0}, {}),
        ("one constraint on node, null selector", P(sc(1, HOST, SA, None)), p_2103, abcd, [],
         {"node-a": 100, "node-b": 100, "node-c": 100, "node-d": 100}, {}),
        ("one constraint on node, all 4 nodes are candidates, maxSkew=2", P(sc(2, HOST, SA, FOO)), p_2103, abcd, [],
         {"node-a": 33, "node-b": 66, "node-c": 100, "node-d": 16}, {}),
        ("one constraint on node, all 4 nodes are candidates, maxSkew=3", P(sc(3, HOST, SA, FOO)), p_4321, abcd, [],
         {"node-a": 44, "node-b": 66, "node-c": 77, "node-d": 100}, {}),
        ("system defaulting, nodes don't have zone, pods match service", pod("p", {"foo": ""}), p_4321, abcd, [],
         {"node-a": 44, "node-b": 66, "node-c": 77, "node-d": 100}, {"services": service}),
        ("one constraint on node, 3 out of 4 nodes are candidates", P(h1), p_4213,
         [hn("node-a"), hn("node-b"), hn("node-x")], [hn("node-y")],
         {"node-a": 33, "node-b": 83, "node-x": 100}, {}),
        ("one constraint on node, 3 out of 4 nodes are candidates, one node doesn't match topology key", P(h1),
         p_4213, [hn("node-a"), node("node-b", {"n": "node-b"}), hn("node-x")], [hn("node-y")],
         {"node-a": 16, "node-b": 0, "node-x": 100}, {}),
        ("one constraint on zone, 3 out of 4 nodes are candidates", P(sc(1, "zone", SA, FOO)), p_4213,
         zones4[:3], zones4[3:], {"node-a": 75, "node-b": 75, "node-x": 100}, {}),
        ("two Constraints on zone and node, 2 out of 4 nodes are candidates",
         P(sc(1, "zone", SA, FOO), h1),
         foo_pods(("p-a1", "node-a"), ("p-a2", "node-a"), ("p-b1", "node-b"), ("p-x1", "node-x"),
                  ("p-x2", "node-x"), ("p-y1", "node-y"), ("p-y2", "node-y"), ("p-y3", "node-y"),
                  ("p-y4", "node-y")),
         [zones4[0], zones4[2]], [zones4[1], zones4[3]], {"node-a": 100, "node-x": 63}, {}),
        ("two Constraints on zone and node, with different labelSelectors",
         P(sc(1, "zone", SA, FOO), sc(1, HOST, SA, BAR), labels=FB),
         [ep("p-a1", "node-a", "foo"), ep("p-b1", "node-b", "foo", "bar"), ep("p-y1", "node-y", "foo"),
          ep("p-y2", "node-y", "bar")], zones4, [],
         {"node-a": 60, "node-b": 20, "node-x": 100, "node-y": 60}, {}),
        ("two Constraints on zone and node, with different labelSelectors, some nodes have 0 pods",
         P(sc(1, "zone", SA, FOO), sc(1, HOST, SA, BAR), labels=FB),
         [ep("p-b1", "node-b", "bar"), ep("p-x1", "node-x", "foo"), ep("p-y1", "node-y", "foo", "bar")], zones4, [],
         {"node-a": 100, "node-b": 60, "node-x": 40, "node-y": 0}, {}),
        ("two Constraints on zone and node, with different labelSelectors, 3 out of 4 nodes are candidates",
         P(sc(1, "zone", SA, FOO), sc(1, HOST, SA, BAR), labels=FB),
         [ep("p-a1", "node-a", "foo"), ep("p-b1", "node-b", "foo", "bar"), ep("p-y1", "node-y", "foo"),
          ep("p-y2", "node-y", "bar")], zones4[:3], zones4[3:],
         {"node-a": 50, "node-b": 25, "node-x": 100}, {}),
        ("existing pods in a different namespace do not count", P(h1),
         [ep("p-a1", "node-a", "foo", ns="ns1"), ep("p-a2", "node-a", "foo"), ep("p-b1", "node-b", "foo"),
          ep("p-b2", "node-b", "foo")], [hn("node-a"), hn("node-b")], [], {"node-a": 100, "node-b": 33}, {}),
        ("terminating Pods should be excluded", P(h1),
         [ep("p-a", "node-a", "foo", terminating=True), ep("p-b", "node-b", "foo")], [hn("node-a"), hn("node-b")],
         [], {"node-a": 100, "node-b": 0}, {}),
        ("minDomains has no effect when ScheduleAnyway", P(sc(2, "node", SA, FOO, min_domains=10)),
         foo_pods(("p-a1", "node-a"), ("p-a2", "node-a"), ("p-b1", "node-b"), ("p-b2", "node-b"),
                  ("p-c1", "node-c")),
         [node("node-a", {"node": "node-a"}), node("node-b", {"node": "node-b"}), node("node-c", {"node": "node-c"})],
         [], {"node-a": 75, "node-b": 75, "node-c": 100}, {}),
        ("NodeAffinityPolicy honoed with labelSelectors", P(sc(1, "node", SA, FOO), node_selector={"foo": ""}),
         p_2111, abc_node, [], {"node-a": 0, "node-b": 33, "node-c": 100}, {"nip": True}),
        ("NodeAffinityPolicy ignored with labelSelectors",
         P(sc(1, "node", SA, FOO, nap=IGNORE), node_selector={"foo": ""}), p_2111, abc_node, [],
         {"node-a": 66, "node-b": 100, "node-c": 100}, {"nip": True}),
        ("NodeAffinityPolicy honoed with nodeAffinity", P(sc(1, "node", SA, FOO), affinity=("foo", "In", [""])),
         p_2111, abc_node, [], {"node-a": 0, "node-b": 33, "node-c": 100}, {"nip": True}),
        ("NodeAffinityPolicy ignored with nodeAffinity",
         P(sc(1, "node", SA, FOO, nap=IGNORE), affinity=("foo", "In", [""])), p_2111, abc_node, [],
         {"node-a": 66, "node-b": 100, "node-c": 100}, {"nip": True}),
        ("NodeTaintsPolicy honored", P(sc(1, "node", SA, FOO, ntp=HONOR)), p_2111, abc_taint, [],
         {"node-a": 0, "node-b": 33, "node-c": 100}, {"nip": True}),
        ("NodeTaintsPolicy ignored", P(sc(1, "node", SA, FOO)), p_2111, abc_taint, [],
         {"node-a": 66, "node-b": 100, "node-c": 100}, {"nip": True}),
        ("matchLabelKeys ignored when feature gate disabled",
         P(sc(1, "zone", SA, FOO, mlk=["baz"]), sc(1, HOST, SA, BAR, mlk=["baz"]), labels=FBZ), mlk_pods,
         zones_abcd, [], {"node-a": 60, "node-b": 20, "node-c": 60, "node-d": 100}, {"mlk": False}),
        ("matchLabelKeys ANDed with LabelSelector when LabelSelector is empty",
         P(sc(1, "zone", SA, EMPTY, mlk=["foo"]), sc(1, HOST, SA, EMPTY, mlk=["bar"]), labels=FB), mlk_pods,
         zones_abcd, [], {"node-a": 60, "node-b": 20, "node-c": 60, "node-d": 100}, {"mlk": True}),
        ("matchLabelKeys ANDed with LabelSelector when LabelSelector isn't empty",
         P(sc(1, "zone", SA, FOO), sc(1, HOST, SA, BAR, mlk=["baz"]), labels=FBZ),
         [ep("p-a1", "node-a", "foo"), ep("p-b1", "node-b", "foo", "bar", "baz"), ep("p-c1", "node-c", "foo"),
          ep("p-c2", "node-c", "bar"), ep("p-d3", "node-c", "bar", "baz")],
         zones_abcd, [], {"node-a": 60, "node-b": 20, "node-c": 60, "node-d": 100}, {"mlk": True}),
    ]
    out = []
    for name, p, existing, nodes, failed, want, extra in rows:
        case = {"id": f"podtopologyspread/scoring/score-{slug(name)}",
                "source": f"{SCORING} :: TestPodTopologySpreadScore :: {name}", "plugin": PLUGIN, "stage": "score",
                "args": {"defaultingType": "System"},
                "featureGates": gates(nip=extra.get("nip", False), mlk=extra.get("mlk", False)),
                "nodes": nodes + failed, "existingPods": existing, "pod": p,
                "expected": {"scores": want, "scoreStage": "normalized",
                             "other": {"filteredNodes": [n["metadata"]["name"] for n in nodes]}},
                "notes": GATE_NOTE + " failedNodes are in the cluster but not among filteredNodes (PreScore and "
                                     "Score get the filtered nodes only)."}
        if "services" in extra:
            case["services"] = extra["services"]
            case["notes"] += " The Service is unnamed upstream; 'svc' is synthetic."
        out.append(case)
    return out


# -- validation_pluginargs_test.go ------------------------------------------------------------------------
def validation_cases() -> list[dict]:
    c = lambda skew, key, when, **kw: {"maxSkew": skew, "topologyKey": key, "whenUnsatisfiable": when, **kw}  # noqa
    rows = [
        ("valid config", {"defaultConstraints": [c(1, "node", DNS), c(2, "zone", SA)], "defaultingType": "List"}, []),
        ("maxSkew less than zero", {"defaultConstraints": [c(-1, "node", DNS)], "defaultingType": "List"},
         [("FieldValueInvalid", "defaultConstraints[0].maxSkew")]),
        ("empty topology key", {"defaultConstraints": [c(1, "", DNS)], "defaultingType": "List"},
         [("FieldValueRequired", "defaultConstraints[0].topologyKey")]),
        ("whenUnsatisfiable is empty", {"defaultConstraints": [c(1, "node", "")], "defaultingType": "List"},
         [("FieldValueRequired", "defaultConstraints[0].whenUnsatisfiable")]),
        ("whenUnsatisfiable contains unsupported action",
         {"defaultConstraints": [c(1, "node", "unknown action")], "defaultingType": "List"},
         [("FieldValueNotSupported", "defaultConstraints[0].whenUnsatisfiable")]),
        ("duplicated constraints", {"defaultConstraints": [c(1, "node", DNS), c(2, "node", DNS)],
                                    "defaultingType": "List"},
         [("FieldValueDuplicate", "defaultConstraints[1]")]),
        ("label selector present", {"defaultConstraints": [c(1, "key", DNS, labelSelector={"matchLabels": {"a": "b"}})],
                                    "defaultingType": "List"},
         [("FieldValueForbidden", "defaultConstraints[0].labelSelector")]),
        ("list default constraints, no constraints", {"defaultingType": "List"}, []),
        ("system default constraints", {"defaultingType": "System"}, []),
        ("wrong constraints", {"defaultingType": "unknown"}, [("FieldValueNotSupported", "defaultingType")]),
        ("system default constraints, but has constraints",
         {"defaultConstraints": [c(1, "key", DNS)], "defaultingType": "System"},
         [("FieldValueInvalid", "defaultingType")]),
    ]
    return [{"id": f"podtopologyspread/validation_pluginargs/{slug(name)}",
             "source": f"{VALIDATION} :: TestValidatePodTopologySpreadArgs :: {name}", "plugin": PLUGIN,
             "stage": "args-validation", "args": args, "nodes": [], "existingPods": [], "pod": None,
             "expected": {"other": {"argsError": [{"type": t, "field": f} for t, f in errs]}},
             "notes": "Upstream validates the internal config struct; args here are the v1 YAML form with "
                      "defaultingType always given, so v1 defaulting changes nothing."}
            for name, args, errs in rows]


def main() -> None:
    files = {
        "filtering.json": (prefilter_state_cases() + single_constraint_cases() + multiple_constraints_cases()
                           + [prefilter_disabled_case()]),
        "scoring.json": prescore_cases() + score_cases(),
        "validation_pluginargs.json": validation_cases(),
    }
    for name, cases in files.items():
        ids = [c["id"] for c in cases]
        assert len(ids) == len(set(ids)), f"duplicate ids in {name}"
        (HERE / name).write_text(json.dumps(cases, indent=2, ensure_ascii=False) + "\n")
        print(f"{name}: {len(cases)} cases")


if __name__ == "__main__":
    main()
