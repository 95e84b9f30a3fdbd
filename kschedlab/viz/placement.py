"""What-ifs for PodGroup placement (notebooks 16 and 17): build a training job, run one PodGroup
cycle and report which placement was chosen; and a PodGroup preemption showing what
``disruptionMode`` changes.

Everything here builds manifests, admits them as the API server would and runs the real
scheduler (:meth:`kschedlab.scheduler.Scheduler.schedule_pod_group`); the tables come from
:mod:`kschedlab.viz.podgroup`.

>>> racks = [("a1", "rack-a", 4), ("b1", "rack-b", 2)]
>>> out = placement_what_if(racks, min_count=2, workers=3, topology="rack")
>>> out.code, out.chosen, out.bound
('Success', 'rack-a', 3)
>>> print(placement_what_if(racks, min_count=2, workers=3, cpu=3, topology="rack").summary())
Unschedulable: 0 pods bound (0/2 placements are available, first placement status: minCount (2) cannot be satisfied: 1 scheduled, 0 remaining, pod group preemption: not supported with topology constraints)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import pandas as pd

from kschedlab.api.loader import load_objects
from kschedlab.apiserver.admission import admit
from kschedlab.cluster import Cluster
from kschedlab.scheduler import Scheduler
from kschedlab.viz import podgroup as pgviz

__all__ = ["PlacementOutcome", "training_manifests", "placement_what_if", "composite_manifests",
           "composite_what_if", "group_preemption_what_if", "GENERIC_WORKLOAD", "TAS_GATES", "COMPOSITE_GATES"]

GENERIC_WORKLOAD = {"GenericWorkload": True}
TAS_GATES = {"GenericWorkload": True, "TopologyAwareWorkloadScheduling": True}
COMPOSITE_GATES = {**TAS_GATES, "CompositePodGroup": True}
_V1BETA1 = "scheduling.k8s.io/v1beta1"


def _node(name: str, labels: dict, cpu) -> dict:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels},
            "status": {"allocatable": {"cpu": str(cpu), "memory": "16Gi", "pods": "110"}}}


def _worker(name: str, group: str, cpu, namespace: str = "ml") -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": namespace},
            "spec": {"schedulingGroup": {"podGroupName": group},
                     "containers": [{"name": "ml-worker", "image": "training:v1",
                                     "resources": {"requests": {"cpu": str(cpu)}}}]}}


def training_manifests(nodes: Sequence[tuple[str, str, int]], *, min_count: int = 4, workers: int = 6, cpu=1,
                       topology: str | None = None) -> list:
    """Admitted objects: ``nodes`` as (name, rack, CPUs), the PodGroup ``ml/training`` (a gang
    of ``min_count``; with ``topology`` a label key, the constraint to keep it in one domain of
    that key) and ``workers`` pods ``worker-0`` … requesting ``cpu`` each.  The gates are
    :data:`GENERIC_WORKLOAD`, plus ``TopologyAwareWorkloadScheduling`` with a topology.

    >>> [o.kind for o in training_manifests([("n1", "rack-a", 2)], workers=1)]
    ['Node', 'PodGroup', 'Pod']
    """
    spec: dict = {"schedulingPolicy": {"gang": {"minCount": min_count}}}
    if topology:
        spec["schedulingConstraints"] = {"topology": [{"key": topology}]}
    docs = [_node(n, {"rack": r}, c) for n, r, c in nodes]
    docs.append({"apiVersion": _V1BETA1, "kind": "PodGroup", "metadata": {"name": "training", "namespace": "ml"},
                 "spec": spec})
    docs += [_worker(f"worker-{i}", "training", cpu) for i in range(workers)]
    return admit(load_objects(docs), feature_gates=TAS_GATES if topology else GENERIC_WORKLOAD)


@dataclass
class PlacementOutcome:
    """One PodGroup cycle: the status code and message, the placement committed (``""`` when
    none, or without a topology constraint), pods bound and where, the candidates' table
    (:func:`kschedlab.viz.podgroup.placement_scores`) and the cycle's result itself."""

    code: str
    message: str
    chosen: str
    bound: int
    nodes: dict = field(default_factory=dict)
    scores: pd.DataFrame | None = None
    result: object = None
    cluster: object = None

    def summary(self) -> str:
        """One line: the verdict, the placement and the pods bound.

        >>> PlacementOutcome("Success", "", "rack-b", 6).summary()
        'Success: 6 pods bound in rack-b'
        """
        where = f" in {self.chosen}" if self.chosen else ""
        text = f"{self.code}: {self.bound} pods bound{where}"
        return text + (f" ({self.message})" if self.message else "")


def _outcome(cluster: Cluster, result, group: str | None) -> PlacementOutcome:
    nodes = {k.split("/", 1)[-1]: n for k, n in result.placements().items() if n}
    scores = pgviz.placement_scores(result)
    top = scores[scores["final"] & ((scores["group"] == group) if group else (scores["within"] == ""))]
    chosen = str(top["placement"].iloc[0]) if nodes and not top.empty else ""
    return PlacementOutcome(result.status.code.name, result.status.message(), chosen, len(nodes), nodes, scores,
                            result, cluster)


def placement_what_if(nodes: Sequence[tuple[str, str, int]], *, min_count: int = 4, workers: int = 6, cpu=1,
                      topology: str | None = "rack", seed: int = 0) -> PlacementOutcome:
    """One cycle for :func:`training_manifests` ``(nodes, ...)``: which placement wins.

    >>> placement_what_if([("n1", "rack-a", 2), ("n2", "rack-b", 2)], min_count=3, workers=3,
    ...                   topology=None).summary()
    'Success: 3 pods bound'
    """
    cluster = Cluster(training_manifests(nodes, min_count=min_count, workers=workers, cpu=cpu, topology=topology))
    gates = TAS_GATES if topology else GENERIC_WORKLOAD
    result = Scheduler(cluster, gates=gates, seed=seed).schedule_pod_group("podgroup/ml/training")
    return _outcome(cluster, result, "training" if topology else None)


def composite_manifests(racks: dict, *, job: str = "job", cpu=2, replicas: int = 2, workers: int = 4,
                        min_group_count: int | None = None, min_count: int | None = None) -> list:
    """Admitted objects in notebook 17's shape: two nodes per rack of ``racks``
    (``{zone: {rack: CPUs per node}}``, nodes ``<zone>-<rack>-n<i>`` labelled ``zone`` and
    ``rack: <zone>-<rack>``); the CompositePodGroup ``job`` (``min_group_count`` children, default
    all, in one zone) and its ``replicas`` PodGroups ``<job>-rep<r>`` (gangs of ``min_count``,
    default all ``workers``, each in one rack) with their pods ``<job>-rep<r>-w<i>`` of ``cpu`` CPUs.

    >>> objs = composite_manifests({"z0": {"r0": 8}}, replicas=1, workers=2)
    >>> [o.kind for o in objs]
    ['Node', 'Node', 'CompositePodGroup', 'PodGroup', 'Pod', 'Pod']
    """
    mgc = replicas if min_group_count is None else min_group_count
    mc = workers if min_count is None else min_count
    docs = [_node(f"{z}-{r}-n{i}", {"zone": z, "rack": f"{z}-{r}"}, c)
            for z, rs in racks.items() for r, c in rs.items() for i in range(2)]
    docs.append({"apiVersion": "scheduling.k8s.io/v1alpha3", "kind": "CompositePodGroup",
                 "metadata": {"name": job, "namespace": "ml"},
                 "spec": {"workloadRef": {"workloadName": job, "templateName": "job"},
                          "schedulingPolicy": {"gang": {"minGroupCount": mgc}},
                          "schedulingConstraints": {"topology": [{"key": "zone"}]}}})
    for r in range(replicas):
        group = f"{job}-rep{r}"
        docs.append({"apiVersion": _V1BETA1, "kind": "PodGroup", "metadata": {"name": group, "namespace": "ml"},
                     "spec": {"parentCompositePodGroupName": job,
                              "workloadRef": {"workloadName": job, "templateName": "replica"},
                              "schedulingPolicy": {"gang": {"minCount": mc}},
                              "schedulingConstraints": {"topology": [{"key": "rack"}]}}})
        docs += [_worker(f"{group}-w{i}", group, cpu) for i in range(workers)]
    return admit(load_objects(docs), feature_gates=COMPOSITE_GATES)


def composite_what_if(racks: dict, *, seed: int = 0, **job) -> PlacementOutcome:
    """One cycle for the root of :func:`composite_manifests` ``(racks, **job)``; ``chosen`` is
    the zone committed for the whole job.

    >>> racks = {"z0": {"r0": 4, "r1": 2}, "z1": {"r0": 4, "r1": 4}}
    >>> composite_what_if(racks).summary()
    'Success: 8 pods bound in z1'
    >>> composite_what_if(racks, cpu=1).chosen, composite_what_if(racks, cpu=3).code
    ('z0', 'Unschedulable')
    """
    name = job.get("job", "job")
    cluster = Cluster(composite_manifests(racks, **job))
    result = Scheduler(cluster, gates=COMPOSITE_GATES, seed=seed).schedule_pod_group(f"compositepodgroup/ml/{name}")
    return _outcome(cluster, result, name)


def group_preemption_what_if(disruption_mode: str = "single", *, victims: int = 3,
                             preemptor_class: str = "high-priority") -> dict:
    """A PodGroup preemption: ``victims`` nodes of 2 CPUs, full with the gang ``analytics``
    (``priorityClassName: low-priority``, value 100, ``disruptionMode`` as given: ``single`` or
    ``all``); the gang ``training`` (``priorityClassName`` ``preemptor_class``, one 2-CPU pod)
    arrives.  Returns the admitted groups' priorities, the cycle's message, the evicted pods
    and the node ``trainer-0`` is nominated to.  The group is placed once with every victim
    gone; seed 5 makes the draw among the three emptied nodes put ``trainer-0`` on ``n2``.

    >>> group_preemption_what_if("single")["evicted"], group_preemption_what_if("all")["evicted"]
    (['analytics-2'], ['analytics-0', 'analytics-1', 'analytics-2'])
    >>> group_preemption_what_if("all", preemptor_class="low-priority")["evicted"]
    []
    """
    docs: list[dict] = [
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high-priority"},
         "value": 1000000},
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "low-priority"},
         "value": 100}]
    docs += [_node(f"n{i}", {}, 2) for i in range(victims)]
    docs.append({"apiVersion": _V1BETA1, "kind": "PodGroup", "metadata": {"name": "analytics", "namespace": "ml"},
                 "spec": {"schedulingPolicy": {"gang": {"minCount": victims}}, "priorityClassName": "low-priority",
                          "disruptionMode": {disruption_mode: {}}}})
    for i in range(victims):
        pod = _worker(f"analytics-{i}", "analytics", 2)
        pod["spec"].update(nodeName=f"n{i}", priorityClassName="low-priority")
        docs.append(pod)
    docs.append({"apiVersion": _V1BETA1, "kind": "PodGroup", "metadata": {"name": "training", "namespace": "ml"},
                 "spec": {"schedulingPolicy": {"gang": {"minCount": 1}}, "priorityClassName": preemptor_class}})
    trainer = _worker("trainer-0", "training", 2)
    trainer["spec"]["priorityClassName"] = preemptor_class
    docs.append(trainer)
    objects = admit(load_objects(docs), feature_gates=GENERIC_WORKLOAD)
    cluster = Cluster(objects)
    before = set(cluster.pods)
    result = Scheduler(cluster, gates=GENERIC_WORKLOAD, seed=5).schedule_pod_group("podgroup/ml/training")
    trainer_pod = cluster.pods["ml/trainer-0"]
    return {"priorities": {g.name: g.spec.priority for g in cluster.of_kind("PodGroup")},
            "message": result.status.message(),
            "evicted": sorted(k.split("/", 1)[1] for k in before - set(cluster.pods)),
            "nominated": (trainer_pod.status.nominated_node_name or "") if trainer_pod.status else ""}
