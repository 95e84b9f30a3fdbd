"""TopologyPlacementGenerator (the Go type is ``TopologyPlacement``): one candidate placement per
value of the group's topology key (PlacementGenerate; TopologyAwareWorkloadScheduling).

A PodGroup (or CompositePodGroup) with ``spec.schedulingConstraints.topology[0].key`` gets
one placement per distinct value of that node label inside the parent placement, named by
the value; nodes without the label are in none. When some of the group's pods are already
scheduled, only their domain is generated (they must all share one, else an error). A
group without a topology constraint keeps the parent placement as its only candidate.
Upstream builds the candidates from a map (unordered); here they come sorted by value.

>>> from kschedlab.cluster import Cluster
>>> from kschedlab.api.loader import load_objects
>>> from kschedlab.framework.podgroups import PodGroupInfo
>>> from kschedlab.framework.placement import Placement
>>> nodes = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": n, "labels": {"rack": r}}}
...          for n, r in (("n1", "b"), ("n2", "a"), ("n3", "b"))]
>>> pg = {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup", "metadata": {"name": "pg", "namespace": "ns"},
...       "spec": {"schedulingPolicy": {"gang": {"minCount": 2}},
...                "schedulingConstraints": {"topology": [{"key": "rack"}]}}}
>>> cluster = Cluster(load_objects([*nodes, pg]))
>>> plugin = TopologyPlacement.for_cluster(cluster)
>>> info = PodGroupInfo.build(cluster, "podgroup/ns/pg")
>>> placements, status = plugin.generate_placements({}, info, Placement.all_nodes(cluster.snapshot))
>>> [(p.name, p.node_names(cluster.snapshot)) for p in placements]
[('a', ['n2']), ('b', ['n1', 'n3'])]
"""

from __future__ import annotations

from kschedlab.framework.interface import Plugin, register
from kschedlab.framework.placement import Placement
from kschedlab.framework.status import Status

NAME = "TopologyPlacementGenerator"


def topology_key(obj) -> str | None:
    """The first ``schedulingConstraints.topology[].key`` of a PodGroup / CompositePodGroup."""
    constraints = getattr(obj.spec, "scheduling_constraints", None) if obj is not None else None
    if constraints is None or not constraints.topology:
        return None
    return constraints.topology[0].key


@register
class TopologyPlacement(Plugin):
    name = NAME

    @classmethod
    def for_cluster(cls, cluster, gates=None) -> "TopologyPlacement":
        """A plugin over ``cluster`` outside a framework (notebooks, tests)."""
        from kschedlab.features import FeatureGates
        from kschedlab.framework.runtime import Handle

        return cls(None, Handle(gates or FeatureGates(), None, cluster))

    def generate_placements(self, state, group, parent: Placement) -> tuple[list[Placement], Status]:
        key = topology_key(group.obj)
        if key is None:
            return [parent], Status()
        snapshot = self.handle.cluster.snapshot
        codes, vocab = snapshot.label_codes(key)
        values = {code: value for value, code in vocab.items()}
        required, error = self._scheduled_domain(group, key)
        if error:
            return [], Status.error(f"cannot determine domain for already scheduled pods: {error}")
        parent_codes = codes[parent.rows]
        placements = []
        for code in sorted(set(parent_codes[parent_codes >= 0].tolist()), key=lambda c: values[c]):
            if required is not None and values[code] != required:
                continue
            placements.append(Placement(values[code], parent.rows[parent_codes == code]))
        return placements, Status()

    def _scheduled_domain(self, group, key: str) -> tuple[str | None, str | None]:
        """The one domain the group's scheduled pods share, or an error message."""
        cluster = self.handle.cluster
        return scheduled_pods_topology_domain(cluster, group.scheduled_pod_keys(cluster), key)


def scheduled_pods_topology_domain(cluster, pod_keys, key: str) -> tuple[str | None, str | None]:
    """``getScheduledPodsTopologyDomain``: the value of label ``key`` on the nodes of the placed
    pods ``pod_keys`` (bound or assumed), which must all share it — ``(domain, None)``, ``""``
    being a domain, ``(None, None)`` for no pod — or ``(None, error)``."""
    snapshot = cluster.snapshot
    domain = None
    for pod_key in pod_keys:
        pod = cluster.pods[pod_key]
        node = pod.spec.node_name or snapshot.names[snapshot.pod_row[pod_key]]
        labels = snapshot.nodes[snapshot.index[node]].metadata.labels if node in snapshot.index else {}
        value = labels.get(key)
        name = f"{pod.metadata.namespace}/{pod.metadata.name}" if pod.metadata.namespace else pod.metadata.name
        if value is None:
            return None, f"no topology domain found for pod {name}"
        if domain is not None and domain != value:
            return None, f"more than 1 domain found for pod group: {domain}, {value}"
        domain = value
    return domain, None
