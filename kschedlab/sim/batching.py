"""Opportunistic batching on a small workload: when it applies, what it saves (seed section 10,
"Увімкнення випадкової пакетної обробки"; the mechanism is :mod:`kschedlab.framework.batch`).

The documented conditions, and where kschedlab checks them:

- the pod can be *signed*: every plugin with a signature extension point agrees
  (:func:`signature_blockers` names the ones that refuse: inter-pod (anti-)affinity, topology
  spread constraints, DRA claims, NodeResourcesFit while ``DRAExtendedResource`` is on);
- the profile has no default topology spread constraints (``defaultingType: List`` with none);
- consecutive pods have the same signature, and each takes a whole node (the node the previous
  pod got must no longer fit the next one, else the cached list is dropped: ``node_not_full``);
- the cached list is younger than 0.5 s (here the clock stands still);
- no other pod, of any profile, was attempted in between (``pod_skipped``): each profile has
  its own batch, but the scheduling cycles of all profiles are counted together.

:func:`batching_run` schedules every pending pod with the gate on or off and tabulates, per pod,
how much Filter and Score work was done; :func:`batching_comparison` puts the two side by side.

>>> objects = one_pod_per_node(nodes=6, pods=5)
>>> on = batching_run(objects, batching=True)
>>> on["served from batch"].tolist()
[False, True, True, True, True]
>>> batching_comparison(objects).loc[["nodes filtered", "nodes scored"]].to_dict("list")
{'on': [10, 6], 'off': [30, 20]}
"""

from __future__ import annotations

import copy
from typing import Iterable

import pandas as pd

from kschedlab.api.loader import load_objects
from kschedlab.apiserver.admission import admit
from kschedlab.cluster import Cluster
from kschedlab.features import FeatureGates
from kschedlab.framework.types import PodInfo
from kschedlab.scheduler import Scheduler

__all__ = ["BATCHING_CONFIG", "two_profiles", "batching_gates", "one_pod_per_node", "signature_blockers", "batching_run",
           "batching_comparison"]

#: a profile that meets the documented conditions: no default topology spread constraints and
#: existing pods' preferred affinity terms ignored (so a pod's labels are not part of its signature)
BATCHING_CONFIG = {"profiles": [{"pluginConfig": [
    {"name": "PodTopologySpread", "args": {"defaultingType": "List"}},
    {"name": "InterPodAffinity", "args": {"ignorePreferredTermsOfExistingPods": True}}]}]}


def two_profiles(batching_name: str = "batch-scheduler") -> dict:
    """A KubeSchedulerConfiguration with two profiles side by side: ``default-scheduler`` as
    it comes (its default spread constraints make every pod unsignable) and ``batching_name``
    configured as :data:`BATCHING_CONFIG`.  Pods choose one with ``spec.schedulerName``.

    >>> [p["schedulerName"] for p in two_profiles()["profiles"]]
    ['default-scheduler', 'batch-scheduler']
    """
    return {"profiles": [{"schedulerName": "default-scheduler"},
                         {"schedulerName": batching_name, **BATCHING_CONFIG["profiles"][0]}]}


def batching_gates(batching: bool = True, *, dra_extended_resource: bool = False) -> FeatureGates:
    """Feature gates for the examples: ``OpportunisticBatching`` as asked and, by default,
    ``DRAExtendedResource`` off (it is GA and locked on in v1.37, so this emulates an older
    version, as the docs' condition requires).

    >>> g = batching_gates(False)
    >>> g.enabled("OpportunisticBatching"), g.enabled("DRAExtendedResource")
    (False, False)
    """
    return FeatureGates({"DRAExtendedResource": dra_extended_resource, "OpportunisticBatching": batching},
                        emulate_older=not dra_extended_resource)


def one_pod_per_node(nodes: int = 6, pods: int = 5, *, node_cpu: int = 4, pod_cpu: int = 3,
                     extra_pod: dict | None = None, scheduler_names: dict[int, str] | None = None) -> list:
    """Admitted objects: ``nodes`` identical nodes of ``node_cpu`` CPUs and ``pods`` identical
    pending pods ``worker-0`` … of ``pod_cpu`` CPUs each (one per node when ``2 × pod_cpu``
    exceeds ``node_cpu``).  ``extra_pod`` (a pod spec fragment merged into worker-2's spec)
    makes one pod different; ``scheduler_names`` maps worker numbers to a ``schedulerName``.

    >>> [o.name for o in one_pod_per_node(nodes=2, pods=1)]
    ['node-0', 'node-1', 'worker-0']
    """
    docs: list[dict] = [{"apiVersion": "v1", "kind": "Node",
                         "metadata": {"name": f"node-{i}", "labels": {"kubernetes.io/hostname": f"node-{i}"}},
                         "status": {"allocatable": {"cpu": str(node_cpu), "memory": "16Gi", "pods": "110"}}}
                        for i in range(nodes)]
    for j in range(pods):
        spec = {"containers": [{"name": "train", "image": "training:v1",
                                "resources": {"requests": {"cpu": str(pod_cpu), "memory": "1Gi"}}}]}
        if extra_pod and j == 2:
            spec.update(extra_pod)
        if scheduler_names and j in scheduler_names:
            spec["schedulerName"] = scheduler_names[j]
        docs.append({"apiVersion": "v1", "kind": "Pod",
                     "metadata": {"name": f"worker-{j}", "namespace": "default", "labels": {"app": "train"}},
                     "spec": spec})
    return admit(load_objects(docs))


def signature_blockers(objects: Iterable, pod: str, config: dict | None = None,
                       gates: FeatureGates | None = None) -> list[tuple[str, str]]:
    """The plugins of the default profile that refuse to sign ``pod`` ("namespace/name"), each
    with its reason; empty when the pod can be batched.

    >>> objs = one_pod_per_node(nodes=1, pods=1)
    >>> signature_blockers(objs, "default/worker-0", BATCHING_CONFIG, batching_gates())
    []
    >>> [p for p, _ in signature_blockers(objs, "default/worker-0", {}, batching_gates())]
    ['PodTopologySpread']
    """
    scheduler = Scheduler(Cluster(copy.deepcopy(list(objects))), config or {}, gates=gates or batching_gates(), seed=0)
    pod_info = scheduler.cluster.pod_infos.get(pod) or PodInfo.of(scheduler.cluster.pods[pod])
    fw = scheduler.profiles["default-scheduler"]
    out = []
    for plugin in fw.sign_plugins:
        _, status = plugin.sign_pod(pod_info)
        if status is not None and not status.is_success():
            out.append((plugin.name, status.message()))
    return out


def batching_run(objects: Iterable, *, batching: bool = True, config: dict | None = None,
                 gates: FeatureGates | None = None, seed: int = 0) -> pd.DataFrame:
    """Schedule every pending pod of ``objects`` in queue order, with opportunistic batching on
    or off (``gates`` default: :func:`batching_gates`; ``config`` default :data:`BATCHING_CONFIG`).
    One row per pod: the profile (``schedulerName``), the node, whether it could be signed, the batch's hint and what became of
    it, the reasons the cached list was not used, and the work: nodes filtered and nodes scored.
    """
    cluster = Cluster(copy.deepcopy(list(objects)))  # the objects passed in are not changed
    scheduler = Scheduler(cluster, BATCHING_CONFIG if config is None else config,
                          gates=gates or batching_gates(batching), seed=seed)
    rows = []
    for q in scheduler.queue():
        r = scheduler.schedule_one(q.pod_info.key)
        b = r.trace.batch
        rows.append({"pod": r.pod.split("/", 1)[1],
                     "profile": cluster.pods[r.pod].spec.scheduler_name or "default-scheduler",
                     "node": r.node or "",
                     "signed": bool(b and b.signature is not None),
                     "hint": (b.hint or "") if b else "",
                     "served from batch": bool(r.trace.batched),
                     "not used because": ", ".join(b.flushed) if b else "",
                     "nodes filtered": int(r.trace.evaluated_nodes),
                     "nodes scored": 0 if r.trace.batched else len(r.trace.scores() or {}),
                     "left in batch": b.remaining if b else 0})
    return pd.DataFrame(rows)


def batching_comparison(objects: Iterable, *, config: dict | None = None, seed: int = 0) -> pd.DataFrame:
    """:func:`batching_run` with the gate on and off, summed: pods scheduled, pods served from
    the batch, nodes filtered and nodes scored.  (Which of several equally good nodes a pod gets
    may differ: ties are broken at random, and the two runs draw differently.)

    >>> batching_comparison(one_pod_per_node(nodes=3, pods=3))["on"].tolist()
    [3, 2, 5, 3]
    """
    objects = list(objects)
    runs = {label: batching_run(objects, batching=on, config=config, seed=seed)
            for label, on in (("on", True), ("off", False))}
    return pd.DataFrame({label: [int((df["node"] != "").sum()), int(df["served from batch"].sum()),
                                 int(df["nodes filtered"].sum()), int(df["nodes scored"].sum())]
                         for label, df in runs.items()},
                        index=pd.Index(["pods scheduled", "served from batch", "nodes filtered", "nodes scored"],
                                       name="OpportunisticBatching"))
